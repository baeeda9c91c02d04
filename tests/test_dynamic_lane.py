"""The small-batch lane (la_gpm/dynamic/lane.py): one batch of one query in one numba call.

It must be invisible but for its speed: counts equal brute force and the general path (the lane turned off
with ``config.dynamic_lane_max = 0``), the stats carry the same counts, the graph, the store and the
candidate tables after every batch are the same, and whatever it cannot finish (new vertices, bad input,
``strict=True`` with an update to drop, a full arc buffer, enough work for the parallel search) goes to the
general path with nothing changed.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import Graph, InvalidUpdate, Pattern

from .test_dynamic import _edge_set, _fresh_tables, _graph_from_pairs, _oracle, _random_pattern, _same_tables, cases
from .depth import examples

_TIMES = {"seconds", "normalise_s", "union_s", "filter_s", "commit_s", "items_s", "search_s", "lane", "shortcut",
          "parallel_after_serial"}   # (not a count: which drive searched, test_dynamic_escape)


@pytest.fixture(autouse=True)
def _serial_search():
    """Searches small enough for the lane (the other dynamic tests set parallel_min = 1: every search is then
    'heavy' and goes back to the general path)."""
    with la_gpm.config.set(parallel_min=10**9):
        yield


def _counts_of(stats, per_update=False):
    """The stats but the times; a batch applied one update at a time (``per_update``, dynamic/micro.py) has
    per-update work items, so its item counts are not the batch's."""
    drop = _TIMES | ({"items", "per_update"} if per_update else set())
    return {k: v for k, v in stats.items() if k not in drop}


@st.composite
def streams(draw):
    """(G, query, induced, count, batches of (insert, delete) and whether they go as numpy arrays)."""
    n = draw(st.integers(4, 9))
    nl = draw(st.sampled_from([0, 2, 3]))
    vlab = [draw(st.integers(0, nl - 1)) for _ in range(n)] if nl else None
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    present = [p for p in pairs if draw(st.integers(0, 2)) > 0]
    G = _graph_from_pairs(n, present, vlab)
    P = _random_pattern(draw, kmax=min(5, n), labels=nl if nl and draw(st.booleans()) else 0)
    induced = draw(st.booleans())
    count = draw(st.sampled_from(["embeddings", "unique"]))
    model = set(present)
    batches = []
    for _ in range(draw(st.integers(1, 6))):
        v = st.integers(0, n - 1)
        ins = draw(st.lists(st.tuples(v, v), max_size=8))
        dele = draw(st.lists(st.sampled_from(sorted(model)) if model and draw(st.booleans()) else st.tuples(v, v),
                             max_size=6))
        if ins and draw(st.booleans()):
            ins.append(ins[0])                                   # a duplicate
        if ins and dele and draw(st.integers(0, 3)) == 0:
            dele.append(ins[0])                                  # both inserted and deleted
        batches.append((ins, dele, draw(st.booleans())))
        i2 = {(min(a, b), max(a, b)) for a, b in ins if a != b}
        d2 = {(min(a, b), max(a, b)) for a, b in dele if a != b}
        model = (model - (d2 - i2)) | (i2 - d2)
    return G, P, induced, count, batches


def _as(rows, arrays):
    return np.asarray(rows, dtype=np.int64).reshape(-1, 2) if arrays else rows


@settings(max_examples=examples(160), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(), st.booleans(), st.sampled_from([2, 256]), st.sampled_from([0, 2, 8]))
def test_lane_streams_equal_brute_force_and_the_general_path(case, keep, split, per_update):
    """(split 2: hub items split into pieces of two neighbours; more items than the lane takes then go back;
    per_update: batches with at most this many relevant updates go one update at a time, 0: none do)"""
    with la_gpm.config.set(dynamic_split=split, dynamic_per_update_max=per_update):
        _stream_case(case, keep)


