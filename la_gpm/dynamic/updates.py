"""A batch of edge updates, normalised once at the edge: ids mapped, net effect.

Each update gets a position in one total order (inserts first, then deletes): the order ids of
the union graph's arcs (:mod:`.store`).

What counts as an update (documented in docs/dynamic.md):
* pairs are undirected; ``(u, v)`` and ``(v, u)`` are one pair;
* a self-loop, a repeated pair, an insert of an existing edge, a delete of a missing edge and a
  pair both inserted and deleted in one batch change nothing: they are dropped and counted in
  ``stats`` (``strict=True`` raises :class:`InvalidUpdate` instead);
* an insert may name a vertex the graph does not have: it is added (its label from ``labels=``
  when the graph is vertex-labeled); a delete may not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numba as nb
import numpy as np

from ..exceptions import GraphFormatError, InvalidUpdate
from ..primitives.sorted_ops import lower_bound

__all__ = ["Batch", "read_stream", "read_stream_ops", "split_ops", "normalise", "ids_after"]


@dataclass(frozen=True)
class Batch:
    """The net effect of one batch, in the graph's internal vertex numbering (``u < v`` per pair).

    ``insert[j]`` has order id ``j``; ``delete[j]`` has order id ``len(insert) + j``.
    """
    n_before: int
    n_after: int
    insert: np.ndarray            # (a, 2) int64, sorted, de-duplicated, not in G
    insert_labels: np.ndarray | None   # (a,) int64 edge labels (edge-labeled graphs)
    delete: np.ndarray            # (b, 2) int64, sorted, de-duplicated, in G
    new_ids: np.ndarray           # original ids of the vertices added (internal ids n_before ...)
    new_labels: np.ndarray | None  # their vertex labels
    stats: dict = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------- parsing

def read_stream_ops(path):
    """The updates of a RapidFlow / GAMMA stream file in file order.

    Returns ``(ops, labels)``: ``ops`` an (m, 4) int64 array of ``(sign, u, v, label)`` rows (sign +1
    for ``e``, -1 for ``-e``; label -1 where the line has none) and ``labels`` ``{id: label}`` of the
    ``v`` lines."""
    path = Path(path)
    if not path.is_file():
        raise InvalidUpdate(f"update stream {str(path)!r} is not a file; give an (m, 2) array of vertex pairs "
                            "or the path of a stream file ('e u v [label]' / '-e u v [label]' lines)")
    ops, labels = [], {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for no, ln in enumerate(f, 1):
            p = ln.split()
            if not p or p[0][0] in "#%":
                continue
            try:
                if p[0] in ("e", "-e") and len(p) >= 3:
                    ops.append((1 if p[0] == "e" else -1, int(p[1]), int(p[2]), int(p[3]) if len(p) > 3 else -1))
                    vals = ops[-1][1:]
                elif p[0] == "v" and len(p) >= 3:
                    labels[int(p[1])] = vals = int(p[2])
                    vals = (int(p[1]), vals)
                else:
                    raise GraphFormatError(f"expected 'e u v [label]', '-e u v [label]' or 'v id label'; got "
                                           f"{ln.strip()[:80]!r}", path=str(path), line=no)
                if any(not -2**63 <= x < 2**63 for x in vals):
                    raise GraphFormatError(f"a number does not fit in 64 bits in {ln.strip()[:80]!r}",
                                           path=str(path), line=no)
            except GraphFormatError:  # a ValueError too: keep its message
                raise
            except ValueError:
                raise GraphFormatError(f"non-integer field in {ln.strip()!r}", path=str(path), line=no) from None
    return np.array(ops, dtype=np.int64).reshape(-1, 4), labels


def split_ops(ops):
    """``(insert, delete)`` of a slice of stream ops: (m, 3) where every line has a label, else (m, 2)."""
    out = []
    for sign in (1, -1):
        a = ops[ops[:, 0] == sign]
        out.append(a[:, 1:4] if a.shape[0] and (a[:, 3] >= 0).all() else a[:, 1:3])
    return out[0], out[1]


def read_stream(path) -> dict:
    """Read a RapidFlow / GAMMA update stream as one batch.

    Lines: ``e u v [label]`` inserts an edge, ``-e u v [label]`` deletes one, ``v id label [deg]``
    declares a new vertex and its label; blank lines and ``#``/``%`` comments are skipped.

    Returns ``{"insert": (a, 2|3) int64, "delete": (b, 2|3) int64, "labels": {id: label}}``
    (a third column holds the edge label where every line of its kind carries one).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "s.txt")
    >>> _ = open(p, "w").write("e 0 1 0\\n-e 1 2 0\\nv 9 3\\n")
    >>> s = read_stream(p)
    >>> s["insert"].tolist(), s["delete"].tolist(), s["labels"]
    ([[0, 1, 0]], [[1, 2, 0]], {9: 3})
    """
    ops, labels = read_stream_ops(path)
    ins, dele = split_ops(ops)
    return {"insert": ins, "delete": dele, "labels": labels}


def _pairs(obj, what: str) -> np.ndarray:
    """An (m, 2) or (m, 3) int64 array from an array / list of pairs; InvalidUpdate otherwise."""
    if obj is None:
        return np.zeros((0, 2), dtype=np.int64)
    try:
        a = np.asarray(obj)
    except (TypeError, ValueError):
        raise InvalidUpdate(f"{what} must be an (m, 2) array or a list of vertex pairs; got "
                            f"{type(obj).__name__}") from None
    if a.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if a.ndim == 1 and a.shape[0] in (2, 3) and np.issubdtype(a.dtype, np.integer):
        raise InvalidUpdate(f"{what} must be an (m, 2) array of vertex pairs; got a flat array of shape "
                            f"{a.shape}: wrap a single pair in a list, e.g. [[u, v]]")
    if a.ndim != 2 or a.shape[1] not in (2, 3):
        raise InvalidUpdate(f"{what} must be an (m, 2) array of vertex pairs (or (m, 3) with edge labels); got "
                            f"shape {a.shape}")
    if a.dtype == bool or a.dtype == object or not np.issubdtype(a.dtype, np.number):
        raise InvalidUpdate(f"{what} must hold integer vertex ids; got dtype {a.dtype}")
    if not np.issubdtype(a.dtype, np.integer):
        if not np.all(np.isfinite(a)) or not np.all(a == np.round(a)):
            raise InvalidUpdate(f"{what} must hold integer vertex ids; got non-integer values")
    a = a.astype(np.int64)
    if (a[:, :2] < 0).any():
        bad = a[np.flatnonzero((a[:, :2] < 0).any(axis=1))[0]]
        raise InvalidUpdate(f"{what}: vertex ids must be >= 0; got the pair {bad[:2].tolist()}")
    return a


# ---------------------------------------------------------------------------------------------- batch

def _strict_fail(what: str, n: int, example, fix: str):
    raise InvalidUpdate(f"strict=True: {n} {what} (e.g. {example}); {fix}")


def normalise(S, insert=None, delete=None, *, labels=None, strict: bool = False) -> Batch:
    """Validate one batch against the graph of store S (:class:`.store.ArcStore`) and reduce it to its net
    effect (see the module notes)."""
    sources = []
    for name, obj in (("insert", insert), ("delete", delete)):
        if isinstance(obj, (str, Path)):
            sources.append((name, read_stream(obj)))
    if len(sources) == 2 and Path(insert).resolve() == Path(delete).resolve():
        raise InvalidUpdate("the same stream file was given as insert and delete; a stream file holds both "
                            "('e' lines insert, '-e' lines delete): pass it once, as insert=")
    file_labels = {}
    ins_parts, del_parts = [], []
    for name, obj in (("insert", insert), ("delete", delete)):
        if isinstance(obj, (str, Path)):
            s = dict(sources)[name]
            ins_parts.append(_pairs(s["insert"], f"{name} (stream {obj})"))
            del_parts.append(_pairs(s["delete"], f"{name} (stream {obj})"))
            file_labels.update(s["labels"])
        else:
            (ins_parts if name == "insert" else del_parts).append(_pairs(obj, name))
    edge_labeled = S.edge_labeled

    def cat(parts, what):
        parts = [p for p in parts if p.shape[0]]
        if not parts:
            return np.zeros((0, 3 if edge_labeled else 2), dtype=np.int64)
        w = min(p.shape[1] for p in parts)
        a = np.concatenate([p[:, :w] for p in parts])
        if edge_labeled and what == "insert" and a.shape[1] < 3:
            raise InvalidUpdate("the graph has edge labels, so every inserted edge needs one: give insert as an "
                                "(m, 3) array of (u, v, label) rows or a stream file with 'e u v label' lines")
        if not edge_labeled and a.shape[1] == 3 and a.shape[0] and (a[:, 2] != a[0, 2]).any():
            raise InvalidUpdate(f"{what} carries different edge labels but the graph has none; build the graph "
                                "with edge_labels=... or give (m, 2) pairs")
        return a
    ins_raw = cat(ins_parts, "insert")
    del_raw = cat(del_parts, "delete")

    stats = {"insert_given": int(ins_raw.shape[0]), "delete_given": int(del_raw.shape[0])}
    loops_i = ins_raw[:, 0] == ins_raw[:, 1]
    loops_d = del_raw[:, 0] == del_raw[:, 1]
    stats["ignored_self_loops"] = int(loops_i.sum() + loops_d.sum())
    if strict and stats["ignored_self_loops"]:
        ex = (ins_raw[loops_i] if loops_i.any() else del_raw[loops_d])[0, :2].tolist()
        _strict_fail("self-loops", stats["ignored_self_loops"], ex, "graphs are simple: drop them")
    ins_raw, del_raw = ins_raw[~loops_i], del_raw[~loops_d]

    # vertices: deletes must name existing ones, inserts may add new ones
    dint = S.internal(del_raw[:, :2])
    if (dint < 0).any():
        bad = del_raw[np.flatnonzero((dint < 0).any(axis=1))[0], :2].tolist()
        raise InvalidUpdate(f"delete names a vertex the graph does not have: pair {bad}; only existing edges "
                            "can be deleted (vertex ids are the graph's original ids, G.ids)")
    iint = S.internal(ins_raw[:, :2])
    new_ids = np.unique(ins_raw[:, :2][iint < 0]) if ins_raw.shape[0] else np.zeros(0, dtype=np.int64)
    new_labels = None
    if new_ids.size:
        iint[iint < 0] = S.n + np.searchsorted(new_ids, ins_raw[:, :2][iint < 0])
        if S.vertex_labels is not None:
            lab = dict(file_labels)
            if labels is not None:
                if not isinstance(labels, Mapping):
                    raise InvalidUpdate(f"labels must be a mapping {{vertex id: label}}; got {type(labels).__name__}")
                lab.update(labels)
            missing = [int(v) for v in new_ids if int(v) not in lab]
            if missing:
                raise InvalidUpdate(f"insert adds {new_ids.size} new vertices to a vertex-labeled graph; "
                                    f"{len(missing)} have no label (e.g. vertex {missing[0]}): pass "
                                    "labels={vertex id: label} for every new vertex")
            try:
                new_labels = np.array([int(lab[int(v)]) for v in new_ids], dtype=np.int64)
            except (TypeError, ValueError):
                raise InvalidUpdate("labels must map vertex ids to integer labels") from None
    stats["new_vertices"] = int(new_ids.size)
    n_after = S.n + int(new_ids.size)

    # net effect in one pass (_net): canonical pairs, duplicates, pairs both inserted and deleted, inserts of
    # existing edges, deletes of missing ones
    ins, ifirst, dele, cnt, ex = _net(iint[:, :2], dint[:, :2], n_after, S.rows, S.idx, S.n)
    stats["ignored_duplicates"] = int(cnt[0])
    if strict and cnt[0]:
        _strict_fail("repeated pairs", int(cnt[0]), "a pair given twice", "give each pair once")
    stats["ignored_insert_and_delete"] = int(cnt[1])
    if strict and cnt[1]:
        _strict_fail("pairs both inserted and deleted", int(cnt[1]), ex[0].tolist(),
                     "a batch has no order inside it: split it into two batches")
    stats["ignored_existing_inserts"] = int(cnt[2])
    if strict and cnt[2]:
        _strict_fail("inserts of existing edges", int(cnt[2]), ex[1].tolist(), "drop them")
    stats["ignored_missing_deletes"] = int(cnt[3])
    if strict and cnt[3]:
        _strict_fail("deletes of missing edges", int(cnt[3]), ex[2].tolist(), "drop them")
    ins_lab = ins_raw[ifirst, 2].astype(np.int64) if edge_labeled else None
    stats["inserted"] = int(ins.shape[0])
    stats["deleted"] = int(dele.shape[0])
    return Batch(S.n, n_after, ins, ins_lab, dele, new_ids.astype(np.int64), new_labels, stats)


@nb.njit(cache=True)
def _sorted_unique(x, y, N):
    """Keys min*N + max of the pairs, sorted and unique, with the row of each key's first occurrence."""
    m = x.shape[0]
    key = np.empty(m, dtype=np.int64)
    for t in range(m):
        lo, hi = (x[t], y[t]) if x[t] < y[t] else (y[t], x[t])
        key[t] = lo * N + hi
    order = np.argsort(key, kind="mergesort")   # stable: equal keys keep their input order
    out = np.empty(m, dtype=np.int64)
    first = np.empty(m, dtype=np.int64)
    u = 0
    for q in order:
        if u == 0 or key[q] != out[u - 1]:
            out[u] = key[q]
            first[u] = q
            u += 1
    return out[:u], first[:u]


