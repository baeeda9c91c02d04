"""The lowest layer of the motif family, shared by the closed forms, the hybrid, the census and the GPU.

* the graph as the kernels take it: :func:`prepare` (any graph input, undirected) and
  :func:`descending`, its degree-descending relabelling (cached on the graph);
* parallel passes: :func:`nchunks` and :func:`serial_pass` (small graphs stay on the calling thread);
* exact integer sums of int64 arrays as Python ints (:func:`exact_sum`, :func:`weighted_sum`,
  :func:`column_sums`, :func:`deg_binomial_sum`, :func:`degree_binomials`) and the overflow check
  of the closed forms (:func:`check_safe`).
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidArgument
from ..validation import as_graph

__all__ = ["prepare", "descending", "nchunks", "serial_pass", "sum_over_root_blocks", "exact_sum", "weighted_sum", "column_sums",
           "deg_binomial_sum", "degree_binomials", "check_safe"]

# graphs with fewer arcs run the k <= 4 census kernels on the calling thread (waking the pool costs more);
# read through serial_pass, so that one setting (tests monkeypatch it) reaches every kernel
_SERIAL_ARCS = 100_000


# --------------------------------------------------------------------------- the graph


def prepare(G, what):
    """G as a :class:`la_gpm.Graph`, which must be undirected (``what`` names the call in the error)."""
    G = as_graph(G)
    G.require_undirected(what)
    return G


def descending(G):
    """(indptr, indices, new_id) of G renamed by decreasing degree (ties by id), cached on the graph."""
    def make():
        from ..primitives.csr import relabel
        n = G.n
        order = np.lexsort((np.arange(n), -G.degrees.astype(np.int64)))
        new_id = np.empty(n, dtype=np.int64)
        new_id[order] = np.arange(n)
        ptr, idx = relabel(G.indptr, G.indices, new_id)        # rows sorted
        for a in (ptr, idx, new_id):
            a.setflags(write=False)
        return ptr, idx, new_id
    return G.device_cache("cpu:degree-descending-csr", make)


# --------------------------------------------------------------------------- parallel passes


def nchunks():
    """Chunks of a parallel pass: 4 per numba thread."""
    import numba
    return max(1, 4 * numba.get_num_threads())


def serial_pass(arcs) -> bool:
    """Whether a graph of this many arcs (stored, both directions) runs the k <= 4 kernels on the calling
    thread rather than the thread pool."""
    return arcs < _SERIAL_ARCS


# --------------------------------------------------------------------------- exact sums


def exact_sum(a) -> int:
    """Sum of an int64 array as a Python int, exact even where the int64 sum would overflow.

    >>> exact_sum([2**62, 2**62, 2**62]) == 3 * 2**62
    True
    """
    a = np.asarray(a, dtype=np.int64).ravel()
    if a.size == 0:
        return 0
    big = int(np.abs(a).max())
    if big == 0:
        return 0
    step = max(1, (2**62) // big)
    return sum(int(a[i:i + step].sum()) for i in range(0, a.size, step))


def weighted_sum(d, x) -> int:
    """Σ d_i x_i exactly (int64 products checked against overflow, Python-int sum)."""
    d = np.asarray(d, dtype=np.int64)
    x = np.asarray(x, dtype=np.int64)
    if d.size == 0:
        return 0
    if int(np.abs(d).max()) * int(np.abs(x).max()) >= 2**62:
        return sum(int(a) * int(b) for a, b in zip(d.tolist(), x.tolist()))
    return exact_sum(d * x)


def column_sums(acc) -> list:
    """Exact Python-int sums of the columns of a small int64 (rows, cols) array of per-chunk totals."""
    if acc.shape[0] == 1:
        return acc[0].tolist()
    return [sum(col) for col in zip(*acc.tolist())]


def deg_binomial_sum(deg, r) -> int:
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


def degree_binomials(G) -> tuple[int, int]:
    """(Σ_v C(d_v, 2), Σ_v C(d_v, 3)) of G: wedges and 3-stars, graph-derived, cached with the graph."""
    return G.device_cache("cpu:degree-binomials",
                          lambda: (deg_binomial_sum(G.degrees, 2), deg_binomial_sum(G.degrees, 3)))


def check_safe(G):
    """Every int64 term of the closed forms is at most 2·m·dmax² (and per vertex dmax³ <= m·dmax²)."""
    d = G.max_degree
    if G.m * d * d >= 2**62:
        raise InvalidArgument(f"the closed-form counts stay exact in int64 for m·dmax² < 2**62; got m={G.m} and "
                              f"max degree {d}; use method='enumerate'")


def sum_over_root_blocks(r0: int, r1: int, nclasses: int, count, *, progress: bool = False, desc: str = "census"):
    """Python-int class totals of ``count(roots, chunks)`` (an (nchunks, nclasses) int64 array) over the roots
    r0 .. r1 - 1, taken in blocks of ``config.chunk`` (at least 16 per chunk, so a call amortises its start),
    with a progress bar over the roots.  Each entry is at most (subsets visited) x n, far below 2**63 for any
    run that ends; the blocks are summed as Python ints."""
    from ..config import config
    total = [0] * nclasses
    if r1 <= r0:
        return total
    chunks = nchunks()
    block = max(16 * chunks, min(config.chunk, r1 - r0))
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=r1 - r0, desc=desc, unit="root")
    try:
        for s in range(r0, r1, block):
            roots = np.arange(s, min(r1, s + block), dtype=np.int64)
            for j, c in enumerate(count(roots, min(chunks, roots.size)).sum(axis=0).tolist()):
                total[j] += c
            if bar is not None:
                bar.update(roots.size)
    finally:
        if bar is not None:
            bar.close()
    return total
