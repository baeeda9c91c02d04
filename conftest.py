"""Collection rules for the doctests of optional parts (the test extra installs them all; a machine
without an optional dependency skips that module's doctests instead of failing to import it)."""

import importlib.util
import os
from pathlib import Path

import pytest

collect_ignore_glob = []
if importlib.util.find_spec("distributed") is None:
    collect_ignore_glob.append("la_gpm/distributed/*")


# ------------------------------------------------------------------ the order of the test files (two xdist workers)
# The default run (`pytest -n 2 --dist loadfile`) is bound by numba compiling kernels, and the kernels compiled in
# one worker reach the other only through numba's on-disk cache, once written.  xdist hands out whole files in queue
# order (by default the files with the most tests first), so the two workers used to start on two dynamic-matching
# files at once and both compiled the lane and the general search (about 200 s each on 2 cores).  Until session 33
# the queue started one worker on test_dynamic.py to compile them, but the other still compiled the search's reuse
# specialisation in test_dynamic_reuse.py (both about 200 s in a fresh clone).  Now the controller compiles every
# dynamic kernel once, in the background (below), and the files that run dynamic matching (LATE) go last, so both
# workers run the rest meanwhile.  The queue is otherwise longest first (as measured on a 2-core machine from a cold
# cache), then the other files by their number of tests, so that the run ends on short files.
FIRST = ("tests/test_dynamic.py",
         "tests/test_exact.py", "tests/test_motif_estimate.py", "tests/test_census.py",
         "tests/test_dynamic_stream.py",
         "tests/test_gpu_census.py", "tests/test_cuda_build.py", "tests/test_motif_memory_budget.py",
         "tests/test_directed.py", "tests/test_census8.py",
         "tests/test_dynamic_lane.py", "tests/test_dynamic_reuse.py", "tests/test_cli.py",
         "tests/test_distributed.py", "tests/test_color_coding.py", "tests/test_closed_forms5.py",
         "tests/test_gpu_orbits5.py", "tests/test_first_call.py", "tests/test_batch.py", "tests/test_census_small.py",
         "tests/test_estimate_auto.py", "tests/test_inputs.py", "tests/test_dynamic_views.py")


# The background compile: with -n, the controller runs `la_gpm.warmup(["dynamic"])` in a process that holds an
# flock on a temporary file (named to the workers by COMPILE_LOCK) until it ends; a worker's first test of a LATE file
# waits for it, then loads the kernels from numba's disk cache.  A run without LATE files starts none; if the compile
# fails the workers compile as before; LA_GPM_TEST_SERIAL_COMPILE=1 turns it off (to compare runs).
COMPILE_LOCK = "LA_GPM_TEST_COMPILE_LOCK"
LATE = ("tests/test_dynamic", "la_gpm/dynamic/", "tests/test_cli.py")     # the files that run dynamic matching
_waited = []


def _late(path: str) -> bool:
    return path.split("::")[0].startswith(LATE)


def _start_background_compile(config):
    import fcntl
    import subprocess
    import sys
    import tempfile
    if hasattr(config, "workerinput") or os.environ.get(COMPILE_LOCK) or os.name != "posix":
        return
    if os.environ.get("LA_GPM_TEST_SERIAL_COMPILE") == "1":
        return
    if not (config.pluginmanager.hasplugin("xdist") and config.getoption("numprocesses", default=None)):
        return
    root = Path(str(config.rootpath))
    files = []
    for a in config.args:
        p = Path(str(a).split("::")[0])
        p = p if p.is_absolute() else Path.cwd() / p
        files += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    if not any(_late(f.resolve().relative_to(root).as_posix()) for f in files if f.resolve().is_relative_to(root)):
        return
    fd, path = tempfile.mkstemp(prefix="la_gpm_compile_", suffix=".lock")
    fcntl.flock(fd, fcntl.LOCK_EX)
    proc = subprocess.Popen([sys.executable, "-c", "import la_gpm; la_gpm.warmup(['dynamic'], progress=False)"],
                            pass_fds=(fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(fd)     # the child's copy of the descriptor holds the lock until it exits
    os.environ[COMPILE_LOCK] = path      # the workers, started after this, inherit it
    config._la_gpm_compile = (proc, path)


@pytest.fixture(autouse=True)
def _dynamic_kernels_compiled(request):
    """A worker's first test of a LATE file waits for the controller's background compile."""
    path = os.environ.get(COMPILE_LOCK)
    if path and not _waited and _late(request.node.nodeid):
        import fcntl
        with open(path) as f:
            fcntl.flock(f, fcntl.LOCK_SH)
        _waited.append(True)


def pytest_configure(config):
    if hasattr(config.option, "loadscopereorder"):   # xdist: keep the collection's file order (below)
        config.option.loadscopereorder = False
    _start_background_compile(config)


def pytest_unconfigure(config):
    got = getattr(config, "_la_gpm_compile", None)
    if got:
        proc, path = got
        try:
            proc.wait(timeout=900)     # not killed mid-way: numba may be writing its cache
        except BaseException:  # noqa: BLE001 -- a timeout or an interrupt
            proc.kill()
            proc.wait()
        os.unlink(path)
        os.environ.pop(COMPILE_LOCK, None)


def pytest_collection_modifyitems(session, config, items):
    rank = {f: i for i, f in enumerate(FIRST)}
    files = [it.nodeid.split("::")[0] for it in items]
    count = {f: files.count(f) for f in set(files)}
    late = bool(os.environ.get(COMPILE_LOCK))     # the dynamic kernels compile in the background

    def key(i):
        f = files[i]
        return (late and f.startswith(LATE), rank.get(f, len(FIRST)), -count[f], f)
    order = sorted(range(len(items)), key=key)
    items[:] = [items[i] for i in order]      # a stable sort: a file's tests keep their order
