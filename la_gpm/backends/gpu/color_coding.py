"""GPU steps of color-coding tree counting: colorings, leaf tables, SpMM, fused eMA (CuPy + CUDA).

SpMM implementations over the row-major count tables:

* rooted layout (default): ``cc_spmm_rooted`` gathers only the colour sets that contain each
  neighbour's colour (C(k-1, p-1) of C(k, p) columns), a group of threads per work item; hubs are
  split into chunks of ``HUB_CHUNK`` arcs whose partial rows ``cc_spmm_reduce`` adds in order.
* dense layout, ``custom`` (``cc_spmm_rows``): a group of threads per output row, each thread
  owning columns of a pass, four neighbours' rows in flight; rows by decreasing degree.
* dense layout, ``cusparse``: ``cupyx.scipy.sparse.csr_matrix @ dense`` (cusparseSpMM), per copy.

``auto`` takes the rooted layout and its custom kernel (docs/color_coding.md has the measurements).
"""

from __future__ import annotations

import numpy as np

from . import cupy, device_csr, kernel, oom_guard

_SMEM_LIMIT = 48 * 1024
HUB_CHUNK = 1024  # arcs per work item of a hub (vertices of degree > 2 * HUB_CHUNK are split)


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
        dev = cp.cuda.Device().id

        def make_order():
            with oom_guard("color coding: row order"):
                return cp.asarray(np.argsort(-G.degrees, kind="stable").astype(np.int32))
        self.order = G.device_cache(f"gpu:{dev}:deg_order", make_order)
        self.labels = None
        if labels is not None:
            self.labels = {lab: cp.asarray(m.astype(np.uint8)) for lab, m in labels.items()}
        self._splits = {}
        self._Q = {}
        self._A = None
        self.block = 256
        self.items = G.device_cache(f"gpu:{dev}:cc_items:{HUB_CHUNK}", lambda: self._make_items(G))

    def _make_items(self, G):
        """Work items (v, lo, hi, dst) of the rooted SpMM: hub chunks first, then rows by degree."""
        cp = self.cp
        deg = G.degrees.astype(np.int64)
        ptr = G.indptr
        order = np.argsort(-deg, kind="stable")
        heavy = order[deg[order] > 2 * HUB_CHUNK]
        light = order[deg[order] <= 2 * HUB_CHUNK]
        cnt = -(-deg[heavy] // HUB_CHUNK)
        hstart = np.concatenate([[0], np.cumsum(cnt)]).astype(np.int32)
        cv = np.repeat(heavy, cnt)
        within = np.arange(cv.shape[0]) - np.repeat(hstart[:-1], cnt)
        clo = ptr[cv] + within * HUB_CHUNK
        chi = np.minimum(clo + HUB_CHUNK, ptr[cv + 1])
        nch = int(cv.shape[0])
        v = np.concatenate([cv, light]).astype(np.int32)
        lo = np.concatenate([clo, ptr[light]]).astype(np.int64)
        hi = np.concatenate([chi, ptr[light + 1]]).astype(np.int64)
        dst = np.concatenate([-1 - np.arange(nch), light]).astype(np.int32)
        with oom_guard("color coding: work items"):
            return {"v": cp.asarray(v), "lo": cp.asarray(lo), "hi": cp.asarray(hi), "dst": cp.asarray(dst),
                    "n_items": int(v.shape[0]), "n_chunks": nch, "heavy": cp.asarray(heavy.astype(np.int32)),
                    "hstart": cp.asarray(hstart), "n_heavy": int(heavy.shape[0])}

    # ----------------------------------------------------------------- colorings and leaves
    def colors(self, keys):
        cp = self.cp
        rows = len(keys) * self.n
        with oom_guard("color coding: colorings"):
            out = cp.empty(rows, dtype=cp.int8)
            if rows:
                kd = cp.asarray(np.asarray(keys, dtype=np.uint64))
                grid = int(min((rows + self.block - 1) // self.block, 65535 * 8))
                kernel("cc_spmm", "cc_colors", self.opts)((grid,), (self.block,),
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
                kernel("cc_spmm", "cc_leaf", self.opts)((grid,), (self.block,),
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
                kernel("cc_spmm", "cc_spmm_rows", self.opts)(
                    (grid,), (self.block,),
                    (self.ptr, self.idx, self.order, np.int32(self.n), np.int64(rows), X, np.int32(C), out,
                     np.int32(tpr)))
            else:
                A = self._cusparse_matrix()
                n = self.n
                for g in range(rows // n):
                    out[g * n:(g + 1) * n] = A @ X[g * n:(g + 1) * n]
        return out

    def spmm_rooted(self, X, Q, colors, p):
        cp = self.cp
        rows, Wp = int(X.shape[0]), int(X.shape[1])
        W = int(Q.shape[2])
        Qd = self._Q.get(p)
        if Qd is None:
            Qd = self._Q[p] = cp.asarray(np.ascontiguousarray(Q))
        it = self.items
        nbt = rows // max(1, self.n)
        with oom_guard("color coding: SpMM"):
            out = cp.empty((rows, W), dtype=self.dtype)
            if rows == 0 or W == 0:
                return out
            partial = cp.empty((max(1, nbt * it["n_chunks"]), W), dtype=self.dtype)
            tpr = _tpr(W)
            rpb = self.block // tpr
            slots = nbt * it["n_items"]
            if slots:
                kernel("cc_spmm", "cc_spmm_rooted", self.opts)(
                    ((slots + rpb - 1) // rpb,), (self.block,),
                    (self.idx, it["v"], it["lo"], it["hi"], it["dst"], np.int64(it["n_items"]),
                     np.int32(it["n_chunks"]), np.int32(self.n), np.int64(nbt), colors, Qd, np.int32(self.k), X,
                     np.int32(Wp), out, partial, np.int32(W), np.int32(tpr)))
            if it["n_heavy"]:
                total = nbt * it["n_heavy"] * W
                grid = int(min((total + self.block - 1) // self.block, 65535 * 8))
                kernel("cc_spmm", "cc_spmm_reduce", self.opts)(
                    (grid,), (self.block,),
                    (it["heavy"], it["hstart"], np.int32(it["n_heavy"]), np.int32(it["n_chunks"]), np.int32(self.n),
                     np.int64(nbt), partial, np.int32(W), out))
        return out

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

    def ema(self, Ma, B, sa, sp, ma, mb, key):
        cp = self.cp
        rows = int(Ma.shape[0])
        Ca, Cb = int(Ma.shape[1]), int(B.shape[1])
        Cs, ns = int(sa.shape[0]), int(sa.shape[1])
        split = self._split(key, sa, sp)
        real = self.dtype.type
        with oom_guard("color coding: eMA"):
            out = cp.empty((rows, Cs), dtype=self.dtype)
            mbits = cp.zeros(1, dtype=cp.uint64 if self.dtype == np.float64 else cp.uint32)
            if rows:
                item = self.dtype.itemsize
                R = 8
                while R > 1 and R * (Ca + Cb) * item > _SMEM_LIMIT:
                    R //= 2
                if R * (Ca + Cb) * item <= _SMEM_LIMIT:
                    threads = 32
                    while threads < 256 and threads < Cs:
                        threads *= 2
                    grid = (rows + R - 1) // R
                    kernel("cc_ema", "cc_ema_smem", self.opts)(
                        (grid,), (threads,),
                        (Ma, np.int32(Ca), B, np.int32(Cb), split, np.int32(Cs), np.int32(ns), np.int64(rows),
                         real(ma), real(mb), np.int32(R), out, mbits),
                        shared_mem=R * (Ca + Cb) * item)
                else:
                    sm = cp.cuda.Device().attributes["MultiProcessorCount"]
                    total = rows * Cs
                    grid = int(min((total + self.block - 1) // self.block, sm * 32))
                    kernel("cc_ema", "cc_ema_global", self.opts)(
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
        kernel("cc_spmm", "cc_block_sums", self.opts)((nbt,), (256,), (col, np.int32(self.n), out))
        return out.get()

    def rows(self, root):
        return root[:, 0].astype(self.cp.float64).get()
