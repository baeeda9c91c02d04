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
from .query import query_label_table

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


def _ct_rows_impl(rows, N, deg, vlab, labeled, qlab, qdeg, qdem, out):
    k = qdeg.shape[0]
    L = qdem.shape[1]
    for t in nb.prange(rows.shape[0]):
        v = rows[t]
        bits = np.uint32(0)
        for u in range(k):
            if deg[v] < qdeg[u]:
                continue
            if labeled:
                if vlab[v] != qlab[u]:
                    continue
                ok = True
                for c in range(L):
                    if N[v, c] < qdem[u, c]:
                        ok = False
                        break
                if not ok:
                    continue
            bits |= np.uint32(1) << np.uint32(u)
        out[v] = bits


# each pass in two builds: parallel for large inputs, serial (prange as range) below config.parallel_min
_label_counts_par = nb.njit(parallel=True, cache=True)(_label_counts_impl)
_label_counts_ser = nb.njit(cache=True)(_label_counts_impl)
_ct_rows_par = nb.njit(parallel=True, cache=True)(_ct_rows_impl)
_ct_rows_ser = nb.njit(cache=True)(_ct_rows_impl)


def _label_counts(ptr, idx, vcol, L):
    f = _label_counts_par if idx.shape[0] >= config.parallel_min else _label_counts_ser
    return f(ptr, idx, vcol, L)


def _ct_rows(rows, N, deg, vlab, labeled, qlab, qdeg, qdem, out):
    f = _ct_rows_par if rows.shape[0] * qdeg.shape[0] >= config.parallel_min else _ct_rows_ser
    f(rows, N, deg, vlab, labeled, qlab, qdeg, qdem, out)


@nb.njit(cache=True)
def _candidate_lists(ct, k):
    n = ct.shape[0]
    ptr = np.zeros(k + 1, dtype=np.int64)
    for v in range(n):
        b = ct[v]
        for u in range(k):
            if (b >> np.uint32(u)) & np.uint32(1):
                ptr[u + 1] += 1
    for u in range(k):
        ptr[u + 1] += ptr[u]
    idx = np.empty(ptr[k], dtype=np.int32)
    at = ptr[:k].copy()
    for v in range(n):
        b = ct[v]
        for u in range(k):
            if (b >> np.uint32(u)) & np.uint32(1):
                idx[at[u]] = v
                at[u] += 1
    return ptr, idx


class Candidates:
    """One query's candidates on one batch's union: the table ``ct`` (bit u of ``ct[v]``: v may play
    query vertex u) and, per query vertex, the sorted list of its candidates (``ptr``/``idx``, CSR over
    query vertices): a level whose list is shorter than its parents' rows scans the list instead."""

    __slots__ = ("ct", "ptr", "idx", "__weakref__")

    def __init__(self, ct: np.ndarray, k: int):
        self.ct = ct
        self.ptr, self.idx = _candidate_lists(ct, k)

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.ptr)


class _Query:
    __slots__ = ("qlab", "qdeg", "qdem", "labeled")

    def __init__(self, P, columns, graph_labeled):
        self.labeled = P.vertex_labels is not None and graph_labeled
        self.qlab = np.array(P.vertex_labels if self.labeled else [0] * P.k, dtype=np.int64)
        self.qdeg = np.array(P.degrees, dtype=np.int64)
        self.qdem = query_label_table(P, columns) if self.labeled else np.zeros((P.k, 1), np.int32)


