"""Triangle counting: la_gpm (every backend) against python-graphblas, igraph and networkx.

    python benchmarks/bench_triangles.py                 # CPU set: G(20000, 200000), wiki-Vote, R-MAT 18
    python benchmarks/bench_triangles.py --gpu           # R-MAT 20-22 on the GPU: schedule sweep, per-bin times
    python benchmarks/bench_triangles.py --gpu --gpu-only --graphs "R-MAT 22"
    python benchmarks/bench_triangles.py --quick         # karate and G(2000, 20000)
    python benchmarks/bench_triangles.py networkx        # the networkx backend: email-Enron, G(200000, 2000000)

Suite ``triangles`` (the default). Writes triangles[_gpuonly]_<cpu|gpu>.json.
Suite ``networkx``: networkx's triangles / clustering / average_clustering / transitivity against the same
calls with ``backend="la_gpm"`` (cold: conversion included; warm: the converted graph cached). Writes
networkx_backend_<cpu|gpu>.json.
"""

from __future__ import annotations

import time

import numpy as np
from harness import (HOLDOUT, Family, Record, arg, check, copy_bandwidth, graph, once, peer, split_names, timeit,
                     to_igraph)

import la_gpm

FAMILY = Family(__doc__, default="triangles")
CPU_GRAPHS = "G(20000,200000),wiki-Vote,R-MAT 18"
GPU_GRAPHS = ["R-MAT 20", "R-MAT 21", "R-MAT 22"]


def graphblas_direct(G):
    """What a python-graphblas user writes: L = tril(A); ntri = sum(L<L> = L plus_pair L')."""
    import graphblas as gb
    src = np.repeat(np.arange(G.n), G.degrees)
    A = gb.Matrix.from_coo(src, G.indices, True, nrows=G.n, ncols=G.n)
    L = gb.select.tril(A, -1).new()

    def run():
        C = gb.Matrix(gb.dtypes.INT64, G.n, G.n)
        C(mask=L.S) << gb.semiring.plus_pair[gb.dtypes.INT64](L @ L.T)
        return int(C.reduce_scalar(gb.monoid.plus[gb.dtypes.INT64]).new().value or 0)
    return run


def igraph_fn(G):
    g = to_igraph(G)
    deg = np.asarray(g.degree(), dtype=np.float64)

    def run():
        c = np.asarray(g.transitivity_local_undirected(mode="zero"), dtype=np.float64)
        return int(round(float((c * deg * (deg - 1) / 2).sum()) / 3))
    return run


def networkx_fn(G):
    import networkx as nx
    g = G.to_networkx()
    return lambda: sum(nx.triangles(g).values()) // 3


def gpu_rows(label, G, ref, repeat, first_call):
    """The GPU kernel's schedules (uniform lanes per arc with / without pivots, arc-binned), the time per bin
    of the binned schedule (for kernel tuning) and the default schedule's one-off set-up."""
    import cupy as cp

    from la_gpm.device import device_arc_sources, device_csr
    from la_gpm.triangles.gpu import _arc_bins, _arcs_call, _hub_call
    from la_gpm.triangles.gpu import triangle_count as gpu_tc
    rows = []
    variants = [(f"uniform group={g}", dict(schedule="uniform", group=g)) for g in (4, 8, 16, 32)]
    variants += [(f"uniform group={g} pivots", dict(schedule="uniform", group=g, pivots=True)) for g in (16, 32)]
    variants += [("bucketed no pivots", dict(schedule="bucketed", pivots=False)),
                 ("bucketed all pivots", dict(schedule="bucketed", pivots=True))]
    variants += [(f"bucketed hub_min={h}", dict(schedule="bucketed", hub_min=h)) for h in (0, 32, 64, 256, 1024)]
    for name, kw in variants:
        med, times, got = timeit(lambda kw=kw: gpu_tc(G, **kw), repeat=repeat, sync=True)
        check(f"{label}/gpu-{name}", got, ref)
        rows.append({"impl": f"la_gpm[gpu] {name}", "seconds": med, "runs": times, "edges_per_s": G.m / med})
    ptr, idx = device_csr(G, "R")
    src = device_arc_sources(G, "R")
    bins, (hubs, smem) = _arc_bins(G)
    if hubs is not None:
        tot = cp.zeros(1, dtype=cp.uint64)
        f, g_, b_, args, sm_ = _hub_call(ptr, idx, hubs, smem, tot, None)
        med, times, _ = timeit(lambda: f(g_, b_, args, shared_mem=sm_), repeat=repeat, sync=True)
        rows.append({"impl": "la_gpm[gpu] hub rows (shared-memory hash)", "hubs": int(hubs.shape[0]),
                     "shared_bytes": smem, "seconds": med, "runs": times, "edges_per_s": G.m / med})
    for arcs, grp in bins:
        tot = cp.zeros(1, dtype=cp.uint64)
        f, g_, b_, args, sm_ = _arcs_call(ptr, idx, src, arcs, int(arcs.shape[0]), grp, True, tot, None)
        med, times, _ = timeit(lambda: f(g_, b_, args, shared_mem=sm_), repeat=repeat, sync=True)
        rows.append({"impl": f"la_gpm[gpu] bin group={grp}", "arcs": int(arcs.shape[0]), "seconds": med,
                     "runs": times, "edges_per_s": G.m / med})
    if first_call:  # what the default schedule's one-off set-up (arc binning) costs
        G.clear_device_cache()
        sec, got = once(lambda: gpu_tc(G))
        check(f"{label}/gpu-first-call", got, ref)
        rows.append({"impl": "la_gpm[gpu] first call (graph copy + arc binning)", "seconds": sec,
                     "edges_per_s": G.m / sec})
    return rows


