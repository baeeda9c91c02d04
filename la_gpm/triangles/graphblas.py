"""Triangle counting as masked mxm with the plus_pair semiring (the LAGraph methods).

======================  =========================================  ========================
method                  formula                                    notes
======================  =========================================  ========================
``"sandia_ll"``         ntri = Σ (L ⟨L⟩ = L plus_pair L)            LAGraph Sandia_LL (saxpy)
``"sandia_dot"``        ntri = Σ (L ⟨L⟩ = L plus_pair Lᵀ)           LAGraph Sandia_LUT (dot)
``"oriented_dot"``      ntri = Σ (D ⟨D⟩ = D plus_pair Dᵀ)           D: degree-ordered DAG; the
                                                                    presort LAGraph applies to
                                                                    skewed graphs, built in
``"burkhardt"``         ntri = Σ (A ⟨A⟩ = A plus_pair A) / 6        reference, 6x the work
======================  =========================================  ========================

``"auto"`` is ``"oriented_dot"``: on every graph benchmarked it was the fastest or
within noise of it (benchmarks/results).
"""

from __future__ import annotations

from ..primitives import graphblas as convert

METHODS = ("auto", "oriented_dot", "sandia_dot", "sandia_ll", "burkhardt")


def _masked_sum(M, X, Y, transpose_y: bool):
    import graphblas as gb

    C = gb.Matrix(gb.dtypes.INT64, M.nrows, M.ncols)
    C(mask=M.S) << gb.semiring.plus_pair[gb.dtypes.INT64](X @ (Y.T if transpose_y else Y))
    return int(C.reduce_scalar(gb.monoid.plus[gb.dtypes.INT64]).new().value or 0)


def triangle_count(G, method: str = "auto") -> int:
    if method == "auto":
        method = "oriented_dot"
    if method == "oriented_dot":
        D = convert.oriented(G)
        return _masked_sum(D, D, D, True)
    if method == "sandia_dot":
        L = convert.lower(G)
        return _masked_sum(L, L, L, True)
    if method == "sandia_ll":
        L = convert.lower(G)
        return _masked_sum(L, L, L, False)
    if method == "burkhardt":
        A = convert.adjacency(G)
        return _masked_sum(A, A, A, False) // 6
    raise ValueError(method)


def triangles_per_vertex(G):
    """t(v) = ½ Σ_j (A ⟨A⟩ = A plus_pair A)(v, j)."""
    import graphblas as gb
    import numpy as np

    A = convert.adjacency(G)
    C = gb.Matrix(gb.dtypes.INT64, A.nrows, A.ncols)
    C(mask=A.S) << gb.semiring.plus_pair[gb.dtypes.INT64](A @ A)
    v = C.reduce_rowwise(gb.monoid.plus).new()
    out = np.zeros(G.n, dtype=np.int64)
    idx, vals = v.to_coo()
    out[idx] = vals
    return out // 2
