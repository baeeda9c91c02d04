"""Where the colorings of an estimated census go: per-coloring estimates of every frequent class.

Usage::

    python benchmarks/bench_motif_variance.py --graph rmat22 --k 7 --colorings 40 \\
        --configs 65536:ags:uniform 65536:ags:balanced 1048576:ags:balanced --gpu

For each configuration ``samples_per_coloring:ags|plain:balanced|uniform`` one run of
``estimate_census`` with exactly ``--colorings`` colorings (``min_colorings = max_colorings``, so the
stop rule never cuts it short; AGS steers as in a normal run), then, for every class whose estimated
frequency is >= ``--min-frequency``: the per-coloring estimates X_j, hits h_j and counts per hit g_j
(the ``_Record`` of the run), the coefficient of variation of X_j over colorings, its sampling part
(Σ g_j² h_j / R over Var X, the binomial approximation of ``variance_split``) and the colorings a
Student-t interval of relative half-width eps needs at the levels the stop rule uses.  Writes
``benchmarks/results/<name>_<cpu|gpu>.json`` with the raw per-coloring columns, so stop rules can be
compared offline on the same colorings.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import la_gpm  # noqa: E402
from bench_motif_estimate import graph  # noqa: E402
from harness import machine, versions, write  # noqa: E402
from la_gpm.motif_estimate import driver as ME  # noqa: E402


def parse(cfg):
    spc, ags, coloring = cfg.split(":")
    return int(spc), ags == "ags", coloring


def one(G, k, cfg, R, seed, backend, min_frequency, eps):
    spc, adaptive, coloring = parse(cfg)
    t = time.perf_counter()
    df = ME.estimate_census(G, k, eps=eps, seed=seed, backend=backend, samples_per_coloring=spc, adaptive=adaptive,
                            coloring=coloring, min_colorings=R, max_colorings=R, min_frequency=min_frequency)
    el = time.perf_counter() - t
    rec, reg, p = ME._last_record
    X, g, H = rec.matrices(reg, p)
    keep = df[df["frequency"] >= min_frequency]
    from scipy import stats
    rows = []
    for r in keep.itertuples():
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
    print(f"{cfg:>24} seed {seed}: {R} colorings in {el:.1f} s (build {df.attrs['build_s']:.1f}, sample "
          f"{df.attrs['sample_s']:.1f}); {len(rows)} classes >= {min_frequency}; worst cv {worst.get('cv', 0):.3f} "
          f"({worst.get('name')}, sampling share {worst.get('sampling_share') or 0:.2f}), colorings needed at "
          f"delta/72: {max((d['colorings_needed'] or {}).get('delta/72', 0) for d in rows) if rows else 0:.0f}",
          flush=True)
    return {"config": cfg, "samples_per_coloring": spc, "adaptive": adaptive, "coloring": coloring, "seed": seed,
            "colorings": R, "elapsed_s": el, "build_s": df.attrs["build_s"], "sample_s": df.attrs["sample_s"],
            "colorful_probability": p, "treelets_per_coloring": [float(x) for x in rec.N], "classes": rows}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graph", default="email-Eu-core")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--colorings", type=int, default=30)
    ap.add_argument("--configs", nargs="*", default=["65536:ags:uniform", "65536:ags:balanced"])
    ap.add_argument("--seeds", nargs="*", type=int, default=[1])
    ap.add_argument("--min-frequency", type=float, default=1e-4)
    ap.add_argument("--eps", type=float, default=0.1)
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--name", default="motif_variance")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    G = graph(a.graph)
    backend = "gpu" if a.gpu else "cpu"
    ME.estimate_census(la_gpm.datasets.load("karate"), a.k, seed=0, max_colorings=2, backend=backend)  # compile
    runs = [one(G, a.k, cfg, a.colorings, seed, backend, a.min_frequency, a.eps) for seed in a.seeds
            for cfg in a.configs]
    path = write(a.name, {"machine": machine(), "versions": versions(), "graph": a.graph, "n": G.n, "m": G.m,
                          "k": a.k, "backend": backend, "eps": a.eps, "runs": runs}, a.out)
    print("wrote", path)


if __name__ == "__main__":
    main()
