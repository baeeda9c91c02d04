"""GPU backend of motif-frequency estimation: colorful treelet tables and samplers on the device (CuPy).

The tables of one coloring (``M``: every rooted shape's colorful embeddings per vertex and colour
set; ``B``: ``A·M`` of the passive shapes) are built on the device by ``la_gpm/motif_estimate/me_sample.cu`` in the
layout of the CPU kernels, one *level* (all shapes of one size, contiguous columns) at a time:
``me_ema_level`` (one thread per (vertex, output column) of the level) and ``me_spmm_tasks<NC>``
(the SpMM of the level's columns at once: one warp per task = a vertex, or a chunk of ``SPMM_CHUNK``
neighbours of a hub, lanes over <= 32·NC columns; hubs' chunk sums go to ``P`` and are added by
``me_spmm_hub_sum``).  ``P`` is kept: the samplers skip whole chunks of a hub's neighbour list with
it.  ``build="shape"`` keeps the earlier per-shape build (``me_spmm``/``me_spmm_groups``/``me_ema``)
for before/after measurements.  ``me_sample`` runs one independent sampler per thread
(``me_sample_warp``: one per warp, scanning hubs' neighbours 32 at a time, on graphs with a vertex of
degree >= ``HUB_DEGREE``), with counter-based SplitMix64 random numbers as on the CPU, walks the
tables backwards and returns each sample's induced adjacency bitmask, classified on the device
through the class table (k <= 7) or on the host with the canonical-form cache (k = 8).  With tables
below 2^53 (exact integers) a seed gives the CPU backend's samples exactly.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from ..color_coding.trees import split_tables
from ..device import cupy, device_csr, headroom_bytes, kernel, managed_array, oom_guard
from ..exceptions import PatternTooLarge
from .shapes import free_shapes, shape_plan, top_free

_FILE = "me_sample"
_HOST_CUMSUM = 1 << 20      # root weights up to this many entries are summed on the host (exactly as the CPU)
HUB_DEGREE = 128            # graphs with a vertex of this degree sample with a warp per sample
GROUPED_SPMM_MAX_C = 16     # (per-shape build) tables of at most this many columns use the grouped SpMM
SPMM_CHUNK = 1024           # neighbours per SpMM task: vertices of higher degree are split over several warps
SPMM_MAX_NC = 6             # an SpMM window has at most 32 * SPMM_MAX_NC columns
BUILD = "level"             # "level" (default) or "shape" (the earlier per-shape build, for comparison)
RELABEL = "chunked"         # layouts built on the degree-ordered relabelling: "chunked" (default: the chunked and
                            # spill layouts), "spill" (that one only) or "always" (every layout); measurements
ME_MAXNS = 70               # me_sample.cu: most colour splits of one node (k = 8), the chunked samplers' buffers
ME_SAMPLE_BLOCK = 128       # me_sample.cu: threads per block of the samplers


def level_windows(pl, k: int, h: int) -> list:
    """SpMM windows (offM, offB, columns) of the passive shapes of size h: runs of shapes contiguous in
    both M and B, cut into windows of at most 32 * SPMM_MAX_NC columns."""
    C = math.comb(k, h)
    wins, run = [], []
    pas = [int(i) for i in np.flatnonzero(pl.size == h) if pl.offB[i] >= 0]
    for i in pas + [None]:
        if run and (i is None or i != run[-1] + 1 or pl.offB[i] != pl.offB[run[-1]] + C):
            width = len(run) * C
            nw = -(-width // (32 * SPMM_MAX_NC))
            step = -(-width // nw)
            for c0 in range(0, width, step):
                wins.append((int(pl.offM[run[0]]) + c0, int(pl.offB[run[0]]) + c0, min(step, width - c0)))
            run = []
        if i is not None:
            run.append(i)
    return wins


def shape_windows(pl, k: int, ids) -> list:
    """SpMM windows (offM, offB, columns) of the passive shapes ``ids`` (any sizes): runs of shapes of one size
    contiguous in both M and B, cut into windows of at most 32 * SPMM_MAX_NC columns (the chunked build:
    the passive children of one level)."""
    wins, run = [], []
    ids = sorted(int(i) for i in ids)

    def close():
        C = math.comb(k, int(pl.size[run[0]]))
        width = len(run) * C
        nw = -(-width // (32 * SPMM_MAX_NC))
        step = -(-width // nw)
        for c0 in range(0, width, step):
            wins.append((int(pl.offM[run[0]]) + c0, int(pl.offB[run[0]]) + c0, min(step, width - c0)))

    for i in ids:
        if run and not (i == run[-1] + 1 and pl.size[i] == pl.size[run[-1]]
                        and pl.offB[i] == pl.offB[run[-1]] + math.comb(k, int(pl.size[i]))):
            close()
            run = []
        run.append(i)
    if run:
        close()
    return wins


def relabels(kind: str) -> bool:
    """Whether tables of layout ``kind`` are built and sampled on the degree-ordered relabelling (:data:`RELABEL`).
    Measured on an H200 (docs/motif_estimate.md, "The degree order"): builds 15-22% faster and sampling 10-40%
    slower, so it pays where builds dominate: the chunked and spill layouts (their samplers recompute B too)."""
    if RELABEL == "always":
        return True
    if RELABEL == "chunked":
        return kind in ("chunked", "spill")
    return kind == "spill"


class _Csr:
    """The parts of a graph the sampler's set-up reads (n, indptr, indices, degrees)."""

    def __init__(self, indptr, indices):
        self.n = indptr.size - 1
        self.indptr, self.indices = indptr, indices
        self.degrees = np.diff(indptr)


