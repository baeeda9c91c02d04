"""The breadth-first trie GPU engine (exact/cuts.py) against brute force, the CPU engine and
published counts; tiny memory budgets force the depth-first chunking."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

import la_gpm
from la_gpm.api import count_pattern
from la_gpm.exact.plans import plan_for
from la_gpm.backends import gpu_status
from la_gpm.patterns import as_pattern, read_query

from .conftest import data_path
from .known import CITESEER_INDUCED_4, CITESEER_NONINDUCED_4
from .oracles import brute_count
from .test_exact import RANDOM_CASE, _hprd_expected, random_case

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(gpu_status() is not None, reason=f"no GPU: {gpu_status()}")]


def bfs_count(G, P, induced=False, kind="unique", memory_budget=None):
    from la_gpm.exact.cuts import count_plan_bfs
    plan = plan_for(G, as_pattern(P), induced=induced, symmetry=kind == "unique", reuse=False)
    n, stats = count_plan_bfs(G, plan, memory_budget=memory_budget)
    return n, stats


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**RANDOM_CASE)
def test_property_vs_brute_force(seed, n, p, k, extra, induced, kind, vlabels, elabels):
    G, P = random_case(seed, n, p, k, extra, vlabels, elabels)
    assert bfs_count(G, P, induced, kind)[0] == brute_count(G, P, induced, kind)


@pytest.mark.parametrize("name", sorted(CITESEER_INDUCED_4))
def test_citeseer_4_vertex_tables(name):
    G = la_gpm.as_graph(data_path("citeseer.edgelist"))
    assert bfs_count(G, name, induced=True)[0] == CITESEER_INDUCED_4[name]
    assert bfs_count(G, name, induced=False)[0] == CITESEER_NONINDUCED_4[name]


@pytest.mark.parametrize("pattern", ["diamond", "4-cycle", "tailed-triangle", "house", "5-cycle"])
def test_small_budget_forces_chunks_and_stays_exact(pattern):
    G = la_gpm.generators.rmat(11, seed=3)
    want = count_pattern(G, pattern, backend="cpu")
    got, stats = bfs_count(G, pattern)
    assert got == want
    got_small, st_small = bfs_count(G, pattern, memory_budget=1 << 15)  # just above one entry's children
    assert got_small == want
    assert st_small["chunks"] > stats["chunks"] >= 1
    assert 0 < st_small["peak_bytes"] <= 1 << 15


def test_hprd_sample_of_queries():
    from la_gpm.io import read_sunluo
    H = read_sunluo(data_path("hprd/HPRD.graph"))
    exp = _hprd_expected()
    for name in sorted(exp)[::10]:  # 20 of the 200 queries, labeled, sizes 4..16
        Q = read_query(data_path(f"hprd/query_graph/{name}.graph"))
        assert bfs_count(H, Q, kind="embeddings")[0] == exp[name], name


def test_through_count_pattern():
    G = la_gpm.as_graph(data_path("email-Eu-core.txt"))
    for name, induced in (("diamond", False), ("4-cycle", True), ("tailed-triangle", False)):
        want = count_pattern(G, name, induced=induced, backend="cpu")
        assert count_pattern(G, name, induced=induced, backend="gpu", gpu_engine="trie") == want
        n, stats = count_pattern(G, name, induced=induced, backend="gpu", gpu_engine="trie", return_stats=True,
                                 count="embeddings")
        assert n == want * la_gpm.Pattern.named(name).automorphism_count
        assert stats["engine"] == "cuts" and stats["backend"] == "gpu"   # the engine table's trie row


def test_budget_below_one_entry_says_how_much():
    from la_gpm.exceptions import InvalidArgument
    G = la_gpm.generators.rmat(11, seed=3)
    with pytest.raises(InvalidArgument, match="memory_budget"):
        bfs_count(G, "house", memory_budget=64)


def test_auto_engine_rule():
    """gpu_engine='auto': the trie for unlabeled patterns of >= 5 vertices, the dfs interpreter below."""
    G = la_gpm.as_graph(data_path("email-Eu-core.txt"))
    n, st = count_pattern(G, "house", backend="gpu", return_stats=True)
    assert st["engine"] == "cuts" and n == count_pattern(G, "house", backend="cpu")
    n, st = count_pattern(G, "diamond", backend="gpu", return_stats=True)
    assert st["engine"] == "dumato"
    assert n == count_pattern(G, "diamond", backend="cpu")


def test_gpu_parts_add_up():
    """la_gpm.distributed's unit of work on the GPU: the parts (clique kernel, trie) add up."""
    from la_gpm.distributed import count_part
    G = la_gpm.generators.rmat(12, seed=6)
    for name, induced in (("triangle", False), ("4-clique", False), ("diamond", False), ("4-cycle", True),
                          ("house", False)):
        want = la_gpm.count(G, name, induced=induced, backend="cpu")
        assert sum(count_part(G, name, (i, 4), induced=induced, backend="gpu") for i in range(4)) == want, name
