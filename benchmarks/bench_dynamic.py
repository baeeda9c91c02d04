"""Batch-dynamic subgraph matching: la_gpm ``match_delta`` against recounting both snapshots and
against RapidFlow (VLDB'22 continuous subgraph matching, CPU), measured in the same run.

    python benchmarks/bench_dynamic.py --quick                # yeast, k = 4, 6, rate 0.02, 1 query/class
    python benchmarks/bench_dynamic.py                        # yeast, hprd, human, wordnet; k = 4 6 8; 3 rates
    python benchmarks/bench_dynamic.py --datasets cit-HepTh-L5 --rates 0.001 0.1 --suffix large
    python benchmarks/bench_dynamic.py --datasets yeast hprd --sizes 4 6 --rates 0.001 0.02 --gpu
    python benchmarks/bench_dynamic.py rapidflow_selftest     # RapidFlow's counts against networkx

Suites: ``dynamic`` (the default, below) and ``rapidflow_selftest`` (see ``rapidflow_peer.selftest``).

Datasets: the labelled graphs yeast, hprd (``$LA_GPM_SHARED_DATA``, default ../shared/data), human
and wordnet (``$LA_GPM_SHARED_HOLDOUT``, default the ``holdout`` folder beside the data) -- the
default list -- and, by name only, ``<graph>-L<k>``: the unlabelled edge list
``holdout/el/<graph>.txt`` with k seeded random vertex labels (``--label-seed``; numpy
``default_rng(seed).integers(0, k, n)``), e.g. ``cit-HepTh-L5`` (27.8K vertices, 352K edges, 5
labels: the scale of GAMMA's Github graph, 37.7K / 0.3M / 5) or ``email-Enron-L6``.

Workload (``dynamic_workload.py``, seeded, GAMMA / RapidFlow style): per dataset, random connected
queries taken from the data graph (labels copied) of three classes, dense (average degree >= 3),
sparse (< 3, not a tree) and tree, ``--queries-per-class`` of each size in ``--sizes``; per batch
rate r, r|E| distinct edges sampled, ``--insert-share`` (2/3) of them removed to give G0 and
re-inserted by the batch, the rest deleted from G0.  One batch per (dataset, rate), shared by all
queries.

For each (query, batch) -- one row:

* RapidFlow, one update at a time, in two runs: the deletions as a stream on G0 (its total =
  negative) and then the insertions on G0 - del (its total = positive); RapidFlow prints one total
  over a stream, inserts and deletes alike (see ``rapidflow_peer.py``), so the two signs need two
  runs; together they do the work of one delete-then-insert stream.  Times: ``query_time_s`` = the
  sum of its own printed "Query time" of the two runs (stream processing: index updates and
  enumeration; what its paper reports); ``preprocessing_time_s`` = its printed "Preprocessing time"
  of the run on G0 (the initial index and orders, which one stream starting at G0 needs once);
  ``wall_s`` = both processes (loading included).  Optional: when it cannot be built (no cmake or
  compiler, e.g. on the GPU machine) the JSON says ``"rapidflow": {"skipped": reason}``.
* la_gpm: ``la_gpm.match_delta(G0, Q, insert=, delete=, count="embeddings", backend=B)`` (B = cpu,
  and gpu with ``--gpu``): positive = embeddings of G' = G0 + ins - del using an inserted edge,
  negative = embeddings of G0 using a deleted edge.  The first call (warm-up) is recorded as
  ``first_call_s``; then up to ``--repeats`` timed runs (median), none for a call slower than
  ``--call-limit`` s.
* recount: ``la_gpm.count(G, Q, count="embeddings", backend=B)`` on G0 and on G' (times summed).
* with ``--views``: ``la_gpm.DynamicGraph(G0, [Q], keep_graph=False).apply(insert=, delete=)`` (query
  views, RapidFlow-style: only the edges the query can use are kept, the other updates dropped first;
  ``la_gpm_views``) and, beside it, the same with ``keep_graph=True`` (the whole graph kept;
  ``la_gpm_dg``).  A fresh DynamicGraph per timed run (apply changes it), built outside the timer and
  given one empty batch (its query plans are compiled on first use): its median construction time
  (that included) is ``preprocessing_s`` (for the views: ``views_preprocessing_s``, beside
  RapidFlow's preprocessing); the first apply is ``first_call_s``, then up to ``--repeats`` timed applies
  (median).  Their counts must equal match_delta's.

Speedups per row (``speedups``; all are (other side's seconds) / (la_gpm's seconds), > 1: la_gpm
faster): ``la_gpm_B_vs_recount_B``, ``la_gpm_B_vs_rapidflow_query`` (RapidFlow's printed query
time) and ``la_gpm_B_vs_rapidflow_query_plus_preprocessing`` (that plus its preprocessing); with
``--views`` also ``la_gpm_views_B_vs_rapidflow_query``, ``la_gpm_views_B_vs_rapidflow_query_plus_preprocessing``
(both sides' preprocessing added), ``la_gpm_views_B_vs_la_gpm_B`` (match_delta / views apply) and
``la_gpm_views_B_vs_la_gpm_dg_B`` (keep_graph=True apply / views apply).  When
one side timed out the entry is a bound (``bound: ">="`` or ``"<="``).  ``summary``: per (dataset,
query class, rate) and comparison, the geometric mean over the rows where both sides finished and
the number of rows where la_gpm is faster / slower (bounds from timeouts included when they decide).

Each query (all its rates) runs in a child process of this script (a la_gpm call cannot be
interrupted; numba's OpenMP layer rules out fork).  The parent kills a child whose current stage
runs past its limit (``--delta-timeout`` for match_delta, ``--recount-timeout`` for the recount;
RapidFlow stops itself at ``--peer-time-limit`` per run); the row records that side as
``timed_out`` with the seconds it had run, and a new child resumes the same row with the remaining
sides, then the next rates.  ``--no-isolate`` runs everything in this process (no timeouts).

Checks (abort on mismatch, and the JSON written so far says so): positive - negative ==
recount(G') - recount(G0); with ``--kept``, positive == recount(G') - recount(K) and negative == recount(G0) -
recount(K), K = G0 - delete; cpu == gpu; positive and negative each equal RapidFlow's (each run that
finished); RapidFlow's positive - negative == the recount difference; the graph after
(``.graph``) is G0 + insert - delete.

Writes dynamic_<cpu|gpu>[_<suffix>].json (dynamic_quick_... with --quick; tagged by the backends run) after
every query, in --out / ``$LA_GPM_BENCH_OUT`` / benchmarks/results.  ``--resummarize FILE...`` recomputes
the speedups and the summary of result files from their rows.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from argparse import SUPPRESS
from pathlib import Path

# Idle OpenMP threads sleep instead of spinning (set before numba starts its pool; children inherit it).
# On a small machine spinning workers left by one parallel region (the recount, a graph build) took the
# core from the next timed call: la_gpm's calls came out in 8 ms scheduler quanta (hprd, 10% batch: 8 ms
# spinning, 2.2 ms passive). A user's environment may set otherwise: the JSON records the value.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
from harness import DATA, HOLDOUT, Family, Record, arg, check, once, timeit  # noqa: E402

import dynamic_workload as dw  # noqa: E402
import rapidflow_peer  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm.io import read_sunluo  # noqa: E402

# resolved once, as `from la_gpm import match_delta` would: la_gpm.match_delta is a lazy attribute of the
# package (an import-machinery look-up of about 3 us on every access), not part of the call
match_delta = la_gpm.match_delta

FAMILY = Family(__doc__, default="dynamic")
DATASETS = {"yeast": DATA / "yeast" / "yeast.graph", "hprd": DATA / "hprd" / "HPRD.graph",
            "human": HOLDOUT / "human" / "human.graph", "wordnet": HOLDOUT / "wordnet" / "wordnet.graph"}
_SYNTH = re.compile(r"^(?P<graph>.+)-L(?P<labels>\d+)$")


def dataset_source(name: str) -> dict:
    """Where a dataset comes from: a labelled ``.graph`` file, or ``<graph>-L<k>`` = the edge list
    ``HOLDOUT/el/<graph>.txt`` with k random labels."""
    if name in DATASETS:
        return {"path": DATASETS[name]}
    m = _SYNTH.match(name)
    if m and int(m["labels"]) >= 1:
        return {"path": HOLDOUT / "el" / f"{m['graph']}.txt", "random_labels": int(m["labels"])}
    raise ValueError(f"unknown dataset {name!r}: use one of {list(DATASETS)} or <graph>-L<k> with "
                     f"<graph>.txt in {HOLDOUT / 'el'}")


def load(name, label_seed):
    """(G, number of distinct labels, provenance dict)."""
    src = dataset_source(name)
    info = {"source": str(src["path"])}
    if "random_labels" not in src:
        G = read_sunluo(src["path"])
    else:
        L = src["random_labels"]
        H = la_gpm.read_graph(src["path"])
        rng = np.random.default_rng(label_seed)
        G = la_gpm.Graph.from_edges(np.repeat(np.arange(H.n), H.degrees), H.indices, n=H.n,
                                    vertex_labels=rng.integers(0, L, H.n))
        info.update(random_labels=L, label_seed=label_seed,
                    labelling=f"numpy.random.default_rng({label_seed}).integers(0, {L}, n) over "
                              f"la_gpm.read_graph's vertex order")
    labels = int(np.unique(np.asarray(G.vertex_labels)).size) if G.vertex_labels is not None else 1
    return G, labels, info


def batches(G, args):
    out = []
    for rate in args.rates:
        G0, ins, dele = dw.make_batch(G, rate, seed=args.seed, insert_share=args.insert_share)
        out.append((rate, G0, ins, dele, dw.apply_batch(G0, ins, dele)))
    return out


def base_row(name, G, labels, kind, k, i, P, rate, G0, ins, dele, Gafter):
    row = {"dataset": name, "n": G.n, "m": G.m, "labels": labels, "query_class": kind, "k": k,
           "query_index": i, "rate": rate, "insert": int(len(ins)), "delete": int(len(dele)),
           "m_before": G0.m, "m_after": Gafter.m}
    if P is not None:
        row.update(query_edges=[list(e) for e in P.edges], query_labels=list(P.vertex_labels),
                   query_num_edges=P.num_edges, automorphisms=P.automorphism_count)
    row.update(la_gpm={}, recount={})
    return row


def tag_of(row):
    return (f"{row['dataset']} r={row['rate']} {row['query_class']}{row['k']}#{row['query_index']} "
            f"(|E_Q|={row.get('query_num_edges')})")


# ------------------------------------------------------------------ measuring (in the child)
def timed_first(fn, *, repeat, budget, limit, sync):
    """First call (warm-up, JIT included) timed on its own, then ``repeat`` timed runs unless the
    first took longer than ``limit`` s.  Returns (median_s, runs, first_s, result)."""
    first, res = once(fn, sync=sync)
    if first > limit or repeat < 1:
        return first, [first], first, res
    med, runs, res2 = timeit(fn, repeat=repeat, warmup=0, budget_s=budget, sync=sync)
    return med, runs, first, res2


def warmed(D):
    """D after an empty batch: its query plans compiled (on first use, as RapidFlow's orders are part of its
    preprocessing); counted in the construction time."""
    D.apply()
    return D


def timed_apply(make, ins, dele, *, repeat, budget, limit):
    """A fresh DynamicGraph per run (``make()``, untimed: apply changes it), then one timed apply of the batch.
    The first run is the warm-up (``first_call_s``); then ``repeat`` runs unless it took longer than
    ``limit`` s, within ``budget`` s.  Returns (median apply s, runs, first apply s, median build s, result)."""
    builds, runs, first, res = [], [], None, None
    for r in range(repeat + 1):
        t = time.perf_counter()
        D = make()
        builds.append(time.perf_counter() - t)
        t = time.perf_counter()
        res = D.apply(insert=ins, delete=dele)
        el = time.perf_counter() - t
        if r == 0:
            first = el
            if el > limit:
                break
            continue
        runs.append(el)
        if sum(runs) > budget:
            break
    build = float(np.median(builds[1:] if len(builds) > 1 else builds))
    return (float(np.median(runs)) if runs else first), (runs or [first]), first, build, res


def same_edges(A, B) -> bool:
    return (A.n == B.n and A.m == B.m and np.array_equal(np.asarray(A.indptr), np.asarray(B.indptr))
            and np.array_equal(np.asarray(A.indices), np.asarray(B.indices)))


def repeat_limits(args, stage_limit):
    """(call limit, repeat budget) so that repeats never push a stage past its kill limit."""
    if not stage_limit:
        return args.call_limit, args.budget
    return min(args.call_limit, stage_limit / (4 * (args.repeats + 1))), min(args.budget, stage_limit / 4)


def peer_runs(work, P, args, exe):
    """RapidFlow: the delete stream on G0 (-> negative), the insert stream on G0 - del (-> positive)."""
    qpath = work / "query.graph"
    dw.write_query(P, qpath)
    res = {}
    for phase, data, stream in (("delete", "g0.graph", "delete.stream"),
                                ("insert", "g0_minus_del.graph", "insert.stream")):
        if not (work / stream).exists():
            res[phase] = {"result_count": 0, "query_time_s": 0.0, "preprocessing_time_s": 0.0, "wall_s": 0.0,
                          "finished": True, "empty": True}
            continue
        res[phase] = rapidflow_peer.run(work / data, qpath, work / stream, args.peer_time_limit, exe=exe)
    fin = all(r["finished"] for r in res.values())
    # one stream from G0 needs one initial index: the G0 run's (the insert run's when there is no delete)
    pre_phase = "delete" if not res["delete"].get("empty") else "insert"
    out = {"finished": fin,
           "positive": res["insert"].get("result_count"), "negative": res["delete"].get("result_count"),
           "query_time_s": sum(r.get("query_time_s", 0.0) for r in res.values()),
           "preprocessing_time_s": res[pre_phase].get("preprocessing_time_s", 0.0),
           "preprocessing_phase": pre_phase,
           "wall_s": sum(r["wall_s"] for r in res.values()),
           "phases": res}
    if not fin:
        out["timed_out"] = any(r.get("timed_out") or r.get("killed") for r in res.values())
        out["note"] = f"stopped at --peer-time-limit {args.peer_time_limit} s (per run) or failed; counts partial"
    return out


def run_case(row, P, G0, ins, dele, Gafter, work, args, backends, exe, skip=()):
    """The measurements of one (query, batch) not in ``skip``; fills ``row``; checks what it has."""
    tag = tag_of(row)
    if exe is not None and "rapidflow" not in skip:  # first: it stops itself at --peer-time-limit
        stage("rapidflow", "-", tag)
        row["rapidflow"] = peer_runs(work, P, args, exe)
        part(row)
    pos = neg = before = after = K = None   # (K: the kept graph, built once for every backend's recount)
    for B in backends:
        sync = B == "gpu"
        if "la_gpm" not in skip:
            stage("la_gpm", B, tag)
            lim, bud = repeat_limits(args, args.delta_timeout)
            med, runs, first, res = timed_first(
                lambda B=B: match_delta(G0, P, insert=ins, delete=dele, count="embeddings", backend=B),
                repeat=args.repeats, budget=bud, limit=lim, sync=sync)
            p, q = int(res.positive), int(res.negative)
            if getattr(res, "graph", None) is not None:
                check(f"{tag}: graph after match_delta ({B}) has G0 + insert - delete", same_edges(res.graph, Gafter),
                      True)
            t = time.perf_counter()    # match_delta completes the counts of the updates no query can use here
            stats = getattr(res, "stats", None) or {}
            stats_read = time.perf_counter() - t
            stats = json.loads(json.dumps(dict(stats), default=str))
            row["la_gpm"][B] = {"seconds": med, "runs": runs, "first_call_s": first, "positive": p, "negative": q,
                                "stats": stats, "stats_first_read_s": stats_read}
            if pos is None:
                pos, neg = p, q
            else:
                check(f"{tag}: positive {B} vs {backends[0]}", p, pos)
                check(f"{tag}: negative {B} vs {backends[0]}", q, neg)
            row.update(positive=pos, negative=neg)
            part(row)
        if getattr(args, "views", False) and "views" not in skip:
            stage("views", B, tag)
            lim, bud = repeat_limits(args, args.delta_timeout)
            for side, keep in (("la_gpm_views", False), ("la_gpm_dg", True)):
                med, runs, first, build, res = timed_apply(
                    lambda keep=keep, B=B: warmed(la_gpm.DynamicGraph(G0, [P], count="embeddings", backend=B,
                                                                      keep_graph=keep)),
                    ins, dele, repeat=args.repeats, budget=bud / 2, limit=lim)
                d = res[0]
                p, q = int(d.positive), int(d.negative)
                if pos is not None:
                    check(f"{tag}: positive {side} {B} vs match_delta", p, pos)
                    check(f"{tag}: negative {side} {B} vs match_delta", q, neg)
                stats = json.loads(json.dumps(dict(d.stats), default=str))
                ent = {"seconds": med, "runs": runs, "first_call_s": first, "positive": p, "negative": q,
                       "stats": stats}
                ent["views_preprocessing_s" if not keep else "preprocessing_s"] = build
                row.setdefault(side, {})[B] = ent
            part(row)
        if "recount" not in skip:
            stage("recount", B, tag)
            lim, bud = repeat_limits(args, args.recount_timeout)
            got = []
            for Gx in (G0, Gafter):
                got.append(timed_first(lambda B=B, Gx=Gx: la_gpm.count(Gx, P, count="embeddings", backend=B),
                                       repeat=args.recount_repeat, budget=bud / 2, limit=lim, sync=sync))
            (mb, _, fb, b0), (ma, _, fa, a0) = got
            if before is not None:
                check(f"{tag}: recount {B} vs {backends[0]}", (int(b0), int(a0)), (before, after))
            before, after = int(b0), int(a0)
            row.update(embeddings_before=before, embeddings_after=after)
            row["recount"][B] = {"seconds": mb + ma, "before_s": mb, "after_s": ma, "first_call_s": fb + fa}
            if getattr(args, "kept", False):   # K = G0 - delete: the edges of both snapshots (not in seconds)
                t = time.perf_counter()
                if K is None:
                    K = dw.apply_batch(G0, [], dele)
                kept = int(la_gpm.count(K, P, count="embeddings", backend=B))
                if "embeddings_kept" in row:
                    check(f"{tag}: kept recount {B} vs {backends[0]}", kept, row["embeddings_kept"])
                row["embeddings_kept"] = kept
                row["recount"][B]["kept_s"] = time.perf_counter() - t
            verify(row)
            part(row)
    verify(row)
    return row


# ------------------------------------------------------------------ checks and speedups (both sides)
def verify(row):
    """Every count check the row's data allows; aborts (SystemExit) on a mismatch."""
    tag = tag_of(row)
    pos, neg = row.get("positive"), row.get("negative")
    before, after = row.get("embeddings_before"), row.get("embeddings_after")
    q = f"query edges {row.get('query_edges')} labels {row.get('query_labels')}"
    if pos is not None and before is not None:
        check(f"{tag}: positive - negative vs recount difference; positive={pos} negative={neg} "
              f"before={before} after={after}; {q}", pos - neg, after - before)
    kept = row.get("embeddings_kept")
    if pos is not None and kept is not None:    # each side alone: the matches made / unmade, against K = G0 - del
        check(f"{tag}: positive vs recount(G') - recount(K); {q}", pos, after - kept)
        check(f"{tag}: negative vs recount(G0) - recount(K); {q}", neg, before - kept)
    rf = row.get("rapidflow")
    if rf and "phases" in rf:
        ph = rf["phases"]
        if pos is not None and ph["insert"].get("finished"):
            check(f"{tag}: positive vs RapidFlow (insert stream on G0 - del); {q}", pos, rf["positive"])
        if neg is not None and ph["delete"].get("finished"):
            check(f"{tag}: negative vs RapidFlow (delete stream on G0); {q}", neg, rf["negative"])
        if rf.get("finished") and before is not None:
            check(f"{tag}: RapidFlow positive - negative vs recount difference; {q}",
                  rf["positive"] - rf["negative"], after - before)


