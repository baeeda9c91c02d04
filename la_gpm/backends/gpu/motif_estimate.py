"""GPU backend of motif-frequency estimation: colorful treelet tables and samplers on the device (CuPy).

The tables of one coloring (``M``: every rooted shape's colorful embeddings per vertex and colour
set; ``B``: ``A·M`` of the passive shapes) are built on the device by ``kernels/me_sample.cu``
(``me_leaf``, ``me_spmm``: one warp per vertex, ``me_spmm_groups``: the same with the warp split over
neighbours for tables of <= 16 columns, ``me_ema``: one thread per (vertex, colour set)), in the same
layout as the CPU kernels.  ``me_sample`` runs one independent sampler per thread (``me_sample_warp``:
one per warp, scanning hubs' neighbours 32 at a time, on graphs with a vertex of degree >=
``HUB_DEGREE``), with counter-based SplitMix64 random numbers as on the CPU, walks the tables backwards and
returns each sample's induced adjacency bitmask, classified on the device through the class table
(k <= 7) or on the host with the canonical-form cache (k = 8).  With tables below 2^53 (exact
integers) a seed gives the CPU backend's samples exactly.
"""

from __future__ import annotations

import math

import numpy as np

from . import cupy, device_csr, kernel, oom_guard

_FILE = "me_sample"
_HOST_CUMSUM = 1 << 24      # root weights up to this many entries are summed on the host
HUB_DEGREE = 128            # graphs with a vertex of this degree sample with a warp per sample
GROUPED_SPMM_MAX_C = 16     # tables of at most this many columns use the grouped SpMM


class GpuSampler:
    """Per-graph device state (CSR, plan arrays, class table) shared by the colorings of one run."""

    def __init__(self, G, k):
        from ...algorithms.motif_estimate import _plan, _top_free, free_shapes
        cp = cupy()
        self.cp, self.G, self.k = cp, G, k
        self.plan = pl = _plan(k)
        self.ptr, self.idx = device_csr(G, "A")
        d = {name: cp.asarray(getattr(pl, name).astype(np.int64))
             for name in ("offM", "offB", "size", "act", "pas", "split_off", "split_n", "split_sa", "split_sp",
                          "top")}
        if d["split_sa"].size == 0:
            d["split_sa"] = cp.zeros(1, dtype=cp.int64)
            d["split_sp"] = cp.zeros(1, dtype=cp.int64)
        self.d = d
        self.top_aut = cp.asarray(pl.top_aut)
        self.top_free = _top_free(k)
        self.nf = len(free_shapes(k))
        self._table = None
        self.hubs = G.n > 0 and int(G.degrees.max()) >= HUB_DEGREE

    def class_table(self, table):
        if self._table is None:
            self._table = self.cp.asarray(table.astype(np.int32))
        return self._table

    def tables(self, colors):
        return GpuTables(self, colors)


