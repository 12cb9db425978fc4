"""Unit tests of the Inspect route in memory (:mod:`evaladdon.routes.inspect_columns` and the
lean columns it reads): no pandas or pyarrow imported, the value converter and reason counts
equal the table route's, the zip directory scan equals zipfile's, label bytes, grown columns,
a streamed summaries.json.  Its output against the table route's: tests/routes/test_route_equality.py."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from evaladdon.adapters.common.guard import read_member
from evaladdon.adapters.common.scores import NeedsStringKernels, coerce_scores, coerce_values
from evaladdon.table.usable import count_reasons

from conftest import REPO
from route_cases import short_eval

SAMPLE = REPO / "sample_logs" / "inspect"


def test_a_streamed_summaries_json_gives_the_same_lean_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A summaries.json past ReadTuning.stream_bytes is streamed (ijson), into the same lean part."""
    import dataclasses

    from evaladdon.adapters import ReadTuning
    from evaladdon.adapters.inspect import native as inspect_native
    from evaladdon.adapters.inspect.columns import COLUMNS
    from evaladdon.adapters.inspect.rows import Collector, build_part

    src = SAMPLE / "baseline.eval"
    s = short_eval(tmp_path / "short.eval")
    streamed: list[str] = []
    real = inspect_native._stream_summaries
    monkeypatch.setattr(inspect_native, "_stream_summaries", lambda *a: streamed.append(a[2]) or real(*a))
    for f in (src, s):
        parts = []
        for cluster in (None, "passage.id"):
            for tuning in (ReadTuning(), ReadTuning(stream_bytes=1000)):
                log = inspect_native.read_eval_zip(f, Collector(cluster, lean=COLUMNS), tuning=tuning)
                parts.append(build_part(log, f, cluster))
        assert streamed == [str(f)] * 2  # streamed under the low bound only
        streamed.clear()
        for plain, stream in (parts[:2], parts[2:]):
            for fld in dataclasses.fields(plain):
                np.testing.assert_equal(getattr(stream, fld.name), getattr(plain, fld.name), err_msg=fld.name)


