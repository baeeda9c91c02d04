"""How many examples the heaviest property tests draw.

The default run (the README's test command, CI on two cores) draws half of each such test's full count, so that it
stays near ten minutes from a fresh clone; ``LA_GPM_TEST_DEPTH=full`` draws the full counts (before a release, or
after a change to the code a test covers), and a number scales them (``LA_GPM_TEST_DEPTH=4`` draws four times the
full count).  Only tests of at least 100 full examples take part; every count stays at least 50.  A test whose rare draws can take
minutes draws the same examples every default run (``derandomize=default_run()``) and fresh ones at any set depth.
"""

from __future__ import annotations

import os

DEFAULT_SHARE = 0.5


def _scale() -> float:
    v = os.environ.get("LA_GPM_TEST_DEPTH", "").strip().lower()
    if not v:
        return DEFAULT_SHARE
    if v == "full":
        return 1.0
    try:
        s = float(v)
    except ValueError:
        raise ValueError(f"LA_GPM_TEST_DEPTH must be 'full' or a positive number; got {v!r}") from None
    if not s > 0:
        raise ValueError(f"LA_GPM_TEST_DEPTH must be 'full' or a positive number; got {v!r}")
    return s


def examples(full: int) -> int:
    """The examples a property test of ``full`` examples draws in this run (see the module notes)."""
    return max(min(full, 50), round(full * _scale()))


def default_run() -> bool:
    """Whether this is the default run (no ``LA_GPM_TEST_DEPTH``)."""
    return not os.environ.get("LA_GPM_TEST_DEPTH", "").strip()
