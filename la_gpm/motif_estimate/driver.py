"""Error-bounded motif-frequency estimation: colorful treelets and uniform sampling (Motivo).

Notes
-----
Bressan, Leucci & Panconesi, "Motivo: fast motif counting via succinct color coding and adaptive
sampling" (VLDB 2019).  For one random coloring of the vertices with k colours:

1. **Build.**  For every rooted tree shape s of at most k vertices (canonical: the sorted tuple of
   its children's shapes) the table ``M_s[v, C]`` counts the colorful embeddings of s rooted at v
   with colour set C.  A shape with children is cut into its largest child (the *passive* part) and
   the rest (the *active* part, same root), and ``M_s = Σ_{C' ⊔ C'' = C} M_act[:, C'] ⊙ (A·M_pas)[:, C'']``,
   the same SpMM + eMA step as :mod:`la_gpm.color_coding.driver`; every shape is built once and
   shared.  The k-vertex shapes have one column (C = all colours), whose entries divided by
   |Aut(s)| count rooted colorful treelet copies; their total over shapes and roots is k times the
   number N of colorful (unrooted) k-treelets.
2. **Sample.**  A root (shape, vertex) is drawn in proportion to its rooted copies, then the tables
   are walked backwards (split of the colour set in proportion to ``M_act · A·M_pas``, then the
   passive child's vertex in proportion to ``M_pas``): a uniform colorful embedding, hence a uniform
   colorful k-treelet copy.  Its vertex set induces a connected graphlet of class H, which is hit
   with probability σ(H)·c_H/N, where c_H is the number of colorful induced copies of H and σ(H) its
   number of spanning trees (Kirchhoff).  So ``N·hits_H/(samples·σ(H))`` is unbiased for c_H, and
   dividing by the colorful probability p (k!/k^k for independent uniform colours; k!·Π sizes /
   n(n-1)···(n-k+1) for the default balanced colorings, classes of n/k vertices) gives an unbiased
   estimate of the count of H.
3. **Average** over independent colorings (each with its own samples); intervals as in
   ``docs/motif_estimate.md``.
4. **AGS** (adaptive graphlet sampling): a coloring may sample free tree shape F with probability
   q_F (then a uniform colorful copy of F); a sample lands on a colorful copy of H with probability
   Σ_F q_F σ_F(H)/N_F, which replaces σ(H)/N above, so the estimate stays unbiased for every class
   while the shapes chosen (Motivo's greedy) cover the classes still pending.
5. **k = 8**: classes are discovered as sampled (canonical bitmask on the fly, cached).

The shapes and their table layout are in :mod:`la_gpm.motif_estimate.shapes`, the tables of one
coloring in :mod:`~la_gpm.motif_estimate.tables` (CPU) and :mod:`~la_gpm.motif_estimate.gpu`; this
module keeps the classes seen (:class:`_Registry`), the per-coloring records, the intervals, AGS and
the stop rule of :func:`estimate_census`.
"""

from __future__ import annotations

import functools
import math
import time
from typing import Any, NamedTuple

import numpy as np

from ..validation import as_graph
from ..backends import resolve_backend, usable_host_memory
from ..config import config
from ..exceptions import InvalidArgument, PatternTooLarge
from ..color_coding.driver import resolve_seed
from ..patterns.classes import canonical_codes
from .shapes import free_shapes, spanning_trees
from .tables import CpuTables, shape_sigma, sigma_rows

__all__ = ["estimate_census", "MAX_ESTIMATE_K", "COLORINGS", "balanced_classes", "balanced_colors",
           "colorful_probability", "variance_split", "coloring_stats", "ColoringStats"]

MAX_ESTIMATE_K = 8
DEFAULT_MAX_COLORINGS = 10_000
DEFAULT_SAMPLES_PER_COLORING = {"cpu": 1 << 16, "gpu": 1 << 20}
# the gpu at k = 8: a table build costs about 5x k = 7's and a sample 2-4x, so the count per coloring that minimises
# the time to eps (sqrt(t_build / t_sample), see _auto_samples) is about twice k = 7's (docs/motif_estimate.md,
# "Samples per coloring at k = 8")
DEFAULT_SAMPLES_PER_COLORING_K8_GPU = 1 << 21


def default_samples_per_coloring(backend: str, k: int) -> int:
    """samples_per_coloring=None: 2^16 on the cpu, 2^20 on the gpu (2^21 at k = 8)."""
    if backend == "gpu" and k >= 8:
        return DEFAULT_SAMPLES_PER_COLORING_K8_GPU
    return DEFAULT_SAMPLES_PER_COLORING[backend]


_BATCH = 1 << 16
# k = 8 on the gpu: batch i + 1 is sampled on the device while the host classifies batch i (:func:`_device_codes`);
# False: one batch after the other (the same samples and results; the before / after measurement)
PIPELINE_K8 = True
# k = 8 on the gpu: each batch's class-cache keys (ordered_codes) and their distinct values are made on the device
# (GpuTables.unique_keys); False: the host makes them from every sample's bitmask (the before / after measurement)
DEVICE_KEYS_K8 = True
_last_record = None
_AGS_PILOT = 3         # uniform colorings before AGS starts steering (from the running summary)
_AGS_MAX_SHAPES = 3     # shapes the greedy may choose per coloring
_PLAN_SAFETY = 1.1      # planned checkpoints: predicted colorings times this


def _known_codes(k):
    """{canonical code: name} of the named k-vertex classes (k = 8: path, star, cycle, clique)."""
    from ..patterns.classes import bit, known_names
    out = {}
    for nm, P in known_names(k):
        code = sum(1 << bit(i, j) for i, j in P.edges)
        out[int(canonical_codes(np.array([code], dtype=np.int64), k)[0])] = nm
    return out


_SIGMA_F_CACHE: dict = {}      # (k, canonical code) -> σ per free shape (k = 8: classes found by sampling)


