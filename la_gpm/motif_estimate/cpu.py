"""numba kernels of motif-frequency estimation (colorful treelets + sampling, as in Motivo).

All rooted-treelet count tables of one coloring live side by side in one row-major ``(n, W)``
float64 array ``M``: the table of shape s occupies columns ``offM[s] .. offM[s] + C(k, h_s) - 1``
(colour sets of size h_s in colex rank order).  ``B`` holds, the same way, the SpMM products
``A · M_t`` of the shapes t used as a passive (last) child.  ``M[v, offM[s] + r]`` is the number
of colorful *embeddings* of the rooted shape s (a fixed labelled representative) with its root on v
and colour set of rank r; it is |Aut(s)| times the number of rooted copies.

Random numbers are counter-based (splitmix64 of a per-batch key and the sample index), so a seed
gives the same samples whatever the number of threads.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..primitives.rng import splitmix64 as _mix
from ..primitives.sorted_ops import adjacent as _adjacent
from ..primitives.sorted_ops import upper_bound as _upper_bound




@nb.njit(inline="always")
def _uniform(state):
    """(new state, uniform double in [0, 1))."""
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = _mix(state)
    return state, np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(parallel=True, cache=True)
def leaf_fill(colors, M, off):
    """Leaf table: ``M[v, off + colors[v]] = 1`` (the 1-sets {c} have colex rank c)."""
    n = M.shape[0]
    for v in nb.prange(n):
        M[v, off + colors[v]] = 1.0


def spmm_cols(indptr, indices, M, offM, B, offB, C, hub_off, chunk, CSt):
    """``B[v, offB + r] = Σ_{u ~ v} M[u, offM + r]`` for r < C.  A hub (``hub_off[v] >= 0``) sums its
    list in runs of ``chunk`` neighbours and keeps each run's sum in ``CSt[offB + r, hub_off[v] + c]``
    (the sampler skips whole runs with them); B is the sum of the runs.  :func:`spmm_rows` over every row
    (one source for both layouts: the same sums in the same order)."""
    spmm_rows(indptr, indices, M, offM, B, offB, C, hub_off, chunk, CSt, 0, M.shape[0])


def ema_cols(M, offA, B, offB, offS, sa, sp):
    """``M[v, offS + r] = Σ_j M[v, offA + sa[r, j]] · B[v, offB + sp[r, j]]``: :func:`ema_rows` over every row."""
    ema_rows(M, offA, B, offB, offS, sa, sp, 0, M.shape[0])


@nb.njit(inline="always")
def _pick_neighbour(indptr, indices, W, wcol, by_row, col, v, x, hub_off, chunk, CSt):
    """The neighbour u of v where the running sum of u's weight first exceeds x (its weight > 0): ``Pt[col, u]``
    (the full layout's transposed passive column, ``by_row`` False, ``wcol`` = col) or ``M[u, wcol]`` (the chunked
    layout: no transposed copy, ``by_row`` True); hubs first skip whole runs of ``chunk`` neighbours by their sums
    ``CSt[col]`` (``spmm_cols``).  Rounding: the last neighbour of positive weight."""
    lo = indptr[v]
    hi = indptr[v + 1]
    acc = 0.0
    o = hub_off[v]
    if o >= 0:
        nch = (hi - lo + chunk - 1) // chunk
        pick = -1
        base = 0.0
        for c in range(nch):
            w = CSt[col, o + c]
            if w > 0.0:
                pick = c
                base = acc
                if x < acc + w:
                    break
            acc += w
        if pick < 0:
            return -1
        acc = base
        lo = lo + pick * chunk
        hi = min(lo + chunk, hi)
    last = -1
    for e in range(lo, hi):
        w = W[indices[e], wcol] if by_row else W[wcol, indices[e]]
        if w > 0.0:
            last = indices[e]
            acc += w
            if x < acc:
                return indices[e]
    return last


@nb.njit(cache=True)
def _search(cum, x):
    """Smallest i with cum[i] > x (cum non-decreasing, x < cum[-1])."""
    return _upper_bound(cum, 0, cum.shape[0] - 1, x)


@nb.njit(parallel=True, cache=True)
def sample_treelets(indptr, indices, M, B, Pt, offM, offB, size, act, pas, split_off, split_n, split_sa, split_sp,
                    root_cum, root_shape, n, key, first, count, k, verts, edges, shape_out, hub_off, chunk, CSt):
    """Sample ``count`` colorful k-treelet copies uniformly (samples ``first .. first+count-1`` of ``key``).

    ``root_cum`` is the cumulative weight over (top shape t, vertex v) pairs, index t·n + v, of the
    rooted copies ``M[v, offM[root_shape[t]]] / |Aut|``.  Each sample walks the tables backwards: a node
    (shape s, vertex v, colour-set rank r) picks the split j of its colour set in proportion to
    ``M[v, act-part] · B[v, passive part]``, then the passive child's vertex u ~ v in proportion to
    ``M[u, passive part]``, read from ``Pt``: the passive shapes' tables transposed (row ``offB[p] + r``
    holds column r of shape p's table over all vertices), so the scan of a hub's sorted neighbour list
    reads memory in increasing order; a hub (``hub_off[v] >= 0``) first skips whole runs of ``chunk``
    neighbours by their sums ``CSt`` (written by :func:`spmm_cols`), as the GPU sampler does.  Writes the k
    vertices to ``verts[i]`` and the k-1 tree edges to ``edges[i]``.
    """
    total = root_cum[root_cum.shape[0] - 1]
    for i in nb.prange(count):
        state = _mix(key ^ (np.uint64(first + i) * np.uint64(0xD1B54A32D192ED03)))
        state, x = _uniform(state)
        idx = _search(root_cum, x * total)
        t = idx // n
        v0 = idx - t * n
        st_s = np.empty(k, dtype=np.int64)
        st_v = np.empty(k, dtype=np.int64)
        st_r = np.empty(k, dtype=np.int64)
        sp_top = 0
        st_s[0] = root_shape[t]
        st_v[0] = v0
        st_r[0] = 0
        sp_top = 1
        nv = 0
        ne = 0
        shape_out[i] = t
        while sp_top > 0:
            sp_top -= 1
            s = st_s[sp_top]
            v = st_v[sp_top]
            r = st_r[sp_top]
            if size[s] == 1:
                verts[i, nv] = v
                nv += 1
                continue
            a = act[s]
            p = pas[s]
            so = split_off[s]
            ns = split_n[s]
            # the split of the colour set
            tot = 0.0
            for j in range(ns):
                tot += M[v, offM[a] + split_sa[so + r * ns + j]] * B[v, offB[p] + split_sp[so + r * ns + j]]
            state, x = _uniform(state)
            x *= tot
            jj = ns - 1
            acc = 0.0
            for j in range(ns):
                w = M[v, offM[a] + split_sa[so + r * ns + j]] * B[v, offB[p] + split_sp[so + r * ns + j]]
                acc += w
                if x < acc and w > 0.0:
                    jj = j
                    break
            ra = split_sa[so + r * ns + jj]
            rp = split_sp[so + r * ns + jj]
            # the passive child's vertex
            col = offB[p] + rp
            tot2 = B[v, offB[p] + rp]
            state, x = _uniform(state)
            x *= tot2
            u = _pick_neighbour(indptr, indices, Pt, col, False, col, v, x, hub_off, chunk, CSt)
            edges[i, ne, 0] = v
            edges[i, ne, 1] = u
            ne += 1
            st_s[sp_top] = a
            st_v[sp_top] = v
            st_r[sp_top] = ra
            sp_top += 1
            st_s[sp_top] = p
            st_v[sp_top] = u
            st_r[sp_top] = rp
            sp_top += 1


# ============================================================================ the chunked layout (no stored B)
@nb.njit(parallel=True, cache=True)
def spmm_rows(indptr, indices, M, offM, Bc, offB, C, hub_off, chunk, CSt, v0, v1):
    """:func:`spmm_cols` for the rows ``v0 <= v < v1`` only, into the chunk buffer ``Bc[v - v0]`` (same sums
    in the same order; a hub's run sums go to ``CSt`` as there)."""
    for i in nb.prange(v1 - v0):
        v = v0 + i
        for r in range(C):
            Bc[i, offB + r] = 0.0
        o = hub_off[v]
        if o < 0:
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                for r in range(C):
                    Bc[i, offB + r] += M[u, offM + r]
            continue
        c = 0
        hi = indptr[v + 1]
        acc = np.empty(C, dtype=np.float64)
        for start in range(indptr[v], hi, chunk):
            for r in range(C):
                acc[r] = 0.0
            for e in range(start, min(start + chunk, hi)):
                u = indices[e]
                for r in range(C):
                    acc[r] += M[u, offM + r]
            for r in range(C):
                CSt[offB + r, o + c] = acc[r]
                Bc[i, offB + r] += acc[r]
            c += 1


@nb.njit(parallel=True, cache=True)
def ema_rows(M, offA, Bc, offB, offS, sa, sp, v0, v1):
    """:func:`ema_cols` for the rows ``v0 <= v < v1``, reading B from the chunk buffer ``Bc[v - v0]``."""
    Cs = sa.shape[0]
    ns = sa.shape[1]
    for i in nb.prange(v1 - v0):
        v = v0 + i
        for r in range(Cs):
            acc = 0.0
            for j in range(ns):
                x = M[v, offA + sa[r, j]]
                if x != 0.0:
                    acc += x * Bc[i, offB + sp[r, j]]
            M[v, offS + r] = acc


@nb.njit(cache=True)
def root_cumsum(root_w, f, out):
    """``out = cumsum((root_w * f[:, None]).ravel())`` in place (sequential, as numpy's cumsum: the same doubles)."""
    T, n = root_w.shape
    acc = 0.0
    for t in range(T):
        ft = f[t]
        for v in range(n):
            acc += root_w[t, v] * ft
            out[t * n + v] = acc


@nb.njit(inline="always")
def _b_entry(indptr, indices, M, colM, colB, v, hub_off, chunk, CSt):
    """``B[v, colB]`` of the full layout, recomputed as :func:`spmm_cols` summed it: a hub adds its runs' sums
    (``CSt``) in order, another vertex its neighbours' ``M[u, colM]`` in CSR order."""
    o = hub_off[v]
    s = 0.0
    if o >= 0:
        nch = (indptr[v + 1] - indptr[v] + chunk - 1) // chunk
        for c in range(nch):
            s += CSt[colB, o + c]
        return s
    for e in range(indptr[v], indptr[v + 1]):
        s += M[indices[e], colM]
    return s


@nb.njit(parallel=True, cache=True)
def sample_treelets_rows(indptr, indices, M, offM, offB, size, act, pas, split_off, split_n, split_sa, split_sp,
                         root_cum, root_shape, n, key, first, count, k, verts, edges, shape_out, hub_off, chunk, CSt,
                         max_ns):
    """:func:`sample_treelets` on the chunked layout: no B, no transposed tables.  The entries of B a node's
    split reads are recomputed (:func:`_b_entry`, the build's sums in the build's order) and the passive
    child's weights read from ``M``: the same doubles, hence the same samples as the full layout."""
    total = root_cum[root_cum.shape[0] - 1]
    for i in nb.prange(count):
        state = _mix(key ^ (np.uint64(first + i) * np.uint64(0xD1B54A32D192ED03)))
        state, x = _uniform(state)
        idx = _search(root_cum, x * total)
        t = idx // n
        v0 = idx - t * n
        st_s = np.empty(k, dtype=np.int64)
        st_v = np.empty(k, dtype=np.int64)
        st_r = np.empty(k, dtype=np.int64)
        bv = np.empty(max(max_ns, 1), dtype=np.float64)
        st_s[0] = root_shape[t]
        st_v[0] = v0
        st_r[0] = 0
        sp_top = 1
        nv = 0
        ne = 0
        shape_out[i] = t
        while sp_top > 0:
            sp_top -= 1
            s = st_s[sp_top]
            v = st_v[sp_top]
            r = st_r[sp_top]
            if size[s] == 1:
                verts[i, nv] = v
                nv += 1
                continue
            a = act[s]
            p = pas[s]
            so = split_off[s]
            ns = split_n[s]
            for j in range(ns):
                rp = split_sp[so + r * ns + j]
                bv[j] = _b_entry(indptr, indices, M, offM[p] + rp, offB[p] + rp, v, hub_off, chunk, CSt)
            # the split of the colour set
            tot = 0.0
            for j in range(ns):
                tot += M[v, offM[a] + split_sa[so + r * ns + j]] * bv[j]
            state, x = _uniform(state)
            x *= tot
            jj = ns - 1
            acc = 0.0
            for j in range(ns):
                w = M[v, offM[a] + split_sa[so + r * ns + j]] * bv[j]
                acc += w
                if x < acc and w > 0.0:
                    jj = j
                    break
            ra = split_sa[so + r * ns + jj]
            rp = split_sp[so + r * ns + jj]
            # the passive child's vertex
            state, x = _uniform(state)
            x *= bv[jj]
            u = _pick_neighbour(indptr, indices, M, offM[p] + rp, True, offB[p] + rp, v, x, hub_off, chunk, CSt)
            edges[i, ne, 0] = v
            edges[i, ne, 1] = u
            ne += 1
            st_s[sp_top] = a
            st_v[sp_top] = v
            st_r[sp_top] = ra
            sp_top += 1
            st_s[sp_top] = p
            st_v[sp_top] = u
            st_r[sp_top] = rp
            sp_top += 1


def classify(indptr, indices, verts, table):
    """Class row of the graphlet induced by each sample's vertices (adjacency bitmask -> ``table``)."""
    return np.asarray(table)[adjacency_codes(indptr, indices, verts)].astype(np.int32)


@nb.njit  # not cached: numba's cache of recursive functions is unreliable
def colorful_graphlets_brute(indptr, indices, colors, k, table, sigma):
    """(per-class colorful induced copies, Σ σ over them) by enumerating connected k-sets (tests only)."""
    n = indptr.shape[0] - 1
    ncls = sigma.shape[0]
    counts = np.zeros(ncls, dtype=np.int64)
    S = np.empty(k, dtype=np.int64)
    # ESU-like enumeration: extend from the smallest vertex, extension set of larger exclusive neighbours
    tot = 0.0
    stack_ext = np.empty((k + 1, n), dtype=np.int64)
    stack_len = np.zeros(k + 1, dtype=np.int64)
    mark = np.zeros(n, dtype=np.int64)   # number of set vertices adjacent (closed nbhd membership)
    for v in range(n):
        S[0] = v
        # extension: neighbours of v larger than v
        L = 0
        for e in range(indptr[v], indptr[v + 1]):
            w = indices[e]
            if w > v:
                stack_ext[1, L] = w
                L += 1
        stack_len[1] = L
        mark[v] += 1
        for e in range(indptr[v], indptr[v + 1]):
            mark[indices[e]] += 1
        tot += _esu(indptr, indices, colors, k, table, sigma, counts, S, 1, v, stack_ext, stack_len, mark)
        mark[v] -= 1
        for e in range(indptr[v], indptr[v + 1]):
            mark[indices[e]] -= 1
    return counts, tot


@nb.njit
def _esu(indptr, indices, colors, k, table, sigma, counts, S, d, v0, stack_ext, stack_len, mark):
    if d == k:
        used = 0
        for i in range(k):
            used |= 1 << colors[S[i]]
        if used != (1 << k) - 1:
            return 0.0
        code = 0
        for j in range(1, k):
            for a in range(j):
                if _adjacent(indptr, indices, S[a], S[j]):
                    code |= 1 << (j * (j - 1) // 2 + a)
        c = table[code]
        counts[c] += 1
        return sigma[c]
    tot = 0.0
    L = stack_len[d]
    for idx in range(L):
        w = stack_ext[d, idx]
        # new extension: remaining ext after idx, plus exclusive neighbours of w larger than v0
        L2 = 0
        for j in range(idx + 1, L):
            stack_ext[d + 1, L2] = stack_ext[d, j]
            L2 += 1
        for e in range(indptr[w], indptr[w + 1]):
            x = indices[e]
            if x > v0 and mark[x] == 0:
                stack_ext[d + 1, L2] = x
                L2 += 1
        stack_len[d + 1] = L2
        S[d] = w
        mark[w] += 1
        for e in range(indptr[w], indptr[w + 1]):
            mark[indices[e]] += 1
        tot += _esu(indptr, indices, colors, k, table, sigma, counts, S, d + 1, v0, stack_ext, stack_len, mark)
        mark[w] -= 1
        for e in range(indptr[w], indptr[w + 1]):
            mark[indices[e]] -= 1
    return tot


# ============================================================================ k = 8: classes on the fly
@nb.njit(parallel=True, cache=True)
def adjacency_codes(indptr, indices, verts):
    """Adjacency bitmask of the graphlet induced by each sample's vertices (bit j(j-1)/2 + a: pair a < j)."""
    count = verts.shape[0]
    k = verts.shape[1]
    out = np.empty(count, dtype=np.int64)
    for i in nb.prange(count):
        code = 0
        for j in range(1, k):
            for a in range(j):
                x = verts[i, a]
                y = verts[i, j]
                if indptr[x + 1] - indptr[x] > indptr[y + 1] - indptr[y]:
                    x, y = y, x
                if _adjacent(indptr, indices, x, y):
                    code |= 1 << (j * (j - 1) // 2 + a)
        out[i] = code
    return out


