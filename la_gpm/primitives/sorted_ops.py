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


@nb.njit(inline="always")
def gallop(s, slo, shi, t, tlo, thi, out):
    """out[0:w] = s[slo:shi] ∩ t[tlo:thi], binary-searching each element of the short ``s`` in ``t``.

    Writes never overtake reads when ``out`` is either input starting at 0.
    """
    w = 0
    j = tlo
    for i in range(slo, shi):
        x = s[i]
        j = lower_bound(t, j, thi, x)
        if j == thi:
            break
        if t[j] == x:
            out[w] = x
            w += 1
            j += 1
    return w


@nb.njit(cache=True, _nrt=False)
def intersect(a, alo, ahi, b, blo, bhi, out):
    """out[0:w] = a[alo:ahi] ∩ b[blo:bhi] (sorted inputs); ``a`` may be ``out`` itself."""
    na = ahi - alo
    nbb = bhi - blo
    w = 0
    if na == 0 or nbb == 0:
        return 0
    if na * 24 < nbb:  # gallop the short list through the long one
        return gallop(a, alo, ahi, b, blo, bhi, out)
    if nbb * 24 < na:
        return gallop(b, blo, bhi, a, alo, ahi, out)
    else:
        i = alo
        j = blo
        while i < ahi and j < bhi:
            x = a[i]
            y = b[j]
            if x == y:
                out[w] = x
                w += 1
                i += 1
                j += 1
            elif x < y:
                i += 1
            else:
                j += 1
    return w


@nb.njit(cache=True, _nrt=False)
def difference(a, alo, ahi, b, blo, bhi, out):
    """out[0:w] = a[alo:ahi] minus b[blo:bhi]; ``a`` may be ``out``."""
    w = 0
    j = blo
    if (ahi - alo) * 24 < (bhi - blo):
        for i in range(alo, ahi):
            x = a[i]
            j = lower_bound(b, j, bhi, x)
            if j < bhi and b[j] == x:
                j += 1
                continue
            out[w] = x
            w += 1
        return w
    for i in range(alo, ahi):
        x = a[i]
        while j < bhi and b[j] < x:
            j += 1
        if j < bhi and b[j] == x:
            j += 1
            continue
        out[w] = x
        w += 1
    return w


@nb.njit(inline="always")
def intersect_count(a, alo, ahi, b, blo, bhi):
    c = 0
    if (ahi - alo) * 24 < (bhi - blo):
        j = blo
        for i in range(alo, ahi):
            j = lower_bound(b, j, bhi, a[i])
            if j == bhi:
                break
            if b[j] == a[i]:
                c += 1
                j += 1
        return c
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
