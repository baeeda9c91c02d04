"""Many patterns in one graph (what :func:`la_gpm.count_many` runs): the patterns validated once, their plans
cached on the graph, and the batch layout both batch engines share (depth-1 work items ``(query, root)``
of all plans, one packed table of plans). The CPU batch (:func:`la_gpm.exact.cpu.count_plans_batch_cpu`)
runs all plans in one parallel region; the GPU batch (:func:`la_gpm.exact.dumato.count_plans_batch_gpu`)
one launch per search depth with one read-back, so a workload of many small queries (the 200 HPRD
queries) fills the GPU where one query at a time cannot. See ``docs/gpu_enum.md``.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import LaGpmError
from .plans import check_pattern, engine_arrays, plan_for

__all__ = ["validated", "prepared", "route", "cached_plan", "batch_roots", "pack_batch_tables"]


def validated(G, patterns):
    """The patterns as Pattern objects, each checked as count_pattern checks it; an error names the
    offending pattern's index (same exception class)."""
    out = []
    for i, P in enumerate(patterns):
        try:
            P = check_pattern(G, P, what="count_many")
        except LaGpmError as e:
            raise type(e)(f"patterns[{i}]: {e}") from None
        out.append(P)
    return out


def prepared(G, patterns, induced: bool, reuse: bool):
    """The validated patterns, and a dict for what each backend derives from them, cached on the graph
    when every input is a Pattern object (immutable): a repeated batch of the same objects is
    neither validated nor planned again. Names and files are validated on every call."""
    from ..patterns import Pattern

    if not patterns or not all(isinstance(P, Pattern) for P in patterns):
        return validated(G, patterns), {}
    cache = G.cached("batch:prepared", dict)
    key = (tuple(map(id, patterns)), bool(induced), bool(reuse))
    hit = cache.get(key)
    if hit is not None and len(hit[0]) == len(patterns) and all(a is b for a, b in zip(hit[0], patterns)):
        return hit[1], hit[2]
    pats = validated(G, patterns)
    if len(cache) >= 64:
        cache.clear()
    cache[key] = (tuple(patterns), pats, {})  # the inputs are held so that their ids stay theirs
    return pats, cache[key][2]


def route(G, pats, derived, what, induced, reuse, special):
    """(indices of the patterns counted apart, plans of the others, their indices), cached in ``derived``."""
    r = derived.get(what)
    if r is None:
        apart, plans, where = [], [], []
        for i, P in enumerate(pats):
            if special(P):
                apart.append(i)
            else:
                plans.append(cached_plan(G, P, induced, reuse))
                where.append(i)
        r = derived[what] = (apart, plans, where)
    return r


def cached_plan(G, P, induced: bool, reuse: bool):
    """plan_for(G, P), cached on the graph per (pattern, induced, reuse): a repeated batch compiles nothing."""
    cache = G.cached("batch:plans", dict)
    key = (P, bool(induced), bool(reuse))
    plan = cache.get(key)
    if plan is None:
        plan = plan_for(G, P, induced=induced, reuse=reuse)
        if len(cache) >= 100_000:
            cache.clear()
        cache[key] = plan
    return plan


def _root_keys(G, vertex_labeled: bool, edge_labeled: bool):
    """Engine vertices sorted by (label rank, decreasing degree), their sort keys, the sorted distinct
    labels and ``maxdeg + 1`` (the key stride), cached on the graph: the roots of a plan are one
    contiguous range of this order (its first label, degree at least its first minimum degree)."""
    def make():
        _, _, _, _, deg, vlab, _ = engine_arrays(G, vertex_labeled, edge_labeled)
        deg = np.asarray(deg, dtype=np.int64)
        stride = int(deg.max(initial=0)) + 1
        if vertex_labeled and vlab is not None:
            labels, rank = np.unique(np.asarray(vlab, dtype=np.int64), return_inverse=True)
        else:
            labels, rank = np.zeros(1, dtype=np.int64), np.zeros(deg.shape[0], dtype=np.int64)
        key = rank.astype(np.int64) * stride + (stride - 1 - deg)
        order = np.argsort(key, kind="stable")
        return order.astype(np.int32), key[order], labels, stride
    return G.cached(f"batch:rootkeys:v{int(vertex_labeled)}e{int(edge_labeled)}", make)


