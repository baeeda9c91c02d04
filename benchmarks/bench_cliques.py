"""k-clique counting: la_gpm (DAG kernel, graphblas masked mxm, generic plan with/without reuse)
against igraph and networkx, measured in the same run.

    python benchmarks/bench_cliques.py                 # citeseer k=3..7, wiki-Vote k=3..6, G(20000,200000)
    python benchmarks/bench_cliques.py --repeat 3

Every count is checked (published counts where there are some, else the DAG kernel) before timing.
Writes benchmarks/results/cliques_cpu.json.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from harness import DATA, check, machine, timeit, versions, write  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm import Pattern  # noqa: E402
from la_gpm.kcliques import clique_count  # noqa: E402
from la_gpm.exact.driver import plan_for, run_plan  # noqa: E402

PUBLISHED = {"citeseer": {3: 1166, 4: 255, 5: 46, 6: 4, 7: 0}, "wiki-Vote": {3: 608389, 4: 2077903, 5: 4514137}}


def igraph_fn(G, k):
    import igraph as ig
    src = np.repeat(np.arange(G.n), G.degrees)
    keep = src < G.indices
    g = ig.Graph(n=G.n, edges=np.column_stack([src[keep], G.indices[keep]]).tolist())
    return lambda: len(g.cliques(min=k, max=k))


def networkx_fn(G, k):
    import networkx as nx
    g = G.to_networkx()

    def run():
        c = 0
        for q in nx.enumerate_all_cliques(g):  # yields by increasing size
            if len(q) == k:
                c += 1
            elif len(q) > k:
                break
        return c
    return run


def clique_pattern(k):
    return Pattern(list(itertools.combinations(range(k), 2)), k=k)


def bench(label, G, ks, repeat, peer_limits):
    out = []
    for k in ks:
        ref = clique_count(G, k, backend="cpu")
        if k in PUBLISHED.get(label, {}):
            check(f"{label}/K{k}/published", ref, PUBLISHED[label][k])
        rows = []
        med, times, got = timeit(lambda: clique_count(G, k, backend="cpu"), repeat=repeat)
        check(f"{label}/K{k}/cpu", got, ref)
        rows.append({"impl": "la_gpm[cpu] DAG", "seconds": med, "runs": times})
        if k <= 5:
            med, times, got = timeit(lambda: clique_count(G, k, backend="graphblas"), repeat=max(1, repeat // 2))
            check(f"{label}/K{k}/graphblas", got, ref)
            rows.append({"impl": "la_gpm[graphblas] masked mxm per level", "seconds": med, "runs": times})
        for reuse in (True, False):
            plan = plan_for(G, clique_pattern(k), reuse=reuse)
            med, times, res = timeit(lambda plan=plan: run_plan(G, plan), repeat=max(1, repeat // 2))
            n, st = res
            check(f"{label}/K{k}/plan reuse={reuse}", n, ref)
            rows.append({"impl": f"la_gpm[cpu] generic plan, reuse={'on' if reuse else 'off'}", "seconds": med,
                         "runs": times, "reuse_hits": st["reuse_hits"], "set_operations": st["set_operations"],
                         "set_operations_saved": st["set_operations_saved"], "reuse_rate": st["reuse_rate"]})
        for name, make in (("igraph cliques(min=k,max=k)", igraph_fn), ("networkx enumerate_all_cliques", networkx_fn)):
            limit = peer_limits[name]
            if ref > limit:
                rows.append({"impl": name, "skipped": f"not run above {limit:,} cliques (time budget of this run)"})
                continue
            med, times, got = timeit(make(G, k), repeat=1, warmup=0)
            check(f"{label}/K{k}/{name}", got, ref)
            rows.append({"impl": name, "seconds": med, "runs": times})
        base = rows[0]["seconds"]
        for r in rows:
            if "seconds" in r:
                r["ratio_to_la_gpm_dag"] = r["seconds"] / base
                extra = f"  reuse rate {r['reuse_rate']:.2f}" if "reuse_rate" in r else ""
                print(f"  {label:<16} K{k:<3} {r['impl']:<44} {r['seconds'] * 1e3:10.2f} ms  "
                      f"x{r['ratio_to_la_gpm_dag']:8.1f}{extra}")
            else:
                print(f"  {label:<16} K{k:<3} {r['impl']:<44} skipped: {r['skipped']}")
        out.append({"graph": label, "n": G.n, "m": G.m, "pattern": f"{k}-clique", "count": ref, "results": rows})
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    graphs = [("citeseer", lambda: la_gpm.as_graph(DATA / "citeseer.edgelist"), range(3, 8)),
              ("wiki-Vote", lambda: la_gpm.as_graph(DATA / "wiki-Vote.txt"), range(3, 7)),
              ("G(20000,200000)", lambda: la_gpm.generators.gnm(20000, 200000, seed=1), range(3, 6))]
    peer_limits = {"igraph cliques(min=k,max=k)": 5_000_000, "networkx enumerate_all_cliques": 700_000}
    results = []
    for label, make, ks in graphs:
        t = time.perf_counter()
        G = make()
        print(f"{label}: {G} (loaded in {time.perf_counter() - t:.1f} s)")
        results += bench(label, G, ks, args.repeat, peer_limits)
    payload = {"benchmark": "cliques", "machine": machine(), "versions": versions(), "threads": _threads(),
               "results": results}
    print("wrote", write("cliques", payload))


def _threads():
    import numba
    return numba.get_num_threads()


if __name__ == "__main__":
    main()
