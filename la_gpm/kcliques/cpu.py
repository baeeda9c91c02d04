"""CPU k-clique kernels (numba): depth-first over the degree-ordered DAG, one clique once.

Each root's out-neighbourhood is intersected level by level (``primitives.sorted_ops.intersect``); the
last level is counted without being written (``intersect_count``). ``maxo`` is the DAG's largest
out-degree (O(sqrt(m))), which bounds the per-worker buffers.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..primitives.sorted_ops import intersect, intersect_count

__all__ = ["count_cliques", "count_cliques_serial"]

INT64_MAX = np.iinfo(np.int64).max
N_STATS = 2  # st[1]: set operations (intersections) done


@nb.njit(cache=True)
def _cliques_roots(ptr, idx, roots, rlo, rhi, k, maxo, st):
    """k-cliques (k >= 3) whose lowest-ranked vertex is in roots[rlo:rhi], on the DAG (ptr, idx).

    buf[l] holds the common out-neighbours of the l chosen vertices; the last level is
    counted by the size of an intersection.
    """
    buf = np.empty((k, max(maxo, 1)), dtype=idx.dtype)
    lens = np.zeros(k, dtype=np.int64)
    pos = np.zeros(k, dtype=np.int64)
    total = 0
    over = False
    for r in range(rlo, rhi):
        u = roots[r]
        d = ptr[u + 1] - ptr[u]
        if d < k - 1:
            continue
        if k == 3:
            for p in range(ptr[u], ptr[u + 1]):
                v = idx[p]
                x = intersect_count(idx, ptr[u], ptr[u + 1], idx, ptr[v], ptr[v + 1])
                if total > INT64_MAX - x:
                    over = True
                total += x
            st[1] += d
            continue
        for p in range(d):
            buf[1, p] = idx[ptr[u] + p]
        lens[1] = d
        pos[1] = 0
        lvl = 1
        while lvl >= 1:
            # vertex lvl is picked from buf[lvl] (sorted by id, not by rank: no suffix pruning)
            if pos[lvl] >= lens[lvl]:
                lvl -= 1
                continue
            v = buf[lvl, pos[lvl]]
            pos[lvl] += 1
            vlo = ptr[v]
            vhi = ptr[v + 1]
            if vhi - vlo < k - lvl - 1:
                continue
            st[1] += 1
            if lvl + 1 == k - 1:
                x = intersect_count(buf[lvl], 0, lens[lvl], idx, vlo, vhi)
                if total > INT64_MAX - x:
                    over = True
                total += x
            else:
                w = intersect(buf[lvl], 0, lens[lvl], idx, vlo, vhi, buf[lvl + 1])
                if w >= k - lvl - 1:
                    lens[lvl + 1] = w
                    pos[lvl + 1] = 0
                    lvl += 1
    return total, over


@nb.njit(parallel=True, cache=True)
def count_cliques(ptr, idx, roots, bounds, k, maxo):
    """Parallel over cost-balanced root chunks; returns (counts, overflow flags, set operations) per chunk."""
    nchunks = bounds.shape[0] - 1
    counts = np.zeros(nchunks, dtype=np.int64)
    ops = np.zeros(nchunks, dtype=np.int64)
    over = np.zeros(nchunks, dtype=np.bool_)
    for c in nb.prange(nchunks):
        st = np.zeros(N_STATS, dtype=np.int64)
        t, o = _cliques_roots(ptr, idx, roots, bounds[c], bounds[c + 1], k, maxo, st)
        counts[c] = t
        over[c] = o
        ops[c] = st[1]
    return counts, over, ops


@nb.njit(cache=True)
def count_cliques_serial(ptr, idx, roots, k, maxo):
    """One worker (small inputs); returns (count, overflow flag, set operations)."""
    st = np.zeros(N_STATS, dtype=np.int64)
    t, o = _cliques_roots(ptr, idx, roots, 0, roots.shape[0], k, maxo, st)
    return t, o, st[1]
