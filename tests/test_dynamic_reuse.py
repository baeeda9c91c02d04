"""Reuse of intersections in the batch-dynamic CPU search (docs/dynamic.md; la_gpm/dynamic/query.py
``_reuse_tables``, la_gpm/dynamic/cpu.py ``_run_item``): level l scans level l-1's candidate set where the plan
proves it holds every valid candidate of l.

A wrong superset condition loses (or, with a wrong window, adds) matches, so the search with reuse is checked
against an independent backtracking oracle and against the same search with reuse off (plans compiled with
``reuse=False``), on dense random graphs holding planted copies of dense queries (cliques, near-cliques, k up
to 7) whose edges the batch inserts and deletes, with vertex and edge labels, induced, ``count="unique"``,
listings, split and unsplit items, and on random matching orders as well as the planner's (the planner's
greedy order gives every reuse level exactly one extra parent, l-1; random orders give more), then on graphs
of 16 to 40 vertices against reuse off alone.  Each condition weakened in turn (and the run-time level-2
range check, the window start, the extra parents' arc checks) made these tests fail; dropping the cost rule
did not (it only chooses).
"""

from __future__ import annotations

import contextlib
import random
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import Pattern
from la_gpm.dynamic import query as Q

from .test_dynamic import _edge_set, _graph_from_pairs, _rows, net_edges
from .depth import default_run, examples


# ----------------------------------------------------------------------------------------------- plan flags

def _clique(k, labels=None):
    return Pattern([(a, b) for a in range(k) for b in range(a + 1, k)], k=k, vertex_labels=labels)


@contextlib.contextmanager
def _orders(fn):
    """compile_delta_plan with ``fn(P, a, b, cand)`` as the matching order of start pair (a, b)."""
    with mock.patch.object(Q, "_order", fn):
        yield


def _fixed(order_of):
    """An order function: ``order_of[(a, b)]`` where given, else the planner's."""
    base = Q._order

    def fn(P, a, b, cand):
        return list(order_of[(a, b)]) if (a, b) in order_of else base(P, a, b, cand)
    return fn


def _flag(plan, a, b, l):
    """(reuse flag, rbound, nxp) of level l of start pair (a, b)."""
    p = [tuple(int(x) for x in r) for r in plan.pairs].index((a, b))
    reuse, rbound, nxp, *_ = plan.reuse
    return int(reuse[p, l]), int(rbound[p, l]), int(nxp[p, l])


def test_clique_reuses_every_level_from_3():
    P = _clique(5)
    plan = Q.compile_delta_plan(P, symmetry=False)
    reuse, rbound, nxp, xp, *_ = plan.reuse
    assert (reuse[:, 3:] == 2).all() and (reuse[:, :3] == 0).all()   # 2: the same NLF filter
    assert (nxp[:, 3:] == 1).all() and (rbound == 0).all()
    for p in range(len(plan.pairs)):
        for lv in (3, 4):
            assert plan.par[p, lv, xp[p, lv, 0]] == lv - 1          # the one extra parent is l-1
    sym = Q.compile_delta_plan(P, symmetry=True, orbits=False)    # every ordered pair, Aut(Q)'s conditions
    # start pair (0, 1): order 0..4 under f(0) < f(1) < ... < f(4): each level bounded below by the one before
    assert _flag(sym, 0, 1, 3) == (2, 1, 1) and _flag(sym, 0, 1, 4) == (2, 1, 1)
    # start pair (0, 2): level 2 (vertex 1) lies below M[1] (vertex 2), level 3 (vertex 3) above it: disjoint
    assert sym.order[1].tolist()[:4] == [0, 2, 1, 3] and _flag(sym, 0, 2, 3)[0] == 0
    off = Q.compile_delta_plan(P, symmetry=True, reuse=False, orbits=False)
    assert not off.reuse[0].any()
    assert np.array_equal(off.packed[:13], sym.packed[:13])   # the GPU's 13 tables
    # one start pair per orbit: K5's 20 ordered pairs are one orbit; its stabiliser (S3 on the other three) bounds
    # f(2) < f(3) < f(4), so levels 3 and 4 reuse the level before, bounded below by it
    orb = Q.compile_delta_plan(P, symmetry=True)
    assert orb.pairs.tolist() == [[0, 1]] and orb.pair_cond.tolist() == [0]
    assert _flag(orb, 0, 1, 3) == (2, 1, 1) and _flag(orb, 0, 1, 4) == (2, 1, 1)


