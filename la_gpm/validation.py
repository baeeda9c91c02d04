"""One validator at the edge: every public entry point turns its input into a Graph here.

Kernels never re-check what is validated here.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .exceptions import InvalidArgument, InvalidGraph

__all__ = ["as_graph", "check_csr", "check_edge_arrays"]


def check_edge_arrays(src, dst, n, compact, vertex_labels):
    src = np.asarray(src)
    dst = np.asarray(dst)
    if src.ndim != 1 or dst.ndim != 1 or src.shape != dst.shape:
        raise InvalidGraph(f"src and dst must be 1-d arrays of equal length; got shapes {src.shape} and {dst.shape}")
    for name, a in (("src", src), ("dst", dst)):
        if a.size and not np.issubdtype(a.dtype, np.integer):
            if np.issubdtype(a.dtype, np.floating) and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
                continue
            raise InvalidGraph(f"{name} must hold integer vertex ids; got dtype {a.dtype}")
    src = src.astype(np.int64)
    dst = dst.astype(np.int64)
    if src.size and min(src.min(), dst.min()) < 0:
        bad = int(min(src.min(), dst.min()))
        raise InvalidGraph(f"vertex ids must be non-negative; got {bad}")
    ids = None
    if compact:
        ids, inv = np.unique(np.concatenate([src, dst]), return_inverse=True)
        src, dst = inv[: src.size].astype(np.int64), inv[src.size:].astype(np.int64)
        if n is not None and n < ids.size:
            raise InvalidGraph(f"n={n} is smaller than the {ids.size} distinct vertex ids")
        if vertex_labels is not None:
            vl = np.asarray(vertex_labels)
            if vl.ndim != 1 or vl.shape[0] <= int(ids.max(initial=-1)):
                raise InvalidGraph("vertex_labels must be indexed by the original vertex ids; "
                                   f"got length {vl.shape[0] if vl.ndim else 0} but the largest id is "
                                   f"{int(ids.max(initial=-1))}")
            vertex_labels = vl[ids]
        n = ids.size
    else:
        top = int(max(src.max(initial=-1), dst.max(initial=-1))) + 1
        if n is None:
            n = top if vertex_labels is None else max(top, len(vertex_labels))
        elif n < top:
            raise InvalidGraph(f"vertex id {top - 1} is out of range for n={n}")
    if n >= 2**31 - 1:
        raise InvalidGraph(f"graphs with 2**31 or more vertices are not supported; got n={n}")
    return src, dst, int(n), ids, vertex_labels


def check_csr(indptr, indices, directed=False):
    if indptr.ndim != 1 or indptr.size < 1:
        raise InvalidGraph(f"indptr must be a 1-d array of length n+1; got shape {indptr.shape}")
    if indices.ndim != 1:
        raise InvalidGraph(f"indices must be a 1-d array; got shape {indices.shape}")
    n = indptr.size - 1
    if indptr[0] != 0 or indptr[-1] != indices.size or np.any(np.diff(indptr) < 0):
        raise InvalidGraph("indptr must start at 0, be non-decreasing and end at len(indices)")
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        raise InvalidGraph(f"indices must lie in [0, {n}); got values in [{indices.min()}, {indices.max()}]")
    # rows sorted, no duplicates, no self loops: rebuild through the edge path when not
    rows = np.repeat(np.arange(n), np.diff(indptr))
    d = np.diff(indices.astype(np.int64))
    same_row = rows[1:] == rows[:-1]
    if np.any(d[same_row] <= 0) or np.any(rows == indices):
        raise InvalidGraph("CSR rows must be sorted without duplicates or self-loops; "
                           "build the graph with Graph.from_edges or as_graph instead")
    return indptr, indices


def _from_scipy(A, directed, **kw):
    import scipy.sparse as sp
    from .graph import Graph

    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise InvalidGraph(f"graph must be square; got shape {A.shape}")
    coo = sp.coo_array(A)
    nz = coo.data != 0
    return Graph.from_edges(coo.row[nz], coo.col[nz], n=A.shape[0], directed=directed, **kw)


def as_graph(obj, *, directed: bool = False, **kw):
    """Turn any supported input into a :class:`la_gpm.Graph`.

    Accepts a Graph (returned as is), a file path (SNAP edge list, ``.gz``,
    MatrixMarket ``.mtx``, Sun & Luo ``.graph``), a scipy.sparse matrix or array,
    a cupyx sparse matrix, a python-graphblas Matrix, a networkx or igraph graph,
    a ``(src, dst)`` pair of arrays, an ``(m, 2)`` array or a pandas DataFrame
    with two columns (``src``/``dst`` or the first two).  Nothing passed in is modified.
    """
    from .graph import Graph

    if isinstance(obj, Graph):
        if kw or (directed and not obj.directed):
            raise InvalidArgument("as_graph got a Graph together with construction options; build a new Graph")
        return obj
    if isinstance(obj, (str, os.PathLike)):
        from .io import read_graph
        return read_graph(Path(obj), directed=directed, **kw)
    mod = type(obj).__module__ or ""
    if mod.startswith("scipy.sparse"):
        return _from_scipy(obj, directed, **kw)
    if mod.startswith("cupyx"):
        return _from_scipy(obj.get(), directed, **kw)
    if mod.startswith("graphblas"):
        if not hasattr(obj, "nrows"):
            raise InvalidGraph(f"expected a graphblas Matrix; got {type(obj).__name__}")
        if obj.nrows != obj.ncols:
            raise InvalidGraph(f"graph must be square; got shape ({obj.nrows}, {obj.ncols})")
        r, c, _ = obj.to_coo()
        return Graph.from_edges(r, c, n=obj.nrows, directed=directed, **kw)
    if mod.startswith("networkx"):
        return _from_networkx(obj, directed, **kw)
    if mod.startswith("igraph"):
        el = np.asarray(obj.get_edgelist(), dtype=np.int64).reshape(-1, 2)
        return Graph.from_edges(el[:, 0], el[:, 1], n=obj.vcount(), directed=directed or obj.is_directed(), **kw)
    if mod.startswith("pandas"):
        if not hasattr(obj, "columns") or obj.shape[1] < 2:
            raise InvalidGraph(f"an edge DataFrame needs two columns; got {getattr(obj, 'shape', None)}")
        cols = ("src", "dst") if {"src", "dst"} <= set(obj.columns) else tuple(obj.columns[:2])
        return Graph.from_edges(obj[cols[0]].to_numpy(), obj[cols[1]].to_numpy(), directed=directed, **kw)
    if isinstance(obj, tuple) and len(obj) == 2:
        return Graph.from_edges(obj[0], obj[1], directed=directed, **kw)
    if isinstance(obj, np.ndarray):
        if obj.ndim == 2 and obj.shape[1] == 2 and obj.shape[0] != 2:
            return Graph.from_edges(obj[:, 0], obj[:, 1], directed=directed, **kw)
        if obj.ndim == 2 and obj.shape[0] == obj.shape[1]:
            import scipy.sparse as sp
            return _from_scipy(sp.csr_array(obj), directed, **kw)
        raise InvalidGraph(f"a numpy graph must be an (m, 2) edge array or a square adjacency; got shape {obj.shape}")
    raise InvalidGraph(f"cannot make a graph from {type(obj).__name__}; pass a path, a scipy/cupyx sparse matrix, "
                       "a graphblas Matrix, a networkx/igraph graph, (src, dst) arrays or an edge DataFrame")


def _from_networkx(g, directed, **kw):
    from .graph import Graph

    nodes = list(g.nodes())
    index = {v: i for i, v in enumerate(nodes)}
    e = np.array([(index[u], index[v]) for u, v in g.edges()], dtype=np.int64).reshape(-1, 2)
    labels = None
    if nodes and all("label" in g.nodes[v] for v in nodes):
        labels = np.array([g.nodes[v]["label"] for v in nodes])
        if not np.issubdtype(labels.dtype, np.integer):
            raise InvalidGraph("networkx node attribute 'label' must be an integer on every node")
    G = Graph.from_edges(e[:, 0], e[:, 1], n=len(nodes), directed=directed or g.is_directed(),
                         vertex_labels=labels, **kw)
    if not all(isinstance(v, (int, np.integer)) and v == i for i, v in enumerate(nodes)):
        try:
            ids = np.asarray(nodes)
            if ids.dtype.kind in "iu":
                object.__setattr__(G, "_ids", ids)
        except Exception:  # noqa: BLE001 -- non-array-able node keys keep identity ids
            pass
    return G


def check_int(name: str, value, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidArgument(f"{name} must be an integer; got {value!r}")
    value = int(value)
    if lo is not None and value < lo or hi is not None and value > hi:
        raise InvalidArgument(f"{name} must be in [{lo}, {hi}]; got {value}")
    return value
