"""The advanced tier: each algorithm with its methods exposed (``la_gpm.count`` picks for you)."""
