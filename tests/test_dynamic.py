"""Batch-dynamic matching (GAMMA): match_delta and DynamicGraph against brute force and static recounts.

The oracle of a batch: the embeddings of Q in the graph before and after, each enumerated by
brute force (tests/oracles.py); positives are those of after not in before, negatives the reverse.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import Graph, InvalidUpdate, LabelMismatch, Pattern
from la_gpm.dynamic import read_stream
from la_gpm.dynamic.filter import NLFState
from la_gpm.dynamic.views import relevance_of

from .conftest import data_path
from .oracles import brute_embeddings
from .depth import examples


@pytest.fixture(autouse=True)
def _tiny_split():
    """Split every update into items of 2 neighbours, so tiny graphs exercise item splitting, and run the
    parallel builds of the cpu passes even on tiny inputs (test_hundred_batches_... runs the serial ones)."""
    with la_gpm.config.set(dynamic_split=2, parallel_min=1):
        yield


def _graph_from_pairs(n, pairs, vlab=None, elab=None):
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return Graph.from_edges(pairs[:, 0], pairs[:, 1], n=n, vertex_labels=vlab,
                            edge_labels=None if elab is None else np.asarray(elab, np.int64))


def _edge_set(G):
    src = np.repeat(np.arange(G.n), G.degrees)
    out = {}
    for t, (u, v) in enumerate(zip(src.tolist(), G.indices.tolist())):
        if u < v:
            out[(u, v)] = None if G.edge_labels is None else int(G.edge_labels[t])
    return out


def net_edges(G, insert, delete, ins_labels=None):
    """(edges before, edges after) of a batch's net effect, {(u, v): edge label or None} (docs/dynamic.md: a pair
    both inserted and deleted keeps its state; an existing insert or a missing delete changes nothing; a pair
    inserted twice takes its first label)."""
    before = _edge_set(G)
    after = dict(before)
    ins = {(min(u, v), max(u, v)) for u, v in insert if u != v}
    dele = {(min(u, v), max(u, v)) for u, v in delete if u != v}
    both = ins & dele
    lab = {}
    if ins_labels is not None:
        for (u, v), la in zip(insert, ins_labels):
            lab.setdefault((min(u, v), max(u, v)), la)
    for e in dele - both:
        after.pop(e, None)
    for e in ins - both:
        if e not in after:
            after[e] = lab.get(e)
    return before, after


def _oracle(G, P, insert, delete, induced, ins_labels=None):
    """(positive embeddings, negative embeddings, graph after) by brute force, on small graphs."""
    before, after = net_edges(G, insert, delete, ins_labels)
    n = G.n
    keys = sorted(after)
    elab = None if G.edge_labels is None else [after[e] for e in keys]
    Ga = _graph_from_pairs(n, keys, G.vertex_labels, elab)
    eb = set(brute_embeddings(G, P, induced))
    ea = set(brute_embeddings(Ga, P, induced))
    return ea - eb, eb - ea, Ga


def _rows(a):
    return {tuple(int(x) for x in r) for r in a}


def _random_pattern(draw, kmax=5, labels=0, edge_labels=0):
    k = draw(st.integers(2, kmax))
    edges = [(draw(st.integers(0, v - 1)), v) for v in range(1, k)]  # a random tree
    for a in range(k):
        for b in range(a + 1, k):
            if (a, b) not in edges and draw(st.booleans()) and draw(st.booleans()):
                edges.append((a, b))
    vl = [draw(st.integers(0, labels - 1)) for _ in range(k)] if labels else None
    el = {e: draw(st.integers(0, edge_labels - 1)) for e in edges} if edge_labels else None
    return Pattern(edges, k=k, vertex_labels=vl, edge_labels=el)


@st.composite
def cases(draw, edge_labels=False):
    n = draw(st.integers(3, 8))
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    present = [p for p in pairs if draw(st.booleans())]
    nl = draw(st.sampled_from([0, 2, 3]))
    vlab = [draw(st.integers(0, nl - 1)) for _ in range(n)] if nl else None
    nel = 2 if edge_labels else 0
    elab = [draw(st.integers(0, nel - 1)) for _ in present] if nel else None
    G = _graph_from_pairs(n, present, vlab, elab)
    v = st.integers(0, n - 1)
    insert = draw(st.lists(st.tuples(v, v), max_size=8))
    delete = draw(st.lists(st.sampled_from(present) if present and draw(st.booleans()) else st.tuples(v, v),
                           max_size=6))
    P = _random_pattern(draw, kmax=min(5, n), labels=nl if nl and draw(st.booleans()) else 0, edge_labels=nel)
    induced = draw(st.booleans())
    ins_labels = [draw(st.integers(0, nel - 1)) for _ in insert] if nel else None
    return G, P, insert, delete, induced, ins_labels


def _check_case(G, P, insert, delete, induced, ins_labels, backend="cpu"):
    pos, neg, Ga = _oracle(G, P, insert, delete, induced, ins_labels)
    ins = insert if ins_labels is None else [(u, v, la) for (u, v), la in zip(insert, ins_labels)]
    indptr, indices = G.indptr.copy(), G.indices.copy()
    d = la_gpm.match_delta(G, P, insert=ins, delete=delete, induced=induced, listing=True, backend=backend)
    assert (d.positive, d.negative) == (len(pos), len(neg)), (P, insert, delete, induced)
    assert _rows(d.positive_matches) == pos and len(d.positive_matches) == len(pos)
    assert _rows(d.negative_matches) == neg and len(d.negative_matches) == len(neg)
    assert _edge_set(d.graph) == _edge_set(Ga)
    assert np.array_equal(G.indptr, indptr) and np.array_equal(G.indices, indices)  # G is untouched
    u = la_gpm.match_delta(G, P, insert=ins, delete=delete, induced=induced, count="unique", listing=True,
                           backend=backend)
    aut = P.automorphism_count
    assert (u.positive * aut, u.negative * aut) == (len(pos), len(neg))
    assert len(u.positive_matches) == u.positive and len(u.negative_matches) == u.negative
    # count only: one start pair per orbit of Aut(Q), bounded by its stabiliser, counts one embedding per subgraph
    c = la_gpm.match_delta(G, P, insert=ins, delete=delete, induced=induced, backend=backend)
    assert (c.positive, c.negative) == (len(pos), len(neg))
    cu = la_gpm.match_delta(G, P, insert=ins, delete=delete, induced=induced, count="unique", backend=backend)
    assert (cu.positive, cu.negative) == (u.positive, u.negative)
    return d


_SYMMETRIC = [Pattern.named("4-clique"), Pattern.named("5-clique"), Pattern.named("4-cycle"),
              Pattern([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)]),                  # 6-cycle: |Aut| 12
              Pattern([(0, 1), (0, 2), (0, 3), (0, 4)]),                                  # star: 24
              Pattern([(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)]),                  # K_{2,3}: 12
              Pattern([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 2)]),                  # bowtie: 8
              Pattern([(0, 1), (0, 2), (0, 3), (1, 2)], vertex_labels=[0, 1, 1, 1]),      # labels cut Aut to 2
              Pattern([(0, 1), (1, 2), (2, 3), (3, 0)], edge_labels={(0, 1): 0, (1, 2): 1, (2, 3): 0, (3, 0): 1})]


@pytest.mark.parametrize("P", _SYMMETRIC, ids=lambda P: f"k{P.k}-aut{P.automorphism_count}")
@pytest.mark.parametrize("induced", [False, True])
def test_one_start_pair_per_orbit_equals_every_pair_and_brute_force(P, induced):
    """A plan per orbit of Aut(Q) on the start pairs, each bounded by its stabiliser, against a plan per ordered
    pair bounded by Aut(Q) (the lane's and the general path's plans both) and brute force."""
    from la_gpm.dynamic.query import compile_delta_plan
    rng = np.random.default_rng(P.k * 10 + P.automorphism_count + induced)
    n = 12
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < 0.5]
    lab = [int(x) for x in rng.integers(0, 2, n)]
    elab = [int(x) for x in rng.integers(0, 2, len(pairs))] if P.edge_labels is not None else None
    G = _graph_from_pairs(n, pairs, lab if P.vertex_labels is not None else None, elab)
    orb = compile_delta_plan(P, induced=induced)
    grp = compile_delta_plan(P, induced=induced, orbits=False)
    assert len(orb.pairs) < len(grp.pairs) and not orb.pair_cond.any()
    for seed in range(3):
        r = np.random.default_rng(seed)
        absent = [(a, b) for a in range(n) for b in range(a + 1, n) if (a, b) not in set(pairs)]
        ins = [absent[i] for i in r.choice(len(absent), 6, replace=False)]
        dele = [pairs[i] for i in r.choice(len(pairs), 4, replace=False)]
        ins_l = [int(x) for x in r.integers(0, 2, len(ins))] if elab is not None else None
        pos, neg, _ = _oracle(G, P, ins, dele, induced, ins_l)
        ins_arg = ins if ins_l is None else [(u, v, la) for (u, v), la in zip(ins, ins_l)]
        for count, f in (("embeddings", 1), ("unique", P.automorphism_count)):
            c = la_gpm.match_delta(G, P, insert=ins_arg, delete=dele, induced=induced, count=count)
            assert (c.positive * f, c.negative * f) == (len(pos), len(neg)), (count, seed)
            D = la_gpm.DynamicGraph(G, [P], count=count, induced=induced)
            s = D.apply(insert=ins_arg, delete=dele)[0]
            assert (s.positive, s.negative) == (c.positive, c.negative)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_random_batches_equal_brute_force(case):
    _check_case(*case)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(edge_labels=True))
def test_random_edge_labeled_batches_equal_brute_force(case):
    _check_case(*case)


def _fig1():
    # notes/001_gamma.md §5(a): labels v0, v1 = A; v2..v6 = B; v7..v9 = C
    A, B, C = 0, 1, 2
    vl = [A, A, B, B, B, B, B, C, C, C]
    E = [(0, 3), (0, 4), (2, 3), (2, 4), (2, 7), (3, 8), (4, 8), (1, 5), (1, 6), (4, 5), (5, 6), (5, 9)]
    G = _graph_from_pairs(10, E, vl)
    Q = Pattern([(0, 1), (0, 2), (1, 2), (1, 3)], vertex_labels=[A, B, B, C])
    return G, Q


def test_gamma_figure_1(backend_cpu_gpu):
    G, Q = _fig1()
    assert la_gpm.count(G, Q, count="embeddings") == 1
    d = la_gpm.match_delta(G, Q, insert=[(0, 2), (1, 4)], delete=[(4, 5)], listing=True, backend=backend_cpu_gpu)
    assert (d.positive, d.negative) == (4, 0)
    assert _rows(d.positive_matches) == {(0, 2, 3, 7), (0, 2, 4, 7), (0, 3, 2, 8), (0, 4, 2, 8)}
    assert la_gpm.count(d.graph, Q, count="embeddings") == 5
    # the order of the updates inside a batch does not matter
    d2 = la_gpm.match_delta(G, Q, insert=[(4, 1), (2, 0)], delete=[(5, 4)], backend=backend_cpu_gpu)
    assert (d2.positive, d2.negative) == (4, 0)


def test_stream_file_and_new_vertices(tmp_path):
    G, Q = _fig1()
    s = tmp_path / "stream.txt"
    s.write_text("# fig 1\ne 0 2 0\ne 1 4 0\n-e 4 5 0\nv 10 2\ne 2 10 0\n")
    parsed = read_stream(s)
    assert parsed["labels"] == {10: 2} and parsed["insert"].shape == (3, 3)
    d = la_gpm.match_delta(G, Q, insert=s)
    # (v0, v2, v3|v4, v7|v8|v10): the new C vertex v10 hangs off v2 and adds (v0, v3, v2, v10), (v0, v4, v2, v10)
    assert (d.positive, d.negative) == (6, 0)
    assert d.graph.n == 11 and d.graph.vertex_labels[10] == 2 and d.stats["new_vertices"] == 1
    with pytest.raises(InvalidUpdate, match="no label"):
        la_gpm.match_delta(G, Q, insert=[(2, 10)])
    d = la_gpm.match_delta(G, Q, insert=[(0, 2), (2, 10)], labels={10: 2})
    assert d.positive == 6


def test_ids_of_a_compacted_graph_are_the_users_ids():
    G = Graph.from_edges([10, 20], [20, 30], compact=True)   # internal 0, 1, 2
    d = la_gpm.match_delta(G, "triangle", insert=[(10, 30)], listing=True, count="unique")
    assert d.positive == 1 and _rows(d.positive_matches) <= {tuple(p) for p in [(10, 20, 30)]}
    assert sorted(d.positive_matches[0].tolist()) == [10, 20, 30]
    d = la_gpm.match_delta(G, "triangle", insert=[(10, 30), (30, 40), (20, 40)], count="unique", listing=True)
    assert d.positive == 2 and d.stats["new_vertices"] == 1
    assert {tuple(sorted(r)) for r in d.positive_matches.tolist()} == {(10, 20, 30), (20, 30, 40)}
    assert list(d.graph.ids) == [10, 20, 30, 40]


def test_ignored_updates_are_counted_and_strict_raises():
    G = _graph_from_pairs(4, [(0, 1), (1, 2)])
    d = la_gpm.match_delta(G, "triangle", insert=[(0, 1), (2, 2), (0, 2), (2, 0), (1, 3)],
                           delete=[(2, 3), (1, 3)], count="unique")
    s = d.stats
    assert (s["ignored_existing_inserts"], s["ignored_self_loops"], s["ignored_duplicates"],
            s["ignored_insert_and_delete"]) == (1, 1, 1, 1)
    assert s["ignored_missing_deletes"] == 1 and s["inserted"] == 1 and s["deleted"] == 0
    assert d.positive == 1 and d.graph.m == 3
    for ins, dele, msg in [([(0, 1)], None, "existing"), ([(2, 2)], None, "self-loops"),
                           (None, [(2, 3)], "missing"), ([(0, 2), (2, 0)], None, "repeated"),
                           ([(1, 3)], [(1, 3)], "both inserted and deleted")]:
        with pytest.raises(InvalidUpdate, match=msg):
            la_gpm.match_delta(G, "triangle", insert=ins, delete=dele, strict=True)


@pytest.mark.parametrize("bad,msg", [
    ({"delete": [(0, 9)]}, "does not have"),
    ({"insert": [0, 1]}, "flat array"),
    ({"insert": [(0, 1, 2, 3)]}, r"\(m, 2\)"),
    ({"insert": [(0.5, 1)]}, "integer"),
    ({"insert": [(-1, 1)]}, ">= 0"),
    ({"insert": "/no/such/stream.txt"}, "not a file"),
])
def test_bad_batches_raise_named_errors_and_change_nothing(bad, msg):
    G = _graph_from_pairs(3, [(0, 1), (1, 2)])
    D = la_gpm.DynamicGraph(G, ["triangle"])
    with pytest.raises(InvalidUpdate, match=msg):
        la_gpm.match_delta(G, "triangle", **bad)
    with pytest.raises(InvalidUpdate, match=msg):
        D.apply(**bad)
    assert D.version == 0 and D.graph is G and G.m == 2


def test_bad_queries_and_options():
    G, Q = _fig1()
    U = _graph_from_pairs(3, [(0, 1)])
    with pytest.raises(LabelMismatch):
        la_gpm.match_delta(U, Q, insert=[(1, 2)])
    with pytest.raises(la_gpm.InvalidArgument, match="count"):
        la_gpm.match_delta(G, Q, count="maps")
    with pytest.raises(la_gpm.InvalidPattern):
        la_gpm.match_delta(G, Pattern([(0, 1), (2, 3)]))
    with pytest.raises(la_gpm.BackendUnavailable):
        la_gpm.match_delta(G, Q, backend="graphblas")
    with pytest.raises(InvalidUpdate, match="edge labels"):
        la_gpm.match_delta(_graph_from_pairs(3, [(0, 1)], elab=[1]), "triangle", insert=[(1, 2)])
    with pytest.raises(la_gpm.InvalidArgument, match="dynamic_gpu_split_us"):
        with la_gpm.config.set(dynamic_gpu_split_us=-1):
            pass


def _random_batch(rng, G, n_ins, n_del):
    """Random inserts and deletes of present edges, in the graph's original ids (``G.ids``)."""
    E = np.array(sorted(_edge_set(G)), dtype=np.int64).reshape(-1, 2)
    dele = E[rng.choice(len(E), size=min(n_del, len(E)), replace=False)] if len(E) else np.zeros((0, 2), np.int64)
    ins = rng.integers(0, G.n, size=(n_ins, 2))
    return G.ids[ins], G.ids[dele]


