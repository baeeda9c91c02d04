"""numba engine for batch-dynamic matching: a depth-first search per work item.

A work item ``(j, p, base, lo, hi, side)`` maps start pair p of the plan onto update j
(``M[0], M[1] = update j``) and searches the rest of the query depth first.  Level 2 reads
positions ``[lo, hi)`` of the row of its base parent (item splitting: a hub update becomes
several items), deeper levels read the shortest parent row and check the other parents by
binary search.  ``side`` is the state searched: INSERTED (positive matches) or DELETED
(negative), so one pass (one kernel launch) serves both sides.  The exactly-once rule of GAMMA (Guo et al.'s total order): working on update i,
an arc may be used for a query edge only if it is kept or has the searched side's state with
order id > i, and a query non-edge (induced) may land on a pair only if it is not an arc or is
an arc of the other side's state with order id > i.  The last level is counted, not stored,
unless the matches are listed (a second pass writes each item's rows at its prefix-sum offset).

The CUDA kernel ``gamma.cu`` runs the same items with one warp each; both read the same tables.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..backends.cpu.sorted_ops import lower_bound
from ..config import config

__all__ = ["count_items", "list_items"]


@nb.njit(cache=True)
def _gen(l, p, M, i, new, old, base, lo_off, hi_off, order, npar, par, parel, nanti, anti, ninj, inj, nlow, low, nup, up,
         uptr, uidx, ust, uod, uel, el_on, ct, buf, store):
    qv = np.uint32(order[p, l])
    npl = npar[p, l]
    if base < 0:  # the shortest parent row
        base = 0
        best = uptr[M[par[p, l, 0]] + 1] - uptr[M[par[p, l, 0]]]
        for s in range(1, npl):
            w = M[par[p, l, s]]
            d = uptr[w + 1] - uptr[w]
            if d < best:
                best = d
                base = s
    bv = M[par[p, l, base]]
    rs = uptr[bv]
    lo = rs
    hi = uptr[bv + 1]
    if hi_off >= 0:
        lo = rs + lo_off
        hi = rs + hi_off
    # symmetry bounds: rows are sorted, so c > M[low] and c < M[up] are a window of the base row
    # (a level left out of the search, M = -1, bounds nothing: the pair count of _run_item)
    for t in range(nlow[p, l]):
        if M[low[p, l, t]] >= 0:
            lo = max(lo, lower_bound(uidx, lo, hi, M[low[p, l, t]] + 1))
    for t in range(nup[p, l]):
        if M[up[p, l, t]] >= 0:
            hi = min(hi, lower_bound(uidx, lo, hi, M[up[p, l, t]]))
    bel = parel[p, l, base]
    cnt = 0
    for q in range(lo, hi):
        s = ust[q]
        if not (s == 0 or (s == new and uod[q] > i)):
            continue
        if el_on and bel >= 0 and uel[q] != bel:
            continue
        c = uidx[q]
        if not (ct[c] >> qv) & np.uint32(1):
            continue
        ok = True
        for t in range(ninj[p, l]):
            if M[inj[p, l, t]] == c:
                ok = False
                break
        if not ok:
            continue
        for t in range(npl):
            if t == base:
                continue
            w = M[par[p, l, t]]
            e = uptr[w + 1]
            pos = lower_bound(uidx, uptr[w], e, c)
            if pos >= e or uidx[pos] != c:
                ok = False
                break
            s2 = ust[pos]
            if not (s2 == 0 or (s2 == new and uod[pos] > i)):
                ok = False
                break
            if el_on and parel[p, l, t] >= 0 and uel[pos] != parel[p, l, t]:
                ok = False
                break
        if not ok:
            continue
        for t in range(nanti[p, l]):
            w = M[anti[p, l, t]]
            e = uptr[w + 1]
            pos = lower_bound(uidx, uptr[w], e, c)
            if pos < e and uidx[pos] == c and not (ust[pos] == old and uod[pos] > i):
                ok = False
                break
        if not ok:
            continue
        if store:
            buf[l, cnt] = c
        cnt += 1
    return cnt


@nb.njit(cache=True)
def _emit(out, row, p, order, M, k):
    for lv in range(k):
        out[row, order[p, lv]] = M[lv]


@nb.njit(cache=True)
def _pairs(a, na, b, nb_, rel):
    """Pairs (x in a[:na], y in b[:nb_]), x != y, of two ascending arrays: all of them (rel 1), those with
    y > x (rel 2) or y < x (rel 3); one merge."""
    if rel == 1:
        i = 0
        j = 0
        c = 0
        while i < na and j < nb_:
            if a[i] < b[j]:
                i += 1
            elif a[i] > b[j]:
                j += 1
            else:
                c += 1
                i += 1
                j += 1
        return na * nb_ - c
    total = 0
    i = 0
    for j in range(nb_):         # i = #{x < y}
        while i < na and a[i] < b[j]:
            i += 1
        if rel == 2:
            total += i
        else:
            total += na - i - (1 if i < na and a[i] == b[j] else 0)
    return total


@nb.njit(cache=True)
def _run_item(it, items, upd, order, npar, par, parel, nanti, anti, ninj, inj, nlow, low, nup, up, indep,
              uptr, uidx, ust, uod, uel, el_on, ct, k, buf, cnt, pos, M, out, at, listing):
    j = items[it, 0]
    p = items[it, 1]
    new = items[it, 5]  # the searched side: INSERTED (positive) or DELETED (negative)
    old = 3 - new
    i = j  # the update's order id
    M[0] = upd[j, 0]
    M[1] = upd[j, 1]
    last = k - 1
    if k == 2:
        if listing:
            _emit(out, at, p, order, M, k)
        return 1
    # counting with an independent last level: the last two levels give |S| |S'| - |S ∩ S'| (S' found with
    # the level before it left out (M = -1); both are ascending: read from sorted rows), or with a symmetry
    # bound between them the pairs x < y (or x > y), by one merge
    pair = (not listing) and indep[p] > 0
    c2 = _gen(2, p, M, i, new, old, items[it, 2], items[it, 3], items[it, 4], order, npar, par, parel, nanti,
              anti, ninj, inj, nlow, low, nup, up, uptr, uidx, ust, uod, uel, el_on, ct, buf, listing or last > 2)
    if last == 2:
        if listing:
            for t in range(c2):
                M[2] = buf[2, t]
                _emit(out, at + t, p, order, M, k)
        return c2
    if pair and last == 3:
        if c2 == 0:
            return 0
        M[2] = -1
        c3 = _gen(3, p, M, i, new, old, -1, 0, -1, order, npar, par, parel, nanti, anti, ninj, inj, nlow, low, nup,
                  up, uptr, uidx, ust, uod, uel, el_on, ct, buf, True)
        return _pairs(buf[2], c2, buf[3], c3, indep[p])
    total = 0
    cnt[2] = c2
    pos[2] = 0
    lv = 2
    while True:
        if pos[lv] >= cnt[lv]:
            if lv == 2:
                break
            lv -= 1
            pos[lv] += 1
            continue
        M[lv] = buf[lv, pos[lv]]
        if lv + 1 == last:
            c = _gen(last, p, M, i, new, old, -1, 0, -1, order, npar, par, parel, nanti, anti, ninj, inj, nlow, low, nup,
                     up, uptr, uidx, ust, uod, uel, el_on, ct, buf, listing)
            if listing:
                for t in range(c):
                    M[last] = buf[last, t]
                    _emit(out, at + total + t, p, order, M, k)
            total += c
            pos[lv] += 1
        elif pair and lv + 2 == last:
            a = _gen(lv + 1, p, M, i, new, old, -1, 0, -1, order, npar, par, parel, nanti, anti, ninj, inj, nlow, low,
                     nup, up, uptr, uidx, ust, uod, uel, el_on, ct, buf, True)
            if a:
                M[lv + 1] = -1
                b = _gen(last, p, M, i, new, old, -1, 0, -1, order, npar, par, parel, nanti, anti, ninj, inj, nlow,
                         low, nup, up, uptr, uidx, ust, uod, uel, el_on, ct, buf, True)
                total += _pairs(buf[lv + 1], a, buf[last], b, indep[p])
            pos[lv] += 1
        else:
            cnt[lv + 1] = _gen(lv + 1, p, M, i, new, old, -1, 0, -1, order, npar, par, parel, nanti, anti, ninj, inj,
                               nlow, low, nup, up, uptr, uidx, ust, uod, uel, el_on, ct, buf, True)
            pos[lv + 1] = 0
            lv += 1
    return total


def _drive_impl(items, upd, order, npar, par, parel, nanti, anti, ninj, inj, nlow, low, nup, up, indep, uptr, uidx, ust, uod, uel,
           el_on, ct, k, maxdeg, nchunks, counts, offsets, out, listing):
    nit = items.shape[0]
    for c in nb.prange(nchunks):
        buf = np.empty((k, max(maxdeg, 1)), dtype=uidx.dtype)
        cnt = np.zeros(k, dtype=np.int64)
        pos = np.zeros(k, dtype=np.int64)
        M = np.zeros(k, dtype=np.int64)
        for it in range(c, nit, nchunks):  # items are sorted by cost: round robin balances the chunks
            at = offsets[it] if listing else 0
            counts[it] = _run_item(it, items, upd, order, npar, par, parel, nanti, anti, ninj, inj, nlow, low, nup, up, indep,
                                   uptr, uidx, ust, uod, uel, el_on, ct, k, buf, cnt, pos, M, out, at, listing)


_drive_par = nb.njit(parallel=True, cache=True)(_drive_impl)
_drive_ser = nb.njit(cache=True)(_drive_impl)  # small batches: no parallel region


def _drive(items, *args):
    work = int((items[:, 4] - items[:, 3]).sum()) + items.shape[0] if items.shape[0] else 0
    f = _drive_par if work >= config.parallel_min else _drive_ser
    f(items, *args)


def _args(items, upd, plan, U, ct):
    el_on = U.elab is not None
    uel = U.elab if el_on else np.zeros(1, np.int64)
    maxdeg = int(np.diff(U.ptr).max()) if U.n else 0
    return (items, upd, *plan.tables(), U.ptr, U.idx, U.state, U.order, uel, el_on, ct, plan.k, maxdeg)


def _chunks(nitems: int) -> int:
    return max(1, min(nitems, nb.get_num_threads() * 16))


def count_items(items, upd, plan, U, ct) -> np.ndarray:
    """Matches found by each work item (int64 per item)."""
    counts = np.zeros(items.shape[0], dtype=np.int64)
    if items.shape[0]:
        _drive(*_args(items, upd, plan, U, ct), _chunks(items.shape[0]), counts,
               np.zeros(1, np.int64), np.zeros((1, 1), np.int64), False)
    return counts


def list_items(items, upd, plan, U, ct, counts) -> np.ndarray:
    """The matches (rows: data vertex of each query vertex), each item's at its prefix-sum offset."""
    offsets = np.zeros(items.shape[0], dtype=np.int64)
    if items.shape[0] > 1:
        np.cumsum(counts[:-1], out=offsets[1:])
    total = int(counts.sum())
    out = np.empty((total, plan.k), dtype=np.int64)
    if total:
        again = np.zeros(items.shape[0], dtype=np.int64)
        _drive(*_args(items, upd, plan, U, ct), _chunks(items.shape[0]), again, offsets, out, True)
    return out
