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


# ---- k = 8 (tests/test_census8.py): brute force over vertex subsets, classified by networkx isomorphism


def connected_subsets(G, k):
    """Number of connected induced k-vertex subgraphs, by brute force over every k-subset (bitmask BFS)."""
    adj = [0] * G.n
    for v in range(G.n):
        for w in G.indices[G.indptr[v]:G.indptr[v + 1]].tolist():
            adj[v] |= 1 << w
    total = 0
    for S in itertools.combinations(range(G.n), k):
        mask = 0
        for v in S:
            mask |= 1 << v
        seen = frontier = 1 << S[0]
        while frontier:
            nxt = 0
            f = frontier
            while f:
                low = f & -f
                nxt |= adj[low.bit_length() - 1]
                f ^= low
            frontier = nxt & mask & ~seen
            seen |= frontier
        total += seen == mask
    return total


class ClassIndex:
    """Rows of a list of k-vertex class edge lists, found by WL hash then networkx isomorphism."""

    def __init__(self, edge_lists, k):
        self.by_hash = {}
        for row, (h, r) in enumerate(class_graphs(edge_lists, k)):
            self.by_hash.setdefault(h, []).append((r, row))

    def row(self, h):
        for r, row in self.by_hash.get(_wl(h), ()):
            if nx.is_isomorphic(h, r):
                return row
        raise AssertionError(f"no class for {sorted(h.edges())}")


def induced_census_indexed(G, k, index, nrows):
    """Induced counts per row of ``index`` (a :class:`ClassIndex`) by brute force over every k-subset."""
    g = _nx(G)
    counts = [0] * nrows
    for S in itertools.combinations(range(G.n), k):
        h = g.subgraph(S)
        if h.number_of_edges() >= k - 1 and nx.is_connected(h):
            counts[index.row(nx.convert_node_labels_to_integers(h))] += 1
    return counts


def esu_codes(G, k):
    """Adjacency bitmask (bit j(j-1)/2 + i: positions i < j) of every connected induced k-subgraph, listed by a
    plain recursive ESU (Wernicke) in Python: an enumeration independent of la_gpm's kernels."""
    nbr = [set(G.indices[G.indptr[v]:G.indptr[v + 1]].tolist()) for v in range(G.n)]
    out = []

    def code_of(S):
        c = 0
        for j in range(1, k):
            for i in range(j):
                if S[i] in nbr[S[j]]:
                    c |= 1 << (j * (j - 1) // 2 + i)
        return c

    def extend(S, ext, v, near):
        if len(S) == k:
            out.append(code_of(S))
            return
        ext = list(ext)
        while ext:
            w = ext.pop()
            new = [u for u in nbr[w] if u > v and u not in near]
            extend(S + [w], ext + new, v, near | nbr[w])

    for v in range(G.n):
        extend([v], [u for u in nbr[v] if u > v], v, nbr[v] | {v})
    return out
