"""Labeled subgraph matching: stream the embeddings of a query graph in bounded memory.

Notes
-----
``match`` runs the plan of :mod:`la_gpm.patterns.plan` *without* symmetry bounds
(every injective map is an embedding) in a resumable numba DFS: the search stack
(k candidate buffers of at most max-degree entries) persists between chunks, so
memory is O(k · max degree + chunk_size · k) whatever the number of embeddings.
Counting embeddings does not need the listing: ``count_embeddings`` = unique ×
|Aut(Q)| through :func:`la_gpm.api.count_pattern`.

Semantics (Sun & Luo 2020): vertex labels must be equal, pattern edges must be
edges of G (non-induced) and, with ``induced=True``, non-edges must be non-edges.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..validation import as_graph
from ..exceptions import BackendUnavailable, InvalidArgument
from ..patterns import as_pattern, read_query
from .cpu import list_matches
from .plans import MAX_LABELED_VERTICES, check_labels, check_size, plan_for

__all__ = ["match", "read_query"]


def _as_query(Q):
    return as_pattern(Q)


def match(G, Q, *, induced: bool = False, limit: int | None = None, chunk_size: int = 65536,
          backend: str | None = None) -> Iterator[np.ndarray]:
    """Yield the embeddings of query Q in G as int64 arrays of shape (rows, k).

    Column i holds the data vertex (0..n-1 numbering of ``G``; ``G.ids`` maps back to the
    original ids) matched to query vertex i.  Every injective, label- and
    edge-preserving map is listed once (automorphic images are distinct embeddings).

    Parameters
    ----------
    G : anything :func:`la_gpm.as_graph` accepts (e.g. a Sun & Luo ``.graph`` path)
    Q : a Pattern or a ``.graph`` query file (read with :func:`la_gpm.patterns.read_query`)
    induced : also require the query's non-edges to be non-edges of G
    limit : stop after this many embeddings
    chunk_size : rows per yielded array (the bound on the output buffer)
    backend : ``"cpu"`` / ``"auto"`` / None (the resumable numba DFS), or ``"gpu"`` (count pass,
        prefix sums, listing pass on the device; same rows, in another order: see ``docs/gpu_enum.md``)

    Examples
    --------
    >>> import la_gpm
    >>> G = la_gpm.datasets.load("karate")
    >>> sum(len(a) for a in match(G, "triangle"))
    270
    """
    if backend not in (None, "auto", "cpu", "gpu"):
        raise BackendUnavailable(f"match runs on backends 'cpu' and 'gpu'; got backend={backend!r}")
    if backend == "gpu":
        from ..backends import resolve_backend
        resolve_backend("gpu", what="match")  # BackendUnavailable with the reason when no device is usable
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 0):
        raise InvalidArgument(f"limit must be a non-negative integer or None; got {limit!r}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise InvalidArgument(f"chunk_size must be a positive integer; got {chunk_size!r}")
    G = as_graph(G)
    G.require_undirected("subgraph matching")
    P = _as_query(Q)
    P.require_connected("matching")
    check_size(P, limit_unlabeled=MAX_LABELED_VERTICES, what="match")
    check_labels(G, P, what="match")
    if backend == "gpu":
        return _match_iter_gpu(G, P, bool(induced), limit, int(chunk_size))
    return list_matches(G, P, bool(induced), limit, int(chunk_size))


def _match_iter_gpu(G, P, induced, limit, chunk_size):
    from .dumato import list_plan_gpu

    plan = plan_for(G, P, induced=induced, symmetry=False)
    yield from list_plan_gpu(G, plan, chunk_size=chunk_size, limit=limit)
