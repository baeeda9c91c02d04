"""Exact counting of any pattern (la_gpm.exact): the GPU engines against the CPU engine, subgraph matching
against networkx / igraph, and the batched HPRD queries.

    python benchmarks/bench_exact.py gpu_enum --gpu [--skip-slow] [--skip-hprd]   # dfs engine (DuMato-style)
    python benchmarks/bench_exact.py gpu_trie --gpu                               # breadth-first trie (cuTS-style)
    python benchmarks/bench_exact.py match [--queries 1 2 8] [--numbering]        # CPU vs VF2 / LAD
    python benchmarks/bench_exact.py hprd_batch [--gpu]                           # 200 HPRD queries in one call
    python benchmarks/bench_exact.py hprd_policy --gpu                            # work-item policies
    python benchmarks/bench_exact.py SUITE --quick

Suites write gpu_enum_<tag>, gpu_trie_<tag>, match_<tag> (numbering_<tag> with --numbering), hprd_batch_<tag>,
gpu_enum_hprd_policy_<tag>.json. The small compute-sanitizer workloads of the dfs engine and the batch
are parts ``enum`` and ``batch_hprd`` of sanitize_kernels.py.
"""

from __future__ import annotations

import statistics
import time
import traceback
from pathlib import Path

import numpy as np
from harness import (DATA, Family, Record, arg, check, graph, hprd, hprd_queries, numba_threads, once, peer, timeit,
                     to_igraph)

import la_gpm
from la_gpm import Pattern
from la_gpm.api import count_pattern
from la_gpm.exact import plan_for, run_plan

FAMILY = Family(__doc__)


def embeddings(run, G, P, count):
    """A plan engine's (count, stats) as unique subgraphs or embeddings of P."""
    P = la_gpm.Pattern.named(P) if isinstance(P, str) else P
    n, st = run(G, plan_for(G, P))
    return n * (P.automorphism_count if count == "embeddings" else 1), st


def gpu_count(G, P, count="unique"):
    from la_gpm.exact.dumato import count_plan_gpu
    return embeddings(count_plan_gpu, G, P, count)


def cpu_count(G, P, count="unique"):
    return embeddings(run_plan, G, P, count)


# ------------------------------------------------------------------ gpu_enum
PATTERNS = [("4-cycle", "unique"), ("diamond", "unique"), ("tailed-triangle", "unique"), ("house", "unique"),
            ("5-clique", "embeddings")]
CUTS = {("wiki-Vote", "5-clique"): 3.7}
SLOW = {("wiki-Vote", "house")}  # 4.6 s on the GPU, 60 s on the CPU: --skip-slow leaves it out
SMALL_DEEP = 1024  # a second deep_items threshold timed on HPRD (the default is 2 per resident warp)


