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

__all__ = ["Batch", "Layout", "Relevance", "read_stream", "read_stream_ops", "split_ops", "normalise", "ids_after",
           "net_layout", "layout_of", "relevant_rows", "strict_fail"]


@dataclass(slots=True)
class Layout:
    """Where a batch's arcs go in the union graph (:mod:`.store`), computed with its net effect.

    ``touched``: the sorted vertices whose rows change (endpoints of the kept updates; every new vertex is
    one); ``tptr``: offsets per touched vertex into ``adst`` (its batch arcs' targets, sorted) and ``aod``
    (their order ids: inserts ``0 .. a-1``, deletes ``a ..``); ``icnt``: inserted arcs per touched vertex."""
    touched: np.ndarray   # int64
    tptr: np.ndarray      # int64 (t + 1)
    adst: np.ndarray      # int32
    aod: np.ndarray       # int32
    icnt: np.ndarray      # int64


@dataclass(slots=True)
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
    layout: Layout | None = None   # where its arcs go (:func:`net_layout`; store.open recomputes it when None)
    # with ``normalise(..., aside=True)``, where the relevance filter dropped some pairs (the whole-graph mode keeps
    # them aside, :mod:`.aside`, which picks them out again): (the batch's inserts, their edge labels or None, its
    # deletes), internal ids, before the filter; else None
    aside: tuple | None = None


@dataclass(slots=True)
class Relevance:
    """Which updates a query-view store keeps (:class:`la_gpm.DynamicGraph` with ``keep_graph=False``).

    ``code[v]``: vertex v's label class (0: a label no query has; 1..: the queries' labels), valid for the
    store's vertices (entries past them are scratch, written for a batch's new vertices); ``table[a, b]``:
    1 where an update between label classes a and b may matter to some query (symmetric); ``keys``: the
    queries' labels, sorted (class ``1 + i`` is ``keys[i]``).  Self-loops are always kept (they are bad
    input, counted or refused by the normalisation as without views)."""
    code: np.ndarray    # int32 (>= n, and >= 1: pair_kept reads code[0] for an id out of range)
    table: np.ndarray   # uint8 (c, c)
    keys: np.ndarray    # int64 sorted

    def classes(self, labels) -> np.ndarray:
        """The label classes of vertex labels (0 for a label no query has)."""
        labels = np.asarray(labels, dtype=np.int64)
        if self.keys.size == 0:
            return np.zeros(labels.shape, dtype=np.int32)
        pos = np.minimum(np.searchsorted(self.keys, labels), self.keys.size - 1)
        return np.where(self.keys[pos] == labels, pos + 1, 0).astype(np.int32)

    def arcs(self, ptr, idx):
        """The relevant arcs of a CSR graph (``ptr``, ``idx``; its vertices' classes in ``code``): (ptr, idx) of them
        and the mask of ``idx`` kept (the query views' graph, :func:`.views.view_graph`, and the whole-graph mode's
        tables, :class:`.filter.NLFState`)."""
        ptr = np.asarray(ptr, dtype=np.int64)
        idx = np.asarray(idx)
        code = self.code[:ptr.shape[0] - 1]
        keep = self.table[np.repeat(code, np.diff(ptr)), code[idx]].astype(bool)
        nptr = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(keep, dtype=np.int64)])[ptr]
        return nptr, idx[keep], keep

    def reserve(self, n_after: int, new_labels) -> np.ndarray:
        """The class array covering n_after vertices, the last ``len(new_labels)`` of them written from
        their labels (the store's vertices keep theirs)."""
        if self.code.shape[0] < n_after:
            code = np.zeros(max(n_after, 2 * self.code.shape[0]), dtype=np.int32)
            code[:self.code.shape[0]] = self.code
            self.code = code
        if new_labels is not None and len(new_labels):
            self.code[n_after - len(new_labels):n_after] = self.classes(new_labels)
        return self.code


