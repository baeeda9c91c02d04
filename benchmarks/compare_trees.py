"""Before/after speed and count check of two source trees of la_gpm, on the same device, in one run.

    python benchmarks/compare_trees.py --before /tmp/before --after . --backend cpu [--quick] [--out FILE.json]
    python benchmarks/compare_trees.py --before DIR_A --after DIR_B --backend gpu --before-id pre-issue16

Made for issue 16 (the structural redesign must not slow anything down): the tree before the redesign
comes from ``git archive pre-issue16 | tar -x -C DIR``; the tree after is a checkout.  Only the public
API present in both trees is used (``la_gpm.triangle_count``, ``cliques``, ``count``, ``census``,
``orbits``, ``match``, ``count_many``, ``colorful_count``, ``estimate``, ``estimate_census``,
``match_delta``, ``datasets.load``, ``generators.rmat``, ``io.read_sunluo``), never a module path inside
the package, so the same code runs against both trees.

How it measures
---------------
* The cases are grouped by graph.  For each group, one child process of this script per tree and
  round (``PYTHONPATH=<tree>``, so ``import la_gpm`` loads that tree; the child checks
  ``la_gpm.__file__`` and stops if another copy was imported).  Rounds alternate the trees mirrored,
  A B B A A B ..., so a linear drift of the machine (another job, the clock, the page cache) falls on
  both trees alike.  Each child loads the graph once, then for each case of the group: one warm-up call
  (numba / CUDA compilation, the graph's caches), then timed calls: at least ``--repeat`` of them and
  ``--min-time`` seconds' worth (at most 200 calls, so a median of sub-millisecond calls is not a few
  noisy samples), but none more once ``--budget`` seconds are spent (at least one call).  On the gpu
  backend ``cupy.cuda.Device().synchronize()`` runs before each reading of the clock.  The child prints
  its counts and times as JSON on stdout.
* The times of a tree are pooled over its rounds: ``median_s`` is the median of all its timed calls,
  ``round_medians_s`` the median of each child.  ``ratio`` = after / before of ``median_s`` (< 1: the
  after tree is faster); ``round_ratios`` the same per round (the two children of a round run back to
  back, under the same load) and ``ratio_paired`` their geometric mean, the steadier figure on a shared
  machine.
* Counts: every call's result is kept in a canonical form (ints exact; floats as floats; arrays as
  shape, column sums and a SHA-256 of their int64 bytes); ``stable`` says whether all calls of a tree
  (warm-up, every timed call, every round) gave the same result, ``equal`` whether the two trees
  gave the same.  Estimates use a fixed seed and a fixed number of colorings, so they must agree
  exactly too (``--float-rtol`` loosens this for float results only; default 0: exact).
* Exit code 1 when any case differs between the trees, is unstable, or failed in a child (a failed
  child is retried ``--retries`` times first: the after tree may be in the middle of an edit).

Output: JSON (``--out``, default ``results/compare_trees_<backend>[_quick].json`` beside this script):
the machine (CPU model, cores, GPU name), the versions seen by
the children, both trees (path, git id given with ``--before-id`` / ``--after-id`` or read with
``git -C DIR`` when DIR is a checkout, and whether that checkout had uncommitted changes), the
settings, and one row per case: name, graph, backend, counts_before / counts_after, equal, stable,
median_s before / after, ratio.

Data: the labelled graphs (yeast, HPRD) come from ``$LA_GPM_SHARED_DATA`` (default ``../shared/data``
beside the checkout that holds this script); cases whose data is missing are skipped, and say so.

Color coding on the gpu runs with ``spmm="tiled"`` (the rooted SpMM kernel picked by its rule):
``spmm="auto"`` times the candidate kernels in each process and may keep another one, whose sums agree
only up to float rounding, so the two trees could not be compared exactly.

On the GPU machine (the working tree travels without .git): extract the old package into an untracked
folder of the checkout, carry the data, and name both ids::

    git archive pre-issue16 la_gpm | (mkdir -p .before && tar -x -C .before)   # here, before the call
    cp -r ../shared/data .shared_data                                            # carried
    LA_GPM_SHARED_DATA=$PWD/.shared_data python benchmarks/compare_trees.py --before .before --after . \
        --backend gpu --before-id pre-issue16 --after-id <commit> --out $OUT/compare_trees_gpu.json
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("LA_GPM_SHARED_DATA") or HERE.parents[1] / "shared" / "data")
MARK = "@@COMPARE_TREES@@ "

# Estimates: a fixed seed and a fixed number of colorings per mode (eps so small that the adaptive stop
# never comes first), so both trees compute the same numbers.  The batch of match_delta uses it too.
SEED = 20240611
MAX_CALLS = 200
# idle OpenMP workers sleep instead of spinning between calls (as in bench_dynamic.py), unless set already
CHILD_OMP_WAIT_POLICY = os.environ.get("OMP_WAIT_POLICY", "PASSIVE")


# ---------------------------------------------------------------------------------------------------------
# Cases.  "graph": the graph per mode ("quick", "cpu", "gpu"; None: the case does not run in that mode):
# "dataset:NAME" (la_gpm.datasets.load), "rmat:SCALE:SEED" (la_gpm.generators.rmat), "gnm:N:M:SEED",
# "sunluo:PATH" (la_gpm.io.read_sunluo of DATA/PATH), "sunluo-g0:PATH:RATE" (that graph less the edges the
# match_delta batch inserts).  "op": the operation (see _make_op), "args": its arguments; "colorings": per mode.
# ---------------------------------------------------------------------------------------------------------

EMAIL = "dataset:email-Eu-core"
CITESEER = "dataset:citeseer"
YEAST = "sunluo:yeast/yeast.graph"
# yeast less the inserted edges of the match_delta batch (G0; see _batch)
YEAST0 = "sunluo-g0:yeast/yeast.graph:0.02"
HPRD = "sunluo:hprd/HPRD.graph"
ALL = {"quick": EMAIL, "cpu": EMAIL, "gpu": EMAIL}


def _on(quick=None, cpu=None, gpu=None):
    return {"quick": quick, "cpu": cpu, "gpu": gpu}


CASES = [
    # triangles
    dict(name="triangles", graph=_on(EMAIL, EMAIL, EMAIL), op="triangles"),
    dict(name="triangles", graph=_on("rmat:13:1", "rmat:15:1", "rmat:16:1"), op="triangles"),
    dict(name="triangles", graph=_on(gpu="rmat:20:1"), op="triangles"),
    # k-cliques
    dict(name="4-cliques", graph=_on(EMAIL, EMAIL, EMAIL), op="cliques", args={"k": 4}),
    dict(name="5-cliques", graph=_on(EMAIL, EMAIL, EMAIL), op="cliques", args={"k": 5}),
    dict(name="4-cliques", graph=_on("rmat:13:1", "rmat:15:1", "rmat:16:1"), op="cliques", args={"k": 4}),
    dict(name="4-cliques", graph=_on(gpu="rmat:20:1"), op="cliques", args={"k": 4}),
    dict(name="5-cliques", graph=_on(gpu="rmat:20:1"), op="cliques", args={"k": 5}),
    # any pattern (non-induced unless said, unique copies): a 4-cycle, two 5-vertex non-cliques
    dict(name="count 4-cycle", graph=_on(CITESEER, EMAIL, EMAIL), op="count", args={"pattern": "4-cycle"}),
    dict(name="count house", graph=_on(CITESEER, EMAIL, EMAIL), op="count", args={"pattern": "house"}),
    dict(name="count pentagon", graph=_on(CITESEER, CITESEER, EMAIL), op="count", args={"pattern": "pentagon"}),
    dict(name="count diamond", graph=_on(gpu="rmat:16:1"), op="count", args={"pattern": "diamond"}),
    # patterns with a closed form (issue 16: reached by canonical form whatever the spelling; before, only
    # the bowtie and the house by name): a 4-star given as an edge list, the 4-path, the tailed triangle
    dict(name="count 4-star as edges", graph=_on(EMAIL, "rmat:13:1", None), op="count",
         args={"pattern": [[0, 1], [0, 2], [0, 3]]}),
    dict(name="count 4-path", graph=_on(None, "rmat:13:1", None), op="count", args={"pattern": "4-path"}),
    dict(name="count tailed-triangle", graph=_on(None, "rmat:13:1", None), op="count",
         args={"pattern": "tailed-triangle"}),
    dict(name="count induced diamond", graph=_on(None, EMAIL, EMAIL), op="count",
         args={"pattern": "diamond", "induced": True}),
    # census (vertex-induced) and graphlet orbits
    dict(name="census k=3", graph=_on(CITESEER, CITESEER, CITESEER), op="census", args={"k": 3}),
    dict(name="census k=4", graph=_on(CITESEER, CITESEER, CITESEER), op="census", args={"k": 4}),
    dict(name="census k=5", graph=_on(CITESEER, CITESEER, CITESEER), op="census", args={"k": 5}),
    dict(name="census k=3", graph=_on(EMAIL, EMAIL, EMAIL), op="census", args={"k": 3}),
    dict(name="census k=4", graph=_on(EMAIL, EMAIL, EMAIL), op="census", args={"k": 4}),
    dict(name="census k=5", graph=_on(None, EMAIL, EMAIL), op="census", args={"k": 5}),
    dict(name="census k=4", graph=_on(gpu="rmat:16:1"), op="census", args={"k": 4}),
    dict(name="orbits k=4", graph=_on(EMAIL, EMAIL, EMAIL), op="orbits", args={"k": 4}),
    dict(name="orbits k=4", graph=_on(gpu="rmat:16:1"), op="orbits", args={"k": 4}),
    # labelled matching (embeddings)
    dict(name="match dense_8_1", graph=_on(YEAST, YEAST, YEAST), op="match",
         args={"query": "yeast/query_graph/query_dense_8_1.graph"}),
    dict(name="match sparse_16_1", graph=_on(None, YEAST, YEAST), op="match",
         args={"query": "yeast/query_graph/query_sparse_16_1.graph"}),
    dict(name="count_many hprd q1-20", graph=_on(HPRD, HPRD, HPRD), op="count_many",
         args={"folder": "hprd/query_graph", "stem": "query_dense_16_", "first": 1, "last": 20}),
    dict(name="count_many hprd q1-200", graph=_on(None, HPRD, HPRD), op="count_many",
         args={"folder": "hprd/query_graph", "stem": "query_dense_16_", "first": 1, "last": 200}),
    # color coding (SubGraph2Vec): one coloring exactly, and estimates over a fixed number of colorings
    dict(name="colorful_count u7", graph=_on(EMAIL, EMAIL, EMAIL), op="colorful_count",
         args={"template": "u7", "coloring": 0}),
    dict(name="estimate 7-path", graph=_on(EMAIL, EMAIL, EMAIL), op="estimate",
         args={"template": "7-path", "colorings": {"quick": 16, "cpu": 64, "gpu": 256}}),
    dict(name="estimate u10", graph=_on(None, EMAIL, EMAIL), op="estimate",
         args={"template": "u10", "colorings": {"cpu": 32, "gpu": 128}}),
    dict(name="colorful_count u12", graph=_on(gpu="rmat:16:1"), op="colorful_count",
         args={"template": "u12", "coloring": 0}),
    dict(name="estimate u10", graph=_on(gpu="rmat:16:1"), op="estimate",
         args={"template": "u10", "colorings": {"gpu": 16}}),
    # estimated census (Motivo)
    dict(name="estimate_census k=4", graph=_on(EMAIL, EMAIL, EMAIL), op="estimate_census",
         args={"k": 4, "colorings": {"quick": 5, "cpu": 20, "gpu": 20}}),
    dict(name="estimate_census k=5", graph=_on(None, EMAIL, EMAIL), op="estimate_census",
         args={"k": 5, "colorings": {"cpu": 12, "gpu": 20}}),
    # batch-dynamic matching (GAMMA): a seeded 2% batch (2/3 inserts, 1/3 deletes) on yeast
    dict(name="match_delta dense_8_1", graph=_on(YEAST0, YEAST0, YEAST0), op="match_delta",
         args={"query": "yeast/query_graph/query_dense_8_1.graph"}),
    dict(name="match_delta sparse_16_1", graph=_on(None, YEAST0, YEAST0), op="match_delta",
         args={"query": "yeast/query_graph/query_sparse_16_1.graph"}),
]


def _mode(backend: str, quick: bool) -> str:
    return "quick" if quick else backend


def _graph_of(case: dict, mode: str):
    g = case["graph"]
    return g[mode] if mode in g else g.get("cpu")


def _case_id(case: dict, graph: str) -> str:
    return f"{case['name']} | {graph}"


def selected_cases(backend: str, quick: bool, only: list[str] | None):
    mode = _mode(backend, quick)
    out = []
    for c in CASES:
        g = _graph_of(c, mode)
        if g is None:
            continue
        cid = _case_id(c, g)
        if only and not any(s.lower() in cid.lower() for s in only):
            continue
        out.append(dict(c, graph=g, id=cid))
    return out


def groups_of(cases):
    """Cases grouped by graph, in the order of first appearance (one child per group, tree and round)."""
    order, by = [], {}
    for c in cases:
        if c["graph"] not in by:
            by[c["graph"]] = []
            order.append(c["graph"])
        by[c["graph"]].append(c)
    return [(g, by[g]) for g in order]


def data_missing(graph: str, case: dict) -> str | None:
    paths = []
    if graph.startswith("sunluo"):
        paths.append(DATA / graph.split(":")[1])
    a = case.get("args", {})
    if "query" in a:
        paths.append(DATA / a["query"])
    if "folder" in a:
        paths.append(DATA / a["folder"])
    for p in paths:
        if not p.exists():
            return f"missing data: {p}"
    return None


# ---------------------------------------------------------------------------------------------------------
# child side: runs inside PYTHONPATH=<tree>, uses only the public API of both trees
# ---------------------------------------------------------------------------------------------------------

def _canon(x):
    """A JSON-able canonical form of a result, for exact comparison."""
    import numpy as np
    if hasattr(x, "__cuda_array_interface__") and hasattr(x, "get"):
        x = x.get()   # a CuPy array: compared on the host
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else repr(x)   # 'inf' / 'nan': strict JSON has no such numbers
    if isinstance(x, np.ndarray):
        a = np.ascontiguousarray(x)
        if a.dtype.kind in "iub":
            a64 = a.astype(np.int64)
            return {"shape": list(a.shape), "dtype": str(a.dtype),
                    "column_sums": [int(s) for s in np.atleast_2d(a64.T).sum(axis=-1)] if a.ndim == 2
                    else int(a64.sum()),
                    "sha256": hashlib.sha256(a64.tobytes()).hexdigest()}
        return {"shape": list(a.shape), "dtype": str(a.dtype), "values": [_canon(float(v)) for v in a.ravel()]}
    if isinstance(x, dict):
        return {str(k): _canon(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_canon(v) for v in x]
    if x is None:
        return None
    return str(x)


_BATCH = {}


def _batch(rel: str, rate: float, seed: int = SEED):
    """A seeded batch on the Sun & Luo graph DATA/rel, made here from the file (the same for both trees),
    GAMMA / RapidFlow style: ``rate * |E|`` distinct edges sampled; 2/3 of them are removed from the graph
    to give G0 and come back as the inserts, the rest are deleted from G0.  Returns (header lines kept
    for G0's file, G0's edges, insert, delete); vertex ids are the file's (= ``G.ids``)."""
    key = (rel, rate, seed)
    if key not in _BATCH:
        import numpy as np
        vlines, edges = [], []
        for ln in (DATA / rel).read_text().splitlines():
            f = ln.split()
            if f and f[0] == "v":
                vlines.append(" ".join(f[:3]))
            elif f and f[0] == "e" and int(f[1]) != int(f[2]):
                edges.append((min(int(f[1]), int(f[2])), max(int(f[1]), int(f[2]))))
        E = np.unique(np.array(edges, dtype=np.int64), axis=0)
        rng = np.random.default_rng(seed)
        s = max(3, int(round(rate * len(E))))
        pick = rng.choice(len(E), size=s, replace=False)
        n_ins = int(round(s * 2 / 3))
        ins, dele = E[pick[:n_ins]], E[pick[n_ins:]]
        keep = np.ones(len(E), dtype=bool)
        keep[pick[:n_ins]] = False
        _BATCH[key] = (vlines, E[keep], ins, dele)
    return _BATCH[key]


