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


# ------------------------------------------------------------------ estimated census (Motivo) on the cluster
def _same_table(a, b):
    """Two estimate_census tables equal: every column exactly and the run's totals."""
    assert list(a.columns) == list(b.columns)
    assert a.equals(b), (a, b)
    for key in ("k", "seed", "colorings", "samples", "total", "converged", "pending", "adaptive_colorings",
                "checks", "batch"):
        assert a.attrs[key] == b.attrs[key], key


@pytest.mark.filterwarnings("ignore:estimate_census stopped before convergence")
@pytest.mark.parametrize("k,kw", [
    (4, dict(seed=3, eps=0.05, max_colorings=60, samples_per_coloring=2048)),            # AGS steers between batches
    (5, dict(seed=4, max_samples=11_000, samples_per_coloring=3000)),                     # budget runs out mid-batch
    (8, dict(seed=7, max_colorings=6, samples_per_coloring=2000, min_colorings=3)),       # classes found as sampled
])
def test_estimate_census_equals_local(client, k, kw):
    from la_gpm.distributed import estimate_census as dest
    G = la_gpm.datasets.load("karate")
    for batch in (1, 5):
        d = dest(G, k, client=client, batch=batch, **kw)
        s = la_gpm.estimate_census(G, k, backend="cpu", batch=batch, **kw)
        _same_table(d, s)
        ran = sum(w["colorings"] for w in d.attrs["workers"].values())
        # with a batch of 5 the budget runs out inside the batch: that coloring ran once more, with the remainder
        assert ran == d.attrs["colorings"] + (batch > 1 and "max_samples" in kw)
        assert d.attrs["n_workers"] == 2
    if k == 4:
        # AGS steered some colorings, so the batch changed the design: batch 1 and 5 differ here,
        # and the distributed run followed its batch, not the other one
        assert d.attrs["adaptive_colorings"] > 0
        assert not d.equals(la_gpm.estimate_census(G, k, backend="cpu", batch=1, **kw))


def test_estimate_census_batch_free_without_steering(client):
    """adaptive=False and a fixed sample count: no state carries between colorings, so every batch (and
    the distributed call) gives the plain single-machine table; the intervals cover the exact census."""
    from la_gpm.distributed import estimate_census as dest
    G = la_gpm.datasets.load("karate")
    kw = dict(seed=11, adaptive=False, samples_per_coloring=1024, eps=0.2)
    want = la_gpm.estimate_census(G, 4, backend="cpu", **kw)
    got = dest(G, 4, client=client, batch=7, **kw)
    assert got.attrs["converged"]
    assert got.equals(want)
    assert (got.attrs["colorings"], got.attrs["samples"]) == (want.attrs["colorings"], want.attrs["samples"])
    exact = la_gpm.census(G, 4, backend="cpu").set_index("name")["count"]
    for name, lo, hi in zip(got["name"], got["ci_low"], got["ci_high"]):
        assert lo <= exact[name] <= hi, name
    with pytest.raises(InvalidArgument, match="batch"):
        dest(G, 4, client=client, batch=0)
    with pytest.raises(InvalidArgument, match="backend"):
        dest(G, 4, client=client, backend="graphblas")


# ------------------------------------------------------------------ a worker process dies in the middle of a call
@pytest.fixture(scope="module")
def process_client():
    """Two worker processes (one thread each, numba on one thread: the test machine may have 2 cores) under
    nannies, which restart a worker that dies."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  env={"NUMBA_NUM_THREADS": "1"}) as lc, distributed.Client(lc) as c:
        yield c


def _kill_a_worker_mid_call(c, call, task_prefix):
    """Run ``call()`` in a thread; as soon as one of its tasks (key prefix ``task_prefix``) is processing on a
    worker, SIGKILL that worker's process; return the call's result. Fails if the call ended before the kill
    (then the test would not have tested a death) or if it raised."""
    import os
    import signal
    import threading
    import time

    pids = c.run(os.getpid)                      # {worker address: pid} of the worker processes
    assert len(pids) == 2
    box = {}

    def target():
        try:
            box["result"] = call()
        except BaseException as e:  # noqa: BLE001 -- re-raised in the test's thread
            box["error"] = e
    th = threading.Thread(target=target, daemon=True)
    th.start()
    victim = None
    deadline = time.monotonic() + 60
    while victim is None and th.is_alive() and time.monotonic() < deadline:
        for addr, keys in c.processing().items():
            if addr in pids and any(str(key).startswith(task_prefix) for key in keys):
                victim = addr
                break
        else:
            time.sleep(0.005)
    assert victim is not None, "the call ended before a task of it was seen running: nothing was killed"
    os.kill(pids[victim], signal.SIGKILL)
    assert th.is_alive(), "the call ended before the kill"
    th.join(120)
    assert not th.is_alive(), "the call did not finish after the worker died"
    if "error" in box:
        raise box["error"]
    # the killed process is gone; its nanny started a new one
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            now = c.run(os.getpid)
        except OSError:
            now = {}
        if len(now) == 2 and pids[victim] not in now.values():
            break
        time.sleep(0.1)
    assert pids[victim] not in c.run(os.getpid).values()
    return box["result"]


def test_worker_death_mid_census_gives_the_exact_census(process_client):
    """A worker killed while the census's root ranges run: Dask runs its tasks again; the exact table is unchanged."""
    from la_gpm.distributed import census as dcensus
    G = la_gpm.generators.rmat(10, seed=3)     # about 4 s of 5-vertex enumeration on one core, cut in 24 parts
    got = _kill_a_worker_mid_call(process_client, lambda: dcensus(G, 5, client=process_client, parts=24),
                                  "census_part")
    want = la_gpm.census(G, 5, backend="cpu")
    assert list(got["name"]) == list(want["name"])
    assert list(got["count"]) == list(want["count"])


@pytest.mark.filterwarnings("ignore:estimate_census stopped before convergence")
def test_worker_death_mid_estimate_census_gives_the_same_table(process_client):
    """A worker killed while the estimated census's colorings run: their tasks run again elsewhere and the
    client still takes the colorings in order, so the table equals the single-machine one of the same seed."""
    from la_gpm.distributed import estimate_census as dest
    G = la_gpm.datasets.load("karate")
    kw = dict(seed=3, batch=8, samples_per_coloring=4096, max_colorings=120)
    got = _kill_a_worker_mid_call(process_client, lambda: dest(G, 4, client=process_client, **kw), "census_colorings")
    want = la_gpm.estimate_census(G, 4, backend="cpu", **kw)
    assert got.attrs["colorings"] == want.attrs["colorings"] == 120
    assert got.equals(want)
