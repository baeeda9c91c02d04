"""Deprecated path: the names of ``la_gpm.algorithms.match`` now live in ``la_gpm.exact``."""

from ._moved import forward

__getattr__ = forward(__name__, ('la_gpm.exact',))
