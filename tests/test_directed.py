"""Directed motif census (issue 18): la_gpm.census(D, 3 | 4) on directed graphs against igraph's motifs_randesu,
igraph's isoclass numbering, networkx's triad names and monomorphism counts; the messages of undirected-only
calls on a directed graph."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm.cli import main
from la_gpm.motifs import census, orbits
from la_gpm.motifs import common
from la_gpm.motifs.directed import directed_classes
from la_gpm.patterns.classes import to_induced

from .conftest import data_path

ig = pytest.importorskip("igraph")
nx = pytest.importorskip("networkx")


def digraph(n, arcs):
    arcs = list(arcs)
    return la_gpm.Graph.from_edges([a for a, _ in arcs], [b for _, b in arcs], n=n, directed=True)


def igraph_counts(n, arcs, k):
    """igraph's motifs_randesu(size=k), indexed by isoclass (NaN for the disconnected classes)."""
    g = ig.Graph(n=n, edges=[(a, b) for a, b in arcs if a != b], directed=True)
    g.simplify()
    return g.motifs_randesu(size=k)


def by_isoclass(df):
    return {int(i): int(c) for i, c in zip(df["isoclass"], df["count"])}


def check_against_igraph(n, arcs, k, df):
    ref = igraph_counts(n, arcs, k)
    got = by_isoclass(df)
    nan = {i for i, x in enumerate(ref) if x != x}
    assert nan == set(range(len(ref))) - set(got)      # igraph's NaN classes are exactly the disconnected ones
    assert got == {i: int(x) for i, x in enumerate(ref) if i not in nan}


# --------------------------------------------------------------------------- classes and numbering


@pytest.mark.parametrize("k, rows, total", [(3, 13, 16), (4, 199, 218)])
def test_classes_and_igraph_isoclass_numbers(k, rows, total):
    cls = directed_classes(k)
    assert len(cls.keys) == rows and len(set(cls.keys)) == rows
    assert sorted(cls.isoclass) == [c for c in range(total) if ig.Graph.Isoclass(k, c, directed=True)
                                    .is_connected(mode="weak")]
    for arcs, iso in zip(cls.edges, cls.isoclass):
        assert ig.Graph(n=k, edges=list(arcs), directed=True).isoclass() == iso
    M = cls.M
    assert all(M[i][i] == 1 and all(M[i][j] == 0 for j in range(i)) for i in range(rows))   # unitriangular


@pytest.mark.parametrize("k", [3, 4])
def test_census_of_each_isoclass_graph_is_one_in_its_row(k):
    """The census of igraph's Graph.Isoclass(k, c) is 1 in the row whose isoclass column is c, 0 elsewhere."""
    for c in directed_classes(k).isoclass:
        g = ig.Graph.Isoclass(k, c, directed=True)
        got = by_isoclass(census(digraph(k, g.get_edgelist()), k))
        assert got == {i: int(i == c) for i in got}, c


def test_feed_forward_loop():
    ffl = [(0, 1), (1, 2), (0, 2)]
    df = census(digraph(3, ffl), 3)
    hit = df[df["count"] > 0]
    assert hit[["name", "isoclass", "arcs", "underlying"]].values.tolist() == [["030T", 7, "0->1, 0->2, 1->2",
                                                                                "triangle"]]
    assert int(hit["count"].iloc[0]) == 1
    assert igraph_counts(3, ffl, 3)[7] == 1
    assert df.attrs == {"k": 3, "induced": True, "method": "closed_form", "directed": True}
    # a reciprocal arc on 1 -> 2: 0 sends to the mutual pair (120D); on 0 -> 1 instead: 2 receives (120U)
    assert by_isoclass(census(digraph(3, ffl + [(2, 1)]), 3))[8] == 1                 # isoclass 8 = 120D
    assert census(digraph(3, ffl + [(1, 0)]), 3).set_index("name")["count"]["120U"] == 1


def test_triad_names_are_networkx_triad_types():
    from networkx.algorithms.triads import triad_type
    for name, arcs in zip(*(directed_classes(3).names, directed_classes(3).edges)):
        D = nx.DiGraph()
        D.add_nodes_from(range(3))
        D.add_edges_from(arcs)
        assert triad_type(D) == name


def test_triad_census_equals_networkx():
    """networkx's triadic_census (all 16 triads) on a fixed digraph: the 13 connected ones equal ours."""
    rng = np.random.default_rng(3)
    arcs = {(int(a), int(b)) for a, b in rng.integers(0, 40, (160, 2)) if a != b}
    D = nx.DiGraph()
    D.add_nodes_from(range(40))
    D.add_edges_from(arcs)
    want = nx.triadic_census(D)
    for method in ("closed_form", "enumerate"):
        df = census(digraph(40, arcs), 3, method=method)
        assert {nm: int(c) for nm, c in zip(df["name"], df["count"])} == {nm: want[nm] for nm in df["name"]}


