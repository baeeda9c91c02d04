"""Motivo: estimated motif frequencies by colorful treelet sampling, with adaptive graphlet sampling (AGS).

:func:`estimate_census` estimates every connected k-vertex class (k <= 8) with per-class intervals.
"""

from .driver import MAX_ESTIMATE_K, estimate_census
from .shapes import rooted_shapes, spanning_trees

__all__ = ["estimate_census", "rooted_shapes", "spanning_trees", "MAX_ESTIMATE_K"]
