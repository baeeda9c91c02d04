"""Query analysis for batch-dynamic matching: one matching order per start pair.

A work item maps a query pair (a, b) onto an updated data pair (x, y) (a -> x, b -> y), so
there is one plan per *directed* query pair: both orientations of every query edge and, for
induced matching, of every query non-edge (an induced match also changes when a deletion
removes the edge between the images of two non-adjacent query vertices).

Order (notes/001_gamma.md §2.4): a, b first; then greedily the vertex with the most earlier
neighbours (its candidates are the intersection of their rows), then the highest query degree,
then the rarest label.  Every later vertex has at least one earlier neighbour (Q is connected).

Kernel tables, shape (P, k, k) unless said (P plans, level l, slot s), all int32:
``order[p, l]`` query vertex at level l; ``npar/par`` earlier levels adjacent to it (candidates
come from their rows); ``parel`` the edge label each parent edge needs (-1: any);
``nanti/anti`` earlier levels not adjacent to it (induced: must stay non-adjacent);
``ninj/inj`` earlier non-parent levels (injectivity: the candidate must differ from them);
``indep[p]`` 1 where the last level's candidates do not depend on the level before it (only
injectivity ties them: the last two levels are then counted as |S| × |S'| − |S ∩ S'|), 2 / 3 where a
symmetry bound also ties them (last > / < the level before: pairs counted by one merge), else 0;
``nlow/low``, ``nup/up`` (symmetry breaking): earlier levels whose data vertex the candidate must
exceed / stay below; ``pair_edge[p]`` 1 where the start pair is a query edge; ``pair_el[p]`` its edge
label (-1: any); ``pair_cond[p]`` 1 / 2 where the start pair itself needs x < y / x > y.

Reuse of intersections (RapidFlow's idea; CPU search only, in :attr:`DeltaPlan.packed` alone):
``reuse[p, l]`` 1 (2 where the two levels' NLF filters are equal) where every valid candidate of level l
is provably in level l-1's candidate set (the sorted buffer the search holds for the current path), so
level l may scan that set instead of a parent row.  Conditions (:func:`_reuse_tables`): (1) l-1 is a
parent of l, and every parent of l-1 is a parent of l with the same edge label; (2) every anti level of
l-1 is one of l (induced); (3) every vertex passing l's NLF filter passes l-1's; (4) l-1's symmetry
bounds follow from l's: each is one of l's, or l itself is bounded by l-1 the same way (c > M[l-1] >
M[a]).  Injectivity then follows (a non-parent of l before l-1 is a non-parent of l-1), and so do the
anti levels (those of l before l-1 are non-parents of l-1, so anti levels of l-1: with (2) the two
sets are equal, and induced reuse needs exactly l-1's parents plus l-1).  What is left to check:
``nxp/xp`` the *extra parents* (slots into ``par``: parents of l not parents of l-1, l-1 among them),
``nxlow/xlow``, ``nxup/xup`` the extra bound levels (levels of low / up of l that are neither bounds of
l-1 nor l-1) and ``rbound`` 1 / 2 where l is bounded below / above by l-1 itself (the window then starts
after / ends before l-1's position in the set).  The candidate bit of l needs a check only where the
filters differ (``reuse`` 1); it prunes, it never decides a match.

Symmetry breaking (Grochow & Kellis conditions f(a) < f(b), :attr:`Pattern.symmetry_conditions`)
keeps one embedding per subgraph.  It composes with the exactly-once rule: every changed embedding
is found once, and exactly one embedding of each changed subgraph passes the conditions (an
automorphism maps the image's edges onto themselves, so all |Aut| embeddings of a subgraph change
together).  Counts then come |Aut| times cheaper; embeddings = that × |Aut|.

One start pair per orbit (``orbits``, the default; GAMMA's "coalesced search over automorphic query
edges").  An embedding f maps exactly one ordered query pair onto the ordered update (x, y), and E(a, b),
the embeddings with f(a) = x, f(b) = y, is the same for every pair of an orbit of Aut(Q) on the pairs (f ∘ σ).
So the embeddings through (x, y) are Σ over orbits O of |O| E(r_O), one representative r_O each, and the
unique count is that over |Aut| = Σ_O E(r_O) / |Stab(r_O)| (orbit-stabiliser).  The stabiliser of r_O =
(a, b) acts freely on the embeddings with f(a) = x, f(b) = y, so its own Grochow-Kellis conditions
(:meth:`Pattern.stabilizer_conditions`, none on a or b) keep one of each |Stab| of them: a plan per orbit,
each bounded by its stabiliser, counts every changed subgraph once, and lists it once (all embeddings onto
one subgraph map their pair onto (x, y) from one orbit).  Against a plan per ordered pair bounded by Aut(Q):
as many matches found, |orbits| instead of 2|E| level-2 scans per update (a 4-clique: 1 instead of 12), and
fewer bounds (a level without bounds can be counted from the label counts).
"""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from dataclasses import dataclass

