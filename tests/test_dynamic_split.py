"""Heavy items cut in the parallel counting drive (la_gpm/dynamic/cpu.py, SPLIT_EAGER's notes).

With more than one thread the counting drive takes items from one queue; once a thread is out of items, an item hands
on the candidates after the one it is in at the first level with two or more to go (level 2 at its next look at the
flag, every ``config.dynamic_split_check`` steps; deeper only where a thread is idle), and idle threads search what
was handed on a position a piece (a piece may hand on deeper in turn).  What must hold: every count as without
cutting and as brute force, wherever the items stop (at level 2, below it, deep inside a candidate), with group B's
count handed to the pieces that may take it; ``stats["split_items"]`` and ``stats["split_levels"]`` say it happened;
listings (their offsets come from the counting pass) list every match once.  ``cpu.SPLIT_EAGER`` 1 raises the flag at
the start, so every item of more than one level-2 position hands on at its first look; 2 also counts a thread idle
from the start, so items hand on below level 2 at their first look there: the tests do not depend on which thread
runs out first.
"""

from __future__ import annotations

import time

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import Pattern
from la_gpm.dynamic import cpu
from la_gpm.dynamic.query import F_TWIN

from .depth import examples
from .test_dynamic_escape import PATH7, _after, _count, _hub_case
from .test_dynamic_lane import _stream_case, streams

pytestmark = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2,
                                reason="the splitting drive runs with two threads or more (one core here)")


@pytest.fixture(params=[1, 2], ids=["level2", "deep"])
def eager(monkeypatch, request):
    """Every item hands on at its first look: at level 2 only (hand-ons below it off), or below it too."""
    monkeypatch.setattr(cpu, "SPLIT_EAGER", request.param)
    monkeypatch.setattr(cpu, "SPLIT_DEEP", request.param == 2)
    return request.param


def _hub_graph():
    """The hub tree without its edge c-h (3-4): inserting it makes the 7-paths through the hub h, searched from
    items whose level 2 is h's row (400 neighbours, 7 items of 64 positions with dynamic_split 64); a-b (1-2) is
    inserted with it."""
    G, (a, b), far = _hub_case()
    return _after(G, [], [(3, 4)]), far


def _hub_delta(check, **kw):
    G, far = _hub_graph()
    ins, dele = [(3, 4), (1, 2), far[2]], [far[0]]
    with la_gpm.config.set(parallel_min=1, dynamic_split_check=check, **kw):
        d = la_gpm.match_delta(G, PATH7, insert=ins, delete=dele)
    kept = _count(_after(G, [], dele))
    want = (_count(_after(G, ins, dele)) - kept, _count(G) - kept)
    assert want[0] > 0 and want[1] >= 0
    return d, want


@pytest.mark.parametrize("check", [1, 7, 100])
def test_cut_items_count_as_the_recount(eager, check):
    # the hub's 7-paths: items hand on after 1, 7 or 100 steps (before their first level-2 candidate or deep in
    # one) and what they handed on is searched a position an item
    d, want = _hub_delta(check, dynamic_split=64)
    assert (d.positive, d.negative) == want
    assert d.stats.get("split_items", 0) > 0
    assert (max(d.stats["split_levels"]) > 2) == (eager == 2)


def _gnp_edges(rng, n, p, m):
    """The edges of G(n, p) and a batch of m inserts (absent pairs) and m deletes (edges), drawn from ``rng``."""
    E = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < p]
    absent = sorted({(a, b) for a in range(n) for b in range(a + 1, n)} - set(E))
    ins = [absent[i] for i in rng.choice(len(absent), m, replace=False)]
    dele = [E[i] for i in rng.choice(len(E), m, replace=False)]
    return E, ins, dele


def _gnp_batch(rng, n, p, m):
    """G(n, p) and a batch of m inserts and m deletes (:func:`_gnp_edges`)."""
    E, ins, dele = _gnp_edges(rng, n, p, m)
    return la_gpm.Graph.from_edges([a for a, _ in E], [b for _, b in E], n=n), ins, dele


# a 5-path; a triangle with a 3-path on it (levels that reuse the level before's set: a piece, or an item cut below
# level 2, draws the next level from the cut level's whole set, not the part of it the cut leaves)
_CUT_QUERIES = [Pattern([(0, 1), (1, 2), (2, 3), (3, 4)], k=5),
                Pattern([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5)], k=6)]


