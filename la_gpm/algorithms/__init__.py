"""Deprecated: the pre-0.2 advanced tier. Each family now has its own folder (docs/architecture.md):

=====================================  =========================================
old path                               new home
=====================================  =========================================
``la_gpm.algorithms.triangles``        ``la_gpm.triangles``
``la_gpm.algorithms.cliques``          ``la_gpm.kcliques``
``la_gpm.algorithms.subgraph``         ``la_gpm.api`` (count_pattern), ``la_gpm.exact``
``la_gpm.algorithms.batch``            ``la_gpm.api`` (count_many), ``la_gpm.exact``
``la_gpm.algorithms.match``            ``la_gpm.exact``
``la_gpm.algorithms.motifs``           ``la_gpm.motifs``
``la_gpm.algorithms.color_coding``     ``la_gpm.color_coding``
``la_gpm.algorithms.tree_census``      ``la_gpm.color_coding``
``la_gpm.algorithms.motif_estimate``   ``la_gpm.motif_estimate``
=====================================  =========================================
"""
