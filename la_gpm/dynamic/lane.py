"""The small-batch lane: one batch of one query on the CPU in **one** numba call.

A small batch (the 0.1% batches of the GAMMA / RapidFlow workloads: 0-100 updates) costs little search;
what it paid was the glue between the passes: about fifteen numba calls (each checks the types of up to
twenty arguments), the Python objects that carry a batch from one pass to the next, and the stage
timers, 35-60 us per call against 2-20 us of work.  This lane runs the same passes, the same kernels,
inside one compiled function:

relevance filter (query views) -> net effect and layout (:func:`.updates.net_layout`) -> the union's
rows at the store's tail (:func:`.store.prepare_union`, the serial patch) -> candidate table rows and lists
(:mod:`.filter`) -> work items and the search (:mod:`.cpu`: serial, or the parallel drive when the items
predict enough work) -> commit (:class:`la_gpm.DynamicGraph`) or revert (:func:`la_gpm.match_delta`).

It takes the batches it can finish without Python: CPU backend, one query, no listing or progress bar,
a graph without an id map or edge labels, integer (m, 2) updates naming existing vertices, at most
``config.dynamic_lane_max`` of them, and room left in the store's arc buffer.  Anything else (new vertices,
bad input, ``strict=True`` with an update to drop, a full buffer) returns :data:`FALLBACK` *before
anything is changed*, and the caller takes the general path, which grows, validates and raises as
always.  Counts, stats keys and the state after a batch are those of the general path (tested on
random streams against it); the stage times are one ``seconds`` there (``stats["lane"] = True``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .cpu import all_items, drive_ser, mark_rows, side_totals, tri_stale, work_estimate
from .filter import add_pairs, lazy_patch, patch_lists, swap_rows, usable_lists
from .micro import (I_STATUS, I_POS, I_NEG, I_BIG, I_DROP_I, I_DROP_D, I_LOOPS, I_DUP, I_BOTH, I_EXIST, I_MISSING,
                    I_INS, I_DEL, I_NPOS, I_NITEMS, I_USED, I_MAXDEG, I_LISTS, I_FULL, I_SEQ, I_STALE, N_INFO, I_ESCAPE,
                    M_DONE, M_FALLBACK, NOT_MICRO, first_kept, micro_run, start_pairs_of, too_many)
from .store import compact_rows, fresh_buffer, patch_ser, prepare_union
from .updates import net_layout, pair_kept, relevant_rows
from ..config import config
from ..primitives.jit import flush_when_changed

__all__ = ["run_lane", "stream_args", "bound_run", "rebind", "pack_ops", "one_batch", "lane_columns", "LaneRun",
           "FALLBACK", "DONE", "SHORTCUT", "N_INFO", "I_SEQ", "I_ESCAPE"]

FALLBACK, DONE, SHORTCUT = 0, 1, 2
# More work items than this go back to the general path.  (Until session 14 this was 64: the search compiled into
# the lane ran 1.3-1.6x slower than the same search called on its own.  The cause was the literal False passed for
# its two flags: numba compiled a specialisation on Literal[bool] that ran slower.  They are runtime values now:
# human tree6 at 0.1%, 100 batches, 1,235 items: 750 -> 485 us a batch; the general path 540-570 us.)
LANE_ITEMS = 4096
# info[...] slots written by the lane: I_STATUS ... I_SEQ, defined with the per-update path (.micro)

_E1 = np.zeros(0, np.int64)
_E2 = np.zeros((0, 2), np.int64)
_NO_OFF = np.zeros(1, np.int64)      # the count pass writes no rows
_NO_ROWS = np.zeros((1, 1), np.int64)


@nb.njit(cache=True)
def _nothing():
    return np.zeros(0, np.int64), np.zeros((0, 2), np.int64), np.zeros(0, np.int64), np.zeros(0, np.int32), \
        np.zeros((0, 2), np.int64), np.zeros(0, np.int64)


@nb.njit(cache=True)
def _take(pairs, keep):
    out = np.empty((keep.shape[0], 2), np.int64)
    for t in range(keep.shape[0]):
        out[t, 0] = pairs[keep[t], 0]
        out[t, 1] = pairs[keep[t], 1]
    return out


@nb.njit(cache=True)
def _start_pairs(ct, upd, pairs):
    """Work items the updates ``upd`` would give before item splitting (start pairs whose two query vertices'
    bits both endpoints have in ``ct``)."""
    n = 0
    for j in range(upd.shape[0]):
        n += start_pairs_of(ct[upd[j, 0]], ct[upd[j, 1]], pairs)
    return n


@nb.njit(cache=True)
def _one(ins, dele, info, strict, commit,
         n, rows, idx, st, od, el, no_off, no_rows, used, cap, live, maxdeg, mark, rmk,
         use_rel, code, table,
         deg, N, vcol, on, vlab, ct, cptr, cidx, qlabeled, qlab, qdeg, qdem, qcol,
         T, pairs, pair_edge, pair_el, pair_cond, k, split, parallel_min, lazy, stale):
    """One batch (see the module notes); ``info`` is its row of the run's info table; ``lazy``, ``stale``: the
    run's lists may go stale (:func:`.filter.lazy_patch`; the mask after the batch goes to ``info[I_STALE]``)."""
    info[I_STATUS] = FALLBACK
    # query views: the updates no query can use go first
    if use_rel:
        ri, bi = relevant_rows(ins, code, n, table)
        rd, bd = relevant_rows(dele, code, n, table)
        if bi or bd:
            return _nothing()
        info[I_DROP_I] = ins.shape[0] - ri.shape[0]
        info[I_DROP_D] = dele.shape[0] - rd.shape[0]
        if info[I_DROP_I]:
            ins = _take(ins, ri)
        if info[I_DROP_D]:
            dele = _take(dele, rd)
        if ins.shape[0] == 0 and dele.shape[0] == 0:
            info[I_STATUS] = SHORTCUT
            return _nothing()
    iout, ifirst, dout, cnt, ex, touched, tptr, adst, aod, icnt = net_layout(ins, dele, n, n, rows, idx, mark)
    if cnt[6]:                              # a new vertex or a bad id: the general path
        return _nothing()
    if strict and (cnt[0] or cnt[1] or cnt[2] or cnt[3] or cnt[4] or cnt[5]):
        return _nothing()   # the general path raises the named error
    # the start pairs the updates can take on the tables before the batch (those of the union only add bits):
    # a batch with more items than the lane is for goes back now, before anything is opened
    if _start_pairs(ct, iout, pairs) + _start_pairs(ct, dout, pairs) > LANE_ITEMS:
        return _nothing()
    # unlabelled edges; the flags the kernels take are runtime values, not literals (see LANE_ITEMS)
    off = idx.shape[0] < 0
    offs, longest, upd, ustate, uel = prepare_union(rows, n, touched, icnt, iout, dout, el, off)
    need = offs[touched.shape[0]]
    if used + need > cap:                   # the buffer must grow: the general path (or the run compacts it)
        info[I_FULL] = need
        return _nothing()
    info[I_LOOPS] = cnt[0] + cnt[1]
    info[I_DUP] = cnt[2]
    info[I_BOTH] = cnt[3]
    info[I_EXIST] = cnt[4]
    info[I_MISSING] = cnt[5]
    info[I_INS] = iout.shape[0]
    info[I_DEL] = dout.shape[0]
    # open: the union's rows at the tail, the tables of the union
    old_rows = np.empty((touched.shape[0], 2), np.int64)
    patch_ser(rows, idx, st, od, el, off, n, touched, offs, used, tptr, adst, aod, uel, old_rows)
    if longest > maxdeg:
        maxdeg = longest
    add_pairs(deg, N, vcol, iout, 1, on)
    saved = np.empty(touched.shape[0], np.uint32)
    opened = swap_rows(touched, N, deg, vlab, qlabeled, qlab, qdeg, qdem, ct, saved)
    ubits = np.empty(touched.shape[0], np.uint32)      # the union's bits
    for t in range(touched.shape[0]):
        ubits[t] = ct[touched[t]]
    ustale = stale
    if opened and lazy:
        uptr, uidx, ustale = lazy_patch(cptr, cidx, touched, saved, ubits, k, maxdeg, stale)
    elif opened:
        uptr, uidx = patch_lists(cptr, cidx, touched, ubits, k)
    else:
        uptr, uidx = cptr, cidx
    if lazy and ustale:      # a stale list not longer than every row any more: the union's lists from its bits
        uptr, uidx, ustale = usable_lists(uptr, uidx, ustale, maxdeg, ct[:n], k)
    # the search (serial: work enough for the parallel drive goes back to the general path, below)
    items, npos = all_items(upd, ustate, uel, ct, uptr, rows, T, pairs, pair_edge, pair_el, pair_cond, k, split,
                            off)
    heavy = items.shape[0] > LANE_ITEMS or work_estimate(items, live, n, k) >= parallel_min
    counts = np.zeros(items.shape[0], np.int64)
    if items.shape[0] and not heavy:
        # leaf levels counted where their parent's row is not one of the union's (those start at ``used``); past its
        # budget of steps (cpu.STEPS_OFF's notes) the search stops and the batch is put back, as a predicted heavy one
        steps = np.full(1, parallel_min, np.int64)
        drive_ser(items, upd, T, rows, idx, st, od, el, off, ct, uptr, uidx, k, maxdeg, counts, no_off, no_rows,
                  off, N, qcol, not off, used, np.int64(1), rmk, steps)    # int64 as cpu._drive passes it: one build
        heavy = steps[0] <= 0
        info[I_ESCAPE] = heavy
    if heavy or not commit:   # revert: the graph and the tables before the batch
        add_pairs(deg, N, vcol, iout, -1, on)
        for t in range(touched.shape[0]):
            ct[touched[t]] = saved[t]
            rows[touched[t], 0] = old_rows[t, 0]
            rows[touched[t], 1] = old_rows[t, 1]
        if heavy:             # the parallel search is not called from here (it would keep this from the disk cache)
            return _nothing()
    pos, neg, big = side_totals(counts, items)
    info[I_POS] = pos
    info[I_NEG] = neg
    info[I_BIG] = big
    info[I_NPOS] = npos
    info[I_NITEMS] = items.shape[0]
    info[I_MAXDEG] = maxdeg
    # close
    lptr = np.zeros(0, np.int64)
    lidx = np.zeros(0, np.int32)
    if commit:
        add_pairs(deg, N, vcol, dout, -1, on)
        after = np.empty(touched.shape[0], np.uint32)
        swap_rows(touched, N, deg, vlab, qlabeled, qlab, qdeg, qdem, ct, after)
        changed = False
        as_union = True
        for t in range(touched.shape[0]):
            after[t] = ct[touched[t]]
            if after[t] != saved[t]:
                changed = True
            if after[t] != ubits[t]:
                as_union = False
        nstale = stale
        if changed:     # the lists after the batch: the union's where the bits are its (no delete took one away)
            if as_union:
                lptr, lidx = uptr, uidx
                nstale = ustale
            elif lazy:
                lptr, lidx, nstale = lazy_patch(cptr, cidx, touched, saved, after, k, maxdeg, stale)
            else:
                lptr, lidx = patch_lists(cptr, cidx, touched, after, k)
        info[I_STALE] = nstale
        info[I_LISTS] = changed
        if touched.shape[0]:
            compact_rows(rows, idx, st, od, el, off, touched)
        info[I_USED] = used + need
    else:
        info[I_USED] = used
    info[I_STATUS] = DONE
    if big:
        return touched, old_rows, lptr, lidx, items, counts
    return touched, old_rows, lptr, lidx, np.zeros((0, 2), np.int64), np.zeros(0, np.int64)


