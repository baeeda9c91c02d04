"""tree_census: all free trees of k vertices in one color-coding pass, against exact counts."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import la_gpm
from la_gpm import Graph
from la_gpm.color_coding.all_trees import free_trees, plan_census, tree_census
from la_gpm.exceptions import InvalidArgument

from .conftest import gpu, requires_gpu
from .test_color_coding import exact_copies

nx = pytest.importorskip("networkx")


def test_free_trees_are_all_nonisomorphic_trees():
    # OEIS A000055; networkx's own generator is the independent oracle
    assert [len(free_trees(k)) for k in range(1, 11)] == [1, 1, 1, 2, 3, 6, 11, 23, 47, 106]
    for k in (5, 6, 7, 8):
        ours = [nx.Graph(list(P.edges)) for P in free_trees(k)]
        for g in ours:
            g.add_nodes_from(range(k))
            assert nx.is_tree(g) and g.number_of_nodes() == k
        for a, b in itertools.combinations(ours, 2):
            assert not nx.is_isomorphic(a, b)
        assert len(ours) == sum(1 for _ in nx.nonisomorphic_trees(k))
    assert [P.name for P in free_trees(4)] == ["tree4-0", "tree4-1"]


def test_plan_shares_subtemplates():
    for k in (5, 7, 9):
        cp = plan_census(k)
        assert len(cp.roots) == len(cp.trees) == len(set(cp.roots))
        assert cp.shared_spmm_cols < cp.separate_spmm_cols
        assert cp.shared_ema_terms < cp.separate_ema_terms
        keys = [op.key for op in cp.plan.ops]
        assert len(keys) == len(set(keys))  # every distinct table and product once
        for i, op in enumerate(cp.plan.ops):  # children first
            assert all(j < i for j in op.inputs)


def test_intervals_cover_exact_counts():
    # exact counts by brute-force DFS; all trees of 4, 5 and 6 vertices on karate, two seeds each
    G = la_gpm.datasets.load("karate")
    hits = total = 0
    for k, seeds in ((4, (1, 2)), (5, (1, 2)), (6, (3,))):
        truth = {P.name: exact_copies(G, P) for P in free_trees(k)}
        for s in seeds:
            res = tree_census(G, k, eps=0.25, delta=0.01, seed=s, backend="cpu")
            assert list(res) == list(truth)
            for name, est in res.items():
                assert est.converged and est.relative_halfwidth <= 0.25 * 1.0001
                hits += est.ci_low <= truth[name] <= est.ci_high
                total += 1
    assert hits >= total - 1, (hits, total)  # delta = 0.01 per run over all trees at once


def test_values_are_the_single_tree_estimates():
    # the shared pass gives, per coloring, the same values as estimating each tree alone
    G = la_gpm.generators.graph500(9)
    res = tree_census(G, 6, seed=7, max_colorings=12, backend="cpu", dtype="float64")
    for P in free_trees(6):
        one = la_gpm.estimate(G, P, seed=7, max_colorings=12, backend="cpu", dtype="float64")
        np.testing.assert_allclose(res[P.name].values, one.values, rtol=1e-12)
        assert not res[P.name].converged and res[P.name].n_colorings == 12


def test_bad_inputs():
    G = la_gpm.datasets.load("karate")
    for k in (1, 13, 2.5, "4"):
        with pytest.raises(InvalidArgument):
            tree_census(G, k)
    with pytest.raises(InvalidArgument):
        tree_census(G, 4, eps=0)
    with pytest.raises(InvalidArgument):
        tree_census(G, 4, max_colorings=0)
    D = Graph.from_edges([0, 1], [1, 2], directed=True)
    with pytest.raises(InvalidArgument):
        tree_census(D, 3)


@gpu
@requires_gpu
def test_gpu_equals_cpu():
    G = la_gpm.generators.graph500(11)
    c = tree_census(G, 7, seed=5, max_colorings=4, backend="cpu")
    g = tree_census(G, 7, seed=5, max_colorings=4, backend="gpu")
    for name in c:
        np.testing.assert_allclose(g[name].values, c[name].values, rtol=2e-5)


@pytest.mark.slow
def test_interval_coverage_many_seeds():
    # 40 seeded runs of all 5-vertex trees on karate: with delta = 0.05 for the joint statement,
    # at most a few runs may miss one tree (expected 2)
    G = la_gpm.datasets.load("karate")
    truth = {P.name: exact_copies(G, P) for P in free_trees(5)}
    bad = 0
    for s in range(40):
        res = tree_census(G, 5, eps=0.25, delta=0.05, seed=100 + s, backend="cpu")
        bad += any(not (e.ci_low <= truth[n] <= e.ci_high) for n, e in res.items())
    assert bad <= 6, bad
