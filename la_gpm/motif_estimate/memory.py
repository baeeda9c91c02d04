"""The memory model of one coloring's tables, the choice of their layout within a budget, and a byte ledger.

Two layouts hold the same numbers (docs/motif_estimate.md, "Memory budget"):

* ``"full"``: every rooted shape's table ``M`` (n x WM float64) and the passive shapes' ``B = A·M``
  (n x WB), built and kept for the sampler (the CPU adds ``Pt``, the passive columns transposed, n x WB);
* ``"chunked"``: ``M`` only.  ``B`` is built for one vertex chunk at a time (a buffer of ``rows`` x WB) and
  read by that chunk's eMA; the sampler recomputes the few entries of ``B`` it needs at a visited vertex from
  the neighbours' ``M`` (a hub: from its runs' sums, kept), in the build's summation order, so every value,
  hence every sample of a seed, is the full layout's;
* ``"spill"`` (below the chunked layout's floor): the chunked build and samplers, with the root weights and
  their sums, and the rows of ``M`` past ``m_rows``, held off the budget: on the gpu in host memory the device
  reads in place (CUDA managed memory advised to stay on the host), on the cpu in a temporary file the
  kernels read through a memory map.  The same arrays, read slower: the same numbers.

Both keep the hubs' run sums (CPU ``CSt``, GPU ``P``), the root weights and their cumulative sums (tops x n
each, no transient beside them: the GPU fills the weights one top shape at a time and sums in place) and one
sample batch.  :func:`choose_layout` takes the full
layout where it fits the budget, else the chunked one with as many rows per chunk as fit, and raises
:class:`~la_gpm.exceptions.MemoryBudgetTooSmall` with the smallest budget that runs (one row per chunk)
when even that does not fit.  :class:`Ledger` counts the bytes the tables allocate (``peak`` is what the
driver reports as ``df.attrs["table_bytes"]``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..exceptions import InvalidArgument, MemoryBudgetTooSmall

__all__ = ["Layout", "Ledger", "table_model", "choose_layout", "spill_layout", "LAYOUTS"]

LAYOUTS = ("full", "chunked", "spill")
F8 = 8                  # bytes per table entry (float64: exact integer counts below 2^53, see the docs)


@dataclass(frozen=True)
class Layout:
    """How one coloring's tables are held: ``kind`` (``"full"`` or ``"chunked"``), ``rows`` per vertex chunk of
    the chunked build (n for the full layout), ``chunks`` (their number) and the bytes the model predicts at
    the peak (``peak``), at the smallest chunk (``floor``) and for the full layout (``full``); ``resident``
    (what the build holds besides its B buffer) and ``row`` (bytes per row of that buffer): a budget of
    max(floor, resident + r·row) builds in chunks of r rows.  The spill layout: ``m_rows`` (the rows of ``M``
    within the budget; the rest and the root weights are held off it: ``spilled`` bytes), ``floor`` its own
    smallest budget; -1: every row of ``M`` within the budget (the other layouts)."""
    kind: str
    rows: int
    chunks: int
    peak: int
    floor: int
    full: int
    resident: int = 0
    row: int = 0
    m_rows: int = -1
    spilled: int = 0


class Ledger:
    """Bytes held by the arrays of one coloring's tables: ``alloc``/``free`` as they come and go, ``peak``."""

    def __init__(self):
        self.now = 0
        self.peak = 0
        self.spilled = 0     # bytes held off the budget (the spill layout: host memory or a file)

    def alloc(self, nbytes: int) -> None:
        self.now += int(nbytes)
        self.peak = max(self.peak, self.now)

    def free(self, nbytes: int) -> None:
        self.now -= int(nbytes)

    def array(self, make, shape, dtype):
        """``make(shape, dtype=dtype)`` (numpy or cupy ``zeros``/``empty``), counted."""
        a = make(shape, dtype=dtype)
        self.alloc(a.nbytes)
        return a


