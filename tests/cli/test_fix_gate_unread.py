"""Issue 26.5: the gate passed on candidates it never read.  A folder entry that could be a log
and was not read -- a FIFO, a device or a socket named like a log, a subfolder or a file that
cannot be opened -- is listed in ``skipped`` with its reason in every output mode, and the gate
treats it as it treats any unreadable log: it cannot pass (exit 2 with one line naming the first,
unless ``--allow-skipped``)."""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

import pytest

from conftest import run_cli


def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    base, cand = tmp_path / "base", tmp_path / "cand"
    base.mkdir()
    cand.mkdir()
    rows = "".join(f"q{i},{i % 2}\n" for i in range(40))
    (base / "base.csv").write_text("item,value\n" + rows)
    (cand / "cand.csv").write_text("item,value\n" + rows)
    return base, cand


def plant(cand: Path) -> list[str]:
    """A FIFO and a socket named like logs, and a FIFO that is not (noted, not blocking)."""
    os.mkfifo(cand / "late.jsonl")
    os.mkfifo(cand / "control.pipe")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(cand / "run.eval"))
    sock.close()
    return [str(cand / "late.jsonl"), str(cand / "run.eval")]


def test_the_gate_does_not_pass_on_unread_candidates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, cand = two_runs(tmp_path)
    unread = plant(cand)
    code, out, err = run_cli(capsys, "compare", base, cand, "--fail-on-regression", "--json")
    assert code == 2, err
    assert [s["path"] for s in json.loads(out)["skipped"]] == sorted(unread)
    assert "gate cannot pass with 2 input(s) not read" in err and "late.jsonl" in err
    assert "a FIFO (named pipe), not a regular file" in out and "a socket, not a regular file" in out
    assert "control.pipe" in out and "ignored" in out  # a FIFO not named like a log: a note only
    code, _, err = run_cli(capsys, "compare", base, cand, "--fail-on-regression", "--allow-skipped")
    assert code == 0, err
    assert stat.S_ISFIFO((cand / "late.jsonl").lstat().st_mode)


@pytest.mark.parametrize("mode", [[], ["--markdown"], ["--quiet"]])
def test_unread_candidates_are_listed_in_every_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    mode: list[str]) -> None:
    base, cand = two_runs(tmp_path)
    plant(cand)
    code, out, err = run_cli(capsys, "compare", base, cand, "--fail-on-regression", *mode)
    assert code == 2
    shown = out if mode == ["--markdown"] else err
    if mode == ["--quiet"]:  # no warnings: the gate's one line counts them and names the first
        assert "2 input(s) not read (first: skipped " + str(cand / "late.jsonl") in err
    else:
        assert "late.jsonl" in shown and "run.eval" in shown
    code, out, err = run_cli(capsys, "summarize", cand, *mode)
    assert code == 0, err
    if mode != ["--quiet"]:
        shown = out if mode == ["--markdown"] else err
        assert "skipped" in shown and "late.jsonl" in shown and "run.eval" in shown


def test_an_unreadable_subfolder_and_file_are_skipped_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    base, cand = two_runs(tmp_path)
    (cand / "locked").mkdir()
    (cand / "locked" / "more.csv").write_text("item,value\nq1,1\n")
    (cand / "secret.eval").write_bytes(b"PK")  # opened by its reader
    (cand / "secret.json").write_text("{}")  # opened to see what it is
    # root reads every folder; deny the two as the operating system would for another user
    real_scandir, real_open = os.scandir, Path.open

    def scandir(path: object = ".") -> object:
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)  # type: ignore[arg-type]

    def opener(self: Path, *args: object, **kwargs: object) -> object:
        if self.stem == "secret":
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(Path, "open", opener)
    code, out, err = run_cli(capsys, "compare", base, cand, "--fail-on-regression", "--json")
    assert code == 2, err
    skipped = {s["path"]: s["reason"] for s in json.loads(out)["skipped"]}
    assert sorted(skipped) == [str(cand / n) for n in ("locked", "secret.eval", "secret.json")]
    assert skipped[str(cand / "locked")] == "cannot open the folder (Permission denied)"
    assert skipped[str(cand / "secret.json")] == "cannot read (Permission denied)"
    assert "Permission denied" in skipped[str(cand / "secret.eval")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a folder without read permission")
def test_a_folder_without_read_permission(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, cand = two_runs(tmp_path)
    locked = cand / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        code, out, err = run_cli(capsys, "compare", base, cand, "--fail-on-regression", "--json")
    finally:
        locked.chmod(0o755)
    assert code == 2, err
    assert [s["path"] for s in json.loads(out)["skipped"]] == [str(locked)]