@pytest.mark.parametrize("qi", [0, 1], ids=["path5", "tri_path6"])
@pytest.mark.parametrize("induced", [False, True])
def test_handing_on_from_inside_a_candidate_counts_right(eager, induced, qi):
    # G(30, 0.3), 10 inserts and 10 deletes: items of many level-2 candidates, which hand on at their first look,
    # before their first candidate (check 1) or inside one (check 2 and more: the item ends after it)
    G, ins, dele = _gnp_batch(np.random.default_rng(1), 30, 0.3, 10)
    P = _CUT_QUERIES[qi]
    got = {}
    for check in (0, 1, 2, 3, 5, 40):
        with la_gpm.config.set(parallel_min=1, dynamic_split_check=check):
            d = la_gpm.match_delta(G, P, insert=ins, delete=dele, induced=induced)
        got[check] = (d.positive, d.negative)
        assert check == 0 or d.stats.get("split_items", 0) > 0
        # (below level 2 the tri_path6 only: the 5-path's level 3 is counted a node at a time, never handed on)
        assert (max(d.stats.get("split_levels", {0: 0})) > 2) == (eager == 2 and check > 0 and qi == 1)
    assert len(set(got.values())) == 1, got
    after = d.graph
    kw = dict(count="embeddings", induced=induced, backend="cpu")
    assert got[0][0] - got[0][1] == la_gpm.count(after, P, **kw) - la_gpm.count(G, P, **kw)


# spider2 (a 7-vertex tree of four labels): plans with group B from level 4 (its count handed to the pieces) and
# plans with a root memo at level 3; path6: group B from level 3 or 4, a root memo at level 3; an 8-path of two
# labels: cuts down to level 5
_MEMO_QUERIES = [Pattern([(0, 1), (0, 2), (2, 3), (1, 4), (4, 5), (5, 6)], k=7, vertex_labels=[0, 1, 2, 2, 3, 3, 3]),
                 Pattern([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)], k=6, vertex_labels=[0, 0, 1, 1, 2, 2]),
                 Pattern([(i, i + 1) for i in range(7)], k=8, vertex_labels=[0, 1] * 4)]


@pytest.mark.parametrize("qi", [0, 1, 2], ids=["spider7", "path6", "path8"])
def test_deep_pieces_of_memo_plans_count_as_the_recount(qi, monkeypatch):
    # labelled G(40, 0.25), 12 inserts and 12 deletes: every item hands on at level 2 and below (SPLIT_EAGER 2),
    # after 1-40 steps, in plans whose group B count the pieces take over and in plans with a root memo
    monkeypatch.setattr(cpu, "SPLIT_EAGER", 2)
    P = _MEMO_QUERIES[qi]
    plan = la_gpm.dynamic.query.compile_delta_plan(P)
    assert qi == 2 or ((plan.twin[:, 2] >= 4).any() and (plan.twin[:, 3] >= 4).any())
    rng = np.random.default_rng(7 + qi)
    n = 40
    lab = rng.integers(0, 4 if qi < 2 else 2, n)
    E, ins, dele = _gnp_edges(rng, n, 0.25, 12)

    def graph(edges):
        return la_gpm.Graph.from_edges([a for a, _ in edges], [b for _, b in edges], n=n, vertex_labels=lab)

    G = graph(E)
    kw = dict(count="embeddings", backend="cpu")
    kept = la_gpm.count(graph(sorted(set(E) - set(dele))), P, **kw)
    want = (la_gpm.count(graph(sorted(set(E) - set(dele) | set(ins))), P, **kw) - kept, la_gpm.count(G, P, **kw) - kept)
    assert want[0] > 0 and want[1] > 0
    levels = set()
    for check in (1, 2, 3, 8, 40):
        with la_gpm.config.set(parallel_min=1, dynamic_split_check=check):
            d = la_gpm.match_delta(G, P, insert=ins, delete=dele)
        assert (d.positive, d.negative) == want, check
        levels |= set(d.stats["split_levels"])
    assert max(levels) >= (3, 3, 5)[qi]


