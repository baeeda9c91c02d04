"""Repeat counts (la_gpm.engines.repeatable): a second ``la_gpm.count(G, name, backend=...)`` on the same graph
runs the kernels the engine table's first choice bound, and nothing else.  Each test counts every call
against the CPU engine, so a bound output that is not reset, a stale binding after a config change or a
cleared device cache, or a wrong multiplier gives a wrong number."""

import math

import pytest

import la_gpm
from la_gpm import engines
from la_gpm.backends import gpu_status

requires_gpu = pytest.mark.skipif(gpu_status() is not None, reason=f"no GPU: {gpu_status()}")


def _kept(G):
    return G._cache.get(engines.REPEAT_KEY) or {}


def test_a_count_on_the_cpu_keeps_nothing_for_repeats(monkeypatch):
    """Only the gpu rows have a repeat form: a count on the cpu (or anywhere without a device) keeps nothing and
    asks the table once a call."""
    G = la_gpm.datasets.load("karate")
    asked = []
    real = engines.choose
    monkeypatch.setattr(engines, "choose", lambda *a, **kw: asked.append(1) or real(*a, **kw))
    assert [la_gpm.count(G, "triangle", backend="cpu") for _ in range(3)] == [45] * 3
    assert asked == [1, 1, 1] and not _kept(G)
    assert not engines.may_repeat("cpu")


@requires_gpu
@pytest.mark.gpu
@pytest.mark.parametrize("graph", ["karate", "gnm", "rmat"])
def test_repeat_triangle_counts_on_the_gpu_equal_the_cpu_every_call(graph):
    """karate: the uniform schedule, one launch; gnm (150,000 DAG arcs): the timed schedule; R-MAT 17: the bucketed
    schedule, hub rows and several bins summing into one output (a call that did not reset it would return twice
    the count)."""
    G = {"karate": lambda: la_gpm.datasets.load("karate"),
         "gnm": lambda: la_gpm.generators.gnm(30_000, 150_000, seed=4),
         "rmat": lambda: la_gpm.generators.rmat(17, seed=2)}[graph]()
    want = la_gpm.count(G, "triangle", backend="cpu")
    assert [la_gpm.count(G, "triangle", backend="gpu") for _ in range(4)] == [want] * 4
    kept = _kept(G)
    assert len(kept) == 1 and next(iter(kept.values()))[0] is not None       # bound, and used by calls 2-4
    assert la_gpm.count(G, "triangle", backend="gpu", count="embeddings") == 6 * want
    assert la_gpm.count(G, "triangle", backend="gpu", count="embeddings") == 6 * want
    assert la_gpm.count(G, "triangle", backend="gpu", method="warp_per_arc") == want      # options: the usual way
    with la_gpm.config.set(gpu_block=128):                                    # a config change: bound again
        assert [la_gpm.count(G, "triangle", backend="gpu") for _ in range(2)] == [want] * 2
    assert len(_kept(G)) == 3
    G.clear_device_cache()                                                    # drops the bound counts with the copies
    assert not _kept(G)
    assert [la_gpm.count(G, "triangle", backend="gpu") for _ in range(2)] == [want] * 2


@requires_gpu
@pytest.mark.gpu
@pytest.mark.parametrize("k", [4, 5, 6])
def test_repeat_clique_counts_on_the_gpu_equal_the_cpu_every_call(k):
    """k = 4: the stack kernel; 5: the bitmap kernel; 6: the bitmap kernel over balanced work items.  The counters
    (next item, total, overflow) are zeroed each call: a kept item counter would leave every later call 0."""
    G = la_gpm.generators.rmat(12, seed=5)
    want = la_gpm.count(G, f"{k}-clique", backend="cpu")
    assert want > 0
    assert [la_gpm.count(G, f"{k}-clique", backend="gpu") for _ in range(4)] == [want] * 4
    kept = list(_kept(G).values())
    assert [v[0] is not None for v in kept] == [True]
    launches = kept[0][0]
    call, arg = launches.scratch[:2]
    assert launches.calls[call][3][arg] is None          # the stacks are not kept: taken from the pool each call
    assert la_gpm.count(G, f"{k}-clique", backend="gpu", count="embeddings") == want * math.factorial(k)


@requires_gpu
@pytest.mark.gpu
def test_a_gpu_row_without_a_repeat_form_is_asked_once_then_counted_the_usual_way():
    G = la_gpm.generators.gnm(300, 1_500, seed=3)
    want = la_gpm.count(G, "4-cycle", backend="cpu")
    assert [la_gpm.count(G, "4-cycle", backend="gpu") for _ in range(3)] == [want] * 3
    assert [v[0] for v in _kept(G).values()] == [None]


@requires_gpu
@pytest.mark.gpu
def test_a_pattern_file_is_read_every_call_and_never_kept(tmp_path):
    """A pattern given as a file's path may change between calls: it is read each time, nothing is kept for it."""
    G = la_gpm.generators.rmat(12, seed=5)
    f = tmp_path / "q.fascia"
    f.write_text("3\n3\n0 1\n1 2\n0 2\n")
    assert la_gpm.count(G, str(f), backend="gpu") == la_gpm.count(G, "triangle", backend="cpu")
    f.write_text("4\n6\n0 1\n0 2\n0 3\n1 2\n1 3\n2 3\n")
    assert la_gpm.count(G, str(f), backend="gpu") == la_gpm.count(G, "4-clique", backend="cpu")
    assert not _kept(G)


def test_only_catalog_names_key_a_repeat_count():
    from la_gpm.patterns.catalog import names_a_file
    assert not names_a_file("triangle") and not names_a_file("4-clique")
    assert names_a_file("q.fascia") and names_a_file("q.graph") and names_a_file("dir/q")
