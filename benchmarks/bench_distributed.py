"""la_gpm.distributed over 1, 2 and 4 workers of one machine (one worker per GPU), and against one GPU.

    python benchmarks/bench_distributed.py scaling --gpu --workers 1 2 4     # the rows of issue 20 (below)
    python benchmarks/bench_distributed.py scaling --quick                   # small graphs, CPU workers, < 1 min
    python benchmarks/bench_distributed.py distributed_gpu [--scale 20 --cliques 5 6 --patterns house]

Suite ``scaling`` (the default), rows of issue 20: k-cliques (k = 5..7) and the 5-vertex census on R-MAT
20..22, u12 color coding on Graph500-22, the 7-vertex estimated census on R-MAT 22; each for every worker
count of ``--workers`` that the machine has GPUs for (``--backend cpu``: cores), with the speed-up over one
worker and each worker's share of the work. Writes distributed_scaling_<tag>.json.
Suite ``distributed_gpu``: exact counts on every GPU (dask-cuda) against one GPU in this process.

Workers: ``dask_cuda.LocalCUDACluster`` on the first w GPUs where dask-cuda is installed, else a Dask
``SpecCluster`` of w nanny-managed worker processes with ``CUDA_VISIBLE_DEVICES=i`` each (one thread per
worker; ``NUMBA_NUM_THREADS`` = cores / w, so the cpu parts of a worker use its share of the cores).
"""

from __future__ import annotations

import logging
import os
import threading
import time

from harness import Family, Record, arg, graph, once, timeit

FAMILY = Family(__doc__, default="scaling")