@nb.njit(inline="always")
def pair_kept(x, y, code, N, table):
    """The views' rule for one pair: -1 an id outside [0, N); 1 keep it (a self-loop, counted later, or a pair
    whose label classes ``code`` the ``table`` marks relevant); 0 drop it.

    One path, no early return: numba keeps a reference count on each array an early-returning helper touches
    (an NRT call per array per call, which its pruning pass cannot pair up across the exits): written with two
    returns this took 20 ns a pair, as one path 2 ns (docs/dynamic.md, "Fixed costs")."""
    ok = (x >= 0) & (y >= 0) & (x < N) & (y < N)
    xi = x if ok else 0
    yi = y if ok else 0
    hit = (x == y) | (table[code[xi], code[yi]] != 0)
    return (1 if hit else 0) if ok else -1


@nb.njit(cache=True)
def relevant_rows(pairs, code, N, table):
    """The rows of ``pairs`` ((m, >= 2) int64 internal ids) to keep: a self-loop, or a pair whose label classes
    ``code`` (of vertices 0..N-1) the ``table`` marks relevant.  Returns (rows kept, in input order; bad): bad
    is True, and nothing kept, when an id is outside [0, N) (the caller validates that input the long way)."""
    m = pairs.shape[0]
    keep = np.empty(m, dtype=np.int64)
    k = 0
    for t in range(m):
        r = pair_kept(pairs[t, 0], pairs[t, 1], code, N, table)
        if r < 0:
            return keep[:0], True
        if r:
            keep[k] = t
            k += 1
    return keep[:k], False


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

def strict_fail(what: str, n: int, example, fix: str):
    raise InvalidUpdate(f"strict=True: {n} {what} (e.g. {example}); {fix}")


def _fast_array(obj, widths, empty_width):
    """``obj`` as a C-contiguous int64 (m, w) array when it is already an integer numpy array of a width
    (``w in widths``) the batch kernel takes as is, else None (the general path validates it)."""
    if obj is None:
        return np.zeros((0, empty_width), dtype=np.int64)
    if type(obj) is not np.ndarray or obj.ndim != 2 or obj.dtype.kind not in "iu" or obj.shape[1] not in widths:
        return None
    if obj.dtype.kind == "u" and obj.dtype.itemsize >= 8:
        return None
    return np.ascontiguousarray(obj, dtype=np.int64)


def normalise(S, insert=None, delete=None, *, labels=None, strict: bool = False, relevance=None,
              aside: bool = False) -> Batch:
    """Validate one batch against the graph of store S (:class:`.store.ArcStore`) and reduce it to its net
    effect (see the module notes).

    The common case (integer numpy arrays, every id an existing vertex of a graph without an id map) is one
    numba pass (:func:`net_layout`); anything else (lists, stream files, new vertices, mapped ids, bad input)
    is validated here first and then takes the same pass.

    ``relevance`` (a :class:`Relevance`; query views): after validation, the updates it does not keep are
    dropped (one numba pass, :func:`relevant_rows`) before the net effect is computed, and counted in
    ``stats["irrelevant"]``; the other counts (and ``strict``) then cover the kept updates only (self-loops
    are always kept).  With ``aside`` the dropped pairs come back too (``Batch.aside``)."""
    edge_labeled = S.edge_labeled
    if S.ids is None:
        ins = _fast_array(insert, (3,) if edge_labeled else (2,), 3 if edge_labeled else 2)
        dele = _fast_array(delete, (2, 3) if edge_labeled else (2,), 2)
        if ins is not None and dele is not None:
            n = S.n
            dropped = None
            kept_aside = None
            if relevance is not None:
                ri, bi = relevant_rows(ins, relevance.code, n, relevance.table)
                rd, bd = relevant_rows(dele, relevance.code, n, relevance.table)
                if not (bi or bd):
                    dropped = (int(ins.shape[0] - ri.shape[0]), int(dele.shape[0] - rd.shape[0]))
                    if aside and (dropped[0] or dropped[1]):
                        kept_aside = _aside_pairs(ins, ins, dele, edge_labeled)
                    if dropped[0]:
                        ins = ins[ri]
                    if dropped[1]:
                        dele = dele[rd]
            if relevance is None or dropped is not None:
                out = net_layout(ins, dele, n, n, S.rows, S.idx, S.scratch_mark(n))
                if out[3][6] == 0:     # every id an existing vertex: no mapping needed
                    b = _finish(S, ins, dele, out, n, np.zeros(0, dtype=np.int64), None, strict, None, dropped)
                    b.aside = kept_aside
                    return b
    return _normalise_general(S, insert, delete, labels=labels, strict=strict, relevance=relevance, aside=aside)