def _side_time(side):
    """(seconds, exact?) of a measured side, or None when it did not run."""
    if not side:
        return None
    if "seconds" in side:
        return side["seconds"], True
    if side.get("timed_out"):
        return side["after_s"], False
    return None


def _rf_time(rf, with_pre, limit):
    if not rf:
        return None
    if "phases" not in rf:  # killed by the benchmark (its own limit did not stop it): ran at least after_s
        return (rf["after_s"], False) if rf.get("timed_out") else None
    pre = rf.get("preprocessing_time_s", 0.0) if with_pre else 0.0
    if rf.get("finished"):
        return rf["query_time_s"] + pre, True
    if rf.get("timed_out"):  # a lower bound: the query time it had printed when it stopped (else its limit)
        qt = rf.get("query_time_s") or 0.0
        return max(qt, limit) + pre, False
    return None


def speedups(row, peer_limit):
    """(other seconds) / (la_gpm seconds) per comparison; a bound when one side timed out."""
    sp = {}
    for B in row["la_gpm"]:
        mine = _side_time(row["la_gpm"].get(B))
        if mine is None:
            continue
        others = {f"la_gpm_{B}_vs_recount_{B}": _side_time(row["recount"].get(B)),
                  f"la_gpm_{B}_vs_rapidflow_query": _rf_time(row.get("rapidflow"), False, peer_limit),
                  f"la_gpm_{B}_vs_rapidflow_query_plus_preprocessing": _rf_time(row.get("rapidflow"), True,
                                                                                peer_limit)}
        for key, other in others.items():
            if other is None:
                continue
            (a, a_ok), (b, b_ok) = mine, other
            ent = {"la_gpm_s": a, "other_s": b, "speedup": b / a if a > 0 else math.inf}
            if not a_ok and not b_ok:
                ent.update(speedup=None, bound="both timed out")  # counted as undecided
            elif not b_ok:
                ent["bound"] = ">="  # the other side ran at least b
            elif not a_ok:
                ent["bound"] = "<="  # la_gpm ran at least a
            sp[key] = ent
    for B, v in (row.get("la_gpm_views") or {}).items():
        mine = _side_time(v)
        if mine is None:
            continue
        pre = v.get("views_preprocessing_s", 0.0)
        rfp = _rf_time(row.get("rapidflow"), True, peer_limit)
        others = {f"la_gpm_views_{B}_vs_rapidflow_query": (_rf_time(row.get("rapidflow"), False, peer_limit), 0.0),
                  f"la_gpm_views_{B}_vs_rapidflow_query_plus_preprocessing": (rfp, pre),
                  f"la_gpm_views_{B}_vs_la_gpm_{B}": (_side_time(row["la_gpm"].get(B)), 0.0),
                  f"la_gpm_views_{B}_vs_la_gpm_dg_{B}": (_side_time((row.get("la_gpm_dg") or {}).get(B)), 0.0)}
        for key, (other, add) in others.items():
            if other is None:
                continue
            (a, a_ok), (b, b_ok) = mine, other
            a = a + add
            ent = {"la_gpm_s": a, "other_s": b, "speedup": b / a if a > 0 else math.inf}
            if not a_ok and not b_ok:
                ent.update(speedup=None, bound="both timed out")
            elif not b_ok:
                ent["bound"] = ">="
            elif not a_ok:
                ent["bound"] = "<="
            sp[key] = ent
    row["speedups"] = sp
    return sp


