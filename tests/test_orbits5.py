"""Issue 18: graphlet orbits of up to 5 vertices (``la_gpm.orbits(G, 5)``, n x 73, ORCA numbering).

Checked against orbit-count (ORCA) on karate and on random graphs (hypothesis, with isolated vertices and
disconnected parts), against a brute-force oracle that lists every connected induced subset of up to 5 vertices,
against orbits(G, 4) and the 5-vertex census, and for the equations the solve relies on."""

from __future__ import annotations

import itertools
import types

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import Pattern
from la_gpm.motifs.driver import census, orbits
from la_gpm.motifs.orbit_equations import GRAPHLETS_5, ORBITS_5, orca_orbit
from la_gpm.motifs.orbits5 import check_orbit5_safe, feature_matrix, orbit5_features, solve_orbits5

oc = pytest.importorskip("orbit_count")


def _nx(G):
    g = nx.Graph()
    g.add_nodes_from(range(G.n))
    src = np.repeat(np.arange(G.n), np.diff(G.indptr))
    g.add_edges_from(zip(src.tolist(), G.indices.tolist()))
    return g


def _orca(G):
    if G.m == 0:                      # orbit-count rejects an empty edge list
        return np.zeros((G.n, ORBITS_5), dtype=np.int64)
    return oc.node_orbit_counts(_nx(G), 5)


def _graph(n, edges):
    if not edges:
        return la_gpm.Graph.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), n=n)
    e = np.array(edges, dtype=np.int64)
    return la_gpm.Graph.from_edges(e[:, 0], e[:, 1], n=n)


def brute_orbits(n, edges):
    """Every connected induced subset of 2..5 vertices, each vertex classified with orca_orbit."""
    adj = [set() for _ in range(n)]
    for a, b in edges:
        if a != b:
            adj[a].add(b)
            adj[b].add(a)
    X = np.zeros((n, ORBITS_5), dtype=np.int64)
    for k in range(2, 6):
        for U in itertools.combinations(range(n), k):
            E = [(i, j) for i, j in itertools.combinations(range(k), 2) if U[j] in adj[U[i]]]
            h = nx.Graph()
            h.add_nodes_from(range(k))
            h.add_edges_from(E)
            if not nx.is_connected(h):
                continue
            for i, v in enumerate(U):
                X[v, orca_orbit(k, E, i)] += 1
    return X


# ----------------------------------------------------------------------------- the orbit table


def test_graphlet_table_is_orcas():
    """Each 5-vertex graphlet alone: orbit-count puts each vertex in exactly the orbit the table says."""
    for E, orbs in GRAPHLETS_5:
        g = nx.Graph()
        g.add_nodes_from(range(5))
        g.add_edges_from(E)
        Y = oc.node_orbit_counts(g, 5)
        for v in range(5):
            assert Y[v, 15:].sum() == 1 and Y[v, orbs[v]] == 1
    assert sorted(o for _, orbs in GRAPHLETS_5 for o in set(orbs)) == list(range(15, 73))


# ----------------------------------------------------------------------------- orbit-count and oracles


def test_karate_equals_orca_and_k4():
    G = la_gpm.datasets.load("karate")
    X = orbits(G, 5)
    assert X.dtype == np.int64 and X.shape == (34, 73)
    np.testing.assert_array_equal(X, _orca(G))
    np.testing.assert_array_equal(X[:, :15], orbits(G, 4))
    assert int(X[:, 72].sum()) == 5 * la_gpm.count(G, "5-clique")


@pytest.mark.parametrize("seed", range(3))
def test_denser_random_graphs_equal_orca(seed):
    """Dense enough for every orbit to occur (K5, wheels, K5 - e): G(30, 180)."""
    G = la_gpm.generators.gnm(30, 180, seed=seed)
    X = orbits(G, 5)
    np.testing.assert_array_equal(X, _orca(G))
    assert (X.sum(axis=0) > 0).all()


def test_pooled_path_equals_orca():
    """A graph large enough for the parallel kernels (> 2e6 three-walks)."""
    G = la_gpm.generators.gnm(600, 9000, seed=5)
    np.testing.assert_array_equal(orbits(G, 5), _orca(G))


@st.composite
def _graphs(draw):
    n = draw(st.integers(1, 12))
    pairs = list(itertools.combinations(range(n), 2))
    edges = draw(st.lists(st.sampled_from(pairs), max_size=len(pairs), unique=True)) if pairs else []
    return n, edges


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_graphs())
def test_random_graphs_equal_orca(g):
    """Small G(n, m) with n <= 12: isolated vertices and disconnected parts arise on their own."""
    n, edges = g
    G = _graph(n, edges)
    np.testing.assert_array_equal(orbits(G, 5), _orca(G))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_graphs(), _graphs(), st.integers(0, 3))
def test_disjoint_union_with_isolated_vertices(g1, g2, iso):
    """Two parts and isolated vertices: each part's rows are its own orbits."""
    (n1, e1), (n2, e2) = g1, g2
    edges = e1 + [(a + n1, b + n1) for a, b in e2]
    X = orbits(_graph(n1 + n2 + iso, edges), 5)
    np.testing.assert_array_equal(X[:n1], orbits(_graph(n1, e1), 5))
    np.testing.assert_array_equal(X[n1:n1 + n2], orbits(_graph(n2, e2), 5))
    assert not X[n1 + n2:].any()