def batch_roots(G, plans, vertex_labeled: bool, edge_labeled: bool):
    """The depth-1 work items of a batch: an (n, 2) int32 host array of rows ``(query, root)`` with,
    for every plan q, the engine vertices :func:`la_gpm.exact.plans.prepare_roots` gives
    (first label, degree at least the first minimum degree), in one vectorised pass; and the number
    of roots per plan.

    Examples
    --------
    >>> import la_gpm
    >>> from la_gpm.exact.plans import plan_for
    >>> G = la_gpm.datasets.load("karate")
    >>> rows, n = batch_roots(G, [plan_for(G, la_gpm.Pattern.named("4-cycle"))] * 2, False, False)
    >>> rows.shape, n.tolist()
    ((66, 2), [33, 33])
    """
    order, key, labels, stride = _root_keys(G, vertex_labeled, edge_labeled)
    nq = len(plans)
    lo_key = np.empty(nq, dtype=np.int64)
    hi_key = np.empty(nq, dtype=np.int64)
    for q, plan in enumerate(plans):
        md = int(plan.min_degree[0])
        if vertex_labeled and plan.vertex_labels is not None:
            lab = int(plan.vertex_labels[0])
            r = int(np.searchsorted(labels, lab))
            if r >= labels.shape[0] or labels[r] != lab:
                lo_key[q] = hi_key[q] = -1  # the label does not occur: no roots
                continue
        else:
            r = 0
        lo_key[q] = r * stride
        hi_key[q] = r * stride + max(stride - md, 0)  # deg >= md  <=>  stride - 1 - deg < stride - md
    lo = np.searchsorted(key, lo_key, side="left")
    hi = np.searchsorted(key, hi_key, side="left")
    hi = np.maximum(hi, lo)
    n = (hi - lo).astype(np.int64)
    total = int(n.sum())
    rows = np.empty((total, 2), dtype=np.int32)
    if total:
        starts = np.repeat(lo - (np.cumsum(n) - n), n)
        rows[:, 0] = np.repeat(np.arange(nq, dtype=np.int32), n)
        rows[:, 1] = order[starts + np.arange(total, dtype=np.int64)]
    return rows, n


def pack_batch_tables(plans):
    """``(pack, t_all, c_all)``: one int64 host array holding every plan's ``T`` (raveled, one after
    the other), then every ``C``, then ``qtab`` (per plan: offset of its T in the T part, offset of
    its C in the C part, k), as ``enum_batch_level`` reads them.

    Examples
    --------
    >>> from la_gpm import Pattern
    >>> from la_gpm.patterns.plan import compile_plan
    >>> pack, t_all, c_all = pack_batch_tables([compile_plan(Pattern.named(p)) for p in ("triangle", "diamond")])
    >>> t_all, c_all, pack[t_all + c_all:].tolist()
    (150, 70, [0, 0, 3, 54, 30, 4])
    """
    tabs = [p.tables() for p in plans]
    tsz = np.array([T.size for T, _ in tabs], dtype=np.int64)
    csz = np.array([C.size for _, C in tabs], dtype=np.int64)
    qtab = np.empty((len(tabs), 3), dtype=np.int64)
    qtab[:, 0] = np.cumsum(tsz) - tsz
    qtab[:, 1] = np.cumsum(csz) - csz
    qtab[:, 2] = [p.k for p in plans]
    pack = np.concatenate([T.ravel() for T, _ in tabs] + [C.ravel() for _, C in tabs] + [qtab.ravel()])
    return pack, int(tsz.sum()), int(csz.sum())