class _Registry:
    """The motif classes seen so far: key, edges, name, σ and per-free-shape σ; classification of samples.

    k <= 7: every connected class from :mod:`la_gpm.motifs.driver`' bitmask table (fixed rows).
    k = 8: classes are added as samples discover them (canonical bitmask computed on the fly, cached per
    bitmask in invariant order, :func:`~la_gpm.patterns.classes.ordered_codes`).
    """

    def __init__(self, k):
        self.k = k
        self.nf = len(free_shapes(k))
        if k <= 7:
            c, sigma, sigF = _class_info(k)
            self.table = c.table
            self.keys, self.edges, self.names = list(c.keys), list(c.edges), list(c.names)
            self.sigma, self.sigF = sigma, sigF
        else:
            self.table = None
            self.keys, self.edges, self.names = [], [], []
            self.sigma = np.zeros(0)
            self.sigF = np.zeros((0, self.nf), dtype=np.int64)
            self.row_of_canon = {}
            self._codes = np.zeros(0, dtype=np.int64)      # ordered bitmasks seen, sorted, and their rows
            self._rows = np.zeros(0, dtype=np.int64)
            self.named = _known_codes(k)

    def __len__(self):
        return len(self.keys)

    def classify(self, G, verts) -> np.ndarray:
        """Class row of each sample (adds the classes seen for the first time, k = 8)."""
        from . import cpu as K
        if self.table is not None:
            return K.classify(G.indptr, G.indices, verts, self.table)
        return self.rows_of_codes(K.adjacency_codes(G.indptr, G.indices, verts))

    def rows_of_codes(self, codes):
        """Class row of each k = 8 adjacency bitmask (classes seen for the first time are added)."""
        from ..patterns.classes import ordered_codes
        # the cache's keys: each bitmask relabelled in canonical_codes' invariant order (ordered_codes: an
        # isomorphic graph, so the same class), which folds the orders a sampler's walks give one graph into a few
        # keys (wiki-Vote, k = 8: 7.5k keys a batch of 65,536 samples instead of 44k, and 19k keys after 60
        # batches instead of 1.0M)
        keyed = ordered_codes(np.ascontiguousarray(codes, dtype=np.int64), self.k)
        u, inv = np.unique(keyed, return_inverse=True)
        return self.rows_of_keys(u)[inv]

    def rows_of_keys(self, u):
        """Class row of each of the sorted distinct cache keys ``u`` (:func:`~la_gpm.patterns.classes.ordered_codes`
        of bitmasks; the GPU makes them on the device, ``GpuTables.unique_keys``); classes seen for the first time
        are added, in the order of ``u``."""
        from ..patterns.classes import code_edges
        u = np.asarray(u, dtype=np.int64)
        # keys seen before: one vectorised search in the sorted table (no per-code Python)
        pos = np.minimum(np.searchsorted(self._codes, u), max(self._codes.size - 1, 0))
        hit = self._codes[pos] == u if self._codes.size else np.zeros(u.size, dtype=bool)
        rows = np.where(hit, self._rows[pos] if self._codes.size else -1, -1).astype(np.int64)
        miss = np.flatnonzero(~hit)
        if miss.size:
            canon = canonical_codes(u[miss], self.k)
            new = []
            for i, c in zip(miss.tolist(), canon.tolist()):
                r = self.row_of_canon.get(c)
                if r is None:
                    r = len(self.keys) + len(new)
                    self.row_of_canon[c] = r
                    new.append(c)
                rows[i] = r
            if new:
                edges = [tuple(code_edges(c, self.k)) for c in new]
                # σ per free shape of a class: the shipped table's row (computing them was most of a first
                # k = 8 estimate's time), else computed once per process
                todo = [i for i, c in enumerate(new) if (self.k, c) not in _SIGMA_F_CACHE]
                if todo:
                    for i, row in zip(todo, sigma_rows([new[i] for i in todo], [edges[i] for i in todo], self.k)):
                        _SIGMA_F_CACHE[self.k, new[i]] = row
                sF = np.array([_SIGMA_F_CACHE[self.k, c] for c in new], dtype=np.int64).reshape(len(new), self.nf)
                self.keys += new
                self.edges += edges
                self.names += [self.named.get(c, f"{self.k}-class-{c}") for c in new]
                self.sigF = np.vstack([self.sigF, sF])
                self.sigma = np.concatenate([self.sigma, sF.sum(axis=1).astype(np.float64)])
            allc = np.concatenate([self._codes, u[miss]])
            order = np.argsort(allc, kind="stable")
            self._codes, self._rows = allc[order], np.concatenate([self._rows, rows[miss]])[order]
        return rows


@functools.lru_cache(maxsize=None)
def _class_info(k: int):
    """(classes of motifs.py, σ by Kirchhoff, σ per free shape) for k <= 7."""
    from ..patterns.classes import classes
    c = classes(k)
    sigma = np.array([spanning_trees(e, k) for e in c.edges], dtype=np.float64)
    return c, sigma, shape_sigma(list(c.edges), k)


def _check_prob(name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.floating)) or not 0.0 < float(v) < 1.0:
        raise InvalidArgument(f"{name} must be a number in (0, 1); got {v!r}")
    return float(v)


def _check_pos_int(name, v):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise InvalidArgument(f"{name} must be a positive integer or None; got {v!r}")
    return int(v)


def _intervals(X, hits, g, delta):
    """Per-class (mean, low, high): Student-t over colorings, widened to the Poisson interval of the hits."""
    from scipy import stats
    R = X.shape[0]
    m = X.mean(axis=0)
    if R >= 2:
        half = stats.t.ppf(1.0 - delta / 2.0, R - 1) * X.std(axis=0, ddof=1) / math.sqrt(R)
    else:
        half = np.full(X.shape[1], np.inf)
    H = hits.astype(np.float64)
    plo = np.where(H > 0, stats.chi2.ppf(delta / 2.0, np.maximum(2 * H, 1e-300)) / 2.0, 0.0)
    phi = stats.chi2.ppf(1.0 - delta / 2.0, 2 * H + 2) / 2.0
    lo = np.maximum(0.0, np.minimum(m - half, g * plo))
    hi = np.maximum(m + half, g * phi)
    return m, lo, hi


