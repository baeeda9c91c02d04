#!/usr/bin/env bash
# One device call for the GPU 5-vertex hybrid: diagnostics, then (if they pass) its tests and benchmark.
set -uo pipefail
OUT=${OUT:-$PWD/device_out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 LA_GPM_BENCH_OUT="$OUT" LA_GPM_SHARED_DATA=$PWD/.shared_data PYTHONPATH=$PWD:/tmp/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
[ "${DIAG_S:-120}" = 0 ] || timeout ${DIAG_S:-120} python3 benchmarks/h5_diag.py 2>&1 | tee "$OUT/h5_diag.log"
if [ -f "$OUT/h5_diag.log" ] && grep -q "False\|Traceback\|Error" "$OUT/h5_diag.log"; then echo "DIAG FAILED"; exit 1; fi
timeout ${TEST_S:-240} python3 -m pytest -q -p no:cacheprovider -o addopts="--doctest-modules" -m "not slow" -rs \
  --durations=12 tests/test_gpu_census.py la_gpm/backends/gpu/census.py "$@" 2>&1 | tee "$OUT/pytest_h5.log" | tail -30
timeout ${BENCH_S:-220} python3 benchmarks/bench_gpu_census.py --gpu 2>&1 | tee "$OUT/bench_h5.log" | tail -45
