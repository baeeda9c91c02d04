"""``la-gpm`` command line: count, info, census, orbits, match, dynamic, estimate, trees, patterns, demo, warmup.

Every command takes ``--json`` (one JSON document on stdout) and ``--progress`` / ``--quiet``: progress
bars and a "working..." line with the elapsed time go to stderr (shown by default when stderr is a
terminal), never to stdout.  Commands that read a graph take ``--directed`` (read the file's lines as
arcs); the commands that need an undirected graph then stop with the library's named error.
"""

from __future__ import annotations

import re

import argparse
import contextlib
import json
import math
import sys
import threading
import time
import warnings
from pathlib import Path

from .exceptions import LaGpmError



_EDGE_LIST = re.compile(r"^\s*\d+\s*-\s*\d+(\s*,\s*\d+\s*-\s*\d+)*\s*$")


def _cli_pattern(text: str):
    """A pattern as the command line gives it: a name (``la-gpm patterns`` lists them), an edge list written
    ``0-1,1-2,2-0``, or a ``.fascia`` / ``.graph`` file. The library's own error names inputs the command line
    cannot pass (a networkx graph), so it is re-worded here."""
    from .exceptions import InvalidPattern
    from .patterns import Pattern, as_pattern
    if _EDGE_LIST.match(text):
        return Pattern([tuple(int(x) for x in e.split("-")) for e in text.replace(" ", "").split(",")])
    try:
        return as_pattern(text)
    except InvalidPattern as e:
        msg = str(e).split("; or pass")[0]
        raise InvalidPattern(f"{msg}; on the command line give a name (la-gpm patterns lists them), an edge list "
                             "such as 0-1,1-2,2-0, or a .fascia/.graph file") from None

def _show(args) -> bool:
    """Progress output wanted: ``--quiet`` off, ``--progress`` on, else only when stderr is a terminal."""
    if getattr(args, "quiet", False):
        return False
    if getattr(args, "progress", False):
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # closed or replaced stream
        return False


class _Working:
    """A "<label>: working... <elapsed>" line on stderr (a tqdm bar without total, refreshed by a thread)
    while a call without its own progress bar runs; ``done`` also prints the total time when it ends."""

    def __init__(self, enabled: bool, label: str, done: bool = True):
        self.enabled, self.label, self.done = enabled, label, done
        self.bar = None
        self._stop = threading.Event()
        self._thread = None

    def __enter__(self):
        self.t0 = time.perf_counter()
        if not self.enabled:
            return self
        from tqdm import tqdm
        self.bar = tqdm(total=None, desc=self.label, bar_format="{desc}: working... {elapsed}", file=sys.stderr,
                        leave=False, mininterval=0.1)
        self._thread = threading.Thread(target=self._tick, daemon=True)
        self._thread.start()
        return self

    def _tick(self):
        while not self._stop.wait(0.25):
            try:
                self.bar.refresh()
            except Exception:  # pragma: no cover - never let the display break the command
                return

    @contextlib.contextmanager
    def paused(self):
        """Clear the line while the command writes to the terminal (streamed rows)."""
        if self.bar is None:
            yield
            return
        with self.bar.get_lock():
            self.bar.clear()
            yield

    def __exit__(self, *exc):
        if self.bar is not None:
            self._stop.set()
            self._thread.join()
            self.bar.close()
            if self.done and exc[0] is None:
                print(f"{self.label}: done in {time.perf_counter() - self.t0:.2f} s", file=sys.stderr)
        return False


def _working(args, label=None, done=True):
    """The spinner of ``main`` (so that commands can pause it), or a new one."""
    return _Working(_show(args), label or f"la-gpm {getattr(args, 'cmd', '')}", done)


def _spinner(args):
    return getattr(args, "spinner", None) or _Working(False, "")


def _graph(path, directed: bool = False):
    from .validation import as_graph
    from .datasets import load, names

    if path in names():
        if directed:
            from .exceptions import InvalidArgument
            raise InvalidArgument(f"the bundled dataset {path!r} is undirected; --directed reads a graph file's "
                                  "lines as arcs (drop --directed, or pass a file)")
        return load(path)
    return as_graph(path, directed=bool(directed))


