"""The plan compiler: a pattern (plus a few graph statistics) in, a matching plan out.

A :class:`Plan` is data, not code: the CPU engine (numba) interprets it and a GPU
engine can interpret the same arrays.  For a pattern P with k vertices it fixes

* a **matching order** ``order[0..k-1]`` (pattern vertex matched at each level):
  every vertex after the first has an earlier neighbour (connectivity first), and
  among the connected orders the one with the smallest estimated cost is taken
  (dynamic programming over vertex subsets for k <= 10, greedy beyond);
* per level i the **parents**: earlier positions adjacent to ``order[i]``; the
  candidate set is the intersection of the parents' neighbour lists;
* per level the **anti-parents** (induced matching only): earlier positions *not*
  adjacent to ``order[i]``; their neighbour lists are subtracted;
* **symmetry breaking**: each condition f(a) < f(b) of
  :attr:`Pattern.symmetry_conditions` becomes a strict lower bound (``lower``) or
  upper bound (``upper``) on the candidate of the later of the two levels, so every
  subgraph is counted once (embeddings = unique × |Aut|) without any division;
* **label constraints**: the vertex label of each level (neighbour lists are read
  restricted to it) and the edge label of each parent edge;
* **injectivity checks**: earlier positions whose data vertex may lie in the
  candidate set (non-parents not already separated by a strict bound);
* **RPS reuse** (Guo et al., TKDE 2022; ``notes/000_reuse.md``): level i reuses the
  set computed at an earlier level j on the same search path when j's constraints
  are a subset of i's (parents_j ⊆ parents_i, anti_j ⊆ anti_i, same vertex label,
  same edge labels on the shared parents).  Then S_i = S_j ∩ (remaining parents)
  minus (remaining anti-parents); when nothing remains, S_i *is* S_j (equality).
  Cached sets are the raw intersections: symmetry bounds and injectivity are
  applied when a set is read, never baked into a set that a later level reuses.
  Sets that no later level reuses may be computed inside the bound window.
* the **last level is counted** by the size of its candidate set inside the bounds
  minus the earlier data vertices that fall in it, not enumerated.

The kernel-facing form is :meth:`Plan.tables`: an int64 table ``T[field, level, slot]``
and a count table ``C[field, level]`` (field indices are module constants).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from ..exceptions import InvalidPattern
from .pattern import Pattern

__all__ = ["Plan", "GraphStats", "compile_plan",
           "T_PAR", "T_PAREL", "T_ANTI", "T_LOW", "T_UP", "T_INJ", "N_TFIELDS",
           "C_NPAR", "C_NANTI", "C_NLOW", "C_NUP", "C_NINJ", "C_REUSE", "C_VLAB", "C_MINDEG", "C_CACHED",
           "C_SAVED", "N_CFIELDS"]

# T[field, level, slot]
T_PAR, T_PAREL, T_ANTI, T_LOW, T_UP, T_INJ = range(6)
N_TFIELDS = 6
# C[field, level]
(C_NPAR, C_NANTI, C_NLOW, C_NUP, C_NINJ, C_REUSE, C_VLAB, C_MINDEG, C_CACHED, C_SAVED) = range(10)
N_CFIELDS = 10

EXHAUSTIVE_ORDER_MAX_K = 10


@dataclass(frozen=True)
class GraphStats:
    """What the cost model knows about the data graph.

    ``d_eff`` is E[deg²]/E[deg], the expected degree of the endpoint of a random
    edge (the degree a neighbour-list read sees), ``label_freq`` maps a vertex label
    to the fraction of vertices carrying it.
    """

    n: int = 10_000
    d_eff: float = 16.0
    label_freq: dict = field(default_factory=dict)

    @classmethod
    def of(cls, G, vertex_labels=None) -> "GraphStats":
        n = max(G.n, 1)

        def graph_side():  # once per graph: many patterns are planned against one graph
            deg = G.degrees.astype(np.float64)
            d_eff = float((deg * deg).sum() / max(deg.sum(), 1.0)) if G.n else 1.0
            table = {}
            if G.vertex_labels is not None:
                labs, cnt = np.unique(G.vertex_labels, return_counts=True)
                table = dict(zip(labs.tolist(), (cnt / n).tolist()))
            return d_eff, table
        d_eff, table = G.cached("plan_stats", graph_side)
        freq = {}
        if vertex_labels is not None and G.vertex_labels is not None:
            freq = {int(lab): table.get(int(lab), 0.0) for lab in set(vertex_labels)}
        return cls(n=n, d_eff=max(d_eff, 1.0), label_freq=freq)


@dataclass(frozen=True)
class Plan:
    """A compiled matching plan (see the module docstring).  Positions, not pattern vertices,
    index every per-level field; ``order[pos]`` is the pattern vertex matched at ``pos``."""

    k: int
    order: tuple
    induced: bool
    symmetry: bool
    parents: tuple            # per level: all earlier adjacent positions
    anti: tuple               # per level: all earlier non-adjacent positions (induced), else ()
    reuse: tuple              # per level: the earlier level whose set is reused, or -1
    reuse_equal: tuple        # per level: True when the reused set is the candidate set itself
    rest_parents: tuple       # per level: parents still to intersect after reuse
    rest_anti: tuple          # per level: anti-parents still to subtract after reuse
    lower: tuple              # per level: positions a with f(a) < f(level)
    upper: tuple              # per level: positions b with f(level) < f(b)
    injective: tuple          # per level: positions whose image must be excluded explicitly
    vertex_labels: tuple | None   # per level, or None
    edge_labels: tuple | None     # per level, aligned with rest_parents, or None
    min_degree: tuple         # per level: the pattern degree (a candidate needs at least that)
    cached: tuple             # per level: a later level reuses this set
    automorphisms: int
    estimated_cost: float

    @property
    def position(self) -> tuple:
        pos = [0] * self.k
        for p, v in enumerate(self.order):
            pos[v] = p
        return tuple(pos)

    @property
    def set_operations(self) -> int:
        """Set operations per full path without reuse (intersections + differences)."""
        return sum(max(len(p) - 1, 0) + len(a) for p, a in zip(self.parents, self.anti))

    @property
    def saved_operations(self) -> tuple:
        """Per level, the set operations that reuse saves each time the level is built."""
        return tuple((len(p) - 1 + len(a)) - (len(rp) - (1 if r < 0 else 0) + len(ra)) if i else 0
                     for i, (p, a, rp, ra, r) in enumerate(zip(self.parents, self.anti, self.rest_parents,
                                                                self.rest_anti, self.reuse)))

    def tables(self):
        """``(T, C)`` int64 arrays for the kernels (see the module constants)."""
        k = self.k
        T = np.full((N_TFIELDS, k, max(k, 1)), -1, dtype=np.int64)
        C = np.zeros((N_CFIELDS, k), dtype=np.int64)
        saved = self.saved_operations
        for i in range(k):
            for t, b in enumerate(self.rest_parents[i]):
                T[T_PAR, i, t] = b
                if self.edge_labels is not None:
                    T[T_PAREL, i, t] = self.edge_labels[i][t]
            for t, a in enumerate(self.rest_anti[i]):
                T[T_ANTI, i, t] = a
            for t, a in enumerate(self.lower[i]):
                T[T_LOW, i, t] = a
            for t, b in enumerate(self.upper[i]):
                T[T_UP, i, t] = b
            for t, a in enumerate(self.injective[i]):
                T[T_INJ, i, t] = a
            C[C_NPAR, i] = len(self.rest_parents[i])
            C[C_NANTI, i] = len(self.rest_anti[i])
            C[C_NLOW, i] = len(self.lower[i])
            C[C_NUP, i] = len(self.upper[i])
            C[C_NINJ, i] = len(self.injective[i])
            C[C_REUSE, i] = self.reuse[i]
            C[C_VLAB, i] = -1 if self.vertex_labels is None else self.vertex_labels[i]
            C[C_MINDEG, i] = self.min_degree[i]
            C[C_CACHED, i] = int(self.cached[i])
            C[C_SAVED, i] = saved[i]
        return T, C

    def describe(self) -> str:
        """A readable listing of the plan, one line per level."""
        lines = [f"plan k={self.k} order={list(self.order)} induced={self.induced} |Aut|={self.automorphisms} "
                 f"cost~{self.estimated_cost:.3g}"]
        for i in range(self.k):
            s = f"  L{i} u{self.order[i]}:"
            if i == 0:
                s += " roots"
            elif self.reuse[i] >= 0:
                s += f" S{self.reuse[i]} ({'equal' if self.reuse_equal[i] else 'superset'})"
                if self.rest_parents[i]:
                    s += " ∩ " + " ∩ ".join(f"N(f{b})" for b in self.rest_parents[i])
            else:
                s += " " + " ∩ ".join(f"N(f{b})" for b in self.rest_parents[i])
            if self.rest_anti[i]:
                s += " − " + " − ".join(f"N(f{a})" for a in self.rest_anti[i])
            if self.lower[i]:
                s += f"  > f{list(self.lower[i])}"
            if self.upper[i]:
                s += f"  < f{list(self.upper[i])}"
            if self.injective[i]:
                s += f"  ≠ f{list(self.injective[i])}"
            if self.vertex_labels is not None:
                s += f"  label={self.vertex_labels[i]}"
            if self.cached[i]:
                s += "  [cached]"
            if i == self.k - 1 and i > 0:
                s += "  [counted by size]"
            lines.append(s)
        return "\n".join(lines)

    def __repr__(self):
        return f"<Plan k={self.k} order={list(self.order)} reuse={list(self.reuse)}>"


# ---------------------------------------------------------------------------------------------- order
def _growth(P: Pattern, v: int, prefix_mask: int, stats: GraphStats) -> float:
    """Estimated number of candidates for pattern vertex v given the matched set."""
    npar = bin(P.adjacency_masks[v] & prefix_mask).count("1")
    freq = 1.0
    if P.vertex_labels is not None:
        freq = max(stats.label_freq.get(P.vertex_labels[v], 1.0), 1.0 / max(stats.n, 1))
    n = float(max(stats.n, 1))
    if npar == 0:
        return n * freq
    p = min(stats.d_eff / n, 1.0)
    return max(n * freq * p ** npar, 1e-9)


def _step_cost(P: Pattern, v: int, prefix_mask: int, stats: GraphStats) -> float:
    npar = bin(P.adjacency_masks[v] & prefix_mask).count("1")
    return max(npar, 1) * stats.d_eff


def _choose_order(P: Pattern, stats: GraphStats, symmetric_pairs) -> tuple[tuple, float]:
    k = P.k
    if k == 1:
        return (0,), 1.0
    adjmask = P.adjacency_masks
    sym_halving = {}
    for a, b in symmetric_pairs:
        sym_halving[(a, b)] = True

    def shrink(mask_after: int, v: int) -> float:
        # each symmetry condition resolved when v joins halves the expected count
        c = sum(1 for (a, b) in symmetric_pairs if (a == v and mask_after >> b & 1) or (b == v and mask_after >> a & 1))
        return 0.5 ** c

    def tie_key(v):
        lab_f = 1.0
        if P.vertex_labels is not None:
            lab_f = stats.label_freq.get(P.vertex_labels[v], 1.0)
        return (lab_f, -P.degrees[v], v)

    if k <= EXHAUSTIVE_ORDER_MAX_K:
        # DP over subsets: best[mask] = (cost, R(mask), order); R depends on the set only
        best = {}
        for v in range(k):
            m = 1 << v
            R = _growth(P, v, 0, stats)
            cand = (0.0, R, (v,))
            if m not in best or (cand[0], tie_key(v)) < (best[m][0], tie_key(best[m][2][0])):
                best[m] = cand
        for size in range(1, k):
            for mask in [m for m in best if bin(m).count("1") == size]:
                cost, R, order = best[mask]
                for v in range(k):
                    if mask >> v & 1 or not (adjmask[v] & mask):
                        continue
                    nm = mask | 1 << v
                    step = R * _step_cost(P, v, mask, stats)
                    R2 = R * _growth(P, v, mask, stats) * shrink(nm, v)
                    c2 = cost + step
                    if nm not in best or c2 < best[nm][0] * (1 - 1e-12):
                        best[nm] = (c2, R2, order + (v,))
        full = (1 << k) - 1
        return best[full][2], best[full][0]
    # greedy: start at the most selective vertex, then most-connected / cheapest next
    start = min(range(k), key=lambda v: (_growth(P, v, 0, stats), -P.degrees[v], v))
    order = [start]
    mask = 1 << start
    R = _growth(P, start, 0, stats)
    cost = 0.0
    while len(order) < k:
        cands = [v for v in range(k) if not mask >> v & 1 and adjmask[v] & mask]
        v = min(cands, key=lambda v: (-bin(adjmask[v] & mask).count("1"), _growth(P, v, mask, stats),
                                      -P.degrees[v], v))
        cost += R * _step_cost(P, v, mask, stats)
        mask |= 1 << v
        R *= _growth(P, v, mask & ~(1 << v), stats) * shrink(mask, v)
        order.append(v)
    return tuple(order), cost


# ---------------------------------------------------------------------------------------------- compile
def compile_plan(P: Pattern, *, induced: bool = False, symmetry: bool = True, stats: GraphStats | None = None,
                 reuse: bool = True, order=None) -> Plan:
    """Compile ``P`` into a :class:`Plan`.

    Parameters
    ----------
    P : a connected Pattern
    induced : subtract the neighbour lists of non-adjacent earlier vertices
    symmetry : add the symmetry-breaking bounds (unique counting); ``False`` enumerates embeddings
    stats : graph statistics for the cost model (defaults describe a generic sparse graph)
    reuse : discover RPS reuse (``False`` gives the plain plan, for A/B comparisons)
    order : force a matching order (a permutation of the pattern vertices; must be connected)

    Examples
    --------
    >>> from la_gpm import Pattern
    >>> plan = compile_plan(Pattern.named("4-clique"))
    >>> plan.reuse
    (-1, -1, -1, 2)
    """
    P.require_connected("plan compilation")
    k = P.k
    stats = stats or GraphStats()
    conds = tuple(P.symmetry_conditions) if symmetry else ()
    if order is None:
        order, cost = _choose_order(P, stats, conds)
    else:
        order = tuple(int(v) for v in order)
        if sorted(order) != list(range(k)):
            raise InvalidPattern(f"order must be a permutation of 0..{k - 1}; got {list(order)}")
        for i in range(1, k):
            if not any(P.adjacency[order[i], order[j]] for j in range(i)):
                raise InvalidPattern(f"order {list(order)} is not connected: vertex {order[i]} has no earlier "
                                     "neighbour")
        cost = float("nan")
    pos = [0] * k
    for p, v in enumerate(order):
        pos[v] = p
    A = P.adjacency
    parents = tuple(tuple(j for j in range(i) if A[order[i], order[j]]) for i in range(k))
    anti = tuple(tuple(j for j in range(i) if not A[order[i], order[j]]) if induced else () for i in range(k))
    vl = None if P.vertex_labels is None else tuple(P.vertex_labels[v] for v in order)

    def elab(i, j):
        return P.edge_labels[(min(order[i], order[j]), max(order[i], order[j]))]

    lower = [[] for _ in range(k)]
    upper = [[] for _ in range(k)]
    for a, b in conds:  # f(a) < f(b)
        pa, pb = pos[a], pos[b]
        if pa < pb:
            lower[pb].append(pa)
        else:
            upper[pa].append(pb)
    lower = tuple(tuple(sorted(set(x))) for x in lower)
    upper = tuple(tuple(sorted(set(x))) for x in upper)
    injective = tuple(tuple(j for j in range(i) if j not in parents[i] and j not in lower[i] and j not in upper[i])
                      for i in range(k))

    # ---- RPS reuse on the search path (identity subsumption: prefix maps to itself, u_j -> u_i)
    reuse_src = [-1] * k
    reuse_eq = [False] * k
    rest_par = list(parents)
    rest_anti = list(anti)
    cached = [False] * k
    if reuse:
        for i in range(2, k):
            best = None
            for j in range(1, i):
                work_j = len(parents[j]) + len(anti[j])
                if work_j < 2:  # S_j is a plain neighbour list: nothing to save
                    continue
                if not set(parents[j]) <= set(parents[i]) or not set(anti[j]) <= set(anti[i]):
                    continue
                if vl is not None and vl[j] != vl[i]:
                    continue
                if P.edge_labels is not None and any(elab(j, b) != elab(i, b) for b in parents[j]):
                    continue
                key = (work_j, j)
                if best is None or key > best[0]:
                    best = (key, j)
            if best is not None:
                j = best[1]
                reuse_src[i] = j
                rest_par[i] = tuple(b for b in parents[i] if b not in parents[j])
                rest_anti[i] = tuple(a for a in anti[i] if a not in anti[j])
                reuse_eq[i] = not rest_par[i] and not rest_anti[i]
                cached[j] = True
    el = None
    if P.edge_labels is not None:
        el = tuple(tuple(elab(i, b) for b in rest_par[i]) for i in range(k))
    return Plan(k=k, order=tuple(order), induced=bool(induced), symmetry=bool(symmetry), parents=parents,
                anti=anti, reuse=tuple(reuse_src), reuse_equal=tuple(reuse_eq), rest_parents=tuple(rest_par),
                rest_anti=tuple(rest_anti), lower=lower, upper=upper, injective=injective, vertex_labels=vl,
                edge_labels=el, min_degree=tuple(P.degrees[v] for v in order), cached=tuple(cached),
                automorphisms=P.automorphism_count, estimated_cost=float(cost))


def all_connected_orders(P: Pattern):
    """Every connected matching order of P (for tests and plan studies; k! worst case)."""
    k = P.k
    for perm in itertools.permutations(range(k)):
        if all(any(P.adjacency[perm[i], perm[j]] for j in range(i)) for i in range(1, k)):
            yield perm
