"""The host path of batch-dynamic matching (docs/dynamic.md): the one-pass normalisation and layout
(``updates.net_layout``), the store's scratch kept between batches, the items' counting sort, and
``cpu.side_totals``, each against a plain-Python reference."""

from __future__ import annotations

import numpy as np
import pytest

import la_gpm
from la_gpm.dynamic import cpu
from la_gpm.dynamic.cpu import start_items
from la_gpm.dynamic.store import ArcStore
from la_gpm.dynamic.updates import net_layout, normalise


def _graph(n, m, rng):
    pairs = {tuple(sorted(map(int, rng.choice(n, 2, replace=False)))) for _ in range(m)}
    e = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
    return la_gpm.Graph.from_edges(e[:, 0], e[:, 1], n=n), set(pairs)


def _reference(E, ins, dele):
    """The net effect and layout of a batch, by the rules of docs/dynamic.md, in plain Python."""
    st = {"loops": 0}
    ci, cd = [], []
    for rows, out in ((ins, ci), (dele, cd)):
        for x, y in rows[:, :2].tolist():
            if x == y:
                st["loops"] += 1
            else:
                out.append((min(x, y), max(x, y)))
    si, sd = set(ci), set(cd)
    st["dup"] = len(ci) - len(si) + len(cd) - len(sd)
    both = si & sd
    st["both"] = len(both)
    st["existing"] = len({p for p in si - both if p in E})
    st["missing"] = len({p for p in sd - both if p not in E})
    insert = sorted(p for p in si - both if p not in E)
    delete = sorted(p for p in sd - both if p in E)
    order = {p: j for j, p in enumerate(insert + delete)}
    arcs = {}
    for (x, y), j in order.items():
        arcs.setdefault(x, []).append((y, j))
        arcs.setdefault(y, []).append((x, j))
    touched = sorted(arcs)
    return st, insert, delete, touched, [sorted(arcs[v]) for v in touched]


def _check_layout(out, ref, n_old, G):
    ins, ifirst, dele, cnt, ex, touched, tptr, adst, aod, icnt = out
    st, insert, delete, rtouched, rarcs = ref
    assert [tuple(p) for p in ins.tolist()] == insert
    assert [tuple(p) for p in dele.tolist()] == delete
    assert (int(cnt[0] + cnt[1]), int(cnt[2]), int(cnt[3]), int(cnt[4]), int(cnt[5])) == (
        st["loops"], st["dup"], st["both"], st["existing"], st["missing"])
    assert touched.tolist() == rtouched
    a = len(insert)
    for t, v in enumerate(touched.tolist()):
        got = list(zip(adst[tptr[t]:tptr[t + 1]].tolist(), aod[tptr[t]:tptr[t + 1]].tolist()))
        assert got == rarcs[t]
        assert icnt[t] == sum(1 for _, j in got if j < a)


