"""estimate(..., exact="auto") for trees without a closed form (6+ vertices): the exact count when its predicted
cost (la_gpm.color_coding.cost) is below the colorings' (issue 17), the predictors themselves, and the record
of the decision in Estimate.decision."""

from __future__ import annotations

import math

import numpy as np
import pytest

import la_gpm
from la_gpm import Pattern
from la_gpm.color_coding import cost
from la_gpm.color_coding import driver
from la_gpm.exact.cpu import run_plan
from la_gpm.exact.plans import plan_for

from .oracles import brute_count

SPIDER6 = Pattern([(0, 1), (1, 2), (2, 3), (1, 4), (2, 5)])
CATERPILLAR8 = Pattern([(0, 1), (1, 2), (2, 3), (3, 4), (1, 5), (2, 6), (3, 7)])


def _finite_positive(*xs):
    return all(isinstance(x, (int, float)) and math.isfinite(x) and x > 0 for x in xs)


@pytest.mark.parametrize("t", ["6-path", SPIDER6, "u7"])
def test_auto_counts_small_trees_exactly_against_brute_force(t):
    G = la_gpm.generators.gnm(9, 17, seed=3)
    est = la_gpm.estimate(G, t, backend="cpu")
    assert est.stop == "exact" and est.n_colorings == 0 and est.converged
    assert est.value == est.ci_low == est.ci_high == brute_count(G, la_gpm.patterns.as_pattern(t))
    d = est.decision
    assert d["chosen"] == "exact" and d["engine"] == "plan_dfs" and "predicted exact" in d["reason"]
    assert _finite_positive(d["exact_predicted_s"], d["estimate_predicted_s"], d["exact_actual_s"])
    assert d["safety"] * d["exact_predicted_s"] < d["estimate_predicted_s"]
    assert "plan engine" in est.method and "exact" in str(est)


@pytest.mark.parametrize("P", ["6-path", SPIDER6, "u7", "7-path", CATERPILLAR8])
def test_auto_exact_count_on_karate_equals_count(P):
    G = la_gpm.datasets.load("karate")
    with la_gpm.config.set(exact_node_seconds=1e-12):     # the exact path, whatever the stop rule's cost
        est = la_gpm.estimate(G, P, backend="cpu")
    assert est.stop == "exact" and est.value == la_gpm.count(G, P)
    assert est.decision["chosen"] == "exact" and isinstance(est.value, int)
    d = est.to_dict()["decision"]                 # the record travels with the Estimate's dict (CLI --json)
    assert d["chosen"] == "exact" and d["exact_actual_nodes"] > 0


def test_decision_flips_with_the_exact_cost():
    """The same call counts exactly on a tiny graph and colors once an exact search-tree node is made to cost a
    second (config.exact_node_seconds): the prediction, not the tree size, decides."""
    G = la_gpm.generators.gnm(30, 60, seed=1)
    kw = dict(eps=0.05, delta=0.01, backend="cpu")
    exact = la_gpm.estimate(G, "6-path", **kw)
    assert exact.stop == "exact" and exact.decision["chosen"] == "exact"
    with la_gpm.config.set(exact_node_seconds=1.0):
        colored = la_gpm.estimate(G, "6-path", **kw)
    d = colored.decision
    assert colored.stop == driver.DEFAULT_STOP and colored.n_colorings > 0 and d["chosen"] == "colorings"
    assert d["safety"] * d["exact_predicted_s"] >= d["estimate_predicted_s"]
    assert _finite_positive(d["exact_predicted_s"], d["estimate_predicted_s"], d["per_coloring_s"])
    assert d["pilot_colorings"] >= 1 and d["colorings_predicted"] >= 1 and "exact_actual_s" not in d
    want = la_gpm.count(G, "6-path")
    assert exact.value == want and colored.ci_low <= want <= colored.ci_high