def table_model(backend: str, n: int, WM: int, WB: int, tops: int, k: int, slots: int, batch: int,
                graph_bytes: int = 0) -> dict:
    """Bytes of the parts of one coloring's tables (see the module docstring) for ``backend`` ("cpu"/"gpu"):
    ``M``, ``B`` (full layout), ``Pt`` (cpu, full layout), ``hubs`` (run sums: ``slots`` runs x WB), ``roots``
    (the root weights and their cumulative sums: 2 x tops x n, both backends; the gpu's are made without a
    gathered, flattened or weighted copy, see ``GpuTables._roots``),
    ``small`` (per-vertex colours and hub offsets), ``samples`` (one batch of ``batch`` samples), ``graph``
    (gpu: the device CSR and SpMM tasks) and ``row`` (one row of the chunked build's B buffer)."""
    gpu = backend == "gpu"
    return {
        "M": n * WM * F8,
        "B": n * WB * F8,
        "Pt": 0 if gpu else WB * n * F8,
        "hubs": WB * max(slots, 1) * F8,
        "roots": 2 * tops * n * F8,
        "small": n * (1 + (4 if gpu else 8)),
        "samples": batch * (k * 4 + 16 if gpu else (k + 2 * (k - 1) + 1) * 8),
        "graph": graph_bytes if gpu else 0,
        "row": WB * F8 + (8 if gpu else 0),
    }