def test_reuse_fields_leave_the_gpu_tables_alone():
    plan = Q.compile_delta_plan(_clique(6), symmetry=True, orbits=False)
    T = plan.packed
    assert T.shape[0] == Q.N_FIELDS and len(plan.tables()) == 13 == Q.F_REUSE
    for f, a in enumerate(plan.tables()[:12]):
        assert np.array_equal(T[f] if a.ndim == 3 else T[f, :, :, 0], a)
    small = Q.compile_delta_plan(_clique(3), orbits=False)   # k < 4: no level 3 (and fewer slots than fields): all zero
    assert small.packed.shape == (Q.N_FIELDS, 6, 3, 3) and not small.packed[Q.F_REUSE:].any()


@pytest.mark.parametrize("P", [Pattern([(0, 1), (1, 2), (2, 3), (3, 4)]),                  # path
                               Pattern([(0, 1), (0, 2), (0, 3), (0, 4), (4, 5)]),          # tree
                               Pattern([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)])])  # cycle
@pytest.mark.parametrize("induced", [False, True])
def test_paths_trees_and_cycles_never_reuse(P, induced):
    for sym in (False, True):
        assert not Q.compile_delta_plan(P, induced=induced, symmetry=sym).reuse[0].any()


def test_labels_must_agree_between_the_two_levels():
    P = _clique(5, labels=[0, 1, 0, 1, 0])
    plan = Q.compile_delta_plan(P, symmetry=False)
    reuse = plan.reuse[0]
    for p in range(len(plan.pairs)):
        lab = [P.vertex_labels[v] for v in plan.order[p]]
        for lv in range(3, 5):
            assert bool(reuse[p, lv]) == (lab[lv] == lab[lv - 1])
    assert plan.order[0].tolist() == [0, 1, 2, 3, 4] and not reuse[0].any()   # labels 0 1 0 1 0: none
    assert Q.compile_delta_plan(_clique(5, labels=[3] * 5), symmetry=False).reuse[0][:, 3:].all()


def test_the_nlf_filter_of_l_must_imply_that_of_l_minus_1():
    # a 4-clique 0..3, all label 0; vertex 2 also has a neighbour 4 of label 1
    P = Pattern([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (2, 4)], vertex_labels=[0, 0, 0, 0, 1])
    with _orders(_fixed({(0, 1): [0, 1, 2, 3, 4], (1, 0): [1, 0, 3, 2, 4]})):
        plan = Q.compile_delta_plan(P, symmetry=False)
    assert _flag(plan, 0, 1, 3)[0] == 0      # level 2 = vertex 2 needs a label-1 neighbour, level 3 = vertex 3 not
    assert _flag(plan, 1, 0, 3) == (1, 0, 1)   # level 2 = vertex 3, level 3 = vertex 2: stricter (1, not 2)
    U = Pattern(P.edges, k=5)                 # unlabelled: the degree alone decides
    with _orders(_fixed({(0, 1): [0, 1, 2, 3, 4], (1, 0): [1, 0, 3, 2, 4]})):
        plan = Q.compile_delta_plan(U, symmetry=False)
    assert _flag(plan, 0, 1, 3)[0] == 0 and _flag(plan, 1, 0, 3) == (1, 0, 1)


def test_edge_labels_of_shared_parents_must_agree():
    el = {e: 0 for e in _clique(4).edges}
    same = Pattern(_clique(4).edges, k=4, edge_labels=el)
    other = Pattern(_clique(4).edges, k=4, edge_labels={**el, (0, 3): 1})   # level 3's edge to level 0 differs
    with _orders(_fixed({(0, 1): [0, 1, 2, 3]})):
        assert _flag(Q.compile_delta_plan(same, symmetry=False), 0, 1, 3)[0] == 2
        assert _flag(Q.compile_delta_plan(other, symmetry=False), 0, 1, 3)[0] == 0


