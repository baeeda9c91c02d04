"""Batch-dynamic matching over a whole update stream: ``DynamicGraph.apply_stream`` against RapidFlow running
the same stream, and against recounting after every batch, measured in the same run.

    python benchmarks/bench_dynamic_stream.py stream --quick          # yeast, k = 4, 100 batches of 0.1%
    python benchmarks/bench_dynamic_stream.py stream                  # yeast, hprd, human, wordnet; k = 4, 6
    python benchmarks/bench_dynamic_stream.py stream --datasets yeast --rate 0.001 --batches 1000

Why a stream.  RapidFlow (VLDB'22, CPU, one thread) is a continuous matcher: it takes a stream of updates and
handles each inside its own C++ loop; its printed "Query time" covers the whole stream.  ``bench_dynamic.py``
times one batch per call, where la_gpm pays a Python call per batch (a few microseconds) against RapidFlow's
1-2 us per update.  Here both sides get the same stream and do all of it: RapidFlow one update at a time,
la_gpm one ``apply_stream`` call that runs the batches in order (the small-batch lane loops over them in
numba).  This is the comparison a user with a stream makes.

Workload (seeded, ``dynamic_workload.py``): per dataset, ``--batches`` B batches of ``--rate`` r |E| updates
each: ``make_batch(G, r B)`` samples r B |E| distinct edges; 2/3 are removed to give G0 and come back as
inserts, the rest are deleted from G0; both lists are cut into B consecutive batches.  RapidFlow's stream file
lists each batch's deletions and then its insertions, so its one printed total equals the sum over batches of
la_gpm's positive + negative exactly (within a batch la_gpm counts the net effect: Neg = |M(G)| - |M(K)|, Pos =
|M(G')| - |M(K)|, K the kept edges, which is what deleting then inserting one at a time reports).  Queries:
random connected subgraphs of G (labels copied), classes dense / sparse / tree, ``--sizes``,
``--queries-per-class`` each, as in ``bench_dynamic.py``.

Per (dataset, query), one row:

* ``rapidflow``: runs over the stream on G0 (as many as ``--repeats``, at most ``--peer-repeats``, each just
  before one of la_gpm_views' timed runs; the run of median query time is reported, ``query_time_runs_s`` all
  of them; ``query_time_s``: its printed Query time, the whole stream; ``preprocessing_time_s``: its initial
  index; ``result_count``; ``paired_ratio_median``: see the speedups).
* ``la_gpm_views``: ``DynamicGraph(G0, [Q], keep_graph=False).apply_stream(ops, batch_size=u)`` (``ops``
  the stream as an (m, 3) array of signed updates, parsed before the timer as RapidFlow loads its stream
  before its query timer; u updates per batch) (query views, as
  RapidFlow keeps only the edges a query can use); ``la_gpm``: the same with ``keep_graph=True`` (the whole
  graph kept, ``.graph`` readable).  A fresh DynamicGraph per timed run, built and given one empty batch
  outside the timer (``preprocessing_s``: its median build time); the first run is the warm-up
  (``first_call_s``), then ``--repeats`` runs, median.
* ``la_gpm_views_apply_loop``: the same views, one ``apply`` per batch (the per-call cost, for reference).
* ``recount``: ``la_gpm.count(G, Q, count="embeddings")`` on G0 and on the final graph; a recount per batch
  costs one count of the current graph, so ``recount_stream_s`` = B x their mean.

Checks (abort on mismatch): sum(positive + negative) == RapidFlow's total (when it finished); sum(positive -
negative) == count(final) - count(G0); apply_stream's per-batch counts == the apply loop's == keep_graph=True's;
the final graph (keep_graph=True) == G0 + inserts - deletes.

Speedups (> 1: la_gpm faster): ``views_vs_rapidflow_query`` = RapidFlow query_time_s / la_gpm_views seconds;
``views_vs_rapidflow_paired``: the median over i of RapidFlow's run i / la_gpm_views' run i (RapidFlow's runs
alternate with la_gpm's timed view runs: run i just before la_gpm's run i);
``views_vs_rapidflow_query_plus_preprocessing`` (both sides' preprocessing added); ``full_vs_rapidflow_query``;
``full_vs_recount`` and ``views_vs_recount`` = recount_stream_s / stream seconds; ``summary``: geometric means
per (dataset, class) and the number of rows where la_gpm is faster.  Writes ``dynamic_stream_cpu.json``.

``--laps n`` (n > 1) adds ``laps`` to each row: the same stream n times over, alternately forward and backward (every
even lap ends on G0), as one ``apply_stream`` call and as one RapidFlow stream, paired as above
(``laps_views_vs_rapidflow_paired``).  Both sides do the row's work n times, so what a cold call costs (RapidFlow's
new process; la_gpm's code and tables out of cache after RapidFlow ran, its Python call) is spread over n x the
updates, as in a long-running stream; the single stream above keeps the cold call.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")   # as bench_dynamic.py: idle OpenMP workers sleep

import numpy as np  # noqa: E402
from harness import Family, Record, arg, check, timeit  # noqa: E402

import la_gpm  # noqa: E402
import dynamic_workload as dw  # noqa: E402
import rapidflow_peer  # noqa: E402
from bench_dynamic import load, same_edges  # noqa: E402

FAMILY = Family(__doc__, default="stream")


def stream_batches(G, rate, B, seed):
    """(G0, [(insert, delete)] * B, all inserts, all deletes, signed ops (m, 3), updates per batch): every batch
    has the same number of inserts and of deletes (the sample trimmed to a multiple of B; a trimmed insert
    stays out of G0)."""
    G0, ins, dele = dw.make_batch(G, rate * B, seed=seed)
    ui, ud = max(1, len(ins) // B), len(dele) // B
    ins, dele = ins[:ui * B], dele[:ud * B]
    batches = [(ins[b * ui:(b + 1) * ui], dele[b * ud:(b + 1) * ud]) for b in range(B)]
    ops = np.concatenate([np.concatenate([np.column_stack([np.full(len(d), -1), d]),
                                          np.column_stack([np.ones(len(i), np.int64), i])]) for i, d in batches])
    return G0, batches, ins, dele, ops.astype(np.int64), ui + ud


def laps(batches, n):
    """The stream run ``n`` times, alternately forward and backward (the batches in reverse order, each one's
    inserts deleted and its deletes inserted), so that every even lap ends on G0 again: [(insert, delete)] and the
    signed ops (m, 3), each batch its deletes then its inserts as :func:`stream_batches`' ops."""
    back = [(d, i) for i, d in reversed(batches)]
    out = [bt for lap in range(n) for bt in (batches if lap % 2 == 0 else back)]
    ops = np.concatenate([np.concatenate([np.column_stack([np.full(len(d), -1), d]),
                                          np.column_stack([np.ones(len(i), np.int64), i])]) for i, d in out])
    return out, ops.astype(np.int64)


