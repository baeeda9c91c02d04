"""Benchmark color-coding tree counting: per-coloring time, SpMM bandwidth, cuSPARSE vs custom.

Usage::

    python benchmarks/bench_color_coding.py --device cpu --scales 12 14 --templates u7 u10 u12
    python benchmarks/bench_color_coding.py --device gpu --scales 18 20 --templates u10 u12 u13
    python benchmarks/bench_color_coding.py --gpu     # the standard GPU run (see --help)

Writes ``benchmarks/results/color_coding_<device>.json`` (or ``--out``): device, versions, and per
(graph, template) the plan, the per-coloring time (median of ``--repeat`` runs after a warm-up, the
device synchronised), its split into leaf / SpMM / eMA, and for SpMM alone at the column counts the
templates use: time and achieved bandwidth of each implementation against a measured
device-to-device copy (GPU) or memory copy (CPU).  Every timed coloring is checked against the
other SpMM implementation's value before timing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import la_gpm  # noqa: E402
from la_gpm.color_coding import driver as cc  # noqa: E402
from la_gpm.color_coding.cpu_kernels import coloring_keys  # noqa: E402


def versions():
    import numba
    import scipy
    out = {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
           "numba": numba.__version__, "la_gpm": la_gpm.__version__}
    try:
        import cupy
        out["cupy"] = cupy.__version__
        out["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
    except Exception:  # noqa: BLE001
        pass
    try:
        import graphblas
        out["python-graphblas"] = graphblas.__version__
    except Exception:  # noqa: BLE001
        pass
    return out


def device_info(dev):
    if dev == "gpu":
        import cupy as cp
        p = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        return {"kind": "gpu", "name": p["name"].decode() if isinstance(p["name"], bytes) else str(p["name"]),
                "sm_count": p["multiProcessorCount"], "memory_bytes": p["totalGlobalMem"]}
    return {"kind": "cpu", "processor": platform.processor() or platform.machine(), "cores": os.cpu_count()}


def sync(dev):
    if dev == "gpu":
        import cupy as cp
        cp.cuda.Device().synchronize()


def timed(fn, dev, repeat, warmup=1):
    for _ in range(warmup):
        fn()
    sync(dev)
    ts = []
    for _ in range(repeat):
        sync(dev)
        t = time.perf_counter()
        fn()
        sync(dev)
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), ts


def copy_bandwidth(dev, nbytes=1 << 30):
    """Bytes read + written per second of a large buffer copy."""
    if dev == "gpu":
        import cupy as cp
        a = cp.ones(nbytes // 4, dtype=cp.float32)
        b = cp.empty_like(a)
        t, _ = timed(lambda: cp.copyto(b, a), dev, 10, 2)
        return 2 * a.nbytes / t
    a = np.ones(nbytes // 8 // 4, dtype=np.float32)
    b = np.empty_like(a)
    t, _ = timed(lambda: np.copyto(b, a), dev, 5, 1)
    return 2 * a.nbytes / t


def spmm_bytes(G, plan, item):
    """Bytes the plan's SpMMs must move per coloring: nnz·(gathered columns) + n·(output columns)."""
    tot = 0
    for op in plan.ops:
        if op.kind == "spmm":
            gathered = math.comb(plan.k, op.size) if plan.layout == "dense" else math.comb(plan.k - 1, op.size - 1)
            tot += (G.nnz * gathered + G.n * op.cols) * item
    return tot


def effective_arcs(G, k, keys):
    """Arcs (i, j) whose colours differ under the coloring ``keys``: the rooted kernels gather only
    these (an arc with c_j = c_i adds to no output set)."""
    col = la_gpm.color_coding.cpu_kernels.colors_from_keys(keys, G.n, k)
    src = np.repeat(np.arange(G.n, dtype=np.int64), np.diff(G.indptr))
    return int(np.count_nonzero(col[src] != col[G.indices]))


def honest_bytes(G, k, p, eff_arcs, item):
    """Bytes a rooted SpMM of size p moves at least: the gathered rows (C(k-1, p-1) values per arc
    with differing colours) + the output (C(k-1, p) per row) + A (4-byte index and 1-byte colour per
    arc)."""
    return eff_arcs * math.comb(k - 1, p - 1) * item + G.n * math.comb(k - 1, p) * item + G.nnz * 5


