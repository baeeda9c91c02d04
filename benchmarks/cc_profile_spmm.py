"""Launch every rooted SpMM candidate once on Graph500 products, for a hardware-counter profile.

Usage (on the GPU machine)::

    ncu --clock-control none --kernel-name regex:"cc_spmm_(rooted|tiled|sorted)|cc_sort_arcs" \\
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \\
        --section WarpStateStats python3 benchmarks/cc_profile_spmm.py 20 12 4,5

Arguments: Graph500 scale, tree size k, product sizes p (comma separated).  Each candidate of
``GpuOps.rooted_variants`` runs once on a random passive table of the product's width (the first
launch of a kernel also compiles it; ncu profiles the launch, not the compilation).  Prints each
candidate's wall time (CUDA events) and the bytes the product must move (the count of
``bench_color_coding.honest_bytes``), so the profile's DRAM bytes can be set against them.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import la_gpm  # noqa: E402
from la_gpm.color_coding.driver import rooted_gather_table  # noqa: E402
from la_gpm.color_coding.cpu_kernels import coloring_keys  # noqa: E402


def main(argv=None):
    import cupy as cp
    from la_gpm.color_coding.gpu import GpuOps
    argv = sys.argv[1:] if argv is None else argv
    scale, k = int(argv[0]), int(argv[1])
    ps = [int(x) for x in argv[2].split(",")]
    G = la_gpm.generators.graph500(scale)
    ops = GpuOps(G, k, np.dtype("float32"), "custom", None)
    keys = coloring_keys(12345, 0, 1)
    colors = ops.colors(keys)
    col = colors.get().astype(np.int64)
    src = np.repeat(np.arange(G.n), np.diff(G.indptr))
    eff = int(np.count_nonzero(col[src] != col[G.indices]))
    rng = np.random.default_rng(0)
    for p in ps:
        Wp, W = math.comb(k - 1, p - 1), math.comb(k - 1, p)
        hb = eff * Wp * 4 + G.n * W * 4 + G.nnz * 5
        X = cp.asarray(rng.random((G.n, Wp), dtype=np.float32))
        Q = rooted_gather_table(k, p)
        for var in ops.rooted_variants(p, rows=G.n):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            ops.spmm_rooted(X, Q, colors, p, var)
            b.record()
            b.synchronize()
            t = cp.cuda.get_elapsed_time(a, b) / 1e3
            print(f"k={k} p={p} Wp={Wp} W={W} {var}: {t * 1e3:.2f} ms (first launch), must move {hb / 1e9:.2f} GB",
                  flush=True)
        del X


if __name__ == "__main__":
    main()
