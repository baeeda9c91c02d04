"""The whole-graph mode's updates no query can use, kept aside (la_gpm/dynamic/aside.py).

``DynamicGraph(keep_graph=True)`` searches the edges some query can use, as query views do, and logs the other
updates; the log is replayed when ``.graph`` or a batch's update counts are read.  Checked here against models
written independently of that code: the edge set (with edge labels) after every batch, and each batch's counts of
repeats, pairs both inserted and deleted, existing inserts, missing deletes, net inserts and deletes, by counting
the batch's pairs in Python; the matches by brute force.  Every graph of an earlier batch is read after the later
batches (and replays) ran; streams are read column by column, and the log must still be pending after the match
counts alone were read.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import Pattern
from la_gpm.dynamic import aside as aside_mod

from .test_dynamic import _edge_set, _graph_from_pairs, _oracle, _random_pattern

_FLUSH_AT = aside_mod.FLUSH_AT     # (the tests below patch it)
_COUNT_KEYS = ("ignored_self_loops", "ignored_duplicates", "ignored_insert_and_delete", "ignored_existing_inserts",
               "ignored_missing_deletes", "inserted", "deleted")


def _model_step(model, ins, dele, ilab=None):
    """(the batch's counts, the edge dict after it): a batch's net effect counted pair by pair (docs/dynamic.md,
    "What is counted"), on ``model`` ({(u, v): edge label or None}, u < v)."""
    key = lambda p: (min(p[0], p[1]), max(p[0], p[1]))    # noqa: E731
    ci = Counter(key(p) for p in ins if p[0] != p[1])
    cd = Counter(key(p) for p in dele if p[0] != p[1])
    first = {}
    for t, p in enumerate(ins):
        if p[0] != p[1]:
            first.setdefault(key(p), None if ilab is None else int(ilab[t]))
    c = dict.fromkeys(_COUNT_KEYS, 0)
    c["ignored_self_loops"] = sum(p[0] == p[1] for p in list(ins) + list(dele))
    c["ignored_duplicates"] = sum(x - 1 for x in ci.values()) + sum(x - 1 for x in cd.values())
    after = dict(model)
    for e in set(ci) | set(cd):
        if e in ci and e in cd:
            c["ignored_insert_and_delete"] += 1
        elif e in ci:
            if e in model:
                c["ignored_existing_inserts"] += 1
            else:
                c["inserted"] += 1
                after[e] = first[e]
        elif e in model:
            c["deleted"] += 1
            del after[e]
        else:
            c["ignored_missing_deletes"] += 1
    return c, after


@st.composite
def whole_cases(draw):
    """A vertex-labelled graph (edge labels sometimes), a labelled query (so that some updates are irrelevant) and
    batches with repeats, pairs both inserted and deleted, existing inserts, missing deletes and self-loops."""
    n = draw(st.integers(5, 10))
    nl = draw(st.sampled_from([2, 3, 4]))
    vlab = [draw(st.integers(0, nl - 1)) for _ in range(n)]
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    present = [p for p in pairs if draw(st.integers(0, 2)) == 0]
    elab = [draw(st.integers(0, 1)) for _ in present] if draw(st.booleans()) else None
    G = _graph_from_pairs(n, present, vlab, elab)
    P = _random_pattern(draw, kmax=min(4, n), labels=nl)
    induced = draw(st.booleans())
    v = st.integers(0, n - 1)
    batches = []
    for _ in range(draw(st.integers(1, 7))):
        ins = draw(st.lists(st.tuples(v, v), max_size=10))
        dele = draw(st.lists(st.one_of(st.sampled_from(pairs), st.tuples(v, v)), max_size=6))
        if ins and draw(st.booleans()):
            ins.append(ins[-1])                                     # a repeat
        if ins and dele and draw(st.booleans()):
            dele.append(ins[0])                                     # both inserted and deleted
        ilab = [draw(st.integers(0, 1)) for _ in ins] if elab is not None else None
        batches.append((ins, dele, ilab))
    return G, P, induced, batches


def _batch_args(ins, dele, ilab):
    i = np.asarray(ins, np.int64).reshape(-1, 2)
    if ilab is not None:
        i = np.column_stack([i, np.asarray(ilab, np.int64)]) if len(ins) else np.zeros((0, 3), np.int64)
    return i, np.asarray(dele, np.int64).reshape(-1, 2)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(whole_cases(), st.sampled_from([1, 3, _FLUSH_AT]), st.sampled_from([0, 8]))
def test_whole_graph_counts_graphs_and_stats_equal_the_models(monkeypatch, case, flush_at, per_update):
    """Per batch: matches by brute force, the seven update counts by the pair-counting model; every batch's graph
    (read at the end) and the graph now equal the model's edge dict.  ``flush_at`` 1 or 3: the log is replayed
    in the middle of the batches (whether or not anything read it)."""
    G, P, induced, batches = case
    monkeypatch.setattr(aside_mod, "FLUSH_AT", flush_at)
    with la_gpm.config.set(dynamic_per_update_max=per_update, parallel_min=10**9):
        D = la_gpm.DynamicGraph(G, [P], induced=induced)
        model = _edge_set(G)
        cur = G
        kept = []
        for ins, dele, ilab in batches:
            d, = D.apply(*_batch_args(ins, dele, ilab))
            pos, neg, after = _oracle(cur, P, ins, dele, induced, ilab)
            assert (d.positive, d.negative) == (len(pos), len(neg)), (P, ins, dele, induced)
            want, model = _model_step(model, ins, dele, ilab)
            kept.append((d, want, model))
            cur = after
        for d, want, m in kept:
            assert {k: d.stats[k] for k in _COUNT_KEYS} == want
            assert "irrelevant" not in d.stats
            assert _edge_set(d.graph) == m
        assert _edge_set(D.graph) == model and D.graph.n == G.n


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(whole_cases())
def test_a_stream_of_batches_reads_the_log_only_for_its_update_counts(case):
    """apply_stream over the same batches (an iterable: each through the lane or the general path): its columns
    equal the per-batch apply's stats; reading the match counts leaves the log unreplayed; ``irrelevant`` is 0."""
    G, P, induced, batches = case
    D = la_gpm.DynamicGraph(G, [P], induced=induced)
    one = la_gpm.DynamicGraph(G, [P], induced=induced)
    ref = [one.apply(*_batch_args(*b))[0] for b in batches]
    r = D.apply_stream([_batch_args(*b) for b in batches])
    assert r.positive.tolist() == [d.positive for d in ref] and r.negative.tolist() == [d.negative for d in ref]
    logged = D._aside.L > 0
    assert bool(D._aside._pending) == logged        # the counts read so far needed no replay
    assert r.inserted.tolist() == [d.stats["inserted"] for d in ref]
    assert not D._aside._pending
    assert r.deleted.tolist() == [d.stats["deleted"] for d in ref]
    assert r.ignored.tolist() == [sum(d.stats[k] for k in _COUNT_KEYS[:5]) for d in ref]
    assert r.irrelevant.tolist() == [0] * len(batches)
    assert _edge_set(D.graph) == _edge_set(one.graph)


@pytest.mark.parametrize("flush_at", [7, _FLUSH_AT])
def test_an_array_stream_on_a_many_label_graph(monkeypatch, flush_at):
    """An array stream of 120 batches of 9 updates (most of them irrelevant: 6 labels, a 3-label query) through the
    lane's one-call path, against the pair-counting model per batch and brute force totals; the views give the
    same matches; the graph after equals the model's; a second stream goes on from the first."""
    monkeypatch.setattr(aside_mod, "FLUSH_AT", flush_at)
    rng = np.random.default_rng(11)
    n = 60
    vlab = rng.integers(0, 6, n).tolist()
    E = sorted({(min(u, v), max(u, v)) for u, v in rng.integers(0, n, size=(240, 2)).tolist() if u != v})
    G = _graph_from_pairs(n, E, vlab)
    P = Pattern([(0, 1), (1, 2), (2, 0), (2, 3)], vertex_labels=[0, 1, 2, 2])
    D = la_gpm.DynamicGraph(G, [P])
    V = la_gpm.DynamicGraph(G, [P], keep_graph=False)
    model = _edge_set(G)
    for part in range(2):
        ops = []
        for _ in range(120 * 9):
            u, v = rng.integers(0, n, 2).tolist()
            if rng.random() < 0.4 and model:
                u, v = sorted(model)[rng.integers(len(model))]
                ops.append((-1, u, v))
            else:
                ops.append((1, u, v))
        ops = np.array(ops, np.int64)
        r = D.apply_stream(ops, batch_size=9)
        rv = V.apply_stream(ops, batch_size=9)
        assert r.lane.all() and r.lane_batches == 120
        assert np.array_equal(r.positive, rv.positive) and np.array_equal(r.negative, rv.negative)
        assert (D._aside.L > 0) == (flush_at == _FLUSH_AT)
        irr = 0
        for b in range(120):
            rows = ops[9 * b:9 * b + 9]
            ins = [(int(x), int(y)) for s, x, y in rows if s == 1]
            dele = [(int(x), int(y)) for s, x, y in rows if s == -1]
            want, model = _model_step(model, ins, dele)
            assert (r.inserted[b], r.deleted[b]) == (want["inserted"], want["deleted"]), b
            assert r.ignored[b] == sum(want[k] for k in _COUNT_KEYS[:5]), b
            irr += rv.irrelevant[b]
        assert irr > 500 and not r.irrelevant.any()
        assert _edge_set(D.graph) == model


def test_new_vertices_and_an_id_map_in_the_whole_graph():
    """Inserts that add vertices (new ids past the graph's and far from them: an id map) with labels, some of their
    edges irrelevant: the graph after has every edge, in original ids, with the new vertices' labels; the counts of
    the irrelevant updates among them are those of the model."""
    G = _graph_from_pairs(5, [(0, 1), (1, 2), (3, 4)], [0, 0, 1, 2, 2])
    P = Pattern([(0, 1), (1, 2), (2, 0)], vertex_labels=[0, 0, 1])
    D = la_gpm.DynamicGraph(G, [P])
    d1, = D.apply(insert=[(0, 2), (3, 5), (5, 4), (5, 4)], labels={5: 2})   # (3, 5), (5, 4): labels 2-2
    d2, = D.apply(insert=[(100, 3), (100, 0), (100, 1)], delete=[(3, 4), (3, 4), (4, 1)], labels={100: 1})
    d3, = D.apply(insert=[(5, 3)], delete=[(5, 4)])
    H = D.graph
    ids = H.ids
    got = {(min(int(ids[u]), int(ids[v])), max(int(ids[u]), int(ids[v]))) for u, v in _edge_set(H)}
    assert got == {(0, 1), (1, 2), (0, 2), (3, 5), (0, 100), (1, 100), (3, 100)}
    assert H.n == 7 and dict(zip(ids.tolist(), H.vertex_labels.tolist()))[100] == 1
    assert (d1.positive, d2.positive) == (2, 2)      # triangles 0-1-2, then 0-1-100 (labels 0, 0, 1), both ways
    assert (d1.stats["inserted"], d1.stats["ignored_duplicates"]) == (3, 1)
    assert (d2.stats["inserted"], d2.stats["deleted"], d2.stats["ignored_duplicates"],
            d2.stats["ignored_missing_deletes"]) == (3, 1, 1, 1)
    assert (d3.stats["inserted"], d3.stats["deleted"], d3.stats["ignored_existing_inserts"]) == (0, 1, 1)
    g1 = d1.graph
    assert {(int(g1.ids[u]), int(g1.ids[v])) if g1.ids is not None else (u, v) for u, v in _edge_set(g1)} == \
        {(0, 1), (1, 2), (0, 2), (3, 4), (3, 5), (4, 5)}
