"""The GPU layer every family shares: the CuPy handle, kernel loading and device copies of graphs.

Each family keeps its kernels (real ``.cu`` files) beside its host code; they include ``common.cuh`` from here and are compiled through
``cupy.RawModule`` once per device and memoized.  Importing this module needs CuPy.
"""

from __future__ import annotations

import contextlib
import functools
from importlib import resources

from ..config import config
from ..exceptions import BackendUnavailable, DeviceOutOfMemory

INCLUDE_DIR = resources.files("la_gpm.device")  # common.cuh: the searches and warp helpers every kernel shares


_CP = None   # the cupy module once a device was seen (a process keeps its devices)


def cupy():
    """The cupy module; BackendUnavailable with the reason where no device can be used."""
    if _CP is not None:
        return _CP
    return _first_cupy()


def _first_cupy():
    global _CP
    from ..backends import gpu_status

    reason = gpu_status()
    if reason is not None:
        raise BackendUnavailable(f"backend 'gpu' is unavailable: {reason}")
    import cupy as cp
    _CP = cp
    return cp


@functools.lru_cache(maxsize=None)
def _module(package: str, name: str, device: int, options: tuple):
    import logging
    cp = cupy()
    here = resources.files(package)
    src = here.joinpath(name + ".cu").read_text()
    logging.getLogger("la_gpm").info("compiling %s/%s.cu for device %d (once per process; CuPy caches it on disk)",
                                     package, name, device)
    with cp.cuda.Device(device):
        mod = cp.RawModule(code=src, options=("-std=c++17", f"-I{INCLUDE_DIR}", f"-I{here}") + options)
        mod.compile()
        return mod


def kernel(package: str, file: str, name: str, options: tuple = ()):
    """The compiled kernel ``name`` of ``<package>/<file>.cu`` (each family keeps its kernels beside its
    host code, e.g. ``kernel(__package__, "cliques", "clique_count_warp")``) on the current device,
    with ``la_gpm/device`` (common.cuh) and the family's folder on the include path; memoized per device
    (the function object too: CuPy builds a new one on each ``get_function``)."""
    return _function(package, file, name, cupy().cuda.runtime.getDevice(), tuple(options))


@functools.lru_cache(maxsize=None)
def _function(package: str, file: str, name: str, device: int, options: tuple):
    return _module(package, file, device, options).get_function(name)


