"""CPU steps of color-coding tree counting: colorings, leaf tables, SpMM, fused eMA (host memory).

:class:`CpuOps` runs the DP steps of a plan (:mod:`la_gpm.color_coding.trees`) with the numba
kernels of :mod:`la_gpm.color_coding.cpu_kernels`, or with a library SpMM on dense tables
(``scipy``: ``csr_array @ dense``; ``graphblas``: python-graphblas ``plus_times``), one coloring's
block at a time.  :mod:`la_gpm.color_coding.gpu` has the same interface on the CUDA device.
"""

from __future__ import annotations

import numpy as np

from ..backends import usable_host_memory
from .trees import rooted_gather_pairs

__all__ = ["CpuOps"]


class CpuOps:
    """numba / scipy / python-graphblas implementations of the DP steps (host memory)."""

    def __init__(self, G, k, dtype, spmm, labels):
        from . import cpu_kernels as K
        self.K = K
        self.G = G
        self.k = k
        self.dtype = dtype
        self.labels = labels
        self.n = G.n
        self.spmm_method = "numba" if spmm == "auto" else spmm
        if self.spmm_method == "scipy":
            import scipy.sparse as sp
            self._A = sp.csr_array((np.ones(G.nnz, dtype=dtype), G.indices, G.indptr), shape=(G.n, G.n))
        elif self.spmm_method == "graphblas":
            from ..primitives import graphblas as _gb  # noqa: F401 -- checks the install
            import graphblas as gb
            self._gb = gb
            self._A = gb.Matrix.from_csr(G.indptr, G.indices, np.ones(G.nnz, dtype=dtype), ncols=G.n, nrows=G.n)

    def colors(self, keys):
        return self.K.colors_from_keys(np.asarray(keys, dtype=np.uint64), self.n, self.k)

    def put_colors(self, col):
        return np.ascontiguousarray(col, dtype=np.int8)

    def sync(self):
        pass

    def leaf(self, colors, label, rooted=False):
        if rooted:
            out = np.empty((colors.shape[0], 1), dtype=self.dtype)
            mask = np.ones(1, dtype=np.bool_) if label is None else self.labels[label]
            return self.K.leaf_rooted(colors.shape[0], self.n, mask, label is not None, out)
        out = np.empty((colors.shape[0], self.k), dtype=self.dtype)
        if label is None:
            return self.K.leaf_table(colors, self.k, np.ones(self.n, dtype=np.bool_), False, out)
        return self.K.leaf_table(colors, self.k, self.labels[label], True, out)

    def spmm_rooted(self, X, Q, colors, p, rows=None):
        """B = A · M_p over rooted tables; ``rows`` = (r0, r1): only B's rows r0 .. r1-1 (one coloring)."""
        Qu, Qx = rooted_gather_pairs(self.k, p)
        r0, r1 = (0, X.shape[0]) if rows is None else (int(rows[0]), int(rows[1]))
        out = np.empty((r1 - r0, Q.shape[2]), dtype=self.dtype)
        return self.K.spmm_rooted(self.G.indptr, self.G.indices, self.n, colors, Qu, Qx, X, out, r0)

    def empty(self, rows, cols):
        return np.empty((rows, cols), dtype=self.dtype)

    def free_bytes(self) -> int | None:
        """Host memory a coloring's tables may take now (:func:`~la_gpm.backends.usable_host_memory`)."""
        return usable_host_memory()

    def spmm(self, X):
        n = self.n
        if self.spmm_method == "numba":
            out = np.empty_like(X)
            return self.K.spmm_rows(self.G.indptr, self.G.indices, n, X, out)
        nb_ = X.shape[0] // n
        out = np.empty_like(X)
        for g in range(nb_):
            blk = X[g * n:(g + 1) * n]
            if self.spmm_method == "scipy":
                out[g * n:(g + 1) * n] = self._A @ blk
            else:
                gb = self._gb
                M = gb.Matrix.from_dense(blk, missing_value=None) if hasattr(gb.Matrix, "from_dense") \
                    else gb.Matrix.from_values(*np.nonzero(np.ones_like(blk)), blk.ravel())
                R = gb.semiring.plus_times(self._A @ M).new()
                out[g * n:(g + 1) * n] = R.to_dense(fill_value=0)
        return out

    def ema(self, Ma, B, sa, sp, ma, mb, _key, out=None):
        if out is None:
            out = np.empty((Ma.shape[0], sa.shape[0]), dtype=self.dtype)
        rowmax = np.empty(Ma.shape[0], dtype=self.dtype)
        t = self.dtype.type
        self.K.ema_rows(Ma, B, sa, sp, t(ma), t(mb), out, rowmax)
        return out, float(rowmax.max()) if rowmax.shape[0] else 0.0

    def block_sums(self, root, nbt):
        return self.K.block_sums(np.ascontiguousarray(root[:, 0]), self.n, nbt)

    def rows(self, root):
        return root[:, 0].astype(np.float64)
