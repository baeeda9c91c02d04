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