def _stream_case(case, keep):
    G, P, induced, count, batches = case
    fast = la_gpm.DynamicGraph(G, [P], induced=induced, count=count, keep_graph=keep)
    with la_gpm.config.set(dynamic_lane_max=0):
        slow = la_gpm.DynamicGraph(G, [P], induced=induced, count=count, keep_graph=keep)
    aut = P.automorphism_count if count == "unique" else 1
    cur = G
    for ins, dele, arrays in batches:
        a, = fast.apply(insert=_as(ins, arrays), delete=_as(dele, arrays))
        with la_gpm.config.set(dynamic_lane_max=0):
            b, = slow.apply(insert=_as(ins, arrays), delete=_as(dele, arrays))
        assert "lane" not in b.stats
        pos, neg, after = _oracle(cur, P, ins, dele, induced)
        assert (a.positive * aut, a.negative * aut) == (len(pos), len(neg)), (P, ins, dele, induced)
        assert (a.positive, a.negative) == (b.positive, b.negative)
        seq = bool(a.stats.get("per_update"))
        assert _counts_of(a.stats, seq) == _counts_of(b.stats, seq)
        if keep:
            assert _edge_set(a.graph) == _edge_set(b.graph) == _edge_set(after)
        cur = after
    assert fast.version == slow.version == len(batches)
    if keep:
        _same_tables(fast, fast.graph)
    else:
        for x, y in zip(fast._nlf.ct, slow._nlf.ct):
            assert np.array_equal(x, y)
        for x, y in zip(fast._nlf.cand, slow._nlf.cand):
            assert np.array_equal(x.ptr, y.ptr) and np.array_equal(x.idx, y.idx)


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_lane_match_delta_equals_brute_force_and_puts_the_graph_back(case):
    G, P, insert, delete, induced, _ = case
    pos, neg, after = _oracle(G, P, insert, delete, induced)
    indptr, indices = G.indptr.copy(), G.indices.copy()
    for _ in range(2):   # the second call runs on the store the first put back
        d = la_gpm.match_delta(G, P, insert=insert, delete=delete, induced=induced)
        assert (d.positive, d.negative) == (len(pos), len(neg)), (P, insert, delete, induced)
        assert _edge_set(d.graph) == _edge_set(after)
        assert np.array_equal(G.indptr, indptr) and np.array_equal(G.indices, indices)


def test_a_plain_small_batch_takes_the_lane_and_the_rest_do_not():
    rng = np.random.default_rng(3)
    n = 40
    E = sorted({(min(u, v), max(u, v)) for u, v in rng.integers(0, n, size=(150, 2)).tolist() if u != v})
    G = _graph_from_pairs(n, E, vlab=rng.integers(0, 3, n).tolist())
    P = Pattern([(0, 1), (1, 2), (2, 0)], vertex_labels=[0, 1, 2])
    absent = [(u, v) for u in range(n) for v in range(u + 1, n) if (u, v) not in set(E)]
    D = la_gpm.DynamicGraph(G, [P])
    d, = D.apply(insert=np.array(absent[:5]), delete=[E[0]])
    assert d.stats["lane"] and d.stats["inserted"] == 5 and d.stats["deleted"] == 1
    assert "lane" in la_gpm.match_delta(G, P, insert=absent[:3]).stats
    # a new vertex, edge labels, listing, two queries, the lane turned off: the general path
    assert "lane" not in D.apply(insert=[(0, n)], labels={n: 1})[0].stats
    assert "lane" not in D.apply(insert=[absent[7]], listing=True)[0].stats
    assert "lane" not in la_gpm.DynamicGraph(G, [P, "triangle"]).apply(insert=[absent[8]])[0].stats
    with la_gpm.config.set(dynamic_lane_max=0):
        assert "lane" not in D.apply(insert=[absent[9]])[0].stats
    Ge = _graph_from_pairs(n, E, elab=rng.integers(0, 2, len(E)))
    assert "lane" not in la_gpm.match_delta(Ge, "triangle", insert=[(*absent[0], 1)]).stats
    # enough work for the parallel search: the lane puts everything back and the general path searches
    with la_gpm.config.set(parallel_min=1):
        before = set(_edge_set(D.graph))
        d, = D.apply(insert=[absent[10]], delete=[E[1]])
        assert "lane" not in d.stats
        assert set(_edge_set(D.graph)) == (before | {absent[10]}) - {E[1]}
    _same_tables(D, D.graph)


def test_strict_and_bad_input_leave_everything_as_it_was():
    G = _graph_from_pairs(5, [(0, 1), (1, 2), (2, 3)])
    for keep in (True, False):
        D = la_gpm.DynamicGraph(G, ["triangle"], keep_graph=keep)
        for ins, dele in (([(0, 1)], None), ([(0, 2), (2, 0)], None), (None, [(0, 4)]), ([(3, 3)], None)):
            with pytest.raises(InvalidUpdate, match="strict=True"):
                D.apply(insert=ins, delete=dele, strict=True)
        with pytest.raises(InvalidUpdate, match="vertex ids must be >= 0"):
            D.apply(insert=np.array([[0, -1]]))
        with pytest.raises(InvalidUpdate, match="does not have"):
            D.apply(delete=np.array([[0, 9]]))
        assert D.version == 0
        d, = D.apply(insert=[(0, 2)], strict=True)
        assert (d.positive, d.negative) == (6, 0) and d.stats["lane"]
        if keep:
            assert _edge_set(D.graph) == _edge_set(_graph_from_pairs(5, [(0, 1), (1, 2), (2, 3), (0, 2)]))


