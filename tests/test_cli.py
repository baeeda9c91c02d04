"""The la-gpm command line (run in-process; one subprocess check of the console script)."""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest

import la_gpm

from la_gpm.cli import main

from .conftest import data_path


def test_demo(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "105,461" in out and "= published" in out and "!= PUBLISHED" not in out


def test_count_json(capsys):
    assert main(["count", "karate", "triangle", "--backend", "cpu", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["count"] == 45 and res["pattern"] == "triangle"


def test_count_file(capsys):
    assert main(["count", str(data_path("p2p-Gnutella08.txt.gz")), "triangle", "--backend", "cpu"]) == 0
    assert capsys.readouterr().out.startswith("2383")


def test_info(capsys):
    assert main(["info", "citeseer", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert (res["n"], res["m"]) == (3264, 4536)


def test_errors_are_named(capsys, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("0 1\n1 zz\n")
    assert main(["count", str(bad), "triangle"]) == 2
    err = capsys.readouterr().err
    assert "GraphFormatError" in err and "line 2" in err
    assert main(["count", "karate", "dodecahedron"]) == 2
    assert "unknown pattern name" in capsys.readouterr().err


def test_console_script():
    exe = shutil.which("la-gpm")
    if exe is None:
        pytest.skip("console script not installed (package not pip-installed)")
    out = subprocess.run([exe, "count", "karate", "triangle", "--backend", "cpu"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("45")


def test_estimate(capsys):
    assert main(["estimate", "karate", "u3", "--eps", "0.2", "--delta", "0.1", "--seed", "3", "--stop", "clt",
                 "--backend", "cpu", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["seed"] == 3 and res["n_colorings"] >= 1
    assert res["ci_low"] <= 528 <= res["ci_high"]  # 528 wedges (non-induced 3-paths) in karate


def test_census_and_match(capsys):
    assert main(["census", "citeseer", "-k", "3", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert {c["name"]: c["count"] for c in res["classes"]} == {"wedge": 23380, "triangle": 1166}
    assert main(["census", "citeseer", "-k", "4", "--method", "enumerate", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["method"] == "enumerate" and {c["name"]: c["count"] for c in res["classes"]}["4-cycle"] == 3094
    hprd = data_path("hprd/HPRD.graph")
    q = data_path("hprd/query_graph/query_dense_16_1.graph")
    assert main(["match", str(hprd), str(q), "--count-only"]) == 0
    assert capsys.readouterr().out.strip() == "3"
    assert main(["match", str(hprd), str(q), "--limit", "2"]) == 0
    rows = capsys.readouterr().out.strip().splitlines()
    assert len(rows) == 2 and all(len(r.split()) == 16 for r in rows)


def test_census_estimate_and_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    import la_gpm
    exact = {r.name: r.count for r in la_gpm.census(la_gpm.datasets.load("citeseer"), 4).itertuples()}
    png = tmp_path / "c.png"
    assert main(["census", "citeseer", "-k", "4", "--estimate", "--seed", "2", "--delta", "0.01", "--json",
                 "--plot", str(png)]) == 0
    res = json.loads(capsys.readouterr().out)
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"
    seen = {c["name"]: c for c in res["classes"]}
    assert main(["census", "citeseer", "-k", "4", "--estimate", "--non-induced"]) == 2
    assert "InvalidArgument" in capsys.readouterr().err
    for name in ("4-star", "4-path", "tailed-triangle"):  # frequent classes: interval holds the exact count
        assert seen[name]["ci_low"] <= exact[name] <= seen[name]["ci_high"], name


def test_census_estimate_memory_budget(capsys):
    """--memory-budget reaches estimate_census: a budget under the chunked floor spills, with the unbounded run's
    classes and counts for the seed; a malformed size is a usage error naming what is expected."""
    import la_gpm
    from la_gpm.motif_estimate.driver import table_layout
    floor = table_layout(la_gpm.datasets.load("karate"), 5, "cpu", force="chunked").floor
    args = ["census", "karate", "-k", "5", "--estimate", "--seed", "3", "--max-samples", "20000", "--json",
            "--backend", "cpu"]         # (the floor above is the cpu's: auto would take a visible GPU)
    assert main(args) == 0
    full = json.loads(capsys.readouterr().out)
    assert main(args + ["--memory-budget", str(floor - 1)]) == 0
    small = json.loads(capsys.readouterr().out)
    assert full["table_layout"] == "full" and small["table_layout"] == "spill"
    assert [(c["name"], c["count"]) for c in full["classes"]] == [(c["name"], c["count"]) for c in small["classes"]]
    with pytest.raises(SystemExit):
        main(args + ["--memory-budget", "lots"])
    assert "expected a positive size such as 8G" in capsys.readouterr().err
    from la_gpm.cli import _byte_size
    assert (_byte_size("8G"), _byte_size("512MiB"), _byte_size("1.5k"), _byte_size("123")) == \
        (8 << 30, 512 << 20, 1536, 123)


def test_plot_exact_census(tmp_path):
    pytest.importorskip("matplotlib")
    import la_gpm
    ax = la_gpm.plot_census(la_gpm.census(la_gpm.datasets.load("karate"), 4), tmp_path / "k.png")
    assert len(ax.patches) == 6 and (tmp_path / "k.png").exists()
    with pytest.raises(la_gpm.InvalidArgument, match="name"):
        la_gpm.plot_census(__import__("pandas").DataFrame({"x": [1]}))


def test_trees(capsys):
    import json

    assert main(["trees", "karate", "-k", "4", "--eps", "0.2", "--seed", "1", "--backend", "cpu", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["trees"]) == {"tree4-0", "tree4-1"}
    star = next(r for r in out["trees"].values() if sorted(map(tuple, r["edges"])) in ([(0, 1), (0, 2), (0, 3)],))
    assert star["ci_low"] <= 1764 <= star["ci_high"]  # sum over vertices of C(deg, 3)
    assert main(["trees", "karate", "-k", "4", "--eps", "0.2", "--seed", "1", "--backend", "cpu"]) == 0
    assert "tree4-0" in capsys.readouterr().out


def test_census_estimate_uniform_sampling_flag(capsys):
    import json

    assert main(["census", "karate", "-k", "3", "--estimate", "--seed", "1", "--no-adaptive", "--natural-share",
                 "0.5", "--backend", "cpu", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    got = {r["name"]: r for r in out["classes"]}
    assert got["triangle"]["ci_low"] <= 45 <= got["triangle"]["ci_high"]
    assert got["wedge"]["ci_low"] <= 393 <= got["wedge"]["ci_high"]


def test_orbits(capsys, tmp_path):
    # orbit 3 counts triangles at each vertex: its sum is 3 x 45 in karate; orbit 0 sums the degrees (2m = 156)
    out = tmp_path / "gdv.npy"
    assert main(["orbits", "karate", "-k", "4", "--out", str(out), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["orbit_sums"][0] == 156 and res["orbit_sums"][3] == 3 * 45
    X = np.load(out)
    assert X.shape == (34, 15) and X.dtype == np.int64
    np.testing.assert_array_equal(X, la_gpm.orbits(la_gpm.datasets.load("karate"), 4, backend="cpu"))
    csv = tmp_path / "gdv.csv"
    assert main(["orbits", "karate", "-k", "3", "--out", str(csv)]) == 0
    assert "34 vertices x 4 orbits" in capsys.readouterr().out
    np.testing.assert_array_equal(np.loadtxt(csv, delimiter=",", dtype=np.int64), X[:, :4])
    assert main(["orbits", "karate", "--out", str(tmp_path / "x.parquet")]) == 2
    assert "--out must end in" in capsys.readouterr().err


# --------------------------------------------------------------------------- issue 19: progress, --directed, help,
# --json everywhere, the pattern catalog, the demo's estimate line, census warnings, tree_census frame, plot title


@pytest.mark.parametrize("argv, shown", [
    (["count", "karate", "4-cycle", "--backend", "cpu"], "la-gpm count"),
    (["census", "karate", "-k", "4", "--backend", "cpu"], "la-gpm census"),
    (["census", "karate", "-k", "3", "--estimate", "--seed", "1", "--backend", "cpu"], "motif estimate k=3"),
    (["orbits", "karate", "-k", "3"], "la-gpm orbits"),
    (["match", "karate", "triangle", "--limit", "3"], "la-gpm match"),
    (["estimate", "karate", "u3", "--seed", "1", "--eps", "0.2", "--backend", "cpu"], "color coding k=3"),
    (["trees", "karate", "-k", "4", "--seed", "1", "--eps", "0.2", "--backend", "cpu"], "la-gpm trees"),
])
def test_progress_on_stderr_only(capsys, argv, shown):
    assert main(argv + ["--progress", "--json"]) == 0
    cap = capsys.readouterr()
    json.loads(cap.out)                       # stdout stays one clean JSON document
    assert shown in cap.err and "done in" in cap.err
    assert main(argv + ["--quiet", "--json"]) == 0
    cap = capsys.readouterr()
    json.loads(cap.out)
    assert cap.err == ""


def test_dynamic_progress_and_json(capsys, tmp_path):
    s = tmp_path / "s.txt"
    s.write_text("e 0 9\n-e 0 1\n")
    assert main(["dynamic", "karate", "triangle", str(s), "--batch-size", "1", "--progress", "--json"]) == 0
    cap = capsys.readouterr()
    res = json.loads(cap.out)
    assert len(res["batches"]) == 2 and "batches" in cap.err


def test_directed(capsys, tmp_path):
    f = tmp_path / "d.txt"
    f.write_text("0 1\n1 2\n2 0\n2 3\n")
    assert main(["info", str(f), "--directed", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["directed"] is True and res["m"] == 4
    assert main(["info", str(f), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["directed"] is False
    assert main(["census", str(f), "-k", "3", "--directed", "-q"]) == 0     # the directed census (issue 18)
    assert "030C" in capsys.readouterr().out
    for argv in (["count", str(f), "triangle"], ["census", str(f), "-k", "5"], ["orbits", str(f)],
                 ["estimate", str(f), "u3", "--backend", "cpu"], ["trees", str(f), "-k", "3", "--backend", "cpu"],
                 ["match", str(f), "triangle"]):
        assert main(argv + ["--directed", "-q"]) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("la-gpm: error: ") and "undirected" in err and "drop --directed" in err, err
        assert "Traceback" not in err
    assert main(["info", "karate", "--directed"]) == 2      # bundled datasets are undirected
    assert "InvalidArgument" in capsys.readouterr().err


def test_help_lists_patterns_and_defaults(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert all(name in out for name in la_gpm.patterns.NAMES)
    with pytest.raises(SystemExit):
        main(["estimate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(default: 0.05)" in out and "(default: 0.01)" in out and "(default: acs)" in out
    assert "house" in out and "--directed" in out and "--quiet" in out and "--progress" in out
    with pytest.raises(SystemExit):
        main(["census", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "pattern size (default: 4)" in out and "relative error target (default: 0.1)" in out
    with pytest.raises(SystemExit):
        main(["trees", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(default: 0.1)" in out and "(default: 0.01)" in out


def test_json_everywhere(capsys):
    # every command takes --json (count/info/census/orbits/estimate/trees/dynamic have their own tests)
    assert main(["match", "karate", "triangle", "--limit", "4", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["count"] == 4 and len(res["embeddings"]) == 4 and all(len(r) == 3 for r in res["embeddings"])
    assert main(["match", "karate", "triangle", "--count-only", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["embeddings"] == 45 * 6
    assert main(["demo", "karate", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["triangles"]["cpu"]["count"] == 45 and res["census4"]["counts"]["4-clique"] == 11
    assert res["u5"]["ci_low"] <= res["u5"]["value"] <= res["u5"]["ci_high"]
    assert main(["patterns", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["patterns"]
    sub = la_gpm.cli.build_parser()._subparsers._group_actions[0].choices
    for name, sp in sub.items():
        assert "--json" in sp.format_help(), name


def test_patterns_catalog(capsys):
    assert main(["patterns", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["patterns"]}
    assert set(rows) == set(la_gpm.patterns.NAMES)
    assert (rows["house"]["k"], rows["house"]["num_edges"], rows["house"]["automorphisms"]) == (5, 6, 2)
    assert (rows["k-clique"]["example"], rows["k-clique"]["automorphisms"]) == ("4-clique", 24)
    assert rows["u5"]["k"] == 5 and rows["Tree_<k>_<id>"]["k"] is None
    assert main(["patterns"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    i = next(j for j, line in enumerate(lines) if line.startswith("triangle "))
    assert "|Aut|=6" in lines[i]
    assert [line.strip() for line in lines[i + 1:i + 5]] == ["0 1 2", "0 \\ # #", "1 # \\ #", "2 # # \\"]
    assert "edges 0-1" in out  # the large templates as edge lists


def test_demo_estimate_shows_the_interval(capsys):
    assert main(["demo", "karate"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("u5 (k=5)"))
    assert "95% interval [" in line and "target eps 0.1" in line
    assert "s.e." not in out and "±" in line


def test_estimate_census_warns_when_not_converged():
    G = la_gpm.datasets.load("karate")
    with pytest.warns(UserWarning, match=r"did not reach eps.*max_colorings, time_budget.*larger eps") as rec:
        df = la_gpm.estimate_census(G, 4, seed=1, max_colorings=2, backend="cpu")
    assert not df.attrs["converged"] and not df["reached"].all()
    msgs = [str(w.message) for w in rec if "estimate_census" in str(w.message)]
    assert len(msgs) == 1    # (a first call in a process also records la_gpm's compile notice, a UserWarning)
    assert f"{int((~df['reached']).sum())} of {len(df)} classes" in msgs[0]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = la_gpm.estimate_census(G, 3, seed=1, backend="cpu")   # converged: no warning
    assert df.attrs["converged"]


def test_tree_census_frame():
    G = la_gpm.datasets.load("karate")
    res = la_gpm.tree_census(G, 4, eps=0.2, seed=1, backend="cpu")
    assert isinstance(res, dict) and list(res) == ["tree4-0", "tree4-1"]      # the dict API stays
    assert "tree4-0" in repr(res) and "estimate" in repr(res) and "Estimate(" not in repr(res)
    df = la_gpm.tree_census(G, 4, eps=0.2, seed=1, backend="cpu", as_frame=True)
    assert list(df.columns[:6]) == ["name", "k", "edges", "estimate", "low", "high"]
    assert list(df["name"]) == list(res) and df["estimate"].tolist() == [e.value for e in res.values()]
    star = df[df["edges"].apply(lambda e: sorted(e) == [(0, 1), (0, 2), (0, 3)])].iloc[0]
    assert star["low"] <= 1764 <= star["high"]
    assert res.to_frame().equals(df)


def test_plot_title_names_the_graph(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    G = la_gpm.datasets.load("karate")
    df = la_gpm.census(G, 4)
    assert "karate" in la_gpm.plot_census(df, graph=G).get_title()
    assert "karate" in la_gpm.plot_census(df, graph="karate").get_title()
    assert la_gpm.plot_census(df, title="mine").get_title() == "mine"
    import matplotlib.pyplot as plt
    plt.close("all")
    png = tmp_path / "c.png"
    assert main(["census", "karate", "-k", "3", "--plot", str(png), "-q"]) == 0
    assert png.stat().st_size > 1000


def test_patterns_the_command_line_can_give(capsys):
    """An edge list written 0-1,1-2,2-0 is a pattern; an unknown name is answered with what the command line
    can take (not 'a networkx graph', which it cannot pass)."""
    assert main(["count", "karate", "0-1,1-2,2-0", "--backend", "cpu", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["count"] == 45
    assert main(["count", "karate", "0-1, 0-2, 0-3", "--backend", "cpu", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["count"] == 1764
    assert main(["count", "karate", "no-such-pattern"]) == 2
    err = capsys.readouterr().err
    assert "0-1,1-2,2-0" in err and "la-gpm patterns" in err and "networkx" not in err
