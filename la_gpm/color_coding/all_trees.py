"""Estimates of every free tree with k vertices in one color-coding pass (``tree_census``).

All trees of k vertices use the same k colours, so one coloring serves them all, and their rooted
sub-templates overlap heavily (every tree of k vertices contains many of the same paths and stars):
the plans of all trees are merged into one DAG of distinct tables and SpMM products keyed by the
canonical rooted shape (the keys :func:`la_gpm.color_coding.trees.plan_tree` already uses), and
each coloring evaluates that DAG once.  For k = 8 (23 trees) the merged plan has far fewer SpMM
columns than the 23 separate plans together (``TreeCensusPlan.shared_spmm_cols`` against
``separate_spmm_cols``).

Intervals: the anytime empirical-Bernstein rule of :func:`la_gpm.estimate`, at level δ/T for each of
the T trees (a union bound), so with probability >= 1 - δ every tree's reported interval holds at
once.  The run stops when every tree's relative half-width is <= eps, or at the budget.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..validation import as_graph
from ..backends import resolve_backend
from ..exceptions import InvalidArgument
from ..patterns.pattern import Pattern
from .driver import Estimate, Runner, check_dtype, check_run_args, eb_interval, make_ops, resolve_seed
from .trees import TreePlan, frees_and_peak, plan_tree, rooted_shape, tree_automorphisms

__all__ = ["free_trees", "tree_census", "plan_census", "TreeCensusPlan", "TreeCensus"]

MAX_CENSUS_K = 12


def _centers(P):
    """The one or two centre vertices of a tree (peeling leaves)."""
    deg = {v: len(P.neighbors(v)) for v in range(P.k)}
    alive = set(range(P.k))
    layer = [v for v in alive if deg[v] <= 1]
    while len(alive) > 2:
        nxt = []
        for v in layer:
            alive.discard(v)
            for w in P.neighbors(v):
                if w in alive:
                    deg[w] -= 1
                    if deg[w] == 1:
                        nxt.append(w)
        layer = nxt
    return sorted(alive)


def _canonical(P):
    """A canonical form of a free (unlabeled) tree: the least rooted shape over its centres."""
    return min(rooted_shape(P, c) for c in _centers(P))


def _from_shape(shape):
    """Edges of a rooted shape, vertices numbered in preorder from 0."""
    edges = []

    def rec(sh, me):
        nxt = me + 1
        for ch in sh[1]:
            edges.append((me, nxt))
            nxt = rec(ch, nxt)
        return nxt
    k = rec(shape, 0)
    return edges, k


def free_trees(k: int) -> list:
    """All free (unlabeled) trees with k vertices, as Patterns named ``"tree<k>-<i>"``.

    Built by adding a leaf to every vertex of every tree with k - 1 vertices and keeping one tree
    per canonical form (least rooted shape at the centre); ordered by that canonical form, so the
    names are stable.  Counts 1, 1, 1, 2, 3, 6, 11, 23, 47, 106 for k = 1..10 (OEIS A000055).

    Examples
    --------
    >>> from la_gpm.color_coding.all_trees import free_trees
    >>> [len(free_trees(k)) for k in range(1, 9)]
    [1, 1, 1, 2, 3, 6, 11, 23]
    """
    if not isinstance(k, (int, np.integer)) or not 1 <= k <= MAX_CENSUS_K:
        raise InvalidArgument(f"k must be an integer in 1..{MAX_CENSUS_K} for a tree census; got {k!r}")
    level = {_canonical(Pattern([], 1)): Pattern([], 1)}
    for m in range(2, int(k) + 1):
        nxt = {}
        for P in level.values():
            for v in range(P.k):
                Q = Pattern(list(P.edges) + [(v, P.k)], P.k + 1)
                key = _canonical(Q)
                if key not in nxt:
                    nxt[key] = Q
        level = nxt
    out = []
    for i, key in enumerate(sorted(level)):
        edges, kk = _from_shape(key)
        out.append(Pattern(edges, kk, name=f"tree{k}-{i}"))
    return out


@dataclass
class TreeCensusPlan:
    """The merged plan of all trees of k vertices: distinct tables and SpMM products once."""
    trees: list                # Patterns
    plan: TreePlan             # merged ops (children first), free_after, peak_cols
    roots: list                # op index of each tree's root table
    shared_spmm_cols: int      # SpMM output columns per coloring, merged
    separate_spmm_cols: int    # the same summed over the trees' own plans
    shared_ema_terms: int
    separate_ema_terms: int


def plan_census(k: int, n_vertices: int = 1 << 20, n_arcs: int = 1 << 24) -> TreeCensusPlan:
    """Merge the cheapest rooted plan of every tree with k >= 2 vertices into one DAG.

    Examples
    --------
    >>> from la_gpm.color_coding.all_trees import plan_census
    >>> cp = plan_census(7)
    >>> len(cp.trees), cp.shared_spmm_cols < cp.separate_spmm_cols
    (11, True)
    """
    if not isinstance(k, (int, np.integer)) or not 2 <= k <= MAX_CENSUS_K:
        raise InvalidArgument(f"a tree census needs k in 2..{MAX_CENSUS_K}; got {k!r}")
    trees = free_trees(k)
    ops, index, roots = [], {}, []
    sep_spmm = sep_ema = 0
    for P in trees:
        pl = plan_tree(P, n_vertices, n_arcs, layout="rooted")
        sep_spmm += pl.spmm_cols
        sep_ema += pl.ema_terms
        remap = {}
        for i, op in enumerate(pl.ops):
            if op.key not in index:
                ops.append(type(op)(op.kind, op.key, op.size, op.cols, tuple(remap[j] for j in op.inputs),
                                    op.label, op.a))
                index[op.key] = len(ops) - 1
            remap[i] = index[op.key]
        roots.append(remap[len(pl.ops) - 1])
    # free tables after their last consumer (ops are already children first); roots are read on the spot
    last = {}
    for i, op in enumerate(ops):
        for j in op.inputs:
            last[j] = i
    for r in roots:
        last.setdefault(r, r)
    free_after, pk = frees_and_peak(ops, last)
    spmm = sum(op.cols for op in ops if op.kind == "spmm")
    ema = sum(op.cols * math.comb(op.size - 1, op.a - 1) for op in ops if op.kind == "ema")
    plan = TreePlan(k, -1, ops, free_after, 0.0, pk, spmm, ema, False, "rooted")
    return TreeCensusPlan(trees, plan, roots, spmm, sep_spmm, ema, sep_ema)


class TreeCensus(dict):
    """The result of :func:`tree_census`: a dict ``{name: Estimate}`` (in the order of :func:`free_trees`)
    that prints as a table; :meth:`to_frame` gives it as a pandas DataFrame."""

    def to_frame(self):
        """One row per tree: name, k, edges, estimate, low, high (the interval), rel_halfwidth, converged,
        colorings, automorphisms."""
        import pandas as pd

        trees = {P.name: P for P in free_trees(next(iter(self.values())).k)} if self else {}
        rows = [{"name": n, "k": e.k, "edges": [tuple(x) for x in trees[n].edges] if n in trees else None,
                 "estimate": e.value, "low": e.ci_low, "high": e.ci_high, "rel_halfwidth": e.relative_halfwidth,
                 "converged": e.converged, "colorings": e.n_colorings, "automorphisms": e.automorphisms}
                for n, e in self.items()]
        cols = ["name", "k", "edges", "estimate", "low", "high", "rel_halfwidth", "converged", "colorings",
                "automorphisms"]
        df = pd.DataFrame(rows, columns=cols)
        if self:
            e = next(iter(self.values()))
            df.attrs.update(eps=e.eps, delta=e.delta, seed=e.seed, bound=e.bound, backend=e.backend,
                            elapsed_s=e.elapsed_s)
        return df

    def __repr__(self) -> str:
        if not self:
            return "TreeCensus({})"
        return self.to_frame().drop(columns=["edges", "automorphisms"]).to_string(index=False)


def tree_census(G, k: int, eps: float = 0.1, delta: float = 0.01, seed=None, max_colorings: int | None = None,
                time_budget: float | None = None, backend: str | None = None, dtype="float32", spmm: str = "auto",
                batch: int | None = None, as_frame: bool = False):
    """Estimate the number of non-induced copies of every free tree with k vertices, in one pass.

    Parameters
    ----------
    G : Graph (undirected; vertex labels are ignored)
    k : tree size, 2..12 (106 trees for k = 10, 551 for k = 12)
    eps, delta : stop when every tree's interval has relative half-width <= eps; with probability
        >= 1 - delta all the reported intervals hold simultaneously (anytime empirical Bernstein at
        level delta / (number of trees) per tree, checked at colorings growing by 1.25x)
    seed : colorings are those of :func:`la_gpm.estimate` with the same seed and k
    max_colorings, time_budget : budget; a run stopped by it reports ``converged=False`` for the
        trees not yet at eps, with valid intervals
    backend, dtype, spmm, batch : as in :func:`la_gpm.estimate`
    as_frame : return the pandas DataFrame of :meth:`TreeCensus.to_frame` (columns name, k, edges,
        estimate, low, high, rel_halfwidth, converged, colorings, automorphisms) instead

    Returns
    -------
    :class:`TreeCensus`, a dict ``{name: Estimate}`` in the order of :func:`free_trees`
    (``Estimate.template`` is the name; ``free_trees(k)`` gives the Patterns) that prints as a
    table (``.to_frame()``: the DataFrame); with ``as_frame=True`` that DataFrame.

    Examples
    --------
    >>> import la_gpm
    >>> from la_gpm.color_coding.all_trees import tree_census
    >>> res = tree_census(la_gpm.datasets.load("karate"), 4, eps=0.2, seed=1, backend="cpu")
    >>> list(res)  # the 4-star and the 4-path
    ['tree4-0', 'tree4-1']
    >>> bool(res["tree4-0"].ci_low <= 1764 <= res["tree4-0"].ci_high)  # sum of C(deg, 3): 1764 4-stars
    True
    >>> list(res.to_frame().columns[:6])
    ['name', 'k', 'edges', 'estimate', 'low', 'high']
    """
    t0 = time.perf_counter()
    G = as_graph(G)
    if G.directed:
        raise InvalidArgument("tree_census needs an undirected graph")
    check_run_args(eps, delta, max_colorings, time_budget, batch)
    cen = plan_census(k, max(G.n, 1), max(G.nnz, 1))
    b = resolve_backend(backend, what="color-coding tree census")
    dt = check_dtype(dtype)
    ops = make_ops(G, b, dt, spmm, cen.trees[0], cen.plan)
    runner = Runner(G, cen.trees[0], cen.plan, ops, gpu=(b == "gpu"), itemsize=dt.itemsize)
    s = resolve_seed(seed)
    eps, delta = float(eps), float(delta)
    T = len(cen.trees)
    p = math.factorial(k) / k ** k
    alphas = [tree_automorphisms(P) for P in cen.trees]
    nb_max = runner.pass_size(batch)
    cap = max_colorings if max_colorings is not None else 1 << 62
    from .cpu_kernels import coloring_keys

    vals = [np.empty(0) for _ in range(T)]
    done = check_j = 0
    next_check = 2
    conv = [False] * T
    ivals = [(0.0, math.inf)] * T
    cur = 1 if batch is None else batch
    while done < cap:
        nb_ = int(min(cur, nb_max, cap - done))
        keys = coloring_keys(s, done, nb_)
        tot, _ = runner.run(keys, roots=set(cen.roots))
        for t, r in enumerate(cen.roots):
            vals[t] = np.concatenate([vals[t], tot[r] / (alphas[t] * p)])
        done += nb_
        cur = max(1, done // 2)
        if done >= next_check:
            check_j += 1
            dj = delta / T / (check_j * (check_j + 1))
            for t in range(T):
                lo, hi = eb_interval(vals[t], dj, p)
                m = float(vals[t].mean())
                ivals[t] = (lo, hi)
                conv[t] = hi == 0.0 or (math.isfinite(hi) and max(hi - m, m - lo) <= eps * lo)
            if all(conv):
                break
            next_check = max(done + 1, math.ceil(done * 1.25))
        if time_budget is not None and time.perf_counter() - t0 >= time_budget:
            break
    out = TreeCensus()
    el = time.perf_counter() - t0
    for t, P in enumerate(cen.trees):
        x = vals[t]
        n = x.shape[0]
        if not all(conv):  # stopped by the budget: intervals at the next checkpoint's level
            ivals[t] = eb_interval(x, delta / T / ((check_j + 1) * (check_j + 2)), p)
        out[P.name] = Estimate(
            value=float(x.mean()), stderr=float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else math.inf,
            ci_low=ivals[t][0], ci_high=ivals[t][1], n_colorings=n, seed=s, values=x, stop="adaptive",
            bound=f"anytime empirical Bernstein at level delta/{T} per tree (union bound), rigorous",
            eps=eps, delta=delta, converged=conv[t], template=P.name, k=k, automorphisms=alphas[t],
            colorful_probability=p, backend=b, dtype=dt.name, elapsed_s=el)
    return out.to_frame() if as_frame else out
