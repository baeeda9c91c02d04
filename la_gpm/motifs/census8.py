"""The 8-vertex census's classes: a two-level class lookup and the DataFrame (``la_gpm.census(G, 8)``).

A one-level table over every 8-vertex adjacency bitmask would have 2^28 entries; the ESU kernel
(:func:`la_gpm.motifs.cpu.esu_census`) instead looks a subgraph's class up in two steps:

1. ``cls7[c]``, ``perm7[c]``: for every 7-vertex bitmask c (2^21, every class, disconnected ones too),
   its 7-vertex class id and a relabelling p (an index into the 5,040 permutations) with
   c = P_p(rep7[cls7[c]]) (:func:`la_gpm.patterns.classes.class_perm_table`, orbit expansion);
2. ``cls8[cls7 * 128 + qperm[p, q]]``: the 8-vertex class of the 7-vertex representative plus a vertex
   whose adjacency row to it is q relabelled by p (``qperm``: 5,040 x 128 bytes).

The 8-vertex class keys are la_gpm.motif_estimate's canonical bitmasks
(:func:`la_gpm.patterns.classes.canonical_codes`, which the estimated census reads too: the smallest
bitmask over the vertex orders that keep an invariant sort), so that ``census(G, 8)`` and ``estimate_census(G, 8)`` name and key the classes alike and
compare row by row; names: ``8-path``, ``8-star``, ``8-cycle``, ``8-clique``, else ``"8-class-<key>"``
(as the estimated census).  11,117 connected classes, sorted by edge count then key.

Building the tables takes about a second (2^21 x 21 bit moves and 133,632 canonical codes); they are built
once per process (no disk cache: rebuilding costs less than checking a cache would save).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from ..exceptions import CensusTooLarge
from ..patterns.classes import (bit, canonical_codes, class_perm_table, code_edges, is_connected_code, known_names,
                               vertex_pairs)

__all__ = ["Classes8", "classes8", "classify8", "frame8", "noninduced8", "predict_work8", "check_work8",
           "K8_CLASSES", "K8_GUARD_S"]

K8_CLASSES = 11_117


@dataclass(frozen=True)
class Classes8:
    k: int
    table: tuple        # (cls7 int16 [2^21], perm7 int16 [2^21], qperm uint8 [5040, 128], cls8 int32 [classes7 * 128])
    keys: tuple         # canonical bitmask of each row's class (motif_estimate's key)
    edges: tuple        # edge list of each row (the key's edges)
    names: tuple


def _canonical(codes):
    return canonical_codes(np.ascontiguousarray(codes, dtype=np.int64), 8)


@functools.lru_cache(maxsize=None)
def classes8() -> Classes8:
    """The 8-vertex classes and the two-level lookup (built once per process, about a second)."""
    pairs = vertex_pairs(7)
    perms = np.array(list(itertools.permutations(range(7))), dtype=np.int64)
    bitmaps = np.empty((perms.shape[0], len(pairs)), dtype=np.int64)
    for b, (i, j) in enumerate(pairs):
        lo = np.minimum(perms[:, i], perms[:, j])
        hi = np.maximum(perms[:, i], perms[:, j])
        bitmaps[:, b] = hi * (hi - 1) // 2 + lo
    cls7, perm7, reps7 = class_perm_table(bitmaps, len(pairs))
    # q (the new vertex's row to the 7 positions of code c = P_p(rep)) in the representative's labels:
    # position v of c is vertex inv_p[v] of the representative
    inv = np.argsort(perms, axis=1)
    q = np.arange(128, dtype=np.int64)
    qperm = np.zeros((perms.shape[0], 128), dtype=np.int64)
    for v in range(7):
        qperm |= ((q[None, :] >> v) & 1) << inv[:, v:v + 1]
    codes8 = (reps7[:, None] | (q[None, :] << 21)).ravel()
    canon = _canonical(codes8)
    uniq = np.unique(canon).tolist()
    conn = [c for c in uniq if is_connected_code(c, 8)]
    conn.sort(key=lambda c: (bin(c).count("1"), c))
    row = {c: i for i, c in enumerate(conn)}
    cls8 = np.array([row.get(c, -1) for c in canon.tolist()], dtype=np.int32)
    named = {}
    for nm, P in known_names(8):
        code = sum(1 << bit(i, j) for i, j in P.edges)
        named[int(_canonical(np.array([code]))[0])] = nm
    names = tuple(named.get(c, f"8-class-{c}") for c in conn)
    table = (cls7, perm7, qperm.astype(np.uint8), cls8)
    for a in table:
        a.setflags(write=False)
    return Classes8(k=8, table=table, keys=tuple(conn), edges=tuple(tuple(code_edges(c, 8)) for c in conn),
                    names=names)


def classify8(codes) -> np.ndarray:
    """Row of each 8-vertex adjacency bitmask through the two-level lookup (-1: disconnected); tests and docs."""
    c = classes8()
    cls7, perm7, qperm, cls8 = c.table
    codes = np.asarray(codes, dtype=np.int64)
    low = codes & ((1 << 21) - 1)
    return cls8[cls7[low].astype(np.int64) * 128 + qperm[perm7[low].astype(np.int64), codes >> 21]]


@functools.lru_cache(maxsize=None)
def _patterns():
    from ..patterns.pattern import Pattern
    c = classes8()
    return tuple(Pattern(e, k=8, name=nm) for e, nm in zip(c.edges, c.names))


def frame8(counts, induced: bool, method: str):
    """The census DataFrame of k = 8 (columns and attrs as :func:`la_gpm.motifs.frames.frame`)."""
    import pandas as pd
    c = classes8()
    pats = []
    for P in _patterns():       # each frame its own shallow copies (Pattern.name is settable)
        Q = object.__new__(type(P))
        Q.__dict__.update(P.__dict__)
        pats.append(Q)
    df = pd.DataFrame({"pattern": pats, "name": list(c.names), "key": list(c.keys),
                       "edges": [list(e) for e in c.edges], "count": pd.Series([int(x) for x in counts], dtype=object)})
    df.attrs.update(k=8, induced=bool(induced), method=method)
    return df


K8_GUARD_S = 600.0          # census(G, 8, guard=True) refuses a predicted enumeration beyond this (seconds)
_NS_PER_NODE = 140.0        # ESU at k = 8, per connected 7-vertex subset (leaf parent), 1 thread: citeseer 238 s x 2 threads / 3.5e9
_NS_PER_NODE_GPU = 47.0     # the same on the GPU, the whole device (census_esu8, H100: citeseer 54.4 s / 1.16e9 predicted)


def predict_work8(G, gpu: bool = False) -> dict:
    """The predicted size of census(G, 8): connected 7- and 8-vertex subsets from the 3- and 4-vertex counts
    (closed forms, milliseconds) as C_k ~ C_4 r^(k-4) with r = C_4 / C_3, and the seconds of the enumeration
    on the numba threads (a leaf parent, i.e. a connected 7-subset, costs about ``_NS_PER_NODE`` ns on one
    thread).  Within a factor of about 3 on karate, citeseer and email-Eu-core (docs/census.md)."""
    import numba
    from ..patterns.classes import classes, to_induced
    from .closed_forms import closed_form_noninduced
    c3, c4 = (sum(to_induced(classes(k).M, closed_form_noninduced(G, k))) for k in (3, 4))
    r = c4 / c3 if c3 else 0.0
    c7 = c4 * r ** 3
    secs = c7 * _NS_PER_NODE_GPU * 1e-9 if gpu else c7 * _NS_PER_NODE * 1e-9 / max(1, numba.get_num_threads())
    return {"subsets7": c7, "subsets8": c7 * r, "seconds": secs}


def check_work8(G, gpu: bool = False):
    """Raise :class:`CensusTooLarge` where :func:`predict_work8` says more than ``K8_GUARD_S`` seconds (on the GPU
    with ``gpu``)."""
    w = predict_work8(G, gpu)
    if w["seconds"] > K8_GUARD_S:
        where = "the GPU" if gpu else f"{_threads()} thread(s) here"
        raise CensusTooLarge(
            f"census(G, 8) would enumerate about {w['subsets8']:.2g} connected 8-vertex subgraphs (extending "
            f"{w['subsets7']:.2g} 7-vertex ones): about {_duration(w['seconds'])} on {where}, "
            f"beyond the guard's {K8_GUARD_S:.0f} s. Estimate the census with la_gpm.estimate_census(G, 8) "
            "(sampled, with intervals), or run it anyway with census(G, 8, guard=False)")


def _threads():
    import numba
    return numba.get_num_threads()


def _duration(s):
    if s < 3600:
        return f"{s / 60:.0f} min"
    if s < 86400 * 3:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.0f} days"


def noninduced8(I, nchunks=None) -> list:
    """Non-induced 8-vertex counts N = M · I, M's columns only for the classes with a copy (I_j > 0): each one's
    edge subsets (2^edges of them) classified by the two-level lookup (:func:`la_gpm.motifs.cpu.spanning_rows8`);
    exact Python ints through 16-bit limbs of I."""
    from .common import nchunks as default_chunks
    from .cpu import spanning_rows8
    c = classes8()
    nz = [j for j, x in enumerate(I) if x]
    if not nz:
        return [0] * len(c.keys)
    big = max(int(I[j]) for j in nz)
    L = max(1, -(-big.bit_length() // 16))
    limbs = np.array([[(int(I[j]) >> (16 * l)) & 0xFFFF for l in range(L)] for j in nz], dtype=np.int64)
    keys = np.array([c.keys[j] for j in nz], dtype=np.int64)
    order = np.argsort(-np.array([len(c.edges[j]) for j in nz]), kind="stable")   # densest first: balance
    cls7, perm7, qperm, cls8 = c.table
    acc = spanning_rows8(keys[order], limbs[order], cls7, perm7, qperm, cls8, len(c.keys),
                         nchunks or default_chunks())
    return [sum(int(acc[l, i]) << (16 * l) for l in range(L)) for i in range(len(c.keys))]
