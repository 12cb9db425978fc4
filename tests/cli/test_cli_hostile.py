"""Issue 12 at the command line: hostile names never reach the terminal or markdown raw,
inputs are never overwritten, every failure is one line with exit 2, names with ``$``
render, BOM files and linked folders are read."""

from __future__ import annotations

import codecs
import re
import json
import os
import warnings
from pathlib import Path

import pandas as pd
import pytest


from conftest import REPO, run_cli

SAMPLE = REPO / "sample_logs" / "table" / "checkpoints.csv"
LM_EVAL = REPO / "sample_logs" / "lm_eval" / "dummy-seed1"
ESC = "\x1b]0;owned\x07\x1b[2J+12.0 points, p = 0.001\r"


run = run_cli


def hostile_runs(tmp_path: Path) -> tuple[Path, Path]:
    ids = [f"q{i}" for i in range(40)]
    a = [1] * 30 + [0] * 10
    b = [1] * 20 + [0] * 20
    pa, pb = tmp_path / "a.csv", tmp_path / "b.csv"
    names = dict(task=f"task{ESC}<img src=x onerror=alert(1)>|", metric="m$x$|\n# head")
    pd.DataFrame({"id": ids, "score": a, "model": f"base{ESC}", **names}).to_csv(pa, index=False)
    pd.DataFrame({"id": ids, "score": b, "model": "cand\x1b[32m", **names}).to_csv(pb, index=False)
    return pa, pb


@pytest.mark.parametrize("mode", [[], ["--markdown"], ["--wide"]])
def test_no_control_character_reaches_the_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   mode: list[str]) -> None:
    pa, pb = hostile_runs(tmp_path)
    for cmd in (["compare", pa, pb], ["summarize", pa, pb]):
        code, out, err = run(capsys, *cmd, *mode)
        assert code == 0, err
        for text in (out, err):
            assert "\x1b" not in text and "\r" not in text and "\x07" not in text
        assert "\\x1b" in out  # shown, escaped


def test_markdown_cells_cannot_break_rows_or_inject_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pa, pb = hostile_runs(tmp_path)
    code, out, _ = run(capsys, "compare", pa, pb, "--markdown")
    assert code == 0 and not re.search(r"(?<!\\)<img", out) and "\n# head" not in out
    rows = [line for line in out.splitlines() if line.startswith("|")]
    widths = {line.count("|") - line.count("\\|") for line in rows}
    assert len(widths) == 1  # every row has the same number of cells


def test_error_messages_are_cleaned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "x\x1b[2Jy.csv"
    bad.write_text("nothing,here\n1,2\n")
    code, _, err = run(capsys, "summarize", bad)
    assert code == 2 and "\x1b" not in err and "\\x1b" in err and err.count("\n") == 1


def test_writes_never_overwrite_an_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "t.csv"
    table.write_bytes(SAMPLE.read_bytes())
    link = tmp_path / "r.html"
    os.link(table, link)  # a hard link to an input, named like a report
    before = table.read_bytes()
    code, _, err = run(capsys, "report", table, "-o", link)
    assert code == 2 and "refusing to overwrite an input" in err and table.read_bytes() == before
    victim = tmp_path / "victim.html"
    victim.write_text("keep")
    (tmp_path / "s.html").symlink_to(victim)
    code, _, err = run(capsys, "report", table, "-o", tmp_path / "s.html")
    assert code == 2 and "symbolic link" in err and victim.read_text() == "keep"


def test_lm_eval_stderr_refuses_its_samples_file_and_a_planted_link(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    for f in LM_EVAL.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    results = next(folder.glob("results_*.json"))
    samples = next(folder.glob("samples_*clustered*"))
    before = samples.read_bytes()
    code, _, err = run(capsys, "lm-eval-stderr", results, "-o", samples)
    assert code == 2 and "refusing to overwrite an input" in err and samples.read_bytes() == before
    target = tmp_path / "target.json"
    target.write_text("keep")
    out = results.with_name(results.stem + ".evaladdon.json")
    out.symlink_to(target)
    code, _, err = run(capsys, "lm-eval-stderr", results)
    assert code == 2 and "symbolic link" in err and target.read_text() == "keep"
    out.unlink()
    code, _, err = run(capsys, "lm-eval-stderr", results)
    assert code == 0 and json.loads(out.read_text())


@pytest.mark.parametrize("content", [
    '{"results": {"t": 5}, "configs": [1, 2]}',
    '{"results": [], "config": "x"}',
    '{"results": {"t": {"acc,none": 1}}, "group_subtasks": 7, "configs": {"t": {"repeats": Infinity}}}',
    "[" * 5000 + "]" * 5000,
])
def test_wrong_shaped_json_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              content: str) -> None:
    p = tmp_path / "results_2026-01-01T00-00-00.json"
    p.write_text(content)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning leaking out of the CLI fails the test
        code, out, err = run(capsys, "summarize", p)
    assert code == 2 and err.count("\n") == 1 and err.startswith("evaladdon: error:") and "Traceback" not in err


def test_names_with_dollars_render_in_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ids = [f"q{i}" for i in range(30)]
    p = tmp_path / "d.csv"
    rows = [{"model": m, "task": "cost $5 to $10", "id": i, "score": (k + j) % 2}
            for j, m in enumerate(("$a$", "$b$")) for k, i in enumerate(ids)]
    pd.DataFrame(rows).to_csv(p, index=False)
    out = tmp_path / "r.html"
    code, _, err = run(capsys, "report", p, "-o", out)
    assert code == 0, err
    assert "$a$" in out.read_text()


def test_report_and_judge_list_rows_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "t.csv"
    p.write_text("model,id,score\nm,a,1\nm,b,0\nm,c,oops\nm,d,1\nm,e,0\n")
    out = tmp_path / "r.html"
    code, _, _ = run(capsys, "report", p, "-o", out)
    assert code == 0 and "1 row(s) left out (1 non-numeric value)" in out.read_text()
    labels = tmp_path / "labels.csv"
    labels.write_text("id,human\na,1\nb,0\nd,1\ne,0\n")
    code, _, err = run(capsys, "judge", "--labels", labels, p)
    assert code == 0 and "1 row(s) left out" in err


def test_bom_files_are_sniffed_and_linked_folders_followed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from evaladdon.adapters import read_inspect_log, sniff

    src = REPO / "sample_logs" / "inspect" / "baseline.eval"
    header_json = tmp_path / "log.json"
    header_json.write_bytes(codecs.BOM_UTF8 + b'{"version": 2, "status": "success", "eval": {}}')
    assert sniff(header_json)[0] is read_inspect_log
    real = tmp_path / "real"
    real.mkdir()
    (real / "b.eval").write_bytes(src.read_bytes())
    top = tmp_path / "top"
    top.mkdir()
    (top / "linked").symlink_to(real, target_is_directory=True)
    (top / "loop").symlink_to(top, target_is_directory=True)
    code, out, err = run(capsys, "summarize", top, "--json")
    doc = json.loads(out)
    assert code == 0 and len(doc["results"]) == 1  # the linked folder was read, once
    assert any("already read" in n for n in doc["notes"] + [s["reason"] for s in doc["skipped"]])