def choose_layout(backend: str, n: int, WM: int, WB: int, tops: int, k: int, slots: int, batch: int,
                  budget: int | None, graph_bytes=0, force: str | None = None,
                  spill_room: int | None = None) -> Layout:
    """The layout of one coloring's tables within ``budget`` bytes (None: no limit, the full layout).

    Full where its peak fits; else chunked with rows = (budget - resident) // row bytes (at most n), where
    resident = M + hub sums + small + graph and the roots and the sample batch, which live after the build's
    buffer is freed, must fit beside the resident part too; below the chunked layout's floor, the spill layout
    (:func:`spill_layout`), whose off-budget bytes must fit ``spill_room`` (None: not checked).  ``graph_bytes``:
    the gpu's graph state, one number or one per layout (full, chunked, spill): the layouts built on the
    degree-ordered relabelling hold its copy beside the graph's.  ``force`` ("full"/"chunked"/"spill") skips the
    choice (tests, benchmarks) but not the check.  Raises MemoryBudgetTooSmall when not even the spill layout fits.
    """
    g_full, g_chunked, g_spill = graph_bytes if isinstance(graph_bytes, tuple) else (graph_bytes,) * 3
    m_full = table_model(backend, n, WM, WB, tops, k, slots, batch, g_full)
    full = m_full["M"] + m_full["hubs"] + m_full["small"] + m_full["graph"] + m_full["roots"] + m_full["samples"] \
        + m_full["B"] + m_full["Pt"]
    m = dict(m_full, graph=g_chunked if backend == "gpu" else 0)
    resident = m["M"] + m["hubs"] + m["small"] + m["graph"]
    after = resident + m["roots"] + m["samples"]            # after the build: the roots and one sample batch
    floor = max(resident + m["row"], after)
    if force not in (None, *LAYOUTS):
        raise InvalidArgument(f"layout must be one of {LAYOUTS}; got {force!r}")
    if force is None and (budget is None or full <= budget) or force == "full":
        if force == "full" and budget is not None and full > budget:
            raise MemoryBudgetTooSmall(f"the full layout of the k = {k} tables needs {full} bytes; "
                                       f"memory_budget is {budget}", needed=full, budget=budget)
        return Layout("full", max(n, 1), 1, full, floor, full, resident, m["row"])
    if budget is None:
        budget = full
    if force == "spill" or (force is None and floor > budget):
        return spill_layout(backend, n, WM, dict(m, graph=g_spill if backend == "gpu" else 0), budget, floor, full,
                            k, spill_room)
    if floor > budget:
        raise MemoryBudgetTooSmall(
            f"motif estimation (k = {k}, n = {n}, {backend}) needs at least {floor} bytes ({floor / 2**30:.3g} GiB) "
            f"for one coloring's tables in vertex chunks of one row (M alone: {m['M']} bytes, {WM} float64 "
            f"columns per vertex); memory_budget is {budget} bytes: raise it to at least {floor}",
            needed=floor, budget=budget)
    rows = int(min(max(n, 1), (budget - resident) // m["row"]))
    chunks = -(-max(n, 1) // rows)
    return Layout("chunked", rows, chunks, max(resident + rows * m["row"], after), floor, full, resident, m["row"])


SPILL_CHUNKS = 64       # the spill layout's B buffer: at least n / 64 rows where the budget allows (launches)


def spill_layout(backend: str, n: int, WM: int, m: dict, budget: int, chunked_floor: int, full: int, k: int,
                 spill_room: int | None = None) -> Layout:
    """The spill layout of the parts ``m`` (:func:`table_model`) within ``budget`` bytes (``full``: the full
    layout's peak, for the record).

    Within the budget: the hub sums, colours, graph state, one sample batch, the B buffer of the chunked build
    (at least n / SPILL_CHUNKS rows where the budget allows; more where all of ``M`` fits beside it) and as many
    rows of ``M`` as fit beside them (gpu: any number, the first ones; cpu: all or none, a memory map being one
    array).  Off it (``spilled`` bytes): the root weights with their sums, which are read least (a few root
    sums a sample, where each build reads a row of ``M`` once per neighbour), then the rest of ``M``.  The
    floor: everything off the budget but one B row and the sample batch (gpu: and one n-vector).  Where the
    spilled bytes exceed ``spill_room``, MemoryBudgetTooSmall names the budget that spills no more than that (the
    chunked layout's floor ``chunked_floor`` where the root weights alone do not fit there).
    """
    rowM, row = WM * F8, m["row"]
    fixed = m["hubs"] + m["small"] + m["graph"]
    # after the build: one sample batch (the gpu also gathers each top shape's column into the graph's own
    # vertex order, one n-vector at a time, for the root weights)
    post = m["samples"] + (F8 * n if backend == "gpu" else 0)
    floor = fixed + max(row, post)
    if floor > budget:
        raise MemoryBudgetTooSmall(
            f"motif estimation (k = {k}, n = {n}, {backend}) needs at least {floor} bytes ({floor / 2**30:.3g} GiB) "
            f"within its budget even with its tables held off it (the graph state, the hubs' run sums, one row of "
            f"the build and one sample batch); memory_budget is {budget} bytes: raise it to at least {floor}",
            needed=floor, budget=budget)
    N = max(n, 1)
    rows = max(1, min(-(-N // SPILL_CHUNKS), (budget - fixed) // row, N))
    work = max(rows * row, post)
    m_rows = min(n, (budget - fixed - work) // rowM)
    if backend != "gpu" and m_rows < n:
        m_rows = 0
    if m_rows == n:                              # all of M fits: the rest of the budget to the B buffer
        rows = max(rows, min(N, (budget - fixed - m["M"]) // row))
        work = max(rows * row, post)
    spilled = (n - m_rows) * rowM + m["roots"]
    if spill_room is not None and spilled > spill_room:
        where = "host memory" if backend == "gpu" else "space in the temporary folder"
        if m["roots"] > spill_room:
            needed = chunked_floor
        elif backend == "gpu":
            needed = min(chunked_floor, budget + -(-(spilled - spill_room) // rowM) * rowM)
        else:
            needed = min(chunked_floor, fixed + work + m["M"])
        raise MemoryBudgetTooSmall(
            f"motif estimation (k = {k}, n = {n}, {backend}) would hold {spilled} bytes ({spilled / 2**30:.3g} GiB) of "
            f"its tables off memory_budget ({budget} bytes), but only {spill_room} bytes of {where} are free: raise "
            f"memory_budget to at least {needed} or free {where}", needed=needed, budget=budget)
    resident = fixed + m_rows * rowM
    return Layout("spill", int(rows), -(-N // int(rows)), resident + work, floor, full, resident, row,
                  int(m_rows), int(spilled))
