"""Estimated motif census (la_gpm.estimate_census, colorful treelets + sampling): time to reach eps, where the
colorings go, coverage of the intervals, and the checkpoint rules.

    python benchmarks/bench_motif_estimate.py motif_estimate [--budget 60 --cases citeseer:5 rmat16:7] [--gpu]
    python benchmarks/bench_motif_estimate.py motif_variance --graph rmat22 --k 7 --colorings 40 --gpu \\
        --configs 65536:ags:uniform 65536:ags:balanced 1048576:ags:balanced
    python benchmarks/bench_motif_estimate.py motif_coverage --seeds 20 [--gpu] [--cases citeseer:4 wiki-Vote:5]
    python benchmarks/bench_motif_estimate.py motif_checkpoints          # planned vs geometric checkpoints
    python benchmarks/bench_motif_estimate.py SUITE --quick

Graph names: karate, citeseer, email-Eu-core, wiki-Vote, rmatS (R-MAT S, seed 1). Results: <name>_<tag>.json
(default names motif_estimate, motif_variance, motif_coverage, motif_estimate_checkpoints; tag gpu when the
machine has one).
"""

from __future__ import annotations

import math

import numpy as np
from harness import COPY_BW_H100, Family, Record, arg, copy_bandwidth, graph, once

import la_gpm
from la_gpm.motif_estimate import driver as ME
from la_gpm.motif_estimate import estimate_census

FAMILY = Family(__doc__)


def compile_on_karate(k, backend, colorings=(2,)):
    """Compile the estimator's kernels (numba / CUDA) before any timing."""
    for c in colorings:
        estimate_census(la_gpm.datasets.load("karate"), k, seed=0, max_colorings=c, backend=backend)


def truth_of(G, k, backend="cpu"):
    """(exact census {class: count}, seconds)."""
    sec, ex = once(lambda: la_gpm.census(G, k, backend=backend), sync=backend == "gpu")
    return dict(zip(ex.name, (int(c) for c in ex["count"]))), sec


def covering(df, truth):
    """(intervals that contain the exact count, intervals)."""
    return sum(int(r.ci_low <= truth[r.name] <= r.ci_high) for r in df.itertuples()), len(df)


# ------------------------------------------------------------------ motif_estimate
DEFAULT_CASES = ["citeseer:5", "citeseer:6", "citeseer:7", "email-Eu-core:5", "email-Eu-core:6",
                 "email-Eu-core:7", "wiki-Vote:5", "wiki-Vote:6", "wiki-Vote:7", "rmat16:5", "rmat16:6",
                 "rmat16:7", "rmat17:5", "rmat17:6", "rmat18:5"]


def build_bytes(G, k, windows=None):
    """Bytes a table build must move at least: every arc gathers every passive column (float64), the neighbour
    ids once per SpMM window, and the tables are written once and read once (eMA)."""
    from la_gpm.motif_estimate.shapes import shape_plan
    pl = shape_plan(k)
    gather = 8 * 2 * G.m * pl.WB
    ids = 4 * 2 * G.m * (windows or 1)
    tables = 2 * 8 * G.n * (pl.WM + pl.WB)
    return gather + ids + tables, gather


def one_coloring(G, k, backend, build="level", repeat=3):
    """(table build s (median), samples/s, table bytes) for one coloring on ``backend``."""
    from la_gpm.motif_estimate.shapes import shape_plan
    col = np.random.default_rng(0).integers(0, k, G.n).astype(np.int8)
    pl = shape_plan(k)
    nbytes = 8 * (2 * G.m * pl.WB + G.n * (pl.WM + pl.WB))     # SpMM gathers + table writes (float64)
    if backend != "gpu":
        from la_gpm.motif_estimate.tables import CpuTables
        build_s, T = once(lambda: CpuTables(G, k, col), sync=False)
        ns = 20000
        t, _ = once(lambda: T.sample(ns, key=1), sync=False)
        return build_s, ns / t, nbytes
    import cupy as cp

    import la_gpm.motif_estimate.gpu as GM
    ns = 65536
    GM.BUILD = build
    try:
        S = GM.GpuSampler(G, k)
        S.tables(col)                           # compile
        times = []
        for i in range(repeat):
            t, T = once(lambda: S.tables(col))
            times.append(t)
            if i < repeat - 1:
                T = None
        build_s = float(np.median(times))
        T.sample_device(ns, key=0)
        t, _ = once(lambda: T.sample_device(ns, key=1))
        rate = ns / t
        T = S = None
    finally:
        GM.BUILD = "level"
    cp.get_default_memory_pool().free_all_blocks()
    return build_s, rate, nbytes


