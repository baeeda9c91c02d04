"""GPU k-clique kernel (warp-centric DFS) against networkx and published counts."""

from __future__ import annotations

import networkx as nx
import pytest

import la_gpm
from la_gpm.backends import gpu_status

from .conftest import data_path
from .known import CITESEER_CLIQUES, WIKI_VOTE_CLIQUES

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(gpu_status() is not None, reason=f"no GPU: {gpu_status()}")]


def _gpu_cliques(G, k):
    from la_gpm.backends.gpu.cliques import clique_count
    return clique_count(G, k)


@pytest.mark.parametrize("seed", range(6))
def test_random_graphs_match_networkx(seed):
    g = nx.gnp_random_graph(40, 0.35, seed=seed)
    G = la_gpm.as_graph(g)
    sizes = {}
    for c in nx.enumerate_all_cliques(g):
        sizes[len(c)] = sizes.get(len(c), 0) + 1
    for k in range(3, 9):
        assert _gpu_cliques(G, k) == sizes.get(k, 0), k


def test_small_memory_budget_still_exact():
    G = la_gpm.generators.rmat(12, seed=2)
    want = _gpu_cliques(G, 5)
    with la_gpm.config.set(memory_budget=1 << 16):  # a handful of resident warps
        assert _gpu_cliques(G, 5) == want


def test_citeseer_published():
    G = la_gpm.read_graph(data_path("citeseer.edgelist"))
    for k, want in CITESEER_CLIQUES.items():
        assert _gpu_cliques(G, k) == want


def test_wiki_vote_published():
    G = la_gpm.read_graph(data_path("wiki-Vote.txt"))
    for k, want in WIKI_VOTE_CLIQUES.items():
        assert _gpu_cliques(G, k) == want
