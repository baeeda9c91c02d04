"""Small workloads for compute-sanitizer over every kernel file: triangles (hub kernel included),
cliques, trie, census (closed forms, ESU, the 5-vertex hybrid), the batch interpreter
(``count_many``), color coding and the motif sampler (the single-query enumeration kernels
have theirs: ``bench_gpu_enum.py --sanitize``).

    compute-sanitizer --tool memcheck  python benchmarks/sanitize_kernels.py
    compute-sanitizer --tool racecheck --kernel-name-exclude kns=cupy \
        python benchmarks/sanitize_kernels.py --part triangles   # or any part (trie: --scale 7)

(racecheck is slow: one part per call keeps each under its own time limit; CuPy's own kernels
are excluded because ``cupy_nonzero`` reports benign races inside CuPy.)

Every GPU result is checked against the CPU backend, so a run that finishes also proves the
kernels computed the right thing under the sanitizer.
"""

from __future__ import annotations

import argparse

import la_gpm
from la_gpm.exact.driver import count_pattern, plan_for
from la_gpm.kcliques.gpu import clique_count
from la_gpm.triangles.gpu import triangle_count
from la_gpm.exact.cuts import count_plan_bfs
from la_gpm.patterns import as_pattern


def triangles(G):
    want = la_gpm.count(G, "triangle", backend="cpu")
    for kw in (dict(schedule="uniform", group=4), dict(schedule="uniform", group=32, pivots=True),
               dict(schedule="bucketed", pivots=True), dict(schedule="bucketed", pivots=False),
               dict(schedule="bucketed", hub_min=1), dict(schedule="bucketed", hub_min=8),
               dict(schedule="bucketed", hub_min=0)):   # hub kernel on every row, on some, on none
        assert triangle_count(G, **kw) == want, kw
    assert (la_gpm.triangles_per_vertex(G, backend="gpu") == la_gpm.triangles_per_vertex(G, backend="cpu")).all()


def cliques(G):
    for k in (4, 5):
        w = la_gpm.count(G, f"{k}-clique", backend="cpu")
        for method in ("stack", "bitmap"):
            assert clique_count(G, k, method=method) == w
            assert sum(clique_count(G, k, part=(i, 3), method=method) for i in range(3)) == w


def trie(G):
    for name, induced in (("diamond", False), ("4-cycle", True), ("house", False)):
        P = as_pattern(name)
        w = count_pattern(G, P, induced=induced, backend="cpu")
        assert count_plan_bfs(G, plan_for(G, P, induced=induced, reuse=False))[0] == w
        assert count_plan_bfs(G, plan_for(G, P, induced=induced, reuse=False), memory_budget=1 << 15)[0] == w


def census(G):
    from la_gpm.motifs.driver import _hybrid5_noninduced
    from la_gpm.motifs import gpu as gc
    G = la_gpm.generators.rmat(8, seed=1)     # 5-vertex enumeration and hybrid: a small graph (max degree 169)
    assert gc.small_shape(G, 4) is not None   # small enough for census_small
    want = {k: la_gpm.census(G, k, backend="cpu")["count"].tolist() for k in (3, 4, 5)}
    want_n = {k: la_gpm.census(G, k, induced=False, backend="cpu")["count"].tolist() for k in (3, 4)}
    want_h = _hybrid5_noninduced(G)
    defaults = gc.SMALL_SHARED_BYTES, gc.HUB_DEGREE, gc.C5_HUB_DEGREE
    # census_small (k = 3 / 4); the global-counter kernels without hub blocks; with hub blocks (degree >= 32)
    for small, hub in ((defaults[0], defaults[1]), (0, defaults[1]), (0, 32)):
        gc.SMALL_SHARED_BYTES, gc.HUB_DEGREE, gc.C5_HUB_DEGREE = small, hub, min(hub, defaults[2])
        for k in (3, 4):
            assert gc.closed_form_noninduced(G, k) == want_n[k], (k, hub)
        for k in (4, 5):
            assert gc.esu_counts(G, k) == want[k], (k, hub)
        assert gc.hybrid5_noninduced(G) == want_h, hub
    gc.SMALL_SHARED_BYTES, gc.HUB_DEGREE, gc.C5_HUB_DEGREE = defaults
    # bowties listed / every hub in bulk (c5_bowtie_rows, c5_bowtie_bulk)
    bdefaults = gc.BOWTIE_BULK, gc.BOWTIE_BULK_RATIO
    for setting in ((1 << 62, 4), (1, 1e12)):
        gc.BOWTIE_BULK, gc.BOWTIE_BULK_RATIO = setting
        assert gc.hybrid5_noninduced(G) == want_h, setting
    gc.BOWTIE_BULK, gc.BOWTIE_BULK_RATIO = bdefaults


def batch(G):
    G = la_gpm.generators.rmat(8, seed=1)     # the batch enumerates every match: a small graph
    pats = ["diamond", "4-cycle", "house", "tailed-triangle", "5-path", "hourglass", "pentagon", "4-clique"]
    for induced in (False, True):
        want = [la_gpm.count(G, p, induced=induced, backend="cpu") for p in pats]
        assert la_gpm.count_many(G, pats, induced=induced, backend="gpu") == want, induced
        assert la_gpm.count_many(G, pats, induced=induced, backend="gpu", deep_items=0) == want, induced


def color_coding(G):
    import numpy as np
    for name in ("u5", "u7"):
        c = la_gpm.estimate(G, name, seed=5, max_colorings=2, backend="cpu", dtype="float64")
        g = la_gpm.estimate(G, name, seed=5, max_colorings=2, backend="gpu", dtype="float64")
        np.testing.assert_allclose(g.values, c.values, rtol=1e-12)


def motif_sampler(G):
    a = la_gpm.estimate_census(G, 5, seed=3, adaptive=False, max_colorings=2, backend="cpu",
                               samples_per_coloring=1 << 12)
    b = la_gpm.estimate_census(G, 5, seed=3, adaptive=False, max_colorings=2, backend="gpu",
                               samples_per_coloring=1 << 12)
    assert a.drop(columns=["edges"]).equals(b.drop(columns=["edges"]))


PARTS = {"triangles": triangles, "cliques": cliques, "trie": trie, "census": census, "batch": batch,
         "color_coding": color_coding, "motif_sampler": motif_sampler}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=sorted(PARTS) + ["all"], default="all")
    ap.add_argument("--scale", type=int, default=10, help="R-MAT scale of the workload (racecheck: smaller)")
    a = ap.parse_args()
    G = la_gpm.generators.rmat(a.scale, seed=1)
    for name, fn in PARTS.items():
        if a.part in (name, "all"):
            fn(G)
            print(f"sanitize_kernels {name}: all GPU results equal the CPU backend")


if __name__ == "__main__":
    main()