def _g(args, attr="graph"):
    return _graph(getattr(args, attr), getattr(args, "directed", False))


def _finite(x):
    return float(x) if x is not None and math.isfinite(x) else None


def _estimate_text(est) -> str:
    """An Estimate as its value with its (eps, delta) interval first (the standard error, which can look
    far tighter than the rigorous interval, is left to ``--json``); an exact count (``stop="exact"``) as itself."""
    if est.stop == "exact":
        return str(est)
    hi = "inf" if not math.isfinite(est.ci_high) else f"{est.ci_high:.4g}"
    rhw = est.relative_halfwidth
    rel = f"±{100 * rhw:.2g}%" if math.isfinite(rhw) else "unbounded"
    status = "reached" if est.converged else "NOT reached (budget hit)"
    return (f"{est.template or 'tree'} (k={est.k}): {est.value:.4g}  {100 * (1 - est.delta):g}% interval "
            f"[{est.ci_low:.4g}, {hi}] ({rel}; target eps {est.eps:g}: {status})\n"
            f"  {est.n_colorings} colorings, seed {est.seed}, {est.backend}/{est.dtype}, {est.elapsed_s:.3g} s; "
            f"{est.stop}: {est.bound}")


def _emit(args, result: dict, text: str) -> None:
    print(json.dumps(result, default=str) if getattr(args, "json", False) else text)


def cmd_count(args):
    from .api import count

    G = _g(args)
    t = time.perf_counter()
    n = count(G, _cli_pattern(args.pattern), induced=args.induced, count=args.count, backend=args.backend, progress=_show(args))
    dt = time.perf_counter() - t
    _emit(args, {"graph": args.graph, "pattern": args.pattern, "induced": args.induced, "count_kind": args.count,
                 "count": n, "seconds": dt, "backend": args.backend or "auto"},
          f"{n}\t({args.count}, {'induced' if args.induced else 'non-induced'}, {dt:.4f} s)")


def cmd_info(args):
    G = _g(args)
    d = G.degrees
    info = {"graph": args.graph, "n": G.n, "m": G.m, "directed": G.directed, "max_degree": int(d.max(initial=0)),
            "mean_degree": float(d.mean()) if G.n else 0.0, "vertex_labeled": G.vertex_labels is not None}
    _emit(args, info, "\n".join(f"{k}: {v}" for k, v in info.items()))


def _census_progress(args) -> bool:
    """census(progress=True) keeps "auto" on the CPU (its bar is over CPU root chunks): ask for it only
    where the CPU runs anyway, so that the bar never changes the backend."""
    if not _show(args):
        return False
    if args.backend == "cpu":
        return True
    if args.backend in (None, "auto"):
        from .backends import available_backends
        return "gpu" not in available_backends()
    return False


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _byte_size(text: str) -> int:
    """A positive byte count: digits with an optional K / M / G / T suffix (binary: 8G = 8 GiB; "B", "iB" after
    it allowed)."""
    import argparse
    import re
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([KMGT]?)(?:i?B)?\s*", str(text), flags=re.IGNORECASE)
    if not m or float(m.group(1)) * _UNITS[m.group(2).upper()] < 1:
        raise argparse.ArgumentTypeError(f"expected a positive size such as 8G, 512M or 1000000 (bytes); got {text!r}")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def cmd_census(args):
    import la_gpm

    G = _g(args)
    t = time.perf_counter()
    if args.estimate:
        if args.non_induced or args.method != "auto":
            from .exceptions import InvalidArgument
            raise InvalidArgument("--estimate estimates induced counts with its own method; drop --non-induced "
                                  "and --method")
        df = la_gpm.estimate_census(G, args.k, eps=args.eps, delta=args.delta, seed=args.seed,
                                    time_budget=args.time_budget, max_samples=args.max_samples,
                                    min_frequency=args.min_frequency, backend=args.backend,
                                    adaptive=not args.no_adaptive, natural_share=args.natural_share,
                                    memory_budget=args.memory_budget, progress=_show(args))
    else:
        df = la_gpm.census(G, args.k, induced=not args.non_induced, backend=args.backend, method=args.method,
                           progress=_census_progress(args))
    dt = time.perf_counter() - t
    if args.plot:
        la_gpm.plot_census(df, args.plot, graph=getattr(G, "name", None) or args.graph)
    df = df[[c for c in ("name", "isoclass", "key", "edges", "arcs", "underlying", "count", "frequency", "ci_low",
                         "ci_high", "samples", "reached") if c in df.columns]]
    if args.json:
        print(json.dumps({"graph": args.graph, "k": args.k, "induced": not args.non_induced, "seconds": dt,
                          "method": df.attrs.get("method"), "table_layout": df.attrs.get("table_layout"),
                          "classes": [{c: (str(v) if c in ("key", "edges") else v) for c, v in row.items()}
                                      for row in df.to_dict(orient="records")]}, default=str))
    else:
        # a directed census shows its arcs readably ("0->1, 1<->2") instead of the arc list
        print(df.drop(columns=["key", "edges"] if "arcs" in df.columns else ["key"]).to_string(index=False))
        a = df.attrs
        if args.estimate:
            print(f"# estimate: {a.get('colorings')} colorings, {a.get('samples')} samples, seed {a.get('seed')}, "
                  f"converged {a.get('converged')}, pending {a.get('pending')}\n# bound: {a.get('bound')}")
        print(f"# {dt:.3f} s")


