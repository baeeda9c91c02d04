"""Exact counts on a Dask cluster, for graphs and patterns that outgrow one machine's cores or GPU.

A count is a sum over root vertices, so the work splits into ``parts`` consecutive root ranges
of about equal estimated work (:mod:`la_gpm.backends.partition`); each Dask task counts one part
with the ordinary single-machine engine (``backend="cpu"``: numba on the worker's threads;
``backend="gpu"``: the worker's GPU, e.g. one worker per GPU with ``dask_cuda.LocalCUDACluster``)
and the exact Python ints are added on the client. The graph is sent to every worker once
(``client.scatter(..., broadcast=True)``) and its derived arrays are cached there between tasks.

Install with the ``dist`` extra (``pip install la-gpm[dist]``; add ``dask-cuda`` for GPU clusters).
"""

from __future__ import annotations

import math

from .._validation import as_graph
from ..exceptions import BackendUnavailable, InvalidArgument
from ..patterns import as_pattern

__all__ = ["count"]

COUNT_KINDS = ("unique", "embeddings")


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


def count_part(G, P, part, *, induced=False, count="unique", backend="cpu", memory_budget=None) -> int:
    """Exact count of the matches of ``P`` whose root lies in ``part=(i, nparts)`` (one Dask task).

    The parts of one backend add up to :func:`la_gpm.count` of the same arguments.

    >>> import la_gpm
    >>> G = la_gpm.datasets.load("karate")
    >>> sum(count_part(G, "4-cycle", (i, 3)) for i in range(3))
    154
    """
    from ..algorithms.cliques import clique_count
    from ..algorithms.subgraph import check_labels, check_size, plan_for, run_plan

    G = as_graph(G)
    P = as_pattern(P)
    if P.is_clique and not P.labeled:
        n = clique_count(G, P.k, backend=backend, part=part)
        return n * math.factorial(P.k) if count == "embeddings" else n
    check_size(P)
    check_labels(G, P)
    if backend == "gpu":
        from ..backends.gpu.trie import count_plan_bfs
        n, _ = count_plan_bfs(G, plan_for(G, P, induced=induced, reuse=False), memory_budget=memory_budget,
                              part=part)
    elif backend == "cpu":
        n, _ = run_plan(G, plan_for(G, P, induced=induced), memory_budget=memory_budget, part=part)
    else:
        raise BackendUnavailable(f"la_gpm.distributed runs the cpu and gpu engines; got backend={backend!r}")
    return n * P.automorphism_count if count == "embeddings" else n


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
    if count not in COUNT_KINDS:
        raise InvalidArgument(f"count must be one of {COUNT_KINDS}; got {count!r}")
    if backend not in ("cpu", "gpu"):
        raise InvalidArgument(f"backend must be 'cpu' or 'gpu' (every worker runs it); got {backend!r}")
    if parts is not None and (isinstance(parts, bool) or not isinstance(parts, int) or parts < 1):
        raise InvalidArgument(f"parts must be a positive integer or None; got {parts!r}")
    G = as_graph(G)
    G._require_undirected("distributed counting")
    P = as_pattern(pattern)
    P.require_connected("counting")
    c = _client(client)
    if parts is None:
        info = c.scheduler_info()["workers"]
        units = sum(w.get("nthreads", 1) for w in info.values()) if backend == "cpu" else len(info)
        parts = 4 * max(1, units)
    Gf = c.scatter(G, broadcast=True, hash=False)  # a fresh key: an earlier call's copy may be being released
    futs = [c.submit(count_part, Gf, P, (i, parts), induced=induced, count=count, backend=backend,
                     memory_budget=memory_budget, pure=False) for i in range(parts)]
    return sum(int(x) for x in c.gather(futs))
