"""Child processes for the tests that kill or interrupt a command (SIGTERM, SIGKILL mid-write):
one way to start a child on this checkout and wait until it has got somewhere."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import REPO


def child(script: str, tmp: Path, *args: str) -> subprocess.Popen[str]:
    """``python -c script args`` on this checkout, its temporary files in ``tmp``."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(tmp)}
    return subprocess.Popen([sys.executable, "-c", script, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for(path: Path, proc: subprocess.Popen[str], seconds: float = 120) -> None:
    """Until ``path`` exists (the child's sign that it got there); fails if the child ends first."""
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the child never got there"
        time.sleep(0.05)
