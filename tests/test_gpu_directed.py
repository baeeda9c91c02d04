"""The directed census on the GPU (issue 18): ``la_gpm.census(D, k, backend="gpu")`` for k = 3, 4 against the CPU
backend on random digraphs (reciprocal arcs, isolated vertices, hubs), induced and non-induced, and against
igraph's ``motifs_randesu`` on wiki-Vote; the refusal without a GPU; and, on any machine, a pure-Python emulation
of ``census_esu_directed`` (census.cu) over the very arrays the kernel gets, against the CPU's counts."""

from __future__ import annotations

import bisect
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm.backends import gpu_status
from la_gpm.motifs import census
from la_gpm.motifs.directed import directed_classes, directed_counts, underlying
from la_gpm.motifs.gpu import directed_host_arrays

from .conftest import data_path

NO_GPU = gpu_status()
_GPU_MARKS = (pytest.mark.gpu, pytest.mark.skipif(NO_GPU is not None, reason=f"no GPU: {NO_GPU}"))
IGRAPH_WIKI4 = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "igraph_wiki_vote_directed4.json"


def gpu(f):
    """Mark a test ``gpu`` and skip it with the reason where no device is visible."""
    for m in _GPU_MARKS:
        f = m(f)
    return f


def digraph(n, arcs):
    arcs = list(arcs)
    return la_gpm.Graph.from_edges([a for a, _ in arcs], [b for _, b in arcs], n=n, directed=True)


def counts(df):
    return [int(c) for c in df["count"]]


# random digraphs: arcs, some of them reciprocated, optionally a hub with arcs in both directions; the
# vertices past the largest id used stay isolated
digraphs = st.integers(3, 16).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n),
    st.floats(0, 1),                                  # share of the arcs also reversed
    st.booleans(),                                    # a hub: vertex 0 to / from most others
    st.integers(0, 2 ** 31 - 1)))


def build(g):
    n, arcs, rec, hub, seed = g
    rng = np.random.default_rng(seed)
    arcs = list(arcs)
    arcs += [(b, a) for a, b in arcs if rng.random() < rec]
    if hub:
        for v in range(1, n):
            if rng.random() < 0.8:
                arcs.append((0, v) if rng.random() < 0.5 else (v, 0))
                if rng.random() < 0.3:
                    arcs.append(arcs[-1][::-1])
    return n + int(rng.integers(0, 3)), arcs       # up to two isolated vertices past the last id


# --------------------------------------------------------------------------- emulation (no GPU needed)


def _upper_bound(idx, lo, hi, x):
    return lo + bisect.bisect_right(idx[lo:hi], x)


def _find(idx, lo, hi, x):
    j = lo + bisect.bisect_left(idx[lo:hi], x)
    return j if j < hi and idx[j] == x else -1


def _tri_off(j):
    return j * (j - 1) // 2