def _digest(r) -> str:
    return hashlib.sha256(json.dumps(r, sort_keys=True).encode()).hexdigest()[:16]


def _load_graph(la_gpm, spec: str):
    kind, _, rest = spec.partition(":")
    if kind == "dataset":
        return la_gpm.datasets.load(rest)
    if kind == "rmat":
        scale, seed = (int(v) for v in rest.split(":"))
        return la_gpm.generators.rmat(scale, seed=seed)
    if kind == "gnm":
        n, m, seed = (int(v) for v in rest.split(":"))
        return la_gpm.generators.gnm(n, m, seed=seed)
    if kind == "sunluo":
        return la_gpm.io.read_sunluo(DATA / rest)
    if kind == "sunluo-g0":
        import tempfile
        rel, rate = rest.split(":")
        vlines, E0, _, _ = _batch(rel, float(rate))
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / Path(rel).name
            path.write_text(f"t {len(vlines)} {len(E0)}\n" + "\n".join(vlines) + "\n"
                            + "".join(f"e {u} {v}\n" for u, v in E0.tolist()))
            return la_gpm.io.read_sunluo(path)
    raise SystemExit(f"unknown graph spec {spec!r}")


def _make_op(la_gpm, G, case: dict, backend: str, mode: str):
    """A zero-argument function doing the case's work once and returning its raw result."""
    op, a = case["op"], case.get("args", {})
    b = backend
    if op == "triangles":
        return lambda: la_gpm.triangle_count(G, backend=b)
    if op == "cliques":
        return lambda: la_gpm.cliques(G, a["k"], backend=b)
    if op == "count":
        return lambda: la_gpm.count(G, a["pattern"], backend=b, induced=a.get("induced", False),
                                    count=a.get("count", "unique"))
    if op == "census":
        def census():
            df = la_gpm.census(G, a["k"], backend=b, induced=a.get("induced", True))
            return {str(int(k)): int(c) for k, c in zip(df["key"], df["count"])}
        return census
    if op == "orbits":
        return lambda: la_gpm.orbits(G, a["k"], backend=b)
    if op == "match":
        import numpy as np
        Q = str(DATA / a["query"])

        def match():
            rows, sums = 0, None
            for arr in la_gpm.match(G, Q, backend=b):
                arr = arr.get() if hasattr(arr, "get") and not isinstance(arr, np.ndarray) else np.asarray(arr)
                rows += len(arr)
                s = arr.astype(np.int64).sum(axis=0)
                sums = s if sums is None else sums + s
            # order-independent: the gpu lists the same rows in another order
            return {"embeddings": rows, "column_sums": [] if sums is None else [int(v) for v in sums]}
        return match
    if op == "count_many":
        folder = DATA / a["folder"]
        qs = [str(folder / f"{a['stem']}{i}.graph") for i in range(a["first"], a["last"] + 1)]
        return lambda: [int(c) for c in la_gpm.count_many(G, qs, backend=b, count="embeddings")]
    # gpu: the rooted SpMM kernel by its rule ("tiled"), not spmm="auto", which times the candidate kernels
    # in each process and may keep another one (same counts up to float rounding, so not comparable exactly)
    spmm = "tiled" if b == "gpu" else "auto"
    if op == "colorful_count":
        return lambda: la_gpm.colorful_count(G, a["template"], seed=SEED, coloring=a.get("coloring", 0), backend=b,
                                             spmm=spmm)
    if op == "estimate":
        m = a["colorings"][mode]

        def estimate():
            e = la_gpm.estimate(G, a["template"], eps=1e-4, delta=0.01, seed=SEED, max_colorings=m, backend=b,
                                spmm=spmm)
            return {"value": e.value, "ci_low": e.ci_low, "ci_high": e.ci_high, "n_colorings": int(e.n_colorings),
                    "values": _canon(e.values)}
        return estimate
    if op == "estimate_census":
        m = a["colorings"][mode]

        def estimate_census():
            df = la_gpm.estimate_census(G, a["k"], eps=1e-4, seed=SEED, max_colorings=m, min_colorings=m,
                                        backend=b)
            rows = {str(int(k)): [float(c), int(s)] for k, c, s in zip(df["key"], df["count"], df["samples"])}
            return {"classes": rows, "colorings": int(df.attrs.get("colorings", -1)),
                    "samples": int(df.attrs.get("samples", -1))}
        return estimate_census
    if op == "match_delta":
        Q = str(DATA / a["query"])
        kind, rel, rate = case["graph"].split(":")
        if kind != "sunluo-g0":
            raise SystemExit("match_delta cases run on a 'sunluo-g0:PATH:RATE' graph")
        _, _, ins, dele = _batch(rel, float(rate))

        def match_delta():
            r = la_gpm.match_delta(G, Q, insert=ins, delete=dele, backend=b)
            return {"positive": int(r.positive), "negative": int(r.negative), "batch": [len(ins), len(dele)]}
        return match_delta
    raise SystemExit(f"unknown op {op!r}")


