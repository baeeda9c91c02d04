"""Exact counts on a Dask cluster, for graphs and patterns that outgrow one machine's cores or GPU.

:func:`count`: a count is a sum over root vertices, so the work splits into ``parts`` consecutive root ranges
of about equal estimated work (:mod:`la_gpm.partition`); each Dask task counts one part
with the ordinary single-machine engine (``backend="cpu"``: numba on the worker's threads;
``backend="gpu"``: the worker's GPU, e.g. one worker per GPU with ``dask_cuda.LocalCUDACluster``)
and the exact Python ints are added on the client. The graph is sent to every worker once
(``client.scatter(..., broadcast=True)``; later calls on the same graph and client reuse that copy) and
its derived arrays and device copies are cached there between tasks and calls.

:func:`estimate`: color-coding colorings are independent, so each pass of the stop rule hands its
colorings to the workers in equal consecutive ranges; the seed and coloring numbers are those of
:func:`la_gpm.estimate`, so a distributed estimate equals the single-machine one with the same seed
and ``batch``.

:func:`estimate_census`: the colorings of Motivo's estimated census (:func:`la_gpm.estimate_census`) run as
Dask tasks, one coloring each, in batches of a fixed size; the stop rule, the AGS steering and the class
registry stay on the client and take the colorings' statistics in coloring order, so the table depends
on the seed and ``batch`` only (not on the workers, their number or their timing) and equals
``la_gpm.estimate_census(G, k, ..., batch=batch)``.

A worker that dies mid-call loses its tasks; the scheduler runs them again on the other workers (or the
restarted one), and every task is a pure function of its arguments, so the answer is the same.

Install with the ``dist`` extra (``pip install la-gpm[dist]``; add ``dask-cuda`` for GPU clusters).
"""

from __future__ import annotations

from .. import engines
from ..exact.plans import check_count_options, check_pattern
from ..exceptions import BackendUnavailable, InvalidArgument
from ..patterns import as_pattern
from ..validation import as_graph

__all__ = ["census", "census_colorings", "count", "count_part", "count_whole", "estimate", "estimate_census"]


def _client(client):
    try:
        import distributed
    except ImportError as e:  # pragma: no cover - the dist extra is part of the test set-up
        raise BackendUnavailable("la_gpm.distributed needs dask.distributed: pip install 'la-gpm[dist]'") from e
    if client is not None:
        if not isinstance(client, distributed.Client):
            raise InvalidArgument(f"client must be a dask.distributed.Client; got {type(client).__name__}")
        return client
    try:
        return distributed.get_client()
    except ValueError:
        raise InvalidArgument("no Dask client: pass client=Client(...) or create one first "
                              "(e.g. distributed.Client(LocalCluster()) or dask_cuda.LocalCUDACluster())") from None


def _parts(c, parts, per: str, what: str = "parts"):
    """``parts`` checked, or its default from the cluster: 4 tasks per worker thread (``per="thread"``),
    4 per worker (``"worker4"``) or 1 per worker (``"worker"``)."""
    if parts is not None:
        if isinstance(parts, bool) or not isinstance(parts, int) or parts < 1:
            raise InvalidArgument(f"{what} must be a positive integer or None; got {parts!r}")
        return parts
    info = c.scheduler_info()["workers"]
    if per == "thread":
        return 4 * max(1, sum(w.get("nthreads", 1) for w in info.values()))
    return (4 if per == "worker4" else 1) * max(1, len(info))


def _worker_backend(backend):
    if backend not in ("cpu", "gpu"):
        raise InvalidArgument(f"backend must be 'cpu' or 'gpu' (every worker runs it); got {backend!r}")


def _scattered(c, G):
    """G on every worker of client ``c``: scattered once per (client, graph) and kept for later calls, so the
    workers keep their copy and, cached on it, the derived arrays and device copies of earlier tasks.
    A copy that was lost (client closed, worker gone) is scattered again."""
    def make():
        return c.id, c.scatter(G, broadcast=True, hash=False)
    return G.cached("dask-scattered", make, valid=lambda e: e[0] == c.id and e[1].status == "finished")[1]


def count_part(G, P, part, *, induced=False, count="unique", backend="cpu", memory_budget=None) -> int:
    """Exact count of the matches of ``P`` whose root lies in ``part=(i, nparts)`` (one Dask task).

    The engine is the one :mod:`la_gpm.engines` chooses for a part (cliques: the DAG clique kernels;
    other patterns: the cpu plan engine or the gpu trie engine). The parts of one backend add up to
    :func:`la_gpm.count` of the same arguments.

    >>> import la_gpm
    >>> G = la_gpm.datasets.load("karate")
    >>> sum(count_part(G, "4-cycle", (i, 3)) for i in range(3))
    154
    """
    G = as_graph(G)
    P = _checked(G, P, count, backend, memory_budget, induced)
    choice = engines.choose(G, P, induced=induced, backend=backend, memory_budget=memory_budget, part=part)
    n, _ = engines.run(choice)
    return engines.embeddings(n, P, count)


