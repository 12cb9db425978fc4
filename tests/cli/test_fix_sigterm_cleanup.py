"""Issue 26 (low): SIGTERM unwinds a command like Ctrl-C, so its spill folder goes."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from children import child as _child, wait_for as _wait_for



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