def bench_graph(label, G, peers, repeat, gpu, gpu_only=False):
    ref = la_gpm.count(G, "triangle", backend="cpu")
    backends = [b for b in la_gpm.available_backends() if (gpu or b != "gpu") and not (gpu_only and b != "gpu")]
    rows = []
    for b in backends:
        med, times, got = timeit(lambda b=b: la_gpm.count(G, "triangle", backend=b), repeat=repeat, sync=(b == "gpu"))
        check(f"{label}/la_gpm-{b}", got, ref)
        rows.append({"impl": f"la_gpm[{b}]", "seconds": med, "runs": times, "edges_per_s": G.m / med})
    if gpu:
        rows += gpu_rows(label, G, ref, repeat, "gpu" in backends)
    for name, make, limit in peers:
        if G.m > limit:
            rows.append({"impl": name, "skipped": f"not run above {limit:,} edges (too slow for this budget)"})
            continue
        slow = name == "networkx"
        row = peer(name, lambda make=make: make(G), want=ref, label=label, repeat=1 if slow else repeat,
                   warmup=0 if slow else 1)
        if "seconds" in row:
            row["edges_per_s"] = G.m / row["seconds"]
        rows.append(row)
    base = {r["impl"]: r["seconds"] for r in rows if "seconds" in r}
    if "python-graphblas" in base and "la_gpm[graphblas]" in base:
        print(f"  la_gpm[graphblas] / python-graphblas = {base['la_gpm[graphblas]'] / base['python-graphblas']:.2f}")
    if gpu and "la_gpm[gpu]" in base:
        p, i = G.oriented()   # physical floor: read the DAG's CSR once at the measured copy bandwidth
        rows.append({"impl": "floor: DAG CSR read once", "bytes": p.nbytes + i.nbytes})
    for r in rows:
        if "seconds" in r:
            print(f"  {label:<14} {r['impl']:<22} {r['seconds'] * 1e3:10.2f} ms  {r['edges_per_s'] / 1e6:9.1f} Medges/s")
        elif "skipped" in r:
            print(f"  {label:<14} {r['impl']:<22} skipped: {r['skipped']}")
    return {"graph": label, "n": G.n, "m": G.m, "pattern": "triangle", "count": ref, "results": rows}


@FAMILY.suite(gpu="optional", repeats=5, graphs=CPU_GRAPHS,
              quick={"graphs": "karate,G(2000,20000)", "repeats": 2},
              args=[arg("--gpu-only", action="store_true", help="with --gpu: only the GPU kernel (and its sweep)")])
def triangles(a):
    """Triangles with every backend against python-graphblas, igraph and networkx (CPU set); with --gpu the
    R-MAT graphs (default 20, 21, 22) on the GPU: schedule sweep, per-bin times, first call, the floor of
    reading the DAG once at the measured copy bandwidth, python-graphblas beside it."""
    peers = [("python-graphblas", graphblas_direct, 10**9), ("igraph", igraph_fn, 10**8),
             ("networkx", networkx_fn, 300_000)]
    graphs = a.graphs
    rec = Record(a, "triangles_gpuonly" if a.gpu_only else "triangles", "triangles", rows="graphs")
    if a.gpu:
        bw = copy_bandwidth("gpu", 1 << 30)
        rec["copy_bandwidth_Bps"] = bw
        print(f"device-to-device copy: {bw / 1e12:.2f} TB/s")
        if graphs == split_names(CPU_GRAPHS):   # not chosen: the GPU set
            graphs = GPU_GRAPHS
        peers = [] if a.gpu_only else peers[:1]
    for label in graphs:
        t = time.perf_counter()
        G = graph(label)
        print(f"{label}: {G}  (built in {time.perf_counter() - t:.1f} s)")
        res = bench_graph(label, G, peers, a.repeats, a.gpu, a.gpu_only)
        if a.gpu:
            gpu_row = next(r for r in res["results"] if r["impl"] == "la_gpm[gpu]")
            floor = next(r for r in res["results"] if r["impl"].startswith("floor"))
            floor["seconds_at_copy_bw"] = floor["bytes"] / bw
            gpu_row["fraction_of_floor"] = floor["seconds_at_copy_bw"] / gpu_row["seconds"]
        rec.add(res, echo=False)
    rec.done()


