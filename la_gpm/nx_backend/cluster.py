"""networkx's triangles, clustering, average_clustering and transitivity from la_gpm's per-vertex triangles.

Every result is the one networkx gives, value for value and type for type: counts are Python ints,
a coefficient is ``0`` (an int) where a vertex is in no triangle and else ``2 t / (d (d - 1))`` as one
float division of exact integers (numpy's float64 division of two integers below 2**53 rounds the same
way as Python's), and dicts list the nodes in networkx's order.
"""

from __future__ import annotations

import numpy as np

from .convert import NxGraph

__all__ = ["triangles", "clustering", "average_clustering", "transitivity", "is_single_node"]


def is_single_node(G, nodes) -> bool:
    """networkx's ``nodes in G`` (``G`` a networkx graph or an :class:`NxGraph`): one node, not a container."""
    return nodes is not None and nodes in G


def _bunch(G: NxGraph, nodes):
    """The nodes of ``nodes`` that are in ``G``, in order: networkx's ``G.nbunch_iter`` with its errors."""
    import networkx as nx

    try:
        for v in nodes:
            if v in G.index:
                yield v
    except TypeError as err:
        message = err.args[0] if err.args else ""
        exc = err
        if "iter" in message:
            exc = nx.NetworkXError("nbunch is not a node or a sequence of nodes.")
        if "object is not iterable" in message:
            exc = nx.NetworkXError(f"Node {nodes} is not in the graph.")
        if "hashable" in message:
            exc = nx.NetworkXError(f"Node {v} in sequence nbunch is not a valid node.")
        raise exc


def _coefficient(t: int, d: int):
    return 0 if t == 0 else (2 * t) / (d * (d - 1))


def triangles(G: NxGraph, nodes=None):
    tv = G.triangles()
    if nodes is None:
        return dict(zip(G.nodes, tv.tolist()))
    if is_single_node(G, nodes):
        return int(tv[G.index[nodes]])
    return {v: int(tv[G.index[v]]) for v in _bunch(G, nodes)}


def clustering(G: NxGraph, nodes=None, weight=None):
    if weight is not None:
        raise NotImplementedError("weighted clustering is not implemented by la_gpm")
    tv = G.triangles()
    d = G.degrees()
    if nodes is None:
        den = d * (d - 1)
        c = np.divide(2 * tv, den, out=np.zeros(len(tv)), where=tv > 0)
        return dict(zip(G.nodes, [x or 0 for x in c.tolist()]))  # 0.0 -> 0, as networkx
    if is_single_node(G, nodes):
        i = G.index[nodes]
        return _coefficient(int(tv[i]), int(d[i]))
    return {v: _coefficient(int(tv[G.index[v]]), int(d[G.index[v]])) for v in _bunch(G, nodes)}


def average_clustering(G: NxGraph, nodes=None, weight=None, count_zeros=True):
    # networkx's own steps on the same values in the same order, so the float sum is the same
    # (a single node fails in networkx with AttributeError: so it does here)
    c = clustering(G, nodes, weight=weight).values()
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


def transitivity(G: NxGraph):
    if len(G) == 0:
        return 0
    d = G.degrees()
    triangles3 = int(G.triangles().sum())  # 3 T
    wedges = int((d * (d - 1)).sum()) // 2
    return 0 if triangles3 == 0 else triangles3 / wedges
