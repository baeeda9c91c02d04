"""Pattern names and the FASCIA template format, as plain (k, edges) data: the lowest layer of
:mod:`la_gpm.patterns` (``Pattern.named`` and the catalog build Patterns from it)."""

from __future__ import annotations

import re
from importlib import resources

from ..exceptions import GraphFormatError, InvalidPattern

__all__ = ["named_edges", "parse_fascia", "NAMES", "TEMPLATES"]

# FASCIA / SubGraph2Vec template names -> bundled files (the shapes of u14, u16, u17 are not published)
TEMPLATES = {
    "u3": "Tree_3_1", "u3-1": "Tree_3_1",
    "u5": "Tree_5_2", "u5-2": "Tree_5_2",
    "u7": "Tree_7_7", "u7-2": "Tree_7_7",
    "u10": "Tree_10_31", "u10-2": "Tree_10_31",
    "u12": "Tree_12_337", "u12-2": "Tree_12_337",
    "u13": "Tree_13_783",
    "u15-1": "Tree_15_5023",
    "u15-2": "Tree_15_6303",
}

_FIXED = {
    "edge": (2, [(0, 1)]),
    "triangle": (3, [(0, 1), (1, 2), (0, 2)]),
    "wedge": (3, [(0, 1), (0, 2)]),
    "diamond": (4, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3)]),
    "tailed-triangle": (4, [(0, 1), (0, 2), (1, 2), (0, 3)]),
    "paw": (4, [(0, 1), (0, 2), (1, 2), (0, 3)]),
    "house": (5, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (1, 4)]),
    "hourglass": (5, [(0, 1), (0, 2), (1, 2), (0, 3), (0, 4), (3, 4)]),
    "pentagon": (5, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]),
    "bowtie": (5, [(0, 1), (0, 2), (1, 2), (0, 3), (0, 4), (3, 4)]),
    # the other connected 5-vertex classes by their usual names (docs/closed_forms.md)
    "fork": (5, [(0, 1), (1, 2), (0, 3), (0, 4)]),
    "chair": (5, [(0, 1), (1, 2), (0, 3), (0, 4)]),
    "cricket": (5, [(0, 1), (0, 2), (1, 2), (0, 3), (0, 4)]),
    "bull": (5, [(0, 1), (0, 2), (1, 2), (1, 3), (0, 4)]),
    "banner": (5, [(0, 1), (1, 2), (2, 3), (3, 0), (0, 4)]),
    "tadpole": (5, [(0, 1), (1, 2), (1, 3), (2, 3), (0, 4)]),
    "dart": (5, [(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (0, 4)]),
    "kite": (5, [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (0, 4)]),
    "k2,3": (5, [(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)]),
    "k4+pendant": (5, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (0, 4)]),
    "book": (5, [(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (0, 4), (1, 4)]),
    "gem": (5, [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (2, 3), (3, 4)]),
    "k2,3+e": (5, [(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3)]),
    "k4+wedge": (5, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (0, 4), (1, 4)]),
    "wheel": (5, [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (2, 3), (3, 4), (4, 1)]),
    "k5-e": (5, [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4)]),
}

_PARAM = re.compile(r"^(\d+)-(path|star|cycle|clique)$")
NAMES = tuple(_FIXED) + ("k-path", "k-star", "k-cycle", "k-clique") + tuple(TEMPLATES) + ("Tree_<k>_<id>",)


def named_edges(name: str) -> tuple:
    """A pattern by name: triangle, wedge, diamond, tailed-triangle, house, hourglass, pentagon,
    ``k-path`` (k vertices), ``k-star`` (k vertices: a centre and k-1 leaves), ``k-cycle``,
    ``k-clique``, and the tree templates u3..u15-2 / ``Tree_<k>_<id>``: ``(k, edges, name)``, for
    :meth:`la_gpm.Pattern.named`."""
    key = name.strip()
    low = key.lower().replace("_", "-") if not key.startswith("Tree_") else key
    if low in _FIXED:
        k, e = _FIXED[low]
        return k, list(e), low
    m = _PARAM.match(low)
    if m:
        k, kind = int(m.group(1)), m.group(2)
        if kind == "star":
            if k < 2:
                raise InvalidPattern(f"a k-star needs k >= 2 vertices; got {name!r}")
            return k, [(0, i) for i in range(1, k)], low
        if kind == "path":
            if k < 1:
                raise InvalidPattern(f"a k-path needs k >= 1 vertices; got {name!r}")
            return k, [(i, i + 1) for i in range(k - 1)], low
        if kind == "cycle":
            if k < 3:
                raise InvalidPattern(f"a k-cycle needs k >= 3; got {name!r}")
            return k, [(i, (i + 1) % k) for i in range(k)], low
        if k < 1:
            raise InvalidPattern(f"a k-clique needs k >= 1; got {name!r}")
        return k, [(i, j) for i in range(k) for j in range(i + 1, k)], low
    fname = TEMPLATES.get(low, key if key.startswith("Tree_") else None)
    if fname is not None:
        res = resources.files("la_gpm.patterns").joinpath("templates", fname + ".fascia")
        if res.is_file():
            k, edges = parse_fascia(res.read_text(), fname + ".fascia")
            return k, edges, (low if low in TEMPLATES else fname)
    raise InvalidPattern(f"unknown pattern name {name!r}; known: {', '.join(_FIXED)}, "
                         f"k-path, k-star, k-cycle, k-clique (e.g. '4-cycle'), "
                         f"{', '.join(sorted(set(TEMPLATES)))}; or pass a Pattern, a networkx graph, an edge list "
                         "or a .fascia/.graph file")


def parse_fascia(text: str, where: str) -> tuple:
    """``(k, edges)`` of a FASCIA template text: ``k``, ``m``, then ``u v`` per edge."""
    lines = [ln.strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    if len(lines) < 2:
        raise GraphFormatError("a .fascia file needs 'k', then the edge count, then 'u v' lines", path=where)
    try:
        k, m = int(lines[0]), int(lines[1])
        edges = [tuple(int(x) for x in ln.split()[:2]) for ln in lines[2:]]
    except ValueError as e:
        raise GraphFormatError(f"non-integer field: {e}", path=where) from None
    if any(len(e) != 2 for e in edges):
        raise GraphFormatError("every edge line needs two vertex ids", path=where)
    if len(edges) != m:
        raise GraphFormatError(f"header says {m} edges but the file has {len(edges)}", path=where)
    return k, edges