def verdict(ent):
    """'faster' / 'slower' / None (a bound that does not decide)."""
    s, b = ent["speedup"], ent.get("bound")
    if s is None:
        return None
    if b is None:
        return "faster" if s > 1 else "slower"
    if b == ">=" and s >= 1:
        return "faster"
    if b == "<=" and s <= 1:
        return "slower"
    return None


def summarize(rows):
    groups = {}
    for r in rows:
        key = (r["dataset"], r["query_class"], r["rate"])
        g = groups.setdefault(key, {"dataset": key[0], "query_class": key[1], "rate": key[2], "rows": 0,
                                    "rows_not_run": 0, "comparisons": {}})
        g["rows"] += 1
        if r.get("skipped"):
            g["rows_not_run"] += 1
        for name, ent in (r.get("speedups") or {}).items():
            c = g["comparisons"].setdefault(name, {"exact": [], "faster": 0, "slower": 0, "undecided": 0,
                                                   "both_timed_out": 0, "bounds": 0})
            v = verdict(ent)
            if v is None:
                c["undecided"] += 1
            else:
                c[v] += 1
            if ent["speedup"] is None:
                c["both_timed_out"] += 1
            elif ent.get("bound"):
                c["bounds"] += 1
            else:
                c["exact"].append(ent["speedup"])
    out = []
    for g in groups.values():
        for c in g["comparisons"].values():
            ex = c.pop("exact")
            c["n_exact"] = len(ex)
            c["geomean"] = float(np.exp(np.mean(np.log(ex)))) if ex else None
            c["min"] = float(min(ex)) if ex else None
            c["max"] = float(max(ex)) if ex else None
        out.append(g)
    return out


