#!/usr/bin/env bash
# compute-sanitizer over benchmarks/sanitize_kernels.py on the GPU machine, one part per call
# (memcheck on each part, racecheck on the parts whose kernels use shared memory, initcheck: reads of
# device memory nothing wrote, e.g. a kernel relying on what a reused cp.empty block happens to hold).
#   usage: bash benchmarks/device_sanitize.sh [memcheck parts...] [-- racecheck parts... [-- initcheck parts...]]
#   e.g.   bash benchmarks/device_sanitize.sh triangles census batch -- triangles census -- census batch
# Logs go to $OUT/sanitize_<tool>_<part>_gpu.log; a summary line per run on stdout and in
# $OUT/sanitize_summary_gpu.log.
set -uo pipefail
. "$(dirname "$0")/device_env.sh"
mem=(); race=(); init=(); dst=mem
for a in "$@"; do
  if [ "$a" = "--" ]; then if [ $dst = mem ]; then dst=race; else dst=init; fi; continue; fi
  case $dst in mem) mem+=("$a");; race) race+=("$a");; init) init+=("$a");; esac
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
  echo "$tool $part: rc=$r, $((SECONDS - t0)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)" | tee -a "$OUT/sanitize_summary_gpu.log"
}
for p in "${mem[@]}"; do run memcheck "$p"; done
for p in "${race[@]}"; do run racecheck "$p" --scale 8; done
for p in "${init[@]}"; do run initcheck "$p"; done
exit $rc