# ------------------------------------------------------------------ suite networkx: the networkx backend
NX_FUNCTIONS = ("triangles", "clustering", "average_clustering", "transitivity")
NX_GRAPHS = "email-Enron,G(200000,2000000)"


def nx_graph(label):
    """A benchmark graph by name: email-Enron (the holdout's edge list), else :func:`harness.graph`."""
    if label == "email-Enron":
        return la_gpm.read_graph(HOLDOUT / "el" / "email-Enron.txt")
    return graph(label)


def same_result(label, got, want, rel=1e-12):
    """Abort unless ``got`` is networkx's ``want``: ints exactly, floats to ``rel`` (relative), dicts with the same
    keys in the same order."""
    def close(x, y):
        if isinstance(y, float) or isinstance(x, float):
            return x == y or abs(x - y) <= rel * max(abs(x), abs(y))
        return type(x) is type(y) and x == y
    if isinstance(want, dict):
        ok = isinstance(got, dict) and list(got) == list(want) and all(close(got[k], want[k]) for k in want)
    else:
        ok = close(got, want)
    if not ok:
        raise SystemExit(f"RESULT MISMATCH in {label}: la_gpm differs from networkx; benchmark aborted")


def cold(fn, g, repeat):
    """(median, runs, result) of ``fn()`` with ``g``'s conversion cache emptied before each call."""
    times, result = [], None
    for _ in range(max(1, repeat)):
        g.__networkx_cache__.clear()
        dt, result = once(fn, sync=False)
        times.append(dt)
    return float(np.median(times)), times, result


@FAMILY.suite("networkx", repeats=3, graphs=NX_GRAPHS, quick={"graphs": "karate,G(2000,20000)", "repeats": 2},
              args=[arg("--once-above", type=int, default=500_000,
                        help="graphs with more edges: networkx's own code and the cold calls timed once")])
def networkx_backend(a):
    """networkx's triangles, clustering, average_clustering and transitivity against ``backend="la_gpm"`` on
    email-Enron and G(200000, 2000000): networkx's own code, la_gpm cold (the conversion cache emptied
    first: conversion + counting + the function) and warm (the converted graph and its counts cached), the
    conversion and the count alone; every result checked against networkx's (ints exactly, floats to 1e-12)."""
    import networkx as nx

    from la_gpm.nx_backend.interface import BackendInterface
    nx.config.warnings_to_ignore.add("cache")
    rec = Record(a, "networkx_backend", "networkx backend: networkx vs backend='la_gpm'",
                 la_gpm_backend=la_gpm.config.backend,
                 once_above_edges=a.once_above)
    k = nx.karate_club_graph()   # compile the numba kernels outside the clock
    for f in NX_FUNCTIONS:
        getattr(nx, f)(k, backend="la_gpm")
    for label in a.graphs:
        t = time.perf_counter()
        G = nx_graph(label)
        g = G.to_networkx()
        print(f"{label}: {G}  (built + to_networkx in {time.perf_counter() - t:.1f} s)", flush=True)
        big = G.m > a.once_above
        reps = 1 if big else a.repeats
        med, times, conv = timeit(lambda: BackendInterface.convert_from_nx(g), repeat=reps, warmup=0)
        rec.add({"graph": label, "n": G.n, "m": G.m, "step": "conversion (convert_from_nx)", "seconds": med,
                 "runs": times})
        cg = conv.graph
        med, times, _ = timeit(lambda: la_gpm.triangles_per_vertex(cg), repeat=a.repeats, warmup=1)
        rec.add({"graph": label, "n": G.n, "m": G.m, "step": "count (la_gpm.triangles_per_vertex)", "seconds": med,
                 "runs": times})
        for f in NX_FUNCTIONS:
            fn = getattr(nx, f)
            nx_med, nx_times, want = timeit(lambda fn=fn: fn(g, backend="networkx"), repeat=reps,
                                            warmup=0 if big else 1, budget_s=120)
            c_med, c_times, got = cold(lambda fn=fn: fn(g, backend="la_gpm"), g, reps)
            same_result(f"{label}/{f}/cold", got, want)
            w_med, w_times, got = timeit(lambda fn=fn: fn(g, backend="la_gpm"), repeat=a.repeats, warmup=0)
            same_result(f"{label}/{f}/warm", got, want)
            rec.add({"graph": label, "n": G.n, "m": G.m, "function": f,
                     "networkx_s": nx_med, "networkx_runs": nx_times,
                     "la_gpm_cold_s": c_med, "la_gpm_cold_runs": c_times,
                     "la_gpm_warm_s": w_med, "la_gpm_warm_runs": w_times,
                     "speedup_cold": nx_med / c_med, "speedup_warm": nx_med / w_med,
                     "timed_once": big, "checked": "equal to networkx (ints exact, floats 1e-12 relative)"})
        g = conv = cg = None   # free this graph's copies before the next one
    rec.done()


if __name__ == "__main__":
    FAMILY.main()