def hprd_rows(limit):
    from la_gpm.exact.dumato import count_plan_gpu
    G, names, Qs, want = hprd_queries(limit)
    per = []
    g_tot = c_tot = 0.0
    eng = {"plan": 0.0, "gpu": 0.0, "gpu_level1": 0.0, "gpu_deep_small": 0.0, "cpu": 0.0}
    for name, Q, exp in zip(names, Qs, want):
        g_med, _, (g_cnt, st) = timeit(lambda: gpu_count(G, Q, "embeddings"), repeat=3, sync=True, budget_s=2)
        c_med, _, (c_cnt, _) = timeit(lambda: cpu_count(G, Q, "embeddings"), repeat=3, budget_s=2)
        check(f"HPRD {name} gpu vs published", g_cnt, exp)
        check(f"HPRD {name} cpu vs published", c_cnt, exp)
        # the engines alone on a compiled plan: deep items (default) vs level-1 items only, and the CPU engine
        p_med, _, plan = timeit(lambda: plan_for(G, Q), repeat=3, budget_s=2)
        aut = Q.automorphism_count
        e_g, _, (n1, _) = timeit(lambda: count_plan_gpu(G, plan), repeat=3, sync=True, budget_s=2)
        e_l1, _, (n2, _) = timeit(lambda: count_plan_gpu(G, plan, deep_items=0), repeat=3, sync=True, budget_s=2)
        e_s, _, (n4, _) = timeit(lambda: count_plan_gpu(G, plan, deep_items=SMALL_DEEP), repeat=3, sync=True,
                                 budget_s=2)
        e_c, _, (n3, _) = timeit(lambda: run_plan(G, plan), repeat=3, budget_s=2)
        for lab, x in (("deep", n1), ("level-1", n2), ("cpu", n3), ("deep-small", n4)):
            check(f"HPRD {name} {lab} engine vs published", x * aut, exp)
        per.append({"query": name, "count": g_cnt, "gpu_seconds": g_med, "cpu_seconds": c_med,
                    "plan_seconds": p_med, "gpu_engine_seconds": e_g, "gpu_engine_level1_items_seconds": e_l1,
                    "gpu_engine_deep_small_seconds": e_s,
                    "cpu_engine_seconds": e_c, "work_items": st.get("work_items"),
                    "level1_items": st.get("level1_items"), "item_depth": st.get("item_depth"),
                    "reuse_hits": st.get("reuse_hits"), "tree_nodes": st.get("tree_nodes")})
        g_tot += g_med
        c_tot += c_med
        for key, x in (("plan", p_med), ("gpu", e_g), ("gpu_level1", e_l1), ("gpu_deep_small", e_s), ("cpu", e_c)):
            eng[key] += x
    med = {key: statistics.median(p[key] for p in per) for key in
           ("gpu_seconds", "cpu_seconds", "plan_seconds", "gpu_engine_seconds", "gpu_engine_level1_items_seconds",
            "cpu_engine_seconds", "gpu_engine_deep_small_seconds")}
    row = {"graph": "HPRD", "n": G.n, "m": G.m, "pattern": f"{len(per)} HPRD queries (16 vertices, labeled)",
           "count_kind": "embeddings", "gpu_seconds_total": g_tot, "cpu_seconds_total": c_tot,
           "speedup_vs_cpu": c_tot / g_tot, "gpu_seconds_max_query": max(p["gpu_seconds"] for p in per),
           "plan_seconds_total": eng["plan"], "gpu_engine_seconds_total": eng["gpu"],
           "gpu_engine_level1_items_seconds_total": eng["gpu_level1"], "cpu_engine_seconds_total": eng["cpu"],
           "gpu_engine_deep_small_seconds_total": eng["gpu_deep_small"], "deep_small_threshold": SMALL_DEEP,
           "gpu_engine_seconds_max_query": max(p["gpu_engine_seconds"] for p in per),
           "gpu_engine_level1_items_seconds_max_query": max(p["gpu_engine_level1_items_seconds"] for p in per),
           "medians": med,
           "note": "gpu/cpu_seconds: count_pattern-like calls including plan compilation (plan_for, Python); "
                   "*_engine_seconds: the engine alone on a compiled plan; level1_items: deep_items=0 "
                   "(the previous scheme: level-1 arcs as the only work items)",
           "per_query": per}
    print(f"HPRD engines alone: gpu deep {eng['gpu']:.3f} s, gpu level-1 {eng['gpu_level1']:.3f} s, "
          f"gpu deep_items={SMALL_DEEP} {eng['gpu_deep_small']:.3f} s, "
          f"cpu {eng['cpu']:.3f} s, plan_for {eng['plan']:.3f} s; medians {med}")
    print(f"HPRD {len(per)} queries: gpu {g_tot:.3f} s total, cpu {c_tot:.3f} s total, x{c_tot / g_tot:.2f}")
    return row


def unlabeled_rows(a, rec):
    for label in a.graphs:
        G = graph(label)
        for pname, kind in PATTERNS:
            if a.skip_slow and (label, pname) in SLOW:
                continue
            G1 = graph(label)  # a fresh graph: the first call pays engine arrays, their copy and the work items
            first, _ = once(lambda: gpu_count(G1, pname, kind), sync=False)
            G1 = None
            g_med, g_times, (g_cnt, st) = timeit(lambda: gpu_count(G, pname, kind), repeat=3, sync=True, budget_s=5)
            row = {"graph": label, "n": G.n, "m": G.m, "pattern": pname, "count_kind": kind, "count": g_cnt,
                   "gpu_seconds": g_med, "gpu_runs": g_times, "gpu_first_call_seconds": first,
                   "gpu_edges_per_s": G.m / g_med, "work_items": st.get("work_items"), "warps": st.get("warps"),
                   "set_operations": st.get("set_operations"), "reuse_hits": st.get("reuse_hits")}
            c_sec, (c_cnt, _) = once(lambda: cpu_count(G, pname, kind), sync=False)
            check(f"{label} {pname} cpu vs gpu", g_cnt, c_cnt)
            row.update(cpu_seconds=c_sec, cpu_edges_per_s=G.m / c_sec, speedup_vs_cpu=c_sec / g_med)
            if (label, pname) in CUTS:
                row["cuts_seconds_anchor"] = CUTS[(label, pname)]
            rec.add(row, echo=f"{label:<14} {pname:<16} {kind:<10} count={g_cnt:>16,}  gpu {g_med * 1e3:10.2f} ms  "
                               f"cpu {c_sec * 1e3:10.2f} ms  x{c_sec / g_med:.1f}")


def fixed_cost_row():
    """The per-call floor: a compiled plan on karate (nothing to search) and a bare CuPy round trip."""
    import cupy as cp

    from la_gpm.exact.dumato import count_plan_gpu
    G = la_gpm.datasets.load("karate")
    row = {"graph": "karate", "pattern": "fixed per-call cost", "n": G.n, "m": G.m}
    for name in ("4-cycle", "house"):
        plan = plan_for(G, la_gpm.Pattern.named(name))
        row[f"{name}_count_plan_gpu_seconds"] = timeit(lambda: count_plan_gpu(G, plan), repeat=21, sync=True)[0]
        row[f"{name}_deep_forced_seconds"] = timeit(lambda: count_plan_gpu(G, plan, deep_items=10**9),
                                                    repeat=21, sync=True)[0]
    host = np.zeros(512, dtype=np.int64)
    row["cupy_upload_and_read_back_seconds"] = timeit(lambda: cp.asarray(host)[:7].get(), repeat=21, sync=True)[0]
    return row


