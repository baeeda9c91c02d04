"""numba triangle kernels over the degree-ordered DAG (merge intersection of sorted lists)."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(inline="always")
def _intersect_count(a, alo, ahi, b, blo, bhi):
    c = 0
    i = alo
    j = blo
    while i < ahi and j < bhi:
        x = a[i]
        y = b[j]
        if x == y:
            c += 1
            i += 1
            j += 1
        elif x < y:
            i += 1
        else:
            j += 1
    return c


@nb.njit(parallel=True, cache=True)
def triangles_total(ptr, idx):
    """Σ_u Σ_{v in N+(u)} |N+(u) ∩ N+(v)| on the oriented DAG: each triangle once."""
    n = ptr.shape[0] - 1
    total = 0
    for u in nb.prange(n):
        s = 0
        for j in range(ptr[u], ptr[u + 1]):
            v = idx[j]
            s += _intersect_count(idx, ptr[u], ptr[u + 1], idx, ptr[v], ptr[v + 1])
        total += s
    return total


@nb.njit(cache=True)
def triangles_per_vertex(ptr, idx):
    """Triangles through every vertex (serial: scatter adds to three vertices)."""
    n = ptr.shape[0] - 1
    out = np.zeros(n, dtype=np.int64)
    for u in range(n):
        for j in range(ptr[u], ptr[u + 1]):
            v = idx[j]
            i1 = ptr[u]
            i2 = ptr[v]
            while i1 < ptr[u + 1] and i2 < ptr[v + 1]:
                x = idx[i1]
                y = idx[i2]
                if x == y:
                    out[u] += 1
                    out[v] += 1
                    out[x] += 1
                    i1 += 1
                    i2 += 1
                elif x < y:
                    i1 += 1
                else:
                    i2 += 1
    return out
