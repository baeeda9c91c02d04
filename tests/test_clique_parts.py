"""k-clique counts by part: one partition of the roots on every backend (parts may be mixed)."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

import la_gpm
from la_gpm.algorithms.cliques import clique_count
from la_gpm.backends.partition import part_range

gpu = pytest.mark.skipif("gpu" not in la_gpm.available_backends(), reason="no GPU visible")


def _brute_by_part(G, k, nparts):
    """Cliques of size k per part, from networkx: a clique belongs to the part whose range of degree
    ranks (out-degree² weights over the rank-ordered DAG, the documented definition) holds its
    lowest-ranked vertex."""
    hp, _ = G.oriented_ranked()
    w = np.diff(hp).astype(np.float64) ** 2
    bounds = [part_range(w, (i, nparts)) for i in range(nparts)]
    rank = G.degree_rank
    out = [0] * nparts
    H = G.to_networkx()
    for c in nx.enumerate_all_cliques(H):
        if len(c) < k:
            continue
        if len(c) > k:
            break
        r = min(rank[v] for v in c)
        out[next(i for i, (lo, hi) in enumerate(bounds) if lo <= r < hi)] += 1
    return out


@pytest.mark.parametrize("seed,k,nparts", list(itertools.product((1, 2), (3, 4, 5), (1, 3, 7))))
def test_cpu_parts_follow_the_rank_ranges(seed, k, nparts):
    G = la_gpm.generators.gnm(60, 600, seed=seed)
    want = _brute_by_part(G, k, nparts)
    got = [clique_count(G, k, backend="cpu", part=(i, nparts)) for i in range(nparts)]
    assert got == want
    assert sum(got) == clique_count(G, k, backend="cpu")


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("k", (3, 4, 5, 6))
def test_gpu_parts_equal_cpu_parts(k):
    # the same root ranges on both backends: a count split over mixed workers adds up
    G = la_gpm.generators.rmat(12, seed=3)
    for nparts in (2, 7, 64):
        cpu = [clique_count(G, k, backend="cpu", part=(i, nparts)) for i in range(nparts)]
        assert [clique_count(G, k, backend="gpu", part=(i, nparts)) for i in range(nparts)] == cpu
        assert sum(cpu) == clique_count(G, k, backend="gpu")