import numpy as np

from ..exceptions import InvalidPattern, PatternTooLarge
from ..patterns import Pattern

__all__ = ["DeltaPlan", "compile_delta_plan", "MAX_DYNAMIC_VERTICES"]

MAX_DYNAMIC_VERTICES = 32   # the candidate table holds one bit per query vertex (uint32)
# fields of DeltaPlan.packed(), in the order of DeltaPlan.tables()
(F_ORDER, F_NPAR, F_PAR, F_PAREL, F_NANTI, F_ANTI, F_NINJ, F_INJ, F_NLOW, F_LOW, F_NUP, F_UP, F_INDEP) = range(13)
# CPU-only fields after them (not in tables(): the GPU kernel reads the thirteen above): F_REUSE[p, l, 0] the
# reuse flag of level l >= 3 (at level 0: 1 where plan p has such a level), [.., 1] rbound, [.., 2] nxp;
# F_NXB[p, l, 0 / 1] nxlow / nxup; F_XP the slots of the extra parents; F_XLOW / F_XUP the extra bound levels
# (see the module notes)
(F_REUSE, F_NXB, F_XP, F_XLOW, F_XUP) = range(13, 18)
# F_LEAF[p, l, 0]: 1 where level l's candidates may be counted rather than scanned (cpu._leaf: the query vertex has
# degree 1, level l one parent, no anti level, symmetry bound or edge label), 2 where it has one bound, against
# level l - 1 (counted only with it, as pairs); CPU-only, the per-update path's
F_LEAF = 18
# F_TRI[p, 0, :4] = (mode, parent level pw, halve, memo column), F_TRI[p, 1, :2] = query vertices (u, v) of two
# levels that close a triangle on one earlier vertex and nothing else: the last two (mode 1), or the two before a
# last leaf level (mode 2); cpu._tri_tail counts them from a memo of the triangles at M[pw] in the per-update path.
# Mode 3: mode 1 whose pw is the level just before u, with one parent pf and nothing else, of u's and v's label
# (w, u and v one label, or none): the tail from w on, summed over w in the row of M[pf] at once (cpu._tri_tail3).
# Mode 4: a fork, no triangle in the query: u on w = M[pw], then leaves v on u and t on w of one label (either order);
# the pairs (v, t) that would be one vertex are the triangles at w (query._fork_levels, cpu._fork_tail).  CPU-only
F_TRI = 19
# F_TWIN[p, 0, :2] = (first level tw, kind) where levels tw .. k-1 (at least three) are twins: query vertices of one
# label and filter with the same parents (all before tw, the same edge labels), no edge among them, no anti level,
# and the same bounds against the levels before tw; kind 1 / 2 where the bounds among them make a chain ascending /
# descending in level order: then the images are the r-subsets of one set, C(c, r).  cpu._twins counts them from the
# size c of the first twin level's set instead of enumerating them (a book's pages, a star's leaves).  Twins are
# automorphic, so the symmetry breaking that counting always uses bounds them (without bounds, only when listing,
# they are enumerated).  F_TWIN[p, 0, 2] = m > 2 where levels m .. k-1 (group B) depend on levels 0, 1 and B alone:
# their parents and bounds are there, and no label of B is one of levels 2 .. m-1 (group A), so no candidate of B can
# be an image of A (not induced, no triangle tail: those read mapped vertices).  Then B's completions are the same for
# every image of A within an item: cpu._run_item counts them once and adds that count for every other image of A
# (a labelled path from its middle: its two sides).  F_TWIN[p, 1, 0] = m > 3 where levels m .. k-1 (at least two)
# depend on levels 0, 1, m - 1 and themselves alone, with no label of levels 2 .. m - 2 (the same rule with one more
# level allowed, the one before the group): their completions are a function of level m - 1's image, counted once
# per image within an item (cpu's root memo; a labelled path from its end).  Kinds 3 / 4 of F_TWIN[p, 0, 1]: closed
# twins (query._closed_twin_groups: pairwise adjacent by one edge label, F_TWIN[p, 1, 1] = that label + 1, 0 for
# none), each level's parents tw's and the tail levels before it: the images are the r-cliques of level tw's set,
# counted by cpu._clique_tail (a clique's vertices of one label).  CPU-only (the GPU reads kinds 1 / 2 alone)
F_TWIN = 20
N_FIELDS = 21
REUSE = True   # compile_delta_plan's default for ``reuse`` (tests and benchmarks switch it off)
TWINS = True   # ... and for ``twins``: the tails of F_TWIN (twin levels, a last group) counted, not enumerated
ORBITS = True  # ... and for ``orbits``: one start pair per orbit of Aut(Q) (module notes)


