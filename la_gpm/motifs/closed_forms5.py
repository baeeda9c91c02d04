"""Closed forms of single connected 5-vertex patterns (non-induced, unlabeled, unique copies, exact ints).

``la_gpm.count(G, P)`` reaches these through the engine table's ``closed_form`` row by canonical form
(:func:`formula_of`), so any spelling of the pattern (an edge list in any vertex order) gets its formula.
They cover 17 of the 21 connected 5-vertex classes; with the bowtie and the house
(:mod:`la_gpm.motifs.closed_forms`), the 5-star (:mod:`la_gpm.motifs.degree_forms`) and the 5-clique (the
clique engine), all 21.

**Pendant classes** (a vertex w of degree 1, attached at a; P = Q − w), from the 4-vertex per-vertex orbit
counts σ_o(v) (FGLT's raw counts, :func:`~la_gpm.motifs.closed_forms.sigma4_columns`) and the non-induced
4-vertex counts N4, the same identity as the census's hybrid (:func:`~la_gpm.motifs.hybrid.pendant_plans`):

    |Aut Q| · Q = |Stab_P(a)| Σ_v d_v σ_orb(a)(v) − deg_P(a) |Aut P| · P − Σ_{b ≁ a} |Aut(P + ab)| · (P + ab)

(a copy of P with a at v, plus a neighbour w of v: w is a new vertex, or one of P's vertices, which makes
P or a copy of P + ab). Only the one column σ_orb(a) that the class needs is computed:

| class | edges | orbit of a | ingredients | cost |
|---|---|---|---|---|
| fork (chair) | 0-1 1-2 0-3 0-4 | 6: star leaf, Σ_{u~v} C(d_u − 1, 2) | degrees, triangles | O(m) + triangles |
| 5-path | 0-2 1-2 1-3 0-4 | 4: P4 end, A(A(d − 1)) − d(d − 1) − 2t_v | degrees, triangles, 4-cycles | + 4-cycle count |
| cricket | 0-1 0-2 1-2 0-3 0-4 | 11: paw centre, t_v (d_v − 2) | per-vertex triangles | triangles |
| bull | 0-1 0-2 1-2 1-3 0-4 | 10: Σ_u t_vu (d_u − 2) | per-edge triangles | triangles |
| banner (C4 + pendant) | 0-2 1-2 0-3 1-3 0-4 | 8: 4-cycles through v | per-vertex 4-cycles | Σ_v Σ_{a~v} d_a |
| tadpole (triangle + 2-path) | 0-1 1-2 1-3 2-3 0-4 | 9: Σ_u (t_u − t_vu) | per-edge triangles | triangles |
| dart (diamond + pendant at a degree-3 vertex) | 0-1 0-2 1-2 0-3 1-3 0-4 | 13: Σ_u C(t_vu, 2) | per-edge triangles | triangles |
| kite (diamond + pendant at a degree-2 vertex) | 0-1 0-2 1-2 1-3 2-3 0-4 | 12: Σ_{triangles vab} (t_ab − 1) | per-vertex wing sums, 4-cliques | Σ_v Σ_{a~v} d_a |
| K4 + pendant | K4 on 0..3, 0-4 | 14: 4-cliques through v | per-vertex 4-cliques | Σ_v Σ_{a~v} d_a |

**Dense classes** (minimum degree >= 2):

* K2,3 = Σ_{pairs u<v} C(c_uv, 3), c_uv = |N(u) ∩ N(v)| (the 2-side is the unique pair of degree-3 vertices):
  one pass over the 2-paths, each pair once from its larger id, Σ_a C(d_a, 2) counter updates;
* book K1,1,3 (three triangles on one edge) = Σ_e C(t_e, 3): after the per-edge triangles, O(m);
* wheel W4 (a hub over a 4-cycle) = Σ_v C4(G[N(v)]): each neighbourhood built as a local CSR
  (Σ_v Σ_{x~v} d_x) and its 4-cycles counted from their highest-degree vertex (at most Σ_e t_e² steps);
* with every triangle listed once (degree-descending order) with k_t = its 4-clique extensions
  |N(a) ∩ N(b) ∩ N(c)| and the t_e of its three edges (:func:`~la_gpm.motifs.cpu.triangle_k4_sums`):
  - gem (fan: apex over a 4-path) = Σ_v P4(G[N(v)]) = Σ_triangles Σ_{apex} (t_apex,x − 1)(t_apex,y − 1) − 12 K4
    (the 4-path closed form inside each neighbourhood, where degrees are the t_e and triangles are the K4s at v);
  - K4 + a vertex joined to two of its vertices (K5 minus a 2-path) = Σ_{K4} Σ_{e ∈ K4} (t_e − 2)
    = ½ Σ_triangles k_t (t_ab + t_bc + t_ac − 6) (each K4 on an edge is seen from its two triangles on it);
  - K5 − e (two vertices joined to a triangle) = Σ_triangles C(k_t, 2);
* 5-cycle: the trace formula tr(A⁵) = 10·C5 + 30·T + 10 Σ_v (d_v − 2) t_v (Harary–Manvel; Alon–Yuster–Zwick),
  with every closed 5-walk counted from its lowest vertex of the degree-descending order and the walks that are
  not cycles subtracted there (:func:`cycle5_noninduced`): the 2- and 3-walks above each vertex, no A² or A³
  formed (three n-vectors per chunk);
* K2,3 + e (a diamond whose two degree-2 vertices share a third neighbour) = Σ_{u<w} e_uw (c_uw − 2), e_uw the
  edges inside N(u) ∩ N(w) (:func:`k23e_noninduced`): each pair from its lower id, c_uw from the 2-walks, e_uw
  from the triangles u x y with N(x) stamped.

The numba kernels of the last two (``cycle5_walks``, ``k23e_pairs``) live in this module, beside their formulas.

**Exactness.** Counts are Python ints. The int64 terms are bounded up front by :func:`overflow_reason`
(m·dmax² < 2**62 as the other closed forms, and per-vertex sums of at most C(dmax, 2) · 3 · dmax² terms for
the triangle pass and the pair codegrees; the 5-cycle's per-vertex walks and K2,3 + e's per-vertex
Σ_w e_uw c_uw are below dmax⁴ ≤ that bound); the engine table reads the same check and leaves a graph that
fails it to enumeration. Every division is checked (a wrong count is never returned).
"""

