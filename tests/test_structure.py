"""The package's structure (docs/architecture.md): imports only go down.

Every import inside ``la_gpm`` is read from the source (module level and inside functions alike):
- the module graph has no circle;
- the folder graph (each top-level folder or module of ``la_gpm`` one node) has no circle, so the layers
  can be drawn with every arrow pointing down;
- no module imports another module's private (underscore) name;
- the families and the shared layers never import the entry layer (``api``, ``engines``, ``distributed``,
  ``cli``, the package ``__init__``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import la_gpm

ROOT = Path(la_gpm.__file__).resolve().parent
ENTRY = {"la_gpm", "la_gpm.api", "la_gpm.engines", "la_gpm.distributed", "la_gpm.cli", "la_gpm.algorithms",
         "la_gpm.first_call"}


def _module(path: Path) -> str:
    parts = ("la_gpm",) + path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in ROOT.rglob("*.py")}


def _imports():
    """{module: [(imported module, name or None, line)]} for every import of a la_gpm module."""
    out = {}
    for mod, path in MODULES.items():
        pkg = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
        found = []
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found += [(a.name, None, node.lineno) for a in node.names if a.name.startswith("la_gpm")]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if not target.startswith("la_gpm"):
                    continue
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    found.append((sub, None, node.lineno) if sub in MODULES else (target, a.name, node.lineno))
        out[mod] = found
    return out


IMPORTS = _imports()


def _owner(name: str) -> str:
    """The module a dotted import names (the longest known prefix)."""
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _cycle(graph):
    """One circle of ``graph`` ({node: set of nodes}) as a list, or None."""
    state, stack = {}, []

    def visit(u):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                return stack[stack.index(v):] + [v]
            if v not in state:
                c = visit(v)
                if c:
                    return c
        state[u] = 2
        stack.pop()
        return None

    for u in sorted(graph):
        if u not in state:
            c = visit(u)
            if c:
                return c
    return None


def _room(mod: str) -> str:
    parts = mod.split(".")
    return ".".join(parts[:2])


def test_no_module_circle():
    graph = {m: {_owner(t) for t, _, _ in imps} - {m} for m, imps in IMPORTS.items()}
    # a package importing its own submodules (re-exports) is the package's own business, not an arrow up
    graph = {m: {t for t in ts if not t.startswith(m + ".")} for m, ts in graph.items()}
    assert _cycle(graph) is None, f"import circle: {' -> '.join(_cycle(graph))}"


def test_folders_form_layers():
    graph = {}
    for m, imps in IMPORTS.items():
        for t, _, _ in imps:
            a, b = _room(m), _room(_owner(t))
            if a != b and a != "la_gpm" and b != "la_gpm":
                graph.setdefault(a, set()).add(b)
    assert _cycle(graph) is None, f"folders import each other in a circle: {' -> '.join(_cycle(graph))}"


def test_no_private_names_across_modules():
    bad = [f"{m}:{line} imports {name} from {t}" for m, imps in IMPORTS.items() for t, name, line in imps
           if name and name.startswith("_") and not name.startswith("__") and _owner(t) != m]
    assert not bad, "\n".join(bad)


def test_lower_layers_never_import_the_entry_layer():
    bad = [f"{m}:{line} imports {t}" for m, imps in IMPORTS.items() if _room(m) not in ENTRY
           and m not in ENTRY for t, _, line in imps if _room(_owner(t)) in ENTRY and _owner(t) != "la_gpm.algorithms"]
    bad = [b for b in bad if not b.split(":")[0].startswith("la_gpm.algorithms")]
    assert not bad, "\n".join(bad)


def test_every_cuda_file_sits_in_a_family_or_the_device_layer():
    for p in ROOT.rglob("*.cu*"):
        assert p.parent.name in {"triangles", "kcliques", "exact", "motifs", "color_coding", "motif_estimate",
                                 "dynamic", "device"}, p


def test_old_paths_forward_with_a_deprecation_warning():
    """One release of grace: every pre-0.2 module path still resolves its public names, and says where they went."""
    import importlib

    import pytest

    import la_gpm.api
    import la_gpm.color_coding
    import la_gpm.exact
    import la_gpm.kcliques
    import la_gpm.motif_estimate
    import la_gpm.motifs
    import la_gpm.triangles
    old_new = {"subgraph": ("count_pattern", la_gpm.api.count_pattern), "batch": ("count_many", la_gpm.api.count_many),
               "motifs": ("census", la_gpm.motifs.census), "cliques": ("clique_count", la_gpm.kcliques.clique_count),
               "triangles": ("triangle_count", la_gpm.triangles.triangle_count),
               "match": ("match", la_gpm.exact.match), "color_coding": ("estimate", la_gpm.color_coding.estimate),
               "tree_census": ("tree_census", la_gpm.color_coding.tree_census),
               "motif_estimate": ("estimate_census", la_gpm.motif_estimate.estimate_census)}
    for mod, (name, new) in old_new.items():
        old = importlib.import_module(f"la_gpm.algorithms.{mod}")
        with pytest.warns(DeprecationWarning, match=name):
            got = getattr(old, name)
        assert got is new, (mod, name)
    with pytest.raises(AttributeError, match="no attribute"):
        importlib.import_module("la_gpm.algorithms.subgraph").no_such_name