@nb.njit(cache=True)
def _lane(ins_all, ins_off, del_all, del_off, b0, b1, skip, infos, strict, commit, compact,
          n, rows, idx, st, od, el, no_off, no_rows, used, cap, live, maxdeg, mark, rmk,
          use_rel, code, table,
          deg, N, vcol, on, vlab, ct, cptr, cidx, qlabeled, qlab, qdeg, qdem, qcol,
          T, pairs, pair_edge, pair_el, pair_cond, k, split, parallel_min, seq_ok, per_update, lazy, stale0):
    """Batches b0, b0 + 1, ... < b1 of a run (batch b: ``ins_all[ins_off[b]:ins_off[b + 1]]``, the same for
    deletes), each committed before the next (``commit``; a revert makes sense for one batch only).  Stops at
    the first batch marked in ``skip`` or that falls back (its row of ``infos`` says FALLBACK: nothing of it
    was changed), and after a batch whose counts need Python ints (``I_BIG``: its items and counts are
    returned).  With ``compact`` a batch that finds the arc buffer full compacts the live rows into a fresh
    one (:func:`.store.fresh_buffer`) and runs; without, it falls back.  Returns ``(next batch, used, live,
    maxdeg, candidate lists (ptr, idx), lists changed, touched, old_rows, items, counts, (idx, st, od),
    compacted)`` -- touched .. counts of the last batch run.  A committed batch with at most ``per_update``
    relevant updates goes through :func:`.micro.micro_run` (one update at a time, a run of such batches a call;
    ``seq_ok``: the query is not induced, else only batches of one net update), any other through :func:`_one`.

    ``use_rel``: the relevance table ``code`` / ``table`` splits each batch: the updates no query can use are
    dropped (query views; the whole-graph mode logs them aside, :mod:`.aside`).  ``stale0``: the lists given are
    stale already (a bit per query vertex: a stream run's, kept with its arguments, :func:`rebind`)."""
    changed = False
    compacted = False
    stale = np.uint64(stale0)   # uint64: numba's bit operations on a uint32 give uint64 (see _stream)
    touched = np.zeros(0, np.int64)
    old_rows = np.zeros((0, 2), np.int64)
    items = np.zeros((0, 2), np.int64)
    counts = np.zeros(0, np.int64)
    b = b0
    micro = commit and per_update > 0
    ms = M_DONE
    while b < b1:
        info = infos[b]
        if skip[b]:
            info[I_STATUS] = FALLBACK
            break
        if micro and too_many(ins_all, ins_off[b], ins_off[b + 1], del_all, del_off[b], del_off[b + 1], use_rel, code,
                              n, table, T, per_update):
            ms = NOT_MICRO        # more relevant updates than the per-update path takes: the batch path, no call
        elif micro:    # batches with a few relevant updates: one update at a time (.micro), as many as it takes
            ms, b, used, live, maxdeg, cptr, cidx, ch, stale, touched, old_rows, items, counts = micro_run(
                ins_all, ins_off, del_all, del_off, b, b1, skip, infos, strict, n, rows, idx, st, od, el, used, cap,
                maxdeg, live, use_rel, code, table, deg, N, vcol, on, vlab, ct, cptr, cidx, qlabeled, qlab,
                qdeg, qdem, qcol, T, pairs, pair_edge, pair_el, pair_cond, k, split, parallel_min, seq_ok, no_rows,
                per_update, lazy, stale, rmk)
            changed = changed or ch
            if ms == M_DONE:
                if b > b0 and infos[b - 1, I_BIG]:
                    break
                continue          # the end (b == b1)
            info = infos[b]
            if skip[b]:
                info[I_STATUS] = FALLBACK
                break
        if not micro or ms != M_FALLBACK:
            # the batch path (NOT_MICRO: more relevant updates than the per-update path takes, or none of it)
            if use_rel and first_kept(ins_all, ins_off[b], ins_off[b + 1], del_all, del_off[b], del_off[b + 1],
                                      code, n, table) < 0:
                # no update a query can use (most small batches on a many-label graph): no allocation
                info[I_DROP_I] = ins_off[b + 1] - ins_off[b]
                info[I_DROP_D] = del_off[b + 1] - del_off[b]
                info[I_STATUS] = SHORTCUT
                b += 1
                continue
            ins = ins_all[ins_off[b]:ins_off[b + 1]]
            dele = del_all[del_off[b]:del_off[b + 1]]
            touched, old_rows, lptr, lidx, items, counts = _one(
                ins, dele, info, strict, commit, n, rows, idx, st, od, el, no_off, no_rows, used, cap,
                live, maxdeg, mark, rmk, use_rel, code, table, deg, N, vcol, on, vlab, ct, cptr, cidx, qlabeled,
                qlab, qdeg, qdem, qcol, T, pairs, pair_edge, pair_el, pair_cond, k, split, parallel_min, lazy,
                stale)
            if info[I_STATUS] == DONE:
                tri_stale(rmk)     # the batch path changed the graph: the triangle memo's counts are stale
        if info[I_STATUS] == FALLBACK:       # either path: nothing of batch b changed
            if compact and info[I_FULL]:
                idx, st, od, used = fresh_buffer(rows, idx, st, od, n, info[I_FULL])
                cap = idx.shape[0]
                live = used
                compacted = True
                info[I_FULL] = 0
                continue
            break
        b += 1
        if info[I_STATUS] == DONE:
            maxdeg = info[I_MAXDEG]
            if commit:
                used = info[I_USED]
                live += 2 * (info[I_INS] - info[I_DEL])
                stale = np.uint64(info[I_STALE])
                if info[I_LISTS]:
                    cptr, cidx = lptr, lidx
                    changed = True
        if info[I_BIG]:
            break
    return (b, used, live, maxdeg, cptr, cidx, changed, touched, old_rows, items, counts, (idx, st, od), compacted,
            stale)


