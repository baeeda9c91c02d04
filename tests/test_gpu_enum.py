"""The GPU exact engine (exact/dumato.py + la_gpm/exact/dumato.cu) against independent oracles.

Oracles: brute force (itertools) and networkx-free exhaustive listing on random graphs, the
published citeseer and HPRD counts, and the CPU engine (counts, listings and its search
statistics, which the GPU interpreter must reproduce operation for operation).
"""

from __future__ import annotations

import random
import re
from importlib import resources

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import Pattern
from la_gpm.exact.match import match
from la_gpm.api import count_pattern
from la_gpm.exact.plans import plan_for
from la_gpm.backends import gpu_status
from la_gpm.exceptions import BackendUnavailable, InvalidArgument
from la_gpm.patterns import plan as plan_mod
from la_gpm.patterns import read_query
from la_gpm.patterns.plan import compile_plan

from .conftest import data_path
from .known import CITESEER_INDUCED_4, CITESEER_NONINDUCED_4, CITESEER_NONINDUCED_5
from .oracles import brute_count, brute_embeddings
from .test_exact import _hprd_expected, _random_graph, _random_pattern

NO_GPU = gpu_status()
needs_gpu = pytest.mark.skipif(NO_GPU is not None, reason=f"no GPU: {NO_GPU}")
PLAN_FIELDS_CUH = resources.files("la_gpm.exact").joinpath("plan_fields.cuh")
STAT_KEYS = ("reuse_hits", "set_operations", "set_operations_saved", "tree_nodes")


# ------------------------------------------------------------------------------------ cpu-only checks
def test_kernel_field_indices_match_plan_module():
    """plan_fields.cuh's #defines of the table fields (enum.cu, trie.cu) are plan.py's constants."""
    src = PLAN_FIELDS_CUH.read_text()
    defs = dict(re.findall(r"#define ((?:T|C)_[A-Z]+) (\d+)", src))
    names = [n for n in plan_mod.__all__ if re.fullmatch(r"[TC]_[A-Z]+", n)]
    assert names
    for n in names:
        assert int(defs[n]) == getattr(plan_mod, n), n
    assert plan_mod.N_TFIELDS == 6 and plan_mod.N_CFIELDS == 10


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 9), induced=st.booleans(), symmetry=st.booleans(),
       vlabels=st.sampled_from([0, 3]), elabels=st.sampled_from([0, 2]))
def test_plan_tables_round_trip(seed, k, induced, symmetry, vlabels, elabels):
    """Everything the kernel reads from (T, C) decodes back to the plan's fields."""
    rng = random.Random(seed)
    P = _random_pattern(rng, k, rng.randrange(k + 1), vlabels, elabels)
    plan = compile_plan(P, induced=induced, symmetry=symmetry)
    T, C = plan.tables()
    assert T.dtype == np.int64 and C.dtype == np.int64 and T.shape == (6, k, k)

    def row(f, cf, i):
        return tuple(int(x) for x in T[f, i, :C[cf, i]])

    for i in range(k):
        assert row(plan_mod.T_PAR, plan_mod.C_NPAR, i) == plan.rest_parents[i]
        assert row(plan_mod.T_ANTI, plan_mod.C_NANTI, i) == plan.rest_anti[i]
        assert row(plan_mod.T_LOW, plan_mod.C_NLOW, i) == plan.lower[i]
        assert row(plan_mod.T_UP, plan_mod.C_NUP, i) == plan.upper[i]
        assert row(plan_mod.T_INJ, plan_mod.C_NINJ, i) == plan.injective[i]
        assert C[plan_mod.C_REUSE, i] == plan.reuse[i]
        assert C[plan_mod.C_CACHED, i] == int(plan.cached[i])
        assert C[plan_mod.C_MINDEG, i] == plan.min_degree[i]
        if plan.edge_labels is not None:
            assert row(plan_mod.T_PAREL, plan_mod.C_NPAR, i) == plan.edge_labels[i]
        # what the kernel relies on: level 1 has parent 0 only and nothing else to do
        if i == 1:
            assert plan.rest_parents[1] == (0,) and not plan.rest_anti[1] and plan.reuse[1] == -1
            assert not plan.injective[1] and set(plan.lower[1]) | set(plan.upper[1]) <= {0}
        # reuse sources are levels >= 2 (stack buffers or rows), never level 1
        assert plan.reuse[i] == -1 or 2 <= plan.reuse[i] < i
    assert k <= 32


