"""Exact counts split over the GPUs of one machine through Dask (dask-cuda), against one GPU.

    python benchmarks/bench_distributed.py [distributed_gpu] [--scale 20 --cliques 5 6 --patterns house]
    python benchmarks/bench_distributed.py --quick          # R-MAT 12, 4-cliques

Suite ``distributed_gpu`` (the default). Writes distributed_gpu_<tag>.json.
"""

from __future__ import annotations

from harness import Family, Record, arg, once, timeit

FAMILY = Family(__doc__, default="distributed_gpu")


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