@nb.njit(cache=True, _nrt=False)
def _fill_columns(v, b0, aut, out):
    """The int64 result columns of a run's batches (``v``: their info rows) into ``out`` (9, nb): batch, query,
    positive, negative (times ``aut``), inserted, deleted, ignored, irrelevant, items.  Returns False where a count
    times ``aut`` would not fit in int64 (those two columns are then not the counts)."""
    lim = (2**63 - 1) // aut
    ok = True
    for t in range(v.shape[0]):
        ok = ok & (v[t, I_POS] <= lim) & (v[t, I_NEG] <= lim)
        out[0, t] = b0 + t
        out[1, t] = 0
        out[2, t] = v[t, I_POS] * aut
        out[3, t] = v[t, I_NEG] * aut
        out[4, t] = v[t, I_INS]
        out[5, t] = v[t, I_DEL]
        out[6, t] = v[t, I_LOOPS] + v[t, I_DUP] + v[t, I_BOTH] + v[t, I_EXIST] + v[t, I_MISSING]
        out[7, t] = v[t, I_DROP_I] + v[t, I_DROP_D]
        out[8, t] = v[t, I_NITEMS]
    return ok


def lane_columns(v, b0, aut):
    """:func:`_fill_columns` as a (9, nb) int64 block (rows in :data:`.stream.COLUMNS` order), and whether the
    positive and negative rows are right as int64: False where they need Python ints (the last batch's ``I_BIG``,
    or a count times ``aut`` past int64), which the caller then puts in."""
    nb_ = v.shape[0]
    out = np.empty((9, nb_), np.int64)
    fits = _fill_columns(v, b0, aut, out) and not v[nb_ - 1, I_BIG]
    return out, fits


