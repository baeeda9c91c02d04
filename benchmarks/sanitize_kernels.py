"""Small workloads for compute-sanitizer over every kernel file: triangles (hub kernel included), cliques,
trie, the dfs engine (enum: counts, listings, deep work items), census (closed forms, ESU, the 5-vertex
hybrid, the directed ESU), the batch interpreter (batch: R-MAT; batch_hprd: labeled, induced, tiny capacities, HPRD
queries), color coding, the motif sampler and the batch-dynamic engine (gamma.cu).

    compute-sanitizer --tool memcheck  python benchmarks/sanitize_kernels.py
    compute-sanitizer --tool racecheck --kernel-name-exclude kns=cupy \
        python benchmarks/sanitize_kernels.py --part triangles   # or any part (trie: --scale 7)
    bash benchmarks/device.sh sanitize triangles census -- triangles census     # on the GPU machine

(racecheck is slow: one part per call keeps each under its own time limit; CuPy's own kernels are excluded
because ``cupy_nonzero`` reports benign races inside CuPy.)

Every GPU result is checked against the CPU backend (batch_hprd: against the published counts), so a run
that finishes also proves the kernels computed the right thing under the sanitizer.
"""

from __future__ import annotations

import argparse

import numpy as np
from harness import NOT_HERE, has_gpu, hprd_queries

import la_gpm
from la_gpm.api import count_pattern
from la_gpm.exact import plan_for, run_plan


def triangles(G):
    from la_gpm.triangles.gpu import triangle_count
    want = la_gpm.count(G, "triangle", backend="cpu")
    for kw in (dict(schedule="uniform", group=4), dict(schedule="uniform", group=32, pivots=True),
               dict(schedule="bucketed", pivots=True), dict(schedule="bucketed", pivots=False),
               dict(schedule="bucketed", hub_min=1), dict(schedule="bucketed", hub_min=8),
               dict(schedule="bucketed", hub_min=0)):   # hub kernel on every row, on some, on none
        assert triangle_count(G, **kw) == want, kw
    assert (la_gpm.triangles_per_vertex(G, backend="gpu") == la_gpm.triangles_per_vertex(G, backend="cpu")).all()


def cliques(G):
    from la_gpm.kcliques.gpu import clique_count
    for k in (4, 5):
        w = la_gpm.count(G, f"{k}-clique", backend="cpu")
        for method in ("stack", "bitmap"):
            assert clique_count(G, k, method=method) == w
            assert sum(clique_count(G, k, part=(i, 3), method=method) for i in range(3)) == w


def trie(G):
    from la_gpm.exact.cuts import count_plan_bfs
    from la_gpm.patterns import as_pattern
    for name, induced in (("diamond", False), ("4-cycle", True), ("house", False)):
        P = as_pattern(name)
        w = count_pattern(G, P, induced=induced, backend="cpu")
        assert count_plan_bfs(G, plan_for(G, P, induced=induced, reuse=False))[0] == w
        assert count_plan_bfs(G, plan_for(G, P, induced=induced, reuse=False), memory_budget=1 << 15)[0] == w


def labeled_graph():
    """A random 60-vertex graph with 3 vertex labels and 2 edge labels, and a labeled tailed triangle."""
    rng = np.random.default_rng(0)
    n = 60
    src, dst = np.nonzero(np.triu(rng.random((n, n)) < 0.15, 1))
    GL = la_gpm.Graph.from_edges(src, dst, n=n, vertex_labels=rng.integers(0, 3, n),
                                 edge_labels=rng.integers(0, 2, src.shape[0]))
    P = la_gpm.Pattern([(0, 1), (1, 2), (2, 0), (2, 3)], vertex_labels=[0, 1, 2, 0],
                       edge_labels={(0, 1): 0, (1, 2): 1, (0, 2): 0, (2, 3): 1})
    return GL, P


def rows_of(chunks, k):
    return np.concatenate(list(chunks) or [np.zeros((0, k), np.int64)])