def why_colorings(df, rec, reg, p, min_frequency, top=6):
    """The slowest classes above the threshold: hits per coloring and the sampling share of Var(X_j)."""
    d = df[df["frequency"] >= min_frequency].sort_values("rel_halfwidth", ascending=False).head(top)
    rows = [reg.names.index(nm) for nm in d["name"]]
    if not rows or len(rec) < 2:
        return []
    vt, vs, _ = ME.variance_split(rec, reg, p, rows)
    R = len(rec)
    return [{"name": nm, "frequency": float(f), "rel_halfwidth": float(r), "hits_per_coloring": float(h) / R,
             "cv_per_coloring": float(np.sqrt(v) / c) if c > 0 else None,
             "sampling_share_of_variance": float(min(s_ / v, 9.99)) if v > 0 else None}
            for nm, f, r, h, c, v, s_ in zip(d["name"], d["frequency"], d["rel_halfwidth"], d["samples"], d["count"],
                                             vt, vs)]


def builds_of(a, G, name, k, be):
    """Per-coloring build times (both builds on the GPU with --gpu-build both)."""
    builds = {}
    for b in (["shape", "level"] if be == "gpu" and a.gpu_build == "both" else [a.gpu_build if be == "gpu" else "cpu"]):
        builds[b] = one_coloring(G, k, be, build=b, repeat=1 if b == "shape" else 3)
        print(f"  {name} k={k} {be} build={b}: {builds[b][0]:.3f} s/coloring, {builds[b][1]:.3g} samples/s", flush=True)
    return builds


def estimate_row(a, G, name, k, be, builds, bw, ad, seed):
    build_s = rate = nbytes = None      # --no-builds: the per-coloring build is not measured alone
    if builds:
        build_s, rate, nbytes = builds["cpu" if be == "cpu" else ("level" if "level" in builds else "shape")]
    spc = a.gpu_spc if be == "gpu" else a.spc
    spc = spc if spc == "auto" else None if spc == "default" else int(spc)
    wall, df = once(lambda: estimate_census(G, k, eps=a.eps, delta=a.delta, seed=seed, time_budget=a.budget,
                                            min_frequency=a.min_frequency, backend=be, adaptive=ad,
                                            samples_per_coloring=spc, checkpoints=a.checkpoints, coloring=a.coloring,
                                            memory_budget=a.memory_budget),
                    sync=False)
    at = df.attrs
    above = df["frequency"] >= a.min_frequency
    row = {"graph": name, "n": G.n, "m": G.m, "k": k, "backend": be, "adaptive": ad, "eps": a.eps,
           "delta": a.delta, "min_frequency": a.min_frequency, "time_budget_s": a.budget,
           "elapsed_s": wall, "converged": at["converged"], "pending": at["pending"],
           "colorings": at["colorings"], "adaptive_colorings": at["adaptive_colorings"],
           "samples": at["samples"], "classes_seen": len(df), "classes_reached": int(df["reached"].sum()),
           "classes_above_threshold": int(above.sum()),
           "worst_rel_halfwidth_above_threshold": float(df.loc[above, "rel_halfwidth"].max()),
           "build_s_per_coloring": build_s, "samples_per_s": rate, "table_bytes_per_coloring": nbytes,
           "table_bytes_limit_s_at_2.89TBps": nbytes / COPY_BW_H100 if nbytes else None,
           "total_estimate": at["total"], "memory_budget": at.get("memory_budget"),
           "table_layout": at.get("table_layout"), "table_chunks": at.get("table_chunks"),
           "table_bytes_peak": at.get("table_bytes"), "table_bytes_model": at.get("table_bytes_model"),
           "table_spilled_bytes": at.get("table_spilled_bytes"),
           "samples_per_coloring": at["samples_per_coloring"], "coloring": at["coloring"],
           "build_s_in_run": at["build_s"], "sample_s_in_run": at["sample_s"],
           "checkpoints": a.checkpoints, "checks": at["checks"], "seed": seed,
           "why_colorings": why_colorings(df, *ME._last_record, a.min_frequency)}
    if be == "gpu" and builds:
        from la_gpm.motif_estimate.gpu import level_windows
        from la_gpm.motif_estimate.shapes import shape_plan
        wins = sum(len(level_windows(shape_plan(k), k, h)) for h in range(1, k + 1))
        model, gather = build_bytes(G, k, wins)
        row.update({"build_per_coloring": {b: {"s": v[0], "samples_per_s": v[1]} for b, v in builds.items()},
                    "copy_bandwidth_Bps": bw, "build_bytes_model": model, "gather_bytes": gather,
                    "build_limit_s_at_copy_bw": model / bw, "build_fraction_of_copy_bw": (model / bw) / build_s})
    if name in ("citeseer", "email-Eu-core", "karate") and k <= 5:
        truth, _ = truth_of(G, k)
        inside, _ = covering(df, truth)
        tot = sum(truth.values())
        worst = max([abs(r.frequency - truth[r.name] / tot) / (truth[r.name] / tot)
                     for r in df.itertuples() if truth[r.name] / tot > 0.01], default=0.0)
        if worst > 3 * a.eps:
            raise SystemExit(f"{name}:{k}: relative frequency error {worst:.3f}; benchmark aborted")
        row.update(exact_checked=True, intervals_covering=inside, worst_rel_freq_err_above_1pct=worst)
    return row