def cmd_orbits(args):
    import numpy as np

    import la_gpm

    G = _g(args)
    t = time.perf_counter()
    X = la_gpm.orbits(G, args.k, backend=args.backend)
    dt = time.perf_counter() - t
    if args.out:
        out = Path(args.out)
        if out.suffix == ".npy":
            np.save(out, X)
        elif out.suffix in (".csv", ".txt"):
            np.savetxt(out, X, fmt="%d", delimiter="," if out.suffix == ".csv" else " ",
                       header=",".join(f"orbit{o}" for o in range(X.shape[1])) if out.suffix == ".csv" else "")
        else:
            from .exceptions import InvalidArgument
            raise InvalidArgument(f"--out must end in .npy, .csv or .txt; got {args.out!r}")
    sums = [int(x) for x in X.sum(axis=0)]
    if args.json:
        print(json.dumps({"graph": args.graph, "k": args.k, "n": G.n, "seconds": dt, "orbit_sums": sums,
                          "out": args.out}))
    else:
        print(f"{G.n} vertices x {X.shape[1]} orbits (ORCA numbering){' -> ' + args.out if args.out else ''}")
        print("orbit sums: " + " ".join(f"{o}:{v}" for o, v in enumerate(sums)))
        print(f"# {dt:.3f} s")


def cmd_match(args):
    import la_gpm

    G = _g(args, "data")
    Q = _cli_pattern(args.query)
    if args.count_only:
        n = la_gpm.count(G, Q, count="embeddings", backend=args.backend, progress=_show(args))
        _emit(args, {"query": args.query, "embeddings": n}, str(n))
        return
    shown = 0
    rows = []
    spin = _spinner(args)
    for chunk in la_gpm.match(G, Q, limit=args.limit, backend=args.backend):
        part = chunk.tolist()
        shown += len(part)
        if args.json:
            rows.extend(part)
            continue
        with spin.paused():
            for row in part:
                print(" ".join(map(str, row)))
    if args.json:
        print(json.dumps({"data": args.data, "query": args.query, "limit": args.limit, "count": shown,
                          "embeddings": rows}))
    elif not getattr(args, "quiet", False):
        print(f"# {shown} embeddings", file=sys.stderr)


