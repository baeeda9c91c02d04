"""One validator at the edge: every public entry point turns its input into a Graph here.

Kernels never re-check what is validated here.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .exceptions import InvalidArgument, InvalidGraph
from .graph import Graph
from .io import read_graph

__all__ = ["as_graph"]


def _from_scipy(A, directed, **kw):
    import scipy.sparse as sp

    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise InvalidGraph(f"graph must be square; got shape {A.shape}")
    coo = sp.coo_array(A)
    nz = coo.data != 0
    return Graph.from_edges(coo.row[nz], coo.col[nz], n=A.shape[0], directed=directed, **kw)


def _module_of(obj) -> str:
    return type(obj).__module__ or ""


def _is_zero_one(a: np.ndarray) -> bool:
    return a.dtype.kind in "biuf" and bool(np.isin(a, (0, 1)).all())


def as_graph(obj, *, directed: bool | None = None, **kw):
    """Turn any supported input into a :class:`la_gpm.Graph`.

    Accepts a Graph (returned as is), a file path (SNAP edge list, ``.gz``,
    MatrixMarket ``.mtx``, Sun & Luo ``.graph``), a scipy.sparse matrix or array,
    a cupyx sparse matrix, a python-graphblas Matrix, a networkx or igraph graph,
    a ``(src, dst)`` pair of arrays, an ``(m, 2)`` array or a pandas DataFrame
    with two columns (``src``/``dst`` or the first two).  Nothing passed in is modified.

    A numpy array of shape ``(m, 2)`` (m != 2) is an edge list and a square ``(n, n)`` array
    (n != 2) an adjacency matrix (nonzero = edge).  A ``(2, 2)``
    array is read as two edges when its entries are integers other than 0/1 (e.g.
    ``[[5, 6], [6, 7]]``) and as an adjacency matrix when they are not integers; a ``(2, 2)``
    array of 0/1 could be either and raises :class:`InvalidArgument`: say which with
    ``Graph.from_edges(src, dst)`` (edges) or a scipy sparse matrix (adjacency).

    ``directed``: None (default) keeps the input's own direction (a networkx ``DiGraph`` or a
    directed igraph graph stays directed, everything else is undirected); True keeps arcs as
    given; ``directed=False`` makes the graph undirected: a networkx ``DiGraph`` (or a directed
    igraph graph) becomes the undirected graph with an edge u~v wherever u->v or v->u.
    """

    if isinstance(obj, Graph):
        if kw or (directed and not obj.directed):
            raise InvalidArgument("as_graph got a Graph together with construction options; build a new Graph")
        return obj
    if _module_of(obj).startswith(("networkx", "igraph")):
        d = bool(obj.is_directed()) if directed is None else bool(directed)
        if _module_of(obj).startswith("networkx"):
            return _from_networkx(obj, d, **kw)
        el = np.asarray(obj.get_edgelist(), dtype=np.int64).reshape(-1, 2)
        return Graph.from_edges(el[:, 0], el[:, 1], n=obj.vcount(), directed=d, **kw)
    directed = bool(directed)
    if isinstance(obj, (str, os.PathLike)):
        return read_graph(Path(obj), directed=directed, **kw)
    mod = _module_of(obj)
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
    if mod.startswith("pandas"):
        if not hasattr(obj, "columns") or obj.shape[1] < 2:
            raise InvalidGraph(f"an edge DataFrame needs two columns; got {getattr(obj, 'shape', None)}")
        cols = ("src", "dst") if {"src", "dst"} <= set(obj.columns) else tuple(obj.columns[:2])
        return Graph.from_edges(obj[cols[0]].to_numpy(), obj[cols[1]].to_numpy(), directed=directed, **kw)
    if isinstance(obj, tuple) and len(obj) == 2:
        return Graph.from_edges(obj[0], obj[1], directed=directed, **kw)
    if isinstance(obj, np.ndarray):
        if obj.ndim == 2 and obj.shape == (2, 2):
            if obj.dtype.kind != "b" and _is_zero_one(obj):
                raise InvalidArgument(
                    f"a (2, 2) array of 0/1 is ambiguous: two edges or a 2-vertex adjacency matrix; got "
                    f"{obj.tolist()}. Pass la_gpm.Graph.from_edges(src, dst) for an edge list, or a scipy "
                    "sparse matrix (scipy.sparse.csr_array(A)) for an adjacency matrix")
            if obj.dtype.kind in "iu":  # integer entries other than 0/1: not an adjacency matrix
                return Graph.from_edges(obj[:, 0], obj[:, 1], directed=directed, **kw)
        elif obj.ndim == 2 and obj.shape[1] == 2 and obj.shape[0] != 2:
            return Graph.from_edges(obj[:, 0], obj[:, 1], directed=directed, **kw)
        if obj.ndim == 2 and obj.shape[0] == obj.shape[1]:
            import scipy.sparse as sp
            return _from_scipy(sp.csr_array(obj), directed, **kw)
        raise InvalidGraph(f"a numpy graph must be an (m, 2) edge array or a square adjacency; got shape {obj.shape}")
    raise InvalidGraph(f"cannot make a graph from {type(obj).__name__}; pass a path, a scipy/cupyx sparse matrix, "
                       "a graphblas Matrix, a networkx/igraph graph, (src, dst) arrays or an edge DataFrame")


def _from_networkx(g, directed, **kw):

    nodes = list(g.nodes())
    index = {v: i for i, v in enumerate(nodes)}
    e = np.array([(index[u], index[v]) for u, v in g.edges()], dtype=np.int64).reshape(-1, 2)
    labels = None
    if nodes and all("label" in g.nodes[v] for v in nodes):
        labels = np.array([g.nodes[v]["label"] for v in nodes])
        if not np.issubdtype(labels.dtype, np.integer):
            raise InvalidGraph("networkx node attribute 'label' must be an integer on every node")
    G = Graph.from_edges(e[:, 0], e[:, 1], n=len(nodes), directed=directed,
                         vertex_labels=labels, **kw)
    if not all(isinstance(v, (int, np.integer)) and v == i for i, v in enumerate(nodes)):
        try:
            ids = np.asarray(nodes)
            if ids.dtype.kind in "iu":
                object.__setattr__(G, "_ids", ids)
        except Exception:  # noqa: BLE001 -- non-array-able node keys keep identity ids
            pass
    return G
