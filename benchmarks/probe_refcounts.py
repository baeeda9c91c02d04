"""Where numba code counts references: NRT_incref / NRT_decref calls per calling function, for one stream run.

    gdb -batch -x benchmarks/probe_refcounts.py --args python benchmarks/probe_refcounts.py wordnet paw 10

(inside gdb it drives the process; run plainly it is the process gdb drives).  The target builds a
``DynamicGraph`` (query views) on the stream benchmark's workload (``bench_dynamic_stream.stream_batches``:
batches of 0.1%, seed 1) for the query named (``edge``: one labelled edge, ``paw``: wordnet sparse4's shape, or
``dense6`` / ``sparse4`` / ``tree6`` ...: the benchmark's random query of that class and size), runs the whole
stream once (code loaded, tables warm), then stops; gdb sets a breakpoint on each of numba's two
reference-count functions, the target runs the first ``B`` batches again, and each hit's return address is
counted.  The addresses are named from a ``/tmp/perf-PID.map`` the target writes from the machine code in
la_gpm's numba cache (the ELF objects inside the ``.nbc`` files; their global symbols resolved by numba's
execution engine), which also names numba's code for ``perf report`` when the same target runs under ``perf``.

An atomic reference count costs 10-20 ns on the 2-core development machine; session 42 found 2,400 a 120-update
wordnet batch in the lane (24% of the stream), 1,600 of them in one inlined helper (docs/dynamic.md).
Prints the counts per function, then per return address.
"""

from __future__ import annotations

import os
import sys

try:
    import gdb  # noqa: F401 -- present only inside gdb
except ImportError:
    gdb = None

_ADDR = "/tmp/la_gpm_probe_refcounts.txt"


def write_perf_map(root):
    """``/tmp/perf-<pid>.map`` for la_gpm's numba code loaded in this process (its on-disk cache under ``root``).
    Returns the number of symbols named."""
    import glob
    import pickle
    import subprocess
    import tempfile

    import llvmlite.binding as ll
    from numba.core.registry import cpu_target

    engine = cpu_target.target_context.codegen()._engine

    def elves(o, out, depth=0):
        if isinstance(o, (bytes, bytearray)) and o[:4] == b"\x7fELF":
            out.append(bytes(o))
        elif isinstance(o, (tuple, list)) and depth < 8:
            for x in o:
                elves(x, out, depth + 1)

    seen = {}
    for f in glob.glob(os.path.join(root, "**", "__pycache__", "*.nbc"), recursive=True):
        try:
            data = pickle.loads(open(f, "rb").read())
        except Exception:  # noqa: BLE001 -- another numba version's file: not this process's code
            continue
        objs = []
        elves(data, objs)
        for obj in objs:
            with tempfile.NamedTemporaryFile(suffix=".o") as t:
                t.write(obj)
                t.flush()
                out = subprocess.run(["nm", "-S", "--defined-only", t.name], capture_output=True, text=True).stdout
            for line in out.splitlines():
                p = line.split()
                if len(p) != 4 or p[2] not in "tT" or p[3] in seen:
                    continue
                a = ll.address_of_symbol(p[3]) or engine.get_function_address(p[3])
                if a:
                    seen[p[3]] = (a, int(p[1], 16))
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as f:
        for name, (a, size) in seen.items():
            f.write(f"{a:x} {size:x} {name}\n")
    return len(seen)


def target(dataset, query, batches):
    import signal

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import numpy as np
    from numba.core.registry import cpu_target

    import dynamic_workload as dw
    import la_gpm
    from bench_dynamic import load
    from bench_dynamic_stream import stream_batches
    from la_gpm import Pattern

    G, _, _ = load(dataset, 0)
    G0, _, _, _, ops, per = stream_batches(G, 0.001, 100, 1)
    lab = int(np.asarray(G.vertex_labels)[0]) if G.vertex_labels is not None else None
    fixed = {"edge": Pattern([(0, 1)], vertex_labels=None if lab is None else (lab, lab)),
             "paw": Pattern([(0, 1), (0, 2), (0, 3), (1, 3)], vertex_labels=None if lab is None else (lab,) * 4)}
    P = fixed.get(query) or dw.random_query(G, int(query[-1]), query[:-1], seed=1)
    D = la_gpm.DynamicGraph(G0, [P], keep_graph=False)
    D.apply()
    D.apply_stream(ops, batch_size=per)
    D.apply_stream(ops[::-1].copy() * np.array([-1, 1, 1]), batch_size=per)     # back to G0
    print("perf map:", write_perf_map(os.path.dirname(os.path.dirname(la_gpm.__file__))), "symbols", flush=True)
    engine = cpu_target.target_context.codegen()._engine
    inc, dec = engine.get_function_address("NRT_incref"), engine.get_function_address("NRT_decref")
    with open(_ADDR, "w") as f:
        f.write(f"{inc} {dec} {os.getpid()}\n")
    os.kill(os.getpid(), signal.SIGTRAP)      # gdb sets its breakpoints here
    D.apply_stream(ops[:per * batches], batch_size=per)
    os.kill(os.getpid(), signal.SIGTRAP)      # ... and counts up to here


def drive():
    import collections
    import re

    counts = collections.Counter()

    class Hit(gdb.Breakpoint):
        def stop(self):
            sp = int(gdb.parse_and_eval("$rsp"))
            counts[int.from_bytes(bytes(gdb.selected_inferior().read_memory(sp, 8)), "little")] += 1
            return False

    gdb.execute("set pagination off")
    gdb.execute("handle SIGTRAP stop nopass")
    gdb.execute("run")
    inc, dec, pid = map(int, open(_ADDR).read().split())
    Hit(f"*{inc}")
    Hit(f"*{dec}")
    gdb.execute("continue")
    syms = []
    for line in open(f"/tmp/perf-{pid}.map"):
        a, s, n = line.split(maxsplit=2)
        syms.append((int(a, 16), int(s, 16), re.sub(r"B\d+v\d+B\d+c8tJTI\S*", "", n.strip())))
    per_fn = collections.Counter()
    for r, c in counts.items():
        per_fn[next((n for a, s, n in syms if a <= r < a + s), "(not in la_gpm's cache)")] += c
    print(f"reference counts: {sum(counts.values())}")
    for n, c in per_fn.most_common(25):
        print(f"{c:8d}  {n[:120]}")
    for r, c in counts.most_common(15):
        print(f"{c:8d}  {r:#x}")
    gdb.execute("kill")


if gdb is not None:
    drive()
elif __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    target(sys.argv[1], sys.argv[2], int(sys.argv[3]))
