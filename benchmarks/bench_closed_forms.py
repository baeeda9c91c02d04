"""Closed forms against enumeration on the cpu backend: the non-induced bowtie (hourglass) and house.

    python benchmarks/bench_closed_forms.py

Each closed-form count is checked against the plan engine's enumeration where that finishes within
the budget (citeseer, email-Eu-core, R-MAT 10; on R-MAT 12 one enumeration takes over 200 s on 2 cores), and on wiki-Vote against the house count of the GPU
engines (``gpu_trie_gpu.json``: 9,488,779,111). Writes benchmarks/results/closed_forms_cpu.json.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import DATA, check, machine, timeit, versions, write  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm.exact.driver import count_pattern  # noqa: E402

WIKI_HOUSES = 9_488_779_111  # the GPU trie and dfs engines and the 16-core CPU engine agree (H100 run)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--enum-budget", type=float, default=60.0, help="seconds for one enumeration run")
    args = ap.parse_args(argv)
    rows = []
    payload = {"benchmark": "closed forms (cpu)", "machine": machine(), "versions": versions(), "rows": rows}
    graphs = (("citeseer", lambda: la_gpm.read_graph(DATA / "citeseer.edgelist"), True),
              ("R-MAT 10", lambda: la_gpm.generators.rmat(10, seed=1), True),
              ("email-Eu-core", lambda: la_gpm.read_graph(DATA / "email-Eu-core.txt"), True),
              ("wiki-Vote", lambda: la_gpm.read_graph(DATA / "wiki-Vote.txt"), False))
    for label, make, enumerate_too in graphs:
        G = make()
        for name in ("bowtie", "house"):
            med, times, got = timeit(lambda: count_pattern(G, name, backend="cpu"), repeat=5)
            row = {"graph": label, "n": G.n, "m": G.m, "pattern": name, "count_kind": "unique, non-induced",
                   "count": got, "closed_form_seconds": med, "closed_form_runs": times}
            if enumerate_too:
                emed, etimes, want = timeit(lambda: count_pattern(G, name, backend="cpu", closed_forms=False),
                                            repeat=3, budget_s=args.enum_budget)
                check(f"{label} {name} closed form vs enumeration", got, want)
                row.update(enumeration_seconds=emed, enumeration_runs=etimes, speedup=emed / med)
            elif name == "house":
                check(f"{label} house vs the GPU engines' count", got, WIKI_HOUSES)
                row["checked_against"] = "GPU trie / dfs engines and the 16-core CPU engine (gpu_trie_gpu.json)"
            rows.append(row)
            write("closed_forms", payload)  # after every row: a time-out keeps what was measured
            print(f"{label:<14} {name:<7} {got:>16,}  closed form {med * 1e3:9.2f} ms"
                  + (f"  enumeration {row['enumeration_seconds']:8.3f} s  x{row['speedup']:.0f}"
                     if "enumeration_seconds" in row else ""))
    print("wrote", write("closed_forms", payload))


if __name__ == "__main__":
    main()
