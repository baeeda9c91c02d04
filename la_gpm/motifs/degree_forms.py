"""Closed forms of single small patterns from degrees and triangle counts (non-induced, unlabeled, exact ints).

The engine table (:mod:`la_gpm.engines`) sends a pattern here when its canonical form is one of these,
however the pattern was given (a name, an edge list, a file):

- k-star (a centre and k − 1 leaves; the wedge is the 3-star): Σ_v C(d_v, k − 1);
- 4-path a–b–c–d: every edge bc as the middle, a ∈ N(b) \\ {c}, d ∈ N(c) \\ {b}, minus a = d (each triangle
  three times): Σ_{bc ∈ E} (d_b − 1)(d_c − 1) − 3T;
- tailed triangle (paw): a triangle through v and one more neighbour of v: Σ_v t_v (d_v − 2).

Each is O(n + m) after the triangle counts, against an enumeration of every copy (the 4-path on email-Enron:
10^10 copies). The same quantities drive the 4-vertex census (:mod:`la_gpm.motifs.closed_forms`).
"""

from __future__ import annotations

import numpy as np

from .common import deg_binomial_sum, exact_sum, weighted_sum

__all__ = ["star_noninduced", "path4_noninduced", "tailed_triangle_noninduced"]


def star_noninduced(G, k: int) -> int:
    """Copies of the k-vertex star: Σ_v C(d_v, k − 1).

    >>> import la_gpm
    >>> star_noninduced(la_gpm.datasets.load("karate"), 4)
    1764
    """
    return deg_binomial_sum(G.degrees, k - 1)


def path4_noninduced(G) -> int:
    """Copies of the 4-vertex path: Σ_{bc ∈ E} (d_b − 1)(d_c − 1) − 3T.

    >>> import la_gpm
    >>> path4_noninduced(la_gpm.datasets.load("karate"))
    2371
    """
    from ..triangles import triangle_count
    if G.m == 0:
        return 0
    d = G.degrees.astype(np.int64) - 1
    src = np.repeat(np.arange(G.n, dtype=np.int64), G.degrees)
    arcs = exact_sum(d[src] * d[G.indices.astype(np.int64)])   # every edge twice
    return arcs // 2 - 3 * triangle_count(G, backend="cpu")


def tailed_triangle_noninduced(G) -> int:
    """Copies of the tailed triangle (paw): Σ_v t_v (d_v − 2), t_v the triangles through v.

    >>> import la_gpm
    >>> tailed_triangle_noninduced(la_gpm.datasets.load("karate"))
    924
    """
    from ..triangles import triangles_per_vertex
    if G.m == 0:
        return 0
    t = np.asarray(triangles_per_vertex(G, backend="cpu"), dtype=np.int64)
    return weighted_sum(G.degrees.astype(np.int64) - 2, t)
