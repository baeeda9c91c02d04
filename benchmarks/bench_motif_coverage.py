"""Coverage of the estimated census against the exact one, over a fixed list of seeds.

Usage::

    python benchmarks/bench_motif_coverage.py --seeds 20 [--gpu] [--cases citeseer:4 wiki-Vote:5]

For each (graph, k): the exact induced census (``la_gpm.motifs``, on the GPU when there is one),
then ``estimate_census(G, k, eps=0.1, delta=0.05, seed=s)`` with the defaults for every seed s in
0..seeds-1, on each backend asked for.  Records per run the time, colorings and convergence, and in
all: how many class intervals contain the exact count (the stated rate is 1 - delta per interval),
which classes were missed and by how much, and the largest relative error of the frequency over
classes above 1% (the issue's eps).  Writes ``benchmarks/results/<name>_<cpu|gpu>.json``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import la_gpm  # noqa: E402
from bench_motif_estimate import graph  # noqa: E402
from harness import machine, versions, write  # noqa: E402
from la_gpm.motif_estimate.driver import estimate_census  # noqa: E402

DEFAULT_CASES = ["citeseer:4", "citeseer:5", "email-Eu-core:4", "email-Eu-core:5", "wiki-Vote:4", "wiki-Vote:5"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", nargs="*", default=DEFAULT_CASES)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--eps", type=float, default=0.1)
    ap.add_argument("--delta", type=float, default=0.05)
    ap.add_argument("--gpu", action="store_true", help="the gpu backend too (exact census on the gpu)")
    ap.add_argument("--cpu-max-k", type=int, default=5, help="largest k estimated on the cpu backend")
    ap.add_argument("--name", default="motif_coverage")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    backends = ["cpu", "gpu"] if a.gpu else ["cpu"]
    rows = []
    for case in a.cases:
        name, k = case.split(":")
        k = int(k)
        G = graph(name)
        t = time.perf_counter()
        ex = la_gpm.census(G, k, backend="gpu" if a.gpu else "cpu")
        t_exact = time.perf_counter() - t
        truth = dict(zip(ex.name, (int(c) for c in ex["count"])))
        total = sum(truth.values())
        for be in backends:
            if be == "cpu" and k > a.cpu_max_k:
                continue
            estimate_census(la_gpm.datasets.load("karate"), k, seed=0, max_colorings=2, backend=be)  # compile
            inside = n = 0
            misses, runs = [], []
            worst_freq = 0.0
            unseen = 0
            for seed in range(a.seeds):
                t = time.perf_counter()
                df = estimate_census(G, k, eps=a.eps, delta=a.delta, seed=seed, backend=be)
                el = time.perf_counter() - t
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
                    f = c / total
                    if f > 0.01:
                        worst_freq = max(worst_freq, abs(r.frequency - f) / f)
                runs.append({"seed": seed, "elapsed_s": el, "colorings": df.attrs["colorings"],
                             "converged": df.attrs["converged"], "classes": len(df)})
            rate = inside / n if n else float("nan")
            # one-sided binomial check of the stated rate (z of the shortfall)
            z = (inside - n * (1 - a.delta)) / math.sqrt(n * a.delta * (1 - a.delta)) if n else float("nan")
            row = {"graph": name, "n": G.n, "m": G.m, "k": k, "backend": be, "seeds": a.seeds, "eps": a.eps,
                   "delta": a.delta, "exact_census_s": t_exact, "classes_exact": sum(1 for c in truth.values() if c),
                   "intervals": n, "covering": inside, "coverage": rate, "z_vs_stated_rate": z,
                   "classes_never_seen": unseen, "worst_rel_freq_error_above_1pct": worst_freq,
                   "median_elapsed_s": float(np.median([r["elapsed_s"] for r in runs])),
                   "all_converged": all(r["converged"] for r in runs), "misses": misses, "runs": runs}
            rows.append(row)
            print(f"{name} k={k} {be}: {inside}/{n} intervals cover ({rate:.3f}, z {z:+.2f}), worst freq err "
                  f"{worst_freq:.3f} (classes > 1%), median {row['median_elapsed_s']:.2f} s, "
                  f"all converged {row['all_converged']}", flush=True)
    path = write(a.name, {"machine": machine(), "versions": versions(), "rows": rows}, a.out)
    print("wrote", path)


if __name__ == "__main__":
    main()
