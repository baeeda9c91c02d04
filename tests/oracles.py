"""Deliberately slow reference counters (never used in benchmarks).

Two independent definitions of the same numbers:

* :func:`brute_count` enumerates every injective map of the pattern's vertices to the
  graph's vertices, one vertex at a time, and checks it edge by edge (a partial map that already breaks a
  pair is not extended).
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
    """Every embedding as a tuple (image of pattern vertex 0, 1, ...), by exhaustive search: every injective map,
    built one pattern vertex at a time in increasing graph-vertex order (so in the order of
    ``itertools.permutations(range(G.n), P.k)``), a partial map dropped as soon as a pair of mapped vertices breaks
    the definition (a pattern edge missing or of another label, a label, and for ``induced`` an extra edge).  Every
    check is between mapped vertices only, so no embedding is dropped; until session 29 every complete map was made
    first (17M maps for 5 vertices of 30: most of the default test run's dynamic oracle time)."""
    adj = set()
    src = np.repeat(np.arange(G.n), G.degrees)
    for u, v in zip(src.tolist(), G.indices.tolist()):
        adj.add((u, v))
    elab = _edge_label_map(G)
    k = P.k
    A = P.adjacency.tolist()
    plab = P.vertex_labels
    glab = None if plab is None else [int(x) for x in np.asarray(G.vertex_labels).tolist()]
    pel = None if P.edge_labels is None else {(a, b): _pattern_edge_label(P, a, b)
                                               for a in range(k) for b in range(a + 1, k) if A[a][b]}
    n = G.n
    out = []
    f = [0] * k
    used = [False] * n

    def extend(i):
        if i == k:
            out.append(tuple(f))
            return
        for v in range(n):
            if used[v] or (plab is not None and glab[v] != plab[i]):
                continue
            ok = True
            for a in range(i):
                e = (f[a], v) in adj
                if A[a][i]:
                    if not e or (pel is not None and elab[(f[a], v)] != pel[(a, i)]):
                        ok = False
                        break
                elif induced and e:
                    ok = False
                    break
            if ok:
                used[v] = True
                f[i] = v
                extend(i + 1)
                used[v] = False

    extend(0)
    return out


def brute_count(G, P, induced=False, count="unique"):
    """Exact count by enumerating all injective maps (:func:`brute_embeddings`)."""
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
