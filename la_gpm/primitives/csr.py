"""numba kernels that build and transform CSR graphs (no library does these in one pass)."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(parallel=True, cache=True)
def _bucket_keys(src, dst, shift, nbuckets, bits, nchunks):
    """Scatter arc keys ``(u << bits) | v`` into coarse row buckets (a parallel counting sort: each
    input chunk counts, then scatters into its own slice of every bucket)."""
    m = src.shape[0]
    step = (m + nchunks - 1) // nchunks
    counts = np.zeros((nchunks, nbuckets), dtype=np.int64)
    for c in nb.prange(nchunks):
        for i in range(c * step, min(m, (c + 1) * step)):
            counts[c, src[i] >> shift] += 1
    bptr = np.zeros(nbuckets + 1, dtype=np.int64)
    pos = np.empty((nchunks, nbuckets), dtype=np.int64)
    run = 0
    for b in range(nbuckets):
        bptr[b] = run
        for c in range(nchunks):
            pos[c, b] = run
            run += counts[c, b]
    bptr[nbuckets] = run
    keys = np.empty(m, dtype=np.int64)
    for c in nb.prange(nchunks):
        for i in range(c * step, min(m, (c + 1) * step)):
            b = src[i] >> shift
            keys[pos[c, b]] = (src[i] << bits) | dst[i]
            pos[c, b] += 1
    return bptr, keys


@nb.njit(parallel=True, cache=True)
def _sort_buckets(keys, bptr):
    for b in nb.prange(bptr.shape[0] - 1):
        keys[bptr[b]:bptr[b + 1]].sort()


@nb.njit(parallel=True, cache=True)
def _keys_to_csr(keys, bptr, n, bits, cols):
    """Drop duplicate keys and split them into (row, column); buckets are row ranges, so each is
    handled by one thread: count distinct keys, prefix sums, then write columns and row degrees."""
    mask = (np.int64(1) << bits) - 1
    nbk = bptr.shape[0] - 1
    uniq = np.zeros(nbk + 1, dtype=np.int64)
    for b in nb.prange(nbk):
        c = 0
        prev = -1
        for i in range(bptr[b], bptr[b + 1]):
            if keys[i] != prev:
                c += 1
                prev = keys[i]
        uniq[b + 1] = c
    for b in range(nbk):
        uniq[b + 1] += uniq[b]
    deg = np.zeros(n + 1, dtype=np.int64)
    for b in nb.prange(nbk):
        k = uniq[b]
        prev = -1
        for i in range(bptr[b], bptr[b + 1]):
            key = keys[i]
            if key == prev:
                continue
            prev = key
            cols[k] = key & mask
            deg[(key >> bits) + 1] += 1  # rows of one bucket belong to this thread alone
            k += 1
    return np.cumsum(deg), uniq[nbk]


def build_csr(src: np.ndarray, dst: np.ndarray, n: int, with_perm: bool = False):
    """CSR with sorted, de-duplicated rows from arc lists (self-loops are not touched here).

    Keys ``(u << bits) | v`` are scattered into coarse row buckets, each bucket is
    sorted in parallel and duplicates are dropped in one pass.  With ``with_perm``
    (needed to carry edge labels) a stable argsort is used instead and ``perm[j]``
    is the input arc that produced CSR entry ``j`` (the first of duplicates).
    """
    idx_dtype = np.int32 if n < 2**31 - 1 else np.int64
    bits = max(1, int(n - 1).bit_length())
    if bits * 2 > 62:
        raise OverflowError("graphs with more than 2**31 vertices are not supported")
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    if with_perm:
        keys = (src << bits) | dst
        perm = np.argsort(keys, kind="stable")
        skeys = keys[perm]
        first = np.ones(skeys.shape[0], dtype=bool)
        first[1:] = skeys[1:] != skeys[:-1]
        skeys = skeys[first]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(skeys >> bits, minlength=n), out=indptr[1:])
        return indptr, (skeys & ((1 << bits) - 1)).astype(idx_dtype), perm[first]
    shift = max(0, bits - 12)
    nbuckets = (max(n - 1, 0) >> shift) + 1
    nchunks = int(max(1, min(4 * nb.get_num_threads(), src.shape[0] // 65536)))
    bptr, keys = _bucket_keys(src, dst, shift, nbuckets, bits, nchunks)
    _sort_buckets(keys, bptr)
    cols = np.empty(keys.shape[0], dtype=idx_dtype)
    indptr, k = _keys_to_csr(keys, bptr, n, bits, cols)
    return indptr, cols[:k].copy(), None


@nb.njit(parallel=True, cache=True)
def _filter_rows(indptr, indices, rank, upper):
    """Keep the arcs u->v with rank[v] > rank[u] (upper) or < (not upper); rows stay sorted."""
    n = indptr.shape[0] - 1
    cnt = np.zeros(n + 1, dtype=np.int64)
    for u in nb.prange(n):
        c = 0
        ru = rank[u]
        for j in range(indptr[u], indptr[u + 1]):
            rv = rank[indices[j]]
            if (rv > ru) == upper:
                c += 1
        cnt[u + 1] = c
    ptr = np.cumsum(cnt)
    out = np.empty(ptr[-1], dtype=indices.dtype)
    for u in nb.prange(n):
        p = ptr[u]
        ru = rank[u]
        for j in range(indptr[u], indptr[u + 1]):
            rv = rank[indices[j]]
            if (rv > ru) == upper:
                out[p] = indices[j]
                p += 1
    return ptr, out


def filter_by_rank(indptr, indices, rank, upper=True):
    return _filter_rows(indptr, indices, np.ascontiguousarray(rank, dtype=np.int64), upper)


@nb.njit(parallel=True, cache=True)
def _relabel_rows(indptr, indices, order, rank, out_ptr, out_idx, sort):
    n = indptr.shape[0] - 1
    for r in nb.prange(n):
        u = order[r]
        a = indptr[u]
        p = out_ptr[r]
        for j in range(indptr[u + 1] - a):
            out_idx[p + j] = rank[indices[a + j]]
        if sort:
            out_idx[p:p + indptr[u + 1] - a].sort()


@nb.njit(parallel=True, cache=True)
def _ranked_upper_rows(indptr, indices, order, rank):
    n = indptr.shape[0] - 1
    ptr = np.zeros(n + 1, dtype=np.int64)
    for r in nb.prange(n):
        u = order[r]
        c = 0
        for j in range(indptr[u], indptr[u + 1]):
            if rank[indices[j]] > r:
                c += 1
        ptr[r + 1] = c
    for r in range(n):
        ptr[r + 1] += ptr[r]
    out = np.empty(ptr[n], dtype=indices.dtype)
    for r in nb.prange(n):
        u = order[r]
        lo = ptr[r]
        p = lo
        for j in range(indptr[u], indptr[u + 1]):
            x = rank[indices[j]]
            if x > r:
                if p - lo <= 32:          # short rows (most of them): insertion sort as the entries come
                    q = p
                    while q > lo and out[q - 1] > x:
                        out[q] = out[q - 1]
                        q -= 1
                    out[q] = x
                else:
                    out[p] = x
                p += 1
        if p - lo > 33:
            out[lo:p].sort()
    return ptr, out


def ranked_upper(indptr, indices, rank):
    """``relabel(*filter_by_rank(indptr, indices, rank), rank)`` in one pass: the arcs u -> v with
    rank[v] > rank[u], vertex v renamed rank[v], rows sorted (``rank`` a permutation of 0..n-1)."""
    n = indptr.shape[0] - 1
    order = np.empty(n, dtype=np.int64)
    order[rank] = np.arange(n)
    return _ranked_upper_rows(indptr, indices, order, np.ascontiguousarray(rank, dtype=indices.dtype))


def relabel(indptr, indices, rank, sort: bool = True):
    """The CSR with vertex v renamed rank[v] (rows moved, entries mapped and re-sorted; ``sort=False``: each row
    keeps its own order, so a sum over a row or a walk along one is the original's)."""
    n = indptr.shape[0] - 1
    order = np.empty(n, dtype=np.int64)
    order[rank] = np.arange(n)
    deg = np.diff(indptr)[order]
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=out_ptr[1:])
    out_idx = np.empty(indices.shape[0], dtype=indices.dtype)
    _relabel_rows(indptr, indices, order, np.ascontiguousarray(rank, dtype=indices.dtype), out_ptr, out_idx,
                  bool(sort))
    return out_ptr, out_idx
