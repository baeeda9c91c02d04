"""ORCA's graphlet orbits of up to 4 vertices and the equations that turn non-induced per-vertex counts into them.

Orbits (Pržulj / ORCA numbering): 0 edge; 1, 2 path of 3 (end, centre); 3 triangle; 4, 5 path of 4
(end, interior); 6, 7 star (leaf, centre); 8 4-cycle; 9, 10, 11 paw (pendant, degree-2 triangle vertex,
centre); 12, 13 diamond (degree 2, degree 3); 14 4-clique.

The non-induced per-vertex counts σ (:func:`la_gpm.motifs.closed_forms.noninduced_orbits`) are
σ = C · orbits with C[o][o'] the copies of orbit o's graphlet (as a spanning edge subset) that place a
vertex of orbit o' at orbit o (:func:`orbit_matrix`); C is unitriangular in ORCA's order, so
:func:`solve_orbits` back-substitutes.

On the CPU, :func:`orbits_cpu` computes σ and solves the system in one numba call (three fused passes over the
degree-descending CSR, ``la_gpm.motifs.cpu.orbits4``); the GPU's σ goes through :func:`solve_orbits`.

The 5-vertex orbits 15 .. 72 (Pržulj's numbering, as ORCA and orbit-count use it) are listed in
:data:`GRAPHLETS_5`: each of the 21 connected 5-vertex graphlets as an edge list with the orbit of each of its
vertices; :func:`orca_orbit` finds the orbit of a vertex of any connected graphlet of 2..5 vertices (for 5 by a
canonical form over the 120 relabellings).  Their counts come from :mod:`la_gpm.motifs.orbits5`.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from ..patterns.classes import bit, code_edges, is_connected_code
from .common import check_safe, descending, nchunks, serial_pass

__all__ = ["ORBITS_4", "ORBITS_5", "GRAPHLETS_5", "orca_orbit", "orbit_edges", "orbit_matrix", "solve_orbits",
           "orbits_cpu"]

ORBITS_4 = 15
ORBITS_5 = 73
# orbits_cpu uses the thread pool (above serial_pass's arcs) only with at least this many numba threads: its three
# passes each wait for the slowest thread, and on the shared 2-core machine 2 threads took 144 ms against 54 ms on
# the calling thread for G(20000, 200000), 219 against 143 ms on email-Enron (load average 4-6)
POOL_MIN_THREADS = 4
# The 21 connected 5-vertex graphlets G9 .. G29 (Pržulj 2007) in orbit order: (edges, orbit of vertex 0 .. 4).
GRAPHLETS_5 = (
    (((0, 1), (0, 4), (1, 2), (2, 3)), (16, 17, 16, 15, 15)),                                   # path
    (((0, 4), (1, 3), (2, 3), (3, 4)), (18, 19, 19, 21, 20)),                                   # fork
    (((0, 4), (1, 4), (2, 4), (3, 4)), (22, 22, 22, 22, 23)),                                   # 4-star
    (((0, 1), (0, 2), (0, 4), (1, 2), (2, 3)), (26, 25, 26, 24, 24)),                           # bull
    (((0, 4), (1, 2), (1, 3), (2, 3), (3, 4)), (27, 29, 29, 30, 28)),                           # triangle + 2-path
    (((0, 4), (1, 4), (2, 3), (2, 4), (3, 4)), (31, 31, 32, 32, 33)),                           # triangle + 2 pendants
    (((0, 1), (0, 4), (1, 2), (2, 3), (3, 4)), (34, 34, 34, 34, 34)),                           # 5-cycle
    (((0, 1), (1, 3), (1, 4), (2, 3), (2, 4)), (35, 38, 36, 37, 37)),                           # 4-cycle + pendant
    (((0, 1), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4)), (39, 42, 41, 40, 40)),                   # diamond + pendant at a hub
    (((0, 1), (0, 4), (1, 4), (2, 3), (2, 4), (3, 4)), (43, 43, 43, 43, 44)),                   # hourglass
    (((0, 1), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)), (45, 47, 46, 48, 48)),                   # diamond + pendant at a tip
    (((0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)), (50, 50, 49, 49, 49)),                   # K2,3
    (((0, 1), (0, 3), (0, 4), (1, 2), (2, 3), (3, 4)), (53, 51, 51, 53, 52)),                   # house
    (((0, 3), (0, 4), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)), (54, 54, 54, 55, 55)),           # book
    (((0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)), (56, 57, 57, 57, 58)),           # K4 + pendant
    (((0, 1), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (3, 4)), (59, 61, 59, 60, 60)),           # gem-like
    (((0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 4)), (63, 63, 64, 62, 64)),           # K2,3 + edge
    (((0, 1), (0, 3), (0, 4), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)), (66, 66, 65, 67, 67)),   # K4 + degree-2 vertex
    (((0, 1), (0, 3), (0, 4), (1, 2), (1, 4), (2, 3), (2, 4), (3, 4)), (68, 68, 68, 68, 69)),   # wheel W4
    (((0, 1), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)), (70, 71, 70, 71, 71)),  # K5 - e
    (tuple(itertools.combinations(range(5), 2)), (72, 72, 72, 72, 72)),                        # K5
)
# ORCA orbit of a vertex, by (vertices, edges, max degree, vertex degree), for graphlets of 2..4 vertices
_ORCA = {
    (2, 1, 1, 1): 0,
    (3, 2, 2, 1): 1, (3, 2, 2, 2): 2, (3, 3, 2, 2): 3,
    (4, 3, 2, 1): 4, (4, 3, 2, 2): 5, (4, 3, 3, 1): 6, (4, 3, 3, 3): 7,
    (4, 4, 2, 2): 8, (4, 4, 3, 1): 9, (4, 4, 3, 2): 10, (4, 4, 3, 3): 11,
    (4, 5, 3, 2): 12, (4, 5, 3, 3): 13, (4, 6, 3, 3): 14,
}


def _canon5(edges, v):
    """The smallest (adjacency code, image of v) over the 120 relabellings: equal iff same orbit."""
    best = None
    for p in itertools.permutations(range(5)):
        key = (sum(1 << bit(*sorted((p[a], p[b]))) for a, b in edges), p[v])
        if best is None or key < best:
            best = key
    return best


@functools.lru_cache(maxsize=None)
def _orbit5_table():
    return {_canon5(E, v): o for E, orbs in GRAPHLETS_5 for v, o in enumerate(orbs)}


def orbit_edges(o):
    """(k, edges, v): a graphlet on k vertices and one of its vertices v at orbit o (0 .. 72)."""
    if o >= ORBITS_4:
        for E, orbs in GRAPHLETS_5:
            if o in orbs:
                return 5, list(E), orbs.index(o)
    for k in (2, 3, 4):
        for code in range(1 << (k * (k - 1) // 2)):
            if is_connected_code(code, k):
                E = code_edges(code, k)
                for v in range(k):
                    if orca_orbit(k, E, v) == o:
                        return k, E, v
    raise ValueError(f"no orbit {o}")


def orca_orbit(k, edges, v):
    """ORCA orbit of vertex v in the connected k-vertex graphlet with these edges (k = 2 .. 5).

    >>> orca_orbit(4, [(0, 1), (1, 2), (2, 3)], 1)     # an interior vertex of the 4-path
    5
    >>> orca_orbit(5, [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)], 2)     # the 5-cycle
    34
    """
    if k == 5:
        return _orbit5_table()[_canon5([tuple(e) for e in edges], v)]
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


def orbits_cpu(G, k) -> np.ndarray:
    """``orbits(G, k)`` for k = 3 or 4 on the CPU (G a prepared undirected :class:`la_gpm.Graph`): the n × 4 or
    n × 15 induced orbit counts from one numba call, ``la_gpm.motifs.cpu.orbits4``: per-arc triangles and the
    4-cycles through each vertex (counted once at their highest-degree vertex, Chiba & Nishizeki), the
    triangles' diamond wings and 4-cliques on the degree-ordered DAG, the per-vertex sums, σ and the
    back-substitution of σ = C · orbits, all without leaving numba.  Equal to
    ``solve_orbits(noninduced_orbits(G, k), width)`` (tested); int64 exact under ``check_safe``.

    >>> import la_gpm
    >>> X = orbits_cpu(la_gpm.datasets.load("karate"), 4)
    >>> X.shape, int(X[:, 14].sum()) // 4          # karate's 4-cliques
    ((34, 15), 11)
    """
    width = {3: 4, 4: ORBITS_4}[k]
    ptr, idx, new_id = descending(G)
    dmax = int(ptr[1] - ptr[0]) if G.n else 0      # row 0 of the descending CSR has the largest degree
    if G.m * dmax * dmax >= 2**62:
        check_safe(G)                                # raises InvalidArgument
    cptr, cidx, cval, pool, serial, threads = _fused()
    if serial_pass(idx.size) or threads() < POOL_MIN_THREADS:
        return serial(ptr, idx, new_id, cptr, cidx, cval, width, 1, 1)
    return pool(ptr, idx, new_id, cptr, cidx, cval, width, nchunks(), threads())


@functools.lru_cache(maxsize=None)
def _fused():
    """What :func:`orbits_cpu` calls, imported once (small graphs spend microseconds in the call): the
    back-substitution's rows, the pool and serial builds of ``orbits4`` and numba's thread count."""
    import numba

    from .cpu import orbits4, orbits4_serial
    return (*_upper_rows(), orbits4, orbits4_serial, numba.get_num_threads)


@functools.lru_cache(maxsize=None)
def _upper_rows():
    """The strictly upper part of :func:`orbit_matrix` as rows (cptr, cidx, cval): the back-substitution's
    terms, 34 of them, for the numba solve."""
    C = orbit_matrix()
    cptr = np.zeros(ORBITS_4 + 1, dtype=np.int64)
    cidx, cval = [], []
    for o in range(ORBITS_4):
        for o2 in range(o + 1, ORBITS_4):
            if C[o, o2]:
                cidx.append(o2)
                cval.append(int(C[o, o2]))
        cptr[o + 1] = len(cidx)
    out = (cptr, np.array(cidx, dtype=np.int64), np.array(cval, dtype=np.int64))
    for a in out:
        a.setflags(write=False)
    return out
