"""Graphlet orbit counts (4-vertex orbits, ORCA numbering) on the GPU against the CPU backend.

    python benchmarks/bench_gpu_orbits.py --gpu [--graphs citeseer,email-Eu-core,wiki-Vote,"R-MAT 16"]

``la_gpm.orbits(G, 4, backend=...)``: both backends solve the same triangular system from the
non-induced per-vertex orbit sums σ (n × 15); the GPU computes σ with the 5-vertex hybrid's kernels
(``census/gpu.sigma4``), the CPU with numba kernels. The two results are checked equal
before timing. Per graph: the GPU and CPU medians (device synchronised, after a warm-up), the GPU's
share spent in σ (kernels and copy back) and the floor of reading the graph once and writing the
n × 15 int64 result at copy bandwidth. Peers (ORCA / orbit-count, pyfglt) are measured on the CPU
machine by ``bench_census.py``; they are not installed beside the GPU. Writes
``benchmarks/results/orbits_<cpu|gpu>.json``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import DATA, machine, timeit, versions, write  # noqa: E402

import la_gpm  # noqa: E402

COPY_BW = 2.89e12     # bytes/s, device-to-device copy on the H100 (../shared/ANCHORS.md)

MAKERS = {"citeseer": lambda: la_gpm.read_graph(DATA / "citeseer.edgelist"),
          "email-Eu-core": lambda: la_gpm.read_graph(DATA / "email-Eu-core.txt"),
          "wiki-Vote": lambda: la_gpm.read_graph(DATA / "wiki-Vote.txt"),
          "R-MAT 16": lambda: la_gpm.generators.rmat(16, seed=1),
          "R-MAT 18": lambda: la_gpm.generators.rmat(18, seed=1)}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--graphs", default="citeseer,email-Eu-core,wiki-Vote,R-MAT 16")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds of timed runs per case at most")
    a = ap.parse_args(argv)
    tiny = la_gpm.generators.gnm(60, 300, seed=0)
    la_gpm.orbits(tiny, 4, backend="cpu")            # compile before timing
    if a.gpu:
        la_gpm.orbits(tiny, 4, backend="gpu")
    rows = []
    payload = {"benchmark": "4-vertex graphlet orbits, gpu vs cpu backend", "machine": machine(),
               "versions": versions(), "cpu_threads": os.cpu_count(), "rows": rows}
    for label in a.graphs.split(","):
        G = MAKERS[label]()
        row = {"graph": label, "n": G.n, "m": G.m, "max_degree": int(G.max_degree)}
        cmed, cruns, want = timeit(lambda: la_gpm.orbits(G, 4, backend="cpu"), repeat=5, budget_s=a.budget)
        row.update(cpu_seconds=cmed, cpu_runs=cruns, orbit_sums=[int(x) for x in want.sum(axis=0)])
        if a.gpu:
            from la_gpm.motifs import gpu as gc
            got = la_gpm.orbits(G, 4, backend="gpu")
            if not np.array_equal(got, want):
                raise SystemExit(f"{label}: GPU orbits differ from the CPU backend's")
            gmed, gruns, _ = timeit(lambda: la_gpm.orbits(G, 4, backend="gpu"), repeat=7, sync=True,
                                    budget_s=a.budget)
            smed, _, _ = timeit(lambda: gc.sigma4(G), repeat=7, sync=True, budget_s=a.budget)
            gc.PROFILE = {}                     # one more call, synchronised around each stage
            gc.sigma4(G)
            stages, gc.PROFILE = gc.PROFILE, None
            row["gpu_sigma4_stages_seconds"] = {k: v for k, v in stages.items() if isinstance(v, float)}
            floor = ((G.n + 1) * 8 + G.nnz * 4 + G.n * 15 * 8) / COPY_BW
            row.update(gpu_seconds=gmed, gpu_runs=gruns, gpu_sigma4_seconds=smed, speedup_vs_cpu=cmed / gmed,
                       gpu_edges_per_s=G.m / gmed, read_graph_write_result_floor_seconds=floor)
        rows.append(row)
        print({k: v for k, v in row.items() if not k.endswith("runs") and k != "orbit_sums"}, flush=True)
    print(write("orbits", payload))


if __name__ == "__main__":
    main()
