"""Hand-ons of the GPU's dynamic search (la_gpm/dynamic/gamma.cu's notes, la_gpm/dynamic/gpu.py).

Counting a query of five vertices or more, a warp whose item or piece runs past ``config.dynamic_gpu_split_us`` once
every item has been taken writes all it has not searched as pieces (the candidates after its current one at each
level down to last - 2), and the host launches them, until no launch hands on.  What must hold: every count as brute
force, as the CPU and as the GPU without hand-ons, wherever a warp stops; ``stats["gpu_pieces"]`` says it happened;
listing (rows at offsets fixed per item) hands on in its counting pass only.  A budget of 1 us makes the warps look at every step, so warps
hand on within the first steps of items on these small graphs.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import la_gpm
from la_gpm import Pattern

from .conftest import data_path
from .test_dynamic import _check_case, _edge_set, _graph_from_pairs, _rows, cases
from .test_dynamic_escape import PATH7, _after, _count, _hub_case

requires_gpu = pytest.mark.skipif(la_gpm.backends.gpu_status() is not None,
                                  reason=f"no GPU: {la_gpm.backends.gpu_status()}")
pytestmark = [pytest.mark.gpu, requires_gpu]


def _counts(G, P, ins, dele, backend, us, **kw):
    """(positive, negative, stats) of one batch on ``backend`` with hand-ons after ``us`` (``kw``: match_delta's)."""
    with la_gpm.config.set(dynamic_gpu_split_us=us):
        d = la_gpm.match_delta(G, P, insert=ins, delete=dele, backend=backend, **kw)
    return d.positive, d.negative, d.stats


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(edge_labels=True))
def test_hand_ons_equal_brute_force_on_random_batches(case):
    """Few warps (a tiny memory budget), every step looked at: 5-vertex queries hand on at level 2."""
    with la_gpm.config.set(dynamic_gpu_split_us=1, memory_budget=4096, gpu_block=32):
        _check_case(*case, backend="gpu")


def _random_deep(seed):
    """A random graph of 36 vertices and 2 labels, a random connected query of 6-8 vertices, and a batch."""
    rng = np.random.default_rng(seed)
    n = 36
    E = sorted({(int(a), int(b)) for a, b in rng.integers(0, n, size=(260, 2)) if a < b})
    labels = rng.integers(0, 2, size=n)
    G = _graph_from_pairs(n, E, labels)
    k = int(rng.integers(6, 9))
    edges = [(int(rng.integers(0, v)), v) for v in range(1, k)]
    edges += [(a, b) for a in range(k) for b in range(a + 2, k) if rng.random() < 0.12 and (a, b) not in edges]
    P = Pattern(edges, k=k, vertex_labels=rng.integers(0, 2, size=k).tolist() if seed % 2 else None)
    dele = [E[i] for i in rng.choice(len(E), size=6, replace=False)]
    ins = [(int(a), int(b)) for a, b in rng.integers(0, n, size=(10, 2)) if a != b]
    return G, P, ins, dele


@pytest.mark.parametrize("induced", [False, True])
def test_deep_queries_hand_on_at_every_level_and_count_as_the_cpu(induced):
    """Queries of 6-8 vertices: pieces handed on at levels 2 .. last - 2, and pieces of pieces."""
    pieces = launches = 0
    for seed in range(12):
        G, P, ins, dele = _random_deep(seed)
        for count in ("embeddings", "unique"):
            kw = dict(induced=induced, count=count)
            with la_gpm.config.set(memory_budget=1 << 14, gpu_block=32):
                pos, neg, st = _counts(G, P, ins, dele, "gpu", 1, **kw)
            off = _counts(G, P, ins, dele, "gpu", 0, **kw)
            cpu = _counts(G, P, ins, dele, "cpu", 1, **kw)
            assert (pos, neg) == off[:2] == cpu[:2], (seed, count, P)
            assert "gpu_pieces" not in off[2]
            pieces += st.get("gpu_pieces", 0)
            launches += st.get("gpu_launches", 0)
    assert pieces > 0 and launches > 12      # pieces were handed on, and pieces of pieces in further launches


def test_a_hub_item_hands_on_and_counts_right():
    """The 7-path through a hub of 400 neighbours: one heavy item; every match counted once."""
    G, (a, b), far = _hub_case()
    ins, dele = [(a, b), far[2]], [far[0]]
    kept = _count(_after(G, [], dele))
    want = (_count(_after(G, ins, dele)) - kept, _count(G) - kept)
    for us in (1, 1000):
        pos, neg, st = _counts(G, PATH7, ins, dele, "gpu", us)
        assert (pos, neg) == want
    pos, neg, st = _counts(G, PATH7, ins, dele, "gpu", 1)
    assert st["gpu_pieces"] > 0


@pytest.mark.parametrize("query", ["query_sparse_8_2", "query_dense_8_3", "query_sparse_16_1"])
def test_real_graph_hand_ons_count_as_the_cpu(query):
    """Yeast, a 2% batch: the GPU with hand-ons after 1 us and after the default equals the CPU, listing too."""
    path = data_path("yeast/yeast.graph")
    G = la_gpm.io.read_sunluo(path)
    Q = la_gpm.patterns.read_query(path.parent / "query_graph" / f"{query}.graph")
    rng = np.random.default_rng(5)
    E = np.array(sorted(_edge_set(G)), dtype=np.int64)
    pick = E[rng.choice(len(E), size=int(0.02 * len(E)), replace=False)]
    ins, dele = pick[: 2 * len(pick) // 3], pick[2 * len(pick) // 3:]
    rest = set(map(tuple, E.tolist())) - set(map(tuple, ins.tolist()))
    G0 = _graph_from_pairs(G.n, sorted(rest), G.vertex_labels)
    want = _counts(G0, Q, ins, dele, "cpu", 0)[:2]
    got = _counts(G0, Q, ins, dele, "gpu", 1)
    assert got[:2] == want
    assert got[2].get("gpu_pieces", 0) > 0 or sum(want) == 0
    assert _counts(G0, Q, ins, dele, "gpu", la_gpm.config.dynamic_gpu_split_us)[:2] == want
    # listing: the counting pass hands on, the listing pass (rows at the items' offsets) does not
    with la_gpm.config.set(dynamic_gpu_split_us=1):
        d = la_gpm.match_delta(G0, Q, insert=ins, delete=dele, backend="gpu", listing=True, count="unique")
    c = la_gpm.match_delta(G0, Q, insert=ins, delete=dele, backend="cpu", listing=True, count="unique")
    assert (len(d.positive_matches), len(d.negative_matches)) == (d.positive, d.negative) == (c.positive, c.negative)
    assert _rows(d.positive_matches) == _rows(c.positive_matches)
    assert _rows(d.negative_matches) == _rows(c.negative_matches)
