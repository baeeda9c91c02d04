"""Probe (session 43): the parallel counting drive with heavy items cut (``config.dynamic_split_check``, the default)
against the same drive without cutting (0), one views ``apply`` per run on a new ``DynamicGraph``, the two modes
alternating, on this machine's cores.  Cases: human's random 10-vertex tree at 0.1% (the batch of
``probe_dynamic_escape.py``: a few heavy items), human's 8-vertex sparse query at 0.1%, and batches whose
many items keep every thread busy (human dense6 at 2%, wordnet sparse6 at 2%), every search sent to the parallel
drive (``parallel_min`` 1) where the serial path would take it.  Counts checked equal between the modes.  JSON lines
on stdout (benchmarks/results/probe_s43_dynamic_split_*.jsonl).

    python benchmarks/probe_dynamic_split.py [--reps 3] [--cases tree10 ...]"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

import numba
import numpy as np

import la_gpm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_dynamic as bd  # noqa: E402
import dynamic_workload as dw  # noqa: E402

CASES = {   # name: (dataset, k, class, rate)
    "tree10": ("human", 10, "tree", 0.001),
    "sparse8": ("human", 8, "sparse", 0.001),
    "dense6_2pct": ("human", 6, "dense", 0.02),
    "wordnet_sparse6_2pct": ("wordnet", 6, "sparse", 0.02),
}


def run(G0, P, ins, dele, check):
    with la_gpm.config.set(parallel_min=1, dynamic_split_check=check):
        D = la_gpm.DynamicGraph(G0, queries=[P], keep_graph=False)
        t = time.perf_counter()
        d, = D.apply(insert=ins, delete=dele)
        return time.perf_counter() - t, d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cases", nargs="+", default=list(CASES))
    a = ap.parse_args()
    # compile first (both drives) on a small graph, so that no run below pays it
    W = la_gpm.Graph.from_edges(np.arange(40), (np.arange(40) + 1) % 40, n=40, vertex_labels=np.zeros(40, np.int64))
    Pw = la_gpm.Pattern([(i, i + 1) for i in range(4)], k=5, vertex_labels=[0] * 5)
    for check in (0, la_gpm.config.dynamic_split_check):
        run(W, Pw, [(0, 2), (3, 9)], [(5, 6)], check)
    print(json.dumps({"machine": platform.node(), "cpus": os.cpu_count(), "numba_threads": numba.get_num_threads(),
                      "threading_layer": numba.threading_layer(), "numba": numba.__version__,
                      "la_gpm": la_gpm.__version__, "check": la_gpm.config.dynamic_split_check}), flush=True)
    loaded = {}
    for name in a.cases:
        ds, k, kind, rate = CASES[name]
        if ds not in loaded:
            loaded[ds] = bd.load(ds, 1)[0]
        G = loaded[ds]
        P = dw.random_query(G, k, kind, seed=0)
        G0, ins, dele = dw.make_batch(G, rate, seed=0, insert_share=2 / 3)
        times = {0: [], 1: []}
        counts = set()
        split = []
        for _ in range(a.reps):
            for mode, check in ((0, 0), (1, la_gpm.config.dynamic_split_check)):
                t, d = run(G0, P, ins, dele, check)
                times[mode].append(t)
                counts.add((d.positive, d.negative))
                if mode:
                    split.append(d.stats.get("split_items", 0))
        assert len(counts) == 1, (name, counts)
        off, on = statistics.median(times[0]), statistics.median(times[1])
        print(json.dumps({"case": name, "query": str(P), "insert": len(ins), "delete": len(dele),
                          "positive": next(iter(counts))[0], "negative": next(iter(counts))[1],
                          "uncut_s": [round(x, 4) for x in times[0]], "cut_s": [round(x, 4) for x in times[1]],
                          "uncut_median_s": round(off, 4), "cut_median_s": round(on, 4),
                          "speedup": round(off / on, 3), "split_items": split}), flush=True)


if __name__ == "__main__":
    main()
