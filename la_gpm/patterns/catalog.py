"""Named patterns and pattern-file readers (FASCIA ``.fascia``, Sun & Luo ``.graph`` queries)."""

from __future__ import annotations

from pathlib import Path

from ..exceptions import GraphFormatError, InvalidPattern
from .names import NAMES, TEMPLATES, parse_fascia
from .pattern import Pattern

__all__ = ["named_pattern", "read_fascia", "read_query", "as_pattern", "NAMES", "TEMPLATES"]

def named_pattern(name: str) -> Pattern:
    """A pattern by name (:meth:`Pattern.named`): triangle, wedge, diamond, tailed-triangle, house, hourglass,
    pentagon, ``k-path`` (k vertices), ``k-star`` (a centre and k-1 leaves), ``k-cycle``, ``k-clique``, and
    the tree templates u3..u15-2 / ``Tree_<k>_<id>``."""
    return Pattern.named(name)


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

    G = read_sunluo(path)
    src = [int(u) for u in range(G.n) for _ in range(G.degrees[u])]
    edges = [(u, int(v)) for u, v in zip(src, G.indices.tolist()) if u < v]
    return Pattern(edges, k=G.n, vertex_labels=G.vertex_labels.tolist(), name=Path(path).stem)


def as_pattern(obj) -> Pattern:
    """The validator for patterns: Pattern, name, file path, networkx graph or edge list."""
    if isinstance(obj, Pattern):
        return obj
    if isinstance(obj, Path) or (isinstance(obj, str) and (obj.endswith((".fascia", ".graph")) or "/" in obj)):
        p = str(obj)
        if p.endswith(".fascia"):
            return read_fascia(p)
        if p.endswith(".graph"):
            return read_query(p)
        raise InvalidPattern(f"unknown pattern file type {p!r}; use .fascia or .graph")
    if isinstance(obj, str):
        return named_pattern(obj)
    if (type(obj).__module__ or "").startswith("networkx"):
        return Pattern.from_networkx(obj)
    try:
        return Pattern(list(obj))
    except (TypeError, InvalidPattern) as e:
        raise InvalidPattern(f"cannot make a pattern from {type(obj).__name__}: {e}") from None
