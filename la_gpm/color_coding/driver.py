"""Color-coding tree counting (SubGraph2Vec: SpMM + fused eMA) with error bounds, on CPU and GPU.

Notes
-----
Color the vertices uniformly with k colors.  For a rooted sub-template T_s cut into an *active*
child T_a (keeps the root) and a *passive* child T_p (rooted at the root's cut neighbour), the
colorful-map tables satisfy (Chen et al., "SubGraph2Vec", 2019, Eq. 2)

    B   = A · M_p                                   (one SpMM over all C(k, |T_p|) colour sets)
    M_s[:, C] = Σ_{C_a ⊔ C_p = C} M_a[:, C_a] ⊙ B[:, C_p]     (the fused eMA)

with colour sets ranked by the combinatorial number system (colex order).  The root's one-column
table sums to α·(colorful copies), α = |Aut(T)|, and X = Σ M_root / (α·k!/k^k) is an unbiased
estimate of the number of non-induced copies.  Colorings are a counter-based hash of the seed, so
a seed gives the same colorings, and the same estimate up to float rounding, on every backend.

Tables are row-major ``(n, C)`` arrays (a vertex's colour sets are contiguous: the SpMM gathers
whole rows), float32 by default.  Every table keeps a power-of-two exponent; the eMA scales its
inputs to at most 1 first, so no float32 product or sum overflows whatever the counts (the root sum
is done in float64 and the exponent applied there).

The plans (colour-set ranks, rooted shapes, decomposition) are in :mod:`la_gpm.color_coding.trees`,
the steps on a backend in :mod:`~la_gpm.color_coding.cpu` and :mod:`~la_gpm.color_coding.gpu`;
this module evaluates plans (:class:`Runner`), checks arguments and runs the stop rules.
See ``docs/color_coding.md`` for the stopping rules and their guarantees.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import asdict, dataclass, field
from statistics import NormalDist

import numpy as np

from ..validation import as_graph
from ..backends import resolve_backend
from ..config import config
from ..exceptions import DeviceOutOfMemory, InvalidArgument, InvalidPattern, LabelMismatch, PatternTooLarge
from ..patterns.catalog import as_pattern
from .cpu import CpuOps
from .trees import (LAYOUTS, TreePlan, frees_and_peak, plan_tree, rooted_gather_table, rooted_shape, split_tables,
                    tree_automorphisms)

__all__ = ["Estimate", "estimate", "colorful_count", "Runner", "aliased", "prepare", "make_ops", "resolve_seed",
           "check_dtype", "check_run_args", "eb_interval", "acs_halfwidth", "acs_interval", "acs_zero_colorings",
           "ACS_MIN_NONZERO", "classical_colorings", "colorings_needed", "MAX_TREE_VERTICES", "STOP_RULES",
           "DEFAULT_STOP", "SPMM_METHODS", "PILOT_PASS", "PILOT_SHARE", "AutoExact", "exact_plan"]

MAX_TREE_VERTICES = 20
STOP_RULES = ("adaptive", "classical", "clt", "acs")
DEFAULT_STOP = "acs"    # the default stop rule of estimate (docs/color_coding.md: "Stop rules" says why)
SPMM_METHODS = {"cpu": ("auto", "numba", "scipy"), "graphblas": ("auto", "graphblas"),
                "gpu": ("auto", "custom", "gather", "tiled", "cusparse")}


# ============================================================================ the DP driver
# An eMA whose active child is an unlabelled rooted leaf is B itself: taken as B's table (False: the eMA pass
# runs, as before session 38; bench_color_coding.py --alias-compare)
ALIAS_LEAF = True


class _Val:
    __slots__ = ("arr", "e", "mx")

    def __init__(self, arr, e, mx):
        self.arr = arr
        self.e = e      # true value = stored · 2**e
        self.mx = mx    # upper bound on the stored values (> 0)


def _pow2_at_least(x: float) -> int:
    """E with x <= 2**E (x > 0)."""
    if not x > 0 or not math.isfinite(x):
        return 0
    return math.frexp(x)[1]


def aliased(plan, i) -> bool:
    """eMA op i of ``plan`` takes its B's table as it is (an unlabelled leaf as the active child: ALIAS_LEAF), so it
    moves nothing."""
    return (ALIAS_LEAF and plan.layout == "rooted" and not plan.labeled
            and plan.ops[plan.ops[i].inputs[0]].kind == "leaf")


class Runner:
    """Evaluates a plan for batches of colorings on one backend's ops."""

    def __init__(self, G, P, plan: TreePlan, ops, gpu: bool = False, itemsize: int = 8):
        self.G = G
        self.P = P
        self.plan = plan
        self.ops = ops
        self.gpu = gpu
        self.maxdeg = max(1, G.max_degree)
        self.itemsize = itemsize
        # row blocks of the streamed products (see blocks()): None decides by the memory there is; an int forces
        # that many (tests, benchmarks)
        self.row_blocks = None
        # gpu: tables of 256 MiB or more in their own allocations, not CuPy's pool (GpuOps.tables_direct); None:
        # where the products are streamed, or after the pool ran out once
        self.direct_tables = None
        self._pool_ran_out = False
        self._streamed = None

    def streamed(self):
        """The plan with its products streamed: (deferred, free_after, peak_cols, widest).

        A rooted SpMM product whose B only one eMA reads (as its passive input, not taken as it is) need not
        exist whole: the eMA is row-local, so B is made and consumed a block of rows at a time at that eMA,
        and only M_p (which then lives until the eMA) and a block of B are held.  ``deferred`` maps each such
        product to its eMA; ``free_after`` is the plan's with M_p freed after the eMA; ``peak_cols`` counts the
        whole tables alive at once in the plan's order, the streamed products left out; ``widest`` is the
        widest streamed B (its block's columns)."""
        if self._streamed is None:
            ops = self.plan.ops
            readers = {}
            for i, op in enumerate(ops):
                for j in op.inputs:
                    readers.setdefault(j, []).append(i)
            deferred = {}
            if self.plan.layout == "rooted":
                for i, op in enumerate(ops):
                    r = readers.get(i, [])
                    if (op.kind == "spmm" and len(r) == 1 and ops[r[0]].kind == "ema" and ops[r[0]].inputs[1] == i
                            and ops[r[0]].inputs[0] != i and not aliased(self.plan, r[0])):
                        deferred[i] = r[0]
            last = {}
            for t, op in enumerate(ops):
                if t in deferred:
                    continue
                for j in op.inputs:
                    for x in ((ops[j].inputs[0],) if j in deferred else (j,)):
                        last[x] = max(last.get(x, -1), t)
            for t in range(len(ops) - 1):  # tables nothing reads (tree_census's roots, read on the spot)
                if t not in deferred:
                    last.setdefault(t, t)
            free_after, pk = frees_and_peak(ops, last, deferred)
            widest = max((ops[i].cols for i in deferred), default=0)
            self._streamed = (deferred, free_after, pk, widest)
        return self._streamed

    def blocks(self) -> int:
        """Row blocks of the streamed products (:meth:`streamed`) of a coloring, 0 for none.  None are used
        while one coloring's whole tables (``peak_cols`` columns of n entries) fit the memory there is (the
        device's free memory on the gpu, seven eighths of the host's available memory on the cpu); past that
        the fewest blocks of which two B blocks fit beside the streamed plan's whole tables (at least 1,024 rows a
        block).  ``row_blocks`` forces a number."""
        deferred, _, speak, widest = self.streamed()
        n = max(1, self.G.n)
        if not deferred:
            return 0
        if self.row_blocks is not None:
            return max(1, min(int(self.row_blocks), n))
        item = self.itemsize
        room = self.ops.free_bytes()
        if room is None or self.plan.peak_cols * n * item <= room:
            return 0
        left = room - speak * n * item
        # a B block, and on a graph's first coloring the kernel choice's reference and candidate outputs of one
        rows = max(1024, left // max(1, 2 * widest * item))
        return max(1, -(-n // min(n, rows)))

    def fitting(self) -> int:
        """Colorings whose tables fit ``config.memory_budget`` together: the plan's widest point (``peak_cols``
        columns of n entries per coloring), at least 1 (exactly 1 where a coloring's products are streamed)."""
        if self.blocks():
            return 1
        per = max(1, self.plan.peak_cols) * max(1, self.G.n) * self.itemsize
        return int(max(1, config.memory_budget // per))

    def pass_size(self, batch=None) -> int:
        """Colorings per pass of a stop rule: ``batch`` when given (then :meth:`totals` splits it to fit), else
        as many as fit the budget, at most 2**21 / n (rows of the colour array)."""
        if batch is not None:
            return int(batch)
        return int(max(1, min(self.fitting(), (1 << 21) // max(1, self.G.n))))

    def totals(self, keys):
        """Per-coloring totals of ``keys`` (as :meth:`run`), evaluated in passes of at most :meth:`fitting`
        colorings, so a batch asked for by the caller (``batch=``, a distributed task's colorings) never
        needs more memory than the budget: each coloring's total is its own, whatever pass it is in."""
        step = self.fitting()
        if len(keys) <= step:
            return np.asarray(self.run(keys)[0], dtype=np.float64)
        return np.concatenate([np.asarray(self.run(keys[i:i + step])[0], dtype=np.float64)
                               for i in range(0, len(keys), step)])

    def run(self, keys, per_vertex=False, colors=None, profile=None, roots=None):
        """Per-coloring colorful embedding counts (float64, exponent applied) for colorings ``keys``
        (or for the one explicit coloring ``colors``).  ``profile``: a dict that receives seconds
        per step kind (the device is synchronised after each step).  ``roots``: op indices of
        several trees' root tables (a shared plan, see :mod:`la_gpm.color_coding.all_trees`); then
        the totals are a dict {root op: per-coloring counts}, read as soon as each root is built.
        On the GPU a failed device allocation anywhere in the pass raises DeviceOutOfMemory.  Where the
        products are streamed (:meth:`blocks`) the colorings run one at a time."""
        nb_ = self.blocks()
        if nb_ and colors is None and len(keys) > 1:
            parts = [self.run(keys[i:i + 1], per_vertex, None, profile, roots) for i in range(len(keys))]
            if roots is not None:
                return {r: np.concatenate([p[0][r] for p in parts]) for r in parts[0][0]}, None
            return (np.concatenate([p[0] for p in parts]),
                    np.concatenate([p[1] for p in parts]) if per_vertex else None)
        if not self.gpu:
            return self._run(keys, per_vertex, colors, profile, roots, nb_)
        from ..device import is_device_oom, oom_guard
        direct = self.direct_tables if self.direct_tables is not None else bool(nb_ or self._pool_ran_out)
        with oom_guard(f"color coding of a {self.P.k}-vertex tree on the GPU"):
            try:
                self.ops.tables_direct(direct)
                return self._run(keys, per_vertex, colors, profile, roots, nb_)
            except Exception as e:  # noqa: BLE001 -- anything but the pool running out is raised as it is
                if direct or not (isinstance(e, DeviceOutOfMemory) or is_device_oom(e)):
                    raise
            # CuPy's pool stranded memory near the device's capacity (GpuOps.tables_direct): the pass again, and
            # every later one, with the large tables in their own allocations
            self._pool_ran_out = True
            self.ops.tables_direct(True)
            return self._run(keys, per_vertex, colors, profile, roots, nb_)

    def _ema(self, i, op, vals, colors, nb_, profile, tick):
        """eMA op i into ``vals[i]``; where its B is a streamed product (:meth:`streamed`: ``nb_`` row blocks),
        B is made and consumed a row block at a time, with the same values row for row."""
        plan, o, k = self.plan, self.ops, self.plan.k
        a = vals[op.inputs[0]]
        sop = plan.ops[op.inputs[1]]
        streamed = sop.kind == "spmm" and op.inputs[1] not in vals
        b = vals[sop.inputs[0]] if streamed else vals[op.inputs[1]]   # streamed: M_p, the table B is made from
        b_mx = b.mx * self.maxdeg if streamed else b.mx
        ea, eb = _pow2_at_least(a.mx), _pow2_at_least(b_mx)
        key = (k - 1, op.size - 1, op.a - 1) if plan.layout == "rooted" else (k, op.size, op.a)
        sa, sp = split_tables(*key)
        if not streamed:
            arr, mx = o.ema(a.arr, b.arr, sa, sp, 2.0 ** -ea, 2.0 ** -eb, key)
        else:
            Q = rooted_gather_table(k, sop.size)
            rows = int(b.arr.shape[0])
            arr = o.empty(rows, int(sa.shape[0]))
            step = -(-rows // nb_)
            mx = 0.0
            for r0 in range(0, rows, step):
                r1 = min(rows, r0 + step)
                B = o.spmm_rooted(b.arr, Q, colors, sop.size, rows=(r0, r1))
                tick = self._tick(profile, "spmm", tick)
                mx = max(mx, o.ema(a.arr[r0:r1], B, sa, sp, 2.0 ** -ea, 2.0 ** -eb, key, out=arr[r0:r1])[1])
                del B
                tick = self._tick(profile, "ema", tick)
        vals[i] = _Val(arr, a.e + b.e + ea + eb, mx if mx > 0 else 1.0)
        return tick

    def _tick(self, profile, kind, tick):
        """Adds the seconds since ``tick`` to ``profile[kind]`` (the device synchronised); the new tick."""
        if profile is None:
            return tick
        self.ops.sync()
        now = time.perf_counter()
        profile[kind] = profile.get(kind, 0.0) + now - tick
        return now

    def _run(self, keys, per_vertex, colors, profile, roots, nb_=0):
        plan = self.plan
        o = self.ops
        deferred, free_after = ({}, plan.free_after) if not nb_ else self.streamed()[:2]
        tick = None
        if profile is not None:
            o.sync()
            tick = time.perf_counter()
        colors = o.colors(keys) if colors is None else o.put_colors(colors)
        rooted = plan.layout == "rooted"
        k = plan.k
        vals: dict[int, _Val] = {}
        root_totals: dict[int, np.ndarray] = {}
        leaf_cache = {}
        for i, op in enumerate(plan.ops):
            if op.kind == "leaf":
                if op.label not in leaf_cache:
                    leaf_cache[op.label] = o.leaf(colors, op.label if plan.labeled else None, rooted)
                vals[i] = _Val(leaf_cache[op.label], 0, 1.0)
            elif op.kind == "spmm" and i in deferred:
                continue  # made a row block at a time at its eMA (the table it reads is freed there)
            elif op.kind == "spmm":
                # (no local name keeps an input: a table goes when its last reader frees it)
                vals[i] = _Val(o.spmm_rooted(vals[op.inputs[0]].arr, rooted_gather_table(k, op.size), colors, op.size)
                               if rooted else o.spmm(vals[op.inputs[0]].arr),
                               vals[op.inputs[0]].e, vals[op.inputs[0]].mx * self.maxdeg)
            elif aliased(plan, i):
                # M_s = leaf (.) B over the one split (C_a = the root's own colour): with an unlabelled leaf of
                # ones that is B itself, so B's table is M_s's (no eMA pass: its n·(1 + 2·C) values not moved)
                vals[i] = vals[op.inputs[1]]
            else:
                tick = self._ema(i, op, vals, colors, nb_, profile, tick)
            if roots is not None and i in roots:
                root_totals[i] = o.block_sums(vals[i].arr, len(keys)) * 2.0 ** vals[i].e
            for j in free_after.get(i, ()):
                if plan.ops[j].kind != "leaf":
                    del vals[j]
            tick = self._tick(profile, op.kind, tick)
        if roots is not None:
            return root_totals, None
        root = vals[len(plan.ops) - 1]
        scale = 2.0 ** root.e
        totals = o.block_sums(root.arr, len(keys)) * scale
        pv = o.rows(root.arr) * scale if per_vertex else None
        return totals, pv


# ============================================================================ input checks
def _check_tree(P, G):
    if not P.is_tree:
        raise InvalidPattern(f"color coding counts trees; {P!r} is not a tree "
                             f"(k={P.k}, {P.num_edges} edges, connected={P.is_connected})")
    if P.k > MAX_TREE_VERTICES:
        raise PatternTooLarge(f"color-coding tree counting supports trees of at most {MAX_TREE_VERTICES} "
                              f"vertices; got k={P.k}")
    if P.edge_labels is not None:
        raise InvalidPattern("color coding does not support edge-labeled templates; drop the edge labels")
    if P.vertex_labels is not None and G.vertex_labels is None:
        raise LabelMismatch(f"the template is vertex-labeled ({P.vertex_labels}) but the graph has no vertex "
                            "labels; pass a labeled graph or an unlabeled template")
    G.require_undirected("color-coding tree counting")


def check_dtype(dtype):
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise InvalidArgument(f"dtype must be 'float32' or 'float64'; got {dtype!r}")
    return dt


def make_ops(G, backend, dtype, spmm, P, plan):
    if spmm not in SPMM_METHODS[backend]:
        raise InvalidArgument(f"spmm must be one of {SPMM_METHODS[backend]} on backend {backend!r}; got {spmm!r}")
    labels = None
    if plan.labeled:
        labels = {lab: (G.vertex_labels == lab) for lab in set(P.vertex_labels)}
    if backend == "gpu":
        from ..device import oom_guard
        from .gpu import GpuOps
        with oom_guard("color coding on the GPU (the graph's device copies)"):
            return GpuOps(G, plan.k, dtype, spmm, labels)
    return CpuOps(G, plan.k, dtype, "graphblas" if backend == "graphblas" else spmm, labels)


# ============================================================================ public API
def resolve_seed(seed):
    if seed is None:
        return int(np.random.SeedSequence().entropy % (1 << 63))
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise InvalidArgument(f"seed must be a non-negative integer or None; got {seed!r}")
    if seed < 0:
        raise InvalidArgument(f"seed must be a non-negative integer or None; got {seed}")
    return int(seed) & ((1 << 64) - 1)


def prepare(G, template, backend, dtype, spmm, root=None, layout="auto"):
    G = as_graph(G)
    P = as_pattern(template)
    _check_tree(P, G)
    if root is not None and not (isinstance(root, (int, np.integer)) and 0 <= root < P.k):
        raise InvalidArgument(f"root must be a template vertex in 0..{P.k - 1}; got {root!r}")
    b = resolve_backend(backend, what="color-coding tree counting")
    dt = check_dtype(dtype)
    if layout not in LAYOUTS:
        raise InvalidArgument(f"layout must be one of {LAYOUTS}; got {layout!r}")
    if layout == "auto":
        layout = "dense" if spmm in ("scipy", "graphblas", "cusparse") or b == "graphblas" else "rooted"
    elif layout == "rooted" and (spmm in ("scipy", "graphblas", "cusparse") or b == "graphblas"):
        raise InvalidArgument(f"spmm={spmm!r} (a library SpMM) needs layout='dense'; rooted tables use the "
                              "custom gather")
    if layout == "dense" and spmm in ("gather", "tiled"):
        raise InvalidArgument(f"spmm={spmm!r} is a rooted-table SpMM; use layout='rooted' (or 'auto'), or "
                              "spmm='custom' / 'cusparse' with layout='dense'")
    plan = plan_tree(P, max(G.n, 1), max(G.nnz, 1), root, layout)
    ops = make_ops(G, b, dt, spmm, P, plan)
    return G, P, b, dt, plan, Runner(G, P, plan, ops, gpu=(b == "gpu"), itemsize=dt.itemsize)


def colorful_count(G, template, colors=None, *, seed=None, coloring: int = 0, per_vertex: bool = False,
                   root: int | None = None, backend: str | None = None, dtype="float64", spmm: str = "auto",
                   layout: str = "auto"):
    """Colorful non-induced copies of a tree under one coloring (exact up to float rounding).

    Parameters
    ----------
    G : graph (anything :func:`la_gpm.as_graph` accepts), undirected
    template : a tree (Pattern, name such as ``"u7"``, ``.fascia`` file)
    colors : int array of length n with values in ``0..k-1``; or None to use the seeded hash
        coloring number ``coloring`` of ``seed`` (the colorings :func:`estimate` draws)
    per_vertex : also return, per vertex v, the colorful copies in which v plays the template vertex
        ``root`` (or a vertex of its orbit): ``M_root[v] · |orbit(root)| / |Aut|``
    dtype : "float64" (default here: exact for counts below 2**53) or "float32"
    spmm, layout : as in :func:`estimate`

    Returns
    -------
    float (copies = colorful embeddings / |Aut(T)|), or ``(float, ndarray)`` with ``per_vertex``.

    Examples
    --------
    >>> import la_gpm, numpy as np
    >>> G = la_gpm.datasets.load("karate")
    >>> la_gpm.colorful_count(G, "3-path", np.arange(34) % 3, backend="cpu")
    129.0
    """
    if per_vertex and root is None:
        root = 0
    G, P, b, dt, plan, runner = prepare(G, template, backend, dtype, spmm, root, layout)
    k = P.k
    if colors is None:
        s = resolve_seed(seed)
        from .cpu_kernels import coloring_keys
        keys = coloring_keys(s, int(coloring), 1)
        totals, pv = runner.run(keys, per_vertex)
    else:
        col = np.asarray(colors)
        if col.shape != (G.n,) or not np.issubdtype(col.dtype, np.integer):
            raise InvalidArgument(f"colors must be an integer array of shape ({G.n},); got {col.dtype} {col.shape}")
        if G.n and (col.min() < 0 or col.max() >= k):
            raise InvalidArgument(f"colors must lie in 0..{k - 1} (k = template size); got range "
                                  f"{col.min()}..{col.max()}")
        totals, pv = runner.run(np.zeros(1, dtype=np.uint64), per_vertex, colors=col.astype(np.int8))
    alpha = tree_automorphisms(P)
    total = float(totals[0]) / alpha
    if not per_vertex:
        return total
    orbit = sum(1 for v in range(k) if rooted_shape(P, v) == rooted_shape(P, plan.root))
    return total, pv * orbit / alpha


@dataclass
class Estimate:
    """A color-coding estimate of the number of non-induced copies of a tree, with its interval."""
    value: float
    stderr: float
    ci_low: float
    ci_high: float
    n_colorings: int
    seed: int
    values: np.ndarray = field(repr=False)
    stop: str = "adaptive"
    bound: str = ""
    eps: float = 0.05
    delta: float = 0.01
    converged: bool = False
    template: str = ""
    k: int = 0
    automorphisms: int = 1
    colorful_probability: float = 1.0
    backend: str = "cpu"
    dtype: str = "float32"
    elapsed_s: float = 0.0
    method: str = "color coding: SpMM + fused eMA (SubGraph2Vec)"
    decision: dict = field(default_factory=dict)   # exact="auto": what was chosen, why, both predicted costs

    @property
    def relative_halfwidth(self) -> float:
        if self.value == 0:
            return 0.0 if self.ci_high == 0 else math.inf
        return max(self.ci_high - self.value, self.value - self.ci_low) / abs(self.value)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["values"] = [float(x) for x in np.asarray(self.values)]
        for key in ("value", "stderr", "ci_low", "ci_high"):
            v = d[key]
            d[key] = None if not math.isfinite(v) else float(v)
        d["relative_halfwidth"] = None if not math.isfinite(self.relative_halfwidth) else self.relative_halfwidth
        return d

    def __str__(self) -> str:
        if self.stop == "exact":
            return (f"{self.template or 'tree'} (k={self.k}): {self.value} (exact: {self.bound}; "
                    f"{self.elapsed_s:.3g} s; estimate(..., exact=False) colors)")
        hi = "inf" if not math.isfinite(self.ci_high) else f"{self.ci_high:.6g}"
        conf = 100 * (1 - self.delta)
        status = "reached" if self.converged else "NOT reached (budget hit)"
        return (f"{self.template or 'tree'} (k={self.k}): {self.value:.6g} ± {self.stderr:.3g} (s.e.)\n"
                f"  {conf:g}% interval [{self.ci_low:.6g}, {hi}]  ({self.stop}: {self.bound})\n"
                f"  relative error target {self.eps:g}: {status}; {self.n_colorings} colorings, seed {self.seed}, "
                f"{self.backend}/{self.dtype}, {self.elapsed_s:.3g} s")


def eb_interval(x: np.ndarray, delta: float, p: float):
    """Empirical-Bernstein interval for the mean C of i.i.d. X in [0, C/p] (Audibert et al. 2009,
    with the range bounded by the unknown mean itself and solved for C)."""
    t = x.shape[0]
    if t == 0:
        return 0.0, math.inf
    L = math.log(3.0 / delta)
    mean = float(x.mean())
    var = float(x.var())
    w = math.sqrt(2.0 * var * L / t)
    r = 3.0 * L / (p * t)
    lo = max(0.0, (mean - w) / (1.0 + r))
    hi = (mean + w) / (1.0 - r) if r < 1.0 else math.inf
    return lo, hi


ACS_TARGET = 500    # colorings at which the acs boundary is tightest (rho below); it is valid at every t


def acs_halfwidth(x: np.ndarray, delta: float, target: int = ACS_TARGET) -> float:
    """Half-width of the two-sided asymptotic confidence sequence for the mean at level 1 − δ after t = len(x)
    values (Waudby-Smith, Arbour, Sinha, Kennedy, Ramdas, "Time-uniform central limit theory and asymptotic
    confidence sequences", 2021/2024, Thm 2.2: Robbins' normal mixture with the sample standard deviation):
    σ̂ · sqrt(2 (t ρ² + 1) / (t² ρ²) · ln(sqrt(t ρ² + 1) / δ)), ρ tuned to be tightest at ``target`` values.
    Unlike a fixed-t normal interval checked after every pass (``stop="clt"``), it holds uniformly over t, so
    stopping when it is narrow enough keeps its coverage (asymptotically; no bound on the range is needed)."""
    t = x.shape[0]
    if t < 2:
        return math.inf
    a = -2.0 * math.log(delta)
    rho2 = (a + math.log(a + 1.0)) / target
    sd = float(x.std(ddof=1))
    return sd * math.sqrt(2.0 * (t * rho2 + 1.0) / (t * t * rho2) * math.log(math.sqrt(t * rho2 + 1.0) / delta))


ACS_MIN_NONZERO = 30   # stop="acs" stops on its half-width only once this many colorings saw a copy


def acs_zero_colorings(p: float, delta: float) -> int:
    """Colorings after which a sample of zeros alone (no colorful copy seen) shows the count is 0 at level
    1 − δ: a copy is colorful with probability p in every coloring, so with a count >= 1 all of t colorings
    miss every copy with probability <= (1 − p)^t <= e^{−pt} <= δ once t >= ln(1/δ)/p."""
    return int(math.ceil(math.log(1.0 / delta) / p))


def acs_interval(x: np.ndarray, delta: float, p: float) -> tuple[float, float, bool]:
    """(low, high, settled) of the guarded ``stop="acs"`` after the values x: the asymptotic confidence
    sequence (:func:`acs_halfwidth`) around the mean, where the normal approximation has data to stand on.
    Two guards keep it honest when copies are rare (each coloring's value is then 0 or a large multiple of
    1/p, and a few colorings can show no copy at all): an all-zero sample gives [0, ∞) until
    :func:`acs_zero_colorings` colorings, then [0, 0] (the count is 0 at level 1 − δ); a sample with fewer
    than ``ACS_MIN_NONZERO`` non-zero values is never ``settled`` (the stop rule goes on coloring).  Measured
    (benchmarks/results/coloring_coverage_acs_guarded_cpu.json): without the zero guard, a path of 7
    vertices (two 6-paths) at ε = δ = 0.1 stopped at 0 in 12 of 40 runs (coverage 0.7)."""
    t = x.shape[0]
    if t < 2:
        return 0.0, math.inf, False
    m = float(x.mean())
    if m == 0.0:
        if t >= acs_zero_colorings(p, delta):
            return 0.0, 0.0, True
        return 0.0, math.inf, False
    half = acs_halfwidth(x, delta)
    return max(0.0, m - half), m + half, bool(np.count_nonzero(x) >= ACS_MIN_NONZERO)


def classical_colorings(k: int, eps: float, delta: float) -> tuple[int, int]:
    """(groups g, colorings per group t) of the classical median-of-means bound:
    t = ⌈4/(p ε²)⌉ (Chebyshev: a group mean fails w.p. ≤ 1/4), g = ⌈8 ln(1/δ)⌉ (Hoeffding on the median)."""
    p = math.factorial(k) / k ** k
    return max(1, math.ceil(8.0 * math.log(1.0 / delta))), math.ceil(4.0 / (p * eps * eps))


def _exact_estimate(P, n, bound, method, eps, delta, dt, t0, decision):
    """The exact count ``n`` of the tree P as an Estimate: ``stop="exact"``, a zero-width interval, no colorings."""
    return Estimate(value=n, stderr=0.0, ci_low=n, ci_high=n, n_colorings=0, seed=0,
                    values=np.zeros(0, dtype=np.float64), stop="exact", bound=bound,
                    eps=float(eps), delta=float(delta), converged=True, template=str(P.name or ""), k=P.k,
                    automorphisms=tree_automorphisms(P), colorful_probability=math.factorial(P.k) / P.k ** P.k,
                    backend="cpu", dtype=dt.name, elapsed_s=time.perf_counter() - t0, method=method,
                    decision=decision)


def _exact_by_closed_form(G, P, backend, dt, eps, delta, t0):
    """The exact count of the tree P as an Estimate (``stop="exact"``), where P has a closed form that stays
    exact on G (:mod:`la_gpm.motifs.single`), else None."""
    if P.labeled:
        return None
    from ..motifs.single import closed_form_guard, closed_form_of
    found = closed_form_of(P)
    if found is None or closed_form_guard(P, G) is not None:
        return None
    fn, formula = found
    n = int(fn(G))
    return _exact_estimate(P, n, f"exact count by closed form: {formula}",
                           "exact: the closed form of the engine table (exact='auto'; exact=False colors)", eps, delta,
                           dt, t0, {"exact": "auto", "chosen": "exact", "engine": "closed_form",
                                    "reason": "a closed form (one or two passes over the graph) exists for this tree"})


PILOT_PASS = 64          # exact="auto" decides once a pilot pass has this many colorings (or the pass cap) ...
PILOT_SHARE = 0.25       # ... or once the pilot took this share of safety x the predicted exact seconds
ARC_FLOOR_S = 1e-9       # a floor on a cpu coloring's seconds: per arc, tree edge and thread (measured rates are
                         # 7-50x above it: 2 threads, karate to p2p-Gnutella08, k = 6-8); below it no pilot runs


def colorings_needed(stop, mean, var, k, eps, delta, pass_size, cap=1 << 40) -> int:
    """The colorings after which the stop rule ``stop`` stops for a k-vertex tree when the sample mean and
    variance of the per-coloring estimates stay at ``mean`` and ``var``: the estimate loop replayed, with its
    pass sizes (the total grows by half per pass, passes of at most ``pass_size``) and its checks; at most
    ``cap``.

    >>> colorings_needed("clt", 100.0, 100.0 ** 2, 7, 0.05, 0.01, 10 ** 6) >= (2.5758 / 0.05) ** 2
    True
    """
    if stop == "classical":
        g, t = classical_colorings(k, eps, delta)
        return min(cap, g * t)
    p = math.factorial(k) / k ** k
    mean = max(float(mean), 0.0)
    var = max(float(var), 0.0)
    B = max(1, int(pass_size))

    if stop == "adaptive":
        def ok(t, j):
            dj = delta / (j * (j + 1))
            L = math.log(3.0 / dj)
            w = math.sqrt(2.0 * var * L / t)
            r = 3.0 * L / (p * t)
            lo = max(0.0, (mean - w) / (1.0 + r))
            hi = (mean + w) / (1.0 - r) if r < 1.0 else math.inf
            return hi == 0.0 or (math.isfinite(hi) and max(hi - mean, mean - lo) <= eps * lo)
    else:
        z = NormalDist().inv_cdf(1.0 - delta / 2.0)
        sd = math.sqrt(var)
        a = -2.0 * math.log(delta)
        rho2 = (a + math.log(a + 1.0)) / ACS_TARGET

        def ok(t, j):
            if t < 30:
                return False
            if stop == "acs":
                half = sd * math.sqrt(2.0 * (t * rho2 + 1.0) / (t * t * rho2) * math.log(math.sqrt(t * rho2 + 1.0)
                                                                                        / delta))
            else:
                half = z * sd / math.sqrt(t)
            return half <= eps * mean or (mean == 0 and half == 0)

    done, cur, j, next_check = 0, 1, 0, 2
    while done < cap:
        nb = min(cur, B, cap - done)
        if nb == B and stop != "adaptive":
            # steady passes of B, a check after each: the first passing total, by doubling then bisection
            # (the half-widths shrink as t grows)
            lo_q, hi_q = 0, 1
            while done + hi_q * B < cap and not ok(done + hi_q * B, 0):
                lo_q, hi_q = hi_q, hi_q * 2
            while hi_q - lo_q > 1:
                mid = (lo_q + hi_q) // 2
                lo_q, hi_q = (lo_q, mid) if ok(done + mid * B, 0) else (mid, hi_q)
            return int(min(cap, done + hi_q * B))
        if nb == B and done + B < next_check:   # steady passes: jump to the pass that reaches the next check
            nb = B * max(1, -(-(next_check - done) // B))
            nb = min(nb, cap - done)
        done += nb
        cur = max(1, done // 2)
        if stop == "adaptive":
            if done >= next_check:
                j += 1
                if ok(done, j):
                    return done
                next_check = max(done + 1, math.ceil(done * 1.25))
        elif ok(done, 0):
            return done
    return int(cap)


def exact_plan(G, P):
    """The plan the exact engine (``la_gpm.count`` on the cpu: the depth-first plan engine) runs for the tree P,
    or None where it does not count P (too large)."""
    from ..exact.plans import MAX_COUNT_VERTICES, MAX_LABELED_VERTICES, plan_for
    if P.k > (MAX_LABELED_VERTICES if P.vertex_labels is not None else MAX_COUNT_VERTICES) or P.k < 2:
        return None
    return plan_for(G, P)


class AutoExact:
    """``exact="auto"`` for a tree without a closed form: the exact engine's plan and its predicted seconds
    (:func:`la_gpm.color_coding.cost.exact_nodes` × ``config.exact_node_seconds``), then the pilot passes of
    the colorings (kept: they are the estimate's first colorings) until :meth:`after_pass` decides."""

    def __init__(self, G, P, plan, stop, eps, delta):
        from .cost import exact_nodes
        self.G, self.P, self.plan, self.stop, self.eps, self.delta = G, P, plan, stop, eps, delta
        self.safety = float(config.auto_safety)
        self.node_s = float(config.exact_node_seconds)
        self.nodes = exact_nodes(G, P, plan)[0]
        self.exact_s = self.nodes * self.node_s
        self.passes = []     # (colorings, seconds) per pass
        self.evaluations = 0

    def before_pilot(self, backend, nb_max):
        """The decision before any coloring (cpu backends), else None: exact when safety × the predicted exact
        seconds is below a floor of the colorings' seconds: the colorings the rule needs with a positive mean and
        sample variance 0 times ARC_FLOOR_S per arc, tree edge and thread.  (Where the tree has no copies at all
        the adaptive rule stops sooner, after about 3 ln(3/δ_j)/p colorings, 2,311 for k = 6 against 61,447: the
        exact count chosen here then costs at most 27x that floor, while measured rates are 7-50x it.)"""
        if backend == "gpu":
            return None
        import numba
        floor = ARC_FLOOR_S * self.G.nnz * (self.P.k - 1) / max(1, numba.get_num_threads())
        need = colorings_needed(self.stop, 1.0, 0.0, self.P.k, self.eps, self.delta, nb_max)
        est_s = need * floor
        if not self.safety * self.exact_s < est_s:
            return None
        return {"exact": "auto", "chosen": "exact", "engine": "plan_dfs", "exact_predicted_s": self.exact_s,
                "exact_predicted_nodes": self.nodes, "estimate_predicted_s": est_s, "colorings_predicted": int(need),
                "per_coloring_s": floor, "pilot_colorings": 0, "pilot_s": 0.0, "safety": self.safety,
                "exact_node_seconds": self.node_s,
                "reason": (f"{self.safety:g} x predicted exact {self.exact_s:.3g} s < a floor of the colorings' "
                           f"{est_s:.3g} s (at least {need} colorings at {floor:.3g} s), before any coloring")}

    def per_coloring_seconds(self) -> float:
        """The least seconds per coloring over the last three passes after the first (the first carries the
        warm-up; other work on the machine only ever adds time)."""
        use = self.passes[1:] if len(self.passes) > 1 else self.passes
        return float(min(sec / max(nb, 1) for nb, sec in use[-3:]))

    def after_pass(self, nb, seconds, vals, done, nb_max):
        """Record a pass; None while the pilot goes on, else (count exactly?, the decision record). The pilot
        ends once a pass reaches PILOT_PASS colorings (or the pass cap) or the colorings' seconds reach
        PILOT_SHARE × safety × the predicted exact seconds; from then on every pass decides again (the colorings
        so far are spent either way), so a per-coloring rate that grows with the passes (tables leaving the
        caches) still turns the decision to the exact count while that pays."""
        self.passes.append((nb, seconds))
        spent = sum(x for _, x in self.passes)
        if not self.evaluations and nb < min(PILOT_PASS, nb_max) and spent < PILOT_SHARE * self.safety * self.exact_s:
            return None
        self.evaluations += 1
        c = self.per_coloring_seconds()
        mean = float(vals.mean())
        var = float(vals.var(ddof=1)) if vals.shape[0] > 1 else 0.0
        need = colorings_needed(self.stop, mean, var, self.P.k, self.eps, self.delta, nb_max)
        left = max(need - done, min(max(1, done // 2), nb_max))   # the rule has not stopped: one more pass at least
        est_s = left * c
        S = self.safety
        to_exact = S * self.exact_s < est_s
        rec = {"exact": "auto", "chosen": "exact" if to_exact else "colorings", "engine": "plan_dfs",
               "exact_predicted_s": self.exact_s, "exact_predicted_nodes": self.nodes,
               "estimate_predicted_s": est_s, "colorings_predicted": int(need), "per_coloring_s": c,
               "pilot_colorings": int(done), "pilot_s": spent, "safety": S, "exact_node_seconds": self.node_s,
               "evaluations": self.evaluations,
               "reason": (f"{S:g} x predicted exact {self.exact_s:.3g} s {'<' if to_exact else '>='} predicted "
                          f"colorings {est_s:.3g} s ({left} more at {c:.3g} s)")}
        return to_exact, rec


def _exact_by_enumeration(G, P, plan, eps, delta, dt, t0, rec):
    """The exact count by the cpu plan engine as an Estimate, or None where the count overflows int64."""
    from ..exact.cpu import run_plan
    t1 = time.perf_counter()
    try:
        n, st = run_plan(G, plan)
    except OverflowError:
        rec["reason"] += "; the exact count overflowed int64, colored instead"
        rec["chosen"] = "colorings"
        return None
    rec["exact_actual_s"] = time.perf_counter() - t1
    rec["exact_actual_nodes"] = int(st.get("tree_nodes", 0))
    return _exact_estimate(P, int(n), f"exact count by the depth-first plan engine (plan_dfs: {rec['reason']})",
                           "exact: the plan engine of la_gpm.count (exact='auto' predicted it cheaper than the "
                           "colorings; exact=False colors)", eps, delta, dt, t0, rec)


def check_run_args(eps, delta, max_colorings, time_budget, batch):
    """Validate the accuracy and budget arguments shared by :func:`estimate` and ``tree_census``."""
    for nm, v in (("eps", eps), ("delta", delta)):
        if not isinstance(v, (int, float, np.floating)) or not 0.0 < float(v) < 1.0:
            raise InvalidArgument(f"{nm} must be a number in (0, 1); got {v!r}")
    if max_colorings is not None and (not isinstance(max_colorings, (int, np.integer)) or max_colorings < 1):
        raise InvalidArgument(f"max_colorings must be a positive integer or None; got {max_colorings!r}")
    if time_budget is not None and (not isinstance(time_budget, (int, float)) or not time_budget > 0):
        raise InvalidArgument(f"time_budget must be a positive number of seconds or None; got {time_budget!r}")
    if batch is not None and (not isinstance(batch, (int, np.integer)) or batch < 1):
        raise InvalidArgument(f"batch must be a positive integer or None; got {batch!r}")


def estimate(G, template, eps: float = 0.05, delta: float = 0.01, seed=None, max_colorings: int | None = None,
             time_budget: float | None = None, backend: str | None = None, stop: str = DEFAULT_STOP,
             progress: bool = False, dtype="float32", spmm: str = "auto", batch: int | None = None,
             layout: str = "auto", exact="auto", _colorings=None) -> Estimate:
    """Estimate the number of non-induced copies of a tree template (k <= 20) by color coding.

    Parameters
    ----------
    G : undirected graph;  template : a tree (Pattern, name such as ``"u12"``, ``.fascia`` path)
    eps, delta : target: |estimate − count| <= eps·count with probability >= 1 − delta
    seed : reproducible colorings (the same on every backend); None draws one (reported back)
    max_colorings, time_budget : stop earlier (then ``converged`` is False and the interval is the
        one reached, still valid at level 1 − delta)
    stop : "acs" (default: an asymptotic confidence sequence, valid at any stopping time as the colorings
        grow, no range bound, guarded where copies are rare -- it stops only once 30 colorings saw a copy, or
        after ln(1/δ)/p colorings that saw none; coverage >= 1 - δ on every measured case with 37-280x fewer
        colorings than "adaptive", benchmarks/results/coloring_coverage_acs_guarded_cpu.json), "adaptive"
        (an anytime empirical-Bernstein interval: rigorous for any number of colorings, the choice when a
        finite-sample guarantee matters; it stops when its relative half-width <= eps), "classical" (median
        of ⌈8 ln 1/δ⌉ means of ⌈4 k^k/(k! ε²)⌉ colorings, rigorous) or "clt" (a fixed-t normal interval
        checked after every pass: cheapest, its coverage falls below 1 − δ under that optional stopping)
    dtype : "float32" (default, rescaled so nothing overflows) or "float64"
    spmm : the SpMM implementation ("auto"; cpu: "numba" | "scipy"; gpu: "custom" | "cusparse", and for
        rooted tables "gather" | "tiled" to force one kernel; "auto" times the GPU candidates once per
        graph and product size, see docs/color_coding.md)
    batch : colorings evaluated together (default: as many as fit ``config.memory_budget``).  Where one
        coloring's tables do not fit the memory there is (the GPU's free memory, the host's available memory),
        its SpMM products that one eMA reads are made a row block at a time (same values; docs/color_coding.md)
    layout : "rooted" (tables keep only the colour sets containing the row's colour: h/k of the
        memory and SpMM bytes, a/k of the eMA work; the default), "dense" (the paper's full
        tables; needed by the library SpMMs "scipy", "graphblas", "cusparse") or "auto"
    exact : ``"auto"`` (default) or False. ``"auto"`` may return the exact count (an Estimate with a zero-width
        interval, ``stop="exact"``, no colorings) when the call leaves the colorings to the method (no ``seed``,
        ``max_colorings``, ``time_budget`` or ``batch``, the default ``stop``): at once for an unlabeled tree with a
        closed form (every tree of up to 5 vertices: stars, paths, the fork; :mod:`la_gpm.motifs.single`), else,
        for a tree of up to 12 vertices, when ``config.auto_safety`` × the predicted seconds of the exact
        enumeration (:mod:`la_gpm.color_coding.cost`) is below the predicted seconds of the colorings still to
        run (the pilot's rate × the colorings the stop rule needs, :func:`colorings_needed`; decided again
        after every pass). ``Estimate.decision`` records the choice and both predictions (docs/color_coding.md).
        False always colors.
    _colorings : internal (:func:`la_gpm.distributed.estimate`): ``f(seed, first, count)`` returning the
        colorful totals of colorings ``first .. first+count-1``, evaluated elsewhere; the tables are
        then only planned here (on the cpu backend), never built

    Examples
    --------
    >>> import la_gpm
    >>> est = la_gpm.estimate(la_gpm.datasets.load("karate"), "3-path", eps=0.1, seed=1, backend="cpu")
    >>> bool(est.ci_low <= 528 <= est.ci_high), est.converged  # 528 paths of 3 vertices
    (True, True)
    """
    if stop not in STOP_RULES:
        raise InvalidArgument(f"stop must be one of {STOP_RULES}; got {stop!r}")
    check_run_args(eps, delta, max_colorings, time_budget, batch)
    t0 = time.perf_counter()
    s = resolve_seed(seed)
    if _colorings is None:
        G, P, b, dt, plan, runner = prepare(G, template, backend, dtype, spmm, layout=layout)
    else:  # the workers build the tables; here only the plan (k, |Aut|) and the stop rule run
        G, P, b, dt, plan, runner = prepare(G, template, "cpu", dtype, "auto", layout=layout)
    if exact not in ("auto", False):
        raise InvalidArgument(f"exact must be 'auto' or False; got {exact!r} (la_gpm.count gives the exact count "
                              "of any tree)")
    auto = None
    why = "exact=False"
    if exact == "auto" and _colorings is None and seed is None and max_colorings is None and time_budget is None \
            and batch is None and stop == DEFAULT_STOP:
        found = _exact_by_closed_form(G, P, b, dt, eps, delta, t0)
        if found is not None:
            return found
        plan_ex = exact_plan(G, P)   # the exact engine's plan: the pilot colorings decide against it
        if plan_ex is not None:
            auto = AutoExact(G, P, plan_ex, stop, float(eps), float(delta))
        why = ("the stop rule was reached within the pilot colorings" if auto is not None else
               "the tree is larger than the exact engine counts")
    elif exact == "auto":
        why = "the call fixes the colorings (seed, max_colorings, time_budget, batch, a stop rule or distributed)"
    decision = {"exact": exact, "chosen": "colorings", "reason": why}
    if auto is not None:
        decision.update(exact_predicted_s=auto.exact_s, exact_predicted_nodes=auto.nodes)
        early = auto.before_pilot(b, runner.pass_size())
        if early is not None:
            found = _exact_by_enumeration(G, P, auto.plan, eps, delta, dt, t0, early)
            if found is not None:
                return found
            decision, auto = early, None
    k = P.k
    alpha = tree_automorphisms(P)
    p = math.factorial(k) / k ** k
    eps, delta = float(eps), float(delta)
    g_cl, t_cl = classical_colorings(k, eps, delta)
    hard_cap = g_cl * t_cl if stop == "classical" else None
    cap = min(x for x in (max_colorings, hard_cap, 1 << 62) if x is not None)
    if stop == "adaptive" and max_colorings is None and time_budget is None:
        need = 3.0 * math.log(3.0 / delta) / (p * eps)
        if need > 1e6:
            warnings.warn(f"a rigorous (eps={eps}, delta={delta}) interval for k={k} needs more than {need:.3g} "
                          "colorings; pass time_budget= or max_colorings=, or stop='clt' for an asymptotic "
                          "interval", stacklevel=2)
    # batch size: colorings per pass, within the memory budget and growing geometrically
    nb_max = runner.pass_size(batch)
    from .cpu_kernels import coloring_keys

    vals = np.empty(0, dtype=np.float64)
    scale = 1.0 / (alpha * p)
    done = 0
    check_j = 0
    next_check = 2
    converged = False
    lo, hi = 0.0, math.inf
    bar = None
    if progress or config.progress:
        try:
            from tqdm.auto import tqdm
            bar = tqdm(total=None if cap >= 1 << 62 else cap, unit="coloring", desc=f"color coding k={k}")
        except ImportError:  # pragma: no cover
            bar = None
    z = NormalDist().inv_cdf(1.0 - delta / 2.0)
    cur = 1 if batch is None else batch
    try:
        while done < cap:
            nb_ = int(min(cur, nb_max, cap - done))
            tp = time.perf_counter()
            if _colorings is None:
                totals = runner.totals(coloring_keys(s, done, nb_))
            else:
                totals = np.asarray(_colorings(s, done, nb_), dtype=np.float64)
            seconds = time.perf_counter() - tp
            vals = np.concatenate([vals, totals * scale])
            done += nb_
            cur = max(1, done // 2)  # the total grows by half per pass: checks stay near the 1.25x checkpoints
            if bar is not None:
                bar.update(nb_)
            if stop == "adaptive" and done >= next_check:
                check_j += 1
                dj = delta / (check_j * (check_j + 1))
                lo, hi = eb_interval(vals, dj, p)
                m = float(vals.mean())
                if hi == 0.0 or (math.isfinite(hi) and max(hi - m, m - lo) <= eps * lo):
                    converged = True
                    break
                next_check = max(done + 1, math.ceil(done * 1.25))
            elif stop == "acs" and done >= 30:
                lo, hi, settled = acs_interval(vals, delta, p)
                m = float(vals.mean())
                if settled and (hi == 0.0 or max(hi - m, m - lo) <= eps * m):
                    converged = True
                    break
            elif stop == "clt" and done >= 30:
                m = float(vals.mean())
                half = z * float(vals.std(ddof=1)) / math.sqrt(done)
                if half <= eps * m or (m == 0 and half == 0):
                    converged = True
                    break
            if time_budget is not None and time.perf_counter() - t0 >= time_budget:
                break
            if auto is not None:   # decided again after every pass past the pilot: the rates get better
                got = auto.after_pass(nb_, seconds, vals, done, nb_max)
                if got is not None:
                    decision = got[1]
                    if got[0]:
                        found = _exact_by_enumeration(G, P, auto.plan, eps, delta, dt, t0, decision)
                        if found is not None:
                            return found
                        auto = None
    finally:
        if bar is not None:
            bar.close()
    n = vals.shape[0]
    mean = float(vals.mean())
    se = float(vals.std(ddof=1) / math.sqrt(n)) if n > 1 else math.inf
    if stop == "adaptive":
        value = mean
        if not converged:
            lo, hi = eb_interval(vals, delta / ((check_j + 1) * (check_j + 2)), p)
        bound = "anytime empirical Bernstein (range <= count/p), rigorous"
    elif stop == "acs":
        value = mean
        lo, hi, _ = acs_interval(vals, delta, p)
        bound = ("asymptotic confidence sequence (Robbins normal mixture; valid at any stopping time, asymptotically; "
                 f"stops once >= {ACS_MIN_NONZERO} colorings saw a copy, or after {acs_zero_colorings(p, delta)} "
                 "that saw none)")
    elif stop == "clt":
        value = mean
        half = z * (float(vals.std(ddof=1)) if n > 1 else math.inf) / math.sqrt(n)
        lo, hi = max(0.0, mean - half), mean + half
        bound = "normal approximation (asymptotic only)"
    else:
        if n >= g_cl * t_cl:
            groups = vals[:g_cl * t_cl].reshape(g_cl, t_cl).mean(axis=1)
            value = float(np.median(groups))
            lo, hi = value / (1.0 + eps), value / (1.0 - eps)
            converged = True
            bound = f"median of {g_cl} means of {t_cl} colorings (Chebyshev + Hoeffding), rigorous"
        else:
            value = mean
            lo, hi = eb_interval(vals, delta, p)
            bound = (f"classical needs {g_cl}x{t_cl} colorings; budget hit, fixed-size empirical Bernstein "
                     "interval reported")
    return Estimate(value=value, stderr=se, ci_low=lo, ci_high=hi, n_colorings=n, seed=s, values=vals, stop=stop,
                    bound=bound, eps=eps, delta=delta, converged=converged, template=str(P.name or ""), k=k,
                    automorphisms=alpha, colorful_probability=p, backend=b, dtype=dt.name,
                    elapsed_s=time.perf_counter() - t0, decision=decision)
