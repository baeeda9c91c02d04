"""Motif census (counts of every connected k-vertex class) and graphlet orbits.

Notes
-----
**Classes and keys.**  A k-vertex graph is encoded as an adjacency bitmask: bit
``j(j-1)/2 + i`` is set iff vertices i < j are adjacent.  The *key* of an
isomorphism class is the smallest bitmask over all relabellings of its members
(an int; equal keys <=> isomorphic graphs).  For every k = 3..7 a table maps each of
the ``2**(k(k-1)/2)`` bitmasks to its class; it is built once per k (by orbit
expansion over the k! relabellings) and cached.

**Induced and non-induced.**  With ``M[i, j]`` the number of edge subsets of class
j's representative that form a copy of class i (spanning, same k vertices),
non-induced counts are ``N = M · I`` where I are the induced counts.  M is
unitriangular when the classes are sorted by edge count, so I = M⁻¹ N is an exact
back-substitution over Python ints.

**Methods.**

* ``"closed_form"`` (k = 3, 4; the default there): non-induced counts from degrees,
  per-edge triangle counts t_e, 4-cycles and 4-cliques (FGLT / ESCAPE):
  star = Σ C(d,3), P4 = Σ_uv (d_u-1)(d_v-1) - 3T, paw = Σ_v t_v(d_v-2),
  diamond = Σ_e C(t_e,2), C4 counted once at its highest-rank vertex, K4 on the
  degree-ordered DAG; then I = M⁻¹ N.
* ``"hybrid"`` (k = 5; the default there unless the graph is small or dense):
  the ten classes with a degree-1 vertex from 4-vertex per-vertex orbit sums,
  inj(Q) = |Stab_P(a)| Σ_v d_v σ_orb(a)(v) - deg_P(a) inj(P) - Σ_{b≁a} inj(P+ab);
  the eleven classes of minimum degree >= 2 from their induced copies, listed through
  the C5, K2,3 and bowtie copies (one of which spans each of them).
* ``"enumerate"`` (k = 3..7; the default for k >= 6): every connected induced
  k-subgraph is counted once (ESU with DuMato's canonical extension rule) over a
  degree-descending relabelling; its class is a table lookup of the bitmask, and the
  last level is counted in bulk per adjacency row.

Vertex and edge labels of G are ignored (the census is of unlabeled classes).
See docs/census.md for the measurements behind the defaults.

**Orbits.**  ``orbits(G, 4)`` returns the 15 graphlet orbits of Pržulj / ORCA:
0 edge; 1, 2 path of 3 (end, centre); 3 triangle; 4, 5 path of 4 (end, interior);
6, 7 star (leaf, centre); 8 4-cycle; 9, 10, 11 paw (pendant, degree-2 triangle
vertex, centre); 12, 13 diamond (degree 2, degree 3); 14 4-clique.  Non-induced
per-vertex counts σ come in closed form (FGLT, Floros et al. 2020) and the induced
orbit counts solve σ = C · orbits with C computed from the graphlets themselves.

References: Wernicke, "Efficient detection of network motifs" (TCBB 2006); Ferraz et
al., DuMato (JPDC 2024); Pinar, Seshadhri & Vishal, ESCAPE (WWW 2017); Hočevar &
Demšar, ORCA (Bioinformatics 2014); Floros et al., FGLT (JOSS 2020).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from ..validation import as_graph
from ..backends import resolve_backend
from ..partition import check_part
from ..config import config
from ..exceptions import InvalidArgument, PatternTooLarge
from ..patterns.classes import (bit, classes, code_edges, is_connected_code, to_induced,
                               to_noninduced)
from ..patterns.pattern import Pattern

__all__ = ["census", "orbits", "class_table", "inclusion_matrix", "METHODS", "MAX_CENSUS_K", "ORBITS_4"]

MAX_CENSUS_K = 7
# k = 5, auto on the GPU: below this many connected 4-vertex subsets, enumeration beats the hybrid's dozen
# launches (citeseer, 3.6·10^5: 0.79 against 3.8 ms on the H100)
_SMALL_ENUMERATION = 4_000_000
# the same on the CPU, where the hybrid's passes cost less (2 cores, fresh graph each run: karate, 2,363
# subsets, 0.84 against 0.29 ms; G(100, 300), 11,313, 0.65 / 0.66 ms; G(200, 600), 26,569, 1.25 / 1.81 ms;
# citeseer 5.8 / 17.8 ms; docs/census.md)
_CPU_SMALL_ENUMERATION = 10_000
# k = 5, method="auto" on the CPU: the hybrid while the K2,3 + bowtie copies are at most this many per
# connected 4-vertex subset (measured on 2 cores with both bulk rules, docs/census.md: the hybrid wins
# at 0.2-16.7 copies per subset, by 1.1-11x, and loses at 26, 2.45 against 1.75 s)
CPU_HYBRID_MAX_COPIES_PER_SUBSET = 20
# graphs with fewer arcs run the k <= 4 census kernels on the calling thread (waking the pool costs more)
_SERIAL_ARCS = 100_000
METHODS = ("auto", "closed_form", "hybrid", "enumerate")
# backend="auto" with a GPU visible (measured crossovers, docs/gpu_census.md): closed forms and
# enumeration for k <= 4 go to the GPU from these many arcs, enumeration for k >= 5 from fewer; k = 5
# enumerates there up to this many connected 4-vertex subsets (beyond, the CPU's hybrid)
_GPU_CLOSED_FORM_ARCS = 20_000
_GPU_ENUMERATE_ARCS = 20_000
_GPU_ENUMERATE5_ARCS = 5_000      # k >= 5: citeseer (9,072 arcs) already runs 12-15x faster there
# ORCA orbit of a vertex, by (vertices, edges, max degree, vertex degree), for graphlets of 2..4 vertices
ORBITS_4 = 15
_ORCA = {
    (2, 1, 1, 1): 0,
    (3, 2, 2, 1): 1, (3, 2, 2, 2): 2, (3, 3, 2, 2): 3,
    (4, 3, 2, 1): 4, (4, 3, 2, 2): 5, (4, 3, 3, 1): 6, (4, 3, 3, 3): 7,
    (4, 4, 2, 2): 8, (4, 4, 3, 1): 9, (4, 4, 3, 2): 10, (4, 4, 3, 3): 11,
    (4, 5, 3, 2): 12, (4, 5, 3, 3): 13, (4, 6, 3, 3): 14,
}


def class_table(k: int):
    """(table, keys): the class row of every k-vertex adjacency bitmask (-1: disconnected) and each row's key."""
    _check_k(k)
    c = classes(k)
    return c.table, c.keys