def _aside_pairs(iint, ins_raw, dint, edge_labeled):
    """``Batch.aside``: the batch's pairs (internal ids, before the relevance filter: the log aside keeps those it
    drops, :func:`.aside._log_pairs`, so nothing is cut out here: boolean masks over a 10% batch cost more than the
    log), with the inserts' edge labels (column 2 of ``ins_raw``) where the graph has them."""
    lab = np.ascontiguousarray(ins_raw[:, 2], dtype=np.int64) if edge_labeled and ins_raw.shape[1] > 2 else None
    return iint, lab, dint


def _normalise_general(S, insert, delete, *, labels, strict, relevance=None, aside=False) -> Batch:
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

    loops_i = ins_raw[:, 0] == ins_raw[:, 1]
    loops_d = del_raw[:, 0] == del_raw[:, 1]
    nloops = int(loops_i.sum() + loops_d.sum())
    if strict and nloops:
        ex = (ins_raw[loops_i] if loops_i.any() else del_raw[loops_d])[0, :2].tolist()
        strict_fail("self-loops", nloops, ex, "graphs are simple: drop them")
    given = (int(ins_raw.shape[0]), int(del_raw.shape[0]))
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
    n_after = S.n + int(new_ids.size)
    iint = np.ascontiguousarray(iint, dtype=np.int64)
    dint = np.ascontiguousarray(dint, dtype=np.int64)
    dropped = None
    kept_aside = None
    if relevance is not None:
        # a new vertex's class comes from its label (an unlabeled graph has no views: relevance is None)
        code = relevance.reserve(n_after, new_labels if new_ids.size else None)
        ri, _ = relevant_rows(iint, code, n_after, relevance.table)
        rd, _ = relevant_rows(dint, code, n_after, relevance.table)
        dropped = (int(iint.shape[0] - ri.shape[0]), int(dint.shape[0] - rd.shape[0]))
        if aside and (dropped[0] or dropped[1]):
            kept_aside = _aside_pairs(iint, ins_raw, dint, edge_labeled)
        if dropped[0]:
            iint, ins_raw = np.ascontiguousarray(iint[ri]), ins_raw[ri]
        if dropped[1]:
            dint, del_raw = np.ascontiguousarray(dint[rd]), del_raw[rd]
    out = net_layout(iint, dint, n_after, S.n, S.rows, S.idx, S.scratch_mark(n_after))
    b = _finish(S, ins_raw, del_raw, out, n_after, new_ids.astype(np.int64), new_labels, strict, (given, nloops),
                dropped)
    b.aside = kept_aside
    return b


def _finish(S, ins_raw, del_raw, out, n_after, new_ids, new_labels, strict, pre, dropped=None):
    """The Batch of a :func:`net_layout` pass (``pre``: (given counts, self-loops) when the general path removed
    the self-loops before it; None: the pass saw the input as given; ``dropped``: (inserts, deletes) the
    relevance filter dropped before the pass, None without views)."""
    ins, ifirst, dele, cnt, ex, touched, tptr, adst, aod, icnt = out
    if pre is None:
        given = (int(ins_raw.shape[0]), int(del_raw.shape[0]))
        if dropped is not None:
            given = (given[0] + dropped[0], given[1] + dropped[1])
        nloops = int(cnt[0] + cnt[1])
        if strict and nloops:
            li = ins_raw[:, 0] == ins_raw[:, 1]
            ld = del_raw[:, 0] == del_raw[:, 1]
            strict_fail("self-loops", nloops, (ins_raw[li] if li.any() else del_raw[ld])[0, :2].tolist(),
                         "graphs are simple: drop them")
    else:
        given, nloops = pre
    stats = {"insert_given": given[0], "delete_given": given[1], "ignored_self_loops": nloops,
             "new_vertices": int(new_ids.size)}
    if dropped is not None:
        stats["irrelevant"] = dropped[0] + dropped[1]
        stats["irrelevant_inserts"], stats["irrelevant_deletes"] = dropped
    stats["ignored_duplicates"] = int(cnt[2])
    if strict and cnt[2]:
        strict_fail("repeated pairs", int(cnt[2]), "a pair given twice", "give each pair once")
    stats["ignored_insert_and_delete"] = int(cnt[3])
    if strict and cnt[3]:
        strict_fail("pairs both inserted and deleted", int(cnt[3]), ex[0].tolist(),
                     "a batch has no order inside it: split it into two batches")
    stats["ignored_existing_inserts"] = int(cnt[4])
    if strict and cnt[4]:
        strict_fail("inserts of existing edges", int(cnt[4]), ex[1].tolist(), "drop them")
    stats["ignored_missing_deletes"] = int(cnt[5])
    if strict and cnt[5]:
        strict_fail("deletes of missing edges", int(cnt[5]), ex[2].tolist(), "drop them")
    ins_lab = ins_raw[ifirst, 2] if S.edge_labeled else None
    stats["inserted"] = int(ins.shape[0])
    stats["deleted"] = int(dele.shape[0])
    return Batch(S.n, n_after, ins, ins_lab, dele, new_ids, new_labels, stats,
                 Layout(touched, tptr, adst, aod, icnt))


