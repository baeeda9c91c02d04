"""Motif census and graphlet orbits (la_gpm.motifs): against pyfglt, ORCA and igraph on the CPU, the GPU
against the CPU backend, fixed costs on small graphs, the 5-vertex hybrid on R-MAT graphs, and closed forms.

    python benchmarks/bench_motifs.py census [--repeats 3 --igraph-timeout 120]   # vs pyfglt, ORCA, igraph
    python benchmarks/bench_motifs.py census_small [--gpu]                         # fixed per-call costs, floors
    python benchmarks/bench_motifs.py gpu_census --gpu [--full | --auto-crossover] # GPU vs CPU census
    python benchmarks/bench_motifs.py census5_rmat16 --gpu [--scale 16 | --series 11 12 13 |
                                        --bulk-sweep 12 13 14 --bulk 0 8 16 32 | --dense-sweep 12 13 --set K=V,..]
    python benchmarks/bench_motifs.py dense5_bulk [--graphs "R-MAT 9,R-MAT 10,email-Eu-core"]
    python benchmarks/bench_motifs.py gpu_orbits [--gpu]                           # 4-vertex orbits, GPU vs CPU
    python benchmarks/bench_motifs.py orbits5 [--repeats 3]                        # 5-vertex orbits vs ORCA (+ pyfglt k=4)
    python benchmarks/bench_motifs.py orbits4 [--before DIR --rounds 3]             # 4-vertex orbits vs pyfglt, ORCA, before
    python benchmarks/bench_motifs.py closed_forms                                 # bowtie / house vs enumeration
    python benchmarks/bench_motifs.py closed_forms5 [--enum-timeout 8]             # every 5-vertex class, before/after
    python benchmarks/bench_motifs.py closed_forms_all [--peer-timeout 120]         # every 3/4/5-vertex class vs peers
    python benchmarks/bench_motifs.py census8 [--max-predicted 120]                # census(G, 8) beside census(G, 7)
    python benchmarks/bench_motifs.py SUITE --quick

Results: census_<tag>, census_small_<tag>, census_gpu_hybrid5_<tag> (census_gpu_<tag> with --full,
census5_gpu_auto_crossover_<tag>), census5_rmat<scale>_<tag> (census5_rmat_series, census5_k23_bulk,
census5_dense_sweep), dense5_bulk_<tag>, orbits_<tag>, orbits4_<tag>, orbits5_<tag>, closed_forms_<tag>, closed_forms5_<tag>, closed_forms_all_<tag>, census8_<tag>.json.
"""

from __future__ import annotations

import os
import statistics
import time

import numpy as np
from harness import (COPY_BW_H100, Family, Record, arg, check, command, edge_array, graph, numba_threads, once, peer,
                     split_names, timeit, to_igraph)

import la_gpm
from la_gpm.motifs import census, orbits
from la_gpm.patterns.classes import bit, classes, to_induced

FAMILY = Family(__doc__)
PEERS = {("citeseer", 4): {"G2Miner": 1.3e-3, "DuMato": 0.13}, ("citeseer", 5): {"DuMato": 0.25},
         ("R-MAT 16", 4): {"G2Miner": 6.6}}    # ../shared/ANCHORS.md (H100)


def counts(df):
    return [int(c) for c in df["count"]]


def csr_floor(G, extra_bytes=0):
    """Seconds to read the CSR once (8 bytes per row pointer, 4 per arc) plus ``extra_bytes`` at the H100's
    copy bandwidth: every method reads the graph at least once."""
    return ((G.n + 1) * 8 + G.nnz * 4 + extra_bytes) / COPY_BW_H100


def warm(ks=(3, 4, 5), backends=("cpu",), methods=(None,)):
    """Compile the census kernels (every k, backend and method given) before any timing."""
    tiny = la_gpm.generators.gnm(60, 300, seed=0)
    for k in ks:
        for b in backends:
            for m in methods:
                census(tiny, k, backend=b, **({} if m is None else {"method": m}))


def profiled(fn):
    """(result, stage seconds) of one call of fn with the GPU hybrid's stage profile on (the device
    synchronised around each stage)."""
    from la_gpm.motifs import gpu as gc
    gc.PROFILE = {}
    try:
        out = fn()
        return out, gc.PROFILE
    finally:
        gc.PROFILE = None


# ------------------------------------------------------------------ census (CPU, peers)
PUBLISHED = {"citeseer": {4: {"4-path": 111153, "4-star": 222630, "4-cycle": 3094, "tailed-triangle": 22900,
                              "diamond": 2200, "4-clique": 255},
                          3: {"wedge": 23380, "triangle": 1166}}}
# ORCA orbit -> (4-class name, vertices of the class in that orbit)
ORBIT4 = {4: ("4-path", 2), 5: ("4-path", 2), 6: ("4-star", 3), 7: ("4-star", 1), 8: ("4-cycle", 4),
          9: ("tailed-triangle", 1), 10: ("tailed-triangle", 2), 11: ("tailed-triangle", 1), 12: ("diamond", 2),
          13: ("diamond", 2), 14: ("4-clique", 4)}
FGLT_TO_ORCA = [1, 2, 3, 4, 5, 6, 7, 8, 12, 9, 10, 11, 13, 14, 15]


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
    return [sorted(int(o) for o in np.flatnonzero(motif_counts("node", 5, 5, np.array(e, dtype=np.int64))[:, 15:]
                                                   .sum(0)) + 15) for e in classes(5).edges]


def igraph_isoclass_rows(k):
    """igraph isoclass id -> la_gpm class row (None for disconnected isoclasses)."""
    import igraph as ig
    cls = classes(k)
    out = {}
    for c in range({3: 4, 4: 11}[k]):
        code = sum(1 << bit(a, b) for a, b in ig.Graph.Isoclass(k, c).get_edgelist())
        row = int(cls.table[code])
        out[c] = row if row >= 0 else None
    return out


def orbit_peers(label, G, E, mine, ref, names4, repeat):
    """ORCA and pyfglt per-vertex 4-orbits: equal to la_gpm's, class sums equal to the census, timed."""
    rows = []

    def orca():
        from orbit_count._orca import motif_counts
        X = motif_counts("node", 4, G.n, E)
        check(f"{label}/orbits vs ORCA", bool(np.array_equal(X, mine)), True)
        check(f"{label}/k4/ORCA class sums", class_counts_from_orbits4(X, names4), ref)
        return lambda: motif_counts("node", 4, G.n, E)

    def fglt():
        import scipy.sparse as sp
        from pyfglt import fglt as F
        A = sp.csc_matrix(G.to_scipy().astype(np.float64))
        # FGLT columns: 0 vertex, then ORCA orbits 0..7, paw (9, 10, 11), 4-cycle (8), diamond, K4
        X = F.compute(A).to_numpy()[:, FGLT_TO_ORCA]
        check(f"{label}/k4/pyfglt orbits vs la_gpm", bool(np.array_equal(X, mine)), True)
        check(f"{label}/k4/pyfglt class sums", class_counts_from_orbits4(X, names4), ref)
        return lambda: F.compute(A)
    rows.append(peer("orbit-count (ORCA) node_orbit_counts, graphlet size 4 (edge array given)", orca, repeat=repeat))
    rows.append(peer("pyfglt fglt.compute (csc input)", fglt, repeat=repeat))
    return rows


def igraph_peer(label, G, k, ref, timeout):
    """igraph motifs_randesu: one timed run in a child process, isoclass counts mapped to class rows."""
    mapping = {}

    def convert(vals):
        got = [0] * len(ref)
        for c, v in enumerate(vals):
            if mapping[c] is not None:
                got[mapping[c]] = int(v)
        return got

    def make():
        mapping.update(igraph_isoclass_rows(k))
        g = to_igraph(G)
        return lambda: [None if (x != x) else x for x in g.motifs_randesu(size=k)]
    row = peer(f"igraph motifs_randesu(size={k})", make, want=ref, label=f"{label}/k{k}", timeout=timeout,
               convert=convert, note="one timed run (no warm-up), child process")
    if "skipped" in row:
        row["seconds"] = None
    return row