def emulate_census_esu_directed(ptr, idx, dirs, fsrc, fwd, maxd, k, table, nclass):
    """census_esu_directed (census.cu, DIR = true) step by step on the host: the same work items, levels,
    masks, codes and class lookups, one lane at a time (the warp's ballot compaction keeps the order of the
    scan, as a list append does). Asserts what the kernel relies on: every code's class is >= 0, masks fit a
    byte, codes fit the table, a level holds at most min((p + 1) maxd, n) candidates."""
    ptr, idx, dirs = ptr.tolist(), idx.tolist(), dirs.tolist()
    n = len(ptr) - 1
    out = [0] * nclass

    def exclusive_of(slo, shi, npos, u):
        return all(_find(idx, slo[i], shi[i], u) < 0 for i in range(npos))

    def lookup(code):
        assert 0 <= code < len(table)
        c = int(table[code])
        assert c >= 0, code
        return c

    def extend(Rv, Rm, Rd, xlo, xhi, r, pos, slo, shi):
        shift = 2 * pos
        outv, outm = [], []
        for i, u in enumerate(Rv):
            m = Rm[i] if Rm is not None else Rd[i]
            j = _find(idx, xlo, xhi, u)
            if j >= 0:
                m |= dirs[j] << shift
            assert m < 256
            outv.append(u)
            outm.append(m)
        for j in range(_upper_bound(idx, xlo, xhi, r), xhi):
            u = idx[j]
            if exclusive_of(slo, shi, pos, u):
                outv.append(u)
                outm.append((dirs[j] << shift) & 0xFF)
        return outv, outm

    def leaves(Rv, Rm, Rd, xlo, xhi, r, pos, code, slo, shi):
        off = 2 * _tri_off(pos + 1)
        for i, u in enumerate(Rv):
            m = Rm[i] if Rm is not None else Rd[i]
            j = _find(idx, xlo, xhi, u)
            if j >= 0:
                m |= dirs[j] << (2 * pos)
            out[lookup(code | (m << off))] += 1
        ex = [0, 0, 0]
        for j in range(_upper_bound(idx, xlo, xhi, r), xhi):
            d = dirs[j] if exclusive_of(slo, shi, pos, idx[j]) else 0
            b0, b1 = d & 1, (d >> 1) & 1                  # the two ballots
            ex[0] += b0 & (1 - b1)
            ex[1] += b1 & (1 - b0)
            ex[2] += b0 & b1
        for d in (1, 2, 3):
            if ex[d - 1]:
                out[lookup(code | ((d << (2 * pos)) << off))] += ex[d - 1]

    for e in range(len(fwd)):
        r, a = int(fsrc[e]), int(fwd[e])
        v1 = idx[a]
        assert v1 > r
        slo, shi = [0] * k, [0] * k
        slo[0], shi[0] = ptr[r], ptr[r + 1]
        slo[1], shi[1] = ptr[v1], ptr[v1 + 1]
        R0, R0d = idx[a + 1:shi[0]], dirs[a + 1:shi[0]]
        code1 = dirs[a]
        assert code1 in (1, 2, 3)
        if k == 3:
            leaves(R0, None, R0d, slo[1], shi[1], r, 1, code1, slo, shi)
            continue
        V, M, it, code = [None] * k, [None] * k, [0] * k, [0] * k
        code[1] = code1
        V[1], M[1] = extend(R0, None, R0d, slo[1], shi[1], r, 1, slo, shi)
        d = 1
        while d >= 1:
            assert len(V[d]) <= min((d + 1) * maxd, n)
            if it[d] >= len(V[d]):
                d -= 1
                continue
            x, mx = V[d][it[d]], M[d][it[d]]
            it[d] += 1
            pos = d + 1
            cx = code[d] | (mx << (2 * _tri_off(pos)))
            slo[pos], shi[pos] = ptr[x], ptr[x + 1]
            Rv, Rm = V[d][it[d]:], M[d][it[d]:]
            if pos == k - 2:
                leaves(Rv, Rm, None, slo[pos], shi[pos], r, pos, cx, slo, shi)
            else:
                V[d + 1], M[d + 1] = extend(Rv, Rm, None, slo[pos], shi[pos], r, pos, slo, shi)
                code[d + 1] = cx
                it[d + 1] = 0
                d += 1
    return out


def _emulated(D, k):
    ptr, idx, dirs, fsrc, fwd, maxd = directed_host_arrays(underlying(D))
    assert ptr.dtype == np.int64 and idx.dtype == np.int32 and dirs.dtype == np.uint8
    assert fsrc.dtype == np.int32 and fwd.dtype == np.int64
    assert set(np.unique(dirs).tolist()) <= {1, 2, 3}
    cls = directed_classes(k)
    return emulate_census_esu_directed(ptr, idx, dirs, fsrc, fwd, maxd, k, cls.table, len(cls.keys))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=digraphs)
def test_emulated_kernel_equals_cpu(g):
    """The kernel's arithmetic (codes, masks, direction array, class table) on the host arrays gives the CPU's
    induced counts, k = 3 and 4."""
    n, arcs = build(g)
    D = digraph(n, arcs)
    for k in (3, 4):
        assert _emulated(D, k) == directed_counts(D, k, method="enumerate")[0], k


def test_emulated_kernel_equals_cpu_on_a_hub_digraph():
    rng = np.random.default_rng(4)
    n = 70
    arcs = [(int(a), int(b)) for a, b in rng.integers(0, n, (220, 2))]
    arcs += [(b, a) for a, b in arcs[:60]]                                 # reciprocal pairs
    arcs += [(5, v) for v in range(0, n, 2)] + [(v, 5) for v in range(0, n, 3)]    # a hub, some pairs both ways
    D = digraph(n + 3, arcs)
    for k in (3, 4):
        assert _emulated(D, k) == directed_counts(D, k, method="enumerate")[0], k