def print_summary(summary, backends):
    for B in backends:
        _print_summary(summary, B)
        if any(f"la_gpm_views_{B}_vs_rapidflow_query" in g["comparisons"] or f"la_gpm_views_{B}_vs_la_gpm_{B}"
               in g["comparisons"] for g in summary):
            _print_summary(summary, B, views=True)


def _print_summary(summary, B, views=False):
    cols = [(f"la_gpm_{B}_vs_recount_{B}", "vs recount"), (f"la_gpm_{B}_vs_rapidflow_query", "vs RF query"),
            (f"la_gpm_{B}_vs_rapidflow_query_plus_preprocessing", "vs RF query+pre")]
    if views:
        cols = [(f"la_gpm_views_{B}_vs_rapidflow_query", "vs RF query"),
                (f"la_gpm_views_{B}_vs_rapidflow_query_plus_preprocessing", "vs RF q+pre (both)"),
                (f"la_gpm_views_{B}_vs_la_gpm_{B}", "vs match_delta"),
                (f"la_gpm_views_{B}_vs_la_gpm_dg_{B}", "vs keep_graph=True")]
    what = "query views (DynamicGraph keep_graph=False) " if views else ""
    print(f"\nsummary (la_gpm {what}{B}; geometric mean of other/la_gpm over rows where both finished; "
          f"rows la_gpm faster/slower, timeouts included when they decide; ?n: n rows undecided "
          f"(both timed out, or a bound that does not decide)):")
    head = f"{'dataset':<15}{'class':<7}{'rate':>6}" + "".join(f"{t:>24}" for _, t in cols)
    print(head)
    for g in summary:
        line = f"{g['dataset']:<15}{g['query_class']:<7}{g['rate']:>6}"
        for key, _ in cols:
            c = g["comparisons"].get(key)
            if c is None:
                line += f"{'-':>24}"
                continue
            gm = f"{c['geomean']:.3g}x" if c["geomean"] is not None else "n/a"
            und = f" ?{c['undecided']}" if c["undecided"] else ""
            line += f"{gm + ' ' + str(c['faster']) + '/' + str(c['slower']) + und:>24}"
        print(line)


