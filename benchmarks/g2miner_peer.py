"""G2Miner (Chen & Arvind, OSDI 2022; GPU triangles, k-cliques, motif census) as a peer, built and run
beside la_gpm in the same benchmark run (``bench_peers.py``).

Built from the read-only source ``../shared/peers/G2Miner`` beside the checkout (env ``G2MINER_SRC``; the
converter and build script are in ``tools/`` beside it, env ``G2MINER_TOOLS``), copied to ``g2miner_build``
in the system temporary folder (env ``G2MINER_BUILD``) and made there with its own Makefiles for sm_90
(``tools/g2m_build.sh``: ``tc_gpu_base``, ``clique_gpu_base``, ``motif_gpu_base``; about 17 s on 2 cores).

What was established from its source (``src/{triangle,clique,motif}/{main.cc,gpu_base.cu}``):

* Input: binary CSR ``P.meta.txt``, ``P.vertex.bin`` (int64 row pointers), ``P.edge.bin`` (int32
  columns), symmetric, sorted rows, no self loops; ``tools/g2m_convert.py`` writes it from a la_gpm graph.
* Each run reads the graph, orients it (triangles and cliques: the degree DAG, built on the host), copies it
  to the device and runs ONE kernel launch between two ``cudaDeviceSynchronize``; it prints that interval,
  ``runtime [...] = S sec``: its kernel time, without reading, orienting, copying or the read-back. la_gpm's
  figure beside it is the whole ``la_gpm.count`` / ``la_gpm.census`` call (validation, engine choice,
  cached device arrays, every launch, the read-back), so the ratio is conservative for la_gpm.
* Counts: ``total_num_triangles = N``, ``num_K-cliques = N``, and for motifs ``pattern i: N`` for the
  vertex-induced classes in the order 3-star, 4-path, tailed-triangle, 4-cycle, diamond, 4-clique (k = 4)
  and triangle, wedge (k = 3; ``motif3_warp_edge``'s counters): each subgraph once.
* Its first kernel launch in a process pays the lazy module load of CUDA 12+ (``CUDA_MODULE_LOADING=LAZY``)
  inside its timer; runs here set ``CUDA_MODULE_LOADING=EAGER`` so the timer holds the kernel alone, and
  every figure is the median over ``repeat`` processes.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_PEERS = Path(__file__).resolve().parents[2] / "shared" / "peers"
SRC = Path(os.environ.get("G2MINER_SRC") or _PEERS / "G2Miner")
TOOLS = Path(os.environ.get("G2MINER_TOOLS") or SRC.parent / "tools")
BUILD = Path(os.environ.get("G2MINER_BUILD") or Path(tempfile.gettempdir()) / "g2miner_build")
BINARIES = {"triangle": "tc_gpu_base", "clique": "clique_gpu_base", "motif": "motif_gpu_base"}
MOTIF_ORDER = {3: ("triangle", "wedge"),
               4: ("4-star", "4-path", "tailed-triangle", "4-cycle", "diamond", "4-clique")}  # la_gpm's names


def build(jobs: int | None = None) -> dict:
    """Build the three binaries unless they exist; returns {"seconds", "binaries": {task: path}}.
    Raises RuntimeError with the build's errors when one is missing."""
    exe = {t: BUILD / "bin" / b for t, b in BINARIES.items()}
    t0 = time.perf_counter()
    if not all(p.exists() for p in exe.values()):
        if not SRC.exists():
            raise RuntimeError(f"G2Miner source not found at {SRC} (set G2MINER_SRC)")
        if BUILD.exists():
            shutil.rmtree(BUILD)
        shutil.copytree(SRC, BUILD)
        for p in BUILD.rglob("*"):   # the shared copy is read-only
            p.chmod(p.stat().st_mode | 0o200)
        r = subprocess.run(["bash", str(TOOLS / "g2m_build.sh"), str(BUILD), str(jobs or os.cpu_count() or 2)],
                           capture_output=True, text=True)
        if r.returncode != 0 or not all(p.exists() for p in exe.values()):
            raise RuntimeError(f"G2Miner build failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return {"seconds": time.perf_counter() - t0, "binaries": {t: str(p) for t, p in exe.items()}}


def write_graph(G, folder) -> str:
    """G in G2Miner's format under ``folder`` (its basename is the name G2Miner prints); returns the prefix."""
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))
    from g2m_convert import write_g2m
    return write_g2m(G, folder)["prefix"]


_TIME = re.compile(r"runtime \[[^\]]*\] = ([0-9.eE+-]+) sec")


def parse(task: str, text: str, k: int | None = None):
    """(kernel seconds, count) from a run's output; the count is an int (triangles, cliques) or the
    {la_gpm class name: induced count} of a motif run."""
    m = _TIME.search(text)
    if m is None:
        raise RuntimeError(f"no 'runtime [...] = S sec' in G2Miner's output:\n{text[-2000:]}")
    seconds = float(m[1])
    if task == "triangle":
        return seconds, int(re.search(r"total_num_triangles = (\d+)", text)[1])
    if task == "clique":
        return seconds, int(re.search(rf"num_{k}-cliques = (\d+)", text)[1])
    got = {int(i): int(c) for i, c in re.findall(r"pattern (\d+): (\d+)", text)}
    return seconds, {name: got[i] for i, name in enumerate(MOTIF_ORDER[k])}


def run(task: str, prefix: str, k: int | None = None, *, repeat: int = 3, timeout: float = 300.0) -> dict:
    """Run G2Miner ``repeat`` times (one process each); returns {"kernel_s" (median of its own timer),
    "kernel_runs", "process_s" (median wall time of the process: read, orient, copy, kernel), "count"} or
    {"skipped": why}."""
    exe = BUILD / "bin" / BINARIES[task]
    cmd = [exe, prefix] + ([str(k)] if task in ("clique", "motif") else [])
    env = dict(os.environ, CUDA_MODULE_LOADING="EAGER")
    kernel, wall, count = [], [], None
    for _ in range(max(1, repeat)):
        t = time.perf_counter()
        try:
            p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return {"skipped": f"did not finish within {timeout} s (killed)"}
        w = time.perf_counter() - t
        if p.returncode != 0:
            return {"skipped": f"exit code {p.returncode}: {(p.stdout + p.stderr)[-600:]}"}
        s, c = parse(task, p.stdout + p.stderr, k)
        if count is not None and c != count:
            raise RuntimeError(f"G2Miner gave two counts in two runs: {count} and {c}")
        count = c
        kernel.append(s)
        wall.append(w)
    return {"kernel_s": statistics.median(kernel), "kernel_runs": kernel, "process_s": statistics.median(wall),
            "count": count}


__all__ = ["build", "write_graph", "parse", "run", "MOTIF_ORDER"]
