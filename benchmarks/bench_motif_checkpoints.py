"""Planned against geometric checkpoints of ``estimate_census``: colorings and checks to reach eps.

Usage::

    python benchmarks/bench_motif_checkpoints.py            # email-Eu-core, k = 6, seeds 1-4; coverage k = 5, seeds 1-8

Both stop rules spend delta the same way (check i at level delta/(i(i+1))); the number of colorings
to the stop is deterministic for a seed (no time budget), so this runs anywhere.  Writes
``benchmarks/results/motif_estimate_checkpoints_<cpu|gpu>.json``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import la_gpm  # noqa: E402
from harness import machine, versions, write  # noqa: E402
from la_gpm.motif_estimate.driver import estimate_census  # noqa: E402


def main():
    G = la_gpm.datasets.load("email-Eu-core")
    rows = []
    for seed in (1, 2, 3, 4):
        for cps in ("geometric", "planned"):
            t = time.perf_counter()
            df = estimate_census(G, 6, seed=seed, min_frequency=1e-3, checkpoints=cps, samples_per_coloring=1 << 14)
            a = df.attrs
            rows.append({"graph": "email-Eu-core", "k": 6, "eps": a["eps"], "delta": a["delta"],
                         "min_frequency": 1e-3, "samples_per_coloring": 1 << 14, "seed": seed, "checkpoints": cps,
                         "colorings": a["colorings"], "checks": a["checks"], "converged": a["converged"],
                         "elapsed_s": time.perf_counter() - t})
            print(rows[-1], flush=True)
    # coverage against the exact census (email-Eu-core, k = 5): fraction of intervals covering the truth
    ex = la_gpm.census(G, 5)
    truth = dict(zip(ex.name, (int(c) for c in ex["count"])))
    for cps in ("geometric", "planned"):
        inside = total = cols = 0
        for seed in range(1, 9):
            df = estimate_census(G, 5, seed=seed, min_frequency=1e-3, checkpoints=cps, samples_per_coloring=1 << 14)
            inside += sum(int(r.ci_low <= truth[r.name] <= r.ci_high) for r in df.itertuples())
            total += len(df)
            cols += df.attrs["colorings"]
        rows.append({"graph": "email-Eu-core", "k": 5, "checkpoints": cps, "seeds": 8, "intervals": total,
                     "covering": inside, "mean_colorings": cols / 8})
        print(rows[-1], flush=True)
    print("wrote", write("motif_estimate_checkpoints", {"machine": machine(), "versions": versions(), "rows": rows}))


if __name__ == "__main__":
    main()
