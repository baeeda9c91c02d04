"""Deprecated path: the names of ``la_gpm.algorithms.motif_estimate`` now live in ``la_gpm.motif_estimate``."""

from ._moved import forward

__getattr__ = forward(__name__, ('la_gpm.motif_estimate',))
