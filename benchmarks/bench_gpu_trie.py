"""The breadth-first trie GPU engine (cuTS-style) against the CPU engine on the same machine, and the
GPU clique kernel (warp-centric DFS) on cliques: the "keep the faster per graph" evidence.

    python benchmarks/bench_gpu_trie.py --gpu

Writes benchmarks/results/gpu_trie_gpu.json (device, versions, graph, pattern, counts, times).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import DATA, check, machine, timeit, versions, write  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm.exact.driver import count_pattern, plan_for  # noqa: E402
from la_gpm.patterns import as_pattern  # noqa: E402

PATTERNS = ("4-clique", "5-clique", "diamond", "4-cycle", "tailed-triangle", "house")


def main(argv=None):
    from la_gpm.kcliques.gpu import clique_count as gpu_cliques
    from la_gpm.exact.cuts import count_plan_bfs

    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--cpu-budget", type=float, default=20.0, help="skip the CPU run of a pattern after one this slow")
    ap.add_argument("--gpu-budget", type=float, default=20.0)
    args = ap.parse_args(argv)
    rows = []
    payload = {"benchmark": "gpu trie engine", "machine": machine(), "versions": versions(), "rows": rows}
    graphs = (("citeseer", lambda: la_gpm.read_graph(DATA / "citeseer.edgelist")),
              ("email-Eu-core", lambda: la_gpm.read_graph(DATA / "email-Eu-core.txt")),
              ("wiki-Vote", lambda: la_gpm.read_graph(DATA / "wiki-Vote.txt")),
              ("R-MAT 16", lambda: la_gpm.generators.rmat(16, seed=1)))
    tiny = la_gpm.generators.gnm(40, 200, seed=0)
    for p in PATTERNS:  # compile every kernel before timing
        count_pattern(tiny, p, backend="cpu")
    slow_cpu, slow_gpu = set(), set()
    for label, make in graphs:
        G = make()
        for name in PATTERNS:
            P = as_pattern(name)
            plan = plan_for(G, P, reuse=False)
            row = {"graph": label, "n": G.n, "m": G.m, "pattern": name, "count_kind": "unique, non-induced"}
            if name in slow_gpu:
                row["gpu_skipped"] = f"a smaller graph took over {args.gpu_budget} s"
                rows.append(row)
                continue
            med, times, got = timeit(lambda: count_plan_bfs(G, plan)[0], repeat=3, sync=True, budget_s=args.gpu_budget)
            _, st = count_plan_bfs(G, plan)
            row.update(count=got, trie_seconds=med, trie_runs=times, trie_edges_per_s=G.m / med,
                       level_entries=st["level_entries"], chunks=st["chunks"], peak_bytes=st["peak_bytes"])
            if med > args.gpu_budget:
                slow_gpu.add(name)
            if P.is_clique:
                cm, ct, cg = timeit(lambda: gpu_cliques(G, P.k), repeat=3, sync=True, budget_s=args.gpu_budget)
                check(f"{label} {name} clique kernel vs trie", cg, got)
                row.update(clique_kernel_seconds=cm, clique_kernel_runs=ct)
            if name not in slow_cpu:
                t = time.perf_counter()
                want = count_pattern(G, P, backend="cpu")
                sec = time.perf_counter() - t
                check(f"{label} {name} trie vs cpu", got, want)
                row.update(cpu_seconds=sec, speedup_vs_cpu=sec / med)
                if sec > args.cpu_budget:
                    slow_cpu.add(name)
            else:
                row["cpu_skipped"] = f"a smaller graph took over {args.cpu_budget} s on the CPU backend"
            rows.append(row)
            print(f"{label:<14} {name:<16} count={got:>18,} trie {med * 1e3:9.2f} ms"
                  + (f"  clique-kernel {row['clique_kernel_seconds'] * 1e3:9.2f} ms" if "clique_kernel_seconds" in row else "")
                  + (f"  cpu {row['cpu_seconds']:8.3f} s x{row['speedup_vs_cpu']:.0f}" if "cpu_seconds" in row else ""))
            write("gpu_trie", payload)
    print("wrote", write("gpu_trie", payload))


if __name__ == "__main__":
    main()