@pytest.mark.skipif(NO_GPU is None, reason="a GPU is visible here")
def test_gpu_backend_declines_without_device():
    G = la_gpm.datasets.load("karate")
    with pytest.raises(BackendUnavailable, match="unavailable"):
        count_pattern(G, "house", backend="gpu")
    with pytest.raises(BackendUnavailable, match="unavailable"):
        match(G, "house", backend="gpu")


def test_auto_stays_on_cpu_for_general_patterns():
    G = la_gpm.datasets.load("karate")
    _, st_ = count_pattern(G, "4-cycle", backend="auto", return_stats=True)
    assert st_.get("backend", "cpu") == "cpu"


# ------------------------------------------------------------------------------------------- GPU
def _both(G, P, **kw):
    n_c, s_c = count_pattern(G, P, backend="cpu", return_stats=True, closed_forms=False, **kw)
    n_g, s_g = count_pattern(G, P, backend="gpu", gpu_engine="dfs", return_stats=True, **kw)
    return n_c, s_c, n_g, s_g


def _small_graphs():
    out = {"karate": la_gpm.datasets.load("karate")}
    for name in ("jagmesh7.mtx", "citeseer.edgelist", "email-Eu-core.txt", "p2p-Gnutella08.txt.gz"):
        out[name] = la_gpm.read_graph(data_path(name))
    return out


@pytest.fixture(scope="module")
def small_graphs():
    return _small_graphs()



@pytest.fixture(scope="module")
def hprd():
    from la_gpm.io import read_sunluo
    return read_sunluo(data_path("hprd/HPRD.graph"))


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("name,want", sorted(CITESEER_NONINDUCED_4.items()) + sorted(CITESEER_NONINDUCED_5.items()))
def test_citeseer_published_noninduced(citeseer, name, want):
    plan = plan_for(citeseer, Pattern.named(name))  # the generic plan, also for the 4-clique
    from la_gpm.exact.dumato import count_plan_gpu
    assert count_plan_gpu(citeseer, plan)[0] == want


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("name,want", sorted(CITESEER_INDUCED_4.items()))
def test_citeseer_published_induced(citeseer, name, want):
    from la_gpm.exact.dumato import count_plan_gpu
    assert count_plan_gpu(citeseer, plan_for(citeseer, Pattern.named(name), induced=True))[0] == want


SMALL_PATTERNS = ["wedge", "4-path", "4-star", "4-cycle", "tailed-triangle", "diamond", "house",
                  "pentagon", "hourglass"]


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("induced", [False, True])
@pytest.mark.parametrize("fast_last", [True, pytest.param(False, marks=pytest.mark.slow)])
def test_small_graphs_gpu_equals_cpu_with_same_search(small_graphs, induced, fast_last, monkeypatch):
    """Counts and the search statistics (reuse hits, set operations, tree nodes) equal the CPU engine's,
    with the last level's final intersection counted in registers or written like the CPU does."""
    import la_gpm.exact.dumato as gpu_enum
    monkeypatch.setattr(gpu_enum, "FAST_LAST", fast_last)
    bad = []
    for gname, G in small_graphs.items():
        for pname in SMALL_PATTERNS:
            n_c, s_c, n_g, s_g = _both(G, pname, induced=induced)
            if n_c != n_g or any(s_c[key] != s_g[key] for key in STAT_KEYS):
                bad.append((gname, pname, n_c, n_g, {key: (s_c[key], s_g[key]) for key in STAT_KEYS}))
    assert not bad


@pytest.mark.gpu
@needs_gpu
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 10), p=st.floats(0.2, 0.8), k=st.integers(2, 6),
       extra=st.integers(0, 5), induced=st.booleans(), kind=st.sampled_from(["unique", "embeddings"]),
       vlabels=st.sampled_from([0, 0, 2, 3]), elabels=st.sampled_from([0, 0, 2]))
