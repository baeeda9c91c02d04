"""The motif census and graphlet orbits (DuMato's census; ORCA's orbit equations; closed forms).

:func:`census` counts every connected k-vertex class (k <= 7), induced or not; :func:`orbits` the 15
4-vertex graphlet orbits per vertex.
"""

from .driver import METHODS, MAX_CENSUS_K, ORBITS_4, census, census_part, class_table, inclusion_matrix, orbits

__all__ = ["census", "census_part", "orbits", "class_table", "inclusion_matrix", "METHODS", "MAX_CENSUS_K",
           "ORBITS_4"]
