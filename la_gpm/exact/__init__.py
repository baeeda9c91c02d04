"""Exact counting, listing and matching of any pattern: one plan engine, three papers.

- RPS (reuse of intersections across levels): the plans of :mod:`la_gpm.patterns.plan`, run depth first on
  the CPU (:mod:`.cpu_kernels`) and warp-centric on the GPU;
- DuMato (warp-centric DFS-wide with stacks in global memory): :mod:`.dumato` + ``dumato.cu``;
- cuTS (trie-compressed breadth-first levels under a memory budget): :mod:`.cuts` + ``cuts.cu``.
"""

from .batch import count_plans_batch_cpu
from .driver import (COUNT_KINDS, MAX_COUNT_VERTICES, MAX_LABELED_VERTICES, count_pattern, engine_arrays, plan_for,
                     prepare_roots, run_plan)
from .match import count_embeddings, match

__all__ = ["COUNT_KINDS", "MAX_COUNT_VERTICES", "MAX_LABELED_VERTICES", "count_pattern", "count_embeddings",
           "count_plans_batch_cpu", "engine_arrays", "match", "plan_for", "prepare_roots", "run_plan"]
