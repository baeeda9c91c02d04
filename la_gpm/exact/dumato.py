"""GPU exact engine: the CPU engine's plans (:mod:`la_gpm.patterns.plan`) run by a warp-centric DFS.

``la_gpm/exact/dumato.cu`` interprets ``Plan.tables()`` on the arrays of
:func:`la_gpm.exact.plans.engine_arrays` (degree-rank numbering, label-sorted rows for
vertex-labeled plans, edge labels), with the CPU engine's semantics: symmetry bounds,
anti-parents, injectivity checks, RPS reuse of cached sets, last level counted.

Work items are the **arcs of level 1**: pairs (f0, f1) where f0 is a root and f1 passed level
1's label, edge-label, bound and degree filters (built here with CuPy), so the search below a hub
root is spread over as many warps as it has admissible neighbours.  When there are fewer level-1
items than ``deep_items`` (default: two per resident warp), the first levels are expanded
breadth-first on the GPU (``enum_expand_warp``, one level per launch) into partial matches of
depth d, and the DFS starts from those; a warp starting at depth d rebuilds the reused sets of
levels 2..d-1 first, so the plan's semantics and statistics are unchanged.  Each warp owns ``k - 2``
candidate buffers of ``max degree`` int32 in global memory; the number of resident warps is the
largest that fits ``memory_budget`` (at most 32 warps per SM).  Warps take items from an atomic
counter.

Listing (``match(..., backend="gpu")``) runs two passes: the count kernel stores each item's
count, prefix sums cut the items into windows of ``chunk_size`` rows, and the listing kernel
writes every row of a window at its offset (an item larger than a window lists the slice
[skip, skip + cap) of its deterministic DFS order).  Rows are the CPU engine's rows; their order
is by item, then the DFS order (deep items are in the order the expansion wrote them).
"""

from __future__ import annotations

import functools
import time

import numpy as np

from ..exceptions import InvalidArgument
from ..patterns.plan import C_REUSE as C_REUSE_FIELD
from ..device import cupy, device_sm_count, kernel, oom_guard
from .batch import batch_roots, pack_batch_tables
from .plans import engine_arrays, plan_roots, resolve_budget

__all__ = ["count_plan_gpu", "list_plan_gpu", "device_engine_arrays", "level1_items", "count_plans_batch_gpu", "batch_roots"]

WARPS_PER_BLOCK = 8
WARPS_PER_SM = 32  # 2 blocks of 8 warps resident per SM (__launch_bounds__(256, 2)), ×2 to hide fetches
MAX_K = 32
DEEP_ITEMS_PER_WARP = 2  # default deep_items threshold: this many items per resident warp
DEEP_LEVELS = MAX_K  # default limit on the breadth-first expansion levels (MAX_K: until deep_items or depth k - 1)
MAX_DEEP_ITEMS = 1 << 22  # first try at most this many partial matches per breadth-first level
N_COUNTERS = 7  # next item, total, overflow, reuse hits, set ops, set ops saved, tree nodes
COUNTER_ROWS = 1 + 2 * MAX_K  # the count kernel's row + up to two tries per expansion level
FAST_LAST = True  # count the last level's final intersection without writing it (False: the plain path)


def device_engine_arrays(G, vertex_labeled: bool, edge_labeled: bool):
    """``(ptr i64, idx i32, nlab i64, elab i64, deg i32)`` of ``engine_arrays`` on the current device (cached)."""

    cp = cupy()
    dev = cp.cuda.Device().id

    def make():
        ptr, idx, nlab, elab, deg, _, _ = engine_arrays(G, vertex_labeled, edge_labeled)
        with oom_guard("copying the engine arrays to the GPU"):
            return (cp.asarray(ptr, dtype=cp.int64), cp.asarray(idx, dtype=cp.int32),
                    cp.asarray(nlab, dtype=cp.int64), cp.asarray(elab, dtype=cp.int64),
                    cp.asarray(deg, dtype=cp.int32))
    return G.device_cache(f"gpu:{dev}:enum:v{int(vertex_labeled)}e{int(edge_labeled)}", make)


