"""Directed motif census: every connected directed 3- and 4-vertex class (13 and 199 classes), induced or not.

``la_gpm.census(D, k)`` on a directed graph D (``k`` = 3 or 4) routes here (:func:`directed_census`).

Notes
-----
**Codes.**  A directed k-vertex graph is a bitmask of ``k(k-1)`` bits, two per vertex pair i < j (pair index
``t = j(j-1)/2 + i``): bit ``2t`` is the arc i -> j, bit ``2t + 1`` the arc j -> i.  A reciprocal (mutual)
pair sets both.  The *key* of a class is its smallest code over the k! relabellings; a table maps each of the
64 (k = 3) or 4096 (k = 4) codes to its class row (-1: not weakly connected), built by the same orbit
expansion as the undirected classes (:func:`la_gpm.patterns.classes.build_class_table`).  Rows are sorted
by arc count, then key, so the inclusion matrix M (``M[i, j]`` = arc subsets of class j's key forming class
i) is unitriangular and non-induced = M · induced is exact both ways (Python ints).

**igraph's numbering.**  igraph encodes a directed graph with one weight per ordered pair
(``igraph_i_isoclass_{3,4}_idx`` in igraph's ``isoclasses.c``) and numbers the classes in the order in which
they first appear as that code runs from 0 up (checked for all 16 + 218 classes against
``igraph.Graph.isoclass`` in tests/test_directed.py); :func:`directed_classes` reproduces it without igraph,
so the ``isoclass`` column equals ``Graph.Isoclass(k, cls, directed=True)``'s ``cls`` and the index of
``Graph.motifs_randesu(size=k)``.

**k = 3: triad census in closed form** (``method="closed_form"``, the default; the connected part of
Batagelj & Mrvar's triad census).  Every pair of neighbours a, b of a centre v in the underlying undirected
graph U is a connected triad; with o_v, i_v, r_v the out-only, in-only and reciprocal neighbours of v, the
pairs of each type combination number C(o,2), C(i,2), C(r,2), o·i, o·r, i·r.  The closed ones (a ~ b) are the
triangles of U, listed once each on the degree-ordered DAG (O(m·sqrt(m))) and classified by their 6-bit
code; each triangle's three corners are subtracted from their combinations, and what is left are the open
triads 021D, 021U, 021C, 111D, 111U and 201.

**k = 4 (and k = 3 with ``method="enumerate"``): ESU enumeration** of the connected k-subsets of U (each
once, rooted at its highest-degree vertex, DuMato's extension rule, as :mod:`la_gpm.motifs.cpu`), with the
directed code built per level from a per-vertex word holding two bits per set position (the arcs to and
from that position).  The last vertex is never visited: the remaining candidates are a histogram of their
rows and one scan of the last prefix vertex's neighbours updates it; each (row, count) adds ``count`` to
``table[prefix | row]``.  Parallel over interleaved root chunks (numba ``prange``).

**GPU** (``backend="gpu"``, k = 3, 4, ``method="enumerate"`` or ``"auto"``; ``attrs["method"]`` is
``"gpu_enumerate"``): the undirected GPU census's warp-centric ESU kernel instantiated for two bits per vertex
pair (``census_esu_directed`` in census.cu, host code :func:`la_gpm.motifs.gpu.directed_esu_counts`), over the
same U and ``dirs`` as here, each subset's code built in the layout above and classified by the same table;
non-induced = M · I as here. ``backend="auto"`` stays on the CPU.

The result is the census DataFrame without the ``pattern`` column (la_gpm's :class:`~la_gpm.Pattern` is
undirected): ``name`` (MAN triad code for k = 3, e.g. ``030T``; ``4-dclass-<isoclass>`` for k = 4),
``isoclass`` (igraph's), ``key``, ``edges`` (the key's arcs as (tail, head) pairs), ``arcs`` (readable:
``0->1, 1<->2``), ``underlying`` (the undirected class: wedge, triangle, 4-path, ...), ``count``.

References: Batagelj & Mrvar, "A subquadratic triad census algorithm for large sparse networks with small
maximum degree" (Social Networks 2001); Holland & Leinhardt (1970) for the MAN names; Wernicke (2006).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..backends import resolve_backend
from ..exceptions import InvalidArgument, PatternTooLarge
from ..patterns.classes import bit, classes, connected_rows, to_noninduced
from ..primitives.sorted_ops import lower_bound
from ..validation import as_graph
from .common import deg_binomial_sum, nchunks, serial_pass, sum_over_root_blocks, weighted_sum
from .cpu import esu_census, esu_census_serial

__all__ = ["directed_census", "directed_counts", "directed_classes", "DirectedClasses", "underlying", "DIRECTED_KS",
           "DIRECTED_METHODS", "TRIAD_NAMES"]

DIRECTED_KS = (3, 4)
DIRECTED_METHODS = ("auto", "closed_form", "enumerate")

# igraph's weight of the arc (a -> b) in its isoclass code: IDX[k][a * k + b] (igraph isoclasses.c)
_IGRAPH_IDX = {3: (0, 4, 16, 1, 0, 32, 2, 8, 0),
               4: (0, 8, 64, 512, 1, 0, 128, 1024, 2, 16, 0, 2048, 4, 32, 256, 0)}
# the MAN (mutual, asymmetric, null) names of the 13 connected triads by igraph isoclass (checked against
# networkx.triad_type in the tests); reciprocal pairs are the M of the code
TRIAD_NAMES = {2: "021U", 4: "021C", 5: "111D", 6: "021D", 7: "030T", 8: "120D", 9: "111U", 10: "201",
               11: "030C", 12: "120C", 13: "120U", 14: "210", 15: "300"}


# --------------------------------------------------------------------------- classes


def arc_bit(a: int, b: int) -> int:
    """The code bit of the arc a -> b (a != b)."""
    t = bit(a, b)
    return 2 * t if a < b else 2 * t + 1


def code_arcs(code: int, k: int) -> list:
    """The arcs (tail, head) of a directed code, by pair then direction."""
    out = []
    for j in range(1, k):
        for i in range(j):
            t = bit(i, j)
            if code >> (2 * t) & 1:
                out.append((i, j))
            if code >> (2 * t + 1) & 1:
                out.append((j, i))
    return out


def undirected_code(code: int, k: int) -> int:
    """The undirected adjacency bitmask (la_gpm.patterns.classes) of a directed code's underlying graph."""
    return sum(1 << t for t in range(k * (k - 1) // 2) if code >> (2 * t) & 3)


def _readable(arcs) -> str:
    s = set(arcs)
    parts = []
    for a, b in arcs:
        if (b, a) in s:
            if a < b:
                parts.append(f"{a}<->{b}")
        else:
            parts.append(f"{a}->{b}")
    return ", ".join(parts)


@dataclass(frozen=True)
class DirectedClasses:
    k: int
    table: np.ndarray      # directed code -> row (weakly connected classes), -1 otherwise
    keys: tuple            # smallest code of each row's class
    edges: tuple           # arcs of each row's key
    names: tuple
    isoclass: tuple        # igraph's class number of each row
    underlying: tuple      # name of each row's underlying undirected class
    M: tuple               # inclusion matrix (arc subsets), rows as tuples of Python ints


@functools.lru_cache(maxsize=None)
def directed_classes(k: int) -> DirectedClasses:
    """The connected directed k-vertex classes (k = 3: 13, k = 4: 199), their code table and inclusion matrix.

    >>> c = directed_classes(3)
    >>> len(c.keys), c.names[:3]
    (13, ('021D', '021C', '021U'))
    """
    if k not in DIRECTED_KS:
        raise PatternTooLarge(f"the directed census covers k = 3 and 4; got k={k}")
    nbits = k * (k - 1)
    arcs = [(a, b) for a in range(k) for b in range(k) if a != b]
    perms = list(itertools.permutations(range(k)))
    bitmaps = np.empty((len(perms), nbits), dtype=np.int64)
    for p, perm in enumerate(perms):
        for a, b in arcs:
            bitmaps[p, arc_bit(a, b)] = arc_bit(perm[a], perm[b])
    ucls = classes(k)
    table, keys, M, raw, conn = connected_rows(bitmaps, nbits,
                                               lambda code: ucls.table[undirected_code(code, k)] >= 0)
    # igraph's numbering: classes in order of first appearance of igraph's code 0, 1, 2, ...
    weight = _IGRAPH_IDX[k]
    to_ours = np.zeros(1 << nbits, dtype=np.int64)
    for a, b in arcs:
        w = weight[a * k + b]
        pos = w.bit_length() - 1
        to_ours[1 << pos] = 1 << arc_bit(a, b)
    iso_of_raw = {}
    for code in range(1 << nbits):
        ours = 0
        c = code
        while c:
            low = c & -c
            ours |= int(to_ours[low])
            c ^= low
        iso_of_raw.setdefault(int(raw[ours]), len(iso_of_raw))
    iso = tuple(iso_of_raw[c] for c in conn)
    und = tuple(ucls.names[int(ucls.table[undirected_code(key, k)])] for key in keys)
    names = tuple(TRIAD_NAMES[i] if k == 3 else f"4-dclass-{i}" for i in iso)
    return DirectedClasses(k=k, table=table, keys=keys, edges=tuple(tuple(code_arcs(c, k)) for c in keys),
                           names=names, isoclass=iso, underlying=und,
                           M=tuple(tuple(int(x) for x in row) for row in M))


# --------------------------------------------------------------------------- the graph


def underlying(D):
    """(indptr, indices, dirs, new_id) of D's underlying undirected graph, renamed by decreasing degree (ties by
    id), cached with D: ``dirs[j]`` (uint8) for the arc u -> w = indices[j] of row u has bit 0 when D has
    u -> w and bit 1 when it has w -> u (3: reciprocal)."""
    def make():
        n = D.n
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(D.indptr))
        dst = D.indices.astype(np.int64)
        a = np.concatenate([src, dst])
        b = np.concatenate([dst, src])
        d = np.concatenate([np.ones(src.size, dtype=np.uint8), np.full(src.size, 2, dtype=np.uint8)])
        ptr, idx, dirs = _merge_pairs(a, b, d, n)
        deg = np.diff(ptr)
        order = np.lexsort((np.arange(n), -deg))
        new_id = np.empty(n, dtype=np.int64)
        new_id[order] = np.arange(n)
        rows = np.repeat(np.arange(n, dtype=np.int64), deg)
        ptr, idx, dirs = _merge_pairs(new_id[rows], new_id[idx.astype(np.int64)], dirs, n)
        idx = idx.astype(np.int32 if n < 2**31 - 1 else np.int64)
        for x in (ptr, idx, dirs, new_id):
            x.setflags(write=False)
        return ptr, idx, dirs, new_id
    return D.cached("cpu:directed-underlying-descending", make)


def _merge_pairs(a, b, d, n):
    """CSR (rows sorted) of the pairs (a, b), the direction bits of equal pairs OR-ed together."""
    key = a * np.int64(n) + b
    order = np.argsort(key, kind="stable")
    key = key[order]
    d = d[order]
    if key.size:
        start = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
        dirs = np.bitwise_or.reduceat(d, start).astype(np.uint8)
        key = key[start]
    else:
        dirs = np.zeros(0, dtype=np.uint8)
    rows = key // n
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=ptr[1:])
    return ptr, (key % n), dirs


