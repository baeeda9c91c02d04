"""Pattern graphs: small connected graphs with optional vertex/edge labels.

The automorphism group is found as a stabiliser chain: for base points
b1, b2, ... the orbit of b_i under the automorphisms fixing b1..b_{i-1} is found
by searching, for each candidate w, one automorphism mapping b_i to w.  Then
|Aut| is the product of the orbit sizes, the found maps generate the group, and
the conditions ``f(b_i) < f(w)`` for w in orbit_i (Grochow & Kellis 2007) make a
matcher count every subgraph exactly once.
"""

from __future__ import annotations

import itertools
from functools import cached_property
from math import prod

import numpy as np

from ..exceptions import InvalidPattern, PatternTooLarge
from .names import named_edges

__all__ = ["Pattern", "MAX_PATTERN_VERTICES", "MAX_CANONICAL_VERTICES"]

MAX_PATTERN_VERTICES = 64
MAX_CANONICAL_VERTICES = 8


class Pattern:
    """An immutable small graph: the thing being counted.

    Parameters
    ----------
    edges : iterable of (u, v) pairs over vertices ``0..k-1``
    k : number of vertices (default: 1 + largest endpoint)
    vertex_labels : k integers, or None
    edge_labels : dict ``{(u, v): label}`` (either orientation), or None
    name : optional display name

    Examples
    --------
    >>> from la_gpm import Pattern
    >>> P = Pattern.named("4-cycle")
    >>> P.k, P.num_edges, P.automorphism_count
    (4, 4, 8)
    """

    def __init__(self, edges, k=None, *, vertex_labels=None, edge_labels=None, name=None):
        es = set()
        try:
            raw = [tuple(int(x) for x in e) for e in edges]
        except (TypeError, ValueError):
            raise InvalidPattern(f"pattern edges must be pairs of integers; got {edges!r}") from None
        for e in raw:
            if len(e) != 2:
                raise InvalidPattern(f"pattern edges must be pairs; got {e}")
            u, v = e
            if u < 0 or v < 0:
                raise InvalidPattern(f"pattern vertices must be >= 0; got edge {e}")
            if u == v:
                raise InvalidPattern(f"pattern has a self-loop at {u}; patterns are simple graphs")
            es.add((min(u, v), max(u, v)))
        top = 1 + max((max(e) for e in es), default=-1)
        k = top if k is None else int(k)
        if k < top:
            raise InvalidPattern(f"k={k} but an edge names vertex {top - 1}")
        if k < 1:
            raise InvalidPattern("a pattern needs at least one vertex")
        if k > MAX_PATTERN_VERTICES:
            raise PatternTooLarge(f"patterns have at most {MAX_PATTERN_VERTICES} vertices; got {k}")
        self._k = k
        self._edges = tuple(sorted(es))
        adj = np.zeros((k, k), dtype=bool)
        for u, v in self._edges:
            adj[u, v] = adj[v, u] = True
        adj.setflags(write=False)
        self._adj = adj
        self._vlabels = None
        if vertex_labels is not None:
            vl = tuple(int(x) for x in vertex_labels)
            if len(vl) != k:
                raise InvalidPattern(f"vertex_labels must have {k} entries (one per pattern vertex); got {len(vl)}")
            self._vlabels = vl
        self._elabels = None
        if edge_labels is not None:
            el = {}
            try:
                given = dict(edge_labels)
                items = [((int(u), int(v)), lab) for (u, v), lab in given.items()]
            except (TypeError, ValueError):
                raise InvalidPattern("edge_labels must map each edge (u, v) to its label, e.g. {(0, 1): 3, (1, 2): 0}; "
                                     f"got {type(edge_labels).__name__} {edge_labels!r:.80}") from None
            for (u, v), lab in items:
                key = (min(u, v), max(u, v))
                if key not in es:
                    raise InvalidPattern(f"edge label given for ({u}, {v}), which is not an edge")
                el[key] = int(lab)
            if set(el) != es:
                raise InvalidPattern("edge_labels must label every edge of the pattern")
            self._elabels = el
        self.name = name

    # ------------------------------------------------------------- constructors
    @classmethod
    def named(cls, name: str) -> "Pattern":
        k, edges, nm = named_edges(name)
        return cls(edges, k=k, name=nm)

    @classmethod
    def from_networkx(cls, g, label: str = "label") -> "Pattern":
        nodes = list(g.nodes())
        idx = {v: i for i, v in enumerate(nodes)}
        labels = None
        if nodes and all(label in g.nodes[v] for v in nodes):
            labels = [g.nodes[v][label] for v in nodes]
        return cls([(idx[u], idx[v]) for u, v in g.edges()], k=len(nodes), vertex_labels=labels)

    # ------------------------------------------------------------- basic
    @property
    def k(self) -> int:
        return self._k

    @property
    def edges(self) -> tuple:
        return self._edges

    @property
    def num_edges(self) -> int:
        return len(self._edges)

    @property
    def adjacency(self) -> np.ndarray:
        return self._adj

    @property
    def vertex_labels(self):
        return self._vlabels

    @property
    def edge_labels(self):
        return self._elabels

    @property
    def labeled(self) -> bool:
        return self._vlabels is not None or self._elabels is not None

    def neighbors(self, v: int) -> list[int]:
        return list(self._neighbor_lists[v])

    @cached_property
    def _neighbor_lists(self) -> tuple:
        return tuple(tuple(int(x) for x in np.flatnonzero(row)) for row in self._adj)

    @cached_property
    def adjacency_masks(self) -> tuple:
        """Per vertex, its neighbours as a bitmask (bit w set when w is adjacent)."""
        return tuple(sum(1 << w for w in nb) for nb in self._neighbor_lists)

    @cached_property
    def degrees(self) -> tuple:
        return tuple(int(x) for x in self._adj.sum(1))

    def components(self, vertices=None) -> list[set]:
        """The connected components of the pattern restricted to ``vertices`` (default: all of them), each a set,
        in the order of their least vertex."""
        left = set(range(self._k)) if vertices is None else set(vertices)
        out = []
        for v in sorted(left):
            if v not in left:
                continue
            comp, stack = {v}, [v]
            while stack:
                u = stack.pop()
                for w in self.neighbors(u):
                    if w in left and w not in comp:
                        comp.add(w)
                        stack.append(w)
            left -= comp
            out.append(comp)
        return out

    @cached_property
    def is_connected(self) -> bool:
        return len(self.components()) == 1

    @property
    def is_tree(self) -> bool:
        return self.is_connected and self.num_edges == self._k - 1

    @property
    def is_clique(self) -> bool:
        return self.num_edges == self._k * (self._k - 1) // 2

    def require_connected(self, what: str = "this operation") -> None:
        if not self.is_connected:
            raise InvalidPattern(f"{what} needs a connected pattern; {self!r} is disconnected "
                                 "(count its components separately)")

    def __repr__(self) -> str:
        nm = f" {self.name!r}" if self.name else ""
        lab = ", labeled" if self.labeled else ""
        return f"<Pattern{nm}: k={self._k}, edges={list(self._edges)}{lab}>"

    def __eq__(self, other):
        return (isinstance(other, Pattern) and self._k == other._k and self._edges == other._edges
                and self._vlabels == other._vlabels and self._elabels == other._elabels)

    def __hash__(self):
        return hash((self._k, self._edges, self._vlabels, tuple(sorted((self._elabels or {}).items()))))

    def relabel(self, perm) -> "Pattern":
        """The same pattern with vertex v renamed perm[v]."""
        perm = [int(p) for p in perm]
        if sorted(perm) != list(range(self._k)):
            raise InvalidPattern(f"perm must be a permutation of 0..{self._k - 1}; got {perm}")
        vl = None
        if self._vlabels is not None:
            vl = [0] * self._k
            for v in range(self._k):
                vl[perm[v]] = self._vlabels[v]
        el = None if self._elabels is None else {(perm[u], perm[v]): lab for (u, v), lab in self._elabels.items()}
        return Pattern([(perm[u], perm[v]) for u, v in self._edges], k=self._k, vertex_labels=vl, edge_labels=el,
                       name=self.name)

    # ------------------------------------------------------------- automorphisms
    def _vcolor(self, v):
        return self._vcolors[v]

    @cached_property
    def _vcolors(self) -> tuple:
        """Per vertex, an invariant every automorphism preserves: (label, degree, sorted (label, degree)
        of the neighbours); a finer invariant than (label, degree) prunes the automorphism searches."""
        base = [(self._vlabels[v] if self._vlabels is not None else 0, self.degrees[v]) for v in range(self._k)]
        return tuple(base[v] + (tuple(sorted(base[w] for w in self._neighbor_lists[v])),) for v in range(self._k))

    @cached_property
    def _degree_order(self) -> tuple:
        return tuple(sorted(range(self._k), key=lambda v: -self.degrees[v]))

    def _elabel(self, u, v):
        return 0 if self._elabels is None else self._elabels[(min(u, v), max(u, v))]

    def _find_automorphism(self, fixed: dict[int, int]):
        """One automorphism extending the partial map ``fixed``, or None (backtracking)."""
        k = self._k
        adj = self._adj
        f = dict(fixed)
        used = set(f.values())
        for u, w in f.items():
            if self._vcolor(u) != self._vcolor(w):
                return None
        for u in f:
            for v in f:
                if adj[u, v] != adj[f[u], f[v]] or (adj[u, v] and self._elabel(u, v) != self._elabel(f[u], f[v])):
                    return None
        free = [v for v in self._degree_order if v not in f]  # by decreasing degree

        def rec(i):
            if i == len(free):
                return dict(f)
            u = free[i]
            for w in range(k):
                if w in used or self._vcolor(u) != self._vcolor(w):
                    continue
                ok = True
                for x, fx in f.items():
                    if adj[u, x] != adj[w, fx] or (adj[u, x] and self._elabel(u, x) != self._elabel(w, fx)):
                        ok = False
                        break
                if ok:
                    f[u] = w
                    used.add(w)
                    r = rec(i + 1)
                    if r is not None:
                        return r
                    del f[u]
                    used.discard(w)
            return None

        return rec(0)

    def _chain(self, fixed=()):
        """(base, orbits, generators) of the automorphisms fixing every vertex of ``fixed``: the other vertices by
        decreasing degree as base, orbits[i] the orbit of base[i] in the stabiliser of ``fixed`` and base[:i]."""
        k = self._k
        fx = {int(v): int(v) for v in fixed}
        base = sorted((v for v in range(k) if v not in fx), key=lambda v: (-self.degrees[v], v))
        orbits = []
        gens = []
        for b in base:
            orb = [b]
            for w in range(k):
                if w == b or w in fx or self._vcolors[w] != self._vcolors[b]:
                    continue
                g = self._find_automorphism({**fx, b: w})
                if g is not None:
                    orb.append(w)
                    gens.append(tuple(g[v] for v in range(k)))
            orbits.append(tuple(sorted(orb)))
            fx[b] = b
        return tuple(base), tuple(orbits), tuple(dict.fromkeys(gens))

    @cached_property
    def _stabilizer_chain(self):
        """(base, orbits, generators) of Aut(P) (:meth:`_chain` fixing nothing)."""
        return self._chain()

    @cached_property
    def automorphism_count(self) -> int:
        """|Aut(P)|: embeddings = unique subgraphs × this."""
        return prod(len(o) for o in self._stabilizer_chain[1])

    @property
    def automorphism_generators(self) -> tuple:
        """Permutations (tuples, v -> g[v]) that generate Aut(P)."""
        return self._stabilizer_chain[2]

    @property
    def symmetry_conditions(self) -> tuple:
        """Pairs (a, b): a match f counts once iff f(a) < f(b) for every pair (vertex ids of the data graph)."""
        return self._conditions(*self._stabilizer_chain[:2])

    @staticmethod
    def _conditions(base, orbits) -> tuple:
        return tuple((b, w) for b, orb in zip(base, orbits) for w in orb if w != b)

    def stabilizer_conditions(self, fixed) -> tuple:
        """Symmetry conditions (pairs (a, b): f(a) < f(b)) of the automorphisms that fix every vertex of
        ``fixed``: of the embeddings that agree on ``fixed``, one per orbit of that subgroup passes them (the
        same stabiliser chain as :attr:`symmetry_conditions`, its base starting with ``fixed``).  A matcher that
        maps a query pair (a, b) onto a data pair counts, with the conditions of ``fixed=(a, b)``, E / |Stab(a,
        b)| of the E embeddings through it; summed over one pair per orbit of Aut on pairs, that is the unique
        count (orbit-stabiliser: |orbit| |Stab| = |Aut|)."""
        return self._conditions(*self._chain(fixed)[:2])

    def pair_orbits(self, pairs) -> list:
        """The orbits of Aut(P) on the ordered vertex pairs ``pairs`` (closed under Aut: e.g. both orientations
        of every edge), each a list in the order of ``pairs``."""
        pairs = [(int(a), int(b)) for a, b in pairs]
        where = {pq: i for i, pq in enumerate(pairs)}
        seen = [False] * len(pairs)
        out = []
        for i, pq in enumerate(pairs):
            if seen[i]:
                continue
            seen[i] = True
            orb = [i]
            todo = [pq]
            while todo:
                a, b = todo.pop()
                for g in self.automorphism_generators:
                    j = where[(g[a], g[b])]
                    if not seen[j]:
                        seen[j] = True
                        orb.append(j)
                        todo.append(pairs[j])
            out.append([pairs[j] for j in sorted(orb)])
        return out

    def automorphisms(self, limit: int = 100000):
        """All automorphisms as tuples (only for groups of at most ``limit`` elements)."""
        if self.automorphism_count > limit:
            raise PatternTooLarge(f"|Aut| = {self.automorphism_count} exceeds limit={limit}")
        out = []
        k = self._k
        for perm in itertools.permutations(range(k)) if k <= 8 else ():
            if self._is_automorphism(perm):
                out.append(perm)
        if k > 8:
            out = self._enumerate_group()
        return out

    def _is_automorphism(self, perm) -> bool:
        p = list(perm)
        if any(self._vcolor(v) != self._vcolor(p[v]) for v in range(self._k)):
            return False
        return all(self._adj[p[u], p[v]] and self._elabel(u, v) == self._elabel(p[u], p[v]) for u, v in self._edges)

    def _enumerate_group(self):
        ident = tuple(range(self._k))
        group = {ident}
        frontier = [ident]
        gens = self.automorphism_generators
        while frontier:
            g = frontier.pop()
            for h in gens:
                c = tuple(h[g[v]] for v in range(self._k))
                if c not in group:
                    group.add(c)
                    frontier.append(c)
        return sorted(group)

    # ------------------------------------------------------------- canonical form
    @cached_property
    def canonical_key(self) -> tuple:
        """An isomorphism-invariant key (equal keys <=> isomorphic patterns, labels included).

        Exact for up to MAX_CANONICAL_VERTICES vertices: the lexicographically
        smallest (labels, upper-triangle adjacency) over the vertex orders that sort
        vertices by (label, degree).
        """
        k = self._k
        if k > MAX_CANONICAL_VERTICES:
            raise PatternTooLarge(f"canonical forms are computed for at most {MAX_CANONICAL_VERTICES} vertices; "
                                  f"got k={k}")
        colors = [(self._vlabels[v] if self._vlabels else 0, -self.degrees[v]) for v in range(k)]
        classes: dict = {}
        for v in range(k):
            classes.setdefault(colors[v], []).append(v)
        keys = sorted(classes)
        best = None
        iu = np.triu_indices(k, 1)
        el = np.zeros((k, k), dtype=np.int64)
        if self._elabels:
            for (u, v), lab in self._elabels.items():
                el[u, v] = el[v, u] = lab + 1
        else:
            el = self._adj.astype(np.int64)
        for parts in itertools.product(*(itertools.permutations(classes[c]) for c in keys)):
            order = [v for part in parts for v in part]
            sub = el[np.ix_(order, order)][iu]
            cand = tuple((-sub).tolist())  # more edges earlier => smaller
            if best is None or cand < best:
                best = cand
        return (k, tuple(keys), best)
