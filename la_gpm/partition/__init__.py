"""Work-balanced partitions of root vertices: the unit of distribution (``la_gpm.distributed``).

A count is a sum over root vertices (the first vertex of the matching order, or the source of a
DAG arc); ``part=(i, nparts)`` selects the i-th of ``nparts`` consecutive root ranges of about equal
estimated work, so the parts' counts add up to the whole count whatever the backend of each part.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidArgument


def check_part(part):
    """``(i, nparts)`` validated as ints, or None."""
    if part is None:
        return None
    try:
        i, n = part
    except (TypeError, ValueError):
        raise InvalidArgument(f"part must be a pair (i, nparts); got {part!r}") from None
    ok = all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in (i, n))
    if not ok or n < 1 or not 0 <= i < n:
        raise InvalidArgument(f"part must be (i, nparts) with 0 <= i < nparts; got {part!r}")
    return int(i), int(n)


def _cumulative(weights) -> np.ndarray:
    return np.cumsum(np.asarray(weights, dtype=np.float64) + 1e-9)


def _cut(cum: np.ndarray, part) -> tuple[int, int]:
    i, n = check_part(part)
    m = int(cum.shape[0])
    if n == 1 or m == 0:
        return (0, m) if i == 0 else (m, m)
    cuts = np.minimum(np.searchsorted(cum, cum[-1] * np.arange(1, n) / n, side="left") + 1, m)
    bounds = np.concatenate([[0], cuts, [m]]).astype(np.int64)
    bounds = np.maximum.accumulate(bounds)
    return int(bounds[i]), int(bounds[i + 1])


def part_range(weights: np.ndarray, part) -> tuple[int, int]:
    """The half-open index range ``[lo, hi)`` of ``weights`` (one per root, in order) that part
    ``(i, nparts)`` covers; consecutive parts tile ``[0, len(weights))``.

    >>> [part_range(np.array([1.0, 1, 1, 1, 4]), (i, 2)) for i in range(2)]
    [(0, 4), (4, 5)]
    """
    check_part(part)
    return _cut(_cumulative(weights), part)


CLIQUE_WEIGHT_MIN_K = 5  # below it the k-clique parts keep the out-degree² weights
CLIQUE_ARC_SIZES_KEY = "host:clique_arc_sizes"


def clique_arc_sizes(G) -> np.ndarray:
    """``|N+(u) ∩ N+(v)|`` of every arc of ``G.oriented_ranked()`` (int32, read-only, cached with the
    graph): the candidate set of the arc, from which the k-clique weights are made. The gpu backend
    may fill the same cache entry from its own kernel (the same integers)."""
    def make():
        from .weights import arc_candidate_sizes
        import numba
        hp, hi = G.oriented_ranked()
        nchunks = max(1, min(int(hi.shape[0]) // 4096 + 1, 64 * numba.get_num_threads()))
        c = arc_candidate_sizes(hp, hi, nchunks)
        c.setflags(write=False)
        return c
    return G.device_cache(CLIQUE_ARC_SIZES_KEY, make)



def clique_weights(G, k: int | None = None) -> np.ndarray:
    """Estimated work of the k-cliques rooted at each vertex, indexed by degree rank (float64,
    read-only, cached with the graph per k).

    * ``k`` None or ``k < 5``: ``d_u²`` (d_u the out-degree in the degree-ordered DAG), the cost of
      the intersections of u's arcs;
    * ``k >= 5``: ``d_u² + Σ_{v ∈ N+(u)} Σ_{i=1}^{k-3} C(c_uv, i)`` with ``c_uv = |N+(u) ∩ N+(v)|``:
      the size of the search tree below each arc (u, v) if its candidate set were a clique. Out-
      degree² alone leaves most of the work of large k in the few parts that hold the dense core
      (R-MAT 20, k = 7: one part of 512 took 29 s on the GPU); see docs/gpu_cliques.md for the
      per-part times measured with both weights.

    >>> import la_gpm
    >>> G = la_gpm.generators.gnm(30, 200, seed=1)
    >>> bool((clique_weights(G, 6) >= clique_weights(G)).all())
    True
    """
    hp, _ = G.oriented_ranked()
    if k is None or k < CLIQUE_WEIGHT_MIN_K:
        def make():
            w = np.diff(hp).astype(np.float64) ** 2
            w.setflags(write=False)
            return w
        return G.device_cache("host:clique_weights:deg2", make)
    k = int(k)

    def make_k():
        from .weights import clique_root_weights
        w = clique_root_weights(hp, clique_arc_sizes(G), k)
        w.setflags(write=False)
        return w
    return G.device_cache(f"host:clique_weights:{k}", make_k)


def rank_range(G, part, k: int | None = None) -> tuple[int, int]:
    """The range ``[lo, hi)`` of degree ranks (the orientation order) that part ``(i, nparts)`` of a
    DAG-rooted count covers, cut at equal shares of :func:`clique_weights` ``(G, k)`` (out-degree
    squared when ``k`` is None or below 5): one definition for every backend, so the parts of one
    count may run on different backends and still add up to the whole.

    >>> import la_gpm
    >>> G = la_gpm.generators.gnm(30, 200, seed=1)
    >>> [rank_range(G, (i, 3), k=6)[0] for i in range(3)][0]
    0
    """
    check_part(part)
    key = "deg2" if k is None or k < CLIQUE_WEIGHT_MIN_K else str(int(k))
    cum = G.device_cache(f"host:clique_cumweights:{key}", lambda: _cumulative(clique_weights(G, k)))
    return _cut(cum, part)
