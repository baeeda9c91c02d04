"""k-clique counting on the degree-ordered DAG.

Notes
-----
With D the degree-ordered DAG (u -> v when (deg u, u) < (deg v, v)), every k-clique
has exactly one ordering along D, so

    #K_k = Σ_u Σ_{v_1 ∈ N⁺(u)} ... |N⁺(u) ∩ N⁺(v_1) ∩ ... ∩ N⁺(v_{k-2})|

with out-degrees O(√m).  ``cpu`` walks this depth first in numba (one buffer of at
most max-out-degree entries per level and worker, parallel over cost-balanced root
chunks, the last level counted by an intersection size).  ``graphblas`` grows the
cliques level by level as sparse matrices: with K_j the clique-by-vertex incidence
of the j-cliques and L_j the incidence of their last (highest-ranked) vertex,

    X⟨L_j any.pair D⟩ = K_j plus.pair D,     (j+1)-cliques = {(c, w) : X(c, w) = j},

a masked SpGEMM per level, batched over rows to respect ``config.memory_budget``.

References: Chiba & Nishizeki (1985); Danisch, Balalau, Sozio, "Listing k-cliques in
sparse real-world graphs", WWW 2018.
"""

from __future__ import annotations

import math

import numpy as np

from ..validation import as_graph
from ..backends import resolve_backend
from ..partition import CLIQUE_WEIGHT_MIN_K, check_part, clique_weights, part_range, rank_range
from ..config import config
from ..exceptions import BackendUnavailable, InvalidArgument, PatternTooLarge

__all__ = ["clique_count", "MAX_CLIQUE_K"]

MAX_CLIQUE_K = 32
SERIAL_WORK = 200_000  # Σ outdeg² of the roots below which one worker runs


def _check_k(k):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InvalidArgument(f"k must be an integer number of clique vertices; got {k!r}")
    k = int(k)
    if k < 1:
        raise InvalidArgument(f"k must be >= 1; got {k}")
    if k > MAX_CLIQUE_K:
        raise PatternTooLarge(f"clique counting supports k <= {MAX_CLIQUE_K}; got k={k}. The largest clique of a "
                              "sparse graph is usually far smaller: if the answer you need is whether a larger "
                              "clique exists, check k <= 32 first (a count of 0 settles it)")
    return k


def clique_count(G, k: int, *, backend: str | None = None, part=None) -> int:
    """Number of k-cliques of an undirected graph, as an exact Python int.

    Parameters
    ----------
    G : anything :func:`la_gpm.as_graph` accepts
    k : clique size, 1..32 (k=1 gives n, k=2 gives m)
    backend : ``"cpu"`` (numba), ``"graphblas"`` (masked mxm per level), ``"gpu"`` (warp-centric
        DFS kernel, ``cliques/gpu.py``) or auto
    part : ``(i, nparts)``: count only the cliques whose lowest vertex in the degree order lies in
        the i-th of nparts work-balanced ranges of degree ranks, ``la_gpm.partition.
        rank_range(G, part, k)`` (cut by out-degree² for k <= 4 and by a k-clique work estimate
        for k >= 5, the same on every backend: the parts add up to the whole count;
        ``la_gpm.distributed`` sends one part per task). cpu and gpu backends.

    Examples
    --------
    >>> import la_gpm
    >>> G = la_gpm.datasets.load("karate")
    >>> [clique_count(G, k, backend="cpu") for k in (3, 4, 5, 6)]
    [45, 11, 2, 0]
    """
    k = _check_k(k)
    G = as_graph(G)
    G.require_undirected("clique counting")
    b = resolve_backend(backend, supported=("cpu", "graphblas", "gpu"), what="clique counting")
    part = check_part(part)
    if part is not None and b == "graphblas":
        raise BackendUnavailable("part= runs on the cpu and gpu backends; the graphblas formulation grows all "
                                 "cliques level by level")
    if k <= 2:
        if part is not None:  # roots are the vertices (k=1) or the arcs' sources in the DAG (k=2)
            ptr, _ = G.oriented()
            w = np.ones(G.n) if k == 1 else np.diff(ptr).astype(np.float64)
            lo, hi = part_range(w, part)
            return hi - lo if k == 1 else int(ptr[hi] - ptr[lo])
        return G.n if k == 1 else G.m
    if b == "gpu":
        from .gpu import clique_count as gpu_cliques
        return gpu_cliques(G, k, part=part)
    if b == "graphblas":
        return _cliques_graphblas(G, k)
    return _cliques_cpu(G, k, part)


