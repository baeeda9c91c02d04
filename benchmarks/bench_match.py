"""Subgraph matching: la_gpm (count_embeddings and streaming match()) against networkx VF2 and
igraph LAD / VF2, measured in the same run, plus unlabeled pattern counting with reuse on/off.

    python benchmarks/bench_match.py                  # HPRD q1..q10, yeast, citeseer/wiki-Vote patterns
    python benchmarks/bench_match.py --queries 1 2 8 --repeat 3

Every count is checked before timing: HPRD against ``expected_output.res``, yeast (no published
counts) and unlabeled patterns against a peer's count.  Writes benchmarks/results/match_cpu.json.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from harness import DATA, check, hprd, machine, timeit, versions, write  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm import Pattern  # noqa: E402
from la_gpm.exact.match import count_embeddings, match  # noqa: E402
from la_gpm.exact.driver import count_pattern  # noqa: E402
from la_gpm.io import read_sunluo  # noqa: E402
from la_gpm.patterns import read_query  # noqa: E402

PEER_TIME_LIMIT_S = 30


def to_igraph(G):
    import igraph as ig
    src = np.repeat(np.arange(G.n), G.degrees)
    keep = src < G.indices
    g = ig.Graph(n=G.n, edges=np.column_stack([src[keep], G.indices[keep]]).tolist())
    if G.vertex_labels is not None:
        g.vs["label"] = G.vertex_labels.tolist()
    return g


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


def nx_vf2_fn(gx, P):
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
            if c % 4096 == 0 and time.perf_counter() - t > PEER_TIME_LIMIT_S:
                return None
        return c
    return run


def run_peer(fn, limit=PEER_TIME_LIMIT_S):
    """Time fn() once in a forked process; None when it runs past ``limit`` seconds (then it is killed)."""
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    q = ctx.Queue()

    def target():
        t = time.perf_counter()
        r = fn()
        q.put((time.perf_counter() - t, r))

    p = ctx.Process(target=target)
    p.start()
    p.join(limit)
    if p.is_alive():
        p.terminate()
        p.join()
        return None
    return q.get() if not q.empty() else None


def listing_fn(G, P):
    return lambda: sum(a.shape[0] for a in match(G, P))


def bench_queries(label, G, queries, expected, repeat, peers):
    g = to_igraph(G)
    gx = G.to_networkx() if "networkx VF2" in peers else None
    rows_out = []
    for qpath in queries:
        Q = read_query(qpath)
        name = Path(qpath).stem
        t = time.perf_counter()
        ref = count_embeddings(G, Q)
        first = time.perf_counter() - t
        if expected is not None:
            check(f"{label}/{name}/published", ref, expected[name])
        rows = []
        med, times, got = timeit(lambda: count_embeddings(G, Q), repeat=repeat)
        check(f"{label}/{name}/la_gpm count", got, ref)
        rows.append({"impl": "la_gpm count_embeddings", "seconds": med, "runs": times, "first_call_s": first})
        med, times, got = timeit(listing_fn(G, Q), repeat=repeat)
        check(f"{label}/{name}/la_gpm match", got, ref)
        rows.append({"impl": "la_gpm match() listing", "seconds": med, "runs": times})
        for pname in peers:
            fn = {"igraph LAD": lambda: lad_fn(g, G, Q), "igraph VF2": lambda: igraph_vf2_fn(g, Q),
                  "networkx VF2": lambda: nx_vf2_fn(gx, Q)}[pname]()
            res = run_peer(fn)
            if res is None or res[1] is None:
                rows.append({"impl": pname, "skipped": f"stopped after {PEER_TIME_LIMIT_S} s (time limit of this run)"})
                continue
            med, got = res
            check(f"{label}/{name}/{pname}", got, ref)
            rows.append({"impl": pname, "seconds": med, "runs": [med]})
        _print(label, name, rows)
        rows_out.append({"graph": label, "n": G.n, "m": G.m, "query": name, "k": Q.k, "edges": Q.num_edges,
                         "automorphisms": Q.automorphism_count, "embeddings": ref, "results": rows})
    return rows_out


def _print(label, name, rows):
    base = rows[0]["seconds"]
    for r in rows:
        if "seconds" in r:
            r["ratio_to_la_gpm_count"] = r["seconds"] / base
            print(f"  {label:<10} {name:<22} {r['impl']:<26} {r['seconds'] * 1e3:10.2f} ms  "
                  f"x{r['ratio_to_la_gpm_count']:9.1f}")
        else:
            print(f"  {label:<10} {name:<22} {r['impl']:<26} {r['skipped']}")


def bench_unlabeled(label, G, names, repeat, peers, known):
    g = to_igraph(G)
    out = []
    for nm in names:
        P = Pattern.named(nm)
        ref = count_pattern(G, P)
        if nm in known:
            check(f"{label}/{nm}/published", ref, known[nm])
        rows = []
        for reuse in (True, False):
            med, times, res = timeit(lambda reuse=reuse: count_pattern(G, P, reuse=reuse, return_stats=True),
                                     repeat=repeat)
            check(f"{label}/{nm}/reuse={reuse}", res[0], ref)
            st = res[1]
            rows.append({"impl": f"la_gpm count_pattern reuse={'on' if reuse else 'off'}", "seconds": med,
                         "runs": times, "reuse_hits": st["reuse_hits"], "set_operations": st["set_operations"],
                         "set_operations_saved": st["set_operations_saved"], "reuse_rate": st["reuse_rate"],
                         "plan": st["plan"]})
        emb = ref * P.automorphism_count
        for pname in peers:
            fn = {"igraph LAD": lambda: lad_fn(g, G, P), "igraph VF2": lambda: igraph_vf2_fn(g, P)}[pname]()
            res = run_peer(fn)
            if res is None:
                rows.append({"impl": pname, "skipped": f"stopped after {PEER_TIME_LIMIT_S} s (time limit of this run)"})
                continue
            med, got = res
            check(f"{label}/{nm}/{pname} (embeddings)", got, emb)
            rows.append({"impl": pname + " (embeddings)", "seconds": med, "runs": [med]})
        _print(label, nm, rows)
        for r in rows[:2]:
            print(f"      reuse hits {r['reuse_hits']:,}  set ops {r['set_operations']:,}  saved "
                  f"{r['set_operations_saved']:,}  rate {r['reuse_rate']:.2f}")
        out.append({"graph": label, "n": G.n, "m": G.m, "pattern": nm, "unique": ref, "embeddings": emb,
                    "results": rows})
    return out


def bench_numbering(repeat):
    """A/B in one process: the engine's degree-rank numbering against plain id numbering."""
    import la_gpm.exact.driver as sg
    ranked = sg.engine_arrays

    def id_numbered(G, vertex_labeled, edge_labeled):  # unlabeled patterns only: G's own CSR
        dummy = np.zeros(1, dtype=np.int64)
        dummy.setflags(write=False)
        deg = G.degrees.astype(np.int64)
        deg.setflags(write=False)
        return G.indptr, G.indices, dummy, dummy, deg, None, np.arange(G.n, dtype=np.int64)

    wv = la_gpm.as_graph(DATA / "wiki-Vote.txt")
    out = []
    for nm in ["diamond", "4-cycle", "tailed-triangle", "5-clique-generic"]:
        P = Pattern.named(nm.replace("-generic", ""))
        plan = sg.plan_for(wv, P)
        rows = []
        for label, fn in (("degree-rank numbering", ranked), ("id numbering", id_numbered)):
            sg.engine_arrays = fn
            try:
                med, times, res = timeit(lambda: sg.run_plan(wv, plan), repeat=repeat)
            finally:
                sg.engine_arrays = ranked
            rows.append({"impl": label, "seconds": med, "runs": times, "count": res[0]})
        check(f"wiki-Vote/{nm}/numbering", rows[0]["count"], rows[1]["count"])
        print(f"  wiki-Vote  {nm:<18} rank {rows[0]['seconds'] * 1e3:9.1f} ms   id {rows[1]['seconds'] * 1e3:9.1f} ms"
              f"   x{rows[1]['seconds'] / rows[0]['seconds']:.2f}")
        out.append({"graph": "wiki-Vote", "pattern": nm, "plan": plan.describe(), "results": rows})
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, nargs="*", default=list(range(1, 11)))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--numbering", action="store_true",
                    help="only the A/B of degree-rank against id numbering (writes numbering_cpu.json)")
    args = ap.parse_args(argv)
    if args.numbering:
        payload = {"benchmark": "engine vertex numbering", "machine": machine(), "versions": versions(),
                   "results": bench_numbering(args.repeat)}
        print("wrote", write("numbering", payload))
        return
    results = []
    hprd_graph, exp = hprd(DATA)
    print(f"HPRD: {hprd_graph}")
    qs = [DATA / "hprd" / "query_graph" / f"query_dense_16_{i}.graph" for i in args.queries]
    results += bench_queries("HPRD", hprd_graph, qs, exp, args.repeat, ["igraph LAD", "igraph VF2", "networkx VF2"])
    yeast = read_sunluo(DATA / "yeast" / "yeast.graph")
    print(f"yeast: {yeast}")
    yq = [DATA / "yeast" / "query_graph" / f"query_{kind}_{i}.graph"
          for kind, i in (("dense_8", 1), ("dense_8", 2), ("dense_8", 3), ("dense_16", 2), ("dense_16", 3),
                          ("sparse_16", 2), ("sparse_16", 3))]
    results += bench_queries("yeast", yeast, yq, None, args.repeat, ["igraph LAD", "igraph VF2"])
    cs = la_gpm.as_graph(DATA / "citeseer.edgelist")
    known = {"house": 55359, "pentagon": 28394, "hourglass": 16034, "4-cycle": 6059, "diamond": 3730}
    results += bench_unlabeled("citeseer", cs, ["diamond", "4-cycle", "house", "pentagon", "hourglass"],
                               args.repeat, ["igraph LAD", "igraph VF2"], known)
    wv = la_gpm.as_graph(DATA / "wiki-Vote.txt")
    results += bench_unlabeled("wiki-Vote", wv, ["diamond", "4-cycle", "tailed-triangle"], max(1, args.repeat // 2),
                               [], {})
    payload = {"benchmark": "match", "machine": machine(), "versions": versions(), "results": results,
               "peer_time_limit_s": PEER_TIME_LIMIT_S}
    print("wrote", write("match", payload))


if __name__ == "__main__":
    main()
