"""Benchmark harness: the command line, timing, the machine record, JSON rows, data and peers.

Every family script (``bench_<family>.py``) declares its suites with :class:`Family` and ends with
``FAMILY.main()``::

    python benchmarks/bench_kcliques.py SUITE [--quick] [--out DIR] [--gpu | --backend gpu]
                                              [--repeats N] [--graphs A,B] [--name STEM] [suite options]

* timing: :func:`timeit` -- warm-up calls, then the median of up to ``repeats`` timed calls (stopped
  once a time budget is spent), the device synchronised around each call when the gpu backend is
  timed; :func:`once` times one call the same way.
* the record: every JSON holds the machine (CPU model, cores, GPU name and memory via CuPy where
  there is one, load average, date), the versions (python, numpy, numba, cupy, la_gpm and the peers
  that are installed) and the source (la_gpm's folder, the git commit of its checkout and whether
  la_gpm/ has uncommitted changes): :class:`Record` writes it with the rows after every row, so a run
  cut at its time limit keeps what it measured.
* results go to ``--out DIR``, else ``$LA_GPM_BENCH_OUT``, else ``benchmarks/results``, as
  ``<name>_<gpu|cpu>.json`` (``gpu`` when the machine has one); ``--quick`` appends ``_quick`` to the name.
* data: ``$LA_GPM_SHARED_DATA`` (default ``../shared/data`` beside the checkout) and
  ``$LA_GPM_SHARED_HOLDOUT`` (default ``holdout`` beside the data); :func:`graph` builds a graph from a
  name (bundled datasets, files of the shared data, ``R-MAT S``, ``G(n,m)``, ``graph500-S``, HPRD, yeast).
* peers: :func:`peer` times another implementation beside la_gpm under the same rules (a Python
  callable, optionally in a child process killed after a time limit, or an external command) and
  checks its count.

Benchmarks check every count against a reference before timing and abort when a count differs
(:func:`check`).  A suite that needs a GPU exits with status 3 and says why where there is none.
Never used by the tests.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _p in (str(ROOT), str(HERE)):   # la_gpm and tests.known from this checkout; the helper modules beside this file
    if _p not in sys.path:
        sys.path.insert(0, _p)

RESULTS = HERE / "results"
# the shared graphs: ../shared/data beside the checkout, or a carried copy named by LA_GPM_SHARED_DATA
DATA = Path(os.environ.get("LA_GPM_SHARED_DATA") or ROOT.parent / "shared" / "data")
HOLDOUT = Path(os.environ.get("LA_GPM_SHARED_HOLDOUT") or DATA.parent / "holdout")
COPY_BW_H100 = 2.89e12     # bytes/s, device-to-device copy on the H100 (../shared/ANCHORS.md)
NOT_HERE = 3               # exit status of a suite that cannot run on this machine (no GPU)


# ------------------------------------------------------------------ data
_FILES = {"wiki-Vote": "wiki-Vote.txt", "citeseer": "citeseer.edgelist", "email-Eu-core": "email-Eu-core.txt"}
_RMAT = re.compile(r"^(?:R-MAT ?|rmat)(\d+)$")
_GNM = re.compile(r"^(?:G|gnm)\((\d+), ?(\d+)(?:, ?seed=(\d+))?\)$")
_G500 = re.compile(r"^graph500-(\d+)$")


def graph(name: str):
    """The graph a benchmark names: ``R-MAT S`` / ``rmatS`` (Graph500 initiator, seed 1), ``G(n,m)`` /
    ``gnm(n,m,seed=s)`` (seed 1 unless given), ``graph500-S``, a bundled dataset (karate, citeseer,
    email-Eu-core), ``HPRD``, ``yeast`` or a file of the shared data (wiki-Vote)."""
    import la_gpm
    if m := _RMAT.match(name):
        return la_gpm.generators.rmat(int(m[1]), seed=1)
    if m := _GNM.match(name):
        return la_gpm.generators.gnm(int(m[1]), int(m[2]), seed=int(m[3] or 1))
    if m := _G500.match(name):
        return la_gpm.generators.graph500(int(m[1]))
    if name in la_gpm.datasets.names():
        return la_gpm.datasets.load(name)
    if name == "HPRD":
        return hprd()[0]
    if name == "yeast":
        from la_gpm.io import read_sunluo
        return read_sunluo(DATA / "yeast" / "yeast.graph")
    path = DATA / _FILES.get(name, name)
    if path.exists():
        return la_gpm.read_graph(path)
    raise SystemExit(f"unknown graph {name!r}: R-MAT S, G(n,m), graph500-S, {la_gpm.datasets.names()}, HPRD, "
                     f"yeast or a file in {DATA}")


def hprd():
    """HPRD (shared data): the data graph, and the published embedding count of every query by name,
    in the queries' numeric order."""
    from la_gpm.io import read_sunluo
    exp = {}
    for ln in (DATA / "hprd" / "expected_output.res").read_text().splitlines():
        if ":" in ln:
            a, b = ln.strip().split(":")
            exp[a] = int(b)
    return read_sunluo(DATA / "hprd" / "HPRD.graph"), dict(sorted(exp.items(), key=lambda t: int(t[0].rsplit("_", 1)[1])))