@dataclass(frozen=True, eq=False)
class DeltaPlan:
    k: int
    pairs: np.ndarray      # (P, 2) query vertices (a, b) of each start pair
    pair_edge: np.ndarray  # (P,)
    pair_el: np.ndarray    # (P,)
    order: np.ndarray      # (P, k)
    npar: np.ndarray       # (P, k)
    par: np.ndarray        # (P, k, k)
    parel: np.ndarray      # (P, k, k)
    nanti: np.ndarray      # (P, k)
    anti: np.ndarray       # (P, k, k)
    ninj: np.ndarray       # (P, k)
    inj: np.ndarray        # (P, k, k)
    nlow: np.ndarray       # (P, k)
    low: np.ndarray        # (P, k, k)
    nup: np.ndarray        # (P, k)
    up: np.ndarray         # (P, k, k)
    pair_cond: np.ndarray  # (P,)
    indep: np.ndarray      # (P,) 1 where the last level does not depend on the one before (see cpu.py)
    induced: bool
    symmetry: bool
    reuse: tuple = None    # CPU-only reuse tables (reuse, rbound, nxp, xp, nxlow, xlow, nxup, xup)
    leaf: np.ndarray = None  # (P, k) CPU-only: 1 where a level may be counted from the label counts (F_LEAF)
    tri: np.ndarray = None   # (P, 6) CPU-only: flag, pw, halve, memo column, u, v (F_TRI)
    twin: np.ndarray = None  # (P, 5) CPU-only: first twin level, kind, first level of an independent last group, of a
    #                          last group rooted at the level before it, closed twins' edge label + 1 (F_TWIN)

    @cached_property
    def rooted(self) -> bool:
        """Whether a plan has a last group counted once per image of its root (F_TWIN[p, 1, 0]: the root memo's
        rows of the mark array)."""
        return self.twin is not None and bool(self.twin[:, 3].any())

    @cached_property
    def tri_columns(self) -> int:
        """How many triangle memo columns the plans use (one per label pair of a triangle tail, F_TRI)."""
        if self.tri is None or not self.tri[:, 0].any():
            return 0
        return int(self.tri[self.tri[:, 0] > 0, 3].max()) + 1

    @cached_property
    def packed(self) -> np.ndarray:
        """The tables in one int32 array ``T[field, p, l, s]`` (fields F_ORDER ... F_INDEP; 2-D tables in
        slot 0, ``indep`` at level 0; then the CPU-only reuse fields F_REUSE ... F_XUP): the numba kernels
        take one array instead of thirteen (each array argument of a call costs reference counting: 3x on
        the search loop, measured)."""
        P, k = self.order.shape
        T = np.zeros((N_FIELDS, P, k, k), np.int32)
        for f, a in enumerate(self.tables()[:12]):
            if a.ndim == 2:
                T[f, :, :, 0] = a
            else:
                T[f] = a
        T[F_INDEP, :, 0, 0] = self.indep
        if self.reuse is not None and k >= 4:   # (levels >= 3 only: none below k = 4, which has 4 slots)
            reuse, rbound, nxp, xp, nxlow, xlow, nxup, xup = self.reuse
            T[F_REUSE, :, :, 0] = reuse
            T[F_REUSE, :, 0, 0] = reuse.any(axis=1)   # level 0 never reuses: there, whether plan p has a level
            T[F_REUSE, :, :, 1] = rbound                #  that does (which build of the search runs it)
            T[F_REUSE, :, :, 2] = nxp
            T[F_NXB, :, :, 0] = nxlow
            T[F_NXB, :, :, 1] = nxup
            T[F_XP] = xp
            T[F_XLOW] = xlow
            T[F_XUP] = xup
        if self.leaf is not None:
            T[F_LEAF, :, :, 0] = self.leaf
        if self.tri is not None and k >= 4:
            T[F_TRI, :, 0, :4] = self.tri[:, :4]
            T[F_TRI, :, 1, :2] = self.tri[:, 4:]
        if self.twin is not None and k >= 5:
            T[F_TWIN, :, 0, :3] = self.twin[:, :3]
            T[F_TWIN, :, 1, 0] = self.twin[:, 3]
            T[F_TWIN, :, 1, 1] = self.twin[:, 4]
        return T

    def tables(self):
        return (self.order, self.npar, self.par, self.parel, self.nanti, self.anti, self.ninj, self.inj,
                self.nlow, self.low, self.nup, self.up, self.indep)


