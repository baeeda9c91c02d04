"""The entry points of exact counting: ``count`` (simple tier), ``count_pattern`` (every option),
``count_many`` (many patterns, one graph) and ``count_embeddings``.

They validate their inputs once (:func:`la_gpm.as_graph`, :func:`la_gpm.patterns.as_pattern`), ask the one
engine table (:mod:`la_gpm.engines`) which engine counts each pattern, and return exact Python ints.
"""

from __future__ import annotations

import difflib
import time

import numpy as np

from . import engines
from .exact.batch import prepared, route
from .exact.plans import COUNT_KINDS, check_count_options, check_pattern
from .config import config
from .exceptions import InvalidArgument
from .graph import Graph
from .patterns import as_pattern
from .patterns.catalog import names_a_file
from .validation import as_graph

__all__ = ["count", "count_pattern", "count_many", "count_embeddings"]

COUNT_PATTERN_KEYWORDS = ("induced", "count", "backend", "memory_budget", "progress", "return_stats", "reuse",
                          "gpu_engine", "closed_forms", "method")
COUNT_KEYWORDS = COUNT_PATTERN_KEYWORDS + ("per_vertex",)


def _reject_unknown_keywords(function: str, given, valid) -> None:
    """InvalidArgument naming ``function``, each keyword of ``given`` not in ``valid`` and the closest valid one."""
    unknown = [k for k in given if k not in valid]
    if not unknown:
        return
    parts = []
    for k in unknown:
        close = difflib.get_close_matches(k, valid, n=1, cutoff=0.6)
        parts.append(f"{k!r} (did you mean {close[0]!r}?)" if close else repr(k))
    raise InvalidArgument(f"la_gpm.{function}() got unknown keyword argument{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(parts)}; it takes {', '.join(valid)} (method= for triangles only)")


def count(G, pattern, *, induced: bool = False, count: str = "unique", backend: str | None = None,
          per_vertex: bool = False, **options):
    """Count copies of ``pattern`` in ``G`` exactly.

    Parameters
    ----------
    G : anything :func:`la_gpm.as_graph` accepts
    pattern : a :class:`Pattern`, a name (``"triangle"``, ``"4-clique"``, ``"house"``, ...),
        a ``.fascia``/``.graph`` file, a networkx graph or an edge list
    induced : count vertex-induced copies (non-edges of the pattern must be non-edges of G)
    count : ``"unique"`` (each subgraph once, the default) or ``"embeddings"``
        (injective maps = unique × |Aut(pattern)|)
    backend : ``"cpu"``, ``"graphblas"``, ``"gpu"`` or ``"auto"`` (default: ``la_gpm.config.backend``)
    per_vertex : return per-vertex counts (numpy int64) instead of the total (triangles)
    **options : passed to the engine: ``method`` (triangles), ``memory_budget``, ``progress``,
        ``return_stats`` (engine, reuse hits, set operations saved) and ``reuse`` (general patterns;
        see :func:`count_pattern`)

    Returns
    -------
    int
        An exact Python int.

    Examples
    --------
    >>> import la_gpm
    >>> la_gpm.count(la_gpm.datasets.load("karate"), "triangle", backend="cpu")
    45
    """
    # a repeat call (a Graph, a pattern name -- not a file's path: a file may change --, no options) whose first call
    # the table sent to an engine with a repeat form runs its bound kernels only (engines.repeatable: the key holds
    # every other input of the choice)
    key = None
    if type(G) is Graph and type(pattern) is str and not options and not per_vertex and engines.may_repeat(backend) \
            and not names_a_file(pattern):
        key = (pattern, bool(induced), count, backend, config.version)
        hit = engines.repeat_of(G, key)
        if hit is not None:
            if hit[0] is not None:
                return hit[0]() * hit[1]
            key = None        # the row the table chose has no repeat form: the usual way
    _reject_unknown_keywords("count", options, COUNT_KEYWORDS)
    if count not in COUNT_KINDS:
        raise InvalidArgument(f"count must be one of {COUNT_KINDS}; got {count!r}")
    G = as_graph(G)
    # directed graphs and directed patterns: the directed census's rows (the class is recognised without importing
    # its module, which costs a first undirected count 15 ms)
    if G.directed or (type(pattern).__name__, type(pattern).__module__) == ("DiPattern", "la_gpm.motifs.directed_count"):
        from .motifs.directed_count import check_undirected_graph_for, directed_count
        check_undirected_graph_for(pattern, G)
        if per_vertex:
            raise InvalidArgument("per_vertex=True counts undirected triangles; on a directed graph use "
                                  "la_gpm.census(D, 3) or G.to_undirected()")
        extra = sorted(set(options) - {"progress", "return_stats"})
        if extra:
            raise InvalidArgument(f"option(s) {extra} do not apply to a directed pattern (counted from the directed "
                                  "census); it takes progress= and return_stats=")
        return directed_count(G, pattern, induced=induced, count=count, backend=backend, **options)
    P = as_pattern(pattern)
    P.require_connected("counting")
    if per_vertex:
        if not (P.k == 3 and P.num_edges == 3 and not P.labeled):
            raise InvalidArgument("per_vertex=True is available for triangles; for other patterns use "
                                  "la_gpm.orbits or the color-coding per-vertex estimates")
        if count != "unique":
            raise InvalidArgument("per_vertex counts are of unique triangles; use count='unique'")
        from .triangles import triangles_per_vertex
        return triangles_per_vertex(G, backend=backend)
    if key is not None:
        G, P = _checked(G, P, count, None, induced)
        hit = engines.repeatable(G, P, key, induced=induced, backend=backend, count=count)
        if hit is not None:
            return hit[0]() * hit[1]
    return count_pattern(G, P, induced=induced, count=count, backend=backend, **options)


