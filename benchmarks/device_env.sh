# Sourced by the device scripts: $OUT, the carried shared data (.shared_data and .shared_holdout, ignored by git: see
# benchmarks/README.md) and the carried python-graphblas wheels (.whl) installed to /tmp/site.
OUT=${OUT:-$PWD/device_out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 LA_GPM_BENCH_OUT="$OUT"
[ -d .shared_data ] && export LA_GPM_SHARED_DATA=$PWD/.shared_data
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=$PWD:/tmp/site || exit 1
else
  export PYTHONPATH=$PWD
fi
[ -d .shared_holdout ] && export LA_GPM_SHARED_HOLDOUT=$PWD/.shared_holdout
[ -d .peers/RapidFlow ] && export RAPIDFLOW_SRC=$PWD/.peers/RapidFlow
