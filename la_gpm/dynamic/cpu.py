"""numba engine for batch-dynamic matching: a depth-first search per work item.

A work item ``(j, p, base, lo, hi, side)`` maps start pair p of the plan onto update j
(``M[0], M[1] = update j``) and searches the rest of the query depth first.  Level 2 reads
positions ``[lo, hi)`` of its base parent's row or of its candidate list (item splitting: a hub
update becomes several items); deeper levels read the shortest parent row (or the candidate list
where cheaper) and check the other parents by binary search.  ``side`` is the state searched:
INSERTED (positive matches) or DELETED (negative), so one pass (one kernel launch) serves both
sides.  The exactly-once rule of GAMMA (Guo et al.'s total order): working on update i, an arc may
be used for a query edge only if it is kept or has the searched side's state with order id > i,
and a query non-edge (induced) may land on a pair only if it is not an arc or is an arc of the
other side's state with order id > i.  The last level is counted, not stored,
unless the matches are listed (a second pass writes each item's rows at its prefix-sum offset).

Reuse of intersections (RapidFlow's idea): where the plan marks level l (``F_REUSE``, see query.py: every
valid candidate of l is then in level l-1's candidate set), level l scans the window of level l-1's
sorted buffer ``buf[l-1, :cnt[l-1]]`` instead of a parent row: it starts after M[l-1]'s position where
l-1 bounds l from below (ends before it from above), a binary search per other bound l-1 does not
imply; each candidate is checked for q's candidate bit (unless both levels have the same NLF filter),
the *extra* parents' arcs only (those of l that are not parents of l-1, l-1 among them: the first by a
galloping search forward, the candidates ascend; the others by binary search; the arc rule as in
:func:`_gen`); injectivity and the anti levels (induced) follow from l-1's set.  Level 3 reuses level 2's
set only where the item's level-2 range is the whole row or list (a split item holds a slice of it).
Where an extra parent's row is shorter than the window, or the candidate list costs less, :func:`_gen`
runs as before.  Counting and listing take the same path.  The drive calls ``_run_item``, a build of
the search without the reuse code, which hands an item of a plan with a reuse level, once its level 2
is non-empty, to ``_run_item_reuse`` (the same source with it).

The CUDA kernel ``gamma.cu`` runs the same items with one warp each; both read the same tables (the
thirteen of ``DeltaPlan.tables()``; the reuse fields are the CPU's only).
"""

from __future__ import annotations


import threading

import numba as nb
import numpy as np

from ..primitives.sorted_ops import lower_bound, upper_bound
from ..config import config
from ..primitives.atomics import fetch_add
from ..primitives.jit import flush_when_changed, parallel_and_serial, renamed_copy
from .query import (F_ANTI, F_INDEP, F_INJ, F_LEAF, F_LOW, F_NANTI, F_NINJ, F_NLOW, F_NPAR, F_NUP, F_ORDER, F_PAR,
                    F_PAREL, F_NXB, F_REUSE, F_TRI, F_TWIN, F_UP, F_XLOW, F_XP, F_XUP, MAX_DYNAMIC_VERTICES)

__all__ = ["count_items", "list_items", "splitting", "clique_rows", "exact_counts", "list_cheaper", "build_items", "side_totals",
           "start_items", "items_bound", "count_serial",
           "unmark", "common_counts", "TRI_LAB", "TRI_STAMP", "TRI_MAXDEG", "TRI_VALID", "TRI_BULK", "mark_rows",
           "tri_stale", "gallop"]

# A parent at level 0 or 1 (an endpoint of the update) is the same vertex for the whole item, and on a hub update
# its row is long: a level-3 candidate of a pendant start pair (wordnet's sparse query, the triangles around a hub)
# was checked against it by a binary search of ~9 probes.  Once an item has searched such a row (of ``MARK_MIN``
# arcs or more) as often as an eighth of its length (``MARK_AFTER``), the row is marked: ``mk[level, v]`` = v's
# position in it + 1 (int32, one row per level, a column per vertex and two more: ``mk[level, -2]`` says the row is
# marked, ``mk[level, -1]`` counts the searches), and a check is one look-up.  The drive clears the marks after each
# item (:func:`unmark`), so marking costs at most about twice the binary searches it replaces.  The array is the
# store's (``ArcStore.row_marks``: cleared once, kept all zero between items); the parallel drive has none.
MARK_AFTER = 8
MARK_MIN = 32   # shorter rows are not marked: a binary search in them is a few probes in cache (marking every row of 8
                # arcs at its first search made wordnet's dense 6-vertex stream 15% slower)


# Triangle tails (plan field F_TRI; the per-update path only, where every arc of the graph searched is usable but the
# update's own): a plan whose last two levels u, v close a triangle on one earlier vertex w = M[pw] and have no
# other constraint counts their pairs at w as the ordered pairs (a, b) of adjacent neighbours of w of u's and v's
# labels, the triangles at w, less those through a mapped vertex (:func:`_tri_tail`), instead of scanning w's
# neighbours' rows (wordnet's sparse queries: a triangle with a path hanging off it; the path's far end on an
# update, the triangles of every vertex two or three hops away enumerated again for each update).  The count at w
# is kept in rows of the mark array below the marks: ``mk[TRI_LAB, v]`` v's label column (filled once a store,
# ``mk[TRI_LAB, -1]`` vertices filled), per memo column c ``mk[TRI_STAMP + 2c, v]`` the per-update run that
# counted it (``mk[TRI_STAMP, -1]`` the current run) and ``mk[TRI_STAMP + 2c + 1, v]`` the count, kept exact by
# the run's every update (micro.py) and ignored by later runs.  Rows longer than ``TRI_MAXDEG`` are not kept
# (an int32 count).  The same memo counts a fork's coinciding leaves (mode 4, :func:`_fork_tail`; no triangle in the
# query: its two leaves would be one vertex exactly where a triangle at w is).
TRI_LAB = 4
TRI_STAMP = 5
TRI_MAXDEG = 46340
# ``mk[TRI_STAMP + 1, -1]``: the signature of the memo columns' label pairs (> 0) while the counts are still those of
# the graph (the last change to it was made by a per-update run, which edits them: micro._tri_open then keeps the
# run id, and one ``apply`` a batch keeps the counts of the last), 0 once any other path changed it
TRI_VALID = TRI_STAMP + 1
# A run's counts are made one vertex at a time (:func:`_tri_memo`) until the rows counted so pass this share of the
# graph's arcs, then all at once (:func:`_tri_fill`, about 5x cheaper per arc: wordnet's sparse4 stream on a new
# DynamicGraph counted a third of its arcs' vertices, 8 ms of its 24-34).  ``mk[TRI_LAB, -2]`` holds the run's threshold
# in arcs and ``mk[TRI_STAMP + 2c, -2]`` column c's arcs counted so far (-1 once filled): a column past every vertex
TRI_BULK = 8      # 1 / TRI_BULK of the arcs


@nb.njit(cache=True, _nrt=False)
def tri_stale(mk):
    """The triangle memo's counts no longer those of the graph: another path changed it (TRI_VALID)."""
    if mk.shape[0] > TRI_VALID and mk.shape[1] > 2:
        mk[TRI_VALID, mk.shape[1] - 1] = 0


# The serial drives' budget.  Which drive a batch's search takes is decided before it runs, from a work estimate
# (:func:`work_estimate`: the level-2 scans times the average row length at most twice), and an estimate cannot see a
# deep query's paths through hubs (human's 10-vertex tree, one 0.1% batch: two or three relevant items whose level-2
# scans sum to about five positions searched 8.7 s on one core of two).  So a serial search counts its steps (passes
# of :func:`_run_item`'s loop: a node visited or left) against a budget, ``config.parallel_min`` steps (the estimate's
# threshold, read as steps: each visits a row, so the budget is a multiple of the work the parallel drive is for).
# Past it the item stops with -1 (its marks cleared, nothing else written), and the caller hands it and the items
# after it to the parallel drive (:func:`_drive`; the lane's batch and per-update paths put the batch back first and
# the general path takes it).  The parallel drive's budget is STEPS_OFF: never reached, never written back.
STEPS_OFF = 1 << 62
# Heavy items in the parallel drive (session 43).  The drive spreads items over the cores, not one item, and a deep
# query's batch can hang on a few: human's 10-vertex tree, one 0.1% batch, 28 items of 9.8 s in all, the heaviest
# 2.0 s, so 16 cores could not go below about 2 s; nor is an item's work spread evenly over its level-2 candidates
# (that one: 0.7 s in each of three of its nine).  So with more than one thread the counting drive
# (:func:`_count_split`, :func:`_drive_split`) takes items from one queue (an atomic counter, ``primitives.atomics``).
# A thread that finds the queue empty raises a flag; from then on an item with two level-2 candidates or more to go,
# at its next look at the flag (every ``config.dynamic_split_check`` steps), hands on those after the one it is in:
# it publishes them as a range (:func:`_hand_on`) and ends after its current candidate.  Idle threads take the
# ranges' positions one at a time, each a new item (a piece), and stop once none is left and no item may still hand
# on, so they spin at most until every running item's next look.  Nothing is searched twice; a new item has its own
# memos, so items are cut only where a thread is idle.
# Below level 2 (session 44): human tree10's heaviest level-2 candidates have one level-3 candidate each, and the
# work fans out deeper.  So an item (or a piece) hands on at the first level L (2 .. last - 2) with two candidates
# or more to go, those after the one it is in; below level 2 only at a look where a thread is idle at that moment
# (``_S_IDLE``: the threads that found no position in their last scan), and it ends after its current candidate of
# L.  A range below level 2 names the item's level-2 position, the path's vertices of levels 3 .. L - 1, the first
# vertex handed on at L and how many; its piece searches that path (each level made again by the search: the same
# sorted set, the rows and lists do not change during the drive; its place found by a binary search) and one
# position of L, and may itself hand on deeper.  A level whose loop end was cut (a piece's path, a hand-on) is not
# the set the next level is drawn from (reuse reads ``cnt``).  Memos kept above the cut are not read again by an item
# that handed on (it is in the last candidate of every level above L); group B's count, where known, goes with the
# range, except to a piece through level sp - 1 (level sp - 2 would count all of that level's images).  An item
# says once when it may no longer hand on: at its end, or at a look with no level to hand on and none to come.
# Range slots: sixteen a thread (a hand-on finding none left searches on).  ``dynamic_split_check`` 0: the drive of
# fixed chunks, items whole.  SPLIT_EAGER (tests): 1, the flag up from the start, so every item with two level-2
# candidates or more hands on at its first look; 2, also a thread counted idle from the start, so items hand on
# below level 2 at their first look there too (4,096 slots).  SPLIT_DEEP False (A/B runs, read in Python): no
# hand-ons below level 2 (the idle count starts far below zero).
SPLIT_EAGER = 0
SPLIT_DEEP = True


# A last group hanging off the level before it (F_TWIN[p, 1, 0] = m: levels m .. k-1 depend on levels 0, 1, m - 1
# and themselves alone, no label of theirs among levels 2 .. m - 2): within an item, its completions are a function of
# the image c of level m - 1, and the same c is reached again from other images of the levels before (a labelled
# path from its end: human's 8-path, one vertex three hops from an update reached by many 2-paths).  The count is kept
# per c for the item: ``mk[ROOT_STAMP, c]`` the item that counted it (``mk[ROOT_STAMP, -1]`` the current item's
# stamp, advanced at each item of such a plan) and ``mk[ROOT_VAL, c]`` the count (int32: a larger one is not kept,
# the group is searched again).  Only where the mark array has these rows and a column per vertex: the serial drives
# (the store's array) and the parallel drive where it is given a block of rows a thread (``_drive``: its byte cap).
ROOT_STAMP = 2
ROOT_VAL = 3
_ROOT_MAXVAL = 2**31 - 1
_THREAD_ROWS = ROOT_VAL + 1     # the parallel drive's rows a thread (no triangle memo: the per-update path's)
_THREAD_MARKS_MAX = 1 << 28     # bytes: past this (many threads on a large graph) the parallel drive keeps no memo
_NO_MARKS = np.zeros((2, 2), dtype=np.int32)


