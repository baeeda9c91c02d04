#!/usr/bin/env bash
# One call on the GPU machine: install carried wheels, run the whole test suite (GPU tests
# included), then the GPU benchmarks. Logs and JSON go to $OUT (or ./device_out).
#   usage: bash benchmarks/device_run.sh [tests|bench|all] [extra pytest args...]
set -uo pipefail
what=${1:-all}; shift || true
OUT=${OUT:-$PWD/device_out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 LA_GPM_BENCH_OUT="$OUT"
# shared data travels as a carried copy (.shared_data, ignored by git): see benchmarks/README.md
[ -d .shared_data ] && export LA_GPM_SHARED_DATA=$PWD/.shared_data
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=$PWD:/tmp/site || exit 1
else
  export PYTHONPATH=$PWD
fi
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
