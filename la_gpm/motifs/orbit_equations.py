"""ORCA's graphlet orbits of up to 4 vertices and the equations that turn non-induced per-vertex counts into them.

Orbits (Pržulj / ORCA numbering): 0 edge; 1, 2 path of 3 (end, centre); 3 triangle; 4, 5 path of 4
(end, interior); 6, 7 star (leaf, centre); 8 4-cycle; 9, 10, 11 paw (pendant, degree-2 triangle vertex,
centre); 12, 13 diamond (degree 2, degree 3); 14 4-clique.

The non-induced per-vertex counts σ (:func:`la_gpm.motifs.closed_forms.noninduced_orbits`) are
σ = C · orbits with C[o][o'] the copies of orbit o's graphlet (as a spanning edge subset) that place a
vertex of orbit o' at orbit o (:func:`orbit_matrix`); C is unitriangular in ORCA's order, so
:func:`solve_orbits` back-substitutes.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from ..patterns.classes import bit, code_edges, is_connected_code

__all__ = ["ORBITS_4", "orca_orbit", "orbit_matrix", "solve_orbits"]

ORBITS_4 = 15
# ORCA orbit of a vertex, by (vertices, edges, max degree, vertex degree), for graphlets of 2..4 vertices
_ORCA = {
    (2, 1, 1, 1): 0,
    (3, 2, 2, 1): 1, (3, 2, 2, 2): 2, (3, 3, 2, 2): 3,
    (4, 3, 2, 1): 4, (4, 3, 2, 2): 5, (4, 3, 3, 1): 6, (4, 3, 3, 3): 7,
    (4, 4, 2, 2): 8, (4, 4, 3, 1): 9, (4, 4, 3, 2): 10, (4, 4, 3, 3): 11,
    (4, 5, 3, 2): 12, (4, 5, 3, 3): 13, (4, 6, 3, 3): 14,
}


def orca_orbit(k, edges, v):
    """ORCA orbit of vertex v in the connected k-vertex graphlet with these edges.

    >>> orca_orbit(4, [(0, 1), (1, 2), (2, 3)], 1)     # an interior vertex of the 4-path
    5
    """
    deg = [0] * k
    for a, b in edges:
        deg[a] += 1
        deg[b] += 1
    return _ORCA[(k, len(edges), max(deg), deg[v])]


@functools.lru_cache(maxsize=None)
def orbit_matrix():
    """C[o][o']: non-induced copies placing a vertex at orbit o inside the graphlet where it has orbit o'."""
    C = np.zeros((ORBITS_4, ORBITS_4), dtype=np.int64)
    done = set()
    for k in (2, 3, 4):
        for code in range(1 << (k * (k - 1) // 2)):
            if not is_connected_code(code, k):
                continue
            E = code_edges(code, k)
            for v in range(k):
                o2 = orca_orbit(k, E, v)
                if o2 in done:
                    continue
                done.add(o2)
                for r in range(len(E) + 1):
                    for S in itertools.combinations(E, r):
                        sc = sum(1 << bit(a, b) for a, b in S)
                        if is_connected_code(sc, k):
                            C[orca_orbit(k, list(S), v), o2] += 1
    return C


def solve_orbits(sigma, width) -> np.ndarray:
    """The induced orbit counts (n × width int64) of the first ``width`` orbits from σ (n × >= width):
    σ = C · orbits solved by back-substitution from the last orbit."""
    C = orbit_matrix()
    out = np.zeros((sigma.shape[0], width), dtype=np.int64)
    for o in range(width - 1, -1, -1):
        col = sigma[:, o].copy()
        for o2 in range(o + 1, width):
            if C[o, o2]:
                col -= C[o, o2] * out[:, o2]
        out[:, o] = col
    return out
