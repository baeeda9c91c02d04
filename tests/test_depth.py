"""LA_GPM_TEST_DEPTH: the share of their full examples the heaviest property tests draw (tests/depth.py)."""

from __future__ import annotations

import pytest

from .depth import examples


@pytest.mark.parametrize("env,want", [("", (250, 60, 50, 30)), ("full", (500, 120, 100, 30)),
                                      ("4", (2000, 480, 400, 120)), ("0.01", (50, 50, 50, 30))])
def test_depth_scales_the_examples(monkeypatch, env, want):
    monkeypatch.setenv("LA_GPM_TEST_DEPTH", env)
    assert tuple(examples(n) for n in (500, 120, 100, 30)) == want


@pytest.mark.parametrize("env", ["deep", "0", "-1"])
def test_a_bad_depth_says_what_it_takes(monkeypatch, env):
    monkeypatch.setenv("LA_GPM_TEST_DEPTH", env)
    with pytest.raises(ValueError, match="'full' or a positive number"):
        examples(100)


def test_default_run_is_the_unset_depth(monkeypatch):
    from .depth import default_run
    monkeypatch.delenv("LA_GPM_TEST_DEPTH", raising=False)
    assert default_run()
    monkeypatch.setenv("LA_GPM_TEST_DEPTH", "full")
    assert not default_run()
