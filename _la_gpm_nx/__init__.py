"""networkx's ``backend_info`` entry point for la_gpm, kept outside the ``la_gpm`` package.

networkx calls :func:`get_info` of every installed backend while it imports itself; importing anything
under ``la_gpm`` would first import la_gpm (numba, scipy) and add ~0.3 s to every ``import networkx``. This
module imports nothing (the same arrangement as nx-cugraph's ``_nx_cugraph``). The backend itself is
:class:`la_gpm.nx_backend.interface.BackendInterface`; see docs/networkx.md.

>>> get_info()["backend_name"]
'la_gpm'
>>> sorted(get_info()["functions"])
['average_clustering', 'clustering', 'transitivity', 'triangles']
"""

from __future__ import annotations

__all__ = ["get_info", "FUNCTIONS"]

_UNWEIGHTED = "Undirected, unweighted graphs only; self-loops are ignored, as networkx does."

FUNCTIONS = {
    "triangles": "Per-vertex triangle counts from la_gpm.triangles_per_vertex (numba on CPU, CUDA on GPU). "
                 + _UNWEIGHTED,
    "clustering": "c(v) = 2 t(v) / (d(v) (d(v) - 1)) from la_gpm's per-vertex triangles. " + _UNWEIGHTED
                  + " Weighted calls (weight=...) and directed graphs are left to networkx.",
    "average_clustering": "The mean of la_gpm's clustering coefficients, summed in networkx's order. "
                          + _UNWEIGHTED + " Weighted calls and directed graphs are left to networkx.",
    "transitivity": "3 T / wedges from exact integer counts, then one float division. " + _UNWEIGHTED,
}
"""Each function the backend serves, with the note networkx adds to that function's docstring."""


def get_info() -> dict:
    """What networkx shows about this backend (the ``networkx.backend_info`` entry point)."""
    return {
        "backend_name": "la_gpm",
        "project": "la-gpm",
        "package": "la_gpm",
        "url": None,  # no public home page yet; docs/networkx.md in the source tree
        "short_summary": "Triangle counts and clustering coefficients with la_gpm (numba on CPU, CUDA on GPU).",
        "functions": {name: {"additional_docs": doc} for name, doc in FUNCTIONS.items()},
    }