def _twin_groups(P: Pattern) -> list[set]:
    """The classes of three or more query vertices with one label and the same neighbours by the same edge labels
    (so pairwise non-adjacent): a book's pages, a star's leaves, K_{2,r}'s far side."""
    lab = P.vertex_labels
    groups: dict = {}
    for v in range(P.k):
        nb = tuple(sorted((u, None if P.edge_labels is None else P._elabel(u, v)) for u in P.neighbors(v)))
        groups.setdefault((None if lab is None else lab[v], nb), set()).add(v)
    return [g for g in groups.values() if len(g) >= 3]


def _closed_twin_groups(P: Pattern) -> list[set]:
    """The classes of three or more query vertices with one label, pairwise adjacent by one edge label, and the
    same other neighbours by the same edge labels (closed twins): a clique's vertices of one label.  Their images
    in a match are an r-clique of one candidate set (cpu._clique_tail counts them)."""
    lab = P.vertex_labels
    el = (lambda u, v: None) if P.edge_labels is None else P._elabel
    groups: dict = {}
    for v in range(P.k):
        groups.setdefault((None if lab is None else lab[v], frozenset(P.neighbors(v)) | {v}), set()).add(v)
    out = []
    for g in groups.values():
        if len(g) < 3:
            continue
        inner = {el(u, v) for u in g for v in g if u < v}
        outer = {u for v in g for u in P.neighbors(v)} - g
        if len(inner) == 1 and all(len({el(u, v) for v in g}) == 1 for u in outer):
            out.append(g)
    return out


def _split(P: Pattern, a: int, b: int):
    """(A, B): the vertices other than a, b as two groups with no edge between them and no label in common (B the
    largest component of P - {a, b}, A the rest), or None (unlabelled P, one component, a shared label)."""
    lab = P.vertex_labels
    if lab is None:
        return None
    comps = P.components(set(range(P.k)) - {a, b})
    if len(comps) < 2:
        return None
    B = max(comps, key=lambda c: (len(c), -min(c)))
    A = set().union(*[c for c in comps if c is not B])
    if {lab[v] for v in A} & {lab[v] for v in B}:
        return None
    return A, B


def _order(P: Pattern, a: int, b: int, cand) -> list[int]:
    order = [a, b]
    left = set(range(P.k)) - {a, b}
    # the remaining vertices as two label-disjoint groups (_split): one after the other, the larger last, so that
    # its completions are counted once per item, not once per image of the first (F_TWIN slot 2); each group in
    # the order below
    groups = _split(P, a, b) if P.k >= 5 else None
    for g in (groups or (left,)):
        _order_group(P, order, set(g), cand, a, b)
    return order


def _order_group(P: Pattern, order: list, left: set, cand, a: int, b: int) -> None:
    adj = P.adjacency
    # twins (three or more of one class, _twin_groups) go last, so that a plan's last levels can be counted as
    # subsets of one set (F_TWIN) instead of enumerated with everything after them; then leaves (query degree 1):
    # their parents come before them, and the last two levels are then independent (counted as a product, see
    # cpu.py).  A later tier is drawn from only where no vertex of an earlier one is adjacent to the order yet.
    groups = _twin_groups(P) + _closed_twin_groups(P)
    twins = set().union(*[g - {a, b} for g in groups if len(g - {a, b}) >= 3]) & left
    leaves = {v for v in left - twins if P.degrees[v] == 1}
    if not (len(leaves) >= 2 and len(left) > len(leaves) + len(twins)):
        leaves = set()
    tiers = [left - twins - leaves, leaves, twins]

    def key(v):
        back = sum(1 for u in order if adj[u, v])
        return (back, -int(cand[v]).bit_length(), P.degrees[v], -v)
    while any(tiers):
        tier = next((t for t in tiers if any(adj[u, v] for v in t for u in order)), None)
        if tier is None:                        # only when Q is disconnected (rejected earlier)
            raise InvalidPattern("matching needs a connected query")
        v = max(tier, key=key)
        order.append(v)
        tier.remove(v)


