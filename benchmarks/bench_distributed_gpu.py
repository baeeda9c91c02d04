"""Exact counts split over the GPUs of one machine through Dask (dask-cuda), against one GPU.

    python benchmarks/bench_distributed_gpu.py [--scale 20 --cliques 5 6 --patterns house]

One worker per visible GPU (``dask_cuda.LocalCUDACluster``: a process each, pinned to its device);
``la_gpm.distributed.count(G, P, backend="gpu")`` sends the graph to every worker once and each task
counts one work-balanced part (k-cliques: a range of degree ranks with the clique kernel; other
patterns: a range of plan roots with the trie engine). Per pattern: the single-GPU time in this
process (median after a warm-up, device synchronised), the cluster's first call (graph scattered,
the workers' device copies and kernels built) and its warm median, the counts checked equal, and
the speed-up of the warm cluster over one GPU. Writes
``benchmarks/results/distributed_gpu_<cpu|gpu>.json``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import machine, timeit, versions, write  # noqa: E402

import la_gpm  # noqa: E402
import la_gpm.distributed  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--cliques", type=int, nargs="*", default=[5, 6])
    ap.add_argument("--patterns", nargs="*", default=[])
    ap.add_argument("--parts", type=int, default=None, help="tasks per count (default: 4 per worker)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--name", default="distributed_gpu", help="results file stem")
    a = ap.parse_args(argv)
    import cupy as cp
    from dask_cuda import LocalCUDACluster
    from distributed import Client

    G = la_gpm.generators.rmat(a.scale, seed=1)
    ngpu = cp.cuda.runtime.getDeviceCount()
    rows = []
    payload = {"benchmark": "exact counts over the GPUs of one machine (dask-cuda) vs one GPU", "machine": machine(),
               "versions": versions(), "gpus": ngpu, "graph": f"R-MAT {a.scale}", "n": G.n, "m": G.m, "rows": rows}
    names = [f"{k}-clique" for k in a.cliques] + list(a.patterns)
    single = {}
    for name in names:
        med, runs, n = timeit(lambda name=name: la_gpm.count(G, name, backend="gpu"), repeat=a.repeat, sync=True,
                              budget_s=120)
        single[name] = (med, runs, n)
        print(f"one GPU: {name} {n} in {med:.3f} s", flush=True)
    with LocalCUDACluster(threads_per_worker=1, dashboard_address=None) as lc, Client(lc) as c:
        workers = len(c.scheduler_info()["workers"])
        payload["workers"] = workers
        for name in names:
            t = time.perf_counter()
            got = la_gpm.distributed.count(G, name, client=c, backend="gpu", parts=a.parts)
            first = time.perf_counter() - t
            med, runs, got2 = timeit(lambda name=name: la_gpm.distributed.count(G, name, client=c, backend="gpu",
                                                                                 parts=a.parts),
                                     repeat=a.repeat, warmup=0, budget_s=120)
            smed, sruns, want = single[name]
            if got != want or got2 != want:
                raise SystemExit(f"{name}: cluster counts {got}, {got2} differ from one GPU's {want}")
            rows.append({"pattern": name, "count": want, "one_gpu_seconds": smed, "one_gpu_runs": sruns,
                         "cluster_first_call_seconds": first, "cluster_seconds": med, "cluster_runs": runs,
                         "workers": workers, "speedup_vs_one_gpu": smed / med, "cluster_edges_per_s": G.m / med})
            print({k: v for k, v in rows[-1].items() if not k.endswith("runs")}, flush=True)
            write(a.name, payload)
    print("wrote", write(a.name, payload))


if __name__ == "__main__":
    main()
