"""CuPy driver of the batch-dynamic search: the items of :mod:`.cpu`, one warp each (``gamma.cu``).

The store's arrays (:mod:`.store`: rows over one arc buffer) live on the device between batches, as a
mirror: a batch sends only what changed since the mirror's last batch, the touched rows' (begin, end)
and their merged arcs at the buffer's tail (both sides, every query); the whole store is sent again
only when the host replaced its arrays (growth, compaction).  Plan tables go once per plan.  Warps
are persistent and take items from a global counter; their stacks (k levels of at most max-degree
candidates) live in global memory, and as many warps run as ``config.memory_budget`` allows for
them (at most 32 per multiprocessor).
"""

from __future__ import annotations

import weakref

import numpy as np

from ..device import block_size, cupy, kernel, oom_guard, sm_count
from ..config import config

__all__ = ["count_items", "list_items"]

_MIRRORS = weakref.WeakKeyDictionary()   # ArcStore -> _Mirror
_PLANS = weakref.WeakKeyDictionary()     # DeltaPlan -> its device tables
_CAND = weakref.WeakKeyDictionary()      # Candidates -> device (table, list offsets, lists)


def _on_device(store, owner, arrays, what):
    """The device copies of ``arrays()`` (host arrays of ``owner``), made once per owner object."""
    got = store.get(owner)
    if got is None:
        cp = cupy()
        with oom_guard(what):
            got = tuple(cp.asarray(a) for a in arrays())
        store[owner] = got
    return got


class _Mirror:
    """Device copies of a store's rows and arc arrays, and what the last batch changed on the host."""

    def __init__(self, S):
        cp = cupy()
        self.generation = S.generation
        self.rows = cp.asarray(S.rows)
        cap = S.idx.shape[0]
        self.idx = cp.empty(cap, dtype=cp.int32)
        self.st = cp.zeros(cap, dtype=cp.int8)
        self.od = cp.full(cap, -1, dtype=cp.int32)
        self.el = cp.asarray(S.el) if not S.labeled else cp.empty(cap, dtype=cp.int64)
        u = S.used
        self.idx[:u] = cp.asarray(S.idx[:u])
        self.st[:u] = cp.asarray(S.st[:u])
        self.od[:u] = cp.asarray(S.od[:u])
        if S.labeled:
            self.el[:u] = cp.asarray(S.el[:u])
        self.touched = None   # rows and arc range the last batch wrote (its revert or commit changed them again)
        self.lo = self.hi = 0

    def fits(self, S) -> bool:
        return (self.generation == S.generation and self.rows.shape[0] == S.rows.shape[0]
                and self.idx.shape[0] == S.idx.shape[0])

    def send(self, S, touched, lo, hi):
        cp = cupy()
        if touched.size:
            self.rows[cp.asarray(touched)] = cp.asarray(S.rows[touched])
        if hi > lo:
            self.idx[lo:hi] = cp.asarray(S.idx[lo:hi])
            self.st[lo:hi] = cp.asarray(S.st[lo:hi])
            self.od[lo:hi] = cp.asarray(S.od[lo:hi])
            if S.labeled:
                self.el[lo:hi] = cp.asarray(S.el[lo:hi])


def _mirror(S, op):
    """The store on the device as the batch ``op`` opened it: only the changed rows and arcs are sent."""
    m = _MIRRORS.get(S)
    with oom_guard("copying the dynamic graph to the GPU"):
        if m is None or not m.fits(S):
            m = _MIRRORS[S] = _Mirror(S)      # everything, this batch's rows included
        else:
            if m.touched is not None:          # what the last batch's revert / commit changed
                m.send(S, m.touched, m.lo, min(m.hi, S.used))
            m.send(S, op.touched, op.lo, op.hi)
    m.touched, m.lo, m.hi = op.touched, op.lo, op.hi
    return m


def _plan(plan):
    return _on_device(_PLANS, plan, lambda: (np.ascontiguousarray(a, dtype=np.int32) for a in plan.tables()),
                      "copying the query plan to the GPU")


def _cand(cand):
    idx = cand.idx if cand.idx.size else np.zeros(1, np.int32)
    return _on_device(_CAND, cand, lambda: (cand.ct, cand.ptr, idx), "copying the candidate table to the GPU")


def _run(items, upd, plan, S, op, cand, counts_only, offsets=None, total=0):
    cp = cupy()
    nit = items.shape[0]
    k = plan.k
    maxdeg = max(S.maxdeg, 1)
    block = block_size()
    per_warp = k * maxdeg * 4
    warps = min(nit, max(1, config.memory_budget // per_warp), sm_count() * 32)
    warps = max(1, warps)
    grid = (warps + block // 32 - 1) // (block // 32)
    warps = grid * (block // 32)
    with oom_guard("batch-dynamic matching"):
        m = _mirror(S, op)
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
        f((grid,), (block,), (d_items, np.int64(nit), d_upd, *tabs, np.int32(k), m.rows, m.idx, m.st, m.od, m.el,
                             np.int32(S.labeled), d_ct, d_cptr, d_cidx, bufs, np.int64(maxdeg), nxt,
                             counts, d_off, out, np.int32(0 if counts_only else 1)))
        if counts_only:
            return counts[:nit].get().astype(np.int64)
        return out[:total * k].get().reshape(total, k)


def count_items(items, upd, plan, S, op, cand) -> np.ndarray:
    """Matches found by each work item (int64 per item), on the current CUDA device."""
    if items.shape[0] == 0:
        return np.zeros(0, np.int64)
    return _run(items, upd, plan, S, op, cand, True)


def list_items(items, upd, plan, S, op, cand, counts) -> np.ndarray:
    """The matches, each item's rows at its prefix-sum offset (the same rows as the cpu engine)."""
    total = int(counts.sum())
    if total == 0:
        return np.zeros((0, plan.k), np.int64)
    offsets = np.zeros(items.shape[0], dtype=np.int64)
    np.cumsum(counts[:-1], out=offsets[1:])
    return _run(items, upd, plan, S, op, cand, False, offsets, total)