@nb.njit(cache=True)
def _present(rows, idx, n, lo, hi):
    if lo >= n or hi >= n:
        return False
    b = rows[lo, 0]
    e = rows[lo, 1]
    p = lower_bound(idx, b, e, hi)
    return p < e and idx[p] == hi


@nb.njit(cache=True)
def _net(iint, dint, N, rows, idx, n):
    """The net effect of a batch (internal ids, self-loops removed) against the graph (rows, idx, n vertices):
    sorted unique (lo, hi) inserts that are not edges and deletes that are, neither both inserted and deleted;
    the input row of each kept insert's first occurrence; counts of (duplicates, both, existing inserts, missing
    deletes); an example pair of the last three (row of ``ex``; -1 where none)."""
    ik, ifirst = _sorted_unique(iint[:, 0], iint[:, 1], N)
    dk, _ = _sorted_unique(dint[:, 0], dint[:, 1], N)
    cnt = np.zeros(4, dtype=np.int64)
    cnt[0] = iint.shape[0] - ik.shape[0] + dint.shape[0] - dk.shape[0]
    ex = np.full((3, 2), -1, dtype=np.int64)
    ikeep = np.ones(ik.shape[0], dtype=np.bool_)
    dkeep = np.ones(dk.shape[0], dtype=np.bool_)
    j = 0
    for t in range(ik.shape[0]):           # both inserted and deleted: one merge of the sorted keys
        while j < dk.shape[0] and dk[j] < ik[t]:
            j += 1
        if j < dk.shape[0] and dk[j] == ik[t]:
            ikeep[t] = False
            dkeep[j] = False
            if cnt[1] == 0:
                ex[0, 0] = ik[t] // N
                ex[0, 1] = ik[t] % N
            cnt[1] += 1
    _drop(ik, ikeep, N, rows, idx, n, True, cnt, ex, 2)      # inserts of existing edges
    _drop(dk, dkeep, N, rows, idx, n, False, cnt, ex, 3)     # deletes of missing edges
    ins = _pairs_of(ik, ikeep, N)
    dele = _pairs_of(dk, dkeep, N)
    return ins, ifirst[ikeep], dele, cnt, ex


