"""No silent compile: one line on stderr when a call compiles la_gpm's numba kernels.

Every kernel is ``@nb.njit(cache=True)``: the first process that needs one compiles it (seconds to a minute
on a few cores) and numba writes it to its disk cache (``__pycache__`` beside the source, or
``NUMBA_CACHE_DIR``); every later process loads it from there in milliseconds.  That first compile is the only
slow first call left, so it is announced: numba fires a ``numba:compile`` event when, and only when, a
dispatcher misses both its in-memory overloads and the disk cache and starts compiling; the listener
installed here turns the start of such a compile of a ``la_gpm`` kernel (not of a kernel it calls, not of
other libraries' numba code) into a :class:`la_gpm.CompileNotice` warning pointing at the caller's line.  A
warm call (kernel in memory or on disk) fires no event, so it costs nothing and prints nothing.

One notice per call (the kernels a call compiles one after another share the calling line); the warning goes
through :mod:`warnings`, so
``warnings.filterwarnings("ignore", category=la_gpm.CompileNotice)`` silences it; :func:`quiet` does so for a
block (``la_gpm.warmup`` shows its own progress bar instead).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import warnings

from ..exceptions import CompileNotice

__all__ = ["MESSAGE", "install", "quiet", "compiling", "notice"]

MESSAGE = ("la_gpm: compiling numba kernels for this call, once: they are cached on disk and load in well under a "
           "second in later processes; pre-pay it with la_gpm.warmup() or `la-gpm warmup` (docs/first_call.md)")

# frames of these top-level packages are skipped: the notice points at the caller's own line
_INSIDE = ("la_gpm", "_la_gpm_nx", "numba", "networkx", "importlib", "contextlib", "functools", "threading")

_state = threading.local()
_installed = []


def _depth() -> int:
    return getattr(_state, "depth", 0)


def _caller() -> tuple[int, tuple]:
    """(``stacklevel`` of :func:`warnings.warn` called from :meth:`_Listener.on_start`, key of the call): the first
    frame outside la_gpm, numba and the machinery between them (the user's line)."""
    f = sys._getframe(2)   # the caller of on_start (numba's event trigger): stacklevel 2 of on_start's warn
    level = 2
    while f is not None:
        name = f.f_globals.get("__name__", "") or ""
        if name.split(".", 1)[0] not in _INSIDE and not f.f_code.co_filename.startswith("<frozen"):
            return level, (id(f), id(f.f_code), f.f_lasti)
        f = f.f_back
        level += 1
    return 1, ()


def _ours(event) -> bool:
    d = event.data.get("dispatcher") if isinstance(event.data, dict) else None
    mod = getattr(getattr(d, "py_func", None), "__module__", "") or ""
    return mod == "la_gpm" or mod.startswith("la_gpm.")


def _make_listener():
    from numba.core import event as ev

    class _Listener(ev.Listener):
        def on_start(self, event):
            if not _ours(event):
                return
            depth = _depth()
            _state.depth = depth + 1
            _state.compiles = getattr(_state, "compiles", 0) + 1
            if depth == 0 and not getattr(_state, "quiet", 0):
                level, key = _caller()
                # one notice per call: a call compiles its kernels one after another, all from the same
                # calling line (numba's own catch_warnings resets the warnings registry, so it cannot tell)
                if key != getattr(_state, "last", None):
                    _state.last = key
                    warnings.warn(MESSAGE, CompileNotice, stacklevel=level)

        def on_end(self, event):
            if _ours(event):
                _state.depth = max(0, _depth() - 1)

    return ev, _Listener()


def install() -> None:
    """Listen to numba's compile events (once per process; ``import la_gpm`` calls it)."""
    if _installed:
        return
    ev, listener = _make_listener()
    ev.register("numba:compile", listener)
    _installed.append(listener)


def compiling() -> int:
    """How many la_gpm kernels (nested ones included) this thread has compiled so far (cache misses)."""
    return getattr(_state, "compiles", 0)


def notice(message: str) -> None:
    """A :class:`CompileNotice` with ``message``, pointing at the caller's own line (the first frame outside la_gpm),
    unless :func:`quiet`: for first-use work that is not numba's (the GPU colour coding's kernel choice)."""
    if getattr(_state, "quiet", 0):
        return
    level, _key = _caller()
    warnings.warn(message, CompileNotice, stacklevel=level)


@contextlib.contextmanager
def quiet():
    """No :class:`CompileNotice` from this thread inside the block (compiles still happen and are counted)."""
    _state.quiet = getattr(_state, "quiet", 0) + 1
    try:
        yield
    finally:
        _state.quiet -= 1
