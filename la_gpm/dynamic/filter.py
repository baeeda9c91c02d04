"""Candidate filtering (GAMMA §IV-B in linear-algebra form), kept incrementally between batches.

``N = A·P`` counts, for each data vertex, its neighbours of each label that occurs in the
queries (P: the n × L one-hot label matrix).  Vertex v may play query vertex u (bit u of the
candidate table ``CT[v]``) iff it has u's label, at least u's degree, and for every label l at
least as many l-neighbours as u (the NLF rule; GAMMA's thermometer encoding tests the same
inequality with saturating counts, here the counts are exact).

The table used by a batch's search is computed on the **union** of the graphs before and after
(counts only grow from G to the union), so it never prunes a vertex of a negative match, which
lives in the graph before (notes/001_gamma.md §2.3).  A batch changes the counts of the
endpoints of its updates only: ``ΔN = (D⁺ − D⁻)·P`` on those rows, and only those rows of CT
are recomputed.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..config import config
from ..primitives.jit import flush_when_changed, parallel_and_serial, renamed_copy
from ..primitives.sorted_ops import lower_bound
from .query import query_label_table
from .store import grow
from .updates import relevant_rows

__all__ = ["NLFState", "Candidates"]


def _label_counts_impl(ptr, idx, vcol, L):
    n = ptr.shape[0] - 1
    N = np.zeros((n, L), dtype=np.int32)
    for v in nb.prange(n):
        for a in range(ptr[v], ptr[v + 1]):
            c = vcol[idx[a]]
            if c >= 0:
                N[v, c] += 1
    return N


@nb.njit(cache=True, _nrt=False)
def vertex_bits(v, N, deg, vlab, labeled, qlab, qdeg, qdem):
    """The candidate bits of data vertex v: bit u set where v has query vertex u's degree and, labelled, its label
    and its per-label neighbour counts.  Every test is made, none branched on: the per-update path recomputes two
    vertices an update, each seen once in a stream, and a branch per test missed there (session 26: 550 -> 215
    cycles a call of micro._retable, in a loop of yeast's updates)."""
    k = qdeg.shape[0]
    L = qdem.shape[1]
    dv = deg[v]
    bits = np.uint32(0)
    if labeled:
        lv = vlab[v]
        for u in range(k):
            ok = (dv >= qdeg[u]) & (lv == qlab[u])
            for c in range(L):
                ok &= N[v, c] >= qdem[u, c]
            bits |= np.uint32(ok) << np.uint32(u)
    else:
        for u in range(k):
            bits |= np.uint32(dv >= qdeg[u]) << np.uint32(u)
    return bits


def _ct_rows_impl(rows, N, deg, vlab, labeled, qlab, qdeg, qdem, out):
    for t in nb.prange(rows.shape[0]):
        v = rows[t]
        out[v] = vertex_bits(v, N, deg, vlab, labeled, qlab, qdeg, qdem)


# each pass in two builds: parallel for large inputs, serial (prange as range) below config.parallel_min
_label_counts_par, _label_counts_ser = parallel_and_serial(_label_counts_impl)
_ct_rows_par, _ct_rows_ser = parallel_and_serial(_ct_rows_impl)
# ... and a third without reference counting for a few rows at a time (swap_rows: the per-update path's two rows an
# update; the serial build's prologue counted a reference on each of its seven arrays, both ways)
_ct_rows_few = nb.njit(cache=True, _nrt=False)(renamed_copy(_ct_rows_impl, "_few"))


def _label_counts(ptr, idx, vcol, L):
    f = _label_counts_par if idx.shape[0] >= config.parallel_min else _label_counts_ser
    return f(ptr, idx, vcol, L)


def _ct_rows(rows, N, deg, vlab, labeled, qlab, qdeg, qdem, out):
    f = _ct_rows_par if rows.shape[0] * qdeg.shape[0] >= config.parallel_min else _ct_rows_ser
    f(rows, N, deg, vlab, labeled, qlab, qdeg, qdem, out)


@nb.njit(cache=True)
def _candidate_lists(ct, k):
    # the set bits only (b >>= 1 until b is 0): most vertices of a labelled graph are no query vertex's candidate
    # (ct 0), and the lists were rebuilt at the end of every stream run (HPRD's 9,460 vertices: 33 -> 6 us)
    n = ct.shape[0]
    mask = np.uint32((1 << k) - 1)
    ptr = np.zeros(k + 1, dtype=np.int64)
    for v in range(n):
        b = ct[v] & mask
        u = 0
        while b:
            ptr[u + 1] += b & np.uint32(1)
            b >>= np.uint32(1)
            u += 1
    for u in range(k):
        ptr[u + 1] += ptr[u]
    idx = np.empty(ptr[k], dtype=np.int32)
    at = ptr[:k].copy()
    for v in range(n):
        b = ct[v] & mask
        u = 0
        while b:
            if b & np.uint32(1):
                idx[at[u]] = v
                at[u] += 1
            b >>= np.uint32(1)
            u += 1
    return ptr, idx


@nb.njit(cache=True)
def patch_lists(ptr, idx, rows, bits, k):
    """Candidate lists after rows ``rows`` (sorted) got the bits ``bits``: each list u loses the rows and
    regains those whose bit u is set.  Per list, a binary search per row and block copies of the runs between
    them: O(sum of the lists) bytes moved, O(|rows| k log) compares (a batch touches few rows of long lists)."""
    nr = rows.shape[0]
    out = np.empty(ptr[k] + nr * k, dtype=np.int32)
    nptr = np.zeros(k + 1, dtype=np.int64)
    o = 0
    for u in range(k):
        a = ptr[u]
        ae = ptr[u + 1]
        for t in range(nr):
            r = rows[t]
            lo = lower_bound(idx, a, ae, r)
            ln = lo - a
            out[o:o + ln] = idx[a:lo]
            o += ln
            a = lo
            if a < ae and idx[a] == r:
                a += 1           # the row's old entry: replaced by its new bit below
            if (bits[t] >> np.uint32(u)) & np.uint32(1):
                out[o] = r
                o += 1
        ln = ae - a
        out[o:o + ln] = idx[a:ae]
        o += ln
        nptr[u + 1] = o
    return nptr, out[:o]


@nb.njit(cache=True)
def lazy_patch(ptr, idx, rows, old_bits, bits, k, maxdeg, stale):
    """:func:`patch_lists` for a stream run, which may leave lists stale: where every list whose membership the
    rows' bit changes (``old_bits`` -> ``bits``) change is at least ``maxdeg`` long -- the search never scans such
    a list (:func:`la_gpm.dynamic.cpu.list_cheaper`: a list is scanned only when shorter than a parent row) --
    the lists are left as they are and marked stale (bit u of the returned mask); otherwise patched (a stale list
    stays stale).  Returns (ptr, idx, stale).  :func:`usable_lists` keeps the rule as ``maxdeg`` grows; the run
    rebuilds its stale lists at its end (wordnet's label-0 lists hold 140,000 entries a query, copied twice a
    batch to keep them exact though no row is that long)."""
    changed = np.uint32(0)
    for t in range(rows.shape[0]):
        changed |= old_bits[t] ^ bits[t]
    if changed == 0:
        return ptr, idx, stale
    for u in range(k):
        if (changed >> np.uint32(u)) & np.uint32(1) and ptr[u + 1] - ptr[u] < maxdeg:
            p, i = patch_lists(ptr, idx, rows, bits, k)
            return p, i, stale
    return ptr, idx, stale | changed


@nb.njit(cache=True, _nrt=False)
def stale_usable(ptr, stale, maxdeg, k):
    """Whether every stale list (a bit of ``stale`` per query vertex) is at least ``maxdeg`` long, so that a search
    may read the lists as they are (:func:`usable_lists` has nothing to do).  No reference counting: the per-update
    path asks it before each search of a stream run with long stale lists (yeast tree4: 126 searches, about 20
    reference counts each when it called usable_lists to learn this)."""
    for u in range(k):
        if (stale >> np.uint32(u)) & np.uint32(1) and ptr[u + 1] - ptr[u] < maxdeg:
            return False
    return True


@nb.njit(cache=True)
def usable_lists(ptr, idx, stale, maxdeg, ct, k):
    """The lists a search may read (see :func:`lazy_patch`): as they are while every stale list is at least
    ``maxdeg`` long (:func:`stale_usable`), else rebuilt from the bits ``ct`` (O(n k); the stale mask cleared).
    Returns (ptr, idx, stale)."""
    if stale == 0 or stale_usable(ptr, stale, maxdeg, k):
        return ptr, idx, stale
    p, i = _candidate_lists(ct, k)
    return p, i, np.uint32(0)


@nb.njit(cache=True, _nrt=False)
def add_pair(deg, N, vcol, x, y, sign, on):
    """deg += sign at x and y and, with label counts on, N[x, column of y's label] and N[y, column of x's label]
    += sign."""
    deg[x] += sign
    deg[y] += sign
    if on:
        c = vcol[y]
        if c >= 0:
            N[x, c] += sign
        c = vcol[x]
        if c >= 0:
            N[y, c] += sign


@nb.njit(cache=True, _nrt=False)
def add_pairs(deg, N, vcol, pairs, sign, on):
    """:func:`add_pair` for every pair."""
    for t in range(pairs.shape[0]):
        add_pair(deg, N, vcol, pairs[t, 0], pairs[t, 1], sign, on)


@nb.njit(cache=True, _nrt=False)
def swap_rows(rows, N, deg, vlab, labeled, qlab, qdeg, qdem, ct, saved):
    """``saved`` = the bits of ``rows`` before, then their bits recomputed (serial :func:`_ct_rows_impl`);
    whether any changed."""
    for t in range(rows.shape[0]):
        saved[t] = ct[rows[t]]
    _ct_rows_few(rows, N, deg, vlab, labeled, qlab, qdeg, qdem, ct)
    for t in range(rows.shape[0]):
        if ct[rows[t]] != saved[t]:
            return True
    return False


class Candidates:
    """One query's candidates on one batch's union: the table ``ct`` (bit u of ``ct[v]``: v may play
    query vertex u) and, per query vertex, the sorted list of its candidates (``ptr``/``idx``, CSR over
    query vertices): a level whose list is shorter than its parents' rows scans the list instead."""

    __slots__ = ("ct", "k", "_lists", "N", "qcol", "__weakref__")

    def __init__(self, ct: np.ndarray, k: int, lists=None, N=None, qcol=None):
        self.ct = ct
        self.k = k
        self._lists = lists       # None: built from the bits at the first read (a stream run's end leaves them so)
        # the label counts the bits come from and the column of each query vertex's label (NLFState.open's: the
        # search counts leaf levels from them, cpu._leaf); None: not known here
        self.N = N
        self.qcol = qcol

    def _built(self):
        if self._lists is None:
            # from the bits as they are then: every change to ``ct`` after this object was made either reads the
            # lists first (the lane) or patches them afterwards from the new bits (NLFState._lists), and
            # patch_lists is idempotent given the final bits, so the lists are those of the bits either way
            self._lists = _candidate_lists(self.ct, self.k)
        return self._lists

    @property
    def ptr(self) -> np.ndarray:
        return self._built()[0]

    @property
    def idx(self) -> np.ndarray:
        return self._built()[1]

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.ptr)


