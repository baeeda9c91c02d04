"""Planning for the exact engines (CPU depth-first, DuMato, cuTS): option checks, plans, the engine's
degree-ranked arrays and the root vertices of a plan.

The engine, for any connected pattern (induced or not, labeled or not):

Notes
-----
A plan (:mod:`la_gpm.patterns.plan`) fixes a matching order u_0..u_{k-1}; the engine
walks the search tree depth first.  For a partial match f the candidates of u_i are

    S_i(f) = ∩_{b ∈ N⁺(u_i)} A[f(b), :]  ⊙  ¬ ∪_{a ∈ anti(u_i)} A[f(a), :]     (anti only when induced)

restricted to the label of u_i, i.e. the row-wise AND of adjacency rows (the
masked-SpGEMM formulation of GraphBLAS pattern counting, evaluated one tree path
at a time so memory stays O(k · max degree) per worker).  Symmetry-breaking bounds
f(a) < f(b) from the automorphism group make each subgraph counted once, so

    embeddings = unique × |Aut(P)|,

and the last level contributes |S_{k-1}(f) ∩ (lo, hi)| minus the earlier images in
it, without enumerating it.  Reuse (RPS): a level whose constraints contain those of
an earlier level starts from that level's cached set (see ``docs/exact_engine.md``).

References: Guo, Li, Tan, "Exploiting reuse for GPU subgraph enumeration", TKDE 2022;
Grochow & Kellis, "Network motif discovery using subgraph enumeration and
symmetry-breaking", RECOMB 2007; Mawhirter & Wu, "AutoMine", SOSP 2019.
"""

from __future__ import annotations

import numpy as np

from ..config import config
from ..exceptions import InvalidArgument, LabelMismatch, PatternTooLarge
from ..patterns.plan import GraphStats, compile_plan

__all__ = ["COUNT_KINDS", "GPU_ENGINES", "MAX_COUNT_VERTICES", "MAX_LABELED_VERTICES", "check_count_options",
           "check_labels", "check_pattern", "check_size", "engine_arrays", "plan_for", "plan_roots", "prepare_roots", "resolve_budget"]

MAX_COUNT_VERTICES = 12
MAX_LABELED_VERTICES = 32
COUNT_KINDS = ("unique", "embeddings")
GPU_ENGINES = ("auto", "dfs", "trie")



def _ro(a):
    a = np.ascontiguousarray(a)
    if a.flags.writeable:
        a = a.copy()
        a.setflags(write=False)
    return a


def check_count_options(count, memory_budget, induced):
    """The options every exact-count call shares (``count_pattern``, ``count_many``), checked."""
    if count not in COUNT_KINDS:
        raise InvalidArgument(f"count must be one of {COUNT_KINDS}; got {count!r}")
    if memory_budget is not None and (isinstance(memory_budget, bool) or not isinstance(memory_budget, (int, np.integer))
                                      or memory_budget <= 0):
        raise InvalidArgument(f"memory_budget must be a positive number of bytes or None; got {memory_budget!r}")
    if not isinstance(induced, (bool, np.bool_)):
        raise InvalidArgument(f"induced must be True or False; got {induced!r}")


def check_labels(G, P, what="counting"):
    """Raise LabelMismatch where pattern labels cannot be matched against G; say what to do."""
    if P.vertex_labels is not None and G.vertex_labels is None:
        raise LabelMismatch(f"{what}: the pattern has vertex labels {list(P.vertex_labels)} but the graph has none; "
                            "load the graph with labels (e.g. la_gpm.io.read_sunluo, or "
                            "Graph.from_edges(..., vertex_labels=...)) or drop the pattern's labels")
    if P.edge_labels is not None and G.edge_labels is None:
        raise LabelMismatch(f"{what}: the pattern has edge labels but the graph has none; build the graph with "
                            "edge_labels=... or drop the pattern's edge labels")


def check_size(P, limit_unlabeled=MAX_COUNT_VERTICES, what="count_pattern"):
    lim = MAX_LABELED_VERTICES if P.vertex_labels is not None else limit_unlabeled
    if P.k > lim:
        extra = (" (vertex-labeled patterns may have up to "
                 f"{MAX_LABELED_VERTICES})" if P.vertex_labels is None else "")
        raise PatternTooLarge(f"{what} supports patterns of up to {lim} vertices{extra}; got k={P.k}. For larger "
                              "trees use la_gpm.estimate (color coding); for larger labeled queries use match() "
                              "with a limit")