# --------------------------------------------------------------------------- numba kernels: triads


@nb.njit(cache=True)
def _flip(d):
    return ((d & 1) << 1) | ((d >> 1) & 1)


@nb.njit(cache=True)
def _triangles_chunk(indptr, indices, dirs, table, c, nch, mark, mdir, counts, corners):
    """Triangles u > v > w of the chunk's u (ids of the degree-descending relabelling), each classified by its
    directed code: counts[row] += 1; corners[4 * t1 + t2] += 1 for the centre types (t1 <= t2) of its corners."""
    n = indptr.shape[0] - 1
    for u in range(c, n, nch):
        s = u + 1
        ulo = indptr[u]
        uhi = lower_bound(indices, ulo, indptr[u + 1], u)
        for j in range(ulo, uhi):
            mark[indices[j]] = s
            mdir[indices[j]] = dirs[j]
        for j in range(ulo, uhi):
            v = indices[j]
            duv = dirs[j]
            vlo = indptr[v]
            vhi = lower_bound(indices, vlo, indptr[v + 1], v)
            for q in range(vlo, vhi):
                w = indices[q]
                if mark[w] == s:
                    duw = mdir[w]
                    dvw = dirs[q]
                    counts[table[duv | (duw << 2) | (dvw << 4)]] += 1
                    a, b = duv, duw                    # corner u: to v, to w
                    corners[4 * min(a, b) + max(a, b)] += 1
                    a, b = _flip(duv), dvw             # corner v: to u, to w
                    corners[4 * min(a, b) + max(a, b)] += 1
                    a, b = _flip(duw), _flip(dvw)      # corner w: to u, to v
                    corners[4 * min(a, b) + max(a, b)] += 1