def test_a_long_stream_grows_and_compacts_the_buffer_between_lane_batches(monkeypatch):
    """The lane leaves a batch that does not fit the arc buffer to the general path (which grows or
    compacts it); counts stay those of brute force and every version stays readable."""
    rng = np.random.default_rng(11)
    n = 16
    E = sorted({(min(u, v), max(u, v)) for u, v in rng.integers(0, n, size=(40, 2)).tolist() if u != v})
    G = _graph_from_pairs(n, E)
    P = Pattern([(0, 1), (1, 2), (2, 3), (3, 0)])
    monkeypatch.setattr(la_gpm.config, "dynamic_room", 64)    # a buffer this small graph outgrows
    D = la_gpm.DynamicGraph(G, [P])
    model, kept, lanes = _edge_set(G), [], 0
    for step in range(160):
        ins = [tuple(x) for x in rng.integers(0, n, size=(4, 2)).tolist()]
        present = sorted(model)
        dele = [present[t] for t in rng.choice(len(present), size=min(3, len(present)), replace=False)]
        cur = _graph_from_pairs(n, sorted(model))
        pos, neg, after = _oracle(cur, P, ins, dele, False)
        d, = D.apply(insert=np.array(ins), delete=np.array(dele))
        assert (d.positive, d.negative) == (len(pos), len(neg)), step
        lanes += bool(d.stats.get("lane"))
        model = _edge_set(after)
        kept.append((d, model))
    S = D._store
    assert S.compactions >= 1 and lanes >= 140, (S.compactions, lanes)
    for d, m in kept:
        assert _edge_set(d.graph) == m
    _same_tables(D, D.graph)


def test_batches_with_few_relevant_updates_go_one_update_at_a_time():
    """dynamic/micro.py: a committed lane batch with at most config.dynamic_per_update_max relevant updates is
    applied one update at a time (deletes first); an induced query only when the batch has one net update (an
    induced match may appear and vanish within a batch's inserts).  Counts are brute force's either way."""
    rng = np.random.default_rng(5)
    n = 30
    E = sorted({(min(u, v), max(u, v)) for u, v in rng.integers(0, n, size=(120, 2)).tolist() if u != v})
    G = _graph_from_pairs(n, E)
    absent = [(u, v) for u in range(n) for v in range(u + 1, n) if (u, v) not in set(E)]
    P = Pattern([(0, 1), (1, 2), (2, 0), (2, 3)])
    C4 = Pattern([(0, 1), (1, 2), (2, 3), (3, 0)])       # no triangle tail (query.F_TRI): micro.MICRO_MAX holds
    F = Pattern([(0, 1), (1, 2), (2, 3), (3, 4), (2, 4)])   # a tail on a vertex two levels from the update
    for induced, ins, dele, seq, Q in ((False, absent[:3], E[:2], True, P), (True, absent[3:5], [], False, P),
                                       (True, absent[5:6], [], True, P), (True, [], E[2:3], True, P),
                                       (False, absent[6:23], [], False, C4),   # 17 relevant: the batch path
                                       (False, absent[6:23], [], True, P),     # ... not a tail's (MICRO_TRI)
                                       (False, absent[6:23], [], True, F)):
        P = Q
        D = la_gpm.DynamicGraph(G, [P], induced=induced)
        d, = D.apply(insert=ins, delete=dele)
        pos, neg, after = _oracle(G, P, ins, dele, induced)
        assert (d.positive, d.negative) == (len(pos), len(neg))
        assert d.stats["lane"] and bool(d.stats.get("per_update")) == seq, (induced, ins, dele)
        assert _edge_set(D.graph) == _edge_set(after)
        _same_tables(D, D.graph)
        with la_gpm.config.set(dynamic_per_update_max=0):
            D = la_gpm.DynamicGraph(G, [P], induced=induced)
            d, = D.apply(insert=ins, delete=dele)
            assert "per_update" not in d.stats and (d.positive, d.negative) == (len(pos), len(neg))
    with pytest.raises(la_gpm.InvalidArgument, match="dynamic_per_update_max"):
        with la_gpm.config.set(dynamic_per_update_max=33):
            pass
    assert la_gpm.config.dynamic_per_update_max == 16


