"""Exact counting, listing and matching of any pattern: one plan engine, three papers.

- RPS (reuse of intersections across levels): the plans of :mod:`la_gpm.patterns.plan`, prepared in
  :mod:`.plans` and run depth first on the CPU (:mod:`.cpu` over the numba kernels of :mod:`.cpu_kernels`);
- DuMato (warp-centric DFS-wide with stacks in global memory): :mod:`.dumato` + ``dumato.cu``;
- cuTS (trie-compressed breadth-first levels under a memory budget): :mod:`.cuts` + ``cuts.cu``.

Many patterns at once share :mod:`.batch`; :mod:`.match` lists embeddings. Which engine counts a given
pattern is decided in one place, :mod:`la_gpm.engines`; the entry points are :func:`la_gpm.count`,
:func:`la_gpm.api.count_pattern`, :func:`la_gpm.count_many` and :func:`la_gpm.match`.
"""

from .cpu import count_plans_batch_cpu, run_plan
from .match import match
from .plans import (COUNT_KINDS, MAX_COUNT_VERTICES, MAX_LABELED_VERTICES, engine_arrays, plan_for, plan_roots,
                    prepare_roots)

__all__ = ["COUNT_KINDS", "MAX_COUNT_VERTICES", "MAX_LABELED_VERTICES", "count_plans_batch_cpu", "engine_arrays",
           "match", "plan_for", "plan_roots", "prepare_roots", "run_plan"]
