"""The reader registry (adapters/registry.py): formats asked in order, each a Reader with
``handles(path, head)`` and ``read(path, options)``; nothing heavy imported to sniff."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from evaladdon.adapters import REGISTRY, Head, ReadOptions, ReadTuning, format_of, read_runs, sniff
from evaladdon.errors import InputError

from conftest import REPO

SAMPLES = REPO / "sample_logs"


def test_the_registry_imports_neither_pandas_nor_pyarrow() -> None:
    code = ("import sys\nfrom pathlib import Path\nfrom evaladdon.adapters.registry import sniff\n"
            f"print([sniff(p)[1] for p in sorted(Path({str(SAMPLES)!r}).rglob('*'))][:3])\n"
            "print('pandas' in sys.modules, 'pyarrow' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "False False", proc.stdout


def test_sniff_is_the_first_format_that_handles_the_path(tmp_path: Path) -> None:
    paths = sorted(SAMPLES.rglob("*")) + [tmp_path]
    (tmp_path / "notes.txt").write_text("plain words")
    (tmp_path / "odd.json").write_text('{"a": 1}')
    (tmp_path / "x.unknown").write_text("?")
    paths += sorted(tmp_path.iterdir())
    kinds = set()
    for p in paths:
        head = Head(p)
        first = next(f for f in REGISTRY if f.handles(p, head))
        assert format_of(p) is first
        assert sniff(p) == (first.fn, first.describe(Head(p))), p
        kinds.add(sniff(p)[1])
    assert {"inspect log", "lm-eval samples", "lm-eval results", "table", "a directory", "not a log",
            "not a log or a table (unrecognised JSON)", "unsupported file type '.unknown'",
            "pairwise preferences: use evaladdon rank"} <= kinds


def test_a_reader_reads_what_its_function_reads(tmp_path: Path) -> None:
    table = SAMPLES / "table" / "checkpoints.csv"
    fn, _ = sniff(table)
    got = format_of(table).read(table, ReadOptions())
    pd.testing.assert_frame_equal(got, fn(table, None), check_exact=True)
    log = SAMPLES / "inspect" / "baseline.eval"
    part = format_of(log).read(log, ReadOptions())  # combined: a part of a larger table
    whole = format_of(log).read(log, ReadOptions(tuning=ReadTuning(combine_inspect=False)))
    assert type(part).__name__ == "Part" and isinstance(whole, pd.DataFrame) and part.n == len(whole)
    odd = tmp_path / "odd.json"
    odd.write_text('{"a": 1}')
    with pytest.raises(InputError, match="unrecognised JSON"):  # a format that recognises but does not read
        format_of(odd).read(odd, ReadOptions())


def test_tuning_changes_no_table() -> None:
    paths = [SAMPLES / "inspect", SAMPLES / "lm_eval", SAMPLES / "table"]
    want = read_runs(paths)
    got = read_runs(paths, tuning=ReadTuning(combine_inspect=False, combine_lm_eval=False, quick=False,
                                             fast_records=False, batch_size=7, pending_rows=1))
    pd.testing.assert_frame_equal(got.table, want.table, check_exact=True)
    assert got.notes == want.notes
