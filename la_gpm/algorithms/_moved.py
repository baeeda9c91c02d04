"""Forwarding for the pre-0.2 module paths ``la_gpm.algorithms.*`` (deprecated for one release).

Each algorithm family now lives in one folder (``la_gpm.triangles``, ``la_gpm.kcliques``, ``la_gpm.exact``,
``la_gpm.motifs``, ``la_gpm.color_coding``, ``la_gpm.motif_estimate``, ``la_gpm.dynamic``; see
docs/architecture.md). The old paths still resolve every public name, with a DeprecationWarning that
names the new home.
"""

from __future__ import annotations

import importlib
import warnings


def forward(old: str, targets: tuple):
    """A module ``__getattr__`` for the old module ``old``: looks ``name`` up in ``targets`` (module paths,
    first hit wins) and warns once per name."""
    warned = set()

    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        for t in targets:
            mod = importlib.import_module(t)
            if hasattr(mod, name):
                if name not in warned:
                    warned.add(name)
                    warnings.warn(f"{old}.{name} moved to {t}.{name}; the old path is deprecated and will be "
                                  "removed in the next release", DeprecationWarning, stacklevel=2)
                return getattr(mod, name)
        raise AttributeError(f"module {old!r} has no attribute {name!r} (its names moved to {', '.join(targets)})")

    return __getattr__