def child_main(spec: dict) -> int:
    tree = Path(spec["tree"]).resolve()
    backend, mode = spec["backend"], spec["mode"]
    t_import = time.perf_counter()
    import la_gpm
    got = Path(la_gpm.__file__).resolve()
    if tree not in got.parents:
        print(MARK + json.dumps({"error": f"imported la_gpm from {got}, not from the tree {tree}"}), flush=True)
        return 3
    gpu = None
    if backend == "gpu":
        import cupy as cp

        def sync():
            cp.cuda.Device().synchronize()   # the clock is read only once the device is idle
        p = cp.cuda.runtime.getDeviceProperties(0)
        gpu = p["name"].decode() if isinstance(p["name"], bytes) else str(p["name"])
        gpu += f" (CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}, driver {cp.cuda.runtime.driverGetVersion()})"
    else:
        def sync():
            pass
    import_s = time.perf_counter() - t_import
    vers = {"python": platform.python_version(), "la_gpm": getattr(la_gpm, "__version__", "?")}
    for mod in ("numpy", "scipy", "numba", "pandas", "cupy"):
        m = sys.modules.get(mod)
        if m is None and mod != "cupy":
            try:
                m = __import__(mod)
            except Exception:  # noqa: BLE001 -- optional
                m = None
        if m is not None:
            vers[mod] = getattr(m, "__version__", "installed")

    t = time.perf_counter()
    G = _load_graph(la_gpm, spec["graph"])
    load_s = time.perf_counter() - t
    out = {"la_gpm_file": str(got), "versions": vers, "gpu": gpu, "import_s": import_s, "load_s": load_s,
           "graph_n": int(G.n), "graph_m": int(G.m), "cases": {}}
    for case in spec["cases"]:
        row = {}
        try:
            fn = _make_op(la_gpm, G, case, backend, mode)
            sync()
            t = time.perf_counter()
            r = fn()
            sync()
            row["warmup_s"] = time.perf_counter() - t
            first = _canon(r)
            times, results = [], [first]
            while True:
                sync()
                t = time.perf_counter()
                r = fn()
                sync()
                times.append(time.perf_counter() - t)
                results.append(_canon(r))
                spent = sum(times)
                if spent > spec["budget"] or len(times) >= MAX_CALLS:
                    break
                if len(times) >= spec["repeat"] and spent >= spec["min_time"]:
                    break
            row.update(times_s=times, result=first, result_digests=sorted({_digest(r) for r in results}),
                       stable=all(json.dumps(r, sort_keys=True) == json.dumps(first, sort_keys=True)
                                  for r in results))
            if not row["stable"]:
                row["results"] = results[:10]
        except Exception as e:  # noqa: BLE001 -- reported to the parent, which flags the case
            import traceback
            row = {"error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc(limit=6)}
        out["cases"][case["id"]] = row
    print(MARK + json.dumps(out), flush=True)
    return 0


# ---------------------------------------------------------------------------------------------------------
# parent side
# ---------------------------------------------------------------------------------------------------------

def run_child(tree: Path, graph: str, cases: list, backend: str, mode: str, repeat: int, min_time: float,
              budget: float, timeout: float, retries: int):
    spec = {"tree": str(tree), "graph": graph, "backend": backend, "mode": mode, "repeat": repeat,
            "min_time": min_time, "budget": budget,
            "cases": [{k: c[k] for k in ("id", "name", "op", "args", "graph") if k in c} for c in cases]}
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("OMP_WAIT_POLICY", CHILD_OMP_WAIT_POLICY)
    env["LA_GPM_SHARED_DATA"] = str(DATA.resolve())   # the children run in the tree's folder
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)]
    last = None
    for attempt in range(retries + 1):
        t = time.perf_counter()
        try:
            p = subprocess.run(cmd, env=env, cwd=str(tree), capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            last = {"error": f"child timed out after {timeout:.0f} s"}
            continue
        wall = time.perf_counter() - t
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith(MARK)]
        if p.returncode == 0 and lines:
            res = json.loads(lines[-1][len(MARK):])
            res["wall_s"] = wall
            res["attempts"] = attempt + 1
            if any("error" in r for r in res["cases"].values()) and attempt < retries:
                last = res
                continue
            return res
        err = json.loads(lines[-1][len(MARK):]).get("error") if lines else None
        tail = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
        last = {"error": err or f"child exit {p.returncode}: {tail[-1].strip() if tail else 'no message'}",
                "stderr_tail": p.stderr[-3000:]}
    return last