def compile_delta_plan(P: Pattern, *, induced: bool = False, candidates=None, symmetry: bool = True,
                       reuse: bool | None = None, orbits: bool | None = None,
                       twins: bool | None = None) -> DeltaPlan:
    """One plan per directed start pair of P (see the module notes).

    ``candidates[u]``: how many data vertices may play query vertex u (orders take the most
    constrained vertex first, then the one with fewer candidates, then higher degree);
    ``symmetry``: add the symmetry-breaking bounds (one embedding per subgraph); ``reuse``: mark the
    levels that may draw their candidates from the level before (None: the module's ``REUSE``); ``orbits``
    (with ``symmetry``; None: the module's ``ORBITS``): one start pair per orbit of Aut(P) on the start pairs,
    bounded by its stabiliser's conditions, instead of every start pair bounded by Aut(P)'s; ``twins`` (None: the
    module's ``TWINS``): mark the tails the search counts rather than enumerates (F_TWIN: a tail of twin levels,
    counted from one level's set; a last group that depends on the start pair alone, counted once per item).  The
    matching orders that make such tails (twins last, label-disjoint sides one after the other) do not depend on it."""
    if P.k < 2 or P.num_edges == 0:
        raise InvalidPattern(f"a query needs at least one edge; got {P!r}")
    if P.k > MAX_DYNAMIC_VERTICES:
        raise PatternTooLarge(f"match_delta supports queries of up to {MAX_DYNAMIC_VERTICES} vertices; got k={P.k}")
    P.require_connected("matching")
    k = P.k
    cand = np.ones(k, np.int64) if candidates is None else np.asarray(candidates, np.int64)
    adj = P.adjacency
    starts = [(u, v) for u, v in P.edges] + [(v, u) for u, v in P.edges]
    if induced:
        non = [(u, v) for u in range(k) for v in range(u + 1, k) if not adj[u, v]]
        starts += non + [(v, u) for u, v in non]
    if not symmetry:
        conds_of = [set()] * len(starts)
    elif (ORBITS if orbits is None else orbits) and P.automorphism_count > 1:
        # one start pair per orbit of Aut(P) on the pairs, bounded by the conditions of its stabiliser (module notes)
        starts = [o[0] for o in P.pair_orbits(starts)]
        conds_of = [set(P.stabilizer_conditions(s)) for s in starts]
    else:
        conds_of = [set(P.symmetry_conditions)] * len(starts)
    n = len(starts)
    order = np.zeros((n, k), np.int32)
    npar = np.zeros((n, k), np.int32)
    par = np.zeros((n, k, k), np.int32)
    parel = np.full((n, k, k), -1, np.int32)
    nanti = np.zeros((n, k), np.int32)
    anti = np.zeros((n, k, k), np.int32)
    ninj = np.zeros((n, k), np.int32)
    inj = np.zeros((n, k, k), np.int32)
    nlow = np.zeros((n, k), np.int32)
    low = np.zeros((n, k, k), np.int32)
    nup = np.zeros((n, k), np.int32)
    up = np.zeros((n, k, k), np.int32)
    pair_edge = np.zeros(n, np.int32)
    pair_el = np.full(n, -1, np.int32)
    pair_cond = np.zeros(n, np.int32)
    for p, (a, b) in enumerate(starts):
        conds = conds_of[p]
        o = _order(P, a, b, cand)
        order[p] = o
        pair_cond[p] = 1 if (a, b) in conds else 2 if (b, a) in conds else 0
        pair_edge[p] = int(adj[a, b])
        if adj[a, b] and P.edge_labels is not None:
            pair_el[p] = P._elabel(a, b)
        for lv in range(2, k):
            v = o[lv]
            for e in range(lv):
                u = o[e]
                if adj[u, v]:
                    par[p, lv, npar[p, lv]] = e
                    if P.edge_labels is not None:
                        parel[p, lv, npar[p, lv]] = P._elabel(u, v)
                    npar[p, lv] += 1
                else:
                    inj[p, lv, ninj[p, lv]] = e
                    ninj[p, lv] += 1
                    if induced:
                        anti[p, lv, nanti[p, lv]] = e
                        nanti[p, lv] += 1
                if (u, v) in conds:      # f(u) < f(v): the candidate for v exceeds M[e]
                    low[p, lv, nlow[p, lv]] = e
                    nlow[p, lv] += 1
                elif (v, u) in conds:    # f(v) < f(u)
                    up[p, lv, nup[p, lv]] = e
                    nup[p, lv] += 1
    indep = np.zeros(n, np.int32)
    if k >= 4:
        lv, e = k - 1, k - 2
        for p in range(n):
            lo_e = [x for x in low[p, lv, :nlow[p, lv]] if x == e]
            up_e = [x for x in up[p, lv, :nup[p, lv]] if x == e]
            hard = [*par[p, lv, :npar[p, lv]], *anti[p, lv, :nanti[p, lv]]]
            if e in hard:
                indep[p] = 0
            elif lo_e:
                indep[p] = 2        # last > the level before
            elif up_e:
                indep[p] = 3        # last < the level before
            else:
                indep[p] = 1
    ru = _reuse_tables(P, order, npar, par, parel, nanti, anti, ninj, inj, nlow, low, nup, up,
                       REUSE if reuse is None else reuse)
    # F_LEAF: 1 where a level may be counted (cpu._leaf): a query vertex of degree 1, one parent, no anti level, no
    # edge label, no symmetry bound; 2 where its only bound is against the level before it (the last level of two
    # leaves counted as pairs, the bound in ``indep``)
    deg1 = np.array(P.degrees)[order] == 1
    leaf = (deg1 & (npar == 1) & (nanti == 0) & (parel[:, :, 0] == -1)).astype(np.int32)
    for p in range(n):
        for lv in range(2, k):
            bounds = {int(x) for x in low[p, lv, :nlow[p, lv]]} | {int(x) for x in up[p, lv, :nup[p, lv]]}
            if bounds:
                leaf[p, lv] *= 2 if bounds == {lv - 1} else 0
    leaf[:, :2] = 0
    tri = _triangle_tails(P, induced, order, npar, par, parel, nlow, low, nup, up, leaf)
    twin = _twin_tails(P, order, npar, par, parel, nanti, nlow, low, nup, up, tri, TWINS if twins is None else twins)
    return DeltaPlan(k, np.array(starts, np.int32).reshape(-1, 2), pair_edge, pair_el, order, npar, par, parel,
                     nanti, anti, ninj, inj, nlow, low, nup, up, pair_cond, indep, bool(induced), bool(symmetry),
                     ru, leaf, tri, twin)


