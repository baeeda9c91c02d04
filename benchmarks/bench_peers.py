"""la_gpm beside the GPU peers, built and run in the same benchmark run, on the same graphs.

    python benchmarks/bench_peers.py g2miner [--quick] [--tasks triangle,4-clique,...] [--graphs ...]
    python benchmarks/bench_peers.py first_call [--repeats 3]     # a new process's first GPU call

``g2miner``: G2Miner (``g2miner_peer.py``) is built from ``../shared/peers`` for this machine's GPU, each graph is
written in its binary CSR format, and for every (task, graph) row both count the same thing, checked equal:

* la_gpm: the whole public call (``la_gpm.count(G, "4-clique", backend="gpu")``, ``la_gpm.census(G, 4,
  backend="gpu")``), median after a warm-up, the device synchronised around each call; and its breakdown:
  every la_gpm kernel launch of one call timed by CUDA events around it (``kernel_s``: their sum; ``launches``),
  and ``host_s`` = the whole call - ``kernel_s`` (validation, engine choice, cached arrays, launch overheads,
  synchronisations, read-backs, CuPy's own small kernels);
* G2Miner: its own kernel timer (one launch between two device synchronisations, module loaded eagerly),
  median over processes, and the process's wall time (read, orient on the host, copy, kernel);
* counts: la_gpm's is checked against its CPU backend's on graphs of up to 10^6 edges (the run stops on a
  difference); G2Miner's is compared
  and a difference is recorded in the row (``count_equal``, ``g2miner_count``) and printed, not fatal;
* ``ratio`` = la_gpm whole call / G2Miner kernel (<= 1: la_gpm ahead even counting its whole call);
  ``kernel_ratio`` = la_gpm kernels / G2Miner kernel.

Tasks: ``triangle``, ``K-clique`` (K = 4..8), ``census3``, ``census4`` (vertex-induced classes; G2Miner's motif
binary).  Each task runs on the graphs its row set names (``ROWS``) unless ``--graphs`` is given.

``first_call``: a new Python process (import la_gpm, read email-Eu-core, first GPU count, second count) with
CuPy's kernel cache (``CUPY_CACHE_DIR``) and numba's cache empty (cold: every kernel compiled) and then filled
(warm: the next process on the same machine), for triangles, 4-cliques and the 4-vertex census.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import HOLDOUT, ROOT, Family, Record, arg, check, graph, split_names, timeit

FAMILY = Family(__doc__, default="g2miner")

# task -> graphs of its rows (the table, and the peer's other published tasks)
ROWS = {"triangle": "email-Enron,R-MAT 20,R-MAT 22",
        "4-clique": "email-Enron,R-MAT 20", "5-clique": "email-Enron,R-MAT 20",
        "census4": "email-Enron,citeseer,R-MAT 16", "census3": "email-Enron,citeseer,R-MAT 16",
        "6-clique": "email-Enron,wiki-Vote", "7-clique": "email-Enron,wiki-Vote", "8-clique": "email-Enron,wiki-Vote"}
CPU_CHECK_EDGES = 1_000_000   # la_gpm's GPU count is checked against its CPU backend on graphs up to this size
QUICK = {"tasks": "triangle,4-clique,census4", "graphs": "karate"}


def load(name):
    import la_gpm
    if name == "email-Enron":
        return la_gpm.read_graph(HOLDOUT / "el" / "email-Enron.txt")
    return graph(name)


# ------------------------------------------------------------------ la_gpm's breakdown
class KernelTimer:
    """Times every la_gpm kernel launch by CUDA events on the current stream: wraps ``la_gpm.device.kernel``
    (and the name each family imported) so each launch records an event before and after it."""

    def __init__(self):
        import la_gpm.device as dev
        self.dev, self.orig, self.events, self.on = dev, dev.kernel, [], False
        timer = self

        class Timed:
            def __init__(self, f):
                object.__setattr__(self, "f", f)

            def __call__(self, *a, **kw):
                if not timer.on:
                    return self.f(*a, **kw)
                import cupy as cp
                s, e = cp.cuda.Event(), cp.cuda.Event()
                s.record()
                r = self.f(*a, **kw)
                e.record()
                timer.events.append((s, e))
                return r

            def __getattr__(self, k):
                return getattr(self.f, k)

            def __setattr__(self, k, v):
                setattr(self.f, k, v)

        def kernel(*a, **kw):
            return Timed(timer.orig(*a, **kw))
        self.kernel = kernel
        self.patched = []
        for name, mod in list(sys.modules.items()):
            if name.startswith("la_gpm") and getattr(mod, "kernel", None) is self.orig:
                self.patched.append(mod)
                mod.kernel = kernel

    def measure(self, fn, repeat=5):
        """(median kernel seconds per call, launches per call) over ``repeat`` calls of ``fn``."""
        import cupy as cp
        sums, n = [], 0
        for _ in range(repeat):
            self.events, self.on = [], True
            fn()
            self.on = False
            cp.cuda.Device().synchronize()
            sums.append(sum(cp.cuda.get_elapsed_time(s, e) for s, e in self.events) / 1e3)
            n = len(self.events)
        return statistics.median(sums), n


def la_gpm_call(task, G, backend="gpu"):
    """The public call a user makes (what is timed): a count, or the census DataFrame."""
    import la_gpm
    if task.startswith("census"):
        k = int(task[-1])
        return lambda: la_gpm.census(G, k, backend=backend)
    return lambda: la_gpm.count(G, task, backend=backend)


def counts_of(result):
    """A count, or {class name: count} of a census DataFrame (outside the clock)."""
    if hasattr(result, "iterrows"):
        return {name: int(c) for name, c in zip(result["name"], result["count"])}
    return result


def g2miner_task(task):
    if task == "triangle":
        return "triangle", None
    if task.endswith("-clique"):
        return "clique", int(task.split("-")[0])
    return "motif", int(task[-1])


@FAMILY.suite(gpu="only", quick=QUICK,
              args=[arg("--tasks", type=split_names, default=list(ROWS), help="comma separated tasks (default: all)"),
                    arg("--graphs", type=split_names, default=None, help="override the graphs of every task"),
                    arg("--peer-repeats", type=int, default=3, help="G2Miner processes per row (median)"),
                    arg("--peer-timeout", type=float, default=120.0, help="seconds before a G2Miner run is killed"),
                    arg("--repeats", type=int, default=20, help="timed la_gpm calls per row (median)")])
def g2miner(a):
    """la_gpm's whole GPU call beside G2Miner's kernel timer: triangles, k-cliques, 3- and 4-vertex census."""
    import g2miner_peer as g2m
    import la_gpm.kcliques.gpu  # noqa: F401 -- imported before the kernel timer wraps their kernel()
    import la_gpm.motifs.gpu  # noqa: F401
    import la_gpm.triangles.gpu  # noqa: F401
    timer = KernelTimer()
    rec = Record(a, "peers_g2miner", "la_gpm (whole call) beside G2Miner (its kernel timer), one run, same graphs")
    info = g2m.build()
    rec["g2miner_build"] = {"seconds": round(info["seconds"], 1), "source": str(g2m.SRC)}
    print(f"G2Miner built in {info['seconds']:.1f} s", flush=True)
    graphs, files = {}, {}
    work = Path(tempfile.mkdtemp(prefix="g2m_graphs_"))
    for task in a.tasks:
        if task not in ROWS:
            raise SystemExit(f"unknown task {task!r}; tasks: {', '.join(ROWS)}")
        for gname in (a.graphs or split_names(ROWS[task])):
            if gname not in graphs:
                t = time.perf_counter()
                graphs[gname] = load(gname)
                files[gname] = g2m.write_graph(graphs[gname], work / gname.replace(" ", "_").replace("(", "").replace(")", ""))
                print(f"{gname}: n={graphs[gname].n} m={graphs[gname].m} read and written for G2Miner in "
                      f"{time.perf_counter() - t:.1f} s", flush=True)
            G = graphs[gname]
            row = {"task": task, "graph": gname, "n": G.n, "m": G.m}
            kind, k = g2miner_task(task)
            peer = g2m.run(kind, files[gname], k, repeat=a.peer_repeats, timeout=a.peer_timeout)
            fn = la_gpm_call(task, G)
            med, runs, got = timeit(fn, repeat=a.repeats, warmup=2, sync=True, budget_s=20.0)
            got = counts_of(got)
            if G.m <= CPU_CHECK_EDGES:
                cpu = counts_of(la_gpm_call(task, G, "cpu")())
                check(f"{task}/{gname} gpu vs cpu", got, cpu)
                row["cpu_checked"] = True
            ks, launches = timer.measure(fn, repeat=min(5, max(1, len(runs))))
            row.update(count=got if not isinstance(got, dict) else sum(got.values()), la_gpm_s=med, la_gpm_runs=runs,
                       kernel_s=ks, launches=launches, host_s=max(0.0, med - ks))
            if "skipped" in peer:
                row["g2miner"] = peer["skipped"]
            else:
                row["count_equal"] = got == peer["count"]
                if not row["count_equal"]:   # recorded, not fatal: the peer's count is the suspect; the row says so
                    row["g2miner_count"] = peer["count"]
                    print(f"COUNT MISMATCH {task}/{gname}: la_gpm {got}, G2Miner {peer['count']}", flush=True)
                row.update(g2miner_kernel_s=peer["kernel_s"], g2miner_runs=peer["kernel_runs"],
                           g2miner_process_s=peer["process_s"], ratio=med / peer["kernel_s"],
                           kernel_ratio=ks / peer["kernel_s"])
            if isinstance(got, dict):
                row["counts"] = got
            rec.add(row, echo=f"{task:9s} {gname:12s} la_gpm {med * 1e3:10.3f} ms (kernels {ks * 1e3:9.3f} ms, "
                              f"{launches} launches)  G2Miner "
                              + (f"{peer['kernel_s'] * 1e3:10.3f} ms  ratio {med / peer['kernel_s']:.2f}"
                                 if "skipped" not in peer else peer["skipped"]))
    rec.done()


# ------------------------------------------------------------------ host path profile
@FAMILY.suite(gpu="only",
              args=[arg("--rows", type=split_names, default=["triangle:email-Enron", "4-clique:email-Enron",
                                                            "census3:citeseer", "census4:citeseer",
                                                            "triangle:citeseer"]),
                    arg("--calls", type=int, default=300), arg("--top", type=int, default=22)])
def host_profile(a):
    """Where a small graph's whole GPU call spends its host time: cProfile over warm calls, per call."""
    import cProfile
    import pstats
    rec = Record(a, "host_profile", "cProfile of warm la_gpm GPU calls on small graphs (microseconds per call)")
    graphs = {}
    for spec in a.rows:
        task, gname = spec.split(":", 1)
        G = graphs.setdefault(gname, load(gname))
        fn = la_gpm_call(task, G)
        med, _, _ = timeit(fn, repeat=200, warmup=20, sync=True, budget_s=10.0)
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(a.calls):
            fn()
        prof.disable()
        st = pstats.Stats(prof)
        top = sorted(st.stats.items(), key=lambda kv: -kv[1][2])[:a.top]     # by own time
        rows = [{"function": f"{Path(f).name}:{line}({name})", "calls_per_call": nc / a.calls,
                 "own_us": tt / a.calls * 1e6, "cum_us": ct / a.calls * 1e6} for (f, line, name), (_, nc, tt, ct, _) in top]
        total = sum(v[2] for v in st.stats.values()) / a.calls * 1e6
        rec.add({"task": task, "graph": gname, "whole_call_s": med, "profiled_us_per_call": total, "top": rows},
                echo=f"--- {task} {gname}: {med * 1e6:.1f} us per call (unprofiled); profiled {total:.1f} us\n" +
                "\n".join(f"{r['own_us']:8.2f} {r['cum_us']:8.2f} {r['calls_per_call']:5.1f}  {r['function']}"
                          for r in rows))
    rec.done()


