"""Deprecated path: the names of ``la_gpm.algorithms.cliques`` now live in ``la_gpm.kcliques``."""

from ._moved import forward

__getattr__ = forward(__name__, ('la_gpm.kcliques',))
