"""Deprecated path: the names of ``la_gpm.algorithms.subgraph`` now live in ``la_gpm.api`` and ``la_gpm.exact``."""

from ._moved import forward

__getattr__ = forward(__name__, ('la_gpm.api', 'la_gpm.exact'))
