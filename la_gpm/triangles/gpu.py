"""GPU triangle counting: the masked product C<U> = U·U over the degree-ordered DAG U (vertices
renamed by degree rank, so hub lists sit together in memory), one lane group per DAG arc.

cuSPARSE SpGEMM (through cupyx) cannot apply a mask, so C = U·U would materialise every
wedge; the kernel in ``la_gpm/triangles/triangles.cu`` counts only closed wedges and reads each list a
bounded number of times.

Two schedules:

* ``"bucketed"`` (default): the arcs are binned once per graph by their work (length of the
  shorter of the two lists to intersect; cached on the device with the graph). Arcs with no
  work are never visited, and each bin runs with a group width that fits it (4 lanes for
  short lists ... a full warp for long ones), each with shared-memory search pivots.
  Measured on the H100 (benchmarks/results/triangles_gpuonly_gpu.json): R-MAT 22 98.9 ms
  binned with pivots, 108.9 ms binned without, 109.8 ms uniform 32 lanes, 407 ms uniform 4 lanes.
  Rows of hubs (DAG out-degree >= ``HUB_MIN``) leave the bins for ``tri_count_hubs``: one block
  per hub keeps N+(u) in a shared-memory hash table and probes the neighbours' lists against it
  (no binary search in global memory for the heaviest arcs; docs/gpu_triangles.md). Measured on the
  H100 (triangles_hub_gpu.json): R-MAT 22 98.8 ms without hub rows, 62.6 ms with HUB_MIN = 64.
* ``"uniform"``: every arc, one group width (``group``); no set-up, used for small graphs.
"""

from __future__ import annotations

import functools

import numpy as np

from ..device import (Launches, block_size, cupy, device_arc_sources, device_arc_table, device_csr, kernel, oom_guard,
                      sm_count)

SCHEDULES = ("auto", "bucketed", "uniform")
GROUPS = (1, 2, 4, 8, 16, 32)
# bins of arc work (shorter-list length) -> lanes per arc
BINS = ((1, 4, 4), (5, 16, 8), (17, 64, 16), (65, 1 << 31, 32))
BUCKET_MIN_ARCS = 1 << 16  # below this the uniform kernel's single launch wins
TUNE_MAX_ARCS = 1 << 22    # from here the bucketed schedule wins; between the two, auto_schedule times both once
TUNE_RUNS = 3
HUB_MIN = 64               # DAG out-degree from which a row goes to the shared-memory hash kernel (0: none)
HUB_KFACTOR = 8            # a hub arc probes N+(v) unless it is this many times longer than u's tail
HUB_BLOCK = 512
_SMEM_DEFAULT = 48 * 1024  # dynamic shared memory without the opt-in attribute
_SMEM_OPTIN = 128 * 1024


def default_group(G) -> int:
    """Lanes per DAG arc for the uniform schedule: the power of two nearest the mean DAG
    out-degree, in [4, 32]."""
    mean = G.m / max(G.n, 1)
    g = 4
    while g < 32 and g < mean:
        g *= 2
    return g


def _hub_kernel():
    """(kernel, shared-memory bytes it may use): the opt-in limit where the driver grants it."""
    return _hub_kernel_on(cupy().cuda.runtime.getDevice())


@functools.lru_cache(maxsize=None)
def _hub_kernel_on(device: int):
    """_hub_kernel for ``device`` (the current one), its attribute set once."""
    k = kernel(__package__, "triangles", "tri_count_hubs")
    try:
        k.max_dynamic_shared_size_bytes = _SMEM_OPTIN
        return k, _SMEM_OPTIN
    except Exception:  # noqa: BLE001 -- older driver/CuPy: stay at the default limit
        return k, _SMEM_DEFAULT


def _hash_cap(deg: int) -> int:
    """Slots of a hub's table: the power of two >= 2·deg (at least 64), as the kernel computes it."""
    cap = 64
    while cap < 2 * deg:
        cap *= 2
    return cap


def _max_hub_degree(smem_limit: int) -> int:
    """The largest out-degree whose table (4-byte slots) fits ``smem_limit`` bytes."""
    cap = 64
    while 2 * cap * 4 <= smem_limit:
        cap *= 2
    return cap // 2


