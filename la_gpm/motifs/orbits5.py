"""Graphlet orbits of up to 5 vertices per vertex (ORCA's 73 orbits), exactly, on the CPU (the GPU port: ``orbits5.cu``).

Notes
-----
**What is computed.**  ``orbits5(G)`` is the n × 73 int64 matrix of ORCA / orbit-count (Hočevar & Demšar
2014): column o counts the induced connected graphlets of 2..5 vertices that touch the vertex at orbit o
(Pržulj's numbering; the 5-vertex graphlets and their orbits are listed in
:data:`la_gpm.motifs.orbit_equations.GRAPHLETS_5`).  Columns 0..14 are ``orbits(G, 4)``.

**How: ORCA's idea, with equations derived by the program.**  Enumerating the connected 5-vertex subsets is
far too slow on any graph with hubs.  Instead, for every 5-vertex orbit o one *feature* f_o(x) is summed per
vertex x over small structures around x, chosen so that its smallest structure is the graphlet of orbit o:

* mostly (S, w): S an induced connected 4-vertex set containing x (each enumerated once per x, in one of
  the 11 roles x can have in a 4-vertex graphlet), w a vertex outside S adjacent to (at least) a set A ⊆ S,
  summed as a common-neighbour count |N(A) \\ S| read from arrays: degrees (|A| = 1), per-arc triangle
  counts, |N(x) ∩ N(v)| and |N(a) ∩ N(v)| for the current neighbour a of x, |N(x) ∩ N(a) ∩ N(v)|, the
  per-arc |N(x) ∩ N(c) ∩ N(d)| and the 4-clique extensions of every triangle (|A| = 3, from per-arc sorted
  triangle lists built once); the 5-clique orbit counts the fifth vertex of each 4-clique directly;
* a few sparse ones (4-star, orbits 17, 20, 21, 22, 23) over *non-induced* structures, which have closed forms
  and need no listing.

Each f_o(x) is then a fixed linear combination Σ_{o'} G[o, o'] · orbit_{o'}(x) over the orbits of 1..5
vertices.  G is not written by hand: :func:`feature_matrix` runs the same kernel on every connected graphlet of
up to 5 vertices and peels off the proper connected sub-graphlets (Möbius inversion over vertex subsets), so
the equations can never disagree with the kernel.  Restricted to the 5-vertex orbits G is triangular in the
graphlets' edge counts (every structure a feature reaches beyond its own graphlet has strictly more edges; the
derivation asserts it), so the orbits follow by back-substitution from the densest graphlet down, with exact
integer division (checked).

**Cost.**  Per vertex x the kernel walks the induced 4-paths, 4-cycles and paws of x (Σ over arcs a→b of
d_a · d_b in all), the triangles and 4-cliques through the triangle lists, and the common-neighbour arrays
(Σ_a d_a Σ_{b∈N(a)} d_b); parallel over vertices (numba threads, one scratch set per chunk).  It is ORCA's
asymptotics with arrays in place of ORCA's hash maps of pair and triple counts.

**Exactness.**  int64 throughout: every feature is at most 4·dmax⁴ per vertex, checked before the run
(:func:`check_orbit5_safe`: dmax < 38,000); the solve only subtracts non-negative terms from these sums.

**GPU.**  ``orbits(G, 5, backend="gpu")`` computes the same n × 58 feature matrix with a hand-written CUDA port of
this kernel (``orbits5.cu``, host side :func:`la_gpm.motifs.gpu.orbits5_gpu`): the triangle lists on the device,
one warp per vertex (a whole block for hubs), each with its own scratch slice of the arrays above in global
memory, then the same back-substitution (:func:`solve_plan`) one thread per vertex; orbits 0..14 from the GPU's
4-vertex sums (``gpu.sigma4``).  ``backend="auto"`` takes the GPU when one is visible and the graph has at least
``driver._GPU_ORBITS5_WALKS`` 3-walks (:func:`three_walks`, the CPU kernel's main loop), else runs here.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from ..exceptions import InvalidArgument
from .orbit_equations import GRAPHLETS_5, ORBITS_4, ORBITS_5, orbit_edges, orca_orbit, solve_orbits

__all__ = ["orbits5", "orbit5_features", "feature_matrix", "solve_orbits5", "solve_plan", "check_orbit5_safe",
           "three_walks"]

_NLOW = ORBITS_4 + 1            # the singleton {x} (constant 1) and orbits 0 .. 14
# graphs with fewer 3-walks a - b - c (Σ over arcs of d_a·d_b: the kernel's main loop) run on the calling thread,
# the others on the numba pool (2 loaded cores: citeseer, 4.9e5 walks, 13 ms serial against 50 ms pooled;
# email-Eu-core, 1.8e8 walks, 0.9 s pooled against 1.7 s serial)
_SERIAL_WALKS5 = 2_000_000
# scratch per chunk: 7 vertex arrays + 1 arc array (int64); chunks = 1..4 per thread within this budget
_SCRATCH_BYTES = 1 << 28


def check_orbit5_safe(G):
    """Every feature sum is at most 4·dmax⁴ per vertex: raise where that could overflow int64."""
    d = int(G.max_degree) if G.n else 0
    if 4 * d ** 4 >= 2 ** 63:
        raise InvalidArgument(f"5-vertex orbit counts stay exact in int64 for max degree < 38,000; got max degree {d}")


def _chunks(n, nnz):
    import numba
    t = numba.get_num_threads()
    return max(t, min(4 * t, _SCRATCH_BYTES // (8 * (7 * n + nnz + 1))))


def _features_csr(ptr, idx, serial):
    from .cpu import arc_triangles, arc_triangles_serial
    from .orbits5_cpu import orbit5_features, orbit5_features_serial, triangle_lists
    n = ptr.shape[0] - 1
    deg = np.diff(ptr).astype(np.int64)
    tri = arc_triangles_serial(ptr, idx) if serial else arc_triangles(ptr, idx, _chunks(n, idx.shape[0]))
    tl_ptr = np.zeros(idx.shape[0] + 1, dtype=np.int64)
    np.cumsum(tri, out=tl_ptr[1:])
    chunks = 1 if serial else _chunks(n, idx.shape[0])
    tl_w, tl_arc, tl_k4 = triangle_lists(ptr, idx, tl_ptr, chunks, serial=serial)
    if serial:
        return orbit5_features_serial(ptr, idx, deg, tri, tl_ptr, tl_w, tl_arc, tl_k4, 1)
    return orbit5_features(ptr, idx, deg, tri, tl_ptr, tl_w, tl_arc, tl_k4, min(chunks, max(1, n)))


def three_walks(G) -> float:
    """Σ over the arcs a -> b of d_a·d_b (the 3-walks a - b - c the feature kernel's main loop takes; float64, a
    size measure: the serial or pooled CPU kernel, and the backend `auto` takes)."""
    if G.nnz == 0:
        return 0.0
    d = G.degrees.astype(np.float64)
    return float(np.dot(np.repeat(d, G.degrees.astype(np.int64)), d[G.indices]))


def orbit5_features(G):
    """The n × 58 feature sums f_15 .. f_72 of G (column j targets orbit 15 + j)."""
    return _features_csr(G.indptr, G.indices, three_walks(G) < _SERIAL_WALKS5)


def _small_csr(k, edges):
    adj = [[] for _ in range(k)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    ptr = np.zeros(k + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(r) for r in adj])
    idx = np.array([v for r in adj for v in sorted(r)], dtype=np.int32)
    # read-only, as a Graph's arrays are: numba types a read-only array apart, and the feature kernels would be built
    # twice in a process that derives the feature matrix and counts a user's graph
    ptr.setflags(write=False)
    idx.setflags(write=False)
    return ptr, idx


def _connected(vs, edges):
    vs = set(vs)
    if not vs:
        return False
    seen = {min(vs)}
    stack = [min(vs)]
    while stack:
        u = stack.pop()
        for a, b in edges:
            for p, q in ((a, b), (b, a)):
                if p == u and q in vs and q not in seen:
                    seen.add(q)
                    stack.append(q)
    return seen == vs


def _column(k, edges, v):
    """Column index of vertex v's orbit in the graphlet (k, edges): 0 singleton, 1 + orbit otherwise."""
    return 0 if k == 1 else 1 + orca_orbit(k, edges, v)