def inclusion_matrix(k: int) -> np.ndarray:
    """M[i, j]: copies of class i (as edge subsets) in class j; non-induced = M @ induced."""
    _check_k(k)
    return np.array(classes(k).M, dtype=object)



# --------------------------------------------------------------------------- validation


def _check_k(k):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InvalidArgument(f"k must be an integer number of pattern vertices (3..{MAX_CENSUS_K}); got {k!r}")
    k = int(k)
    if k > MAX_CENSUS_K:
        raise PatternTooLarge(f"census supports k = 3..{MAX_CENSUS_K} vertices; got k={k}. For larger patterns "
                              "count chosen patterns with la_gpm.count(G, pattern) or estimate with la_gpm.estimate")
    if k < 3:
        raise InvalidArgument(f"census needs k >= 3 (k=1 is G.n, k=2 is G.m); got k={k}")
    return k


def _nchunks():
    """Chunks of a parallel pass: 4 per numba thread."""
    import numba
    return max(1, 4 * numba.get_num_threads())


def _descending(G):
    """(indptr, indices, new_id) of G renamed by decreasing degree (ties by id), cached on the graph."""
    def make():
        from .cpu import relabel_csr
        n = G.n
        order = np.lexsort((np.arange(n), -G.degrees.astype(np.int64)))
        new_id = np.empty(n, dtype=np.int64)
        new_id[order] = np.arange(n)
        ptr, idx = relabel_csr(G.indptr, G.indices, new_id)
        for a in (ptr, idx, new_id):
            a.setflags(write=False)
        return ptr, idx, new_id
    return G.device_cache("cpu:degree-descending-csr", make)


def _prepare(G, what):
    G = as_graph(G)
    G._require_undirected(what)
    return G


# --------------------------------------------------------------------------- census


