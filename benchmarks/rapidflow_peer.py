"""RapidFlow (Sun et al., VLDB'22, continuous subgraph matching, CPU, one thread) as a peer.

    python benchmarks/bench_dynamic.py rapidflow_selftest   # build if needed, check its counts vs networkx

Built from the read-only source ``../shared/peers/RapidFlow`` beside the checkout (env RAPIDFLOW_SRC)
into ``rapidflow_build`` in the system temporary folder (env RAPIDFLOW_BUILD), outside the repository:
``cmake -S SRC -B BUILD -DCMAKE_BUILD_TYPE=Release && make -C BUILD -j2``; binary
``BUILD/streaming/RapidFlow.out -d DATA -q QUERY -u STREAM -num MAX -time_limit S``.

What was established from its source (``streaming/streaming_engine.cpp``, ``graph/graph.cpp``):

* Input formats: see ``dynamic_workload.py`` (``v id label`` / ``e u v elabel`` for the data and the
  query graph, both read by ``loadGraphFromFileWithoutMeta`` with edge labels on; stream lines
  ``e u v elabel`` insert, ``-e u v elabel`` delete).
* Updates are processed one at a time in stream order.  An insert is applied to the index first and
  then the matches that contain the new edge are enumerated; a delete enumerates the matches that
  contain the edge first and then removes it.  So an insert reports |M(G+e)| - |M(G)| and a delete
  |M(G)| - |M(G-e)|.
* It prints ONE total, ``Result count: N``, summed over inserts and deletes alike (``result_count_ +=
  result_count`` for either op); there is no separate negative count.  Hence ``run`` on a mixed
  stream gives positive + negative, and ``bench_dynamic.py`` obtains the two signs from two runs:
  the delete stream on G0 (negative) and the insert stream on G0 - del (positive).  (The self-test
  runs them the other way round -- inserts on G0, deletes on G0 + ins -- and checks that a mixed
  stream's total equals the sum of the two.)
* Per automorphism class it enumerates the reduced query and multiplies by the class size
  (``result_count += local_result_count * automorphism_size``): the counts are embeddings (injective
  label-preserving maps, non-induced), automorphic images counted separately.
* Times it prints: ``Load stream file time``, ``Preprocessing time`` (global index build + orders),
  ``Query time`` (the whole stream: index updates + enumeration; what its paper reports), split into
  ``Global view update time`` / ``Local view update time`` / ``Search time`` (the view update times
  are 0 unless built with MEASURE_INDEXING_COST).  ``Time out...`` is printed when ``-time_limit``
  stopped it (the counts are then partial).
* ``-num MAX`` finds every incremental result (a number caps the results per update).

The self-test (:func:`selftest`) checks all of this on small random labelled graphs against networkx
``GraphMatcher(...).subgraph_monomorphisms_iter()`` with a label node_match: for each case the insert
stream's count equals |M(G0 + ins)| - |M(G0)|, the delete stream's count equals
|M(G1)| - |M(G1 - del)|, and the mixed stream's count equals their sum; a triangle with two equal
labels (|Aut| = 2) and the unlabelled triangle (|Aut| = 6) show embeddings, not unique subgraphs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from harness import command, edge_array

# the shared peers folder beside the checkout (../shared/peers), or a carried copy named by RAPIDFLOW_SRC
SRC = Path(os.environ.get("RAPIDFLOW_SRC") or Path(__file__).resolve().parents[2] / "shared" / "peers" / "RapidFlow")
BUILD = Path(os.environ.get("RAPIDFLOW_BUILD") or Path(tempfile.gettempdir()) / "rapidflow_build")


def binary(build_dir=None) -> Path:
    return Path(build_dir or BUILD) / "streaming" / "RapidFlow.out"


# its sources, as its CMakeLists.txt links them (utility/global_variables.cpp is left out: the static
# library cmake builds never links it, since streaming_engine.cpp defines the same g_exit)
_SOURCES = ("graph/graph.cpp", "utility/graphoperations.cpp", "utility/commandparser.cpp",
            "utility/computesetintersection.cpp", "utility/mem_usage.cpp", "streaming/global_view_manager.cpp",
            "streaming/local_view_manager.cpp", "streaming/order_manager.cpp", "streaming/search_engine.cpp",
            "streaming/streaming_engine.cpp")


def build(src=None, build_dir=None, jobs: int = 2) -> Path:
    """Build RapidFlow (Release) unless the binary already exists; returns its path.  With cmake as its
    README says; where cmake is missing or fails (the GPU machine's CMake 4), one g++ call with its
    CMakeLists.txt's flags."""
    src, bdir = Path(src or SRC), Path(build_dir or BUILD)
    exe = binary(bdir)
    if exe.exists():
        return exe
    built = False
    if shutil.which("cmake") and shutil.which("make"):
        # CMake 4 refuses its cmake_minimum_required(VERSION 2.8) unless told the policy floor
        r = subprocess.run(["cmake", "-S", str(src), "-B", str(bdir), "-DCMAKE_BUILD_TYPE=Release",
                            "-DCMAKE_POLICY_VERSION_MINIMUM=3.5"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        built = r.returncode == 0 and subprocess.run(["make", "-C", str(bdir), f"-j{jobs}"],
                                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0 and exe.exists()
    if not built:   # no cmake (the GPU machine), or its configure failed: one compiler call
        exe.parent.mkdir(parents=True, exist_ok=True)
        cxx = shutil.which("g++") or shutil.which("c++")
        if cxx is None:
            raise RuntimeError("neither cmake nor a C++ compiler (g++) found: cannot build RapidFlow")
        subprocess.run([cxx, "-std=c++14", "-O3", "-pthread", "-march=native", f"-I{src / 'utility'}", f"-I{src}",
                        *[str(src / f) for f in _SOURCES], "-o", str(exe)], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    if not exe.exists():
        raise RuntimeError(f"RapidFlow build finished but {exe} is missing")
    return exe


_FIELDS = {
    "result_count": (r"^Result count:\s*(\d+)", int),
    "query_time_s": (r"^Query time \(seconds\):\s*([0-9.eE+-]+)", float),
    "preprocessing_time_s": (r"^Preprocessing time \(seconds\):\s*([0-9.eE+-]+)", float),
    "search_time_s": (r"^Search time \(seconds\):\s*([0-9.eE+-]+)", float),
    "load_stream_time_s": (r"^Load stream file time \(seconds\):\s*([0-9.eE+-]+)", float),
    "updates": (r"^Updates num:\s*(\d+)", int),
    "edge_process_count": (r"^Edge process count:\s*(\d+)", int),
    "relevant_update_count": (r"^Relevant update count:\s*(\d+)", int),
    "positive_update_count": (r"^Positive update count:\s*(\d+)", int),
}


def parse_log(text: str) -> dict:
    """The numbers RapidFlow prints (the last occurrence of each: the summary comes last)."""
    out = {}
    for key, (pat, typ) in _FIELDS.items():
        hits = re.findall(pat, text, flags=re.M)
        if hits:
            out[key] = typ(hits[-1])
    out["timed_out"] = "Time out..." in text
    out["done"] = bool(re.search(r"^Done\.", text, flags=re.M))
    return out


def run(data_path, query_path, stream_path, time_limit: int = 60, num: str = "MAX", exe=None) -> dict:
    """Run RapidFlow once; returns its parsed summary plus ``wall_s`` (the whole process) and
    ``finished`` (exited 0, printed its summary, not stopped by ``time_limit``).

    ``result_count`` is the total number of incremental embeddings over the stream (inserts and
    deletes alike); the process is killed after ``time_limit`` + 30 s if it does not stop itself.
    """
    exe = Path(exe or build())
    r = command([exe, "-d", data_path, "-q", query_path, "-u", stream_path, "-num", num,
                 "-time_limit", int(max(1, time_limit))], timeout=time_limit + 30)
    out = parse_log(r["text"])
    out.update(wall_s=r["wall_s"], returncode=r["returncode"], killed=r["killed"],
               finished=(r["returncode"] == 0 and not r["killed"] and out["done"] and not out["timed_out"]
                         and "result_count" in out))
    if not out["finished"]:
        out["log_tail"] = r["text"][-1500:]
    return out


# ------------------------------------------------------------------ self-test against networkx
def _nx_embeddings(G, P) -> int:
    import networkx as nx
    from networkx.algorithms import isomorphism as iso
    gx = nx.Graph()
    lab = G.vertex_labels
    gx.add_nodes_from((v, {"label": int(lab[v])}) for v in range(G.n))
    gx.add_edges_from(edge_array(G).tolist())
    h = nx.Graph()
    plab = P.vertex_labels if P.vertex_labels is not None else [0] * P.k
    h.add_nodes_from((i, {"label": int(plab[i])}) for i in range(P.k))
    h.add_edges_from(P.edges)
    gm = iso.GraphMatcher(gx, h, node_match=iso.categorical_node_match("label", None))
    return sum(1 for _ in gm.subgraph_monomorphisms_iter())


def selftest(cases: int = 20, verbose: bool = True) -> list:
    import tempfile

    import numpy as np

    import la_gpm
    from la_gpm.patterns import Pattern

    import dynamic_workload as dw

    exe = build()
    rows = []
    rng = np.random.default_rng(7)
    queries = [Pattern([(0, 1), (1, 2), (0, 2)], vertex_labels=[0, 0, 0], name="triangle, one label (|Aut|=6)"),
               Pattern([(0, 1), (1, 2), (0, 2)], vertex_labels=[0, 0, 1], name="triangle 0-0-1 (|Aut|=2)"),
               Pattern([(0, 1), (1, 2), (2, 3), (3, 0)], vertex_labels=[0, 1, 0, 1], name="4-cycle 0-1-0-1"),
               Pattern([(0, 1), (1, 2), (2, 3)], vertex_labels=[1, 0, 0, 1], name="path 1-0-0-1"),
               Pattern([(0, 1), (0, 2), (0, 3), (1, 2)], vertex_labels=[0, 0, 0, 1], name="tailed triangle")]
    with tempfile.TemporaryDirectory() as td:
        td = Path(td)
        for c in range(cases):
            n, p = 14, 0.5
            A = np.triu(rng.random((n, n)) < p, 1)
            u, v = np.nonzero(A)
            labels = rng.integers(0, 2, n) if c % 3 else np.zeros(n, dtype=np.int64)
            G = la_gpm.Graph.from_edges(u, v, n=n, vertex_labels=labels)
            P = queries[c % len(queries)]
            G0, ins, dele = dw.make_batch(G, 0.3, seed=c)
            G1 = dw.apply_batch(G0, ins, [])
            G2 = dw.apply_batch(G0, ins, dele)
            m0, m1, m2 = (_nx_embeddings(g, P) for g in (G0, G1, G2))
            dw.write_query(P, td / "q")
            dw.write_data_graph(G0, td / "g0")
            dw.write_data_graph(G1, td / "g1")
            dw.write_stream(ins, [], td / "s_ins")
            dw.write_stream([], dele, td / "s_del")
            dw.write_stream(ins, dele, td / "s_mix")
            r_ins = run(td / "g0", td / "q", td / "s_ins", 10, exe=exe)
            r_del = run(td / "g1", td / "q", td / "s_del", 10, exe=exe)
            r_mix = run(td / "g0", td / "q", td / "s_mix", 10, exe=exe)
            row = {"case": c, "query": P.name, "edges G0": G0.m, "ins": len(ins), "del": len(dele),
                   "nx M(G0)": m0, "nx M(G0+ins)": m1, "nx M(after)": m2,
                   "rf insert stream": r_ins.get("result_count"), "rf delete stream": r_del.get("result_count"),
                   "rf mixed stream": r_mix.get("result_count")}
            ok = (r_ins["result_count"] == m1 - m0 and r_del["result_count"] == m1 - m2
                  and r_mix["result_count"] == (m1 - m0) + (m1 - m2))
            row["ok"] = ok
            rows.append(row)
            if verbose:
                print(row)
            if not ok:
                raise SystemExit(f"RapidFlow self-test failed: {row}")
    if verbose:
        print(f"RapidFlow self-test: {len(rows)} cases agree with networkx (embeddings; insert = gained, "
              f"delete = lost, mixed = gained + lost)")
    return rows

