"""GPU k-clique counting: warp-centric DFS over the degree-rank-ordered DAG (la_gpm/kcliques/cliques.cu).

Two methods, one warp per DAG arc (u, v) handed out through an atomic counter:

* ``"stack"``: every level is a sorted-list intersection written to the warp's stack of
  ``max(1, k-3)`` levels × (max DAG out-degree) int32 in global memory.
* ``"bitmap"`` (k >= 4): C = N+(u) ∩ N+(v) is intersected once, the DAG adjacency inside C is
  written as bit rows, and every deeper level is a word-wise AND (binary encoding, Almasri et al.,
  ICS 2022). Arcs with |C| > 1024 take the stack path inside the same kernel.

``"auto"`` picks the bitmap kernel for k >= BITMAP_MIN_K (measured on the H100:
benchmarks/results/cliques_gpu_gpu.json). The number of resident warps is chosen so that all
per-warp buffers fit ``la_gpm.config.memory_budget``.

Load balance (bitmap kernel, k >= BALANCE_MIN_K): one arc's subtree can hold a large share of
all k-cliques (wiki-Vote: candidate sets of up to 46 dense vertices), and a warp that takes it
late finishes long after the others. The host then measures every arc's candidate set size c
(one warp-per-arc kernel), drops arcs with c < k - 2, splits arcs with c >= SPLIT_MIN_C into
ranges of the first vertex chosen in C (range ends at equal shares of Σ (c - i)^3, a proxy of
the subtree below i), and hands the items out heaviest first. The item list is cached per
graph and k; a part (``part=``) runs the items of its own arcs, in the same order.

Parts: ``part=(i, nparts)`` runs the ranks ``partition.rank_range(G, part, k)``, the same ranges as
the cpu backend's; for k >= 5 their weights are made from the arcs' candidate-set sizes, which
this module hands to the host from its own size kernel (the same integers as the cpu's numba pass).
"""

from __future__ import annotations

import functools

import numpy as np

from ..device import (Launches, block_size, cupy, device_arc_sources, device_arc_table, device_csr, kernel, oom_guard,
                      sm_count, with_scratch)

MAX_K = 32
METHODS = ("auto", "stack", "bitmap")
BITMAP_MIN_K = 5
BITMAP_CAP = 1024  # CQ_CAP of cliques.cu: candidate sets up to 32 words of 32 bits
BALANCE_MIN_K = 6
SPLIT_MIN_C = 24
SPLIT_MAX = 8     # ranges per split arc: min(SPLIT_MAX, c // SPLIT_WIDTH), at least 1
SPLIT_WIDTH = 8


