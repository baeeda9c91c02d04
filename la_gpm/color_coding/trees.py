"""Tree templates for color coding: colour-set ranks and split tables, rooted shapes, plans.

Colour sets are ranked in the combinatorial number system (colex order): :func:`colex_rank`,
:func:`split_tables` (the (active, passive) subset pairs of the fused eMA) and
:func:`rooted_gather_table` (the SpMM's column map over rooted tables).  A template is cut into
rooted sub-templates keyed by their canonical :func:`rooted_shape`; :func:`plan_tree` picks the
cheapest decomposition and evaluation order under the paper's cost model (Chen et al.,
"SubGraph2Vec", 2019) and returns a :class:`TreePlan`.  Nothing here touches a graph's tables:
:mod:`la_gpm.color_coding.driver` evaluates plans on the ops of :mod:`~la_gpm.color_coding.cpu`
or :mod:`~la_gpm.color_coding.gpu`.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..exceptions import InvalidArgument
from ..patterns.catalog import as_pattern

__all__ = ["LAYOUTS", "colex_rank", "split_tables", "rooted_gather_table", "rooted_gather_pairs", "rooted_shape",
           "tree_automorphisms", "TreePlan", "plan_tree"]

LAYOUTS = ("auto", "rooted", "dense")


# ============================================================================ colour sets
@functools.lru_cache(maxsize=4)
def _colex(k: int):
    """(masks_by_size, rank_of_mask): h-subsets of range(k) as bitmasks in colex (= numeric) order."""
    allm = np.arange(1 << k, dtype=np.int64)
    pc = np.zeros(1 << k, dtype=np.int64)
    for c in range(k):
        pc += (allm >> c) & 1
    masks = [allm[pc == h] for h in range(k + 1)]
    rank = np.empty(1 << k, dtype=np.int32)
    for h in range(k + 1):
        rank[masks[h]] = np.arange(masks[h].shape[0], dtype=np.int32)
    return masks, rank


def colex_rank(colors) -> int:
    """Rank of a colour set {c_1 < … < c_h} in the combinatorial number system: Σ_i C(c_i, i).

    >>> colex_rank([0, 1]), colex_rank([0, 2]), colex_rank([1, 2]), colex_rank([0, 3])
    (0, 1, 2, 3)
    """
    cs = sorted(int(c) for c in colors)
    if len(set(cs)) != len(cs):
        raise InvalidArgument(f"a colour set has distinct colours; got {colors!r}")
    return sum(math.comb(c, i + 1) for i, c in enumerate(cs))


@functools.lru_cache(maxsize=64)
def split_tables(k: int, h: int, a: int):
    """``(sa, sp)`` int32 of shape (C(k,h), C(h,a)): for the h-set of rank r, its j-th a-subset C_a
    (positions in lex order) has rank ``sa[r, j]`` and the complement C_p rank ``sp[r, j]``."""
    masks, rank = _colex(k)
    S = masks[h]
    Cs = S.shape[0]
    bits = ((S[:, None] >> np.arange(k)[None, :]) & 1).astype(bool)
    pos = np.nonzero(bits)[1].reshape(Cs, h) if h else np.zeros((Cs, 0), dtype=np.int64)
    combos = list(itertools.combinations(range(h), a))
    sa = np.empty((Cs, len(combos)), dtype=np.int32)
    sp = np.empty((Cs, len(combos)), dtype=np.int32)
    for j, P in enumerate(combos):
        ca = np.zeros(Cs, dtype=np.int64)
        for q in P:
            ca |= np.int64(1) << pos[:, q]
        sa[:, j] = rank[ca]
        sp[:, j] = rank[S & ~ca]
    sa.setflags(write=False)
    sp.setflags(write=False)
    return sa, sp


@functools.lru_cache(maxsize=64)
def rooted_gather_table(k: int, p: int):
    """``Q`` int32 of shape (k, k, C(k-1, p)) for the SpMM over rooted tables.

    Rooted tables keep, per vertex i of colour c_i, only the colour sets that contain c_i (a table
    of size h has C(k-1, h-1) columns: the (h-1)-subsets of the other colours, relabelled to
    0..k-2 by x -> x - (x > c_i)); their SpMM products keep the p-sets that avoid c_i (C(k-1, p)
    columns).  For the p-set of column u of a row of colour ci, ``Q[ci, cj, u]`` is the column of a
    neighbour of colour cj holding that set, or -1 when cj is not in it.
    """
    masks1, rank1 = _colex(k - 1)
    U = masks1[p]
    W = U.shape[0]
    Q = np.full((k, k, W), -1, dtype=np.int32)
    for ci in range(k):
        low = (np.int64(1) << ci) - 1
        S = (U & low) | ((U >> ci) << (ci + 1))      # up(U, ci): the p-set in 0..k-1, avoiding ci
        for cj in range(k):
            if cj == ci:
                continue
            has = ((S >> cj) & 1).astype(bool)
            Sr = S & ~(np.int64(1) << cj)
            lowj = (np.int64(1) << cj) - 1
            down = (Sr & lowj) | ((Sr >> (cj + 1)) << cj)
            Q[ci, cj, has] = rank1[down[has]]
    Q.setflags(write=False)
    return Q


@functools.lru_cache(maxsize=64)
def rooted_gather_pairs(k: int, p: int):
    """``(Qu, Qx)`` int32 of shape (k, k, C(k-2, p-1)): the (u, x) with ``Q[ci, cj, u] = x >= 0``."""
    Q = rooted_gather_table(k, p)
    T = math.comb(k - 2, p - 1) if k >= 2 else 0
    Qu = np.zeros((k, k, T), dtype=np.int32)
    Qx = np.zeros((k, k, T), dtype=np.int32)
    for ci in range(k):
        for cj in range(k):
            if ci != cj:
                u = np.flatnonzero(Q[ci, cj] >= 0)
                Qu[ci, cj] = u
                Qx[ci, cj] = Q[ci, cj, u]
    return Qu, Qx


# ============================================================================ template plans
def rooted_shape(P, root: int):
    """Canonical rooted shape (label, sorted child shapes) of the tree P rooted at ``root``."""
    labels = P.vertex_labels
    adj = [P.neighbors(v) for v in range(P.k)]

    def rec(v, parent):
        ch = tuple(sorted(rec(w, v) for w in adj[v] if w != parent))
        return (0 if labels is None else labels[v], ch)
    return rec(root, -1)


def _size(shape) -> int:
    return 1 + sum(_size(c) for c in shape[1])


def tree_automorphisms(P) -> int:
    """|Aut(T)| of a (labeled) tree from canonical forms: Π over vertices of Π m! over groups of m
    identical child subtrees, rooted at the centre (×2 for two centres with identical halves)."""
    k = P.k
    if k == 1:
        return 1
    # centre by peeling leaves
    deg = list(P.degrees)
    layer = [v for v in range(k) if deg[v] <= 1]
    left = k
    removed = set()
    while left > 2:
        nxt = []
        for v in layer:
            removed.add(v)
            left -= 1
            for w in P.neighbors(v):
                if w not in removed:
                    deg[w] -= 1
                    if deg[w] == 1:
                        nxt.append(w)
        layer = nxt
    centres = [v for v in range(k) if v not in removed]

    def aut(shape):
        out = 1
        counts = {}
        for c in shape[1]:
            counts[c] = counts.get(c, 0) + 1
        for c, m in counts.items():
            out *= math.factorial(m) * aut(c) ** m
        return out

    if len(centres) == 1:
        return aut(rooted_shape(P, centres[0]))
    u, v = centres  # two centres: the halves on either side of the central edge
    side_u = _half(P, u, v)
    side_v = _half(P, v, u)
    a = aut(side_u) * aut(side_v)
    return a * 2 if side_u == side_v else a


def _half(P, v, parent):
    labels = P.vertex_labels

    def rec(x, par):
        ch = tuple(sorted(rec(w, x) for w in P.neighbors(x) if w != par))
        return (0 if labels is None else labels[x], ch)
    return rec(v, parent)


@dataclass
class _Op:
    kind: str          # "leaf" | "spmm" | "ema"
    key: tuple
    size: int          # template vertices of the table (|T_s|; B has the passive size)
    cols: int          # C(k, size)
    inputs: tuple = ()
    label: int = 0     # leaf label
    a: int = 0         # ema: active size


@dataclass
class TreePlan:
    """An evaluation plan: distinct rooted sub-templates and their SpMM products, children first."""
    k: int
    root: int
    ops: list            # _Op in evaluation order
    free_after: dict     # op index -> op indices whose tables can be freed after it ran
    cost: float          # the paper's cost Σ E·C(k,p) + V·C(k,h)·C(h,p) over distinct ops
    peak_cols: int       # largest number of table columns alive at once (per coloring)
    spmm_cols: int       # SpMM output columns per coloring
    ema_terms: int       # Σ C(k,h)·C(h,a) multiply-adds per row per coloring
    labeled: bool
    layout: str = "rooted"

    def describe(self) -> str:
        lines = [f"k={self.k} layout={self.layout} root={self.root} spmm_cols={self.spmm_cols} ema_terms/row={self.ema_terms} "
                 f"peak_cols={self.peak_cols}"]
        for i, op in enumerate(self.ops):
            lines.append(f"  {i:2d} {op.kind:4s} size={op.size:2d} cols={op.cols:6d} inputs={op.inputs}")
        return "\n".join(lines)


def _table_cols(k, h, layout):
    """Columns of a table of size h: C(k, h) dense, C(k-1, h-1) rooted."""
    return math.comb(k, h) if layout == "dense" else math.comb(k - 1, h - 1)


def _spmm_cols(k, p, layout):
    """Columns of the SpMM product of a size-p table: C(k, p) dense, C(k-1, p) rooted."""
    return math.comb(k, p) if layout == "dense" else math.comb(k - 1, p)


def _op_cost(k, h, p, E, V, layout):
    """The paper's cost of one node, E·(gathered columns) + V·(eMA terms per row)."""
    if layout == "dense":
        return E * math.comb(k, p) + V * math.comb(k, h) * math.comb(h, p)
    return E * math.comb(k - 1, p - 1) + V * (math.comb(k - 1, p) + math.comb(k - 1, h - 1) * math.comb(h - 1, p))


