"""Color coding with its SpMM products streamed: B made and consumed a block of rows at a time at the one eMA
that reads it (``Runner.streamed`` / ``Runner.blocks``), so one coloring needs less memory than its whole plan.

The values must equal the whole plan's bit for bit (each row's SpMM and eMA are the same operations in the same
order; only the rows a launch covers change), on the CPU and on the GPU."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import Graph, Pattern
from la_gpm.color_coding import driver
from la_gpm.color_coding.all_trees import plan_census
from la_gpm.color_coding.cpu_kernels import coloring_keys

from .conftest import gpu, requires_gpu
from .test_color_coding import dfs_colorful, prufer_tree

TEMPLATES = ("u5", "u7", "u10", "u12", "u13", "u15-1", "u15-2")


def _replay(runner):
    """Walks the streamed plan as the runner does: every table read is alive when read, each freed once, and
    the most columns alive at once."""
    plan = runner.plan
    ops = plan.ops
    deferred, free_after, peak, widest = runner.streamed()
    live, freed, most = {}, set(), 0
    for t, op in enumerate(ops):
        if t in deferred:
            assert op.kind == "spmm" and t not in free_after
            continue
        reads = []
        for j in op.inputs:
            reads.append(ops[j].inputs[0] if j in deferred else j)
        for j in reads:
            assert j in live, (t, j)
        live[t] = op.cols
        most = max(most, sum(live.values()))
        for j in free_after.get(t, ()):
            assert j not in freed
            freed.add(j)
            del live[j]
    assert set(live) <= {len(ops) - 1}
    return most, deferred, widest


@pytest.mark.parametrize("name", TEMPLATES)
def test_streamed_plan_reads_live_tables_and_holds_fewer_columns(name):
    G = la_gpm.generators.gnm(64, 200, seed=1)
    *_, runner = driver.prepare(G, name, "cpu", "float32", "auto")
    most, deferred, widest = _replay(runner)
    plan = runner.plan
    assert most == runner.streamed()[2] <= plan.peak_cols
    for i, j in deferred.items():
        assert plan.ops[j].kind == "ema" and plan.ops[j].inputs[1] == i and not driver.aliased(plan, j)
        assert sum(i in op.inputs for op in plan.ops) == 1
    assert widest == max((plan.ops[i].cols for i in deferred), default=0)
    if name in ("u12", "u15-1", "u15-2"):  # their widest points hold a B that only one eMA reads
        assert most < plan.peak_cols


def test_tree_census_plan_streams_and_frees_its_roots():
    cen = plan_census(6)  # its one product read by a single eMA
    G = la_gpm.generators.gnm(50, 160, seed=2)
    ops = driver.make_ops(G, "cpu", np.dtype(np.float32), "auto", cen.trees[0], cen.plan)
    runner = driver.Runner(G, cen.trees[0], cen.plan, ops, itemsize=4)
    most, deferred, _ = _replay(runner)
    assert deferred and most <= cen.plan.peak_cols
    keys = coloring_keys(3, 0, 4)
    whole = runner.run(keys, roots=set(cen.roots))[0]
    runner.row_blocks = 3
    got = runner.run(keys, roots=set(cen.roots))[0]
    assert set(got) == set(whole)
    for r in whole:
        np.testing.assert_array_equal(got[r], whole[r])


def _labelled_graph(G, seed):
    lab = np.random.default_rng(seed).integers(0, 2, G.n)
    return Graph(G.indptr, G.indices, vertex_labels=lab)


def _cases():
    return [("u7", None), ("u10", None), ("u12", None),
            (Pattern([(0, 1), (1, 2), (1, 3), (3, 4), (4, 5)], vertex_labels=[0, 1, 0, 1, 0, 1]), 5)]


def _check_streamed_equal(G, backend, spmm="auto", blocks=(1, 2, 3, 7)):
    for name, lab in _cases():
        H = G if lab is None else _labelled_graph(G, lab)
        for dt in ("float32", "float64"):
            *_, runner = driver.prepare(H, name, backend, dt, spmm)
            keys = coloring_keys(11, 0, 3)
            whole, wpv = runner.run(keys, per_vertex=True)
            for nb in blocks:
                runner.row_blocks = nb
                assert runner.blocks() == nb and runner.fitting() == 1
                got, pv = runner.run(keys, per_vertex=True)
                np.testing.assert_array_equal(got, whole)
                np.testing.assert_array_equal(pv, wpv)
            runner.row_blocks = None


def test_cpu_streamed_products_equal_the_whole_plan_bit_for_bit():
    _check_streamed_equal(la_gpm.generators.graph500(9, seed=3), "cpu")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(k=st.integers(5, 9), data=st.data())
def test_streamed_random_trees_equal_the_whole_plan_and_the_oracle(k, data):
    """Random trees (Prüfer sequences; of 5-9 vertices: a third to nine tenths of them have a product to stream),
    graphs, labels, colorings and block counts: the streamed run equals the whole plan's bit for bit and the
    colorful embeddings of the depth-first oracle."""
    P = prufer_tree(data.draw(st.lists(st.integers(0, k - 1), min_size=k - 2, max_size=k - 2)), k)
    n = data.draw(st.integers(k, 40))
    G = la_gpm.generators.gnm(n, data.draw(st.integers(n - 1, min(3 * n, n * (n - 1) // 2))),
                              seed=data.draw(st.integers(0, 99)))
    if data.draw(st.booleans()):
        lab = np.random.default_rng(data.draw(st.integers(0, 99))).integers(0, 2, n)
        G = Graph(G.indptr, G.indices, vertex_labels=lab)
        P = Pattern(P.edges, vertex_labels=data.draw(st.lists(st.integers(0, 1), min_size=k, max_size=k)))
    colors = np.random.default_rng(data.draw(st.integers(0, 99))).integers(0, k, n).astype(np.int8)
    *_, runner = driver.prepare(G, P, "cpu", "float64", "auto")
    key = np.zeros(1, dtype=np.uint64)
    whole = runner.run(key, colors=colors)[0]
    runner.row_blocks = data.draw(st.integers(1, n))
    assert runner.blocks() == (runner.row_blocks if runner.streamed()[0] else 0)
    got = runner.run(key, colors=colors)[0]
    np.testing.assert_array_equal(got, whole)
    assert got[0] == pytest.approx(dfs_colorful(G, P, colors), rel=1e-9, abs=1e-9)


def test_streaming_is_chosen_where_one_colorings_tables_do_not_fit(monkeypatch):
    """blocks(): none while the whole plan fits the memory there is; past it the fewest blocks whose B fits
    beside the streamed plan's tables; the estimate is the same number."""
    G = la_gpm.generators.graph500(12, seed=4)
    *_, runner = driver.prepare(G, "u12", "cpu", "float32", "auto")
    n, item = G.n, 4
    deferred, _, speak, widest = runner.streamed()
    whole = runner.plan.peak_cols * n * item
    monkeypatch.setattr(type(runner.ops), "free_bytes", lambda self: whole)
    assert runner.blocks() == 0
    room = speak * n * item + 2 * widest * item * 1024 + 1  # two B blocks of 1,024 rows fit beside the rest
    monkeypatch.setattr(type(runner.ops), "free_bytes", lambda self: room)
    assert runner.blocks() == -(-n // 1024) and runner.fitting() == 1
    monkeypatch.setattr(type(runner.ops), "free_bytes", lambda self: None)
    assert runner.blocks() == 0
    ref = la_gpm.estimate(G, "u12", seed=5, max_colorings=4, backend="cpu")
    monkeypatch.setattr(type(runner.ops), "free_bytes", lambda self: room)
    got = la_gpm.estimate(G, "u12", seed=5, max_colorings=4, backend="cpu")
    assert got.n_colorings == ref.n_colorings == 4
    np.testing.assert_array_equal(got.values, ref.values)


@gpu
@requires_gpu
@pytest.mark.parametrize("spmm", ["auto", "gather", "tiled"])
def test_gpu_streamed_products_equal_the_whole_plan_bit_for_bit(spmm):
    # Graph500 14 has hubs of degree > 2 * HUB_CHUNK: their chunks and reductions fall in different blocks
    G = la_gpm.generators.graph500(14, seed=5)
    assert G.max_degree > 2 * 1024
    _check_streamed_equal(G, "gpu", spmm, blocks=(1, 2, 5))


@gpu
@requires_gpu
def test_gpu_tables_in_their_own_allocations_equal_the_pools(monkeypatch):
    """Tables in their own device allocations (GpuOps.tables_direct): the same values; where the pool runs out
    of memory the runner runs the pass again that way, and keeps to it."""
    import cupy as cp
    from la_gpm.color_coding.gpu import GpuOps
    G = la_gpm.generators.graph500(12, seed=8)
    *_, runner = driver.prepare(G, "u12", "gpu", "float32", "auto")
    keys = coloring_keys(5, 0, 2)
    whole = runner.run(keys)[0]
    assert runner.ops.direct_min is None                    # whole tables: the pool
    runner.ops.direct_min = 1
    t = runner.ops.empty(G.n, 3)
    assert t.data.mem.size == G.n * 3 * 4 and t.shape == (G.n, 3)
    runner.row_blocks = 3                                   # streamed: own allocations
    np.testing.assert_array_equal(runner.run(keys)[0], whole)
    assert runner.ops.direct_min == 1 << 28
    runner.row_blocks = None
    real = GpuOps.empty
    failed = []

    def pool_runs_out(self, rows, cols):
        if self.direct_min is None and rows * cols * 4 >= 1 << 20 and not failed:
            failed.append((rows, cols))
            raise cp.cuda.memory.OutOfMemoryError(rows * cols * 4, 1 << 30, 0)
        return real(self, rows, cols)
    monkeypatch.setattr(GpuOps, "empty", pool_runs_out)
    *_, fresh = driver.prepare(G, "u12", "gpu", "float32", "auto")
    np.testing.assert_array_equal(fresh.run(keys)[0], whole)
    assert failed and fresh.ops.direct_min == 1 << 28
    np.testing.assert_array_equal(fresh.run(keys)[0], whole)   # and stays with them
    assert fresh.ops.direct_min == 1 << 28
