"""Directed patterns on directed graphs: ``la_gpm.count(D, P)`` for a directed pattern P of 3 or 4 vertices.

A directed pattern is a set of arcs (tail, head); a reciprocal pair is two arcs (a, b) and (b, a). It is given
as :class:`DiPattern`, a networkx ``DiGraph``, or a name: the MAN code of a connected triad (``"030T"``,
``"030C"``, ``"021U"``, ... the 13 rows of ``la_gpm.census(D, 3)``), ``"4-dclass-<igraph isoclass>"`` for the
4-vertex classes, or an alias (``"feed-forward-loop"`` = 030T, ``"directed-3-cycle"`` = 030C,
``"mutual-triangle"`` = 300).

What is counted (as for undirected patterns): by default **unique, non-induced** copies -- sets of k vertices
and arcs of D forming a sub-digraph isomorphic to P, each once; ``induced=True`` also requires that D has no
other arc among the k vertices (igraph's ``motifs_randesu`` counts); ``count="embeddings"`` counts injective
arc-preserving maps (unique x |Aut(P)|, the directed automorphisms).

How: every copy of P spans k vertices whose induced sub-digraph is one weakly connected directed class c, so
the count is the directed census row of P's class, induced or non-induced (``N = M · I`` with M the arc-subset
inclusion matrix, :mod:`la_gpm.motifs.directed`): the triad census in closed form for k = 3 (O(m·sqrt(m))),
ESU enumeration of the connected 4-subsets for k = 4; exact Python ints.  ``backend="gpu"``: the GPU directed census
(``census_esu_directed``, ESU for k = 3 and 4; docs/gpu_census.md), its row; ``"auto"`` stays on the CPU (the
closed-form triad census and the numba ESU are fast at these sizes; the GPU pays on large graphs at k = 4).

An undirected pattern (a :class:`~la_gpm.Pattern`, an undirected name such as ``"triangle"``, an edge list) on a
directed graph is refused with the way on (``D.to_undirected()``, or a directed pattern): an edge list alone
does not say whether its pairs are arcs.
"""

from __future__ import annotations

import functools
import itertools

from ..exceptions import InvalidArgument, InvalidGraph, InvalidPattern, PatternTooLarge
from .directed import DIRECTED_KS, arc_bit, directed_classes, directed_counts

__all__ = ["DiPattern", "as_dipattern", "directed_count", "DIRECTED_ALIASES"]

DIRECTED_ALIASES = {"feed-forward-loop": "030T", "ffl": "030T", "directed-3-cycle": "030C", "cyclic-triad": "030C",
                    "mutual-triangle": "300"}


class DiPattern:
    """A directed pattern: its arcs (tail, head) over vertices 0..k-1, weakly connected, no self-loops.

    >>> from la_gpm.motifs.directed_count import DiPattern
    >>> P = DiPattern([(0, 1), (1, 2), (0, 2)], name="feed-forward loop")
    >>> P.k, P.num_arcs, P.class_name, P.automorphism_count
    (3, 3, '030T', 1)
    """

    def __init__(self, arcs, k=None, *, name=None):
        seen = set()
        try:
            raw = [tuple(int(x) for x in a) for a in arcs]
        except (TypeError, ValueError):
            raise InvalidPattern(f"directed pattern arcs must be (tail, head) pairs of integers; got {arcs!r:.80}") \
                from None
        for a in raw:
            if len(a) != 2:
                raise InvalidPattern(f"directed pattern arcs must be (tail, head) pairs; got {a}")
            if min(a) < 0:
                raise InvalidPattern(f"pattern vertices must be >= 0; got the arc {a}")
            if a[0] == a[1]:
                raise InvalidPattern(f"the directed pattern has a self-loop at {a[0]}; patterns are simple")
            seen.add(a)
        top = 1 + max((max(a) for a in seen), default=-1)
        k = top if k is None else int(k)
        if k < top:
            raise InvalidPattern(f"k={k} but an arc names vertex {top - 1}")
        self.k = k
        self.arcs = tuple(sorted(seen))
        self.name = name
        if k < 2:
            raise InvalidPattern("a directed pattern needs at least one arc")
        if not _weakly_connected(k, self.arcs):
            raise InvalidPattern(f"the directed pattern {list(self.arcs)} is not weakly connected: count each "
                                 "weakly connected part separately")

    @property
    def num_arcs(self) -> int:
        return len(self.arcs)

    @property
    def code(self) -> int:
        """The arc bitmask of :mod:`la_gpm.motifs.directed` (two bits per vertex pair)."""
        return sum(1 << arc_bit(a, b) for a, b in self.arcs)

    @property
    def class_row(self) -> int:
        """P's row in ``la_gpm.census(D, k)`` (k = 3, 4)."""
        return int(directed_classes(self.k).table[self.code])

    @property
    def class_name(self) -> str:
        return directed_classes(self.k).names[self.class_row]

    @functools.cached_property
    def automorphism_count(self) -> int:
        s = set(self.arcs)
        return sum(1 for p in itertools.permutations(range(self.k)) if {(p[a], p[b]) for a, b in s} == s)

    def __repr__(self):
        nm = f"{self.name!r}: " if self.name else ""
        return f"<DiPattern {nm}k={self.k}, arcs={list(self.arcs)}>"


