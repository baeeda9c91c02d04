"""Color-coding tree counting (la_gpm.color_coding): per-coloring time, SpMM bandwidth, kernel variants,
the tree census; coloring variance; the rooted SpMM candidates for a hardware-counter profile.

    python benchmarks/bench_color_coding.py color_coding --scales 12 14 --templates u7 u10 u12   # CPU
    python benchmarks/bench_color_coding.py color_coding --gpu        # the standard GPU run (see its --help)
    python benchmarks/bench_color_coding.py color_coding --gpu --scales 18 20 --templates u10 u12 u13
    python benchmarks/bench_color_coding.py coloring_variance [--colorings 400]
    ncu ... python3 benchmarks/bench_color_coding.py profile_spmm --scale 20 --k 12 --ps 4 5
    python benchmarks/bench_color_coding.py estimate_auto [--limit 40]     # exact="auto": predicted vs actual
    python benchmarks/bench_color_coding.py SUITE --quick

Results: color_coding_<cpu|gpu>.json (tagged by the backend timed), coloring_variance_<tag>.json,
estimate_auto_cpu.json; profile_spmm prints only.
"""

from __future__ import annotations

import math
import os
import time

import numpy as np
from harness import Family, Record, arg, copy_bandwidth, device_sync, graph, timeit

import la_gpm
from la_gpm.color_coding import driver as cc
from la_gpm.color_coding.cpu_kernels import coloring_keys, colors_from_keys
from la_gpm.color_coding.trees import plan_tree, rooted_gather_table, tree_automorphisms

FAMILY = Family(__doc__)
KEYS = (12345, 0, 1)    # the coloring every timed run uses


def timed(fn, gpu, repeat, warmup=1):
    """(median seconds, runs) of fn, the device synchronised around each call on the GPU."""
    med, ts, _ = timeit(fn, repeat=repeat, warmup=warmup, sync=gpu, budget_s=1e9)
    return med, ts


def free_gpu(gpu):
    if gpu:
        import cupy as cp
        cp.get_default_memory_pool().free_all_blocks()


# ------------------------------------------------------------------ byte counts
def spmm_bytes(G, plan, item):
    """Bytes the plan's SpMMs must move per coloring: nnz·(gathered columns) + n·(output columns)."""
    tot = 0
    for op in plan.ops:
        if op.kind == "spmm":
            gathered = math.comb(plan.k, op.size) if plan.layout == "dense" else math.comb(plan.k - 1, op.size - 1)
            tot += (G.nnz * gathered + G.n * op.cols) * item
    return tot


def plan_cols(plan, op):
    """(Ca, Cb) of an eMA op: its inputs' table widths."""
    return plan.ops[op.inputs[0]].cols, plan.ops[op.inputs[1]].cols


def ema_bytes(G, plan, item):
    """Bytes the plan's eMAs must move per coloring: each reads its two input tables and writes its output once
    (n·(Ca + Cb + Cs) values; the split tables are a few KB and stay in cache); an unlabelled leaf's eMA moves
    nothing (its B is its table: ``driver.ALIAS_LEAF``)."""
    return sum(G.n * (sum(plan_cols(plan, op)) + op.cols) * item for i, op in enumerate(plan.ops)
               if op.kind == "ema" and not cc.aliased(plan, i))


def effective_arcs(G, col):
    """Arcs (i, j) whose colours differ under the colours ``col``: the rooted kernels gather only these (an arc
    with c_j = c_i adds to no output set)."""
    src = np.repeat(np.arange(G.n, dtype=np.int64), np.diff(G.indptr))
    return int(np.count_nonzero(col[src] != col[G.indices]))


def honest_bytes(G, k, p, eff_arcs, item):
    """Bytes a rooted SpMM of size p moves at least: the gathered rows (C(k-1, p-1) values per arc with
    differing colours) + the output (C(k-1, p) per row) + A (4-byte index and 1-byte colour per arc)."""
    return eff_arcs * math.comb(k - 1, p - 1) * item + G.n * math.comb(k - 1, p) * item + G.nnz * 5


# ------------------------------------------------------------------ color_coding
def rooted_sweep(G, k, ps, repeat, dtype, keys):
    """Every rooted SpMM variant (GpuOps.rooted_variants) for products of sizes ``ps``: seconds, honest
    bandwidth, and the largest relative difference from the gather kernel's output."""
    import cupy as cp

    from la_gpm.color_coding.gpu import GpuOps
    item = np.dtype(dtype).itemsize
    ops = GpuOps(G, k, np.dtype(dtype), "custom", None)
    colors = ops.colors(keys)
    eff = effective_arcs(G, colors_from_keys(keys, G.n, k))
    rng = np.random.default_rng(0)
    out = []
    # the colour sort of the "sorted" kernels: once per coloring, shared by every product
    t_sort, _ = timed(lambda: ops.sort_arcs(colors), True, repeat)
    print(f"  colour sort of the arcs (k={k}): {t_sort * 1e3:.2f} ms per coloring", flush=True)
    for p in ps:
        Wp = math.comb(k - 1, p - 1)
        X = cp.asarray(rng.random((G.n, Wp), dtype=np.float64).astype(dtype))
        Q = rooted_gather_table(k, p)
        ref = ops.spmm_rooted(X, Q, colors, p, ("gather",))
        scale = float(cp.abs(ref).max())
        hb = honest_bytes(G, k, p, eff, item)
        row = {"k": k, "p": p, "gathered_columns": Wp, "output_columns": math.comb(k - 1, p),
               "effective_arcs": eff, "honest_bytes": hb, "variants": []}
        for var, t in ops.time_variants(X, Q, colors, p, repeat=repeat):
            Y = ops.spmm_rooted(X, Q, colors, p, var)
            err = float(cp.abs(Y - ref).max()) / max(1e-30, scale)
            row["variants"].append({"variant": list(var), "seconds": t, "honest_bytes_per_s": hb / t,
                                    "max_rel_diff_vs_gather": err})
            Y = None
        row["rule"] = list(ops.rooted_rule(p))
        row["sort_seconds_per_coloring"] = t_sort
        out.append(row)
        best = row["variants"][0]
        cells = "  ".join(f"{'/'.join(map(str, v['variant']))} {v['seconds'] * 1e3:.2f}" for v in row["variants"])
        print(f"  rooted k={k} p={p} Wp={Wp:4d}  best {best['variant']} {best['seconds'] * 1e3:.2f} ms "
              f"{best['honest_bytes_per_s'] / 1e12:.3f} TB/s  | {cells}", flush=True)
        X = None
    return out


