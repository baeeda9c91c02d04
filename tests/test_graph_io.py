"""Graph construction, readers, validation and immutability."""

from __future__ import annotations

import gzip

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import la_gpm
from la_gpm import Graph, as_graph
from la_gpm.exceptions import GraphFormatError, InvalidArgument, InvalidGraph

from .conftest import data_path
from .known import TRIANGLES


@pytest.mark.parametrize("name", sorted(TRIANGLES))
def test_real_graph_sizes(name):
    n, m, _ = TRIANGLES[name]
    G = la_gpm.read_graph(data_path(name))
    assert (G.n, G.m) == (n, m)
    assert G.indptr.dtype == np.int64 and G.indices.dtype == np.int32
    # rows sorted, no self-loops, symmetric
    A = G.to_scipy()
    assert (A != A.T).nnz == 0
    assert A.diagonal().sum() == 0
    for v in range(0, G.n, max(1, G.n // 50)):
        nb = G.neighbors(v)
        assert np.all(np.diff(nb) > 0)


def test_from_edges_symmetrises_and_dedups():
    G = Graph.from_edges([0, 1, 1, 2, 2], [1, 0, 2, 2, 0])
    assert G.n == 3 and G.m == 3
    assert G.neighbors(2).tolist() == [0, 1]


def test_directed_keeps_arcs():
    G = Graph.from_edges([0, 1, 0], [1, 2, 1], directed=True)
    assert G.directed and G.m == 2 and G.neighbors(0).tolist() == [1] and G.neighbors(2).tolist() == []


def test_compaction_keeps_ids():
    G = Graph.from_edges([10**12, 5], [7, 10**12], compact=True)
    assert G.n == 3
    assert G.ids.tolist() == [5, 7, 10**12]
    assert G.m == 2


def test_edge_labels_follow_edges():
    G = Graph.from_edges([0, 1], [1, 2], edge_labels=[7, 9])
    lab = dict(zip(zip(np.repeat(np.arange(G.n), G.degrees).tolist(), G.indices.tolist()), G.edge_labels.tolist()))
    assert lab == {(0, 1): 7, (1, 0): 7, (1, 2): 9, (2, 1): 9}


def test_immutable():
    G = la_gpm.datasets.load("karate")
    with pytest.raises(AttributeError):
        G._indptr = None
    with pytest.raises(ValueError):
        G.indptr[0] = 5
    with pytest.raises(ValueError):
        G.indices[0] = 5


def test_inputs_not_modified():
    src = np.array([3, 1, 2, 2]); dst = np.array([1, 3, 2, 0])
    s0, d0 = src.copy(), dst.copy()
    Graph.from_edges(src, dst)
    assert np.array_equal(src, s0) and np.array_equal(dst, d0)
    A = sp.random(30, 30, density=0.2, format="csr", random_state=1)
    A0 = A.copy()
    as_graph(A)
    assert (A != A0).nnz == 0


def _karate_nx():
    return nx.karate_club_graph()


@pytest.mark.parametrize("kind", ["scipy", "scipy_array", "networkx", "igraph", "tuple", "edge_array", "dense",
                                  "pandas", "graphblas"])
def test_as_graph_inputs_agree(kind):
    g = _karate_nx()
    e = np.array(g.edges())
    if kind == "scipy":
        obj = nx.to_scipy_sparse_array(g, format="csr")
        obj = sp.csr_matrix(obj)
    elif kind == "scipy_array":
        obj = nx.to_scipy_sparse_array(g, format="coo")
    elif kind == "networkx":
        obj = g
    elif kind == "igraph":
        ig = pytest.importorskip("igraph")
        obj = ig.Graph(n=34, edges=e.tolist())
    elif kind == "tuple":
        obj = (e[:, 0], e[:, 1])
    elif kind == "edge_array":
        obj = e
    elif kind == "dense":
        obj = nx.to_numpy_array(g)
    elif kind == "pandas":
        import pandas as pd
        obj = pd.DataFrame({"src": e[:, 0], "dst": e[:, 1]})
    else:
        gb = pytest.importorskip("graphblas")
        obj = gb.Matrix.from_coo(e[:, 0], e[:, 1], 1, nrows=34, ncols=34)
    G = as_graph(obj)
    assert (G.n, G.m) == (34, 78)
    assert la_gpm.count(G, "triangle", backend="cpu") == 45


def test_gzip_and_separators(tmp_path):
    p = tmp_path / "g.csv.gz"
    with gzip.open(p, "wt") as f:
        f.write("# comment\n% another\n0,1\n1\t2\n2 0 99\n\n")
    G = la_gpm.read_graph(p)
    assert (G.n, G.m) == (3, 3)


def test_sunluo_labels(tmp_path):
    p = tmp_path / "q.graph"
    p.write_text("t 3 2\nv 0 5 1\nv 1 6 2\nv 2 5 1\ne 0 1\ne 1 2 0\n")
    G = la_gpm.read_graph(p)
    assert G.vertex_labels.tolist() == [5, 6, 5] and G.m == 2


BAD_FILES = [
    ("empty.txt", "", GraphFormatError, "no edges"),
    ("comments.txt", "# only\n", GraphFormatError, "no edges"),
    ("oneid.txt", "0 1\n2\n", GraphFormatError, "line 2"),
    ("word.txt", "0 1\n1 x\n", GraphFormatError, "line 2"),
    ("neg.txt", "0 1\n-1 2\n", GraphFormatError, "line 2"),
    ("g.unknown", "0 1\n", GraphFormatError, "unknown graph format"),
    ("bad.mtx", "hello\n1 2\n", GraphFormatError, "not a MatrixMarket"),
    ("empty.mtx", "", GraphFormatError, "empty"),
    ("rect.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n", InvalidGraph, "square"),
    ("trunc.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 4\n1 2\n", GraphFormatError, "MatrixMarket"),
    ("hdr.graph", "x 3 2\n", GraphFormatError, "line 1"),
    ("range.graph", "t 2 1\nv 0 1 1\nv 1 1 1\ne 0 5\n", GraphFormatError, "line 4"),
    ("count.graph", "t 2 2\nv 0 1 1\nv 1 1 1\ne 0 1\n", GraphFormatError, "header says 2 edges"),
    ("nolabel.graph", "t 3 1\nv 0 1 1\nv 1 1 1\ne 0 1\n", GraphFormatError, "vertex 2"),
]


@pytest.mark.parametrize("fname,text,exc,msg", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_malformed_files(tmp_path, fname, text, exc, msg):
    p = tmp_path / fname
    p.write_text(text)
    with pytest.raises(exc, match=msg) as ei:
        la_gpm.read_graph(p)
    assert fname in str(ei.value)


def test_missing_file():
    with pytest.raises(GraphFormatError, match="no such file"):
        la_gpm.read_graph("/nonexistent/graph.txt")


@pytest.mark.parametrize("obj,msg", [
    (sp.csr_matrix((3, 4)), r"square; got shape \(3, 4\)"),
    ((np.array([0, 1]), np.array([1])), "equal length"),
    ((np.array([0, -1]), np.array([1, 2])), "non-negative"),
    ((np.array([0.5]), np.array([1.0])), "integer"),
    (np.zeros((3, 5)), "edge array or a square"),
    ("not-a-file.xyz", "no such file"),
    (object(), "cannot make a graph"),
])
def test_as_graph_rejects(obj, msg):
    with pytest.raises(InvalidGraph, match=msg):
        as_graph(obj)


def test_label_length_checked():
    with pytest.raises(InvalidGraph, match="one label per vertex"):
        Graph(np.array([0, 1, 2]), np.array([1, 0]), vertex_labels=[1, 2, 3])
    with pytest.raises(InvalidGraph, match="one label per edge"):
        Graph.from_edges([0], [1], edge_labels=[1, 2])


def test_unsorted_csr_rejected():
    with pytest.raises(InvalidGraph, match="sorted"):
        Graph(np.array([0, 2, 3, 4]), np.array([2, 1, 0, 0]))


def test_cached_properties():
    G = la_gpm.datasets.load("karate")
    p, i = G.oriented()
    assert p[-1] == G.m
    rank = G.degree_rank
    src = np.repeat(np.arange(G.n), np.diff(p))
    assert np.all(rank[src] < rank[i])
    assert G.oriented()[0] is p  # cached
    lp, li = G.lower()
    assert lp[-1] == G.m and np.all(li < np.repeat(np.arange(G.n), np.diff(lp)))


def test_pickle_roundtrip():
    import pickle
    G = la_gpm.datasets.load("karate")
    H = pickle.loads(pickle.dumps(G))
    assert np.array_equal(G.indices, H.indices) and H.m == 78


def test_generators_reproducible_and_sized():
    a = la_gpm.generators.rmat(10, seed=3)
    b = la_gpm.generators.rmat(10, seed=3)
    c = la_gpm.generators.rmat(10, seed=4)
    assert a.n == 1024 and np.array_equal(a.indices, b.indices) and not np.array_equal(a.indices, c.indices)
    assert 0.5 * 16 * 1024 < a.m <= 16 * 1024
    g = la_gpm.generators.gnm(500, 3000, seed=1)
    assert (g.n, g.m) == (500, 3000)
    with pytest.raises(InvalidArgument):
        la_gpm.generators.gnm(5, 11)
    with pytest.raises(InvalidArgument):
        la_gpm.generators.rmat(5, a=0.9, b=0.2, c=0.1)


def test_config_env_and_validation(monkeypatch):
    from la_gpm.config import Config
    monkeypatch.setenv("LA_GPM_BACKEND", "cpu")
    assert Config().backend == "cpu"
    monkeypatch.setenv("LA_GPM_BACKEND", "tpu")
    with pytest.raises(InvalidArgument, match="LA_GPM_BACKEND"):
        Config()
    with pytest.raises(InvalidArgument):
        la_gpm.config.memory_budget = -1
    la_gpm.config.memory_budget = 2 << 30


def test_sunluo_variant_header_and_range_errors(tmp_path):
    """'t GRAPH_ID N' headers (the continuous-matching collection, e.g. human.graph) and a clear message for
    an out-of-range id (it was reported as 'non-integer field')."""
    from la_gpm.exceptions import GraphFormatError
    from la_gpm.io import read_sunluo
    p = tmp_path / "g.graph"
    p.write_text("t 0 3\nv 0 5\nv 1 6\nv 2 5\ne 0 1 0\ne 1 2 0\n")
    G = read_sunluo(p)
    assert (G.n, G.m, G.vertex_labels.tolist()) == (3, 2, [5, 6, 5])
    p.write_text("t 2 1\nv 0 5\nv 7 6\ne 0 1\n")
    with pytest.raises(GraphFormatError, match="out of range"):
        read_sunluo(p)
