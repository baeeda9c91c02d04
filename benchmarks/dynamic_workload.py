"""Seeded workloads for batch-dynamic subgraph matching, as in the GAMMA / RapidFlow papers.

* :func:`random_query` -- a random connected k-vertex subgraph of the data graph, vertex labels
  copied from it: ``dense`` (average degree >= 3, the induced edges of a greedily grown vertex set),
  ``sparse`` (average degree < 3: a random-walk spanning tree plus at least one more induced edge)
  or ``tree`` (the random-walk spanning tree alone).
* :func:`make_batch` -- sample ``rate * |E|`` distinct edges of G; ``insert_share`` of them are
  removed from G to give the base graph G0 and come back as the insert batch, the rest are deleted
  from G0 (so G0 + insert - delete = G - delete).  ``insert_share=1`` / ``0`` give insert-only /
  delete-only batches.
* Writers for RapidFlow's inputs (``write_data_graph``, ``write_query``, ``write_stream``).  What
  RapidFlow reads, from its source (``graph/graph.cpp::loadGraphFromFileWithoutMeta``, used for both
  the data and the query graph with ``is_edge_labeled = true``, and
  ``streaming/streaming_engine.cpp::load_stream``):

  - graph files: ``v id label`` and ``e u v edge_label`` lines; the reader takes one character as the
    line type and ignores any other type, so a ``t N M`` header and a trailing degree on ``v`` lines
    are skipped digit by digit (harmless, not needed: we write neither).  The edge label is read
    unconditionally (3 numbers per ``e`` line), so it must be present: we write 0.  The vertex count
    is ``max id on a v line + 1`` (a vertex without a ``v`` line gets a fresh label), so every vertex,
    isolated ones included, gets a ``v`` line.  Edges are sorted, de-duplicated and self-loops
    dropped by the reader, so no ordering is required.
  - stream files: one update per line, ``e u v label`` (insert) or ``-e u v label`` (delete), ``#``
    comments, ``v id label`` lines may give labels of new vertices (not used here); the endpoint labels
    of an update come from the data graph.
"""

from __future__ import annotations

import numpy as np
from harness import edge_array

KINDS = ("dense", "sparse", "tree")


def _labels(G) -> np.ndarray:
    return np.zeros(G.n, dtype=np.int64) if G.vertex_labels is None else np.asarray(G.vertex_labels, dtype=np.int64)


def _grow(G, k, rng, dense):
    """Grow a connected vertex set of size k from a random vertex; returns (vertices, tree edges) or None.

    Sparse/tree: a random walk (with restarts from visited vertices), the first-visit edges form the
    spanning tree.  Dense: each step adds a frontier vertex with the most neighbours already in the
    set (ties broken at random), so the induced subgraph is as dense as the neighbourhood allows.
    """
    indptr, indices = G.indptr, G.indices
    deg = np.diff(indptr)
    cand = np.flatnonzero(deg > 0)
    if cand.size == 0:
        return None
    start = int(rng.choice(cand))
    order = [start]
    pos = {start: 0}
    tree = []
    if dense:
        frontier = {}  # vertex -> (links into the set, a set vertex it links to)
        for w in indices[indptr[start]:indptr[start + 1]]:
            frontier[int(w)] = [1, start]
        while len(order) < k and frontier:
            best = max(c for c, _ in frontier.values())
            pick = [v for v, (c, _) in frontier.items() if c == best]
            v = int(pick[rng.integers(len(pick))])
            _, parent = frontier.pop(v)
            pos[v] = len(order)
            order.append(v)
            tree.append((pos[parent], pos[v]))
            for w in indices[indptr[v]:indptr[v + 1]]:
                w = int(w)
                if w in pos:
                    continue
                if w in frontier:
                    frontier[w][0] += 1
                else:
                    frontier[w] = [1, v]
        return (order, tree) if len(order) == k else None
    cur = start
    for _ in range(50 * k):
        if len(order) == k:
            break
        nb = indices[indptr[cur]:indptr[cur + 1]]
        if nb.size == 0 or rng.random() < 0.1:  # restart from a visited vertex
            cur = order[int(rng.integers(len(order)))]
            continue
        w = int(nb[rng.integers(nb.size)])
        if w not in pos:
            pos[w] = len(order)
            order.append(w)
            tree.append((pos[cur], pos[w]))
        cur = w
    return (order, tree) if len(order) == k else None


def _induced(G, order):
    idx = {v: i for i, v in enumerate(order)}
    out = set()
    for v in order:
        for w in G.indices[G.indptr[v]:G.indptr[v + 1]]:
            w = int(w)
            if w in idx and v < w:
                a, b = idx[v], idx[w]
                out.add((min(a, b), max(a, b)))
    return out


