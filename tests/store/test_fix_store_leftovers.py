"""Issue 26 (low): what a killed or failed ingest leaves behind, and manifests that point
outside the store (SIGTERM: tests/cli/test_fix_sigterm_cleanup.py)."""

from __future__ import annotations

import errno
import json
import os
import signal
from pathlib import Path
from typing import Callable

import pandas as pd
import pytest

from children import child as _child, wait_for as _wait_for

Cli = Callable[..., tuple[int, str, str]]


def table(path: Path, model: str) -> Path:
    pd.DataFrame({"model": model, "task": "t", "id": [f"q{i}" for i in range(10)],
                  "score": [i % 2 for i in range(10)]}).to_csv(path, index=False)
    return path


def snapshot(store: Path) -> dict[str, bytes]:
    """Every file of the store (the lock file aside) and its bytes."""
    return {str(f.relative_to(store)): f.read_bytes() for f in sorted(store.rglob("*")) if f.is_file()
            and f.name != ".lock"}



INGEST_THEN_WAIT = """
import sys, time
from pathlib import Path
import pyarrow.parquet as pq
from evaladdon.cli.main import main
real = pq.write_table
def write(table, where, **kw):  # the data file half written (its temporary file there): wait to be killed
    real(table, where, **kw)
    Path(sys.argv[1]).write_text("writing")
    time.sleep(120)
pq.write_table = write
sys.exit(main(["ingest", sys.argv[2], "--store", sys.argv[3], "--workers", "1"]))
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
def test_what_a_killed_ingest_left_goes_with_the_next_ingest(tmp_path: Path, cli: Cli) -> None:
    store = tmp_path / "store"
    assert cli("ingest", table(tmp_path / "a.csv", "a"), "--store", store)[0] == 0
    before = snapshot(store)
    ready = tmp_path / "ready"
    proc = _child(INGEST_THEN_WAIT, tmp_path, str(ready), str(table(tmp_path / "b.csv", "b")), str(store))
    _wait_for(ready, proc)
    proc.kill()
    proc.communicate(timeout=60)
    left = set(snapshot(store)) - set(before)
    assert len(left) == 1 and next(iter(left)).endswith(".tmp")  # what kill -9 leaves
    (store / ".manifest.json.x1y2.tmp").write_text("{")  # and in the store's root
    (store / "data" / "0123456789abcdef0123456789abcdef.parquet").write_bytes(b"PAR1")  # a file no manifest names
    code, _, err = cli("ingest", tmp_path / "b.csv", "--store", store, "--wait", "5")
    assert code == 0 and "1 log(s) stored" in err
    after = snapshot(store)
    assert not any(name.endswith(".tmp") for name in after)
    assert sorted(after) == sorted([*before, *(f"data/{e['file']}" for s, e in
                                               json.loads(after["manifest.json"])["files"].items() if "b.csv" in s)])


def _no_space(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("full", ["manifest", "data"])
def test_a_full_disk_leaves_the_store_as_it_was(tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch,
                                                full: str) -> None:
    import pyarrow.parquet as pq

    from evaladdon.store import Manifest

    store = tmp_path / "store"
    assert cli("ingest", table(tmp_path / "a.csv", "a"), "--store", store)[0] == 0
    before = snapshot(store)
    logs = tmp_path / "more"
    logs.mkdir()
    table(logs / "b.csv", "b"), table(logs / "c.csv", "c")
    with monkeypatch.context() as m:
        if full == "manifest":
            m.setattr(Manifest, "save", lambda self: _no_space())
        else:
            m.setattr(pq, "write_table", _no_space)
        code, _, err = cli("ingest", logs / "b.csv", logs / "c.csv", "--store", store, "--workers", "1")
    assert code == 2 and "No space left on device" in err
    assert snapshot(store) == before
    code, _, err = cli("ingest", logs, "--store", store)
    assert code == 0 and "2 log(s) stored" in err
    code, out, _ = cli("summarize", "--store", store, "--json")
    assert code == 0 and sorted(r["run"] for r in json.loads(out)["results"]) == ["a", "b", "c"]


@pytest.mark.parametrize("name", ["../../outside.parquet", "/etc/passwd", "..", "sub/x.parquet", "link.parquet"])
def test_a_manifest_naming_files_outside_the_store_is_refused(tmp_path: Path, cli: Cli, name: str) -> None:
    store = tmp_path / "store"
    assert cli("ingest", table(tmp_path / "a.csv", "a"), "--store", store)[0] == 0
    manifest = json.loads((store / "manifest.json").read_text())
    entry = next(iter(manifest["files"].values()))
    (tmp_path / "outside.parquet").write_bytes((store / "data" / entry["file"]).read_bytes())
    (store / "data" / "link.parquet").symlink_to(tmp_path / "outside.parquet")
    entry["file"] = name
    (store / "manifest.json").write_text(json.dumps(manifest))
    for argv in (("summarize", "--store", store), ("runs", "--store", store),
                 ("ingest", table(tmp_path / "b.csv", "b"), "--store", store)):
        code, out, err = cli(*argv)
        assert code == 2 and out == ""
        assert err == (f"evaladdon: error: {store / 'manifest.json'}: the store's manifest names a data file outside "
                       f"the store ({name!r} for {tmp_path / 'a.csv'})\n")
    assert (tmp_path / "outside.parquet").exists()
