"""GPU motif census (la_gpm/motifs/census.cu), called by :func:`la_gpm.census` with ``backend="gpu"``.

* :func:`esu_counts` -- induced counts of every connected k-vertex class (k = 3..8) by
  warp-centric ESU enumeration with the class dictionary resident on the GPU (k = 8, ``census_esu8``: the
  CPU's two-level class lookup on the device; ``la_gpm.census(G, 8, backend="gpu")``).
* :func:`closed_form_noninduced` -- the non-induced k = 3 / 4 counts from the closed-form
  inputs computed on the GPU (degrees, triangles, diamonds, 4-cycles, P4 base; 4-cliques by the
  GPU clique kernel), mirroring ``closed_forms.closed_form_noninduced``. Small graphs (whose per-block
  state fits ``SMALL_SHARED_BYTES`` of shared memory) take :func:`small_inputs` instead: one
  ``census_small`` launch (4-cliques fused) and one 48-byte copy back.
* :func:`directed_esu_counts` -- the directed census (k = 3, 4; ``la_gpm.census(D, k, backend="gpu")`` for a
  directed D): the same ESU kernel instantiated for two direction bits per vertex pair
  (``census_esu_directed``) over the underlying graph of :func:`la_gpm.motifs.directed.underlying`, with a
  per-arc direction array and the directed class table (docs/gpu_census.md).
* :func:`sigma4` / :func:`hybrid5_noninduced` -- the 5-vertex hybrid (``census5.cu``): per-vertex
  4-vertex orbit sums (also behind ``la_gpm.orbits(..., backend="gpu")``) and every C5, K2,3 and
  bowtie copy, classified.
* :func:`orbits5_gpu` / :func:`orbit5_features_gpu` -- ``la_gpm.orbits(G, 5, backend="gpu")`` (``orbits5.cu``): the
  per-arc triangle lists, the 58 ORCA-style feature sums of every vertex (a warp per vertex, a block per hub,
  one scratch slice each) and the triangular solve of ``orbits5.solve_orbits5``, one thread per vertex.

Both work on the degree-descending relabelling the CPU census uses (cached on the graph, and
its device copy with it).  Scratch (ESU extension stacks, 4-cycle wedge counters) is sized per
warp and the number of resident warps is chosen so that it fits ``la_gpm.config.memory_budget``
(at least one block of warps runs whatever the budget).  See docs/gpu_census.md.
"""

from __future__ import annotations

import numpy as np

from ..device import block_size, cupy, kernel, oom_guard, sm_count
from ..patterns.classes import classes, to_induced
from .closed_forms import sigma4_columns
from .common import check_safe, deg_binomial_sum, degree_binomials, descending, exact_sum
from .hybrid import dense_copy_counts, hybrid5_solve

WARPS_PER_BLOCK = 4
# resident warps per SM at most (the ESU kernel's registers allow about 50)
WARPS_PER_SM = 48
# k >= 5: a work item is one choice of the third vertex under a forward arc (see census_esu)
SPLIT = 1
# the 4-vertex closed form gives vertices of at least this degree a whole block of HUB_WARPS warps
HUB_DEGREE = 256
HUB_WARPS = 16
# census4_inputs keeps its zeroed wedge counters with the graph up to this size (small graphs: no memset)
WEDGE_CACHE_BYTES = 64 << 20




def device_table(k: int):
    """int16 class row of every k-vertex adjacency bitmask (-1 disconnected), on the current device."""
    cp = cupy()
    return _table(k, cp.cuda.Device().id)


_TABLES: dict = {}


def _table(k, dev):
    key = (k, dev)
    if key not in _TABLES:
        cp = cupy()
        t = classes(k).table
        with oom_guard(f"copying the {k}-vertex class table to the GPU"):
            _TABLES[key] = cp.asarray(t.astype(np.int16))
    return _TABLES[key]


def _device_desc(G):
    """(ptr int64, idx int32, forward-arc sources int32, forward-arc positions int64) of the
    degree-descending relabelling of G, on the current device (cached with the graph)."""
    cp = cupy()
    dev = cp.cuda.Device().id

    def make():
        ptr, idx, _ = descending(G)
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