@functools.lru_cache(maxsize=None)
def feature_matrix():
    """G (58 × 74 int64): f_o(x) = Σ_c G[o, c] · orbit_c(x), columns (singleton, orbit 0, ..., orbit 72).

    Derived by running the feature kernel on every connected graphlet of 1..5 vertices and subtracting the
    contributions of its proper connected induced sub-graphlets that contain the vertex (known from the smaller
    graphlets first).  Asserts the triangular structure the solve relies on."""
    from .orbits5_cpu import NFEAT
    ncol = 1 + ORBITS_5
    G = np.zeros((NFEAT, ncol), dtype=np.int64)
    done = np.zeros(ncol, dtype=bool)
    reps = [(0, 1, [], 0)] + [(1 + o,) + orbit_edges(o) for o in range(ORBITS_5)]
    for col, k, E, v in sorted(reps, key=lambda r: r[1]):
        F = _features_csr(*_small_csr(k, E), serial=True)[v].astype(np.int64)
        for r in range(1, k):
            for U in itertools.combinations(range(k), r):
                if v not in U or not _connected(U, E):
                    continue
                rl = {u: i for i, u in enumerate(U)}
                EU = [(rl[a], rl[b]) for a, b in E if a in rl and b in rl]
                sub = _column(r, EU, rl[v])
                assert done[sub]
                F = F - G[:, sub]
        G[:, col] = F
        done[col] = True
    edges5 = {o: len(E) for E, orbs in GRAPHLETS_5 for o in orbs}
    for j in range(NFEAT):
        o = 15 + j
        assert G[j, 1 + o] > 0, f"feature {o} misses its own orbit"
        for o2 in range(15, ORBITS_5):
            if o2 != o and G[j, 1 + o2]:
                assert edges5[o2] > edges5[o], f"feature {o} reaches orbit {o2} of no more edges"
    G.setflags(write=False)
    return G