def count_pattern(G, P, *, induced: bool = False, count: str = "unique", backend: str | None = None,
                  memory_budget: int | None = None, progress: bool = False, return_stats: bool = False,
                  reuse: bool = True, gpu_engine: str = "auto", closed_forms: bool = True, **options):
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
    closed_forms : on the cpu backend, count the non-induced unlabeled patterns that have a closed form
        (stars, every 4-vertex pattern but the 4-clique (which the clique engine counts), 19 of the 21
        5-vertex patterns, whatever way they are given: edge list, name, file) from degrees, triangle and
        4-cycle counts instead of enumerating their copies (docs/closed_forms.md; same numbers); False forces
        the enumeration (for A/B tests)

    Returns
    -------
    int, or (int, dict) with ``return_stats``

    Notes
    -----
    The engine is chosen by the one engine table, :mod:`la_gpm.engines` (``la_gpm.engines.explain`` says why);
    ``return_stats`` names it (``engine``, ``backend``, ``reason``).
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
    _reject_unknown_keywords("count_pattern", options, COUNT_PATTERN_KEYWORDS)
    G, P = _checked(G, P, count, memory_budget, induced)
    choice = engines.choose(G, P, induced=induced, backend=backend, closed_forms=closed_forms, gpu_engine=gpu_engine,
                            reuse=reuse, memory_budget=memory_budget, progress=progress, **options)
    n, stats = engines.run(choice)
    n = engines.embeddings(n, P, count)
    return (n, stats) if return_stats else n


def _checked(G, P, count, memory_budget, induced):
    """(graph, pattern) of a pattern count, validated (count kind, memory budget, an undirected graph, the pattern)."""
    check_count_options(count, memory_budget, induced)
    G = as_graph(G)
    G.require_undirected("pattern counting (la_gpm patterns are undirected)")
    return G, check_pattern(G, P)


