"""SubGraph2Vec: color-coding estimates of tree counts, the DP as SpMM + fused element-wise multiply-add.

:func:`estimate` (with (eps, delta) bounds), :func:`colorful_count`, :func:`tree_census` (every free tree
of k vertices at once).
"""

from .all_trees import TreeCensus, TreeCensusPlan, free_trees, plan_census, tree_census
from .driver import Estimate, colorful_count, estimate
from .trees import TreePlan, plan_tree, tree_automorphisms

__all__ = ["Estimate", "TreePlan", "TreeCensus", "TreeCensusPlan", "colorful_count", "estimate", "free_trees", "plan_census",
           "plan_tree", "tree_automorphisms", "tree_census"]
