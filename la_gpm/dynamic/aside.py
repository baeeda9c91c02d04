"""The whole-graph mode's updates no query can use: kept aside, in a log, never searched.

``DynamicGraph(keep_graph=True)`` (the default) keeps every edge, so every update must reach the graph.  But an
update between two vertices whose labels no query edge joins (the query views' relevance, :mod:`.views`; for an
induced query: no two distinct query vertices) is in no match and on no checked non-edge, and a pair's relevance is
a function of its two labels, which never change.  So the graph splits into two edge sets that no update moves an
edge between: the *relevant* edges, which the searches read, and the *irrelevant* ones, which only ``.graph`` and
the update counts of ``stats`` read.

The whole-graph mode therefore runs exactly as query views do (:mod:`.views`: the store, the tables and every
search hold the relevant edges only), and keeps the rest here (:class:`AsideEdges`):

* the graph given to the constructor (immutable) as the base, with an *overlay*: the irrelevant pairs whose state
  (present, edge label) now differs from the base's, a sorted array;
* a *log* of the irrelevant updates applied since the overlay was made: pair key, batch version, insert or delete,
  edge label; appended in one numba pass a call (:func:`_log_ops` over an array stream, :func:`_log_pairs` over a
  batch's pairs), a few nanoseconds an update;
* the log is replayed (:func:`_replay`: a stable sort by pair, then each pair's updates in batch order, on the
  overlay's or the base's state, as :func:`.updates.net_layout` counts a batch: repeats, pairs both inserted and
  deleted, inserts of existing edges, deletes of missing ones, net inserts, net deletes) only when something reads
  what it decides: a ``stats`` of one of its batches (:class:`Ticket`), a graph, a ``strict=True`` batch (which must
  refuse before it changes anything), or a log past :data:`FLUSH_AT` entries.

Until session 33 those updates were row edits of the one store (applied after each batch's relevant part): about
260 ns an update, which made the default mode 4-20x slower than the views on yeast and HPRD streams (0.1%
batches, most updates irrelevant); a logged update costs a few nanoseconds, and its replay (when read) a sort and
one binary search in the base's row per distinct pair.

A pair's key is ``u << 32 | v`` (u < v): the store's rows hold int32 ids (:class:`.store.ArcStore`), so ids stay below
2^31 and ``u * n + v`` (the replay's sort key) below 2^62.

Snapshots (``MatchDelta.graph`` of an earlier batch) hold the overlay and the log arrays of their time and the log's
length then: a replay makes a new overlay and a fresh log, and appends only write past every length taken, so what
a snapshot holds never changes.  ``match_delta`` (one batch, the graph not kept) uses :func:`irrelevant_counts`.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..graph import Graph
from .updates import pair_kept
from ..primitives.jit import flush_when_changed
from ..primitives.sorted_ops import adjacent, lower_bound

__all__ = ["AsideEdges", "Ticket", "irrelevant_counts", "FLUSH_AT", "STAT_KEYS"]

# a replay when the log passes this many entries (24 bytes each), whether or not anything reads it
FLUSH_AT = 1 << 20
# the stats keys of the six counts of a replay, in its order
STAT_KEYS = ("ignored_duplicates", "ignored_insert_and_delete", "ignored_existing_inserts", "ignored_missing_deletes",
             "inserted", "deleted")
_LO = np.int64(0xFFFFFFFF)


@nb.njit(cache=True)
def _log_ops(ops, size, nbat, code, n, table, vb, lk, lm, ll, L):
    """The irrelevant updates of batches ``0 .. nbat - 1`` of an array stream (rows ``(sign, u, v[, label])`` cut
    into batches of ``size``; batch b is version ``vb + b``) appended to the log at ``L``; returns the new length.
    The caller reserved room for every row; the batches were run, so every id is valid."""
    labeled = ops.shape[1] > 3
    m = min(ops.shape[0], nbat * size)
    for t in range(m):
        x = ops[t, 1]
        y = ops[t, 2]
        if pair_kept(x, y, code, n, table) == 0:
            lk[L] = (min(x, y) << 32) | max(x, y)
            lm[L] = ((vb + t // size) << 1) | (ops[t, 0] != 1)
            ll[L] = ops[t, 3] if labeled else -1
            L += 1
    return L


@nb.njit(cache=True)
def _log_pairs(ins, ilab, ioff, dele, doff, b0, b1, code, n, table, vb, lk, lm, ll, L):
    """The irrelevant pairs of batches ``b0 .. b1 - 1`` (batch b: ``ins[ioff[b]:ioff[b + 1]]`` then
    ``dele[doff[b]:doff[b + 1]]``; version ``vb + b``; ``ilab``: the inserts' edge labels, or empty) appended to
    the log at ``L``; returns the new length."""
    lab = ilab.shape[0] > 0
    for b in range(b0, b1):
        for t in range(ioff[b], ioff[b + 1]):
            x = ins[t, 0]
            y = ins[t, 1]
            if pair_kept(x, y, code, n, table) == 0:
                lk[L] = (min(x, y) << 32) | max(x, y)
                lm[L] = (vb + b) << 1
                ll[L] = ilab[t] if lab else -1
                L += 1
        for t in range(doff[b], doff[b + 1]):
            x = dele[t, 0]
            y = dele[t, 1]
            if pair_kept(x, y, code, n, table) == 0:
                lk[L] = (min(x, y) << 32) | max(x, y)
                lm[L] = ((vb + b) << 1) | 1
                ll[L] = -1
                L += 1
    return L


@nb.njit(inline="always")
def _base_arc(ptr, idx, bn, u, v):
    """The position of arc u -> v in the base's sorted rows, or -1 (also for a vertex the base lacks).  One path and
    inlined: a call of a compiled helper with array arguments costs their reference counts (docs/dynamic.md)."""
    ok = (u < bn) & (v < bn)
    ui = u if ok else 0
    end = ptr[ui + 1] if ok else ptr[ui]
    lo = lower_bound(idx, ptr[ui], end, v)
    hit = ok & (lo < end)
    return lo if hit and idx[lo if hit else 0] == v else -1


@nb.njit(cache=True)
def _pair_order(lk, L):
    """The stable order of the log's keys ``lk[:L]`` (``u << 32 | v``, u < v): an LSD radix sort, 11 bits a pass,
    of ``u * n + v`` (n: the largest v + 1; 2 log2(n) bits).  (numpy's and numba's stable sorts took 50-60 ns a key
    on HPRD's 3,345-entry log, this about a quarter of that.)"""
    n = 1
    for t in range(L):
        n = max(n, (lk[t] & _LO) + 1)
    bits = 1
    while (np.int64(1) << bits) < n:
        bits += 1
    ck = np.empty(L, np.int64)
    ix = np.empty(L, np.int64)
    for t in range(L):
        ck[t] = (lk[t] >> 32) * n + (lk[t] & _LO)
        ix[t] = t
    tk = np.empty(L, np.int64)
    ti = np.empty(L, np.int64)
    R = 1 << 11
    cnt = np.empty(R + 1, np.int64)
    shift = 0
    while shift < 2 * bits:
        cnt[:] = 0
        for t in range(L):
            cnt[((ck[t] >> shift) & (R - 1)) + 1] += 1
        for r in range(R):
            cnt[r + 1] += cnt[r]
        for t in range(L):
            d = (ck[t] >> shift) & (R - 1)
            p = cnt[d]
            tk[p] = ck[t]
            ti[p] = ix[t]
            cnt[d] = p + 1
        ck, tk = tk, ck
        ix, ti = ti, ix
        shift += 11
    return ix


@nb.njit(cache=True)
def _replay(lk, lm, ll, L, okeys, ostate, olab, ptr, idx, el, bn, v0, counts):
    """The log's ``L`` entries replayed on the overlay (``okeys`` sorted, ``ostate`` 1 present / 0 absent, ``olab``
    edge labels) over the base (CSR ``ptr`` / ``idx``, sorted rows, ``el`` edge labels or empty, ``bn``
    vertices): the new overlay (keys, states, labels), and each batch's six counts (:data:`STAT_KEYS`) added to
    ``counts[version - v0]`` (rows past it are not written: a graph's replay passes an empty ``counts``).

    A pair's updates in one batch count as :func:`.updates.net_layout` counts them: its repeats; inserted and
    deleted both: nothing changes; inserted: an existing edge is ignored, else it is added with its first insert's
    label; deleted: a missing edge is ignored, else it goes.  The overlay keeps a pair whose state or label then
    differs from the base's."""
    order = _pair_order(lk, L)     # stable: a pair's updates stay in log (= batch) order
    no = okeys.shape[0]
    nk = np.empty(no + L, np.int64)
    ns = np.empty(no + L, np.int8)
    nl = np.empty(no + L, np.int64)
    labeled = el.shape[0] > 0
    nc = counts.shape[0]
    c = 0
    j = 0
    t = 0
    while t < L:
        key = lk[order[t]]
        while j < no and okeys[j] < key:
            nk[c] = okeys[j]
            ns[c] = ostate[j]
            nl[c] = olab[j]
            c += 1
            j += 1
        p = _base_arc(ptr, idx, bn, key >> 32, key & _LO)
        bstate = 1 if p >= 0 else 0
        blab = el[p] if p >= 0 and labeled else -1
        if j < no and okeys[j] == key:
            state = ostate[j]
            lab = olab[j]
            j += 1
        else:
            state = bstate
            lab = blab
        while t < L and lk[order[t]] == key:
            ver = lm[order[t]] >> 1
            ci = 0
            cd = 0
            fl = -1
            while t < L and lk[order[t]] == key and (lm[order[t]] >> 1) == ver:
                e = order[t]
                if lm[e] & 1:
                    cd += 1
                else:
                    if ci == 0:
                        fl = ll[e]
                    ci += 1
                t += 1
            r = ver - v0
            w = 0 <= r < nc
            if w:
                counts[r, 0] += max(ci - 1, 0) + max(cd - 1, 0)
            if ci > 0 and cd > 0:
                if w:
                    counts[r, 1] += 1
            elif ci > 0:
                if state:
                    if w:
                        counts[r, 2] += 1
                else:
                    state = 1
                    lab = fl
                    if w:
                        counts[r, 4] += 1
            elif state:
                state = 0
                if w:
                    counts[r, 5] += 1
            elif w:
                counts[r, 3] += 1
        if state != bstate or (state == 1 and lab != blab):
            nk[c] = key
            ns[c] = state
            nl[c] = lab
            c += 1
    while j < no:
        nk[c] = okeys[j]
        ns[c] = ostate[j]
        nl[c] = olab[j]
        c += 1
        j += 1
    return nk[:c].copy(), ns[:c].copy(), nl[:c].copy()


class Ticket:
    """The counts of the irrelevant updates of versions ``v0 .. v0 + nv - 1`` (one call's batches): ``get()`` gives
    them as an (nv, 6) int64 array (:data:`STAT_KEYS`), replaying the log first where it still holds them."""

    __slots__ = ("v0", "nv", "counts", "_aside")

    def __init__(self, aside, v0, nv, counts=None):
        self.v0, self.nv, self.counts, self._aside = v0, nv, counts, aside

    def get(self) -> np.ndarray:
        if self.counts is None:
            self._aside.flush()
        return self.counts

    def add_to(self, stats: dict) -> dict:
        """``stats`` (one batch's, of its relevant updates) with the counts of its irrelevant ones added."""
        c = self.get()[0].tolist()
        stats = dict(stats)
        for key, x in zip(STAT_KEYS, c):
            stats[key] += x
        return stats


class AsideEdges:
    """The irrelevant edges of a whole-graph :class:`la_gpm.DynamicGraph` (see the module notes): the base graph
    ``G``, the overlay, the log, and the tickets the log has not resolved yet.  ``lock``: the store's (the log moves
    with the store's batches; a replay may come from a ``stats`` read in another thread)."""

    def __init__(self, G: Graph, relevance, lock):
        self.rel = relevance
        self.lock = lock
        self.ptr, self.idx, self.bn = G.indptr, G.indices, G.n
        self.el = _NO_EL if G.edge_labels is None else G.edge_labels     # (read-only either way: one build)
        self.okeys = np.zeros(0, np.int64)
        self.ostate = np.zeros(0, np.int8)
        self.olab = np.zeros(0, np.int64)
        self._fresh_log(256)
        self._pending = []
        self._base = None          # the base's irrelevant arcs (CSR), made at the first graph read
        self._G = G

    def _fresh_log(self, cap):
        self.lk = np.empty(cap, np.int64)
        self.lm = np.empty(cap, np.int64)
        self.ll = np.empty(cap, np.int64)
        self.L = 0

    def _room(self, extra: int):
        """Room for ``extra`` more entries: new, larger arrays (the old ones stay as snapshots hold them)."""
        need = self.L + extra
        if need > self.lk.shape[0]:
            cap = max(need, 2 * self.lk.shape[0])
            for name in ("lk", "lm", "ll"):
                a = np.empty(cap, np.int64)
                a[:self.L] = getattr(self, name)[:self.L]
                setattr(self, name, a)

    def _ticket(self, v0: int, nv: int, L0: int) -> Ticket:
        if self.L == L0:               # nothing logged: the counts are zeros now
            return Ticket(self, v0, nv, np.zeros((nv, 6), np.int64))
        t = Ticket(self, v0, nv)
        self._pending.append(t)
        if self.L > FLUSH_AT:
            self.flush()
        return t

    def log_ops(self, ops, size: int, nbat: int, v0: int) -> Ticket:
        """Log the irrelevant updates of the first ``nbat`` batches of an array stream (batch b: version v0 + b)."""
        L0 = self.L
        if nbat:
            self._room(min(ops.shape[0], nbat * size))
            self.L = _log_ops(ops, size, nbat, self.rel.code, self._n(), self.rel.table, v0, self.lk, self.lm,
                              self.ll, self.L)
        return self._ticket(v0, nbat, L0)

    def log_pairs(self, ins, ilab, ioff, dele, doff, b0: int, b1: int, v0: int) -> Ticket:
        """Log the irrelevant pairs of batches ``b0 .. b1 - 1`` of a packed stream (or one batch: offsets
        ``[0, m]``); batch b0 is version v0."""
        L0 = self.L
        if b1 > b0:
            self._room(int(ioff[b1] - ioff[b0] + doff[b1] - doff[b0]))
            self.L = _log_pairs(ins, _NO_LAB if ilab is None else ilab, ioff, dele, doff, b0, b1, self.rel.code,
                                self._n(), self.rel.table, v0 - b0, self.lk, self.lm, self.ll, self.L)
        return self._ticket(v0, b1 - b0, L0)

    def _n(self):
        return self.rel.code.shape[0]

    def flush(self) -> None:
        """Replay the log: the overlay moves to the graph now, every pending ticket gets its counts, the log
        starts afresh."""
        with self.lock:
            self._flush()

    def _flush(self):
        if not self._pending and self.L == 0:
            return
        v0 = min(t.v0 for t in self._pending) if self._pending else 0
        v1 = max(t.v0 + t.nv for t in self._pending) if self._pending else 0
        counts = np.zeros((v1 - v0, 6), np.int64)
        self.okeys, self.ostate, self.olab = _replay(self.lk, self.lm, self.ll, self.L, self.okeys, self.ostate,
                                                     self.olab, self.ptr, self.idx, self.el, self.bn, v0, counts)
        for t in self._pending:
            t.counts = counts[t.v0 - v0:t.v0 - v0 + t.nv]
        self._pending = []
        self._fresh_log(256)

    def check(self, ins, ilab, dele) -> np.ndarray:
        """The six counts of one batch's irrelevant pairs (internal ids) on the graph now, nothing changed: for
        ``strict=True``, which must refuse a batch before it changes anything."""
        self.flush()
        n_i, n_d = ins.shape[0], dele.shape[0]
        lk = np.empty(n_i + n_d, np.int64)
        lm = np.empty(n_i + n_d, np.int64)
        ll = np.empty(n_i + n_d, np.int64)
        L = _log_pairs(ins, _NO_LAB if ilab is None else ilab, np.array([0, n_i], np.int64), dele,
                       np.array([0, n_d], np.int64), 0, 1, self.rel.code, self._n(), self.rel.table, 0, lk, lm, ll, 0)
        counts = np.zeros((1, 6), np.int64)
        _replay(lk, lm, ll, L, self.okeys, self.ostate, self.olab, self.ptr, self.idx, self.el, self.bn, 0, counts)
        return counts[0]

    def state(self) -> tuple:
        """What a snapshot of the graph now needs of this part (see the module notes)."""
        return self.okeys, self.ostate, self.olab, self.lk, self.lm, self.ll, self.L

    def graph(self, H: Graph, state=None) -> Graph:
        """The whole graph: ``H`` (the relevant edges' graph of the same version: every vertex, id and label) with
        the irrelevant edges of ``state`` (:meth:`state`; default: now): one merge of sorted rows, O(n + m) (and a
        sort of the overlay's and the log's entries)."""
        if state is None:
            self.flush()
            state = self.state()
        okeys, ostate, olab, lk, lm, ll, L = state
        if L:
            okeys, ostate, olab = _replay(lk, lm, ll, L, okeys, ostate, olab, self.ptr, self.idx, self.el, self.bn, 0,
                                          _NO_COUNTS)
        bp, bi, bel = self._base_arcs()
        drop, addk, addl = _overlay_arcs(okeys, ostate, olab, self.ptr, self.idx, self.bn)
        labeled = H.edge_labels is not None
        hel = np.asarray(H.edge_labels, np.int64) if labeled else _NO_LAB
        ptr, idx, el = _merge_rows(H.n, H.indptr, H.indices, hel, bp, bi, bel, self.bn, drop, addk, addl, labeled)
        return Graph(ptr, idx, ids=None if H._ids is None else H.ids, vertex_labels=H.vertex_labels,
                     edge_labels=el if labeled else None, name=H.name, _trusted=True)

    def _base_arcs(self):
        """The base's irrelevant arcs as CSR over its vertices (ptr, idx, edge labels or empty), made once."""
        if self._base is None:
            G = self._G
            _, _, keep = self.rel.arcs(G.indptr, G.indices)
            off = ~keep
            ptr = np.concatenate([np.zeros(1, np.int64), np.cumsum(off, dtype=np.int64)])[G.indptr]
            idx = np.ascontiguousarray(G.indices[off])
            el = np.asarray(G.edge_labels, np.int64)[off] if G.edge_labels is not None else _NO_LAB
            self._base = (ptr, idx, el)
        return self._base


@nb.njit(cache=True)
def _overlay_arcs(okeys, ostate, olab, ptr, idx, bn):
    """The overlay as arc edits of the base: (arc keys ``u << 32 | v`` to drop from the base, sorted; arc keys to add,
    sorted; their edge labels), both directions of each pair."""
    m = okeys.shape[0]
    drop = np.empty(2 * m, np.int64)
    add = np.empty(2 * m, np.int64)
    alab = np.empty(2 * m, np.int64)
    nd = 0
    na = 0
    for t in range(m):
        u = okeys[t] >> 32
        v = okeys[t] & _LO
        if _base_arc(ptr, idx, bn, u, v) >= 0:       # the base has it: gone, or relabelled (added again below)
            drop[nd] = okeys[t]
            drop[nd + 1] = (v << 32) | u
            nd += 2
        if ostate[t] == 1:
            add[na] = okeys[t]
            add[na + 1] = (v << 32) | u
            alab[na] = olab[t]
            alab[na + 1] = olab[t]
            na += 2
    o = np.argsort(add[:na])
    return np.sort(drop[:nd]), add[:na][o], alab[:na][o]


@nb.njit(cache=True)
def _merge_rows(n, hp, hi, hel, bp, bi, bel, bn, drop, addk, addl, labeled):
    """The whole graph's CSR (ptr, idx, edge labels or empty), rows sorted: per vertex u < n, the merge of H's row
    (``hp`` / ``hi`` / ``hel``), the base's irrelevant arcs (``bp`` / ``bi`` / ``bel``, rows u < ``bn``) less those
    in ``drop``, and the arcs of ``addk`` from u (labels ``addl``).  The three are disjoint: a pair is relevant or
    not, and an irrelevant one is either the base's (not dropped) or the overlay's."""
    nb_ = bp[bn] if bn > 0 else 0
    m = hp[n] + nb_ - drop.shape[0] + addk.shape[0]
    ptr = np.zeros(n + 1, np.int64)
    out = np.empty(m, hi.dtype)
    oel = np.empty(m if labeled else 0, np.int64)
    big = np.int64(1) << 62
    c = 0
    jd = 0
    ja = 0
    nd = drop.shape[0]
    na = addk.shape[0]
    for u in range(n):
        ptr[u] = c
        h = hp[u]
        h1 = hp[u + 1]
        b = bp[u] if u < bn else 0
        b1 = bp[u + 1] if u < bn else 0
        while True:
            while b < b1:            # the base's arcs of u that the overlay dropped
                kb = (np.int64(u) << 32) | bi[b]
                while jd < nd and drop[jd] < kb:
                    jd += 1
                if jd < nd and drop[jd] == kb:
                    b += 1
                    jd += 1
                else:
                    break
            vh = np.int64(hi[h]) if h < h1 else big
            vb = np.int64(bi[b]) if b < b1 else big
            va = (addk[ja] & _LO) if ja < na and (addk[ja] >> 32) == u else big
            v = min(vh, vb, va)
            if v == big:
                break
            out[c] = v
            if v == vh:
                if labeled:
                    oel[c] = hel[h]
                h += 1
            elif v == vb:
                if labeled:
                    oel[c] = bel[b]
                b += 1
            else:
                if labeled:
                    oel[c] = addl[ja]
                ja += 1
            c += 1
    ptr[n] = c
    return ptr, out[:c], oel[:c]


_NO_LAB = np.zeros(0, np.int64)
_NO_EL = np.zeros(0, np.int64)
_NO_EL.flags.writeable = False
_NO_COUNTS = np.zeros((0, 6), np.int64)


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


# the kernels here compile in those of two modules: their cached builds go when one of them changes
from . import updates as _updates  # noqa: E402
from ..primitives import sorted_ops as _sorted_ops  # noqa: E402

flush_when_changed(globals(), _updates, _sorted_ops)
