"""Closed forms on the CPU: non-induced counts of small patterns without enumerating their copies.

* :func:`closed_form_noninduced` -- every 3- or 4-vertex class (FGLT / ESCAPE): star = Σ C(d,3),
  P4 = Σ_uv (d_u-1)(d_v-1) - 3T, paw = Σ_v t_v(d_v-2), diamond = Σ_e C(t_e,2), C4 counted once at its
  highest-rank vertex, K4 on the degree-ordered DAG.
* :func:`noninduced_orbits` -- the per-vertex version: σ_o(v), the non-induced copies of each graphlet
  of up to 4 vertices placing v at ORCA orbit o (FGLT's raw counts), assembled by
  :func:`sigma4_columns` (which the GPU's ``sigma4`` shares).
* :func:`bowtie_noninduced`, :func:`house_noninduced` -- two 5-vertex patterns from per-edge triangle
  counts (``la_gpm.count`` routes them here).

Every int64 term is bounded by :func:`~la_gpm.motifs.common.check_safe`; totals are exact Python ints.
"""

from __future__ import annotations

import numpy as np

from ..patterns.classes import classes
from .common import (check_safe, column_sums, deg_binomial_sum, degree_binomials, descending, exact_sum, nchunks,
                     prepare, serial_pass)

__all__ = ["closed_form_noninduced", "noninduced_orbits", "sigma4_columns", "bowtie_noninduced", "house_noninduced",
           "cycle4_noninduced", "diamond_noninduced"]

# k = 4 totals on the calling thread below this many arcs, else the thread pool: measured on 16 cores
# (census_small_gpu.json) karate (156 arcs) 0.003 against 0.025 ms, citeseer (9,072) 0.30 against 0.055 ms
# (with fewer numba threads than _POOL_MIN_THREADS, below serial_pass as before: on a loaded 2-core
# machine the pool took 16 ms against 0.08 ms on citeseer and 24 against 9 ms on email-Eu-core)
_SERIAL_ARCS_CENSUS4 = 2_048
_POOL_MIN_THREADS = 4


def _arc_triangles(ptr, idx):
    """Triangles on every arc (int64, CSR order), on the calling thread for small graphs."""
    from .cpu import arc_triangles, arc_triangles_serial
    return arc_triangles_serial(ptr, idx) if serial_pass(idx.size) else arc_triangles(ptr, idx, nchunks())


def closed_form_noninduced(G, k):
    """Non-induced counts (Python ints, class-row order) of every connected k-vertex class, k = 3 or 4."""
    from .cpu import census3_triangles_serial, census4_totals, census4_totals_serial
    from ..triangles.cpu import triangles_total

    wedges, stars = degree_binomials(G)
    if k == 3:
        if serial_pass(G.nnz):
            T = int(census3_triangles_serial(*descending(G)[:2]))
        else:
            T = int(triangles_total(*G.oriented())) if G.m else 0
        return [wedges, T]   # rows: wedge, triangle
    check_safe(G)
    ptr, idx, _ = descending(G)
    chunks = nchunks()
    if idx.size < _SERIAL_ARCS_CENSUS4 or (chunks < 4 * _POOL_MIN_THREADS and serial_pass(idx.size)):
        acc = census4_totals_serial(ptr, idx)
    else:
        acc = census4_totals(ptr, idx, chunks)
    dia, c4, k4, T, p4base, tdeg = column_sums(acc)
    N = {"4-path": p4base - 3 * T, "4-star": stars, "4-cycle": c4, "tailed-triangle": tdeg - 6 * T,
         "diamond": dia, "4-clique": k4}
    return [N[nm] for nm in classes(4).names]


# --------------------------------------------------------------------------- per vertex


def _census4_row(G, name) -> int:
    return closed_form_noninduced(G, 4)[classes(4).names.index(name)]


def cycle4_noninduced(G) -> int:
    """Non-induced 4-cycles (one pass of the 4-vertex census totals: each 4-cycle once at its highest-rank
    vertex; email-Enron 0.04 s on 2 cores against 1.3 s enumerated).

    >>> import la_gpm
    >>> cycle4_noninduced(la_gpm.datasets.load("karate"))
    154
    """
    return _census4_row(G, "4-cycle")


def diamond_noninduced(G) -> int:
    """Non-induced diamonds Σ_e C(t_e, 2) (the same pass; email-Enron 0.04 s against 0.6 s enumerated).

    >>> import la_gpm
    >>> diamond_noninduced(la_gpm.datasets.load("karate"))
    151
    """
    return _census4_row(G, "diamond")


