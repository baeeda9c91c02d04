"""numba builds shared by the families."""

from __future__ import annotations

import hashlib
import os
import types

import numba as nb

__all__ = ["parallel_and_serial", "flush_when_changed"]


def parallel_and_serial(fn):
    """``(parallel build, serial build)`` of one kernel body ``fn`` (``nb.prange`` runs as ``range`` in the
    serial one: no parallel region for small inputs), both cached on disk.

    The serial build compiles a copy of ``fn`` named ``<name>_serial``: numba names its disk cache after the
    function's qualified name and line, not after its options, so two builds of the same function share one
    cache entry, and whichever compiled first is loaded for both (measured: the parallel build of GAMMA's
    search ran single-threaded, CPU time = wall time)."""
    return nb.njit(parallel=True, cache=True)(fn), nb.njit(cache=True)(renamed_copy(fn, "_serial"))


def renamed_copy(fn, suffix: str, constants: dict | None = None):
    """A copy of the Python function ``fn`` named ``<name><suffix>`` (so that numba caches its build apart, see
    :func:`parallel_and_serial`), its module-level names ``constants`` replaced (compile-time constants of that
    build); ``fn`` may be a numba dispatcher (its Python function is copied)."""
    fn = getattr(fn, "py_func", fn)
    g = fn.__globals__
    if constants:
        g = dict(g)
        g.update(constants)
    cp = types.FunctionType(fn.__code__, g, fn.__name__ + suffix, fn.__defaults__, fn.__closure__)
    cp.__qualname__ = fn.__qualname__ + suffix
    cp.__module__ = fn.__module__
    cp.__doc__ = fn.__doc__
    return cp


def flush_when_changed(namespace: dict, *deps) -> None:
    """Drop the disk-cache entries of the cached numba functions in ``namespace`` (a module's ``globals()``) when a
    file of the modules ``deps`` changed since they were cached.

    numba keys a function's disk cache by its own source file only: a kernel that compiles in functions or
    constants of other modules (the small-batch lane composes the dynamic passes of four modules; the search
    reads the plan-field numbers of ``query.py``) keeps its old build when only those modules change, as in an
    editable install under development (measured: the lane returned the old search's counts after an edit of
    ``cpu.py``). A stamp of the dependencies' (path, mtime, size) is kept beside the cache; at import, when it
    differs, the functions' cache indexes are flushed and they compile again on first use."""
    h = hashlib.sha1()
    for m in deps:
        try:
            st = os.stat(m.__file__)
        except (OSError, AttributeError, TypeError):
            return
        h.update(f"{m.__name__}:{st.st_mtime_ns}:{st.st_size};".encode())
    stamp = h.hexdigest()
    for name, obj in list(namespace.items()):
        cache = getattr(obj, "_cache", None)
        path = getattr(cache, "cache_path", None)
        if not path or getattr(obj, "py_func", None) is None or obj.py_func.__module__ != namespace.get("__name__"):
            continue
        f = os.path.join(path, f"{obj.py_func.__module__}.{obj.py_func.__qualname__}.deps")
        try:
            with open(f) as fh:
                if fh.read() == stamp:
                    continue
        except OSError:
            pass
        try:
            cache.flush()
            with open(f, "w") as fh:
                fh.write(stamp)
        except OSError:          # a read-only cache folder: numba then uses its own fallback
            pass
