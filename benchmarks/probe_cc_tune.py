"""Probe (session 41): where the first coloring's kernel choice goes on the GPU, and what a cheaper choice would
pick.  For each template on Graph500 SCALE: the first coloring with every rooted SpMM choice (``GpuOps._choose``)
timed, and for each choice every candidate's warm-up and median times on the rows the choice used and on its
first 2^16 and 2^18 rows; then two later colorings.  JSON lines on stdout (benchmarks/results/probe_s41_cc_tune_*).
Usage: python benchmarks/probe_cc_tune.py SCALE TEMPLATE [TEMPLATE ...] (PROBE_SUB=0: the first coloring and its
choices only, without the extra timings)"""
import json
import os
import sys
import time

import cupy as cp

import la_gpm
from la_gpm.color_coding import driver, gpu
from la_gpm.color_coding.cpu_kernels import coloring_keys


def timed(ops, X, Q, colors, p, var, rows, repeat=3):
    a, b = cp.cuda.Event(), cp.cuda.Event()
    a.record()
    ops.spmm_rooted(X, Q, colors, p, var, rows=rows)
    b.record()
    b.synchronize()
    warm = cp.cuda.get_elapsed_time(a, b) / 1e3
    ts = []
    for _ in range(max(repeat, 1)):
        a.record()
        ops.spmm_rooted(X, Q, colors, p, var, rows=rows)
        b.record()
        b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b) / 1e3)
    return warm, sorted(ts)[len(ts) // 2]


def main():
    scale = int(sys.argv[1])
    t = time.time()
    G = la_gpm.generators.graph500(scale)
    print(json.dumps({"graph": f"graph500-{scale}", "n": G.n, "nnz": G.nnz, "build_s": round(time.time() - t, 1)}),
          flush=True)
    for name in sys.argv[2:]:
        *_, R = driver.prepare(G, name, "gpu", "float32", "auto")

        real_tv = gpu.GpuOps.time_variants
        log = []

        def time_variants(self, X, Q, colors, p, repeat=3, check=True, rows=None):
            t0 = time.perf_counter()
            res = real_tv(self, X, Q, colors, p, repeat=repeat, check=check, rows=rows)
            cp.cuda.Device().synchronize()
            rec = {"p": int(p), "rows": None if rows is None else [int(rows[0]), int(rows[1])],
                   "table_rows": int(X.shape[0]), "width": int(Q.shape[2]) if Q.ndim == 3 else None,
                   "tune_s": round(time.perf_counter() - t0, 3), "chosen": list(res[0][0]),
                   "candidates": {}}
            r0 = 0 if rows is None else int(rows[0])
            r1 = int(X.shape[0]) if rows is None else int(rows[1])
            for var, med in res:
                rec["candidates"]["/".join(map(str, var))] = {"median_s": med}
            for sub in ((1 << 16, 1 << 18) if os.environ.get("PROBE_SUB", "1") != "0" else ()):
                if r1 - r0 <= sub:
                    continue
                blk = (r0, r0 + sub)
                for var in self.rooted_variants(p, rows=sub):
                    w, m = timed(self, X, Q, colors, p, var, blk)
                    c = rec["candidates"].setdefault("/".join(map(str, var)), {})
                    c[f"warm_{sub}"] = w
                    c[f"median_{sub}"] = m
            for var, _ in (res if os.environ.get("PROBE_SUB", "1") != "0" else ()):   # a first run of each on the choice's own rows (the prune-by-first-run rule)
                w, _m = timed(self, X, Q, colors, p, var, rows, repeat=1)
                rec["candidates"]["/".join(map(str, var))]["first_run_s"] = w
            log.append(rec)
            return res

        gpu.GpuOps.time_variants = time_variants
        keys = coloring_keys(1, 0, 1)
        try:
            t = time.time()
            R.run(keys)
            cp.cuda.Device().synchronize()
            first = time.time() - t
            then = []
            for _ in range(2):
                t = time.time()
                R.run(keys)
                cp.cuda.Device().synchronize()
                then.append(time.time() - t)
            print(json.dumps({"template": name, "first_s": round(first, 3), "then_s": [round(x, 4) for x in then],
                              "blocks": R.blocks(), "choices": log}), flush=True)
        except Exception as e:   # noqa: BLE001  (a probe: report and go on)
            print(json.dumps({"template": name, "failed": f"{type(e).__name__}: {str(e)[:300]}"}), flush=True)
        finally:
            gpu.GpuOps.time_variants = real_tv
        R = None
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
