"""GPU motif census (kernels/census.cu), called by :func:`la_gpm.census` with ``backend="gpu"``.

* :func:`esu_counts` -- induced counts of every connected k-vertex class (k = 3..7) by
  warp-centric ESU enumeration with the class dictionary resident on the GPU.
* :func:`closed_form_noninduced` -- the non-induced k = 3 / 4 counts from the closed-form
  inputs computed on the GPU (degrees, triangles, diamonds, 4-cycles, P4 base; 4-cliques by the
  GPU clique kernel), mirroring ``motifs._closed_form_noninduced``.

Both work on the degree-descending relabelling the CPU census uses (cached on the graph, and
its device copy with it).  Scratch (ESU extension stacks, 4-cycle wedge counters) is sized per
warp and the number of resident warps is chosen so that it fits ``la_gpm.config.memory_budget``
(at least one block of warps runs whatever the budget).  See docs/gpu_census.md.
"""

from __future__ import annotations

import numpy as np

from . import cupy, kernel, oom_guard

WARPS_PER_BLOCK = 4
# resident warps per SM at most (the ESU kernel's registers allow about 50)
WARPS_PER_SM = 48
# k >= 5: a work item is one choice of the third vertex under a forward arc (see census_esu)
SPLIT = 1
# the 4-vertex closed form gives vertices of at least this degree a whole block of HUB_WARPS warps
HUB_DEGREE = 256
HUB_WARPS = 16


def _sm_count(cp):
    return int(cp.cuda.Device().attributes["MultiProcessorCount"])


def device_table(k: int):
    """int16 class row of every k-vertex adjacency bitmask (-1 disconnected), on the current device."""
    cp = cupy()
    return _table(k, cp.cuda.Device().id)


_TABLES: dict = {}


def _table(k, dev):
    key = (k, dev)
    if key not in _TABLES:
        from ...algorithms.motifs import _classes
        cp = cupy()
        t = _classes(k).table
        with oom_guard(f"copying the {k}-vertex class table to the GPU"):
            _TABLES[key] = cp.asarray(t.astype(np.int16))
    return _TABLES[key]


def _device_desc(G):
    """(ptr int64, idx int32, forward-arc sources int32, forward-arc positions int64) of the
    degree-descending relabelling of G, on the current device (cached with the graph)."""
    cp = cupy()
    dev = cp.cuda.Device().id

    def make():
        from ...algorithms.motifs import _descending
        ptr, idx, _ = _descending(G)
        with oom_guard("copying the graph to the GPU"):
            dptr = cp.asarray(np.asarray(ptr, dtype=np.int64))
            didx = cp.asarray(np.asarray(idx, dtype=np.int32))
            n = dptr.shape[0] - 1
            src = cp.repeat(cp.arange(n, dtype=cp.int32), cp.diff(dptr))
            fwd = cp.flatnonzero(didx > src).astype(cp.int64)
            fsrc = src[fwd]
            del src
        return dptr, didx, fsrc, fwd
    return G.device_cache(f"gpu:{dev}:census-desc", make)


