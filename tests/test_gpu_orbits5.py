"""Issue 18 on the GPU: ``la_gpm.orbits(G, 5, backend="gpu")`` (orbits5.cu, motifs/gpu.orbits5_gpu).

The CPU's orbits(G, 5) equals orbit-count (ORCA) and a brute-force oracle (tests/test_orbits5.py); here the GPU's
must equal the CPU's exactly, in the caller's vertex ids: the n × 73 orbits and, to point at a broken feature, the
n × 58 feature sums themselves (``gpu.orbit5_features_gpu`` against ``orbits5.orbit5_features``) on karate,
citeseer, email-Eu-core (the heavier vertices: whole blocks), random graphs (hypothesis) with hubs, isolated vertices, stars and
cliques, the empty and edgeless graphs, and with the memory budget cut to one scratch slice (every vertex then
reuses the slice the previous one left: it must be all zero again). Without a GPU: the kernel file is among those
tests/test_cuda_build.py compiles with nvcc, and the kernels the host code launches are defined in it.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm.backends import gpu_status
from la_gpm.motifs.driver import orbits
from la_gpm.motifs.orbits5 import orbit5_features, three_walks

_GPU_MARKS = (pytest.mark.gpu, pytest.mark.skipif(gpu_status() is not None, reason=f"no GPU: {gpu_status()}"))


def gpu(f):
    """Mark a test ``gpu`` and skip it with the reason where no device is visible."""
    for m in _GPU_MARKS:
        f = m(f)
    return f


def _graph(n, edges):
    if not edges:
        return la_gpm.Graph.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), n=n)
    e = np.array(edges, dtype=np.int64)
    return la_gpm.Graph.from_edges(e[:, 0], e[:, 1], n=n)


def _same_as_cpu(G, features=True):
    """GPU == CPU: the feature sums (where ``features``) and the n × 73 orbits; G left as it was."""
    from la_gpm.motifs.gpu import orbit5_features_gpu
    before = (G.indptr.copy(), G.indices.copy())
    want = orbits(G, 5, backend="cpu")
    got = orbits(G, 5, backend="gpu")
    assert got.dtype == np.int64 and got.shape == (G.n, 73)
    if features:
        Fw = orbit5_features(G)
        Fg = orbit5_features_gpu(G)
        assert Fg.dtype == np.int64 and Fg.shape == (G.n, 58)
        bad = sorted({15 + j for j in np.flatnonzero((Fg != Fw).any(axis=0))})
        assert not bad, f"feature sums of orbits {bad} differ from the CPU's"
    bad = sorted(np.flatnonzero((got != want).any(axis=0)).tolist())
    assert not bad, f"orbits {bad} differ from the CPU's"
    np.testing.assert_array_equal(got[:, :15], orbits(G, 4, backend="cpu"))
    assert np.array_equal(G.indptr, before[0]) and np.array_equal(G.indices, before[1])
    return got


# ----------------------------------------------------------------------------- without a GPU


def test_kernel_file_is_compiled_by_the_build_test():
    """tests/test_cuda_build.py compiles every .cu file of the package for sm_90 (nvcc, no spills): orbits5.cu is
    among them, and it defines every kernel motifs/gpu.py launches from it."""
    from . import test_cuda_build
    assert "orbits5.cu" in test_cuda_build.CU_FILES
    src = test_cuda_build.CU_PATHS["orbits5.cu"].read_text()
    host = (Path(la_gpm.__file__).parent / "motifs" / "gpu.py").read_text()
    launched = set(re.findall(r'_o5\("(\w+)"\)', host))
    assert launched == {"o5_tri_lists", "o5_tri_k4", "o5_features", "o5_solve"}
    for name in launched:
        assert re.search(rf'extern "C" __global__ void (__launch_bounds__\(\w+ \* 32\)\s+)?{name}\(', src), name


def test_auto_keeps_small_graphs_on_the_cpu(monkeypatch):
    """backend="auto" with a device visible: the GPU only from _GPU_ORBITS5_WALKS 3-walks; "gpu" always."""
    import la_gpm.motifs.driver as drv
    import la_gpm.motifs.gpu as gpu_mod
    from la_gpm.motifs.orbits5 import orbits5
    calls = []
    monkeypatch.setattr(drv, "resolve_backend", lambda backend, supported, what: "gpu")
    monkeypatch.setattr(gpu_mod, "orbits5_gpu", lambda G: calls.append(G.n) or orbits5(G))
    small = la_gpm.datasets.load("karate")
    big = la_gpm.generators.gnm(600, 9000, seed=5)
    assert three_walks(small) < drv._GPU_ORBITS5_WALKS <= three_walks(big)
    orbits(small, 5, backend="auto")
    assert calls == []
    orbits(small, 5, backend="gpu")
    assert calls == [34]
    orbits(big, 5, backend="auto")
    assert calls == [34, 600]


def test_three_walks():
    G = _graph(4, [(0, 1), (1, 2), (2, 3)])            # degrees 1 2 2 1: arcs 0-1 2, 1-2 4, 2-3 2, both ways
    assert three_walks(G) == 16
    assert three_walks(_graph(3, [])) == 0


# ----------------------------------------------------------------------------- real graphs


@gpu
def test_karate():
    X = _same_as_cpu(la_gpm.datasets.load("karate"))
    assert int(X[:, 72].sum()) == 5 * 2                  # karate's two 5-cliques


@gpu
def test_citeseer(citeseer):
    _same_as_cpu(citeseer)


@gpu
def test_email(email):
    from la_gpm.motifs.gpu import O5_HUB_DEGREE
    assert email.max_degree >= 256 and (email.degrees < O5_HUB_DEGREE).any()   # both a block and a warp per vertex
    _same_as_cpu(email)
    np.testing.assert_array_equal(orbits(email, 5), orbits(email, 5, backend="cpu"))   # auto sends it to the GPU


@gpu
@pytest.mark.parametrize("budget", [1, 1 << 20])
def test_one_scratch_slice_serves_every_vertex(email, budget):
    """A memory budget below one slice: one warp for the non-hubs, one block for the hubs, each running through
    all its vertices with the same scratch (which every vertex must leave zero); a few slices at 1 MiB."""
    from la_gpm.motifs.gpu import orbit5_features_gpu
    with la_gpm.config.set(memory_budget=budget):
        np.testing.assert_array_equal(orbit5_features_gpu(email), orbit5_features(email))
    G = la_gpm.generators.gnm(300, 3000, seed=4)
    with la_gpm.config.set(memory_budget=budget):
        _same_as_cpu(G)


@gpu
@pytest.mark.parametrize("hub_degree, hub_warps", [(0, 16), (0, 2), (10**9, 8)],
                         ids=["all-blocks-16", "all-blocks-2", "all-warps"])
def test_every_vertex_a_block_or_a_warp(monkeypatch, email, hub_degree, hub_warps):
    """The two group shapes alone: every vertex a block (of 16 or 2 warps), or every vertex a warp."""
    import la_gpm.motifs.gpu as gc
    monkeypatch.setattr(gc, "O5_HUB_DEGREE", hub_degree)
    monkeypatch.setattr(gc, "O5_HUB_WARPS", hub_warps)
    np.testing.assert_array_equal(gc.orbit5_features_gpu(email), orbit5_features(email))
    _same_as_cpu(_hub_graph(300, 2000, 3))
    _same_as_cpu(_graph(7, [(0, 1), (1, 2), (4, 5)]))


# ----------------------------------------------------------------------------- shapes


def _star(k):
    return _graph(k + 1, [(0, i) for i in range(1, k + 1)])


def _clique(k):
    return _graph(k, list(itertools.combinations(range(k), 2)))


def _hub_graph(leaves, extra, seed):
    """A hub of degree ``leaves`` (a whole block: gpu.O5_HUB_DEGREE; >= 256, beyond a warp's 8 rounds of lanes),
    ``extra`` random edges among its leaves, a pendant path and isolated vertices."""
    rng = np.random.default_rng(seed)
    n = leaves + 1
    pairs = list(itertools.combinations(range(1, n), 2))
    pick = rng.choice(len(pairs), size=extra, replace=False)
    edges = [(0, i) for i in range(1, n)] + [pairs[i] for i in pick] + [(1, n), (n, n + 1)]
    return _graph(n + 5, edges)


@gpu
@pytest.mark.parametrize("make", [
    lambda: _graph(0, []), lambda: _graph(1, []), lambda: _graph(6, []), lambda: _graph(2, [(0, 1)]),
    lambda: _graph(7, [(0, 1), (1, 2), (4, 5)]), lambda: _star(5), lambda: _star(300), lambda: _clique(5),
    lambda: _clique(6), lambda: _clique(12), lambda: _hub_graph(300, 400, 1), lambda: _hub_graph(260, 3000, 2),
    lambda: la_gpm.generators.gnm(30, 180, seed=0), lambda: la_gpm.generators.rmat(10, seed=5)],
    ids=["empty", "one-vertex", "edgeless", "one-edge", "isolated", "star5", "star300", "K5", "K6", "K12", "hub",
         "dense-hub", "gnm-dense", "rmat10"])
def test_shapes(make):
    G = make()
    X = _same_as_cpu(G)
    if G.n == 0 or G.m == 0:
        assert not X.any()


@gpu
def test_clique_k6_orbits():
    X = orbits(_clique(6), 5, backend="gpu")
    assert (X[:, 72] == 5).all() and (X[:, 14] == 10).all() and X[:, 15:72].sum() == 0   # C(5, 4) and C(5, 3)


@st.composite
def _graphs(draw):
    """G(n, m) with n <= 14 (isolated vertices and disconnected parts arise on their own), sometimes with a
    hub: one vertex joined to most others."""
    n = draw(st.integers(1, 14))
    pairs = list(itertools.combinations(range(n), 2))
    edges = set(draw(st.lists(st.sampled_from(pairs), max_size=len(pairs), unique=True)) if pairs else [])
    if n > 3 and draw(st.booleans()):
        h = draw(st.integers(0, n - 1))
        keep = draw(st.sets(st.integers(0, n - 1), min_size=n // 2))
        edges |= {(min(h, v), max(h, v)) for v in keep if v != h}
    return n, sorted(edges)


@gpu
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_graphs())
def test_random_graphs(g):
    n, edges = g
    _same_as_cpu(_graph(n, edges))


@gpu
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1), st.integers(257, 320), st.integers(0, 2000))
def test_random_hub_graphs(seed, leaves, extra):
    """Hubs (a block each) with random edges among their leaves."""
    _same_as_cpu(_hub_graph(leaves, extra, seed))
