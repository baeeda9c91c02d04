"""The 5-vertex census of R-MAT 16 on the GPU (hybrid: orbit sums + every C5, K2,3 and bowtie copy).

    python benchmarks/bench_census5_rmat16.py [--scale 16]
    python benchmarks/bench_census5_rmat16.py --series 10 11 12   # GPU hybrid against the CPU hybrid

One timed run after a warm-up on a small graph (the graph's device copies are built inside the
timed call: it is the cost a user pays). No other method finishes on this graph (the CPU hybrid
would take about a day, enumeration visits ~10^14 subsets), so the counts are vouched for only by
the hybrid's own checks: the listed K2,3 and bowtie copies must equal their closed-form counts and
every division of the back-substitution must be exact, else the call raises. The 4-vertex census
(closed form, CPU = GPU) is recorded beside it. Writes ``benchmarks/results/census5_rmat<scale>_gpu.json``.

``--series S1 S2 ...``: on smaller R-MAT graphs (same generator and seed) the GPU hybrid and the CPU
hybrid on all cores, same run, counts checked equal, one CPU run and a GPU median each, so the speed-up
is measured where the CPU can still finish, and its growth with the scale is seen. Writes
``benchmarks/results/census5_rmat_series_gpu.json``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import _sync, machine, versions, write  # noqa: E402

import la_gpm  # noqa: E402


def series(scales):
    import os

    from harness import timeit
    tiny = la_gpm.generators.gnm(60, 300, seed=0)
    la_gpm.census(tiny, 5, backend="cpu", method="hybrid")     # compile before timing
    rows = []
    payload = {"benchmark": "5-vertex census, GPU hybrid vs CPU hybrid (all cores), R-MAT series",
               "machine": machine(), "versions": versions(), "cpu_threads": os.cpu_count(), "rows": rows}
    for sc in scales:
        G = la_gpm.generators.rmat(sc, seed=1)
        gmed, gruns, g = timeit(lambda: la_gpm.census(G, 5, backend="gpu", method="hybrid"), repeat=3, sync=True,
                                budget_s=60)
        t = time.perf_counter()
        c = la_gpm.census(G, 5, backend="cpu", method="hybrid")
        tc = time.perf_counter() - t
        if list(g["count"]) != list(c["count"]):
            raise SystemExit(f"R-MAT {sc}: GPU and CPU hybrid counts differ")
        rows.append({"graph": f"R-MAT {sc}", "n": G.n, "m": G.m, "max_degree": int(G.max_degree),
                     "connected_5_subgraphs": int(sum(c["count"])), "gpu_seconds": gmed, "gpu_runs": gruns,
                     "cpu_seconds": tc, "speedup_vs_cpu": tc / gmed, "gpu_edges_per_s": G.m / gmed})
        print({k: v for k, v in rows[-1].items() if k != "gpu_runs"}, flush=True)
        print("wrote", write("census5_rmat_series", payload))     # after every scale: a timeout keeps the rows


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--series", type=int, nargs="*", help="R-MAT scales: GPU hybrid vs CPU hybrid on each")
    a = ap.parse_args(argv)
    tiny = la_gpm.generators.gnm(60, 300, seed=0)
    la_gpm.census(tiny, 5, backend="gpu", method="hybrid")
    if a.series:
        return series(a.series)
    G = la_gpm.generators.rmat(a.scale, seed=1)
    t = time.perf_counter()
    c4 = la_gpm.census(G, 4, backend="gpu")
    _sync()
    t4 = time.perf_counter() - t
    t = time.perf_counter()
    df = la_gpm.census(G, 5, backend="gpu", method="hybrid")
    _sync()
    t5 = time.perf_counter() - t
    counts = {nm: int(c) for nm, c in zip(df["name"], df["count"])}
    total = sum(counts.values())
    payload = {"benchmark": "5-vertex census, GPU hybrid", "machine": machine(), "versions": versions(),
               "graph": f"R-MAT {a.scale}", "n": G.n, "m": G.m, "k": 5, "method": df.attrs["method"],
               "seconds": t5, "edges_per_s": G.m / t5, "connected_5_subgraphs": total, "counts": counts,
               "census4_seconds": t4, "census4_counts": {nm: int(c) for nm, c in zip(c4["name"], c4["count"])},
               "checks": "the hybrid's own: listed K2,3 / bowtie copies equal their closed forms, exact divisions"}
    print({k: v for k, v in payload.items() if k not in ("counts", "census4_counts", "machine", "versions")}, flush=True)
    print("wrote", write(f"census5_rmat{a.scale}", payload))


if __name__ == "__main__":
    main()
