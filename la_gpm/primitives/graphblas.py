"""Zero-copy-ish conversion of a Graph to graphblas Matrices, cached on the graph."""

from __future__ import annotations

import numpy as np


def _import_csr(n, indptr, indices):
    import graphblas as gb

    return gb.Matrix.ss.import_csr(
        nrows=n, ncols=n, indptr=np.asarray(indptr, dtype=np.uint64), col_indices=np.asarray(indices, dtype=np.uint64),
        values=np.ones(1, dtype=np.int8), is_iso=True, sorted_cols=True, take_ownership=True)


def adjacency(G):
    """A as an iso-valued int8 graphblas Matrix (cached)."""
    return G.device_cache("graphblas:A", lambda: _import_csr(G.n, G.indptr, G.indices))


def lower(G):
    return G.device_cache("graphblas:L", lambda: _import_csr(G.n, *G.lower()))


def oriented(G):
    """The degree-ordered DAG (u -> v when (deg u, u) < (deg v, v))."""
    return G.device_cache("graphblas:D", lambda: _import_csr(G.n, *G.oriented()))
