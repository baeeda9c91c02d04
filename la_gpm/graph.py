"""The one graph type of la_gpm: CSR arrays plus a cache of derived properties."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from .exceptions import InvalidGraph

__all__ = ["Graph"]


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    if a.flags.writeable and a.base is None:
        a.setflags(write=False)
    elif a.flags.writeable:
        a = a.copy()
        a.setflags(write=False)
    return a


class Graph:
    """An immutable graph in CSR form with sorted neighbour lists.

    Build one with :func:`la_gpm.as_graph` (any supported input) or
    :meth:`Graph.from_edges`.  Undirected graphs are simple: both arc directions
    are stored, self-loops and duplicate edges are dropped.

    Attributes
    ----------
    indptr : int64 array (n + 1)
    indices : int32 array (int64 past 2**31 vertices), sorted within each row
    ids : the original vertex id of each vertex (identity unless compacted)
    vertex_labels : int64 array (n) or None
    edge_labels : int64 array aligned with ``indices`` or None

    Examples
    --------
    >>> import la_gpm
    >>> G = la_gpm.datasets.load("karate")
    >>> G.n, G.m
    (34, 78)
    """

    __slots__ = ("_indptr", "_indices", "_directed", "_ids", "_vlabels", "_elabels", "_cache", "_lock", "name")

    def __init__(self, indptr, indices, *, directed=False, ids=None, vertex_labels=None, edge_labels=None,
                 name=None, _trusted=False):
        indptr = np.asarray(indptr)
        indices = np.asarray(indices)
        if not _trusted:
            from .checks import check_csr
            indptr, indices = check_csr(indptr, indices, directed=directed)
        n = indptr.shape[0] - 1
        self._indptr = _readonly(indptr.astype(np.int64, copy=False))
        idt = np.int32 if n < 2**31 - 1 else np.int64
        self._indices = _readonly(indices.astype(idt, copy=False))
        self._directed = bool(directed)
        self._ids = None if ids is None else _readonly(np.asarray(ids))
        self._vlabels = None
        self._elabels = None
        if vertex_labels is not None:
            vl = np.asarray(vertex_labels)
            if vl.shape != (n,):
                raise InvalidGraph(f"vertex_labels must have one label per vertex, shape ({n},); got shape {vl.shape}")
            if not np.issubdtype(vl.dtype, np.integer):
                raise InvalidGraph(f"vertex_labels must be integers; got dtype {vl.dtype}")
            self._vlabels = _readonly(vl.astype(np.int64))
        if edge_labels is not None:
            el = np.asarray(edge_labels)
            if el.shape != self._indices.shape:
                raise InvalidGraph(
                    f"edge_labels must align with the CSR arcs, shape {self._indices.shape}; got shape {el.shape}")
            if not np.issubdtype(el.dtype, np.integer):
                raise InvalidGraph(f"edge_labels must be integers; got dtype {el.dtype}")
            self._elabels = _readonly(el.astype(np.int64))
        self._cache: dict[str, Any] = {}
        self.name = name
        self._lock = threading.RLock()  # set last: from here on the graph is frozen

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_edges(cls, src, dst, n=None, *, directed=False, compact=False, vertex_labels=None,
                   edge_labels=None, name=None) -> "Graph":
        """Build from two arrays of endpoints.

        Parameters
        ----------
        src, dst : integer arrays of equal length (non-negative vertex ids)
        n : number of vertices (default ``max id + 1``, or the distinct ids with ``compact``)
        directed : keep arcs as given instead of symmetrising
        compact : renumber the ids that occur to ``0..n-1`` (kept in ``G.ids``)
        vertex_labels : one integer per vertex (per original id before compaction)
        edge_labels : one integer per given edge; of duplicates the first label is kept
        """
        from .checks import check_edge_arrays
        from .primitives.csr import build_csr

        el = None
        if edge_labels is not None:
            el = np.asarray(edge_labels)
            if el.size == 0:
                el = el.astype(np.int64)  # an empty list arrives as float64
            if el.shape != np.shape(src):
                raise InvalidGraph(f"edge_labels must have one label per edge, shape {np.shape(src)}; got {el.shape}")
        if compact:  # a vertex with only self-loops is isolated: drop loops before renumbering
            src, dst = np.asarray(src), np.asarray(dst)
            if src.shape == dst.shape:
                loops = src == dst
                if loops.any():
                    src, dst = src[~loops], dst[~loops]
                    el = None if el is None else el[~loops]
        src, dst, n, ids, vertex_labels = check_edge_arrays(src, dst, n, compact, vertex_labels)
        keep = src != dst
        if not keep.all():
            src, dst = src[keep], dst[keep]
            el = None if el is None else el[keep]
        if not directed:
            src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
            el = None if el is None else np.concatenate([el, el])
        indptr, indices, perm = build_csr(src, dst, n, with_perm=el is not None)
        return cls(indptr, indices, directed=directed, ids=ids, vertex_labels=vertex_labels,
                   edge_labels=None if el is None else el[perm], name=name, _trusted=True)

    # ----------------------------------------------------------------- basic properties
    @property
    def indptr(self) -> np.ndarray:
        return self._indptr

    @property
    def indices(self) -> np.ndarray:
        return self._indices

    @property
    def n(self) -> int:
        """Number of vertices."""
        return int(self._indptr.shape[0] - 1)

    @property
    def nnz(self) -> int:
        """Number of stored arcs (2·m for undirected graphs)."""
        return int(self._indices.shape[0])

    @property
    def m(self) -> int:
        """Number of edges (undirected) or arcs (directed)."""
        return self.nnz if self._directed else self.nnz // 2

    @property
    def directed(self) -> bool:
        return self._directed

    @property
    def ids(self) -> np.ndarray:
        if self._ids is None:
            return self.cached("ids", lambda: _readonly(np.arange(self.n, dtype=np.int64)))
        return self._ids

    @property
    def vertex_labels(self):
        return self._vlabels

    @property
    def edge_labels(self):
        return self._elabels

    @property
    def labeled(self) -> bool:
        return self._vlabels is not None or self._elabels is not None

    def neighbors(self, v: int) -> np.ndarray:
        return self._indices[self._indptr[v]:self._indptr[v + 1]]

    def __repr__(self) -> str:
        kind = "directed" if self._directed else "undirected"
        lab = ", vertex-labeled" if self._vlabels is not None else ""
        lab += ", edge-labeled" if self._elabels is not None else ""
        nm = f" {self.name!r}" if self.name else ""
        return f"<la_gpm.Graph{nm}: n={self.n}, m={self.m}, {kind}{lab}>"

    # ----------------------------------------------------------------- cached derived properties
    def cached(self, key, make, valid=None):
        """A value derived from the graph, built once by ``make()`` and kept with it (thread-safe). The graph is
        immutable, so a derived value stays right; ``valid(value)`` (optional) may declare a kept value stale
        (e.g. a copy on a cluster that went away), and it is rebuilt."""
        v = self._cache.get(key)
        if v is None or (valid is not None and not valid(v)):
            with self._lock:
                v = self._cache.get(key)
                if v is None or (valid is not None and not valid(v)):
                    v = make()
                    self._cache[key] = v
        return v

    @property
    def degrees(self) -> np.ndarray:
        """Out-degree of every vertex (the degree, for undirected graphs)."""
        return self.cached("degrees", lambda: _readonly(np.diff(self._indptr)))

    @property
    def max_degree(self) -> int:
        return int(self.degrees.max()) if self.n else 0

    @property
    def degree_rank(self) -> np.ndarray:
        """Position of each vertex in the order (degree, id): the orientation order."""
        def make():
            order = np.argsort(self.degrees, kind="stable")      # ties by id
            rank = np.empty(self.n, dtype=np.int64)
            rank[order] = np.arange(self.n)
            return _readonly(rank)
        return self.cached("degree_rank", make)

    def oriented(self) -> tuple[np.ndarray, np.ndarray]:
        """Degree-ordered DAG: keep u->v when (deg u, u) < (deg v, v). Out-degrees are O(sqrt m)."""
        self.require_undirected("oriented")

        def make():
            from .primitives.csr import filter_by_rank
            p, i = filter_by_rank(self._indptr, self._indices, self.degree_rank, True)
            return _readonly(p), _readonly(i)
        return self.cached("oriented", make)

    def oriented_ranked(self) -> tuple[np.ndarray, np.ndarray]:
        """The degree-ordered DAG with vertex v renamed ``degree_rank[v]``.

        Arcs then always go from a smaller to a larger id, and the high-degree
        vertices (the most-read lists) sit together in memory: better cache reuse.
        """
        def make():
            from .primitives.csr import ranked_upper
            p, i = ranked_upper(self._indptr, self._indices, self.degree_rank)
            return _readonly(p), _readonly(i)
        self.require_undirected("oriented")
        return self.cached("oriented_ranked", make)

    def lower(self) -> tuple[np.ndarray, np.ndarray]:
        """Strictly lower triangle by vertex id (u -> v with v < u) as CSR."""
        self.require_undirected("lower")

        def make():
            from .primitives.csr import filter_by_rank
            p, i = filter_by_rank(self._indptr, self._indices, np.arange(self.n), False)
            return _readonly(p), _readonly(i)
        return self.cached("lower", make)

    def to_scipy(self):
        """The adjacency as a ``scipy.sparse.csr_array`` of ones (int8), sharing index arrays."""
        import scipy.sparse as sp

        def make():
            data = np.ones(self.nnz, dtype=np.int8)
            return sp.csr_array((data, self._indices, self._indptr), shape=(self.n, self.n))
        return self.cached("scipy", make)

    def to_networkx(self):
        import networkx as nx
        g = nx.DiGraph() if self._directed else nx.Graph()
        g.add_nodes_from(range(self.n))
        src = np.repeat(np.arange(self.n), self.degrees)
        g.add_edges_from(zip(src.tolist(), self._indices.tolist()))
        if self._vlabels is not None:
            nx.set_node_attributes(g, dict(enumerate(self._vlabels.tolist())), "label")
        return g

    def device_cache(self, key: str, make):
        """Per-device copies (e.g. ``"gpu:0:csr"``) built once and kept with the graph."""
        return self.cached("dev:" + key, make)

    def clear_device_cache(self) -> None:
        """Drop the graph's device copies (GPU memory is freed once nothing else holds them).

        >>> import la_gpm
        >>> la_gpm.datasets.load("karate").clear_device_cache()
        """
        with self._lock:
            for key in [k for k in self._cache if k.startswith("dev:")]:
                del self._cache[key]

    def to_undirected(self) -> "Graph":
        """The underlying undirected graph: an edge u ~ v wherever u -> v or v -> u (vertex ids, labels of the
        vertices and the name kept; edge labels dropped). An undirected graph is returned as is.

        >>> import la_gpm
        >>> D = la_gpm.Graph.from_edges([0, 1, 1], [1, 0, 2], directed=True)
        >>> D.m, D.to_undirected().m
        (3, 2)
        """
        if not self._directed:
            return self

        def make():
            src = np.repeat(np.arange(self.n, dtype=np.int64), self.degrees)
            H = Graph.from_edges(src, self._indices, n=self.n)
            return Graph(H.indptr, H.indices, ids=self._ids, vertex_labels=self._vlabels, name=self.name,
                         _trusted=True)
        return self.cached("undirected", make)

    def require_undirected(self, what, hint: str = ""):
        """Raise InvalidGraph naming ``what`` when the graph is directed, saying how to go on (``hint``: more
        of it)."""
        if self._directed:
            raise InvalidGraph(
                f"{what} needs an undirected graph; this one is directed ({self.n} vertices, {self.m} arcs). "
                "Count on the underlying undirected graph with G.to_undirected() (an edge wherever an arc goes "
                "either way), or build the graph with directed=False; directed 3- and 4-vertex motifs (triads, "
                "feed-forward loops, reciprocity) are counted by la_gpm.census(G, 3) and la_gpm.census(G, 4)" + hint)

    # ----------------------------------------------------------------- immutability
    def __setattr__(self, name, value):
        if hasattr(self, "_lock") and name != "name":
            raise AttributeError("la_gpm.Graph is immutable; build a new one instead")
        object.__setattr__(self, name, value)

    def __reduce__(self):
        return (_rebuild, (self._indptr, self._indices, self._directed, self._ids, self._vlabels, self._elabels,
                           self.name))


def _rebuild(indptr, indices, directed, ids, vl, el, name):
    return Graph(indptr, indices, directed=directed, ids=ids, vertex_labels=vl, edge_labels=el, name=name,
                 _trusted=True)
