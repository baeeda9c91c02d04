"""All 200 HPRD queries in one call: batched count_many on the GPU against one-by-one counting (GPU and
the CPU engine on the same machine's cores) and the CPU batch.

    python benchmarks/bench_hprd_batch.py --gpu         # writes hprd_batch_<tag>.json
    python benchmarks/bench_hprd_batch.py               # the CPU rows only
    python benchmarks/bench_hprd_batch.py --sanitize    # small batches touching every path (compute-sanitizer)

Every timed result (the 200 embedding counts) is checked against the published counts; a case
that fails is recorded with its error and the others still run. Times: median of repeated calls
after a warm-up call, device synchronised. "engine" rows start from compiled plans (``plan_for``
timed apart: it is host work shared by every engine); "count_many"/"count_pattern" rows are the
public calls (count_many caches plans on the graph, so its warm calls compile nothing; its first,
cold call is timed apart).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import traceback
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import check, hprd, machine, timeit, versions, write  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm.exact.batch import count_many, count_plans_batch_cpu  # noqa: E402
from la_gpm.exact.driver import count_pattern, plan_for, run_plan  # noqa: E402
from la_gpm.patterns import read_query  # noqa: E402

DATA = Path(os.environ.get("LA_GPM_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
COPIES = 5  # the scaling row: the 200 queries repeated this many times in one batch


def sanitize():
    """Small batches: unlabeled, vertex- and edge-labeled, induced, tiny level capacities, chunks."""
    import numpy as np

    import la_gpm.exact.dumato as genum
    G = la_gpm.datasets.load("karate")
    names = ["edge", "wedge", "triangle", "4-cycle", "diamond", "house", "tailed-triangle", "5-path", "hourglass"]
    for induced in (False, True):
        want = [count_pattern(G, n, induced=induced, closed_forms=False) for n in names]
        for deep in (None, 0, 10**9):
            assert count_many(G, names, induced=induced, backend="gpu", deep_items=deep) == want
        old = genum.BATCH_MAX_ITEMS
        genum.BATCH_MAX_ITEMS = 3
        try:
            assert count_many(G, names, induced=induced, backend="gpu", deep_items=10**9) == want
        finally:
            genum.BATCH_MAX_ITEMS = old
        assert count_many(G, names, induced=induced, backend="gpu", memory_budget=3 * 20 * 4 * 4 + 600) == want
    rng = np.random.default_rng(0)
    n = 60
    src, dst = np.nonzero(np.triu(rng.random((n, n)) < 0.15, 1))
    GL = la_gpm.Graph.from_edges(src, dst, n=n, vertex_labels=rng.integers(0, 3, n),
                                 edge_labels=rng.integers(0, 2, src.shape[0]))
    pats = [la_gpm.Pattern([(0, 1), (1, 2), (2, 0), (2, 3)], vertex_labels=[0, 1, 2, 0],
                           edge_labels={(0, 1): 0, (1, 2): 1, (0, 2): 0, (2, 3): 1}),
            la_gpm.Pattern([(0, 1), (1, 2), (2, 3), (3, 0)], vertex_labels=[0, 1, 0, 1]),
            la_gpm.Pattern([(0, 1)], vertex_labels=[2, 2], edge_labels={(0, 1): 1}), "4-cycle", "diamond"]
    for induced in (False, True):
        want = [count_pattern(GL, P, induced=induced, closed_forms=False) for P in pats]
        assert count_many(GL, pats, induced=induced, backend="gpu") == want
        assert count_many(GL, pats, induced=induced, backend="gpu", deep_items=0) == want
    H, exp = hprd(DATA)
    names = list(exp)[:12]
    Qs = [read_query(DATA / "hprd" / "query_graph" / f"{nm}.graph") for nm in names]
    assert count_many(H, Qs, count="embeddings", backend="gpu") == [exp[nm] for nm in names]
    print("sanitize workload OK")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--sanitize", action="store_true")
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    if args.sanitize:
        return sanitize()
    import numba

    G, exp = hprd(DATA)
    names = list(exp)
    Qs = [read_query(DATA / "hprd" / "query_graph" / f"{nm}.graph") for nm in names]
    want = [exp[nm] for nm in names]
    aut = [Q.automorphism_count for Q in Qs]
    out = {"benchmark": "HPRD 200 labeled queries (embeddings): batched vs one by one", "machine": machine(),
           "versions": versions(), "graph": {"name": "HPRD", "n": G.n, "m": G.m},
           "queries": len(Qs), "cpu_threads": numba.get_num_threads(), "cases": {}, "errors": {}}
    t = time.perf_counter()
    plans = [plan_for(G, Q) for Q in Qs]
    out["plan_compile_s"] = time.perf_counter() - t
    med, _, _ = timeit(lambda: [plan_for(G, Q) for Q in Qs], repeat=3, warmup=0, budget_s=5)
    out["plan_compile_median_s"] = med

    def emb(counts):
        return [c * a for c, a in zip(counts, aut)]

    def case(label, fn, repeat, expect=want, sync=False, note=None):
        try:
            med, times, res = timeit(fn, repeat=repeat, warmup=1, sync=sync, budget_s=20)
            if isinstance(res, tuple):
                res, stats = res
            else:
                stats = None
            check(label, list(res), expect)
            row = {"median_s": med, "min_s": min(times), "runs": len(times)}
            if stats:
                row["stats"] = {k: v for k, v in stats.items() if isinstance(v, (int, float, str))}
            if note:
                row["note"] = note
            out["cases"][label] = row
            print(f"{label:<40} median {med * 1e3:9.3f} ms  min {min(times) * 1e3:9.3f} ms", flush=True)
        except SystemExit as e:  # a count mismatch: recorded, the other cases still run
            out["errors"][label] = str(e)
            print("ERROR", label, e, flush=True)
        except Exception:  # noqa: BLE001
            out["errors"][label] = traceback.format_exc()[-2000:]
            print("ERROR", label, traceback.format_exc(), flush=True)

    if args.gpu:
        import cupy as cp

        from la_gpm.exact.dumato import count_plan_gpu, count_plans_batch_gpu
        # the cold call: plan compilation, packed tables and items to the device, then the batch
        try:
            count_many(G, Qs[:2], count="embeddings", backend="gpu")  # kernel compilation out of the way
            G._cache.pop("batch:plans", None)
            G._cache.pop("dev:gpu:enum:batches", None)
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            res = count_many(G, Qs, count="embeddings", backend="gpu")
            cp.cuda.Device().synchronize()
            out["cases"]["gpu_batch_count_many_cold"] = {"seconds": time.perf_counter() - t,
                                                         "note": "first call: plan_for of every query included"}
            check("gpu cold", res, want)
        except BaseException as e:  # noqa: BLE001
            out["errors"]["gpu_batch_count_many_cold"] = repr(e)
        case("gpu_batch_count_many", lambda: count_many(G, Qs, count="embeddings", backend="gpu", return_stats=True),
             args.repeat, sync=True)
        case("gpu_batch_engine", lambda: emb(count_plans_batch_gpu(G, plans)[0]), args.repeat, sync=True)
        import la_gpm.exact.dumato as genum
        genum.BATCH_GRAPHS = False
        case("gpu_batch_engine_no_cuda_graph", lambda: emb(count_plans_batch_gpu(G, plans)[0]), args.repeat, sync=True,
             note="the same batch with one Python launch per depth instead of one CUDA graph launch")
        genum.BATCH_GRAPHS = True
        genum.BATCH_WARP_SEARCH = False
        case("gpu_batch_engine_scalar_search", lambda: emb(count_plans_batch_gpu(G, plans)[0]), args.repeat, sync=True,
             note="the same batch with the kernels' scalar binary searches (BATCH_WARP_SEARCH=False)")
        genum.BATCH_WARP_SEARCH = True
        st = count_plans_batch_gpu(G, plans)[1]
        out["gpu_batch_stats"] = {k: v for k, v in st.items() if isinstance(v, (int, float, str, bool))}
        case("gpu_batch_engine_dfs_from_roots", lambda: emb(count_plans_batch_gpu(G, plans, deep_items=0)[0]),
             args.repeat, sync=True, note="deep_items=0: every (query, root) searched depth first by one warp")
        # the device's share: CUDA events around one batch (includes any gap the host leaves)
        try:
            spans = []
            for _ in range(10):
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                count_plans_batch_gpu(G, plans)
                b.record()
                b.synchronize()
                spans.append(cp.cuda.get_elapsed_time(a, b) / 1e3)
            out["cases"]["gpu_batch_engine_event_span"] = {"median_s": statistics.median(spans)}
        except Exception as e:  # noqa: BLE001
            out["errors"]["gpu_batch_engine_event_span"] = repr(e)
        out["cases"]["gpu_floor_same_launches_empty"] = _launch_floor(st, args.repeat)
        many = plans * COPIES
        case(f"gpu_batch_engine_x{COPIES}", lambda: _fold(count_plans_batch_gpu(G, many)[0], len(plans), aut), 5,
             sync=True, note=f"the 200 queries {COPIES} times in one batch; counts of every copy checked")
        case(f"gpu_batch_engine_x{COPIES}_deep_items_8448",
             lambda: _fold(count_plans_batch_gpu(G, many, deep_items=8448)[0], len(plans), aut), 5, sync=True,
             note="depth first from the first level with 8,448 items (2 per resident warp; the first default)")
        case("gpu_one_by_one_engine", lambda: emb([count_plan_gpu(G, p)[0] for p in plans]), 3, sync=True,
             note="today's single-query path (count_plan_gpu, default deep items) on compiled plans")
        case("gpu_one_by_one_count_pattern",
             lambda: [count_pattern(G, Q, count="embeddings", backend="gpu", gpu_engine="dfs") for Q in Qs], 3,
             sync=True, note="public calls, plan_for included")
    case("cpu_one_by_one_engine", lambda: emb([run_plan(G, p)[0] for p in plans]), 5,
         note="the numba engine (run_plan) per compiled plan, all cores per query")
    case("cpu_one_by_one_count_pattern", lambda: [count_pattern(G, Q, count="embeddings", backend="cpu") for Q in Qs],
         3, note="public calls, plan_for included")
    case("cpu_batch_engine", lambda: emb(count_plans_batch_cpu(G, plans)), args.repeat,
         note="one parallel region over (query, 16 roots) tasks on compiled plans")
    case("cpu_batch_count_many", lambda: count_many(G, Qs, count="embeddings", backend="cpu", cpu_batch=True),
         args.repeat, note="count_many(cpu_batch=True), plans cached on the graph")
    many = plans * COPIES
    case(f"cpu_batch_engine_x{COPIES}", lambda: _fold(count_plans_batch_cpu(G, many), len(plans), aut), 5)
    c = out["cases"]
    sp = {}
    for g in ("gpu_batch_count_many", "gpu_batch_engine", "gpu_batch_engine_scalar_search",
              "gpu_batch_engine_dfs_from_roots", "gpu_one_by_one_engine"):
        for cpu in ("cpu_one_by_one_engine", "cpu_one_by_one_count_pattern", "cpu_batch_engine"):
            if g in c and cpu in c:
                sp[f"{g} vs {cpu}"] = c[cpu]["median_s"] / c[g]["median_s"]
    if f"gpu_batch_engine_x{COPIES}" in c and f"cpu_batch_engine_x{COPIES}" in c:
        sp[f"gpu_batch_engine_x{COPIES} vs cpu_batch_engine_x{COPIES}"] = (
            c[f"cpu_batch_engine_x{COPIES}"]["median_s"] / c[f"gpu_batch_engine_x{COPIES}"]["median_s"])
    out["speedups"] = sp
    for k, v in sp.items():
        print(f"{k:<75} {v:8.2f}x")
    print("wrote", write("hprd_batch", out))


def _launch_floor(st, repeat):
    """The batch's fixed cost with no work: the same number of dependent launches of the same grid
    (an empty kernel) captured as one CUDA graph, between the same small host-to-device and
    device-to-host copies as a real batch (counters set, counts read back)."""
    import cupy as cp
    empty = cp.RawKernel(r'''extern "C" __global__ void la_empty(unsigned long long* c) {
        if (c[0] == 0xFFFFFFFFull && threadIdx.x == 0) c[1] = blockIdx.x; }''', "la_empty")
    launches, warps = int(st["launches"]), int(st["warps"])
    grid = max(1, warps * 32 // 256)
    ctr = cp.zeros(2, dtype=cp.uint64)
    host = np.zeros(2, dtype=np.uint64)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        for _ in range(launches):
            empty((grid,), (256,), (ctr,))
        graph = stream.end_capture()

    def one():
        with stream:
            ctr.set(host)
            graph.launch()
            return ctr.get()
    med, times, _ = timeit(one, repeat=max(repeat, 11), warmup=2, sync=True, budget_s=5)
    row = {"median_s": med, "min_s": min(times), "runs": len(times), "launches": launches, "grid": grid,
           "note": "floor: the batch's launches of an empty kernel as one CUDA graph + its two small copies"}
    print(f"{'gpu_floor_same_launches_empty':<40} median {med * 1e3:9.3f} ms", flush=True)
    return row


def _fold(counts, nq, aut):
    """The counts of a batch of repeated queries, checked copy against copy, as embeddings of the first."""
    first = counts[:nq]
    for s in range(nq, len(counts), nq):
        if counts[s:s + nq] != first:
            raise SystemExit("COUNT MISMATCH between copies of the same query in one batch")
    return [x * a for x, a in zip(first, aut)]


if __name__ == "__main__":
    main()