@nb.njit(cache=True)
def _pack_ops(ops, size, nbat, lane_max, drop, code, n, table):
    """The lane's packing of signed ops cut into batches of ``size``: (inserts (a, 2), their batch offsets,
    deletes (b, 2), offsets, skip, bad, dropped): a batch is skipped (left to the general path) when its inserts or
    its deletes carry more than one edge label, or it has more than ``lane_max`` updates; ``bad`` is the first row
    whose sign is not +1 or -1 (nothing packed), else -1.  With ``drop`` (query views) the pairs the relevance
    table ``code`` / ``table`` drops (:func:`.updates.pair_kept` 0) are not packed, only counted: ``dropped[b]`` =
    (inserts, deletes) of batch b left out; ids out of range are packed (the lane hands such a batch back).  The
    loop picks no array per row (numba would count a reference on each pick)."""
    m = ops.shape[0]
    labeled = ops.shape[1] > 3
    ni = 0
    nbad = 0
    for t in range(m):         # branch-free: the count of inserts and of bad signs
        s = ops[t, 0]
        ni += s == 1
        nbad += (s != 1) & (s != -1)
    bad = -1
    if nbad:
        for t in range(m):
            if ops[t, 0] != 1 and ops[t, 0] != -1:
                bad = t
                break
        ni = 0
        m = 0
        nbat = 0
    ins = np.empty((ni, 2), np.int64)
    dele = np.empty((m - ni, 2), np.int64)
    ioff = np.zeros(nbat + 1, np.int64)
    doff = np.zeros(nbat + 1, np.int64)
    skip = np.zeros(nbat, np.uint8)
    dropped = np.zeros((nbat, 2), np.int64)
    a = 0
    d = 0
    for b in range(nbat):
        t1 = min(m, (b + 1) * size)
        fi = 0               # the batch's first label of its inserts, of its deletes
        fd = 0
        si = False
        sd = False
        mixed = t1 - b * size > lane_max
        gi = 0               # pairs left out: counted without a branch on the sign (2:1 inserts, in random order)
        gd = 0
        for t in range(b * size, t1):
            s = ops[t, 0]
            x = ops[t, 1]
            y = ops[t, 2]
            isin = s == 1
            if drop and pair_kept(x, y, code, n, table) == 0:
                gi += isin
                gd += 1 - isin
                continue
            lab = ops[t, 3] if labeled else -1
            if isin:
                ins[a, 0] = x
                ins[a, 1] = y
                a += 1
                mixed |= si & (lab != fi)
                fi = lab if not si else fi
                si = True
            else:
                dele[d, 0] = x
                dele[d, 1] = y
                d += 1
                mixed |= sd & (lab != fd)
                fd = lab if not sd else fd
                sd = True
        dropped[b, 0] = gi
        dropped[b, 1] = gd
        ioff[b + 1] = a
        doff[b + 1] = d
        skip[b] = mixed
    return ins, ioff, dele, doff, skip, bad, dropped


