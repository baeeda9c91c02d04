"""k-cliques of R-MAT 20, k = 5..8, GPU against the CPU backend on the same root ranges.

    python benchmarks/bench_clique_parts.py --gpu [--nparts 256 --parts 0 128 255 --kmax 8]

Whole-graph CPU runs of k >= 5 on R-MAT 20 take from minutes to hours on 16 cores, so the CPU and
the GPU count the same parts: ``clique_count(G, k, part=(i, nparts))`` counts the cliques whose
lowest vertex (degree order) lies in the i-th of nparts work-balanced root ranges (the parts add up
to the whole count, see ``la_gpm.backends.partition``).  Per (k, part): the two counts (checked
equal), the GPU time (median after a warm-up, device synchronised), one CPU run on all cores, and
their ratio, which is a measured speed-up on identical work.  ``--whole-gpu-kmax`` also times the
GPU on the whole graph up to that k.  Writes ``benchmarks/results/clique_parts_<cpu|gpu>.json``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import _sync, check, machine, timeit, versions, write  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm.algorithms.cliques import clique_count  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--kmin", type=int, default=5)
    ap.add_argument("--kmax", type=int, default=8)
    ap.add_argument("--nparts", type=int, default=256)
    ap.add_argument("--parts", nargs="*", type=int, default=[0, 128, 255])
    ap.add_argument("--cpu-budget", type=float, default=60.0, help="no CPU run of a larger k after one this long")
    ap.add_argument("--whole-gpu-kmax", type=int, default=5)
    ap.add_argument("--name", default="clique_parts")
    a = ap.parse_args(argv)
    tiny = la_gpm.generators.gnm(50, 300, seed=0)
    for k in range(a.kmin, a.kmax + 1):               # compile before timing
        clique_count(tiny, k, backend="cpu")
        if a.gpu:
            clique_count(tiny, k, backend="gpu")
    G = la_gpm.generators.rmat(a.scale, seed=1)
    rows = []
    payload = {"benchmark": "k-cliques by part, gpu vs cpu", "machine": machine(), "versions": versions(),
               "graph": f"R-MAT {a.scale}", "n": G.n, "m": G.m, "nparts": a.nparts, "cpu_threads": os.cpu_count(),
               "rows": rows}
    cpu_slow = False
    for k in range(a.kmin, a.kmax + 1):
        if a.gpu and k <= a.whole_gpu_kmax:
            med, times, got = timeit(lambda k=k: clique_count(G, k, backend="gpu"), repeat=3, sync=True, budget_s=30)
            rows.append({"k": k, "part": "whole", "count": got, "gpu_seconds": med, "gpu_runs": times,
                         "gpu_edges_per_s": G.m / med})
            print(rows[-1], flush=True)
        for i in a.parts:
            part = (i, a.nparts)
            row = {"k": k, "part": list(part)}
            if a.gpu:
                med, times, g = timeit(lambda k=k, part=part: clique_count(G, k, backend="gpu", part=part), repeat=3,
                                       sync=True, budget_s=30)
                row.update(count=g, gpu_seconds=med, gpu_runs=times)
            if not cpu_slow:
                t = time.perf_counter()
                c = clique_count(G, k, backend="cpu", part=part)
                row["cpu_seconds"] = time.perf_counter() - t
                if a.gpu:
                    check(f"R-MAT {a.scale} K{k} part {part}", row["count"], c)
                    row["speedup"] = row["cpu_seconds"] / row["gpu_seconds"]
                else:
                    row["count"] = c
                cpu_slow = row["cpu_seconds"] > a.cpu_budget
            else:
                row["cpu_skipped"] = f"an earlier part took over {a.cpu_budget} s on the CPU"
            rows.append(row)
            print({x: row.get(x) for x in ("k", "part", "count", "gpu_seconds", "cpu_seconds", "speedup")}, flush=True)
            _sync()
    print("wrote", write(a.name, payload))


if __name__ == "__main__":
    main()