def test_host_arrays_match_the_digraph():
    """dirs[j] of U's arc (w, idx[j]) says which of w -> idx[j], idx[j] -> w the digraph has (in D's own ids)."""
    rng = np.random.default_rng(9)
    n = 40
    arcs = {(int(a), int(b)) for a, b in rng.integers(0, n, (150, 2)) if a != b}
    D = digraph(n, arcs)
    ptr, idx, dirs, fsrc, fwd, maxd = directed_host_arrays(underlying(D))
    new_id = underlying(D)[3]
    old = np.empty(n, dtype=np.int64)
    old[new_id] = np.arange(n)
    deg = np.diff(ptr)
    assert maxd == deg.max() and (deg[:-1] >= deg[1:]).all()              # degree-descending ids
    for w in range(n):
        row = idx[ptr[w]:ptr[w + 1]]
        assert (np.diff(row) > 0).all()
        for j in range(ptr[w], ptr[w + 1]):
            a, b = int(old[w]), int(old[idx[j]])
            assert dirs[j] == ((a, b) in arcs) + 2 * ((b, a) in arcs)
    assert sorted(zip(fsrc.tolist(), idx[fwd].tolist())) == sorted(
        (w, int(v)) for w in range(n) for v in idx[ptr[w]:ptr[w + 1]] if v > w)


# --------------------------------------------------------------------------- without a GPU


@pytest.mark.skipif(NO_GPU is None, reason="a GPU is visible: the refusal is for machines without one")
def test_gpu_backend_without_a_gpu_raises():
    D = digraph(4, [(0, 1), (1, 2), (2, 0), (2, 3)])
    for k in (3, 4):
        with pytest.raises(la_gpm.BackendUnavailable, match="unavailable"):
            census(D, k, backend="gpu")
    with la_gpm.config.set(backend="gpu"):
        with pytest.raises(la_gpm.BackendUnavailable):
            census(D, 3)
    assert census(D, 3).attrs["method"] == "closed_form"                  # auto: the CPU


def test_k_outside_3_4_is_still_refused_with_the_gpu_backend():
    D = digraph(5, [(0, 1), (1, 2), (2, 3), (3, 4)])
    with pytest.raises(la_gpm.PatternTooLarge, match="k = 3 and 4"):
        census(D, 5, backend="gpu")
    with pytest.raises(la_gpm.InvalidArgument, match="k >= 3"):
        census(D, 2, backend="gpu")


# --------------------------------------------------------------------------- GPU = CPU


def same_as_cpu(D, k, induced=True, **kw):
    got = census(D, k, backend="gpu", induced=induced, **kw)
    want = census(D, k, backend="cpu", induced=induced, method="enumerate")
    assert got.attrs == {"k": k, "induced": induced, "method": "gpu_enumerate", "directed": True}
    for col in ("name", "isoclass", "key", "arcs", "underlying"):
        assert list(got[col]) == list(want[col]), col
    assert got["count"].dtype == object and all(type(c) is int for c in got["count"])
    assert counts(got) == counts(want), (k, induced)
    return got


@gpu
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=digraphs)
def test_random_digraphs_gpu_equals_cpu(g):
    n, arcs = build(g)
    D = digraph(n, arcs)
    for k in (3, 4):
        for induced in (True, False):
            same_as_cpu(D, k, induced)