def _weakly_connected(k, arcs) -> bool:
    adj = {v: set() for v in range(k)}
    for a, b in arcs:
        adj[a].add(b)
        adj[b].add(a)
    seen, todo = {0}, [0]
    while todo:
        for w in adj[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return len(seen) == k


def _named(name: str):
    """The DiPattern of a triad MAN code / 4-dclass name / alias, or None."""
    key = DIRECTED_ALIASES.get(name.lower(), name)
    for k in DIRECTED_KS:
        cls = directed_classes(k)
        if key in cls.names:
            return DiPattern(cls.edges[cls.names.index(key)], k=k, name=name)
    return None


def as_dipattern(obj):
    """A :class:`DiPattern` from a DiPattern, a networkx DiGraph or a directed class name; None for anything
    else (an undirected pattern)."""
    if isinstance(obj, DiPattern):
        return obj
    if isinstance(obj, str):
        return _named(obj)
    if (type(obj).__module__ or "").startswith("networkx") and obj.is_directed():
        nodes = list(obj.nodes())
        pos = {v: i for i, v in enumerate(nodes)}
        return DiPattern([(pos[a], pos[b]) for a, b in obj.edges()], k=len(nodes),
                         name=obj.graph.get("name") or None)
    return None


def directed_count(D, pattern, *, induced: bool = False, count: str = "unique", backend=None,
                   progress: bool = False, return_stats: bool = False):
    """``la_gpm.count`` on a directed graph D (see the module notes).

    >>> import la_gpm
    >>> D = la_gpm.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3], directed=True)
    >>> la_gpm.count(D, "feed-forward-loop"), la_gpm.count(D, la_gpm.DiPattern([(0, 1), (1, 2)]))  # 2-paths: 0-1-2, 0-2-3, 1-2-3
    (1, 3)
    """
    import time

    from ..backends import resolve_backend

    P = as_dipattern(pattern)
    if P is None:
        D.require_undirected(
            "pattern counting (la_gpm patterns are undirected)",
            hint="; to count a directed pattern, give it as la_gpm.DiPattern([(tail, head), ...]), a networkx DiGraph "
                 "or a directed class name such as '030T' (the feed-forward loop; la_gpm.census(D, 3) lists the 13)")
    if P.k not in DIRECTED_KS:
        if P.k > max(DIRECTED_KS):
            raise PatternTooLarge(f"directed patterns of 3 and 4 vertices are counted; got k={P.k}. For larger "
                                  "patterns count the undirected one on D.to_undirected()")
        raise InvalidArgument(f"directed patterns of 3 and 4 vertices are counted; got k={P.k} (a single arc: D.m "
                              "counts the arcs)")
    b = resolve_backend(backend, supported=("cpu", "gpu"), what="counting a directed pattern", auto="cpu")
    if count not in ("unique", "embeddings"):
        raise InvalidArgument(f"count must be one of ('unique', 'embeddings'); got {count!r}")
    t0 = time.perf_counter()
    counts, method = directed_counts(D, P.k, induced=bool(induced), progress=progress, backend=b)
    n = int(counts[P.class_row])
    if count == "embeddings":
        n *= P.automorphism_count
    if not return_stats:
        return n
    return n, {"engine": "directed_census", "backend": b, "method": method, "class": P.class_name,
               "reason": f"the {'induced' if induced else 'non-induced'} row {P.class_name} of the directed "
                         f"{P.k}-vertex census ({method})", "seconds": time.perf_counter() - t0}


def check_undirected_graph_for(P, G) -> None:
    """A directed pattern on an undirected graph: refused with the way on."""
    if isinstance(P, DiPattern) and not G.directed:
        raise InvalidGraph(f"{P!r} is a directed pattern but the graph is undirected; read the graph as directed "
                           "(la_gpm.read_graph(path, directed=True), Graph.from_edges(..., directed=True)) or count "
                           "the undirected pattern")