def _warps(per_warp_bytes: int, work: int, cp) -> tuple[int, int]:
    """(grid, warps per block): as many resident warps as the memory budget allows, at most
    32 per SM and about one per work item, at least one block."""
    from ...config import config
    cap = _sm_count(cp) * WARPS_PER_SM
    nw = int(min(cap, max(1, config.memory_budget // max(per_warp_bytes, 1)), max(1, work)))
    wpb = min(WARPS_PER_BLOCK, nw)
    return max(1, nw // wpb), wpb


def esu_counts(G, k: int) -> list[int]:
    """Induced counts (Python ints, in class-row order) of every connected k-vertex class, 3 <= k <= 7."""
    from ...algorithms.motifs import _classes
    cp = cupy()
    nclass = len(_classes(k).keys)
    if G.n == 0 or G.m == 0:
        return [0] * nclass
    ptr, idx, fsrc, fwd = _device_desc(G)
    table = device_table(k)
    n = int(ptr.shape[0] - 1)
    maxd = int(G.max_degree)
    nwork = int(fwd.shape[0])
    split = SPLIT if k >= 5 else 0
    if split:
        offs, nitems = _item_offsets(G, split)
    else:
        offs, nitems = fwd, nwork   # offs unused
    per_warp = sum(min((p + 1) * maxd, n) for p in range(1, k - 2))
    grid, wpb = _warps(per_warp * 5, nitems, cp)
    nw = grid * wpb
    what = f"the {k}-vertex census ({nw} warps × {per_warp * 5} bytes of extension stacks)"
    with oom_guard(what):
        vbuf = cp.empty(max(1, nw * per_warp), dtype=cp.int32)
        mbuf = cp.empty(max(1, nw * per_warp), dtype=cp.uint8)
        next_ = cp.zeros(1, dtype=cp.uint64)
        counts = cp.zeros(nclass, dtype=cp.uint64)
        if nitems:
            kernel("census", "census_esu")(
                (grid,), (wpb * 32,),
                (ptr, idx, fsrc, fwd, np.int64(nwork), offs, np.int64(nitems), np.int32(split), np.int32(k),
                 np.int32(n), np.int32(maxd), table, np.int32(nclass), vbuf, mbuf, next_, counts),
                shared_mem=nclass * 8)
        out = counts.get()
    return [int(x) for x in out]


def _item_offsets(G, split):
    """(offs, items): offs[e] = first work item of forward arc e (int64, length arcs + 1) for a given
    split, and the number of items; cached with the graph."""
    cp = cupy()
    dev = cp.cuda.Device().id

    def make():
        ptr, idx, fsrc, fwd = _device_desc(G)
        nwork = int(fwd.shape[0])
        with oom_guard("building the census work items"):
            items = cp.empty(nwork, dtype=cp.int64)
            kernel("census", "esu_item_counts")((max(1, min(4096, (nwork + 255) // 256)),), (256,),
                                                (ptr, idx, fsrc, fwd, np.int64(nwork), np.int32(split), items))
            offs = cp.zeros(nwork + 1, dtype=cp.int64)
            cp.cumsum(items, out=offs[1:])
        return offs, int(offs[-1].get())
    return G.device_cache(f"gpu:{dev}:census-items:{split}", make)


def census4_inputs(G) -> tuple[int, int, int, int, int]:
    """(Σ_e C(t_e, 2), 4-cycles, triangles, Σ_uv (d_u-1)(d_v-1), Σ over triangles of the degrees of
    their vertices) on the GPU, as Python ints."""
    cp = cupy()
    if G.n == 0 or G.m == 0:
        return 0, 0, 0, 0, 0
    from ...config import config
    ptr, idx, _, _ = _device_desc(G)
    n = int(ptr.shape[0] - 1)
    # degree-descending ids: the hubs are the prefix 0 .. hubs-1
    hubs = int(np.count_nonzero(G.degrees >= HUB_DEGREE))
    grid, wpb = _warps(n * 4, n - hubs, cp)
    nw = grid * wpb
    hub_grid = int(min(hubs, _sm_count(cp) * 2, max(1, config.memory_budget // (n * 4))))
    slices = max(nw, hub_grid)
    kern = kernel("census", "census4_closed")
    with oom_guard(f"the 4-vertex closed form ({slices} slices × {n * 4} bytes of wedge counters)"):
        wedge = cp.zeros(slices * n, dtype=cp.uint32)
        next_ = cp.zeros(2, dtype=cp.uint64)
        acc = cp.zeros(5, dtype=cp.uint64)
        if hubs:
            kern((hub_grid,), (HUB_WARPS * 32,),
                 (ptr, idx, np.int32(n), np.int32(0), np.int32(hubs), np.int32(1), wedge, next_[0:1], acc))
        if hubs < n:
            kern((grid,), (wpb * 32,),
                 (ptr, idx, np.int32(n), np.int32(hubs), np.int32(n), np.int32(0), wedge, next_[1:2], acc))
        out = acc.get()
    return tuple(int(x) for x in out)


def closed_form_noninduced(G, k: int) -> list[int]:
    """Non-induced counts of the k = 3 or 4 classes (class-row order), closed forms on the GPU."""
    from ...algorithms.motifs import _check_safe, _classes, _deg_binomial_sum
    from .cliques import clique_count
    from .triangles import triangle_count

    deg = G.degrees
    if k == 3:
        T = triangle_count(G) if G.m else 0
        return [_deg_binomial_sum(deg, 2), T]
    _check_safe(G)
    dia, c4, T, p4base, tdeg = census4_inputs(G)
    k4 = clique_count(G, 4) if G.m else 0
    N = {"4-path": p4base - 3 * T, "4-star": _deg_binomial_sum(deg, 3), "4-cycle": c4,
         "tailed-triangle": tdeg - 6 * T, "diamond": dia, "4-clique": k4}
    return [N[nm] for nm in _classes(4).names]
