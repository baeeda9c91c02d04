"""Probe (session 45): the GPU's dynamic search with hand-ons (la_gpm/dynamic/gamma.cu's notes) against the same
search without them (``config.dynamic_gpu_split_us`` 0: one warp an item, sessions 12-44) and against the CPU
(the parallel drive with its hand-ons, every core of the host), one ``match_delta`` per run, the modes alternating.
Cases as in ``probe_dynamic_split.py``: human's random 10-vertex tree at 0.1% (28 items, 6.1e10 matches), human's
8-vertex sparse query at 0.1%, and batches of many items (human dense6 at 2%, wordnet sparse6 at 2%).  Counts checked
equal between the modes.  Also human's random 10- and 12-vertex queries at 0.1% (``dense10`` ... ``tree12``).
JSON lines on stdout (benchmarks/results/probe_s45_dynamic_gpu_split_*.jsonl).

    python benchmarks/probe_dynamic_gpu_split.py [--reps 3] [--cases tree10 ...] [--modes cpu gpu@0 gpu@200]"""
import argparse
import json
import os
import platform
import sys
import time

import numba
import numpy as np

import la_gpm
from la_gpm.device import cupy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_dynamic_split import CASES, alternate, batches  # noqa: E402

CASES = dict(CASES, **{f"{kind}{k}": ("human", k, kind, 0.001)
                       for kind in ("dense", "sparse", "tree") for k in (6, 8, 10, 12)})


def run(G0, P, ins, dele, mode):
    """One timed ``match_delta``; ``mode``: ``cpu``, or ``gpu@US`` (hand-ons after US microseconds, 0 none)."""
    backend, _, us = mode.partition("@")
    with la_gpm.config.set(dynamic_gpu_split_us=int(us or la_gpm.config.dynamic_gpu_split_us)):
        if backend == "gpu":
            cupy().cuda.Device().synchronize()
        t = time.perf_counter()
        d = la_gpm.match_delta(G0, P, insert=ins, delete=dele, backend=backend)
        return time.perf_counter() - t, d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cases", nargs="+", default=list(CASES))
    ap.add_argument("--modes", nargs="+", default=["cpu", "gpu@0", "gpu@200"])
    ap.add_argument("--each", action="store_true", help="a line a run as it ends (long runs cut by a time limit)")
    a = ap.parse_args()
    # compile first (numba's drives, the kernel) on a small graph, so that no run below pays it
    W = la_gpm.Graph.from_edges(np.arange(40), (np.arange(40) + 1) % 40, n=40, vertex_labels=np.zeros(40, np.int64))
    Pw = la_gpm.Pattern([(i, i + 1) for i in range(5)], k=6, vertex_labels=[0] * 6)
    for mode in a.modes:
        run(W, Pw, [(0, 2), (3, 9)], [(5, 6)], mode)
    head = {"machine": platform.node(), "cpus": os.cpu_count(), "numba_threads": numba.get_num_threads(),
            "numba": numba.__version__, "la_gpm": la_gpm.__version__}
    if any(m.startswith("gpu") for m in a.modes):
        cp = cupy()
        head.update(gpu=cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), cupy=cp.__version__)
    print(json.dumps(head), flush=True)
    for name, G0, P, ins, dele in batches(a.cases, CASES):
        rec, pieces = alternate(run, name, G0, P, ins, dele, a.modes, a.reps,
                                lambda d: [d.stats.get("gpu_pieces", 0), d.stats.get("gpu_launches", 0)], a.each)
        print(json.dumps(dict(rec, gpu_pieces_launches=pieces)), flush=True)


if __name__ == "__main__":
    main()
