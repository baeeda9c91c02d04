"""Exact counts of many patterns in one graph: :func:`count_many`.

On the cpu backend every pattern goes through :func:`~la_gpm.exact.driver.count_pattern`
(same results, closed forms included). On the gpu backend the plans of all patterns are counted
together (:func:`la_gpm.exact.dumato.count_plans_batch_gpu`): one packed table of plans, one
array of work items ``(query, partial match)`` for all queries and one launch per search depth,
with one read-back of the per-query counts, so a workload of many small queries (the 200 HPRD
queries) fills the GPU where one query at a time cannot. See ``docs/gpu_enum.md``.
"""

from __future__ import annotations

import time

import numpy as np

from ..validation import as_graph
from ..backends import resolve_backend
from ..exceptions import InvalidArgument, LaGpmError
from ..patterns import as_pattern
from .driver import _closed_form, check_count_options, check_labels, check_size, count_pattern, engine_arrays, plan_for

__all__ = ["count_many", "count_plans_batch_cpu"]


def _validated(G, patterns):
    """The patterns as Pattern objects, each checked as count_pattern checks it; an error names the
    offending pattern's index (same exception class)."""
    out = []
    for i, P in enumerate(patterns):
        try:
            P = as_pattern(P)
            P.require_connected("counting")
            if not (P.is_clique and not P.labeled and P.k >= 3):
                check_size(P, what="count_many")
            check_labels(G, P)
        except LaGpmError as e:
            raise type(e)(f"patterns[{i}]: {e}") from None
        out.append(P)
    return out


def _prepared(G, patterns, induced: bool, reuse: bool):
    """The validated patterns, and a dict for what each backend derives from them, cached on the graph
    when every input is a Pattern object (immutable): a repeated batch of the same objects is
    neither validated nor planned again. Names and files are validated on every call."""
    from ..patterns import Pattern

    if not patterns or not all(isinstance(P, Pattern) for P in patterns):
        return _validated(G, patterns), {}
    cache = G._cached("batch:prepared", dict)
    key = (tuple(map(id, patterns)), bool(induced), bool(reuse))
    hit = cache.get(key)
    if hit is not None and len(hit[0]) == len(patterns) and all(a is b for a, b in zip(hit[0], patterns)):
        return hit[1], hit[2]
    pats = _validated(G, patterns)
    if len(cache) >= 64:
        cache.clear()
    cache[key] = (tuple(patterns), pats, {})  # the inputs are held so that their ids stay theirs
    return pats, cache[key][2]


def _route(G, pats, derived, what, induced, reuse, special):
    """(indices of the patterns counted apart, plans of the others, their indices), cached in ``derived``."""
    r = derived.get(what)
    if r is None:
        apart, plans, where = [], [], []
        for i, P in enumerate(pats):
            if special(P):
                apart.append(i)
            else:
                plans.append(_plan(G, P, induced, reuse))
                where.append(i)
        r = derived[what] = (apart, plans, where)
    return r


def _plan(G, P, induced: bool, reuse: bool):
    """plan_for(G, P), cached on the graph per (pattern, induced, reuse): a repeated batch compiles nothing."""
    cache = G._cached("batch:plans", dict)
    key = (P, bool(induced), bool(reuse))
    plan = cache.get(key)
    if plan is None:
        plan = plan_for(G, P, induced=induced, reuse=reuse)
        if len(cache) >= 100_000:
            cache.clear()
        cache[key] = plan
    return plan


_CPU_BATCH = None


def _cpu_batch_kernel():
    """The numba kernel of the cpu batch (built on first use): one parallel region over tasks, each
    a range of roots of one query, running the CPU engine's ``_count_roots`` on that query's plan
    tables sliced out of the packed batch tables."""
    global _CPU_BATCH
    if _CPU_BATCH is None:
        import numba as nb

        from .cpu_kernels import N_STATS, _count_roots

        @nb.njit(parallel=True, cache=True)
        def count_tasks(task_q, task_lo, task_hi, roots, Tall, Call, qtab, ptr, idx, nlab, elab, deg, vlabeled,
                        elabeled, maxd):
            nt = task_q.shape[0]
            counts = np.zeros(nt, dtype=np.int64)
            over = np.zeros(nt, dtype=np.bool_)
            for t in nb.prange(nt):
                q = task_q[t]
                ot, oc, k = qtab[3 * q], qtab[3 * q + 1], qtab[3 * q + 2]
                T = Tall[ot:ot + 6 * k * k].reshape((6, k, k))
                C = Call[oc:oc + 10 * k].reshape((10, k))
                st = np.zeros(N_STATS, dtype=np.int64)
                c, o = _count_roots(roots, task_lo[t], task_hi[t], k, T, C, ptr, idx, nlab, elab, deg, vlabeled,
                                    elabeled, maxd, st)
                counts[t] = c
                over[t] = o
            return counts, over
        _CPU_BATCH = count_tasks
    return _CPU_BATCH