def test_induced_needs_the_anti_levels_of_l_minus_1():
    # order 0 1 2 3: vertex 2 is adjacent to 1 only, vertex 3 to 0, 1, 2 (two extra parents: levels 0 and 2)
    P = Pattern([(0, 1), (1, 2), (0, 3), (1, 3), (2, 3)])
    with _orders(_fixed({(0, 1): [0, 1, 2, 3]})):
        assert _flag(Q.compile_delta_plan(P, symmetry=False), 0, 1, 3) == (1, 0, 2)
        # induced: level 2 (vertex 2) must not be adjacent to M[0], level 3 must: level 2's set holds none of them
        assert _flag(Q.compile_delta_plan(P, induced=True, symmetry=False), 0, 1, 3)[0] == 0
    # a start non-edge: K4 minus (0, 1) from (0, 1): levels 2, 3 = vertices 2, 3 (both adjacent to 0 and 1)
    D = Pattern([(0, 2), (0, 3), (1, 2), (1, 3), (2, 3)])
    plan = Q.compile_delta_plan(D, induced=True, symmetry=False)
    assert _flag(plan, 0, 1, 3) == (2, 0, 1)
    # induced reuse needs exactly l-1's parents plus l-1 (so the anti levels are l-1's): any order, any pattern
    rng = random.Random(5)
    for _ in range(60):
        k = rng.randint(4, 6)
        E = {(rng.randrange(v), v) for v in range(1, k)} | {(a, b) for a in range(k) for b in range(a + 1, k)
                                                            if rng.random() < 0.5}
        R = Pattern(sorted(E), k=k)
        with _orders(_random_order(rng.randrange(10**6))):
            plan = Q.compile_delta_plan(R, induced=True, symmetry=rng.random() < 0.5)
        for p, lv in zip(*np.nonzero(plan.reuse[0])):
            par = set(plan.par[p, lv, :plan.npar[p, lv]].tolist())
            assert par == set(plan.par[p, lv - 1, :plan.npar[p, lv - 1]].tolist()) | {lv - 1}
            assert set(plan.anti[p, lv, :plan.nanti[p, lv]].tolist()) == \
                set(plan.anti[p, lv - 1, :plan.nanti[p, lv - 1]].tolist())


def test_symmetry_bounds_of_l_minus_1_must_follow():
    K4 = _clique(4)   # f(0) < f(1) < f(2) < f(3)
    with _orders(_fixed({(3, 2): [3, 2, 1, 0], (0, 1): [0, 1, 3, 2]})):
        plan = Q.compile_delta_plan(K4, symmetry=True, orbits=False)
    # (3, 2): level 2 = vertex 1 < M[0], M[1]; level 3 = vertex 0 < all three: bounded above by level 2 itself
    assert _flag(plan, 3, 2, 3)[:2] == (2, 2)
    # (0, 1): level 2 = vertex 3 > M[1]; level 3 = vertex 2 < M[2] but > M[1]: level 2's bounds follow (rbound 2)
    assert _flag(plan, 0, 1, 3)[:2] == (2, 2)
    nx = plan.reuse[4:]   # nxlow, xlow, nxup, xup: nothing left to search (level 2's bounds are level 3's)
    assert not nx[0].any() and not nx[2].any()


# ------------------------------------------------------------------------------- counts against an oracle

def _embeddings(n, adj, elab, vlab, P, induced):
    """Every embedding (tuple of images), by backtracking over the pattern's vertices in index order."""
    k = P.k
    A = P.adjacency
    out = []
    f = [-1] * k
    used = set()

    def ok(v, x):
        if P.vertex_labels is not None and vlab[x] != P.vertex_labels[v]:
            return False
        for u in range(v):
            y = f[u]
            e = y in adj[x]
            if A[u, v]:
                if not e or (P.edge_labels is not None and elab[(x, y)] != P.edge_labels[(u, v)]):
                    return False
            elif induced and e:
                return False
        return True

    def go(v):
        if v == k:
            out.append(tuple(f))
            return
        for x in range(n):
            if x not in used and ok(v, x):
                f[v] = x
                used.add(x)
                go(v + 1)
                used.discard(x)
        f[v] = -1
    go(0)
    return set(out)


