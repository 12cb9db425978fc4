"""Issue 26 (low): SIGTERM unwinds a command like Ctrl-C, so its spill folder goes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO


def _child(script: str, tmp: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(tmp)}
    return subprocess.Popen([sys.executable, "-c", script, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for(path: Path, proc: subprocess.Popen[str], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the child never got there"
        time.sleep(0.05)


SPILL_THEN_WAIT = """
import sys, time
from pathlib import Path
from evaladdon.analysis.options import RouteLimits, RoutePolicy
from evaladdon.routes import inspect_spill as spill
from evaladdon.cli.main import main
real_add, seen = spill.Router.add, []
def add(self, r):  # halfway through routing the records to the spill folder: wait to be stopped
    seen.append(1)
    if len(seen) == 30:
        Path(sys.argv[1]).write_text("spilling")
        time.sleep(120)
    real_add(self, r)
spill.Router.add = add
limits = RouteLimits(spill_bytes=-1, max_records=2**62, parts=4, batch_records=0)
sys.exit(main(["summarize", "--json", sys.argv[2]], routes=RoutePolicy(limits=limits)))
"""


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or sys.platform == "win32", reason="POSIX signals")
def test_sigterm_removes_the_spill_folder(tmp_path: Path) -> None:
    from route_cases import edge_json

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    ready = tmp_path / "ready"
    proc = _child(SPILL_THEN_WAIT, tmp, str(ready), str(edge_json(tmp_path)))
    _wait_for(ready, proc)
    assert [p.name[:15] for p in tmp.iterdir()] == ["evaladdon-spill"]
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert out == "" and "Traceback" not in err
    assert list(tmp.iterdir()) == []


