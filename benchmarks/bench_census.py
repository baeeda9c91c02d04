"""Motif census and graphlet orbits: la_gpm against pyfglt (FGLT), orbit-count (ORCA) and igraph
``motifs_randesu``, measured in the same run.

    python benchmarks/bench_census.py                  # G(20000, 200000), citeseer, email-Eu-core
    python benchmarks/bench_census.py --repeat 3 --igraph-timeout 120

Counts are checked before timing: la_gpm's per-vertex orbits must equal ORCA's, and the
class counts of every peer (orbit sums for ORCA / FGLT, isoclass counts for igraph) must
equal la_gpm's census.  Writes benchmarks/results/census_cpu.json (after every graph).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from harness import check, machine, timeit, versions, write  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm.motifs.driver import census, orbits  # noqa: E402
from la_gpm.patterns.classes import bit as _bit, classes as _classes  # noqa: E402

PUBLISHED = {"citeseer": {4: {"4-path": 111153, "4-star": 222630, "4-cycle": 3094, "tailed-triangle": 22900,
                              "diamond": 2200, "4-clique": 255},
                          3: {"wedge": 23380, "triangle": 1166}}}
# ORCA orbit -> (4-class name, vertices of the class in that orbit)
ORBIT4 = {4: ("4-path", 2), 5: ("4-path", 2), 6: ("4-star", 3), 7: ("4-star", 1), 8: ("4-cycle", 4),
          9: ("tailed-triangle", 1), 10: ("tailed-triangle", 2), 11: ("tailed-triangle", 1), 12: ("diamond", 2),
          13: ("diamond", 2), 14: ("4-clique", 4)}

FGLT_TO_ORCA = [1, 2, 3, 4, 5, 6, 7, 8, 12, 9, 10, 11, 13, 14, 15]


def edge_array(G):
    src = np.repeat(np.arange(G.n), G.degrees)
    keep = src < G.indices
    return np.column_stack([src[keep], G.indices[keep]]).astype(np.int64)


def counts_of(df):
    return [int(c) for c in df["count"]]


def class_counts_from_orbits4(X, names):
    """4-class counts from per-vertex orbit counts (ORCA numbering; each class checked on all its orbits)."""
    per = {}
    for o, (name, mult) in ORBIT4.items():
        s = int(X[:, o].sum())
        if s % mult:
            raise SystemExit(f"orbit {o} sum {s} is not a multiple of {mult}")
        per.setdefault(name, set()).add(s // mult)
    for name, vals in per.items():
        if len(vals) != 1:
            raise SystemExit(f"orbits of {name} disagree: {vals}")
    return [per[nm].pop() for nm in names]


def orca5_orbit_sets():
    """For each 5-class row: the ORCA orbits (15..72) its vertices occupy, found by running ORCA on the class."""
    from orbit_count._orca import motif_counts
    cls = _classes(5)
    out = []
    for edges in cls.edges:
        X = motif_counts("node", 5, 5, np.array(edges, dtype=np.int64))
        out.append(sorted(int(o) for o in np.flatnonzero(X[:, 15:].sum(0)) + 15))
    return out


def class_counts_from_orbits5(X, orbit_sets):
    return [int(X[:, os_].sum()) // 5 for os_ in orbit_sets]


def igraph_isoclass_rows(k):
    """igraph isoclass id -> la_gpm class row (None for disconnected isoclasses)."""
    import igraph as ig
    cls = _classes(k)
    n_iso = {3: 4, 4: 11}[k]
    out = {}
    for c in range(n_iso):
        g = ig.Graph.Isoclass(k, c)
        code = sum(1 << _bit(a, b) for a, b in g.get_edgelist())
        row = int(cls.table[code])
        out[c] = row if row >= 0 else None
    return out


def _igraph_worker(E, n, k, q):
    import igraph as ig
    g = ig.Graph(n=n, edges=E.tolist())
    t = time.perf_counter()
    res = g.motifs_randesu(size=k)
    q.put((time.perf_counter() - t, [None if (x != x) else int(x) for x in res]))


def run_igraph(G, k, timeout):
    """One timed igraph motifs_randesu run in a child process (killed after ``timeout`` s)."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_igraph_worker, args=(edge_array(G), G.n, k, q))
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.terminate()
        p.join()
        return None, f"did not finish within {timeout} s (killed)"
    if q.empty():
        return None, f"child exited with code {p.exitcode}"
    return q.get(), None