def _split_level(P, p, order, npar, par, nanti, nlow, low, nup, up, rooted=False) -> int:
    """F_TWIN slot 2 of plan p: the least m > 2 such that levels m .. k-1 (group B) have their parents and bounds
    among levels 0, 1 and B, no anti level, and no label of levels 2 .. m-1; else 0.  ``rooted`` (F_TWIN[p, 1, 0]):
    the least m > 3, B of two levels or more, with level m - 1 allowed as well (its label too)."""
    lab = P.vertex_labels
    k = order.shape[1]
    if lab is None or k < 5:
        return 0
    for m in range(4 if rooted else 3, k - 1 if rooted else k):
        B = set(range(m, k))
        root = {m - 1} if rooted else set()
        ok = {lab[int(order[p, l])] for l in range(2, m) if l not in root}.isdisjoint(lab[int(order[p, l])] for l in B)
        for l in B:
            if not ok:
                break
            near = ({int(x) for x in par[p, l, :npar[p, l]]} | {int(x) for x in low[p, l, :nlow[p, l]]}
                    | {int(x) for x in up[p, l, :nup[p, l]]})
            ok = nanti[p, l] == 0 and all(x < 2 or x in B or x in root for x in near)
        if ok:
            return m
    return 0


def _twin_tails(P, order, npar, par, parel, nanti, nlow, low, nup, up, tri, on) -> np.ndarray:
    """F_TWIN per plan (see the field's notes): the first level tw of the longest run tw .. k-1 of at least three
    twin levels, and the kind of their bounds, or (0, 0); slot 2: :func:`_split_level`; slot 3 (packed at
    F_TWIN[p, 1, 0]): its rooted form, where the root's images may repeat and the group is not slot 2's.  Plans with
    a triangle tail or fork (F_TRI) keep those."""
    n, k = order.shape
    out = np.zeros((n, 5), np.int32)
    if not on or k < 5:
        return out
    lab = P.vertex_labels
    last = k - 1

    def parents(p, l):
        return {int(par[p, l, s]): int(parel[p, l, s]) for s in range(npar[p, l])}

    def bounds(p, l):
        return ({int(x) for x in low[p, l, :nlow[p, l]]}, {int(x) for x in up[p, l, :nup[p, l]]})

    def tail(p, tw, closed):
        """(kind, edge label) where levels tw .. k-1 of plan p are twins: open (kinds 1 / 2: each level's parents
        tw's) or closed (3 / 4: tw's and the tail levels before it, by one edge label); else None."""
        lv = range(tw, k)
        q0 = int(order[p, tw])
        pa = parents(p, tw)
        lo0, up0 = bounds(p, tw)
        tel = parents(p, tw + 1).get(tw) if closed else -1
        ok = bool(pa) and all(a < tw for a in pa) and all(nanti[p, l] == 0 for l in lv) and tel is not None
        kinds = set()
        for l in lv:
            if not ok:
                break
            q = int(order[p, l])
            lo, upb = bounds(p, l)
            want = {**pa, **{m: tel for m in range(tw, l)}} if closed else pa
            ok = (parents(p, l) == want and (lab is None or lab[q] == lab[q0]) and _nlf_implies(P, q, q0)
                  and _nlf_implies(P, q0, q) and {a for a in lo if a < tw} == {a for a in lo0 if a < tw}
                  and {a for a in upb if a < tw} == {a for a in up0 if a < tw})
            tl, tu = {a for a in lo if a >= tw}, {a for a in upb if a >= tw}
            if ok and l > tw:
                kinds.add(1 if l - 1 in tl and not tu else 2 if l - 1 in tu and not tl else 0)
        if ok and len(kinds) == 1 and 0 not in kinds:
            return kinds.pop() + (2 if closed else 0), tel
        return None

    for p in range(n):
        if tri[p, 0]:
            continue
        out[p, 2] = _split_level(P, p, order, npar, par, nanti, nlow, low, nup, up)
        mr = _split_level(P, p, order, npar, par, nanti, nlow, low, nup, up, rooted=True)
        # kept where it is not group B (counted once an item already) and level mr - 1's images may repeat within an
        # item: a parent of it past the start pair (else each image is reached once, as group B's first level)
        if mr and mr != out[p, 2] and any(int(x) >= 2 for x in par[p, mr - 1, :npar[p, mr - 1]]):
            out[p, 3] = mr
        for tw in range(2, last - 1):       # the longest run first: at least three levels
            got = tail(p, tw, False) or tail(p, tw, True)
            if got:
                out[p, :2] = (tw, got[0])
                if got[0] >= 3:
                    out[p, 4] = got[1] + 1      # the closed tail's edge label + 1 (0: unlabelled edges)
                break
    return out


