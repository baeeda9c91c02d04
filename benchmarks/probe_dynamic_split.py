"""Probe (sessions 43-44): the parallel counting drive with heavy items cut against the same drive without cutting,
one views ``apply`` per run on a new ``DynamicGraph``, the modes alternating, on this machine's cores.  Modes:
``uncut`` (``config.dynamic_split_check`` 0), ``level2`` (items hand on level-2 candidates only:
``cpu.SPLIT_DEEP`` False, the drive of session 43) and ``deep`` (below level 2 too, the default since session 44).
Cases: human's random 10-vertex tree at 0.1% (the batch of ``probe_dynamic_escape.py``: a few heavy items), human's
8-vertex sparse query at 0.1%, and batches whose many items keep every thread busy (human dense6 at 2%, wordnet
sparse6 at 2%), every search sent to the parallel drive (``parallel_min`` 1) where the serial path would take it.
Counts checked equal between the modes.  JSON lines on stdout (benchmarks/results/probe_s4[34]_dynamic_split_*.jsonl).

    python benchmarks/probe_dynamic_split.py [--reps 3] [--cases tree10 ...] [--modes uncut level2 deep deep@1024]"""
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
from la_gpm.dynamic import cpu

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_dynamic as bd  # noqa: E402
import dynamic_workload as dw  # noqa: E402

CASES = {   # name: (dataset, k, class, rate)
    "tree10": ("human", 10, "tree", 0.001),
    "sparse8": ("human", 8, "sparse", 0.001),
    "dense6_2pct": ("human", 6, "dense", 0.02),
    "wordnet_sparse6_2pct": ("wordnet", 6, "sparse", 0.02),
}


MODES = {"uncut": (0, True), "level2": (None, False), "deep": (None, True)}   # mode: (check, SPLIT_DEEP)


def batches(names, cases=None):
    """(name, G0, query, inserts, deletes) of each named case (``cases``: name -> (dataset, k, class, rate); CASES
    by default): the dataset loaded once, its random query and batch of seed 0."""
    cases = CASES if cases is None else cases
    loaded = {}
    for name in names:
        ds, k, kind, rate = cases[name]
        if ds not in loaded:
            loaded[ds] = bd.load(ds, 1)[0]
        G = loaded[ds]
        P = dw.random_query(G, k, kind, seed=0)
        G0, ins, dele = dw.make_batch(G, rate, seed=0, insert_share=2 / 3)
        yield name, G0, P, ins, dele


def alternate(run, name, G0, P, ins, dele, modes, reps, stat, each=False):
    """The modes' runs of one case, alternating ``reps`` times (``run(G0, P, ins, dele, mode)`` -> (s, MatchDelta)),
    counts checked equal: a JSON-ready record with each mode's runs, median and ``stat(delta)`` per run; ``each``:
    a line a run on stdout as it ends."""
    times = {m: [] for m in modes}
    stats = {m: [] for m in modes}
    counts = set()
    d = None
    for _ in range(reps):
        for mode in modes:
            t, d = run(G0, P, ins, dele, mode)
            if each:
                print(json.dumps({"run": name, "mode": mode, "s": round(t, 4), "positive": d.positive,
                                  "negative": d.negative}), flush=True)
            times[mode].append(t)
            counts.add((d.positive, d.negative))
            stats[mode].append(stat(d))
    assert len(counts) == 1, (name, counts)
    (pos, neg), = counts
    return {"case": name, "query": str(P), "insert": len(ins), "delete": len(dele),
            "items": sum(d.stats["items"].values()), "positive": pos, "negative": neg,
            "runs_s": {m: [round(x, 4) for x in times[m]] for m in modes},
            "median_s": {m: round(statistics.median(times[m]), 4) for m in modes}}, stats


def run(G0, P, ins, dele, mode):
    """One timed views ``apply``; ``mode``: a key of MODES, or ``deep@N`` (hand-ons at any level, looks every N
    steps)."""
    name, _, at = mode.partition("@")
    check, deep = MODES[name]
    if at:
        check = int(at)
    cpu.SPLIT_DEEP = deep
    with la_gpm.config.set(parallel_min=1, dynamic_split_check=la_gpm.config.dynamic_split_check if check is None
                           else check):
        D = la_gpm.DynamicGraph(G0, queries=[P], keep_graph=False)
        t = time.perf_counter()
        d, = D.apply(insert=ins, delete=dele)
        return time.perf_counter() - t, d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cases", nargs="+", default=list(CASES))
    ap.add_argument("--modes", nargs="+", default=list(MODES), help=f"of {list(MODES)}, or deep@N (looks every N steps)")
    a = ap.parse_args()
    # compile first (both drives) on a small graph, so that no run below pays it
    W = la_gpm.Graph.from_edges(np.arange(40), (np.arange(40) + 1) % 40, n=40, vertex_labels=np.zeros(40, np.int64))
    Pw = la_gpm.Pattern([(i, i + 1) for i in range(4)], k=5, vertex_labels=[0] * 5)
    for mode in a.modes:
        run(W, Pw, [(0, 2), (3, 9)], [(5, 6)], mode)
    print(json.dumps({"machine": platform.node(), "cpus": os.cpu_count(), "numba_threads": numba.get_num_threads(),
                      "threading_layer": numba.threading_layer(), "numba": numba.__version__,
                      "la_gpm": la_gpm.__version__, "check": la_gpm.config.dynamic_split_check}), flush=True)
    for name, G0, P, ins, dele in batches(a.cases):
        rec, split = alternate(run, name, G0, P, ins, dele, a.modes, a.reps,
                               lambda d: d.stats.get("split_levels", {}))
        print(json.dumps(dict(rec, split_levels=split)), flush=True)


if __name__ == "__main__":
    main()
