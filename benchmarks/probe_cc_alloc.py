"""Probe (session 40): cudaMalloc / cudaFree of 1-57 GiB, then u15-2 on Graph500 22 on the GPU with its tables in
their own allocations and from CuPy's pool, alternating (benchmarks/results/probe_s40_direct_vs_pool_h200.txt)."""
import time
import cupy as cp
import la_gpm
from la_gpm.color_coding import driver
from la_gpm.color_coding.cpu_kernels import coloring_keys
dev = cp.cuda.Device()
res = {"alloc": {}}
for gb in (1, 8, 32, 57):
    ts = []
    for _ in range(3):
        dev.synchronize(); t = time.perf_counter(); m = cp.cuda.memory.Memory(gb << 30); dev.synchronize(); t1 = time.perf_counter()
        del m; dev.synchronize(); t2 = time.perf_counter(); ts.append((round((t1 - t) * 1e3, 2), round((t2 - t1) * 1e3, 2)))
    res["alloc"][gb] = ts
print("cudaMalloc / cudaFree ms (GiB: [(malloc, free)]):", res["alloc"], flush=True)
G = la_gpm.generators.graph500(22)
*_, R = driver.prepare(G, "u15-2", "gpu", "float32", "auto")
keys = coloring_keys(1, 0, 1)
t = time.perf_counter(); v0 = R.run(keys)[0][0]; dev.synchronize(); print("first", time.perf_counter() - t, flush=True)
for mode in (True, False, True, False):
    R.direct_tables = mode
    ts = []
    for _ in range(2):
        prof = {}
        t = time.perf_counter(); v = R.run(keys, profile=prof)[0][0]; dev.synchronize(); ts.append(round(time.perf_counter() - t, 4))
    print("direct" if mode else "pool", ts, {k: round(x, 3) for k, x in prof.items()}, v == v0, flush=True)
    cp.get_default_memory_pool().free_all_blocks()