def count_whole(G, P, *, induced=False, count="unique", backend="cpu", memory_budget=None) -> int:
    """The whole count in one task, for a pattern whose best engine is linear in the graph (a closed form):
    :func:`la_gpm.api.count_pattern` on the worker."""
    from ..api import count_pattern
    return count_pattern(G, P, induced=induced, count=count, backend=backend, memory_budget=memory_budget)


def _checked(G, P, count, backend, memory_budget, induced):
    """The pattern, checked as :func:`la_gpm.api.count_pattern` checks it (options, size, labels)."""
    check_count_options(count, memory_budget, induced)
    _worker_backend(backend)
    return check_pattern(G, P)


def count(G, pattern, *, client=None, parts: int | None = None, induced: bool = False, count: str = "unique",
          backend: str = "cpu", memory_budget: int | None = None) -> int:
    """Count copies of ``pattern`` in ``G`` exactly, split over the workers of a Dask cluster.

    Parameters
    ----------
    G, pattern, induced, count : as in :func:`la_gpm.count`
    client : a ``dask.distributed.Client`` (default: the current one)
    parts : number of tasks (default: 4 per worker thread for ``cpu``, 4 per worker for ``gpu``);
        more parts balance better, fewer cost less scheduling
    backend : ``"cpu"`` or ``"gpu"``, the engine every worker runs (the same for all parts)
    memory_budget : per-task bytes for the engines' stacks / partial matches

    Returns
    -------
    int, exact (the sum of the parts' Python ints)

    Examples
    --------
    >>> import la_gpm, la_gpm.distributed
    >>> from distributed import Client, LocalCluster
    >>> with LocalCluster(n_workers=1, threads_per_worker=2, processes=False) as lc, Client(lc) as c:
    ...     la_gpm.distributed.count(la_gpm.datasets.load("karate"), "diamond", client=c)
    151
    """
    G = as_graph(G)
    G.require_undirected("distributed counting")
    P = _checked(G, pattern, count, backend, memory_budget, induced)
    c = _client(client)
    kw = dict(induced=induced, count=count, backend=backend, memory_budget=memory_budget)
    parts = _parts(c, parts, "thread" if backend == "cpu" else "worker4")
    whole = engines.choose(G, P, induced=induced, backend=backend, memory_budget=memory_budget)
    Gf = _scattered(c, G)
    if whole.engine.linear:  # O(n + m) (a closed form): one task, splitting would not pay
        return int(c.submit(count_whole, Gf, P, pure=False, **kw).result())
    futs = [c.submit(count_part, Gf, P, (i, parts), pure=False, **kw) for i in range(parts)]
    return sum(int(x) for x in c.gather(futs))


def coloring_totals(G, template, seed: int, first: int, count: int, *, backend="cpu", dtype="float32",
                    spmm="auto", layout="auto"):
    """Colorful totals of colorings ``first .. first+count-1`` of ``seed`` (one Dask task of
    :func:`estimate`); the tables' plan and buffers are kept on the worker's copy of the graph."""
    from ..color_coding.driver import prepare
    from ..color_coding.cpu_kernels import coloring_keys

    G = as_graph(G)
    P = as_pattern(template)
    labels = None if P.vertex_labels is None else tuple(int(x) for x in P.vertex_labels)
    shape = (P.k, tuple((int(a), int(b)) for a, b in P.edges), labels)
    key = f"dist:cc:{shape}:{backend}:{dtype}:{spmm}:{layout}"
    runner = G.device_cache(key, lambda: prepare(G, P, backend, dtype, spmm, layout=layout)[5])
    return runner.totals(coloring_keys(int(seed), int(first), int(count)))   # in passes within the memory budget


