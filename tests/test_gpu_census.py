"""GPU motif census (closed forms k <= 4, ESU enumeration k = 3..7) against the CPU backend,
brute force and published citeseer counts."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import Pattern
from la_gpm.algorithms.motifs import census
from la_gpm.backends import gpu_status

from .conftest import data_path
from .known import CITESEER_INDUCED_3, CITESEER_INDUCED_4, CITESEER_NONINDUCED_4, CITESEER_NONINDUCED_5
from .oracles_census import induced_census

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(gpu_status() is not None, reason=f"no GPU: {gpu_status()}")]

GPU_METHODS = {3: ("closed_form", "enumerate"), 4: ("closed_form", "enumerate"), 5: ("enumerate",),
               6: ("enumerate",), 7: ("enumerate",)}


def _counts(df):
    return [int(c) for c in df["count"]]


def _by_name(df):
    return dict(zip(df["name"], (int(c) for c in df["count"])))


def _graph(n, edges):
    src = np.array([a for a, b in edges], dtype=np.int64)
    dst = np.array([b for a, b in edges], dtype=np.int64)
    return la_gpm.Graph.from_edges(src, dst, n=n)


def _same_as_cpu(G, k, method, induced=True):
    got = census(G, k, backend="gpu", method=method, induced=induced)
    want = census(G, k, backend="cpu", method="enumerate" if method == "enumerate" or k > 5 else "auto",
                  induced=induced)
    assert got.attrs["method"] == "gpu_" + method
    assert list(got["key"]) == list(want["key"]) and list(got["name"]) == list(want["name"])
    assert got["count"].dtype == object and all(type(c) is int for c in got["count"])
    assert _counts(got) == _counts(want), (k, method, induced)
    return got


@pytest.fixture(scope="module")
def citeseer():
    return la_gpm.read_graph(data_path("citeseer.edgelist"))


@pytest.fixture(scope="module")
def email():
    return la_gpm.read_graph(data_path("email-Eu-core.txt"))


@pytest.mark.parametrize("k", [3, 4, 5, 6, 7])
def test_karate_matches_cpu(k):
    G = la_gpm.datasets.load("karate")
    for method in GPU_METHODS[k]:
        for induced in (True, False):
            _same_as_cpu(G, k, method, induced)


@pytest.mark.parametrize("k", [3, 4, 5, 6])
def test_citeseer_matches_cpu(citeseer, k):
    for method in GPU_METHODS[k]:
        _same_as_cpu(citeseer, k, method, induced=True)
        _same_as_cpu(citeseer, k, method, induced=False)


@pytest.mark.parametrize("k", [3, 4, 5])
def test_email_matches_cpu(email, k):
    for method in GPU_METHODS[k]:
        _same_as_cpu(email, k, method, induced=True)
    _same_as_cpu(email, k, GPU_METHODS[k][0], induced=False)


@pytest.mark.parametrize("method", GPU_METHODS[4])
def test_citeseer_published(citeseer, method):
    assert _by_name(census(citeseer, 3, backend="gpu", method=method)) == CITESEER_INDUCED_3
    assert _by_name(census(citeseer, 4, backend="gpu", method=method)) == CITESEER_INDUCED_4
    assert _by_name(census(citeseer, 4, backend="gpu", method=method, induced=False)) == CITESEER_NONINDUCED_4


def _parse_truth(path):
    out = {}
    for line in path.read_text().splitlines():
        if line.strip():
            pat, num = line.rsplit(None, 1)
            edges = [(int(a) - 1, int(b) - 1) for a, b in re.findall(r"\[(\d+)-(\d+)\]", pat)]
            out[Pattern(edges, k=4).canonical_key] = int(num)
    return out


@pytest.mark.parametrize("fname, induced", [("citeseer-truth/4m.txt", True), ("citeseer-truth/4m-edge.txt", False)])
@pytest.mark.parametrize("method", GPU_METHODS[4])
def test_citeseer_truth_files(citeseer, fname, induced, method):
    df = census(citeseer, 4, backend="gpu", method=method, induced=induced)
    got = {Pattern(e, k=4).canonical_key: int(c) for e, c in zip(df["edges"], df["count"])}
    assert got == _parse_truth(data_path(fname))


def test_citeseer_5_published(citeseer):
    ni = census(citeseer, 5, backend="gpu", induced=False)
    got = {Pattern(e, k=5).canonical_key: int(c) for e, c in zip(ni["edges"], ni["count"])}
    for name, want in CITESEER_NONINDUCED_5.items():
        assert got[Pattern.named(name).canonical_key] == want
    ind = census(citeseer, 5, backend="gpu")
    assert _by_name(ind)["5-clique"] == 46 and sum(_counts(ind)) == 7_668_883


graphs = st.integers(5, 10).flatmap(
    lambda n: st.tuples(st.just(n), st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
                                             .filter(lambda e: e[0] < e[1]), max_size=n * (n - 1) // 2)))


@pytest.mark.parametrize("k", [3, 4, 5, 6])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=graphs)
def test_random_graphs_against_brute_force(k, g):
    n, edges = g
    G = _graph(n, sorted(edges))
    edge_lists = [list(e) for e in census(G, k, backend="cpu")["edges"]]
    want, _ = induced_census(G, k, edge_lists)
    for method in GPU_METHODS[k]:
        assert _counts(census(G, k, backend="gpu", method=method)) == want


@pytest.mark.parametrize("seed", range(3))
def test_random_dense_graphs_match_cpu(seed):
    G = la_gpm.generators.gnm(40, 300, seed=seed)
    for k in (4, 5, 6):
        for method in GPU_METHODS[k]:
            _same_as_cpu(G, k, method, induced=seed != 1)


def test_k7_small_graph_matches_cpu():
    G = la_gpm.generators.gnm(24, 70, seed=4)
    _same_as_cpu(G, 7, "enumerate")
    _same_as_cpu(G, 7, "enumerate", induced=False)


def test_skewed_graph_matches_cpu():
    G = la_gpm.generators.rmat(11, seed=3)   # hubs: deep extension stacks, long rows
    for k in (3, 4, 5):
        for method in GPU_METHODS[k]:
            _same_as_cpu(G, k, method)


def test_tiny_memory_budget_still_exact(citeseer):
    want4 = _counts(census(citeseer, 4, backend="cpu"))
    want5 = _counts(census(citeseer, 5, backend="cpu"))
    with la_gpm.config.set(memory_budget=1 << 12):   # one block of warps
        assert _counts(census(citeseer, 4, backend="gpu")) == want4
        assert _counts(census(citeseer, 4, backend="gpu", method="enumerate")) == want4
        assert _counts(census(citeseer, 5, backend="gpu")) == want5


def test_empty_edgeless_and_isolated():
    for G in (_graph(6, []), _graph(9, [(0, 1), (1, 2), (0, 2), (2, 3)])):
        for k in (3, 4, 5):
            for method in GPU_METHODS[k]:
                assert _counts(census(G, k, backend="gpu", method=method)) == _counts(census(G, k, backend="cpu"))


def test_inputs_not_modified_and_hybrid_refused():
    G = la_gpm.generators.gnm(50, 200, seed=2)
    ptr, idx = G.indptr.copy(), G.indices.copy()
    census(G, 5, backend="gpu")
    assert np.array_equal(G.indptr, ptr) and np.array_equal(G.indices, idx)
    with pytest.raises(la_gpm.InvalidArgument, match="hybrid"):
        census(G, 5, backend="gpu", method="hybrid")


def test_auto_backend_counts_agree(email):
    want = _counts(census(email, 4, backend="cpu"))
    assert _counts(census(email, 4, backend="auto")) == want
