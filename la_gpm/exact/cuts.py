"""Breadth-first GPU counting over a trie of partial matches, within a memory budget (cuTS).

The plan (``la_gpm.patterns.plan``, compiled without reuse: a breadth-first level keeps no
candidate sets) is run level by level: level j stores, for every partial match of j+1
vertices, its last data vertex (int32) and the index of its parent in level j-1 (int64) --
the parent-pointer trie of cuTS (Xiang et al., SC 2021; ``notes/003_cuts.md``), 12 bytes per
partial match whatever its length. Each level is computed in two passes of
``la_gpm/exact/cuts.cu``: a sizing pass (children per entry), a prefix sum, and a writing pass
at those offsets; the last level is only counted.

Memory: when a level would not fit its share of ``config.memory_budget``, the parent level is
cut into consecutive slices whose children fit, and each slice is expanded to the end before
the next one (depth-first over chunks, breadth-first inside a chunk), so peak memory is bounded
by the budget for any graph and pattern and nothing a user asks for fails for lack of memory
unless one entry's children alone exceed it.
"""

from __future__ import annotations

import time

import numpy as np

from ..exceptions import InvalidArgument
from ..device import block_size, cupy, kernel, oom_guard, sm_count
from .dumato import device_engine_arrays
from .plans import plan_roots, resolve_budget

MAX_K = 32
BYTES_PER_ENTRY = 4 + 8  # vertex (int32) + parent index (int64)


def _group_for(mean_len: float) -> int:
    g = 4
    while g < 32 and g < mean_len:
        g *= 2
    return g


def count_plan_bfs(G, plan, *, memory_budget: int | None = None, part=None):
    """Count the matches of ``plan`` (a :class:`la_gpm.patterns.plan.Plan` whose ``reuse`` is all -1)
    on the GPU; returns ``(count as Python int, stats dict)``. ``part=(i, nparts)`` counts only the
    matches whose first vertex lies in the i-th work-balanced range of roots."""
    cp = cupy()

    t0 = time.perf_counter()
    if any(r >= 0 for r in plan.reuse):
        raise InvalidArgument("the breadth-first GPU engine runs plans compiled with reuse=False")
    k = plan.k
    if k > MAX_K:
        raise InvalidArgument(f"the breadth-first GPU engine takes patterns of at most {MAX_K} vertices; got {k}")
    budget = resolve_budget(memory_budget)
    vl = plan.vertex_labels is not None
    el = plan.edge_labels is not None
    _, roots = plan_roots(G, plan, part)
    stats = {"engine": "gpu trie (breadth-first, chunked)", "roots": int(roots.shape[0]),
             "level_entries": [0] * k, "chunks": 0, "peak_bytes": 0}
    stats["level_entries"][0] = int(roots.shape[0])
    if k == 1 or roots.shape[0] == 0:
        stats["seconds"] = time.perf_counter() - t0
        return (int(roots.shape[0]) if k == 1 else 0), stats
    # every stored level must hold one entry's children (at most max degree) or the slicing cannot progress
    need = max(1, k - 2) * max(1, G.max_degree) * BYTES_PER_ENTRY + 16 * max(1, k - 2)
    if k > 2 and budget < need:
        raise InvalidArgument(f"memory_budget={budget} bytes is below what one partial match's children need in "
                              f"each stored level ({need} bytes = {max(1, k - 2)} levels x max degree "
                              f"{G.max_degree} x {BYTES_PER_ENTRY} bytes); raise memory_budget")
    ptr, idx, nlab, elab, deg = device_engine_arrays(G, vl, el)
    T, C = plan.tables()
    kern = kernel(__package__, "cuts", "trie_level")
    sm = sm_count()
    block = block_size()
    # each stored level may take an equal share of the budget (levels 1..k-2 are stored)
    cap_entries = max(1, budget // (BYTES_PER_ENTRY * max(1, k - 2) + 16))
    group = _group_for(G.m / max(G.n, 1) * 2.0)
    with oom_guard(f"breadth-first counting of a {k}-vertex pattern"):
        dT = cp.asarray(T)
        dC = cp.asarray(C)
        total = cp.zeros(1, dtype=cp.uint64)
        Vs = [cp.asarray(roots.astype(np.int32))]
        Ps = [cp.zeros(1, dtype=cp.int64)]  # level 0 has no parents
        live = []  # bytes of the stored levels 1.. (the roots are an input, like the graph)

        def launch(lvl, e0, e1, mode, counts=None, offsets=None, outV=None, outP=None):
            n = e1 - e0
            grid = int(max(1, min((n * group + block - 1) // block, sm * 32)))
            vptr = cp.asarray(np.array([a.data.ptr for a in Vs], dtype=np.uint64))
            pptr = cp.asarray(np.array([a.data.ptr for a in Ps], dtype=np.uint64))
            null = np.uint64(0)
            kern((grid,), (block,),
                 (ptr, idx, nlab, elab, deg, np.int32(vl), np.int32(el), dT, dC, np.int32(k), np.int32(lvl),
                  vptr, pptr, np.int64(e0), np.int64(e1), np.int32(group), np.int32(mode),
                  counts if counts is not None else null, offsets if offsets is not None else null,
                  outV if outV is not None else null, outP if outP is not None else null, total))

        def expand(lvl):
            """Levels 0..lvl-1 are in Vs/Ps; count every completion of the last one."""
            n = int(Vs[lvl - 1].shape[0])
            if lvl == k - 1:
                launch(lvl, 0, n, 2)
                return
            counts = cp.empty(n, dtype=cp.int64)
            launch(lvl, 0, n, 0, counts=counts)
            csum = cp.cumsum(counts)
            nchild = int(csum[-1]) if n else 0
            stats["level_entries"][lvl] += nchild
            if nchild == 0:
                return
            starts = csum - counts
            # consecutive slices of the parent level whose children fit cap_entries
            if nchild <= cap_entries:
                cuts = [0, n]
            else:  # greedy: each slice takes entries while its children fit (at least one entry)
                hc = csum.get()
                cuts = [0]
                while cuts[-1] < n:
                    a = cuts[-1]
                    done = int(hc[a - 1]) if a else 0
                    cuts.append(max(a + 1, int(np.searchsorted(hc, done + cap_entries, side="right"))))
                del hc
            del csum
            for a, b in zip(cuts[:-1], cuts[1:]):
                if a == b:
                    continue
                base = int(starts[a])
                m = int(starts[b - 1] + counts[b - 1]) - base
                offs = starts[a:b] - base
                outV = cp.empty(m, dtype=cp.int32)
                outP = cp.empty(m, dtype=cp.int64)
                launch(lvl, a, b, 1, offsets=offs, outV=outV, outP=outP)
                del offs
                stats["chunks"] += 1
                Vs.append(outV)
                Ps.append(outP)
                live.append(outV.nbytes + outP.nbytes)
                stats["peak_bytes"] = max(stats["peak_bytes"], sum(live))
                expand(lvl + 1)
                Vs.pop()
                Ps.pop()
                live.pop()
                del outV, outP

        expand(1)
        got = int(total.get()[0])
    if got >= 1 << 63:
        raise OverflowError("the count exceeded 2**63; split the graph into vertex ranges or count a smaller pattern")
    stats["level_entries"][k - 1] = got  # the last level is counted, not stored
    stats["seconds"] = time.perf_counter() - t0
    return got, stats
