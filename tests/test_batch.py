"""Batched multi-query counting (la_gpm.api.count_many) against independent oracles.

CPU-only: count_many(backend="cpu") against brute force; the validation errors (with the offending
pattern's index); the batch's depth-1 items against ``prepare_roots``; and a Python emulation of
the GPU batch (``enum_batch_level``'s control flow on the packed tables that the device reads:
query offsets, per-query k, breadth-first levels with a capacity and depth-first spills, the
depth-first threshold, the rebuild of reused sets only) against brute force and the CPU engine.
GPU (marked ``gpu``): count_many(backend="gpu") against the CPU engine / brute force / the 200
published HPRD counts, under tight memory budgets, tiny level capacities and every threshold.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import Pattern
from la_gpm.api import count_many
from la_gpm.api import count_pattern
from la_gpm.exact.plans import engine_arrays, plan_for, prepare_roots
from la_gpm.backends import gpu_status
from la_gpm.exact import dumato as genum
from la_gpm.exceptions import InvalidArgument, InvalidPattern, LabelMismatch, PatternTooLarge
from la_gpm.patterns import plan as pm
from la_gpm.patterns import read_query

from .conftest import data_path
from .oracles import brute_count
from .test_exact import _hprd_expected, _random_graph, _random_pattern

NO_GPU = gpu_status()
needs_gpu = pytest.mark.skipif(NO_GPU is not None, reason=f"no GPU: {NO_GPU}")


def _random_batch(seed, nq, vlabels, elabels, kmax=5):
    rng = random.Random(seed)
    G = _random_graph(rng, rng.randrange(5, 10), rng.uniform(0.3, 0.8), vlabels, elabels)
    pats = []
    for _ in range(nq):
        k = rng.randrange(1, kmax + 1)
        pats.append(_random_pattern(rng, k, rng.randrange(4) if k > 1 else 0, vlabels, elabels))
    return G, pats


# ------------------------------------------------------------------------------------- cpu path
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), induced=st.booleans(), kind=st.sampled_from(["unique", "embeddings"]),
       vlabels=st.sampled_from([0, 2]), elabels=st.sampled_from([0, 0, 2]))
def test_cpu_count_many_equals_brute_force(seed, induced, kind, vlabels, elabels):
    G, pats = _random_batch(seed, 4, vlabels, elabels, kmax=4)
    want = [brute_count(G, P, induced, kind) for P in pats]
    for cpu_batch in (False, True):
        got = count_many(G, pats, induced=induced, count=kind, backend="cpu", cpu_batch=cpu_batch)
        assert got == want, cpu_batch
        assert all(type(x) is int for x in got)


def test_cpu_named_patterns_and_order():
    G = la_gpm.datasets.load("karate")
    names = ["house", "4-cycle", "triangle", "diamond", "bowtie", "4-clique"]
    assert count_many(G, names, backend="cpu") == [count_pattern(G, n, closed_forms=False) for n in names]
    assert count_many(G, names, backend="cpu", induced=True, count="embeddings") == [
        count_pattern(G, n, induced=True, count="embeddings") for n in names]
    assert count_many(G, [], backend="cpu") == []


def test_cpu_batch_hprd_200_published_counts():
    """The cpu batch (all 200 labeled 16-vertex HPRD queries in one parallel region) against the
    published embedding counts."""
    from la_gpm.io import read_sunluo
    H = read_sunluo(data_path("hprd/HPRD.graph"))
    exp = _hprd_expected()
    names = sorted(exp)
    Qs = [read_query(data_path(f"hprd/query_graph/{n}.graph")) for n in names]
    got = count_many(H, Qs, count="embeddings", backend="cpu", cpu_batch=True)
    assert dict(zip(names, got)) == exp


def test_validation_errors_name_the_pattern_index():
    G = la_gpm.datasets.load("karate")
    big = Pattern([(i, i + 1) for i in range(12)], k=13)  # an unlabeled 13-vertex path: over the limit
    with pytest.raises(PatternTooLarge, match=r"patterns\[2\]"):
        count_many(G, ["triangle", "4-cycle", big], backend="cpu")
    lab = Pattern([(0, 1), (1, 2)], k=3, vertex_labels=[0, 1, 0])
    with pytest.raises(LabelMismatch, match=r"patterns\[1\].*vertex labels"):
        count_many(G, ["triangle", lab], backend="cpu")
    disc = Pattern([(0, 1), (2, 3)], k=4)
    with pytest.raises(InvalidPattern, match=r"patterns\[0\].*connected"):
        count_many(G, [disc], backend="cpu")
    with pytest.raises(InvalidPattern, match=r"patterns\[1\]"):
        count_many(G, ["triangle", "no-such-pattern-name"], backend="cpu")
    with pytest.raises(InvalidArgument, match="count"):
        count_many(G, ["triangle"], count="copies")
    with pytest.raises(InvalidArgument, match="memory_budget"):
        count_many(G, ["triangle"], memory_budget=0)
    with pytest.raises(InvalidArgument, match="deep_items"):
        count_many(G, ["triangle"], deep_items=-1)
    with pytest.raises(InvalidArgument, match="list"):
        count_many(G, "triangle")
    with pytest.raises(InvalidArgument, match="induced"):
        count_many(G, ["triangle"], induced="yes")


def test_validation_happens_before_any_counting(monkeypatch):
    """A bad pattern at the end stops the batch before the first pattern is counted."""
    import la_gpm.api as bm
    calls = []
    monkeypatch.setattr(bm, "count_pattern", lambda *a, **k: calls.append(1) or 0)
    with pytest.raises(PatternTooLarge, match=r"patterns\[1\]"):
        count_many(la_gpm.datasets.load("karate"), ["triangle", Pattern([(i, i + 1) for i in range(12)], k=13)],
                   backend="cpu")
    assert not calls


@pytest.mark.skipif(NO_GPU is None, reason="a GPU is visible here")
def test_gpu_backend_declines_without_device():
    from la_gpm.exceptions import BackendUnavailable
    with pytest.raises(BackendUnavailable, match="unavailable"):
        count_many(la_gpm.datasets.load("karate"), ["triangle", "4-cycle"], backend="gpu")


def test_repeated_batches_of_the_same_objects():
    """The cache of validated patterns and plans (keyed by the input objects) gives the same counts,
    and a new list of equal patterns (other objects) too; names are not cached."""
    G = la_gpm.datasets.load("karate")
    pats = [Pattern.named(n) for n in ("diamond", "house", "4-cycle", "5-clique")]
    want = [count_pattern(G, P, closed_forms=False) for P in pats]
    for _ in range(3):
        assert count_many(G, pats, backend="cpu", cpu_batch=True) == want
        assert count_many(G, [Pattern.named(n) for n in ("diamond", "house", "4-cycle", "5-clique")],
                          backend="cpu", cpu_batch=True, closed_forms=False) == want
    assert count_many(G, pats, backend="cpu", cpu_batch=True, induced=True) == [
        count_pattern(G, P, induced=True) for P in pats]


# ----------------------------------------------------------------------------- batch host logic
@pytest.mark.parametrize("vlabels", [0, 3])
def test_batch_roots_equal_prepare_roots(vlabels):
    rng = random.Random(7 + vlabels)
    G = _random_graph(rng, 40, 0.15, vlabels)
    pats = [_random_pattern(rng, k, rng.randrange(3) if k > 1 else 0, vlabels)
            for k in [rng.randrange(1, 6) for _ in range(12)]]
    pats.append(Pattern([(0, 1)], k=2, vertex_labels=[99, 0]) if vlabels else Pattern.named("5-clique"))
    plans = [plan_for(G, P) for P in pats]
    vl = bool(vlabels)
    rows, n = genum.batch_roots(G, plans, vl, False)
    _, _, _, _, deg, vlab, _ = engine_arrays(G, vl, False)
    for q, plan in enumerate(plans):
        want = prepare_roots(deg, vlab, plan)
        got = np.sort(rows[rows[:, 0] == q, 1])
        assert got.tolist() == want.tolist(), q
        assert n[q] == want.shape[0]
    assert rows.dtype == np.int32 and rows.shape[0] == int(n.sum())


def test_pack_batch_tables_round_trip():
    plans = [pm.compile_plan(Pattern.named(p), induced=i) for p in ("triangle", "house", "4-path", "5-clique")
             for i in (False, True)]
    pack, t_all, c_all = genum.pack_batch_tables(plans)
    qtab = pack[t_all + c_all:].reshape(-1, 3)
    for q, plan in enumerate(plans):
        T, C = plan.tables()
        k = int(qtab[q, 2])
        assert k == plan.k
        assert np.array_equal(pack[qtab[q, 0]:qtab[q, 0] + T.size].reshape(T.shape), T)
        assert np.array_equal(pack[t_all + qtab[q, 1]:t_all + qtab[q, 1] + C.size].reshape(C.shape), C)


def test_batch_layout_respects_the_budget():
    for budget in (10_000, 100_000, 1 << 20, 1 << 30):
        for n0 in (0, 1, 10**6):
            L = genum.batch_layout(n0, 6, 50, budget, 132, None)
            used = L["warps"] * L["per"] + 2 * L["cap"] * 7 * 4 + L["chunk"] * 8
            assert used <= budget, (budget, n0, L)
            assert L["chunks"] * L["chunk"] >= n0
    with pytest.raises(InvalidArgument, match="memory_budget"):
        genum.batch_layout(10, 6, 50, 100, 132, None)


# ----------------------------------------------------------------------------- batch emulation
class _Core:
    """The plan interpretation of enum.cu in Python (sets as sorted lists), on the packed tables."""

    def __init__(self, ptr, idx, nlab, elab, deg, vl, el, Tall, Call, qtab):
        self.ptr, self.idx, self.nlab, self.elab, self.deg = ptr, idx, nlab, elab, deg
        self.vl, self.el = bool(vl), bool(el)
        self.Tall, self.Call, self.qtab = Tall, Call, qtab
        self.spills = 0

    def plan(self, q):
        o_t, o_c, k = (int(x) for x in self.qtab[3 * q:3 * q + 3])
        T = self.Tall[o_t:o_t + pm.N_TFIELDS * k * k].reshape(pm.N_TFIELDS, k, k)
        C = self.Call[o_c:o_c + pm.N_CFIELDS * k].reshape(pm.N_CFIELDS, k)
        return T, C, k

    def row(self, v, lab):
        a, b = int(self.ptr[v]), int(self.ptr[v + 1])
        r = [(int(x), int(self.elab[p]) if self.el else -1) for p, x in zip(range(a, b), self.idx[a:b])]
        if self.vl and lab >= 0:
            r = [t for t, p in zip(r, range(a, b)) if self.nlab[p] == lab]
        return dict(r)

    def build(self, T, C, f, sets, i):
        lab = int(C[pm.C_VLAB, i])
        j = int(C[pm.C_REUSE, i])
        S = None
        if j >= 0:
            S = set(sets[j])  # KeyError: a reused set that was not rebuilt
        for t in range(int(C[pm.C_NPAR, i])):
            r = self.row(f[int(T[pm.T_PAR, i, t])], lab)
            e = int(T[pm.T_PAREL, i, t])
            keep = {x for x, el in r.items() if not (self.el and e >= 0 and el != e)}
            S = keep if S is None else S & keep
        for t in range(int(C[pm.C_NANTI, i])):
            S -= set(self.row(f[int(T[pm.T_ANTI, i, t])], lab))
        sets[i] = sorted(S)

    def accepted(self, T, C, f, sets, i, last):
        lo = max([f[int(T[pm.T_LOW, i, t])] for t in range(int(C[pm.C_NLOW, i]))], default=-1)
        hi = min([f[int(T[pm.T_UP, i, t])] for t in range(int(C[pm.C_NUP, i]))], default=1 << 62)
        inj = {f[int(T[pm.T_INJ, i, t])] for t in range(int(C[pm.C_NINJ, i]))}
        md = int(C[pm.C_MINDEG, i])
        return [x for x in sets[i] if lo < x < hi and x not in inj and (last or self.deg[x] >= md)]

    def dfs(self, T, C, k, f, sets, start):
        self.build(T, C, f, sets, start)
        if start == k - 1:
            return len(self.accepted(T, C, f, sets, start, True))
        n = 0
        for c in self.accepted(T, C, f, sets, start, False):
            n += self.dfs(T, C, k, f[:start] + [c], sets, start + 1)
        return n

    def rebuild(self, T, C, k, f, d):
        need = {int(C[pm.C_REUSE, i]) for i in range(d, k) if 2 <= C[pm.C_REUSE, i] < d}
        for j in range(d - 1, 1, -1):
            if j in need and C[pm.C_REUSE, j] >= 2:
                need.add(int(C[pm.C_REUSE, j]))
        sets = {}
        for j in sorted(need):
            self.build(T, C, f, sets, j)
        return sets

    def item(self, q, f, d, dfs, emit):
        """What one warp does with the item (q, f) of depth d; ``emit(c)`` offers a child, returns
        False when it has no slot (then it is searched here). Returns the item's count."""
        T, C, k = self.plan(q)
        assert len(f) == d and d <= k - 1
        sets = self.rebuild(T, C, k, f, d)
        if d == k - 1 or dfs:
            return self.dfs(T, C, k, f, sets, d)
        self.build(T, C, f, sets, d)
        n = 0
        for c in self.accepted(T, C, f, sets, d, False):
            if not emit(c):
                self.spills += 1
                n += self.dfs(T, C, k, f + [c], dict(sets), d + 1)
        return n