# --------------------------------------------------------------------------- against igraph

arc_lists = st.integers(3, 14).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=arc_lists)
def test_random_digraphs_equal_igraph(g):
    n, arcs = g
    D = digraph(n, arcs)
    for method in ("closed_form", "enumerate"):
        check_against_igraph(n, arcs, 3, census(D, 3, method=method))
    check_against_igraph(n, arcs, 4, census(D, 4))


@pytest.mark.parametrize("serial", [True, False])
def test_both_drivers_equal_igraph(monkeypatch, serial):
    """The serial driver (small graphs) and the parallel one (prange over root chunks) give igraph's counts."""
    monkeypatch.setattr(common, "_SERIAL_ARCS", 10**12 if serial else 0)
    rng = np.random.default_rng(7)
    n = 300
    arcs = [(int(a), int(b)) for a, b in rng.integers(0, n, (1500, 2))]
    arcs += [(b, a) for a, b in arcs[:300]]                      # some reciprocal pairs
    D = digraph(n, arcs)
    for k, methods in ((3, ("closed_form", "enumerate")), (4, ("enumerate",))):
        for method in methods:
            check_against_igraph(n, arcs, k, census(D, k, method=method))


def test_sums_over_the_underlying_class_are_the_undirected_census():
    rng = np.random.default_rng(11)
    arcs = [(int(a), int(b)) for a, b in rng.integers(0, 60, (400, 2))]
    D = digraph(60, arcs)
    for k in (3, 4):
        df = census(D, k)
        want = census(D.to_undirected(), k)
        got = df.groupby("underlying")["count"].sum()
        assert {nm: int(got.get(nm, 0)) for nm in want["name"]} == dict(zip(want["name"], want["count"]))


# --------------------------------------------------------------------------- non-induced


def monomorphisms(D, arcs, k):
    """Non-induced copies of the directed pattern ``arcs``: monomorphisms into D / automorphisms (networkx)."""
    from networkx.algorithms.isomorphism import DiGraphMatcher
    P = nx.DiGraph()
    P.add_nodes_from(range(k))
    P.add_edges_from(arcs)
    mono = sum(1 for _ in DiGraphMatcher(D, P).subgraph_monomorphisms_iter())
    aut = sum(1 for _ in DiGraphMatcher(P, P).isomorphisms_iter())
    assert mono % aut == 0
    return mono // aut


def test_non_induced_counts_are_monomorphisms():
    rng = np.random.default_rng(5)
    n = 9
    arcs = {(int(a), int(b)) for a, b in rng.integers(0, n, (30, 2)) if a != b}
    G = digraph(n, arcs)
    D = nx.DiGraph()
    D.add_nodes_from(range(n))
    D.add_edges_from(arcs)
    for k, rows in ((3, range(13)), (4, range(0, 199, 9))):
        cls = directed_classes(k)
        ni = census(G, k, induced=False)
        assert ni.attrs["induced"] is False
        for r in rows:
            assert int(ni["count"].iloc[r]) == monomorphisms(D, cls.edges[r], k), (k, r)
        # and back: induced = M^-1 N
        assert to_induced(cls.M, list(ni["count"])) == list(census(G, k)["count"])


# --------------------------------------------------------------------------- wiki-Vote


@pytest.fixture(scope="module")
def wiki_vote():
    path = data_path("wiki-Vote.txt")
    return la_gpm.read_graph(path, directed=True), path


def test_wiki_vote_triads_equal_igraph(wiki_vote):
    D, path = wiki_vote
    el = np.loadtxt(path, dtype=np.int64, comments="#")
    n = int(el.max()) + 1
    arcs = el.tolist()
    df = census(D, 3)
    check_against_igraph(n, arcs, 3, df)
    assert by_isoclass(df)[15] == 2119 and by_isoclass(df)[7] == 462715   # 300 and 030T (feed-forward loops)
    assert list(census(D, 3, method="enumerate")["count"]) == list(df["count"])


def test_wiki_vote_subgraph_k4_equals_igraph(wiki_vote):
    """k = 4 against igraph on the subgraph induced by the 600 lowest file ids (igraph takes 13 min on all of
    wiki-Vote; the whole graph is checked against the undirected census below)."""
    _, path = wiki_vote
    el = np.loadtxt(path, dtype=np.int64, comments="#")
    el = el[(el[:, 0] < 600) & (el[:, 1] < 600)]
    arcs = el.tolist()
    assert len(arcs) > 4000
    check_against_igraph(600, arcs, 4, census(digraph(600, arcs), 4))


