"""Streams of update batches for :meth:`la_gpm.DynamicGraph.apply_stream`: the input forms, their packing for
the small-batch lane (:mod:`.lane`), and the per-batch results as arrays (:class:`StreamDelta`).

A stream is cut into batches *before* anything runs: a stream file or an array of signed updates by
``batch_size`` (vectorised: no Python work per batch), an iterable of batches as given.  The lane then takes
the batches as one flat insert array and one flat delete array with per-batch offsets.
"""

from __future__ import annotations

from pathlib import Path

import numba as nb
import numpy as np

from ..exceptions import InvalidArgument, InvalidUpdate
from .lane import lane_pairs, pack_ops
from .updates import read_stream_ops, split_ops

__all__ = ["StreamDelta", "LaneColumns", "StreamSource", "stream_source", "array_stream", "array_source", "bad_sign", "COLUMNS"]

COLUMNS = ("batch", "query", "positive", "negative", "inserted", "deleted", "ignored", "irrelevant", "items", "lane")


class StreamDelta:
    """What each batch of a stream did to the matches of each query (:meth:`la_gpm.DynamicGraph.apply_stream`).

    One entry per (batch, query), batch-major (batch 0's queries in ``queries`` order, then batch 1's ...).
    Each attribute is a numpy array of that length:

    batch, query : the batch number in the stream and the query's index in ``queries``
    positive, negative : matches created / destroyed (exact: int64, or an object array of Python ints where a
        value does not fit in int64); ``count`` says what a match is
    inserted, deleted : the updates applied (net effect)
    ignored : updates that changed nothing (self-loops, repeats, inserts of existing edges, deletes of missing
        ones, pairs both inserted and deleted)
    irrelevant : updates no query can use (query views, ``keep_graph=False``; 0 otherwise)
    items : work items searched
    lane : True where the batch ran in the small-batch lane

    Also ``seconds`` (the whole call), ``batches``, ``lane_batches``, ``count``, ``induced``, ``totals()`` and
    ``to_frame()`` (a pandas DataFrame with the columns above).
    """

    __slots__ = ("_cols", "seconds", "batches", "lane_batches", "count", "induced")

    def __init__(self, cols, seconds: float, batches: int, lane_batches: int, count: str, induced: bool):
        self._cols = cols            # column name -> array (a dict, or a LaneColumns block read on first use)
        self.seconds, self.batches, self.lane_batches = seconds, batches, lane_batches
        self.count, self.induced = count, induced

    def __len__(self) -> int:
        return int(self.batch.shape[0])

    def totals(self, query: int = 0) -> tuple[int, int]:
        """(positive, negative) of one query summed over the stream, as Python ints."""
        sel = self.query == query
        return sum(int(x) for x in self.positive[sel]), sum(int(x) for x in self.negative[sel])

    def to_frame(self):
        """The results as a pandas DataFrame (one row per (batch, query); ``.attrs``: seconds, batches,
        lane_batches, count, induced)."""
        import pandas as pd
        df = pd.DataFrame({c: getattr(self, c) for c in COLUMNS})
        df.attrs.update(seconds=self.seconds, batches=self.batches, lane_batches=self.lane_batches,
                        count=self.count, induced=self.induced)
        return df

    def __repr__(self):
        return (f"StreamDelta(batches={self.batches}, queries={int(self.query.max()) + 1 if len(self) else 0}, "
                f"lane_batches={self.lane_batches}, count={self.count!r}, seconds={self.seconds:.4g})")


for _c in COLUMNS:
    setattr(StreamDelta, _c, property(lambda self, c=_c: self._cols[c]))
del _c


class LaneColumns(dict):
    """The columns of a run of lane batches from its (9, nb) int64 block (rows in :data:`COLUMNS` order;
    ``lane`` all True), each made the first time it is read: a stream of a hundred small batches costs a few
    hundred microseconds in all, so the columns nobody reads are not built.  Columns set (positive / negative as
    Python ints) take precedence."""

    __slots__ = ("_out",)

    def __init__(self, out):
        super().__init__()
        self._out = out

    def __missing__(self, c):
        v = np.ones(self._out.shape[1], bool) if c == "lane" else self._out[_ROW[c]]
        self[c] = v
        return v