class _Emu(_Core):
    """enum_batch_level's control flow in Python, on the packed tables and rows the device reads."""

    def __init__(self, G, plans, vl, el, cap, threshold, chunk):
        ptr, idx, nlab, elab, deg, _, _ = engine_arrays(G, vl, el)
        pack, t_all, c_all = genum.pack_batch_tables(plans)
        super().__init__(ptr, idx, nlab, elab, deg, vl, el, pack[:t_all], pack[t_all:t_all + c_all],
                         pack[t_all + c_all:])
        self.rows, _ = genum.batch_roots(G, plans, vl, el)
        self.cap, self.threshold, self.chunk = cap, threshold, max(chunk, 1)
        self.kmax = max(p.k for p in plans)
        self.counts = [0] * len(plans)

    def run(self):
        for c0 in range(0, self.rows.shape[0], self.chunk):
            items = [list(map(int, r)) for r in self.rows[c0:c0 + self.chunk]]
            nin, cap_in = len(items), len(items)
            for d in range(1, self.kmax):
                n = min(nin, cap_in)
                dfs = n >= self.threshold
                out, written = [], [0]
                for it in items[:n]:
                    q, f = it[0], it[1:]

                    def emit(c, q=q, f=f):
                        ok = written[0] < self.cap
                        if ok:
                            out.append([q] + f + [c])
                        written[0] += 1
                        return ok
                    self.counts[q] += self.item(q, f, d, dfs, emit)
                items, nin, cap_in = out, written[0], self.cap
        return self.counts


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), induced=st.booleans(), vlabels=st.sampled_from([0, 2]),
       elabels=st.sampled_from([0, 0, 2]), cap=st.sampled_from([0, 1, 3, 1000]),
       threshold=st.sampled_from([0, 1, 5, 10**9]), chunk=st.sampled_from([1, 4, 10**6]), reuse=st.booleans())