# ------------------------------------------------------------------ child processes
_CHILD = False


def part(row):
    """In a child: the row so far (kept by the parent if the case is killed later)."""
    if _CHILD:
        print("PART " + json.dumps(row, default=str), flush=True)


def stage(side, backend, tag):
    if _CHILD:
        print(f"STAGE {side} {backend} {tag}", flush=True)
    else:
        print(f"    {side} {backend} {tag}", file=sys.stderr, flush=True)


def child(args, backends, exe):
    """One query over the batch rates from ``--from-rate``, in its own process; rows go to stdout as
    ``ROW {json}`` (the first one without the sides in ``--skip``)."""
    global _CHILD
    _CHILD = True
    name, kind, k, i = args.child[0], args.child[1], int(args.child[2]), int(args.child[3])
    G, labels, _ = load(name, args.label_seed)
    P = dw.random_query(G, k, kind, seed=args.seed * 1000 + i)
    skip = tuple(s for s in (args.skip or "").split(",") if s)
    for j, (rate, G0, ins, dele, Gafter) in enumerate(batches(G, args)):
        if j < args.from_rate:
            continue
        row = base_row(name, G, labels, kind, k, i, P, rate, G0, ins, dele, Gafter)
        run_case(row, P, G0, ins, dele, Gafter, Path(args.work) / f"rate{j}", args, backends, exe,
                 skip=skip if j == args.from_rate else ())
        print("ROW " + json.dumps(row, default=str), flush=True)


def stage_limit(side, args):
    if side in ("la_gpm", "views"):
        return args.delta_timeout
    if side == "recount":
        return args.recount_timeout
    if side == "rapidflow":  # stops itself; the kill is only a backstop
        return 2 * (args.peer_time_limit + 60)
    return args.startup_timeout


