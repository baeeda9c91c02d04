"""The CPU 5-vertex hybrid's dense part (`motif_kernels.dense5_hits`): K2,3 and bowtie copies listed one by
one against counted in bulk (hub pairs with >= 8 common neighbours, centres with >= 64 edges inside
their neighbourhood), same hits checked; and the whole CPU census of email-Eu-core by the hybrid and by
enumeration (what `method="auto"` chooses between).

    python benchmarks/bench_dense5_bulk.py [--scales 9 10]

One timed run each after a compile run (minutes per setting on 2 cores). Writes
``benchmarks/results/dense5_bulk_cpu.json``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import check, machine, versions, write  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm.motifs.driver import _nchunks  # noqa: E402
from la_gpm.patterns.classes import classes as _classes  # noqa: E402
from la_gpm.motifs.cpu import dense5_hits  # noqa: E402

NONE = 1 << 40


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--scales", type=int, nargs="*", default=[9, 10])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    a = ap.parse_args(argv)
    cls = _classes(5)
    rows = []
    payload = {"benchmark": "CPU 5-vertex hybrid dense part: K2,3 / bowtie copies listed vs counted in bulk",
               "machine": machine(), "versions": versions(), "threads": os.cpu_count(), "rows": rows}
    for sc in a.scales:
        G = la_gpm.generators.rmat(sc, seed=1)
        args = (G.indptr, G.indices, G.degree_rank, cls.table, len(cls.keys), _nchunks())
        dense5_hits(*args, 8, 64)                       # compile
        row = {"graph": f"R-MAT {sc}", "n": G.n, "m": G.m}
        want = None
        for label, comb, bow in (("both listed", NONE, NONE), ("K2,3 bulk", 8, NONE), ("both bulk", 8, 64)):
            t = time.perf_counter()
            h = dense5_hits(*args, comb, bow).sum(axis=0)
            row[label + "_s"] = time.perf_counter() - t
            if want is None:
                want = h
            check(f"R-MAT {sc} {label}", h.tolist(), want.tolist())
        rows.append(row)
        print(row, flush=True)
    email = Path(a.data) / "email-Eu-core.txt"
    if email.exists():
        E = la_gpm.read_graph(email)
        got = {}
        for meth in ("hybrid", "enumerate"):
            t = time.perf_counter()
            got[meth] = [int(x) for x in la_gpm.census(E, 5, backend="cpu", method=meth)["count"]]
            payload[f"email-Eu-core census5 {meth}_s"] = time.perf_counter() - t
        check("email-Eu-core hybrid vs enumeration", got["hybrid"], got["enumerate"])
        payload["email-Eu-core census5 counts"] = got["hybrid"]
        print({k: v for k, v in payload.items() if k.endswith("_s")}, flush=True)
    print("wrote", write("dense5_bulk", payload))


if __name__ == "__main__":
    main()
