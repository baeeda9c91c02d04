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
from ..exceptions import InvalidArgument, InvalidPattern, LabelMismatch, PatternTooLarge
from ..patterns.catalog import as_pattern
from .cpu import CpuOps
from .trees import LAYOUTS, TreePlan, plan_tree, rooted_gather_table, rooted_shape, split_tables, tree_automorphisms

__all__ = ["Estimate", "estimate", "colorful_count", "Runner", "prepare", "make_ops", "resolve_seed", "check_dtype",
           "check_run_args", "eb_interval", "acs_halfwidth", "classical_colorings", "MAX_TREE_VERTICES", "STOP_RULES", "SPMM_METHODS"]

MAX_TREE_VERTICES = 20
STOP_RULES = ("adaptive", "classical", "clt", "acs")
SPMM_METHODS = {"cpu": ("auto", "numba", "scipy"), "graphblas": ("auto", "graphblas"),
                "gpu": ("auto", "custom", "gather", "tiled", "cusparse")}


# ============================================================================ the DP driver
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

    def fitting(self) -> int:
        """Colorings whose tables fit ``config.memory_budget`` together: the plan's widest point (``peak_cols``
        columns of n entries per coloring), at least 1."""
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
        On the GPU a failed device allocation anywhere in the pass raises DeviceOutOfMemory."""
        if not self.gpu:
            return self._run(keys, per_vertex, colors, profile, roots)
        from ..device import oom_guard
        with oom_guard(f"color coding of a {self.P.k}-vertex tree on the GPU"):
            return self._run(keys, per_vertex, colors, profile, roots)

    def _run(self, keys, per_vertex, colors, profile, roots):
        plan = self.plan
        o = self.ops
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
            elif op.kind == "spmm":
                x = vals[op.inputs[0]]
                arr = o.spmm_rooted(x.arr, rooted_gather_table(k, op.size), colors, op.size) if rooted \
                    else o.spmm(x.arr)
                vals[i] = _Val(arr, x.e, x.mx * self.maxdeg)
            else:
                a, b = vals[op.inputs[0]], vals[op.inputs[1]]
                ea, eb = _pow2_at_least(a.mx), _pow2_at_least(b.mx)
                key = (k - 1, op.size - 1, op.a - 1) if rooted else (k, op.size, op.a)
                sa, sp = split_tables(*key)
                arr, mx = o.ema(a.arr, b.arr, sa, sp, 2.0 ** -ea, 2.0 ** -eb, key)
                vals[i] = _Val(arr, a.e + b.e + ea + eb, mx if mx > 0 else 1.0)
            if roots is not None and i in roots:
                r = vals[i]
                root_totals[i] = o.block_sums(r.arr, len(keys)) * 2.0 ** r.e
            for j in plan.free_after.get(i, ()):
                if plan.ops[j].kind != "leaf":
                    del vals[j]
            if profile is not None:
                o.sync()
                now = time.perf_counter()
                profile[op.kind] = profile.get(op.kind, 0.0) + now - tick
                tick = now
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


def classical_colorings(k: int, eps: float, delta: float) -> tuple[int, int]:
    """(groups g, colorings per group t) of the classical median-of-means bound:
    t = ⌈4/(p ε²)⌉ (Chebyshev: a group mean fails w.p. ≤ 1/4), g = ⌈8 ln(1/δ)⌉ (Hoeffding on the median)."""
    p = math.factorial(k) / k ** k
    return max(1, math.ceil(8.0 * math.log(1.0 / delta))), math.ceil(4.0 / (p * eps * eps))


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
    return Estimate(value=n, stderr=0.0, ci_low=n, ci_high=n, n_colorings=0, seed=0,
                    values=np.zeros(0, dtype=np.float64), stop="exact", bound=f"exact count by closed form: {formula}",
                    eps=float(eps), delta=float(delta), converged=True, template=str(P.name or ""), k=P.k,
                    automorphisms=tree_automorphisms(P), colorful_probability=math.factorial(P.k) / P.k ** P.k,
                    backend="cpu", dtype=dt.name, elapsed_s=time.perf_counter() - t0,
                    method="exact: the closed form of the engine table (exact='auto'; exact=False colors)")


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
             time_budget: float | None = None, backend: str | None = None, stop: str = "adaptive",
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
    stop : "adaptive" (default: anytime empirical-Bernstein interval, rigorous, stops when its
        relative half-width <= eps), "classical" (median of ⌈8 ln 1/δ⌉ means of ⌈4 k^k/(k! ε²)⌉
        colorings, rigorous), "acs" (an asymptotic confidence sequence: valid at any stopping time as the
        colorings grow, no range bound; 50-400x fewer colorings than "adaptive" with coverage >= 1 - δ in
        benchmarks/results/coloring_coverage_cpu.json) or "clt" (a fixed-t normal interval checked after
        every pass: cheapest, its coverage falls below 1 − δ under that optional stopping)
    dtype : "float32" (default, rescaled so nothing overflows) or "float64"
    spmm : the SpMM implementation ("auto"; cpu: "numba" | "scipy"; gpu: "custom" | "cusparse", and for
        rooted tables "gather" | "tiled" to force one kernel; "auto" times the GPU candidates once per
        graph and product size, see docs/color_coding.md)
    batch : colorings evaluated together (default: as many as fit ``config.memory_budget``)
    layout : "rooted" (tables keep only the colour sets containing the row's colour: h/k of the
        memory and SpMM bytes, a/k of the eMA work; the default), "dense" (the paper's full
        tables; needed by the library SpMMs "scipy", "graphblas", "cusparse") or "auto"
    exact : ``"auto"`` (default) or False. ``"auto"`` returns the exact count (an Estimate with a zero-width
        interval, ``stop="exact"``, no colorings) when the template is an unlabeled tree with a closed form
        (every tree of up to 5 vertices: stars, paths, the fork; :mod:`la_gpm.motifs.single`) and the call
        leaves the colorings to the method (no ``seed``, ``max_colorings``, ``time_budget`` or ``batch``, the
        default ``stop``): the closed form costs one or a few passes over the graph (milliseconds to a second),
        while a rigorous interval needs at least 3 ln(3/δ)/(p ε) colorings, p = k!/k^k (8,900 for k = 5 at
        the defaults: each an SpMM pass per tree edge). False always colors.
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
    if exact == "auto" and _colorings is None and seed is None and max_colorings is None and time_budget is None \
            and batch is None and stop == "adaptive":
        found = _exact_by_closed_form(G, P, b, dt, eps, delta, t0)
        if found is not None:
            return found
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
            if _colorings is None:
                totals = runner.totals(coloring_keys(s, done, nb_))
            else:
                totals = np.asarray(_colorings(s, done, nb_), dtype=np.float64)
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
                half = acs_halfwidth(vals, delta)
                m = float(vals.mean())
                if half <= eps * m or (m == 0 and half == 0):
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
        half = acs_halfwidth(vals, delta) if n > 1 else math.inf
        lo, hi = max(0.0, mean - half), mean + half
        bound = "asymptotic confidence sequence (Robbins normal mixture; valid at any stopping time, asymptotically)"
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
                    elapsed_s=time.perf_counter() - t0)