def git_info(d: Path, given: str | None, repo: Path | None):
    info = {"path": str(d)}
    if given:
        info["id"] = given
    # git -C d only where d is a checkout's root: a tree extracted inside another checkout would name that one
    own = (d / ".git").exists()
    tries = ([(d, "HEAD", True)] if not given and own else []) + (
        [(repo, given + "^{commit}", False)] if given and repo else [])
    for where, ref, is_own in tries:
        try:
            sha = subprocess.run(["git", "-C", str(where), "rev-parse", "--verify", ref], capture_output=True,
                                 text=True, timeout=30)
            if sha.returncode != 0:
                continue
            info["commit"] = sha.stdout.strip()
            if is_own:
                st = subprocess.run(["git", "-C", str(d), "status", "--porcelain", "--untracked-files=no"],
                                    capture_output=True, text=True, timeout=60)
                info["uncommitted_changes"] = len([ln for ln in st.stdout.splitlines() if ln.strip()])
                info["id"] = info.get("id") or subprocess.run(
                    ["git", "-C", str(d), "describe", "--always", "--tags", "--dirty"], capture_output=True,
                    text=True, timeout=30).stdout.strip()
            break
        except (OSError, subprocess.SubprocessError):
            continue
    return info


def machine(backend: str) -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    gpu = None
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        if r.returncode == 0 and r.stdout.strip():
            gpu = r.stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    return {"cpu": cpu, "cores": os.cpu_count(), "cores_usable": affinity, "gpu": gpu, "backend": backend,
            "platform": platform.platform(), "load_average_start": load,
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "env": {k: os.environ.get(k) for k in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OMP_WAIT_POLICY",
                                                   "CUDA_VISIBLE_DEVICES", "LA_GPM_SHARED_DATA")}}


