"""Tunables in one place, each with an environment override.

>>> import la_gpm
>>> la_gpm.config.backend            # doctest: +SKIP
'auto'

Environment variables (read once at import, then settable at run time):

=========================  ==========================================  =========
variable                   meaning                                      default
=========================  ==========================================  =========
``LA_GPM_BACKEND``         default backend for every call               ``auto``
``LA_GPM_MEMORY_BUDGET``   bytes the engine may use for intermediates   2 GiB
``LA_GPM_GPU_BLOCK``       threads per block of the GPU kernels whose   256
                           block size is free (triangle arcs, clique
                           arc sizes, census items, the trie engine,
                           color-coding sums, GAMMA; whole warps,
                           32..1024: ``la_gpm.device.block_size``)
``LA_GPM_CHUNK``           vertices/roots per work chunk                65536
``LA_GPM_DYNAMIC_SPLIT``   match_delta: neighbours per work item (a     256
                           hub update is split into several items)
``LA_GPM_PARALLEL_MIN``    match_delta: arcs / work below which the     200000
                           cpu passes run serially (a parallel region
                           costs more than small work)
``LA_GPM_EXACT_NODE_S``    estimate(exact="auto"): seconds per search-  4e-7
                           tree node of the cpu plan engine (the
                           exact count's predicted cost per node)
``LA_GPM_AUTO_SAFETY``     estimate(exact="auto") counts exactly when   2.0
                           safety × predicted exact seconds < the
                           colorings' predicted seconds
=========================  ==========================================  =========
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field, fields

from .exceptions import InvalidArgument

BACKENDS = ("auto", "cpu", "graphblas", "gpu")


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(float(raw))
    except ValueError:
        raise InvalidArgument(f"environment variable {name} must be an integer; got {raw!r}") from None


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise InvalidArgument(f"environment variable {name} must be a number; got {raw!r}") from None


@dataclass
class Config:
    backend: str = field(default_factory=lambda: os.environ.get("LA_GPM_BACKEND", "auto") or "auto")
    memory_budget: int = field(default_factory=lambda: _env_int("LA_GPM_MEMORY_BUDGET", 2 << 30))
    gpu_block: int = field(default_factory=lambda: _env_int("LA_GPM_GPU_BLOCK", 256))
    chunk: int = field(default_factory=lambda: _env_int("LA_GPM_CHUNK", 65536))
    dynamic_split: int = field(default_factory=lambda: _env_int("LA_GPM_DYNAMIC_SPLIT", 256))
    parallel_min: int = field(default_factory=lambda: _env_int("LA_GPM_PARALLEL_MIN", 200_000))
    # Steps of a dynamic search (la_gpm/dynamic/cpu.py, SPLIT_EAGER's notes) between an item's looks at the parallel
    # counting drive's flag (a thread out of work): once it is up, an item hands the candidates after its current one,
    # at the first level with two or more to go, to the idle threads, a position a piece; 0 turns that off (items
    # whole, in fixed chunks).
    dynamic_split_check: int = field(default_factory=lambda: _env_int("LA_GPM_DYNAMIC_SPLIT_CHECK", 4096))
    # Microseconds a warp of the GPU's dynamic search (la_gpm/dynamic/gamma.cu) runs one item or piece before, once
    # every item has been taken, it hands what it has not searched on as pieces to a next launch; 0 turns that off.
    dynamic_gpu_split_us: int = field(default_factory=lambda: _env_int("LA_GPM_DYNAMIC_GPU_SPLIT_US", 200))
    # Batches of at most this many updates (inserts + deletes as given) of one query on the CPU take the
    # small-batch lane (la_gpm/dynamic/lane.py: the whole batch in one numba call); 0 turns it off.
    dynamic_lane_max: int = field(default_factory=lambda: _env_int("LA_GPM_DYNAMIC_LANE_MAX", 4096))
    # A lane batch with at most this many relevant updates (after the query views drop the rest) is applied one
    # update at a time, deletes first (la_gpm/dynamic/micro.py: no batch machinery); 0 turns that off; at most 32.
    # 16 since session 30 (8 before), when a stream run began to edit rows in place: on yeast, HPRD and human streams
    # of 0.1% batches 16 was as fast as 8 or faster (yeast tree6, human sparse6 up to 1.3x), 32 slower on human dense4.
    # A query with a triangle tail (docs/dynamic.md) takes 256 (32 times the value below 8) in a stream, or in one apply
    # where the tail is off the update's endpoints (its triangle memo is this path's).
    dynamic_per_update_max: int = field(default_factory=lambda: _env_int("LA_GPM_DYNAMIC_PER_UPDATE_MAX", 16))
    # The least room (arcs) a DynamicGraph's arc buffer keeps past its live arcs (la_gpm/dynamic/store.py): every
    # update copies its two rows to the tail, and a full tail costs a compaction, O(arcs + vertices). Above it the
    # room is a quarter of the arcs or one arc a vertex (9 bytes an arc: 16,384 arcs are 144 KB).
    dynamic_room: int = field(default_factory=lambda: _env_int("LA_GPM_DYNAMIC_ROOM", 16384))
    progress: bool = False
    # Seconds per search-tree node (a partial match of a level below the last) of the cpu plan engine
    # (la_gpm/exact/cpu.py), the constant of estimate(exact="auto")'s exact-cost prediction. Measured with
    # run_plan's tree_nodes and wall time for 6-8 vertex trees (paths, the 6-star, u7, two branched trees) on
    # karate and citeseer, numba compiled, 2-core shared machine: 380-420 ns/node for runs of 2 ms-4 s, up to
    # 520 ns/node for the 45-54 s runs (benchmarks/bench_color_coding.py estimate_auto; docs/color_coding.md).
    exact_node_seconds: float = field(default_factory=lambda: _env_float("LA_GPM_EXACT_NODE_S", 4e-7))
    # estimate(exact="auto") counts exactly when auto_safety × the predicted exact seconds is below the predicted
    # seconds of the colorings still to run; > 1 leans towards the colorings, whose cost is known better.
    auto_safety: float = field(default_factory=lambda: _env_float("LA_GPM_AUTO_SAFETY", 2.0))

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if self.backend not in BACKENDS:
            raise InvalidArgument(
                f"backend must be one of {BACKENDS}; got {self.backend!r} "
                "(check the LA_GPM_BACKEND environment variable)"
            )
        for name in ("memory_budget", "gpu_block", "chunk", "dynamic_split", "parallel_min", "exact_node_seconds",
                     "auto_safety", "dynamic_room"):
            if getattr(self, name) <= 0:
                raise InvalidArgument(f"config.{name} must be positive; got {getattr(self, name)}")
        if self.dynamic_split_check < 0:
            raise InvalidArgument(f"config.dynamic_split_check must be 0 (off) or positive; got "
                                  f"{self.dynamic_split_check}")
        if self.dynamic_gpu_split_us < 0:
            raise InvalidArgument(f"config.dynamic_gpu_split_us must be 0 (off) or positive; got "
                                  f"{self.dynamic_gpu_split_us}")
        if not 0 <= self.dynamic_per_update_max <= 32:
            raise InvalidArgument(f"config.dynamic_per_update_max must be 0 (off) to 32; got "
                                  f"{self.dynamic_per_update_max}")

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if name in {f.name for f in fields(self)}:
            # every change moves the version: what is kept for repeat calls (la_gpm.engines.repeatable) is keyed on it
            object.__setattr__(self, "version", getattr(self, "version", 0) + 1)
            if all(hasattr(self, f.name) for f in fields(self)):
                self.validate()

    @contextlib.contextmanager
    def set(self, **kwargs):
        """Temporarily change tunables: ``with la_gpm.config.set(backend="cpu"): ...``."""
        old = {k: getattr(self, k) for k in kwargs}
        try:
            for k, v in kwargs.items():
                if not hasattr(self, k):
                    raise InvalidArgument(f"unknown config key {k!r}")
                setattr(self, k, v)
            yield self
        finally:
            for k, v in old.items():
                setattr(self, k, v)


config = Config()