def _warps(per_warp_bytes: int, work: int, cp, wpb_max: int = WARPS_PER_BLOCK) -> tuple[int, int]:
    """(grid, warps per block): as many resident warps as the memory budget allows, at most
    32 per SM and about one per work item, at least one block."""
    from ..config import config
    cap = sm_count() * WARPS_PER_SM
    nw = int(min(cap, max(1, config.memory_budget // max(per_warp_bytes, 1)), max(1, work)))
    wpb = min(wpb_max, nw)
    return max(1, nw // wpb), wpb


def esu_counts(G, k: int) -> list[int]:
    """Induced counts (Python ints, in class-row order) of every connected k-vertex class, 3 <= k <= 8.

    k <= 7: ``census_esu`` with the k-vertex class table on the device (u64 class counters in shared memory).
    k = 8: ``census_esu8``, the same enumeration with the CPU's two-level class lookup of
    :func:`la_gpm.motifs.census8.classes8` (cls7, perm7, qperm, cls8 on the device) in place of a 2^28-entry
    table, u32 class counters in shared memory (spilled to the global u64 ones) and ``ESU8_WARPS_PER_BLOCK``."""
    if k == 8:
        from .census8 import classes8
        nclass = len(classes8().keys)
    else:
        nclass = len(classes(k).keys)
    if G.n == 0 or G.m == 0:
        return [0] * nclass
    with _stage(f"esu{k}: cached device data and launch shape (host)"):
        ptr, idx, fsrc, fwd = _device_desc(G)
        n = int(ptr.shape[0] - 1)
        maxd = int(G.max_degree)
        nwork = int(fwd.shape[0])
        split = SPLIT if k >= 5 else 0
        if split:
            offs, nitems = _item_offsets(G, split)
        else:
            offs, nitems = fwd, nwork   # offs unused
        head = (ptr, idx, fsrc, fwd, np.int64(nwork), offs, np.int64(nitems), np.int32(split))
        if k == 8:
            kname, lookup, cbytes, wpb = "census_esu8", _tables8(cupy().cuda.Device().id), 4, ESU8_WARPS_PER_BLOCK
            shape = (np.int32(n), np.int32(maxd))
        else:
            kname, lookup, cbytes, wpb = "census_esu", (device_table(k),), 8, WARPS_PER_BLOCK
            shape = (np.int32(k), np.int32(n), np.int32(maxd))
        fn = kernel(__package__, "census", kname)
    return _esu_launch(f"the {k}-vertex census", f"esu{k}", kname, k, n, maxd, nitems, nclass,
                       lambda grid, block, vbuf, mbuf, next_, counts: fn(
                           grid, block, head + shape + lookup + (np.int32(nclass), vbuf, mbuf, next_, counts),
                           shared_mem=nclass * cbytes), wpb_max=wpb)


def _esu_launch(what, stage, kname, k, n, maxd, nitems, nclass, launch, wpb_max=WARPS_PER_BLOCK) -> list[int]:
    """One launch of an ESU census kernel: extension stacks for as many warps as ``config.memory_budget`` allows
    (level p holds at most min((p + 1) maxd, n) candidates), one memset for the item counter and the class
    counters, ``launch(grid, block, vbuf, mbuf, next_, counts)``, the counts back as Python ints."""
    cp = cupy()
    per_warp = sum(min((p + 1) * maxd, n) for p in range(1, k - 2))
    grid, wpb = _warps(per_warp * 5, nitems, cp, wpb_max)
    nw = grid * wpb
    with oom_guard(f"{what} ({nw} warps × {per_warp * 5} bytes of extension stacks)"):
        with _stage(f"{stage}: allocations and one memset"):
            vbuf = cp.empty(max(1, nw * per_warp), dtype=cp.int32)
            mbuf = cp.empty(max(1, nw * per_warp), dtype=cp.uint8)
            buf = cp.zeros(nclass + 1, dtype=cp.uint64)    # one memset: the item counter, then the classes
            next_, counts = buf[:1], buf[1:]
        with _stage(f"{stage}: {kname} kernel (launch to completion)"):
            if nitems:
                launch((grid,), (wpb * 32,), vbuf, mbuf, next_, counts)
        with _stage(f"{stage}: copy back"):
            out = counts.get()
    return [int(x) for x in out]


# census_esu8: 11,117 u32 class counters per block (44 KB of shared memory); 16 warps a block, three blocks an SM
# by the registers (about 40 a thread): 48 warps resident, as census_esu
ESU8_WARPS_PER_BLOCK = 16


def _tables8(dev):
    """The two-level lookup of :func:`la_gpm.motifs.census8.classes8` on device ``dev`` (about 9 MB, uploaded
    once per device): cls7 int16 [2^21], perm7 int16 [2^21], qperm uint8 [5040 x 128], cls8 int32."""
    key = ("census8", dev)
    if key not in _TABLES:
        from .census8 import classes8
        cp = cupy()
        cls7, perm7, qperm, cls8 = classes8().table
        with oom_guard("copying the 8-vertex class lookup to the GPU"):
            _TABLES[key] = (cp.asarray(np.asarray(cls7, dtype=np.int16)), cp.asarray(np.asarray(perm7, dtype=np.int16)),
                            cp.asarray(np.ascontiguousarray(qperm, dtype=np.uint8)),
                            cp.asarray(np.asarray(cls8, dtype=np.int32)))
    return _TABLES[key]


def directed_host_arrays(U):
    """(ptr int64, idx int32, dirs uint8, forward-arc sources int32, forward-arc positions int64, max degree) of
    the underlying undirected graph of a directed graph, as ``census_esu_directed`` takes them (host numpy).
    ``U`` = (ptr, idx, dirs, ...) is :func:`la_gpm.motifs.directed.underlying`'s: the CPU directed census's
    degree-descending relabelling (ties by id, rows sorted; the rule :func:`la_gpm.motifs.common.descending`
    applies to an undirected graph), ``dirs[j]`` the directions of the arc j = (w, idx[j]) of row w: bit 0 when
    the digraph has w -> idx[j], bit 1 when it has idx[j] -> w. A forward arc (r, v), v > r, is one work item.

    >>> import la_gpm
    >>> from la_gpm.motifs.directed import underlying
    >>> D = la_gpm.Graph.from_edges([0, 1, 2], [1, 2, 1], directed=True)      # 0 -> 1 <-> 2
    >>> ptr, idx, dirs, fsrc, fwd, maxd = directed_host_arrays(underlying(D))
    >>> ptr.tolist(), idx.tolist(), dirs.tolist(), fsrc.tolist(), fwd.tolist(), maxd
    ([0, 2, 3, 4], [1, 2, 0, 0], [2, 3, 1, 3], [0, 0], [0, 1], 2)
    """
    ptr, idx, dirs = U[0], U[1], U[2]
    n = ptr.shape[0] - 1
    ptr = np.asarray(ptr, dtype=np.int64)
    idx = np.asarray(idx, dtype=np.int32)
    dirs = np.asarray(dirs, dtype=np.uint8)
    deg = np.diff(ptr)
    src = np.repeat(np.arange(n, dtype=np.int32), deg)
    fwd = np.flatnonzero(idx > src).astype(np.int64)
    return ptr, idx, dirs, src[fwd], fwd, int(deg.max()) if n else 0


def _device_directed(D, U):
    """:func:`directed_host_arrays` of ``U`` (D's underlying graph) on the current device (the max degree stays a
    Python int), cached with D."""
    cp = cupy()
    dev = cp.cuda.Device().id

    def make():
        ptr, idx, dirs, fsrc, fwd, maxd = directed_host_arrays(U)
        with oom_guard("copying the directed graph to the GPU"):
            return tuple(cp.asarray(a) for a in (ptr, idx, dirs, fsrc, fwd)) + (maxd,)
    return D.device_cache(f"gpu:{dev}:census-directed", make)


def device_directed_table(k: int, table):
    """The directed class table ``table`` of k vertices (directed code -> class row, -1 not weakly connected;
    ``la_gpm.motifs.directed.directed_classes(k).table``, 64 / 4096 entries) as int16 on the current device,
    uploaded once per device."""
    cp = cupy()
    key = ("directed", k, cp.cuda.Device().id)
    if key not in _TABLES:
        with oom_guard(f"copying the directed {k}-vertex class table to the GPU"):
            _TABLES[key] = cp.asarray(np.asarray(table).astype(np.int16))
    return _TABLES[key]


def directed_esu_counts(D, U, k: int, table, nclass: int) -> list[int]:
    """Induced counts (Python ints, in class-row order) of every weakly connected directed k-vertex class of the
    directed graph D, k = 3 or 4: ``census_esu_directed`` over ``U`` (D's underlying graph,
    :func:`la_gpm.motifs.directed.underlying`) with the directed class table ``table`` (``nclass`` rows), one
    work item per forward arc, extension stacks sized and warps chosen within ``config.memory_budget`` as
    :func:`esu_counts`. Called by ``la_gpm.motifs.directed.directed_census``."""
    if k not in (3, 4) or len(table) != 1 << (k * (k - 1)):
        raise ValueError(f"directed_esu_counts: k must be 3 or 4 with a table of 2^(k(k-1)) codes; got k={k}, "
                         f"{len(table)} codes")
    if D.n == 0 or D.m == 0:
        return [0] * nclass
    with _stage("directed esu: cached device data and launch shape (host)"):
        ptr, idx, dirs, fsrc, fwd, maxd = _device_directed(D, U)
        dtable = device_directed_table(k, table)
        n = int(ptr.shape[0] - 1)
        nwork = int(fwd.shape[0])
    return _esu_launch(f"the directed {k}-vertex census", "directed esu", "census_esu_directed", k, n, maxd, nwork,
                       nclass, lambda grid, block, vbuf, mbuf, next_, counts: kernel(
                           __package__, "census", "census_esu_directed")(
                           grid, block,
                           (ptr, idx, dirs, fsrc, fwd, np.int64(nwork), np.int32(k), np.int32(n), np.int32(maxd),
                            dtable, np.int32(nclass), vbuf, mbuf, next_, counts), shared_mem=nclass * 8))


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
            bs = block_size()
            kernel(__package__, "census", "esu_item_counts")((max(1, min(4096, -(-nwork // bs))),), (bs,),
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
    from ..config import config
    ptr, idx, _, _ = _device_desc(G)
    n = int(ptr.shape[0] - 1)
    # degree-descending ids: the hubs are the prefix 0 .. hubs-1
    hubs = int(np.count_nonzero(G.degrees >= HUB_DEGREE))
    grid, wpb = _warps(n * 4, n - hubs, cp)
    nw = grid * wpb
    hub_grid = int(min(hubs, sm_count() * 2, max(1, config.memory_budget // (n * 4))))
    slices = max(nw, hub_grid)
    kern = kernel(__package__, "census", "census4_closed")
    with oom_guard(f"the 4-vertex closed form ({slices} slices × {n * 4} bytes of wedge counters)"):
        if slices * n * 4 <= WEDGE_CACHE_BYTES:
            # the kernel leaves every counter it touched at zero: small graphs keep one zeroed buffer
            wedge = G.device_cache(f"gpu:{cp.cuda.Device().id}:census4-wedge:{slices}",
                                   lambda: cp.zeros(slices * n, dtype=cp.uint32))
        else:
            wedge = cp.zeros(slices * n, dtype=cp.uint32)
        buf = cp.zeros(7, dtype=cp.uint64)      # one memset: two item counters, five sums
        next_, acc = buf[:2], buf[2:]
        if hubs:
            kern((hub_grid,), (HUB_WARPS * 32,),
                 (ptr, idx, np.int32(n), np.int32(0), np.int32(hubs), np.int32(1), wedge, next_[0:1], acc))
        if hubs < n:
            kern((grid,), (wpb * 32,),
                 (ptr, idx, np.int32(n), np.int32(hubs), np.int32(n), np.int32(0), wedge, next_[1:2], acc))
        out = acc.get()
    return tuple(int(x) for x in out)


# closed forms k = 3 / 4: graphs whose census_small shared state per block (N(u) bitmap, one bitmap per
# warp, n wedge counters) fits in this many bytes run in ONE launch with ONE 48-byte copy back (0: never,
# the global-counter path census4_closed + cliques.cu / triangles for every graph)
SMALL_SHARED_BYTES = (48 << 10) - 256
# k = 3 (triangles only) takes census_small up to this many arcs, triangles.cu beyond: measured on the
# H100 (census_small_gpu.json) census 0.12 against 0.17 ms on citeseer (9,072 arcs), 0.20 against 0.17 ms
# on email-Eu-core (32,128) and 1.16 against 0.50 ms on R-MAT 16 (1.8 M arcs)
SMALL_K3_MAX_ARCS = 16_384
_SMALL_SCRATCH: dict = {}
_SMALL_REGS: dict = {}


def small_shape(G, k: int):
    """(warps per block, dynamic shared bytes) of census_small for G and k = 3 or 4, or None where its
    shared state does not fit ``SMALL_SHARED_BYTES``: 16 warps a block where the largest degree is at
    least 256 (hub rows split over more warps), 8 from 64, else 4.

    >>> import la_gpm
    >>> small_shape(la_gpm.datasets.load("karate"), 4)     # 2 bitmap words × 5 + 34 counters
    (4, 176)
    """
    n = G.n
    nwords = (n + 31) // 32
    maxd = G.max_degree
    for wpb in ((16, 8, 4) if maxd >= 256 else (8, 4) if maxd >= 64 else (4,)):
        words = nwords if k == 3 else nwords * (1 + wpb) + n
        if 4 * words <= SMALL_SHARED_BYTES:
            return wpb, 4 * words
    return None


def _small_scratch(cp):
    """(key, buffer): the 8 zeroed uint64 census_small needs (vertex counter, block tickets, six sums),
    one per device and stream; the kernel leaves it zeroed again."""
    key = (cp.cuda.Device().id, cp.cuda.get_current_stream().ptr)
    buf = _SMALL_SCRATCH.get(key)
    if buf is None:
        with oom_guard("the small-graph census counters"):
            buf = _SMALL_SCRATCH[key] = cp.zeros(8, dtype=cp.uint64)
    return key, buf


def small_inputs(G, k: int) -> tuple[int, int, int, int, int, int]:
    """(Σ_e C(t_e, 2), 4-cycles, triangles, Σ_uv (d_u-1)(d_v-1), Σ over triangles of their degrees,
    4-cliques) of a graph :func:`small_shape` accepts, by census_small (k = 3: triangles only, the rest 0):
    one launch, one copy back, as Python ints."""
    cp = cupy()
    shape = small_shape(G, k)
    if shape is None:
        raise ValueError(f"census_small: n = {G.n} needs more than SMALL_SHARED_BYTES = {SMALL_SHARED_BYTES}")
    if G.m == 0:
        return 0, 0, 0, 0, 0, 0
    wpb, shm = shape
    n = G.n
    ptr, idx, _, _ = _device_desc(G)
    kern = kernel(__package__, "census", "census_small")
    dev = cp.cuda.Device().id
    regs = _SMALL_REGS.get(dev)
    if regs is None:
        try:
            regs = max(1, int(kern.num_regs))
        except Exception:  # noqa: BLE001 -- an older CuPy without the attribute: assume the most
            regs = 64
        _SMALL_REGS[dev] = regs
    threads = wpb * 32
    per_sm = max(1, min(2048 // threads, 65536 // (regs * threads), (227 << 10) // (shm + 1024), 32))
    grid = int(min(n, sm_count() * per_sm))
    key, scratch = _small_scratch(cp)
    with oom_guard("the small-graph closed-form census"):
        out = cp.empty(6, dtype=cp.uint64)
        try:
            kern((grid,), (threads,), (ptr, idx, np.int32(n), np.int32((n + 31) // 32), np.int32(k), scratch, out),
                 shared_mem=shm)
            h = out.get()
        except BaseException:
            _SMALL_SCRATCH.pop(key, None)     # a launch that did not finish may leave the counters set
            raise
    return tuple(int(x) for x in h)


def closed_form_noninduced(G, k: int) -> list[int]:
    """Non-induced counts of the k = 3 or 4 classes (class-row order), closed forms on the GPU.

    Small graphs (:func:`small_shape`): census_small, one launch and one copy back; degree binomial
    sums from the host (cached with the graph). Larger: census4_closed (global wedge counters) and
    the 4-cliques of cliques.cu; k = 3 the triangles of triangles.cu."""
    wedges, stars = degree_binomials(G)
    if k == 3:
        if not G.m:
            return [wedges, 0]
        if G.nnz <= SMALL_K3_MAX_ARCS and small_shape(G, 3) is not None:
            with _stage("closed form 3: census_small (launch, kernel, copy back)"):
                return [wedges, small_inputs(G, 3)[2]]
        # a graph past census_small: its triangles by the launches kept with it (the binding shared with la_gpm.count's
        # repeat counts; each call used to build the schedule and look the kernels up again)
        from ..triangles.gpu import repeat_count
        return [wedges, repeat_count(G)()]
    check_safe(G)
    if G.m and small_shape(G, 4) is not None:
        with _stage("closed form 4: census_small (launch, kernel, copy back)"):
            dia, c4, T, p4base, tdeg, k4 = small_inputs(G, 4)
    else:
        from ..kcliques.gpu import clique_count
        with _stage("closed form 4: census4_inputs (launches, kernel, copy back)"):
            dia, c4, T, p4base, tdeg = census4_inputs(G)
        with _stage("closed form 4: 4-cliques (cliques.cu)"):
            k4 = clique_count(G, 4) if G.m else 0
    N = {"4-path": p4base - 3 * T, "4-star": stars, "4-cycle": c4,
         "tailed-triangle": tdeg - 6 * T, "diamond": dia, "4-clique": k4}
    return [N[nm] for nm in classes(4).names]


# --------------------------------------------------------------------------- 5-vertex hybrid (census5.cu)

# c5_vertex / c5_k23_pairs give vertices of at least this degree a whole block of HUB_WARPS warps
C5_HUB_DEGREE = 256
# c5_c5: positions of b in N(a) per work item under a forward arc (u, a)
C5_SPLIT = 8
# c5_k23: a hub pair with at least this many common neighbours gets one work item per first element
K23_SPLIT = 48
# c5_k23_bulk: a hub pair with at least this many common neighbours has its K2,3 copies counted per class
# from the edges, 2-paths and triangles inside its common list (O(c²) searches) instead of listed (C(c, 3));
# each work item takes K23_BULK_X of the list's vertices (docs/gpu_census.md)
K23_BULK = 8
K23_BULK_X = 32
# c5_bowtie_bulk: a hub with at least BOWTIE_BULK edges inside N(u) has its bowties counted per class from a
# bit matrix of G[N(u)] (about C(d_u, 2)·ceil(d_u / 32) word operations) instead of listed (C(m_u, 2) pairs,
# four binary searches each) when BOWTIE_BULK_RATIO·C(m_u, 2) >= C(d_u, 2)·ceil(d_u / 32) (docs/gpu_census.md)
BOWTIE_BULK = 64
BOWTIE_BULK_RATIO = 4


def _c5(name):
    return kernel(__package__, "census5", name)


# benchmarks set this to a dict to get the seconds of each stage of the hybrid (device synchronised
# around every stage, so the total is a little above an unprofiled run's)
PROFILE = None


class _stage:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        if PROFILE is not None:
            import time
            cupy().cuda.Device().synchronize()
            self.t = time.perf_counter()

    def __exit__(self, *exc):
        if PROFILE is not None and exc[0] is None:
            import time
            cupy().cuda.Device().synchronize()
            PROFILE[self.name] = PROFILE.get(self.name, 0.0) + time.perf_counter() - self.t


def _groups(per_group_bytes: int, n: int, hubs: int, cp):
    """(grid, wpb, hub_grid) for a per-vertex kernel with one scratch slice per warp (non-hubs) or per
    block (hubs), within the memory budget."""
    from ..config import config
    grid, wpb = _warps(per_group_bytes, n - hubs, cp)
    hub_grid = int(min(hubs, sm_count() * 2, max(1, config.memory_budget // max(per_group_bytes, 1))))
    return grid, wpb, hub_grid


def _per_vertex(kern, G, per_group_bytes, make_args, hub_degree=None, hub_warps=None):
    """Run a per-vertex kernel (c5_vertex, c5_k23_pairs, o5_features): hubs (degree >= ``hub_degree``, default
    C5_HUB_DEGREE; the first ids) one block of ``hub_warps`` (default HUB_WARPS) warps each, the rest one warp
    each; make_args(slices) -> (buffers, args before/after the range) is called once with the number of scratch
    slices to allocate."""
    cp = cupy()
    n = G.n
    hubs = int(np.count_nonzero(G.degrees >= (C5_HUB_DEGREE if hub_degree is None else hub_degree)))
    grid, wpb, hub_grid = _groups(per_group_bytes, n, hubs, cp)
    slices = max(grid * wpb, hub_grid if hubs else 0)
    head, tail = make_args(slices)
    next_ = cp.zeros(2, dtype=cp.uint64)
    if hubs:
        kern((hub_grid,), ((HUB_WARPS if hub_warps is None else hub_warps) * 32,),
             head + (np.int32(0), np.int32(hubs), np.int32(1)) + tail(next_[0:1]))
    if hubs < n:
        kern((grid,), (wpb * 32,), head + (np.int32(hubs), np.int32(n), np.int32(0)) + tail(next_[1:2]))


def sigma4(G):
    """(σ, k23hub) of the degree-descending relabelling: σ the (n, 15) int64 non-induced per-vertex
    4-vertex orbit counts (ORCA order, as ``closed_forms.noninduced_orbits``), k23hub[v] the K2,3 copies with v on the
    2-side. Per-arc triangles, 4-cycles, K2,3 hubs, diamond wings, 4-cliques through each vertex and
    the neighbour sums of ``closed_forms.noninduced_orbits`` on the GPU (7 + 4 values per vertex come back), the
    linear combinations on the host."""
    cp = cupy()
    n = G.n
    s = np.zeros((n, 15), dtype=np.int64)
    if n == 0 or G.m == 0:
        s[:, 0] = G.degrees
        return s, np.zeros(n, dtype=np.int64)
    hptr = descending(G)[0]
    ptr, idx, fsrc, fwd = _device_desc(G)
    nfwd = int(fwd.shape[0])
    nnz = int(idx.shape[0])
    maxd = int(G.max_degree)
    nwords = (n + 31) // 32
    with oom_guard("the 5-vertex hybrid's per-vertex orbit counts"):
        te = cp.empty(nnz, dtype=cp.int32)
        with _stage("c5_arc_tri"):
            grid = max(1, min(nfwd, sm_count() * 64) // WARPS_PER_BLOCK)
            _c5("c5_arc_tri")((grid,), (WARPS_PER_BLOCK * 32,), (ptr, idx, fsrc, fwd, np.int64(nfwd), te))
        vert = cp.zeros(3 * n, dtype=cp.uint64)

        def vargs(slices):
            cnt = cp.zeros(slices * n, dtype=cp.uint32)
            bits = cp.zeros(slices * nwords, dtype=cp.uint32)
            return (ptr, idx, te, np.int32(n)), lambda nx: (cnt, bits, np.int64(nwords), nx, vert)
        with _stage("c5_vertex"):
            _per_vertex(_c5("c5_vertex"), G, 4 * (n + nwords), vargs)
        k4 = cp.zeros(n, dtype=cp.uint64)
        with _stage("c5_k4"):
            kg, kw = _warps(4 * maxd, nfwd, cp)
            scratch = cp.empty(kg * kw * maxd, dtype=cp.int32)
            _c5("c5_k4")((kg,), (kw * 32,), (ptr, idx, fsrc, fwd, np.int64(nfwd), scratch, np.int64(maxd),
                                             cp.zeros(1, dtype=cp.uint64), k4))
        with _stage("c5_vertex_sums"):
            sums = cp.empty(7 * n, dtype=cp.uint64)
            vg = max(1, min(n, sm_count() * 64) // WARPS_PER_BLOCK)
            for phase, (lo, hi) in enumerate(((0, 3 * n), (3 * n, 7 * n))):
                _c5("c5_vertex_sums")((vg,), (WARPS_PER_BLOCK * 32,),
                                      (ptr, idx, te, np.int32(n), np.int32(phase), sums[0:3 * n], sums[lo:hi]))
        with _stage("sigma4: copy back"):
            vert_h = vert.get().view(np.int64).reshape(n, 3)
            k4_h = k4.get().view(np.int64)
            sums_h = sums.get().view(np.int64)
    d = np.diff(hptr).astype(np.int64)
    v0 = sums_h[:3 * n].reshape(n, 3)
    v1 = sums_h[3 * n:].reshape(n, 4)
    # v0 = (t_v, s1, Σ_u C(d_u - 1, 2)), v1 = (the three arc-weighted sums, Σ_u s1(u)),
    # vert = (4-cycles, K2,3 hub, diamond wings): the CPU's ingredients, assembled by the same function
    sigma4_columns(s, d, v0[:, 1], v0[:, 0], v1[:, 3], v0[:, 2], vert_h[:, 0], k4_h, vert_h[:, 2], v1[:, :3])
    return s, vert_h[:, 1].copy()


def c5_item_offsets(ptr, idx, fwd, split):
    """offs[e] = first C5 work item of forward arc e = (u, a): ceil(d_a / split) items each (numpy or
    CuPy arrays alike), length arcs + 1: offs[-1] is the number of items.

    >>> import numpy as np
    >>> ptr = np.array([0, 2, 3, 4]); idx = np.array([1, 2, 0, 0], dtype=np.int32)
    >>> c5_item_offsets(ptr, idx, np.array([0, 1]), 1).tolist()     # arcs 0->1, 0->2: rows of 1 and 2
    [0, 1, 2]
    """
    xp = _xp(ptr)
    a = idx[fwd]
    da = (ptr[a + 1] - ptr[a]).astype(np.int64)
    offs = xp.zeros(fwd.shape[0] + 1, dtype=np.int64)
    xp.cumsum((da + split - 1) // split, out=offs[1:])
    return offs


def k23_item_offsets(pc, split):
    """offs[p] = first work item of hub pair p with pc[p] common neighbours: one item per pair below
    ``split`` common neighbours, else one per choice of the first of the three (pc - 2).

    >>> import numpy as np
    >>> k23_item_offsets(np.array([3, 50, 4]), 48).tolist()
    [0, 1, 49, 50]
    """
    xp = _xp(pc)
    c = pc.astype(np.int64)
    items = xp.where(c >= split, c - 2, 1)
    offs = xp.zeros(c.shape[0] + 1, dtype=np.int64)
    xp.cumsum(items, out=offs[1:])
    return offs


def bowtie_batches(toffs, cap):
    """Vertex ranges [u0, u1) whose lists of edges inside N(u) (toffs: their offsets, numpy) hold at
    most ``cap`` entries together (a single vertex with more is a range alone)."""
    n = len(toffs) - 1
    out = []
    u0 = 0
    while u0 < n:
        u1 = int(np.searchsorted(toffs, toffs[u0] + cap, side="right")) - 1
        u1 = min(n, max(u1, u0 + 1))
        out.append((u0, u1))
        u0 = u1
    return out


def bowtie_bulk_hubs(tv, deg, max_words):
    """The hubs (ids of the degree-descending relabelling, ascending) whose bowties c5_bowtie_bulk counts:
    ``tv`` the edges inside each N(u), ``deg`` the degrees; a hub's bit matrix (d_u·ceil(d_u / 32) words)
    must fit ``max_words``.

    >>> import numpy as np
    >>> bowtie_bulk_hubs(np.array([5000, 70, 64, 10**6]), np.array([200, 100, 12, 3000]), 1 << 30).tolist()
    [0, 2, 3]
    """
    m = np.asarray(tv, dtype=np.float64)
    d = np.asarray(deg, dtype=np.float64)
    w = np.ceil(d / 32)
    pick = (m >= BOWTIE_BULK) & (BOWTIE_BULK_RATIO * m * (m - 1) / 2 >= d * (d - 1) / 2 * w) & (d * w <= max_words)
    return np.flatnonzero(pick)


def bowtie_bulk_batches(deg_hubs, max_words):
    """Ranges [h0, h1) of the bulk hubs whose bit matrices (d·ceil(d / 32) words each) fit ``max_words``
    together (each hub alone fits, :func:`bowtie_bulk_hubs`)."""
    d = np.asarray(deg_hubs, dtype=np.int64)
    words = d * ((d + 31) // 32)
    offs = np.concatenate([[0], np.cumsum(words)])
    return bowtie_batches(offs, max_words)


def _bowtie_bulk(G, hubs_h, deg_h, tv_h, nclass):
    """The bowtie hits per class (Python ints, 5-class rows) of the hubs ``hubs_h`` (host ids of the
    degree-descending relabelling, degrees ``deg_h``, ``tv_h`` edges inside their neighbourhoods):
    c5_bowtie_rows builds each hub's bit matrix of G[N(u)], c5_bowtie_bulk sums the non-induced
    2K2 ... K4 ingredients, the host inverts them."""
    from ..config import config
    cp = cupy()
    ptr, idx, _, _ = _device_desc(G)
    acc = cp.zeros(7, dtype=cp.uint64)
    for h0, h1 in bowtie_bulk_batches(deg_h, config.memory_budget // 8):
        d = deg_h[h0:h1].astype(np.int64)
        roffs = np.concatenate([[0], np.cumsum(d)])
        boff = np.concatenate([[0], np.cumsum(d * ((d + 31) // 32))])
        nh, nrows = h1 - h0, int(roffs[-1])
        hubs = cp.asarray(hubs_h[h0:h1].astype(np.int32))
        roffs_d, boff_d = cp.asarray(roffs), cp.asarray(boff)
        bits = cp.zeros(int(boff[-1]), dtype=cp.uint32)
        ldeg = cp.empty(nrows, dtype=cp.int32)
        grid = max(1, min(nrows, sm_count() * 64) // WARPS_PER_BLOCK)
        _c5("c5_bowtie_rows")((grid,), (WARPS_PER_BLOCK * 32,),
                              (ptr, idx, hubs, np.int64(nh), roffs_d, np.int64(nrows), boff_d, bits, ldeg))
        bg, bw = _warps(1, nrows, cp)
        _c5("c5_bowtie_bulk")((bg,), (bw * 32,), (ptr, hubs, np.int64(nh), roffs_d, np.int64(nrows), boff_d, bits,
                                                  ldeg, cp.zeros(1, dtype=cp.uint64), acc))
        del bits, ldeg
    p2, p4raw, dia, tri3, paw2, k4, c4x2 = (int(x) for x in acc.get())
    return bowtie_class_hits(tv_h, p2, p4raw, dia, tri3, paw2, k4, c4x2, nclass)


def bowtie_class_hits(tv_hubs, p2, p4raw, dia, tri3, paw2, k4, c4x2, nclass):
    """Per-class hits (Python ints) from c5_bowtie_bulk's sums over the hubs with ``tv_hubs`` edges inside
    their neighbourhoods: the same inversion as the CPU's bulk rule (motif_kernels.bowtie_bulk_hits)."""
    from .cpu import bowtie_bulk_hits, bowtie_class_rows
    n2k2 = sum(int(m) * (int(m) - 1) // 2 for m in tv_hubs) - p2
    tri = tri3 // 3
    w = bowtie_bulk_hits.py_func(n2k2, p4raw - 3 * tri, c4x2 // 2, paw2 // 2, dia, k4)
    hits = [0] * nclass
    for r, x in zip(bowtie_class_rows(np.asarray(classes(5).table)).tolist(), w):
        hits[r] += x
    return hits


def _k23_rows():
    """The 8 class rows of a K2,3 copy by 4·[u ~ v] + the edges among x, y, z (int64, on the current
    device, uploaded once per device as the class tables are): the CPU hybrid's bulk rule's rows."""
    cp = cupy()
    key = ("k23-rows", cp.cuda.Device().id)
    if key not in _TABLES:
        from .cpu import k23_class_rows
        with oom_guard("copying the K2,3 class rows to the GPU"):
            _TABLES[key] = cp.asarray(k23_class_rows(np.asarray(classes(5).table)))
    return _TABLES[key]


def _xp(a):
    return np if isinstance(a, np.ndarray) else cupy()


def dense5_hits(G, tv):
    """Per-class hits (Python ints, 5-class rows) of the copies of C5, K2,3 and the bowtie, each listed
    once and classified by its induced 5-vertex set or counted per class in bulk (K2,3 copies of pairs
    with many common neighbours, bowties of hubs), and the (K2,3, bowtie) copies so accounted for.
    ``tv``: triangles at each vertex of the degree-descending relabelling (host int64)."""
    from ..config import config
    cp = cupy()
    cls = classes(5)
    nclass = len(cls.keys)
    n = G.n
    if n == 0 or G.m == 0:
        return [0] * nclass, 0, 0
    ptr, idx, fsrc, fwd = _device_desc(G)
    nfwd = int(fwd.shape[0])
    maxd = int(G.max_degree)
    nwords = (n + 31) // 32
    table = device_table(5)
    with oom_guard("the 5-vertex hybrid's dense classes (C5, K2,3, bowtie copies)"):
        counts = cp.zeros(3 * nclass, dtype=cp.uint64)
        # ---- C5
        offs = G.device_cache(f"gpu:{cp.cuda.Device().id}:census-c5-items:{C5_SPLIT}",
                              lambda: c5_item_offsets(ptr, idx, fwd, C5_SPLIT))
        nitems = int(offs[-1].get())
        grid, wpb = _warps(12 * nwords, nitems, cp)
        bits = cp.zeros(grid * wpb * 3 * nwords, dtype=cp.uint32)
        with _stage("c5_c5"):
            _c5("c5_c5")((grid,), (wpb * 32,), (ptr, idx, fsrc, fwd, np.int64(nfwd), offs, np.int64(nitems),
                                                np.int32(C5_SPLIT), table, np.int32(nclass), bits, np.int64(nwords),
                                                cp.zeros(1, dtype=cp.uint64), counts[0:nclass]))
        del bits
        # ---- K2,3: hub pairs with >= 3 common neighbours, then their triples
        wedges = deg_binomial_sum(G.degrees, 2)
        cap = int(max(1, min(wedges // 3, config.memory_budget // 12)))
        for _ in range(2):
            pu = cp.empty(cap, dtype=cp.int32)
            pv = cp.empty(cap, dtype=cp.int32)
            pc = cp.empty(cap, dtype=cp.int32)
            npairs = cp.zeros(1, dtype=cp.uint64)

            def pargs(slices):
                cnt = cp.zeros(slices * n, dtype=cp.uint32)
                return (ptr, idx, np.int32(n)), lambda nx: (cnt, nx, pu, pv, pc, npairs, np.int64(cap))
            with _stage("c5_k23_pairs"):
                _per_vertex(_c5("c5_k23_pairs"), G, 4 * n, pargs)
            found = int(npairs.get()[0])
            if found <= cap:
                break
            cap = found      # every counter was cleared: run again with room for all
        if found:
            pu, pv, pc = pu[:found], pv[:found], pc[:found]
            bulk = pc >= max(3, K23_BULK)
            nbulk = int(bulk.sum())
            if nbulk:
                bu, bv, bc = pu[bulk], pv[bulk], pc[bulk]
                boffs = cp.zeros(nbulk + 1, dtype=cp.int64)
                cp.cumsum((bc.astype(cp.int64) + K23_BULK_X - 1) // K23_BULK_X, out=boffs[1:])
                bitems = int(boffs[-1].get())
                bg, bw = _warps(8 * maxd, bitems, cp)
                scratch = cp.empty(bg * bw * 2 * maxd, dtype=cp.int32)
                with _stage("c5_k23_bulk"):
                    _c5("c5_k23_bulk")((bg,), (bw * 32,), (ptr, idx, bu, bv, np.int64(nbulk), boffs, np.int64(bitems),
                                                           np.int32(K23_BULK_X), _k23_rows(), scratch, np.int64(maxd),
                                                           cp.zeros(1, dtype=cp.uint64), counts[nclass:2 * nclass]))
                del scratch, bu, bv, bc, boffs
                keep = ~bulk
                pu, pv, pc = pu[keep], pv[keep], pc[keep]
            nlist = found - nbulk
        else:
            nlist = 0
        if nlist:
            koffs = k23_item_offsets(pc, K23_SPLIT)
            kitems = int(koffs[-1].get())
            kg, kw = _warps(4 * maxd, kitems, cp)
            scratch = cp.empty(kg * kw * maxd, dtype=cp.int32)
            with _stage("c5_k23"):
                _c5("c5_k23")((kg,), (kw * 32,), (ptr, idx, pu, pv, np.int64(nlist), koffs, np.int64(kitems), table,
                                                   np.int32(nclass), scratch, np.int64(maxd),
                                                   cp.zeros(1, dtype=cp.uint64), counts[nclass:2 * nclass]))
            del scratch
        del pu, pv, pc
        # ---- bowtie: hubs with many edges inside N(u) in bulk; for the rest the edges inside each N(u),
        # then their vertex-disjoint pairs
        tv = np.asarray(tv, dtype=np.int64)
        deg = np.diff(descending(G)[0]).astype(np.int64)
        bulk_hubs = bowtie_bulk_hubs(tv, deg, config.memory_budget // 8)
        bulk_hits = [0] * nclass
        if len(bulk_hubs):
            with _stage("c5_bowtie_bulk"):
                bulk_hits = _bowtie_bulk(G, bulk_hubs, deg[bulk_hubs], tv[bulk_hubs], nclass)
            tv = tv.copy()
            tv[bulk_hubs] = 0                  # no list: c5_tri_lists skips them
        toffs_h = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(tv, out=toffs_h[1:])
        if toffs_h[-1]:
            toffs = cp.asarray(toffs_h)
            fill = cp.zeros(n, dtype=cp.uint64)
            ecap = int(max(1, config.memory_budget // 8))
            for u0, u1 in bowtie_batches(toffs_h, ecap):
                tot = int(toffs_h[u1] - toffs_h[u0])
                if tot < 2:
                    continue
                ea = cp.empty(tot, dtype=cp.int32)
                eb = cp.empty(tot, dtype=cp.int32)
                tg = max(1, min(nfwd, sm_count() * 64) // WARPS_PER_BLOCK)
                with _stage("c5_tri_lists"):
                    _c5("c5_tri_lists")((tg,), (WARPS_PER_BLOCK * 32,),
                                        (ptr, idx, fsrc, fwd, np.int64(nfwd), toffs, np.int32(u0), np.int32(u1), fill,
                                         ea, eb))
                bg, bw = _warps(1, tot, cp)
                with _stage("c5_bowtie"):
                    _c5("c5_bowtie")((bg,), (bw * 32,), (ptr, idx, toffs, np.int32(u0), np.int32(u1), ea, eb, table,
                                                         np.int32(nclass), cp.zeros(1, dtype=cp.uint64),
                                                         counts[2 * nclass:]))
                del ea, eb
        out = counts.get().reshape(3, nclass)
    parts = [[int(x) for x in row] for row in out]
    parts[2] = [a + b for a, b in zip(parts[2], bulk_hits)]
    hits = [a + b + c for a, b, c in zip(*parts)]
    return hits, sum(parts[1]), sum(parts[2])


def _connected4_bound(G) -> int:
    """An upper bound on the connected 4-vertex subsets from the degrees alone (host, no GPU): every one
    has a spanning 4-path or 4-star, so it is at most Σ_uv (d_u - 1)(d_v - 1) + Σ_v C(d_v, 3)."""
    def make():
        d = G.degrees.astype(np.int64)
        if G.nnz == 0:
            return 0
        src = np.repeat(np.arange(G.n), np.diff(G.indptr))
        dm = d - 1
        return exact_sum(dm[src] * dm[G.indices]) // 2 + deg_binomial_sum(d, 3)
    return G.cached("connected4-bound", make)    # once per graph: ~0.4 ms on citeseer


# method="auto" (k = 5) enumerates on the GPU where the K2,3 + bowtie copies exceed this many times the
# connected 4-vertex subsets. Since the K2,3 and bowtie copies of hubs are counted in bulk (session 7) the
# hybrid's cost hardly follows them: measured (census5_gpu_auto_crossover_gpu.json, H100, docs/gpu_census.md)
# it wins 6.4x at 16.7 copies per subset, 3.7x at 26, 1.6x at 77 and loses 0.55x at 271 (G(100, 4500)).
# Until session 7: 16 (the hybrid then listed every copy). The CPU's factor is 20.
GPU_HYBRID_MAX_COPIES_PER_SUBSET = 100
# k = 5, auto on the GPU: below this many connected 4-vertex subsets, enumeration beats the hybrid's dozen
# launches (citeseer, 3.6·10^5: 0.79 against 3.8 ms on the H100)
_SMALL_ENUMERATION = 4_000_000


def gpu_prefers_hybrid(connected4: int, k23: int, bowtie: int) -> bool:
    """The GPU's k = 5 auto rule: the hybrid unless the connected 4-subsets are few (enumeration then
    takes about a millisecond and the hybrid's dozen launches cost more) or the dense copies to list
    outnumber them by more than ``GPU_HYBRID_MAX_COPIES_PER_SUBSET``.

    >>> gpu_prefers_hybrid(76_151_143, 107_304_005, 209_701_594)     # email-Eu-core
    True
    >>> gpu_prefers_hybrid(362_232, 18_576, 16_034)                  # citeseer: too small
    False
    """
    return connected4 >= _SMALL_ENUMERATION and k23 + bowtie <= GPU_HYBRID_MAX_COPIES_PER_SUBSET * connected4


def hybrid5_noninduced(G, decline: bool = False):
    """Non-induced counts (Python ints, 5-class rows) of every 5-vertex class by the hybrid of
    ``hybrid.hybrid5_noninduced``, on the GPU: pendant classes from Σ_v d_v σ_o(v) (4-vertex orbit
    sums from :func:`sigma4`), dense classes from the classified copies of C5, K2,3 and the bowtie
    (:func:`dense5_hits`). With ``decline``, None where :func:`gpu_prefers_hybrid` says the GPU's
    enumeration is cheaper (a bound from the degrees rules out small graphs first, on the host)."""
    cls = classes(5)
    nrow = len(cls.keys)
    if G.n == 0:
        return [0] * nrow
    check_safe(G)
    if decline and _connected4_bound(G) < _SMALL_ENUMERATION:
        return None
    with _stage("closed_form_4"):
        N4 = closed_form_noninduced(G, 4)
    connected4 = sum(to_induced(classes(4).M, N4))
    if decline and connected4 < _SMALL_ENUMERATION:
        return None
    with _stage("sigma4 (arc triangles, per-vertex kernels, host sums)"):
        sigma, k23hub = sigma4(G)
    k23, bowtie = dense_copy_counts(sigma, k23hub)
    if decline and not gpu_prefers_hybrid(connected4, k23, bowtie):
        return None
    with _stage("dense5_hits"):
        hits, k23_listed, bowtie_listed = dense5_hits(G, sigma[:, 3])
    if PROFILE is not None:
        PROFILE.setdefault("copies", {}).update(K23=k23, bowtie=bowtie, connected4=connected4)
    if (k23_listed, bowtie_listed) != (k23, bowtie):
        raise AssertionError(f"GPU dense 5-census listed {k23_listed} K2,3 and {bowtie_listed} bowtie copies; the "
                             f"closed forms give {k23} and {bowtie}")
    return hybrid5_solve(cls, hits, sigma, N4)


# --------------------------------------------------------------------------- 5-vertex orbits (orbits5.cu)

# o5_features gives vertices of at least this degree a whole block of O5_HUB_WARPS warps (<= 16, the kernel's
# launch bounds): a group walks its vertex's neighbours one at a time, so the heaviest vertices set the kernel's
# length (a latency-bound chain per group) unless they get more warps. Measured on an H200 (o5_features alone,
# degree threshold / warps): email-Eu-core 0.066 s at 16 / 8 against 0.155 s at 256 / 16, wiki-Vote 0.62 against
# 1.02 s, G(20000, 200000) 0.24 against 0.27 s (every vertex a warp); 32 / 8 and 16 / 16 close behind
O5_HUB_DEGREE = 16
O5_HUB_WARPS = 8


def _o5(name):
    return kernel(__package__, "orbits5", name)


def _orbit5_lists(G):
    """(te, tl_ptr, tl_w, tl_arc, tl_k4) of the degree-descending relabelling on the device: the per-arc
    triangle counts (c5_arc_tri, int32) and the per-arc sorted triangle lists of
    ``orbits5_cpu.triangle_lists`` (o5_tri_lists, o5_tri_k4; int32 / int64 / int32, 16 bytes per entry,
    Σ_arcs t_e = 6·triangles entries). Call under oom_guard."""
    cp = cupy()
    ptr, idx, fsrc, fwd = _device_desc(G)
    nnz = int(idx.shape[0])
    nfwd = int(fwd.shape[0])
    grid = max(1, min(nfwd, sm_count() * 64) // WARPS_PER_BLOCK)
    te = cp.empty(nnz, dtype=cp.int32)
    with _stage("orbits5: c5_arc_tri"):
        _c5("c5_arc_tri")((grid,), (WARPS_PER_BLOCK * 32,), (ptr, idx, fsrc, fwd, np.int64(nfwd), te))
    tl_ptr = cp.zeros(nnz + 1, dtype=cp.int64)
    cp.cumsum(te.astype(cp.int64), out=tl_ptr[1:])
    total = int(tl_ptr[-1].get())
    tl_w = cp.empty(max(1, total), dtype=cp.int32)
    tl_arc = cp.empty(max(1, total), dtype=cp.int64)
    tl_k4 = cp.empty(max(1, total), dtype=cp.int32)
    if total:
        with _stage("orbits5: o5_tri_lists, o5_tri_k4"):
            _o5("o5_tri_lists")((grid,), (WARPS_PER_BLOCK * 32,),
                                (ptr, idx, fsrc, fwd, np.int64(nfwd), tl_ptr, tl_w, tl_arc))
            _o5("o5_tri_k4")((grid,), (WARPS_PER_BLOCK * 32,),
                             (ptr, idx, fsrc, fwd, np.int64(nfwd), tl_ptr, tl_w, tl_arc, tl_k4))
    return te, tl_ptr, tl_w, tl_arc, tl_k4


def orbit5_scratch_bytes(n: int, nnz: int) -> int:
    """Bytes of one o5_features scratch slice (a warp's, or a hub block's): posx, cx, posa, kc, touched, cxa
    (n int32 each) and m (one int32 per arc).

    >>> orbit5_scratch_bytes(986, 32128)            # email-Eu-core
    152176
    """
    return 4 * (6 * n + nnz)


def _orbit5_features_desc(G, lists):
    """The n × 58 int64 feature sums (device) of the degree-descending relabelling: o5_features over
    :func:`_per_vertex` (a warp per vertex, a block of HUB_WARPS warps per hub), as many scratch slices as
    ``config.memory_budget`` allows (at least one group). Call under oom_guard."""
    from .orbits5_cpu import NFEAT
    cp = cupy()
    n = G.n
    ptr, idx, _, _ = _device_desc(G)
    nnz = int(idx.shape[0])
    te, tl_ptr, tl_w, tl_arc, tl_k4 = lists
    out = cp.zeros(n * NFEAT, dtype=cp.int64)
    stride = 6 * n + nnz

    def fargs(slices):
        scratch = cp.zeros(slices * stride, dtype=cp.int32)
        return ((ptr, idx, te, tl_ptr, tl_w, tl_arc, tl_k4, np.int32(n)),
                lambda nx: (scratch, np.int64(stride), nx, out))
    with _stage("orbits5: o5_features"):
        _per_vertex(_o5("o5_features"), G, orbit5_scratch_bytes(n, nnz), fargs, hub_degree=O5_HUB_DEGREE,
                    hub_warps=O5_HUB_WARPS)
    return out.reshape(n, NFEAT)


def _orbit5_plan():
    """The back-substitution's tables (orbits5.solve_plan, the feature matrix's columns of the singleton and
    orbits 0..14) as int64 on the current device, uploaded once per device."""
    cp = cupy()
    key = ("orbits5-plan", cp.cuda.Device().id)
    if key not in _TABLES:
        from .orbit_equations import ORBITS_4
        from .orbits5 import feature_matrix, solve_plan
        glow = np.ascontiguousarray(feature_matrix()[:, :ORBITS_4 + 1], dtype=np.int64)
        diag, optr, ocol, oval, order = solve_plan()
        with oom_guard("copying the 5-vertex orbit equations to the GPU"):
            _TABLES[key] = tuple(cp.asarray(np.ascontiguousarray(a, dtype=np.int64))
                                 for a in (glow, diag, optr, ocol, oval, order))
    return _TABLES[key]


def orbit5_features_gpu(G) -> np.ndarray:
    """``orbits5.orbit5_features(G)`` on the GPU: the n × 58 int64 feature sums f_15 .. f_72, rows in G's vertex
    ids (host array). The same numbers as the CPU kernel's (tested), for the same equations."""
    from .orbits5_cpu import NFEAT
    n = G.n
    if n == 0 or G.m == 0:
        return np.zeros((n, NFEAT), dtype=np.int64)
    with oom_guard("the 5-vertex orbit features"):
        F = _orbit5_features_desc(G, _orbit5_lists(G)).get()
    return F[descending(G)[2]]


def orbits5_gpu(G) -> np.ndarray:
    """``orbits5.orbits5(G)`` on the GPU: n × 73 int64, ORCA numbering, rows in G's vertex ids.

    Orbits 0..14 from :func:`sigma4` (solved on the host as ``orbits(G, 4, backend="gpu")`` does); orbits
    15..72 from the feature sums (:func:`_orbit5_features_desc`: triangle lists, o5_features) and the
    triangular system of ``orbits5.solve_orbits5`` solved on the device (o5_solve, one thread per vertex,
    exact division checked); one n × 58 copy back. The caller checks the int64 bounds
    (``orbits5.check_orbit5_safe``, ``common.check_safe``)."""
    from .orbit_equations import ORBITS_4, ORBITS_5, solve_orbits
    n = G.n
    X = np.zeros((n, ORBITS_5), dtype=np.int64)
    if n == 0 or G.m == 0:
        return X
    cp = cupy()
    with _stage("orbits5: sigma4 and the 4-vertex solve (host)"):
        low = solve_orbits(sigma4(G)[0], ORBITS_4)              # degree-descending ids
    with oom_guard("the 5-vertex orbits"):
        F = _orbit5_features_desc(G, _orbit5_lists(G))
        glow, diag, optr, ocol, oval, order = _orbit5_plan()
        low_d = cp.asarray(low)
        out = cp.empty_like(F)
        bad = cp.zeros(1, dtype=cp.uint64)
        with _stage("orbits5: o5_solve"):
            bs = block_size()
            _o5("o5_solve")((max(1, min(-(-n // bs), sm_count() * 16)),), (bs,),
                            (F, low_d, np.int32(n), glow, diag, optr, ocol, oval, order, out, bad))
        with _stage("orbits5: copy back"):
            nbad = int(bad.get()[0])
            hi = out.get()
    if nbad:
        raise AssertionError(f"{nbad} orbit counts: the feature sums do not divide exactly (a bug, please report)")
    new_id = descending(G)[2]
    X[:, :ORBITS_4] = low[new_id]
    X[:, ORBITS_4:] = hi[new_id]
    return X