def test_emulated_batch_equals_brute_force(seed, induced, vlabels, elabels, cap, threshold, chunk, reuse):
    G, pats = _random_batch(seed, 5, vlabels, elabels, kmax=5)
    plans = [plan_for(G, P, induced=induced, reuse=reuse) for P in pats]
    want = [brute_count(G, P, induced) for P in pats]
    for vl in (False, True):
        for el in (False, True):
            members = [i for i, p in enumerate(plans) if p.k > 1 and (p.vertex_labels is not None) == vl
                       and (p.edge_labels is not None) == el]
            if not members:
                continue
            got = _Emu(G, [plans[i] for i in members], vl, el, cap, threshold, chunk).run()
            assert got == [want[i] for i in members]


def test_emulated_batch_reuse_chains_and_spills():
    """Patterns whose deep levels reuse sets built above the start depth (5-clique, diamond, induced
    bowtie), with levels too small for their output (every candidate past the capacity searched
    depth first) and starts at every depth."""
    G = la_gpm.read_graph(data_path("citeseer.edgelist"))
    pats = [Pattern.named(n) for n in ("5-clique", "diamond", "bowtie", "house", "4-cycle", "tailed-triangle")]
    for induced in (False, True):
        plans = [plan_for(G, P, induced=induced) for P in pats]
        assert any(any(r >= 2 for r in p.reuse) for p in plans)
        want = [count_pattern(G, P, induced=induced, closed_forms=False, backend="cpu") for P in pats]
        emu = _Emu(G, plans, False, False, cap=500, threshold=10**9, chunk=10**6)
        assert emu.run() == want
        assert emu.spills > 0