@nb.njit(parallel=True, cache=True)
def _triangles(indptr, indices, dirs, table, nclass, nch):
    n = indptr.shape[0] - 1
    counts = np.zeros((nch, nclass), dtype=np.int64)
    corners = np.zeros((nch, 16), dtype=np.int64)
    for c in nb.prange(nch):
        mark = np.zeros(n, dtype=np.int64)
        mdir = np.zeros(n, dtype=np.uint8)
        _triangles_chunk(indptr, indices, dirs, table, c, nch, mark, mdir, counts[c], corners[c])
    return counts, corners


@nb.njit(cache=True)
def _triangles_serial(indptr, indices, dirs, table, nclass):
    n = indptr.shape[0] - 1
    counts = np.zeros((1, nclass), dtype=np.int64)
    corners = np.zeros((1, 16), dtype=np.int64)
    _triangles_chunk(indptr, indices, dirs, table, 0, 1, np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.uint8),
                     counts[0], corners[0])
    return counts, corners


@nb.njit(cache=True)
def _type_degrees(indptr, dirs):
    """(out-only, in-only, reciprocal) neighbour counts of every vertex, as an (n, 3) int64 array."""
    n = indptr.shape[0] - 1
    out = np.zeros((n, 3), dtype=np.int64)
    for v in range(n):
        for j in range(indptr[v], indptr[v + 1]):
            out[v, dirs[j] - 1] += 1
    return out


