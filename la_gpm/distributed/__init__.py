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

Install with the ``dist`` extra (``pip install la-gpm[dist]``; add ``dask-cuda`` for GPU clusters).
"""

from __future__ import annotations

from .. import engines
from ..exact.plans import check_count_options, check_pattern
from ..exceptions import BackendUnavailable, InvalidArgument
from ..patterns import as_pattern
from ..validation import as_graph

__all__ = ["census", "count", "count_part", "count_whole", "estimate"]


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
    if backend not in ("cpu", "gpu"):
        raise InvalidArgument(f"backend must be 'cpu' or 'gpu' (every worker runs it); got {backend!r}")
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
    import numpy as np

    from ..color_coding.driver import prepare
    from ..color_coding.cpu_kernels import coloring_keys

    G = as_graph(G)
    P = as_pattern(template)
    labels = None if P.vertex_labels is None else tuple(int(x) for x in P.vertex_labels)
    shape = (P.k, tuple((int(a), int(b)) for a, b in P.edges), labels)
    key = f"dist:cc:{shape}:{backend}:{dtype}:{spmm}:{layout}"
    runner = G.device_cache(key, lambda: prepare(G, P, backend, dtype, spmm, layout=layout)[5])
    totals, _ = runner.run(coloring_keys(int(seed), int(first), int(count)))
    return np.asarray(totals, dtype=np.float64)


def estimate(G, template, *, client=None, parts: int | None = None, per_part: int = 4, eps: float = 0.05,
             delta: float = 0.01, seed=None, max_colorings: int | None = None, time_budget: float | None = None,
             stop: str = "adaptive", backend: str = "cpu", dtype="float32", spmm: str = "auto",
             layout: str = "auto"):
    """Color-coding estimate of a tree template's count (:func:`la_gpm.estimate`), colorings on a Dask cluster.

    Parameters
    ----------
    G, template, eps, delta, seed, max_colorings, time_budget, stop, dtype, spmm, layout :
        as in :func:`la_gpm.estimate` (the same stop rules and guarantees)
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

    if backend not in ("cpu", "gpu"):
        raise InvalidArgument(f"backend must be 'cpu' or 'gpu' (every worker runs it); got {backend!r}")
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

    return cc_estimate(G, P, eps=eps, delta=delta, seed=s, max_colorings=max_colorings, time_budget=time_budget,
                       stop=stop, dtype=dtype, layout=layout, batch=parts * per_part, _colorings=colorings)


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