# ----------------------------------------------------------------- the host path on a fake device
class _DArr(np.ndarray):
    """A numpy array with CuPy's get/set: slices stay views, as device slices do."""

    def get(self):
        return np.array(self)

    def set(self, host):
        self[...] = host


class _FakeStream:
    capturing = None

    def __init__(self, non_blocking=False):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False

    def begin_capture(self):
        _FakeStream.capturing = []

    def end_capture(self):
        rec, _FakeStream.capturing = _FakeStream.capturing, None
        graph = type("G", (), {})()
        graph.launch = lambda: [_emu_kernel(*a, replay=True) for a in rec]
        graph.launches = len(rec)
        return graph


class _FakeCupy:
    int32, int64, uint64 = np.int32, np.int64, np.uint64

    class cuda:
        Stream = _FakeStream

        class Device:
            id = 0

    @staticmethod
    def asarray(a, dtype=None):
        return np.array(a, dtype=dtype).view(_DArr)

    @staticmethod
    def zeros(n, dtype=None):
        return np.zeros(n, dtype=dtype).view(_DArr)

    @staticmethod
    def empty(n, dtype=None):
        return np.full(n, -7, dtype=dtype).view(_DArr)  # garbage, as on a device


def _emu_kernel(grid, block, args, replay=False):
    """enum_batch_level on the fake device: the same 24 arguments, in order."""
    if _FakeStream.capturing is not None and not replay:
        _FakeStream.capturing.append((grid, block, args))
        return
    (ptr, idx, nlab, elab, deg, vl, el, Tall, Call, qtab, items, d, nin_ptr, cap_in, out, cap, lc, counts, flags,
     buf, maxd, sl, threshold, fast) = args
    assert len(args) == 24 and isinstance(d, np.int32) and isinstance(cap, np.int64) and isinstance(vl, np.int32)
    assert nin_ptr.shape == (1,) and lc.shape == (2,) and flags.shape == (1,)
    assert buf.shape[0] == int(maxd) * int(sl) * grid[0] * block[0] // 32
    d, cap = int(d), int(cap)
    core = _Core(ptr, idx, nlab, elab, deg, vl, el, Tall, Call, qtab)
    nin = min(int(nin_ptr[0]), int(cap_in))
    rows = np.asarray(items).reshape(-1)
    for e in range(nin):
        r = rows[e * (d + 1):(e + 1) * (d + 1)].tolist()
        q, f = r[0], r[1:]

        def emit(c, q=q, f=f):
            slot = int(lc[1])
            lc[1] = np.uint64(slot + 1)
            if slot < cap:
                out[slot * (d + 2):(slot + 1) * (d + 2)] = [q] + f + [c]
            return slot < cap
        counts[q] = np.uint64(int(counts[q]) + core.item(q, f, d, nin >= threshold, emit))


