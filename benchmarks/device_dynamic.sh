#!/usr/bin/env bash
# One call on the GPU machine for batch-dynamic matching (la_gpm.dynamic): the dynamic tests on the GPU,
# compute-sanitizer (memcheck, racecheck) over the gamma kernel, and the dynamic benchmark with --gpu.
#   usage: bash benchmarks/device_dynamic.sh [tests|sanitize|bench|all] [bench args...]
set -uo pipefail
what=${1:-all}; shift || true
. "$(dirname "$0")/device_env.sh"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
rc=0
if [ "$what" = tests ] || [ "$what" = all ]; then
  python3 -m pytest -v -p no:cacheprovider -o addopts="--doctest-modules" -rfEs tests/test_dynamic.py \
    tests/test_cuda_build.py la_gpm/dynamic > "$OUT/pytest_dynamic_gpu.log" 2>&1; rc=$?
  grep -E "(FAILED|ERROR)( |$)" "$OUT/pytest_dynamic_gpu.log" | head -20; tail -4 "$OUT/pytest_dynamic_gpu.log"
fi
if [ "$what" = sanitize ] || [ "$what" = all ]; then
  for tool in memcheck racecheck; do
    LA_GPM_DYNAMIC_SPLIT=8 timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 python3 - > "$OUT/sanitize_dynamic_$tool.log" 2>&1 <<'PY'
import numpy as np, la_gpm
G = la_gpm.datasets.load("email-Eu-core")
rng = np.random.default_rng(5)
ins = G.ids[rng.integers(0, G.n, size=(300, 2))]; E = G.ids[np.argwhere(np.triu(G.to_scipy().toarray()))]
dele = E[rng.choice(len(E), 150, replace=False)]
for q, ind in (("triangle", False), ("diamond", True), ("house", False), ("4-path", True)):
    for listing in (False, True):
        a = la_gpm.match_delta(G, q, insert=ins, delete=dele, induced=ind, listing=listing, backend="cpu")
        b = la_gpm.match_delta(G, q, insert=ins, delete=dele, induced=ind, listing=listing, backend="gpu")
        assert (a.positive, a.negative) == (b.positive, b.negative), (q, a, b)
        print(q, ind, listing, a.positive, a.negative, "cpu == gpu")
PY
    echo "compute-sanitizer $tool: rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|cpu == gpu" "$OUT/sanitize_dynamic_$tool.log" | tail -3
  done
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  timeout 540 python3 benchmarks/bench_dynamic.py --gpu "$@" 2>&1 | tail -60
  cp benchmarks/results/dynamic_*gpu*.json "$OUT"/ 2>/dev/null
fi
exit $rc
