"""The GPU exact engine (any pattern) against the CPU engine on the same machine.

    python benchmarks/bench_gpu_enum.py --gpu            # HPRD 200 queries + unlabeled patterns
    python benchmarks/bench_gpu_enum.py --sanitize       # a small workload for compute-sanitizer

Workloads: all 200 HPRD queries (16-vertex labeled, embeddings; total and per query) and the
unlabeled 4-cycle, diamond, tailed triangle, house (unique) and K5 embeddings (generic plan) on
email-Eu-core and wiki-Vote. Every GPU count is checked against the CPU engine before it is
reported. Writes ``gpu_enum_<tag>.json``. Peer: cuTS, K5 embeddings on wiki-Vote in 3.7 s (H100).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import check, hprd, machine, timeit, versions, write  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm.exact.driver import count_pattern, plan_for  # noqa: E402

DATA = Path(os.environ.get("LA_GPM_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
PATTERNS = [("4-cycle", "unique"), ("diamond", "unique"), ("tailed-triangle", "unique"), ("house", "unique"),
            ("5-clique", "embeddings")]
CUTS = {("wiki-Vote", "5-clique"): 3.7}
SLOW = {("wiki-Vote", "house")}  # 4.6 s on the GPU, 60 s on the CPU: --skip-slow leaves it out
SMALL_DEEP = 1024  # a second deep_items threshold timed on HPRD (the default is 2 per resident warp)


def gpu_count(G, P, count="unique", induced=False):
    from la_gpm.exact.dumato import count_plan_gpu
    P = la_gpm.Pattern.named(P) if isinstance(P, str) else P
    n, st = count_plan_gpu(G, plan_for(G, P, induced=induced))
    return n * (P.automorphism_count if count == "embeddings" else 1), st


def cpu_count(G, P, count="unique", induced=False):
    from la_gpm.exact.driver import run_plan
    P = la_gpm.Pattern.named(P) if isinstance(P, str) else P
    n, st = run_plan(G, plan_for(G, P, induced=induced))
    return n * (P.automorphism_count if count == "embeddings" else 1), st


def sanitize():
    """Small count + listing workloads touching every kernel path (labels, edge labels, induced, reuse)."""
    import numpy as np

    from la_gpm.exact.match import match
    G = la_gpm.datasets.load("karate")
    for name in ("wedge", "4-cycle", "diamond", "house", "tailed-triangle", "5-clique"):
        for induced in (False, True):
            a = count_pattern(G, name, induced=induced, backend="gpu", gpu_engine="dfs") if name != "5-clique" else \
                gpu_count(G, name)[0]
            b = count_pattern(G, name, induced=induced, backend="cpu")
            assert a == b, (name, induced, a, b)
    rng = np.random.default_rng(0)
    n = 60
    src, dst = np.nonzero(np.triu(rng.random((n, n)) < 0.15, 1))
    GL = la_gpm.Graph.from_edges(src, dst, n=n, vertex_labels=rng.integers(0, 3, n),
                                 edge_labels=rng.integers(0, 2, src.shape[0]))
    P = la_gpm.Pattern([(0, 1), (1, 2), (2, 0), (2, 3)], vertex_labels=[0, 1, 2, 0],
                       edge_labels={(0, 1): 0, (1, 2): 1, (0, 2): 0, (2, 3): 1})
    for induced in (False, True):
        assert count_pattern(GL, P, induced=induced, backend="gpu", gpu_engine="dfs") == count_pattern(GL, P, induced=induced)
        rows = np.concatenate(list(match(GL, P, induced=induced, backend="gpu", chunk_size=5)) or
                              [np.zeros((0, 4), np.int64)])
        cpu = np.concatenate(list(match(GL, P, induced=induced)) or [np.zeros((0, 4), np.int64)])
        assert set(map(tuple, rows.tolist())) == set(map(tuple, cpu.tolist()))
    rows = np.concatenate(list(match(G, "house", backend="gpu", chunk_size=97)))
    assert rows.shape[0] == count_pattern(G, "house", count="embeddings")
    # deep work items (breadth-first expansion to depth k - 1, rebuild of reused sets), count + listing
    from la_gpm.exact.driver import run_plan
    from la_gpm.exact.dumato import count_plan_gpu, list_plan_gpu
    for name in ("diamond", "house", "5-clique"):
        for induced in (False, True):
            plan = plan_for(G, la_gpm.Pattern.named(name), induced=induced)
            assert count_plan_gpu(G, plan, deep_items=10**9)[0] == run_plan(G, plan)[0], (name, induced)
    plan = plan_for(GL, P, symmetry=False)
    rows = np.concatenate(list(list_plan_gpu(GL, plan, chunk_size=5, deep_items=10**9)) or
                          [np.zeros((0, 4), np.int64)])
    assert rows.shape[0] == count_pattern(GL, P, count="embeddings")
    print("sanitize workload OK")


def hprd_rows(args, out):
    from la_gpm.patterns import read_query
    G, exp = hprd(DATA)
    qs = []
    for name in exp:
        Q = read_query(DATA / "hprd" / "query_graph" / f"{name}.graph")
        qs.append((name, Q))
    from la_gpm.exact.driver import run_plan
    from la_gpm.exact.dumato import count_plan_gpu
    per = []
    g_tot = c_tot = 0.0
    eng = {"plan": 0.0, "gpu": 0.0, "gpu_level1": 0.0, "gpu_deep_small": 0.0, "cpu": 0.0}
    for name, Q in qs:
        g_med, _, (g_cnt, st) = timeit(lambda: gpu_count(G, Q, "embeddings"), repeat=3, sync=True, budget_s=2)
        c_med, _, (c_cnt, _) = timeit(lambda: cpu_count(G, Q, "embeddings"), repeat=3, budget_s=2)
        check(f"HPRD {name} gpu vs published", g_cnt, exp[name])
        check(f"HPRD {name} cpu vs published", c_cnt, exp[name])
        # the engines alone on a compiled plan: deep items (default) vs level-1 items only, and the CPU engine
        p_med, _, plan = timeit(lambda: plan_for(G, Q), repeat=3, budget_s=2)
        aut = Q.automorphism_count
        e_g, _, (n1, _) = timeit(lambda: count_plan_gpu(G, plan), repeat=3, sync=True, budget_s=2)
        e_l1, _, (n2, _) = timeit(lambda: count_plan_gpu(G, plan, deep_items=0), repeat=3, sync=True, budget_s=2)
        e_s, _, (n4, _) = timeit(lambda: count_plan_gpu(G, plan, deep_items=SMALL_DEEP), repeat=3, sync=True,
                                 budget_s=2)
        e_c, _, (n3, _) = timeit(lambda: run_plan(G, plan), repeat=3, budget_s=2)
        for lab, x in (("deep", n1), ("level-1", n2), ("cpu", n3), ("deep-small", n4)):
            check(f"HPRD {name} {lab} engine vs published", x * aut, exp[name])
        per.append({"query": name, "count": g_cnt, "gpu_seconds": g_med, "cpu_seconds": c_med,
                    "plan_seconds": p_med, "gpu_engine_seconds": e_g, "gpu_engine_level1_items_seconds": e_l1,
                    "gpu_engine_deep_small_seconds": e_s,
                    "cpu_engine_seconds": e_c, "work_items": st.get("work_items"),
                    "level1_items": st.get("level1_items"), "item_depth": st.get("item_depth"),
                    "reuse_hits": st.get("reuse_hits"), "tree_nodes": st.get("tree_nodes")})
        g_tot += g_med
        c_tot += c_med
        eng["plan"] += p_med
        eng["gpu"] += e_g
        eng["gpu_level1"] += e_l1
        eng["gpu_deep_small"] += e_s
        eng["cpu"] += e_c
    import statistics
    med = {key: statistics.median(p[key] for p in per) for key in
           ("gpu_seconds", "cpu_seconds", "plan_seconds", "gpu_engine_seconds", "gpu_engine_level1_items_seconds",
            "cpu_engine_seconds", "gpu_engine_deep_small_seconds")}
    row = {"graph": "HPRD", "n": G.n, "m": G.m, "pattern": "200 HPRD queries (16 vertices, labeled)",
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
    print(f"HPRD 200 queries: gpu {g_tot:.3f} s total, cpu {c_tot:.3f} s total, x{c_tot / g_tot:.2f}")
    out.append(row)


def unlabeled_rows(args, out, payload):
    graphs = [("email-Eu-core", lambda: la_gpm.read_graph(DATA / "email-Eu-core.txt")),
              ("wiki-Vote", lambda: la_gpm.read_graph(DATA / "wiki-Vote.txt"))]
    for label, make in graphs:
        G = make()
        for pname, kind in PATTERNS:
            if args.skip_slow and (label, pname) in SLOW:
                continue
            G1 = make()  # a fresh graph: the first call pays engine arrays, their copy and the work items
            t = time.perf_counter()
            gpu_count(G1, pname, kind)
            first = time.perf_counter() - t
            del G1
            g_med, g_times, (g_cnt, st) = timeit(lambda: gpu_count(G, pname, kind), repeat=3, sync=True,
                                                 budget_s=5)
            row = {"graph": label, "n": G.n, "m": G.m, "pattern": pname, "count_kind": kind, "count": g_cnt,
                   "gpu_seconds": g_med, "gpu_runs": g_times, "gpu_first_call_seconds": first, "gpu_edges_per_s": G.m / g_med,
                   "work_items": st.get("work_items"), "warps": st.get("warps"),
                   "set_operations": st.get("set_operations"), "reuse_hits": st.get("reuse_hits")}
            t = time.perf_counter()
            c_cnt, _ = cpu_count(G, pname, kind)
            c_sec = time.perf_counter() - t
            check(f"{label} {pname} cpu vs gpu", g_cnt, c_cnt)
            row.update(cpu_seconds=c_sec, cpu_edges_per_s=G.m / c_sec, speedup_vs_cpu=c_sec / g_med)
            if (label, pname) in CUTS:
                row["cuts_seconds_anchor"] = CUTS[(label, pname)]
            print(f"{label:<14} {pname:<16} {kind:<10} count={g_cnt:>16,}  gpu {g_med * 1e3:10.2f} ms  "
                  f"cpu {c_sec * 1e3:10.2f} ms  x{c_sec / g_med:.1f}")
            out.append(row)
            write("gpu_enum", payload)


def fixed_cost_row():
    """The per-call floor: a compiled plan on karate (nothing to search) and a bare CuPy round trip."""
    import cupy as cp
    import numpy as np

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


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--sanitize", action="store_true")
    ap.add_argument("--skip-hprd", action="store_true")
    ap.add_argument("--skip-slow", action="store_true", help="leave out the wiki-Vote house (a minute on the CPU)")
    args = ap.parse_args(argv)
    if args.sanitize:
        sanitize()
        return
    import numba
    out = []
    payload = {"benchmark": "exact pattern counting, gpu plan interpreter vs cpu engine", "machine": machine(),
               "versions": versions(), "cpu_threads": numba.get_num_threads(), "rows": out,
               "note": "gpu_seconds: median of repeated calls = plan compilation, tables to the device, the "
                       "kernel and the result copy (engine arrays and level-1 work items cached on the graph "
                       "after the first call; gpu_first_call_seconds includes building them on a fresh graph); "
                       "cpu_seconds: the numba engine on all cores, one call after compilation"}
    tiny = la_gpm.datasets.load("karate")
    for pname, kind in PATTERNS:  # compile / load kernels before timing
        cpu_count(tiny, pname, kind)
        gpu_count(tiny, pname, kind)
    out.append(fixed_cost_row())
    print(out[-1])
    unlabeled_rows(args, out, payload)
    if not args.skip_hprd:
        hprd_rows(args, out)
    print("wrote", write("gpu_enum", payload))


if __name__ == "__main__":
    main()
