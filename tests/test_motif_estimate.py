"""Motif-frequency estimation (colorful treelets + sampling): tables, sampler, sigma, intervals, errors."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import la_gpm
from la_gpm.patterns.classes import canonical_codes, classes, to_induced
from la_gpm.motif_estimate.driver import _class_info, _Registry, estimate_census
from la_gpm.motif_estimate.shapes import free_shape, free_shapes, rooted_shapes, spanning_trees
from la_gpm.motif_estimate.shapes import shape_plan as _plan
from la_gpm.motif_estimate.tables import CpuTables as _Tables, shape_sigma
from la_gpm.motif_estimate import cpu as K
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
@pytest.mark.parametrize("hub_chunk", [1 << 40, 2, 3])
def test_sampler_uniform_over_colorful_treelets(monkeypatch, hub_chunk):
    """For a fixed coloring the empirical distribution over colorful treelets is uniform (chi-square);
    also with every vertex a hub whose neighbour runs (2 or 3 long) are skipped by their sums."""
    from scipy import stats
    import la_gpm.motif_estimate.tables as ME
    monkeypatch.setattr(ME, "HUB_CHUNK", hub_chunk)
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


def test_hub_run_skipping_draws_the_same_samples(monkeypatch):
    # the run sums only skip work: same tables, same draws, same samples as the plain scan
    import la_gpm.motif_estimate.tables as ME
    G = la_gpm.generators.rmat(11, seed=4)
    for k in (4, 6):
        colors = ((np.arange(G.n) * 7 + 3) % k).astype(np.int8)
        out = []
        for hc in (1 << 40, 4, 64):
            monkeypatch.setattr(ME, "HUB_CHUNK", hc)
            T = _Tables(G, k, colors)
            assert (T.hub_off >= 0).any() == (hc < 1 << 40)
            out.append((T.B, T.sample(3000, key=5)))
        for B, (v, e, s) in out[1:]:
            assert np.array_equal(B, out[0][0])
            assert np.array_equal(v, out[0][1][0]) and np.array_equal(e, out[0][1][1])


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


def _check_coverage(G, k, seeds, delta=0.05, eps=0.1, backend="cpu"):
    truth = _truth(G, k)
    total = sum(truth.values())
    inside = n = 0
    for seed in seeds:
        df = estimate_census(G, k, eps=eps, delta=delta, seed=seed, backend=backend)
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
    a = estimate_census(G, 4, seed=5, max_colorings=12, backend="cpu")
    b = estimate_census(G, 4, seed=5, max_colorings=12, backend="cpu")
    c = estimate_census(G, 4, seed=6, max_colorings=12, backend="cpu")
    assert a.drop(columns=["edges"]).equals(b.drop(columns=["edges"]))
    assert not np.array_equal(a["count"].to_numpy(), c["count"].to_numpy())
    assert list(a.columns) == ["name", "key", "edges", "count", "frequency", "ci_low", "ci_high", "samples",
                               "sigma", "rel_halfwidth", "reached"]
    assert a["frequency"].sum() == pytest.approx(1.0)
    assert a.attrs["total"] == pytest.approx(a["count"].sum())
    assert (a.ci_low <= a["count"]).all() and (a["count"] <= a.ci_high).all()
    assert a.attrs["seed"] == 5 and a.attrs["colorings"] >= 10
    assert a.attrs["backend"] == "cpu"


def test_budget_stops_early_and_reports():
    G = la_gpm.datasets.load("citeseer")
    df = estimate_census(G, 5, eps=0.01, seed=1, max_samples=5000)
    assert df.attrs["samples"] <= 5000
    assert not df.attrs["converged"] and df.attrs["pending"]
    assert not df["reached"].all()
    df2 = estimate_census(G, 4, eps=0.001, seed=1, max_colorings=3)
    assert df2.attrs["colorings"] == 3 and not df2.attrs["converged"]


def test_variance_split_sampling_part_matches_repeated_sampling():
    """One fixed coloring sampled many times (Vc = 0): the estimated sampling variance g²·h must match the
    empirical variance of the per-batch estimates (an independent check of the binomial approximation)."""
    from la_gpm.motif_estimate.driver import _Record, variance_split
    G = la_gpm.datasets.load("email-Eu-core")
    k = 4
    reg = _Registry(k)
    p = math.factorial(k) / k ** k
    T = _Tables(G, k, ((np.arange(G.n) * 5 + 1) % k).astype(np.int8))
    qn = T.natural_mixture() / T.shape_treelets
    rec = _Record()
    for key in range(60):
        rows = reg.classify(G, T.sample(3000, key=key)[0])
        rec.add(np.bincount(rows, minlength=len(reg)), 3000, qn, T.treelets)
    X, _, H = rec.matrices(reg, p)
    rows = [i for i in range(len(reg)) if H[:, i].mean() >= 20]
    vtot, vs, a = variance_split(rec, reg, p, rows)
    ratio = vs / vtot
    assert len(rows) >= 3 and np.all(ratio > 0.55) and np.all(ratio < 1.8), ratio
    assert np.allclose(a, vs * 3000)


def test_auto_samples_and_checkpoints_options():
    G = la_gpm.datasets.load("email-Eu-core")
    truth = {r.name: int(r.count) for r in la_gpm.census(G, 4).itertuples()}
    for spc, cps in (("auto", "planned"), (1 << 14, "geometric")):
        df = estimate_census(G, 4, seed=5, samples_per_coloring=spc, checkpoints=cps, min_frequency=1e-3)
        a = df.attrs
        assert a["checkpoints"] == cps and a["samples_per_coloring"] == spc and a["converged"]
        assert a["samples"] <= a["colorings"] * (1 << 22)
        inside = np.mean([r.ci_low <= truth[r.name] <= r.ci_high for r in df.itertuples()])
        assert inside >= 0.8
    assert estimate_census(G, 3, seed=1, backend="cpu").attrs["samples_per_coloring"] == 1 << 16  # None: cpu default
    from la_gpm.motif_estimate.driver import default_samples_per_coloring
    assert [default_samples_per_coloring(be, k) for be, k in (("cpu", 8), ("gpu", 7), ("gpu", 8))] == \
        [1 << 16, 1 << 20, 1 << 21]
    for bad in ("many", 0, 2.5):
        with pytest.raises(InvalidArgument):
            estimate_census(G, 4, seed=1, samples_per_coloring=bad)
    with pytest.raises(InvalidArgument):
        estimate_census(G, 4, seed=1, checkpoints="sometimes")


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
    # an 8-path has one connected 8-set, colorful in few colorings: zero treelets so far is not convergence
    P8 = la_gpm.Graph.from_edges(list(range(7)), list(range(1, 8)), n=8)
    df = estimate_census(P8, 8, seed=0, max_colorings=20, backend="cpu", coloring="uniform")
    assert df.attrs["colorings"] == 20 and not df.attrs["converged"]
    # balanced colorings of 8 vertices with 8 colours: every coloring is colorful (p = 1), so the
    # one 8-set is found in every coloring and the estimate is exact
    df = estimate_census(P8, 8, seed=0, max_colorings=20, backend="cpu")
    assert df.attrs["colorful_probability"] == 1.0 and df.attrs["converged"]
    assert list(df["count"]) == [1.0] and df.ci_low.iloc[0] <= 1 <= df.ci_high.iloc[0]


def test_bad_inputs_raise_named_errors():
    G = la_gpm.datasets.load("karate")
    with pytest.raises(PatternTooLarge):
        estimate_census(G, 9)
    for bad in (dict(adaptive=1), dict(natural_share=0), dict(natural_share=1.5)):
        with pytest.raises(InvalidArgument):
            estimate_census(G, 4, **bad)
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


# ----------------------------------------------------------------------------- per-shape sigma, AGS, k = 8
# unlabeled trees with 1..8 vertices (OEIS A000055)
FREE_TREES = [1, 1, 1, 2, 3, 6, 11, 23]


def _nx_tree(shape):
    import networkx as nx
    T = nx.Graph()
    T.add_node(0)

    def grow(s, v):
        for c in s:
            u = T.number_of_nodes()
            T.add_edge(v, u)
            grow(c, u)
    grow(shape, 0)
    return T


def test_free_shapes_counts_and_distinct():
    import networkx as nx
    assert [len(free_shapes(k)) for k in range(1, 9)] == FREE_TREES
    trees = [_nx_tree(f) for f in free_shapes(7)]
    for a, b in itertools.combinations(trees, 2):
        assert not nx.is_isomorphic(a, b)
    # every rooting of a free tree maps back to it
    for s in rooted_shapes(6):
        if _size(s) == 6:
            assert nx.is_isomorphic(_nx_tree(s), _nx_tree(free_shape(s)))


def _brute_shape_sigma(edges, k):
    """Spanning trees of the graph, sorted into free shapes by networkx isomorphism."""
    import networkx as nx
    shapes = [_nx_tree(f) for f in free_shapes(k)]
    out = [0] * len(shapes)
    for sub in itertools.combinations(edges, k - 1):
        if _connected(list(range(k)), sub):
            T = nx.Graph(list(sub))
            out[next(i for i, S in enumerate(shapes) if nx.is_isomorphic(S, T))] += 1
    return out


@pytest.mark.parametrize("k", [4, 5])
def test_shape_sigma_brute_force(k):
    cls, sigma, sigF = _class_info(k)
    for e, row in zip(cls.edges, sigF):
        assert row.tolist() == _brute_shape_sigma(list(e), k)
    assert np.array_equal(sigF.sum(axis=1), sigma)


def test_shape_sigma_k8_examples():
    k = 8
    rng = np.random.default_rng(4)
    graphs = [[(i, i + 1) for i in range(7)] + [(0, 7)],                      # 8-cycle
              [(0, i) for i in range(1, 8)] + [(1, 2)]]                        # star plus one edge
    while len(graphs) < 4:                                                     # sparse random connected graphs
        e = [(a, b) for a, b in itertools.combinations(range(k), 2) if rng.random() < 0.3]
        if 7 <= len(e) <= 10 and _connected(list(range(k)), e):
            graphs.append(e)
    got = shape_sigma(graphs, k)
    for e, row in zip(graphs, got):
        assert row.tolist() == _brute_shape_sigma(e, k)
        assert row.sum() == spanning_trees(e, k)


def test_the_shipped_sigma8_table_holds_every_8_vertex_class_and_is_what_shape_sigma_computes(monkeypatch):
    """data/sigma8.npz: one row per connected 8-vertex class (census8's keys), each row summing to the class's
    spanning trees (Kirchhoff, batched), a random sample of rows equal to shape_sigma's and to brute force; and
    the k = 8 registry reads it instead of computing."""
    from la_gpm.motif_estimate import tables as TB
    from la_gpm.motifs.census8 import classes8
    table = TB.shipped_sigma(8)
    assert table is not None, "data/sigma8.npz is missing or its columns are not free_shapes(8)"
    keys, sigf = table
    c = classes8()
    assert keys.tolist() == sorted(c.keys) and sigf.shape == (11_117, len(free_shapes(8)))
    edges = dict(zip(c.keys, c.edges))
    lap = np.zeros((keys.size, 8, 8))
    for i, key in enumerate(keys.tolist()):
        for a, b in edges[key]:
            lap[i, a, b] = lap[i, b, a] = -1
    lap[:, np.arange(8), np.arange(8)] = -lap.sum(axis=2)
    kirchhoff = np.rint(np.linalg.det(lap[:, 1:, 1:])).astype(np.int64)
    assert np.array_equal(sigf.astype(np.int64).sum(axis=1), kirchhoff)
    pick = np.random.default_rng(8).choice(keys.size, 24, replace=False)
    assert np.array_equal(shape_sigma([edges[int(keys[i])] for i in pick], 8), sigf[pick].astype(np.int64))
    # brute force (every 7 of a class's edges) on 3 classes of at most 11 edges
    sparse = np.flatnonzero([len(edges[int(key)]) <= 11 for key in keys.tolist()])
    for i in np.random.default_rng(9).choice(sparse, 3, replace=False):
        assert sigf[i].tolist() == _brute_shape_sigma(list(edges[int(keys[i])]), 8)
    # the registry's new classes take the table's rows, shape_sigma is not called; an unknown key is computed
    monkeypatch.setattr(TB, "shape_sigma", lambda *a: pytest.fail("shape_sigma called for a shipped class"))
    reg = _Registry(8)
    codes = [sum(1 << (max(a, b) * (max(a, b) - 1) // 2 + min(a, b)) for a, b in edges[int(keys[i])]) for i in pick]
    rows = reg.rows_of_codes(np.array(codes, dtype=np.int64))
    assert np.array_equal(reg.sigF[rows], sigf[pick].astype(np.int64))
    monkeypatch.setattr(TB, "shape_sigma", lambda e, k: np.full((len(e), 23), 7, dtype=np.int64))
    got = TB.sigma_rows([keys[pick[0]], -5], [edges[int(keys[pick[0]])], []], 8)
    assert got[0].tolist() == sigf[pick[0]].tolist() and got[1].tolist() == [7] * 23


def test_canonical_codes_k8_match_isomorphism():
    import networkx as nx
    rng = np.random.default_rng(0)
    k = 8
    graphs, codes = [], []
    for _ in range(60):
        e = [(a, b) for a, b in itertools.combinations(range(k), 2) if rng.random() < 0.25]
        for _ in range(2):                       # the graph and a random relabelling of it
            perm = rng.permutation(k)
            pe = [(int(perm[a]), int(perm[b])) for a, b in e]
            graphs.append(nx.Graph(pe))
            graphs[-1].add_nodes_from(range(k))
            codes.append(sum(1 << (max(a, b) * (max(a, b) - 1) // 2 + min(a, b)) for a, b in pe))
    can = canonical_codes(np.array(codes, dtype=np.int64), k)
    for i in range(0, len(graphs), 2):
        assert can[i] == can[i + 1]
    for i, j in itertools.combinations(range(0, len(graphs), 2), 2):
        assert (can[i] == can[j]) == nx.is_isomorphic(graphs[i], graphs[j])


def _relabel_code(code, perm, k):
    out = 0
    for j in range(1, k):
        for a in range(j):
            if (code >> (j * (j - 1) // 2 + a)) & 1:
                x, y = sorted((int(perm[a]), int(perm[j])))
                out |= 1 << (y * (y - 1) // 2 + x)
    return out


@pytest.mark.parametrize("k", [4, 6, 8])
def test_ordered_codes_are_the_graph_in_invariant_order(k):
    """ordered_codes (the k = 8 registry's cache keys): each output is the input relabelled (a permutation of its
    vertices maps one onto the other, so canonical_codes agree: the same class), vertices sort by canonical_codes'
    invariant with ties by id (checked against a plain Python version), and relabellings of one graph fold into
    fewer keys than the labelled bitmasks."""
    from la_gpm.patterns.classes import ordered_codes
    rng = np.random.default_rng(k)
    nb_ = k * (k - 1) // 2
    codes = rng.integers(0, 1 << nb_, 3000).astype(np.int64)
    base = codes[:40]
    rel = np.array([_relabel_code(int(c), rng.permutation(k), k) for c in base for _ in range(25)], dtype=np.int64)
    codes = np.concatenate([codes, rel])
    out = ordered_codes(codes, k)
    assert np.array_equal(canonical_codes(out, k), canonical_codes(codes, k))
    for c, o in zip(codes[:300].tolist(), out[:300].tolist()):      # the order, in plain Python
        adj = [0] * k
        for j in range(1, k):
            for a in range(j):
                if (c >> (j * (j - 1) // 2 + a)) & 1:
                    adj[a] |= 1 << j
                    adj[j] |= 1 << a
        deg = [bin(x).count("1") for x in adj]
        inv = [(deg[v], sum(deg[u] for u in range(k) if adj[v] >> u & 1),
                sum(bin(adj[v] & adj[u]).count("1") for u in range(k) if adj[v] >> u & 1), v) for v in range(k)]
        order = sorted(range(k), key=lambda v: inv[v])
        pos = {v: i for i, v in enumerate(order)}
        assert o == _relabel_code(c, [pos[v] for v in range(k)], k)
    assert np.unique(out[3000:]).size < np.unique(rel).size
    assert ordered_codes(np.zeros(0, dtype=np.int64), k).size == 0


def test_k8_registry_rows_follow_canonical_codes():
    """The k = 8 registry (cache keyed by ordered codes): every sample's row is the class of its canonical code,
    relabellings of one graph share a row, a second call reuses the rows."""
    rng = np.random.default_rng(3)
    reg = _Registry(8)
    e = [(a, b) for a, b in itertools.combinations(range(8), 2) if rng.random() < 0.4]
    while not nx_connected(e):
        e = [(a, b) for a, b in itertools.combinations(range(8), 2) if rng.random() < 0.4]
    code = sum(1 << (b * (b - 1) // 2 + a) for a, b in e)
    codes = np.array([code] + [_relabel_code(code, rng.permutation(8), 8) for _ in range(200)], dtype=np.int64)
    rows = reg.rows_of_codes(codes)
    assert np.all(rows == rows[0]) and len(reg) == 1
    assert reg.keys[rows[0]] == int(canonical_codes(codes[:1], 8)[0])
    assert np.array_equal(reg.rows_of_codes(codes[::-1]), rows[::-1]) and len(reg) == 1


def nx_connected(edges):
    import networkx as nx
    g = nx.Graph(edges)
    g.add_nodes_from(range(8))
    return nx.is_connected(g)


def test_mixture_design_unbiased_for_fixed_coloring():
    """Any shape mixture q: E[hits_H] / samples = c_H · Σ_F q_F σ_F(H) / N_F (c_H: colorful copies, brute force)."""
    G = la_gpm.datasets.load("karate")
    k = 5
    reg = _Registry(k)
    colors = (np.arange(G.n) * 3 % k).astype(np.int8)
    T = _Tables(G, k, colors)
    c, _ = K.colorful_graphlets_brute(G.indptr, G.indices, colors, k, reg.table, reg.sigma)
    q = np.array([0.1, 0.2, 0.7])                  # far from the natural mixture
    assert not np.allclose(q, T.natural_mixture())
    T.set_mixture(q)
    N = 200_000
    verts, _, shp = T.sample(N, key=7)
    h = np.bincount(reg.classify(G, verts), minlength=len(reg))
    prob = c * ((q / T.shape_treelets) @ reg.sigF.T)
    assert prob.sum() == pytest.approx(1.0)
    z = (h - N * prob) / np.sqrt(N * prob * (1 - prob) + 1e-12)
    assert np.all(np.abs(z[prob > 0]) < 5), z
    assert np.all(h[prob == 0] == 0)
    # the shapes were drawn in proportion to q
    from la_gpm.motif_estimate.shapes import top_free as _top_free
    fs = np.bincount(_top_free(k)[shp], minlength=3) / N
    assert np.allclose(fs, q, atol=0.01)


def _check_coverage_ags(G, k, seeds, eps, min_frequency, delta=0.05):
    truth = _truth(G, k)
    inside = n = ags = 0
    for seed in seeds:
        df = estimate_census(G, k, eps=eps, delta=delta, seed=seed, min_frequency=min_frequency, adaptive=True)
        ags += df.attrs["adaptive_colorings"]
        for r in df.itertuples():
            n += 1
            inside += r.ci_low <= truth[r.name] <= r.ci_high
    assert ags > 0                                   # the adaptive path ran
    assert inside >= n * (1 - delta) - 2.5 * math.sqrt(n * delta * (1 - delta)), (inside, n)
    return inside, n


def test_ags_email_k4_intervals_cover_exact_counts():
    _check_coverage_ags(la_gpm.datasets.load("email-Eu-core"), 4, range(4), eps=0.04, min_frequency=1e-3)


@pytest.mark.slow
def test_ags_citeseer_k4_k5_intervals_cover_exact_counts():
    G = la_gpm.datasets.load("citeseer")
    _check_coverage_ags(G, 4, range(8), eps=0.05, min_frequency=1e-4)
    _check_coverage_ags(G, 5, range(6), eps=0.1, min_frequency=1e-4)


@pytest.mark.slow
def test_ags_email_k5_intervals_cover_exact_counts():
    _check_coverage_ags(la_gpm.datasets.load("email-Eu-core"), 5, range(4), eps=0.05, min_frequency=1e-4)


def _brute_k8(G):
    """{isomorphism class representative (networkx graph): induced count} over connected 8-subsets."""
    import networkx as nx
    H = nx.Graph([(int(a), int(b)) for a in range(G.n) for b in G.neighbors(a) if a < b])
    H.add_nodes_from(range(G.n))
    reps, counts, bucket = [], [], {}
    for vs in itertools.combinations(range(G.n), 8):
        S = H.subgraph(vs)
        if not nx.is_connected(S):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # networkx 3.5 notice: hashes changed (irrelevant here)
            h = nx.weisfeiler_lehman_graph_hash(S)
        for i in bucket.setdefault(h, []):
            if nx.is_isomorphic(reps[i], S):
                counts[i] += 1
                break
        else:
            bucket[h].append(len(reps))
            reps.append(nx.Graph(S))
            counts.append(1)
    return reps, counts


def _sparse_graph16():
    rng = np.random.default_rng(2)
    n = 16
    src = list(range(1, n)) + []
    dst = [int(rng.integers(0, i)) for i in range(1, n)]
    for _ in range(4):
        a, b = rng.choice(n, 2, replace=False)
        src.append(int(a))
        dst.append(int(b))
    return la_gpm.Graph.from_edges(np.array(src), np.array(dst), n=n)


def _rep_index(reps, edges):
    import networkx as nx
    g = nx.Graph([tuple(e) for e in edges])
    g.add_nodes_from(range(8))
    return next(i for i, R in enumerate(reps) if nx.is_isomorphic(R, g))      # StopIteration: not a real class


def test_k8_fixed_coloring_hits_match_brute_force():
    """k = 8, one coloring: hits per discovered class ≈ samples · c_H σ(H) / N (c_H by brute force)."""
    import networkx as nx
    G = _random_graph(13, 0.45, 1)
    k = 8
    colors = (np.arange(G.n) % k).astype(np.int8)
    H = nx.Graph([(int(a), int(b)) for a in range(G.n) for b in G.neighbors(a) if a < b])
    reps, cnt = [], []
    for vs in itertools.combinations(range(G.n), k):
        if len({int(colors[v]) for v in vs}) < k or not nx.is_connected(H.subgraph(vs)):
            continue
        S = nx.convert_node_labels_to_integers(H.subgraph(vs))
        for i, R in enumerate(reps):
            if nx.is_isomorphic(R, S):
                cnt[i] += 1
                break
        else:
            reps.append(S)
            cnt.append(1)
    sig = [spanning_trees(list(R.edges()), k) for R in reps]
    T = _Tables(G, k, colors)
    assert T.treelets == sum(c * s for c, s in zip(cnt, sig))
    reg = _Registry(k)
    N = 100_000
    rows = reg.classify(G, T.sample(N, key=5)[0])
    h = np.bincount(rows, minlength=len(reg))
    assert len(reg) == len(reps)                  # every class hit once at least, no duplicates
    for r in range(len(reg)):
        i = _rep_index(reps, reg.edges[r])
        assert reg.sigma[r] == sig[i]
        prob = cnt[i] * sig[i] / T.treelets
        assert abs(h[r] - N * prob) <= 5 * math.sqrt(N * prob * (1 - prob)), (r, h[r], N * prob)


def test_k8_estimate_end_to_end_small_graph():
    G = _sparse_graph16()
    reps, counts = _brute_k8(G)
    total = sum(counts)
    df = estimate_census(G, 8, seed=3, eps=0.1, min_frequency=0.02, max_colorings=300, min_colorings=300,
                         samples_per_coloring=512)
    assert df.attrs["k"] == 8 and df.attrs["colorings"] == 300
    assert abs(df["count"].sum() - total) <= 0.3 * total, (df["count"].sum(), total)
    assert len(set(df.key)) == len(df)
    inside = 0
    for r in df.itertuples():
        i = _rep_index(reps, r.edges)
        inside += r.ci_low <= counts[i] <= r.ci_high
        assert r.sigma == spanning_trees([tuple(e) for e in r.edges], 8)
    # coverage over three seeds (one seed's 48 intervals are too few for a rate: seed 3 alone has 40)
    n = len(df)
    for seed in (4, 5):
        d2 = estimate_census(G, 8, seed=seed, eps=0.1, min_frequency=0.02, max_colorings=300, min_colorings=300,
                             samples_per_coloring=512)
        n += len(d2)
        inside += sum(r.ci_low <= counts[_rep_index(reps, r.edges)] <= r.ci_high for r in d2.itertuples())
    assert inside >= 0.85 * n, (inside, n)
    # named classes: a relabelled 8-path and 8-cycle get their names
    reg = _Registry(8)
    perm = np.random.default_rng(1).permutation(8)
    path = [(int(perm[i]), int(perm[i + 1])) for i in range(7)]
    codes = [sum(1 << (max(a, b) * (max(a, b) - 1) // 2 + min(a, b)) for a, b in e)
             for e in (path, path + [(int(perm[0]), int(perm[7]))])]
    rows = reg.rows_of_codes(np.array(codes, dtype=np.int64))
    assert [reg.names[r] for r in rows] == ["8-path", "8-cycle"]
    assert reg.sigma[rows].tolist() == [1, 8]


# ----------------------------------------------------------------------------- GPU build plan, emulated on the CPU
def _emulated_kernels():
    """numpy stand-ins for the level-wise build kernels of me_sample.cu (same arguments, same semantics)."""
    def leaf(g, b, a):
        col, M, n, W, off, k = a
        for q in range(int(k)):
            M[:, off + q] = col == q

    def ema(g, b, a):
        M, W, B, WB, dst, offA, offB, s0, ns, sa, sp, E, n = a
        for e in range(int(E)):
            acc = np.zeros(M.shape[0])
            for j in range(ns[e]):
                x = M[:, offA[e] + sa[s0[e] + j]]
                acc = np.where(x != 0, acc + x * B[:, offB[e] + sp[s0[e] + j]], acc)
            M[:, dst[e]] = acc

    def spmm(g, b, a):
        ptr, idx, M, W, offM, B, WB, offB, C, tv, tc, ntask, hub_slot, CH, P = a
        C, CH = int(C), int(CH)
        for t in range(int(ntask)):
            v, c = tv[t], tc[t]
            e0 = ptr[v] + c * CH
            acc = M[idx[e0:min(e0 + CH, ptr[v + 1])], offM:offM + C].sum(axis=0)
            if hub_slot[v] < 0:
                B[v, offB:offB + C] = acc
            else:
                P[hub_slot[v] + c, offB:offB + C] = acc

    def hub_sum(g, b, a):
        P, B, WB, offB, C, hv, hs0, hns, nhub = a
        for h in range(int(nhub)):
            B[hv[h], offB:offB + int(C)] = P[hs0[h]:hs0[h] + hns[h], offB:offB + int(C)].sum(axis=0)

    table = {"me_leaf": leaf, "me_ema_level": ema, "me_spmm_hub_sum": hub_sum}
    return lambda pkg, f, name: spmm if name.startswith("me_spmm_tasks") else table[name]


def test_level_build_plan_reproduces_cpu_tables(monkeypatch):
    """The level-wise GPU build's plan (levels, SpMM windows, eMA entries, hub chunks and their slots),
    run through numpy stand-ins of its kernels, gives the CPU tables exactly (no GPU needed)."""
    import types
    import la_gpm.motif_estimate.gpu as GM
    fake = types.SimpleNamespace(asarray=np.asarray, empty=np.empty, zeros=np.zeros, full=np.full, int32=np.int32,
                                 asnumpy=np.asarray)
    monkeypatch.setattr(GM, "cupy", lambda: fake)
    monkeypatch.setattr(GM, "kernel", _emulated_kernels())
    monkeypatch.setattr(GM, "device_csr", lambda G, which: (G.indptr, G.indices))
    monkeypatch.setattr(GM, "SPMM_CHUNK", 3)
    for G in (la_gpm.datasets.load("karate"), la_gpm.generators.rmat(7, seed=2)):
        for k in (4, 7, 8):
            colors = ((np.arange(G.n) * 7 + 3) % k).astype(np.int8)
            T = _Tables(G, k, colors)
            S = GM.GpuSampler(G, k)
            assert S.nslots > 0 and sum(len(w) for _, _, w in S.levels) >= k - 1
            D = GM.GpuTables.__new__(GM.GpuTables)
            D.S, D.k, D.plan, D.n = S, k, S.plan, G.n
            D.M = np.full((G.n, S.plan.WM), np.nan)
            D.B = np.full((G.n, S.plan.WB), np.nan)
            D.P = np.full((S.nslots, S.plan.WB), np.nan)
            D._build_levels(colors)
            assert np.array_equal(T.M, D.M) and np.array_equal(T.B, D.B)


# ----------------------------------------------------------------------------- GPU (same seed, same samples)
def _gpu_reason():
    from la_gpm.backends import gpu_status
    return gpu_status()


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=f"no GPU: {_gpu_reason()}")
@pytest.mark.parametrize("hub_degree,build,chunk", [(0, "level", 16), (1 << 62, "level", 16), (0, "level", 1 << 20),
                                                     (0, "shape", 1024), (1 << 62, "shape", 1024)])
def test_gpu_tables_and_samples_equal_cpu(monkeypatch, hub_degree, build, chunk):
    """Both builds (level-wise with hub chunks, per-shape) and both samplers (warp or thread per sample,
    with and without hub chunk skipping) against the CPU."""
    import la_gpm.motif_estimate.gpu as GM
    from la_gpm.motif_estimate.gpu import GpuSampler
    monkeypatch.setattr(GM, "HUB_DEGREE", hub_degree)
    monkeypatch.setattr(GM, "BUILD", build)
    monkeypatch.setattr(GM, "SPMM_CHUNK", chunk)
    G = la_gpm.datasets.load("email-Eu-core")
    for k in (4, 6, 8):
        colors = ((np.arange(G.n) * 7 + 3) % k).astype(np.int8)
        T = _Tables(G, k, colors)
        D = GpuSampler(G, k).tables(colors)
        assert np.array_equal(T.M, D.M.get()) and np.array_equal(T.B, D.B.get())
        assert np.array_equal(T.shape_treelets, D.shape_treelets)
        v1, _, _ = T.sample(5000, key=11, first=100)
        v2, _, _ = D.sample(5000, key=11, first=100)
        assert np.array_equal(v1, v2)
        q = np.linspace(1, 2, len(T.shape_treelets))
        T.set_mixture(q / q.sum())
        D.set_mixture(q / q.sum())
        v1, _, _ = T.sample(5000, key=12)
        v2, _, _ = D.sample(5000, key=12)
        assert (v1 == v2).all(axis=1).mean() > 0.99      # cumulative sums may differ in the last bit


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=f"no GPU: {_gpu_reason()}")
def test_gpu_estimate_equals_cpu_for_a_seed():
    G = la_gpm.datasets.load("citeseer")
    a = estimate_census(G, 5, seed=3, adaptive=False, max_colorings=12, backend="cpu", samples_per_coloring=1 << 16)
    b = estimate_census(G, 5, seed=3, adaptive=False, max_colorings=12, backend="gpu", samples_per_coloring=1 << 16)
    assert b.attrs["backend"] == "gpu"
    assert a.drop(columns=["edges"]).equals(b.drop(columns=["edges"]))
    c = estimate_census(G, 8, seed=3, max_colorings=3, backend="gpu", samples_per_coloring=1 << 16)  # AGS, k = 8
    d = estimate_census(G, 8, seed=3, max_colorings=3, backend="cpu", samples_per_coloring=1 << 16)
    assert c.drop(columns=["edges"]).equals(d.drop(columns=["edges"]))


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=f"no GPU: {_gpu_reason()}")
def test_gpu_unique_keys_are_the_hosts_ordered_codes():
    """GpuTables.unique_keys (me_ordered_codes8 and the distinct keys on the device) equals ordered_codes and
    np.unique on the host, bit for bit: random 28-bit masks (any graph, connected or not) and a batch of sampled
    8-vertex graphlets of email-Eu-core; an empty batch gives no keys."""
    from la_gpm.motif_estimate.gpu import GpuSampler
    from la_gpm.patterns.classes import ordered_codes
    import cupy as cp
    G = la_gpm.datasets.load("email-Eu-core")
    colors = ((np.arange(G.n) * 7 + 3) % 8).astype(np.int8)
    D = GpuSampler(G, 8).tables(colors)
    rng = np.random.default_rng(4)
    sampled = D.sample_device(20000, key=5)[1]
    for codes in (rng.integers(0, 1 << 28, 50000).astype(np.int64), sampled.get()):
        u, c = D.unique_keys(cp.asarray(codes))
        wu, wc = np.unique(ordered_codes(codes, 8), return_counts=True)
        assert np.array_equal(u, wu) and np.array_equal(c, wc) and c.sum() == len(codes)
    assert len(u) < len(codes) / 2      # the sampled batch: relabellings of a few graphs fold into few keys
    u, c = D.unique_keys(cp.zeros(0, dtype=cp.int64))
    assert u.size == 0 and c.size == 0


# ---------------------------------------------------------------------------- balanced colorings
def _multiset_permutations(sizes):
    """Every assignment of colours to n = Σ sizes vertices with class c of size sizes[c] (brute force)."""
    n = sum(sizes)
    out = []

    def rec(prefix, left):
        if len(prefix) == n:
            out.append(tuple(prefix))
            return
        for c in range(len(left)):
            if left[c]:
                left[c] -= 1
                rec(prefix + [c], left)
                left[c] += 1
    rec([], list(sizes))
    return out


@pytest.mark.parametrize("n,k", [(6, 3), (7, 3), (5, 4), (8, 5), (4, 4)])
def test_balanced_colorful_probability_brute_force(n, k):
    from la_gpm.motif_estimate.driver import balanced_classes, colorful_probability
    sizes = balanced_classes(n, k)
    assert sum(sizes) == n and max(sizes) - min(sizes) <= 1
    cols = _multiset_permutations(sizes)
    for S in itertools.combinations(range(n), k):     # the same for every k-set
        hit = sum(len({c[v] for v in S}) == k for c in cols)
        assert math.isclose(hit / len(cols), colorful_probability(n, k), rel_tol=1e-12)
    assert math.isclose(colorful_probability(n, k, "uniform"), math.factorial(k) / k ** k)


def test_balanced_colors_sizes_reproducible_and_uniform():
    from la_gpm.motif_estimate.driver import balanced_classes, balanced_colors, colorful_probability
    n, k = 9, 3
    a = balanced_colors(77, n, k)
    assert a.dtype == np.int8 and np.array_equal(a, balanced_colors(77, n, k))
    assert np.bincount(a, minlength=k).tolist() == balanced_classes(n, k)
    # over many keys: each vertex takes each colour with probability 1/k, and a fixed k-set is
    # colorful with the exact probability (binomial tolerance, 5 sd)
    R = 6000
    C = np.stack([balanced_colors(key, n, k) for key in range(R)])
    freq = np.stack([(C == c).mean(axis=0) for c in range(k)])
    assert np.abs(freq - 1 / k).max() < 5 * math.sqrt((1 / k) * (1 - 1 / k) / R)
    p = colorful_probability(n, k)
    got = (np.sort(C[:, [0, 4, 8]], axis=1) == np.arange(k)).all(axis=1).mean()
    assert abs(got - p) < 5 * math.sqrt(p * (1 - p) / R)
    assert not np.array_equal(C[0], C[1])
    # the ranking hash is the library's splitmix64 (the CUDA kernels' function) of key + v
    from la_gpm.primitives.rng import splitmix64
    for key in (0, 5, (1 << 64) - 1):
        h = np.array([splitmix64(x) for x in np.arange(50, dtype=np.uint64) + np.uint64(key)], dtype=np.uint64)
        ref = np.empty(50, dtype=np.int8)
        ref[np.argsort(h)] = np.arange(50) * 7 // 50
        assert np.array_equal(balanced_colors(key, 50, 7), ref)


def test_uniform_and_balanced_estimates_agree_with_exact_census():
    # same graph and seed list, both colorings: the intervals cover the exact counts
    G = la_gpm.datasets.load("karate")
    truth = _truth(G, 4)
    for coloring in ("uniform", "balanced"):
        inside = n = 0
        for seed in range(4):
            df = estimate_census(G, 4, seed=seed, coloring=coloring)
            assert df.attrs["coloring"] == coloring and df.attrs["converged"]
            for r in df.itertuples():
                n += 1
                inside += r.ci_low <= truth[r.name] <= r.ci_high
        assert inside >= n - 2, (coloring, inside, n)


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=f"no GPU: {_gpu_reason()}")
def test_gpu_default_samples_per_coloring():
    # None: 2^20 a coloring on the gpu, 2^21 at k = 8 (costlier builds); drawn as reported (a graph with more
    # colorful treelets than that: a coloring draws at most twice its treelets)
    G = la_gpm.datasets.load("email-Eu-core")
    for k, spc in ((7, 1 << 20), (8, 1 << 21)):
        a = estimate_census(G, k, seed=1, backend="gpu", max_colorings=1, min_colorings=1).attrs
        assert a["samples_per_coloring"] == spc and a["samples"] == spc and a["colorings"] == 1


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=f"no GPU: {_gpu_reason()}")
def test_gpu_balanced_colors_equal_host():
    import cupy as cp
    from la_gpm.motif_estimate.driver import balanced_colors
    for n, k in ((1, 1), (10, 3), (100_003, 7), (1 << 20, 5)):
        for key in (0, 12345, (1 << 64) - 1):
            assert np.array_equal(cp.asnumpy(balanced_colors(key, n, k, cp)), balanced_colors(key, n, k))


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=f"no GPU: {_gpu_reason()}")
@pytest.mark.parametrize("name,k,seeds", [("citeseer", 4, range(8)), ("email-Eu-core", 4, range(4)),
                                          ("citeseer", 5, range(6)), ("email-Eu-core", 5, range(3))])
def test_gpu_defaults_intervals_cover_exact_counts(name, k, seeds):
    # the gpu defaults (2^20 samples per coloring, balanced colorings, AGS) keep the stated coverage
    _check_coverage(la_gpm.datasets.load(name), k, seeds, backend="gpu")


@pytest.mark.parametrize("pipelined", [True, False])
def test_k8_device_batches_pipelined_give_the_sequential_samples(monkeypatch, pipelined):
    """driver._device_codes (k = 8 on the gpu): batch i + 1 is launched before batch i is handed to the host's
    classification (pipelined), or after it (PIPELINE_K8 = False); either way the batches, and so the class rows, the
    registry's growth and the hits, are those of the CPU's batch-by-batch path, also where the host gets each batch as
    its distinct cache keys and their counts (GpuTables.unique_keys).  A stand-in for the device tables draws the CPU
    tables' samples and logs each launch and read."""
    from la_gpm.motif_estimate import driver
    from la_gpm.motif_estimate import cpu as K
    from la_gpm.motif_estimate.tables import CpuTables
    from la_gpm.color_coding.cpu_kernels import coloring_keys
    from la_gpm.patterns.classes import ordered_codes
    monkeypatch.setattr(driver, "_BATCH", 700)
    monkeypatch.setattr(driver, "PIPELINE_K8", pipelined)
    G = _sparse_graph16()
    key = int(coloring_keys(5, 0, 1)[0])
    T = CpuTables(G, 8, driver._coloring(G, 8, "balanced", key, np), None)
    assert T.rooted > 0
    log = []

    class Device:                       # the GpuTables interface _device_codes uses
        rooted = T.rooted

        def sample_device(self, count, skey, first):
            log.append(("launch", first))
            verts = T.sample(count, skey, first)[0]
            return verts, ("codes", first, K.adjacency_codes(G.indptr, G.indices, verts))

        def unique_keys(self, dev):     # GpuTables.unique_keys: the distinct ordered_codes and their counts
            log.append(("read", dev[1]))
            return np.unique(ordered_codes(dev[2], 8), return_counts=True)

    class Engine:
        class cp:
            @staticmethod
            def asnumpy(a):
                log.append(("read", a[1]))
                return a[2]

    count, skey = 2 * 700 + 123, 99
    got = []
    for codes in driver._device_codes(Device(), Engine(), count, skey):
        got.append(codes)
        log.append(("handed", len(got) - 1))
    assert [len(c) for c in got] == [700, 700, 123]
    want = [K.adjacency_codes(G.indptr, G.indices, T.sample(min(700, count - f), skey, f)[0])
            for f in range(0, count, 700)]
    assert all(np.array_equal(a, b) for a, b in zip(got, want))
    if pipelined:    # the next batch is on the device before the host gets the current one
        assert log == [("launch", 0), ("read", 0), ("launch", 700), ("handed", 0), ("read", 700), ("launch", 1400),
                       ("handed", 1), ("read", 1400), ("handed", 2)]
    else:
        assert log == [("launch", 0), ("read", 0), ("handed", 0), ("launch", 700), ("read", 700), ("handed", 1),
                       ("launch", 1400), ("read", 1400), ("handed", 2)]
    # the hits and the registry's growth from the batches' distinct keys (rows_of_keys) equal the CPU path's
    # (engine None: the host's classification of every sample, rows_of_codes)
    for device_keys in (True, False):
        monkeypatch.setattr(driver, "DEVICE_KEYS_K8", device_keys)
        r_dev, r_cpu = _Registry(8), _Registry(8)
        h_dev = driver._sample_hits(G, Device(), r_dev, Engine(), count, skey)
        h_cpu = driver._sample_hits(G, T, r_cpu, None, count, skey)
        assert r_dev.keys == r_cpu.keys and np.array_equal(h_dev, h_cpu) and h_dev.sum() == count
    # the workers' form (codes and their counts per batch) from the same batches
    codes = driver._sample_codes(G, Device(), Engine(), count, skey)
    assert [int(c.sum()) for _, c in codes] == [700, 700, 123]
    assert all(np.array_equal(u, np.unique(w)) for (u, _), w in zip(codes, want))
