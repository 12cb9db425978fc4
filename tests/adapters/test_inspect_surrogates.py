"""An ``.eval`` whose summaries hold a lone surrogate escape (``"\\ud800"``: JSON text orjson
refuses and the stdlib parser reads into a ``str`` no UTF-8 table can hold) is refused in one
line naming the file, on every route (the table's, quick and records, and the lean ones), and
skipped with that reason when found in a folder; a surrogate PAIR (an emoji written as two
escapes) is one character and reads as before."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any, Callable

import pytest

from conftest import REPO
from evaladdon.adapters import ReadTuning, read_runs
from evaladdon.adapters.common.guard import read_member
from evaladdon.errors import InputError

SAMPLE = REPO / "sample_logs" / "inspect"
Cli = Callable[..., tuple[int, str, str]]


def _with_first_id(dest: Path, new_id: str) -> Path:
    """baseline.eval with its first summary's id replaced (``json.dumps`` escapes it: ASCII)."""
    src = SAMPLE / "baseline.eval"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = read_member(zin, info, str(src))
            if info.filename == "summaries.json":
                rows: list[dict[str, Any]] = json.loads(data)
                rows[0]["id"] = new_id
                data = json.dumps(rows).encode()
            zout.writestr(info.filename, data)
    return dest


@pytest.mark.parametrize("quick", [True, False])
def test_lone_surrogate_refused_naming_the_file(tmp_path: Path, quick: bool) -> None:
    bad = _with_first_id(tmp_path / "bad.eval", "s\ud800x")
    with pytest.raises(InputError) as err:
        read_runs([bad], tuning=ReadTuning(quick=quick))
    assert err.value.where == str(bad) and "lone surrogate \\ud800" in err.value.message
    folder = tmp_path / "logs"
    folder.mkdir()
    bad.rename(folder / "bad.eval")
    (folder / "good.eval").write_bytes((SAMPLE / "candidate.eval").read_bytes())
    loaded = read_runs([folder], tuning=ReadTuning(quick=quick))  # found in a folder: skipped, the rest read
    assert len(loaded.skipped) == 1 and "lone surrogate" in loaded.skipped[0]["reason"]
    assert loaded.table["source"].nunique() == 1


def test_surrogate_pair_reads_as_one_character(tmp_path: Path) -> None:
    ok = _with_first_id(tmp_path / "pair.eval", "s\U0001F600x")  # dumped as "\ud83d\ude00"
    assert b"\\ud83d\\ude00" in zipfile.ZipFile(ok).read("summaries.json")
    for quick in (True, False):
        table = read_runs([ok], tuning=ReadTuning(quick=quick)).table
        assert "s\U0001F600x" in set(table["item"])


@pytest.mark.parametrize("command", [("summarize",), ("compare", "--json"), ("compare", "--flips"), ("report",)])
def test_every_command_says_it_in_one_line(cli: Cli, tmp_path: Path, command: tuple[str, ...]) -> None:
    bad = _with_first_id(tmp_path / "bad.eval", "s\udfffx")
    args: list[Any] = [command[0], bad]
    if command[0] != "summarize":
        args.append(SAMPLE / "candidate.eval")
    args += list(command[1:])
    if command[0] == "report":
        args += ["-o", tmp_path / "r.html"]
    code, out, err = cli(*args)
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 2 and out == "" and len(lines) == 1, (code, out, err)
    assert str(bad) in lines[0] and "lone surrogate \\udfff" in lines[0] and "Traceback" not in err
