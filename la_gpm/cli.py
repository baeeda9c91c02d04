"""``la-gpm`` command line: count, info, census, match, dynamic, estimate, trees, demo."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .exceptions import LaGpmError


def _graph(path):
    from .validation import as_graph
    from .datasets import load, names

    return load(path) if path in names() else as_graph(path)


def _emit(args, result: dict, text: str) -> None:
    print(json.dumps(result, default=str) if getattr(args, "json", False) else text)


def cmd_count(args):
    from .api import count

    G = _graph(args.graph)
    t = time.perf_counter()
    n = count(G, args.pattern, induced=args.induced, count=args.count, backend=args.backend)
    dt = time.perf_counter() - t
    _emit(args, {"graph": args.graph, "pattern": args.pattern, "induced": args.induced, "count_kind": args.count,
                 "count": n, "seconds": dt, "backend": args.backend or "auto"},
          f"{n}\t({args.count}, {'induced' if args.induced else 'non-induced'}, {dt:.4f} s)")


def cmd_info(args):
    G = _graph(args.graph)
    d = G.degrees
    info = {"graph": args.graph, "n": G.n, "m": G.m, "directed": G.directed, "max_degree": int(d.max(initial=0)),
            "mean_degree": float(d.mean()) if G.n else 0.0, "vertex_labeled": G.vertex_labels is not None}
    _emit(args, info, "\n".join(f"{k}: {v}" for k, v in info.items()))


def cmd_census(args):
    import la_gpm

    G = _graph(args.graph)
    t = time.perf_counter()
    if args.estimate:
        if args.non_induced or args.method != "auto":
            from .exceptions import InvalidArgument
            raise InvalidArgument("--estimate estimates induced counts with its own method; drop --non-induced "
                                  "and --method")
        df = la_gpm.estimate_census(G, args.k, eps=args.eps, delta=args.delta, seed=args.seed,
                                    time_budget=args.time_budget, max_samples=args.max_samples,
                                    min_frequency=args.min_frequency, backend=args.backend,
                                    adaptive=not args.no_adaptive, natural_share=args.natural_share)
    else:
        df = la_gpm.census(G, args.k, induced=not args.non_induced, backend=args.backend, method=args.method)
    dt = time.perf_counter() - t
    if args.plot:
        la_gpm.plot_census(df, args.plot)
    df = df[[c for c in ("name", "key", "edges", "count", "frequency", "ci_low", "ci_high", "samples", "reached")
             if c in df.columns]]
    if args.json:
        print(json.dumps({"graph": args.graph, "k": args.k, "induced": not args.non_induced, "seconds": dt,
                          "method": df.attrs.get("method"),
                          "classes": [{c: (str(v) if c in ("key", "edges") else v) for c, v in row.items()}
                                      for row in df.to_dict(orient="records")]}, default=str))
    else:
        print(df.drop(columns=["key"]).to_string(index=False))
        a = df.attrs
        if args.estimate:
            print(f"# estimate: {a.get('colorings')} colorings, {a.get('samples')} samples, seed {a.get('seed')}, "
                  f"converged {a.get('converged')}, pending {a.get('pending')}\n# bound: {a.get('bound')}")
        print(f"# {dt:.3f} s")


def cmd_orbits(args):
    import numpy as np

    import la_gpm

    G = _graph(args.graph)
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
    from .patterns import as_pattern

    G = _graph(args.data)
    Q = as_pattern(args.query)
    if args.count_only:
        n = la_gpm.count(G, Q, count="embeddings", backend=args.backend)
        _emit(args, {"query": args.query, "embeddings": n}, str(n))
        return
    shown = 0
    for chunk in la_gpm.match(G, Q, limit=args.limit, backend=args.backend):
        for row in chunk.tolist():
            print(" ".join(map(str, row)))
            shown += 1
    print(f"# {shown} embeddings", file=sys.stderr)


def cmd_dynamic(args):
    """Apply a RapidFlow/GAMMA update stream in batches; per batch the positive/negative matches and times."""
    from .dynamic import DynamicGraph
    from .dynamic.updates import read_stream_ops, split_ops
    from .exceptions import InvalidArgument
    from .patterns import as_pattern

    G = _graph(args.data)
    Q = as_pattern(args.query)
    ops, labels = read_stream_ops(args.stream)
    size = args.batch_size or max(len(ops), 1)
    if size < 1:
        raise InvalidArgument(f"--batch-size must be a positive number of updates; got {size}")
    D = DynamicGraph(G, [Q], count=args.count, induced=args.induced, backend=args.backend)
    nb = max(1, -(-len(ops) // size))
    rows, tot_pos, tot_neg = [], 0, 0
    from tqdm.auto import tqdm
    bar = tqdm(total=len(ops), unit="update", desc="batches", disable=args.json or not sys.stderr.isatty())
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

    G = _graph(args.graph)
    est = la_gpm.estimate(G, args.template, eps=args.eps, delta=args.delta, seed=args.seed, backend=args.backend,
                          stop=args.stop, max_colorings=args.max_colorings, time_budget=args.time_budget)
    _emit(args, est.to_dict() if hasattr(est, "to_dict") else vars(est), str(est))


def cmd_trees(args):
    import la_gpm

    G = _graph(args.graph)
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


def cmd_demo(args):
    """Triangles and more on a bundled real graph, with time and backend."""
    import la_gpm
    from .backends import available_backends

    name = args.graph or "email-Eu-core"
    G = _graph(name)
    print(f"la_gpm {la_gpm.__version__} demo on {name}: {G}")
    print(f"backends available here: {', '.join(available_backends())}")
    known = la_gpm.datasets.KNOWN.get(name, {})
    for b in available_backends():
        la_gpm.count(G, "triangle", backend=b)  # warm-up: compile kernels
        t = time.perf_counter()
        n = la_gpm.count(G, "triangle", backend=b)
        dt = time.perf_counter() - t
        ok = "" if "triangles" not in known else ("  = published" if n == known["triangles"] else "  != PUBLISHED")
        print(f"  triangles  backend={b:<9} {n:>12,}  {dt * 1e3:8.2f} ms{ok}")
    b = "gpu" if "gpu" in available_backends() else "cpu"

    def timed(label, fn):
        t = time.perf_counter()
        res = fn()
        print(f"  {label:<34} {time.perf_counter() - t:8.3f} s  (backend={b}, first call includes compilation)")
        return res

    k4 = timed("4-cliques", lambda: la_gpm.count(G, "4-clique", backend=b))
    print(f"    = {k4:,}")
    df = timed("4-vertex induced census", lambda: la_gpm.census(G, 4, backend="cpu"))
    for row in df.itertuples():
        print(f"    {row.name:<16} {row.count:>14,}")
    est = timed("u5 tree estimate (color coding)",
                lambda: la_gpm.estimate(G, "u5", eps=0.1, delta=0.05, seed=1, time_budget=30, backend=b))
    print(f"    {est}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="la-gpm", description="Count patterns in graphs with linear algebra.")
    sub = p.add_subparsers(dest="cmd", required=True)

    def common(sp):
        sp.add_argument("--backend", choices=["auto", "cpu", "graphblas", "gpu"], default=None)
        sp.add_argument("--json", action="store_true", help="print JSON")

    c = sub.add_parser("count", help="exact count of a pattern")
    c.add_argument("graph", help="graph file or bundled dataset name")
    c.add_argument("pattern", help="pattern name (triangle, 4-clique, house, ...) or .fascia/.graph file")
    c.add_argument("--induced", action="store_true")
    c.add_argument("--count", choices=["unique", "embeddings"], default="unique")
    common(c)
    c.set_defaults(func=cmd_count)

    i = sub.add_parser("info", help="size and degree statistics")
    i.add_argument("graph")
    common(i)
    i.set_defaults(func=cmd_info)

    s = sub.add_parser("census", help="counts of every connected k-vertex pattern")
    s.add_argument("graph")
    s.add_argument("-k", type=int, default=4)
    s.add_argument("--non-induced", action="store_true")
    s.add_argument("--method", choices=["auto", "closed_form", "hybrid", "enumerate"], default="auto",
                   help="closed_form: k <= 4; hybrid: k = 5; enumerate: any k")
    s.add_argument("--estimate", action="store_true",
                   help="color-coding + sampling estimate with confidence intervals (large graphs, k <= 7)")
    s.add_argument("--eps", type=float, default=0.1, help="with --estimate: relative error target")
    s.add_argument("--delta", type=float, default=0.05, help="with --estimate: failure probability")
    s.add_argument("--seed", type=int, default=None)
    s.add_argument("--time-budget", type=float, default=None, help="with --estimate: seconds")
    s.add_argument("--max-samples", type=int, default=None, help="with --estimate")
    s.add_argument("--no-adaptive", action="store_true",
                   help="with --estimate: uniform treelet sampling only (no AGS shape mixtures)")
    s.add_argument("--natural-share", type=float, default=0.25,
                   help="with --estimate: share of each coloring's samples kept uniform under AGS")
    s.add_argument("--min-frequency", type=float, default=0.01,
                   help="with --estimate: classes at least this frequent must reach eps")
    s.add_argument("--plot", default=None, help="draw frequencies (with intervals) to this image file")
    common(s)
    s.set_defaults(func=cmd_census)

    o = sub.add_parser("orbits", help="per-vertex graphlet orbit counts (graphlet degree vectors, ORCA numbering)")
    o.add_argument("graph")
    o.add_argument("-k", type=int, default=4, help="largest graphlet size: 2, 3 or 4")
    o.add_argument("--out", default=None, help="write the n x orbits matrix to a .npy, .csv or .txt file")
    common(o)
    o.set_defaults(func=cmd_orbits)

    mt = sub.add_parser("match", help="labeled subgraph matching (embeddings)")
    mt.add_argument("data")
    mt.add_argument("query")
    mt.add_argument("--limit", type=int, default=None)
    mt.add_argument("--count-only", action="store_true")
    common(mt)
    mt.set_defaults(func=cmd_match)

    dy = sub.add_parser("dynamic", help="batch-dynamic matching: matches each batch of a stream creates/destroys")
    dy.add_argument("data")
    dy.add_argument("query")
    dy.add_argument("stream", help="RapidFlow/GAMMA stream: 'e u v [label]' inserts, '-e u v [label]' deletes")
    dy.add_argument("--batch-size", type=int, default=None, help="updates per batch (default: the whole stream)")
    dy.add_argument("--count", choices=["embeddings", "unique"], default="embeddings")
    dy.add_argument("--induced", action="store_true")
    common(dy)
    dy.set_defaults(func=cmd_dynamic)

    e = sub.add_parser("estimate", help="color-coding estimate of a tree template's count")
    e.add_argument("graph")
    e.add_argument("template")
    e.add_argument("--eps", type=float, default=0.05)
    e.add_argument("--delta", type=float, default=0.01)
    e.add_argument("--seed", type=int, default=None)
    e.add_argument("--stop", choices=["adaptive", "classical", "clt"], default="adaptive",
                   help="adaptive: anytime empirical Bernstein (rigorous); classical: median of means; "
                        "clt: normal approximation (cheapest, asymptotic only)")
    e.add_argument("--max-colorings", type=int, default=None)
    e.add_argument("--time-budget", type=float, default=None, help="seconds; stops early and says so")
    common(e)
    e.set_defaults(func=cmd_estimate)

    t = sub.add_parser("trees", help="color-coding estimates of every free tree with k vertices, in one pass")
    t.add_argument("graph")
    t.add_argument("-k", type=int, required=True)
    t.add_argument("--eps", type=float, default=0.1)
    t.add_argument("--delta", type=float, default=0.01)
    t.add_argument("--seed", type=int, default=None)
    t.add_argument("--max-colorings", type=int, default=None)
    t.add_argument("--time-budget", type=float, default=None, help="seconds; stops early and says so")
    common(t)
    t.set_defaults(func=cmd_trees)

    d = sub.add_parser("demo", help="run on a bundled real graph and print counts, time and backend")
    d.add_argument("graph", nargs="?", default=None)
    d.set_defaults(func=cmd_demo)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except LaGpmError as e:
        print(f"la-gpm: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