def mark_rows(plan) -> int:
    """Rows of the mark array ``plan``'s search uses: the marks' two, the root memo's two where it has a rooted
    group, the triangle memo's rows where it has triangle tails (below the root memo's)."""
    if plan.tri_columns:
        return TRI_STAMP + 2 * plan.tri_columns
    return ROOT_VAL + 1 if plan.rooted else 2


@nb.njit(cache=True, inline="always")
def gallop(uidx, r, b1, cv):
    """The first position p >= r of the sorted ``uidx[r:b1]`` with ``uidx[p] >= cv`` (b1 if none): doubling steps
    from r, then a binary search in the last step (a merge that walks a shorter row against this one)."""
    if r < b1 and uidx[r] < cv:
        stp = 1
        prev = r
        nxt = r + 1
        while nxt < b1 and uidx[nxt] < cv:
            prev = nxt
            stp <<= 1
            nxt = prev + stp
        r = lower_bound(uidx, prev + 1, min(nxt, b1), cv)
    return r


@nb.njit(cache=True, _nrt=False)
def common_counts(uidx, a0, a1, b0, b1, mk, la, lb):
    """The common vertices of two sorted rows ``uidx[a0:a1]``, ``uidx[b0:b1]`` (every arc, any state) of label
    column ``la`` and of ``lb`` (-1: any): (count la, count lb).  The shorter row is walked, the longer searched by
    galloping."""
    if a1 - a0 > b1 - b0:
        t0 = a0
        t1 = a1
        a0 = b0
        a1 = b1
        b0 = t0
        b1 = t1
    ca = 0
    cb = 0
    r = b0
    for q in range(a0, a1):
        cv = uidx[q]
        r = gallop(uidx, r, b1, cv)
        if r >= b1:
            break
        if uidx[r] == cv:
            if la < 0 or mk[TRI_LAB, cv] == la:
                ca += 1
            if lb < 0 or mk[TRI_LAB, cv] == lb:
                cb += 1
    return ca, cb


@nb.njit(cache=True, _nrt=False)
def _tri_fill(urows, uidx, mk, srow, la, lb):
    """Every vertex's count of memo column ``srow`` at once (:func:`_tri_memo`'s, for rows up to TRI_MAXDEG; those
    rows stamped with the run's id): each triangle v < a < b found once, by merging the rows of v and a after a, and
    its ordered pairs added at its three corners.  On wordnet (76,853 vertices) 2.7 ms against 12.5 ms for the
    same counts one vertex at a time: the rows are read in order, not a neighbour's row per pair."""
    e = mk.shape[1] - 1
    n = mk[TRI_LAB, e]
    rid = mk[TRI_STAMP, e]
    for v in range(n):
        mk[srow + 1, v] = 0
    for v in range(n):
        v1 = urows[v, 1]
        lv = mk[TRI_LAB, v]
        for q in range(urows[v, 0], v1):
            a = uidx[q]
            if a <= v:
                continue
            lab_a = mk[TRI_LAB, a]
            i = q + 1
            j = urows[a, 0]
            j1 = urows[a, 1]
            while i < v1 and j < j1:
                x = uidx[i]
                y = uidx[j]
                if x < y:
                    i += 1
                elif y < x:
                    j += 1
                else:          # the triangle v, a, x (v < a < x): the ordered pairs of the other two at each corner
                    lx = mk[TRI_LAB, x]
                    av = la < 0 or lv == la
                    bv = lb < 0 or lv == lb
                    aa = la < 0 or lab_a == la
                    ba = lb < 0 or lab_a == lb
                    ax = la < 0 or lx == la
                    bx = lb < 0 or lx == lb
                    mk[srow + 1, v] += (1 if aa and bx else 0) + (1 if ax and ba else 0)
                    mk[srow + 1, a] += (1 if av and bx else 0) + (1 if ax and bv else 0)
                    mk[srow + 1, x] += (1 if av and ba else 0) + (1 if aa and bv else 0)
                    i += 1
                    j += 1
    for v in range(n):
        if urows[v, 1] - urows[v, 0] <= TRI_MAXDEG:
            mk[srow, v] = rid


@nb.njit(cache=True, _nrt=False)
def _tri_memo(w, urows, uidx, mk, srow, la, lb):
    """The ordered pairs (a, b) of adjacent neighbours of w of label columns (la, lb): the run's memo (stamp row
    ``srow``, counts ``srow + 1``) where it holds w, else counted and kept (rows up to TRI_MAXDEG).  Counted one
    vertex at a time until the rows so counted in this run pass 1 / TRI_BULK of the graph's arcs (``mk[srow, -2]`` and
    ``mk[TRI_LAB, -2]``, set by micro._tri_open); then every vertex's at once (:func:`_tri_fill`), once a run."""
    w0 = urows[w, 0]
    w1 = urows[w, 1]
    e = mk.shape[1] - 1
    rid = mk[TRI_STAMP, e]
    if w1 - w0 <= TRI_MAXDEG and mk[srow, w] == rid:
        return np.int64(mk[srow + 1, w])
    done = mk[srow, e - 1]
    if done >= 0:
        if done > mk[TRI_LAB, e - 1]:
            mk[srow, e - 1] = -1        # once a run
            _tri_fill(urows, uidx, mk, srow, la, lb)
            if w1 - w0 <= TRI_MAXDEG:
                return np.int64(mk[srow + 1, w])
        else:
            mk[srow, e - 1] = done + (w1 - w0)
    tot = np.int64(0)
    for q in range(w0, w1):
        a = uidx[q]
        if la < 0 or mk[TRI_LAB, a] == la:
            ca, cb = common_counts(uidx, w0, w1, urows[a, 0], urows[a, 1], mk, la, lb)
            tot += cb
    if w1 - w0 <= TRI_MAXDEG:
        mk[srow, w] = rid
        mk[srow + 1, w] = tot
    return tot


@nb.njit(cache=True, _nrt=False)
def _arc(urows, uidx, a, b):
    """Whether row a holds b."""
    e = urows[a, 1]
    q = lower_bound(uidx, urows[a, 0], e, b)
    return q < e and uidx[q] == b


@nb.njit(cache=True, _nrt=False)
def _mapped(M, nm, v):
    """Whether v is one of the mapped vertices M[0 .. nm - 1]."""
    hit = False
    for l in range(nm):
        if M[l] == v:
            hit = True
    return hit


@nb.njit(cache=True, _nrt=False)
def _tri_tail3(p, M, T, urows, uidx, mk, qcol, last):
    """F_TRI mode 3: the matches of the last three levels w, u, v (u, v a triangle tail on w, w's one parent f =
    M[pf]; w, u and v of one label column la, or none) given levels 0 .. last - 3, summed over w at once instead
    of found one w at a time.  Per w (a neighbour of f of label la, not mapped) :func:`_tri_tail`'s mode 1 counts
    memo(w) less 2 c(w, s) for each mapped s adjacent to w of label la (c: their common neighbours of label la;
    the ordered pairs through s, as first or second), plus 1 per ordered pair (s, t) of mapped vertices of label
    la adjacent to w and to each other.  Summed over w:

    * the memos: one look-up per w (the memo kept for the run);
    * s = f, adjacent to every w: sum over w of c(w, f) is memo(f) (the ordered pairs (w, b) of adjacent
      neighbours of f), less c(s, f) for the mapped neighbours s of f that the sum leaves out;
    * any other s: only the w adjacent to f and s (their rows merged), each with c(w, s) and its pairs (s, t),
      and the pair (f, s) where f and s are adjacent.

    Wordnet's sparse6 (a triangle with a path hanging off it): the plans that map the path's far edge onto the
    update paid one intersection of w's and f's rows for every w two hops from the update.  Halved where a
    symmetry bound orders u and v."""
    pw = last - 2
    f = M[T[F_PAR, p, pw, 0]]
    la = qcol[T[F_TRI, p, 1, 0]]
    srow = TRI_STAMP + 2 * T[F_TRI, p, 0, 3]
    f0 = urows[f, 0]
    f1 = urows[f, 1]
    tot = np.int64(0)
    for q in range(f0, f1):
        w = uidx[q]
        if la >= 0 and mk[TRI_LAB, w] != la:
            continue
        if not _mapped(M, pw, w):
            tot += _tri_memo(w, urows, uidx, mk, srow, la, la)
    sf = la < 0 or mk[TRI_LAB, f] == la
    if sf:
        cf = _tri_memo(f, urows, uidx, mk, srow, la, la)
        for l in range(pw):
            s = M[l]
            if s < 0 or s == f or not (la < 0 or mk[TRI_LAB, s] == la) or not _arc(urows, uidx, f, s):
                continue
            ca, cb = common_counts(uidx, urows[s, 0], urows[s, 1], f0, f1, mk, la, la)
            cf -= cb
        tot -= 2 * cf
    for l in range(pw):
        s = M[l]
        if s < 0 or s == f or not (la < 0 or mk[TRI_LAB, s] == la):
            continue
        fs = sf and _arc(urows, uidx, f, s)
        s0 = urows[s, 0]
        s1 = urows[s, 1]
        # the common neighbours w of f and s: the shorter row walked, the longer searched by galloping
        a0, a1, b0, b1 = f0, f1, s0, s1
        if a1 - a0 > b1 - b0:
            a0, a1, b0, b1 = s0, s1, f0, f1
        r = b0
        for q in range(a0, a1):
            w = uidx[q]
            r = gallop(uidx, r, b1, w)
            if r >= b1:
                break
            if uidx[r] != w or not (la < 0 or mk[TRI_LAB, w] == la):
                continue
            if _mapped(M, pw, w):
                continue
            ca, cb = common_counts(uidx, urows[w, 0], urows[w, 1], s0, s1, mk, la, la)
            tot -= 2 * cb
            for l2 in range(pw):      # the pairs (s, t), t mapped: subtracted twice above
                t = M[l2]
                if l2 == l or t < 0 or not (la < 0 or mk[TRI_LAB, t] == la):
                    continue
                if (t == f or _arc(urows, uidx, w, t)) and _arc(urows, uidx, s, t):
                    tot += 1
            if fs:                    # the pair (f, s)
                tot += 1
    if T[F_TRI, p, 0, 2]:
        tot >>= 1
    return tot


@nb.njit(cache=True, _nrt=False)
def _tri_pairs(p, M, T, urows, uidx, mk, pw, nm, la, lb):
    """The ordered pairs (a, b) of adjacent neighbours of w = M[pw] of label columns (la, lb), neither of them a
    mapped vertex M[0 .. nm - 1]: the memo (counted at w's first visit of the run) less the pairs through a mapped
    vertex s (the common neighbours of w and s), plus those with both mapped (subtracted twice)."""
    w = M[pw]
    w0 = urows[w, 0]
    w1 = urows[w, 1]
    tot = _tri_memo(w, urows, uidx, mk, TRI_STAMP + 2 * T[F_TRI, p, 0, 3], la, lb)
    for l in range(nm):
        s = M[l]
        if l == pw or s < 0:
            continue
        sa = la < 0 or mk[TRI_LAB, s] == la
        sb = lb < 0 or mk[TRI_LAB, s] == lb
        if not (sa or sb):
            continue
        if not _arc(urows, uidx, w, s):
            continue
        ca, cb = common_counts(uidx, w0, w1, urows[s, 0], urows[s, 1], mk, la, lb)
        if sa:
            tot -= cb
        if sb:
            tot -= ca
        if sa:
            for l2 in range(nm):
                t = M[l2]
                if l2 == pw or l2 == l or t < 0 or not (lb < 0 or mk[TRI_LAB, t] == lb):
                    continue
                if _arc(urows, uidx, w, t) and _arc(urows, uidx, s, t):
                    tot += 1
    return tot


