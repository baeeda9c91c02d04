"""Motif census on the GPU (closed forms k <= 4, ESU enumeration, the 5-vertex hybrid) against the CPU
backend on the same machine.

    python benchmarks/bench_gpu_census.py --gpu          # k = 4, 5: GPU vs CPU hybrid -> census_gpu_hybrid5_gpu.json
    C5_RMAT16_HYBRID=1 python benchmarks/bench_gpu_census.py --gpu     # also R-MAT 16's 5-census (minutes)
    python benchmarks/bench_gpu_census.py --gpu --full   # the k = 3..6 table and kernel knobs -> census_gpu_gpu.json

Graphs: citeseer (k = 3..6), email-Eu-core and R-MAT 16 (Graph500 initiator, 16 edges/vertex), k = 3, 4, 5.
Every GPU count is checked against the CPU backend's first. Writes benchmarks/results/census_gpu_gpu.json.
Peers from ../shared/ANCHORS.md (H100): G2Miner 4-vertex census citeseer 1.3 ms, R-MAT 16 6.6 s;
DuMato 4-vertex citeseer 0.13 s, 5-vertex citeseer 0.25 s.

The physical floor quoted per row is one read of the CSR (8 bytes per row pointer, 4 per arc)
at the device's 2.89 TB/s copy bandwidth: every method reads the graph at least once.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import check, machine, timeit, versions, write  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm.motifs.driver import census  # noqa: E402

DATA = Path(os.environ.get("LA_GPM_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
PEERS = {("citeseer", 4): {"G2Miner": 1.3e-3, "DuMato": 0.13}, ("citeseer", 5): {"DuMato": 0.25},
         ("R-MAT 16", 4): {"G2Miner": 6.6}}
COPY_BW = 2.89e12


def _counts(df):
    return [int(c) for c in df["count"]]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--rmat5", action="store_true", help="also run the CPU hybrid 5-census on R-MAT 16 (minutes)")
    ap.add_argument("--graphs", default="citeseer,email-Eu-core,R-MAT 16")
    ap.add_argument("--no-variants", action="store_true", help="skip the kernel-knob comparison")
    ap.add_argument("--full", action="store_true", help="the k = 3..6 table (census_gpu_gpu.json) instead of the "
                                                         "hybrid comparison (census_gpu_hybrid5_gpu.json)")
    ap.add_argument("--auto-crossover", action="store_true",
                    help="k = 5 on the GPU, hybrid against enumeration over graphs of rising K2,3 + bowtie copies per "
                         "connected 4-subset (census5_gpu_auto_crossover_gpu.json): the data of gpu_prefers_hybrid")
    args = ap.parse_args(argv)
    if args.auto_crossover:
        return auto_crossover()
    if not args.full:
        return hybrid5_main(args)
    import numba
    rows = []
    payload = {"benchmark": "motif census (gpu)", "machine": machine(), "versions": versions(),
               "numba_threads": numba.get_num_threads(), "rows": rows,
               "note": "GPU times with the graph and its degree-descending relabelling already cached (device "
                       "copy included in the warm-up), as the CPU's relabelling is; counts checked against the "
                       "CPU backend before timing"}
    tiny = la_gpm.generators.gnm(60, 300, seed=0)
    for k in (3, 4, 5):     # compile every kernel (CPU and GPU) before timing
        for m in (("closed_form", "enumerate") if k <= 4 else ("hybrid", "enumerate")):
            census(tiny, k, backend="cpu", method=m)
        census(tiny, k, backend="gpu", method="enumerate")
        if k <= 4:
            census(tiny, k, backend="gpu", method="closed_form")
    makers = {"citeseer": lambda: la_gpm.read_graph(DATA / "citeseer.edgelist"),
              "email-Eu-core": lambda: la_gpm.read_graph(DATA / "email-Eu-core.txt"),
              "R-MAT 16": lambda: la_gpm.generators.rmat(16, seed=1)}
    for label in args.graphs.split(","):
        G = makers[label]()
        floor = ((G.n + 1) * 8 + G.nnz * 4) / COPY_BW
        for k in (3, 4, 5, 6) if label == "citeseer" else (3, 4, 5):
            cases = []
            if k <= 4:
                cases.append(("closed_form", "auto"))
                if label != "R-MAT 16":
                    cases.append(("enumerate", "enumerate"))
            elif label != "R-MAT 16":
                cases.append(("enumerate", "auto" if k == 5 else "enumerate"))
            for gpu_method, cpu_method in cases:
                t = time.perf_counter()
                cpu_df = census(G, k, backend="cpu", method=cpu_method)
                c_first = time.perf_counter() - t
                c_med, c_times, cpu_df = timeit(lambda: census(G, k, backend="cpu", method=cpu_method),
                                                repeat=3 if c_first > 1 else 7, warmup=0, budget_s=30)
                g_med, g_times, gpu_df = timeit(lambda: census(G, k, backend="gpu", method=gpu_method),
                                                repeat=7, sync=True, budget_s=30)
                check(f"{label} k={k} {gpu_method}", _counts(gpu_df), _counts(cpu_df))
                row = {"graph": label, "n": G.n, "m": G.m, "k": k, "gpu_method": gpu_df.attrs["method"],
                       "cpu_method": cpu_df.attrs["method"], "connected_subgraphs": sum(_counts(gpu_df)),
                       "counts": dict(zip(gpu_df["name"], _counts(gpu_df))), "gpu_seconds": g_med,
                       "gpu_runs": g_times, "cpu_seconds": c_med, "cpu_runs": c_times,
                       "speedup_vs_cpu": c_med / g_med, "gpu_edges_per_s": G.m / g_med,
                       "csr_read_floor_seconds": floor}
                if (label, k) in PEERS:
                    row["peers_seconds_anchor"] = PEERS[(label, k)]
                if gpu_method == "enumerate":
                    row["gpu_subgraphs_per_s"] = row["connected_subgraphs"] / g_med
                rows.append(row)
                print(f"{label:<14} k={k} {row['gpu_method']:<16} gpu {g_med * 1e3:10.3f} ms  cpu "
                      f"({row['cpu_method']}) {c_med * 1e3:10.3f} ms  x{row['speedup_vs_cpu']:.1f}"
                      + (f"  peers {row['peers_seconds_anchor']}" if "peers_seconds_anchor" in row else ""),
                      flush=True)
                write("census_gpu", payload)
        if label == "R-MAT 16":
            from la_gpm.motifs.gpu import census4_inputs
            from la_gpm.kcliques.gpu import clique_count
            parts = {"census4_closed kernel (diamonds, 4-cycles, triangles, P4, degree sums)":
                     timeit(lambda: census4_inputs(G), repeat=5, sync=True)[0],
                     "4-cliques (cliques.cu)": timeit(lambda: clique_count(G, 4), repeat=5, sync=True)[0]}
            rows.append({"graph": label, "k": 4, "gpu_closed_form_parts_seconds": parts})
            print("R-MAT 16 k=4 parts:", parts)
            row = {"graph": label, "n": G.n, "m": G.m, "k": 5,
                   "gpu_skipped": "ESU enumeration visits every connected 5-subset (well over 10^13 here); "
                                  "the GPU has no hybrid 5-census yet"}
            if args.rmat5:
                t = time.perf_counter()
                df = census(G, 5, backend="cpu")
                row.update(cpu_seconds=time.perf_counter() - t, cpu_method=df.attrs["method"],
                           connected_subgraphs=sum(_counts(df)))
            rows.append(row)
            write("census_gpu", payload)
    if not args.no_variants:
        payload["variants"] = variants(makers)
    print("wrote", write("census_gpu", payload))


def variants(makers):
    """Kernel knobs against each other (same counts): the k >= 5 work split and the hub blocks."""
    from la_gpm.motifs import gpu as gc
    out = []
    for label, k, knob, values in (("email-Eu-core", 5, "SPLIT", (0, 1, 4)),
                                   ("citeseer", 6, "SPLIT", (0, 1)),
                                   ("R-MAT 16", 4, "HUB_DEGREE", (256, 1 << 30)),
                                   ("email-Eu-core", 4, "HUB_DEGREE", (256, 1 << 30))):
        G = makers[label]()
        keep = getattr(gc, knob)
        ref = None
        try:
            for v in values:
                setattr(gc, knob, v)
                fn = (lambda: gc.esu_counts(G, k)) if knob == "SPLIT" else (lambda: gc.census4_inputs(G))
                med, times, got = timeit(fn, repeat=5, sync=True, budget_s=20)
                ref = got if ref is None else ref
                check(f"{label} k={k} {knob}={v}", got, ref)
                out.append({"graph": label, "k": k, knob: v, "seconds": med, "runs": times})
                print(f"variant {label} k={k} {knob}={v}: {med * 1e3:.2f} ms", flush=True)
        finally:
            setattr(gc, knob, keep)
    return out


def _profile(fn):
    """(result, stage seconds) of one call of fn with the GPU hybrid's stage profile on."""
    from la_gpm.motifs import gpu as gc
    gc.PROFILE = {}
    try:
        out = fn()
        return out, gc.PROFILE
    finally:
        gc.PROFILE = None