_TREES = [Pattern([(0, 1), (1, 2), (2, 3)]),                                    # path: leaf below a leaf's parent
          Pattern([(0, 1), (0, 2), (0, 3)]),                                    # star: two leaves of one parent
          Pattern([(0, 1), (1, 2), (1, 3)], vertex_labels=[1, 0, 0, 1]),        # yeast tree4's shape and labels
          Pattern([(0, 1), (0, 2), (0, 3)], vertex_labels=[0, 1, 0, 1]),        # leaves of two labels
          Pattern([(0, 1), (1, 2), (2, 3), (2, 4)], vertex_labels=[0, 0, 1, 0, 0]),
          Pattern([(0, 1), (1, 2), (2, 0), (2, 3)], vertex_labels=[0, 0, 1, 0]),  # a leaf on a triangle
          Pattern([(0, 1), (1, 2), (2, 3), (3, 4)])]


@pytest.mark.parametrize("P", _TREES, ids=lambda P: f"k{P.k}e{P.num_edges}{'L' if P.vertex_labels else ''}")
def test_leaves_counted_from_label_counts_in_the_per_update_path(P):
    """cpu._leaf: in the per-update path a leaf level (one parent, no bound) is counted as the parent's neighbours
    of its label, less the update's own arc and the mapped vertices adjacent to the parent; two leaf levels at the
    end from their two counts.  Streams of small batches on a dense two-label graph (every update touches a leaf's
    parent and most leaves' labels), against brute force batch by batch and against the batch path."""
    rng = np.random.default_rng(P.k + P.num_edges)
    n = 13
    E = sorted({(min(u, v), max(u, v)) for u, v in rng.integers(0, n, size=(40, 2)).tolist() if u != v})
    lab = [int(x) for x in rng.integers(0, 2, n)]
    G = _graph_from_pairs(n, E, lab)
    for keep, count in ((False, "embeddings"), (True, "unique")):
        aut = P.automorphism_count if count == "unique" else 1
        D = la_gpm.DynamicGraph(G, [P], count=count, keep_graph=keep)
        with la_gpm.config.set(dynamic_per_update_max=0):
            B = la_gpm.DynamicGraph(G, [P], count=count, keep_graph=keep)
        model = set(E)
        cur = G
        seen = 0
        for b in range(10):
            absent = sorted({(u, v) for u in range(n) for v in range(u + 1, n)} - model)
            ins = [absent[i] for i in rng.choice(len(absent), int(rng.integers(0, 3)), replace=False)]
            have = sorted(model)
            dele = [have[i] for i in rng.choice(len(have), int(rng.integers(0, 3)), replace=False)]
            d, = D.apply(insert=ins, delete=dele)
            with la_gpm.config.set(dynamic_per_update_max=0):
                e, = B.apply(insert=ins, delete=dele)
            pos, neg, after = _oracle(cur, P, ins, dele, False)
            assert (d.positive * aut, d.negative * aut) == (len(pos), len(neg)), (b, ins, dele)
            assert (e.positive, e.negative) == (d.positive, d.negative)
            seen += bool(d.stats.get("per_update")) and bool(len(pos) + len(neg))
            model = (model - set(dele)) | set(ins)
            cur = after
        assert seen >= 1      # the per-update path ran, and found matches


def test_plans_are_the_same_whichever_path_compiles_them_first():
    """A plan's level order depends on the candidate counts (query.compile_delta_plan): a DynamicGraph compiles its
    plans from the counts of the graph it was given, so the lane and the general path, whichever compiles first and
    after however many batches, search the same items (hypothesis found split items counted 3 against 4 when each
    path had compiled its plan after different batches)."""
    G = Graph.from_edges([3, 4], [4, 5], n=6, vertex_labels=[1, 0, 0, 0, 0, 1])
    P = Pattern([(0, 1), (0, 2), (0, 3), (1, 4)], vertex_labels=[0, 1, 0, 1, 1])
    with la_gpm.config.set(dynamic_split=2, dynamic_per_update_max=0):
        for keep in (False, True):
            fast = la_gpm.DynamicGraph(G, [P], keep_graph=keep)
            with la_gpm.config.set(dynamic_lane_max=0):
                slow = la_gpm.DynamicGraph(G, [P], keep_graph=keep)
            for ins in ([(0, 5)], [], [(0, 4)]):
                a, = fast.apply(insert=ins)
                with la_gpm.config.set(dynamic_lane_max=0):
                    b, = slow.apply(insert=ins)
                assert a.stats["items"] == b.stats["items"] and (a.positive, a.negative) == (b.positive, b.negative)
            assert a.stats["lane"] and "lane" not in b.stats and a.stats["items"]["positive"] > 0
            assert np.array_equal(fast._plans[(0, "orbits")].order, slow._plans[(0, "orbits")].order)


