"""Batch-dynamic matching: the time of one small batch as the graph grows, for two source trees.

    python benchmarks/bench_dynamic_scaling.py [--before DIR] [--backend cpu|gpu] [--sizes 100000 1000000 4000000]
                                               [--batches 10 1000] [--quick] [--out FILE.json]

What a user of a stream feels: a batch of ten updates on a graph of millions of edges should cost what
ten updates cost, not a pass over the graph.  For each graph G(n, m) (seeded, n = m / 8, 8 random vertex
labels, numpy ``default_rng(1).integers(0, 8, n)``) and each batch size b (b distinct edges of the graph:
two thirds removed to give G0 and re-inserted by the batch, one third deleted from G0; seeded):

* ``match_delta_s``: ``la_gpm.match_delta(G0, Q, insert, delete)`` on an immutable G0 (the same batch
  each call; median after a warm-up);
* ``stream_s``: ``DynamicGraph(G0, [Q]).apply(...)`` per batch, over a stream that alternates the batch
  and its inverse (the graph returns to G0 every two batches, so every call does the same work);
* ``recount_s``: ``la_gpm.count`` of Q on G0 (after a warm-up call; what recounting one snapshot costs);
* positive / negative of both calls, which must agree with each other and across trees.

Q: labeled 4-vertex queries taken from the graph (``dynamic_workload.random_query``, seed 3, of the classes
``--kinds``: default a tree and a sparse one -- random graphs of this density hold almost no dense 4-sets).
Each tree runs in a child process (``PYTHONPATH=<tree>``; the child checks ``la_gpm.__file__``).  The
"before" tree is any older checkout of la_gpm, e.g. ``git archive e188e8e la_gpm | tar -x -C DIR``.
Times are per call, after one warm-up call, median over ``--repeat`` calls, the device synchronised
around each call on the gpu backend.  JSON: machine, versions, both trees, one row per (graph, batch,
query, tree), and per row the ratio before / after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _child(spec):
    import numpy as np

    import la_gpm
    want = Path(spec["tree"]).resolve()
    if not Path(la_gpm.__file__).resolve().is_relative_to(want):
        raise SystemExit(f"imported {la_gpm.__file__}, not the tree {want}")
    sys.path.insert(0, str(HERE))
    import dynamic_workload as dw
    backend = spec["backend"]
    sync = (lambda: __import__("cupy").cuda.Device().synchronize()) if backend == "gpu" else (lambda: None)
    rows = []
    for m in spec["sizes"]:
        n = max(m // 8, 16)
        H = la_gpm.generators.gnm(n, m, seed=1)
        rng = np.random.default_rng(1)
        G = la_gpm.Graph.from_edges(np.repeat(np.arange(H.n), H.degrees), H.indices, n=H.n,
                                    vertex_labels=rng.integers(0, 8, H.n))
        queries = [q for q in (dw.random_query(G, 4, kind, seed=3) for kind in spec["kinds"]) if q is not None]
        for b in spec["batches"]:
            G0, ins, dele = dw.make_batch(G, b / G.m, seed=2)
            for Q in queries:
                row = {"m": int(G.m), "n": int(G.n), "batch": int(len(ins) + len(dele)), "insert": int(len(ins)),
                       "delete": int(len(dele)), "query": Q.name, "query_edges": [list(e) for e in Q.edges],
                       "query_labels": list(Q.vertex_labels), "tree": spec["label"], "backend": backend}

                def call():
                    return la_gpm.match_delta(G0, Q, insert=ins, delete=dele, backend=backend)
                times, d = [], None
                t0 = time.perf_counter()
                d = call()
                sync()
                row["first_call_s"] = time.perf_counter() - t0
                for _ in range(spec["repeat"]):
                    sync()
                    t = time.perf_counter()
                    d = call()
                    sync()
                    times.append(time.perf_counter() - t)
                row["match_delta_s"] = statistics.median(times)
                row["positive"], row["negative"] = int(d.positive), int(d.negative)
                row["stats"] = {k: v for k, v in d.stats.items() if k.endswith("_s")}

                D = la_gpm.DynamicGraph(G0, [Q], backend=backend)
                fwd = dict(insert=ins, delete=dele)
                inv = dict(insert=dele, delete=ins)
                D.apply(**fwd)   # warm-up pair
                D.apply(**inv)
                times, got = [], set()
                for t_ in range(spec["repeat"]):
                    for kw in (fwd, inv):
                        sync()
                        t = time.perf_counter()
                        r = D.apply(**kw)[0]
                        sync()
                        times.append(time.perf_counter() - t)
                        got.add((kw is fwd, int(r.positive), int(r.negative)))
                row["stream_s"] = statistics.median(times)
                row["stream_counts"] = sorted(got)
                if spec["recount"]:
                    row["recount_count"] = int(la_gpm.count(G0, Q, count="embeddings", backend=backend))  # warm-up
                    sync()
                    t = time.perf_counter()
                    la_gpm.count(G0, Q, count="embeddings", backend=backend)
                    sync()
                    row["recount_s"] = time.perf_counter() - t
                rows.append(row)
                print(json.dumps(row), flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", help="an older tree of la_gpm (the folder holding its la_gpm/)")
    ap.add_argument("--before-id", default=None, help="its git id, for the record")
    ap.add_argument("--backend", default="cpu", choices=["cpu", "gpu"])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000, 4_000_000])
    ap.add_argument("--batches", type=int, nargs="+", default=[10, 1000])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--kinds", nargs="+", default=["tree", "sparse"], choices=["tree", "sparse", "dense"])
    ap.add_argument("--no-recount", action="store_true")
    ap.add_argument("--quick", action="store_true", help="sizes 20000 100000, batches 10 100, 3 repeats")
    ap.add_argument("--out", default=None)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        _child(json.loads(a.child))
        return 0
    if a.quick:
        a.sizes, a.batches, a.repeat = [20_000, 100_000], [10, 100], 3
    sys.path.insert(0, str(HERE))
    from harness import machine, source, versions
    after = HERE.parent
    trees = [("after", after)] + ([("before", Path(a.before).resolve())] if a.before else [])
    env0 = dict(os.environ)
    env0.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    out = {"benchmark": "dynamic_scaling", "machine": machine(), "versions": versions(), "source": source(),
           "settings": {k: v for k, v in vars(a).items() if k not in ("child",)},
           "omp_wait_policy": env0["OMP_WAIT_POLICY"],
           "trees": {lab: str(p) for lab, p in trees}, "before_id": a.before_id, "rows": []}
    for lab, tree in trees:
        spec = {"tree": str(tree), "label": lab, "backend": a.backend, "sizes": a.sizes, "batches": a.batches,
                "repeat": a.repeat, "kinds": a.kinds, "recount": not a.no_recount and lab == "after"}
        env = dict(env0, PYTHONPATH=str(tree))
        p = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], env=env, text=True,
                           capture_output=True)
        got = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
        out["rows"] += got
        if p.returncode:
            out.setdefault("errors", {})[lab] = p.stderr[-3000:]
            print(p.stderr[-3000:], file=sys.stderr)
    # checks and ratios
    key = lambda r: (r["m"], r["batch"], r["query"])  # noqa: E731
    by = {}
    for r in out["rows"]:
        by.setdefault(key(r), {})[r["tree"]] = r
    bad = []
    summary = []
    for k, d in sorted(by.items()):
        A = d.get("after")
        for r in d.values():
            want = {(True, r["positive"], r["negative"]), (False, r["negative"], r["positive"])}
            if set(map(tuple, r["stream_counts"])) != want:
                bad.append(f"{k} {r['tree']}: stream counts {r['stream_counts']} != match_delta {sorted(want)}")
        if A and "recount_count" in A and A["positive"] - A["negative"] > A["recount_count"] + A["positive"]:
            bad.append(f"{k}: net larger than possible")
        B = d.get("before")
        ent = {"m": k[0], "batch": k[1], "query": k[2], "after_match_delta_s": A and A["match_delta_s"],
               "after_stream_s": A and A["stream_s"], "recount_s": A and A.get("recount_s")}
        if A and B:
            if (A["positive"], A["negative"]) != (B["positive"], B["negative"]):
                bad.append(f"{k}: after {A['positive'], A['negative']} != before {B['positive'], B['negative']}")
            ent.update(before_match_delta_s=B["match_delta_s"], before_stream_s=B["stream_s"],
                       speedup_match_delta=B["match_delta_s"] / A["match_delta_s"],
                       speedup_stream=B["stream_s"] / A["stream_s"])
        summary.append(ent)
    out["summary"] = summary
    out["mismatches"] = bad
    dest = Path(a.out) if a.out else HERE / "results" / f"dynamic_scaling_{a.backend}{'_quick' if a.quick else ''}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(out, indent=1))
    for e in summary:
        print({k: (round(v, 5) if isinstance(v, float) else v) for k, v in e.items()})
    print("mismatches:", bad or "none", "->", dest)
    return 1 if bad or out.get("errors") else 0


if __name__ == "__main__":
    sys.exit(main())