def test_hundred_batches_total_equals_recount():
    G = la_gpm.datasets.load("karate")
    queries = ["triangle", "4-cycle", "diamond", Pattern([(0, 1), (1, 2), (2, 3), (3, 4)])]
    D = la_gpm.DynamicGraph(G, queries)
    rng = np.random.default_rng(7)
    totals = np.zeros(len(queries), dtype=object)
    with la_gpm.config.set(parallel_min=10**9, dynamic_split=256):  # the serial builds, default splitting
        for _ in range(100):
            ins, dele = _random_batch(rng, D.graph, 3, 2)
            totals += np.array([d.net for d in D.apply(insert=ins, delete=dele)], dtype=object)
    assert D.version == 100
    for q, t in zip(queries, totals):
        assert la_gpm.count(G, q, count="embeddings") + t == la_gpm.count(D.graph, q, count="embeddings")
    # the incrementally kept candidate tables equal tables built from scratch on the final graph
    fresh = NLFState(D.graph.indptr, D.graph.indices, None, D.queries)
    for a, b in zip(fresh.ct, D._nlf.ct):
        assert np.array_equal(a, b)


def _kept_graph(G, dele, G_after):
    """K: the edges in both G and G_after."""
    keep = set(_edge_set(G)) & set(_edge_set(G_after))
    return _graph_from_pairs(G.n, sorted(keep), G.vertex_labels)