def pack_ops(ops, size, nbat, lane_max):
    """:func:`_pack_ops` keeping every pair: (ins, ioff, dele, doff, skip, bad)."""
    return _pack_ops(ops, size, nbat, lane_max, False, _NO_CODE, 0, _NO_TABLE)[:6]



@nb.njit(cache=True)
def _stream(ops, size, nbat, lane_max, aut, strict, n, rows, idx, st, od, el, no_off, no_rows, used, cap, live, maxdeg,
            mark, rmk, use_rel, code, table, deg, N, vcol, on, vlab, ct, cptr, cidx, qlabeled, qlab, qdeg, qdem,
            qcol,
            T, pairs, pair_edge, pair_el, pair_cond, k, split, parallel_min, seq_ok, per_update, lazy, stale):
    """A whole stream of signed ops (:func:`pack_ops`'s input) through the lane in one call: packed, run from
    batch 0 (:func:`_lane`, committed, compacting), its result columns filled (:func:`_fill_columns`).  ``stale``:
    the lists ``cptr`` / ``cidx`` given are the stale lists a run before left (:func:`rebind`).  Returns
    (bad, next, used, live, maxdeg, stale, columns (9, next), whether the columns are right as int64, lists
    (ptr, idx) or None, the fresh buffer (idx, st, od) or None, and where the run did not finish the stream with
    int64 columns: the packing (ins, ioff, dele, doff, skip; None where the views' drops left pairs out of it), the
    info table, the last batch's items and counts; else None).  An array is returned only where the caller needs it: boxing one costs about a microsecond."""
    # the pairs no query can use are counted as they are packed, not packed and scanned again
    drop = use_rel
    ins, ioff, dele, doff, skip, bad, dropped = _pack_ops(ops, size, nbat, lane_max, drop, code, n, table)
    infos = np.zeros((nbat, N_INFO), np.int64)
    for b in range(nbat):
        infos[b, I_STATUS] = -1
    b = 0
    changed = False
    compacted = False
    rs = np.uint64(stale)     # the lists given are stale already (a run before this one left them so: rebind)
    items = np.zeros((0, 2), np.int64)
    counts = np.zeros(0, np.int64)
    buf = (idx, st, od)
    if bad < 0 and nbat:
        # _lane with the argument types run_lane gives it from Python, so that both share its one build (a cache
        # entry; its compile is 1-3 minutes): literals (0, True) or another integer type here were a build of its own
        go = bad < 0
        b, used, live, maxdeg, cptr, cidx, changed, _t, _o, items, counts, buf, compacted, rs = _lane(
            ins, ioff, dele, doff, np.int64(0), nbat, skip, infos, strict, go, go, n, rows, idx, st, od, el, no_off,
            no_rows, used, cap, live, maxdeg, mark, rmk, use_rel, code, table, deg, N, vcol, on, vlab, ct, cptr,
            cidx, qlabeled, qlab, qdeg, qdem, qcol, T, pairs, pair_edge, pair_el, pair_cond, k, split, parallel_min,
            seq_ok, per_update, lazy, stale)
    for t in range(b):      # every batch run wrote its own drops (of what was packed): the packing's join them
        infos[t, I_DROP_I] += dropped[t, 0]
        infos[t, I_DROP_D] += dropped[t, 1]
    cols = np.empty((9, b), np.int64)
    fits = _fill_columns(infos[:b], 0, aut, cols)
    if b:
        fits = fits and not infos[b - 1, I_BIG]
    done = bad < 0 and b == nbat and fits
    return (bad, b, used, live, maxdeg, int(rs), cols, fits,
            (cptr, cidx) if changed else None, buf if compacted else None,
            None if done or drop else (ins, ioff, dele, doff, skip), None if done else infos,
            None if done else items, None if done else counts)