def rooted_sweep(G, k, ps, repeat, dtype, keys):
    """Every rooted SpMM variant (GpuOps.rooted_variants) for products of sizes ``ps``: seconds,
    honest bandwidth, and the largest relative difference from the gather kernel's output."""
    import cupy as cp
    from la_gpm.color_coding.gpu import GpuOps
    item = np.dtype(dtype).itemsize
    ops = GpuOps(G, k, np.dtype(dtype), "custom", None)
    colors = ops.colors(keys)
    eff = effective_arcs(G, k, keys)
    rng = np.random.default_rng(0)
    out = []
    # the colour sort of the "sorted" kernels: once per coloring, shared by every product
    t_sort, _ = timed(lambda: ops.sort_arcs(colors), "gpu", repeat)
    print(f"  colour sort of the arcs (k={k}): {t_sort * 1e3:.2f} ms per coloring", flush=True)
    for p in ps:
        Wp = math.comb(k - 1, p - 1)
        X = cp.asarray(rng.random((G.n, Wp), dtype=np.float64).astype(dtype))
        Q = cc.rooted_gather_table(k, p)
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
            del Y
        row["rule"] = list(ops.rooted_rule(p))
        row["sort_seconds_per_coloring"] = t_sort
        out.append(row)
        best = row["variants"][0]
        cells = "  ".join(f"{'/'.join(map(str, v['variant']))} {v['seconds'] * 1e3:.2f}" for v in row["variants"])
        print(f"  rooted k={k} p={p} Wp={Wp:4d}  best {best['variant']} {best['seconds'] * 1e3:.2f} ms "
              f"{best['honest_bytes_per_s'] / 1e12:.3f} TB/s  | {cells}", flush=True)
        del X
    return out


def census_bench(G, k, backend, dtype, dev, repeat, ginfo):
    """Seconds per coloring of tree_census's merged plan and of every tree's own plan."""
    from la_gpm.color_coding.tree_census import plan_census
    cen = plan_census(k, max(G.n, 1), max(G.nnz, 1))
    ops = cc._make_ops(G, backend, np.dtype(dtype), "auto", cen.trees[0], cen.plan)
    runner = cc._Runner(G, cen.trees[0], cen.plan, ops)
    keys = coloring_keys(12345, 0, 1)
    roots = set(cen.roots)
    t_merged, _ = timed(lambda: runner.run(keys, roots=roots), dev, repeat)
    t_sep = 0.0
    for P in cen.trees:
        _, _, _, _, _, r1 = cc._prepare(G, P, backend, dtype, "auto")
        t1, _ = timed(lambda: r1.run(keys), dev, repeat)
        t_sep += t1
    row = {"graph": ginfo, "k": k, "trees": len(cen.trees), "merged_per_coloring_s": t_merged,
           "separate_per_coloring_s": t_sep, "merged_spmm_cols": cen.shared_spmm_cols,
           "separate_spmm_cols": cen.separate_spmm_cols, "merged_peak_cols": cen.plan.peak_cols}
    print(f"  census {ginfo['name']} k={k} ({len(cen.trees)} trees): merged {t_merged * 1e3:.2f} ms per coloring, "
          f"trees one by one {t_sep * 1e3:.2f} ms", flush=True)
    return row