def enum(G):
    """The dfs engine on karate and a labeled graph: counts and listings (labels, edge labels, induced, reuse),
    and deep work items (breadth-first expansion to depth k - 1, rebuild of reused sets)."""
    from la_gpm.exact.dumato import count_plan_gpu, list_plan_gpu
    from la_gpm.exact.match import match
    G = la_gpm.datasets.load("karate")
    for name in ("wedge", "4-cycle", "diamond", "house", "tailed-triangle", "5-clique"):
        for induced in (False, True):
            a = (count_pattern(G, name, induced=induced, backend="gpu", gpu_engine="dfs") if name != "5-clique"
                 else count_plan_gpu(G, plan_for(G, la_gpm.Pattern.named(name)))[0])
            b = count_pattern(G, name, induced=induced, backend="cpu")
            assert a == b, (name, induced, a, b)
    GL, P = labeled_graph()
    for induced in (False, True):
        assert count_pattern(GL, P, induced=induced, backend="gpu", gpu_engine="dfs") == count_pattern(GL, P, induced=induced)
        rows = rows_of(match(GL, P, induced=induced, backend="gpu", chunk_size=5), 4)
        cpu = rows_of(match(GL, P, induced=induced), 4)
        assert set(map(tuple, rows.tolist())) == set(map(tuple, cpu.tolist()))
    rows = np.concatenate(list(match(G, "house", backend="gpu", chunk_size=97)))
    assert rows.shape[0] == count_pattern(G, "house", count="embeddings")
    for name in ("diamond", "house", "5-clique"):
        for induced in (False, True):
            plan = plan_for(G, la_gpm.Pattern.named(name), induced=induced)
            assert count_plan_gpu(G, plan, deep_items=10**9)[0] == run_plan(G, plan)[0], (name, induced)
    rows = rows_of(list_plan_gpu(GL, plan_for(GL, P, symmetry=False), chunk_size=5, deep_items=10**9), 4)
    assert rows.shape[0] == count_pattern(GL, P, count="embeddings")


def census8(G):
    """census_esu8 (k = 8, the two-level class lookup) on a small graph, against the CPU: G(50, 150) has 6.7 million
    connected 8-vertex subgraphs in 3,076 classes (rmat(6)'s 441 million took racecheck past 90 s)."""
    from la_gpm.motifs import gpu as gc
    H = la_gpm.generators.gnm(50, 150, seed=1)
    assert gc.esu_counts(H, 8) == [int(c) for c in la_gpm.census(H, 8, backend="cpu")["count"]]


def census(G):
    from la_gpm.motifs import gpu as gc
    from la_gpm.motifs.hybrid import hybrid5_noninduced
    G = la_gpm.generators.rmat(8, seed=1)     # 5-vertex enumeration and hybrid: a small graph (max degree 169)
    assert gc.small_shape(G, 4) is not None   # small enough for census_small
    want = {k: la_gpm.census(G, k, backend="cpu")["count"].tolist() for k in (3, 4, 5)}
    want_n = {k: la_gpm.census(G, k, induced=False, backend="cpu")["count"].tolist() for k in (3, 4)}
    want_h = hybrid5_noninduced(G)
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
    # the directed census (census_esu_directed): the R-MAT graph's edges oriented at random, 20% both ways
    from la_gpm.motifs.directed import directed_classes, directed_counts, underlying
    D = oriented(G, seed=2)
    for k in (3, 4):
        cls = directed_classes(k)
        got = gc.directed_esu_counts(D, underlying(D), k, cls.table, len(cls.keys))
        assert got == directed_counts(D, k, method="enumerate")[0], ("directed", k)


def oriented(G, seed):
    """A directed graph on G's edges: each one oriented at random, 20% of them reciprocal."""
    rng = np.random.default_rng(seed)
    src = np.repeat(np.arange(G.n), np.diff(G.indptr))
    dst = G.indices.astype(np.int64)
    keep = src < dst
    src, dst = src[keep], dst[keep]
    flip = rng.random(src.size) < 0.5
    both = rng.random(src.size) < 0.2
    a, b = np.where(flip, dst, src), np.where(flip, src, dst)
    return la_gpm.Graph.from_edges(np.concatenate([a, b[both]]), np.concatenate([b, a[both]]), n=G.n, directed=True)


def batch(G):
    G = la_gpm.generators.rmat(8, seed=1)     # the batch enumerates every match: a small graph
    pats = ["diamond", "4-cycle", "house", "tailed-triangle", "5-path", "hourglass", "pentagon", "4-clique"]
    for induced in (False, True):
        want = [la_gpm.count(G, p, induced=induced, backend="cpu") for p in pats]
        assert la_gpm.count_many(G, pats, induced=induced, backend="gpu") == want, induced
        assert la_gpm.count_many(G, pats, induced=induced, backend="gpu", deep_items=0) == want, induced