def check_pattern(G, P, what="count_pattern"):
    """``P`` as a validated Pattern for an exact count in ``G``: connected, within the size limits (plain
    cliques go to the clique kernel, which takes k <= 32 and says so itself) and with labels ``G`` has.
    One check for every exact entry point (count, count_pattern, count_many, the distributed path)."""
    from ..patterns import as_pattern
    P = as_pattern(P)
    P.require_connected("counting")
    if not (P.is_clique and not P.labeled and P.k >= 3):
        check_size(P, what=what)
    check_labels(G, P)
    return P


def engine_arrays(G, vertex_labeled: bool, edge_labeled: bool):
    """``(ptr, idx, nlab, elab, deg, vlab, inv)`` for the enumeration kernels, cached on the graph.

    The vertices are renumbered by degree rank (new id r = ``G.degree_rank[v]``, ``inv[r]`` = v), so
    the symmetry bounds f(a) < f(b) put low-degree vertices first and a bounded read of a
    neighbour list is a read of the degree-ordered DAG's out-list (O(√m) long), as in the
    clique kernel.  Counts do not depend on the numbering; listings map back through ``inv``.
    """
    key = f"cpu:enum:v{int(vertex_labeled)}e{int(edge_labeled)}"

    def make():
        from ..primitives.csr import build_csr
        rank = np.asarray(G.degree_rank, dtype=np.int64)
        inv = np.empty(G.n, dtype=np.int64)
        inv[rank] = np.arange(G.n, dtype=np.int64)
        src = np.repeat(np.arange(G.n, dtype=np.int64), G.degrees)
        ptr, idx, perm = build_csr(rank[src], rank[G.indices.astype(np.int64)], G.n, with_perm=edge_labeled)
        deg = np.diff(ptr).astype(np.int64)
        vl = None if G.vertex_labels is None else G.vertex_labels[inv]
        dummy = np.zeros(1, dtype=np.int64)
        el = G.edge_labels[perm] if edge_labeled else dummy
        nl = dummy
        if vertex_labeled:
            from .cpu_kernels import label_sorted_csr
            idx, nl, el2 = label_sorted_csr(ptr, idx, vl, el, edge_labeled)
            el = el2 if edge_labeled else dummy
        return tuple(None if a is None else _ro(a) for a in (ptr, idx, nl, el, deg, vl, inv))

    return G.device_cache(key, make)


def plan_for(G, P, *, induced=False, symmetry=True, reuse=True, order=None):
    """The plan the engine runs for ``P`` on ``G`` (graph-aware cost model)."""
    return compile_plan(P, induced=induced, symmetry=symmetry, reuse=reuse, order=order,
                        stats=GraphStats.of(G, P.vertex_labels))


def prepare_roots(deg, vlab, plan):
    """Vertices (engine numbering) that can play the first pattern vertex: its label, at least its degree."""
    ok = deg >= plan.min_degree[0]
    if plan.vertex_labels is not None:
        ok &= vlab == plan.vertex_labels[0]
    return np.flatnonzero(ok).astype(np.int64)


def resolve_budget(memory_budget) -> int:
    """``memory_budget`` in bytes (``config.memory_budget`` when None), checked positive; one rule for
    every engine (cpu stacks, gpu warp stacks, gpu trie levels)."""
    budget = config.memory_budget if memory_budget is None else int(memory_budget)
    if budget <= 0:
        raise InvalidArgument(f"memory_budget must be positive bytes; got {memory_budget!r}")
    return budget


def plan_roots(G, plan, part=None):
    """The engine arrays of ``plan``'s labels (:func:`engine_arrays`) and its root vertices, cut to
    ``part=(i, nparts)`` (a work-balanced range, :mod:`la_gpm.partition`) when given."""
    arrays = engine_arrays(G, plan.vertex_labels is not None, plan.edge_labels is not None)
    deg, vlab = arrays[4], arrays[5]
    roots = prepare_roots(deg, vlab, plan)
    if part is not None:
        from ..partition import part_range
        lo, hi = part_range(deg[roots].astype(np.float64) ** 2, part)
        roots = roots[lo:hi]
    return arrays, roots