def random_query(G, k: int, kind: str, seed: int, attempts: int = 500):
    """A random connected k-vertex query of class ``kind`` taken from G (labels copied), or None.

    The same (G, k, kind, seed) always gives the same query.
    """
    from la_gpm.patterns import Pattern
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
    rng = np.random.default_rng([int(seed), int(k), KINDS.index(kind)])
    lab = _labels(G)
    for _ in range(attempts):
        got = _grow(G, k, rng, dense=(kind == "dense"))
        if got is None:
            continue
        order, tree = got
        tree = {(min(a, b), max(a, b)) for a, b in tree}
        ind = _induced(G, order)
        if kind == "dense":
            edges = ind
            if 2 * len(edges) < 3 * k:
                continue
        elif kind == "tree":
            edges = tree
        else:
            extra = sorted(ind - tree)
            room = (3 * k - 1) // 2 - (k - 1)  # most extra edges keeping 2|E|/k < 3
            if not extra or room < 1:
                continue
            take = int(rng.integers(1, min(room, len(extra)) + 1))
            sel = rng.choice(len(extra), size=take, replace=False)
            edges = tree | {extra[i] for i in sel}
            if 2 * len(edges) >= 3 * k:
                continue
        labels = [int(lab[v]) for v in order]
        return Pattern(sorted(edges), k=k, vertex_labels=labels, name=f"{kind}{k}_s{seed}")
    return None


def make_batch(G, rate: float, seed: int, insert_share: float = 2 / 3):
    """(G0, insert, delete): ``rate * |E|`` distinct edges of G sampled; ``insert_share`` of them are
    removed from G to give G0 and form the insert batch, the rest are deletions of edges kept in G0.

    insert / delete are (m1, 2) / (m2, 2) int64 arrays of undirected edges (u < v), in random order.
    G0 has G's n and vertex labels.
    """
    import la_gpm
    E = edge_array(G)
    m = E.shape[0]
    s = min(m, max(1, int(round(rate * m))))
    rng = np.random.default_rng([int(seed), int(round(rate * 1e9)), int(round(insert_share * 1e6))])
    pick = rng.choice(m, size=s, replace=False)
    n_ins = int(round(s * insert_share))
    ins, dele = E[pick[:n_ins]], E[pick[n_ins:]]
    keep = np.ones(m, dtype=bool)
    keep[pick[:n_ins]] = False
    E0 = E[keep]
    G0 = la_gpm.Graph.from_edges(E0[:, 0], E0[:, 1], n=G.n, vertex_labels=G.vertex_labels)
    return G0, ins.copy(), dele.copy()


def apply_batch(G0, insert, delete):
    """G0 + insert - delete as a la_gpm Graph (the reference 'graph after')."""
    import la_gpm
    E = edge_array(G0)
    if len(delete):
        d = np.sort(np.asarray(delete, dtype=np.int64), axis=1)
        key = E[:, 0] * G0.n + E[:, 1]
        E = E[~np.isin(key, d[:, 0] * G0.n + d[:, 1])]
    if len(insert):
        E = np.concatenate([E, np.asarray(insert, dtype=np.int64)])
    return la_gpm.Graph.from_edges(E[:, 0], E[:, 1], n=G0.n, vertex_labels=G0.vertex_labels)


# ------------------------------------------------------------------ RapidFlow writers
def write_data_graph(G, path) -> None:
    """RapidFlow data graph: ``v id label`` for every vertex, ``e u v 0`` for every edge (u < v)."""
    lab = _labels(G)
    E = edge_array(G)
    with open(path, "w") as f:
        f.write("".join(f"v {i} {int(x)}\n" for i, x in enumerate(lab.tolist())))
        f.write("".join(f"e {u} {v} 0\n" for u, v in E.tolist()))


def write_query(P, path) -> None:
    """RapidFlow query graph: ``v i label`` (label 0 when unlabeled), ``e u v 0``."""
    lab = P.vertex_labels if P.vertex_labels is not None else [0] * P.k
    with open(path, "w") as f:
        f.write("".join(f"v {i} {int(x)}\n" for i, x in enumerate(lab)))
        f.write("".join(f"e {u} {v} 0\n" for u, v in P.edges))


def write_stream(insert, delete, path) -> None:
    """RapidFlow update stream: the inserts (``e u v 0``), then the deletions (``-e u v 0``)."""
    with open(path, "w") as f:
        f.write("".join(f"e {int(u)} {int(v)} 0\n" for u, v in np.asarray(insert).reshape(-1, 2).tolist()))
        f.write("".join(f"-e {int(u)} {int(v)} 0\n" for u, v in np.asarray(delete).reshape(-1, 2).tolist()))