# ------------------------------------------------------------------ first call
CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import la_gpm
t1 = time.perf_counter()
task = sys.argv[1]
G = la_gpm.datasets.load("email-Eu-core")
t2 = time.perf_counter()
if task == "census4":
    run = lambda: int(la_gpm.census(G, 4, backend="gpu")["count"].sum())
else:
    run = lambda: la_gpm.count(G, task, backend="gpu")
c = run()
t3 = time.perf_counter()
c2 = run()
t4 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "read_s": t2 - t1, "first_s": t3 - t2, "second_s": t4 - t3, "count": c,
                  "count2": c2}))
"""


@FAMILY.suite(gpu="only", repeats=1,
              args=[arg("--tasks", type=split_names, default=["triangle", "4-clique", "census4"])])
def first_call(a):
    """A new process's first GPU call (import, read, count), kernel caches cold and warm."""
    rec = Record(a, "first_call_gpu_peers", "first GPU call in a new process: kernel caches cold, then warm")
    for task in a.tasks:
        cache = Path(tempfile.mkdtemp(prefix="la_gpm_first_"))
        env = dict(os.environ, CUPY_CACHE_DIR=str(cache / "cupy"), NUMBA_CACHE_DIR=str(cache / "numba"),
                   PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
        for state in ("cold", "warm", "warm"):
            t = time.perf_counter()
            p = subprocess.run([sys.executable, "-c", CHILD, task], capture_output=True, text=True, env=env)
            wall = time.perf_counter() - t
            if p.returncode != 0:
                raise SystemExit(f"first_call {task} {state} failed:\n{p.stderr[-3000:]}")
            r = json.loads(p.stdout.strip().splitlines()[-1])
            check(f"first_call/{task}", r["count"], r["count2"])
            r.update(task=task, cache=state, process_s=wall, compile_notice="compil" in p.stderr.lower())
            rec.add(r)
    rec.done()


if __name__ == "__main__":
    FAMILY.main()
