"""Issue 26 (low): with several inputs the duplicate-key error named no file; an empty run id was
accepted silently (its rows became a run called '').  Both are now one line naming the file(s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli

ROWS = "a,1,x\nb,0,x\n"


def test_the_same_file_given_twice_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "logs").mkdir()
    table = tmp_path / "logs" / "t.csv"
    table.write_text("item,value,run\n" + ROWS)
    code, _, err = run_cli(capsys, "summarize", tmp_path / "logs", table)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"evaladdon: error: {table}: (run, task, metric, item, epoch) "
                                                   "must be unique"), err


def test_rows_from_two_files_sharing_a_key_name_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("item,value,run\n" + ROWS)
    b.write_text("item,value,run\n" + ROWS)
    code, _, err = run_cli(capsys, "summarize", f"x={a}", b)  # b's own run is called x too
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"(rows from {str(a)!r}, {str(b)!r})" in lines[0], err
    assert f"source={str(b)!r}, run='x'" in lines[0]


@pytest.mark.parametrize(("header", "rows", "column"), [
    ("item,value,run", "a,1,\nb,0,x\n", "run"),
    ("item,value,run", "a,1,x\nb,0,   \n", "run"),
    ("item,value,model", "a,1,m\nb,0,\n", "model"),  # no run column: the model names the run
])
def test_an_empty_run_id_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], header: str, rows: str,
                                    column: str) -> None:
    table = tmp_path / "t.csv"
    table.write_text(f"{header}\n{rows}")
    code, _, err = run_cli(capsys, "summarize", table)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(table) in lines[0] and f"empty run id in column {column!r}" in lines[0], err


def test_an_empty_model_beside_a_run_column_is_fine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "t.csv"
    table.write_text("item,value,run,model\na,1,r,\nb,0,r,m\n")
    code, _, err = run_cli(capsys, "summarize", table)
    assert code == 0, err
