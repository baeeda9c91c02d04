"""Readers for graph files: SNAP edge lists (also ``.gz``), MatrixMarket, Sun & Luo ``.graph``.

Every malformed input raises :class:`~la_gpm.exceptions.GraphFormatError` naming
the file and the line.
"""

from __future__ import annotations

import gzip
import io
import re
from pathlib import Path

import numpy as np

from .exceptions import GraphFormatError, InvalidGraph

__all__ = ["read_graph", "read_edgelist", "read_mtx", "read_sunluo", "FORMATS"]

FORMATS = ("edgelist", "mtx", "graph")
_EDGELIST_EXT = {".txt", ".edges", ".edgelist", ".el", ".csv", ".tsv", ".snap"}


def _open_text(path: Path):
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def guess_format(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    ext = Path(name).suffix
    if ext == ".mtx":
        return "mtx"
    if ext == ".graph":
        return "graph"
    if ext in _EDGELIST_EXT:
        return "edgelist"
    raise GraphFormatError(f"unknown graph format {ext or '(no extension)'!r}; use one of "
                           f"{sorted(_EDGELIST_EXT | {'.mtx', '.graph'})} (optionally .gz) "
                           f"or pass format= one of {FORMATS}", path=str(path))


def read_graph(path, *, format: str | None = None, directed: bool = False, **kw):
    """Read a graph file into a :class:`la_gpm.Graph` (format from the extension unless given)."""
    path = Path(path)
    if not path.exists():
        raise GraphFormatError("no such file", path=str(path))
    if path.is_dir():
        raise GraphFormatError("is a directory, not a graph file", path=str(path))
    fmt = format or guess_format(path)
    if fmt == "edgelist":
        return read_edgelist(path, directed=directed, **kw)
    if fmt == "mtx":
        return read_mtx(path, directed=directed, **kw)
    if fmt == "graph":
        return read_sunluo(path, directed=directed, **kw)
    raise GraphFormatError(f"unknown format {fmt!r}; use one of {FORMATS}", path=str(path))


_SPLIT = re.compile(r"[\s,]+")


def _parse_edge_lines(path: Path):
    """Fast path: whole-file parse with numpy; on failure find the first bad line."""
    with _open_text(path) as f:
        text = f.read()
    lines = [ln for ln in text.splitlines()]
    rows = []
    for no, ln in enumerate(lines, 1):
        s = ln.strip()
        if not s or s[0] in "#%":
            continue
        parts = _SPLIT.split(s)
        if len(parts) < 2:
            raise GraphFormatError(f"expected two vertex ids, got {s!r}", path=str(path), line=no)
        rows.append((no, parts[0], parts[1]))
    if not rows:
        raise GraphFormatError("file has no edges (empty, or only comments)", path=str(path))
    try:
        src = np.array([r[1] for r in rows], dtype=np.int64)
        dst = np.array([r[2] for r in rows], dtype=np.int64)
    except ValueError:
        for no, a, b in rows:
            for tok in (a, b):
                try:
                    int(tok)
                except ValueError:
                    raise GraphFormatError(f"vertex id {tok!r} is not an integer", path=str(path), line=no) from None
        raise
    neg = np.flatnonzero((src < 0) | (dst < 0))
    if neg.size:
        no, a, b = rows[neg[0]]
        raise GraphFormatError(f"negative vertex id in {a} {b}; ids must be >= 0", path=str(path), line=no)
    return src, dst


def read_edgelist(path, *, directed=False, compact=True, **kw):
    """SNAP-style edge list: ``u v`` per line (space, tab or comma), ``#``/``%`` comments.

    Extra columns (weights, timestamps) are ignored.  With ``compact`` (default) the ids
    that occur are renumbered ``0..n-1`` and kept in ``G.ids``, so isolated ids vanish.
    """
    from .graph import Graph

    path = Path(path)
    src, dst = _parse_edge_lines(path)
    return Graph.from_edges(src, dst, directed=directed, compact=compact, name=path.name.split(".")[0], **kw)


def read_mtx(path, *, directed=False, **kw):
    """MatrixMarket coordinate file (pattern, integer or real; general or symmetric)."""
    import scipy.io
    import scipy.sparse as sp
    from .graph import Graph

    path = Path(path)
    with _open_text(path) as f:
        head = f.readline()
        if not head:
            raise GraphFormatError("file is empty", path=str(path))
        if not head.startswith("%%MatrixMarket"):
            raise GraphFormatError(f"not a MatrixMarket file: first line is {head.strip()[:60]!r}", path=str(path),
                                   line=1)
        if "coordinate" not in head.lower():
            raise GraphFormatError("only coordinate (sparse) MatrixMarket files hold graphs; got a dense array file",
                                   path=str(path), line=1)
    try:
        with (gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")) as fb:
            A = scipy.io.mmread(fb)
    except (ValueError, IndexError, OverflowError) as e:
        raise GraphFormatError(f"malformed MatrixMarket data: {e}", path=str(path)) from None
    if A.shape[0] != A.shape[1]:
        raise InvalidGraph(f"{path}: graph must be square; got shape {A.shape}")
    coo = sp.coo_array(A)
    return Graph.from_edges(coo.row, coo.col, n=A.shape[0], directed=directed, name=path.name.split(".")[0], **kw)


def read_sunluo(path, *, directed=False, **kw):
    """Sun & Luo labeled ``.graph``: ``t N M``, then ``v id label [degree]``, then ``e u v [label]``.

    Edge labels in a 4th column are ignored (yeast queries carry a ``0`` there).  The variant header
    ``t GRAPH_ID N`` of the continuous-matching collection (no edge count; e.g. the human graph:
    ``t 0 4674``) is recognised when its last number equals the number of ``v`` lines.
    """
    from .graph import Graph

    path = Path(path)
    with _open_text(path) as f:
        lines = f.read().splitlines()
    if not lines or not lines[0].strip():
        raise GraphFormatError("file is empty", path=str(path))
    head = lines[0].split()
    if len(head) < 3 or head[0] != "t":
        raise GraphFormatError(f"expected header 't N M'; got {lines[0].strip()!r}", path=str(path), line=1)
    try:
        n, m = int(head[1]), int(head[2])
    except ValueError:
        raise GraphFormatError(f"header counts are not integers: {lines[0].strip()!r}", path=str(path), line=1) from None
    nv = sum(1 for ln in lines[1:] if ln.startswith("v"))
    if nv != n and nv == m:  # 't GRAPH_ID N': no edge count to check
        n, m = m, None
    labels = np.full(n, -1, dtype=np.int64)
    src, dst = [], []
    for no, ln in enumerate(lines[1:], 2):
        p = ln.split()
        if not p:
            continue
        try:
            if p[0] == "v" and len(p) >= 3:
                v = int(p[1])
                if not 0 <= v < n:
                    raise GraphFormatError(f"vertex id {v} out of range [0, {n})", path=str(path), line=no)
                labels[v] = int(p[2])
            elif p[0] == "e" and len(p) >= 3:
                u, v = int(p[1]), int(p[2])
                if not (0 <= u < n and 0 <= v < n):
                    raise GraphFormatError(f"edge ({u}, {v}) names a vertex outside [0, {n})", path=str(path),
                                           line=no)
                src.append(u)
                dst.append(v)
            else:
                raise GraphFormatError(f"expected 'v id label degree' or 'e u v'; got {ln.strip()!r}",
                                       path=str(path), line=no)
        except GraphFormatError:
            raise
        except ValueError:
            raise GraphFormatError(f"non-integer field in {ln.strip()!r}", path=str(path), line=no) from None
    if (labels < 0).any():
        missing = int(np.flatnonzero(labels < 0)[0])
        raise GraphFormatError(f"vertex {missing} has no 'v' line (header says {n} vertices)", path=str(path))
    if m is not None and len(src) != m:
        raise GraphFormatError(f"header says {m} edges but the file has {len(src)}", path=str(path))
    return Graph.from_edges(np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), n=n, directed=directed,
                            vertex_labels=labels, name=path.name.split(".")[0], **kw)
