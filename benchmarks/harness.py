"""Benchmark harness: warm-up, median of runs, device synchronisation, JSON with the machine named.

Benchmarks check every count against a reference before timing and abort when a
count differs.  Never used by the tests.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import statistics
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
# the shared graphs: ../shared/data beside the checkout, or a carried copy named by LA_GPM_SHARED_DATA
DATA = Path(os.environ.get("LA_GPM_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")


def hprd(data: Path):
    """HPRD (../shared/data/hprd): the data graph, and the published embedding count of every query
    by name, in the queries' numeric order."""
    from la_gpm.io import read_sunluo
    exp = {}
    for ln in (data / "hprd" / "expected_output.res").read_text().splitlines():
        if ":" in ln:
            a, b = ln.strip().split(":")
            exp[a] = int(b)
    return read_sunluo(data / "hprd" / "HPRD.graph"), dict(sorted(exp.items(), key=lambda t: int(t[0].rsplit("_", 1)[1])))


def cpu_name() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpu_name() -> str | None:
    try:
        import cupy as cp
        if cp.cuda.runtime.getDeviceCount() < 1:
            return None
        p = cp.cuda.runtime.getDeviceProperties(0)
        return p["name"].decode() if isinstance(p["name"], bytes) else str(p["name"])
    except Exception:  # noqa: BLE001 -- no CuPy / no driver: no GPU
        return None


def versions() -> dict:
    out = {"python": platform.python_version()}
    for mod in ("la_gpm", "numpy", "scipy", "numba", "graphblas", "networkx", "igraph", "cupy", "pyfglt",
                "orbit_count"):
        try:
            m = __import__(mod)
            out[mod] = getattr(m, "__version__", "installed")
        except Exception:  # noqa: BLE001 -- optional peers
            pass
    return out


def machine() -> dict:
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    return {"cpu": cpu_name(), "cores": os.cpu_count(), "gpu": gpu_name(), "platform": platform.platform(),
            "load_average": load, "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}


def _sync():
    try:
        import cupy as cp
        if cp.cuda.runtime.getDeviceCount() > 0:
            cp.cuda.Device().synchronize()
    except Exception:  # noqa: BLE001
        pass


def timeit(fn, *, repeat: int = 5, warmup: int = 1, budget_s: float = 60.0, sync: bool = False):
    """Median wall time of ``fn()`` after ``warmup`` calls; returns (median_s, all_times, last_result).

    Stops repeating once ``budget_s`` is spent (at least one timed run).  With ``sync`` the
    device is synchronised before the clock is read.
    """
    result = None
    for _ in range(warmup):
        result = fn()
        if sync:
            _sync()
    times = []
    spent = 0.0
    for _ in range(repeat):
        if sync:
            _sync()
        t = time.perf_counter()
        result = fn()
        if sync:
            _sync()
        dt = time.perf_counter() - t
        times.append(dt)
        spent += dt
        if spent > budget_s:
            break
    return statistics.median(times), times, result


def write(name: str, payload: dict, out_dir: Path | None = None) -> Path:
    out_dir = Path(out_dir or os.environ.get("LA_GPM_BENCH_OUT") or RESULTS)
    out_dir.mkdir(parents=True, exist_ok=True)
    tag = "gpu" if payload.get("machine", {}).get("gpu") else "cpu"
    path = out_dir / f"{name}_{tag}.json"
    path.write_text(json.dumps(payload, indent=1, default=str))
    return path


def check(label: str, got, want):
    if got != want:
        raise SystemExit(f"COUNT MISMATCH in {label}: got {got}, want {want}; benchmark aborted")
