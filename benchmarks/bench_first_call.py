"""First call in a fresh process: import + read a graph + the first count, with numba's disk cache cold
(an empty ``NUMBA_CACHE_DIR``: every kernel the call needs is compiled) and warm (the same folder, filled by
the cold run: the kernels are loaded from disk).

    python benchmarks/bench_first_call.py                  # the six tasks, cold and warm, 1 run each
    python benchmarks/bench_first_call.py --repeats 3      # medians of 3 fresh processes per (task, cache)
    python benchmarks/bench_first_call.py --tasks triangles,match --src /tmp/other_checkout
    python benchmarks/bench_first_call.py --quick          # triangles only

Tasks: ``triangles``, ``4-cycle``, ``4-star``, ``house`` (``la_gpm.count`` on the bundled email-Eu-core, default
backend), ``5-path`` (on citeseer: its count on email-Eu-core takes 12 s warm), ``match`` (every embedding of the
yeast query ``query_dense_8_1`` listed with ``la_gpm.match`` on yeast, shared data), ``count_many`` (4-cycle,
diamond, tailed triangle in one ``la_gpm.count_many`` on email-Eu-core) and ``warmup`` (``la_gpm.warmup()``, every
kind; "count" is then the number of kinds; absent before la_gpm had it). Each (task, cache) runs in a new Python process (``--src``: the checkout
whose ``la_gpm`` it imports, default this one); the cold run of each task has its own empty cache folder,
so no task profits from kernels an earlier one compiled.  Every row: the process's wall time, its import,
read and first-count seconds, a second (in-process, warm) count, whether the compile notice
(:class:`la_gpm.CompileNotice`) was printed, and the count (checked equal between the cold and warm runs).
Writes first_call_cpu.json.
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

from harness import DATA, ROOT, Family, Record, arg, check, split_names

FAMILY = Family(__doc__, default="first_call")
# task: graph (bundled name, or yeast from the shared data)
TASKS = {"triangles": "email-Eu-core", "4-cycle": "email-Eu-core", "4-star": "email-Eu-core", "5-path": "citeseer",
         "house": "email-Eu-core", "match": "yeast", "count_many": "email-Eu-core", "warmup": None}
QUERY = "query_dense_8_1"

# one fresh process: import, read, first count, second count; one JSON line on stdout
CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import la_gpm
t1 = time.perf_counter()
task, data, query, graph = sys.argv[1:5]
if task == "warmup":
    G = None
    run = lambda: len(la_gpm.warmup(progress=False))
elif task == "match":
    from la_gpm.io import read_sunluo
    from la_gpm.patterns import read_query
    G = read_sunluo(data + "/yeast/yeast.graph")
    Q = read_query(data + "/yeast/query_graph/" + query + ".graph")
    run = lambda: sum(len(a) for a in la_gpm.match(G, Q))
elif task == "count_many":
    G = la_gpm.datasets.load(graph)
    run = lambda: sum(la_gpm.count_many(G, ["4-cycle", "diamond", "tailed-triangle"]))
else:
    G = la_gpm.datasets.load(graph)
    run = lambda: la_gpm.count(G, "triangle" if task == "triangles" else task)
t2 = time.perf_counter()
n = run()
t3 = time.perf_counter()
n2 = run()
t4 = time.perf_counter()
assert n == n2, (n, n2)
print(json.dumps({"import_s": t1 - t0, "read_s": t2 - t1, "first_count_s": t3 - t2, "second_count_s": t4 - t3,
                  "count": int(n), "la_gpm": la_gpm.__file__}))
"""


def fresh(task: str, src: Path, cache: Path) -> dict:
    """One fresh process running ``task`` against numba's cache folder ``cache``; its times, count, stderr."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(src), PYTHONWARNINGS="default")
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", CHILD, task, str(DATA), QUERY, str(TASKS[task])], capture_output=True,
                       text=True,
                       env=env, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"{task}: the child process failed ({p.returncode}):\n{p.stderr[-3000:]}")
    row = json.loads(p.stdout.strip().splitlines()[-1])
    row["process_wall_s"] = wall
    row["compile_notice"] = "CompileNotice" in p.stderr
    if not str(row.pop("la_gpm")).startswith(str(src)):
        raise SystemExit(f"{task}: the child imported la_gpm from outside {src}")
    return row


def median_row(rows: list[dict]) -> dict:
    out = {k: statistics.median(r[k] for r in rows) for k in rows[0] if k.endswith("_s")}
    out["runs"] = [{k: v for k, v in r.items() if k.endswith("_s")} for r in rows]
    out["count"] = rows[0]["count"]
    out["compile_notice"] = [r["compile_notice"] for r in rows]
    return out


@FAMILY.suite(repeats=1, quick={"tasks": "triangles"},
              args=[arg("--tasks", type=split_names, default=list(TASKS), help=f"comma separated, of {', '.join(TASKS)}"),
                    arg("--src", type=Path, default=ROOT, help="checkout whose la_gpm the processes import"),
                    arg("--label", default="", help="a word saved with the rows (e.g. before / after)")])
def first_call(a):
    """Fresh-process import + read + first count, numba's cache cold and warm, for each task."""
    unknown = [t for t in a.tasks if t not in TASKS]
    if unknown:
        raise SystemExit(f"unknown tasks {unknown}; choose from {', '.join(TASKS)}")
    rec = Record(a, "first_call", "first call in a fresh process (numba cache cold / warm)", src=str(a.src),
                 label=a.label, query=QUERY)
    for task in a.tasks:
        cold, warm = [], []
        for _ in range(max(1, a.repeats)):
            with tempfile.TemporaryDirectory(prefix="la_gpm_nbcache_") as cache:
                cold.append(fresh(task, a.src, Path(cache)))
                warm.append(fresh(task, a.src, Path(cache)))
        for r in cold + warm:
            check(f"{task}/cold vs warm", r["count"], cold[0]["count"])
        for state, rows in (("cold", cold), ("warm", warm)):
            row = {"task": task, "graph": TASKS[task], "cache": state, **median_row(rows)}
            rec.add(row, echo=f"  {task:<10} {state}: process {row['process_wall_s']:6.2f} s = import "
                              f"{row['import_s']:.2f} + read {row['read_s']:.2f} + first count "
                              f"{row['first_count_s']:6.2f} s (then {row['second_count_s'] * 1e3:.1f} ms)  "
                              f"notice={row['compile_notice']}  count={row['count']:,}")
    rec.done()


if __name__ == "__main__":
    FAMILY.main()