class GpuTables:
    """The colorful tables of one coloring on the device; the interface of the CPU ``_Tables``."""

    def __init__(self, S: GpuSampler, colors):
        cp, pl, k, G = S.cp, S.plan, S.k, S.G
        self.S, self.k, self.plan = S, k, pl
        n = G.n
        self.n = n
        with oom_guard(f"motif estimate tables (n={n}, {pl.WM}+{pl.WB} columns of float64)"):
            self.M = cp.zeros((n, pl.WM), dtype=cp.float64)
            self.B = cp.zeros((n, pl.WB), dtype=cp.float64)
        col = cp.asarray(np.ascontiguousarray(colors, dtype=np.int8))
        blk = 256
        done_b = set()
        leaf = kernel(_FILE, "me_leaf")
        spmm = kernel(_FILE, "me_spmm")
        spmm_groups = kernel(_FILE, "me_spmm_groups")
        ema = kernel(_FILE, "me_ema")
        from ...algorithms.color_coding import split_tables
        i64 = np.int64
        for i in range(len(pl.shapes)):
            if n == 0:
                break
            if pl.size[i] == 1:
                leaf(((n + blk - 1) // blk,), (blk,), (col, self.M, i64(n), i64(pl.WM), i64(pl.offM[i])))
                continue
            a, p = int(pl.act[i]), int(pl.pas[i])
            if p not in done_b:
                C = math.comb(k, int(pl.size[p]))
                (spmm_groups if C <= GROUPED_SPMM_MAX_C else spmm)(((n * 32 + blk - 1) // blk,), (blk,),
                     (S.ptr, S.idx, self.M, i64(pl.WM), i64(pl.offM[p]), self.B, i64(pl.WB), i64(pl.offB[p]),
                      np.int32(C), i64(n)))
                done_b.add(p)
            sa, sp = split_tables(k, int(pl.size[i]), int(pl.size[a]))
            Cs, ns = sa.shape
            sa_d = cp.asarray(np.ascontiguousarray(sa, dtype=np.int64))
            sp_d = cp.asarray(np.ascontiguousarray(sp, dtype=np.int64))
            tot = n * Cs
            ema(((tot + blk - 1) // blk,), (blk,),
                (self.M, i64(pl.WM), i64(pl.offM[a]), self.B, i64(pl.WB), i64(pl.offB[p]), i64(pl.offM[i]),
                 sa_d, sp_d, np.int32(Cs), np.int32(ns), i64(n)))
        self.root_w = self.M[:, cp.asarray(pl.offM[pl.top])].T / S.top_aut[:, None]     # (tops, n)
        # small tables: the root weights' sums on the host, exactly as the CPU backend adds them
        # (same samples for a seed); large ones: device reductions (may differ in the last bits)
        self._host = self.root_w.size <= _HOST_CUMSUM
        if self._host:
            self.root_w_host = cp.asnumpy(self.root_w)
            per_top = self.root_w_host.sum(axis=1)
        else:
            per_top = cp.asnumpy(self.root_w.sum(axis=1))
        self.top_free = S.top_free
        self.shape_treelets = np.bincount(self.top_free, weights=per_top, minlength=S.nf) / k
        self.root_cum = self._cumsum(self.root_w_host if self._host else self.root_w)
        self.rooted = float(self.root_cum[-1]) if self.root_cum.size else 0.0
        self.treelets = self.rooted / k

    def natural_mixture(self) -> np.ndarray:
        return self.shape_treelets / self.treelets if self.treelets > 0 else np.zeros_like(self.shape_treelets)

    def set_mixture(self, q) -> None:
        cp = self.S.cp
        q = np.asarray(q, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(self.shape_treelets > 0, q / (self.k * self.shape_treelets), 0.0)
        if self._host:
            self.root_cum = self._cumsum(self.root_w_host * f[self.top_free][:, None])
        else:
            self.root_cum = self._cumsum(self.root_w * cp.asarray(f[self.top_free])[:, None])

    def _cumsum(self, w):
        cp = self.S.cp
        if isinstance(w, np.ndarray):
            return cp.asarray(np.cumsum(w.ravel()))
        return cp.cumsum(w.ravel())

    def sample_device(self, count: int, key: int, first: int = 0):
        """(verts (count, k) int32, codes (count,) int64) on the device."""
        cp, S, pl = self.S.cp, self.S, self.plan
        verts = cp.empty((count, self.k), dtype=cp.int32)
        codes = cp.zeros(count, dtype=cp.int64)
        if count and self.rooted > 0:
            d = S.d
            blk = 128
            lanes = 32 if S.hubs else 1        # a warp per sample where hub scans dominate
            kernel(_FILE, "me_sample_warp" if S.hubs else "me_sample")(
                ((count * lanes + blk - 1) // blk,), (blk,),
                (S.ptr, S.idx, self.M, np.int64(pl.WM), self.B, np.int64(pl.WB), d["offM"], d["offB"], d["size"],
                 d["act"], d["pas"], d["split_off"], d["split_n"], d["split_sa"], d["split_sp"], self.root_cum,
                 np.int64(self.root_cum.size), d["top"], np.int64(self.n), np.uint64(key), np.int64(first),
                 np.int64(count), np.int32(self.k), verts, codes))
        return verts, codes

    def sample(self, count: int, key: int, first: int = 0):
        """Host copies as the CPU ``_Tables.sample`` (verts (count, k) int64; no edges, no shapes)."""
        verts, _ = self.sample_device(count, key, first)
        return self.S.cp.asnumpy(verts).astype(np.int64), None, None

    def classify(self, reg, count: int, key: int, first: int = 0) -> np.ndarray:
        """Class rows of ``count`` samples (k <= 7 classified on the device)."""
        cp = self.S.cp
        _, codes = self.sample_device(count, key, first)
        if reg.table is not None:
            return cp.asnumpy(self.S.class_table(reg.table)[codes]).astype(np.int64)
        return reg.rows_of_codes(cp.asnumpy(codes))