def _floats_close(a, b, rtol: float):
    """True when a and b have the same structure and ints, and floats within rtol; with the largest
    relative float difference seen."""
    worst = [0.0]

    def rec(x, y):
        if isinstance(x, bool) or isinstance(y, bool) or isinstance(x, int) and isinstance(y, int):
            return x == y
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            if x == y:
                return True
            if isinstance(x, int) and isinstance(y, int):
                return False
            if math.isnan(x) or math.isnan(y):
                return False
            d = abs(x - y) / max(abs(x), abs(y))
            worst[0] = max(worst[0], d)
            return d <= rtol
        if isinstance(x, dict) and isinstance(y, dict):
            return x.keys() == y.keys() and all(rec(x[k], y[k]) for k in x)
        if isinstance(x, list) and isinstance(y, list):
            return len(x) == len(y) and all(rec(u, v) for u, v in zip(x, y))
        return x == y

    ok = rec(a, b)
    return ok, worst[0]


def reference_counts(case: dict):
    """Published counts for a case where the data has them: HPRD embeddings (expected_output.res)."""
    a = case.get("args", {})
    if case["op"] != "count_many" or not a.get("folder", "").startswith("hprd"):
        return None
    f = DATA / "hprd" / "expected_output.res"
    if not f.is_file():
        return None
    exp = dict(ln.strip().split(":") for ln in f.read_text().splitlines() if ":" in ln)
    names = [f"{a['stem']}{i}" for i in range(a["first"], a["last"] + 1)]
    return [int(exp[n]) for n in names] if all(n in exp for n in names) else None