def write_stream(batches, path):
    """RapidFlow's stream: per batch its deletions, then its insertions (see the module notes)."""
    with open(path, "w") as f:
        for ins, dele in batches:
            f.write("".join(f"-e {int(u)} {int(v)} 0\n" for u, v in dele.tolist()))
            f.write("".join(f"e {int(u)} {int(v)} 0\n" for u, v in ins.tolist()))


def timed_stream(G0, P, batches, keep_graph, repeats, budget, loop=False, ops=None, per=None, between=None,
                 read=False):
    """(median s, runs, first s, median build s, last result): a fresh DynamicGraph per run, built and warmed
    (one empty batch: its plans) outside the timer.  ``between(i)``: called before timed run i (1, 2, ...), outside
    the timer (the peer's runs, interleaved).  ``read``: the stream's update counts (inserted, deleted, ignored) are
    read inside the timer (the whole graph replays its log of the updates no query can use for them)."""
    builds, runs, first, res = [], [], None, None
    for rep in range(repeats + 1):
        if rep and between is not None:
            between(rep)
        t = time.perf_counter()
        D = la_gpm.DynamicGraph(G0, [P], keep_graph=keep_graph)
        D.apply()
        builds.append(time.perf_counter() - t)
        res = None      # the last run's graph is freed here, not inside the next timer (session 24: its arrays'
        t = time.perf_counter()   # release and the result lists were timed with la_gpm's call, 40-100 us a run)
        if loop:
            out = [D.apply(insert=i, delete=d)[0] for i, d in batches]
        else:
            r = D.apply_stream(ops, batch_size=per)
            if read:
                r.inserted, r.deleted, r.ignored
        el = time.perf_counter() - t
        if loop:
            res = ([o.positive for o in out], [o.negative for o in out], D)
        else:
            res = (r.positive.tolist(), r.negative.tolist(), D, r)
        if rep == 0:         # the warm-up (until session 17 the loop variable was shadowed and it was timed too)
            first = el
            continue
        runs.append(el)
        if sum(runs) > budget:
            break
    return float(np.median(runs or [first])), runs or [first], first, float(np.median(builds)), res


def build_peer():
    """(RapidFlow's binary or None, what the record says of it): built from ``../shared/peers`` where a compiler is."""
    exe, info = None, {"source": str(rapidflow_peer.SRC)}
    try:
        exe = rapidflow_peer.build()
        info["binary"] = str(exe)
    except Exception as e:  # noqa: BLE001 -- no compiler here: the rows say so
        info["skipped"] = f"{type(e).__name__}: {e}"
    return exe, info


