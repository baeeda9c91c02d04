"""GPU motif census (closed forms k <= 4, ESU enumeration k = 3..7, the 5-vertex hybrid) against the CPU
backend, brute force and published citeseer counts; the hybrid's work decomposition (host side, no GPU)
against the CPU's dense5_hits."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm.patterns.classes import classes, to_induced
from la_gpm import Pattern
from la_gpm.motifs.driver import census
from la_gpm.backends import gpu_status

from .conftest import data_path
from .known import CITESEER_INDUCED_3, CITESEER_INDUCED_4, CITESEER_NONINDUCED_4, CITESEER_NONINDUCED_5
from .oracles_census import by_name as _by_name, graph_of as _graph, induced_census

_GPU_MARKS = (pytest.mark.gpu, pytest.mark.skipif(gpu_status() is not None, reason=f"no GPU: {gpu_status()}"))


def gpu(f):
    """Mark a test ``gpu`` and skip it with the reason where no device is visible."""
    for m in _GPU_MARKS:
        f = m(f)
    return f


GPU_METHODS = {3: ("closed_form", "enumerate"), 4: ("closed_form", "enumerate"), 5: ("enumerate", "hybrid"),
               6: ("enumerate",), 7: ("enumerate",)}


def _counts(df):
    return [int(c) for c in df["count"]]




_CPU = {}


def _cpu(G, k, method, induced=True):
    """The CPU census, computed once per (graph, k, method, induced) in this module."""
    key = (id(G), k, method, induced)
    if key not in _CPU:
        _CPU[key] = (G, census(G, k, backend="cpu", method=method, induced=induced))
    return _CPU[key][1]


def _same_as_cpu(G, k, method, induced=True):
    got = census(G, k, backend="gpu", method=method, induced=induced)
    want = _cpu(G, k, "enumerate" if method in ("enumerate", "hybrid") or k > 5 else "auto", induced)
    assert got.attrs["method"] == "gpu_" + method
    assert list(got["key"]) == list(want["key"]) and list(got["name"]) == list(want["name"])
    assert got["count"].dtype == object and all(type(c) is int for c in got["count"])
    assert _counts(got) == _counts(want), (k, method, induced)
    return got




@gpu
@pytest.mark.parametrize("k", [3, 4, 5, 6, 7])
def test_karate_matches_cpu(k):
    G = la_gpm.datasets.load("karate")
    for method in GPU_METHODS[k]:
        for induced in (True, False):
            _same_as_cpu(G, k, method, induced)


@gpu
@pytest.mark.parametrize("k", [3, 4, 5, 6])
def test_citeseer_matches_cpu(citeseer, k):
    for method in GPU_METHODS[k]:
        _same_as_cpu(citeseer, k, method, induced=True)
        _same_as_cpu(citeseer, k, method, induced=False)


@gpu
@pytest.mark.parametrize("k", [3, 4, 5])
def test_email_matches_cpu(email, k):
    for method in GPU_METHODS[k]:
        _same_as_cpu(email, k, method, induced=True)
    _same_as_cpu(email, k, GPU_METHODS[k][0], induced=False)


@gpu
def test_census3_kept_triangles(email):
    """The 3-vertex census past census_small counts its triangles with a launch bound once per device and
    configuration (triangles.gpu.repeat_count, shared with la_gpm.count's repeat counts): repeat calls, a
    configuration change, a cleared device cache and a second graph all give the CPU's counts, and the bound launch
    is not shared between graphs."""
    from la_gpm.config import config
    from la_gpm.motifs import gpu as mg
    from la_gpm.triangles.gpu import repeat_count
    want = _counts(_cpu(email, 3, "auto"))
    assert email.nnz > mg.SMALL_K3_MAX_ARCS
    got = [_counts(census(email, 3, backend="gpu", method="closed_form")) for _ in range(3)]
    assert got == [want] * 3
    first = repeat_count(email)
    assert repeat_count(email) is first
    with config.set(dynamic_split=config.dynamic_split + 1):       # any change: bound again
        assert repeat_count(email) is not first
        assert _counts(census(email, 3, backend="gpu", method="closed_form")) == want
    email.clear_device_cache()
    assert _counts(census(email, 3, backend="gpu", method="closed_form")) == want
    G = la_gpm.generators.gnm(3000, 40000, seed=5)
    assert G.nnz > mg.SMALL_K3_MAX_ARCS
    assert _counts(census(G, 3, backend="gpu")) == _counts(census(G, 3, backend="cpu"))
    assert _counts(census(email, 3, backend="gpu", method="closed_form")) == want


@gpu
@pytest.mark.parametrize("method", GPU_METHODS[4])
def test_citeseer_published(citeseer, method):
    assert _by_name(census(citeseer, 3, backend="gpu", method=method)) == CITESEER_INDUCED_3
    assert _by_name(census(citeseer, 4, backend="gpu", method=method)) == CITESEER_INDUCED_4
    assert _by_name(census(citeseer, 4, backend="gpu", method=method, induced=False)) == CITESEER_NONINDUCED_4


def _parse_truth(path):
    out = {}
    for line in path.read_text().splitlines():
        if line.strip():
            pat, num = line.rsplit(None, 1)
            edges = [(int(a) - 1, int(b) - 1) for a, b in re.findall(r"\[(\d+)-(\d+)\]", pat)]
            out[Pattern(edges, k=4).canonical_key] = int(num)
    return out


@gpu
@pytest.mark.parametrize("fname, induced", [("citeseer-truth/4m.txt", True), ("citeseer-truth/4m-edge.txt", False)])
@pytest.mark.parametrize("method", GPU_METHODS[4])
def test_citeseer_truth_files(citeseer, fname, induced, method):
    df = census(citeseer, 4, backend="gpu", method=method, induced=induced)
    got = {Pattern(e, k=4).canonical_key: int(c) for e, c in zip(df["edges"], df["count"])}
    assert got == _parse_truth(data_path(fname))


@gpu
def test_citeseer_5_published(citeseer):
    ni = census(citeseer, 5, backend="gpu", induced=False)
    got = {Pattern(e, k=5).canonical_key: int(c) for e, c in zip(ni["edges"], ni["count"])}
    for name, want in CITESEER_NONINDUCED_5.items():
        assert got[Pattern.named(name).canonical_key] == want
    ind = census(citeseer, 5, backend="gpu")
    assert _by_name(ind)["5-clique"] == 46 and sum(_counts(ind)) == 7_668_883


graphs = st.integers(5, 10).flatmap(
    lambda n: st.tuples(st.just(n), st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
                                             .filter(lambda e: e[0] < e[1]), max_size=n * (n - 1) // 2)))


@gpu
@pytest.mark.parametrize("k", [3, 4, 5, 6])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=graphs)
def test_random_graphs_against_brute_force(k, g):
    n, edges = g
    G = _graph(n, sorted(edges))
    edge_lists = [list(e) for e in census(G, k, backend="cpu")["edges"]]
    want, _ = induced_census(G, k, edge_lists)
    for method in GPU_METHODS[k]:
        assert _counts(census(G, k, backend="gpu", method=method)) == want


@gpu
@pytest.mark.parametrize("seed", range(3))
def test_random_dense_graphs_match_cpu(seed):
    G = la_gpm.generators.gnm(40, 300, seed=seed)
    for k in (4, 5, 6):
        for method in GPU_METHODS[k]:
            _same_as_cpu(G, k, method, induced=seed != 1)


@gpu
def test_k7_small_graph_matches_cpu():
    G = la_gpm.generators.gnm(24, 70, seed=4)
    _same_as_cpu(G, 7, "enumerate")
    _same_as_cpu(G, 7, "enumerate", induced=False)


@gpu
def test_skewed_graph_matches_cpu():
    G = la_gpm.generators.rmat(11, seed=3)   # hubs: deep extension stacks, long rows
    for k in (3, 4, 5):
        for method in GPU_METHODS[k]:
            _same_as_cpu(G, k, method)


@gpu
def test_tiny_memory_budget_still_exact(citeseer):
    want4 = _counts(census(citeseer, 4, backend="cpu"))
    want5 = _counts(_cpu(citeseer, 5, "enumerate"))
    with la_gpm.config.set(memory_budget=1 << 12):   # one block of warps; many bowtie batches, pair-list retry
        assert _counts(census(citeseer, 4, backend="gpu")) == want4
        assert _counts(census(citeseer, 4, backend="gpu", method="enumerate")) == want4
        assert _counts(census(citeseer, 5, backend="gpu")) == want5
        assert _counts(census(citeseer, 5, backend="gpu", method="hybrid")) == want5


@gpu
def test_empty_edgeless_and_isolated():
    for G in (_graph(6, []), _graph(9, [(0, 1), (1, 2), (0, 2), (2, 3)])):
        for k in (3, 4, 5):
            for method in GPU_METHODS[k]:
                assert _counts(census(G, k, backend="gpu", method=method)) == _counts(census(G, k, backend="cpu"))


@gpu
def test_inputs_not_modified_and_hybrid_only_for_k5():
    G = la_gpm.generators.gnm(50, 200, seed=2)
    ptr, idx = G.indptr.copy(), G.indices.copy()
    census(G, 5, backend="gpu")
    census(G, 5, backend="gpu", method="hybrid")
    assert np.array_equal(G.indptr, ptr) and np.array_equal(G.indices, idx)
    with pytest.raises(la_gpm.InvalidArgument, match="hybrid"):
        census(G, 4, backend="gpu", method="hybrid")


@gpu
def test_auto_backend_counts_agree(email):
    want = _counts(census(email, 4, backend="cpu"))
    assert _counts(census(email, 4, backend="auto")) == want


# --------------------------------------------------------------------------- the 5-vertex hybrid


@gpu
@pytest.mark.parametrize("make", [lambda: la_gpm.datasets.load("karate"), lambda: la_gpm.generators.rmat(10, seed=5),
                                  lambda: la_gpm.generators.gnm(300, 2000, seed=1), lambda: _graph(5, [(0, 1)])],
                         ids=["karate", "rmat10", "gnm", "one-edge"])
def test_sigma4_matches_cpu(make):
    from la_gpm.motifs.closed_forms import noninduced_orbits as _sigma
    from la_gpm.motifs.common import descending as _descending
    from la_gpm.motifs.gpu import sigma4
    G = make()
    want, want_extra = _sigma(G, 4, with_extra=True)
    got, got_k23 = sigma4(G)
    new_id = _descending(G)[2]
    assert np.array_equal(got[new_id], want)
    assert np.array_equal(got_k23[new_id], want_extra[:, 0])


@gpu
@pytest.mark.parametrize("make", [lambda: la_gpm.datasets.load("karate"), lambda: la_gpm.generators.rmat(10, seed=5),
                                  lambda: la_gpm.generators.gnm(60, 900, seed=3),
                                  lambda: _graph(7, [(0, 1), (1, 2), (4, 5)]), lambda: _graph(4, [])],
                         ids=["karate", "rmat10", "dense", "isolated", "edgeless"])
def test_orbits_gpu_equal_cpu(make):
    # the CPU's orbits equal ORCA's (test_census.test_orbits_equal_orca); the GPU's must equal the CPU's,
    # in the caller's vertex ids (the GPU works on the degree-descending relabelling)
    from la_gpm.motifs.driver import orbits
    G = make()
    before = (G.indptr.copy(), G.indices.copy())
    for k in (2, 3, 4):
        want = orbits(G, k, backend="cpu")
        got = orbits(G, k, backend="gpu")
        assert got.dtype == np.int64 and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    assert np.array_equal(G.indptr, before[0]) and np.array_equal(G.indices, before[1])
    if G.nnz >= 20_000:   # auto sends graphs this large to the GPU
        np.testing.assert_array_equal(orbits(G, 4), want)


@gpu
@pytest.mark.parametrize("make", [lambda: la_gpm.generators.rmat(7, seed=8), lambda: la_gpm.generators.rmat(8, seed=8),
                                  lambda: la_gpm.generators.gnm(2000, 12000, seed=3),
                                  lambda: la_gpm.generators.gnm(60, 500, seed=1)],
                         ids=["rmat7", "rmat8", "gnm-sparse", "gnm-dense"])
def test_hybrid_equals_cpu_hybrid_and_enumeration(make):
    G = make()
    got = census(G, 5, backend="gpu", method="hybrid", induced=False)
    assert got.attrs["method"] == "gpu_hybrid" and all(type(c) is int for c in got["count"])
    assert _counts(got) == _counts(census(G, 5, backend="cpu", method="hybrid", induced=False))
    assert _counts(census(G, 5, backend="gpu", method="hybrid")) == _counts(census(G, 5, backend="cpu",
                                                                                     method="enumerate"))


@gpu
def test_hybrid_skewed_graphs_equal_enumeration():
    """Hubs (R-MAT): long common lists, split K2,3 pairs, hub blocks; the CPU enumeration as the oracle."""
    for G in (la_gpm.generators.rmat(10, seed=2), la_gpm.generators.rmat(9, seed=4)):
        assert _counts(census(G, 5, backend="gpu", method="hybrid")) == _counts(_cpu(G, 5, "enumerate"))


@gpu
def test_hybrid_hub_blocks_and_splits(monkeypatch):
    """Tiny thresholds: every vertex a hub block, one b per C5 item, every K2,3 pair split per first element."""
    from la_gpm.motifs import gpu as gc
    G = la_gpm.generators.rmat(9, seed=2)
    want = _counts(census(G, 5, backend="cpu", method="enumerate"))
    for hub, s5, k23 in ((1, 1, 3), (4, 3, 4), (1 << 30, 64, 1 << 30)):
        monkeypatch.setattr(gc, "C5_HUB_DEGREE", hub)
        monkeypatch.setattr(gc, "C5_SPLIT", s5)
        monkeypatch.setattr(gc, "K23_SPLIT", k23)
        G2 = la_gpm.Graph.from_edges(*_edges(G), n=G.n)     # fresh device caches (item offsets depend on the split)
        assert _counts(census(G2, 5, backend="gpu", method="hybrid")) == want, (hub, s5, k23)


def _dense_hits_agree(monkeypatch, email, settings):
    """dense5_hits of R-MAT 9, G(60, 900), karate and email-Eu-core (fresh device caches each run) under
    each setting (a dict) of census.py's constants are all equal."""
    from la_gpm.motifs import gpu as gc
    graphs = [la_gpm.generators.rmat(9, seed=2), la_gpm.generators.gnm(60, 900, seed=3),
              la_gpm.datasets.load("karate"), email]
    for G in graphs:
        tv = None
        runs = []
        for setting in settings:
            for name, value in setting.items():
                monkeypatch.setattr(gc, name, value)
            G2 = la_gpm.Graph.from_edges(*_edges(G), n=G.n)
            if tv is None:
                sigma, _ = gc.sigma4(G2)
                tv = np.asarray(sigma[:, 3])
            runs.append(gc.dense5_hits(G2, tv))
        assert all(r == runs[0] for r in runs[1:]), (G, settings)


@gpu
def test_hybrid_k23_bulk_equals_listing(monkeypatch, email):
    """c5_k23_bulk (K2,3 copies of pairs with many common neighbours counted per class from G[common list])
    gives the listing's hits, for every pair in bulk, some, or none, with 1 or 32 list vertices per item."""
    _dense_hits_agree(monkeypatch, email, [{"K23_BULK": b, "K23_BULK_X": x}
                                           for b, x in ((1 << 30, 32), (3, 1), (3, 32), (8, 5), (16, 32))])
    want = _counts(census(email, 5, backend="cpu", method="hybrid"))
    assert _counts(census(la_gpm.Graph.from_edges(*_edges(email), n=email.n), 5, backend="gpu",
                          method="hybrid")) == want


@gpu
def test_hybrid_bowtie_bulk_equals_listing(monkeypatch, email):
    """c5_bowtie_rows / c5_bowtie_bulk (a hub's bowties counted per class from a bit matrix of G[N(u)]) give
    the listing's hits: every hub, some or none in bulk."""
    from la_gpm.motifs import gpu as gc
    _dense_hits_agree(monkeypatch, email, [{"BOWTIE_BULK": b, "BOWTIE_BULK_RATIO": r}
                                           for b, r in ((1 << 62, 4), (1, 1e12), (8, 4), (gc.BOWTIE_BULK, 4))])


@gpu
def test_hybrid_email_equals_enumeration(email):
    got = census(email, 5, backend="gpu", method="hybrid")
    assert _counts(got) == _counts(_cpu(email, 5, "enumerate"))


@gpu
def test_citeseer_5_published_hybrid(citeseer):
    ni = census(citeseer, 5, backend="gpu", method="hybrid", induced=False)
    got = {Pattern(e, k=5).canonical_key: int(c) for e, c in zip(ni["edges"], ni["count"])}
    for name, want in CITESEER_NONINDUCED_5.items():
        assert got[Pattern.named(name).canonical_key] == want
    ind = census(citeseer, 5, backend="gpu", method="hybrid")
    assert _by_name(ind)["5-clique"] == 46 and sum(_counts(ind)) == 7_668_883


@gpu
def test_gpu_auto_rule(citeseer, email):
    """method='auto' on the GPU picks the hybrid exactly where gpu_prefers_hybrid says so, its inputs
    computed on the CPU (closed forms), and the counts do not depend on the choice: citeseer is too small,
    G(150, 6000) (26 K2,3 + bowtie copies per connected 4-subset) takes the hybrid since its bowties and
    K2,3 are counted in bulk, G(110, 5200) (227 per subset) enumerates."""
    from la_gpm.motifs.hybrid import hybrid5_auto_inputs
    from la_gpm.motifs.gpu import gpu_prefers_hybrid
    picks = []
    for G in (citeseer, email, la_gpm.generators.gnm(3000, 30000, seed=7), la_gpm.generators.gnm(150, 6000, seed=1),
              la_gpm.generators.gnm(110, 5200, seed=1)):
        connected4, k23, bowtie = hybrid5_auto_inputs(G)
        got = census(G, 5, backend="gpu")
        picks.append(got.attrs["method"])
        assert picks[-1] == ("gpu_hybrid" if gpu_prefers_hybrid(connected4, k23, bowtie) else "gpu_enumerate")
        assert _counts(got) == _counts(_cpu(G, 5, "enumerate"))
    assert picks == ["gpu_enumerate", "gpu_hybrid", "gpu_hybrid", "gpu_hybrid", "gpu_enumerate"]


# --------------------------------------------------------------------------- host side (no GPU needed)


def _edges(G):
    src = np.repeat(np.arange(G.n), np.diff(G.indptr))
    keep = src < G.indices
    return src[keep], G.indices[keep].astype(np.int64)


def _bowtie_bulk_model(hub_rows):
    """c5_bowtie_bulk's seven sums, row item by row item, over hubs given as bit matrices (a list of
    rows per hub, row i a Python int whose bit j says N(u)[i] ~ N(u)[j], as c5_bowtie_rows builds them)."""
    pc = int.bit_count
    acc = [0] * 7
    for X in hub_rows:
        D = len(X)
        dg = [pc(r) for r in X]
        for i in range(D):
            dx = dg[i]
            acc[0] += dx * (dx - 1) // 2
            if dx >= 2:
                for z in range(i + 1, D):
                    if dg[z] >= 2:
                        c = pc(X[i] & X[z])
                        acc[6] += c * (c - 1) // 2
            for y in range(i + 1, D):
                if not (X[i] >> y) & 1:
                    continue
                t = pc(X[i] & X[y])
                acc[1] += (dx - 1) * (dg[y] - 1)
                acc[2] += t * (t - 1) // 2
                acc[3] += t
                acc[4] += t * (dx + dg[y] - 4)
                common = X[i] & X[y]
                for w in range(y + 1, D):
                    if (common >> w) & 1:
                        acc[5] += pc((common & X[w]) >> (w + 1))
    return acc


def _dense_decomposition(G, S, split, cap, bulk=1 << 30, xc=32):
    """The work decomposition of census5.cu's dense kernels, item by item, in Python: C5 items
    (c5_item_offsets), hub pairs split by k23_item_offsets, the pairs with >= ``bulk`` common neighbours
    counted as c5_k23_bulk does (items of ``xc`` list vertices, per-item shares modulo 2^64), the hubs of
    bowtie_bulk_hubs counted as c5_bowtie_rows / c5_bowtie_bulk do (bowtie_class_hits on the host), the
    other bowtie lists in bowtie_batches."""
    from la_gpm.motifs.common import descending as _descending
    from la_gpm.patterns.classes import classes as _classes
    from la_gpm.motifs.cpu import k23_class_rows as _k23_class_rows
    from la_gpm.motifs.gpu import (bowtie_batches, bowtie_bulk_hubs, bowtie_class_hits, c5_item_offsets,
                                            k23_item_offsets)
    table = _classes(5).table
    ptr, idx, _ = _descending(G)
    n = G.n
    N = [set(idx[ptr[v]:ptr[v + 1]].tolist()) for v in range(n)]
    row = [idx[ptr[v]:ptr[v + 1]].tolist() for v in range(n)]
    hits = np.zeros(len(_classes(5).keys), dtype=np.int64)

    def hit(vs):
        code = 0
        for j in range(1, 5):
            for i in range(j):
                if vs[j] in N[vs[i]]:
                    code |= 1 << (j * (j - 1) // 2 + i)
        hits[table[code]] += 1

    src = np.repeat(np.arange(n), np.diff(ptr))
    fwd = np.flatnonzero(idx > src)
    offs = c5_item_offsets(ptr, idx, fwd, S)
    for item in range(int(offs[-1])):
        e = int(np.searchsorted(offs, item, side="right")) - 1
        u, a = int(src[fwd[e]]), int(idx[fwd[e]])
        first = S * (item - int(offs[e]))
        for b in row[a][first:first + S]:
            if b <= u:
                continue
            for c in row[b]:
                if c <= u or c == a:
                    continue
                for d in row[c]:
                    if d > a and d != b and d in N[u]:
                        hit((u, a, b, c, d))
    pairs = []
    for u in range(n):
        codeg = {}
        for a in row[u]:
            for v in row[a]:
                if v > u:
                    codeg[v] = codeg.get(v, 0) + 1
        pairs += [(u, v, c) for v, c in codeg.items() if c >= 3]
    rows, M, acc = _k23_class_rows(np.asarray(table)), 1 << 64, [0] * len(hits)
    for u, v, c in [q for q in pairs if q[2] >= max(3, bulk)]:
        L, uv = sorted(N[u] & N[v]), int(v in N[u])
        for j0 in range(0, c, xc):                      # one work item
            e = P = t = 0
            for j in range(j0, min(c, j0 + xc)):
                F = [L[q] for q in range(j + 1, c) if L[q] in N[L[j]]]
                dx = len(F) + sum(1 for q in range(j) if L[q] in N[L[j]])
                e, P = e + len(F), P + dx * (dx - 1) // 2
                t += sum(1 for a in range(len(F)) for b in range(a + 1, len(F)) if F[b] in N[F[a]])
            ec = e * (c - 2)
            share = ((c * (c - 1) * (c - 2) // 6 if j0 == 0 else 0) - ec + P - t, ec - 2 * P + 3 * t, P - 3 * t, t)
            for k in range(4):
                acc[rows[4 * uv + k]] = (acc[rows[4 * uv + k]] + share[k]) % M
    hits += np.array(acc, dtype=np.int64)
    pairs = [q for q in pairs if q[2] < max(3, bulk)]
    pc = np.array([c for _, _, c in pairs], dtype=np.int32)
    koffs = k23_item_offsets(pc, split)
    for item in range(int(koffs[-1]) if len(pairs) else 0):
        p = int(np.searchsorted(koffs, item, side="right")) - 1
        u, v, c = pairs[p]
        L = sorted(N[u] & N[v])
        nit = int(koffs[p + 1] - koffs[p])
        i0 = 0 if nit == 1 else item - int(koffs[p])
        i1 = c - 2 if nit == 1 else i0 + 1
        for i in range(i0, i1):
            for y in range(i + 1, c - 1):
                for z in range(y + 1, c):
                    hit((u, v, L[i], L[y], L[z]))
    tv = [sum(len(N[a] & N[v]) for a in row[v]) // 2 for v in range(n)]
    hubs = bowtie_bulk_hubs(np.array(tv), np.diff(ptr), 1 << 40).tolist()
    mats = [[sum(1 << j for j, y in enumerate(row[u]) if y in N[x]) for x in row[u]] for u in hubs]
    hits += np.array(bowtie_class_hits([tv[u] for u in hubs], *_bowtie_bulk_model(mats), len(hits)), dtype=np.int64)
    hubset = set(hubs)
    toffs = np.concatenate([[0], np.cumsum([0 if u in hubset else t for u, t in enumerate(tv)])]).astype(np.int64)
    for u0, u1 in bowtie_batches(toffs, cap):
        lists = {x: [] for x in range(u0, u1)}
        for x in range(n):
            for y in row[x]:
                if y <= x:
                    continue
                for z in row[y]:
                    if z > y and z in N[x]:
                        for own, pq in ((x, (y, z)), (y, (x, z)), (z, (x, y))):
                            if u0 <= own < u1 and own not in hubset:
                                lists[own].append(pq)
        for u, L in lists.items():
            assert len(L) == (0 if u in hubset else tv[u])
            for g in range(len(L)):
                for h in range(g + 1, len(L)):
                    (a, b), (c, d) = L[g], L[h]
                    if len({a, b, c, d}) == 4:
                        hit((u, a, b, c, d))
    return hits


@pytest.mark.parametrize("make, S, split, cap", [
    (lambda: la_gpm.generators.gnm(40, 200, seed=1), 1, 3, 1),
    (lambda: la_gpm.generators.rmat(6, seed=2), 3, 4, 50),
    (lambda: la_gpm.datasets.load("karate"), 8, 48, 1 << 30)], ids=["gnm-S1", "rmat6-S3", "karate"])
def test_dense_decomposition_matches_cpu_dense5_hits(monkeypatch, make, S, split, cap):
    from la_gpm.motifs.common import nchunks as _nchunks
    from la_gpm.patterns.classes import classes as _classes
    from la_gpm.motifs.cpu import BOWTIE_BULK, K23_COMB, dense5_hits
    from la_gpm.motifs import gpu as gc
    G = make()
    want = dense5_hits(G.indptr, G.indices, G.degree_rank, _classes(5).table, len(_classes(5).keys),
                       _nchunks(), K23_COMB, BOWTIE_BULK).sum(axis=0)
    # K2,3 pairs and bowtie hubs: none / every / some in bulk
    for bulk, xc, bb, ratio in ((1 << 30, 32, 1 << 62, 4), (3, 1, 1, 1e12), (5, 2, 8, 4), (8, 32, 64, 4)):
        monkeypatch.setattr(gc, "BOWTIE_BULK", bb)
        monkeypatch.setattr(gc, "BOWTIE_BULK_RATIO", ratio)
        assert np.array_equal(_dense_decomposition(G, S, split, cap, bulk, xc), want), (bulk, xc, bb)


def test_bowtie_bulk_model_counts_the_six_graphs():
    """The bit-matrix sums of c5_bowtie_bulk (modelled) against brute force on small random graphs: the
    non-induced 2K2 ... K4 they give, inverted, are the induced counts of each 4-set weighted by its
    perfect matchings."""
    import itertools
    from la_gpm.patterns.classes import classes as _classes
    from la_gpm.motifs.cpu import bowtie_class_rows as _bowtie_class_rows
    from la_gpm.motifs.gpu import bowtie_class_hits
    rows = _bowtie_class_rows(np.asarray(_classes(5).table)).tolist()
    rng = np.random.default_rng(5)
    for D, p in ((6, 0.5), (9, 0.3), (11, 0.7), (13, 0.9)):
        adj = np.triu(rng.random((D, D)) < p, 1)
        adj = adj | adj.T
        X = [sum(1 << j for j in range(D) if adj[i, j]) for i in range(D)]
        want = [0] * len(_classes(5).keys)
        for q in itertools.combinations(range(D), 4):
            sub = adj[np.ix_(q, q)]
            e, dmax, dmin = int(sub.sum()) // 2, int(sub.sum(0).max()), int(sub.sum(0).min())
            if dmin == 0 or (e == 3 and dmax == 3):
                continue                   # no perfect matching: an isolated vertex or a star
            key = {(2, 1): 0, (3, 2): 1, (4, 2): 2, (4, 3): 3, (5, 3): 4, (6, 3): 5}[(e, dmax)]
            want[rows[key]] += (1, 1, 2, 1, 2, 3)[key]
        m = int(adj.sum()) // 2
        assert bowtie_class_hits([m], *_bowtie_bulk_model([X]), len(want)) == want, (D, p)


def test_host_work_splits():
    from la_gpm.motifs.gpu import bowtie_batches, k23_item_offsets
    rng = np.random.default_rng(0)
    t = rng.integers(0, 20, 200)
    t[17] = 500                     # one list longer than the cap
    toffs = np.concatenate([[0], np.cumsum(t)])
    for cap in (1, 7, 64, 10**9):
        b = bowtie_batches(toffs, cap)
        assert b[0][0] == 0 and b[-1][1] == len(t) and all(x[1] == y[0] for x, y in zip(b, b[1:]))
        assert all(u1 == u0 + 1 or toffs[u1] - toffs[u0] <= cap for u0, u1 in b)
    pc = np.array([3, 50, 4, 100], dtype=np.int32)
    assert k23_item_offsets(pc, 48).tolist() == [0, 1, 49, 50, 148]


def test_auto_declines_small_graphs_on_the_host():
    """The cheap degree bound on connected 4-subsets is an upper bound, and below the CPU's threshold the
    GPU hybrid declines before touching the device."""
    from la_gpm.motifs.closed_forms import closed_form_noninduced as _closed_form_noninduced
    from la_gpm.patterns.classes import classes as _classes, to_induced as _to_induced
    from la_gpm.motifs.gpu import _connected4_bound, hybrid5_noninduced
    for G in (la_gpm.datasets.load("karate"), la_gpm.generators.rmat(7, seed=1),
              la_gpm.generators.gnm(100, 900, seed=2)):
        assert _connected4_bound(G) >= sum(_to_induced(_classes(4).M, _closed_form_noninduced(G, 4)))
        assert hybrid5_noninduced(G, decline=True) is None
