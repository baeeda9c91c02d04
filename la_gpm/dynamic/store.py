"""The graph a batch is searched on, kept so that a batch costs O(batch), not O(n + m).

An :class:`ArcStore` holds the current graph as **rows over one arc buffer**: ``rows[v] = (begin, end)``
of v's sorted neighbours in ``idx``, with a state (``st``: kept / inserted / deleted), an order id
(``od``) and an edge label (``el``) per arc.  Between batches every live arc is kept (state 0,
order -1).  A batch is opened by writing, at the buffer's tail, one merged row per **touched**
vertex (an endpoint of an update): its old arcs, its inserted arcs (state 1) and its deleted arcs
marked (state 2), and pointing ``rows[v]`` there; untouched rows still point at their old place.
That is the union graph U = K + D⁺ + D⁻ of notes/001_gamma.md §2.2, built in time proportional to
the touched rows, however large the graph.  Then the batch is either

* **reverted** (:func:`la_gpm.match_delta` on an immutable ``Graph``): the touched rows point back
  at their old place, the tail is free again; or
* **committed** (:class:`la_gpm.DynamicGraph`): each touched row is compacted in place (deleted arcs
  dropped, inserted arcs become kept), and its old copy becomes garbage.  When garbage passes half
  of the buffer, the live rows are copied into a fresh buffer (amortised O(1) per arc).

Earlier versions of the graph stay readable (``snapshot``) while something holds them: each commit
logs the old (begin, end) of the rows it moved, and a snapshot rebuilds its rows by undoing the
later logs; before a compaction frees old rows, the snapshots still alive are materialised.

The store is not safe for concurrent use by itself: ``lock`` serialises the calls that use it.
"""

from __future__ import annotations

import threading
import weakref

import numba as nb
import numpy as np

from ..config import config
from ..primitives.jit import parallel_and_serial
from ..graph import Graph
from .cpu import tri_stale
from .updates import layout_of

__all__ = ["ArcStore", "Opened", "grow", "KEPT", "INSERTED", "DELETED"]

KEPT, INSERTED, DELETED = 0, 1, 2
_NO_LABELS = np.zeros(1, dtype=np.int64)


def _patch_impl(rows, idx, st, od, el, labeled, n_old, touched, offs, lo, tptr, adst, aod, uel, old_rows):
    """Write the merged row of touched vertex t at ``lo + offs[t]`` (rows[v] then points there; its old
    (begin, end) goes to ``old_rows[t]``).

    ``adst``/``aod`` (CSR ``tptr`` over ``touched``): the batch's arcs of each touched vertex sorted by target,
    with their order ids; an arc whose target is in the old row is a delete (its edge label goes to
    ``uel[order id]`` on an edge-labeled graph), any other an insert (its label read from ``uel``)."""
    for t in nb.prange(touched.shape[0]):
        v = touched[t]
        if v < n_old:
            a = rows[v, 0]
            ae = rows[v, 1]
        else:
            a = 0
            ae = 0
        old_rows[t, 0] = a
        old_rows[t, 1] = ae
        b = tptr[t]
        be = tptr[t + 1]
        o = lo + offs[t]
        while a < ae or b < be:
            if a < ae and (b >= be or idx[a] < adst[b]):
                idx[o] = idx[a]
                st[o] = 0
                od[o] = -1
                if labeled:
                    el[o] = el[a]
                a += 1
            elif a < ae and idx[a] == adst[b]:
                idx[o] = idx[a]
                st[o] = 2
                od[o] = aod[b]
                if labeled:
                    el[o] = el[a]
                    uel[aod[b]] = el[a]
                a += 1
                b += 1
            else:
                idx[o] = adst[b]
                st[o] = 1
                od[o] = aod[b]
                if labeled:
                    el[o] = uel[aod[b]]
                b += 1
            o += 1
        rows[v, 0] = lo + offs[t]
        rows[v, 1] = o


