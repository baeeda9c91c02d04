"""The CPU drivers of the exact engine (numba kernels in :mod:`.cpu_kernels`): one plan over cost-balanced
chunks of roots (:func:`run_plan`), many plans in one parallel region (:func:`count_plans_batch_cpu`),
and the resumable listing behind :func:`la_gpm.exact.match.match` (:func:`list_matches`)."""

from __future__ import annotations

import math
import time

import numpy as np

from ..config import config
from ..exceptions import InvalidArgument
from .batch import batch_roots, pack_batch_tables
from .cpu_kernels import (N_STATS, ST_NODES, ST_OPS, ST_REUSE, ST_SAVED, count_plan, count_plan_serial, count_tasks,
                          list_plan, search_buffers)
from .plans import engine_arrays, plan_for, plan_roots, prepare_roots, resolve_budget

__all__ = ["run_plan", "count_plans_batch_cpu", "list_matches", "check_overflow", "SERIAL_WORK", "CPU_TASK_ROOTS"]

SERIAL_WORK = 1_000_000  # below this Σ deg(root)² the search runs on one worker (no parallel region)


def _chunk_bounds(roots, deg, k, nworkers):
    """Cut roots into chunks of about equal estimated work (deg^min(k-1, 2) per root)."""
    nr = roots.shape[0]
    if nr == 0:
        return np.zeros(1, dtype=np.int64)
    w = deg[roots].astype(np.float64) + 1.0
    if k >= 3:
        w = w * w
    nchunks = max(math.ceil(nr / max(config.chunk, 1)), 32 * nworkers)
    nchunks = int(min(nchunks, nr))
    cum = np.cumsum(w)
    targets = cum[-1] * np.arange(1, nchunks) / nchunks
    cuts = np.searchsorted(cum, targets, side="left") + 1
    b = np.unique(np.concatenate([[0], cuts, [nr]])).astype(np.int64)
    return b


def _workers_for_budget(k, maxd, itemsize, memory_budget):
    import numba
    per = k * max(maxd, 1) * itemsize + 64 * k * 8
    nthreads = numba.get_num_threads()
    budget = resolve_budget(memory_budget)
    fit = budget // per
    if fit < 1:
        raise InvalidArgument(f"memory_budget={budget} bytes is below one worker's stack ({per} bytes = "
                              f"k {k} × max degree {maxd} × {itemsize} bytes); raise memory_budget")
    return int(min(nthreads, fit)), per


def check_overflow(over):
    """Raise OverflowError when a chunk's int64 count overflowed (the kernels flag it)."""
    if over.any():
        raise OverflowError("a chunk's count exceeded int64; split the graph into vertex ranges "
                            "(la_gpm.distributed) or count a smaller pattern")


