"""Twin levels counted, not enumerated, in the batch-dynamic CPU search (la_gpm/dynamic/query.py ``_twin_tails``,
la_gpm/dynamic/cpu.py ``_twins``; docs/dynamic.md).

A plan whose last r >= 3 levels are twins -- one label and filter, the same parents before them, no edge among them,
the same bounds against earlier levels and a chain of symmetry bounds among them -- counts their images as C(c, r)
from the size c of the first twin level's set (a book's pages, a star's leaves, K_{2,r}'s far side).  A wrong
closed form, a twin set that is not one, or a split hub item counted whole, changes counts; so the counts are
checked against brute force on small graphs and against the same search with twins off (``compile_delta_plan(...,
twins=False)``, the enumeration) and the static engine on graphs with hubs, with hub items split into pieces.
"""

from __future__ import annotations

import math
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import Pattern
from la_gpm.dynamic import cpu as C
from la_gpm.dynamic import query as Q

from .test_dynamic import _graph_from_pairs, _oracle
from .depth import examples


def _book(pages, labels=None):
    return Pattern([(0, 1)] + [(0, i) for i in range(2, 2 + pages)] + [(1, i) for i in range(2, 2 + pages)],
                   vertex_labels=labels)


def _star(r, labels=None):
    return Pattern([(0, i) for i in range(1, r + 1)], vertex_labels=labels)


def _k2(r):
    return Pattern([(0, i) for i in range(2, 2 + r)] + [(1, i) for i in range(2, 2 + r)])