def _arc_bins(G, hub_min: int = HUB_MIN):
    """(bins, hubs): per bin (device array of arc ids, group); the hub rows (device int32, heaviest
    first) and the shared-memory bytes their largest table needs. Built once per graph and device."""
    cp = cupy()

    def build(ptr, idx, src, narcs):
        work = cp.empty(narcs, dtype=cp.int32)
        bs = block_size()
        kernel(__package__, "triangles", "tri_arc_work")((max(1, min(4096, -(-narcs // bs))),), (bs,),
                                            (ptr, idx, src, np.int64(narcs), work))
        hubs, smem = None, 0
        if hub_min > 0:
            deg = cp.diff(ptr)
            _, limit = _hub_kernel()
            cand = cp.flatnonzero((deg >= hub_min) & (deg <= _max_hub_degree(limit)))
            if cand.shape[0]:
                # a hub's work: the lists of its out-neighbours (what its warps read), heaviest first
                vdeg = deg[idx]
                csum = cp.concatenate([cp.zeros(1, dtype=cp.int64), cp.cumsum(vdeg)])
                hw = csum[ptr[cand + 1]] - csum[ptr[cand]]
                hubs = cand[cp.argsort(-hw)].astype(cp.int32)
                smem = int(4 * _hash_cap(int(deg[cand].max())))
                is_hub = cp.zeros(ptr.shape[0] - 1, dtype=cp.bool_)
                is_hub[cand] = True
                work[is_hub[src]] = 0                                        # their arcs leave the bins
        dtype = cp.int32 if narcs < (1 << 31) else cp.int64
        bins = []
        for lo, hi, group in BINS:
            sel = cp.flatnonzero((work >= lo) & (work <= hi)).astype(dtype)
            if sel.shape[0]:
                bins.append((sel, group))
        return bins, (hubs, smem)
    return device_arc_table(G, f"tri_bins:{hub_min}", "binning arcs for triangle counting", build)


def _hub_call(ptr, idx, hubs, smem, total, pv):
    """The hub kernel's call: (function, grid, block, args, shared memory bytes)."""
    k, _ = _hub_kernel()
    sm = sm_count()
    nh = int(hubs.shape[0])
    return (k, (int(min(nh, sm * 8)),), (HUB_BLOCK,),
            (ptr, idx, hubs, np.int32(nh), np.int32(HUB_KFACTOR), total, pv if pv is not None else np.uint64(0)),
            smem)


def _arcs_call(ptr, idx, src, arcs, narcs, group, pivots, total, pv):
    """The arc kernel's call over ``arcs`` (None: every arc) with ``group`` lanes an arc: (function, grid, block,
    args, shared memory bytes)."""
    cp = cupy()
    if group not in GROUPS:
        raise ValueError(f"group must be a power of two <= 32; got {group}")
    block = block_size()
    groups_per_block = block // group
    sm = sm_count()
    grid = int(max(1, min((narcs + groups_per_block - 1) // groups_per_block, sm * 32)))
    name = "tri_count_arcs64" if arcs is not None and arcs.dtype == cp.int64 else "tri_count_arcs"
    return (kernel(__package__, "triangles", name), (grid,), (block,),
            (ptr, idx, src, arcs if arcs is not None else np.uint64(0), np.int64(narcs), np.int32(group),
             np.int32(1 if pivots else 0), total, pv if pv is not None else np.uint64(0)),
            block * 4 if pivots else 0)


def _calls(G, total, pv, group=None, schedule="auto", pivots=None, hub_min=None):
    """The kernel calls that count G's triangles into ``total`` (and ``pv``), in launch order."""
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}; got {schedule!r}")
    ptr, idx = device_csr(G, "R")
    src = device_arc_sources(G, "R")
    narcs = int(idx.shape[0])
    if not narcs:
        return []
    if schedule == "auto":
        schedule = "uniform" if group is not None else auto_schedule(G, narcs)
    if schedule == "uniform":
        g = default_group(G) if group is None else group
        return [_arcs_call(ptr, idx, src, None, narcs, g, bool(pivots), total, pv)]
    bins, (hubs, smem) = _arc_bins(G, HUB_MIN if hub_min is None else hub_min)
    calls = [] if hubs is None else [_hub_call(ptr, idx, hubs, smem, total, pv)]
    for arcs, g in bins:
        calls.append(_arcs_call(ptr, idx, src, arcs, int(arcs.shape[0]), g, True if pivots is None else pivots,
                                total, pv))
    return calls


def _run(G, per_vertex: bool, group: int | None = None, schedule: str = "auto", pivots: bool | None = None,
         hub_min: int | None = None):
    cp = cupy()
    with oom_guard("triangle counting"):
        total = cp.zeros(1, dtype=cp.uint64)
        pv = cp.zeros(G.n, dtype=cp.uint64) if per_vertex else None
        for f, grid, block, args, smem in _calls(G, total, pv, group, schedule, pivots, hub_min):
            f(grid, block, args, shared_mem=smem)
    return total, pv


def repeat_count(G) -> Launches:
    """G's triangle count bound for repeat calls: the default schedule's kernel calls with their grids, arguments and
    output buffer made once; a call returns the count.  One binding per graph, device and configuration version,
    kept with the graph's device copies (``G.clear_device_cache()`` drops it) and shared by every caller: the
    engine table's repeat counts (:func:`la_gpm.engines.repeatable`) and the 3-vertex census's closed form
    (:func:`la_gpm.motifs.gpu.closed_form_noninduced`).  (On email-Enron a count took 119 us, 50 of them the kernels
    and about 45 Python: the engine table, the checks, the schedule and kernel look-ups and a fresh output buffer
    each call.)"""
    from ..config import config
    cp = cupy()
    kept = G.device_cache(f"gpu:{cp.cuda.runtime.getDevice()}:R:triangle_launches", dict)
    bound = kept.get(config.version)
    if bound is None:
        kept.clear()          # a configuration change may move the schedule: bound again
        with oom_guard("triangle counting"):
            total = cp.zeros(1, dtype=cp.uint64)
            calls = _calls(G, total, None)
        bound = kept[config.version] = Launches(cp.cuda.runtime.getDevice(), total, calls, _first)
    return bound


def _first(host) -> int:
    return int(host[0])


def auto_schedule(G, narcs: int) -> str:
    """The schedule of ``schedule="auto"``: uniform below BUCKET_MIN_ARCS arcs (one launch, no set-up),
    bucketed from TUNE_MAX_ARCS (binned work with hub rows: 1.4x faster on R-MAT 20 and 22); in between,
    where neither wins everywhere (the bins' extra launches against their balance), the faster of the two
    as timed once per graph and device (whole call, host included, best of TUNE_RUNS; kept with the
    graph). Both schedules give the same count, so the choice only moves time."""
    if narcs < BUCKET_MIN_ARCS:
        return "uniform"
    if narcs >= TUNE_MAX_ARCS:
        return "bucketed"
    return G.device_cache(f"gpu:{cupy().cuda.runtime.getDevice()}:R:tri_schedule", lambda: _tune(G))


def _tune(G) -> str:
    import time
    best = {}
    for schedule in ("uniform", "bucketed"):
        for i in range(TUNE_RUNS + 1):       # the first run builds the bins (and loads the kernels): not timed
            t = time.perf_counter()
            total, _ = _run(G, False, schedule=schedule)
            total.get()
            if i:
                best[schedule] = min(best.get(schedule, float("inf")), time.perf_counter() - t)
    return min(best, key=best.get)


def triangle_count(G, group: int | None = None, schedule: str = "auto", pivots: bool | None = None,
                   hub_min: int | None = None) -> int:
    """Triangles of G on the current device (``group``/``schedule``/``pivots``/``hub_min``: kernel
    tuning knobs for benchmarks; the defaults pick by graph size; ``hub_min=0`` turns the hub kernel
    off)."""
    total, _ = _run(G, False, group, schedule, pivots, hub_min)
    return int(total.get()[0])


def triangles_per_vertex(G):
    _, pv = _run(G, True)
    return pv.get().astype(np.int64)[G.degree_rank]  # back from rank order to vertex ids