def _decompose(k, E, V, layout="rooted"):
    memo = {}

    def best(shape):
        """(cost ignoring sharing, passive child shape) for a rooted shape."""
        if shape in memo:
            return memo[shape]
        if not shape[1]:
            memo[shape] = (0.0, None)
            return memo[shape]
        h = _size(shape)
        out = None
        for c in dict.fromkeys(shape[1]):
            p = _size(c)
            rest = list(shape[1])
            rest.remove(c)
            act = (shape[0], tuple(rest))
            cost = _op_cost(k, h, p, E, V, layout) + best(act)[0] + best(c)[0]
            if out is None or cost < out[0]:
                out = (cost, c)
        memo[shape] = out
        return out
    return best


def _build(k, shape, best, labeled, layout="rooted"):
    ops: list[_Op] = []
    index: dict = {}

    def op_for(sh):
        key = ("M", sh)
        if key in index:
            return index[key]
        if not sh[1]:
            op = _Op("leaf", key, 1, _table_cols(k, 1, layout), (), label=sh[0] if labeled else 0)
        else:
            c = best(sh)[1]
            rest = list(sh[1])
            rest.remove(c)
            act = (sh[0], tuple(rest))
            ia = op_for(act)
            ip = op_for(c)
            bkey = ("B", c)
            if bkey not in index:
                pc = ops[ip]
                ops.append(_Op("spmm", bkey, pc.size, _spmm_cols(k, pc.size, layout), (ip,)))
                index[bkey] = len(ops) - 1
            ib = index[bkey]
            h = _size(sh)
            op = _Op("ema", key, h, _table_cols(k, h, layout), (ia, ib), a=_size(act))
        ops.append(op)
        index[key] = len(ops) - 1
        return index[key]

    op_for(shape)
    return ops