from __future__ import annotations

import functools
from math import comb

import numba as nb
import numpy as np

from ..exceptions import InvalidArgument
from ..patterns.classes import classes
from ..patterns.pattern import Pattern
from ..primitives.jit import parallel_and_serial
from .common import deg_binomial_sum, descending, exact_sum, nchunks, prepare, serial_pass, weighted_sum
from .hybrid import pendant_plans

__all__ = ["FIVE_VERTEX", "formula_of", "count5", "checked_graph", "overflow_reason", "pendant_noninduced", "k23_noninduced",
           "book_noninduced", "gem_noninduced", "k4_two_noninduced", "k5_minus_edge_noninduced", "wheel_noninduced",
           "cycle5_noninduced", "k23e_noninduced"]

# the connected 5-vertex classes by name, as edge lists (the rows of classes(5) they are)
FIVE_VERTEX = {
    "5-star": [(0, 1), (0, 2), (0, 3), (0, 4)],
    "fork": [(0, 1), (1, 2), (0, 3), (0, 4)],
    "5-path": [(0, 1), (1, 2), (2, 3), (3, 4)],
    "cricket": [(0, 1), (0, 2), (1, 2), (0, 3), (0, 4)],
    "bull": [(0, 1), (0, 2), (1, 2), (1, 3), (0, 4)],
    "banner": [(0, 1), (1, 2), (2, 3), (3, 0), (0, 4)],
    "tadpole": [(0, 1), (1, 2), (1, 3), (2, 3), (0, 4)],
    "5-cycle": [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)],
    "dart": [(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (0, 4)],
    "kite": [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (0, 4)],
    "K2,3": [(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)],
    "bowtie": [(0, 1), (0, 2), (1, 2), (0, 3), (0, 4), (3, 4)],
    "house": [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (1, 4)],
    "K4+pendant": [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (0, 4)],
    "book": [(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (0, 4), (1, 4)],
    "gem": [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (2, 3), (3, 4)],
    "K2,3+e": [(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3)],
    "K4+wedge": [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (0, 4), (1, 4)],
    "wheel": [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (2, 3), (3, 4), (4, 1)],
    "K5-e": [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4)],
    "5-clique": [(a, b) for a in range(5) for b in range(a + 1, 5)],
}