class NLFState:
    """Neighbour-label counts N, degrees and one candidate table per query, for one graph state."""

    def __init__(self, ptr, idx, vlab, queries):
        self.vlab = vlab
        labels = sorted({int(x) for P in queries if P.vertex_labels is not None for x in P.vertex_labels})
        self.columns = {lab: c for c, lab in enumerate(labels)}
        self.L = max(len(labels), 1)
        self.deg = np.diff(ptr).astype(np.int64)
        self.vcol = self._vcol(vlab)
        self.N = _label_counts(ptr, idx, self.vcol, self.L) if (vlab is not None and labels) else \
            np.zeros((len(self.deg), 1), np.int32)
        self.q = [_Query(P, self.columns, vlab is not None) for P in queries]
        n = len(self.deg)
        rows = np.arange(n, dtype=np.int64)
        self.ct = []
        for q in self.q:
            ct = np.zeros(n, dtype=np.uint32)
            _ct_rows(rows, self.N, self.deg, self._vl(), q.labeled, q.qlab, q.qdeg, q.qdem, ct)
            self.ct.append(ct)

    def _vl(self):
        return self.vlab if self.vlab is not None else np.zeros(1, np.int64)

    def _vcol(self, vlab):
        if vlab is None or not self.columns:
            return np.full(1 if vlab is None else len(vlab), -1, np.int64)
        keys = np.array(sorted(self.columns), dtype=np.int64)
        pos = np.minimum(np.searchsorted(keys, vlab), len(keys) - 1)
        return np.where(keys[pos] == vlab, pos, -1).astype(np.int64)

    def _grown(self, n_after, vlab_after):
        """Arrays extended by the vertices a batch adds (no neighbours yet)."""
        extra = n_after - len(self.deg)
        deg = np.concatenate([self.deg, np.zeros(extra, np.int64)]) if extra else self.deg.copy()
        N = np.concatenate([self.N, np.zeros((extra, self.N.shape[1]), np.int32)]) if extra else self.N.copy()
        vcol = self._vcol(vlab_after) if extra else self.vcol
        return deg, N, vcol

    def _apply(self, deg, N, vcol, src, dst, sign):
        np.add.at(deg, src, sign)
        if self.vlab is not None and self.columns:
            c = vcol[dst]
            ok = c >= 0
            np.add.at(N, (src[ok], c[ok]), sign)

    def _tables(self, rows, N, deg, vlab_after, n_after):
        out = []
        vl = vlab_after if vlab_after is not None else np.zeros(1, np.int64)
        for q, ct in zip(self.q, self.ct):
            t = np.concatenate([ct, np.zeros(n_after - len(ct), np.uint32)]) if n_after > len(ct) else ct.copy()
            _ct_rows(rows, N, deg, vl, q.labeled, q.qlab, q.qdeg, q.qdem, t)
            out.append(t)
        return out

    @staticmethod
    def _arcs(pairs):
        return (np.concatenate([pairs[:, 0], pairs[:, 1]]).astype(np.int64),
                np.concatenate([pairs[:, 1], pairs[:, 0]]).astype(np.int64))

    def union_tables(self, batch, vlab_after):
        """Candidate tables on the union graph (before + inserted edges), one per query.

        Only the rows of the inserted edges' endpoints and of new vertices are recomputed."""
        deg, N, vcol = self._grown(batch.n_after, vlab_after)
        src, dst = self._arcs(batch.insert)
        self._apply(deg, N, vcol, src, dst, 1)
        rows = np.unique(np.concatenate([src, np.arange(len(self.deg), batch.n_after)]))
        return self._tables(rows, N, deg, vlab_after, batch.n_after)

    def advance(self, batch, vlab_after):
        """Move this state to the graph after ``batch`` (inserted +1, deleted -1 on touched rows)."""
        deg, N, vcol = self._grown(batch.n_after, vlab_after)
        s1, d1 = self._arcs(batch.insert)
        s2, d2 = self._arcs(batch.delete)
        self._apply(deg, N, vcol, s1, d1, 1)
        self._apply(deg, N, vcol, s2, d2, -1)
        rows = np.unique(np.concatenate([s1, s2, np.arange(len(self.deg), batch.n_after)]))
        self.ct = self._tables(rows, N, deg, vlab_after, batch.n_after)
        self.deg, self.N, self.vcol, self.vlab = deg, N, vcol, vlab_after
