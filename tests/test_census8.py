"""census(G, 8): the two-level class lookup, the ESU kernel at k = 8 against brute-force and plain-ESU oracles,
the keys shared with estimate_census(G, 8), the guard, the backends."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm.patterns.classes import canonical_codes
from la_gpm import CensusTooLarge
from la_gpm.motifs.census8 import K8_CLASSES, classes8, classify8, predict_work8
from la_gpm.motifs.driver import census
from la_gpm.patterns.classes import is_connected_code

from .oracles_census import ClassIndex, connected_subsets, esu_codes, graph_of, induced_census_indexed


@functools.lru_cache(maxsize=None)
def _index():
    c = classes8()
    return ClassIndex(c.edges, 8)


def _random_graph(n, density, seed):
    rng = np.random.default_rng(seed)
    edges = [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < density]
    return graph_of(n, edges)


def test_classes8_count_and_keys():
    c = classes8()
    assert len(c.keys) == K8_CLASSES == 11_117           # connected graphs on 8 vertices (OEIS A001349)
    assert len(set(c.keys)) == K8_CLASSES
    keys = np.array(c.keys, dtype=np.int64)
    assert (canonical_codes(keys, 8) == keys).all()      # the estimated census's canonical bitmasks
    assert [len(e) for e in c.edges] == sorted(len(e) for e in c.edges)
    assert {"8-path", "8-star", "8-cycle", "8-clique"} <= set(c.names)


def test_two_level_lookup_equals_canonical_codes():
    rng = np.random.default_rng(5)
    codes = np.concatenate([rng.integers(0, 1 << 28, 30_000),                     # dense
                            rng.integers(0, 1 << 28, 30_000) & rng.integers(0, 1 << 28, 30_000)
                            & rng.integers(0, 1 << 28, 30_000)])                  # sparse
    rows = classify8(codes)
    keys = np.array(classes8().keys, dtype=np.int64)
    canon = canonical_codes(codes, 8)
    conn = np.array([is_connected_code(int(c), 8) for c in codes.tolist()])
    assert conn.any() and (~conn).any()
    assert (rows[~conn] == -1).all()
    assert (keys[rows[conn]] == canon[conn]).all()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(8, 12), density=st.floats(0.15, 0.9), seed=st.integers(0, 2**31 - 1))
def test_census8_equals_brute_force(n, density, seed):
    G = _random_graph(n, density, seed)
    df = census(G, 8)
    assert df.attrs == {"k": 8, "induced": True, "method": "enumerate"}
    got = [int(x) for x in df["count"]]
    assert got == induced_census_indexed(G, 8, _index(), K8_CLASSES)
    assert sum(got) == connected_subsets(G, 8)


@pytest.mark.parametrize("n,density,seed", [(16, 0.3, 1), (14, 0.6, 2), (20, 0.15, 3)])
def test_census8_total_equals_brute_force_count(n, density, seed):
    G = _random_graph(n, density, seed)
    assert sum(int(x) for x in census(G, 8)["count"]) == connected_subsets(G, 8)


def _plain_esu_census(G):
    """{key: count} from a plain Python ESU's subgraphs, classified by canonical_codes (no class table)."""
    codes = np.array(esu_codes(G, 8), dtype=np.int64)
    keys, cnt = np.unique(canonical_codes(codes, 8), return_counts=True) if codes.size else ([], [])
    return dict(zip(np.asarray(keys).tolist(), np.asarray(cnt).tolist()))


def test_census8_karate_equals_plain_esu():
    """Every class count of karate (880,772 connected 8-subsets) against a plain Python ESU whose subgraphs are
    classified by canonical_codes directly (no class table); about 5 s."""
    G = la_gpm.datasets.load("karate")
    df = census(G, 8)
    got = {int(k): int(c) for k, c in zip(df["key"], df["count"]) if c}
    assert got == _plain_esu_census(G)
    assert sum(got.values()) == 880_772


@pytest.mark.filterwarnings("ignore:estimate_census stopped")
def test_census8_keys_match_estimate_census():
    G = la_gpm.datasets.load("karate")
    df = census(G, 8)
    est = la_gpm.estimate_census(G, 8, seed=1, max_colorings=3, min_colorings=3, samples_per_coloring=4096)
    exact = dict(zip(df["key"].tolist(), df["name"].tolist()))
    for key, name in zip(est["key"].tolist(), est["name"].tolist()):
        assert exact[key] == name                 # every class the estimate sees is a row of the census
    ex = df.set_index("key")["count"]
    assert all(int(ex[key]) > 0 for key in est["key"].tolist())


def test_census8_small_and_edge_cases():
    assert sum(int(c) for c in census(graph_of(7, [(i, i + 1) for i in range(6)]), 8)["count"]) == 0
    P8 = graph_of(8, [(i, i + 1) for i in range(7)])
    df = census(P8, 8)
    assert dict(zip(df["name"], df["count"]))["8-path"] == 1 and sum(df["count"]) == 1
    K9 = graph_of(9, [(i, j) for i in range(9) for j in range(i + 1, 9)])
    assert dict(zip(census(K9, 8)["name"], census(K9, 8)["count"]))["8-clique"] == 9
    assert sum(census(graph_of(0, []), 8)["count"]) == 0


def test_census8_noninduced_equals_oracle():
    from .oracles_census import noninduced_census
    G = _random_graph(9, 0.35, 11)
    df = census(G, 8, induced=False)
    got = [int(x) for x in df["count"]]
    nz = [i for i, x in enumerate(got) if x]
    c = classes8()
    assert df.attrs["induced"] is False
    assert [got[i] for i in nz] == noninduced_census(G, 8, [c.edges[i] for i in nz])
    # the classes with a zero count: none has a copy (sample a few hundred with edges <= G.m)
    zero = [i for i, x in enumerate(got) if not x and len(c.edges[i]) <= G.m][:200]
    assert noninduced_census(G, 8, [c.edges[i] for i in zero]) == [0] * len(zero)


def test_guard_and_backends():
    G = la_gpm.datasets.load("karate")
    assert predict_work8(G)["seconds"] < 5
    with pytest.raises(la_gpm.BackendUnavailable, match="graphblas"):
        census(G, 8, backend="graphblas")            # backend="gpu": tests/test_gpu_census8.py
    with pytest.raises(la_gpm.InvalidArgument, match="method"):
        census(G, 8, method="hybrid")
    dense = la_gpm.Graph.from_edges(*np.triu_indices(300, 1), n=300)       # K300: C(300, 8) subsets
    with pytest.raises(CensusTooLarge, match="estimate_census"):
        census(dense, 8)
    assert math.comb(300, 8) <= predict_work8(dense)["subsets8"] * 10
