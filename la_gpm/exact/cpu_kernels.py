"""numba kernels that execute a :class:`la_gpm.patterns.plan.Plan` depth first.

Data layout (built by :func:`la_gpm.exact.plans.engine_arrays`):

* ``ptr`` int64 (n+1), ``idx`` int32 neighbour lists.  For vertex-labeled plans each row
  is sorted by (label of the neighbour, id) and ``nlab`` holds those labels, so the
  neighbours of v with label L are one contiguous id-sorted range found by two binary
  searches; otherwise rows are sorted by id and ``nlab`` is unused.
* ``elab`` int64 edge labels aligned with ``idx`` (unused for plans without edge labels).
* ``T``, ``C``: the plan tables (:meth:`Plan.tables`).

Memory: every worker owns a stack of k candidate buffers of ``maxd`` entries (the
largest degree bounds every candidate set) plus O(k) scalars per level; nothing is
materialised per level across roots, so memory is ``workers × k × maxd × 4`` bytes
whatever the pattern and the graph.  A level's set is either a range of a neighbour
list (no copy), a range of an earlier level's buffer (reuse, no copy) or its own
buffer.

Statistics (per chunk, summed by the caller): ``[reuse_hits, set_ops, set_ops_saved,
tree_nodes]``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..primitives.sorted_ops import difference, intersect
from ..primitives.sorted_ops import lower_bound as _lower_bound

from ..patterns.plan import (C_CACHED, C_MINDEG, C_NANTI, C_NINJ, C_NLOW, C_NPAR, C_NUP, C_REUSE, C_SAVED,
                              C_VLAB, T_ANTI, T_INJ, T_LOW, T_PAR, T_PAREL, T_UP)

ST_REUSE, ST_OPS, ST_SAVED, ST_NODES = 0, 1, 2, 3
N_STATS = 4
INT64_MAX = np.iinfo(np.int64).max



@nb.njit(inline="always")
def _label_range(nlab, lo, hi, lab):
    a = _lower_bound(nlab, lo, hi, lab)
    b = _lower_bound(nlab, a, hi, lab + 1)
    return a, b


@nb.njit(inline="always")
def _row(ptr, nlab, v, lab, vlabeled):
    lo = ptr[v]
    hi = ptr[v + 1]
    if vlabeled and lab >= 0:
        lo, hi = _label_range(nlab, lo, hi, lab)
    return lo, hi


@nb.njit(inline="always")
def _bounds(i, f, T, C):
    """The open value window (vlo, vhi) of level i from the symmetry bounds."""
    vlo = -1
    vhi = INT64_MAX
    for t in range(C[C_NLOW, i]):
        x = f[T[T_LOW, i, t]]
        if x > vlo:
            vlo = x
    for t in range(C[C_NUP, i]):
        x = f[T[T_UP, i, t]]
        if x < vhi:
            vhi = x
    return vlo, vhi


@nb.njit(cache=True, _nrt=False)
def _build(i, f, T, C, ptr, idx, nlab, elab, vlabeled, elabeled, buf, skind, slo, shi, vlo, vhi, windowed, st):
    """Compute the candidate set of level i for the current prefix f[0:i].

    Result: skind[i] = -1 (a range slo..shi of idx) or r >= 0 (a range of buf[r]).
    With ``windowed`` the set is restricted to the open window (vlo, vhi) while it is
    built (allowed only for sets no later level reuses).
    """
    lab = C[C_VLAB, i]
    j = C[C_REUSE, i]
    npar = C[C_NPAR, i]
    chosen = -1
    if j >= 0:
        kind = skind[j]
        lo = slo[j]
        hi = shi[j]
        st[0] += 1
        st[2] += C[C_SAVED, i]
    else:
        kind = -1
        lo = 0
        hi = 0
        best = -1
        for t in range(npar):
            rlo, rhi = _row(ptr, nlab, f[T[T_PAR, i, t]], lab, vlabeled)
            if best < 0 or rhi - rlo < best:
                best = rhi - rlo
                chosen = t
                lo = rlo
                hi = rhi
    if windowed:
        if kind < 0:
            lo = _lower_bound(idx, lo, hi, vlo + 1)
            hi = _lower_bound(idx, lo, hi, vhi)
        else:
            src = buf[kind]
            lo = _lower_bound(src, lo, hi, vlo + 1)
            hi = _lower_bound(src, lo, hi, vhi)
    out = buf[i]
    for t in range(npar):
        if t == chosen:
            continue
        rlo, rhi = _row(ptr, nlab, f[T[T_PAR, i, t]], lab, vlabeled)
        if windowed:
            rlo = _lower_bound(idx, rlo, rhi, vlo + 1)
            rhi = _lower_bound(idx, rlo, rhi, vhi)
        if kind < 0:
            w = intersect(idx, lo, hi, idx, rlo, rhi, out)
        else:
            w = intersect(buf[kind], lo, hi, idx, rlo, rhi, out)
        kind = i
        lo = 0
        hi = w
        st[1] += 1
        if w == 0:
            break
    for t in range(C[C_NANTI, i]):
        if hi == lo:
            break
        rlo, rhi = _row(ptr, nlab, f[T[T_ANTI, i, t]], lab, vlabeled)
        if kind < 0:
            w = difference(idx, lo, hi, idx, rlo, rhi, out)
        else:
            w = difference(buf[kind], lo, hi, idx, rlo, rhi, out)
        kind = i
        lo = 0
        hi = w
        st[1] += 1
    if elabeled and hi > lo:
        need = False
        for t in range(npar):
            if T[T_PAREL, i, t] >= 0:
                need = True
        if need:
            w = 0
            for p in range(lo, hi):
                x = idx[p] if kind < 0 else buf[kind, p]
                ok = True
                for t in range(npar):
                    e = T[T_PAREL, i, t]
                    if e < 0:
                        continue
                    rlo, rhi = _row(ptr, nlab, f[T[T_PAR, i, t]], lab, vlabeled)
                    q = _lower_bound(idx, rlo, rhi, x)
                    if q >= rhi or idx[q] != x or elab[q] != e:
                        ok = False
                        break
                if ok:
                    out[w] = x
                    w += 1
            kind = i
            lo = 0
            hi = w
    skind[i] = kind
    slo[i] = lo
    shi[i] = hi


@nb.njit(inline="always")
def _window(i, f, T, C, ptr, idx, nlab, elab, vlabeled, elabeled, buf, skind, slo, shi, st):
    """Build level i's candidate set (or find it cached) and cut it to the symmetry bounds.

    Returns (kind, lo, hi, vlo, vhi): the candidates are ``idx[lo:hi]`` when kind < 0, else
    ``buf[kind, lo:hi]``; (vlo, vhi) are the exclusive bounds.
    """
    vlo, vhi = _bounds(i, f, T, C)
    _build(i, f, T, C, ptr, idx, nlab, elab, vlabeled, elabeled, buf, skind, slo, shi, vlo, vhi,
           C[C_CACHED, i] == 0, st)
    kind = skind[i]
    lo = slo[i]
    hi = shi[i]
    if kind < 0:
        lo = _lower_bound(idx, lo, hi, vlo + 1)
        hi = _lower_bound(idx, lo, hi, vhi)
    else:
        src = buf[kind]
        lo = _lower_bound(src, lo, hi, vlo + 1)
        hi = _lower_bound(src, lo, hi, vhi)
    return kind, lo, hi, vlo, vhi


@nb.njit(cache=True, _nrt=False)
def _count_last(i, f, T, C, ptr, idx, nlab, elab, vlabeled, elabeled, buf, skind, slo, shi, st):
    """|candidates of the last level inside the bounds| minus earlier images in that set."""
    kind, lo, hi, vlo, vhi = _window(i, f, T, C, ptr, idx, nlab, elab, vlabeled, elabeled, buf, skind, slo, shi, st)
    c = hi - lo
    for t in range(C[C_NINJ, i]):
        x = f[T[T_INJ, i, t]]
        if x <= vlo or x >= vhi:
            continue
        if kind < 0:
            q = _lower_bound(idx, lo, hi, x)
            if q < hi and idx[q] == x:
                c -= 1
        else:
            q = _lower_bound(buf[kind], lo, hi, x)
            if q < hi and buf[kind, q] == x:
                c -= 1
    return c


@nb.njit(cache=True, _nrt=False)
def _start_level(i, f, T, C, ptr, idx, nlab, elab, vlabeled, elabeled, buf, skind, slo, shi, pos, end, st):
    kind, lo, hi, vlo, vhi = _window(i, f, T, C, ptr, idx, nlab, elab, vlabeled, elabeled, buf, skind, slo, shi, st)
    pos[i] = lo
    end[i] = hi


@nb.njit(inline="always")
def _accept(i, c, f, T, C, deg):
    # one exit: an early-returning helper keeps a reference count on each array it touches, an NRT call per
    # array per candidate (la_gpm.dynamic.updates.pair_kept)
    ok = deg[c] >= C[C_MINDEG, i]
    for t in range(C[C_NINJ, i]):
        ok &= f[T[T_INJ, i, t]] != c
    return ok


@nb.njit(cache=True)
def search_buffers(k, maxd, idx):
    """The depth-first search's state for a k-vertex plan: candidate buffers (k rows of max-degree entries,
    ``idx``'s dtype), the partial match f and per-level set kinds, bounds and positions."""
    buf = np.empty((k, max(maxd, 1)), dtype=idx.dtype)
    f = np.zeros(k, dtype=np.int64)
    skind = np.full(k, -1, dtype=np.int64)
    slo = np.zeros(k, dtype=np.int64)
    shi = np.zeros(k, dtype=np.int64)
    pos = np.zeros(k, dtype=np.int64)
    end = np.zeros(k, dtype=np.int64)
    return buf, f, skind, slo, shi, pos, end


