"""Pattern model: names, files, automorphisms, symmetry conditions, canonical form."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from la_gpm import Pattern
from la_gpm.exceptions import GraphFormatError, InvalidPattern, PatternTooLarge
from la_gpm.patterns import TEMPLATES, as_pattern, read_fascia, read_query

from .conftest import data_path

AUT = {"triangle": 6, "wedge": 2, "4-cycle": 8, "4-path": 2, "4-star": 6, "diamond": 4, "tailed-triangle": 2,
       "4-clique": 24, "house": 2, "hourglass": 8, "pentagon": 10, "6-clique": 720, "7-star": 720, "8-path": 2}


@pytest.mark.parametrize("name,aut", AUT.items())
def test_named_automorphisms(name, aut):
    P = Pattern.named(name)
    assert P.automorphism_count == aut
    assert P.is_connected


def _brute_aut(P):
    """|Aut(P)| by trying every permutation against the edge set and labels (independent of the
    pattern's own invariants and search)."""
    edges = {frozenset(e) for e in P.edges}
    labels = P.vertex_labels

    def keeps(p):
        return ({frozenset((p[u], p[v])) for u, v in P.edges} == edges
                and (labels is None or all(labels[p[v]] == labels[v] for v in range(P.k))))
    return sum(1 for p in itertools.permutations(range(P.k)) if keeps(p))


def _count_with_conditions(P, G):
    """Matches of P in G (brute force) that satisfy the symmetry conditions."""
    conds = P.symmetry_conditions
    n = 0
    nodes = list(G.nodes())
    for f in itertools.permutations(nodes, P.k):
        if all(G.has_edge(f[u], f[v]) for u, v in P.edges) and all(f[a] < f[b] for a, b in conds):
            n += 1
    return n


@st.composite
def connected_patterns(draw, max_k=6):
    k = draw(st.integers(2, max_k))
    edges = [(i, draw(st.integers(0, i - 1))) for i in range(1, k)]  # a random spanning tree
    extra = draw(st.lists(st.tuples(st.integers(0, k - 1), st.integers(0, k - 1)), max_size=8))
    edges += [(a, b) for a, b in extra if a != b]
    labels = draw(st.none() | st.lists(st.integers(0, 1), min_size=k, max_size=k))
    return Pattern(edges, k=k, vertex_labels=labels)


@settings(max_examples=60, deadline=None)
@given(connected_patterns())
def test_automorphism_count_matches_brute_force(P):
    assert P.automorphism_count == _brute_aut(P)
    assert len(P.automorphisms()) == P.automorphism_count


@settings(max_examples=25, deadline=None)
@given(connected_patterns(max_k=5), st.integers(0, 10**6))
def test_symmetry_conditions_count_each_subgraph_once(P, seed):
    """Matches obeying the conditions = all matches / |Aut| (unlabeled shape)."""
    Q = Pattern(P.edges, k=P.k)
    G = nx.gnp_random_graph(7, 0.6, seed=seed)
    total = sum(1 for f in itertools.permutations(G.nodes(), Q.k)
                if all(G.has_edge(f[u], f[v]) for u, v in Q.edges))
    assert total % Q.automorphism_count == 0
    assert _count_with_conditions(Q, G) == total // Q.automorphism_count


@settings(max_examples=40, deadline=None)
@given(connected_patterns(max_k=6), st.randoms(use_true_random=False))
def test_canonical_key_invariant_under_relabelling(P, rnd):
    perm = list(range(P.k))
    rnd.shuffle(perm)
    assert P.relabel(perm).canonical_key == P.canonical_key


def test_canonical_key_separates_classes():
    # all 6 connected 4-vertex graphs and all 21 connected 5-vertex graphs get distinct keys
    for k, expected in ((4, 6), (5, 21)):
        keys = set()
        pairs = list(itertools.combinations(range(k), 2))
        for mask in range(1 << len(pairs)):
            e = [pairs[i] for i in range(len(pairs)) if mask >> i & 1]
            P = Pattern(e, k=k)
            if P.is_connected:
                keys.add(P.canonical_key)
        assert len(keys) == expected


def test_labels_change_key_and_aut():
    a = Pattern([(0, 1), (1, 2)], vertex_labels=[1, 2, 1])
    b = Pattern([(0, 1), (1, 2)], vertex_labels=[1, 1, 2])
    assert a.canonical_key != b.canonical_key
    assert a.automorphism_count == 2 and b.automorphism_count == 1


def test_templates_are_trees():
    for name in TEMPLATES:
        P = Pattern.named(name)
        assert P.is_tree, name
    assert Pattern.named("u12").k == 12
    assert Pattern.named("u15-2").k == 15


def test_fascia_files(data_dir):
    for f in sorted((data_dir / "templates").glob("*.fascia")):
        P = read_fascia(f)
        assert P.is_tree and f.stem.startswith(f"Tree_{P.k}_")


def test_query_file():
    Q = read_query(data_path("hprd/query_graph/query_dense_16_1.graph"))
    assert Q.k == 16 and Q.vertex_labels is not None and Q.is_connected


def test_as_pattern_inputs():
    assert as_pattern(nx.cycle_graph(5)).automorphism_count == 10
    assert as_pattern([(0, 1), (1, 2), (2, 0)]).automorphism_count == 6
    assert as_pattern("5-path").k == 5


@pytest.mark.parametrize("bad,exc,msg", [
    ("nonagon", InvalidPattern, "unknown pattern name"),
    ([(0, 0)], InvalidPattern, "self-loop"),
    ([(0, -1)], InvalidPattern, ">= 0"),
    ([("a", 1)], InvalidPattern, "pairs of integers"),
    ("1-cycle", InvalidPattern, "k >= 3"),
])
def test_bad_patterns(bad, exc, msg):
    with pytest.raises(exc, match=msg):
        as_pattern(bad)


def test_limits_and_connectivity(tmp_path):
    with pytest.raises(PatternTooLarge):
        Pattern([(0, 100)])
    with pytest.raises(PatternTooLarge):
        Pattern.named("9-path").canonical_key  # noqa: B018
    P = Pattern([(0, 1), (2, 3)])
    assert not P.is_connected
    with pytest.raises(InvalidPattern, match="disconnected"):
        P.require_connected()
    with pytest.raises(InvalidPattern, match="4 entries"):
        Pattern([(0, 1), (1, 2), (2, 3)], vertex_labels=[1])
    f = tmp_path / "bad.fascia"
    f.write_text("3\n2\n0 1\n")
    with pytest.raises(GraphFormatError, match="header says 2 edges"):
        read_fascia(f)


def test_big_group_orders():
    assert Pattern.named("12-clique").automorphism_count == math.factorial(12)
    assert Pattern.named("12-cycle").automorphism_count == 24