def test_auto_follows_the_predictor(monkeypatch):
    """Would fail if exact='auto' decided without the predictor: a predicted huge enumeration colors, a
    predicted tiny one counts, on the same graph and tree; exact=False and fixed colorings never ask it."""
    G = la_gpm.generators.gnm(40, 90, seed=2)
    kw = dict(eps=0.5, delta=0.5, backend="cpu")
    asked = []
    real = cost.exact_nodes

    def fake(nodes):
        def f(G_, P_, plan, cap=math.inf):
            asked.append(nodes)
            return nodes, True
        return f

    monkeypatch.setattr(cost, "exact_nodes", fake(1e15))
    assert la_gpm.estimate(G, "u7", **kw).decision["chosen"] == "colorings"
    monkeypatch.setattr(cost, "exact_nodes", fake(1.0))
    est = la_gpm.estimate(G, "u7", **kw)
    assert est.stop == "exact" and est.value == la_gpm.count(G, "u7")
    assert asked == [1e15, 1.0]
    monkeypatch.setattr(cost, "exact_nodes", real)
    for extra in ({"exact": False}, {"seed": 1}, {"max_colorings": 3}, {"stop": "clt"}):
        est = la_gpm.estimate(G, "u7", **dict(kw, **extra))
        assert est.stop != "exact" and est.decision["chosen"] == "colorings", extra
    assert asked == [1e15, 1.0]
    with pytest.raises(la_gpm.InvalidArgument, match="exact"):
        la_gpm.estimate(G, "u7", exact="yes")


def test_pilot_decision_and_its_colorings_are_kept(monkeypatch):
    """With the floor decision out of the way (a huge safety factor), the colorings' pilot decides: the pilot's
    colorings are the estimate's first colorings (no coloring is run twice)."""
    G = la_gpm.generators.gnm(60, 150, seed=4)
    seen = []
    real = driver.Runner.totals
    monkeypatch.setattr(driver.Runner, "totals", lambda self, keys: seen.append(len(keys)) or real(self, keys))
    with la_gpm.config.set(auto_safety=1e9):
        est = la_gpm.estimate(G, "7-path", eps=0.05, delta=0.01, backend="cpu")
    d = est.decision
    assert est.stop == driver.DEFAULT_STOP and d["chosen"] == "colorings" and d["pilot_colorings"] >= 1
    assert sum(seen) == est.n_colorings and est.n_colorings >= d["pilot_colorings"]
    with la_gpm.config.set(auto_safety=1e-9):
        seen.clear()
        est = la_gpm.estimate(G, "7-path", eps=0.05, delta=0.01, backend="cpu")
    assert est.stop == "exact" and est.value == la_gpm.count(G, "7-path")
    assert est.decision["pilot_colorings"] == sum(seen)


def test_too_large_for_the_exact_engine_colors():
    G = la_gpm.generators.gnm(30, 40, seed=5)
    est = la_gpm.estimate(G, "u13", max_colorings=2, backend="cpu")
    assert est.stop == driver.DEFAULT_STOP and est.decision["chosen"] == "colorings"
    assert driver.exact_plan(G, Pattern.named("u13")) is None


# ----------------------------------------------------------------------------- the predictors
@pytest.mark.parametrize("P", ["6-path", "6-star", SPIDER6, "u7", "7-path", "8-path", CATERPILLAR8])
def test_exact_nodes_track_the_engine(P):
    """The predicted search-tree nodes are within [0.9, 5] x the nodes the plan engine visits on karate and a
    random graph (measured 1.1-3.9x: an upper bound up to sibling collisions and cycles)."""
    for G in (la_gpm.datasets.load("karate"), la_gpm.generators.gnm(200, 800, seed=6)):
        P_ = la_gpm.patterns.as_pattern(P)
        plan = plan_for(G, P_)
        pred, complete = cost.exact_nodes(G, P_, plan)
        actual = run_plan(G, plan)[1]["tree_nodes"]
        assert complete and 0.9 * actual <= pred <= 5 * actual, (P, G.n, pred, actual)
        capped, done = cost.exact_nodes(G, P_, plan, cap=1.0)
        assert not done and capped <= pred


