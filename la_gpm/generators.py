"""Random graph generators, vectorised (numba, counter-based random numbers).

Every draw is a hash of (seed, edge, level) (SplitMix64), so the graph depends on
the seed only, not on the number of threads.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .checks import check_int
from .exceptions import InvalidArgument
from .primitives.rng import splitmix64 as _splitmix
from .graph import Graph

__all__ = ["rmat", "graph500", "gnm"]


@nb.njit(inline="always")
def _uniform(seed, i, j):
    h = _splitmix(seed ^ _splitmix(np.uint64(i) * np.uint64(64) + np.uint64(j)))
    return (h >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(parallel=True, cache=True)
def _rmat_edges(scale, m, a, b, c, seed):
    src = np.empty(m, dtype=np.int64)
    dst = np.empty(m, dtype=np.int64)
    ab = a + b
    abc = a + b + c
    for e in nb.prange(m):
        u = 0
        v = 0
        for lvl in range(scale):
            r = _uniform(seed, e, lvl)
            bit = np.int64(1) << (scale - 1 - lvl)
            if r < a:
                pass
            elif r < ab:
                v |= bit
            elif r < abc:
                u |= bit
            else:
                u |= bit
                v |= bit
        src[e] = u
        dst[e] = v
    return src, dst


@nb.njit(parallel=True, cache=True)
def _permute(src, dst, perm):
    for e in nb.prange(src.shape[0]):
        src[e] = perm[src[e]]
        dst[e] = perm[dst[e]]


def rmat(scale: int, edge_factor: int = 16, a: float = 0.57, b: float = 0.19, c: float = 0.19, d: float | None = None,
         *, seed: int = 0, permute: bool = True) -> Graph:
    """R-MAT graph with 2**scale vertices and ``edge_factor * 2**scale`` generated edges, made simple.

    Default initiator (0.57, 0.19, 0.19, 0.05) is Graph500's.  ``permute`` relabels
    vertices randomly (as Graph500 does) so ids carry no degree information.
    Isolated vertices are kept (n = 2**scale).
    """
    scale = check_int("scale", scale, 1, 30)
    edge_factor = check_int("edge_factor", edge_factor, 1, 1 << 20)
    d = 1.0 - a - b - c if d is None else d
    if min(a, b, c, d) < 0 or abs(a + b + c + d - 1.0) > 1e-9:
        raise InvalidArgument(f"a, b, c, d must be non-negative and sum to 1; got {a}, {b}, {c}, {d}")
    n = 1 << scale
    m = edge_factor * n
    s = np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
    src, dst = _rmat_edges(scale, m, a, b, c, s)
    if permute:
        perm = np.random.default_rng(seed).permutation(n).astype(np.int64)
        _permute(src, dst, perm)
    return Graph.from_edges(src, dst, n=n, name=f"rmat{scale}")


def graph500(scale: int, *, seed: int = 0) -> Graph:
    """Graph500 Kronecker graph: R-MAT (0.57, 0.19, 0.19, 0.05), 16 edges per vertex, permuted."""
    return rmat(scale, 16, seed=seed)


@nb.njit(parallel=True, cache=True)
def _gnm_draw(n, k, seed, salt):
    src = np.empty(k, dtype=np.int64)
    dst = np.empty(k, dtype=np.int64)
    for e in nb.prange(k):
        src[e] = np.int64(_uniform(seed, e, 2 * salt) * n)
        dst[e] = np.int64(_uniform(seed, e, 2 * salt + 1) * n)
    return src, dst


def gnm(n: int, m: int, *, seed: int = 0) -> Graph:
    """Uniform random simple graph with exactly n vertices and m edges (Erdős–Rényi G(n, m)).

    Edges are drawn at random and repeats dropped; past 90% of the n(n-1)/2 pairs the edges left out are drawn
    instead (drawing the last few of all pairs one at a time is a coupon collector: K60 took 0.8 s)."""
    n = check_int("n", n, 1, 2**31 - 2)
    full = n * (n - 1) // 2
    m = check_int("m", m, 0, full)
    s = np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
    if m > 0.9 * full:
        out = _gnm_keys(n, full - m, s)
        iu, ju = np.triu_indices(n, 1)
        keys = iu.astype(np.int64) * n + ju
        keys = keys[~np.isin(keys, out)]
    else:
        keys = _gnm_keys(n, m, s)
    return Graph.from_edges(keys // n, keys % n, n=n, name=f"gnm{n}_{m}")


def _gnm_keys(n, m, s):
    """m distinct pairs lo * n + hi (lo < hi), in the order first drawn (so they depend on the seed only)."""
    keys = np.empty(0, dtype=np.int64)
    salt = 0
    while keys.size < m:
        need = int((m - keys.size) * 1.1) + 16
        u, v = _gnm_draw(n, need, s, salt)
        salt += 1
        ok = u != v
        lo, hi = np.minimum(u[ok], v[ok]), np.maximum(u[ok], v[ok])
        allk = np.concatenate([keys, lo * n + hi])
        _, first = np.unique(allk, return_index=True)
        keys = allk[np.sort(first)]
    return keys[:m]
