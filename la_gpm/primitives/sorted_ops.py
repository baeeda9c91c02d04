"""Binary searches over sorted arrays and CSR rows, shared by every numba kernel."""

from __future__ import annotations

import numba as nb


@nb.njit(inline="always")
def lower_bound(a, lo, hi, x):
    """First position p in [lo, hi) with a[p] >= x (hi when none)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@nb.njit(inline="always")
def upper_bound(a, lo, hi, x):
    """First position p in [lo, hi) with a[p] > x (hi when none)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@nb.njit(inline="always")
def adjacent(indptr, indices, u, v):
    """u ~ v in a CSR graph with sorted rows: binary search in the shorter of the two rows."""
    if indptr[u + 1] - indptr[u] > indptr[v + 1] - indptr[v]:
        u, v = v, u
    hi = indptr[u + 1]
    p = lower_bound(indices, indptr[u], hi, v)
    return p < hi and indices[p] == v