@pytest.mark.parametrize("graphs", [True, False])
def test_gpu_host_path_on_a_fake_device(monkeypatch, graphs):
    """count_plans_batch_gpu's host code (layout, counters, level ping-pong, chunks, graph capture and
    replay, caches) with a numpy 'device' and a Python enum_batch_level, against brute force."""
    import contextlib
    monkeypatch.setattr(genum, "cupy", lambda: _FakeCupy)
    seen = []
    monkeypatch.setattr(genum, "kernel", lambda pkg, f, n, options=(): seen.append((pkg, f, n, options)) or _emu_kernel)
    monkeypatch.setattr(genum, "oom_guard", lambda what: contextlib.nullcontext())
    monkeypatch.setattr(genum, "_sm_count", lambda dev: 1)
    monkeypatch.setattr(genum, "BATCH_GRAPHS", graphs)
    monkeypatch.setattr(genum, "device_engine_arrays",
                        lambda G, vl, el: tuple(_FakeCupy.asarray(a) for a in engine_arrays(G, vl, el)[:5]))
    rng = random.Random(3)
    for trial in range(6):
        vlabels, elabels = (0, 0) if trial < 2 else (2, 2 if trial % 2 else 0)
        G, pats = _random_batch(rng.randrange(1 << 30), 7, vlabels, elabels, kmax=5)
        induced = bool(trial % 2)
        plans = [plan_for(G, P, induced=induced) for P in pats]
        want = [brute_count(G, P, induced) for P in pats]
        small = 2 * (max(p.k for p in plans) - 1) * max(G.max_degree, 1) * 4 + 96  # a few roots per chunk
        for deep, maxitems, budget in ((None, 1 << 20, None), (0, 1 << 20, None), (10**9, 2, None),
                                       (10**9, 0, None), (None, 1 << 20, small)):
            monkeypatch.setattr(genum, "BATCH_MAX_ITEMS", maxitems)
            for _ in range(2):  # the second call reuses the cached group, buffers and graph
                got, st_ = genum.count_plans_batch_gpu(G, plans, deep_items=deep, memory_budget=budget)
                assert got == want, (trial, deep, maxitems, budget)
                if any(p.k > 1 for p in plans):
                    assert st_["cuda_graph"] == (graphs and st_["chunks"] == st_["groups"])
            if budget is not None and any(p.k > 1 for p in plans):
                assert st_["chunks"] > st_["groups"]  # the small budget cut the roots into chunks
    assert seen and all(x == ("la_gpm.exact", "dumato", "enum_batch_level", ("-DEN_WARP_SEARCH",)) for x in seen)


