"""Query views: ``DynamicGraph(..., keep_graph=False)`` keeps only the edges the queries can use.

Every batch's positive / negative counts and listings must equal those of ``keep_graph=True`` (itself
checked against brute force in test_dynamic.py); ``.graph`` raises; ``stats["irrelevant"]`` counts the
updates an independent relevance oracle (below) calls irrelevant; bad input raises what it raises without
views and leaves the state as it was.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import Graph, InvalidArgument, InvalidUpdate, Pattern
from .depth import examples


@pytest.fixture(autouse=True)
def _tiny_split():
    with la_gpm.config.set(dynamic_split=2, parallel_min=1):
        yield


def _graph(n, pairs, vlab=None, elab=None):
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return Graph.from_edges(pairs[:, 0], pairs[:, 1], n=n, vertex_labels=vlab,
                            edge_labels=None if elab is None else np.asarray(elab, np.int64))


def _rows(a):
    return sorted(tuple(int(x) for x in r) for r in a)


def _relevant(queries, induced, la, lb):
    """The relevance rule, written out over the queries' vertices (not the library's table)."""
    for P in queries:
        if P.vertex_labels is None:
            return True
        vl = [int(x) for x in P.vertex_labels]
        if induced:
            pairs = [(u, w) for u in range(P.k) for w in range(P.k) if u != w]
        else:
            pairs = [tuple(e) for e in P.edges] + [tuple(e)[::-1] for e in P.edges]
        if any(vl[u] == la and vl[w] == lb for u, w in pairs):
            return True
    return False


def _expected_irrelevant(queries, induced, vlab, ins, dele):
    """Updates (self-loops excepted) whose endpoint labels no query can use; ``vlab``: labels by vertex id
    (new vertices included), None for an unlabeled graph."""
    if vlab is None:
        return 0
    return sum(1 for u, v, *_ in list(ins) + list(dele)
               if u != v and not _relevant(queries, induced, vlab[u], vlab[v]))


def _random_pattern(draw, k, labels, edge_labels):
    edges = [(draw(st.integers(0, v - 1)), v) for v in range(1, k)]  # a random tree
    for a in range(k):
        for b in range(a + 1, k):
            if (a, b) not in edges and draw(st.integers(0, 3)) == 0:
                edges.append((a, b))
    vl = [draw(st.integers(0, labels - 1)) for _ in range(k)] if labels else None
    el = {e: draw(st.integers(0, edge_labels - 1)) for e in edges} if edge_labels else None
    return Pattern(edges, k=k, vertex_labels=vl, edge_labels=el)


@st.composite
def streams(draw, edge_labels=False):
    """(G, queries, induced, count, batches): each batch (insert rows, delete pairs, labels of new vertices)."""
    n = draw(st.integers(4, 9))
    nl = draw(st.sampled_from([0, 2, 3, 4]))
    nel = 2 if edge_labels else 0
    vlab = [draw(st.integers(0, nl - 1)) for _ in range(n)] if nl else None
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    present = [p for p in pairs if draw(st.integers(0, 2)) > 0]
    elab = [draw(st.integers(0, nel - 1)) for _ in present] if nel else None
    G = _graph(n, present, vlab, elab)
    queries = []
    for _ in range(draw(st.integers(1, 2))):
        k = draw(st.integers(2, min(5, n)))
        labelled = nl and draw(st.integers(0, 4)) > 0      # mostly labelled: the views then drop edges
        queries.append(_random_pattern(draw, k, nl if labelled else 0, nel))
    induced = draw(st.booleans())
    count = draw(st.sampled_from(["embeddings", "unique"]))
    batches = []
    nv = n
    model = set(present)
    for _ in range(draw(st.integers(1, 4))):
        new = draw(st.integers(0, 2))                      # vertices this batch adds
        v = st.integers(0, nv + new - 1)
        ins = draw(st.lists(st.tuples(v, v), max_size=10))
        ins += [(draw(st.integers(0, nv - 1)), nv + j) for j in range(new)]   # each new vertex in an insert
        ex = st.integers(0, nv - 1)
        dele = draw(st.lists(st.sampled_from(sorted(model)) if model and draw(st.booleans()) else
                             st.tuples(ex, ex), max_size=8))
        if ins and draw(st.booleans()):
            ins.append(ins[0])                             # a duplicate
        if ins and dele and draw(st.integers(0, 3)) == 0:
            dele.append(ins[0][:2] if ins[0][0] < nv and ins[0][1] < nv else dele[0])   # both inserted and deleted
        labels = {nv + j: draw(st.integers(0, nl - 1)) for j in range(new)} if nl else None
        if nel:
            ins = [(a, b, draw(st.integers(0, nel - 1))) for a, b in ins]
        batches.append((ins, dele, labels))
        # the model of the graph (for the deletes of the next batches): net effect
        i2 = {(min(a, b), max(a, b)) for a, b, *_ in ins if a != b}
        d2 = {(min(a, b), max(a, b)) for a, b in dele if a != b}
        model = (model - (d2 - i2)) | (i2 - d2)
        nv += new
    return G, queries, induced, count, batches


def _check_stream(G, queries, induced, count, batches, backend="cpu"):
    full = la_gpm.DynamicGraph(G, queries, induced=induced, count=count, backend=backend)
    view = la_gpm.DynamicGraph(G, queries, induced=induced, count=count, backend=backend, keep_graph=False)
    vlab = None if G.vertex_labels is None else [int(x) for x in G.vertex_labels]
    for t, (ins, dele, labels) in enumerate(batches):
        listing = t % 2 == 0
        if vlab is not None and labels:
            vlab += [labels[v] for v in sorted(labels)]
        a = full.apply(insert=ins, delete=dele, labels=labels, listing=listing)
        b = view.apply(insert=ins, delete=dele, labels=labels, listing=listing)
        want_irr = _expected_irrelevant(queries, induced, vlab, ins, dele)
        for P, da, db in zip(queries, a, b):
            assert (db.positive, db.negative) == (da.positive, da.negative), (P, induced, t)
            if listing:
                assert _rows(db.positive_matches) == _rows(da.positive_matches)
                assert _rows(db.negative_matches) == _rows(da.negative_matches)
            s = db.stats
            assert s["irrelevant"] == want_irr
            assert s["irrelevant_inserts"] + s["irrelevant_deletes"] == want_irr
            assert s["insert_given"] == da.stats["insert_given"] and s["delete_given"] == da.stats["delete_given"]
            assert s["new_vertices"] == da.stats["new_vertices"]
            assert s["inserted"] <= da.stats["inserted"] and s["deleted"] <= da.stats["deleted"]
            with pytest.raises(InvalidArgument, match="keep_graph=True"):
                db.graph
        assert view.version == full.version == t + 1
    with pytest.raises(InvalidArgument, match="keep_graph=False keeps only"):
        view.graph
    return full, view


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams())
def test_views_equal_the_whole_graph_on_random_streams(case):
    _check_stream(*case)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(edge_labels=True))
def test_views_equal_the_whole_graph_with_edge_labels(case):
    _check_stream(*case)


def test_an_edge_no_query_edge_has_breaks_an_induced_match():
    """Induced path a-b-c labelled (0, 1, 0): an edge between two label-0 vertices matches no query edge,
    but closing the triangle destroys the induced match (and deleting it creates one): it is relevant."""
    G = _graph(3, [(0, 1), (1, 2)], vlab=[0, 1, 0])
    P = Pattern([(0, 1), (1, 2)], vertex_labels=[0, 1, 0])
    for induced, want in ((True, (0, 2)), (False, (0, 0))):
        full = la_gpm.DynamicGraph(G, [P], induced=induced)
        view = la_gpm.DynamicGraph(G, [P], induced=induced, keep_graph=False)
        a, = full.apply(insert=[(0, 2)])
        b, = view.apply(insert=[(0, 2)])
        assert (a.positive, a.negative) == (b.positive, b.negative) == want
        assert b.stats["irrelevant"] == (0 if induced else 1)
        a, = full.apply(delete=[(2, 0)])
        b, = view.apply(delete=[(2, 0)])
        assert (a.positive, a.negative) == (b.positive, b.negative) == want[::-1]


def test_a_label_one_query_vertex_holds_pairs_with_itself_only_through_two_vertices():
    """Induced path labelled (0, 1, 2): at most one matched vertex has label 0, so a 0-0 edge is irrelevant,
    while a 0-2 edge (a query non-edge) is relevant."""
    G = _graph(5, [(0, 1), (1, 2), (3, 1)], vlab=[0, 1, 2, 0, 2])
    P = Pattern([(0, 1), (1, 2)], vertex_labels=[0, 1, 2])
    view = la_gpm.DynamicGraph(G, [P], induced=True, keep_graph=False)
    full = la_gpm.DynamicGraph(G, [P], induced=True)
    assert view.view_stats["edges_kept"] == 3
    b, = view.apply(insert=[(0, 3), (0, 2), (4, 4)])
    a, = full.apply(insert=[(0, 3), (0, 2), (4, 4)])
    assert (b.positive, b.negative) == (a.positive, a.negative) == (0, 1)
    assert b.stats["irrelevant"] == 1 and b.stats["ignored_self_loops"] == 1


def test_views_drop_edges_at_construction_and_keep_new_vertex_labels():
    G = _graph(6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)], vlab=[0, 1, 0, 1, 2, 2])
    P = Pattern([(0, 1), (1, 2), (2, 0)], vertex_labels=[0, 1, 0])   # a triangle 0-1-0
    view = la_gpm.DynamicGraph(G, [P], keep_graph=False, count="unique")
    full = la_gpm.DynamicGraph(G, [P], count="unique")
    assert view.view_stats == {**view.view_stats, "edges_kept": 3, "edges_dropped": 3}
    assert view.keep_graph is False and full.keep_graph is True
    # vertex 6 (label 1) comes with an irrelevant edge; later edges to it make a triangle
    for ins, labels in (([(6, 4)], {6: 1}), ([(6, 0), (6, 2), (0, 2)], None)):
        a, = full.apply(insert=ins, labels=labels, listing=True)
        b, = view.apply(insert=ins, labels=labels, listing=True)
        assert (a.positive, a.negative) == (b.positive, b.negative)
        assert _rows(a.positive_matches) == _rows(b.positive_matches)
    assert a.positive == 2                       # 0-1-2 and 0-6-2


def test_unlabelled_query_keeps_every_edge():
    G = _graph(5, [(0, 1), (1, 2), (2, 3), (3, 4)], vlab=[0, 1, 0, 1, 0])
    view = la_gpm.DynamicGraph(G, ["triangle"], keep_graph=False)
    assert view.view_stats["edges_dropped"] == 0
    d, = view.apply(insert=[(0, 2)], delete=np.array([[3, 4]]))
    assert d.positive == 6 and d.stats["irrelevant"] == 0
    U = _graph(4, [(0, 1), (1, 2)])
    d, = la_gpm.DynamicGraph(U, ["triangle"], keep_graph=False).apply(insert=np.array([[0, 2]]))
    assert d.positive == 6 and d.stats["irrelevant"] == 0


def test_mapped_ids_and_listings_use_the_original_ids():
    ids = np.array([10, 20, 30, 40, 50])
    base = _graph(5, [(0, 1), (1, 2), (2, 3), (3, 4)], vlab=[0, 1, 0, 1, 2])
    G = Graph(base.indptr, base.indices, ids=ids, vertex_labels=base.vertex_labels)
    P = Pattern([(0, 1), (1, 2)], vertex_labels=[0, 1, 0])
    full = la_gpm.DynamicGraph(G, [P])
    view = la_gpm.DynamicGraph(G, [P], keep_graph=False)
    for ins, dele, labels in (([(10, 40), (50, 30), (60, 20)], [], {60: 0}), ([(60, 40)], [(20, 30)], None)):
        a, = full.apply(insert=ins, delete=dele, labels=labels, listing=True)
        b, = view.apply(insert=ins, delete=dele, labels=labels, listing=True)
        assert (a.positive, a.negative) == (b.positive, b.negative)
        assert _rows(a.positive_matches) == _rows(b.positive_matches)
        assert _rows(a.negative_matches) == _rows(b.negative_matches)
    assert b.stats["irrelevant"] == 0 and a.positive > 0


def _bad_batches():
    """(insert, delete, labels, strict) batches that raise on the graph of _bad_setup, in both modes."""
    return [
        (np.array([[0, -1]]), None, None, False),                  # a negative id (fast path)
        ([[0, -1]], None, None, False),
        (None, np.array([[0, 9]]), None, False),                   # delete names a missing vertex
        (np.array([[0, 9]]), None, None, False),                   # a new vertex without a label
        (np.array([[0, 9]]), None, {9: "x"}, False),
        (np.zeros((1, 2, 2), dtype=np.int64), None, None, False),  # a wrong shape
        (np.array([0, 1]), None, None, False),
        ([[0.5, 1]], None, None, False),
        (np.array([[3, 3]]), None, None, True),                    # strict: a self-loop (irrelevant labels)
        (np.array([[0, 1], [1, 0]]), None, None, True),            # strict: a repeated relevant pair
        (np.array([[0, 1]]), np.array([[0, 1]]), None, True),      # strict: inserted and deleted
    ]


def _bad_setup():
    G = _graph(6, [(0, 1), (1, 2), (3, 4), (4, 5)], vlab=[0, 1, 0, 2, 2, 2])
    P = Pattern([(0, 1), (1, 2)], vertex_labels=[0, 1, 0])
    return G, P


@pytest.mark.parametrize("bad", range(len(_bad_batches())))
def test_bad_input_raises_the_same_and_changes_nothing(bad):
    G, P = _bad_setup()
    ins, dele, labels, strict = _bad_batches()[bad]
    errs = []
    Ds = [la_gpm.DynamicGraph(G, [P], keep_graph=kg) for kg in (True, False)]
    for D in Ds:
        with pytest.raises(InvalidUpdate) as e:
            D.apply(insert=ins, delete=dele, labels=labels, strict=strict)
        errs.append(str(e.value))
        assert D.version == 0
    assert errs[0] == errs[1]
    # the state is as it was: a good batch now gives the same answer in both modes
    got = [D.apply(insert=[(0, 6), (2, 6), (3, 5)], delete=[(1, 2)], labels={6: 1})[0] for D in Ds]
    assert (got[0].positive, got[0].negative) == (got[1].positive, got[1].negative) == (2, 2)


def test_strict_checks_cover_the_relevant_updates_only():
    G, P = _bad_setup()
    full = la_gpm.DynamicGraph(G, [P])
    view = la_gpm.DynamicGraph(G, [P], keep_graph=False)
    irrelevant_existing = np.array([[3, 4]])          # labels (2, 2): no query edge has them
    with pytest.raises(InvalidUpdate, match="existing edges"):
        full.apply(insert=irrelevant_existing, strict=True)
    d, = view.apply(insert=irrelevant_existing, strict=True)
    assert d.stats["irrelevant"] == 1 and d.stats["ignored_existing_inserts"] == 0
    with pytest.raises(InvalidUpdate, match="existing edges"):
        view.apply(insert=np.array([[0, 1]]), strict=True)     # a relevant one still raises
    assert view.version == 1


def test_keep_graph_must_be_a_bool():
    G, P = _bad_setup()
    with pytest.raises(InvalidArgument, match="keep_graph"):
        la_gpm.DynamicGraph(G, [P], keep_graph="no")


requires_gpu = pytest.mark.skipif(la_gpm.backends.gpu_status() is not None,
                                  reason=f"no GPU: {la_gpm.backends.gpu_status()}")


@pytest.mark.gpu
@requires_gpu
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(edge_labels=True))
def test_gpu_views_equal_the_whole_graph(case):
    _check_stream(*case, backend="gpu")


def test_batch_with_no_relevant_update_takes_the_shortcut():
    """A batch whose updates no query can use changes no match and no view: it returns zeros without opening
    the store (stats["shortcut"]), the version still moves, and the next batches agree with keep_graph=True."""
    vlab = np.array([0, 0, 1, 1, 2, 2, 2], dtype=np.int64)
    G = _graph(7, [(0, 1), (1, 2), (2, 3), (0, 3), (4, 5)], vlab=vlab)
    Q = Pattern([(0, 1), (1, 2)], vertex_labels=[0, 0, 1])      # label pairs (0, 0) and (0, 1)
    view = la_gpm.DynamicGraph(G, [Q], keep_graph=False)
    full = la_gpm.DynamicGraph(G, [Q])
    batches = [dict(insert=[(4, 6), (5, 6)], delete=[(4, 5)]),        # labels (2, 2) only: irrelevant
               dict(insert=[(0, 2)], delete=[]),                        # (0, 1): relevant
               dict(insert=[(2, 4)], delete=[(2, 3)]),                  # (1, 2), (1, 1): irrelevant
               dict(insert=[(1, 3)], delete=[(0, 1)])]                  # relevant
    for j, b in enumerate(batches):
        v, = view.apply(**b, listing=True)
        f, = full.apply(**b, listing=True)
        assert (v.positive, v.negative) == (f.positive, f.negative), j
        assert _rows(v.positive_matches) == _rows(f.positive_matches), j
        assert _rows(v.negative_matches) == _rows(f.negative_matches), j
        assert ("shortcut" in v.stats) == (j in (0, 2)), j
        assert view.version == full.version == j + 1
    assert v.positive > 0 or v.negative > 0
    assert view.apply(insert=[(5, 4)])[0].stats["shortcut"]          # an existing edge, irrelevant: still ignored


@given(st.integers(0, 6), st.lists(st.tuples(st.integers(-3, 9), st.integers(-3, 9)), max_size=30),
       st.integers(0, 2**16))
@settings(max_examples=60, deadline=None)
def test_pair_rule_and_candidate_lists_equal_their_definitions(n, pairs, seed):
    # pair_kept and _candidate_lists are written branch-free / over set bits only (numba keeps a reference
    # count per array an early-returning helper touches): both against their plain definitions, ids out of
    # range (an empty graph's class array has one entry), bits past k ignored
    from la_gpm.dynamic.filter import _candidate_lists
    from la_gpm.dynamic.updates import relevant_rows
    from la_gpm.dynamic.views import relevance_of
    rng = np.random.default_rng(seed)
    G = _graph(n, np.zeros((0, 2)), vlab=rng.integers(0, 3, n))
    rel = relevance_of(G, [Pattern([(0, 1)], vertex_labels=[0, 1])], induced=False)
    arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    keep, bad = relevant_rows(arr, rel.code, n, rel.table)
    want = []
    for t, (x, y) in enumerate(pairs):
        if not (0 <= x < n and 0 <= y < n):
            assert bad and keep.size == 0
            break
        if x == y or rel.table[rel.code[x], rel.code[y]]:
            want.append(t)
    else:
        assert not bad and keep.tolist() == want
    k = int(rng.integers(1, 6))
    ct = rng.integers(0, 2**8, max(n, 1) * 3).astype(np.uint32)
    ptr, idx = _candidate_lists(ct, k)
    lists = [[v for v in range(ct.size) if (int(ct[v]) >> u) & 1] for u in range(k)]
    assert ptr.tolist() == np.cumsum([0] + [len(x) for x in lists]).tolist()
    assert idx.tolist() == [v for x in lists for v in x]
