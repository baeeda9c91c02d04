"""Diagnostics for the GPU 5-vertex hybrid: each stage against the CPU on small graphs (prints, never asserts)."""
import sys
import time
import traceback

import numpy as np

import la_gpm
from la_gpm.algorithms import motifs as M
from la_gpm.backends.cpu.motif_kernels import dense5_hits as cpu_dense
from la_gpm.backends.gpu import census as gc

graphs = [("karate", la_gpm.datasets.load("karate")), ("gnm60", la_gpm.generators.gnm(60, 400, seed=1)),
          ("rmat9", la_gpm.generators.rmat(9, seed=3))]
for name, G in graphs:
    try:
        t = time.perf_counter()
        want, want_x = M._sigma(G, 4, with_extra=True)
        got, got_k23 = gc.sigma4(G)
        new_id = M._descending(G)[2]
        got = got[new_id]
        bad = [o for o in range(15) if not np.array_equal(got[:, o], want[:, o])]
        print(name, "sigma cols differing:", bad, "k23 ok:", np.array_equal(got_k23[new_id], want_x[:, 0]),
              f"{time.perf_counter() - t:.3f}s", flush=True)
        for o in bad:
            print("   col", o, "gpu", got[:8, o].tolist(), "cpu", want[:8, o].tolist(), flush=True)
        cls = M._classes(5)
        w = cpu_dense(G.indptr, G.indices, G.degree_rank, cls.table, len(cls.keys), M._nchunks()).sum(axis=0)
        tv = gc.sigma4(G)[0][:, 3]
        saved = gc.dense5_hits
        hits, k23, bow = gc.dense5_hits(G, tv)
        print(name, "dense hits equal:", hits == [int(x) for x in w], "k23/bow listed", k23, bow, flush=True)
        if hits != [int(x) for x in w]:
            print("   gpu", hits, "\n   cpu", [int(x) for x in w], flush=True)
        a = [int(c) for c in M.census(G, 5, backend="gpu", method="hybrid")["count"]]
        b = [int(c) for c in M.census(G, 5, backend="cpu", method="enumerate")["count"]]
        print(name, "census hybrid == cpu enumerate:", a == b, flush=True)
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        sys.stdout.flush()