@FAMILY.suite(gpu="optional", quick={"cases": ["karate:4", "karate:5"], "budget": 1.0},
              args=[arg("--cases", nargs="*", default=DEFAULT_CASES, help="graph:k"),
                    arg("--budget", type=float, default=40.0, help="time budget per case (s)"),
                    arg("--eps", type=float, default=0.1), arg("--delta", type=float, default=0.05),
                    arg("--min-frequency", type=float, default=1e-4),
                    arg("--backends", nargs="*", default=None, help="cpu and/or gpu (default: cpu; cpu gpu with --gpu)"),
                    arg("--adaptive", choices=["on", "off", "both"], default="both",
                        help="AGS on, off, or both (before/after comparison)"),
                    arg("--gpu-adaptive", choices=["on", "off", "both"], default="on"),
                    arg("--spc", default="default", help="samples_per_coloring of the CPU runs (an int, auto or default)"),
                    arg("--gpu-spc", default="default", help="samples_per_coloring of the GPU runs (an int, auto or default)"),
                    arg("--coloring", default="balanced", choices=["balanced", "uniform"]),
                    arg("--gpu-build", choices=["level", "shape", "both"], default="level",
                        help="table build measured per coloring (both: the per-shape build before the level-wise one)"),
                    arg("--checkpoints", choices=["planned", "geometric"], default="geometric"),
                    arg("--seeds", nargs="*", type=int, default=[1]),
                    arg("--memory-budget", type=int, default=None,
                        help="bytes one coloring's tables may take (default: none on the CPU, free memory on the GPU)"),
                    arg("--no-builds", action="store_true",
                        help="skip the separate per-coloring build timing (it holds the full layout)"),
                    arg("--k8-pipeline", choices=["on", "off"], default="on",
                        help="k = 8 on the gpu: sample the next batch while the host classifies this one "
                             "(driver.PIPELINE_K8; off: one batch after the other)"),
                    arg("--k8-keys", choices=["device", "host"], default="device",
                        help="k = 8 on the gpu: the class-cache keys of a batch made on the device "
                             "(driver.DEVICE_KEYS_K8) or on the host from every sample")])
