"""Deprecated path: the names of ``la_gpm.algorithms.triangles`` now live in ``la_gpm.triangles``."""

from ._moved import forward

__getattr__ = forward(__name__, ('la_gpm.triangles',))
