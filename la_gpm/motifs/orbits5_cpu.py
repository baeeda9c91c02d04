"""numba kernels of the 5-vertex graphlet orbits (:mod:`la_gpm.motifs.orbits5`).

* :func:`triangle_lists` -- for every arc u -> v of the symmetric CSR, the sorted common neighbours w of u and v
  (CSR over arcs, offsets = cumulative per-arc triangle counts), with the arc index of v -> w and the number of
  common neighbours of the triangle {u, v, w} (its 4-clique extensions).
* :func:`orbit5_features` -- per vertex x, the 58 feature sums f_15 .. f_72 (one per 5-vertex orbit, named after
  the orbit it targets; the definitions are in the module notes of :mod:`la_gpm.motifs.orbits5`).

Every count is int64 (bounded by 4·dmax^4 per vertex: :func:`la_gpm.motifs.orbits5.check_orbit5_safe`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..primitives.jit import parallel_and_serial
from ..primitives.sorted_ops import intersect_count

__all__ = ["triangle_lists", "orbit5_features", "orbit5_features_serial", "NFEAT"]

NFEAT = 58          # features f_15 .. f_72, column j targets orbit 15 + j


@nb.njit(cache=True)
def _fill_lists(ptr, idx, tl_ptr, tl_w, tl_arc, u, mark):
    for q in range(ptr[u], ptr[u + 1]):
        mark[idx[q]] = u + 1
    for q in range(ptr[u], ptr[u + 1]):
        v = idx[q]
        p = tl_ptr[q]
        for s in range(ptr[v], ptr[v + 1]):
            w = idx[s]
            if mark[w] == u + 1:
                tl_w[p] = w
                tl_arc[p] = s
                p += 1
    for q in range(ptr[u], ptr[u + 1]):
        mark[idx[q]] = 0


def _triangle_lists_body(ptr, idx, tl_ptr, nchunks):
    n = ptr.shape[0] - 1
    size = tl_ptr[-1]
    tl_w = np.empty(size, dtype=np.int32)
    tl_arc = np.empty(size, dtype=np.int64)
    tl_k4 = np.empty(size, dtype=np.int64)
    for c in nb.prange(nchunks):
        mark = np.zeros(n, dtype=np.int64)
        for u in range(c, n, nchunks):
            _fill_lists(ptr, idx, tl_ptr, tl_w, tl_arc, u, mark)
    for c in nb.prange(nchunks):
        for u in range(c, n, nchunks):
            for q in range(ptr[u], ptr[u + 1]):
                for p in range(tl_ptr[q], tl_ptr[q + 1]):
                    s = tl_arc[p]           # arc v -> w: |N(u) ∩ N(v) ∩ N(w)| = |L(u,v) ∩ L(v,w)|
                    tl_k4[p] = intersect_count(tl_w, tl_ptr[q], tl_ptr[q + 1], tl_w, tl_ptr[s], tl_ptr[s + 1])
    return tl_w, tl_arc, tl_k4


_triangle_lists, _triangle_lists_serial = parallel_and_serial(_triangle_lists_body)


def triangle_lists(ptr, idx, tl_ptr, nchunks, serial=False):
    """(tl_w, tl_arc, tl_k4): per arc q = u -> v the common neighbours w (tl_w[tl_ptr[q]:tl_ptr[q+1]], sorted),
    the arc index of v -> w, and |N(u) ∩ N(v) ∩ N(w)|."""
    if serial:
        return _triangle_lists_serial(ptr, idx, tl_ptr, 1)
    return _triangle_lists(ptr, idx, tl_ptr, nchunks)


@nb.njit(cache=True)
def _vertex_features(x, ptr, idx, deg, tri, tl_ptr, tl_w, tl_arc, tl_k4, posx, cx, posa, kc, touched, cxa, m, f):
    """The 58 feature sums of vertex x into f (zeroed here); scratch arrays are zero on entry and on exit."""
    for j in range(f.shape[0]):
        f[j] = 0
    dx = deg[x]
    x0 = ptr[x]
    x1 = ptr[x + 1]
    if x1 == x0:
        return
    # --- per x: adjacency to x (arc + 1), common neighbours with x, |N(x) ∩ N(c) ∩ N(d)| per arc c -> d
    for q in range(x0, x1):
        posx[idx[q]] = q + 1
    for q in range(x0, x1):
        a = idx[q]
        for r in range(ptr[a], ptr[a + 1]):
            v = idx[r]
            if v != x:
                cx[v] += 1
    for q in range(x0, x1):
        u = idx[q]
        for e in range(ptr[u], ptr[u + 1]):
            for p in range(tl_ptr[e], tl_ptr[e + 1]):
                m[tl_arc[p]] += 1
    sdeg = 0                    # Σ_{c ∈ N(x)} deg c,  Σ_{c ∈ N(x)} cx[c]
    scx = 0
    for q in range(x0, x1):
        sdeg += deg[idx[q]]
        scx += cx[idx[q]]
    s1 = sdeg - dx              # Σ_{b ∈ N(x)} (deg b - 1)
    # R7 (non-induced 3-star at x) + w ~ x: target 23
    f[23 - 15] = dx * (dx - 1) * (dx - 2) // 6 * (dx - 3)

    for qa in range(x0, x1):
        a = idx[qa]
        da = deg[a]
        a0 = ptr[a]
        a1 = ptr[a + 1]
        for r in range(a0, a1):
            posa[idx[r]] = r + 1
        for p in range(tl_ptr[qa], tl_ptr[qa + 1]):
            u = tl_w[p]
            for s in range(ptr[u], ptr[u + 1]):
                cxa[idx[s]] += 1
        txa = tri[qa]

        # R6 (non-induced: x - a, two more neighbours of a) + w ~ a: target 22
        f[22 - 15] += (da - 1) * (da - 2) // 2 * (da - 3)

        # R5 (non-induced path b - x - a - c: b ∈ N(x) \ {a}, c ∈ N(a) \ {x, b}) + w ~ b / a / x: targets 17, 20,
        # 21; the c's of b number da - 1 - [a ~ b], so the pairs (b, c) number (dx - 1)(da - 1) - t_xa
        npair = (dx - 1) * (da - 1) - txa
        sb = 0
        for p in range(tl_ptr[qa], tl_ptr[qa + 1]):
            sb += deg[tl_w[p]] - 1
        f[17 - 15] += (da - 1) * (s1 - (da - 1)) - sb
        f[20 - 15] += npair * (da - 2)
        f[21 - 15] += npair * (dx - 2)

        # one walk a - b - c over b ∈ N(a) \ N[x] serves two roles:
        #  R4, induced path x - a - b - c (c ∉ N[x] ∪ N[a]);
        #  R8, induced 4-cycle x - a - b - c - x (renamed: c ∈ N(x), c > a, c !~ a).
        # kc[v] counts the b's of v: |N(a) ∩ N(v) \ N[x]|, which with cxa gives |N(a) ∩ N(v)|.
        nt = 0
        tot4 = 0
        tot8 = 0
        s27 = 0
        for rb in range(a0, a1):
            b = idx[rb]
            if b == x or posx[b]:
                continue
            n4 = 0
            n8 = 0
            for rc in range(ptr[b], ptr[b + 1]):
                c = idx[rc]
                if c == a or posa[c]:
                    continue
                if posx[c]:
                    if c > a:               # R8: the 4-cycle x - a - b - c - x (b opposite to x)
                        if kc[c] == 0:
                            touched[nt] = c
                            nt += 1
                        kc[c] += 1
                        n8 += 1
                    continue
                if c == x:
                    continue
                if kc[c] == 0:              # R4: the path x - a - b - c
                    touched[nt] = c
                    nt += 1
                kc[c] += 1
                n4 += 1
                s27 += tri[rc]
            db = deg[b]
            f[18 - 15] += n4 * (db - 2)
            f[24 - 15] += n4 * tri[rb]
            f[36 - 15] += n8 * (db - 2)
            f[50 - 15] += n8 * (cx[b] - 2)
            tot4 += n4
            tot8 += n8
        f[16 - 15] += tot4 * (dx - 1)
        f[19 - 15] += tot4 * (da - 2)
        f[27 - 15] += s27
        f[29 - 15] += tot4 * txa
        f[37 - 15] += tot8 * (da - 2)
        f[38 - 15] += tot8 * (dx - 2)
        f[53 - 15] += tot8 * txa
        # per c touched: R4 ends c !~ x (kc paths end there): deg c - 1, |N(x) ∩ N(c)|, |N(x) ∩ N(a) ∩ N(c)| and
        # |N(a) ∩ N(c)| - 1 = kc + cxa - 1; R8 other neighbours c of x (kc cycles): deg c - 2, t_xc,
        # |N(x) ∩ N(a) ∩ N(c)| and |N(a) ∩ N(c)| - 2 = kc + 1 + cxa - 2
        for i in range(nt):
            c = touched[i]
            k = kc[c]
            kc[c] = 0
            if posx[c]:
                f[37 - 15] += k * (deg[c] - 2)
                f[49 - 15] += k * (k + cxa[c] - 1)
                f[53 - 15] += k * tri[posx[c] - 1]
                f[64 - 15] += k * cxa[c]
            else:
                f[15 - 15] += k * (deg[c] - 1)
                f[34 - 15] += k * cx[c]
                f[52 - 15] += k * cxa[c]
                f[35 - 15] += k * (k + cxa[c] - 1)

        # R9: induced paw, x pendant at a, triangle a, b, c (b < c)
        for rb in range(a0, a1):
            b = idx[rb]
            if b == x or posx[b]:
                continue
            db = deg[b]
            for p in range(tl_ptr[rb], tl_ptr[rb + 1]):
                c = tl_w[p]
                if c <= b or c == x or posx[c]:
                    continue
                bc = tl_arc[p]
                f[28 - 15] += dx - 1
                f[31 - 15] += da - 3
                f[39 - 15] += tri[rb] - 1 + tri[posa[c] - 1] - 1
                f[43 - 15] += txa
                f[45 - 15] += tri[bc] - 1
                f[51 - 15] += cx[b] - 1 + cx[c] - 1
                f[56 - 15] += tl_k4[p]
                f[59 - 15] += cxa[b] + cxa[c]
                f[62 - 15] += m[bc] - 1

        # R10: induced paw, x in the triangle x, a, b; pendant c at a (counted, not listed)
        for p in range(tl_ptr[qa], tl_ptr[qa + 1]):
            b = tl_w[p]
            nc = da - txa - tri[tl_arc[p]] + cxa[b]
            if nc == 0:
                continue
            f[25 - 15] += nc * (deg[b] - 2)
            f[26 - 15] += nc * (dx - 2)
            f[32 - 15] += nc * (da - 3)

        # R11: induced paw with x at the centre: edge a < b in N(x), c ∈ N(x) adjacent to neither
        for p in range(tl_ptr[qa], tl_ptr[qa + 1]):
            b = tl_w[p]
            if b <= a:
                continue
            qb = posx[b] - 1
            # excluded c: {a, b} ∪ (N(x) ∩ (N(a) ∪ N(b)))
            ne = 0
            edeg = 0
            ecx = 0
            for p2 in range(tl_ptr[qa], tl_ptr[qa + 1]):     # N(x) ∩ N(a), b among them
                c = tl_w[p2]
                ne += 1
                edeg += deg[c]
                ecx += cx[c]
            for p2 in range(tl_ptr[qb], tl_ptr[qb + 1]):     # N(x) ∩ N(b) \ N(a), a among them
                c = tl_w[p2]
                if posa[c]:
                    continue
                ne += 1
                edeg += deg[c]
                ecx += cx[c]
            nc = dx - ne
            if nc == 0:
                continue
            f[30 - 15] += (sdeg - edeg) - nc
            f[33 - 15] += nc * (dx - 3)
            f[44 - 15] += scx - ecx

        # R12: induced diamond, x of degree 2: x ~ a, b; a ~ b; c ~ a, b; c !~ x (a < b)
        for p in range(tl_ptr[qa], tl_ptr[qa + 1]):
            b = tl_w[p]
            if b <= a:
                continue
            ab = tl_arc[p]
            db = deg[b]
            tb = tri[posx[b] - 1]
            for p2 in range(tl_ptr[ab], tl_ptr[ab + 1]):
                c = tl_w[p2]
                if c == x or posx[c]:
                    continue
                bc = tl_arc[p2]
                f[40 - 15] += (da - 3) + (db - 3)
                f[46 - 15] += deg[c] - 2
                f[47 - 15] += dx - 2
                f[54 - 15] += tri[ab] - 2
                f[60 - 15] += txa - 1 + tb - 1
                f[63 - 15] += cx[c] - 2
                f[65 - 15] += tl_k4[p2]
                f[66 - 15] += cxa[b]
                f[68 - 15] += cxa[c] - 1 + m[bc] - 1

        # R13: induced diamond, x of degree 3; here a is a degree-2 vertex o, y the other degree-3 vertex,
        # z the other degree-2 vertex (a < z, z !~ a)
        for p in range(tl_ptr[qa], tl_ptr[qa + 1]):
            y = tl_w[p]
            qy = posx[y] - 1
            ty = tri[qy]
            dy = deg[y]
            for p2 in range(tl_ptr[qy], tl_ptr[qy + 1]):
                z = tl_w[p2]
                if z <= a or posa[z]:
                    continue
                yz = tl_arc[p2]
                f[41 - 15] += dy - 3
                f[42 - 15] += dx - 3
                f[48 - 15] += (da - 2) + (deg[z] - 2)
                f[55 - 15] += ty - 2
                f[61 - 15] += txa - 1 + tri[posx[z] - 1] - 1
                f[67 - 15] += cxa[y] + m[yz]
                f[69 - 15] += cxa[z] - 1

        # R14: 4-clique x, a, b, c (a < b < c)
        for p in range(tl_ptr[qa], tl_ptr[qa + 1]):
            b = tl_w[p]
            if b <= a:
                continue
            ab = tl_arc[p]
            db = deg[b]
            for p2 in range(tl_ptr[ab], tl_ptr[ab + 1]):
                c = tl_w[p2]
                if c <= b or posx[c] == 0:
                    continue
                bc = tl_arc[p2]
                f[57 - 15] += (da - 3) + (db - 3) + (deg[c] - 3)
                f[58 - 15] += dx - 3
                f[70 - 15] += tl_k4[p2] - 1
                f[71 - 15] += cxa[b] - 1 + cxa[c] - 1 + m[bc] - 1
                k5 = 0
                for p3 in range(tl_ptr[bc], tl_ptr[bc + 1]):
                    d = tl_w[p3]
                    if posx[d] and posa[d]:
                        k5 += 1
                f[72 - 15] += k5

        # reset the per-a scratch
        for p in range(tl_ptr[qa], tl_ptr[qa + 1]):
            u = tl_w[p]
            for s in range(ptr[u], ptr[u + 1]):
                cxa[idx[s]] = 0
        for r in range(a0, a1):
            posa[idx[r]] = 0

    # reset the per-x scratch
    for q in range(x0, x1):
        u = idx[q]
        for e in range(ptr[u], ptr[u + 1]):
            for p in range(tl_ptr[e], tl_ptr[e + 1]):
                m[tl_arc[p]] = 0
    for q in range(x0, x1):
        a = idx[q]
        for r in range(ptr[a], ptr[a + 1]):
            cx[idx[r]] = 0
    for q in range(x0, x1):
        posx[idx[q]] = 0


def _orbit5_features_body(ptr, idx, deg, tri, tl_ptr, tl_w, tl_arc, tl_k4, nchunks):
    n = ptr.shape[0] - 1
    out = np.zeros((n, NFEAT), dtype=np.int64)
    for c in nb.prange(nchunks):
        posx = np.zeros(n, dtype=np.int64)
        cx = np.zeros(n, dtype=np.int64)
        posa = np.zeros(n, dtype=np.int64)
        kc = np.zeros(n, dtype=np.int64)
        touched = np.zeros(n, dtype=np.int64)
        cxa = np.zeros(n, dtype=np.int64)
        m = np.zeros(idx.shape[0], dtype=np.int64)
        f = np.zeros(NFEAT, dtype=np.int64)
        for x in range(c, n, nchunks):
            _vertex_features(x, ptr, idx, deg, tri, tl_ptr, tl_w, tl_arc, tl_k4, posx, cx, posa, kc, touched, cxa, m, f)
            for j in range(NFEAT):
                out[x, j] = f[j]
    return out


orbit5_features, orbit5_features_serial = parallel_and_serial(_orbit5_features_body)


@nb.njit(cache=True)
def back_substitute(F, low, glow, diag, optr, ocol, oval, order):
    """out[:, j] = (F[:, j] - glow[j, 0] - Σ_o glow[j, 1 + o] low[:, o] - Σ_{j2} G5[j, j2] out[:, j2]) / diag[j],
    rows j in ``order`` (each row's off-diagonal entries, ocol/oval[optr[j]:optr[j+1]], solved before it).
    Returns (out, number of inexact divisions)."""
    n = F.shape[0]
    k = F.shape[1]
    out = np.zeros((n, k), dtype=np.int64)
    bad = 0
    for v in range(n):
        for t in range(k):
            j = order[t]
            s = F[v, j] - glow[j, 0]
            for o in range(low.shape[1]):
                s -= glow[j, 1 + o] * low[v, o]
            for e in range(optr[j], optr[j + 1]):
                s -= oval[e] * out[v, ocol[e]]
            q = s // diag[j]
            if q * diag[j] != s:
                bad += 1
            out[v, j] = q
    return out, bad