# ------------------------------------------------------------------------------------------- GPU
@pytest.fixture(scope="module")
def hprd():
    from la_gpm.io import read_sunluo
    return read_sunluo(data_path("hprd/HPRD.graph"))


@pytest.mark.gpu
@needs_gpu
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), induced=st.booleans(), kind=st.sampled_from(["unique", "embeddings"]),
       vlabels=st.sampled_from([0, 2, 3]), elabels=st.sampled_from([0, 0, 2]),
       deep=st.sampled_from([None, 0, 1, 5, 10**9]), maxitems=st.sampled_from([0, 2, 1 << 20]))
def test_gpu_count_many_equals_brute_force(seed, induced, kind, vlabels, elabels, deep, maxitems):
    G, pats = _random_batch(seed, 6, vlabels, elabels, kmax=5)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(genum, "BATCH_MAX_ITEMS", maxitems)
        got = count_many(G, pats, induced=induced, count=kind, backend="gpu", deep_items=deep)
    assert got == [brute_count(G, P, induced, kind) for P in pats]
    assert all(type(x) is int for x in got)


@pytest.mark.gpu
@needs_gpu
def test_gpu_small_graphs_equal_cpu_engine():
    four = ["4-cycle", "diamond", "tailed-triangle", "4-path", "triangle", "edge", "3-star", "4-clique"]
    five = ["house", "bowtie", "5-cycle", "5-clique", "5-path"]
    for gname in ("karate", "jagmesh7.mtx", "citeseer.edgelist", "email-Eu-core.txt"):
        G = la_gpm.datasets.load("karate") if gname == "karate" else la_gpm.read_graph(data_path(gname))
        names = four + (five if gname != "email-Eu-core.txt" else [])  # the 5-vertex ones take seconds on a CPU there
        for induced in (False, True):
            want = [count_pattern(G, n, induced=induced, backend="cpu", closed_forms=False) for n in names]
            for deep in (None, 0, 10**9):
                got, st_ = count_many(G, names, induced=induced, backend="gpu", deep_items=deep, return_stats=True)
                assert got == want, (gname, induced, deep)
                assert st_["backend"] == "gpu"


