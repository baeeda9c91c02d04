"""HPRD 200 queries: the GPU dfs engine alone (compiled plans) under several work-item policies.

    python benchmarks/bench_hprd_policy.py      # writes gpu_enum_hprd_policy_<tag>.json

Policies: level-1 items only (deep_items=0); breadth-first expansion limited to L levels; no limit.
Every count is checked against the published count. Used to choose ``enum.DEEP_LEVELS``.
"""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import check, hprd, machine, timeit, versions, write  # noqa: E402

from la_gpm.exact.driver import plan_for  # noqa: E402
from la_gpm.exact.dumato import count_plan_gpu  # noqa: E402
from la_gpm.patterns import read_query  # noqa: E402

DATA = Path(os.environ.get("LA_GPM_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
POLICIES = {"level1": {"deep_items": 0}, "levels1": {"deep_levels": 1}, "levels2": {"deep_levels": 2},
            "levels3": {"deep_levels": 3}, "levels4": {"deep_levels": 4}, "levels6": {"deep_levels": 6},
            "unlimited": {"deep_levels": 32}}


def main():
    G, exp = hprd(DATA)
    per = []
    for name in exp:
        Q = read_query(DATA / "hprd" / "query_graph" / f"{name}.graph")
        plan = plan_for(G, Q)
        row = {"query": name}
        for pol, kw in POLICIES.items():
            t, _, (n, st) = timeit(lambda: count_plan_gpu(G, plan, **kw), repeat=3, sync=True, budget_s=1)
            check(f"HPRD {name} {pol}", n * Q.automorphism_count, exp[name])
            row[pol] = t
            row[pol + "_depth"] = st.get("item_depth", 2)
        per.append(row)
    summary = {pol: {"total_s": sum(r[pol] for r in per), "median_s": statistics.median(r[pol] for r in per),
                     "max_s": max(r[pol] for r in per)} for pol in POLICIES}
    for pol, s in summary.items():
        print(f"{pol:<10} total {s['total_s'] * 1e3:8.1f} ms  median {s['median_s'] * 1e3:6.3f} ms  "
              f"max {s['max_s'] * 1e3:7.2f} ms")
    print("wrote", write("gpu_enum_hprd_policy", {"benchmark": "HPRD 200 queries, gpu dfs engine alone on "
                                                  "compiled plans, work-item policies", "machine": machine(),
                                                  "versions": versions(), "summary": summary, "per_query": per}))


if __name__ == "__main__":
    main()