def _visible_gpus() -> int:
    try:
        import cupy as cp
        return int(cp.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 -- no CuPy / no driver
        return 0


def cluster(w: int, gpu: bool):
    """(cluster, kind): w workers, one thread each; one GPU each with ``gpu``. Each worker process gets
    ``NUMBA_NUM_THREADS`` = cores / w (Dask's nanny environment; this process's numba is left alone)."""
    import dask
    threads = str(max(1, (os.cpu_count() or 1) // w))
    with dask.config.set({"distributed.nanny.environ.NUMBA_NUM_THREADS": threads}):
        if gpu:
            try:
                from dask_cuda import LocalCUDACluster
                return LocalCUDACluster(CUDA_VISIBLE_DEVICES=list(range(w)), n_workers=w, threads_per_worker=1,
                                        dashboard_address=None), "dask_cuda.LocalCUDACluster"
            except ImportError:
                pass
        from distributed import Nanny, Scheduler, SpecCluster
        workers = {f"w{i}": {"cls": Nanny, "options": {"nthreads": 1, "silence_logs": logging.WARNING, "env": dict(
            {"NUMBA_NUM_THREADS": threads}, **({"CUDA_VISIBLE_DEVICES": str(i)} if gpu else {}))}} for i in range(w)}
        sc = SpecCluster(workers=workers, scheduler={"cls": Scheduler, "options": {"dashboard_address": None}},
                         silence_logs=logging.WARNING)
        return sc, "distributed.SpecCluster" + (" (CUDA_VISIBLE_DEVICES per worker)" if gpu else " (cpu)")


def per_worker(stream, calls: int) -> dict:
    """{worker: {tasks, compute_s, transfer_s}} per call, from the Dask task stream of ``calls`` calls."""
    out = {}
    for t in stream:
        w = out.setdefault(t["worker"], {"tasks": 0, "compute_s": 0.0, "transfer_s": 0.0})
        w["tasks"] += 1
        for ss in t.get("startstops", ()):
            key = "compute_s" if ss["action"] == "compute" else "transfer_s" if ss["action"] == "transfer" else None
            if key:
                w[key] += ss["stop"] - ss["start"]
    return {k: {x: v / max(calls, 1) for x, v in d.items()} for k, d in out.items()}


def same(what, a, b, rtol: float = 1e-9) -> bool:
    """Results equal: exact counts exactly; estimates to ``rtol`` relative (float tables; equal colorings:
    1e-9 for float64 tables, 1e-5 for float32, whose sums may round differently in another batch size)."""
    if what in ("count", "census"):
        return a == b
    fa = [x for x in _flat(a) if isinstance(x, float)]
    fb = [x for x in _flat(b) if isinstance(x, float)]
    others = [x for x in _flat(a) if not isinstance(x, float)] == [x for x in _flat(b) if not isinstance(x, float)]
    return others and len(fa) == len(fb) and all(abs(x - y) <= rtol * max(abs(x), abs(y), 1e-300)
                                                 for x, y in zip(fa, fb))


def _flat(x):
    if isinstance(x, (tuple, list)):
        for y in x:
            yield from _flat(y)
    else:
        yield float(x) if hasattr(x, "dtype") and x.dtype.kind == "f" else x


def with_limit(fn, limit_s, c):
    """(seconds, result) of ``fn()``, or (None, why) when it ran past ``limit_s``: then the workers are
    restarted (which cancels the call's tasks) and the call is abandoned."""
    box = {}

    def target():
        t = time.perf_counter()
        try:
            box["r"] = fn()
        except BaseException as e:  # noqa: BLE001 -- reported below
            box["e"] = e
        box["t"] = time.perf_counter() - t
    th = threading.Thread(target=target, daemon=True)
    th.start()
    th.join(limit_s)
    if th.is_alive():
        c.restart()
        th.join(30)
        return None, f"did not finish within {limit_s} s (workers restarted)"
    if "e" in box:
        raise box["e"]
    return box["t"], box["r"]


def rows_of(a):
    """The benchmark rows: (row id, graph name, what, call(G, c, w) -> comparable result)."""
    import la_gpm.distributed as D
    be = "gpu" if a.gpu else "cpu"
    out = []
    for s in a.scales:
        for k in a.cliques:
            out.append((f"{k}-clique R-MAT {s}", f"R-MAT {s}", "count",
                        lambda G, c, w, k=k: D.count(G, f"{k}-clique", client=c, backend=be)))
    for s in a.census_scales:
        out.append((f"{a.census_k}-census R-MAT {s}", f"R-MAT {s}", "census",
                    lambda G, c, w: tuple(D.census(G, a.census_k, client=c)["count"])))
    if a.cc_graph:
        def cc(G, c, w):
            per = max(1, a.cc_batch // w)
            est = D.estimate(G, a.cc_template, client=c, parts=a.cc_batch // per, per_part=per, backend=be, seed=1,
                             eps=a.cc_eps, max_colorings=a.cc_colorings, dtype=a.cc_dtype)
            return est.value, est.n_colorings
        out.append((f"{a.cc_template} color coding {a.cc_graph}", a.cc_graph, "estimate", cc))
    if a.me_graph:
        def me(G, c, w):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")       # an unconverged run (max_colorings) is still a timing
                df = D.estimate_census(G, a.me_k, client=c, batch=a.me_batch, backend=be, seed=1, eps=a.me_eps,
                                       max_colorings=a.me_colorings, samples_per_coloring=a.me_samples)
            me.last = df.attrs
            return tuple(df["key"]), tuple(df["count"]), df.attrs["colorings"]
        out.append((f"{a.me_k}-vertex estimated census {a.me_graph}", a.me_graph, "estimate_census", me))
    return out


@FAMILY.suite(gpu="optional", repeats=3,
              quick={"scales": [10], "cliques": [4, 5], "census_scales": [9], "census_k": 4, "cc_graph": "graph500-10",
                     "cc_template": "u7", "cc_colorings": 16, "me_graph": "R-MAT 10", "me_k": 5, "me_colorings": 16,
                     "me_samples": 4096, "workers": [1, 2], "repeats": 1},
              args=[arg("--workers", type=int, nargs="*", default=[1, 2, 4],
                        help="worker counts (one GPU each; counts above the visible GPUs are skipped)"),
                    arg("--scales", type=int, nargs="*", default=[20, 21, 22], help="R-MAT scales of the clique rows"),
                    arg("--cliques", type=int, nargs="*", default=[5, 6, 7]),
                    arg("--census-scales", type=int, nargs="*", default=[20, 21, 22],
                        help="R-MAT scales of the census rows (distributed.census: ESU enumeration on the "
                             "workers' cores)"),
                    arg("--census-k", type=int, default=5),
                    arg("--census-limit", type=float, default=60.0,
                        help="seconds per census call; past it the row is skipped (and larger scales for "
                             "that worker count)"),
                    arg("--cc-graph", default="graph500-22", help="color-coding row's graph ('' skips it)"),
                    arg("--cc-template", default="u12"),
                    arg("--cc-colorings", type=int, default=64, help="colorings per color-coding call"),
                    arg("--cc-eps", type=float, default=0.001, help="small: the run takes all its colorings"),
                    arg("--cc-dtype", default="float32",
                        help="table dtype (float32, the estimate's default: u12 on graph500-22 in float64 needs more "
                             "than one 80 GB card; each coloring's total is computed alike on every worker count, "
                             "so the estimates stay equal)"),
                    arg("--cc-batch", type=int, default=16,
                        help="colorings per pass (split over the workers: the same estimate for every count)"),
                    arg("--me-graph", default="R-MAT 22", help="estimated census row's graph ('' skips it)"),
                    arg("--me-k", type=int, default=7),
                    arg("--me-batch", type=int, default=8, help="estimate_census batch (the same table for "
                                                                "every worker count)"),
                    arg("--me-eps", type=float, default=0.1),
                    arg("--me-colorings", type=int, default=None, help="max_colorings of the estimated census"),
                    arg("--me-samples", type=int, default=None, help="samples_per_coloring (default: the backend's)"),
                    arg("--limit", type=float, default=400.0, help="stop starting new rows after this many seconds")])
def scaling(a):
    """Each row on w = 1, 2, 4 workers (one GPU each): the first call (graph scattered, device copies and
    kernels built on the workers) and the median of the warm calls; the results must be equal for every w
    (exact counts; the estimates with the same seed and batch are equal by construction); the speed-up of
    the warm call over one worker; per worker, the tasks and their compute and transfer seconds (Dask task
    stream) of the last warm call."""
    from distributed import Client, get_task_stream

    t_start = time.perf_counter()
    gpus = _visible_gpus()
    devices = gpus if a.gpu else (os.cpu_count() or 1)
    counts = [w for w in a.workers if w <= devices]
    rec = Record(a, "distributed_scaling", "la_gpm.distributed over 1, 2, 4 workers (one GPU each)",
                 backend="gpu" if a.gpu else "cpu", gpus=gpus, worker_counts=counts,
                 skipped_worker_counts=[w for w in a.workers if w > devices])
    rows = rows_of(a)
    graphs = {}
    base = {}              # row id -> (warm seconds on the smallest worker count, its result)
    census_dead = set()    # worker counts whose census ran past the limit (larger scales skipped)
    for w in counts:
        lc, kind = cluster(w, a.gpu)
        with lc, Client(lc) as c:
            c.wait_for_workers(w, timeout=300)
            env = c.run(lambda: (os.environ.get("NUMBA_NUM_THREADS"), os.environ.get("CUDA_VISIBLE_DEVICES")))
            rec.payload.setdefault("worker_env", {})[str(w)] = {k: {"NUMBA_NUM_THREADS": v[0],
                                                                   "CUDA_VISIBLE_DEVICES": v[1]}
                                                               for k, v in env.items()}
            print(f"--- {w} worker(s): {kind}; per worker (NUMBA_NUM_THREADS, CUDA_VISIBLE_DEVICES): "
                  f"{sorted(env.values())}", flush=True)
            for rid, gname, what, call in rows:
                if time.perf_counter() - t_start > a.limit:
                    rec.add({"row": rid, "workers": w, "skipped": f"time limit of the run ({a.limit} s)"})
                    continue
                if gname not in graphs:
                    graphs[gname] = graph(gname)
                G = graphs[gname]
                row = {"row": rid, "graph": gname, "n": G.n, "m": G.m, "call": what, "workers": w, "cluster": kind}
                try:
                    if what == "census":
                        if w in census_dead:
                            rec.add(dict(row, skipped="a smaller census ran past --census-limit on this worker count"))
                            continue
                        first, got = with_limit(lambda: call(G, c, w), a.census_limit, c)
                        if first is None:
                            census_dead.add(w)
                            rec.add(dict(row, skipped=got))
                            continue
                    else:
                        first, got = once(lambda: call(G, c, w), sync=False)
                    with get_task_stream(c) as ts:
                        med, runs, got2 = timeit(lambda: call(G, c, w), repeat=a.repeats, warmup=0, budget_s=120)
                    rtol = 1e-5 if what == "estimate" and a.cc_dtype == "float32" else 1e-9
                    if not same(what, got2, got, rtol):
                        raise SystemExit(f"{rid}: two calls on {w} workers differ: {got} vs {got2}")
                    if rid in base and not same(what, base[rid][1], got, rtol):
                        raise SystemExit(f"{rid}: {w} workers give {got}, {counts[0]} worker(s) gave {base[rid][1]}")
                    base.setdefault(rid, (med, got))
                    row.update(first_call_seconds=first, seconds=med, runs=runs,
                               speedup_vs_1_worker=base[rid][0] / med if counts[0] == 1 else None,
                               per_worker=per_worker(ts.data, len(runs)))
                    if what == "count":
                        row["count"] = got
                    elif what == "census":
                        row["counts"] = list(got)
                    elif what == "estimate":
                        row.update(value=got[0], colorings=got[1])
                    else:
                        attrs = call.last
                        row.update(classes=len(got[0]), colorings=got[2], samples=attrs["samples"],
                                   converged=attrs["converged"], batch=attrs["batch"],
                                   per_worker_colorings={k: v for k, v in attrs["workers"].items()})
                    rec.add(row)
                except SystemExit:
                    raise
                except Exception as e:  # noqa: BLE001 -- a row that fails is recorded, the others still run
                    rec.add(dict(row, error=f"{type(e).__name__}: {str(e)[:600]}"))
    rec.done()


@FAMILY.suite(gpu="only", repeats=3, quick={"scale": 12, "cliques": [4], "repeats": 2},
              args=[arg("--scale", type=int, default=20, help="R-MAT scale"),
                    arg("--cliques", type=int, nargs="*", default=[5, 6]),
                    arg("--patterns", nargs="*", default=[]),
                    arg("--parts", type=int, default=None, help="tasks per count (default: 4 per worker)")])
def distributed_gpu(a):
    """One worker per visible GPU (dask_cuda.LocalCUDACluster: a process each, pinned to its device);
    la_gpm.distributed.count(G, P, backend="gpu") sends the graph to every worker once and each task counts one
    work-balanced part (k-cliques: a range of degree ranks with the clique kernel; other patterns: a range of
    plan roots with the trie engine). Per pattern: the single-GPU time in this process (median after a
    warm-up, device synchronised), the cluster's first call (graph scattered, the workers' device copies and
    kernels built) and its warm median, the counts checked equal, and the speed-up of the warm cluster over
    one GPU."""
    import cupy as cp
    from dask_cuda import LocalCUDACluster
    from distributed import Client

    import la_gpm.distributed

    G = la_gpm.generators.rmat(a.scale, seed=1)
    rec = Record(a, "distributed_gpu", "exact counts over the GPUs of one machine (dask-cuda) vs one GPU",
                 gpus=cp.cuda.runtime.getDeviceCount(), graph=f"R-MAT {a.scale}", n=G.n, m=G.m)
    names = [f"{k}-clique" for k in a.cliques] + list(a.patterns)
    single = {}
    for name in names:
        single[name] = timeit(lambda name=name: la_gpm.count(G, name, backend="gpu"), repeat=a.repeats, sync=True,
                              budget_s=120)
        print(f"one GPU: {name} {single[name][2]} in {single[name][0]:.3f} s", flush=True)
    with LocalCUDACluster(threads_per_worker=1, dashboard_address=None) as lc, Client(lc) as c:
        rec["workers"] = workers = len(c.scheduler_info()["workers"])

        def cluster(name):
            return la_gpm.distributed.count(G, name, client=c, backend="gpu", parts=a.parts)
        for name in names:
            first, got = once(lambda: cluster(name), sync=False)
            med, runs, got2 = timeit(lambda: cluster(name), repeat=a.repeats, warmup=0, budget_s=120)
            smed, sruns, want = single[name]
            if got != want or got2 != want:
                raise SystemExit(f"{name}: cluster counts {got}, {got2} differ from one GPU's {want}")
            rec.add({"pattern": name, "count": want, "one_gpu_seconds": smed, "one_gpu_runs": sruns,
                     "cluster_first_call_seconds": first, "cluster_seconds": med, "cluster_runs": runs,
                     "workers": workers, "speedup_vs_one_gpu": smed / med, "cluster_edges_per_s": G.m / med})
    rec.done()


if __name__ == "__main__":
    FAMILY.main()
