"""la_gpm: counting patterns in graphs with linear algebra, on CPU and GPU.

Simple tier: :func:`count`, :func:`estimate`, :func:`census`, :func:`match`, :func:`match_delta`.
Every option: :mod:`la_gpm.api` (``count_pattern``, ``count_many``) and one folder per algorithm family
(:mod:`la_gpm.triangles`, :mod:`la_gpm.kcliques`, :mod:`la_gpm.exact`, :mod:`la_gpm.motifs`,
:mod:`la_gpm.color_coding`, :mod:`la_gpm.motif_estimate`, :mod:`la_gpm.dynamic`); which engine counts a pattern
is decided by :mod:`la_gpm.engines` (``la_gpm.engines.explain(G, P)`` says why). See docs/architecture.md.
"""

from . import datasets, generators, patterns
from .validation import as_graph
from .triangles import triangle_count, triangles_per_vertex
from .api import count, count_many
from .backends import available_backends
from .config import config
from .exceptions import (BackendUnavailable, CensusTooLarge, CompileNotice, DeviceOutOfMemory, GraphFormatError,
                         InvalidArgument, InvalidGraph, InvalidPattern, InvalidUpdate, LabelMismatch, LaGpmError,
                         MemoryBudgetTooSmall, PatternTooLarge)
from .graph import Graph
from .io import read_graph
from .patterns import Pattern
from .primitives import compile_notice as _compile_notice

_compile_notice.install()   # one line on stderr when a call compiles kernels (docs/first_call.md)

__version__ = "0.1.0"

# Algorithms with heavier imports load on first use.
_LAZY = {
    "cliques": ("la_gpm.kcliques", "clique_count"),
    "census": ("la_gpm.motifs", "census"),
    "orbits": ("la_gpm.motifs", "orbits"),
    "match": ("la_gpm.exact", "match"),
    "estimate": ("la_gpm.color_coding", "estimate"),
    "Estimate": ("la_gpm.color_coding", "Estimate"),
    "colorful_count": ("la_gpm.color_coding", "colorful_count"),
    "tree_census": ("la_gpm.color_coding", "tree_census"),
    "free_trees": ("la_gpm.color_coding", "free_trees"),
    "estimate_census": ("la_gpm.motif_estimate", "estimate_census"),
    "plot_census": ("la_gpm.plot", "plot_census"),
    "match_delta": ("la_gpm.dynamic", "match_delta"),
    "warmup": ("la_gpm.first_call", "warmup"),
    "DynamicGraph": ("la_gpm.dynamic", "DynamicGraph"),
    "DiPattern": ("la_gpm.motifs.directed_count", "DiPattern"),
    "MatchDelta": ("la_gpm.dynamic", "MatchDelta"),
    "StreamDelta": ("la_gpm.dynamic", "StreamDelta"),
}


# Deprecated module path (one release): la_gpm.algorithms.* forwards to the family folders.
_LAZY_MODULES = ("algorithms",)


def __getattr__(name):
    # the value is kept in the module's namespace: later lookups find it without calling this (3 µs each)
    if name in _LAZY_MODULES:
        import importlib
        value = importlib.import_module(f"la_gpm.{name}")
    elif name in _LAZY:
        import importlib
        mod, attr = _LAZY[name]
        value = getattr(importlib.import_module(mod), attr)
    else:
        raise AttributeError(f"module 'la_gpm' has no attribute {name!r}")
    globals()[name] = value
    return value

__all__ = [
    "Graph", "Pattern", "as_graph", "read_graph", "count", "count_many", "triangle_count", "triangles_per_vertex",
    "available_backends", "config", "datasets", "generators", "patterns", "algorithms",
    "LaGpmError", "InvalidGraph", "GraphFormatError", "InvalidPattern", "PatternTooLarge", "LabelMismatch",
    "BackendUnavailable", "DeviceOutOfMemory", "InvalidArgument", "InvalidUpdate", "CensusTooLarge", "CompileNotice",
    "MemoryBudgetTooSmall",
] + list(_LAZY)