def test_property_gpu_vs_brute_force(seed, n, p, k, extra, induced, kind, vlabels, elabels):
    rng = random.Random(seed)
    G = _random_graph(rng, n, p, vlabels, elabels)
    P = _random_pattern(rng, k, extra, vlabels, elabels)
    want = brute_count(G, P, induced, kind)
    plan = plan_for(G, P, induced=induced)
    from la_gpm.exact.dumato import count_plan_gpu
    got = count_plan_gpu(G, plan)[0] * (P.automorphism_count if kind == "embeddings" else 1)
    assert got == want
    if not (P.is_clique and P.vertex_labels is None and P.edge_labels is None and P.k >= 3):
        assert count_pattern(G, P, induced=induced, count=kind, backend="gpu", gpu_engine="dfs") == want
    assert count_plan_gpu(G, plan_for(G, P, induced=induced, reuse=False))[0] * (
        P.automorphism_count if kind == "embeddings" else 1) == want


@pytest.mark.gpu
@needs_gpu
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 5), induced=st.booleans(),
       vlabels=st.sampled_from([0, 2]), elabels=st.sampled_from([0, 2]), chunk=st.integers(1, 9))
def test_property_gpu_listing_is_exactly_the_embeddings(seed, k, induced, vlabels, elabels, chunk):
    rng = random.Random(seed)
    G = _random_graph(rng, rng.randrange(4, 10), 0.5, vlabels, elabels)
    P = _random_pattern(rng, k, rng.randrange(3) if k > 1 else 0, vlabels, elabels)
    want = sorted(brute_embeddings(G, P, induced))
    arrays = list(match(G, P, induced=induced, chunk_size=chunk, backend="gpu"))
    assert all(0 < a.shape[0] <= chunk and a.shape[1] == k and a.dtype == np.int64 for a in arrays)
    got = [tuple(r) for a in arrays for r in a.tolist()]
    assert sorted(got) == want
    if want:
        lim = rng.randrange(0, len(want) + 2)
        rows = [tuple(r) for a in match(G, P, induced=induced, chunk_size=chunk, limit=lim, backend="gpu")
                for r in a.tolist()]
        assert len(rows) == min(lim, len(want)) and set(rows) <= set(want)


@pytest.mark.gpu
@needs_gpu
def test_hprd_all_queries_on_gpu(hprd):
    """All 200 published HPRD embedding counts, and the CPU engine's search statistics."""
    exp = _hprd_expected()
    assert len(exp) == 200
    bad = {}
    for name, want in sorted(exp.items()):
        Q = read_query(data_path(f"hprd/query_graph/{name}.graph"))
        got, s_g = count_pattern(hprd, Q, count="embeddings", backend="gpu", gpu_engine="dfs", return_stats=True)
        if got != want:
            bad[name] = (got, want)
    assert not bad
    Q = read_query(data_path("hprd/query_graph/query_dense_16_8.graph"))
    _, s_c, _, s_g = _both(hprd, Q)
    assert all(s_c[key] == s_g[key] for key in STAT_KEYS)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("i", [1, 2, 8, 17])
def test_hprd_listing_gpu_equals_cpu(hprd, i):
    exp = _hprd_expected()
    Q = read_query(data_path(f"hprd/query_graph/query_dense_16_{i}.graph"))
    gpu_rows = [tuple(r) for a in match(hprd, Q, chunk_size=7, backend="gpu") for r in a.tolist()]
    cpu_rows = [tuple(r) for a in match(hprd, Q, chunk_size=1000, backend="cpu") for r in a.tolist()]
    assert len(gpu_rows) == exp[f"query_dense_16_{i}"] == len(set(gpu_rows))
    assert set(gpu_rows) == set(cpu_rows)


@pytest.mark.gpu
@needs_gpu
def test_listing_larger_than_a_chunk_per_item():
    """Items with more rows than a chunk (a karate hub has 16·15 4-star rows per arc) list windows
    [skip, skip+cap) of their DFS order; every row exactly once."""
    G = la_gpm.datasets.load("karate")
    for name, induced in (("4-star", False), ("4-path", True), ("house", False)):
        P = Pattern.named(name)
        want = {tuple(r) for a in match(G, P, induced=induced, backend="cpu") for r in a.tolist()}
        arrays = list(match(G, P, induced=induced, chunk_size=7, backend="gpu"))
        assert all(a.shape[0] == 7 for a in arrays[:-1])
        rows = [tuple(r) for a in arrays for r in a.tolist()]
        assert len(rows) == len(want) == count_pattern(G, P, induced=induced, count="embeddings")
        assert set(rows) == want


