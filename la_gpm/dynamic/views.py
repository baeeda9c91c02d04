"""Query views (``DynamicGraph(..., keep_graph=False)``): keep only the edges some query can use.

RapidFlow-style: rather than the whole data graph, the store holds the edges whose endpoint labels
some query needs, and a batch's other updates are dropped in one pass before anything else
(:func:`.updates.relevant_rows`), so a batch costs what its relevant updates cost.

Relevance is decided on **vertex label pairs** (a small table over the queries' labels plus one class
"any other label"): an edge between data vertices labelled a and b is relevant when

* some non-induced query has an edge between a vertex labelled a and one labelled b (either
  orientation): only such edges can be matched by a query edge;
* some induced query has two *distinct* vertices labelled a and b, adjacent or not: a query
  non-edge between them must land on a data non-edge, so such an edge can break (a delete: make) an
  induced match.  Two data vertices of a label that one vertex of the query holds are never both in
  a match (labels match exactly), so an edge between them is not relevant;
* every edge, when a query or the graph has no vertex labels (the views then gain nothing).

Edge labels do not narrow it: a delete names a pair, not its label, so a view keyed by edge labels could
not tell a delete of an edge no query uses from a delete of a missing edge; the views keep every edge of a
relevant label pair (the search checks edge labels as before).  Every match of every query uses only
relevant edges and every query non-edge it checks is a relevant pair, so the matches, the NLF candidate
tables (necessary conditions over the kept edges) and the counts on the views are those on the whole graph.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph
from .updates import Relevance

__all__ = ["relevance_of", "view_graph"]


def relevance_of(G: Graph, queries, induced: bool) -> Relevance | None:
    """The relevance table of ``queries`` on G (see the module notes); None when every edge is relevant."""
    if G.vertex_labels is None or any(P.vertex_labels is None for P in queries):
        return None
    keys = np.array(sorted({int(x) for P in queries for x in P.vertex_labels}), dtype=np.int64)
    table = np.zeros((keys.size + 1, keys.size + 1), dtype=np.uint8)
    for P in queries:
        cls = 1 + np.searchsorted(keys, np.asarray(P.vertex_labels, dtype=np.int64))
        if induced:
            pairs = [(u, v) for u in range(P.k) for v in range(u + 1, P.k)]
        else:
            pairs = [tuple(e) for e in P.edges]
        for u, v in pairs:
            table[cls[u], cls[v]] = table[cls[v], cls[u]] = 1
    rel = Relevance(np.zeros(0, dtype=np.int32), table, keys)
    rel.code = rel.classes(G.vertex_labels)
    if rel.code.shape[0] == 0:       # at least one entry: pair_kept reads code[0] for an id out of range
        rel.code = np.zeros(1, dtype=np.int32)
    return rel


def view_graph(G: Graph, rel: Relevance | None) -> tuple[Graph, int]:
    """G with only its relevant edges (same vertices, ids and labels): (view, edges dropped)."""
    if rel is None:
        return G, 0
    nptr, nidx, keep = rel.arcs(G.indptr, G.indices)
    if keep.all():
        return G, 0
    el = None if G.edge_labels is None else np.asarray(G.edge_labels)[keep]
    ids = None if G._ids is None else G.ids     # None (the identity) keeps the store's fast path
    H = Graph(nptr, nidx, ids=ids, vertex_labels=G.vertex_labels, edge_labels=el, name=G.name,
              _trusted=True)
    return H, int((keep.size - int(keep.sum())) // 2)
