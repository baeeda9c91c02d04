"""The colorful treelet tables of one coloring on the CPU (build and sampler), and σ per free shape.

:class:`CpuTables` builds, for one coloring, every rooted shape's table ``M`` (colorful embeddings per
vertex and colour set) and the passive shapes' ``B = A·M`` with the numba kernels of
:mod:`la_gpm.motif_estimate.cpu`, in the layout of :func:`~la_gpm.motif_estimate.shapes.shape_plan`,
and samples uniform colorful treelets from them (:class:`~la_gpm.motif_estimate.gpu.GpuTables` is the
same on the device).  :func:`shape_sigma` counts, with these tables, each graph's spanning trees
of each free tree shape; :func:`sigma_rows` reads them for the 11,117 classes of 8 vertices from a table
shipped with the package (``data/sigma8.npz``, written by :func:`write_sigma8`), since computing them took
most of a first k = 8 estimate (about 1 ms a class, thousands of classes seen).
"""

from __future__ import annotations

import functools
import math
import os
import tempfile

import numpy as np

from ..color_coding.trees import split_tables
from .shapes import free_shapes, shape_plan, top_free

__all__ = ["CpuTables", "shape_sigma", "sigma_rows", "shipped_sigma", "write_sigma8", "hub_runs", "HUB_CHUNK",
           "SIGMA8_FILE"]

HUB_CHUNK = 256         # cpu sampler: neighbours per run of a hub's list skipped by its sums
SIGMA8_FILE = os.path.join(os.path.dirname(__file__), "data", "sigma8.npz")