def _state(n, edges):
    adj = [set() for _ in range(n)]
    elab = {}
    for (u, v), lab in edges.items():
        adj[u].add(v)
        adj[v].add(u)
        elab[(u, v)] = elab[(v, u)] = lab
    return adj, elab


def _delta_oracle(G, P, insert, delete, ins_labels, induced):
    """(positive, negative) embedding sets of the batch's net effect (docs/dynamic.md: pairs both inserted and
    deleted keep their state; inserting an existing edge or deleting a missing one changes nothing; a pair
    inserted twice takes its first label)."""
    before, after = net_edges(G, insert, delete, ins_labels)
    vlab = None if G.vertex_labels is None else G.vertex_labels.tolist()
    eb = _embeddings(G.n, *_state(G.n, before), vlab, P, induced)
    ea = _embeddings(G.n, *_state(G.n, after), vlab, P, induced)
    return ea - eb, eb - ea


def _random_order(seed):
    """A random matching order (every later vertex has an earlier neighbour), not the planner's."""
    def fn(P, a, b, cand):
        rng = random.Random(seed * 7919 + a * 31 + b)
        order = [a, b]
        left = set(range(P.k)) - {a, b}
        while left:
            ok = sorted(v for v in left if any(P.adjacency[u, v] for u in order))
            v = rng.choice(ok)
            order.append(v)
            left.remove(v)
        return order
    return fn


def _run(G, P, ins, dele, induced, reuse, order_fn):
    """(count embeddings, count unique, listing embeddings, listing unique) with plans compiled with reuse
    on or off (a fresh cache: the plan is kept with the graph)."""
    G.clear_device_cache()
    with mock.patch.object(Q, "REUSE", reuse), _orders(order_fn):
        c = la_gpm.match_delta(G, P, insert=ins, delete=dele, induced=induced)
        u = la_gpm.match_delta(G, P, insert=ins, delete=dele, induced=induced, count="unique")
        le = la_gpm.match_delta(G, P, insert=ins, delete=dele, induced=induced, listing=True)
        lu = la_gpm.match_delta(G, P, insert=ins, delete=dele, induced=induced, count="unique", listing=True)
    G.clear_device_cache()
    return c, u, le, lu


def _clique_less(draw, rng, k, drop, nl, nel):
    """K_k less up to ``drop`` random edges (each kept where dropping it would disconnect the query), with random
    vertex labels (of ``nl``, sometimes none) and edge labels (of ``nel``; 0: none)."""
    qp = [(a, b) for a in range(k) for b in range(a + 1, k)]
    edges = list(qp)
    for e in rng.permutation(len(qp))[:drop].tolist():
        trial = [x for x in edges if x != qp[e]]
        if Pattern(trial, k=k).is_connected:
            edges = trial
    qlab = [int(rng.integers(0, nl)) for _ in range(k)] if nl and draw(st.booleans()) else None
    qel = {e: int(rng.integers(0, nel)) for e in edges} if nel else None
    return Pattern(edges, k=k, vertex_labels=qlab, edge_labels=qel)