def small_input_profile(G, k, method):
    """Where a small census call's time goes: the whole call, the GPU counting function alone (launches,
    allocations, one sync), its stages (device synchronised around each) and the DataFrame / Pattern
    construction."""
    from la_gpm.motifs import driver as M
    from la_gpm.motifs import gpu as gc
    cls = classes(k)
    counts = [0] * len(cls.keys)
    fn = (lambda: gc.esu_counts(G, k)) if method == "enumerate" else (lambda: gc.closed_form_noninduced(G, k))
    out = {"graph_arcs": G.nnz, "k": k, "method": method}
    out["census_call_s"] = timeit(lambda: census(G, k, backend="gpu", method=method), repeat=30, sync=True)[0]
    out["gpu_counting_function_s"] = timeit(fn, repeat=30, sync=True)[0]
    out["dataframe_and_patterns_s"] = timeit(lambda: M._frame(cls, k, counts, True, method), repeat=30)[0]
    out["prepare_and_dispatch_s"] = timeit(lambda: M._prepare(G, "census"), repeat=30)[0]
    _, stages = _profile(fn)     # host steps and the kernel, the device synchronised around each
    out["gpu_stages_s"] = stages
    return out


def auto_crossover():
    """GPU hybrid against GPU enumeration (k = 5, medians of up to 3 after a warm-up, counts checked equal)
    on graphs from sparse to near-complete, with the inputs of gpu_prefers_hybrid (connected 4-subsets,
    K2,3 and bowtie copies from the closed forms) and what it picks."""
    from la_gpm.motifs import driver as M
    from la_gpm.motifs.gpu import gpu_prefers_hybrid
    rows = []
    payload = {"benchmark": "5-vertex census on the GPU: hybrid vs enumeration (the auto rule's crossover)",
               "machine": machine(), "versions": versions(), "rows": rows}
    tiny = la_gpm.generators.gnm(60, 300, seed=0)
    for m in ("hybrid", "enumerate"):
        census(tiny, 5, backend="gpu", method=m)
    graphs = {"email-Eu-core": lambda: la_gpm.read_graph(DATA / "email-Eu-core.txt"),
              "R-MAT 10": lambda: la_gpm.generators.rmat(10, seed=1),
              "G(1000, 40000)": lambda: la_gpm.generators.gnm(1000, 40000, seed=1)}
    for n, m in ((250, 8000), (300, 12000), (200, 7000), (200, 9000), (150, 6000), (120, 5000), (100, 4500)):
        graphs[f"G({n}, {m})"] = (lambda n=n, m=m: la_gpm.generators.gnm(n, m, seed=1))
    for label, make in graphs.items():
        G = make()
        c4, k23, bowtie = M.hybrid5_auto_inputs(G)
        h_med, h_runs, hdf = timeit(lambda: census(G, 5, backend="gpu", method="hybrid"), repeat=3, sync=True,
                                    budget_s=20)
        e_med, e_runs, edf = timeit(lambda: census(G, 5, backend="gpu", method="enumerate"), repeat=3, sync=True,
                                    budget_s=20)
        check(f"{label} k=5 gpu hybrid vs gpu enumerate", _counts(hdf), _counts(edf))
        rows.append({"graph": label, "n": G.n, "m": G.m, "connected4": c4, "K23_copies": k23, "bowtie_copies": bowtie,
                     "copies_per_subset": (k23 + bowtie) / max(c4, 1), "gpu_hybrid_seconds": h_med,
                     "gpu_hybrid_runs": h_runs, "gpu_enumerate_seconds": e_med, "gpu_enumerate_runs": e_runs,
                     "rule_picks": "hybrid" if gpu_prefers_hybrid(c4, k23, bowtie) else "enumerate"})
        print({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in rows[-1].items() if not k.endswith("runs")},
              flush=True)
        write("census5_gpu_auto_crossover", payload)


