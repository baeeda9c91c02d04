"""Input mistakes (issue 19): broken files, ambiguous arrays, a Graph as a pattern, misspelled keywords, and a
fuzz of every reader: whatever the bytes, a reader returns a graph or raises a la_gpm error, never a raw one."""

from __future__ import annotations

import gzip
import os
import tempfile
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import la_gpm
from la_gpm.dynamic import read_stream
from la_gpm.exceptions import GraphFormatError, InvalidArgument, InvalidPattern, LaGpmError, PatternTooLarge

from .conftest import DATA

BUNDLED = Path(la_gpm.__file__).parent / "datasets" / "data"


# ---------------------------------------------------------------------------------------------- 1. gzip

def test_truncated_gzip_is_a_graph_format_error(tmp_path):
    p = tmp_path / "g.txt.gz"
    p.write_bytes(gzip.compress(b"0 1\n1 2\n2 0\n" * 500)[:40])
    with pytest.raises(GraphFormatError, match="truncated.*download it again") as ei:
        la_gpm.read_graph(p)
    assert "g.txt.gz" in str(ei.value)


@pytest.mark.parametrize("name", ["g.txt.gz", "g.mtx.gz", "g.graph.gz"])
def test_plain_file_named_gz_is_a_graph_format_error(tmp_path, name):
    p = tmp_path / name
    p.write_bytes(b"0 1\n1 2\n")
    with pytest.raises(GraphFormatError, match="not a valid gzip file.*rename it without .gz") as ei:
        la_gpm.read_graph(p)
    assert name in str(ei.value)


def test_truncated_gzip_mtx_is_a_graph_format_error(tmp_path):
    p = tmp_path / "karate.mtx.gz"
    p.write_bytes((BUNDLED / "karate.mtx.gz").read_bytes()[:-30])
    with pytest.raises(GraphFormatError, match="karate.mtx.gz.*truncated"):
        la_gpm.read_graph(p)


# ---------------------------------------------------------------------------------------------- 2. DiGraph

def test_networkx_digraph_with_directed_false_is_undirected():
    g = nx.DiGraph([(0, 1), (1, 0), (1, 2), (3, 2)])
    G = la_gpm.as_graph(g, directed=False)
    assert not G.directed and (G.n, G.m) == (4, 3)
    assert la_gpm.as_graph(g).directed  # by default a DiGraph keeps its direction
    assert la_gpm.as_graph(g, directed=True).directed
    tri = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    assert la_gpm.count(la_gpm.as_graph(tri, directed=False), "triangle", backend="cpu") == 1
    assert "directed=False" in la_gpm.as_graph.__doc__ and "DiGraph" in la_gpm.as_graph.__doc__


# ---------------------------------------------------------------------------------------------- 3. arrays

def test_two_by_two_integer_array_is_an_edge_list():
    G = la_gpm.as_graph(np.array([[5, 6], [6, 7]]))
    assert (G.n, G.m) == (8, 2)
    assert sorted(G.indices[G.indptr[6]:G.indptr[7]].tolist()) == [5, 7]


@pytest.mark.parametrize("a", [[[0, 1], [1, 0]], [[0, 1], [0, 0]], [[1, 1], [1, 1]], [[0.0, 1.0], [1.0, 0.0]]])
def test_two_by_two_zero_one_array_is_ambiguous(a):
    with pytest.raises(InvalidArgument, match=r"ambiguous.*Graph.from_edges.*scipy sparse"):
        la_gpm.as_graph(np.array(a))


def test_square_arrays_other_than_two_by_two_are_adjacency_matrices():
    """Only a (2, 2) array can be either; any other square array is an adjacency matrix (nonzero = edge),
    whatever its dtype, as before."""
    a = np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]])
    assert la_gpm.as_graph(a).m == 3


def test_arrays_that_are_unambiguous_still_work():
    g = nx.karate_club_graph()
    assert la_gpm.as_graph(nx.to_numpy_array(g)).m == 78                        # float 0/1 adjacency
    assert la_gpm.as_graph(nx.to_numpy_array(g, weight=None).astype(np.int64)).m == 78       # integer 0/1 adjacency
    assert la_gpm.as_graph(np.array(g.edges())).m == 78                          # (78, 2) edge list
    assert la_gpm.as_graph(np.array([[0, 1], [1, 2], [2, 0]])).m == 3            # (3, 2) edge list
    assert la_gpm.as_graph(np.array([[True, True], [True, False]])).m == 1       # bool: an adjacency
    assert la_gpm.as_graph(np.array([[0, 2.5], [2.5, 0]])).m == 1                # weights: an adjacency


# ---------------------------------------------------------------------------------------------- 4. Graph as pattern