def _triad_census(U, cls):
    """Induced counts of the 13 connected triads (closed form, module notes)."""
    ptr, idx, dirs, _ = U
    nclass = len(cls.keys)
    if serial_pass(idx.size):
        tri, corners = _triangles_serial(ptr, idx, dirs, cls.table, nclass)
    else:
        tri, corners = _triangles(ptr, idx, dirs, cls.table, nclass, nchunks())
    counts = [sum(int(x) for x in col) for col in tri.T.tolist()] if tri.shape[0] > 1 else tri[0].tolist()
    closed = [sum(int(x) for x in col) for col in corners.T.tolist()]
    td = _type_degrees(ptr, dirs)
    o, i, r = td[:, 0], td[:, 1], td[:, 2]
    pairs = {(1, 1): deg_binomial_sum(o, 2), (2, 2): deg_binomial_sum(i, 2), (3, 3): deg_binomial_sum(r, 2),
             (1, 2): weighted_sum(o, i), (1, 3): weighted_sum(o, r), (2, 3): weighted_sum(i, r)}
    for (t1, t2), total in pairs.items():
        row = int(cls.table[t1 | (t2 << 2)])      # centre at 0, the pair's ends at 1 and 2, not adjacent
        counts[row] += total - closed[4 * t1 + t2]
    return [int(x) for x in counts]


def _enumerate(U, k, cls, progress):
    ptr, idx, dirs, _ = U
    n = ptr.shape[0] - 1
    nc = len(cls.keys)

    def count(roots, chunks):
        if serial_pass(idx.size):
            return esu_census_serial(ptr, idx, dirs, k, cls.table, nc, roots)
        return esu_census(ptr, idx, dirs, k, cls.table, nc, roots, chunks)
    return sum_over_root_blocks(0, n, nc, count, progress=progress, desc=f"directed census k={k}")


# --------------------------------------------------------------------------- entry


