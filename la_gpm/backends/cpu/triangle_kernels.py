"""numba triangle kernels over the degree-ordered DAG.

For each vertex u the out-list N+(u) is stamped into a per-chunk int32 array
(``mark[w] = u``, never cleared), then every w in N+(v), v in N+(u), is tested
against the stamp: one random read per wedge end, no merge of two lists.  On
R-MAT 18 this is 1.7x faster than a merge intersection, on wiki-Vote 3.5x
(benchmarks/results).  Chunks are cost-balanced by Σ_{v in N+(u)} d+(v).
"""

from __future__ import annotations

import numba as nb
import numpy as np


def balanced_chunks(ptr, idx, nchunks: int) -> np.ndarray:
    """Vertex boundaries (nchunks + 1) splitting the wedge work Σ_{v∈N+(u)} d+(v) evenly."""
    n = ptr.shape[0] - 1
    dplus = np.diff(ptr)
    if n == 0:
        return np.zeros(2, dtype=np.int64)
    src = np.repeat(np.arange(n), dplus)
    cost = np.bincount(src, weights=dplus[idx], minlength=n) + dplus + 1
    cum = np.cumsum(cost)
    targets = cum[-1] * np.arange(1, nchunks) / nchunks
    b = np.searchsorted(cum, targets)
    return np.unique(np.concatenate([[0], b, [n]])).astype(np.int64)


@nb.njit(parallel=True, cache=True)
def _total(ptr, idx, bounds):
    n = ptr.shape[0] - 1
    nchunks = bounds.shape[0] - 1
    res = np.zeros(nchunks, dtype=np.int64)  # per-chunk sums: no parfor reduction variable
    for c in nb.prange(nchunks):
        mark = np.full(n, -1, dtype=np.int32)
        s = 0
        for u in range(bounds[c], bounds[c + 1]):
            a = ptr[u]
            b = ptr[u + 1]
            if b - a < 2:
                continue
            for j in range(a, b):
                mark[idx[j]] = u
            for j in range(a, b):
                v = idx[j]
                for t in range(ptr[v], ptr[v + 1]):
                    if mark[idx[t]] == u:
                        s += 1
        res[c] = s
    return res.sum()


@nb.njit(parallel=True, cache=True)
def _per_vertex(ptr, idx, bounds, out):
    """out[c, x]: triangles through x found by chunk c (rows summed by the caller)."""
    n = ptr.shape[0] - 1
    nchunks = bounds.shape[0] - 1
    for c in nb.prange(nchunks):
        mark = np.full(n, -1, dtype=np.int32)
        row = out[c]
        for u in range(bounds[c], bounds[c + 1]):
            a = ptr[u]
            b = ptr[u + 1]
            if b - a < 2:
                continue
            for j in range(a, b):
                mark[idx[j]] = u
            for j in range(a, b):
                v = idx[j]
                for t in range(ptr[v], ptr[v + 1]):
                    w = idx[t]
                    if mark[w] == u:
                        row[u] += 1
                        row[v] += 1
                        row[w] += 1


def triangles_total(ptr, idx) -> int:
    nchunks = max(1, min(256, (ptr.shape[0] - 1) // 256))
    return int(_total(ptr, idx, balanced_chunks(ptr, idx, nchunks)))


def triangles_per_vertex(ptr, idx) -> np.ndarray:
    nchunks = max(1, min(nb.get_num_threads(), (ptr.shape[0] - 1) // 256))
    bounds = balanced_chunks(ptr, idx, nchunks)
    out = np.zeros((bounds.shape[0] - 1, ptr.shape[0] - 1), dtype=np.int64)
    _per_vertex(ptr, idx, bounds, out)
    return out.sum(axis=0)