def test_a_graph_read_from_a_file_is_a_pattern(tmp_path):
    q = tmp_path / "query.graph"
    q.write_text("t 3 2\nv 0 5 1\nv 1 6 2\nv 2 5 1\ne 0 1\ne 1 2\n")
    d = tmp_path / "data.graph"
    d.write_text("t 4 3\nv 0 5 1\nv 1 6 3\nv 2 5 1\nv 3 5 1\ne 0 1\ne 1 2\ne 1 3\n")
    Q = la_gpm.read_graph(q)
    P = la_gpm.patterns.as_pattern(Q)
    assert P.k == 3 and P.vertex_labels == (5, 6, 5) and sorted(P.edges) == [(0, 1), (1, 2)]
    rows = np.concatenate(list(la_gpm.match(la_gpm.read_graph(d), Q)))
    assert len(rows) == 6 and set(rows[:, 1].tolist()) == {1}
    assert la_gpm.count(la_gpm.datasets.load("karate"), la_gpm.Graph.from_edges([0, 1, 2], [1, 2, 0]),
                        backend="cpu") == 45


def test_a_large_or_directed_graph_is_not_a_pattern():
    with pytest.raises(PatternTooLarge, match="34 vertices.*at most 32"):
        la_gpm.patterns.as_pattern(la_gpm.datasets.load("karate"))
    with pytest.raises(InvalidPattern, match="directed"):
        la_gpm.patterns.as_pattern(la_gpm.Graph.from_edges([0, 1], [1, 2], directed=True))


# ---------------------------------------------------------------------------------------------- 5. .graph messages

@pytest.mark.parametrize("text,line,msg", [
    ("t 2 1\nv 0 1 1\nv 5 1 1\ne 0 1\n", 3, r"vertex id 5 out of range \[0, 2\)"),
    ("t 2 1\nv 0 1 1\nv -1 1 1\ne 0 1\n", 3, r"vertex id -1 out of range"),
    ("t 2 1\nv 0 1 1\nv 1 1 1\ne 0 2\n", 4, r"edge \(0, 2\).*out of range \[0, 2\)"),
    ("t 2 1\nv 0 1 1\nv 1 1 1\ne -3 1\n", 4, r"edge \(-3, 1\).*out of range"),
    ("t 0 2\nv 0 1\nv 9 1\ne 0 1\n", 3, r"vertex id 9 out of range \[0, 2\)"),        # 't ID N' header
    ("t 2 1\nv 0 1 1\nv 0 1 1\ne 0 1\n", 3, r"vertex 0 declared twice \(first on line 2\)"),
])
def test_sunluo_out_of_range_ids_are_reported(tmp_path, text, line, msg):
    p = tmp_path / "g.graph"
    p.write_text(text)
    with pytest.raises(GraphFormatError, match=msg) as ei:
        la_gpm.read_graph(p)
    assert ei.value.line == line and "g.graph" in str(ei.value)


def test_sunluo_degree_field_is_checked(tmp_path):
    p = tmp_path / "g.graph"
    p.write_text("t 3 2\nv 0 5 1\nv 1 6 1\nv 2 5 1\ne 0 1\ne 1 2\n")
    with pytest.raises(GraphFormatError, match=r"vertex 1 has degree field 1 but 2 'e' lines") as ei:
        la_gpm.read_graph(p)
    assert ei.value.line == 3
    p.write_text("t 3 2\nv 0 5 1\nv 1 6 2\nv 2 5 1\ne 0 1\ne 1 2\n")
    assert la_gpm.read_graph(p).m == 2


def test_sunluo_negative_or_huge_header(tmp_path):
    p = tmp_path / "g.graph"
    for text in ("t -2 1\nv 0 1 1\ne 0 1\n", "t 99999999999999 2\nv 0 1 0\n"):
        p.write_text(text)
        with pytest.raises(GraphFormatError):
            la_gpm.read_graph(p)


# ---------------------------------------------------------------------------------------------- 6. keywords

@pytest.mark.parametrize("func,name", [(la_gpm.count, "count"), (la_gpm.api.count_pattern, "count_pattern")])
def test_misspelled_keyword_names_the_function_and_the_closest(func, name):
    G = la_gpm.datasets.load("karate")
    with pytest.raises(InvalidArgument, match=rf"la_gpm\.{name}\(\).*'inducd' \(did you mean 'induced'\?\)"):
        func(G, "triangle", inducd=True)
    with pytest.raises(InvalidArgument, match=r"'memory_budjet' \(did you mean 'memory_budget'\?\)"):
        func(G, "triangle", memory_budjet=10)


# ---------------------------------------------------------------------------------------------- 7. fuzz

