"""numba builds shared by the families."""

from __future__ import annotations

import types

import numba as nb

__all__ = ["parallel_and_serial"]


def parallel_and_serial(fn):
    """``(parallel build, serial build)`` of one kernel body ``fn`` (``nb.prange`` runs as ``range`` in the
    serial one: no parallel region for small inputs), both cached on disk.

    The serial build compiles a copy of ``fn`` named ``<name>_serial``: numba names its disk cache after the
    function's qualified name and line, not after its options, so two builds of the same function share one
    cache entry, and whichever compiled first is loaded for both (measured: the parallel build of GAMMA's
    search ran single-threaded, CPU time = wall time)."""
    ser = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + "_serial", fn.__defaults__, fn.__closure__)
    ser.__qualname__ = fn.__qualname__ + "_serial"
    ser.__module__ = fn.__module__
    ser.__doc__ = fn.__doc__
    return nb.njit(parallel=True, cache=True)(fn), nb.njit(cache=True)(ser)