def test_hand_ons_when_threads_run_out_count_right():
    # the flag raised by threads that really ran out of items (no SPLIT_EAGER), looks every 1, 3 or 17 steps, hub
    # items split or whole: random graphs, three queries, induced and not, against the uncut drive (timing decides
    # which items hand on; 150 such seeds on 2 and 8 threads handed on 118 and 364 times in session 43)
    pats = [Pattern([(0, 1), (1, 2), (2, 3), (3, 4)], k=5),
            Pattern([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5)], k=6),
            Pattern([(0, 1), (0, 2), (0, 3), (3, 4), (4, 5)], k=6)]
    for seed in range(12):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(20, 60))
        G, ins, dele = _gnp_batch(rng, n, float(rng.uniform(0.1, 0.35)), 8)
        res = set()
        for check in (0, 1, 3, 17):
            with la_gpm.config.set(parallel_min=1, dynamic_split_check=check, dynamic_split=int(rng.choice([4, 256]))):
                d = la_gpm.match_delta(G, pats[seed % 3], insert=ins, delete=dele, induced=bool(seed % 2))
            res.add((d.positive, d.negative))
        assert len(res) == 1, (seed, res)


def test_without_cutting_the_same_counts():
    d, want = _hub_delta(0, dynamic_split=64)
    assert (d.positive, d.negative) == want and "split_items" not in d.stats
    d, want = _hub_delta(5, dynamic_split=64)          # cut where a thread runs out first (timing decides where)
    assert (d.positive, d.negative) == want


def test_listing_after_cut_counts_lists_every_match_once(eager):
    # the counting pass cuts items, the listing pass runs them whole at the offsets of the summed counts
    G, far = _hub_graph()
    got = {}
    for check in (0, 3):
        with la_gpm.config.set(parallel_min=1, dynamic_split_check=check, dynamic_split=64):
            d = la_gpm.match_delta(G, PATH7, insert=[(3, 4), (1, 2)], delete=[far[0]], listing=True)
        got[check] = (d.positive, d.negative, sorted(map(tuple, d.positive_matches.tolist())),
                      sorted(map(tuple, d.negative_matches.tolist())), d.stats.get("split_items", 0))
    assert got[0][:4] == got[3][:4] and got[3][0] == len(got[3][2]) > 0
    assert len(set(got[3][2])) == len(got[3][2])
    assert got[3][4] > 0 and got[0][4] == 0


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(), st.booleans(), st.sampled_from([1, 2, 5, 40]), st.sampled_from([2, 256]))
def test_streams_with_every_item_cut_equal_brute_force(case, keep, check, split):
    """Every search in the parallel drive (parallel_min 1: the serial budgets run out at once), every item of more than
    one level-2 position cut after ``check`` steps: counts, stats, graph and tables as brute force and the general
    path have them (random graphs, labels, induced and not, unique and embeddings)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(cpu, "SPLIT_EAGER", 1)
        with la_gpm.config.set(parallel_min=1, dynamic_split_check=check, dynamic_split=split):
            _stream_case(case, keep)


def test_config_rejects_a_negative_check():
    with pytest.raises(la_gpm.InvalidArgument, match="dynamic_split_check"):
        with la_gpm.config.set(dynamic_split_check=-1):
            pass


def _drive_inputs(G, P, ins, dele, monkeypatch):
    """The splitting drive's inputs for one match_delta call: (items, search arguments, leaf arguments, marks)."""
    got = {}
    real = cpu._count_split

    def grab(items, base, counts, leafs, marks, S, bar=None):
        got.update(items=items.copy(), base=base, leafs=leafs, marks=marks)
        return real(items, base, counts, leafs, marks, S, bar)

    monkeypatch.setattr(cpu, "_count_split", grab)
    with la_gpm.config.set(parallel_min=1):
        la_gpm.match_delta(G, P, insert=ins, delete=dele)
    return got["items"], got["base"], got["leafs"], got["marks"]