def hprd_queries(limit: int | None = None):
    """(HPRD graph, query names, query patterns, published embedding counts): the first ``limit``
    queries in numeric order (all 200 by default)."""
    from la_gpm.patterns import read_query
    G, exp = hprd()
    names = list(exp)[:limit]
    return G, names, [read_query(DATA / "hprd" / "query_graph" / f"{nm}.graph") for nm in names], \
        [exp[nm] for nm in names]


def edge_array(G):
    """The undirected edges of G as an (m, 2) int64 array with u < v, in CSR order (peers' input)."""
    import numpy as np
    src = np.repeat(np.arange(G.n, dtype=np.int64), np.diff(G.indptr))
    dst = np.asarray(G.indices, dtype=np.int64)
    keep = src < dst
    return np.column_stack([src[keep], dst[keep]])


def to_igraph(G):
    """G as an igraph graph (vertex labels as the ``label`` attribute)."""
    import igraph as ig
    g = ig.Graph(n=G.n, edges=edge_array(G).tolist())
    if G.vertex_labels is not None:
        g.vs["label"] = G.vertex_labels.tolist()
    return g


# ------------------------------------------------------------------ machine, versions, source
def cpu_name() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpu_info() -> dict | None:
    """Name, memory and SM count of device 0 (CuPy), or None where there is no usable GPU."""
    try:
        import cupy as cp
        if cp.cuda.runtime.getDeviceCount() < 1:
            return None
        p = cp.cuda.runtime.getDeviceProperties(0)
        name = p["name"].decode() if isinstance(p["name"], bytes) else str(p["name"])
        return {"name": name, "memory_bytes": int(p["totalGlobalMem"]), "sm_count": int(p["multiProcessorCount"])}
    except Exception:  # noqa: BLE001 -- no CuPy / no driver: no GPU
        return None


def gpu_name() -> str | None:
    info = gpu_info()
    return info["name"] if info else None


def has_gpu() -> bool:
    return gpu_info() is not None