@nb.njit(cache=True)
def count_roots(roots, rlo, rhi, k, T, C, ptr, idx, nlab, elab, deg, vlabeled, elabeled, maxd, st):
    """Count the matches rooted at roots[rlo:rhi] (unique or embeddings, as the plan says)."""
    buf, f, skind, slo, shi, pos, end = search_buffers(k, maxd, idx)
    total = 0
    overflow = False
    for r in range(rlo, rhi):
        f[0] = roots[r]
        st[3] += 1
        if k == 2:
            c = _count_last(1, f, T, C, ptr, idx, nlab, elab, vlabeled, elabeled, buf, skind, slo, shi, st)
            if total > INT64_MAX - c:
                overflow = True
            total += c
            continue
        _start_level(1, f, T, C, ptr, idx, nlab, elab, vlabeled, elabeled, buf, skind, slo, shi, pos, end, st)
        lvl = 1
        while lvl >= 1:
            if pos[lvl] >= end[lvl]:
                lvl -= 1
                continue
            p = pos[lvl]
            pos[lvl] = p + 1
            kind = skind[lvl]
            c = idx[p] if kind < 0 else buf[kind, p]
            if not _accept(lvl, c, f, T, C, deg):
                continue
            f[lvl] = c
            st[3] += 1
            nx = lvl + 1
            if nx == k - 1:
                x = _count_last(nx, f, T, C, ptr, idx, nlab, elab, vlabeled, elabeled, buf, skind, slo, shi, st)
                if total > INT64_MAX - x:
                    overflow = True
                total += x
            else:
                _start_level(nx, f, T, C, ptr, idx, nlab, elab, vlabeled, elabeled, buf, skind, slo, shi, pos,
                             end, st)
                lvl = nx
    return total, overflow


