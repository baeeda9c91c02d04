"""Batch-dynamic subgraph matching (GAMMA, Qiu et al. 2024): the matches a batch creates and destroys.

For a batch with inserted edges D⁺ and deleted edges D⁻ (net effect), kept edges K and the
graphs before G = K + D⁻ and after G' = K + D⁺:

* **positive** matches are in G' but not in G: Pos = |M(G')| − |M(K)|,
* **negative** matches are in G but not in G': Neg = |M(G)| − |M(K)|,

each found exactly once from its lowest-order updated pair (notes/001_gamma.md §3):
``Pos = Σ_i M(pairs < i: G'; pair i: D⁺; pairs > i: K)`` and the same with D⁻ for Neg.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping

import numpy as np

from ..validation import as_graph
from ..backends import resolve_backend
from ..config import config
from ..exceptions import InvalidArgument, InvalidPattern, LabelMismatch
from ..patterns import as_pattern
from . import cpu
from .filter import Candidates, NLFState
from . import lane as _lane
from .aside import STAT_KEYS, AsideEdges, irrelevant_counts
from .query import compile_delta_plan
from .store import DELETED, INSERTED, ArcStore
from .updates import ids_after, normalise, relevant_rows, strict_fail
from .stream import COLUMNS, LaneColumns, StreamDelta, array_source, array_stream, bad_sign, stream_source
from .views import relevance_of, view_graph

__all__ = ["match_delta", "DynamicGraph", "MatchDelta", "StreamDelta", "COUNT_KINDS"]

COUNT_KINDS = ("embeddings", "unique")


class MatchDelta:
    """What one batch did to the matches of one query.

    Attributes
    ----------
    positive, negative : exact Python ints (matches created / destroyed by the batch)
    graph : the graph after the batch (a new :class:`la_gpm.Graph`; from :func:`match_delta` it is built
        on first access, one pass over the batch's union graph); raises :class:`la_gpm.InvalidArgument`
        from a ``DynamicGraph(..., keep_graph=False)`` (query views keep only the queries' edges)
    stats : batch normalisation counts (ignored updates, by kind), work items, times (seconds); from
        :func:`match_delta` the counts of the updates no query can use are completed on first access;
        ``parallel_after_serial``: the search was estimated light, ran past its serial budget and was finished by
        the parallel drive (docs/dynamic.md, *A serial search past its budget*)
    positive_matches, negative_matches : with ``listing=True``, int64 arrays (rows, |V(Q)|):
        column u holds the data vertex (original id, ``graph.ids``) matched to query vertex u
    count, induced : what was counted
    """

    __slots__ = ("positive", "negative", "_graph", "_stats", "positive_matches", "negative_matches", "count",
                 "induced")

    def __init__(self, positive, negative, graph, stats=None, positive_matches=None, negative_matches=None,
                 count="embeddings", induced=False):
        self.positive = positive
        self.negative = negative
        self._graph = graph            # a Graph, or a function that builds it
        self._stats = {} if stats is None else stats     # a dict, or a function that completes it
        self.positive_matches = positive_matches
        self.negative_matches = negative_matches
        self.count = count
        self.induced = induced

    @property
    def graph(self):
        if callable(self._graph):
            self._graph = self._graph()
        return self._graph

    @property
    def stats(self) -> dict:
        if callable(self._stats):
            self._stats = self._stats()
        return self._stats

    @property
    def net(self) -> int:
        """positive − negative = |M(G')| − |M(G)|."""
        return self.positive - self.negative

    def __repr__(self):
        return (f"MatchDelta(positive={self.positive}, negative={self.negative}, count={self.count!r}, "
                f"induced={self.induced})")


def _check_query(G, P, induced):
    P.require_connected("matching")
    if P.k < 2:
        raise InvalidPattern("a query needs at least one edge")
    if P.vertex_labels is not None and G.vertex_labels is None:
        raise LabelMismatch(f"the query has vertex labels {list(P.vertex_labels)} but the graph has none; load the "
                            "graph with labels (la_gpm.io.read_sunluo, Graph.from_edges(..., vertex_labels=...)) or "
                            "drop the query's labels")
    if P.edge_labels is not None and G.edge_labels is None:
        raise LabelMismatch("the query has edge labels but the graph has none; build the graph with edge_labels=... "
                            "or drop the query's edge labels")
    if not isinstance(induced, (bool, np.bool_)):
        raise InvalidArgument(f"induced must be True or False; got {induced!r}")


def _check_count(count):
    if count not in COUNT_KINDS:
        raise InvalidArgument(f"count must be one of {COUNT_KINDS}; got {count!r}")


def _total(counts: np.ndarray) -> int:
    if counts.size == 0:
        return 0
    if counts.dtype != object and int(counts.max()) <= (2**63 - 1) // counts.size:    # no partial sum can pass int64
        return int(counts.sum())
    return sum(int(c) for c in counts)  # an int64 sum could overflow, or the counts are Python ints: Python ints


class _Engine:
    """The per-backend search: count (and list) the items of one side."""

    def __init__(self, backend):
        self.backend = backend
        if backend == "gpu":
            from . import gpu
            self.mod = gpu
        else:
            self.mod = cpu

    def run(self, items, upd, plan, S, op, cand, listing, progress):
        """(positive, negative, positive rows, negative rows) of one query on one batch."""
        mod = self.mod
        if progress and mod is cpu and cpu.splitting():   # one drive; the bar follows the items as they end
            from tqdm.auto import tqdm
            with tqdm(total=items.shape[0], desc="match_delta", unit="item") as bar:
                counts = cpu.count_items(items, upd, plan, S, op, cand, bar)
        elif not progress or items.shape[0] < 64:
            counts = mod.count_items(items, upd, plan, S, op, cand)
        else:
            from tqdm.auto import tqdm
            counts = np.zeros(items.shape[0], np.int64)
            sl = 32  # interleaved slices keep each slice's mix of heavy and light items
            with tqdm(total=items.shape[0], desc="match_delta", unit="item") as bar:
                for s in range(sl):
                    sel = np.arange(s, items.shape[0], sl)
                    got = mod.count_items(np.ascontiguousarray(items[sel]), upd, plan, S, op, cand)
                    if got.dtype == object:     # an item past int64 (count_items' Python ints)
                        counts = counts.astype(object)
                    counts[sel] = got
                    bar.update(sel.size)
        big = counts.dtype == object     # an item's count past int64 (count_items' Python ints)
        if not big:
            pos, neg, big = cpu.side_totals(counts, items)
        if big:  # an int64 sum could overflow: Python ints
            side = items[:, 5]
            pos, neg = _total(counts[side == INSERTED]), _total(counts[side == DELETED])
        pos, neg = int(pos), int(neg)
        if not listing:
            return pos, neg, None, None
        rows = mod.list_items(items, upd, plan, S, op, cand, counts)
        row_side = np.repeat(items[:, 5], counts)
        return pos, neg, rows[row_side == INSERTED], rows[row_side == DELETED]


def _delta(P, plan, engine, S, op, cand, *, count, listing, progress, ids):
    """One query on one opened batch: (positive, negative, [listings], stats)."""
    t = time.perf_counter()
    items, npos = cpu.build_items(plan, op.upd, op.ustate, op.uel, cand, S.rows, config.dynamic_split)
    t_items = time.perf_counter() - t
    escaped, levels, launches, pieces = S.escaped, dict(S.split_levels), S.gpu_launches, S.gpu_pieces
    pos, neg, prow, nrow = engine.run(items, op.upd, plan, S, op, cand, listing, progress)
    S.escape_next = False    # (the lane's hint is for this batch's search only: cpu._drive)
    if plan.symmetry and count == "embeddings":  # one embedding per subgraph was counted
        pos *= P.automorphism_count
        neg *= P.automorphism_count
    # (without symmetry breaking, only to list every embedding: count is "embeddings" then, _use_symmetry)
    lists = [None, None]
    if listing:
        lists = [rows if ids is None else ids[rows] for rows in (prow, nrow)]
    stats = {"items": {"positive": int(npos), "negative": int(items.shape[0] - npos)}, "items_s": t_items,
             "search_s": time.perf_counter() - t - t_items}
    if S.escaped != escaped:    # a serial search ran past its budget and the parallel drive took over (cpu._drive)
        stats["parallel_after_serial"] = True
    split = {L: n - levels.get(L, 0) for L, n in S.split_levels.items() if n > levels.get(L, 0)}
    if split:       # candidates handed on to idle threads (cpu.SPLIT_EAGER): how many times, at which levels
        stats["split_items"] = sum(split.values())
        stats["split_levels"] = split
    if S.gpu_launches != launches:   # the GPU's warps handed pieces on to further launches (gpu._run)
        stats["gpu_pieces"] = S.gpu_pieces - pieces
        stats["gpu_launches"] = S.gpu_launches - launches
    return pos, neg, lists, stats


def _open(S, nlf, batch):
    """The batch's union graph on the store and its candidate tables: (store's batch, tables' batch, times)."""
    t = time.perf_counter()
    op = S.open(batch)
    t_union = time.perf_counter() - t
    t = time.perf_counter()
    fo = nlf.open(batch, op.vlab, op.touched)
    return op, fo, {"union_s": t_union, "filter_s": time.perf_counter() - t}


def _after_graph(G, batch, S=None):
    """The graph after ``batch`` applied to the immutable graph G (a new Graph; O(n + m))."""
    S = ArcStore(G) if S is None else S
    op = S.open(batch)
    S.commit(op, batch)
    return S.graph()


def _resolve(backend):
    """``auto`` means the CPU here: measured (docs/dynamic.md), the GPU path wins on heavy queries (0.63 s
    against 10.6 s on 16 cores; human tree10 at 0.1% 0.082 s against 2.2 s with its hand-ons) but loses on light ones
    to its fixed host work and enumerates twin levels the CPU counts; ask for ``"gpu"``."""
    return resolve_backend(backend, supported=("cpu", "gpu"), what="batch-dynamic matching (match_delta)",
                           auto="cpu")


def _use_symmetry(count, listing):
    """Symmetry breaking counts one embedding per subgraph: always, except to list every embedding.  Counting
    takes one start pair per orbit of Aut(Q) (``"orbits"``, query.py's notes: fewer items, fewer bounds); listing
    keeps Aut(Q)'s own conditions (``"group"``), so that each listed row is the subgraph's canonical embedding, as
    the static engine lists it.  (The key of a compiled plan; :func:`_compile`.)"""
    if listing:
        return False if count == "embeddings" else "group"
    return "orbits"


def _compile(P, induced, sizes, sym):
    return compile_delta_plan(P, induced=bool(induced), candidates=sizes, symmetry=bool(sym), orbits=sym == "orbits")


_KEYS = {}   # id(P) -> (P, key): the key of a query asked for again (formatting its edges cost 3 us a call)


def _nlf_key(P):
    got = _KEYS.get(id(P))
    if got is not None and got[0] is P:   # P is held here, so its id is not reused while cached
        return got[1]
    key = f"cpu:dynamic:nlf:{P.k}:{P.edges}:{P.vertex_labels}"
    if len(_KEYS) >= 256:
        _KEYS.clear()
    _KEYS[id(P)] = (P, key)
    return key


_ENGINES = {}


def _engine(backend):
    e = _ENGINES.get(backend)
    if e is None:
        e = _ENGINES[backend] = _Engine(backend)
    return e


def _store(G) -> ArcStore:
    """G's arc store (made once per graph; its lock serialises the calls on G)."""
    return G.device_cache("cpu:dynamic:store", lambda: ArcStore(G))


def _lane_batch(S, insert, delete, listing, progress, backend, rel=None):
    """The (insert, delete) int64 arrays of a batch the small-batch lane may take (:mod:`.lane`), else None.
    With a relevance table (``match_delta``, which only counts the updates no query can use) the limit is on the
    others: a batch of any size whose relevant updates are at most ``config.dynamic_lane_max``."""
    lim = config.dynamic_lane_max
    if listing or progress or backend != "cpu" or lim <= 0 or S.ids is not None or S.labeled:
        return None
    cap = lim if rel is None else max(lim, _REL_LANE_MAX)
    ins = _lane.lane_pairs(insert, cap)
    if ins is None:
        return None
    dele = _lane.lane_pairs(delete, cap)
    if dele is None or ins.shape[0] + dele.shape[0] > cap:
        return None
    if ins.shape[0] + dele.shape[0] > lim:
        part = _relevant_part((ins, dele), rel, S.n)
        if part is None or part[0].shape[0] + part[1].shape[0] > lim:
            return None
    return ins, dele


_REL_LANE_MAX = 1 << 24     # match_delta: updates a lane batch may hold when most are dropped


def _lane_stats(v, given, views):
    """A lane batch's stats, the keys of the general path's (``v``: the lane's info as a list)."""
    L = _lane
    st = {"insert_given": given[0], "delete_given": given[1], "ignored_self_loops": v[L.I_LOOPS], "new_vertices": 0}
    if views:
        st.update(irrelevant=v[L.I_DROP_I] + v[L.I_DROP_D], irrelevant_inserts=v[L.I_DROP_I],
                  irrelevant_deletes=v[L.I_DROP_D])
    st.update(ignored_duplicates=v[L.I_DUP], ignored_insert_and_delete=v[L.I_BOTH],
              ignored_existing_inserts=v[L.I_EXIST], ignored_missing_deletes=v[L.I_MISSING], inserted=v[L.I_INS],
              deleted=v[L.I_DEL])
    if v[L.I_SEQ]:
        st["per_update"] = True     # applied one update at a time (dynamic/micro.py): its items are per update
    return st


def _lane_counts(v, items, counts, P, plan, count):
    """(positive, negative) of a lane batch as Python ints, times |Aut| where embeddings are counted."""
    pos, neg = v[_lane.I_POS], v[_lane.I_NEG]
    if v[_lane.I_BIG]:  # an int64 sum could overflow: Python ints
        side = items[:, 5]
        pos, neg = _total(counts[side == INSERTED]), _total(counts[side == DELETED])
    if plan.symmetry and count == "embeddings":
        pos *= P.automorphism_count
        neg *= P.automorphism_count
    return pos, neg


def _with_irrelevant(stats, G, rel, ins, dele):
    """A lane batch's stats with the counts of its updates no query can use added (match_delta's lane leaves
    them out of its search; they are counted when the stats are first read: a sort of those updates and a binary
    search per distinct pair, on G, which does not change)."""
    c = irrelevant_counts(ins, dele, rel.code, G.n, rel.table, G.indptr, G.indices).tolist()
    stats = dict(stats)
    for key, x in zip(STAT_KEYS, c):
        stats[key] += x
    return stats


class _AsideStats:
    """A whole-graph batch's stats (of its relevant updates), completed with the counts of the updates kept aside
    (:class:`.aside.Ticket`) when first read (MatchDelta.stats)."""

    __slots__ = ("stats", "ticket")

    def __init__(self, stats, ticket):
        self.stats, self.ticket = stats, ticket

    def __call__(self) -> dict:
        return self.ticket.add_to(self.stats)


def _with_aside(stats, ticket):
    """``stats`` as MatchDelta takes them: completed on first read where a ticket may add to them."""
    if ticket is None or (ticket.counts is not None and not ticket.counts.any()):
        return stats
    return _AsideStats(stats, ticket)


def _log_batch(aside, batch, ver):
    """The updates of a batch no query can use (``batch.aside``) logged aside as version ``ver``: their ticket, or
    None."""
    if aside is None or batch.aside is None:
        return None
    ins, lab, dele = batch.aside
    ioff, doff = _lane.one_batch(ins, dele)
    return aside.log_pairs(ins, lab, ioff, dele, doff, 0, 1, ver)


def _handed(ticket, tickets):
    """The ticket a batch's MatchDeltas complete their stats with: none where a stream takes it (``tickets``, its
    list: the stream's columns are completed instead, :func:`_aside_columns`)."""
    if tickets is not None and ticket is not None:
        tickets.append(ticket)
        return None
    return ticket


def _strict_aside(aside, pairs):
    """``strict=True`` on the updates of a whole-graph batch no query can use: refused as the general path refuses
    the others (:func:`.updates.normalise`), before anything changes."""
    c = aside.check(*pairs)
    for k, what, fix in ((0, "repeated pairs", "give each pair once"),
                         (1, "pairs both inserted and deleted", "a batch has no order inside it: split it into two "
                                                                 "batches"),
                         (2, "inserts of existing edges", "drop them"), (3, "deletes of missing edges", "drop them")):
        if c[k]:
            strict_fail(what, int(c[k]), "among the updates between labels no query joins", fix)


def _relevant_part(lane, rel, n):
    """The (insert, delete) pairs of a lane batch (validated int64 arrays) some query can use, or None when an id
    is out of range (a new vertex or a bad id: the general path takes the whole batch and validates it)."""
    ins, dele = lane
    ki, bad_i = relevant_rows(ins, rel.code, n, rel.table)
    kd, bad_d = relevant_rows(dele, rel.code, n, rel.table)
    if bad_i or bad_d:
        return None
    return ins[ki], dele[kd]


def _after_raw(G, ins, dele):
    """The graph after a lane batch (given as validated int64 pairs) on the immutable graph G."""
    S = ArcStore(G)
    return _after_graph(G, normalise(S, ins, dele), S)


def match_delta(G, Q, insert=None, delete=None, *, count: str = "embeddings", induced: bool = False,
                backend: str | None = None, listing: bool = False, labels=None, strict: bool = False,
                progress: bool = False) -> MatchDelta:
    """The matches of query Q that a batch of edge updates creates (positive) and destroys (negative).

    Parameters
    ----------
    G : anything :func:`la_gpm.as_graph` accepts (undirected; vertex and edge labels optional).
        Not modified: the graph after the batch is ``result.graph``.
    Q : a Pattern, a name, an edge list or a Sun & Luo ``.graph`` query file (2 to 32 vertices)
    insert, delete : (m, 2) arrays or lists of vertex pairs (original ids, ``G.ids``), (m, 3) with an
        edge label per inserted edge when G is edge-labeled, or the path of a RapidFlow/GAMMA stream
        file (its ``e`` lines insert, its ``-e`` lines delete, its ``v id label`` lines label new vertices)
    count : ``"embeddings"`` (injective maps, the GAMMA / RapidFlow convention; default) or
        ``"unique"`` (each subgraph once = embeddings / |Aut(Q)|)
    induced : count vertex-induced matches (query non-edges must be non-edges); a deletion can then
        create a match and an insertion destroy one
    backend : ``"cpu"`` (numba), ``"gpu"`` (one warp per work item) or ``"auto"``/None (the cpu:
        the GPU pays off on heavy queries only, see docs/dynamic.md)
    listing : also return ``positive_matches`` / ``negative_matches`` (each match once)
    labels : ``{vertex id: label}`` for vertices an insert adds to a vertex-labeled graph
    strict : raise :class:`la_gpm.InvalidUpdate` on updates that change nothing (an insert of an
        existing edge, a delete of a missing one, a self-loop, a repeated pair, a pair both inserted
        and deleted) instead of dropping them and counting them in ``stats``
    progress : a progress bar over the work items (on the CPU with two threads or more, moved as items end, their
        pieces handed to idle threads included; else by slices of the items)

    Returns
    -------
    MatchDelta
        ``positive − negative`` equals the static count after minus before.

    Notes
    -----
    Only the *net* effect of a batch counts: its order is ignored, so a match made and unmade inside
    one batch is not reported. See ``docs/dynamic.md``.

    Examples
    --------
    >>> import la_gpm
    >>> G = la_gpm.Graph.from_edges([0, 1], [1, 2])            # the path 0-1-2
    >>> d = la_gpm.match_delta(G, "triangle", insert=[[0, 2]], count="unique")
    >>> d.positive, d.negative, d.graph.m
    (1, 0, 3)
    """
    _check_count(count)
    G = as_graph(G)
    G.require_undirected("batch-dynamic matching")
    P = as_pattern(Q)
    _check_query(G, P, induced)
    b = _resolve(backend)
    t0 = time.perf_counter()
    S = _store(G)
    key = _nlf_key(P)
    sym = _use_symmetry(count, listing)
    with S.lock:   # the store and the tables are changed during the call and put back after it
        nlf = G.device_cache(key, lambda: NLFState(G.indptr, G.indices, G.vertex_labels, [P]))
        plan = G.device_cache(f"{key}:plan:{bool(induced)}:{sym}", lambda: _compile(P, induced, nlf.cand[0].sizes, sym))
        # the updates no query can use are not searched (the views' rule, on the whole graph: no match uses them,
        # and the tables of the union without them still hold every relevant edge); strict=True checks them all,
        # so it searches them too
        rel = None if strict else G.device_cache(f"{key}:relevance:{bool(induced)}",
                                                 lambda: relevance_of(G, [P], induced))
        lane = _lane_batch(S, insert, delete, listing, progress, b, rel)
        if lane is not None:
            ins, dele = lane
            ioff, doff = _lane.one_batch(ins, dele)
            run = _lane.run_lane(S, nlf, plan, ins, ioff, dele, doff, strict=strict, commit=False, relevance=rel,
                                 split=config.dynamic_split, parallel_min=config.parallel_min)
            if run.next:
                v = run.infos[0].tolist()
                pos, neg = _lane_counts(v, run.items, run.counts, P, plan, count)
                stats = dict(_lane_stats(v, (ins.shape[0], dele.shape[0]), False), backend=b,
                             items={"positive": v[_lane.I_NPOS], "negative": v[_lane.I_NITEMS] - v[_lane.I_NPOS]},
                             lane=True, seconds=time.perf_counter() - t0)
                ins, dele = ins.copy(), dele.copy()    # the caller's arrays may change before .graph is read
                if v[_lane.I_DROP_I] or v[_lane.I_DROP_D]:
                    stats = functools.partial(_with_irrelevant, stats, G, rel, ins, dele)
                return MatchDelta(pos, neg, lambda: _after_raw(G, ins, dele), stats, None, None, count,
                                  bool(induced))
            S.escape_next = bool(run.infos[0, _lane.I_ESCAPE])    # (as in DynamicGraph's lane: cpu._drive)
        # a lane batch that fell back (its relevant part predicts work for the parallel search): the general path
        # takes its relevant updates only, and the rest are counted as in the lane
        part = _relevant_part(lane, rel, S.n) if lane is not None and rel is not None else None
        batch = normalise(S, *(part or (insert, delete)), labels=labels, strict=strict)
        t_norm = time.perf_counter() - t0
        ids = ids_after(S, batch)
        op, fo, st = _open(S, nlf, batch)
        try:
            pos, neg, lists, st2 = _delta(P, plan, _engine(b), S, op, fo.cands[0], count=count, listing=listing,
                                          progress=progress, ids=ids)
        finally:
            nlf.revert(fo)
            S.revert(op)
    stats = dict(batch.stats, backend=b, normalise_s=t_norm, **st, **st2, seconds=time.perf_counter() - t0)
    if part is None:
        return MatchDelta(pos, neg, lambda: _after_graph(G, batch), stats, lists[0], lists[1], count, bool(induced))
    ins, dele = lane[0].copy(), lane[1].copy()    # the caller's arrays may change before .graph / .stats are read
    stats.update(insert_given=ins.shape[0], delete_given=dele.shape[0])
    return MatchDelta(pos, neg, lambda: _after_raw(G, ins, dele), functools.partial(_with_irrelevant, stats, G, rel,
                      ins, dele), lists[0], lists[1], count, bool(induced))


_NO_GRAPH = ("keep_graph=False keeps only the edges the queries can use (query views), not the whole graph; "
             "pass keep_graph=True to DynamicGraph to read .graph")


def _no_graph():
    raise InvalidArgument(_NO_GRAPH)


class DynamicGraph:
    """A graph under a stream of update batches, with the matches of standing queries.

    Keeps between batches the current graph, its neighbour-label counts and the candidate table
    of every query (updated on the touched rows only), and the compiled query plans.  The queries
    are fixed at construction.

    Parameters
    ----------
    G : the starting graph (not modified)
    queries : one query or a list of them (Patterns, names, edge lists, ``.graph`` files)
    count, induced, backend : as in :func:`match_delta`, for every query
    keep_graph : True (default): keep the whole graph (``.graph`` after each batch; with labelled queries the
        updates no query can use are logged aside and replayed only when ``.graph`` or their counts in ``stats``
        are read, so a batch costs what its relevant updates cost here too: dynamic/aside.py). False: **query
        views** (as RapidFlow): keep only the edges some query can use (an edge whose endpoint labels
        some query edge has, either orientation; for ``induced=True`` whose endpoint labels two distinct
        query vertices have; every edge when a query or the graph has no vertex labels), and drop the
        other updates of each batch in one pass before any other work, so a batch costs what its
        relevant updates cost.  Counts and listings are those of ``keep_graph=True``.  Differences:
        ``.graph`` (here and on each MatchDelta) raises :class:`la_gpm.InvalidArgument`;
        ``stats["irrelevant"]`` (``irrelevant_inserts`` / ``irrelevant_deletes``) counts the dropped
        updates, and the ignored-update counts and the ``strict=True`` checks cover the kept
        updates only (self-loops and input errors are checked on every update, as always); new vertices
        still get their labels.  See docs/dynamic.md.

    Attributes
    ----------
    view_stats : with ``keep_graph=False``, ``{"edges_kept", "edges_dropped", "seconds"}`` of the views
        built at construction (None otherwise)

    Examples
    --------
    >>> import la_gpm
    >>> D = la_gpm.DynamicGraph(la_gpm.Graph.from_edges([0, 1], [1, 2]), queries=["triangle"], count="unique")
    >>> [d.positive for d in D.apply(insert=[[0, 2]])], D.version, D.graph.m
    ([1], 1, 3)
    >>> [(d.positive, d.negative) for d in D.apply(delete=[[1, 2]])]
    [(0, 1)]
    """

    def __init__(self, G, queries, *, count: str = "embeddings", induced: bool = False, backend: str | None = None,
                 keep_graph: bool = True):
        _check_count(count)
        if not isinstance(keep_graph, (bool, np.bool_)):
            raise InvalidArgument(f"keep_graph must be True or False; got {keep_graph!r}")
        G = as_graph(G)
        G.require_undirected("batch-dynamic matching")
        if isinstance(queries, (str, bytes)) or not isinstance(queries, (list, tuple)):
            queries = [queries]
        if not queries:
            raise InvalidArgument("queries must name at least one query pattern")
        self._queries = [as_pattern(q) for q in queries]
        for P in self._queries:
            _check_query(G, P, induced)
        self._backend = _resolve(backend)
        self._count = count
        self._induced = bool(induced)
        self._keep_graph = bool(keep_graph)
        self.view_stats = None
        # the label pairs some query can use (None: every pair).  Both modes keep only those edges in the store, the
        # tables and every search; the whole graph keeps the others aside (dynamic/aside.py: a log, replayed when
        # .graph or a batch's update counts are read)
        t = time.perf_counter()
        self._relevance = relevance_of(G, self._queries, self._induced)
        base = G
        G, dropped = view_graph(G, self._relevance)
        self._store = ArcStore(G)
        self._aside = None
        if not self._keep_graph:
            self.view_stats = {"edges_kept": G.m, "edges_dropped": dropped, "seconds": time.perf_counter() - t}
        elif self._relevance is not None:
            self._aside = AsideEdges(base, self._relevance, self._store.lock)
        self._whole = (-1, None)      # (version, Graph) of the whole graph last built
        self._nlf = NLFState(G.indptr, G.indices, self._store.vlab, self._queries)   # (a writable copy of the labels)
        self._plans = {}  # (query index, symmetry) -> plan
        # ... with the candidate counts of the graph given here (they order each plan's levels): whichever path
        # compiles a plan first (the lane, the general path, a batch of nothing) and after however many batches,
        # the plan, and so the work items and their counts in the stats, are the same
        self._plan_sizes = [c.sizes for c in self._nlf.cand]
        self._engine = _Engine(self._backend)
        self._bound, self._bound_version = None, -1   # a stream's kept arguments (_stream_whole)
        # the counting plans now (about a millisecond a query: the first batch should cost its own work only);
        # listing plans on first use
        for q in range(len(self._queries)):
            self._plan(q, _use_symmetry(count, False))
        S = self._store
        if len(self._queries) == 1 and self._backend == "cpu" and S.ids is None and not S.labeled:
            self._bind_stream()          # array streams: their arguments now (see _stream_whole)

    @property
    def keep_graph(self) -> bool:
        """False: query views (only the queries' edges are kept; see the class notes)."""
        return self._keep_graph

    @property
    def graph(self):
        """The current graph (immutable; a new object after each batch, built when first read: O(n + m)).
        Raises :class:`la_gpm.InvalidArgument` with ``keep_graph=False`` (only the queries' edges are kept)."""
        if not self._keep_graph:
            _no_graph()
        if self._aside is None:
            return self._store.graph()
        with self._store.lock:
            if self._whole[0] != self._store.version:
                self._whole = (self._store.version, self._aside.graph(self._store.graph()))
            return self._whole[1]

    def _after(self, S):
        """The graph after the batch just committed, for its MatchDelta (a function building it on first call)."""
        if not self._keep_graph:
            return _no_graph
        snap = S.snapshot()
        if self._aside is None:
            return snap
        aside, state = self._aside, self._aside.state()
        return lambda: aside.graph(snap(), state)

    @property
    def version(self) -> int:
        """Number of batches applied."""
        return self._store.version

    @property
    def queries(self) -> list:
        return list(self._queries)

    def _plan(self, q, sym):
        """The plan of query q (from the candidate counts of the graph given to the constructor, see ``__init__``)."""
        plan = self._plans.get((q, sym))
        if plan is None:
            plan = self._plans[(q, sym)] = _compile(self._queries[q], self._induced, self._plan_sizes[q], sym)
        return plan

    def _apply_lane(self, S, ins, dele, strict, views):
        """One small batch of the one query through :mod:`.lane`; None: the general path takes it (nothing
        changed)."""
        nlf = self._nlf
        with S.lock:
            try:
                return self._lane_one(S, nlf, ins, dele, strict, views)
            finally:
                if self._bound is not None:    # a stream's kept arguments (_stream_whole): what the batch moved
                    _lane.rebind(self._bound, S, nlf)

    def _lane_one(self, S, nlf, ins, dele, strict, views):
        """:meth:`_apply_lane` under the store's lock."""
        t0 = time.perf_counter()
        plan = self._plan(0, _use_symmetry(self._count, False))
        ioff, doff = _lane.one_batch(ins, dele)
        for attempt in range(2):
            run = _lane.run_lane(S, nlf, plan, ins, ioff, dele, doff, strict=strict, commit=True,
                                 relevance=self._relevance, split=config.dynamic_split,
                                 parallel_min=config.parallel_min)
            need = int(run.infos[0, _lane.I_FULL])
            if run.next or not need or attempt:
                break
            S.reserve(need)      # the arc buffer was full (nothing changed): grow it and run the batch again
        if not run.next:
            # the general path takes the batch; one the lane put back past its serial budget goes straight to the
            # parallel drive (cpu._drive), without a second serial attempt
            S.escape_next = bool(run.infos[0, _lane.I_ESCAPE])
            return None
        v = run.infos[0].tolist()
        stats = _lane_stats(v, (ins.shape[0], dele.shape[0]), views)
        stats["backend"] = self._backend
        # the batch ran (a shortcut or committed): its updates no query can use to the log aside, as this version
        ticket = None if self._aside is None else self._aside.log_pairs(ins, None, ioff, dele, doff, 0, 1, S.version)
        if v[_lane.I_STATUS] == _lane.SHORTCUT:
            S.version += 1
            stats.update(items={"positive": 0, "negative": 0}, shortcut="no relevant update", lane=True,
                         seconds=time.perf_counter() - t0)
            return [MatchDelta(0, 0, self._after(S), _with_aside(stats, ticket), None, None, self._count,
                               self._induced)]
        S.used = run.used
        S.maxdeg = run.maxdeg
        S.committed(run.touched, run.old_rows, S.n, run.live - S.live)
        if run.lists is not None:
            nlf.cand[0] = Candidates(nlf._ct[0][:nlf.n], plan.k, run.lists)
        pos, neg = _lane_counts(v, run.items, run.counts, self._queries[0], plan, self._count)
        after = self._after(S)
        if self._relevance is not None and not v[_lane.I_INS] and not v[_lane.I_DEL]:
            stats["shortcut"] = "no relevant update"
        stats.update(items={"positive": v[_lane.I_NPOS], "negative": v[_lane.I_NITEMS] - v[_lane.I_NPOS]},
                     lane=True, seconds=time.perf_counter() - t0)
        return [MatchDelta(pos, neg, after, _with_aside(stats, ticket), None, None, self._count, self._induced)]

    def apply(self, insert=None, delete=None, *, labels=None, strict: bool = False, listing: bool = False,
              progress: bool = False) -> list[MatchDelta]:
        """Apply one batch; one :class:`MatchDelta` per query, in the order of ``queries``.

        A batch that raises (bad input) leaves the graph and every table as they were.  With
        ``keep_graph=False`` the updates no query can use are dropped first (``stats["irrelevant"]``)."""
        S = self._store
        views = not self._keep_graph
        lane = None
        if len(self._queries) == 1 and not (strict and self._aside is not None):   # (strict: see _apply_general)
            lane = _lane_batch(S, insert, delete, listing, progress, self._backend)
        if lane is not None:
            out = self._apply_lane(S, *lane, strict, views)
            if out is not None:
                return out
        return self._apply_general(insert, delete, labels, strict, listing, progress)

    def _apply_general(self, insert, delete, labels, strict, listing, progress, tickets=None):
        """:meth:`apply` without the lane.  ``tickets`` (a stream's list): the MatchDeltas' stats are left without the
        counts of the updates no query can use (whole-graph mode), whose :class:`.aside.Ticket` is appended there."""
        S = self._store
        views = not self._keep_graph
        aside = self._aside
        with S.lock:
            self._bound = None   # a stream's kept arguments (_stream_whole): this path may replace what they hold
            t0 = time.perf_counter()
            batch = normalise(S, insert, delete, labels=labels, strict=strict, relevance=self._relevance,
                              aside=aside is not None)
            if views and "irrelevant" not in batch.stats:   # every edge relevant: nothing to drop
                batch.stats.update(irrelevant=0, irrelevant_inserts=0, irrelevant_deletes=0)
            if not views:     # the whole graph: every update is applied (the counts of those kept aside: a ticket)
                for key in ("irrelevant", "irrelevant_inserts", "irrelevant_deletes"):
                    batch.stats.pop(key, None)
                if aside is not None and strict and batch.aside is not None:
                    _strict_aside(aside, batch.aside)
            t_norm = time.perf_counter() - t0
            ver = S.version
            if self._relevance is not None and not batch.insert.shape[0] and not batch.delete.shape[0] \
                    and batch.n_after == batch.n_before:
                # nothing a query can use is left (the usual small batch on a many-label graph): no match is made
                # or unmade and the store does not change; only the version moves
                S.version += 1
                ticket = _log_batch(aside, batch, ver)
                sym = _use_symmetry(self._count, listing)
                for q in range(len(self._queries)):        # the plans still made on first use, as below
                    self._plan(q, sym)
                stats = dict(batch.stats, backend=self._backend, normalise_s=t_norm, shortcut="no relevant update",
                             items={"positive": 0, "negative": 0})
                after = self._after(S)
                ticket = _handed(ticket, tickets)
                return [MatchDelta(0, 0, after, _with_aside(dict(stats), ticket),
                                   *((np.zeros((0, P.k), dtype=np.int64),) * 2 if listing else (None, None)),
                                   self._count, self._induced) for P in self._queries]
            ids = ids_after(S, batch)
            op, fo, st = _open(S, self._nlf, batch)
            out = []
            sym = _use_symmetry(self._count, listing)
            try:
                for q, (P, cand) in enumerate(zip(self._queries, fo.cands)):
                    plan = self._plan(q, sym)
                    out.append(_delta(P, plan, self._engine, S, op, cand, count=self._count, listing=listing,
                                      progress=progress, ids=ids))
            except BaseException:
                self._nlf.revert(fo)
                S.revert(op)
                raise
            t = time.perf_counter()
            self._nlf.commit(fo, batch, op.vlab)
            S.commit(op, batch)
            st["commit_s"] = time.perf_counter() - t
            ticket = _log_batch(aside, batch, ver)
            after = self._after(S)
        ticket = _handed(ticket, tickets)
        return [MatchDelta(pos, neg, after,
                           _with_aside(dict(batch.stats, backend=self._backend, normalise_s=t_norm, **st, **st2),
                                       ticket),
                           lists[0], lists[1], self._count, self._induced) for pos, neg, lists, st2 in out]

    def apply_stream(self, stream, *, batch_size: int | None = None, labels=None, strict: bool = False,
                     progress: bool = False) -> StreamDelta:
        """Apply a stream of batches in order; the counts of every (batch, query) as arrays.

        The counts, the graph and the tables after it are those of calling :meth:`apply` on each batch in
        turn.  What differs is the cost of a small batch: with one query on the CPU backend (a graph without
        an id map or edge labels) a whole run of batches is one numba call (the small-batch lane, looping
        over the batches), so a batch of a few dozen updates costs its own work, not a Python call.  A batch
        the lane does not take (new vertices, more work than the lane is for, labelled pairs) goes through
        :meth:`apply`'s general path in its turn and the run goes on after it.

        Parameters
        ----------
        stream : one of
            * the path of a RapidFlow / GAMMA stream file (``e u v [label]`` inserts, ``-e u v [label]``
              deletes, ``v id label`` labels a new vertex);
            * an (m, 3) integer array of signed updates in stream order, rows ``(sign, u, v)``: +1 inserts
              the edge u-v, -1 deletes it ((m, 4) with an edge label);
            * an iterable of batches, each an ``(insert, delete)`` pair or a ``{"insert": ..., "delete": ...}``
              mapping, as :meth:`apply` takes them.
        batch_size : cuts a file or an array in stream order into batches of this many updates (default:
            all of it is one batch).  Within a batch only the net effect counts (see :meth:`apply`).
        labels : ``{vertex id: label}`` for new vertices (with a file, added to its ``v`` lines)
        strict : as in :meth:`apply`
        progress : a progress bar over the batches

        Returns
        -------
        StreamDelta
            arrays ``batch``, ``query``, ``positive``, ``negative``, ``inserted``, ``deleted``, ``ignored``,
            ``irrelevant``, ``items``, ``lane`` (one entry per (batch, query)); ``totals()``, ``to_frame()``.

        Raises
        ------
        la_gpm.InvalidUpdate
            on a bad batch (as :meth:`apply`): the batches before it stay applied (``version`` counts them),
            the bad one changes nothing.

        Examples
        --------
        >>> import la_gpm, numpy as np
        >>> D = la_gpm.DynamicGraph(la_gpm.Graph.from_edges([0, 1, 2], [1, 2, 3]), ["triangle"], count="unique")
        >>> r = D.apply_stream(np.array([[1, 0, 2], [1, 1, 3], [-1, 1, 2]]), batch_size=1)
        >>> r.positive.tolist(), r.negative.tolist(), D.version
        ([1, 1, 0], [0, 0, 2], 3)
        """
        t0 = time.perf_counter()
        S = self._store
        # (strict=True on the whole graph: each batch through the general path, which checks the updates kept aside)
        lane_ok = (len(self._queries) == 1 and self._backend == "cpu" and S.ids is None
                   and not (strict and self._aside is not None))
        lane_max = config.dynamic_lane_max if lane_ok else 0
        chunks = []          # dicts of columns, in batch order
        tickets = None if self._aside is None else []   # the counts of the updates kept aside, per run or batch
        v0 = S.version
        b = n_lane = 0
        if lane_max > 0 and type(stream) is np.ndarray and not progress and not S.labeled:
            # an array stream: packed, run and its columns filled in one numba call (the light rows of a stream
            # are a few hundred microseconds in all: each Python step or boxed array here is a visible part)
            src, infos, b = self._stream_whole(S, stream, batch_size, strict, lane_max, chunks, tickets)
            if src is None:
                return StreamDelta(_aside_columns(chunks[0], tickets, v0), time.perf_counter() - t0, b, b,
                                   self._count, self._induced)
            n_lane = b
        else:
            src = stream_source(stream, batch_size, lane_max, S.labeled)
            infos = None
            if src.pairs is not None:
                infos = np.zeros((src.nbat, _lane.N_INFO), np.int64)
                infos[:, _lane.I_STATUS] = -1        # not run yet
        if src.labels and (labels is None or isinstance(labels, Mapping)):   # the file's v lines, then the caller's
            labels = {**src.labels, **(labels or {})}                         # (a bad labels: apply reports it)
        nbat = src.nbat
        bar = None
        if progress:
            from tqdm.auto import tqdm
            bar = tqdm(total=nbat, desc="apply_stream", unit="batch")
        step = 64
        try:
            while b < nbat:
                if infos is not None and not src.skip[b]:
                    b1 = nbat if bar is None else min(nbat, b + step)
                    t = time.perf_counter()
                    got = self._run_lane_stream(S, src, infos, b, b1, strict, chunks, tickets)
                    n_lane += got - b
                    if bar is not None:
                        bar.update(got - b)
                        dt = time.perf_counter() - t
                        step = max(1, min(4 * step, int(step * 0.25 / dt))) if dt > 0 else 4 * step
                    b = got
                    if b >= nbat or not (src.skip[b] or infos[b, _lane.I_STATUS] == _lane.FALLBACK):
                        continue
                ins, dele = src.raw(b)
                S.escape_next = infos is not None and not src.skip[b] and bool(infos[b, _lane.I_ESCAPE])
                out = self._apply_general(ins, dele, labels, strict, False, False, tickets)
                chunks.append(_general_columns(b, out))
                b += 1
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()
        if len(chunks) == 1:      # one run of the lane (or one batch): its columns as they are
            cols = chunks[0]
        else:
            cols = {}
            for c in COLUMNS:
                parts = [ch[c] for ch in chunks]
                cols[c] = np.concatenate(parts) if parts else np.zeros(0, np.int64)
                if any(p.dtype == object for p in parts):
                    cols[c] = cols[c].astype(object)
            cols["lane"] = cols["lane"].astype(bool)
        return StreamDelta(_aside_columns(cols, tickets, v0), time.perf_counter() - t0, nbat, n_lane, self._count,
                           self._induced)

    def _stream_whole(self, S, stream, batch_size, strict, lane_max, chunks, tickets):
        """An array stream through :func:`.lane.bound_run` (one numba call from batch 0), its columns appended to
        ``chunks``.  Returns (None, None, batches) where it ran the whole stream, else (the stream's
        :class:`.stream.StreamSource` with its packing, the info table, the first batch not run) for
        :meth:`apply_stream` to go on from.

        The call's arguments are kept between calls (``_bound``: :meth:`_bind_stream`, made by the constructor): a
        run refreshes the slots it moved (:func:`.lane.rebind`), so do the lane's single batches; every other path
        that may replace the arrays they hold (the general path, the rest of a stream this call hands back, a stream
        that is not an array) drops them, under the store's lock, and a configuration change (``config.version``)
        rebuilds them.  (Reading them afresh each call cost about 6 us of a first stream call on a DynamicGraph
        just built, 2.7 us of a later one: yeast, 2 cores, an empty stream.)  The whole graph's updates no query can
        use, of the batches run, go to the log aside (one numba pass; their ticket to ``tickets``)."""
        ops, size, nbat = array_stream(stream, batch_size)
        nlf = self._nlf
        with S.lock:
            S.settle()
            a = self._bound
            if a is None or self._bound_version != config.version:
                a = self._bind_stream()
            self._bound = None   # kept again only once the store and tables are set from the run
            bad, done, used, live, maxdeg, stale, cols, fits, lists, buffer, packed, infos, items, counts = \
                _lane.bound_run(a, ops, size, nbat, lane_max, strict)
            if bad >= 0:
                bad_sign(ops, bad)
            if tickets is not None and done:
                tickets.append(self._aside.log_ops(ops, size, done, S.version))
            S.used = used        # (as in _run_lane_stream: a batch put back may have moved rows to the tail)
            S.maxdeg = maxdeg
            if done or buffer is not None:
                S.advanced(done, live, buffer)
                if lists is not None:     # (a run that changed no list changed no candidate bit either)
                    # lists the run left stale (never scanned then): every other path builds them from the bits when
                    # it first reads them; the next stream takes the run's own, stale (lane.rebind)
                    nlf.cand[0] = Candidates(nlf._ct[0][:nlf.n], nlf.cand[0].k, None if stale else lists)
                _lane.rebind(a, S, nlf, buffer is not None, lists, stale)
            self._bound = a
        if infos is None:        # the whole stream ran and its counts fit in int64 (lane._stream)
            chunks.append(LaneColumns(cols))
            return None, None, done
        if done:
            chunks.append(self._big_columns(cols, fits, done, infos, items, counts))
        if packed is None:       # the run's packing left the pairs no query can use out: the general path's input
            packed = _lane.pack_ops(ops, size, nbat, lane_max)[:5]
        return array_source(ops, size, nbat, packed), infos, done

    def _bind_stream(self) -> list:
        """:func:`.lane.stream_args` for this graph's one query, kept (``_bound``) with the configuration's version:
        made by the constructor where array streams can take the lane, so that a first stream does not read them;
        kept through the lane's batches (:meth:`_apply_lane` refreshes what they move) and dropped by every
        path that may replace the arrays it holds (the general path, a stream that is not an array)."""
        plan = self._plan(0, _use_symmetry(self._count, False))
        aut = self._queries[0].automorphism_count if plan.symmetry and self._count == "embeddings" else 1
        self._bound = _lane.stream_args(self._store, self._nlf, plan, relevance=self._relevance, aut=aut)
        self._bound_version = config.version
        return self._bound

    def _big_columns(self, cols, fits, done, infos, items, counts):
        plan = self._plan(0, _use_symmetry(self._count, False))
        return _columns(cols, fits, done, infos, items, counts, self._queries[0], plan, self._count)

    def _run_lane_stream(self, S, src, infos, b0, b1, strict, chunks, tickets):
        """Batches b0 .. b1 - 1 of a packed stream through the lane, committed; their columns appended to
        ``chunks`` (the whole graph: the ticket of the updates kept aside to ``tickets``).  Returns the first batch
        not run."""
        ins_all, ioff, del_all, doff = src.pairs
        nlf = self._nlf
        P = self._queries[0]
        with S.lock:
            self._bound = None     # a stream's kept arguments (_stream_whole): built again by the next array stream
            S.settle()
            plan = self._plan(0, _use_symmetry(self._count, False))
            run = _lane.run_lane(S, nlf, plan, ins_all, ioff, del_all, doff, strict=strict, commit=True,
                                 relevance=self._relevance, split=config.dynamic_split,
                                 parallel_min=config.parallel_min, b0=b0, b1=b1, skip=src.skip, infos=infos,
                                 compact=True)
            done = run.next - b0
            if tickets is not None and done:
                tickets.append(self._aside.log_pairs(ins_all, None, ioff, del_all, doff, b0, run.next, S.version))
            # used and maxdeg even where no batch was committed: a batch the per-update path put back past its serial
            # budget may have moved rows to the tail (micro._undo)
            S.used = run.used
            S.maxdeg = run.maxdeg
            if done or run.buffer is not None:
                S.advanced(done, run.live, run.buffer)
                if run.stale:        # lists the run left stale (never scanned then): all of them from the bits
                    nlf.cand[0] = Candidates(nlf._ct[0][:nlf.n], plan.k)
                elif run.lists is not None:
                    nlf.cand[0] = Candidates(nlf._ct[0][:nlf.n], plan.k, run.lists)
        if done:
            chunks.append(_lane_columns(infos[b0:run.next], b0, run, P, plan, self._count))
        return run.next


def _lane_columns(v, b0, run, P, plan, count):
    """The result columns of the lane's batches (``v``: their info rows)."""
    aut = P.automorphism_count if plan.symmetry and count == "embeddings" else 1
    out, fits = _lane.lane_columns(v, b0, aut)     # int64 columns, one numba pass
    return _columns(out, fits, v.shape[0], v, run.items, run.counts, P, plan, count)


def _columns(out, fits, nb_, v, items, counts, P, plan, count):
    """The result columns of a lane run's ``nb_`` batches from its (9, nb_) int64 block ``out``
    (:func:`.lane.lane_columns`); where they do not fit (``fits`` False) positive and negative as Python ints from
    the info rows ``v`` and the last batch's ``items`` / ``counts`` (only the last batch run can be I_BIG)."""
    cols = LaneColumns(out)
    if not fits:
        L = _lane
        aut = P.automorphism_count if plan.symmetry and count == "embeddings" else 1
        v = v[:nb_]
        pos, neg = v[:, L.I_POS].astype(object) * aut, v[:, L.I_NEG].astype(object) * aut
        if v[-1, L.I_BIG]:
            pos[-1], neg[-1] = _lane_counts(v[-1].tolist(), items, counts, P, plan, count)
        cols["positive"], cols["negative"] = pos, neg
    return cols


def _aside_columns(cols, tickets, v0):
    """A whole-graph stream's columns (``cols``: of the relevant updates), completed with the counts of the updates
    kept aside (``tickets``; their versions from ``v0``, batch 0) when inserted / deleted / ignored are first read;
    irrelevant is 0 there (every update is applied).  Query views: ``cols`` as they are."""
    if tickets is None:
        return cols
    return _AsideColumns(cols, tickets, v0)


class _AsideColumns(dict):
    """:func:`_aside_columns`' mapping: each column made when first read (a replay of the log only for the three
    it changes, their per-row counts gathered once)."""

    __slots__ = ("_inner", "_tickets", "_v0", "_rows")

    def __init__(self, inner, tickets, v0):
        super().__init__()
        self._inner, self._tickets, self._v0, self._rows = inner, tickets, v0, None

    def _aside_rows(self):
        """The counts kept aside (:data:`.aside.STAT_KEYS`) of each row's batch, (rows, 6)."""
        if self._rows is None:
            batch = np.asarray(self._inner["batch"])
            out = np.zeros((batch.shape[0], 6), np.int64)
            for t in self._tickets:
                rows = batch - (t.v0 - self._v0)
                sel = (rows >= 0) & (rows < t.nv)
                out[sel] += t.get()[rows[sel]]
            self._rows = out
        return self._rows

    def __missing__(self, c):
        x = self._inner[c]
        if c == "irrelevant":
            x = np.zeros(x.shape[0], np.int64)
        elif c in ("inserted", "deleted", "ignored"):
            a = self._aside_rows()
            add = a[:, :4].sum(axis=1) if c == "ignored" else a[:, 4 if c == "inserted" else 5]
            x = x + add if x.dtype != object else x + add.astype(object)
        self[c] = x
        return x


def _general_columns(b, out):
    """The result columns of one batch from :meth:`DynamicGraph.apply`'s general path (one MatchDelta per
    query)."""
    def arr(xs):
        try:
            return np.array(xs, dtype=np.int64)
        except OverflowError:
            return np.array(xs, dtype=object)
    st = [d.stats for d in out]
    return {"batch": np.full(len(out), b, np.int64), "query": np.arange(len(out), dtype=np.int64),
            "positive": arr([d.positive for d in out]), "negative": arr([d.negative for d in out]),
            "inserted": arr([x["inserted"] for x in st]), "deleted": arr([x["deleted"] for x in st]),
            "ignored": arr([x["ignored_self_loops"] + x["ignored_duplicates"] + x["ignored_insert_and_delete"]
                            + x["ignored_existing_inserts"] + x["ignored_missing_deletes"] for x in st]),
            "irrelevant": arr([x.get("irrelevant", 0) for x in st]),
            "items": arr([x["items"]["positive"] + x["items"]["negative"] for x in st]),
            "lane": np.zeros(len(out), bool)}