def bench_census_graph(label, G, a, orbit_sets5):
    rec = {"graph": label, "n": G.n, "m": G.m, "results": []}
    names4 = list(classes(4).names)
    E = edge_array(G)
    for k in (3, 4):
        ref = census(G, k)
        check(f"{label}/k{k}/enumerate vs closed form", counts(census(G, k, method="enumerate")), counts(ref))
        if k in PUBLISHED.get(label, {}):
            check(f"{label}/k{k}/published", dict(zip(ref["name"], counts(ref))), PUBLISHED[label][k])
        rows = {"k": k, "classes": dict(zip(ref["name"], counts(ref))), "impls": []}
        med, times, _ = timeit(lambda k=k: census(G, k), repeat=a.repeats)
        rows["impls"].append({"impl": "la_gpm census (closed form)", "seconds": med, "runs": times})
        med, times, _ = timeit(lambda k=k: census(G, k, method="enumerate"), repeat=max(1, a.repeats // 2))
        rows["impls"].append({"impl": "la_gpm census (ESU enumeration)", "seconds": med, "runs": times})
        if k == 4:
            mine = orbits(G, 4)
            med, times, _ = timeit(lambda: orbits(G, 4), repeat=a.repeats)
            rows["impls"].append({"impl": "la_gpm orbits(k=4) (per-vertex, 15 orbits)", "seconds": med,
                                  "runs": times})
            rows["impls"] += orbit_peers(label, G, E, mine, counts(ref), names4, a.repeats)
        if not a.no_igraph and (label.startswith("gnm") or k == 3 or G.m < 20000):
            rows["impls"].append(igraph_peer(label, G, k, counts(ref), a.igraph_timeout))
        rec["results"].append(rows)
    ref = census(G, 5)
    rows = {"k": 5, "method": ref.attrs["method"], "classes": dict(zip(ref["name"], counts(ref))), "impls": []}
    med, times, _ = timeit(lambda: census(G, 5), repeat=a.repeats)
    rows["impls"].append({"impl": f"la_gpm census ({ref.attrs['method']})", "seconds": med, "runs": times})
    if ref.attrs["method"] != "enumerate":
        med, times, got = timeit(lambda: census(G, 5, method="enumerate"), repeat=1, warmup=0)
        check(f"{label}/k5/enumerate vs {ref.attrs['method']}", counts(got), counts(ref))
        rows["impls"].append({"impl": "la_gpm census (ESU enumeration)", "seconds": med, "runs": times})

    def orca5():
        from orbit_count._orca import motif_counts
        return lambda: motif_counts("node", 5, G.n, E)
    row = peer("orbit-count (ORCA) node_orbit_counts, graphlet size 5 (edge array given)", orca5, repeat=1, warmup=0,
               convert=lambda X5: [int(X5[:, os_].sum()) // 5 for os_ in orbit_sets5], want=counts(ref),
               label=f"{label}/k5/ORCA class sums", note="one timed run (no warm-up)")
    rows["impls"].append(row)
    rec["results"].append(rows)
    return rec


@FAMILY.suite("census", repeats=5, graphs="gnm(20000,200000,seed=1),citeseer,email-Eu-core",
              quick={"graphs": "karate", "repeats": 2, "igraph_timeout": 20.0},
              args=[arg("--igraph-timeout", type=float, default=150.0), arg("--no-igraph", action="store_true")])
def census_suite(a):
    """Motif census (k = 3, 4, 5) and 4-vertex graphlet orbits against pyfglt (FGLT), orbit-count (ORCA) and
    igraph motifs_randesu in the same run. Counts are checked before timing: la_gpm's per-vertex orbits
    equal ORCA's and pyfglt's, and every peer's class counts (orbit sums, isoclass counts) equal la_gpm's
    census. A peer that is not installed is recorded as skipped."""
    try:
        orbit_sets5 = orca5_orbit_sets()
    except ImportError:
        orbit_sets5 = None
    rec = Record(a, "census", "motif census and graphlet orbits", rows="graphs", numba_threads=numba_threads(),
                 load_average_at_start=os.getloadavg(),
                 note="shared 2-core machine: compare times within this file only; every count checked first")
    for label in a.graphs:
        r = bench_census_graph(label, graph(label), a, orbit_sets5)
        r["load_average_after"] = os.getloadavg()
        rec.add(r, echo=False)
        for rows in r["results"]:
            for x in rows["impls"]:
                s = "skipped: " + x["skipped"] if x.get("seconds") is None else f"{x['seconds']:.4f} s"
                print(f"{label:32s} k={rows['k']}  {x['impl']:70s} {s}", flush=True)
    rec.done()



@FAMILY.suite(repeats=3, graphs="karate,citeseer,email-Eu-core,G(20000,200000)", quick={"graphs": "karate,citeseer"})
def orbits5(a):
    """Graphlet orbits of up to 5 vertices (``la_gpm.orbits(G, 5)``, n x 73, ORCA numbering) against orbit-count
    (ORCA, ``node_orbit_counts(G, 5)``) in the same run, and the 4-vertex orbits (``orbits(G, 4)``) against
    orbit-count and pyfglt (FGLT counts graphlets of up to 4 vertices only, so it has k = 4 rows only).
    Every peer's matrix is checked equal to la_gpm's before its time counts; times are medians after a warm-up
    call (ORCA's k = 5 medians of ``--repeats`` runs too)."""
    warm_g = la_gpm.generators.gnm(60, 300, seed=0)
    orbits(warm_g, 5)                         # load / compile the kernels outside the clock
    orbits(la_gpm.generators.gnm(600, 9000, seed=0), 5)   # the pooled (parallel) builds as well
    rec = Record(a, "orbits5", "graphlet orbits of 2..5 vertices per vertex: la_gpm vs orbit-count and pyfglt",
                 numba_threads=numba_threads(), load_average_at_start=os.getloadavg(),
                 note="shared 2-core machine (others working on it): compare times within this file only; "
                      "every peer's orbit matrix checked equal to la_gpm's first")
    names4 = list(classes(4).names)
    for label in a.graphs:
        G = graph(label)
        E = edge_array(G)
        row = {"graph": label, "n": G.n, "m": G.m, "max_degree": int(G.max_degree), "impls": {}}
        med, times, mine5 = timeit(lambda: orbits(G, 5), repeat=a.repeats)
        row["impls"]["la_gpm orbits(G, 5)"] = {"k": 5, "seconds": med, "runs": times}

        def orca5():
            from orbit_count._orca import motif_counts
            return lambda: motif_counts("node", 5, G.n, E)
        r = peer("orbit-count (ORCA) node_orbit_counts, graphlet size 5 (edge array given)", orca5,
                 repeat=a.repeats, convert=lambda X: bool(np.array_equal(X, mine5)), want=True,
                 label=f"{label}/k5/ORCA orbits equal la_gpm's")
        row["impls"][r.pop("impl")] = {"k": 5, **r}
        mine4 = orbits(G, 4)
        check(f"{label}: orbits(G, 5)[:, :15] == orbits(G, 4)", bool(np.array_equal(mine5[:, :15], mine4)), True)
        med, times, _ = timeit(lambda: orbits(G, 4), repeat=a.repeats)
        row["impls"]["la_gpm orbits(G, 4)"] = {"k": 4, "seconds": med, "runs": times}
        for r in orbit_peers(label, G, E, mine4, counts(census(G, 4)), names4, a.repeats):
            row["impls"][r.pop("impl")] = {"k": 4, **r}
        t5 = row["impls"]["la_gpm orbits(G, 5)"]["seconds"]
        row["speedup_k5_vs_orca"] = {k: v["seconds"] / t5 for k, v in row["impls"].items()
                                     if v["k"] == 5 and v.get("seconds") and not k.startswith("la_gpm")}
        row["orbit_sums"] = [int(x) for x in mine5.sum(axis=0)]
        row["load_average_after"] = os.getloadavg()
        rec.add(row, echo=False)
        for k, v in row["impls"].items():
            s_ = "skipped: " + v["skipped"] if v.get("seconds") is None else f"{v['seconds']:.4f} s"
            print(f"{label:24s} k={v['k']}  {k:75s} {s_}", flush=True)
    rec.done()


_ORBITS4_CHILD = """
import hashlib, json, sys, time
sys.path.insert(0, {tree!r})
import la_gpm                                   # this tree's la_gpm, before the harness puts the checkout first
assert la_gpm.__file__.startswith({tree!r}), la_gpm.__file__
sys.path.insert(0, {bench!r})
from bench_motifs import bench_graph
from harness import timeit
from la_gpm.motifs import orbits
from la_gpm.motifs import orbit_equations as oe
G = bench_graph({label!r})
orbits(la_gpm.generators.gnm(60, 300, seed=0), 4)
X = orbits(G, 4)
med, runs, _ = timeit(lambda: orbits(G, 4), repeat={repeats})
stages = {{}}
if hasattr(oe, "orbits_cpu"):
    stages["orbits_cpu (sigma and solve, one numba call)"] = timeit(lambda: oe.orbits_cpu(G, 4), repeat={repeats})[0]
else:
    from la_gpm.motifs.closed_forms import noninduced_orbits
    stages["noninduced_orbits"], _, S = timeit(lambda: noninduced_orbits(G, 4), repeat={repeats})
    stages["solve_orbits (host)"] = timeit(lambda: oe.solve_orbits(S, 15), repeat={repeats})[0]
print("RESULT", json.dumps({{"seconds": med, "runs": runs, "stages": stages,
                            "sha256": hashlib.sha256(X.tobytes()).hexdigest(), "la_gpm": la_gpm.__file__}}))
"""


def orbits4_child(tree, label, repeats):
    """``orbits(G, 4)`` of the la_gpm in ``tree`` (the folder holding its la_gpm/) timed in a fresh process: its row
    (median, runs, stage medians, sha256 of the n x 15 matrix), or SystemExit when the child failed."""
    import json
    import sys
    from harness import HERE
    r = command([sys.executable, "-c", _ORBITS4_CHILD.format(tree=str(tree), bench=str(HERE), label=label,
                                                            repeats=repeats)], timeout=1800)
    for ln in r["text"].splitlines():
        if ln.startswith("RESULT "):
            return json.loads(ln[7:])
    raise SystemExit(f"orbits4 child ({tree}, {label}) failed: {r['text'][-800:]}")


@FAMILY.suite(repeats=5, graphs="karate,citeseer,email-Eu-core,email-Enron,G(20000,200000)",
              quick={"graphs": "karate,citeseer", "repeats": 2, "rounds": 1},
              args=[arg("--before", default=None, help="an older tree of la_gpm (the folder holding its la_gpm/), "
                                                       "e.g. git archive HEAD la_gpm | tar -x -C DIR"),
                    arg("--before-id", default=None, help="its git id, for the record"),
                    arg("--rounds", type=int, default=3, help="alternating rounds of every implementation")])
def orbits4(a):
    """4-vertex graphlet orbits (``la_gpm.orbits(G, 4)``, n x 15, ORCA numbering) against pyfglt (FGLT) and orbit-count
    (ORCA) in the same run, and, with ``--before DIR``, against an older la_gpm tree in the same run.

    Every implementation is timed in ``--rounds`` alternating rounds of ``--repeats`` timed runs after a warm-up
    (the medians are over all runs of all rounds): la_gpm, pyfglt and ORCA in this process, then the before and
    after trees in fresh child processes (``PYTHONPATH``-style: each child puts its tree first and checks
    ``la_gpm.__file__``), their order swapped every round.  Every peer's matrix is checked equal to la_gpm's
    (``orbit_peers``; pyfglt's columns mapped by ``FGLT_TO_ORCA``) and each child's matrix hash equal to this
    process's before any time counts.  Results: orbits4_<tag>.json."""
    import hashlib
    from harness import ROOT
    warm_g = la_gpm.generators.gnm(60, 300, seed=0)
    orbits(warm_g, 4)
    rec = Record(a, "orbits4", "4-vertex graphlet orbits per vertex: la_gpm vs pyfglt and orbit-count, before/after",
                 numba_threads=numba_threads(), load_average_at_start=os.getloadavg(), rounds=a.rounds,
                 before_tree=a.before, before_id=a.before_id,
                 note="shared 2-core machine (others working on it): compare times within this file only; medians "
                      "over all rounds; every peer's orbit matrix checked equal to la_gpm's first")
    names4 = list(classes(4).names)
    trees = [("after", ROOT)] + ([("before", a.before)] if a.before else [])
    for label in a.graphs:
        G = bench_graph(label)
        E = edge_array(G)
        mine = orbits(G, 4)
        sha = hashlib.sha256(mine.tobytes()).hexdigest()
        ref = counts(census(G, 4))
        runs = {}
        children = {t: {"runs": [], "stages": []} for t, _ in trees}
        for rnd in range(a.rounds):
            runs.setdefault("la_gpm orbits(G, 4)", []).extend(timeit(lambda: orbits(G, 4), repeat=a.repeats)[1])
            for r in orbit_peers(label, G, E, mine, ref, names4, a.repeats):
                if r.get("seconds") is not None:
                    runs.setdefault(r["impl"], []).extend(r["runs"])
            for t, tree in (trees if rnd % 2 == 0 else trees[::-1]):
                c = orbits4_child(tree, label, a.repeats)
                check(f"{label}: the {t} tree's orbits(G, 4) equals this process's", c["sha256"], sha)
                children[t]["runs"].extend(c["runs"])
                children[t]["stages"].append(c["stages"])
                children[t]["la_gpm"] = c["la_gpm"]
        row = {"graph": label, "n": G.n, "m": G.m, "max_degree": int(G.max_degree), "impls": {}}
        for k, v in runs.items():
            row["impls"][k] = {"seconds": statistics.median(v), "runs": v}
        for t, c in children.items():
            stages = {k: statistics.median([s[k] for s in c["stages"]]) for k in c["stages"][0]}
            row["impls"][f"la_gpm orbits(G, 4), {t} tree (child process)"] = {
                "seconds": statistics.median(c["runs"]), "runs": c["runs"], "stages": stages, "la_gpm": c["la_gpm"]}
        mine_s = row["impls"]["la_gpm orbits(G, 4)"]["seconds"]
        row["speedup_vs"] = {k: v["seconds"] / mine_s for k, v in row["impls"].items() if not k.startswith("la_gpm")}
        if a.before:
            row["before_over_after_children"] = (row["impls"]["la_gpm orbits(G, 4), before tree (child process)"]["seconds"]
                                                 / row["impls"]["la_gpm orbits(G, 4), after tree (child process)"]["seconds"])
        row["load_average_after"] = os.getloadavg()
        rec.add(row, echo=False)
        for k, v in row["impls"].items():
            print(f"{label:18s} {k:75s} {v['seconds'] * 1e3:10.3f} ms", flush=True)
    rec.done()


# ------------------------------------------------------------------ census_small
def reps(first):
    """(repeat, warmup) for a call whose first run took ``first`` seconds."""
    if first > 1.0:
        return 1, 0
    if first > 0.05:
        return 5, 1
    return 51, 5


def cpu_counts(G, k):
    """What census(G, k, backend="cpu") computes, without the frame (its default methods)."""
    from la_gpm.motifs import driver as M
    from la_gpm.motifs.closed_forms import closed_form_noninduced
    from la_gpm.motifs.hybrid import hybrid5_noninduced
    cls = classes(k)
    if k <= 4:
        return to_induced(cls.M, closed_form_noninduced(G, k))
    N = hybrid5_noninduced(G, decline=True)
    return M._enumerate(G, k, cls, False) if N is None else to_induced(cls.M, N)


def gpu_floors(cp):
    nop = cp.RawKernel(r'extern "C" __global__ void la_nop(unsigned long long* x) {}', "la_nop")
    x = cp.zeros(1, dtype=cp.uint64)
    dev = cp.cuda.Device()

    def launch_sync():
        nop((1,), (32,), (x,))
        dev.synchronize()

    def launch_copy():
        nop((1,), (32,), (x,))
        return x.get()

    return {"empty_launch_synchronize_s": timeit(launch_sync, repeat=501, warmup=20)[0],
            "empty_launch_8byte_copy_back_s": timeit(launch_copy, repeat=501, warmup=20)[0],
            "synchronize_only_s": timeit(dev.synchronize, repeat=501, warmup=20)[0],
            "alloc_48_bytes_s": timeit(lambda: cp.empty(6, dtype=cp.uint64), repeat=501, warmup=20)[0]}


def small_kernel_seconds(G, k, cp):
    """Device time of census_small alone (CUDA events around the launch), median of 51."""
    from la_gpm.device import kernel, sm_count
    from la_gpm.motifs import gpu as gc
    shape = gc.small_shape(G, k)
    if shape is None or not G.m:
        return None
    wpb, shm = shape
    ptr, idx, _, _ = gc._device_desc(G)
    kern = kernel("la_gpm.motifs", "census", "census_small")
    regs = gc._SMALL_REGS.get(cp.cuda.Device().id, 64)
    threads = wpb * 32
    per_sm = max(1, min(2048 // threads, 65536 // (regs * threads), (227 << 10) // (shm + 1024), 32))
    grid = int(min(G.n, sm_count() * per_sm))
    _, scratch = gc._small_scratch(cp)
    out = cp.empty(6, dtype=cp.uint64)
    args = (ptr, idx, np.int32(G.n), np.int32((G.n + 31) // 32), np.int32(k), scratch, out)
    times = []
    for i in range(56):
        ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
        ev0.record()
        kern((grid,), (threads,), args, shared_mem=shm)
        ev1.record()
        ev1.synchronize()
        if i >= 5:
            times.append(cp.cuda.get_elapsed_time(ev0, ev1) * 1e-3)
    return float(np.median(times)), {"grid": grid, "warps_per_block": wpb, "shared_bytes": shm, "regs": regs}


def small_gpu(row, G, k, cls, cpu_df, rep, cp):
    """The GPU columns of a census_small row: the call, the counts without the frame, census_small's kernel
    alone and the global-counter path (SMALL_SHARED_BYTES = 0) for k <= 4."""
    from la_gpm.motifs import driver as M
    from la_gpm.motifs import gpu as gc
    label = row["graph"]
    g_med, g_runs, gpu_df = timeit(lambda: census(G, k, backend="gpu"), repeat=max(rep, 21), warmup=3, sync=True,
                                   budget_s=20)
    check(f"{label} k={k} gpu", counts(gpu_df), counts(cpu_df))
    row.update(gpu_method=gpu_df.attrs["method"], gpu_seconds=g_med, gpu_runs=g_runs,
               speedup_vs_cpu=row["cpu_seconds"] / g_med,
               gpu_compute_only_seconds=timeit(lambda: M._census_gpu(G, k, cls, True, "auto"), repeat=max(rep, 21),
                                               warmup=3, sync=True, budget_s=20)[0])
    if k > 4:
        return
    row["gpu_small_shape"] = gc.small_shape(G, k)
    ks = small_kernel_seconds(G, k, cp)
    if ks is not None:
        row["census_small_kernel_seconds"], row["census_small_launch"] = ks
    saved = gc.SMALL_SHARED_BYTES
    gc.SMALL_SHARED_BYTES = 0
    try:
        gl_med, _, gl_df = timeit(lambda: census(G, k, backend="gpu"), repeat=21, warmup=3, sync=True, budget_s=20)
    finally:
        gc.SMALL_SHARED_BYTES = saved
    check(f"{label} k={k} gpu global path", counts(gl_df), counts(cpu_df))
    row["gpu_global_path_seconds"] = gl_med


@FAMILY.suite(gpu="optional", graphs="karate,citeseer,email-Eu-core,R-MAT 16", quick={"graphs": "karate"})
def census_small(a):
    """Fixed per-call costs of the exact census on small graphs, and the floors under them.

    Per graph and k = 3, 4, 5 (R-MAT 16's 5-census left out: minutes): ``census`` on the CPU backend (all
    cores) and with --gpu on the GPU, counts checked equal (citeseer against tests/known.py); the same counts
    without the result frame and the frame alone; k = 4 on the CPU: the totals kernel on the calling thread
    against the thread pool; k <= 4 on the GPU: census_small's kernel alone (CUDA events) and the
    global-counter path (SMALL_SHARED_BYTES = 0); floors: an empty launch + synchronize, the same + an
    8-byte copy back, a bare synchronize, and census of a 3-vertex graph."""
    from la_gpm.motifs.common import descending, nchunks
    from la_gpm.motifs.cpu import census4_totals, census4_totals_serial
    from la_gpm.motifs.frames import frame
    from tests.known import CITESEER_INDUCED_3, CITESEER_INDUCED_4
    cp = None
    if a.gpu:
        import cupy as cp
    rec = Record(a, "census_small", "census fixed costs on small graphs", numba_threads=numba_threads(),
                 note="medians after warm-up; graph and its cached relabelling / device copy built in the warm-up; "
                      "GPU runs synchronised; counts checked CPU == GPU (and citeseer == published) first")
    warm(backends=("cpu", "gpu") if a.gpu else ("cpu",))
    tri = la_gpm.Graph.from_edges(np.array([0, 1, 0]), np.array([1, 2, 2]), n=3)
    rec["census_triangle_graph_cpu_s"] = timeit(lambda: census(tri, 3, backend="cpu"), repeat=501, warmup=20)[0]
    if a.gpu:
        rec["floors"] = gpu_floors(cp)
        rec["census_triangle_graph_gpu_s"] = timeit(lambda: census(tri, 3, backend="gpu"), repeat=501, warmup=20,
                                                    sync=True)[0]
    for label in a.graphs:
        G = graph(label)
        for k in (3, 4, 5):
            if label == "R-MAT 16" and k == 5:
                continue
            cls = classes(k)
            first, cpu_df = once(lambda: census(G, k, backend="cpu"), sync=False)
            rep, warmup = reps(first)
            c_med, c_runs, cpu_df = timeit(lambda: census(G, k, backend="cpu"), repeat=rep, warmup=warmup, budget_s=20)
            if label == "citeseer" and k in (3, 4):
                check(f"citeseer k={k} cpu", dict(zip(cpu_df["name"], counts(cpu_df))),
                      CITESEER_INDUCED_3 if k == 3 else CITESEER_INDUCED_4)
            want = counts(cpu_df)
            row = {"graph": label, "n": G.n, "m": G.m, "max_degree": int(G.max_degree), "k": k,
                   "cpu_method": cpu_df.attrs["method"], "counts": dict(zip(cpu_df["name"], want)),
                   "cpu_seconds": c_med, "cpu_runs": c_runs,
                   "cpu_compute_only_seconds": timeit(lambda: cpu_counts(G, k), repeat=rep, warmup=warmup,
                                                      budget_s=20)[0],
                   "frame_seconds": timeit(lambda: frame(cls, k, want, True, "x"), repeat=201, warmup=20)[0],
                   "csr_read_floor_seconds": csr_floor(G)}
            if k == 4:
                ptr, idx, _ = descending(G)
                row["cpu_census4_totals_serial_s"] = timeit(lambda: census4_totals_serial(ptr, idx), repeat=rep,
                                                            warmup=1, budget_s=10)[0]
                row["cpu_census4_totals_pool_s"] = timeit(lambda: census4_totals(ptr, idx, nchunks()), repeat=rep,
                                                          warmup=1, budget_s=10)[0]
            if a.gpu:
                small_gpu(row, G, k, cls, cpu_df, rep, cp)
            rec.add(row, echo={x: (f"{y * 1e3:.3f} ms" if isinstance(y, float) else y) for x, y in row.items()
                               if x not in ("counts", "cpu_runs", "gpu_runs")})
    print("floors:", rec.payload.get("floors"), "census(triangle):", rec["census_triangle_graph_cpu_s"],
          rec.payload.get("census_triangle_graph_gpu_s"))
    rec.done()


# ------------------------------------------------------------------ gpu_census
def gpu_vs_cpu_row(G, label, k, gpu_method, cpu_method, cpu_plan):
    """census on the CPU (a first call, then the median of (repeats, budget) = cpu_plan(first seconds), no
    further warm-up) and on the GPU (median of 7 after a warm-up, synchronised), counts checked equal: the
    common columns of a row."""
    c_first, _ = once(lambda: census(G, k, backend="cpu", method=cpu_method), sync=False)
    repeat, budget = cpu_plan(c_first)
    c_med, c_times, cpu_df = timeit(lambda: census(G, k, backend="cpu", method=cpu_method), repeat=repeat, warmup=0,
                                    budget_s=budget)
    g_med, g_times, gpu_df = timeit(lambda: census(G, k, backend="gpu", method=gpu_method), repeat=7, sync=True,
                                    budget_s=30)
    check(f"{label} k={k} gpu {gpu_method} vs cpu {cpu_method}", counts(gpu_df), counts(cpu_df))
    row = {"graph": label, "n": G.n, "m": G.m, "k": k, "gpu_method": gpu_df.attrs["method"],
           "cpu_method": cpu_df.attrs["method"], "connected_subgraphs": sum(counts(gpu_df)),
           "counts": dict(zip(gpu_df["name"], counts(gpu_df))), "gpu_seconds": g_med, "gpu_runs": g_times,
           "cpu_seconds": c_med, "cpu_runs": c_times, "speedup_vs_cpu": c_med / g_med, "gpu_edges_per_s": G.m / g_med,
           "csr_read_floor_seconds": csr_floor(G)}
    if (label, k) in PEERS:
        row["peers_seconds_anchor"] = PEERS[(label, k)]
    return row, gpu_df


def census_table(a):
    """--full: the k = 3..6 table (closed forms and enumeration, GPU vs CPU) and the kernel knobs."""
    rec = Record(a, "census_gpu", "motif census (gpu)", numba_threads=numba_threads(),
                 note="GPU times with the graph and its degree-descending relabelling already cached (device "
                      "copy included in the warm-up), as the CPU's relabelling is; counts checked against the "
                      "CPU backend before timing")
    warm((3, 4), methods=("closed_form", "enumerate"))
    warm((5,), methods=("hybrid", "enumerate"))
    warm(backends=("gpu",), methods=("enumerate",))
    warm((3, 4), backends=("gpu",), methods=("closed_form",))
    for label in a.graphs:
        G = graph(label)
        for k in (3, 4, 5, 6) if label == "citeseer" else (3, 4, 5):
            cases = []
            if k <= 4:
                cases.append(("closed_form", "auto"))
                if label != "R-MAT 16":
                    cases.append(("enumerate", "enumerate"))
            elif label != "R-MAT 16":
                cases.append(("enumerate", "auto" if k == 5 else "enumerate"))
            for gpu_method, cpu_method in cases:
                row, _ = gpu_vs_cpu_row(G, label, k, gpu_method, cpu_method,
                                        lambda first: (3 if first > 1 else 7, 30))
                if gpu_method == "enumerate":
                    row["gpu_subgraphs_per_s"] = row["connected_subgraphs"] / row["gpu_seconds"]
                rec.add(row, echo=f"{label:<14} k={k} {row['gpu_method']:<16} gpu {row['gpu_seconds'] * 1e3:10.3f} ms"
                                  f"  cpu ({row['cpu_method']}) {row['cpu_seconds'] * 1e3:10.3f} ms  "
                                  f"x{row['speedup_vs_cpu']:.1f}" + (f"  peers {row['peers_seconds_anchor']}"
                                                                     if "peers_seconds_anchor" in row else ""))
        if label == "R-MAT 16":
            from la_gpm.kcliques.gpu import clique_count
            from la_gpm.motifs.gpu import census4_inputs
            parts = {"census4_closed kernel (diamonds, 4-cycles, triangles, P4, degree sums)":
                     timeit(lambda: census4_inputs(G), repeat=5, sync=True)[0],
                     "4-cliques (cliques.cu)": timeit(lambda: clique_count(G, 4), repeat=5, sync=True)[0]}
            rec.add({"graph": label, "k": 4, "gpu_closed_form_parts_seconds": parts})
            row = {"graph": label, "n": G.n, "m": G.m, "k": 5,
                   "gpu_skipped": "ESU enumeration visits every connected 5-subset (well over 10^13 here); "
                                  "the GPU has no hybrid 5-census yet"}
            if a.rmat5:
                sec, df = once(lambda: census(G, 5, backend="cpu"), sync=False)
                row.update(cpu_seconds=sec, cpu_method=df.attrs["method"], connected_subgraphs=sum(counts(df)))
            rec.add(row)
    if not a.no_variants:
        rec["variants"] = variants()
    rec.done()


def variants():
    """Kernel knobs against each other (same counts): the k >= 5 work split and the hub blocks."""
    from la_gpm.motifs import gpu as gc
    out = []
    for label, k, knob, values in (("email-Eu-core", 5, "SPLIT", (0, 1, 4)), ("citeseer", 6, "SPLIT", (0, 1)),
                                   ("R-MAT 16", 4, "HUB_DEGREE", (256, 1 << 30)),
                                   ("email-Eu-core", 4, "HUB_DEGREE", (256, 1 << 30))):
        G = graph(label)
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


def small_input_profile(G, k, method):
    """Where a small census call's time goes: the whole call, the GPU counting function alone (launches,
    allocations, one sync), its stages (device synchronised around each) and the frame construction."""
    from la_gpm.motifs import gpu as gc
    from la_gpm.motifs.common import prepare
    from la_gpm.motifs.frames import frame
    cls = classes(k)
    zeros = [0] * len(cls.keys)
    fn = (lambda: gc.esu_counts(G, k)) if method == "enumerate" else (lambda: gc.closed_form_noninduced(G, k))
    out = {"graph_arcs": G.nnz, "k": k, "method": method}
    out["census_call_s"] = timeit(lambda: census(G, k, backend="gpu", method=method), repeat=30, sync=True)[0]
    out["gpu_counting_function_s"] = timeit(fn, repeat=30, sync=True)[0]
    out["dataframe_and_patterns_s"] = timeit(lambda: frame(cls, k, zeros, True, method), repeat=30)[0]
    out["prepare_and_dispatch_s"] = timeit(lambda: prepare(G, "census"), repeat=30)[0]
    out["gpu_stages_s"] = profiled(fn)[1]     # host steps and the kernel, the device synchronised around each
    return out


def auto_crossover(a):
    """--auto-crossover: GPU hybrid against GPU enumeration (k = 5, medians of up to 3 after a warm-up, counts
    checked equal) on graphs from sparse to near-complete, with the inputs of gpu_prefers_hybrid (connected
    4-subsets, K2,3 and bowtie copies from the closed forms) and what it picks."""
    from la_gpm.motifs.gpu import gpu_prefers_hybrid
    from la_gpm.motifs.hybrid import hybrid5_auto_inputs
    rec = Record(a, "census5_gpu_auto_crossover",
                 "5-vertex census on the GPU: hybrid vs enumeration (the auto rule's crossover)")
    warm((5,), backends=("gpu",), methods=("hybrid", "enumerate"))
    labels = ["email-Eu-core", "R-MAT 10", "G(1000, 40000)"] + [
        f"G({n}, {m})" for n, m in ((250, 8000), (300, 12000), (200, 7000), (200, 9000), (150, 6000), (120, 5000),
                                    (100, 4500))]
    for label in labels if not a.quick else ["karate", "G(100, 4500)"]:
        G = graph(label)
        c4, k23, bowtie = hybrid5_auto_inputs(G)
        h_med, h_runs, hdf = timeit(lambda: census(G, 5, backend="gpu", method="hybrid"), repeat=3, sync=True,
                                    budget_s=20)
        e_med, e_runs, edf = timeit(lambda: census(G, 5, backend="gpu", method="enumerate"), repeat=3, sync=True,
                                    budget_s=20)
        check(f"{label} k=5 gpu hybrid vs gpu enumerate", counts(hdf), counts(edf))
        rec.add({"graph": label, "n": G.n, "m": G.m, "connected4": c4, "K23_copies": k23, "bowtie_copies": bowtie,
                 "copies_per_subset": (k23 + bowtie) / max(c4, 1), "gpu_hybrid_seconds": h_med,
                 "gpu_hybrid_runs": h_runs, "gpu_enumerate_seconds": e_med, "gpu_enumerate_runs": e_runs,
                 "rule_picks": "hybrid" if gpu_prefers_hybrid(c4, k23, bowtie) else "enumerate"})
    rec.done()


def hybrid5_inputs_row(G, label, base, rmat16_hybrid):
    """R-MAT graphs: the hybrid's inputs (how many copies the dense part would list, from the GPU closed
    forms); R-MAT 12: GPU hybrid against GPU enumeration where the CPU's rule says enumerate; R-MAT 14 (and
    R-MAT 16 with C5_RMAT16_HYBRID=1): one run of the GPU hybrid, its own checks only."""
    from la_gpm.motifs.gpu import closed_form_noninduced, sigma4
    from la_gpm.motifs.hybrid import dense_copy_counts

    def inputs():
        N4 = closed_form_noninduced(G, 4)
        return sum(to_induced(classes(4).M, N4)), sigma4(G)
    t_sigma, (connected4, (sigma, k23hub)) = once(inputs)
    k23, bowtie = dense_copy_counts(sigma, k23hub)
    row = dict(base, k=5, connected4=connected4, K23_copies=k23, bowtie_copies=bowtie,
               cpu_auto_rule="enumerate" if 3 * (k23 + bowtie) > connected4 else "hybrid",
               gpu_closed_form4_plus_sigma4_seconds=t_sigma)
    if label == "R-MAT 12":   # the CPU is not run: its hybrid would take minutes
        g_h, _, hdf = timeit(lambda: census(G, 5, backend="gpu", method="hybrid"), repeat=3, sync=True, budget_s=30)
        g_e, _, edf = timeit(lambda: census(G, 5, backend="gpu", method="enumerate"), repeat=1, sync=True)
        check("R-MAT 12 k=5 gpu hybrid vs gpu enumerate", counts(hdf), counts(edf))
        prof = profiled(lambda: census(G, 5, backend="gpu", method="hybrid"))[1]
        prof.pop("copies", None)
        row.update(gpu_hybrid_seconds=g_h, gpu_enumerate_seconds=g_e, gpu_stages_s=prof,
                   connected_subgraphs=sum(counts(hdf)))
    elif label == "R-MAT 14" or rmat16_hybrid:
        # one run, no warm-up, no other check than the hybrid's own (listed K2,3 / bowtie copies equal to their
        # closed forms, every division exact): neither the CPU nor the enumeration ends here
        sec, (df, prof) = once(lambda: profiled(lambda: census(G, 5, backend="gpu", method="hybrid")), sync=False)
        row.update(gpu_hybrid_seconds=sec, gpu_stages_s=prof, counts=dict(zip(df["name"], counts(df))),
                   connected_subgraphs=sum(counts(df)), gpu_method=df.attrs["method"])
    else:
        row["gpu_hybrid"] = ("not run here (set C5_RMAT16_HYBRID=1): the dense part lists every K2,3 and "
                             f"bowtie copy ({k23 + bowtie:.3g}) plus the 5-cycles")
    return row


def hybrid5(a):
    """k = 4 and 5 on citeseer, email-Eu-core, G(20000, 200000) (where the CPU's auto picks the hybrid), R-MAT
    12, 14, 16: GPU hybrid against CPU hybrid on the same machine, counts checked equal."""
    rec = Record(a, "census_gpu_hybrid5", "motif census k = 4, 5: GPU hybrid vs CPU hybrid", numba_threads=numba_threads(),
                 note="median of repeated runs after a warm-up; GPU times with the graph's device copies cached; "
                      "every GPU count checked against the CPU backend's (or the GPU enumeration's where the CPU "
                      "is not run) before it is reported")
    warm((5,), backends=("cpu", "gpu"), methods=("hybrid", "enumerate", "auto"))
    warm((4,), backends=("cpu", "gpu"))
    small = graph(a.graphs[0])
    census(small, 5, backend="gpu", method="enumerate")
    census(small, 4, backend="gpu", method="closed_form")
    rec["small_input_profile"] = [small_input_profile(small, 5, "enumerate"),
                                  small_input_profile(small, 4, "closed_form")]
    print("small input:", rec["small_input_profile"], flush=True)
    hide = ("counts", "runs", "gpu_stages_s")
    for label in a.graphs:
        G = graph(label)
        base = {"graph": label, "n": G.n, "m": G.m}
        cases = []
        if label in ("citeseer", "email-Eu-core", "R-MAT 16") or a.quick:
            cases.append((4, "closed_form", "auto"))
        if label in ("citeseer", "email-Eu-core", "G(20000, 200000)") or a.quick:
            cases += [(5, "hybrid", "hybrid"), (5, "auto", "auto")]
        for k, gm, cm in cases:
            row, gpu_df = gpu_vs_cpu_row(G, label, k, gm, cm, lambda first: (1, 60) if first > 2 else (5, 20))
            if gpu_df.attrs["method"] == "gpu_hybrid":
                prof = profiled(lambda: census(G, k, backend="gpu", method=gm))[1]
                cop = prof.pop("copies", {})
                row["gpu_stages_s"] = prof
                row["copies_listed"] = cop
                dense = prof.get("dense5_hits", 0.0)
                if dense:
                    row["dense_copies_per_s_excluding_c5"] = (cop.get("K23", 0) + cop.get("bowtie", 0)) / dense
                # the GPU's own crossover: its enumeration on the same graph (for the auto rule)
                e_med, e_times, edf = timeit(lambda: census(G, k, backend="gpu", method="enumerate"), repeat=5,
                                             sync=True, budget_s=20)
                check(f"{label} k={k} gpu enumerate vs gpu hybrid", counts(edf), counts(gpu_df))
                row.update(gpu_enumerate_seconds=e_med, gpu_enumerate_runs=e_times)
            rec.add(row, echo={k_: v for k_, v in row.items() if k_ not in hide and not k_.endswith("runs")})
        if label.startswith("R-MAT "):
            row = hybrid5_inputs_row(G, label, base, bool(os.environ.get("C5_RMAT16_HYBRID")))
            rec.add(row, echo={k_: v for k_, v in row.items() if k_ not in hide})
        G = None
    rec.done()


HYBRID5_GRAPHS = "citeseer,email-Eu-core,G(20000, 200000),R-MAT 12,R-MAT 14,R-MAT 16"


@FAMILY.suite(gpu="only", graphs=HYBRID5_GRAPHS,
              quick={"graphs": "karate"},
              args=[arg("--full", action="store_true", help="the k = 3..6 table and kernel knobs (census_gpu_<tag>.json; "
                        "graphs citeseer, email-Eu-core, R-MAT 16)"),
                    arg("--rmat5", action="store_true", help="with --full: the CPU hybrid 5-census on R-MAT 16 (minutes)"),
                    arg("--no-variants", action="store_true", help="with --full: skip the kernel-knob comparison"),
                    arg("--auto-crossover", action="store_true",
                        help="k = 5 on the GPU, hybrid against enumeration over graphs of rising K2,3 + bowtie copies "
                             "per connected 4-subset (census5_gpu_auto_crossover_<tag>.json)")])
def gpu_census(a):
    """Motif census on the GPU (closed forms k <= 4, ESU enumeration, the 5-vertex hybrid) against the CPU
    backend on the same machine (default: k = 4, 5, GPU hybrid vs CPU hybrid; C5_RMAT16_HYBRID=1 also runs
    R-MAT 16's 5-census on the GPU, minutes). Every GPU count checked against the CPU backend's first. Peers
    from ../shared/ANCHORS.md (H100): G2Miner 4-vertex census citeseer 1.3 ms, R-MAT 16 6.6 s; DuMato
    4-vertex citeseer 0.13 s, 5-vertex citeseer 0.25 s. The floor per row: one read of the CSR at the
    H100's 2.89 TB/s copy bandwidth."""
    if a.auto_crossover:
        return auto_crossover(a)
    if a.full:
        if a.graphs == split_names(HYBRID5_GRAPHS):   # not chosen: the table's graphs
            a.graphs = ["citeseer", "email-Eu-core", "R-MAT 16"]
        return census_table(a)
    return hybrid5(a)


# ------------------------------------------------------------------ census5_rmat16
def series(a):
    """--series: GPU hybrid against CPU hybrid (all cores) on each R-MAT scale, same run, counts equal."""
    warm((5,), methods=("hybrid",))
    rec = Record(a, "census5_rmat_series", "5-vertex census, GPU hybrid vs CPU hybrid (all cores), R-MAT series",
                 cpu_threads=os.cpu_count())
    for sc in a.series:
        G = la_gpm.generators.rmat(sc, seed=1)
        gmed, gruns, g = timeit(lambda: census(G, 5, backend="gpu", method="hybrid"), repeat=3, sync=True, budget_s=60)
        tc, c = once(lambda: census(G, 5, backend="cpu", method="hybrid"), sync=False)
        check(f"R-MAT {sc}: GPU vs CPU hybrid", counts(g), counts(c))
        rec.add({"graph": f"R-MAT {sc}", "n": G.n, "m": G.m, "max_degree": int(G.max_degree),
                 "connected_5_subgraphs": int(sum(c["count"])), "gpu_seconds": gmed, "gpu_runs": gruns,
                 "cpu_seconds": tc, "speedup_vs_cpu": tc / gmed, "gpu_edges_per_s": G.m / gmed})
    rec.done()


def parse_setting(text):
    """"K23_BULK=8,BOWTIE_BULK=off,BOWTIE_BULK_RATIO=0.5" -> {"K23_BULK": 8, "BOWTIE_BULK": 2**62, ...}: ints,
    floats, or ``off`` (a threshold nothing reaches)."""
    out = {}
    for part in filter(None, text.split(",")):
        k, v = (x.strip() for x in part.split("="))
        out[k] = 1 << 62 if v == "off" else int(v) if v.lstrip("-").isdigit() else float(v)
    return out


def sweep(a, scales, settings, name, title):
    """The GPU hybrid on each R-MAT scale under each setting of motifs.gpu's module constants (a dict each):
    a median of up to 3 timed runs (one warm-up per scale: the graph's device copies) and one profiled run
    (seconds per stage) each, counts checked equal across the settings."""
    from la_gpm.motifs import gpu as gc
    rec = Record(a, name, title)
    defaults = {k: getattr(gc, k) for st in settings for k in st}
    try:
        for sc in scales:
            G = la_gpm.generators.rmat(sc, seed=1)
            want = None
            for i, st in enumerate(settings):
                for k, v in {**defaults, **st}.items():
                    setattr(gc, k, v)
                med, runs, df = timeit(lambda: census(G, 5, backend="gpu", method="hybrid"), repeat=3,
                                       warmup=1 if i == 0 else 0, sync=True, budget_s=20)
                want = want or counts(df)
                check(f"R-MAT {sc}: setting {st}", counts(df), want)
                prof = profiled(lambda: census(G, 5, backend="gpu", method="hybrid"))[1]
                row = {"graph": f"R-MAT {sc}", "n": G.n, "m": G.m, "max_degree": int(G.max_degree),
                       "setting": {k: (v if v < 1 << 60 else "off") for k, v in st.items()},
                       "seconds": med, "runs": runs, "edges_per_s": G.m / med, "connected_5_subgraphs": sum(want),
                       "stages_s": {k: v for k, v in prof.items() if k != "copies"}, "copies": prof.get("copies")}
                rec.add(row, echo=f"{row['graph']} {row['setting']} {med:.4f} "
                                  f"{ {k: round(v, 4) for k, v in row['stages_s'].items() if k.startswith('c5_')} }")
    finally:
        for k, v in defaults.items():
            setattr(gc, k, v)
    rec.done()


@FAMILY.suite(gpu="only", quick={"scale": 10},
              args=[arg("--scale", type=int, default=16),
                    arg("--series", type=int, nargs="*", help="R-MAT scales: GPU hybrid vs CPU hybrid on each"),
                    arg("--bulk-sweep", type=int, nargs="*", help="R-MAT scales: K2,3 copies listed vs in bulk"),
                    arg("--bulk", type=int, nargs="*", default=[0, 8, 16, 32], help="K23_BULK settings (0: none)"),
                    arg("--dense-sweep", type=int, nargs="*", help="R-MAT scales: the --set settings of the dense part"),
                    arg("--set", nargs="*", default=[], help="settings, e.g. K23_BULK=16,BOWTIE_BULK=off")])
def census5_rmat16(a):
    """The 5-vertex census of R-MAT 16 (--scale) on the GPU hybrid: orbit sums + every C5, K2,3 and bowtie copy.

    One timed run after a warm-up on a small graph (the graph's device copies are built inside the timed call).
    No other method finishes on this graph, so the counts are vouched for by the hybrid's own checks (the
    listed K2,3 and bowtie copies equal their closed forms, every division exact, else it raises); the
    4-vertex census is recorded beside it. --series S..: GPU hybrid against the CPU hybrid on smaller R-MAT
    graphs (census5_rmat_series). --bulk-sweep S.. --bulk B..: K2,3 copies of hub pairs with >= B common
    neighbours counted in bulk (K23_BULK; 0: every copy listed; census5_k23_bulk). --dense-sweep S.. --set ..:
    any settings of the dense part's constants (census5_dense_sweep)."""
    warm((5,), backends=("gpu",), methods=("hybrid",))
    if a.series:
        return series(a)
    if a.bulk_sweep:
        return sweep(a, a.bulk_sweep, [{"K23_BULK": b if b > 0 else 1 << 62} for b in a.bulk], "census5_k23_bulk",
                     "5-vertex census, GPU hybrid: K2,3 copies listed vs counted in bulk per hub pair "
                     "(K23_BULK = B: pairs with >= B common neighbours in bulk; off: none)")
    if a.dense_sweep:
        return sweep(a, a.dense_sweep, [parse_setting(t) for t in a.set], "census5_dense_sweep",
                     "5-vertex census, GPU hybrid: dense-part settings (C5 bitmaps, K2,3 and bowtie bulk rules)")
    G = la_gpm.generators.rmat(a.scale, seed=1)
    t4, c4 = once(lambda: census(G, 4, backend="gpu"), sync=False)
    t5, df = once(lambda: census(G, 5, backend="gpu", method="hybrid"), sync=False)
    c5 = {nm: int(c) for nm, c in zip(df["name"], df["count"])}
    rec = Record(a, f"census5_rmat{a.scale}", "5-vertex census, GPU hybrid", rows=None, graph=f"R-MAT {a.scale}",
                 n=G.n, m=G.m, k=5, method=df.attrs["method"], seconds=t5, edges_per_s=G.m / t5,
                 connected_5_subgraphs=sum(c5.values()), counts=c5, census4_seconds=t4,
                 census4_counts={nm: int(c) for nm, c in zip(c4["name"], c4["count"])},
                 checks="the hybrid's own: listed K2,3 / bowtie copies equal their closed forms, exact divisions")
    print({k: v for k, v in rec.payload.items() if k not in ("counts", "census4_counts", "machine", "versions")},
          flush=True)
    rec.done()


# ------------------------------------------------------------------ dense5_bulk (CPU)
NONE = 1 << 40


@FAMILY.suite(graphs="R-MAT 9,R-MAT 10,email-Eu-core", quick={"graphs": "R-MAT 7,karate"})
def dense5_bulk(a):
    """The CPU 5-vertex hybrid's dense part (motifs.cpu.dense5_hits): K2,3 and bowtie copies listed one by one
    against counted in bulk (hub pairs with >= 8 common neighbours, centres with >= 64 edges inside their
    neighbourhood), same hits checked, on each R-MAT graph; on the other graphs the whole CPU census by the
    hybrid and by enumeration (what method="auto" chooses between). One timed run each after a compile run."""
    from la_gpm.motifs.common import nchunks
    from la_gpm.motifs.cpu import dense5_hits
    cls = classes(5)
    rec = Record(a, "dense5_bulk", "CPU 5-vertex hybrid dense part: K2,3 / bowtie copies listed vs counted in bulk",
                 threads=os.cpu_count())
    for label in a.graphs:
        G = graph(label)
        if not label.startswith("R-MAT"):
            got = {}
            for meth in ("hybrid", "enumerate"):
                rec[f"{label} census5 {meth}_s"], df = once(lambda: census(G, 5, backend="cpu", method=meth),
                                                            sync=False)
                got[meth] = counts(df)
            check(f"{label} hybrid vs enumeration", got["hybrid"], got["enumerate"])
            rec[f"{label} census5 counts"] = got["hybrid"]
            print({k: v for k, v in rec.payload.items() if k.endswith("_s")}, flush=True)
            continue
        args = (G.indptr, G.indices, G.degree_rank, cls.table, len(cls.keys), nchunks())
        dense5_hits(*args, 8, 64)                       # compile
        row = {"graph": label, "n": G.n, "m": G.m}
        want = None
        for setting, comb, bow in (("both listed", NONE, NONE), ("K2,3 bulk", 8, NONE), ("both bulk", 8, 64)):
            row[setting + "_s"], h = once(lambda: dense5_hits(*args, comb, bow).sum(axis=0), sync=False)
            want = h if want is None else want
            check(f"{label} {setting}", h.tolist(), want.tolist())
        rec.add(row)
    rec.done()


# ------------------------------------------------------------------ census8
@FAMILY.suite(repeats=1, graphs="karate,citeseer,email-Eu-core", quick={"graphs": "karate"},
              args=[arg("--max-predicted", type=float, default=120.0,
                        help="skip a graph (on a backend) whose predicted k = 8 time exceeds this many seconds"),
                    arg("--backends", default="cpu", help="comma-separated: cpu, gpu (census_esu8)")])
def census8(a):
    """census(G, 8) (ESU with the two-level class lookup, la_gpm.motifs.census8) beside census(G, 7), per backend
    (cpu: numba; gpu: census_esu8 / census_esu): wall seconds (median of --repeats after a warm-up call on karate,
    the GPU's synchronised), the predicted seconds and 8-subsets of the guard (census8.predict_work8), the total
    count and the classes seen; the GPU's counts checked against the CPU's where both ran. A graph whose
    prediction exceeds --max-predicted on a backend is recorded as skipped there."""
    from la_gpm.motifs.census8 import classes8, predict_work8
    backends = [b.strip() for b in a.backends.split(",") if b.strip()]
    rec = Record(a, "census8", "census(G, 8) beside census(G, 7), CPU and GPU", threads=numba_threads(),
                 backends=backends)
    t, _ = once(classes8, sync=False)
    rec["class_tables_build_s"] = t
    for b in backends:
        census(graph("karate"), 8, backend=b)         # compile / load the kernels
    for label in a.graphs:
        G = graph(label)
        row = {"graph": label, "n": G.n, "m": G.m}
        got = {}
        for b in backends:
            w = predict_work8(G, gpu=b == "gpu")
            ent = row[b] = {"predicted_8_s": w["seconds"], "predicted_subsets8": w["subsets8"],
                            "predicted_subsets7": w["subsets7"]}
            if w["seconds"] > a.max_predicted:
                ent["skipped"] = f"predicted {w['seconds']:.0f} s > --max-predicted {a.max_predicted:.0f} s"
                continue
            for k in (7, 8):
                ts = []
                for _ in range(a.repeats):
                    t, df = once(lambda: census(G, k, method="enumerate", backend=b, guard=False), sync=b == "gpu")
                    ts.append(t)
                ent[f"census{k}_s"] = statistics.median(ts)
                ent[f"census{k}_runs"] = ts
                ent[f"subsets{k}"] = sum(counts(df))
                ent[f"classes_seen{k}"] = int(sum(1 for c in counts(df) if c))
                got[(b, k)] = counts(df)
            ent["ratio_8_over_7"] = ent["census8_s"] / ent["census7_s"]
        for k in (7, 8):
            if ("cpu", k) in got and ("gpu", k) in got:
                check(f"{label} k={k} gpu == cpu", got[("gpu", k)], got[("cpu", k)])
        if "cpu" in row and "gpu" in row and "census8_s" in row["cpu"] and "census8_s" in row["gpu"]:
            row["gpu_speedup_8"] = row["cpu"]["census8_s"] / row["gpu"]["census8_s"]
        rec.add(row)
    rec.done()


# ------------------------------------------------------------------ gpu_orbits
@FAMILY.suite(gpu="optional", graphs="citeseer,email-Eu-core,wiki-Vote,R-MAT 16", quick={"graphs": "karate"},
              args=[arg("--budget", type=float, default=60.0, help="seconds of timed runs per case at most"),
                    arg("--k5-max-walks", type=float, default=1e10,
                        help="k = 5 rows only for graphs with at most this many 3-walks (the CPU's cost: "
                             "wiki-Vote 3.9e9, about 27 s on 2 cores; R-MAT 16 5e11)")])
def gpu_orbits(a):
    """Graphlet orbit counts (4-vertex orbits, ORCA numbering), GPU against the CPU backend; and the 5-vertex
    orbits (``orbits(G, 5)``, n × 73) on the graphs with at most ``--k5-max-walks`` 3-walks.

    ``la_gpm.orbits(G, 4, backend=...)``: both backends solve the same triangular system from the non-induced
    per-vertex orbit sums σ (n × 15); the GPU computes σ with the 5-vertex hybrid's kernels (motifs.gpu.sigma4).
    The results are checked equal before timing. Per graph: the GPU and CPU medians (device synchronised,
    after a warm-up), the GPU's time in σ (and per stage) and the floor of reading the graph once and writing
    the n × 15 int64 result at copy bandwidth. k = 5 (``k5_*`` keys): the CPU's numba feature kernel against
    orbits5.cu (motifs.gpu.orbits5_gpu), checked equal, medians and the GPU's stages.
    Peers (ORCA, pyfglt): suite ``census`` on the CPU machine."""
    from la_gpm.motifs.orbits5 import three_walks
    tiny = la_gpm.generators.gnm(60, 300, seed=0)
    for b in ("cpu", "gpu") if a.gpu else ("cpu",):   # compile before timing
        la_gpm.orbits(tiny, 4, backend=b)
        la_gpm.orbits(tiny, 5, backend=b)
    rec = Record(a, "orbits", "4-vertex graphlet orbits, gpu vs cpu backend", cpu_threads=os.cpu_count())
    for label in a.graphs:
        G = graph(label)
        row = {"graph": label, "n": G.n, "m": G.m, "max_degree": int(G.max_degree)}
        cmed, cruns, want = timeit(lambda: la_gpm.orbits(G, 4, backend="cpu"), repeat=5, budget_s=a.budget)
        row.update(cpu_seconds=cmed, cpu_runs=cruns, orbit_sums=[int(x) for x in want.sum(axis=0)])
        if a.gpu:
            from la_gpm.motifs import gpu as gc
            check(f"{label}: GPU orbits equal the CPU backend's", bool(np.array_equal(la_gpm.orbits(G, 4, backend="gpu"),
                                                                                      want)), True)
            gmed, gruns, _ = timeit(lambda: la_gpm.orbits(G, 4, backend="gpu"), repeat=7, sync=True, budget_s=a.budget)
            smed, _, _ = timeit(lambda: gc.sigma4(G), repeat=7, sync=True, budget_s=a.budget)
            stages = profiled(lambda: gc.sigma4(G))[1]      # one more call, synchronised around each stage
            row["gpu_sigma4_stages_seconds"] = {k: v for k, v in stages.items() if isinstance(v, float)}
            row.update(gpu_seconds=gmed, gpu_runs=gruns, gpu_sigma4_seconds=smed, speedup_vs_cpu=cmed / gmed,
                       gpu_edges_per_s=G.m / gmed, read_graph_write_result_floor_seconds=csr_floor(G, G.n * 15 * 8))
        row["k5_three_walks"] = walks = three_walks(G)
        if walks <= a.k5_max_walks:
            cmed, cruns, want = timeit(lambda: la_gpm.orbits(G, 5, backend="cpu"), repeat=3, budget_s=a.budget)
            row.update(k5_cpu_seconds=cmed, k5_cpu_runs=cruns, k5_orbit_sums=[int(x) for x in want.sum(axis=0)])
            if a.gpu:
                check(f"{label}: GPU 5-vertex orbits equal the CPU backend's",
                      bool(np.array_equal(la_gpm.orbits(G, 5, backend="gpu"), want)), True)
                gmed, gruns, _ = timeit(lambda: la_gpm.orbits(G, 5, backend="gpu"), repeat=5, sync=True,
                                        budget_s=a.budget)
                stages = profiled(lambda: la_gpm.orbits(G, 5, backend="gpu"))[1]
                row.update(k5_gpu_seconds=gmed, k5_gpu_runs=gruns, k5_speedup_vs_cpu=cmed / gmed,
                           k5_gpu_stages_seconds={k: v for k, v in stages.items() if isinstance(v, float)})
        rec.add(row, echo={k: v for k, v in row.items() if not k.endswith("runs") and not k.endswith("orbit_sums")
                           and k != "k5_gpu_stages_seconds"})
    rec.done()


# ------------------------------------------------------------------ closed_forms (CPU)
WIKI_HOUSES = 9_488_779_111  # the GPU trie and dfs engines and the 16-core CPU engine agree (H100 run)


@FAMILY.suite(repeats=5, graphs="citeseer,R-MAT 10,email-Eu-core,wiki-Vote", quick={"graphs": "karate,R-MAT 6"},
              args=[arg("--enum-budget", type=float, default=60.0, help="seconds for one enumeration run")])
def closed_forms(a):
    """Closed forms against enumeration on the cpu backend: the non-induced bowtie (hourglass) and house. Each
    closed-form count is checked against the plan engine's enumeration (on R-MAT 12 one enumeration takes
    over 200 s on 2 cores), and on wiki-Vote (not enumerated) the house count against the GPU engines'
    (gpu_trie_gpu.json: 9,488,779,111)."""
    from la_gpm.api import count_pattern
    rec = Record(a, "closed_forms", "closed forms (cpu)")
    for label in a.graphs:
        G = graph(label)
        for name in ("bowtie", "house"):
            med, times, got = timeit(lambda: count_pattern(G, name, backend="cpu"), repeat=a.repeats)
            row = {"graph": label, "n": G.n, "m": G.m, "pattern": name, "count_kind": "unique, non-induced",
                   "count": got, "closed_form_seconds": med, "closed_form_runs": times}
            if label != "wiki-Vote":
                emed, etimes, want = timeit(lambda: count_pattern(G, name, backend="cpu", closed_forms=False),
                                            repeat=3, budget_s=a.enum_budget)
                check(f"{label} {name} closed form vs enumeration", got, want)
                row.update(enumeration_seconds=emed, enumeration_runs=etimes, speedup=emed / med)
            elif name == "house":
                check(f"{label} house vs the GPU engines' count", got, WIKI_HOUSES)
                row["checked_against"] = "GPU trie / dfs engines and the 16-core CPU engine (gpu_trie_gpu.json)"
            rec.add(row, echo=f"{label:<14} {name:<7} {got:>16,}  closed form {med * 1e3:9.2f} ms"
                    + (f"  enumeration {row['enumeration_seconds']:8.3f} s  x{row['speedup']:.0f}"
                       if "enumeration_seconds" in row else ""))
    rec.done()


# ------------------------------------------------------------------ closed_forms5 (CPU)


def bench_graph(label):
    """email-Enron from the holdout's edge lists, else :func:`harness.graph`."""
    from harness import HOLDOUT
    if label == "email-Enron":
        return la_gpm.read_graph(HOLDOUT / "el" / "email-Enron.txt")
    return graph(label)


_CHILD = """
import sys, time, json
sys.path.insert(0, {bench!r})
from bench_motifs import bench_graph
G = bench_graph({label!r})
E = {edges!r}
if {what!r} == "igraph":
    import igraph as ig
    from harness import to_igraph
    g, h = to_igraph(G), ig.Graph(n=5, edges=[list(e) for e in E])
    t = time.perf_counter(); n = g.count_subisomorphisms_vf2(h)
else:
    from la_gpm.api import count_pattern
    count_pattern(la_gpm_warm := __import__("la_gpm").datasets.load("karate"), E, backend="cpu", closed_forms=False)
    t = time.perf_counter(); n = count_pattern(G, E, backend="cpu", closed_forms=False)
print("RESULT", json.dumps([time.perf_counter() - t, int(n)]))
"""


def in_fresh_process(label, E, what, timeout):
    """(seconds, count) of one count in a fresh Python process (numba's OpenMP pool is not fork safe), timed
    inside it after loading the graph; or a reason (str) when it ran past ``timeout`` s of counting (killed)."""
    import json
    import sys
    import time
    from harness import HERE
    code = _CHILD.format(bench=str(HERE), label=label, edges=[list(e) for e in E], what=what)
    t = time.perf_counter()
    load = 5.0           # reading email-Enron and loading cached kernels (about 2 s), outside the counting clock
    r = command([sys.executable, "-c", code], timeout=timeout + load)
    for ln in r["text"].splitlines():
        if ln.startswith("RESULT "):
            return tuple(json.loads(ln[7:]))
    if r["killed"]:
        return f"did not finish within {timeout:.0f} s (killed after {time.perf_counter() - t:.0f} s with the load)"
    return f"failed: {r['text'][-300:]}"


@FAMILY.suite(repeats=3, graphs="citeseer,email-Enron,G(20000,200000)", quick={"graphs": "karate"},
              args=[arg("--enum-timeout", type=float, default=8.0,
                        help="seconds for one enumeration run (a child process, killed after this)"),
                    arg("--peer-timeout", type=float, default=3.0, help="seconds for one igraph run (killed after)"),
                    arg("--no-census", action="store_true", help="skip the census reference (60 s on email-Enron)")])
def closed_forms5(a):
    """Every connected 5-vertex class counted by la_gpm.count (non-induced, unique) on the cpu backend: the engine
    the table chooses now (closed form for 18 classes, the clique engine for K5, enumeration for the 5-cycle
    and K2,3+e) against the enumeration it replaced (closed_forms=False, the plan engine; one run in a fresh
    process, killed after --enum-timeout s of counting), and igraph's VF2 subisomorphism count (embeddings,
    divided by |Aut|; a fresh process killed after --peer-timeout s).
    Every count is checked against the 5-vertex census (la_gpm.census(G, 5, induced=False): the hybrid,
    another code path) and against every enumeration and peer that finished."""
    from la_gpm.api import count_pattern
    from la_gpm.motifs.closed_forms5 import FIVE_VERTEX
    from la_gpm.patterns import Pattern
    rec = Record(a, "closed_forms5", "every connected 5-vertex class: closed forms against enumeration (cpu)",
                 enum_timeout_s=a.enum_timeout, peer_timeout_s=a.peer_timeout)
    warm_graph = la_gpm.datasets.load("karate")
    for E in FIVE_VERTEX.values():   # compile outside the clock
        count_pattern(warm_graph, E, backend="cpu")
    for label in a.graphs:
        G = bench_graph(label)
        ref = None
        if not a.no_census:
            t, df = once(lambda: la_gpm.census(G, 5, induced=False), sync=False)
            ref = {Pattern(list(e), k=5).canonical_key: int(c) for e, c in zip(df["edges"], df["count"])}
            rec.add({"graph": label, "n": G.n, "m": G.m, "pattern": "(all 21: census reference)",
                     "census_method": df.attrs.get("method"), "census_seconds": t},
                    echo=f"{label:<18} census(G, 5, induced=False) {t:8.2f} s ({df.attrs.get('method')})")
        for name, E in FIVE_VERTEX.items():
            P = Pattern(E, k=5)
            got, stats = count_pattern(G, E, backend="cpu", return_stats=True)
            row = {"graph": label, "n": G.n, "m": G.m, "pattern": name, "edges": E, "count": got,
                   "engine": stats["engine"], "plan": stats["plan"]}
            if ref is not None:
                check(f"{label} {name} vs the census", got, ref[P.canonical_key])
            if stats["engine"] == "plan_dfs":       # unchanged: enumeration before and after
                res = in_fresh_process(label, E, "enumeration", a.enum_timeout)
                row.update(after_seconds=res[0] if not isinstance(res, str) else None,
                           after_note=res if isinstance(res, str) else "enumeration (no closed form)")
            else:
                med, times, got2 = timeit(lambda: count_pattern(G, E, backend="cpu"), repeat=a.repeats)
                check(f"{label} {name} repeat", got2, got)
                row.update(after_seconds=med, after_runs=times)
            res = res if stats["engine"] == "plan_dfs" else in_fresh_process(label, E, "enumeration", a.enum_timeout)
            if isinstance(res, str):
                row.update(before_seconds=None, before_note=res, before_at_least_seconds=a.enum_timeout)
            else:
                check(f"{label} {name} closed form vs enumeration", got, res[1])
                row.update(before_seconds=res[0])
            if row["before_seconds"] and row["after_seconds"]:
                row["speedup"] = row["before_seconds"] / row["after_seconds"]
            elif row["after_seconds"] and row["engine"] != "plan_dfs":
                row["speedup_at_least"] = a.enum_timeout / row["after_seconds"]
            pr = in_fresh_process(label, E, "igraph", a.peer_timeout)
            if isinstance(pr, str):
                row["peers"] = [{"impl": "igraph count_subisomorphisms_vf2", "skipped": pr}]
            else:
                check(f"{label} {name} igraph (embeddings / |Aut|)", pr[1] // P.automorphism_count, got)
                row["peers"] = [{"impl": "igraph count_subisomorphisms_vf2", "seconds": pr[0]}]
            b = row["before_seconds"]
            rec.add(row, echo=f"{label:<18} {name:<11} {got:>18,}  {row['engine']:<11} after "
                    + (f"{row['after_seconds']:8.3f} s" if row["after_seconds"] is not None else "   (cut)  ")
                    + "  before " + (f"{b:8.3f} s" if b is not None else f"> {a.enum_timeout:.0f} s (killed)")
                    + "  igraph " + (f"{row['peers'][0]['seconds']:.3f} s" if "seconds" in row["peers"][0]
                                     else row["peers"][0]["skipped"]))
    rec.done()


# ------------------------------------------------------------------ closed_forms_all (CPU, every class, peers)
IG_ISOCLASSES = {3: 4, 4: 11, 5: 34}      # undirected isoclasses igraph numbers (connected or not)


def class_row(k, edges):
    """The row of classes(k) of a k-vertex edge list."""
    return int(classes(k).table[sum(1 << bit(min(u, v), max(u, v)) for u, v in edges)])


def all_patterns():
    """(k, name, edges) of the connected 3-, 4- and 5-vertex classes (5-vertex: closed_forms5's names)."""
    from la_gpm.motifs.closed_forms5 import FIVE_VERTEX
    out = [(k, nm, [tuple(e) for e in classes(k).edges[r]]) for k in (3, 4) for r, nm in enumerate(classes(k).names)]
    return out + [(5, nm, E) for nm, E in FIVE_VERTEX.items()]


def fresh(G):
    """The same CSR as a new Graph: none of G's cached properties (degree order, DAG, ...), so a timed call pays
    every derived structure it needs (the peers get their own formats built outside their clocks)."""
    return la_gpm.Graph(G.indptr, G.indices, _trusted=True)


def isoclass_to_rows(k):
    """igraph isoclass id -> classes(k) row (None for the disconnected ones)."""
    import igraph as ig
    out = {}
    for c in range(IG_ISOCLASSES[k]):
        row = class_row(k, ig.Graph.Isoclass(k, c).get_edgelist()) if ig.Graph.Isoclass(k, c).is_connected() else -1
        out[c] = row if row >= 0 else None
    return out


def timed_peer(name, make, *, want, convert, timeout, repeat, quantity, label, inproc_below=10.0, child=True):
    """A peer's row: one run in a forked child killed after ``timeout`` s (a killed run is recorded as
    ``"timeout"``); a peer that finished within ``inproc_below`` s is timed again in this process (warm-up, then
    the median of ``repeat`` runs). ``child=False``: in this process only (OpenMP peers, which a fork can hang;
    only those known to finish in seconds). Counts are checked against ``want`` (after ``convert``)."""
    from harness import in_child
    try:
        fn = make()
    except ImportError as e:
        return {"impl": name, "quantity": quantity, "skipped": f"not installed: {e}"}
    first = None
    if child:
        res = in_child(fn, timeout)
        if isinstance(res, str):
            return {"impl": name, "quantity": quantity, "timeout": True, "skipped": res, "at_least_seconds": timeout}
        first, got = res
        check(f"{label}/{name}", convert(got), want)
        if first > inproc_below:
            return {"impl": name, "quantity": quantity, "seconds": first, "runs": [first],
                    "note": "one run in a child process (no warm-up)"}
    med, times, got = timeit(fn, repeat=repeat)
    check(f"{label}/{name} (in process)", convert(got), want)
    row = {"impl": name, "quantity": quantity, "seconds": med, "runs": times, "note": "warm-up, median in process"}
    if first is not None:
        row["child_run_seconds"] = first
    return row


_ORCA_CHILD = """
import sys, time, json
sys.path.insert(0, {bench!r})
import numpy as np
from bench_motifs import bench_graph, class_counts_from_orbits4, orca5_orbit_sets
from harness import edge_array
from la_gpm.patterns.classes import classes
from orbit_count._orca import motif_counts
G = bench_graph({label!r})
E = edge_array(G)
sets5 = orca5_orbit_sets() if {k} == 5 else None
t = time.perf_counter(); X = motif_counts("node", {k}, G.n, E); t = time.perf_counter() - t
sums = class_counts_from_orbits4(X, list(classes(4).names)) if {k} == 4 else [int(X[:, s].sum()) // 5 for s in sets5]
print("RESULT", json.dumps([t, [int(x) for x in sums]]))
"""


def orca_fresh_process(label, k, timeout):
    """(seconds, induced class counts) of ORCA's k-vertex node orbits in a fresh Python process (timed inside it,
    after loading the graph), or the reason (str) when it ran past ``timeout`` s (killed)."""
    import json
    import sys
    from harness import HERE
    r = command([sys.executable, "-c", _ORCA_CHILD.format(bench=str(HERE), label=label, k=k)], timeout=timeout + 10)
    for ln in r["text"].splitlines():
        if ln.startswith("RESULT "):
            return tuple(json.loads(ln[7:]))
    if r["killed"]:
        return f"did not finish within {timeout:.0f} s (killed; 10 s more allowed for loading the graph)"
    return f"failed: {r['text'][-300:]}"


@FAMILY.suite(repeats=5, graphs="email-Enron,G(200000,2000000)",
              quick={"graphs": "karate", "repeats": 2, "peer_timeout": 20.0, "vf2_timeout": 5.0},
              args=[arg("--peer-timeout", type=float, default=120.0,
                        help="seconds for one run of a whole-census peer (igraph motifs, ORCA 5; killed after)"),
                    arg("--vf2-timeout", type=float, default=20.0,
                        help="seconds for one per-pattern peer run (VF2, cliques, triangles; killed after)"),
                    arg("--vf2-max", type=float, default=3e8,
                        help="igraph VF2 not run above this many embeddings (it lists each: > 30 s at 1e7/s)"),
                    arg("--nx-max", type=float, default=3e6,
                        help="networkx VF2 / clique listing not run above this many embeddings / cliques")])
def closed_forms_all(a):
    """Every connected 3-, 4- and 5-vertex pattern (2 + 6 + 21) counted by la_gpm.count (cpu, non-induced, unique)
    beside every peer that gives the same quantity, counts checked equal before timing: python-graphblas
    (triangles: masked mxm), igraph (motifs_randesu: induced counts of every class, converted to non-induced by
    the inclusion matrix; count_subisomorphisms_vf2 / |Aut| per pattern; cliques and triangles listed),
    orbit-count (ORCA: induced 4- and 5-vertex graphlet orbits, summed per class and converted), pyfglt
    (induced 4-vertex orbits) and networkx (triangles, cliques, VF2 monomorphisms / |Aut|). la_gpm's time: a
    fresh Graph on every call (the degree order and every derived array paid inside the clock), warm-up, median;
    the warm-graph time beside it. Peers: one run in a child process killed at a time limit ("timeout"), timed
    again in process (median) when it finished in seconds; VF2 and networkx not run where the embeddings to
    list exceed --vf2-max / --nx-max (said in the row). la_gpm's counts are also checked against its census
    (census(G, k, induced=False), another code path)."""
    import igraph as ig
    from la_gpm.api import count_pattern
    from la_gpm.patterns import Pattern
    from la_gpm.patterns.classes import to_noninduced
    rec = Record(a, "closed_forms_all", "every connected 3/4/5-vertex pattern: la_gpm.count (cpu) against peers",
                 numba_threads=numba_threads(), load_average_at_start=os.getloadavg(),
                 peer_timeout_s=a.peer_timeout, vf2_timeout_s=a.vf2_timeout, vf2_max=a.vf2_max, nx_max=a.nx_max,
                 count_kind="unique, non-induced (peers' induced class counts converted by the inclusion matrix; "
                            "VF2 embeddings divided by |Aut|)",
                 note="2-core machine shared with other jobs: load averages recorded per graph; compare times "
                      "within one graph of this file")
    pats = all_patterns()
    warm_g = la_gpm.datasets.load("karate")
    for k, _, E in pats:                    # compile every kernel outside the clock
        la_gpm.count(warm_g, E, backend="cpu")
    for k in (3, 4, 5):
        census(warm_g, k, induced=False)
    for label in a.graphs:
        G = bench_graph(label)
        E2 = edge_array(G)
        g = to_igraph(G)
        load0 = os.getloadavg()
        print(f"{label}: n={G.n:,} m={G.m:,} dmax={G.max_degree} load {load0}", flush=True)
        ref, census_rows = {}, {}
        for k in (3, 4, 5):
            t, df = once(lambda k=k: census(fresh(G), k, induced=False), sync=False)
            ref[k] = counts(df)
            census_rows[k] = {"graph": label, "n": G.n, "m": G.m, "k": k, "pattern": f"(all {len(ref[k])} classes)",
                              "la_gpm_census_seconds": t, "census_method": df.attrs.get("method"), "peers": []}
        # whole-census peers: every class of k at once (induced counts, converted)
        cls = {k: classes(k) for k in (3, 4, 5)}

        def motifs(k):
            mp = isoclass_to_rows(k)

            def conv(vals):
                ind = [0] * len(cls[k].names)
                for c, v in enumerate(vals):
                    if mp[c] is not None:
                        ind[mp[c]] = int(v)
                return to_noninduced(cls[k].M, ind)
            return (lambda: (lambda: list(g.motifs_randesu(size=k)))), conv

        for k in (3, 4, 5):
            make, conv = motifs(k)
            census_rows[k]["peers"].append(timed_peer(
                f"igraph motifs_randesu(size={k})", make, want=ref[k], convert=conv, timeout=a.peer_timeout,
                repeat=3, label=f"{label}/k{k}", quantity=f"induced counts of every {k}-vertex class (converted)"))
        names4 = list(cls[4].names)

        sets5 = orca5_orbit_sets()

        def orca_sums(k, X):
            return (class_counts_from_orbits4(X, names4) if k == 4 else [int(X[:, s].sum()) // 5 for s in sets5])

        for k in (4, 5):   # ORCA runs OpenMP (libgomp), which hangs in a forked child: a fresh process instead
            name = f"orbit-count (ORCA) node orbits, size {k}"
            quantity = f"induced {k}-vertex graphlet orbits per vertex (class sums, converted)"
            res = orca_fresh_process(label, k, a.peer_timeout)
            if isinstance(res, str):
                row = {"impl": name, "quantity": quantity, "timeout": "killed" in res, "skipped": res,
                       "at_least_seconds": a.peer_timeout}
            else:
                check(f"{label}/k{k}/{name}", to_noninduced(cls[k].M, res[1]), ref[k])
                row = {"impl": name, "quantity": quantity, "seconds": res[0], "runs": [res[0]],
                       "note": "one run in a fresh process (no warm-up)"}
                if res[0] < 10.0:
                    from orbit_count._orca import motif_counts
                    med, times, X = timeit(lambda k=k: motif_counts("node", k, G.n, E2), repeat=3)
                    check(f"{label}/k{k}/{name} (in process)", to_noninduced(cls[k].M, orca_sums(k, X)), ref[k])
                    row.update(seconds=med, runs=times, fresh_process_seconds=res[0],
                               note="warm-up, median in process")
            census_rows[k]["peers"].append(row)

        def fglt():
            import scipy.sparse as sp
            from pyfglt import fglt as F
            A = sp.csc_matrix(G.to_scipy().astype(np.float64))
            return lambda: F.compute(A).to_numpy()[:, FGLT_TO_ORCA]
        census_rows[4]["peers"].append(timed_peer(
            "pyfglt fglt.compute", fglt, want=ref[4], timeout=a.peer_timeout, repeat=3, child=False,
            convert=lambda X: to_noninduced(cls[4].M, class_counts_from_orbits4(X, names4)), label=f"{label}/k4",
            quantity="induced 4-vertex graphlet orbits per vertex (class sums, converted; in process: OpenMP)"))
        for k in (3, 4, 5):
            rec.add(census_rows[k], echo=f"{label:<18} census k={k}: la_gpm {census_rows[k]['la_gpm_census_seconds']:.3f} s  "
                    + "  ".join(f"{p['impl']}: " + (f"{p['seconds']:.3f} s" if 'seconds' in p else p['skipped'])
                                for p in census_rows[k]["peers"]))
        nxg = None
        for k, name, E in pats:
            P = Pattern(E, k=k)
            aut = P.automorphism_count
            got, stats = count_pattern(G, E, backend="cpu", return_stats=True)
            check(f"{label} {name} vs census(G, {k}, induced=False)", got, ref[k][class_row(k, E)])
            med, times, got2 = timeit(lambda: la_gpm.count(fresh(G), E, backend="cpu"), repeat=a.repeats, budget_s=60)
            check(f"{label} {name} repeat", got2, got)
            wmed, wtimes, _ = timeit(lambda: la_gpm.count(G, E, backend="cpu"), repeat=a.repeats, budget_s=60)
            row = {"graph": label, "n": G.n, "m": G.m, "k": k, "pattern": name, "edges": E, "count": got,
                   "engine": stats["engine"], "plan": stats["plan"], "seconds": med, "runs": times,
                   "warm_graph_seconds": wmed, "warm_graph_runs": wtimes, "load_average": os.getloadavg(), "peers": []}
            peers = row["peers"]
            for p in census_rows[k]["peers"]:
                q = {key: p[key] for key in ("impl", "quantity", "seconds", "skipped", "timeout", "at_least_seconds")
                     if key in p}
                q["computes"] = f"every {k}-vertex class at once (the census row)"
                peers.append(q)
            emb = got * aut
            one = f"this pattern (count checked: {got:,})"
            if name == "triangle":
                from bench_triangles import graphblas_direct
                peers.append(timed_peer("python-graphblas L<L> = L plus_pair L'", lambda: graphblas_direct(G),
                                        want=got, convert=int, timeout=a.vf2_timeout, repeat=a.repeats, child=False,
                                        label=f"{label}/{name}", quantity=one))
                peers.append(timed_peer("igraph list_triangles", lambda: (lambda: len(g.list_triangles())),
                                        want=got, convert=int, timeout=a.vf2_timeout, repeat=3,
                                        label=f"{label}/{name}", quantity=one))
            if P.is_clique and k >= 4:
                peers.append(timed_peer(f"igraph cliques(min={k}, max={k})",
                                        lambda: (lambda: len(g.cliques(min=k, max=k))), want=got, convert=int,
                                        timeout=a.vf2_timeout, repeat=3, label=f"{label}/{name}", quantity=one))
            if emb <= a.vf2_max:
                h = ig.Graph(n=k, edges=E)
                peers.append(timed_peer("igraph count_subisomorphisms_vf2 / |Aut|",
                                        lambda: (lambda: g.count_subisomorphisms_vf2(h)), want=got,
                                        convert=lambda x: int(x) // aut, timeout=a.vf2_timeout, repeat=3,
                                        label=f"{label}/{name}", quantity=one))
            else:
                peers.append({"impl": "igraph count_subisomorphisms_vf2 / |Aut|", "quantity": one,
                              "skipped": f"not run: {emb:.3g} embeddings to list (> --vf2-max {a.vf2_max:.0e})"})
            nx_emb = got if (name == "triangle" or P.is_clique) else emb
            if nx_emb <= a.nx_max:
                import networkx as nx
                if nxg is None:
                    nxg = G.to_networkx()
                if name == "triangle":
                    mk, nm_, conv = (lambda: (lambda: sum(nx.triangles(nxg).values()) // 3)), "networkx triangles", int
                elif P.is_clique:
                    from bench_kcliques import networkx_fn
                    mk, nm_, conv = (lambda k=k: networkx_fn(G, k)), "networkx enumerate_all_cliques", int
                else:
                    h = nx.Graph(E)

                    def mk(h=h):
                        from networkx.algorithms import isomorphism as iso
                        return lambda: sum(1 for _ in iso.GraphMatcher(nxg, h).subgraph_monomorphisms_iter())
                    nm_, conv = "networkx GraphMatcher monomorphisms / |Aut|", (lambda x: int(x) // aut)
                peers.append(timed_peer(nm_, mk, want=got, convert=conv, timeout=a.vf2_timeout, repeat=3,
                                        label=f"{label}/{name}", quantity=one))
            else:
                peers.append({"impl": "networkx", "quantity": one,
                              "skipped": f"not run: {nx_emb:.3g} {'cliques' if P.is_clique else 'embeddings'} "
                                         f"to list (> --nx-max {a.nx_max:.0e})"})
            timed = [p for p in peers if "seconds" in p]
            best = min(timed, key=lambda p: p["seconds"]) if timed else None
            row["fastest_peer"] = None if best is None else {"impl": best["impl"], "seconds": best["seconds"]}
            row["la_gpm_fastest"] = best is None or med < best["seconds"]
            if best is not None:
                row["speedup_vs_fastest_peer"] = best["seconds"] / med
            rec.add(row, echo=f"{label:<18} {name:<16} {got:>20,} {stats['engine']:<11} {med * 1e3:9.2f} ms  "
                    + ("no peer finished" if best is None else
                       f"best peer {best['impl'][:40]} {best['seconds']:.3f} s ({best['seconds'] / med:.1f}x)"))
    rec.done()


# ------------------------------------------------------------------ directed (CPU, igraph)
# igraph motifs_randesu(size=4) on the whole of wiki-Vote takes 13 min on 2 cores: its counts, by isoclass, from one
# run (benchmarks/results/igraph_wiki_vote_directed4.json) are the reference when this run's igraph call times out
IGRAPH_WIKI4 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "igraph_wiki_vote_directed4.json")


def directed_graph(name):
    """(la_gpm directed Graph, igraph Graph) of ``wiki-Vote`` (the shared SNAP file, read as arcs) or
    ``dgnm(n,m,recip=r,seed=s)``: m arcs drawn uniformly (loops and repeats dropped), a share r of them also reversed."""
    import re

    from harness import DATA
    if name == "wiki-Vote":
        path = DATA / "wiki-Vote.txt"
        D = la_gpm.read_graph(path, directed=True)
    else:
        m = re.match(r"^dgnm\((\d+), ?(\d+)(?:, ?recip=([\d.]+))?(?:, ?seed=(\d+))?\)$", name)
        if not m:
            raise SystemExit(f"unknown directed graph {name!r}: wiki-Vote or dgnm(n,m,recip=r,seed=s)")
        n, arcs, r, seed = int(m[1]), int(m[2]), float(m[3] or 0), int(m[4] or 1)
        rng = np.random.default_rng(seed)
        e = rng.integers(0, n, (arcs, 2))
        back = e[rng.random(arcs) < r][:, ::-1]
        e = np.concatenate([e, back])
        D = la_gpm.Graph.from_edges(e[:, 0], e[:, 1], n=n, directed=True)
    try:
        import igraph as ig
    except ImportError:      # the GPU machine has none: the counts are checked against the CPU (and the stored run)
        return D, None
    src = np.repeat(np.arange(D.n), np.diff(D.indptr))
    g = ig.Graph(n=D.n, edges=np.column_stack([src, D.indices]).tolist(), directed=True)
    return D, g


def by_iso(df):
    return {int(i): int(c) for i, c in zip(df["isoclass"], df["count"])}


@FAMILY.suite(repeats=3, graphs="wiki-Vote,dgnm(20000,200000,recip=0.2,seed=1)",
              quick={"graphs": "dgnm(300,1500,recip=0.2,seed=1)"},
              gpu="optional",
              args=[arg("--igraph-timeout", type=float, default=150.0,
                        help="seconds for one igraph run (wiki-Vote k = 4 takes about 13 min on 2 cores)")])
def directed(a):
    """Directed motif census (issue 18): la_gpm.census(D, 3) (closed-form triad census; and ESU enumeration)
    and la_gpm.census(D, 4) (ESU enumeration) against igraph motifs_randesu(size=3 | 4) in the same run, counts
    checked equal by igraph isoclass before timing. igraph runs once in a child (no warm-up), killed after
    --igraph-timeout; where it is killed (wiki-Vote, k = 4) la_gpm's counts are checked against the stored
    counts of one full igraph run (results/igraph_wiki_vote_directed4.json)."""
    import json
    tiny = la_gpm.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 1], directed=True)
    for k, meth in ((3, "closed_form"), (3, "enumerate"), (4, "enumerate")):   # compile before timing
        census(tiny, k, method=meth)
        if a.gpu:
            census(tiny, k, backend="gpu")
    rec = Record(a, "directed_census", "directed motif census (cpu" + (", gpu" if a.gpu else "") +
                 ") vs igraph motifs_randesu",
                 numba_threads=numba_threads(), load_average_at_start=os.getloadavg(),
                 note="shared 2-core machine: compare times within this file only; every count checked first")
    for label in a.graphs:
        D, g = directed_graph(label)
        for k, methods in ((3, ("closed_form", "enumerate")), (4, ("enumerate",))):
            row = {"graph": label, "n": D.n, "arcs": D.m, "k": k, "impls": []}
            ref = None
            for meth in methods:
                med, times, df = timeit(lambda: census(D, k, method=meth), repeat=a.repeats, budget_s=60)
                got = by_iso(df)
                if ref is None:
                    ref = got
                check(f"{label}/k{k}/{meth} vs {methods[0]}", got, ref)
                row["impls"].append({"impl": f"la_gpm census ({meth})", "seconds": med, "runs": times})
            if a.gpu:     # the call returns a DataFrame of host ints: it has synchronised the device
                med, times, df = timeit(lambda: census(D, k, backend="gpu"), repeat=a.repeats, budget_s=60)
                check(f"{label}/k{k}/gpu vs cpu", by_iso(df), ref)
                row["impls"].append({"impl": "la_gpm census gpu (enumerate)", "seconds": med, "runs": times,
                                     "method": df.attrs["method"]})
            row["counts_by_isoclass"] = ref
            if g is None:
                ig_row = {"impl": f"igraph motifs_randesu(size={k})", "skipped": "igraph is not installed here"}
            else:
                    ig_row = peer(f"igraph motifs_randesu(size={k})", lambda: (lambda: g.motifs_randesu(size=k)),
                              want=ref, label=f"{label}/k{k}", timeout=a.igraph_timeout,
                              convert=lambda vals: {i: int(x) for i, x in enumerate(vals) if x == x},
                              note="one timed run (no warm-up), child process")
            if "skipped" in ig_row and label == "wiki-Vote" and k == 4 and os.path.exists(IGRAPH_WIKI4):
                stored = json.load(open(IGRAPH_WIKI4))
                check(f"{label}/k4 vs the stored igraph run", ref,
                      {i: c for i, c in enumerate(stored["counts"]) if c is not None})
                ig_row.update(checked_against="stored igraph run", stored_seconds=stored["seconds"],
                              stored_note=stored.get("note"))
            row["impls"].append(ig_row)
            ig_s = ig_row.get("seconds") or ig_row.get("stored_seconds")
            if ig_s:
                row["speedup_vs_igraph"] = ig_s / row["impls"][0]["seconds"]
            rec.add(row, echo=False)
            for x in row["impls"]:
                s_ = f"{x['seconds']:.4f} s" if x.get("seconds") is not None else "skipped: " + x["skipped"] + (
                    f" (stored run: {x['stored_seconds']:.1f} s)" if "stored_seconds" in x else "")
                print(f"{label:38s} k={k}  {x['impl']:36s} {s_}", flush=True)
    rec.done()


@FAMILY.suite(repeats=9, graphs="email-Enron,G(200000,2000000)", quick={"graphs": "karate", "repeats": 3})
def triangle_fresh(a):
    """The one row of closed_forms_all where a peer was ahead: la_gpm.count(G, "triangle") on a fresh Graph (the
    degree order and the ranked DAG paid inside the clock) against python-graphblas's masked mxm (tril(A) built
    outside its clock, as a user holding L would) and python-graphblas from the CSR (A, tril(A) and the product
    in the clock: both sides fresh), alternating call by call, medians; the warm-graph time and the count
    checked equal."""
    from bench_triangles import graphblas_direct
    rec = Record(a, "triangle_fresh", "triangles on a fresh graph: la_gpm (cpu) against python-graphblas",
                 numba_threads=numba_threads(), load_average_at_start=os.getloadavg())
    for label in a.graphs:
        G = bench_graph(label)
        gb_run = graphblas_direct(G)
        want = gb_run()
        la_gpm.count(fresh(G), "triangle", backend="cpu")
        fr, gb_t, gb_fr = [], [], []
        for _ in range(a.repeats):
            H = fresh(G)
            t = time.perf_counter()
            got = la_gpm.count(H, "triangle", backend="cpu")
            fr.append(time.perf_counter() - t)
            t = time.perf_counter()
            gb_run()
            gb_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            graphblas_direct(G)()          # from the CSR: A, tril(A) and the product inside the clock
            gb_fr.append(time.perf_counter() - t)
            check(f"{label} triangles", got, want)
        warm, _, _ = timeit(lambda: la_gpm.count(G, "triangle", backend="cpu"), repeat=a.repeats)
        row = {"graph": label, "n": G.n, "m": G.m, "count": int(want), "la_gpm_fresh_s": float(np.median(fr)),
               "la_gpm_warm_s": warm, "python_graphblas_s": float(np.median(gb_t)),
               "python_graphblas_fresh_s": float(np.median(gb_fr)),
               "ratio_fresh_over_graphblas": float(np.median(fr) / np.median(gb_t)),
               "ratio_fresh_over_graphblas_fresh": float(np.median(fr) / np.median(gb_fr)),
               "ratio_warm_over_graphblas": float(warm / np.median(gb_t)), "load_average": os.getloadavg()}
        print(row, flush=True)
        rec.add(row)
    rec.done()


if __name__ == "__main__":
    FAMILY.main()
