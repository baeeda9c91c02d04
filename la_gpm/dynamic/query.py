"""Query analysis for batch-dynamic matching: one matching order per start pair.

A work item maps a query pair (a, b) onto an updated data pair (x, y) (a -> x, b -> y), so
there is one plan per *directed* query pair: both orientations of every query edge and, for
induced matching, of every query non-edge (an induced match also changes when a deletion
removes the edge between the images of two non-adjacent query vertices).

Order (notes/001_gamma.md §2.4): a, b first; then greedily the vertex with the most earlier
neighbours (its candidates are the intersection of their rows), then the highest query degree,
then the rarest label.  Every later vertex has at least one earlier neighbour (Q is connected).

Kernel tables, shape (P, k, k) unless said (P plans, level l, slot s), all int32:
``order[p, l]`` query vertex at level l; ``npar/par`` earlier levels adjacent to it (candidates
come from their rows); ``parel`` the edge label each parent edge needs (-1: any);
``nanti/anti`` earlier levels not adjacent to it (induced: must stay non-adjacent);
``ninj/inj`` earlier non-parent levels (injectivity: the candidate must differ from them);
``pair_edge[p]`` 1 where the start pair is a query edge; ``pair_el[p]`` its edge label (-1: any).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from ..exceptions import InvalidPattern, PatternTooLarge
from ..patterns import Pattern

__all__ = ["DeltaPlan", "compile_delta_plan", "MAX_DYNAMIC_VERTICES"]

MAX_DYNAMIC_VERTICES = 32   # the candidate table holds one bit per query vertex (uint32)


@dataclass(frozen=True, eq=False)
class DeltaPlan:
    k: int
    pairs: np.ndarray      # (P, 2) query vertices (a, b) of each start pair
    pair_edge: np.ndarray  # (P,)
    pair_el: np.ndarray    # (P,)
    order: np.ndarray      # (P, k)
    npar: np.ndarray       # (P, k)
    par: np.ndarray        # (P, k, k)
    parel: np.ndarray      # (P, k, k)
    nanti: np.ndarray      # (P, k)
    anti: np.ndarray       # (P, k, k)
    ninj: np.ndarray       # (P, k)
    inj: np.ndarray        # (P, k, k)
    induced: bool

    def tables(self):
        return (self.order, self.npar, self.par, self.parel, self.nanti, self.anti, self.ninj, self.inj)


def _order(P: Pattern, a: int, b: int, label_freq) -> list[int]:
    adj = P.adjacency
    order = [a, b]
    left = set(range(P.k)) - {a, b}
    while left:
        def key(v):
            back = sum(1 for u in order if adj[u, v])
            lab = P.vertex_labels[v] if P.vertex_labels is not None else 0
            return (back, P.degrees[v], -label_freq.get(lab, 0), -v)
        v = max(left, key=key)
        if not any(adj[u, v] for u in order):  # only when Q is disconnected (rejected earlier)
            raise InvalidPattern("matching needs a connected query")
        order.append(v)
        left.remove(v)
    return order


def compile_delta_plan(P: Pattern, *, induced: bool = False, label_freq=None) -> DeltaPlan:
    """One plan per directed start pair of P (see the module notes)."""
    if P.k < 2 or P.num_edges == 0:
        raise InvalidPattern(f"a query needs at least one edge; got {P!r}")
    if P.k > MAX_DYNAMIC_VERTICES:
        raise PatternTooLarge(f"match_delta supports queries of up to {MAX_DYNAMIC_VERTICES} vertices; got k={P.k}")
    P.require_connected("matching")
    label_freq = label_freq or {}
    k = P.k
    adj = P.adjacency
    starts = [(u, v) for u, v in P.edges] + [(v, u) for u, v in P.edges]
    if induced:
        non = [(u, v) for u in range(k) for v in range(u + 1, k) if not adj[u, v]]
        starts += non + [(v, u) for u, v in non]
    n = len(starts)
    order = np.zeros((n, k), np.int32)
    npar = np.zeros((n, k), np.int32)
    par = np.zeros((n, k, k), np.int32)
    parel = np.full((n, k, k), -1, np.int32)
    nanti = np.zeros((n, k), np.int32)
    anti = np.zeros((n, k, k), np.int32)
    ninj = np.zeros((n, k), np.int32)
    inj = np.zeros((n, k, k), np.int32)
    pair_edge = np.zeros(n, np.int32)
    pair_el = np.full(n, -1, np.int32)
    for p, (a, b) in enumerate(starts):
        o = _order(P, a, b, label_freq)
        order[p] = o
        pair_edge[p] = int(adj[a, b])
        if adj[a, b] and P.edge_labels is not None:
            pair_el[p] = P._elabel(a, b)
        for lv in range(2, k):
            v = o[lv]
            for e in range(lv):
                u = o[e]
                if adj[u, v]:
                    par[p, lv, npar[p, lv]] = e
                    if P.edge_labels is not None:
                        parel[p, lv, npar[p, lv]] = P._elabel(u, v)
                    npar[p, lv] += 1
                else:
                    inj[p, lv, ninj[p, lv]] = e
                    ninj[p, lv] += 1
                    if induced:
                        anti[p, lv, nanti[p, lv]] = e
                        nanti[p, lv] += 1
    return DeltaPlan(k, np.array(starts, np.int32).reshape(-1, 2), pair_edge, pair_el, order, npar, par, parel,
                     nanti, anti, ninj, inj, bool(induced))


def label_frequencies(vlab) -> dict:
    """How often each vertex label occurs in the data graph (orders prefer rare labels)."""
    if vlab is None:
        return {}
    vals, cnt = np.unique(vlab, return_counts=True)
    return dict(zip(vals.tolist(), cnt.tolist()))


def query_label_table(P: Pattern, columns: dict) -> np.ndarray:
    """(k, L) int32: query vertex u's number of neighbours of each label column (the NLF demand)."""
    L = len(columns)
    out = np.zeros((P.k, max(L, 1)), np.int32)
    if P.vertex_labels is None:
        return out
    for u in range(P.k):
        c = Counter(P.vertex_labels[w] for w in P.neighbors(u))
        for lab, cnt in c.items():
            out[u, columns[lab]] = cnt
    return out