def census(G, k: int, *, induced: bool = True, backend: str | None = None, progress: bool = False,
           method: str = "auto"):
    """Counts of every connected k-vertex pattern class (k = 3..7).

    Parameters
    ----------
    G : graph (anything :func:`la_gpm.as_graph` accepts), undirected
    k : number of pattern vertices, 3..7
    induced : vertex-induced counts (motifs) if True, else non-induced (every subgraph
        isomorphic to the class, whether or not more edges join its vertices)
    backend : ``"cpu"``, ``"gpu"`` (CUDA kernels, ``census/gpu.py``: closed forms for
        k <= 4, the k = 5 hybrid, warp-centric ESU enumeration for any k) or None / ``"auto"``
        (the GPU when one is visible and the graph is large enough for it to win, see
        docs/gpu_census.md; otherwise the CPU); other backends raise BackendUnavailable
    progress : show a tqdm bar over root chunks (CPU enumeration; ``"auto"`` then keeps the CPU)
    method : ``"auto"``, ``"closed_form"`` (k <= 4), ``"hybrid"`` (k = 5) or
        ``"enumerate"`` (any k); ``df.attrs["method"]`` says which one ran (``"gpu_closed_form"``,
        ``"gpu_hybrid"``, ``"gpu_enumerate"`` on the GPU)

    Returns
    -------
    pandas.DataFrame with one row per connected class (zero counts included), sorted by
    edge count then key: ``pattern`` (:class:`Pattern`, named), ``name``, ``key`` (the
    smallest adjacency bitmask of the class, see the module notes), ``edges`` (edge list of
    that bitmask), ``count`` (exact Python int).

    Examples
    --------
    >>> import la_gpm
    >>> df = la_gpm.census(la_gpm.datasets.load("karate"), 3)
    >>> dict(zip(df.name, df["count"]))
    {'wedge': 393, 'triangle': 45}
    """
    k = _check_k(k)
    G = _prepare(G, "census")
    b = resolve_backend(backend, supported=("cpu", "gpu"), what="census")
    if method not in METHODS:
        raise InvalidArgument(f"method must be one of {METHODS}; got {method!r}")
    if method == "closed_form" and k > 4:
        raise InvalidArgument(f"method='closed_form' covers k = 3 and 4; got k={k} (use 'hybrid', 'enumerate' or "
                              "'auto')")
    if method == "hybrid" and k != 5:
        raise InvalidArgument(f"method='hybrid' covers k = 5; got k={k} (use 'closed_form', 'enumerate' or 'auto')")
    cls = classes(k)
    if b == "gpu" and (config.backend if backend is None else backend) == "auto":
        b = _auto_backend(G, k, method, progress)
    if b == "gpu":
        counts, method = _census_gpu(G, k, cls, induced, method)
        return _frame(cls, k, counts, induced, method)
    if method == "auto" and k != 5:
        method = "closed_form" if k <= 4 else "enumerate"
    if method == "closed_form":
        N = _closed_form_noninduced(G, k)
        counts = to_induced(cls.M, N) if induced else N
    elif method == "hybrid" or (method == "auto" and k == 5):
        N = _hybrid5_noninduced(G, decline=method == "auto")
        if N is None:   # auto: dense graph, where enumeration is cheaper
            method = "enumerate"
            I = _enumerate(G, k, cls, progress)
            counts = I if induced else to_noninduced(cls.M, I)
        else:
            method = "hybrid"
            counts = to_induced(cls.M, N) if induced else N
    else:
        I = _enumerate(G, k, cls, progress)
        counts = I if induced else to_noninduced(cls.M, I)
    return _frame(cls, k, counts, induced, method)


@functools.lru_cache(maxsize=None)
def _class_patterns(k: int) -> tuple:
    """The Pattern of every connected k-vertex class, built once per process (about 0.3 ms a census).

    Shared templates: :func:`_frame` hands each census its own shallow copies (``Pattern.name`` is a
    plain attribute a user may set)."""
    cls = classes(k)
    return tuple(Pattern(e, k=k, name=nm) for e, nm in zip(cls.edges, cls.names))


_FRAME_COLUMNS = ("pattern", "name", "key", "edges", "count")


def _pattern_copy(P):
    """A shallow copy of a class Pattern (its tuples and read-only adjacency shared), about 0.4 µs."""
    Q = object.__new__(type(P))
    Q.__dict__.update(P.__dict__)
    return Q


@functools.lru_cache(maxsize=None)
def _frame_parts(k: int):
    """What every census frame of k shares, built once: (column Index, row Index, names as the
    constructor's string array, keys int64, Patterns, edge lists as tuples, from_blocks or None).

    Everything is copied into each frame (see :func:`_frame`)."""
    import pandas as pd

    cls = classes(k)
    ref = _frame_reference(cls, k, [0] * len(cls.keys), True, "")
    try:    # pandas >= 3.0: public low-level constructor (pandas.api.internals)
        from pandas.api.internals import create_dataframe_from_blocks
    except ImportError:
        create_dataframe_from_blocks = None
    names = ref["name"].array
    if create_dataframe_from_blocks is not None and not isinstance(names, pd.api.extensions.ExtensionArray):
        create_dataframe_from_blocks = None
    return (ref.columns, ref.index, names, np.array(cls.keys, dtype=np.int64), _class_patterns(k), cls.edges,
            create_dataframe_from_blocks)


_OBJECT_PLACEMENT = np.array([0, 3, 4], dtype=np.intp)
_NAME_PLACEMENT = np.array([1], dtype=np.intp)
_KEY_PLACEMENT = np.array([2], dtype=np.intp)


