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
  python3 -m pytest -q -p no:cacheprovider -o addopts="--doctest-modules" -m "not slow" -rs "$@" 2>&1 | tee "$OUT/pytest_gpu.log" | tail -40
  rc=${PIPESTATUS[0]}
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  for b in benchmarks/bench_*.py; do
    if grep -q -- "--gpu" "$b"; then
      echo "== $b --gpu"; timeout 300 python3 "$b" --gpu 2>&1 | tail -25
    fi
  done
fi
exit $rc