@nb.njit(parallel=True, cache=True)
def count_plan(roots, bounds, k, T, C, ptr, idx, nlab, elab, deg, vlabeled, elabeled, maxd):
    """Parallel over chunks roots[bounds[c]:bounds[c+1]] (cost-balanced by the caller).

    Returns (counts per chunk, overflow flag per chunk, stats per chunk).
    """
    nchunks = bounds.shape[0] - 1
    counts = np.zeros(nchunks, dtype=np.int64)
    over = np.zeros(nchunks, dtype=np.bool_)
    stats = np.zeros((nchunks, N_STATS), dtype=np.int64)
    for c in nb.prange(nchunks):
        st = np.zeros(N_STATS, dtype=np.int64)
        t, o = count_roots(roots, bounds[c], bounds[c + 1], k, T, C, ptr, idx, nlab, elab, deg, vlabeled,
                            elabeled, maxd, st)
        counts[c] = t
        over[c] = o
        for s in range(N_STATS):
            stats[c, s] = st[s]
    return counts, over, stats


@nb.njit(parallel=True, cache=True)
def count_tasks(task_q, task_lo, task_hi, roots, Tall, Call, qtab, ptr, idx, nlab, elab, deg, vlabeled, elabeled,
                maxd):
    """The cpu batch (:func:`la_gpm.exact.cpu.count_plans_batch_cpu`): one parallel region over tasks, each a
    range roots[task_lo[t]:task_hi[t]] of query task_q[t], counted by :func:`count_roots` on that query's plan
    tables sliced out of the packed batch tables (``qtab``: offset in ``Tall``, offset in ``Call``, k per
    query). A module-level function, not a closure built per process, so that numba's disk cache serves it
    to every new process (a closure over dispatchers misses the cache: the dispatchers pickle with a
    per-process id). Returns (count per task, overflow flag per task)."""
    nt = task_q.shape[0]
    counts = np.zeros(nt, dtype=np.int64)
    over = np.zeros(nt, dtype=np.bool_)
    for t in nb.prange(nt):
        q = task_q[t]
        ot, oc, k = qtab[3 * q], qtab[3 * q + 1], qtab[3 * q + 2]
        T = Tall[ot:ot + 6 * k * k].reshape((6, k, k))
        C = Call[oc:oc + 10 * k].reshape((10, k))
        st = np.zeros(N_STATS, dtype=np.int64)
        c, o = count_roots(roots, task_lo[t], task_hi[t], k, T, C, ptr, idx, nlab, elab, deg, vlabeled, elabeled,
                           maxd, st)
        counts[t] = c
        over[t] = o
    return counts, over


