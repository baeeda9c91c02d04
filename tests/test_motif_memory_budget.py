"""Motif estimation within a memory budget: the chunked table layout gives the full layout's numbers and samples,
the budget is respected (counted bytes, model, and tracemalloc), and a budget below the smallest chunk raises."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest

import la_gpm
from la_gpm.exceptions import InvalidArgument, MemoryBudgetTooSmall
from la_gpm.motif_estimate.driver import estimate_census, table_layout
from la_gpm.motif_estimate.memory import Layout, choose_layout
from la_gpm.motif_estimate.tables import CpuTables


def _chunked(rows):
    return Layout("chunked", rows, 0, 0, 0, 0)


@pytest.mark.parametrize("k", [4, 6, 8])
def test_chunked_tables_and_samples_equal_full(monkeypatch, k):
    """Same M, root sums, shape totals and samples (plain and AGS mixture), with hubs (runs of 4) and chunks of
    1, 5 and all rows; a mutation of the sampler's recomputed B (order or hub runs) changes the samples."""
    import la_gpm.motif_estimate.tables as ME
    monkeypatch.setattr(ME, "HUB_CHUNK", 4)
    for G in (la_gpm.datasets.load("karate"), la_gpm.generators.rmat(8, seed=3)):
        colors = ((np.arange(G.n) * 7 + 3) % k).astype(np.int8)
        A = CpuTables(G, k, colors)
        assert (A.hub_off >= 0).any()
        assert np.array_equal(A.root_cum, np.cumsum(A.root_w.ravel()))     # the in-place sums are numpy's
        va = A.sample(2000, key=5, first=3)
        q = np.linspace(1, 2, len(A.shape_treelets))
        q /= q.sum()
        for rows in (1, 5, G.n):
            if rows == 1 and G.n > 40:
                continue
            B = CpuTables(G, k, colors, layout=_chunked(rows))
            assert B.B is None and B.Pt is None
            assert np.array_equal(A.M, B.M) and np.array_equal(A.root_cum, B.root_cum)
            assert np.array_equal(A.shape_treelets, B.shape_treelets)
            vb = B.sample(2000, key=5, first=3)
            assert all(np.array_equal(x, y) for x, y in zip(va, vb))
            A2 = CpuTables(G, k, colors)
            A2.set_mixture(q)
            B.set_mixture(q)
            assert np.array_equal(A2.root_cum, B.root_cum)
            assert all(np.array_equal(x, y) for x, y in zip(A2.sample(1000, key=9), B.sample(1000, key=9)))


def _floor(G, k, batch=1 << 16, kind="chunked"):
    return table_layout(G, k, "cpu", None, None, force=kind, batch=batch).floor


def test_small_budget_same_estimate_and_respected():
    """A budget that forces several vertex chunks gives the unbounded run's DataFrame for a seed (k = 6 and 8,
    AGS on); the counted peak is within the budget and below the full layout's."""
    G = la_gpm.generators.rmat(9, seed=1)
    for k, spc in ((6, 256), (8, 1024)):
        kw = dict(seed=7, max_colorings=4, samples_per_coloring=spc, min_colorings=2)
        a = estimate_census(G, k, backend="cpu", **kw)
        assert a.attrs["table_layout"] == "full" and a.attrs["memory_budget"] is None
        lay = table_layout(G, k, "cpu", None, None, force="chunked", batch=spc)
        assert a.attrs["table_bytes"] <= a.attrs["table_bytes_model"] == lay.full
        budget = max(lay.floor, lay.resident + 40 * lay.row)          # 40 rows per chunk
        assert budget < lay.full
        b = estimate_census(G, k, backend="cpu", memory_budget=budget, **kw)
        assert b.attrs["table_layout"] == "chunked" and b.attrs["table_chunks"] >= 3
        assert 0 < b.attrs["table_bytes"] <= b.attrs["table_bytes_model"] <= budget
        assert a.drop(columns=["edges"]).equals(b.drop(columns=["edges"]))
        for key in ("colorings", "samples", "total", "colorful_treelets", "adaptive_colorings"):
            assert a.attrs[key] == b.attrs[key], key


