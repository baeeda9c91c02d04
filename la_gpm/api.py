"""The simple tier: ``count`` chooses the algorithm, method and backend for you."""

from __future__ import annotations

from .validation import as_graph
from .exceptions import InvalidArgument
from .patterns import as_pattern
from .exact.batch import count_many  # noqa: F401  (re-exported as la_gpm.count_many)
from .exact.driver import COUNT_KINDS

__all__ = ["count", "count_many"]


def _is_plain_triangle(P) -> bool:
    return P.k == 3 and P.num_edges == 3 and not P.labeled


def count(G, pattern, *, induced: bool = False, count: str = "unique", backend: str | None = None,
          per_vertex: bool = False, **options):
    """Count copies of ``pattern`` in ``G`` exactly.

    Parameters
    ----------
    G : anything :func:`la_gpm.as_graph` accepts
    pattern : a :class:`Pattern`, a name (``"triangle"``, ``"4-clique"``, ``"house"``, ...),
        a ``.fascia``/``.graph`` file, a networkx graph or an edge list
    induced : count vertex-induced copies (non-edges of the pattern must be non-edges of G)
    count : ``"unique"`` (each subgraph once, the default) or ``"embeddings"``
        (injective maps = unique × |Aut(pattern)|)
    backend : ``"cpu"``, ``"graphblas"``, ``"gpu"`` or ``"auto"`` (default: ``la_gpm.config.backend``)
    per_vertex : return per-vertex counts (numpy int64) instead of the total (triangles)
    **options : passed to the engine: ``method`` (triangles), ``memory_budget``, ``progress``,
        ``return_stats`` (reuse hits, set operations saved) and ``reuse`` (general patterns;
        see :func:`la_gpm.exact.driver.count_pattern`)

    Returns
    -------
    int
        An exact Python int.

    Examples
    --------
    >>> import la_gpm
    >>> la_gpm.count(la_gpm.datasets.load("karate"), "triangle", backend="cpu")
    45
    """
    if count not in COUNT_KINDS:
        raise InvalidArgument(f"count must be one of {COUNT_KINDS}; got {count!r}")
    G = as_graph(G)
    P = as_pattern(pattern)
    P.require_connected("counting")
    if _is_plain_triangle(P) and not G.labeled or (_is_plain_triangle(P) and per_vertex):
        from .triangles import triangle_count, triangles_per_vertex
        if per_vertex:
            if count != "unique":
                raise InvalidArgument("per_vertex counts are of unique triangles; use count='unique'")
            return triangles_per_vertex(G, backend=backend)
        n = triangle_count(G, backend=backend, **options)
        return n if count == "unique" else n * 6
    if per_vertex:
        raise InvalidArgument("per_vertex=True is available for triangles; for other patterns use "
                              "la_gpm.orbits or the color-coding per-vertex estimates")
    from .exact.driver import count_pattern
    return count_pattern(G, P, induced=induced, count=count, backend=backend, **options)
