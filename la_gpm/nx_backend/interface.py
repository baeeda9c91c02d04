"""The object networkx loads through the ``networkx.backends`` entry point.

networkx asks ``can_run(name, args, kwargs)`` before converting anything (True, or a string saying why
not: networkx then runs its own code when ``nx.config.fallback_to_nx`` is set, or raises
NotImplementedError when ``backend="la_gpm"`` was asked for), ``should_run`` when it chooses a backend
by ``nx.config.backend_priority`` (True, or why networkx would be faster), then converts the graph with
``convert_from_nx`` (networkx keeps the result in ``G.__networkx_cache__``, dropped whenever ``G``
changes through its methods) and calls the function of that name.
"""

from __future__ import annotations

from .cluster import average_clustering, clustering, is_single_node, transitivity, triangles
from .convert import NxGraph, decline_reason, from_networkx, to_networkx

__all__ = ["BackendInterface", "SMALL_GRAPH"]

SMALL_GRAPH = 50
"""Below this many nodes networkx's pure-Python loops beat the conversion (measured: clustering of G(n, 8/n) breaks even near n = 40 on CPU)."""

_PARAMETERS = {
    "triangles": ("G", "nodes"),
    "clustering": ("G", "nodes", "weight"),
    "average_clustering": ("G", "nodes", "weight", "count_zeros"),
    "transitivity": ("G",),
}


def _bind(name, args, kwargs) -> dict:
    bound = dict(zip(_PARAMETERS.get(name, ("G",)), args))
    bound.update(kwargs)
    return bound


class BackendInterface:
    """The la_gpm networkx backend: undirected, unweighted triangle counts and clustering coefficients."""

    triangles = staticmethod(triangles)
    clustering = staticmethod(clustering)
    average_clustering = staticmethod(average_clustering)
    transitivity = staticmethod(transitivity)

    @staticmethod
    def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                        preserve_node_attrs=False, preserve_graph_attrs=False, name=None, graph_name=None):
        """Structure only: the served functions read no node or edge attribute (weighted calls are
        declined), so ``edge_attrs``/``node_attrs``/``preserve_*_attrs`` are accepted and not needed;
        ``preserve_graph_attrs`` keeps a copy of ``G.graph``. Directed graphs and multigraphs raise
        NotImplementedError (networkx then falls back where it may)."""
        return from_networkx(G, keep_graph_attrs=bool(preserve_graph_attrs))

    @staticmethod
    def convert_to_nx(obj, *, name=None):
        """A networkx graph for a backend graph; results (dicts, ints, floats) pass unchanged."""
        return to_networkx(obj)

    @staticmethod
    def can_run(name, args, kwargs):
        """True, or the reason la_gpm cannot compute ``name`` with these arguments."""
        if name not in _PARAMETERS:
            return f"{name} is not implemented by la_gpm"
        bound = _bind(name, args, kwargs)
        G = bound.get("G")
        if G is None:
            return "no graph given"
        if not isinstance(G, NxGraph):
            reason = decline_reason(G)
            if reason is not None:
                return reason
        if bound.get("weight") is not None:
            return "weighted clustering is not implemented"
        return True

    @staticmethod
    def should_run(name, args, kwargs):
        """True, or why networkx would be faster (tiny graphs, one node)."""
        bound = _bind(name, args, kwargs)
        G = bound.get("G")
        if G is None:
            return True
        n = len(G)
        if n < SMALL_GRAPH:
            return f"the graph is small ({n} nodes < {SMALL_GRAPH}): networkx is faster"
        if is_single_node(G, bound.get("nodes")):  # networkx's ``nodes in G``, for its graphs and ours
            return "a single node: networkx reads its neighbourhood only, la_gpm counts the whole graph"
        return True

