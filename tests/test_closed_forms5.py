"""Closed forms of single 5-vertex patterns (la_gpm/motifs/closed_forms5.py) and their row in the engine table:
every formula against a brute-force oracle on random graphs, any spelling of the pattern reaching it, the
overflow guard, and patterns without a formula staying with enumeration."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import engines
from la_gpm.api import count_pattern
from la_gpm.exceptions import InvalidArgument
from la_gpm.motifs import closed_forms5 as cf5
from la_gpm.patterns import Pattern

NEW = ["fork", "5-path", "cricket", "bull", "banner", "tadpole", "dart", "kite", "K4+pendant", "K2,3", "book",
       "gem", "K4+wedge", "wheel", "K5-e", "5-cycle", "K2,3+e"]
TRACE = ["5-cycle", "K2,3+e"]         # the last two: the ranked trace formula and the pair codegree / edge sums
PAIRS = list(itertools.combinations(range(5), 2))


def _mask(edges, perm=range(5)):
    return sum(1 << PAIRS.index(tuple(sorted((perm[a], perm[b])))) for a, b in edges)


def _embedding_tables():
    """{name: emb} with emb[code] = edge-preserving maps of the pattern into the labelled 5-vertex graph ``code``
    (bit i of code: the pair PAIRS[i]), and {name: |Aut|}; plain itertools, nothing from la_gpm."""
    codes = np.arange(1 << 10)
    emb, aut = {}, {}
    for name, E in cf5.FIVE_VERTEX.items():
        masks = [_mask(E, p) for p in itertools.permutations(range(5))]
        emb[name] = sum(((codes & m) == m).astype(np.int64) for m in masks)
        aut[name] = sum(m == _mask(E) for m in masks)
    return emb, aut


EMB, AUT = _embedding_tables()


def brute5(G):
    """Non-induced unique counts of every connected 5-vertex class: all 5-subsets, their labelled adjacency codes."""
    adj = set()
    src = np.repeat(np.arange(G.n), G.degrees)
    for u, v in zip(src.tolist(), G.indices.tolist()):
        adj.add((u, v))
    hist = np.zeros(1 << 10, dtype=np.int64)
    for S in itertools.combinations(range(G.n), 5):
        hist[sum(1 << i for i, (a, b) in enumerate(PAIRS) if (S[a], S[b]) in adj)] += 1
    return {nm: int(hist @ EMB[nm]) // AUT[nm] for nm in cf5.FIVE_VERTEX}


def _spelling(name, rng):
    """The class as a shuffled edge list on permuted vertex ids (no name)."""
    perm = list(range(5))
    rng.shuffle(perm)
    E = [(perm[a], perm[b]) if rng.random() < 0.5 else (perm[b], perm[a]) for a, b in cf5.FIVE_VERTEX[name]]
    rng.shuffle(E)
    return E


def test_the_oracle_tables():
    assert len(cf5.FIVE_VERTEX) == 21
    assert AUT["5-star"] == 24 and AUT["5-cycle"] == 10 and AUT["5-clique"] == 120 and AUT["bull"] == 2
    # the 21 edge lists are 21 distinct connected classes
    assert len({Pattern(E, k=5).canonical_key for E in cf5.FIVE_VERTEX.values()}) == 21


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 12), p=st.floats(0.0, 1.0), seed=st.integers(0, 10**6))
def test_every_5_vertex_count_equals_brute_force(n, p, seed):
    G = la_gpm.generators.gnm(n, int(p * n * (n - 1) / 2), seed=seed)
    want = brute5(G)
    rng = random.Random(seed)
    for name in cf5.FIVE_VERTEX:
        got, stats = count_pattern(G, _spelling(name, rng), backend="cpu", return_stats=True)
        assert got == want[name], (name, n, p, seed)
        if name in NEW:
            assert stats["engine"] == "closed_form", (name, stats)


@pytest.mark.parametrize("serial", [True, False])
def test_larger_graphs_against_the_census(serial, monkeypatch):
    """A graph with hubs (R-MAT) and a denser G(n, m), both drivers: the same counts as the census's
    enumeration (every class at once, another code path)."""
    if not serial:
        monkeypatch.setattr(la_gpm.motifs.common, "_SERIAL_ARCS", 0)
    for G in (la_gpm.generators.rmat(7, seed=3), la_gpm.generators.gnm(40, 400, seed=5)):
        df = la_gpm.census(G, 5, induced=False, method="enumerate")
        ref = {cf5.formula_of(p)[0]: int(c) for p, c in zip(df["pattern"], df["count"]) if cf5.formula_of(p)}
        assert sorted(ref) == sorted(NEW)
        for name in NEW:
            assert cf5.count5(G, Pattern(cf5.FIVE_VERTEX[name], k=5)) == ref[name], name


@pytest.mark.parametrize("name", NEW)
def test_every_spelling_reaches_the_closed_form(name):
    G = la_gpm.datasets.load("karate")
    rng = random.Random(name)
    want = count_pattern(G, cf5.FIVE_VERTEX[name], backend="cpu", closed_forms=False)
    aut = Pattern(cf5.FIVE_VERTEX[name], k=5).automorphism_count
    for _ in range(3):
        E = _spelling(name, rng)
        n, stats = count_pattern(G, E, backend="cpu", return_stats=True)
        assert stats["engine"] == "closed_form" and stats["plan"].startswith(f"closed form: {name}"), stats
        assert n == want
        assert la_gpm.count(G, E, backend="cpu", count="embeddings") == want * aut
    rows = {e: (v, why) for e, _, v, why in engines.explain(G, _spelling(name, rng), backend="cpu")}
    assert rows["closed_form"][0] == "chosen" and f"{name} = " in rows["closed_form"][1]
    assert rows["plan_dfs"][0] == "can run"


def test_patterns_without_a_formula_say_why():
    G = la_gpm.datasets.load("karate")
    for P in (Pattern.named("6-cycle"), Pattern([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0), (0, 3)])):
        rows = {e: (v, why) for e, _, v, why in engines.explain(G, P, backend="cpu")}
        assert rows["closed_form"][0] == "cannot" and "no closed form" in rows["closed_form"][1]
        assert rows["plan_dfs"][0] == "chosen"
    assert cf5.formula_of(Pattern([(0, 1), (1, 2), (2, 3)], k=4)) is None
    assert cf5.formula_of(Pattern(cf5.FIVE_VERTEX["5-clique"], k=5)) is None   # the clique engine's
    with pytest.raises(InvalidArgument):
        cf5.count5(G, Pattern(cf5.FIVE_VERTEX["5-clique"], k=5))
    with pytest.raises(InvalidArgument):
        cf5.pendant_noninduced(G, "K2,3")


def test_induced_and_closed_forms_false_go_to_the_enumeration():
    G = la_gpm.datasets.load("karate")
    for kw in (dict(induced=True), dict(closed_forms=False)):
        _, stats = count_pattern(G, cf5.FIVE_VERTEX["bull"], backend="cpu", return_stats=True, **kw)
        assert stats["engine"] == "plan_dfs"


def _star(d):
    return la_gpm.Graph.from_edges(np.zeros(d, dtype=np.int64), np.arange(1, d + 1), n=d + 1)


def test_overflow_guard():
    """A hub of degree 50,000: C(d, 2)·3·d² passes 2**62, so the direct call refuses and the engine table
    leaves the pattern to enumeration, saying why; below the bound the closed form runs."""
    d = 50_000
    G = _star(d)
    assert "2**62" in cf5.overflow_reason(G)
    with pytest.raises(InvalidArgument, match="closed_forms=False"):
        cf5.book_noninduced(G)
    with pytest.raises(InvalidArgument):
        cf5.pendant_noninduced(G, "fork")
    P = cf5.FIVE_VERTEX["book"]
    rows = {e: (v, why) for e, _, v, why in engines.explain(G, P, backend="cpu")}
    assert rows["closed_form"][0] == "cannot" and "overflow" in rows["closed_form"][1]
    assert rows["plan_dfs"][0] == "chosen"
    assert la_gpm.count(G, P, backend="cpu") == 0
    small = _star(40_000)
    assert cf5.overflow_reason(small) is None
    assert cf5.pendant_noninduced(small, "fork") == 0 and cf5.book_noninduced(small) == 0


def test_empty_and_edgeless_graphs():
    none = np.zeros(0, dtype=np.int64)
    for G in (la_gpm.Graph.from_edges(none, none, n=0), la_gpm.Graph.from_edges(none, none, n=7),
              la_gpm.Graph.from_edges([0], [1], n=2)):
        for name in NEW:
            assert cf5.count5(G, Pattern(cf5.FIVE_VERTEX[name], k=5)) == 0


def test_five_vertex_names_are_pattern_names():
    """Every class of FIVE_VERTEX is also a pattern name (lower case), of the same canonical form."""
    from la_gpm.motifs.closed_forms5 import FIVE_VERTEX
    for name, edges in FIVE_VERTEX.items():
        if name in ("5-star", "5-path", "5-cycle", "5-clique", "bowtie", "house"):
            continue
        assert Pattern.named(name).canonical_key == Pattern(edges).canonical_key, name
        assert Pattern.named(name.upper()).canonical_key == Pattern(edges).canonical_key


# --------------------------------------------------------------------------- the 5-cycle and K2,3+e


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 13), p=st.floats(0.0, 1.0), seed=st.integers(0, 10**6), parallel=st.booleans())
def test_cycle5_and_k23e_equal_brute_force(n, p, seed, parallel):
    """The two formulas directly, on the calling thread and on the thread pool (chunks interleave the vertices),
    against the itertools oracle."""
    G = la_gpm.generators.gnm(max(n, 1), int(p * n * (n - 1) / 2), seed=seed) if n else la_gpm.Graph.from_edges(
        np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), n=0)
    want = brute5(G)
    if parallel and G.m:
        from la_gpm.motifs.common import descending
        ptr, idx, _ = descending(G)
        c5 = cf5.cycle5_walks(ptr, idx, 7)
        assert int(c5.sum()) == 2 * want["5-cycle"]
        assert int(cf5.k23e_pairs(ptr, idx, 7).sum()) == want["K2,3+e"]
    assert cf5.cycle5_noninduced(G) == want["5-cycle"]
    assert cf5.k23e_noninduced(G) == want["K2,3+e"]


def _hubs(seed):
    """Graphs where the degree order matters: a wheel-like hub over a dense part, R-MAT, and a K_{3,8} plus chords."""
    rng = np.random.default_rng(seed)
    yield la_gpm.generators.rmat(6, seed=seed)
    e = [(0, i) for i in range(1, 16)] + [(int(a), int(b)) for a, b in rng.integers(1, 16, (30, 2)) if a != b]
    yield la_gpm.Graph.from_edges([a for a, _ in e], [b for _, b in e], n=16)
    e = [(a, b) for a in range(3) for b in range(3, 11)] + [(3, 4), (5, 6), (0, 1)]
    yield la_gpm.Graph.from_edges([a for a, _ in e], [b for _, b in e], n=11)


@pytest.mark.parametrize("seed", [1, 2])
def test_cycle5_and_k23e_on_graphs_with_hubs(seed):
    for G in _hubs(seed):
        want = count_pattern(G, cf5.FIVE_VERTEX["5-cycle"], backend="cpu", closed_forms=False)
        assert cf5.cycle5_noninduced(G) == want
        want = count_pattern(G, cf5.FIVE_VERTEX["K2,3+e"], backend="cpu", closed_forms=False)
        assert cf5.k23e_noninduced(G) == want


def test_cycle5_and_k23e_analytic():
    """K_n: C(n, 5) · 12 five-cycles (4!/2 per 5-set) and C(n, 5) · 30 copies of K2,3+e (5!/|Aut|, |Aut| = 4).
    Single classes: the wheel W4 holds 4 five-cycles (the hub replaces one rim edge) and 4 K2,3+e (each of its
    two rim-opposite pairs shares the hub and two rim vertices, with two hub edges among them: 2 · (3 − 2) each),
    the house 1 five-cycle (its outer cycle), K2,3+e 2 (0-4-1 closed by 1-2-3-0 or 1-3-2-0) and itself."""
    from math import comb
    for n in (5, 6, 8):
        Kn = la_gpm.Graph.from_edges(*np.array(list(itertools.combinations(range(n), 2))).T, n=n)
        assert cf5.cycle5_noninduced(Kn) == comb(n, 5) * 12
        assert cf5.k23e_noninduced(Kn) == comb(n, 5) * 30
    for name, c5, k23e in (("5-cycle", 1, 0), ("K2,3+e", 2, 1), ("wheel", 4, 4), ("house", 1, 0)):
        E = cf5.FIVE_VERTEX[name]
        H = la_gpm.Graph.from_edges([a for a, _ in E], [b for _, b in E], n=5)
        assert (cf5.cycle5_noninduced(H), cf5.k23e_noninduced(H)) == (c5, k23e), name


@pytest.mark.parametrize("name", TRACE)
def test_trace_forms_reach_the_engine_on_karate(name):
    """karate: 374 five-cycles and 157 K2,3+e (the enumeration's counts), through every spelling: the name (both
    cases), shuffled edge lists on permuted ids, a networkx graph; embeddings = unique × |Aut|."""
    import networkx as nx
    G = la_gpm.datasets.load("karate")
    want = {"5-cycle": 374, "K2,3+e": 157}[name]
    assert count_pattern(G, cf5.FIVE_VERTEX[name], backend="cpu", closed_forms=False) == want
    rng = random.Random(7)
    spellings = [name, name.lower(), name.upper(), Pattern.named(name)] + [_spelling(name, rng) for _ in range(4)]
    spellings.append(nx.Graph(_spelling(name, rng)))
    if name == "5-cycle":
        spellings.append("pentagon")
    aut = Pattern(cf5.FIVE_VERTEX[name], k=5).automorphism_count
    for s in spellings:
        n, stats = count_pattern(G, s, backend="cpu", return_stats=True)
        assert n == want, s
        assert stats["engine"] == "closed_form" and stats["plan"].startswith(f"closed form: {name} = "), (s, stats)
        assert la_gpm.count(G, s, backend="cpu", count="embeddings") == want * aut
    # induced and closed_forms=False still enumerate
    for kw in (dict(induced=True), dict(closed_forms=False)):
        _, stats = count_pattern(G, name, backend="cpu", return_stats=True, **kw)
        assert stats["engine"] == "plan_dfs"
