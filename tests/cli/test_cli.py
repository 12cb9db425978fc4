"""The command line: outputs, JSON keys, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


from conftest import REPO, run_cli

SAMPLE = REPO / "sample_logs" / "table" / "checkpoints.csv"


def test_ci_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "ci", "3", "10", "--method", "clopper-pearson", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["low"] == pytest.approx(0.066740, abs=1e-6) and d["method"] == "clopper-pearson"


def test_summarize_json_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "summarize", str(SAMPLE), "--cluster", "passage_id", "--json")
    assert code == 0
    rows = json.loads(out)["results"]
    assert len(rows) == 2
    for key in ("run", "task", "model", "metric", "mean", "se", "ci_low", "ci_high", "method", "n_items",
                "n_epochs", "n_clusters", "se_naive", "se_item", "se_cluster", "deff", "icc"):
        assert key in rows[0]
    assert rows[0]["n_items"] == 300 and rows[0]["n_clusters"] == 60 and rows[0]["n_epochs"] == 3
    assert rows[0]["se"] == rows[0]["se_cluster"] > rows[0]["se_item"] > rows[0]["se_naive"]


def test_summarize_text_fits_100_columns(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "summarize", str(SAMPLE), "--cluster", "passage_id")
    assert code == 0 and "ckpt-1000" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_summarize_reports_dropped_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "t.csv"
    p.write_text("id,score\na,1\nb,0\nc,oops\nd,\ne,1\n")
    code, out, _ = run_cli(capsys, "summarize", str(p), "--json")
    row = json.loads(out)["results"][0]
    assert code == 0 and row["n_items"] == 3 and row["n_dropped"] == 2
    assert row["dropped"] == {"non-numeric value": 1, "missing value": 1}
    code, out, err = run_cli(capsys, "summarize", str(p))
    assert "2 row(s) left out" in err and "left out" not in out  # warnings on stderr, never in the table


@pytest.mark.parametrize(
    "args,message",
    [
        (["ci", "11", "10"], "successes must be between 0 and n=10"),
        (["ci", "3", "10", "--level", "2"], "confidence level"),
        (["summarize", "missing.csv"], "missing.csv: no such file"),
        (["summarize", str(SAMPLE), "--metric", "nope"], "no rows with metric 'nope' (available: score)"),
        (["summarize", str(SAMPLE), "--metric", "scor"], "did you mean 'score'?"),
        (["summarize", str(SAMPLE), "--cluster", "nope"], "no column 'nope'"),
        (["summarize", str(SAMPLE), "--cluster", "pasage_id"], "did you mean 'passage_id'?"),
        (["ci", "3"], "the following arguments are required"),
        (["bogus"], "invalid choice"),
    ],
)
def test_errors_are_one_line_exit_2(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    try:
        code, _, err = run_cli(capsys, *args)
    except SystemExit as exc:  # argparse usage errors
        code = int(exc.code or 0)
        err = capsys.readouterr().err
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("evaladdon: error:")


def test_console_script_and_truncated_file(tmp_path: Path) -> None:
    p = tmp_path / "cut.jsonl"
    p.write_text('{"id": "a", "score": 1}\n{"id": "b", "sc')
    proc = subprocess.run([sys.executable, "-m", "evaladdon.cli.main", "summarize", str(p)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "cut.jsonl: line 2" in proc.stderr
    assert "Traceback" not in proc.stderr