class GpuSampler:
    """Per-graph device state (CSR, plan arrays, class table) shared by the colorings of one run.

    ``relabel`` (the chunked and spill layouts, :meth:`relabeled`): the state of the graph with its vertices renamed in
    order of decreasing degree (``perm``: slot -> vertex, ``slot``: vertex -> slot; ties by id) and every
    neighbour list in its own order, so that the tables' first rows, the ones kept on the device, are the rows
    the SpMM gathers most (a vertex's row is read once per neighbour; isolated vertices' never), and every sum
    and walk is the original's; ``optr``/``oidx`` stay the graph's own CSR (the samplers' adjacency tests)."""

    def __init__(self, G, k, relabel: bool = False):
        cp = cupy()
        self.cp, self.G, self.k = cp, G, k
        self.plan = pl = shape_plan(k)
        self.optr, self.oidx = device_csr(G, "A")
        self.mapped = bool(relabel)
        if relabel:
            from ..primitives.csr import relabel as relabel_csr
            deg = np.diff(np.asarray(G.indptr, dtype=np.int64))
            self.perm = np.argsort(-deg, kind="stable").astype(np.int32)
            self.slot = np.empty(G.n, dtype=np.int32)
            self.slot[self.perm] = np.arange(G.n, dtype=np.int32)
            rptr, ridx = relabel_csr(np.asarray(G.indptr, dtype=np.int64), np.asarray(G.indices, dtype=np.int32),
                                     self.slot, sort=False)     # every list in its own order
            self.csr = _Csr(rptr, ridx)
            self.ptr, self.idx = cp.asarray(rptr), cp.asarray(ridx)
            self.perm_d, self.slot_d = cp.asarray(self.perm), cp.asarray(self.slot)
        else:
            self.csr = G
            self.ptr, self.idx = self.optr, self.oidx
            self.perm_d = self.slot_d = cp.zeros(1, dtype=cp.int32)      # unread (mapped = 0)
        self._relabeled = None
        G = self.csr
        d = {name: cp.asarray(getattr(pl, name).astype(np.int64))
             for name in ("offM", "offB", "size", "act", "pas", "split_off", "split_n", "split_sa", "split_sp",
                          "top")}
        if d["split_sa"].size == 0:
            d["split_sa"] = cp.zeros(1, dtype=cp.int64)
            d["split_sp"] = cp.zeros(1, dtype=cp.int64)
        self.d = d
        self.top_aut = cp.asarray(pl.top_aut)
        self.top_free = top_free(k)
        self.nf = len(free_shapes(k))
        self._table = None
        self._spill = {}
        self._spill_lock = threading.Lock()
        self.hubs = G.n > 0 and int(G.degrees.max()) >= HUB_DEGREE
        self._setup_tasks(G)
        self._setup_levels(pl, k)

    def _setup_tasks(self, G):
        """SpMM tasks (vertex, chunk) and the hubs' chunk slots (vertices of degree > SPMM_CHUNK)."""
        cp = self.cp
        CH = self.chunk = int(SPMM_CHUNK)
        n = G.n
        deg = np.diff(np.asarray(G.indptr, dtype=np.int64))
        nch = np.maximum(1, (deg + CH - 1) // CH)
        hub = nch > 1
        hub_v = np.flatnonzero(hub).astype(np.int32)
        hub_ns = nch[hub].astype(np.int32)
        hub_s0 = (np.cumsum(hub_ns) - hub_ns).astype(np.int32)
        slot = np.full(n, -1, dtype=np.int32)
        slot[hub_v] = hub_s0
        self.nslots = int(hub_ns.sum())
        # hubs' chunks first (the longest tasks start first), then one task per other vertex
        tv = np.concatenate([np.repeat(hub_v, hub_ns), np.flatnonzero(~hub).astype(np.int32)])
        tc = np.concatenate([np.arange(self.nslots, dtype=np.int32) - np.repeat(hub_s0, hub_ns),
                             np.zeros(n - hub_v.size, dtype=np.int32)])
        self.ntask = int(tv.size)
        self._tasks_host = (tv, tc, hub_v, hub_s0, hub_ns.astype(np.int32))
        self._chunks = {}
        self.task_v, self.task_c = cp.asarray(tv), cp.asarray(tc)
        self.hub_v, self.hub_s0, self.hub_ns = cp.asarray(hub_v), cp.asarray(hub_s0), cp.asarray(hub_ns)
        self.nhub = int(hub_v.size)
        self.hub_slot = cp.asarray(slot if n else np.full(1, -1, dtype=np.int32))
        self.no_hub_slot = cp.full(max(n, 1), -1, dtype=cp.int32)

    def _setup_levels(self, pl, k):
        """Per size h: the eMA entries of its shapes and the SpMM windows of its passive shapes."""
        cp = self.cp
        sa32 = cp.asarray(pl.split_sa.astype(np.int32) if pl.split_sa.size else np.zeros(1, np.int32))
        sp32 = cp.asarray(pl.split_sp.astype(np.int32) if pl.split_sp.size else np.zeros(1, np.int32))
        self.sa32, self.sp32 = sa32, sp32
        self.levels = []
        self.level_pas = {h: shape_windows(pl, k, {int(pl.pas[i]) for i in np.flatnonzero(pl.size == h)})
                          for h in range(2, k + 1)}
        for h in range(1, k + 1):
            ids = np.flatnonzero(pl.size == h)
            ent = None
            if h > 1:
                dst, offA, offB, s0, ns = [], [], [], [], []
                for i in ids.tolist():
                    C = math.comb(k, h)
                    n_s = int(pl.split_n[i])
                    dst += [int(pl.offM[i]) + r for r in range(C)]
                    offA += [int(pl.offM[pl.act[i]])] * C
                    offB += [int(pl.offB[pl.pas[i]])] * C
                    s0 += [int(pl.split_off[i]) + r * n_s for r in range(C)]
                    ns += [n_s] * C
                ent = tuple(cp.asarray(np.array(x, dtype=np.int32)) for x in (dst, offA, offB, s0, ns)) + (len(dst),)
            wins = level_windows(pl, k, h)
            self.levels.append((h, ent, wins))

    def graph_bytes(self) -> int:
        """Device bytes of the run's graph state: CSR, SpMM tasks (twice: the chunked build's per-chunk lists),
        hub arrays and slots (the memory model's ``graph`` term); relabelled, the slot maps too."""
        G = self.csr
        return int(8 * (G.n + 1) + 4 * G.indices.size + 2 * 8 * self.ntask + 3 * 4 * self.nhub + 8 * max(G.n, 1)
                   + (8 * G.n if self.mapped else 0))

    def spill_graph_bytes(self) -> int:
        """Device bytes of the graph state of a run on the degree-ordered relabelling: this state and the relabelled
        one (the same arrays over the same degrees, and its two slot maps)."""
        return 2 * self.graph_bytes() + 8 * self.csr.n

    def layout_graph_bytes(self) -> tuple:
        """The memory model's graph term of the (full, chunked, spill) layouts: :meth:`spill_graph_bytes` for those
        built on the relabelling (:data:`RELABEL`), :meth:`graph_bytes` for the others."""
        both = self.spill_graph_bytes()
        return tuple(both if relabels(kind) else self.graph_bytes() for kind in ("full", "chunked", "spill"))

    def relabeled(self) -> "GpuSampler":
        """The state of the degree-ordered relabelling (made once a run) that the chunked and spill layouts build
        and sample on (:func:`relabels`)."""
        if self.mapped:
            return self
        if self._relabeled is None:
            self._relabeled = GpuSampler(self.G, self.k, relabel=True)
        return self._relabeled

    def free_bytes(self) -> int:
        """The budget when none is given: free device memory (and the pool's free blocks) with the graph state
        added back (it is counted in the model), less 1/16 and 256 MiB for CuPy and the class table."""
        return max(1, headroom_bytes() + self.graph_bytes())

    def chunk_tasks(self, rows: int) -> list:
        """Per vertex chunk [v0, v1) of ``rows`` vertices: (v0, v1, task_v, task_c, ntask, hub_v, hub_s0, hub_ns,
        nhub) on the device, the SpMM tasks and hubs of the chunk's vertices in the whole list's order."""
        if rows not in self._chunks:
            cp = self.cp
            tv, tc, hv, hs0, hns = self._tasks_host
            out = []
            for v0 in range(0, self.csr.n, rows):
                v1 = min(self.csr.n, v0 + rows)
                mt = (tv >= v0) & (tv < v1)
                mh = (hv >= v0) & (hv < v1)
                out.append((v0, v1, cp.asarray(tv[mt]), cp.asarray(tc[mt]), int(mt.sum()), cp.asarray(hv[mh]),
                            cp.asarray(hs0[mh]), cp.asarray(hns[mh]), int(mh.sum())))
            self._chunks = {rows: out}         # one chunking per run
        return self._chunks[rows]

    def spill_array(self, name: str, shape, device_bytes: int = 0):
        """The spill layout's array ``name`` (float64, ``shape``) in managed memory, its first ``device_bytes`` on
        the device and the rest in host memory (:func:`~la_gpm.device.managed_array`): one a coloring's tables
        gave back (:meth:`GpuTables.release`) where it has this shape, else a new one.  Host memory is slow to
        map the first time (about 1 GB/s; the bus's speed after), so a run's colorings pass these arrays on;
        each is held by one coloring's tables at a time."""
        key = (tuple(int(x) for x in shape), int(device_bytes))
        with self._spill_lock:
            kept = self._spill.pop(name, None)
        if kept is not None and kept[0] == key:
            return kept[1]
        del kept
        return managed_array(shape, np.float64, device_bytes)

    def spill_keep(self, name: str, a, device_bytes: int = 0) -> None:
        """Keep spill array ``a`` for the next coloring's :meth:`spill_array` (one per name)."""
        with self._spill_lock:
            self._spill[name] = ((tuple(int(x) for x in a.shape), int(device_bytes)), a)

    def class_table(self, table):
        if self._table is None:
            self._table = self.cp.asarray(table.astype(np.int32))
        return self._table

    def tables(self, colors, layout=None):
        return GpuTables(self, colors, layout)


class GpuTables:
    """The colorful tables of one coloring on the device; the interface of the CPU ``CpuTables``.  The spill
    layout (``spill``) holds the rows of ``M`` past the layout's ``m_rows`` and the root weights with their sums
    in host memory the kernels read in place (:meth:`GpuSampler.spill_array`); its build and samplers are the
    chunked layout's."""

    spill = False

    def __init__(self, S: GpuSampler, colors, layout=None):
        from .memory import Ledger
        self.spill = layout is not None and layout.kind == "spill"
        if relabels("full" if layout is None else layout.kind):    # built and sampled on the degree order
            S = S.relabeled()
        cp, pl, k, G = S.cp, S.plan, S.k, S.G
        self.S, self.k, self.plan = S, k, pl
        n = G.n
        self.n = n
        self.mem = L = Ledger()
        self.chunked = layout is not None and layout.kind in ("chunked", "spill")
        self.build = "level" if self.chunked else BUILD        # the chunked sampler needs the hub slots
        if self.chunked and int(pl.split_n.max()) > ME_MAXNS:
            raise PatternTooLarge(f"a node has {int(pl.split_n.max())} colour splits; the kernels hold {ME_MAXNS}")
        with oom_guard(f"motif estimate tables (n={n}, {pl.WM}+{pl.WB} columns of float64, "
                       f"{'chunked' if self.chunked else 'full'} layout)"):
            if self.build == "shape":
                self.M = L.array(cp.zeros, (n, pl.WM), cp.float64)
                self.B = L.array(cp.zeros, (n, pl.WB), cp.float64)
                self.P = L.array(cp.zeros, 1, cp.float64)
            elif self.spill:    # the rows past m_rows in host memory, read in place
                on = self._m_on = min(n, int(layout.m_rows)) * pl.WM * 8
                self.M = S.spill_array("M", (n, pl.WM), on)
                L.alloc(on)
                L.spilled += self.M.nbytes - on
                self.B = None
                self.P = L.array(cp.empty, (max(S.nslots, 1), pl.WB), cp.float64)
            else:   # every entry is written by the level-wise build
                self.M = L.array(cp.empty, (n, pl.WM), cp.float64)
                self.B = None if self.chunked else L.array(cp.empty, (n, pl.WB), cp.float64)
                self.P = L.array(cp.empty, (max(S.nslots, 1), pl.WB), cp.float64)
            col = colors.astype(cp.int8, copy=False) if isinstance(colors, cp.ndarray) else \
                cp.asarray(np.ascontiguousarray(colors, dtype=np.int8))
            if S.mapped:
                col = col[S.perm_d]             # slot s has vertex perm[s]'s colour
            L.alloc(n)
            if n:
                if self.chunked:
                    self._build_chunked(col, max(1, int(layout.rows)))
                elif self.build == "shape":
                    self._build_per_shape(col)
                else:
                    self._build_levels(col)
            self._roots()
        self.rooted = float(self.root_cum[-1]) if self.root_cum.size else 0.0
        self.treelets = self.rooted / k

    def _build_chunked(self, col, rows):
        """The chunked layout's build: per level (all shapes of one size) and vertex chunk of ``rows`` vertices,
        the SpMM of the level's passive children into the chunk's rows of a B buffer (hubs' chunk sums to P, as
        the level-wise build), then the level's eMA on those rows.  Same sums in the same order: the same M."""
        S, pl, n = self.S, self.plan, self.n
        cp, i64, blk = S.cp, np.int64, 256
        Bc = self.mem.array(cp.empty, (min(rows, n), pl.WB), cp.float64)
        kernel(__package__, _FILE, "me_leaf")(((n + blk - 1) // blk,), (blk,),
                                              (col, self.M, i64(n), i64(pl.WM), i64(pl.offM[0]), np.int32(self.k)))
        for h, ent, _ in S.levels:
            if h == 1:
                continue
            dst, offA, offB, s0, ns, E = ent
            for v0, v1, tv, tc, nt, hv, hs0, hns, nh in S.chunk_tasks(rows):
                for offM, offBw, C in S.level_pas[h]:
                    nc = -(-C // 32)
                    if nt:
                        kernel(__package__, _FILE, f"me_spmm_rows{nc}")(
                            ((nt * 32 + blk - 1) // blk,), (blk,),
                            (S.ptr, S.idx, self.M, i64(pl.WM), i64(offM), Bc, i64(pl.WB), i64(offBw), np.int32(C),
                             tv, tc, i64(nt), S.hub_slot, np.int32(S.chunk), self.P, i64(v0)))
                    if nh:
                        kernel(__package__, _FILE, "me_spmm_hub_sum_rows")(
                            ((nh * C + blk - 1) // blk,), (blk,),
                            (self.P, Bc, i64(pl.WB), i64(offBw), np.int32(C), hv, hs0, hns, i64(nh), i64(v0)))
                tot = (v1 - v0) * E
                kernel(__package__, _FILE, "me_ema_level_rows")(
                    ((tot + blk - 1) // blk,), (blk,),
                    (self.M, i64(pl.WM), Bc, i64(pl.WB), dst, offA, offB, s0, ns, S.sa32, S.sp32, np.int32(E),
                     i64(v0), i64(v1 - v0)))
        self.mem.free(Bc.nbytes)
        del Bc

    def _build_levels(self, col):
        """Level-wise build: per size h, one eMA launch for all its shapes, then its SpMM windows."""
        S, pl, n = self.S, self.plan, self.n
        i64, blk = np.int64, 256
        for h, ent, wins in S.levels:
            if h == 1:
                kernel(__package__, _FILE, "me_leaf")(((n + blk - 1) // blk,), (blk,),
                                         (col, self.M, i64(n), i64(pl.WM), i64(pl.offM[0]), np.int32(self.k)))
            else:
                dst, offA, offB, s0, ns, E = ent
                tot = n * E
                kernel(__package__, _FILE, "me_ema_level")(((tot + blk - 1) // blk,), (blk,),
                                              (self.M, i64(pl.WM), self.B, i64(pl.WB), dst, offA, offB, s0, ns,
                                               S.sa32, S.sp32, np.int32(E), i64(n)))
            for offM, offB, C in wins:
                nc = -(-C // 32)
                kernel(__package__, _FILE, f"me_spmm_tasks{nc}")(((S.ntask * 32 + blk - 1) // blk,), (blk,),
                                                    (S.ptr, S.idx, self.M, i64(pl.WM), i64(offM), self.B,
                                                     i64(pl.WB), i64(offB), np.int32(C), S.task_v, S.task_c,
                                                     i64(S.ntask), S.hub_slot, np.int32(S.chunk), self.P))
                if S.nhub:
                    tot = S.nhub * C
                    kernel(__package__, _FILE, "me_spmm_hub_sum")(((tot + blk - 1) // blk,), (blk,),
                                                     (self.P, self.B, i64(pl.WB), i64(offB), np.int32(C), S.hub_v,
                                                      S.hub_s0, S.hub_ns, i64(S.nhub)))

    def _build_per_shape(self, col):
        """The earlier build: one SpMM and one eMA launch per shape (for before/after comparisons)."""
        S, pl, k, n = self.S, self.plan, self.k, self.n
        cp, i64, blk = S.cp, np.int64, 256
        done_b = set()
        for i in range(len(pl.shapes)):
            if pl.size[i] == 1:
                kernel(__package__, _FILE, "me_leaf")(((n + blk - 1) // blk,), (blk,),
                                         (col, self.M, i64(n), i64(pl.WM), i64(pl.offM[i]), np.int32(k)))
                continue
            a, p = int(pl.act[i]), int(pl.pas[i])
            if p not in done_b:
                C = math.comb(k, int(pl.size[p]))
                kernel(__package__, _FILE, "me_spmm_groups" if C <= GROUPED_SPMM_MAX_C else "me_spmm")(
                    ((n * 32 + blk - 1) // blk,), (blk,),
                    (S.ptr, S.idx, self.M, i64(pl.WM), i64(pl.offM[p]), self.B, i64(pl.WB), i64(pl.offB[p]),
                     np.int32(C), i64(n)))
                done_b.add(p)
            sa, sp = split_tables(k, int(pl.size[i]), int(pl.size[a]))
            Cs, ns = sa.shape
            sa_d = cp.asarray(np.ascontiguousarray(sa, dtype=np.int64))
            sp_d = cp.asarray(np.ascontiguousarray(sp, dtype=np.int64))
            tot = n * Cs
            kernel(__package__, _FILE, "me_ema")(((tot + blk - 1) // blk,), (blk,),
                                    (self.M, i64(pl.WM), i64(pl.offM[a]), self.B, i64(pl.WB), i64(pl.offB[p]),
                                     i64(pl.offM[i]), sa_d, sp_d, np.int32(Cs), np.int32(ns), i64(n)))

    def release(self) -> None:
        """The coloring is done: its spilled arrays go back to the sampler for the next coloring's tables
        (:meth:`GpuSampler.spill_array`); these tables are not read again."""
        if self.spill:
            S = self.S
            S.spill_keep("M", self.M, self._m_on)
            S.spill_keep("root_w", self.root_w)
            S.spill_keep("root_cum", self.root_cum)
            self.M = self.root_w = self.root_cum = None

    def natural_mixture(self) -> np.ndarray:
        return self.shape_treelets / self.treelets if self.treelets > 0 else np.zeros_like(self.shape_treelets)

    def _roots(self):
        """Root weights (tops x n, C-contiguous), per-shape totals and cumulative sums, in 2·8·n·T bytes with no
        transient above that: ``root_w`` is filled one top shape at a time (its column of ``M`` divided by its
        automorphisms, into its row: no gathered (n, tops) copy) and ``root_cum`` is summed in its own place
        (:meth:`_sums`).  The same doubles as the earlier ``M[:, tops].T / aut`` (one IEEE division each)."""
        S, pl, k, n, L = self.S, self.plan, self.k, self.n, self.mem
        cp = S.cp
        T = len(pl.top)
        if self.spill:           # the spill layout holds the root weights and their sums in host memory
            self.root_w = S.spill_array("root_w", (T, n))
            L.spilled += 2 * self.root_w.nbytes
        else:
            self.root_w = L.array(cp.empty, (T, n), cp.float64)          # (tops, n), C-contiguous
        for t in range(T):      # relabelled tables: the weights in the graph's own vertex order
            c = int(pl.offM[pl.top[t]])
            cp.divide(self.M[S.slot_d, c] if S.mapped else self.M[:, c], float(pl.top_aut[t]), out=self.root_w[t])
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
        if not self.spill:
            L.alloc(self.root_w.nbytes)     # the cumulative sums
        self._sums(None)

    def set_mixture(self, q) -> None:
        q = np.asarray(q, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(self.shape_treelets > 0, q / (self.k * self.shape_treelets), 0.0)
        if not self.spill:                   # (the spill layout writes the new sums over the old ones)
            self.root_cum = None             # the old sums go before the new ones are made (memory model)
            self.mem.free(self.root_w.nbytes)
            self.mem.alloc(self.root_w.nbytes)   # the new sums, made in their own place
        self._sums(f[self.top_free])

    def _sums(self, f) -> None:
        """``root_cum = cumsum((root_w * f[:, None]).ravel())`` (``f`` None: of ``root_w``), one tops x n array.
        Host (small tables): numpy's cumsum, uploaded, as before.  Device: the weighted copy is written into
        the new sums' array and CuPy's cumsum runs with ``out=`` that same array object (CuPy copies its
        input into ``out``, here a no-op, then scans ``out`` in place: CUB's DeviceScan, in place by design,
        or CuPy's own scan, which reads each element before it writes it); without ``out=`` CuPy would scan
        an ``astype`` copy in place: the same scan of the same doubles, one array more."""
        cp = self.S.cp
        cum = None
        if self.spill:      # the sums' own array in host memory: the last sums' (set_mixture) or the sampler's
            old = getattr(self, "root_cum", None)
            cum = old if old is not None else self.S.spill_array("root_cum", (self.root_w.size,))
        if self._host:
            w = self.root_w_host if f is None else self.root_w_host * f[:, None]
            if cum is not None:
                cum.set(np.cumsum(w.ravel()))
                self.root_cum = cum
            else:
                self.root_cum = cp.asarray(np.cumsum(w.ravel()))
            return
        if cum is None:
            cum = cp.empty(self.root_w.size, dtype=cp.float64)
        if f is None:
            src = self.root_w.ravel()                # a view (C-contiguous)
        else:
            cp.multiply(self.root_w, cp.asarray(f)[:, None], out=cum.reshape(self.root_w.shape))
            src = cum                                 # the same object as out=: no copy of the input
        self.root_cum = cp.cumsum(src, out=cum)

    def sample_device(self, count: int, key: int, first: int = 0):
        """(verts (count, k) int32, codes (count,) int64) on the device."""
        cp, S, pl = self.S.cp, self.S, self.plan
        verts = cp.empty((count, self.k), dtype=cp.int32)
        codes = cp.zeros(count, dtype=cp.int64)
        self.mem.alloc(verts.nbytes + codes.nbytes + 4 * count)
        self.mem.free(verts.nbytes + codes.nbytes + 4 * count)
        if count and self.rooted > 0:
            d = S.d
            blk = ME_SAMPLE_BLOCK
            lanes = 32 if S.hubs else 1        # a warp per sample where hub scans dominate
            name = ("me_sample_warp" if S.hubs else "me_sample") + ("_rows" if self.chunked else "")
            kernel(__package__, _FILE, name)(
                ((count * lanes + blk - 1) // blk,), (blk,),
                (S.ptr, S.idx, self.M, np.int64(pl.WM), self.M if self.chunked else self.B, np.int64(pl.WB),
                 d["offM"], d["offB"], d["size"],
                 d["act"], d["pas"], d["split_off"], d["split_n"], d["split_sa"], d["split_sp"], self.root_cum,
                 np.int64(self.root_cum.size), d["top"], np.int64(self.n), np.uint64(key), np.int64(first),
                 np.int64(count), np.int32(self.k), verts, codes, self.P,
                 S.hub_slot if self.build != "shape" else S.no_hub_slot, np.int32(S.chunk), S.slot_d, S.perm_d,
                 S.optr, S.oidx, np.int32(S.mapped)))
        return verts, codes

    def unique_keys(self, codes):
        """k = 8: the class-cache keys of a batch's bitmasks ``codes`` (device int64; from :meth:`sample_device`) on
        the host as (sorted distinct keys, their counts): :func:`la_gpm.patterns.classes.ordered_codes` of each
        bitmask (``me_ordered_codes8``, bit for bit) and their distinct values, on the device, so that the host
        looks up a few thousand keys a batch instead of relabelling and sorting 65,536 bitmasks."""
        cp = self.S.cp
        m = int(codes.size)
        self.mem.alloc(4 * codes.nbytes)       # the keys, the sort's copy and the distinct keys with their counts
        self.mem.free(4 * codes.nbytes)
        keyed = cp.empty_like(codes)
        if m:
            blk = 256
            kernel(__package__, _FILE, "me_ordered_codes8")(((m + blk - 1) // blk,), (blk,),
                                                            (codes, np.int64(m), keyed))
        u, counts = cp.unique(keyed, return_counts=True)
        return cp.asnumpy(u), cp.asnumpy(counts)

    def sample(self, count: int, key: int, first: int = 0):
        """Host copies as the CPU ``CpuTables.sample`` (verts (count, k) int64; no edges, no shapes)."""
        verts, _ = self.sample_device(count, key, first)
        return self.S.cp.asnumpy(verts).astype(np.int64), None, None

    def classify(self, reg, count: int, key: int, first: int = 0) -> np.ndarray:
        """Class rows of ``count`` samples (k <= 7 classified on the device)."""
        cp = self.S.cp
        _, codes = self.sample_device(count, key, first)
        if reg.table is not None:
            return cp.asnumpy(self.S.class_table(reg.table)[codes]).astype(np.int64)
        return reg.rows_of_codes(cp.asnumpy(codes))
