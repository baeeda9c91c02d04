"""Readers for graph files: SNAP edge lists (also ``.gz``), MatrixMarket, Sun & Luo ``.graph``.

Every malformed input raises :class:`~la_gpm.exceptions.GraphFormatError` naming
the file and the line.
"""

from __future__ import annotations

import gzip
import re
import zlib
from pathlib import Path

import numpy as np

from .exceptions import GraphFormatError, InvalidGraph

__all__ = ["read_graph", "read_edgelist", "read_mtx", "read_sunluo", "FORMATS"]

FORMATS = ("edgelist", "mtx", "graph")
_EDGELIST_EXT = {".txt", ".edges", ".edgelist", ".el", ".csv", ".tsv", ".snap"}


def _read_bytes(path: Path) -> bytes:
    """The file's bytes, decompressed when it ends in ``.gz``; a broken gzip file is a GraphFormatError."""
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as f:
                return f.read()
        return path.read_bytes()
    except EOFError:
        raise GraphFormatError("the gzip file is truncated (it ends before its end-of-stream marker); "
                               "download it again", path=str(path)) from None
    except (gzip.BadGzipFile, zlib.error) as e:
        raise GraphFormatError(f"not a valid gzip file ({e}); it ends in .gz but is not gzip-compressed data: "
                               "download it again, or rename it without .gz if it is plain text", path=str(path)) \
            from None
    except OSError as e:
        raise GraphFormatError(f"cannot read the file: {e}", path=str(path)) from None


def _read_text(path: Path) -> str:
    return _read_bytes(path).decode("utf-8", errors="replace")


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
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _parse_edge_lines(path: Path):
    """Fast path: whole-file parse with numpy; on failure find the first bad line."""
    lines = _read_text(path).splitlines()
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
    src, dst = _int_columns(path, rows)
    neg = np.flatnonzero((src < 0) | (dst < 0))
    if neg.size:
        no, a, b = rows[neg[0]]
        raise GraphFormatError(f"negative vertex id in {a} {b}; ids must be >= 0", path=str(path), line=no)
    return src, dst


def _int_columns(path: Path, rows):
    """Two int64 arrays from ``(line, a, b)`` token rows; GraphFormatError naming the line of a bad token."""
    try:
        return np.array([r[1] for r in rows], dtype=np.int64), np.array([r[2] for r in rows], dtype=np.int64)
    except (ValueError, OverflowError):
        pass
    for no, a, b in rows:
        for tok in (a, b):
            try:
                v = int(tok)
            except ValueError:
                raise GraphFormatError(f"vertex id {tok[:40]!r} is not an integer", path=str(path), line=no) from None
            if not _INT64_MIN <= v <= _INT64_MAX:
                raise GraphFormatError(f"vertex id {tok[:40]} does not fit in 64 bits", path=str(path), line=no)
    raise GraphFormatError("cannot read the vertex ids", path=str(path))  # pragma: no cover (int() and numpy agree)


def read_edgelist(path, *, directed=False, compact=True, **kw):
    """SNAP-style edge list: ``u v`` per line (space, tab or comma), ``#``/``%`` comments.

    Extra columns (weights, timestamps) are ignored.  With ``compact`` (default) the ids
    that occur are renumbered ``0..n-1`` and kept in ``G.ids``, so isolated ids vanish.
    """
    from .graph import Graph

    path = Path(path)
    src, dst = _parse_edge_lines(path)
    return Graph.from_edges(src, dst, directed=directed, compact=compact, name=path.name.split(".")[0], **kw)


_MM_FIELDS = ("real", "integer", "pattern", "complex", "double")
_MM_SYMMETRY = ("general", "symmetric", "skew-symmetric", "hermitian")