def frees_and_peak(ops, last, skip=()):
    """For ops in evaluation order and ``last`` (table -> the op after which it is freed): ``free_after`` (op ->
    the tables freed after it) and the most table columns alive at once, the ops in ``skip`` holding none."""
    free_after = {}
    for j, t in last.items():
        free_after.setdefault(t, []).append(j)
    alive = pk = 0
    for t, op in enumerate(ops):
        if t not in skip:
            alive += op.cols
        pk = max(pk, alive)
        for j in free_after.get(t, ()):
            alive -= ops[j].cols
    return free_after, pk


def _order_and_peak(ops):
    """Post-order with the heavier input first; returns (order, free_after, peak_cols)."""
    root = len(ops) - 1
    need = {}

    def peak(i):  # columns needed to compute op i from scratch (sharing ignored)
        if i in need:
            return need[i]
        op = ops[i]
        if not op.inputs:
            need[i] = op.cols
            return need[i]
        ins = sorted(op.inputs, key=lambda j: peak(j) - ops[j].cols, reverse=True)
        held = 0
        m = 0
        for j in ins:
            m = max(m, held + peak(j))
            held += ops[j].cols
        need[i] = max(m, held + op.cols)
        return need[i]

    order = []
    seen = set()

    def visit(i):
        if i in seen:
            return
        op = ops[i]
        for j in sorted(op.inputs, key=lambda j: peak(j) - ops[j].cols, reverse=True):
            visit(j)
        seen.add(i)
        order.append(i)

    visit(root)
    pos = {i: t for t, i in enumerate(order)}
    last = {}      # (positions in the order)
    for i in order:
        for j in ops[i].inputs:
            last[pos[j]] = max(last.get(pos[j], -1), pos[i])
    fa, pk = frees_and_peak([ops[i] for i in order], last)
    return order, {order[t]: [order[j] for j in js] for t, js in fa.items()}, pk