def batch_hprd(G):
    """Small batches: unlabeled, vertex- and edge-labeled, induced, tiny level capacities, chunks; the first 12
    HPRD queries against their published counts."""
    import la_gpm.exact.dumato as genum
    from la_gpm.api import count_many
    G = la_gpm.datasets.load("karate")
    names = ["edge", "wedge", "triangle", "4-cycle", "diamond", "house", "tailed-triangle", "5-path", "hourglass"]
    for induced in (False, True):
        want = [count_pattern(G, n, induced=induced, closed_forms=False) for n in names]
        for deep in (None, 0, 10**9):
            assert count_many(G, names, induced=induced, backend="gpu", deep_items=deep) == want
        old = genum.BATCH_MAX_ITEMS
        genum.BATCH_MAX_ITEMS = 3
        try:
            assert count_many(G, names, induced=induced, backend="gpu", deep_items=10**9) == want
        finally:
            genum.BATCH_MAX_ITEMS = old
        assert count_many(G, names, induced=induced, backend="gpu", memory_budget=3 * 20 * 4 * 4 + 600) == want
    GL, P = labeled_graph()
    pats = [P, la_gpm.Pattern([(0, 1), (1, 2), (2, 3), (3, 0)], vertex_labels=[0, 1, 0, 1]),
            la_gpm.Pattern([(0, 1)], vertex_labels=[2, 2], edge_labels={(0, 1): 1}), "4-cycle", "diamond"]
    for induced in (False, True):
        want = [count_pattern(GL, Q, induced=induced, closed_forms=False) for Q in pats]
        assert count_many(GL, pats, induced=induced, backend="gpu") == want
        assert count_many(GL, pats, induced=induced, backend="gpu", deep_items=0) == want
    H, _, Qs, want = hprd_queries(12)
    assert count_many(H, Qs, count="embeddings", backend="gpu") == want