def _frame_reference(cls, k, counts, induced, method):
    """The census DataFrame through the ordinary constructor (the layout :func:`_frame` reproduces)."""
    import pandas as pd

    df = pd.DataFrame({"pattern": list(_class_patterns(k)), "name": list(cls.names), "key": list(cls.keys),
                       "edges": [list(e) for e in cls.edges], "count": pd.Series(counts, dtype=object)})
    df.attrs.update(k=k, induced=bool(induced), method=method)
    return df


def _frame(cls, k, counts, induced, method):
    """The census DataFrame (columns pattern, name, key, edges, count; count of dtype object holding
    Python ints; attrs k, induced, method).

    Built from its blocks with ``pandas.api.internals.create_dataframe_from_blocks`` (pandas >= 3),
    about 0.02 ms against 0.11 ms for ``pd.DataFrame(dict)``, which it equals (tests/test_census_small.py).
    Every mutable object is the frame's own: the arrays, the indexes, the edge lists and shallow copies
    of the cached Patterns.
    """
    columns, index, names, keys, patterns, edges, from_blocks = _frame_parts(k)
    if from_blocks is None:
        return _frame_reference(cls, k, counts, induced, method)
    import pandas as pd
    r = len(keys)
    obj = np.empty((3, r), dtype=object)
    for i in range(r):
        obj[0, i] = _pattern_copy(patterns[i])
        obj[1, i] = list(edges[i])
        obj[2, i] = int(counts[i])
    # fresh indexes too: a user may set df.index.name / df.columns.name
    df = from_blocks([(obj, _OBJECT_PLACEMENT), (names.copy(), _NAME_PLACEMENT),
                      (keys.reshape(1, r).copy(), _KEY_PLACEMENT)], index=pd.RangeIndex(r), columns=columns.copy())
    df.attrs.update(k=k, induced=bool(induced), method=method)
    return df


def _auto_backend(G, k, method, progress):
    """backend="auto" with a GPU visible: "gpu" only where it was measured faster (docs/gpu_census.md)."""
    if progress:
        return "cpu"
    if k <= 4 and method in ("auto", "closed_form"):
        return "gpu" if G.nnz >= _GPU_CLOSED_FORM_ARCS else "cpu"
    if G.nnz < (_GPU_ENUMERATE_ARCS if k <= 4 else _GPU_ENUMERATE5_ARCS):
        return "cpu"
    # k = 5: the GPU has the hybrid too (and picks it over enumeration itself, gpu_prefers_hybrid):
    # email-Eu-core 37 ms against 5.76 s for the CPU's auto (census_gpu_hybrid5_gpu.json)
    return "gpu"


def _census_gpu(G, k, cls, induced, method):
    """(counts, method name) of the census on the GPU: closed forms (k <= 4) or ESU enumeration."""
    from . import gpu

    if method == "hybrid" or (method == "auto" and k == 5):
        # auto: the hybrid unless the GPU enumerates faster (gpu.gpu_prefers_hybrid, docs/gpu_census.md)
        N = gpu.hybrid5_noninduced(G, decline=method == "auto")
        if N is not None:
            return (to_induced(cls.M, N) if induced else N), "gpu_hybrid"
        method = "enumerate"
    if method == "auto":
        method = "closed_form" if k <= 4 else "enumerate"
    if method == "closed_form":
        N = gpu.closed_form_noninduced(G, k)
        counts = to_induced(cls.M, N) if induced else N
    else:
        I = gpu.esu_counts(G, k)
        counts = I if induced else to_noninduced(cls.M, I)
    return counts, "gpu_" + method


