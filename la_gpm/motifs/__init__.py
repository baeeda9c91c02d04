"""The motif census and graphlet orbits (DuMato's census; ORCA's orbit equations; closed forms).

:func:`census` counts every connected k-vertex class (k <= 7), induced or not; :func:`orbits` the 15
4-vertex graphlet orbits per vertex.

Modules, from the top down: ``driver`` (entry points, method and backend choice, CPU enumeration);
``gpu`` (CuPy host code of census.cu / census5.cu); ``hybrid`` (the 5-vertex hybrid's plans and solve
step, both backends); ``closed_forms`` and ``degree_forms`` (non-induced counts without enumeration);
``common`` (graph input, degree-descending relabelling, exact int sums); ``orbit_equations`` (ORCA's
orbits and their triangular system); ``frames`` (the result DataFrame); ``cpu`` (numba kernels);
``directed`` (the census of a directed graph, k = 3 and 4: :func:`~la_gpm.motifs.directed.directed_census`).
"""

from .driver import METHODS, MAX_CENSUS_K, ORBITS_4, census, census_part, class_table, inclusion_matrix, orbits

__all__ = ["census", "census_part", "orbits", "class_table", "inclusion_matrix", "METHODS", "MAX_CENSUS_K",
           "ORBITS_4"]