def test_wiki_vote_k4_sums_to_the_undirected_census(wiki_vote):
    D, _ = wiki_vote
    df = census(D, 4)
    want = census(D.to_undirected(), 4)
    got = df.groupby("underlying")["count"].sum()
    assert {nm: int(got[nm]) for nm in want["name"]} == dict(zip(want["name"], want["count"]))
    assert sum(df["count"]) == 2_513_413_248          # igraph motifs_randesu(size=4): the sum of its counts


# --------------------------------------------------------------------------- errors and messages


def test_errors_on_directed_graphs():
    D = digraph(3, [(0, 1), (1, 2), (2, 0)])
    with pytest.raises(la_gpm.PatternTooLarge, match="k = 3 and 4"):
        census(D, 5)
    with pytest.raises(la_gpm.InvalidArgument, match="k >= 3"):
        census(D, 2)
    with pytest.raises(la_gpm.InvalidArgument, match="integer"):
        census(D, 3.0)
    with pytest.raises(la_gpm.InvalidArgument, match="method"):
        census(D, 3, method="hybrid")
    with pytest.raises(la_gpm.InvalidArgument, match="closed_form"):
        census(D, 4, method="closed_form")
    with pytest.raises(la_gpm.BackendUnavailable, match="cpu"):
        census(D, 3, backend="graphblas")          # backend="gpu": tests/test_gpu_directed.py
    # undirected-only calls say so, and how to go on
    for call in (lambda: la_gpm.count(D, "triangle"), lambda: la_gpm.count(D, [(0, 1), (1, 2)]),
                 lambda: la_gpm.count_many(D, ["wedge"]), lambda: orbits(D, 4),
                 lambda: la_gpm.triangle_count(D)):
        with pytest.raises(la_gpm.InvalidGraph) as e:
            call()
        msg = str(e.value)
        assert "undirected" in msg and "to_undirected()" in msg and "la_gpm.census(G, 3)" in msg, msg
    with pytest.raises(la_gpm.InvalidGraph, match="patterns are undirected"):
        la_gpm.count(D, "triangle")


def test_to_undirected():
    D = la_gpm.Graph.from_edges([0, 1, 1, 3], [1, 0, 2, 1], directed=True, name="d")
    U = D.to_undirected()
    assert not U.directed and U.m == 3 and U.n == 4 and U.name == "d"
    assert sorted(map(tuple, np.column_stack([np.repeat(np.arange(4), U.degrees), U.indices]).tolist())) == \
        [(0, 1), (1, 0), (1, 2), (1, 3), (2, 1), (3, 1)]
    assert U.to_undirected() is U and D.to_undirected() is U       # cached
    assert la_gpm.count(U, "wedge") == 3


def test_cli_directed_census(capsys, tmp_path):
    f = tmp_path / "ffl.txt"
    f.write_text("0 1\n1 2\n0 2\n2 3\n3 2\n")
    assert main(["census", str(f), "-k", "3", "--directed", "-q"]) == 0
    out = capsys.readouterr().out
    assert "030T" in out and "isoclass" in out and "0->1, 0->2, 1->2" in out
    assert main(["census", str(f), "-k", "4", "--directed", "--json", "-q"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert len(res["classes"]) == 199 and sum(c["count"] for c in res["classes"]) == 1
    assert main(["census", str(f), "-k", "4", "-q", "--json"]) == 0        # undirected read: a tailed triangle
    res = json.loads(capsys.readouterr().out)
    assert {c["name"]: c["count"] for c in res["classes"]}["tailed-triangle"] == 1


def test_brute_force_small_digraph():
    """An independent oracle: every k-subset, its induced arcs relabelled to igraph's isoclass by igraph itself."""
    rng = np.random.default_rng(2)
    n = 8
    arcs = {(int(a), int(b)) for a, b in rng.integers(0, n, (22, 2)) if a != b}
    G = digraph(n, arcs)
    for k in (3, 4):
        want = {}
        for S in itertools.combinations(range(n), k):
            pos = {v: i for i, v in enumerate(S)}
            sub = [(pos[a], pos[b]) for a, b in arcs if a in pos and b in pos]
            g = ig.Graph(n=k, edges=sub, directed=True)
            if g.is_connected(mode="weak"):
                want[g.isoclass()] = want.get(g.isoclass(), 0) + 1
        got = by_isoclass(census(G, k))
        assert {i: c for i, c in got.items() if c} == want


# --------------------------------------------------------------------------- count(D, directed pattern)


def induced_copies(D, arcs, k):
    """Induced copies of the directed pattern: k-subsets whose induced sub-digraph is isomorphic to it."""
    from networkx.algorithms.isomorphism import DiGraphMatcher
    P = nx.DiGraph()
    P.add_nodes_from(range(k))
    P.add_edges_from(arcs)
    return sum(1 for S in itertools.combinations(D.nodes(), k)
               if DiGraphMatcher(D.subgraph(S), P).is_isomorphic())


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1))
def test_count_of_a_directed_pattern_equals_networkx(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 9))
    arcs = {(int(a), int(b)) for a, b in rng.integers(0, n, (int(rng.integers(4, 22)), 2)) if a != b}
    G = digraph(n, arcs)
    D = nx.DiGraph()
    D.add_nodes_from(range(n))
    D.add_edges_from(arcs)
    for k in (3, 4):
        cls = directed_classes(k)
        for r in (range(13) if k == 3 else rng.choice(199, 6, replace=False)):
            P = la_gpm.DiPattern(cls.edges[r])
            # any labelling of the pattern's vertices is the same pattern
            perm = rng.permutation(k)
            Q = la_gpm.DiPattern([(int(perm[a]), int(perm[b])) for a, b in cls.edges[r]])
            want = monomorphisms(D, cls.edges[r], k)
            assert la_gpm.count(G, P) == la_gpm.count(G, Q) == want, (k, r)
            assert la_gpm.count(G, P, count="embeddings") == want * P.automorphism_count
            assert la_gpm.count(G, Q, induced=True) == induced_copies(D, cls.edges[r], k), (k, r)


