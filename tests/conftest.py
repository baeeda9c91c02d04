"""Shared fixtures: a ``backend`` fixture over every backend, data paths, known counts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import la_gpm
from la_gpm.backends import gpu_status, graphblas_status

# ../shared/data beside the checkout; LA_GPM_SHARED_DATA overrides (the GPU machine gets a carried copy)
DATA = Path(os.environ.get("LA_GPM_SHARED_DATA") or Path(__file__).resolve().parents[1].parent / "shared" / "data")


def _poison_device_memory():
    """``LA_GPM_POISON_DEVICE_MEMORY=1``: every device allocation starts as 0xFF bytes, so a kernel
    that reads memory nothing wrote (a ``cp.empty`` buffer taken for zeroed) gives a wrong count in
    every run, not only when CuPy's pool hands back a block that happens to hold old data (which
    depends on what ran before in the process)."""
    import cupy as cp
    pool = cp.get_default_memory_pool()

    def alloc(size):
        mem = pool.malloc(size)
        if size:
            cp.cuda.runtime.memsetAsync(mem.ptr, 0xFF, size, cp.cuda.get_current_stream().ptr)
        return mem
    cp.cuda.set_allocator(alloc)


if os.environ.get("LA_GPM_POISON_DEVICE_MEMORY") == "1" and gpu_status() is None:
    _poison_device_memory()


def pytest_runtest_logreport(report):
    """``LA_GPM_FAILURE_LOG=path``: append each failure's report to ``path`` (one file per xdist worker)
    the moment it happens, so a device run cut at its time limit still says why a test failed (one file
    per process: ``path.<xdist worker or main>.<pid>``)."""
    path = os.environ.get("LA_GPM_FAILURE_LOG")
    if path and report.failed:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(f"{path}.{worker}.{os.getpid()}", "a") as f:
            f.write(f"==== {report.nodeid} ({report.when})\n{report.longreprtext}\n")


def _backend_params():
    out = [pytest.param("cpu", id="cpu")]
    out.append(pytest.param("graphblas", id="graphblas",
                            marks=pytest.mark.skipif(graphblas_status() is not None,
                                                     reason=str(graphblas_status()))))
    out.append(pytest.param("gpu", id="gpu", marks=[pytest.mark.gpu, pytest.mark.skipif(
        gpu_status() is not None, reason=f"no GPU: {gpu_status()}")]))
    return out


@pytest.fixture(params=_backend_params())
def backend(request):
    """Every backend; the GPU one is marked ``gpu`` and skipped with the reason where no device is visible."""
    return request.param


@pytest.fixture(params=[p for p in _backend_params() if p.id != "graphblas"])
def backend_cpu_gpu(request):
    """cpu and gpu only (algorithms without a graphblas formulation)."""
    return request.param


@pytest.fixture
def data_dir():
    if not DATA.is_dir():
        pytest.skip(f"shared data folder not found at {DATA}")
    return DATA


def data_path(name: str) -> Path:
    p = DATA / name
    if not p.exists():
        pytest.skip(f"{p} not found (shared data folder missing)")
    return p


@pytest.fixture(scope="module")
def citeseer():
    """The citeseer graph of the shared data (published triangle, clique and 4-motif counts)."""
    return la_gpm.read_graph(data_path("citeseer.edgelist"))


@pytest.fixture(scope="module")
def email():
    """email-Eu-core of the shared data."""
    return la_gpm.read_graph(data_path("email-Eu-core.txt"))


gpu = pytest.mark.gpu
requires_gpu = pytest.mark.skipif(gpu_status() is not None, reason=f"no GPU: {gpu_status()}")


@pytest.fixture(autouse=True)
def _small_tunables():
    """Shrink chunking so tiny inputs cross chunk/block boundaries (STUMPY's trick)."""
    with la_gpm.config.set(chunk=7):
        yield