def _short(r, limit=600):
    s = json.dumps(r, sort_keys=True)
    return r if len(s) <= limit else {"summary": s[:limit] + "...", "sha256": hashlib.sha256(s.encode()).hexdigest()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, help="the tree before (a folder holding la_gpm/)")
    ap.add_argument("--after", type=Path, help="the tree after (a folder holding la_gpm/)")
    ap.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    ap.add_argument("--quick", action="store_true", help="small cases, one round (under a minute on 2 cores)")
    ap.add_argument("--out", type=Path, help="JSON output (default benchmarks/results/compare_trees_<backend>"
                                             "[_quick].json beside this script)")
    ap.add_argument("--before-id", help="git id of the before tree (e.g. pre-issue16; default: git -C BEFORE)")
    ap.add_argument("--after-id", help="git id of the after tree (default: git -C AFTER)")
    ap.add_argument("--rounds", type=int, help="children per tree and graph, alternating A B B A ... "
                                               "(default 2; 1 with --quick)")
    ap.add_argument("--repeat", type=int, help="at least this many timed calls per case and child, unless "
                                               "--budget is spent first (default 5; 3 with --quick)")
    ap.add_argument("--min-time", type=float, help="and at least this many seconds of timed calls (at most "
                                                   f"{MAX_CALLS} calls; default 0.5; 0.2 with --quick)")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds of timed calls per case and child after which it stops repeating (at least one "
                         "call; default 6; 2 with --quick)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds for one child (default 600)")
    ap.add_argument("--retries", type=int, default=1, help="reruns of a failed child (default 1)")
    ap.add_argument("--float-rtol", type=float, default=0.0,
                    help="relative tolerance for float results (estimates) between the trees (default 0: exact)")
    ap.add_argument("--cases", nargs="*", help="only the cases whose 'name | graph' contains one of these")
    ap.add_argument("--list", action="store_true", help="list the cases of this mode and exit")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child_main(json.loads(args.child))

    cases = selected_cases(args.backend, args.quick, args.cases)
    if args.list:
        for c in cases:
            print(c["id"])
        return 0
    if args.before is None or args.after is None:
        ap.error("--before and --after are required")
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    for k, d in trees.items():
        if not (d / "la_gpm" / "__init__.py").is_file():
            ap.error(f"--{k} {d}: no la_gpm/__init__.py there")
    mode = _mode(args.backend, args.quick)
    rounds = args.rounds or (1 if args.quick else 2)
    repeat = args.repeat or (3 if args.quick else 5)
    budget = args.budget if args.budget is not None else (2.0 if args.quick else 6.0)
    min_time = args.min_time if args.min_time is not None else (0.2 if args.quick else 0.5)
    out_path = args.out or HERE / "results" / f"compare_trees_{args.backend}{'_quick' if args.quick else ''}.json"

    repo = trees["after"] if (trees["after"] / ".git").exists() else None
    payload = {
        "what": "issue 16: the same public calls on the tree before and the tree after, same device, one run",
        "machine": machine(args.backend),
        "trees": {"before": git_info(trees["before"], args.before_id, repo),
                  "after": git_info(trees["after"], args.after_id, repo)},
        "settings": {"backend": args.backend, "quick": args.quick, "rounds": rounds, "repeat": repeat,
                     "min_time_s": min_time, "budget_s": budget, "max_calls": MAX_CALLS, "seed": SEED,
                     "float_rtol": args.float_rtol, "child_env": {"OMP_WAIT_POLICY": CHILD_OMP_WAIT_POLICY},
                     "gpu_spmm": "tiled (color coding on the gpu: the rule's kernel, not the timed choice)",
                     "order": "per graph: rounds alternate the trees mirrored (A B, B A, A B, ...)",
                     "data": str(DATA)},
        "versions": {},
        "children": [],
        "rows": [],
    }
    t0 = time.perf_counter()
    per = {c["id"]: {"before": [], "after": []} for c in cases}
    skipped = {}
    for graph, group in groups_of(cases):
        runnable = []
        for c in group:
            why = data_missing(graph, c)
            if why:
                skipped[c["id"]] = why
            else:
                runnable.append(c)
        if not runnable:
            continue
        for r in range(rounds):
            order = ("before", "after") if r % 2 == 0 else ("after", "before")
            for side in order:
                res = run_child(trees[side], graph, runnable, args.backend, mode, repeat, min_time, budget,
                                args.timeout, args.retries)
                brief = {"graph": graph, "tree": side, "round": r}
                if "error" in res and "cases" not in res:
                    brief["error"] = res["error"]
                    brief["stderr_tail"] = res.get("stderr_tail")
                    for c in runnable:
                        per[c["id"]][side].append({"error": res["error"]})
                else:
                    brief.update({k: res.get(k) for k in ("wall_s", "import_s", "load_s", "graph_n", "graph_m",
                                                          "attempts", "la_gpm_file", "gpu")})
                    payload["versions"].setdefault(side, res.get("versions"))
                    if res.get("gpu"):
                        payload["machine"].setdefault("gpu_seen_by_children", res["gpu"])
                    for c in runnable:
                        per[c["id"]][side].append(dict(res["cases"][c["id"]], graph_n=res.get("graph_n"),
                                                       graph_m=res.get("graph_m")))
                payload["children"].append(brief)
                state = f"ERROR {str(brief['error'])[:200]}" if "error" in brief else f"ok {brief['wall_s']:.1f} s"
                print(f"  [{time.perf_counter() - t0:6.1f} s] {graph:28s} round {r} {side:6s} {state}",
                      file=sys.stderr, flush=True)

    bad = 0
    for c in cases:
        row = {"name": c["name"], "graph": c["graph"], "backend": args.backend, "op": c["op"],
               "args": c.get("args", {})}
        if c["id"] in skipped:
            row["skipped"] = skipped[c["id"]]
            payload["rows"].append(row)
            continue
        errs = {s: [x["error"] for x in per[c["id"]][s] if "error" in x] for s in ("before", "after")}
        if errs["before"] or errs["after"]:
            row["error"] = errs
            row["equal"] = False
            bad += 1
            payload["rows"].append(row)
            continue
        runs = per[c["id"]]
        row["graph_n"], row["graph_m"] = runs["after"][0]["graph_n"], runs["after"][0]["graph_m"]
        res = {s: runs[s][0]["result"] for s in ("before", "after")}
        stable = {s: all(x["stable"] for x in runs[s]) and all(
            json.dumps(x["result"], sort_keys=True) == json.dumps(res[s], sort_keys=True) for x in runs[s])
            for s in ("before", "after")}
        exact = json.dumps(res["before"], sort_keys=True) == json.dumps(res["after"], sort_keys=True)
        close, worst = _floats_close(res["before"], res["after"], args.float_rtol)
        row["counts_before"], row["counts_after"] = _short(res["before"]), _short(res["after"])
        row["equal"] = bool(exact or close)
        row["equal_exact"] = exact
        if not exact:
            row["max_rel_diff"] = worst
        row["stable"] = stable
        times = {s: [t for x in runs[s] for t in x["times_s"]] for s in ("before", "after")}
        med = {s: statistics.median(times[s]) for s in ("before", "after")}
        row["median_s"] = med
        row["min_s"] = {s: min(times[s]) for s in ("before", "after")}
        row["round_medians_s"] = {s: [statistics.median(x["times_s"]) for x in runs[s]] for s in ("before", "after")}
        row["timed_calls"] = {s: len(times[s]) for s in ("before", "after")}
        row["warmup_s"] = {s: [x["warmup_s"] for x in runs[s]] for s in ("before", "after")}
        row["ratio"] = med["after"] / med["before"] if med["before"] > 0 else None
        # the two children of a round ran back to back, under the same load: their ratio, per round
        pairs = [a / b for a, b in zip(row["round_medians_s"]["after"], row["round_medians_s"]["before"]) if b > 0]
        row["round_ratios"] = pairs
        row["ratio_paired"] = math.exp(sum(math.log(x) for x in pairs) / len(pairs)) if pairs else None
        ref = reference_counts(c)
        if ref is not None:
            row["reference_ok"] = {s: res[s] == ref for s in ("before", "after")}
        if not row["equal"] or not all(stable.values()) or (ref is not None and not all(row["reference_ok"].values())):
            bad += 1
        payload["rows"].append(row)

    ratios = [r["ratio"] for r in payload["rows"] if r.get("ratio")]
    paired = [r["ratio_paired"] for r in payload["rows"] if r.get("ratio_paired")]
    payload["summary"] = {
        "cases": len(payload["rows"]),
        "equal": sum(1 for r in payload["rows"] if r.get("equal")),
        "mismatched_or_failed": bad,
        "skipped": len(skipped),
        "ratio_geomean": math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else None,
        "ratio_max": max(ratios) if ratios else None,
        "ratio_min": min(ratios) if ratios else None,
        "ratio_paired_geomean": math.exp(sum(math.log(x) for x in paired) / len(paired)) if paired else None,
        "wall_s": time.perf_counter() - t0,
    }
    try:
        payload["machine"]["load_average_end"] = os.getloadavg()
    except OSError:
        pass
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(payload, indent=1, default=str) + "\n")

    w = max(len(r["name"]) + len(r["graph"]) + 3 for r in payload["rows"]) if payload["rows"] else 20
    print(f"{'case':{w}s}  {'before s':>10s}  {'after s':>10s}  {'after/before':>12s}  {'paired':>7s}  counts")
    for r in payload["rows"]:
        label = f"{r['name']} | {r['graph']}"
        if "skipped" in r:
            print(f"{label:{w}s}  skipped: {r['skipped']}")
        elif "error" in r:
            print(f"{label:{w}s}  ERROR: {json.dumps(r['error'])[:300]}")
        else:
            flag = "equal" if r["equal"] else "MISMATCH"
            if not all(r["stable"].values()):
                flag += " UNSTABLE"
            print(f"{label:{w}s}  {r['median_s']['before']:10.4f}  {r['median_s']['after']:10.4f}  "
                  f"{r['ratio']:12.3f}  {r['ratio_paired']:7.3f}  {flag}")
    s = payload["summary"]
    print(f"{s['equal']}/{s['cases']} equal, {s['mismatched_or_failed']} mismatched or failed, {s['skipped']} "
          f"skipped; ratio after/before: geomean {s['ratio_geomean'] or float('nan'):.3f}, "
          f"max {s['ratio_max'] or float('nan'):.3f}; paired per round: geomean "
          f"{s['ratio_paired_geomean'] or float('nan'):.3f}; wall {s['wall_s']:.0f} s -> {out_path}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
