"""numba kernels for the k-clique part weights of ``la_gpm.partition`` (host side of every
backend: the parts of one count must be the same rank ranges on cpu and gpu workers)."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(parallel=True, cache=True)
def arc_candidate_sizes(ptr, idx, nchunks):
    """``c[p] = |N+(u) ∩ N+(v)|`` for every arc p = (u, v) of a DAG whose rows are sorted (the rank-
    ordered DAG): the candidate set of the arc, the same integers as the gpu's ``clique_arc_sizes``.
    Parallel over ``nchunks`` equal ranges of arcs (a hub's arcs are spread over several chunks)."""
    n = ptr.shape[0] - 1
    narcs = idx.shape[0]
    c = np.zeros(narcs, dtype=np.int32)
    step = (narcs + nchunks - 1) // nchunks
    for ch in nb.prange(nchunks):
        a0 = ch * step
        a1 = min(narcs, a0 + step)
        if a0 >= a1:
            continue
        # the source of arc a0: the last row starting at or before it
        lo = 0
        hi = n
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if ptr[mid] <= a0:
                lo = mid
            else:
                hi = mid
        u = lo
        for p in range(a0, a1):
            while ptr[u + 1] <= p:
                u += 1
            v = idx[p]
            i = p + 1             # members of N+(u) ∩ N+(v) rank above v: they follow v in row u
            iend = ptr[u + 1]
            j = ptr[v]
            jend = ptr[v + 1]
            s = 0
            while i < iend and j < jend:
                x = idx[i]
                y = idx[j]
                if x < y:
                    i += 1
                elif x > y:
                    j += 1
                else:
                    s += 1
                    i += 1
                    j += 1
            c[p] = s
    return c


@nb.njit(parallel=True, cache=True)
def clique_root_weights(ptr, c, k):
    """Per root u: ``d_u² + Σ_{v ∈ N+(u)} Σ_{i=1}^{k-3} C(c_uv, i)``, the out-degree squared (the
    arc intersections) plus the number of vertex subsets of each arc's candidate set of at most
    k - 3 vertices: the nodes of the arc's search tree if its candidates were a clique. Float64,
    summed in arc order (the same bits on every machine)."""
    n = ptr.shape[0] - 1
    w = np.empty(n, dtype=np.float64)
    for u in nb.prange(n):
        d = float(ptr[u + 1] - ptr[u])
        s = d * d
        for p in range(ptr[u], ptr[u + 1]):
            x = c[p]
            b = 1.0
            for i in range(1, k - 2):
                if i > x:
                    break
                b = b * (x - i + 1) / i
                s += b
        w[u] = s
    return w