def census_bench(G, k, backend, dtype, gpu, repeat, ginfo):
    """Seconds per coloring of tree_census's merged plan and of every tree's own plan."""
    from la_gpm.color_coding.all_trees import plan_census
    cen = plan_census(k, max(G.n, 1), max(G.nnz, 1))
    ops = cc.make_ops(G, backend, np.dtype(dtype), "auto", cen.trees[0], cen.plan)
    runner = cc.Runner(G, cen.trees[0], cen.plan, ops)
    keys = coloring_keys(*KEYS)
    roots = set(cen.roots)
    t_merged, _ = timed(lambda: runner.run(keys, roots=roots), gpu, repeat)
    t_sep = 0.0
    for P in cen.trees:
        r1 = cc.prepare(G, P, backend, dtype, "auto")[5]
        t_sep += timed(lambda: r1.run(keys), gpu, repeat)[0]
    row = {"graph": ginfo, "k": k, "trees": len(cen.trees), "merged_per_coloring_s": t_merged,
           "separate_per_coloring_s": t_sep, "merged_spmm_cols": cen.shared_spmm_cols,
           "separate_spmm_cols": cen.separate_spmm_cols, "merged_peak_cols": cen.plan.peak_cols}
    print(f"  census {ginfo['name']} k={k} ({len(cen.trees)} trees): merged {t_merged * 1e3:.2f} ms per coloring, "
          f"trees one by one {t_sep * 1e3:.2f} ms", flush=True)
    return row


class CpuSpmm:
    """SpMM variants on the host for the column sweep."""

    def __init__(self, G, dtype):
        from la_gpm.color_coding.cpu import CpuOps
        self.ops = {m: CpuOps(G, 3, np.dtype(dtype), m, None) for m in ("numba", "scipy")}
        try:
            from la_gpm.backends import graphblas_status
            if graphblas_status() is None:
                self.ops["graphblas"] = CpuOps(G, 3, np.dtype(dtype), "graphblas", None)
        except Exception:  # noqa: BLE001
            pass

    def spmm_with(self, X, m):
        return self.ops[m].spmm(X)


def spmm_bench(G, ops, gpu, kps, methods, repeat, dtype):
    """The SpMM B = A·M_p for each (k, p): dense tables (C(k, p) columns) through each method, and rooted
    tables (C(k-1, p-1) columns gathered, C(k-1, p) written).  Bandwidth counts the bytes a method must
    move: nnz·(gathered columns) reads + n·(output columns) writes."""
    xp = np
    if gpu:
        import cupy as xp
    out = []
    rng = np.random.default_rng(0)
    item = np.dtype(dtype).itemsize
    for k, p in kps:
        C = math.comb(k, p)
        X = xp.asarray(rng.random((G.n, C), dtype=np.float64).astype(dtype))
        row = {"k": k, "p": p, "columns": C}
        ref = None
        for m in methods:
            try:
                f = (lambda m=m: ops.spmm(X, m)) if gpu else (lambda m=m: ops.spmm_with(X, m))
                Y = f()
                Yh = Y.get() if gpu else Y
                if ref is None:
                    ref = Yh.astype(np.float64)
                err = float(np.abs(Yh - ref).max() / max(1e-30, np.abs(ref).max()))
                t, _ = timed(f, gpu, repeat)
                row[m] = {"seconds": t, "bytes_per_s": (G.nnz * C + G.n * C) * item / t, "max_rel_diff_vs_first": err}
                Y = None
            except Exception as e:  # noqa: BLE001
                row[m] = {"error": f"{type(e).__name__}: {e}"}
        X = None
        try:   # rooted tables: same product, colour sets containing each row's colour only
            Wp, W = math.comb(k - 1, p - 1), math.comb(k - 1, p)
            Xr = xp.asarray(rng.random((G.n, Wp), dtype=np.float64).astype(dtype))
            cold = xp.asarray(colors_from_keys(coloring_keys(7, 0, 1), G.n, k))
            Q = rooted_gather_table(k, p)
            ro = (ops.__class__(G, k, np.dtype(dtype), "custom", None) if gpu
                  else ops.ops["numba"].__class__(G, k, np.dtype(dtype), "numba", None))
            f = lambda: ro.spmm_rooted(Xr, Q, cold, p)  # noqa: E731
            f()
            t, _ = timed(f, gpu, repeat)
            row["rooted"] = {"seconds": t, "bytes_per_s": (G.nnz * Wp + G.n * W) * item / t, "gathered_columns": Wp,
                             "output_columns": W}
            Xr = None
        except Exception as e:  # noqa: BLE001
            row["rooted"] = {"error": f"{type(e).__name__}: {e}"}
        out.append(row)
    return out


def run_timed(runner, keys, gpu, repeats):
    """(value, median seconds, all seconds, profile) of the runner's coloring as the runner is set now."""
    v = float(runner.run(keys)[0][0])
    t, ts = timed(lambda: runner.run(keys), gpu, repeats)
    prof = {}
    runner.run(keys, profile=prof)
    return v, t, ts, prof


