"""Small-graph census fixed costs (docs/gpu_census.md, "Small graphs"): the census DataFrame built from
its blocks against the pandas constructor, its isolation between calls, the cached graph-derived
inputs of the CPU closed forms against brute force / networkx / published counts, and the GPU closed
forms (shared-memory and global wedge counters, the fused single-copy path) against the CPU backend."""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm.patterns.classes import classes, to_induced
from la_gpm.motifs import closed_forms, common, frames
from la_gpm.motifs.driver import census
from la_gpm.backends import gpu_status

from .conftest import data_path
from .known import CITESEER_INDUCED_3, CITESEER_INDUCED_4, CITESEER_NONINDUCED_4, TRIANGLES
from .oracles_census import by_name as _by_name, graph_of as _graph, induced_census, noninduced_census

_GPU_MARKS = (pytest.mark.gpu, pytest.mark.skipif(gpu_status() is not None, reason=f"no GPU: {gpu_status()}"))


def gpu(f):
    """Mark a test ``gpu`` and skip it with the reason where no device is visible."""
    for m in _GPU_MARKS:
        f = m(f)
    return f






# --------------------------------------------------------------------------- the result frame


def _layout(df):
    """The blocks (dtype, columns); their order differs between pandas versions and is not observable."""
    return sorted((str(b.dtype), b.mgr_locs.as_array.tolist()) for b in df._mgr.blocks)


@pytest.mark.parametrize("k", [3, 4, 5, 6])
def test_frame_equals_constructor(k):
    cls = classes(k)
    counts = [3 ** 41 + i for i in range(len(cls.keys))]      # beyond int64: exact Python ints kept
    got = frames.frame(cls, k, counts, False, "closed_form")
    want = pd.DataFrame({"pattern": [la_gpm.Pattern(e, k=k, name=nm) for e, nm in zip(cls.edges, cls.names)],
                         "name": list(cls.names), "key": list(cls.keys), "edges": [list(e) for e in cls.edges],
                         "count": pd.Series(counts, dtype=object)})
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert _layout(got) == _layout(want)
    assert list(got.columns) == ["pattern", "name", "key", "edges", "count"]
    assert got.attrs == {"k": k, "induced": False, "method": "closed_form"}
    assert all(type(c) is int for c in got["count"]) and list(got["count"]) == counts
    assert [P.name for P in got["pattern"]] == list(cls.names)
    assert [repr(P) for P in got["pattern"]] == [repr(P) for P in want["pattern"]]


def test_frame_calls_share_nothing_mutable():
    """Whatever a user does to one census frame, the next census of the same k is unchanged."""
    G = la_gpm.datasets.load("karate")
    want = induced_census(G, 4, classes(4).edges)[0]
    a = census(G, 4, backend="cpu")
    a.loc[0, "name"] = "mutated"
    a.loc[1, "key"] = -5
    a.loc[2, "count"] = -1
    a["edges"].iloc[0].append((7, 8))
    P = a["pattern"].iloc[0]
    P.name = "mutated"
    P.__dict__["degrees"] = (9, 9, 9, 9)
    a.attrs["k"] = 99
    a.index.name = "mutated"
    a.columns.name = "mutated"
    b = census(G, 4, backend="cpu")
    assert b.index.name is None and b.columns.name is None
    cls = classes(4)
    assert [int(c) for c in b["count"]] == want
    assert list(b["name"]) == list(cls.names) and list(b["key"]) == list(cls.keys)
    assert list(b["edges"]) == [list(e) for e in cls.edges]
    assert [P.name for P in b["pattern"]] == list(cls.names)
    assert b["pattern"].iloc[0].degrees == (3, 1, 1, 1)
    assert b.attrs == {"k": 4, "induced": True, "method": "closed_form"}
    assert b["pattern"].iloc[0] is not a["pattern"].iloc[0]


def test_frame_without_block_constructor(monkeypatch):
    """The fallback (pandas without pandas.api.internals) is the constructor itself."""
    cls = classes(4)
    parts = frames.frame_parts(4)
    monkeypatch.setattr(frames, "frame_parts", lambda k: parts[:-1] + (None,))
    got = frames.frame(cls, 4, list(range(6)), True, "x")
    monkeypatch.undo()
    pd.testing.assert_frame_equal(got, frames.frame(cls, 4, list(range(6)), True, "x"), check_exact=True)


# --------------------------------------------------------------------------- CPU closed forms, k = 3 and 4


