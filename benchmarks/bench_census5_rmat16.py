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

``--bulk-sweep S1 S2 ... [--bulk 0 8 16 32]``: the GPU hybrid on each R-MAT scale with the K2,3 copies of
hub pairs with at least B common neighbours counted in bulk (``census.K23_BULK``; 0: every copy listed),
a median of up to 3 timed runs (one warm-up per scale: the graph's device copies) and one profiled run
(seconds per stage) each, counts checked equal across B. Writes ``benchmarks/results/census5_k23_bulk_gpu.json``.

``--dense-sweep S1 S2 ... --set "BOWTIE_BULK=off" "BOWTIE_BULK_RATIO=16" ...``: the same for any
settings of census.py's constants (unset ones at their defaults). Writes ``census5_dense_sweep_gpu.json``.
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


def parse_setting(text):
    """"K23_BULK=8,BOWTIE_BULK=off,BOWTIE_BULK_RATIO=0.5" -> {"K23_BULK": 8, "BOWTIE_BULK": 2**62, ...}: ints,
    floats, or ``off`` (a threshold nothing reaches)."""
    out = {}
    for part in filter(None, text.split(",")):
        k, v = (x.strip() for x in part.split("="))
        out[k] = 1 << 62 if v == "off" else int(v) if v.lstrip("-").isdigit() else float(v)
    return out


def sweep(scales, settings, name, title):
    """The GPU hybrid on each R-MAT scale under each setting of census.py's module constants (a dict
    each): a median of up to 3 timed runs (one warm-up per scale: the graph's device copies) and one
    profiled run (seconds per stage) each, counts checked equal across the settings."""
    from harness import timeit

    from la_gpm.motifs import gpu as gc
    rows = []
    payload = {"benchmark": title, "machine": machine(), "versions": versions(), "rows": rows}
    defaults = {k: getattr(gc, k) for st in settings for k in st}
    try:
        for sc in scales:
            G = la_gpm.generators.rmat(sc, seed=1)
            want = None
            for i, st in enumerate(settings):
                for k, v in {**defaults, **st}.items():
                    setattr(gc, k, v)
                med, runs, df = timeit(lambda: la_gpm.census(G, 5, backend="gpu", method="hybrid"), repeat=3,
                                       warmup=1 if i == 0 else 0, sync=True, budget_s=20)
                counts = [int(c) for c in df["count"]]
                if want is None:
                    want = counts
                elif counts != want:
                    raise SystemExit(f"R-MAT {sc}: setting {st} changed the counts")
                gc.PROFILE = {}
                la_gpm.census(G, 5, backend="gpu", method="hybrid")
                prof, gc.PROFILE = gc.PROFILE, None
                rows.append({"graph": f"R-MAT {sc}", "n": G.n, "m": G.m, "max_degree": int(G.max_degree),
                             "setting": {k: (v if v < 1 << 60 else "off") for k, v in st.items()},
                             "seconds": med, "runs": runs, "edges_per_s": G.m / med,
                             "connected_5_subgraphs": sum(counts),
                             "stages_s": {k: v for k, v in prof.items() if k != "copies"},
                             "copies": prof.get("copies")})
                print(rows[-1]["graph"], rows[-1]["setting"], round(med, 4),
                      {k: round(v, 4) for k, v in rows[-1]["stages_s"].items() if k.startswith("c5_")}, flush=True)
                print("wrote", write(name, payload))
    finally:
        for k, v in defaults.items():
            setattr(gc, k, v)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--series", type=int, nargs="*", help="R-MAT scales: GPU hybrid vs CPU hybrid on each")
    ap.add_argument("--bulk-sweep", type=int, nargs="*", help="R-MAT scales: K2,3 copies listed vs in bulk")
    ap.add_argument("--bulk", type=int, nargs="*", default=[0, 8, 16, 32], help="K23_BULK settings (0: none)")
    ap.add_argument("--dense-sweep", type=int, nargs="*", help="R-MAT scales: the --set settings of the dense part")
    ap.add_argument("--set", nargs="*", default=[], help="settings, e.g. K23_BULK=16,BOWTIE_BULK=off")
    a = ap.parse_args(argv)
    tiny = la_gpm.generators.gnm(60, 300, seed=0)
    la_gpm.census(tiny, 5, backend="gpu", method="hybrid")
    if a.series:
        return series(a.series)
    if a.bulk_sweep:
        return sweep(a.bulk_sweep, [{"K23_BULK": b if b > 0 else 1 << 62} for b in a.bulk], "census5_k23_bulk",
                     "5-vertex census, GPU hybrid: K2,3 copies listed vs counted in bulk per hub pair "
                     f"(K23_BULK = B: pairs with >= B common neighbours in bulk; off: none)")
    if a.dense_sweep:
        return sweep(a.dense_sweep, [parse_setting(t) for t in a.set], "census5_dense_sweep",
                     "5-vertex census, GPU hybrid: dense-part settings (C5 bitmaps, K2,3 and bowtie bulk rules)")
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
