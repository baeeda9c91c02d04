"""The whole-graph mode's updates no query can use: committed as row edits, never searched.

``DynamicGraph(keep_graph=True)`` (the default) keeps every edge, so every update must reach the graph.  But an
update between two vertices whose labels no query edge joins (the query views' relevance, :mod:`.views`; for an
induced query: no two distinct query vertices) is in no match and on no checked non-edge: it changes rows and
nothing a search reads otherwise.  (Until session 30 it changed degrees, label counts, candidate bits and lists
too; the tables now count relevant edges only, :class:`.filter.NLFState`.)  Until session 19 every update of
a whole-graph batch went through the union, the tables of the union and the commit, which cost the default mode
10-40x the views' time on yeast, HPRD and human (0.1% streams; 1 us an update on human).

The small-batch lane (:mod:`.lane`) now splits a whole-graph batch in two, as the views split it:

1. :func:`aside_split`, before anything changes: the batch's irrelevant pairs, their net effect on the graph
   before the batch (:func:`.updates.net_layout`: the ignored-update counts are those of the general path, and
   ``strict=True`` sends a batch with any to the general path, which raises) and the arcs their rows will need;
2. the relevant updates through the per-update path or the batch path, exactly as with query views but on the
   whole graph, with that room kept back in the arc buffer;
3. only when that part is done (a batch that falls back has changed nothing), :func:`aside_commit`: one merged row
   per touched vertex at the buffer's tail, compacted; no table changes.

Why the counts are those of the whole batch: a pair's relevance is a function of its labels, so a repeated pair,
or one both inserted and deleted, falls in one part, and the two parts' net effects are disjoint.  No match uses
an irrelevant edge, so the matches the relevant part finds do not depend on whether the irrelevant edits come
before or after it; and the candidate tables it is searched with count every relevant edge of the union, so
they remain necessary conditions.  The graph, tables and lists after the batch are those of applying all of it
(tested against the general path and tables rebuilt from scratch on the relevant edges).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .store import compact_rows, patch_ser, prepare_union
from .updates import net_layout, pair_kept
from ..primitives.jit import flush_when_changed
from ..primitives.sorted_ops import adjacent

__all__ = ["aside_split", "aside_commit", "irrelevant_counts"]


@nb.njit(cache=True)
def _irrelevant(pairs, t0, t1, code, n, table, out):
    """The pairs ``pairs[t0:t1]`` no query can use into ``out``: (how many, any id out of range)."""
    a = 0
    bad = False
    for t in range(t0, t1):
        r = pair_kept(pairs[t, 0], pairs[t, 1], code, n, table)
        bad |= r < 0
        if r == 0:
            out[a, 0] = pairs[t, 0]
            out[a, 1] = pairs[t, 1]
            a += 1
    return a, bad


@nb.njit(cache=True)
def aside_split(ins, i0, i1, dele, d0, d1, code, n, table, rows, idx, mark):
    """Step 1 (module notes) for the batch ``ins[i0:i1]``, ``dele[d0:d1]``.  Returns (ok, inserts, deletes, counts,
    touched, tptr, adst, aod, icnt, need): the net effect and layout of its irrelevant pairs
    (:func:`.updates.net_layout`, on the graph before the batch), and ``need``, the arcs their rows take at the
    tail, allowing for the relevant inserts that lengthen those rows first.  ``ok`` False: an id out of range (the
    general path validates the batch; nothing computed)."""
    ki = np.empty((i1 - i0, 2), np.int64)
    kd = np.empty((d1 - d0, 2), np.int64)
    a, bad_i = _irrelevant(ins, i0, i1, code, n, table, ki)
    d, bad_d = _irrelevant(dele, d0, d1, code, n, table, kd)
    ok = not (bad_i or bad_d)
    if not ok:
        a = 0
        d = 0
    iout, ifirst, dout, cnt, ex, touched, tptr, adst, aod, icnt = net_layout(ki[:a], kd[:d], n, n, rows, idx, mark)
    need = 2 * (i1 - i0)
    for t in range(touched.shape[0]):
        v = touched[t]
        need += rows[v, 1] - rows[v, 0] + icnt[t]
    return ok, iout, dout, cnt, touched, tptr, adst, aod, icnt, need


@nb.njit(cache=True)
def _merge_rows(t1, o1, t2, o2):
    """The sorted union of the touched vertices ``t1`` and ``t2`` (each sorted) with their rows before the batch:
    ``o1``'s where a vertex is in both (the first part touched it first)."""
    m1 = t1.shape[0]
    m2 = t2.shape[0]
    tt = np.empty(m1 + m2, np.int64)
    oo = np.empty((m1 + m2, 2), np.int64)
    i = 0
    j = 0
    c = 0
    while i < m1 or j < m2:
        if j >= m2 or (i < m1 and t1[i] <= t2[j]):
            if j < m2 and t2[j] == t1[i]:
                j += 1
            tt[c] = t1[i]
            oo[c, 0] = o1[i, 0]
            oo[c, 1] = o1[i, 1]
            i += 1
        else:
            tt[c] = t2[j]
            oo[c, 0] = o2[j, 0]
            oo[c, 1] = o2[j, 1]
            j += 1
        c += 1
    return tt[:c], oo[:c]