def test_prefix_counts_equal_homomorphisms_without_bounds():
    """Without symmetry pairs, on a graph of minimum degree >= the tree's, the prefix counts are the
    non-backtracking homomorphism counts: a path's are the non-backtracking walks."""
    G = la_gpm.generators.gnm(25, 120, seed=7)
    assert G.degrees.min() >= 2
    P = Pattern.named("5-path")
    got = cost.prefix_partial_matches(G, P, (0, 1, 2, 3, 4))
    A = G.to_scipy().toarray().astype(np.int64)
    D = np.diag(A.sum(1))
    # non-backtracking walks: W1 = A, W2 = A^2 - D, W_{l+1} = W_l A - W_{l-1} (D - I)
    W = [np.eye(G.n, dtype=np.int64), A, A @ A - D]
    for _ in range(2):
        W.append(W[-1] @ A - W[-2] @ (D - np.eye(G.n, dtype=np.int64)))
    assert got == [float(G.n)] + [float(W[i].sum()) for i in range(1, 5)]


def test_linear_extension_fraction():
    f = cost.linear_extension_fraction
    assert f([]) == 1.0 and f([(0, 1)]) == 0.5 and f([(0, 1), (2, 3)]) == 0.25
    assert f([(0, 1), (1, 2)]) == pytest.approx(1 / 6) and f([(0, 1), (0, 2)]) == pytest.approx(1 / 3)


def test_colorings_needed_replays_the_stop_rules():
    needed = driver.colorings_needed
    # the clt rule: z·sd/sqrt(t) <= eps·mean, rounded up to a pass
    z = 2.5758293035489
    t = needed("clt", 10.0, 25.0, 6, 0.05, 0.01, 1 << 20)
    assert (z * 5 / (0.05 * 10)) ** 2 <= t <= 1.5 * (z * 5 / (0.05 * 10)) ** 2 + 2
    assert needed("clt", 0.0, 0.0, 6, 0.05, 0.01, 100) == 42    # the first pass end past 30: 1,2,3,4,6,9,13,19,28,42
    zero = needed("adaptive", 0.0, 0.0, 6, 0.05, 0.01, 100)     # all zero: stops once the range term r < 1
    assert 3 * math.log(3 / 0.01) / (720 / 6 ** 6) < zero < 3000
    a1 = needed("adaptive", 1.0, 0.0, 6, 0.05, 0.01, 1000)
    assert a1 >= 3 * math.log(3 / 0.01) / ((720 / 6 ** 6) * 0.05)
    assert needed("adaptive", 1.0, 4.0, 6, 0.05, 0.01, 1000) > a1 > needed("adaptive", 1.0, 0.0, 6, 0.1, 0.01, 1000)
    assert needed("acs", 1.0, 4.0, 6, 0.05, 0.01, 64) > needed("clt", 1.0, 4.0, 6, 0.05, 0.01, 64)
    g, tt = driver.classical_colorings(6, 0.05, 0.01)
    assert needed("classical", 1.0, 4.0, 6, 0.05, 0.01, 64) == g * tt


@pytest.mark.parametrize("stop", ["adaptive", "clt", "acs"])
def test_colorings_needed_matches_a_run(stop):
    """Fed the final sample's mean and variance, the replay lands within 2x of the colorings a run took."""
    G = la_gpm.datasets.load("karate")
    est = la_gpm.estimate(G, "4-path", eps=0.2, delta=0.1, seed=3, stop=stop, exact=False, backend="cpu")
    nb_max = driver.prepare(G, "4-path", "cpu", "float32", "auto")[5].pass_size()
    got = driver.colorings_needed(stop, est.values.mean(), est.values.var(ddof=1), 4, 0.2, 0.1, nb_max)
    assert est.n_colorings / 2 <= got <= 2 * est.n_colorings, (got, est.n_colorings)