@pytest.mark.parametrize("dataset,queries", [
    ("yeast/yeast.graph", ["query_dense_4_1", "query_dense_8_3", "query_sparse_8_2"]),
    ("hprd/HPRD.graph", None),
])
@pytest.mark.parametrize("rate", [0.001, 0.02])
def test_real_labeled_graphs_equal_static_counts(dataset, queries, rate, backend_cpu_gpu):
    """positive = |M(G')| − |M(K)| and negative = |M(G)| − |M(K)|, by la_gpm's static engine."""
    path = data_path(dataset)
    G = la_gpm.io.read_sunluo(path)
    qdir = path.parent / "query_graph"
    if queries is None:
        files = [qdir / f"query_dense_16_{i}.graph" for i in (1, 2, 8)]
    else:
        files = [qdir / f"{q}.graph" for q in queries]
    rng = np.random.default_rng(3)
    nb = max(3, int(rate * G.m))
    E = np.array(sorted(_edge_set(G)), dtype=np.int64)
    pick = E[rng.choice(len(E), size=nb, replace=False)]
    n_ins = (2 * nb) // 3
    # the base graph lacks the edges that will be inserted: real edges come back (as in RapidFlow's streams)
    rest = set(map(tuple, E.tolist())) - set(map(tuple, pick[:n_ins].tolist()))
    G0 = _graph_from_pairs(G.n, sorted(rest), G.vertex_labels)
    ins, dele = pick[:n_ins], pick[n_ins:]
    for f in files:
        Q = la_gpm.patterns.read_query(f)
        d = la_gpm.match_delta(G0, Q, insert=ins, delete=dele, backend=backend_cpu_gpu)
        K = _kept_graph(G0, dele, d.graph)
        before, after, kept = (la_gpm.count(g, Q, count="embeddings") for g in (G0, d.graph, K))
        assert (d.positive, d.negative) == (after - kept, before - kept), f.name