def _triangle_tails(P, induced, order, npar, par, parel, nlow, low, nup, up, leaf) -> np.ndarray:
    """F_TRI per plan: two levels u, v that close a triangle on one earlier level pw and have no other edge, edge
    label, anti level or bound but one between v and u (then the pairs are counted once: ``halve``), so the pairs
    (f(u), f(v)) at a data vertex w = M[pw] are the triangles at w of their labels less those through a mapped
    vertex (cpu._tri_tail): the last two levels (flag 1), or the two before a last level counted as a leaf (F_LEAF 1)
    whose parent is neither (flag 2; its count less the pairs that use one of its candidates); flag 3 where a flag-1
    pw is the level before u with one parent and no edge label or bound, of u's and v's one label (or none): the
    count of w's level and the tail together (cpu._tri_tail3).  The memo column is one per (label of u, label of
    v)."""
    n, k = order.shape
    tri = np.zeros((n, 6), np.int32)
    if k < 4 or induced:
        return tri
    lab = P.vertex_labels
    cols: dict = {}
    for p in range(n):
        for mode in (1, 2):
            u, v = k - 1 - mode, k - mode
            if u < 2:
                continue
            if mode == 2 and (leaf[p, k - 1] != 1 or int(par[p, k - 1, 0]) in (u, v)):
                continue
            if npar[p, u] != 1 or npar[p, v] != 2:
                continue
            pw = int(par[p, u, 0])
            if sorted(int(x) for x in par[p, v, :2]) != sorted((pw, u)):
                continue
            if parel[p, u, 0] != -1 or (parel[p, v, :2] != -1).any():
                continue
            if nlow[p, u] or nup[p, u]:
                continue
            bounds = {int(x) for x in low[p, v, :nlow[p, v]]} | {int(x) for x in up[p, v, :nup[p, v]]}
            if bounds - {u}:
                continue
            qa, qb = int(order[p, u]), int(order[p, v])
            key = (None, None) if lab is None else (lab[qa], lab[qb])
            if bounds and key[0] != key[1]:
                continue
            col = cols.setdefault(key, len(cols))
            if mode == 1 and pw == k - 3 and pw >= 2 and npar[p, pw] == 1 and parel[p, pw, 0] == -1 \
                    and not (nlow[p, pw] or nup[p, pw]) and (lab is None or key[0] == key[1] == lab[order[p, pw]]):
                mode = 3     # w = M[pw] summed over the row of its parent: cpu._tri_tail3
            tri[p] = (mode, pw, 1 if bounds else 0, col, qa, qb)
            break
        if tri[p, 0] == 0 and k >= 5:
            fork = _fork_levels(P, p, k, order, npar, par, parel, nlow, nup, leaf)
            if fork is not None:
                pw, qa, qb = fork
                key = (None, None) if lab is None else (lab[qa], lab[qb])
                tri[p] = (4, pw, 0, cols.setdefault(key, len(cols)), qa, qb)
    return tri


def _fork_levels(P, p, k, order, npar, par, parel, nlow, nup, leaf):
    """F_TRI mode 4 (a fork): the last three levels are u, whose one neighbour before it is w = level pw, and
    two leaves (F_LEAF 1) of one label, v on u and t on w, in either order; u has no other edge, no edge label
    and no bound.  Then (cpu._fork_tail) the pairs (v, t) per image a of u are the product of their counts less
    their common candidates, the neighbours c common to a and M[pw]: summed over a, the ordered pairs (a, c) of
    adjacent neighbours of M[pw] of the labels of u and v, the triangle memo.  Returns (pw, u, v) or None."""
    lu = k - 3
    if npar[p, lu] != 1 or parel[p, lu, 0] != -1 or nlow[p, lu] or nup[p, lu]:
        return None
    u = int(order[p, lu])
    if P.degrees[u] != 2:
        return None
    pw = int(par[p, lu, 0])
    ends = (k - 2, k - 1)
    if any(leaf[p, l] != 1 for l in ends):
        return None
    parents = [int(par[p, l, 0]) for l in ends]
    if sorted(parents) != sorted((lu, pw)):
        return None
    lv = ends[parents.index(lu)]
    lt = ends[parents.index(pw)]
    lab = P.vertex_labels
    if lab is not None and lab[order[p, lv]] != lab[order[p, lt]]:
        return None
    return pw, u, int(order[p, lv])


