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
from .updates import read_stream_ops, split_ops

__all__ = ["StreamDelta", "StreamSource", "stream_source", "COLUMNS"]

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

    __slots__ = COLUMNS + ("seconds", "batches", "lane_batches", "count", "induced")

    def __init__(self, cols: dict, seconds: float, batches: int, lane_batches: int, count: str, induced: bool):
        for c in COLUMNS:
            setattr(self, c, cols[c])
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


class StreamSource:
    """A stream cut into batches: ``raw(b)`` gives batch b as :meth:`apply` takes it; ``pairs`` (when the lane
    may take the batches) the flat int64 (insert, offsets, delete, offsets) and ``skip`` (1: batch b is not for
    the lane)."""

    def __init__(self, nbat, raw, labels, pairs=None, skip=None):
        self.nbat, self.raw, self.labels, self.pairs, self.skip = nbat, raw, labels, pairs, skip


def stream_source(stream, batch_size, lane_max: int, edge_labeled: bool) -> StreamSource:
    """The batches of ``stream`` (see :meth:`la_gpm.DynamicGraph.apply_stream`), packed for the lane where it
    may take them (``lane_max`` > 0 updates a batch, a graph without edge labels)."""
    if batch_size is not None and (isinstance(batch_size, (bool, np.bool_))
                                   or not isinstance(batch_size, (int, np.integer)) or batch_size < 1):
        raise InvalidArgument(f"batch_size must be a positive number of updates; got {batch_size!r}")
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


def _signed_ops(a) -> np.ndarray:
    """An (m, 3) / (m, 4) integer array of (sign, u, v[, edge label]) rows, its shape and type checked, as a
    C-contiguous int64 array (``a`` itself where it is one; nothing is written to it).  The signs are checked
    where it is cut into batches (:func:`_from_ops`)."""
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


@nb.njit(cache=True)
def _pack_ops(ops, size, nbat, lane_max):
    """The lane's packing of signed ops cut into batches of ``size``: (inserts (a, 2), their batch offsets,
    deletes (b, 2), offsets, skip, bad): a batch is skipped (left to the general path) when its inserts or its
    deletes carry more than one edge label, or it has more than ``lane_max`` updates; ``bad`` is the first row
    whose sign is not +1 or -1 (nothing packed), else -1.  The loop picks no array per row (numba would count a
    reference on each pick)."""
    m = ops.shape[0]
    labeled = ops.shape[1] > 3
    ni = 0
    bad = -1
    for t in range(m):
        s = ops[t, 0]
        if s == 1:
            ni += 1
        elif s != -1 and bad < 0:
            bad = t
    if bad >= 0:
        ni = 0
        m = 0
        nbat = 0
    ins = np.empty((ni, 2), np.int64)
    dele = np.empty((m - ni, 2), np.int64)
    ioff = np.zeros(nbat + 1, np.int64)
    doff = np.zeros(nbat + 1, np.int64)
    skip = np.zeros(nbat, np.uint8)
    a = 0
    d = 0
    for b in range(nbat):
        t1 = min(m, (b + 1) * size)
        fi = 0               # the batch's first label of its inserts, of its deletes
        fd = 0
        si = False
        sd = False
        mixed = t1 - b * size > lane_max
        for t in range(b * size, t1):
            lab = ops[t, 3] if labeled else -1
            if ops[t, 0] == 1:
                ins[a, 0] = ops[t, 1]
                ins[a, 1] = ops[t, 2]
                a += 1
                mixed |= si & (lab != fi)
                fi = lab if not si else fi
                si = True
            else:
                dele[d, 0] = ops[t, 1]
                dele[d, 1] = ops[t, 2]
                d += 1
                mixed |= sd & (lab != fd)
                fd = lab if not sd else fd
                sd = True
        ioff[b + 1] = a
        doff[b + 1] = d
        skip[b] = mixed
    return ins, ioff, dele, doff, skip, bad


def _from_ops(ops, batch_size, labels, lane, lane_max) -> StreamSource:
    m = ops.shape[0]
    size = int(batch_size) if batch_size else max(m, 1)
    nbat = max(1, -(-m // size))
    if lane:
        ins, ioff, dele, doff, skip, bad = _pack_ops(ops, size, nbat, lane_max)
    else:
        bad = _bad_sign(ops)
    if bad >= 0:
        raise InvalidUpdate(f"the first column of an array stream is the sign of each update, +1 (insert) or -1 "
                            f"(delete); row {bad} has {int(ops[bad, 0])}")
    src = StreamSource(nbat, lambda b: split_ops(_as4(ops[b * size:(b + 1) * size])), labels)
    if lane:
        src.pairs = (ins, ioff, dele, doff)
        src.skip = skip
    return src


def _pack_batches(src, raws, lane_max):
    from .lane import lane_pairs
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
