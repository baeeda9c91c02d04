"""The census result: one pandas DataFrame row per connected k-vertex class (both backends, and the
distributed census).

Columns ``pattern`` (a named :class:`~la_gpm.patterns.pattern.Pattern`), ``name``, ``key`` (the smallest
adjacency bitmask of the class), ``edges`` (edge list of that bitmask), ``count`` (dtype object holding
Python ints); ``attrs`` k, induced, method.  What every frame of one k shares is built once per process
(:func:`frame_parts`); :func:`frame` assembles a frame from its blocks, :func:`frame_reference` through
the ordinary constructor (the layout :func:`frame` reproduces, and its fallback before pandas 3).
"""

from __future__ import annotations

import functools

import numpy as np

from ..patterns.classes import classes
from ..patterns.pattern import Pattern

__all__ = ["frame", "frame_reference", "frame_parts", "class_patterns"]

_OBJECT_PLACEMENT = np.array([0, 3, 4], dtype=np.intp)
_NAME_PLACEMENT = np.array([1], dtype=np.intp)
_KEY_PLACEMENT = np.array([2], dtype=np.intp)


@functools.lru_cache(maxsize=None)
def class_patterns(k: int) -> tuple:
    """The Pattern of every connected k-vertex class, built once per process (about 0.3 ms a census).

    Shared templates: :func:`frame` hands each census its own shallow copies (``Pattern.name`` is a
    plain attribute a user may set)."""
    cls = classes(k)
    return tuple(Pattern(e, k=k, name=nm) for e, nm in zip(cls.edges, cls.names))


def _pattern_copy(P):
    """A shallow copy of a class Pattern (its tuples and read-only adjacency shared), about 0.4 µs."""
    Q = object.__new__(type(P))
    Q.__dict__.update(P.__dict__)
    return Q


@functools.lru_cache(maxsize=None)
def frame_parts(k: int):
    """What every census frame of k shares, built once: (column Index, row Index, names as the
    constructor's string array, keys int64, Patterns, edge lists as tuples, from_blocks or None).

    Everything is copied into each frame (see :func:`frame`)."""
    import pandas as pd

    cls = classes(k)
    ref = frame_reference(cls, k, [0] * len(cls.keys), True, "")
    try:    # pandas >= 3.0: public low-level constructor (pandas.api.internals)
        from pandas.api.internals import create_dataframe_from_blocks
    except ImportError:
        create_dataframe_from_blocks = None
    names = ref["name"].array
    if create_dataframe_from_blocks is not None and not isinstance(names, pd.api.extensions.ExtensionArray):
        create_dataframe_from_blocks = None
    return (ref.columns, ref.index, names, np.array(cls.keys, dtype=np.int64), class_patterns(k), cls.edges,
            create_dataframe_from_blocks)


def frame_reference(cls, k, counts, induced, method):
    """The census DataFrame through the ordinary constructor (the layout :func:`frame` reproduces)."""
    import pandas as pd

    df = pd.DataFrame({"pattern": list(class_patterns(k)), "name": list(cls.names), "key": list(cls.keys),
                       "edges": [list(e) for e in cls.edges], "count": pd.Series(counts, dtype=object)})
    df.attrs.update(k=k, induced=bool(induced), method=method)
    return df


def frame(cls, k, counts, induced, method):
    """The census DataFrame (columns pattern, name, key, edges, count; count of dtype object holding
    Python ints; attrs k, induced, method).

    Built from its blocks with ``pandas.api.internals.create_dataframe_from_blocks`` (pandas >= 3),
    about 0.02 ms against 0.11 ms for ``pd.DataFrame(dict)``, which it equals (tests/test_census_small.py).
    Every mutable object is the frame's own: the arrays, the indexes, the edge lists and shallow copies
    of the cached Patterns.
    """
    columns, index, names, keys, patterns, edges, from_blocks = frame_parts(k)
    if from_blocks is None:
        return frame_reference(cls, k, counts, induced, method)
    import pandas as pd
    r = len(keys)
    obj = np.empty((3, r), dtype=object)
    for i in range(r):
        obj[0, i] = _pattern_copy(patterns[i])
        obj[1, i] = list(edges[i])
        obj[2, i] = int(counts[i])
    # fresh indexes too: a user may set df.index.name / df.columns.name
    df = from_blocks([(obj, _OBJECT_PLACEMENT), (names.copy(), _NAME_PLACEMENT),
                      (keys.reshape(1, r).copy(), _KEY_PLACEMENT)], index=pd.RangeIndex(r), columns=columns.copy())
    df.attrs.update(k=k, induced=bool(induced), method=method)
    return df
