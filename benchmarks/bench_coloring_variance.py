"""Coloring variance of colorful copies: uniform random k-colorings against balanced ones.

    python benchmarks/bench_coloring_variance.py [--colorings 400]

For a pattern H, take the vertex sets S_1..S_N that host at least one copy (a set holding several
copies, e.g. a K4 holding three 4-cycles, is listed once: colourfulness depends on the set only).
X = #colorful sets / P(colorful) is unbiased for N under a uniform coloring (P = k!/k^k) and under a balanced one (a uniformly random
partition into k classes of sizes differing by at most one: P = k!·Π sizes / n(n-1)..(n-k+1), the same
for every k-set). The number of colorings an estimator needs for a relative error grows with
Var(X)/N², so the ratio of the two squared coefficients of variation is the ratio of colorings.
Writes benchmarks/results/coloring_variance_cpu.json.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from harness import machine, versions, write  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm.exact.match import match  # noqa: E402


def copy_sets(G, name):
    """The vertex sets that host a copy of a named pattern (each set once)."""
    rows = np.sort(np.concatenate(list(match(G, la_gpm.Pattern.named(name)))), axis=1)
    return np.unique(rows, axis=0)


def colorful_probability(n, k, balanced):
    if not balanced:
        return math.factorial(k) / k ** k
    sizes = [n // k + (1 if c < n % k else 0) for c in range(k)]
    return math.factorial(k) * math.prod(sizes) / math.prod(n - i for i in range(k))


def one(G, name, colorings, seed=0):
    S = copy_sets(G, name)
    k, n = S.shape[1], G.n
    rng = np.random.default_rng(seed)
    row = {"graph": G.name, "n": G.n, "m": G.m, "pattern": name, "vertex_sets": int(len(S)), "colorings": colorings}
    classes = np.arange(n) * k // n
    for kind in ("uniform", "balanced"):
        p = colorful_probability(n, k, kind == "balanced")
        X = np.empty(colorings)
        for r in range(colorings):
            col = rng.integers(0, k, n) if kind == "uniform" else classes[rng.permutation(n)]
            c = np.sort(col[S], axis=1)
            X[r] = (np.diff(c, axis=1) != 0).all(axis=1).sum() / p
        row[kind] = {"mean_over_true": float(X.mean() / len(S)), "cv": float(X.std(ddof=1) / X.mean())}
    row["colorings_ratio_balanced_over_uniform"] = (row["balanced"]["cv"] / row["uniform"]["cv"]) ** 2
    print(f"{G.name:>14} {name:>9} sets={len(S):>10,}  uniform cv={row['uniform']['cv']:.4f}  "
          f"balanced cv={row['balanced']['cv']:.4f}  colorings ratio {row['colorings_ratio_balanced_over_uniform']:.2f}",
          flush=True)
    return row


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--colorings", type=int, default=400)
    a = ap.parse_args(argv)
    rows = [one(la_gpm.datasets.load("email-Eu-core"), "5-clique", a.colorings),
            one(la_gpm.generators.rmat(10, seed=1), "5-clique", a.colorings),
            one(la_gpm.datasets.load("email-Eu-core"), "4-cycle", a.colorings)]
    print("wrote", write("coloring_variance", {"benchmark": "coloring variance, uniform vs balanced colorings",
                                              "machine": machine(), "versions": versions(), "rows": rows}))


if __name__ == "__main__":
    main()