def motif_estimate(a):
    """Time to reach eps: for each (graph, k) one run of ``estimate_census(G, k, eps, delta, min_frequency=1e-4,
    seed=s, time_budget=--budget)`` after a warm-up on karate (compilation excluded), recording the elapsed
    time, whether every class above the frequency threshold reached eps, the colorings and samples used, the
    per-coloring table-build time and the sampling rate (on the GPU against the build's byte model at the
    measured copy bandwidth). Where an exact census is cheap (karate, citeseer, email-Eu-core, k <= 5) the
    intervals are checked against it and the run aborts when the estimate is off by more than 3·eps for a
    class above 1%. --adaptive both runs every case without and with adaptive graphlet sampling (AGS)."""
    backends = a.backends or (["cpu", "gpu"] if a.gpu else ["cpu"])
    modes = {"on": [True], "off": [False], "both": [False, True]}
    ME.PIPELINE_K8 = a.k8_pipeline == "on"
    ME.DEVICE_KEYS_K8 = a.k8_keys == "device"
    compile_on_karate(5, "cpu", (2, 12))
    if "gpu" in backends:
        compile_on_karate(5, "gpu")
    bw = copy_bandwidth("gpu", 4 << 30, repeat=5) if "gpu" in backends else None
    if bw:
        print(f"copy bandwidth {bw / 1e12:.2f} TB/s", flush=True)
    rec = Record(a, "motif_estimate")
    cache = {}
    for case in a.cases:
        name, k = case.split(":")
        k = int(k)
        if name not in cache:
            cache.clear()
            t, cache[name] = once(lambda: graph(name), sync=False)
            print(f"graph {name}: {t:.1f} s", flush=True)
        G = cache[name]
        for be in backends:
            try:
                builds = None if a.no_builds else builds_of(a, G, name, k, be)
            except Exception as e:  # noqa: BLE001  (out of memory on the largest graphs: record it)
                rec.add({"graph": name, "k": k, "backend": be, "error": f"{type(e).__name__}: {e}"})
                continue
            for ad in modes[a.gpu_adaptive if be == "gpu" else a.adaptive]:
                for seed in a.seeds:
                    row = estimate_row(a, G, name, k, be, builds, bw, ad, seed)
                    rec.add(row, echo={x: row[x] for x in (
                        "graph", "k", "backend", "adaptive", "elapsed_s", "converged", "colorings", "samples",
                        "build_s_per_coloring", "samples_per_s", "worst_rel_halfwidth_above_threshold", "table_layout",
                        "table_chunks")})
    rec.done()


# ------------------------------------------------------------------ motif_variance
def variance_run(G, k, cfg, R, seed, backend, min_frequency, eps):
    from scipy import stats
    spc, ags, coloring = cfg.split(":")
    spc, adaptive = int(spc), ags == "ags"
    el, df = once(lambda: estimate_census(G, k, eps=eps, seed=seed, backend=backend, samples_per_coloring=spc,
                                          adaptive=adaptive, coloring=coloring, min_colorings=R, max_colorings=R,
                                          min_frequency=min_frequency), sync=False)
    rec, reg, p = ME._last_record
    X, g, H = rec.matrices(reg, p)
    rows = []
    for r in df[df["frequency"] >= min_frequency].itertuples():
        i = reg.names.index(r.name)
        x = X[:, i]
        m = x.mean()
        v = x.var(ddof=1)
        gg = np.nan_to_num(g[:, i])
        vs = float((gg * gg * H[:, i]).mean())
        rows.append({"name": r.name, "frequency": float(r.frequency), "count": float(m),
                     "cv": float(np.sqrt(v) / m) if m > 0 else None,
                     "sampling_share": float(vs / v) if v > 0 else None,
                     "hits_per_coloring": float(H[:, i].mean()),
                     "colorings_needed": {lvl: float((stats.t.ppf(1 - d / 2, R - 1) * np.sqrt(v) / (eps * m)) ** 2)
                                          for lvl, d in (("delta", 0.05), ("delta/2", 0.025), ("delta/72", 0.05 / 72))}
                     if m > 0 else None,
                     "X": x.tolist(), "hits": H[:, i].tolist(), "g": gg.tolist()})
    rows.sort(key=lambda d: -(d["cv"] or 0))
    worst = rows[0] if rows else {}
    need = max((d["colorings_needed"] or {}).get("delta/72", 0) for d in rows) if rows else 0
    print(f"{cfg:>24} seed {seed}: {R} colorings in {el:.1f} s (build {df.attrs['build_s']:.1f}, sample "
          f"{df.attrs['sample_s']:.1f}); {len(rows)} classes >= {min_frequency}; worst cv {worst.get('cv', 0):.3f} "
          f"({worst.get('name')}, sampling share {worst.get('sampling_share') or 0:.2f}), colorings needed at "
          f"delta/72: {need:.0f}", flush=True)
    return {"config": cfg, "samples_per_coloring": spc, "adaptive": adaptive, "coloring": coloring, "seed": seed,
            "colorings": R, "elapsed_s": el, "build_s": df.attrs["build_s"], "sample_s": df.attrs["sample_s"],
            "colorful_probability": p, "treelets_per_coloring": [float(x) for x in rec.N], "classes": rows}