patch_par, patch_ser = parallel_and_serial(_patch_impl)  # small batches: the serial one


@nb.njit(cache=True)
def prepare_union(rows, n_old, touched, icnt, ins, dele, ins_el, labeled):
    """Before the patch: each touched row's offset in the union's tail (relative, ``offs[t]``; ``offs[-1]`` the
    arcs needed), the longest union row, and the update table (pairs, state, edge label: inserts' given,
    deletes' filled by the patch)."""
    nt = touched.shape[0]
    offs = np.empty(nt + 1, dtype=np.int64)
    offs[0] = 0
    longest = 0
    for t in range(nt):
        v = touched[t]
        ln = icnt[t] + (rows[v, 1] - rows[v, 0] if v < n_old else 0)
        offs[t + 1] = offs[t] + ln
        if ln > longest:
            longest = ln
    a = ins.shape[0]
    b = dele.shape[0]
    upd = np.empty((a + b, 2), dtype=np.int64)
    ustate = np.empty(a + b, dtype=np.int8)
    uel = np.zeros(a + b, dtype=np.int64)
    for j in range(a):
        upd[j, 0] = ins[j, 0]
        upd[j, 1] = ins[j, 1]
        ustate[j] = 1
        if labeled:
            uel[j] = ins_el[j]
    for j in range(b):
        upd[a + j, 0] = dele[j, 0]
        upd[a + j, 1] = dele[j, 1]
        ustate[a + j] = 2
    return offs, longest, upd, ustate, uel


@nb.njit(cache=True)
def compact_rows(rows, idx, st, od, el, labeled, touched):
    """Commit: in each touched row drop the deleted arcs and make the inserted ones kept (in place)."""
    maxd = 0
    for t in range(touched.shape[0]):
        v = touched[t]
        a = rows[v, 0]
        o = a
        for q in range(a, rows[v, 1]):
            if st[q] == 2:
                continue
            idx[o] = idx[q]
            if labeled:
                el[o] = el[q]
            st[o] = 0
            od[o] = -1
            o += 1
        for q in range(o, rows[v, 1]):
            st[q] = 0
            od[q] = -1
        rows[v, 1] = o
        if o - a > maxd:
            maxd = o - a
    return maxd


@nb.njit(cache=True)
def _gather(rows, idx, el, labeled, n):
    """CSR (ptr, idx, el) of rows[:n]."""
    ptr = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        ptr[v + 1] = ptr[v] + rows[v, 1] - rows[v, 0]
    out = np.empty(ptr[n], dtype=np.int32)
    oel = np.empty(ptr[n] if labeled else 0, dtype=np.int64)
    for v in range(n):
        o = ptr[v]
        for q in range(rows[v, 0], rows[v, 1]):
            out[o] = idx[q]
            if labeled:
                oel[o] = el[q]
            o += 1
    return ptr, out, oel


@nb.njit(cache=True)
def fresh_buffer(rows, idx, st, od, n, extra):
    """An unlabelled store's live rows copied into a fresh arc buffer with room for ``extra`` more arcs (the batch
    that found the buffer full), the rows, and as many again as the live arcs -- up to twice as many where 64
    batches of ``extra`` arcs need it: ``(idx, st, od, used)``, ``rows[:n]`` pointed into it (the compaction of
    :meth:`ArcStore._reserve`, for the small-batch lane's runs: each batch leaves its touched rows' old copies
    behind, so a compaction, O(live arcs + rows), comes once per room's worth of touched rows; with room for
    64 batches it costs at most 1/64 of a batch's copies again.  A whole-graph stream on HPRD, 34 updates a
    batch touching about 4,000 arcs, compacted every 20 batches, 5.6 us a batch).  Between batches every state is 0
    and every order -1 (:meth:`ArcStore._fresh`), so ``st`` and ``od`` are kept when the capacity is."""
    used = 0
    for v in range(n):
        used += rows[v, 1] - rows[v, 0]
    cap = idx.shape[0]
    want = used + max(used, min(2 * used, 64 * extra)) + n + extra
    if want > cap:
        cap = max(want, 1024)
        st = np.zeros(cap, dtype=np.int8)
        od = np.full(cap, -1, dtype=np.int32)
    out = np.empty(cap, dtype=np.int32)
    o = 0
    for v in range(n):
        b = rows[v, 0]
        e = rows[v, 1]
        rows[v, 0] = o
        out[o:o + e - b] = idx[b:e]
        o += e - b
        rows[v, 1] = o
    return out, st, od, used