_ROW = {c: i for i, c in enumerate(COLUMNS[:9])}


class StreamSource:
    """A stream cut into batches: ``raw(b)`` gives batch b as :meth:`apply` takes it; ``pairs`` (when the lane
    may take the batches) the flat int64 (insert, offsets, delete, offsets) and ``skip`` (1: batch b is not for
    the lane)."""

    def __init__(self, nbat, raw, labels, pairs=None, skip=None):
        self.nbat, self.raw, self.labels, self.pairs, self.skip = nbat, raw, labels, pairs, skip


def stream_source(stream, batch_size, lane_max: int, edge_labeled: bool) -> StreamSource:
    """The batches of ``stream`` (see :meth:`la_gpm.DynamicGraph.apply_stream`), packed for the lane where it
    may take them (``lane_max`` > 0 updates a batch, a graph without edge labels)."""
    _check_size(batch_size)
    lane = lane_max > 0 and not edge_labeled
    if isinstance(stream, (str, Path)):
        ops, labels = read_stream_ops(stream)
        return _from_ops(ops, batch_size, labels, lane, lane_max)
    if isinstance(stream, np.ndarray):
        return _from_ops(_signed_ops(stream), batch_size, {}, lane, lane_max)
    if batch_size is not None:
        raise InvalidArgument("batch_size cuts a stream file or an array of signed updates into batches; an "
                              "iterable of batches is applied as given: drop batch_size")
    if isinstance(stream, (bytes, dict)) or not hasattr(stream, "__iter__"):
        raise InvalidUpdate(f"stream must be the path of a stream file, an (m, 3) array of signed updates (+1 "
                            f"insert / -1 delete, u, v) or an iterable of (insert, delete) batches; got "
                            f"{type(stream).__name__}")
    raws = []
    for b, item in enumerate(stream):
        if isinstance(item, dict):
            extra = set(item) - {"insert", "delete"}
            if extra:
                raise InvalidUpdate(f"batch {b} has keys {sorted(extra)}; a batch mapping has 'insert' and "
                                    "'delete' only")
            raws.append((item.get("insert"), item.get("delete")))
        elif isinstance(item, (tuple, list)) and len(item) == 2:
            raws.append((item[0], item[1]))
        else:
            raise InvalidUpdate(f"batch {b} of the stream is a {type(item).__name__}; each batch is an "
                                "(insert, delete) pair or a {'insert': ..., 'delete': ...} mapping")
    src = StreamSource(len(raws), raws.__getitem__, {})
    if lane and raws:
        _pack_batches(src, raws, lane_max)
    return src


_INT64 = np.dtype(np.int64)


def _signed_ops(a) -> np.ndarray:
    """An (m, 3) / (m, 4) integer array of (sign, u, v[, edge label]) rows, its shape and type checked, as a
    C-contiguous int64 array (``a`` itself where it is one; nothing is written to it).  The signs are checked
    where it is cut into batches (:func:`_from_ops`)."""
    if a.dtype is _INT64 and a.ndim == 2 and a.shape[1] == 3 and a.flags.c_contiguous:
        return a                # the common case, a few attribute reads (the checks below: 6 us of a stream call)
    if a.ndim != 2 or a.shape[1] not in (3, 4) or a.dtype.kind not in "iu":
        raise InvalidUpdate(f"an array stream must be an (m, 3) integer array of signed updates (sign, u, v): "
                            f"+1 inserts the edge u-v, -1 deletes it (or (m, 4) with an edge label); got shape "
                            f"{a.shape}, dtype {a.dtype}")
    if a.dtype.kind == "u" and a.dtype.itemsize >= 8 and a.size and int(a.max()) >= 2**63:
        raise InvalidUpdate(f"an array stream's values must fit in int64; the largest is {int(a.max())}")
    return np.ascontiguousarray(a, dtype=np.int64)


@nb.njit(cache=True)
def _bad_sign(ops):
    for t in range(ops.shape[0]):
        if ops[t, 0] != 1 and ops[t, 0] != -1:
            return t
    return -1