# the slots of _stream's arguments by name (stream_args, bound_run, rebind)
_A = {name: i for i, name in enumerate(_stream.py_func.__code__.co_varnames[:_stream.py_func.__code__.co_argcount])}
(_OPS, _SIZE, _NBAT, _LANE_MAX, _STRICT, _USED, _LIVE, _MAXDEG, _IDX, _ST, _OD, _CAP, _CPTR, _CIDX, _STALE) = (
    _A[name] for name in ("ops", "size", "nbat", "lane_max", "strict", "used", "live", "maxdeg", "idx", "st", "od",
                          "cap", "cptr", "cidx", "stale"))


class LaneRun:
    """What one call of the lane did: ``next`` (the first batch not run: it fell back or was marked, or the end),
    ``infos`` (one row per batch), the store's scalars and the candidate lists after it, and the last batch's
    touched rows, old rows, items and counts."""
    __slots__ = ("next", "infos", "used", "live", "maxdeg", "lists", "touched", "old_rows", "items", "counts",
                 "buffer", "stale")

    def __init__(self, next_, infos, used, live, maxdeg, lists, touched, old_rows, items, counts, buffer, stale=0):
        self.next, self.infos, self.used, self.live, self.maxdeg = next_, infos, used, live, maxdeg
        self.lists, self.touched, self.old_rows, self.items, self.counts = lists, touched, old_rows, items, counts
        self.buffer = buffer     # (idx, st, od) of a fresh arc buffer the run compacted into, else None
        self.stale = stale       # lists left stale (a bit per query vertex; filter.lazy_patch): rebuild them


