"""The 5-vertex hybrid: non-induced counts of every connected 5-vertex class without enumerating 5-subsets.

* the ten classes with a degree-1 vertex w (attached at a, P = Q - w) from the 4-vertex per-vertex
  orbit sums: inj(Q) = |Stab_P(a)| Σ_v d_v σ_orb(a)(v) - deg_P(a) inj(P) - Σ_{b≁a} inj(P+ab)
  (:func:`pendant_plans`);
* the eleven classes of minimum degree >= 2 from their induced copies, each spanned by a C5, K2,3 or
  bowtie copy: the listed copies, classified, divided by those spanning copies (:func:`dense_divisors`).

:func:`hybrid5_solve` turns those inputs into the counts for both backends (the CPU's
:func:`hybrid5_noninduced` and ``la_gpm.motifs.gpu.hybrid5_noninduced``); :func:`hybrid5_auto_inputs`
and :func:`dense_copy_counts` feed both backends' rule for choosing the hybrid over enumeration.
See docs/census.md for the measurements behind the thresholds.
"""

from __future__ import annotations

import functools

import numpy as np

from ..patterns.classes import bit, classes, to_induced
from ..patterns.pattern import Pattern
from .closed_forms import closed_form_noninduced, noninduced_orbits
from .common import check_safe, column_sums, exact_sum, nchunks, weighted_sum
from .orbit_equations import orca_orbit

__all__ = ["CPU_HYBRID_MAX_COPIES_PER_SUBSET", "hybrid5_noninduced", "cpu_prefers_hybrid", "hybrid5_auto_inputs",
           "dense_copy_counts", "hybrid5_solve", "pendant_plans", "dense_divisors"]

# k = 5, method="auto" on the CPU: below this many connected 4-vertex subsets enumeration wins, the
# hybrid's passes cost more (2 cores, fresh graph each run: karate, 2,363 subsets, 0.84 against 0.29 ms;
# G(100, 300), 11,313, 0.65 / 0.66 ms; G(200, 600), 26,569, 1.25 / 1.81 ms; citeseer 5.8 / 17.8 ms;
# docs/census.md)
_CPU_SMALL_ENUMERATION = 10_000
# k = 5, method="auto" on the CPU: the hybrid while the K2,3 + bowtie copies are at most this many per
# connected 4-vertex subset (measured on 2 cores with both bulk rules, docs/census.md: the hybrid wins
# at 0.2-16.7 copies per subset, by 1.1-11x, and loses at 26, 2.45 against 1.75 s)
CPU_HYBRID_MAX_COPIES_PER_SUBSET = 20


def _min_degree(edges, k):
    deg = [0] * k
    for a, b in edges:
        deg[a] += 1
        deg[b] += 1
    return min(deg)


def _class_row(k, edges):
    return int(classes(k).table[sum(1 << bit(a, b) for a, b in edges)])


@functools.lru_cache(maxsize=None)
def pendant_plans():
    """For each 5-class with a degree-1 vertex w (attached at a), the terms of

        inj(Q) = |Stab_P(a)| Σ_v d_v σ_orb(a)(v) - deg_P(a) inj(P) - Σ_{b ≁ a} inj(P + ab),

    with P = Q - w.  Returns {row: (orbit, stab, [(coef, 4-class row)], |Aut Q|)}: the
    inj terms as multiples of non-induced 4-class counts (inj = |Aut| · count).
    """
    cls = classes(5)
    plans = {}
    for row, E in enumerate(cls.edges):
        deg = [0] * 5
        for a, b in E:
            deg[a] += 1
            deg[b] += 1
        if min(deg) != 1:
            continue
        w = deg.index(1)
        a = next(y if x == w else x for x, y in E if w in (x, y))
        keep = [v for v in range(5) if v != w]
        ren = {v: i for i, v in enumerate(keep)}
        EP = [(ren[x], ren[y]) for x, y in E if w not in (x, y)]
        ap = ren[a]
        o = orca_orbit(4, EP, ap)
        orbit_size = sum(1 for x in range(4) if orca_orbit(4, EP, x) == o)
        autP = Pattern(EP, k=4).automorphism_count
        degP = sum(1 for x, y in EP if ap in (x, y))
        terms = [(-degP * autP, _class_row(4, EP))]
        adj = {(min(x, y), max(x, y)) for x, y in EP}
        for b in range(4):
            if b != ap and (min(ap, b), max(ap, b)) not in adj:
                E2 = EP + [(ap, b)]
                terms.append((-Pattern(E2, k=4).automorphism_count, _class_row(4, E2)))
        plans[row] = (o, autP // orbit_size, terms, Pattern(E, k=5).automorphism_count)
    return plans


@functools.lru_cache(maxsize=None)
def dense_divisors():
    """Rows of the 5-classes with minimum degree >= 2 and, for each, copies of C5 + K2,3 + bowtie in it."""
    cls = classes(5)
    spanning = [_class_row(5, [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)]),
                _class_row(5, [(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)]),
                _class_row(5, [(0, 1), (0, 2), (1, 2), (0, 3), (0, 4), (3, 4)])]
    out = {}
    for row, E in enumerate(cls.edges):
        if _min_degree(E, 5) >= 2:
            f = sum(cls.M[s][row] for s in spanning)
            if f <= 0:
                raise AssertionError(f"5-class {row} has no spanning C5, K2,3 or bowtie")
            out[row] = f
    return out


