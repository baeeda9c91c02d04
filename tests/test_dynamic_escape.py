"""A serial search past its budget goes to the parallel drive (la_gpm/dynamic/cpu.py, STEPS_OFF's notes).

Which drive searches a batch is decided before the search from a work estimate, and a deep query whose paths run
through a hub far from the update is estimated light.  So every serial search (the lane's per-update and batch
paths, the general path) counts its steps against ``config.parallel_min``; past it, the lane puts the batch back
(nothing of it changed) and the general path's parallel drive searches it.  What must hold: the counts are those of
the static recount, the graph and the candidate tables after the batch are those of a fresh build, and the batches
after it are counted right; the escape is seen in ``stats["parallel_after_serial"]``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import Pattern

from .depth import examples
from .test_dynamic import _edge_set, _graph_from_pairs, _oracle, _same_tables
from .test_dynamic_lane import _as, _stream_case, streams

PATH7 = Pattern([(i, i + 1) for i in range(6)], k=7)
BUDGET = 300     # config.parallel_min in these tests: above the hub case's estimates, far below its search steps


def _hub_case(L=400):
    """A tree: a' - a - b - c - h, the hub h with L neighbours l, each with 2 leaves x of its own, plus two far edges.
    The 7-vertex paths through a-b run a' a b c h l x: 2L of them, found by a search from a-b whose level-2 scans are
    one or two arcs (estimate: a few hundred), through h's L neighbours (thousands of steps)."""
    ap, a, b, c, h = 0, 1, 2, 3, 4
    edges = [(ap, a), (b, c), (c, h)]
    nxt = 5
    for _ in range(L):
        leaf = nxt
        edges.append((h, leaf))
        nxt += 1
        for _ in range(2):
            edges.append((leaf, nxt))
            nxt += 1
    far = [(nxt, nxt + 1), (nxt + 2, nxt + 3), (nxt + 1, nxt + 2)]
    edges += far[:2]
    n = nxt + 4
    return _graph_from_pairs(n, edges), (a, b), far


def _count(G):
    return la_gpm.count(G, PATH7, count="embeddings", backend="cpu")


def _after(G, ins, dele):
    E = set(_edge_set(G))
    E -= {(min(u, v), max(u, v)) for u, v in dele}
    E |= {(min(u, v), max(u, v)) for u, v in ins}
    return _graph_from_pairs(G.n, sorted(E))


# the batches: the heavy insert a-b last of the inserts, after a far delete and a far insert, each applied one at a
# time first by the per-update path (its put-back undoes them); then the heavy delete a'-a after a far delete
def _batches(far):
    (f0, f1), (f2, f3), (g0, g1) = far
    return [([(g0, g1), (1, 2)], [(f2, f3)]),
            ([], [(f0, f1), (0, 1)])]


ROUTES = {
    "per_update": dict(),                                 # one apply, the lane's per-update path (the default)
    "batch": dict(dynamic_per_update_max=0),              # one apply, the lane's batch path
    "general": dict(dynamic_lane_max=0),                  # no lane: the general path's serial drive
}


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("route", sorted(ROUTES))
def test_a_deep_search_past_its_budget_goes_parallel_and_counts_right(route, keep):
    G, (a, b), far = _hub_case()
    cur = G
    escaped = 0
    with la_gpm.config.set(parallel_min=BUDGET, **ROUTES[route]):
        D = la_gpm.DynamicGraph(G, [PATH7], keep_graph=keep)
        for ins, dele in _batches(far):
            d, = D.apply(insert=ins, delete=dele)
            nxt = _after(cur, ins, dele)
            # insert-only and delete-only parts: positive = |M(after)| - |M(kept)|, negative = |M(before)| - |M(kept)|
            kept = _after(cur, [], dele)
            assert (d.positive, d.negative) == (_count(nxt) - _count(kept), _count(cur) - _count(kept)), (route, ins,
                                                                                                        dele)
            escaped += bool(d.stats.get("parallel_after_serial"))
            if keep:
                assert _edge_set(D.graph) == _edge_set(nxt)
                _same_tables(D, D.graph)
            cur = nxt
    assert escaped == 2, route     # both heavy batches went past the budget
    if keep:
        _same_tables(D, D.graph)


def test_match_delta_past_its_budget_goes_parallel():
    G, (a, b), far = _hub_case()
    with la_gpm.config.set(parallel_min=BUDGET):
        d = la_gpm.match_delta(G, PATH7, insert=[(a, b)])
    assert d.stats.get("parallel_after_serial")
    assert (d.positive, d.negative) == (_count(_after(G, [(a, b)], [])) - _count(G), 0)


