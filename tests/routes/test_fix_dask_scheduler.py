"""Issue 26.9 (second half): a malformed ``--scheduler`` is named in the error, not the input."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from conftest import REPO

LOG = REPO / "sample_logs" / "inspect" / "baseline.eval"


@pytest.mark.parametrize("address", ["not a url", "tcp://", "foo://bar:1", "tcp://127.0.0.1:notaport"])
@pytest.mark.parametrize("command", ["summarize", "ingest"])
def test_a_malformed_scheduler_address_is_named(tmp_path: Path, cli: Callable[..., tuple[int, str, str]],
                                                address: str, command: str) -> None:
    pytest.importorskip("distributed")
    store = ("--store", tmp_path / "store") if command == "ingest" else ()
    code, out, err = cli(command, LOG, *store, "--engine", "dask", "--scheduler", address)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"evaladdon: error: {address}: not a Dask scheduler address: ")
    assert str(LOG) not in err
