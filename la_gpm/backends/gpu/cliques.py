"""GPU k-clique counting: warp-centric DFS over the degree-rank-ordered DAG (kernels/cliques.cu).

Each warp owns a stack of ``max(1, k-3)`` levels × (max DAG out-degree) int32 in global
memory; the number of resident warps is chosen so that all stacks fit
``la_gpm.config.memory_budget``.  Arcs are handed out through an atomic counter.
"""

from __future__ import annotations

import numpy as np

from . import cupy, device_arc_sources, device_csr, kernel, oom_guard

MAX_K = 32


def clique_count(G, k: int, part=None) -> int:
    """k-cliques of G; with ``part=(i, nparts)`` only those whose lowest-ranked vertex lies in the
    i-th work-balanced range of ranks (see ``la_gpm.backends.partition``)."""
    cp = cupy()
    from ...config import config
    from ..partition import part_range

    if not 3 <= k <= MAX_K:
        raise ValueError(f"gpu clique kernel handles 3 <= k <= {MAX_K}; got {k}")
    ptr, idx = device_csr(G, "R")
    src = device_arc_sources(G, "R")
    hp, _ = G.oriented_ranked()
    a0, narcs = 0, int(idx.shape[0])
    if part is not None:  # the arcs of a range of sources are one range of the rank-ordered CSR
        lo, hi = part_range(np.diff(hp).astype(np.float64) ** 2, part)
        a0, narcs = int(hp[lo]), int(hp[hi])
    if narcs <= a0:
        return 0
    maxdeg = max(1, int(np.diff(hp).max()))
    if maxdeg < k - 1:
        return 0
    levels = max(1, k - 3)
    per_warp = levels * maxdeg * 4
    sm = cp.cuda.Device().attributes["MultiProcessorCount"]
    warps_per_block = 8
    nwarps = int(min(sm * 64, max(warps_per_block, config.memory_budget // per_warp), narcs - a0 + warps_per_block))
    grid = max(1, nwarps // warps_per_block)
    with oom_guard(f"{k}-clique counting (stacks of {grid * warps_per_block} warps × {per_warp} bytes)"):
        buf = cp.empty(grid * warps_per_block * levels * maxdeg, dtype=cp.int32)
        counters = cp.asarray(np.array([a0, 0, 0], dtype=np.uint64))  # [next arc, total, overflow]; arcs a0..
        kern = kernel("cliques", "clique_count_warp")
        kern((grid,), (warps_per_block * 32,),
             (ptr, idx, src, np.int64(narcs), np.int32(k), np.int32(maxdeg), buf, counters[0:1], counters[1:2],
              counters[2:3]))
        _, total, over = (int(x) for x in counters.get())
    if over:
        raise OverflowError(f"the number of {k}-cliques exceeds 2**64 - 1 (the GPU kernel's exact sum); count it in "
                            "parts and add them as Python ints: sum(la_gpm.distributed.count_part(G, "
                            f"'{k}-clique', (i, n), backend='gpu') for i in range(n)) with n large enough")
    return total
