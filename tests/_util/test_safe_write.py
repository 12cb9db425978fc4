"""Files the commands write: the usual permissions, and never anything but a regular file replaced.

``atomic_path`` writes through ``tempfile.mkstemp``, which makes files ``0o600``; a report or an
exported table is meant to be read by others, so a new file gets ``0o666`` less the umask (what
``open(path, "w")`` gives) and a replaced file keeps its own mode. A FIFO or a device at the
destination is refused in one line (exit 2), never replaced by a regular file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from evaladdon.cli.main import main

from conftest import REPO

LOGS = REPO / "sample_logs"


@pytest.fixture
def umask_022() -> object:
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


@pytest.mark.parametrize("argv", [
    ["export", str(LOGS / "inspect"), "-o", "{out}.csv"],
    ["export", str(LOGS / "lm_eval"), "-o", "{out}.jsonl"],
    ["report", str(LOGS / "inspect" / "baseline.eval"), str(LOGS / "inspect" / "candidate.eval"), "-o", "{out}.html"],
], ids=["export csv", "export jsonl", "report"])
def test_new_files_get_the_usual_permissions(argv: list[str], tmp_path: Path, umask_022: object,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    if argv[0] == "report":
        pytest.importorskip("matplotlib")
    argv = [a.replace("{out}", str(tmp_path / "out")) for a in argv]
    assert main([*argv, "--quiet"] if argv[0] == "report" else argv) == 0, capsys.readouterr().err
    out = Path(argv[-1])
    assert _mode(out) == 0o644
    os.chmod(out, 0o640)  # written again: the file keeps the mode its owner gave it
    assert main([*argv, "--quiet"] if argv[0] == "report" else argv) == 0
    assert _mode(out) == 0o640


def test_a_stricter_umask_is_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = os.umask(0o077)
    try:
        assert main(["export", str(LOGS / "table"), "-o", str(tmp_path / "t.csv")]) == 0
    finally:
        os.umask(old)
    assert _mode(tmp_path / "t.csv") == 0o600


def test_a_fifo_is_refused_not_replaced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    assert main(["export", str(LOGS / "table"), "-o", str(fifo)]) == 2
    err = capsys.readouterr().err
    assert "not a regular file" in err and err.count("\n") == 1 and str(fifo) in err
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe.csv"]  # no temporary file left either