def _as4(ops):
    """(m, 4) ops (label -1 where none) of (m, 3) / (m, 4) ones."""
    if ops.shape[1] == 4:
        return ops
    out = np.full((ops.shape[0], 4), -1, dtype=np.int64)
    out[:, :3] = ops
    return out


def _check_size(batch_size):
    if type(batch_size) is int and batch_size >= 1:
        return
    if batch_size is not None and (isinstance(batch_size, (bool, np.bool_))
                                   or not isinstance(batch_size, (int, np.integer)) or batch_size < 1):
        raise InvalidArgument(f"batch_size must be a positive number of updates; got {batch_size!r}")


def _cut(m, batch_size):
    """(batch size, number of batches) of m ops cut by ``batch_size`` (None: one batch)."""
    size = int(batch_size) if batch_size else max(m, 1)
    return size, max(1, -(-m // size))


def array_stream(stream: np.ndarray, batch_size):
    """An array stream checked (shape, type, ``batch_size``; the signs are checked as it is packed) and cut:
    (ops as a C-contiguous int64 array, batch size, number of batches)."""
    _check_size(batch_size)
    ops = _signed_ops(stream)
    return (ops, *_cut(ops.shape[0], batch_size))


def bad_sign(ops, row):
    """Raise the error for a row of an array stream whose sign is not +1 or -1."""
    raise InvalidUpdate(f"the first column of an array stream is the sign of each update, +1 (insert) or -1 "
                        f"(delete); row {row} has {int(ops[row, 0])}")


def array_source(ops, size, nbat, packed=None) -> StreamSource:
    """The :class:`StreamSource` of checked ops cut into ``nbat`` batches of ``size``; ``packed``: the lane's
    (ins, ioff, dele, doff, skip) of them (:func:`.lane.pack_ops`), or None."""
    src = StreamSource(nbat, lambda b: split_ops(_as4(ops[b * size:(b + 1) * size])), {})
    if packed is not None:
        src.pairs = packed[:4]
        src.skip = packed[4]
    return src


def _from_ops(ops, batch_size, labels, lane, lane_max) -> StreamSource:
    size, nbat = _cut(ops.shape[0], batch_size)
    packed = None
    if lane:
        *packed, bad = pack_ops(ops, size, nbat, lane_max)
    else:
        bad = _bad_sign(ops)
    if bad >= 0:
        bad_sign(ops, bad)
    src = array_source(ops, size, nbat, packed)
    src.labels = labels
    return src


def _pack_batches(src, raws, lane_max):
    nbat = len(raws)
    skip = np.zeros(nbat, np.uint8)
    ins_parts, del_parts = [], []
    ioff = np.zeros(nbat + 1, np.int64)
    doff = np.zeros(nbat + 1, np.int64)
    for b, (ins, dele) in enumerate(raws):
        a = lane_pairs(_drop_constant_label(ins), lane_max)
        d = lane_pairs(_drop_constant_label(dele), lane_max) if a is not None else None
        if d is None or a.shape[0] + d.shape[0] > lane_max:
            skip[b] = 1
            a = d = None
        else:
            ins_parts.append(a)
            del_parts.append(d)
        ioff[b + 1] = ioff[b] + (0 if a is None else a.shape[0])
        doff[b + 1] = doff[b] + (0 if d is None else d.shape[0])
    src.pairs = (_cat(ins_parts), ioff, _cat(del_parts), doff)
    src.skip = skip


def _drop_constant_label(a):
    """(m, 3) integer rows with one edge label on every row as (m, 2) pairs, for a graph without edge labels
    (:func:`.updates.normalise` ignores a constant label there), so the lane can take them."""
    if type(a) is np.ndarray and a.ndim == 2 and a.shape[1] == 3 and a.shape[0] and a.dtype.kind in "iu" \
            and (a[:, 2] == a[0, 2]).all():
        return np.ascontiguousarray(a[:, :2])
    return a


def _cat(parts):
    if not parts:
        return np.zeros((0, 2), np.int64)
    return np.ascontiguousarray(np.concatenate(parts), dtype=np.int64)
