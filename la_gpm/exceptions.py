"""The named exceptions of la_gpm.

Every error the library raises on purpose derives from :class:`LaGpmError`, so a
pipeline can catch one type.  Each message says what was received and what to do.
"""

from __future__ import annotations

__all__ = [
    "LaGpmError",
    "InvalidGraph",
    "GraphFormatError",
    "InvalidPattern",
    "PatternTooLarge",
    "LabelMismatch",
    "BackendUnavailable",
    "DeviceOutOfMemory",
    "MemoryBudgetTooSmall",
    "InvalidArgument",
    "InvalidUpdate",
    "CensusTooLarge",
    "CompileNotice",
]


class LaGpmError(Exception):
    """Base class of every error raised by la_gpm."""


class InvalidArgument(LaGpmError, ValueError):
    """An argument has the wrong type, shape or value."""


class InvalidGraph(LaGpmError, ValueError):
    """The object passed as a graph cannot be turned into a Graph."""


class GraphFormatError(InvalidGraph):
    """A graph file is malformed; the message names the file and the line."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f", line {line}"
            where += ": "
        super().__init__(where + message)
        self.path = path
        self.line = line


class InvalidPattern(LaGpmError, ValueError):
    """The pattern is malformed (disconnected, unknown name, bad edges)."""


class PatternTooLarge(InvalidPattern):
    """The pattern has more vertices than the requested operation supports."""


class LabelMismatch(LaGpmError, ValueError):
    """Labels on the pattern and the graph do not fit together."""


class BackendUnavailable(LaGpmError, RuntimeError):
    """The requested backend cannot run here, or declines this request; the message says why."""


class DeviceOutOfMemory(LaGpmError, MemoryError):
    """The GPU ran out of memory; lower ``memory_budget`` or use a smaller batch."""


class MemoryBudgetTooSmall(LaGpmError, MemoryError):
    """A memory budget is below the smallest piece the computation can run in; the message (and ``needed``) says
    which budget would do, ``budget`` is the one given."""

    def __init__(self, message: str, needed: int | None = None, budget: int | None = None):
        super().__init__(message)
        self.needed = needed
        self.budget = budget


class CensusTooLarge(LaGpmError, RuntimeError):
    """An exact census is predicted to enumerate for longer than its guard allows (``census(G, 8)``); the
    message gives the prediction and the ways on (``estimate_census``, or ``guard=False``)."""


class InvalidUpdate(InvalidArgument):
    """A batch of edge updates is malformed (shape, unknown vertex, missing labels) or, with
    ``strict=True``, asks for something the graph cannot do (insert an existing edge, delete a
    missing one, a self-loop, a pair both inserted and deleted).  The graph is left unchanged."""


class CompileNotice(UserWarning):
    """Not an error: a call is compiling numba kernels that are not yet in numba's disk cache (the first use
    of a kind of call on this machine, seconds to a minute; later processes load them from disk), or timing the
    GPU colour coding's SpMM kernels on a graph it has not seen (once per graph and template size).
    ``la_gpm.warmup()`` or ``la-gpm warmup`` pre-pays it; ``warnings.filterwarnings("ignore",
    category=la_gpm.CompileNotice)`` silences it (docs/first_call.md)."""