@pytest.mark.parametrize("seed", range(6))
def test_net_layout_equals_a_python_reference_on_both_sort_paths(seed):
    """Small batches on a big vertex set take the per-slot sort (a hub with > 24 arcs: np.sort), large ones the
    counting sort by target; duplicates, reversed pairs, self-loops, pairs both inserted and deleted, inserts of
    edges and deletes of non-edges mixed in."""
    rng = np.random.default_rng(seed)
    n = [40, 3000][seed % 2]
    G, E = _graph(n, 4 * n, rng)
    S = ArcStore(G)
    for size in (0, 1, 5, 60, 400):
        m = size
        ins = rng.integers(0, n if seed % 2 == 0 else 30, (m, 2))
        hub = np.column_stack([np.zeros(30, np.int64), rng.integers(1, n, 30)])   # vertex 0: a hub
        dele = np.concatenate([rng.integers(0, n, (m // 2, 2)), np.array(sorted(E), np.int64)[:m // 3], hub])
        ins = np.concatenate([ins, ins[: m // 4, ::-1], dele[: m // 5], [[3, 3]]]).astype(np.int64)
        mark = S.scratch_mark(n)
        out = net_layout(ins, dele, n, n, S.rows, S.idx, mark)
        assert out[3][6] == 0
        assert (mark == -1).all(), "the scratch must come back all -1"
        _check_layout(out, _reference(E, ins, dele), n, G)


def test_net_layout_reports_out_of_range_ids_and_leaves_the_scratch_clean():
    rng = np.random.default_rng(0)
    G, E = _graph(50, 100, rng)
    S = ArcStore(G)
    mark = S.scratch_mark(50)
    for ins, dele in (([[0, 50]], []), ([], [[1, 50]]), ([[-1, 2]], []), ([[1, 2]], [[3, -4]])):
        ins = np.array(ins, np.int64).reshape(-1, 2)
        dele = np.array(dele, np.int64).reshape(-1, 2)
        out = net_layout(ins, dele, 50, 50, S.rows, S.idx, mark)
        assert out[3][6] == 1
        assert (mark == -1).all()
    # a new vertex is fine when N counts it
    out = net_layout(np.array([[0, 50]], np.int64), np.zeros((0, 2), np.int64), 51, 50, S.rows, S.idx,
                     S.scratch_mark(51))
    assert out[3][6] == 0 and out[5].tolist() == [0, 50]


def test_scratch_reuse_over_many_batches_of_varying_size():
    """One store and one DynamicGraph over 60 batches of sizes from 0 to half the graph, new vertices now and
    then: every batch's counts equal a recount, every batch's stats equal the reference, the scratch stays clean
    and grows with the graph, and match_delta on each version agrees."""
    rng = np.random.default_rng(7)
    n = 60
    G, E = _graph(n, 150, rng)
    labels = rng.integers(0, 2, n)
    G = la_gpm.Graph.from_edges(*np.array(sorted(E)).T, n=n, vertex_labels=labels)
    qs = [la_gpm.Pattern([(0, 1), (1, 2), (2, 0)]), la_gpm.Pattern([(0, 1), (1, 2), (2, 3)], vertex_labels=[0, 1, 1, 0])]
    D = la_gpm.DynamicGraph(G, qs)
    cur, E = G, set(E)
    nv = n
    for b in range(60):
        size = int(rng.choice([0, 1, 3, 10, 40, 120]))
        ins = rng.integers(0, nv, (size, 2)).astype(np.int64)
        dele = np.array(sorted(E), np.int64)[rng.permutation(len(E))[: size // 2]].reshape(-1, 2)
        dele = np.concatenate([dele, rng.integers(0, nv, (size // 4, 2))]).astype(np.int64)
        new = {}
        if b % 7 == 3:                      # two new vertices
            ins = np.concatenate([ins, [[0, nv], [nv, nv + 1]]]).astype(np.int64)
            new = {nv: 1, nv + 1: 0}
        ref = _reference(E, ins, dele)
        before = [la_gpm.count(cur, q, count="embeddings") for q in qs]
        md = [la_gpm.match_delta(cur, q, insert=ins, delete=dele, labels=new) for q in qs]
        out = D.apply(insert=ins, delete=dele, labels=new)
        st = out[0].stats
        assert (st["ignored_self_loops"], st["ignored_duplicates"], st["ignored_insert_and_delete"],
                st["ignored_existing_inserts"], st["ignored_missing_deletes"]) == (
            ref[0]["loops"], ref[0]["dup"], ref[0]["both"], ref[0]["existing"], ref[0]["missing"])
        assert st["inserted"] == len(ref[1]) and st["deleted"] == len(ref[2])
        assert st["new_vertices"] == len(new)
        E = (E | set(ref[1])) - set(ref[2])
        nv += len(new)
        cur = D.graph
        assert cur.m == len(E)
        for q, d, m, b0 in zip(qs, out, md, before):
            after = la_gpm.count(cur, q, count="embeddings")
            assert d.net == after - b0
            assert (m.positive, m.negative) == (d.positive, d.negative)
        assert (D._store._mark == -1).all()
        assert D._store._mark.shape[0] >= nv


def test_items_come_heaviest_first_in_a_stable_order():
    """The items' counting sort (or its stable fallback) is the order of a stable sort by descending cost."""
    rng = np.random.default_rng(3)
    G, E = _graph(200, 2000, rng)
    S = ArcStore(G)
    P = la_gpm.Pattern([(0, 1), (1, 2), (2, 3), (3, 0)])
    from la_gpm.dynamic.filter import NLFState
    from la_gpm.dynamic.query import compile_delta_plan
    nlf = NLFState(G.indptr, G.indices, None, [P])
    plan = compile_delta_plan(P, induced=False, candidates=nlf.cand[0].sizes, symmetry=True)
    b = normalise(S, rng.integers(0, 200, (300, 2)), np.array(sorted(E), np.int64)[:100])
    op = S.open(b)
    fo = nlf.open(b, op.vlab, op.touched)
    try:
        cand = fo.cands[0]
        for split in (1, 3, 16, 256, 10**6):
            args = (op.upd, op.ustate, op.uel, cand.ct, cand.ptr, S.rows, plan.packed, plan.pairs, plan.pair_edge,
                    plan.pair_el, plan.pair_cond, plan.k, split)
            n = start_items(*args, np.zeros((1, 6), np.int64), False)
            raw = np.empty((n, 6), np.int64)
            start_items(*args, raw, True)
            want = raw[np.argsort(-(raw[:, 4] - raw[:, 3]), kind="stable")]
            got, npos = cpu.build_items(plan, op.upd, op.ustate, op.uel, cand, S.rows, split)
            assert np.array_equal(got, want)
            assert npos == int((raw[:, 5] == 1).sum())
    finally:
        nlf.revert(fo)
        S.revert(op)


def test_side_totals_flags_a_possible_overflow():
    items = np.zeros((3, 6), np.int64)
    items[:, 5] = [1, 2, 1]
    assert cpu.side_totals(np.array([1, 2, 3], np.int64), items) == (4, 2, False)
    big = np.array([2**62, 2**62, 5], np.int64)
    assert cpu.side_totals(big, items)[2]
