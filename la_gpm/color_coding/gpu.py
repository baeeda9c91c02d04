"""GPU steps of color-coding tree counting: colorings, leaf tables, SpMM, fused eMA (CuPy + CUDA).

SpMM implementations over the row-major count tables:

* rooted layout (default): tables keep only the colour sets that contain the row's colour
  (C(k-1, p-1) of C(k, p) columns).  Two kernels over the same work items (rows by decreasing degree,
  hubs split into chunks of ``HUB_CHUNK`` arcs whose partial rows ``cc_spmm_reduce`` adds in order):
  ``cc_spmm_rooted`` ("gather": per arc, one Q lookup per output column) and ``cc_spmm_tiled``
  ("tiled": whole neighbour rows added into per-colour shared-memory tiles, combined once per row), and
  ``cc_spmm_sorted_*`` ("sorted": the tiled scheme over arcs sorted by neighbour colour once per
  coloring by ``cc_sort_arcs``, a colour's rows summed in registers and written to its tile once).
  ``spmm="auto"`` times the candidates once per (graph, k, p), checks each against the gather
  kernel's output, and keeps the fastest on the graph.
* dense layout, ``custom`` (``cc_spmm_rows``): a group of threads per output row, each thread
  owning columns of a pass, four neighbours' rows in flight; rows by decreasing degree.
* dense layout, ``cusparse``: ``cupyx.scipy.sparse.csr_matrix @ dense`` (cusparseSpMM), per copy.

``auto`` takes the rooted layout and the timed choice (docs/color_coding.md has the measurements).
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np

from .trees import rooted_gather_table
from ..device import (block_size, cupy, device_attribute, device_csr, headroom_bytes, kernel, oom_guard, sm_count,
                      smem_optin, smem_per_sm)
from ..exceptions import InvalidArgument
from ..primitives.compile_notice import notice

_SMEM_LIMIT = 48 * 1024
# cc_ema_lanes takes a product from this many split terms per output set (auto; measured in docs/color_coding.md)
EMA_LANES_MIN_NS = 6
EMA_CHOICES = ("auto", "lanes", "smem", "global")
_BLOCK_RESERVED_SMEM = 1024   # shared memory the driver reserves per block (sm_80 and later)
EMA_PART_MIN = 16             # cc_ema_lanes: packed split loads (4 splits each) a lane group keeps at least
HUB_CHUNK = 1024  # arcs per work item of a hub (vertices of degree > 2 * HUB_CHUNK are split)
# the rooted SpMM's kernel choice is timed on at most this many rows of one coloring: on Graph500 20 and 22 (u12, u13,
# u15-1: 25 choices) 2^18 rows picked the kernel that 2^20 rows did every time, 2^16 rows a slower one (4-17%) in 5
# (benchmarks/probe_cc_tune.py, probe_s41_cc_tune_*_h200.jsonl)
TUNE_ROWS = 1 << 18
# the choice says so (a CompileNotice, once per graph) on graphs of at least this many vertices: there it takes about
# 0.5 s (u12) to 2.5 s (u15-1) on an H200; on smaller graphs milliseconds
NOTICE_ROWS = TUNE_ROWS
# (NX, A, V, half) of the sorted kernel's candidates (cc_spmm_sorted_<NX>x<A>[v2]): NX column loads of V values per
# lane, A arcs in flight; lanes = the fewest (32..256) covering the row in one pass, halved where ``half``.  From
# (6, 4, 1) on (session 38): more columns a lane, fewer instructions a gathered value (docs/color_coding.md)
_SORTED_SHAPES = ((4, 4, 1, False), (2, 8, 1, False), (4, 4, 1, True), (2, 4, 2, False), (4, 2, 2, False),
                  (3, 4, 2, False), (6, 4, 1, False), (8, 2, 1, False), (4, 4, 2, False), (6, 2, 2, False))


def _lanes_smem(Ca: int, Cb: int, item: int, R: int = 8) -> int:
    """Shared-memory bytes of cc_ema_lanes with R rows a block: R rows (stride R + 1) of both tables and a zero
    column each."""
    return (R + 1) * (Ca + Cb + 2) * item


@functools.lru_cache(maxsize=None)
def _optin_kernel_on(device: int, module: str, name: str, opts: tuple):
    fn = kernel(__package__, module, name, opts)
    fn.max_dynamic_shared_size_bytes = device_attribute(device, 97)    # cudaDevAttrMaxSharedMemoryPerBlockOptin
    return fn


def _optin_kernel(module: str, name: str, opts: tuple):
    """A kernel of this package on the current device, opted in to the device's largest shared memory per block."""
    return _optin_kernel_on(cupy().cuda.runtime.getDevice(), module, name, opts)


@functools.lru_cache(maxsize=None)
def _max_abs_diff_kernel():
    return cupy().ReductionKernel("T y, T r", "T z", "y > r ? y - r : r - y", "max(a, b)", "z = a", "0",
                                  "la_gpm_cc_max_abs_diff")


