"""k-cliques of R-MAT graphs by part: per-part spread of the part weights, and GPU against the CPU
backend on identical parts.

    python benchmarks/bench_clique_parts.py --gpu [--kmin 4 --kmax 6 --whole-gpu-kmax 5 --budget 120]
    python benchmarks/bench_clique_parts.py --gpu --spread [--plan 20:4-5 18:5-8 16:6-8 --spread-nparts 64]

``clique_count(G, k, part=(i, nparts))`` counts the cliques whose lowest vertex (degree order)
lies in the i-th of nparts root ranges, ``partition.rank_range(G, part, k)``, cut at equal shares of
a per-root work estimate (out-degree² for k <= 4, a search-tree estimate for k >= 5): the parts
add up to the whole count on any mix of backends.

Default mode, per k: the GPU on the whole graph (k <= --whole-gpu-kmax); then nparts is chosen so
that one part is small (the GPU time of the middle part probed, nparts multiplied by 8 until it
is under --part-gpu-s) but holds several roots (nparts at most 1 / (4 × the largest root's share of
the weights): finer cuts leave empty and one-root parts), and three non-empty parts (from 1/4, 1/2,
3/4 of the parts) are counted by the GPU
(median after a warm-up, device synchronised) and by the CPU backend on all cores (one run, not
run when the GPU time predicts more than --cpu-max-s); the counts are checked equal and their ratio
is a measured speed-up on identical work. ``gpu_whole_extrapolated_s`` = nparts × the median GPU
part time: an extrapolation (the parts are about equal estimated work), labelled as such.

``--spread``: per (scale, k) of --plan, every part of --spread-nparts is timed once on the GPU with
the old ranges (out-degree², arcs unsplit: the previous release) and the new ones (the k weights,
the part's balanced work items); the parts of each must add up to the same whole count. The
spread is the slowest part over the median part. A (scale, k) whose whole-graph GPU time is
predicted above --spread-cap-s from k - 1 is skipped.

Writes ``clique_parts_<cpu|gpu>.json`` (``clique_parts_spread_<...>.json`` with --spread).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import _sync, check, machine, timeit, versions, write  # noqa: E402

import numpy as np  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm.kcliques import clique_count  # noqa: E402
from la_gpm.partition import clique_weights, rank_range  # noqa: E402


def _timed(fn):
    _sync()
    t = time.perf_counter()
    r = fn()
    _sync()
    return time.perf_counter() - t, r


def _warm(kmin, kmax, gpu):
    tiny = la_gpm.generators.gnm(50, 300, seed=0)
    for k in range(kmin, kmax + 1):               # compile before timing
        clique_count(tiny, k, backend="cpu")
        clique_count(tiny, k, backend="cpu", part=(0, 2))
        if gpu:
            clique_count(tiny, k, backend="gpu")
            clique_count(tiny, k, backend="gpu", part=(0, 2))


def spread(a):
    from la_gpm.kcliques.gpu import count_ranks, part_rank_range

    rows = []
    payload = {"benchmark": "k-clique part spread, old (out-degree², arcs unsplit) vs new weights (gpu)",
               "machine": machine(), "versions": versions(), "nparts": a.spread_nparts, "rows": rows}
    t_start = time.perf_counter()
    n = a.spread_nparts
    for item in a.plan:
        scale, ks = item.split(":")
        k0, k1 = (int(x) for x in ks.split("-")) if "-" in ks else (int(ks), int(ks))
        _warm(k0, k1, True)
        G = la_gpm.generators.rmat(int(scale), seed=1)
        prev = None
        for k in range(k0, k1 + 1):
            if time.perf_counter() - t_start > a.budget:
                print("budget spent; stopping", flush=True)
                break
            if prev is not None and prev * a.growth > a.spread_cap_s:
                rows.append({"graph": f"R-MAT {scale}", "k": k, "skipped": f"predicted whole > {a.spread_cap_s} s"})
                print(rows[-1], flush=True)
                break
            tw, whole = _timed(lambda k=k: clique_count(G, k, backend="gpu"))   # also builds the caches
            tw, whole = _timed(lambda k=k: clique_count(G, k, backend="gpu"))
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
                    t, c = _timed(lambda r=r, bal=bal, k=k: count_ranks(G, k, r, balance=bal))
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
            rows.append(row)
            write("clique_parts_spread", payload)   # after every row: a timeout keeps what was measured
        G = None
    print("wrote", write("clique_parts_spread", payload))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--spread", action="store_true")
    ap.add_argument("--plan", nargs="*", default=["20:4-5", "18:5-8", "16:6-8"])
    ap.add_argument("--spread-nparts", type=int, default=64)
    ap.add_argument("--spread-cap-s", type=float, default=8.0)
    ap.add_argument("--growth", type=float, default=25.0, help="predicted whole time of k = growth × that of k-1")
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--kmin", type=int, default=4)
    ap.add_argument("--kmax", type=int, default=6)
    ap.add_argument("--nparts", type=int, default=16, help="first nparts probed for kmin")
    ap.add_argument("--part-gpu-s", type=float, default=0.06, help="refine nparts until the middle part is faster")
    ap.add_argument("--cpu-max-s", type=float, default=30.0, help="no CPU run predicted longer (GPU time × 300)")
    ap.add_argument("--whole-gpu-kmax", type=int, default=5)
    ap.add_argument("--budget", type=float, default=120.0, help="seconds after which no new measurement starts")
    ap.add_argument("--name", default="clique_parts")
    a = ap.parse_args(argv)
    if a.spread:
        if not a.gpu:
            raise SystemExit("--spread times the GPU: add --gpu")
        return spread(a)
    t_start = time.perf_counter()
    _warm(a.kmin, a.kmax, a.gpu)
    G = la_gpm.generators.rmat(a.scale, seed=1)
    rows = []
    payload = {"benchmark": "k-cliques by part, gpu vs cpu on identical parts", "machine": machine(),
               "versions": versions(), "graph": f"R-MAT {a.scale}", "n": G.n, "m": G.m,
               "cpu_threads": os.cpu_count(), "rows": rows,
               "note": "gpu_whole_extrapolated_s = nparts x median GPU part time (an extrapolation)"}
    nparts = a.nparts
    for k in range(a.kmin, a.kmax + 1):
        if time.perf_counter() - t_start > a.budget:
            print("budget spent; stopping", flush=True)
            break
        if a.gpu and k <= a.whole_gpu_kmax:
            med, times, got = timeit(lambda k=k: clique_count(G, k, backend="gpu"), repeat=3, sync=True, budget_s=20)
            rows.append({"k": k, "part": "whole", "count": got, "gpu_seconds": med, "gpu_runs": times,
                         "gpu_edges_per_s": G.m / med})
            print(rows[-1], flush=True)
        w = clique_weights(G, k)
        cap = max(1, int(0.25 * w.sum() / w.max()))   # parts of several roots: no root above 1/4 of a part
        nparts = min(nparts, cap)
        if a.gpu:   # choose nparts: the middle part under part_gpu_s on the GPU
            while True:
                t, _ = _timed(lambda k=k, n=nparts: clique_count(G, k, backend="gpu", part=(n // 2, n)))
                t, _ = _timed(lambda k=k, n=nparts: clique_count(G, k, backend="gpu", part=(n // 2, n)))
                print({"k": k, "probe_nparts": nparts, "middle_part_gpu_s": round(t, 4)}, flush=True)
                if t <= a.part_gpu_s or nparts >= cap:
                    break
                nparts = min(cap, nparts * max(8, 1 << int(t / a.part_gpu_s).bit_length()))
        parts = []
        for f in (nparts // 4, nparts // 2, (3 * nparts) // 4):   # the first non-empty part from each quarter
            i = next((j for j in range(f, nparts) if np.subtract(*rank_range(G, (j, nparts), k)[::-1]) > 0), None)
            if i is not None and i not in parts:
                parts.append(i)
        gpu_times = []
        for i in parts:
            part = (i, nparts)
            row = {"k": k, "part": list(part)}
            if a.gpu:
                med, times, g = timeit(lambda k=k, part=part: clique_count(G, k, backend="gpu", part=part), repeat=3,
                                       sync=True, budget_s=10)
                row.update(count=g, gpu_seconds=med, gpu_runs=times)
                gpu_times.append(med)
            if not a.gpu or row["gpu_seconds"] * 300 <= a.cpu_max_s:
                t = time.perf_counter()
                c = clique_count(G, k, backend="cpu", part=part)
                row["cpu_seconds"] = time.perf_counter() - t
                if a.gpu:
                    check(f"R-MAT {a.scale} K{k} part {part}", row["count"], c)
                    row["speedup"] = row["cpu_seconds"] / row["gpu_seconds"]
                else:
                    row["count"] = c
            else:
                row["cpu_skipped"] = f"predicted over {a.cpu_max_s} s (GPU time x 300)"
            rows.append(row)
            print({x: row.get(x) for x in ("k", "part", "count", "gpu_seconds", "cpu_seconds", "speedup")}, flush=True)
        if gpu_times:
            rows.append({"k": k, "part": "whole, extrapolated", "nparts": nparts,
                         "gpu_whole_extrapolated_s": nparts * statistics.median(gpu_times)})
            print(rows[-1], flush=True)
        _sync()
        write(a.name, payload)   # after every k: a timeout keeps what was measured
    print("wrote", write(a.name, payload))


if __name__ == "__main__":
    main()
