"""Single-pattern closed forms: which non-induced unlabeled pattern has one, and whether it stays exact on a graph.

Read by the engine table's ``closed_form`` row (:mod:`la_gpm.engines`) and by ``la_gpm.estimate`` (a tree with
a closed form is counted exactly instead of estimated), so both recognise the same patterns by canonical form:
stars of any size, the 4-path, tailed triangle, 4-cycle, diamond, bowtie, house, and the 5-vertex classes of
:mod:`la_gpm.motifs.closed_forms5` (docs/closed_forms.md).
"""

from __future__ import annotations

import functools

__all__ = ["closed_form_of", "closed_form_guard", "closed_form_table", "census5_noninduced"]


@functools.lru_cache(maxsize=1)
def closed_form_table():
    """canonical key -> (function of G, formula): the non-induced unlabeled patterns with a closed form
    (stars are recognised by their shape, :func:`closed_form_of`)."""
    from . import closed_forms as cf, degree_forms as df
    from ..patterns import named_pattern
    return {named_pattern("bowtie").canonical_key: (cf.bowtie_noninduced, "bowtie = Σ_v C(t_v, 2) − Σ_arcs C(t_e, 2)"),
            named_pattern("house").canonical_key: (cf.house_noninduced, "house = Σ_4-cycles Σ_edges t_e − 4 × diamonds"),
            named_pattern("4-path").canonical_key: (df.path4_noninduced, "4-path = Σ_uv (d_u − 1)(d_v − 1) − 3T"),
            named_pattern("tailed-triangle").canonical_key: (df.tailed_triangle_noninduced,
                                                             "tailed triangle = Σ_v t_v (d_v − 2)"),
            named_pattern("4-cycle").canonical_key: (cf.cycle4_noninduced,
                                                     "4-cycles counted once at their highest-rank vertex (4-vertex "
                                                     "census totals)"),
            named_pattern("diamond").canonical_key: (cf.diamond_noninduced, "diamond = Σ_e C(t_e, 2)")}


def closed_form_of(P):
    """(function of G, formula) of the closed form of the unlabeled pattern P, or None."""
    from ..patterns.pattern import MAX_CANONICAL_VERTICES
    if P.k >= 3 and P.num_edges == P.k - 1 and max(P.degrees) == P.k - 1:  # a star, any size (the wedge: k = 3)
        from .degree_forms import star_noninduced
        return functools.partial(star_noninduced, k=P.k), f"{P.k}-star = Σ_v C(d_v, {P.k - 1})"
    if P.k > MAX_CANONICAL_VERTICES:
        return None
    found = closed_form_table().get(P.canonical_key)
    if found is None and P.k == 5:
        from .closed_forms5 import formula_of
        f = formula_of(P)
        found = None if f is None else (f[1], f[2])
    return found


def closed_form_guard(P, G):
    """Why the closed form of P cannot count G exactly in int64 (the 5-vertex forms of
    :mod:`la_gpm.motifs.closed_forms5` bound their terms up front), or None."""
    if P.k == 4 and closed_form_table().get(P.canonical_key) is not None:
        d = G.max_degree   # motifs.common.check_safe's bound of the 4-vertex census totals
        return (None if G.m * d * d < 2**62 else
                f"the closed form could overflow int64 on this graph (m·dmax² = {G.m * d * d} >= 2**62)")
    if P.k != 5 or closed_form_table().get(P.canonical_key) is not None:
        return None
    from .closed_forms5 import overflow_reason
    why = overflow_reason(G)
    return None if why is None else f"the closed form could overflow int64 on this graph: {why}"


def census5_noninduced(G) -> list:
    """Non-induced counts of all 21 connected 5-vertex classes (``classes(5)`` row order), each from its closed
    form: the 17 of :mod:`la_gpm.motifs.closed_forms5`, the bowtie and the house (:mod:`la_gpm.motifs.closed_forms`), the 5-star
    (:mod:`la_gpm.motifs.degree_forms`) and the 5-clique (the clique engine). The census's ``"closed_form"``
    method for k = 5 (``I = M⁻¹ N``); InvalidArgument where :func:`overflow_reason` declines the graph.

    >>> import la_gpm
    >>> from la_gpm.patterns.classes import classes, to_induced
    >>> G = la_gpm.datasets.load("karate")
    >>> to_induced(classes(5).M, census5_noninduced(G)) == list(la_gpm.census(G, 5, method="enumerate")["count"])
    True
    """
    from ..kcliques import clique_count
    from ..patterns.classes import classes
    from ..patterns.pattern import Pattern
    from .closed_forms5 import checked_graph
    G = checked_graph(G, "the 5-vertex census by closed forms")
    out = []
    for edges in classes(5).edges:
        P = Pattern(edges, k=5)
        # every class but K5 has a single-pattern closed form (the engine table's); K5 is the clique engine's
        found = closed_form_of(P)
        if found is None and P.num_edges != 10:
            raise AssertionError(f"no closed form for the 5-vertex class {edges}")
        out.append(int(found[0](G)) if found is not None else clique_count(G, 5, backend="cpu"))
    return out
