"""The small-batch lane's per-update path: a batch with a few relevant updates, applied one update at a time.

On a graph with many labels most updates of a small batch are ones no query can use (query views drop them);
the rest are one or two.  The batch path (:mod:`.lane`) pays a fixed cost for any batch that keeps one: the net
effect and layout, the union's rows, the tables and lists of the union, the work items, the commit, each a pass
with its own arrays, about 5 us on yeast / HPRD (cycle counters, session 14), against RapidFlow's 1 us per
update.  This path applies the batch's net updates in turn, **deletes first, then inserts**, each as a batch of
one, and searches each on the graph of its turn:

* a delete (x, y): its two arcs are marked deleted in place (state 2, order 0), its matches on the graph before
  it are counted (the negative side), the marks are cleared, and the arc taken out of rows x and y (below); then
  the degree, label counts, candidate bits and lists of x and y;
* an insert: the arc put into rows x and y (state 1, order 0), the tables of x and y updated, its matches on the
  graph after it counted (the positive side), the arc made kept.

(An update no query can use, in the whole-graph mode: its rows only; the tables count relevant edges,
filter.NLFState.)

Why the sums are the batch's (non-induced queries): with G the graph before, K the kept edges and G' the graph
after, deleting the net deletes one by one walks G = G_0 ⊃ G_1 ⊃ ... ⊃ G_b = K, and the matches delete i
destroys are those of G_{i-1} with its edge; they telescope to |M(G)| - |M(K)|, the batch's negatives.  Inserting
the net inserts walks K ⊂ ... ⊂ G', and the positives telescope to |M(G')| - |M(K)| (RapidFlow's stream of a
batch, deletes then inserts, reports the same).  An induced match can appear and vanish within the inserts (a
later insert adds an edge inside it), which the batch does not report, so an induced query takes this path for
batches of one net update only.

Everything is checked before anything changes: ids (a bad one or a new vertex: the general path), the net
effect (as :func:`.updates.net_layout` counts it: self-loops, repeats, pairs both inserted and deleted, inserts
of existing edges, deletes of missing ones), ``strict``, the room in the arc buffer (the rows copied), the
predicted work (enough for the parallel search: the batch path, which hands it to the general path).  In one
``apply`` rows are copied, never edited in place, so the commit log of :class:`.store.ArcStore` (live snapshots)
stays valid: ``touched`` and ``old_rows`` are the rows before the batch.  A stream run keeps no log (the store built
its snapshots first), so there a delete shifts its row down in place and an insert grows its row into the FREE slot
after it, copying the row to the tail, with slack, only when it has none (:func:`_put_arc`, :func:`_drop_arc`).
The graph, candidate bits and lists after a batch are those of the batch path; the work items are per update
(``stats["per_update"]``), so their number differs.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .cpu import (STEPS_OFF, TRI_BULK, TRI_LAB, TRI_MAXDEG, TRI_STAMP, TRI_VALID, clique_rows, count_serial,
                  gallop, items_bound, side_totals, start_items, tri_stale)
from .query import F_TRI, MAX_DYNAMIC_VERTICES
from .filter import add_pair, lazy_patch, patch_lists, stale_usable, usable_lists, vertex_bits
from .updates import pair_kept
from ..primitives.sorted_ops import lower_bound
from ..primitives.jit import flush_when_changed

__all__ = ["MICRO_MAX", "micro_run", "too_many", "first_kept", "start_pairs_of", "NOT_MICRO", "M_DONE",
           "M_FALLBACK", "M_SHORTCUT", "N_INFO", "I_ESCAPE"]

# At most this many relevant updates (before the net effect) take the per-update path (config.dynamic_per_update_max
# chooses up to it): each costs a search set-up (~0.3 us) and its rows' edits, against ~5 us of batch machinery for
# any number of them; the net effect is found pairwise (O(R^2) compares).
MICRO_MAX = 32
# ... or this many (at config.dynamic_per_update_max >= 8; in proportion below it) when the query has a triangle tail
# (cpu.F_TRI): its memo, kept by this path only, makes the search of a batch's updates one at a time cheaper than the
# batch path's (wordnet's sparse queries)
MICRO_TRI = 256
NET_SCAN = 8        # a batch's net effect: up to this many updates by a pairwise scan, more by a sort (_micro_batches)
NOT_MICRO, M_FALLBACK, M_DONE, M_SHORTCUT = -1, 0, 1, 2     # the last three: the lane's FALLBACK, DONE, SHORTCUT
# the slots of a batch's row of the lane's info table (written by this path and by lane._one)
(I_STATUS, I_POS, I_NEG, I_BIG, I_DROP_I, I_DROP_D, I_LOOPS, I_DUP, I_BOTH, I_EXIST, I_MISSING, I_INS, I_DEL,
 I_NPOS, I_NITEMS, I_USED, I_MAXDEG, I_LISTS, I_FULL, I_SEQ, I_STALE, I_ESCAPE) = range(22)
N_INFO = 22     # I_ESCAPE: a batch put back because its serial search ran past its budget (cpu.STEPS_OFF's notes)
INSERTED, DELETED = 1, 2
_BIG = 1 << 62


@nb.njit(cache=True, _nrt=False)
def start_pairs_of(cx, cy, pairs):
    """How many start pairs (a, b) an update x-y can take: bit a in ``cx`` (x's candidate bits) and bit b in
    ``cy``, before any other check (the lane's item bound, this path's work bound and its pre-search test)."""
    c = 0
    for p in range(pairs.shape[0]):
        c += (cx >> np.uint32(pairs[p, 0])) & (cy >> np.uint32(pairs[p, 1])) & np.uint32(1)
    return c


@nb.njit(cache=True, _nrt=False)
def _find(rows, idx, v, w):
    """Position of arc v -> w in row v, or -1.  The helpers here have one exit: numba keeps a reference count on
    each array an early-returning helper touches, an NRT call per array per call (updates.pair_kept)."""
    a = rows[v, 0]
    e = rows[v, 1]
    p = lower_bound(idx, a, e, w)
    hit = (p < e) & (idx[min(p, e - 1)] == w)
    return p if hit else -1


@nb.njit(cache=True, _nrt=False)
def _mark(st, od, px, py, state, order):
    """The update's two arcs (positions px, py) get ``state`` and ``order`` (0, -1: kept again)."""
    st[px] = state
    st[py] = state
    od[px] = order
    od[py] = order


@nb.njit(cache=True, _nrt=False)
def _copy_row(rows, idx, v, used, skip, add):
    """Row v copied to ``idx[used:]`` without position ``skip`` (>= 0) or with target ``add`` (>= 0) in its sorted
    place; rows[v] points at the copy.  Returns (the new used, the position of the added arc or -1).  The slots
    written were free (state 0, order -1 between batches: no state or order to write)."""
    a = rows[v, 0]
    e = rows[v, 1]
    cut = lower_bound(idx, a, e, add) if add >= 0 else skip    # element loops: a row is a few arcs, and a
    for j in range(a, cut):                                     # slice assignment checks for overlap and
        idx[used + j - a] = idx[j]                              # builds two views
    o = used + cut - a
    at = -1
    if add >= 0:
        idx[o] = add
        at = o
        o += 1
    else:
        cut += 1
    for j in range(cut, e):
        idx[o + j - cut] = idx[j]
    o += e - cut
    rows[v, 0] = used
    rows[v, 1] = o
    return o, at


# A slot of the arc buffer that no row holds and the row ending just before it may grow into (an idx value: an
# arc's target is never negative).  Only a stream run writes it (no commit log then: ArcStore.settle built the
# snapshots first): a row it copies gets ``_slack`` of them after it, and a delete it makes in place frees the row's
# last slot.  A row takes only the FREE slot at its end (or the tail's first), and the slot is then no longer FREE,
# so no two rows ever hold one slot (an empty row and the row ending where it starts may both look at one slot:
# whichever takes it first, the other then finds an arc there).
FREE = -1


@nb.njit(cache=True, _nrt=False)
def _slack(length):
    """Free slots left after a row of ``length`` arcs copied by a stream run (a quarter, and two more)."""
    return (length >> 2) + 2


@nb.njit(cache=True, _nrt=False)
def _put_arc(rows, idx, v, used, add):
    """A stream run's insert of arc v -> ``add`` (not in row v): in place where the row can grow by one slot (it
    ends at the buffer's tail ``used``, or before a FREE slot), else the row copied to the tail with
    ``_slack`` FREE slots after it.  Returns (the new used, the arc's position).  A row that grows in place keeps
    its place, so a stream run copies a row once per ``_slack`` inserts instead of twice per update (session 30).
    The slot taken was free (state 0, order -1), as every slot is between updates."""
    a = rows[v, 0]
    e = rows[v, 1]
    if e == used:
        used += 1
    elif idx[e] != FREE:
        used, at = _copy_row(rows, idx, v, used, -1, add)
        s = _slack(rows[v, 1] - rows[v, 0])
        for j in range(used, used + s):
            idx[j] = FREE
        return used + s, at
    cut = lower_bound(idx, a, e, add)
    for j in range(e, cut, -1):
        idx[j] = idx[j - 1]
    idx[cut] = add
    rows[v, 1] = e + 1
    return used, cut


@nb.njit(cache=True, _nrt=False)
def _drop_arc(rows, idx, v, p):
    """A stream run's delete of the arc at position ``p`` of row v, in place: the arcs after it move down one slot,
    and the row's last slot is FREE for a later insert."""
    e = rows[v, 1] - 1
    for j in range(p, e):
        idx[j] = idx[j + 1]
    rows[v, 1] = e
    idx[e] = FREE


@nb.njit(cache=True, _nrt=False)
def _items(x, y, side, upd1, ust1, uel1, ct, cptr, rows, T, pairs, pair_edge, pair_el, pair_cond, k, split, its, off):
    """The work items of the one-update batch (x, y) of state ``side`` on the graph as it is, written to the run's
    scratch ``its``, and how many (:func:`_search` takes the update from ``upd1`` / ``ust1`` as this leaves them).
    One pass: the caller makes room for cpu.items_bound items first (a count pass before it cost 300 cycles a
    search, a quarter of a yeast tree4 search's set-up).  Called only where a start pair can take x-y
    (:func:`start_pairs_of`)."""
    upd1[0, 0] = x
    upd1[0, 1] = y
    ust1[0] = side
    return start_items(upd1, ust1, uel1, ct, cptr, rows, T, pairs, pair_edge, pair_el, pair_cond, k, split, its,
                       not off)


@nb.njit(cache=True, _nrt=False)
def _search(ni, upd1, rows, idx, st, od, el, off, ct, cptr, cidx, T, k, no_rows, buf, cnt, pos, M, N, qcol, mk, its,
            cts, steps):
    """The counts of the ``ni`` (> 0) items :func:`_items` wrote to the run's scratch ``its``, into ``cts[:ni]``
    (the caller grows them first: :func:`_scratch`).  Every arc is kept but the
    update's, and ``N`` holds the label counts of the graph searched (with it), so leaf levels are counted from them
    (cpu.count_serial's ``leaf``).  (Items and counts allocated a search cost 0.2-0.3 us of the 1.1 us a search of
    yeast's tree4 took: two allocations, two frees and their reference counts.)  Returns whether it finished within
    ``steps[0]`` search steps (cpu.count_serial)."""
    return count_serial(its[:ni], upd1, T, rows, idx, st, od, el, off, ct, cptr, cidx, k, buf, cnt, pos, M, cts,
                        no_rows, N, qcol, not off, idx.shape[0] + 1, mk, steps)


@nb.njit(cache=True)
def _undo(net, t, dl, x, y, px, py, st, od, rows, idx, used, log, tvs, olds, nt, deg, N, vcol, on, vlab, ct, qlabeled,
          qlab, qdeg, qdem, tv, bits, nbits, cptr, cidx, k, lazy, stale, maxdeg, mk):
    """A batch put back after the search of its net update t (x-y) ran past its budget: t's two arcs unmarked (and,
    an insert being in before its search, taken out again with its table changes), the updates before it undone in
    reverse order (degree and label counts, candidate bits and lists), the triangle memo marked stale (its counts were
    edited).  Rows: one apply (``log``) copied them, never edited them, so the touched rows (``tvs[:nt]``) point at
    their rows before the batch again (``olds``) and the buffer's tail past the batch's first ``used`` is free (the
    caller returns that); a stream run edited them in place, so its inserts are dropped and its deletes put back in
    place (:func:`_drop_arc`, :func:`_put_arc`: the caller gave the batch room for twice its copies).  Returns the
    lists (ptr, idx), the stale mask and ``used``."""
    _mark(st, od, px, py, 0, -1)
    if not log and not dl:
        _drop_arc(rows, idx, x, px)
        _drop_arc(rows, idx, y, py)
    for u in range(t if not dl else t - 1, -1, -1):
        xu = net[u, 0]
        yu = net[u, 1]
        if not log and u < t:
            if net[u, 2] > 0:
                _drop_arc(rows, idx, xu, _find(rows, idx, xu, yu))
                _drop_arc(rows, idx, yu, _find(rows, idx, yu, xu))
            else:
                used, _ = _put_arc(rows, idx, xu, used, yu)
                used, _ = _put_arc(rows, idx, yu, used, xu)
        if _retable(xu, yu, deg, N, vcol, on, vlab, ct, qlabeled, qlab, qdeg, qdem, -net[u, 2], tv, bits, nbits):
            cptr, cidx, stale = _relist(cptr, cidx, tv, bits, nbits, k, lazy, stale, maxdeg)
    for i in range(nt if log else 0):
        rows[tvs[i], 0] = olds[i, 0]
        rows[tvs[i], 1] = olds[i, 1]
    tri_stale(mk)
    return cptr, cidx, stale, used


@nb.njit(cache=True)
def _scratch(ni):
    """Item and count scratch for searches of up to ``ni`` items."""
    return np.empty((ni, 6), np.int64), np.zeros(ni, np.int64)


@nb.njit(cache=True, _nrt=False)
def _retable(x, y, deg, N, vcol, on, vlab, ct, qlabeled, qlab, qdeg, qdem, sign, tv, bits, nbits):
    """x-y added (sign 1) or removed (-1) in the degree and label counts; the candidate bits of x and y
    recomputed.  Returns whether they changed (then ``tv`` holds x and y sorted, ``bits`` / ``nbits`` their bits
    before and after, for :func:`_relist`).  Scalars only: a helper that hands arrays back costs their reference
    counts (atomic, about a tenth of a per-update batch's time on yeast), so the lists are patched by the caller
    only where the bits changed."""
    add_pair(deg, N, vcol, x, y, sign, on)
    lo = min(x, y)
    hi = max(x, y)
    b0 = ct[lo]
    b1 = ct[hi]
    n0 = vertex_bits(lo, N, deg, vlab, qlabeled, qlab, qdeg, qdem)
    n1 = vertex_bits(hi, N, deg, vlab, qlabeled, qlab, qdeg, qdem)
    ct[lo] = n0
    ct[hi] = n1
    changed = (b0 != n0) | (b1 != n1)
    if changed:
        tv[0] = lo
        tv[1] = hi
        bits[0] = b0
        bits[1] = b1
        nbits[0] = n0
        nbits[1] = n1
    return changed


@nb.njit(cache=True, inline="always")
def _relist(cptr, cidx, tv, bits, nbits, k, lazy, stale, maxdeg):
    """The candidate lists after :func:`_retable` changed the bits of ``tv`` (``lazy``: :func:`.filter.lazy_patch`).
    Returns (ptr, idx, stale)."""
    if lazy:
        cptr, cidx, stale = lazy_patch(cptr, cidx, tv, bits, nbits, k, maxdeg, stale)
    else:
        cptr, cidx = patch_lists(cptr, cidx, tv, nbits, k)
    return cptr, cidx, stale


@nb.njit(cache=True)
def _tri_open(T, mk, rows, n, vcol, qcol, live):
    """A run's triangle memo (cpu.F_TRI) opened: the labels of new vertices written and, unless the counts of the
    last run are still those of the graph (cpu.TRI_VALID: no other path changed it since, and the columns hold the same
    label pairs; then they serve this run too), a new run id.  The run keeps them (TRI_VALID set to the columns'
    signature): every change it makes edits them (:func:`_tri_edit`).
    Returns the memo's label columns (c, 2), none when the query has no triangle tail or the mark array lacks the
    rows (then the memo is marked stale: this run changes the graph without editing it)."""
    nc = 0
    for p in range(T.shape[1]):
        if T[F_TRI, p, 0, 0] > 0:
            nc = max(nc, T[F_TRI, p, 0, 3] + 1)
    if nc == 0 or mk.shape[0] < TRI_STAMP + 2 * nc or mk.shape[1] < rows.shape[0] + 2:
        tri_stale(mk)
        return np.zeros((0, 2), np.int64)
    cols = np.empty((nc, 2), np.int64)
    for p in range(T.shape[1]):
        if T[F_TRI, p, 0, 0] > 0:
            cols[T[F_TRI, p, 0, 3], 0] = qcol[T[F_TRI, p, 1, 0]]
            cols[T[F_TRI, p, 0, 3], 1] = qcol[T[F_TRI, p, 1, 1]]
    e = mk.shape[1] - 1
    for v in range(mk[TRI_LAB, e], n):
        mk[TRI_LAB, v] = vcol[v] if v < vcol.shape[0] else -1
    mk[TRI_LAB, e] = max(mk[TRI_LAB, e], n)
    # the columns' label pairs, exactly (label columns -1 .. MAX_DYNAMIC_VERTICES - 1, at most three pairs: below 2^31):
    # counts kept for other pairs (a plan of the same query without symmetry numbers its columns in another order)
    # are not this run's
    sig = 0
    if nc <= 3:
        b = MAX_DYNAMIC_VERTICES + 1
        for c in range(nc):
            sig = sig * b * b + (cols[c, 0] + 1) * b + cols[c, 1] + 1
        sig += 1
    if sig > 0 and mk[TRI_VALID, e] == sig and mk[TRI_STAMP, e] > 0:
        return cols
    rid = mk[TRI_STAMP, e] + 1
    if rid >= (1 << 30):
        for c in range(nc):
            mk[TRI_STAMP + 2 * c, :e] = 0
        rid = 1
    mk[TRI_STAMP, e] = rid
    mk[TRI_VALID, e] = sig
    # the run counts its vertices one at a time until the rows counted pass 1 / TRI_BULK of the ``live`` arcs, then all
    # at once (cpu._tri_memo); the threshold and each column's arcs counted so far in the column after the vertices'
    mk[TRI_LAB, e - 1] = min(live // TRI_BULK, (1 << 31) - 1)
    for c in range(nc):
        mk[TRI_STAMP + 2 * c, e - 1] = 0
    return cols


@nb.njit(cache=True, _nrt=False)
def _tri_edit(rows, idx, x, y, sign, mk, cols):
    """Edge x-y added (``sign`` 1) or removed (-1) in the run's triangle memo: the counts of x, y and their common
    neighbours that this run holds (cpu.F_TRI), changed by the triangles through x-y; called with x-y in the rows
    (insert) or out of them (delete): their common neighbours are the same."""
    rid = mk[TRI_STAMP, mk.shape[1] - 1]
    lx = mk[TRI_LAB, x]
    ly = mk[TRI_LAB, y]
    x0 = rows[x, 0]
    x1 = rows[x, 1]
    y0 = rows[y, 0]
    y1 = rows[y, 1]
    if x1 - x0 > y1 - y0:
        a0, a1, b0, b1 = y0, y1, x0, x1
    else:
        a0, a1, b0, b1 = x0, x1, y0, y1
    for c in range(cols.shape[0]):
        sr = TRI_STAMP + 2 * c
        la = cols[c, 0]
        lb = cols[c, 1]
        hx = mk[sr, x] == rid
        hy = mk[sr, y] == rid
        xa = la < 0 or lx == la
        xb = lb < 0 or lx == lb
        ya = la < 0 or ly == la
        yb = lb < 0 or ly == lb
        dc = (1 if xa and yb else 0) + (1 if ya and xb else 0)    # at a common neighbour: (x, y) and (y, x)
        if dc == 0 and not hx and not hy:    # no count of this pair's changes (most updates of yeast's sparse4)
            continue
        r = b0
        for q in range(a0, a1):
            cv = idx[q]
            r = gallop(idx, r, b1, cv)
            if r >= b1:
                break
            if idx[r] != cv:
                continue
            lc = mk[TRI_LAB, cv]
            ca = la < 0 or lc == la
            cb = lb < 0 or lc == lb
            if mk[sr, cv] == rid:
                mk[sr + 1, cv] += sign * dc
            if hx:      # at x: (y, c) and (c, y)
                mk[sr + 1, x] += sign * ((1 if ya and cb else 0) + (1 if ca and yb else 0))
            if hy:
                mk[sr + 1, y] += sign * ((1 if xa and cb else 0) + (1 if ca and xb else 0))
        for v in (x, y):    # a row grown past the memo's bound is no longer kept
            if mk[sr, v] == rid and rows[v, 1] - rows[v, 0] > TRI_MAXDEG:
                mk[sr, v] = 0


@nb.njit(cache=True, _nrt=False)
def first_kept(ins, i0, i1, dele, d0, d1, code, n, table):
    """The first pair of a batch (its inserts ``ins[i0:i1]``, then its deletes ``dele[d0:d1]``, counted from 0)
    that the views do not drop (:func:`.updates.pair_kept`: a self-loop, an id out of range or a relevant pair),
    or -1 when they drop every one."""
    for t in range(i0, i1):
        if pair_kept(ins[t, 0], ins[t, 1], code, n, table) != 0:
            return t - i0
    for t in range(d0, d1):
        if pair_kept(dele[t, 0], dele[t, 1], code, n, table) != 0:
            return i1 - i0 + t - d0
    return -1


@nb.njit(cache=True, _nrt=False)
def _relevant_max(max_rel, wide):
    """The most relevant updates a batch of the per-update path may have: ``max_rel`` up to MICRO_MAX, or, ``wide``
    (a triangle tail whose memo the run keeps), 32 times it up to MICRO_TRI."""
    if wide:
        return min(max_rel, 8) * (MICRO_TRI // 8)
    return min(max_rel, MICRO_MAX)


@nb.njit(cache=True, _nrt=False)
def _update_at(ins_all, i0, nins, del_all, d0, t, use_rel, code, n, table):
    """Update t of a batch (``ins_all[i0:i0 + nins]``, then the deletes from ``del_all[d0]``): (x, y, r), r as
    :func:`.updates.pair_kept` gives it with the views (``use_rel``), else -1 for an id out of range and 1 for any
    other pair.  Built without reference counting (its early exits cost none)."""
    if t < nins:
        x = ins_all[i0 + t, 0]
        y = ins_all[i0 + t, 1]
    else:
        x = del_all[d0 + t - nins, 0]
        y = del_all[d0 + t - nins, 1]
    if use_rel:
        return x, y, pair_kept(x, y, code, n, table)
    return x, y, -1 if x < 0 or y < 0 or x >= n or y >= n else 1


@nb.njit(cache=True, _nrt=False)
def too_many(ins_all, i0, i1, del_all, d0, d1, use_rel, code, n, table, T, max_rel):
    """Whether batch (``ins_all[i0:i1]``, ``del_all[d0:d1]``) has more relevant updates than the per-update path
    takes for any plan of ``T`` (:func:`_micro_batches`' ``R``, at its largest), found before an id out of range:
    the path would give it back (NOT_MICRO) at once, so the lane sends it to the batch path without the call (the
    path's scratch, twenty arrays allocated and freed: about 170 reference counts a batch on wordnet's 120-update
    batches, session 42).  The same count, in the same order, as the path's step 1."""
    tail = False
    for p in range(T.shape[1]):
        if T[F_TRI, p, 0, 0] > 0:
            tail = True
    lim = max(_relevant_max(max_rel, False), _relevant_max(max_rel, tail))
    nins = i1 - i0
    nr = 0
    for t in range(nins + d1 - d0):
        x, y, r = _update_at(ins_all, i0, nins, del_all, d0, t, use_rel, code, n, table)
        if r < 0:
            return False
        if r > 0 and x != y:
            nr += 1
            if nr > lim:
                return True
    return False


@nb.njit(cache=True)
def micro_run(ins_all, ins_off, del_all, del_off, b, b1, skip, infos, strict, n, rows, idx, st, od, el, used, cap,
              maxdeg, live, use_rel, code, table, deg, N, vcol, on, vlab, ct, cptr, cidx, qlabeled, qlab, qdeg,
              qdem, qcol, T, pairs, pair_edge, pair_el, pair_cond, k, split, parallel_min, seq_ok, no_rows, max_rel,
              lazy, stale, mk):
    """:func:`_micro_batches` (the batches themselves).  A query with a triangle tail (cpu.F_TRI) takes batches of up
    to 32 times ``max_rel`` relevant updates, in a stream (whose memo serves its every batch) and in one ``apply``.  Their bit changes would patch the lists once an
    update (wordnet's label-0 lists: 265K entries, 120 updates a batch: 6 ms a batch), so the lists may then be left
    stale within the call (:func:`.filter.lazy_patch`) and, where the caller does not take stale lists (``lazy``
    off: one ``apply``), are rebuilt from the bits once at the end (O(n k)).  A stream and one ``apply`` choose
    alike (test_dynamic_stream compares their item counts).  One ``apply`` a batch keeps the memo of the call before
    while no other path changed the graph (cpu.TRI_VALID): wordnet's sparse4 2.2-2.8 ms a batch (3.0-3.3 with a memo
    made afresh each call, 3.4-4.1 by the batch path on a loaded machine), sparse6 10-11 ms (26)."""
    tail = False        # one rule for a stream and one apply: their batches take the same path (the same items)
    for p in range(T.shape[1]):
        if T[F_TRI, p, 0, 0] > 0:
            tail = True
    lz = lazy or tail      # (not in the call: numba reads a call of more than 30 arguments only without branches)
    res = _micro_batches(ins_all, ins_off, del_all, del_off, b, b1, skip, infos, strict, n, rows, idx, st, od, el,
                         used, cap, maxdeg, live, use_rel, code, table, deg, N, vcol, on, vlab, ct, cptr, cidx,
                         qlabeled, qlab, qdeg, qdem, qcol, T, pairs, pair_edge, pair_el, pair_cond, k, split,
                         parallel_min, seq_ok, no_rows, max_rel, lz, stale, mk, not lazy)
    ms, b, used, live, maxdeg, cptr, cidx, changed, stale, touched, old_rows, items, counts = res
    if stale and not lazy:
        cptr, cidx, stale = usable_lists(cptr, cidx, stale, _BIG, ct[:n], k)
        changed = True
    return ms, b, used, live, maxdeg, cptr, cidx, changed, stale, touched, old_rows, items, counts


@nb.njit(cache=True)
def _micro_batches(ins_all, ins_off, del_all, del_off, b, b1, skip, infos, strict, n, rows, idx, st, od, el, used,
                   cap, maxdeg, live, use_rel, code, table, deg, N, vcol, on, vlab, ct, cptr, cidx, qlabeled,
                   qlab, qdeg, qdem, qcol, T, pairs, pair_edge, pair_el, pair_cond, k, split, parallel_min, seq_ok,
                   no_rows, max_rel, lazy, stale, mk, log):
    """Batches b, b + 1, ... < b1 of a lane run by the per-update path (see the module notes), each committed before
    the next; ``infos[b]`` a batch's row of the lane's info table (the I_* slots); ``max_rel``: the most relevant
    updates a batch may have (config.dynamic_per_update_max); ``lazy``, ``stale``: the run's candidate lists may be
    left stale (:func:`.filter.lazy_patch`).  The updates no query can use are dropped (``use_rel``; the whole graph
    logs them aside, :mod:`.aside`), and a batch with none other (:func:`first_kept`) is a shortcut.
    One call runs batches until one it does not take, so that the lane pays the call (its forty
    arrays, a reference-count call each way: about 1,300 cycles) once a run, not once a batch, and the scratch
    arrays are allocated once a run.  ``log``: the last batch's touched rows and their rows before it are returned
    (one ``apply``: the store's commit log for live snapshots); a stream run has none, and skips them (80 cycles an
    update on yeast).

    Returns (status, b, used, live, maxdeg, ptr, idx, lists changed, stale, touched, old rows, items, counts):
    status M_DONE (b is b1, or the batch before b needs Python ints: ``infos[b - 1, I_BIG]``; touched .. counts
    are its), else batch b was not run and nothing of it changed: NOT_MICRO (the batch path takes it: more
    relevant updates, several net updates of an induced query, work for the parallel search; or ``skip[b]``) or
    M_FALLBACK (``infos[b]`` says why: the general path, or a compaction when I_FULL is set)."""
    e2 = np.zeros((0, 2), np.int64)
    e1 = np.zeros(0, np.int64)
    tcols = _tri_open(T, mk, rows, n, vcol, qcol, live)
    tri = tcols.shape[0] > 0
    wide = tri and lazy   # (micro_run)
    R = _relevant_max(max_rel, wide)
    rel = np.empty((R, 3), np.int64)     # lo, hi, sign
    dels = np.empty((R, 2), np.int64)
    adds = np.empty((R, 2), np.int64)
    net = np.empty((R, 3), np.int64)     # x, y, sign: the deletes, then the inserts
    key = np.empty(R, np.int64)          # the sorted net effect's pair keys, and per pair leading its run its
    gci = np.empty(R, np.int64)          # inserts (else -1) and deletes
    gcd = np.empty(R, np.int64)
    upd1 = np.empty((1, 2), np.int64)
    ust1 = np.empty(1, np.int8)
    uel1 = np.zeros(1, np.int64)
    # The arrays this function may replace (the candidate lists, the level buffers, the search scratch, a batch's
    # Python-int items) live in one-slot lists, read where used and written where replaced, never assigned to a
    # local that is replaced in the loops: numba's SSA joins copy every such local at each branch join, an atomic
    # reference count each way whether the branch ran or not (about 20 an update, 5,000 a yeast sparse4 stream:
    # a tenth of its time, counted under gdb)
    LP = [cptr]
    LI = [cidx]
    bw = max(maxdeg, 1) + R
    BUF = [np.empty((k + clique_rows(T, bw), bw), idx.dtype)]    # the search's level buffers (and clique tails')
    cnt = np.zeros(k, np.int64)
    lpos = np.zeros(k, np.int64)
    M = np.zeros(k, np.int64)
    tv = np.empty(2, np.int64)
    bits = np.empty(2, np.uint32)
    nbits = np.empty(2, np.uint32)
    off = idx.shape[0] < 0            # runtime flags, not literals (see lane.LANE_ITEMS)
    changed = False
    tvs = np.empty(2 * R, np.int64)       # the last batch's touched rows and their rows before it
    olds = np.empty((2 * R, 2), np.int64)
    last_nt = 0
    its0, cts0 = _scratch(64)      # the searches' items and counts (_search)
    # the searches' budget of steps (cpu.STEPS_OFF's notes): parallel_min steps a batch, which is put back past it
    # (_undo)
    steps = np.empty(1, np.int64)
    SI = [its0]
    SC = [cts0]
    BI = [e2]
    BC = [e1]
    nis = 0
    big = False
    while b < b1:
        if skip[b]:
            return NOT_MICRO, b, used, live, maxdeg, LP[0], LI[0], changed, stale, tvs[:last_nt].copy(), olds[:last_nt].copy(), e2, e1
        i0 = ins_off[b]
        i1 = ins_off[b + 1]
        d0 = del_off[b]
        d1 = del_off[b + 1]
        start = 0
        if use_rel:
            start = first_kept(ins_all, i0, i1, del_all, d0, d1, code, n, table)
            if start < 0:
                # query views, no update a query can use (most small batches on a many-label graph)
                infos[b, I_DROP_I] = i1 - i0
                infos[b, I_DROP_D] = d1 - d0
                infos[b, I_STATUS] = M_SHORTCUT
                b += 1
                continue
        nins = i1 - i0
        infos[b, I_STATUS] = M_FALLBACK
        # 1. the relevant updates (query views), ids checked
        nr = 0
        nrel = 0
        drop_i = min(start, nins)
        drop_d = start - drop_i
        loops = 0
        for t in range(start, nins + d1 - d0):
            x, y, r = _update_at(ins_all, i0, nins, del_all, d0, t, use_rel, code, n, table)
            if r < 0:       # a new vertex or a bad id: the general path
                return M_FALLBACK, b, used, live, maxdeg, LP[0], LI[0], changed, stale, tvs[:last_nt].copy(), olds[:last_nt].copy(), e2, e1
            if r == 0:
                if t < nins:
                    drop_i += 1
                else:
                    drop_d += 1
                continue
            if x == y:
                loops += 1
                continue
            nrel += r
            if nr == R or nrel > R:
                infos[b, I_STATUS] = -1
                return NOT_MICRO, b, used, live, maxdeg, LP[0], LI[0], changed, stale, tvs[:last_nt].copy(), olds[:last_nt].copy(), e2, e1
            rel[nr, 0] = min(x, y)
            rel[nr, 1] = max(x, y)
            rel[nr, 2] = 1 if t < nins else -1
            nr += 1
        if use_rel and nr == 0 and loops == 0:      # nothing any query can use
            infos[b, I_DROP_I] = drop_i
            infos[b, I_DROP_D] = drop_d
            infos[b, I_STATUS] = M_SHORTCUT
            b += 1
            continue
        # 2. the net effect, as net_layout counts it: per distinct pair its inserts ci and deletes cd, the pairs in
        #    the order of their first update.  Up to NET_SCAN updates each pair is compared with those before it;
        #    more are sorted by pair (a stable sort: a pair's first update leads its run), since the whole graph's
        #    batches hold every update (an HPRD batch: 34; the quadratic scan was 14% of a whole-graph stream)
        dup = 0
        both = 0
        exist = 0
        missing = 0
        nd = 0
        ni = 0
        sorted_net = nr > NET_SCAN
        if sorted_net:
            for t in range(nr):
                key[t] = rel[t, 0] * n + rel[t, 1]
                gci[t] = -1
            order = np.argsort(key[:nr], kind="mergesort")
            i = 0
            while i < nr:
                lead = order[i]
                j = i
                ci = 0
                cd = 0
                while j < nr and key[order[j]] == key[lead]:
                    if rel[order[j], 2] > 0:
                        ci += 1
                    else:
                        cd += 1
                    j += 1
                gci[lead] = ci
                gcd[lead] = cd
                i = j
        for t in range(nr):
            if sorted_net:
                if gci[t] < 0:
                    continue
                ci = gci[t]
                cd = gcd[t]
            else:
                seen = False
                for u in range(t):
                    if rel[u, 0] == rel[t, 0] and rel[u, 1] == rel[t, 1]:
                        seen = True
                        break
                if seen:
                    continue
                ci = 0
                cd = 0
                for u in range(t, nr):
                    if rel[u, 0] == rel[t, 0] and rel[u, 1] == rel[t, 1]:
                        if rel[u, 2] > 0:
                            ci += 1
                        else:
                            cd += 1
            if ci > 1:
                dup += ci - 1
            if cd > 1:
                dup += cd - 1
            if ci > 0 and cd > 0:
                both += 1
                continue
            there = _find(rows, idx, rel[t, 0], rel[t, 1]) >= 0
            if ci > 0:
                if there:
                    exist += 1
                else:
                    adds[ni, 0] = rel[t, 0]
                    adds[ni, 1] = rel[t, 1]
                    ni += 1
            elif not there:
                missing += 1
            else:
                dels[nd, 0] = rel[t, 0]
                dels[nd, 1] = rel[t, 1]
                nd += 1
        for t in range(nd):
            net[t, 0] = dels[t, 0]
            net[t, 1] = dels[t, 1]
            net[t, 2] = -1
        for t in range(ni):
            net[nd + t, 0] = adds[t, 0]
            net[nd + t, 1] = adds[t, 1]
            net[nd + t, 2] = 1
        if strict and (loops or dup or both or exist or missing):    # the general path raises the named error
            return M_FALLBACK, b, used, live, maxdeg, LP[0], LI[0], changed, stale, tvs[:last_nt].copy(), olds[:last_nt].copy(), e2, e1
        nu = nd + ni
        if nu > 1 and not seq_ok:                                    # induced: the batch path
            infos[b, I_STATUS] = -1
            return NOT_MICRO, b, used, live, maxdeg, LP[0], LI[0], changed, stale, tvs[:last_nt].copy(), olds[:last_nt].copy(), e2, e1
        # 3. room for the row copies, and work a serial search is for (bounds from the rows before the batch)
        need = 0
        g = max(live / max(n, 1), 1.0) ** min(max(k - 3, 0), 2)
        work = 0.0
        for t in range(nu):
            x = net[t, 0]
            y = net[t, 1]
            lx = rows[x, 1] - rows[x, 0]
            ly = rows[y, 1] - rows[y, 0]
            need += lx + ly + 2 * nu
            if not log:          # a stream run's copies leave slack (_put_arc)
                need += _slack(lx + nu) + _slack(ly + nu)
            work += start_pairs_of(ct[x], ct[y], pairs) * (max(lx, ly) + nu + 1) * g
        if work >= parallel_min and not wide:
            infos[b, I_STATUS] = -1
            return NOT_MICRO, b, used, live, maxdeg, LP[0], LI[0], changed, stale, tvs[:last_nt].copy(), olds[:last_nt].copy(), e2, e1
        if used + need > cap:
            infos[b, I_FULL] = need
            return M_FALLBACK, b, used, live, maxdeg, LP[0], LI[0], changed, stale, tvs[:last_nt].copy(), olds[:last_nt].copy(), e2, e1
        # 4. apply: the touched rows before the batch first (the commit log's), in the run's scratch: a batch
        #    allocates nothing unless it searches
        used_b = used
        # a stream run can put the batch back only where the buffer has room for its copies twice (the deletes put
        # back in place may copy their rows again)
        steps[0] = parallel_min if log or used + 2 * need <= cap else STEPS_OFF
        nt = 0
        for t in range(nu if log else 0):
            for c in range(2):
                v = net[t, c]
                seen = False
                for u in range(nt):
                    if tvs[u] == v:
                        seen = True
                if not seen:
                    tvs[nt] = v
                    nt += 1
        for t in range(1, nt):               # sorted (insertion: a few entries)
            v = tvs[t]
            u = t
            while u > 0 and tvs[u - 1] > v:
                tvs[u] = tvs[u - 1]
                u -= 1
            tvs[u] = v
        for t in range(nt):
            olds[t, 0] = rows[tvs[t], 0]
            olds[t, 1] = rows[tvs[t], 1]
        last_nt = nt
        if bw < maxdeg + nu:       # the level buffers: every row this batch can make
            bw = max(maxdeg + nu, 2 * bw)
            BUF[0] = np.empty((k + clique_rows(T, bw), bw), idx.dtype)
        pos = 0
        neg = 0
        npos = 0
        nitems = 0
        big = False
        bch = False
        for t in range(nu):
            x = net[t, 0]
            y = net[t, 1]
            searched = False
            # one search site: _items and _search are functions of their own, built without reference counting (until
            # session 24 an inlined search at two sites, each specialised on its side as a constant; inlined, their
            # array arguments were reference-counted locals).  The arrays are touched only where they change (lists)
            # or a search runs: a helper handing arrays back costs their reference counts, atomic, on every update
            dl = net[t, 2] < 0       # a delete: searched on the graph with x-y, then taken out; an insert: put in, then
            if dl:                   # searched
                px = _find(rows, idx, x, y)
                py = _find(rows, idx, y, x)
                _mark(st, od, px, py, DELETED, 0)
            elif log:                # one apply: rows copied (the commit log keeps their place before the batch)
                used, px = _copy_row(rows, idx, x, used, -1, y)
                used, py = _copy_row(rows, idx, y, used, -1, x)
            else:                    # a stream run: in place where the row has room
                used, px = _put_arc(rows, idx, x, used, y)
                used, py = _put_arc(rows, idx, y, used, x)
            if not dl:
                if tri:
                    _tri_edit(rows, idx, x, y, 1, mk, tcols)
                maxdeg = max(maxdeg, rows[x, 1] - rows[x, 0], rows[y, 1] - rows[y, 0])
                _mark(st, od, px, py, INSERTED, 0)
                if _retable(x, y, deg, N, vcol, on, vlab, ct, qlabeled, qlab, qdeg, qdem, 1, tv, bits, nbits):
                    ip_, ii_, stale = _relist(LP[0], LI[0], tv, bits, nbits, k, lazy, stale, maxdeg)
                    LP[0] = ip_
                    LI[0] = ii_
                    bch = True
            if start_pairs_of(ct[x], ct[y], pairs):     # else no item: no search set-up at all
                if lazy and stale and not stale_usable(LP[0], stale, maxdeg, k):
                    # a stale list a search may scan: every list rebuilt from the bits (filter.usable_lists)
                    up_, ui_, stale = usable_lists(LP[0], LI[0], stale, maxdeg, ct[:n], k)
                    LP[0] = up_
                    LI[0] = ui_
                    bch = True
                ub = items_bound(pairs.shape[0], maxdeg, split)
                if ub > SI[0].shape[0]:
                    si_, sc_ = _scratch(max(ub, 2 * SI[0].shape[0]))
                    SI[0] = si_
                    SC[0] = sc_
                nis = _items(x, y, DELETED if dl else INSERTED, upd1, ust1, uel1, ct, LP[0], rows, T, pairs,
                             pair_edge, pair_el, pair_cond, k, split, SI[0], off)
                if nis and not _search(nis, upd1, rows, idx, st, od, el, off, ct, LP[0], LI[0], T, k, no_rows, BUF[0],
                                       cnt, lpos, M, N, qcol, mk, SI[0], SC[0], steps):
                    # past the budget: the batch put back, for the general path's parallel drive
                    up_, ui_, stale, used = _undo(net, t, dl, x, y, px, py, st, od, rows, idx, used, log, tvs, olds,
                                                  nt, deg, N, vcol, on, vlab, ct, qlabeled, qlab, qdeg, qdem, tv, bits,
                                                  nbits, LP[0], LI[0], k, lazy, stale, maxdeg, mk)
                    infos[b, I_ESCAPE] = 1
                    return (M_FALLBACK, b, used_b if log else used, live, maxdeg, up_, ui_, True, stale,
                            tvs[:0].copy(), olds[:0].copy(), e2, e1)
                searched = True
            _mark(st, od, px, py, 0, -1)
            if dl:
                if log:
                    used, _ = _copy_row(rows, idx, x, used, px, -1)
                    used, _ = _copy_row(rows, idx, y, used, py, -1)
                else:
                    _drop_arc(rows, idx, x, px)
                    _drop_arc(rows, idx, y, py)
                if tri:
                    _tri_edit(rows, idx, x, y, -1, mk, tcols)
                if _retable(x, y, deg, N, vcol, on, vlab, ct, qlabeled, qlab, qdeg, qdem, -1, tv, bits, nbits):
                    dp_, di_, stale = _relist(LP[0], LI[0], tv, bits, nbits, k, lazy, stale, maxdeg)
                    LP[0] = dp_
                    LI[0] = di_
                    bch = True
            if searched:
                s_its = SI[0]
                s_cts = SC[0]
                p1, n1, b1_ = side_totals(s_cts[:nis], s_its[:nis])
                for j in range(nis):
                    if s_its[j, 5] == INSERTED:
                        npos += 1
                nitems += nis
                if not big and (b1_ or pos >= _BIG or neg >= _BIG):
                    big = True           # Python ints from here: the totals so far as two items, then every item
                    g_items = np.zeros((2, 6), np.int64)
                    g_items[0, 5] = INSERTED
                    g_items[1, 5] = DELETED
                    BI[0] = g_items
                    BC[0] = np.array([pos, neg], np.int64)
                if big:
                    BI[0] = np.concatenate((BI[0], s_its[:nis]))
                    BC[0] = np.concatenate((BC[0], s_cts[:nis]))
                else:
                    pos += p1
                    neg += n1
        changed = changed or bch
        live += 2 * (ni - nd)
        infos[b, I_DROP_I] = drop_i
        infos[b, I_DROP_D] = drop_d
        infos[b, I_LOOPS] = loops
        infos[b, I_DUP] = dup
        infos[b, I_BOTH] = both
        infos[b, I_EXIST] = exist
        infos[b, I_MISSING] = missing
        infos[b, I_INS] = ni
        infos[b, I_DEL] = nd
        infos[b, I_POS] = pos
        infos[b, I_NEG] = neg
        infos[b, I_BIG] = big
        infos[b, I_NPOS] = npos
        infos[b, I_NITEMS] = nitems
        infos[b, I_MAXDEG] = maxdeg
        infos[b, I_USED] = used
        infos[b, I_LISTS] = bch
        infos[b, I_SEQ] = 1
        infos[b, I_STALE] = stale
        infos[b, I_STATUS] = M_DONE
        b += 1
        if big:
            break
    if big:     # the last batch run needs Python ints: its items and counts
        return (M_DONE, b, used, live, maxdeg, LP[0], LI[0], changed, stale, tvs[:last_nt].copy(),
                olds[:last_nt].copy(), BI[0], BC[0])
    return (M_DONE, b, used, live, maxdeg, LP[0], LI[0], changed, stale, tvs[:last_nt].copy(), olds[:last_nt].copy(),
            e2, e1)


# micro_run compiles in the kernels of four modules: its cached build is dropped when any of them changes
from . import cpu as _cpu, filter as _filter, updates as _updates  # noqa: E402
from ..primitives import sorted_ops as _sorted_ops  # noqa: E402

flush_when_changed(globals(), _cpu, _filter, _updates, _sorted_ops)
