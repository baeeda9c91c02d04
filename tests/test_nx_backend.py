"""The networkx backend (la_gpm.nx_backend): every answer equals networkx's own."""

from __future__ import annotations

import math

import pytest

nx = pytest.importorskip("networkx")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import la_gpm  # noqa: E402
from la_gpm.nx_backend import get_info  # noqa: E402
from la_gpm.nx_backend.interface import SMALL_GRAPH, BackendInterface  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs are saved to cache"),
    pytest.mark.skipif("la_gpm" not in nx.utils.backends.backends,
                       reason="la_gpm's networkx entry points are not installed (pip install -e .)"),
]

FUNCTIONS = ("triangles", "clustering", "average_clustering", "transitivity")


def _same(a, b):
    """networkx's result and ours: equal ints exactly, floats to 1e-12 relative, dicts in the same order."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
        return
    assert type(a) is type(b), (a, b)
    if isinstance(a, float):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=0.0), (a, b)
    else:
        assert a == b


def _check_all(G, **kwargs):
    for name in FUNCTIONS:
        if name == "transitivity":
            want, got = nx.transitivity(G), nx.transitivity(G, backend="la_gpm")
        else:
            f = getattr(nx, name)
            want, got = f(G, **kwargs), f(G, backend="la_gpm", **kwargs)
        _same(want, got)


def _gnp_with_isolated():
    G = nx.gnp_random_graph(120, 0.04, seed=7)
    G.add_nodes_from(range(120, 130))  # isolated vertices at the end
    assert any(d == 0 for _, d in G.degree())
    return G


def _strings_and_loops():
    G = nx.Graph()
    G.add_edges_from([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e"), ("e", "c"), ("e", "f")])
    G.add_edges_from([("a", "a"), ("c", "c"), ("z", "z")])  # self-loops: networkx's clustering ignores them
    G.add_node("lonely")
    return G


GRAPHS = {
    "karate": nx.karate_club_graph,
    "les_miserables": nx.les_miserables_graph,
    "gnp_isolated": _gnp_with_isolated,
    "strings_self_loops": _strings_and_loops,
    "empty_nodes": lambda: nx.empty_graph(5),
    "no_nodes": nx.Graph,
}


@pytest.mark.parametrize("name", list(GRAPHS))
def test_equal_to_networkx(name, backend):
    G = GRAPHS[name]()
    with la_gpm.config.set(backend=backend):
        if G.number_of_nodes() == 0:  # networkx divides by zero in average_clustering: so do we
            with pytest.raises(ZeroDivisionError):
                nx.average_clustering(G, backend="la_gpm")
            _same(nx.triangles(G), nx.triangles(G, backend="la_gpm"))
            _same(nx.transitivity(G), nx.transitivity(G, backend="la_gpm"))
            return
        _check_all(G)


def test_average_clustering_count_zeros():
    for G in (_gnp_with_isolated(), nx.karate_club_graph(), _strings_and_loops()):
        _same(nx.average_clustering(G, count_zeros=False), nx.average_clustering(G, count_zeros=False,
                                                                               backend="la_gpm"))
    G = nx.empty_graph(3)  # every coefficient zero: networkx divides by zero
    with pytest.raises(ZeroDivisionError):
        nx.average_clustering(G, count_zeros=False, backend="la_gpm")


@pytest.mark.parametrize("make", [lambda: 0, lambda: 33, lambda: [0, 1, 2], lambda: (5, 0, 5, 99),
                                  lambda: range(10), lambda: iter([3, 2, 1]), lambda: []],
                         ids=["node0", "node33", "list", "tuple_dup_missing", "range", "iterator", "empty"])
def test_nodes_argument(make):
    G = nx.karate_club_graph()
    for name in ("triangles", "clustering"):
        f = getattr(nx, name)
        _same(f(G, nodes=make()), f(G, nodes=make(), backend="la_gpm"))
    if not isinstance(make(), int) and list(make()):
        _same(nx.average_clustering(G, nodes=make()), nx.average_clustering(G, nodes=make(), backend="la_gpm"))


def test_nodes_argument_string_keys():
    G = _strings_and_loops()
    for nodes in ("c", "lonely", "z", ["a", "c", "nope", "z"], {"e"}):
        for name in ("triangles", "clustering"):
            f = getattr(nx, name)
            _same(f(G, nodes=nodes), f(G, nodes=nodes, backend="la_gpm"))


def test_nodes_argument_errors_are_networkx_errors():
    G = nx.karate_club_graph()
    for bad in (99, 1.5):  # not a node and not iterable
        with pytest.raises(nx.NetworkXError) as want:
            nx.triangles(G, nodes=bad)
        with pytest.raises(nx.NetworkXError) as got:
            nx.triangles(G, nodes=bad, backend="la_gpm")
        assert str(got.value) == str(want.value)
    with pytest.raises(nx.NetworkXError, match="not a valid node"):
        nx.clustering(G, nodes=[0, [1]], backend="la_gpm")


def test_self_loops_are_ignored_like_networkx():
    G = nx.complete_graph(4)
    G.add_edge(0, 0)
    assert nx.clustering(G, 0, backend="la_gpm") == nx.clustering(G, 0) == 1.0
    assert nx.triangles(G, backend="la_gpm") == nx.triangles(G) == {0: 3, 1: 3, 2: 3, 3: 3}


def test_conversion_keeps_node_order_and_is_cached():
    G = _strings_and_loops()
    H = BackendInterface.convert_from_nx(G, preserve_graph_attrs=True)
    assert H.nodes == list(G)
    assert H.graph.n == G.number_of_nodes()
    assert H.graph.m == G.number_of_edges() - nx.number_of_selfloops(G)
    back = BackendInterface.convert_to_nx(H)
    assert list(back) == list(G)
    assert set(map(frozenset, back.edges())) == {frozenset(e) for e in G.edges() if e[0] != e[1]}
    assert BackendInterface.convert_to_nx({"a": 1}) == {"a": 1}  # results pass through
    # networkx keeps the converted graph on G and drops it when G changes
    K = nx.karate_club_graph()
    nx.triangles(K, backend="la_gpm")
    cached = getattr(K, "__networkx_cache__", None)
    if cached is None:
        pytest.skip("this networkx keeps no conversion cache")
    assert cached.get("backends", {}).get("la_gpm")
    K.add_edge(0, 9)
    assert not K.__networkx_cache__.get("backends", {}).get("la_gpm")
    assert nx.triangles(K, backend="la_gpm") == nx.triangles(K)


def test_backend_graph_passed_directly():
    G = nx.karate_club_graph()
    H = BackendInterface.convert_from_nx(G)
    assert nx.triangles(H) == nx.triangles(G)
    assert nx.transitivity(H) == nx.transitivity(G)


def test_can_run_reasons():
    D = nx.DiGraph(nx.karate_club_graph())
    assert BackendInterface.can_run("clustering", (D,), {}) == "directed graphs are not supported"
    G = nx.karate_club_graph()
    assert BackendInterface.can_run("clustering", (G,), {"weight": "weight"}) == \
        "weighted clustering is not implemented"
    assert BackendInterface.can_run("average_clustering", (G, None, "weight"), {}) == \
        "weighted clustering is not implemented"
    assert BackendInterface.can_run("triangles", (nx.MultiGraph(G),), {}) == "multigraphs are not supported"
    assert BackendInterface.can_run("triangles", (G,), {"nodes": [0, 1]}) is True
    assert BackendInterface.can_run("clustering", (), {"G": G, "weight": None}) is True
    # asked for explicitly, a declined call raises networkx's NotImplementedError
    with pytest.raises(NotImplementedError, match="la_gpm"):
        nx.clustering(D, backend="la_gpm")
    with pytest.raises(NotImplementedError, match="la_gpm"):
        nx.clustering(G, weight="weight", backend="la_gpm")
    with pytest.raises(NotImplementedError):
        BackendInterface.convert_from_nx(D)


def test_should_run_reasons():
    small = nx.karate_club_graph()
    assert "small" in BackendInterface.should_run("triangles", (small,), {})
    big = nx.gnp_random_graph(SMALL_GRAPH + 10, 0.1, seed=1)
    assert BackendInterface.should_run("triangles", (big,), {}) is True
    assert "single node" in BackendInterface.should_run("clustering", (big, 3), {})


def test_backend_priority_picks_la_gpm_for_large_graphs():
    G = nx.gnp_random_graph(SMALL_GRAPH * 3, 0.05, seed=3)
    old = list(nx.config.backend_priority.algos)
    try:
        nx.config.backend_priority.algos = ["la_gpm"]
        assert nx.transitivity(G) == nx.transitivity(G, backend="networkx")
    finally:
        nx.config.backend_priority.algos = old


def test_backend_info():
    info = get_info()
    assert info["backend_name"] == "la_gpm" and info["package"] == "la_gpm"
    assert set(info["functions"]) == set(FUNCTIONS)
    assert nx.utils.backends.backend_info["la_gpm"]["short_summary"] == info["short_summary"]
    for name in FUNCTIONS:
        assert hasattr(BackendInterface, name)
        assert "la_gpm" in getattr(nx, name).backends


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 16).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0))), max_size=60))))
def test_random_small_graphs(case):
    n, edges = case
    G = nx.Graph()
    G.add_nodes_from(range(n - 1, -1, -1))  # node order differs from the ids
    if n:
        G.add_edges_from(edges)  # self-loops included
    if n == 0:
        _same(nx.triangles(G), nx.triangles(G, backend="la_gpm"))
        return
    _check_all(G)
    if any(nx.clustering(G).values()):
        _same(nx.average_clustering(G, count_zeros=False),
              nx.average_clustering(G, count_zeros=False, backend="la_gpm"))
    sub = list(G)[: n // 2]
    _same(nx.clustering(G, nodes=sub), nx.clustering(G, nodes=sub, backend="la_gpm"))
