"""Fast from the first call: :func:`warmup` compiles (and caches on disk) the kernels of the common paths.

Every CPU kernel of la_gpm is a numba function compiled with ``cache=True``: the first process on a machine
that calls one compiles it (seconds to a minute on a few cores; :class:`la_gpm.CompileNotice` says so on
stderr) and numba writes it to its disk cache, from where every later process loads it in milliseconds.
:func:`warmup` pays those compiles up front (at install time, in a container build, before a benchmark) by
running the public calls of each kind on small generated graphs, sized so that both the serial path and the
parallel path of each family are taken (families run small inputs on the calling thread and large ones in a
parallel region: two kernels).  With ``backend="gpu"`` it also compiles the CUDA kernels of the same calls
(CuPy caches them on disk, ``~/.cupy/kernel_cache``). docs/first_call.md has the measurements.
"""

from __future__ import annotations

import functools
import sys
import time
import warnings

import numpy as np

from .exceptions import BackendUnavailable, InvalidArgument
from .primitives import compile_notice

__all__ = ["KINDS", "warmup", "kernels"]

# the kinds of call warmup prepares, in the order it runs them, with what each runs
KINDS = {
    "graphs": "graph building: edge lists, files, the G(n, m) generator, degree orders (every call needs these)",
    "triangles": "la_gpm.count(G, 'triangle'), per-vertex triangles",
    "cliques": "la_gpm.count(G, '4-clique' / '5-clique')",
    "patterns": "any connected pattern of 4 and 5 vertices (plans depth first, induced or not) and the closed "
                "forms (stars, 4-path, tailed triangle, bowtie, house)",
    "count_many": "la_gpm.count_many (many plans in one parallel region)",
    "census": "la_gpm.census(G, 3 / 4 / 5) and la_gpm.orbits(G, 3 / 4 / 5)",
    "match": "labeled patterns: la_gpm.match (listing) and labeled counts",
    "color_coding": "la_gpm.estimate (color coding of trees) and la_gpm.tree_census",
    "motif_estimate": "la_gpm.estimate_census (colorful treelet sampling)",
    "dynamic": "la_gpm.match_delta, DynamicGraph.apply and apply_stream (both modes), small and parallel batches",
}


class _Graphs:
    """The small graphs of the warm-up, built once: ``tiny`` (karate: every family's serial path), ``dense``
    (G(400, 12000): cliques and plans cross their parallel thresholds, Σ deg² > 10^6), ``sparse``
    (G(30000, 60000): 120,000 arcs, above the census / closed-form serial limit) and ``labeled`` /
    ``labeled_dense`` (karate and ``dense`` with 3 vertex labels)."""

    @functools.cached_property
    def tiny(self):
        from .datasets import load
        return load("karate")

    @functools.cached_property
    def dense(self):
        from .generators import gnm
        return gnm(400, 12_000, seed=1)

    @functools.cached_property
    def sparse(self):
        from .generators import gnm
        return gnm(30_000, 60_000, seed=1)

    @functools.cached_property
    def labeled(self):
        return _with_labels(self.tiny)

    @functools.cached_property
    def labeled_dense(self):
        return _with_labels(self.dense)


def _with_labels(G):
    from .graph import Graph
    src = np.repeat(np.arange(G.n, dtype=np.int64), np.diff(G.indptr))
    return Graph.from_edges(src, np.asarray(G.indices, dtype=np.int64), G.n,
                            vertex_labels=np.arange(G.n, dtype=np.int64) % 3)


def _graphs(g, backend):
    import tempfile
    from pathlib import Path

    from .graph import Graph
    from .io import read_graph
    g.tiny, g.dense, g.sparse, g.labeled   # noqa: B018 -- built for their kernels
    G = g.tiny
    src = np.repeat(np.arange(G.n, dtype=np.int64), np.diff(G.indptr))
    dst = np.asarray(G.indices, dtype=np.int64)
    Graph.from_edges(src, dst)
    Graph.from_edges(src + 10, dst + 10, compact=True)
    with tempfile.TemporaryDirectory(prefix="la_gpm_warmup_") as d:
        path = Path(d) / "edges.txt"
        np.savetxt(path, np.column_stack([src, dst]), fmt="%d")
        read_graph(path)
    for H in (g.tiny, g.dense, g.sparse):
        H.oriented(), H.oriented_ranked(), H.lower()   # noqa: B018 -- the degree orders of the families