def run_plan(G, plan, *, memory_budget=None, progress=False, part=None):
    """Execute a plan; returns (count as Python int, stats dict).

    ``part=(i, nparts)`` counts only the matches rooted in the i-th of nparts work-balanced ranges of
    roots (:mod:`la_gpm.partition`; the parts add up to the whole count)."""
    import numba

    t0 = time.perf_counter()
    vl = plan.vertex_labels is not None
    el = plan.edge_labels is not None
    (ptr, idx, nlab, elab, deg, vlab, _), roots = plan_roots(G, plan, part)
    k = plan.k
    stats = {"plan": plan.describe(), "roots": int(roots.shape[0])}
    if k == 1:
        total = int(roots.shape[0])
        stats.update(reuse_hits=0, set_operations=0, set_operations_saved=0, tree_nodes=total)
        return total, stats
    maxd = G.max_degree
    workers, per = _workers_for_budget(k, maxd, idx.dtype.itemsize, memory_budget)
    T, C = plan.tables()
    args = (k, T, C, ptr, idx, nlab, elab, deg, vl, el, maxd)
    rdeg = deg[roots].astype(np.float64)
    if float(rdeg @ rdeg) < SERIAL_WORK and not progress:  # a parallel region would cost more than the search
        counts, over, st = count_plan_serial(roots, *args)
        check_overflow(over)
        total, agg, workers, nchunks = int(counts[0]), st.sum(axis=0), 1, 1
    else:
        bounds = _chunk_bounds(roots, deg, k, workers)
        nchunks = bounds.shape[0] - 1
        nbatch = min(nchunks, 50) if progress else 1
        cuts = np.linspace(0, nchunks, nbatch + 1).astype(np.int64)
        bar = None
        if progress:
            from tqdm.auto import tqdm
            bar = tqdm(total=int(roots.shape[0]), desc=f"count k={k}", unit="root")
        total = 0
        agg = np.zeros(4, dtype=np.int64)
        old = numba.get_num_threads()
        try:
            numba.set_num_threads(workers)
            for b in range(nbatch):
                sub = np.ascontiguousarray(bounds[cuts[b]:cuts[b + 1] + 1])
                if sub.shape[0] < 2:
                    continue
                counts, over, st = count_plan(roots, sub, *args)
                check_overflow(over)
                total += sum(int(x) for x in counts)
                agg += st.sum(axis=0)
                if bar is not None:
                    bar.update(int(sub[-1] - sub[0]))
        finally:
            numba.set_num_threads(old)
            if bar is not None:
                bar.close()
    ops, saved = int(agg[ST_OPS]), int(agg[ST_SAVED])
    stats.update(reuse_hits=int(agg[ST_REUSE]), set_operations=ops, set_operations_saved=saved,
                 reuse_rate=saved / (ops + saved) if ops + saved else 0.0, tree_nodes=int(agg[ST_NODES]),
                 workers=workers, bytes_per_worker=per, chunks=nchunks, seconds=time.perf_counter() - t0)
    return total, stats


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

    counts = [0] * len(plans)
    groups = {}
    for i, plan in enumerate(plans):
        if plan.k == 1:
            counts[i] = int(plan_roots(G, plan)[1].shape[0])
        else:
            groups.setdefault((plan.vertex_labels is not None, plan.edge_labels is not None), []).append(i)
    cache = G.cached("batch:cpu", dict)
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
            got, over = count_tasks(task_q, task_lo, task_hi, roots, Tall, Call, qtab, ptr, idx, nlab, elab, deg, vl, el,
                             max(G.max_degree, 1))
        finally:
            numba.set_parallel_chunksize(old)
        check_overflow(over)
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


def list_matches(G, P, induced, limit, chunk_size):
    """The CPU listing behind :func:`la_gpm.exact.match.match`: chunks of embeddings (rows in ``G``'s numbering)
    from the resumable numba DFS, at most ``limit`` rows in all."""
    plan = plan_for(G, P, induced=induced, symmetry=False)
    vl = plan.vertex_labels is not None
    el = plan.edge_labels is not None
    ptr, idx, nlab, elab, deg, vlab, inv = engine_arrays(G, vl, el)
    roots = prepare_roots(deg, vlab, plan)
    k = plan.k
    T, C = plan.tables()
    order = np.asarray(plan.order, dtype=np.int64)
    buf, f, skind, slo, shi, pos, end = search_buffers(k, G.max_degree, idx)
    st = np.zeros(N_STATS, dtype=np.int64)
    state = np.zeros(3, dtype=np.int64)
    left = limit
    while state[2] == 0:
        cap = chunk_size if left is None else min(chunk_size, left)
        if cap == 0:
            return
        out = np.empty((cap, k), dtype=np.int64)
        w = list_plan(roots, state, out, order, k, T, C, ptr, idx, nlab, elab, deg, vl, el, buf, f, skind, slo,
                      shi, pos, end, st)
        if w:
            yield inv[out[:w]]  # back from the engine's degree-rank numbering
        if left is not None:
            left -= w
