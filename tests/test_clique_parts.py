"""k-clique counts by part: one partition of the roots on every backend (parts may be mixed).

The definition (``la_gpm.partition``): part (i, nparts) holds the cliques whose lowest
vertex in the degree order has a degree rank in the i-th range cut by ``part_range`` at equal
shares of a per-root weight: out-degree² (k <= 4) or, for k >= 5,
``d_u² + Σ_{v ∈ N+(u)} Σ_{i=1}^{k-3} C(|N+(u) ∩ N+(v)|, i)``. The oracle below recomputes both from
networkx sets and ``math.comb``, never from the weights code under test.
"""

from __future__ import annotations

import itertools
from math import comb

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm.kcliques import clique_count
from la_gpm.partition import clique_arc_sizes, clique_weights, part_range, rank_range

gpu = pytest.mark.skipif("gpu" not in la_gpm.available_backends(), reason="no GPU visible")


def _oracle_weights(H, rank, k):
    """Per degree rank: the documented weight of the root of that rank, from networkx sets."""
    n = H.number_of_nodes()
    out = {u: {v for v in H[u] if rank[v] > rank[u]} for u in H}
    w = np.zeros(n)
    for u in H:
        d = len(out[u])
        s = d * d
        if k >= 5:
            s += sum(comb(len(out[u] & out[v]), i) for v in out[u] for i in range(1, k - 2))
        w[rank[u]] = s
    return w


def _brute_by_part(G, k, nparts):
    """Cliques of size k per part, from networkx and the documented weights."""
    H = G.to_networkx()
    rank = G.degree_rank
    w = _oracle_weights(H, rank, k)
    bounds = [part_range(w, (i, nparts)) for i in range(nparts)]
    out = [0] * nparts
    for c in nx.enumerate_all_cliques(H):
        if len(c) < k:
            continue
        if len(c) > k:
            break
        r = min(rank[v] for v in c)
        out[next(i for i, (lo, hi) in enumerate(bounds) if lo <= r < hi)] += 1
    return out


@pytest.mark.parametrize("seed,k,nparts", list(itertools.product((1, 2), (3, 4, 5, 6), (1, 3, 7))))
def test_cpu_parts_follow_the_rank_ranges(seed, k, nparts):
    G = la_gpm.generators.gnm(60, 600, seed=seed)
    want = _brute_by_part(G, k, nparts)
    got = [clique_count(G, k, backend="cpu", part=(i, nparts)) for i in range(nparts)]
    assert got == want
    assert sum(got) == clique_count(G, k, backend="cpu")


@pytest.mark.parametrize("k", (3, 4, 5, 7))
def test_weights_match_the_definition(k):
    G = la_gpm.generators.rmat(9, seed=4)
    H = G.to_networkx()
    np.testing.assert_allclose(clique_weights(G, k), _oracle_weights(H, G.degree_rank, k), rtol=1e-12)
    hp, hi = G.oriented_ranked()
    src = np.repeat(np.arange(G.n), np.diff(hp))
    out = [set(hi[hp[u]:hp[u + 1]].tolist()) for u in range(G.n)]
    assert clique_arc_sizes(G).tolist() == [len(out[u] & out[v]) for u, v in zip(src.tolist(), hi.tolist())]


def test_unspecified_k_keeps_the_degree_squared_ranges():
    G = la_gpm.generators.rmat(10, seed=2)
    hp, _ = G.oriented_ranked()
    w = np.diff(hp).astype(np.float64) ** 2
    for n in (1, 2, 5, 64):
        want = [part_range(w, (i, n)) for i in range(n)]
        assert [rank_range(G, (i, n)) for i in range(n)] == want
        assert [rank_range(G, (i, n), k=4) for i in range(n)] == want


def test_heavy_k_parts_spread_less_than_degree_squared():
    """On a skewed graph the k = 7 weights leave less of the true work in the heaviest part than
    out-degree² does; the work of a rank range is measured as the nodes of the depth-first search,
    the j-cliques (j = 3..6) rooted in it, counted by the cpu kernel."""
    from la_gpm.kcliques.cpu import count_cliques_serial
    G = la_gpm.generators.rmat(10, seed=1)
    ptr, idx = G.oriented()
    maxo = int(np.diff(ptr).max())
    rank = G.degree_rank

    def work(lo, hi):
        roots = np.flatnonzero((rank >= lo) & (rank < hi)).astype(np.int64)
        return sum(int(count_cliques_serial(ptr, idx, roots, j, maxo)[0]) for j in range(3, 7))

    def spread(k):
        w = [work(*rank_range(G, (i, 8), k)) for i in range(8)]
        return max(w) / np.median(w)
    old, new = spread(None), spread(7)
    assert new < old / 1.5, (old, new)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 40), p=st.floats(0.05, 0.9), seed=st.integers(0, 10_000), k=st.integers(3, 6),
       nparts=st.integers(1, 7))
def test_parts_tile_the_roots_and_add_up(n, p, seed, k, nparts):
    G = la_gpm.as_graph(nx.gnp_random_graph(n, p, seed=seed))
    ranges = [rank_range(G, (i, nparts), k) for i in range(nparts)]
    assert ranges[0][0] == 0 and ranges[-1][1] == G.n
    assert all(a[1] == b[0] and a[0] <= a[1] for a, b in zip(ranges, ranges[1:]))
    assert sum(clique_count(G, k, backend="cpu", part=(i, nparts)) for i in range(nparts)) == \
        clique_count(G, k, backend="cpu")


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize("k", (3, 4, 5, 6, 7))
def test_gpu_parts_equal_cpu_parts(k):
    # the same root ranges on both backends: a count split over mixed workers adds up
    G = la_gpm.generators.rmat(12, seed=3)
    for nparts in (2, 7, 64):
        cpu = [clique_count(G, k, backend="cpu", part=(i, nparts)) for i in range(nparts)]
        assert [clique_count(G, k, backend="gpu", part=(i, nparts)) for i in range(nparts)] == cpu
        assert sum(cpu) == clique_count(G, k, backend="gpu")


@pytest.mark.gpu
@gpu
def test_gpu_weights_input_equals_the_cpu_pass():
    # the gpu fills the arc sizes from its kernel; the cpu's numba pass must give the same integers
    from la_gpm.kcliques.gpu import arc_sizes
    G = la_gpm.generators.rmat(13, seed=7)
    H = la_gpm.generators.rmat(13, seed=7)
    import cupy as cp
    assert (cp.asnumpy(arc_sizes(G)) == clique_arc_sizes(H)).all()
    assert [clique_count(G, 6, backend="gpu", part=(i, 5)) for i in range(5)] == \
        [clique_count(H, 6, backend="cpu", part=(i, 5)) for i in range(5)]