def cmd_dynamic(args):
    """Apply a RapidFlow/GAMMA update stream in batches; per batch the positive/negative matches and times."""
    from .dynamic import DynamicGraph
    from .dynamic.updates import read_stream_ops, split_ops
    from .exceptions import InvalidArgument


    G = _g(args, "data")
    Q = _cli_pattern(args.query)
    ops, labels = read_stream_ops(args.stream)
    size = args.batch_size or max(len(ops), 1)
    if size < 1:
        raise InvalidArgument(f"--batch-size must be a positive number of updates; got {size}")
    D = DynamicGraph(G, [Q], count=args.count, induced=args.induced, backend=args.backend)
    nb = max(1, -(-len(ops) // size))
    rows, tot_pos, tot_neg = [], 0, 0
    from tqdm.auto import tqdm
    bar = tqdm(total=len(ops), unit="update", desc="batches", file=sys.stderr, disable=not _show(args))
    if not args.json:
        print("batch\tinserted\tdeleted\tpositive\tnegative\tseconds")
    for b in range(nb):
        ins, dele = split_ops(ops[b * size:(b + 1) * size])
        t = time.perf_counter()
        d = D.apply(insert=ins, delete=dele, labels=labels)[0]
        dt = time.perf_counter() - t
        tot_pos += d.positive
        tot_neg += d.negative
        rows.append({"batch": b, "inserted": d.stats["inserted"], "deleted": d.stats["deleted"],
                     "positive": d.positive, "negative": d.negative, "seconds": dt})
        if not args.json:
            bar.clear()
            print(f"{b}\t{d.stats['inserted']}\t{d.stats['deleted']}\t{d.positive}\t{d.negative}\t{dt:.4f}")
        bar.update(min(size, len(ops) - b * size))
    bar.close()
    if args.json:
        print(json.dumps({"data": args.data, "query": args.query, "count_kind": args.count, "induced": args.induced,
                          "batches": rows, "positive": tot_pos, "negative": tot_neg}, default=str))
    else:
        print(f"# total: positive {tot_pos}, negative {tot_neg} ({args.count}, "
              f"{'induced' if args.induced else 'non-induced'}); graph now n={D.graph.n}, m={D.graph.m}")


def cmd_estimate(args):
    import la_gpm

    G = _g(args)
    est = la_gpm.estimate(G, _cli_pattern(args.template), eps=args.eps, delta=args.delta, seed=args.seed, backend=args.backend,
                          stop=args.stop, max_colorings=args.max_colorings, time_budget=args.time_budget,
                          progress=_show(args), exact=args.exact)
    _emit(args, est.to_dict(), _estimate_text(est))


def cmd_trees(args):
    import la_gpm

    G = _g(args)
    res = la_gpm.tree_census(G, args.k, eps=args.eps, delta=args.delta, seed=args.seed, backend=args.backend,
                             max_colorings=args.max_colorings, time_budget=args.time_budget)
    trees = {f"tree{args.k}-{i}": P for i, P in enumerate(la_gpm.free_trees(args.k))}
    rows = {name: dict(est.to_dict(), edges=[list(e) for e in trees[name].edges]) for name, est in res.items()}
    width = max(len(n) for n in res) if res else 4
    lines = [f"# {len(res)} free trees with {args.k} vertices (non-induced copies; all intervals hold together "
             f"with probability >= {1 - args.delta:g})"]
    lines += [f"{name:<{width}}  {est.value:16.6g}  [{est.ci_low:.6g}, {est.ci_high:.6g}]"
              + ("" if est.converged else "  (budget hit)") + f"  edges {rows[name]['edges']}"
              for name, est in res.items()]
    _emit(args, {"k": args.k, "trees": rows}, "\n".join(lines))


# --------------------------------------------------------------------------- patterns


def _catalog() -> list[dict]:
    """One row per name of ``la_gpm.patterns.NAMES``; the k-parametric names are shown with k = 4."""
    from .patterns import NAMES, TEMPLATES, as_pattern

    rows = []
    for name in NAMES:
        if "<" in name:
            rows.append({"name": name, "example": None, "k": None, "num_edges": None, "edges": None,
                         "automorphisms": None, "note": "any bundled FASCIA tree Tree_<k>_<id> (e.g. Tree_5_2)"})
            continue
        example = "4" + name[1:] if name.startswith("k-") else name
        P = as_pattern(example)
        note = ("any k (shown: k = 4)" if name.startswith("k-")
                else f"FASCIA tree template {TEMPLATES[name]}" if name in TEMPLATES else "")
        rows.append({"name": name, "example": example if example != name else None, "k": P.k,
                     "num_edges": len(P.edges), "edges": [list(e) for e in P.edges],
                     "automorphisms": int(P.automorphism_count), "note": note})
    return rows


def _drawing(k: int, edges, indent: str = "    ") -> list[str]:
    """The adjacency matrix as rows of '#' (edge) and '.' (no edge), with vertex numbers."""
    adj = [["."] * k for _ in range(k)]
    for u, v in edges:
        adj[u][v] = adj[v][u] = "#"
    for i in range(k):
        adj[i][i] = "\\"
    w = len(str(k - 1))
    head = indent + " " * (w + 1) + " ".join(str(j % 10) for j in range(k))
    return [head] + [indent + f"{i:>{w}} " + " ".join(adj[i]) for i in range(k)]


def cmd_patterns(args):
    rows = _catalog()
    if args.json:
        print(json.dumps({"patterns": rows}))
        return
    lines = ["# pattern catalog (la_gpm.patterns.NAMES): name, vertices k, edges, |Aut| (automorphisms);",
             "# drawings are adjacency rows ('#' edge, '.' none) for patterns with at most "
             f"{args.max_draw} vertices"]
    for r in rows:
        if r["k"] is None:
            lines.append(f"{r['name']:<20} {r['note']}")
            continue
        shown = f"{r['name']} ({r['example']})" if r["example"] else r["name"]
        lines.append((f"{shown:<20} k={r['k']:<3} {r['num_edges']:>2} edges  |Aut|={r['automorphisms']:<4}"
                      + (f"  {r['note']}" if r["note"] else "")).rstrip())
        if r["k"] <= args.max_draw:
            lines += _drawing(r["k"], r["edges"])
        else:
            lines.append("    edges " + " ".join(f"{u}-{v}" for u, v in r["edges"]))
    print("\n".join(lines))


# --------------------------------------------------------------------------- demo


def cmd_demo(args):
    """Triangles and more on a bundled real graph, with time and backend."""
    import la_gpm
    from .backends import available_backends

    name = args.graph or "email-Eu-core"
    G = _graph(name)
    js = bool(getattr(args, "json", False))
    out = {"version": la_gpm.__version__, "graph": name, "n": G.n, "m": G.m, "backends": available_backends(),
           "triangles": {}}
    say = (lambda *a: None) if js else print
    say(f"la_gpm {la_gpm.__version__} demo on {name}: {G}")
    say(f"backends available here: {', '.join(available_backends())}")
    known = la_gpm.datasets.KNOWN.get(name, {})
    for b in available_backends():
        with _working(args, f"triangles ({b})", done=False):
            la_gpm.count(G, "triangle", backend=b)  # warm-up: compile kernels
            t = time.perf_counter()
            n = la_gpm.count(G, "triangle", backend=b)
            dt = time.perf_counter() - t
        ok = "" if "triangles" not in known else ("  = published" if n == known["triangles"] else "  != PUBLISHED")
        out["triangles"][b] = {"count": n, "seconds": dt, "published": known.get("triangles")}
        say(f"  triangles  backend={b:<9} {n:>12,}  {dt * 1e3:8.2f} ms{ok}")
    b = "gpu" if "gpu" in available_backends() else "cpu"

    def timed(label, fn):
        with _working(args, label.strip(), done=False):
            t = time.perf_counter()
            res = fn()
            dt = time.perf_counter() - t
        say(f"  {label:<34} {dt:8.3f} s  (backend={b}, first call includes compilation)")
        return res, dt

    k4, dt = timed("4-cliques", lambda: la_gpm.count(G, "4-clique", backend=b))
    out["4-cliques"] = {"count": k4, "seconds": dt, "backend": b}
    say(f"    = {k4:,}")
    df, dt = timed("4-vertex induced census", lambda: la_gpm.census(G, 4, backend="cpu"))
    out["census4"] = {"counts": {r.name: r.count for r in df.itertuples()}, "seconds": dt, "backend": "cpu"}
    for row in df.itertuples():
        say(f"    {row.name:<16} {row.count:>14,}")
    est, dt = timed("u5 tree estimate (color coding)",
                    lambda: la_gpm.estimate(G, "u5", eps=0.1, delta=0.05, seed=1, time_budget=30, backend=b))
    d = est.to_dict()
    d.pop("values", None)
    out["u5"] = dict(d, seconds=dt)
    say("    " + _estimate_text(est).replace("\n", "\n    "))
    if js:
        print(json.dumps(out, default=str))
    return 0


# --------------------------------------------------------------------------- warmup


def cmd_warmup(args):
    """Compile and cache the kernels of the common calls (la_gpm.warmup), then say how long each kind took."""
    from .first_call import KINDS, warmup

    kinds = None if not args.kinds else [k.strip() for k in args.kinds.split(",") if k.strip()]
    t = time.perf_counter()
    secs = warmup(kinds, backend=args.backend, progress=_show(args))
    total = time.perf_counter() - t
    if args.json:
        print(json.dumps({"backend": args.backend, "seconds": secs, "total_seconds": total}))
        return 0
    for kind, s in secs.items():
        print(f"  {kind:<15} {s:8.2f} s   {KINDS[kind]}")
    print(f"warmup ({args.backend}): {total:.2f} s; the kernels are in numba's disk cache"
          + (" and CuPy's" if args.backend == "gpu" else "") + ": later processes load them instead of compiling")
    return 0


# --------------------------------------------------------------------------- parser


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults in the help of every option that has one (not the None / off ones); epilogs kept as written."""

    def _get_help_string(self, action):
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)


def _pattern_help() -> str:
    from .patterns import NAMES
    import textwrap
    return textwrap.fill("pattern names: " + ", ".join(NAMES) + " (k-path etc. with a number: 4-cycle, "
                         "5-clique); or a .fascia / .graph file; `la-gpm patterns` lists them with drawings", 78)


def build_parser() -> argparse.ArgumentParser:
    from .patterns import NAMES

    pnames = ", ".join(NAMES)
    p = argparse.ArgumentParser(prog="la-gpm", description="Count patterns in graphs with linear algebra.",
                                formatter_class=_HelpFormatter,
                                epilog=_pattern_help() + "\ngraphs: a file (edge list, .mtx, .graph) or a bundled dataset "
                                       "(karate, citeseer, email-Eu-core)")
    sub = p.add_subparsers(dest="cmd", required=True)

    def add(name, help_, **kw):
        return sub.add_parser(name, help=help_, description=help_, formatter_class=_HelpFormatter, **kw)

    def common(sp, backend=True, graph=True):
        if backend:
            sp.add_argument("--backend", choices=["auto", "cpu", "graphblas", "gpu"], default=None,
                            help="where to run (default: auto)")
        if graph:
            sp.add_argument("--directed", action="store_true",
                            help="read the graph file's lines as arcs (commands that need an undirected graph "
                                 "then say so)")
        sp.add_argument("--json", action="store_true", help="print one JSON document on stdout")
        g = sp.add_mutually_exclusive_group()
        g.add_argument("--progress", action="store_true",
                       help="progress bars / elapsed time on stderr even when it is not a terminal")
        g.add_argument("--quiet", "-q", action="store_true", help="no progress output on stderr")

    c = add("count", "exact count of a pattern", epilog=_pattern_help())
    c.add_argument("graph", help="graph file or bundled dataset name")
    c.add_argument("pattern", help=f"pattern name ({pnames}) or .fascia/.graph file")
    c.add_argument("--induced", action="store_true", help="vertex-induced copies")
    c.add_argument("--count", choices=["unique", "embeddings"], default="unique",
                   help="unique subgraphs or embeddings (= unique x |Aut|)")
    common(c)
    c.set_defaults(func=cmd_count)

    i = add("info", "size and degree statistics")
    i.add_argument("graph", help="graph file or bundled dataset name")
    common(i, backend=False)
    i.set_defaults(func=cmd_info)

    s = add("census", "counts of every connected k-vertex pattern (with --directed: the 13 / 199 directed "
                      "3- / 4-vertex motifs, igraph's isoclass numbers, MAN triad names)")
    s.add_argument("graph", help="graph file or bundled dataset name")
    s.add_argument("-k", type=int, default=4, help="pattern size")
    s.add_argument("--non-induced", action="store_true")
    s.add_argument("--method", choices=["auto", "closed_form", "hybrid", "enumerate"], default="auto",
                   help="closed_form: k <= 5 (k = 5 on the CPU; directed: k = 3); hybrid: k = 5; enumerate: any k")
    s.add_argument("--estimate", action="store_true",
                   help="color-coding + sampling estimate with confidence intervals (large graphs, k <= 7)")
    s.add_argument("--eps", type=float, default=0.1, help="with --estimate: relative error target")
    s.add_argument("--delta", type=float, default=0.05, help="with --estimate: failure probability")
    s.add_argument("--seed", type=int, default=None, help="with --estimate: random seed (default: drawn, reported)")
    s.add_argument("--time-budget", type=float, default=None, help="with --estimate: seconds")
    s.add_argument("--max-samples", type=int, default=None, help="with --estimate")
    s.add_argument("--no-adaptive", action="store_true",
                   help="with --estimate: uniform treelet sampling only (no AGS shape mixtures)")
    s.add_argument("--natural-share", type=float, default=0.25,
                   help="with --estimate: share of each coloring's samples kept uniform under AGS")
    s.add_argument("--min-frequency", type=float, default=0.01,
                   help="with --estimate: classes at least this frequent must reach eps")
    s.add_argument("--memory-budget", type=_byte_size, default=None,
                   help="with --estimate: bytes one coloring's tables may take (e.g. 8G, 512M; binary units): "
                        "tables past it are built in vertex chunks, then held in host memory or a temporary file "
                        "(the same estimate, slower; default: no limit on the cpu, the free device memory on the gpu)")
    s.add_argument("--plot", default=None, help="draw frequencies (with intervals) to this image file")
    common(s)
    s.set_defaults(func=cmd_census)

    o = add("orbits", "per-vertex graphlet orbit counts (graphlet degree vectors, ORCA numbering)")
    o.add_argument("graph", help="graph file or bundled dataset name")
    o.add_argument("-k", type=int, default=4, choices=(2, 3, 4, 5),
                   help="largest graphlet size: 2, 3, 4 (15 orbits) or 5 (73 orbits)")
    o.add_argument("--out", default=None, help="write the n x orbits matrix to a .npy, .csv or .txt file")
    common(o)
    o.set_defaults(func=cmd_orbits)

    mt = add("match", "labeled subgraph matching (embeddings)", epilog=_pattern_help())
    mt.add_argument("data", help="data graph file or bundled dataset name")
    mt.add_argument("query", help=f"query graph file or pattern name ({pnames})")
    mt.add_argument("--limit", type=int, default=None, help="stop after this many embeddings (default: all)")
    mt.add_argument("--count-only", action="store_true", help="print the number of embeddings only")
    common(mt)
    mt.set_defaults(func=cmd_match)

    dy = add("dynamic", "batch-dynamic matching: matches each batch of a stream creates/destroys")
    dy.add_argument("data", help="data graph file or bundled dataset name")
    dy.add_argument("query", help=f"query graph file or pattern name ({pnames})")
    dy.add_argument("stream", help="RapidFlow/GAMMA stream: 'e u v [label]' inserts, '-e u v [label]' deletes")
    dy.add_argument("--batch-size", type=int, default=None, help="updates per batch (default: the whole stream)")
    dy.add_argument("--count", choices=["embeddings", "unique"], default="embeddings", help="what to count")
    dy.add_argument("--induced", action="store_true")
    common(dy)
    dy.set_defaults(func=cmd_dynamic)

    e = add("estimate", "color-coding estimate of a tree template's count", epilog=_pattern_help())
    e.add_argument("graph", help="graph file or bundled dataset name")
    e.add_argument("template", help="a tree: u3 .. u15-2, k-path, k-star, Tree_<k>_<id> or a .fascia file")
    e.add_argument("--eps", type=float, default=0.05, help="relative error target")
    e.add_argument("--delta", type=float, default=0.01, help="failure probability of the interval")
    e.add_argument("--seed", type=int, default=None, help="random seed (default: drawn, reported)")
    e.add_argument("--stop", choices=["acs", "adaptive", "classical", "clt"], default="acs",
                   help="acs (default): asymptotic confidence sequence (valid at any stop, guarded where copies are "
                        "rare; 37-280x fewer colorings than adaptive); adaptive: anytime empirical Bernstein "
                        "(rigorous, finite-sample); classical: median of means; clt: normal approximation "
                        "(cheapest, undercovers when stopped early)")
    e.add_argument("--no-exact", dest="exact", action="store_const", const=False, default="auto",
                   help="always color (by default, when no seed / budget is given, a tree with a closed form is "
                        "counted exactly, and a tree of 6-12 vertices too when its exact count is predicted "
                        "cheaper than the colorings)")
    e.add_argument("--max-colorings", type=int, default=None, help="budget (default: none)")
    e.add_argument("--time-budget", type=float, default=None, help="seconds; stops early and says so")
    common(e)
    e.set_defaults(func=cmd_estimate)

    t = add("trees", "color-coding estimates of every free tree with k vertices, in one pass")
    t.add_argument("graph", help="graph file or bundled dataset name")
    t.add_argument("-k", type=int, required=True, help="tree size, 2..12")
    t.add_argument("--eps", type=float, default=0.1, help="relative error target (every tree)")
    t.add_argument("--delta", type=float, default=0.01, help="failure probability (all intervals together)")
    t.add_argument("--seed", type=int, default=None, help="random seed (default: drawn, reported)")
    t.add_argument("--max-colorings", type=int, default=None, help="budget (default: none)")
    t.add_argument("--time-budget", type=float, default=None, help="seconds; stops early and says so")
    common(t)
    t.set_defaults(func=cmd_trees)

    pt = add("patterns", "the pattern catalog: names, sizes, edges, automorphisms, small drawings")
    pt.add_argument("--max-draw", type=int, default=6, help="draw the adjacency of patterns up to this size")
    common(pt, backend=False, graph=False)
    pt.set_defaults(func=cmd_patterns)

    d = add("demo", "run on a bundled real graph and print counts, time and backend")
    d.add_argument("graph", nargs="?", default=None, help="bundled dataset (default: email-Eu-core)")
    common(d, backend=False, graph=False)
    d.set_defaults(func=cmd_demo)
    from .first_call import KINDS
    w = add("warmup", "compile the kernels of the common calls once and cache them on disk, so that no later "
                      "call waits for a compile (docs/first_call.md)",
            epilog="kinds: " + "; ".join(f"{k}: {v}" for k, v in KINDS.items()))
    w.add_argument("--kinds", default=None, help=f"comma separated kinds (default: all): {', '.join(KINDS)}")
    w.add_argument("--backend", choices=["cpu", "gpu"], default="cpu",
                   help="gpu: also the CUDA kernels (needs a GPU)")
    common(w, backend=False, graph=False)
    w.set_defaults(func=cmd_warmup)
    return p


# commands with their own progress display (or none needed): no "working..." line around them
_OWN_DISPLAY = ("dynamic", "demo", "patterns", "warmup")


@contextlib.contextmanager
def _compile_notices(args):
    """A :class:`la_gpm.CompileNotice` as one line on stderr (the spinner paused; none with ``--quiet``);
    other warnings shown as before."""
    from .exceptions import CompileNotice
    with warnings.catch_warnings():
        shown = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if not issubclass(category, CompileNotice):
                return shown(message, category, filename, lineno, file, line)
            if not getattr(args, "quiet", False):
                with _spinner(args).paused():
                    print(str(message), file=sys.stderr, flush=True)
        warnings.showwarning = show
        yield


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        with _compile_notices(args):
            if args.cmd in _OWN_DISPLAY:
                return args.func(args) or 0
            with _working(args) as spin:
                args.spinner = spin
                return args.func(args) or 0
    except LaGpmError as e:
        msg = str(e)
        if getattr(args, "directed", False) and "undirected" in msg and "--directed" not in msg:
            msg += " [la-gpm: drop --directed to read the file as an undirected graph]"
        print(f"la-gpm: error: {type(e).__name__}: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