def block_size() -> int:
    """Threads per block of the kernels whose block size is free (grid-stride and warp-per-item kernels):
    ``la_gpm.config.gpu_block`` rounded down to whole warps, within 32..1024. Tests shrink it to cross block
    edges; kernels with a fixed shape (launch bounds, shared-memory tiles) keep theirs."""
    return min(max(32, (int(config.gpu_block) // 32) * 32), 1024)


@functools.lru_cache(maxsize=None)
def device_attribute(device: int, attr: int) -> int:
    """The ``cudaDeviceAttr`` number ``attr`` of CUDA device ``device`` (cached: ``cupy.cuda.Device.attributes``
    queries every attribute on each call)."""
    return int(cupy().cuda.runtime.deviceGetAttribute(attr, device))


def device_sm_count(device: int) -> int:
    """Multiprocessors of CUDA device ``device``."""
    return device_attribute(device, 16)      # cudaDevAttrMultiProcessorCount


def sm_count() -> int:
    """Multiprocessors of the current device."""
    return device_sm_count(cupy().cuda.runtime.getDevice())


def smem_optin() -> int:
    """The shared memory one block may opt in to on the current device (H100, H200: 227 KB)."""
    return device_attribute(cupy().cuda.runtime.getDevice(), 97)   # cudaDevAttrMaxSharedMemoryPerBlockOptin


def smem_per_sm() -> int:
    """Shared memory per multiprocessor on the current device (H100, H200: 228 KB)."""
    return device_attribute(cupy().cuda.runtime.getDevice(), 81)   # cudaDevAttrMaxSharedMemoryPerMultiprocessor




_HOST_ALIGN = 1 << 16     # the device / host boundary of a managed array, in bytes (whole CPU pages)


def managed_array(shape, dtype, device_bytes: int):
    """A CuPy array in CUDA managed memory whose first ``device_bytes`` bytes (rounded down to 64 KiB) stay
    on the current device (preferred there and prefetched) and the rest in host memory, mapped for the device:
    kernels read and write those bytes in place over the bus and the driver does not migrate them (the device
    memory they would take is not used).  Host-preferred advice goes through the driver's ``cuMemAdvise_v2``
    (CUDA 12.2+; the runtime's ``cudaCpuDeviceId`` form before that).  BackendUnavailable where the device
    cannot access managed memory while kernels run (``concurrentManagedAccess``: e.g. Windows, WSL)."""
    import numpy as np
    cp = cupy()
    rt = cp.cuda.runtime
    dev = rt.getDevice()
    if not device_attribute(dev, 89):                # cudaDevAttrConcurrentManagedAccess
        raise BackendUnavailable("host-held tables need managed memory the device reads while kernels run "
                                 "(concurrentManagedAccess), which this device or system lacks: raise the memory "
                                 "budget or use the cpu backend")
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    mem = cp.cuda.malloc_managed(max(nbytes, 1))
    ptr = int(mem.ptr)
    d = min(nbytes, max(0, int(device_bytes)) // _HOST_ALIGN * _HOST_ALIGN)
    if d:
        rt.memAdvise(ptr, d, rt.cudaMemAdviseSetPreferredLocation, dev)
        rt.memPrefetchAsync(ptr, d, dev, cp.cuda.get_current_stream().ptr)
    if nbytes > d:
        _advise_host(cp, ptr + d, nbytes - d)
        rt.memAdvise(ptr + d, nbytes - d, rt.cudaMemAdviseSetAccessedBy, dev)
    return cp.ndarray(shape, dtype, memptr=mem)


@functools.lru_cache(maxsize=1)
def _cu_mem_advise_v2():
    """The driver's ``cuMemAdvise_v2`` through ctypes (None where the driver lacks it)."""
    import ctypes
    import ctypes.util

    class Location(ctypes.Structure):            # CUmemLocation: {CUmemLocationType type; int id}
        _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("cuda") or "libcuda.so.1")
        f = lib.cuMemAdvise_v2
    except (OSError, AttributeError):
        return None
    f.argtypes = [ctypes.c_uint64, ctypes.c_size_t, ctypes.c_int, Location]
    f.restype = ctypes.c_int
    return lambda ptr, nbytes, advice, loc_type, loc_id: f(ptr, nbytes, advice, Location(loc_type, loc_id))


def _advise_host(cp, ptr: int, nbytes: int) -> None:
    """Managed bytes [ptr, ptr + nbytes) preferred in host memory (CU_MEM_ADVISE_SET_PREFERRED_LOCATION = 3 at
    CU_MEM_LOCATION_TYPE_HOST = 2); without the advice the driver would migrate them to the device on touch."""
    f = _cu_mem_advise_v2()
    if f is not None and f(ptr, nbytes, 3, 2, 0) == 0:
        return
    rt = cp.cuda.runtime
    try:
        rt.memAdvise(ptr, nbytes, rt.cudaMemAdviseSetPreferredLocation, rt.cudaCpuDeviceId)
    except rt.CUDARuntimeError as e:
        raise BackendUnavailable(f"managed memory could not be advised to stay in host memory ({e}): raise the "
                                 "memory budget or use the cpu backend") from None


def headroom_bytes() -> int:
    """Device memory the current device can still give: its free memory and the free blocks of CuPy's pool, less
    1/16 and 256 MiB for CuPy's own allocations (may be negative on a nearly full device)."""
    cp = cupy()
    free = int(cp.cuda.runtime.memGetInfo()[0]) + int(cp.get_default_memory_pool().free_bytes())
    return free - free // 16 - (256 << 20)


def is_device_oom(e: BaseException) -> bool:
    """Whether ``e`` is a failed device allocation, in any of the forms CuPy and the libraries under it
    report one: the pool's OutOfMemoryError, thrust's ``std::bad_alloc`` (``cupy.sort``/``argsort``),
    and the runtime's / driver's out-of-memory status (CUB, cuSPARSE, module loads)."""
    import cupy as cp
    if isinstance(e, DeviceOutOfMemory):
        return False
    if isinstance(e, cp.cuda.memory.OutOfMemoryError):
        return True
    if type(e) is MemoryError:
        return "bad_alloc" in str(e)
    from cupy_backends.cuda.api import driver, runtime
    if isinstance(e, (runtime.CUDARuntimeError, driver.CUDADriverError)):
        return "MemoryAllocation" in str(e) or "OUT_OF_MEMORY" in str(e)
    return False


def raise_if_device_oom(e: BaseException, what: str) -> None:
    """Raise DeviceOutOfMemory with advice (from None) when ``e`` is a failed device allocation."""
    if is_device_oom(e):
        raise DeviceOutOfMemory(f"{what} ran out of GPU memory ({e}); lower la_gpm.config.memory_budget "
                                "or run on a smaller graph / the cpu backend") from None


@contextlib.contextmanager
def oom_guard(what: str):
    """Turn a failed device allocation (:func:`is_device_oom`) into DeviceOutOfMemory with advice."""
    try:
        yield
    except Exception as e:  # noqa: BLE001 -- re-raised unchanged unless it is a device allocation failure
        raise_if_device_oom(e, what)
        raise


def device_csr(G, which: str = "A"):
    """(ptr int64, idx int32) on the current device of the graph (``A``), its oriented DAG (``D``)
    or the DAG renamed by degree rank (``R``)."""
    cp = cupy()
    dev = cp.cuda.Device().id
    host = {"A": lambda: (G.indptr, G.indices), "D": G.oriented, "R": G.oriented_ranked}[which]

    def make():
        p, i = host()
        with oom_guard("copying the graph to the GPU"):
            return cp.asarray(p), cp.asarray(i)
    return G.device_cache(f"gpu:{dev}:{which}", make)


def device_arc_table(G, name: str, what: str, build):
    """Per-graph device data derived from the arcs of the rank-ordered DAG, built once per device
    and kept with the graph: ``build(ptr, idx, src, narcs)`` runs under ``oom_guard(what)``."""
    cp = cupy()
    dev = cp.cuda.Device().id

    def make():
        ptr, idx = device_csr(G, "R")
        src = device_arc_sources(G, "R")
        with oom_guard(what):
            return build(ptr, idx, src, int(idx.shape[0]))
    return G.device_cache(f"gpu:{dev}:R:{name}", make)


def device_arc_sources(G, which: str = "D"):
    """Source vertex of every arc of the CSR ``which`` (int32), on the device."""
    cp = cupy()
    dev = cp.cuda.Device().id

    def make():
        ptr, idx = device_csr(G, which)
        n = ptr.shape[0] - 1
        with oom_guard("building arc sources"):
            return cp.repeat(cp.arange(n, dtype=cp.int32), cp.diff(ptr).astype(cp.int64))
    return G.device_cache(f"gpu:{dev}:{which}:src", make)


def with_scratch(calls, scratch):
    """``calls`` (function, grid, block, args, shared memory bytes) with the work buffer ``scratch`` = (call, argument,
    elements, dtype, words for its out-of-memory error) taken from CuPy's pool (uninitialised) and put in as that
    argument (the binding holds None there)."""
    i, a, n, dtype, what = scratch
    f, grid, block, args, smem = calls[i]
    with oom_guard(what):
        buf = cupy().empty(n, dtype=dtype)
    return calls[:i] + ((f, grid, block, args[:a] + (buf,) + args[a + 1:], smem),) + calls[i + 1:]


class Launches:
    """Kernel calls bound once -- (function, grid, block, args, shared memory bytes) each -- that write one device
    buffer ``out`` from zero: a repeat call runs only them (:func:`la_gpm.engines.repeatable`).  A call zeroes
    ``out`` (asynchronously), launches the calls in order on the current stream, reads ``out`` back and returns
    ``result(host copy)`` (the count as a Python int; it may raise, e.g. on an overflow flag); the lock keeps two
    threads from sharing ``out`` at once.  ``device``: the device they were bound on (the caller checks it is
    still the current one).  ``scratch``: a work buffer taken from the pool at each call (:func:`with_scratch`), so
    that a kept count holds no large buffer of its own (the clique kernel's stacks: up to config.memory_budget)."""

    __slots__ = ("device", "out", "calls", "result", "scratch", "lock")

    def __init__(self, device: int, out, calls, result, scratch=None):
        import threading
        self.device, self.out, self.calls, self.result, self.scratch = device, out, tuple(calls), result, scratch
        self.lock = threading.Lock()

    def __call__(self) -> int:
        with self.lock:
            calls = self.calls if self.scratch is None else with_scratch(self.calls, self.scratch)
            self.out.data.memset_async(0, self.out.nbytes)
            for f, grid, block, args, smem in calls:
                f(grid, block, args, shared_mem=smem)
            return self.result(self.out.get())
