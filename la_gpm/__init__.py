"""la_gpm: counting patterns in graphs with linear algebra, on CPU and GPU.

Simple tier: :func:`count`, :func:`estimate`, :func:`census`, :func:`match`.
Advanced tier: :mod:`la_gpm.algorithms`.
"""

from . import algorithms, datasets, generators, patterns
from ._validation import as_graph
from .algorithms.triangles import triangle_count, triangles_per_vertex
from .api import count
from .backends import available_backends
from .config import config
from .exceptions import (BackendUnavailable, DeviceOutOfMemory, GraphFormatError, InvalidArgument, InvalidGraph,
                         InvalidPattern, LabelMismatch, LaGpmError, PatternTooLarge)
from .graph import Graph
from .io import read_graph
from .patterns import Pattern

__version__ = "0.1.0"

__all__ = [
    "Graph", "Pattern", "as_graph", "read_graph", "count", "triangle_count", "triangles_per_vertex",
    "available_backends", "config", "datasets", "generators", "patterns", "algorithms",
    "LaGpmError", "InvalidGraph", "GraphFormatError", "InvalidPattern", "PatternTooLarge", "LabelMismatch",
    "BackendUnavailable", "DeviceOutOfMemory", "InvalidArgument",
]