@nb.njit(cache=True, _nrt=False)
def _fork_tail(p, M, T, urows, uidx, mk, qcol, last, ct, N, tail):
    """F_TRI mode 4 (query._fork_levels): the matches of the last three levels, u on w = M[pw] and the leaves v on u
    and t on w (one label), given levels 0 .. last - 3.  Per image a of u (a neighbour of w with u's candidate bit,
    not mapped), the pairs are |S_v(a)| |S_t - {a}| less |S_v(a) ∩ S_t| (:func:`_leaf` counts both sets; a
    pair that is one vertex c is a common neighbour of a and w of v's label, not mapped).  Summed over a the common
    part is the ordered pairs (a, c) of adjacent neighbours of w of the labels of u and v, neither mapped
    (:func:`_tri_pairs`, the run's triangle memo), instead of two rows scanned and merged for every a (every
    common c has the candidate bits of v and t, and every such a that of u, which has no other edge: their labels'
    neighbours are a, w and c).  Every arc of every row counts, as in :func:`_tri_tail`."""
    lu = last - 2
    pw = T[F_TRI, p, 0, 1]
    lv = last - 1 if T[F_PAR, p, last - 1, 0] == lu else last
    lt = 2 * last - 1 - lv
    nm = lu
    w = M[pw]
    la = qcol[T[F_TRI, p, 1, 0]]
    lb = qcol[T[F_TRI, p, 1, 1]]
    M[lu] = -1
    M[lv] = -1
    M[lt] = -1
    st = _leaf(lt, p, M, T, urows, uidx, ct, N, qcol, tail)    # (>= 0: the per-update path, _tri_on)
    bu = np.uint32(1) << np.uint32(T[F_ORDER, p, lu, 0])
    bt = np.uint32(1) << np.uint32(T[F_ORDER, p, lt, 0])
    tot = np.int64(0)
    for q in range(urows[w, 0], urows[w, 1]):
        a = uidx[q]
        if not ct[a] & bu or _mapped(M, nm, a):      # (u's bit holds its label)
            continue
        M[lu] = a
        sv = _leaf(lv, p, M, T, urows, uidx, ct, N, qcol, tail)
        tot += sv * (st - 1 if ct[a] & bt else st)
    M[lu] = -1
    if tot > 0:
        tot -= _tri_pairs(p, M, T, urows, uidx, mk, pw, nm, la, lb)
    return tot


@nb.njit(cache=True, _nrt=False)
def _tri_tail(p, M, T, urows, uidx, mk, qcol, last, ct, N, tail):
    """The matches below level last - 1 - mode (F_TRI; mode 3: :func:`_tri_tail3`; mode 4: :func:`_fork_tail`) at
    w = M[pw]: the ordered pairs (a, b) of adjacent neighbours of w with the labels of u and v, neither mapped
    (:func:`_tri_pairs`); with a leaf level after them (mode 2), times the leaf's count (:func:`_leaf`, u and v left
    out) less, per pair, its ends among the leaf's candidates (the common neighbours a of w and the leaf's parent,
    each with its partners b); halved where a symmetry bound orders the pair.  Every arc of every row counts (the
    per-update path's graph, whose one unusable arc, the update's own, joins M[0] and M[1]: the pairs through it
    are the mapped ones)."""
    mode = T[F_TRI, p, 0, 0]
    if mode == 3:
        return _tri_tail3(p, M, T, urows, uidx, mk, qcol, last)
    if mode == 4:
        return _fork_tail(p, M, T, urows, uidx, mk, qcol, last, ct, N, tail)
    pw = T[F_TRI, p, 0, 1]
    la = qcol[T[F_TRI, p, 1, 0]]
    lb = qcol[T[F_TRI, p, 1, 1]]
    nm = last - mode      # levels 0 .. nm - 1 are mapped
    w = M[pw]
    w0 = urows[w, 0]
    w1 = urows[w, 1]
    tot = _tri_pairs(p, M, T, urows, uidx, mk, pw, nm, la, lb)
    if mode == 2 and tot > 0:
        M[last - 2] = -1
        M[last - 1] = -1
        c0 = _leaf(last, p, M, T, urows, uidx, ct, N, qcol, tail)
        pl = M[T[F_PAR, p, last, 0]]
        ll = qcol[T[F_ORDER, p, last, 0]]
        p0 = urows[pl, 0]
        p1 = urows[pl, 1]
        corr = np.int64(0)
        r = p0
        for q in range(w0, w1):      # a: a common neighbour of w and the leaf's parent
            a = uidx[q]
            r = lower_bound(uidx, r, p1, a)
            if r >= p1:
                break
            if uidx[r] != a or not (ll < 0 or mk[TRI_LAB, a] == ll):
                continue
            oa = la < 0 or mk[TRI_LAB, a] == la
            ob = lb < 0 or mk[TRI_LAB, a] == lb
            if not (oa or ob):
                continue
            if _mapped(M, nm, a):
                continue
            ca, cb = common_counts(uidx, w0, w1, urows[a, 0], urows[a, 1], mk, la, lb)
            for l in range(nm):      # partners b among the mapped vertices: not pairs
                s = M[l]
                if l == pw or s < 0:
                    continue
                if not (_arc(urows, uidx, w, s) and _arc(urows, uidx, a, s)):
                    continue
                if la < 0 or mk[TRI_LAB, s] == la:
                    ca -= 1
                if lb < 0 or mk[TRI_LAB, s] == lb:
                    cb -= 1
            if oa:
                corr += cb
            if ob:
                corr += ca
        tot = tot * c0 - corr
    if T[F_TRI, p, 0, 2]:
        tot >>= 1
    return tot


@nb.njit(cache=True, _nrt=False)
def _tri_on(T, p, leaf, tail, urows, uidx, mk, listing):
    """Whether this item counts its triangle tail (:func:`_tri_tail`): the plan has one, the per-update path
    (``leaf`` with ``tail`` past the buffer) and a mark array with its memo rows."""
    ok = not listing and leaf and tail > uidx.shape[0] and T[F_TRI, p, 0, 0] > 0
    return (ok and mk.shape[0] >= TRI_STAMP + 2 * T[F_TRI, p, 0, 3] + 2 and mk.shape[1] >= urows.shape[0] + 2)


@nb.njit(cache=True, inline="always")
def list_cheaper(nc, npar, row):
    """Scan the candidate list (a binary search per parent per candidate) rather than the shortest
    parent row (one look-up per arc)?"""
    lg = 1
    while (1 << lg) < row:
        lg += 1
    return nc * npar * lg < row


@nb.njit(cache=True, _nrt=False)
def _gen(l, p, M, i, new, old, base, lo_off, hi_off, T, urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx, buf, store,
         mk):
    """Candidates of level l.  ``base`` >= 0: scan that parent's row (positions [lo_off, hi_off) of it
    when hi_off >= 0); -2: scan the query vertex's candidate list (positions [lo_off, hi_off)), every
    parent checked by binary search; -1: choose here, the shortest parent row or the candidate list when
    that is cheaper (:func:`list_cheaper`).  One loop for both sources, no array aliasing and no calls inside it (numba
    kept a version with helper calls 3x slower)."""
    qv = T[F_ORDER, p, l, 0]
    npl = T[F_NPAR, p, l, 0]
    nc = cptr[qv + 1] - cptr[qv]
    if base == -1:
        base = 0
        w0 = M[T[F_PAR, p, l, 0]]
        best = urows[w0, 1] - urows[w0, 0]
        for s in range(1, npl):
            w = M[T[F_PAR, p, l, s]]
            d = urows[w, 1] - urows[w, 0]
            if d < best:
                best = d
                base = s
        if list_cheaper(nc, npl, best):
            base = -2
    by_list = base == -2
    if by_list:
        lo = cptr[qv]
        hi = cptr[qv + 1]
    else:
        bv = M[T[F_PAR, p, l, base]]
        lo = urows[bv, 0]
        hi = urows[bv, 1]
    if hi_off >= 0:
        hi = lo + hi_off
        lo = lo + lo_off
    # symmetry bounds: rows and lists are sorted, so c > M[low] and c < M[up] are a window of them
    # (a level left out of the search, M = -1, bounds nothing: the pair count of _run_item)
    for t in range(T[F_NLOW, p, l, 0]):
        m = M[T[F_LOW, p, l, t]]
        if m >= 0:
            if by_list:
                lo = max(lo, lower_bound(cidx, lo, hi, m + 1))
            else:
                lo = max(lo, lower_bound(uidx, lo, hi, m + 1))
    for t in range(T[F_NUP, p, l, 0]):
        m = M[T[F_UP, p, l, t]]
        if m >= 0:
            if by_list:
                hi = min(hi, lower_bound(cidx, lo, hi, m))
            else:
                hi = min(hi, lower_bound(uidx, lo, hi, m))
    bel = -1 if by_list else T[F_PAREL, p, l, base]
    bit = np.uint32(1) << np.uint32(qv)
    ninj = T[F_NINJ, p, l, 0]
    nanti = T[F_NANTI, p, l, 0]
    mkon = mk.shape[1] >= urows.shape[0] + 2    # marks kept (the parallel drive has none)
    qm = -1     # a parent row of level 0 or 1 marked already: its look-up rejects a candidate first (the cheapest test)
    for t in range(npl):
        if t != base and T[F_PAR, p, l, t] < 2 and mk[T[F_PAR, p, l, t], -2] != 0:
            qm = T[F_PAR, p, l, t]
    cnt = 0
    for q in range(lo, hi):
        if by_list:
            c = cidx[q]
            if qm >= 0 and mk[qm, c] == 0:
                continue
        else:
            s = ust[q]
            if not (s == 0 or (s == new and uod[q] > i)):
                continue
            if el_on and bel >= 0 and uel[q] != bel:
                continue
            c = uidx[q]
            if qm >= 0 and mk[qm, c] == 0:
                continue
            if not ct[c] & bit:
                continue
        ok = True
        for t in range(ninj):
            if M[T[F_INJ, p, l, t]] == c:
                ok = False
                break
        if not ok:
            continue
        for t in range(npl):
            if t == base:
                continue
            pl = T[F_PAR, p, l, t]
            w = M[pl]
            a = urows[w, 0]
            e = urows[w, 1]
            if pl < 2 and mk[pl, -2] == 0 and e - a >= MARK_MIN and mkon:   # levels 0, 1 stay for the item: marked
                mk[pl, -1] += 1                # they have been searched often enough to pay for it (module notes)
                if mk[pl, -1] * MARK_AFTER >= e - a:
                    for q2 in range(a, e):
                        mk[pl, uidx[q2]] = q2 - a + 1
                    mk[pl, -2] = 1
            if pl < 2 and mk[pl, -2] != 0:
                r = mk[pl, c]
                pos = a + r - 1 if r > 0 else e
            else:
                pos = lower_bound(uidx, a, e, c)
                if pos < e and uidx[pos] != c:
                    pos = e
            if pos >= e:
                ok = False
                break
            s2 = ust[pos]
            if not (s2 == 0 or (s2 == new and uod[pos] > i)):
                ok = False
                break
            pel = T[F_PAREL, p, l, t]
            if el_on and pel >= 0 and uel[pos] != pel:
                ok = False
                break
        if not ok:
            continue
        for t in range(nanti):
            w = M[T[F_ANTI, p, l, t]]
            e = urows[w, 1]
            pos = lower_bound(uidx, urows[w, 0], e, c)
            if pos < e and uidx[pos] == c and not (ust[pos] == old and uod[pos] > i):
                ok = False
                break
        if not ok:
            continue
        if store:
            buf[l, cnt] = c
        cnt += 1
    return cnt