@pytest.mark.parametrize("seed", range(4))
def test_brute_force_oracle(seed):
    rng = np.random.default_rng(seed)
    n = 9
    pairs = list(itertools.combinations(range(n), 2))
    pick = rng.choice(len(pairs), size=int(rng.integers(8, 24)), replace=False)
    edges = [pairs[i] for i in pick]
    np.testing.assert_array_equal(orbits(_graph(n, edges), 5), brute_orbits(n, edges))


def test_orbit_sums_match_census():
    """Σ_v of a graphlet's orbit columns = 5 × its induced count (census(G, 5))."""
    G = la_gpm.generators.gnm(200, 1500, seed=2)
    X = orbits(G, 5)
    df = census(G, 5)
    by_key = {Pattern(e, k=5).canonical_key: int(c) for e, c in zip(df["edges"], df["count"])}
    for E, orbs in GRAPHLETS_5:
        total = int(X[:, sorted(set(orbs))].sum())
        assert total == 5 * by_key[Pattern(list(E), k=5).canonical_key], orbs


def test_edge_cases():
    assert orbits(_graph(0, []), 5).shape == (0, 73)
    assert not orbits(_graph(4, []), 5).any()
    X = orbits(_graph(5, list(itertools.combinations(range(5), 2))), 5)      # K5
    assert (X[:, 72] == 1).all() and (X[:, 14] == 4).all() and X[:, 15:72].sum() == 0


# ----------------------------------------------------------------------------- the equations


def test_feature_matrix_is_triangular():
    """Each feature reaches its own orbit (positive coefficient) and otherwise only denser graphlets."""
    M = feature_matrix()
    edges = {o: len(E) for E, orbs in GRAPHLETS_5 for o in orbs}
    assert M.shape == (58, 74)
    for j in range(58):
        o = 15 + j
        assert M[j, 1 + o] > 0
        assert all(edges[o2] > edges[o] for o2 in range(15, 73) if o2 != o and M[j, 1 + o2])


def test_solve_rejects_inconsistent_sums():
    """A feature sum that no graph can produce does not divide: the solve says so instead of guessing."""
    G = la_gpm.datasets.load("karate")
    F = orbit5_features(G)
    low = orbits(G, 4)
    np.testing.assert_array_equal(solve_orbits5(F, low), _orca(G)[:, 15:])
    M = feature_matrix()
    j = next(j for j in range(58) if M[j, 1 + 15 + j] > 1)
    F[0, j] += 1
    with pytest.raises(AssertionError, match="divide"):
        solve_orbits5(F, low)


def test_overflow_check():
    check_orbit5_safe(types.SimpleNamespace(n=10, max_degree=30_000))
    with pytest.raises(la_gpm.InvalidArgument, match="max degree"):
        check_orbit5_safe(types.SimpleNamespace(n=10, max_degree=40_000))


# ----------------------------------------------------------------------------- backends, CLI


def test_gpu_k5_without_device_says_why(monkeypatch):
    """backend="gpu" is served (motifs/gpu.orbits5_gpu, tests/test_gpu_orbits5.py); without a device it raises
    BackendUnavailable with the reason, and "auto" with a device keeps small graphs on the CPU."""
    import la_gpm.motifs.driver as drv
    from la_gpm.backends import gpu_status
    G = la_gpm.datasets.load("karate")
    if gpu_status() is not None:
        with pytest.raises(la_gpm.BackendUnavailable, match="unavailable"):
            orbits(G, 5, backend="gpu")
    monkeypatch.setattr(drv, "resolve_backend", lambda backend, supported, what: "gpu")
    np.testing.assert_array_equal(orbits(G, 5, backend="auto"), _orca(G))


def test_bad_k():
    G = la_gpm.datasets.load("karate")
    with pytest.raises(la_gpm.PatternTooLarge, match="up to 5"):
        orbits(G, 6)


def test_cli_orbits_k5(tmp_path, capsys):
    from la_gpm.cli import main
    out = tmp_path / "gdv.npy"
    assert main(["orbits", "karate", "-k", "5", "--out", str(out), "--json"]) == 0
    X = np.load(out)
    assert X.shape == (34, 73)
    np.testing.assert_array_equal(X, _orca(la_gpm.datasets.load("karate")))


def test_the_feature_matrix_and_a_graph_share_one_build_of_the_feature_kernels():
    """``feature_matrix`` runs the serial feature kernel on hand-made CSR arrays, a user's graph on a Graph's
    read-only ones; numba types a read-only array apart, so until session 27 a process's first 5-vertex orbits on a
    small graph built ``orbit5_features_serial`` (and ``arc_triangles_serial``) twice (10-20 s more on 2 cores)."""
    from la_gpm.motifs import orbits5_cpu as oc
    G = la_gpm.datasets.load("karate")
    assert not G.indptr.flags.writeable and not G.indices.flags.writeable
    feature_matrix()
    assert orbit5_features(G).shape == (G.n, oc.NFEAT)
    f = oc.orbit5_features_serial      # (arc_triangles_serial has other callers, some with writable arrays)
    assert len(f.signatures) == 1, f.signatures