@nb.njit(cache=True)
def count_plan_serial(roots, k, T, C, ptr, idx, nlab, elab, deg, vlabeled, elabeled, maxd):
    """One worker, one chunk: for small inputs, where starting a parallel region costs more than the work."""
    counts = np.zeros(1, dtype=np.int64)
    over = np.zeros(1, dtype=np.bool_)
    stats = np.zeros((1, N_STATS), dtype=np.int64)
    st = np.zeros(N_STATS, dtype=np.int64)
    t, o = count_roots(roots, 0, roots.shape[0], k, T, C, ptr, idx, nlab, elab, deg, vlabeled, elabeled, maxd, st)
    counts[0] = t
    over[0] = o
    for s in range(N_STATS):
        stats[0, s] = st[s]
    return counts, over, stats


@nb.njit(cache=True)
def list_plan(roots, state, out, order, k, T, C, ptr, idx, nlab, elab, deg, vlabeled, elabeled, buf, f, skind,
              slo, shi, pos, end, st):
    """Resumable listing: write up to ``out.shape[0]`` matches into ``out`` (column = pattern vertex).

    ``state`` = [next root, current level (0 = between roots), done flag]; the DFS
    stack (f, skind, slo, shi, pos, end, buf) persists between calls, so a caller can
    stream matches in chunks with bounded memory.  Returns the number of rows written.
    """
    cap = out.shape[0]
    w = 0
    ri = state[0]
    lvl = state[1]
    nroots = roots.shape[0]
    while w < cap:
        if lvl == 0:
            if ri >= nroots:
                state[2] = 1
                break
            f[0] = roots[ri]
            ri += 1
            if k == 1:
                out[w, order[0]] = f[0]
                w += 1
                continue
            _start_level(1, f, T, C, ptr, idx, nlab, elab, vlabeled, elabeled, buf, skind, slo, shi, pos, end, st)
            lvl = 1
            continue
        if pos[lvl] >= end[lvl]:
            lvl -= 1
            continue
        p = pos[lvl]
        pos[lvl] = p + 1
        kind = skind[lvl]
        c = idx[p] if kind < 0 else buf[kind, p]
        if not _accept(lvl, c, f, T, C, deg):
            continue
        f[lvl] = c
        if lvl == k - 1:
            for q in range(k):
                out[w, order[q]] = f[q]
            w += 1
        else:
            _start_level(lvl + 1, f, T, C, ptr, idx, nlab, elab, vlabeled, elabeled, buf, skind, slo, shi, pos,
                         end, st)
            lvl += 1
    state[0] = ri
    state[1] = lvl
    return w


@nb.njit(cache=True)
def label_sorted_csr(ptr, idx, vlab, elab, has_elab):
    """Rows re-sorted by (label of the neighbour, id); returns (idx', nlab', elab')."""
    n = ptr.shape[0] - 1
    nnz = idx.shape[0]
    out = np.empty(nnz, dtype=idx.dtype)
    nl = np.empty(nnz, dtype=np.int64)
    el = np.empty(nnz if has_elab else 1, dtype=np.int64)
    for v in range(n):
        lo = ptr[v]
        hi = ptr[v + 1]
        keys = np.empty(hi - lo, dtype=np.int64)
        for p in range(lo, hi):
            keys[p - lo] = vlab[idx[p]]
        perm = np.argsort(keys, kind="mergesort")  # stable: ids stay sorted within a label
        for q in range(hi - lo):
            p = lo + perm[q]
            out[lo + q] = idx[p]
            nl[lo + q] = keys[perm[q]]
            if has_elab:
                el[lo + q] = elab[p]
    return out, nl, el


# ------------------------------------------------------------------------------------------ k-cliques
