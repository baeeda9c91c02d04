# Device check of the GPU bulk K2,3 rule: its tests and the census tests, then the listed-vs-bulk sweep.
. benchmarks/device_env.sh
export LA_GPM_FAILURE_LOG=$OUT/failures
timeout 240 python3 -m pytest -p no:cacheprovider -o addopts= -q -m "not slow" --tb=short tests/test_gpu_census.py tests/test_gpu_oom.py -k "census or hybrid or orbits or sigma" > $OUT/pytest_k23_bulk.log 2>&1
echo tests rc=$?; grep -E "^E |FAILED|passed|failed" $OUT/pytest_k23_bulk.log | head -20
timeout 300 python3 benchmarks/bench_census5_rmat16.py --bulk-sweep 12 13 14 --bulk 0 8 16 32 2>&1 | grep -v "^wrote" | tail -20
ls $OUT