def bench_graph(label, G, args, orbit_sets5):
    rec = {"graph": label, "n": G.n, "m": G.m, "results": []}
    out = rec["results"]
    names4 = list(_classes(4).names)
    E = edge_array(G)

    for k in (3, 4):
        ref = census(G, k)
        enum = census(G, k, method="enumerate")
        check(f"{label}/k{k}/enumerate vs closed form", counts_of(enum), counts_of(ref))
        if k in PUBLISHED.get(label, {}):
            check(f"{label}/k{k}/published", dict(zip(ref["name"], counts_of(ref))), PUBLISHED[label][k])
        rows = {"k": k, "classes": dict(zip(ref["name"], counts_of(ref))), "impls": []}
        med, times, _ = timeit(lambda k=k: census(G, k), repeat=args.repeat)
        rows["impls"].append({"impl": "la_gpm census (closed form)", "seconds": med, "runs": times})
        med, times, _ = timeit(lambda k=k: census(G, k, method="enumerate"), repeat=max(1, args.repeat // 2))
        rows["impls"].append({"impl": "la_gpm census (ESU enumeration)", "seconds": med, "runs": times})
        if k == 4:
            mine = orbits(G, 4)
            med, times, _ = timeit(lambda: orbits(G, 4), repeat=args.repeat)
            rows["impls"].append({"impl": "la_gpm orbits(k=4) (per-vertex, 15 orbits)", "seconds": med,
                                  "runs": times})
            # ORCA
            from orbit_count._orca import motif_counts
            X = motif_counts("node", 4, G.n, E)
            check(f"{label}/orbits vs ORCA", bool(np.array_equal(X, mine)), True)
            check(f"{label}/k4/ORCA class sums", class_counts_from_orbits4(X, names4), counts_of(ref))
            med, times, _ = timeit(lambda: motif_counts("node", 4, G.n, E), repeat=args.repeat)
            rows["impls"].append({"impl": "orbit-count (ORCA) node_orbit_counts, graphlet size 4 (edge array given)",
                                  "seconds": med, "runs": times})
            # FGLT
            import scipy.sparse as sp
            from pyfglt import fglt
            A = sp.csc_matrix(G.to_scipy().astype(np.float64))
            F = fglt.compute(A).to_numpy()
            # FGLT columns: 0 vertex, then ORCA orbits 0..7, paw (9, 10, 11), 4-cycle (8), diamond, K4
            F = F[:, FGLT_TO_ORCA]
            check(f"{label}/k4/pyfglt orbits vs la_gpm", bool(np.array_equal(F, mine)), True)
            check(f"{label}/k4/pyfglt class sums", class_counts_from_orbits4(F, names4), counts_of(ref))
            med, times, _ = timeit(lambda: fglt.compute(A), repeat=args.repeat)
            rows["impls"].append({"impl": "pyfglt fglt.compute (csc input)", "seconds": med, "runs": times})
        if not args.no_igraph and (label.startswith("gnm") or k == 3 or G.m < 20000):
            mapping = igraph_isoclass_rows(k)
            res, why = run_igraph(G, k, args.igraph_timeout)
            if res is None:
                rows["impls"].append({"impl": f"igraph motifs_randesu(size={k})", "seconds": None, "skipped": why})
            else:
                dt, vals = res
                got = [0] * len(ref)
                for c, v in enumerate(vals):
                    if mapping[c] is not None:
                        got[mapping[c]] = v
                check(f"{label}/k{k}/igraph", got, counts_of(ref))
                rows["impls"].append({"impl": f"igraph motifs_randesu(size={k})", "seconds": dt, "runs": [dt],
                                      "note": "one timed run (no warm-up), child process"})
        out.append(rows)

    # k = 5
    ref = census(G, 5)
    rows = {"k": 5, "method": ref.attrs["method"], "classes": dict(zip(ref["name"], counts_of(ref))), "impls": []}
    med, times, _ = timeit(lambda: census(G, 5), repeat=args.repeat)
    rows["impls"].append({"impl": f"la_gpm census ({ref.attrs['method']})", "seconds": med, "runs": times})
    if ref.attrs["method"] != "enumerate":
        med, times, got = timeit(lambda: census(G, 5, method="enumerate"), repeat=1, warmup=0)
        check(f"{label}/k5/enumerate vs {ref.attrs['method']}", counts_of(got), counts_of(ref))
        rows["impls"].append({"impl": "la_gpm census (ESU enumeration)", "seconds": med, "runs": times})
    from orbit_count._orca import motif_counts
    t = time.perf_counter()
    X5 = motif_counts("node", 5, G.n, E)
    dt = time.perf_counter() - t
    check(f"{label}/k5/ORCA class sums", class_counts_from_orbits5(X5, orbit_sets5), counts_of(ref))
    rows["impls"].append({"impl": "orbit-count (ORCA) node_orbit_counts, graphlet size 5 (edge array given)",
                          "seconds": dt, "runs": [dt], "note": "one timed run (no warm-up)"})
    out.append(rows)
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--igraph-timeout", type=float, default=150.0)
    ap.add_argument("--no-igraph", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    import numba
    import os
    payload = {"benchmark": "motif census and graphlet orbits", "machine": machine(), "versions": versions(),
               "numba_threads": numba.get_num_threads(), "load_average_at_start": os.getloadavg(),
               "note": "shared 2-core machine: compare times within this file only; every count checked first",
               "graphs": []}
    orbit_sets5 = orca5_orbit_sets()
    graphs = [(f"gnm(20000,200000,seed={args.seed})", lambda: la_gpm.generators.gnm(20000, 200000, seed=args.seed)),
              ("citeseer", lambda: la_gpm.datasets.load("citeseer")),
              ("email-Eu-core", lambda: la_gpm.datasets.load("email-Eu-core"))]
    for label, make in graphs:
        G = make()
        rec = bench_graph(label, G, args, orbit_sets5)
        rec["load_average_after"] = os.getloadavg()
        payload["graphs"].append(rec)
        path = write("census", payload)
        for rows in rec["results"]:
            for r in rows["impls"]:
                s = "skipped: " + r["skipped"] if r.get("seconds") is None else f"{r['seconds']:.4f} s"
                print(f"{label:32s} k={rows['k']}  {r['impl']:70s} {s}", flush=True)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