def spmm_bench(G, ops, dev, kps, methods, repeat, dtype):
    """The SpMM B = A·M_p for each (k, p): dense tables (C(k, p) columns) through each method, and
    rooted tables (C(k-1, p-1) columns gathered, C(k-1, p) written).  Bandwidth counts the bytes a
    method must move: nnz·(gathered columns) reads + n·(output columns) writes."""
    out = []
    rng = np.random.default_rng(0)
    item = np.dtype(dtype).itemsize
    for k, p in kps:
        C = math.comb(k, p)
        X = rng.random((G.n, C), dtype=np.float64).astype(dtype)
        if dev == "gpu":
            import cupy as cp
            X = cp.asarray(X)
        row = {"k": k, "p": p, "columns": C}
        ref = None
        for m in methods:
            try:
                f = (lambda m=m: ops.spmm(X, m)) if dev == "gpu" else (lambda m=m: ops.spmm_with(X, m))
                Y = f()
                Yh = Y.get() if dev == "gpu" else Y
                if ref is None:
                    ref = Yh.astype(np.float64)
                err = float(np.abs(Yh - ref).max() / max(1e-30, np.abs(ref).max()))
                t, _ = timed(f, dev, repeat)
                moved = (G.nnz * C + G.n * C) * item
                row[m] = {"seconds": t, "bytes_per_s": moved / t, "max_rel_diff_vs_first": err}
            except Exception as e:  # noqa: BLE001
                row[m] = {"error": f"{type(e).__name__}: {e}"}
            del Y
        del X
        # rooted tables: same product, colour sets containing each row's colour only
        try:
            Wp, W = math.comb(k - 1, p - 1), math.comb(k - 1, p)
            Xr = rng.random((G.n, Wp), dtype=np.float64).astype(dtype)
            col = la_gpm.color_coding.cpu_kernels.colors_from_keys(coloring_keys(7, 0, 1), G.n, k)
            Q = cc.rooted_gather_table(k, p)
            if dev == "gpu":
                import cupy as cp
                Xr, cold = cp.asarray(Xr), cp.asarray(col)
                ro = ops.__class__(G, k, np.dtype(dtype), "custom", None)
            else:
                cold = col
                ro = ops.ops["numba"].__class__(G, k, np.dtype(dtype), "numba", None)
            f = lambda: ro.spmm_rooted(Xr, Q, cold, p)  # noqa: E731
            f()
            t, _ = timed(f, dev, repeat)
            moved = (G.nnz * Wp + G.n * W) * item
            row["rooted"] = {"seconds": t, "bytes_per_s": moved / t, "gathered_columns": Wp, "output_columns": W}
            del Xr
        except Exception as e:  # noqa: BLE001
            row["rooted"] = {"error": f"{type(e).__name__}: {e}"}
        out.append(row)
    return out


