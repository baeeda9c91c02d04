"""A networkx backend: ``nx.triangles(G, backend="la_gpm")`` and the clustering coefficients.

networkx (>= 3.2) finds the backend through two entry points (``networkx.backends`` ->
:class:`la_gpm.nx_backend.interface.BackendInterface`; ``networkx.backend_info`` -> ``_la_gpm_nx.get_info``,
a top-level module that imports nothing, so that ``import networkx`` does not import la_gpm).

See ``docs/networkx.md``.
"""

from __future__ import annotations

from _la_gpm_nx import FUNCTIONS, get_info

__all__ = ["get_info", "FUNCTIONS"]
