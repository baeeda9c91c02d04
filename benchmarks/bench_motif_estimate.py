"""Benchmark motif-frequency estimation (colorful treelets + sampling): time to reach eps.

Usage::

    python benchmarks/bench_motif_estimate.py                      # the default grid, CPU
    python benchmarks/bench_motif_estimate.py --budget 60 --cases citeseer:5 rmat16:7

For each (graph, k): one run of ``estimate_census(G, k, eps, delta, min_frequency=1e-4, seed=s,
time_budget=--budget)`` after a warm-up on karate (numba compilation excluded), recording the
elapsed time, whether every class above the frequency threshold reached eps, the colorings and
samples used, the per-coloring table-build time and the sampling rate.  Where an exact census is
cheap (``--check``: citeseer and email-Eu-core, k <= 5) the intervals are checked against it and the
run aborts when the estimate is off by more than 3·eps for a class above 1%.
``--adaptive both`` runs every case without and with adaptive graphlet sampling (AGS: before/after);
``--gpu`` adds the GPU backend (``--gpu-adaptive``).  Writes ``benchmarks/results/<name>_<cpu|gpu>.json``
(``gpu`` when the machine has one).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import la_gpm  # noqa: E402
from harness import DATA, machine, versions, write  # noqa: E402
from la_gpm.motif_estimate.driver import _Tables, estimate_census  # noqa: E402

DEFAULT_CASES = ["citeseer:5", "citeseer:6", "citeseer:7", "email-Eu-core:5", "email-Eu-core:6",
                 "email-Eu-core:7", "wiki-Vote:5", "wiki-Vote:6", "wiki-Vote:7", "rmat16:5", "rmat16:6",
                 "rmat16:7", "rmat17:5", "rmat17:6", "rmat18:5"]


def graph(name):
    if name.startswith("rmat"):
        return la_gpm.generators.rmat(int(name[4:]), seed=1)
    if name == "wiki-Vote":
        return la_gpm.read_graph(DATA / "wiki-Vote.txt")
    return la_gpm.datasets.load(name)


def copy_bandwidth():
    """Measured device copy bandwidth (bytes read + written per second, 4 GiB copy, median of 5)."""
    import cupy as cp
    x = cp.ones(1 << 29, dtype=cp.float64)
    y = cp.empty_like(x)
    ts = []
    for _ in range(6):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        cp.copyto(y, x)
        cp.cuda.Device().synchronize()
        ts.append(time.perf_counter() - t)
    del x, y
    cp.get_default_memory_pool().free_all_blocks()
    return 2 * 8 * (1 << 29) / float(np.median(ts[1:]))


def build_bytes(G, k, windows=None):
    """Bytes a table build must move at least: every arc gathers every passive column (float64), the
    neighbour ids once per SpMM window, and the tables are written once and read once (eMA)."""
    from la_gpm.motif_estimate.driver import _plan
    pl = _plan(k)
    gather = 8 * 2 * G.m * pl.WB
    ids = 4 * 2 * G.m * (windows or 1)
    tables = 2 * 8 * G.n * (pl.WM + pl.WB)
    return gather + ids + tables, gather


def one_coloring(G, k, backend, build="level", repeat=3):
    """(table build s (median), samples/s, table bytes) for one coloring on ``backend``."""
    from la_gpm.motif_estimate.driver import _plan
    col = np.random.default_rng(0).integers(0, k, G.n).astype(np.int8)
    pl = _plan(k)
    nbytes = 8 * (2 * G.m * pl.WB + G.n * (pl.WM + pl.WB))     # SpMM gathers + table writes (float64)
    ns = 65536
    if backend == "gpu":
        import cupy as cp
        import la_gpm.motif_estimate.gpu as GM
        from la_gpm.motif_estimate.gpu import GpuSampler
        GM.BUILD = build
        try:
            S = GpuSampler(G, k)
            T = S.tables(col)                       # compile
            del T
            times = []
            for _ in range(repeat):
                cp.cuda.Device().synchronize()
                t = time.perf_counter()
                T = S.tables(col)
                cp.cuda.Device().synchronize()
                times.append(time.perf_counter() - t)
                if len(times) < repeat:
                    del T
            build_s = float(np.median(times))
            T.sample_device(ns, key=0)
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            T.sample_device(ns, key=1)
            cp.cuda.Device().synchronize()
            rate = ns / (time.perf_counter() - t)
            del T, S
        finally:
            GM.BUILD = "level"
        cp.get_default_memory_pool().free_all_blocks()
    else:
        t = time.perf_counter()
        T = _Tables(G, k, col)
        build_s = time.perf_counter() - t
        ns = 20000
        t = time.perf_counter()
        T.sample(ns, key=1)
        rate = ns / (time.perf_counter() - t)
        del T
    return build_s, rate, nbytes


def why_colorings(df, rec, reg, p, min_frequency, top=6):
    """The slowest classes above the threshold: hits per coloring and the sampling share of Var(X_j)."""
    from la_gpm.motif_estimate.driver import variance_split
    d = df[df["frequency"] >= min_frequency].sort_values("rel_halfwidth", ascending=False).head(top)
    rows = [reg.names.index(nm) for nm in d["name"]]
    if not rows or len(rec) < 2:
        return []
    vt, vs, _ = variance_split(rec, reg, p, rows)
    R = len(rec)
    return [{"name": nm, "frequency": float(f), "rel_halfwidth": float(r), "hits_per_coloring": float(h) / R,
             "cv_per_coloring": float(np.sqrt(v) / c) if c > 0 else None,
             "sampling_share_of_variance": float(min(s_ / v, 9.99)) if v > 0 else None}
            for nm, f, r, h, c, v, s_ in zip(d["name"], d["frequency"], d["rel_halfwidth"], d["samples"], d["count"],
                                             vt, vs)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", nargs="*", default=DEFAULT_CASES, help="graph:k")
    ap.add_argument("--budget", type=float, default=40.0, help="time budget per case (s)")
    ap.add_argument("--eps", type=float, default=0.1)
    ap.add_argument("--delta", type=float, default=0.05)
    ap.add_argument("--min-frequency", type=float, default=1e-4)
    ap.add_argument("--backends", nargs="*", default=["cpu"], help="cpu and/or gpu")
    ap.add_argument("--gpu", action="store_true", help="same as --backends cpu gpu")
    ap.add_argument("--adaptive", choices=["on", "off", "both"], default="both",
                    help="AGS on, off, or both (before/after comparison)")
    ap.add_argument("--gpu-adaptive", choices=["on", "off", "both"], default="on")
    ap.add_argument("--spc", default="default", help="samples_per_coloring of the CPU runs (an int, auto or default)")
    ap.add_argument("--gpu-spc", default="default", help="samples_per_coloring of the GPU runs (an int, auto or default)")
    ap.add_argument("--coloring", default="balanced", choices=["balanced", "uniform"])
    ap.add_argument("--gpu-build", choices=["level", "shape", "both"], default="level",
                    help="table build measured per coloring (both: the per-shape build before the level-wise one)")
    ap.add_argument("--checkpoints", choices=["planned", "geometric"], default="geometric")
    ap.add_argument("--seeds", nargs="*", type=int, default=[1])
    ap.add_argument("--name", default="motif_estimate")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    backends = ["cpu", "gpu"] if args.gpu else args.backends
    modes = {"on": [True], "off": [False], "both": [False, True]}

    estimate_census(la_gpm.datasets.load("karate"), 5, seed=0, max_colorings=2)  # compile
    estimate_census(la_gpm.datasets.load("karate"), 5, seed=0, max_colorings=12)
    if "gpu" in backends:
        estimate_census(la_gpm.datasets.load("karate"), 5, seed=0, max_colorings=2, backend="gpu")
    rows = []
    cache = {}
    bw = copy_bandwidth() if "gpu" in backends else None
    if bw:
        print(f"copy bandwidth {bw / 1e12:.2f} TB/s", flush=True)
    import la_gpm.motif_estimate.driver as ME
    for case in args.cases:
        name, k = case.split(":")
        k = int(k)
        if name not in cache:
            cache.clear()
            t = time.perf_counter()
            cache[name] = graph(name)
            print(f"graph {name}: {time.perf_counter() - t:.1f} s", flush=True)
        G = cache[name]
        for be in backends:
            builds = {}
            try:
                for b in (["shape", "level"] if be == "gpu" and args.gpu_build == "both"
                          else [args.gpu_build if be == "gpu" else "cpu"]):
                    builds[b] = one_coloring(G, k, be, build=b, repeat=1 if b == "shape" else 3)
                    print(f"  {name} k={k} {be} build={b}: {builds[b][0]:.3f} s/coloring, "
                          f"{builds[b][1]:.3g} samples/s", flush=True)
            except Exception as e:  # noqa: BLE001  (out of memory on the largest graphs: record it)
                rows.append({"graph": name, "k": k, "backend": be, "error": f"{type(e).__name__}: {e}"})
                print(rows[-1], flush=True)
                continue
            build_s, rate, nbytes = builds["cpu" if be == "cpu" else ("level" if "level" in builds else "shape")]
            spc = args.gpu_spc if be == "gpu" else args.spc
            spc = spc if spc == "auto" else None if spc == "default" else int(spc)
            for ad, seed in [(ad, seed) for ad in modes[args.gpu_adaptive if be == "gpu" else args.adaptive]
                             for seed in args.seeds]:
                t = time.perf_counter()
                df = estimate_census(G, k, eps=args.eps, delta=args.delta, seed=seed, time_budget=args.budget,
                                     min_frequency=args.min_frequency, backend=be, adaptive=ad,
                                     samples_per_coloring=spc, checkpoints=args.checkpoints, coloring=args.coloring)
                wall = time.perf_counter() - t
                a = df.attrs
                row = {"graph": name, "n": G.n, "m": G.m, "k": k, "backend": be, "adaptive": ad, "eps": args.eps,
                       "delta": args.delta, "min_frequency": args.min_frequency, "time_budget_s": args.budget,
                       "elapsed_s": wall, "converged": a["converged"], "pending": a["pending"],
                       "colorings": a["colorings"], "adaptive_colorings": a["adaptive_colorings"],
                       "samples": a["samples"], "classes_seen": len(df), "classes_reached": int(df["reached"].sum()),
                       "classes_above_threshold": int((df["frequency"] >= args.min_frequency).sum()),
                       "worst_rel_halfwidth_above_threshold": float(
                           df.loc[df["frequency"] >= args.min_frequency, "rel_halfwidth"].max()),
                       "build_s_per_coloring": build_s, "samples_per_s": rate, "table_bytes_per_coloring": nbytes,
                       "table_bytes_limit_s_at_2.89TBps": nbytes / 2.89e12, "total_estimate": a["total"],
                       "samples_per_coloring": a["samples_per_coloring"], "coloring": a["coloring"],
                       "build_s_in_run": a["build_s"], "sample_s_in_run": a["sample_s"],
                       "checkpoints": args.checkpoints, "checks": a["checks"], "seed": seed,
                       "why_colorings": why_colorings(df, *ME._last_record, args.min_frequency)}
                if be == "gpu":
                    from la_gpm.motif_estimate.driver import _plan
                    from la_gpm.motif_estimate.gpu import level_windows
                    wins = sum(len(level_windows(_plan(k), k, h)) for h in range(1, k + 1))
                    model, gather = build_bytes(G, k, wins)
                    row.update({"build_per_coloring": {b: {"s": v[0], "samples_per_s": v[1]} for b, v in builds.items()},
                                "copy_bandwidth_Bps": bw, "build_bytes_model": model, "gather_bytes": gather,
                                "build_limit_s_at_copy_bw": model / bw,
                                "build_fraction_of_copy_bw": (model / bw) / build_s})
                if name in ("citeseer", "email-Eu-core") and k <= 5:
                    ex = la_gpm.census(G, k)
                    truth = dict(zip(ex.name, (int(c) for c in ex["count"])))
                    inside = sum(int(r.ci_low <= truth[r.name] <= r.ci_high) for r in df.itertuples())
                    tot = sum(truth.values())
                    worst = max(abs(r.frequency - truth[r.name] / tot) / (truth[r.name] / tot)
                                for r in df.itertuples() if truth[r.name] / tot > 0.01)
                    if worst > 3 * args.eps:
                        raise SystemExit(f"{case}: relative frequency error {worst:.3f}; benchmark aborted")
                    row.update(exact_checked=True, intervals_covering=inside, worst_rel_freq_err_above_1pct=worst)
                rows.append(row)
                print({x: row[x] for x in ("graph", "k", "backend", "adaptive", "elapsed_s", "converged", "colorings",
                                           "samples", "build_s_per_coloring", "samples_per_s",
                                           "worst_rel_halfwidth_above_threshold")}, flush=True)
                path = write(args.name, {"machine": machine(), "versions": versions(), "rows": rows},
                             None if args.out is None else Path(args.out))
    print("wrote", path)


if __name__ == "__main__":
    main()
