"""Triangle counts on every backend: published counts, brute-force oracle, invariants."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm.triangles import METHODS
from la_gpm.exceptions import BackendUnavailable, InvalidArgument, InvalidGraph, InvalidPattern

from .conftest import data_path
from .known import TRIANGLES


@pytest.mark.parametrize("name", sorted(TRIANGLES))
def test_published_triangle_counts(name, backend):
    G = la_gpm.read_graph(data_path(name))
    got = la_gpm.count(G, "triangle", backend=backend)
    assert type(got) is int
    assert got == TRIANGLES[name][2]


@pytest.mark.parametrize("method", METHODS["graphblas"])
def test_graphblas_methods_agree(method):
    pytest.importorskip("graphblas")
    G = la_gpm.read_graph(data_path("wiki-Vote.txt"))
    assert la_gpm.triangle_count(G, backend="graphblas", method=method) == 608389


def test_per_vertex(backend):
    G = la_gpm.datasets.load("email-Eu-core")
    t = la_gpm.count(G, "triangle", per_vertex=True, backend=backend)
    ref = nx.triangles(G.to_networkx())
    assert t.tolist() == [ref[v] for v in range(G.n)]
    assert t.sum() == 3 * 105461


def _brute_triangles(n, edges):
    adj = [set() for _ in range(n)]
    for u, v in edges:
        if u != v:
            adj[u].add(v)
            adj[v].add(u)
    return sum(1 for a, b, c in itertools.combinations(range(n), 3) if b in adj[a] and c in adj[a] and c in adj[b])


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 14).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=60))))
def test_matches_brute_force(case):
    n, edges = case
    want = _brute_triangles(n, edges)
    src = np.array([e[0] for e in edges], dtype=np.int64)
    dst = np.array([e[1] for e in edges], dtype=np.int64)
    G = la_gpm.Graph.from_edges(src, dst, n=n)
    for b in la_gpm.available_backends():
        assert la_gpm.count(G, "triangle", backend=b) == want
        pv = la_gpm.triangles_per_vertex(G, backend=b)
        assert pv.sum() == 3 * want


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6))
def test_relabelling_keeps_count(seed):
    rng = np.random.default_rng(seed)
    G = la_gpm.generators.gnm(60, 300, seed=seed)
    perm = rng.permutation(G.n)
    src = np.repeat(np.arange(G.n), G.degrees)
    H = la_gpm.Graph.from_edges(perm[src], perm[G.indices], n=G.n)
    assert la_gpm.count(G, "triangle", backend="cpu") == la_gpm.count(H, "triangle", backend="cpu")
    # vertex v of G is vertex perm[v] of H
    assert np.array_equal(la_gpm.triangles_per_vertex(H, backend="cpu")[perm],
                          la_gpm.triangles_per_vertex(G, backend="cpu"))


def test_embeddings_and_induced():
    G = la_gpm.datasets.load("karate")
    assert la_gpm.count(G, "triangle", count="embeddings", backend="cpu") == 270
    assert la_gpm.count(G, "triangle", induced=True, backend="cpu") == 45


def test_errors():
    G = la_gpm.datasets.load("karate")
    with pytest.raises(InvalidArgument, match="count must be one of"):
        la_gpm.count(G, "triangle", count="all")
    with pytest.raises(InvalidArgument, match="backend must be one of"):
        la_gpm.count(G, "triangle", backend="tpu")
    with pytest.raises(InvalidArgument, match="method must be one of"):
        la_gpm.triangle_count(G, backend="cpu", method="magic")
    with pytest.raises(InvalidPattern, match="disconnected"):
        la_gpm.count(G, [(0, 1), (2, 3)])
    D = la_gpm.Graph.from_edges([0, 1, 2], [1, 2, 0], directed=True)
    with pytest.raises(InvalidGraph, match="undirected"):
        la_gpm.triangle_count(D)


def test_gpu_unavailable_says_why():
    if "gpu" in la_gpm.available_backends():
        pytest.skip("a GPU is visible here")
    with pytest.raises(BackendUnavailable, match="gpu"):
        la_gpm.count(la_gpm.datasets.load("karate"), "triangle", backend="gpu")


def test_auto_and_config_default():
    G = la_gpm.datasets.load("karate")
    with la_gpm.config.set(backend="cpu"):
        assert la_gpm.count(G, "triangle") == 45
    assert la_gpm.count(G, "triangle", backend="auto") == 45


@pytest.mark.gpu
def test_gpu_equals_cpu_on_rmat(monkeypatch):
    if "gpu" not in la_gpm.available_backends():
        pytest.skip("no GPU visible")
    from la_gpm.triangles.gpu import triangle_count as gpu_tc
    G = la_gpm.generators.rmat(14, seed=5)
    want = la_gpm.count(G, "triangle", backend="cpu")
    assert la_gpm.count(G, "triangle", backend="gpu") == want
    for group in (1, 2, 4, 8, 16, 32):
        assert gpu_tc(G, group=group) == want
        assert gpu_tc(G, group=group, pivots=True) == want
    for pivots in (None, True, False):  # the arc-binned schedule (the default above 65,536 arcs)
        assert gpu_tc(G, schedule="bucketed", pivots=pivots) == want
    # hub rows in the shared-memory hash kernel: from every row (1) to none (0)
    import la_gpm.triangles.gpu as GT
    for hub_min in (0, 1, 4, 16, 64, 10**9):
        assert gpu_tc(G, schedule="bucketed", hub_min=hub_min) == want, hub_min
    monkeypatch.setattr(GT, "HUB_MIN", 2)                  # per-vertex counts through the hub kernel
    monkeypatch.setattr(GT, "HUB_KFACTOR", 1)              # and its binary-search branch
    assert gpu_tc(G, schedule="bucketed") == want
    assert np.array_equal(GT.triangles_per_vertex(G), la_gpm.triangles_per_vertex(G, backend="cpu"))
    monkeypatch.undo()
    assert np.array_equal(la_gpm.triangles_per_vertex(G, backend="gpu"), la_gpm.triangles_per_vertex(G, backend="cpu"))
    H = la_gpm.generators.rmat(17, seed=2)  # big enough for the binned schedule by default
    assert la_gpm.count(H, "triangle", backend="gpu") == la_gpm.count(H, "triangle", backend="cpu")
    assert gpu_tc(H, schedule="uniform") == gpu_tc(H, schedule="bucketed", pivots=False)
    assert np.array_equal(la_gpm.triangles_per_vertex(H, backend="gpu"), la_gpm.triangles_per_vertex(H, backend="cpu"))


@pytest.mark.gpu
def test_gpu_auto_schedule_is_timed_once_per_graph_between_the_thresholds(monkeypatch):
    if "gpu" not in la_gpm.available_backends():
        pytest.skip("no GPU visible")
    import la_gpm.triangles.gpu as GT
    assert GT.auto_schedule(la_gpm.datasets.load("karate"), 78) == "uniform"
    assert GT.auto_schedule(None, GT.TUNE_MAX_ARCS) == "bucketed"      # never times: no graph needed
    G = la_gpm.generators.gnm(30_000, 150_000, seed=4)                  # 150,000 DAG arcs: in the window
    tuned = []
    real = GT._tune
    monkeypatch.setattr(GT, "_tune", lambda H: tuned.append(H) or real(H))
    want = la_gpm.count(G, "triangle", backend="cpu")
    assert [la_gpm.count(G, "triangle", backend="gpu") for _ in range(3)] == [want] * 3
    assert len(tuned) == 1                                              # kept with the graph
    assert GT.auto_schedule(G, G.m) in ("uniform", "bucketed")
    assert np.array_equal(la_gpm.triangles_per_vertex(G, backend="gpu"), la_gpm.triangles_per_vertex(G, backend="cpu"))
    assert len(tuned) == 1