def test_a_piece_through_group_bs_parent_level_searches_it(monkeypatch):
    # a piece whose path fixes level sp - 1 (spider7's plans with group B from level 4: sp - 1 = 3) and that was handed
    # B's count: level 2 may not count all of level 3's images times that count, only the piece's one (it ignores it)
    rng = np.random.default_rng(3)
    n = 40
    E, ins, dele = _gnp_edges(rng, n, 0.3, 12)
    G = la_gpm.Graph.from_edges([a for a, _ in E], [b for _, b in E], n=n, vertex_labels=rng.integers(0, 4, n))
    items, base, leafs, marks = _drive_inputs(G, _MEMO_QUERIES[0], ins, dele, monkeypatch)
    T, k, maxdeg = base[1], base[-2], base[-1]
    buf, cnt, pos, M = cpu._scratch(k, maxdeg, base[3], T)
    mk = marks[:cpu._THREAD_ROWS] if marks.shape[0] >= cpu._THREAD_ROWS else marks

    def count(row):
        c = np.zeros(1, np.int64)
        cpu.count_serial(row, *base[:-1], buf, cnt, pos, M, c, np.zeros((1, 1), np.int64), *leafs, mk,
                         np.full(1, cpu.STEPS_OFF, np.int64))
        return int(c[0])

    checked = 0
    for j, p, b, lo, hi, side in items.tolist():
        if T[F_TWIN, p, 0, 2] != 4:
            continue
        for x in range(lo, hi):
            row = np.zeros((1, cpu._PIECE), np.int64)
            row[0, :9] = (j, p, b, x, x + 1, side, 3, 0, -1)   # level 3's first candidate (vertex 0 on: its first)
            whole = count(np.array([[j, p, b, x, x + 1, side]], np.int64))
            first = count(row)
            if first == 0 or first == whole:
                continue        # (level 3 empty, or of one image: nothing to tell apart)
            row[0, 8] = first   # B's count: the piece's one level-3 image completes B's count times
            assert count(row) == first, (j, p, x)
            checked += 1
    assert checked > 0


def test_progress_bar_follows_the_items_as_they_end(capsys, monkeypatch):
    # match_delta(progress=True) runs the splitting drive once (no slices), every item is done once (its own search
    # and its pieces': the count the bar reads) and the bar ends at every item, counts as without a bar; the bar's
    # thread reads the items done while the drive runs (a stand-in drive ending one a 0.15 s)
    d0, want = _hub_delta(5, dynamic_split=64)
    G, far = _hub_graph()
    seen = []
    real = cpu._with_bar

    def watch(drive, args, bar, shared, n):
        real(drive, args, bar, shared, n)
        seen.append((int(shared[-cpu._S_DONE]), n, shared[4 * args[-4]:4 * args[-4] + n].tolist()))

    monkeypatch.setattr(cpu, "_with_bar", watch)
    monkeypatch.setattr(cpu, "SPLIT_EAGER", 2)
    with la_gpm.config.set(parallel_min=1, dynamic_split_check=5, dynamic_split=64):
        d = la_gpm.match_delta(G, PATH7, insert=[(3, 4), (1, 2), far[2]], delete=[far[0]], progress=True)
    assert (d.positive, d.negative) == want and d.stats["split_items"] > 0
    n = sum(d.stats["items"].values())
    assert seen == [(n, n, [0] * n)]
    assert f"{n}/{n}" in capsys.readouterr().err

    class Bar:
        def __init__(self):
            self.steps = []

        def update(self, k):
            self.steps.append(k)

    shared = np.zeros(10, np.int64)

    def drive():
        for _ in range(5):
            time.sleep(0.15)
            shared[-cpu._S_DONE] += 1

    bar = Bar()
    real(lambda: drive(), (), bar, shared, 7)
    assert sum(bar.steps) == 7 and len([k for k in bar.steps if k > 0]) >= 3


def test_a_wide_star_counted_by_the_splitting_drive():
    """Twin counts past 2^31 through the drive's two words (low 31 bits, the rest): a 9-leaf star on a hub of 600
    neighbours, C(600, 8) ~ 4.0e17 made by one insert, every item handed on at its first look."""
    import math
    G = la_gpm.Graph.from_edges(np.zeros(600, np.int64), np.arange(1, 601), n=602)
    P = Pattern([(0, i) for i in range(1, 10)])
    for split in (1, 256):
        with la_gpm.config.set(parallel_min=1, dynamic_split=split):
            d = la_gpm.match_delta(G, P, insert=[(0, 601)], count="unique")
        assert (d.positive, d.negative) == (math.comb(600, 8), 0)

