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
* ``"closed_form"`` (k = 5, CPU; the default there from CLOSED5_MIN_WEDGES wedges, :func:`prefers_closed_forms5`):
  the non-induced count of each of the 21 classes from its own closed form
  (:func:`~la_gpm.motifs.single.census5_noninduced`: the pendant identities, K2,3, book, gem, wheel,
  the triangle/K4 sums, the 5-cycle's trace formula, K2,3+e, bowtie, house, 5-star, K5), then I = M⁻¹ N.
* ``"hybrid"`` (k = 5; the default there below that size unless the graph is small or dense):
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
``orbits(G, 5)`` adds the 58 orbits 15..72 of the 5-vertex graphlets (n × 73): ORCA-style per-vertex
feature sums over 4-vertex structures and common-neighbour counts, and a triangular system the program
derives from its own kernel (:mod:`la_gpm.motifs.orbits5`); on the CPU (numba) or the GPU (``orbits5.cu``, the
same feature sums by a CUDA port of the kernel, :func:`la_gpm.motifs.gpu.orbits5_gpu`).

References: Wernicke, "Efficient detection of network motifs" (TCBB 2006); Ferraz et
al., DuMato (JPDC 2024); Pinar, Seshadhri & Vishal, ESCAPE (WWW 2017); Hočevar &
Demšar, ORCA (Bioinformatics 2014); Floros et al., FGLT (JOSS 2020).
"""

from __future__ import annotations

import numpy as np

from ..backends import resolve_backend
from ..partition import check_part
from ..config import config
from ..exceptions import InvalidArgument, PatternTooLarge
from ..patterns.classes import classes, to_induced, to_noninduced
from ..validation import as_graph
from .closed_forms import closed_form_noninduced, noninduced_orbits
from .single import census5_noninduced
from .common import check_safe, degree_binomials, descending, prepare, serial_pass, sum_over_root_blocks
from .directed import directed_census
from .frames import frame
from .hybrid import hybrid5_noninduced
from .orbit_equations import ORBITS_4, solve_orbits

__all__ = ["census", "census_part", "orbits", "class_table", "inclusion_matrix", "check_k", "METHODS",
           "MAX_CENSUS_K", "ORBITS_4"]

MAX_CENSUS_K = 7
METHODS = ("auto", "closed_form", "hybrid", "enumerate")
CLOSED5_MIN_WEDGES = 100_000   # Σ_v C(d_v, 2) from which auto counts k = 5 by the closed forms (prefers_closed_forms5)
# backend="auto" with a GPU visible (measured crossovers, docs/gpu_census.md): closed forms and
# enumeration for k <= 4 go to the GPU from these many arcs, enumeration for k >= 5 from fewer; k = 5
# enumerates there up to this many connected 4-vertex subsets (beyond, the CPU's hybrid)
_GPU_CLOSED_FORM_ARCS = 20_000
_GPU_ENUMERATE_ARCS = 20_000
_GPU_ENUMERATE5_ARCS = 5_000      # k >= 5: citeseer (9,072 arcs) already runs 12-15x faster there
# orbits(G, 5) with backend="auto" and a GPU visible: the GPU from this many 3-walks (orbits5.three_walks, the CPU
# kernel's main loop; where the CPU kernel goes to its thread pool). Measured once on an H200 host (16 cores), GPU
# against CPU: citeseer (4.9e5 walks) 4.2 against 17.8 ms (7.5 ms on 2 quiet cores), email-Eu-core (1.8e8) 68
# against 273 ms, wiki-Vote (3.9e9) 0.63 against 3.8 s. Conservative: small graphs keep the CPU's fixed cost
_GPU_ORBITS5_WALKS = 2_000_000


def class_table(k: int):
    """(table, keys): the class row of every k-vertex adjacency bitmask (-1: disconnected) and each row's key."""
    check_k(k)
    c = classes(k)
    return c.table, c.keys


def inclusion_matrix(k: int) -> np.ndarray:
    """M[i, j]: copies of class i (as edge subsets) in class j; non-induced = M @ induced."""
    check_k(k)
    return np.array(classes(k).M, dtype=object)


def check_k(k):
    """k as an int, or InvalidArgument / PatternTooLarge unless it is a census size 3..MAX_CENSUS_K."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InvalidArgument(f"k must be an integer number of pattern vertices (3..{MAX_CENSUS_K}); got {k!r}")
    k = int(k)
    if k > MAX_CENSUS_K:
        raise PatternTooLarge(f"census supports k = 3..{MAX_CENSUS_K} vertices (and k = 8 through la_gpm.census on "
                              f"the CPU); got k={k}. For larger patterns "
                              "count chosen patterns with la_gpm.count(G, pattern) or estimate with la_gpm.estimate")
    if k < 3:
        raise InvalidArgument(f"census needs k >= 3 (k=1 is G.n, k=2 is G.m); got k={k}")
    return k


# --------------------------------------------------------------------------- census


def census(G, k: int, *, induced: bool = True, backend: str | None = None, progress: bool = False,
           method: str = "auto", guard: bool = True):
    """Counts of every connected k-vertex pattern class (k = 3..8).

    Parameters
    ----------
    G : graph (anything :func:`la_gpm.as_graph` accepts); a directed graph gets the directed census
        (k = 3, 4: every weakly connected directed class, igraph's isoclass numbering; CPU, or ESU
        enumeration on the GPU with ``backend="gpu"``; see :func:`la_gpm.motifs.directed.directed_census`
        for its columns and methods)
    k : number of pattern vertices, 3..8 (3, 4 for a directed graph); k = 8 enumerates with a two-level
        class lookup (:mod:`la_gpm.motifs.census8`: 11,117 classes keyed as :func:`la_gpm.estimate_census`
        keys them), on the CPU or with ``backend="gpu"`` the GPU (``"auto"`` keeps the CPU)
    induced : vertex-induced counts (motifs) if True, else non-induced (every subgraph
        isomorphic to the class, whether or not more edges join its vertices)
    backend : ``"cpu"``, ``"gpu"`` (CUDA kernels, ``motifs/gpu.py``: closed forms for
        k <= 4, the k = 5 hybrid, warp-centric ESU enumeration for any k) or None / ``"auto"``
        (the GPU when one is visible and the graph is large enough for it to win, see
        docs/gpu_census.md; otherwise the CPU); other backends raise BackendUnavailable
    progress : show a tqdm bar over root chunks (CPU enumeration; ``"auto"`` then keeps the CPU)
    method : ``"auto"``, ``"closed_form"`` (k <= 5; k = 5 on the CPU), ``"hybrid"`` (k = 5) or
        ``"enumerate"`` (any k); ``df.attrs["method"]`` says which one ran (``"gpu_closed_form"``,
        ``"gpu_hybrid"``, ``"gpu_enumerate"`` on the GPU)
    guard : k = 8 only: predict the enumeration's time first (from the 3- and 4-vertex counts) and raise
        :class:`la_gpm.CensusTooLarge` (with the prediction) beyond ``K8_GUARD_S`` seconds;
        False runs it anyway

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
    G = as_graph(G)
    if G.directed:     # directed motifs (k = 3, 4; CPU, or GPU enumeration): la_gpm.motifs.directed
        return directed_census(G, k, induced=induced, backend=backend, progress=progress, method=method)
    if not isinstance(k, bool) and isinstance(k, (int, np.integer)) and int(k) == 8:
        return _census8(G, induced, backend, progress, method, guard)
    k = check_k(k)
    G = prepare(G, "census")
    b = resolve_backend(backend, supported=("cpu", "gpu"), what="census")
    if method not in METHODS:
        raise InvalidArgument(f"method must be one of {METHODS}; got {method!r}")
    if method == "closed_form" and k > 5:
        raise InvalidArgument(f"method='closed_form' covers k = 3, 4 and 5; got k={k} (use 'enumerate' or 'auto')")
    if method == "hybrid" and k != 5:
        raise InvalidArgument(f"method='hybrid' covers k = 5; got k={k} (use 'closed_form', 'enumerate' or 'auto')")
    cls = classes(k)
    if b == "gpu" and (config.backend if backend is None else backend) == "auto":
        b = _auto_backend(G, k, method, progress)
    if b == "gpu":
        counts, method = _census_gpu(G, k, cls, induced, method)
        return frame(cls, k, counts, induced, method)
    if method == "auto" and k != 5:
        method = "closed_form" if k <= 4 else "enumerate"
    if method == "auto" and k == 5 and prefers_closed_forms5(G):
        method = "closed_form"
    if method == "closed_form":
        N = closed_form_noninduced(G, k) if k <= 4 else census5_noninduced(G)
        counts = to_induced(cls.M, N) if induced else N
    elif method == "hybrid" or (method == "auto" and k == 5):
        N = hybrid5_noninduced(G, decline=method == "auto")
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
    return frame(cls, k, counts, induced, method)


def _census8(G, induced, backend, progress, method, guard):
    """census(G, 8): ESU with the two-level class lookup (la_gpm.motifs.census8), on the CPU or (backend="gpu")
    the GPU (``gpu.esu_counts(G, 8)``; attrs["method"] "gpu_enumerate"); "auto" keeps the CPU."""
    from .census8 import classes8, frame8, noninduced8, check_work8
    G = prepare(G, "census")
    b = resolve_backend(backend, supported=("cpu", "gpu"), what="census", auto="cpu")
    if method not in ("auto", "enumerate"):
        raise InvalidArgument(f"census(G, 8) enumerates: method must be 'auto' or 'enumerate'; got {method!r}")
    if guard:
        check_work8(G, gpu=b == "gpu")
    if b == "gpu":
        from . import gpu
        I = gpu.esu_counts(G, 8)
        return frame8(I if induced else noninduced8(I), induced, "gpu_enumerate")
    cls = classes8()
    I = _enumerate(G, 8, cls, progress)
    return frame8(I if induced else noninduced8(I), induced, "enumerate")


def prefers_closed_forms5(G) -> bool:
    """The CPU's auto rule for k = 5: the 21 closed forms (fixed cost about 4-10 ms: 21 passes) once the graph
    has CLOSED5_MIN_WEDGES wedges and their int64 terms are bounded (:func:`~la_gpm.motifs.closed_forms5.
    overflow_reason`); below, the hybrid or the enumeration (their own rule). Measured on 2 cores
    (docs/census.md): closed forms against the hybrid / enumeration, email-Eu-core 0.19 vs 1.83 s, G(150, 6000)
    0.16 vs 1.26 s, email-Enron 1.2 vs 42.8 s; citeseer (26,878 wedges) 10 vs 3.3 ms, G(2000, 8000) (63,809)
    14 vs 3.9 ms."""
    from .closed_forms5 import overflow_reason
    return degree_binomials(G)[0] >= CLOSED5_MIN_WEDGES and overflow_reason(G) is None


def _auto_backend(G, k, method, progress):
    """backend="auto" with a GPU visible: "gpu" only where it was measured faster (docs/gpu_census.md)."""
    if progress:
        return "cpu"
    if k == 5 and method == "closed_form":
        return "cpu"                       # the 5-vertex closed forms run on the CPU
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

    if method == "closed_form" and k == 5:
        raise InvalidArgument("method='closed_form' for k = 5 runs on the CPU (backend='cpu'); on the GPU use "
                              "'hybrid' (its closed-form part runs there) or 'auto'")
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


def _enumerate(G, k, cls, progress, part=None):
    """Induced counts of every connected k-vertex class by ESU on the CPU (of the roots in ``part``)."""
    from .cpu import esu_census, esu_census_serial

    n = G.n
    if n == 0:
        return [0] * len(cls.keys)
    # degree-descending relabelling: the root (smallest new id) of a subgraph is its highest-degree vertex
    ptr, idx, _ = descending(G)
    r0, r1 = 0, n
    if part is not None:  # one work-balanced range of roots (la_gpm.distributed.census)
        from ..partition import part_range
        r0, r1 = part_range(np.diff(ptr).astype(np.float64) ** 2, part)
    nc = len(cls.keys)

    def count(roots, chunks):
        if k <= 4 and serial_pass(idx.size):
            return esu_census_serial(ptr, idx, None, k, cls.table, nc, roots)
        return esu_census(ptr, idx, None, k, cls.table, nc, roots, chunks)
    return sum_over_root_blocks(r0, r1, nc, count, progress=progress, desc=f"census k={k}")


def census_part(G, k: int, part) -> list:
    """Induced counts of every connected k-vertex class (in :func:`class_table` order) over the subgraphs
    whose root (highest-degree vertex) lies in ``part=(i, nparts)`` of the enumeration's roots: the unit
    of :func:`la_gpm.distributed.census`. The parts add up to the induced census.

    >>> import la_gpm
    >>> G = la_gpm.datasets.load("karate")
    >>> [sum(x) for x in zip(*(census_part(G, 4, (i, 3)) for i in range(3)))] == list(census(G, 4)["count"])
    True
    """
    k = check_k(k)
    G = prepare(G, "census")
    return _enumerate(G, k, classes(k), False, part=check_part(part))


# --------------------------------------------------------------------------- orbits


def orbits(G, k: int = 4, *, backend: str | None = None) -> np.ndarray:
    """Per-vertex graphlet-orbit counts, ORCA numbering: n × 73 int64 for k = 5, n × 15 for k = 4, n × 4 for
    k = 3, n × 1 for k = 2.

    Column o counts the induced connected graphlets of up to k vertices that touch the
    vertex at orbit o (numbering in the module notes; the 5-vertex orbits 15..72 in
    :data:`la_gpm.motifs.orbit_equations.GRAPHLETS_5`); equals ORCA's / orbit-count's
    ``node_orbit_counts(G, k)``.  The first 15 columns of ``orbits(G, 5)`` are ``orbits(G, 4)``.

    ``backend``: ``"cpu"`` (numba kernels), ``"gpu"`` (k = 3, 4: the per-vertex orbit sums of the 5-vertex
    hybrid, ``motifs/gpu.sigma4``; k = 5: those and the 58 feature sums of ``orbits5.cu``,
    ``motifs/gpu.orbits5_gpu``) or None / ``"auto"`` (the GPU when one is visible and G is large enough:
    k <= 4 at least as many arcs as the 4-vertex census sends there, k = 5 at least ``_GPU_ORBITS5_WALKS``
    3-walks; else the CPU).  For k <= 4 both backends solve the same triangular system from the same
    non-induced sums (:mod:`la_gpm.motifs.orbit_equations`): the CPU in one fused numba call (``orbits_cpu``),
    the GPU's sums on the host; k = 5 runs ORCA-style feature sums and a derived triangular system
    (:mod:`la_gpm.motifs.orbits5`; the GPU computes the same sums and solves the same system on the device),
    exact in int64 for max degree < 38,000 (checked).

    Examples
    --------
    >>> import la_gpm
    >>> X = la_gpm.orbits(la_gpm.datasets.load("karate"), 4)
    >>> X.shape, int(X[:, 3].sum()) // 3
    ((34, 15), 45)
    >>> Y = la_gpm.orbits(la_gpm.datasets.load("karate"), 5)
    >>> Y.shape, int(Y[:, 72].sum()) // 5, bool((Y[:, :15] == X).all())      # 5-cliques: 2
    ((34, 73), 2, True)
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InvalidArgument(f"k must be an integer graphlet size (2, 3, 4 or 5); got {k!r}")
    k = int(k)
    if k > 5:
        raise PatternTooLarge(f"orbits are computed for graphlets of up to 5 vertices; got k={k}. For larger "
                              "graphlets count the classes with la_gpm.census(G, k)")
    if k < 2:
        raise InvalidArgument(f"orbits needs k >= 2 graphlet vertices; got k={k}")
    G = prepare(G, "graphlet orbits")
    b = resolve_backend(backend, supported=("cpu", "gpu"), what="graphlet orbits")
    asked = config.backend if backend is None else backend
    if k == 5:
        from .orbits5 import check_orbit5_safe, orbits5, three_walks
        if b == "gpu" and asked == "auto" and three_walks(G) < _GPU_ORBITS5_WALKS:
            b = "cpu"
        if b == "gpu":
            from .gpu import orbits5_gpu
            if G.m:
                check_orbit5_safe(G)       # the feature sums, as the CPU path checks them
                check_safe(G)              # sigma4's closed-form terms
            return orbits5_gpu(G)
        return orbits5(G)
    if b == "gpu" and asked == "auto" and G.nnz < _GPU_CLOSED_FORM_ARCS:
        b = "cpu"
    width = {2: 1, 3: 4, 4: 15}[k]
    if b == "gpu" and k > 2 and G.m:
        from .gpu import sigma4
        check_safe(G)
        sigma = sigma4(G)[0][descending(G)[2], :width]     # the GPU works on the degree-descending ids
    elif k > 2:
        from .orbit_equations import orbits_cpu
        return orbits_cpu(G, k)              # σ and the solve in one numba call
    else:
        sigma = noninduced_orbits(G, k)
    return solve_orbits(sigma, width)
