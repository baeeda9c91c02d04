"""Probe (session 40): one color-coding coloring of the templates named on the command line on Graph500 22 on the
GPU, with the memory in use, held by CuPy's pool and free on the device after each step of the plan (the trace in
benchmarks/results/probe_s40_cc_memory_*_h200.txt).  Usage: python benchmarks/probe_cc_memory.py u15-1 [u15-2 ...]"""
import sys
import time
import cupy as cp
import la_gpm
from la_gpm.color_coding import driver
from la_gpm.color_coding.cpu_kernels import coloring_keys
pool = cp.get_default_memory_pool()
t = time.time(); G = la_gpm.generators.graph500(22); print("graph", G.n, G.nnz, round(time.time() - t, 1), flush=True)
trace = []
real_tick = driver.Runner._tick
def tick(self, profile, kind, tk):
    r = real_tick(self, profile, kind, tk)
    trace.append((kind, round(pool.used_bytes() / 1e9, 1), round(pool.total_bytes() / 1e9, 1),
                  round(cp.cuda.runtime.memGetInfo()[0] / 1e9, 1)))
    return r
driver.Runner._tick = tick
for name in sys.argv[1:]:
    *_, R = driver.prepare(G, name, "gpu", "float32", "auto")
    free = R.ops.free_bytes()
    print(name, "peak", R.plan.peak_cols, "streamed", R.streamed()[2:], "free_bytes", free / 1e9, "blocks", R.blocks(), flush=True)
    trace.clear()
    keys = coloring_keys(1, 0, 1)
    try:
        t = time.time(); v = R.run(keys, profile={})[0][0]; cp.cuda.Device().synchronize(); t1 = time.time() - t
        ts = []
        for _ in range(2):
            t = time.time(); R.run(keys); cp.cuda.Device().synchronize(); ts.append(time.time() - t)
        print(name, "value", v, "first", t1, "then", ts, flush=True)
    except Exception as e:
        print(name, "FAILED", type(e).__name__, str(e)[:300], flush=True)
    print(name, "trace (kind, used GB, pool GB, device free GB):", trace, flush=True)
    R = None; pool.free_all_blocks()