@nb.njit(cache=True, inline="always")
def _present(rows, idx, n, lo, hi):
    """Is (lo, hi) an edge of the graph (n vertices)?  A branch-free binary search of lo's row: the searches
    of a batch's pairs are independent, and mispredicted branches were most of their cost."""
    if lo >= n or hi >= n:
        return False
    b = rows[lo, 0]
    ln = rows[lo, 1] - b
    if ln == 0:
        return False
    e = b + ln
    while ln > 1:
        half = ln >> 1
        b = b + half if idx[b + half] < hi else b
        ln -= half
    if idx[b] < hi:
        b += 1
    return b < e and idx[b] == hi


@nb.njit(cache=True, _nrt=False)
def _sort_segment(key, lo, hi):
    """Sort key[lo:hi] in place, a segment of at most 24 (an insertion sort; longer ones: ``np.sort`` at the caller).
    Built without reference counting: net_layout calls it once a touched vertex, and a function that may also call
    ``np.sort`` counted references on every call (about 400 atomics a 120-update wordnet batch, session 42)."""
    for a in range(lo + 1, hi):
        x = key[a]
        b = a - 1
        while b >= lo and key[b] > x:
            key[b + 1] = key[b]
            b -= 1
        key[b + 1] = x


@nb.njit(cache=True, inline="always")
def _tally(cnt, ex, c, r, v, w):
    """Count one ignored update of kind c; the first one's pair is kept as the example ex[r]."""
    if cnt[c] == 0:
        ex[r, 0] = v
        ex[r, 1] = w
    cnt[c] += 1


