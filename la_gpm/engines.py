"""The one engine table: for a pattern, its semantics and a backend, which engine counts it exactly, and why.

Every exact count goes through :func:`choose`: :func:`la_gpm.count`, :func:`la_gpm.api.count_pattern`,
:func:`la_gpm.count_many` (each pattern that is not counted in the plan batch) and
:func:`la_gpm.distributed.count` / ``count_part``. The rows are tried in order; the first engine that
*can run* the request (pattern kind, semantics, backend, options) and *should run* it (no better engine
applies) counts it. Each row answers both questions with a reason in words (networkx-dispatch style), so
:func:`explain` can show a user why their call went where it went::

    >>> import la_gpm
    >>> from la_gpm.engines import choose
    >>> G = la_gpm.datasets.load("karate")
    >>> choose(G, la_gpm.Pattern([(0, 1), (0, 2), (0, 3)]), backend="cpu").engine.name   # any spelling of a star
    'closed_form'

Patterns are recognised by canonical form (:attr:`la_gpm.Pattern.canonical_key`), so a pattern given as
an edge list, a name or a file reaches the same engine.

=============  ============================  =========================  =====================================
engine         family (folder)               backends                   runs when
=============  ============================  =========================  =====================================
triangles      ``la_gpm/triangles``          cpu, graphblas, gpu        the unlabeled triangle
kcliques       ``la_gpm/kcliques``           cpu, graphblas, gpu        an unlabeled k-clique, k = 3..32
closed_form    ``la_gpm/motifs/closed_forms``  cpu                      non-induced, unlabeled, a pattern with
                                                                        a closed form (stars, wedge, every
                                                                        connected 4-vertex class but K4, and
                                                                        every connected 5-vertex class but K5:
                                                                        docs/closed_forms.md)
cuts           ``la_gpm/exact/cuts.py``      gpu                        unlabeled, 5+ vertices (or asked for)
dumato         ``la_gpm/exact/dumato.py``    gpu                        any pattern
plan_dfs       ``la_gpm/exact/cpu.py``       cpu                        any pattern
directed       ``la_gpm/motifs/              cpu, gpu                   a directed pattern (``DiPattern``, 3 or
               directed_count.py``                                      4 vertices) on a directed graph
=============  ============================  =========================  =====================================

The rows above ``directed`` take undirected patterns on undirected graphs; a directed graph or a
``DiPattern`` goes to ``directed`` (its row of the directed census, induced or not), which no other row
can count, and an undirected pattern on a directed graph is refused with the ways on (``la_gpm.count``).

``backend="auto"`` (or None with ``config.backend == "auto"``): the GPU when one is visible and the best
engine there is one that wins on the GPU by measurement (triangles, cliques), else the CPU: the numba
plan engine beats a GPU launch on the small searches most patterns make (docs/gpu_enum.md). A batch of
many patterns (:func:`batch_backend`) prefers the GPU when one is visible: the batch fills it.

Repeat calls: a row may have a *repeat form* (``Engine.prepare``; today the gpu triangle and k-clique kernels). The
first ``la_gpm.count(G, name, backend=...)`` without engine options asks the table as above and, where the chosen
row has one, binds it (device buffers, grids, kernel arguments) and keeps it with G (:func:`repeatable`), keyed on
every input of the choice that G and the name do not fix: ``induced``, ``count``, ``backend`` and ``config.version``
(any config change moves it). A repeat call then runs only the bound kernels: the choice is still this table's, made
once. On email-Enron a gpu triangle count took 119 us, 50 of them kernels, and with its repeat form 62 us (H100).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from .backends import gpu_status, resolve_backend
from .config import BACKENDS, config
from .exceptions import BackendUnavailable, InvalidArgument

__all__ = ["Engine", "Choice", "Request", "ENGINES", "choose", "explain", "run", "batch_backend", "embeddings",
           "GPU_ENGINES"]

GPU_ENGINES = ("auto", "dfs", "trie")


@dataclass(frozen=True)
class Request:
    """One exact count to place: the graph, the pattern (validated), the semantics and the options."""
    G: object
    P: object
    induced: bool = False
    backend: str = "cpu"                 # concrete: cpu, graphblas or gpu
    closed_forms: bool = True
    gpu_engine: str = "auto"
    reuse: bool = True
    memory_budget: int | None = None
    progress: bool = False
    part: tuple | None = None            # (i, nparts): only the matches rooted in that part of the roots
    options: dict = field(default_factory=dict)   # engine-specific (e.g. the triangles ``method``)


@dataclass(frozen=True)
class Engine:
    """A row of the table. ``can_run``/``should_run`` return None (yes) or the reason in words (no)."""
    name: str
    where: str
    paper: str
    backends: tuple
    splits: bool          # counts one part of the roots (part=(i, nparts)): the distributed path
    linear: bool          # O(n + m) work: a cluster would not speed it up (the distributed path runs it whole)
    batches: bool         # counted with the other plans of a count_many batch
    auto_gpu: bool        # backend="auto" takes the GPU for it when one is visible
    can_run: Callable
    should_run: Callable
    run: Callable         # Request -> (unique count as a Python int, stats dict)
    detail: Callable = None   # Request -> words on what this engine does for it (e.g. the formula)
    accepts: tuple = ()       # engine-specific options it takes (Request.options)
    # Request -> a callable counting it again with everything a repeat call reuses bound once (device buffers, kernel
    # arguments), returning the unique count as a Python int; or None (no repeat form for this request)
    prepare: Callable = None


@dataclass(frozen=True)
class Choice:
    """The row that counts a request, the request as it will run (concrete backend), and why."""
    engine: Engine
    request: Request
    reason: str

    @property
    def backend(self) -> str:
        return self.request.backend


# --------------------------------------------------------------------------- the rows


def _plain_triangle(P):
    return P.k == 3 and P.num_edges == 3 and not P.labeled


def _plain_clique(P):
    return P.is_clique and not P.labeled and P.k >= 3


def _tri_can(r):
    if not _plain_triangle(r.P):
        return "the pattern is not the unlabeled triangle"
    if r.G.labeled:
        return "the graph is labeled (the clique kernel ignores its labels the same way)"
    if r.part is not None:
        return "the triangle kernels count the whole graph (no part=)"
    return None


def _tri_run(r):
    from .triangles import triangle_count
    t0 = time.perf_counter()
    n = triangle_count(r.G, backend=r.backend, **r.options)
    return n, {"plan": f"triangles ({r.backend})", "reuse_hits": 0, "set_operations": None,
               "set_operations_saved": None, "seconds": time.perf_counter() - t0}


def _tri_prepare(r):
    """The gpu triangle count bound for repeat calls (the default method's kernels and schedule)."""
    if r.backend != "gpu" or r.options.get("method", "auto") not in ("auto", "warp_per_arc"):
        return None
    from .triangles.gpu import repeat_count
    return repeat_count(r.G)


def _clique_can(r):
    if not _plain_clique(r.P):  # k > 32 stays here: clique_count raises PatternTooLarge with advice
        return "the pattern is not an unlabeled clique of 3 or more vertices"
    if r.part is not None and r.backend == "graphblas":
        return "the graphblas clique formulation counts the whole graph (no part=)"
    return None


def _clique_prepare(r):
    """The gpu k-clique count of the whole graph bound for repeat calls (the default kernel)."""
    from .kcliques.gpu import MAX_K, repeat_count
    if r.backend != "gpu" or r.part is not None or not 3 <= r.P.k <= MAX_K:
        return None
    return repeat_count(r.G, r.P.k)


def _clique_run(r):
    from .kcliques import clique_count
    t0 = time.perf_counter()
    n = clique_count(r.G, r.P.k, backend=r.backend, part=r.part)
    return n, {"plan": f"{r.P.k}-clique on the degree-ordered DAG ({r.backend})", "reuse_hits": 0,
               "set_operations": None, "set_operations_saved": None, "seconds": time.perf_counter() - t0}


def _single():
    """la_gpm.motifs.single (which patterns have a closed form), imported on first use."""
    from .motifs import single
    return single


def _closed_can(r):
    if r.backend != "cpu":
        return "closed forms run on the cpu backend"
    if r.induced:
        return "the closed forms count non-induced copies"
    if r.P.labeled:
        return "the closed forms are of unlabeled patterns"
    if r.part is not None:
        return "a closed form counts the whole graph at once (no part=)"
    if _single().closed_form_of(r.P) is None:
        return "no closed form is known for this pattern (docs/closed_forms.md lists those there are)"
    return _single().closed_form_guard(r.P, r.G)


def _closed_should(r):
    return None if r.closed_forms else "closed_forms=False asked for the enumeration"


def _closed_run(r):
    fn, text = _single().closed_form_of(r.P)
    t0 = time.perf_counter()
    n = int(fn(r.G))
    return n, {"plan": f"closed form: {text}", "reuse_hits": 0, "set_operations": None,
               "set_operations_saved": None, "seconds": time.perf_counter() - t0}


def _plan(r, reuse):
    from .exact.plans import plan_for
    return plan_for(r.G, r.P, induced=r.induced, reuse=reuse)


def _cuts_can(r):
    if r.gpu_engine == "dfs":
        return "gpu_engine='dfs' asked for the depth-first engine"
    return None


def _cuts_should(r):
    if r.part is None and r.gpu_engine == "auto" and (r.P.k < 5 or r.P.labeled):  # parts: the only GPU engine
        return ("below 5 vertices or with labels the depth-first engine is on par or faster (measured; the trie "
                "wins 6x on the house, wiki-Vote and email-Eu-core: docs/gpu_trie.md)")
    return None


def _cuts_run(r):
    from .exact.cuts import count_plan_bfs
    return count_plan_bfs(r.G, _plan(r, False), memory_budget=r.memory_budget, part=r.part)


def _dumato_can(r):
    if r.part is not None:
        return "the depth-first GPU engine counts all roots (parts go to the trie engine)"
    return None


def _dumato_run(r):
    from .exact.dumato import count_plan_gpu
    return count_plan_gpu(r.G, _plan(r, r.reuse), memory_budget=r.memory_budget)


def _plan_run(r):
    from .exact.cpu import run_plan
    return run_plan(r.G, _plan(r, r.reuse), memory_budget=r.memory_budget, progress=r.progress, part=r.part)


def _no_objection(r):
    return None


ENGINES = (
    Engine(name="triangles", where="la_gpm/triangles", paper="masked SpGEMM on the oriented DAG (LA triangle counting)",
           backends=("cpu", "graphblas", "gpu"), splits=False, linear=False, batches=False, auto_gpu=True,
           can_run=_tri_can, should_run=_no_objection, run=_tri_run, accepts=("method",), prepare=_tri_prepare),
    Engine(name="kcliques", where="la_gpm/kcliques",
           paper="k-cliques on the degree-ordered DAG (each clique once, O(√m) out-lists)",
           backends=("cpu", "graphblas", "gpu"), splits=True, linear=False, batches=False, auto_gpu=True,
           can_run=_clique_can, should_run=_no_objection, run=_clique_run, prepare=_clique_prepare),
    Engine(name="closed_form", where="la_gpm/motifs/degree_forms.py, la_gpm/motifs/closed_forms.py, "
                                     "la_gpm/motifs/closed_forms5.py",
           paper="closed forms over degrees, triangles, 4-cycles and 4-cliques (FGLT / ESCAPE)",
           backends=("cpu",), splits=False, linear=True, batches=False, auto_gpu=False,
           can_run=_closed_can, should_run=_closed_should, run=_closed_run,
           detail=lambda r: _single().closed_form_of(r.P)[1]),
    Engine(name="cuts", where="la_gpm/exact/cuts.py", paper="cuTS: trie levels breadth-first within the memory budget",
           backends=("gpu",), splits=True, linear=False, batches=True, auto_gpu=False,
           can_run=_cuts_can, should_run=_cuts_should, run=_cuts_run),
    Engine(name="dumato", where="la_gpm/exact/dumato.py", paper="DuMato: warp-centric DFS with RPS reuse",
           backends=("gpu",), splits=False, linear=False, batches=True, auto_gpu=False,
           can_run=_dumato_can, should_run=_no_objection, run=_dumato_run),
    Engine(name="plan_dfs", where="la_gpm/exact/cpu.py", paper="RPS plans depth first in numba, symmetry-broken",
           backends=("cpu",), splits=True, linear=False, batches=True, auto_gpu=False,
           can_run=_no_objection, should_run=_no_objection, run=_plan_run),
)


# --------------------------------------------------------------------------- choosing


def _request_backend(backend):
    b = config.backend if backend is None else backend
    if b not in BACKENDS:
        raise InvalidArgument(f"backend must be one of {BACKENDS}; got {b!r}")
    return b


def _first(req):
    """(engine, reason) of the first row that can and should run ``req``, or (None, reasons of every row).
    Engine-specific options (``req.options``) are checked against the chosen row."""
    why = []
    for e in ENGINES:
        if req.backend not in e.backends:
            why.append(f"{e.name}: no {req.backend!r} implementation")
            continue
        no = e.can_run(req) or e.should_run(req)
        if no is None:
            unknown = set(req.options) - set(e.accepts)
            if unknown:
                raise InvalidArgument(f"option(s) {sorted(unknown)} do not apply: this pattern is counted by "
                                      f"{e.name}, which takes {list(e.accepts) or 'no engine options'}")
            return e, f"{e.name} ({e.paper})" + (f": {e.detail(req)}" if e.detail is not None else "")
        why.append(f"{e.name}: {no}")
    return None, why


def choose(G, P, *, induced: bool = False, backend: str | None = None, closed_forms: bool = True,
           gpu_engine: str = "auto", reuse: bool = True, memory_budget=None, progress: bool = False, part=None,
           **options) -> Choice:
    """The engine and concrete backend that count ``P`` in ``G`` (both validated by the caller).

    Raises BackendUnavailable (with the reason) when the backend asked for cannot run here or has no
    engine for this pattern."""
    if gpu_engine not in GPU_ENGINES:
        raise InvalidArgument(f"gpu_engine must be one of {GPU_ENGINES}; got {gpu_engine!r}")
    kw = dict(induced=bool(induced), closed_forms=closed_forms, gpu_engine=gpu_engine, reuse=reuse,
              memory_budget=memory_budget, progress=progress, part=part, options=options)
    asked = _request_backend(backend)
    if asked == "auto":
        order = ("gpu", "cpu") if gpu_status() is None else ("cpu",)
        for b in order:
            req = Request(G, P, backend=b, **kw)
            e, why = _first(req)
            if e is not None and (b != "gpu" or e.auto_gpu):
                return Choice(e, req, why + ("; auto: the GPU is visible and wins for it" if b == "gpu" else
                                           "; auto: the CPU" + (" (the GPU wins for cliques and triangles only)"
                                                                if gpu_status() is None else "")))
        raise BackendUnavailable("no engine can count this pattern: " + "; ".join(why))
    b = resolve_backend(asked, supported=("cpu", "graphblas", "gpu"), what="exact pattern counting")
    req = Request(G, P, backend=b, **kw)
    e, why = _first(req)
    if e is None:
        if b == "graphblas":
            raise BackendUnavailable("backend 'graphblas' counts cliques (masked mxm) only; this pattern is not a "
                                     "clique, so use backend='cpu'")
        raise BackendUnavailable(f"no {b!r} engine can count this pattern: " + "; ".join(why))
    return Choice(e, req, why)


def run(choice: Choice) -> tuple:
    """Count the chosen request: (unique count as a Python int, stats with the engine, backend and reason)."""
    n, stats = choice.engine.run(choice.request)
    stats = dict(stats)
    stats.update(engine=choice.engine.name, backend=choice.backend, reason=choice.reason)
    return int(n), stats


def explain(G, P, *, induced: bool = False, backend: str | None = None, **kw) -> list:
    """Every row of the table for this request: ``(engine, backend, verdict, reason)``, verdict one of
    ``"chosen"``, ``"can run"``, ``"cannot"``; the reasons are the rows' own words.

    >>> import la_gpm
    >>> G = la_gpm.datasets.load("karate")
    >>> [(e, v) for e, b, v, _ in explain(G, la_gpm.Pattern.named("6-cycle"), backend="cpu")]
    [('triangles', 'cannot'), ('kcliques', 'cannot'), ('closed_form', 'cannot'), ('plan_dfs', 'chosen')]
    >>> [(e, v) for e, b, v, _ in explain(G, la_gpm.Pattern.named("4-cycle"), backend="cpu")][2:]
    [('closed_form', 'chosen'), ('plan_dfs', 'can run')]
    """
    from .patterns import as_pattern
    from .validation import as_graph
    G, P = as_graph(G), as_pattern(P)
    chosen = choose(G, P, induced=induced, backend=backend, **kw)
    req = chosen.request
    out = []
    for e in ENGINES:
        if chosen.backend not in e.backends:
            continue
        if e is chosen.engine:
            out.append((e.name, chosen.backend, "chosen", chosen.reason))
            continue
        no = e.can_run(req) or e.should_run(req)
        out.append((e.name, chosen.backend, "cannot" if no else "can run", no or "a row above was chosen"))
    return out


def batch_backend(backend) -> str:
    """The concrete backend of a :func:`la_gpm.count_many` batch: ``auto`` takes the GPU when one is visible
    (the batch fills it: the 200 HPRD queries 0.54 ms against 7.07 ms for the cpu batch on 16 cores,
    docs/gpu_enum.md), else the CPU."""
    return resolve_backend(backend, supported=("cpu", "gpu"), what="batched exact pattern counting")


REPEAT_KEY = "dev:engines:repeat"    # G's repeat counts ("dev:": Graph.clear_device_cache drops them)


def may_repeat(backend) -> bool:
    """Whether a count on ``backend`` (None: config.backend) may reach a row with a repeat form (the gpu ones)."""
    b = config.backend if backend is None else backend
    return (b == "gpu" or b == "auto") and gpu_status() is None


def repeat_of(G, key):
    """What :func:`repeatable` kept with G under ``key``: (bound count, multiplier), bound on the current device,
    or (None, 0) where the table's row has no repeat form; None when nothing (or a count bound on another device)
    is kept."""
    memo = G._cache.get(REPEAT_KEY)
    hit = None if memo is None else memo.get(key)
    if hit is not None and hit[0] is not None:
        from .device import cupy
        if hit[0].device != cupy().cuda.runtime.getDevice():
            return None
    return hit


def repeatable(G, P, key, *, induced: bool, backend, count: str):
    """The table's choice for counting ``P`` in ``G`` (validated by the caller; no engine options) bound for repeat
    calls, kept with G under ``key`` -- which must hold every input of the choice not fixed by G and P: the
    pattern as given, ``induced``, ``count``, ``backend`` and ``config.version`` (every config change moves it) --
    as (bound count, multiplier: |Aut(P)| for embeddings, else 1).  None where the chosen row has no repeat form
    (:attr:`Engine.prepare`): the caller counts the usual way.  The choice is this table's, made once: a repeat
    call skips the checks, the rows and the engine's set-up, and runs only the bound kernels (la_gpm.count)."""
    choice = choose(G, P, induced=induced, backend=backend)
    run = None if choice.engine.prepare is None else choice.engine.prepare(choice.request)
    hit = (None, 0) if run is None else (run, P.automorphism_count if count == "embeddings" else 1)
    G.cached(REPEAT_KEY, dict)[key] = hit      # (None, 0): the usual way, without asking the table twice again
    return hit if run is not None else None


def embeddings(n: int, P, count: str) -> int:
    """``n`` unique copies as the ``count`` kind asked for (embeddings = unique × |Aut(P)|)."""
    return n * P.automorphism_count if count == "embeddings" else n

