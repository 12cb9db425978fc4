"""``compare --flips``: which items flipped, worst first (analysis.flips), their inputs' first
lines (adapters.inspect.inputs), and the outputs (report.flips): counts equal McNemar's discordant
pairs of the comparison itself (the oracle), order, answers, escaping of hostile log text."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evaladdon.adapters.inspect.inputs import first_line, input_lines
from evaladdon.analysis.compare_table import compare_table
from evaladdon.analysis.flips import DROP, GAIN, RIGHT_TO_WRONG, WRONG_TO_RIGHT, find_flips
from evaladdon.table.columns import finalize

from built_logs import inspect_base, write_inspect_json

HOSTILE = "\x1b[31mred | <script>alert(1)</script> [x](http://e.vil) @here\nsecond line"


def _table(a: list[float], b: list[float], epochs: int = 1, errors: dict[int, str] | None = None) -> pd.DataFrame:
    n = len(a)
    rows = []
    for run, vals in (("A", a), ("B", b)):
        for i in range(n):
            for e in range(1, epochs + 1):
                err = (errors or {}).get(i) if run == "B" else None
                rows.append({"run": run, "source": f"{run}.csv", "harness": "table", "task": "t", "model": f"m{run}",
                             "metric": "acc", "item": f"i{i}", "epoch": e, "value": np.nan if err else vals[i],
                             "raw": str(vals[i]), "cluster": f"c{i % 3}", "item_hash": None, "error": err,
                             "prediction": f"{run}-ans{i}"})
    return finalize(pd.DataFrame(rows))


def test_binary_flips_are_mcnemars_discordant_pairs_worst_first() -> None:
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2, 80).astype(float).tolist()
    b = rng.integers(0, 2, 80).astype(float).tolist()
    df = _table(a, b, errors={5: "boom"})
    (fs,) = find_flips(df, [("A", "B")])
    (cmp,) = compare_table(df, [("A", "B")])
    disc = cmp.comparison.discordance
    assert (fs.n_worse, fs.n_better) == (disc.n10, disc.n01)  # the oracle: the comparison's own table
    assert fs.binary and fs.n_shared == cmp.comparison.n == 79  # the errored item is left out, as there
    kinds = [f.kind for f in fs.flips]
    assert kinds == [RIGHT_TO_WRONG] * disc.n10 + [WRONG_TO_RIGHT] * disc.n01
    expected_worse = [f"i{i}" for i in range(80) if i != 5 and a[i] == 1 and b[i] == 0]
    assert [f.item for f in fs.flips[: disc.n10]] == expected_worse  # ties keep item order
    first = fs.flips[0]
    k = int(first.item[1:])
    assert (first.answer_a, first.answer_b, first.cluster) == (f"A-ans{k}", f"B-ans{k}", f"c{k % 3}")
    assert (first.score_a, first.score_b, first.delta) == (1.0, 0.0, -1.0)
    assert all(f.item != "i5" for f in fs.flips)


def test_graded_flips_are_the_largest_drops_first() -> None:
    a = [0.9, 0.5, 0.2, 0.7, 0.4]
    b = [0.1, 0.5, 0.6, 0.6, 0.35]
    (fs,) = find_flips(_table(a, b), [("A", "B")])
    assert not fs.binary
    assert [f.item for f in fs.flips] == ["i0", "i3", "i4", "i2"]
    assert [f.kind for f in fs.flips] == [DROP, DROP, DROP, GAIN]
    np.testing.assert_allclose([f.delta for f in fs.flips], [-0.8, -0.1, -0.05, 0.4])
    assert (fs.n_worse, fs.n_better, fs.n_shared) == (3, 1, 5)


def test_epochs_average_first_and_disagreeing_epochs_are_graded() -> None:
    df = _table([1.0, 0.0], [0.0, 1.0], epochs=2)
    df.loc[(df["run"] == "B") & (df["item"] == "i0") & (df["epoch"] == 2), "value"] = 1.0
    (fs,) = find_flips(df, [("A", "B")])
    assert not fs.binary  # i0 averages to 0.5 in B
    assert [(f.item, f.score_a, f.score_b) for f in fs.flips] == [("i0", 1.0, 0.5), ("i1", 0.0, 1.0)]


def test_first_line_of_inspect_inputs() -> None:
    assert first_line("\n\n  Question one?\nmore") == "Question one?"
    msgs = [{"role": "system", "content": "sys"},
            {"role": "user", "content": [{"type": "image", "image": "x"}, {"type": "text", "text": "Look\nhere"}]}]
    assert first_line(msgs) == "Look"
    assert first_line([{"role": "system", "content": "only system"}]) == "only system"
    assert first_line(None) is None and first_line("   ") is None
    assert first_line("x" * 500).endswith("…") and len(first_line("x" * 500) or "") == 200


def _pair_of_logs(tmp: Path) -> tuple[Path, Path]:
    header, samples = inspect_base()
    samples = [s for s in samples if s["epoch"] == 1][:20]
    out = []
    for k, (model, flip) in enumerate((("model/a", False), ("model/b", True))):
        h = copy.deepcopy(header)
        h["eval"]["eval_id"], h["eval"]["run_id"], h["eval"]["model"] = f"ev{k}", f"run{k}", model
        ss = copy.deepcopy(samples)
        for i, s in enumerate(ss):
            right = (i % 2 == 0) != (flip and (i < 6 or i in (8, 10, 12)))
            s["scores"] = {"match": {"value": "C" if right else "I", "answer": f"{model}:{i}"}}
        ss[0]["input"] = HOSTILE
        out.append(write_inspect_json(tmp / f"log{k}.json", h, ss))
    return out[0], out[1]


def test_input_lines_from_json_and_eval_logs(tmp_path: Path, real_logs: Path) -> None:
    a, _ = _pair_of_logs(tmp_path)
    got = input_lines(str(a), ["q000", "q001", "nope"])
    assert got["q000"] == HOSTILE.split("\n")[0] and got["q001"].startswith("[q001]") and "nope" not in got
    log = next((real_logs / "inspect_ai_logsets" / "set").glob("*.eval"))
    assert input_lines(str(log), ["27"]) == {"27": "Is the following statement something you would say?"}
    assert input_lines(str(tmp_path / "missing.eval"), ["1"]) == {}


def test_compare_flips_outputs_are_escaped(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    a, b = _pair_of_logs(tmp_path)
    code, out, _ = cli("compare", a, b, "--flips", "3")
    assert code == 0
    assert "6 right->wrong, 3 wrong->right of 20 shared items (showing the worst 3)" in " ".join(out.split())
    assert "\x1b" not in out and "\\x1b[31mred" in out  # the terminal never gets the escape
    code, md, _ = cli("compare", a, b, "--flips", "--markdown")
    assert "<details><summary>" in md and "</details>" in md and "<script>" not in md
    summary = md.split("<summary>")[1].split("</summary>")[0]
    assert "right-&gt;wrong" in summary and "\\" not in summary  # HTML escaping inside <summary>, not backslashes
    assert "\\<script\\>" in md and "@&#8203;here" in md
    code, js, _ = cli("compare", a, b, "--flips", "0", "--json")
    records = json.loads(js)["results"]
    flips = [r for r in records if r.get("record") == "flip"]
    (counts,) = [r for r in records if r.get("record") == "flips"]
    assert (counts["n_worse"], counts["n_better"], len(flips)) == (6, 3, 9)
    assert flips[0]["input"] == HOSTILE.split("\n")[0] and flips[0]["answer_a"] == "model/a:0"
    paired = [r for r in records if r.get("record") not in ("flip", "flips")]
    assert (paired[0]["n10"], paired[0]["n01"]) == (6, 3)


def test_export_and_report_flips(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    a, b = _pair_of_logs(tmp_path)
    code, _, err = cli("export", a, b, "--flips", "-o", tmp_path / "flips.csv")
    assert code == 0 and "wrote 9 flips" in err
    got = pd.read_csv(tmp_path / "flips.csv")
    assert got["kind"].tolist() == [RIGHT_TO_WRONG] * 6 + [WRONG_TO_RIGHT] * 3
    assert got["rank"].tolist() == list(range(1, 10))
    code, _, _ = cli("report", a, b, "--flips", "2", "-o", tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text()
    assert "What flipped" in page and "<script>alert" not in page and "&lt;script&gt;" in page
    assert "showing the worst 2" in page


def test_flips_take_the_table_route_and_refuse_metric_families(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from evaladdon.analysis.options import RoutePolicy

    a, b = _pair_of_logs(tmp_path)
    seen = []
    code, _, _ = cli("ingest", a, b, "--store", tmp_path / "st")
    assert code == 0
    code, out, _ = cli("compare", "--store", tmp_path / "st", "--flips",
                       routes=RoutePolicy(observe=seen.append))
    assert code == 0 and seen[-1].route == "table" and "store_arrays" in dict(seen[-1].declined)
    assert "6 right->wrong" in out
    code, _, err = cli("compare", a, b, "--flips", "--metric", "f1_macro")
    assert code == 2 and "--flips" in err and "Traceback" not in err
    code, _, err = cli("compare", a, b, "--flips", "-1")
    assert code == 2 and "--flips -1" in err


@pytest.mark.parametrize("n", [1, 5])
def test_flips_n_limits_rows_not_counts(cli, tmp_path: Path, n: int) -> None:  # type: ignore[no-untyped-def]
    a, b = _pair_of_logs(tmp_path)
    code, js, _ = cli("compare", a, b, "--flips", str(n), "--json")
    flips = [r for r in json.loads(js)["results"] if r.get("record") == "flip"]
    assert len(flips) == n and [f["rank"] for f in flips] == list(range(1, n + 1))


def test_html_inline_keeps_log_text_inert() -> None:
    from evaladdon.report.escape import html_inline

    got = html_inline("<b>x</b> & @someone $1+1$ see https://e.vil www.e.vil \x1b[2J")
    assert "<b>" not in got and "&lt;b&gt;" in got and "&amp;" in got and "\x1b" not in got
    assert "@&#8203;someone" in got and "&#36;" in got and "https&#58;//" in got and "www&#46;" in got