CPU_TASK_ROOTS = 16  # roots per task of the cpu batch (a query's roots are cut into tasks of this many)


def count_plans_batch_cpu(G, plans):
    """Count many plans on the CPU in one parallel region (queries and their roots in parallel);
    returns the counts (Python ints, one per plan). Same numbers as ``run_plan`` per plan.

    Examples
    --------
    >>> import la_gpm
    >>> G = la_gpm.datasets.load("karate")
    >>> count_plans_batch_cpu(G, [plan_for(G, la_gpm.Pattern.named(p)) for p in ("4-cycle", "diamond", "edge")])
    [154, 151, 78]
    """
    import numba

    from .dumato import batch_roots, pack_batch_tables
    from .driver import _check_overflow, plan_roots

    counts = [0] * len(plans)
    groups = {}
    for i, plan in enumerate(plans):
        if plan.k == 1:
            counts[i] = int(plan_roots(G, plan)[1].shape[0])
        else:
            groups.setdefault((plan.vertex_labels is not None, plan.edge_labels is not None), []).append(i)
    kern = _cpu_batch_kernel()
    cache = G._cached("batch:cpu", dict)
    for (vl, el), members in groups.items():
        ps = [plans[i] for i in members]
        key = (vl, el, tuple(map(id, ps)))
        hit = cache.get(key)
        if hit is None or len(hit[0]) != len(ps) or not all(a is b for a, b in zip(hit[0], ps)):
            rows, n = batch_roots(G, ps, vl, el)
            pack, t_all, c_all = pack_batch_tables(ps)
            starts = np.cumsum(n) - n
            pieces = -(-n // CPU_TASK_ROOTS)
            task_q = np.repeat(np.arange(len(ps), dtype=np.int64), pieces)
            j = np.arange(task_q.shape[0], dtype=np.int64) - np.repeat(np.cumsum(pieces) - pieces, pieces)
            task_lo = starts[task_q] + j * CPU_TASK_ROOTS
            task_hi = np.minimum(task_lo + CPU_TASK_ROOTS, starts[task_q] + n[task_q])
            perm = np.random.default_rng(0).permutation(task_q.shape[0])  # spread heavy queries over the threads
            hit = (tuple(ps), task_q[perm], task_lo[perm], task_hi[perm],
                   np.ascontiguousarray(rows[:, 1]).astype(np.int64), pack[:t_all], pack[t_all:t_all + c_all],
                   pack[t_all + c_all:])
            if len(cache) >= 32:
                cache.clear()
            cache[key] = hit
        _, task_q, task_lo, task_hi, roots, Tall, Call, qtab = hit
        ptr, idx, nlab, elab, deg, _, _ = engine_arrays(G, vl, el)
        old = numba.get_parallel_chunksize()
        try:
            numba.set_parallel_chunksize(1)
            got, over = kern(task_q, task_lo, task_hi, roots, Tall, Call, qtab, ptr, idx, nlab, elab, deg, vl, el,
                             max(G.max_degree, 1))
        finally:
            numba.set_parallel_chunksize(old)
        _check_overflow(over)
        if int(got.max(initial=0)) * max(got.shape[0], 1) < 2**63:  # no sum can overflow int64
            tot = np.zeros(len(ps), dtype=np.int64)
            np.add.at(tot, task_q, got)
        else:
            tot = [0] * len(ps)
            for q, c in zip(task_q.tolist(), got.tolist()):
                tot[q] += c
        for jq, i in enumerate(members):
            counts[i] = int(tot[jq])
    return counts


def count_many(G, patterns, *, induced: bool = False, count: str = "unique", backend: str | None = None,
               memory_budget: int | None = None, reuse: bool = True, closed_forms: bool = True,
               deep_items: int | None = None, cpu_batch: bool = True, return_stats: bool = False):
    """Exact number of copies of each of many connected patterns in G.

    Parameters
    ----------
    G : anything :func:`la_gpm.as_graph` accepts (undirected)
    patterns : an iterable of patterns (Pattern objects, names, files: whatever ``count_pattern`` takes)
    induced, count, memory_budget, reuse, closed_forms : as in
        :func:`~la_gpm.exact.driver.count_pattern`, for every pattern
    backend : ``"cpu"``: the numba engine; ``"gpu"``: all plans counted in one batch on the GPU
        (plain unlabeled cliques go to the clique kernel through ``count_pattern``); ``"auto"``/None:
        the GPU when one is visible (the 200 HPRD queries: 0.54 ms against 7.07 ms for the cpu
        batch on 16 cores, docs/gpu_enum.md), else the cpu
    deep_items : gpu only: levels of the batch are expanded breadth-first across all queries while
        they hold fewer work items than this (default: while a level fits its array,
        ``la_gpm.exact.dumato.BATCH_MAX_ITEMS`` rows; 0: each root is searched depth first)
    cpu_batch : cpu only: count all plans in one parallel region (default; queries and their roots
        in parallel over the cores; plain cliques and the closed forms still go through
        ``count_pattern``), or with False one ``count_pattern`` call per pattern; same counts
    return_stats : also return a dict (backend, seconds, and on the gpu the batch's launches, warps,
        level capacity)

    Returns
    -------
    list of int (one per pattern, in order), or (list, dict) with ``return_stats``

    Raises
    ------
    the exceptions :func:`~la_gpm.exact.driver.count_pattern` raises (``PatternTooLarge``,
    ``LabelMismatch``, ``InvalidPattern``, ...), before anything is counted, with the index of the
    offending pattern (``patterns[i]: ...``) in the message.

    Examples
    --------
    >>> import la_gpm
    >>> from la_gpm.exact.batch import count_many
    >>> G = la_gpm.datasets.load("karate")
    >>> count_many(G, ["4-cycle", "diamond", "4-path"], backend="cpu")
    [154, 151, 2371]
    """
    t0 = time.perf_counter()
    check_count_options(count, memory_budget, induced)
    if deep_items is not None and (isinstance(deep_items, bool) or not isinstance(deep_items, (int, np.integer))
                                   or deep_items < 0):
        raise InvalidArgument(f"deep_items must be a non-negative int or None; got {deep_items!r}")
    if isinstance(patterns, (str, bytes)):
        raise InvalidArgument("patterns must be an iterable of patterns (a list), not one pattern name; "
                              "use count_pattern for a single pattern")
    G = as_graph(G)
    G._require_undirected("pattern counting")
    pats, derived = _prepared(G, list(patterns), bool(induced), bool(reuse))
    b = resolve_backend(backend, supported=("cpu", "gpu"), what="batched exact pattern counting")
    kw = dict(induced=bool(induced), count=count, memory_budget=memory_budget, reuse=reuse)
    stats = {"backend": b, "patterns": len(pats)}

    def plain_clique(P):
        return P.is_clique and not P.labeled and P.k >= 3

    if b == "cpu" and not cpu_batch:
        out = [count_pattern(G, P, backend="cpu", closed_forms=closed_forms, **kw) for P in pats]
    else:
        if b == "cpu":
            def special(P):
                return plain_clique(P) or (closed_forms and not induced and _closed_form(P) is not None)
            what = ("cpu", bool(closed_forms))
        else:
            special = plain_clique  # the DAG clique kernel, as count_pattern does
            what = ("gpu",)
        apart, plans, where = _route(G, pats, derived, what, induced, reuse, special)
        out = [0] * len(pats)
        for i in apart:
            out[i] = count_pattern(G, pats[i], backend=b, closed_forms=closed_forms, **kw)
        if plans:
            if b == "cpu":
                got = count_plans_batch_cpu(G, plans)
            else:
                from .dumato import count_plans_batch_gpu
                got, st = count_plans_batch_gpu(G, plans, memory_budget=memory_budget, deep_items=deep_items)
                stats.update(st)
            if count == "embeddings":
                mult = derived.get(("aut",) + what)
                if mult is None:
                    mult = derived[("aut",) + what] = [pats[i].automorphism_count for i in where]
                for i, n, a in zip(where, got, mult):
                    out[i] = int(n) * a
            else:
                for i, n in zip(where, got):
                    out[i] = int(n)
    out = [int(x) for x in out]
    stats["seconds"] = time.perf_counter() - t0
    return (out, stats) if return_stats else out