def test_budget_below_the_smallest_spill_raises_with_the_budget_that_would_do():
    G = la_gpm.generators.rmat(8, seed=2)
    k = 6
    floor = _floor(G, k, batch=1024, kind="spill")
    assert floor < _floor(G, k, batch=1024) // 4
    with pytest.raises(MemoryBudgetTooSmall) as e:
        estimate_census(G, k, backend="cpu", seed=1, max_colorings=1, memory_budget=floor - 1,
                        samples_per_coloring=1024)
    assert e.value.needed == floor and e.value.budget == floor - 1 and str(floor) in str(e.value)
    assert isinstance(e.value, la_gpm.LaGpmError) and isinstance(e.value, MemoryError)
    df = estimate_census(G, k, backend="cpu", seed=1, max_colorings=2, min_colorings=1, memory_budget=floor,
                         samples_per_coloring=1024)
    assert df.attrs["table_layout"] == "spill" and df.attrs["table_bytes"] <= floor
    with pytest.raises(InvalidArgument):
        estimate_census(G, k, backend="cpu", seed=1, memory_budget=0)
    with pytest.raises(InvalidArgument):
        estimate_census(G, k, backend="cpu", seed=1, memory_budget="1 GB")


def test_counted_bytes_cover_the_real_allocations():
    """tracemalloc (numpy reports its buffers to it) sees no more than the ledger counts while the tables of one
    coloring are built and sampled, in both layouts; and the ledger stays within the model's peak."""
    G = la_gpm.generators.rmat(9, seed=5)
    k = 7
    colors = ((np.arange(G.n) * 5 + 1) % k).astype(np.int8)
    pl = la_gpm.motif_estimate.shapes.shape_plan(k)
    c = table_layout(G, k, "cpu", None, None, force="chunked", batch=4096)
    for force, budget in (("full", None), ("chunked", max(c.floor, c.resident + 16 * c.row))):
        lay = table_layout(G, k, "cpu", None, budget, force=force, batch=4096)
        assert lay.chunks >= (1 if budget is None else 2)
        CpuTables(G, k, colors, layout=lay).sample(64, key=1)      # compiled before measuring
        tracemalloc.start()
        try:
            T = CpuTables(G, k, colors, layout=lay)
            T.sample(4096, key=1)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak <= T.mem.peak + (256 << 10), (force, peak, T.mem.peak)
        assert T.mem.peak <= lay.peak and (budget is None or lay.peak <= budget)


