"""numba kernels of the motif census and graphlet orbits (CPU).

Three groups:

* **class tables** -- ``build_class_table``: for k <= 7 vertices, every adjacency
  bitmask (bit ``j(j-1)/2 + i`` set iff i ~ j, for i < j) mapped to an isomorphism
  class id, built by orbit expansion (one pass over the k! relabellings per class).
  ``inclusion_counts`` counts the spanning subgraphs of each class representative.
* **ESU enumeration** -- ``esu_census``: pattern-oblivious enumeration of every
  connected induced k-vertex subgraph exactly once (Wernicke's ESU, DuMato's
  canonical extension rule), over a degree-descending relabelling; the last vertex
  is never visited: leaves are counted in bulk per adjacency row (a running
  histogram), and each row's class is ``table[prefix code | row]``.  Parallel over interleaved root chunks.
* **closed forms (FGLT / ESCAPE style)** -- per-arc triangle counts, per-vertex
  4-cycle and 4-clique counts, the diamond-wing sum, and the totals that the
  k = 4 census needs.  All integer arithmetic is int64; the callers bound the
  inputs (see ``la_gpm.motifs.driver``) so that nothing overflows.

Parallel passes take ``nchunks`` (the callers pass 4 per numba thread): chunk c handles
vertices c, c + nchunks, ... so that hubs spread over the threads.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba.extending import overload

from ..primitives.sorted_ops import adjacent as _adjacent
from ..primitives.sorted_ops import lower_bound as _lower_bound
from ..primitives.sorted_ops import upper_bound as _upper_bound

# --------------------------------------------------------------------------- ESU enumeration


def _nb_flags(nb_):
    """(INS, FL) of an ESU state array ``nb_``: the in-subgraph and ext[k-3] bits in its dtype (uint8: k <= 7,
    uint16: k = 8, where 7 position bits leave no room in a byte)."""


@overload(_nb_flags, inline="always")
def _nb_flags_impl(nb_):
    if nb_.dtype == nb.types.uint8:
        return lambda nb_: (np.uint8(128), np.uint8(64))
    return lambda nb_: (np.uint16(32768), np.uint16(16384))


def _nb_cast(nb_, x):
    """x (an int) truncated to the dtype of ``nb_``."""


@overload(_nb_cast, inline="always")
def _nb_cast_impl(nb_, x):
    if nb_.dtype == nb.types.uint8:
        return lambda nb_, x: np.uint8(x)
    return lambda nb_, x: np.uint16(x)


def _esu_state(table, n):
    """The per-vertex ESU state of a census with class table ``table``: uint8 for the one-level table (k <= 7),
    uint16 for the two-level one (k = 8, a tuple: :func:`census8_tables`)."""


@overload(_esu_state, inline="always")
def _esu_state_impl(table, n):
    if isinstance(table, nb.types.Array):
        return lambda table, n: np.zeros(n, dtype=np.uint8)
    return lambda table, n: np.zeros(n, dtype=np.uint16)


def _leaf_classes(table, code, off_last, hist2, nm2, counts):
    """counts[class of (prefix ``code``, leaf row q)] += hist2[q] for q = 1 .. nm2 - 1."""


@overload(_leaf_classes, inline="always")
def _leaf_classes_impl(table, code, off_last, hist2, nm2, counts):
    if isinstance(table, nb.types.Array):
        def one_level(table, code, off_last, hist2, nm2, counts):
            for q in range(1, nm2):
                h = hist2[q]
                if h != 0:
                    counts[table[code | (np.int64(q) << off_last)]] += h
        return one_level

    def two_level(table, code, off_last, hist2, nm2, counts):
        # k = 8: the 7-vertex prefix's class c and a relabelling p onto c's representative; the leaf row q
        # relabelled by p, then (c, row) -> the 8-vertex class (census8_tables)
        cls7, perm7, qperm, cls8 = table
        base = np.int64(cls7[code]) * nm2
        qp = qperm[perm7[code]]
        for q in range(1, nm2):
            h = hist2[q]
            if h != 0:
                counts[cls8[base + qp[q]]] += h
    return two_level


@nb.njit(cache=True)
def _flag_level(buf, lo, hi, nb_, hist, lowm, on):
    """Mark (or unmark) the elements of ext[last-1] with the FL bit and histogram their masks."""
    _, FL = _nb_flags(nb_)
    if on:
        hist[:] = 0
        for q in range(lo, hi):
            c = buf[q]
            nb_[c] |= FL
            hist[nb_[c] & lowm] += 1
    else:
        for q in range(lo, hi):
            nb_[buf[q]] &= ~FL


@nb.njit(cache=True)
def _esu_root(r, indptr, indices, dirs, k, table, nb_, buf, seg_lo, seg_hi, cur, tr, codes, counts, hist, hist2,
              excl):
    """All connected induced k-subsets whose smallest vertex is r; counts[class] += 1 each.

    Undirected (``dirs`` None) or directed (``dirs[j]``: the directions of arc j of the underlying graph,
    bit 0 row -> indices[j], bit 1 back; la_gpm.motifs.directed): B = 1 or 2 bits per subgraph position.
    nb_[w] holds the B bits of (tr[j], w) at bits B*j.., bit 6 (FL) when w is in ext[k-3], bit 7 when w is in
    the subgraph (so B*(k-1) <= 6: k <= 7 undirected, k <= 4 directed); the code of a subgraph puts the bits
    of position p's edges to positions 0..p-1 at B*p(p-1)/2.  Leaves are never visited one by one: with x
    the vertex at position k-2, they are the rest R of ext[k-3] (a running histogram of adjacency masks) and
    x's exclusive neighbours (counted per direction); one scan of N(x) moves the members of R adjacent to x
    to their mask | (direction << B*(k-2)).
    """
    INS, FL = _nb_flags(nb_)
    B = 1 if dirs is None else 2
    one = np.uint8((1 << B) - 1)
    last = k - 2                   # position of the leaf parent
    off_last = B * (k - 1) * (k - 2) // 2
    lowm = (1 << (B * last)) - 1   # adjacency bits to positions 0..k-3
    nm2 = 1 << (B * (k - 1))
    # push r at position 0
    tr[0] = r
    nb_[r] |= INS
    lo = _upper_bound(indices, indptr[r], indptr[r + 1], r)
    e = 0
    for j in range(lo, indptr[r + 1]):
        w = indices[j]
        if dirs is None:
            nb_[w] |= np.uint8(1)
        else:
            nb_[w] |= np.uint8(dirs[j])
        buf[e] = w
        e += 1
    seg_lo[0] = 0
    seg_hi[0] = e
    cur[0] = 0
    codes[0] = 0
    if last == 1:
        _flag_level(buf, 0, e, nb_, hist, lowm, True)
    p = 1                           # position being chosen, from ext[p - 1]
    while p >= 1:
        if cur[p - 1] == seg_hi[p - 1]:
            p -= 1
            if p == 0:
                break
            # pop tr[p]
            if p == last - 1:
                _flag_level(buf, seg_lo[p], seg_hi[p], nb_, hist, lowm, False)
            x = tr[p]
            clear = _nb_cast(nb_, ~(np.int64(one) << (B * p)))
            lo = _upper_bound(indices, indptr[x], indptr[x + 1], r)
            for j in range(lo, indptr[x + 1]):
                nb_[indices[j]] &= clear
            nb_[x] &= ~INS
            continue
        x = buf[cur[p - 1]]
        cur[p - 1] += 1
        mx = nb_[x]
        code = codes[p - 1] | (np.int64(mx & ((1 << (B * p)) - 1)) << (B * ((p * (p - 1)) // 2)))
        lo = _upper_bound(indices, indptr[x], indptr[x + 1], r)
        hi = indptr[x + 1]
        if p == last:
            hist[mx & lowm] -= 1
            for q in range(nm2 >> B):
                hist2[q] = hist[q]
            for q in range(nm2 >> B, nm2):
                hist2[q] = 0
            if dirs is None:       # (specialised at compile time; the general loop below costs ~8%)
                nexcl = 0
                for j in range(lo, hi):
                    w = indices[j]
                    m = nb_[w]
                    if m == 0:
                        nexcl += 1
                    elif (m & FL) != 0 and w > x:
                        mm = m & lowm
                        hist2[mm] -= 1
                        hist2[mm | (1 << last)] += 1
                hist2[1 << last] += nexcl
            else:
                excl[:] = 0
                for j in range(lo, hi):
                    w = indices[j]
                    m = nb_[w]
                    d = np.int64(dirs[j])
                    if m == 0:
                        excl[d] += 1
                    elif (m & FL) != 0 and w > x:
                        mm = m & lowm
                        hist2[mm] -= 1
                        hist2[mm | (d << (B * last))] += 1
                for d in range(1, 1 << B):
                    hist2[d << (B * last)] += excl[d]
            _leaf_classes(table, code, off_last, hist2, nm2, counts)
            continue
        # push x at position p; ext[p] = rest of ext[p-1] (sorted, all > x) merged with exclusive nbrs
        tr[p] = x
        codes[p] = code
        shift = B * p
        base = seg_hi[p - 1]
        a = cur[p - 1]
        ahi = seg_hi[p - 1]
        e = base
        for j in range(lo, hi):
            w = indices[j]
            m = nb_[w]
            if m == 0:
                # exclusive: merge in order with the remaining ext[p-1]
                while a < ahi and buf[a] < w:
                    buf[e] = buf[a]
                    e += 1
                    a += 1
                buf[e] = w
                e += 1
            if dirs is None:
                nb_[w] = m | np.uint8(1 << shift)
            else:
                nb_[w] = m | np.uint8(np.uint8(dirs[j]) << shift)
        while a < ahi:
            buf[e] = buf[a]
            e += 1
            a += 1
        nb_[x] |= INS
        seg_lo[p] = base
        seg_hi[p] = e
        cur[p] = base
        if p == last - 1:
            _flag_level(buf, base, e, nb_, hist, lowm, True)
        p += 1
    if last == 1:
        _flag_level(buf, seg_lo[0], seg_hi[0], nb_, hist, lowm, False)
    # pop r
    lo = _upper_bound(indices, indptr[r], indptr[r + 1], r)
    for j in range(lo, indptr[r + 1]):
        nb_[indices[j]] &= _nb_cast(nb_, ~np.int64(one))
    nb_[r] &= ~INS


@nb.njit(cache=True)
def _esu_chunk(indptr, indices, dirs, k, table, roots, c, nchunks, maxd, cnt):
    B = 1 if dirs is None else 2
    n = indptr.shape[0] - 1
    nb_ = _esu_state(table, n)
    buf = np.empty(max(1, k * k * maxd), dtype=indices.dtype)
    hist = np.zeros(1 << (B * (k - 2)), dtype=np.int64)
    hist2 = np.zeros(1 << (B * (k - 1)), dtype=np.int64)
    excl = np.zeros(1 << B, dtype=np.int64)
    seg_lo = np.zeros(k, dtype=np.int64)
    seg_hi = np.zeros(k, dtype=np.int64)
    cur = np.zeros(k, dtype=np.int64)
    tr = np.zeros(k, dtype=np.int64)
    codes = np.zeros(k, dtype=np.int64)
    for i in range(c, roots.shape[0], nchunks):
        _esu_root(roots[i], indptr, indices, dirs, k, table, nb_, buf, seg_lo, seg_hi, cur, tr, codes, cnt, hist,
                  hist2, excl)


@nb.njit(cache=True)
def _max_degree(indptr):
    maxd = 0
    for v in range(indptr.shape[0] - 1):
        maxd = max(maxd, indptr[v + 1] - indptr[v])
    return maxd


@nb.njit(parallel=True, cache=True)
def esu_census(indptr, indices, dirs, k, table, nclass, roots, nchunks):
    """Census of connected induced k-subgraphs rooted at ``roots`` (ids of a degree-descending
    relabelling, so the root is each subgraph's highest-degree vertex). Returns (nchunks, nclass).

    ``dirs`` None: undirected (k <= 7); else the arc directions of a directed graph's underlying graph
    (uint8 per arc, bit 0 forward, bit 1 backward; k <= 4) and ``table`` is the directed class table."""
    maxd = _max_degree(indptr)
    counts = np.zeros((nchunks, nclass), dtype=np.int64)
    for c in nb.prange(nchunks):
        _esu_chunk(indptr, indices, dirs, k, table, roots, c, nchunks, maxd, counts[c])
    return counts


@nb.njit(cache=True)
def esu_census_serial(indptr, indices, dirs, k, table, nclass, roots):
    """:func:`esu_census` on the calling thread (small graphs: no thread-pool start). Returns (1, nclass)."""
    counts = np.zeros((1, nclass), dtype=np.int64)
    _esu_chunk(indptr, indices, dirs, k, table, roots, 0, 1, _max_degree(indptr), counts[0])
    return counts


@nb.njit(parallel=True, cache=True)
def spanning_rows8(keys, limbs, cls7, perm7, qperm, cls8, nclass, nchunks):
    """Non-induced 8-vertex counts from induced ones, limb by limb: ``out[l, i] = Σ_j M[i, j] limbs[j, l]`` with
    M[i, j] the edge subsets of ``keys[j]`` (all 8 vertices kept) in class i, classified by the two-level lookup
    (:mod:`la_gpm.motifs.census8`).  Exact in int64 for limbs < 2^16 (M's columns sum to at most 2^28, at most
    2^14 columns).  Work: Σ_j 2^(edges of keys[j])."""
    L = limbs.shape[1]
    acc = np.zeros((nchunks, L, nclass), dtype=np.int64)
    for c in nb.prange(nchunks):
        for j in range(c, keys.shape[0], nchunks):
            code = keys[j]
            s = code
            while True:
                low = s & 0x1FFFFF
                row = cls8[np.int64(cls7[low]) * 128 + qperm[perm7[low], s >> 21]]
                if row >= 0:
                    for l in range(L):
                        acc[c, l, row] += limbs[j, l]
                if s == 0:
                    break
                s = (s - 1) & code
    return acc.sum(axis=0)


# --------------------------------------------------------------------------- closed forms


@nb.njit(cache=True)
def _arc_triangles_chunk(indptr, indices, c, nchunks, te):
    n = indptr.shape[0] - 1
    mark = np.full(n, -1, dtype=np.int32)
    for u in range(c, n, nchunks):
        du = indptr[u + 1] - indptr[u]
        for j in range(indptr[u], indptr[u + 1]):
            mark[indices[j]] = u
        for j in range(indptr[u], indptr[u + 1]):
            v = indices[j]
            dv = indptr[v + 1] - indptr[v]
            if dv > du or (dv == du and v < u):
                continue
            s = 0
            for q in range(indptr[v], indptr[v + 1]):
                if mark[indices[q]] == u:
                    s += 1
            te[j] = s
            # reverse arc v -> u
            te[_lower_bound(indices, indptr[v], indptr[v + 1], u)] = s


@nb.njit(parallel=True, cache=True)
def arc_triangles(indptr, indices, nchunks):
    """te[a] = |N(u) ∩ N(v)| for every arc a = (u -> v) of the symmetric CSR.

    Each edge once, from the endpoint with the larger row (marked), scanning the smaller
    row; the reverse arc is found by binary search.
    """
    te = np.zeros(indices.shape[0], dtype=np.int64)
    for c in nb.prange(nchunks):
        _arc_triangles_chunk(indptr, indices, c, nchunks, te)
    return te


@nb.njit(cache=True)
def arc_triangles_serial(indptr, indices):
    """:func:`arc_triangles` on the calling thread (small graphs: no thread-pool start)."""
    te = np.zeros(indices.shape[0], dtype=np.int64)
    _arc_triangles_chunk(indptr, indices, 0, 1, te)
    return te


@nb.njit(parallel=True, cache=True)
def cycle4_edge_weights(indptr, indices, rank, te, nchunks):
    """Per vertex a: the 4-cycles whose highest-ranked vertex is a, and the sum over those cycles of
    te over their four edges (te = per-arc weights, e.g. triangles per edge).

    A cycle a-b-c-d (a highest) is one pair {b, d} of wedges a-b-c, a-d-c; with cnt[c] wedges and
    W[c] = Σ (te(ab) + te(bc)) over them, c contributes C(cnt, 2) cycles of weight (cnt - 1)·W.
    """
    n = indptr.shape[0] - 1
    c4 = np.zeros(n, dtype=np.int64)
    wsum = np.zeros(n, dtype=np.int64)
    for ch in nb.prange(nchunks):
        cnt = np.zeros(n, dtype=np.int32)
        W = np.zeros(n, dtype=np.int64)
        touched = np.empty(n, dtype=np.int32)
        for a in range(ch, n, nchunks):
            ra = rank[a]
            nt = 0
            for p in range(indptr[a], indptr[a + 1]):
                b = indices[p]
                if rank[b] >= ra:
                    continue
                tab = te[p]
                for q in range(indptr[b], indptr[b + 1]):
                    c = indices[q]
                    if rank[c] >= ra:  # also c == a
                        continue
                    if cnt[c] == 0:
                        touched[nt] = c
                        nt += 1
                    cnt[c] += 1
                    W[c] += tab + te[q]
            s4 = 0
            sw = 0
            for i in range(nt):
                c = touched[i]
                kk = np.int64(cnt[c])
                s4 += kk * (kk - 1) // 2
                sw += (kk - 1) * W[c]
                cnt[c] = 0
                W[c] = 0
            c4[a] = s4
            wsum[a] = sw
    return c4, wsum


@nb.njit(inline="always")
def _adjacent_pairs(lst, nl, mark, stamp, indptr, indices):
    """Adjacent pairs {b, y} among lst[:nl] (rows sorted ascending), each once from its smaller end;
    ``mark`` is scratch, stamped with ``stamp`` (a value no earlier call of this chunk used)."""
    for q in range(nl):
        mark[lst[q]] = stamp
    c = 0
    for q in range(nl):
        b = lst[q]
        for z in range(indptr[b + 1] - 1, indptr[b] - 1, -1):
            y = indices[z]
            if y <= b:
                break
            if mark[y] == stamp:
                c += 1
    return c


@nb.njit(cache=True)
def _census4_chunk(indptr, indices, c, nchunks, acc):
    n = indptr.shape[0] - 1
    mark = np.full(n, -1, dtype=np.int32)
    cnt = np.zeros(n, dtype=np.int32)
    touched = np.empty(n, dtype=np.int32)
    mark2 = np.full(n, -1, dtype=np.int64)
    tl = np.empty(n, dtype=np.int32)
    dia = 0
    c4 = 0
    k4 = 0
    tri = 0
    p4 = 0
    tdeg = 0
    for u in range(c, n, nchunks):
        du = indptr[u + 1] - indptr[u]
        for j in range(indptr[u], indptr[u + 1]):
            mark[indices[j]] = u
        nt = 0
        for j in range(indptr[u], indptr[u + 1]):
            v = indices[j]
            if v <= u:
                continue
            dv = indptr[v + 1] - indptr[v]
            p4 += (du - 1) * (dv - 1)
            s = 0
            ntl = 0
            for q in range(indptr[v], indptr[v + 1]):
                w = indices[q]
                if mark[w] == u:
                    s += 1
                    if w > v:
                        # triangle u < v < w: once each
                        tri += 1
                        tdeg += du + dv + indptr[w + 1] - indptr[w]
                        tl[ntl] = w
                        ntl += 1
                if w > u:
                    # 4-cycles u - v - w - v' with u the smallest id
                    if cnt[w] == 0:
                        touched[nt] = w
                        nt += 1
                    cnt[w] += 1
            dia += s * (s - 1) // 2
            if ntl >= 2:
                # 4-cliques u < v < w < x: w, x in tl (common neighbours above v), w ~ x
                k4 += _adjacent_pairs(tl, ntl, mark2, np.int64(j), indptr, indices)
        for q in range(nt):
            w = touched[q]
            x = np.int64(cnt[w])
            c4 += x * (x - 1) // 2
            cnt[w] = 0
    acc[c, 0] = dia
    acc[c, 1] = c4
    acc[c, 2] = k4
    acc[c, 3] = tri
    acc[c, 4] = p4
    acc[c, 5] = tdeg


@nb.njit(parallel=True, cache=True)
def census4_totals(indptr, indices, nchunks):
    """Totals for the k = 4 closed form, one row per chunk: (sum_e C(t_e, 2), 4-cycles,
    4-cliques, triangles, P4 base, sum over triangles of the degrees of their vertices).

    The CSR must be the degree-descending relabelling (smaller id = higher degree).  Each
    edge is handled once from its smaller id u: one scan of N(v) gives t_uv (diamonds
    Σ C(t_e, 2)), the triangles with u first, and the wedges u - v - w (w > u) whose pairs
    close 4-cycles with u the smallest id (Chiba & Nishizeki); 4-cliques u < v < w < x come
    from the triangles' third vertices.  P4 base = Σ over edges of (d_u - 1)(d_v - 1).
    """
    acc = np.zeros((nchunks, 6), dtype=np.int64)
    for c in nb.prange(nchunks):
        _census4_chunk(indptr, indices, c, nchunks, acc)
    return acc


@nb.njit(cache=True)
def census4_totals_serial(indptr, indices):
    """:func:`census4_totals` on the calling thread (small graphs: no thread-pool start)."""
    acc = np.zeros((1, 6), dtype=np.int64)
    _census4_chunk(indptr, indices, 0, 1, acc)
    return acc


@nb.njit(cache=True)
def census3_triangles_serial(indptr, indices):
    """Triangles of a degree-descending CSR, each once as u < v < w (k = 3 census, small graphs:
    one pass on the calling thread): per u, the adjacent pairs of its row above u."""
    n = indptr.shape[0] - 1
    mark = np.full(n, -1, dtype=np.int64)
    t = 0
    for u in range(n):
        hi = indptr[u + 1]
        lo = hi
        while lo > indptr[u] and indices[lo - 1] > u:
            lo -= 1
        t += _adjacent_pairs(indices[lo:hi], hi - lo, mark, np.int64(u), indptr, indices)
    return t


@nb.njit(cache=True)
def _vertex_closed_forms_chunk(indptr, indices, te, c, nchunks, out):
    n = indptr.shape[0] - 1
    mark = np.full(n, -1, dtype=np.int32)
    mark2 = np.full(n, -1, dtype=np.int64)
    cnt = np.full(n, -1, dtype=np.int64)
    common = np.empty(n, dtype=np.int32)
    for v in range(c, n, nchunks):
        for j in range(indptr[v], indptr[v + 1]):
            mark[indices[j]] = v
        t = 0
        for j in range(indptr[v], indptr[v + 1]):
            t += te[j]
        tag = np.int64(v) << 32
        c4 = 0
        k23 = 0
        wing = 0
        k4 = 0
        for j in range(indptr[v], indptr[v + 1]):
            a = indices[j]
            nc = 0
            for q in range(indptr[a], indptr[a + 1]):
                w = indices[q]
                key = cnt[w]
                if (key >> 32) != v:
                    key = tag
                x = key & 0xFFFFFFFF
                c4 += x
                k23 += x * (x - 1) // 2
                cnt[w] = key + 1
                if w > a and mark[w] == v:
                    # triangle v, a, w (a < w): a wing of the diamonds on edge aw
                    wing += te[q] - 1
                    common[nc] = w
                    nc += 1
            if nc >= 2:
                # 4-cliques {v, a, b, x}, a < b < x: b, x among the common neighbours above a
                k4 += _adjacent_pairs(common, nc, mark2, np.int64(j), indptr, indices)
        # the walks v - a - v (w = v) were counted too: d_v of them, all on counter v
        dv = indptr[v + 1] - indptr[v]
        c4 -= dv * (dv - 1) // 2
        k23 -= dv * (dv - 1) * (dv - 2) // 6
        out[v, 0] = t // 2
        out[v, 1] = c4
        out[v, 2] = k4
        out[v, 3] = wing
        out[v, 4] = k23


@nb.njit(parallel=True, cache=True)
def vertex_closed_forms(indptr, indices, te, nchunks):
    """Per vertex v: (t_v, 4-cycles through v, 4-cliques through v, diamond-wing sum, K2,3 hub).

    diamond-wing sum = sum over triangles (v, a, b) of (t_ab - 1): the diamonds in which
    v is a degree-2 vertex; K2,3 hub = sum over w != v of C(codeg(v, w), 3), the K2,3 copies
    with v on the 2-side.  ``te`` from :func:`arc_triangles`.  The codegree counters carry
    the owning vertex in their high 32 bits, so they are never cleared, and C(x, 2), C(x, 3)
    are summed incrementally (C(x+1, 2) - C(x, 2) = x).
    """
    n = indptr.shape[0] - 1
    out = np.zeros((n, 5), dtype=np.int64)
    for c in nb.prange(nchunks):
        _vertex_closed_forms_chunk(indptr, indices, te, c, nchunks, out)
    return out


@nb.njit(cache=True)
def vertex_closed_forms_serial(indptr, indices, te):
    """:func:`vertex_closed_forms` on the calling thread (small graphs: no thread-pool start)."""
    n = indptr.shape[0] - 1
    out = np.zeros((n, 5), dtype=np.int64)
    _vertex_closed_forms_chunk(indptr, indices, te, 0, 1, out)
    return out


@nb.njit(cache=True)
def neighbour_sums(indptr, indices, x):
    """s[v] = sum of x over the neighbours of v (A @ x for int64 x).  Serial: one streaming
    pass over the arcs costs less than waking the thread pool."""
    n = indptr.shape[0] - 1
    s = np.zeros(n, dtype=np.int64)
    for v in range(n):
        acc = 0
        for j in range(indptr[v], indptr[v + 1]):
            acc += x[indices[j]]
        s[v] = acc
    return s


@nb.njit(cache=True)
def arc_weighted_sums(indptr, indices, te, deg, tv):
    """Per vertex v: (sum_u C(t_vu, 2), sum_u t_vu (d_u - 2), sum_u (t_u - t_vu)).  Serial, one pass."""
    n = indptr.shape[0] - 1
    out = np.zeros((n, 3), dtype=np.int64)
    for v in range(n):
        a = 0
        b = 0
        c = 0
        for j in range(indptr[v], indptr[v + 1]):
            u = indices[j]
            t = te[j]
            a += t * (t - 1) // 2
            b += t * (deg[u] - 2)
            c += tv[u] - t
        out[v, 0] = a
        out[v, 1] = b
        out[v, 2] = c
    return out


# --------------------------------------------------------------------------- 5-vertex hybrid: dense classes


@nb.njit(cache=True)
def _hit5(indptr, indices, table, hits, mark, a, b, c, d, e, known):
    """hits[class of G[{a, b, c, d, e}]] += 1; mark[x] == a iff x ~ a; the pairs of bit set in
    ``known`` (the copy's own edges, bit order (0,1) (0,2) (1,2) (0,3) (1,3) (2,3) (0,4) ...) are
    taken as edges without a lookup."""
    vs = (np.int64(a), np.int64(b), np.int64(c), np.int64(d), np.int64(e))
    code = known
    bitpos = 0
    for j in range(1, 5):
        if not (known >> bitpos) & 1 and mark[vs[j]] == a:
            code |= 1 << bitpos
        bitpos += 1
        for i in range(1, j):
            if not (known >> bitpos) & 1 and _adjacent(indptr, indices, vs[i], vs[j]):
                code |= 1 << bitpos
            bitpos += 1
    hits[table[code]] += 1


# the edges each listed copy is known to have, as _hit5 bits: C5 u-a-b-c-d-u; K2,3 hubs u, v (0, 1)
# over x, y, z; bowtie centre u with edges a-b, c-d
_KNOWN_C5 = (1 << 0) | (1 << 2) | (1 << 5) | (1 << 9) | (1 << 6)
_KNOWN_K23 = (1 << 1) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 6) | (1 << 7)
_KNOWN_BOWTIE = (1 << 0) | (1 << 1) | (1 << 3) | (1 << 6) | (1 << 2) | (1 << 9)
# the other five pairs of a C5 u-a-b-c-d-u in that bit order: u-b, u-c, a-c, a-d, b-d
_C5_UB, _C5_UC, _C5_AC, _C5_AD, _C5_BD = 1 << 1, 1 << 3, 1 << 4, 1 << 7, 1 << 8


@nb.njit(cache=True)
def k23_class_rows(table):
    """Class rows of G[{u, v, x, y, z}] for u, v adjacent to all of x, y, z: index 4·[u ~ v] + the
    number of edges among x, y, z (0, 1, 2: a path, 3: a triangle), in _hit5's bit order."""
    rows = np.empty(8, dtype=np.int64)
    for uv in range(2):
        for e in range(4):
            code = uv | (1 << 1) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 6) | (1 << 7)   # (0,1) (0,2) (1,2) (0,3) (1,3) (0,4) (1,4)
            if e >= 1:
                code |= 1 << 5        # (2,3)
            if e >= 2:
                code |= 1 << 9        # (3,4)
            if e >= 3:
                code |= 1 << 8        # (2,4)
            rows[4 * uv + e] = table[code]
    return rows


@nb.njit(cache=True)
def bowtie_class_rows(table):
    """Class rows of G[{u, a, b, c, d}] for u adjacent to all of a, b, c, d and G[{a, b, c, d}] = 2K2, P4,
    C4, paw, diamond, K4 (the 4-vertex graphs with a perfect matching), in _hit5's bit order."""
    cone = (1 << 0) | (1 << 1) | (1 << 3) | (1 << 6)          # (0,1) (0,2) (0,3) (0,4)
    ab, ac, bc, ad, bd, cd = 1 << 2, 1 << 4, 1 << 5, 1 << 7, 1 << 8, 1 << 9
    shapes = (ab | cd, ab | bc | cd, ab | bc | cd | ad, ab | ac | bc | cd, ab | bc | cd | ad | bd,
              ab | ac | bc | ad | bd | cd)
    rows = np.empty(6, dtype=np.int64)
    for i in range(6):
        rows[i] = table[cone | shapes[i]]
    return rows


@nb.njit(cache=True)
def _bowtie_bulk(indptr, indices, u, ea, eb, m, lid, lptr, lidx, fill, mk, mk2, tx, cnt, touched, wl, rows, h):
    """The bowtie copies centred at u (pairs of disjoint edges of H = G[N(u)], given as ea/eb[:m]) added to
    ``h`` per class without listing them: u + S for a 4-set S of N(u) is the cone over H[S], and S holds
    m(H[S]) bowties (its perfect matchings: 2K2, P4, paw 1; C4, diamond 2; K4 3), so it suffices to count
    the induced 2K2, P4, C4, paw, diamond and K4 of H. Their non-induced counts come from H's degrees d_x,
    the triangles t_xy on each edge, the 4-cycles (common-neighbour pairs) and the 4-cliques, then the
    inclusion among those six graphs is inverted. Cost O(Σ_x d_x² + 4-cliques of H) against C(m, 2)."""
    deg = indptr[u + 1] - indptr[u]
    base = indptr[u]
    for j in range(deg):
        lid[indices[base + j]] = j
        lptr[j] = 0
        mk[j] = -1
        mk2[j] = -1
        tx[j] = 0
        cnt[j] = 0
    lptr[deg] = 0
    for e in range(m):
        lptr[lid[ea[e]] + 1] += 1
        lptr[lid[eb[e]] + 1] += 1
    for j in range(deg):
        lptr[j + 1] += lptr[j]
    for j in range(deg):
        fill[j] = lptr[j]
    for e in range(m):
        a = lid[ea[e]]
        b = lid[eb[e]]
        lidx[fill[a]] = b
        fill[a] += 1
        lidx[fill[b]] = a
        fill[b] += 1
    n2k2 = m * (m - 1) // 2
    p4 = 0
    dia = 0
    tri3 = 0
    k4 = 0
    c4x2 = 0
    stamp2 = 0
    for x in range(deg):
        dx = lptr[x + 1] - lptr[x]
        n2k2 -= dx * (dx - 1) // 2
        for q in range(lptr[x], lptr[x + 1]):
            mk[lidx[q]] = x
        for q in range(lptr[x], lptr[x + 1]):
            y = lidx[q]
            if y <= x:
                continue
            dy = lptr[y + 1] - lptr[y]
            t = 0
            nw = 0
            stamp2 += 1
            for r in range(lptr[y], lptr[y + 1]):
                w = lidx[r]
                if mk[w] == x:
                    t += 1
                    if w > y:
                        wl[nw] = w
                        mk2[w] = stamp2
                        nw += 1
            p4 += (dx - 1) * (dy - 1)
            dia += t * (t - 1) // 2
            tri3 += t
            tx[x] += t
            tx[y] += t
            for i in range(nw):               # 4-cliques x < y < w < z
                w = wl[i]
                for r in range(lptr[w], lptr[w + 1]):
                    z = lidx[r]
                    if z > w and mk2[z] == stamp2:
                        k4 += 1
        # 4-cycles: pairs x < z with c common neighbours hold C(c, 2) of them, each cycle at its two diagonals
        nt = 0
        for q in range(lptr[x], lptr[x + 1]):
            y = lidx[q]
            for r in range(lptr[y], lptr[y + 1]):
                z = lidx[r]
                if z > x:
                    if cnt[z] == 0:
                        touched[nt] = z
                        nt += 1
                    cnt[z] += 1
        for i in range(nt):
            c = cnt[touched[i]]
            c4x2 += c * (c - 1) // 2
            cnt[touched[i]] = 0
    tri = tri3 // 3
    p4 -= 3 * tri
    paw = 0
    for x in range(deg):
        paw += (tx[x] // 2) * (lptr[x + 1] - lptr[x] - 2)
    w = bowtie_bulk_hits(n2k2, p4, c4x2 // 2, paw, dia, k4)
    for i in range(6):
        h[rows[i]] += w[i]


@nb.njit(cache=True)
def bowtie_bulk_hits(n2k2, p4, c4, paw, dia, k4):
    """The bowtie hits per class row of :func:`bowtie_class_rows` (cone over 2K2, P4, C4, paw, diamond,
    K4) of a hub, or of several hubs summed, from the non-induced counts of those six graphs in G[N(u)]:
    the inclusion among them inverted, each induced count weighted by its perfect matchings. Plain
    Python ints in and out through ``.py_func`` (the GPU's host side)."""
    i_k4 = k4
    i_dia = dia - 6 * i_k4
    i_paw = paw - 4 * i_dia - 12 * i_k4
    i_c4 = c4 - i_dia - 3 * i_k4
    i_p4 = p4 - 4 * i_c4 - 2 * i_paw - 6 * i_dia - 12 * i_k4
    i_2k2 = n2k2 - i_p4 - 2 * i_c4 - i_paw - 2 * i_dia - 3 * i_k4
    return (i_2k2, i_p4, 2 * i_c4, i_paw, 2 * i_dia, 3 * i_k4)


@nb.njit(cache=True)
def _two_path_span(indptr, indices):
    """List space of the per-vertex passes: 1 + the most 2-paths leaving one vertex (>= the edges inside
    its neighbourhood)."""
    n = indptr.shape[0] - 1
    span = 1
    for u in range(n):
        s = 0
        for j in range(indptr[u], indptr[u + 1]):
            a = indices[j]
            s += indptr[a + 1] - indptr[a]
        span = max(span, s + 1)
    return span


@nb.njit(inline="always")
def _c5_hits(indptr, indices, rank, table, h, mark, u, head, nxt, val, touched, markd, markc, sd, sc):
    """The C5 copies u - a - b - c - d - u with u of the highest rank and a < d, classified into ``h``;
    ``mark[x] == u`` iff x ~ u. Returns the stamps (sd, sc) of markd / markc after their use."""
    ru = rank[u]
    # 2-paths u - a - b below u's rank, listed per end b (head / nxt / val)
    ne = 0
    nt = 0
    for j in range(indptr[u], indptr[u + 1]):
        a = indices[j]
        if rank[a] >= ru:
            continue
        for q in range(indptr[a], indptr[a + 1]):
            b = indices[q]
            if rank[b] >= ru:
                continue
            if head[b] == -1:
                touched[nt] = b
                nt += 1
            val[ne] = a
            nxt[ne] = head[b]
            head[b] = ne
            ne += 1
    # every pair the copy does not fix is read from three stamp arrays (N(u), N(d), N(c)) instead of
    # searched: u-b, u-c, b-d once per (d, c, b), a-c and a-d per a
    for j in range(indptr[u], indptr[u + 1]):
        d = indices[j]
        if rank[d] >= ru:
            continue
        sd += 1
        for q in range(indptr[d], indptr[d + 1]):
            markd[indices[q]] = sd
        for q in range(indptr[d], indptr[d + 1]):
            c = indices[q]
            if rank[c] >= ru:
                continue
            sc += 1
            for z in range(indptr[c], indptr[c + 1]):
                markc[indices[z]] = sc
            cbit = _C5_UC if mark[c] == u else 0
            for z in range(indptr[c], indptr[c + 1]):
                b = indices[z]
                if b == d or rank[b] >= ru:
                    continue
                t = head[b]
                if t == -1:
                    continue
                code_b = _KNOWN_C5 | cbit | (_C5_UB if mark[b] == u else 0) | (_C5_BD if markd[b] == sd else 0)
                while t != -1:
                    a = val[t]
                    if a < d and a != c:
                        code = code_b | (_C5_AC if markc[a] == sc else 0) | (_C5_AD if markd[a] == sd else 0)
                        h[table[code]] += 1
                    t = nxt[t]
    for q in range(nt):
        head[touched[q]] = -1
    return sd, sc


@nb.njit(inline="always")
def _k23_bulk(indptr, indices, h, mark, u, v, head, nxt, val, sset, ins, nbm, stamp, stamp2, k23rows):
    """The K2,3 copies of the hub pair u < v (its common neighbours S listed from head[v]) added to ``h``
    per class without listing them: with e edges, P two-edge paths and t triangles inside G[S], the
    triples with 3 / 2 / 1 / 0 edges number t, P - 3t, e(c - 2) - 2(P - 3t) - 3t and the rest of
    C(c, 3). ``stamp`` is new for this pair; returns the stamp of nbm after its use."""
    c = 0
    t1 = head[v]
    while t1 != -1:
        sset[c] = val[t1]
        ins[val[t1]] = stamp
        c += 1
        t1 = nxt[t1]
    e2 = 0
    paths = 0
    tri = 0
    for i in range(c):
        x = sset[i]
        stamp2 += 1
        dx = 0
        for z in range(indptr[x], indptr[x + 1]):
            y = indices[z]
            if ins[y] == stamp:
                dx += 1
                nbm[y] = stamp2
        e2 += dx
        paths += dx * (dx - 1) // 2
        # triangles x < y < w of G[S], found from x
        for z in range(indptr[x], indptr[x + 1]):
            y = indices[z]
            if y <= x or ins[y] != stamp:
                continue
            for z2 in range(indptr[y], indptr[y + 1]):
                w = indices[z2]
                if w > y and nbm[w] == stamp2:
                    tri += 1
    n3 = tri
    n2 = paths - 3 * tri
    n1 = (e2 // 2) * (c - 2) - 2 * n2 - 3 * n3
    n0 = c * (c - 1) * (c - 2) // 6 - n1 - n2 - n3
    base = 4 if mark[v] == u else 0
    h[k23rows[base]] += n0
    h[k23rows[base + 1]] += n1
    h[k23rows[base + 2]] += n2
    h[k23rows[base + 3]] += n3
    return stamp2


@nb.njit(inline="always")
def _k23_hits(indptr, indices, table, h, mark, u, head, nxt, val, touched, sset, ins, nbm, stamp, stamp2,
              k23rows, k23_comb):
    """The K2,3 copies with hubs u < v (three common neighbours), classified into ``h``: listed, or in
    bulk (:func:`_k23_bulk`) for pairs with at least ``k23_comb`` common neighbours. Returns the stamps
    (stamp, stamp2) after their use."""
    # 2-paths u - a - v with v > u, listed per end v
    nt = 0
    ne = 0
    for j in range(indptr[u], indptr[u + 1]):
        a = indices[j]
        for q in range(indptr[a], indptr[a + 1]):
            v = indices[q]
            if v <= u:
                continue
            if head[v] == -1:
                touched[nt] = v
                nt += 1
            val[ne] = a
            nxt[ne] = head[v]
            head[v] = ne
            ne += 1
    for q in range(nt):
        v = touched[q]
        c = 0
        t1 = head[v]
        while t1 != -1:
            c += 1
            t1 = nxt[t1]
        if c >= k23_comb and c >= 3:
            stamp += 1
            stamp2 = _k23_bulk(indptr, indices, h, mark, u, v, head, nxt, val, sset, ins, nbm, stamp, stamp2,
                               k23rows)
            head[v] = -1
            continue
        t1 = head[v]
        while t1 != -1:
            t2 = nxt[t1]
            while t2 != -1:
                t3 = nxt[t2]
                while t3 != -1:
                    _hit5(indptr, indices, table, h, mark, u, v, val[t1], val[t2], val[t3], _KNOWN_K23)
                    t3 = nxt[t3]
                t2 = nxt[t2]
            t1 = nxt[t1]
        head[v] = -1
    return stamp, stamp2


@nb.njit(inline="always")
def _bowtie_hits(indptr, indices, table, h, mark, u, ea, eb, bowtie_bulk, lid, lptr, lidx, lfill, lmk, lmk2, ltx,
                 lcnt, ltouch, lwl, bowrows):
    """The bowties centred at u (two vertex-disjoint edges inside N(u)), classified into ``h``: listed,
    or in bulk (:func:`_bowtie_bulk`) where N(u) holds at least ``bowtie_bulk`` edges."""
    m = 0
    for j in range(indptr[u], indptr[u + 1]):
        a = indices[j]
        for q in range(indptr[a], indptr[a + 1]):
            b = indices[q]
            if b > a and mark[b] == u:
                ea[m] = a
                eb[m] = b
                m += 1
    if m >= bowtie_bulk and m >= 2:
        _bowtie_bulk(indptr, indices, u, ea, eb, m, lid, lptr, lidx, lfill, lmk, lmk2, ltx, lcnt, ltouch, lwl,
                     bowrows, h)
        return
    for x in range(m):
        for y in range(x + 1, m):
            if ea[y] != ea[x] and ea[y] != eb[x] and eb[y] != ea[x] and eb[y] != eb[x]:
                _hit5(indptr, indices, table, h, mark, u, ea[x], eb[x], ea[y], eb[y], _KNOWN_BOWTIE)


# dense5_hits' bulk thresholds (hybrid.py passes them: numba builds a call that omits an argument with a default
# apart from one that gives it, about 20 s a build of dense5_hits)
K23_COMB = 8
BOWTIE_BULK = 64


@nb.njit(parallel=True, cache=True)
def dense5_hits(indptr, indices, rank, table, nclass, nchunks, k23_comb, bowtie_bulk):
    """Induced classes of every non-induced copy of C5, K2,3 and the bowtie (each copy once).

    Every 5-vertex connected graph of minimum degree >= 2 has one of the three as a spanning
    subgraph, so hits[j] / (copies of C5 + K2,3 + bowtie inside class j) is the induced count
    of each such class j.  Returns (chunks, nclass).

    K2,3 copies of a hub pair u < v with c >= ``k23_comb`` (:data:`K23_COMB`) common neighbours S are classified in
    bulk, not one by one: the class of {u, v, x, y, z} depends only on u ~ v and on the number of
    edges among x, y, z, and with e edges, P two-edge paths and t triangles inside G[S] the triples
    with 3 / 2 / 1 / 0 edges number t, P - 3t, e(c - 2) - 2(P - 3t) - 3t and the rest of C(c, 3)
    (O(Σ_{x∈S} d_x + the 2-paths of G[S]) instead of C(c, 3) classifications). Likewise the bowties
    centred at a vertex u with >= ``bowtie_bulk`` (:data:`BOWTIE_BULK`) edges inside N(u) are counted per class from the
    induced 4-vertex graphs of G[N(u)] that have a perfect matching (:func:`_bowtie_bulk`), not listed.

    Per vertex u: :func:`_c5_hits`, :func:`_k23_hits`, :func:`_bowtie_hits`, over scratch arrays of
    the chunk (list space: :func:`_two_path_span`).
    """
    n = indptr.shape[0] - 1
    hits = np.zeros((nchunks, nclass), dtype=np.int64)
    span = _two_path_span(indptr, indices)
    k23rows = k23_class_rows(table)
    bowrows = bowtie_class_rows(table)
    maxd = max(1, _max_degree(indptr))
    for ch in nb.prange(nchunks):
        h = hits[ch]
        head = np.full(n, -1, dtype=np.int64)     # 2-path lists u - a - b, keyed by b
        nxt = np.empty(span, dtype=np.int64)
        val = np.empty(span, dtype=np.int64)
        touched = np.empty(n, dtype=np.int64)
        mark = np.full(n, -1, dtype=np.int64)
        ea = np.empty(span, dtype=np.int64)
        eb = np.empty(span, dtype=np.int64)
        sset = np.empty(n, dtype=np.int64)       # a hub pair's common neighbours
        ins = np.full(n, -1, dtype=np.int64)      # == stamp: in the current common set
        nbm = np.full(n, -1, dtype=np.int64)      # == stamp2: a neighbour of the current x
        stamp = 0
        stamp2 = 0
        markd = np.full(n, -1, dtype=np.int64)    # C5: == sd iff a neighbour of the current d
        markc = np.full(n, -1, dtype=np.int64)    # C5: == sc iff a neighbour of the current c
        sd = 0
        sc = 0
        lid = np.empty(n, dtype=np.int64)         # bowtie bulk: local ids in N(u), local CSR of G[N(u)], scratch
        lptr = np.empty(maxd + 1, dtype=np.int64)
        lidx = np.empty(span, dtype=np.int64)      # 2·(edges inside N(u)) <= Σ_{a ∈ N(u)} d_a < span
        lfill = np.empty(maxd, dtype=np.int64)
        lmk = np.empty(maxd, dtype=np.int64)
        lmk2 = np.empty(maxd, dtype=np.int64)
        ltx = np.empty(maxd, dtype=np.int64)
        lcnt = np.empty(maxd, dtype=np.int64)
        ltouch = np.empty(maxd, dtype=np.int64)
        lwl = np.empty(maxd, dtype=np.int64)
        for u in range(ch, n, nchunks):
            for j in range(indptr[u], indptr[u + 1]):
                mark[indices[j]] = u
            sd, sc = _c5_hits(indptr, indices, rank, table, h, mark, u, head, nxt, val, touched, markd, markc, sd, sc)
            stamp, stamp2 = _k23_hits(indptr, indices, table, h, mark, u, head, nxt, val, touched, sset, ins, nbm,
                                      stamp, stamp2, k23rows, k23_comb)
            _bowtie_hits(indptr, indices, table, h, mark, u, ea, eb, bowtie_bulk, lid, lptr, lidx, lfill, lmk, lmk2,
                         ltx, lcnt, ltouch, lwl, bowrows)
    return hits


# --------------------------------------------------------------------------- 5-vertex closed forms (single patterns)


@nb.njit(cache=True)
def _triangle_k4_chunk(indptr, indices, te, c, nchunks, out):
    n = indptr.shape[0] - 1
    mark = np.full(n, -1, dtype=np.int64)    # mark[x] == u: x ~ u
    pos = np.zeros(n, dtype=np.int64)        # the arc u -> x
    mark2 = np.full(n, -1, dtype=np.int64)   # mark2[x] == j: x is a common neighbour of the arc j = (u, v)
    lst = np.empty(n, dtype=np.int64)
    lq = np.empty(n, dtype=np.int64)
    for u in range(c, n, nchunks):
        for j in range(indptr[u], indptr[u + 1]):
            x = indices[j]
            mark[x] = u
            pos[x] = j
        du = indptr[u + 1] - indptr[u]
        s0 = 0
        s1 = 0
        s2 = 0
        s3 = 0
        s4 = 0
        s5 = 0
        for j in range(indptr[u], indptr[u + 1]):
            v = indices[j]
            if v <= u:
                continue
            dv = indptr[v + 1] - indptr[v]
            nl = 0
            for q in range(indptr[v], indptr[v + 1]):
                w = indices[q]
                if mark[w] == u:
                    mark2[w] = j
                    lst[nl] = w
                    lq[nl] = q
                    nl += 1
            tuv = te[j] - 1
            for i in range(nl):
                w = lst[i]
                if w <= v:
                    continue
                # triangle u < v < w (w has the smallest degree on the degree-descending CSR): its K4 extensions
                k = 0
                for r in range(indptr[w], indptr[w + 1]):
                    if mark2[indices[r]] == j:
                        k += 1
                tvw = te[lq[i]] - 1
                tuw = te[pos[w]] - 1
                s0 += k
                s1 += k * (k - 1) // 2
                s2 += k * (tuv + tvw + tuw - 3)
                s3 += tuv * tuw + tuv * tvw + tuw * tvw
                dw = indptr[w + 1] - indptr[w]
                s4 += du * tvw + dv * tuw + dw * tuv
                s5 += k * (du + dv + dw)
        out[u, 0] = s0
        out[u, 1] = s1
        out[u, 2] = s2
        out[u, 3] = s3
        out[u, 4] = s4
        out[u, 5] = s5


@nb.njit(parallel=True, cache=True)
def triangle_k4_sums(indptr, indices, te, nchunks):
    """Per vertex u, over the triangles u < v < w of the degree-descending CSR (each triangle once), with
    k = |N(u) ∩ N(v) ∩ N(w)| (its 4-clique extensions) and t_e = te of its three edges (``te`` from
    :func:`arc_triangles` on the same CSR), the four sums

        Σ k,   Σ C(k, 2),   Σ k (t_uv + t_vw + t_uw − 6),   Σ over the three pairs of its edges (t_e − 1)(t_f − 1)

    (4 × 4-cliques, K5 − e, 2 × (K4 + a vertex on two of its vertices), the gem's P4 sum), and with d the
    degrees, Σ over the three vertices of d_x (t_opposite edge − 1) (= Σ_v d_v · diamond wings at v) and
    Σ k (d_u + d_v + d_w) (= 3 Σ_v d_v · 4-cliques at v). Cost: each edge
    once with a scan of its lower-degree end's row, and a scan of each triangle's lowest-degree row."""
    n = indptr.shape[0] - 1
    out = np.zeros((n, 6), dtype=np.int64)
    for c in nb.prange(nchunks):
        _triangle_k4_chunk(indptr, indices, te, c, nchunks, out)
    return out


@nb.njit(cache=True)
def triangle_k4_sums_serial(indptr, indices, te):
    """:func:`triangle_k4_sums` on the calling thread (small graphs: no thread-pool start)."""
    n = indptr.shape[0] - 1
    out = np.zeros((n, 6), dtype=np.int64)
    _triangle_k4_chunk(indptr, indices, te, 0, 1, out)
    return out


@nb.njit(cache=True)
def _pair_codegree_chunk(indptr, indices, c, nchunks, out):
    n = indptr.shape[0] - 1
    cnt = np.zeros(n, dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    for v in range(c, n, nchunks):
        nt = 0
        s3 = 0
        for j in range(indptr[v], indptr[v + 1]):
            a = indices[j]
            for q in range(indptr[a], indptr[a + 1]):
                w = indices[q]
                if w >= v:      # rows ascending: each pair {w, v} once, from its larger id
                    break
                x = cnt[w]
                if x == 0:
                    touched[nt] = w
                    nt += 1
                s3 += x * (x - 1) // 2   # C(x + 1, 3) − C(x, 3)
                cnt[w] = x + 1
        for i in range(nt):
            cnt[touched[i]] = 0
        out[v] = s3


@nb.njit(parallel=True, cache=True)
def pair_codegree_triples(indptr, indices, nchunks):
    """out[v] = Σ_{w < v} C(|N(v) ∩ N(w)|, 3): summed, the K2,3 copies (each vertex pair once, from its larger
    id, through the 2-paths v − a − w). Cost Σ_a C(d_a, 2) counter updates (rows must be sorted)."""
    n = indptr.shape[0] - 1
    out = np.zeros(n, dtype=np.int64)
    for c in nb.prange(nchunks):
        _pair_codegree_chunk(indptr, indices, c, nchunks, out)
    return out


@nb.njit(cache=True)
def pair_codegree_triples_serial(indptr, indices):
    """:func:`pair_codegree_triples` on the calling thread (small graphs: no thread-pool start)."""
    n = indptr.shape[0] - 1
    out = np.zeros(n, dtype=np.int64)
    _pair_codegree_chunk(indptr, indices, 0, 1, out)
    return out


@nb.njit(cache=True)
def _wheel_chunk(indptr, indices, c, nchunks, dmax, maxl, out):
    n = indptr.shape[0] - 1
    mark = np.full(n, -1, dtype=np.int64)
    loc = np.zeros(n, dtype=np.int64)
    lptr = np.zeros(dmax + 1, dtype=np.int64)
    lidx = np.empty(max(maxl, 1), dtype=np.int64)
    cnt = np.zeros(max(dmax, 1), dtype=np.int64)
    touched = np.empty(max(dmax, 1), dtype=np.int64)
    for v in range(c, n, nchunks):
        base = indptr[v]
        dv = indptr[v + 1] - base
        if dv < 4:
            continue
        for i in range(dv):
            x = indices[base + i]
            mark[x] = v
            loc[x] = i
        # H = G[N(v)] as a local CSR over positions 0..dv-1 (rows ascending, as N(v) is)
        fill = 0
        for i in range(dv):
            lptr[i] = fill
            x = indices[base + i]
            for q in range(indptr[x], indptr[x + 1]):
                y = indices[q]
                if mark[y] == v:
                    lidx[fill] = loc[y]
                    fill += 1
        lptr[dv] = fill
        # 4-cycles of H, each once from its smallest position a: pairs of 2-paths a - x - b with x, b > a
        s = 0
        for a in range(dv):
            nt = 0
            for p in range(lptr[a], lptr[a + 1]):
                x = lidx[p]
                if x <= a:
                    continue
                for r in range(lptr[x + 1] - 1, lptr[x] - 1, -1):
                    b = lidx[r]
                    if b <= a:
                        break
                    if cnt[b] == 0:
                        touched[nt] = b
                        nt += 1
                    cnt[b] += 1
            for i in range(nt):
                b = touched[i]
                k = cnt[b]
                s += k * (k - 1) // 2
                cnt[b] = 0
        out[v] = s


@nb.njit(parallel=True, cache=True)
def wheel_hubs(indptr, indices, dmax, maxl, nchunks):
    """out[v] = 4-cycles of G[N(v)] (summed: the wheels W4, each once at its hub). ``maxl`` >= 2 t_v for
    every v (the local adjacency of N(v)). Cost per v: Σ_{x ~ v} d_x to build G[N(v)], then its 4-cycles from
    their smallest position (on the degree-descending CSR: their highest-degree vertex)."""
    n = indptr.shape[0] - 1
    out = np.zeros(n, dtype=np.int64)
    for c in nb.prange(nchunks):
        _wheel_chunk(indptr, indices, c, nchunks, dmax, maxl, out)
    return out


@nb.njit(cache=True)
def wheel_hubs_serial(indptr, indices, dmax, maxl):
    """:func:`wheel_hubs` on the calling thread (small graphs: no thread-pool start)."""
    n = indptr.shape[0] - 1
    out = np.zeros(n, dtype=np.int64)
    _wheel_chunk(indptr, indices, 0, 1, dmax, maxl, out)
    return out


# --------------------------------------------------------------------------- 4-vertex orbits, fused


def _orbits4_body(indptr, indices, new_id, cptr, cidx, cval, width, nchunks, nacc):
    """Induced graphlet orbits of up to 4 vertices (ORCA numbering, n × ``width`` int64, width 4 or 15) of a
    degree-descending CSR (smaller id = higher degree, rows sorted), returned in the caller's vertex order
    (row x is the vertex whose descending id is ``new_id[x]``): two parallel passes over the edges, one over
    the vertices that also solves the unitriangular system σ = C · orbits (the strictly upper part of C as
    rows ``cptr``/``cidx``/``cval``, from :func:`la_gpm.motifs.orbit_equations.orbit_matrix`).

    1. per edge u < v, from u with N(u) marked: one scan of N(v) gives t_uv (both arcs) and the wedges
       u - v - w with w > u, whose pairs close the 4-cycles with u as smallest id (Chiba & Nishizeki):
       C(c_w, 2) of them through u and through w, c_w - 1 through v per wedge (c_w wedges end at w);
    2. per u, the triangles u < v < w (N+(u) marked): each adds t_e - 1 of its edge opposite a vertex to
       that vertex's diamond-wing sum; the triangles give H = G[N+(u)] as a local CSR, whose triangles are the
       4-cliques with u as smallest id;
    3. per vertex: the sums over its row (s1, Σ C(d_u - 1, 2), Σ s1, Σ t_u, Σ C(t_vu, 2), Σ t_vu (d_u - 2)),
       the 15 non-induced counts σ (those of ``closed_forms.sigma4_columns``) and the back-substitution.

    Counts that land on another vertex than the pass's own (4-cycles, wings, 4-cliques) go to one array per
    thread (``nacc`` of them, by numba's thread id; 1 on the calling thread), summed in pass 3.  Every term is
    bounded by the caller's ``check_safe`` (m · dmax² < 2**62), as in the per-stage kernels."""
    n = indptr.shape[0] - 1
    full = width > 4
    te = np.zeros(indices.shape[0], dtype=np.int64)
    vs = np.zeros((n, 5), dtype=np.int64)            # s1, Σ C(d_u - 1, 2), t_v, Σ C(t_vu, 2), Σ t_vu (d_u - 2)
    acc = np.zeros((nacc, n, 3), dtype=np.int64)     # 4-cycles, wing sum, 4-cliques
    for c in nb.prange(nchunks):
        tid = nb.get_thread_id() if nacc > 1 else 0
        mine = acc[tid]
        mark = np.full(n, -1, dtype=np.int32)
        cnt = np.zeros(n if full else 0, dtype=np.int32)
        touched = np.empty(n if full else 0, dtype=np.int32)
        rv = np.empty(n, dtype=np.int64)          # per out-arc u -> v: the position of u in N(v)
        for u in range(c, n, nchunks):
            lo = indptr[u]
            hi = indptr[u + 1]
            a1 = 0
            a2 = 0
            for j in range(lo, hi):
                w = indices[j]
                mark[w] = u
                dw = np.int64(indptr[w + 1] - indptr[w])
                a1 += dw - 1
                a2 += (dw - 1) * (dw - 2) // 2
            vs[u, 0] = a1
            vs[u, 1] = a2
            up = _upper_bound(indices, lo, hi, u)
            nt = 0
            nw = 0
            for j in range(up, hi):
                v = indices[j]
                r = _lower_bound(indices, indptr[v], indptr[v + 1], u)   # u itself
                rv[j - up] = r
                nw += indptr[v + 1] - r - 1
                t = 0
                for q in range(indptr[v], r):
                    t += mark[indices[q]] == u
                if full:
                    # the wedges u - v - w, w > u: the row's suffix past u (branch-free list of new ends)
                    for q in range(r + 1, indptr[v + 1]):
                        w = indices[q]
                        t += mark[w] == u
                        touched[nt] = w
                        nt += cnt[w] == 0
                        cnt[w] += 1
                else:
                    for q in range(r + 1, indptr[v + 1]):
                        t += mark[indices[q]] == u
                te[j] = t
                te[r] = t
            if nt < nw:
                # some end w has two wedges or more: 4-cycles through u (sparse graphs mostly skip this)
                s = 0
                for i in range(nt):
                    w = touched[i]
                    x = np.int64(cnt[w])
                    if x > 1:
                        y = x * (x - 1) // 2
                        s += y
                        mine[w, 0] += y
                mine[u, 0] += s
                for j in range(up, hi):
                    v = indices[j]
                    sb = 0
                    for q in range(rv[j - up] + 1, indptr[v + 1]):
                        sb += cnt[indices[q]]
                    mine[v, 0] += sb - (indptr[v + 1] - rv[j - up] - 1)
            for i in range(nt):
                cnt[touched[i]] = 0
    for c in nb.prange(nchunks):
        tid = nb.get_thread_id() if nacc > 1 else 0
        mine = acc[tid]
        # N+(u) by local position l = j - up (none: n); per position: t_ul - 1, and the wing / 4-clique sums
        posl = np.full(n if full else 0, n, dtype=np.int64)
        tel = np.zeros(n + 1 if full else 0, dtype=np.int64)
        wloc = np.zeros(n + 1 if full else 0, dtype=np.int64)
        kloc = np.zeros(n if full else 0, dtype=np.int64)
        stamp = np.full(n if full else 0, -1, dtype=np.int64)
        lptr = np.empty(n + 1 if full else 0, dtype=np.int64)
        lidx = np.empty(max(16, indices.shape[0] // 8) if full else 0, dtype=np.int64)
        for u in range(c, n, nchunks):
            lo = indptr[u]
            hi = indptr[u + 1]
            t2 = 0
            b0 = 0
            b1 = 0
            for j in range(lo, hi):
                t = te[j]
                t2 += t
                b0 += t * (t - 1) // 2
                w = indices[j]
                b1 += t * (indptr[w + 1] - indptr[w] - 2)
            vs[u, 2] = t2 // 2
            vs[u, 3] = b0
            vs[u, 4] = b1
            if not full or t2 == 0:
                continue
            up = _upper_bound(indices, lo, hi, u)
            dout = hi - up
            for j in range(up, hi):
                posl[indices[j]] = j - up
                tel[j - up] = te[j] - 1
                wloc[j - up] = 0
                kloc[j - up] = 0
            # the triangles u < v < w (v at position a, w at l), branch-free: a miss (l = n) adds t_el[n] = 0 and
            # lands in the spare slot wloc[n]; H = G[N+(u)] as a local CSR over the positions (row of v: its w)
            wing = 0
            fill = 0
            for a in range(dout):
                lptr[a] = fill
                if tel[a] < 0:
                    continue                      # no triangle on u - v
                v = indices[up + a]
                q0 = _upper_bound(indices, indptr[v], indptr[v + 1], v)
                if fill + indptr[v + 1] - q0 > lidx.shape[0]:
                    grown = np.empty(2 * lidx.shape[0] + indptr[v + 1] - q0, dtype=np.int64)
                    for i in range(fill):             # (a loop: a slice copy here becomes a parfor)
                        grown[i] = lidx[i]
                    lidx = grown
                ta = tel[a]
                wv = 0
                for q in range(q0, indptr[v + 1]):
                    l = posl[indices[q]]
                    hit = np.int64(l != n)
                    wing += (te[q] - 1) * hit     # arcs: u - v at a, u - w at l, v - w at q
                    wv += tel[l]
                    wloc[l] += ta
                    lidx[fill] = l
                    fill += hit
                wloc[a] += wv
            lptr[dout] = fill
            # 4-cliques u < v < w < x: x in the H-rows of both v and w (per position in kloc, branch-free)
            k = 0
            for a in range(dout):
                if lptr[a + 1] - lptr[a] < 2:
                    continue
                key = lo + a                      # unique to (u, a)
                for i in range(lptr[a], lptr[a + 1]):
                    stamp[lidx[i]] = key
                ka = 0
                for i in range(lptr[a], lptr[a + 1]):
                    b = lidx[i]
                    kb = 0
                    for r in range(lptr[b], lptr[b + 1]):
                        x = lidx[r]
                        hit = np.int64(stamp[x] == key)
                        kb += hit
                        kloc[x] += hit
                    ka += kb
                    kloc[b] += kb
                kloc[a] += ka
                k += ka
            mine[u, 1] += wing
            mine[u, 2] += k
            for a in range(dout):
                w = indices[up + a]
                mine[w, 1] += wloc[a]
                mine[w, 2] += kloc[a]
                posl[w] = n
    out = np.empty((n, width), dtype=np.int64)
    for c in nb.prange(nchunks):
        sg = np.empty(15, dtype=np.int64)
        for x in range(c, n, nchunks):
            v = new_id[x]
            d = np.int64(indptr[v + 1] - indptr[v])
            t = vs[v, 2]
            sg[0] = d
            sg[1] = vs[v, 0]
            sg[2] = d * (d - 1) // 2
            sg[3] = t
            if full:
                ns1 = 0
                ntu = 0
                for j in range(indptr[v], indptr[v + 1]):
                    w = indices[j]
                    ns1 += vs[w, 0]
                    ntu += vs[w, 2]
                c4 = 0
                wg = 0
                k4 = 0
                for i in range(nacc):
                    c4 += acc[i, v, 0]
                    wg += acc[i, v, 1]
                    k4 += acc[i, v, 2]
                sg[4] = ns1 - d * (d - 1) - 2 * t
                sg[5] = (d - 1) * vs[v, 0] - 2 * t
                sg[6] = vs[v, 1]
                sg[7] = d * (d - 1) * (d - 2) // 6
                sg[8] = c4
                sg[9] = ntu - 2 * t
                sg[10] = vs[v, 4]
                sg[11] = t * (d - 2)
                sg[12] = wg
                sg[13] = vs[v, 3]
                sg[14] = k4
            for o in range(width - 1, -1, -1):
                r = sg[o]
                for e in range(cptr[o], cptr[o + 1]):
                    o2 = cidx[e]
                    if o2 < width:
                        r -= cval[e] * sg[o2]
                sg[o] = r
            for o in range(width):
                out[x, o] = sg[o]
    return out


from ..primitives.jit import parallel_and_serial  # noqa: E402  (kept beside its one use, below the ESU code)

orbits4, orbits4_serial = parallel_and_serial(_orbits4_body)