def _items_for(G, plan, tables, roots, dev_arrays):
    """The level-1 items as one (n, 2) int32 device array, cached on the graph under everything
    they depend on (labels, degrees, bounds)."""
    from ..patterns.plan import C_MINDEG, C_NLOW, C_NUP, C_VLAB, T_PAREL

    T, C = tables
    cp = cupy()
    key = (f"gpu:{cp.cuda.Device().id}:enum:items2:v{int(plan.vertex_labels is not None)}"
           f"e{int(plan.edge_labels is not None)}:{int(C[C_VLAB, 0])},{int(C[C_VLAB, 1])}:"
           f"{int(C[C_MINDEG, 0])},{int(C[C_MINDEG, 1])}:{int(T[T_PAREL, 1, 0])}:"
           f"{int(C[C_NLOW, 1] > 0)}{int(C[C_NUP, 1] > 0)}")

    def make():
        with oom_guard("building the GPU work items"):
            f0, f1 = level1_items(plan, roots, dev_arrays)
            return cp.stack([f0, f1], axis=1) if f0.shape[0] else cp.zeros((0, 2), dtype=cp.int32)
    return G.device_cache(key, make)


def level1_items(plan, roots, dev_arrays):
    """The admissible level-1 arcs ``(f0, f1)`` as two int32 device arrays (engine numbering).

    Mirrors level 1 of the CPU engine: the neighbours of the root with level 1's vertex label,
    the edge label of the (0, 1) edge, inside the symmetry window set by position 0, with at
    least level 1's pattern degree (level 1 has parent 0 and no anti-parents, reuse or
    injectivity checks).
    """
    from ..patterns.plan import C_MINDEG, C_NLOW, C_NUP, C_VLAB, T_PAREL

    cp = cupy()
    ptr, idx, nlab, elab, deg = dev_arrays
    T, C = plan.tables()
    r = cp.asarray(roots, dtype=cp.int64)
    if r.shape[0] == 0:
        z = cp.zeros(0, dtype=cp.int32)
        return z, z
    lo = ptr[r]
    cnt = ptr[r + 1] - lo
    total = int(cnt.sum())
    if total == 0:
        z = cp.zeros(0, dtype=cp.int32)
        return z, z
    ends = cp.cumsum(cnt)
    arc = cp.arange(total, dtype=cp.int64)
    owner = cp.searchsorted(ends, arc, side="right")  # the root each arc belongs to
    p = lo[owner] + (arc - (ends[owner] - cnt[owner]))
    f0 = r[owner]
    f1 = idx[p].astype(cp.int64)
    ok = deg[f1] >= int(C[C_MINDEG, 1])
    if plan.vertex_labels is not None and int(C[C_VLAB, 1]) >= 0:
        ok &= nlab[p] == int(C[C_VLAB, 1])
    if plan.edge_labels is not None and int(T[T_PAREL, 1, 0]) >= 0:
        ok &= elab[p] == int(T[T_PAREL, 1, 0])
    if C[C_NLOW, 1] > 0:  # the only earlier position is 0
        ok &= f1 > f0
    if C[C_NUP, 1] > 0:
        ok &= f1 < f0
    keep = cp.flatnonzero(ok)
    return f0[keep].astype(cp.int32), f1[keep].astype(cp.int32)


_sm_count = device_sm_count   # module name kept: tests set it to shape launches


