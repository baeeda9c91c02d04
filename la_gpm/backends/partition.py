"""Work-balanced partitions of root vertices: the unit of distribution (``la_gpm.distributed``).

A count is a sum over root vertices (the first vertex of the matching order, or the source of a
DAG arc); ``part=(i, nparts)`` selects the i-th of ``nparts`` consecutive root ranges of about equal
estimated work, so the parts' counts add up to the whole count whatever the backend of each part.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidArgument


def check_part(part):
    """``(i, nparts)`` validated as ints, or None."""
    if part is None:
        return None
    try:
        i, n = part
    except (TypeError, ValueError):
        raise InvalidArgument(f"part must be a pair (i, nparts); got {part!r}") from None
    ok = all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in (i, n))
    if not ok or n < 1 or not 0 <= i < n:
        raise InvalidArgument(f"part must be (i, nparts) with 0 <= i < nparts; got {part!r}")
    return int(i), int(n)


def part_range(weights: np.ndarray, part) -> tuple[int, int]:
    """The half-open index range ``[lo, hi)`` of ``weights`` (one per root, in order) that part
    ``(i, nparts)`` covers; consecutive parts tile ``[0, len(weights))``.

    >>> [part_range(np.array([1.0, 1, 1, 1, 4]), (i, 2)) for i in range(2)]
    [(0, 4), (4, 5)]
    """
    i, n = check_part(part)
    m = int(weights.shape[0])
    if n == 1 or m == 0:
        return (0, m) if i == 0 else (m, m)
    cum = np.cumsum(np.asarray(weights, dtype=np.float64) + 1e-9)
    cuts = np.minimum(np.searchsorted(cum, cum[-1] * np.arange(1, n) / n, side="left") + 1, m)
    bounds = np.concatenate([[0], cuts, [m]]).astype(np.int64)
    bounds = np.maximum.accumulate(bounds)
    return int(bounds[i]), int(bounds[i + 1])


def rank_range(G, part) -> tuple[int, int]:
    """The range ``[lo, hi)`` of degree ranks (the orientation order) that part ``(i, nparts)`` of a
    DAG-rooted count covers, weighted by out-degree squared: one definition for every backend, so
    the parts of one count may run on different backends and still add up to the whole."""
    hp, _ = G.oriented_ranked()
    return part_range(np.diff(hp).astype(np.float64) ** 2, part)