def _exact_sum(a) -> int:
    """Sum of an int64 array as a Python int, exact even where the int64 sum would overflow."""
    a = np.asarray(a, dtype=np.int64).ravel()
    if a.size == 0:
        return 0
    big = int(np.abs(a).max())
    if big == 0:
        return 0
    step = max(1, (2**62) // big)
    return sum(int(a[i:i + step].sum()) for i in range(0, a.size, step))


def _deg_binomial_sum(deg, r) -> int:
    """Σ_v C(d_v, r) exactly: in int64 where no term or partial sum can overflow, else grouping equal
    values over Python ints."""
    from math import comb
    d = np.asarray(deg)
    if d.size == 0:
        return 0
    lo, hi = int(d.min()), int(d.max())
    if r in (2, 3) and lo >= 0 and hi < 2**20 and d.size * comb(hi, r) < 2**62:
        d = d.astype(np.int64)
        return int((d * (d - 1) // 2).sum()) if r == 2 else int((d * (d - 1) * (d - 2) // 6).sum())
    vals, cnt = np.unique(d, return_counts=True)
    return sum(int(c) * comb(int(v), r) for v, c in zip(vals.tolist(), cnt.tolist()))


def _degree_binomials(G) -> tuple[int, int]:
    """(Σ_v C(d_v, 2), Σ_v C(d_v, 3)) of G: wedges and 3-stars, graph-derived, cached with the graph."""
    return G.device_cache("cpu:degree-binomials",
                          lambda: (_deg_binomial_sum(G.degrees, 2), _deg_binomial_sum(G.degrees, 3)))


def _column_sums(acc) -> list:
    """Exact Python-int sums of the columns of a small int64 (rows, cols) array of per-chunk totals."""
    if acc.shape[0] == 1:
        return acc[0].tolist()
    return [sum(col) for col in zip(*acc.tolist())]


def _check_safe(G):
    """Every int64 term of the closed forms is at most 2·m·dmax² (and per vertex dmax³ <= m·dmax²)."""
    d = G.max_degree
    if G.m * d * d >= 2**62:
        raise InvalidArgument(f"the closed-form counts stay exact in int64 for m·dmax² < 2**62; got m={G.m} and "
                              f"max degree {d}; use method='enumerate'")


# k = 4 totals on the calling thread below this many arcs, else the thread pool: measured on 16 cores
# (census_small_gpu.json) karate (156 arcs) 0.003 against 0.025 ms, citeseer (9,072) 0.30 against 0.055 ms
# (with fewer numba threads than _POOL_MIN_THREADS, below _SERIAL_ARCS as before: on a loaded 2-core
# machine the pool took 16 ms against 0.08 ms on citeseer and 24 against 9 ms on email-Eu-core)
_SERIAL_ARCS_CENSUS4 = 2_048
_POOL_MIN_THREADS = 4


def _closed_form_noninduced(G, k):
    from .cpu import census3_triangles_serial, census4_totals, census4_totals_serial
    from ..triangles.cpu import triangles_total

    wedges, stars = _degree_binomials(G)
    if k == 3:
        if G.nnz < _SERIAL_ARCS:
            T = int(census3_triangles_serial(*_descending(G)[:2]))
        else:
            T = int(triangles_total(*G.oriented())) if G.m else 0
        return [wedges, T]   # rows: wedge, triangle
    _check_safe(G)
    ptr, idx, _ = _descending(G)
    nchunks = _nchunks()
    if idx.size < _SERIAL_ARCS_CENSUS4 or (nchunks < 4 * _POOL_MIN_THREADS and idx.size < _SERIAL_ARCS):
        acc = census4_totals_serial(ptr, idx)
    else:
        acc = census4_totals(ptr, idx, nchunks)
    dia, c4, k4, T, p4base, tdeg = _column_sums(acc)
    N = {"4-path": p4base - 3 * T, "4-star": stars, "4-cycle": c4, "tailed-triangle": tdeg - 6 * T,
         "diamond": dia, "4-clique": k4}
    return [N[nm] for nm in classes(4).names]


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
    from .cpu import arc_triangles, arc_triangles_serial

    G = _prepare(G, "bowtie counting")
    if G.m == 0:
        return 0
    ptr, idx = G.indptr, G.indices
    te = arc_triangles_serial(ptr, idx) if idx.size < _SERIAL_ARCS else arc_triangles(ptr, idx, _nchunks())
    deg = np.diff(ptr)
    tv = np.zeros(G.n, dtype=np.int64)
    nz = deg > 0
    tv[nz] = np.add.reduceat(te, ptr[:-1][nz]) // 2  # each triangle at v is seen from both of its arcs at v
    return _deg_binomial_sum(tv, 2) - _deg_binomial_sum(te, 2)


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
    from .cpu import arc_triangles, arc_triangles_serial, cycle4_edge_weights

    G = _prepare(G, "house counting")
    if G.m == 0:
        return 0
    _check_safe(G)
    ptr, idx = G.indptr, G.indices
    te = arc_triangles_serial(ptr, idx) if idx.size < _SERIAL_ARCS else arc_triangles(ptr, idx, _nchunks())
    import numba
    _, wsum = cycle4_edge_weights(ptr, idx, np.asarray(G.degree_rank, dtype=np.int64), te,
                                  max(1, numba.get_num_threads()))
    N4 = dict(zip(classes(4).names, _closed_form_noninduced(G, 4)))
    return _exact_sum(wsum) - 4 * N4["diamond"]


def _min_degree(edges, k):
    deg = [0] * k
    for a, b in edges:
        deg[a] += 1
        deg[b] += 1
    return min(deg)


def _class_row(k, edges):
    return int(classes(k).table[sum(1 << bit(a, b) for a, b in edges)])


@functools.lru_cache(maxsize=None)
def _pendant_plans():
    """For each 5-class with a degree-1 vertex w (attached at a), the terms of

        inj(Q) = |Stab_P(a)| Σ_v d_v σ_orb(a)(v) - deg_P(a) inj(P) - Σ_{b ≁ a} inj(P + ab),

    with P = Q - w.  Returns {row: (orbit, stab, [(coef, 4-class row)], |Aut Q|)}: the
    inj terms as multiples of non-induced 4-class counts (inj = |Aut| · count).
    """
    cls = classes(5)
    plans = {}
    for row, E in enumerate(cls.edges):
        deg = [0] * 5
        for a, b in E:
            deg[a] += 1
            deg[b] += 1
        if min(deg) != 1:
            continue
        w = deg.index(1)
        a = next(y if x == w else x for x, y in E if w in (x, y))
        keep = [v for v in range(5) if v != w]
        ren = {v: i for i, v in enumerate(keep)}
        EP = [(ren[x], ren[y]) for x, y in E if w not in (x, y)]
        ap = ren[a]
        o = _orca_orbit(4, EP, ap)
        orbit_size = sum(1 for x in range(4) if _orca_orbit(4, EP, x) == o)
        autP = Pattern(EP, k=4).automorphism_count
        degP = sum(1 for x, y in EP if ap in (x, y))
        terms = [(-degP * autP, _class_row(4, EP))]
        adj = {(min(x, y), max(x, y)) for x, y in EP}
        for b in range(4):
            if b != ap and (min(ap, b), max(ap, b)) not in adj:
                E2 = EP + [(ap, b)]
                terms.append((-Pattern(E2, k=4).automorphism_count, _class_row(4, E2)))
        plans[row] = (o, autP // orbit_size, terms, Pattern(E, k=5).automorphism_count)
    return plans


@functools.lru_cache(maxsize=None)
def _dense_divisors():
    """Rows of the 5-classes with minimum degree >= 2 and, for each, copies of C5 + K2,3 + bowtie in it."""
    cls = classes(5)
    spanning = [_class_row(5, [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)]),
                _class_row(5, [(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)]),
                _class_row(5, [(0, 1), (0, 2), (1, 2), (0, 3), (0, 4), (3, 4)])]
    out = {}
    for row, E in enumerate(cls.edges):
        if _min_degree(E, 5) >= 2:
            f = sum(cls.M[s][row] for s in spanning)
            if f <= 0:
                raise AssertionError(f"5-class {row} has no spanning C5, K2,3 or bowtie")
            out[row] = f
    return out


def _weighted_sum(d, x) -> int:
    """Σ d_i x_i exactly (int64 products checked against overflow, Python-int sum)."""
    d = np.asarray(d, dtype=np.int64)
    x = np.asarray(x, dtype=np.int64)
    if d.size == 0:
        return 0
    if int(np.abs(d).max()) * int(np.abs(x).max()) >= 2**62:
        return sum(int(a) * int(b) for a, b in zip(d.tolist(), x.tolist()))
    return _exact_sum(d * x)


def _hybrid5_noninduced(G, decline=False):
    """Non-induced counts of every 5-class: pendant classes from 4-vertex orbit sums, dense
    classes (minimum degree >= 2) from their induced copies, found through C5 / K2,3 / bowtie.

    With ``decline``, return None when enumeration is the cheaper way (:func:`cpu_prefers_hybrid`).
    """
    from .cpu import dense5_hits

    cls = classes(5)
    nrow = len(cls.keys)
    if G.n == 0:
        return [0] * nrow
    _check_safe(G)
    N4 = _closed_form_noninduced(G, 4)
    connected4 = sum(to_induced(classes(4).M, N4))
    if decline and connected4 < _CPU_SMALL_ENUMERATION:
        return None
    sigma, extra = _sigma(G, 4, with_extra=True)
    if decline and not cpu_prefers_hybrid(connected4, *dense_copy_counts(sigma, extra[:, 0])):
        return None
    hits = dense5_hits(G.indptr, G.indices, G.degree_rank, cls.table, nrow, _nchunks())
    return hybrid5_solve(cls, _column_sums(hits), sigma, N4)


def cpu_prefers_hybrid(connected4: int, k23: int, bowtie: int) -> bool:
    """method="auto", k = 5, cpu backend: the hybrid, unless enumeration is the cheaper way: fewer than
    ``_CPU_SMALL_ENUMERATION`` connected 4-vertex subsets to extend (it then takes under a millisecond),
    or more than ``CPU_HYBRID_MAX_COPIES_PER_SUBSET`` K2,3 + bowtie copies per such subset.

    >>> cpu_prefers_hybrid(76_200_000, 160_000_000, 157_000_000)   # email-Eu-core: 4.2 per subset
    True
    >>> cpu_prefers_hybrid(362_232, 18_576, 16_034)                  # citeseer
    True
    >>> cpu_prefers_hybrid(2_363, 1_000, 2_000)                      # karate-sized: enumerate
    False
    """
    return connected4 >= _CPU_SMALL_ENUMERATION and k23 + bowtie <= CPU_HYBRID_MAX_COPIES_PER_SUBSET * connected4


def hybrid5_auto_inputs(G):
    """(connected 4-vertex subsets, K2,3 copies, bowtie copies) of G from the closed forms on the CPU:
    the inputs of both backends' k = 5 auto rules (:func:`cpu_prefers_hybrid`, ``gpu_prefers_hybrid``)."""
    connected4 = sum(to_induced(classes(4).M, _closed_form_noninduced(G, 4)))
    sigma, extra = _sigma(G, 4, with_extra=True)
    return (connected4, *dense_copy_counts(sigma, extra[:, 0]))


def dense_copy_counts(sigma, k23hub):
    """(K2,3 copies, bowtie copies) in closed form from the 4-vertex orbit counts σ and the K2,3 copies
    with each vertex on the 2-side (both backends: what the hybrid's listing must find)."""
    tv = sigma[:, 3]
    return _exact_sum(k23hub) // 2, _exact_sum(tv * (tv - 1) // 2 - sigma[:, 13])


def hybrid5_solve(cls, hits, sigma, N4):
    """Non-induced counts of every 5-class from the dense classes' listed copies ``hits`` (per class
    row, Python ints), the 4-vertex orbit counts σ and the non-induced 4-vertex counts N4 (both
    backends). Every division must be exact, else AssertionError (a wrong count is never returned)."""
    I_dense = {}
    for j, f in _dense_divisors().items():
        q, r = divmod(hits[j], f)
        if r:
            raise AssertionError(f"dense 5-class {j}: {hits[j]} copies is not a multiple of {f}")
        I_dense[j] = q
    N = [0] * len(cls.keys)
    for i in I_dense:
        N[i] = sum(cls.M[i][j] * I_dense[j] for j in I_dense if cls.M[i][j])
    deg = sigma[:, 0].astype(np.int64)
    sums = {}
    for i, (o, stab, terms, autQ) in _pendant_plans().items():
        if o not in sums:
            sums[o] = _weighted_sum(deg, sigma[:, o])
        inj = stab * sums[o] + sum(c * N4[r] for c, r in terms)
        q, r = divmod(inj, autQ)
        if r:
            raise AssertionError(f"pendant 5-class {i}: {inj} embeddings is not a multiple of |Aut| = {autQ}")
        N[i] = q
    return N


def _enumerate(G, k, cls, progress, part=None):
    from .cpu import esu_census, esu_census_serial

    n = G.n
    if n == 0:
        return [0] * len(cls.keys)
    # degree-descending relabelling: the root (smallest new id) of a subgraph is its highest-degree vertex
    ptr, idx, _ = _descending(G)
    r0, r1 = 0, n
    if part is not None:  # one work-balanced range of roots (la_gpm.distributed.census)
        from ..partition import part_range
        r0, r1 = part_range(np.diff(ptr).astype(np.float64) ** 2, part)
    nchunks = _nchunks()
    total = [0] * len(cls.keys)
    # roots per kernel call: config.chunk, but at least 16 per chunk so that a call amortises its start
    block = max(16 * nchunks, min(config.chunk, n))
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=r1 - r0, desc=f"census k={k}", unit="root")
    try:
        for s in range(r0, r1, block):
            roots = np.arange(s, min(r1, s + block), dtype=np.int64)
            if k <= 4 and idx.size < _SERIAL_ARCS:
                part = esu_census_serial(ptr, idx, k, cls.table, len(cls.keys), roots)
            else:
                part = esu_census(ptr, idx, k, cls.table, len(cls.keys), roots, min(nchunks, roots.size))
            # an entry is at most (k-1-subsets visited) × n, far below 2**63 for any run that ends; Python-int sum
            for j, c in enumerate(part.sum(axis=0).tolist()):
                total[j] += c
            if bar is not None:
                bar.update(roots.size)
    finally:
        if bar is not None:
            bar.close()
    return total


def census_part(G, k: int, part) -> list:
    """Induced counts of every connected k-vertex class (in :func:`class_table` order) over the subgraphs
    whose root (highest-degree vertex) lies in ``part=(i, nparts)`` of the enumeration's roots: the unit
    of :func:`la_gpm.distributed.census`. The parts add up to the induced census.

    >>> import la_gpm
    >>> G = la_gpm.datasets.load("karate")
    >>> [sum(x) for x in zip(*(census_part(G, 4, (i, 3)) for i in range(3)))] == list(census(G, 4)["count"])
    True
    """
    k = _check_k(k)
    G = _prepare(G, "census")
    return _enumerate(G, k, classes(k), False, part=check_part(part))


# --------------------------------------------------------------------------- orbits


def _orca_orbit(k, edges, v):
    deg = [0] * k
    for a, b in edges:
        deg[a] += 1
        deg[b] += 1
    return _ORCA[(k, len(edges), max(deg), deg[v])]


@functools.lru_cache(maxsize=None)
def _orbit_matrix():
    """C[o][o']: non-induced copies placing a vertex at orbit o inside the graphlet where it has orbit o'."""
    C = np.zeros((ORBITS_4, ORBITS_4), dtype=np.int64)
    done = set()
    for k in (2, 3, 4):
        for code in range(1 << (k * (k - 1) // 2)):
            if not is_connected_code(code, k):
                continue
            E = code_edges(code, k)
            for v in range(k):
                o2 = _orca_orbit(k, E, v)
                if o2 in done:
                    continue
                done.add(o2)
                for r in range(len(E) + 1):
                    for S in itertools.combinations(E, r):
                        sc = sum(1 << bit(a, b) for a, b in S)
                        if is_connected_code(sc, k):
                            C[_orca_orbit(k, list(S), v), o2] += 1
    return C


def orbits(G, k: int = 4, *, backend: str | None = None) -> np.ndarray:
    """Per-vertex graphlet-orbit counts (n × 15 int64 for k = 4; n × 4 for k = 3), ORCA numbering.

    Column o counts the induced connected graphlets of up to k vertices that touch the
    vertex at orbit o (numbering in the module notes); equals ORCA's / orbit-count's
    ``node_orbit_counts(G, k)``.

    ``backend``: ``"cpu"`` (numba kernels), ``"gpu"`` (the per-vertex orbit sums of the 5-vertex
    hybrid, ``census/gpu.sigma4``: k = 3 and 4) or None / ``"auto"`` (the GPU when one is
    visible and G has at least as many arcs as the 4-vertex census sends there, else the CPU).
    Both backends solve the same triangular system from the same non-induced sums, on the host.

    Examples
    --------
    >>> import la_gpm
    >>> X = la_gpm.orbits(la_gpm.datasets.load("karate"), 4)
    >>> X.shape, int(X[:, 3].sum()) // 3
    ((34, 15), 45)
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InvalidArgument(f"k must be an integer graphlet size (2, 3 or 4); got {k!r}")
    k = int(k)
    if k > 4:
        raise PatternTooLarge(f"orbits are computed for graphlets of up to 4 vertices; got k={k}. For 5-vertex "
                              "orbits use orbit-count (ORCA) or count the classes with la_gpm.census(G, 5)")
    if k < 2:
        raise InvalidArgument(f"orbits needs k >= 2 graphlet vertices; got k={k}")
    G = _prepare(G, "graphlet orbits")
    b = resolve_backend(backend, supported=("cpu", "gpu"), what="graphlet orbits")
    if b == "gpu" and (config.backend if backend is None else backend) == "auto" and G.nnz < _GPU_CLOSED_FORM_ARCS:
        b = "cpu"
    width = {2: 1, 3: 4, 4: 15}[k]
    if b == "gpu" and k > 2 and G.m:
        from .gpu import sigma4
        _check_safe(G)
        sigma = sigma4(G)[0][_descending(G)[2], :width]     # the GPU works on the degree-descending ids
    else:
        sigma = _sigma(G, k)
    C = _orbit_matrix()
    out = np.zeros((G.n, width), dtype=np.int64)
    for o in range(width - 1, -1, -1):
        col = sigma[:, o].copy()
        for o2 in range(o + 1, width):
            if C[o, o2]:
                col -= C[o, o2] * out[:, o2]
        out[:, o] = col
    return out


def _sigma(G, k, with_extra=False):
    """Non-induced per-vertex orbit counts σ_o(v) (FGLT's raw counts, in ORCA's orbit order).

    ``with_extra`` also returns an (n, 1) array: K2,3 copies with v on the 2-side."""
    from .cpu import (arc_triangles, arc_triangles_serial, arc_weighted_sums,
                                              neighbour_sums, vertex_closed_forms, vertex_closed_forms_serial)

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
    _check_safe(G)
    s1 = neighbour_sums(ptr, idx, d - 1)
    serial = idx.size < _SERIAL_ARCS
    te = arc_triangles_serial(ptr, idx) if serial else arc_triangles(ptr, idx, _nchunks())
    s[:, 1] = s1
    s[:, 2] = d * (d - 1) // 2
    if k == 3:
        cs = np.concatenate([[0], np.cumsum(te)])
        s[:, 3] = (cs[ptr[1:]] - cs[ptr[:-1]]) // 2
        return s
    vc = vertex_closed_forms_serial(ptr, idx, te) if serial else vertex_closed_forms(ptr, idx, te, _nchunks())
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
