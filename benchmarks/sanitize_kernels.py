"""Small workloads for compute-sanitizer over the triangle, clique and trie kernels
(the enumeration kernels have theirs: ``bench_gpu_enum.py --sanitize``).

    compute-sanitizer --tool memcheck  python benchmarks/sanitize_kernels.py
    compute-sanitizer --tool racecheck --kernel-name-exclude kns=cupy \
        python benchmarks/sanitize_kernels.py --part triangles   # or cliques, trie (--scale 7)

(racecheck is slow: one part per call keeps each under its own time limit; CuPy's own kernels
are excluded because ``cupy_nonzero`` reports benign races inside CuPy.)

Every GPU result is checked against the CPU backend, so a run that finishes also proves the
kernels computed the right thing under the sanitizer.
"""

from __future__ import annotations

import argparse

import la_gpm
from la_gpm.algorithms.subgraph import count_pattern, plan_for
from la_gpm.backends.gpu.cliques import clique_count
from la_gpm.backends.gpu.triangles import triangle_count
from la_gpm.backends.gpu.trie import count_plan_bfs
from la_gpm.patterns import as_pattern


def triangles(G):
    want = la_gpm.count(G, "triangle", backend="cpu")
    for kw in (dict(schedule="uniform", group=4), dict(schedule="uniform", group=32, pivots=True),
               dict(schedule="bucketed", pivots=True), dict(schedule="bucketed", pivots=False)):
        assert triangle_count(G, **kw) == want, kw
    assert (la_gpm.triangles_per_vertex(G, backend="gpu") == la_gpm.triangles_per_vertex(G, backend="cpu")).all()


def cliques(G):
    for k in (4, 5):
        w = la_gpm.count(G, f"{k}-clique", backend="cpu")
        for method in ("stack", "bitmap"):
            assert clique_count(G, k, method=method) == w
            assert sum(clique_count(G, k, part=(i, 3), method=method) for i in range(3)) == w


def trie(G):
    for name, induced in (("diamond", False), ("4-cycle", True), ("house", False)):
        P = as_pattern(name)
        w = count_pattern(G, P, induced=induced, backend="cpu")
        assert count_plan_bfs(G, plan_for(G, P, induced=induced, reuse=False))[0] == w
        assert count_plan_bfs(G, plan_for(G, P, induced=induced, reuse=False), memory_budget=1 << 15)[0] == w


PARTS = {"triangles": triangles, "cliques": cliques, "trie": trie}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=sorted(PARTS) + ["all"], default="all")
    ap.add_argument("--scale", type=int, default=10, help="R-MAT scale of the workload (racecheck: smaller)")
    a = ap.parse_args()
    G = la_gpm.generators.rmat(a.scale, seed=1)
    for name, fn in PARTS.items():
        if a.part in (name, "all"):
            fn(G)
            print(f"sanitize_kernels {name}: all GPU results equal the CPU backend")


if __name__ == "__main__":
    main()
