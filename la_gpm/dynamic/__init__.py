"""GAMMA: batch-dynamic subgraph matching (Qiu et al., arXiv 2401.17018), on CPU and GPU.

For a batch of edge inserts and deletes, the matches of a query that the batch creates
(positive) and destroys (negative), each exactly once, without recounting the graph.

* :func:`match_delta`: one batch, one query;
* :class:`DynamicGraph`: a stream of batches against standing queries (``apply`` one batch,
  ``apply_stream`` a whole stream: :class:`StreamDelta`);
* :func:`read_stream`: RapidFlow / GAMMA update-stream files.

Layout of this folder (imports only go down the list): ``updates`` (batch normalisation, the
union graph with arc states), ``query`` (one matching order per start pair), ``filter`` (NLF
candidate tables kept incrementally), ``cpu`` (numba search), ``gpu`` + ``gamma.cu`` (one warp
per work item), ``views`` (query views: the edges the queries can use, ``keep_graph=False``),
``lane`` (a run of small batches of one query in one numba call), ``stream`` (stream inputs
cut into batches, :class:`StreamDelta`), ``engine`` (the public calls).  See docs/dynamic.md.
"""

from .engine import COUNT_KINDS, DynamicGraph, MatchDelta, StreamDelta, match_delta
from .updates import read_stream

__all__ = ["match_delta", "DynamicGraph", "MatchDelta", "StreamDelta", "read_stream", "COUNT_KINDS"]
