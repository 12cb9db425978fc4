"""Issue 26.3: outputs never replace a device node or a FIFO, and a FIFO or a device named as an
input is refused in one line (exit 2) before it is opened (``/dev/zero`` or a pipe nobody writes
to was read forever)."""

from __future__ import annotations

import os
import resource
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from evaladdon._util.safe_write import atomic_write
from evaladdon.errors import EvalAddonError

from conftest import REPO, run_cli

TABLE = REPO / "sample_logs" / "table" / "checkpoints.csv"
PREFERENCES = REPO / "sample_logs" / "preferences"
RESULTS = next((REPO / "sample_logs" / "lm_eval" / "dummy-seed1").glob("results_*.json"))


class FifoGuard:
    """A FIFO, and a watcher that unblocks anyone who opens it for reading (so a reader that
    should have refused it fails the test instead of hanging it) and remembers that it did."""

    def __init__(self, path: Path, seconds: float = 120.0) -> None:
        os.mkfifo(path)
        self.path, self.opened, self._stop = path, False, threading.Event()
        self._thread = threading.Thread(target=self._watch, args=(seconds,), daemon=True)
        self._thread.start()

    def _watch(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while not self._stop.is_set() and time.monotonic() < end:
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)  # succeeds only while a reader waits
            except OSError:
                time.sleep(0.02)
                continue
            self.opened = True
            os.close(fd)  # the reader sees the end of the file (and may come back: watch on)
            time.sleep(0.02)

    def stop(self) -> bool:
        self._stop.set()
        self._thread.join(5)
        return self.opened


def one_line_error(code: int, err: str, name: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evaladdon: error:"), err
    assert name in lines[0] and "not a regular file" in lines[0], err


# ---------------------------------------------------------------- outputs


@pytest.mark.parametrize(("command", "name"), [
    (["rank", PREFERENCES, "--html"], "out"),  # no suffix: nothing but the kind of file stops the write
    (["lm-eval-stderr", RESULTS, "--quiet", "-o"], "out"),
    (["report", TABLE, "-o"], "out.html"),
])
def test_no_output_replaces_a_fifo(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list,  # type: ignore[type-arg]
                                   name: str) -> None:
    target = tmp_path / name
    os.mkfifo(target)
    code, _, err = run_cli(capsys, *command, target)
    one_line_error(code, err, str(target))
    assert stat.S_ISFIFO(target.lstat().st_mode)


def test_a_fifo_made_while_writing_is_not_replaced(tmp_path: Path) -> None:
    dest = tmp_path / "out.html"

    def write(tmp: Path) -> None:
        tmp.write_text("page")
        os.mkfifo(dest)  # another process makes a FIFO (or a root user's device node) meanwhile

    with pytest.raises(EvalAddonError, match="not a regular file"):
        atomic_write(dest, write)
    assert stat.S_ISFIFO(dest.lstat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out.html"]  # the temporary file removed


# ---------------------------------------------------------------- inputs


@pytest.mark.parametrize("name", ["pipe.jsonl", "pipe.json", "pipe.eval", "pipe.csv"])
@pytest.mark.parametrize("command", [["summarize"], ["export", "-o", "x.csv"], ["rank"], ["ingest", "--store", "st"]])
def test_a_fifo_named_as_an_input_is_refused_unopened(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
                                                       command: list[str]) -> None:
    pipe = FifoGuard(tmp_path / name)
    cmd, *rest = command
    rest = [str(tmp_path / r) if r in ("x.csv", "st") else r for r in rest]
    code, _, err = run_cli(capsys, cmd, pipe.path, *rest)
    one_line_error(code, err, str(pipe.path))
    assert not pipe.stop(), "the FIFO was opened"


def test_judge_labels_and_lm_eval_stderr_refuse_a_fifo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = FifoGuard(tmp_path / "labels.csv")
    code, _, err = run_cli(capsys, "judge", TABLE, "--labels", labels.path)
    one_line_error(code, err, "labels.csv")
    results = FifoGuard(tmp_path / "results_2026-01-01T00-00-00.json")
    code, _, err = run_cli(capsys, "lm-eval-stderr", results.path)
    one_line_error(code, err, "results_2026-01-01T00-00-00.json")
    assert not labels.stop() and not results.stop()


def test_a_samples_fifo_beside_results_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / RESULTS.name
    results.write_bytes(RESULTS.read_bytes())
    ts = RESULTS.stem[len("results_"):]
    samples = FifoGuard(tmp_path / f"samples_task_{ts}.jsonl")
    code, _, err = run_cli(capsys, "lm-eval-stderr", results, "--quiet")
    one_line_error(code, err, samples.path.name)
    assert not samples.stop()


def _limit_memory() -> None:  # a reader of /dev/zero must not take the machine's memory with it
    resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
@pytest.mark.parametrize("command", [["summarize"], ["judge", str(TABLE), "--labels"]])
def test_dev_zero_as_an_input_is_refused(tmp_path: Path, command: list[str]) -> None:
    link = tmp_path / "zero.csv"  # named like a table: only its kind gives it away
    link.symlink_to("/dev/zero")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for target in (link, Path("/dev/zero")):
        done = subprocess.run([sys.executable, "-m", "evaladdon.cli.main", *command, str(target)], env=env,
                              capture_output=True, text=True, timeout=60, preexec_fn=_limit_memory)
        one_line_error(done.returncode, done.stderr, str(target))
        assert "character device" in done.stderr
