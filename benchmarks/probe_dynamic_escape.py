"""Probe (session 41): one views ``apply`` of the 0.1% batch of human's random 10-vertex tree (the query and batch of
``bench_dynamic.py --sizes 10``, seed 0), whose search the work estimate calls light: serial (no budget reached:
``parallel_min`` 10^12), with the serial budget (the default: past it the parallel drive takes over) and with every
search in the parallel drive (``parallel_min`` 1), on this machine's cores.  JSON lines on stdout
(benchmarks/results/probe_s41_dynamic_escape_*.jsonl).  Usage: python benchmarks/probe_dynamic_escape.py [k]"""
import json
import os
import platform
import sys
import time

import numba
import numpy as np

import la_gpm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_dynamic as bd  # noqa: E402
import dynamic_workload as dw  # noqa: E402


def main():
    k = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    # compile first (the lane, both drives) on a small graph, so that no run below pays it
    W = la_gpm.Graph.from_edges(np.arange(40), (np.arange(40) + 1) % 40, n=40, vertex_labels=np.zeros(40, np.int64))
    Pw = la_gpm.Pattern([(i, i + 1) for i in range(4)], k=5, vertex_labels=[0] * 5)
    for pm in (1, 10**12):
        with la_gpm.config.set(parallel_min=pm):
            la_gpm.DynamicGraph(W, [Pw], keep_graph=False).apply(insert=[(0, 2)], delete=[(5, 6)])
    G, _labels, _ = bd.load("human", 1)
    P = dw.random_query(G, k, "tree", seed=0)
    G0, ins, dele = dw.make_batch(G, 0.001, seed=0, insert_share=2 / 3)
    print(json.dumps({"machine": platform.node(), "cpus": os.cpu_count(), "numba_threads": numba.get_num_threads(),
                      "query": str(P), "insert": len(ins), "delete": len(dele)}), flush=True)
    for name, pm in (("budget (default)", la_gpm.config.parallel_min), ("every search parallel", 1),
                     ("serial", 10**12)):
        with la_gpm.config.set(parallel_min=pm):
            D = la_gpm.DynamicGraph(G0, queries=[P], keep_graph=False)
            t = time.perf_counter()
            d, = D.apply(insert=ins, delete=dele)
            t = time.perf_counter() - t
        print(json.dumps({"run": name, "parallel_min": pm, "seconds": round(t, 3), "positive": d.positive,
                          "negative": d.negative, "search_s": d.stats.get("search_s"),
                          "parallel_after_serial": bool(d.stats.get("parallel_after_serial")),
                          "lane": bool(d.stats.get("lane"))}), flush=True)


if __name__ == "__main__":
    main()
