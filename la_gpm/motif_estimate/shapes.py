"""Treelet shapes of motif estimation: rooted and free trees, spanning trees, the per-k shape plan.

A rooted shape is a canonical nested tuple (the sorted tuple of its children's shapes; ``()`` is
one vertex).  :func:`shape_plan` lays out, for one k, every rooted shape the k-vertex shapes need
(each cut into its largest child, the *passive* part, and the rest, the *active* part) with its
columns in the tables ``M`` and ``B`` and the colour-set split tables of its eMA: the layout the
CPU tables (:mod:`la_gpm.motif_estimate.tables`) and the GPU tables (:mod:`~la_gpm.motif_estimate.gpu`)
share.  :func:`free_shapes` are the unrooted trees, :func:`top_free` maps each k-vertex rooted
shape to its free tree, and :func:`spanning_trees` counts a graph's spanning trees (Kirchhoff).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..color_coding.trees import split_tables

__all__ = ["rooted_shapes", "spanning_trees", "ShapePlan", "shape_plan", "free_shape", "free_shapes", "top_free"]


# ============================================================================ shapes
@functools.lru_cache(maxsize=None)
def rooted_shapes(k: int) -> tuple:
    """All rooted unlabeled trees of 1..k vertices, canonical nested tuples, by size then order."""
    by = {1: [()]}
    for h in range(2, k + 1):
        out = set()
        for b in range(1, h):
            for T in by[h - b]:
                for c in by[b]:
                    out.add(tuple(sorted(T + (c,))))
        by[h] = sorted(out)
    return tuple(s for h in range(1, k + 1) for s in by[h])


def _size(s) -> int:
    return 1 + sum(_size(c) for c in s)


def _aut(s) -> int:
    out = 1
    for c in set(s):
        m = s.count(c)
        out *= math.factorial(m) * _aut(c) ** m
    return out


def _split(s):
    """(active, passive): the shape without its largest child, and that child."""
    p = max(s)
    rest = list(s)
    rest.remove(p)
    return tuple(rest), p


def spanning_trees(edges, k: int) -> int:
    """Number of spanning trees of the graph on range(k) with these edges (Kirchhoff, exact)."""
    from fractions import Fraction
    L = [[Fraction(0)] * k for _ in range(k)]
    for a, b in edges:
        L[a][b] -= 1
        L[b][a] -= 1
        L[a][a] += 1
        L[b][b] += 1
    m = [row[1:] for row in L[1:]]
    det = Fraction(1)
    n = k - 1
    for c in range(n):
        piv = next((r for r in range(c, n) if m[r][c] != 0), None)
        if piv is None:
            return 0
        if piv != c:
            m[c], m[piv] = m[piv], m[c]
            det = -det
        det *= m[c][c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            if f:
                for q in range(c, n):
                    m[r][q] -= f * m[c][q]
    return int(det)


@dataclass
class ShapePlan:
    """The rooted shapes needed by the k-vertex shapes, children first, and their table layout."""
    k: int
    shapes: list          # shapes in evaluation order
    size: np.ndarray
    act: np.ndarray
    pas: np.ndarray
    offM: np.ndarray
    offB: np.ndarray      # -1 where the shape is never a passive child
    WM: int
    WB: int
    split_off: np.ndarray
    split_n: np.ndarray
    split_sa: np.ndarray
    split_sp: np.ndarray
    top: np.ndarray       # indices of the k-vertex shapes
    top_aut: np.ndarray


@functools.lru_cache(maxsize=None)
def shape_plan(k: int) -> ShapePlan:
    """The :class:`ShapePlan` of k: every rooted shape cut (active, passive) down to single vertices."""
    tops = [s for s in rooted_shapes(k) if _size(s) == k]
    need = set()

    def visit(s):
        if s in need:
            return
        need.add(s)
        if s:
            a, p = _split(s)
            visit(a)
            visit(p)
    for s in tops:
        visit(s)
    shapes = sorted(need, key=lambda s: (_size(s), s))
    idx = {s: i for i, s in enumerate(shapes)}
    S = len(shapes)
    size = np.array([_size(s) for s in shapes], dtype=np.int64)
    act = np.full(S, -1, dtype=np.int64)
    pas = np.full(S, -1, dtype=np.int64)
    offM = np.zeros(S, dtype=np.int64)
    offB = np.full(S, -1, dtype=np.int64)
    split_off = np.zeros(S, dtype=np.int64)
    split_n = np.zeros(S, dtype=np.int64)
    sas, sps = [], []
    WM = WB = 0
    so = 0
    for i, s in enumerate(shapes):
        offM[i] = WM
        WM += math.comb(k, size[i])
        if s:
            a, p = _split(s)
            act[i], pas[i] = idx[a], idx[p]
            sa, sp = split_tables(k, int(size[i]), int(size[idx[a]]))
            split_off[i] = so
            split_n[i] = sa.shape[1]
            sas.append(sa.ravel())
            sps.append(sp.ravel())
            so += sa.size
    for i in sorted(set(pas[pas >= 0].tolist())):
        offB[i] = WB
        WB += math.comb(k, int(size[i]))
    top = np.array([idx[s] for s in tops], dtype=np.int64)
    return ShapePlan(k=k, shapes=shapes, size=size, act=act, pas=pas, offM=offM, offB=offB, WM=WM, WB=max(WB, 1),
                     split_off=split_off, split_n=split_n,
                     split_sa=np.concatenate(sas).astype(np.int64) if sas else np.zeros(0, np.int64),
                     split_sp=np.concatenate(sps).astype(np.int64) if sps else np.zeros(0, np.int64),
                     top=top, top_aut=np.array([_aut(s) for s in tops], dtype=np.float64))


def _tree_adj(s):
    """Adjacency lists of the rooted shape s (vertex 0 is the root)."""
    adj = [[]]

    def grow(t, v):
        for c in t:
            u = len(adj)
            adj.append([v])
            adj[v].append(u)
            grow(c, u)
    grow(s, 0)
    return adj


def _rooted_at(adj, r, parent=-1):
    return tuple(sorted(_rooted_at(adj, u, r) for u in adj[r] if u != parent))


@functools.lru_cache(maxsize=None)
def free_shape(s) -> tuple:
    """Canonical form of the unrooted tree underlying the rooted shape s (smallest rooting at a centre)."""
    adj = _tree_adj(s)
    n = len(adj)
    deg = [len(a) for a in adj]
    left = set(range(n))
    layer = [v for v in range(n) if deg[v] <= 1]
    while len(left) > 2:
        nxt = []
        for v in layer:
            left.discard(v)
            for u in adj[v]:
                if u in left:
                    deg[u] -= 1
                    if deg[u] == 1:
                        nxt.append(u)
        layer = nxt
    return min(_rooted_at(adj, c) for c in left)


@functools.lru_cache(maxsize=None)
def free_shapes(k: int) -> tuple:
    """The unlabeled (free) trees of k vertices, as canonical rooted shapes (1, 1, 1, 2, 3, 6, 11, 23)."""
    return tuple(sorted({free_shape(s) for s in rooted_shapes(k) if _size(s) == k}))


@functools.lru_cache(maxsize=None)
def top_free(k: int) -> np.ndarray:
    """Free-shape index of each k-vertex rooted shape of ``shape_plan(k).top``."""
    pl = shape_plan(k)
    fs = {f: i for i, f in enumerate(free_shapes(k))}
    return np.array([fs[free_shape(pl.shapes[t])] for t in pl.top], dtype=np.int64)