@st.composite
def dense_cases(draw):
    """(G, query, insert, delete, insert labels, induced, order function or None, split): a dense query (clique,
    near-clique, random dense) on a random graph holding one or two planted copies of it, some of whose edges
    the batch inserts or deletes (so that matches change; induced: the copy's non-edges cleared)."""
    k = draw(st.integers(4, 7))   # (reuse starts at level 3)
    n = draw(st.integers(k, min(k + 2, 8)))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    nl = draw(st.sampled_from([0, 1, 2]))
    nel = draw(st.sampled_from([0, 2]))
    induced = draw(st.booleans())
    kind = draw(st.sampled_from(["clique", "near", "dense"]))
    npairs = k * (k - 1) // 2
    drop = 0 if kind == "clique" else int(rng.integers(1, max(1, npairs // (4 if kind == "near" else 2)) + 1))
    P = _clique_less(draw, rng, k, drop, nl, nel)
    qp = [(a, b) for a in range(k) for b in range(a + 1, k)]
    qlab, qel = P.vertex_labels, P.edge_labels
    dens = draw(st.sampled_from([0.3, 0.6, 0.85]))
    g = {(a, b): (int(rng.integers(0, nel)) if nel else None)
         for a in range(n) for b in range(a + 1, n) if rng.random() < dens}
    vlab = [int(rng.integers(0, nl)) for _ in range(n)] if nl else None
    planted = []
    for _ in range(draw(st.integers(1, 2))):
        f = rng.permutation(n)[:k].tolist()
        if vlab is not None and qlab is not None:
            for v in range(k):
                vlab[f[v]] = qlab[v]
        for a, b in qp:
            e = (min(f[a], f[b]), max(f[a], f[b]))
            if (a, b) in P.edges:
                g[e] = qel[(a, b)] if qel else None
                planted.append(e)
            elif induced:
                g.pop(e, None)
    insert, ins_labels, delete = [], [], []
    for e in sorted(set(planted) & set(g)):   # (a second induced copy may clear a first copy's edge)
        r = rng.random()
        if r < 0.3:        # out of G, back in by the batch
            ins_labels.append(g.pop(e))
            insert.append(e if rng.random() < 0.5 else e[::-1])
        elif r < 0.45:
            delete.append(e)
    v = st.integers(0, n - 1)
    for x in draw(st.lists(st.tuples(v, v), max_size=3)):   # and a few others (self-loops, existing edges ...)
        insert.append(x)
        ins_labels.append(int(rng.integers(0, nel)) if nel else None)
    if g and draw(st.booleans()):
        keys = sorted(g)
        delete += [keys[int(t)] for t in rng.integers(0, len(keys), int(rng.integers(1, 3)))]
    keys = sorted(g)
    G = _graph_from_pairs(n, keys, vlab, [g[e] for e in keys] if nel else None)
    order = None if draw(st.booleans()) else _random_order(draw(st.integers(0, 10**6)))
    split = draw(st.sampled_from([1, 2, 256, 256, 256, 256]))   # (split items: no reuse at level 3)
    return G, P, insert, delete, (ins_labels if nel else None), induced, order, split


@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(dense_cases())
def test_reuse_equals_no_reuse_and_the_oracle(case):
    G, P, insert, delete, ins_labels, induced, order, split = case
    pos, neg = _delta_oracle(G, P, insert, delete, ins_labels, induced)
    aut = P.automorphism_count
    ins = insert if ins_labels is None else [(u, v, la) for (u, v), la in zip(insert, ins_labels)]
    order_fn = order or Q._order
    with la_gpm.config.set(dynamic_split=split):
        got = {r: _run(G, P, ins, delete, induced, r, order_fn) for r in (True, False)}
    for r, (c, u, le, lu) in got.items():
        why = (r, P, P.edge_labels, insert, delete, induced, split, order is None)
        assert (c.positive, c.negative) == (len(pos), len(neg)), why
        assert (u.positive * aut, u.negative * aut) == (len(pos), len(neg)), why
        assert _rows(le.positive_matches) == pos and len(le.positive_matches) == len(pos), why
        assert _rows(le.negative_matches) == neg and len(le.negative_matches) == len(neg), why
        assert len(lu.positive_matches) * aut == len(pos) and _rows(lu.positive_matches) <= pos, why
        assert len(lu.negative_matches) * aut == len(neg) and _rows(lu.negative_matches) <= neg, why
    # and the same rows in the same order, reuse or not (the listing pass writes through the same buffers)
    for a, b in zip(got[True][2:], got[False][2:]):
        assert np.array_equal(a.positive_matches, b.positive_matches)
        assert np.array_equal(a.negative_matches, b.negative_matches)


@st.composite
def larger_cases(draw):
    """As :func:`dense_cases` on 16 to 40 vertices (too many for the oracle: reuse on and off are compared; the
    search without reuse is the one the other tests check against brute force)."""
    k = draw(st.integers(4, 7))
    n = draw(st.integers(16, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    nl = draw(st.sampled_from([0, 1, 2]))
    nel = draw(st.sampled_from([0, 2]))
    induced = draw(st.booleans())
    P = _clique_less(draw, rng, k, int(rng.integers(0, k * (k - 1) // 6 + 1)), nl, nel)
    dens = draw(st.sampled_from([0.25, 0.4, 0.55])) * (1.6 if nl or nel else 1.0)
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    g = {e: (int(rng.integers(0, nel)) if nel else None) for e in pairs if rng.random() < dens}
    vlab = [int(rng.integers(0, nl)) for _ in range(n)] if nl else None
    keys = sorted(g)
    G = _graph_from_pairs(n, keys, vlab, [g[e] for e in keys] if nel else None)
    m = int(rng.integers(1, 25))
    insert = [tuple(int(x) for x in rng.integers(0, n, 2)) for _ in range(m)]
    ins_labels = [int(rng.integers(0, nel)) for _ in insert] if nel else None
    delete = [keys[int(t)] for t in rng.integers(0, len(keys), int(rng.integers(0, 25)))] if keys else []
    order = None if draw(st.booleans()) else _random_order(draw(st.integers(0, 10**6)))
    split = draw(st.sampled_from([4, 256, 256, 256]))
    return G, P, insert, delete, ins_labels, induced, order, split


# the default run draws the same examples each time: a rare draw once took 259 s of it (112 s in session 35)
@settings(max_examples=examples(300), deadline=None, derandomize=default_run(),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(larger_cases())
def test_reuse_equals_no_reuse_on_larger_graphs(case):
    G, P, insert, delete, ins_labels, induced, order, split = case
    ins = insert if ins_labels is None else [(u, v, la) for (u, v), la in zip(insert, ins_labels)]
    got = {}
    for r in (True, False):
        G.clear_device_cache()
        with la_gpm.config.set(dynamic_split=split), mock.patch.object(Q, "REUSE", r), _orders(order or Q._order):
            c = la_gpm.match_delta(G, P, insert=ins, delete=delete, induced=induced)
            lu = le = None    # listings only where they fit (a dense 37-vertex case had 6.7e8 rows: 35 GiB)
            if (c.positive + c.negative) // P.automorphism_count <= 200000:
                lu = la_gpm.match_delta(G, P, insert=ins, delete=delete, induced=induced, count="unique",
                                        listing=True)
            if c.positive + c.negative <= 20000:
                le = la_gpm.match_delta(G, P, insert=ins, delete=delete, induced=induced, listing=True)
        got[r] = (c, lu, le)
    G.clear_device_cache()
    (c1, u1, e1), (c0, u0, e0) = got[True], got[False]
    assert (c1.positive, c1.negative) == (c0.positive, c0.negative), (P, P.edge_labels, induced, split)
    for a, b in ((u1, u0), (e1, e0)):
        if a is not None:
            assert np.array_equal(a.positive_matches, b.positive_matches)
            assert np.array_equal(a.negative_matches, b.negative_matches)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1), st.booleans())
def test_dynamic_graph_stream_with_reuse_equals_the_oracle(seed, induced):
    """A DynamicGraph (small batches: the one-call lane where it applies) on a dense labelled graph, K5 / K5 less
    an edge queries, several batches."""
    rng = np.random.default_rng(seed)
    n = 8
    present = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < 0.75]
    vlab = [int(rng.integers(0, 2)) for _ in range(n)]
    G = _graph_from_pairs(n, present, vlab)
    qs = [_clique(5), Pattern([e for e in _clique(5).edges if e != (0, 1)], k=5, vertex_labels=[0, 0, 1, 0, 0])]
    D = la_gpm.DynamicGraph(G, qs, induced=induced)
    cur = G
    for _ in range(3):
        ins = [tuple(int(x) for x in rng.integers(0, n, 2)) for _ in range(int(rng.integers(0, 5)))]
        edges = sorted(_edge_set(cur))
        dele = [edges[int(t)] for t in rng.integers(0, len(edges), int(rng.integers(0, 4)))] if edges else []
        for P, d in zip(qs, D.apply(insert=ins, delete=dele)):
            pos, neg = _delta_oracle(cur, P, ins, dele, None, induced)
            assert (d.positive, d.negative) == (len(pos), len(neg)), (P, ins, dele, induced)
        cur = D.graph
