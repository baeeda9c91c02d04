"""The one engine table (la_gpm/engines.py): which engine counts a pattern, whatever way it was given, and
that every route gives the enumeration's number."""

from __future__ import annotations

import random
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm import engines
from la_gpm.api import count_many, count_pattern
from la_gpm.backends import graphblas_status
from la_gpm.exceptions import BackendUnavailable
from la_gpm.patterns import Pattern

CLOSED = ["wedge", "4-star", "5-star", "7-star", "4-path", "tailed-triangle", "bowtie", "house"]


def _relabelled(P, seed):
    """The same pattern as a shuffled edge list on permuted vertex ids (no name)."""
    rng = random.Random(seed)
    perm = list(range(P.k))
    rng.shuffle(perm)
    edges = [(perm[u], perm[v]) if rng.random() < 0.5 else (perm[v], perm[u]) for u, v in P.edges]
    rng.shuffle(edges)
    return Pattern(edges, k=P.k)


@pytest.mark.parametrize("name", CLOSED)
def test_every_spelling_reaches_the_closed_form(name):
    G = la_gpm.datasets.load("karate")
    P = Pattern.named(name)
    spellings = [name, P, _relabelled(P, 1), _relabelled(P, 2), nx.Graph(list(_relabelled(P, 3).edges))]
    want = count_pattern(G, P, closed_forms=False, backend="cpu")
    for s in spellings:
        n, st_ = count_pattern(G, s, backend="cpu", return_stats=True)
        assert st_["engine"] == "closed_form" and st_["plan"].startswith("closed form"), (name, s, st_)
        assert n == want
        assert count_pattern(G, s, backend="cpu", count="embeddings") == want * P.automorphism_count


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 30), p=st.floats(0.0, 0.6), seed=st.integers(0, 10**6))
def test_closed_forms_equal_the_enumeration(n, p, seed):
    G = la_gpm.generators.gnm(n, int(p * n * (n - 1) / 2), seed=seed)
    for name in CLOSED:
        assert count_pattern(G, name, backend="cpu") == count_pattern(G, name, backend="cpu", closed_forms=False), name


def test_induced_and_labeled_patterns_do_not_take_closed_forms():
    G = la_gpm.datasets.load("karate")
    for kw in (dict(induced=True), dict(closed_forms=False)):
        _, st_ = count_pattern(G, "4-star", backend="cpu", return_stats=True, **kw)
        assert st_["engine"] == "plan_dfs"
    labeled = Pattern([(0, 1), (0, 2), (0, 3)], vertex_labels=[0, 0, 0, 0])
    H = la_gpm.Graph.from_edges([0, 1, 2, 0], [1, 2, 3, 3], vertex_labels=[0, 0, 0, 0])
    _, st_ = count_pattern(H, labeled, backend="cpu", return_stats=True)
    assert st_["engine"] == "plan_dfs"


def test_cliques_and_triangles_rows():
    G = la_gpm.datasets.load("karate")
    assert engines.choose(G, Pattern.named("triangle"), backend="cpu").engine.name == "triangles"
    assert engines.choose(G, Pattern.named("5-clique"), backend="cpu").engine.name == "kcliques"
    # a triangle spelled as an edge list is the triangle
    assert engines.choose(G, Pattern([(2, 0), (1, 2), (0, 1)]), backend="cpu").engine.name == "triangles"
    # parts: the triangle kernels count whole graphs, so a part goes to the clique kernel
    assert engines.choose(G, Pattern.named("triangle"), backend="cpu", part=(0, 2)).engine.name == "kcliques"
    assert engines.choose(G, Pattern.named("4-star"), backend="cpu", part=(0, 2)).engine.name == "plan_dfs"


def test_explain_gives_every_row_a_reason():
    G = la_gpm.datasets.load("karate")
    rows = engines.explain(G, "4-cycle", backend="cpu")
    assert [r[0] for r in rows] == [e.name for e in engines.ENGINES if "cpu" in e.backends]
    assert [r[2] for r in rows].count("chosen") == 1 and rows[-1][0] == "plan_dfs"
    assert all(isinstance(r[3], str) and len(r[3]) > 10 for r in rows)
    star = dict((r[0], r) for r in engines.explain(G, [(0, 1), (0, 2), (0, 3)], backend="cpu"))
    assert star["closed_form"][2] == "chosen" and "4-star" in star["closed_form"][3]
    assert star["plan_dfs"][2] == "can run"


