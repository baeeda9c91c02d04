"""Deprecated path: the names of ``la_gpm.algorithms.color_coding`` now live in ``la_gpm.color_coding``."""

from ._moved import forward

__getattr__ = forward(__name__, ('la_gpm.color_coding',))
