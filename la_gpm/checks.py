"""Argument and array checks shared by every layer: edge arrays, CSR arrays, bounded integers.
They raise la_gpm's named exceptions and import nothing of la_gpm but those."""

from __future__ import annotations

import numpy as np

from .exceptions import InvalidArgument, InvalidGraph

__all__ = ["check_edge_arrays", "check_csr", "check_int"]


def check_edge_arrays(src, dst, n, compact, vertex_labels):
    src = np.asarray(src)
    dst = np.asarray(dst)
    if src.ndim != 1 or dst.ndim != 1 or src.shape != dst.shape:
        raise InvalidGraph(f"src and dst must be 1-d arrays of equal length; got shapes {src.shape} and {dst.shape}")
    for name, a in (("src", src), ("dst", dst)):
        if a.size and not np.issubdtype(a.dtype, np.integer):
            if np.issubdtype(a.dtype, np.floating) and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
                continue
            raise InvalidGraph(f"{name} must hold integer vertex ids; got dtype {a.dtype}")
    src = src.astype(np.int64)
    dst = dst.astype(np.int64)
    if src.size and min(src.min(), dst.min()) < 0:
        bad = int(min(src.min(), dst.min()))
        raise InvalidGraph(f"vertex ids must be non-negative; got {bad}")
    ids = None
    if compact:
        ids, inv = np.unique(np.concatenate([src, dst]), return_inverse=True)
        src, dst = inv[: src.size].astype(np.int64), inv[src.size:].astype(np.int64)
        if n is not None and n < ids.size:
            raise InvalidGraph(f"n={n} is smaller than the {ids.size} distinct vertex ids")
        if vertex_labels is not None:
            vl = np.asarray(vertex_labels)
            if vl.ndim != 1 or vl.shape[0] <= int(ids.max(initial=-1)):
                raise InvalidGraph("vertex_labels must be indexed by the original vertex ids; "
                                   f"got length {vl.shape[0] if vl.ndim else 0} but the largest id is "
                                   f"{int(ids.max(initial=-1))}")
            vertex_labels = vl[ids]
        n = ids.size
    else:
        top = int(max(src.max(initial=-1), dst.max(initial=-1))) + 1
        if n is None:
            n = top if vertex_labels is None else max(top, len(vertex_labels))
        elif n < top:
            raise InvalidGraph(f"vertex id {top - 1} is out of range for n={n}")
    if n >= 2**31 - 1:
        raise InvalidGraph(f"graphs with 2**31 or more vertices are not supported; got n={n}")
    return src, dst, int(n), ids, vertex_labels


def check_csr(indptr, indices, directed=False):
    if indptr.ndim != 1 or indptr.size < 1:
        raise InvalidGraph(f"indptr must be a 1-d array of length n+1; got shape {indptr.shape}")
    if indices.ndim != 1:
        raise InvalidGraph(f"indices must be a 1-d array; got shape {indices.shape}")
    n = indptr.size - 1
    if indptr[0] != 0 or indptr[-1] != indices.size or np.any(np.diff(indptr) < 0):
        raise InvalidGraph("indptr must start at 0, be non-decreasing and end at len(indices)")
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        raise InvalidGraph(f"indices must lie in [0, {n}); got values in [{indices.min()}, {indices.max()}]")
    # rows sorted, no duplicates, no self loops: rebuild through the edge path when not
    rows = np.repeat(np.arange(n), np.diff(indptr))
    d = np.diff(indices.astype(np.int64))
    same_row = rows[1:] == rows[:-1]
    if np.any(d[same_row] <= 0) or np.any(rows == indices):
        raise InvalidGraph("CSR rows must be sorted without duplicates or self-loops; "
                           "build the graph with Graph.from_edges or as_graph instead")
    return indptr, indices


def check_int(name: str, value, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidArgument(f"{name} must be an integer; got {value!r}")
    value = int(value)
    if lo is not None and value < lo or hi is not None and value > hi:
        raise InvalidArgument(f"{name} must be in [{lo}, {hi}]; got {value}")
    return value