def color_coding(G):
    for name in ("u5", "u7", "u10"):      # u10's widest eMA runs on cc_ema_lanes
        c = la_gpm.estimate(G, name, seed=5, max_colorings=2, backend="cpu", dtype="float64")
        g = la_gpm.estimate(G, name, seed=5, max_colorings=2, backend="gpu", dtype="float64")
        np.testing.assert_allclose(g.values, c.values, rtol=1e-12)
    # u15's products of 6: the sorted SpMM's tiles (120 KB) past 48 KB, opted in; each against the gather kernel
    import cupy as cp
    from la_gpm.color_coding.cpu_kernels import coloring_keys, colors_from_keys
    from la_gpm.color_coding.gpu import GpuOps
    from la_gpm.color_coding.trees import rooted_gather_table
    k, p = 15, 6
    ops = GpuOps(G, k, np.dtype("float32"), "auto", None)
    colors = cp.asarray(colors_from_keys(coloring_keys(3, 0, 1), G.n, k))
    Q = rooted_gather_table(k, p)
    X = cp.asarray(np.random.default_rng(1).random((G.n, int(Q.max()) + 1), dtype=np.float32))
    want = ops.spmm_rooted(X, Q, colors, p, ("gather",)).get()
    for var in [v for v in ops.rooted_variants(p) if v[0] == "sorted"]:
        np.testing.assert_allclose(ops.spmm_rooted(X, Q, colors, p, var).get(), want, rtol=1e-5,
                                   atol=1e-5 * float(want.max()))
    # the same product in three row blocks (streamed products: a block's work items, hub chunks included), every
    # variant, equal to its whole product row for row
    cuts = [0, G.n // 3, (2 * G.n) // 3, G.n]
    for var in ops.rooted_variants(p):
        whole = ops.spmm_rooted(X, Q, colors, p, var).get()
        parts = [ops.spmm_rooted(X, Q, colors, p, var, rows=(a, b)).get() for a, b in zip(cuts, cuts[1:])]
        np.testing.assert_array_equal(np.concatenate(parts), whole)
    # u15-1's root product on cc_ema_lanes with 4 lane groups a set (shuffled partials) against one group a set
    from la_gpm.color_coding.trees import split_tables
    key = (14, 13, 7)
    sa, sp = split_tables(*key)
    rng = np.random.default_rng(2)
    A = cp.asarray(rng.random((77, 3432), dtype=np.float32))
    B = cp.asarray(rng.random((77, 3003), dtype=np.float32))
    got = {}
    for parts in (None, 1):
        ops.ema_parts = parts
        got[parts] = ops.ema(A, B, sa, sp, 0.5, 0.5, key)[0].get()
    ops.ema_parts = None
    np.testing.assert_allclose(got[None], got[1], rtol=1e-5)


COLORING = "balanced"    # --coloring: "uniform" keeps CuPy's argsort (balanced colorings; thrust) out of initcheck


def motif_sampler(G):
    """estimate_census on the GPU (me_sample.cu) at k = 5 and 8 in its three layouts: full (vertex order), chunked
    (degree order: the mapped samplers) and spill (degree order, managed memory partly in host memory); cpu == gpu."""
    from la_gpm.motif_estimate.driver import table_layout
    from la_gpm.motif_estimate.gpu import GpuSampler
    for k in (5, 8):
        kw = dict(seed=3, adaptive=False, max_colorings=2, samples_per_coloring=1 << 12, coloring=COLORING)
        a = la_gpm.estimate_census(G, k, backend="cpu", **kw)
        lay = table_layout(G, k, "gpu", GpuSampler(G, k), None, force="chunked", batch=1 << 12)
        for budget in (None, max(lay.floor, lay.resident + 64 * lay.row), lay.floor - 1):
            b = la_gpm.estimate_census(G, k, backend="gpu", memory_budget=budget, **kw)
            assert a.drop(columns=["edges"]).equals(b.drop(columns=["edges"])), (k, budget)
            print(f"motif_sampler k={k} {b.attrs['table_layout']} ({b.attrs['table_chunks']} chunks): cpu == gpu")


def dynamic(G):
    """match_delta (gamma.cu) on email-Eu-core with 8 neighbours per work item (split items), counts and
    listings, induced and not, cpu == gpu."""
    G = la_gpm.datasets.load("email-Eu-core")
    rng = np.random.default_rng(5)
    ins = G.ids[rng.integers(0, G.n, size=(300, 2))]
    E = G.ids[np.argwhere(np.triu(G.to_scipy().toarray()))]
    dele = E[rng.choice(len(E), 150, replace=False)]
    with la_gpm.config.set(dynamic_split=8):
        for q, ind in (("triangle", False), ("diamond", True), ("house", False), ("4-path", True)):
            for listing in (False, True):
                a = la_gpm.match_delta(G, q, insert=ins, delete=dele, induced=ind, listing=listing, backend="cpu")
                b = la_gpm.match_delta(G, q, insert=ins, delete=dele, induced=ind, listing=listing, backend="gpu")
                assert (a.positive, a.negative) == (b.positive, b.negative), (q, a, b)
                print(q, ind, listing, a.positive, a.negative, "cpu == gpu")
    # hand-ons (gamma.cu's notes): every step looked at, few warps; pieces and pieces of pieces in further launches
    P6 = la_gpm.Pattern([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (1, 4)], k=6)
    with la_gpm.config.set(dynamic_gpu_split_us=1, memory_budget=1 << 16):
        for q, ind in (("house", False), (P6, False), (P6, True)):
            a = la_gpm.match_delta(G, q, insert=ins, delete=dele, induced=ind, backend="cpu")
            b = la_gpm.match_delta(G, q, insert=ins, delete=dele, induced=ind, backend="gpu")
            assert (a.positive, a.negative) == (b.positive, b.negative), (q, a, b)
            print(q, ind, "hand-ons", b.stats.get("gpu_pieces"), "pieces,", b.stats.get("gpu_launches"), "launches",
                  a.positive, a.negative, "cpu == gpu")
    # DynamicGraph: the device mirror of the arc store, sent in part per batch, committed batches
    Dc = la_gpm.DynamicGraph(G, ["triangle", "diamond"], backend="cpu")
    Dg = la_gpm.DynamicGraph(G, ["triangle", "diamond"], backend="gpu")
    for t in range(4):
        i2, d2 = (ins[60 * t:60 * t + 60], dele[30 * t:30 * t + 30])
        a = [(d.positive, d.negative) for d in Dc.apply(insert=i2, delete=d2)]
        b = [(d.positive, d.negative) for d in Dg.apply(insert=i2, delete=d2)]
        assert a == b, (t, a, b)
        print("DynamicGraph batch", t, a, "cpu == gpu")


def orbits5(G):
    """orbits(G, 5) on the GPU (orbits5.cu: triangle lists, 4-clique extensions, the 58 feature sums, the
    back-substitution): an R-MAT graph with hubs and karate, block and warp groups, one scratch slice."""
    for H in (G, la_gpm.datasets.load("karate")):
        want = la_gpm.orbits(H, 5, backend="cpu")
        assert np.array_equal(la_gpm.orbits(H, 5, backend="gpu"), want)
        with la_gpm.config.set(memory_budget=1):
            assert np.array_equal(la_gpm.orbits(H, 5, backend="gpu"), want)
    print("orbits5: cpu == gpu")


PARTS = {"triangles": triangles, "cliques": cliques, "trie": trie, "enum": enum, "census": census, "census8": census8,
         "batch": batch,
         "batch_hprd": batch_hprd, "color_coding": color_coding, "motif_sampler": motif_sampler, "dynamic": dynamic,
         "orbits5": orbits5}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=sorted(PARTS) + ["all"], default="all")
    ap.add_argument("--scale", type=int, default=10, help="R-MAT scale of the workload (racecheck: smaller)")
    ap.add_argument("--coloring", choices=["balanced", "uniform"], default="balanced",
                    help="motif_sampler's colorings (uniform: no CuPy argsort, whose thrust sort initcheck reports)")
    a = ap.parse_args()
    global COLORING
    COLORING = a.coloring
    if not has_gpu():
        print("sanitize_kernels.py: needs a GPU (CuPy with a CUDA device); none here: not run", flush=True)
        raise SystemExit(NOT_HERE)
    G = la_gpm.generators.rmat(a.scale, seed=1)
    for name, fn in PARTS.items():
        if a.part in (name, "all"):
            fn(G)
            print(f"sanitize_kernels {name}: all GPU results equal the CPU backend")


if __name__ == "__main__":
    main()