def test_directed_pattern_names_and_networkx_patterns():
    # feed-forward loops on {0, 1, 2} (with the reciprocal pair 0 <-> 1) and {2, 3, 4}, one 3-cycle
    D = digraph(7, [(0, 1), (1, 2), (0, 2), (2, 3), (3, 4), (2, 4), (4, 5), (5, 6), (6, 4), (1, 0)])
    assert la_gpm.count(D, "030T") == la_gpm.count(D, "feed-forward-loop") == la_gpm.count(D, "FFL")
    assert la_gpm.count(D, "directed-3-cycle") == la_gpm.count(D, nx.DiGraph([(7, 8), (8, 9), (9, 7)])) == 1
    ffl_induced = la_gpm.count(D, "feed-forward-loop", induced=True)
    assert ffl_induced == 1        # 0, 1, 2 also holds 1 -> 0: its induced class is 120U-like, not 030T
    # non-induced: 1 on {2, 3, 4} and 2 on {0, 1, 2} (0 -> 1 -> 2, 0 -> 2 and 1 -> 0 -> 2, 1 -> 2)
    assert la_gpm.count(D, "feed-forward-loop") == 1 + 2
    n, stats = la_gpm.count(D, "030C", return_stats=True)
    assert n == 1 and stats["engine"] == "directed_census" and stats["class"] == "030C"
    name4 = directed_classes(4).names[5]
    assert la_gpm.count(D, name4) == census(D, 4, induced=False)["count"].iloc[5]


def test_directed_pattern_errors():
    D = digraph(4, [(0, 1), (1, 2), (2, 0), (2, 3)])
    with pytest.raises(la_gpm.InvalidPattern, match="weakly connected"):
        la_gpm.DiPattern([(0, 1), (2, 3)])
    with pytest.raises(la_gpm.InvalidPattern, match="self-loop"):
        la_gpm.DiPattern([(0, 0), (0, 1)])
    with pytest.raises(la_gpm.PatternTooLarge, match="3 and 4"):
        la_gpm.count(D, la_gpm.DiPattern([(0, 1), (1, 2), (2, 3), (3, 4)]))
    with pytest.raises(la_gpm.InvalidArgument, match="3 and 4"):
        la_gpm.count(D, la_gpm.DiPattern([(0, 1), (1, 0)]))
    with pytest.raises(la_gpm.BackendUnavailable, match="cpu"):
        la_gpm.count(D, "030C", backend="graphblas")    # backend="gpu": tests/test_gpu_directed.py
    with pytest.raises(la_gpm.InvalidArgument, match="directed pattern"):
        la_gpm.count(D, "030C", memory_budget=1 << 20)
    with pytest.raises(la_gpm.InvalidGraph, match="directed pattern but the graph is undirected"):
        la_gpm.count(la_gpm.datasets.load("karate"), la_gpm.DiPattern([(0, 1), (1, 2)]))
    with pytest.raises(la_gpm.InvalidGraph, match="DiPattern"):     # an undirected pattern says how to go on
        la_gpm.count(D, [(0, 1), (1, 2)])
    assert la_gpm.DiPattern([(0, 1), (1, 2), (0, 2)]).class_name == "030T"