def _nlf_implies(P: Pattern, u: int, v: int) -> bool:
    """Every data vertex that passes query vertex v's NLF filter passes u's (filter.py: same label, degree
    at least, per label at least as many neighbours; unlabelled: degree only)."""
    if P.degrees[u] > P.degrees[v]:
        return False
    if P.vertex_labels is None:
        return True
    lab = P.vertex_labels
    if lab[u] != lab[v]:
        return False
    cu = Counter(lab[w] for w in P.neighbors(u))
    cv = Counter(lab[w] for w in P.neighbors(v))
    return all(cv[x] >= c for x, c in cu.items())


def _reuse_tables(P, order, npar, par, parel, nanti, anti, ninj, inj, nlow, low, nup, up, on):
    """(reuse, rbound, nxp, xp, nxlow, xlow, nxup, xup), see the module notes: level l >= 3 of plan p may draw
    its candidates from level l-1's set when that set provably holds every valid candidate of l."""
    n, k = order.shape
    reuse = np.zeros((n, k), np.int32)
    rbound = np.zeros((n, k), np.int32)
    nxp, nxlow, nxup = (np.zeros((n, k), np.int32) for _ in range(3))
    xp, xlow, xup = (np.zeros((n, k, k), np.int32) for _ in range(3))
    out = (reuse, rbound, nxp, xp, nxlow, xlow, nxup, xup)
    if not on:
        return out
    for p in range(n):
        for lv in range(3, k):
            e = lv - 1
            pl = {int(par[p, lv, s]): int(parel[p, lv, s]) for s in range(npar[p, lv])}
            pe = {int(par[p, e, s]): int(parel[p, e, s]) for s in range(npar[p, e])}
            if e not in pl:                                          # 1. l-1 is a parent of l ...
                continue
            if any(pl.get(a, -2) != el for a, el in pe.items()):     # ... and so is each parent of l-1, same label
                continue
            al = set(anti[p, lv, :nanti[p, lv]].tolist())
            ae = set(anti[p, e, :nanti[p, e]].tolist())
            if not ae <= al:                                         # 2. anti(l-1) ⊆ anti(l)
                continue
            if not _nlf_implies(P, int(order[p, e]), int(order[p, lv])):   # 3. CT(l) ⊆ CT(l-1)
                continue
            lo_l, lo_e = set(low[p, lv, :nlow[p, lv]].tolist()), set(low[p, e, :nlow[p, e]].tolist())
            up_l, up_e = set(up[p, lv, :nup[p, lv]].tolist()), set(up[p, e, :nup[p, e]].tolist())
            # 4. l-1's window follows from l's bounds: c > M[a] directly, or through c > M[l-1] > M[a]
            if not all(a in lo_l or e in lo_l for a in lo_e) or not all(b in up_l or e in up_l for b in up_e):
                continue
            # injectivity and the anti levels then need no check: a non-parent of l (before l-1) is a non-parent of
            # l-1 (the two guards below never fire: they follow from 1.)
            if not set(inj[p, lv, :ninj[p, lv]].tolist()) <= set(inj[p, e, :ninj[p, e]].tolist()):
                continue
            if not al <= ae:
                continue
            reuse[p, lv] = 2 if _nlf_implies(P, int(order[p, lv]), int(order[p, e])) else 1  # 2: the same filter
            rbound[p, lv] = 1 if e in lo_l else 2 if e in up_l else 0
            for s in range(npar[p, lv]):
                if int(par[p, lv, s]) not in pe:
                    xp[p, lv, nxp[p, lv]] = s
                    nxp[p, lv] += 1
            for a in sorted(lo_l - lo_e - {e}):
                xlow[p, lv, nxlow[p, lv]] = a
                nxlow[p, lv] += 1
            for b in sorted(up_l - up_e - {e}):
                xup[p, lv, nxup[p, lv]] = b
                nxup[p, lv] += 1
    return out


def query_label_table(P: Pattern, columns: dict) -> np.ndarray:
    """(k, L) int32: query vertex u's number of neighbours of each label column (the NLF demand)."""
    L = len(columns)
    out = np.zeros((P.k, max(L, 1)), np.int32)
    if P.vertex_labels is None:
        return out
    for u in range(P.k):
        c = Counter(P.vertex_labels[w] for w in P.neighbors(u))
        for lab, cnt in c.items():
            out[u, columns[lab]] = cnt
    return out
