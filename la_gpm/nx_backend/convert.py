"""The backend graph: a :class:`la_gpm.Graph` plus the networkx node keys, in networkx's order."""

from __future__ import annotations

import numpy as np

from ..graph import Graph
from ..triangles import triangles_per_vertex

__all__ = ["NxGraph", "from_networkx", "to_networkx", "decline_reason"]


def decline_reason(G) -> str | None:
    """Why the backend cannot take graph ``G`` (a networkx graph or an :class:`NxGraph`), or None."""
    if isinstance(G, NxGraph):
        return None
    if G.is_directed():
        return "directed graphs are not supported"
    if G.is_multigraph():
        return "multigraphs are not supported"
    return None


class NxGraph:
    """What ``convert_from_nx`` returns: vertex ``i`` of ``graph`` is networkx node ``nodes[i]``.

    ``graph`` is simple and undirected (self-loops dropped, as networkx's clustering ignores them).
    The per-vertex triangle counts are computed once and kept (the graph is immutable).
    """

    __networkx_backend__ = "la_gpm"
    __slots__ = ("graph", "nodes", "index", "graph_attrs", "_triangles")

    def __init__(self, graph: Graph, nodes: list, graph_attrs: dict | None = None):
        self.graph = graph
        self.nodes = nodes
        self.index = {v: i for i, v in enumerate(nodes)}
        self.graph_attrs = graph_attrs
        self._triangles = None

    # enough of networkx's graph protocol for its decorators and dispatcher
    def is_directed(self) -> bool:
        return False

    def is_multigraph(self) -> bool:
        return False

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, v) -> bool:
        try:
            return v in self.index
        except TypeError:  # unhashable: not a node, as in networkx
            return False

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def number_of_edges(self) -> int:
        return self.graph.m

    def __repr__(self) -> str:
        return f"<la_gpm networkx backend graph: {self.graph.n} nodes, {self.graph.m} edges>"

    def triangles(self) -> np.ndarray:
        """Triangles through each vertex (int64), computed once."""
        if self._triangles is None:
            self._triangles = triangles_per_vertex(self.graph)
        return self._triangles

    def degrees(self) -> np.ndarray:
        """Degree of each vertex without self-loops (int64)."""
        return self.graph.degrees.astype(np.int64)


def from_networkx(G, *, keep_graph_attrs: bool = False) -> NxGraph:
    """Build the backend graph from an undirected simple networkx graph, keeping its node order."""
    reason = decline_reason(G)
    if reason is not None:
        raise NotImplementedError(f"la_gpm networkx backend: {reason}")
    if isinstance(G, NxGraph):
        return G
    nodes = list(G)
    index = {v: i for i, v in enumerate(nodes)}
    m = G.number_of_edges()
    ends = np.fromiter((index[x] for e in G.edges() for x in e), dtype=np.int64, count=2 * m)
    graph = Graph.from_edges(ends[0::2], ends[1::2], n=len(nodes), name=G.graph.get("name"))
    return NxGraph(graph, nodes, dict(G.graph) if keep_graph_attrs else None)


def to_networkx(obj):
    """A networkx ``Graph`` for an :class:`NxGraph` (nodes in order, no attributes but the graph's);
    anything else (a result dict, an int, a float) is returned unchanged."""
    if not isinstance(obj, NxGraph):
        return obj
    import networkx as nx

    g = nx.Graph()
    if obj.graph_attrs:
        g.graph.update(obj.graph_attrs)
    g.add_nodes_from(obj.nodes)
    ptr, idx = obj.graph.lower()
    src = np.repeat(np.arange(obj.graph.n), np.diff(ptr)).tolist()
    g.add_edges_from((obj.nodes[u], obj.nodes[v]) for u, v in zip(src, idx.tolist()))
    return g