requires_gpu = pytest.mark.skipif(la_gpm.backends.gpu_status() is not None,
                                  reason=f"no GPU: {la_gpm.backends.gpu_status()}")


@pytest.mark.gpu
@requires_gpu
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(edge_labels=True), st.sampled_from([32, 64, 256]))
def test_gpu_equals_brute_force_on_random_batches(case, block):
    """Small blocks and a tiny memory budget: few warps take many items each."""
    with la_gpm.config.set(gpu_block=block, memory_budget=4096):
        _check_case(*case, backend="gpu")


@pytest.mark.gpu
@requires_gpu
def test_gpu_equals_cpu_on_a_stream():
    G = la_gpm.datasets.load("email-Eu-core")
    rng = np.random.default_rng(11)
    qs = ["triangle", "4-cycle", "diamond", "house"]
    Dc = la_gpm.DynamicGraph(G, qs, backend="cpu")
    Dg = la_gpm.DynamicGraph(G, qs, backend="gpu")
    for _ in range(5):
        ins, dele = _random_batch(rng, Dc.graph, 200, 100)
        a = Dc.apply(insert=ins, delete=dele)
        b = Dg.apply(insert=ins, delete=dele)
        assert [(d.positive, d.negative) for d in a] == [(d.positive, d.negative) for d in b]
    a = la_gpm.match_delta(Dc.graph, "diamond", insert=ins[:20], delete=dele[:10], listing=True, induced=True)
    b = la_gpm.match_delta(Dc.graph, "diamond", insert=ins[:20], delete=dele[:10], listing=True, induced=True,
                           backend="gpu")
    assert _rows(a.positive_matches) == _rows(b.positive_matches) and len(b.positive_matches) == b.positive
    assert _rows(a.negative_matches) == _rows(b.negative_matches)