def _triangles(g, backend):
    from .api import count
    from .triangles import triangles_per_vertex
    for H in (g.tiny, g.dense, g.sparse):
        count(H, "triangle", backend=backend)
    triangles_per_vertex(g.tiny, backend=backend)


def _cliques(g, backend):
    from .api import count
    for H in (g.tiny, g.dense):
        for k in (4, 5):
            count(H, f"{k}-clique", backend=backend)


def _patterns(g, backend):
    from .api import count
    for p in ("4-cycle", "diamond", "5-path", "pentagon", "house"):
        count(g.tiny, p, backend=backend, closed_forms=False)
        count(g.tiny, p, induced=True, backend=backend)
    count(g.dense, "4-cycle", backend=backend)
    count(g.dense, "4-cycle", induced=True, backend=backend)
    for H in (g.tiny, g.sparse):   # the closed forms, on both sides of their serial limit
        for p in ("4-star", "4-path", "tailed-triangle", "hourglass", "house", "5-star"):
            count(H, p, backend=backend)


def _count_many(g, backend):
    from .api import count_many
    count_many(g.tiny, ["4-cycle", "diamond", "5-path"], backend=backend)
    count_many(g.dense, ["4-cycle", "diamond"], backend=backend)
    count_many(g.labeled, [_labeled_query()], backend=backend)


def _census(g, backend):
    from .motifs import census, orbits
    for H in (g.tiny, g.sparse):
        for k in (3, 4):
            census(H, k, backend=backend)
            census(H, k, induced=False, backend=backend)
        orbits(H, 4, backend=backend)
        orbits(H, 3, backend=backend)
        orbits(H, 5, backend="cpu")       # k = 5: the numba kernels (serial on karate, parallel on the sparse graph)
    census(g.tiny, 5, backend=backend)


def _labeled_query():
    from .patterns import Pattern
    return Pattern([(0, 1), (1, 2), (2, 0), (2, 3)], vertex_labels=[0, 1, 2, 0], name="warmup-labeled")


def _match(g, backend):
    from .api import count
    from .exact import match
    Q = _labeled_query()
    mb = "gpu" if backend == "gpu" else "cpu"
    for H in (g.labeled, g.labeled_dense):
        sum(len(a) for a in match(H, Q, backend=mb))
        count(H, Q, backend=backend)
        count(H, Q, count="embeddings", induced=True, backend=backend)


def _color_coding(g, backend):
    from .color_coding import estimate, tree_census
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # a 2-coloring estimate is not converged: not the point here
        for t in ("u5", "u7"):
            estimate(g.tiny, t, eps=0.5, delta=0.5, seed=1, max_colorings=2, backend=backend)
        tree_census(g.tiny, 5, eps=0.5, delta=0.5, seed=1, max_colorings=2, backend=backend)


def _motif_estimate(g, backend):
    from .motif_estimate import estimate_census
    from .motif_estimate.driver import table_layout
    if backend == "gpu":
        from .motif_estimate.gpu import GpuSampler
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for k in (4, 5):
            estimate_census(g.tiny, k, eps=0.5, seed=1, max_colorings=2, samples_per_coloring=2048, backend=backend)
            # under a budget below the chunked floor: the chunked build and samplers, the spill layout's own steps
            engine = GpuSampler(g.tiny, k) if backend == "gpu" else None
            floor = table_layout(g.tiny, k, backend, engine, None, force="chunked", batch=2048).floor
            try:
                estimate_census(g.tiny, k, eps=0.5, seed=1, max_colorings=2, samples_per_coloring=2048,
                                backend=backend, memory_budget=floor - 1)
            except BackendUnavailable:      # no managed memory the device reads while kernels run: no spill
                pass