def _seeds():
    """(suffix, bytes) of real files: bundled datasets, shared data (cut to their first lines), a stream."""
    out = []
    for p in sorted(BUNDLED.glob("*.gz")):
        raw = gzip.decompress(p.read_bytes())
        suffix = "".join(p.suffixes)
        out.append((suffix, gzip.compress(b"\n".join(raw.splitlines()[:300]) + b"\n", mtime=0)))
        out.append((suffix[:-3], b"\n".join(raw.splitlines()[:300]) + b"\n"))
    for rel in ("karate.mtx", "citeseer.edgelist", "hprd/query_graph/query_dense_16_1.graph",
                "yeast/yeast.graph", "p2p-Gnutella08.txt.gz"):
        p = DATA / rel
        if p.is_file():
            raw = p.read_bytes()
            if rel.endswith(".gz"):
                raw = gzip.decompress(raw)
            raw = b"\n".join(raw.splitlines()[:300]) + b"\n"
            if rel.endswith(".graph"):  # keep the header consistent after cutting the file
                lines = raw.splitlines()
                nv = sum(1 for ln in lines if ln.startswith(b"v"))
                es = [ln for ln in lines if ln.startswith(b"e") and max(map(int, ln.split()[1:3])) < nv]
                raw = b"\n".join([b"t %d %d" % (nv, len(es))] + [ln for ln in lines if ln.startswith(b"v")]
                                 + es) + b"\n"
            out.append(("." + rel.split(".", 1)[1].replace(".gz", ""), raw))
    out.append((".stream", b"v 40 3 0\ne 0 1 0\ne 1 2 1\n-e 2 3 0\n# c\ne 3 40\n-e 0 1\n"))
    return out


SEEDS = _seeds()
TOKENS = [b"v", b"e", b"-e", b"t", b"%%MatrixMarket matrix coordinate pattern symmetric", b"%", b"#", b"0", b"1",
          b"-1", b"7", b"99999999999999999999999", b"1e3", b"nan", b"x", b"\xff\xfe", b",", b"\t", b"3 3 2"]


@st.composite
def mutated(draw):
    suffix, raw = draw(st.sampled_from(SEEDS))
    gz = suffix.endswith(".gz")
    text = gzip.decompress(raw) if gz and draw(st.booleans()) else raw
    recompress = gz and text is not raw
    data = bytearray(text)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "line_del", "line_dup", "line_new", "cut"]))
        lines = bytes(data).split(b"\n")
        if op in ("flip", "insert", "delete", "cut") and data:
            i = draw(st.integers(0, len(data) - 1))
            if op == "flip":
                data[i] ^= 1 << draw(st.integers(0, 7))
            elif op == "insert":
                data[i:i] = draw(st.binary(min_size=1, max_size=3))
            elif op == "delete":
                del data[i:i + draw(st.integers(1, 8))]
            else:
                del data[i:]
        elif op == "line_del":
            del lines[draw(st.integers(0, len(lines) - 1))]
            data = bytearray(b"\n".join(lines))
        elif op == "line_dup":
            i = draw(st.integers(0, len(lines) - 1))
            lines.insert(draw(st.integers(0, len(lines))), lines[i])
            data = bytearray(b"\n".join(lines))
        else:
            new = b" ".join(draw(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=5)))
            lines.insert(draw(st.integers(0, len(lines))), new)
            data = bytearray(b"\n".join(lines))
    data = bytes(data)
    if recompress:
        data = gzip.compress(data, mtime=0)
    return suffix, data


SUFFIXES = [".txt", ".txt.gz", ".mtx", ".mtx.gz", ".graph", ".graph.gz", ".edgelist", ".stream"]


def _read_one(suffix, data):
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / ("f" + (".txt" if suffix == ".stream" else suffix))
        p.write_bytes(data)
        try:
            got = read_stream(p) if suffix == ".stream" else la_gpm.read_graph(p)
        except LaGpmError:
            return None
        if suffix == ".stream":
            assert set(got) == {"insert", "delete", "labels"}
        else:
            assert isinstance(got, la_gpm.Graph) and got.indptr[-1] == got.indices.size
        return got


FUZZ = settings(max_examples=int(os.environ.get("LA_GPM_FUZZ_EXAMPLES", "600")), deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))


@FUZZ
@given(suffix=st.sampled_from(SUFFIXES), data=st.binary(max_size=300))
def test_fuzz_readers_random_bytes(suffix, data):
    if suffix.endswith(".gz") and data[:1] == b"\x00":
        data = gzip.compress(data[1:], mtime=0)  # also random text inside a valid gzip stream
    _read_one(suffix, data)


@FUZZ
@given(case=mutated())
def test_fuzz_readers_mutated_real_files(case):
    _read_one(*case)


@FUZZ
@given(suffix=st.sampled_from(SUFFIXES), lines=st.lists(st.lists(st.sampled_from(TOKENS), max_size=5), max_size=12))
def test_fuzz_readers_lines_of_tokens(suffix, lines):
    data = b"\n".join(b" ".join(ln) for ln in lines)
    _read_one(suffix, gzip.compress(data, mtime=0) if suffix.endswith(".gz") else data)