def _warps(k, maxd, nitems, budget):
    """(blocks, warps per block, bytes per warp) for ``nitems`` items within ``budget`` bytes."""
    cp = cupy()
    per = (k - 2) * max(maxd, 1) * 4
    fit = budget // per
    if fit < 1:
        raise InvalidArgument(f"memory_budget={budget} bytes is below one GPU warp's stack ({per} bytes = "
                              f"(k-2) {k - 2} × max degree {maxd} × 4 bytes); raise memory_budget")
    sm = _sm_count(cp.cuda.Device().id)
    nwarps = int(min(sm * WARPS_PER_SM, fit, max(nitems, 1)))
    blocks = max(1, nwarps // WARPS_PER_BLOCK) if nwarps >= WARPS_PER_BLOCK else 1
    wpb = WARPS_PER_BLOCK if nwarps >= WARPS_PER_BLOCK else nwarps
    return blocks, wpb, per


def _check_overflow_flag(flag):
    if flag:
        raise OverflowError("a GPU count exceeded int64; split the graph into vertex ranges "
                            "(la_gpm.distributed) or count a smaller pattern")


@functools.lru_cache(maxsize=1024)
def host_plan(plan):
    """What a call needs from ``plan`` on the host, computed once per distinct plan (plans are frozen
    and hashable; a recompiled equal plan hits the cache): ``(T, C, pack, reuse, describe)`` where
    ``pack`` is the one int64 array uploaded per call: ``COUNTER_ROWS × N_COUNTERS`` zeroed counters,
    then ``T`` and ``C`` raveled. Read-only (shared between calls).

    Examples
    --------
    >>> from la_gpm import Pattern
    >>> from la_gpm.patterns.plan import compile_plan
    >>> T, C, pack, reuse, text = host_plan(compile_plan(Pattern.named("diamond")))
    >>> int(pack[:COUNTER_ROWS * N_COUNTERS].sum()), pack.size == COUNTER_ROWS * N_COUNTERS + T.size + C.size
    (0, True)
    """
    T, C = plan.tables()
    nc = COUNTER_ROWS * N_COUNTERS
    pack = np.zeros(nc + T.size + C.size, dtype=np.int64)
    pack[nc:nc + T.size] = T.ravel()
    pack[nc + T.size:] = C.ravel()
    for a in (T, C, pack):
        a.flags.writeable = False
    return T, C, pack, tuple(int(x) for x in C[C_REUSE_FIELD]), plan.describe()


def _host_plan(plan):
    """host_plan, uncached for a plan that cannot be hashed."""
    try:
        return host_plan(plan)
    except TypeError:
        return host_plan.__wrapped__(plan)


class _Call:
    """What one count/listing call puts on the device, uploaded in **one** host-to-device copy:
    the plan tables and zeroed counters (one row of ``N_COUNTERS`` for the count kernel and one per
    breadth-first expansion level). Also the per-call constants the kernels take."""

    def __init__(self, G, plan, dev_arrays, memory_budget):

        cp = cupy()
        T, C, pack, reuse, _ = _host_plan(plan)
        self.tables = (T, C)
        self.k = k = plan.k
        self.budget = resolve_budget(memory_budget)
        self.maxd = max(G.max_degree, 1)
        nc = COUNTER_ROWS * N_COUNTERS
        with oom_guard("copying the plan tables to the GPU"):
            d = cp.asarray(pack)
        self.counters = d[:nc].view(cp.uint64).reshape(COUNTER_ROWS, N_COUNTERS)
        Td = d[nc:nc + T.size]
        Cd = d[nc + T.size:]
        ptr, idx, nlab, elab, deg = dev_arrays
        self.args = (ptr, idx, nlab, elab, deg, np.int32(plan.vertex_labels is not None),
                     np.int32(plan.edge_labels is not None), Td, Cd, np.int32(k))
        self._reuse = reuse
        self.expand_rows = []  # counter rows of the accepted expansion levels
        self.deep_bytes = 0  # bytes of the expanded items kept (they count against the budget)

    def rebuild(self, d):
        """Whether a level >= d reuses the set of a level in 2..d-1 (then a warp starting at depth d rebuilds them)."""
        return int(any(2 <= self._reuse[i] < d for i in range(d, self.k)))


def _deepen(call, items, d, threshold, levels):
    """Breadth-first expansion (``enum_expand_warp``, one launch and one 8-byte read back per level) of
    the depth-``d`` items while there are fewer than ``threshold`` of them, the depth is below
    k - 1 and the next level fits half of the memory budget. Returns (items, d)."""
    cp = cupy()
    k, maxd = call.k, call.maxd
    kern = kernel(__package__, "dumato", "enum_expand_warp")
    nrows = int(call.counters.shape[0])
    row = 1
    while 0 < items.shape[0] < threshold and d < k - 1 and row < nrows and len(call.expand_rows) < levels:
        n = int(items.shape[0])
        per_item = 4 * (d + 1) + 8  # the row + its count in the listing's first pass
        room = min(call.budget // 2, call.budget - (k - 2) * maxd * 4 - call.deep_bytes)
        cap = int(min(room // per_item, MAX_DEEP_ITEMS, n * maxd))  # n * maxd: no level can hold more
        nout = None
        while cap > n and row < nrows:
            blocks, wpb, per = _warps(k, maxd, n, call.budget - cap * per_item - call.deep_bytes)
            nw = blocks * wpb
            with oom_guard(f"GPU breadth-first expansion (stacks of {nw} warps × {per} bytes, {cap} items)"):
                buf = cp.empty(nw * (k - 2) * maxd, dtype=cp.int32)
                out = cp.empty(cap * (d + 1), dtype=cp.int32)
                kern((blocks,), (wpb * 32,),
                     call.args + (items, np.int32(d), np.int32(call.rebuild(d)), np.int64(n), buf, np.int64(maxd),
                                  out, np.int64(cap), call.counters[row]))
                nout = int(call.counters[row, 1].get())
            del buf
            row += 1
            if nout <= cap:
                break
            # the level did not fit the first try: once more with its exact size if the budget allows
            # (that try's statistics row is dropped); else keep the depth-d items
            cap = nout if nout * per_item <= room else 0
            nout = None
        if nout is None:
            break
        call.expand_rows.append(row - 1)
        call.deep_bytes = cap * per_item
        items = out[:nout * (d + 1)].reshape(nout, d + 1)
        d += 1
    return items, d


def _start_items(G, plan, call, roots, dev, deep_items, deep_levels):
    """Level-1 items, deepened breadth-first when there are fewer than the threshold."""
    items = _items_for(G, plan, call.tables, roots, dev)
    n1 = int(items.shape[0])
    threshold = _deep_threshold(deep_items)
    levels = DEEP_LEVELS if deep_levels is None else int(deep_levels)
    if levels < 0:
        raise InvalidArgument(f"deep_levels must be >= 0 or None (the default DEEP_LEVELS); got {deep_levels}")
    if call.k > 3 and 0 < n1 < threshold and levels > 0:
        items, d = _deepen(call, items, 2, threshold, levels)
    else:
        d = 2
    return items, d, n1


def _deep_threshold(deep_items):
    if deep_items is None:
        return DEEP_ITEMS_PER_WARP * _sm_count(cupy().cuda.Device().id) * WARPS_PER_SM
    deep_items = int(deep_items)
    if deep_items < 0:
        raise InvalidArgument(f"deep_items must be >= 0 (0: level-1 items only); got {deep_items}")
    return deep_items


def _count_items(call, items, d, item_counts=None):
    """Run the count kernel over the depth-``d`` items (counter row 0); returns (warps, bytes per warp)."""
    cp = cupy()
    k, maxd = call.k, call.maxd
    nitems = int(items.shape[0])
    blocks, wpb, per = _warps(k, maxd, nitems, call.budget - call.deep_bytes)
    nw = blocks * wpb
    with oom_guard(f"GPU pattern counting (stacks of {nw} warps × {per} bytes)"):
        buf = cp.empty(nw * (k - 2) * maxd, dtype=cp.int32)
        store = item_counts is not None
        if not store:
            item_counts = call.counters[0]  # not written
        kern = kernel(__package__, "dumato", "enum_count_warp")
        kern((blocks,), (wpb * 32,),
             call.args + (items, np.int32(d), np.int32(call.rebuild(d)), np.int64(nitems), buf, np.int64(maxd),
                          call.counters[0], item_counts, np.int32(store), np.int32(bool(FAST_LAST))))
    del buf
    return nw, per


def _stats_from(call, host, ran_count):
    """(total, reuse hits, set ops, saved, extra tree nodes) from the counter rows read back."""
    rows = list(call.expand_rows) + ([0] if ran_count else [])
    _check_overflow_flag(int(host[0, 2]))
    reuse = sum(int(host[r, 3]) for r in rows)
    ops = sum(int(host[r, 4]) for r in rows)
    saved = sum(int(host[r, 5]) for r in rows)
    nodes = sum(int(host[r, 6]) for r in rows)
    return int(host[0, 1]) if ran_count else 0, reuse, ops, saved, nodes


def count_plan_gpu(G, plan, *, memory_budget=None, deep_items=None, deep_levels=None):
    """Execute ``plan`` on the GPU; returns (count as Python int, stats dict like the CPU engine's).

    ``deep_items``: when level 1 has fewer admissible arcs than this, the first levels are expanded
    breadth-first on the GPU until there are at least this many partial matches (or depth k - 1)
    and the DFS starts from those (``None``: twice the resident warps; 0: never), expanding at most
    ``deep_levels`` levels (``None``: ``DEEP_LEVELS``; each level costs one launch and one 8-byte read
    back, about 50 µs on an H100 with the host's Python).

    Examples
    --------
    >>> import la_gpm  # doctest: +SKIP
    >>> from la_gpm.exact.plans import plan_for  # doctest: +SKIP
    >>> G = la_gpm.datasets.load("karate")  # doctest: +SKIP
    >>> count_plan_gpu(G, plan_for(G, la_gpm.Pattern.named("4-cycle")))[0]  # doctest: +SKIP
    154
    """

    cupy()  # BackendUnavailable with the reason when no device is usable
    t0 = time.perf_counter()
    k = plan.k
    if k > MAX_K:
        raise InvalidArgument(f"the GPU engine takes patterns of up to {MAX_K} vertices; got k={k}")
    vl = plan.vertex_labels is not None
    el = plan.edge_labels is not None
    _, roots = plan_roots(G, plan)
    stats = {"plan": _host_plan(plan)[4], "roots": int(roots.shape[0]), "backend": "gpu"}
    nroots = int(roots.shape[0])
    if k == 1:
        stats.update(reuse_hits=0, set_operations=0, set_operations_saved=0, reuse_rate=0.0, tree_nodes=nroots,
                     work_items=0, warps=0, seconds=time.perf_counter() - t0)
        return nroots, stats
    dev = device_engine_arrays(G, vl, el)
    call = _Call(G, plan, dev, memory_budget)
    items, d, n1 = _start_items(G, plan, call, roots, dev, deep_items, deep_levels)
    nitems = int(items.shape[0])
    if k == 2 or n1 == 0:
        stats.update(reuse_hits=0, set_operations=0, set_operations_saved=0, reuse_rate=0.0,
                     tree_nodes=nroots + (n1 if k > 2 else 0), work_items=n1, warps=0,
                     seconds=time.perf_counter() - t0)
        return (n1 if k == 2 else 0), stats
    nw = per = 0
    if nitems:
        nw, per = _count_items(call, items, d)
    host = call.counters.get()
    total, reuse, ops, saved, nodes = _stats_from(call, host, nitems > 0)
    stats.update(reuse_hits=reuse, set_operations=ops, set_operations_saved=saved,
                 reuse_rate=saved / (ops + saved) if ops + saved else 0.0,
                 tree_nodes=nroots + n1 + nodes, work_items=nitems, item_depth=d, level1_items=n1, warps=nw,
                 bytes_per_warp=per, seconds=time.perf_counter() - t0)
    return total, stats


def list_plan_gpu(G, plan, *, chunk_size: int = 65536, limit: int | None = None, memory_budget=None,
                  deep_items=None, deep_levels=None):
    """Yield the matches of ``plan`` (usually without symmetry bounds) as int64 arrays (rows, k).

    Columns are pattern vertices, values the vertices of ``G`` (its 0..n-1 numbering); the
    rows are those of the CPU engine, possibly in another order. ``deep_items`` as in
    :func:`count_plan_gpu`, and ``deep_levels``.
    """

    cp = cupy()
    k = plan.k
    if k > MAX_K:
        raise InvalidArgument(f"the GPU engine takes patterns of up to {MAX_K} vertices; got k={k}")
    vl = plan.vertex_labels is not None
    el = plan.edge_labels is not None
    (*_, inv), roots = plan_roots(G, plan)
    order = np.asarray(plan.order, dtype=np.int64)
    left = limit
    if limit == 0:
        return
    if k == 1:
        for s in range(0, roots.shape[0], chunk_size):
            if left is not None and left <= 0:
                return
            part = roots[s:s + (chunk_size if left is None else min(chunk_size, left))]
            if left is not None:
                left -= part.shape[0]
            yield inv[part].reshape(-1, 1)
        return
    dev = device_engine_arrays(G, vl, el)
    call = _Call(G, plan, dev, memory_budget)
    items, d, n1 = _start_items(G, plan, call, roots, dev, deep_items, deep_levels)
    nitems = int(items.shape[0])
    if nitems == 0:
        return
    inv_d = None
    if k == 2:
        for s in range(0, nitems, chunk_size):
            if left is not None and left <= 0:
                return
            e = s + (chunk_size if left is None else min(chunk_size, left))
            rows = np.empty((min(e, nitems) - s, 2), dtype=np.int64)
            rows[:, order[0]] = cp.asnumpy(items[s:e, 0])
            rows[:, order[1]] = cp.asnumpy(items[s:e, 1])
            if left is not None:
                left -= rows.shape[0]
            yield inv[rows]
        return
    with oom_guard("GPU listing (per-item counts)"):
        item_counts = cp.zeros(nitems, dtype=cp.uint64)
    _count_items(call, items, d, item_counts=item_counts)
    _check_overflow_flag(int(call.counters[0, 2].get()))
    counts = cp.asnumpy(item_counts).astype(np.int64)
    ends = np.cumsum(counts)
    total = int(ends[-1])
    starts = ends - counts
    maxd = call.maxd
    with oom_guard("GPU listing (the query order and the vertex map)"):
        order_d = cp.asarray(order, dtype=cp.int32)
        inv_d = cp.asarray(inv, dtype=cp.int64)
    kern = kernel(__package__, "dumato", "enum_list_warp")
    r0 = 0
    while r0 < total:
        cap = chunk_size if left is None else min(chunk_size, left)
        if cap <= 0:
            return
        r1 = min(r0 + cap, total)
        ia = int(np.searchsorted(ends, r0, side="right"))      # first item ending after r0
        ib = int(np.searchsorted(starts, r1, side="left"))     # items starting before r1
        n_it = ib - ia
        blocks, wpb, per = _warps(k, maxd, n_it, call.budget - call.deep_bytes)
        nw = blocks * wpb
        with oom_guard(f"GPU listing (stacks of {nw} warps × {per} bytes, {r1 - r0} rows)"):
            buf = cp.empty(nw * (k - 2) * maxd, dtype=cp.int32)
            out = cp.full((r1 - r0) * k, -1, dtype=cp.int32)
            counters = cp.zeros(N_COUNTERS, dtype=cp.uint64)
            st = cp.asarray(starts[ia:ib])
            kern((blocks,), (wpb * 32,),
                 call.args + (items[ia:ib], np.int32(d), np.int32(call.rebuild(d)), st, np.int64(n_it), buf,
                              np.int64(maxd), order_d, np.int64(r0), np.int64(r1), out, counters))
            out = out.reshape(r1 - r0, k)
            if bool((out < 0).any()):
                raise RuntimeError("GPU listing left rows unwritten (an engine bug); use backend='cpu'")
            rows = inv_d[out]  # back from the engine's degree-rank numbering
            host = cp.asnumpy(rows)
        del buf, out
        if left is not None:
            left -= host.shape[0]
        yield host
        r0 = r1


# ------------------------------------------------------------------------------------------------ batches
BATCH_MAX_ITEMS = 1 << 20  # rows of one breadth-first level of a batch (at most; also <= threshold × max degree)
BATCH_GRAPHS = True  # replay a batch's launches as one CUDA graph (False: plain launches, for A/B)
BATCH_WARP_SEARCH = True  # the batch kernel's uniform searches warp-cooperative (-DEN_WARP_SEARCH; False for A/B)


def batch_layout(n0, kmax, maxd, budget, sm, deep_items):
    """How a batch group runs within ``budget`` bytes on ``sm`` SMs: a dict with ``warps``, ``blocks``,
    ``wpb`` (warps per block), ``per`` (stack bytes per warp: levels 1..kmax-1 of ``maxd`` int32),
    ``threshold`` (a level with at least this many items is searched depth first), ``cap`` (rows
    of a level array: at most ``threshold × maxd``, which no breadth-first level can exceed, and
    what the budget leaves for two of them), ``chunk`` (roots per chunk) and ``levels`` (launches
    per chunk).

    Examples
    --------
    >>> L = batch_layout(n0=5000, kmax=16, maxd=300, budget=2 << 30, sm=132, deep_items=None)
    >>> L["warps"], L["threshold"], L["cap"], L["chunk"], L["levels"]
    (4224, 1048576, 1048576, 5000, 15)
    """
    sl = max(kmax - 1, 1)
    per = sl * maxd * 4
    if budget < per:
        raise InvalidArgument(f"memory_budget={budget} bytes is below one GPU warp's stack ({per} bytes = "
                              f"(k-1) {sl} × max degree {maxd} × 4 bytes); raise memory_budget")
    nw = int(max(1, min(sm * WARPS_PER_SM, max(budget // 2, per) // per)))
    wpb = WARPS_PER_BLOCK if nw >= WARPS_PER_BLOCK else nw
    blocks = max(1, nw // wpb)
    nw = blocks * wpb
    threshold = BATCH_MAX_ITEMS if deep_items is None else int(deep_items)
    rest = max(budget - nw * per, 0)
    chunk = int(max(1, min(n0, rest // 4 // 8))) if n0 else 0
    row_bytes = (kmax + 1) * 4
    cap = int(max(0, min(BATCH_MAX_ITEMS, max(threshold, 1) * maxd, (rest - chunk * 8) // (2 * row_bytes))))
    return {"warps": nw, "blocks": blocks, "wpb": wpb, "per": per, "stack_levels": sl, "threshold": threshold,
            "cap": cap, "chunk": chunk, "levels": kmax - 1, "chunks": -(-n0 // chunk) if chunk else 0}


class _BatchGroup:
    """The device side of one batch group (plans sharing the label flags): the packed plan tables
    (``Tall``, ``Call``, ``qtab``, one upload) and the depth-1 items ``(query, root)`` (on the
    host; kept on the device once a call ran them as one chunk)."""

    def __init__(self, G, plans, vl, el):
        cp = cupy()
        self.plans = tuple(plans)
        self.kmax = max(p.k for p in plans)
        rows, nroots = batch_roots(G, plans, vl, el)
        pack, t_all, c_all = pack_batch_tables(plans)
        self.n0 = int(rows.shape[0])
        self.nroots = nroots
        self.rows = rows  # host copy; on the device whole (items0) when it fits in one chunk
        self.items0 = None
        with oom_guard("copying a batch's plan tables to the GPU"):
            d = cp.asarray(pack)
        self.runs = {}  # layout -> _BatchRun (buffers, launch arguments, CUDA graph)
        self.Tall = d[:t_all]
        self.Call = d[t_all:t_all + c_all]
        self.qtab = d[t_all + c_all:]
        self.dev = (vl, el)


def _batch_group(G, plans, vl, el):
    """_BatchGroup for these plan objects, cached on the graph (dropped by ``clear_device_cache``)."""
    cp = cupy()
    cache = G.cached("dev:gpu:enum:batches", dict)
    key = (cp.cuda.Device().id, vl, el, tuple(id(p) for p in plans))
    hit = cache.get(key)
    if hit is not None and len(hit.plans) == len(plans) and all(a is b for a, b in zip(hit.plans, plans)):
        return hit
    grp = _BatchGroup(G, plans, vl, el)
    if len(cache) >= 32:
        cache.clear()
    cache[key] = grp
    return grp


class _BatchRun:
    """One group's device buffers and launch arguments for one layout, kept with the group so a
    repeated batch allocates nothing: the counters (per chunk, one row per depth: next item, items
    written; then the per-query counts and the overflow flag), the warp stacks, the two level
    arrays, and, when ``BATCH_GRAPHS``, a CUDA graph of every launch (one graph launch per call)."""

    def __init__(self, G, grp, L):
        import threading

        cp = cupy()
        vl, el = grp.dev
        self.L = L
        self.nq = nq = len(grp.plans)
        kmax, maxd = grp.kmax, max(G.max_degree, 1)
        levels, nchunks, chunk, cap = L["levels"], L["chunks"], L["chunk"], L["cap"]
        self.host = np.zeros(nchunks * (levels + 1) * 2 + nq + 1, dtype=np.uint64)
        for c in range(nchunks):
            self.host[c * (levels + 1) * 2 + 1] = min(chunk, grp.n0 - c * chunk)  # level 0 "wrote" the roots
        self.host.flags.writeable = False
        ptr, idx, nlab, elab, deg = device_engine_arrays(G, vl, el)
        self.kern = kernel(__package__, "dumato", "enum_batch_level", ("-DEN_WARP_SEARCH",) if BATCH_WARP_SEARCH else ())
        self.lock = threading.Lock()
        self.graph = None
        self.graph_error = None
        with oom_guard(f"GPU batch counting (stacks of {L['warps']} warps × {L['per']} bytes, 2 × {cap} items of "
                       f"{kmax + 1} ints)"):
            self.ctr = cp.zeros(self.host.shape[0], dtype=cp.uint64)
            counts = self.ctr[nchunks * (levels + 1) * 2:]
            self.counts = counts
            self.buf = cp.empty(L["warps"] * L["stack_levels"] * maxd, dtype=cp.int32)
            self.bufs = (cp.empty(max(cap, 1) * (kmax + 1), dtype=cp.int32),
                         cp.empty(max(cap, 1) * (kmax + 1), dtype=cp.int32))
            if nchunks == 1:
                if grp.items0 is None:
                    grp.items0 = cp.asarray(grp.rows)
                firsts = [grp.items0]
            else:  # roots over the budget's share: one chunk at a time on the device
                firsts = None
        head = (ptr, idx, nlab, elab, deg, np.int32(vl), np.int32(el), grp.Tall, grp.Call, grp.qtab)
        tail = (counts[:nq], counts[nq:], self.buf, np.int64(maxd), np.int32(L["stack_levels"]),
                np.int64(L["threshold"]), np.int32(bool(FAST_LAST)))
        self.grid = ((L["blocks"],), (L["wpb"] * 32,))
        self.launches = []  # per chunk: the argument tuples of its levels
        for c in range(nchunks):
            base = c * (levels + 1) * 2
            lc = self.ctr[base:base + (levels + 1) * 2]
            n_c = min(chunk, grp.n0 - c * chunk)
            per_level = []
            for d in range(1, levels + 1):
                src = None if d == 1 else self.bufs[(d - 1) % 2]  # None: the chunk's roots
                per_level.append((src, (np.int32(d), lc[2 * (d - 1) + 1:2 * d], np.int64(n_c if d == 1 else cap),
                                        self.bufs[d % 2], np.int64(cap), lc[2 * d:2 * d + 2])))
            self.launches.append(per_level)
        self.head, self.tail, self.firsts, self.grp = head, tail, firsts, grp

    def _launch_all(self):
        cp = cupy()
        grp, chunk = self.grp, self.L["chunk"]
        for c, per_level in enumerate(self.launches):
            if self.firsts is not None:
                first = self.firsts[c]
            else:
                first = cp.asarray(grp.rows[c * chunk:c * chunk + chunk])
            for src, mid in per_level:
                self.kern(*self.grid, self.head + ((first if src is None else src),) + mid + self.tail)

    def run(self):
        """Counts of the group's plans (uint64 host array) and whether a CUDA graph ran them."""
        cp = cupy()
        with self.lock:
            if BATCH_GRAPHS and self.graph is None and self.graph_error is None and self.firsts is not None:
                try:  # captured on a stream of its own (the legacy default stream cannot capture): nothing runs
                    stream = cp.cuda.Stream(non_blocking=True)
                    with stream:
                        stream.begin_capture()
                        try:
                            self._launch_all()
                        finally:
                            graph = stream.end_capture()
                    self.graph = graph
                except Exception as e:  # noqa: BLE001 -- no capture here: plain launches
                    self.graph_error = repr(e)
            # the graph runs on the caller's stream, behind the uploads queued there (engine arrays, root
            # items, plan tables, the counters' reset). Launched on the capture stream, which is
            # non-blocking, it could start before those copies landed whenever the copy engine was slow
            # (another process on the GPU): kernels read unwritten indices (illegal address).
            self.ctr.set(self.host)
            if self.graph is not None:
                self.graph.launch()
            else:
                self._launch_all()
            out = self.counts.get()
        _check_overflow_flag(int(out[self.nq]))
        return out[:self.nq], self.graph is not None


def _run_batch_group(G, grp, budget, deep_items, stats):
    """Count every plan of the group; returns the per-plan counts (uint64 host array)."""
    cp = cupy()
    if deep_items is not None:
        deep_items = _deep_threshold(deep_items)
    L = batch_layout(grp.n0, grp.kmax, max(G.max_degree, 1), budget, _sm_count(cp.cuda.Device().id), deep_items)
    key = (L["warps"], L["threshold"], L["cap"], L["chunk"], bool(BATCH_GRAPHS), bool(FAST_LAST), bool(BATCH_WARP_SEARCH))
    run = grp.runs.get(key)
    if run is None:
        if len(grp.runs) >= 4:
            grp.runs.clear()
        run = grp.runs[key] = _BatchRun(G, grp, L)
    got, graphed = run.run()
    stats["launches"] = stats.get("launches", 0) + L["chunks"] * L["levels"]
    stats["warps"] = L["warps"]
    stats["level_capacity"] = L["cap"]
    stats["threshold"] = L["threshold"]
    stats["root_items"] = stats.get("root_items", 0) + grp.n0
    stats["chunks"] = stats.get("chunks", 0) + L["chunks"]
    stats["cuda_graph"] = bool(graphed)
    if run.graph_error:
        stats["cuda_graph_error"] = run.graph_error
    return got


def count_plans_batch_gpu(G, plans, *, memory_budget=None, deep_items=None):
    """Count many plans on the GPU at once; returns (counts as Python ints, one per plan, stats dict).

    Plans with the same label flags share one packed table, one array of work items (rows
    ``[query, f0, ..., f_{d-1}]``) and one launch per depth (``enum_batch_level``): levels are
    expanded breadth-first across all queries while they have fewer than ``deep_items`` items
    (default ``BATCH_MAX_ITEMS``: while a level fits its array; children past the array are
    searched depth first by the warp that found them), then each item's subtree is searched depth
    first; no launch
    waits on a read-back, and the counts come back in one copy. ``memory_budget`` bounds the warp
    stacks and the two level arrays (a level that would not fit is searched depth first instead,
    and the roots are cut into chunks), so a batch never needs more than it.

    Examples
    --------
    >>> import la_gpm  # doctest: +SKIP
    >>> from la_gpm.exact.plans import plan_for  # doctest: +SKIP
    >>> G = la_gpm.datasets.load("karate")  # doctest: +SKIP
    >>> count_plans_batch_gpu(G, [plan_for(G, la_gpm.Pattern.named(p)) for p in ("4-cycle", "diamond")])[0]  # doctest: +SKIP
    [154, 151]
    """

    cupy()
    t0 = time.perf_counter()
    budget = resolve_budget(memory_budget)
    plans = list(plans)
    counts = [0] * len(plans)
    groups = {}
    for i, plan in enumerate(plans):
        if plan.k > MAX_K:
            raise InvalidArgument(f"the GPU engine takes patterns of up to {MAX_K} vertices; plans[{i}] has k={plan.k}")
        if plan.k == 1:
            counts[i] = int(plan_roots(G, plan)[1].shape[0])
            continue
        groups.setdefault((plan.vertex_labels is not None, plan.edge_labels is not None), []).append(i)
    stats = {"backend": "gpu", "groups": len(groups)}
    for (vl, el), members in groups.items():
        grp = _batch_group(G, [plans[i] for i in members], vl, el)
        got = _run_batch_group(G, grp, budget, deep_items, stats)
        for j, i in enumerate(members):
            counts[i] = int(got[j])
    stats["seconds"] = time.perf_counter() - t0
    return counts, stats