@FAMILY.suite(gpu="only", graphs="email-Eu-core,wiki-Vote", quick={"graphs": "karate", "hprd_queries": 3},
              args=[arg("--skip-hprd", action="store_true"),
                    arg("--hprd-queries", type=int, default=None, help="only the first N HPRD queries"),
                    arg("--skip-slow", action="store_true", help="leave out the wiki-Vote house (a minute on the CPU)")])
def gpu_enum(a):
    """The GPU dfs engine (warp-centric plan interpreter) against the CPU engine on the same machine: the
    fixed per-call cost (karate), unlabeled 4-cycle, diamond, tailed triangle, house (unique) and K5
    embeddings (generic plan) per graph, then all 200 HPRD queries (embeddings; total and per query; the
    engines alone under deep / level-1 / small deep-item thresholds). Every GPU count checked against the
    CPU engine (HPRD: against the published counts). Peer: cuTS, K5 embeddings on wiki-Vote in 3.7 s (H100)."""
    rec = Record(a, "gpu_enum", "exact pattern counting, gpu plan interpreter vs cpu engine",
                 cpu_threads=numba_threads(),
                 note="gpu_seconds: median of repeated calls = plan compilation, tables to the device, the "
                      "kernel and the result copy (engine arrays and level-1 work items cached on the graph "
                      "after the first call; gpu_first_call_seconds includes building them on a fresh graph); "
                      "cpu_seconds: the numba engine on all cores, one call after compilation")
    tiny = la_gpm.datasets.load("karate")
    for pname, kind in PATTERNS:  # compile / load kernels before timing
        cpu_count(tiny, pname, kind)
        gpu_count(tiny, pname, kind)
    rec.add(fixed_cost_row())
    unlabeled_rows(a, rec)
    if not a.skip_hprd:
        rec.add(hprd_rows(a.hprd_queries), echo=False)
    rec.done()


# ------------------------------------------------------------------ gpu_trie
TRIE_PATTERNS = ("4-clique", "5-clique", "diamond", "4-cycle", "tailed-triangle", "house")


@FAMILY.suite(gpu="only", graphs="citeseer,email-Eu-core,wiki-Vote,R-MAT 16", quick={"graphs": "karate"},
              args=[arg("--cpu-budget", type=float, default=20.0, help="skip the CPU run of a pattern after one this slow"),
                    arg("--gpu-budget", type=float, default=20.0)])
def gpu_trie(a):
    """The breadth-first trie GPU engine (cuTS-style) against the CPU engine on the same machine, and the
    GPU clique kernel (warp-centric DFS) on cliques: the "keep the faster per graph" evidence."""
    from la_gpm.exact.cuts import count_plan_bfs
    from la_gpm.kcliques.gpu import clique_count as gpu_cliques
    from la_gpm.patterns import as_pattern
    rec = Record(a, "gpu_trie", "gpu trie engine")
    tiny = la_gpm.generators.gnm(40, 200, seed=0)
    for p in TRIE_PATTERNS:  # compile every kernel before timing
        count_pattern(tiny, p, backend="cpu")
    slow_cpu, slow_gpu = set(), set()
    for label in a.graphs:
        G = graph(label)
        for name in TRIE_PATTERNS:
            P = as_pattern(name)
            plan = plan_for(G, P, reuse=False)
            row = {"graph": label, "n": G.n, "m": G.m, "pattern": name, "count_kind": "unique, non-induced"}
            if name in slow_gpu:
                row["gpu_skipped"] = f"a smaller graph took over {a.gpu_budget} s"
                rec.add(row)
                continue
            med, times, got = timeit(lambda: count_plan_bfs(G, plan)[0], repeat=3, sync=True, budget_s=a.gpu_budget)
            _, st = count_plan_bfs(G, plan)
            row.update(count=got, trie_seconds=med, trie_runs=times, trie_edges_per_s=G.m / med,
                       level_entries=st["level_entries"], chunks=st["chunks"], peak_bytes=st["peak_bytes"])
            if med > a.gpu_budget:
                slow_gpu.add(name)
            if P.is_clique:
                cm, ct, cg = timeit(lambda: gpu_cliques(G, P.k), repeat=3, sync=True, budget_s=a.gpu_budget)
                check(f"{label} {name} clique kernel vs trie", cg, got)
                row.update(clique_kernel_seconds=cm, clique_kernel_runs=ct)
            if name not in slow_cpu:
                sec, want = once(lambda: count_pattern(G, P, backend="cpu"), sync=False)
                check(f"{label} {name} trie vs cpu", got, want)
                row.update(cpu_seconds=sec, speedup_vs_cpu=sec / med)
                if sec > a.cpu_budget:
                    slow_cpu.add(name)
            else:
                row["cpu_skipped"] = f"a smaller graph took over {a.cpu_budget} s on the CPU backend"
            rec.add(row, echo=f"{label:<14} {name:<16} count={got:>18,} trie {med * 1e3:9.2f} ms"
                    + (f"  clique-kernel {row['clique_kernel_seconds'] * 1e3:9.2f} ms" if "clique_kernel_seconds" in row
                       else "")
                    + (f"  cpu {row['cpu_seconds']:8.3f} s x{row['speedup_vs_cpu']:.0f}" if "cpu_seconds" in row else ""))
    rec.done()