# the last level's candidates (counted) are found once per parent image, so the call is the hot one: its two dozen
# arguments (a dozen arrays, each passed as its fields) cost as much as the scan of a short row (wordnet's sparse
# query, about 300K such calls a stream of 100 batches); this build is inlined at that one call site (all six: the
# search compiled 2.5 min longer)
_gen_last = nb.njit(cache=True, _nrt=False, inline="always")(renamed_copy(_gen, "_last"))


@nb.njit(cache=True, _nrt=False)
def _emit(out, row, p, T, M, k):
    for lv in range(k):
        out[row, T[F_ORDER, p, lv, 0]] = M[lv]


@nb.njit(cache=True, _nrt=False)
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


_TWIN_MAX = np.int64(1) << np.int64(62)   # a twin count past it is left to the enumeration (an item's count is int64)


@nb.njit(cache=True, inline="always")
def _twins(c, r):
    """The images of r twin levels (F_TWIN) drawn from a set of c candidates, C(c, r), or -1 past ``_TWIN_MAX``:
    every twin level's candidates are the first one's (the same parents, arcs, filter and bounds against earlier
    levels) bounded by the twin before it, so the images are the r-subsets of the set, each in its chain's order."""
    v = np.int64(1)
    if c < r:
        v = np.int64(0)
    else:
        for t in range(r):
            f = np.int64(c - t)
            if v > _TWIN_MAX // f:
                v = np.int64(-1)
                break
            v = v * f // (t + 1)      # (a product of t + 1 consecutive integers: divisible by (t + 1)!)
    return v


_CLIQUE_MAX = 2048      # candidates of a clique tail at most (_clique_tail: c x c bits of a thread's level buffers)
_ONE = np.uint64(1)
_ALL = ~np.uint64(0)


