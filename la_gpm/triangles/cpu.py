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
def _count(ptr, idx, bounds, per_vertex):
    """Triangles found by each chunk; with ``per_vertex`` of shape (chunks, n) also per vertex.

    Per-vertex rows are per chunk (no write races); the caller sums them.
    """
    n = ptr.shape[0] - 1
    nchunks = bounds.shape[0] - 1
    want_pv = per_vertex.shape[1] > 0
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
                    w = idx[t]
                    if mark[w] == u:
                        s += 1
                        if want_pv:
                            per_vertex[c, u] += 1
                            per_vertex[c, v] += 1
                            per_vertex[c, w] += 1
        res[c] = s
    return res


def triangles_total(ptr, idx) -> int:
    nchunks = max(1, min(256, (ptr.shape[0] - 1) // 256))
    return int(_count(ptr, idx, balanced_chunks(ptr, idx, nchunks), np.zeros((1, 0), dtype=np.int64)).sum())


def triangles_per_vertex(ptr, idx) -> np.ndarray:
    nchunks = max(1, min(nb.get_num_threads(), (ptr.shape[0] - 1) // 256))
    bounds = balanced_chunks(ptr, idx, nchunks)
    out = np.zeros((bounds.shape[0] - 1, ptr.shape[0] - 1), dtype=np.int64)
    _count(ptr, idx, bounds, out)
    return out.sum(axis=0)