# ------------------------------------------------------------------ match (CPU, VF2 / LAD)
def pattern_igraph(P):
    import igraph as ig
    h = ig.Graph(n=P.k, edges=list(P.edges))
    if P.vertex_labels is not None:
        h.vs["label"] = list(P.vertex_labels)
    return h


def lad_fn(g, G, P):
    h = pattern_igraph(P)
    domains = None
    if P.vertex_labels is not None:
        by_label = {}
        for v, lab in enumerate(G.vertex_labels.tolist()):
            by_label.setdefault(lab, []).append(v)
        domains = [by_label.get(lab, []) for lab in P.vertex_labels]

    def run():
        if domains is not None and any(len(d) == 0 for d in domains):
            return 0
        return len(g.get_subisomorphisms_lad(h, domains=domains, induced=False))
    return run


def igraph_vf2_fn(g, P):
    h = pattern_igraph(P)
    if P.vertex_labels is not None:
        return lambda: g.count_subisomorphisms_vf2(h, color1=g.vs["label"], color2=h.vs["label"])
    return lambda: g.count_subisomorphisms_vf2(h)


def nx_vf2_fn(gx, P, limit):
    import networkx as nx
    from networkx.algorithms import isomorphism as iso
    h = nx.Graph()
    h.add_nodes_from(range(P.k))
    h.add_edges_from(P.edges)
    nm = None
    if P.vertex_labels is not None:
        for v in range(P.k):
            h.nodes[v]["label"] = P.vertex_labels[v]
        nm = iso.categorical_node_match("label", None)

    def run():
        t = time.perf_counter()
        c = 0
        for _ in iso.GraphMatcher(gx, h, node_match=nm).subgraph_monomorphisms_iter():
            c += 1
            if c % 4096 == 0 and time.perf_counter() - t > limit:
                return None
        return c
    return run


def match_peers(names, g, gx, G, P, want, label, limit, suffix=""):
    """Each peer once in a child process killed after ``limit`` s, its count checked."""
    make = {"igraph LAD": lambda: lad_fn(g, G, P), "igraph VF2": lambda: igraph_vf2_fn(g, P),
            "networkx VF2": lambda: nx_vf2_fn(gx, P, limit)}
    rows = []
    for pname in names:
        row = peer(pname + suffix, make[pname], want=want, label=label, timeout=limit)
        if "skipped" in row:
            row["skipped"] = f"stopped after {limit} s (time limit of this run)"
        rows.append(row)
    return rows


def bench_queries(label, G, queries, expected, repeat, peers, limit):
    from la_gpm.api import count_embeddings
    from la_gpm.exact.match import match
    from la_gpm.patterns import read_query
    g = to_igraph(G)
    gx = G.to_networkx() if "networkx VF2" in peers else None
    out = []
    for qpath in queries:
        Q = read_query(qpath)
        name = Path(qpath).stem
        first, ref = once(lambda: count_embeddings(G, Q), sync=False)
        if expected is not None:
            check(f"{label}/{name}/published", ref, expected[name])
        rows = []
        med, times, got = timeit(lambda: count_embeddings(G, Q), repeat=repeat)
        check(f"{label}/{name}/la_gpm count", got, ref)
        rows.append({"impl": "la_gpm count_embeddings", "seconds": med, "runs": times, "first_call_s": first})
        med, times, got = timeit(lambda: sum(x.shape[0] for x in match(G, Q)), repeat=repeat)
        check(f"{label}/{name}/la_gpm match", got, ref)
        rows.append({"impl": "la_gpm match() listing", "seconds": med, "runs": times})
        rows += match_peers(peers, g, gx, G, Q, ref, f"{label}/{name}", limit)
        print_rows(label, name, rows)
        out.append({"graph": label, "n": G.n, "m": G.m, "query": name, "k": Q.k, "edges": Q.num_edges,
                    "automorphisms": Q.automorphism_count, "embeddings": ref, "results": rows})
    return out