def noninduced_orbits(G, k, with_extra=False):
    """Non-induced per-vertex orbit counts σ_o(v) (n × 1, 4 or 15 int64 for k = 2, 3, 4; FGLT's raw
    counts, in ORCA's orbit order).

    ``with_extra`` (k = 4) also returns an (n, 1) array: K2,3 copies with v on the 2-side."""
    from .cpu import arc_weighted_sums, neighbour_sums, vertex_closed_forms, vertex_closed_forms_serial

    n = G.n
    width = {2: 1, 3: 4, 4: 15}[k]
    s = np.zeros((n, width), dtype=np.int64)
    if n == 0:
        return s
    ptr, idx = G.indptr, G.indices
    d = G.degrees.astype(np.int64)
    s[:, 0] = d
    if k == 2:
        return s
    check_safe(G)
    s1 = neighbour_sums(ptr, idx, d - 1)
    serial = serial_pass(idx.size)
    te = _arc_triangles(ptr, idx)
    s[:, 1] = s1
    s[:, 2] = d * (d - 1) // 2
    if k == 3:
        cs = np.concatenate([[0], np.cumsum(te)])
        s[:, 3] = (cs[ptr[1:]] - cs[ptr[:-1]]) // 2
        return s
    vc = vertex_closed_forms_serial(ptr, idx, te) if serial else vertex_closed_forms(ptr, idx, te, nchunks())
    tv = vc[:, 0].copy()
    s[:, 3] = tv
    aw = arc_weighted_sums(ptr, idx, te, d, tv)
    sigma4_columns(s, d, s1, tv, neighbour_sums(ptr, idx, s1), neighbour_sums(ptr, idx, (d - 1) * (d - 2) // 2),
                   vc[:, 1], vc[:, 2], vc[:, 3], aw)
    return (s, vc[:, 4:5]) if with_extra else s


def sigma4_columns(s, d, s1, tv, nbr_s1, nbr_c2, c4, k4, wing, aw):
    """Fill the 15 columns of σ (n × 15, ORCA order) from its per-vertex ingredients (both backends).

    d degree, s1 = Σ_{u~v} (d_u - 1), tv triangles through v, nbr_s1 = Σ_{u~v} s1(u),
    nbr_c2 = Σ_{u~v} C(d_u - 1, 2), c4 4-cycles through v, k4 4-cliques through v, wing the
    diamond-wing sum, aw (n, 3) = (Σ_u C(t_vu, 2), Σ_u t_vu (d_u - 2), Σ_u (t_u - t_vu))."""
    s[:, 0] = d
    s[:, 1] = s1
    s[:, 2] = d * (d - 1) // 2
    s[:, 3] = tv
    s[:, 4] = nbr_s1 - d * (d - 1) - 2 * tv
    s[:, 5] = (d - 1) * s1 - 2 * tv
    s[:, 6] = nbr_c2
    s[:, 7] = d * (d - 1) * (d - 2) // 6
    s[:, 8] = c4
    s[:, 9] = aw[:, 2]
    s[:, 10] = aw[:, 1]
    s[:, 11] = tv * (d - 2)
    s[:, 12] = wing
    s[:, 13] = aw[:, 0]
    s[:, 14] = k4
    return s


# --------------------------------------------------------------------------- two 5-vertex patterns


def bowtie_noninduced(G) -> int:
    """Non-induced bowties (hourglasses: two triangles sharing one vertex) in O(triangle counting):

        Σ_v [ C(t_v, 2) − Σ_{x ∈ N(v)} C(t_vx, 2) ],

    t_v the triangles at v and t_vx those on edge vx: the pairs of triangles at v minus the pairs that
    also share an edge; a bowtie's centre is its only vertex of degree 4, so each is counted once.

    >>> import la_gpm
    >>> bowtie_noninduced(la_gpm.datasets.load("karate")) == la_gpm.count(la_gpm.datasets.load("karate"), "bowtie",
    ...                                                                     backend="cpu", closed_forms=False)
    True
    """
    G = prepare(G, "bowtie counting")
    if G.m == 0:
        return 0
    ptr, idx = G.indptr, G.indices
    te = _arc_triangles(ptr, idx)
    deg = np.diff(ptr)
    tv = np.zeros(G.n, dtype=np.int64)
    nz = deg > 0
    tv[nz] = np.add.reduceat(te, ptr[:-1][nz]) // 2  # each triangle at v is seen from both of its arcs at v
    return deg_binomial_sum(tv, 2) - deg_binomial_sum(te, 2)


def house_noninduced(G) -> int:
    """Non-induced houses (a 4-cycle with a triangle on one of its edges) without enumerating them:

        Σ over 4-cycles C of Σ_{e ∈ C} t_e  −  4 × (non-induced diamonds),

    t_e the triangles on edge e. A house is one 4-cycle plus one triangle sharing exactly one edge
    (its only triangle and only 4-cycle); the sum also counts, for every chord of a 4-cycle, the four
    (edge, apex) pairs whose apex is a cycle vertex, i.e. 4 per (4-cycle, chord) = 4 per diamond.

    >>> import la_gpm
    >>> G = la_gpm.datasets.load("karate")
    >>> house_noninduced(G) == la_gpm.count(G, "house", backend="cpu", closed_forms=False)
    True
    """
    from .cpu import cycle4_edge_weights

    G = prepare(G, "house counting")
    if G.m == 0:
        return 0
    check_safe(G)
    ptr, idx = G.indptr, G.indices
    te = _arc_triangles(ptr, idx)
    import numba
    _, wsum = cycle4_edge_weights(ptr, idx, np.asarray(G.degree_rank, dtype=np.int64), te,
                                  max(1, numba.get_num_threads()))
    N4 = dict(zip(classes(4).names, closed_form_noninduced(G, 4)))
    return exact_sum(wsum) - 4 * N4["diamond"]