_PENDANT = {"fork": "σ6 Σ_{u~v} C(d_u − 1, 2)", "5-path": "σ4 A(A(d − 1)) − d(d − 1) − 2t_v",
            "cricket": "σ11 t_v (d_v − 2)", "bull": "σ10 Σ_{u~v} t_vu (d_u − 2)", "banner": "σ8 4-cycles through v",
            "tadpole": "σ9 Σ_{u~v} (t_u − t_vu)", "dart": "σ13 Σ_{u~v} C(t_vu, 2)",
            "kite": "σ12 Σ_{triangles vab} (t_ab − 1)", "K4+pendant": "σ14 4-cliques through v"}
_N4 = {nm: i for i, nm in enumerate(classes(4).names)}   # 4-star, 4-path, tailed-triangle, 4-cycle, diamond, 4-clique


def _row(edges) -> int:
    from ..patterns.classes import bit
    return int(classes(5).table[sum(1 << bit(min(a, b), max(a, b)) for a, b in edges)])


# --------------------------------------------------------------------------- the guard


def overflow_reason(G):
    """None when every int64 term of these closed forms is bounded below 2**62 on G, else the reason in words:
    m·dmax² (the per-vertex orbit columns, as :func:`~la_gpm.motifs.common.check_safe`) and C(dmax, 2)·3·dmax²
    (a vertex's share of the triangle pass, and of the pair codegrees' Σ C(c, 3))."""
    d = int(G.max_degree)
    if G.m * d * d >= 2**62:
        return f"m·dmax² = {G.m}·{d}² reaches 2**62 (int64 terms could overflow)"
    if comb(d, 2) * 3 * d * d >= 2**62:
        return f"C(dmax, 2)·3·dmax² with dmax = {d} reaches 2**62 (int64 per-vertex sums could overflow)"
    return None


def _check(G):
    why = overflow_reason(G)
    if why is not None:
        raise InvalidArgument(f"the 5-vertex closed forms stay exact in int64 only for bounded degrees: {why}; "
                              f"count with closed_forms=False (enumeration)")


def _exact_div(x, q, what):
    r, m = divmod(x, q)
    if m:
        raise AssertionError(f"{what}: {x} is not a multiple of {q}")
    return r


# --------------------------------------------------------------------------- ingredients, computed once per call


