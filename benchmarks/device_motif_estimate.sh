#!/usr/bin/env bash
# The device benchmark of motif-frequency estimation (bench_motif_estimate.py): GPU grid, R-MAT 22 k = 7
# estimator ablations, CPU (16 cores) grid.  JSON and one log to $OUT.
. "$(dirname "$0")/device_env.sh"
B() { t=$1; shift; timeout "$t" python3 benchmarks/bench_motif_estimate.py --out "$OUT" "$@" 2>&1 | grep -v Warn; }
{
case=${1:-all}
if [ "$case" = all ]; then
B 120 --backends gpu --cases rmat18:5 rmat18:6 rmat18:7 rmat20:5 rmat20:6 rmat20:7 rmat22:5 rmat22:6 --gpu-spc auto --budget 15 --name motif_estimate_grid
B 60 --backends gpu --cases rmat22:7 --gpu-spc auto --checkpoints geometric --budget 35 --name motif_estimate_rmat22_auto_geometric
B 90 --backends cpu --cases rmat20:5 rmat20:6 rmat20:7 --adaptive on --budget 5 --name motif_estimate_cpu16_rmat20
fi
if [ "$case" = defaults ]; then   # the defaults of session 4: balanced colorings, 2^20 samples per coloring on the GPU
B 200 --backends gpu --cases rmat22:7 --seeds 1 2 3 4 5 --budget 30 --name motif_estimate_rmat22_k7_seeds
B 200 --backends gpu --cases wiki-Vote:5 wiki-Vote:6 wiki-Vote:7 wiki-Vote:8 rmat18:5 rmat18:6 rmat18:7 rmat18:8 rmat20:5 rmat20:6 rmat20:7 rmat20:8 rmat22:5 rmat22:6 --budget 30 --name motif_estimate_grid_defaults
B 150 --backends cpu --cases wiki-Vote:5 rmat18:5 rmat18:6 --adaptive on --budget 40 --name motif_estimate_cpu16_defaults
exit 0
fi
if [ "$case" = planned ]; then   # fixed samples per coloring, planned checkpoints (seeds 1 and 2)
B 50 --backends gpu --cases rmat22:7 --gpu-spc 65536 --budget 30 --name motif_estimate_rmat22_fixed_planned
B 50 --backends gpu --cases rmat22:7 --gpu-spc 65536 --seed 2 --budget 30 --name motif_estimate_rmat22_fixed_planned_seed2
exit 0
fi
# the old estimator (65536 samples per coloring, geometric checkpoints) with the new build; a second seed
B 60 --backends gpu --cases rmat22:7 --gpu-spc 65536 --checkpoints geometric --budget 30 --name motif_estimate_rmat22_fixed_geometric
B 50 --backends gpu --cases rmat22:7 --gpu-spc auto --seed 2 --budget 30 --name motif_estimate_rmat22_seed2
B 40 --backends gpu --cases rmat18:7 --gpu-spc auto --budget 15 --name motif_estimate_rmat18_k7
} 2>&1 | tee "$OUT/h3_bench.log"
