"""numba kernels of color-coding tree counting: colorings, leaf tables, CSR SpMM, fused eMA.

Every count table is a row-major ``(nb·n, C)`` array: ``nb`` colorings of the same graph are
stacked as ``nb`` disjoint copies of it (row ``g·n + v`` is vertex ``v`` of copy ``g``), so the
kernels batch colorings without a batch dimension.  Colors are the counter-based hash
``color(v) = hi32(splitmix64(s_g + v)) · k >> 32`` of a per-coloring 64-bit key ``s_g``; the CUDA
kernels (``la_gpm/color_coding/cc_common.cuh``) compute the same function, so a seed gives the same colorings
on CPU and GPU.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..primitives.rng import splitmix64 as _splitmix64

_M64 = (1 << 64) - 1


def splitmix64_py(x: int) -> int:
    """Reference splitmix64 on Python ints (host side: per-coloring keys)."""
    x = (x + 0x9E3779B97F4A7C15) & _M64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def coloring_keys(seed: int, first: int, count: int) -> np.ndarray:
    """The 64-bit keys of colorings ``first .. first+count-1`` of ``seed`` (uint64 array)."""
    return np.array([splitmix64_py((seed ^ ((j * 0xD1B54A32D192ED03) & _M64)) & _M64)
                     for j in range(first, first + count)], dtype=np.uint64)




@nb.njit(parallel=True, cache=True)
def colors_from_keys(keys, n, k):
    """int8 colors of ``len(keys)·n`` rows: row g·n+v gets hi32(splitmix64(keys[g] + v))·k >> 32."""
    nbt = keys.shape[0]
    out = np.empty(nbt * n, dtype=np.int8)
    kk = np.uint64(k)
    for r in nb.prange(nbt * n):
        g = r // n
        v = r - g * n
        h = _splitmix64(keys[g] + np.uint64(v))
        out[r] = np.int8(((h >> np.uint64(32)) * kk) >> np.uint64(32))
    return out


@nb.njit(parallel=True, cache=True)
def leaf_table(colors, k, mask, use_mask, out):
    """One-hot ``out[r, colors[r]] = 1`` (times ``mask[r % n]`` when ``use_mask``)."""
    rows = colors.shape[0]
    n = mask.shape[0]
    for r in nb.prange(rows):
        for c in range(k):
            out[r, c] = 0
        if not use_mask or mask[r % n]:
            out[r, colors[r]] = 1
    return out


@nb.njit(parallel=True, cache=True)
def spmm_rows(indptr, indices, n, X, out):
    """``out = blockdiag(A, …, A) · X`` for row-major X of ``nb·n`` rows: a row gather per output row."""
    rows = X.shape[0]
    C = X.shape[1]
    for r in nb.prange(rows):
        g = r // n
        v = r - g * n
        off = g * n
        for c in range(C):
            out[r, c] = 0
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e] + off
            for c in range(C):
                out[r, c] += X[u, c]
    return out


@nb.njit(parallel=True, cache=True)
def leaf_rooted(rows, n, mask, use_mask, out):
    """Rooted (compressed) leaf table: one column, 1 (or the label match) per row."""
    for r in nb.prange(rows):
        if use_mask:
            out[r, 0] = 1 if mask[r % n] else 0
        else:
            out[r, 0] = 1
    return out


@nb.njit(parallel=True, cache=True)
def spmm_rooted(indptr, indices, n, colors, Qu, Qx, Mp, out, r0):
    """SpMM over rooted tables: for each neighbour j of i, ``out[i - r0, Qu[c_i, c_j, t]] += Mp[j, Qx[c_i, c_j, t]]``
    for the rows i = r0 .. r0 + len(out) - 1 (r0 = 0: all rows; else a row block of one coloring).

    ``Mp`` holds, per row j, only the colour sets that contain j's colour (C(k-1, p-1) columns);
    ``out`` holds, per row i, only the p-sets that avoid i's colour (C(k-1, p) columns); the pairs
    (Qu, Qx) list the C(k-2, p-1) sets that contain c_j and avoid c_i.
    """
    rows = out.shape[0]
    W = out.shape[1]
    T = Qu.shape[2]
    for b in nb.prange(rows):
        r = b + r0
        g = r // n
        v = r - g * n
        off = g * n
        ci = colors[r]
        for u in range(W):
            out[b, u] = 0
        for e in range(indptr[v], indptr[v + 1]):
            jr = indices[e] + off
            cj = colors[jr]
            if cj == ci:
                continue
            for t in range(T):
                out[b, Qu[ci, cj, t]] += Mp[jr, Qx[ci, cj, t]]
    return out


@nb.njit(parallel=True, cache=True)
def ema_rows(Ma, B, sa, sp, ma, mb, out, rowmax):
    """Fused eMA: ``out[i, r] = Σ_j (Ma[i, sa[r, j]]·ma) · (B[i, sp[r, j]]·mb)``; ``rowmax[i]`` = max of row i.

    ``ma``, ``mb`` are powers of two that bring each input to at most 1, so no product overflows.
    """
    rows = Ma.shape[0]
    Cs = sa.shape[0]
    ns = sa.shape[1]
    for i in nb.prange(rows):
        m = out.dtype.type(0)
        for r in range(Cs):
            acc = out.dtype.type(0)
            for j in range(ns):
                acc += (Ma[i, sa[r, j]] * ma) * (B[i, sp[r, j]] * mb)
            out[i, r] = acc
            if acc > m:
                m = acc
        rowmax[i] = m
    return out


@nb.njit(parallel=True, cache=True)
def block_sums(col, n, nbt):
    """Σ over each copy's n rows of a one-column float table, in float64 (per-coloring totals)."""
    out = np.zeros(nbt, dtype=np.float64)
    for g in nb.prange(nbt):
        s = 0.0
        for v in range(g * n, (g + 1) * n):
            s += np.float64(col[v])
        out[g] = s
    return out