@pytest.mark.gpu
@needs_gpu
def test_tiny_memory_budget_still_exact(citeseer):
    G = citeseer
    for name in ("house", "diamond", "4-cycle"):
        want = count_pattern(G, name, backend="cpu")
        per = 3 * G.max_degree * 4
        assert count_pattern(G, name, backend="gpu", gpu_engine="dfs", memory_budget=per) == want  # one warp
        assert count_pattern(G, name, backend="gpu", gpu_engine="dfs", memory_budget=per * 3 + 1) == want


@pytest.mark.gpu
@needs_gpu
def test_gpu_bad_input(citeseer):
    with pytest.raises(InvalidArgument, match="memory_budget"):
        count_pattern(citeseer, "house", backend="gpu", gpu_engine="dfs", memory_budget=16)
    with pytest.raises(InvalidArgument, match="memory_budget"):
        count_pattern(citeseer, "house", backend="gpu", gpu_engine="dfs", memory_budget=0)
    with pytest.raises(InvalidArgument, match="chunk_size"):
        match(citeseer, "house", backend="gpu", chunk_size=0)
    with pytest.raises(InvalidArgument, match="limit"):
        match(citeseer, "house", backend="gpu", limit=-1)
    assert list(match(citeseer, "house", backend="gpu", limit=0)) == []
    A = citeseer.indptr.copy(), citeseer.indices.copy()
    count_pattern(citeseer, "house", backend="gpu", gpu_engine="dfs")
    assert np.array_equal(A[0], citeseer.indptr) and np.array_equal(A[1], citeseer.indices)


@pytest.mark.gpu
@pytest.mark.slow
@needs_gpu
def test_wiki_vote_5_clique_embeddings_generic_plan():
    """cuTS's K5 embeddings on wiki-Vote (541,696,440 = 120 × 4,514,137) through the generic plan."""
    from la_gpm.exact.dumato import count_plan_gpu
    G = la_gpm.read_graph(data_path("wiki-Vote.txt"))
    assert count_plan_gpu(G, plan_for(G, Pattern.named("5-clique")))[0] * 120 == 541_696_440


# ------------------------------------------------------------- deep work items (breadth-first start)
DEEP = 10**9  # deep_items threshold that forces the breadth-first expansion down to depth k - 1


def _reuses_across(plan, depth):
    """True when a level >= depth reuses the set of a level in 2..depth-1 (the kernel's rebuild path)."""
    return any(2 <= plan.reuse[i] < depth for i in range(depth, plan.k))


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("induced", [False, True])
def test_deep_items_equal_cpu_with_same_search(small_graphs, induced):
    """Forcing the breadth-first start (items of depth k-1, or as deep as memory allows): counts and
    search statistics equal the CPU engine's, including plans whose deep levels reuse a set built
    above the start depth (rebuilt by each warp, not counted)."""
    from la_gpm.exact.cpu import run_plan
    from la_gpm.exact.dumato import count_plan_gpu
    bad, depths, rebuilt = [], [], 0
    for gname, G in small_graphs.items():
        for pname in SMALL_PATTERNS + ["5-clique"]:
            P = Pattern.named(pname)
            plan = plan_for(G, P, induced=induced)
            n_c, s_c = run_plan(G, plan)
            for thr in (DEEP, 50):  # 64 MiB: bounds the forced expansion on the larger graphs
                n_g, s_g = count_plan_gpu(G, plan, deep_items=thr, memory_budget=1 << 26)
                depths.append(s_g.get("item_depth", 2))
                rebuilt += _reuses_across(plan, s_g.get("item_depth", 2))
                if n_c != n_g or any(s_c[key] != s_g[key] for key in STAT_KEYS):
                    bad.append((gname, pname, thr, n_c, n_g, {key: (s_c[key], s_g[key]) for key in STAT_KEYS}))
    assert not bad
    assert max(depths) >= 4 and rebuilt > 0  # the deep path and the rebuild path both ran