def _max_abs_diff(Y, ref=None):
    """max |Y - ref| (``ref`` None: max |Y|) without temporaries of the tables' size: one reduction a row, then the
    max of the rows'.  CuPy reduces a whole array to one value in one thread block: 2.5 s for two 12.6 GB tables
    (u15-1's widest product on Graph500 20, 10 GB/s), 17x the product itself, in every candidate's check of the
    kernel choice; one reduction a row spreads it over the device."""
    cp = cupy()
    if Y.size == 0:
        return cp.zeros((), dtype=Y.dtype)
    Y2 = Y.reshape(Y.shape[0], -1)
    R2 = cp.zeros((), dtype=Y.dtype) if ref is None else ref.reshape(Y2.shape)
    return _max_abs_diff_kernel()(Y2, R2, axis=1).max()


def _choice_notice() -> bool:
    notice("la_gpm: timing the GPU SpMM kernels on this graph for each table width of the template, once per graph "
           f"(at most {TUNE_ROWS:,} rows each; later colorings and estimates on this graph reuse the choice; "
           "spmm='tiled' or 'gather' skips it)")
    return True


def _tpr(C: int) -> int:
    t = 32
    while t < 256 and 4 * t < C:
        t *= 2
    return t


class GpuOps:
    """The DP steps on the current CUDA device (tables are CuPy arrays)."""

    def __init__(self, G, k, dtype, spmm, labels):
        cp = cupy()
        self.cp = cp
        self.G = G
        self.k = k
        self.dtype = np.dtype(dtype)
        self.n = G.n
        self.spmm_method = "custom" if spmm == "auto" else spmm
        self.opts = ("-DCC_DOUBLE",) if self.dtype == np.float64 else ()
        self.ptr, self.idx = device_csr(G, "A")
        dev = self.dev = cp.cuda.Device().id

        def make_order():
            with oom_guard("color coding: row order"):
                return cp.asarray(np.argsort(-G.degrees, kind="stable").astype(np.int32))
        self.order = G.device_cache(f"gpu:{dev}:deg_order", make_order)
        self.labels = None
        if labels is not None:
            self.labels = {lab: cp.asarray(m.astype(np.uint8)) for lab, m in labels.items()}
        self._splits = {}
        self._Q = {}
        self._Rt = {}
        self._Rpad = {}
        self._sorted = None  # (colors array, colour-sorted arcs of that coloring)
        self._A = None
        self.block = 256
        self.ema_choice = "auto"     # EMA_CHOICES: tests and benchmarks force a kernel
        self.ema_lanes = None        # (R in 8, 16, 32; threads) of cc_ema_lanes, None: lanes_shape's choice
        self.ema_parts = None        # lane groups sharing an output set in cc_ema_lanes, None: lanes_parts' choice
        self.sorted_optin = True     # sorted SpMM tiles past 48 KB (benchmarks turn it off to time the kernels before)
        self.items = G.device_cache(f"gpu:{dev}:cc_items:{HUB_CHUNK}", lambda: self._make_items(G))
        self._block_items = {}       # (r0, r1) -> the work items of that row block (streamed products)
        self.direct_min = None       # tables of at least this many bytes get their own allocation (tables_direct)

    def _make_items(self, G, r0: int = 0, r1: int | None = None):
        """Work items (v, lo, hi, dst) of the rooted SpMM over the rows [r0, r1) (default all): hub chunks
        first, then rows by degree.  ``v`` is the vertex, ``dst`` its output row relative to r0 (or partial row
        -1 - dst of a hub chunk) and ``heavy`` the hubs' output rows relative to r0, so a block of rows writes a
        table of r1 - r0 rows with the whole graph's kernels (one coloring a pass)."""
        cp = self.cp
        r1 = G.n if r1 is None else r1
        deg = G.degrees[r0:r1].astype(np.int64)
        ptr = G.indptr
        order = np.argsort(-deg, kind="stable")
        heavy = order[deg[order] > 2 * HUB_CHUNK]
        light = order[deg[order] <= 2 * HUB_CHUNK]
        cnt = -(-deg[heavy] // HUB_CHUNK)
        hstart = np.concatenate([[0], np.cumsum(cnt)]).astype(np.int32)
        cv = np.repeat(heavy, cnt)
        within = np.arange(cv.shape[0]) - np.repeat(hstart[:-1], cnt)
        clo = ptr[cv + r0] + within * HUB_CHUNK
        chi = np.minimum(clo + HUB_CHUNK, ptr[cv + r0 + 1])
        nch = int(cv.shape[0])
        v = (np.concatenate([cv, light]) + r0).astype(np.int32)
        lo = np.concatenate([clo, ptr[light + r0]]).astype(np.int64)
        hi = np.concatenate([chi, ptr[light + r0 + 1]]).astype(np.int64)
        dst = np.concatenate([-1 - np.arange(nch), light]).astype(np.int32)
        with oom_guard("color coding: work items"):
            return {"v": cp.asarray(v), "lo": cp.asarray(lo), "hi": cp.asarray(hi), "dst": cp.asarray(dst),
                    "n_items": int(v.shape[0]), "n_chunks": nch, "heavy": cp.asarray(heavy.astype(np.int32)),
                    "hstart": cp.asarray(hstart), "n_heavy": int(heavy.shape[0])}

    def _items_of(self, rows):
        """The work items of a row block ``rows`` = (r0, r1), or of the whole graph (None)."""
        if rows is None:
            return self.items
        rows = (int(rows[0]), int(rows[1]))
        got = self._block_items.get(rows)
        if got is None:
            got = self._block_items[rows] = self._make_items(self.G, *rows)
        return got

    def free_bytes(self) -> int:
        """Device memory a coloring's tables may take now (:func:`~la_gpm.device.headroom_bytes`)."""
        return max(0, headroom_bytes())

    def empty(self, rows, cols):
        """A table of rows x cols: from CuPy's memory pool, or where it is at least ``direct_min`` bytes its own
        device allocation (freed with it: see :meth:`tables_direct`)."""
        cp = self.cp
        with oom_guard("color coding: a table"):
            nbytes = rows * cols * self.dtype.itemsize
            if self.direct_min is None or nbytes < self.direct_min or nbytes == 0:
                return cp.empty((rows, cols), dtype=self.dtype)
            try:
                mem = cp.cuda.memory.Memory(nbytes)
            except cp.cuda.runtime.CUDARuntimeError:   # the pool's cached blocks back to the device, once
                cp.get_default_memory_pool().free_all_blocks()
                mem = cp.cuda.memory.Memory(nbytes)
            return cp.ndarray((rows, cols), dtype=self.dtype, memptr=cp.cuda.memory.MemoryPointer(mem, 0))

    def tables_direct(self, direct: bool) -> None:
        """Whether the next colorings' tables of 256 MiB or more bypass CuPy's pool, each its own device
        allocation (the pool's cached blocks returned first).  Near the device's capacity the pool strands memory:
        a freed table's block is split for smaller ones and cannot go back to the device while any of them lives,
        so a later large table found no room though less than the device was in use (u15 on Graph500 22: 83 GB
        in use, 106 GB held by the pool, a 17 GB table refused).  Its own allocation costs a cudaMalloc and a
        cudaFree per table (20-37 ms to free 32-57 GiB on an H200): u15-2 on Graph500 22 took 0.94-1.08 s a
        coloring so against 0.87-0.92 s from the pool (``probe_s40_direct_vs_pool_h200.txt``), so the runner asks
        for it only where it streams its products or the pool ran out (:meth:`Runner.run`)."""
        if direct and self.direct_min is None:
            self.cp.get_default_memory_pool().free_all_blocks()
        self.direct_min = (1 << 28) if direct else None

    # ----------------------------------------------------------------- colorings and leaves
    def colors(self, keys):
        cp = self.cp
        rows = len(keys) * self.n
        with oom_guard("color coding: colorings"):
            out = cp.empty(rows, dtype=cp.int8)
            if rows:
                kd = cp.asarray(np.asarray(keys, dtype=np.uint64))
                grid = int(min((rows + self.block - 1) // self.block, 65535 * 8))
                kernel(__package__, "cc_spmm", "cc_colors", self.opts)((grid,), (self.block,),
                                                         (kd, np.int64(rows), np.int32(self.n), np.int32(self.k), out))
        return out

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def put_colors(self, col):
        return self.cp.asarray(np.ascontiguousarray(col, dtype=np.int8))

    def leaf(self, colors, label, rooted=False):
        cp = self.cp
        rows = int(colors.shape[0])
        if rooted:  # one column: the row's own colour, masked by the label match
            with oom_guard("color coding: leaf table"):
                if label is None:
                    return cp.ones((rows, 1), dtype=self.dtype)
                return cp.tile(self.labels[label], rows // max(1, self.n)).astype(self.dtype).reshape(rows, 1)
        with oom_guard("color coding: leaf table"):
            out = cp.empty((rows, self.k), dtype=self.dtype)
            if rows:
                mask = self.labels[label] if label is not None else cp.zeros(1, dtype=cp.uint8)
                grid = int(min((rows + self.block - 1) // self.block, 65535 * 8))
                kernel(__package__, "cc_spmm", "cc_leaf", self.opts)((grid,), (self.block,),
                                                       (colors, np.int64(rows), np.int32(self.n), np.int32(self.k),
                                                        mask, np.int32(label is not None), out))
        return out

    # ----------------------------------------------------------------- SpMM
    def spmm(self, X, method=None):
        method = method or self.spmm_method
        cp = self.cp
        rows, C = int(X.shape[0]), int(X.shape[1])
        with oom_guard("color coding: SpMM"):
            out = cp.empty_like(X)
            if rows == 0 or C == 0:
                return out
            if method == "custom":
                tpr = _tpr(C)
                rpb = self.block // tpr
                grid = (rows + rpb - 1) // rpb
                kernel(__package__, "cc_spmm", "cc_spmm_rows", self.opts)(
                    (grid,), (self.block,),
                    (self.ptr, self.idx, self.order, np.int32(self.n), np.int64(rows), X, np.int32(C), out,
                     np.int32(tpr)))
            else:
                A = self._cusparse_matrix()
                n = self.n
                for g in range(rows // n):
                    out[g * n:(g + 1) * n] = A @ X[g * n:(g + 1) * n]
        return out

    # ----------------------------------------------------------------- rooted SpMM: variants and choice
    def _R(self, p):
        """``R[ci, m, u] = c_m * Wp + x_m`` (uint16) for the tiled kernel: the p colours c_m of output set u
        of a colour-ci row and the column x_m of a colour-c_m neighbour holding u's set minus c_m
        (k * Wp < 2**16 wherever the tiles fit in shared memory)."""
        R = self._Rt.get(p)
        if R is None:
            Q = rooted_gather_table(self.k, p)
            k, W = Q.shape[0], Q.shape[2]
            Wp = math.comb(k - 1, p - 1)
            Rh = np.zeros((k, p, W), dtype=np.uint16)
            for ci in range(k):
                cj, u = np.nonzero(Q[ci] >= 0)          # cj ascending, then u: p entries per u
                order = np.lexsort((cj, u))
                cj, u = cj[order], u[order]
                flat = cj * Wp + Q[ci][cj, u]
                Rh[ci] = flat.reshape(W, p).T
            R = self._Rt[p] = self.cp.asarray(np.ascontiguousarray(Rh))
        return R

    def _tile_bytes(self, Wp, L):
        """Shared memory of a 256-thread block of the tiled kernel with L lanes per slice."""
        return (self.block // L) * self.k * Wp * self.dtype.itemsize

    def _lanes(self, Wp):
        """The fewest lanes per slice (a power of two) whose block tiles fit 48 KB of shared memory,
        or None (then only the gather kernel runs)."""
        L = 1
        while L <= 256 and self._tile_bytes(Wp, L) > _SMEM_LIMIT:
            L *= 2
        return L if L <= 256 else None

    def rooted_variants(self, p, rows=None):
        """Candidate rooted SpMM kernels for products of size p: ``("gather",)`` (cc_spmm_rooted: per
        arc, one Q lookup per output column), ``("tiled", L, S)`` (cc_spmm_tiled: groups of L lanes x
        S slices per row), L = the fewest lanes whose tiles fit (groups of 32 and 64 threads) and twice
        that (groups of 32), and ``("sorted", NX, A, L, V)`` (cc_spmm_sorted_<NX>x<A>[v2]: arcs sorted
        by colour once per coloring, groups of L lanes owning NX columns (V = 2: NX pairs, one vector
        load each; even widths) each, A arcs in flight; ``_SORTED_SHAPES``) for products of at least 8
        gathered columns whose tiles fit (in 48 KB, else opted in to the device's shared memory per block:
        ``_sorted_shape``), on graphs of fewer than 2**26 vertices.  ``rows``: the rows
        of the product; when given, the sorted candidates are left out where the sorted arcs (4 bytes
        per arc and coloring) would take more memory than the product's output.  A wider sweep of the tiled
        kernel (groups up to 256 threads, 8 arcs in flight, small rows left to the gather kernel)
        never won on Graph500 (docs/color_coding.md)."""
        Wp = math.comb(self.k - 1, p - 1)
        out = [("gather",)]
        L = self._lanes(Wp)
        if L is not None:
            g0 = max(32, L)
            out.append(("tiled", L, g0 // L))
            if 2 * g0 <= self.block:
                out.append(("tiled", L, 2 * g0 // L))
            Lmax = 1
            while Lmax < Wp and Lmax < 256:
                Lmax *= 2
            if 2 * L <= min(256, Lmax):
                out.append(("tiled", 2 * L, max(32, 2 * L) // (2 * L)))
        if Wp >= 8 and self.n < 1 << 26 and (
                rows is None or self._sort_bytes(rows) <= rows * math.comb(self.k - 1, p) * self.dtype.itemsize):
            for NX, A, V, half in _SORTED_SHAPES:
                if V == 2 and Wp % 2:
                    continue
                Ls = 32
                while Ls < 256 and NX * V * Ls < Wp:
                    Ls *= 2
                if half:
                    Ls //= 2
                    if Ls < 32:
                        continue
                if self._sorted_shape(p, Ls) is not None:
                    out.append(("sorted", NX, A, Ls, V))
        return out

    # ----------------------------------------------------------------- colour-sorted arcs (sorted kernel)
    def _sort_bytes(self, rows):
        """Device bytes of the colour-sorted arcs for ``rows`` table rows (rows / n colorings)."""
        nbt = rows // max(1, self.n)
        return nbt * 4 * (int(self.idx.shape[0]) + self.items["n_items"])

    def sort_arcs(self, colors, items=None, sarc=None):
        """Colour-sorted arcs of the colorings ``colors`` (cc_sort_arcs): per work item, its arcs whose
        two colours differ, stably sorted by the neighbour's colour: ``sarc`` ((neighbour << 5) | its
        colour, at the item's arc positions of each coloring) and ``kept`` (arcs kept per item and
        coloring).  ``items``: a row block's work items (default the whole graph's); ``sarc``: a buffer to
        write into (the blocks of one coloring share one: their arcs are disjoint)."""
        cp = self.cp
        it = self.items if items is None else items
        nbt = int(colors.shape[0]) // max(1, self.n)
        nnz = int(self.idx.shape[0])
        with oom_guard("color coding: colour-sorted arcs"):
            d = {"sarc": cp.empty(max(1, nbt * nnz), dtype=cp.int32) if sarc is None else sarc,
                 "kept": cp.zeros(max(1, nbt * it["n_items"]), dtype=cp.int32)}
            warps = nbt * it["n_items"]
            if warps:
                kernel(__package__, "cc_spmm", "cc_sort_arcs", self.opts)(
                    ((warps * 32 + self.block - 1) // self.block,), (self.block,),
                    (self.idx, it["v"], it["lo"], it["hi"], np.int64(it["n_items"]), np.int32(self.n), np.int64(nnz),
                     np.int64(nbt), colors, np.int32(self.k), d["sarc"], d["kept"]))
        return d

    def _arcs(self, colors, rows=None):
        """The sorted arcs of ``colors`` (of the row block ``rows``), built once per coloring batch and block
        (the array object is the key: the runner passes one colors array to every product of a pass)."""
        if self._sorted is None or self._sorted[0] is not colors:
            self._sorted = None
            self._sorted = (colors, {})
        got = self._sorted[1]
        if rows not in got:
            shared = next(iter(got.values()))["sarc"] if got else None
            got[rows] = self.sort_arcs(colors, self._items_of(rows), shared)
        return got[rows]

    def _R_padded(self, p):
        """``_R(p)`` flattened per row colour to p*W shorts and padded to RP (a multiple of 8), so the
        sorted kernel stages a row's combine table with 16-byte copies."""
        got = self._Rpad.get(p)
        if got is None:
            R = self._R(p)
            k, pw = int(R.shape[0]), int(R.shape[1] * R.shape[2])
            RP = -(-pw // 8) * 8
            Rp = self.cp.zeros((k, RP), dtype=self.cp.uint16)
            Rp[:, :pw] = R.reshape(k, pw)
            got = self._Rpad[p] = (Rp, RP)
        return got

    def _sorted_shape(self, p, L):
        """(groups per block, bytes per group, staged combine-table shorts RP) of the sorted kernel with
        L lanes per group: the tile k*Wp plus the row's combine table where both fit 48 KB, else the
        tile alone (RP = 0: the table is read from global memory); past 48 KB the same in the shared memory a
        block may opt in to (227 KB on an H100 or H200: u15's products of 5 to 7, whose tiles are 60-180 KB,
        ran on the gather kernel before); None where the tile does not fit even that."""
        Wp, W = math.comb(self.k - 1, p - 1), math.comb(self.k - 1, p)
        if self.k * Wp >= 1 << 16:
            return None
        tile = -(-(self.k * Wp * self.dtype.itemsize) // 16) * 16
        for limit in (_SMEM_LIMIT, smem_optin()) if self.sorted_optin else (_SMEM_LIMIT,):
            for RP in (-(-(p * W) // 8) * 8, 0):
                gpb = min(self.block // L, limit // (tile + 2 * RP))
                if gpb >= 1:
                    return gpb, tile + 2 * RP, RP
        return None

    def rooted_rule(self, p):
        """The tiled variant chosen without timing: the fewest lanes whose tiles fit, groups of 32
        threads (several arcs in parallel when rows are narrow); gather when no tile fits."""
        L = self._lanes(math.comb(self.k - 1, p - 1))
        return ("gather",) if L is None else ("tiled", L, max(1, 32 // L))

    def spmm_rooted(self, X, Q, colors, p, variant=None, rows=None):
        """B = A · M_p over rooted tables.  ``variant``: see :meth:`rooted_variants`; default by
        ``spmm``: "gather" / "tiled" (the rule) / "auto" and "custom" (timed once per graph and size).
        ``rows`` = (r0, r1): only B's rows r0 .. r1-1 (one coloring; a table of r1 - r0 rows)."""
        if variant is None:
            variant = self._choose(X, Q, colors, p, rows)
        cp = self.cp
        Wp = int(X.shape[1])
        W = int(Q.shape[2])
        blk = None if rows is None else (int(rows[0]), int(rows[1]))
        it = self._items_of(blk)
        if blk is None:
            rows = int(X.shape[0])
            nbt = rows // max(1, self.n)
        else:
            if int(X.shape[0]) != self.n:
                raise InvalidArgument("a row block of the SpMM takes one coloring's table")
            rows, nbt = blk[1] - blk[0], 1
        with oom_guard("color coding: SpMM"):
            out = self.empty(rows, W)
            if rows == 0 or W == 0:
                return out
            partial = cp.empty((max(1, nbt * it["n_chunks"]), W), dtype=self.dtype)
            split = 0
            if variant[0] == "tiled":
                split = it["n_items"]
                L, S = int(variant[1]), int(variant[2])
                gpb = self.block // (L * S)
                slots = nbt * split
                if slots:
                    kernel(__package__, "cc_spmm", "cc_spmm_tiled", self.opts)(
                        ((slots + gpb - 1) // gpb,), (self.block,),
                        (self.idx, it["v"], it["lo"], it["hi"], it["dst"], np.int64(split),
                         np.int32(it["n_chunks"]), np.int32(self.n), np.int64(nbt), colors, self._R(p),
                         np.int32(self.k), np.int32(p), X, np.int32(Wp), out, partial, np.int32(W), np.int32(L),
                         np.int32(S)),
                        shared_mem=self._tile_bytes(Wp, L))
            elif variant[0] == "sorted":
                split = it["n_items"]
                NX, A, L, V = (int(x) for x in variant[1:5])
                if V == 2 and (Wp % 2 or X.data.ptr % (2 * self.dtype.itemsize)):
                    V = 1  # never on tables of this module (even widths, aligned allocations)
                arcs = self._arcs(colors, blk)
                Rp, RPg = self._R_padded(p)
                gpb, GB, RP = self._sorted_shape(p, L)
                slots = nbt * split
                if slots:
                    name = f"cc_spmm_sorted_{NX}x{A}" + ("v2" if V == 2 else "")
                    (_optin_kernel("cc_spmm", name, self.opts) if gpb * GB > _SMEM_LIMIT else
                     kernel(__package__, "cc_spmm", name, self.opts))(
                        ((slots + gpb - 1) // gpb,), (gpb * L,),
                        (arcs["sarc"], arcs["kept"], it["v"], it["lo"], it["dst"], np.int64(split),
                         np.int32(it["n_chunks"]), np.int32(self.n), np.int64(self.idx.shape[0]), np.int64(nbt),
                         colors, Rp, np.int32(RPg), np.int32(RP), np.int32(self.k), np.int32(p),
                         np.uint64(-(-(1 << 32) // Wp)), X, np.int32(Wp), out, partial, np.int32(W), np.int32(L),
                         np.int32(GB)),
                        shared_mem=gpb * GB)
            rest = it["n_items"] - split
            if rest:
                Qd = self._Q.get(p)
                if Qd is None:
                    Qd = self._Q[p] = cp.asarray(np.ascontiguousarray(Q))
                tpr = _tpr(W)
                rpb = self.block // tpr
                slots = nbt * rest
                kernel(__package__, "cc_spmm", "cc_spmm_rooted", self.opts)(
                    ((slots + rpb - 1) // rpb,), (self.block,),
                    (self.idx, it["v"][split:], it["lo"][split:], it["hi"][split:], it["dst"][split:],
                     np.int64(rest), np.int32(it["n_chunks"]), np.int32(self.n), np.int64(nbt), colors, Qd,
                     np.int32(self.k), X, np.int32(Wp), out, partial, np.int32(W), np.int32(tpr)))
            if it["n_heavy"]:
                total = nbt * it["n_heavy"] * W
                grid = int(min((total + self.block - 1) // self.block, 65535 * 8))
                kernel(__package__, "cc_spmm", "cc_spmm_reduce", self.opts)(
                    (grid,), (self.block,),
                    (it["heavy"], it["hstart"], np.int32(it["n_heavy"]), np.int32(it["n_chunks"]), np.int32(self.n),
                     np.int64(nbt), partial, np.int32(W), out))
        return out

    def _choose(self, X, Q, colors, p, rows=None):
        """The rooted variant for products of size p on this graph.  "gather" / "tiled" force one;
        "auto" / "custom" time every candidate once on the first product of that size (median of 3
        after a warm-up, CUDA events; each checked against the gather kernel's output) and keep the fastest on the graph's device cache, so later
        colorings of the same graph and size always run the same kernels (deterministic values)."""
        if self.spmm_method == "gather":
            return ("gather",)
        if self.spmm_method == "tiled":
            return self.rooted_rule(p)
        key = (f"gpu:{self.dev}:cc_rooted_choice:{self.k}:{p}:{self.dtype.name}"
               + ("" if self.sorted_optin else ":48k"))

        def tune():
            if self.n >= NOTICE_ROWS:
                self.G.device_cache(f"gpu:{self.dev}:cc_choice_notice", _choice_notice)
            # on one coloring's first TUNE_ROWS rows at most (each candidate runs four times on them, and its output
            # is checked), fewer where the gather reference and a candidate's output do not fit the free memory;
            # within the row block asked for, where the product runs in blocks
            if int(X.shape[0]) != self.n:
                return self.time_variants(X, Q, colors, p, rows=rows)[0][0]
            r0, r1 = (0, self.n) if rows is None else (int(rows[0]), int(rows[1]))
            row_bytes = int(Q.shape[2]) * self.dtype.itemsize
            room = self.free_bytes() // 2
            take = min(r1 - r0, TUNE_ROWS, max(1024, room // (2 * max(1, row_bytes))))
            blk = None if (rows is None and take >= self.n) else (r0, r0 + take)
            return self.time_variants(X, Q, colors, p, rows=blk)[0][0]
        return self.G.device_cache(key, tune)

    def time_variants(self, X, Q, colors, p, repeat=3, check=True, rows=None):
        """[(variant, seconds)] of every candidate on these inputs (``rows``: a row block, as in
        :meth:`spmm_rooted`), fastest first.  With ``check``, a
        candidate whose output differs from the gather kernel's (the first candidate) by more than
        float rounding (1e-4 of the largest value in float32, 1e-10 in float64) is left out with a
        warning, so a faulty kernel can never be chosen."""
        cp = self.cp
        res = []
        ref = scale = None
        tol = 1e-4 if self.dtype == np.float32 else 1e-10
        nrows = int(X.shape[0]) if rows is None else int(rows[1]) - int(rows[0])
        for var in self.rooted_variants(p, rows=nrows):
            Y = self.spmm_rooted(X, Q, colors, p, var, rows=rows)  # warm-up (and compile)
            if check:
                if ref is None:
                    ref = Y
                    scale = max(float(_max_abs_diff(ref)) if ref.size else 0.0, 1e-300)
                else:   # without temporaries of the product's size (they would stay in CuPy's pool)
                    err = float(_max_abs_diff(Y, ref)) / scale if Y.size else 0.0
                    if not err <= tol:
                        warnings.warn(f"color coding: rooted SpMM variant {var} differs from the gather kernel by "
                                      f"{err:.3g} (relative) for k={self.k}, p={p}; it is not used", RuntimeWarning,
                                      stacklevel=2)
                        del Y
                        continue
            del Y
            ts = []
            for _ in range(repeat):
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                self.spmm_rooted(X, Q, colors, p, var, rows=rows)
                b.record()
                b.synchronize()
                ts.append(cp.cuda.get_elapsed_time(a, b) / 1e3)
            res.append((var, sorted(ts)[len(ts) // 2]))
        res.sort(key=lambda r: r[1])
        return res

    def _cusparse_matrix(self):
        if self._A is None:
            import cupyx.scipy.sparse as csp
            cp = self.cp
            ptr = self.ptr.astype(cp.int32) if self.idx.shape[0] < 2**31 else self.ptr
            self._A = csp.csr_matrix((cp.ones(self.idx.shape[0], dtype=self.dtype), self.idx, ptr),
                                     shape=(self.n, self.n))
        return self._A

    # ----------------------------------------------------------------- eMA
    def _split(self, key, sa, sp):
        s = self._splits.get(key)
        if s is None:
            cp = self.cp
            pair = np.stack([sa.T, sp.T], axis=-1).astype(np.int32)  # [j][r] -> (sa, sp)
            s = cp.asarray(np.ascontiguousarray(pair))
            self._splits[key] = s
        return s

    def _split_packed(self, key, sa, sp, Ca, Cb):
        """The split table of :func:`cc_ema_lanes`: (sa | sp << 16) as uint32 in [r][j] order, each row padded to a
        multiple of 4 entries with (Ca | Cb << 16), the staged zero columns."""
        s = self._splits.get(("lanes", key))
        if s is None:
            Cs, ns = sa.shape
            nsp = -(-ns // 4) * 4
            pk = np.full((Cs, nsp), Ca | (Cb << 16), dtype=np.uint32)
            pk[:, :ns] = sa.astype(np.uint32) | (sp.astype(np.uint32) << 16)
            s = self._splits[("lanes", key)] = self.cp.asarray(pk)
        return s

    def ema_kernel(self, Ca, Cb, Cs, ns):
        """Which eMA kernel takes a product: ``self.ema_choice`` (:data:`EMA_CHOICES`: "auto", or "lanes" /
        "smem" / "global" where it fits, else smem or global as before the lanes kernel).  auto: ``cc_ema_lanes``
        (one lane per row, :meth:`lanes_shape`) where 8 staged rows fit the device's shared memory and an output
        set has at least ``EMA_LANES_MIN_NS`` splits; else ``cc_ema_smem`` where one row of both tables fits
        48 KB; else ``cc_ema_global``."""
        if self.ema_choice not in EMA_CHOICES:
            raise InvalidArgument(f"ema_choice must be one of {EMA_CHOICES}; got {self.ema_choice!r}")
        item = self.dtype.itemsize
        lanes_fit = Ca < 65535 and Cb < 65535 and _lanes_smem(Ca, Cb, item) <= smem_optin()
        smem_fit = (Ca + Cb) * item <= _SMEM_LIMIT
        want = self.ema_choice
        if want == "lanes" and lanes_fit or want == "smem" and smem_fit or want == "global":
            return want
        if want == "auto" and lanes_fit and ns >= EMA_LANES_MIN_NS:
            return "lanes"
        return "smem" if smem_fit else "global"

    def lanes_shape(self, Ca, Cb, Cs):
        """(rows a block R, threads) of cc_ema_lanes for a product (the rule fits the sweep of every product of u10 ..
        u15 on Graph500 20 in docs/color_coding.md): the most rows (32, 16, 8) for which R lanes per output set give
        at most 512 lanes and two blocks fit a multiprocessor's shared memory, else 8 (narrow products: enough lanes;
        wide ones: the least shared memory); threads for every output set's R lanes (128 to 512), raised until the
        blocks that fit a multiprocessor hold 2048 threads (up to 1024 a block: staging the rows is much of a wide
        product's time, and it runs on all the block's threads)."""
        item, sm, res = self.dtype.itemsize, smem_per_sm(), _BLOCK_RESERVED_SMEM
        R = next((r for r in (32, 16) if Cs * r <= 512 and 2 * (_lanes_smem(Ca, Cb, item, r) + res) <= sm), 8)
        blocks = max(1, sm // (_lanes_smem(Ca, Cb, item, R) + res))
        threads = min(512, max(128, -(-Cs * R // 32) * 32))
        return R, max(threads, min(1024, -(-2048 // blocks // 32) * 32))

    def lanes_parts(self, Cs, ns, R, threads):
        """Lane groups P (a power of two) that share one output set in cc_ema_lanes: 1 where the block's lanes are
        busy with one output set each (Cs * R >= threads / 2); else doubled while P * Cs * R lanes fit the block, the P
        groups stay in one warp (P * R <= 32: their partial sums are added by shuffles) and each keeps at least
        ``EMA_PART_MIN`` packed loads (4 splits each).  u15-1's root product (14 output sets of 1,716 splits, 8 rows a
        block of 1,024 threads) left 912 of the 1,024 lanes idle: P = 4."""
        P, n4 = 1, -(-ns // 4)      # the packed loads of an output set's ns splits
        while 2 * P * Cs * R <= threads and n4 // (2 * P) >= EMA_PART_MIN and 2 * P * R <= 32:
            P *= 2
        return P

    def ema(self, Ma, B, sa, sp, ma, mb, key, out=None):
        """M_s = Σ_splits (M_a·ma) ⊙ (B·mb) and the largest value written; ``out``: the rows to write (a row
        block's view of M_s), else a new table."""
        cp = self.cp
        rows = int(Ma.shape[0])
        Ca, Cb = int(Ma.shape[1]), int(B.shape[1])
        Cs, ns = int(sa.shape[0]), int(sa.shape[1])
        which = self.ema_kernel(Ca, Cb, Cs, ns)
        split = self._split_packed(key, sa, sp, Ca, Cb) if which == "lanes" else self._split(key, sa, sp)
        real = self.dtype.type
        with oom_guard("color coding: eMA"):
            if out is None:
                out = self.empty(rows, Cs)
            mbits = cp.zeros(1, dtype=cp.uint64 if self.dtype == np.float64 else cp.uint32)
            if rows and which == "lanes":
                R, threads = self.ema_lanes or self.lanes_shape(Ca, Cb, Cs)
                nsp = int(split.shape[1])
                P = self.ema_parts or self.lanes_parts(Cs, ns, R, threads)
                if P < 1 or P & (P - 1) or P * R > 32:
                    raise InvalidArgument(f"ema_parts must be a power of two with parts x {R} rows <= 32; got {P}")
                _optin_kernel("cc_ema", "cc_ema_lanes", self.opts)(
                    ((rows + R - 1) // R,), (threads,),
                    (Ma, np.int32(Ca), B, np.int32(Cb), split, np.int32(Cs), np.int32(nsp), np.int64(rows),
                     real(ma), real(mb), np.int32(R), np.int32(P), out, mbits),
                    shared_mem=_lanes_smem(Ca, Cb, self.dtype.itemsize, R))
            elif rows and which == "smem":
                item = self.dtype.itemsize
                R = 8
                while R > 1 and R * (Ca + Cb) * item > _SMEM_LIMIT:
                    R //= 2
                threads = 32
                while threads < 256 and threads < Cs:
                    threads *= 2
                grid = (rows + R - 1) // R
                kernel(__package__, "cc_ema", "cc_ema_smem", self.opts)(
                    (grid,), (threads,),
                    (Ma, np.int32(Ca), B, np.int32(Cb), split, np.int32(Cs), np.int32(ns), np.int64(rows),
                     real(ma), real(mb), np.int32(R), out, mbits),
                    shared_mem=R * (Ca + Cb) * item)
            elif rows:
                sm = sm_count()
                total = rows * Cs
                grid = int(min((total + self.block - 1) // self.block, sm * 32))
                kernel(__package__, "cc_ema", "cc_ema_global", self.opts)(
                    (grid,), (self.block,),
                    (Ma, np.int32(Ca), B, np.int32(Cb), split, np.int32(Cs), np.int32(ns), np.int64(rows),
                     real(ma), real(mb), out, mbits))
        mx = float(mbits.view(cp.float64 if self.dtype == np.float64 else cp.float32).get()[0])
        return out, mx

    # ----------------------------------------------------------------- results
    def block_sums(self, root, nbt):
        cp = self.cp
        out = cp.empty(nbt, dtype=cp.float64)
        if self.n == 0:
            return np.zeros(nbt)
        col = cp.ascontiguousarray(root[:, 0])
        kernel(__package__, "cc_spmm", "cc_block_sums", self.opts)((nbt,), (block_size(),), (col, np.int32(self.n), out))
        return out.get()

    def rows(self, root):
        return root[:, 0].astype(self.cp.float64).get()
