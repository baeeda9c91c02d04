"""k-clique counting: the CPU backends against igraph and networkx, the GPU kernels against the CPU
backend, and counts by part (root ranges).

    python benchmarks/bench_kcliques.py cliques                       # citeseer k=3..7, wiki-Vote k=3..6, G(20000,200000)
    python benchmarks/bench_kcliques.py gpu_cliques --gpu             # wiki-Vote and R-MAT 20, k = 4..8
    python benchmarks/bench_kcliques.py clique_parts --gpu [--kmin 4 --kmax 6 --whole-gpu-kmax 5 --budget 120]
    python benchmarks/bench_kcliques.py clique_parts --gpu --spread [--plan 20:4-5 18:5-8 16:6-8]
    python benchmarks/bench_kcliques.py SUITE --quick                 # karate / small R-MAT

Suites: cliques (cliques_cpu.json), gpu_cliques (cliques_gpu_gpu.json), clique_parts (clique_parts_<tag>.json,
clique_parts_spread_<tag>.json with --spread). Every count is checked before it is reported.
"""

from __future__ import annotations

import itertools
import os
import statistics
import time

import numpy as np
from harness import Family, Record, arg, check, graph, numba_threads, once, peer, timeit, to_igraph

import la_gpm
from la_gpm import Pattern
from la_gpm.kcliques import clique_count
from la_gpm.partition import clique_weights, rank_range

FAMILY = Family(__doc__)
PUBLISHED = {"citeseer": {3: 1166, 4: 255, 5: 46, 6: 4, 7: 0}, "wiki-Vote": {3: 608389, 4: 2077903, 5: 4514137}}
KS = {"citeseer": range(3, 8), "wiki-Vote": range(3, 7)}   # other graphs: k = 3..5
G2MINER = {("wiki-Vote", 4): 0.23e-3, ("wiki-Vote", 5): 0.89e-3, ("R-MAT 20", 4): 0.245, ("R-MAT 20", 5): 7.76}


def warm(kmin, kmax, gpu, parts=False):
    """Compile the CPU (and GPU) clique kernels for every k before any timing."""
    tiny = la_gpm.generators.gnm(50, 300, seed=0)
    for k in range(kmin, kmax + 1):
        for b in ("cpu", "gpu") if gpu else ("cpu",):
            clique_count(tiny, k, backend=b)
            if parts:
                clique_count(tiny, k, backend=b, part=(0, 2))


# ------------------------------------------------------------------ cliques (CPU, peers)
def igraph_fn(G, k):
    g = to_igraph(G)
    return lambda: len(g.cliques(min=k, max=k))


def networkx_fn(G, k):
    import networkx as nx
    g = G.to_networkx()

    def run():
        c = 0
        for q in nx.enumerate_all_cliques(g):  # yields by increasing size
            if len(q) == k:
                c += 1
            elif len(q) > k:
                break
        return c
    return run


def clique_pattern(k):
    return Pattern(list(itertools.combinations(range(k), 2)), k=k)


