"""Backends behind one small protocol.

``cpu`` (numpy / scipy / numba), ``graphblas`` (python-graphblas / SuiteSparse) and
``gpu`` (CuPy + custom CUDA kernels).  A call picks ``backend=`` first, then
``la_gpm.config.backend`` (env ``LA_GPM_BACKEND``), then ``auto``.  ``auto`` picks
the GPU when a device is visible and the algorithm has a GPU version, else the CPU.
Optional imports stay inside their backend module.
"""

from __future__ import annotations

import functools

from .config import BACKENDS, config
from .exceptions import BackendUnavailable, InvalidArgument

__all__ = ["available_backends", "resolve_backend", "gpu_status", "graphblas_status"]


@functools.lru_cache(maxsize=1)
def graphblas_status() -> str | None:
    """None when python-graphblas works, else the reason it does not."""
    try:
        import graphblas  # noqa: F401
    except ImportError as e:
        return f"python-graphblas is not installed ({e}); pip install python-graphblas"
    return None


@functools.lru_cache(maxsize=1)
def gpu_status() -> str | None:
    """None when CuPy sees a CUDA device, else the reason the gpu backend cannot run."""
    try:
        import cupy
    except ImportError as e:
        return f"CuPy is not installed ({e}); pip install 'la-gpm[gpu]' (cupy-cuda13x)"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001 -- CUDA raises several driver error types
        return f"CuPy is installed but no CUDA device is usable: {e}"
    if n < 1:
        return "CuPy is installed but no CUDA device is visible"
    return None


def available_backends() -> list[str]:
    """The backends that can run here, e.g. ``['cpu', 'graphblas']``."""
    out = ["cpu"]
    if graphblas_status() is None:
        out.append("graphblas")
    if gpu_status() is None:
        out.append("gpu")
    return out


def resolve_backend(backend: str | None, supported=("cpu", "graphblas", "gpu"), what: str = "this call",
                    auto: str | None = None) -> str:
    """The concrete backend for a call; raises BackendUnavailable with the reason.

    ``auto``: what ``"auto"`` means for this algorithm when its measurements say so (e.g. ``"cpu"``);
    by default the GPU when one is visible and supported, else the CPU."""
    b = config.backend if backend is None else backend
    if b not in BACKENDS:
        raise InvalidArgument(f"backend must be one of {BACKENDS}; got {b!r}")
    if b == "auto" and auto is not None:
        return auto
    if b == "auto":
        if "gpu" in supported and gpu_status() is None:
            return "gpu"
        return "cpu" if "cpu" in supported else supported[0]
    if b not in supported:
        raise BackendUnavailable(f"{what} has no {b!r} implementation; supported backends: {list(supported)}")
    reason = {"gpu": gpu_status, "graphblas": graphblas_status}.get(b, lambda: None)()
    if reason is not None:
        raise BackendUnavailable(f"backend {b!r} is unavailable: {reason}")
    return b


def usable_host_memory() -> int | None:
    """Bytes of host memory a computation may take now: seven eighths of what the system says is available
    (``MemAvailable`` of /proc/meminfo), None where it does not say (other systems)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024 // 8 * 7
    except (OSError, ValueError, IndexError):
        return None
    return None