@pytest.mark.parametrize("per_update", [0, 8])
@pytest.mark.parametrize("induced", [False, True])
def test_whole_graph_keeps_the_updates_no_query_can_use_aside(per_update, induced):
    """The whole-graph mode with a labelled query (dynamic/aside.py): the updates no query can use are logged aside,
    never searched, from the lane's per-update path (per_update 8) and its batch path (per_update 0) as from the
    general path.  Every batch's counts equal brute force and its stats the general path's (repeats, existing
    inserts, missing deletes and pairs both inserted and deleted among those updates too); every version read at
    the end is the graph after its batch (the store's commit log and the log aside); the tables equal a rebuild."""
    rng = np.random.default_rng(7 + per_update + induced)
    n = 12
    vlab = rng.integers(0, 4, n).tolist()
    E = sorted({(min(u, v), max(u, v)) for u, v in rng.integers(0, n, size=(30, 2)).tolist() if u != v})
    G = _graph_from_pairs(n, E, vlab)
    P = Pattern([(0, 1), (1, 2), (2, 0), (2, 3)], vertex_labels=[0, 0, 1, 2])
    rel = {(0, 0), (0, 1), (1, 2)} if not induced else {(0, 0), (0, 1), (0, 2), (1, 2)}
    with la_gpm.config.set(dynamic_per_update_max=per_update):
        D = la_gpm.DynamicGraph(G, [P], induced=induced)
        with la_gpm.config.set(dynamic_lane_max=0):
            slow = la_gpm.DynamicGraph(G, [P], induced=induced)
        model, kept, lanes, aside = _edge_set(G), [], 0, 0
        for step in range(50):
            ins = [tuple(x) for x in rng.integers(0, n, size=(5, 2)).tolist()]
            present = sorted(model)
            dele = [present[t] for t in rng.choice(len(present), size=min(3, len(present)), replace=False)]
            dele.append(tuple(rng.integers(0, n, size=2).tolist()))     # often a missing edge
            if step % 3 == 0:
                ins.append(ins[0])                                     # a repeat
            if step % 5 == 0:
                dele.append(ins[1])                                    # both inserted and deleted
            cur = _graph_from_pairs(n, sorted(model), vlab)
            pos, neg, after = _oracle(cur, P, ins, dele, induced)
            a, = D.apply(insert=np.array(ins), delete=np.array(dele))
            with la_gpm.config.set(dynamic_lane_max=0):
                b, = slow.apply(insert=np.array(ins), delete=np.array(dele))
            assert (a.positive, a.negative) == (len(pos), len(neg)) == (b.positive, b.negative), step
            seq = bool(a.stats.get("per_update"))
            assert _counts_of(a.stats, seq) == _counts_of(b.stats, seq), step
            lanes += bool(a.stats.get("lane"))
            aside += sum(1 for x, y in ins + dele if x != y and tuple(sorted((vlab[x], vlab[y]))) not in rel)
            model = _edge_set(after)
            kept.append((a, model))
    assert lanes >= 45 and aside >= 150, (lanes, aside)
    for d, m in kept:
        assert _edge_set(d.graph) == m
    _same_tables(D, D.graph)
    fresh = _fresh_tables(D, D.graph)   # the counts under the bits (of the relevant edges: filter.NLFState)
    assert np.array_equal(fresh.deg, D._nlf.deg[:n]) and np.array_equal(fresh.N, D._nlf.N[:n])


