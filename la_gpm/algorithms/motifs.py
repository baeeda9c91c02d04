"""Deprecated path: the names of ``la_gpm.algorithms.motifs`` now live in ``la_gpm.motifs``."""

from ._moved import forward

__getattr__ = forward(__name__, ('la_gpm.motifs',))