def test_lean_summarize_imports_neither_pandas_nor_pyarrow() -> None:
    """(nor msgspec: only the lm-eval samples reader uses it, imported on its first regular file)"""
    code = ("import sys\nfrom evaladdon.cli.main import main\n"
            "main(['summarize', '--json', sys.argv[1], '--cluster', 'length'])\n"
            "main(['summarize', sys.argv[1], sys.argv[2]])\n"
            "print('pandas' in sys.modules, 'pyarrow' in sys.modules, 'msgspec' in sys.modules, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, str(SAMPLE / "baseline.eval"), str(SAMPLE / "judge.eval")],
                          capture_output=True, text=True, cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "False False False", proc.stderr


def test_coerce_values_equals_coerce_scores() -> None:
    rng = np.random.default_rng(5)
    pool: list[Any] = [0, 1, 2.5, -0.0, float("nan"), float("inf"), -float("inf"), True, False, None, "", "  ",
                       "0.25", " 1 ", "-3e2", ".5", "1.", "+7", "1e999", "nan", "-Inf", "infinity", "yes", "No",
                       "TRUE", "false", "C", "x", "1_000", "0x10", "\t2\n", "<list value>", 10**30, "00012"]
    for _ in range(300):
        values = [pool[i] for i in rng.integers(0, len(pool), int(rng.integers(1, 12)))]
        got_v, got_e = coerce_values(values)
        want_v, want_e = coerce_scores(pd.Series(values, dtype=object))
        np.testing.assert_array_equal(got_v, want_v)
        assert list(got_e) == list(want_e.to_numpy()), values
    floats = [0.5, 1, float("nan"), 3]
    got_v, got_e = coerce_values(floats)
    want_v, want_e = coerce_scores(pd.Series(np.array(floats, dtype=float)))
    np.testing.assert_array_equal(got_v, want_v)
    assert list(got_e) == list(want_e)
    with pytest.raises(NeedsStringKernels):
        coerce_values(["\u0661"])


def test_count_reasons_equals_value_counts() -> None:
    rng = np.random.default_rng(3)
    words = np.array(["a", "b", "c", "sample error", "missing value"], dtype=object)
    for _ in range(300):
        reasons = words[rng.integers(0, len(words), int(rng.integers(1, 20)))]
        want = {str(k): int(v) for k, v in pd.Series(reasons, dtype=object).value_counts().items()}
        got = count_reasons(reasons)
        assert list(got.items()) == list(want.items())


def _same_directory(path: Path) -> None:
    from evaladdon.adapters.common import zipdir

    with path.open("rb") as fh, zipfile.ZipFile(path) as zf:
        infos, names = zipdir.scan(fh)
        ref = {i.filename: i for i in zf.infolist()}
        samples = {n for n in ref if n.startswith("samples/") and n.endswith(".json")}
        assert {b.decode() for b in names.tolist()} == samples and len(names) >= len(samples)
        assert set(infos) == set(ref) - samples
        for name, info in infos.items():
            r = ref[name]
            assert (info.compress_type, info.CRC, info.compress_size, info.file_size, info.header_offset) == (
                r.compress_type, r.CRC, r.compress_size, r.file_size, r.header_offset), (path, name)
            assert read_member(zipdir.Archive(fh), info, str(path)) == read_member(zf, r, str(path)), (path, name)
        some = sorted(samples)[:3]
        kept, _ = zipdir.scan(fh, {n.encode() for n in some})
        assert set(kept) == set(infos) | set(some)


def test_zip_directory_scan_equals_zipfile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from conftest import REAL_LOGS
    from evaladdon.adapters.common import zipdir

    monkeypatch.setattr(zipdir, "_BLOCK", 97)  # entries across the blocks the directory is read in
    for f in sorted(REAL_LOGS.glob("**/*.eval")) + sorted(SAMPLE.glob("*.eval")):
        _same_directory(f)
    big = tmp_path / "z64.eval"  # more than 65,535 members: a zip64 end record; a comment; prepended bytes
    with zipfile.ZipFile(big, "w") as zf:
        for i in range(66_000):
            zf.writestr(f"samples/{i}_epoch_1.json", b"{}")
        zf.writestr("header.json", json.dumps({"x": list(range(5000))}), zipfile.ZIP_DEFLATED)
        zf.writestr("summaries.json", b"[]", zipfile.ZIP_STORED)
        zf.comment = b"a comment"
    _same_directory(big)
    prefixed = tmp_path / "prefixed.eval"
    prefixed.write_bytes(b"#!/bin/sh\n" + big.read_bytes())
    _same_directory(prefixed)


def test_label_bytes_keep_texts_apart() -> None:
    from evaladdon.adapters.inspect.parts import label_bytes

    texts = ["a", "a\x00", "", None, "\u00e9", "e\u0301", "x" * 64, "x" * 65, "x" * 65 + "y", "x" * 66, "\ud800"]
    got = label_bytes(texts).tolist()
    assert len(set(got)) == len(texts)  # distinct texts, distinct elements
    assert got[3] == b"" and all(g for i, g in enumerate(got) if i != 3)  # None alone is empty
    assert max(map(len, got)) == 65 and len(got[7]) == 22  # past 64 bytes a text is a digest, not its bytes
    assert label_bytes(["k", "k"]).tolist()[0] == label_bytes(["k"]).tolist()[0]


def test_grown_columns_widen_and_keep_values(monkeypatch: pytest.MonkeyPatch) -> None:
    from evaladdon.adapters.inspect import columns as inspect_lean
    from evaladdon.adapters.inspect.columns import Columns, Grown, first_positions, narrow

    monkeypatch.setattr(inspect_lean, "CHUNK", 1000)  # batches across chunks, widened in a partly filled one
    grown = Grown()
    want: dict[str, list[Any]] = {name: [] for name in Columns._fields}
    rng = np.random.default_rng(7)
    for size, top in ((3000, 100), (5000, 30_000), (2000, 70_000), (4000, 5)):
        ints = rng.integers(-1, top, size)
        ids = [f"id{x}" * (1 + x % 3) for x in rng.integers(0, 10**6, size)]
        from evaladdon.adapters.inspect.parts import label_bytes

        cols = {name: narrow(ints) for name in Columns._fields}
        cols.update(items=label_bytes(ids), scored=ints > 0, values=ints * 0.5)
        grown.add(Columns(**cols))
        for name, arr in cols.items():
            want[name].extend(arr.tolist())
    parts = grown.batches()
    assert len(parts) == 14 and [x for b in parts for x in b.items.tolist()] == want["items"]
    del parts
    got = grown.columns(True)
    for name in Columns._fields:
        assert getattr(got, name).tolist() == want[name], name
    assert got.metrics.dtype == np.int32 and got.items.dtype.itemsize >= 17
    codes = rng.integers(-1, 50, 200_000)
    mask = rng.random(200_000) < 0.3
    for m in (None, mask):
        first = first_positions(codes, 60, m)
        ok = (codes >= 0) & (True if m is None else m)
        for c in range(60):
            hit = np.flatnonzero(ok & (codes == c))
            assert first[c] == (hit[0] if len(hit) else len(codes))