def test_auto_without_gpu_and_graphblas_refusal():
    G = la_gpm.datasets.load("karate")
    c = engines.choose(G, Pattern.named("4-cycle"), backend="auto")
    assert c.backend == "cpu" and "auto" in c.reason
    if graphblas_status() is None:
        with pytest.raises(BackendUnavailable, match="cliques"):
            count_pattern(G, "4-cycle", backend="graphblas")
        assert count_pattern(G, "4-clique", backend="graphblas") == count_pattern(G, "4-clique", backend="cpu")


def test_count_many_takes_the_same_rows():
    G = la_gpm.generators.gnm(60, 300, seed=4)
    names = ["4-star", "4-cycle", "triangle", "tailed-triangle", "5-clique", "house", [(0, 1), (1, 2), (2, 3)]]
    want = [count_pattern(G, n, backend="cpu", closed_forms=False) for n in names]
    assert count_many(G, names, backend="cpu") == want
    assert count_many(G, names, backend="cpu", cpu_batch=False) == want
    assert count_many(G, names, backend="cpu", closed_forms=False) == want


def test_table_names_real_places():
    root = Path(la_gpm.__file__).resolve().parents[1]
    for e in engines.ENGINES:
        for where in e.where.split(", "):
            assert (root / where).exists(), (e.name, where)
        assert set(e.backends) <= {"cpu", "graphblas", "gpu"}


@pytest.mark.gpu
@pytest.mark.skipif(la_gpm.backends.gpu_status() is not None, reason=f"no GPU: {la_gpm.backends.gpu_status()}")
def test_gpu_free_block_sizes_do_not_change_counts():
    """The kernels whose block size comes from config.gpu_block (device.block_size): triangle arc work, clique
    arc sizes, census ESU items, the trie engine, color-coding block sums; at 32, 96 and 1024 threads."""
    G = la_gpm.generators.rmat(10, seed=3)
    want = (count_pattern(G, "triangle", backend="cpu"), count_pattern(G, "4-clique", backend="cpu"),
            list(la_gpm.census(G, 5, backend="cpu", method="enumerate")["count"]),
            count_pattern(G, "house", backend="cpu", closed_forms=False),
            la_gpm.colorful_count(G, "u5", seed=1, backend="cpu"))
    for block in (32, 96, 1024):
        with la_gpm.config.set(gpu_block=block):
            got = (count_pattern(G, "triangle", backend="gpu"), count_pattern(G, "4-clique", backend="gpu"),
                   list(la_gpm.census(G, 5, backend="gpu", method="enumerate")["count"]),
                   count_pattern(G, "house", backend="gpu", gpu_engine="trie"),
                   la_gpm.colorful_count(G, "u5", seed=1, backend="gpu"))
        assert got[:4] == want[:4], block
        assert got[4] == pytest.approx(want[4], rel=1e-4), block


def test_every_part_has_an_engine_on_every_backend():
    """The distributed unit (part=) is placed on a splitting engine for every pattern kind, on the cpu and
    on the gpu rows of the table (checked without a device: the rows' own answers)."""
    G = la_gpm.generators.rmat(8, seed=6)
    for name in ("triangle", "4-clique", "diamond", "4-cycle", "house", "4-star", "5-path"):
        P = Pattern.named(name)
        for backend in ("cpu", "gpu"):
            for induced in (False, True):
                e, why = engines._first(engines.Request(G, P, induced=induced, backend=backend, part=(1, 4)))
                assert e is not None and e.splits, (name, backend, induced, why)
        e, _ = engines._first(engines.Request(G, P, backend="gpu"))
        assert e.name == ("kcliques" if P.is_clique and P.k > 3 else "triangles" if P.is_clique else
                          "cuts" if P.k >= 5 else "dumato"), name
