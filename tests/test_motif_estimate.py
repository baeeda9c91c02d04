"""Motif-frequency estimation (colorful treelets + sampling): tables, sampler, sigma, intervals, errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import la_gpm
from la_gpm.algorithms.motif_estimate import (_class_info, _plan, _Tables, estimate_census, rooted_shapes,
                                              spanning_trees)
from la_gpm.backends.cpu import motif_estimate_kernels as K
from la_gpm.exceptions import BackendUnavailable, InvalidArgument, LaGpmError, PatternTooLarge

# rooted unlabeled trees with 1..8 vertices (OEIS A000081)
ROOTED_TREES = [1, 1, 2, 4, 9, 20, 48, 115]


def _random_graph(n, p, seed):
    rng = np.random.default_rng(seed)
    src, dst = np.nonzero(np.triu(rng.random((n, n)) < p, 1))
    return la_gpm.Graph.from_edges(src, dst, n=n)


def _connected(vs, edges):
    adj = {v: set() for v in vs}
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    seen, stack = {vs[0]}, [vs[0]]
    while stack:
        for w in adj[stack.pop()]:
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return len(seen) == len(vs)


def _brute_sigma(edges, k):
    return sum(1 for sub in itertools.combinations(edges, k - 1) if _connected(list(range(k)), sub))


def _colorful_treelets(G, k, colors):
    """Every colorful k-treelet copy (frozenset of edges) by brute force."""
    E = {(int(a), int(b)) for a in range(G.n) for b in G.neighbors(a) if a < b}
    out = set()
    for vs in itertools.combinations(range(G.n), k):
        if len({int(colors[v]) for v in vs}) != k:
            continue
        ind = [e for e in itertools.combinations(vs, 2) if e in E]
        for sub in itertools.combinations(ind, k - 1):
            if _connected(list(vs), sub):
                out.add(frozenset(sub))
    return out


# ----------------------------------------------------------------------------- shapes and sigma
def test_rooted_shapes_counts_and_plan():
    shapes = rooted_shapes(8)
    sizes = [sum(1 for s in shapes if _size(s) == h) for h in range(1, 9)]
    assert sizes == ROOTED_TREES
    pl = _plan(6)
    # children before parents, every shape built once
    for i in range(len(pl.shapes)):
        if pl.size[i] > 1:
            assert pl.act[i] < i and pl.pas[i] < i
    assert len(set(pl.shapes)) == len(pl.shapes)
    assert len(pl.top) == ROOTED_TREES[5]


def _size(s):
    return 1 + sum(_size(c) for c in s)


@pytest.mark.parametrize("k", [3, 4, 5, 6])
def test_sigma_brute_force(k):
    cls, sigma, _ = _class_info(k)
    for e, sg in zip(cls.edges, sigma):
        assert spanning_trees(e, k) == sg == _brute_sigma(list(e), k)
    # known values: path 1, cycle k, clique k^(k-2)
    names = dict(zip(cls.names, sigma))
    assert sigma[-1] == k ** (k - 2)          # the clique (most edges) has k^(k-2) (Cayley)
    if k >= 4:
        assert names[f"{k}-cycle"] == k and names[f"{k}-path"] == 1


# ----------------------------------------------------------------------------- tables
@pytest.mark.parametrize("k", [3, 4, 5])
def test_tables_count_colorful_treelets_exactly(k):
    """Σ over colorful induced graphlets of σ = colorful k-treelets counted by the tables."""
    G = la_gpm.datasets.load("karate")
    cls, sigma, _ = _class_info(k)
    for coloring in range(2):
        colors = np.random.default_rng(coloring).integers(0, k, G.n).astype(np.int8)
        T = _Tables(G, k, colors)
        _, tot = K.colorful_graphlets_brute(G.indptr, G.indices, colors, k, cls.table, sigma)
        assert T.treelets == pytest.approx(tot, rel=1e-12)
        assert tot > 0


def test_tables_match_brute_treelets_on_random_graph():
    G = _random_graph(11, 0.4, 3)
    k = 4
    colors = (np.arange(G.n) % k).astype(np.int8)
    T = _Tables(G, k, colors)
    assert T.treelets == len(_colorful_treelets(G, k, colors))


# ----------------------------------------------------------------------------- sampler
def test_sampler_uniform_over_colorful_treelets():
    """For a fixed coloring the empirical distribution over colorful treelets is uniform (chi-square)."""
    from scipy import stats
    G = _random_graph(12, 0.35, 7)
    k = 4
    colors = ((np.arange(G.n) * 5 + 1) % k).astype(np.int8)
    every = sorted(_colorful_treelets(G, k, colors), key=sorted)
    T = _Tables(G, k, colors)
    assert T.treelets == len(every) and len(every) >= 30
    index = {t: i for i, t in enumerate(every)}
    N = 200 * len(every)
    verts, edges, _ = T.sample(N, key=12345)
    obs = np.zeros(len(every), dtype=np.int64)
    for i in range(N):
        tree = frozenset((int(min(a, b)), int(max(a, b))) for a, b in edges[i])
        assert len({int(colors[v]) for v in verts[i]}) == k
        assert set(verts[i].tolist()) == {v for e in tree for v in e}
        obs[index[tree]] += 1      # KeyError: not a colorful treelet of G
    chi2, pval = stats.chisquare(obs)
    assert pval > 1e-3, (chi2, pval)


def test_sampler_reproducible_and_split_invariant():
    G = la_gpm.datasets.load("karate")
    k = 5
    colors = (np.arange(G.n) % k).astype(np.int8)
    T = _Tables(G, k, colors)
    v1, e1, _ = T.sample(1000, key=99)
    v2, e2, _ = T.sample(1000, key=99)
    assert np.array_equal(v1, v2) and np.array_equal(e1, e2)
    a, _, _ = T.sample(400, key=99, first=600)
    assert np.array_equal(a, v1[600:])


# ----------------------------------------------------------------------------- the estimator
def _truth(G, k):
    ex = la_gpm.census(G, k)
    return dict(zip(ex.name, (int(c) for c in ex["count"])))


def _check_coverage(G, k, seeds, delta=0.05, eps=0.1):
    truth = _truth(G, k)
    total = sum(truth.values())
    inside = n = 0
    for seed in seeds:
        df = estimate_census(G, k, eps=eps, delta=delta, seed=seed)
        assert df.attrs["converged"], df.attrs["pending"]
        assert set(df.name) == {nm for nm, c in truth.items() if c > 0}  # every class present is seen
        for r in df.itertuples():
            n += 1
            inside += r.ci_low <= truth[r.name] <= r.ci_high
            f = truth[r.name] / total
            if f > 0.01:
                assert abs(r.frequency - f) <= eps * f, (seed, r.name, r.frequency, f)
                assert r.reached
    # stated rate 1 - delta, with binomial slack for the finite number of intervals
    assert inside >= n * (1 - delta) - 2.5 * math.sqrt(n * delta * (1 - delta)), (inside, n)
    return inside, n


def test_citeseer_k4_intervals_cover_exact_counts():
    _check_coverage(la_gpm.datasets.load("citeseer"), 4, range(8))


def test_email_k4_intervals_cover_exact_counts():
    _check_coverage(la_gpm.datasets.load("email-Eu-core"), 4, range(3))


@pytest.mark.slow
def test_citeseer_k5_intervals_cover_exact_counts():
    _check_coverage(la_gpm.datasets.load("citeseer"), 5, range(6))


@pytest.mark.slow
def test_email_k5_intervals_cover_exact_counts():
    _check_coverage(la_gpm.datasets.load("email-Eu-core"), 5, range(3))


def test_citeseer_known_table_k4():
    from tests.known import CITESEER_INDUCED_4
    df = estimate_census(la_gpm.datasets.load("citeseer"), 4, seed=11)
    got = dict(zip(df.name, zip(df.ci_low, df.ci_high, df["count"])))
    inside = sum(got[nm][0] <= c <= got[nm][1] for nm, c in CITESEER_INDUCED_4.items())
    assert inside >= 5
    for nm in ("4-path", "4-star"):
        assert abs(got[nm][2] - CITESEER_INDUCED_4[nm]) <= 0.1 * CITESEER_INDUCED_4[nm]


def test_reproducible_by_seed_and_columns():
    G = la_gpm.datasets.load("citeseer")
    a = estimate_census(G, 4, seed=5)
    b = estimate_census(G, 4, seed=5)
    c = estimate_census(G, 4, seed=6)
    assert a.drop(columns=["edges"]).equals(b.drop(columns=["edges"]))
    assert not np.array_equal(a["count"].to_numpy(), c["count"].to_numpy())
    assert list(a.columns) == ["name", "key", "edges", "count", "frequency", "ci_low", "ci_high", "samples",
                               "sigma", "rel_halfwidth", "reached"]
    assert a["frequency"].sum() == pytest.approx(1.0)
    assert a.attrs["total"] == pytest.approx(a["count"].sum())
    assert (a.ci_low <= a["count"]).all() and (a["count"] <= a.ci_high).all()
    assert a.attrs["seed"] == 5 and a.attrs["colorings"] >= 10


def test_budget_stops_early_and_reports():
    G = la_gpm.datasets.load("citeseer")
    df = estimate_census(G, 5, eps=0.01, seed=1, max_samples=5000)
    assert df.attrs["samples"] <= 5000
    assert not df.attrs["converged"] and df.attrs["pending"]
    assert not df["reached"].all()
    df2 = estimate_census(G, 4, eps=0.001, seed=1, max_colorings=3)
    assert df2.attrs["colorings"] == 3 and not df2.attrs["converged"]


def test_triangle_free_and_tiny_graphs():
    # a star: only 3-vertex wedges exist; the 4-star is the only 4-class
    G = la_gpm.Graph.from_edges([0, 0, 0, 0], [1, 2, 3, 4], n=5)
    df = estimate_census(G, 3, seed=0, max_colorings=50)
    assert list(df.name) == ["wedge"] and df.attrs["colorings"] == 50
    assert df.ci_low.iloc[0] <= 6 <= df.ci_high.iloc[0]
    # no connected 4-set at all: empty table, total 0
    P = la_gpm.Graph.from_edges([0, 1], [1, 2], n=3)
    df = estimate_census(P, 4, seed=0)
    assert len(df) == 0 and df.attrs["total"] == 0 and df.attrs["converged"]


def test_bad_inputs_raise_named_errors():
    G = la_gpm.datasets.load("karate")
    with pytest.raises(PatternTooLarge):
        estimate_census(G, 9)
    for bad in (dict(k=2), dict(k=4.0), dict(k=4, eps=0), dict(k=4, eps=1.5), dict(k=4, delta=0),
                dict(k=4, seed=-1), dict(k=4, seed="x"), dict(k=4, time_budget=-1), dict(k=4, max_samples=0),
                dict(k=4, min_frequency=2), dict(k=4, samples_per_coloring=0), dict(k=4, max_colorings=True)):
        with pytest.raises(InvalidArgument):
            estimate_census(G, **bad)
    with pytest.raises((BackendUnavailable, InvalidArgument)):
        estimate_census(G, 4, backend="graphblas")
    D = la_gpm.Graph.from_edges([0, 1], [1, 2], n=3, directed=True)
    with pytest.raises(LaGpmError):
        estimate_census(D, 3)
