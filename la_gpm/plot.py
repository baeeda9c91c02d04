"""Plots of census results (needs the ``plot`` extra: ``pip install "la-gpm[plot]"``)."""

from __future__ import annotations

from .exceptions import BackendUnavailable, InvalidArgument

__all__ = ["plot_census"]


def plot_census(df, path=None, *, ax=None, title=None, graph=None):
    """Bar chart of motif frequencies (log scale), with confidence intervals when ``df`` has them.

    ``df`` is a table from :func:`la_gpm.census` (exact counts) or
    :func:`la_gpm.estimate_census` (estimates with ``ci_low``/``ci_high``).  Writes the
    figure to ``path`` when given; returns the matplotlib Axes.  The title names the graph:
    ``graph`` (a name, or a :class:`la_gpm.Graph` whose ``name`` is used), else ``df.attrs["graph"]``
    when set; ``title`` replaces the whole title.
    """
    try:
        import matplotlib
        if path is not None and ax is None:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise BackendUnavailable(f"plotting needs matplotlib ({e}); pip install 'la-gpm[plot]'") from None
    if "count" not in df.columns or "name" not in df.columns:
        raise InvalidArgument(f"plot_census needs a census table with 'name' and 'count'; got columns {list(df.columns)}")
    d = df[df["count"].astype(float) > 0]
    total = float(d["count"].astype(float).sum()) or 1.0
    freq = d["count"].astype(float) / total
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(6.0, 0.35 * len(d) + 2), 4.5))
    x = range(len(d))
    yerr = None
    if {"ci_low", "ci_high"} <= set(d.columns):
        lo = freq - d["ci_low"].astype(float) / total
        hi = d["ci_high"].astype(float) / total - freq
        yerr = [lo.clip(lower=0).to_numpy(), hi.clip(lower=0).to_numpy()]
    ax.bar(x, freq.to_numpy(), yerr=yerr, capsize=3, color="#4C72B0")
    ax.set_yscale("log")
    ax.set_xticks(list(x))
    ax.set_xticklabels([str(n) for n in d["name"]], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("relative frequency")
    k = df.attrs.get("k")
    if graph is not None and not isinstance(graph, str):
        graph = getattr(graph, "name", None)
    graph = graph or df.attrs.get("graph")
    ax.set_title(title or ((f"{k}-vertex motifs" if k else "motif census") + (f" of {graph}" if graph else "")
                           + (" (estimate, intervals shown)" if yerr is not None else "")))
    ax.figure.tight_layout()
    if path is not None:
        ax.figure.savefig(path, dpi=120)
    return ax