@pytest.mark.gpu
@needs_gpu
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 10), p=st.floats(0.2, 0.8), k=st.integers(3, 7),
       extra=st.integers(0, 6), induced=st.booleans(), thr=st.sampled_from([1, 3, 10, DEEP]),
       vlabels=st.sampled_from([0, 0, 2, 3]), elabels=st.sampled_from([0, 0, 2]), reuse=st.booleans(),
       levels=st.sampled_from([None, 1, 2, 32]))
def test_property_deep_items_vs_brute_force(seed, n, p, k, extra, induced, thr, vlabels, elabels, reuse, levels):
    """Counts (unique and embeddings) and listings from deep items equal brute force."""
    from la_gpm.exact.dumato import count_plan_gpu, list_plan_gpu
    rng = random.Random(seed)
    G = _random_graph(rng, n, p, vlabels, elabels)
    P = _random_pattern(rng, k, extra, vlabels, elabels)
    kw = {"deep_items": thr, "deep_levels": levels}
    assert count_plan_gpu(G, plan_for(G, P, induced=induced, reuse=reuse), **kw)[0] == \
        brute_count(G, P, induced, "unique")
    want = sorted(brute_embeddings(G, P, induced))
    plan = plan_for(G, P, induced=induced, symmetry=False, reuse=reuse)
    assert count_plan_gpu(G, plan, **kw)[0] == len(want)
    chunk = rng.randrange(1, 9)
    got = [tuple(r) for a in list_plan_gpu(G, plan, chunk_size=chunk, **kw) for r in a.tolist()]
    assert sorted(got) == want


@pytest.mark.gpu
@needs_gpu
def test_deep_items_listing_larger_than_a_chunk_and_hprd():
    """Deep items whose rows span chunks (karate) and an HPRD query listed from deep items."""
    from la_gpm.exact.dumato import list_plan_gpu
    from la_gpm.io import read_sunluo
    G = la_gpm.datasets.load("karate")
    for name, induced in (("4-star", False), ("4-path", True), ("house", False)):
        P = Pattern.named(name)
        want = {tuple(r) for a in match(G, P, induced=induced, backend="cpu") for r in a.tolist()}
        plan = plan_for(G, P, induced=induced, symmetry=False)
        rows = [tuple(r) for a in list_plan_gpu(G, plan, chunk_size=7, deep_items=DEEP) for r in a.tolist()]
        assert len(rows) == len(want) and set(rows) == want
    H = read_sunluo(data_path("hprd/HPRD.graph"))
    Q = read_query(data_path("hprd/query_graph/query_dense_16_2.graph"))
    plan = plan_for(H, Q, symmetry=False)
    rows = [tuple(r) for a in list_plan_gpu(H, plan, chunk_size=50, deep_items=DEEP) for r in a.tolist()]
    assert len(rows) == _hprd_expected()["query_dense_16_2"] == len(set(rows))


@pytest.mark.gpu
@needs_gpu
def test_deep_items_bounded_by_memory_budget(citeseer):
    """A small budget stops the expansion early (or never starts it); counts stay exact."""
    from la_gpm.exact.dumato import count_plan_gpu
    for name in ("house", "diamond", "4-cycle"):
        plan = plan_for(citeseer, Pattern.named(name))
        want = count_pattern(citeseer, name, backend="cpu")
        per = 3 * citeseer.max_degree * 4
        for budget in (per, per * 4, 1 << 20):
            got, st_ = count_plan_gpu(citeseer, plan, memory_budget=budget, deep_items=DEEP)
            assert got == want, (name, budget)
    with pytest.raises(InvalidArgument, match="deep_items"):
        count_plan_gpu(citeseer, plan_for(citeseer, Pattern.named("house")), deep_items=-1)
    with pytest.raises(InvalidArgument, match="deep_levels"):
        count_plan_gpu(citeseer, plan_for(citeseer, Pattern.named("house")), deep_items=DEEP, deep_levels=-1)
