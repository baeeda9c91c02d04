"""CuPy driver of the batch-dynamic search: the items of :mod:`.cpu`, one warp each (``gamma.cu``).

The store's arrays (:mod:`.store`: rows over one arc buffer) live on the device between batches, as a
mirror: a batch sends only what changed since the mirror's last batch, the touched rows' (begin, end)
and their merged arcs at the buffer's tail (both sides, every query); the whole store is sent again
only when the host replaced its arrays (growth, compaction).  Plan tables go once per plan.  Warps
are persistent and take items from a global counter; their stacks (k levels of at most max-degree
candidates) live in global memory, and as many warps run as ``config.memory_budget`` allows for
them (at most 32 per multiprocessor).

Counting a query of five vertices or more, a warp whose item runs past ``config.dynamic_gpu_split_us`` once
every item has been taken hands what it has not searched on as pieces (``gamma.cu``'s notes); the
pieces run in a next launch, and so on until no piece is handed on.  A batch of few heavy items
(human's 10-vertex tree at 0.1%: 28 items) then keeps every warp busy instead of 28.  Listing runs
the items whole: its rows go to offsets the counts fixed per item.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..device import block_size, cupy, kernel, oom_guard, sm_count
from ..config import config
from .cpu import exact_counts

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


def _twin_levels(plan) -> np.ndarray:
    """The first twin level of each start pair's plan (F_TWIN[p, 0, 0]: levels tw .. k-1 are twins), 0 for none and
    for closed twins (kinds 3 / 4: their cliques are counted on the CPU only; the kernel enumerates them)."""
    if plan.twin is None or plan.k < 5:
        return np.zeros(plan.pairs.shape[0], dtype=np.int32)
    return np.ascontiguousarray(np.where(plan.twin[:, 1] >= 3, 0, plan.twin[:, 0]), dtype=np.int32)


def _plan(plan):
    return _on_device(_PLANS, plan, lambda: (*(np.ascontiguousarray(a, dtype=np.int32) for a in plan.tables()),
                                             _twin_levels(plan)),
                      "copying the query plan to the GPU")


def _cand(cand):
    idx = cand.idx if cand.idx.size else np.zeros(1, np.int32)
    return _on_device(_CAND, cand, lambda: (cand.ct, cand.ptr, idx), "copying the candidate table to the GPU")


_STUBS = {}           # device -> arrays passed where a launch reads no pieces and writes none


def _stub():
    cp = cupy()
    dev = cp.cuda.runtime.getDevice()
    if dev not in _STUBS:
        _STUBS[dev] = (cp.zeros(1, dtype=cp.int64), cp.zeros(1, dtype=cp.int32), cp.zeros(1, dtype=cp.int32))
    return _STUBS[dev]


_MAX_ROUNDS = 64     # launches of hand-ons at most; the last runs without (every piece ends then: a safety bound)


def _run(items, upd, plan, S, op, cand, counts_only, offsets=None, total=0):
    cp = cupy()
    nit = items.shape[0]
    k = plan.k
    maxdeg = max(S.maxdeg, 1)
    block = block_size()
    per_warp = k * maxdeg * 4
    most = max(1, min(config.memory_budget // per_warp, sm_count() * 32))   # warps whose stacks fit
    # hand-ons (counting, 5 query vertices or more: a piece needs a level to search above the last two)
    budget = config.dynamic_gpu_split_us * 1000 if counts_only and k >= 5 else 0
    pw = max(k - 4, 1)       # a piece's path: its levels 2 .. first - 1, and its first level is at most last - 1
    bpw = block // 32

    def grid(units):
        return (min(units, most) + bpw - 1) // bpw

    with oom_guard("batch-dynamic matching"):
        m = _mirror(S, op)
        tabs = _plan(plan)
        d_ct, d_cptr, d_cidx = _cand(cand)
        d_items = cp.asarray(items)
        d_upd = cp.asarray(upd)
        bufs = cp.empty((grid(most) if budget else grid(nit)) * bpw * k * maxdeg, dtype=cp.int32)
        # per item: its count mod 2^64, then its carries; [2 nit]: how many pieces the first launch handed on
        counts = cp.zeros(2 * nit + 1, dtype=cp.uint64)
        if counts_only:
            d_off = cp.zeros(1, dtype=cp.int64)
            out = cp.zeros(1, dtype=cp.int64)
        else:
            d_off = cp.asarray(offsets)
            out = cp.empty(max(total, 1) * k, dtype=cp.int64)
        f = kernel(__package__, "gamma", "gamma_items")

        def launch(units, pieces, src, limit, hcur, dst):
            f((grid(units),), (block,),
              (d_items, np.int64(units), d_upd, *tabs, np.int32(k), m.rows, m.idx, m.st, m.od, m.el,
               np.int32(S.labeled), d_ct, d_cptr, d_cidx, bufs, np.int64(maxdeg), cp.zeros(1, dtype=cp.uint64),
               counts, d_off, out, np.int32(0 if counts_only else 1), np.int64(nit), np.int32(pieces), *src,
               np.int32(pw), np.int64(limit), hcur, np.int64(cap), *dst))

        stub = _stub()
        cap = 0
        hand = [stub, stub]
        if budget:   # two sets of pieces (one read, one written): 2M pieces each, both within a quarter of the
            # memory budget (4,096 pieces at least); a warp whose pieces do not fit searches on
            cap = int(min(1 << 21, max(4096, config.memory_budget // (8 * (12 + 4 * pw)))))
            hand = [(cp.empty(cap, cp.int64), cp.empty(cap, cp.int32), cp.empty(cap * pw, cp.int32)) for _ in range(2)]
        launch(nit, 0, stub, budget, counts[2 * nit:], hand[0])
        if not counts_only:
            return out[:total * k].get().reshape(total, k)
        got = counts.get()
        handed, rounds, pieces = int(got[2 * nit]), 0, 0
        while handed:       # the pieces handed on, launched until none is handed on again
            rounds += 1
            pieces += handed
            hcur = cp.zeros(1, dtype=cp.uint64)
            launch(handed, 1, hand[(rounds - 1) % 2], budget if rounds < _MAX_ROUNDS else 0, hcur, hand[rounds % 2])
            handed = int(hcur.get()[0])
        if rounds:
            got = counts.get()
            S.gpu_launches += rounds
            S.gpu_pieces += pieces
        return exact_counts(got[:nit], got[nit:2 * nit], 64)


def count_items(items, upd, plan, S, op, cand) -> np.ndarray:
    """Matches found by each work item (int64 per item; Python ints where one is past int64), on the current CUDA
    device."""
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
