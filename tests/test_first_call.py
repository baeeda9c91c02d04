"""Fast from the first call (docs/first_call.md): warmup compiles what later calls need, a call that compiles says so
on stderr (once, pointing at the caller's line) and a call that does not compile says nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import la_gpm
from la_gpm.cli import main
from la_gpm.first_call import KINDS, kernels
from la_gpm.primitives import compile_notice

ROOT = Path(la_gpm.__file__).resolve().parents[1]


def _signatures():
    return {name: tuple(d.signatures) for name, d in kernels().items()}


def test_warmup_returns_its_kinds_then_later_calls_compile_nothing():
    # another graph than warmup's own, large enough for the parallel paths; references from other engines
    G = la_gpm.generators.gnm(2000, 40_000, seed=7)
    import networkx as nx
    want = [sum(nx.triangles(G.to_networkx()).values()) // 3,
            [la_gpm.count(G, p, backend="cpu") for p in ("4-cycle", "diamond")]]
    got = la_gpm.warmup(["triangles", "count_many"], progress=False)
    assert list(got) == ["triangles", "count_many"]
    assert all(isinstance(s, float) and s >= 0 for s in got.values())
    before, compiled = _signatures(), compile_notice.compiling()
    assert before["la_gpm.triangles.cpu._count"] and before["la_gpm.exact.cpu_kernels.count_tasks"]
    assert [la_gpm.count(G, "triangle", backend="cpu"),
            la_gpm.count_many(G, ["4-cycle", "diamond"], backend="cpu")] == want
    assert compile_notice.compiling() == compiled
    grew = {n: s for n, s in _signatures().items() if s != before.get(n, ())}
    assert not grew, f"compiled (or loaded) after warmup: {grew}"


def test_warmup_arguments():
    with pytest.raises(la_gpm.InvalidArgument, match="unknown kind 'nope'.*triangles"):
        la_gpm.warmup(["nope"], progress=False)
    with pytest.raises(la_gpm.InvalidArgument, match="backend"):
        la_gpm.warmup(["triangles"], backend="graphblas", progress=False)
    assert list(la_gpm.warmup("triangles", progress=False)) == ["triangles"]
    if "gpu" not in la_gpm.available_backends():
        with pytest.raises(la_gpm.BackendUnavailable, match="no usable GPU"):
            la_gpm.warmup(["triangles"], backend="gpu", progress=False)


CHILD = textwrap.dedent("""
    import sys
    import la_gpm
    from la_gpm.primitives.compile_notice import compiling
    def step(name, fn):
        c = compiling()
        print("STEP", name, file=sys.stderr, flush=True)
        fn()
        print("COMPILED", name, compiling() - c, file=sys.stderr, flush=True)
    G = []
    step("load", lambda: G.append(la_gpm.datasets.load("karate")))
    step("count", lambda: la_gpm.count(G[0], "triangle", backend="cpu"))
    step("again", lambda: la_gpm.count(G[0], "triangle", backend="cpu"))
""")


def _run_child(script: Path, cache: Path) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT), PYTHONWARNINGS="default")
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=240)
    assert p.returncode == 0, p.stderr[-2000:]
    steps, name = {}, None
    for line in p.stderr.splitlines():
        if line.startswith("STEP "):
            name = line.split()[1]
            steps[name] = {"notices": []}
        elif line.startswith("COMPILED "):
            steps[name]["compiled"] = int(line.split()[2])
        elif "CompileNotice" in line:
            steps[name]["notices"].append(line)
    return steps


def test_notice_exactly_when_kernels_compile(tmp_path):
    """A cold numba cache (an empty NUMBA_CACHE_DIR): the calls that compile print one notice each, pointing at the
    calling line; the call after them and a second process (the cache now warm) compile nothing and print nothing."""
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    cache = tmp_path / "numba_cache"
    cache.mkdir()
    cold = _run_child(script, cache)
    assert cold["load"]["compiled"] > 0 and cold["count"]["compiled"] > 0 and cold["again"]["compiled"] == 0
    for name, st in cold.items():
        assert len(st["notices"]) == (1 if st["compiled"] else 0), (name, st)
        for line in st["notices"]:
            assert line.startswith(f"{script}:") and compile_notice.MESSAGE in line, line
    warm = _run_child(script, cache)
    assert warm == {name: {"notices": [], "compiled": 0} for name in ("load", "count", "again")}, warm


def test_cli_warmup(capsys):
    with pytest.raises(SystemExit) as e:
        main(["warmup", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "--kinds" in out and "--backend" in out and all(k in out for k in KINDS)
    assert main(["warmup", "--kinds", "triangles", "--json", "--quiet"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert list(res["seconds"]) == ["triangles"] and res["backend"] == "cpu"
    assert main(["warmup", "--kinds", "nope", "--quiet"]) == 2
    assert "unknown kind 'nope'" in capsys.readouterr().err


def test_cached_kernels_never_share_a_disk_cache_entry():
    """numba names its disk cache after a function's module, qualified name and line, not after its options:
    two cached builds of one function (a parallel and a serial one) would share an entry, and whichever
    compiled first would be loaded for both (GAMMA's parallel search ran single-threaded that way).  Every
    cached dispatcher of la_gpm must have a cache name of its own (la_gpm.primitives.jit.parallel_and_serial)."""
    import importlib
    import pkgutil

    from numba.core.caching import NullCache
    from numba.core.registry import CPUDispatcher

    import la_gpm
    seen = {}
    for info in pkgutil.walk_packages(la_gpm.__path__, "la_gpm."):
        if info.name.startswith(("la_gpm.algorithms", "la_gpm.nx_backend")):
            continue
        try:
            mod = importlib.import_module(info.name)
        except ImportError:   # optional dependencies (cupy, dask, graphblas, ...)
            continue
        for obj in vars(mod).values():
            if isinstance(obj, CPUDispatcher) and not isinstance(obj._cache, NullCache):
                f = obj.py_func
                key = (f.__module__, f.__qualname__, f.__code__.co_firstlineno)
                seen.setdefault(key, set()).add(id(obj))
    assert len(seen) > 50   # the walk found the kernels
    shared = {k: len(v) for k, v in seen.items() if len(v) > 1}
    assert not shared, f"cached dispatchers sharing one disk-cache entry: {shared}"