def solve_orbits5(F, low):
    """Orbits 15 .. 72 (n × 58 int64) from the features F and the orbits 0 .. 14 (n × 15)."""
    from .orbits5_cpu import back_substitute
    glow = np.ascontiguousarray(feature_matrix()[:, :_NLOW])
    out, bad = back_substitute(np.ascontiguousarray(F, dtype=np.int64), np.ascontiguousarray(low, dtype=np.int64),
                               glow, *solve_plan())
    if bad:
        raise AssertionError(f"{bad} orbit counts: the feature sums do not divide exactly (a bug, please report)")
    return out


@functools.lru_cache(maxsize=None)
def solve_plan():
    """(diagonal, off-diagonal rows as CSR (ptr, col, val), order) of the 5-vertex block of G; the order runs
    from the densest graphlet down, so every row's off-diagonal orbits are solved before it."""
    G5 = feature_matrix()[:, _NLOW:]
    edges5 = {o: len(E) for E, orbs in GRAPHLETS_5 for o in orbs}
    order = np.array([o - 15 for o in sorted(range(15, ORBITS_5), key=lambda o: -edges5[o])], dtype=np.int64)
    off = [[(j2, int(G5[j, j2])) for j2 in range(G5.shape[1]) if j2 != j and G5[j, j2]] for j in range(G5.shape[0])]
    optr = np.zeros(len(off) + 1, dtype=np.int64)
    optr[1:] = np.cumsum([len(r) for r in off])
    ocol = np.array([c for r in off for c, _ in r], dtype=np.int64)
    oval = np.array([v for r in off for _, v in r], dtype=np.int64)
    return np.diagonal(G5).copy(), optr, ocol, oval, order


def orbits5(G, low=None):
    """n × 73 int64: the graphlet orbits of 2..5 vertices of every vertex (ORCA numbering).

    ``low``: the n × 15 orbits of up to 4 vertices, if already computed."""
    n = G.n
    X = np.zeros((n, ORBITS_5), dtype=np.int64)
    if n == 0:
        return X
    if low is None:
        from .closed_forms import noninduced_orbits
        low = solve_orbits(noninduced_orbits(G, 4), ORBITS_4)
    X[:, :ORBITS_4] = low
    if G.m == 0:
        return X
    check_orbit5_safe(G)
    X[:, ORBITS_4:] = solve_orbits5(orbit5_features(G), low)
    return X