class _Record:
    """Per-coloring records: hits per class, samples, and the sampling design q_F / N_F per free shape."""

    def __init__(self):
        self.hits, self.S, self.Qn, self.N = [], [], [], []

    def add(self, hits, s, qn, N):
        self.hits.append(hits)
        self.S.append(s)
        self.Qn.append(qn)
        self.N.append(N)

    def __len__(self):
        return len(self.S)

    def matrices(self, reg, p):
        """(X (R, classes) per-coloring estimates, g (R, classes) count per hit, hits (R, classes))."""
        ncls = len(reg)
        R = len(self.S)
        H = np.zeros((R, ncls), dtype=np.float64)
        for j, h in enumerate(self.hits):
            H[j, :h.shape[0]] = h
        # probability that one sample lands on a given colorful induced copy of each class:
        # Σ_F q_F σ_F(H) / N_F  (natural mixture q_F = N_F/N: σ(H)/N, the plain estimator)
        rate = np.array(self.Qn) @ reg.sigF.T.astype(np.float64) if ncls else np.zeros((R, 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(rate > 0, 1.0 / (np.array(self.S, dtype=np.float64)[:, None] * p * rate), np.nan)
        X = np.where(rate > 0, H * np.nan_to_num(g), 0.0)
        return X, g, H


def _summary(rec, reg, p, level_delta):
    """(mean, low, high, frequency, relative half-width, hits) per class after the colorings so far."""
    X, g, H = rec.matrices(reg, p)
    R = X.shape[0]
    valid = ~np.isnan(g)
    hits = H.sum(axis=0)
    # count per hit for the Poisson widening: the mean's own ratio m/hits where hits > 0 (per-coloring
    # weights differ under AGS), else the mean weight over colorings (the plain estimator's constant)
    gm = np.where(valid, g, 0.0).sum(axis=0) / np.maximum(valid.sum(axis=0), 1) / max(R, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        gm = np.where(hits > 0, X.mean(axis=0) / hits, gm)
    m, lo, hi = _intervals(X, hits, gm, level_delta)
    tot = m.sum()
    freq = m / tot if tot > 0 else np.zeros(m.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(m > 0, np.maximum(hi - m, m - lo) / m, np.inf)
    return m, lo, hi, freq, rel, hits


def _ags_mixture(T, reg, m, pending, natural_share, max_shapes=None):
    """Motivo's adaptive choice: the free shapes that best cover the pending classes, plus a natural share.

    Greedy: the shape F maximising Σ_{H pending} m_H · σ_F(H)/N_F (the hit rate of the pending
    classes) is taken; the classes it serves at least half as well as their own best shape are set
    aside; repeat (at most ``max_shapes`` shapes).  The returned mixture is ``natural_share`` of the
    uniform treelet distribution (so every class keeps a positive hit probability and the estimator
    stays unbiased for all classes) plus an equal split of the rest over the chosen shapes.
    """
    P = np.asarray(pending, dtype=np.int64)
    if P.size == 0 or T.treelets <= 0:
        return T.natural_mixture(), []
    return _ags_rows(T, reg.sigF[P], m[P], natural_share, max_shapes)


def _ags_rows(T, sigF, m, natural_share, max_shapes=None):
    """:func:`_ags_mixture` on the pending classes' own rows: ``sigF`` (pending, free shapes) their σ per
    free shape, ``m`` their current estimates (what a worker of :mod:`la_gpm.distributed` receives)."""
    max_shapes = _AGS_MAX_SHAPES if max_shapes is None else max_shapes
    nat = T.natural_mixture()
    NF = T.shape_treelets
    if sigF.shape[0] == 0 or T.treelets <= 0:
        return nat, []
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(NF[None, :] > 0, sigF / NF[None, :], 0.0)
    w = np.maximum(m, 0.0)
    if not np.any(w > 0):
        w = np.ones(sigF.shape[0])
    best = rate.max(axis=1)
    live = best > 0
    chosen = []
    while live.any() and len(chosen) < max_shapes:
        score = (w[live, None] * rate[live]).sum(axis=0)
        F = int(np.argmax(score))
        if score[F] <= 0 or F in chosen:
            break
        chosen.append(F)
        live &= rate[:, F] < 0.5 * best
    if not chosen:
        return nat, []
    q = natural_share * nat
    q[chosen] += (1.0 - natural_share) / len(chosen)
    return q, chosen


_AUTO_MIN = 1 << 16       # samples_per_coloring="auto": bounds of the per-coloring sample count
_AUTO_MAX = 1 << 22


def variance_split(rec, reg, p, rows):
    """Per class row: (between-coloring variance of X_j, its sampling part, samples-scaled sampling part).

    X_j = g_j·h_j with h_j hits (binomial, small rate: variance about its mean), so the sampling variance
    of X_j given its coloring is about g_j²·h_j; its mean over colorings estimates the sampling part of
    Var(X_j), and g_j²·h_j·s_j (s_j samples) is the same in units of one sample (g_j ∝ 1/s_j).  The rest,
    Var(X_j) minus the sampling part, is the coloring part: what more samples per coloring cannot remove.
    """
    X, g, H = rec.matrices(reg, p)
    rows = np.asarray(rows, dtype=np.int64)
    S = np.array(rec.S, dtype=np.float64)[:, None]
    gg = np.nan_to_num(g[:, rows])
    vtot = X[:, rows].var(axis=0, ddof=1) if X.shape[0] >= 2 else np.full(rows.size, np.nan)
    vs = (gg * gg * H[:, rows]).mean(axis=0)
    a = (gg * gg * H[:, rows] * S).mean(axis=0)
    return vtot, vs, a


def _auto_samples(rec, reg, p, m, pending, t_build, t_sample):
    """Samples per coloring minimising the predicted time to the target for the slowest pending class.

    With per-coloring variance Vc + A/s (coloring part Vc, sampling part A/s, see ``variance_split``)
    and cost t_build + s·t_sample per coloring, the time to a given variance of the mean is minimal at
    s = sqrt(A·t_build / (Vc·t_sample)).  The slowest class is the one with the largest Var(X)/m².
    """
    if len(rec) < 3 or not pending or t_sample <= 0:
        return _AUTO_MIN
    vtot, vs, a = variance_split(rec, reg, p, pending)
    mm = np.maximum(m[np.asarray(pending)], 1e-300)
    ok = np.isfinite(vtot)
    if not ok.any():
        return _AUTO_MIN
    worst = int(np.argmax(np.where(ok, vtot / (mm * mm), -1.0)))
    vc = max(vtot[worst] - vs[worst], 0.05 * vtot[worst], 1e-300)      # floor: an estimate of 0 is noise
    s = math.sqrt(a[worst] * t_build / (vc * t_sample)) if a[worst] > 0 else _AUTO_MIN
    s = int(min(max(s, _AUTO_MIN), _AUTO_MAX))
    return -(-s // _BATCH) * _BATCH


def _planned_check(rec, reg, p, m, pending, eps, level):
    """Colorings at which every pending class's Student-t half-width is predicted to be <= eps·m at ``level``
    (from the current per-coloring spread, the quantile at the current degrees of freedom, x1.1)."""
    from scipy import stats
    X, _, _ = rec.matrices(reg, p)
    R = X.shape[0]
    rows = np.asarray(pending, dtype=np.int64)
    sd = X[:, rows].std(axis=0, ddof=1)
    mm = np.maximum(m[rows], 1e-300)
    t = stats.t.ppf(1.0 - level / 2.0, max(R - 1, 1))
    need = (t * sd / (eps * mm)) ** 2 * _PLAN_SAFETY
    need = need[np.isfinite(need)]
    return int(math.ceil(need.max())) if need.size else R + 1


COLORINGS = ("balanced", "uniform")


def balanced_classes(n: int, k: int) -> list:
    """Class sizes of a balanced k-coloring of n vertices: vertex of rank r gets colour r·k // n."""
    return [-(-((c + 1) * n) // k) - -(-(c * n) // k) for c in range(k)]


def colorful_probability(n: int, k: int, coloring: str = "balanced") -> float:
    """Probability that a fixed k-set of vertices is colorful (k distinct colours).

    ``"uniform"`` (every vertex's colour uniform and independent): k!/k^k.  ``"balanced"`` (a uniformly
    random assignment of the classes of :func:`balanced_classes`): k!·Π sizes / (n(n-1)···(n-k+1)),
    the same for every k-set, so the colorful estimates stay unbiased; computed on Python ints.

    >>> colorful_probability(7, 7) == math.factorial(7) / math.perm(7, 7)
    True
    >>> colorful_probability(10, 5, "uniform"), round(colorful_probability(10, 5), 4)
    (0.0384, 0.127)
    """
    if coloring == "uniform" or n < k:
        return math.factorial(k) / k ** k
    return math.factorial(k) * math.prod(balanced_classes(n, k)) / math.perm(n, k)


def balanced_colors(key: int, n: int, k: int, xp=np):
    """The balanced coloring of key ``key``: vertices ranked by splitmix64(key + v), rank r gets r·k // n.

    ``xp`` is numpy (host) or cupy (device): both compute the same 64-bit hashes (a bijection of
    key + v, so no ties) and the same sort, hence the same colors for a seed on CPU and GPU.
    """
    u = xp.uint64
    x = xp.arange(n, dtype=u) + u(key) + u(0x9E3779B97F4A7C15)      # splitmix64 (wrapping uint64 arithmetic)
    x = (x ^ (x >> u(30))) * u(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> u(27))) * u(0x94D049BB133111EB)
    h = x ^ (x >> u(31))
    order = xp.argsort(h)
    col = xp.empty(n, dtype=xp.int8)
    col[order] = (xp.arange(n, dtype=xp.int64) * k // n).astype(xp.int8)
    return col


def _has_connected_kset(G, k) -> bool:
    """Whether some connected component has at least k vertices (else there is no connected k-set)."""
    if G.n < k:
        return False
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components
    A = sp.csr_matrix((np.ones(G.indices.shape[0], dtype=np.int8), G.indices, G.indptr), shape=(G.n, G.n))
    _, lab = connected_components(A, directed=False)
    return bool(np.bincount(lab).max() >= k)


# ============================================================================ the steps of estimate_census
def _check_census_args(k, eps, delta, min_frequency, max_samples, max_colorings, samples_per_coloring, min_colorings,
                       time_budget, adaptive, natural_share, checkpoints, coloring):
    """The checked arguments of :func:`estimate_census`: ``(k, eps, delta, min_frequency, max_samples,
    max_colorings, samples_per_coloring, auto, min_colorings)``.  samples_per_coloring is None for the
    backend's default; with ``auto`` ("auto" was asked) it is the first colorings' count."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InvalidArgument(f"k must be an integer (3..{MAX_ESTIMATE_K}); got {k!r}")
    k = int(k)
    if k > MAX_ESTIMATE_K:
        raise PatternTooLarge(f"estimate_census supports k = 3..{MAX_ESTIMATE_K}; got k={k}")
    if k < 3:
        raise InvalidArgument(f"estimate_census needs k >= 3; got k={k}")
    eps, delta, min_frequency = _check_prob("eps", eps), _check_prob("delta", delta), _check_prob(
        "min_frequency", min_frequency)
    max_samples = _check_pos_int("max_samples", max_samples)
    max_colorings = _check_pos_int("max_colorings", max_colorings)
    auto_spc = isinstance(samples_per_coloring, str) and samples_per_coloring == "auto"
    if not auto_spc and isinstance(samples_per_coloring, str):
        raise InvalidArgument(f"samples_per_coloring must be a positive integer, 'auto' or None; got "
                              f"{samples_per_coloring!r}")
    spc = _AUTO_MIN if auto_spc else _check_pos_int("samples_per_coloring", samples_per_coloring)
    min_colorings = _check_pos_int("min_colorings", min_colorings)
    if time_budget is not None and (isinstance(time_budget, bool) or not isinstance(time_budget, (int, float))
                                    or not time_budget > 0):
        raise InvalidArgument(f"time_budget must be a positive number of seconds or None; got {time_budget!r}")
    if not isinstance(adaptive, (bool, np.bool_)):
        raise InvalidArgument(f"adaptive must be True or False; got {adaptive!r}")
    if isinstance(natural_share, bool) or not isinstance(natural_share, (int, float)) or not 0 < natural_share <= 1:
        raise InvalidArgument(f"natural_share must be a number in (0, 1]; got {natural_share!r}")
    if checkpoints not in ("planned", "geometric"):
        raise InvalidArgument(f"checkpoints must be 'planned' or 'geometric'; got {checkpoints!r}")
    if coloring not in COLORINGS:
        raise InvalidArgument(f"coloring must be one of {COLORINGS}; got {coloring!r}")
    return k, eps, delta, min_frequency, max_samples, max_colorings, spc, auto_spc, min_colorings


def _check_budget(memory_budget):
    """The checked ``memory_budget``: None, or a positive number of bytes (an int)."""
    if memory_budget is None:
        return None
    if isinstance(memory_budget, bool) or not isinstance(memory_budget, (int, float, np.integer, np.floating)) \
            or not memory_budget > 0:
        raise InvalidArgument(f"memory_budget must be a positive number of bytes or None; got {memory_budget!r}")
    return int(memory_budget)


def table_layout(G, k: int, backend: str, engine=None, memory_budget: int | None = None, force: str | None = None,
                 batch: int = _BATCH):
    """How one coloring's tables are held within ``memory_budget`` bytes (:func:`~la_gpm.motif_estimate.memory.
    choose_layout`): the full layout where it fits, else vertex-chunked, else (below the chunked layout's floor)
    spilled: the root weights and the rows of ``M`` that do not fit held in host memory (gpu) or a temporary file
    (cpu), which must have room (:func:`spill_room`); MemoryBudgetTooSmall (with the budget that would do) below
    even that.  None: no limit on the cpu backend; on the gpu the device's free memory (so tables that do not fit
    whole are built in chunks, or spilled, instead of failing).  ``batch``: the most samples drawn in one batch
    (their buffers count too)."""
    from .memory import choose_layout
    from .shapes import shape_plan
    pl = shape_plan(k)
    if backend == "gpu" and engine is not None:
        budget = memory_budget if memory_budget is not None else engine.free_bytes()
        return choose_layout("gpu", G.n, pl.WM, pl.WB, len(pl.top), k, engine.nslots, batch, budget,
                             graph_bytes=engine.layout_graph_bytes(), force=force, spill_room=spill_room("gpu"))
    from .tables import hub_runs
    return choose_layout("cpu", G.n, pl.WM, pl.WB, len(pl.top), k, hub_runs(G, k)[1], batch, memory_budget,
                         force=force, spill_room=spill_room("cpu"))


def spill_room(backend: str) -> int | None:
    """Bytes the spill layout may hold off the budget: on the gpu seven eighths of the host's available memory
    (``MemAvailable``; None where the system does not say), on the cpu the free space of the temporary folder."""
    if backend == "gpu":
        return usable_host_memory()
    import shutil
    import tempfile
    try:
        return int(shutil.disk_usage(tempfile.gettempdir()).free)
    except OSError:
        return None


def _gpu_sampler(G, k):
    """The per-graph device state of the gpu backend (a failed allocation raises DeviceOutOfMemory)."""
    from ..device import oom_guard
    from .gpu import GpuSampler
    with oom_guard("motif estimation on the GPU (the sampler's tables)"):
        return GpuSampler(G, k)


def _progress_bar(progress, total, k):
    """A tqdm bar over colorings where asked (``progress`` or ``config.progress``) and installed, else None."""
    if not (progress or config.progress):
        return None
    try:
        from tqdm.auto import tqdm
        return tqdm(total=total, unit="coloring", desc=f"motif estimate k={k}")
    except ImportError:  # pragma: no cover
        return None


def _coloring(G, k, coloring, key, xp):
    """The colours of coloring ``key``: balanced (numpy, or cupy on the device) or uniform (the hash of
    color coding); uniform also where the graph has fewer than k vertices."""
    from ..color_coding.cpu_kernels import colors_from_keys
    if coloring == "balanced" and G.n >= k:
        return balanced_colors(key, G.n, k, xp)
    return colors_from_keys(np.array([key], dtype=np.uint64), G.n, k) if G.n else np.zeros(0, np.int8)


def _steer_rows(reg, m, pending):
    """The steering state AGS needs for the next colorings: (σ per free shape, current estimate) of the pending
    classes' rows, or None when none is pending.  Computed on the client at the start of a batch and sent
    with its colorings (small: pending classes × free shapes)."""
    if not pending:
        return None
    P = np.asarray(pending, dtype=np.int64)
    return np.ascontiguousarray(reg.sigF[P]), np.pad(m, (0, len(reg) - len(m)))[P]


def _mixture(T, steer, adaptive, natural_share):
    """(q, steered): the coloring's sampling mixture over free shapes, AGS's where it chose shapes for the
    pending classes of ``steer`` (:func:`_steer_rows`; then set on the tables T), else the natural one."""
    q = T.natural_mixture()
    if adaptive and steer is not None and T.treelets > 0:
        q, chosen = _ags_rows(T, steer[0], steer[1], natural_share)
        if chosen:
            T.set_mixture(q)
            return q, True
    return q, False


def _device_codes(T, engine, count, skey, reduce=None):
    """The k = 8 samples' adjacency bitmasks, batch by batch (``_BATCH`` samples, in order), brought to the host by
    ``reduce`` (default: copied as they are; ``T.unique_keys``: their distinct class-cache keys and counts): batch
    i + 1 is launched before batch i is handed over, so the device samples it while the caller classifies batch i
    on the host (numba and numpy work that left the device idle: wiki-Vote and R-MAT 18 spent 4-5 s a run there,
    docs/motif_estimate.md).  A batch's samples depend on (key, first sample) only, so the order of launches
    changes no sample."""
    firsts = list(range(0, count, _BATCH))
    if not firsts:
        return
    reduce = reduce or engine.cp.asnumpy

    def launch(first):
        return T.sample_device(min(_BATCH, count - first), skey, first)[1]
    dev = launch(0)
    for i in range(len(firsts)):
        host = reduce(dev)                        # waits for batch i only
        nxt = firsts[i + 1] if i + 1 < len(firsts) else None
        if nxt is not None and PIPELINE_K8:
            dev = launch(nxt)
        yield host
        if nxt is not None and not PIPELINE_K8:
            dev = launch(nxt)


def _sample_hits(G, T, reg, engine, count, skey) -> np.ndarray:
    """Hits per class row of ``count`` samples of the tables T, drawn in batches of ``_BATCH`` (classes
    seen for the first time are added to the registry, k = 8)."""
    rows = []
    if engine is not None and reg.table is None and T.rooted > 0:      # k = 8 on the gpu: pipelined
        if not DEVICE_KEYS_K8:         # every sample's bitmask to the host
            rows = [reg.rows_of_codes(codes) for codes in _device_codes(T, engine, count, skey)]
            return np.bincount(np.concatenate(rows), minlength=len(reg)) if rows else np.zeros(len(reg), np.int64)
        # each batch's distinct cache keys and their counts, made on the device
        return _weighted_hits(reg, [(reg.rows_of_keys(u), counts)
                                    for u, counts in _device_codes(T, engine, count, skey, T.unique_keys)])
    for first in range(0, count, _BATCH):
        c = min(_BATCH, count - first)
        if T.rooted > 0:
            rows.append(T.classify(reg, c, skey, first) if engine is not None
                        else reg.classify(G, T.sample(c, skey, first)[0]))
    return np.bincount(np.concatenate(rows), minlength=len(reg)) if rows else np.zeros(len(reg), np.int64)


def _sample_codes(G, T, engine, count, skey) -> list:
    """k = 8 on a worker: per batch of ``_BATCH`` samples, (sorted labelled adjacency bitmasks, their counts);
    the client maps them to class rows in coloring order (:func:`_hits_of_codes`), so its registry grows
    exactly as in a single-machine run."""
    from . import cpu as K
    if T.rooted <= 0:
        return []
    if engine is not None:
        return [np.unique(np.asarray(codes, dtype=np.int64), return_counts=True)
                for codes in _device_codes(T, engine, count, skey)]
    out = []
    for first in range(0, count, _BATCH):
        c = min(_BATCH, count - first)
        codes = K.adjacency_codes(G.indptr, G.indices, T.sample(c, skey, first)[0])
        out.append(np.unique(np.asarray(codes, dtype=np.int64), return_counts=True))
    return out


def _hits_of_codes(reg, codes) -> np.ndarray:
    """Hits per class row from :func:`_sample_codes`' batches (new classes join ``reg`` as in
    :func:`_sample_hits`: ``rows_of_codes`` sees the same unique codes batch by batch)."""
    return _weighted_hits(reg, [(reg.rows_of_codes(u), c) for u, c in codes])


def _weighted_hits(reg, batches) -> np.ndarray:
    """Hits per class row of ``reg`` from batches of (class rows of distinct codes or keys, their counts)."""
    if not batches:
        return np.zeros(len(reg), np.int64)
    rows = np.concatenate([r for r, _ in batches])
    w = np.concatenate([c for _, c in batches]).astype(np.float64)
    return np.rint(np.bincount(rows, weights=w, minlength=len(reg))).astype(np.int64)


class ColoringStats(NamedTuple):
    """What one coloring contributes to :func:`estimate_census` (its sufficient statistics)."""
    j: int                 # coloring number (the seed stream's index)
    hits: Any              # hits per class row (np.ndarray), or None with ``codes``
    codes: Any             # k = 8 away from the client: [(labelled bitmasks, counts)] per sample batch, else None
    samples: int           # samples drawn
    qn: np.ndarray         # the sampling design q_F / N_F per free shape
    treelets: float        # colorful k-treelets N_j
    steered: bool          # AGS chose shapes for this coloring
    build_s: float         # seconds: table build
    sample_s: float        # seconds: sampling and classification
    table_bytes: int = 0   # peak bytes of the coloring's tables (memory.Ledger)
    spilled_bytes: int = 0  # bytes of them held off the budget (the spill layout)


def _one_coloring(G, k, s, j, coloring, engine, reg, spc, left, steer, adaptive, natural_share,
                  layout=None) -> ColoringStats:
    """Coloring ``j`` of seed ``s``: its tables (held as ``layout`` says, :func:`table_layout`), its mixture
    (AGS, from ``steer``), its samples (at most ``spc``, ``left`` where a sample budget remains); ``reg`` None:
    k = 8 codes instead of hits."""
    from ..color_coding.cpu_kernels import coloring_keys, splitmix64_py
    key = int(coloring_keys(s, j, 1)[0])
    colors = _coloring(G, k, coloring, key, np if engine is None else engine.cp)
    tb0 = time.perf_counter()
    T = CpuTables(G, k, colors, layout) if engine is None else engine.tables(colors, layout)
    t_build = time.perf_counter() - tb0
    q, chosen = _mixture(T, steer, adaptive, natural_share)
    # no more samples than twice the colorful treelets: past that the coloring's variance dominates
    want = min(spc, max(256, int(2 * T.treelets)))
    if left is not None:
        want = min(want, left)
    ts0 = time.perf_counter()
    skey = splitmix64_py(key ^ 0x5851F42D4C957F2D)
    if reg is None:
        hits, codes = None, _sample_codes(G, T, engine, want, skey)
    else:
        hits, codes = _sample_hits(G, T, reg, engine, want, skey), None
    t_sample = time.perf_counter() - ts0
    with np.errstate(divide="ignore", invalid="ignore"):
        qn = np.where(T.shape_treelets > 0, q / T.shape_treelets, 0.0)
    if engine is not None:
        T.release()          # a spilled coloring's host arrays go to the next coloring (mapped once a run)
    return ColoringStats(j, hits, codes, want, qn, float(T.treelets), bool(chosen), t_build, t_sample, T.mem.peak,
                         T.mem.spilled)


def coloring_stats(G, k: int, seed: int, first: int, count: int, *, samples: int, left: int | None = None,
                   steer=None, adaptive: bool = True, natural_share: float = 0.25, coloring: str = "balanced",
                   backend: str = "cpu", memory_budget: int | None = None) -> list:
    """Colorings ``first .. first+count-1`` of ``seed`` for :func:`estimate_census`: one task of
    :func:`la_gpm.distributed.estimate_census`.

    Each coloring is the one a single-machine run draws at that index (its key comes from the seed and the
    index only), sampled with at most ``samples`` samples (``left``: the run's remaining sample budget) and the
    AGS steering state ``steer`` the client computed at the start of the batch.  Returns one
    :class:`ColoringStats` per coloring: hits per class row for k <= 7 (the rows are fixed), the sampled
    adjacency bitmasks for k = 8 (the client owns the class registry).  On the gpu backend the device state
    is kept on the worker's copy of the graph between tasks.  ``memory_budget``: as in :func:`estimate_census`,
    per worker.
    """
    G = as_graph(G)
    engine = G.device_cache(f"motif-estimate:sampler:{k}", lambda: _gpu_sampler(G, k)) if backend == "gpu" else None
    layout = table_layout(G, k, backend, engine, _check_budget(memory_budget), batch=min(_BATCH, samples))
    reg = _Registry(k) if k <= 7 else None
    j = first
    try:
        out = []
        for j in range(first, first + count):
            out.append(_one_coloring(G, k, seed, j, coloring, engine, reg, samples, left, steer, adaptive,
                                     natural_share, layout))
        return out
    except Exception as e:  # noqa: BLE001 -- re-raised; a failed device allocation as DeviceOutOfMemory
        if engine is not None:
            from ..device import raise_if_device_oom
            raise_if_device_oom(e, f"motif estimation on the GPU (k = {k}, coloring {j})")
        raise


def _stop(G, k, rec, j, min_colorings, pending) -> bool:
    """The stop rule at a check: after min_colorings, no watched class is pending (and some coloring had a
    colorful treelet), or no coloring had one and the graph has no connected k-set at all."""
    return j >= min_colorings and ((not pending and max(rec.N) > 0)
                                   or (max(rec.N) == 0 and not _has_connected_kset(G, k)))


def _next_check(rec, reg, p, m, pending, eps, delta, check, j, checkpoints) -> int:
    """Colorings at the check after check number ``check`` (made at j colorings): 25% more; ``"planned"``
    moves it to where the slowest pending class is predicted to pass at that check's level (at most 4x
    the colorings so far): fewer failed checks, so a smaller share of delta spent before the stop."""
    nxt = max(j + 1, math.ceil(j * 1.25))
    if checkpoints == "planned" and pending and j >= 2:
        nxt = min(max(nxt, _planned_check(rec, reg, p, m, pending, eps, delta / ((check + 1) * (check + 2)))), 4 * j)
    return nxt


def _class_frame(reg, summary, eps):
    """The DataFrame of the classes hit by a sample, sorted by edge count then key (attrs not set)."""
    import pandas as pd
    m, lo, hi, freq, rel, hits_tot = summary
    seen = np.flatnonzero(hits_tot > 0)
    order = sorted(seen.tolist(), key=lambda i: (len(reg.edges[i]), reg.keys[i]))
    seen = np.array(order, dtype=np.int64)
    return pd.DataFrame({"name": [reg.names[i] for i in seen], "key": [reg.keys[i] for i in seen],
                         "edges": [list(reg.edges[i]) for i in seen], "count": m[seen], "frequency": freq[seen],
                         "ci_low": lo[seen], "ci_high": hi[seen], "samples": hits_tot[seen].astype(np.int64),
                         "sigma": reg.sigma[seen].astype(np.int64), "rel_halfwidth": rel[seen],
                         "reached": rel[seen] <= eps})


def estimate_census(G, k: int, eps: float = 0.1, delta: float = 0.05, seed=None, time_budget: float | None = None,
                    max_samples: int | None = None, backend: str | None = None, progress: bool = False,
                    min_frequency: float = 0.01, samples_per_coloring: int | str | None = None, min_colorings: int = 10,
                    max_colorings: int | None = None, adaptive: bool = True, natural_share: float = 0.25,
                    checkpoints: str = "geometric", coloring: str = "balanced", batch: int = 1,
                    memory_budget: int | None = None, _colorings=None):
    """Estimate the induced counts of every connected k-vertex motif (k = 3..8), with intervals.

    Parameters
    ----------
    G : undirected graph (anything :func:`la_gpm.as_graph` accepts)
    k : motif size, 3..8 (k = 8: classes are discovered as sampled)
    eps, delta : target: every class with estimated relative frequency >= ``min_frequency`` gets an
        interval of relative half-width <= eps, each at confidence 1 - delta
    seed : reproducible colorings and samples; None draws one (``df.attrs["seed"]``)
    time_budget, max_samples, max_colorings : stop earlier (then ``df.attrs["converged"]`` is False);
        max_colorings defaults to 10000
    backend : "cpu" (or None / "auto"), or "gpu" (tables and sampling on the CUDA device)
    progress : tqdm bar over colorings
    samples_per_coloring : treelets sampled per coloring; None (default): 2^16 on the cpu backend, 2^20 on
        the gpu, where a sample costs about 1/20 of a microsecond against a table build of 0.26 s (R-MAT
        22, k = 7), so the sampling part of the per-coloring variance is cut 16x for +25% per coloring
        (measured: 10 colorings instead of 55-125 there, see the docs), and 2^21 on the gpu at k = 8, whose builds
        cost about 5x more (R-MAT 22 k = 8: 10 colorings in 18 s instead of 22 in 41 s); or ``"auto"``: after 3
        colorings, the count
        (2^16..2^22) that minimises the predicted time to the target from the measured build and
        sampling times and the split of the per-coloring variance into its coloring and sampling parts
        (machine-dependent, like ``time_budget``; the estimate stays unbiased);
        min_colorings : colorings before stopping
    adaptive : Motivo's adaptive graphlet sampling (AGS): after 3 uniform colorings, colorings sample the
        treelet shapes that best cover the classes still pending; ``natural_share`` (in (0, 1]) of
        each such coloring's samples stays uniform over all treelets
    checkpoints : where the stop rule checks (check i at level delta/(i(i+1)), see the docs):
        ``"geometric"`` (default) after min_colorings, then each time the colorings grew by 25%;
        ``"planned"`` the same, but a failed check puts the next one where the slowest pending class
        is predicted to reach eps (at most 4x the colorings so far), so fewer checks spend delta
        (fewer colorings on email-Eu-core k = 6, more on k = 5 and on R-MAT 22 k = 7: see the docs)

    coloring : ``"balanced"`` (default: every colour class has n/k vertices, up to one; a uniformly random
        such assignment, colourful probability k!·Π sizes / n(n-1)···(n-k+1); fewer colorings for the same
        interval, see the docs) or ``"uniform"`` (independent uniform colours, probability k!/k^k)
    batch : colorings drawn with one steering state (default 1: each coloring sees the AGS state and the
        ``"auto"`` sample count of all colorings before it).  With ``batch=B`` the colorings B·b .. B·b+B-1 use
        the state as it was after coloring B·b (they may run in parallel: :func:`la_gpm.distributed.estimate_census`);
        the checks and the stop rule still run coloring by coloring in order, so a run with ``adaptive=False``
        and a fixed sample count gives the same table for every batch
    memory_budget : bytes one coloring's tables may take (None: no limit on the cpu backend, the device's free
        memory on the gpu).  Tables that do not fit whole are built and sampled in vertex chunks (``M`` kept, ``B``
        recomputed where read: the same numbers, so the same estimate for a seed, slower); below the smallest
        chunk, the root weights and the rows of ``M`` that do not fit are held off the budget (layout ``"spill"``:
        host memory the device reads in place, or a temporary file the cpu maps; the same numbers again, slower
        still); a budget below even that (the graph state, one build row, one sample batch) raises
        :class:`~la_gpm.exceptions.MemoryBudgetTooSmall` naming the budget that would do.
        ``df.attrs``: ``table_layout``, ``table_chunks``, ``table_bytes`` (peak counted within the budget),
        ``table_bytes_model``, ``table_spilled_bytes`` (held off the budget).
        Not ``config.memory_budget`` (a working-buffer budget of the exact counters, 2 GiB by default)
    _colorings : internal (:func:`la_gpm.distributed.estimate_census`): ``f(first, count, samples, left, steer)``
        returning the :class:`ColoringStats` of colorings ``first .. first+count-1`` in order (see
        :func:`coloring_stats`)

    Returns
    -------
    pandas.DataFrame, one row per class hit by a sample, sorted by edge count then key: ``name``,
    ``key``, ``edges`` (as in :func:`la_gpm.census`), ``count`` (estimate), ``frequency`` (count over
    the estimated total), ``ci_low``, ``ci_high``, ``samples`` (hits), ``sigma`` (spanning trees),
    ``rel_halfwidth`` and ``reached`` (relative half-width <= eps).  ``df.attrs`` holds the totals and
    the guarantee: k, eps, delta, seed, colorings, samples, total, colorful_treelets, bound,
    converged, pending (classes above min_frequency that did not reach eps), elapsed_s.

    Examples
    --------
    >>> import la_gpm
    >>> from la_gpm.motif_estimate.driver import estimate_census
    >>> df = estimate_census(la_gpm.datasets.load("karate"), 3, seed=1)
    >>> list(df.name)
    ['wedge', 'triangle']
    """
    t0 = time.perf_counter()
    k, eps, delta, min_frequency, max_samples, max_colorings, spc, auto_spc, min_colorings = _check_census_args(
        k, eps, delta, min_frequency, max_samples, max_colorings, samples_per_coloring, min_colorings, time_budget,
        adaptive, natural_share, checkpoints, coloring)
    batch = _check_pos_int("batch", batch)
    if batch is None:
        raise InvalidArgument("batch must be a positive integer; got None")
    G = as_graph(G)
    G.require_undirected("estimate_census")
    if _colorings is None:
        be = resolve_backend(backend, supported=("cpu", "gpu"), what="estimate_census")
    elif backend in ("cpu", "gpu"):
        be = backend       # the colorings run elsewhere (on the workers): no device needed here
    else:
        raise InvalidArgument(f"backend must be 'cpu' or 'gpu'; got {backend!r}")
    if spc is None:
        spc = default_samples_per_coloring(be, k)
    s = resolve_seed(seed)
    memory_budget = _check_budget(memory_budget)
    engine = _gpu_sampler(G, k) if be == "gpu" and _colorings is None else None
    layout = None if _colorings is not None else table_layout(G, k, be, engine, memory_budget,
                                                              batch=_BATCH if auto_spc else min(_BATCH, spc))
    table_bytes = spilled_bytes = 0

    reg = _Registry(k)

    def local(first, count, spc_, left_, steer_):
        for jj in range(first, first + count):
            yield _one_coloring(G, k, s, jj, coloring, engine, reg, spc_, left_, steer_, adaptive, natural_share,
                                layout)

    run = local if _colorings is None else _colorings
    p = colorful_probability(G.n, k, coloring)
    cap = max_colorings if max_colorings is not None else DEFAULT_MAX_COLORINGS
    rec = _Record()
    drawn = 0
    converged = False
    bar = _progress_bar(progress, max_colorings, k)
    check = 0
    next_check = min_colorings
    pending_rows: list = []
    m = np.zeros(len(reg))
    ags_colorings = 0
    steered = 0
    t_build = t_sample = 0.0
    j = 0
    try:
        done = False
        while j < cap and not done:
            # one batch: colorings j .. j+nb-1 with the steering state (AGS rows, sample count) of now
            nb = min(batch, cap - j)
            steer = _steer_rows(reg, m, pending_rows) if adaptive else None
            left = None if max_samples is None else max_samples - drawn
            it = run(j, nb, spc, left, steer)
            try:
                for r in it:
                    if r.j != j:
                        raise RuntimeError(f"coloring {r.j} arrived where coloring {j} was due")
                    if max_samples is not None and r.samples > max_samples - drawn:
                        # the budget ran out inside the batch: this coloring again with the exact remainder
                        # (its samples are a prefix of the same stream), as a batch of one would have drawn it
                        r = _first(run(j, 1, spc, max_samples - drawn, steer))
                    h = r.hits if r.hits is not None else _hits_of_codes(reg, r.codes)
                    t_build += r.build_s
                    t_sample += r.sample_s
                    table_bytes = max(table_bytes, int(getattr(r, "table_bytes", 0)))
                    spilled_bytes = max(spilled_bytes, int(getattr(r, "spilled_bytes", 0)))
                    ags_colorings += r.steered
                    drawn += r.samples
                    j += 1
                    rec.add(h, max(r.samples, 1), r.qn, r.treelets)
                    if bar is not None:
                        bar.update(1)
                    # checks and steering
                    last = (max_samples is not None and drawn >= max_samples) or j >= cap or (
                        time_budget is not None and time.perf_counter() - t0 >= time_budget)
                    at_check = j >= next_check or last
                    steer_now = (adaptive or auto_spc) and j >= min(_AGS_PILOT, min_colorings) and \
                        j - steered >= max(1, j // 8)
                    if at_check or steer_now:
                        # checks at geometric checkpoints; check i spends delta/(i(i+1)) of the error
                        # probability (Σ = delta), so stopping at a check keeps the level 1 - delta.
                        # Between checks the same summary (at the next check's level) only steers AGS
                        # (recomputed after every j/8 colorings: its cost grows with the colorings).
                        steered = j
                        lvl = check + 1
                        summary = _summary(rec, reg, p, delta / (lvl * (lvl + 1)))
                        m, freq, rel = summary[0], summary[3], summary[4]
                        pending_rows = np.flatnonzero((freq >= min_frequency) & ~(rel <= eps)).tolist()
                        if auto_spc:
                            spc = _auto_samples(rec, reg, p, m, pending_rows, t_build / j, t_sample / max(drawn, 1))
                    if at_check:
                        check += 1
                        if _stop(G, k, rec, j, min_colorings, pending_rows):
                            converged = True
                            done = True
                            break
                        next_check = _next_check(rec, reg, p, m, pending_rows, eps, delta, check, j, checkpoints)
                    if last:
                        done = True
                        break
            finally:
                if hasattr(it, "close"):
                    it.close()       # the batch's colorings past the stop are not needed (cancelled on a cluster)
    except Exception as e:  # noqa: BLE001 -- re-raised; a failed device allocation as DeviceOutOfMemory
        if engine is not None:
            from ..device import raise_if_device_oom
            raise_if_device_oom(e, f"motif estimation on the GPU (k = {k}, coloring {j})")
        raise
    finally:
        if bar is not None:
            bar.close()
    global _last_record
    _last_record = (rec, reg, p)      # diagnostics (variance decomposition in the benchmark)
    df = _class_frame(reg, summary, eps)
    freq, rel = summary[3], summary[4]
    pending = [reg.names[i] for i in range(len(reg)) if freq[i] >= min_frequency and not rel[i] <= eps]
    df.attrs.update(k=k, eps=eps, delta=delta, seed=s, min_frequency=min_frequency, colorings=len(rec),
                    samples=int(drawn), total=float(m.sum()),
                    colorful_treelets=float(np.mean(rec.N)) if len(rec) else 0.0,
                    colorful_probability=p, converged=bool(converged and not pending), pending=pending,
                    adaptive=bool(adaptive), adaptive_colorings=ags_colorings,
                    samples_per_coloring="auto" if auto_spc else spc, build_s=t_build, sample_s=t_sample,
                    checkpoints=checkpoints, checks=check, coloring=coloring, batch=batch,
                    memory_budget=memory_budget, table_layout=None if layout is None else layout.kind,
                    table_chunks=None if layout is None else layout.chunks, table_bytes=table_bytes,
                    table_bytes_model=None if layout is None else layout.peak, table_spilled_bytes=spilled_bytes,
                    bound=("per class: Student-t interval over the per-coloring estimates (asymptotic, level "
                           "1 - delta), widened to the exact Poisson interval of the class's hits"),
                    method=("colorful treelets + " + ("adaptive graphlet sampling (Motivo AGS)" if adaptive
                                                      else "uniform sampling (Motivo)")),
                    backend=be, elapsed_s=time.perf_counter() - t0)
    _warn_unconverged(df)
    return df


def _first(it):
    """The first item of the iterator ``it`` (then closed)."""
    try:
        return next(iter(it))
    finally:
        if hasattr(it, "close"):
            it.close()


def _warn_unconverged(df) -> None:
    """One UserWarning when the run stopped before convergence and classes are left with ``reached=False``
    (after a converged run the rare classes below ``min_frequency`` may stay unreached by design)."""
    a = df.attrs
    if a.get("converged") or "reached" not in df.columns or bool(df["reached"].all()):
        return
    import warnings
    left = int((~df["reached"].astype(bool)).sum())
    pend = a.get("pending") or []
    warnings.warn(f"estimate_census stopped before convergence: {left} of {len(df)} classes did not reach "
                  f"eps={a.get('eps'):g} (reached=False), {len(pend)} of them at least min_frequency="
                  f"{a.get('min_frequency'):g} frequent, after {a.get('colorings')} colorings; their intervals are "
                  "valid but wider than asked: raise max_colorings, time_budget or max_samples, or use a larger "
                  "eps (or min_frequency)", UserWarning, stacklevel=3)