def test_without_the_escape_the_same_counts():
    # a budget no search reaches: the serial drives as before, the same counts and graph
    G, (a, b), far = _hub_case()
    out = []
    for pm in (BUDGET, 10**12):
        with la_gpm.config.set(parallel_min=pm):
            D = la_gpm.DynamicGraph(G, [PATH7])
            res = [D.apply(insert=i, delete=d)[0] for i, d in _batches(far)]
        out.append(([(r.positive, r.negative) for r in res], _edge_set(D.graph),
                    [bool(r.stats.get("parallel_after_serial")) for r in res]))
    assert out[0][:2] == out[1][:2]
    assert any(out[0][2]) and not any(out[1][2])


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("per_update", [0, 16])
def test_a_stream_hands_a_batch_past_the_budget_to_the_general_path(per_update, keep):
    # apply_stream: the batch path (per_update 0) or the per-update path (its rows edited in place: the put-back drops
    # the inserts it made and puts the deletes back) puts the batch back, the general path takes it, the run goes on
    G, (a, b), far = _hub_case()
    batches = _batches(far) + [([(far[0][0], far[1][1])], [])]
    ref = []
    cur = G
    for ins, dele in batches:
        nxt = _after(cur, ins, dele)
        kept = _after(cur, [], dele)
        ref.append((_count(nxt) - _count(kept), _count(cur) - _count(kept)))
        cur = nxt
    with la_gpm.config.set(parallel_min=BUDGET, dynamic_per_update_max=per_update):
        D = la_gpm.DynamicGraph(G, [PATH7], keep_graph=keep)
        got = D.apply_stream([(np.asarray(i, np.int64).reshape(-1, 2), np.asarray(d, np.int64).reshape(-1, 2))
                              for i, d in batches])
    assert [(int(p), int(n)) for p, n in zip(got.positive, got.negative)] == ref
    assert D._store.escaped >= 2 and not got.lane[0] and not got.lane[1] and got.lane[2]
    if keep:
        assert _edge_set(D.graph) == _edge_set(cur)
        _same_tables(D, D.graph)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(), st.booleans(), st.sampled_from([2, 5, 20, 80]), st.sampled_from([0, 2, 8]))
def test_streams_with_small_budgets_equal_brute_force_and_the_general_path(case, keep, budget, per_update):
    """Budgets of a few steps: searches stop anywhere (any item, any update of a batch applied one at a time) and are
    put back; counts, stats, graph and tables as brute force and the general path have them."""
    with la_gpm.config.set(parallel_min=budget, dynamic_per_update_max=per_update):
        _stream_case(case, keep)


def test_listing_past_its_budget_lists_every_match_once():
    # both passes (count, then rows at prefix-sum offsets) may stop at any item: the rows as without a budget
    G, (a, b), far = _hub_case()
    got = {}
    for pm in (BUDGET, 10**12):
        with la_gpm.config.set(parallel_min=pm):
            d = la_gpm.match_delta(G, PATH7, insert=[(a, b)], delete=[far[0]], listing=True)
        got[pm] = (d.positive, d.negative, sorted(map(tuple, d.positive_matches.tolist())),
                   sorted(map(tuple, d.negative_matches.tolist())), bool(d.stats.get("parallel_after_serial")))
    assert got[BUDGET][:4] == got[10**12][:4] and got[BUDGET][0] == len(got[BUDGET][2]) > 0
    assert len(set(got[BUDGET][2])) == len(got[BUDGET][2])
    assert got[BUDGET][4] and not got[10**12][4]


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(), st.booleans(), st.sampled_from([2, 5, 20, 80]), st.sampled_from([0, 2, 8]))
def test_apply_stream_with_small_budgets_equals_apply_per_batch_and_brute_force(case, keep, budget, per_update):
    """apply_stream's runs put batches back anywhere (the per-update path's in-place edits undone); counts, graph and
    tables as apply per batch without a budget and as brute force."""
    G, P, induced, count, batches = case
    raw = [(_as(i, a), _as(d, a)) for i, d, a in batches]
    with la_gpm.config.set(parallel_min=budget, dynamic_per_update_max=per_update):
        A = la_gpm.DynamicGraph(G, [P], induced=induced, count=count, keep_graph=keep)
        r = A.apply_stream(raw)
    with la_gpm.config.set(parallel_min=10**9, dynamic_per_update_max=per_update):
        B = la_gpm.DynamicGraph(G, [P], induced=induced, count=count, keep_graph=keep)
        want = [B.apply(insert=i, delete=d)[0] for i, d in raw]
    aut = P.automorphism_count if count == "unique" else 1
    cur = G
    for b, (ins, dele) in enumerate(raw):
        assert (r.positive[b], r.negative[b]) == (want[b].positive, want[b].negative)
        assert (r.inserted[b], r.deleted[b]) == (want[b].stats["inserted"], want[b].stats["deleted"])
        pos, neg, cur = _oracle(cur, P, np.asarray(ins).reshape(-1, 2).tolist(),
                                np.asarray(dele).reshape(-1, 2).tolist(), induced)
        assert (r.positive[b] * aut, r.negative[b] * aut) == (len(pos), len(neg))
    assert A.version == B.version
    for x, y in zip(A._nlf.ct, B._nlf.ct):
        assert np.array_equal(x, y)
    for x, y in zip(A._nlf.cand, B._nlf.cand):
        assert np.array_equal(x.ptr, y.ptr) and np.array_equal(x.idx, y.idx)
    if keep:
        assert _edge_set(A.graph) == _edge_set(cur)
        _same_tables(A, A.graph)
