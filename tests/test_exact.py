"""The exact CPU engine: cliques, any pattern (induced or not, labeled or not), matching."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import Pattern
from la_gpm.kcliques import clique_count
from la_gpm.api import count_embeddings
from la_gpm.exact.match import match
from la_gpm.api import count_pattern
from la_gpm.exact.plans import plan_for
from la_gpm.exceptions import (BackendUnavailable, InvalidArgument, InvalidGraph, InvalidPattern, LabelMismatch,
                               PatternTooLarge)
from la_gpm.graph import Graph
from la_gpm.patterns import read_query
from la_gpm.patterns.plan import all_connected_orders, compile_plan

from .conftest import data_path
from .known import (CITESEER_CLIQUES, CITESEER_INDUCED_3, CITESEER_INDUCED_4, CITESEER_NONINDUCED_4,
                    CITESEER_NONINDUCED_5, WIKI_VOTE_CLIQUES)
from .oracles import brute_cliques, brute_count, brute_embeddings, k_clique_embeddings, nx_count
from .depth import examples

EXACT_BACKENDS = ["cpu", pytest.param("graphblas", marks=pytest.mark.skipif(
    la_gpm.backends.graphblas_status() is not None, reason=str(la_gpm.backends.graphblas_status())))]



@pytest.fixture(scope="module")
def wiki_vote():
    return la_gpm.as_graph(data_path("wiki-Vote.txt"))


@pytest.fixture(scope="module")
def hprd():
    from la_gpm.io import read_sunluo
    return read_sunluo(data_path("hprd/HPRD.graph"))


def _clique(k):
    return Pattern(list(itertools.combinations(range(k), 2)), k=k)


# ------------------------------------------------------------------------------------------ published counts
@pytest.mark.parametrize("b", EXACT_BACKENDS)
def test_citeseer_cliques(citeseer, b):
    got = {k: clique_count(citeseer, k, backend=b) for k in CITESEER_CLIQUES}
    assert got == CITESEER_CLIQUES


def test_citeseer_cliques_through_count(citeseer):
    for k, v in CITESEER_CLIQUES.items():
        assert la_gpm.count(citeseer, f"{k}-clique", backend="cpu") == v
    assert clique_count(citeseer, 1) == citeseer.n and clique_count(citeseer, 2) == citeseer.m


def test_citeseer_cliques_by_generic_plan(citeseer):
    """The generic engine (no DAG) agrees with the clique kernel: the plan path is checked on cliques too."""
    from la_gpm.exact.cpu import run_plan
    for k in (4, 5, 6):
        n, stats = run_plan(citeseer, plan_for(citeseer, _clique(k)))
        assert n == CITESEER_CLIQUES[k]
        assert stats["reuse_hits"] > 0


@pytest.mark.parametrize("name", sorted(CITESEER_INDUCED_4))
def test_citeseer_induced_4(citeseer, name):
    assert count_pattern(citeseer, name, induced=True) == CITESEER_INDUCED_4[name]


@pytest.mark.parametrize("name", sorted(CITESEER_NONINDUCED_4))
def test_citeseer_noninduced_4(citeseer, name):
    assert count_pattern(citeseer, name) == CITESEER_NONINDUCED_4[name]


def test_citeseer_3(citeseer):
    for name, v in CITESEER_INDUCED_3.items():
        assert count_pattern(citeseer, name, induced=True) == v


@pytest.mark.parametrize("name", sorted(CITESEER_NONINDUCED_5))
def test_citeseer_noninduced_5(citeseer, name):
    n, stats = count_pattern(citeseer, name, return_stats=True)
    assert n == CITESEER_NONINDUCED_5[name]
    assert count_pattern(citeseer, name, reuse=False) == n
    assert count_pattern(citeseer, name, count="embeddings") == n * Pattern.named(name).automorphism_count


def test_citeseer_truth_files(citeseer, data_dir):
    """The raw truth files, parsed: [a-b] edges (1-based); (a~b) anti-edges are implied by induced=True."""
    import re
    for fname, induced in (("4m.txt", True), ("4m-edge.txt", False)):
        path = data_dir / "citeseer-truth" / fname
        if not path.exists():
            pytest.skip(f"{path} missing")
        n_checked = 0
        for line in path.read_text().splitlines():
            edges = re.findall(r"\[(\d+)-(\d+)\]", line)
            nums = re.findall(r"(?:^|\s|:|=)(\d+)\s*$", line)
            if not edges or not nums:
                continue
            P = Pattern([(int(a) - 1, int(b) - 1) for a, b in edges])  # the files number vertices from 1
            assert count_pattern(citeseer, P, induced=induced) == int(nums[-1]), line
            n_checked += 1
        assert n_checked >= 6


def test_wiki_vote_4_cliques(wiki_vote):
    assert clique_count(wiki_vote, 4) == WIKI_VOTE_CLIQUES[4]


def test_wiki_vote_5_cliques(wiki_vote):
    assert clique_count(wiki_vote, 5) == WIKI_VOTE_CLIQUES[5]
    assert count_pattern(wiki_vote, "5-clique", count="embeddings") == 541_696_440


# ------------------------------------------------------------------------------------------ HPRD
def _hprd_expected():
    exp = {}
    for ln in data_path("hprd/expected_output.res").read_text().splitlines():
        if ":" in ln:
            a, b = ln.strip().split(":")
            exp[a] = int(b)
    return exp


def test_hprd_all_queries(hprd):
    """All 200 published HPRD counts (embeddings); about 6 s here."""
    exp = _hprd_expected()
    assert len(exp) == 200
    bad = {}
    for name, want in sorted(exp.items()):
        Q = read_query(data_path(f"hprd/query_graph/{name}.graph"))
        got = count_embeddings(hprd, Q)
        if got != want:
            bad[name] = (got, want)
    assert not bad


@pytest.mark.parametrize("i", [1, 2, 8, 17])
def test_hprd_listing(hprd, i):
    exp = _hprd_expected()
    Q = read_query(data_path(f"hprd/query_graph/query_dense_16_{i}.graph"))
    rows = np.concatenate(list(match(hprd, Q, chunk_size=7)) or [np.zeros((0, Q.k), np.int64)])
    assert rows.shape == (exp[f"query_dense_16_{i}"], Q.k)
    assert len({tuple(r) for r in rows.tolist()}) == rows.shape[0]
    lab = hprd.vertex_labels
    for r in rows[:50]:
        assert [lab[v] for v in r] == list(Q.vertex_labels)
        for a, b in Q.edges:
            assert r[b] in hprd.neighbors(r[a])
    if rows.shape[0] > 2:
        lim = list(match(hprd, Q, limit=2))
        assert sum(len(a) for a in lim) == 2


# ------------------------------------------------------------------------------------------ plans
def test_plan_reuse_worked_example():
    """notes/000_reuse.md §2.7: u2 ⊑ u3 through the identity prefix (equal sets)."""
    P = Pattern([(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (0, 4), (3, 4)])
    plan = compile_plan(P, order=(0, 1, 2, 3, 4), symmetry=False)
    assert plan.reuse == (-1, -1, -1, 2, -1)
    assert plan.reuse_equal[3] and plan.rest_parents[3] == ()
    assert plan.cached == (False, False, True, False, False)
    plain = compile_plan(P, order=(0, 1, 2, 3, 4), reuse=False)
    assert plain.reuse == (-1,) * 5


def test_plan_clique_chain_and_bounds():
    plan = compile_plan(_clique(5))
    assert plan.reuse == (-1, -1, -1, 2, 3)
    assert all(len(plan.lower[i]) + len(plan.upper[i]) == i for i in range(5))  # a total order
    assert plan.injective == ((),) * 5


def test_plan_bounds_are_not_baked_into_reused_sets(citeseer):
    """Diamond: the two degree-2 vertices share parents (equal reuse) and a symmetry bound;
    every connected order must give the same count as with reuse off."""
    P = Pattern.named("diamond")
    want = CITESEER_NONINDUCED_4["diamond"]
    from la_gpm.exact.cpu import run_plan
    seen_reuse = False
    for order in all_connected_orders(P):
        for induced in (False, True):
            plan = compile_plan(P, order=order, induced=induced)
            seen_reuse |= any(r >= 0 for r in plan.reuse)
            n, _ = run_plan(citeseer, plan)
            assert n == (want if not induced else CITESEER_INDUCED_4["diamond"]), (order, induced)
    assert seen_reuse


def test_reuse_of_a_bounded_level_in_every_order():
    """u3 ~ u2 (f(u2) < f(u3)) and u4 share the parents {u0, u1}; in orders where u4 reuses the set of the
    bounded level, a bound baked into the cached set would lose the matches with f(u4) below it."""
    from la_gpm.exact.cpu import run_plan
    P = Pattern([(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (0, 4), (1, 4), (4, 5)])
    G = _random_graph(random.Random(11), 14, 0.55)
    for induced in (False, True):
        want = nx_count(G, P, induced)
        assert want > 0
        hits = 0
        for order in all_connected_orders(P):
            plan = compile_plan(P, order=order, induced=induced)
            n, stats = run_plan(G, plan)
            assert n == want, (order, induced)
            hits += stats["reuse_hits"] > 0
        assert hits > 0


def test_plan_induced_anti_edges():
    plan = compile_plan(Pattern.named("4-path"), induced=True, reuse=False)
    assert sum(len(a) for a in plan.anti) == 3  # 6 pairs - 3 edges
    assert all(len(a) == 0 for a in compile_plan(Pattern.named("4-path")).anti)


def test_plan_labels_in_order_choice():
    """A rare label goes first in the matching order."""
    G = Graph.from_edges([0, 1, 2, 3, 4], [1, 2, 3, 4, 0], vertex_labels=[0, 0, 0, 0, 1])
    P = Pattern([(0, 1), (1, 2)], vertex_labels=[0, 0, 1])
    plan = plan_for(G, P)
    assert plan.order[0] == 2
    assert count_pattern(G, P) == brute_count(G, P)


# ------------------------------------------------------------------------------------------ oracles
def _random_graph(rng, n, p, vlabels=0, elabels=0):
    src, dst = [], []
    for u in range(n):
        for v in range(u + 1, n):
            if rng.random() < p:
                src.append(u)
                dst.append(v)
    vl = [rng.randrange(vlabels) for _ in range(n)] if vlabels else None
    el = np.array([rng.randrange(elabels) for _ in src], dtype=np.int64) if elabels else None
    return Graph.from_edges(np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), n=n, vertex_labels=vl,
                            edge_labels=el)


def _random_pattern(rng, k, extra, vlabels=0, elabels=0):
    edges = {(rng.randrange(i), i) for i in range(1, k)}  # a random spanning tree: connected
    for _ in range(extra):
        a, b = rng.sample(range(k), 2)
        edges.add((min(a, b), max(a, b)))
    edges = sorted(edges)
    vl = [rng.randrange(vlabels) for _ in range(k)] if vlabels else None
    el = {e: rng.randrange(elabels) for e in edges} if elabels else None
    return Pattern(edges, k=k, vertex_labels=vl, edge_labels=el)


# random small graph + random connected pattern (labels, edge labels, induced, unique/embeddings);
# the GPU engines' property tests draw the same cases
RANDOM_CASE = dict(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 9), p=st.floats(0.2, 0.8), k=st.integers(2, 5),
                   extra=st.integers(0, 5), induced=st.booleans(), kind=st.sampled_from(["unique", "embeddings"]),
                   vlabels=st.sampled_from([0, 0, 2, 3]), elabels=st.sampled_from([0, 0, 0, 2]))


def random_case(seed, n, p, k, extra, vlabels, elabels):
    rng = random.Random(seed)
    G = _random_graph(rng, n, p, vlabels, elabels)
    return G, _random_pattern(rng, k, extra, vlabels, elabels)


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**RANDOM_CASE)
def test_property_vs_brute_force(seed, n, p, k, extra, induced, kind, vlabels, elabels):
    G, P = random_case(seed, n, p, k, extra, vlabels, elabels)
    want = brute_count(G, P, induced, kind)
    assert count_pattern(G, P, induced=induced, count=kind) == want
    assert count_pattern(G, P, induced=induced, count=kind, reuse=False) == want


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 4), induced=st.booleans(),
       vlabels=st.sampled_from([0, 2]))
def test_property_match_lists_exactly_the_embeddings(seed, k, induced, vlabels):
    rng = random.Random(seed)
    G = _random_graph(rng, rng.randrange(4, 9), 0.5, vlabels)
    P = _random_pattern(rng, k, rng.randrange(3), vlabels)
    want = sorted(brute_embeddings(G, P, induced))
    got = [tuple(r) for a in match(G, P, induced=induced, chunk_size=3) for r in a.tolist()]
    assert sorted(got) == want


@pytest.mark.parametrize("seed", [104, 107, 109, 112, 117, 121, 127, 133])
def test_mid_size_patterns_vs_vf2(seed):
    """6-9 vertex patterns (the DP order search), labeled and not, induced and not, against VF2."""
    rng = random.Random(seed)
    k = rng.choice([6, 7, 8, 9, 11, 12])
    G = _random_graph(rng, 13, 0.55, rng.choice([0, 2]))
    P = _random_pattern(rng, k, k + rng.randrange(k), 2 if G.vertex_labels is not None else 0)
    induced = rng.random() < 0.5
    want = nx_count(G, P, induced)
    assert want > 0
    assert count_pattern(G, P, induced=induced) == want
    assert count_pattern(G, P, induced=induced, count="embeddings") == nx_count(G, P, induced, "embeddings")


@pytest.mark.parametrize("seed", range(6))
def test_large_patterns_in_a_perturbed_copy(seed):
    """11-12 vertex patterns (the greedy order): P occurs once in a relabelled copy of itself, and the
    copies in the copy plus two extra edges agree with VF2."""
    rng = random.Random(seed)
    k = (11, 12)[seed % 2]
    P = _random_pattern(rng, k, rng.randrange(2, 8))
    perm = list(range(k))
    rng.shuffle(perm)
    src = [perm[a] for a, b in P.edges]
    dst = [perm[b] for a, b in P.edges]
    G = Graph.from_edges(np.array(src), np.array(dst), n=k)
    assert count_pattern(G, P) == 1 and count_pattern(G, P, induced=True) == 1
    assert count_pattern(G, P, count="embeddings") == P.automorphism_count
    inv = {v: i for i, v in enumerate(perm)}
    added = 0
    while added < 2:
        a, b = rng.sample(range(k), 2)
        if not P.adjacency[inv[a], inv[b]] and (a, b) not in zip(src, dst) and (b, a) not in zip(src, dst):
            src.append(a)
            dst.append(b)
            added += 1
    G2 = Graph.from_edges(np.array(src), np.array(dst), n=k)
    assert count_pattern(G2, P) == nx_count(G2, P, False) >= 1
    assert count_pattern(G2, P, induced=True) == 0


def test_networkx_oracle_agrees_on_karate():
    G = la_gpm.datasets.load("karate")
    for name in ("4-cycle", "house", "tailed-triangle"):
        for induced in (False, True):
            assert count_pattern(G, name, induced=induced) == nx_count(G, Pattern.named(name), induced)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), induced=st.booleans())
def test_the_two_oracles_agree(seed, induced):
    """tests/oracles.py's two definitions count the same: brute force (partial maps extended one pattern vertex at a
    time and dropped at the first broken pair, session 29) and networkx's VF2, with vertex and edge labels or
    without, induced or not; every brute-force embedding is a distinct injective map that keeps every pattern
    edge."""
    rng = random.Random(seed)
    nv, ne = rng.choice([(0, 0), (2, 0), (2, 2)])
    G = _random_graph(rng, rng.randrange(3, 9), rng.uniform(0.2, 0.9), vlabels=nv, elabels=ne)
    k = rng.randrange(2, 5)
    edges = [(a, b) for a in range(k) for b in range(a + 1, k) if rng.random() < 0.6]
    edges += [(i - 1, i) for i in range(1, k) if (i - 1, i) not in edges]      # connected
    P = Pattern(sorted(edges), vertex_labels=[rng.randrange(2) for _ in range(k)] if nv else None,
                edge_labels={e: rng.randrange(2) for e in edges} if ne else None)
    emb = brute_embeddings(G, P, induced)
    assert len(set(emb)) == len(emb) and all(len(set(f)) == k for f in emb)
    adj = {(int(u), int(v)) for u, v in zip(np.repeat(np.arange(G.n), G.degrees), G.indices)}
    assert all((f[a], f[b]) in adj for f in emb for a, b in edges)
    assert brute_count(G, P, induced, count="embeddings") == nx_count(G, P, induced, count="embeddings")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(3, 6))
def test_property_cliques_vs_brute_force(seed, k):
    rng = random.Random(seed)
    G = _random_graph(rng, rng.randrange(5, 12), rng.uniform(0.3, 0.9))
    want = brute_cliques(G, k)
    assert clique_count(G, k, backend="cpu") == want
    assert count_pattern(G, _clique(k), count="embeddings") == want * math.factorial(k)
    if la_gpm.backends.graphblas_status() is None:
        assert clique_count(G, k, backend="graphblas") == want


def test_complete_graph_analytic_oracle():
    """K_m holds m!/((m-k)!|Aut|) copies of every k-vertex pattern."""
    G = Graph.from_edges(*np.array(list(itertools.combinations(range(7), 2))).T)
    for name in ("4-cycle", "diamond", "house", "pentagon", "hourglass", "4-star", "5-path"):
        P = Pattern.named(name)
        assert count_pattern(G, P) == k_clique_embeddings(7, P)
    assert clique_count(G, 7) == 1 and clique_count(G, 8) == 0


# ------------------------------------------------------------------------------------------ invariants
def test_relabelling_keeps_counts(citeseer):
    rng = np.random.default_rng(3)
    perm = rng.permutation(citeseer.n)
    src = np.repeat(np.arange(citeseer.n), citeseer.degrees)
    H = Graph.from_edges(perm[src], perm[citeseer.indices], n=citeseer.n)
    for name in ("house", "4-cycle", "tailed-triangle"):
        for induced in (False, True):
            assert count_pattern(H, name, induced=induced) == count_pattern(citeseer, name, induced=induced)
    P = Pattern.named("house")
    assert count_pattern(citeseer, P.relabel([3, 1, 4, 0, 2])) == CITESEER_NONINDUCED_5["house"]


def test_c4_identity(citeseer):
    """non-induced C4 = induced C4 + induced diamond + 3·K4."""
    G = _random_graph(random.Random(5), 40, 0.3)
    for g in (citeseer, G):
        lhs = count_pattern(g, "4-cycle")
        rhs = (count_pattern(g, "4-cycle", induced=True) + count_pattern(g, "diamond", induced=True)
               + 3 * clique_count(g, 4))
        assert lhs == rhs


def test_memory_budget_and_progress(citeseer):
    from la_gpm.exact.cpu import run_plan
    plan = plan_for(citeseer, Pattern.named("house"))
    _, st_full = run_plan(citeseer, plan)
    n, st_one = run_plan(citeseer, plan, memory_budget=st_full["bytes_per_worker"], progress=True)
    assert n == CITESEER_NONINDUCED_5["house"] and st_one["workers"] == 1
    with pytest.raises(InvalidArgument, match="memory_budget"):  # the engine's stack check (no closed form)
        count_pattern(citeseer, "house", memory_budget=10, closed_forms=False)
    with pytest.raises(InvalidArgument, match="memory_budget"):  # checked whatever path counts
        count_pattern(citeseer, "house", memory_budget=0)


def test_stats_report_reuse(citeseer):
    # the plan engine's reuse (the diamond's closed form is asked away: it would answer first)
    n, stats = count_pattern(citeseer, "diamond", return_stats=True, closed_forms=False)
    assert n == CITESEER_NONINDUCED_4["diamond"]
    assert stats["reuse_hits"] > 0 and stats["set_operations_saved"] > 0 and 0 < stats["reuse_rate"] <= 1
    _, plain = count_pattern(citeseer, "diamond", return_stats=True, reuse=False, closed_forms=False)
    assert plain["reuse_hits"] == 0
    assert plain["set_operations"] == stats["set_operations"] + stats["set_operations_saved"]


def test_labeled_graph_unlabeled_pattern_ignores_labels():
    G = _random_graph(random.Random(1), 9, 0.5, vlabels=3)
    src = np.repeat(np.arange(G.n), G.degrees)
    U = Graph.from_edges(src, G.indices, n=G.n)
    assert count_pattern(G, "4-cycle") == count_pattern(U, "4-cycle") == brute_count(U, Pattern.named("4-cycle"))


# ------------------------------------------------------------------------------------------ bad input
def test_bad_inputs(citeseer):
    with pytest.raises(InvalidPattern, match="connected"):
        count_pattern(citeseer, Pattern([(0, 1), (2, 3)]))
    with pytest.raises(PatternTooLarge, match="12"):
        count_pattern(citeseer, "13-path")
    with pytest.raises(LabelMismatch, match="vertex labels"):
        count_pattern(citeseer, Pattern([(0, 1), (1, 2)], vertex_labels=[1, 2, 3]))
    with pytest.raises(LabelMismatch, match="edge labels"):
        count_pattern(citeseer, Pattern([(0, 1), (1, 2)], edge_labels={(0, 1): 1, (1, 2): 0}))
    with pytest.raises(InvalidArgument, match="count"):
        count_pattern(citeseer, "house", count="all")
    with pytest.raises(InvalidArgument, match="induced"):
        count_pattern(citeseer, "house", induced="yes")
    if "gpu" not in la_gpm.available_backends():  # with a device it runs (tests/test_gpu_enum.py)
        with pytest.raises(BackendUnavailable, match="unavailable"):
            count_pattern(citeseer, "house", backend="gpu")
    with pytest.raises(BackendUnavailable, match="clique"):
        count_pattern(citeseer, "house", backend="graphblas")
    with pytest.raises(InvalidArgument, match="gpu_engine"):
        count_pattern(citeseer, "house", gpu_engine="bfs")
    with pytest.raises(InvalidGraph, match="directed"):
        count_pattern(Graph.from_edges([0, 1], [1, 2], directed=True), "wedge")
    with pytest.raises(InvalidArgument, match="backend"):
        count_pattern(citeseer, "house", backend="tpu")


def test_bad_clique_k(citeseer):
    for bad in (0, -3):
        with pytest.raises(InvalidArgument, match="k must be"):
            clique_count(citeseer, bad)
    for bad in ("4", 4.0, True):
        with pytest.raises(InvalidArgument, match="integer"):
            clique_count(citeseer, bad)
    with pytest.raises(PatternTooLarge, match="32"):
        clique_count(citeseer, 33)
    if "gpu" in la_gpm.available_backends():
        assert clique_count(citeseer, 4, backend="gpu") == 255
    else:
        with pytest.raises(BackendUnavailable, match="unavailable"):
            clique_count(citeseer, 4, backend="gpu")
    assert clique_count(citeseer, 32) == 0
    assert count_pattern(citeseer, "20-clique") == 0  # cliques are not held to the 12-vertex limit
    with pytest.raises(PatternTooLarge, match="32"):
        count_pattern(citeseer, "33-clique")


def test_bad_match_arguments(citeseer):
    with pytest.raises(InvalidArgument, match="limit"):
        match(citeseer, "triangle", limit=-1)
    with pytest.raises(InvalidArgument, match="chunk_size"):
        match(citeseer, "triangle", chunk_size=0)
    with pytest.raises(LabelMismatch):
        match(citeseer, Pattern([(0, 1)], vertex_labels=[0, 1]))
    with pytest.raises(PatternTooLarge, match="32"):
        match(citeseer, "33-path")
    assert list(match(citeseer, "triangle", limit=0)) == []


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(5, 12), p=st.floats(0.2, 0.9))
def test_bowtie_and_house_closed_forms_vs_brute_force(seed, n, p):
    G = _random_graph(random.Random(seed), n, p)
    want = brute_count(G, Pattern.named("bowtie"), False, "unique")
    assert count_pattern(G, "bowtie") == want
    assert count_pattern(G, "hourglass", count="embeddings") == want * 8
    assert count_pattern(G, "bowtie", closed_forms=False) == want
    want = brute_count(G, Pattern.named("house"), False, "unique")
    assert count_pattern(G, "house") == want
    assert count_pattern(G, "house", count="embeddings") == want * Pattern.named("house").automorphism_count


def test_bowtie_closed_form_on_real_graphs(citeseer):
    G = la_gpm.generators.rmat(8, seed=2)  # hubs
    for H in (citeseer, G):
        for name in ("bowtie", "house"):
            n, st_ = count_pattern(H, name, return_stats=True)
            assert st_["plan"].startswith("closed form")
            assert n == count_pattern(H, name, closed_forms=False)
    assert count_pattern(citeseer, "bowtie", induced=True) == count_pattern(citeseer, "bowtie", induced=True,
                                                                              closed_forms=False)
