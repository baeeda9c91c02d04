"""la_gpm.distributed: the parts add up to the single-machine count, on a real local Dask cluster."""

from __future__ import annotations

import pytest

import la_gpm
from la_gpm.exceptions import InvalidArgument

from .conftest import data_path

distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (the dist extra)")
from la_gpm.distributed import count as dcount, count_part  # noqa: E402

PATTERNS = [("triangle", False), ("4-clique", False), ("diamond", False), ("4-cycle", True),
            ("tailed-triangle", False), ("5-cycle", False)]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as lc, \
            distributed.Client(lc) as c:
        yield c


@pytest.mark.parametrize("name,induced", PATTERNS)
def test_parts_add_up(name, induced):
    G = la_gpm.as_graph(data_path("citeseer.edgelist"))
    want = la_gpm.count(G, name, induced=induced, backend="cpu")
    for nparts in (1, 3, 8):
        got = [count_part(G, name, (i, nparts), induced=induced) for i in range(nparts)]
        assert sum(got) == want
    if nparts > 1 and want:
        assert max(got) < want  # really split


def test_no_client_says_how():
    G = la_gpm.datasets.load("karate")
    try:
        distributed.get_client()
        pytest.skip("a default client exists in this process (runs first in this module to avoid that)")
    except ValueError:
        pass
    with pytest.raises(InvalidArgument, match="Client"):
        dcount(G, "triangle")


@pytest.mark.parametrize("name,induced", PATTERNS)
def test_cluster_count_equals_local(client, name, induced):
    G = la_gpm.generators.rmat(9, seed=4)  # hubs, but few enough 5-cycles for seconds
    for kind in ("unique", "embeddings"):
        want = la_gpm.count(G, name, induced=induced, count=kind, backend="cpu")
        assert dcount(G, name, client=client, induced=induced, count=kind) == want
    assert dcount(G, name, client=client, parts=5, induced=induced) == la_gpm.count(G, name, induced=induced)


def test_labeled_query_on_cluster(client):
    from la_gpm.io import read_sunluo
    from la_gpm.patterns import read_query
    H = read_sunluo(data_path("hprd/HPRD.graph"))
    Q = read_query(data_path("hprd/query_graph/query_dense_16_1.graph"))
    want = la_gpm.count(H, Q, count="embeddings", backend="cpu")
    assert dcount(H, Q, client=client, count="embeddings") == want


def test_errors(client):
    G = la_gpm.datasets.load("karate")
    with pytest.raises(InvalidArgument, match="parts"):
        dcount(G, "triangle", client=client, parts=0)
    with pytest.raises(InvalidArgument, match="backend"):
        dcount(G, "triangle", client=client, backend="graphblas")
    with pytest.raises(InvalidArgument, match="client"):
        dcount(G, "triangle", client="localhost:8786")
    with pytest.raises(InvalidArgument, match="part"):
        count_part(G, "triangle", (3, 3))
    with pytest.raises(InvalidArgument, match="count"):
        dcount(G, "triangle", client=client, count="all")



def test_estimate_equals_single_machine(client):
    from la_gpm.distributed import estimate as destimate
    G = la_gpm.datasets.load("karate")
    for template, stop in (("u5", "clt"), ("3-path", "adaptive")):
        d = destimate(G, template, client=client, per_part=3, seed=7, stop=stop, eps=0.2, max_colorings=60,
                      dtype="float64")
        s = la_gpm.estimate(G, template, seed=7, stop=stop, eps=0.2, max_colorings=60, dtype="float64", batch=2 * 3,
                            backend="cpu")
        assert d.n_colorings == s.n_colorings
        assert d.value == pytest.approx(s.value, rel=1e-12)
        assert (d.ci_low, d.ci_high) == pytest.approx((s.ci_low, s.ci_high), rel=1e-12)
    est = destimate(G, "3-path", client=client, eps=0.1, seed=1)
    assert est.ci_low <= 528 <= est.ci_high  # the exact number of 3-vertex paths
    with pytest.raises(InvalidArgument, match="per_part"):
        destimate(G, "u5", client=client, per_part=0)


@pytest.mark.parametrize("k", [4, 5])
def test_census_equals_local(client, k):
    from la_gpm.distributed import census as dcensus
    G = la_gpm.as_graph(data_path("citeseer.edgelist"))
    for induced in (True, False):
        want = la_gpm.census(G, k, induced=induced, backend="cpu")
        got = dcensus(G, k, client=client, induced=induced)
        assert list(got["name"]) == list(want["name"])
        assert list(got["count"]) == list(want["count"])
        assert got.attrs["method"] == "distributed_enumerate" and got.attrs["induced"] == induced
    with pytest.raises(InvalidArgument, match="parts"):
        dcensus(G, k, client=client, parts=-1)


def test_graph_scattered_once_per_client(client):
    from la_gpm.distributed import _scattered
    G = la_gpm.generators.rmat(8, seed=2)
    want = la_gpm.count(G, "diamond", backend="cpu")
    assert dcount(G, "diamond", client=client) == want
    key = G._cache["dask-scattered"][1].key
    assert dcount(G, "4-cycle", client=client) == la_gpm.count(G, "4-cycle", backend="cpu")
    assert _scattered(client, G).key == key                      # the workers' copy is reused
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as lc, \
            distributed.Client(lc, set_as_default=False) as other:
        assert dcount(G, "diamond", client=other) == want        # another client: scattered there
        assert G._cache["dask-scattered"][1].key != key
    assert dcount(G, "diamond", client=client) == want           # and back: scattered again, same count


def _gpu_reason():
    from la_gpm.backends import gpu_status
    return gpu_status()


def _gpu_cluster():
    """One worker per visible GPU (dask_cuda.LocalCUDACluster: a process each, pinned to its device)
    where dask-cuda is installed, else one in-process worker on the current GPU."""
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        return distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None)
    return LocalCUDACluster(threads_per_worker=1, dashboard_address=None)


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=f"no GPU: {_gpu_reason()}")
def test_gpu_workers_count_equals_cpu():
    # the gpu parts (clique kernel arc ranges, trie engine root ranges) on GPU workers add up to the cpu count
    G = la_gpm.generators.rmat(10, seed=4)
    with _gpu_cluster() as lc, distributed.Client(lc) as c:
        assert len(c.scheduler_info()["workers"]) >= 1
        for name, induced in (("triangle", False), ("5-clique", False), ("house", False), ("4-cycle", True)):
            want = la_gpm.count(G, name, induced=induced, backend="cpu")
            assert dcount(G, name, client=c, backend="gpu", induced=induced) == want, name
            assert dcount(G, name, client=c, backend="gpu", induced=induced, parts=7) == want, name


def test_the_engine_table_decides_here_too(client):
    """A pattern with a closed form (any spelling) is counted whole in one task; a triangle is split over
    the clique kernel's parts; both equal the single-machine count."""
    G = la_gpm.datasets.load("karate")
    for pattern in ([(3, 0), (0, 1), (2, 0)], "4-path", "triangle", "4-cycle"):
        assert dcount(G, pattern, client=client, parts=3) == la_gpm.count(G, pattern, backend="cpu")