def grow(a, size):
    """``a`` itself when it has ``size`` rows, else a copy with room for at least ``size`` (x1.5; new rows zero):
    the capacity growth of the store's and the candidate tables' arrays."""
    if a.shape[0] >= size:
        return a
    b = np.zeros((max(size, int(a.shape[0] * 1.5) + 16),) + a.shape[1:], dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


class Opened:
    """One batch opened on a store: the union graph's view and what closing it needs."""
    __slots__ = ("touched", "old_rows", "n_before", "lo", "hi", "upd", "ustate", "uel", "vlab")

    def __init__(self, touched, old_rows, n_before, lo, hi, upd, ustate, uel, vlab):
        self.touched, self.old_rows, self.n_before, self.lo, self.hi = touched, old_rows, n_before, lo, hi
        self.upd, self.ustate, self.uel, self.vlab = upd, ustate, uel, vlab


class _Snapshot:
    """A lazily materialised version of a store's graph (see the module notes)."""

    def __init__(self, store, version):
        self._store = store
        self.version = version
        self._graph = None

    def __call__(self) -> Graph:
        if self._graph is None:
            with self._store.lock:
                if self._graph is None:
                    self._graph = self._store._materialise(self.version)
                    self._store._live.discard(self)
                    self._store._prune()
        return self._graph


def _grown(marks: np.ndarray, rows: int, size: int) -> np.ndarray:
    """``marks`` where it has ``rows`` rows and ``size`` + 2 columns, else a zeroed array that has (the columns grown
    by half at least, so a graph growing vertex by vertex does not reallocate at each batch)."""
    r, c = marks.shape
    if c >= size + 2 and r >= rows:
        return marks
    cols = max(size, int(c * 1.5)) + 2 if c < size + 2 else c
    return np.zeros((max(r, rows), cols), dtype=np.int32)


class ArcStore:
    """The current graph as rows over one arc buffer (see the module notes).

    Attributes read by the engines: ``rows`` ((capacity, 2) int64), ``idx`` (int32), ``st`` (int8),
    ``od`` (int32), ``el`` (int64, or a 1-element dummy when unlabeled), ``n``, ``maxdeg`` (an upper bound
    of every row length so far), ``vlab`` (vertex labels of the n vertices, or None), ``generation``
    (changes whenever the arrays are replaced: device copies then refresh in full)."""

    def __init__(self, G: Graph):
        self.lock = threading.RLock()
        n = G.n
        nnz = int(G.indptr[-1])
        self.n = n
        self.rows = np.empty((max(n, 1), 2), dtype=np.int64)
        self.rows[:n, 0] = G.indptr[:-1]
        self.rows[:n, 1] = G.indptr[1:]
        # room at the tail: a quarter of the arcs, and at least one arc per vertex (a compaction costs O(n + arcs):
        # the room it leaves must be as large for its cost to spread over the arcs copied, as on a query view, a
        # few thousand arcs on thousands of vertices) and config.dynamic_room (a 100-batch stream on yeast's query
        # views copies 3,000-6,000 arcs: with 1,024 arcs of least room it compacted once, 50-80 us of 400-500)
        cap = nnz + max(nnz // 4, n, config.dynamic_room)
        self.idx = np.empty(cap, dtype=np.int32)
        self.idx[:nnz] = G.indices
        self.st = np.zeros(cap, dtype=np.int8)
        self.od = np.full(cap, -1, dtype=np.int32)
        self.labeled = G.edge_labels is not None
        if self.labeled:
            self.el = np.empty(cap, dtype=np.int64)
            self.el[:nnz] = G.edge_labels
        else:
            self.el = np.zeros(1, dtype=np.int64)
        self.used = nnz
        self.live = nnz
        self.maxdeg = int(np.diff(G.indptr).max()) if n else 0
        # a writable copy: numba types a read-only array apart, and every kernel taking the labels would be built
        # twice (the lane: minutes) when a graph's labels are read-only at first and new vertices' copy is not
        self.vlab = None if G.vertex_labels is None else np.array(G.vertex_labels, dtype=np.int64)
        self.ids = None if G._ids is None else np.asarray(G.ids, dtype=np.int64)
        self._sorter = None
        self.name = G.name
        self.version = 0
        self.generation = 0
        self.compactions = 0
        self.escaped = 0               # serial searches past their budget, taken over by the parallel drive (cpu._drive)
        self.escape_next = False       # the lane put the batch back past its budget: no second serial try (cpu._drive)
        self.split_levels = {}         # the parallel drive's hand-ons to idle threads, per level (cpu.SPLIT_EAGER)
        self.gpu_launches = 0          # the GPU search's launches of pieces handed on, and the pieces (gpu._run)
        self.gpu_pieces = 0
        self._log = []                 # (version, touched, old rows, n before) of each commit
        self._live = weakref.WeakSet()  # snapshots not materialised yet
        self._graph = (0, G)           # (version, Graph) of the newest materialised version
        self._mark = np.full(max(n, 1), -1, dtype=np.int64)   # scratch_mark
        self._rmarks = np.zeros((2, 2), dtype=np.int32)         # row_marks
        self._tmarks = np.zeros((2, 2), dtype=np.int32)         # thread_marks

    # ------------------------------------------------------------------ vertices
    @property
    def vertex_labels(self):
        return self.vlab

    @property
    def edge_labeled(self) -> bool:
        return self.labeled

    def internal(self, orig: np.ndarray) -> np.ndarray:
        """Internal ids of original ids (-1 where the graph has no such vertex)."""
        if orig.size == 0:
            return orig.copy()
        if self.ids is None:
            out = orig.copy()
            out[(orig >= self.n) | (orig < 0)] = -1
            return out
        if self._sorter is None:
            self._sorter = np.argsort(self.ids, kind="stable")
        ids, sorter = self.ids, self._sorter
        pos = np.minimum(np.searchsorted(ids, orig, sorter=sorter), len(ids) - 1)
        out = np.full(orig.shape, -1, dtype=np.int64)
        hit = ids[sorter[pos]] == orig
        out[hit] = sorter[pos[hit]]
        return out

    # ------------------------------------------------------------------ batches
    def scratch_mark(self, size: int) -> np.ndarray:
        """Scratch of at least ``size`` int64 entries, all -1, kept between batches (whoever uses it, under
        ``lock``, leaves it all -1: :func:`.updates.net_layout`)."""
        if self._mark.shape[0] < size:
            self._mark = np.full(max(size, int(self._mark.shape[0] * 1.5) + 16), -1, dtype=np.int64)
        return self._mark

    def row_marks(self, size: int, rows: int = 2) -> np.ndarray:
        """The search's row marks (:data:`.cpu.MARK_AFTER`): (>= ``rows``, >= ``size`` + 2) int32, its first two rows
        all zero, kept between batches (the search, under ``lock``, leaves them all zero: :func:`.cpu.unmark`):
        allocated and cleared once, not once a batch (a column per vertex: 16 MB a row on a graph of 4M vertices).
        The rows below them hold the search's root memo (stamped per item: :data:`.cpu.ROOT_STAMP`) and the
        per-update path's triangle memo (:func:`.cpu.mark_rows`)."""
        self._rmarks = _grown(self._rmarks, rows, size)
        return self._rmarks

    def thread_marks(self, threads: int, size: int, rows: int) -> np.ndarray:
        """The parallel drive's row marks and root memo: ``rows`` rows a thread, one block after the other
        ((threads * rows, >= ``size`` + 2) int32, kept as :meth:`row_marks` is: all zero between items but the root
        memo's stamps, which the search advances itself)."""
        self._tmarks = _grown(self._tmarks, threads * rows, size)
        return self._tmarks

    def open(self, batch) -> Opened:
        """Write the batch's touched rows at the tail: ``rows``/``idx``/... now describe the union graph (the
        per-update path's triangle memo, if any, is stale from here: :data:`.cpu.TRI_VALID`)."""
        tri_stale(self._rmarks)
        lay = batch.layout
        if lay is None:     # a Batch built by hand: its layout on this store
            lay = layout_of(self, batch)
        ins, dele = batch.insert, batch.delete
        n_before = self.n
        self._reserve(0, batch.n_after)
        touched = lay.touched
        iel = batch.insert_labels if self.labeled else _NO_LABELS
        offs, longest, upd, ustate, uel = prepare_union(self.rows, n_before, touched, lay.icnt, ins, dele, iel,
                                                   self.labeled)
        need = int(offs[-1])
        self._reserve(need, batch.n_after)
        lo = self.used
        old_rows = np.empty((touched.shape[0], 2), dtype=np.int64)
        patch = patch_par if need >= config.parallel_min else patch_ser
        patch(self.rows, self.idx, self.st, self.od, self.el, self.labeled, n_before, touched, offs, lo, lay.tptr,
              lay.adst, lay.aod, uel, old_rows)
        hi = lo + need
        self.used = hi
        self.n = batch.n_after
        if longest > self.maxdeg:
            self.maxdeg = int(longest)
        vlab = self.vlab
        if vlab is not None and batch.new_ids.size:
            vlab = np.concatenate([vlab, batch.new_labels])
        return Opened(touched=touched, old_rows=old_rows, n_before=n_before, lo=lo, hi=hi,
                      upd=upd, ustate=ustate, uel=uel, vlab=vlab)

    def revert(self, op: Opened) -> None:
        """Undo :meth:`open`: the graph before the batch again."""
        if op.touched.size:
            self.rows[op.touched] = op.old_rows
        self.n = op.n_before
        self.used = op.lo

    def commit(self, op: Opened, batch) -> None:
        """Keep the batch: the touched rows become the graph after it (deleted arcs dropped)."""
        if op.touched.size:
            compact_rows(self.rows, self.idx, self.st, self.od, self.el, self.labeled, op.touched)
        self.vlab = op.vlab
        if batch.new_ids.size:
            self.ids = np.concatenate([self.ids if self.ids is not None else np.arange(op.n_before, dtype=np.int64),
                                       batch.new_ids.astype(np.int64)])
            if np.array_equal(self.ids, np.arange(self.ids.shape[0])):
                self.ids = None
            self._sorter = None
        self.committed(op.touched, op.old_rows, op.n_before, 2 * (batch.insert.shape[0] - batch.delete.shape[0]))

    def committed(self, touched, old_rows, n_before, d_live: int) -> None:
        """The bookkeeping of a commit whose rows are compacted (:meth:`commit`, the small-batch lane): live
        arcs, version, and the log the live snapshots need."""
        self.live += d_live
        self.version += 1
        if self._live:
            self._log.append((self.version, touched, old_rows, n_before))
        else:
            self._log.clear()

    def settle(self) -> None:
        """Build the snapshots still held unbuilt (:meth:`snapshot`) now, so that a run of commits may skip the
        log (:meth:`advanced`)."""
        if self._live:
            self._materialise_live_snapshots()

    def advanced(self, batches: int, live: int, buffer=None) -> None:
        """The bookkeeping of ``batches`` commits with compacted rows made in one run of the lane, with no
        snapshot held unbuilt (:meth:`settle` first): live arcs, version and, where the run compacted the
        arcs into a fresh buffer (:func:`fresh_buffer`), ``buffer = (idx, st, od)``."""
        if self._live:
            raise RuntimeError("ArcStore.settle() must come before a run of commits (a bug, please report)")
        self.live = live
        self.version += batches
        self._log.clear()
        if buffer is not None:
            self.idx, self.st, self.od = buffer
            self.generation += 1
            self.compactions += 1

    def reserve(self, arcs: int) -> None:
        """Room for ``arcs`` more arcs at the buffer's tail (grown, or compacted when half of it is garbage; live
        snapshots are built first): the small-batch lane asks for it when a batch did not fit."""
        self._reserve(int(arcs), self.n)

    def _reserve(self, arcs: int, n_after: int) -> None:
        """Room for ``arcs`` more arcs at the tail and ``n_after`` rows; compacts when half is garbage."""
        if n_after > self.rows.shape[0]:
            self.rows = grow(self.rows, n_after)
            self.generation += 1
        if self.used + arcs <= self.idx.shape[0]:
            return
        if self.used - self.live > self.live:   # more garbage than live arcs: copy the live rows out
            self._materialise_live_snapshots()
            ptr, idx, el = _gather(self.rows, self.idx, self.el, self.labeled, self.n)
            cap = max(int((ptr[-1] + arcs) * 1.5), int(ptr[-1]) + arcs + max(self.n, config.dynamic_room))
            self._fresh(cap, idx, el)
            self.rows[:self.n, 0] = ptr[:-1]
            self.rows[:self.n, 1] = ptr[1:]
            self.used = int(ptr[-1])
            self.live = self.used
            self.compactions += 1
        else:
            cap = max(int((self.used + arcs) * 1.5), self.used + arcs + max(self.n, config.dynamic_room))
            self._fresh(cap, self.idx[:self.used], self.el[:self.used] if self.labeled else None)
        self.generation += 1

    def _fresh(self, cap, idx, el):
        # between batches every arc below ``used`` is kept: state 0, order -1
        self.idx = grow(np.ascontiguousarray(idx), cap)
        self.st = np.zeros(cap, dtype=np.int8)
        self.od = np.full(cap, -1, dtype=np.int32)
        if self.labeled:
            self.el = grow(np.ascontiguousarray(el), cap)

    # ------------------------------------------------------------------ graphs
    def snapshot(self):
        """A function returning the current version as a Graph (built on first call, O(n + m))."""
        s = _Snapshot(self, self.version)
        if self._graph[0] == self.version:
            s._graph = self._graph[1]
        else:
            self._live.add(s)
        return s

    def graph(self) -> Graph:
        with self.lock:
            if self._graph[0] != self.version:
                self._graph = (self.version, self._materialise(self.version))
            return self._graph[1]

    def _materialise(self, version) -> Graph:
        rows, n = self.rows, self.n
        if version != self.version:
            rows = self.rows[:self.n].copy()
            for ver, touched, old, n_before in reversed(self._log):
                if ver <= version:
                    break
                rows[touched] = old
                n = n_before
        ptr, idx, el = _gather(rows, self.idx, self.el, self.labeled, n)
        ids = None if self.ids is None else self.ids[:n]
        vl = None if self.vlab is None else self.vlab[:n]
        return Graph(ptr, idx, ids=ids, vertex_labels=vl, edge_labels=el if self.labeled else None,
                     name=self.name, _trusted=True)

    def _prune(self):
        """Drop the commit logs no live snapshot needs (a snapshot of version s needs those after s)."""
        keep = [s.version for s in self._live if s._graph is None]
        oldest = min(keep) if keep else self.version
        self._log = [e for e in self._log if e[0] > oldest]

    def _materialise_live_snapshots(self):
        for s in list(self._live):
            if s._graph is None:
                s._graph = self._materialise(s.version)
        self._live = weakref.WeakSet()
        self._log.clear()
