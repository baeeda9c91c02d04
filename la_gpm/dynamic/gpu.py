"""CuPy driver of the batch-dynamic search: the items of :mod:`.cpu`, one warp each (``gamma.cu``).

The union graph of a batch is copied to the device once and shared by every query and both
sides (positive, negative) of that batch; the plan tables once per plan.  Warps are
persistent and take items from a global counter; their stacks (k levels of at most
max-degree candidates) live in global memory, and as many warps run as
``config.memory_budget`` allows for them (at most 32 per multiprocessor).
"""

from __future__ import annotations

import weakref

import numpy as np

from ..device import block_size, cupy, kernel, oom_guard, sm_count
from ..config import config

__all__ = ["count_items", "list_items"]

_UNION = weakref.WeakKeyDictionary()   # UnionGraph -> its device arrays
_PLANS = weakref.WeakKeyDictionary()   # DeltaPlan -> its device tables
_CAND = weakref.WeakKeyDictionary()    # Candidates -> device (table, list offsets, lists)


def _on_device(store, owner, arrays, what):
    """The device copies of ``arrays()`` (host arrays of ``owner``), made once per owner object."""
    got = store.get(owner)
    if got is None:
        cp = cupy()
        with oom_guard(what):
            got = tuple(cp.asarray(a) for a in arrays())
        store[owner] = got
    return got


def _union(U):
    el = U.elab if U.elab is not None else np.zeros(1, np.int64)
    return _on_device(_UNION, U, lambda: (U.ptr, U.idx, U.state, U.order, el),
                      "copying the batch's union graph to the GPU")


def _plan(plan):
    return _on_device(_PLANS, plan, lambda: (np.ascontiguousarray(a, dtype=np.int32) for a in plan.tables()),
                      "copying the query plan to the GPU")


def _cand(cand):
    idx = cand.idx if cand.idx.size else np.zeros(1, np.int32)
    return _on_device(_CAND, cand, lambda: (cand.ct, cand.ptr, idx), "copying the candidate table to the GPU")


def _run(items, upd, plan, U, cand, counts_only, offsets=None, total=0):
    cp = cupy()
    nit = items.shape[0]
    k = plan.k
    maxdeg = max(int(np.diff(U.ptr).max()) if U.n else 1, 1)
    block = block_size()
    per_warp = k * maxdeg * 4
    warps = min(nit, max(1, config.memory_budget // per_warp), sm_count() * 32)
    warps = max(1, warps)
    grid = (warps + block // 32 - 1) // (block // 32)
    warps = grid * (block // 32)
    with oom_guard("batch-dynamic matching"):
        ptr, idx, st, od, el = _union(U)
        tabs = _plan(plan)
        d_ct, d_cptr, d_cidx = _cand(cand)
        d_items = cp.asarray(items)
        d_upd = cp.asarray(upd)
        bufs = cp.empty(warps * k * maxdeg, dtype=cp.int32)
        nxt = cp.zeros(1, dtype=cp.uint64)
        counts = cp.zeros(max(nit, 1), dtype=cp.uint64)
        if counts_only:
            d_off = cp.zeros(1, dtype=cp.int64)
            out = cp.zeros(1, dtype=cp.int64)
        else:
            d_off = cp.asarray(offsets)
            out = cp.empty(max(total, 1) * k, dtype=cp.int64)
        f = kernel(__package__, "gamma", "gamma_items")
        f((grid,), (block,), (d_items, np.int64(nit), d_upd, *tabs, np.int32(k), ptr, idx, st, od, el,
                             np.int32(U.elab is not None), d_ct, d_cptr, d_cidx, bufs, np.int64(maxdeg), nxt,
                             counts, d_off, out, np.int32(0 if counts_only else 1)))
        if counts_only:
            return counts[:nit].get().astype(np.int64)
        return out[:total * k].get().reshape(total, k)


def count_items(items, upd, plan, U, cand) -> np.ndarray:
    """Matches found by each work item (int64 per item), on the current CUDA device."""
    if items.shape[0] == 0:
        return np.zeros(0, np.int64)
    return _run(items, upd, plan, U, cand, True)


def list_items(items, upd, plan, U, cand, counts) -> np.ndarray:
    """The matches, each item's rows at its prefix-sum offset (the same rows as the cpu engine)."""
    total = int(counts.sum())
    if total == 0:
        return np.zeros((0, plan.k), np.int64)
    offsets = np.zeros(items.shape[0], dtype=np.int64)
    np.cumsum(counts[:-1], out=offsets[1:])
    return _run(items, upd, plan, U, cand, False, offsets, total)
