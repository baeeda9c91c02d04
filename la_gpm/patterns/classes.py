"""Isomorphism classes of small graphs as adjacency bitmasks: the class table shared by the census
(:mod:`la_gpm.motifs`) and the estimated census (:mod:`la_gpm.motif_estimate`).

A k-vertex graph is the bitmask with bit ``j(j-1)/2 + i`` set iff vertices i < j are adjacent.  The *key*
of a class is the smallest bitmask over all relabellings of its members.  For every k a table maps each of
the ``2**(k(k-1)/2)`` bitmasks to its connected class row (-1: disconnected), built once per k by orbit
expansion over the k! relabellings.  ``M[i][j]`` counts the edge subsets of class j's key that form class i
(non-induced = M · induced; M is unitriangular in edge order).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numba as nb
import numpy as np

__all__ = ["Classes", "classes", "connected_rows", "bit", "code_edges", "vertex_pairs", "is_connected_code", "known_names",
           "to_induced", "to_noninduced", "build_class_table", "class_perm_table", "inclusion_counts",
           "canonical_codes", "ordered_codes"]


@nb.njit(cache=True)
def _perm_code(code, bitmap, nbits):
    out = 0
    for b in range(nbits):
        if (code >> b) & 1:
            out |= np.int64(1) << bitmap[b]
    return out


@nb.njit(cache=True)
def _orbit_expand(perm_bitmaps, nbits, table, perm):
    """Orbit expansion over every adjacency code of nbits bits: the first code of each class not yet stamped is
    its representative r, and every P_p(r) gets the class id (0, 1, ... in order of r) in ``table`` and, where
    ``perm`` is an array (not None), the first relabelling p that reaches it.  Returns the representatives."""
    size = np.int64(1) << nbits
    reps = []
    nperm = perm_bitmaps.shape[0]
    cid = 0
    for code in range(size):
        if table[code] >= 0:
            continue
        reps.append(code)
        for p in range(nperm):
            out = _perm_code(code, perm_bitmaps[p], nbits)
            if table[out] < 0:
                table[out] = cid
                if perm is not None:
                    perm[out] = p
        cid += 1
    r = np.empty(len(reps), dtype=np.int64)
    for i in range(len(reps)):
        r[i] = reps[i]
    return r


@nb.njit(cache=True)
def build_class_table(perm_bitmaps, nbits):
    """Class id (0, 1, ... in order of the smallest code) of every k-vertex adjacency code.

    ``perm_bitmaps[p, b]`` is the bit that bit b moves to under relabelling p.
    Returns (table int32 of length 2**nbits, smallest code of each class).
    """
    table = np.full(np.int64(1) << nbits, -1, dtype=np.int32)
    return table, _orbit_expand(perm_bitmaps, nbits, table, None)


@nb.njit(cache=True)
def class_perm_table(perm_bitmaps, nbits):
    """Class id and relabelling of every adjacency bitmask of nbits bits (every class, disconnected ones too):
    (cls int16, perm int16, reps int64) with code = P_perm[code](reps[cls[code]]), perm the first relabelling
    that reaches the code (the k = 8 census's first lookup level, :mod:`la_gpm.motifs.census8`)."""
    size = np.int64(1) << nbits
    cls = np.full(size, -1, dtype=np.int16)
    perm = np.zeros(size, dtype=np.int16)
    return cls, perm, _orbit_expand(perm_bitmaps, nbits, cls, perm)


@nb.njit(cache=True)
def inclusion_counts(rep_codes, table, class_index, nclass):
    """M[i, j] = number of edge subsets of class j's representative that fall in class i.

    ``class_index`` maps a table class id to a row (-1 for classes not kept, e.g.
    disconnected ones).  Non-induced count of i = sum_j M[i, j] * induced count of j.
    """
    M = np.zeros((nclass, nclass), dtype=np.int64)
    for j in range(rep_codes.shape[0]):
        code = rep_codes[j]
        cj = class_index[table[code]]
        if cj < 0:
            continue
        s = code
        while True:
            ci = class_index[table[s]]
            if ci >= 0:
                M[ci, cj] += 1
            if s == 0:
                break
            s = (s - 1) & code
    return M



def vertex_pairs(k):
    return [(i, j) for j in range(1, k) for i in range(j)]


def bit(i, j):
    if i > j:
        i, j = j, i
    return j * (j - 1) // 2 + i


def code_edges(code, k):
    return [(i, j) for (i, j) in vertex_pairs(k) if (code >> bit(i, j)) & 1]


def is_connected_code(code, k):
    adj = [0] * k
    for i, j in code_edges(code, k):
        adj[i] |= 1 << j
        adj[j] |= 1 << i
    seen = 1
    frontier = 1
    while frontier:
        nxt = 0
        for v in range(k):
            if (frontier >> v) & 1:
                nxt |= adj[v]
        frontier = nxt & ~seen
        seen |= nxt
    return seen == (1 << k) - 1


@dataclass(frozen=True)
class Classes:
    k: int
    table: np.ndarray          # code -> row (connected classes), -1 for disconnected
    keys: tuple                # smallest code of each row's class
    edges: tuple               # edge list of each row (the key's edges)
    names: tuple
    M: tuple                   # inclusion matrix rows as tuples of Python ints (M[i][j])


def known_names(k):
    from .catalog import named_pattern
    names = {3: ["wedge", "triangle"],
             4: ["4-path", "4-star", "4-cycle", "tailed-triangle", "diamond", "4-clique"],
             5: ["5-path", "5-star", "5-cycle", "5-clique", "house", "hourglass", "fork", "cricket", "bull", "banner",
                 "tadpole", "dart", "kite", "k2,3", "k4+pendant", "book", "gem", "k2,3+e", "k4+wedge", "wheel",
                 "k5-e"]}.get(
        k, [f"{k}-path", f"{k}-star", f"{k}-cycle", f"{k}-clique"])
    return [(nm, named_pattern(nm)) for nm in names]


def connected_rows(bitmaps, nbits, connected):
    """The rows of the connected classes under the bit permutations ``bitmaps`` (one per vertex
    permutation): ``(table, keys, M)`` -- code -> row (-1: not connected), each row's smallest code, rows
    ordered by bit count then code, and the inclusion matrix (M[i][j]: copies of class j in class i).
    Shared by the undirected classes here and the directed ones (``la_gpm.motifs.directed``)."""
    raw, reps = build_class_table(bitmaps, nbits)
    reps = reps.tolist()
    conn = [c for c in range(len(reps)) if connected(reps[c])]
    conn.sort(key=lambda c: (bin(reps[c]).count("1"), reps[c]))
    index = np.full(len(reps), -1, dtype=np.int64)
    for row, c in enumerate(conn):
        index[c] = row
    table = index[raw].astype(np.int32)
    keys = tuple(reps[c] for c in conn)
    return table, keys, inclusion_counts(np.array(keys, dtype=np.int64), raw, index, len(conn)), raw, conn


@functools.lru_cache(maxsize=None)
def classes(k: int) -> Classes:
    pairs = vertex_pairs(k)
    nbits = len(pairs)
    perms = list(itertools.permutations(range(k)))
    bitmaps = np.empty((len(perms), nbits), dtype=np.int64)
    for p, perm in enumerate(perms):
        for b, (i, j) in enumerate(pairs):
            bitmaps[p, b] = bit(perm[i], perm[j])
    table, keys, M, _, _ = connected_rows(bitmaps, nbits, lambda code: is_connected_code(code, k))
    names = [None] * len(keys)
    for nm, P in known_names(k):
        code = sum(1 << bit(i, j) for i, j in P.edges)
        row = int(table[code])
        if names[row] is None:
            names[row] = nm
    names = [nm if nm is not None else f"{k}-class-{row}" for row, nm in enumerate(names)]
    return Classes(k=k, table=table, keys=keys, edges=tuple(tuple(code_edges(c, k)) for c in keys),
                    names=tuple(names), M=tuple(tuple(int(x) for x in row) for row in M))


def to_induced(M, N):
    """Solve N = M · I exactly (M unitriangular in edge order): back-substitution over Python ints."""
    r = len(N)
    out = [0] * r
    for i in range(r - 1, -1, -1):
        s = N[i]
        row = M[i]
        for j in range(i + 1, r):
            if row[j]:
                s -= row[j] * out[j]
        if row[i] != 1:
            raise AssertionError("inclusion matrix must be unitriangular")
        out[i] = s
    return out


def to_noninduced(M, I):
    return [sum(M[i][j] * I[j] for j in range(len(I)) if M[i][j]) for i in range(len(I))]


# --------------------------------------------------------------------------- canonical bitmasks (k = 8)


_POP8 = np.array([bin(x).count("1") for x in range(256)], dtype=np.int64)     # bits of an adjacency row (k <= 8)


@nb.njit(inline="always")
def _code_of(adj, order, k):
    """The bitmask of the graph ``adj`` (rows as bitmasks) with vertex order[i] renamed i, branch-free."""
    code = 0
    p = 0
    for j in range(1, k):
        row = adj[order[j]]
        for a in range(j):
            code |= ((row >> order[a]) & 1) << p
            p += 1
    return code


@nb.njit(inline="always")
def _invariants(c, k, adj, deg, inv):
    """Rows ``adj`` and degrees ``deg`` of the k-vertex bitmask ``c`` (k <= 8), and each vertex's
    isomorphism-invariant key ``inv`` (degree, sum of neighbour degrees, triangles through it), branch-free: :func:`canonical_codes`' sort key, which
    :func:`ordered_codes` extends by the vertex id."""
    for v in range(k):
        adj[v] = 0
    p = 0
    for j in range(1, k):           # (branch-free: a sample's bits are unpredictable)
        for a in range(j):
            b = (c >> p) & 1
            adj[a] |= b << j
            adj[j] |= b << a
            p += 1
    for v in range(k):
        deg[v] = _POP8[adj[v]]
    for v in range(k):
        s = 0
        tri = 0
        av = adj[v]
        for u in range(k):
            b = (av >> u) & 1
            s += b * deg[u]
            tri += b * _POP8[av & adj[u]]
        inv[v] = (deg[v] * 4096 + s) * 4096 + tri


@nb.njit(inline="always")
def _next_perm(order, lo, hi):
    """Next lexicographic permutation of order[lo:hi] in place; False (and sorted again) after the last."""
    i = hi - 2
    while i >= lo and order[i] >= order[i + 1]:
        i -= 1
    if i < lo:
        # wrap: reverse back to ascending
        a, b = lo, hi - 1
        while a < b:
            order[a], order[b] = order[b], order[a]
            a += 1
            b -= 1
        return False
    j = hi - 1
    while order[j] <= order[i]:
        j -= 1
    order[i], order[j] = order[j], order[i]
    a, b = i + 1, hi - 1
    while a < b:
        order[a], order[b] = order[b], order[a]
        a += 1
        b -= 1
    return True


@nb.njit(parallel=True, cache=True)
def canonical_codes(codes, k):
    """Canonical adjacency bitmask of each k-vertex graph, k <= 8 (isomorphic graphs <=> equal outputs).

    Vertices are sorted by an isomorphism-invariant key (degree, sum of neighbour degrees, triangles
    through the vertex); the result is the smallest bitmask over the vertex orders that keep that
    sort (every permutation inside each block of equal keys).  Isomorphic graphs have the same set
    of such orders up to relabelling, hence the same minimum.  The keys of ``census(G, 8)`` and of the
    estimated census (la_gpm.motif_estimate reads this function), so the two compare row by row.
    """
    m = codes.shape[0]
    out = np.empty(m, dtype=np.int64)
    for t in nb.prange(m):
        adj = np.empty(k, dtype=np.int64)
        deg = np.empty(k, dtype=np.int64)
        inv = np.empty(k, dtype=np.int64)
        _invariants(codes[t], k, adj, deg, inv)
        order = np.argsort(inv, kind="mergesort")
        # blocks of equal invariants; inside each block the vertices ascend (start of the enumeration)
        starts = np.zeros(k + 1, dtype=np.int64)
        nbk = 0
        for p in range(k):
            if p == 0 or inv[order[p]] != inv[order[p - 1]]:
                starts[nbk] = p
                nbk += 1
        starts[nbk] = k
        for b in range(nbk):
            lo, hi = starts[b], starts[b + 1]
            for a in range(lo, hi):             # insertion sort by vertex id
                for q in range(a, lo, -1):
                    if order[q] < order[q - 1]:
                        order[q], order[q - 1] = order[q - 1], order[q]
        best = _code_of(adj, order, k)
        while True:
            b = nbk - 1
            while b >= 0:
                if _next_perm(order, starts[b], starts[b + 1]):
                    break
                b -= 1
            if b < 0:
                break
            cc = _code_of(adj, order, k)
            if cc < best:
                best = cc
        out[t] = best
    return out


_ORDERED_CHUNK = 1024       # ordered_codes: codes per task (its scratch is allocated once a task)


@nb.njit(parallel=True, cache=True)
def ordered_codes(codes, k):
    """Each k-vertex graph's bitmask (k <= 8) with its vertices in the order of :func:`canonical_codes`' invariant,
    ties by vertex id: the first order that function tries, without its search over the orders of tied vertices.

    Equal outputs are isomorphic graphs (each is a relabelling of its input), so ``canonical_codes`` of an output is
    that of its input: a cache keyed by these outputs holds far fewer keys than one keyed by the inputs (the
    labelled bitmasks of a sampler, whose vertex order is that of the walk).  Not canonical: isomorphic graphs with
    tied invariants may give different outputs.  Allocation-free per code (a few arrays per task of
    ``_ORDERED_CHUNK`` codes) and branch-free: 2-7x cheaper per code than ``canonical_codes`` on 2 cores (sampled
    8-vertex graphlets of wiki-Vote; random bitmasks).
    """
    m = codes.shape[0]
    out = np.empty(m, dtype=np.int64)
    ntask = (m + _ORDERED_CHUNK - 1) // _ORDERED_CHUNK
    for task in nb.prange(ntask):
        adj = np.empty(k, dtype=np.int64)
        deg = np.empty(k, dtype=np.int64)
        key = np.empty(k, dtype=np.int64)
        order = np.empty(k, dtype=np.int64)
        for t in range(task * _ORDERED_CHUNK, min(m, (task + 1) * _ORDERED_CHUNK)):
            _invariants(codes[t], k, adj, deg, key)
            for v in range(k):              # canonical_codes' invariant, then the vertex id (its start order
                key[v] = key[v] * 64 + v    # inside a block of ties)
            for v in range(k):              # insertion sort of the k keys (distinct: the id is in them)
                order[v] = v
                q = v
                while q > 0 and key[order[q - 1]] > key[v]:
                    order[q] = order[q - 1]
                    q -= 1
                order[q] = v
            out[t] = _code_of(adj, order, k)
    return out