def test_item_counts_past_int64_are_python_ints(monkeypatch):
    """The GPU's per-item counts (two uint64 words: the sum mod 2^64 and its carries) and the CPU splitting drive's
    (two int64 words: the low 31 bits and the rest) become int64, or Python ints past it, and the engine sums those
    exactly (no numba on an object array)."""
    from la_gpm.dynamic import engine
    from la_gpm.dynamic.cpu import exact_counts
    u = np.uint64
    small = exact_counts(np.array([5, 2**62], u), np.zeros(2, u), 64)
    assert small.dtype == np.int64 and small.tolist() == [5, 2**62]
    big = exact_counts(np.array([5, 2**63 + 1, 3], u), np.array([0, 0, 2], u), 64)
    assert big.dtype == object and big.tolist() == [5, 2**63 + 1, 2 * 2**64 + 3]

    # the CPU's splitting drive: an item's pieces summed in two words (low 31 bits, the rest)
    c = exact_counts(np.array([7, 2**31 - 1], np.int64), np.array([3, 2**30], np.int64), 31)
    assert c.dtype == np.int64
    assert c.tolist() == [3 * 2**31 + 7, 2**30 * 2**31 + 2**31 - 1]
    wide = exact_counts(np.array([5, 2**40], np.int64), np.array([2**31, 2**33], np.int64), 31)
    assert wide.dtype == object and wide.tolist() == [2**31 * 2**31 + 5, 2**33 * 2**31 + 2**40]

    class Fake:
        @staticmethod
        def count_items(items, *a):     # item t's count: big[t] (t in column 0)
            return big[items[:, 0]]

    E = engine._Engine("cpu")
    E.mod = Fake
    items = np.zeros((3, 6), np.int64)
    items[:, 0] = np.arange(3)
    items[:, 5] = [1, 2, 1]
    assert E.run(items, None, None, None, None, None, False, False) == (5 + 2 * 2**64 + 3, 2**63 + 1, None, None)
    items = np.repeat(items, 30, axis=0)      # the progress bar's slices (64 items or more)
    items[:, 0] = np.arange(90)
    big = np.array([2**64 * 3 + t for t in range(90)], dtype=object)
    want_pos = sum(int(big[t]) for t in range(90) if items[t, 5] == 1)
    assert E.run(items, None, None, None, None, None, False, True)[0] == want_pos


