"""Fixed per-call costs of the exact motif census on small graphs, and the floors under them.

    python benchmarks/bench_census_small.py --gpu      # GPU and CPU -> census_small_gpu.json
    python benchmarks/bench_census_small.py            # CPU only   -> census_small_cpu.json

For karate, citeseer, email-Eu-core and R-MAT 16 (Graph500 initiator, seed 1), k = 3, 4, 5 (the default
method; R-MAT 16's 5-census is left out: 265 s on the GPU, census5_rmat16_gpu.json):

* ``la_gpm.motifs`` on the GPU and on the CPU backend (all cores), counts checked equal (and citeseer
  against the published counts of tests/known.py) before timing;
* the same counts without the result frame (``motifs._census_gpu`` / the CPU closed form, hybrid or
  enumeration), and the frame alone (``motifs._frame``);
* k <= 4 on the GPU: the global-counter path (census4_closed + cliques.cu / triangles.cu, forced with
  ``SMALL_SHARED_BYTES = 0``: the code path before census_small) and census_small's kernel alone (CUDA
  events); on the CPU the k = 4 totals kernel on the calling thread against the thread pool;
* floors: an empty CuPy kernel launch + synchronize, the same + an 8-byte device-to-host copy, a bare
  synchronize, and ``la_gpm.motifs`` on a 3-vertex graph (the Python path with nothing to count).

Medians of many runs after warm-up, the device synchronised around each GPU run (benchmarks/harness.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent))

from harness import check, machine, timeit, versions, write  # noqa: E402

import numpy as np  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm.motifs import driver as M
from la_gpm.patterns.classes import classes, to_induced  # noqa: E402
from la_gpm.motifs.driver import census  # noqa: E402

DATA = Path(os.environ.get("LA_GPM_SHARED_DATA") or ROOT.parents[1] / "shared" / "data")
COPY_BW = 2.89e12


def _counts(df):
    return [int(c) for c in df["count"]]


def _reps(first):
    """(repeat, warmup) for a call whose first run took ``first`` seconds."""
    if first > 1.0:
        return 1, 0
    if first > 0.05:
        return 5, 1
    return 51, 5


def cpu_counts(G, k):
    """What census(G, k, backend="cpu") computes, without the frame (its default methods)."""
    cls = classes(k)
    if k <= 4:
        return to_induced(cls.M, M._closed_form_noninduced(G, k))
    N = M._hybrid5_noninduced(G, decline=True)
    return M._enumerate(G, k, cls, False) if N is None else to_induced(cls.M, N)


def gpu_floors(cp):
    nop = cp.RawKernel(r'extern "C" __global__ void la_nop(unsigned long long* x) {}', "la_nop")
    x = cp.zeros(1, dtype=cp.uint64)
    dev = cp.cuda.Device()

    def launch_sync():
        nop((1,), (32,), (x,))
        dev.synchronize()

    def launch_copy():
        nop((1,), (32,), (x,))
        return x.get()

    out = {}
    out["empty_launch_synchronize_s"] = timeit(launch_sync, repeat=501, warmup=20)[0]
    out["empty_launch_8byte_copy_back_s"] = timeit(launch_copy, repeat=501, warmup=20)[0]
    out["synchronize_only_s"] = timeit(dev.synchronize, repeat=501, warmup=20)[0]
    out["alloc_48_bytes_s"] = timeit(lambda: cp.empty(6, dtype=cp.uint64), repeat=501, warmup=20)[0]
    return out


def small_kernel_seconds(G, k, cp):
    """Device time of census_small alone (CUDA events around the launch), median of 51."""
    from la_gpm.motifs import gpu as gc
    from la_gpm.device import kernel, sm_count
    shape = gc.small_shape(G, k)
    if shape is None or not G.m:
        return None
    wpb, shm = shape
    ptr, idx, _, _ = gc._device_desc(G)
    kern = kernel("la_gpm.motifs", "census", "census_small")
    regs = gc._SMALL_REGS.get(cp.cuda.Device().id, 64)
    threads = wpb * 32
    per_sm = max(1, min(2048 // threads, 65536 // (regs * threads), (227 << 10) // (shm + 1024), 32))
    grid = int(min(G.n, sm_count() * per_sm))
    _, scratch = gc._small_scratch(cp)
    out = cp.empty(6, dtype=cp.uint64)
    args = (ptr, idx, np.int32(G.n), np.int32((G.n + 31) // 32), np.int32(k), scratch, out)
    times = []
    for i in range(56):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        kern((grid,), (threads,), args, shared_mem=shm)
        b.record()
        b.synchronize()
        if i >= 5:
            times.append(cp.cuda.get_elapsed_time(a, b) * 1e-3)
    return float(np.median(times)), {"grid": grid, "warps_per_block": wpb, "shared_bytes": shm, "regs": regs}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--graphs", default="karate,citeseer,email-Eu-core,R-MAT 16")
    args = ap.parse_args(argv)
    import numba
    cp = None
    if args.gpu:
        import cupy as cp
        from la_gpm.motifs import gpu as gc
    from tests.known import CITESEER_INDUCED_3, CITESEER_INDUCED_4
    rows = []
    payload = {"benchmark": "census fixed costs on small graphs", "machine": machine(), "versions": versions(),
               "numba_threads": numba.get_num_threads(), "rows": rows,
               "note": "medians after warm-up; graph and its cached relabelling / device copy built in the warm-up; "
                       "GPU runs synchronised; counts checked CPU == GPU (and citeseer == published) first"}
    try:
        import pandas as pd
        payload["versions"]["pandas"] = pd.__version__
    except ImportError:
        pass
    tiny = la_gpm.generators.gnm(60, 300, seed=0)
    for k in (3, 4, 5):     # compile every kernel before timing
        census(tiny, k, backend="cpu")
        if cp is not None:
            census(tiny, k, backend="gpu")
    tri = la_gpm.Graph.from_edges(np.array([0, 1, 0]), np.array([1, 2, 2]), n=3)
    payload["census_triangle_graph_cpu_s"] = timeit(lambda: census(tri, 3, backend="cpu"), repeat=501, warmup=20)[0]
    if cp is not None:
        payload["floors"] = gpu_floors(cp)
        payload["census_triangle_graph_gpu_s"] = timeit(lambda: census(tri, 3, backend="gpu"), repeat=501,
                                                        warmup=20, sync=True)[0]
    makers = {"karate": lambda: la_gpm.datasets.load("karate"),
              "citeseer": lambda: la_gpm.read_graph(DATA / "citeseer.edgelist"),
              "email-Eu-core": lambda: la_gpm.read_graph(DATA / "email-Eu-core.txt"),
              "R-MAT 16": lambda: la_gpm.generators.rmat(16, seed=1)}
    for label in args.graphs.split(","):
        G = makers[label]()
        for k in (3, 4, 5):
            if label == "R-MAT 16" and k == 5:
                continue
            cls = classes(k)
            t = time.perf_counter()
            cpu_df = census(G, k, backend="cpu")
            rep, warm = _reps(time.perf_counter() - t)
            c_med, c_runs, cpu_df = timeit(lambda: census(G, k, backend="cpu"), repeat=rep, warmup=warm, budget_s=20)
            if label == "citeseer" and k in (3, 4):
                check(f"citeseer k={k} cpu", dict(zip(cpu_df["name"], _counts(cpu_df))),
                      CITESEER_INDUCED_3 if k == 3 else CITESEER_INDUCED_4)
            want = _counts(cpu_df)
            row = {"graph": label, "n": G.n, "m": G.m, "max_degree": int(G.max_degree), "k": k,
                   "cpu_method": cpu_df.attrs["method"], "counts": dict(zip(cpu_df["name"], _counts(cpu_df))),
                   "cpu_seconds": c_med, "cpu_runs": c_runs,
                   "cpu_compute_only_seconds": timeit(lambda: cpu_counts(G, k), repeat=rep, warmup=warm,
                                                      budget_s=20)[0],
                   "frame_seconds": timeit(lambda: M._frame(cls, k, want, True, "x"), repeat=201, warmup=20)[0],
                   "csr_read_floor_seconds": ((G.n + 1) * 8 + G.nnz * 4) / COPY_BW}
            if k == 4:
                from la_gpm.motifs.cpu import census4_totals, census4_totals_serial
                ptr, idx, _ = M._descending(G)
                row["cpu_census4_totals_serial_s"] = timeit(lambda: census4_totals_serial(ptr, idx), repeat=rep,
                                                            warmup=1, budget_s=10)[0]
                row["cpu_census4_totals_pool_s"] = timeit(lambda: census4_totals(ptr, idx, M._nchunks()), repeat=rep,
                                                          warmup=1, budget_s=10)[0]
            if cp is not None:
                g_med, g_runs, gpu_df = timeit(lambda: census(G, k, backend="gpu"), repeat=max(rep, 21), warmup=3,
                                               sync=True, budget_s=20)
                check(f"{label} k={k} gpu", _counts(gpu_df), _counts(cpu_df))
                row.update(gpu_method=gpu_df.attrs["method"], gpu_seconds=g_med, gpu_runs=g_runs,
                           speedup_vs_cpu=c_med / g_med,
                           gpu_compute_only_seconds=timeit(lambda: M._census_gpu(G, k, cls, True, "auto"),
                                                           repeat=max(rep, 21), warmup=3, sync=True, budget_s=20)[0])
                if k <= 4:
                    row["gpu_small_shape"] = gc.small_shape(G, k)
                    ks = small_kernel_seconds(G, k, cp)
                    if ks is not None:
                        row["census_small_kernel_seconds"], row["census_small_launch"] = ks
                    saved = gc.SMALL_SHARED_BYTES
                    gc.SMALL_SHARED_BYTES = 0
                    try:
                        gl_med, _, gl_df = timeit(lambda: census(G, k, backend="gpu"), repeat=21, warmup=3, sync=True,
                                                  budget_s=20)
                    finally:
                        gc.SMALL_SHARED_BYTES = saved
                    check(f"{label} k={k} gpu global path", _counts(gl_df), _counts(cpu_df))
                    row["gpu_global_path_seconds"] = gl_med
            rows.append(row)
            print({x: (f"{y * 1e3:.3f} ms" if isinstance(y, float) else y) for x, y in row.items()
                   if x not in ("counts", "cpu_runs", "gpu_runs")}, flush=True)
    print("floors:", payload.get("floors"), "census(triangle):", payload["census_triangle_graph_cpu_s"],
          payload.get("census_triangle_graph_gpu_s"))
    print("wrote", write("census_small", payload))


if __name__ == "__main__":
    main()