@gpu
def test_hubs_and_many_warps_gpu_equals_cpu():
    """Rows longer than a warp, hubs adjacent to many vertices, reciprocal pairs, isolated vertices; and a
    single warp (a tiny memory budget) on a smaller one."""
    def hub_digraph(n, m, hub_out, hub_in, seed):
        rng = np.random.default_rng(seed)
        arcs = [(int(a), int(b)) for a, b in rng.integers(0, n, (m, 2))]
        arcs += [(b, a) for a, b in arcs[:m // 5]]
        arcs += [(7, int(v)) for v in rng.choice(n, hub_out, replace=False)]
        arcs += [(int(v), 7) for v in rng.choice(n, hub_in, replace=False)]
        arcs += [(11, int(v)) for v in rng.choice(n, hub_out // 4, replace=False)]
        return digraph(n + 50, arcs)
    D = hub_digraph(3000, 24000, 1000, 600, 12)
    for k in (3, 4):
        for induced in (True, False):
            same_as_cpu(D, k, induced)
    assert counts(census(D, 3, backend="gpu", method="enumerate")) == counts(census(D, 3, backend="cpu"))
    S = hub_digraph(400, 2500, 200, 120, 13)
    want = counts(census(S, 4, backend="cpu"))
    with la_gpm.config.set(memory_budget=1 << 12):                      # one warp
        assert counts(census(S, 4, backend="gpu")) == want


@gpu
def test_rmat_digraph_gpu_equals_cpu():
    G = la_gpm.generators.rmat(11, seed=3)              # skewed degrees; orient each edge at random
    src = np.repeat(np.arange(G.n), np.diff(G.indptr))
    dst = G.indices.astype(np.int64)
    keep = src < dst
    src, dst = src[keep], dst[keep]
    rng = np.random.default_rng(1)
    flip = rng.random(src.size) < 0.5
    both = rng.random(src.size) < 0.15
    a = np.where(flip, dst, src)
    b = np.where(flip, src, dst)
    D = la_gpm.Graph.from_edges(np.concatenate([a, b[both]]), np.concatenate([b, a[both]]), n=G.n, directed=True)
    for k in (3, 4):
        same_as_cpu(D, k)


@gpu
def test_empty_edgeless_and_tiny_digraphs():
    for D in (digraph(0, []), digraph(6, []), digraph(2, [(0, 1), (1, 0)]), digraph(3, [(0, 1)]),
              digraph(5, [(0, 1), (1, 2), (2, 0), (3, 4)])):
        for k in (3, 4):
            for induced in (True, False):
                same_as_cpu(D, k, induced)


@gpu
def test_gpu_method_names_and_errors():
    D = digraph(4, [(0, 1), (1, 2), (2, 0), (2, 3)])
    assert census(D, 3, backend="gpu").attrs["method"] == "gpu_enumerate"
    assert census(D, 4, backend="gpu", method="enumerate").attrs["method"] == "gpu_enumerate"
    with pytest.raises(la_gpm.InvalidArgument, match="closed_form"):
        census(D, 3, backend="gpu", method="closed_form")
    with pytest.raises(la_gpm.InvalidArgument, match="closed_form"):
        census(D, 4, backend="gpu", method="closed_form")
    assert census(D, 3).attrs["method"] == "closed_form"                  # auto stays on the CPU
    assert census(D, 4, backend="auto").attrs["method"] == "enumerate"


@gpu
def test_directed_oom_is_named_and_leaves_the_graph_usable():
    """Every device allocation of the directed census fails in turn: DeviceOutOfMemory, then the same graph
    object gives the right counts."""
    import cupy as cp
    from .test_gpu_oom import _FailAt
    rng = np.random.default_rng(3)
    arcs = [(int(a), int(b)) for a, b in rng.integers(0, 200, (900, 2))]
    want = counts(census(digraph(200, arcs), 4, backend="cpu"))
    j = 0
    while True:
        j += 1
        D = digraph(200, arcs)
        inj = _FailAt(cp, j)
        cp.cuda.set_allocator(inj)
        try:
            got = counts(census(D, 4, backend="gpu"))
        except la_gpm.DeviceOutOfMemory as e:
            assert "GPU memory" in str(e), str(e)
            got = None
        finally:
            cp.cuda.set_allocator(inj.inner)
        cp.cuda.Device().synchronize()
        if got is not None:
            assert got == want, j
            if inj.calls < j:
                break
            continue
        assert counts(census(D, 4, backend="gpu")) == want, j
        assert j < 100


# --------------------------------------------------------------------------- wiki-Vote against igraph


@pytest.fixture(scope="module")
def wiki_vote():
    path = data_path("wiki-Vote.txt")
    return la_gpm.read_graph(path, directed=True), path


def by_isoclass(df):
    return {int(i): int(c) for i, c in zip(df["isoclass"], df["count"])}


@gpu
def test_wiki_vote_gpu_equals_stored_igraph_counts_and_the_cpu(wiki_vote):
    """All of wiki-Vote (no igraph needed): k = 3 against its published triad counts and the CPU, k = 4 against the
    stored counts of one full igraph motifs_randesu run (13 min) and their total, non-induced k = 4 against the
    CPU."""
    D, _ = wiki_vote
    df = census(D, 3, backend="gpu")
    assert by_isoclass(df)[15] == 2119 and by_isoclass(df)[7] == 462715
    assert counts(df) == counts(census(D, 3, backend="cpu"))
    df4 = census(D, 4, backend="gpu")
    assert sum(counts(df4)) == 2_513_413_248
    assert IGRAPH_WIKI4.exists(), IGRAPH_WIKI4
    ref = json.loads(IGRAPH_WIKI4.read_text())["counts"]
    assert by_isoclass(df4) == {i: int(c) for i, c in enumerate(ref) if c is not None}
    ni = census(D, 4, backend="gpu", induced=False)
    assert counts(ni) == counts(census(D, 4, backend="cpu", induced=False))


@gpu
def test_wiki_vote_gpu_equals_igraph(wiki_vote):
    """k = 3 against igraph's motifs_randesu on all of wiki-Vote; k = 4 on the subgraph of the 600 lowest file
    ids (where igraph is installed)."""
    from .test_directed import check_against_igraph
    D, path = wiki_vote
    el = np.loadtxt(path, dtype=np.int64, comments="#")
    check_against_igraph(int(el.max()) + 1, el.tolist(), 3, census(D, 3, backend="gpu"))
    sub = el[(el[:, 0] < 600) & (el[:, 1] < 600)].tolist()
    check_against_igraph(600, sub, 4, census(digraph(600, sub), 4, backend="gpu"))


# --------------------------------------------------------------------------- count(D, P) on the GPU


@pytest.mark.skipif(NO_GPU is None, reason="a GPU is visible: the refusal is for machines without one")
def test_directed_count_gpu_backend_without_a_gpu_raises():
    D = digraph(4, [(0, 1), (1, 2), (0, 2), (2, 3)])
    with pytest.raises(la_gpm.BackendUnavailable, match="unavailable"):
        la_gpm.count(D, "feed-forward-loop", backend="gpu")
    assert la_gpm.count(D, "feed-forward-loop") == 1                       # auto: the CPU


DIRECTED_PATTERNS = ["030T", "030C", "021U", "300", la_gpm.DiPattern([(0, 1), (1, 2), (2, 3)]),
                     la_gpm.DiPattern([(0, 1), (1, 2), (2, 3), (3, 0)]), la_gpm.DiPattern([(0, 1), (1, 0), (0, 2), (0, 3)])]


@gpu
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=digraphs, induced=st.booleans(), emb=st.booleans())
def test_directed_count_gpu_equals_cpu(g, induced, emb):
    """``la_gpm.count(D, P, backend="gpu")`` for directed 3- and 4-vertex patterns (feed-forward loops, cycles,
    reciprocal pairs), induced or not, unique or embeddings: the GPU census's row, equal to the CPU's."""
    n, arcs = build(g)
    D = digraph(n, arcs)
    count = "embeddings" if emb else "unique"
    for P in DIRECTED_PATTERNS:
        got, st_ = la_gpm.count(D, P, backend="gpu", induced=induced, count=count, return_stats=True)
        want = la_gpm.count(D, P, backend="cpu", induced=induced, count=count)
        assert type(got) is int and got == want, (P, induced, count)
        assert st_["backend"] == "gpu" and st_["method"] == "gpu_enumerate"


@gpu
def test_wiki_vote_directed_counts_gpu(wiki_vote):
    """wiki-Vote: the feed-forward loops (triad 030T: 462,715, published) and a directed 4-cycle, GPU = CPU."""
    D, _ = wiki_vote
    assert la_gpm.count(D, "feed-forward-loop", backend="gpu", induced=True) == 462715
    P = la_gpm.DiPattern([(0, 1), (1, 2), (2, 3), (3, 0)])
    assert la_gpm.count(D, P, backend="gpu") == la_gpm.count(D, P, backend="cpu")