@FAMILY.suite(gpu="optional", quick={"graph": "karate", "k": 4, "colorings": 6, "configs": ["4096:ags:uniform",
                                                                                            "4096:ags:balanced"]},
              args=[arg("--graph", default="email-Eu-core"), arg("--k", type=int, default=5),
                    arg("--colorings", type=int, default=30),
                    arg("--configs", nargs="*", default=["65536:ags:uniform", "65536:ags:balanced"],
                        help="samples_per_coloring:ags|plain:balanced|uniform"),
                    arg("--seeds", nargs="*", type=int, default=[1]),
                    arg("--min-frequency", type=float, default=1e-4), arg("--eps", type=float, default=0.1)])
def motif_variance(a):
    """Where the colorings of an estimated census go: per-coloring estimates of every frequent class.

    For each configuration one run of estimate_census with exactly --colorings colorings (min_colorings =
    max_colorings: the stop rule never cuts it short; AGS steers as in a normal run), then for every class of
    estimated frequency >= --min-frequency: the per-coloring estimates X_j, hits h_j and counts per hit g_j,
    the coefficient of variation of X_j over colorings, its sampling part (Σ g_j² h_j / R over Var X) and the
    colorings a Student-t interval of relative half-width eps needs at the levels the stop rule uses. The raw
    per-coloring columns are kept, so stop rules can be compared offline on the same colorings."""
    G = graph(a.graph)
    backend = "gpu" if a.gpu else "cpu"
    compile_on_karate(a.k, backend)
    rec = Record(a, "motif_variance", rows="runs", graph=a.graph, n=G.n, m=G.m, k=a.k, backend=backend, eps=a.eps)
    for seed in a.seeds:
        for cfg in a.configs:
            rec.add(variance_run(G, a.k, cfg, a.colorings, seed, backend, a.min_frequency, a.eps), echo=False)
    rec.done()


# ------------------------------------------------------------------ motif_coverage
def coverage_row(G, name, k, be, a, truth, t_exact):
    total = sum(truth.values())
    inside = n = unseen = 0
    misses, runs = [], []
    worst_freq = 0.0
    for seed in range(a.seeds):
        el, df = once(lambda: estimate_census(G, k, eps=a.eps, delta=a.delta, seed=seed, backend=be), sync=False)
        seen = set(df.name)
        unseen += sum(1 for nm, c in truth.items() if c > 0 and nm not in seen)
        for r in df.itertuples():
            c = truth[r.name]
            n += 1
            ok = r.ci_low <= c <= r.ci_high
            inside += ok
            if not ok:
                misses.append({"seed": seed, "class": r.name, "exact": c, "estimate": float(r.count),
                               "ci": [float(r.ci_low), float(r.ci_high)],
                               "rel_error": float(r.count / c - 1) if c else None})
            if c / total > 0.01:
                worst_freq = max(worst_freq, abs(r.frequency - c / total) / (c / total))
        runs.append({"seed": seed, "elapsed_s": el, "colorings": df.attrs["colorings"],
                     "converged": df.attrs["converged"], "classes": len(df)})
    rate = inside / n if n else float("nan")
    # one-sided binomial check of the stated rate (z of the shortfall)
    z = (inside - n * (1 - a.delta)) / math.sqrt(n * a.delta * (1 - a.delta)) if n else float("nan")
    return {"graph": name, "n": G.n, "m": G.m, "k": k, "backend": be, "seeds": a.seeds, "eps": a.eps,
            "delta": a.delta, "exact_census_s": t_exact, "classes_exact": sum(1 for c in truth.values() if c),
            "intervals": n, "covering": inside, "coverage": rate, "z_vs_stated_rate": z,
            "classes_never_seen": unseen, "worst_rel_freq_error_above_1pct": worst_freq,
            "median_elapsed_s": float(np.median([r["elapsed_s"] for r in runs])),
            "all_converged": all(r["converged"] for r in runs), "misses": misses, "runs": runs}


@FAMILY.suite(gpu="optional", quick={"cases": ["karate:4"], "seeds": 2, "eps": 0.5},
              args=[arg("--cases", nargs="*", default=["citeseer:4", "citeseer:5", "email-Eu-core:4", "email-Eu-core:5",
                                                       "wiki-Vote:4", "wiki-Vote:5"]),
                    arg("--seeds", type=int, default=10), arg("--eps", type=float, default=0.1),
                    arg("--delta", type=float, default=0.05),
                    arg("--cpu-max-k", type=int, default=5, help="largest k estimated on the cpu backend")])