def _sizes(ptr, idx, src, narcs):  # |C| of every arc: one per graph, whatever k
    cp = cupy()
    c = cp.empty(narcs, dtype=cp.int32)
    bs = block_size()
    blocks = max(1, min(65535, -(-narcs * 32 // bs)))
    kernel(__package__, "cliques", "clique_arc_sizes")((blocks,), (bs,), (ptr, idx, src, np.int64(narcs), c))
    return c


def arc_sizes(G):
    """|N+(u) ∩ N+(v)| of every arc of the rank-ordered DAG, on the device (cached with the graph)."""
    return device_arc_table(G, "clique_sizes", "candidate-set sizes of the DAG arcs", _sizes)


def part_rank_range(G, k: int, part):
    """``partition.rank_range(G, part, k)``; for k >= 5 the host's arc candidate sizes (the weights'
    input) are first taken from the device kernel (the same integers as the cpu's numba pass)."""
    from ..partition import CLIQUE_ARC_SIZES_KEY, CLIQUE_WEIGHT_MIN_K, rank_range

    if k >= CLIQUE_WEIGHT_MIN_K:
        def make():
            c = cupy().asnumpy(arc_sizes(G)).astype(np.int32, copy=False)
            c.setflags(write=False)
            return c
        G.device_cache(CLIQUE_ARC_SIZES_KEY, make)
    return rank_range(G, part, k)


def _work_items(G, k: int, rcap: int):
    """(arc ids, first-vertex range starts, range ends) of the bitmap kernel's balanced work
    items, heaviest first (see the module docstring); cached per graph, k and cap."""
    cp = cupy()

    def build(ptr, idx, src, narcs):
        c = arc_sizes(G)
        arcs = cp.flatnonzero(c >= k - 2).astype(cp.int32)
        ca = c[arcs].astype(cp.int64)
        split = (ca >= SPLIT_MIN_C) & (ca <= rcap)
        nch = cp.where(split, cp.clip(ca // SPLIT_WIDTH, 1, SPLIT_MAX), 1)
        item_arc = cp.repeat(arcs, nch)
        item_c = cp.repeat(ca, nch).astype(cp.float64)
        first = cp.cumsum(nch) - nch
        t = cp.arange(item_arc.shape[0], dtype=cp.int64) - cp.repeat(first, nch)
        nc = cp.repeat(nch, nch).astype(cp.float64)
        # range ends at equal shares of Σ (c - i)^3: i_t = c - c (1 - t / nch)^(1/3)
        lo = cp.floor(item_c - item_c * cp.cbrt(1.0 - t / nc)).astype(cp.int64)
        hi = cp.floor(item_c - item_c * cp.cbrt(1.0 - (t + 1) / nc)).astype(cp.int64)
        hi = cp.where(t + 1 == nc, item_c.astype(cp.int64), hi)
        est = (item_c - lo) ** 3 - (item_c - hi) ** 3
        order = cp.argsort(-est)
        return (item_arc[order], lo[order].astype(cp.int32), hi[order].astype(cp.int32))
    return device_arc_table(G, f"clique_items:{k}:{rcap}", f"splitting arcs into balanced {k}-clique work items",
                            build)


def clique_count(G, k: int, part=None, method: str = "auto", balance: bool | None = None) -> int:
    """k-cliques of G; with ``part=(i, nparts)`` only those whose lowest-ranked vertex lies in the
    i-th work-balanced range of ranks (``la_gpm.partition.rank_range(G, part, k)``).
    ``method`` and ``balance`` (default: on for the bitmap kernel and k >= BALANCE_MIN_K, whole
    graph or part): see the module docstring."""
    if part is None:
        return count_ranks(G, k, None, method, balance)
    return count_ranks(G, k, part_rank_range(G, k, part), method, balance)


def count_ranks(G, k: int, ranks=None, method: str = "auto", balance: bool | None = None) -> int:
    """The k-cliques whose lowest vertex has a degree rank in ``ranks = (lo, hi)`` (None: all)."""
    bound = _bind(G, k, ranks, method, balance)
    if bound is None:
        return 0
    counters, call, start, stacks = bound
    (f, grid, block, args, smem), = with_scratch((call,), stacks)
    with oom_guard(stacks[4]):
        if start:
            counters[0] = start
        f(grid, block, args, shared_mem=smem)
        host = counters.get()
    return _total(host, k)


def repeat_count(G, k: int):
    """G's k-clique count bound for repeat calls (:func:`la_gpm.engines.repeatable`): the default kernel's call
    with its counters and arguments made once (a call takes the stacks from the pool, zeroes the counters,
    launches, reads them back and returns the count); None where the count needs no launch (then it is 0 at
    once)."""
    bound = _bind(G, k, None, "auto", None)
    if bound is None:
        return None
    counters, call, start, stacks = bound
    assert start == 0     # the whole graph: the kernel's item counter starts at 0, as the zeroed counters do
    # the stacks (up to config.memory_budget) are taken from CuPy's pool at each call, not kept
    return Launches(cupy().cuda.runtime.getDevice(), counters, [call], functools.partial(_total, k=k), stacks)


def _total(host, k) -> int:
    """The count from the host copy of the counters [next item, total, overflow]."""
    _, total, over = (int(x) for x in host)
    if over:
        raise OverflowError(f"the number of {k}-cliques exceeds 2**64 - 1 (the GPU kernel's exact sum); count it in "
                            "parts and add them as Python ints: sum(la_gpm.distributed.count_part(G, "
                            f"'{k}-clique', (i, n), backend='gpu') for i in range(n)) with n large enough")
    return total


def _bind(G, k, ranks, method, balance):
    """The launch of the k-clique count over ``ranks``: (counters (3,) uint64 on the device, the kernel call
    (function, grid, block, args, shared memory bytes) with None for the warps' stacks, the first item, the stacks
    as :func:`la_gpm.device.with_scratch` takes them), or None where the count is 0 without a launch."""
    cp = cupy()
    from ..config import config

    if not 3 <= k <= MAX_K:
        raise ValueError(f"gpu clique kernel handles 3 <= k <= {MAX_K}; got {k}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    if method == "auto":
        method = "bitmap" if k >= BITMAP_MIN_K else "stack"
    if k == 3:
        method = "stack"  # nothing to encode: the triangle count is one intersection per arc
    if balance and method != "bitmap":
        raise ValueError("balance=True needs the bitmap kernel (k >= 4)")
    if balance is None:
        balance = method == "bitmap" and k >= BALANCE_MIN_K
    ptr, idx = device_csr(G, "R")
    src = device_arc_sources(G, "R")
    hp, _ = G.oriented_ranked()
    a0, narcs = 0, int(idx.shape[0])
    if ranks is not None:  # the arcs of a range of sources are one range of the rank-ordered CSR
        lo, hi = ranks
        a0, narcs = int(hp[lo]), int(hp[hi])
    if narcs <= a0:
        return None
    maxdeg = G.cached("R:max_outdeg", lambda: max(1, int(np.diff(hp).max())))  # O(n) once per graph
    if maxdeg < k - 1:
        return None
    levels = max(1, k - 3)
    per_warp_ints = levels * maxdeg
    rcap = min(maxdeg, BITMAP_CAP)
    if method == "bitmap":
        per_warp_ints += rcap * ((rcap + 31) // 32)
    per_warp = per_warp_ints * 4
    start, end = a0, narcs              # the kernel takes items start..end-1 from its counter
    items = None
    if method == "bitmap" and balance:
        items = _work_items(G, k, rcap)
        if (a0, narcs) != (0, int(idx.shape[0])):  # a part: its arcs' items, still heaviest first
            keep = (items[0] >= a0) & (items[0] < narcs)
            items = tuple(x[keep] for x in items)
        start, end = 0, int(items[0].shape[0])
        if end == 0:
            return None
    sm = sm_count()
    warps_per_block = 8
    nwarps = int(min(sm * 64, max(warps_per_block, config.memory_budget // per_warp), end - start + warps_per_block))
    grid = max(1, nwarps // warps_per_block)
    what = f"{k}-clique counting (stacks of {grid * warps_per_block} warps × {per_warp} bytes)"
    with oom_guard(what):
        counters = cp.zeros(3, dtype=cp.uint64)      # [next item, total, overflow]: a memset, no host copy
    if method == "bitmap":
        null = np.uint64(0)
        size = (np.int32(k), np.int32(maxdeg), np.int32(rcap), *(items if items is not None else (null,) * 3))
    else:
        size = (np.int32(k), np.int32(maxdeg))
    kern = kernel(__package__, "cliques", "clique_count_bitmap" if method == "bitmap" else "clique_count_warp")
    args = (ptr, idx, src, np.int64(end), *size, None, counters[0:1], counters[1:2], counters[2:3])
    stacks = (0, 4 + len(size), grid * warps_per_block * per_warp_ints, cp.int32, what)
    return counters, (kern, (grid,), (warps_per_block * 32,), args, 0), start, stacks
