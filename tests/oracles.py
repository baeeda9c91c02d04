"""Deliberately slow reference counters (never used in benchmarks).

Two independent definitions of the same numbers:

* :func:`brute_count` enumerates every injective map of the pattern's vertices to the
  graph's vertices with ``itertools.permutations`` and checks it edge by edge.
* :func:`nx_count` asks networkx's VF2 (``GraphMatcher``) for monomorphisms
  (non-induced) or subgraph isomorphisms (induced).

``count="embeddings"`` counts maps; ``"unique"`` divides by |Aut(P)| (exact: the
automorphism group acts freely on the embeddings).
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def _edge_label_map(G):
    if G.edge_labels is None:
        return None
    src = np.repeat(np.arange(G.n), G.degrees)
    return {(int(u), int(v)): int(lab) for u, v, lab in zip(src, G.indices, G.edge_labels)}


def _pattern_edge_label(P, a, b):
    return P.edge_labels[(min(a, b), max(a, b))]


def brute_embeddings(G, P, induced=False):
    """Every embedding as a tuple (image of pattern vertex 0, 1, ...), by exhaustive search."""
    adj = set()
    src = np.repeat(np.arange(G.n), G.degrees)
    for u, v in zip(src.tolist(), G.indices.tolist()):
        adj.add((u, v))
    elab = _edge_label_map(G)
    k = P.k
    A = P.adjacency
    out = []
    for f in itertools.permutations(range(G.n), k):
        if P.vertex_labels is not None and any(G.vertex_labels[f[i]] != P.vertex_labels[i] for i in range(k)):
            continue
        ok = True
        for a in range(k):
            for b in range(a + 1, k):
                e = (f[a], f[b]) in adj
                if A[a, b]:
                    if not e or (P.edge_labels is not None and elab[(f[a], f[b])] != _pattern_edge_label(P, a, b)):
                        ok = False
                        break
                elif induced and e:
                    ok = False
                    break
            if not ok:
                break
        if ok:
            out.append(tuple(f))
    return out


def brute_count(G, P, induced=False, count="unique"):
    """Exact count by enumerating all injective maps (itertools)."""
    emb = len(brute_embeddings(G, P, induced))
    if count == "embeddings":
        return emb
    aut = P.automorphism_count
    assert emb % aut == 0, "embeddings must be a multiple of |Aut|"
    return emb // aut


def nx_count(G, P, induced=False, count="unique"):
    """Exact count with networkx VF2 (GraphMatcher), labels compared by equality."""
    import networkx as nx
    from networkx.algorithms import isomorphism as iso

    g = G.to_networkx()
    if G.edge_labels is not None:
        for (u, v), lab in _edge_label_map(G).items():
            g[u][v]["label"] = lab
    h = nx.Graph()
    h.add_nodes_from(range(P.k))
    for a, b in P.edges:
        h.add_edge(a, b)
        if P.edge_labels is not None:
            h[a][b]["label"] = _pattern_edge_label(P, a, b)
    if P.vertex_labels is not None:
        for v in range(P.k):
            h.nodes[v]["label"] = P.vertex_labels[v]
    nm = iso.categorical_node_match("label", None) if P.vertex_labels is not None else None
    em = iso.categorical_edge_match("label", None) if P.edge_labels is not None else None
    GM = iso.GraphMatcher(g, h, node_match=nm, edge_match=em)
    it = GM.subgraph_isomorphisms_iter() if induced else GM.subgraph_monomorphisms_iter()
    emb = sum(1 for _ in it)
    return emb if count == "embeddings" else emb // P.automorphism_count


def brute_cliques(G, k):
    """k-cliques by checking every k-subset (tiny graphs only)."""
    adj = [set(G.neighbors(v).tolist()) for v in range(G.n)]
    return sum(1 for S in itertools.combinations(range(G.n), k)
               if all(b in adj[a] for a, b in itertools.combinations(S, 2)))


def k_clique_embeddings(nclique, P):
    """Analytic oracle: K_m holds m!/((m-k)!·|Aut(P)|) copies of P (non-induced)."""
    return math.perm(nclique, P.k) // P.automorphism_count