@nb.njit(cache=True)
def brute_colorful_embeddings(indptr, indices, colors, order, parent, tlabels, glabels, use_labels):
    """Colorful injective maps of a tree into the graph by depth-first search (oracle; small inputs only).

    ``order`` lists template vertices so each one's ``parent`` precedes it (parent[order[0]] = -1).
    """
    k = order.shape[0]
    n = indptr.shape[0] - 1
    img = np.full(k, -1, dtype=np.int64)
    pos = np.zeros(k, dtype=np.int64)
    used_colors = np.zeros(64, dtype=np.int64)
    total = 0
    for v0 in range(n):
        if use_labels and glabels[v0] != tlabels[order[0]]:
            continue
        img[order[0]] = v0
        used_colors[colors[v0]] += 1
        if k == 1:
            total += 1
            used_colors[colors[v0]] -= 1
            continue
        d = 1
        pos[1] = indptr[img[parent[order[1]]]]
        while d >= 1:
            t = order[d]
            p = img[parent[t]]
            if img[t] >= 0:
                used_colors[colors[img[t]]] -= 1
                img[t] = -1
            placed = False
            while pos[d] < indptr[p + 1]:
                w = indices[pos[d]]
                pos[d] += 1
                if used_colors[colors[w]] > 0:
                    continue
                if use_labels and glabels[w] != tlabels[t]:
                    continue
                img[t] = w
                used_colors[colors[w]] += 1
                placed = True
                break
            if not placed:
                d -= 1
                continue
            if d == k - 1:
                total += 1
            else:
                d += 1
                pos[d] = indptr[img[parent[order[d]]]]
        img[order[0]] = -1
        used_colors[colors[v0]] -= 1
    return total


@nb.njit(cache=True)
def brute_embeddings(indptr, indices, order, parent):
    """Injective maps of a tree into the graph (exact non-induced embeddings), DFS with a used mark."""
    k = order.shape[0]
    n = indptr.shape[0] - 1
    img = np.full(k, -1, dtype=np.int64)
    pos = np.zeros(k, dtype=np.int64)
    used = np.zeros(n, dtype=np.bool_)
    total = 0
    for v0 in range(n):
        img[order[0]] = v0
        used[v0] = True
        if k == 1:
            total += 1
            used[v0] = False
            continue
        d = 1
        pos[1] = indptr[img[parent[order[1]]]]
        while d >= 1:
            t = order[d]
            p = img[parent[t]]
            if img[t] >= 0:
                used[img[t]] = False
                img[t] = -1
            if d == k - 1:  # last vertex: count the free neighbours at once
                c = 0
                for e in range(indptr[p], indptr[p + 1]):
                    if not used[indices[e]]:
                        c += 1
                total += c
                d -= 1
                continue
            placed = False
            while pos[d] < indptr[p + 1]:
                w = indices[pos[d]]
                pos[d] += 1
                if used[w]:
                    continue
                img[t] = w
                used[w] = True
                placed = True
                break
            if not placed:
                d -= 1
                continue
            d += 1
            pos[d] = indptr[img[parent[order[d]]]]
        img[order[0]] = -1
        used[v0] = False
    return total