def print_rows(label, name, rows):
    base = rows[0]["seconds"]
    for r in rows:
        if "seconds" in r:
            r["ratio_to_la_gpm_count"] = r["seconds"] / base
            print(f"  {label:<10} {name:<22} {r['impl']:<26} {r['seconds'] * 1e3:10.2f} ms  "
                  f"x{r['ratio_to_la_gpm_count']:9.1f}")
        else:
            print(f"  {label:<10} {name:<22} {r['impl']:<26} {r['skipped']}")


def bench_unlabeled(label, G, names, repeat, peers, known, limit):
    g = to_igraph(G)
    out = []
    for nm in names:
        P = Pattern.named(nm)
        ref = count_pattern(G, P)
        if nm in known:
            check(f"{label}/{nm}/published", ref, known[nm])
        rows = []
        for reuse in (True, False):
            med, times, (n, st) = timeit(lambda reuse=reuse: count_pattern(G, P, reuse=reuse, return_stats=True),
                                         repeat=repeat)
            check(f"{label}/{nm}/reuse={reuse}", n, ref)
            rows.append({"impl": f"la_gpm count_pattern reuse={'on' if reuse else 'off'}", "seconds": med,
                         "runs": times, "reuse_hits": st["reuse_hits"], "set_operations": st["set_operations"],
                         "set_operations_saved": st["set_operations_saved"], "reuse_rate": st["reuse_rate"],
                         "plan": st["plan"]})
        emb = ref * P.automorphism_count
        rows += match_peers(peers, g, None, G, P, emb, f"{label}/{nm}", limit, suffix=" (embeddings)")
        print_rows(label, nm, rows)
        for r in rows[:2]:
            print(f"      reuse hits {r['reuse_hits']:,}  set ops {r['set_operations']:,}  saved "
                  f"{r['set_operations_saved']:,}  rate {r['reuse_rate']:.2f}")
        out.append({"graph": label, "n": G.n, "m": G.m, "pattern": nm, "unique": ref, "embeddings": emb,
                    "results": rows})
    return out


def bench_numbering(a):
    """A/B in one process: the engine's degree-rank numbering against plain id numbering."""
    import la_gpm.exact.cpu as engine    # run_plan reads engine_arrays from its module
    ranked = engine.engine_arrays

    def id_numbered(G, vertex_labeled, edge_labeled):  # unlabeled patterns only: G's own CSR
        dummy = np.zeros(1, dtype=np.int64)
        dummy.setflags(write=False)
        deg = G.degrees.astype(np.int64)
        deg.setflags(write=False)
        return G.indptr, G.indices, dummy, dummy, deg, None, np.arange(G.n, dtype=np.int64)

    label = "karate" if a.quick else "wiki-Vote"
    wv = graph(label)
    rec = Record(a, "numbering", "engine vertex numbering", rows="results")
    for nm in ["diamond", "4-cycle", "tailed-triangle", "5-clique-generic"]:
        P = Pattern.named(nm.replace("-generic", ""))
        plan = plan_for(wv, P)
        rows = []
        for impl, fn in (("degree-rank numbering", ranked), ("id numbering", id_numbered)):
            engine.engine_arrays = fn
            try:
                med, times, res = timeit(lambda: run_plan(wv, plan), repeat=a.repeats)
            finally:
                engine.engine_arrays = ranked
            rows.append({"impl": impl, "seconds": med, "runs": times, "count": res[0]})
        check(f"{label}/{nm}/numbering", rows[0]["count"], rows[1]["count"])
        rec.add({"graph": label, "pattern": nm, "plan": plan.describe(), "results": rows},
                echo=f"  {label}  {nm:<18} rank {rows[0]['seconds'] * 1e3:9.1f} ms   id {rows[1]['seconds'] * 1e3:9.1f} ms"
                     f"   x{rows[1]['seconds'] / rows[0]['seconds']:.2f}")
    rec.done()


@FAMILY.suite(repeats=5, quick={"queries": [1], "yeast_queries": 1, "citeseer_patterns": "diamond",
                                "wiki_patterns": "", "peer_time_limit": 2.0, "repeats": 2},
              args=[arg("--queries", type=int, nargs="*", default=list(range(1, 11)), help="HPRD dense 16 queries"),
                    arg("--yeast-queries", type=int, default=7, help="the first N of the seven yeast queries"),
                    arg("--citeseer-patterns", default="diamond,4-cycle,house,pentagon,hourglass"),
                    arg("--wiki-patterns", default="diamond,4-cycle,tailed-triangle"),
                    arg("--peer-time-limit", type=float, default=30.0, help="seconds per peer run (then killed)"),
                    arg("--numbering", action="store_true",
                        help="only the A/B of degree-rank against id numbering (writes numbering_<tag>.json)")])