def _dynamic(g, backend):
    from .dynamic import DynamicGraph, match_delta
    Q = _labeled_query()
    mb = "gpu" if backend == "gpu" else "cpu"
    for H in (g.labeled, g.labeled_dense):
        src = np.repeat(np.arange(H.n, dtype=np.int64), np.diff(H.indptr))
        E = np.column_stack([src, np.asarray(H.indices, dtype=np.int64)])
        E = E[E[:, 0] < E[:, 1]]
        dele, new = E[::7], np.column_stack([E[::5, 0], (E[::5, 1] + 1) % H.n])
        match_delta(H, Q, insert=new, delete=dele, backend=mb, listing=True)
        match_delta(H, Q, insert=new, delete=dele, count="unique", induced=True, backend=mb)
        for keep in (True, False):
            D = DynamicGraph(H, [Q], keep_graph=keep, backend=mb)
            D.apply(insert=new, delete=dele, listing=True)
            D.apply(insert=dele[:3], delete=new[:3])
            ops = np.concatenate([np.column_stack([np.full(3, -1), dele[:3]]),
                                  np.column_stack([np.ones(3, np.int64), dele[:3]])]).astype(np.int64)
            r = D.apply_stream(ops, batch_size=2)     # the CPU's stream lane (one numba call a stream)
            if keep:    # the whole graph's log of the updates no query can use, replayed (dynamic/aside.py)
                r.inserted, D.graph


_RUN = {"graphs": _graphs, "triangles": _triangles, "cliques": _cliques, "patterns": _patterns,
        "count_many": _count_many, "census": _census, "match": _match, "color_coding": _color_coding,
        "motif_estimate": _motif_estimate, "dynamic": _dynamic}


def _kinds(kinds) -> list[str]:
    if kinds is None:
        return list(KINDS)
    if isinstance(kinds, str):
        kinds = [kinds]
    out = []
    for k in kinds:
        if k not in KINDS:
            raise InvalidArgument(f"warmup: unknown kind {k!r}; the kinds are {', '.join(KINDS)}")
        if k not in out:
            out.append(k)
    return out


def warmup(kinds=None, backend: str = "cpu", progress: bool = True) -> dict:
    """Compile (and cache on disk) the kernels of the common calls, so that no later call, in this process or
    any later one, waits for a compile.

    Parameters
    ----------
    kinds : None (all), one kind or a list of kinds, of :data:`KINDS`: ``"graphs"``, ``"triangles"``,
        ``"cliques"``, ``"patterns"`` (any pattern of 4 and 5 vertices, closed forms), ``"count_many"``,
        ``"census"`` (k = 3, 4, 5, orbits), ``"match"`` (labeled), ``"color_coding"``, ``"motif_estimate"``
    backend : ``"cpu"`` (the numba kernels) or ``"gpu"`` (also the CUDA kernels of the same calls, compiled by
        CuPy into its disk cache; raises :class:`la_gpm.BackendUnavailable` saying why when no GPU is usable)
    progress : a progress bar over the kinds on stderr (tqdm)

    Returns
    -------
    dict
        seconds per kind, in the order run (a few seconds to a minute each the first time on a machine;
        well under a second each once numba's cache holds the kernels).

    Examples
    --------
    >>> import la_gpm
    >>> sorted(la_gpm.warmup(["triangles"], progress=False))
    ['triangles']
    """
    todo = _kinds(kinds)
    if backend not in ("cpu", "gpu"):
        raise InvalidArgument(f"warmup: backend must be 'cpu' or 'gpu'; got {backend!r}")
    if backend == "gpu":
        from .backends import gpu_status
        reason = gpu_status()
        if reason is not None:
            raise BackendUnavailable(f"warmup(backend='gpu'): no usable GPU here ({reason}); "
                                     "warmup(backend='cpu') compiles the CPU kernels")
    backends = ("cpu", "gpu") if backend == "gpu" else ("cpu",)
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(todo) * len(backends), desc="la_gpm warmup", unit="kind", file=sys.stderr)
    g = _Graphs()
    out = {}
    try:
        with compile_notice.quiet():
            for kind in todo:
                t = time.perf_counter()
                for b in backends:
                    if bar is not None:
                        bar.set_postfix_str(f"{kind} ({b})")
                    _RUN[kind](g, b)
                    if bar is not None:
                        bar.update(1)
                out[kind] = time.perf_counter() - t
    finally:
        if bar is not None:
            bar.close()
    return out


def kernels() -> dict:
    """The numba dispatchers of la_gpm's modules imported so far: ``{"module.function": dispatcher}``
    (``dispatcher.signatures`` lists what is compiled or loaded in this process)."""
    from numba.core.registry import CPUDispatcher
    out = {}
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name == "la_gpm" or name.startswith("la_gpm.")):
            continue
        for attr, obj in list(vars(mod).items()):
            if isinstance(obj, CPUDispatcher) and getattr(obj.py_func, "__module__", None) == name:
                out[f"{name}.{attr}"] = obj
    return out