def _cliques_cpu(G, k, part=None):
    from .cpu import count_cliques, count_cliques_serial

    ptr, idx = G.oriented()
    outdeg = np.diff(ptr)
    if part is not None:   # the vertices of a range of degree ranks (the same range as the gpu's)
        lo, hi = rank_range(G, part, k)
        verts = np.flatnonzero((G.degree_rank >= lo) & (G.degree_rank < hi))
        roots = verts[outdeg[verts] >= k - 1].astype(np.int64)
    else:
        roots = np.flatnonzero(outdeg >= k - 1).astype(np.int64)
    if roots.size == 0:
        return 0
    maxo = int(outdeg.max())
    w = outdeg[roots].astype(np.float64) ** 2 + 1.0
    serial = w.sum() < SERIAL_WORK
    if not serial and k >= CLIQUE_WEIGHT_MIN_K:  # chunks of equal estimated k-clique work (the part weights)
        w = clique_weights(G, k)[G.degree_rank[roots]] + 1.0
    if serial:  # starting a parallel region would cost more than the work
        t, over, _ = count_cliques_serial(ptr, idx, roots, k, maxo)
        if over:
            raise OverflowError(f"the number of {k}-cliques exceeds int64")
        return int(t)
    import numba
    nchunks = int(min(roots.size, max(math.ceil(roots.size / max(config.chunk, 1)), 32 * numba.get_num_threads())))
    cum = np.cumsum(w)
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, nchunks) / nchunks, side="left") + 1
    bounds = np.unique(np.concatenate([[0], cuts, [roots.size]])).astype(np.int64)
    counts, over, _ = count_cliques(ptr, idx, roots, bounds, k, maxo)
    if over.any():
        raise OverflowError(f"the number of {k}-cliques exceeds int64 in one chunk; use more, smaller chunks "
                            "(la_gpm.config.chunk)")
    return sum(int(x) for x in counts)


def _cliques_graphblas(G, k):
    import graphblas as gb

    from ..primitives import graphblas as convert

    D = convert.oriented(G)
    n = G.n
    if k == 3:
        C = gb.Matrix(gb.dtypes.INT64, n, n)
        C(mask=D.S) << gb.semiring.plus_pair[gb.dtypes.INT64](D @ D.T)
        return int(C.reduce_scalar(gb.monoid.plus[gb.dtypes.INT64]).new().value or 0)
    ptr, idx = G.oriented()
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    members = np.stack([src, idx.astype(np.int64)], axis=1)  # the 2-cliques, members in DAG order
    j = 2
    total = 0
    while j < k:
        nxt = []
        rows_per_batch = max(1, int(config.memory_budget // (8 * 8 * (j + 1) * max(G.max_degree, 1))))
        last_level = j + 1 == k
        count = 0
        for s in range(0, members.shape[0], rows_per_batch):
            M = members[s:s + rows_per_batch]
            r = M.shape[0]
            if r == 0:
                continue
            K = gb.Matrix.from_coo(np.repeat(np.arange(r), j), M.reshape(-1), 1, nrows=r, ncols=n,
                                   dtype=gb.dtypes.INT64)
            L = gb.Matrix.from_coo(np.arange(r), M[:, -1], 1, nrows=r, ncols=n, dtype=gb.dtypes.INT64)
            mask = gb.semiring.any_pair[gb.dtypes.BOOL](L @ D).new()
            X = gb.Matrix(gb.dtypes.INT64, r, n)
            X(mask=mask.S) << gb.semiring.plus_pair[gb.dtypes.INT64](K @ D)
            X = gb.select.valueeq(X, j).new()
            if last_level:
                count += X.nvals
            else:
                rr, cc, _ = X.to_coo()
                nxt.append(np.concatenate([M[rr], cc[:, None].astype(np.int64)], axis=1))
        if last_level:
            total = count
            break
        members = np.concatenate(nxt, axis=0) if nxt else np.zeros((0, j + 1), dtype=np.int64)
        j += 1
        if members.shape[0] == 0:
            return 0
    return int(total)