def match(a):
    """Subgraph matching: la_gpm (count_embeddings and streaming match()) against networkx VF2 and igraph
    LAD / VF2 in the same run (HPRD dense 16 queries, yeast), plus unlabeled pattern counting with reuse
    on / off (citeseer, wiki-Vote). Every count is checked before timing: HPRD against
    expected_output.res, yeast and the unlabeled patterns against a peer's count."""
    if a.numbering:
        return bench_numbering(a)
    from la_gpm.io import read_sunluo
    rec = Record(a, "match", "match", rows="results", peer_time_limit_s=a.peer_time_limit)
    lim = a.peer_time_limit
    hprd_graph, exp = hprd()
    print(f"HPRD: {hprd_graph}")
    qs = [DATA / "hprd" / "query_graph" / f"query_dense_16_{i}.graph" for i in a.queries]
    for r in bench_queries("HPRD", hprd_graph, qs, exp, a.repeats, ["igraph LAD", "igraph VF2", "networkx VF2"], lim):
        rec.add(r, echo=False)
    yeast = read_sunluo(DATA / "yeast" / "yeast.graph")
    print(f"yeast: {yeast}")
    yq = [DATA / "yeast" / "query_graph" / f"query_{kind}_{i}.graph"
          for kind, i in (("dense_8", 1), ("dense_8", 2), ("dense_8", 3), ("dense_16", 2), ("dense_16", 3),
                          ("sparse_16", 2), ("sparse_16", 3))][:a.yeast_queries]
    for r in bench_queries("yeast", yeast, yq, None, a.repeats, ["igraph LAD", "igraph VF2"], lim):
        rec.add(r, echo=False)
    known = {"house": 55359, "pentagon": 28394, "hourglass": 16034, "4-cycle": 6059, "diamond": 3730}
    for r in bench_unlabeled("citeseer", graph("citeseer"), [p for p in a.citeseer_patterns.split(",") if p],
                             a.repeats, ["igraph LAD", "igraph VF2"], known, lim):
        rec.add(r, echo=False)
    for r in bench_unlabeled("wiki-Vote", graph("wiki-Vote"), [p for p in a.wiki_patterns.split(",") if p],
                             max(1, a.repeats // 2), [], {}, lim):
        rec.add(r, echo=False)
    rec.done()


# ------------------------------------------------------------------ hprd_batch
COPIES = 5  # the scaling row: the queries repeated this many times in one batch


def launch_floor(st, repeat):
    """The batch's fixed cost with no work: the same number of dependent launches of the same grid (an empty
    kernel) captured as one CUDA graph, between the same small host-to-device and device-to-host copies as a
    real batch (counters set, counts read back)."""
    import cupy as cp
    empty = cp.RawKernel(r'''extern "C" __global__ void la_empty(unsigned long long* c) {
        if (c[0] == 0xFFFFFFFFull && threadIdx.x == 0) c[1] = blockIdx.x; }''', "la_empty")
    launches, warps = int(st["launches"]), int(st["warps"])
    grid = max(1, warps * 32 // 256)
    ctr = cp.zeros(2, dtype=cp.uint64)
    host = np.zeros(2, dtype=np.uint64)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        for _ in range(launches):
            empty((grid,), (256,), (ctr,))
        cuda_graph = stream.end_capture()

    def one():
        with stream:
            ctr.set(host)
            cuda_graph.launch()
            return ctr.get()
    med, times, _ = timeit(one, repeat=max(repeat, 11), warmup=2, sync=True, budget_s=5)
    print(f"{'gpu_floor_same_launches_empty':<40} median {med * 1e3:9.3f} ms", flush=True)
    return {"median_s": med, "min_s": min(times), "runs": len(times), "launches": launches, "grid": grid,
            "note": "floor: the batch's launches of an empty kernel as one CUDA graph + its two small copies"}


def fold(counts, nq, aut):
    """The counts of a batch of repeated queries, checked copy against copy, as embeddings of the first."""
    first = counts[:nq]
    for s in range(nq, len(counts), nq):
        if counts[s:s + nq] != first:
            raise SystemExit("COUNT MISMATCH between copies of the same query in one batch")
    return [x * a for x, a in zip(first, aut)]


def gpu_batch_cases(rec, case, G, Qs, plans, want, emb, aut, repeat):
    import cupy as cp

    import la_gpm.exact.dumato as genum
    from la_gpm.api import count_many
    from la_gpm.exact.dumato import count_plan_gpu, count_plans_batch_gpu
    out = rec.payload
    try:  # the cold call: plan compilation, packed tables and items to the device, then the batch
        count_many(G, Qs[:2], count="embeddings", backend="gpu")  # kernel compilation out of the way
        G._cache.pop("batch:plans", None)
        G._cache.pop("dev:gpu:enum:batches", None)
        sec, res = once(lambda: count_many(G, Qs, count="embeddings", backend="gpu"))
        out["cases"]["gpu_batch_count_many_cold"] = {"seconds": sec,
                                                     "note": "first call: plan_for of every query included"}
        check("gpu cold", res, want)
    except BaseException as e:  # noqa: BLE001
        out["errors"]["gpu_batch_count_many_cold"] = repr(e)
    case("gpu_batch_count_many", lambda: count_many(G, Qs, count="embeddings", backend="gpu", return_stats=True),
         repeat, sync=True)
    case("gpu_batch_engine", lambda: emb(count_plans_batch_gpu(G, plans)[0]), repeat, sync=True)
    genum.BATCH_GRAPHS = False
    case("gpu_batch_engine_no_cuda_graph", lambda: emb(count_plans_batch_gpu(G, plans)[0]), repeat, sync=True,
         note="the same batch with one Python launch per depth instead of one CUDA graph launch")
    genum.BATCH_GRAPHS = True
    genum.BATCH_WARP_SEARCH = False
    case("gpu_batch_engine_scalar_search", lambda: emb(count_plans_batch_gpu(G, plans)[0]), repeat, sync=True,
         note="the same batch with the kernels' scalar binary searches (BATCH_WARP_SEARCH=False)")
    genum.BATCH_WARP_SEARCH = True
    st = count_plans_batch_gpu(G, plans)[1]
    out["gpu_batch_stats"] = {k: v for k, v in st.items() if isinstance(v, (int, float, str, bool))}
    case("gpu_batch_engine_dfs_from_roots", lambda: emb(count_plans_batch_gpu(G, plans, deep_items=0)[0]),
         repeat, sync=True, note="deep_items=0: every (query, root) searched depth first by one warp")
    try:  # the device's share: CUDA events around one batch (includes any gap the host leaves)
        spans = []
        for _ in range(10):
            ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
            ev0.record()
            count_plans_batch_gpu(G, plans)
            ev1.record()
            ev1.synchronize()
            spans.append(cp.cuda.get_elapsed_time(ev0, ev1) / 1e3)
        out["cases"]["gpu_batch_engine_event_span"] = {"median_s": statistics.median(spans)}
    except Exception as e:  # noqa: BLE001
        out["errors"]["gpu_batch_engine_event_span"] = repr(e)
    out["cases"]["gpu_floor_same_launches_empty"] = launch_floor(st, repeat)
    many = plans * COPIES
    case(f"gpu_batch_engine_x{COPIES}", lambda: fold(count_plans_batch_gpu(G, many)[0], len(plans), aut), 5,
         sync=True, note=f"the queries {COPIES} times in one batch; counts of every copy checked")
    case(f"gpu_batch_engine_x{COPIES}_deep_items_8448",
         lambda: fold(count_plans_batch_gpu(G, many, deep_items=8448)[0], len(plans), aut), 5, sync=True,
         note="depth first from the first level with 8,448 items (2 per resident warp; the first default)")
    case("gpu_one_by_one_engine", lambda: emb([count_plan_gpu(G, p)[0] for p in plans]), 3, sync=True,
         note="today's single-query path (count_plan_gpu, default deep items) on compiled plans")
    case("gpu_one_by_one_count_pattern",
         lambda: [count_pattern(G, Q, count="embeddings", backend="gpu", gpu_engine="dfs") for Q in Qs], 3,
         sync=True, note="public calls, plan_for included")


@FAMILY.suite(gpu="optional", repeats=15, quick={"hprd_queries": 20, "repeats": 2},
              args=[arg("--hprd-queries", type=int, default=None, help="only the first N HPRD queries")])
def hprd_batch(a):
    """All 200 HPRD queries in one call: batched count_many on the GPU against one-by-one counting (GPU and the
    CPU engine on the same machine's cores) and the CPU batch (without --gpu: the CPU rows only).

    Every timed result (the embedding counts) is checked against the published counts; a case that fails is
    recorded with its error and the others still run. "engine" rows start from compiled plans (plan_for
    timed apart: host work shared by every engine); "count_many"/"count_pattern" rows are the public calls
    (count_many caches plans on the graph, so its warm calls compile nothing; its first, cold call is timed
    apart)."""
    from la_gpm.api import count_many
    from la_gpm.exact import count_plans_batch_cpu
    G, names, Qs, want = hprd_queries(a.hprd_queries)
    aut = [Q.automorphism_count for Q in Qs]
    rec = Record(a, "hprd_batch", f"HPRD {len(Qs)} labeled queries (embeddings): batched vs one by one", rows=None,
                 graph={"name": "HPRD", "n": G.n, "m": G.m}, queries=len(Qs), cpu_threads=numba_threads(),
                 cases={}, errors={})
    out = rec.payload
    t = time.perf_counter()
    plans = [plan_for(G, Q) for Q in Qs]
    out["plan_compile_s"] = time.perf_counter() - t
    out["plan_compile_median_s"] = timeit(lambda: [plan_for(G, Q) for Q in Qs], repeat=3, warmup=0, budget_s=5)[0]

    def emb(counts):
        return [c * x for c, x in zip(counts, aut)]

    def case(label, fn, repeat, expect=want, sync=False, note=None):
        try:
            med, times, res = timeit(fn, repeat=repeat, warmup=1, sync=sync, budget_s=20)
            res, stats = res if isinstance(res, tuple) else (res, None)
            check(label, list(res), expect)
            row = {"median_s": med, "min_s": min(times), "runs": len(times)}
            if stats:
                row["stats"] = {k: v for k, v in stats.items() if isinstance(v, (int, float, str))}
            if note:
                row["note"] = note
            out["cases"][label] = row
            print(f"{label:<40} median {med * 1e3:9.3f} ms  min {min(times) * 1e3:9.3f} ms", flush=True)
        except SystemExit as e:  # a count mismatch: recorded, the other cases still run
            out["errors"][label] = str(e)
            print("ERROR", label, e, flush=True)
        except Exception:  # noqa: BLE001
            out["errors"][label] = traceback.format_exc()[-2000:]
            print("ERROR", label, traceback.format_exc(), flush=True)
        rec.save()

    if a.gpu:
        gpu_batch_cases(rec, case, G, Qs, plans, want, emb, aut, a.repeats)
    case("cpu_one_by_one_engine", lambda: emb([run_plan(G, p)[0] for p in plans]), 5,
         note="the numba engine (run_plan) per compiled plan, all cores per query")
    case("cpu_one_by_one_count_pattern", lambda: [count_pattern(G, Q, count="embeddings", backend="cpu") for Q in Qs],
         3, note="public calls, plan_for included")
    case("cpu_batch_engine", lambda: emb(count_plans_batch_cpu(G, plans)), a.repeats,
         note="one parallel region over (query, 16 roots) tasks on compiled plans")
    case("cpu_batch_count_many", lambda: count_many(G, Qs, count="embeddings", backend="cpu", cpu_batch=True),
         a.repeats, note="count_many(cpu_batch=True), plans cached on the graph")
    many = plans * COPIES
    case(f"cpu_batch_engine_x{COPIES}", lambda: fold(count_plans_batch_cpu(G, many), len(plans), aut), 5)
    c = out["cases"]
    sp = {}
    for g in ("gpu_batch_count_many", "gpu_batch_engine", "gpu_batch_engine_scalar_search",
              "gpu_batch_engine_dfs_from_roots", "gpu_one_by_one_engine"):
        for cpu in ("cpu_one_by_one_engine", "cpu_one_by_one_count_pattern", "cpu_batch_engine"):
            if g in c and cpu in c:
                sp[f"{g} vs {cpu}"] = c[cpu]["median_s"] / c[g]["median_s"]
    if f"gpu_batch_engine_x{COPIES}" in c and f"cpu_batch_engine_x{COPIES}" in c:
        sp[f"gpu_batch_engine_x{COPIES} vs cpu_batch_engine_x{COPIES}"] = (
            c[f"cpu_batch_engine_x{COPIES}"]["median_s"] / c[f"gpu_batch_engine_x{COPIES}"]["median_s"])
    out["speedups"] = sp
    for k, v in sp.items():
        print(f"{k:<75} {v:8.2f}x")
    rec.done()


# ------------------------------------------------------------------ hprd_policy
POLICIES = {"level1": {"deep_items": 0}, "levels1": {"deep_levels": 1}, "levels2": {"deep_levels": 2},
            "levels3": {"deep_levels": 3}, "levels4": {"deep_levels": 4}, "levels6": {"deep_levels": 6},
            "unlimited": {"deep_levels": 32}}


@FAMILY.suite(gpu="only", quick={"hprd_queries": 5},
              args=[arg("--hprd-queries", type=int, default=None, help="only the first N HPRD queries")])
def hprd_policy(a):
    """HPRD queries: the GPU dfs engine alone (compiled plans) under several work-item policies: level-1
    items only (deep_items=0), breadth-first expansion limited to L levels, no limit. Every count checked
    against the published count. Used to choose ``dumato.DEEP_LEVELS``."""
    from la_gpm.exact.dumato import count_plan_gpu
    G, names, Qs, want = hprd_queries(a.hprd_queries)
    rec = Record(a, "gpu_enum_hprd_policy", "HPRD 200 queries, gpu dfs engine alone on compiled plans, "
                 "work-item policies", rows="per_query")
    for name, Q, exp in zip(names, Qs, want):
        plan = plan_for(G, Q)
        row = {"query": name}
        for pol, kw in POLICIES.items():
            t, _, (n, st) = timeit(lambda: count_plan_gpu(G, plan, **kw), repeat=3, sync=True, budget_s=1)
            check(f"HPRD {name} {pol}", n * Q.automorphism_count, exp)
            row[pol] = t
            row[pol + "_depth"] = st.get("item_depth", 2)
        rec.add(row, echo=False)
    per = rec.rows
    rec["summary"] = summary = {pol: {"total_s": sum(r[pol] for r in per), "median_s": statistics.median(r[pol] for r in per),
                                      "max_s": max(r[pol] for r in per)} for pol in POLICIES}
    for pol, s in summary.items():
        print(f"{pol:<10} total {s['total_s'] * 1e3:8.1f} ms  median {s['median_s'] * 1e3:6.3f} ms  "
              f"max {s['max_s'] * 1e3:7.2f} ms")
    rec.done()


if __name__ == "__main__":
    FAMILY.main()