def test_strict_refuses_a_repeat_no_query_can_use_in_the_whole_graph():
    """strict=True covers every update of the whole-graph mode, those no query can use included (query views
    cover the relevant ones only: the whole graph checks those kept aside before anything changes, on the general
    path), and leaves the graph as it was."""
    G = _graph_from_pairs(6, [(0, 1), (1, 2), (2, 0), (3, 4)], [0, 0, 1, 2, 2, 2])
    P = Pattern([(0, 1), (1, 2), (2, 0)], vertex_labels=[0, 0, 1])
    D = la_gpm.DynamicGraph(G, [P])
    for ins, dele in (([(3, 5), (5, 3)], None), ([(3, 4)], None), (None, [(3, 5)]), ([(4, 5)], [(4, 5)])):
        with pytest.raises(InvalidUpdate, match="strict=True"):
            D.apply(insert=ins, delete=dele, strict=True)
        assert D.version == 0 and _edge_set(D.graph) == _edge_set(G)
    d, = D.apply(insert=[(3, 5), (0, 3)], delete=[(3, 4)], strict=True)
    assert (d.positive, d.negative, d.stats["inserted"], d.stats["deleted"]) == (0, 0, 2, 1)
    assert _edge_set(D.graph) == _edge_set(_graph_from_pairs(6, [(0, 1), (1, 2), (2, 0), (3, 5), (0, 3)]))


@pytest.mark.parametrize("lane_max, heavy", [(4096, False), (8, False), (4096, True)])
@pytest.mark.parametrize("induced", [False, True])
def test_match_delta_leaves_the_updates_no_query_can_use_out_of_its_search(induced, lane_max, heavy):
    """match_delta's lane searches only the updates some query edge (induced: some pair of query vertices) can
    use, and counts the others when its stats are first read (aside.irrelevant_counts): counts equal brute force,
    stats equal the general path's (repeats, existing inserts, missing deletes, pairs both inserted and deleted
    among those updates too), also when the caller's arrays change before the stats are read.  The lane's limit
    (``lane_max``) counts the relevant updates only: a larger batch with few of them still takes it.  A lane batch
    whose search is for the parallel drive (``heavy``: parallel_min 1) goes to the general path with its relevant
    updates only, its stats completed the same way."""
    rng = np.random.default_rng(3 + induced)
    n = 12
    vlab = rng.integers(0, 4, n).tolist()
    E = sorted({(min(u, v), max(u, v)) for u, v in rng.integers(0, n, size=(55, 2)).tolist() if u != v})
    G = _graph_from_pairs(n, E, vlab)
    P = Pattern([(0, 1), (1, 2), (2, 0), (2, 3)], vertex_labels=[0, 0, 1, 2])
    seen = lanes = 0
    rel = {(0, 0), (0, 1), (1, 2)} if not induced else {(0, 0), (0, 1), (0, 2), (1, 2)}
    for step in range(30):
        ins = rng.integers(0, n, size=(8, 2))
        present = sorted(_edge_set(G))
        dele = np.array([present[t] for t in rng.choice(len(present), size=4, replace=False)]
                        + [tuple(rng.integers(0, n, size=2).tolist())], dtype=np.int64)
        ins = np.concatenate([ins, ins[:1], dele[:1]]) if step % 2 else ins      # a repeat, a pair both ways
        pos, neg, after = _oracle(G, P, ins.tolist(), dele.tolist(), induced)
        relevant = sum(1 for x, y in ins.tolist() + dele.tolist()
                       if x == y or tuple(sorted((vlab[x], vlab[y]))) in rel)
        with la_gpm.config.set(dynamic_lane_max=lane_max, parallel_min=1 if heavy else 10**9):
            a = la_gpm.match_delta(G, P, insert=ins, delete=dele, induced=induced)
        with la_gpm.config.set(dynamic_lane_max=0):
            b = la_gpm.match_delta(G, P, insert=ins, delete=dele, induced=induced)
        assert (a.positive, a.negative) == (len(pos), len(neg)) == (b.positive, b.negative), step
        seen += callable(a._stats)                             # completed when first read (below)
        ins[:] = 0                                             # the stats read the batch as it was given
        dele[:] = 1
        if not heavy:
            assert bool(a.stats.get("lane")) == (relevant <= lane_max), (step, relevant)
        lanes += relevant <= lane_max < len(ins) + len(dele) if not heavy else "union_s" in a.stats
        assert "lane" not in b.stats
        assert _counts_of(a.stats, True) == _counts_of(b.stats, True), step
        assert _edge_set(a.graph) == _edge_set(after)
    assert seen >= (25 if lane_max > 100 else 5), seen
    if lane_max < 100 or (heavy and not induced):   # (the induced batches here give the lane no work to hand over)
        assert lanes >= 5, lanes
    with pytest.raises(InvalidUpdate, match="strict=True"):       # every update is checked under strict
        la_gpm.match_delta(G, P, insert=[(9, 10), (10, 9)], strict=True)