def run_child(argv, name, kind, k, i, work, args, from_rate, skip):
    """Run one child; returns (rows, partial row or None, killed stage (side, backend, elapsed) or None)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), *argv, "--child", name, kind, str(k), str(i),
           "--work", str(work), "--from-rate", str(from_rate), "--skip", ",".join(skip)]
    rows, partial = [], {}
    cur = {"side": "start-up", "backend": "-", "t": time.monotonic()}
    lock = threading.Lock()
    with tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)

        def reader():
            for ln in p.stdout:
                if ln.startswith("ROW "):
                    rows.append(json.loads(ln[4:]))
                    partial.clear()
                    with lock:
                        cur.update(side="start-up", backend="-", t=time.monotonic())
                elif ln.startswith("PART "):
                    partial["row"] = json.loads(ln[5:])
                elif ln.startswith("STAGE "):
                    _, side, backend, _ = ln.split(" ", 3)
                    with lock:
                        cur.update(side=side, backend=backend, t=time.monotonic())
                else:
                    print(ln, end="", flush=True)
        th = threading.Thread(target=reader, daemon=True)
        th.start()
        killed = None
        while p.poll() is None:
            time.sleep(0.1)
            with lock:
                el = time.monotonic() - cur["t"]
                if el > stage_limit(cur["side"], args):
                    killed = (cur["side"], cur["backend"], el)
            if killed:
                p.kill()
                break
        rc = p.wait()
        th.join(10)
        err.seek(0)
        text = err.read()
    if killed is None and rc != 0:
        raise CaseFailed(f"case {name} {kind}{k}#{i} (rates from index {from_rate}) failed, exit {rc}:\n"
                         f"{text[-4000:]}")
    return rows, partial.get("row"), killed


class CaseFailed(Exception):
    pass


def merge(row, carry, skip):
    """A resumed row: the sides measured (or timed out) by the killed child, then the new ones."""
    if carry is None:
        return row
    if "rapidflow" in skip and "rapidflow" in carry:
        row["rapidflow"] = carry["rapidflow"]
    if "la_gpm" in skip:
        row["la_gpm"] = {**carry.get("la_gpm", {}), **row.get("la_gpm", {})}
        for key in ("positive", "negative"):
            if carry.get(key) is not None:
                row[key] = carry[key]
    if "views" in skip:
        for side in ("la_gpm_views", "la_gpm_dg"):
            if side in carry:
                row[side] = {**carry[side], **row.get(side, {})}
    if carry.get("timed_out"):
        row["timed_out"] = carry["timed_out"]
    return row


def isolated(argv, name, kind, k, i, work, args, nrates, base):
    """Every rate of one query, in child processes; a stage past its limit is killed, recorded as timed
    out, and a new child resumes from the next side / rate."""
    out, start, skip, carry = [], 0, (), None
    while start < nrates:
        rows, partial, killed = run_child(argv, name, kind, k, i, work, args, start, skip)
        if rows:
            rows[0] = merge(rows[0], carry, skip)
            carry, skip = None, ()
        out.extend(rows)
        start += len(rows)
        if killed is None:
            break
        side, B, el = killed
        row = merge(partial, carry, skip) if partial is not None else (carry or base(start))
        limit = stage_limit(side, args)
        note = {"side": side, "backend": B, "after_s": el, "limit_s": limit}
        row.setdefault("timed_out", []).append(note)
        print(f"  {tag_of(row)}: {side} {B} killed after {el:.1f} s (limit {limit} s)", flush=True)
        if side == "la_gpm":
            row["la_gpm"][B] = {"timed_out": True, "after_s": el}
            carry, skip = row, ("rapidflow", "la_gpm")  # the recount still runs, in a new child
        elif side == "views":
            row.setdefault("la_gpm_views", {})[B] = {"timed_out": True, "after_s": el}
            carry, skip = row, ("rapidflow", "la_gpm", "views")
        elif side == "rapidflow":
            row["rapidflow"] = {"finished": False, "timed_out": True, "after_s": el,
                                "note": "killed by the benchmark (its own -time_limit did not stop it)"}
            carry, skip = row, ("rapidflow",)
        elif side == "recount":
            row["recount"][B] = {"timed_out": True, "after_s": el}
            out.append(row)
            carry, skip, start = None, (), start + 1
        else:  # start-up / between stages: give up on this row
            row["skipped"] = f"child stalled in {side} for {el:.0f} s"
            out.append(row)
            carry, skip, start = None, (), start + 1
    return out


# ------------------------------------------------------------------ driver
def _print(row):
    pos = row.get("positive")
    parts = [f"+{pos:,} -{row['negative']:,}" if pos is not None else
             f"before {row.get('embeddings_before')} after {row.get('embeddings_after')}"]
    for B, r in row["la_gpm"].items():
        parts.append(f"la_gpm {B} " + (f"{r['seconds'] * 1e3:.2f} ms (first {r['first_call_s'] * 1e3:.0f} ms)"
                                       if "seconds" in r else f"TIMED OUT after {r['after_s']:.1f} s"))
    for side, what in (("la_gpm_views", "views"), ("la_gpm_dg", "keep_graph=True")):
        for B, r in (row.get(side) or {}).items():
            pre = r.get("views_preprocessing_s", r.get("preprocessing_s", 0.0))
            irr = f", {r['stats'].get('irrelevant')} irrelevant" if "irrelevant" in r.get("stats", {}) else ""
            parts.append(f"{what} {B} {r['seconds'] * 1e3:.2f} ms (+ build {pre * 1e3:.1f} ms{irr})" if "seconds" in r
                         else f"{what} {B} TIMED OUT after {r['after_s']:.1f} s")
    for B, r in row["recount"].items():
        parts.append(f"recount {B} " + (f"{r['seconds'] * 1e3:.2f} ms" if "seconds" in r
                                        else f"TIMED OUT after {r['after_s']:.1f} s"))
    rf = row.get("rapidflow")
    if rf:
        if rf.get("finished"):
            parts.append(f"RapidFlow query {rf['query_time_s'] * 1e3:.2f} ms + pre {rf['preprocessing_time_s'] * 1e3:.2f}"
                         f" ms (wall {rf['wall_s'] * 1e3:.0f} ms)")
        else:
            parts.append("RapidFlow did not finish")
    print(f"  {tag_of(row)}: " + " | ".join(parts), flush=True)


def bench_dataset(name, args, backends, exe, payload, argv, save):
    rows = payload["rows"]
    G, labels, info = load(name, args.label_seed)
    payload["datasets"][name] = {**info, "n": G.n, "m": G.m, "labels": labels}
    print(f"{name}: n={G.n:,} m={G.m:,} labels={labels}", flush=True)
    bs = batches(G, args)
    with tempfile.TemporaryDirectory(prefix="bench_dynamic_", dir=args.work_dir) as td:
        work = Path(td)
        if exe is not None:
            for j, (rate, G0, ins, dele, Gafter) in enumerate(bs):
                rf_files(work / f"rate{j}", G0, ins, dele)
        for kind in args.kinds:
            for k in args.sizes:
                for i in range(args.queries_per_class):
                    P = dw.random_query(G, k, kind, seed=args.seed * 1000 + i)

                    def base(j, P=P, k=k, i=i, kind=kind):
                        rate, G0, ins, dele, Gafter = bs[j]
                        return base_row(name, G, labels, kind, k, i, P, rate, G0, ins, dele, Gafter)
                    if P is None:
                        for j in range(len(bs)):
                            rows.append({**base(j), "skipped": "no query of this class found"})
                        print(f"  {name} {kind}{k}#{i}: no query of this class found", flush=True)
                        continue
                    if args.no_isolate:
                        got = [run_case(base(j), P, *bs[j][1:], work / f"rate{j}", args, backends, exe)
                               for j in range(len(bs))]
                    else:
                        got = isolated(argv, name, kind, k, i, work, args, len(bs), base)
                    for row in got:
                        if "skipped" not in row:
                            verify(row)
                        speedups(row, args.peer_time_limit)
                        _print(row)
                        rows.append(row)
                    save()


def rf_files(work: Path, G0, ins, dele):
    """RapidFlow inputs of one batch: G0 + delete stream, G0 - del + insert stream."""
    work.mkdir(parents=True, exist_ok=True)
    dw.write_data_graph(G0, work / "g0.graph")
    dw.write_data_graph(dw.apply_batch(G0, [], dele), work / "g0_minus_del.graph")
    if len(dele):
        dw.write_stream([], dele, work / "delete.stream")
    if len(ins):
        dw.write_stream(ins, [], work / "insert.stream")


def resummarize(files):
    for f in files:
        payload = json.loads(Path(f).read_text())
        limit = payload["settings"]["peer_time_limit"]
        for row in payload["rows"]:
            speedups(row, limit)
        payload["summary"] = summarize(payload["rows"])
        Path(f).write_text(json.dumps(payload, indent=1, default=str))
        print(f"{f}:")
        print_summary(payload["summary"], payload["backends"])


@FAMILY.suite("dynamic", gpu="optional", repeats=3,
              quick={"datasets": ["yeast"], "sizes": [4, 6], "rates": [0.02], "queries_per_class": 1, "repeats": 2},
              args=[arg("--datasets", nargs="+", default=list(DATASETS),
                        help=f"{' '.join(DATASETS)} (default) or <graph>-L<k>: holdout/el/<graph>.txt with k random "
                             f"labels, e.g. cit-HepTh-L5 email-Enron-L6"),
                    arg("--label-seed", type=int, default=1, help="seed of the random labels of <graph>-L<k>"),
                    arg("--kinds", nargs="+", default=list(dw.KINDS), choices=list(dw.KINDS)),
                    arg("--sizes", nargs="+", type=int, default=[4, 6, 8]),
                    arg("--queries-per-class", type=int, default=3),
                    arg("--rates", nargs="+", type=float, default=[0.001, 0.02, 0.1]),
                    arg("--insert-share", type=float, default=2 / 3,
                        help="share of the sampled edges that are inserts (1: insert-only, 0: delete-only)"),
                    arg("--seed", type=int, default=0),
                    arg("--recount-repeat", type=int, default=1, help="timed count runs per snapshot after warm-up"),
                    arg("--budget", type=float, default=20.0, help="seconds of timed repeats per call"),
                    arg("--call-limit", type=float, default=10.0,
                        help="no repeats for a call whose first run took longer than this (s)"),
                    arg("--peer-time-limit", type=int, default=60, help="RapidFlow -time_limit per run (s)"),
                    arg("--delta-timeout", type=float, default=300.0,
                        help="kill a match_delta stage (warm-up + repeats, all its calls) after this many seconds"),
                    arg("--recount-timeout", type=float, default=300.0,
                        help="kill a recount stage (both snapshots) after this many seconds"),
                    arg("--startup-timeout", type=float, default=300.0,
                        help="kill a child that starts no stage within this many seconds (loading, batches)"),
                    arg("--no-peer", action="store_true", help="skip RapidFlow"),
                    arg("--gpu-only", action="store_true",
                        help="la_gpm on the GPU alone (no cpu side: the GPU row of a case whose cpu side runs long)"),
                    arg("--views", action="store_true",
                        help="also time DynamicGraph(G0, [Q], keep_graph=False).apply (query views) and "
                             "keep_graph=True .apply, a fresh DynamicGraph per run (built outside the timer)"),
                    arg("--kept", action="store_true",
                        help="also recount K = G0 - delete (the edges of both snapshots) and check positive = "
                             "recount(G') - recount(K) and negative = recount(G0) - recount(K) (not timed in "
                             "the speedups)"),
                    arg("--no-isolate", action="store_true", help="run every case in this process (no timeouts)"),
                    arg("--work-dir", default=None, help="where RapidFlow's input files go (default: system tmp)"),
                    arg("--suffix", default="", help="output file dynamic_<cpu|gpu>_<suffix>.json"),
                    arg("--resummarize", nargs="+", metavar="JSON",
                        help="recompute the speedups and the summary of these result files from their rows, and "
                             "rewrite them (no measurement)"),
                    arg("--note", default="", help="free text recorded in the JSON (e.g. which la_gpm snapshot ran)"),
                    arg("--child", nargs=4, help=SUPPRESS), arg("--work", help=SUPPRESS),
                    arg("--from-rate", type=int, default=0, help=SUPPRESS), arg("--skip", default="", help=SUPPRESS),
                    arg("--peer-exe", default=None, help=SUPPRESS)])
def dynamic(args):
    """Batch-dynamic subgraph matching: match_delta against recounting both snapshots and against RapidFlow
    (see the module docstring: python benchmarks/bench_dynamic.py --help)."""
    if args.resummarize:
        return resummarize(args.resummarize)
    for name in args.datasets:
        try:
            src = dataset_source(name)
        except ValueError as e:
            raise SystemExit(str(e)) from None
        if not src["path"].exists():
            raise SystemExit(f"dataset {name}: {src['path']} does not exist")
    backends = ["gpu"] if args.gpu_only else ["cpu"] + (["gpu"] if args.gpu else [])
    if args.child:  # the parent built (or failed to build) RapidFlow and says which binary to use
        return child(args, backends, None if args.no_peer or not args.peer_exe else Path(args.peer_exe))
    argv = list(args.argv)
    exe, rf_info = None, {"source": str(rapidflow_peer.SRC)}
    if args.no_peer:
        rf_info["skipped"] = "--no-peer"
    else:
        try:
            exe = rapidflow_peer.build()
        except Exception as e:  # noqa: BLE001 -- no cmake / compiler here (GPU machine): run without the peer
            rf_info["skipped"] = f"RapidFlow build failed: {type(e).__name__}: {e}"
            print(rf_info["skipped"], flush=True)
    if exe is not None:
        rf_info.update(binary=str(exe), runs="two per row: the delete stream on G0 (-> negative), the insert stream "
                                             "on G0 - del (-> positive), one update at a time, -num MAX",
                       times={"query_time_s": "sum of its printed 'Query time' over the two runs (stream "
                                              "processing: index updates + enumeration)",
                              "preprocessing_time_s": "its printed 'Preprocessing time' (initial index + "
                                                      "orders) of the run on G0, once (one stream from G0 "
                                                      "needs one)",
                              "wall_s": "both processes, loading included"})
        argv = [*argv, "--peer-exe", str(exe)]
    else:
        argv = [*argv, "--no-peer"]
    tag = ("gpu" if args.gpu or args.gpu_only else "cpu") + (f"_{args.suffix}" if args.suffix else "")
    rec = Record(args, "dynamic", "batch-dynamic subgraph matching (embeddings, non-induced)", tag=tag,
                 backends=backends,
                 settings={k: v for k, v in vars(args).items() if k not in ("child", "work", "from_rate", "skip",
                                                                             "peer_exe", "argv")},
                 note=args.note, omp_wait_policy=os.environ.get("OMP_WAIT_POLICY"), rapidflow=rf_info, datasets={},
                 speedup_definitions={
                     "la_gpm_B_vs_recount_B": "recount seconds (count on G0 + count on G') / match_delta seconds",
                     "la_gpm_B_vs_rapidflow_query": "RapidFlow query_time_s / match_delta seconds",
                     "la_gpm_B_vs_rapidflow_query_plus_preprocessing":
                         "(RapidFlow query_time_s + preprocessing_time_s) / match_delta seconds",
                     "la_gpm_views_B_vs_rapidflow_query": "RapidFlow query_time_s / DynamicGraph(keep_graph=False)"
                                                          ".apply seconds (--views)",
                     "la_gpm_views_B_vs_rapidflow_query_plus_preprocessing":
                         "(RapidFlow query_time_s + preprocessing_time_s) / (views apply + views_preprocessing_s)",
                     "la_gpm_views_B_vs_la_gpm_B": "match_delta seconds / views apply seconds",
                     "la_gpm_views_B_vs_la_gpm_dg_B": "DynamicGraph(keep_graph=True).apply seconds / views apply "
                                                      "seconds",
                     "bound": "'>=': the other side timed out after other_s; '<=': la_gpm timed out after la_gpm_s",
                     "summary": "geomean over rows where both sides finished; faster/slower count every row "
                                "a measurement or a timeout bound decides; undecided: bounds that do not"},
                 summary=[])
    payload = rec.payload
    t0 = time.perf_counter()

    def save(aborted=None):
        payload["elapsed_s"] = time.perf_counter() - t0
        payload["summary"] = summarize(payload["rows"])
        if aborted:
            payload["aborted"] = aborted
        rec.save()
    try:
        for name in args.datasets:
            bench_dataset(name, args, backends, exe, payload, argv, save)
    except (SystemExit, CaseFailed) as e:
        save(aborted=str(e))
        print(f"ABORTED: {e}\n(partial results in {rec.path})", file=sys.stderr, flush=True)
        raise SystemExit(1) from None
    save()
    print_summary(payload["summary"], backends)
    print(f"wrote {rec.path} ({time.perf_counter() - t0:.1f} s)")


@FAMILY.suite(args=[arg("--cases", type=int, default=20)], quick={"cases": 3})
def rapidflow_selftest(a):
    """Build RapidFlow if needed and check its counts against networkx on small random labelled graphs
    (rapidflow_peer.selftest: insert stream = gained, delete stream = lost, mixed = gained + lost; embeddings)."""
    print("binary:", rapidflow_peer.build())
    rapidflow_peer.selftest(a.cases)


if __name__ == "__main__":
    FAMILY.main()
