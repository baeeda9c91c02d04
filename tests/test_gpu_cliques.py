"""GPU k-clique kernels (warp-centric DFS over stacks or bitmaps) against networkx and published counts."""

from __future__ import annotations

import networkx as nx
import pytest

import la_gpm
from la_gpm.backends import gpu_status

from .conftest import data_path
from .known import CITESEER_CLIQUES, WIKI_VOTE_CLIQUES

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(gpu_status() is not None, reason=f"no GPU: {gpu_status()}")]


METHODS = ["stack", "bitmap"]


def _gpu_cliques(G, k, method="auto"):
    from la_gpm.kcliques.gpu import clique_count
    return clique_count(G, k, method=method)


def _networkx_sizes(g):
    sizes = {}
    for c in nx.enumerate_all_cliques(g):
        sizes[len(c)] = sizes.get(len(c), 0) + 1
    return sizes


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", range(6))
def test_random_graphs_match_networkx(seed, method):
    g = nx.gnp_random_graph(40, 0.35, seed=seed)
    G = la_gpm.as_graph(g)
    sizes = _networkx_sizes(g)
    for k in range(3, 9):
        assert _gpu_cliques(G, k, method) == sizes.get(k, 0), k


@pytest.fixture(scope="module")
def dense_graph():
    """G(90, 0.6): DAG candidate sets C = N+(u) ∩ N+(v) of 0 to about 45 vertices."""
    G = la_gpm.as_graph(nx.gnp_random_graph(90, 0.6, seed=7))
    return G, {k: la_gpm.count(G, f"{k}-clique", backend="cpu") for k in (4, 5, 6)}


@pytest.mark.parametrize("cap", [1, 5, 31, 32, 33, 1024])
def test_bitmap_kernel_over_and_under_the_cap(cap, dense_graph, monkeypatch):
    """Candidate sets of one word, of several words, and above the cap (the stack path inside the
    bitmap kernel) give the CPU backend's counts."""
    import la_gpm.kcliques.gpu as gc
    monkeypatch.setattr(gc, "BITMAP_CAP", cap)
    G, want = dense_graph
    for k, w in want.items():
        assert _gpu_cliques(G, k, "bitmap") == w, (cap, k)


@pytest.mark.parametrize("split_min", [1, 6, 40])
def test_balanced_work_items_give_the_same_counts(split_min, dense_graph, monkeypatch):
    """Arcs split into ranges of their first candidate (every size from one-vertex ranges up) and
    handed out heaviest first count every clique exactly once."""
    import la_gpm.kcliques.gpu as gc
    monkeypatch.setattr(gc, "SPLIT_MIN_C", split_min)
    monkeypatch.setattr(gc, "SPLIT_MAX", 64)
    monkeypatch.setattr(gc, "SPLIT_WIDTH", 1)
    G, want = dense_graph
    for k, w in want.items():
        G.clear_device_cache()  # the item list is cached per graph and k
        assert gc.clique_count(G, k, method="bitmap", balance=True) == w, (split_min, k)
        assert gc.clique_count(G, k, method="bitmap", balance=False) == w, (split_min, k)


def test_balance_needs_the_bitmap_kernel(dense_graph):
    from la_gpm.kcliques.gpu import clique_count
    G, _ = dense_graph
    with pytest.raises(ValueError, match="bitmap"):
        clique_count(G, 5, method="stack", balance=True)


@pytest.mark.parametrize("split_min", [1, 24])
def test_balanced_items_of_a_part_give_the_cpu_part(split_min, monkeypatch):
    """A part runs the balanced items of its own arcs: the same count as the cpu backend's part,
    with arcs split down to one-vertex ranges."""
    import la_gpm.kcliques.gpu as gc
    from la_gpm.kcliques import clique_count as cc
    monkeypatch.setattr(gc, "SPLIT_MIN_C", split_min)
    monkeypatch.setattr(gc, "SPLIT_WIDTH", 1)
    G = la_gpm.generators.rmat(11, seed=5)
    for k in (5, 6, 7):
        for nparts in (3, 16):
            cpu = [cc(G, k, backend="cpu", part=(i, nparts)) for i in range(nparts)]
            for bal in (True, False):
                got = [gc.clique_count(G, k, part=(i, nparts), method="bitmap", balance=bal) for i in range(nparts)]
                assert got == cpu, (split_min, k, nparts, bal)


@pytest.mark.parametrize("method", METHODS)
def test_small_memory_budget_still_exact(method):
    G = la_gpm.generators.rmat(12, seed=2)
    want = la_gpm.count(G, "5-clique", backend="cpu")
    with la_gpm.config.set(memory_budget=1 << 16):  # a handful of resident warps
        assert _gpu_cliques(G, 5, method) == want


@pytest.mark.parametrize("method", METHODS)
def test_citeseer_published(method):
    G = la_gpm.read_graph(data_path("citeseer.edgelist"))
    for k, want in CITESEER_CLIQUES.items():
        assert _gpu_cliques(G, k, method) == want


@pytest.mark.parametrize("method", METHODS)
def test_wiki_vote_published(method):
    G = la_gpm.read_graph(data_path("wiki-Vote.txt"))
    for k, want in WIKI_VOTE_CLIQUES.items():
        assert _gpu_cliques(G, k, method) == want