def read_mtx(path, *, directed=False, **kw):
    """MatrixMarket coordinate file (pattern, integer, real or complex; general or symmetric).

    Every stored entry ``i j [value]`` is an arc i->j (values are not read, explicit zeros included); the
    entries of a symmetric (skew-symmetric, hermitian) file are mirrored.
    """
    from .graph import Graph

    path = Path(path)
    lines = _read_text(path).splitlines()
    if not lines:
        raise GraphFormatError("file is empty", path=str(path))
    head = lines[0]
    if not head.startswith("%%MatrixMarket"):
        raise GraphFormatError(f"not a MatrixMarket file: first line is {head.strip()[:60]!r}", path=str(path),
                               line=1)
    words = head.lower().split()
    if "coordinate" not in words:
        raise GraphFormatError("only coordinate (sparse) MatrixMarket files hold graphs; got a dense array file"
                               if "array" in words else f"malformed MatrixMarket header {head.strip()[:80]!r}",
                               path=str(path), line=1)
    if len(words) != 5 or words[1] != "matrix" or words[3] not in _MM_FIELDS or words[4] not in _MM_SYMMETRY:
        raise GraphFormatError(f"malformed MatrixMarket header {head.strip()[:80]!r}; expected '%%MatrixMarket "
                               f"matrix coordinate <{'|'.join(_MM_FIELDS[:4])}> <{'|'.join(_MM_SYMMETRY)}>'",
                               path=str(path), line=1)
    body = ((no, ln.split()) for no, ln in enumerate(lines[1:], 2) if ln.strip() and not ln.lstrip().startswith("%"))
    size = next(body, None)
    if size is None:
        raise GraphFormatError("malformed MatrixMarket data: no size line 'rows cols entries'", path=str(path))
    no, p = size
    try:
        if len(p) != 3:
            raise ValueError
        nrows, ncols, nnz = (int(x) for x in p)
    except ValueError:
        raise GraphFormatError(f"malformed MatrixMarket data: expected the size line 'rows cols entries'; got "
                               f"{' '.join(p)[:80]!r}", path=str(path), line=no) from None
    if min(nrows, ncols, nnz) < 0:
        raise GraphFormatError(f"malformed MatrixMarket data: negative size {' '.join(p)!r}", path=str(path), line=no)
    if nrows != ncols:
        raise InvalidGraph(f"{path}: graph must be square; got shape ({nrows}, {ncols})")
    rows = []
    for no, p in body:
        if len(p) < 2:
            raise GraphFormatError(f"malformed MatrixMarket data: expected 'i j [value]'; got {' '.join(p)[:80]!r}",
                                   path=str(path), line=no)
        rows.append((no, p[0], p[1]))
    if len(rows) != nnz:
        raise GraphFormatError(f"malformed MatrixMarket data: the size line says {nnz} entries but the file has "
                               f"{len(rows)}", path=str(path))
    src, dst = _int_columns(path, rows)
    bad = np.flatnonzero((src < 1) | (src > nrows) | (dst < 1) | (dst > nrows))
    if bad.size:
        no, a, b = rows[bad[0]]
        raise GraphFormatError(f"malformed MatrixMarket data: entry ({a}, {b}) outside [1, {nrows}] (indices are "
                               "1-based)", path=str(path), line=no)
    src, dst = src - 1, dst - 1
    if words[4] != "general":
        off = src != dst
        src, dst = np.concatenate([src, dst[off]]), np.concatenate([dst, src[off]])
    return Graph.from_edges(src, dst, n=nrows, directed=directed, name=path.name.split(".")[0], **kw)


def read_sunluo(path, *, directed=False, **kw):
    """Sun & Luo labeled ``.graph``: ``t N M``, then ``v id label [degree]``, then ``e u v [label]``.

    Edge labels in a 4th column are ignored (yeast queries carry a ``0`` there).  The variant header
    ``t GRAPH_ID N`` of the continuous-matching collection (no edge count; e.g. the human graph:
    ``t 0 4674``) is recognised when its last number equals the number of ``v`` lines.
    """
    from .graph import Graph

    path = Path(path)
    lines = _read_text(path).splitlines()
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
    if n < 0 or (m is not None and m < 0):
        raise GraphFormatError(f"header counts must be non-negative: {lines[0].strip()!r}", path=str(path), line=1)
    labels, vline, degree = {}, {}, {}
    src, dst = [], []
    for no, ln in enumerate(lines[1:], 2):
        p = ln.split()
        if not p:
            continue
        try:
            if p[0] == "v" and len(p) >= 3:
                v = int(p[1])
                if not 0 <= v < n:
                    raise GraphFormatError(f"vertex id {v} out of range [0, {n}) (the header says {n} vertices)",
                                           path=str(path), line=no)
                if v in labels:
                    raise GraphFormatError(f"vertex {v} declared twice (first on line {vline[v]})", path=str(path),
                                           line=no)
                labels[v] = int(p[2])
                if not _INT64_MIN <= labels[v] <= _INT64_MAX:
                    raise GraphFormatError(f"label {labels[v]} of vertex {v} does not fit in 64 bits",
                                           path=str(path), line=no)
                vline[v] = no
                if len(p) >= 4:
                    degree[v] = int(p[3])
            elif p[0] == "e" and len(p) >= 3:
                u, v = int(p[1]), int(p[2])
                if not (0 <= u < n and 0 <= v < n):
                    raise GraphFormatError(f"edge ({u}, {v}) names a vertex id out of range [0, {n}) (the header "
                                           f"says {n} vertices)", path=str(path), line=no)
                src.append(u)
                dst.append(v)
            else:
                raise GraphFormatError(f"expected 'v id label degree' or 'e u v'; got {ln.strip()[:80]!r}",
                                       path=str(path), line=no)
        except GraphFormatError:  # a ValueError too: keep its message
            raise
        except ValueError:
            raise GraphFormatError(f"non-integer field in {ln.strip()[:80]!r}", path=str(path), line=no) from None
    if len(labels) < n:
        missing = next(i for i in range(len(labels) + 1) if i not in labels)
        raise GraphFormatError(f"vertex {missing} has no 'v' line (header says {n} vertices)", path=str(path))
    if m is not None and len(src) != m:
        raise GraphFormatError(f"header says {m} edges but the file has {len(src)}", path=str(path))
    src_a, dst_a = np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)
    if degree:
        got = np.bincount(np.concatenate([src_a, dst_a]), minlength=n)
        for v in sorted(degree, key=vline.get):
            if degree[v] != got[v]:
                raise GraphFormatError(f"vertex {v} has degree field {degree[v]} but {int(got[v])} 'e' lines name it; "
                                       "fix the degree or the edges", path=str(path), line=vline[v])
    return Graph.from_edges(src_a, dst_a, n=n, directed=directed,
                            vertex_labels=np.array([labels[v] for v in range(n)], dtype=np.int64),
                            name=path.name.split(".")[0], **kw)
