#!/usr/bin/env bash
# The device call behind gpu_enum_deep_gpu.json: GPU enum/trie tests, then the gpu_enum benchmark (HPRD 200 + unlabeled),
# then compute-sanitizer memcheck on the small --sanitize workload. Logs and JSON to $OUT.
set -uo pipefail
OUT=${OUT:-$PWD/device_out}; mkdir -p "$OUT"
t0=$(date +%s)
bash benchmarks/device_run.sh tests tests/test_gpu_enum.py tests/test_gpu_trie.py --durations=12 "$@" > "$OUT/h2_tests.log" 2>&1
echo "tests rc=$? in $(( $(date +%s) - t0 )) s"; tail -32 "$OUT/h2_tests.log"
export PYTHONUNBUFFERED=1 LA_GPM_BENCH_OUT="$OUT" PYTHONPATH=$PWD:/tmp/site
[ -d .shared_data ] && export LA_GPM_SHARED_DATA=$PWD/.shared_data
t1=$(date +%s)
timeout ${BENCH_TIMEOUT:-240} python3 benchmarks/bench_gpu_enum.py --gpu --skip-slow > "$OUT/h2_bench.log" 2>&1
echo "bench rc=$? in $(( $(date +%s) - t1 )) s"; tail -16 "$OUT/h2_bench.log"
t2=$(date +%s)
timeout ${SAN_TIMEOUT:-120} compute-sanitizer --tool memcheck python3 benchmarks/bench_gpu_enum.py --sanitize > "$OUT/h2_memcheck.log" 2>&1
echo "memcheck rc=$? in $(( $(date +%s) - t2 )) s"; tail -4 "$OUT/h2_memcheck.log"