def run_lane(S, nlf, plan, ins_all, ins_off, del_all, del_off, *, strict, commit, relevance, split, parallel_min,
             b0=0, b1=None, skip=None, infos=None, compact=False):
    """Batches ``b0 .. b1 - 1`` through the lane (one batch: offsets ``[0, m]``), a :class:`LaneRun`.  Each
    batch's ``infos[b, I_STATUS]`` is FALLBACK (nothing changed: take the general path; the run stopped
    there), SHORTCUT (views: no relevant update; nothing changed) or DONE (store and tables moved to the
    batch's union and then committed / reverted).  The caller sets the store's scalars and lists from it.  A
    run that compacts (``compact``: a stream) may also leave long candidate lists stale (``LaneRun.stale``,
    :func:`.filter.lazy_patch`): the caller rebuilds them from the bits.  ``relevance``: the views' table; the
    updates it does not keep are dropped (the whole graph logs them aside: :mod:`.aside`)."""
    nbat = ins_off.shape[0] - 1
    b1 = nbat if b1 is None else b1
    if infos is None:
        infos = np.zeros((nbat, N_INFO), np.int64)
    if skip is None:
        skip = np.zeros(nbat, np.uint8)
    q = nlf.q[0]
    cand = nlf.cand[0]
    if relevance is not None:
        use_rel, code, table = True, relevance.code, relevance.table
    else:
        use_rel, code, table = False, _NO_CODE, _NO_TABLE
    b, used, live, maxdeg, cptr, cidx, changed, touched, old_rows, items, counts, buf, compacted, stale = _lane(
        ins_all, ins_off, del_all, del_off, b0, b1, skip, infos, strict, commit, compact,
        S.n, S.rows, S.idx, S.st, S.od, S.el, _NO_OFF, _NO_ROWS, S.used, S.idx.shape[0], S.live, S.maxdeg,
        S.scratch_mark(S.n), S.row_marks(S.rows.shape[0], mark_rows(plan)),
        use_rel, code, table,
        nlf.deg, nlf.N, nlf.vcol, nlf._on, nlf._vl(nlf.vlab), nlf._ct[0], cand.ptr, cand.idx, q.labeled, q.qlab,
        q.qdeg, q.qdem, q.qcol,
        plan.packed, plan.pairs, plan.pair_edge, plan.pair_el, plan.pair_cond, plan.k, split, parallel_min,
        not plan.induced, config.dynamic_per_update_max, compact, 0)
    return LaneRun(b, infos, used, live, maxdeg, (cptr, cidx) if changed else None, touched, old_rows, items, counts,
                   buf if compacted else None, int(stale))