def directed_census(D, k: int, *, induced: bool = True, backend: str | None = None, progress: bool = False,
                    method: str = "auto"):
    """Counts of every weakly connected directed k-vertex class (k = 3: 13 classes, k = 4: 199), as igraph's
    ``motifs_randesu(size=k)`` counts them (induced), or non-induced (arc subsets: N = M · I).

    Reached through :func:`la_gpm.census` for a directed graph. ``method``: ``"auto"`` (k = 3: the closed-form
    triad census; k = 4: enumeration), ``"closed_form"`` (k = 3) or ``"enumerate"`` (k = 3, 4). ``backend``:
    ``"cpu"``, ``"gpu"`` (ESU enumeration on the GPU, ``method`` ``"auto"`` or ``"enumerate"``; ``attrs["method"]``
    is then ``"gpu_enumerate"``) or None / ``"auto"`` (the CPU).

    Returns a pandas DataFrame, one row per class sorted by arc count then key, columns ``name``,
    ``isoclass`` (igraph's ``Graph.Isoclass(k, cls, directed=True)`` number), ``key``, ``edges`` (arcs of
    the key), ``arcs`` (readable), ``underlying`` (undirected class name) and ``count`` (Python int);
    ``attrs``: k, induced, method, directed=True.

    >>> import la_gpm
    >>> D = la_gpm.Graph.from_edges([0, 0, 1], [1, 2, 2], directed=True)     # one feed-forward loop
    >>> df = la_gpm.census(D, 3)
    >>> df.loc[df["count"] > 0, ["name", "isoclass", "arcs", "count"]].values.tolist()
    [['030T', 7, '0->1, 0->2, 1->2', 1]]
    """
    D = as_graph(D)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InvalidArgument(f"k must be an integer number of pattern vertices (3 or 4 for a directed graph); "
                              f"got {k!r}")
    k = int(k)
    if k < 3:
        raise InvalidArgument(f"census needs k >= 3 (k=1 is D.n, k=2 counts arcs and reciprocal pairs); got k={k}")
    if k > 4:
        raise PatternTooLarge(f"the directed census covers k = 3 and 4 vertices; got k={k}. For larger undirected "
                              "motifs symmetrise first: la_gpm.census(D.to_undirected(), k)")
    b = resolve_backend(backend, supported=("cpu", "gpu"), what="the directed census", auto="cpu")
    if method not in DIRECTED_METHODS:
        raise InvalidArgument(f"method must be one of {DIRECTED_METHODS} for a directed graph; got {method!r}")
    if method == "closed_form" and k != 3:
        raise InvalidArgument(f"method='closed_form' of the directed census covers k = 3 (the triad census); got "
                              f"k={k} (use 'enumerate' or 'auto')")
    counts, method = directed_counts(D, k, induced=induced, method=method, progress=progress, backend=b)
    return directed_frame(directed_classes(k), counts, induced, method)


def directed_counts(D, k: int, *, induced: bool = True, method: str = "auto", progress: bool = False,
                    backend: str = "cpu"):
    """(counts in class-row order as Python ints, the method that ran) of a checked directed census call;
    ``backend`` a resolved one, "cpu" or "gpu" (ESU on the GPU: ``method`` "auto" or "enumerate", reported as
    "gpu_enumerate")."""
    cls = directed_classes(k)
    U = underlying(D)
    if backend == "gpu":
        if method == "closed_form":
            raise InvalidArgument("method='closed_form' (the triad census) runs on the CPU (backend='cpu'); on the "
                                  "GPU the directed census enumerates: method='enumerate' or 'auto'")
        from .gpu import directed_esu_counts
        I = directed_esu_counts(D, U, k, cls.table, len(cls.keys))
        method = "gpu_enumerate"
    else:
        if method == "auto":
            method = "closed_form" if k == 3 else "enumerate"
        I = _triad_census(U, cls) if method == "closed_form" else _enumerate(U, k, cls, progress)
    return (I if induced else to_noninduced(cls.M, I)), method


def directed_frame(cls, counts, induced, method):
    """The directed census DataFrame (see :func:`directed_census`)."""
    import pandas as pd

    df = pd.DataFrame({"name": list(cls.names), "isoclass": list(cls.isoclass), "key": list(cls.keys),
                       "edges": [list(e) for e in cls.edges], "arcs": [_readable(e) for e in cls.edges],
                       "underlying": list(cls.underlying), "count": pd.Series([int(c) for c in counts],
                                                                              dtype=object)})
    df.attrs.update(k=cls.k, induced=bool(induced), method=method, directed=True)
    return df
