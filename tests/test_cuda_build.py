"""Every CUDA kernel file compiles for sm_90 with nvcc, without register spills.

Runs wherever ``nvcc`` is on PATH (no GPU needed); prints each kernel's ptxas resource report.
Color-coding kernels are also compiled in their double-precision variant (-DCC_DOUBLE).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import pytest

INCLUDE = resources.files("la_gpm.device")  # common.cuh
# every .cu file of the package: each family keeps its own beside its host code (la_gpm/<family>/*.cu)
PACKAGE = resources.files("la_gpm")
CU_PATHS = {p.name: p for p in sorted(Path(str(PACKAGE)).rglob("*.cu"))}
CU_FILES = sorted(CU_PATHS)
NVCC = shutil.which("nvcc")


def _variants():
    out = []
    for f in CU_FILES:
        out.append(pytest.param(f, (), id=f))
        if f.startswith("cc_"):
            out.append(pytest.param(f, ("-DCC_DOUBLE",), id=f + "-double"))
    return out


def test_kernel_files_found():
    assert "cc_spmm.cu" in CU_FILES and "cc_ema.cu" in CU_FILES and "gamma.cu" in CU_FILES


@pytest.mark.skipif(NVCC is None, reason="nvcc not found on PATH (install the CUDA toolkit to run this check)")
@pytest.mark.parametrize("name,extra", _variants())
def test_compiles_for_sm90_without_spills(name, extra, tmp_path):
    src = CU_PATHS[name]
    cmd = [NVCC, "-arch=sm_90", "-std=c++17", "-Xptxas", "-v", f"-I{INCLUDE}", f"-I{src.parent}", *extra, "-c", str(src),
           "-o", str(tmp_path / (name + ".o"))]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    report = r.stdout + r.stderr
    assert r.returncode == 0, f"nvcc failed for {name}:\n{report}"
    funcs = re.findall(r"Compiling entry function '(\w+)'", report)
    regs = re.findall(r"Used (\d+) registers", report)
    spills = [int(x) for x in re.findall(r"(\d+) bytes spill stores", report)]
    assert funcs and len(regs) >= len(funcs), report
    print(f"\n{name} {' '.join(extra)}: " + ", ".join(f"{f}={r} regs" for f, r in zip(funcs, regs)))
    assert spills and all(s == 0 for s in spills), f"{name} spills registers:\n{report}"