@nb.njit(cache=True)
def aside_commit(iout, dout, touched, tptr, adst, aod, icnt, n, rows, idx, st, od, el, used, maxdeg, r_touched, r_old):
    """Step 3 (module notes): the irrelevant net updates (:func:`aside_split`'s) written to the graph's rows (no
    table counts them: :class:`.filter.NLFState`).  ``r_touched`` / ``r_old``: the rows the relevant part touched
    (sorted) and their rows before the batch.  Returns (used, maxdeg, touched, rows before the batch): the last two
    the batch's, for the commit log of :class:`.store.ArcStore`."""
    off = idx.shape[0] < 0             # no edge labels in the lane (a runtime flag, see lane.LANE_ITEMS)
    nt = touched.shape[0]
    offs, longest, upd, ustate, uel = prepare_union(rows, n, touched, icnt, iout, dout, el, off)
    old_rows = np.empty((nt, 2), np.int64)
    patch_ser(rows, idx, st, od, el, off, n, touched, offs, used, tptr, adst, aod, uel, old_rows)
    compact_rows(rows, idx, st, od, el, off, touched)
    used += offs[nt]
    if longest > maxdeg:
        maxdeg = longest
    mt, mo = _merge_rows(r_touched, r_old, touched, old_rows)
    return used, maxdeg, mt, mo


@nb.njit(cache=True)
def irrelevant_counts(ins, dele, code, n, table, indptr, indices):
    """The net-effect counts of the updates of a batch no query can use (``pair_kept`` 0), on the graph before it
    (CSR ``indptr`` / ``indices``, sorted rows), as :func:`.updates.net_layout` counts them: (repeats, pairs both
    inserted and deleted, inserts of existing edges, deletes of missing ones, net inserts, net deletes).  For
    :func:`la_gpm.match_delta`, whose search drops those updates (the graph is not changed, so they need no work but
    these counts): a sort of their (pair, side) keys and one binary search per distinct pair."""
    keys = np.empty(ins.shape[0] + dele.shape[0], np.int64)
    m = 0
    for s in range(2):
        pairs = ins if s == 0 else dele
        out = np.empty((pairs.shape[0], 2), np.int64)
        a, _ = _irrelevant(pairs, 0, pairs.shape[0], code, n, table, out)
        for t in range(a):
            keys[m] = ((min(out[t, 0], out[t, 1]) * n + max(out[t, 0], out[t, 1])) << 1) | s
            m += 1
    keys = np.sort(keys[:m])
    out = np.zeros(6, np.int64)
    t = 0
    while t < m:
        pair = keys[t] >> 1
        ci = 0
        cd = 0
        while t < m and (keys[t] >> 1) == pair:
            if keys[t] & 1:
                cd += 1
            else:
                ci += 1
            t += 1
        out[0] += max(ci - 1, 0) + max(cd - 1, 0)
        if ci > 0 and cd > 0:
            out[1] += 1
        else:
            there = adjacent(indptr, indices, pair // n, pair % n)
            if ci > 0:
                if there:
                    out[2] += 1
                else:
                    out[4] += 1
            elif there:
                out[5] += 1
            else:
                out[3] += 1
    return out


# the kernels here compile in those of three modules: their cached builds go when one of them changes
from . import store as _store, updates as _updates  # noqa: E402
from ..primitives import sorted_ops as _sorted_ops  # noqa: E402

flush_when_changed(globals(), _store, _updates, _sorted_ops)
