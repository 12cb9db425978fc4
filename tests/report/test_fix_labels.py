"""Issues 25.11 and 26.8: run labels are cut so they still name the right run (the shared prefix
goes first, the separators never), task/metric columns are shortened before run names, DeepEval
labels show only the hyperparameters that differ, and labels are bounded in every rendering (two
runs with 20 KB names made ``report`` take minutes and a gigabyte)."""

from __future__ import annotations

import csv
import json
import re
import time
from pathlib import Path

import pytest

from evaladdon.report.text import cut_labels
from evaladdon.table.names import LABEL_MAX, labels_of

PREFIX = "anthropic/claude-sonnet-4-20250514:popularity:"


def _runs(folder: Path, names: list[str], metric: str = "match") -> Path:
    folder.mkdir(exist_ok=True)
    for j, name in enumerate(names):
        with (folder / f"r{j}.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["model", "task", "metric", "item", "value"])
            w.writerows([name, "popularity", metric, i, int((i * 7 + j * 3) % 5 < 3)] for i in range(30))
    return folder


def test_cut_labels_keeps_the_distinguishing_end() -> None:
    a, b = PREFIX + "HjeS8B", PREFIX + "Xq91aa"
    got = cut_labels([a, b], [16, 16])
    assert all(len(x) <= 16 for x in got)
    assert got[0].endswith("HjeS8B") and got[1].endswith("Xq91aa") and got[0].startswith("…")


@pytest.mark.parametrize("columns", ["80", "60", "40"])
def test_pair_title_never_cuts_the_separator(tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch,
                                             columns: str) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    folder = _runs(tmp_path / "runs", [PREFIX + "HjeS8B", PREFIX + "Xq91aa"])
    code, out, _ = cli("compare", folder / "r0.csv", folder / "r1.csv")
    assert code == 0
    title = out.splitlines()[0]
    assert len(title) <= max(int(columns), 2 * 8 + 14), title
    m = re.fullmatch(r"B = (.+)  vs  A = (.+)", title)
    assert m is not None, title
    assert m.group(1).endswith("Xq91aa") and m.group(2).endswith("HjeS8B"), title


def test_many_runs_column_cut_from_shared_prefix(tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    folder = _runs(tmp_path / "runs", [PREFIX + "HjeS8B", PREFIX + "Xq91aa", PREFIX + "Zz77bb"],
                   metric="match_with_a_long_metric_name")
    code, out, _ = cli("compare", folder, "--baseline", "r0")
    assert code == 0
    rows = [x for x in out.splitlines() if x.startswith("…")]
    assert [r.split()[0][-6:] for r in rows] == ["Xq91aa", "Zz77bb"], out
    assert "anthrop…" not in out.split("\n", 1)[1]  # never a middle cut that drops the run's id


def test_summarize_real_logs_labels_at_60_columns(real_logs: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    code, out, _ = cli("compare", real_logs / "inspect_ai_logsets" / "set2", "--baseline", "openai/gpt-5")
    assert code == 0
    assert out.startswith("A = openai/gpt-5 (baseline)")
    runs = [x.split()[0] for x in out.splitlines()[3:5]]
    assert runs == ["google/gemini-2.5-pro", "anthropic/claude-sonnet-4-20250514"] or all(
        r.endswith(("pro", "0514")) for r in runs), out


def test_deepeval_labels_show_differing_hyperparameters() -> None:
    rows = [("r1", "model=gpt-4o, prompt=abc123, temperature=0.7", "t", "a.json"),
            ("r2", "model=gpt-4o, prompt=abc123, temperature=0.2", "t", "b.json")]
    assert labels_of(rows) == {"r1": "temperature=0.7", "r2": "temperature=0.2"}
    same = [("r1", "model=gpt-4o", "t", "a.json"), ("r2", "model=gpt-4o", "t", "b.json")]
    assert set(labels_of(same).values()) == {"a", "b"}  # identical hyperparameters: the file stems tell them apart


def test_huge_names_bounded_everywhere(tmp_path: Path, cli) -> None:
    names = [("model-a-" * 2500), ("model-b-" * 2500)]  # 20 KB each
    folder = _runs(tmp_path / "runs", names)
    labels = labels_of([("x", names[0], "t", "a"), ("y", names[1], "t", "b")])
    assert all(len(v) <= LABEL_MAX for v in labels.values()) and len(set(labels.values())) == 2
    started = time.perf_counter()
    page = tmp_path / "r.html"
    code, _, err = cli("report", folder, "-o", page)
    assert code == 0, err
    assert time.perf_counter() - started < 60  # was 167 s and 1 GB at 20 KB names
    assert page.stat().st_size < 400_000
    for mode in ((), ("--markdown",), ("--json",)):
        code, out, err = cli("compare", folder / "r0.csv", folder / "r1.csv", *mode)
        assert code == 0
        if mode != ("--json",):  # JSON keeps the run ids and models whole (data); its labels are bounded
            assert max(len(x) for x in (out + err).splitlines()) < 2000
        else:
            r = json.loads(out)["results"][0]
            assert len(r["label_a"]) <= LABEL_MAX and len(r["label_b"]) <= LABEL_MAX


def test_cut_labels_keeps_a_leading_mark() -> None:
    got = cut_labels(["[reported] " + PREFIX + "HjeS8B", "[reported] " + PREFIX + "Xq91aa"], [24, 24])
    assert all(x.startswith("[reported] …") and len(x) <= 24 for x in got), got
    assert got[0].endswith("HjeS8B") and got[1].endswith("Xq91aa")
