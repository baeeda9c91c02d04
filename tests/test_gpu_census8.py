"""census(G, 8, backend="gpu") (issue 18): ``census_esu8`` (census.cu), the ESU kernel with the CPU's two-level class
lookup on the device, against the CPU's k = 8 census (itself checked against brute force and a plain ESU in
tests/test_census8.py), brute force on small random graphs, karate's 880,772 connected 8-subsets; the refusal
without a GPU and the guard's GPU prediction."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import CensusTooLarge
from la_gpm.backends import gpu_status
from la_gpm.motifs.census8 import K8_CLASSES, predict_work8
from la_gpm.motifs.driver import census

from .oracles_census import ClassIndex, connected_subsets, graph_of, induced_census_indexed

NO_GPU = gpu_status()
_GPU_MARKS = (pytest.mark.gpu, pytest.mark.skipif(NO_GPU is not None, reason=f"no GPU: {NO_GPU}"))


def gpu(f):
    """Mark a test ``gpu`` and skip it with the reason where no device is visible."""
    for m in _GPU_MARKS:
        f = m(f)
    return f


def _random_graph(n, density, seed):
    rng = np.random.default_rng(seed)
    return graph_of(n, [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < density])


def _counts(df):
    return [int(c) for c in df["count"]]


def _same_as_cpu(G, induced=True):
    got = census(G, 8, backend="gpu", induced=induced)
    want = census(G, 8, backend="cpu", induced=induced)
    assert got.attrs == {"k": 8, "induced": induced, "method": "gpu_enumerate"}
    assert list(got["key"]) == list(want["key"]) and list(got["name"]) == list(want["name"])
    assert got["count"].dtype == object and all(type(c) is int for c in got["count"])
    assert _counts(got) == _counts(want), induced
    return got


@pytest.mark.skipif(NO_GPU is None, reason="a GPU is visible: the refusal is for machines without one")
def test_census8_gpu_backend_without_a_gpu_raises():
    G = la_gpm.datasets.load("karate")
    with pytest.raises(la_gpm.BackendUnavailable, match="unavailable"):
        census(G, 8, backend="gpu")
    assert census(graph_of(8, [(i, i + 1) for i in range(7)]), 8).attrs["method"] == "enumerate"   # auto: the CPU


def test_the_guard_predicts_the_gpu_apart():
    dense = la_gpm.Graph.from_edges(*np.triu_indices(300, 1), n=300)       # K300: C(300, 8) subsets
    from la_gpm.motifs.census8 import _NS_PER_NODE_GPU
    cpu, gpu_ = predict_work8(dense), predict_work8(dense, gpu=True)
    assert cpu["subsets8"] == gpu_["subsets8"] and gpu_["seconds"] == pytest.approx(gpu_["subsets7"] * _NS_PER_NODE_GPU * 1e-9)
    with pytest.raises(CensusTooLarge, match="the GPU"):
        la_gpm.motifs.census8.check_work8(dense, gpu=True)


@gpu
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(8, 12), density=st.floats(0.15, 0.9), seed=st.integers(0, 2**31 - 1))
def test_census8_gpu_equals_brute_force(n, density, seed):
    from la_gpm.motifs.census8 import classes8
    G = _random_graph(n, density, seed)
    got = _counts(census(G, 8, backend="gpu"))
    assert got == induced_census_indexed(G, 8, ClassIndex(classes8().edges, 8), K8_CLASSES)
    assert sum(got) == connected_subsets(G, 8)


@gpu
@pytest.mark.parametrize("n,density,seed", [(16, 0.3, 1), (14, 0.6, 2), (40, 0.12, 3)])
def test_census8_gpu_equals_cpu_induced_and_not(n, density, seed):
    G = _random_graph(n, density, seed)
    for induced in (True, False):
        _same_as_cpu(G, induced)


@gpu
def test_census8_gpu_karate_and_hubs():
    """karate (880,772 connected 8-subsets; every class against the CPU) and a graph with hubs whose level-2 scans
    split into many work items, with a small memory budget (few warps)."""
    G = la_gpm.datasets.load("karate")
    df = _same_as_cpu(G)
    assert sum(_counts(df)) == 880_772
    rng = np.random.default_rng(7)
    n = 60
    E = {(0, v) for v in range(1, n)} | {(1, v) for v in range(2, n, 2)}
    E |= {tuple(sorted(map(int, rng.choice(n, 2, replace=False)))) for _ in range(40)}
    H = graph_of(n, sorted(E))
    with la_gpm.config.set(memory_budget=1 << 16):
        _same_as_cpu(H)
    _same_as_cpu(graph_of(9, [(i, j) for i in range(9) for j in range(i + 1, 9)]))      # K9: 9 8-cliques
    assert sum(_counts(census(graph_of(7, [(i, i + 1) for i in range(6)]), 8, backend="gpu"))) == 0
    assert sum(_counts(census(graph_of(0, []), 8, backend="gpu"))) == 0