class _Ingredients:
    """The quantities of one graph that the formulas read, each computed on first use."""

    def __init__(self, G):
        self.G = G
        self.ptr, self.idx = G.indptr, G.indices
        self.d = G.degrees.astype(np.int64)
        self.serial = serial_pass(self.idx.size)
        self._cache = {}

    def _get(self, key, make):
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def te(self):
        """Triangles on every arc (CSR order)."""
        def make():
            from .cpu import arc_triangles, arc_triangles_serial
            return arc_triangles_serial(self.ptr, self.idx) if self.serial else arc_triangles(self.ptr, self.idx,
                                                                                               nchunks())
        return self._get("te", make)

    def tv(self):
        """Triangles through every vertex."""
        def make():
            cs = np.concatenate([[0], np.cumsum(self.te())])
            return (cs[self.ptr[1:]] - cs[self.ptr[:-1]]) // 2
        return self._get("tv", make)

    def cycle4(self):
        """(4-cycles, Σ_v d_v · 4-cycles through v): Chiba–Nishizeki wedge pairs at each cycle's highest-ranked
        vertex (:func:`~la_gpm.motifs.cpu.cycle4_edge_weights`), with arc weights d_x + d_y (a cycle's four edges
        hold each of its vertices twice)."""
        def make():
            import numba
            from .cpu import cycle4_edge_weights
            src = np.repeat(np.arange(self.G.n, dtype=np.int64), self.d)
            w = self.d[src] + self.d[self.idx.astype(np.int64)]
            c4, wsum = cycle4_edge_weights(self.ptr, self.idx, np.asarray(self.G.degree_rank, dtype=np.int64), w,
                                           max(1, numba.get_num_threads()))
            return exact_sum(c4), _exact_div(exact_sum(wsum), 2, "degree sums over the 4-cycles")
        return self._get("c4", make)

    def aw(self):
        """Per vertex (Σ_u C(t_vu, 2), Σ_u t_vu (d_u − 2), Σ_u (t_u − t_vu))."""
        from .cpu import arc_weighted_sums
        return self._get("aw", lambda: arc_weighted_sums(self.ptr, self.idx, self.te(), self.d, self.tv()))

    def census4(self):
        """(Σ_e C(t_e, 2), 4-cycles, 4-cliques, triangles, P4 base, Σ_triangles degrees) on the degree-descending CSR."""
        def make():
            from .cpu import census4_totals, census4_totals_serial
            from .common import column_sums
            ptr, idx, _ = descending(self.G)
            acc = census4_totals_serial(ptr, idx) if self.serial else census4_totals(ptr, idx, nchunks())
            return column_sums(acc)
        return self._get("census4", make)

    def triangles(self):
        return self._get("T", lambda: exact_sum(self.tv()) // 3)

    def n4(self, name):
        """The non-induced count of a 4-vertex class, from the cheapest ingredients that give it."""
        if name == "4-star":
            return deg_binomial_sum(self.d, 3)
        if name == "4-path":
            from .cpu import neighbour_sums
            return weighted_sum(self.d - 1, neighbour_sums(self.ptr, self.idx, self.d - 1)) // 2 - 3 * self.triangles()
        if name == "tailed-triangle":
            return weighted_sum(self.d - 2, self.tv())
        if name == "diamond":
            return deg_binomial_sum(self.te(), 2) // 2
        if name == "4-cycle":
            return self.cycle4()[0] if "c4" in self._cache else self.census4()[1]
        if name == "4-clique":
            return _exact_div(self.triangle_pass()[0], 4, "4-clique extensions") if "tri" in self._cache \
                else self.census4()[2]
        raise KeyError(name)

    def dsigma(self, o):
        """Σ_v d_v σ_o(v) (exact) for the non-induced 4-vertex orbit o (ORCA's numbering) that a pendant class
        reads: one column, from the cheapest pass that gives it."""
        from .cpu import neighbour_sums
        ptr, idx, d = self.ptr, self.idx, self.d
        if o == 8:
            return self.cycle4()[1]
        if o == 12:
            return self.triangle_pass()[4]
        if o == 14:
            return _exact_div(self.triangle_pass()[5], 3, "degree sums over the 4-cliques")
        if o == 4:
            s1 = neighbour_sums(ptr, idx, d - 1)
            col = neighbour_sums(ptr, idx, s1) - d * (d - 1) - 2 * self.tv()
        elif o == 6:
            col = neighbour_sums(ptr, idx, (d - 1) * (d - 2) // 2)
        elif o == 9:
            col = self.aw()[:, 2]
        elif o == 10:
            col = self.aw()[:, 1]
        elif o == 11:
            col = self.tv() * (d - 2)
        elif o == 13:
            col = self.aw()[:, 0]
        else:
            raise KeyError(o)
        return weighted_sum(d, col)

    def triangle_pass(self):
        """Exact totals of the six columns of :func:`~la_gpm.motifs.cpu.triangle_k4_sums`."""
        def make():
            from .cpu import arc_triangles, arc_triangles_serial, triangle_k4_sums, triangle_k4_sums_serial
            ptr, idx, _ = descending(self.G)
            if self.serial:
                out = triangle_k4_sums_serial(ptr, idx, arc_triangles_serial(ptr, idx))
            else:
                out = triangle_k4_sums(ptr, idx, arc_triangles(ptr, idx, nchunks()), nchunks())
            return [exact_sum(out[:, i]) for i in range(6)]
        return self._get("tri", make)


# --------------------------------------------------------------------------- kernels of the 5-cycle and K2,3+e
# (numba, on the degree-descending CSR: id 0 has the highest degree, rows ascending, so "the neighbours
# above v" are a row's tail, read backwards until an id <= v)


@nb.njit(cache=True)
def _cycle5_chunk(indptr, indices, c, nchunks, out):
    n = indptr.shape[0] - 1
    w2 = np.zeros(n, dtype=np.int64)
    mark = np.full(n, -1, dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    for v in range(c, n, nchunks):
        lo, hi = indptr[v], indptr[v + 1]
        top = hi                      # N(v)[top:] = the neighbours above v
        while top > lo and indices[top - 1] > v:
            top -= 1
            mark[indices[top]] = v
        if top == hi:                 # (one neighbour above v is enough for walks v a b c a v)
            continue
        below_v = top - lo            # neighbours of v below it (v's own row has no v)
        nt = 0
        dt = 0                        # Σ_a d⁺(a) t⁺(a): walks v a b a e v (and, reversed, v a b c b v)
        tt = 0                        # Σ_a t⁺(a): twice the triangles whose lowest id is v
        lt = 0                        # Σ_a (neighbours of a below v) t⁺(a)
        for j in range(hi - 1, top - 1, -1):
            a = indices[j]
            dp = 0
            tp = 0
            for q in range(indptr[a + 1] - 1, indptr[a] - 1, -1):
                x = indices[q]
                if x <= v:
                    break
                dp += 1
                if mark[x] == v:
                    tp += 1
                if w2[x] == 0:
                    touched[nt] = x
                    nt += 1
                w2[x] += 1
            dt += dp * tp
            tt += tp
            lt += (indptr[a + 1] - indptr[a] - 1 - dp) * tp
        # closed walks v a b c e v above v: Σ over edges bc above v of w2[b] w2[c], each edge once from b < c
        w = 0
        for i in range(nt):
            b = touched[i]
            s = 0
            for q in range(indptr[b + 1] - 1, indptr[b] - 1, -1):
                x = indices[q]
                if x <= b:
                    break
                s += w2[x]
            w += w2[b] * s
        for i in range(nt):
            w2[touched[i]] = 0
        out[v] = 2 * w - 2 * dt - below_v * tt - 2 * lt + tt


def _cycle5_walks_body(indptr, indices, nchunks):
    """out[v], summed and halved: the 5-cycles (each at its lowest id v, rows of the degree-descending CSR).
    out[v] = closed 5-walks v a b c e v with a, b, c, e above v, less the degenerate ones (a = c, b = e,
    a = e; + both a = c and b = e), the a = e walks (a triangle abc hung on the edge va) booked at the
    triangle's lowest vertex. Cost per v: the 2-paths and 3-paths of v's above-v part."""
    n = indptr.shape[0] - 1
    out = np.zeros(n, dtype=np.int64)
    for c in nb.prange(nchunks):
        _cycle5_chunk(indptr, indices, c, nchunks, out)
    return out


cycle5_walks, cycle5_walks_serial = parallel_and_serial(_cycle5_walks_body)


@nb.njit(cache=True)
def _k23e_chunk(indptr, indices, c, nchunks, out):
    n = indptr.shape[0] - 1
    cnt = np.zeros(n, dtype=np.int64)
    ed = np.zeros(n, dtype=np.int64)
    mark = np.full(n, -1, dtype=np.int64)
    markx = np.full(n, -1, dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    stamp = 0
    for u in range(c, n, nchunks):
        lo, hi = indptr[u], indptr[u + 1]
        if hi - lo < 3:
            continue
        for j in range(lo, hi):
            mark[indices[j]] = u
        nt = 0
        for j in range(lo, hi):
            x = indices[j]
            stamp += 1
            xlo, xhi = indptr[x], indptr[x + 1]
            # codegrees c_uw of the w above u; N(x) above u stamped
            for q in range(xhi - 1, xlo - 1, -1):
                w = indices[q]
                if w <= u:
                    break
                markx[w] = stamp
                if cnt[w] == 0:
                    touched[nt] = w
                    nt += 1
                cnt[w] += 1
            # edges xy inside N(u) (y > x): every w above u adjacent to both holds the edge xy in N(u) ∩ N(w)
            for q in range(xhi - 1, xlo - 1, -1):
                y = indices[q]
                if y <= x:
                    break
                if mark[y] != u:
                    continue
                for r in range(indptr[y + 1] - 1, indptr[y] - 1, -1):
                    w = indices[r]
                    if w <= u:
                        break
                    if markx[w] == stamp:
                        ed[w] += 1
        s = 0
        for i in range(nt):
            w = touched[i]
            s += ed[w] * (cnt[w] - 2)
            cnt[w] = 0
            ed[w] = 0
        out[u] = s


def _k23e_pairs_body(indptr, indices, nchunks):
    """out[u] = Σ_{w > u} e_uw (c_uw − 2), c_uw = |N(u) ∩ N(w)| and e_uw the edges inside N(u) ∩ N(w): summed,
    the K2,3+e copies (each once, from its 2-side pair {u, w}). Rows must be sorted."""
    n = indptr.shape[0] - 1
    out = np.zeros(n, dtype=np.int64)
    for c in nb.prange(nchunks):
        _k23e_chunk(indptr, indices, c, nchunks, out)
    return out


k23e_pairs, k23e_pairs_serial = parallel_and_serial(_k23e_pairs_body)


# --------------------------------------------------------------------------- the formulas


def checked_graph(G, what):
    """G prepared for ``what`` (simple, undirected), InvalidArgument where the int64 bound declines it."""
    G = prepare(G, what)
    _check(G)
    return G


def pendant_noninduced(G, name: str) -> int:
    """Non-induced copies of a 5-vertex class with a degree-1 vertex (``name`` one of fork, 5-path, cricket,
    bull, banner, tadpole, dart, kite, K4+pendant) from one 4-vertex orbit column (module docstring).

    >>> import la_gpm
    >>> pendant_noninduced(la_gpm.datasets.load("karate"), "bull")
    4908
    """
    if name not in _PENDANT:
        raise InvalidArgument(f"no pendant closed form named {name!r}; known: {sorted(_PENDANT)}")
    G = checked_graph(G, f"{name} counting")
    if G.m == 0:
        return 0
    ing = _Ingredients(G)
    o, stab, terms, autq = pendant_plans()[_row(FIVE_VERTEX[name])]
    names4 = classes(4).names
    inj = stab * ing.dsigma(o) + sum(c * ing.n4(names4[r]) for c, r in terms)
    return _exact_div(inj, autq, f"{name} embeddings by |Aut|")


def k23_noninduced(G) -> int:
    """Non-induced K2,3 copies: Σ_{u<v} C(|N(u) ∩ N(v)|, 3), each vertex pair once through its 2-paths.

    >>> import la_gpm
    >>> k23_noninduced(la_gpm.datasets.load("karate"))
    239
    """
    from .cpu import pair_codegree_triples, pair_codegree_triples_serial
    G = checked_graph(G, "K2,3 counting")
    if G.m == 0:
        return 0
    ptr, idx = G.indptr, G.indices
    out = pair_codegree_triples_serial(ptr, idx) if serial_pass(idx.size) else pair_codegree_triples(ptr, idx,
                                                                                                     nchunks())
    return exact_sum(out)


def book_noninduced(G) -> int:
    """Non-induced books K1,1,3 (three triangles on one edge): Σ_e C(t_e, 3).

    >>> import la_gpm
    >>> book_noninduced(la_gpm.datasets.load("karate"))
    198
    """
    G = checked_graph(G, "book counting")
    if G.m == 0:
        return 0
    return deg_binomial_sum(_Ingredients(G).te(), 3) // 2    # every edge twice (both arcs)


def gem_noninduced(G) -> int:
    """Non-induced gems (an apex over a 4-path): Σ_v P4(G[N(v)]) =
    Σ_triangles Σ_apex (t_apex,x − 1)(t_apex,y − 1) − 12 · 4-cliques.

    >>> import la_gpm
    >>> gem_noninduced(la_gpm.datasets.load("karate"))
    421
    """
    G = checked_graph(G, "gem counting")
    if G.m == 0:
        return 0
    s0, _, _, s3, _, _ = _Ingredients(G).triangle_pass()
    return s3 - 12 * _exact_div(s0, 4, "4-clique extensions of the triangles")


def k4_two_noninduced(G) -> int:
    """Non-induced copies of K4 plus a vertex joined to two of its vertices (K5 minus a 2-path):
    Σ_{K4} Σ_{e ∈ K4} (t_e − 2) = ½ Σ_triangles k_t (t_ab + t_bc + t_ac − 6).

    >>> import la_gpm
    >>> k4_two_noninduced(la_gpm.datasets.load("karate"))
    128
    """
    G = checked_graph(G, "K4+wedge counting")
    if G.m == 0:
        return 0
    return _exact_div(_Ingredients(G).triangle_pass()[2], 2, "K4 edge extensions")


def k5_minus_edge_noninduced(G) -> int:
    """Non-induced K5 − e (two vertices joined to all of a triangle): Σ_triangles C(k_t, 2).

    >>> import la_gpm
    >>> k5_minus_edge_noninduced(la_gpm.datasets.load("karate"))
    24
    """
    G = checked_graph(G, "K5-e counting")
    if G.m == 0:
        return 0
    return _Ingredients(G).triangle_pass()[1]


def wheel_noninduced(G) -> int:
    """Non-induced wheels W4 (a hub over a 4-cycle): Σ_v C4(G[N(v)]), each neighbourhood's 4-cycles counted
    from their highest-degree vertex.

    >>> import la_gpm
    >>> wheel_noninduced(la_gpm.datasets.load("karate"))
    43
    """
    from .cpu import wheel_hubs, wheel_hubs_serial
    G = checked_graph(G, "wheel counting")
    if G.m == 0:
        return 0
    ing = _Ingredients(G)
    maxl = int(2 * ing.tv().max())
    ptr, idx, _ = descending(G)
    d = int(G.max_degree)
    out = wheel_hubs_serial(ptr, idx, d, maxl) if ing.serial else wheel_hubs(ptr, idx, d, maxl, nchunks())
    return exact_sum(out)


def _descending_sums(G, what, parallel, serial) -> int:
    """Σ over the vertices of a per-vertex kernel (its parallel and serial builds) on G's degree-descending CSR,
    as a Python int (0 without edges)."""
    G = checked_graph(G, what)
    if G.m == 0:
        return 0
    ptr, idx, _ = descending(G)
    return exact_sum(serial(ptr, idx, 1) if serial_pass(idx.size) else parallel(ptr, idx, nchunks()))


def cycle5_noninduced(G) -> int:
    """Non-induced 5-cycles: the trace formula tr(A⁵) = 10·C5 + 30·T + 10 Σ_v (d_v − 2) t_v (Harary–Manvel;
    Alon–Yuster–Zwick) with each closed walk counted from the lowest id of the degree-descending order,
    without forming A² or A³:

        2·C5 = Σ_v [ W_v − 2 Σ_a d⁺_v(a) t⁺_v(a) − 2 Σ_a ℓ_v(a) t⁺_v(a) − ℓ_v(v) τ_v + τ_v ],

    W_v the closed 5-walks v a b c e v with a, b, c, e above v (= 2 Σ_{edges bc above v} w_b w_c,
    w_x the 2-walks v a x above v); for a ∈ N(v) above v, d⁺_v(a) its neighbours above v, t⁺_v(a) its
    common neighbours with v above v, ℓ_v(a) its neighbours below v; τ_v = Σ_a t⁺_v(a). The subtracted
    terms are the walks that are not cycles (a = c or b = e: a triangle at v with a pendant step;
    a = e: a triangle hung on the edge va, booked here at the triangle's lowest vertex; a = c and b = e:
    twice round a triangle at v, added back). Cost per v: the 2- and 3-walks of v above v (the hubs come
    first, so their walks stay among lower-degree vertices); memory: three n-vectors per chunk.
    Every per-vertex term is below dmax⁴ (the guard, :func:`overflow_reason`); the total is a Python int.

    >>> import la_gpm
    >>> cycle5_noninduced(la_gpm.datasets.load("karate"))
    374
    """
    return _exact_div(_descending_sums(G, "5-cycle counting", cycle5_walks, cycle5_walks_serial), 2,
                      "5-cycle walks (two directions)")


def k23e_noninduced(G) -> int:
    """Non-induced K2,3 + e (K2,3 with an edge on its 3-side; a diamond whose two degree-2 vertices share a
    third neighbour): Σ_{u<w} e_uw (c_uw − 2), c_uw = |N(u) ∩ N(w)| and e_uw the edges inside N(u) ∩ N(w).
    The 2-side {u, w} is the copy's only pair with three common neighbours, so each copy is counted once
    (a common-neighbour edge xy, and a third common neighbour z). Each pair once from its lower id of the
    degree-descending order: the 2-walks u x w give c_uw, the triangles u x y (y > x) with N(x) above u
    stamped give e_uw. Cost per u: Σ_{x ~ u} (d_x above u + d⁺(x)) and Σ_{triangles uxy} d_y above u.

    >>> import la_gpm
    >>> k23e_noninduced(la_gpm.datasets.load("karate"))
    157
    """
    return _descending_sums(G, "K2,3+e counting", k23e_pairs, k23e_pairs_serial)


# --------------------------------------------------------------------------- the table the engine reads

_DENSE = {
    "K2,3": (k23_noninduced, "K2,3 = Σ_{u<v} C(|N(u) ∩ N(v)|, 3)", "Σ_a C(d_a, 2) counter updates"),
    "book": (book_noninduced, "book = Σ_e C(t_e, 3) (K1,1,3: three triangles on one edge)", "per-edge triangles, then O(m)"),
    "gem": (gem_noninduced, "gem = Σ_triangles Σ_apex (t_ax − 1)(t_ay − 1) − 12 K4",
            "every triangle once with a scan of its lowest-degree row"),
    "K4+wedge": (k4_two_noninduced, "K4+wedge = ½ Σ_triangles k_t (t_ab + t_bc + t_ac − 6), k_t its K4 extensions",
                 "every triangle once with a scan of its lowest-degree row"),
    "wheel": (wheel_noninduced, "wheel = Σ_v 4-cycles of G[N(v)] (W4: a hub over a 4-cycle)",
              "Σ_v Σ_{x~v} d_x to build each neighbourhood, then its 4-cycles (Σ_e t_e² at most)"),
    "K5-e": (k5_minus_edge_noninduced, "K5-e = Σ_triangles C(k_t, 2), k_t its K4 extensions",
             "every triangle once with a scan of its lowest-degree row"),
    "5-cycle": (cycle5_noninduced, "5-cycle = (tr A⁵ − 30T − 10 Σ_v (d_v − 2) t_v) / 10, the closed 5-walks "
                "counted from their lowest vertex (degree-descending order) without forming A²",
                "the 2- and 3-walks above each vertex"),
    "K2,3+e": (k23e_noninduced, "K2,3+e = Σ_{u<w} e_uw (c_uw − 2), c_uw = |N(u) ∩ N(w)|, e_uw the edges inside it",
               "the 2-walks above each vertex and its triangles' rows above it"),
}


@functools.lru_cache(maxsize=1)
def _table():
    out = {}
    for name, col in _PENDANT.items():
        o, stab, terms, autq = pendant_plans()[_row(FIVE_VERTEX[name])]
        o = col.split()[0]
        text = (f"{name} = ({stab}·Σ_v d_v {o}(v) " + " ".join(f"{'−' if c < 0 else '+'} {abs(c)}·{classes(4).names[r]}"
                                                               for c, r in terms)
                + f") / {autq}, {o} = {' '.join(col.split()[1:]) or 'the non-induced 4-vertex orbit count'} "
                f"(a degree-1 vertex on a 4-vertex pattern)")
        out[Pattern(FIVE_VERTEX[name], k=5).canonical_key] = (name, functools.partial(pendant_noninduced, name=name),
                                                             text)
    for name, (fn, text, _cost) in _DENSE.items():
        out[Pattern(FIVE_VERTEX[name], k=5).canonical_key] = (name, fn, text)
    return out


def formula_of(P):
    """(name, function of G, formula in words) of the 5-vertex closed form of the unlabeled pattern P, or None."""
    if P.k != 5 or P.labeled:
        return None
    return _table().get(P.canonical_key)


def count5(G, P) -> int:
    """Non-induced unique copies of the 5-vertex pattern P through its closed form (InvalidArgument if none)."""
    f = formula_of(P)
    if f is None:
        raise InvalidArgument("no 5-vertex closed form is known for this pattern")
    return f[1](G)
