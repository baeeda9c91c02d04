"""Small real graphs bundled with the package, with their published exact counts.

>>> import la_gpm
>>> G = la_gpm.datasets.load("karate")
>>> la_gpm.datasets.KNOWN["karate"]["triangles"]
45
"""

from __future__ import annotations

from importlib import resources

from ..exceptions import InvalidArgument

__all__ = ["load", "names", "KNOWN"]

_FILES = {
    "karate": "karate.mtx.gz",
    "citeseer": "citeseer.edgelist.gz",
    "email-Eu-core": "email-Eu-core.txt.gz",
}

# Published exact counts (unique subgraphs); sources in shared/data/README.md of the project.
KNOWN = {
    "karate": {"n": 34, "m": 78, "triangles": 45, "source": "LAGraph test suite"},
    "citeseer": {"n": 3264, "m": 4536, "triangles": 1166, "cliques": {3: 1166, 4: 255, 5: 46, 6: 4, 7: 0},
                 "source": "GraphMiner, Peregrine"},
    "email-Eu-core": {"n": 986, "m": 16064, "triangles": 105461, "source": "SNAP"},
}


def names() -> list[str]:
    return list(_FILES)


def load(name: str):
    """Load a bundled graph as an undirected simple :class:`la_gpm.Graph`."""
    from ..io import read_graph

    if name not in _FILES:
        raise InvalidArgument(f"unknown dataset {name!r}; bundled: {names()}")
    res = resources.files("la_gpm.datasets").joinpath("data", _FILES[name])
    with resources.as_file(res) as path:
        G = read_graph(path)
    G.name = name
    return G