class CpuTables:
    """The colorful rooted-treelet tables of one coloring, kept alive for sampling.

    ``layout`` (:class:`~la_gpm.motif_estimate.memory.Layout`, None: full) says how they are held: ``"full"``
    keeps ``M``, ``B`` and the transposed passive tables ``Pt``; ``"chunked"`` keeps ``M`` only, builds ``B`` one
    chunk of ``layout.rows`` vertices at a time and lets the sampler recompute the entries of ``B`` it reads
    (same doubles, same samples); ``"spill"`` builds and samples as ``"chunked"`` with the root weights and their
    sums, and ``M`` unless ``layout.m_rows`` covers it, in temporary files read through memory maps (the page
    cache holds what fits).  ``ledger`` (:class:`~la_gpm.motif_estimate.memory.Ledger`) counts the bytes.
    """

    spill = False

    def __init__(self, G, k: int, colors: np.ndarray, layout=None, ledger=None):
        from .memory import Ledger
        self.G, self.k, self.plan = G, k, shape_plan(k)
        self.layout = layout
        self.spill = layout is not None and layout.kind == "spill"
        self.chunked = layout is not None and layout.kind in ("chunked", "spill")
        self.mem = L = ledger if ledger is not None else Ledger()
        pl = self.plan
        n = G.n
        self.colors = np.ascontiguousarray(colors, dtype=np.int8)
        L.alloc(self.colors.nbytes)
        if self.spill and layout.m_rows < n:
            self.M = self._spilled((n, pl.WM))
        else:
            self.M = L.array(np.zeros, (n, pl.WM), np.float64)
        self._hub_chunks()
        if self.chunked:
            self.B = self.Pt = None
            self._build_chunked(max(1, int(layout.rows)))
        else:
            self.B = L.array(np.zeros, (n, pl.WB), np.float64)
            self._build_full()
            # the passive shapes' tables, transposed, for the sampler's neighbour scans
            self.Pt = L.array(np.zeros, (pl.WB, n), np.float64)
            for i in np.flatnonzero(pl.offB >= 0).tolist():
                c = math.comb(k, int(pl.size[i]))
                self.Pt[pl.offB[i]:pl.offB[i] + c] = self.M[:, pl.offM[i]:pl.offM[i] + c].T
        self._roots()

    def _build_full(self):
        """Every shape in plan order: the SpMM of its passive child (once per passive shape), then its eMA."""
        from . import cpu as K
        pl, k = self.plan, self.k
        ptr, ind = self.G.indptr, self.G.indices
        done_b = set()
        for i in range(len(pl.shapes)):
            if pl.size[i] == 1:
                K.leaf_fill(self.colors, self.M, pl.offM[i])
                continue
            a, p = int(pl.act[i]), int(pl.pas[i])
            if p not in done_b:
                K.spmm_cols(ptr, ind, self.M, pl.offM[p], self.B, pl.offB[p], math.comb(k, int(pl.size[p])),
                            self.hub_off, self.chunk, self.CSt)
                done_b.add(p)
            sa, sp = split_tables(k, int(pl.size[i]), int(pl.size[a]))
            K.ema_cols(self.M, pl.offM[a], self.B, pl.offB[p], pl.offM[i], sa, sp)

    def _build_chunked(self, rows):
        """Level by level (shapes of one size), vertex chunk by vertex chunk: the chunk's rows of B for the
        passive children of the level's shapes (the full build's sums), then the level's eMA on those rows.
        A level needs M of all vertices at the sizes below it (done) and B of the chunk's rows only."""
        from . import cpu as K
        pl, k, n = self.plan, self.k, self.G.n
        ptr, ind = self.G.indptr, self.G.indices
        K.leaf_fill(self.colors, self.M, pl.offM[0])
        Bc = self.mem.array(np.zeros, (min(rows, max(n, 1)), pl.WB), np.float64)
        for h in range(2, k + 1):
            ids = np.flatnonzero(pl.size == h).tolist()
            pas = sorted({int(pl.pas[i]) for i in ids})
            spl = [split_tables(k, h, int(pl.size[pl.act[i]])) for i in ids]
            for v0 in range(0, n, rows):
                v1 = min(n, v0 + rows)
                for p in pas:
                    K.spmm_rows(ptr, ind, self.M, pl.offM[p], Bc, pl.offB[p], math.comb(k, int(pl.size[p])),
                                self.hub_off, self.chunk, self.CSt, v0, v1)
                for i, (sa, sp) in zip(ids, spl):
                    K.ema_rows(self.M, pl.offM[pl.act[i]], Bc, pl.offB[pl.pas[i]], pl.offM[i], sa, sp, v0, v1)
        self.mem.free(Bc.nbytes)
        del Bc

    def _roots(self):
        """Root weights (rooted copies per top shape and vertex, tops x n), per-shape totals, cumulative sums."""
        from . import cpu as K
        pl, k = self.plan, self.k
        T = len(pl.top)
        o = int(pl.offM[pl.top[0]])
        # the top shapes are the plan's last columns: a view, no copy
        view = np.array_equal(pl.offM[pl.top], np.arange(o, o + T))
        cols = self.M[:, o:o + T] if view else self.M[:, pl.offM[pl.top]]
        if self.spill:       # laid out as numpy lays out cols.T / aut (the same sums below, bit for bit)
            st = cols.T.strides
            self.root_w = self._spilled((T, self.G.n), "F" if abs(st[0]) < abs(st[1]) else "C")
            np.divide(cols.T, pl.top_aut[:, None], out=self.root_w)
            self.root_cum = self._spilled((T * self.G.n,))
        else:
            self.mem.alloc(T * self.G.n * 8)
            self.root_w = cols.T / pl.top_aut[:, None]   # (tops, n) rooted copies
            self.root_cum = self.mem.array(np.empty, self.root_w.size, np.float64)
        self.top_free = top_free(k)
        per_top = self.root_w.sum(axis=1)
        self.shape_treelets = np.bincount(self.top_free, weights=per_top, minlength=len(free_shapes(k))) / k
        K.root_cumsum(self.root_w, np.ones(T), self.root_cum)
        self.rooted = float(self.root_cum[-1]) if self.root_cum.size else 0.0
        self.treelets = self.rooted / k                               # unrooted colorful k-treelets

    def _spilled(self, shape, order: str = "C") -> np.ndarray:
        """A zeroed float64 array of ``shape`` in a temporary file (unlinked at once: it goes with its last map),
        counted as held off the budget."""
        size = int(np.prod(shape, dtype=np.int64))
        if size == 0:
            return np.zeros(shape, dtype=np.float64, order=order)
        with tempfile.TemporaryFile(prefix="la_gpm_tables_") as f:     # the map keeps its own handle
            a = np.memmap(f, dtype=np.float64, mode="w+", shape=tuple(shape), order=order)
        self.mem.spilled += a.nbytes
        return a

    def _hub_chunks(self):
        """Vertices with more than HUB_CHUNK neighbours: the SpMM keeps their lists' sums per run of
        that many neighbours, and the sampler skips whole runs (a hub's scan was most of a sample's
        cost: R-MAT 16, k = 5, 2 cores, 65,536 samples 1.1 s -> 0.2 s). The run length grows until
        these sums take at most a quarter of B's memory (:func:`hub_runs`)."""
        G, pl = self.G, self.plan
        deg = np.diff(G.indptr)
        chunk, _ = hub_runs(G, self.k)
        hubs = np.flatnonzero(deg > chunk)
        nch = -(-deg[hubs] // chunk)
        self.hub_off = np.full(G.n, -1, dtype=np.int64)
        if hubs.size:
            self.hub_off[hubs] = np.concatenate([[0], np.cumsum(nch)[:-1]])
        self.chunk = chunk
        self.CSt = self.mem.array(np.zeros, (pl.WB, max(int(nch.sum()), 1)), np.float64)
        self.mem.alloc(self.hub_off.nbytes)

    def natural_mixture(self) -> np.ndarray:
        """The free shapes' shares of the colorful treelets (uniform sampling over all treelets)."""
        return self.shape_treelets / self.treelets if self.treelets > 0 else np.zeros_like(self.shape_treelets)

    def set_mixture(self, q) -> None:
        """Sample free shape F with probability q[F], then a uniform colorful copy of F."""
        q = np.asarray(q, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(self.shape_treelets > 0, q / (self.k * self.shape_treelets), 0.0)
        from . import cpu as K
        K.root_cumsum(self.root_w, f[self.top_free], self.root_cum)

    def sample(self, count: int, key: int, first: int = 0):
        """(verts (count, k), edges (count, k-1, 2), top-shape index (count,)) of uniform colorful treelets."""
        from . import cpu as K
        pl, k = self.plan, self.k
        verts = np.empty((count, k), dtype=np.int64)
        edges = np.empty((count, k - 1, 2), dtype=np.int64)
        shp = np.empty(count, dtype=np.int64)
        self.mem.alloc(verts.nbytes + edges.nbytes + shp.nbytes)
        self.mem.free(verts.nbytes + edges.nbytes + shp.nbytes)
        if count and self.rooted > 0 and self.chunked:
            K.sample_treelets_rows(self.G.indptr, self.G.indices, self.M, pl.offM, pl.offB, pl.size, pl.act, pl.pas,
                                   pl.split_off, pl.split_n, pl.split_sa, pl.split_sp, self.root_cum, pl.top, self.G.n,
                                   np.uint64(key), first, count, k, verts, edges, shp, self.hub_off, self.chunk,
                                   self.CSt, int(pl.split_n.max()))
        elif count and self.rooted > 0:
            K.sample_treelets(self.G.indptr, self.G.indices, self.M, self.B, self.Pt, pl.offM, pl.offB, pl.size, pl.act,
                              pl.pas, pl.split_off, pl.split_n, pl.split_sa, pl.split_sp, self.root_cum, pl.top,
                              self.G.n, np.uint64(key), first, count, k, verts, edges, shp, self.hub_off,
                              self.chunk, self.CSt)
        return verts, edges, shp


def hub_runs(G, k: int):
    """(run length, number of runs) of the hubs' neighbour lists in the cpu tables: runs of HUB_CHUNK
    neighbours, doubled until the runs' sums (WB per run) take at most a quarter of B's memory."""
    pl = shape_plan(k)
    deg = np.diff(G.indptr)
    chunk = HUB_CHUNK
    while True:
        hubs = np.flatnonzero(deg > chunk)
        nch = int((-(-deg[hubs] // chunk)).sum())
        if hubs.size == 0 or nch * pl.WB <= max(G.n * pl.WB // 4, 1 << 16):
            return chunk, nch
        chunk *= 2


def shape_sigma(edge_lists, k: int) -> np.ndarray:
    """(classes, free shapes) int64: spanning trees of each k-vertex graph isomorphic to each free tree.

    Computed with the colorful tables themselves: the graphs side by side as one graph, vertex i of
    each coloured i, so every tree copy inside a graph is colorful; the rooted copies of the shapes of
    a free tree F over a graph's k roots are k times its copies of F.
    """
    from ..graph import Graph
    pl = shape_plan(k)
    tf = top_free(k)
    nf = len(free_shapes(k))
    out = np.zeros((len(edge_lists), nf), dtype=np.int64)
    chunk = 512
    for c0 in range(0, len(edge_lists), chunk):
        part = edge_lists[c0:c0 + chunk]
        src = [c * k + a for c, e in enumerate(part) for a, b in e]
        dst = [c * k + b for c, e in enumerate(part) for a, b in e]
        G = Graph.from_edges(np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), n=len(part) * k)
        T = CpuTables(G, k, np.arange(G.n) % k)
        w = T.M[:, pl.offM[pl.top]] / pl.top_aut[None, :]          # (n, tops) rooted copies
        per = np.zeros((len(part), nf))
        np.add.at(per, (np.repeat(np.arange(len(part)), k)[:, None], tf[None, :]), w)
        out[c0:c0 + len(part)] = np.rint(per / k).astype(np.int64)
    return out


def _shape_names(k: int) -> np.ndarray:
    """The free shapes of k vertices as strings, in :func:`free_shapes` order (a shipped table's columns)."""
    return np.array([repr(f) for f in free_shapes(k)])


@functools.lru_cache(maxsize=None)
def shipped_sigma(k: int):
    """(sorted canonical codes, σ per free shape uint16) of the shipped table of k vertices, or None where there
    is none (k != 8) or its columns are not this version's free shapes (then σ is computed, as before)."""
    if k != 8 or not os.path.exists(SIGMA8_FILE):
        return None
    with np.load(SIGMA8_FILE) as z:
        if not np.array_equal(z["shapes"], _shape_names(k)):
            return None
        keys, sigf = z["keys"], z["sigf"]
    keys.setflags(write=False)
    sigf.setflags(write=False)
    return keys, sigf


def sigma_rows(codes, edge_lists, k: int) -> np.ndarray:
    """σ per free shape (classes, free shapes) int64 of the classes of canonical codes ``codes`` (edges
    ``edge_lists``): rows of the shipped table where it has them, :func:`shape_sigma` for the rest."""
    codes = np.asarray(codes, dtype=np.int64)
    out = np.zeros((codes.size, len(free_shapes(k))), dtype=np.int64)
    miss = np.arange(codes.size)
    table = shipped_sigma(k)
    if table is not None and codes.size:
        keys, sigf = table
        pos = np.minimum(np.searchsorted(keys, codes), keys.size - 1)
        hit = keys[pos] == codes
        out[hit] = sigf[pos[hit]]
        miss = np.flatnonzero(~hit)
    if miss.size:
        out[miss] = shape_sigma([edge_lists[i] for i in miss.tolist()], k)
    return out


def write_sigma8(path: str = SIGMA8_FILE) -> None:
    """Write the shipped table: σ per free shape of every connected 8-vertex class (keys: the canonical codes of
    :func:`la_gpm.motifs.census8.classes8`), computed by :func:`shape_sigma` (about 10 s on two cores)."""
    from ..motifs.census8 import classes8
    c = classes8()
    order = np.argsort(np.array(c.keys, dtype=np.int64), kind="stable")
    keys = np.array(c.keys, dtype=np.int64)[order]
    sigf = shape_sigma([c.edges[i] for i in order.tolist()], 8)
    if sigf.max() >= 1 << 16:
        raise OverflowError(f"σ of an 8-vertex class ({sigf.max()}) does not fit the table's uint16")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.savez_compressed(path, keys=keys, sigf=sigf.astype(np.uint16), shapes=_shape_names(8))