def gm(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return float(math.exp(sum(map(math.log, xs)) / len(xs))) if xs else None


@FAMILY.suite(args=[arg("--datasets", nargs="+", default=["yeast", "hprd", "human", "wordnet"]),
                    arg("--sizes", nargs="+", type=int, default=[4, 6]),
                    arg("--queries-per-class", type=int, default=1),
                    arg("--rate", type=float, default=0.001),
                    arg("--batches", type=int, default=100),
                    arg("--seed", type=int, default=1),
                    arg("--peer-time-limit", type=int, default=120),
                    arg("--peer-repeats", type=int, default=5),
                    arg("--budget", type=float, default=20.0),
                    arg("--laps", type=int, default=0,
                        help="also run each row's stream this many times over in one call (forward, backward, ...)"
                             " beside RapidFlow on the same long stream (0: off)")],
              quick={"datasets": ["yeast"], "sizes": [4]}, repeats=3)
def stream(a):
    """la_gpm apply_stream vs RapidFlow on the same update stream, and vs recounting after every batch."""
    exe, rf_info = build_peer()
    rec = Record(a, "dynamic_stream", "batch-dynamic matching over a stream: apply_stream vs RapidFlow vs recount",
                 rapidflow=rf_info, omp_wait_policy=os.environ.get("OMP_WAIT_POLICY"),
                 settings=dict(rate=a.rate, batches=a.batches, sizes=a.sizes, seed=a.seed,
                               queries_per_class=a.queries_per_class, repeats=a.repeats))
    work = Path(tempfile.mkdtemp(prefix="la_gpm_stream_"))
    for name in a.datasets:
        G, labels, src = load(name, 0)
        G0, batches, ins_all, del_all, ops, per = stream_batches(G, a.rate, a.batches, a.seed)
        Gfinal = dw.apply_batch(G0, ins_all, del_all)
        dw.write_data_graph(G0, work / "g0.graph")
        write_stream(batches, work / "stream.txt")
        for kind in dw.KINDS:
            for k in a.sizes:
                for i in range(a.queries_per_class):
                    P = dw.random_query(G, k, kind, seed=a.seed + i)
                    if P is None:
                        continue
                    row = {"dataset": name, "n": G.n, "m": G.m, "labels": labels, "source": src, "query_class": kind,
                           "k": k, "query_index": i, "query_edges": P.edges, "query_labels": P.vertex_labels,
                           "automorphisms": P.automorphism_count, "batches": a.batches, "rate": a.rate,
                           "updates_per_batch": per, "inserts": int(len(ins_all)),
                           "deletes": int(len(del_all))}
                    one(row, P, G0, Gfinal, batches, ops, per, work, exe, a)
                    rec.add(row, echo=brief(row))
    rec["summary"] = summarize(rec.rows)
    for s in rec["summary"]:
        print(s)
    rec.done()


def one(row, P, G0, Gfinal, batches, ops, per, work, exe, a):
    B = len(batches)
    n_rf = max(1, min(a.repeats, a.peer_repeats))
    peer = PeerRuns(exe, work, "stream.txt", a.peer_time_limit, n_rf)
    if exe is not None:
        dw.write_query(P, work / "query.graph")
    sides = {}
    for key, kg, loop, read in (("la_gpm_views", False, False, False), ("la_gpm", True, False, False),
                                ("la_gpm_counts_read", True, False, True),
                                ("la_gpm_views_apply_loop", False, True, False)):
        med, runs, first, build, res = timed_stream(G0, P, batches, kg, a.repeats, a.budget, loop=loop, ops=ops,
                                                    per=per, between=peer if key == "la_gpm_views" else None,
                                                    read=read)
        sides[key] = res
        ent = {"seconds": med, "per_batch_s": med / B, "runs": runs, "first_call_s": first, "preprocessing_s": build,
               "positive": int(sum(res[0])), "negative": int(sum(res[1]))}
        if not loop:
            ent["lane_batches"] = int(res[3].lane_batches)
        row[key] = ent
        if key == "la_gpm_views":
            peer.rest()     # la_gpm's budget cut its runs short: RapidFlow's still run, after them
    if exe is not None:
        row["rapidflow"] = peer_summary(peer.runs, row["la_gpm_views"]["runs"])
    pos, neg = sides["la_gpm_views"][0], sides["la_gpm_views"][1]
    if a.laps > 1:
        row["laps"] = long_stream((pos, neg), P, G0, batches, per, work, exe, a, n_rf)
    for key in ("la_gpm", "la_gpm_counts_read", "la_gpm_views_apply_loop"):
        check(f"{key} per-batch counts == apply_stream views", (sides[key][0], sides[key][1]), (pos, neg))
    check("final graph == G0 + inserts - deletes", same_edges(sides["la_gpm"][2].graph, Gfinal), True)
    r = sides["la_gpm"][3]
    check("whole graph: sum(inserted - deleted) == m(final) - m(G0)", int(r.inserted.sum() - r.deleted.sum()),
          Gfinal.m - G0.m)
    before, tb, _ = timeit(lambda: la_gpm.count(G0, P, count="embeddings"), repeat=a.repeats, budget_s=a.budget)
    after, ta, _ = timeit(lambda: la_gpm.count(Gfinal, P, count="embeddings"), repeat=a.repeats, budget_s=a.budget)
    c0 = la_gpm.count(G0, P, count="embeddings")
    c1 = la_gpm.count(Gfinal, P, count="embeddings")
    row["recount"] = {"before_s": before, "after_s": after, "per_batch_s": (before + after) / 2,
                      "recount_stream_s": B * (before + after) / 2, "count_before": int(c0), "count_after": int(c1)}
    check("sum(positive - negative) == count(final) - count(G0)", sum(pos) - sum(neg), int(c1) - int(c0))
    rf = row.get("rapidflow")
    if rf and rf.get("finished"):
        check("sum(positive + negative) == RapidFlow's total", sum(pos) + sum(neg), rf["result_count"])
    sp = {"views_vs_recount": row["recount"]["recount_stream_s"] / row["la_gpm_views"]["seconds"],
          "full_vs_recount": row["recount"]["recount_stream_s"] / row["la_gpm"]["seconds"],
          "views_vs_apply_loop": row["la_gpm_views_apply_loop"]["seconds"] / row["la_gpm_views"]["seconds"]}
    if rf and rf.get("finished"):
        q, pre = rf["query_time_s"], rf["preprocessing_time_s"]
        sp["views_vs_rapidflow_query"] = q / row["la_gpm_views"]["seconds"]
        if rf.get("paired_ratio_median") is not None:     # the median of RapidFlow run i / la_gpm run i
            sp["views_vs_rapidflow_paired"] = rf["paired_ratio_median"]
        sp["full_vs_rapidflow_query"] = q / row["la_gpm"]["seconds"]
        sp["full_counts_read_vs_rapidflow_query"] = q / row["la_gpm_counts_read"]["seconds"]
        sp["views_vs_rapidflow_query_plus_preprocessing"] = (q + pre) / (row["la_gpm_views"]["seconds"]
                                                                         + row["la_gpm_views"]["preprocessing_s"])
    lp = row.get("laps") or {}
    if lp.get("views_vs_rapidflow_paired") is not None:
        sp["laps_views_vs_rapidflow_paired"] = lp["views_vs_rapidflow_paired"]
    row["speedups"] = sp


class PeerRuns:
    """RapidFlow's runs over ``work / stream`` (G0 and the query written there), called as ``between(i)`` of
    :func:`timed_stream`: run i just before la_gpm's timed run i (session 24), so that a slow phase of this shared
    machine falls on both (RapidFlow's median on yeast dense4 was 111 us in one run and 185 us in the next, all its
    runs before all of la_gpm's); at most ``n`` runs, none after one that did not finish.  ``rest()`` runs the ones
    la_gpm's time budget left out, after them."""

    def __init__(self, exe, work, stream, time_limit, n):
        self.exe, self.work, self.stream, self.time_limit, self.n = exe, work, stream, time_limit, n
        self.runs = []

    def __call__(self, i):
        if self.exe is not None and i <= self.n and (not self.runs or self.runs[-1].get("finished")):
            self.runs.append(rapidflow_peer.run(self.work / "g0.graph", self.work / "query.graph",
                                                self.work / self.stream, self.time_limit, exe=self.exe))

    def rest(self):
        while self.exe is not None and len(self.runs) < self.n and (not self.runs or self.runs[-1].get("finished")):
            self(len(self.runs) + 1)


def peer_summary(rfs, lv):
    """RapidFlow's runs ``rfs``, each just before la_gpm's timed run of the same index (``lv``: their seconds): the
    run of median query time, every run's query time (one run, as until session 17, left RapidFlow's noise in every
    ratio), and the median of the paired ratios RapidFlow run i / la_gpm run i."""
    done = [x for x in rfs if x.get("finished")]
    rf = sorted(done, key=lambda x: x["query_time_s"])[(len(done) - 1) // 2] if done else rfs[-1]
    out = {k: rf.get(k) for k in ("finished", "result_count", "query_time_s", "preprocessing_time_s", "search_time_s",
                                  "load_stream_time_s", "wall_s", "timed_out", "log_tail") if k in rf}
    out["query_time_runs_s"] = [x.get("query_time_s") for x in rfs]
    pairs = [x["query_time_s"] / t for x, t in zip(rfs, lv) if x.get("finished")]
    out["paired_runs"] = len(pairs)
    out["paired_ratio_median"] = float(np.median(pairs)) if pairs else None
    return out


def long_stream(counts, P, G0, batches, per, work, exe, a, n_rf):
    """``--laps`` n: the row's stream n times over, alternately forward and backward (:func:`laps`), as one
    ``apply_stream`` call on a fresh query view and as one RapidFlow stream file, paired as the row's runs.  The
    same work on both sides, n times longer: what a cold call costs (a new process for RapidFlow, code and tables
    out of cache after it for la_gpm) is spread over n x the updates, as in a long-running stream.  Checked: each
    forward lap's per-batch counts are the row's, each backward lap's are a forward lap's with positive and
    negative swapped, in reverse batch order (``counts``: the single stream's per-batch positive and negative); the
    net is 0 for an even n; positive + negative == RapidFlow's total."""
    n = a.laps
    lb, lops = laps(batches, n)
    write_stream(lb, work / "stream_laps.txt")
    peer = PeerRuns(exe, work, "stream_laps.txt", a.peer_time_limit, n_rf)
    med, runs, first, build, res = timed_stream(G0, P, lb, False, a.repeats, a.budget, ops=lops, per=per,
                                                between=peer)
    peer.rest()
    B = len(batches)
    pos, neg = np.asarray(res[0], dtype=object), np.asarray(res[1], dtype=object)
    fp, fn = np.asarray(counts[0], dtype=object), np.asarray(counts[1], dtype=object)
    for lap in range(n):
        p, q = pos[lap * B:(lap + 1) * B], neg[lap * B:(lap + 1) * B]
        want = (fp, fn) if lap % 2 == 0 else (fn[::-1], fp[::-1])
        check(f"lap {lap}: per-batch counts == the single stream's", (p.tolist(), q.tolist()),
              (want[0].tolist(), want[1].tolist()))
    if n % 2 == 0:
        check("laps: sum(positive - negative) == 0", int(sum(pos) - sum(neg)), 0)
    ent = {"laps": n, "batches": len(lb), "updates": int(lops.shape[0]),
           "la_gpm_views": {"seconds": med, "per_update_s": med / lops.shape[0], "runs": runs, "first_call_s": first,
                            "preprocessing_s": build, "positive": int(sum(pos)), "negative": int(sum(neg)),
                            "lane_batches": int(res[3].lane_batches)}}
    if exe is not None:
        rf = ent["rapidflow"] = peer_summary(peer.runs, runs)
        if rf.get("finished"):
            check("laps: sum(positive + negative) == RapidFlow's total", int(sum(pos) + sum(neg)), rf["result_count"])
            ent["views_vs_rapidflow_query"] = rf["query_time_s"] / med
            ent["views_vs_rapidflow_paired"] = rf["paired_ratio_median"]
    return ent


@FAMILY.suite(args=[arg("--datasets", nargs="+", default=["yeast", "hprd"]),
                    arg("--sizes", nargs="+", type=int, default=[4, 6]),
                    arg("--rate", type=float, default=0.001),
                    arg("--batches", type=int, default=100),
                    arg("--seed", type=int, default=1),
                    arg("--idle", type=float, default=0.02, help="seconds asleep before an after_idle run"),
                    arg("--peer-time-limit", type=int, default=120)],
              quick={"datasets": ["yeast"], "sizes": [4]}, repeats=15)
def cold(a):
    """Where a light row's time goes: the ``stream`` suite's row (the same stream, query and views) through
    ``apply_stream`` in three states of the machine, and an empty stream (the fixed cost of a call) in the same
    states, runs interleaved (rep by rep: state by state, the stream then the empty one), a fresh DynamicGraph built
    and given one empty batch before each timer as in ``stream``:

    * ``after_peer``: RapidFlow's run of the row just before (``stream``'s pairing; its query times recorded);
    * ``after_idle``: this process asleep ``--idle`` s just before, nothing else run;
    * ``warm``: the same stream (or the empty one) through another DynamicGraph just before.

    RapidFlow's query timer starts in its own process after it loaded the graph and stream and built its index, so
    its caches hold what its loop reads; la_gpm's call starts after the peer's process or a pause (core caches cold:
    the code of the Python call and of the lane, the stream array, the tables).  The ratios per state (RapidFlow
    query time / la_gpm, > 1: la_gpm faster) separate the cost of a cold call from the per-update work."""
    exe, rf_info = build_peer()
    rec = Record(a, "dynamic_stream_cold", "apply_stream after a peer's run, after an idle pause and warm; the empty "
                 "stream's floor; RapidFlow beside", rapidflow=rf_info, omp_wait_policy=os.environ.get("OMP_WAIT_POLICY"),
                 settings=dict(rate=a.rate, batches=a.batches, sizes=a.sizes, seed=a.seed, idle_s=a.idle,
                               repeats=a.repeats))
    work = Path(tempfile.mkdtemp(prefix="la_gpm_cold_"))
    states = ("after_peer", "after_idle", "warm")
    for name in a.datasets:
        G, labels, src = load(name, 0)
        G0, batches, ins_all, del_all, ops, per = stream_batches(G, a.rate, a.batches, a.seed)
        empty = ops[:0].copy()
        dw.write_data_graph(G0, work / "g0.graph")
        write_stream(batches, work / "stream.txt")
        for kind in dw.KINDS:
            for k in a.sizes:
                P = dw.random_query(G, k, kind, seed=a.seed)
                if P is None:
                    continue
                if exe is not None:
                    dw.write_query(P, work / "query.graph")
                rf_runs, t = [], {(st, w): [] for st in states for w in ("stream", "empty")}
                want = None
                for rep in range(a.repeats + 1):
                    for st in states:
                        for w, o in (("stream", ops), ("empty", empty)):
                            if st == "after_peer" and exe is not None:
                                r = rapidflow_peer.run(work / "g0.graph", work / "query.graph", work / "stream.txt",
                                                       a.peer_time_limit, exe=exe)
                                if w == "stream" and rep:
                                    rf_runs.append(r)
                            elif st == "after_idle":
                                time.sleep(a.idle)
                            elif st == "warm":
                                D = la_gpm.DynamicGraph(G0, [P], keep_graph=False)
                                D.apply()
                                D.apply_stream(o, batch_size=per)
                            D = la_gpm.DynamicGraph(G0, [P], keep_graph=False)
                            D.apply()
                            t0 = time.perf_counter()
                            res = D.apply_stream(o, batch_size=per)
                            el = time.perf_counter() - t0
                            if rep:             # rep 0: the warm-up (compilation)
                                t[st, w].append(el)
                            if w == "stream":
                                got = (res.positive.tolist(), res.negative.tolist())
                                check(f"{st}: the same counts in every state and run", got, want or got)
                                want = got
                row = {"dataset": name, "n": G.n, "m": G.m, "labels": labels, "source": src, "query_class": kind,
                       "k": k, "query_edges": P.edges, "query_labels": P.vertex_labels, "batches": a.batches,
                       "updates_per_batch": per, "updates": int(ops.shape[0]),
                       "positive": int(sum(want[0])), "negative": int(sum(want[1]))}
                for (st, w), xs in t.items():
                    row[f"{w}_{st}_s"] = float(np.median(xs))
                    row[f"{w}_{st}_runs"] = xs
                done = [r for r in rf_runs if r.get("finished")]
                if done:
                    q = float(np.median([r["query_time_s"] for r in done]))
                    check("positive + negative == RapidFlow's total", row["positive"] + row["negative"],
                          done[0]["result_count"])
                    row["rapidflow_query_s"] = q
                    row["rapidflow_query_runs"] = [r["query_time_s"] for r in done]
                    row["rapidflow_vs_la_gpm"] = {st: q / row[f"stream_{st}_s"] for st in states}
                rec.add(row, echo=(f"{name} {kind}{k}: stream " + ", ".join(
                    f"{st} {row[f'stream_{st}_s'] * 1e6:.0f}" for st in states) + " us; empty " + ", ".join(
                    f"{st} {row[f'empty_{st}_s'] * 1e6:.0f}" for st in states) + " us; RapidFlow "
                    f"{row.get('rapidflow_query_s', float('nan')) * 1e6:.0f} us"))
    summary = {}
    for st in states:
        xs = [r["rapidflow_vs_la_gpm"][st] for r in rec.rows if "rapidflow_vs_la_gpm" in r]
        if xs:
            summary[st] = {"geomean": gm(xs), "faster": sum(x > 1 for x in xs), "slower": sum(x <= 1 for x in xs)}
    rec["summary"] = summary
    print(summary)
    rec.done()


def peer_once(exe, work, G0, batches, P, limit, row, key, seconds):
    """RapidFlow once over the stream ``batches`` on G0 (files written to ``work``) into ``row["rapidflow"]``; where it
    finished, its total checked against the row's positive + negative and ``row[key]`` = its query time / ``seconds``."""
    dw.write_data_graph(G0, work / "g0.graph")
    write_stream(batches, work / "stream.txt")
    dw.write_query(P, work / "query.graph")
    rf = row["rapidflow"] = rapidflow_peer.run(work / "g0.graph", work / "query.graph", work / "stream.txt", limit,
                                               exe=exe)
    if rf.get("finished"):
        check("positive + negative == RapidFlow's total", row["positive"] + row["negative"], rf["result_count"])
        row[key] = rf["query_time_s"] / seconds


TWIN_QUERIES = {"star5": [(0, i) for i in range(1, 6)],
                "book4": [(0, 1)] + [(0, i) for i in range(2, 6)] + [(1, i) for i in range(2, 6)],
                "k2,4": [(0, i) for i in range(2, 6)] + [(1, i) for i in range(2, 6)]}


@FAMILY.suite(args=[arg("--cases", nargs="+", default=["wordnet:dense:6", "wordnet:dense:8", "graph500-11:star5",
                                                        "graph500-11:book4", "graph500-11:k2,4"],
                        help="DATASET:CLASS:K (a random query of the stream suite) or graph500-S:NAME (unlabelled)"),
                    arg("--rate", type=float, default=0.001),
                    arg("--batches", type=int, default=100),
                    arg("--seed", type=int, default=1),
                    arg("--peer-time-limit", type=int, default=120)],
              quick={"cases": ["graph500-9:book4"], "batches": 10, "repeats": 2}, repeats=5)
def twins(a):
    """Twin levels counted (``query.TWINS``, F_TWIN: C(c, r) from one level's set) against enumerated, on queries
    that have them: per case, one stream of ``--batches`` batches of ``--rate`` |E| updates through
    ``apply_stream`` (query views), twins on and off alternating run by run in one process (a fresh DynamicGraph
    each, its plans compiled with the setting), the counts checked equal and their net against the static recount;
    one recount of G0 (``la_gpm.count``); RapidFlow beside on the labelled datasets (its query time on the same
    stream)."""
    from la_gpm.dynamic import query as Q
    from la_gpm.patterns import Pattern
    exe, rf_info = build_peer()
    rec = Record(a, "dynamic_twins", "twin levels counted against enumerated (apply_stream, query views); the "
                 "recount and RapidFlow beside", rapidflow=rf_info, omp_wait_policy=os.environ.get("OMP_WAIT_POLICY"),
                 settings=dict(rate=a.rate, batches=a.batches, seed=a.seed, repeats=a.repeats))
    work = Path(tempfile.mkdtemp(prefix="la_gpm_twins_"))
    for case in a.cases:
        parts = case.split(":")
        if parts[0].startswith("graph500-"):
            G = la_gpm.generators.graph500(int(parts[0].split("-")[1]))
            G = la_gpm.Graph(G.indptr, G.indices, vertex_labels=np.zeros(G.n, np.int64))   # one label (RapidFlow's)
            P, labels, src = Pattern(TWIN_QUERIES[parts[1]], vertex_labels=None), 1, {"generator": parts[0]}
            B = min(a.batches, 20)
        else:
            G, labels, src = load(parts[0], 0)
            P = dw.random_query(G, int(parts[2]), parts[1], seed=a.seed)
            B = a.batches
        G0, batches, _, _, ops, per = stream_batches(G, a.rate, B, a.seed)
        t, got = {True: [], False: []}, {}
        for rep in range(a.repeats + 1):
            for on in (True, False):
                Q.TWINS = on
                try:
                    D = la_gpm.DynamicGraph(G0, [P], keep_graph=False)
                    D.apply()
                    t0 = time.perf_counter()
                    r = D.apply_stream(ops, batch_size=per)
                    el = time.perf_counter() - t0
                finally:
                    Q.TWINS = True
                if rep:
                    t[on].append(el)
                got[on] = (r.positive.tolist(), r.negative.tolist())
        check("twins counted == twins enumerated, batch by batch", got[True], got[False])
        plan = Q.compile_delta_plan(P)
        _, tc, c0 = timeit(lambda: la_gpm.count(G0, P, count="embeddings"), repeat=max(1, a.repeats // 2),
                           budget_s=60)
        Df = la_gpm.DynamicGraph(G0, [P])
        Df.apply_stream(ops, batch_size=per)
        check("sum(positive - negative) == count(final) - count(G0)", sum(got[True][0]) - sum(got[True][1]),
              int(la_gpm.count(Df.graph, P, count="embeddings")) - int(c0))
        row = {"case": case, "dataset": parts[0], "n": G.n, "m": G.m, "labels": labels, "source": src,
               "query_edges": P.edges, "query_labels": P.vertex_labels, "automorphisms": P.automorphism_count,
               "twin_plans": plan.twin.tolist(), "batches": B, "updates_per_batch": per,
               "positive": int(sum(got[True][0])), "negative": int(sum(got[True][1])),
               "twins_s": float(np.median(t[True])), "twins_runs": t[True],
               "enumerated_s": float(np.median(t[False])), "enumerated_runs": t[False],
               "recount_one_s": float(np.median(tc)), "recount_runs": tc}
        row["twins_vs_enumerated"] = row["enumerated_s"] / row["twins_s"]
        row["twins_vs_recount"] = B * row["recount_one_s"] / row["twins_s"]
        if exe is not None and labels > 1:
            peer_once(exe, work, G0, batches, P, a.peer_time_limit, row, "twins_vs_rapidflow", row["twins_s"])
        rec.add(row, echo=f"{case}: twins {row['twins_s'] * 1e3:.2f} ms, enumerated {row['enumerated_s'] * 1e3:.2f} ms "
                          f"({row['twins_vs_enumerated']:.2f}x); recount x{B} {row['twins_vs_recount']:.1f}x"
                          + (f"; RapidFlow {row['rapidflow']['query_time_s'] * 1e3:.2f} ms"
                             if row.get("rapidflow", {}).get("finished") else ""))
    rec.done()


@FAMILY.suite(args=[arg("--cases", nargs="+", default=["human:tree:8:100", "human:tree:6:100", "human:sparse:8:10",
                                                        "wordnet:sparse:8:10", "wordnet:tree:8:10"],
                        help="DATASET:CLASS:K:BATCHES (a random query of the stream suite, seed --seed)"),
                    arg("--rate", type=float, default=0.001),
                    arg("--seed", type=int, default=1),
                    arg("--peer-time-limit", type=int, default=300)],
              quick={"cases": ["yeast:tree:8:10"]}, repeats=1)
def single(a):
    """Rows too heavy for the ``stream`` suite's repeats and recounts (k = 8): per case, one stream through
    ``apply_stream`` (query views) after a warm-up batch on another DynamicGraph, and RapidFlow once on the same
    stream; positive + negative checked against RapidFlow's total."""
    exe, rf_info = build_peer()
    rec = Record(a, "dynamic_single", "one stream a case beside RapidFlow (k = 8 rows)", rapidflow=rf_info,
                 omp_wait_policy=os.environ.get("OMP_WAIT_POLICY"), settings=dict(rate=a.rate, seed=a.seed))
    work = Path(tempfile.mkdtemp(prefix="la_gpm_single_"))
    for case in a.cases:
        name, kind, k, B = case.split(":")
        G, labels, src = load(name, 0)
        G0, batches, _, _, ops, per = stream_batches(G, a.rate, int(B), a.seed)
        P = dw.random_query(G, int(k), kind, seed=a.seed)
        W = la_gpm.DynamicGraph(G0, [P], keep_graph=False)
        W.apply()
        W.apply_stream(ops[:per], batch_size=per)          # the warm-up (compilation, first loads)
        D = la_gpm.DynamicGraph(G0, [P], keep_graph=False)
        D.apply()
        t0 = time.perf_counter()
        r = D.apply_stream(ops, batch_size=per)
        el = time.perf_counter() - t0
        row = {"case": case, "dataset": name, "n": G.n, "m": G.m, "labels": labels, "source": src, "query_class": kind,
               "k": int(k), "query_edges": P.edges, "query_labels": P.vertex_labels, "batches": int(B),
               "updates_per_batch": per, "la_gpm_views_s": el, "positive": int(r.positive.sum()),
               "negative": int(r.negative.sum())}
        if exe is not None:
            peer_once(exe, work, G0, batches, P, a.peer_time_limit, row, "rapidflow_vs_la_gpm", el)
        rec.add(row, echo=f"{case}: la_gpm {el * 1e3:.1f} ms; RapidFlow "
                          + (f"{row['rapidflow']['query_time_s'] * 1e3:.1f} ms ({row['rapidflow_vs_la_gpm']:.2f})"
                             if row.get("rapidflow", {}).get("finished") else "not run / not finished"))
    rec.done()


def brief(row):
    sp = row["speedups"]
    rf = row.get("rapidflow") or {}
    return (f"{row['dataset']} {row['query_class']}{row['k']}: views {row['la_gpm_views']['per_batch_s'] * 1e6:.1f} "
            f"us/batch, full {row['la_gpm']['per_batch_s'] * 1e6:.1f}, loop "
            f"{row['la_gpm_views_apply_loop']['per_batch_s'] * 1e6:.1f}; RapidFlow "
            f"{(rf.get('query_time_s') or float('nan')) / row['batches'] * 1e6:.1f} us/batch; recount "
            f"{row['recount']['per_batch_s'] * 1e3:.2f} ms/batch; x RF {sp.get('views_vs_rapidflow_query', 0):.2f}, "
            f"(paired {sp.get('views_vs_rapidflow_paired') or 0:.2f}), x recount {sp['views_vs_recount']:.0f} "
            f"(full {sp['full_vs_recount']:.0f})"
            + (f"; {row['laps']['laps']} laps: {row['laps']['la_gpm_views']['per_update_s'] * 1e9:.0f} ns/update, x RF "
               f"paired {sp['laps_views_vs_rapidflow_paired']:.2f}" if "laps_views_vs_rapidflow_paired" in sp else ""))


def summarize(rows):
    out = []
    keys = ("views_vs_rapidflow_query", "views_vs_rapidflow_paired", "laps_views_vs_rapidflow_paired",
            "full_vs_rapidflow_query", "full_counts_read_vs_rapidflow_query",
            "views_vs_rapidflow_query_plus_preprocessing",
            "views_vs_recount", "full_vs_recount", "views_vs_apply_loop")
    groups = {}
    for r in rows:
        groups.setdefault((r["dataset"], r["query_class"]), []).append(r)
    for (ds, cls), rs in groups.items():
        ent = {"dataset": ds, "query_class": cls, "rows": len(rs)}
        for k in keys:
            xs = [r["speedups"].get(k) for r in rs if r["speedups"].get(k) is not None]
            if xs:
                ent[k] = {"geomean": gm(xs), "faster": sum(x > 1 for x in xs), "slower": sum(x <= 1 for x in xs)}
        out.append(ent)
    return out


if __name__ == "__main__":
    FAMILY.main()