@nb.njit(cache=True)
def net_layout(ins, dele, N, n, rows, idx, mark):
    """The net effect of a batch and where its arcs go, in one pass over it (no sort of the whole batch).

    ``ins`` / ``dele``: (m, >= 2) int64 pairs (internal ids; self-loops are counted and skipped); ``N``: the
    vertices after the batch, ``n`` before it; ``rows`` / ``idx``: the graph (:class:`.store.ArcStore`);
    ``mark``: scratch of at least N entries, all -1 (left so).  Each endpoint gets a slot (the touched
    vertices sorted: a scan of ``mark`` when they are many, else a sort of them), each pair an arc in both
    endpoints' slots, each slot's arcs are sorted by (target, input row), and one walk over the slots finds, per
    pair (from its lower endpoint), duplicates, pairs both inserted and deleted, inserts of existing edges and
    deletes of missing ones: in the order of sorted (lo, hi) pairs, as the order ids need.

    Returns (inserts (a, 2) sorted (lo, hi), the input row of each one's first occurrence, deletes (b, 2),
    counts, examples, touched, tptr, adst, aod, icnt) (see :class:`Layout`); counts: self-loops of the inserts,
    of the deletes, duplicates, both inserted and deleted, existing inserts, missing deletes, and [6] = 1 when
    an id is out of range (an insert's not in [0, N), a delete's not in [0, n); nothing else is computed then);
    examples: a pair of each of the last three kinds (-1 where none)."""
    mi = ins.shape[0]
    md = dele.shape[0]
    M = mi + md
    cnt = np.zeros(7, dtype=np.int64)
    ex = np.full((3, 2), -1, dtype=np.int64)
    for t in range(mi):
        x = ins[t, 0]
        y = ins[t, 1]
        if x < 0 or y < 0 or x >= N or y >= N:
            cnt[6] = 1
    for t in range(md):
        x = dele[t, 0]
        y = dele[t, 1]
        if x < 0 or y < 0 or x >= n or y >= n:
            cnt[6] = 1
    if cnt[6]:
        M = 0
        mi = 0
        md = 0
    # the batch's pairs in one table, inserts first: the loops below read it directly (a helper choosing between
    # ``ins`` and ``dele``, inlined, counted references to both on every pass: about 1,200 atomics a 120-update
    # wordnet batch, half the lane's, session 42)
    pr = np.empty((M, 2), dtype=np.int64)
    for t in range(mi):
        pr[t, 0] = ins[t, 0]
        pr[t, 1] = ins[t, 1]
    for t in range(md):
        pr[mi + t, 0] = dele[t, 0]
        pr[mi + t, 1] = dele[t, 1]
    # slots: every endpoint of a non-loop pair, and every new vertex
    tv = np.empty(2 * M + (N - n), dtype=np.int64)
    nt = 0
    for t in range(mi + md):
        x = pr[t, 0]
        y = pr[t, 1]
        if x == y:
            cnt[0 if t < mi else 1] += 1
            continue
        if mark[x] < 0:
            mark[x] = 0
            tv[nt] = x
            nt += 1
        if mark[y] < 0:
            mark[y] = 0
            tv[nt] = y
            nt += 1
    if cnt[6] == 0:
        for v in range(n, N):
            if mark[v] < 0:
                mark[v] = 0
                tv[nt] = v
                nt += 1
    if nt * 16 >= N:      # many: scan the marks in vertex order
        s = 0
        for v in range(N):
            if mark[v] >= 0:
                tv[s] = v
                s += 1
    else:
        tv[:nt] = np.sort(tv[:nt])
    ptr = np.zeros(nt + 1, dtype=np.int64)
    for s in range(nt):
        mark[tv[s]] = s
    for t in range(mi + md):
        x = pr[t, 0]
        y = pr[t, 1]
        if x != y:
            ptr[mark[x] + 1] += 1
            ptr[mark[y] + 1] += 1
    for s in range(nt):
        ptr[s + 1] += ptr[s]
    # arcs: key (target << sh) | input row (inserts' rows first), grouped by source slot (shifts and masks
    # read it back: no 64-bit division per arc)
    sh = 1
    while (1 << sh) < M:
        sh += 1
    low = (1 << sh) - 1
    key = np.empty(ptr[nt], dtype=np.int64)
    fill = ptr[:nt].copy()
    if 8 * ptr[nt] >= N:
        # many arcs for the vertices: a counting sort by target (stable in input order), then each arc to its
        # slot in that order (the slots come out sorted by (target, input row))
        dc = np.zeros(N + 1, dtype=np.int64)
        for t in range(mi + md):
            x = pr[t, 0]
            y = pr[t, 1]
            if x != y:
                dc[y + 1] += 1
                dc[x + 1] += 1
        for v in range(N):
            dc[v + 1] += dc[v]
        tmp = np.empty(ptr[nt], dtype=np.int64)
        tsrc = np.empty(ptr[nt], dtype=np.int64)
        for t in range(mi + md):
            x = pr[t, 0]
            y = pr[t, 1]
            if x != y:
                p = dc[y]
                dc[y] += 1
                tmp[p] = (y << sh) | t
                tsrc[p] = mark[x]
                p = dc[x]
                dc[x] += 1
                tmp[p] = (x << sh) | t
                tsrc[p] = mark[y]
        for p in range(ptr[nt]):
            s = tsrc[p]
            key[fill[s]] = tmp[p]
            fill[s] += 1
        for s in range(nt):
            mark[tv[s]] = -1          # the scratch back as it came
    else:
        for t in range(mi + md):
            x = pr[t, 0]
            y = pr[t, 1]
            if x != y:
                sx = mark[x]
                sy = mark[y]
                key[fill[sx]] = (y << sh) | t
                fill[sx] += 1
                key[fill[sy]] = (x << sh) | t
                fill[sy] += 1
        for s in range(nt):
            mark[tv[s]] = -1          # the scratch back as it came
            if ptr[s + 1] - ptr[s] > 24:
                key[ptr[s]:ptr[s + 1]] = np.sort(key[ptr[s]:ptr[s + 1]])
            else:
                _sort_segment(key, ptr[s], ptr[s + 1])
    # the net effect, pair by pair from its lower endpoint (sorted (lo, hi) order)
    fate = np.full(M, -1, dtype=np.int64)     # order rank of the input row kept for its pair
    iout = np.empty((mi, 2), dtype=np.int64)
    ifirst = np.empty(mi, dtype=np.int64)
    dout = np.empty((md, 2), dtype=np.int64)
    na = 0
    nb_ = 0
    for s in range(nt):
        v = tv[s]
        q = ptr[s]
        e = ptr[s + 1]
        while q < e:
            w = (key[q] >> sh)
            ci = 0
            cd = 0
            fi = -1
            fd = -1
            while q < e and (key[q] >> sh) == w:
                r = (key[q] & low)
                if r < mi:
                    if ci == 0:
                        fi = r
                    ci += 1
                else:
                    if cd == 0:
                        fd = r
                    cd += 1
                q += 1
            if w < v:
                continue
            if ci > 1:
                cnt[2] += ci - 1
            if cd > 1:
                cnt[2] += cd - 1
            if ci > 0 and cd > 0:
                _tally(cnt, ex, 3, 0, v, w)
            elif ci > 0:
                if _present(rows, idx, n, v, w):
                    _tally(cnt, ex, 4, 1, v, w)
                else:
                    iout[na, 0] = v
                    iout[na, 1] = w
                    ifirst[na] = fi
                    fate[fi] = na
                    na += 1
            else:
                if not _present(rows, idx, n, v, w):
                    _tally(cnt, ex, 5, 2, v, w)
                else:
                    dout[nb_, 0] = v
                    dout[nb_, 1] = w
                    fate[fd] = nb_        # its rank; the deletes' order ids follow the inserts' (below)
                    nb_ += 1
    for t in range(mi, M):
        if fate[t] >= 0:
            fate[t] += na
    # the kept arcs of each slot (the first row of each kept pair), slots without one dropped (new vertices
    # always keep one: their only pairs are inserts, never existing edges)
    touched = np.empty(nt, dtype=np.int64)
    tptr = np.zeros(nt + 1, dtype=np.int64)
    adst = np.empty(2 * (na + nb_), dtype=np.int32)
    aod = np.empty(2 * (na + nb_), dtype=np.int32)
    icnt = np.empty(nt, dtype=np.int64)
    u = 0
    o = 0
    for s in range(nt):
        ic = 0
        for q in range(ptr[s], ptr[s + 1]):
            r = (key[q] & low)
            f = fate[r]
            if f >= 0:
                adst[o] = (key[q] >> sh)
                aod[o] = f
                if r < mi:
                    ic += 1
                o += 1
        if o > tptr[u] or tv[s] >= n:
            touched[u] = tv[s]
            icnt[u] = ic
            u += 1
            tptr[u] = o
    return iout[:na], ifirst[:na], dout[:nb_], cnt, ex, touched[:u], tptr[:u + 1], adst, aod, icnt[:u]


def layout_of(S, b: Batch) -> Layout:
    """The layout of an already net batch ``b`` on store S (a Batch made without :func:`normalise`)."""
    out = net_layout(np.ascontiguousarray(b.insert, dtype=np.int64).reshape(-1, 2),
                     np.ascontiguousarray(b.delete, dtype=np.int64).reshape(-1, 2), b.n_after, S.n, S.rows, S.idx,
                     S.scratch_mark(b.n_after))
    return Layout(*out[5:])


def ids_after(S, b: Batch):
    """Original ids of the graph after the batch (None: the identity, as for most graphs)."""
    if S.ids is None and (b.new_ids.size == 0 or np.array_equal(b.new_ids, np.arange(S.n, b.n_after))):
        return None
    base = S.ids if S.ids is not None else np.arange(S.n, dtype=np.int64)
    return np.concatenate([base, b.new_ids])