def plan_tree(P, n_vertices: int = 1 << 20, n_arcs: int = 1 << 24, root: int | None = None,
              layout: str = "rooted") -> TreePlan:
    """The cheapest plan (paper's cost, then peak memory) over all roots, or for a given root.

    ``layout``: "rooted" (tables keep only the colour sets containing the row's own colour; default)
    or "dense" (all C(k, h) colour sets, as in the paper)."""
    P = as_pattern(P)
    k = P.k
    if layout not in LAYOUTS[1:]:
        raise InvalidArgument(f"layout must be one of {LAYOUTS}; got {layout!r}")
    labeled = P.vertex_labels is not None
    best = _decompose(k, float(n_arcs), float(n_vertices), layout)
    cands = []
    roots = range(k) if root is None else [root]
    seen_shapes = set()
    for r in roots:
        sh = rooted_shape(P, r)
        if sh in seen_shapes:
            continue
        seen_shapes.add(sh)
        ops = _build(k, sh, best, labeled, layout)
        cost = 0.0
        spmm = 0
        ema = 0
        for op in ops:
            if op.kind == "spmm":
                g = math.comb(k, op.size) if layout == "dense" else math.comb(k - 1, op.size - 1)
                cost += n_arcs * g + (0 if layout == "dense" else n_vertices * op.cols)
                spmm += op.cols
            elif op.kind == "ema":
                t = op.cols * (math.comb(op.size, op.a) if layout == "dense" else math.comb(op.size - 1, op.a - 1))
                cost += n_vertices * t
                ema += t
        order, free_after, pk = _order_and_peak(ops)
        cands.append((cost, pk, r, ops, order, free_after, spmm, ema))
    cost, pk, r, ops, order, free_after, spmm, ema = min(cands, key=lambda c: (c[0], c[1], c[2]))
    # renumber ops in evaluation order
    new = {old: t for t, old in enumerate(order)}
    ordered = []
    for old in order:
        op = ops[old]
        ordered.append(_Op(op.kind, op.key, op.size, op.cols, tuple(new[j] for j in op.inputs), op.label, op.a))
    fa = {new[i]: [new[j] for j in js] for i, js in free_after.items()}
    return TreePlan(k, r, ordered, fa, cost, pk, spmm, ema, labeled, layout)
