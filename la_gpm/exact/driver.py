"""Exact counting of any connected pattern (induced or not, labeled or not) on the CPU.

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

import functools
import math
import time

import numpy as np

from ..validation import as_graph
from ..backends import resolve_backend
from ..config import config
from ..exceptions import BackendUnavailable, InvalidArgument, LabelMismatch, PatternTooLarge
from ..patterns import as_pattern
from ..patterns.plan import GraphStats, compile_plan

__all__ = ["count_pattern", "MAX_COUNT_VERTICES", "MAX_LABELED_VERTICES", "engine_arrays", "plan_for",
           "prepare_roots"]

MAX_COUNT_VERTICES = 12
MAX_LABELED_VERTICES = 32
COUNT_KINDS = ("unique", "embeddings")
GPU_ENGINES = ("auto", "dfs", "trie")
SERIAL_WORK = 1_000_000  # below this Σ deg(root)² the search runs on one worker (no parallel region)



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


@functools.lru_cache(maxsize=1)
def _closed_form_keys():
    from ..motifs import driver as motifs
    return {as_pattern("bowtie").canonical_key: (motifs.bowtie_noninduced, "bowtie = Σ_v C(t_v, 2) − Σ_arcs C(t_e, 2)"),
            as_pattern("house").canonical_key: (motifs.house_noninduced,
                                                "house = Σ_4-cycles Σ_edges t_e − 4 × diamonds")}


def _closed_form(P):
    """(function, formula) of a non-induced closed form for the unlabeled pattern P, or None."""
    if P.labeled or P.k != 5:
        return None
    return _closed_form_keys().get(P.canonical_key)


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


def _chunk_bounds(roots, deg, k, nworkers):
    """Cut roots into chunks of about equal estimated work (deg^min(k-1, 2) per root)."""
    nr = roots.shape[0]
    if nr == 0:
        return np.zeros(1, dtype=np.int64)
    w = deg[roots].astype(np.float64) + 1.0
    if k >= 3:
        w = w * w
    nchunks = max(math.ceil(nr / max(config.chunk, 1)), 32 * nworkers)
    nchunks = int(min(nchunks, nr))
    cum = np.cumsum(w)
    targets = cum[-1] * np.arange(1, nchunks) / nchunks
    cuts = np.searchsorted(cum, targets, side="left") + 1
    b = np.unique(np.concatenate([[0], cuts, [nr]])).astype(np.int64)
    return b


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


def _workers_for_budget(k, maxd, itemsize, memory_budget):
    import numba
    per = k * max(maxd, 1) * itemsize + 64 * k * 8
    nthreads = numba.get_num_threads()
    budget = resolve_budget(memory_budget)
    fit = budget // per
    if fit < 1:
        raise InvalidArgument(f"memory_budget={budget} bytes is below one worker's stack ({per} bytes = "
                              f"k {k} × max degree {maxd} × {itemsize} bytes); raise memory_budget")
    return int(min(nthreads, fit)), per


def _check_overflow(over):
    if over.any():
        raise OverflowError("a chunk's count exceeded int64; split the graph into vertex ranges "
                            "(la_gpm.distributed) or count a smaller pattern")


def run_plan(G, plan, *, memory_budget=None, progress=False, part=None):
    """Execute a plan; returns (count as Python int, stats dict).

    ``part=(i, nparts)`` counts only the matches rooted in the i-th of nparts work-balanced ranges of
    roots (:mod:`la_gpm.partition`; the parts add up to the whole count)."""
    import numba

    from .cpu_kernels import ST_NODES, ST_OPS, ST_REUSE, ST_SAVED, count_plan, count_plan_serial

    t0 = time.perf_counter()
    vl = plan.vertex_labels is not None
    el = plan.edge_labels is not None
    (ptr, idx, nlab, elab, deg, vlab, _), roots = plan_roots(G, plan, part)
    k = plan.k
    stats = {"plan": plan.describe(), "roots": int(roots.shape[0])}
    if k == 1:
        total = int(roots.shape[0])
        stats.update(reuse_hits=0, set_operations=0, set_operations_saved=0, tree_nodes=total)
        return total, stats
    maxd = G.max_degree
    workers, per = _workers_for_budget(k, maxd, idx.dtype.itemsize, memory_budget)
    T, C = plan.tables()
    args = (k, T, C, ptr, idx, nlab, elab, deg, vl, el, maxd)
    rdeg = deg[roots].astype(np.float64)
    if float(rdeg @ rdeg) < SERIAL_WORK and not progress:  # a parallel region would cost more than the search
        counts, over, st = count_plan_serial(roots, *args)
        _check_overflow(over)
        total, agg, workers, nchunks = int(counts[0]), st.sum(axis=0), 1, 1
    else:
        bounds = _chunk_bounds(roots, deg, k, workers)
        nchunks = bounds.shape[0] - 1
        nbatch = min(nchunks, 50) if progress else 1
        cuts = np.linspace(0, nchunks, nbatch + 1).astype(np.int64)
        bar = None
        if progress:
            from tqdm.auto import tqdm
            bar = tqdm(total=int(roots.shape[0]), desc=f"count k={k}", unit="root")
        total = 0
        agg = np.zeros(4, dtype=np.int64)
        old = numba.get_num_threads()
        try:
            numba.set_num_threads(workers)
            for b in range(nbatch):
                sub = np.ascontiguousarray(bounds[cuts[b]:cuts[b + 1] + 1])
                if sub.shape[0] < 2:
                    continue
                counts, over, st = count_plan(roots, sub, *args)
                _check_overflow(over)
                total += sum(int(x) for x in counts)
                agg += st.sum(axis=0)
                if bar is not None:
                    bar.update(int(sub[-1] - sub[0]))
        finally:
            numba.set_num_threads(old)
            if bar is not None:
                bar.close()
    ops, saved = int(agg[ST_OPS]), int(agg[ST_SAVED])
    stats.update(reuse_hits=int(agg[ST_REUSE]), set_operations=ops, set_operations_saved=saved,
                 reuse_rate=saved / (ops + saved) if ops + saved else 0.0, tree_nodes=int(agg[ST_NODES]),
                 workers=workers, bytes_per_worker=per, chunks=nchunks, seconds=time.perf_counter() - t0)
    return total, stats


def count_pattern(G, P, *, induced: bool = False, count: str = "unique", backend: str | None = None,
                  memory_budget: int | None = None, progress: bool = False, return_stats: bool = False,
                  reuse: bool = True, gpu_engine: str = "auto", closed_forms: bool = True):
    """Exact number of copies of a connected pattern in G.

    Parameters
    ----------
    G : anything :func:`la_gpm.as_graph` accepts (undirected)
    P : a Pattern, a pattern name, a ``.graph``/``.fascia`` file, ...
    induced : vertex-induced copies (pattern non-edges must be non-edges of G)
    count : ``"unique"`` (each subgraph once) or ``"embeddings"`` (= unique × |Aut(P)|)
    backend : ``"cpu"`` (numba DFS engine), ``"graphblas"`` (cliques only: masked mxm),
        ``"gpu"`` (cliques: the DAG clique kernel; any other pattern: the warp-centric plan
        interpreter of :mod:`la_gpm.exact.dumato`, same plans and counts as the cpu engine),
        ``"auto"``/None (gpu for cliques when a device is visible, else cpu; other patterns run on
        the cpu unless ``backend="gpu"`` is asked for, see ``docs/gpu_enum.md``)
    memory_budget : bytes for the per-worker (cpu) or per-warp (gpu) candidate stacks (default
        ``config.memory_budget``); fewer workers / resident warps run when the budget is tight
    progress : a tqdm bar over the root vertices (cpu engine only)
    return_stats : also return a dict (plan, reuse hits, set operations done/saved, time)
    reuse : use the plan's RPS reuse (False: plain plan, same count; for A/B measurements)
    gpu_engine : with the gpu backend, ``"dfs"`` (the warp-centric plan interpreter, DuMato/RPS),
        ``"trie"`` (breadth-first levels of parent-pointer tries, cuTS, within ``memory_budget``;
        plans without reuse) or ``"auto"``: the trie for unlabeled patterns of 5 or more vertices
        (measured 6x faster than the dfs engine on the house, wiki-Vote and email-Eu-core), the dfs
        engine otherwise (on par or faster for 4-vertex patterns); see docs/gpu_trie.md
    closed_forms : on the cpu backend, count the non-induced unlabeled bowtie (hourglass) and house from
        per-edge triangle counts instead of enumerating their copies
        (:func:`la_gpm.motifs.driver.bowtie_noninduced`, :func:`~la_gpm.motifs.driver.house_noninduced`;
        same numbers); False forces the enumeration (for A/B tests)

    Returns
    -------
    int, or (int, dict) with ``return_stats``

    Notes
    -----
    Patterns with up to 12 vertices (32 when vertex-labeled, where labels keep the
    search narrow).  Unlabeled cliques go to :func:`la_gpm.cliques.clique_count`
    (k <= 32).

    Examples
    --------
    >>> import la_gpm
    >>> G = la_gpm.datasets.load("karate")
    >>> count_pattern(G, "4-cycle"), count_pattern(G, "4-cycle", induced=True)
    (154, 36)
    """
    check_count_options(count, memory_budget, induced)
    if gpu_engine not in GPU_ENGINES:
        raise InvalidArgument(f"gpu_engine must be one of {GPU_ENGINES}; got {gpu_engine!r}")
    G = as_graph(G)
    G._require_undirected("pattern counting")
    P = as_pattern(P)
    P.require_connected("counting")
    is_plain_clique = P.is_clique and not P.labeled and P.k >= 3
    if not is_plain_clique:  # cliques go to the DAG kernel, which takes k <= 32
        check_size(P)
    check_labels(G, P)
    requested = config.backend if backend is None else backend
    if requested == "auto" and not is_plain_clique:
        b = "cpu"  # measured: the numba engine wins on small searches; ask for backend='gpu' explicitly
    else:
        b = resolve_backend(backend, supported=("cpu", "graphblas", "gpu"), what="exact pattern counting")
    if is_plain_clique:
        from ..kcliques import clique_count
        t0 = time.perf_counter()
        n = clique_count(G, P.k, backend=b) * (math.factorial(P.k) if count == "embeddings" else 1)
        if return_stats:
            return n, {"plan": f"{P.k}-clique on the degree-ordered DAG ({b})", "reuse_hits": 0,
                       "set_operations": None, "set_operations_saved": None, "seconds": time.perf_counter() - t0}
        return n
    if b == "graphblas":
        raise BackendUnavailable("backend 'graphblas' counts cliques (masked mxm) only; this pattern is not a "
                                 "clique, so use backend='cpu'")
    form = _closed_form(P) if closed_forms and b == "cpu" and not induced else None
    if form is not None:
        t0 = time.perf_counter()
        fn, text = form
        n = fn(G) * (P.automorphism_count if count == "embeddings" else 1)
        if return_stats:
            return n, {"plan": f"closed form: {text}", "reuse_hits": 0, "set_operations": None,
                       "set_operations_saved": None, "seconds": time.perf_counter() - t0}
        return n
    if gpu_engine == "auto":
        gpu_engine = "trie" if P.k >= 5 and not P.labeled else "dfs"
    plan = plan_for(G, P, induced=induced, reuse=reuse and not (b == "gpu" and gpu_engine == "trie"))
    if b == "gpu" and gpu_engine == "trie":
        from .cuts import count_plan_bfs
        n, stats = count_plan_bfs(G, plan, memory_budget=memory_budget)
    elif b == "gpu":
        from .dumato import count_plan_gpu
        n, stats = count_plan_gpu(G, plan, memory_budget=memory_budget)
    else:
        n, stats = run_plan(G, plan, memory_budget=memory_budget, progress=progress)
    if count == "embeddings":
        n *= P.automorphism_count
    return (n, stats) if return_stats else n
