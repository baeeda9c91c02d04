"""``DynamicGraph.apply_stream``: a whole stream of batches, the lane looping over them in one numba call.

Its results must be those of calling ``apply`` on each batch in turn -- counts, stats, the graph, the store
and the candidate tables after the stream -- whatever the input form (a stream file, an array of signed
updates, an iterable of batches), and whichever batches the lane hands back to the general path in the
middle of a run (new vertices, bad or strict input, enough work for the parallel search, a full arc buffer,
which a run compacts itself).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import InvalidArgument, InvalidUpdate, Pattern

from .test_dynamic import _edge_set, _graph_from_pairs, _oracle, _same_tables
from .test_dynamic_lane import _as, streams
from .depth import examples


@pytest.fixture(autouse=True)
def _serial_search():
    with la_gpm.config.set(parallel_min=10**9):
        yield


def _loop(D, batches, **kw):
    """The reference: apply per batch -> columns as apply_stream gives them."""
    rows = []
    for b, (ins, dele) in enumerate(batches):
        for q, d in enumerate(D.apply(insert=ins, delete=dele, **kw)):
            s = d.stats
            rows.append((b, q, d.positive, d.negative, s["inserted"], s["deleted"],
                         s["ignored_self_loops"] + s["ignored_duplicates"] + s["ignored_insert_and_delete"]
                         + s["ignored_existing_inserts"] + s["ignored_missing_deletes"], s.get("irrelevant", 0),
                         s["items"]["positive"] + s["items"]["negative"]))
    return rows


def _rows(r):
    return list(zip(r.batch.tolist(), r.query.tolist(), r.positive.tolist(), r.negative.tolist(),
                    r.inserted.tolist(), r.deleted.tolist(), r.ignored.tolist(), r.irrelevant.tolist(),
                    r.items.tolist()))


def _same_state(A, B, keep):
    assert A.version == B.version
    if keep:
        assert _edge_set(A.graph) == _edge_set(B.graph)
        _same_tables(A, A.graph)
    for x, y in zip(A._nlf.ct, B._nlf.ct):
        assert np.array_equal(x, y)
    for x, y in zip(A._nlf.cand, B._nlf.cand):
        assert np.array_equal(x.ptr, y.ptr) and np.array_equal(x.idx, y.idx)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(), st.booleans(), st.sampled_from(["list", "array", "dict"]))
def test_a_stream_equals_apply_per_batch_and_brute_force(case, keep, form):
    G, P, induced, count, batches = case
    raw = [(_as(i, a), _as(d, a)) for i, d, a in batches]
    A = la_gpm.DynamicGraph(G, [P], induced=induced, count=count, keep_graph=keep)
    B = la_gpm.DynamicGraph(G, [P], induced=induced, count=count, keep_graph=keep)
    if form == "array":      # one signed-update array cut by batch_size: only batches of equal size
        size = 3
        ops = []
        for ins, dele, _ in batches:
            ops += [(1, u, v) for u, v in ins] + [(-1, u, v) for u, v in dele]
        arr = np.array(ops, dtype=np.int64).reshape(-1, 3)
        raw = []
        for b in range(max(1, -(-len(ops) // size))):
            part = arr[b * size:(b + 1) * size]
            raw.append((part[part[:, 0] == 1, 1:], part[part[:, 0] == -1, 1:]))
        r = A.apply_stream(arr, batch_size=size)
    elif form == "dict":
        r = A.apply_stream({"insert": i, "delete": d} for i, d in raw)
    else:
        r = A.apply_stream(raw)
    want = _loop(B, raw)
    assert _rows(r) == want
    assert r.batches == len(raw) and len(r) == len(raw)
    # brute force on the graphs the stream goes through
    aut = P.automorphism_count if count == "unique" else 1
    cur = G
    for b, (ins, dele) in enumerate(raw):
        pos, neg, cur = _oracle(cur, P, np.asarray(ins).reshape(-1, 2).tolist(),
                                np.asarray(dele).reshape(-1, 2).tolist(), induced)
        assert (r.positive[b] * aut, r.negative[b] * aut) == (len(pos), len(neg))
    _same_state(A, B, keep)
    if keep:
        assert _edge_set(A.graph) == _edge_set(cur)


def test_batches_the_lane_hands_back_run_in_their_turn():
    """New vertices, a parallel-size search, a full buffer, labelled pairs: the general path, in order."""
    rng = np.random.default_rng(4)
    n = 30
    E = sorted({(min(u, v), max(u, v)) for u, v in rng.integers(0, n, size=(90, 2)).tolist() if u != v})
    G = _graph_from_pairs(n, E, vlab=rng.integers(0, 2, n).tolist())
    P = Pattern([(0, 1), (1, 2), (2, 0)], vertex_labels=[0, 0, 1])
    absent = [(u, v) for u in range(n) for v in range(u + 1, n) if (u, v) not in set(E)]
    batches = [(absent[0:3], [E[0]]), ([(0, n)], None), (absent[3:6], [E[1], E[2]]),
               ([(1, n + 1), (n, n + 1)], [E[3]]), (np.array(absent[6:9]), None)]
    labels = {n: 0, n + 1: 1}
    A = la_gpm.DynamicGraph(G, [P])
    B = la_gpm.DynamicGraph(G, [P])
    r = A.apply_stream(batches, labels=labels)
    assert _rows(r) == _loop(B, batches, labels=labels)
    assert r.lane.tolist() == [True, False, True, False, True] and r.lane_batches == 3
    _same_state(A, B, True)
    # enough work for the parallel search: the lane gives the batch back, the general path searches it
    with la_gpm.config.set(parallel_min=1):
        more = [(absent[10:12], None), (absent[12:14], [E[4]])]
        r = A.apply_stream(more)
        assert not r.lane.any()
        assert _rows(r) == [(b + 0, *x[1:]) for b, x in enumerate(_loop(B, more))]
    _same_state(A, B, True)


def _signed(batches):
    """Batches of equal size as one signed-update array (a batch's order does not matter: its net effect)."""
    ops = []
    for ins, dele in batches:
        ops += [(1, int(u), int(v)) for u, v in np.asarray(ins).reshape(-1, 2)]
        ops += [(-1, int(u), int(v)) for u, v in np.asarray(dele).reshape(-1, 2)]
    return np.array(ops, dtype=np.int64).reshape(-1, 3)


def test_an_array_stream_goes_on_after_the_batches_the_lane_hands_back():
    """An array stream runs packed, searched and tabulated in one numba call (lane.bound_run); a batch it hands
    back (a new vertex, a parallel-size search) goes through the general path and the run goes on after it."""
    rng = np.random.default_rng(5)
    n = 30
    E = sorted({(min(u, v), max(u, v)) for u, v in rng.integers(0, n, size=(90, 2)).tolist() if u != v})
    G = _graph_from_pairs(n, E, vlab=rng.integers(0, 2, n).tolist())
    P = Pattern([(0, 1), (1, 2), (2, 0)], vertex_labels=[0, 0, 1])
    absent = [(u, v) for u in range(n) for v in range(u + 1, n) if (u, v) not in set(E)]
    batches = [(absent[0:3], [E[0]]), ([(0, n), absent[3], absent[4]], [E[1]]), (absent[5:8], [E[2]]),
               ([(1, n + 1), (n, n + 1), absent[8]], [E[3]]), (absent[9:12], [E[4]]), (absent[12:15], [E[5]])]
    labels = {n: 0, n + 1: 1}
    for keep in (True, False):
        A = la_gpm.DynamicGraph(G, [P], keep_graph=keep)
        B = la_gpm.DynamicGraph(G, [P], keep_graph=keep)
        r = A.apply_stream(_signed(batches), batch_size=4, labels=labels)
        assert _rows(r) == _loop(B, batches, labels=labels)
        assert r.lane.tolist() == [True, False, True, False, True, True] and r.lane_batches == 4
        _same_state(A, B, keep)
        with la_gpm.config.set(parallel_min=1):     # enough work for the parallel search: handed back
            more = [(absent[20:22], [E[6]]), (absent[22:24], [E[7]])]
            r = A.apply_stream(_signed(more), batch_size=3)
            assert not r.lane.any()
            assert _rows(r) == [(b + 0, *x[1:]) for b, x in enumerate(_loop(B, more))]
        _same_state(A, B, keep)


@pytest.mark.parametrize("keep", [True, False])
def test_kept_stream_arguments_follow_every_change(keep, monkeypatch):
    """Array streams keep _stream's arguments between calls (DynamicGraph._stream_whole, lane.stream_args): many
    short streams on one graph -- compacting the arc buffer and changing the candidate lists within them, with a
    batch applied, a new vertex handed to the general path and a configuration change between them -- give apply's
    counts batch by batch and its store and tables; the arguments were made by the constructor, kept across calls
    and the lane's batches, and made again after the general path and the configuration change."""
    from la_gpm.dynamic import lane
    rng = np.random.default_rng(23)
    n = 24
    E = sorted({(min(u, v), max(u, v)) for u, v in rng.integers(0, n, size=(70, 2)).tolist() if u != v})
    vlab = rng.integers(0, 2, n).tolist()
    G = _graph_from_pairs(n, E, vlab=vlab)
    P = Pattern([(0, 1), (1, 2), (2, 0), (2, 3)], vertex_labels=[0, 0, 1, 0])
    binds = []
    real = lane.stream_args
    monkeypatch.setattr(lane, "stream_args", lambda *a, **kw: binds.append(1) or real(*a, **kw))
    with la_gpm.config.set(dynamic_room=64):      # buffers this graph fills: runs compact them
        A = la_gpm.DynamicGraph(G, [P], keep_graph=keep)
        B = la_gpm.DynamicGraph(G, [P], keep_graph=keep)
    model, nv, calls = set(E), n, 0
    for chunk in range(15):
        batches = []
        for _ in range(8):      # (session 30: streams edit rows in place, so more batches to fill the buffer twice)
            ins = [tuple(int(x) for x in rng.integers(0, nv, 2)) for _ in range(3)]
            if chunk in (4, 9) and not batches:
                ins[0] = (0, nv)                 # a new vertex: the stream hands this batch to the general path
            present = sorted(model)
            dele = [present[t] for t in rng.choice(len(present), size=2, replace=False)]
            batches.append((ins, dele))
            i2 = {(min(u, v), max(u, v)) for u, v in ins if u != v}
            model = (model - ({(min(u, v), max(u, v)) for u, v in dele} - i2)) | i2
        labels = {nv: 0} if chunk in (4, 9) else None
        if chunk in (4, 9):
            nv += 1
        if chunk % 5 == 2:                       # one batch by apply between two streams
            assert _rows_of(A.apply(insert=batches[0][0], delete=batches[0][1])) == _loop(B, batches[:1])[0][2:4]
            batches = batches[1:]
        if chunk == 11:                          # a new vertex by apply: the general path
            one = [([(1, nv), (2, nv)], [])]
            assert _rows_of(A.apply(insert=one[0][0], labels={nv: 1})) == _loop(B, one, labels={nv: 1})[0][2:4]
            model |= {(1, nv), (2, nv)}
            nv += 1
        if chunk == 13:                          # a stream of batches, not an array: the lane's packed runs
            r = A.apply_stream(batches)
            assert _rows(r) == _loop(B, batches), chunk
            continue
        ops = _signed(batches)
        size = len(batches[0][0]) + len(batches[0][1])
        if chunk == 7:      # a configuration change builds the arguments again (no per-update path: other items)
            with la_gpm.config.set(dynamic_per_update_max=0):
                r = A.apply_stream(ops, batch_size=size, labels=labels)
                want = _loop(B, batches, labels=labels)
        else:
            r = A.apply_stream(ops, batch_size=size, labels=labels)
            want = _loop(B, batches, labels=labels)
        calls += 1
        assert _rows(r) == want, chunk
    _same_state(A, B, keep)
    assert A._store.compactions >= 2
    # A and B built; then again: the first stream (leaving config.set(dynamic_room) moved the version), after each
    # new vertex (the general path: twice in a stream, once by apply), in and after the configuration change, after
    # the stream of batches
    assert len(binds) == 2 + 1 + 3 + 2 + 1


def _rows_of(deltas):
    return (deltas[0].positive, deltas[0].negative)


@pytest.mark.parametrize("form", ["batches", "array"])
def test_a_long_run_compacts_the_buffer_itself(form):
    rng = np.random.default_rng(11)
    n = 16
    E = sorted({(min(u, v), max(u, v)) for u, v in rng.integers(0, n, size=(40, 2)).tolist() if u != v})
    G = _graph_from_pairs(n, E)
    P = Pattern([(0, 1), (1, 2), (2, 3), (3, 0)])
    model, batches, want = _edge_set(G), [], []
    for _ in range(300):
        ins = [tuple(x) for x in rng.integers(0, n, size=(4, 2)).tolist()]
        present = sorted(model)
        dele = [present[t] for t in rng.choice(len(present), size=min(3, len(present)), replace=False)]
        pos, neg, after = _oracle(_graph_from_pairs(n, sorted(model)), P, ins, dele, False)
        want.append((len(pos), len(neg)))
        batches.append((np.array(ins), np.array(dele)))
        model = _edge_set(after)
    with la_gpm.config.set(dynamic_room=64):      # a buffer this small graph fills within the run
        D = la_gpm.DynamicGraph(G, [P])
    held = D.apply()[0]                     # a snapshot held unbuilt: the run builds it first (settle)
    r = D.apply_stream(batches) if form == "batches" else D.apply_stream(_signed(batches), batch_size=7)
    assert list(zip(r.positive.tolist(), r.negative.tolist())) == want
    assert r.lane.all() and D._store.compactions >= 1
    assert _edge_set(D.graph) == model and _edge_set(held.graph) == _edge_set(G)
    _same_tables(D, D.graph)
    assert r.totals() == (sum(p for p, _ in want), sum(q for _, q in want))
    df = r.to_frame()
    assert list(df.columns)[:4] == ["batch", "query", "positive", "negative"] and len(df) == 300


def test_stream_files_and_arrays_cut_by_batch_size(tmp_path):
    G = _graph_from_pairs(6, [(0, 1), (1, 2), (2, 3), (3, 4)])
    f = tmp_path / "s.txt"
    f.write_text("e 0 2 0\n-e 1 2 0\ne 2 4 0\n# a comment\ne 1 3 0\ne 0 5 0\nv 6 0\ne 5 6 0\n")
    batches = [([(0, 2)], [(1, 2)]), ([(2, 4), (1, 3)], None), ([(0, 5), (5, 6)], None)]
    A = la_gpm.DynamicGraph(G, ["triangle", "4-path"])
    B = la_gpm.DynamicGraph(G, ["triangle", "4-path"])
    r = A.apply_stream(f, batch_size=2)
    assert _rows(r) == _loop(B, batches)
    assert r.batches == 3 and len(r) == 6 and r.query.tolist() == [0, 1] * 3
    one = la_gpm.DynamicGraph(G, ["triangle"])
    r1 = one.apply_stream(np.array([[1, 0, 2], [-1, 1, 2], [1, 2, 4], [1, 1, 3]]))      # one batch
    assert r1.batches == 1 and one.version == 1


def test_overflowing_counts_come_as_python_ints():
    """A lane batch's unique count times |Aut| past int64, and a batch whose item counts overflow an int64 sum
    (I_BIG: the last batch of a run), come back as exact Python ints."""
    from la_gpm.dynamic import engine, lane
    from la_gpm.dynamic.query import compile_delta_plan
    from la_gpm.dynamic.store import DELETED, INSERTED
    from la_gpm.dynamic.stream import COLUMNS

    P = la_gpm.Pattern([(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)])        # K4, |Aut| = 24
    plan = compile_delta_plan(P, induced=False, candidates=np.full(4, 10), symmetry=True)
    v = np.zeros((2, lane.N_INFO), np.int64)
    v[0, lane.I_POS] = 2**62
    v[0, lane.I_NEG] = 3
    v[1, lane.I_BIG] = 1
    items = np.zeros((3, 6), np.int64)
    items[:, 5] = [INSERTED, INSERTED, DELETED]
    counts = np.array([2**62, 2**62, 7], np.int64)

    class Run:
        pass
    run = Run()
    run.items, run.counts = items, counts
    cols = engine._lane_columns(v, 5, run, P, plan, "embeddings")
    assert cols["positive"].tolist() == [24 * 2**62, 24 * 2**63] and cols["negative"].tolist() == [72, 24 * 7]
    assert cols["batch"].tolist() == [5, 6]
    cols = engine._lane_columns(v, 0, run, P, plan, "unique")
    assert cols["positive"].tolist() == [2**62, 2**63]
    r = la_gpm.StreamDelta({c: cols[c] for c in COLUMNS}, 0.0, 2, 2, "unique", False)
    assert r.totals() == (2**62 + 2**63, 3 + 7)


def test_bad_streams_say_what_to_fix_and_keep_the_batches_before():
    G = _graph_from_pairs(5, [(0, 1), (1, 2), (2, 3)])
    D = la_gpm.DynamicGraph(G, ["triangle"])
    with pytest.raises(InvalidArgument, match="batch_size"):
        D.apply_stream(np.array([[1, 0, 2]]), batch_size=0)
    with pytest.raises(InvalidArgument, match="drop batch_size"):
        D.apply_stream([([(0, 2)], None)], batch_size=2)
    with pytest.raises(InvalidUpdate, match="sign"):
        D.apply_stream(np.array([[2, 0, 2]]))
    with pytest.raises(InvalidUpdate, match="row 2 has 0"):       # checked by the lane's packing pass
        D.apply_stream(np.array([[1, 0, 2], [-1, 1, 2], [0, 2, 3]]), batch_size=1)
    D2 = la_gpm.DynamicGraph(G, ["triangle", Pattern([(0, 1), (1, 2)])])    # two queries: no lane, its own check
    with pytest.raises(InvalidUpdate, match="row 1 has 3"):
        D2.apply_stream(np.array([[1, 0, 2], [3, 1, 2]]))
    assert D2.version == 0
    with pytest.raises(InvalidUpdate, match=r"\(m, 3\)"):
        D.apply_stream(np.array([0, 2]))
    with pytest.raises(InvalidUpdate, match="batch 1"):
        D.apply_stream([([(0, 2)], None), 7])
    assert D.version == 0
    with pytest.raises(InvalidUpdate, match="strict=True"):
        D.apply_stream([([(0, 2)], None), ([(0, 2)], None), ([(1, 3)], None)], strict=True)
    assert D.version == 1 and _edge_set(D.graph) == _edge_set(_graph_from_pairs(5, [(0, 1), (1, 2), (2, 3), (0, 2)]))
    with pytest.raises(InvalidUpdate, match="does not have"):
        D.apply_stream([(None, [(0, 9)])])
    assert D.version == 1


def test_long_candidate_lists_left_stale_in_a_run_are_never_scanned_and_rebuilt_after_it():
    """filter.lazy_patch: in a stream run, a candidate list at least as long as every row is never scanned, so the
    run leaves it stale instead of copying it twice a batch; when a row grows past it (a hub forms) the lists are
    rebuilt from the bits before the next search, and the run rebuilds them at its end.  Counts, graph and lists
    equal apply per batch (itself brute force's, above), the stream's net the static recount's."""
    from la_gpm.dynamic import lane
    rng = np.random.default_rng(4)
    n = 120
    E = [(i, (i + 1) % n) for i in range(n)]                 # a cycle: rows of 2, lists of ~n
    vlab = [int(x) for x in rng.integers(0, 3, n)]
    vlab[0] = 2
    G = _graph_from_pairs(n, E, vlab)
    stale_runs = []
    run_lane, bound_run = lane.run_lane, lane.bound_run

    def spy(*a, **kw):
        run = run_lane(*a, **kw)
        stale_runs.append(("batches", run.stale))
        return run

    def spy_stream(*a, **kw):
        out = bound_run(*a, **kw)
        stale_runs.append(("array", out[5]))
        return out
    for P in (Pattern([(0, 1), (1, 2)]), Pattern([(0, 1), (1, 2), (2, 0)], vertex_labels=[2, 0, 1]),
              Pattern([(0, 1), (0, 2), (0, 3)], vertex_labels=[2, 0, 1, 0])):
        model, batches = set(_edge_set(G)), []
        for b in range(40):
            ins = [(0, int(v)) for v in rng.integers(2, n, size=3)]   # a hub at 0 grows past the lists' lengths
            ins += [tuple(int(x) for x in rng.integers(0, n, size=2)) for _ in range(2)]
            present = sorted(model)
            dele = [present[t] for t in rng.choice(len(present), size=2, replace=False)]
            batches.append((np.array(ins), np.array(dele)))
            i2 = {(min(u, v), max(u, v)) for u, v in ins if u != v}
            d2 = {(min(u, v), max(u, v)) for u, v in dele}
            model = (model - (d2 - i2)) | (i2 - d2)
        final = _graph_from_pairs(n, sorted(model), vlab)
        net = la_gpm.count(final, P, count="embeddings") - la_gpm.count(G, P, count="embeddings")
        for keep, form in ((True, "batches"), (False, "batches"), (True, "array"), (False, "array")):
            A = la_gpm.DynamicGraph(G, [P], count="embeddings", keep_graph=keep)
            B = la_gpm.DynamicGraph(G, [P], count="embeddings", keep_graph=keep)
            lane.run_lane, lane.bound_run = spy, spy_stream
            try:
                r = A.apply_stream(batches) if form == "batches" else A.apply_stream(_signed(batches), batch_size=7)
            finally:
                lane.run_lane, lane.bound_run = run_lane, bound_run
            want = _loop(B, batches)
            assert list(zip(r.positive.tolist(), r.negative.tolist())) == [(w[2], w[3]) for w in want], (P, keep)
            assert int(r.positive.sum() - r.negative.sum()) == net
            _same_state(A, B, keep)
    for form in ("batches", "array"):      # some run of each form left lists stale (and rebuilt them after)
        assert any(x for f, x in stale_runs if f == form), form



def test_stale_lists_are_kept_with_the_stream_arguments_and_made_usable_by_the_next_stream():
    """lane.rebind: a stream run that leaves long candidate lists stale hands them to the next array stream as they
    are, with their mask (no rebuild at its end); the next run makes them usable where a search needs one (a hub
    has grown past them), and every other path builds exact lists from the bits.  Short streams on one graph: each
    batch's counts are apply's, and the lists, tables and graph after the last are apply's; some stream starts with
    stale lists, and some hub grows past them in a later stream than the one that left them stale."""
    from la_gpm.dynamic import lane
    rng = np.random.default_rng(8)
    n = 120
    E = [(i, (i + 1) % n) for i in range(n)]                 # a cycle: rows of 2, lists of ~n / 3
    vlab = [int(x) for x in rng.integers(0, 2, n)]
    for v in (0, 7, 30, 51, 77, 99):                           # label 2: a short list, patched, not stale
        vlab[v] = 2
    G = _graph_from_pairs(n, E, vlab)
    starts = []
    exact = 0
    bound_run = lane.bound_run

    def spy(a, *rest):
        starts.append(a[lane._STALE])
        return bound_run(a, *rest)
    for P in (Pattern([(0, 1), (1, 2), (2, 0)], vertex_labels=[2, 0, 1]),
              Pattern([(0, 1), (0, 2), (0, 3)], vertex_labels=[2, 0, 1, 0])):
        for keep in (True, False):
            A = la_gpm.DynamicGraph(G, [P], count="embeddings", keep_graph=keep)
            B = la_gpm.DynamicGraph(G, [P], count="embeddings", keep_graph=keep)
            model = set(_edge_set(G))
            for chunk in range(12):
                batches = []
                for _ in range(3):
                    ins = [(0, int(v)) for v in rng.integers(2, n, size=2)]     # hub 0 grows, stream after stream
                    ins += [tuple(int(x) for x in rng.integers(0, n, size=2)) for _ in range(2)]
                    present = sorted(model)
                    dele = [present[t] for t in rng.choice(len(present), size=2, replace=False)]
                    batches.append((ins, dele))
                    i2 = {(min(u, v), max(u, v)) for u, v in ins if u != v}
                    d2 = {(min(u, v), max(u, v)) for u, v in dele}
                    model = (model - (d2 - i2)) | (i2 - d2)
                lane.bound_run = spy
                try:
                    r = A.apply_stream(_signed(batches), batch_size=6)
                finally:
                    lane.bound_run = bound_run
                assert _rows(r) == _loop(B, batches), (P, keep, chunk)
                # the kept lists: a list not marked stale is exact (apply's, from the bits)
                a, cand = A._bound, B._nlf.cand[0]
                for u in range(P.k):
                    if not (a[lane._STALE] >> u) & 1:
                        got = a[lane._CIDX][a[lane._CPTR][u]:a[lane._CPTR][u + 1]]
                        assert np.array_equal(got, cand.idx[cand.ptr[u]:cand.ptr[u + 1]]), (P, keep, chunk, u)
                        exact += 1
            _same_state(A, B, keep)
    assert any(starts[1:]), "no stream started with the lists a run before left stale"
    assert exact, "no kept list was exact"


def _hub_batches(rng, E, n, nbat, hi, every, small, big):
    """``nbat`` batches on the hubs 0 and 1 and the vertices 2 .. ``hi`` - 1 of the edge set ``E``: three hub inserts
    and (inserts, deletes) ``big`` every ``every``-th batch, else ``small``; and the (before, after, kept) edge sets
    of each batch."""
    model, batches, truth = set(E), [], []
    for b in range(nbat):
        ni, nd = small if b % every else big
        ins = [(int(h), int(v)) for h, v in zip(rng.integers(0, 2, 3), rng.integers(2, n, 3))]
        ins += [tuple(int(x) for x in rng.integers(2, hi, 2)) for _ in range(ni)]
        present = sorted(model)
        dele = [present[t] for t in rng.choice(len(present), size=nd, replace=False)]
        batches.append((ins, dele))
        i2 = {(min(u, v), max(u, v)) for u, v in ins if u != v}
        d2 = {(min(u, v), max(u, v)) for u, v in dele}
        after = (model - (d2 - i2)) | (i2 - d2)
        truth.append((model, after, model & after))
        model = after
    return batches, truth


def test_hub_rows_marked_by_the_search_give_the_counts_binary_searches_give():
    """cpu.MARK_AFTER: an item that has checked the row of an update's endpoint often enough (a hub's: MARK_MIN
    arcs or more) marks it and checks it by look-up from then on; the marks are cleared after each item.  A
    triangle with a pendant edge and a diamond around two hubs, batches inserting and deleting hub arcs and arcs
    between hub neighbours: every batch's positive and negative equal the static counts of the graphs before and
    after less the graph of the kept edges, one update at a time (the per-update path), as batches (the lane, the
    general path's serial and parallel search) and as one stream."""
    rng = np.random.default_rng(21)
    n = 160
    E = {(0, v) for v in range(2, 120)} | {(1, v) for v in range(60, 150)}     # hubs: 118 and 90 arcs
    while len(E) < 560:
        u, v = sorted(int(x) for x in rng.integers(2, n, 2))
        if u != v:
            E.add((u, v))
    G = _graph_from_pairs(n, sorted(E))
    batches, truth = _hub_batches(rng, E, n, 10, 120, 2, (3, 2), (30, 12))

    def emb(pairs, P):
        return la_gpm.count(_graph_from_pairs(n, sorted(pairs)), P, count="embeddings")
    for P in (Pattern([(0, 1), (0, 2), (0, 3), (1, 3)]), Pattern([(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)])):
        want = [(emb(a, P) - emb(k, P), emb(g, P) - emb(k, P)) for g, a, k in truth]
        assert any(w[0] for w in want) and any(w[1] for w in want)
        for per_update in (0, 8):
            with la_gpm.config.set(dynamic_per_update_max=per_update):
                D = la_gpm.DynamicGraph(G, [P], count="embeddings")
                got = [(d.positive, d.negative) for ins, dele in batches for d in D.apply(insert=ins, delete=dele)]
                assert got == want, (P, per_update)
                r = la_gpm.DynamicGraph(G, [P], count="embeddings").apply_stream(batches)
                assert list(zip(r.positive.tolist(), r.negative.tolist())) == want, (P, per_update)
        for pmin in (10**9, 1):      # the general path: the serial drive, and the parallel one (marks per chunk)
            with la_gpm.config.set(dynamic_lane_max=0, parallel_min=pmin):
                got = []
                for (ins, dele), (g, _, _) in zip(batches, truth):
                    d = la_gpm.match_delta(_graph_from_pairs(n, sorted(g)), P, insert=ins, delete=dele)
                    got.append((d.positive, d.negative))
                assert got == want, (P, pmin)


def _two_hubs(rng):
    """(n, edges, labels) of the triangle-tail tests' graph: 70 vertices, hubs 0 and 1 (43 and 40 arcs), 330 edges,
    two labels."""
    n = 70
    E = {(0, v) for v in range(2, 45)} | {(1, v) for v in range(25, 65)}
    while len(E) < 330:
        u, v = sorted(int(x) for x in rng.integers(2, n, 2))
        if u != v:
            E.add((u, v))
    return n, E, [int(x) for x in rng.integers(0, 2, n)]


def _hub_case(P, seed, nbat, big):
    """Two hubs (:func:`_two_hubs`), ``nbat`` batches on them (:func:`_hub_batches`, ``big`` every third), and each
    batch's (positive, negative) from static embedding counts: the graphs after and before less the kept edges."""
    rng = np.random.default_rng(seed)
    n, E, lab = _two_hubs(rng)
    batches, truth = _hub_batches(rng, E, n, nbat, 45, 3, (2, 3), big)

    def emb(pairs):
        return la_gpm.count(_graph_from_pairs(n, sorted(pairs), lab), P, count="embeddings")
    want = [(emb(a) - emb(k), emb(g) - emb(k)) for g, a, k in truth]
    assert sum(w[0] for w in want) and sum(w[1] for w in want)
    return _graph_from_pairs(n, sorted(E), lab), batches, want


_TAILS = [Pattern([(0, 1), (0, 2), (1, 2), (2, 3)]),                                    # wordnet sparse4's shape
          Pattern([(0, 1), (0, 2), (1, 2), (2, 3), (3, 4), (4, 5)], vertex_labels=[0, 0, 0, 1, 0, 0]),  # sparse6's
          Pattern([(0, 1), (0, 2), (1, 2), (2, 3), (3, 4)], vertex_labels=[1, 0, 0, 1, 1]),  # u, v of two labels
          Pattern([(0, 1), (1, 2), (2, 3), (3, 4), (3, 5), (4, 5)]),
          Pattern([(0, 1), (0, 2), (1, 2), (0, 3), (3, 4), (3, 5), (4, 5)], vertex_labels=[0, 1, 1, 0, 1, 1]),
          Pattern([(0, 1), (0, 2), (1, 2), (2, 3), (3, 4)]),                   # a leaf after the tail (mode 2)
          Pattern([(0, 1), (0, 2), (1, 2), (2, 3), (2, 4)], vertex_labels=[0, 1, 1, 0, 1]),  # ... on w, u and v's label
          Pattern([(0, 1), (0, 2), (1, 2), (2, 3), (3, 4), (4, 5)]),                   # wordnet sparse6's (mode 3)
          Pattern([(0, 1), (0, 2), (1, 2), (2, 3), (3, 4), (4, 5)], vertex_labels=[1, 1, 1, 1, 0, 1]),  # f of w's label
          Pattern([(0, 1), (1, 2), (2, 3), (2, 4), (4, 5)]),                   # wordnet tree6's: forks (mode 4)
          Pattern([(0, 1), (1, 2), (2, 3), (1, 4)], vertex_labels=[0, 0, 1, 0, 0]),   # ... from level 2, u's own label
          Pattern([(0, 1), (1, 2), (2, 3), (2, 4), (4, 5)], vertex_labels=[1, 0, 0, 0, 1, 0])]


@pytest.mark.parametrize("P", _TAILS, ids=lambda P: f"k{P.k}e{P.num_edges}{'L' if P.vertex_labels else ''}")
def test_triangle_tails_counted_from_the_per_update_memo_give_the_static_counts(P):
    """cpu.F_TRI: in the per-update path the last two levels of a plan that close a triangle on one earlier vertex w
    are counted as the triangles at w (kept in a memo for the run, edited by every update) less those through a
    mapped vertex; or the two before a last leaf level, times the leaf's count less the pairs using its candidates;
    or a fork (u on w, leaves on u and on w: their counts' products less the triangles at w).
    Two hubs and two labels; streams of batches on the hubs and their neighbours (the memo's counts of a hub and of
    its neighbours change within a run), each batch's positive and negative against the static counts of the graphs
    before and after less the graph of the kept edges, applied one batch a call and as one stream, whole graph or
    views, embeddings or unique.
    """
    from la_gpm.dynamic.query import compile_delta_plan
    assert compile_delta_plan(P).tri[:, 0].any()     # the plans have a triangle tail: the memo is what is tested
    assert any(compile_delta_plan(Q).tri[:, 0].max() == 2 for Q in _TAILS)
    assert any(compile_delta_plan(Q).tri[:, 0].max() == 3 for Q in _TAILS)    # summed over w (cpu._tri_tail3)
    assert any(compile_delta_plan(Q).tri[:, 0].max() == 4 for Q in _TAILS)    # a fork (cpu._fork_tail)
    G, batches, want = _hub_case(P, P.k * 10 + P.num_edges, 12, (25, 12))
    aut = P.automorphism_count
    for keep, count in ((True, "embeddings"), (False, "unique")):
        div = aut if count == "unique" else 1
        exp = [(p // div, q // div) for p, q in want]
        D = la_gpm.DynamicGraph(G, [P], count=count, keep_graph=keep)
        got, per = [], []
        for ins, dele in batches:
            d, = D.apply(insert=ins, delete=dele)
            got.append((d.positive, d.negative))
            per.append(bool(d.stats.get("per_update")))
            if keep:     # lists longer than any row were left stale within the call, then rebuilt (micro_run)
                _same_tables(D, D.graph)
        assert got == exp, (keep, count)
        assert all(per), per       # every batch one update at a time (micro.MICRO_TRI): the memo's path
        r = la_gpm.DynamicGraph(G, [P], count=count, keep_graph=keep).apply_stream(batches)
        assert list(zip(r.positive.tolist(), r.negative.tolist())) == exp, (keep, count)


_LEAF_LAST = [Pattern([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),                   # yeast tree6's shape
              Pattern([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)], vertex_labels=[1, 0, 1, 1, 0, 1]),
              Pattern([(0, 1), (1, 2), (1, 5), (2, 3), (3, 4), (3, 5), (4, 5)],      # human sparse6's shape
                      vertex_labels=[0, 1, 0, 1, 0, 1]),
              Pattern([(0, 1), (1, 2), (1, 5), (2, 3), (3, 4), (3, 5), (4, 5)])]


@pytest.mark.parametrize("P", _LEAF_LAST, ids=lambda P: f"k{P.k}e{P.num_edges}{'L' if P.vertex_labels else ''}")
def test_a_last_leaf_after_a_scanned_level_is_counted_not_scanned(P):
    """cpu._leaf_overlap: in the per-update path a last leaf level independent of the level before it (no bound, no
    shared parent) is counted (|S| |S'| less the level's candidates that are also the leaf's), not scanned and merged:
    the plans of these queries end so (yeast tree6's path, human sparse6's shape; one label, or the leaf's label that
    of the level before it or not).  Batches around two hubs against the static counts, one batch a call and as one
    stream, whole graph and views."""
    from la_gpm.dynamic.query import F_INDEP, F_LEAF, F_PAR, compile_delta_plan
    T = compile_delta_plan(P).packed
    k = P.k
    assert any(T[F_INDEP, p, 0, 0] == 1 and T[F_LEAF, p, k - 1, 0] == 1
               and T[F_PAR, p, k - 1, 0] != T[F_PAR, p, k - 2, 0] for p in range(T.shape[1]))
    G, batches, want = _hub_case(P, P.k * 13 + P.num_edges, 10, (6, 4))
    for keep in (True, False):
        D = la_gpm.DynamicGraph(G, [P], keep_graph=keep)
        got = []
        for ins, dele in batches:
            d, = D.apply(insert=ins, delete=dele)
            assert d.stats.get("per_update")
            got.append((d.positive, d.negative))
        assert got == want, keep
        r = la_gpm.DynamicGraph(G, [P], keep_graph=keep).apply_stream(batches)
        assert list(zip(r.positive.tolist(), r.negative.tolist())) == want, keep


@pytest.mark.parametrize("P", [_TAILS[0], _TAILS[7], _TAILS[8]], ids=["k4", "k6", "k6L"])
def test_triangle_memo_serves_later_calls_only_while_the_per_update_path_alone_changes_the_graph(P):
    """cpu.TRI_VALID: one ``apply`` a batch keeps the triangle memo of the call before while only the per-update path
    (which edits it) changed the graph since; a batch of the batch path (more relevant updates than it takes), of the
    general path (a new vertex) or with listing (its own plan: other memo columns) in between makes the next call count
    afresh.  Batches around two hubs, every batch's positive and negative against the static counts of the graphs before
    and after less the graph of the kept edges, whole graph and views."""
    rng = np.random.default_rng(P.k * 7 + P.num_edges)
    n, E, lab = _two_hubs(rng)
    batches, _ = _hub_batches(rng, E, n, 14, 45, 100, (2, 2), (2, 2))
    # batch 5 takes the batch path (many relevant updates), batch 9 the general path (a new vertex n, labelled 1)
    batches[5] = (batches[5][0] + [tuple(int(x) for x in rng.integers(2, 45, 2)) for _ in range(60)], batches[5][1])
    batches[9] = (batches[9][0] + [(3, n)], batches[9][1])
    truth, model = [], set(E)
    for ins, dele in batches:
        i2 = {(min(u, v), max(u, v)) for u, v in ins if u != v}
        d2 = {(min(u, v), max(u, v)) for u, v in dele} & model      # (the hub batches delete present edges)
        after = (model - (d2 - i2)) | (i2 - d2)
        truth.append((model, after, model & after))
        model = after
    lab2 = lab + [1]

    def emb(pairs):
        return la_gpm.count(_graph_from_pairs(n + 1, sorted(pairs), lab2), P, count="embeddings")
    want = [(emb(a) - emb(k), emb(g) - emb(k)) for g, a, k in truth]
    assert sum(w[0] for w in want) and sum(w[1] for w in want)
    G = _graph_from_pairs(n, sorted(E), lab)
    for keep in (True, False):
        D = la_gpm.DynamicGraph(G, [P], count="embeddings", keep_graph=keep)
        got, per = [], []
        for b, (ins, dele) in enumerate(batches):
            kw = {"labels": {n: 1}} if b == 9 else {}
            if b == 12:          # a listing call between two counting ones: its plan numbers the memo columns anew
                d, = D.apply(insert=ins, delete=dele, listing=True, **kw)
                assert d.positive_matches.shape[0] == d.positive
            elif b == 5:         # 60 relevant updates more than the per-update path takes at this setting (32)
                with la_gpm.config.set(dynamic_per_update_max=1):
                    d, = D.apply(insert=ins, delete=dele)
            else:
                d, = D.apply(insert=ins, delete=dele, **kw)
            got.append((d.positive, d.negative))
            per.append(bool(d.stats.get("per_update")))
        assert got == want, keep
        assert not per[5] and not per[9] and sum(per) >= 10, per    # the paths the test is about were taken


def test_triangle_memo_signature_tells_every_label_pair_layout_apart():
    """micro._tri_open keeps the last run's memo only for the same label pairs in the same memo columns (cpu.TRI_VALID):
    a run of another layout (label columns up to MAX_DYNAMIC_VERTICES - 1, one to three columns) gets a new run id, as
    does any run after a path that marked the memo stale (cpu.tri_stale); the same layout twice keeps it."""
    from la_gpm.dynamic import micro
    from la_gpm.dynamic.cpu import TRI_STAMP, tri_stale
    from la_gpm.dynamic.query import F_TRI, N_FIELDS, MAX_DYNAMIC_VERTICES
    n = 6
    qcol = np.arange(-1, MAX_DYNAMIC_VERTICES, dtype=np.int64)      # query vertex i has label column i - 1
    mk = np.zeros((TRI_STAMP + 6, n + 2), np.int32)
    rows = np.zeros((n, 2), np.int64)
    vcol = np.zeros(n, np.int64)

    def T_of(layout):
        T = np.zeros((N_FIELDS, len(layout), 4, 4), np.int32)
        for c, (la, lb) in enumerate(layout):
            T[F_TRI, c, 0, 0] = 1
            T[F_TRI, c, 0, 3] = c
            T[F_TRI, c, 1, 0] = la + 1
            T[F_TRI, c, 1, 1] = lb + 1
        return T

    def run_id(layout):
        cols = micro._tri_open(T_of(layout), mk, rows, n, vcol, qcol, 0)
        assert cols.tolist() == [list(p) for p in layout]
        return int(mk[TRI_STAMP, -1])

    top = MAX_DYNAMIC_VERTICES - 1
    layouts = [[(0, 13)], [(1, 0)], [(13, 0)], [(-1, -1)], [(top, top - 1)], [(top - 1, top)], [(0, 0), (1, 1)],
               [(1, 1), (0, 0)], [(0, 1), (1, 0)], [(top, 0), (0, top), (2, 2)], [(0, top), (top, 0), (2, 2)]]
    for a in layouts:
        for b in layouts:
            ra = run_id(a)
            assert run_id(a) == ra              # the same layout: the memo kept
            rb = run_id(b)
            assert (rb == ra) == (a == b), (a, b)
        tri_stale(mk)
        r = int(mk[TRI_STAMP, -1])
        assert run_id(a) == r + 1               # stale: a new run


def test_one_build_of_the_lane_serves_apply_and_streams_on_read_only_and_grown_labels():
    """The lane's kernels compile in 1-3 minutes each: ``apply``'s small batches (lane.run_lane) and a stream
    (lane._stream) must share one build of ``_lane`` and ``micro_run``, whatever the labels' array (a Graph's
    are read-only; new vertices' labels make a fresh copy).  Until session 27 the stream called ``_lane`` with
    literals and a uint32 mask, and a read-only label array was a type apart: up to six builds of ``micro_run``
    in one process.  Also the counts: the stream's batches equal ``apply``'s on a twin."""
    from la_gpm.dynamic import lane, micro
    rng = np.random.default_rng(27)
    n = 30
    pairs = {tuple(sorted(p)) for p in rng.integers(0, n, (90, 2)).tolist() if p[0] != p[1]}
    G = _graph_from_pairs(n, sorted(pairs), rng.integers(0, 2, n))
    assert not G.vertex_labels.flags.writeable
    P = Pattern([(0, 1), (1, 2)], vertex_labels=[0, 1, 0])
    A, B = la_gpm.DynamicGraph(G, [P]), la_gpm.DynamicGraph(G, [P])
    E = np.array(sorted(pairs), np.int64)
    new = np.array([(u, v) for u, v in rng.integers(0, n, (40, 2)).tolist()
                    if u != v and tuple(sorted((u, v))) not in pairs], np.int64)[:8]
    for D in (A, B):
        D.apply(insert=new[:2], delete=E[:2])                  # the lane's single batch (run_lane)
        D.apply(insert=[(n, 0), (n, 1)], labels={n: 1})        # a new vertex: the labels grow into a copy
    batches = [(new[2 + 2 * b:4 + 2 * b], E[2 + 2 * b:4 + 2 * b]) for b in range(3)]
    ops = np.concatenate([np.concatenate([np.column_stack([np.full(len(d), -1), d]),
                                          np.column_stack([np.ones(len(i), np.int64), i])]) for i, d in batches])
    assert _rows(A.apply_stream(ops.astype(np.int64), batch_size=4)) == _loop(B, batches)
    assert A.apply(insert=E[:1])[0].positive == B.apply(insert=E[:1])[0].positive
    for f in (lane._lane, lane._stream):          # compiled here or loaded from numba's cache: one entry either way
        assert len(f.signatures) == 1, (f.py_func.__name__, f.signatures)
    # micro_run is typed inside _lane's build: one signature when this process compiled _lane, none when _lane came
    # from the on-disk cache (a warm cache: the device's parallel files, a second run here)
    assert len(micro.micro_run.signatures) <= 1, micro.micro_run.signatures


def _rows_apart(D):
    """The store's rows: sorted, inside the used part of the buffer, no FREE slot in them, and no two sharing a slot."""
    S = D._store
    spans = sorted((a, e) for a, e in S.rows[:S.n].tolist() if e > a)
    for (a0, e0), (a1, _) in zip(spans, spans[1:]):
        assert e0 <= a1, "two rows share a slot of the arc buffer"
    for a, e in spans:
        row = S.idx[a:e]
        assert e <= S.used and (row >= 0).all() and (np.diff(row) > 0).all()


def test_stream_runs_edit_rows_in_place_and_rows_never_share_a_slot():
    """A stream run inserts into a row with room after it, deletes in place (the row's last slot then FREE), and
    copies a row to the tail, with slack, only when it is full (micro._put_arc / _drop_arc; one apply copies).
    Rows of hub vertices grow past their slack and shrink to nothing, packed rows end where the next begins, the
    last vertices are isolated (their empty rows at the buffer's end), and compactions come within runs: every
    batch against brute force, the rows apart from each other after every stream."""
    rng = np.random.default_rng(30)
    n = 14
    E = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (2, 5), (1, 7)]   # 9 .. 13 isolated
    model = set(E)
    hubs = [0, 8, 12, 13]
    streams_ = []
    for s in range(30):
        ops = []
        for _ in range(int(rng.integers(4, 16))):
            h = int(rng.choice(hubs)) if rng.random() < 0.7 else int(rng.integers(0, n))
            w = int(rng.integers(0, n))
            e = (min(h, w), max(h, w))
            if h == w:
                continue
            if e in model and rng.random() < 0.6:
                ops.append((-1, *e))
                model.discard(e)
            elif e not in model:
                ops.append((1, *e))
                model.add(e)
        if s % 5 == 4:                          # every fifth stream empties the hubs' rows
            for e in sorted(model):
                if e[0] in hubs or e[1] in hubs:
                    ops.append((-1, *e))
                    model.discard(e)
        if ops:
            streams_.append((np.array(ops, dtype=np.int64), int(rng.integers(1, 4)), set(model)))
    for P in [Pattern([(0, 1), (1, 2), (2, 0)]), Pattern([(0, 1), (1, 2), (2, 3)]), Pattern([(0, 1), (0, 2), (0, 3)])]:
        with la_gpm.config.set(dynamic_room=64):
            D = la_gpm.DynamicGraph(_graph_from_pairs(n, E), [P])
        cur = _graph_from_pairs(n, E)
        for arr, size, after_stream in streams_:
            r = D.apply_stream(arr, batch_size=size)
            assert r.lane.all()
            for b in range(r.batches):
                part = arr[b * size:(b + 1) * size]
                ins, dele = part[part[:, 0] == 1, 1:].tolist(), part[part[:, 0] == -1, 1:].tolist()
                pos, neg, cur = _oracle(cur, P, ins, dele, False)
                assert (r.positive[b], r.negative[b]) == (len(pos), len(neg))
            _rows_apart(D)
            assert set(_edge_set(D.graph)) == after_stream == set(_edge_set(cur))
        assert D._store.compactions >= 1
        _same_tables(D, D.graph)


def test_a_row_toggled_in_a_stream_run_is_not_copied_per_update():
    """One edge inserted and deleted 200 times in one stream run: the rows of its ends grow and shrink in place
    (at most one copy each), where copy-on-write took two row copies per update."""
    n = 40
    E = [(0, v) for v in range(2, 30)] + [(1, v) for v in range(2, 30)]
    D = la_gpm.DynamicGraph(_graph_from_pairs(n, E), [Pattern([(0, 1), (1, 2), (2, 0)])], count="unique")
    D.apply()
    S = D._store
    used0, comp0 = S.used, S.compactions
    ops = np.array([(1, 0, 1), (-1, 0, 1)] * 100, dtype=np.int64)
    r = D.apply_stream(ops, batch_size=1)
    assert r.lane.all() and r.positive.tolist() == [28, 0] * 100 and r.negative.tolist() == [0, 28] * 100
    assert S.compactions == comp0 and S.used - used0 <= 2 * (29 + 29 // 4 + 2)
    _rows_apart(D)


def test_too_many_counts_the_relevant_updates_as_the_per_update_path_does():
    """micro.too_many: the lane skips the per-update path's call for a batch with more relevant updates than that path
    takes (it would hand it back at once).  Self-loops and the pairs the views drop are not counted; an id out of range
    met before the limit is passed leaves the batch to the path (whose fallback names it); the limit is the path's
    largest: min(per_update, MICRO_MAX), or min(per_update, 8) * MICRO_TRI / 8 for a plan with a triangle tail."""
    from la_gpm.dynamic.micro import MICRO_MAX, MICRO_TRI, too_many
    from la_gpm.dynamic.query import compile_delta_plan
    plain = compile_delta_plan(Pattern([(0, 1), (1, 2), (2, 3)])).packed
    tri = compile_delta_plan(Pattern([(0, 1), (0, 2), (0, 3), (1, 3)])).packed
    assert not (plain[19, :, 0, 0] > 0).any() and (tri[19, :, 0, 0] > 0).any()    # F_TRI
    code = np.array([0, 0, 1, 1, 0, 0, 0, 0], np.int64)      # label class of vertices 0..7
    table = np.array([[1, 0], [0, 0]], np.int8)               # only class-0 pairs are relevant
    none = np.zeros((0, 2), np.int64)

    def over(pairs, dele=none, use_rel=True, T=plain, per=3):
        ins = np.asarray(pairs, np.int64).reshape(-1, 2)
        return too_many(ins, 0, ins.shape[0], dele, 0, dele.shape[0], use_rel, code, 8, table, T, per)

    rel = [(0, 1), (1, 4), (4, 5), (5, 6)]
    assert not over(rel[:3]) and over(rel)                       # 3 taken, 4 not
    assert not over(rel[:3] + [(2, 3), (0, 2), (7, 7), (1, 1)])  # irrelevant pairs and self-loops do not count
    assert over(rel[:3], dele=np.array([[6, 7]], np.int64))      # deletes count too
    assert over(rel[:3] + [(2, 3)], use_rel=False)               # without views every pair is relevant
    assert not over(rel[:2] + [(0, 99)] + rel[2:])               # a bad id before the limit: the path's fallback
    assert over(rel + [(0, 99)])                                 # ... after it: the batch path names it
    assert not over(rel, T=tri)                                  # a triangle tail takes wider batches
    wide = [(a, b) for a in range(8) for b in range(8) if a < b]
    assert not over(wide, use_rel=False, T=tri, per=1)           # 28 <= min(1, 8) * 32
    assert over(wide, use_rel=False, T=plain, per=100) == (28 > MICRO_MAX)
    assert MICRO_TRI // 8 * 8 == MICRO_TRI


@pytest.mark.parametrize("P", [Pattern([(0, 1), (1, 2), (2, 3)], vertex_labels=[0, 1, 0, 1]),
                               Pattern([(0, 1), (0, 2), (0, 3), (1, 3)], vertex_labels=[0, 0, 1, 0]),
                               Pattern([(0, 1), (1, 2), (0, 2)])], ids=["path4", "paw", "triangle"])
def test_batches_past_the_per_update_limit_take_the_batch_path_with_the_same_counts(P, monkeypatch):
    """Small and large batches alternating in one stream (per_update 3: batches of up to 3 relevant updates one update
    at a time, larger ones -- or, for a plan with a triangle tail, larger than 96 -- by the batch path without a call
    of the per-update path): apply_stream equals apply per batch and brute force, whole graph and views."""
    from la_gpm.dynamic.query import compile_delta_plan
    monkeypatch.setattr(la_gpm.config, "dynamic_per_update_max", 3)
    rng = np.random.default_rng(7)
    n = 24
    lab = rng.integers(0, 2, n).tolist() if P.vertex_labels else None
    allp = [(a, b) for a in range(n) for b in range(a + 1, n)]
    pick = rng.permutation(len(allp))
    E = {allp[i] for i in pick[:90]}
    G = _graph_from_pairs(n, sorted(E), lab)
    batches, cur = [], set(E)
    for size in (1, 8, 2, 30, 3, 200, 1, 12):
        outs = [e for e in allp if e not in cur]
        ins = [outs[i] for i in rng.choice(len(outs), size=(2 * size) // 3 + 1, replace=False)]
        ins_set = set(ins)
        ins_cand = sorted(cur)
        dele = [ins_cand[i] for i in rng.choice(len(ins_cand), size=size // 3, replace=False)]
        cur = (cur | ins_set) - set(dele)
        batches.append((np.array(ins, np.int64).reshape(-1, 2), np.array(dele, np.int64).reshape(-1, 2)))
    for keep in (True, False):
        r = la_gpm.DynamicGraph(G, [P], keep_graph=keep).apply_stream(batches)
        B = la_gpm.DynamicGraph(G, [P], keep_graph=keep)
        assert _rows(r) == _loop(B, batches)
        assert r.lane.all()
        # the path each batch took, one apply a batch: the updates a query edge's label pair can use (the whole graph
        # logs the others aside) against the path's limit
        lim = 96 if compile_delta_plan(P).tri[:, 0].any() else 3
        ql = P.vertex_labels
        usable = {(ql[u], ql[v]) for u, v in P.edges} | {(ql[v], ql[u]) for u, v in P.edges} if ql else None
        C = la_gpm.DynamicGraph(G, [P], keep_graph=keep)
        took = [bool(C.apply(insert=i, delete=d)[0].stats.get("per_update")) for i, d in batches]
        rel = [sum(usable is None or (lab[a], lab[b]) in usable for a, b in np.concatenate([i, d]).tolist())
               for i, d in batches]
        assert took == [0 < c <= lim for c in rel], (took, rel)
        assert not all(took) and any(took)
        g = G
        for b, (ins, dele) in enumerate(batches):
            pos, neg, g = _oracle(g, P, ins.tolist(), dele.tolist(), False)
            assert (r.positive[b], r.negative[b]) == (len(pos), len(neg)), (keep, b)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(-1, 2), st.integers(-1, 2))
def test_triangle_memo_filled_at_once_equals_it_counted_one_vertex_at_a_time(seed, la, lb):
    """cpu._tri_fill (every vertex's count at once, each triangle found once) against cpu._tri_memo's count of each
    vertex alone, on random labelled graphs with a hub, for every pair of label columns (-1: any); rows past
    TRI_MAXDEG are never stamped, the others all with the run's id; and _tri_memo switches to the fill once the rows it
    counted pass the run's threshold, then counts no more."""
    from la_gpm.dynamic.cpu import TRI_LAB, TRI_STAMP, _tri_fill, _tri_memo
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    p = float(rng.uniform(0.05, 0.6))
    A = np.triu(rng.random((n, n)) < p, 1)
    A[0, 1:] |= rng.random(n - 1) < 0.9          # a hub
    A = A | A.T
    ptr = np.concatenate([[0], np.cumsum(A.sum(1))]).astype(np.int64)
    idx = np.concatenate([np.flatnonzero(A[v]) for v in range(n)] + [np.zeros(0, int)]).astype(np.int32)
    rows = np.stack([ptr[:-1], ptr[1:]], 1).astype(np.int64)
    labels = rng.integers(0, 3, n)

    def fresh(threshold):
        mk = np.zeros((TRI_STAMP + 2, n + 4), np.int32)
        e = mk.shape[1] - 1
        mk[TRI_LAB, :n] = labels
        mk[TRI_LAB, e] = n
        mk[TRI_STAMP, e] = 7
        mk[TRI_LAB, e - 1] = threshold
        return mk

    one = fresh(2**31 - 1)                       # never filled at once
    want = [int(_tri_memo(v, rows, idx, one, TRI_STAMP, la, lb)) for v in range(n)]
    assert one[TRI_STAMP, n + 2] == int(ptr[-1])  # the arcs counted one vertex at a time
    brute = []
    for w in range(n):
        nb = np.flatnonzero(A[w])
        brute.append(sum(1 for a in nb for b in nb if A[a, b] and (la < 0 or labels[a] == la)
                         and (lb < 0 or labels[b] == lb)))
    assert want == brute
    mk = fresh(0)
    _tri_fill(rows, idx, mk, TRI_STAMP, la, lb)
    assert mk[TRI_STAMP + 1, :n].tolist() == want
    assert (mk[TRI_STAMP, :n] == 7).all()
    sw = fresh(int(ptr[-1]) // 4)                # one vertex at a time, then all at once
    got = [int(_tri_memo(v, rows, idx, sw, TRI_STAMP, la, lb)) for v in range(n)]
    assert got == want
    if ptr[-1] // 4 < ptr[-1] - (rows[n - 1, 1] - rows[n - 1, 0]):
        assert sw[TRI_STAMP, n + 2] == -1        # it switched, and counts no more
    assert sw[TRI_STAMP + 1, :n].tolist() == want


@pytest.mark.parametrize("P", [_TAILS[0], _TAILS[7]], ids=["k4", "k6"])
def test_a_stream_fills_its_triangle_memo_at_once_past_the_threshold(P):
    """A new DynamicGraph's first stream on two hubs counts its memo one vertex at a time, passes 1 / TRI_BULK of the
    arcs and fills it at once (the column's counter -1 after the run); its counts equal the static ones, and a second
    stream back (the memo kept) gives what one ``apply`` a batch gives on a new DynamicGraph of the graph it starts
    from."""
    from la_gpm.dynamic.cpu import TRI_STAMP
    G, batches, want = _hub_case(P, P.k * 3 + P.num_edges, 12, (25, 12))
    D = la_gpm.DynamicGraph(G, [P], count="embeddings")
    r = D.apply_stream(batches)
    assert list(zip(r.positive.tolist(), r.negative.tolist())) == want
    assert D._store._rmarks[TRI_STAMP, -2] == -1
    back = [(d, i) for i, d in reversed(batches)]
    ref = la_gpm.DynamicGraph(D.graph, [P], count="embeddings")
    r2 = D.apply_stream(back)
    assert _rows(r2) == _loop(ref, back)
