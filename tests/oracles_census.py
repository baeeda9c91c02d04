"""Brute-force census oracles (itertools over vertex subsets + networkx isomorphism). Tests only."""

from __future__ import annotations

import itertools
import warnings

import networkx as nx
import numpy as np


def _nx(G):
    g = nx.Graph()
    g.add_nodes_from(range(G.n))
    src = np.repeat(np.arange(G.n), G.degrees)
    g.add_edges_from((int(a), int(b)) for a, b in zip(src, G.indices) if a < b)
    return g


def _wl(h):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # networkx 3.5 notes a hash change; we only compare
        return nx.weisfeiler_lehman_graph_hash(h)


def _classify(h, reps):
    """Index of the representative isomorphic to h (reps: list of (wl_hash, nx graph))."""
    key = _wl(h)
    for i, (hk, r) in enumerate(reps):
        if hk == key and nx.is_isomorphic(h, r):
            return i
    raise AssertionError(f"no class for {sorted(h.edges())}")


def class_graphs(edge_lists, k):
    out = []
    for edges in edge_lists:
        r = nx.Graph()
        r.add_nodes_from(range(k))
        r.add_edges_from(edges)
        out.append((_wl(r), r))
    return out


def induced_census(G, k, edge_lists):
    """Induced counts of each class (given by an edge list each), and the number of connected k-subsets."""
    g = _nx(G)
    reps = class_graphs(edge_lists, k)
    counts = [0] * len(reps)
    total = 0
    for S in itertools.combinations(range(G.n), k):
        h = g.subgraph(S)
        if h.number_of_edges() >= k - 1 and nx.is_connected(h):
            total += 1
            counts[_classify(nx.convert_node_labels_to_integers(h), reps)] += 1
    return counts, total


def noninduced_census(G, k, edge_lists):
    """Non-induced counts: edge-preserving injective maps of each class into G, divided by |Aut|."""
    g = _nx(G)
    out = []
    for _, r in class_graphs(edge_lists, k):
        aut = sum(1 for _ in nx.algorithms.isomorphism.GraphMatcher(r, r).isomorphisms_iter())
        emb = sum(1 for _ in nx.algorithms.isomorphism.GraphMatcher(g, r).subgraph_monomorphisms_iter())
        assert emb % aut == 0
        out.append(emb // aut)
    return out


# ---- helpers shared by the census test modules


def by_name(df) -> dict:
    """{class name: count as int} of a census DataFrame."""
    return dict(zip(df["name"], (int(c) for c in df["count"])))


def graph_of(n, edges):
    """An undirected la_gpm Graph on n vertices from an edge list."""
    import la_gpm
    src = np.array([a for a, b in edges], dtype=np.int64)
    dst = np.array([b for a, b in edges], dtype=np.int64)
    return la_gpm.Graph.from_edges(src, dst, n=n)
