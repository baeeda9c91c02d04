#!/usr/bin/env bash
# One call on the GPU machine, from the repository root:
#   bash benchmarks/device.sh tests [pytest args / files...]    the tests given (default: the whole suite)
#   bash benchmarks/device.sh suite-a | suite-b                  the whole suite in two calls: tests/test_[a-f]*.py,
#                                                                then tests/test_[g-z]*.py and the doctests (la_gpm)
#   bash benchmarks/device.sh suite-par [FILE...]                the whole suite (or the files given) as JOBS (4) pytest
#                                                                processes sharing the GPU, heaviest files first, one file a
#                                                                process, none started after DEADLINE (570 s) - 30 s; a
#                                                                file's log in $PAR (/tmp/par), all in $OUT/pytest_gpu_par.log,
#                                                                a line a file in par_status.txt; NUMBA_NUM_THREADS
#                                                                defaults to the cores / JOBS
#   bash benchmarks/device.sh sanitize MEM... [-- RACE... [-- INIT...]]
#                                                                compute-sanitizer memcheck / racecheck / initcheck
#                                                                over parts of benchmarks/sanitize_kernels.py
#   bash benchmarks/device.sh bench FAMILY [SUITE] [args...]     python3 benchmarks/bench_FAMILY.py SUITE args
# Carried, git-ignored inputs (benchmarks/README.md): .shared_data and .shared_holdout (the shared graphs),
# .whl (wheels: python-graphblas, dask, distributed, dask-cuda, pytest-timeout ...; installed once to
# /tmp/site), .peers/RapidFlow (its source). Logs and JSON go to $OUT (default ./device_out), the GPU,
# driver and versions to $OUT/device.txt. Exit status: that of the tests / the benchmark; sanitize: 1 when
# any run reported an error or failed.
set -uo pipefail
what=${1:-}; shift || true
OUT=${OUT:-$PWD/device_out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 LA_GPM_BENCH_OUT="$OUT" PYTHONPATH=$PWD
[ -d .shared_data ] && export LA_GPM_SHARED_DATA=$PWD/.shared_data
[ -d .shared_holdout ] && export LA_GPM_SHARED_HOLDOUT=$PWD/.shared_holdout
[ -d .peers/RapidFlow ] && export RAPIDFLOW_SRC=$PWD/.peers/RapidFlow
if ls .whl/*.whl >/dev/null 2>&1; then
  wheels=$(ls .whl/*.whl | sort | md5sum)
  if [ "$(cat /tmp/site/.carried_wheels 2>/dev/null)" != "$wheels" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
      || exit 1
    echo "$wheels" > /tmp/site/.carried_wheels
  fi
  export PYTHONPATH=$PWD:/tmp/site
fi
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  python3 -c "import la_gpm, cupy, numba, numpy; print('backends:', la_gpm.available_backends(), 'cupy', \
cupy.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__)"; } 2>&1 | tee "$OUT/device.txt"

run_tests() {  # LOG, then pytest args: -v writes every outcome to LOG as it ends, so a call cut at its limit still
  # names what failed (no xdist: several pytest processes on one GPU gave unexplained failures, see README); a
  # per-test limit (pytest-timeout, where installed) turns a hang into a failure with stacks
  local log=$1; shift
  local extra=(); python3 -c "import pytest_timeout" 2>/dev/null && extra+=(--timeout "${TEST_TIMEOUT:-300}")
  python3 -m pytest -v -p no:cacheprovider -o addopts="--doctest-modules" -m "not slow" -rfEs "${extra[@]}" "$@" \
    > "$log" 2>&1
  local r=$?
  grep -E "(FAILED|ERROR)( |$)" "$log" | grep "::" | sort -u | head -60
  grep -v "^\s*$" "$log" | tail -40
  return $r
}

sanitize() {  # memcheck parts [-- racecheck parts [-- initcheck parts]]; racecheck on a smaller graph (--scale 8)
  local tools=(memcheck racecheck initcheck) t=0 rc=0 p
  for p in "$@"; do
    if [ "$p" = "--" ]; then t=$((t + 1)); continue; fi
    local tool=${tools[$t]} log="$OUT/sanitize_${tools[$t]}_${p}_gpu.log" t0=$SECONDS extra=()
    [ "$tool" = racecheck ] && extra=(--scale 8)
    timeout "${SANITIZE_TIMEOUT:-300}" compute-sanitizer --tool "$tool" --error-exitcode 9 \
      --kernel-name-exclude kns=cupy python3 benchmarks/sanitize_kernels.py --part "$p" "${extra[@]}" > "$log" 2>&1
    local r=$?
    [ $r -ne 0 ] && rc=1
    echo "$tool $p: rc=$r, $((SECONDS - t0)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)" \
      | tee -a "$OUT/sanitize_summary_gpu.log"
  done
  return $rc
}

case $what in
  tests) run_tests "$OUT/pytest_gpu.log" "$@" ;;
  suite-a) LA_GPM_FAILURE_LOG=$OUT/failures_a TEST_TIMEOUT=${TEST_TIMEOUT:-240} \
             run_tests "$OUT/pytest_gpu_suite_a.log" tests/test_[a-f]*.py --durations=15 "$@" ;;
  suite-b) LA_GPM_FAILURE_LOG=$OUT/failures_b TEST_TIMEOUT=${TEST_TIMEOUT:-240} \
             run_tests "$OUT/pytest_gpu_suite_b.log" tests/test_[g-z]*.py la_gpm --durations=15 "$@" ;;
  suite-par)
    # heaviest first (the GPU-side durations of the s12-s15 logs, then the CPU suite's), the rest after
    heavy="tests/test_gpu_census.py tests/test_gpu_enum.py tests/test_gpu_trie.py tests/test_motif_estimate.py
      tests/test_batch.py tests/test_dynamic.py tests/test_color_coding.py tests/test_census.py tests/test_clique_parts.py
      tests/test_estimate_auto.py tests/test_gpu_census8.py tests/test_gpu_orbits5.py tests/test_cuda_build.py
      tests/test_dynamic_reuse.py tests/test_census8.py tests/test_cli.py la_gpm"
    if [ $# -gt 0 ]; then files="$*"; else
      files="$heavy $(ls tests/test_*.py | grep -vxF -f <(tr -s ' \n' '\n' <<< "$heavy"))"; fi
    # $OUT brings back at most 8 files: a file's log and failures stay in $PAR, joined into two files at the end
    PAR=${PAR:-/tmp/par}; rm -rf "$PAR"; mkdir -p "$PAR"; : > "$OUT/par_status.txt"
    deadline=$(($(date +%s) + ${DEADLINE:-570}))
    # a process's numba threads: the cores over the processes (16 threads in each of 6 processes took the first
    # cold run of session 16 past 2 x 570 s; 4 x 4 ran the whole warm suite in 269 s)
    export NUMBA_NUM_THREADS=${NUMBA_NUM_THREADS:-$(( $(nproc) / ${JOBS:-4} > 0 ? $(nproc) / ${JOBS:-4} : 1 ))}
    export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE} OUT PAR deadline TEST_TIMEOUT=${TEST_TIMEOUT:-240}
    export -f run_tests
    tr -s ' \n' '\n' <<< "$files" | grep . | xargs -P "${JOBS:-4}" -I{} bash -c '
      f={}; b=$(basename "$f" .py); t0=$(date +%s); rem=$((deadline - t0))
      if [ $rem -lt 30 ]; then echo "$f not-started" >> "$OUT/par_status.txt"; exit 0; fi
      LA_GPM_FAILURE_LOG=$PAR/failures_$b timeout $rem bash -c "run_tests \"$PAR/$b.log\" \"$f\"" > /dev/null
      r=$?; echo "$f rc=$r $(($(date +%s) - t0))s $(tail -1 "$PAR/$b.log" | tr -d =)" >> "$OUT/par_status.txt"'
    for f in "$PAR"/*.log; do echo "##### $(basename "$f")"; cat "$f"; done > "$OUT/pytest_gpu_par.log"
    cat "$PAR"/failures_* > "$OUT/failures_par.txt" 2>/dev/null
    sort "$OUT/par_status.txt"
    # rc=5: pytest collected nothing (a module skipped whole: an oracle such as igraph not installed there)
    ! grep -qvE " rc=[05] " "$OUT/par_status.txt" ;;
  sanitize) sanitize "$@" ;;
  bench)
    family=${1:-}; shift || true
    script=benchmarks/bench_$family.py
    if [ ! -f "$script" ]; then echo "no $script; families: $(cd benchmarks && ls bench_*.py | sed 's/bench_//;s/\.py//' \
      | tr '\n' ' ')"; exit 2; fi
    timeout "${BENCH_TIMEOUT:-540}" python3 "$script" "$@" 2>&1 | tee "$OUT/bench_${family}.log" | tail -"${TAIL:-60}"
    exit "${PIPESTATUS[0]}" ;;
  *) sed -n '2,14p' "$0"; exit 2 ;;
esac