def estimate(G, template, *, client=None, parts: int | None = None, per_part: int = 4, eps: float = 0.05,
             delta: float = 0.01, seed=None, max_colorings: int | None = None, time_budget: float | None = None,
             stop: str | None = None, backend: str = "cpu", dtype="float32", spmm: str = "auto",
             layout: str = "auto"):
    """Color-coding estimate of a tree template's count (:func:`la_gpm.estimate`), colorings on a Dask cluster.

    Parameters
    ----------
    G, template, eps, delta, seed, max_colorings, time_budget, stop, dtype, spmm, layout :
        as in :func:`la_gpm.estimate` (the same stop rules and guarantees; ``stop=None``: its default)
    client : a ``dask.distributed.Client`` (default: the current one)
    parts : tasks per pass of the stop rule (default: one per worker)
    per_part : colorings per task and pass; a pass evaluates ``parts × per_part`` colorings
    backend : ``"cpu"`` or ``"gpu"``: what every worker runs

    Returns
    -------
    :class:`la_gpm.Estimate`, equal to ``la_gpm.estimate(G, template, ..., batch=parts * per_part)`` with
    the same seed (up to float rounding of the tables).

    Examples
    --------
    >>> import la_gpm, la_gpm.distributed
    >>> from distributed import Client, LocalCluster
    >>> G = la_gpm.datasets.load("karate")
    >>> with LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as lc, Client(lc) as c:
    ...     est = la_gpm.distributed.estimate(G, "3-path", client=c, eps=0.1, seed=1)
    >>> bool(est.ci_low <= 528 <= est.ci_high)
    True
    """
    import numpy as np

    from ..color_coding.driver import resolve_seed
    from ..color_coding.driver import estimate as cc_estimate

    _worker_backend(backend)
    G = as_graph(G)
    P = as_pattern(template)
    c = _client(client)
    per_part = _parts(c, per_part, "worker", "per_part")
    parts = _parts(c, parts, "worker")
    s = resolve_seed(seed)
    Gf = _scattered(c, G)

    def colorings(seed_, first, count):
        cuts = np.linspace(first, first + count, parts + 1).astype(np.int64)
        futs = [c.submit(coloring_totals, Gf, P, seed_, int(a), int(b - a), backend=backend, dtype=dtype, spmm=spmm,
                         layout=layout, pure=False) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
        return np.concatenate(c.gather(futs))

    from ..color_coding.driver import DEFAULT_STOP
    return cc_estimate(G, P, eps=eps, delta=delta, seed=s, max_colorings=max_colorings, time_budget=time_budget,
                       stop=DEFAULT_STOP if stop is None else stop, dtype=dtype, layout=layout, batch=parts * per_part, _colorings=colorings)


def census(G, k: int, *, client=None, parts: int | None = None, induced: bool = True):
    """Exact census of every connected k-vertex class (:func:`la_gpm.census`), enumerated on a Dask cluster.

    Each task enumerates the connected induced k-subgraphs rooted in one work-balanced range of roots
    (:func:`la_gpm.motifs.driver.census_part`); the client adds the class counts (Python ints) and,
    for ``induced=False``, converts them with the inclusion matrix, as the single-machine census does.

    Returns the same DataFrame as :func:`la_gpm.census` (``df.attrs["method"] == "distributed_enumerate"``).

    Examples
    --------
    >>> import la_gpm, la_gpm.distributed
    >>> from distributed import Client, LocalCluster
    >>> with LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as lc, Client(lc) as c:
    ...     df = la_gpm.distributed.census(la_gpm.datasets.load("karate"), 3, client=c)
    >>> dict(zip(df.name, df["count"]))
    {'wedge': 393, 'triangle': 45}
    """
    from ..motifs.common import prepare as _prepare
    from ..motifs.driver import census_part, check_k as _check_k
    from ..motifs.frames import frame as _frame
    from ..patterns.classes import classes as _classes, to_noninduced as _to_noninduced

    k = _check_k(k)
    G = _prepare(G, "census")
    if not isinstance(induced, bool):
        raise InvalidArgument(f"induced must be True or False; got {induced!r}")
    c = _client(client)
    parts = _parts(c, parts, "thread")
    cls = _classes(k)
    Gf = _scattered(c, G)
    futs = [c.submit(census_part, Gf, k, (i, parts), pure=False) for i in range(parts)]
    I = [sum(int(x) for x in col) for col in zip(*c.gather(futs))]
    counts = I if induced else _to_noninduced(cls.M, I)
    return _frame(cls, k, counts, induced, "distributed_enumerate")


def census_colorings(G, k: int, seed: int, first: int, count: int, **kw):
    """One task of :func:`estimate_census`: ``(worker address, seconds, [ColoringStats])`` of colorings
    ``first .. first+count-1`` (:func:`la_gpm.motif_estimate.driver.coloring_stats`, keywords passed on)."""
    import time

    from ..motif_estimate.driver import coloring_stats

    t0 = time.perf_counter()
    stats = coloring_stats(G, k, seed, first, count, **kw)
    try:
        from distributed import get_worker
        where = get_worker().address
    except (ImportError, ValueError):   # called outside a Dask worker
        where = "local"
    return where, time.perf_counter() - t0, stats


def estimate_census(G, k: int, *, client=None, batch: int = 8, eps: float = 0.1, delta: float = 0.05, seed=None,
                    time_budget: float | None = None, max_samples: int | None = None, backend: str = "cpu",
                    progress: bool = False, min_frequency: float = 0.01, samples_per_coloring=None,
                    min_colorings: int = 10, max_colorings: int | None = None, adaptive: bool = True,
                    natural_share: float = 0.25, checkpoints: str = "geometric", coloring: str = "balanced",
                    memory_budget: int | None = None):
    """Estimated motif census (:func:`la_gpm.estimate_census`, Motivo + AGS) with its colorings on a Dask cluster.

    **Batch rule.**  Coloring ``j`` is always the j-th of the seed's stream (its colours and its samples come
    from ``(seed, j)`` only, on any worker and backend).  The colorings run in batches of ``batch``:
    batch b is colorings ``b·batch .. b·batch + batch - 1``, one Dask task each, all with the AGS steering
    state (and the ``"auto"`` sample count) the client had after coloring ``b·batch``.  The client takes
    their statistics in coloring order, runs the checks and the stop rule after each coloring as the
    single-machine run does, and cancels the batch's colorings past the stop.  So the result depends on
    the seed and ``batch`` only, not on the number of workers or which finishes first, and equals
    ``la_gpm.estimate_census(G, k, ..., batch=batch)`` (with ``adaptive=False`` and a fixed sample count
    it equals every batch, ``batch=1`` included).  ``time_budget`` and ``samples_per_coloring="auto"``
    depend on measured times, as on one machine.

    Parameters
    ----------
    G, k, eps, delta, seed, time_budget, max_samples, progress, min_frequency, samples_per_coloring,
    min_colorings, max_colorings, adaptive, natural_share, checkpoints, coloring :
        as in :func:`la_gpm.estimate_census` (the same intervals and guarantees)
    memory_budget : bytes one coloring's tables may take on each worker (as in :func:`la_gpm.estimate_census`)
    client : a ``dask.distributed.Client`` (default: the current one)
    batch : colorings per batch (default 8); at least the number of workers keeps them all busy; larger
        batches steer AGS less often and may compute up to ``batch - 1`` colorings past the stop
    backend : ``"cpu"`` or ``"gpu"``: what every worker runs (the client needs no GPU)

    Returns
    -------
    The DataFrame of :func:`la_gpm.estimate_census`; ``df.attrs["workers"]`` adds, per worker address, the
    colorings it contributed and their seconds (``task_s`` per task, ``build_s`` tables, ``sample_s``
    sampling), ``df.attrs["n_workers"]`` the workers at the end of the call.

    Examples
    --------
    >>> import la_gpm, la_gpm.distributed
    >>> from distributed import Client, LocalCluster
    >>> G = la_gpm.datasets.load("karate")
    >>> with LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as lc, Client(lc) as c:
    ...     df = la_gpm.distributed.estimate_census(G, 3, client=c, seed=1)
    >>> df.equals(la_gpm.estimate_census(G, 3, seed=1, batch=8, backend="cpu"))
    True
    """
    from ..color_coding.driver import resolve_seed
    from ..motif_estimate.driver import estimate_census as me_estimate_census

    _worker_backend(backend)
    G = as_graph(G)
    c = _client(client)
    s = resolve_seed(seed)
    kw = dict(adaptive=adaptive, natural_share=natural_share, coloring=coloring, backend=backend,
              memory_budget=memory_budget)
    per_worker: dict = {}

    def colorings(first, count, samples, left, steer):
        Gf = _scattered(c, G)
        futs = [c.submit(census_colorings, Gf, k, s, j, 1, samples=samples, left=left, steer=steer, pure=False, **kw)
                for j in range(first, first + count)]
        try:
            for f in futs:
                where, secs, stats = f.result()
                w = per_worker.setdefault(where, {"colorings": 0, "task_s": 0.0, "build_s": 0.0, "sample_s": 0.0})
                w["colorings"] += len(stats)
                w["task_s"] += secs
                w["build_s"] += sum(r.build_s for r in stats)
                w["sample_s"] += sum(r.sample_s for r in stats)
                yield from stats
        finally:
            left_over = [f for f in futs if not f.done()]
            if left_over:
                c.cancel(left_over)

    df = me_estimate_census(G, k, eps=eps, delta=delta, seed=s, time_budget=time_budget, max_samples=max_samples,
                            backend=backend, progress=progress, min_frequency=min_frequency,
                            samples_per_coloring=samples_per_coloring, min_colorings=min_colorings,
                            max_colorings=max_colorings, adaptive=adaptive, natural_share=natural_share,
                            checkpoints=checkpoints, coloring=coloring, batch=batch, _colorings=colorings)
    df.attrs.update(workers=per_worker, n_workers=len(c.scheduler_info()["workers"]),
                    method=df.attrs["method"] + ", colorings on a Dask cluster")
    return df
