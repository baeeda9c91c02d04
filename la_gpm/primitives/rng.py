"""Counter-based random numbers shared by every numba kernel (and mirrored in CUDA).

SplitMix64 (Steele, Lea & Flood 2014) of a counter: results depend on the seed and the
counter only, never on thread count or batch size, so CPU and GPU draw the same numbers.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(inline="always")
def splitmix64(x):
    """SplitMix64 finaliser of a uint64 (wrapping arithmetic)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))
