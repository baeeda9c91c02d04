"""One start pair per orbit of Aut(Q) (the default plans for counting, docs/dynamic.md) against a plan per ordered
pair bounded by Aut(Q) (``query.ORBITS = False``), A/B in one process on one machine: ``DynamicGraph`` query views,
one batch applied to a fresh ``DynamicGraph`` per timed run (warm-up first, then the median of ``--repeats``), each
count checked equal between the two.

    python benchmarks/bench_dynamic_orbits.py                       # CPU, GAMMA's Table III rows (cit-HepTh-L5)
    python benchmarks/bench_dynamic_orbits.py --backend gpu

Workload as ``bench_dynamic.py`` (``dynamic_workload.make_batch`` / ``random_query``, seed 0, query index 0).
Writes ``dynamic_orbits_<backend>[_<suffix>].json``: device, versions, per row the two medians and the plans'
numbers of start pairs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, str(Path(__file__).parent))

import numpy as np  # noqa: E402

import la_gpm  # noqa: E402
import la_gpm.dynamic.query as dq  # noqa: E402
import dynamic_workload as dw  # noqa: E402
from bench_dynamic import load  # noqa: E402


def _sync(backend):
    if backend == "gpu":
        import cupy
        cupy.cuda.Device().synchronize()


def run(G0, ins, dele, P, backend, orbits, repeats):
    dq.ORBITS = orbits
    times, res = [], None
    for r in range(repeats + 1):
        D = la_gpm.DynamicGraph(G0, [P], keep_graph=False, backend=backend)
        D.apply()
        _sync(backend)
        t = time.perf_counter()
        d, = D.apply(insert=ins, delete=dele)
        _sync(backend)
        if r:
            times.append(time.perf_counter() - t)
        res = (d.positive, d.negative)
    plans = len(dq.compile_delta_plan(P, orbits=orbits).pairs)
    return statistics.median(times), res, plans


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["cit-HepTh-L5"])
    ap.add_argument("--kinds", nargs="+", default=["dense", "sparse", "tree"])
    ap.add_argument("--sizes", nargs="+", type=int, default=[6])
    ap.add_argument("--rate", type=float, default=0.1)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--backend", default="cpu", choices=["cpu", "gpu"])
    ap.add_argument("--suffix", default="")
    args = ap.parse_args()
    rows = []
    for name in args.datasets:
        G, _, _ = load(name, 1)
        G0, ins, dele = dw.make_batch(G, args.rate, seed=0)
        for k in args.sizes:
            for kind in args.kinds:
                P = dw.random_query(G, k, kind, seed=0)
                if P is None:
                    continue
                group_s, gres, gplans = run(G0, ins, dele, P, args.backend, False, args.repeats)
                orbit_s, ores, oplans = run(G0, ins, dele, P, args.backend, True, args.repeats)
                if ores != gres:
                    raise SystemExit(f"counts differ: {name} {kind}{k}: orbits {ores}, every pair {gres}")
                row = dict(dataset=name, kind=kind, k=k, rate=args.rate, automorphisms=P.automorphism_count,
                           positive=int(ores[0]), negative=int(ores[1]), plans_every_pair=gplans,
                           plans_orbits=oplans, every_pair_s=group_s, orbits_s=orbit_s,
                           speedup=group_s / orbit_s)
                rows.append(row)
                print(f"{name} {kind}{k} |Aut| {P.automorphism_count}: plans {gplans} -> {oplans}, "
                      f"{group_s * 1e3:.2f} -> {orbit_s * 1e3:.2f} ms ({row['speedup']:.2f}x)", flush=True)
    dq.ORBITS = True
    out = dict(benchmark="dynamic: one start pair per orbit vs every ordered pair (A/B, same process)",
               command="python " + " ".join(sys.argv), backend=args.backend,
               machine=dict(cpu=platform.processor() or platform.machine(), cores=os.cpu_count(),
                            platform=platform.platform()),
               versions=dict(python=platform.python_version(), la_gpm=la_gpm.__version__, numpy=np.__version__),
               omp_wait_policy=os.environ.get("OMP_WAIT_POLICY"), rows=rows)
    if args.backend == "gpu":
        import cupy
        out["machine"]["gpu"] = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    dest = Path(os.environ.get("LA_GPM_BENCH_OUT", Path(__file__).parent / "results"))
    dest.mkdir(parents=True, exist_ok=True)
    f = dest / f"dynamic_orbits_{args.backend}{'_' + args.suffix if args.suffix else ''}.json"
    f.write_text(json.dumps(out, indent=1))
    print("wrote", f)


if __name__ == "__main__":
    main()
