#!/usr/bin/env bash
# One call on the GPU machine: install carried wheels, run the whole test suite (GPU tests
# included), then the GPU benchmarks. Logs and JSON go to $OUT (or ./device_out).
#   usage: bash benchmarks/device_run.sh [tests|bench|all] [extra pytest args...]
set -uo pipefail
what=${1:-all}; shift || true
. "$(dirname "$0")/device_env.sh"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
python3 -c "import la_gpm, cupy, numba, numpy; print('backends:', la_gpm.available_backends(), 'cupy', cupy.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__)" | tee -a "$OUT/device.txt"
rc=0
if [ "$what" = tests ] || [ "$what" = all ]; then
  # -v writes every test's outcome as it ends, so a call killed at its limit still names what failed (do not
  # use xdist here: one GPU shared by several pytest processes gave unexplained failures, see README);
  # a per-test limit (pytest-timeout, where installed) turns a hang into a failure with stacks
  extra=(); python3 -c "import pytest_timeout" 2>/dev/null && extra+=(--timeout "${TEST_TIMEOUT:-300}")
  python3 -m pytest -v -p no:cacheprovider -o addopts="--doctest-modules" -m "not slow" -rfEs "${extra[@]}" "$@" \
    > "$OUT/pytest_gpu.log" 2>&1
  rc=$?
  grep -E "(FAILED|ERROR)( |$)" "$OUT/pytest_gpu.log" | grep "::" | sort -u | head -60
  tail -40 "$OUT/pytest_gpu.log"
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  for b in benchmarks/bench_*.py; do
    if grep -q -- "--gpu" "$b"; then
      echo "== $b --gpu"; timeout 300 python3 "$b" --gpu 2>&1 | tail -25
    fi
  done
fi
exit $rc
