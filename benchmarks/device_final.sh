# Final device record, part $1 (a: test files a-f, b: g-z and doctests). Part a also runs the batch
# "waits" test on the code before the stream fix when it is there (git-ignored, untracked copy:
#   mkdir -p device_tmp && git show 285cbb4:la_gpm/backends/gpu/enum.py > device_tmp/old_enum.py)
# where it must fail with an illegal address.
. benchmarks/device_env.sh
export LA_GPM_FAILURE_LOG=$OUT/failures
part=$1; shift
if [ "$part" = a ]; then files=(tests/test_[a-f]*.py); else files=(tests/test_[g-z]*.py la_gpm); fi
TEST_TIMEOUT=240 bash benchmarks/device_run.sh tests "${files[@]}" --durations=15 2>&1 | grep -v "^\s*$" | tail -45
if [ "$part" = a ] && [ -f device_tmp/old_enum.py ]; then
  cp la_gpm/backends/gpu/enum.py /tmp/new_enum.py; cp device_tmp/old_enum.py la_gpm/backends/gpu/enum.py
  LA_GPM_FAILURE_LOG= timeout 100 python3 -m pytest -p no:cacheprovider -o addopts= -q --tb=line tests/test_batch.py -k waits > $OUT/old_code_waits.log 2>&1
  echo "old code, waits test: rc=$?"; grep -E "^E |rror|passed|failed" $OUT/old_code_waits.log | head -5
  cp /tmp/new_enum.py la_gpm/backends/gpu/enum.py
fi
ls $OUT