@nb.njit(cache=True)
def _drop(keys, keep, N, rows, idx, n, if_present, cnt, ex, c):
    """Unmark the kept pairs that are (``if_present``) or are not edges of the graph: counted in ``cnt[c]``,
    the first one in ``ex[c - 1]``."""
    for t in range(keys.shape[0]):
        if keep[t] and _present(rows, idx, n, keys[t] // N, keys[t] % N) == if_present:
            keep[t] = False
            if cnt[c] == 0:
                ex[c - 1, 0] = keys[t] // N
                ex[c - 1, 1] = keys[t] % N
            cnt[c] += 1


@nb.njit(cache=True)
def _pairs_of(keys, keep, N):
    """(lo, hi) rows of the kept keys lo * N + hi."""
    out = np.empty((int(keep.sum()), 2), dtype=np.int64)
    o = 0
    for t in range(keys.shape[0]):
        if keep[t]:
            out[o, 0] = keys[t] // N
            out[o, 1] = keys[t] % N
            o += 1
    return out


def ids_after(S, b: Batch):
    """Original ids of the graph after the batch (None: the identity, as for most graphs)."""
    if S.ids is None and (b.new_ids.size == 0 or np.array_equal(b.new_ids, np.arange(S.n, b.n_after))):
        return None
    base = S.ids if S.ids is not None else np.arange(S.n, dtype=np.int64)
    return np.concatenate([base, b.new_ids])
