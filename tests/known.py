"""Published exact counts for the graphs in ../shared/data (one table; see its README)."""

TRIANGLES = {
    "karate.mtx": (34, 78, 45),
    "jagmesh7.mtx": (1138, 3156, 2016),
    "citeseer.edgelist": (3264, 4536, 1166),
    "email-Eu-core.txt": (986, 16064, 105461),
    "wiki-Vote.txt": (7115, 100762, 608389),
    "p2p-Gnutella08.txt.gz": (6301, 20777, 2383),
}

CITESEER_CLIQUES = {3: 1166, 4: 255, 5: 46, 6: 4, 7: 0}
WIKI_VOTE_CLIQUES = {4: 2077903, 5: 4514137}
CITESEER_NONINDUCED_5 = {"house": 55359, "pentagon": 28394, "hourglass": 16034}
CITESEER_INDUCED_4 = {"4-path": 111153, "4-star": 222630, "4-cycle": 3094, "tailed-triangle": 22900,
                      "diamond": 2200, "4-clique": 255}
CITESEER_NONINDUCED_4 = {"4-path": 185589, "4-star": 250950, "tailed-triangle": 34760, "4-cycle": 6059,
                         "diamond": 3730, "4-clique": 255}
CITESEER_INDUCED_3 = {"wedge": 23380, "triangle": 1166}