@pytest.mark.gpu
@needs_gpu
def test_gpu_batch_waits_for_work_queued_before_it(monkeypatch):
    """The CUDA graph of the levels runs behind the work queued before it on the caller's stream: here the
    graph's engine arrays are written by copies queued behind a 0.2 s spin kernel (garbage until then).
    (Launched on its non-blocking capture stream, the graph did not wait: with another process slowing
    the GPU the levels read unwritten indices, an illegal address under pytest-xdist.)"""
    import cupy as cp
    spin = cp.RawKernel(r"""
    extern "C" __global__ void spin(long long cycles) {
        long long t0 = clock64();
        while (clock64() - t0 < cycles) { }
    }""", "spin")
    real = genum.device_engine_arrays

    def late(G, vl, el):
        arrays = real(G, vl, el)
        out = [cp.full(a.shape, -(1 << 20), dtype=a.dtype) for a in arrays]  # garbage (negative indices)
        spin((1,), (1,), (np.int64(400_000_000),))                              # ~0.2 s at 2 GHz
        for o, a in zip(out, arrays):
            o[...] = a                                                           # queued behind the spin
        return tuple(out)

    monkeypatch.setattr(genum, "device_engine_arrays", late)
    names = ["4-cycle", "diamond", "house", "triangle"]
    for gname in ("citeseer.edgelist", "email-Eu-core.txt"):
        G = la_gpm.read_graph(data_path(gname))
        want = [count_pattern(G, n, backend="cpu", closed_forms=False) for n in names]
        got, st_ = count_many(G, names, backend="gpu", return_stats=True)
        assert got == want, gname
        assert st_["cuda_graph"] == bool(genum.BATCH_GRAPHS and st_["chunks"] == st_["groups"])


@pytest.mark.gpu
@needs_gpu
def test_gpu_hprd_200_queries_in_one_batch(hprd):
    """All 200 published HPRD embedding counts from one count_many call (and with tiny budgets)."""
    exp = _hprd_expected()
    names = sorted(exp)
    Qs = [read_query(data_path(f"hprd/query_graph/{n}.graph")) for n in names]
    got, st_ = count_many(hprd, Qs, count="embeddings", backend="gpu", return_stats=True)
    assert dict(zip(names, got)) == exp
    assert st_["groups"] == 1 and st_["launches"] == max(Q.k for Q in Qs) - 1
    for kw in ({"deep_items": 0}, {"memory_budget": 4 << 20}, {"deep_items": 10**9}):
        assert count_many(hprd, Qs[:40], count="embeddings", backend="gpu", **kw) == [exp[n] for n in names[:40]]


@pytest.mark.gpu
@needs_gpu
def test_gpu_budget_chunks_and_spills(monkeypatch):
    """A budget that forces several root chunks, and level arrays of 3 rows (spills everywhere)."""
    G = la_gpm.read_graph(data_path("citeseer.edgelist"))
    names = ["4-cycle", "diamond", "house", "5-cycle"]
    want = [count_pattern(G, n, backend="cpu", closed_forms=False) for n in names]
    maxd = G.max_degree
    budget = 4 * maxd * 4 * 2 + 20_000  # two warps' stacks and a few thousand roots per chunk
    got, st_ = count_many(G, names, backend="gpu", memory_budget=budget, return_stats=True)
    assert got == want and st_["chunks"] > 1
    monkeypatch.setattr(genum, "BATCH_MAX_ITEMS", 3)
    assert count_many(G, names, backend="gpu", deep_items=10**9) == want
    with pytest.raises(InvalidArgument, match="memory_budget"):
        count_many(G, names, backend="gpu", memory_budget=64)


@pytest.mark.gpu
@needs_gpu
def test_gpu_validation_and_cliques():
    G = la_gpm.datasets.load("karate")
    with pytest.raises(PatternTooLarge, match=r"patterns\[1\]"):
        count_many(G, ["triangle", Pattern([(i, i + 1) for i in range(12)], k=13)], backend="gpu")
    names = ["4-clique", "5-clique", "triangle", "4-cycle"]
    assert count_many(G, names, backend="gpu", count="embeddings") == [
        count_pattern(G, n, backend="cpu", count="embeddings") for n in names]
