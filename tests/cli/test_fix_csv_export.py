"""Issue 26 (low): ``export -o x.csv`` wrote a carriage return inside a cell unquoted (its own
export could not be read back) and cells starting with ``= + - @`` raw (formula injection when the
file is opened in a spreadsheet).  Now such cells get a leading ``'`` (OWASP), plain numbers are
left alone, a carriage return is quoted, and the export reads back as it was."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest

from evaladdon.adapters.read import load

from conftest import run_cli

HOSTILE = ["=1+1", "+SUM(A1)", "-2+cmd|' /C calc'!A0", "@IMPORT", "\tTAB", "'=quoted", "'plain", "a\rb", "x\r\ny",
           "-7", "+0.5", "1e-3", "ok"]


def hostile_table(tmp_path: Path) -> Path:
    n = len(HOSTILE)
    df = pd.DataFrame({"item": [f"q{i}" for i in range(n)], "value": [(-1) ** i * 0.5 for i in range(n)],
                       "task": HOSTILE, "model": ["=HYPERLINK(\"http://x\")"] * n, "note": HOSTILE[::-1]})
    path = tmp_path / "in.jsonl"  # (JSON keeps every one of these cells exactly)
    df.to_json(path, orient="records", lines=True)
    return path


def cells(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


def test_export_csv_is_safe_in_a_spreadsheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.csv"
    code, _, err = run_cli(capsys, "export", hostile_table(tmp_path), "-o", out, "--quiet")
    assert code == 0, err
    rows = cells(out)
    header, body = rows[0], rows[1:]
    assert len(body) == len(HOSTILE)  # every carriage return and line break stayed inside its cell
    numeric = {header.index(c) for c in ("value", "epoch")}
    for row in body:
        for i, cell in enumerate(row):
            if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                # only numbers as they stand: the value column and text cells such as raw "-0.5"
                assert i in numeric or header[i] in ("raw", "meta.note", "task"), (header[i], cell)
                float(cell)
    task = [r[header.index("task")] for r in body]
    assert task[:7] == ["'=1+1", "'+SUM(A1)", "'-2+cmd|' /C calc'!A0", "'@IMPORT", "'\tTAB", "''=quoted", "''plain"]
    assert task[7:] == ["a\rb", "x\r\ny", "-7", "+0.5", "1e-3", "ok"]
    assert {r[header.index("model")] for r in body} == {"'=HYPERLINK(\"http://x\")"}
    assert b'"a\rb"' in out.read_bytes()  # quoted


def test_export_csv_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = hostile_table(tmp_path)
    out, again = tmp_path / "out.csv", tmp_path / "again.csv"
    assert run_cli(capsys, "export", src, "-o", out, "--quiet")[0] == 0
    assert run_cli(capsys, "export", out, "-o", again, "--quiet")[0] == 0
    assert out.read_bytes() == again.read_bytes()
    a, b = load([src]), load([out])
    for col in ("run", "task", "model", "metric", "item", "raw", "meta.note"):
        assert a[col].astype(str).tolist() == b[col].astype(str).tolist(), col
    assert a["value"].tolist() == b["value"].tolist()
    code, first, err = run_cli(capsys, "summarize", src, "--json")
    assert code == 0, err
    code, second, err = run_cli(capsys, "summarize", out, "--json")
    assert code == 0, err
    assert json.loads(first)["results"] == json.loads(second)["results"]


def test_a_table_without_hostile_cells_is_written_as_before(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "t.csv"
    src.write_text("item,value,task\nq1,-1,t\nq2,0.5,t\n")
    out = tmp_path / "out.csv"
    assert run_cli(capsys, "export", src, "-o", out, "--quiet")[0] == 0
    assert out.read_bytes() == (b"run,source,harness,task,model,metric,item,epoch,value,raw,cluster,item_hash,error\n"
                                + f"t,{src},table,t,t,value,q1,1,-1.0,-1,,,\n".encode()
                                + f"t,{src},table,t,t,value,q2,1,0.5,0.5,,,\n".encode())


def test_export_notes_reach_the_terminal_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "ok.csv").write_text("item,value\nq1,1\n")
    (folder / "bad\x1b[2J.json").write_text("{}")  # skipped, with a note naming it
    code, _, err = run_cli(capsys, "export", folder, "-o", tmp_path / "out.csv")
    assert code == 0, err
    assert "\x1b" not in err and "bad\\x1b[2J.json" in err