@nb.njit(cache=True, _nrt=False, inline="always")
def _popc64(x):
    x = x - ((x >> _ONE) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@nb.njit(cache=True, _nrt=False)
def _clique_words(c):
    """The 64-bit words _clique_tail uses for c candidates: the adjacency (c rows), a set and a branch set a frame
    (c + 1 frames), four numbers a frame."""
    w = (c + 63) >> 6
    return w * (3 * c + 2) + 4 * (c + 1)


@nb.njit(cache=True)
def clique_rows(T, maxdeg):
    """Rows of a level buffer past its k for the clique tails of T's plans (F_TWIN kinds 3 / 4): 0 where none has
    one."""
    need = False
    for p in range(T.shape[1]):
        if T.shape[2] > 1 and T[F_TWIN, p, 0, 1] >= 3:
            need = True
    if not need:
        return 0
    w = max(maxdeg, 1)
    return (2 * _clique_words(min(w, _CLIQUE_MAX)) + w - 1) // w


@nb.njit(cache=True, _nrt=False)
def _clique_tail(buf, k, l, c, r, i, new, urows, uidx, ust, uod, uel, el_on, tel):
    """The images of r closed twin levels (F_TWIN kinds 3 / 4: one label, pairwise adjacent, the same parents
    otherwise): the r-cliques of level l's set ``buf[l, :c]`` (ascending) in the graph of the arcs the searched side
    may use (kept, or of side ``new`` with order id > i; of edge label ``tel`` where edges are labelled), each
    counted once (the chain of bounds orders it).  Counted by pivoting (Jain and Seshadhri, WWW 2020: a branch per
    candidate outside the pivot's neighbours, the cliques of a leaf with h held and q pivot vertices C(q, r - h)) on
    bitsets kept in ``buf``'s rows past k; -1 where they do not fit or the count passes _TWIN_MAX: the search then
    enumerates the levels."""
    if c < r:
        return np.int64(0)
    if c > _CLIQUE_MAX:
        return np.int64(-1)
    W = (c + 63) >> 6
    flat = buf[k:].reshape(-1)
    nw = flat.shape[0] // 2
    if nw < _clique_words(c):
        return np.int64(-1)
    sc = flat[:2 * nw].view(np.uint64)
    PS = c * W                  # frame d's set at PS + d W
    XS = PS + (c + 1) * W       # frame d's branch vertices at XS + d W
    IS = XS + (c + 1) * W       # frame d's h, q, pivot, next branch position at IS + 4 d
    for a in range(PS):
        sc[a] = 0
    for a in range(c):          # the adjacency: a merge of each candidate's row with the set
        u = buf[l, a]
        q = urows[u, 0]
        e = urows[u, 1]
        b = 0
        while q < e and b < c:
            x = uidx[q]
            y = buf[l, b]
            if x < y:
                q += 1
            elif x > y:
                b += 1
            else:
                s = ust[q]
                if (s == 0 or (s == new and uod[q] > i)) and not (el_on and tel >= 0 and uel[q] != tel):
                    sc[a * W + (b >> 6)] |= _ONE << np.uint64(b & 63)
                q += 1
                b += 1
    for w in range(W):
        sc[PS + w] = 0
    for b in range(c):
        sc[PS + (b >> 6)] |= _ONE << np.uint64(b & 63)
    total = np.int64(0)
    d = 0
    h = 0
    qv = 0
    enter = True
    while d >= 0:
        if enter:               # frame d with its set: a leaf, a cut, or its pivot and branches
            enter = False
            P0 = PS + d * W
            n = 0
            for w in range(W):
                n += _popc64(sc[P0 + w])
            if h > r or h + qv + n < r:
                d -= 1
                continue
            if n == 0:
                v = _twins(qv, r - h)
                if v < 0 or total > _TWIN_MAX - v:
                    return np.int64(-1)
                total += v
                d -= 1
                continue
            best = -1
            piv = 0
            for w in range(W):
                word = sc[P0 + w]
                while word:
                    low = word & (~word + _ONE)
                    b = (w << 6) + _popc64(low - _ONE)
                    word ^= low
                    m = 0
                    for w2 in range(W):
                        m += _popc64(sc[P0 + w2] & sc[b * W + w2])
                    if m > best:
                        best = m
                        piv = b
            X0 = XS + d * W
            for w in range(W):
                sc[X0 + w] = sc[P0 + w] & ~sc[piv * W + w]
            sc[IS + 4 * d] = np.uint64(h)
            sc[IS + 4 * d + 1] = np.uint64(qv)
            sc[IS + 4 * d + 2] = np.uint64(piv)
            sc[IS + 4 * d + 3] = np.uint64(0)
        # the next branch vertex of frame d at or after its position
        P0 = PS + d * W
        X0 = XS + d * W
        at = np.int64(sc[IS + 4 * d + 3])
        v = -1
        w = at >> 6
        while w < W:
            word = sc[X0 + w]
            if w == (at >> 6):
                word &= _ALL << np.uint64(at & 63)
            if word:
                v = (w << 6) + _popc64((word & (~word + _ONE)) - _ONE)
                break
            w += 1
        if v < 0:
            d -= 1
            continue
        sc[IS + 4 * d + 3] = np.uint64(v + 1)
        C0 = PS + (d + 1) * W
        for w2 in range(W):
            sc[C0 + w2] = sc[P0 + w2] & sc[v * W + w2]
        sc[P0 + (v >> 6)] &= ~(_ONE << np.uint64(v & 63))
        h = np.int64(sc[IS + 4 * d])
        qv = np.int64(sc[IS + 4 * d + 1])
        if v == np.int64(sc[IS + 4 * d + 2]):
            qv += 1
        else:
            h += 1
        d += 1
        enter = True
    return total


@nb.njit(cache=True, _nrt=False)
def _leaf(l, p, M, T, urows, uidx, ct, N, qcol, tail):
    """How many candidates leaf level l has (F_LEAF: a query vertex of degree 1, one parent, no bounds, anti levels
    or edge label), counted, not scanned, or -1 where its parent's row may hold arcs that are not kept (it starts
    at ``tail`` or after: a row of the union a batch wrote there).  Every other row holds kept arcs only, but in the
    per-update path (``tail`` past the buffer) the update's own arc M[0]-M[1], present and unusable.  The count:
    the parent's neighbours of the leaf's label (``N[w, qcol]``, or the row's length when unlabelled: the leaf's
    candidate bit then holds for every neighbour of w, which has w's label and degree >= 1), less the update's
    arc and the mapped vertices (non-parent levels, M >= 0) of that label adjacent to w."""
    qv = T[F_ORDER, p, l, 0]
    w = M[T[F_PAR, p, l, 0]]
    if urows[w, 0] >= tail:
        return np.int64(-1)
    col = qcol[qv]
    if col >= 0:
        c = np.int64(N[w, col])
    else:
        c = urows[w, 1] - urows[w, 0]
    bit = np.uint32(1) << np.uint32(qv)
    x = M[0]
    y = M[1]
    o = y if w == x else x if w == y else -1
    if o >= 0 and ct[o] & bit:
        c -= 1
    a = urows[w, 0]
    e = urows[w, 1]
    for t in range(T[F_NINJ, p, l, 0]):
        m = M[T[F_INJ, p, l, t]]
        if m >= 0 and m != o and ct[m] & bit:
            q = lower_bound(uidx, a, e, m)
            if q < e and uidx[q] == m:
                c -= 1
    return c


@nb.njit(cache=True, _nrt=False)
def _leaf_overlap(l, p, M, T, urows, uidx, ct, qcol, row, na):
    """How many of the ascending candidates ``row[:na]`` of level l - 1 are also candidates of leaf level l
    (:func:`_leaf`'s set, counted there): those adjacent to the leaf's parent with its candidate bit (every
    neighbour of the parent of the leaf's label has it; the row's vertices are not mapped), none where the two
    levels' label columns differ.  With it an independent leaf after a level that must be scanned is counted,
    not scanned and merged: |S| |S'| - |S ∩ S'| (the per-update path, where :func:`_leaf` counts)."""
    qv = T[F_ORDER, p, l, 0]
    cu = qcol[T[F_ORDER, p, l - 1, 0]]
    cv = qcol[qv]
    if cu >= 0 and cv >= 0 and cu != cv:
        return np.int64(0)
    w = M[T[F_PAR, p, l, 0]]
    bit = np.uint32(1) << np.uint32(qv)
    b1 = urows[w, 1]
    r = urows[w, 0]
    c = np.int64(0)
    for t in range(na):
        x = row[t]
        if not ct[x] & bit:
            continue
        r = gallop(uidx, r, b1, x)
        if r >= b1:
            break
        if uidx[r] == x:
            c += 1
    return c


@nb.njit(cache=True, _nrt=False)
def _leaf_pair(l, p, M, T, urows, uidx, ct, N, qcol, rel, tail):
    """The pairs of the last two levels (l = last - 1, both leaves; ``rel`` as F_INDEP) from their counts, or -1
    where their sets are neither the same (one parent, one label column) nor disjoint (two label columns), or a
    count is not to be had (:func:`_leaf`)."""
    u1 = T[F_ORDER, p, l, 0]
    u2 = T[F_ORDER, p, l + 1, 0]
    same = T[F_PAR, p, l, 0] == T[F_PAR, p, l + 1, 0] and qcol[u1] == qcol[u2]
    apart = qcol[u1] >= 0 and qcol[u2] >= 0 and qcol[u1] != qcol[u2]
    r = np.int64(-1)
    if same or (apart and rel == 1):
        M[l] = -1
        a = _leaf(l, p, M, T, urows, uidx, ct, N, qcol, tail)
        if a < 0:
            r = a
        elif same:
            r = a * (a - 1) if rel == 1 else a * (a - 1) // 2
        else:
            b = _leaf(l + 1, p, M, T, urows, uidx, ct, N, qcol, tail)
            r = a * b if b >= 0 else b
    return r


# The search (_gen, _pairs, _emit, _run_item*) is built without numba's reference counting (``_nrt=False``: it
# allocates nothing, its arrays are the caller's): with it, every call paid an atomic increment and decrement per
# array argument, about 10 ns an array, 300 ns for an item whose level 2 is empty (16 arrays to _run_item, 14 more to
# _gen at every search node). Without: 40 ns such an item; wordnet sparse4's batch search 1.1-2.0 ms -> 1.0-1.3 ms.
_REUSE_ON = True    # the reuse code (module notes) is in this build of the search ...
_DISPATCH = False   # ... and it hands no item on; both flipped in _run_item, the build the drive calls (below)


@nb.njit(cache=True, _nrt=False)
def _resume_at(it, items, p, M, T, urows, uidx, cptr, cidx, buf, q, c2):
    """Where item ``it`` goes on from its level-2 candidate ``q`` (of ``c2``; stored in ``buf[2]``): that candidate's
    position in the item's level-2 range (its base row or candidate list, sorted), the range's end where q is past
    the last."""
    b2 = items[it, 2]
    lo = items[it, 3]
    hi = items[it, 4]
    if q >= c2:
        return hi
    v = buf[2, q]
    if b2 == -2:
        s = cptr[T[F_ORDER, p, 2, 0]]
        return lower_bound(cidx, s + lo, s + hi, v) - s
    s = urows[M[T[F_PAR, p, 2, b2]], 0]
    return lower_bound(uidx, s + lo, s + hi, v) - s


# The splitting drive's shared array (SPLIT_EAGER's notes), from its end: the flag, the queue's head, the ranges
# handed on, the items that may still hand on, the threads idle, the items done (their own search and every piece's:
# the progress bar), the number n of items, the number R of range slots; before them R slots of _RANGE (original
# item, j, p, base, side, end, next position, ready, level-2 position or -1 for a level-2 range, its level L, group
# B's count or -1, then at 11 + l the vertex of level l = 3 .. L: the path's above L, the first handed on at L); before
# those n counts, an item's searches not done yet (its own, 1 at first, and its pieces'); before those 4 a thread (a
# thread's ``steps`` is its view from its slot to the end: [0] steps left, [1] 1 once the item may no longer hand on,
# [2] the original item, [3] the steps between looks at the flag).
_S_FLAG, _S_HEAD, _S_RANGES, _S_HANDERS, _S_IDLE, _S_DONE, _S_N, _S_R = 1, 2, 3, 4, 5, 6, 7, 8
_RANGE = 11 + MAX_DYNAMIC_VERTICES
_PIECE = 9 + MAX_DYNAMIC_VERTICES   # a piece's row: (j, p, base, lo, hi, side, L, index, B), then the vertex of level l
#                                     at 9 + l (l = 3 .. L)


@nb.njit(cache=True, _nrt=False)
def _release(steps):
    """The item may no longer hand on: one less that waiting threads wait for."""
    steps[1] = 1
    fetch_add(steps, steps.shape[0] - _S_HANDERS, -1)


@nb.njit(cache=True, _nrt=False)
def _pending(shared):
    """Where the items' counts of searches not done yet start in the shared array (or a thread's view of it)."""
    e = shared.shape[0]
    return e - _S_R - _RANGE * shared[e - _S_R] - shared[e - _S_N]


@nb.njit(cache=True, _nrt=False)
def _done(shared, orig):
    """One search of item ``orig`` (its own or a piece's) ended: the item is done where it was its last."""
    if fetch_add(shared, _pending(shared) + orig, -1) == 1:
        fetch_add(shared, shared.shape[0] - _S_DONE, 1)


@nb.njit(cache=True, _nrt=False)
def _hand_on(it, items, p, M, T, urows, uidx, cptr, cidx, buf, cnt, pos, L, steps, memo):
    """Publish (written, then marked ready) the candidates of level L after the current one, ``pos[L] + 1 ..
    cnt[L]`` (two or more: the caller checked), as a range the idle threads take a position at a time: positions of
    the item's level-2 range for L = 2, else the item's level-2 position, the path's vertices of levels 3 .. L - 1,
    the first vertex handed on and how many; ``memo``: group B's count where known, else -1.  Returns whether it was
    published (every slot taken: the item searches on)."""
    e = steps.shape[0]
    R = steps[e - _S_R]
    r = fetch_add(steps, e - _S_RANGES, 1)
    if r >= R:
        return False
    b = e - _S_R - _RANGE * R + _RANGE * r
    steps[b] = steps[2]
    steps[b + 1] = items[it, 0]
    steps[b + 2] = items[it, 1]
    steps[b + 3] = items[it, 2]
    steps[b + 4] = items[it, 5]
    if L == 2:
        steps[b + 5] = items[it, 4]
        steps[b + 6] = _resume_at(it, items, p, M, T, urows, uidx, cptr, cidx, buf, pos[2] + 1, cnt[2])
        steps[b + 8] = -1
    else:
        steps[b + 5] = cnt[L] - pos[L] - 1
        steps[b + 6] = 0
        steps[b + 8] = _resume_at(it, items, p, M, T, urows, uidx, cptr, cidx, buf, pos[2], cnt[2])
        for l in range(3, L):
            steps[b + 11 + l] = buf[l, pos[l]]
        steps[b + 11 + L] = buf[L, pos[L] + 1]
    steps[b + 9] = L
    steps[b + 10] = memo
    # the item's searches not done: its pieces too (counted before they are ready: none ends before it is counted)
    fetch_add(steps, _pending(steps) + steps[2], steps[b + 5] - steps[b + 6])
    fetch_add(steps, b + 7, 1)      # ready (an atomic: the writes above are not moved after it)
    return True


@nb.njit(cache=True, _nrt=False)
def _look(it, items, p, M, T, urows, uidx, cptr, cidx, buf, cnt, pos, lv, last, steps, memo):
    """The splitting drive's look at its flag (SPLIT_EAGER's notes), for an item that may still hand on: the level L
    it handed on at (``cnt[L]`` cut to the current candidate), 0 where it did not and may later, -1 where it may no
    longer (released)."""
    e = steps.shape[0]
    if steps[e - _S_FLAG] == 0:
        return 0
    top = min(lv, last - 2)     # (the levels below are counted a node at a time: too little to hand on)
    for L in range(2, top + 1):
        if cnt[L] - pos[L] >= 2:
            if L > 2 and steps[e - _S_IDLE] <= 0:
                return 0
            if _hand_on(it, items, p, M, T, urows, uidx, cptr, cidx, buf, cnt, pos, L, steps, memo):
                cnt[L] = pos[L] + 1
                return L
            break
    else:
        if lv < last - 2:       # deeper levels are still to come
            return 0
    _release(steps)
    return -1


@nb.njit(cache=True, _nrt=False)
def _run_item_reuse(it, items, upd, T, urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx, k, buf, cnt, pos, M, out,
                    at, listing, c2in, N, qcol, leaf, tail, mk, steps):
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
            _emit(out, at, p, T, M, k)
        return 1
    # counting with an independent last level: the last two levels give |S| |S'| - |S ∩ S'| (S' found with
    # the level before it left out (M = -1); both ascending), or with a symmetry bound between them the
    # pairs x < y (or x > y), by one merge
    rel = 0 if listing else T[F_INDEP, p, 0, 0]
    leaf = leaf and not listing     # F_LEAF levels counted from the label counts (_leaf: the per-update path)
    # level 3 may draw from level 2's set (F_REUSE), and level 2 may be counted (F_LEAF), only when this item's
    # level-2 range is the whole row / list
    b2 = items[it, 2]
    if b2 == -2:
        q2 = T[F_ORDER, p, 2, 0]
        n2 = cptr[q2 + 1] - cptr[q2]
    else:
        w2 = M[T[F_PAR, p, 2, b2]]
        n2 = urows[w2, 1] - urows[w2, 0]
    full2 = items[it, 3] == 0 and items[it, 4] >= n2
    piece = items.shape[1] > 6      # a piece handed on (SPLIT_EAGER's notes): levels 3 .. pl on its path
    pl = items[it, 6] if piece else 0
    # levels up to trunc may have their loop's end cut (a piece's path, a hand-on): level trunc + 1 is then not drawn
    # from their sets (reuse), which the cut leaves partial
    trunc = pl
    if leaf and rel > 0 and last == 3 and full2 and c2in < 0 and T[F_LEAF, p, 2, 0] == 1 and T[F_LEAF, p, 3, 0]:
        r = _leaf_pair(2, p, M, T, urows, uidx, ct, N, qcol, rel, tail)
        if r >= 0:
            return r
    tri = _tri_on(T, p, leaf, tail, urows, uidx, mk, listing)
    tlv = last - 1 - min(T[F_TRI, p, 0, 0], 2)    # the level whose every image counts the triangle tail
    if tri and tlv == 1:   # the tail from level 2: counted once per update and start pair, by the first piece of
        if items[it, 3] != 0:   # its level 2 (a hub's is split)
            return 0
        return _tri_tail(p, M, T, urows, uidx, mk, qcol, last, ct, N, tail)
    store2 = listing or last > 2
    if c2in >= 0:   # level 2 already in buf[2] (handed on by _run_item)
        c2 = c2in
    else:
        c2 = _gen(2, p, M, i, new, old, items[it, 2], items[it, 3], items[it, 4], T, urows, uidx, ust, uod, uel,
                  el_on, ct, cptr, cidx, buf, store2, mk)
    if last == 2:
        if listing:
            for t in range(c2):
                M[2] = buf[2, t]
                _emit(out, at + t, p, T, M, k)
        return c2
    tw = 0 if listing else T[F_TWIN, p, 0, 0]    # twin levels tw .. last: counted from one level's set (_twins)
    closed = T[F_TWIN, p, 0, 1] >= 3 if tw > 0 else False   # closed twins: the set's cliques (_clique_tail)
    if tw == 2 and full2:
        if closed:
            v = _clique_tail(buf, k, 2, c2, last - 1, i, new, urows, uidx, ust, uod, uel, el_on,
                             T[F_TWIN, p, 1, 1] - 1)
        else:
            v = _twins(c2, last - 1)
        if v >= 0:
            return v
    if rel > 0 and last == 3:
        if c2 == 0:
            return 0
        M[2] = -1
        c3 = _gen(3, p, M, i, new, old, -1, 0, -1, T, urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx, buf, True,
                  mk)
        return _pairs(buf[2], c2, buf[3], c3, rel)
    if _DISPATCH:
        if c2 > 0 and T[F_REUSE, p, 0, 0]:   # a plan with a reuse level: on in the build with the reuse code
            return _run_item_reuse(it, items, upd, T, urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx, k, buf, cnt,
                                   pos, M, out, at, listing, c2, N, qcol, leaf, tail, mk, steps)
    total = 0
    cnt[2] = c2
    pos[2] = 0
    lv = 2
    # levels sp .. last (group B, F_TWIN slot 2) do not depend on levels 2 .. sp - 1: their completions are counted
    # once (the first image of level sp - 1 searches them) and added for every other image of level sp - 1
    sp = 0 if listing else T[F_TWIN, p, 0, 2]
    memo = items[it, 8] if piece else np.int64(-1)
    if sp >= 4 and pl >= sp - 1:    # (a piece through level sp - 1: level sp - 2 may not count all of its images)
        memo = np.int64(-1)
    mstart = np.int64(0)
    inb = False
    # levels mr .. last hang off level mr - 1 alone (F_TWIN[p, 1, 0]; the root memo: module notes): their count
    # kept per image of level mr - 1 for this item
    mr = 0 if listing else T[F_TWIN, p, 1, 0]
    if mr > 0 and (mk.shape[0] <= ROOT_VAL or mk.shape[1] < urows.shape[0] + 2):
        mr = 0
    rid = np.int32(0)
    rstart = np.int64(0)
    rin = False
    if mr > 0:
        e = mk.shape[1] - 1
        rid = mk[ROOT_STAMP, e] + 1
        if rid >= _ROOT_MAXVAL:     # the stamps wrap: none of the row's may equal a later item's
            mk[ROOT_STAMP, :] = 0
            rid = 1
        mk[ROOT_STAMP, e] = rid
    # the serial drives' budget (module notes: a serial search that runs past it goes to the parallel drive): every
    # pass of the loop below is a step; the parallel drive's is STEPS_OFF, never reached and never written back
    # the splitting drive's look at its flag, and its hand-on: SPLIT_EAGER's notes
    left = steps[0]
    while True:
        left -= 1
        if left <= 0:
            if steps.shape[0] < 4:
                steps[0] = 0
                return -1
            # the splitting drive: its look at the flag and its hand-ons (SPLIT_EAGER's notes, _look)
            left = STEPS_OFF
            if steps[1] == 0:
                h = _look(it, items, p, M, T, urows, uidx, cptr, cidx, buf, cnt, pos, lv, last, steps, memo)
                if h >= 0:
                    left = steps[3]
                    trunc = max(trunc, h)
        if inb and lv == sp - 1:      # back from group B: what it added is its count
            memo = total - mstart
            inb = False
        if rin and lv == mr - 1:      # back from the rooted group: its count for the root M[mr - 1]
            rv = total - rstart
            if rv <= _ROOT_MAXVAL:
                mk[ROOT_STAMP, M[lv]] = rid
                mk[ROOT_VAL, M[lv]] = rv
            rin = False
        if pos[lv] >= cnt[lv]:
            if lv == 2:
                break
            lv -= 1
            pos[lv] += 1
            continue
        M[lv] = buf[lv, pos[lv]]
        if sp > 0 and lv + 1 == sp:
            if memo < 0:
                mstart = total
                inb = True
            elif total <= _TWIN_MAX - memo:     # (else B is searched again: an item's count is int64)
                total += memo
                pos[lv] += 1
                continue
        if mr > 0 and lv + 1 == mr:
            cv = M[lv]
            if mk[ROOT_STAMP, cv] == rid:
                rv = np.int64(mk[ROOT_VAL, cv])
                if total <= _TWIN_MAX - rv:
                    total += rv
                    pos[lv] += 1
                    continue
            rstart = total
            rin = True
        if sp > 0 and lv + 2 == sp and memo >= 0:
            # B's count known: level sp - 1's images counted (from the label counts where it is a leaf), not visited
            c = -1
            if leaf and T[F_LEAF, p, sp - 1, 0] == 1:
                c = _leaf(sp - 1, p, M, T, urows, uidx, ct, N, qcol, tail)
            if c < 0:
                c = _gen(sp - 1, p, M, i, new, old, -1, 0, -1, T, urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx,
                         buf, False, mk)
            if memo == 0 or (c <= _TWIN_MAX // memo and total <= _TWIN_MAX - c * memo):
                total += c * memo
                pos[lv] += 1
                continue
        if tri and lv == tlv:
            total += _tri_tail(p, M, T, urows, uidx, mk, qcol, last, ct, N, tail)
            pos[lv] += 1
            continue
        if tw > 0 and lv + 1 >= tw and last - lv >= 3:
            # levels lv + 1 .. last are twins: their images from level lv + 1's set, counted
            cc = _gen(lv + 1, p, M, i, new, old, -1, 0, -1, T, urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx,
                      buf, closed, mk)
            if closed:
                v = _clique_tail(buf, k, lv + 1, cc, last - lv, i, new, urows, uidx, ust, uod, uel, el_on,
                                 T[F_TWIN, p, 1, 1] - 1)
            else:
                v = _twins(cc, last - lv)
            if v >= 0 and total <= _TWIN_MAX - v:
                total += v
                pos[lv] += 1
                continue
        c = -1
        if _REUSE_ON and T[F_REUSE, p, lv + 1, 0] != 0 and (lv > 2 or full2) and lv > trunc:
            # reuse (module notes): level rl = lv + 1 from level lv's set buf[lv, :cnt[lv]]; written out here, not
            # as a function: a call (or numba's inline="always") paid reference counting on its ten array
            # arguments at every search node, 2.4x slower on human's 8-clique (0.1% batch), slower than no reuse
            # on sparse queries
            rl = lv + 1
            rb = T[F_REUSE, p, rl, 1]
            rlo = pos[lv] + 1 if rb == 1 else 0
            rhi = pos[lv] if rb == 2 else cnt[lv]
            row = buf[lv]
            for t in range(T[F_NXB, p, rl, 0]):   # c > M[a]
                rlo = upper_bound(row, rlo, rhi, M[T[F_XLOW, p, rl, t]])
            for t in range(T[F_NXB, p, rl, 1]):   # c < M[b]
                rhi = lower_bound(row, rlo, rhi, M[T[F_XUP, p, rl, t]])
            w = rhi - rlo
            nxp = T[F_REUSE, p, rl, 2]
            qv = T[F_ORDER, p, rl, 0]
            if w <= 0:
                c = 0
            else:
                go = w * nxp <= (cptr[qv + 1] - cptr[qv]) * T[F_NPAR, p, rl, 0]
                for t in range(nxp):
                    x = M[T[F_PAR, p, rl, T[F_XP, p, rl, t]]]
                    if urows[x, 1] - urows[x, 0] < w:
                        go = False
                if go:
                    store = listing or rl < last
                    bit = np.uint32(1) << np.uint32(qv)
                    same = T[F_REUSE, p, rl, 0] == 2
                    s0 = T[F_XP, p, rl, 0]
                    x0 = M[T[F_PAR, p, rl, s0]]
                    r = urows[x0, 0]
                    end0 = urows[x0, 1]
                    pel0 = T[F_PAREL, p, rl, s0]
                    c = 0
                    for q in range(rlo, rhi):
                        cv = buf[lv, q]
                        if not same and not ct[cv] & bit:
                            continue
                        if r < end0 and uidx[r] < cv:   # gallop forward, then a binary search in the last step
                            stp = 1
                            prev = r
                            nxt = r + 1
                            while nxt < end0 and uidx[nxt] < cv:
                                prev = nxt
                                stp <<= 1
                                nxt = prev + stp
                            r = lower_bound(uidx, prev + 1, min(nxt, end0), cv)
                        if r >= end0:
                            break
                        if uidx[r] != cv:
                            continue
                        s2 = ust[r]
                        if not (s2 == 0 or (s2 == new and uod[r] > i)):
                            continue
                        if el_on and pel0 >= 0 and uel[r] != pel0:
                            continue
                        ok = True
                        for t in range(1, nxp):
                            s = T[F_XP, p, rl, t]
                            x = M[T[F_PAR, p, rl, s]]
                            end = urows[x, 1]
                            ps = lower_bound(uidx, urows[x, 0], end, cv)
                            if ps >= end or uidx[ps] != cv:
                                ok = False
                                break
                            s2 = ust[ps]
                            if not (s2 == 0 or (s2 == new and uod[ps] > i)):
                                ok = False
                                break
                            pel = T[F_PAREL, p, rl, s]
                            if el_on and pel >= 0 and uel[ps] != pel:
                                ok = False
                                break
                        if not ok:
                            continue
                        if store:
                            buf[rl, c] = cv
                        c += 1
        if lv + 1 == last:
            if c < 0 and leaf and T[F_LEAF, p, last, 0] == 1:
                c = _leaf(last, p, M, T, urows, uidx, ct, N, qcol, tail)
            if c < 0:
                c = _gen_last(last, p, M, i, new, old, -1, 0, -1, T, urows, uidx, ust, uod, uel, el_on, ct, cptr,
                              cidx, buf, listing, mk)
            if listing:
                for t in range(c):
                    M[last] = buf[last, t]
                    _emit(out, at + total + t, p, T, M, k)
            total += c
            pos[lv] += 1
        elif rel > 0 and lv + 2 == last:
            a = c
            if a < 0 and leaf and T[F_LEAF, p, lv + 1, 0] == 1 and T[F_LEAF, p, last, 0]:
                r = _leaf_pair(lv + 1, p, M, T, urows, uidx, ct, N, qcol, rel, tail)
                if r >= 0:
                    total += r
                    pos[lv] += 1
                    continue
            if a < 0:
                a = _gen(lv + 1, p, M, i, new, old, -1, 0, -1, T, urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx,
                         buf, True, mk)
            if a:
                M[lv + 1] = -1
                b = -1
                if leaf and rel == 1 and T[F_LEAF, p, last, 0] == 1:
                    b = _leaf(last, p, M, T, urows, uidx, ct, N, qcol, tail)
                if b >= 0:
                    total += a * b - _leaf_overlap(last, p, M, T, urows, uidx, ct, qcol, buf[lv + 1], a)
                else:
                    b = _gen(last, p, M, i, new, old, -1, 0, -1, T, urows, uidx, ust, uod, uel, el_on, ct, cptr,
                             cidx, buf, True, mk)
                    total += _pairs(buf[lv + 1], a, buf[last], b, rel)
            pos[lv] += 1
        else:
            if c < 0:
                c = _gen(lv + 1, p, M, i, new, old, -1, 0, -1, T, urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx,
                         buf, True, mk)
            cnt[lv + 1] = c
            pos[lv + 1] = 0
            if lv < pl:     # a piece's path (SPLIT_EAGER's notes): its vertex, or at level pl its positions' first
                q = lower_bound(buf[lv + 1], 0, c, items[it, 10 + lv])
                if lv + 1 == pl:
                    q += items[it, 7]
                pos[lv + 1] = q
                cnt[lv + 1] = min(q + 1, c)
            lv += 1
    if left < STEPS_OFF // 2:
        steps[0] = left
    return total


def _without_reuse(run):
    """A build of ``run`` (the dispatcher of :func:`_run_item_reuse`) without the reuse code (``_REUSE_ON``
    False: a compile-time constant) that hands an item of a plan with a reuse level on to ``run`` once its
    level 2 is found non-empty (``_DISPATCH``; ``c2in``: level 2's count, its candidates left in ``buf[2]``).
    Plans without a reuse level run only this: with the reuse code in their function, their search ran up
    to 13% slower (wordnet, dense 6-vertex query, 2% batch), though the code is never entered; with the
    choice of build in the drive (two call sites), up to 15% (human, 4-vertex tree, 2% batch).  Its own
    name: a cache entry of its own (see primitives.jit)."""
    return nb.njit(cache=True, _nrt=False)(renamed_copy(run, "_plain", {"_REUSE_ON": False, "_DISPATCH": True}))


_run_item = _without_reuse(_run_item_reuse)


@nb.njit(cache=True, _nrt=False)
def start_items(upd, ustate, uel, ct, cptr, urows, T, pairs, pair_edge, pair_el, pair_cond, k, split, out, fill):
    """Work items (j, p, base, lo, hi, side) of every update and start pair (count pass: ``fill`` False)."""
    n = 0
    for j in range(upd.shape[0]):
        x = upd[j, 0]
        y = upd[j, 1]
        cx = ct[x]
        cy = ct[y]
        for p in range(pairs.shape[0]):
            if not ((cx >> np.uint32(pairs[p, 0])) & (cy >> np.uint32(pairs[p, 1])) & np.uint32(1)):
                continue
            if pair_el[p] >= 0 and uel[j] != pair_el[p]:
                continue
            pc = pair_cond[p]  # symmetry breaking on the start pair itself
            if (pc == 1 and x > y) or (pc == 2 and x < y):
                continue
            side = ustate[j] if pair_edge[p] == 1 else 3 - ustate[j]
            slot = 0
            L = 0
            if k > 2:  # level 2: the shorter parent row of x and y, or its candidate list where cheaper
                npar2 = T[F_NPAR, p, 2, 0]
                lx = urows[x, 1] - urows[x, 0]
                ly = urows[y, 1] - urows[y, 0]
                L = lx if T[F_PAR, p, 2, 0] == 0 else ly
                if npar2 == 2:
                    L1 = lx if T[F_PAR, p, 2, 1] == 0 else ly
                    if L1 < L:
                        L = L1
                        slot = 1
                q2 = T[F_ORDER, p, 2, 0]
                nc = cptr[q2 + 1] - cptr[q2]
                if list_cheaper(nc, npar2, L):
                    slot = -2
                    L = nc
            pieces = max(1, (L + split - 1) // split)
            for t in range(pieces):
                if fill:
                    out[n, 0] = j
                    out[n, 1] = p
                    out[n, 2] = slot
                    out[n, 3] = t * split
                    out[n, 4] = min(L, (t + 1) * split)
                    out[n, 5] = side
                n += 1
    return n


@nb.njit(cache=True, _nrt=False)
def items_bound(npairs, maxdeg, split):
    """At most how many items :func:`start_items` makes of one update (its fill pass writes no more): per start pair,
    its level-2 scan cut in pieces of ``split``, and that scan is the shorter parent row or a candidate list shorter
    than it (:func:`list_cheaper` holds only for nc < row), so at most ``maxdeg`` (every row's bound) long."""
    return npairs * max(1, (maxdeg + split - 1) // split)


@nb.njit(cache=True)
def all_items(upd, ustate, uel, ct, cptr, urows, T, pairs, pair_edge, pair_el, pair_cond, k, split, heavy_first):
    """The items (count pass, fill pass), and how many search the positive side; with ``heavy_first`` the
    heaviest first (stable: a counting sort by cost, which is at most ``split``: the parallel drive's balance;
    a serial search takes them as they come)."""
    n = start_items(upd, ustate, uel, ct, cptr, urows, T, pairs, pair_edge, pair_el, pair_cond, k, split,
               np.zeros((1, 6), np.int64), False)
    raw = np.empty((n, 6), np.int64)
    start_items(upd, ustate, uel, ct, cptr, urows, T, pairs, pair_edge, pair_el, pair_cond, k, split, raw, True)
    npos = 0
    for t in range(n):
        if raw[t, 5] == 1:
            npos += 1
    if n < 2 or not heavy_first:
        return raw, npos
    return _heaviest_first(raw, n), npos


@nb.njit(cache=True)
def _heaviest_first(raw, n):
    """The items by cost, heaviest first (stable).  (A function of its own: with the sorts inline, all_items
    ran 0.9 instead of 0.4 us for one update without items -- the lane's per-update path calls it per update.)"""
    top = 0
    for t in range(n):
        top = max(top, raw[t, 4] - raw[t, 3])
    out = np.empty((n, 6), np.int64)
    if top > 4 * n + 4096:   # costs spread far wider than the items: a stable sort of them
        cost = np.empty(n, np.int64)
        for t in range(n):
            cost[t] = raw[t, 3] - raw[t, 4]
        order = np.argsort(cost, kind="mergesort")
        for t in range(n):
            out[t] = raw[order[t]]
        return out
    start = np.zeros(top + 2, np.int64)
    for t in range(n):
        start[top - (raw[t, 4] - raw[t, 3]) + 1] += 1
    for c in range(top + 1):
        start[c + 1] += start[c]
    for t in range(n):
        c = top - (raw[t, 4] - raw[t, 3])
        out[start[c]] = raw[t]
        start[c] += 1
    return out


def build_items(plan, upd, ustate, uel, cand, urows, split):
    """Work items ``(j, p, base, lo, hi, side)`` of both sides, heaviest first, and how many of them search the
    positive side.

    Update j on start pair p searches side ``ustate[j]`` when p is a query edge (an insert creates
    positives, a delete negatives) and the other side when p is a query non-edge (induced); a hub's
    level-2 scan is split into pieces of ``split`` positions."""
    return all_items(upd, ustate, uel, cand.ct, cand.ptr, urows, plan.packed, plan.pairs, plan.pair_edge,
                      plan.pair_el, plan.pair_cond, plan.k, int(split), True)


@nb.njit(cache=True, _nrt=False)
def side_totals(counts, items):
    """(positive total, negative total, whether an int64 sum could overflow) of the per-item counts."""
    pos = 0
    neg = 0
    big = False
    lim = (1 << 62)
    for t in range(counts.shape[0]):
        c = counts[t]
        if c >= lim or pos >= lim or neg >= lim:
            big = True
        if items[t, 5] == 1:
            pos += c
        else:
            neg += c
    return pos, neg, big


@nb.njit(cache=True, _nrt=False)
def unmark(mk, upd, j, urows, uidx):
    """The marks an item of update j left (``mk``: the module notes) cleared: all zero between items."""
    for s in range(2):
        if mk[s, -2]:
            w = upd[j, s]
            for q in range(urows[w, 0], urows[w, 1]):
                mk[s, uidx[q]] = 0
        mk[s, -2] = 0
        mk[s, -1] = 0


@nb.njit(cache=True)
def _scratch(k, maxdeg, uidx, T):
    """A drive's level buffers for one chunk or thread: candidates (k, every row's length; then the clique tails'
    rows, :func:`clique_rows`), counts, positions, M."""
    return (np.empty((k + clique_rows(T, maxdeg), max(maxdeg, 1)), dtype=uidx.dtype), np.zeros(k, dtype=np.int64),
            np.zeros(k, dtype=np.int64),
            np.zeros(k, dtype=np.int64))


@nb.njit(cache=True)
def _thread_block(mk):
    """The row marks of the calling thread in a parallel drive: its block of ``mk`` where the caller passes one a
    thread (plans with a rooted group: the root memo), else none (one array a chunk, a column per vertex, cleared at
    each allocation, costs more than it saves on a large graph)."""
    t = nb.get_thread_id()
    if mk.shape[0] >= (t + 1) * _THREAD_ROWS:
        return mk[t * _THREAD_ROWS:(t + 1) * _THREAD_ROWS]
    return np.zeros((2, 2), dtype=np.int32)


def _drive_impl(items, upd, T, urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx, k, maxdeg, counts, offsets, out,
                listing, N, qcol, leaf, tail, nchunks, mk, steps):
    nit = items.shape[0]
    for c in nb.prange(nchunks):
        buf, cnt, pos, M = _scratch(k, maxdeg, uidx, T)
        # the row marks: the caller's (kept all zero between items) for one chunk, else the thread's (_thread_block)
        mkc = mk if nchunks == 1 else _thread_block(mk)
        for it in range(c, nit, nchunks):  # items are sorted by cost: round robin balances the chunks
            at = offsets[it] if listing else 0
            counts[it] = _run_item(it, items, upd, T, urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx, k, buf, cnt,
                                   pos, M, out, at, listing, -1, N, qcol, leaf, tail, mkc, steps)
            unmark(mkc, upd, items[it, 0], urows, uidx)
            if counts[it] < 0:      # the serial budget ran out at this item (-1): the caller runs it and the rest
                break


drive_par, drive_ser = parallel_and_serial(_drive_impl)  # small batches: the serial one


@nb.njit(parallel=True, cache=True, nogil=True)
def _drive_split(items, upd, T, urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx, k, maxdeg, counts, N, qcol,
                 leaf, tail, nthreads, mk, shared, check):
    """The splitting drive (SPLIT_EAGER's notes): each thread takes items from the queue (``shared``: _S_FLAG's
    notes), then positions of the ranges handed on, until none is left and no item may hand on any more; every
    count added to its item's ``counts`` (zero at first, 2n long: the low 31 bits at the item, the rest at n + item)
    atomically."""
    n = items.shape[0]
    e = shared.shape[0]
    R = shared[e - _S_R]
    rb = e - _S_R - _RANGE * R
    for c in nb.prange(nthreads):
        buf, cnt, pos, M = _scratch(k, maxdeg, uidx, T)
        no_rows = np.zeros((1, 1), dtype=np.int64)
        one = np.zeros((1, _PIECE), dtype=np.int64)     # a piece (_PIECE's notes)
        st = shared[4 * nb.get_thread_id():]
        mkc = _thread_block(mk)
        listing = el_on and not el_on      # runtime False, as count_serial's
        at = np.int64(0)    # (also the item index of ``one``: a literal 0 was a second build of the search)
        st[3] = check
        queue = True
        idle = False
        while True:
            if queue:       # an item of the batch, whole
                it = fetch_add(shared, e - _S_HEAD, 1)
                if it >= n:
                    queue = False
                    shared[e - _S_FLAG] = 1      # the queue is empty: this thread is idle
                    continue
                rows, i, orig = items, it, it
            else:           # a position of a range handed on, until none is left and none may come
                waiting = fetch_add(shared, e - _S_HANDERS, 0)
                nr = min(fetch_add(shared, e - _S_RANGES, 0), R)
                got = -1
                for q in range(nr):
                    b = rb + _RANGE * q
                    if fetch_add(shared, b + 7, 0) == 0 or shared[b + 6] >= shared[b + 5]:
                        continue        # not ready yet, or taken (the check below is the atomic one)
                    x = fetch_add(shared, b + 6, 1)
                    if x < shared[b + 5]:
                        got = b
                        x2 = shared[b + 8]
                        L = shared[b + 9]
                        one[0, 0] = shared[b + 1]
                        one[0, 1] = shared[b + 2]
                        one[0, 2] = shared[b + 3]
                        one[0, 3] = x if x2 < 0 else x2
                        one[0, 4] = one[0, 3] + 1
                        one[0, 5] = shared[b + 4]
                        one[0, 6] = L
                        one[0, 7] = x
                        one[0, 8] = shared[b + 10]
                        for l in range(3, L + 1):
                            one[0, 9 + l] = shared[b + 11 + l]
                        break
                if got < 0:
                    if waiting == 0:
                        break       # (read before the scan: every range released before it was seen)
                    if not idle:
                        fetch_add(shared, e - _S_IDLE, 1)
                        idle = True
                    continue
                if idle:
                    fetch_add(shared, e - _S_IDLE, -1)
                    idle = False
                rows, i, orig = one, at, shared[got]
            # the search (a piece may hand on deeper levels too, for the same item), its count added to its item's
            fetch_add(shared, e - _S_HANDERS, 1)
            st[0] = check
            st[1] = 0
            st[2] = orig
            r = _run_item(i, rows, upd, T, urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx, k, buf, cnt, pos, M,
                          no_rows, at, listing, -1, N, qcol, leaf, tail, mkc, st)
            unmark(mkc, upd, rows[i, 0], urows, uidx)
            fetch_add(counts, orig, r & _LOW31)       # (an item's pieces may sum past int64: exact_counts)
            if r > _LOW31:
                fetch_add(counts, n + orig, r >> 31)
            if st[1] == 0:
                _release(st)
            _done(shared, orig)
        if idle:
            fetch_add(shared, e - _S_IDLE, -1)


_LOW31 = (1 << 31) - 1


def exact_counts(low, high, shift):
    """Per-item counts kept in two words, low + high * 2^shift (the splitting drive: 31, int64 words; the GPU: 64,
    uint64 words, high its carries): int64, or Python ints (an object array) where one passes int64.  A search's
    count stays below 2^62 (twin and clique counts past it are enumerated), but an item's pieces may sum past it."""
    top = int(low.max(initial=0))
    if not high.any():
        if top < (1 << 63):
            return low.astype(np.int64)
    elif shift < 62 and int(high.max()) < (1 << (62 - shift)) and top < (1 << 62):
        return low.astype(np.int64) + (high.astype(np.int64) << shift)
    return np.array([(int(h) << shift) + int(x) for x, h in zip(low, high)], dtype=object)


def _count_split(items, base, counts, leafs, marks, S, bar=None):
    """The parallel counting drive with heavy items handed on (SPLIT_EAGER's notes), into ``counts``; ``bar``: a
    progress bar advanced by the items done (their pieces too), read every 0.1 s by a thread of its own while the
    drive runs without the GIL.  Returns None, or the counts as Python ints where one passes int64
    (:func:`exact_counts`)."""
    threads = nb.get_num_threads()
    n = items.shape[0]
    R = 16 * threads + 16 if SPLIT_EAGER == 0 else 4096     # (eager: every item hands on, the tests' slots last)
    shared = np.zeros(4 * threads + n + _RANGE * R + _S_R, np.int64)
    shared[4 * threads:4 * threads + n] = 1
    shared[-_S_R] = R
    shared[-_S_N] = n
    shared[-_S_FLAG] = SPLIT_EAGER > 0
    shared[-_S_IDLE] = 1 << 40 if SPLIT_EAGER > 1 else (0 if SPLIT_DEEP else -(1 << 40))
    parts = np.zeros(2 * n, np.int64)
    args = (items, *base, parts, *leafs, threads, marks, shared, max(1, int(config.dynamic_split_check)))
    if bar is None:
        _drive_split(*args)
    else:
        _with_bar(_drive_split, args, bar, shared, n)
    nr = int(min(shared[-_S_RANGES], R))
    for L in shared[-_S_R - _RANGE * R:][9:_RANGE * nr:_RANGE].tolist():
        S.split_levels[L] = S.split_levels.get(L, 0) + 1
    got = exact_counts(parts[:n], parts[n:], 31)
    if got.dtype == object:
        return got
    counts[:] = got
    return None


def _with_bar(drive, args, bar, shared, n):
    """Run ``drive(*args)`` (a numba call without the GIL) while a thread moves ``bar`` to the items done."""
    stop = threading.Event()

    def follow(shown=0):
        while not stop.wait(0.1):
            done = int(shared[-_S_DONE])
            bar.update(done - shown)
            shown = done
        bar.update(n - shown)

    t = threading.Thread(target=follow, daemon=True)
    t.start()
    try:
        drive(*args)
    finally:
        stop.set()
        t.join()


@nb.njit(cache=True, _nrt=False)
def count_serial(items, upd, T, urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx, k, buf, cnt, pos, M, counts,
                 no_rows, N, qcol, leaf, tail, mk, steps):
    """The serial count of ``items`` into ``counts`` with the caller's level buffers (``buf`` (k, >= every row
    length), ``cnt``, ``pos``, ``M``: k each): the lane's per-update path (dynamic/micro.py) allocates them once a
    batch, not once a search.  ``leaf``: every arc is kept but the update's own (the per-update path), so F_LEAF
    levels are counted from the label counts ``N`` (column ``qcol[u]`` of query vertex u's label, -1: unlabelled;
    :func:`_leaf`) where the parent's row starts before ``tail``.  ``steps[0]``: the search steps it may take
    (STEPS_OFF: no limit).  Returns whether every item ran (False: the budget ran out, the counts are not whole)."""
    listing = el_on and not el_on      # runtime False (a literal would compile a slower specialisation)
    at = np.int64(0)    # int64 as the drive's: a literal 0 was a second build of _run_item and _run_item_reuse
    done = True
    for it in range(items.shape[0]):
        counts[it] = _run_item(it, items, upd, T, urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx, k, buf, cnt,
                               pos, M, no_rows, at, listing, -1, N, qcol, leaf, tail, mk, steps)
        unmark(mk, upd, items[it, 0], urows, uidx)
        if counts[it] < 0:
            done = False
            break
    return done


@nb.njit(cache=True)
def work_estimate(items, live, n, k):
    """Predicted search work: the level-2 scan of every item times the average row length (``live`` arcs over
    ``n`` vertices) once per deeper level (at most twice): a dense 6-vertex query on human (386 items, 2% batch)
    searches 40 ms on one core, though its level-2 scans sum to 19K positions.  Compared with
    ``config.parallel_min`` by the general path and by the small-batch lane."""
    m = items.shape[0]
    if m == 0:
        return 0.0
    g = max(live / max(n, 1), 1.0) ** min(max(k - 3, 0), 2)
    s = 0.0
    for t in range(m):
        s += items[t, 4] - items[t, 3]
    return (s + m) * g


def _work(items, S, k) -> float:
    return work_estimate(items, S.live, S.n, k)


_NO_N = np.zeros((1, 1), np.int32)     # no label counts known: no leaf counting
_NO_QCOL = np.zeros(1, np.int64)


def _drive(items, work, cand, tail, S, plan, base, counts, offsets, out, listing, bar=None):
    """The search of ``items`` (``base``: :func:`_args`) into ``counts`` (and with ``listing`` the rows into ``out``
    at ``offsets``); leaf levels counted (:func:`_leaf`) where ``cand`` carries the label counts of its bits and the
    parent's row starts before ``tail`` (the union's rows are written from there).  Below ``config.parallel_min``
    predicted work the serial drive, with a budget of that many steps: past it, the item it stopped at and the rest
    go to the parallel drive (STEPS_OFF's notes; straight there where the lane's search of this batch ran past it
    already: ``S.escape_next``).  The parallel drive counts with :func:`_count_split` (one queue, heavy items handed
    on: SPLIT_EAGER's notes) where there are two threads or more and ``config.dynamic_split_check`` is not 0, and
    lists with the fixed chunks; ``bar``: a progress bar over the items (moved while the splitting drive runs, else
    at the end).  Row marks: the store's (:meth:`~.store.ArcStore.row_marks`); in the parallel drive
    a block a thread where a plan has a rooted group (its memo) and the blocks take at most ``_THREAD_MARKS_MAX``
    bytes (16 bytes a vertex a thread: 256 MB is 16 threads on a graph of 1M vertices), else none."""
    if cand.N is None:
        leafs = (_NO_N, _NO_QCOL, items.shape[0] < 0, 0)
    else:
        leafs = (cand.N, cand.qcol, items.shape[0] >= 0, tail)
    size = S.rows.shape[0]
    full, start = counts, 0
    hint = S.escape_next
    S.escape_next = False
    if hint:
        S.escaped += 1
    elif work < config.parallel_min:
        steps = np.full(1, config.parallel_min, np.int64)
        drive_ser(items, *base, counts, offsets, out, listing, *leafs, 1, S.row_marks(size, mark_rows(plan)), steps)
        if steps[0] > 0:    # (one chunk: one set of level buffers)
            if bar is not None:
                bar.update(items.shape[0])
            return
        a = int(np.flatnonzero(counts < 0)[0])      # the item the budget ran out at (-1): it and the rest in parallel
        counts[a:] = 0
        S.escaped += 1
        if bar is not None:
            bar.update(a)
        items, counts, offsets = items[a:], counts[a:], offsets[a:] if listing else offsets
        start = a
    threads = nb.get_num_threads()
    if plan.rooted and threads * _THREAD_ROWS * (size + 2) * 4 <= _THREAD_MARKS_MAX:
        marks = S.thread_marks(threads, size, _THREAD_ROWS)
    else:
        marks = _NO_MARKS
    if listing or not splitting():
        drive_par(items, *base, counts, offsets, out, listing, *leafs, _chunks(items.shape[0]), marks,
                  np.full(1, STEPS_OFF, np.int64))
        if bar is not None:
            bar.update(items.shape[0])
    else:
        big = _count_split(items, base, counts, leafs, marks, S, bar)
        if big is not None:     # an item past int64: the counts as Python ints
            whole = full.astype(object)
            whole[start:] = big
            return whole
    return None


def splitting() -> bool:
    """Whether the parallel counting drive is the splitting one (SPLIT_EAGER's notes): two threads or more and
    ``config.dynamic_split_check`` not 0.  It moves a progress bar while it runs."""
    return nb.get_num_threads() >= 2 and config.dynamic_split_check > 0


def _args(upd, plan, S, cand):
    """The search's arguments after the items on the opened store ``S`` (rows over its arc buffer;
    ``S.maxdeg`` bounds every row: the per-level candidate buffers)."""
    return (upd, plan.packed, S.rows, S.idx, S.st, S.od, S.el, S.labeled, cand.ct, cand.ptr, cand.idx,
            plan.k, S.maxdeg)


_NO_OFFSETS = np.zeros(1, np.int64)     # the count pass writes no rows
_NO_ROWS = np.zeros((1, 1), np.int64)


def _chunks(nitems: int) -> int:
    return max(1, min(nitems, nb.get_num_threads() * 16))


def count_items(items, upd, plan, S, op, cand, bar=None) -> np.ndarray:
    """Matches found by each work item (int64 per item; Python ints where one passes int64) on the batch ``op``
    opened on store ``S``; ``bar``: a progress bar over the items (:func:`_drive`)."""
    counts = np.zeros(items.shape[0], dtype=np.int64)
    if items.shape[0]:
        big = _drive(items, _work(items, S, plan.k), cand, op.lo, S, plan, _args(upd, plan, S, cand), counts,
                     _NO_OFFSETS, _NO_ROWS, False, bar)
        if big is not None:
            return big
    return counts


def list_items(items, upd, plan, S, op, cand, counts) -> np.ndarray:
    """The matches (rows: data vertex of each query vertex), each item's at its prefix-sum offset."""
    offsets = np.zeros(items.shape[0], dtype=np.int64)
    if items.shape[0] > 1:
        np.cumsum(counts[:-1], out=offsets[1:])
    total = int(counts.sum())
    out = np.empty((total, plan.k), dtype=np.int64)
    if total:
        again = np.zeros(items.shape[0], dtype=np.int64)
        _drive(items, _work(items, S, plan.k), cand, op.lo, S, plan, _args(upd, plan, S, cand), again, offsets,
               out, True)
    return out


# the search kernels compile in the plan-field numbers of query.py and sorted_ops' searches: a cached build is
# dropped when those files change (primitives.jit.flush_when_changed)
from . import query as _query_module  # noqa: E402
from ..primitives import sorted_ops as _sorted_ops_module  # noqa: E402

flush_when_changed(globals(), _query_module, _sorted_ops_module)