def stream_args(S, nlf, plan, *, relevance, aut) -> list:
    """:func:`_stream`'s arguments for a run on the store ``S`` and tables ``nlf`` with ``plan`` (the configuration's
    tunables as they are now), as a list whose per-call slots (``ops`` .. ``strict``: :func:`bound_run`) are left
    empty.  A caller may keep it between runs (``DynamicGraph``'s bound stream) while nothing but such runs changes
    the store and tables: :func:`rebind` then refreshes the slots a run moves (an empty stream on yeast, 2 cores:
    15.9 -> 13.2 us a call, 36-38 -> 30-32 us for the first call on a DynamicGraph just built)."""
    q = nlf.q[0]
    cand = nlf.cand[0]
    if relevance is not None:
        use_rel, code, table = True, relevance.code, relevance.table
    else:
        use_rel, code, table = False, _NO_CODE, _NO_TABLE
    return [None, 0, 0, 0, aut, False,
            S.n, S.rows, S.idx, S.st, S.od, S.el, _NO_OFF, _NO_ROWS, S.used, S.idx.shape[0], S.live, S.maxdeg,
            S.scratch_mark(S.n), S.row_marks(S.rows.shape[0], mark_rows(plan)), use_rel, code, table,
            nlf.deg, nlf.N, nlf.vcol, nlf._on, nlf._vl(nlf.vlab), nlf._ct[0], cand.ptr, cand.idx, q.labeled, q.qlab,
            q.qdeg, q.qdem, q.qcol,
            plan.packed, plan.pairs, plan.pair_edge, plan.pair_el, plan.pair_cond, plan.k, config.dynamic_split,
            config.parallel_min, not plan.induced, config.dynamic_per_update_max, True, 0]


def bound_run(a, ops, size, nbat, lane_max, strict):
    """:func:`_stream` on the arguments ``a`` (:func:`stream_args`) with this call's stream; the list keeps no
    reference to ``ops`` after it."""
    a[_OPS], a[_SIZE], a[_NBAT], a[_LANE_MAX], a[_STRICT] = ops, size, nbat, lane_max, strict
    try:
        return _stream(*a)
    finally:
        a[_OPS] = None


def rebind(a, S, nlf, buffer=True, lists=True, stale=0) -> None:
    """The slots of ``a`` (:func:`stream_args`) that a committed run moves, from the store and tables after it
    (the caller has set the store's scalars and buffer from the run): its scalars, the arc buffer (after a
    compaction: ``buffer``) and the candidate lists: ``lists`` True, the exact ones (``nlf``'s, read here); a run's
    own (ptr, idx), those; None, unchanged.  Rows, tables, marks, plan and relevance are changed in place by a run.

    ``stale``: the lists a stream run (:func:`_stream`) left stale (a bit per query vertex,
    :func:`.filter.lazy_patch`).  The next run takes them as they are, with that mask, and makes them usable where a
    search needs them, so that a run's end rebuilds nothing (yeast: one numba call, about 9 us of a first stream
    call on a DynamicGraph just built); the caller leaves the exact lists of every other path to be built from the
    bits when first read (:class:`.filter.Candidates`)."""
    a[_USED], a[_LIVE], a[_MAXDEG] = S.used, S.live, S.maxdeg
    a[_STALE] = stale
    if buffer:
        a[_IDX], a[_ST], a[_OD], a[_CAP] = S.idx, S.st, S.od, S.idx.shape[0]
    if lists is True:
        cand = nlf.cand[0]
        a[_CPTR], a[_CIDX] = cand.ptr, cand.idx
    elif lists is not None:
        a[_CPTR], a[_CIDX] = lists


def one_batch(ins, dele):
    """The offsets of a run of one batch."""
    return np.array([0, ins.shape[0]], np.int64), np.array([0, dele.shape[0]], np.int64)


_NO_TABLE = np.zeros((1, 1), np.uint8)
_NO_CODE = np.zeros(1, np.int32)


def lane_pairs(obj, limit: int):
    """``obj`` as a C-contiguous int64 (m, 2) array the lane takes as is (a numpy array or a list of pairs of
    integers, m <= limit), else None (the general path validates it and raises what it must)."""
    if obj is None:
        return _E2
    if type(obj) is np.ndarray:
        a = obj
    elif type(obj) in (list, tuple):
        if len(obj) > limit:
            return None
        try:
            a = np.asarray(obj)
        except (TypeError, ValueError):
            return None
    else:
        return None
    if a.ndim != 2 or a.shape[1] != 2 or a.dtype.kind not in "iu" or a.shape[0] > limit:
        return _E2 if a.size == 0 and a.ndim == 1 and type(obj) is not np.ndarray else None
    if a.dtype.kind == "u" and a.dtype.itemsize >= 8:
        return None
    return np.ascontiguousarray(a, dtype=np.int64)


# _lane compiles in the kernels of seven modules: its cached build is dropped when any of them changes
from . import cpu as _cpu, filter as _filter, micro as _micro, query as _query, store as _store  # noqa: E402
from . import updates as _updates  # noqa: E402
from ..primitives import sorted_ops as _sorted_ops  # noqa: E402

flush_when_changed(globals(), _cpu, _filter, _micro, _query, _store, _updates, _sorted_ops)
