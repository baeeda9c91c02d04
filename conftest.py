"""Collection rules for the doctests of optional parts (the test extra installs them all; a machine
without an optional dependency skips that module's doctests instead of failing to import it)."""

import importlib.util

collect_ignore_glob = []
if importlib.util.find_spec("distributed") is None:
    collect_ignore_glob.append("la_gpm/distributed/*")