def versions() -> dict:
    out = {"python": platform.python_version()}
    for mod in ("la_gpm", "numpy", "scipy", "numba", "pandas", "graphblas", "networkx", "igraph", "cupy", "pyfglt",
                "orbit_count"):
        try:
            m = __import__(mod)
            out[mod] = getattr(m, "__version__", "installed")
        except Exception:  # noqa: BLE001 -- optional peers
            pass
    if "cupy" in out:
        try:
            import cupy
            out["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
        except Exception:  # noqa: BLE001
            pass
    return out


def source() -> dict:
    """Which la_gpm ran: its folder, and the commit of the checkout holding it (uncommitted_changes: la_gpm/
    differs from that commit)."""
    import la_gpm
    path = Path(la_gpm.__file__).resolve().parent
    out = {"path": str(path)}
    try:
        git = ["git", "-C", str(path.parent)]
        out["commit"] = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True,
                                       check=True).stdout.strip()
        out["uncommitted_changes"] = bool(subprocess.run([*git, "status", "--porcelain", "--", "la_gpm"],
                                                         capture_output=True, text=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        out["commit"] = None  # not a git checkout (e.g. an exported snapshot)
    return out


def machine() -> dict:
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    gpu = gpu_info()
    out = {"cpu": cpu_name(), "cores": os.cpu_count(), "gpu": gpu and gpu["name"], "platform": platform.platform(),
           "load_average": load, "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
    if gpu:
        out.update(gpu_memory_bytes=gpu["memory_bytes"], gpu_sm_count=gpu["sm_count"])
    out["numba_threads"] = numba_threads()
    return out


def numba_threads() -> int | None:
    """Threads of numba's parallel regions (the cpu backend's cores)."""
    try:
        import numba
        return numba.get_num_threads()
    except ImportError:
        return None


# ------------------------------------------------------------------ timing
def device_sync():
    """Wait for the GPU (no-op without CuPy or a device)."""
    try:
        import cupy as cp
        if cp.cuda.runtime.getDeviceCount() > 0:
            cp.cuda.Device().synchronize()
    except Exception:  # noqa: BLE001
        pass


def timeit(fn, *, repeat: int = 5, warmup: int = 1, budget_s: float = 60.0, sync: bool = False):
    """Median wall time of ``fn()`` after ``warmup`` calls; returns (median_s, all_times, last_result).

    Stops repeating once ``budget_s`` is spent (at least one timed run).  With ``sync`` the
    device is synchronised before the clock is read.
    """
    result = None
    for _ in range(warmup):
        result = fn()
        if sync:
            device_sync()
    times = []
    spent = 0.0
    for _ in range(max(1, repeat)):
        dt, result = once(fn, sync=sync)
        times.append(dt)
        spent += dt
        if spent > budget_s:
            break
    return statistics.median(times), times, result


def once(fn, *, sync: bool = True):
    """(seconds, result) of one call of ``fn``, the device synchronised before and after when ``sync``."""
    if sync:
        device_sync()
    t = time.perf_counter()
    result = fn()
    if sync:
        device_sync()
    return time.perf_counter() - t, result


def copy_bandwidth(device: str = "gpu", nbytes: int = 1 << 30, repeat: int = 10) -> float:
    """Bytes read + written per second by a copy of an ``nbytes`` buffer (the device's, or host memory
    with an eighth of ``nbytes``): the bandwidth a kernel's traffic is set against."""
    if device == "gpu":
        import cupy as cp
        x = cp.ones(nbytes // 4, dtype=cp.float32)
        y = cp.empty_like(x)
        med, _, _ = timeit(lambda: cp.copyto(y, x), repeat=repeat, warmup=2, sync=True)
        moved = 2 * x.nbytes
        del x, y
        cp.get_default_memory_pool().free_all_blocks()
        return moved / med
    import numpy as np
    x = np.ones(nbytes // 8 // 4, dtype=np.float32)
    y = np.empty_like(x)
    med, _, _ = timeit(lambda: np.copyto(y, x), repeat=max(1, repeat // 2))
    return 2 * x.nbytes / med


def check(label: str, got, want):
    if got != want:
        raise SystemExit(f"COUNT MISMATCH in {label}: got {got}, want {want}; benchmark aborted")


# ------------------------------------------------------------------ peers
def in_child(fn, timeout: float):
    """(seconds, result) of one call of ``fn`` in a forked child, or a reason (str) when it ran past
    ``timeout`` seconds (then it is killed) or died.  For peers a Python thread cannot interrupt."""
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    q = ctx.Queue()

    def target():
        t = time.perf_counter()
        r = fn()
        q.put((time.perf_counter() - t, r))

    p = ctx.Process(target=target)
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.terminate()
        p.join()
        return f"did not finish within {timeout} s (killed)"
    if q.empty():
        return f"child exited with code {p.exitcode}"
    return q.get()


def command(cmd, timeout: float | None = None) -> dict:
    """Run an external command once: its output (stdout + stderr), return code (None when killed after
    ``timeout`` s; None: no limit), ``killed`` and ``wall_s``."""
    t = time.perf_counter()
    try:
        p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)
        text, rc, killed = p.stdout + p.stderr, p.returncode, False
    except subprocess.TimeoutExpired as e:
        text = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        rc, killed = None, True
    return {"text": text, "returncode": rc, "killed": killed, "wall_s": time.perf_counter() - t}


def peer(name, make, *, want=None, label="", repeat=5, warmup=1, timeout=None, sync=False, budget_s=60.0,
         convert=None, note=None) -> dict:
    """Time a peer beside la_gpm under the same rules; returns its row ``{"impl", "seconds", "runs"}`` or
    ``{"impl", "skipped": why}``.

    ``make()`` builds what the peer needs outside the clock (its own graph format) and returns either the
    callable to time or an external command (a list: run as a process, its wall time measured, its output
    text is the result); an ImportError there means the peer is not installed (skipped).  ``timeout``:
    one timed run, no warm-up, in a child killed after that many seconds (a callable) or the process
    killed (a command).  A result of None means the peer stopped itself at its own limit (skipped).
    ``convert(result)`` turns the result into the count checked against ``want`` (outside the clock).
    """
    try:
        fn = make()
    except ImportError as e:
        return {"impl": name, "skipped": f"not installed: {e}"}
    child = timeout is not None
    if isinstance(fn, (list, tuple)):
        cmd, child = fn, False

        def fn():
            r = command(cmd, timeout)
            return None if r["killed"] or r["returncode"] != 0 else r["text"]
    if child:
        res = in_child(fn, timeout)
        if isinstance(res, str):
            return {"impl": name, "skipped": res}
        med, got = res
        times = [med]
    else:
        once_only = timeout is not None
        med, times, got = timeit(fn, repeat=1 if once_only else repeat, warmup=0 if once_only else warmup, sync=sync,
                                 budget_s=budget_s)
    if got is None:
        return {"impl": name, "skipped": f"stopped after {timeout} s (time limit of this run)"}
    if convert is not None:
        got = convert(got)
    if want is not None:
        check(f"{label}/{name}", got, want)
    row = {"impl": name, "seconds": med, "runs": times}
    if note:
        row["note"] = note
    return row


# ------------------------------------------------------------------ JSON
def out_dir(out=None) -> Path:
    return Path(out or os.environ.get("LA_GPM_BENCH_OUT") or RESULTS)


def write(name: str, payload: dict, out=None, tag: str | None = None) -> Path:
    """``<out>/<name>_<tag>.json``; tag ``gpu`` when the payload's machine has a GPU, else ``cpu``."""
    d = out_dir(out)
    d.mkdir(parents=True, exist_ok=True)
    tag = tag or ("gpu" if payload.get("machine", {}).get("gpu") else "cpu")
    path = d / f"{name}_{tag}.json"
    path.write_text(json.dumps(payload, indent=1, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))
    return path


def show(row: dict, hide=("runs", "counts")) -> dict:
    """A row for printing: floats to 4 significant digits, long fields (``hide`` suffixes) left out."""
    return {k: (float(f"{v:.4g}") if isinstance(v, float) else v) for k, v in row.items()
            if not any(k.endswith(h) for h in hide)}


class Record:
    """The JSON of one run: benchmark title, machine, versions, source, command, ``fields``, and a list of
    rows under ``rows`` (the key of the earlier files: rows, results, graphs, runs ...; None: no list).  ``add`` appends
    a row, prints it and writes the file; ``done`` writes it and says where."""

    def __init__(self, a, name: str, title: str | None = None, *, rows: str | None = "rows", tag: str | None = None,
                 **fields):
        self.a = a
        self.name = (getattr(a, "name", None) or name) + ("_quick" if getattr(a, "quick", False) else "")
        self.tag = tag
        self.payload = {} if title is None else {"benchmark": title}
        self.payload.update(machine=machine(), versions=versions(), source=source(),
                            command="python " + " ".join([Path(sys.argv[0]).name, *getattr(a, "argv", [])]))
        self.payload.update(fields)
        self.rows = None if rows is None else self.payload.setdefault(rows, [])
        self.path = None

    def __setitem__(self, key, value):
        self.payload[key] = value

    def __getitem__(self, key):
        return self.payload[key]

    def add(self, row: dict, echo=True) -> dict:
        self.rows.append(row)
        if echo:
            print(show(row) if echo is True else echo, flush=True)
        self.save()
        return row

    def save(self) -> Path:
        self.path = write(self.name, self.payload, getattr(self.a, "out", None), self.tag)
        return self.path

    def done(self) -> Path:
        print("wrote", self.save(), flush=True)
        return self.path


# ------------------------------------------------------------------ command line
def arg(*flags, **kw):
    """A suite option: ``arg("--kmax", type=int, default=8)``."""
    return flags, kw


def split_names(text):
    """"a,G(20000,200000),R-MAT 18" -> its names (commas inside parentheses do not split)."""
    if not isinstance(text, str):
        return list(text)
    return [x.strip() for x in re.split(r",(?![^(]*\))", text) if x.strip()]


class Family:
    """The suites of one family script.  ``@FAMILY.suite(...)`` registers ``fn(a)`` under its name;
    ``FAMILY.main()`` parses ``SUITE [options]`` (the default suite when the first word is an option)
    and runs it.

    Suite declaration: ``gpu`` -- "never" (no backend options), "optional" (``--gpu`` / ``--backend``),
    "only" (needs a GPU: exits with status 3 where there is none); ``graphs`` -- default of ``--graphs``
    (comma separated names for :func:`graph`; the option exists only when given); ``repeats`` -- default
    of ``--repeats`` (the option exists only when given); ``quick`` -- option values of ``--quick``
    (applied to options left at their defaults); ``args`` -- the suite's own options (:func:`arg`).
    """

    def __init__(self, doc: str, default: str | None = None):
        self.doc = doc
        self.default = default
        self.suites = {}

    def suite(self, name=None, *, gpu="never", graphs=None, repeats=None, quick=None, args=()):
        def deco(fn):
            self.suites[name or fn.__name__] = dict(fn=fn, gpu=gpu, graphs=graphs, repeats=repeats,
                                                    quick=quick or {}, args=args)
            return fn
        return deco

    def parser(self):
        """(the family's parser, {suite: its parser})."""
        ap = argparse.ArgumentParser(description=self.doc, formatter_class=argparse.RawDescriptionHelpFormatter)
        sub = ap.add_subparsers(dest="suite", metavar="SUITE", required=True)
        parsers = {}
        for name, s in self.suites.items():
            doc = s["fn"].__doc__ or ""
            first = re.match(r"(.*?\.)(\s|$)", " ".join(doc.split()))     # its first sentence
            p = parsers[name] = sub.add_parser(name, help=first and first[1], description=doc,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
            p.add_argument("--quick", action="store_true", help="the smallest case (a few seconds): a smoke run")
            p.add_argument("--out", default=None, help="results folder (default $LA_GPM_BENCH_OUT, else benchmarks/results)")
            p.add_argument("--name", default=None, help="results file stem")
            if s["gpu"] != "never":
                p.add_argument("--backend", choices=("cpu", "gpu"), default="gpu" if s["gpu"] == "only" else "cpu")
                p.add_argument("--gpu", dest="backend", action="store_const", const="gpu", help="same as --backend gpu")
            if s["repeats"] is not None:
                p.add_argument("--repeats", "--repeat", dest="repeats", type=int, default=s["repeats"],
                               help="timed runs after the warm-up (median reported)")
            if s["graphs"] is not None:
                p.add_argument("--graphs", type=split_names, default=split_names(s["graphs"]),
                               help=f"comma separated graph names (default {s['graphs']!r})")
            for flags, kw in s["args"]:
                p.add_argument(*flags, **kw)
        return ap, parsers

    def main(self, argv=None):
        argv = list(sys.argv[1:] if argv is None else argv)
        if self.default and (not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help"))):
            argv.insert(0, self.default)
        ap, parsers = self.parser()
        a = ap.parse_args(argv)
        s = self.suites[a.suite]
        a.argv = argv
        if a.quick:   # the quick values of the options left at their defaults
            for key, value in s["quick"].items():
                if getattr(a, key) == parsers[a.suite].get_default(key):
                    setattr(a, key, split_names(value) if key == "graphs" else value)
        a.gpu = getattr(a, "backend", "cpu") == "gpu"
        if s["gpu"] == "only" and not a.gpu:
            raise SystemExit(f"{a.suite}: times the GPU; --backend cpu is not a choice here")
        if a.gpu and not has_gpu():
            print(f"{Path(sys.argv[0]).name} {a.suite}: needs a GPU (CuPy with a CUDA device); none here: not run",
                  flush=True)
            raise SystemExit(NOT_HERE)
        return s["fn"](a)