def hybrid5_noninduced(G, decline=False):
    """Non-induced counts of every 5-class on the CPU: pendant classes from 4-vertex orbit sums, dense
    classes (minimum degree >= 2) from their induced copies, found through C5 / K2,3 / bowtie.

    With ``decline``, return None when enumeration is the cheaper way (:func:`cpu_prefers_hybrid`).
    """
    from .cpu import BOWTIE_BULK, K23_COMB, dense5_hits

    cls = classes(5)
    nrow = len(cls.keys)
    if G.n == 0:
        return [0] * nrow
    check_safe(G)
    N4 = closed_form_noninduced(G, 4)
    connected4 = sum(to_induced(classes(4).M, N4))
    if decline and connected4 < _CPU_SMALL_ENUMERATION:
        return None
    sigma, extra = noninduced_orbits(G, 4, with_extra=True)
    if decline and not cpu_prefers_hybrid(connected4, *dense_copy_counts(sigma, extra[:, 0])):
        return None
    hits = dense5_hits(G.indptr, G.indices, G.degree_rank, cls.table, nrow, nchunks(), K23_COMB, BOWTIE_BULK)
    return hybrid5_solve(cls, column_sums(hits), sigma, N4)


def cpu_prefers_hybrid(connected4: int, k23: int, bowtie: int) -> bool:
    """method="auto", k = 5, cpu backend: the hybrid, unless enumeration is the cheaper way: fewer than
    ``_CPU_SMALL_ENUMERATION`` connected 4-vertex subsets to extend (it then takes under a millisecond),
    or more than ``CPU_HYBRID_MAX_COPIES_PER_SUBSET`` K2,3 + bowtie copies per such subset.

    >>> cpu_prefers_hybrid(76_200_000, 160_000_000, 157_000_000)   # email-Eu-core: 4.2 per subset
    True
    >>> cpu_prefers_hybrid(362_232, 18_576, 16_034)                  # citeseer
    True
    >>> cpu_prefers_hybrid(2_363, 1_000, 2_000)                      # karate-sized: enumerate
    False
    """
    return connected4 >= _CPU_SMALL_ENUMERATION and k23 + bowtie <= CPU_HYBRID_MAX_COPIES_PER_SUBSET * connected4


def hybrid5_auto_inputs(G):
    """(connected 4-vertex subsets, K2,3 copies, bowtie copies) of G from the closed forms on the CPU:
    the inputs of both backends' k = 5 auto rules (:func:`cpu_prefers_hybrid`, ``gpu_prefers_hybrid``)."""
    connected4 = sum(to_induced(classes(4).M, closed_form_noninduced(G, 4)))
    sigma, extra = noninduced_orbits(G, 4, with_extra=True)
    return (connected4, *dense_copy_counts(sigma, extra[:, 0]))


def dense_copy_counts(sigma, k23hub):
    """(K2,3 copies, bowtie copies) in closed form from the 4-vertex orbit counts σ and the K2,3 copies
    with each vertex on the 2-side (both backends: what the hybrid's listing must find)."""
    tv = sigma[:, 3]
    return exact_sum(k23hub) // 2, exact_sum(tv * (tv - 1) // 2 - sigma[:, 13])


def hybrid5_solve(cls, hits, sigma, N4):
    """Non-induced counts of every 5-class from the dense classes' listed copies ``hits`` (per class
    row, Python ints), the 4-vertex orbit counts σ and the non-induced 4-vertex counts N4 (both
    backends). Every division must be exact, else AssertionError (a wrong count is never returned)."""
    I_dense = {}
    for j, f in dense_divisors().items():
        q, r = divmod(hits[j], f)
        if r:
            raise AssertionError(f"dense 5-class {j}: {hits[j]} copies is not a multiple of {f}")
        I_dense[j] = q
    N = [0] * len(cls.keys)
    for i in I_dense:
        N[i] = sum(cls.M[i][j] * I_dense[j] for j in I_dense if cls.M[i][j])
    deg = sigma[:, 0].astype(np.int64)
    sums = {}
    for i, (o, stab, terms, autQ) in pendant_plans().items():
        if o not in sums:
            sums[o] = weighted_sum(deg, sigma[:, o])
        inj = stab * sums[o] + sum(c * N4[r] for c, r in terms)
        q, r = divmod(inj, autQ)
        if r:
            raise AssertionError(f"pendant 5-class {i}: {inj} embeddings is not a multiple of |Aut| = {autQ}")
        N[i] = q
    return N