def template_row(row, a, G, scale, tname, gpu, backend, cols_seen, copy_bps):
    """One (graph, template) into ``row``: the plan, the per-coloring time and its split, bandwidths, and the
    comparisons asked for (dense layout, library SpMM, cuSPARSE end to end, the CPU backend)."""
    Gp, P, b, dt, plan, runner = cc.prepare(G, tname, backend, a.dtype, "auto")
    dplan = plan_tree(P, G.n, G.nnz, layout="dense")
    deferred, _, speak, widest = runner.streamed()
    row.update(k=P.k, automorphisms=tree_automorphisms(P), root=plan.root, spmm_cols=plan.spmm_cols,
               ema_terms_per_row=plan.ema_terms, peak_cols=plan.peak_cols,
               peak_table_bytes=plan.peak_cols * G.n * dt.itemsize,
               streamed_products=len(deferred), streamed_peak_cols=speak, streamed_widest_b_cols=widest,
               streamed_peak_table_bytes=speak * G.n * dt.itemsize, row_blocks=runner.blocks())
    if a.spmm_templates is None or tname in a.spmm_templates:
        cols_seen.update((P.k, op.size) for op in dplan.ops if op.kind == "spmm")
    row.update(layout=plan.layout, dense_spmm_cols=dplan.spmm_cols, dense_ema_terms_per_row=dplan.ema_terms,
               dense_peak_cols=dplan.peak_cols)
    keys = coloring_keys(*KEYS)
    v = float(runner.run(keys)[0][0])
    if not a.no_check:   # the dense layout through a library SpMM must give the same value for the same coloring
        r2 = cc.prepare(G, tname, backend, a.dtype, "cusparse" if gpu else "scipy")[5]
        row["check_rooted_vs_dense_library_rel"] = abs(v - float(r2.run(keys)[0][0])) / max(abs(v), 1e-300)
        r2 = None
    t_med, ts = timed(lambda: runner.run(keys), gpu, a.repeats)
    prof = {}
    runner.run(keys, profile=prof)
    moved = spmm_bytes(G, plan, dt.itemsize)
    spmm_s = prof.get("spmm")
    eb, ema_s = ema_bytes(G, plan, dt.itemsize), prof.get("ema")
    row.update(colorful_embeddings=v, per_coloring_s=t_med, per_coloring_all_s=ts, profile_s=prof,
               spmm_bytes_moved=moved, spmm_bytes_per_s=moved / spmm_s if spmm_s else None,
               ema_bytes=eb, ema_bytes_per_s=eb / ema_s if ema_s else None,
               ema_fraction_of_copy=eb / ema_s / copy_bps if ema_s else None)
    if a.stream_compare and deferred and not row["row_blocks"]:   # the same coloring, its products streamed
        runner.row_blocks = a.stream_compare
        v6, t6, ts6, prof6 = run_timed(runner, keys, gpu, a.repeats)
        runner.row_blocks = None
        row.update(per_coloring_streamed_s=t6, per_coloring_streamed_all_s=ts6, profile_streamed_s=prof6,
                   streamed_row_blocks=a.stream_compare, streamed_value_equal=v6 == v)
        print(f"  products streamed in {a.stream_compare} row blocks: coloring {t6 * 1e3:.2f} ms (SpMM "
              f"{prof6.get('spmm', 0) * 1e3:.2f}, eMA {prof6.get('ema', 0) * 1e3:.2f} ms) against {t_med * 1e3:.2f} "
              f"ms whole; equal values: {v6 == v}", flush=True)
    if gpu and a.ema_compare:      # the same coloring with every eMA on the kernels before cc_ema_lanes
        kinds = [runner.ops.ema_kernel(*plan_cols(plan, op), op.cols, math.comb(op.size - 1, op.a - 1))
                 for op in plan.ops if op.kind == "ema"]
        runner.ops.ema_choice = "smem"
        v2, t2, ts2, prof2 = run_timed(runner, keys, gpu, a.repeats)
        runner.ops.ema_choice, runner.ops.ema_parts = "auto", 1     # cc_ema_lanes as in session 32: one group a set
        v4, t4, ts4, prof4 = run_timed(runner, keys, gpu, a.repeats)
        runner.ops.ema_parts = None
        row.update(per_coloring_ema_1part_s=t4, per_coloring_ema_1part_all_s=ts4, profile_ema_1part_s=prof4,
                   ema_1part_value_rel=abs(v4 - v) / max(abs(v), 1e-300))
        print(f"  cc_ema_lanes with one lane group a set: {t4 * 1e3:.2f} ms (eMA {prof4.get('ema', 0) * 1e3:.2f} ms)",
              flush=True)
        row.update(ema_kernels_auto=kinds, per_coloring_ema_smem_s=t2, per_coloring_ema_smem_all_s=ts2,
                   profile_ema_smem_s=prof2, ema_smem_value_rel=abs(v2 - v) / max(abs(v), 1e-300))
        print(f"  eMA kernels {kinds}: coloring {t_med * 1e3:.2f} ms (eMA {ema_s * 1e3:.2f} ms, "
              f"{eb / ema_s / 1e12:.3f} TB/s) against {t2 * 1e3:.2f} ms (eMA {prof2.get('ema', 0) * 1e3:.2f} ms) "
              f"with cc_ema_smem; values differ by {row['ema_smem_value_rel']:.2e}", flush=True)
    if gpu and a.alias_compare:    # the same coloring with the leaf's eMAs run as passes, as before session 38
        cc.ALIAS_LEAF = False
        try:
            v5, t5, ts5, prof5 = run_timed(runner, keys, gpu, a.repeats)
        finally:
            cc.ALIAS_LEAF = True
        row.update(per_coloring_leaf_pass_s=t5, per_coloring_leaf_pass_all_s=ts5, profile_leaf_pass_s=prof5,
                   leaf_pass_value_rel=abs(v5 - v) / max(abs(v), 1e-300))
        print(f"  the leaf's eMAs as passes: coloring {t5 * 1e3:.2f} ms (eMA {prof5.get('ema', 0) * 1e3:.2f} ms) against "
              f"{t_med * 1e3:.2f} ms (eMA {(ema_s or 0) * 1e3:.2f} ms); values differ by {row['leaf_pass_value_rel']:.2e}",
              flush=True)
    if gpu and a.spmm_compare:     # the same coloring with the sorted SpMM's tiles held to 48 KB, as before
        runner.ops.sorted_optin = False
        v3, t3, ts3, prof3 = run_timed(runner, keys, gpu, a.repeats)
        runner.ops.sorted_optin = True
        row.update(per_coloring_48k_s=t3, per_coloring_48k_all_s=ts3, profile_48k_s=prof3,
                   spmm_48k_value_rel=abs(v3 - v) / max(abs(v), 1e-300),
                   rooted_choice_48k={k_: v_ for k_, v_ in G._cache.items() if k_.endswith(":48k")})
        print(f"  SpMM tiles to 48 KB: coloring {t3 * 1e3:.2f} ms (SpMM {prof3.get('spmm', 0) * 1e3:.2f} ms) against "
              f"{t_med * 1e3:.2f} ms (SpMM {spmm_s * 1e3:.2f} ms); values differ by {row['spmm_48k_value_rel']:.2e}",
              flush=True)
    if plan.layout == "rooted":
        eff = effective_arcs(G, colors_from_keys(keys, G.n, P.k))
        hb = sum(honest_bytes(G, P.k, op.size, eff, dt.itemsize) for op in plan.ops if op.kind == "spmm")
        row.update(spmm_honest_bytes=hb, spmm_honest_bytes_per_s=hb / spmm_s if spmm_s else None,
                   spmm_honest_fraction_of_copy=hb / spmm_s / copy_bps if spmm_s else None,
                   byte_model_s=(hb + eb) / copy_bps, byte_model_ratio=t_med / ((hb + eb) / copy_bps))
        if gpu:
            row["rooted_choice"] = ({k_: v_ for k_, v_ in G._cache.items() if "cc_rooted_choice" in k_}
                                    if hasattr(G, "_cache") else None)
    extra = []   # (row key, backend, spmm, layout, repeats)
    if a.compare_dense:
        extra.append(("dense", backend, "auto", "dense", a.repeats))
    if f"{scale}:{tname}" in a.cpu_compare and gpu:
        extra.append(("cpu", "cpu", "auto", "auto", 2))
    if f"{scale}:{tname}" in a.full_cusparse:
        extra.append(("cusparse", backend, "cusparse", "dense", max(1, a.repeats // 2)))
    for key, be, spmm, layout, rep in extra:
        r3 = cc.prepare(G, tname, be, a.dtype, spmm, layout=layout)[5]
        t3, _ = timed(lambda: r3.run(keys), gpu and be == "gpu", rep)
        if key == "cpu":
            row.update(cpu_per_coloring_s=t3, cpu_cores=os.cpu_count())
            print(f"  cpu backend ({os.cpu_count()} cores) {tname} on scale {scale}: {t3:.3f} s per coloring", flush=True)
        else:
            prof3 = {}
            r3.run(keys, profile=prof3)
            row.update({f"per_coloring_{key}_s": t3, f"profile_{key}_s": prof3})
        r3 = None
    print(f"{G.name:10s} {tname:6s} k={P.k:2d} spmm_cols={plan.spmm_cols:5d} "
          f"per-coloring {t_med:.4f} s  (spmm {prof.get('spmm', 0):.4f}, ema {prof.get('ema', 0):.4f}, "
          f"leaf {prof.get('leaf', 0):.4f})"
          + (f"  spmm honest {row['spmm_honest_bytes_per_s'] / 1e12:.3f} TB/s = "
             f"{100 * row['spmm_honest_fraction_of_copy']:.0f}% of copy" if row.get("spmm_honest_bytes_per_s") else "")
          + (f"  byte model {row['byte_model_s'] * 1e3:.2f} ms ({row['byte_model_ratio']:.2f}x)"
             if "byte_model_s" in row else "")
          + (f"  streamed in {row['row_blocks']} row blocks" if row["row_blocks"] else "")
          + (f"  dense {row['per_coloring_dense_s']:.4f} s" if "per_coloring_dense_s" in row else "")
          + (f"  cusparse {row['per_coloring_cusparse_s']:.4f} s" if "per_coloring_cusparse_s" in row else ""),
          flush=True)
    runner = None


GPU_RUN = {"scales": [18, 20], "templates": ["u10", "u12", "u13", "u15-1"], "no_check": True,
           "rooted_sweep": ["20:12"], "spmm_scales": [20], "spmm_templates": ["u12"], "census": [8],
           "cpu_compare": ["18:u12"]}


@FAMILY.suite(gpu="optional", repeats=5, quick={"scales": [8], "templates": ["u5", "u7"], "repeats": 2},
              args=[arg("--scales", type=int, nargs="+", default=None, help="Graph500 scales (cpu default: 12)"),
                    arg("--templates", nargs="+", default=None, help="tree templates (cpu default: u7 u10 u12)"),
                    arg("--dtype", default="float32"),
                    arg("--spmm-scales", type=int, nargs="*", default=None, help="scales for the SpMM sweep"),
                    arg("--full-cusparse", nargs="*", default=[],
                        help="'scale:template' pairs also timed end to end with spmm=cusparse"),
                    arg("--spmm-templates", nargs="*", default=None,
                        help="templates whose SpMM shapes are swept (default: all benchmarked)"),
                    arg("--no-check", action="store_true", help="skip the check against the dense library path"),
                    arg("--compare-dense", action="store_true", help="also time the dense layout (custom SpMM)"),
                    arg("--rooted-sweep", nargs="*", default=[],
                        help="'scale:k' pairs: time every rooted SpMM variant for p = 1..k//2 (GPU)"),
                    arg("--census", type=int, nargs="*", default=[],
                        help="tree sizes k: one coloring of tree_census's merged plan against the trees one by one"),
                    arg("--no-dense-sweep", action="store_true", help="skip the dense SpMM sweep (cuSPARSE, row gather)"),
                    arg("--ema-compare", action="store_true",
                        help="GPU: also time each coloring with the eMA kernels before cc_ema_lanes"),
                    arg("--spmm-compare", action="store_true",
                        help="GPU: also time each coloring with the sorted SpMM's tiles held to 48 KB (as before)"),
                    arg("--stream-compare", type=int, default=0,
                        help="also time each coloring with its products streamed in this many row blocks"),
                    arg("--alias-compare", action="store_true",
                        help="GPU: also time each coloring with the eMA of an unlabelled leaf run as a pass (as before)"),
                    arg("--cpu-compare", nargs="*", default=[],
                        help="'scale:template' pairs also timed on the CPU backend (all cores) in a GPU run")])
def color_coding(a):
    """Color-coding tree counting: per (Graph500 graph, template) the plan, the per-coloring time (median after a
    warm-up, the device synchronised), its split into leaf / SpMM / eMA, and for SpMM alone at the column
    counts the templates use: time and achieved bandwidth of each implementation against a measured copy
    (device-to-device on the GPU, memory on the CPU). Every timed coloring is checked against the dense
    library SpMM's value (unless --no-check).

    --gpu with no --scales / --templates: the standard GPU run -- scales 18 20, u10 u12 u13 u15-1, the
    rooted-kernel sweep and the dense/cuSPARSE sweep for u12 on scale 20, census k = 8, the CPU backend on
    u12 scale 18 (options given explicitly are kept)."""
    gpu = a.gpu
    if gpu and a.scales is None and a.templates is None:
        for key, value in GPU_RUN.items():
            if not getattr(a, key):
                setattr(a, key, value)
    a.scales = a.scales or [12]
    a.templates = a.templates or ["u7", "u10", "u12"]
    backend = "gpu" if gpu else "cpu"
    rec = Record(a, "color_coding", "color_coding", rows="runs", tag=backend, dtype=a.dtype, spmm=[])
    m = rec["machine"]
    rec["device"] = ({"kind": "gpu", "name": m["gpu"], "sm_count": m["gpu_sm_count"], "memory_bytes": m["gpu_memory_bytes"]}
                     if gpu else {"kind": "cpu", "processor": m["cpu"], "cores": m["cores"]})
    rec["copy_bytes_per_s"] = copy_bps = copy_bandwidth(backend)
    print(f"# {rec['device']}  copy {copy_bps / 1e12:.3f} TB/s", flush=True)
    methods = ("custom", "cusparse") if gpu else ("numba", "scipy", "graphblas")
    for scale in a.scales:
        t = time.perf_counter()
        G = graph(f"graph500-{scale}")
        ginfo = {"name": f"graph500-{scale}", "n": G.n, "m": G.m, "nnz": G.nnz, "max_degree": G.max_degree,
                 "generate_s": time.perf_counter() - t}
        print(f"# graph500({scale}): n={G.n} m={G.m} max_deg={G.max_degree}", flush=True)
        cols_seen = set()
        for tname in a.templates:
            row = {"graph": ginfo, "template": tname}
            try:
                template_row(row, a, G, scale, tname, gpu, backend, cols_seen, copy_bps)
            except Exception as e:  # noqa: BLE001
                row["error"] = f"{type(e).__name__}: {e}"
                print(f"{G.name} {tname}: {row['error']}", flush=True)
            rec.add(row, echo=False)
            free_gpu(gpu)
        for kc in a.census:
            rec.payload.setdefault("census", []).append(census_bench(G, kc, backend, a.dtype, gpu, a.repeats, ginfo))
            rec.save()
        for sk in a.rooted_sweep:
            sc, kk = map(int, sk.split(":"))
            if sc == scale and gpu:
                rec.payload.setdefault("rooted_sweep", []).append(
                    {"graph": ginfo, "sweep": rooted_sweep(G, kk, range(1, kk // 2 + 1), a.repeats, a.dtype,
                                                           coloring_keys(*KEYS))})
                rec.save()
        if not a.no_dense_sweep and (a.spmm_scales is None or scale in a.spmm_scales):
            if gpu:
                from la_gpm.color_coding.gpu import GpuOps
                ops = GpuOps(G, 3, np.dtype(a.dtype), "custom", None)
            else:
                ops = CpuSpmm(G, a.dtype)
            sw = spmm_bench(G, ops, gpu, sorted(cols_seen), methods, a.repeats, a.dtype)
            for r in sw:
                rr = r.get("rooted", {})
                rooted_cell = (f"  rooted {rr['seconds'] * 1e3:8.2f} ms {rr['bytes_per_s'] / 1e12:.3f} TB/s"
                               if "seconds" in rr else f"  rooted {rr}")
                cells = "  ".join(f"{m} {r[m]['seconds'] * 1e3:8.2f} ms {r[m]['bytes_per_s'] / 1e12:.3f} TB/s"
                                  if "seconds" in r.get(m, {}) else f"{m} {r.get(m)}" for m in methods)
                print(f"  spmm {G.name} k={r['k']} p={r['p']} C={r['columns']:5d}  {cells}{rooted_cell}", flush=True)
            rec["spmm"].append({"graph": ginfo, "sweep": sw})
            rec.save()
            ops = None
        G = None
    rec.done()


# ------------------------------------------------------------------ coloring_variance
def copy_sets(G, name):
    """The vertex sets that host a copy of a named pattern (each set once)."""
    from la_gpm.exact.match import match
    rows = np.sort(np.concatenate(list(match(G, la_gpm.Pattern.named(name)))), axis=1)
    return np.unique(rows, axis=0)


def colorful_probability(n, k, balanced):
    if not balanced:
        return math.factorial(k) / k ** k
    sizes = [n // k + (1 if c < n % k else 0) for c in range(k)]
    return math.factorial(k) * math.prod(sizes) / math.prod(n - i for i in range(k))


def variance_row(G, name, colorings, seed=0):
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
    return row


@FAMILY.suite(quick={"colorings": 40, "cases": ["karate:4-cycle", "R-MAT 7:4-cycle"]},
              args=[arg("--colorings", type=int, default=400),
                    arg("--cases", nargs="*", default=["email-Eu-core:5-clique", "R-MAT 10:5-clique",
                                                       "email-Eu-core:4-cycle"], help="graph:pattern")])
def coloring_variance(a):
    """Coloring variance of colourful copies: uniform random k-colorings against balanced ones.

    For a pattern H, take the vertex sets S_1..S_N that host at least one copy (a set holding several copies
    is listed once: colourfulness depends on the set only). X = #colorful sets / P(colorful) is unbiased for N
    under a uniform coloring (P = k!/k^k) and under a balanced one (a uniformly random partition into k
    classes of sizes differing by at most one). The colorings an estimator needs for a relative error grow
    with Var(X)/N², so the ratio of the two squared coefficients of variation is the ratio of colorings."""
    rec = Record(a, "coloring_variance", "coloring variance, uniform vs balanced colorings")
    for case in a.cases:
        label, name = case.rsplit(":", 1)
        row = variance_row(graph(label), name, a.colorings)
        rec.add(row, echo=f"{row['graph']:>14} {name:>9} sets={row['vertex_sets']:>10,}  uniform cv="
                          f"{row['uniform']['cv']:.4f}  balanced cv={row['balanced']['cv']:.4f}  colorings ratio "
                          f"{row['colorings_ratio_balanced_over_uniform']:.2f}")
    rec.done()


# ------------------------------------------------------------------ profile_spmm
def coverage_graph(name: str):
    """A benchmark graph (:func:`harness.graph`) or one where the copies of a tree are rare: ``path-N`` (a path
    of N vertices: N - k + 1 copies of the k-path) and ``path-N+star-M`` (that path beside a star of M leaves,
    which holds no path of 4+ vertices): each coloring then sees a copy with a probability of only a few p."""
    import networkx as nx
    parts = name.split("+")
    if all(x.startswith(("path-", "star-")) for x in parts):
        H = nx.empty_graph(0)
        for x in parts:
            kind, size = x.split("-")
            H = nx.disjoint_union(H, nx.path_graph(int(size)) if kind == "path" else nx.star_graph(int(size)))
        return la_gpm.as_graph(H)
    return graph(name)


def coverage_tree(name: str):
    """A tree by name (``la_gpm`` names such as 4-path, u5) or one of AUTO_TREES (6-path, spider6, ...)."""
    return la_gpm.Pattern(AUTO_TREES[name]) if AUTO_TREES.get(name) else name


@FAMILY.suite(quick={"seeds": 20, "cases": ["karate:4-path"]},
              args=[arg("--seeds", type=int, default=200),
                    arg("--cases", nargs="*", default=["karate:4-path", "karate:u5", "citeseer:u5"], help="graph:tree"),
                    arg("--stops", nargs="*", default=["adaptive", "clt"]),
                    arg("--eps", type=float, default=0.1), arg("--delta", type=float, default=0.1)])
def coverage(a):
    """Honesty and waste of the stop rules: for each (graph, tree, stop rule), ``--seeds`` estimates at (eps,
    delta) with exact=False against the exact count: the coverage (share of intervals holding the count, to be
    >= 1 - delta), the colorings used, the actual relative error against the interval's half-width (how much
    wider than needed the interval is), and the share of runs within eps.  Graphs: :func:`coverage_graph`
    (e.g. ``path-7:6-path``, two copies, where a few colorings may see none)."""
    rec = Record(a, "coloring_coverage", "color-coding stop rules: coverage, colorings, interval width vs error")
    for case in a.cases:
        gname, t = case.split(":")
        G = coverage_graph(gname)
        t = coverage_tree(t)
        exact = la_gpm.count(G, t)
        for stop in a.stops:
            hit, within, cols, err, half, secs = 0, 0, [], [], [], []
            for seed in range(a.seeds):
                e = la_gpm.estimate(G, t, eps=a.eps, delta=a.delta, seed=seed, stop=stop, exact=False, backend="cpu")
                hit += e.ci_low <= exact <= e.ci_high
                rel = abs(e.value - exact) / exact
                within += rel <= a.eps
                cols.append(e.n_colorings)
                err.append(rel)
                half.append(e.relative_halfwidth)
                secs.append(e.elapsed_s)
            row = {"graph": gname, "template": case.split(":")[1], "stop": stop, "eps": a.eps, "delta": a.delta, "seeds": a.seeds,
                   "exact": exact, "coverage": hit / a.seeds, "within_eps": within / a.seeds,
                   "colorings_mean": float(np.mean(cols)), "colorings_max": int(np.max(cols)),
                   "relative_error_median": float(np.median(err)), "relative_error_p95": float(np.quantile(err, 0.95)),
                   "halfwidth_median": float(np.median(half)),
                   "halfwidth_over_error_p95": float(np.median(half) / max(np.quantile(err, 0.95), 1e-12)),
                   "seconds_mean": float(np.mean(secs))}
            rec.add(row)
    rec.done()


# ------------------------------------------------------------------ estimate_auto
AUTO_TREES = {"6-path": [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)],
              "spider6": [(0, 1), (1, 2), (2, 3), (1, 4), (2, 5)],
              "u7": None, "7-path": [(i, i + 1) for i in range(6)], "8-path": [(i, i + 1) for i in range(7)],
              "caterpillar8": [(0, 1), (1, 2), (2, 3), (3, 4), (1, 5), (2, 6), (3, 7)]}

_EXACT_CHILD = """
import json, sys, time
sys.path.insert(0, {bench!r})
from harness import graph
import la_gpm
from la_gpm.exact.cpu import run_plan
from la_gpm.exact.plans import plan_for
G = graph({g!r})
P = la_gpm.Pattern.named("u7") if {edges!r} is None else la_gpm.Pattern({edges!r})
plan = plan_for(G, P)
run_plan(G, plan_for(G, la_gpm.Pattern([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)])))   # load the kernels
t0 = time.perf_counter()
n, st = run_plan(G, plan)
print(json.dumps({{"count": int(n), "seconds": time.perf_counter() - t0, "nodes": int(st["tree_nodes"])}}))
"""


def exact_actual(gname, edges, limit):
    """(seconds, nodes, count) of the exact count in a child process (its kernels loaded first), or
    (None, None, None) when it runs past ``limit`` seconds (killed)."""
    import json
    import subprocess
    import sys
    code = _EXACT_CHILD.format(bench=os.path.dirname(os.path.abspath(__file__)), g=gname, edges=edges)
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=limit + 30)
    except subprocess.TimeoutExpired:
        return None, None, None
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    r = json.loads(out.stdout.strip().splitlines()[-1])
    return (r["seconds"], r["nodes"], r["count"]) if r["seconds"] <= limit + 30 else (None, None, None)


def auto_row(G, gname, tname, edges, limit, eps, delta):
    """One (graph, tree): exact="auto"'s decision with its pilot (the first passes of an exact=False estimate,
    timed the way the driver times them), the estimate run on to convergence or ``limit`` s (then its time is
    extrapolated to the colorings the final sample needs), and the exact count timed in a child process."""
    P = la_gpm.Pattern.named("u7") if edges is None else la_gpm.Pattern(edges)
    plan = cc.exact_plan(G, P)
    auto = cc.AutoExact(G, P, plan, cc.DEFAULT_STOP, eps, delta)
    state = {"vals": [], "done": 0, "decision": auto.before_pilot("cpu", cc.prepare(G, P, "cpu", "float32", "auto")[5]
                                                                  .pass_size())}
    real = cc.Runner.totals
    alpha, p = tree_automorphisms(P), math.factorial(P.k) / P.k ** P.k

    def totals(self, keys):
        t = time.perf_counter()
        out = real(self, keys)
        sec = time.perf_counter() - t
        state["vals"].append(np.asarray(out, dtype=np.float64) / (alpha * p))
        state["done"] += len(keys)
        if state["decision"] is None or state["decision"]["chosen"] == "colorings":   # as the driver: every pass
            got = auto.after_pass(len(keys), sec, np.concatenate(state["vals"]), state["done"], self.pass_size())
            if got is not None:
                state["decision"] = got[1]
                state.setdefault("first", dict(got[1]))
        return out

    cc.Runner.totals = totals
    try:
        state["t0"] = time.perf_counter()
        est = la_gpm.estimate(G, P, eps=eps, delta=delta, seed=1, exact=False, backend="cpu", time_budget=limit)
    finally:
        cc.Runner.totals = real
    d = state["decision"] or {"chosen": "colorings", "reason": "the stop rule converged within the pilot",
                              "exact_predicted_s": auto.exact_s, "estimate_predicted_s": 0.0}
    first = state.get("first", d)
    est_s = est.elapsed_s
    if not est.converged:   # extrapolated: the colorings the final sample needs, at the run's own rate
        need = cc.colorings_needed(cc.DEFAULT_STOP, float(est.values.mean()), float(est.values.var(ddof=1)), P.k, eps,
                                   delta, 1 << 30)
        est_s = est.elapsed_s * max(need, est.n_colorings) / est.n_colorings
    ex_s, ex_nodes, count = exact_actual(gname, edges, limit)
    row = {"graph": gname, "template": tname, "k": P.k, "eps": eps, "delta": delta,
           "decision": d["chosen"], "exact_predicted_s": d["exact_predicted_s"],
           "exact_predicted_nodes": auto.nodes, "exact_actual_s": ex_s, "exact_actual_nodes": ex_nodes,
           "exact_lower_bound_s": None if ex_s is not None else float(limit),
           # the first decision's prediction of the whole estimate: the pilot's seconds + the rest predicted
           "estimate_predicted_s": (first.get("pilot_s") or 0.0) + first["estimate_predicted_s"],
           "colorings_predicted": first.get("colorings_predicted"), "first_decision": first["chosen"],
           "evaluations": d.get("evaluations", 0), "decided_at_colorings": d.get("pilot_colorings"),
           "pilot_s": d.get("pilot_s"),
           "estimate_actual_s": est_s, "estimate_converged": bool(est.converged),
           "estimate_colorings": int(est.n_colorings), "estimate_elapsed_s": est.elapsed_s, "count": count}
    # the cheaper path; an exact count past the limit is known only to take more than the limit
    chosen = d["chosen"]
    pilot = (d.get("pilot_s") or 0.0) if chosen == "exact" else 0.0   # colorings thrown away for the exact count
    if ex_s is not None:
        cheaper = "exact" if ex_s < est_s else "colorings"
        row["regret"] = ((ex_s + pilot) if chosen == "exact" else est_s) / min(ex_s, est_s)
    elif est_s < limit:
        cheaper = "colorings"
        row["regret"] = 1.0 if chosen == "colorings" else None     # exact chosen, past the limit: unbounded here
    else:
        cheaper = "unknown"
        row["regret"] = None
        row["regret_at_most"] = est_s / limit if chosen == "colorings" else None
    row["cheaper"] = cheaper
    return row


@FAMILY.suite(quick={"graphs": ["karate"], "trees": ["6-path", "u7"], "limit": 10.0},
              args=[arg("--graphs", nargs="*", default=["karate", "citeseer", "email-Eu-core", "p2p-Gnutella08.txt.gz"]),
                    arg("--trees", nargs="*", default=list(AUTO_TREES)),
                    arg("--limit", type=float, default=40.0, help="seconds per timed run (exact and estimate)"),
                    arg("--eps", type=float, default=0.05), arg("--delta", type=float, default=0.01)])
def estimate_auto(a):
    """estimate(exact="auto") for trees of 6-8 vertices: its decision against the exact count's and the
    estimate's predicted and actual seconds, on the cpu backend.

    Per (graph, tree): the exact prediction (config.exact_node_seconds x the predicted search-tree nodes), the
    pilot's prediction of the colorings' seconds, the decision; then the actual estimate (seed 1, exact=False,
    stopped at --limit seconds and extrapolated to the colorings its final sample needs) and the actual exact
    count (la_gpm's plan engine in a child process, killed past --limit: then only a lower bound).  ``regret``:
    the chosen path's seconds (plus the pilot when it chose exact) over the cheaper one's.  Timings on a shared
    2-core machine are noisy; one run per case."""
    rec = Record(a, "estimate_auto", "estimate(exact='auto'): predicted vs actual exact and estimate seconds",
                 tag="cpu", limit_s=a.limit, exact_node_seconds=la_gpm.config.exact_node_seconds,
                 auto_safety=la_gpm.config.auto_safety)
    for gname in a.graphs:
        G = graph(gname)
        for tname in a.trees:
            row = auto_row(G, gname, tname, AUTO_TREES[tname], a.limit, a.eps, a.delta)
            ex = "> limit" if row["exact_actual_s"] is None else f"{row['exact_actual_s']:.3g}"
            rec.add(row, echo=f"{gname:>22} {tname:>12} exact pred {row['exact_predicted_s']:9.3g} act {ex:>8}   "
                              f"est pred {row['estimate_predicted_s']:9.3g} act {row['estimate_actual_s']:9.3g}"
                              f"{'' if row['estimate_converged'] else '*'}   chose {row['decision']:>9} "
                              f"cheaper {row['cheaper']:>9} regret {row['regret']}")
    rows = [r for r in rec.rows if r["regret"] is not None]
    rec["summary"] = {"cases": len(rec.rows), "judged": len(rows),
                      "picked_cheaper": sum(r["decision"] == r["cheaper"] for r in rows),
                      "worst_regret": max((r["regret"] for r in rows), default=None)}
    print(rec["summary"])
    rec.done()


@FAMILY.suite(gpu="only", quick={"scale": 10, "k": 7, "ps": [2, 3]},
              args=[arg("--scale", type=int, default=20, help="Graph500 scale"), arg("--k", type=int, default=12),
                    arg("--ps", type=int, nargs="+", default=[4, 5], help="product sizes p")])
def profile_spmm(a):
    """Launch every rooted SpMM candidate once on Graph500 products, for a hardware-counter profile::

        ncu --clock-control none --kernel-name regex:"cc_spmm_(rooted|tiled|sorted)|cc_sort_arcs" \\
            --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \\
            --section WarpStateStats python3 benchmarks/bench_color_coding.py profile_spmm --scale 20 --k 12 --ps 4 5

    Each candidate of GpuOps.rooted_variants runs once on a random passive table of the product's width (the
    first launch of a kernel also compiles it; ncu profiles the launch, not the compilation). Prints each
    candidate's wall time (CUDA events) and the bytes the product must move (honest_bytes, float32), so the
    profile's DRAM bytes can be set against them. Writes no JSON."""
    import cupy as cp

    from la_gpm.color_coding.gpu import GpuOps
    G = graph(f"graph500-{a.scale}")
    k = a.k
    ops = GpuOps(G, k, np.dtype("float32"), "custom", None)
    colors = ops.colors(coloring_keys(*KEYS))
    eff = effective_arcs(G, colors.get().astype(np.int64))
    rng = np.random.default_rng(0)
    for p in a.ps:
        Wp, W = math.comb(k - 1, p - 1), math.comb(k - 1, p)
        hb = honest_bytes(G, k, p, eff, 4)
        X = cp.asarray(rng.random((G.n, Wp), dtype=np.float32))
        Q = rooted_gather_table(k, p)
        for var in ops.rooted_variants(p, rows=G.n):
            ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
            ev0.record()
            ops.spmm_rooted(X, Q, colors, p, var)
            ev1.record()
            ev1.synchronize()
            t = cp.cuda.get_elapsed_time(ev0, ev1) / 1e3
            print(f"k={k} p={p} Wp={Wp} W={W} {var}: {t * 1e3:.2f} ms (first launch), must move {hb / 1e9:.2f} GB",
                  flush=True)
        X = None
    device_sync()


# ------------------------------------------------------------------ ema_sweep
@FAMILY.suite(gpu="only", repeats=5, quick={"scale": 10, "templates": ["u7"], "repeats": 2},
              args=[arg("--scale", type=int, default=20, help="Graph500 scale (its n rows)"),
                    arg("--templates", nargs="+", default=["u10", "u12", "u13", "u15-1", "u15-2"]),
                    arg("--dtype", default="float32"),
                    arg("--shapes", nargs="*", default=["32:128", "32:256", "32:512", "16:256", "16:512", "8:128",
                                                        "8:256", "8:512", "8:1024"],
                        help="R:threads of cc_ema_lanes to time"),
                    arg("--min-ns", type=int, default=1, help="only products of at least this many splits")])
def ema_sweep(a):
    """Every eMA product of the templates' rooted plans on n = 2^scale rows of random tables: each kernel
    (cc_ema_smem or cc_ema_global, and cc_ema_lanes at each R:threads that fits) timed alone (CUDA events, median
    after a warm-up), its output checked against the smem / global kernel's, the bytes it must move (n·(Ca + Cb +
    Cs) values) as a fraction of the measured copy bandwidth, and what ``GpuOps.ema_kernel`` / ``lanes_shape``
    choose."""
    import cupy as cp

    from la_gpm.color_coding.gpu import GpuOps, _lanes_smem
    from la_gpm.device import smem_optin
    from la_gpm.color_coding.trees import split_tables
    from la_gpm.patterns import as_pattern
    dt = np.dtype(a.dtype)
    n = 1 << a.scale
    rec = Record(a, "color_coding", "ema_sweep", rows="products", tag="gpu", dtype=a.dtype, scale=a.scale)
    rec["copy_bytes_per_s"] = copy_bps = copy_bandwidth("gpu")
    G = la_gpm.generators.graph500(6)
    rng = np.random.default_rng(0)
    done = {}
    for tname in a.templates:
        P = as_pattern(tname)
        plan = plan_tree(P, n, 16 * n, layout="rooted")
        ops = GpuOps(G, P.k, dt, "custom", None)
        for op in plan.ops:
            if op.kind != "ema":
                continue
            key = (P.k - 1, op.size - 1, op.a - 1)
            Ca, Cb = plan_cols(plan, op)
            sa, sp = split_tables(*key)
            Cs, ns = sa.shape
            if ns < a.min_ns:
                continue
            row = {"template": tname, "key": key, "Ca": Ca, "Cb": Cb, "Cs": Cs, "ns": ns, "terms_per_row": Cs * ns,
                   "bytes": n * (Ca + Cb + Cs) * dt.itemsize}
            if key in done:
                row["same_as"] = done[key]
                rec.add(row, echo=False)
                continue
            done[key] = tname
            A = cp.asarray(rng.random((n, Ca), dtype=np.float32).astype(dt))
            B = cp.asarray(rng.random((n, Cb), dtype=np.float32).astype(dt))
            ops.ema_choice = "auto"
            row["auto"] = ops.ema_kernel(Ca, Cb, Cs, ns)
            row["auto_lanes_shape"] = list(ops.lanes_shape(Ca, Cb, Cs))
            row["auto_lanes_parts"] = parts = ops.lanes_parts(Cs, ns, *row["auto_lanes_shape"])
            ref = None
            cells = []
            for name, choice, shape, nparts in ([("smem", "smem", None, None), ("global", "global", None, None)]
                                           + [(f"lanes {s}", "lanes", tuple(map(int, s.split(":"))), None)
                                              for s in a.shapes]
                                           + ([("auto, 1 part", "auto", None, 1)] if parts > 1 else [])
                                           + [("auto", "auto", None, None)]):
                ops.ema_choice, ops.ema_lanes, ops.ema_parts = choice, shape, nparts
                if choice != "auto" and ops.ema_kernel(Ca, Cb, Cs, ns) != choice:
                    continue
                if shape and _lanes_smem(Ca, Cb, dt.itemsize, shape[0]) > smem_optin():
                    continue
                if choice == "global" and ref is not None:
                    continue            # the smem kernel ran: global only where it does not fit
                f = (lambda: ops.ema(A, B, sa, sp, 0.5, 0.5, key))
                out = f()[0]
                if ref is None:
                    ref = out
                    ok = True
                else:
                    ok = bool(cp.allclose(out, ref, rtol=1e-5, atol=0))
                med, ts = timed(f, True, a.repeats)
                row[name] = {"seconds": med, "fraction_of_copy": row["bytes"] / med / copy_bps, "equal_to_ref": ok}
                cells.append(f"{name} {med * 1e3:7.3f} ms{'' if ok else ' DIFFERS'}")
                out = None
            ops.ema_choice, ops.ema_lanes, ops.ema_parts = "auto", None, None
            print(f"{tname:6s} {str(key):12s} Ca={Ca:5d} Cb={Cb:5d} Cs={Cs:5d} ns={ns:5d} auto={row['auto']} "
                  f"{row['auto_lanes_shape']} P={parts}  " + "  ".join(cells), flush=True)
            rec.add(row, echo=False)
            A = B = ref = None
            free_gpu(True)
    rec.done()


if __name__ == "__main__":
    FAMILY.main()