def hybrid5_main(args):
    """k = 4 and 5 on citeseer, email-Eu-core and R-MAT 16 (plus G(20000, 200000), where the CPU's auto
    picks the hybrid): GPU hybrid against CPU hybrid on the same machine, counts checked equal."""
    import numba

    from la_gpm.motifs import driver as M
    rows = []
    payload = {"benchmark": "motif census k = 4, 5: GPU hybrid vs CPU hybrid", "machine": machine(),
               "versions": versions(), "numba_threads": numba.get_num_threads(), "rows": rows,
               "note": "median of repeated runs after a warm-up; GPU times with the graph's device copies cached; "
                       "every GPU count checked against the CPU backend's (or the GPU enumeration's where the CPU "
                       "is not run) before it is reported"}
    tiny = la_gpm.generators.gnm(60, 300, seed=0)
    for m in ("hybrid", "enumerate", "auto"):
        census(tiny, 5, backend="cpu", method=m)
        census(tiny, 5, backend="gpu", method=m)
    census(tiny, 4, backend="cpu")
    census(tiny, 4, backend="gpu")
    makers = {"citeseer": lambda: la_gpm.read_graph(DATA / "citeseer.edgelist"),
              "email-Eu-core": lambda: la_gpm.read_graph(DATA / "email-Eu-core.txt"),
              "R-MAT 16": lambda: la_gpm.generators.rmat(16, seed=1),
              "G(20000, 200000)": lambda: la_gpm.generators.gnm(20000, 200000, seed=1),
              "R-MAT 12": lambda: la_gpm.generators.rmat(12, seed=1),
              "R-MAT 14": lambda: la_gpm.generators.rmat(14, seed=1)}

    def emit(row):
        rows.append(row)
        print({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in row.items()
               if k not in ("counts", "gpu_runs", "cpu_runs", "gpu_stages_s")}, flush=True)
        write("census_gpu_hybrid5", payload)

    G = makers["citeseer"]()
    census(G, 5, backend="gpu", method="enumerate")
    census(G, 4, backend="gpu", method="closed_form")
    payload["small_input_profile"] = [small_input_profile(G, 5, "enumerate"), small_input_profile(G, 4, "closed_form")]
    print("small input:", payload["small_input_profile"], flush=True)
    for label in ("citeseer", "email-Eu-core", "G(20000, 200000)", "R-MAT 12", "R-MAT 14", "R-MAT 16"):
        G = makers[label]()
        base = {"graph": label, "n": G.n, "m": G.m}
        floor = ((G.n + 1) * 8 + G.nnz * 4) / COPY_BW
        cases = []
        if label in ("citeseer", "email-Eu-core", "R-MAT 16"):
            cases.append((4, "closed_form", "auto"))
        if label in ("citeseer", "email-Eu-core", "G(20000, 200000)"):
            cases += [(5, "hybrid", "hybrid"), (5, "auto", "auto")]
        for k, gm, cm in cases:
            t = time.perf_counter()
            cpu_df = census(G, k, backend="cpu", method=cm)      # warm-up (the graph's CPU caches)
            c_first = time.perf_counter() - t
            if c_first > 2:
                c_med, c_times, cpu_df = timeit(lambda: census(G, k, backend="cpu", method=cm), repeat=1, warmup=0)
            else:
                c_med, c_times, cpu_df = timeit(lambda: census(G, k, backend="cpu", method=cm), repeat=5, warmup=0,
                                                budget_s=20)
            g_med, g_times, gpu_df = timeit(lambda: census(G, k, backend="gpu", method=gm), repeat=7, sync=True,
                                            budget_s=30)
            check(f"{label} k={k} gpu {gm} vs cpu {cm}", _counts(gpu_df), _counts(cpu_df))
            row = dict(base, k=k, gpu_method=gpu_df.attrs["method"], cpu_method=cpu_df.attrs["method"],
                       connected_subgraphs=sum(_counts(gpu_df)), counts=dict(zip(gpu_df["name"], _counts(gpu_df))),
                       gpu_seconds=g_med, gpu_runs=g_times, cpu_seconds=c_med, cpu_runs=c_times,
                       speedup_vs_cpu=c_med / g_med, gpu_edges_per_s=G.m / g_med, csr_read_floor_seconds=floor)
            if (label, k) in PEERS:
                row["peers_seconds_anchor"] = PEERS[(label, k)]
            if gpu_df.attrs["method"] == "gpu_hybrid":
                _, prof = _profile(lambda: census(G, k, backend="gpu", method=gm))
                cop = prof.pop("copies", {})
                row["gpu_stages_s"] = prof
                row["copies_listed"] = cop
                dense = prof.get("dense5_hits", 0.0)
                if dense:
                    row["dense_copies_per_s_excluding_c5"] = (cop.get("K23", 0) + cop.get("bowtie", 0)) / dense
                # the GPU's own crossover: its enumeration on the same graph (for the auto rule)
                e_med, e_times, edf = timeit(lambda: census(G, k, backend="gpu", method="enumerate"), repeat=5,
                                             sync=True, budget_s=20)
                check(f"{label} k={k} gpu enumerate vs gpu hybrid", _counts(edf), _counts(gpu_df))
                row.update(gpu_enumerate_seconds=e_med, gpu_enumerate_runs=e_times)
            emit(row)
        if label in ("R-MAT 16", "R-MAT 14", "R-MAT 12"):
            # the hybrid's inputs: how many copies the dense part would list (closed forms, GPU)
            from la_gpm.motifs.gpu import closed_form_noninduced, sigma4
            t = time.perf_counter()
            N4 = closed_form_noninduced(G, 4)
            connected4 = sum(to_induced(classes(4).M, N4))
            sigma, k23hub = sigma4(G)
            import cupy as cp
            cp.cuda.Device().synchronize()
            t_sigma = time.perf_counter() - t
            k23, bowtie = M.dense_copy_counts(sigma, k23hub)
            row = dict(base, k=5, connected4=connected4, K23_copies=k23, bowtie_copies=bowtie,
                       cpu_auto_rule="enumerate" if 3 * (k23 + bowtie) > connected4 else "hybrid",
                       gpu_closed_form4_plus_sigma4_seconds=t_sigma)
            if label == "R-MAT 12":
                # GPU hybrid against GPU enumeration where the CPU's rule says enumerate (the CPU is not run:
                # its hybrid would take minutes)
                (g_h, gh_times, hdf) = timeit(lambda: census(G, 5, backend="gpu", method="hybrid"), repeat=3,
                                              sync=True, budget_s=30)
                (g_e, ge_times, edf) = timeit(lambda: census(G, 5, backend="gpu", method="enumerate"), repeat=1,
                                              sync=True)
                check("R-MAT 12 k=5 gpu hybrid vs gpu enumerate", _counts(hdf), _counts(edf))
                _, prof = _profile(lambda: census(G, 5, backend="gpu", method="hybrid"))
                prof.pop("copies", None)
                row.update(gpu_hybrid_seconds=g_h, gpu_enumerate_seconds=g_e, gpu_stages_s=prof,
                           connected_subgraphs=sum(_counts(hdf)))
            elif label == "R-MAT 14" or os.environ.get("C5_RMAT16_HYBRID"):
                # one run, no warm-up, no other check than the hybrid's own (listed K2,3 / bowtie copies equal
                # to their closed forms, every division exact): neither the CPU nor the enumeration ends here
                t = time.perf_counter()
                df, prof = _profile(lambda: census(G, 5, backend="gpu", method="hybrid"))
                row.update(gpu_hybrid_seconds=time.perf_counter() - t, gpu_stages_s=prof,
                           counts=dict(zip(df["name"], _counts(df))), connected_subgraphs=sum(_counts(df)),
                           gpu_method=df.attrs["method"])
            else:
                row["gpu_hybrid"] = ("not run here (set C5_RMAT16_HYBRID=1): the dense part lists every K2,3 and "
                                     f"bowtie copy ({k23 + bowtie:.3g}) plus the 5-cycles")
            emit(row)
        del G
    print("wrote", write("census_gpu_hybrid5", payload))


if __name__ == "__main__":
    main()