class _Query:
    __slots__ = ("qlab", "qdeg", "qdem", "qcol", "labeled", "k")

    def __init__(self, P, columns, graph_labeled):
        self.k = P.k
        self.labeled = P.vertex_labels is not None and graph_labeled
        self.qlab = np.array(P.vertex_labels if self.labeled else [0] * P.k, dtype=np.int64)
        self.qdeg = np.array(P.degrees, dtype=np.int64)
        self.qdem = query_label_table(P, columns) if self.labeled else np.zeros((P.k, 1), np.int32)
        # the column of N holding each query vertex's label (-1: unlabelled): cpu._leaf counts from it
        self.qcol = np.array([columns[int(x)] for x in self.qlab] if self.labeled else [-1] * P.k, dtype=np.int64)


class TablesOpened:
    """What :meth:`NLFState.open` changed, for :meth:`NLFState.revert` / :meth:`NLFState.commit`."""
    __slots__ = ("rows", "saved", "n_before", "src", "dst", "cands")

    def __init__(self, rows, saved, n_before, src, dst, cands):
        self.rows, self.saved, self.n_before, self.src, self.dst, self.cands = rows, saved, n_before, src, dst, cands


class NLFState:
    """Neighbour-label counts N, degrees and one candidate table (and its candidate lists) per query, for
    one graph state, changed in place by each batch: O(batch) work, not O(n), except the lists of a query
    vertex whose candidates change (one copy of that list).

    A batch is :meth:`open` ed (the tables become those of the union graph), then :meth:`revert` ed or
    :meth:`commit` ted (the tables become those of the graph after it)."""

    def __init__(self, ptr, idx, vlab, queries, relevance=None):
        """``ptr`` / ``idx``: the graph.  ``relevance`` (a whole-graph ``DynamicGraph`` with labelled queries,
        :func:`.views.relevance_of`): the tables count the graph's relevant edges only (:meth:`.updates.Relevance.arcs`)
        and :meth:`open` / :meth:`commit` a batch's relevant pairs only, so that they are the query views' tables:
        degrees over the edges some query can use (a valid and tighter filter: a match uses no other edge) and label
        counts exact on every label pair a query has (the only ones a test or a leaf count reads).  An update no
        query can use then changes no table (session 30)."""
        self.rel = relevance
        if relevance is not None:
            ptr, idx, _ = relevance.arcs(ptr, idx)
        labels = sorted({int(x) for P in queries if P.vertex_labels is not None for x in P.vertex_labels})
        self.columns = {lab: c for c, lab in enumerate(labels)}
        self.L = max(len(labels), 1)
        self.n = len(ptr) - 1
        # writable int64 (a graph's labels are read-only; the store's copy is taken as it is): numba builds a kernel
        # apart for a read-only array
        if vlab is not None and not (vlab.dtype == np.int64 and vlab.flags.writeable):
            vlab = np.array(vlab, dtype=np.int64)
        self.vlab = vlab
        self._on = vlab is not None and bool(labels)   # label counts kept?
        self.deg = np.diff(ptr).astype(np.int64)
        self.vcol = self._vcol(vlab) if self._on else np.full(1, -1, np.int64)
        self.N = _label_counts(ptr, idx, self.vcol, self.L) if self._on else np.zeros((self.n, 1), np.int32)
        self.q = [_Query(P, self.columns, vlab is not None) for P in queries]
        rows = np.arange(self.n, dtype=np.int64)
        self._ct = []
        for q in self.q:
            ct = np.zeros(self.n, dtype=np.uint32)
            _ct_rows(rows, self.N, self.deg, self._vl(vlab), q.labeled, q.qlab, q.qdeg, q.qdem, ct)
            self._ct.append(ct)
        self.cand = [Candidates(ct, q.k) for ct, q in zip(self._ct, self.q)]

    @property
    def ct(self) -> list:
        """The candidate table of each query (bit u of ``ct[v]``: v may play query vertex u)."""
        return [c[:self.n] for c in self._ct]

    @staticmethod
    def _vl(vlab):
        return vlab if vlab is not None else np.zeros(1, np.int64)

    def _vcol(self, vlab):
        keys = np.array(sorted(self.columns), dtype=np.int64)
        pos = np.minimum(np.searchsorted(keys, vlab), len(keys) - 1)
        return np.where(keys[pos] == vlab, pos, -1).astype(np.int64)

    def _ensure(self, n_after, vlab_after):
        """Rows for the vertices a batch adds (no neighbours yet)."""
        if n_after <= self.n:
            return
        self.deg = grow(self.deg, n_after)
        self.N = grow(self.N, n_after)
        self._ct = [grow(c, n_after) for c in self._ct]
        self.deg[self.n:n_after] = 0
        self.N[self.n:n_after] = 0
        if self._on:
            self.vcol = grow(self.vcol, n_after)
            self.vcol[self.n:n_after] = self._vcol(vlab_after[self.n:n_after])

    def _tables(self, rows, vlab, saved):
        """Recompute the bits of ``rows`` of every query's table, the old ones into ``saved`` (one array per
        query); which tables changed."""
        vl = self._vl(vlab)
        par = rows.shape[0] * max(q.k for q in self.q) >= config.parallel_min
        changed = []
        for q, ct, old in zip(self.q, self._ct, saved):
            if par:
                old[:] = ct[rows]
                _ct_rows_par(rows, self.N, self.deg, vl, q.labeled, q.qlab, q.qdeg, q.qdem, ct)
                changed.append(not np.array_equal(ct[rows], old))
            else:
                changed.append(swap_rows(rows, self.N, self.deg, vl, q.labeled, q.qlab, q.qdeg, q.qdem, ct, old))
        return changed

    def _lists(self, base, rows, changed, n):
        """Candidates of each query on the current tables (rows[:n]), the lists patched where bits changed."""
        out = []
        for q, ct, ch, cand in zip(self.q, self._ct, changed, base):
            view = ct[:n]
            if not ch:
                lists = (cand.ptr, cand.idx)
            else:
                lists = patch_lists(cand.ptr, cand.idx, rows, view[rows], q.k)
            out.append(Candidates(view, q.k, lists, self.N, q.qcol))
        return out

    def open(self, batch, vlab_after, rows) -> TablesOpened:
        """The tables of the union graph (before + inserted edges): only the rows of the inserted edges'
        endpoints and of new vertices change; ``rows`` (sorted, the store's touched vertices: those and the
        deleted edges' endpoints, whose bits stay) are recomputed. Returns one :class:`Candidates` per query."""
        n0 = self.n
        self._ensure(batch.n_after, vlab_after)
        src = self._relevant(batch.insert)
        add_pairs(self.deg, self.N, self.vcol, src, 1, self._on)
        saved = [np.empty(rows.shape[0], dtype=np.uint32) for _ in self.q]
        changed = self._tables(rows, vlab_after, saved)
        self.n = batch.n_after
        cands = self._lists(self.cand, rows, changed, batch.n_after)
        return TablesOpened(rows, saved, n0, src, None, cands)

    def _relevant(self, pairs):
        """The pairs the tables count: all of them, or with a relevance table the relevant ones."""
        if self.rel is None or pairs.shape[0] == 0:
            return pairs
        code = self.rel.code
        keep, bad = relevant_rows(np.ascontiguousarray(pairs, dtype=np.int64), code, code.shape[0], self.rel.table)
        if bad:
            raise RuntimeError("NLFState: a pair's vertex has no relevance class (a bug, please report)")
        return pairs if keep.shape[0] == pairs.shape[0] else pairs[keep]

    def revert(self, o: TablesOpened) -> None:
        """Back to the graph before the batch."""
        add_pairs(self.deg, self.N, self.vcol, o.src, -1, self._on)
        for ct, old in zip(self._ct, o.saved):
            ct[o.rows] = old
        self.n = o.n_before

    def commit(self, o: TablesOpened, batch, vlab_after) -> None:
        """Move to the graph after the batch (its deleted edges removed from the union's counts; their
        endpoints are among ``o.rows``)."""
        add_pairs(self.deg, self.N, self.vcol, self._relevant(batch.delete), -1, self._on)
        rows = o.rows
        union = [np.empty(rows.shape[0], dtype=np.uint32) for _ in self.q]
        self._tables(rows, vlab_after, union)
        # a list changes where a bit after the batch differs from the bit before it (saved by open)
        changed = [not np.array_equal(ct[rows], before) for ct, before in zip(self._ct, o.saved)]
        self.vlab = vlab_after
        self.cand = self._lists(self.cand, rows, changed, batch.n_after)


# patch_lists compiles in primitives.sorted_ops: its cached build is dropped when that file changes
from ..primitives import sorted_ops as _sorted_ops_module  # noqa: E402

flush_when_changed(globals(), _sorted_ops_module)
