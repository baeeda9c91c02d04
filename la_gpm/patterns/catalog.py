"""Named patterns and pattern-file readers (FASCIA ``.fascia``, Sun & Luo ``.graph`` queries)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from ..exceptions import GraphFormatError, InvalidPattern, PatternTooLarge
from ..graph import Graph
from .names import NAMES, TEMPLATES, parse_fascia
from .pattern import Pattern

__all__ = ["named_pattern", "read_fascia", "read_query", "as_pattern", "pattern_from_graph", "NAMES", "TEMPLATES"]

def named_pattern(name: str) -> Pattern:
    """A pattern by name (:meth:`Pattern.named`): triangle, wedge, diamond, tailed-triangle, house, hourglass,
    pentagon, ``k-path`` (k vertices), ``k-star`` (a centre and k-1 leaves), ``k-cycle``, ``k-clique``, and
    the tree templates u3..u15-2 / ``Tree_<k>_<id>``."""
    return Pattern.named(name)


@functools.lru_cache(maxsize=256)
def _named(name: str) -> Pattern:
    P = named_pattern(name)
    P.is_connected, P.degrees, P.adjacency_masks     # computed once here, shared by every copy  # noqa: B018
    return P


def _named_copy(name: str) -> Pattern:
    """named_pattern(name) built once per name: a shallow copy of the cached Pattern (its tuples, read-only
    adjacency and the properties computed so far -- canonical form, automorphisms -- shared; its ``name`` the
    caller's own), so a call that names its pattern does not rebuild and re-analyse it (about 0.5 µs, not 15)."""
    P = _named(name)
    Q = object.__new__(type(P))
    Q.__dict__.update(P.__dict__)
    return Q


def read_fascia(path) -> Pattern:
    """A FASCIA template file: ``k``, ``m``, then ``u v`` per edge."""
    path = Path(path)
    if not path.is_file():
        raise GraphFormatError("no such file", path=str(path))
    k, edges = parse_fascia(path.read_text(), str(path))
    return Pattern(edges, k=k, name=path.stem)


def read_query(path) -> Pattern:
    """A Sun & Luo ``.graph`` query file as a vertex-labeled Pattern."""
    from ..io import read_sunluo

    return pattern_from_graph(read_sunluo(path), name=Path(path).stem)


MAX_GRAPH_PATTERN_VERTICES = 32


def pattern_from_graph(G, name=None) -> Pattern:
    """A :class:`la_gpm.Graph` used as a pattern: same vertices and edges, its vertex (and edge) labels kept.

    The graph must be undirected and have at most 32 vertices (the most a labeled pattern may have)."""
    if G.directed:
        raise InvalidPattern(f"a directed Graph ({G.n} vertices) was given as a pattern; patterns are undirected: "
                             "build the graph with directed=False")
    if G.n > MAX_GRAPH_PATTERN_VERTICES:
        raise PatternTooLarge(f"a Graph with {G.n} vertices was given as a pattern; patterns have at most "
                              f"{MAX_GRAPH_PATTERN_VERTICES} vertices. Did you swap the data graph and the query "
                              "(match(G, Q), count(G, pattern))?")
    src = np.repeat(np.arange(G.n), G.degrees).tolist()
    dst = G.indices.tolist()
    keep = [i for i, (u, v) in enumerate(zip(src, dst)) if u < v]
    edges = [(src[i], dst[i]) for i in keep]
    vl = None if G.vertex_labels is None else G.vertex_labels.tolist()
    el = None if G.edge_labels is None else {edges[j]: int(G.edge_labels[i]) for j, i in enumerate(keep)}
    return Pattern(edges, k=G.n, vertex_labels=vl, edge_labels=el, name=name if name is not None else G.name)


def names_a_file(s: str) -> bool:
    """Whether :func:`as_pattern` reads the string ``s`` as a pattern file's path (else it is a catalog name, whose
    pattern never changes)."""
    return s.endswith((".fascia", ".graph")) or "/" in s


def as_pattern(obj) -> Pattern:
    """The validator for patterns: Pattern, name, file path, :class:`la_gpm.Graph` (:func:`pattern_from_graph`: labels
    kept, at most 32 vertices, undirected), networkx graph or edge list."""
    if isinstance(obj, Pattern):
        return obj
    if isinstance(obj, Graph):
        return pattern_from_graph(obj)
    if isinstance(obj, Path) or (isinstance(obj, str) and names_a_file(obj)):
        p = str(obj)
        if p.endswith(".fascia"):
            return read_fascia(p)
        if p.endswith(".graph"):
            return read_query(p)
        raise InvalidPattern(f"unknown pattern file type {p!r}; use .fascia or .graph")
    if isinstance(obj, str):
        return _named_copy(obj)
    if (type(obj).__module__ or "").startswith("networkx"):
        return Pattern.from_networkx(obj)
    try:
        return Pattern(list(obj))
    except (TypeError, InvalidPattern) as e:
        raise InvalidPattern(f"cannot make a pattern from {type(obj).__name__}: {e}") from None
