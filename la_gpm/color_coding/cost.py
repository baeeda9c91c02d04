"""Cost predictors behind ``estimate(..., exact="auto")``: the exact enumeration of a tree against the colorings.

Notes
-----
**The exact count** (the CPU depth-first plan engine, :mod:`la_gpm.exact.cpu`, which ``la_gpm.count`` takes for
a tree of 6+ vertices) walks its plan's search tree: level i holds the partial matches of the prefix
``{u_0..u_i}`` of the plan's matching order, and every level but the last is visited node by node (the last
one is counted by a set size).  Its time is about ``config.exact_node_seconds`` per visited node.  A
connected-order prefix of a tree is a subtree, so the nodes of level i are bounded by the homomorphisms of
that subtree into G, counted by a DP over the subtree in O(|prefix| · m) (one pass over the arcs per tree edge):

    msg_t(v) = [deg v >= deg_T(t)] · Π_{children c of t} Σ_{w ∈ N(v), w ≠ the image of t's parent} msg_c(w)

with the same degree filter as the engine (a candidate needs at least its pattern degree) and no
backtracking (a child never lands on its grandparent's image: the walks that the engine's injectivity check
rejects first), evaluated on directed edges.  Two siblings may still share an image, so this stays an upper
bound, tight when the images' degrees are well above the pattern's.  The symmetry bounds
``f(a) < f(b)`` the plan enforces among the prefix's positions keep the fraction of orderings that satisfy
them (linear extensions / j! over the j positions they involve).

The colorings' side (the pilot's per-coloring seconds times the colorings the stop rule needs) is
:func:`la_gpm.color_coding.driver.colorings_needed`, next to the stop rules it replays.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["prefix_partial_matches", "exact_nodes", "linear_extension_fraction"]


def linear_extension_fraction(conds) -> float:
    """The fraction of the total orders of the vertices named in ``conds`` (pairs (a, b): a before b) that
    satisfy every pair (1.0 without pairs): linear extensions / j!, by a DP over subsets."""
    vs = sorted({x for c in conds for x in c})
    j = len(vs)
    if j == 0:
        return 1.0
    if j > 20:  # a poset this wide: each pair halves (an estimate, never reached by a tree of <= 12 vertices)
        return 0.5 ** len(conds)
    at = {v: i for i, v in enumerate(vs)}
    before = [0] * j  # before[i]: bitmask of the vertices that must come before i
    for a, b in conds:
        before[at[b]] |= 1 << at[a]
    ways = np.zeros(1 << j, dtype=np.float64)
    ways[0] = 1.0
    for mask in range(1 << j):
        w = ways[mask]
        if w == 0:
            continue
        for i in range(j):
            if not mask >> i & 1 and before[i] & mask == before[i]:
                ways[mask | 1 << i] += w
    return float(ways[-1] / math.factorial(j))


def _edge_arrays(G):
    """(src, dst, rev, deg) of G's arcs: arc e = src[e] -> dst[e], rev[e] the arc dst[e] -> src[e]."""
    def make():
        n = G.n
        ptr = np.asarray(G.indptr, dtype=np.int64)
        dst = np.asarray(G.indices, dtype=np.int64)
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
        # arcs sorted by (src, dst) already (CSR, sorted rows); the reverse of (u, v) is found by (v, u)
        key = src * n + dst
        rkey = dst * n + src
        rev = np.searchsorted(key, rkey)
        return src, dst, rev, np.diff(ptr).astype(np.int64)
    return G.cached("cc:cost:arcs", make)


def prefix_partial_matches(G, P, order, conds=(), cap: float = math.inf, levels=None):
    """Per prefix ``{order[0..i]}`` (i = 0..k-1) of a tree ``P``'s connected matching order: an upper bound on
    the partial matches a depth-first plan engine holds at level i (non-backtracking homomorphisms of the
    prefix subtree with the degree filter, times the fraction of orderings the symmetry pairs ``conds`` among
    the prefix leave).  Stops (the rest ``inf``) once the running sum passes ``cap``; ``levels``: only the
    first that many prefixes."""
    k = P.k
    src, dst, rev, deg = _edge_arrays(G)
    n = G.n
    A = P.adjacency
    pdeg = [int(A[v].sum()) for v in range(k)]
    vl = None
    if P.vertex_labels is not None and G.vertex_labels is not None:
        vl = np.asarray(G.vertex_labels)
    masks = {}

    def mask(t):
        if t not in masks:
            m = (deg >= pdeg[t]).astype(np.float64)
            if vl is not None:
                m *= vl == P.vertex_labels[t]
            masks[t] = m
        return masks[t]

    pos = {v: i for i, v in enumerate(order)}
    out = []
    total = 0.0
    for i in range(k if levels is None else min(levels, k)):
        if total > cap:
            out.append(math.inf)
            continue
        members = set(order[:i + 1])
        root = order[0]
        children = {t: [c for c in range(k) if c in members and A[t, c] and pos[c] > pos[t]
                        and _parent(A, order, pos, c) == t] for t in members}
        # arc messages, leaves first: arc_msg[c][e] for arc e = (v -> w): the maps of c's subtree with c on w,
        # c's parent on v (so c's children avoid v)
        arc_msg = {}
        for t in sorted(members, key=lambda x: -pos[x]):
            if t == root:
                continue
            node = mask(t).copy()  # maps of t's subtree with t on w, before excluding the parent's image
            sums = []
            for c in children[t]:
                s = np.bincount(src, weights=arc_msg[c], minlength=n)  # Σ_{x ∈ N(w)} msg_c(w -> x)
                node *= s
                sums.append((c, s))
            # arc (v -> w): node[w] with each child's sum less its term on x = v (the arc w -> v)
            msg = np.ones(src.shape[0], dtype=np.float64) * mask(t)[dst]
            for c, s in sums:
                msg *= s[dst] - arc_msg[c][rev]
            arc_msg[t] = msg
        rootv = mask(root).copy()
        for c in children[root]:
            rootv *= np.bincount(src, weights=arc_msg[c], minlength=n)
        frac = linear_extension_fraction([(a, b) for a, b in conds if a in members and b in members])
        val = float(rootv.sum()) * frac
        out.append(val)
        total += val
    return out


def _parent(A, order, pos, c):
    """c's parent in the order's spanning tree: its earliest-placed earlier neighbour (a tree has just one)."""
    best = None
    for t in range(A.shape[0]):
        if A[t, c] and pos[t] < pos[c] and (best is None or pos[t] < pos[best]):
            best = t
    return best


def exact_nodes(G, P, plan, cap: float = math.inf) -> tuple[float, bool]:
    """Predicted search-tree nodes of the plan engine for the tree ``P`` with ``plan``
    (:func:`la_gpm.exact.plans.plan_for`): the partial matches of levels 0..k-2 (the last level is counted by
    size, not visited).  Returns (nodes, complete): once the running sum passes ``cap`` the prediction stops
    and ``nodes`` is the sum so far (a lower bound of the prediction), ``complete`` False."""
    conds = []  # the plan's symmetry bounds as pattern-vertex pairs (a, b): f(a) < f(b)
    for i in range(plan.k):
        conds += [(plan.order[a], plan.order[i]) for a in plan.lower[i]]
        conds += [(plan.order[i], plan.order[b]) for b in plan.upper[i]]
    per = prefix_partial_matches(G, P, plan.order, conds, cap, levels=max(plan.k - 1, 1))
    done = [x for x in per if math.isfinite(x)]
    return float(sum(done)), len(done) == len(per)