def motif_coverage(a):
    """Coverage of the estimated census against the exact one, over a fixed list of seeds: for each (graph, k)
    the exact induced census (on the GPU with --gpu), then estimate_census(G, k, eps, delta, seed=s) with the
    defaults for every seed s in 0..seeds-1 on each backend (cpu, and gpu with --gpu). Per run the time,
    colorings and convergence; in all: how many class intervals contain the exact count (the stated rate is
    1 - delta per interval), the misses, and the largest relative frequency error over classes above 1%."""
    backends = ["cpu", "gpu"] if a.gpu else ["cpu"]
    rec = Record(a, "motif_coverage")
    for case in a.cases:
        name, k = case.split(":")
        k = int(k)
        G = graph(name)
        truth, t_exact = truth_of(G, k, "gpu" if a.gpu else "cpu")
        for be in backends:
            if be == "cpu" and k > a.cpu_max_k:
                continue
            compile_on_karate(k, be)
            row = coverage_row(G, name, k, be, a, truth, t_exact)
            rec.add(row, echo=f"{name} k={k} {be}: {row['covering']}/{row['intervals']} intervals cover "
                              f"({row['coverage']:.3f}, z {row['z_vs_stated_rate']:+.2f}), worst freq err "
                              f"{row['worst_rel_freq_error_above_1pct']:.3f} (classes > 1%), median "
                              f"{row['median_elapsed_s']:.2f} s, all converged {row['all_converged']}")
    rec.done()


# ------------------------------------------------------------------ motif_checkpoints
@FAMILY.suite(quick={"graph": "karate", "k": 5, "coverage_k": 4, "seeds": 1, "coverage_seeds": 2, "eps": 0.5},
              args=[arg("--graph", default="email-Eu-core"), arg("--k", type=int, default=6),
                    arg("--eps", type=float, default=0.1),
                    arg("--seeds", type=int, default=4, help="seeds 1..N of the colorings-to-stop rows"),
                    arg("--coverage-k", type=int, default=5),
                    arg("--coverage-seeds", type=int, default=8, help="seeds 1..N of the coverage rows")])
def motif_checkpoints(a):
    """Planned against geometric checkpoints of estimate_census: colorings and checks to reach eps (email-Eu-core,
    k = 6, min_frequency 1e-3, 2^14 samples per coloring, seeds 1-4), and the coverage of the intervals against
    the exact census (k = 5, seeds 1-8). Both stop rules spend delta the same way (check i at level
    delta/(i(i+1))); the colorings to the stop are deterministic for a seed (no time budget)."""
    G = graph(a.graph)
    rec = Record(a, "motif_estimate_checkpoints")
    spc = 1 << 14
    for seed in range(1, a.seeds + 1):
        for cps in ("geometric", "planned"):
            el, df = once(lambda: estimate_census(G, a.k, eps=a.eps, seed=seed, min_frequency=1e-3, checkpoints=cps,
                                                  samples_per_coloring=spc), sync=False)
            at = df.attrs
            rec.add({"graph": a.graph, "k": a.k, "eps": at["eps"], "delta": at["delta"], "min_frequency": 1e-3,
                     "samples_per_coloring": spc, "seed": seed, "checkpoints": cps, "colorings": at["colorings"],
                     "checks": at["checks"], "converged": at["converged"], "elapsed_s": el})
    truth, _ = truth_of(G, a.coverage_k)
    for cps in ("geometric", "planned"):
        inside = total = cols = 0
        for seed in range(1, a.coverage_seeds + 1):
            df = estimate_census(G, a.coverage_k, eps=a.eps, seed=seed, min_frequency=1e-3, checkpoints=cps,
                                 samples_per_coloring=spc)
            i, t = covering(df, truth)
            inside, total, cols = inside + i, total + t, cols + df.attrs["colorings"]
        rec.add({"graph": a.graph, "k": a.coverage_k, "checkpoints": cps, "seeds": a.coverage_seeds,
                 "intervals": total, "covering": inside, "mean_colorings": cols / a.coverage_seeds})
    rec.done()


if __name__ == "__main__":
    FAMILY.main()
