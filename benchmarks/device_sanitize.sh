#!/usr/bin/env bash
# compute-sanitizer over benchmarks/sanitize_kernels.py on the GPU machine, one part per call
# (memcheck on each part, then racecheck on the parts whose kernels use shared memory).
#   usage: bash benchmarks/device_sanitize.sh [memcheck parts...] [-- racecheck parts...]
#   e.g.   bash benchmarks/device_sanitize.sh triangles census batch -- triangles census
# Logs go to $OUT/sanitize_<tool>_<part>_gpu.log; a summary line per run on stdout.
set -uo pipefail
OUT=${OUT:-$PWD/device_out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
[ -d .shared_data ] && export LA_GPM_SHARED_DATA=$PWD/.shared_data
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=$PWD:/tmp/site || exit 1
else
  export PYTHONPATH=$PWD
fi
mem=(); race=(); dst=mem
for a in "$@"; do
  if [ "$a" = "--" ]; then dst=race; continue; fi
  if [ $dst = mem ]; then mem+=("$a"); else race+=("$a"); fi
done
rc=0
run() {  # tool part [extra args]
  local tool=$1 part=$2; shift 2
  local log="$OUT/sanitize_${tool}_${part}_gpu.log"
  local t0=$SECONDS
  timeout "${SANITIZE_TIMEOUT:-240}" compute-sanitizer --tool "$tool" --kernel-name-exclude kns=cupy \
    python3 benchmarks/sanitize_kernels.py --part "$part" "$@" >"$log" 2>&1
  local r=$?
  [ $r -ne 0 ] && rc=1
  echo "$tool $part: rc=$r, $((SECONDS - t0)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
}
for p in "${mem[@]}"; do run memcheck "$p"; done
for p in "${race[@]}"; do run racecheck "$p" --scale 8; done
exit $rc