class CpuSpmm:
    """SpMM variants on the host for the column sweep."""

    def __init__(self, G, dtype):
        from la_gpm.color_coding.driver import _CpuOps
        self.ops = {m: _CpuOps(G, 3, np.dtype(dtype), m, None) for m in ("numba", "scipy")}
        try:
            from la_gpm.backends import graphblas_status
            if graphblas_status() is None:
                self.ops["graphblas"] = _CpuOps(G, 3, np.dtype(dtype), "graphblas", None)
        except Exception:  # noqa: BLE001
            pass

    def spmm_with(self, X, m):
        return self.ops[m].spmm(X)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    ap.add_argument("--scales", type=int, nargs="+", default=[12])
    ap.add_argument("--templates", nargs="+", default=["u7", "u10", "u12"])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--spmm-scales", type=int, nargs="*", default=None, help="scales for the SpMM sweep")
    ap.add_argument("--full-cusparse", nargs="*", default=[], help="'scale:template' pairs also timed end to end "
                    "with spmm=cusparse")
    ap.add_argument("--spmm-templates", nargs="*", default=None, help="templates whose SpMM shapes are swept "
                    "(default: all benchmarked)")
    ap.add_argument("--no-check", action="store_true", help="skip the check against the dense library path")
    ap.add_argument("--compare-dense", action="store_true", help="also time the dense layout (custom SpMM)")
    ap.add_argument("--rooted-sweep", nargs="*", default=[], help="'scale:k' pairs: time every rooted SpMM "
                    "variant for p = 1..k//2 (GPU)")
    ap.add_argument("--census", type=int, nargs="*", default=[], help="tree sizes k: time one coloring of "
                    "tree_census's merged plan against the trees' own plans one by one")
    ap.add_argument("--no-dense-sweep", action="store_true", help="skip the dense SpMM sweep (cuSPARSE, row gather)")
    ap.add_argument("--cpu-compare", nargs="*", default=[], help="'scale:template' pairs also timed on the CPU "
                    "backend (all cores) in a GPU run")
    ap.add_argument("--gpu", action="store_true", help="the standard GPU run (device_run.sh bench): scales 18 20, "
                    "u10 u12 u13 u15-1, rooted-kernel sweep and dense/cuSPARSE sweep for u12 on scale 20, census "
                    "k=8, CPU comparison for u12 on scale 18; JSON to $LA_GPM_BENCH_OUT when set")
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    if a.gpu:
        a.device, a.scales, a.templates, a.no_check = "gpu", [18, 20], ["u10", "u12", "u13", "u15-1"], True
        a.rooted_sweep, a.spmm_scales, a.spmm_templates, a.census = ["20:12"], [20], ["u12"], [8]
        a.cpu_compare = ["18:u12"]
        if a.out is None and os.environ.get("LA_GPM_BENCH_OUT"):
            a.out = str(Path(os.environ["LA_GPM_BENCH_OUT"]) / "color_coding_gpu.json")
    dev = a.device
    backend = "gpu" if dev == "gpu" else "cpu"
    res = {"benchmark": "color_coding", "device": device_info(dev), "versions": versions(),
           "dtype": a.dtype, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "runs": [], "spmm": []}
    res["copy_bytes_per_s"] = copy_bandwidth(dev)
    print(f"# {res['device']}  copy {res['copy_bytes_per_s'] / 1e12:.3f} TB/s", flush=True)
    methods = ("custom", "cusparse") if dev == "gpu" else ("numba", "scipy", "graphblas")
    out = Path(a.out) if a.out else ROOT / "benchmarks" / "results" / f"color_coding_{dev}.json"
    out.parent.mkdir(parents=True, exist_ok=True)

    def save():  # after every measurement: a run cut short keeps what it measured
        out.write_text(json.dumps(res, indent=1, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))
    for scale in a.scales:
        t = time.perf_counter()
        G = la_gpm.generators.graph500(scale)
        gen = time.perf_counter() - t
        ginfo = {"name": f"graph500-{scale}", "n": G.n, "m": G.m, "nnz": G.nnz, "max_degree": G.max_degree,
                 "generate_s": gen}
        print(f"# graph500({scale}): n={G.n} m={G.m} max_deg={G.max_degree}", flush=True)
        cols_seen = set()
        for tname in a.templates:
            row = {"graph": ginfo, "template": tname}
            try:
                Gp, P, b, dt, plan, runner = cc._prepare(G, tname, backend, a.dtype, "auto")
                dplan = cc.plan_tree(P, G.n, G.nnz, layout="dense")
                row.update(k=P.k, automorphisms=cc.tree_automorphisms(P), root=plan.root, spmm_cols=plan.spmm_cols,
                           ema_terms_per_row=plan.ema_terms, peak_cols=plan.peak_cols,
                           peak_table_bytes=plan.peak_cols * G.n * dt.itemsize)
                if a.spmm_templates is None or tname in a.spmm_templates:
                    cols_seen.update((P.k, op.size) for op in dplan.ops if op.kind == "spmm")
                row.update(layout=plan.layout, dense_spmm_cols=dplan.spmm_cols, dense_ema_terms_per_row=dplan.ema_terms,
                           dense_peak_cols=dplan.peak_cols)
                keys = coloring_keys(12345, 0, 1)
                v = float(runner.run(keys)[0][0])
                # the dense layout through a library SpMM must give the same value for the same coloring
                if not a.no_check:
                    _, _, _, _, _, r2 = cc._prepare(G, tname, backend, a.dtype,
                                                    "cusparse" if dev == "gpu" else "scipy")
                    v2 = float(r2.run(keys)[0][0])
                    row["check_rooted_vs_dense_library_rel"] = abs(v - v2) / max(abs(v), 1e-300)
                    del r2
                t_med, ts = timed(lambda: runner.run(keys), dev, a.repeat)
                prof = {}
                runner.run(keys, profile=prof)
                moved = spmm_bytes(G, plan, dt.itemsize)
                row.update(colorful_embeddings=v, per_coloring_s=t_med, per_coloring_all_s=ts, profile_s=prof,
                           spmm_bytes_moved=moved, spmm_bytes_per_s=moved / prof["spmm"] if prof.get("spmm") else None)
                if plan.layout == "rooted":
                    eff = effective_arcs(G, P.k, keys)
                    hb = sum(honest_bytes(G, P.k, op.size, eff, dt.itemsize) for op in plan.ops if op.kind == "spmm")
                    row.update(spmm_honest_bytes=hb, spmm_honest_bytes_per_s=hb / prof["spmm"] if prof.get("spmm")
                               else None, spmm_honest_fraction_of_copy=hb / prof["spmm"] / res["copy_bytes_per_s"]
                               if prof.get("spmm") else None)
                    if dev == "gpu":
                        row["rooted_choice"] = {k_: v_ for k_, v_ in G._cache.items() if "cc_rooted_choice" in k_} \
                            if hasattr(G, "_cache") else None
                if a.compare_dense:
                    _, _, _, _, _, r3 = cc._prepare(G, tname, backend, a.dtype, "auto", layout="dense")
                    t3, ts3 = timed(lambda: r3.run(keys), dev, a.repeat)
                    prof3 = {}
                    r3.run(keys, profile=prof3)
                    row.update(per_coloring_dense_s=t3, profile_dense_s=prof3)
                    del r3
                if f"{scale}:{tname}" in a.cpu_compare and dev == "gpu":
                    _, _, _, _, _, r4 = cc._prepare(G, tname, "cpu", a.dtype, "auto")
                    t4, ts4 = timed(lambda: r4.run(keys), "cpu", 2)
                    row.update(cpu_per_coloring_s=t4, cpu_cores=os.cpu_count())
                    print(f"  cpu backend ({os.cpu_count()} cores) {tname} on scale {scale}: {t4:.3f} s per coloring",
                          flush=True)
                    del r4
                if f"{scale}:{tname}" in a.full_cusparse:
                    _, _, _, _, _, r2 = cc._prepare(G, tname, backend, a.dtype, "cusparse", layout="dense")
                    t2, ts2 = timed(lambda: r2.run(keys), dev, max(1, a.repeat // 2))
                    prof2 = {}
                    r2.run(keys, profile=prof2)
                    row.update(per_coloring_cusparse_s=t2, profile_cusparse_s=prof2)
                    del r2
                print(f"{G.name:10s} {tname:6s} k={P.k:2d} spmm_cols={plan.spmm_cols:5d} "
                      f"per-coloring {t_med:.4f} s  (spmm {prof.get('spmm', 0):.4f}, ema {prof.get('ema', 0):.4f}, "
                      f"leaf {prof.get('leaf', 0):.4f})"
                      + (f"  spmm honest {row['spmm_honest_bytes_per_s'] / 1e12:.3f} TB/s = "
                         f"{100 * row['spmm_honest_fraction_of_copy']:.0f}% of copy"
                         if row.get("spmm_honest_bytes_per_s") else "")
                      + (f"  dense {row['per_coloring_dense_s']:.4f} s" if "per_coloring_dense_s" in row else "")
                      + (f"  cusparse {row['per_coloring_cusparse_s']:.4f} s" if "per_coloring_cusparse_s" in row
                         else ""), flush=True)
                del runner
            except Exception as e:  # noqa: BLE001
                row["error"] = f"{type(e).__name__}: {e}"
                print(f"{G.name} {tname}: {row['error']}", flush=True)
            res["runs"].append(row)
            save()
            if dev == "gpu":
                import cupy as cp
                cp.get_default_memory_pool().free_all_blocks()
        for kc in a.census:
            res.setdefault("census", []).append(census_bench(G, kc, backend, a.dtype, dev, a.repeat, ginfo))
            save()
        for sk in a.rooted_sweep:
            sc, kk = map(int, sk.split(":"))
            if sc == scale and dev == "gpu":
                res.setdefault("rooted_sweep", []).append(
                    {"graph": ginfo, "sweep": rooted_sweep(G, kk, range(1, kk // 2 + 1), a.repeat, a.dtype,
                                                           coloring_keys(12345, 0, 1))})
                save()
        if not a.no_dense_sweep and (a.spmm_scales is None or scale in a.spmm_scales):
            cols = sorted(cols_seen)
            if dev == "gpu":
                from la_gpm.color_coding.gpu import GpuOps
                ops = GpuOps(G, 3, np.dtype(a.dtype), "custom", None)
            else:
                ops = CpuSpmm(G, a.dtype)
            sw = spmm_bench(G, ops, dev, cols, methods, a.repeat, a.dtype)
            for r in sw:
                rr = r.get("rooted", {})
                rooted_cell = (f"  rooted {rr['seconds'] * 1e3:8.2f} ms {rr['bytes_per_s'] / 1e12:.3f} TB/s"
                               if "seconds" in rr else f"  rooted {rr}")
                cells = "  ".join(f"{m} {r[m]['seconds'] * 1e3:8.2f} ms {r[m]['bytes_per_s'] / 1e12:.3f} TB/s"
                                  if "seconds" in r.get(m, {}) else f"{m} {r.get(m)}" for m in methods)
                print(f"  spmm {G.name} k={r['k']} p={r['p']} C={r['columns']:5d}  {cells}{rooted_cell}", flush=True)
            res["spmm"].append({"graph": ginfo, "sweep": sw})
            save()
            del ops
        del G
    save()
    print(f"# wrote {out}")
    return res


if __name__ == "__main__":
    main()
