"""k-cliques on the GPU (warp-centric DFS kernels: stack and bitmap) against the CPU backend on the
same machine.

    python benchmarks/bench_gpu_cliques.py --gpu

Graphs: wiki-Vote and R-MAT 20 (Graph500 initiator, 16 edges/vertex), k = 4..8. Writes
benchmarks/results/cliques_gpu_gpu.json. Peers from ../shared/ANCHORS.md (G2Miner on an H100):
wiki-Vote 4/5-cliques 0.23 / 0.89 ms, R-MAT 20 4/5-cliques 245 ms / 7.76 s.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import DATA, _sync, check, machine, timeit, versions, write  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm.kcliques.gpu import BALANCE_MIN_K  # noqa: E402
from la_gpm.kcliques.gpu import clique_count as gpu_cliques  # noqa: E402

G2MINER = {("wiki-Vote", 4): 0.23e-3, ("wiki-Vote", 5): 0.89e-3, ("R-MAT 20", 4): 0.245, ("R-MAT 20", 5): 7.76}


def cpu_cliques(G, k):
    from la_gpm.kcliques import clique_count
    return clique_count(G, k, backend="cpu")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--kmax", type=int, default=8)
    ap.add_argument("--cpu-budget", type=float, default=30.0, help="skip the CPU run above this many seconds")
    ap.add_argument("--rmat-kmax", type=int, default=8)
    ap.add_argument("--gpu-budget", type=float, default=5.0, help="stop a graph's k loop after a GPU run this long")
    ap.add_argument("--graphs", default="wiki-Vote,R-MAT 20")
    ap.add_argument("--kmin", type=int, default=4)
    ap.add_argument("--variants", default="stack,bitmap,bitmap_unbalanced", help="kernel variants timed beside auto")
    ap.add_argument("--name", default="cliques_gpu")
    args = ap.parse_args(argv)
    out = []
    tiny = la_gpm.generators.gnm(50, 300, seed=0)
    for k in range(4, args.kmax + 1):  # compile the CPU kernels before any timing
        cpu_cliques(tiny, k)
    payload = {"benchmark": "k-cliques (gpu)", "machine": machine(), "versions": versions(), "rows": out}
    graphs = {"wiki-Vote": lambda: la_gpm.read_graph(DATA / "wiki-Vote.txt"),
              "R-MAT 20": lambda: la_gpm.generators.rmat(20, seed=1)}
    for label in args.graphs.split(","):
        G = graphs[label]()
        cpu_slow = False
        too_slow = set()  # variants that took over --gpu-budget at a smaller k are not run again
        for k in range(args.kmin, (args.kmax if label == "wiki-Vote" else args.rmat_kmax) + 1):
            t = time.perf_counter()
            gpu_cliques(G, k)  # first call: includes the balanced item list (k >= 6), cached after
            _sync()
            first = time.perf_counter() - t
            g_med, g_times, g_cnt = timeit(lambda: gpu_cliques(G, k), repeat=5, warmup=0, sync=True,
                                           budget_s=10)  # the first call above was the warm-up
            row = {"graph": label, "n": G.n, "m": G.m, "k": k, "count": g_cnt, "gpu_seconds": g_med,
                   "gpu_runs": g_times, "gpu_edges_per_s": G.m / g_med, "gpu_first_call_seconds": first}
            variants = [("stack", {"method": "stack"}), ("bitmap", {"method": "bitmap"})]
            if k >= BALANCE_MIN_K:
                variants.append(("bitmap_unbalanced", {"method": "bitmap", "balance": False}))
            variants = [(n, kw) for n, kw in variants if n not in too_slow and n in args.variants.split(",")]
            for name, kw in variants:  # every kernel, whichever "auto" (gpu_seconds) picked
                m_med, m_times, m_cnt = timeit(lambda kw=kw: gpu_cliques(G, k, **kw), repeat=5,
                                               sync=True, budget_s=10)
                check(f"{label} k={k} gpu {name} vs auto", m_cnt, g_cnt)
                row[f"gpu_{name}_seconds"] = m_med
                row[f"gpu_{name}_runs"] = m_times
                if m_med > args.gpu_budget:
                    too_slow.add(name)
            if (label, k) in G2MINER:
                row["g2miner_seconds_anchor"] = G2MINER[(label, k)]
            if not cpu_slow and args.cpu_budget > 0:
                t = time.perf_counter()
                c_cnt = cpu_cliques(G, k)
                c_sec = time.perf_counter() - t
                check(f"{label} k={k} cpu vs gpu", g_cnt, c_cnt)
                row.update(cpu_seconds=c_sec, speedup_vs_cpu=c_sec / g_med)
                cpu_slow = c_sec > args.cpu_budget
            else:
                row["cpu_skipped"] = (f"previous k took over {args.cpu_budget} s on the CPU backend" if args.cpu_budget > 0
                                      else "not run (--cpu-budget 0)")
            print(f"{label:<10} k={k}  count={g_cnt:>16,}  gpu {g_med * 1e3:10.2f} ms"
                  + " (" + ", ".join(f"{n} {row[f'gpu_{n}_seconds'] * 1e3:.2f}" for n, _ in variants) + ")"
                  + (f"  cpu {row['cpu_seconds']:8.2f} s  x{row['speedup_vs_cpu']:.0f}" if "cpu_seconds" in row else "")
                  + (f"  G2Miner {row['g2miner_seconds_anchor'] * 1e3:.2f} ms" if "g2miner_seconds_anchor" in row else ""))
            out.append(row)
            write(args.name, payload)  # after every row: a time-out keeps what was measured
            if g_med > args.gpu_budget:
                break
    print("wrote", write(args.name, payload))


if __name__ == "__main__":
    main()
