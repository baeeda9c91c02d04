"""Triangle counting: la_gpm (every backend) against python-graphblas, igraph and networkx.

    python benchmarks/bench_triangles.py                 # CPU set: G(20000, 200000), wiki-Vote, R-MAT 18
    python benchmarks/bench_triangles.py --gpu           # R-MAT 20-22 on the GPU: schedule sweep, per-bin times
    python benchmarks/bench_triangles.py --gpu --gpu-only --graphs "R-MAT 22"
    python benchmarks/bench_triangles.py --quick         # karate and G(2000, 20000)

Suite ``triangles`` (the default). Writes triangles[_gpuonly]_<cpu|gpu>.json.
"""

from __future__ import annotations

import time

import numpy as np
from harness import Family, Record, arg, check, copy_bandwidth, graph, once, peer, split_names, timeit, to_igraph

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
    from la_gpm.triangles.gpu import _arc_bins, _launch, _launch_hubs
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
        med, times, _ = timeit(lambda: _launch_hubs(ptr, idx, hubs, smem, tot, None), repeat=repeat, sync=True)
        rows.append({"impl": "la_gpm[gpu] hub rows (shared-memory hash)", "hubs": int(hubs.shape[0]),
                     "shared_bytes": smem, "seconds": med, "runs": times, "edges_per_s": G.m / med})
    for arcs, grp in bins:
        tot = cp.zeros(1, dtype=cp.uint64)
        med, times, _ = timeit(lambda: _launch(ptr, idx, src, arcs, int(arcs.shape[0]), grp, True, tot, None),
                               repeat=repeat, sync=True)
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


if __name__ == "__main__":
    FAMILY.main()