def count_many(G, patterns, *, induced: bool = False, count: str = "unique", backend: str | None = None,
               memory_budget: int | None = None, reuse: bool = True, closed_forms: bool = True,
               deep_items: int | None = None, cpu_batch: bool = True, return_stats: bool = False):
    """Exact number of copies of each of many connected patterns in G.

    Parameters
    ----------
    G : anything :func:`la_gpm.as_graph` accepts (undirected)
    patterns : an iterable of patterns (Pattern objects, names, files: whatever ``count_pattern`` takes)
    induced, count, memory_budget, reuse, closed_forms : as in
        :func:`~la_gpm.api.count_pattern`, for every pattern
    backend : ``"cpu"``: the numba engine; ``"gpu"``: all plans counted in one batch on the GPU
        (plain unlabeled cliques go to the clique kernel through ``count_pattern``); ``"auto"``/None:
        the GPU when one is visible (the 200 HPRD queries: 0.54 ms against 7.07 ms for the cpu
        batch on 16 cores, docs/gpu_enum.md), else the cpu
    deep_items : gpu only: levels of the batch are expanded breadth-first across all queries while
        they hold fewer work items than this (default: while a level fits its array,
        ``la_gpm.exact.dumato.BATCH_MAX_ITEMS`` rows; 0: each root is searched depth first)
    cpu_batch : cpu only: count all plans in one parallel region (default; queries and their roots
        in parallel over the cores; plain cliques and the closed forms still go through
        ``count_pattern``), or with False one ``count_pattern`` call per pattern; same counts
    return_stats : also return a dict (backend, seconds, and on the gpu the batch's launches, warps,
        level capacity)

    Returns
    -------
    list of int (one per pattern, in order), or (list, dict) with ``return_stats``

    Raises
    ------
    the exceptions :func:`~la_gpm.api.count_pattern` raises (``PatternTooLarge``,
    ``LabelMismatch``, ``InvalidPattern``, ...), before anything is counted, with the index of the
    offending pattern (``patterns[i]: ...``) in the message.

    Examples
    --------
    >>> import la_gpm
    >>> G = la_gpm.datasets.load("karate")
    >>> count_many(G, ["4-cycle", "diamond", "4-path"], backend="cpu")
    [154, 151, 2371]
    """
    t0 = time.perf_counter()
    check_count_options(count, memory_budget, induced)
    if deep_items is not None and (isinstance(deep_items, bool) or not isinstance(deep_items, (int, np.integer))
                                   or deep_items < 0):
        raise InvalidArgument(f"deep_items must be a non-negative int or None; got {deep_items!r}")
    if isinstance(patterns, (str, bytes)):
        raise InvalidArgument("patterns must be an iterable of patterns (a list), not one pattern name; "
                              "use count_pattern for a single pattern")
    G = as_graph(G)
    G.require_undirected("pattern counting (la_gpm patterns are undirected)")
    pats, derived = prepared(G, list(patterns), bool(induced), bool(reuse))
    b = engines.batch_backend(backend)
    kw = dict(induced=bool(induced), count=count, memory_budget=memory_budget, reuse=reuse)
    stats = {"backend": b, "patterns": len(pats)}
    if b == "cpu" and not cpu_batch:
        out = [count_pattern(G, P, backend="cpu", closed_forms=closed_forms, **kw) for P in pats]
    else:
        def choice(P):
            return engines.choose(G, P, induced=induced, backend=b, closed_forms=closed_forms, reuse=reuse,
                                  memory_budget=memory_budget)

        # counted by its own engine (cliques, closed forms), not in the plan batch
        alone, plans, where = route(G, pats, derived, (b, bool(closed_forms)), induced, reuse,
                                    lambda P: not choice(P).engine.batches)
        out = [0] * len(pats)
        for i in alone:
            out[i] = engines.embeddings(engines.run(choice(pats[i]))[0], pats[i], count)
        if plans:
            if b == "cpu":
                from .exact.cpu import count_plans_batch_cpu
                got = count_plans_batch_cpu(G, plans)
            else:
                from .exact.dumato import count_plans_batch_gpu
                got, st = count_plans_batch_gpu(G, plans, memory_budget=memory_budget, deep_items=deep_items)
                stats.update(st)
            mult = derived.get(("aut", b, bool(closed_forms), count))
            if mult is None:
                mult = derived[("aut", b, bool(closed_forms), count)] = [engines.embeddings(1, pats[i], count)
                                                                         for i in where]
            for i, n, a in zip(where, got, mult):
                out[i] = int(n) * a
    out = [int(x) for x in out]
    stats["seconds"] = time.perf_counter() - t0
    return (out, stats) if return_stats else out


def count_embeddings(G, Q, *, induced: bool = False, backend: str | None = None, **options) -> int:
    """Number of embeddings of Q in G (the Sun & Luo / HPRD convention) = unique × |Aut(Q)|.

    Examples
    --------
    >>> import la_gpm
    >>> count_embeddings(la_gpm.datasets.load("karate"), "triangle")
    270
    """
    return count_pattern(G, Q, induced=induced, count="embeddings", backend=backend, **options)
