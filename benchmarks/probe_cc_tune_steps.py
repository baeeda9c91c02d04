"""Probe (session 41): the kernel choice of the GPU colour coding's first coloring, step by step (each candidate's
first run, its check against the gather kernel, its timed runs; wall clock after a device sync), as JSON lines
(benchmarks/results/probe_s41_cc_tune_steps_*_h200.jsonl).  Usage: python benchmarks/probe_cc_tune_steps.py SCALE
TEMPLATE [TEMPLATE ...]"""
import json, sys, time
import cupy as cp
import la_gpm
from la_gpm.color_coding import driver, gpu
from la_gpm.color_coding.cpu_kernels import coloring_keys
G = la_gpm.generators.graph500(int(sys.argv[1]))
def sync(): cp.cuda.Device().synchronize()
for name in sys.argv[2:]:
    *_, R = driver.prepare(G, name, "gpu", "float32", "auto")
    real_tv = gpu.GpuOps.time_variants
    def tv(self, X, Q, colors, p, repeat=3, check=True, rows=None):
        steps = []
        sync(); T0 = time.perf_counter()
        ref = None
        nrows = int(X.shape[0]) if rows is None else int(rows[1]) - int(rows[0])
        t = time.perf_counter(); vs = self.rooted_variants(p, rows=nrows); sync(); steps.append(("variants", time.perf_counter() - t))
        res = []
        for var in vs:
            t = time.perf_counter(); Y = self.spmm_rooted(X, Q, colors, p, var, rows=rows); sync(); w = time.perf_counter() - t
            t = time.perf_counter()
            if ref is None:
                ref = Y; float(gpu._max_abs_diff(ref))  # the scale (the before run: ref.max() and ref.min())
            else:
                float(gpu._max_abs_diff(Y, ref))  # the check (its value is not needed here)
            sync(); c = time.perf_counter() - t
            t = time.perf_counter(); del Y; sync(); d = time.perf_counter() - t
            ts = []
            for _ in range(repeat):
                t = time.perf_counter(); self.spmm_rooted(X, Q, colors, p, var, rows=rows); sync(); ts.append(time.perf_counter() - t)
            res.append((var, sorted(ts)[len(ts)//2]))
            steps.append(("/".join(map(str, var)), round(w, 4), round(c, 4), round(d, 4), [round(x, 4) for x in ts]))
        res.sort(key=lambda r: r[1])
        print(json.dumps({"template": name, "p": int(p), "W": int(Q.shape[2]), "total": round(time.perf_counter() - T0, 3),
                          "pool_GB": round(cp.get_default_memory_pool().total_bytes()/1e9, 1), "steps": steps}), flush=True)
        return res
    gpu.GpuOps.time_variants = tv
    t = time.time(); R.run(coloring_keys(1, 0, 1)); sync(); print(json.dumps({"template": name, "first_s": time.time() - t}), flush=True)
    gpu.GpuOps.time_variants = real_tv
    R = None; cp.get_default_memory_pool().free_all_blocks()