QUERIES = {
    "book3": _book(3), "book4": _book(4), "star4": _star(4), "star5": _star(5), "k2,4": _k2(4),
    "book3-labelled": _book(3, [0, 1, 2, 2, 2]), "star4-labelled": _star(4, [0, 1, 1, 1, 0]),
    "tree": Pattern([(0, 1), (1, 2), (1, 3), (1, 4), (0, 5)]),                        # three leaves on vertex 1
    "k4+3 leaves": Pattern([(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (2, 3), (3, 4), (3, 5), (3, 6)]),
    # wordnet's dense 8-vertex query: a book of 4 pages on 2-3, and the path 2-0-1-3
    "book4+cycle": Pattern([(0, 1), (0, 2), (1, 3), (2, 3), (2, 4), (2, 5), (2, 6), (2, 7), (3, 4), (3, 5), (3, 6),
                            (3, 7)]),
    # label-disjoint sides (F_TWIN slot 2, a split): a labelled path from its middle, human's sparse 8-vertex shape
    "path6-split": Pattern([(i, i + 1) for i in range(5)], vertex_labels=[0, 0, 1, 1, 2, 2]),
    "path8-split": Pattern([(i, i + 1) for i in range(7)], vertex_labels=[0, 1, 0, 1, 1, 2, 2, 2]),
    "sparse8-split": Pattern([(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (3, 4), (3, 5), (4, 6), (5, 6), (6, 7)],
                             vertex_labels=[0, 0, 0, 1, 1, 1, 2, 2]),
    # a last group rooted at the level before it (F_TWIN[p, 1, 0], the root memo): a labelled path from its end, as
    # human's 8-path (its far half label-disjoint from the levels between), and a branch hanging off the root
    "path8-rooted": Pattern([(i, i + 1) for i in range(7)], vertex_labels=[0, 0, 0, 1, 1, 2, 1, 2]),
    "spider-rooted": Pattern([(0, 1), (1, 2), (2, 3), (3, 4), (3, 5), (4, 6)], vertex_labels=[2, 1, 2, 1, 0, 1, 0]),
}


# ----------------------------------------------------------------------------------------------- plans

def test_twin_plans():
    for P, tws in ((_book(4), {2, 3}), (_star(5), {2}), (_k2(4), {3})):
        plan = Q.compile_delta_plan(P)
        assert (plan.twin[:, 0] > 0).all(), P
        assert set(plan.twin[:, 0].tolist()) == tws and set(plan.twin[:, 1].tolist()) <= {1, 2}
        assert (plan.packed[Q.F_TWIN, :, 0, :3] == plan.twin[:, :3]).all()
        off = Q.compile_delta_plan(P, twins=False)
        assert not off.twin.any() and not off.packed[Q.F_TWIN].any()
        assert np.array_equal(off.packed[:13], plan.packed[:13])     # the GPU's 13 tables are not touched
        assert not Q.compile_delta_plan(P, induced=True).twin.any()  # induced: twins are each other's anti levels
    # two pages, or pages of two labels: no run of three twins
    assert not Q.compile_delta_plan(_book(2)).twin[:, :2].any()
    assert not Q.compile_delta_plan(_book(3, [0, 0, 1, 1, 2])).twin[:, :2].any()
    # a page with an edge to another page is no twin: book4 with pages 2-3 joined leaves pages 4, 5 (two)
    assert not Q.compile_delta_plan(Pattern(list(_book(4).edges) + [(2, 3)])).twin[:, 0].any()
    # twins go last in every order (query._order): from a page edge too, the other three pages are the plan's tail
    plan = Q.compile_delta_plan(QUERIES["book4+cycle"])
    assert (plan.twin[:, 0] > 0).all()
    for p in range(len(plan.pairs)):
        tail = set(plan.order[p, plan.twin[p, 0]:].tolist())
        assert tail <= {4, 5, 6, 7} and len(tail) >= 3
    # a triangle tail or a fork keeps its own count (F_TRI)
    plan = Q.compile_delta_plan(QUERIES["k4+3 leaves"])
    assert ((plan.twin[:, 0] == 0) | (plan.tri[:, 0] == 0)).all()


def test_split_plans():
    # F_TWIN slot 2: levels m .. k-1 with their parents and bounds among levels 0, 1 and themselves, no label of
    # levels 2 .. m-1; the order puts the two sides of such a start pair one after the other (query._split)
    P = QUERIES["path8-split"]
    plan = Q.compile_delta_plan(P)
    p = [tuple(r) for r in plan.pairs.tolist()].index((3, 4))
    m = int(plan.twin[p, 2])
    assert m > 2 and set(plan.order[p, 2:m].tolist()) in ({0, 1, 2}, {5, 6, 7})
    head, tail = set(plan.order[p, :m].tolist()), set(plan.order[p, m:].tolist())
    assert not {P.vertex_labels[v] for v in plan.order[p, 2:m].tolist()} & {P.vertex_labels[v] for v in tail}
    assert all(not (P.adjacency[u, v]) for u in head - {3, 4} for v in tail)
    # no split without labels, with a label on both sides, induced (anti levels), or with twins=False
    assert not Q.compile_delta_plan(Pattern(P.edges)).twin[:, 2].any()
    assert not Q.compile_delta_plan(Pattern(P.edges, vertex_labels=[0, 1, 0, 1, 1, 0, 2, 2])).twin[p, 2]
    assert not Q.compile_delta_plan(P, induced=True).twin[:, 2].any()
    assert not Q.compile_delta_plan(P, twins=False).twin.any()
    # an order with the two sides one after the other but a label on both: B's candidates may be A's images, no split
    S = Pattern([(i, i + 1) for i in range(5)], vertex_labels=[0, 0, 1, 1, 0, 0])
    base = Q._order
    with mock.patch.object(Q, "_order", lambda P_, a, b, cand: [2, 3, 1, 0, 4, 5] if (a, b) == (2, 3)
                           else base(P_, a, b, cand)):
        plan = Q.compile_delta_plan(S)
        p = [tuple(r) for r in plan.pairs.tolist()].index((2, 3))
        assert plan.order[p].tolist() == [2, 3, 1, 0, 4, 5] and plan.twin[p, 2] == 0
        rng = np.random.default_rng(3)
        n = 14
        pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < 0.5]
        G = _graph_from_pairs(n, pairs, [int(x) for x in rng.integers(0, 2, n)], None)
        ins = [(int(a), int(b)) for a, b in rng.integers(0, n, (6, 2))]
        pos, neg, _ = _oracle(G, S, ins, pairs[:5], False)
        d = la_gpm.match_delta(G, S, insert=ins, delete=pairs[:5])
        assert (d.positive, d.negative) == (len(pos), len(neg))


def test_rooted_plans():
    # F_TWIN[p, 1, 0] = m: levels m .. k-1 with their parents and bounds among levels 0, 1, m - 1 and themselves, no
    # label of levels 2 .. m - 2 (the root's label allowed), level m - 1 with a parent past the start pair
    P = QUERIES["path8-rooted"]
    plan = Q.compile_delta_plan(P)
    assert (plan.packed[Q.F_TWIN, :, 1, 0] == plan.twin[:, 3]).all()
    p = [tuple(r) for r in plan.pairs.tolist()].index((7, 6))
    assert plan.order[p].tolist() == [7, 6, 5, 4, 3, 2, 1, 0] and plan.twin[p, 3] == 4 and plan.twin[p, 2] == 0
    # from the path's middle the sides are a split (slot 2), not a rooted group
    p = [tuple(r) for r in plan.pairs.tolist()].index((3, 4))
    assert plan.twin[p, 3] == 0
    # no rooted group without labels, with a label of the group on a level between (vertex 5 given the far half's
    # label 0; given label 1, the group starts a level later, past vertex 4), induced, with twins=False, or where the
    # root's images cannot repeat (a group right after the start pair's level 2)
    assert not Q.compile_delta_plan(Pattern(P.edges)).twin[:, 3].any()
    for l5, m in ((0, 0), (1, 5)):
        lab = list(P.vertex_labels)
        lab[5] = l5
        other = Q.compile_delta_plan(Pattern(P.edges, vertex_labels=lab))
        assert other.twin[[tuple(r) for r in other.pairs.tolist()].index((7, 6)), 3] == m
    assert not Q.compile_delta_plan(P, induced=True).twin[:, 3].any()
    assert not Q.compile_delta_plan(P, twins=False).twin.any()
    S = Pattern([(i, i + 1) for i in range(4)] + [(1, 5)], vertex_labels=[0, 0, 1, 2, 2, 1])
    base = Q._order
    with mock.patch.object(Q, "_order", lambda P_, a, b, cand: [0, 1, 5, 2, 3, 4] if (a, b) == (0, 1)
                           else base(P_, a, b, cand)):
        plan = Q.compile_delta_plan(S)
        p = [tuple(r) for r in plan.pairs.tolist()].index((0, 1))
        assert plan.twin[p, 3] == 0     # level 3 (vertex 2) hangs off level 1: its images are distinct in an item


def _tails(plan, P, **change):
    a = {f: getattr(plan, f).copy() for f in ("order", "npar", "par", "parel", "nanti", "nlow", "low", "nup", "up")}
    for f, fn in change.items():
        fn(a[f])
    return Q._twin_tails(P, a["order"], a["npar"], a["par"], a["parel"], a["nanti"], a["nlow"], a["low"], a["nup"],
                         a["up"], plan.tri, True)


def test_twin_conditions():
    # each condition taken away in turn: the plan's tail is no longer twins.  book4 from its spine (1, 2): levels
    # 2 .. 5 the pages, parents (0, 1), bounded in a chain
    P = _book(4)
    plan = Q.compile_delta_plan(P, symmetry=True, orbits=False)
    p = [tuple(r) for r in plan.pairs.tolist()].index((0, 1))
    assert plan.twin[p].tolist()[0] == 2 and (_tails(plan, P) == plan.twin).all()

    def parent(a):              # the last page's second parent is level 2 (another page), not level 1
        a[p, 5, 1] = 2
    assert _tails(plan, P, par=parent)[p, :2].tolist() == [0, 0]

    def edge_label(a):          # the last page's edge to level 0 has another label
        a[p, 5, 0] = 1
    assert _tails(plan, P, parel=edge_label)[p, :2].tolist() == [0, 0]

    def no_bound(a):            # the last page not bounded by the one before it: the chain is broken
        a[p, 5] = 0
    assert _tails(plan, P, nlow=no_bound, nup=no_bound)[p, :2].tolist() == [0, 0]
    # no symmetry bounds at all (only a listing's plans): twins are enumerated
    assert not Q.compile_delta_plan(P, symmetry=False).twin[:, :2].any()


def test_twin_count():
    tw = C._twins.py_func
    assert [tw(c, 3) for c in range(6)] == [0, 0, 0, 1, 4, 10]
    assert tw(60, 4) == 487635 and tw(3, 0) == 1
    assert tw(10**6, 10) == -1 and tw(10**5, 3) == 10**5 * (10**5 - 1) * (10**5 - 2) // 6


# ------------------------------------------------------------------------------- counts

def _hub_graph(rng, n, labels):
    """A random graph with two hubs (vertices 0 and 1 adjacent to about a third of the others)."""
    m = int(rng.integers(2 * n, 4 * n))
    u = np.concatenate([rng.integers(0, n, m), np.zeros(n // 3, int), np.ones(n // 3, int)])
    v = np.concatenate([rng.integers(0, n, m), rng.integers(0, n, n // 3), rng.integers(0, n, n // 3)])
    keep = u != v
    lab = rng.integers(0, labels, n) if labels else None
    return (u[keep], v[keep]), lab


def _stream(rng, G, batches=6):
    src = np.repeat(np.arange(G.n), np.diff(G.indptr))
    ops = []
    for _ in range(batches):
        for x in rng.choice(src.shape[0], 3, replace=False):
            ops.append((-1, int(src[x]), int(G.indices[x])))
        ops += [(1, int(a), int(b)) for a, b in zip(rng.integers(0, G.n, 4), rng.integers(0, G.n, 4))]
    return np.array(ops, np.int64)


@pytest.mark.parametrize("name", list(QUERIES))
@pytest.mark.parametrize("split", [256, 3])
def test_twins_count_what_enumeration_counts(name, split, monkeypatch):
    """Per batch, a stream through the lane (query views and the whole graph) and one match_delta of all of it:
    twins counted equal twins enumerated (plans compiled with ``twins=False``), and the net equals the static
    engine's recounts; ``split`` 3 cuts the hubs' level-2 rows into pieces (the piece's twins counted per image)."""
    P = QUERIES[name]
    rng = np.random.default_rng(len(name) + split)
    for trial in range(2):
        n = int(rng.integers(20, 36))
        edges, lab = _hub_graph(rng, n, 3 if P.vertex_labels is not None or trial else 0)

        def graph():
            return la_gpm.Graph.from_edges(*edges, n=n, vertex_labels=lab)
        G = graph()
        ops = _stream(rng, G)
        ins, dele = ops[ops[:, 0] > 0, 1:], ops[ops[:, 0] < 0, 1:]
        with la_gpm.config.set(dynamic_split=split, parallel_min=10**9):
            got = {}
            for twins in (True, False):
                monkeypatch.setattr(Q, "TWINS", twins)
                for count in ("embeddings", "unique"):
                    for keep in (False, True):
                        r = la_gpm.DynamicGraph(graph(), [P], count=count, keep_graph=keep).apply_stream(
                            ops, batch_size=7)
                        got[twins, count, keep] = (r.positive.tolist(), r.negative.tolist())
                    d = la_gpm.match_delta(graph(), P, insert=ins, delete=dele, count=count)
                    got[twins, count, "md"] = (d.positive, d.negative)
            monkeypatch.setattr(Q, "TWINS", True)
        for key, v in got.items():
            assert v == got[(False,) + key[1:]], (name, key)
        D = la_gpm.DynamicGraph(graph(), [P], keep_graph=True)
        D.apply_stream(ops, batch_size=7)
        for count in ("embeddings", "unique"):
            pos, neg = got[True, count, True]
            assert sum(pos) - sum(neg) == la_gpm.count(D.graph, P, count=count) - la_gpm.count(G, P, count=count)
            d = got[True, count, "md"]
            after = la_gpm.match_delta(G, P, insert=ins, delete=dele).graph
            assert d[0] - d[1] == la_gpm.count(after, P, count=count) - la_gpm.count(G, P, count=count)


@pytest.mark.parametrize("name", ["path8-rooted", "spider-rooted"])
def test_rooted_memo_drives_and_stamps(name, monkeypatch):
    """The root memo in each drive: serial (the store's mark rows), parallel (a block of rows a thread:
    ``parallel_min`` near 0; with the blocks over their byte cap, none) and the per-update path (the lane), against
    the search with F_TWIN off; then the stamps wrapped: an item's stamp at the int32 limit clears the stamp row,
    and the next stream counts the same."""
    P = QUERIES[name]
    rng = np.random.default_rng(11)
    edges, lab = _hub_graph(rng, 40, 3)

    def graph():
        return la_gpm.Graph.from_edges(*edges, n=40, vertex_labels=lab)
    ops = _stream(rng, graph(), batches=8)
    ins, dele = ops[ops[:, 0] > 0, 1:], ops[ops[:, 0] < 0, 1:]
    monkeypatch.setattr(Q, "TWINS", False)
    want = la_gpm.match_delta(graph(), P, insert=ins, delete=dele)
    want_stream = la_gpm.DynamicGraph(graph(), [P], keep_graph=False).apply_stream(ops, batch_size=5)
    monkeypatch.setattr(Q, "TWINS", True)
    assert Q.compile_delta_plan(P).twin[:, 3].any()
    assert want.positive + want.negative > 0
    for par, cap in ((10**9, C._THREAD_MARKS_MAX), (1e-9, C._THREAD_MARKS_MAX), (1e-9, 0)):
        # (cap 0: the thread blocks over their byte cap, the parallel drive without a memo)
        monkeypatch.setattr(C, "_THREAD_MARKS_MAX", cap)
        with la_gpm.config.set(parallel_min=par, dynamic_split=4):
            d = la_gpm.match_delta(graph(), P, insert=ins, delete=dele)
            assert (d.positive, d.negative) == (want.positive, want.negative), (par, cap)
    D = la_gpm.DynamicGraph(graph(), [P], keep_graph=False)
    r = D.apply_stream(ops, batch_size=5)
    assert (r.positive.tolist(), r.negative.tolist()) == (want_stream.positive.tolist(),
                                                          want_stream.negative.tolist())
    # the stamps wrap: stale stamps 1 with wrong counts in the row, and the next item's stamp past the int32 limit;
    # the row is cleared and counting starts again from stamp 1
    D = la_gpm.DynamicGraph(graph(), [P], keep_graph=False)
    S = D._store
    mk = S.row_marks(S.rows.shape[0], C.mark_rows(Q.compile_delta_plan(P)))
    mk[C.ROOT_STAMP, :-1] = 1
    mk[C.ROOT_VAL, :-1] = 12345
    mk[C.ROOT_STAMP, -1] = 2**31 - 2
    r = D.apply_stream(ops, batch_size=5)
    assert (r.positive.tolist(), r.negative.tolist()) == (want_stream.positive.tolist(),
                                                          want_stream.negative.tolist())
    assert S.row_marks(0) is mk and 0 < mk[C.ROOT_STAMP, -1] < 10**6


def _small_case(draw, nl):
    """A dense random graph of 5-9 vertices (twins need common neighbours) with ``nl`` vertex labels (0: none),
    and a batch of up to 8 inserts and 6 deletes of its edges."""
    n = draw(st.integers(5, 9))
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    present = [p for p in pairs if draw(st.integers(0, 2))]
    vlab = [draw(st.integers(0, nl - 1)) for _ in range(n)] if nl else None
    G = _graph_from_pairs(n, present, vlab, None)
    v = st.integers(0, n - 1)
    insert = draw(st.lists(st.tuples(v, v), max_size=8))
    delete = draw(st.lists(st.sampled_from(present) if present else st.tuples(v, v), max_size=6))
    return G, insert, delete


@st.composite
def twin_cases(draw):
    nl = draw(st.sampled_from([0, 2]))
    G, insert, delete = _small_case(draw, nl)
    kind = draw(st.sampled_from(["book", "star", "k2"]))
    r = draw(st.integers(3, 4))
    P = {"book": _book, "star": _star, "k2": _k2}[kind](r)
    if nl and draw(st.booleans()):
        P = Pattern(P.edges, k=P.k, vertex_labels=[draw(st.integers(0, 1)) for _ in range(P.k - r)] + [1] * r)
    return G, P, insert, delete


def _closed(r, hubs, labels=None):
    """Closed twins: an r-clique whose vertices all see the same ``hubs`` vertices (pairwise non-adjacent: a join),
    and a pendant on the first hub, so that the rest of the query is not all twins.  With two hubs a start on the
    pendant reaches the second hub only through a twin: no tail there (as K_{2,r}'s, _order_group's notes)."""
    g = list(range(hubs, hubs + r))
    edges = [(a, b) for a in g for b in g if a < b] + [(h, v) for h in range(hubs) for v in g]
    edges += [(0, hubs + r)]
    return Pattern(edges, k=hubs + r + 1, vertex_labels=labels)


@st.composite
def closed_cases(draw):
    nl = draw(st.sampled_from([0, 2]))
    G, insert, delete = _small_case(draw, nl)
    r = draw(st.integers(3, 4))
    kind = draw(st.sampled_from(["clique", "join", "hub"]))
    if kind == "clique":
        P = Pattern([(a, b) for a in range(r + 1) for b in range(a + 1, r + 1)])   # K_{r+1}
    elif kind == "join":
        P = _closed(r, 2)
    else:
        P = _closed(r, 1)
    if nl and draw(st.booleans()):
        P = Pattern(P.edges, k=P.k, vertex_labels=[draw(st.integers(0, 1)) for _ in range(P.k)])
    return G, P, insert, delete


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(closed_cases(), st.sampled_from([1, 256]))
def test_closed_twins_against_brute_force(case, split):
    """Closed twins (one label, pairwise adjacent, the same other neighbours) counted as the cliques of one set
    (cpu._clique_tail) in the drives (match_delta) and the lane (DynamicGraph's views), against brute force;
    level-2 ranges whole and pieced."""
    G, P, insert, delete = case
    pos, neg, _ = _oracle(G, P, insert, delete, False)
    for count, f in (("embeddings", 1), ("unique", P.automorphism_count)):
        for lane, pmin in ((0, 1), (4096, 200_000)):
            with la_gpm.config.set(dynamic_lane_max=lane, parallel_min=pmin, dynamic_split=split):
                d = la_gpm.match_delta(G, P, insert=insert, delete=delete, count=count)
                v = la_gpm.DynamicGraph(G, [P], count=count, keep_graph=False).apply(insert=insert, delete=delete)[0]
            assert (d.positive * f, d.negative * f) == (len(pos), len(neg)), (P, count, lane)
            assert (v.positive * f, v.negative * f) == (len(pos), len(neg)), (P, count, lane, "views")


def test_closed_twin_tails_are_found_and_count_a_wide_clique():
    """The plans mark closed twins (kinds 3 / 4) where the query has them and only then, and K_200 with one edge
    inserted makes C(198, 8) ~ 5.1e13 10-cliques: counted, not enumerated."""
    import math
    for P in (Pattern.named("5-clique"), _closed(3, 1), _closed(4, 1), _closed(3, 1, [0, 1, 1, 1, 0])):
        assert (Q.compile_delta_plan(P).twin[:, 1] >= 3).any(), P
    for P in (_closed(3, 1, [0, 1, 0, 1, 0]), _book(3), Pattern.named("4-clique")):
        assert not (Q.compile_delta_plan(P).twin[:, 1] >= 3).any(), P
    n = 200
    E = [(a, b) for a in range(n) for b in range(a + 1, n) if (a, b) != (0, 1)]
    G = la_gpm.Graph.from_edges([a for a, _ in E], [b for _, b in E], n=n)
    with la_gpm.config.set(dynamic_lane_max=0, parallel_min=1):
        d = la_gpm.match_delta(G, Pattern.named("10-clique"), insert=[(0, 1)], count="unique")
    assert (d.positive, d.negative) == (math.comb(198, 8), 0)


@st.composite
def split_cases(draw):
    G, insert, delete = _small_case(draw, 3)
    P = draw(st.sampled_from([Pattern([(i, i + 1) for i in range(4)], vertex_labels=[0, 1, 1, 2, 2]),
                              Pattern([(i, i + 1) for i in range(5)], vertex_labels=[0, 0, 1, 1, 2, 2]),
                              Pattern([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (3, 5)],
                                      vertex_labels=[0, 0, 1, 1, 2, 2]),
                              # rooted groups (F_TWIN[p, 1, 0]): a path from its end, a branch on the root
                              Pattern([(i, i + 1) for i in range(5)], vertex_labels=[0, 0, 1, 2, 1, 2]),
                              Pattern([(0, 1), (1, 2), (2, 3), (3, 4), (3, 5), (4, 6)],
                                      vertex_labels=[2, 1, 2, 1, 0, 1, 0])]))
    return G, P, insert, delete


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(split_cases())
def test_split_against_brute_force(case):
    G, P, insert, delete = case
    assert Q.compile_delta_plan(P).twin[:, 2:].any()
    pos, neg, _ = _oracle(G, P, insert, delete, False)
    for count, f in (("embeddings", 1), ("unique", P.automorphism_count)):
        d = la_gpm.match_delta(G, P, insert=insert, delete=delete, count=count)
        assert (d.positive * f, d.negative * f) == (len(pos), len(neg)), (P, count)


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(twin_cases())
def test_twins_against_brute_force(case):
    G, P, insert, delete = case
    pos, neg, _ = _oracle(G, P, insert, delete, False)
    aut = P.automorphism_count
    for count, f in (("embeddings", 1), ("unique", aut)):
        d = la_gpm.match_delta(G, P, insert=insert, delete=delete, count=count)
        assert (d.positive * f, d.negative * f) == (len(pos), len(neg)), (P, count)
        s = la_gpm.DynamicGraph(G, [P], count=count, keep_graph=False).apply(insert=insert, delete=delete)[0]
        assert (s.positive * f, s.negative * f) == (len(pos), len(neg)), (P, count)


requires_gpu = pytest.mark.skipif(la_gpm.backends.gpu_status() is not None,
                                  reason=f"no GPU: {la_gpm.backends.gpu_status()}")


@pytest.mark.gpu
@requires_gpu
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(twin_cases(), st.sampled_from([1, 256]), st.sampled_from([0, 1]))
def test_gpu_twins_against_brute_force(case, split, us):
    """The GPU counts a tail of twin levels as C(c, r) (gamma.cu, F_TWIN's first level): at an item's level 2 where its
    range is the whole row (``dynamic_split`` 256), from level 3 where it is a piece of the row (1), at a piece's
    first level, and past the 2^62 guard never (small graphs); with hand-ons every step (``us`` 1) and without."""
    G, P, insert, delete = case
    pos, neg, _ = _oracle(G, P, insert, delete, False)
    with la_gpm.config.set(dynamic_split=split, dynamic_gpu_split_us=us, memory_budget=4096, gpu_block=32):
        for count, f in (("embeddings", 1), ("unique", P.automorphism_count)):
            d = la_gpm.match_delta(G, P, insert=insert, delete=delete, count=count, backend="gpu")
            assert (d.positive * f, d.negative * f) == (len(pos), len(neg)), (P, count)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("split", [1, 256])
def test_gpu_counts_a_wide_star_without_enumerating_it(split):
    """A 9-leaf star on a hub of 600 neighbours: an insert at the hub makes C(600, 8) ~ 4.0e17 of them, far past any
    enumeration; the GPU's count equals the CPU's and the formula."""
    G = la_gpm.Graph.from_edges(np.zeros(600, np.int64), np.arange(1, 601), n=602)
    P = _star(9)
    with la_gpm.config.set(dynamic_split=split):
        c = la_gpm.match_delta(G, P, insert=[(0, 601)], count="unique", backend="cpu")
        g = la_gpm.match_delta(G, P, insert=[(0, 601)], count="unique", backend="gpu")
    assert (g.positive, g.negative) == (c.positive, c.negative) == (math.comb(600, 8), 0)


@pytest.mark.parametrize("name", ["book4", "k2,4", "star5", "book4+cycle"])
def test_twin_queries_on_each_backend(name, backend_cpu_gpu):
    """The GPU kernel reads F_TWIN's twin levels (not its groups) of the same plans (twins last in every order): both
    backends count what the CPU's enumeration counts."""
    P = QUERIES[name]
    rng = np.random.default_rng(7)
    edges, lab = _hub_graph(rng, 30, 0)
    G = la_gpm.Graph.from_edges(*edges, n=30)
    ops = _stream(rng, G, batches=1)
    ins, dele = ops[ops[:, 0] > 0, 1:], ops[ops[:, 0] < 0, 1:]
    d = la_gpm.match_delta(G, P, insert=ins, delete=dele, backend=backend_cpu_gpu)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(Q, "TWINS", False)
        e = la_gpm.match_delta(la_gpm.Graph.from_edges(*edges, n=30), P, insert=ins, delete=dele, backend="cpu")
    assert (d.positive, d.negative) == (e.positive, e.negative)
    assert d.positive - d.negative == (la_gpm.count(d.graph, P, count="embeddings")
                                       - la_gpm.count(G, P, count="embeddings"))