def test_layout_choice():
    kw = dict(backend="cpu", n=1000, WM=615, WB=567, tops=48, k=7, slots=10, batch=1 << 16)
    full = choose_layout(budget=None, **kw)
    assert full.kind == "full" and full.chunks == 1
    assert choose_layout(budget=full.peak, **kw).kind == "full"
    c = choose_layout(budget=full.peak - 1, **kw)
    assert c.kind == "chunked" and c.peak <= full.peak - 1 and c.floor <= c.peak
    kw["batch"] = 16         # above the roots (169 rows of B here) the rows follow the budget
    c = choose_layout(budget=None, force="chunked", **kw)
    for r in (170, 333, 999):
        d = choose_layout(budget=max(c.floor, c.resident + r * c.row), **kw)
        assert d.kind == "chunked" and d.rows == r and d.chunks == -(-1000 // r)
        assert d.peak <= max(c.floor, c.resident + r * c.row)
    assert choose_layout(budget=c.floor - 1, **kw).kind == "spill"
    with pytest.raises(MemoryBudgetTooSmall):
        choose_layout(budget=c.floor - 1, force="chunked", **kw)
    with pytest.raises(InvalidArgument):
        choose_layout(budget=None, force="compressed", **kw)


def test_layout_graph_term_per_layout():
    """The gpu's graph term per layout (full, chunked, spill): the layouts built on the degree-ordered relabelling
    count its copy; the full layout's fit uses its own term only."""
    kw = dict(backend="gpu", n=1000, WM=615, WB=567, tops=48, k=7, slots=10, batch=16)
    terms = (1000, 5000, 7000)
    one = choose_layout(budget=None, graph_bytes=1000, **kw)
    per = choose_layout(budget=None, graph_bytes=terms, **kw)
    assert per.kind == one.kind == "full" and per.peak == one.peak
    assert per.resident == one.resident + 4000 and per.floor == one.floor + 4000
    assert choose_layout(budget=one.peak, graph_bytes=terms, **kw).kind == "full"
    c = choose_layout(budget=one.peak - 1, graph_bytes=terms, **kw)
    assert c.kind == "chunked" and c.resident == per.resident
    c = choose_layout(budget=per.resident + 500 * per.row, graph_bytes=terms, **kw)
    assert c.kind == "chunked" and c.rows == 500
    assert choose_layout(budget=per.resident + 500 * per.row - 1, graph_bytes=terms, **kw).rows == 499
    s = choose_layout(budget=per.floor - 1, graph_bytes=terms, **kw)
    t = choose_layout(budget=per.floor - 1, graph_bytes=7000, force="spill", **kw)
    assert s.kind == "spill" and (s.floor, s.m_rows, s.rows, s.spilled) == (t.floor, t.m_rows, t.rows, t.spilled)
    from la_gpm.motif_estimate import gpu as GM
    assert [GM.relabels(kind) for kind in ("full", "chunked", "spill")] == [False, True, True]


# ----------------------------------------------------------------------------- below the chunked floor: spilled
def test_spill_layout_choice():
    """Below the chunked layout's floor the spill layout: on the gpu the first rows of M that fit (more with a
    larger budget, all where they fit beside the build), on the cpu all or none; the root weights always off the
    budget; its floor (graph state, hub sums, one build row or one sample batch) the smallest budget that runs;
    off-budget bytes beyond ``spill_room`` raise naming a budget that does run."""
    for be in ("gpu", "cpu"):
        kw = dict(backend=be, n=100_000, WM=615, WB=567, tops=48, k=7, slots=50, batch=1 << 12,
                  graph_bytes=10_000_000 if be == "gpu" else 0)
        c = choose_layout(budget=None, force="chunked", **kw)
        last = -1
        for budget in (c.floor - 1, c.floor * 3 // 4, c.floor // 2, c.floor // 10):
            s = choose_layout(budget=budget, **kw)
            assert s.kind == "spill" and s.peak <= budget and s.floor <= budget
            assert s.spilled == (kw["n"] - s.m_rows) * 615 * 8 + 2 * 48 * kw["n"] * 8
            assert s.chunks == -(-kw["n"] // s.rows) and s.rows >= 1
            if be == "cpu":
                assert s.m_rows in (0, kw["n"])
            else:
                assert 0 <= s.m_rows <= kw["n"] and (last < 0 or s.m_rows <= last)
                assert (budget - s.peak) < 615 * 8 or s.m_rows == kw["n"]      # every row that fits is used
                last = s.m_rows
        assert choose_layout(budget=c.floor - 1, **kw).m_rows == kw["n"]       # only the roots go
        s = choose_layout(budget=c.floor // 10, **kw)
        assert choose_layout(budget=s.floor, **kw).kind == "spill"
        with pytest.raises(MemoryBudgetTooSmall) as e:
            choose_layout(budget=s.floor - 1, **kw)
        assert e.value.needed == s.floor
        assert choose_layout(budget=c.floor // 2, force="spill", **kw).kind == "spill"
        assert choose_layout(budget=None, force="spill", **kw).m_rows == kw["n"]
        with pytest.raises(MemoryBudgetTooSmall) as e:       # too little room off the budget
            choose_layout(budget=c.floor // 2, spill_room=s.spilled // 2, **kw)
        n = e.value.needed
        assert c.floor // 2 < n <= c.floor
        assert choose_layout(budget=n, spill_room=s.spilled // 2, **kw).kind in ("spill", "chunked")


def test_cpu_spill_same_estimate_within_budget():
    """The cpu's spill layout (root weights, and M below the chunked floor, in temporary files): the unbounded
    run's DataFrame for a seed at k = 6 and 8, with M in memory and in a file; the counted peak within the budget,
    the spilled bytes reported; no temporary file left behind."""
    import os
    import tempfile
    G = la_gpm.generators.rmat(9, seed=1)
    before = set(os.listdir(tempfile.gettempdir()))
    for k, spc in ((6, 256), (8, 512)):
        kw = dict(seed=7, max_colorings=2, samples_per_coloring=spc, min_colorings=2)
        a = estimate_census(G, k, backend="cpu", **kw)
        c = table_layout(G, k, "cpu", None, None, force="chunked", batch=spc)
        s = table_layout(G, k, "cpu", None, None, force="spill", batch=spc)
        for budget, m_in in ((c.floor - 1, True), (s.floor, False)):
            b = estimate_census(G, k, backend="cpu", memory_budget=budget, **kw)
            at = b.attrs
            assert at["table_layout"] == "spill" and 0 < at["table_bytes"] <= at["table_bytes_model"] <= budget
            lay = table_layout(G, k, "cpu", None, budget, batch=spc)
            pl = la_gpm.motif_estimate.shapes.shape_plan(k)
            assert lay.m_rows == (G.n if m_in else 0)
            assert at["table_spilled_bytes"] == lay.spilled == 2 * 8 * G.n * len(pl.top) + (0 if m_in else
                                                                                           8 * G.n * pl.WM)
            assert a.drop(columns=["edges"]).equals(b.drop(columns=["edges"])), (k, budget)
            for key in ("colorings", "samples", "total", "colorful_treelets"):
                assert a.attrs[key] == b.attrs[key], key
    assert not {f for f in set(os.listdir(tempfile.gettempdir())) - before if f.startswith("la_gpm_tables_")}


def test_warmup_runs_the_layouts_a_budget_picks(monkeypatch):
    """``la_gpm.warmup(["motif_estimate"])`` builds and samples the full layout and, under a budget below the chunked
    floor, the spill layout (the chunked build and samplers), so a budgeted run's first call compiles nothing."""
    import la_gpm.motif_estimate.driver as D
    seen = []
    real = D.table_layout

    def spy(*a, **kw):
        lay = real(*a, **kw)
        seen.append(lay.kind)
        return lay

    monkeypatch.setattr(D, "table_layout", spy)
    la_gpm.warmup(["motif_estimate"], progress=False)
    assert {"full", "spill"} <= set(seen), seen


# ----------------------------------------------------------------------------- the GPU chunked build, emulated
def _emulated_rows_kernels():
    """numpy stand-ins of me_sample.cu's build kernels, the chunked ones included (same arguments)."""
    def leaf(g, b, a):
        col, M, n, W, off, k = a
        for q in range(int(k)):
            M[:, off + q] = col == q

    def spmm(g, b, a):
        ptr, idx, M, W, offM, B, WB, offB, C, tv, tc, ntask, hub_slot, CH, P, row0 = a
        C, CH = int(C), int(CH)
        for t in range(int(ntask)):
            v, c = tv[t], tc[t]
            e0 = ptr[v] + c * CH
            acc = np.zeros(C)
            for u in idx[e0:min(e0 + CH, ptr[v + 1])]:
                acc = acc + M[u, offM:offM + C]
            if hub_slot[v] < 0:
                B[v - row0, offB:offB + C] = acc
            else:
                P[hub_slot[v] + c, offB:offB + C] = acc

    def hub_sum(g, b, a):
        P, B, WB, offB, C, hv, hs0, hns, nhub, row0 = a
        for h in range(int(nhub)):
            s = np.zeros(int(C))
            for q in range(hns[h]):
                s = s + P[hs0[h] + q, offB:offB + int(C)]
            B[hv[h] - row0, offB:offB + int(C)] = s

    def ema(g, b, a):
        M, W, B, WB, dst, offA, offB, s0, ns, sa, sp, E, v0, nrows = a
        rows = slice(int(v0), int(v0 + nrows))
        for e in range(int(E)):
            acc = np.zeros(int(nrows))
            for j in range(ns[e]):
                x = M[rows, offA[e] + sa[s0[e] + j]]
                acc = np.where(x != 0, acc + x * B[:int(nrows), offB[e] + sp[s0[e] + j]], acc)
            M[rows, dst[e]] = acc

    table = {"me_leaf": leaf, "me_ema_level_rows": ema, "me_spmm_hub_sum_rows": hub_sum}
    return lambda pkg, f, name: spmm if name.startswith("me_spmm_rows") else table[name]


def _b_entry(G, M, P, hub_slot, CH, colM, colB, v):
    """me_sample.cu's me_b_entry: B[v, colB] recomputed from the hubs' chunk sums or the neighbours' M."""
    e0, e1 = G.indptr[v], G.indptr[v + 1]
    s = 0.0
    if hub_slot[v] >= 0:
        for q in range(-(-(e1 - e0) // CH)):
            s += P[hub_slot[v] + q, colB]
        return s
    for u in G.indices[e0:e1]:
        s += M[u, colM]
    return s


def test_gpu_chunked_build_plan_reproduces_cpu_tables(monkeypatch):
    """The GPU chunked build (per level and vertex chunk, hub chunks of 3 neighbours) through numpy stand-ins of
    its kernels gives the CPU's M, and the sampler's recomputation of B from M and the hub sums P gives the
    CPU's B at every vertex (no GPU needed)."""
    import types
    import la_gpm.motif_estimate.gpu as GM
    fake = types.SimpleNamespace(asarray=np.asarray, empty=np.empty, zeros=np.zeros, full=np.full, int32=np.int32,
                                 float64=np.float64, int8=np.int8, asnumpy=np.asarray, ndarray=np.ndarray)
    monkeypatch.setattr(GM, "cupy", lambda: fake)
    monkeypatch.setattr(GM, "kernel", _emulated_rows_kernels())
    monkeypatch.setattr(GM, "device_csr", lambda G, which: (G.indptr, G.indices))
    monkeypatch.setattr(GM, "SPMM_CHUNK", 3)
    G = la_gpm.generators.rmat(6, seed=2)
    for k, relabel in ((4, False), (7, False), (4, True), (7, True)):
        pl = la_gpm.motif_estimate.shapes.shape_plan(k)
        colors = ((np.arange(G.n) * 7 + 3) % k).astype(np.int8)
        T = CpuTables(G, k, colors)
        S = GM.GpuSampler(G, k, relabel=relabel)      # relabel: the spill layout's degree order
        assert S.nslots > 0
        D = GM.GpuTables.__new__(GM.GpuTables)
        D.S, D.k, D.plan, D.n = S, k, pl, G.n
        from la_gpm.motif_estimate.memory import Ledger
        D.mem = Ledger()
        D.M = np.full((G.n, pl.WM), np.nan)
        D.P = np.full((S.nslots, pl.WB), np.nan)
        D._build_chunked(colors[S.perm] if relabel else colors, 7)
        rows = S.slot if relabel else np.arange(G.n)      # vertex v's row
        assert np.array_equal(T.M, D.M[rows])
        hub_slot = np.asarray(S.hub_slot)
        for i in np.flatnonzero(pl.offB >= 0).tolist():
            for r in range(math.comb(k, int(pl.size[i]))):
                colM, colB = int(pl.offM[i]) + r, int(pl.offB[i]) + r
                got = [_b_entry(S.csr, D.M, D.P, hub_slot, S.chunk, colM, colB, s) for s in range(G.n)]
                assert np.array_equal(np.array(got)[rows], T.B[:, colB]), (k, i, r)


def test_relabel_csr_keeps_each_list_in_its_order():
    """The chunked and spill layouts' relabelled CSR: row s is vertex perm[s]'s list, renamed, in its own order."""
    from la_gpm.primitives.csr import relabel as relabel_csr
    G = la_gpm.generators.rmat(9, seed=4)
    deg = np.diff(G.indptr)
    perm = np.argsort(-deg, kind="stable").astype(np.int32)
    slot = np.empty(G.n, dtype=np.int32)
    slot[perm] = np.arange(G.n, dtype=np.int32)
    rptr, ridx = relabel_csr(np.asarray(G.indptr, dtype=np.int64), np.asarray(G.indices, dtype=np.int32), slot,
                             sort=False)
    for s_ in range(G.n):
        v = perm[s_]
        assert np.array_equal(ridx[rptr[s_]:rptr[s_ + 1]], slot[G.indices[G.indptr[v]:G.indptr[v + 1]]])


def _old_root_w(M, pl):
    """The earlier construction of the GPU's root weights: the gathered top columns, transposed, divided by the
    automorphisms (CuPy writes a ufunc's result C-contiguous: so here too)."""
    return np.ascontiguousarray(M[:, pl.offM[pl.top]].T / pl.top_aut[:, None])


def _checked_numpy_cupy():
    """numpy stand-ins of the CuPy calls of GpuTables' root weights; ``out=`` must be the input object itself or
    share no memory with it (CuPy copies an input that shares memory with ``out`` before the kernel)."""
    import types

    def no_overlap(out, *ins):
        for a in ins:
            assert a is out or not np.shares_memory(a, out), "an input overlapping out= (CuPy would copy it)"

    def divide(a, b, out):
        no_overlap(out, a)
        return np.divide(a, b, out=out)

    def multiply(a, b, out):
        no_overlap(out, a, b)
        return np.multiply(a, b, out=out)

    def cumsum(a, out):
        assert out.flags.c_contiguous and out.ndim == 1
        no_overlap(out, a)
        return np.cumsum(a, out=out)

    return types.SimpleNamespace(asarray=np.asarray, empty=np.empty, float64=np.float64, asnumpy=np.asarray,
                                 ndarray=np.ndarray, divide=divide, multiply=multiply, cumsum=cumsum)


@pytest.mark.parametrize("device_sums", [False, True])
def test_gpu_root_weights_in_two_arrays(monkeypatch, device_sums):
    """GpuTables' root weights through numpy stand-ins of CuPy: the earlier formula's doubles (weights, per-shape
    totals, cumulative sums, and after set_mixture the weighted sums), root_w C-contiguous, the ledger's peak
    2·8·n·T = the model's "roots" term, and no transient array beside the two (tracemalloc); the host sums of
    small tables (``_HOST_CUMSUM``) and the device sums (forced with ``_HOST_CUMSUM = 0``)."""
    import types
    import la_gpm.motif_estimate.gpu as GM
    from la_gpm.motif_estimate.memory import Ledger, table_model
    from la_gpm.motif_estimate.shapes import free_shapes, shape_plan, top_free
    fake = _checked_numpy_cupy()
    if device_sums:
        monkeypatch.setattr(GM, "_HOST_CUMSUM", 0)
    rng = np.random.default_rng(4)
    for k, n in ((5, 3000), (8, 2000)):
        pl = shape_plan(k)
        T = len(pl.top)
        M = rng.integers(0, 1 << 40, size=(n, pl.WM)).astype(np.float64) * rng.random((n, pl.WM))
        D = GM.GpuTables.__new__(GM.GpuTables)
        D.S = types.SimpleNamespace(cp=fake, top_free=top_free(k), nf=len(free_shapes(k)), mapped=False)
        D.k, D.plan, D.n, D.M, D.mem = k, pl, n, M, Ledger()
        D._roots()                         # compiled / warmed
        D.root_w = D.root_cum = D.root_w_host = None
        D.mem = Ledger()
        tracemalloc.start()
        try:
            D._roots()
            q = np.linspace(1, 3, len(D.shape_treelets))
            q /= q.sum()
            D.set_mixture(q)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert D._host is not device_sums
        ref = _old_root_w(M, pl)
        assert D.root_w.flags.c_contiguous and np.array_equal(D.root_w, ref)
        per_top = ref.sum(axis=1)
        st = np.bincount(top_free(k), weights=per_top, minlength=len(free_shapes(k))) / k
        assert np.array_equal(D.shape_treelets, st)
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(st > 0, q / (k * st), 0.0)[top_free(k)]
        assert np.array_equal(D.root_cum, np.cumsum((ref * f[:, None]).ravel()))
        D.root_cum = None
        D._sums(None)
        assert np.array_equal(D.root_cum, np.cumsum(ref.ravel()))
        two = 2 * T * n * 8
        assert D.mem.peak == two == table_model("gpu", n, pl.WM, pl.WB, T, k, 1, 0)["roots"]
        # the host sums keep a host copy of the weights (small tables only): the device's bytes are the two
        assert peak <= two + (T * n * 8 if not device_sums else 0) + (256 << 10), (k, peak, two)


# ----------------------------------------------------------------------------- on the device
def _gpu_reason():
    from la_gpm.backends import gpu_status
    return gpu_status()


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=f"no GPU: {_gpu_reason()}")
@pytest.mark.parametrize("hub_degree,chunk", [(0, 16), (1 << 62, 16), (0, 1 << 20), (1 << 62, 1 << 20)])
def test_gpu_chunked_tables_and_samples_equal_cpu(monkeypatch, hub_degree, chunk):
    """The chunked layout on the device (both samplers, with and without hub chunks): the CPU's M and samples."""
    import la_gpm.motif_estimate.gpu as GM
    from la_gpm.motif_estimate.gpu import GpuSampler
    monkeypatch.setattr(GM, "HUB_DEGREE", hub_degree)
    monkeypatch.setattr(GM, "SPMM_CHUNK", chunk)
    G = la_gpm.datasets.load("email-Eu-core")
    for k in (4, 6, 8):
        colors = ((np.arange(G.n) * 7 + 3) % k).astype(np.int8)
        T = CpuTables(G, k, colors)
        for rows in (97, G.n):
            S = GpuSampler(G, k)
            D = S.tables(colors, _chunked(rows))
            assert D.B is None
            R = D.S            # the chunked layout builds on the degree-ordered relabelling: M's row s is perm[s]'s
            assert R.mapped and R is S.relabeled()
            assert np.array_equal(T.M, D.M.get()[R.slot])
            assert np.array_equal(T.shape_treelets, D.shape_treelets)
            v1, _, _ = T.sample(5000, key=11, first=100)
            v2, _, _ = D.sample(5000, key=11, first=100)
            assert np.array_equal(v1, v2)


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=f"no GPU: {_gpu_reason()}")
def test_gpu_small_budget_same_estimate_and_respected():
    """On the device: a budget forcing several chunks gives the unbounded run's DataFrame (and the CPU's), the
    counted peak within the budget; a budget below the smallest chunk raises MemoryBudgetTooSmall."""
    from la_gpm.motif_estimate.gpu import GpuSampler
    G = la_gpm.datasets.load("email-Eu-core")
    for k in (5, 8):
        kw = dict(seed=3, max_colorings=3, min_colorings=2, samples_per_coloring=1 << 14)
        a = estimate_census(G, k, backend="gpu", **kw)
        assert a.attrs["table_layout"] == "full"
        lay = table_layout(G, k, "gpu", GpuSampler(G, k), None, force="chunked",
                           batch=kw["samples_per_coloring"])
        budget = max(lay.floor, lay.resident + 100 * lay.row)
        b = estimate_census(G, k, backend="gpu", memory_budget=budget, **kw)
        # k = 5: the roots and the sample batch set the floor, so one chunk (B still recomputed by the sampler)
        assert b.attrs["table_layout"] == "chunked" and b.attrs["table_chunks"] >= (3 if k == 8 else 1)
        assert 0 < b.attrs["table_bytes"] <= budget
        assert a.drop(columns=["edges"]).equals(b.drop(columns=["edges"]))
        c = estimate_census(G, k, backend="cpu", **kw)
        assert c.drop(columns=["edges"]).equals(b.drop(columns=["edges"]))
        # below the chunked floor: spilled (the root weights and some of M in host memory), the same DataFrame
        d = estimate_census(G, k, backend="gpu", memory_budget=lay.floor - 1, **kw)
        assert d.attrs["table_layout"] == "spill" and 0 < d.attrs["table_bytes"] <= lay.floor - 1
        assert d.attrs["table_spilled_bytes"] > 0
        assert a.drop(columns=["edges"]).equals(d.drop(columns=["edges"]))
        sf = table_layout(G, k, "gpu", GpuSampler(G, k), None, force="spill", batch=kw["samples_per_coloring"]).floor
        with pytest.raises(MemoryBudgetTooSmall):
            estimate_census(G, k, backend="gpu", memory_budget=sf - 1, **kw)


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=f"no GPU: {_gpu_reason()}")
def test_gpu_spill_tables_and_samples_equal_cpu():
    """The spill layout on the device, with none, a third and all of M's rows on the device (the rest and the root
    weights in host memory): the CPU's M, root sums and samples (plain and after an AGS mixture)."""
    from la_gpm.motif_estimate.gpu import GpuSampler
    G = la_gpm.datasets.load("email-Eu-core")
    for k in (4, 6, 8):
        pl = la_gpm.motif_estimate.shapes.shape_plan(k)
        colors = ((np.arange(G.n) * 7 + 3) % k).astype(np.int8)
        T = CpuTables(G, k, colors)
        q = np.linspace(1, 2, len(T.shape_treelets))
        q /= q.sum()
        v1 = T.sample(5000, key=11, first=100)[0]
        T.set_mixture(q)
        w1 = T.sample(3000, key=5)[0]
        S = GpuSampler(G, k)
        for m_rows in (0, G.n // 3, G.n):
            lay = Layout("spill", 97, -(-G.n // 97), 0, 0, 0, 0, 0, m_rows, 1)
            D = S.tables(colors, lay)
            assert D.spill and D.B is None and D.mem.spilled >= 2 * 8 * G.n * len(pl.top)
            R = D.S                          # the degree-ordered relabelling: M's row s is vertex perm[s]'s
            assert R.mapped and R is S.relabeled() and R is not S
            deg = np.diff(G.indptr)
            assert np.all(np.diff(deg[R.perm]) <= 0) and np.array_equal(R.slot[R.perm], np.arange(G.n))
            assert np.array_equal(T.M, D.M.get()[R.slot]) and np.array_equal(T.shape_treelets, D.shape_treelets)
            assert np.array_equal(v1, D.sample(5000, key=11, first=100)[0])
            D.set_mixture(q)
            assert np.array_equal(T.root_cum, D.root_cum.get())
            assert np.array_equal(w1, D.sample(3000, key=5)[0])
            del D


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=f"no GPU: {_gpu_reason()}")
def test_gpu_managed_array_keeps_its_host_part_in_host_memory():
    """``device.managed_array``: kernels write and read every byte; the device's free memory drops by the device
    part only, after writes and repeated reads (without the host advice the driver would migrate the pages)."""
    import cupy as cp
    from la_gpm.device import managed_array
    MiB = 1 << 20
    # the device's free memory is the whole GPU's: another process sharing it (the device suite runs several pytest
    # processes at once) moves it too, so the least of three measurements is taken (a migration shows in each)
    used = []
    for _ in range(3):
        cp.get_default_memory_pool().free_all_blocks()
        cp.cuda.Device().synchronize()
        free0 = cp.cuda.runtime.memGetInfo()[0]
        a = managed_array((512 * MiB // 8,), np.float64, 128 * MiB)
        a[:] = 1.5
        a[a.size // 2:] += 1.0
        for _ in range(3):
            total = float(a.sum())
        cp.cuda.Device().synchronize()
        assert total == 1.5 * a.size + a.size // 2
        used.append(free0 - cp.cuda.runtime.memGetInfo()[0])
        del a
    assert min(used) <= 128 * MiB + 64 * MiB, [u / MiB for u in used]



@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=f"no GPU: {_gpu_reason()}")
@pytest.mark.parametrize("device_sums", [False, True])
def test_gpu_root_weights_device_two_arrays(monkeypatch, device_sums):
    """On the device (R-MAT 12, k = 8; the device sums forced with ``_HOST_CUMSUM = 0``): the root weights and
    their sums (plain and after set_mixture) are the earlier CuPy formula's doubles (gather, transpose, divide;
    ``cupy.cumsum`` of the flattened weights), and CuPy's pool holds at most the two tops x n arrays beyond what
    it held before (a memory hook counts every block the pool hands out), the ledger's peak equal to them."""
    import cupy as cp
    import la_gpm.motif_estimate.gpu as GM
    from la_gpm.motif_estimate.memory import Ledger
    if device_sums:
        monkeypatch.setattr(GM, "_HOST_CUMSUM", 0)
    G = la_gpm.generators.rmat(12, seed=2)
    k = 8
    pl = la_gpm.motif_estimate.shapes.shape_plan(k)
    T, n = len(pl.top), G.n
    colors = ((np.arange(n) * 7 + 3) % k).astype(np.int8)
    S = GM.GpuSampler(G, k)
    D = S.tables(colors)
    assert D._host is not device_sums and D.root_w.flags.c_contiguous
    old = D.M[:, cp.asarray(pl.offM[pl.top])].T / S.top_aut[:, None]

    def cum(w):     # the earlier sums: CuPy's cumsum of the flattened weights, or numpy's on the host
        return cp.cumsum(w.ravel()) if device_sums else cp.asarray(np.cumsum(cp.asnumpy(w).ravel()))

    assert cp.array_equal(D.root_w, old)
    # the device's float scan (CUB) is not bit-reproducible from one run to the next (its documentation; on the
    # H100 two scans of the same doubles differed in the last bits): the host sums are compared bit for bit
    same = (lambda a, b: bool(cp.allclose(a, b, rtol=1e-12, atol=0))) if device_sums else \
        (lambda a, b: bool(cp.array_equal(a, b)))
    assert same(D.root_cum, cum(old))
    q = np.linspace(1, 3, len(D.shape_treelets))
    q /= q.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(D.shape_treelets > 0, q / (k * D.shape_treelets), 0.0)[S.top_free]
    D.set_mixture(q)
    assert same(D.root_cum, cum(old * cp.asarray(f)[:, None]))
    del old

    class Peak(cp.cuda.MemoryHook):
        name = "peak"

        def __init__(self):
            self.now = self.peak = 0

        def malloc_postprocess(self, **kw):
            self.now += kw["mem_size"]
            self.peak = max(self.peak, self.now)

        def free_postprocess(self, **kw):
            self.now -= kw["mem_size"]

    D.root_w = D.root_cum = D.root_w_host = None
    D.mem = Ledger()
    cp.cuda.Device().synchronize()
    with Peak() as h:
        D._roots()
        D.set_mixture(q)
        cp.cuda.Device().synchronize()
    two = 2 * T * n * 8
    assert D.mem.peak == two
    assert h.peak <= two + (256 << 10), (h.peak, two)       # CUB's scan workspace, per-shape totals: small
