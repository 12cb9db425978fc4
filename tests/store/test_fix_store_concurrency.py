"""Issue 26.1: parallel ingests into one store keep every log, and re-ingest repairs a store
whose manifest names data files that are gone."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import sys
import zlib
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

Cli = Callable[..., tuple[int, str, str]]


def tiny_logs(folder: Path, tag: str, n: int = 3) -> list[Path]:
    """``n`` long tables of 20 items, one model each (``tag-j``)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for j in range(n):
        rng = np.random.default_rng([zlib.crc32(tag.encode()), j])
        path = folder / f"log{j}.csv"
        pd.DataFrame({"model": f"{tag}-{j}", "task": "t", "id": [f"q{i}" for i in range(20)],
                      "score": rng.integers(0, 2, 20)}).to_csv(path, index=False)
        out.append(path)
    return out


def manifest_of(store: Path) -> dict[str, dict]:
    return json.loads((store / "manifest.json").read_text())["files"]


def _ingest_in_child(barrier: Any, folder: str, store: str, err_file: str) -> None:
    """A forked process: wait for the others, then ``evaladdon ingest FOLDER --store STORE``."""
    from evaladdon.cli.main import main

    sys.stderr = io.StringIO()
    barrier.wait(timeout=60)
    code = main(["ingest", folder, "--store", store, "--workers", "1", "--quiet"])
    Path(err_file).write_text(sys.stderr.getvalue())
    sys.stderr.flush()
    os._exit(code)


def test_eight_parallel_ingests_keep_every_log_once(tmp_path: Path, cli: Cli) -> None:
    """Eight processes ingest at the same moment (forked from this one, which has imported
    everything already, so the test takes about a second, not eight interpreter starts)."""
    import evaladdon.adapters  # noqa: F401  (imported once, before the fork)
    import evaladdon.cli.ingest_cmd  # noqa: F401
    import evaladdon.routes.ingest  # noqa: F401

    groups = [tiny_logs(tmp_path / f"g{g}", f"m{g}") for g in range(8)]
    store = tmp_path / "store"
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(8)
    procs = [ctx.Process(target=_ingest_in_child, args=(barrier, str(tmp_path / f"g{g}"), str(store),
                                                        str(tmp_path / f"err{g}")))
             for g in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=300)
    errs = [(tmp_path / f"err{g}").read_text() for g in range(8)]
    assert [p.exitcode for p in procs] == [0] * 8, errs
    assert all("3 log(s) stored" in err for err in errs)
    entries = manifest_of(store)
    assert sorted(entries) == sorted(str(f.resolve()) for g in groups for f in g)
    assert all((store / "data" / e["file"]).is_file() for e in entries.values())
    assert sorted(f.name for f in (store / "data").iterdir()) == sorted(e["file"] for e in entries.values())
    code, out, err = cli("summarize", "--store", store, "--json")
    assert code == 0, err
    assert sorted(r["run"] for r in json.loads(out)["results"]) == sorted(f"m{g}-{j}" for g in range(8) for j in range(3))
    code, out, _ = cli("runs", "--store", store, "--json")
    assert code == 0 and len(json.loads(out)) == 24


def test_reingest_repairs_entries_whose_data_is_gone(tmp_path: Path, cli: Cli) -> None:
    tiny_logs(tmp_path / "logs", "a")
    store = tmp_path / "store"
    assert cli("ingest", tmp_path / "logs", "--store", store, "--workers", "1")[0] == 0
    lost = next(iter(manifest_of(store).values()))["file"]
    (store / "data" / lost).unlink()  # what two parallel ingests used to leave
    code, _, err = cli("summarize", "--store", store)
    assert code == 2 and "lacks data file" in err
    code, _, err = cli("ingest", tmp_path / "logs", "--store", store, "--workers", "1")
    assert code == 0 and err.strip().endswith("0 log(s) stored, 0 replaced, 2 unchanged, 0 refused, 1 repaired"), err
    assert (store / "data" / lost).is_file()
    code, out, _ = cli("summarize", "--store", store, "--json")
    assert code == 0 and len(json.loads(out)["results"]) == 3


def test_entries_without_data_of_logs_not_named_are_dropped_with_a_warning(tmp_path: Path, cli: Cli) -> None:
    a = tiny_logs(tmp_path / "a", "a", 1)[0]
    tiny_logs(tmp_path / "b", "b", 1)
    store = tmp_path / "store"
    assert cli("ingest", a, "--store", store)[0] == 0
    (store / "data" / manifest_of(store)[str(a.resolve())]["file"]).unlink()
    code, _, err = cli("ingest", tmp_path / "b", "--store", store)
    assert code == 0
    assert f"warning: {a.resolve()}: dropped from the store: its data file" in err
    assert list(manifest_of(store)) == [str((tmp_path / "b" / "log0.csv").resolve())]
    code, out, _ = cli("summarize", "--store", store, "--json")
    assert code == 0 and [r["run"] for r in json.loads(out)["results"]] == ["b-0"]


def test_a_busy_store_is_one_line_after_the_wait(tmp_path: Path, cli: Cli) -> None:
    from evaladdon.store.lock import writer_lock

    logs = tiny_logs(tmp_path / "logs", "a", 1)
    store = tmp_path / "store"
    assert cli("ingest", logs[0], "--store", store)[0] == 0
    before = (store / "manifest.json").read_bytes()
    tiny_logs(tmp_path / "more", "b", 1)
    with writer_lock(store):  # another writer (a lock is per open file, so this process counts as one)
        code, _, err = cli("ingest", tmp_path / "more", "--store", store, "--wait", "0.2")
    assert code == 2
    assert err.count("\n") == 2 and "another ingest is writing this store; waiting for it" in err
    assert err.splitlines()[-1] == (f"evaladdon: error: {store}: the store is busy: another ingest is writing it "
                                    "(waited 0.2 s; --wait SECONDS waits longer)")
    assert (store / "manifest.json").read_bytes() == before
    assert cli("ingest", tmp_path / "more", "--store", store, "--wait", "nan")[0] == 2
    code, _, err = cli("ingest", tmp_path / "more", "--store", store, "--wait", "0.2", "--quiet")
    assert code == 0 and "1 log(s) stored" in err


def test_a_file_system_without_locks_is_one_line(tmp_path: Path, cli: Cli, monkeypatch: Any) -> None:
    import errno
    import fcntl

    def no_locks(fd: int, op: int) -> None:
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", no_locks)
    store = tmp_path / "store"
    code, _, err = cli("ingest", tiny_logs(tmp_path / "logs", "a", 1)[0], "--store", store)
    assert code == 2 and err == f"evaladdon: error: {store / '.lock'}: cannot lock the store: No locks available\n"