def test_cli_dynamic_batches(tmp_path, capsys):
    import json

    from la_gpm.cli import main
    G, Q = _fig1()
    data = tmp_path / "g.graph"
    src = np.repeat(np.arange(G.n), G.degrees)
    E = [(u, v) for u, v in zip(src.tolist(), G.indices.tolist()) if u < v]
    data.write_text(f"t {G.n} {len(E)}\n" + "".join(f"v {i} {lab} {G.degrees[i]}\n"
                                                     for i, lab in enumerate(G.vertex_labels.tolist()))
                    + "".join(f"e {u} {v} 0\n" for u, v in E))
    q = tmp_path / "q.graph"
    q.write_text("t 4 4\nv 0 0 2\nv 1 1 3\nv 2 1 2\nv 3 2 1\ne 0 1 0\ne 0 2 0\ne 1 2 0\ne 1 3 0\n")
    s = tmp_path / "s.txt"
    s.write_text("e 0 2 0\ne 1 4 0\n-e 4 5 0\n")
    assert main(["dynamic", str(data), str(q), str(s), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["positive"], out["negative"]) == (4, 0) and len(out["batches"]) == 1
    # one update per batch: continuous matching; +v1v4 creates two matches that -v4v5 destroys
    assert main(["dynamic", str(data), str(q), str(s), "--batch-size", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(b["positive"], b["negative"]) for b in out["batches"]] == [(4, 0), (2, 0), (0, 2)]
    assert main(["dynamic", str(data), str(q), str(tmp_path / "missing.txt")]) == 2
    assert "InvalidUpdate" in capsys.readouterr().err


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(edge_labels=True), cases(edge_labels=True), st.integers(0, 2**31 - 1))
def test_dynamic_graph_stream_equals_brute_force(case, other, seed):
    """A stream of three batches through DynamicGraph, with a second (maybe unlabeled) query standing by:
    every batch's counts and listings equal the brute-force oracle on the graph the stream has reached,
    and the kept candidate tables equal tables built from scratch."""
    G, P, insert, delete, induced, ins_labels = case
    P2 = other[1] if other[1].k <= G.n else P
    if P2.vertex_labels is not None and G.vertex_labels is None:
        P2 = Pattern(P2.edges, k=P2.k, edge_labels=P2.edge_labels)
    D = la_gpm.DynamicGraph(G, [P, P2], induced=induced)
    rng = np.random.default_rng(seed)
    cur = G
    for step in range(3):
        if step:
            ins = [tuple(x) for x in rng.integers(0, G.n, size=(4, 2)).tolist()]
            present = sorted(_edge_set(cur))
            dele = [present[t] for t in rng.choice(len(present), size=min(2, len(present)), replace=False)] \
                if present else []
            labs = rng.integers(0, 2, size=len(ins)).tolist()
        else:
            ins, dele, labs = insert, delete, ins_labels
        rows = [(u, v, la) for (u, v), la in zip(ins, labs)] if labs is not None else ins
        got = D.apply(insert=rows, delete=dele, listing=True)
        for q, d in zip((P, P2), got):
            pos, neg, after = _oracle(cur, q, ins, dele, induced, labs)
            assert (d.positive, d.negative) == (len(pos), len(neg))
            assert _rows(d.positive_matches) == pos and _rows(d.negative_matches) == neg
        cur = D.graph
        assert _edge_set(cur) == _edge_set(after)
    _same_tables(D, cur)


def _fresh_tables(D, cur):
    """The tables of D's queries built from scratch on graph ``cur``: on the edges some query can use, as either mode
    of a DynamicGraph counts them (filter.NLFState; every edge where a query or the graph is unlabelled)."""
    return NLFState(cur.indptr, cur.indices, cur.vertex_labels, D.queries,
                    relevance=relevance_of(cur, D.queries, D._induced))


def _same_tables(D, cur):
    """The incrementally kept candidate tables and candidate lists equal those built from scratch."""
    fresh = _fresh_tables(D, cur)
    for a, b in zip(fresh.ct, D._nlf.ct):
        assert np.array_equal(a, b)
    for a, b in zip(fresh.cand, D._nlf.cand):
        assert np.array_equal(a.ptr, b.ptr) and np.array_equal(a.idx, b.idx)


def test_every_version_survives_growth_and_compaction(monkeypatch):
    """DynamicGraph keeps its graph as rows over one arc buffer that grows and is compacted: graphs of
    earlier batches, read only at the end (after compactions), are still the graphs after those batches,
    and every batch's counts equal brute force on the graph the stream had reached (followed by hand)."""
    monkeypatch.setattr(la_gpm.config, "dynamic_room", 64)    # a buffer this small graph outgrows
    rng = np.random.default_rng(5)
    n = 14
    E = sorted({(min(u, v), max(u, v)) for u, v in rng.integers(0, n, size=(30, 2)).tolist() if u != v})
    vlab = rng.integers(0, 2, n).tolist()
    G = _graph_from_pairs(n, E, vlab=vlab, elab=rng.integers(0, 2, len(E)))
    P = Pattern([(0, 1), (1, 2), (2, 0)], vertex_labels=[0, 0, 1], edge_labels={(0, 1): 0, (1, 2): 1, (0, 2): 0})
    D = la_gpm.DynamicGraph(G, [P, "4-path"])
    model = _edge_set(G)
    kept, models = [], []
    for step in range(150):
        ins = [tuple(x) for x in rng.integers(0, n + 1, size=(3, 2)).tolist()]   # id n: a new vertex
        present = sorted(model)
        dele = [present[t] for t in rng.choice(len(present), size=min(2, len(present)), replace=False)]
        labs = rng.integers(0, 2, size=len(ins)).tolist()
        grows = any(n in e for e in ins if e[0] != e[1])
        if grows:
            vlab.append(int(rng.integers(0, 2)))
            n += 1
        keys = sorted(model)
        cur = _graph_from_pairs(n, keys, vlab=vlab, elab=[model[e] for e in keys])
        pos, neg, after = _oracle(cur, P, ins, dele, False, labs)
        got = D.apply(insert=[(u, v, la) for (u, v), la in zip(ins, labs)], delete=dele,
                      labels={n - 1: vlab[-1]} if grows else None)
        assert (got[0].positive, got[0].negative) == (len(pos), len(neg))
        model = _edge_set(after)
        kept.append(got[1])
        models.append((n, model))
        if step % 25 == 24:
            assert _edge_set(D.graph) == model   # reading the newest version now and then
    S = D._store
    assert S.compactions >= 1 and S.generation >= 2, (S.compactions, S.generation)
    for d, (nv, m) in zip(kept, models):
        assert d.graph.n == nv and _edge_set(d.graph) == m
    _same_tables(D, D.graph)


def test_match_delta_puts_the_graph_back_and_is_thread_safe():
    """match_delta changes G's kept store during a call and puts it back: repeated and concurrent calls
    on one graph (batches that add vertices among them) equal brute force and leave G as it was."""
    from concurrent.futures import ThreadPoolExecutor
    rng = np.random.default_rng(3)
    G = la_gpm.datasets.load("karate")
    batches = []
    for _ in range(12):
        ins, dele = _random_batch(rng, G, 6, 4)
        ins = np.vstack([ins, [[34, 0], [35, 34]]]) if len(batches) % 3 == 0 else ins
        batches.append((ins.tolist(), dele.tolist()))
    Gx = _graph_from_pairs(36, sorted(_edge_set(G)))   # G with the two vertices some batches add
    want = [_oracle(Gx, Pattern([(0, 1), (1, 2), (2, 0), (2, 3)]), i, d, False)[:2] for i, d in batches]
    want = [(len(p), len(n)) for p, n in want]
    with ThreadPoolExecutor(4) as ex:
        got = list(ex.map(lambda b: la_gpm.match_delta(G, "tailed-triangle", insert=b[0], delete=b[1]), batches * 3))
    assert [(d.positive, d.negative) for d in got] == want * 3
    assert G.n == 34 and G.m == 78


def test_auto_backend_runs_on_the_cpu():
    G, Q = _fig1()
    assert la_gpm.match_delta(G, Q, insert=[(0, 2)], backend="auto").stats["backend"] == "cpu"
    with la_gpm.config.set(backend="auto"):
        assert la_gpm.DynamicGraph(G, [Q]).apply(insert=[(0, 2)])[0].stats["backend"] == "cpu"