def bench_cliques(label, G, ks, repeat, peer_limits):
    from la_gpm.exact import plan_for, run_plan
    out = []
    for k in ks:
        ref = clique_count(G, k, backend="cpu")
        if k in PUBLISHED.get(label, {}):
            check(f"{label}/K{k}/published", ref, PUBLISHED[label][k])
        rows = []
        med, times, got = timeit(lambda: clique_count(G, k, backend="cpu"), repeat=repeat)
        check(f"{label}/K{k}/cpu", got, ref)
        rows.append({"impl": "la_gpm[cpu] DAG", "seconds": med, "runs": times})
        if k <= 5:
            med, times, got = timeit(lambda: clique_count(G, k, backend="graphblas"), repeat=max(1, repeat // 2))
            check(f"{label}/K{k}/graphblas", got, ref)
            rows.append({"impl": "la_gpm[graphblas] masked mxm per level", "seconds": med, "runs": times})
        for reuse in (True, False):
            plan = plan_for(G, clique_pattern(k), reuse=reuse)
            med, times, (n, st) = timeit(lambda plan=plan: run_plan(G, plan), repeat=max(1, repeat // 2))
            check(f"{label}/K{k}/plan reuse={reuse}", n, ref)
            rows.append({"impl": f"la_gpm[cpu] generic plan, reuse={'on' if reuse else 'off'}", "seconds": med,
                         "runs": times, "reuse_hits": st["reuse_hits"], "set_operations": st["set_operations"],
                         "set_operations_saved": st["set_operations_saved"], "reuse_rate": st["reuse_rate"]})
        for name, make in (("igraph cliques(min=k,max=k)", igraph_fn), ("networkx enumerate_all_cliques", networkx_fn)):
            if ref > peer_limits[name]:
                rows.append({"impl": name,
                             "skipped": f"not run above {peer_limits[name]:,} cliques (time budget of this run)"})
                continue
            rows.append(peer(name, lambda make=make: make(G, k), want=ref, label=f"{label}/K{k}", repeat=1, warmup=0))
        base = rows[0]["seconds"]
        for r in rows:
            if "seconds" in r:
                r["ratio_to_la_gpm_dag"] = r["seconds"] / base
                extra = f"  reuse rate {r['reuse_rate']:.2f}" if "reuse_rate" in r else ""
                print(f"  {label:<16} K{k:<3} {r['impl']:<44} {r['seconds'] * 1e3:10.2f} ms  "
                      f"x{r['ratio_to_la_gpm_dag']:8.1f}{extra}")
            else:
                print(f"  {label:<16} K{k:<3} {r['impl']:<44} skipped: {r['skipped']}")
        out.append({"graph": label, "n": G.n, "m": G.m, "pattern": f"{k}-clique", "count": ref, "results": rows})
    return out


@FAMILY.suite(repeats=5, graphs="citeseer,wiki-Vote,G(20000,200000)",
              quick={"graphs": "karate,citeseer", "kmax": 5, "repeats": 2},
              args=[arg("--kmax", type=int, default=None, help="largest k (default: 7 citeseer, 6 wiki-Vote, else 5)")])
def cliques(a):
    """k-cliques on the CPU: the DAG kernel, graphblas masked mxm (k <= 5), the generic plan with and without
    reuse, igraph and networkx (below a clique-count limit), published counts checked."""
    peer_limits = {"igraph cliques(min=k,max=k)": 5_000_000, "networkx enumerate_all_cliques": 700_000}
    rec = Record(a, "cliques", "cliques", rows="results", threads=numba_threads())
    for label in a.graphs:
        t = time.perf_counter()
        G = graph(label)
        print(f"{label}: {G} (loaded in {time.perf_counter() - t:.1f} s)")
        ks = [k for k in KS.get(label, range(3, 6)) if a.kmax is None or k <= a.kmax]
        for res in bench_cliques(label, G, ks, a.repeats, peer_limits):
            rec.add(res, echo=False)
    rec.done()


# ------------------------------------------------------------------ gpu_cliques
@FAMILY.suite(gpu="only", graphs="wiki-Vote,R-MAT 20", quick={"graphs": "karate,R-MAT 10", "kmax": 5, "rmat_kmax": 5},
              args=[arg("--kmin", type=int, default=4), arg("--kmax", type=int, default=8),
                    arg("--rmat-kmax", type=int, default=8, help="largest k on graphs other than wiki-Vote"),
                    arg("--cpu-budget", type=float, default=30.0, help="skip the CPU run above this many seconds"),
                    arg("--gpu-budget", type=float, default=5.0, help="stop a graph's k loop after a GPU run this long"),
                    arg("--variants", default="stack,bitmap,bitmap_unbalanced", help="kernel variants timed beside auto")])
def gpu_cliques(a):
    """k-cliques on the GPU (warp-centric DFS kernels: stack and bitmap, balanced items from BALANCE_MIN_K)
    against the CPU backend on the same machine; G2Miner anchors from ../shared/ANCHORS.md (H100)."""
    from la_gpm.kcliques.gpu import BALANCE_MIN_K
    from la_gpm.kcliques.gpu import clique_count as gpu_count
    warm(4, a.kmax, False)
    rec = Record(a, "cliques_gpu", "k-cliques (gpu)")
    for label in a.graphs:
        G = graph(label)
        cpu_slow = False
        too_slow = set()  # variants that took over --gpu-budget at a smaller k are not run again
        for k in range(a.kmin, (a.kmax if label == "wiki-Vote" else a.rmat_kmax) + 1):
            first, _ = once(lambda: gpu_count(G, k))  # includes the balanced item list (k >= 6), cached after
            g_med, g_times, g_cnt = timeit(lambda: gpu_count(G, k), repeat=5, warmup=0, sync=True, budget_s=10)
            row = {"graph": label, "n": G.n, "m": G.m, "k": k, "count": g_cnt, "gpu_seconds": g_med,
                   "gpu_runs": g_times, "gpu_edges_per_s": G.m / g_med, "gpu_first_call_seconds": first}
            variants = [("stack", {"method": "stack"}), ("bitmap", {"method": "bitmap"})]
            if k >= BALANCE_MIN_K:
                variants.append(("bitmap_unbalanced", {"method": "bitmap", "balance": False}))
            variants = [(n, kw) for n, kw in variants if n not in too_slow and n in a.variants.split(",")]
            for name, kw in variants:  # every kernel, whichever "auto" (gpu_seconds) picked
                m_med, m_times, m_cnt = timeit(lambda kw=kw: gpu_count(G, k, **kw), repeat=5, sync=True, budget_s=10)
                check(f"{label} k={k} gpu {name} vs auto", m_cnt, g_cnt)
                row[f"gpu_{name}_seconds"] = m_med
                row[f"gpu_{name}_runs"] = m_times
                if m_med > a.gpu_budget:
                    too_slow.add(name)
            if (label, k) in G2MINER:
                row["g2miner_seconds_anchor"] = G2MINER[(label, k)]
            if not cpu_slow and a.cpu_budget > 0:
                c_sec, c_cnt = once(lambda: clique_count(G, k, backend="cpu"), sync=False)
                check(f"{label} k={k} cpu vs gpu", g_cnt, c_cnt)
                row.update(cpu_seconds=c_sec, speedup_vs_cpu=c_sec / g_med)
                cpu_slow = c_sec > a.cpu_budget
            else:
                row["cpu_skipped"] = (f"previous k took over {a.cpu_budget} s on the CPU backend" if a.cpu_budget > 0
                                      else "not run (--cpu-budget 0)")
            rec.add(row, echo=f"{label:<10} k={k}  count={g_cnt:>16,}  gpu {g_med * 1e3:10.2f} ms"
                    + " (" + ", ".join(f"{n} {row[f'gpu_{n}_seconds'] * 1e3:.2f}" for n, _ in variants) + ")"
                    + (f"  cpu {row['cpu_seconds']:8.2f} s  x{row['speedup_vs_cpu']:.0f}" if "cpu_seconds" in row else "")
                    + (f"  G2Miner {row['g2miner_seconds_anchor'] * 1e3:.2f} ms" if "g2miner_seconds_anchor" in row
                       else ""))
            if g_med > a.gpu_budget:
                break
    rec.done()


# ------------------------------------------------------------------ clique_parts
def spread(a):
    """Per (scale, k) of --plan: every part of --spread-nparts timed once on the GPU with the old ranges
    (out-degree², arcs unsplit) and the new ones (the k weights, balanced work items); the parts of each
    add up to the whole count. The spread is the slowest part over the median part."""
    from la_gpm.kcliques.gpu import count_ranks, part_rank_range
    n = a.spread_nparts
    rec = Record(a, "clique_parts_spread",
                 "k-clique part spread, old (out-degree², arcs unsplit) vs new weights (gpu)", nparts=n)
    t_start = time.perf_counter()
    for item in a.plan:
        scale, ks = item.split(":")
        k0, k1 = (int(x) for x in ks.split("-")) if "-" in ks else (int(ks), int(ks))
        warm(k0, k1, True, parts=True)
        G = la_gpm.generators.rmat(int(scale), seed=1)
        prev = None
        for k in range(k0, k1 + 1):
            if time.perf_counter() - t_start > a.budget:
                print("budget spent; stopping", flush=True)
                break
            if prev is not None and prev * a.growth > a.spread_cap_s:
                rec.add({"graph": f"R-MAT {scale}", "k": k, "skipped": f"predicted whole > {a.spread_cap_s} s"})
                break
            once(lambda k=k: clique_count(G, k, backend="gpu"))   # builds the caches
            tw, whole = once(lambda k=k: clique_count(G, k, backend="gpu"))
            prev = tw
            row = {"graph": f"R-MAT {scale}", "n": G.n, "m": G.m, "k": k, "count": whole, "gpu_whole_s": tw}
            variants = {"old": (lambda i: rank_range(G, (i, n)), False),
                        "new": (lambda i, k=k: part_rank_range(G, k, (i, n)), None)}
            if k >= 6:   # the weights alone (arcs unsplit), to separate the two changes
                variants["new_unsplit"] = (variants["new"][0], False)
            for name, (ranges, bal) in variants.items():
                count_ranks(G, k, ranges(n // 2), balance=bal)        # items / ranges cached
                times, total = [], 0
                for i in range(n):
                    r = ranges(i)
                    t, c = once(lambda r=r, bal=bal, k=k: count_ranks(G, k, r, balance=bal))
                    times.append(t)
                    total += c
                check(f"R-MAT {scale} K{k} {name} parts", total, whole)
                med = statistics.median(times)
                row[name] = {"spread_max_over_median": max(times) / med, "max_s": max(times), "median_s": med,
                             "sum_s": sum(times), "argmax": times.index(max(times)),
                             "times_s": [round(x, 6) for x in times]}
                print({"scale": scale, "k": k, "variant": name, "spread": round(max(times) / med, 2),
                       "max": round(max(times), 4), "median": round(med, 4), "sum": round(sum(times), 3),
                       "whole": round(tw, 3)}, flush=True)
            rec.add(row, echo=False)
        G = None
    rec.done()


def nonempty_parts(G, k, nparts):
    """The first non-empty part from each quarter (1/4, 1/2, 3/4) of the parts."""
    parts = []
    for f in (nparts // 4, nparts // 2, (3 * nparts) // 4):
        i = next((j for j in range(f, nparts) if np.subtract(*rank_range(G, (j, nparts), k)[::-1]) > 0), None)
        if i is not None and i not in parts:
            parts.append(i)
    return parts


@FAMILY.suite(gpu="optional", quick={"scale": 10, "kmax": 5, "budget": 20.0, "plan": ["10:4-5"], "spread_nparts": 8},
              args=[arg("--scale", type=int, default=20), arg("--kmin", type=int, default=4),
                    arg("--kmax", type=int, default=6),
                    arg("--nparts", type=int, default=16, help="first nparts probed for kmin"),
                    arg("--part-gpu-s", type=float, default=0.06, help="refine nparts until the middle part is faster"),
                    arg("--cpu-max-s", type=float, default=30.0, help="no CPU run predicted longer (GPU time × 300)"),
                    arg("--whole-gpu-kmax", type=int, default=5),
                    arg("--budget", type=float, default=120.0, help="seconds after which no new measurement starts"),
                    arg("--spread", action="store_true", help="the part-spread mode (needs --gpu)"),
                    arg("--plan", nargs="*", default=["20:4-5", "18:5-8", "16:6-8"]),
                    arg("--spread-nparts", type=int, default=64),
                    arg("--spread-cap-s", type=float, default=8.0),
                    arg("--growth", type=float, default=25.0, help="predicted whole time of k = growth × that of k-1")])
def clique_parts(a):
    """k-cliques of an R-MAT graph by part: GPU against the CPU backend on identical parts.

    ``clique_count(G, k, part=(i, nparts))`` counts the cliques whose lowest vertex (degree order) lies in
    the i-th of nparts root ranges (``partition.rank_range``), cut at equal shares of a per-root work
    estimate: the parts add up to the whole count on any mix of backends. Per k: the GPU on the whole
    graph (k <= --whole-gpu-kmax); nparts refined (x8) until the middle part's GPU time is under
    --part-gpu-s, at most 1 / (4 x the largest root's share); three non-empty parts (from 1/4, 1/2, 3/4)
    counted by the GPU (median after a warm-up) and by the CPU backend on all cores (one run, not run when
    the GPU time predicts more than --cpu-max-s), counts checked equal. ``gpu_whole_extrapolated_s`` =
    nparts x the median GPU part time: an extrapolation. Without --gpu: the CPU parts alone.
    --spread: the per-part spread of old against new part weights (see ``spread``)."""
    if a.spread:
        if not a.gpu:
            raise SystemExit("--spread times the GPU: add --gpu")
        return spread(a)
    t_start = time.perf_counter()
    warm(a.kmin, a.kmax, a.gpu, parts=True)
    G = la_gpm.generators.rmat(a.scale, seed=1)
    rec = Record(a, "clique_parts", "k-cliques by part, gpu vs cpu on identical parts", graph=f"R-MAT {a.scale}",
                 n=G.n, m=G.m, cpu_threads=os.cpu_count(),
                 note="gpu_whole_extrapolated_s = nparts x median GPU part time (an extrapolation)")
    nparts = a.nparts
    for k in range(a.kmin, a.kmax + 1):
        if time.perf_counter() - t_start > a.budget:
            print("budget spent; stopping", flush=True)
            break
        if a.gpu and k <= a.whole_gpu_kmax:
            med, times, got = timeit(lambda k=k: clique_count(G, k, backend="gpu"), repeat=3, sync=True, budget_s=20)
            rec.add({"k": k, "part": "whole", "count": got, "gpu_seconds": med, "gpu_runs": times,
                     "gpu_edges_per_s": G.m / med})
        w = clique_weights(G, k)
        cap = max(1, int(0.25 * w.sum() / w.max()))   # parts of several roots: no root above 1/4 of a part
        nparts = min(nparts, cap)
        while a.gpu:   # choose nparts: the middle part under part_gpu_s on the GPU
            once(lambda k=k, n=nparts: clique_count(G, k, backend="gpu", part=(n // 2, n)))
            t, _ = once(lambda k=k, n=nparts: clique_count(G, k, backend="gpu", part=(n // 2, n)))
            print({"k": k, "probe_nparts": nparts, "middle_part_gpu_s": round(t, 4)}, flush=True)
            if t <= a.part_gpu_s or nparts >= cap:
                break
            nparts = min(cap, nparts * max(8, 1 << int(t / a.part_gpu_s).bit_length()))
        gpu_times = []
        for i in nonempty_parts(G, k, nparts):
            part = (i, nparts)
            row = {"k": k, "part": list(part)}
            if a.gpu:
                med, times, g = timeit(lambda k=k, part=part: clique_count(G, k, backend="gpu", part=part), repeat=3,
                                       sync=True, budget_s=10)
                row.update(count=g, gpu_seconds=med, gpu_runs=times)
                gpu_times.append(med)
            if not a.gpu or row["gpu_seconds"] * 300 <= a.cpu_max_s:
                row["cpu_seconds"], c = once(lambda k=k, part=part: clique_count(G, k, backend="cpu", part=part),
                                             sync=False)
                if a.gpu:
                    check(f"R-MAT {a.scale} K{k} part {part}", row["count"], c)
                    row["speedup"] = row["cpu_seconds"] / row["gpu_seconds"]
                else:
                    row["count"] = c
            else:
                row["cpu_skipped"] = f"predicted over {a.cpu_max_s} s (GPU time x 300)"
            rec.add(row, echo={x: row.get(x) for x in ("k", "part", "count", "gpu_seconds", "cpu_seconds", "speedup")})
        if gpu_times:
            rec.add({"k": k, "part": "whole, extrapolated", "nparts": nparts,
                     "gpu_whole_extrapolated_s": nparts * statistics.median(gpu_times)})
    rec.done()


if __name__ == "__main__":
    FAMILY.main()