@pytest.mark.parametrize("r", [2, 3])
def test_deg_binomial_sum_exact(r):
    rng = np.random.default_rng(r)
    for d in (np.array([], dtype=np.int64), rng.integers(0, 50, 1000), np.array([0, 1, 2, 3], dtype=np.int32),
              np.array([2**21 + 5, 3], dtype=np.int64), np.full(2**12, 2**19, dtype=np.int64)):
        assert common.deg_binomial_sum(d, r) == sum(comb(int(x), r) for x in d.tolist())


def test_degree_binomials_cached_with_graph(citeseer):
    d = citeseer.degrees.tolist()
    assert common.degree_binomials(citeseer) == (sum(comb(x, 2) for x in d), sum(comb(x, 3) for x in d))
    assert common.degree_binomials(citeseer) is common.degree_binomials(citeseer)


@pytest.mark.parametrize("name", ["karate.mtx", "citeseer.edgelist", "email-Eu-core.txt", "jagmesh7.mtx"])
def test_census3_triangles_published(name):
    from la_gpm.motifs.cpu import census3_triangles_serial
    G = la_gpm.read_graph(data_path(name))
    assert int(census3_triangles_serial(*common.descending(G)[:2])) == TRIANGLES[name][2]
    assert int(census(G, 3, backend="cpu")["count"].iloc[1]) == TRIANGLES[name][2]


def test_citeseer_cpu_published(citeseer):
    assert _by_name(census(citeseer, 3, backend="cpu")) == CITESEER_INDUCED_3
    assert _by_name(census(citeseer, 4, backend="cpu")) == CITESEER_INDUCED_4
    assert _by_name(census(citeseer, 4, backend="cpu", induced=False)) == CITESEER_NONINDUCED_4


def test_column_sums_exact():
    acc = np.array([[2**62, 1], [2**62, -3], [2**62, 5]], dtype=np.int64)
    assert common.column_sums(acc) == [3 * 2**62, 3]
    assert common.column_sums(acc[:1]) == [2**62, 1] and all(type(x) is int for x in common.column_sums(acc[:1]))


_edges = st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=26)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_edges)
def test_closed_forms_against_brute_force(edges):
    G = _graph(9, [(a, b) for a, b in edges if a != b])
    for k in (3, 4):
        cls = classes(k)
        assert closed_forms.closed_form_noninduced(G, k) == noninduced_census(G, k, cls.edges)
        assert [int(c) for c in census(G, k, backend="cpu")["count"]] == induced_census(G, k, cls.edges)[0]


def test_parallel_closed_forms_published(citeseer, monkeypatch):
    """The thread-pool kernels (graphs of _SERIAL_ARCS arcs or more) agree with the published counts."""
    monkeypatch.setattr(common, "_SERIAL_ARCS", 0)
    assert _by_name(census(citeseer, 3, backend="cpu")) == CITESEER_INDUCED_3
    assert _by_name(census(citeseer, 4, backend="cpu", induced=False)) == CITESEER_NONINDUCED_4


# --------------------------------------------------------------------------- GPU closed forms, k = 3 and 4


def _gc():
    from la_gpm.motifs import gpu as gc
    return gc


def _gpu_vs_cpu(G, ks=(3, 4)):
    for k in ks:
        for induced in (True, False):
            got = census(G, k, backend="gpu", induced=induced)
            want = census(G, k, backend="cpu", induced=induced)
            assert got.attrs["method"] == "gpu_closed_form"
            assert list(got["count"]) == list(want["count"]), (k, induced)
            assert all(type(c) is int for c in got["count"])


def _hub_graph():
    """A graph with two vertices of degree >= 256 (16-warp blocks), triangles and 4-cliques among hub neighbours."""
    rng = np.random.default_rng(7)
    edges = [(0, 1)] + [(0, v) for v in range(2, 400)] + [(1, v) for v in range(150, 600)]
    edges += [tuple(e) for e in rng.integers(2, 600, size=(2500, 2)) if e[0] != e[1]]
    return _graph(600, edges)


_SMALL_GRAPHS = {
    "karate": lambda: la_gpm.datasets.load("karate"),
    "hubs": _hub_graph,
    "dense": lambda: la_gpm.generators.gnm(60, 1200, seed=3),       # 4-cliques on every edge
    "rmat11": lambda: la_gpm.generators.rmat(11, seed=3),
    "isolated": lambda: _graph(70, [(0, 1), (1, 2), (0, 2), (2, 3), (40, 41), (41, 69), (40, 69), (68, 69)]),
}


@gpu
@pytest.mark.parametrize("name", list(_SMALL_GRAPHS))
def test_gpu_small_path_matches_cpu(name):
    G = _SMALL_GRAPHS[name]()
    assert _gc().small_shape(G, 4) is not None
    _gpu_vs_cpu(G)


@gpu
@pytest.mark.parametrize("name", ["karate", "hubs", "dense", "rmat11"])
def test_gpu_global_path_matches_cpu(name, monkeypatch):
    """SMALL_SHARED_BYTES = 0 forces census4_closed + cliques.cu / triangles.cu (the large-graph path)."""
    monkeypatch.setattr(_gc(), "SMALL_SHARED_BYTES", 0)
    G = _SMALL_GRAPHS[name]()
    assert _gc().small_shape(G, 3) is None and _gc().small_shape(G, 4) is None
    _gpu_vs_cpu(G)


@gpu
@pytest.mark.parametrize("limit", [None, 6 << 10, 0])
def test_gpu_citeseer_email_published(citeseer, email, limit, monkeypatch):
    """Both paths, and the small path with fewer warps per block (a smaller shared-memory limit)."""
    if limit is not None:
        monkeypatch.setattr(_gc(), "SMALL_SHARED_BYTES", limit)
    assert _by_name(census(citeseer, 3, backend="gpu")) == CITESEER_INDUCED_3
    assert _by_name(census(citeseer, 4, backend="gpu")) == CITESEER_INDUCED_4
    assert _by_name(census(citeseer, 4, backend="gpu", induced=False)) == CITESEER_NONINDUCED_4
    assert int(census(email, 3, backend="gpu")["count"].iloc[1]) == TRIANGLES["email-Eu-core.txt"][2]
    want = census(email, 4, backend="cpu", induced=False)
    assert list(census(email, 4, backend="gpu", induced=False)["count"]) == list(want["count"])


@gpu
def test_gpu_small_shape_warps(citeseer, monkeypatch):
    gc = _gc()
    assert gc.small_shape(citeseer, 4)[0] == 8
    monkeypatch.setattr(gc, "SMALL_SHARED_BYTES", 6 << 10)
    assert gc.small_shape(citeseer, 4) is None and gc.small_shape(citeseer, 3) == (8, 408)
    assert gc.small_shape(_hub_graph(), 4) == (16, 4 * (19 * 17 + 600))


@gpu
def test_gpu_small_scratch_left_zero_and_per_stream():
    import cupy as cp
    gc = _gc()
    Gs = [_SMALL_GRAPHS[nm]() for nm in ("karate", "hubs", "dense")]
    want = [gc.small_inputs(G, 4) for G in Gs]
    for _ in range(3):                          # interleaved graphs: every call starts from zeroed counters
        assert [gc.small_inputs(G, 4) for G in Gs] == want
    assert all(int(x) == 0 for buf in gc._SMALL_SCRATCH.values() for x in buf.get())
    with cp.cuda.Stream(non_blocking=True):
        assert [gc.small_inputs(G, 4) for G in Gs] == want
    assert len(gc._SMALL_SCRATCH) >= 2
    assert all(int(x) == 0 for buf in gc._SMALL_SCRATCH.values() for x in buf.get())
    # k = 3 computes the triangles only
    assert [gc.small_inputs(G, 3)[2] for G in Gs] == [w[2] for w in want]


@gpu
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_edges)
def test_gpu_small_path_against_brute_force(edges):
    G = _graph(9, [(a, b) for a, b in edges if a != b])
    for k in (3, 4):
        cls = classes(k)
        assert list(census(G, k, backend="gpu", induced=False)["count"]) == noninduced_census(G, k, cls.edges)


def test_census4_pool_rule_published(citeseer, monkeypatch):
    """The k = 4 totals on the pool from _SERIAL_ARCS_CENSUS4 arcs (as with 16 threads) agree with the published counts."""
    monkeypatch.setattr(closed_forms, "_POOL_MIN_THREADS", 1)
    monkeypatch.setattr(closed_forms, "_SERIAL_ARCS_CENSUS4", 0)
    assert _by_name(census(citeseer, 4, backend="cpu", induced=False)) == CITESEER_NONINDUCED_4
    G = la_gpm.datasets.load("karate")
    assert [int(c) for c in census(G, 4, backend="cpu")["count"]] == induced_census(G, 4, classes(4).edges)[0]
