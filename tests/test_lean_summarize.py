"""The lean ``summarize`` of Inspect logs (no pandas, a few numbers per sample) prints exactly
what the table path prints: JSON, text and markdown, errors and notes, on every Inspect log at
hand and on crafted ones (duplicates, errors, limits, unscored, non-finite and dict-valued
scores, epochs > 1, journal and incomplete ``.eval`` logs, several files, ``NAME=PATH``)."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from evaladdon.adapters import sniff
from evaladdon.adapters.common.guard import read_member
from evaladdon.adapters.inspect_log import read_inspect_log
from evaladdon.adapters.common.scores import NeedsStringKernels, coerce_scores, coerce_values
from evaladdon.analysis.options import RoutePolicy
from evaladdon.cli.main import main
from evaladdon.table.usable import count_reasons

from conftest import REPO
from test_inspect_batches import _base, _edge_samples, _write

SAMPLE = REPO / "sample_logs" / "inspect"


def _run(argv: list[str], use_lean: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, str, str, dict[str, str]]:
    """Exit code, stdout, stderr and which route ran (``{"path": "lean"}``, or ``"table"`` and why)
    of ``argv``: with every route, or without the Inspect columns route (the table's answer)."""
    outcomes: list[Any] = []
    policy = RoutePolicy(observe=outcomes.append) if use_lean else RoutePolicy(exclude=frozenset({"inspect_columns"}))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc: Any = main(argv, routes=policy)
        except SystemExit as exc:
            rc = exc.code
    took: dict[str, str] = {}
    if outcomes and outcomes[0].route == "inspect_columns":
        took = {"path": "lean"}
    elif outcomes:
        took = {"path": "table", "why": "; ".join(why for _, why in outcomes[0].declined)}
    return rc, out.getvalue(), err.getvalue(), took


def _same(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[bool, str]:
    """Both paths print the same bytes and exit the same; whether the lean path ran, and stdout."""
    got = _run(argv, True, monkeypatch)
    want = _run(argv, False, monkeypatch)
    assert got[:3] == want[:3], (argv, got[3], got[:3], want[:3])
    return got[3].get("path") == "lean", got[1]


def _inspect_logs(root: Path | None) -> list[Path]:
    files = sorted(SAMPLE.glob("*.eval"))
    if root is not None:
        files += sorted(f for f in root.glob("inspect_*/**/*") if f.is_file())
    return [f for f in files if sniff(f)[1] == "inspect log"]


def _fields(f: Path) -> tuple[list[str], list[str]]:
    try:
        df = read_inspect_log(f)
    except Exception:  # noqa: BLE001 - a log the reader refuses: both paths report it
        return [], []
    return [c[5:] for c in df.columns if c.startswith("meta.")], list(dict.fromkeys(df["metric"]))


def test_every_inspect_log_prints_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    from conftest import REAL_LOGS

    logs = _inspect_logs(REAL_LOGS if REAL_LOGS.is_dir() else None)
    n_lean = 0
    for i, f in enumerate(logs):
        n_lean += _same(["summarize", "--json", str(f)], monkeypatch)[0]
        _same(["summarize", str(f)], monkeypatch)
        fields, metrics = _fields(f)
        if i % 3 == 0 or f.parent == SAMPLE:  # options on a third of the logs (time)
            if fields:
                _same(["summarize", "--json", str(f), "--cluster", fields[0]], monkeypatch)
            if metrics:
                _same(["summarize", str(f), "--metric", metrics[-1], "--markdown"], monkeypatch)
    assert n_lean >= (30 if REAL_LOGS.is_dir() else 3)


def test_several_files_names_directories_and_wrong_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    evals = [str(f) for f in sorted(SAMPLE.glob("*.eval"))]
    copy_dir = tmp_path / "copy"
    copy_dir.mkdir()
    (copy_dir / "baseline.eval").write_bytes((SAMPLE / "baseline.eval").read_bytes())  # the same run id twice
    (copy_dir / "notes.txt").write_text("not a log")
    (copy_dir / "logs.json").write_text("{}")
    cases = [
        ["summarize", "--json", *evals],
        ["summarize", evals[0], evals[1], "--cluster", "length"],
        ["summarize", "--json", str(SAMPLE)],
        ["summarize", "--json", f"a={evals[0]}", f"b={evals[1]}"],
        ["summarize", f"a={evals[0]}", str(copy_dir)],
        ["summarize", "--json", evals[0], str(copy_dir)],
        ["summarize", "--json", f"both={copy_dir}", evals[1]],
        ["summarize", "--markdown", *evals, "--metric", "match"],
        ["summarize", "--json", *evals, "--level", "0.9", "--method", "t"],
    ]
    for argv in cases:
        took, _ = _same(argv, monkeypatch)
        assert took, argv
    for argv in (["summarize", *evals, "--metric", "matc"],  # did you mean
                 ["summarize", *evals, "--metric", "f1_macro"],  # a metric family
                 ["summarize", *evals, "--cluster", "categry"],
                 ["summarize", f"a={evals[0]}", f"a={evals[1]}"],
                 ["summarize", str(tmp_path / "absent.eval")]):
        assert not _same(argv, monkeypatch)[0], argv


def _edge_json(tmp_path: Path) -> Path:
    header, samples = _edge_samples()
    for s in samples:  # a cluster per id (constant within an item)
        s["metadata"] = {**(s.get("metadata") or {}), "grp": f"g{sum(map(ord, str(s['id']))) % 5}"}
    more = []
    for i, s in enumerate(samples[:40]):  # a second epoch, with values the converter has to read
        s = copy.deepcopy(s)
        s["epoch"] = 2
        if s.get("scores"):
            name = next(iter(s["scores"]))
            s["scores"][name]["value"] = ["nan", " 0.5 ", "inf", "YES", "1e999", None, "", "x", True, 7][i % 10]
        more.append(s)
    return _write(tmp_path / "edge.json", {**header, "status": "error"}, samples + more)


def test_crafted_logs_print_the_same_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    edge = _edge_json(tmp_path)
    for argv in (["summarize", "--json", str(edge)], ["summarize", str(edge)],
                 ["summarize", "--json", str(edge), "--cluster", "grp"],
                 ["summarize", "--json", str(edge), "--cluster", "nest.a.b"],  # missing for some: an error
                 ["summarize", "--json", str(edge), "--metric", "other"]):
        _same(argv, monkeypatch)
    assert _same(["summarize", "--json", str(edge)], monkeypatch)[0]
    text = _same(["summarize", "--json", str(edge), "--cluster", "grp"], monkeypatch)[1]
    assert json.loads(text)["results"][0]["n_clusters"] == 5
    # non-ASCII score strings: the table path's arrow kernels decide (the lean path hands over)
    header, samples = _base()
    odd = copy.deepcopy(samples)
    odd[0]["scores"][next(iter(odd[0]["scores"]))]["value"] = "\u00a01"
    path = _write(tmp_path / "odd.json", header, odd)
    assert not _same(["summarize", "--json", str(path)], monkeypatch)[0]


def _rewrite(src: Path, dest: Path, fn: Any) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = fn(info.filename, read_member(zin, info, str(src)))
            if data is not None:
                zout.writestr(info.filename, data)
    return dest


def test_journal_incomplete_and_large_eval_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = SAMPLE / "baseline.eval"
    with zipfile.ZipFile(src) as zf:
        summaries = json.loads(read_member(zf, zf.getinfo("summaries.json"), "x"))

    def journal(name: str, data: bytes) -> bytes | None:  # an unfinished run: journal summaries, some unsummarised
        if name == "summaries.json":
            return None
        if name == "header.json":
            return None
        if name.startswith("_journal/summaries/"):
            return None
        return data

    def short(name: str, data: bytes) -> bytes | None:
        if name == "summaries.json":
            return json.dumps(summaries[:150]).encode()
        if name.startswith("samples/"):
            keep = {f"samples/{s['id']}_epoch_{s['epoch']}.json" for s in summaries[:150]}
            return data if name in keep else None
        return data

    j = _rewrite(src, tmp_path / "journal.eval", journal)
    with zipfile.ZipFile(j, "a") as zf:
        zf.writestr("_journal/summaries/1.json", json.dumps(summaries[:60]))
        zf.writestr("_journal/summaries/2.json", json.dumps(summaries[60:100]))
    s = _rewrite(src, tmp_path / "short.eval", short)
    for f in (j, s):
        for argv in (["summarize", "--json", str(f)], ["summarize", str(f)]):
            assert _same(argv, monkeypatch)[0], argv
    assert "[incomplete]" in _same(["summarize", str(s)], monkeypatch)[1]
    assert _same(["summarize", "--json", str(src)], monkeypatch)[0]
    # a summaries.json past ReadTuning.stream_bytes is streamed (ijson), into the same lean part
    import dataclasses

    from evaladdon.adapters import ReadTuning, inspect_native
    from evaladdon.adapters.inspect_rows import Collector, build_part
    from evaladdon.adapters.inspect_lean import COLUMNS

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
    code = ("import sys\nfrom evaladdon.cli.main import main\n"
            "main(['summarize', '--json', sys.argv[1], '--cluster', 'length'])\n"
            "main(['summarize', sys.argv[1], sys.argv[2]])\n"
            "print('pandas' in sys.modules, 'pyarrow' in sys.modules, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, str(SAMPLE / "baseline.eval"), str(SAMPLE / "judge.eval")],
                          capture_output=True, text=True, cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "False False", proc.stderr


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
    from evaladdon.adapters.inspect_rows import label_bytes

    texts = ["a", "a\x00", "", None, "\u00e9", "e\u0301", "x" * 64, "x" * 65, "x" * 65 + "y", "x" * 66, "\ud800"]
    got = label_bytes(texts).tolist()
    assert len(set(got)) == len(texts)  # distinct texts, distinct elements
    assert got[3] == b"" and all(g for i, g in enumerate(got) if i != 3)  # None alone is empty
    assert max(map(len, got)) == 65 and len(got[7]) == 22  # past 64 bytes a text is a digest, not its bytes
    assert label_bytes(["k", "k"]).tolist()[0] == label_bytes(["k"]).tolist()[0]


def _coded_samples(ids: range, epochs: int, tag: str) -> list[dict[str, Any]]:
    """Samples whose codes overflow int8: >127 score names (and dict keys), >127 distinct limit
    reasons, >127 clusters; errors, unscored samples, non-numeric values, re-run records of
    the same (id, epoch) (the last wins, at the place of the first), several epochs."""
    out: list[dict[str, Any]] = []
    for e in range(1, epochs + 1):
        for i in ids:
            s: dict[str, Any] = {"id": f"{tag}{i}", "epoch": e, "input": f"q{i}", "target": str(i % 2),
                                 "metadata": {"grp": f"c{i % 300}", "n": i}}
            s["scores"] = {"acc": {"value": "C" if (i * 7 + e) % 10 < 6 else "I"},
                           f"m{i % 140}": {"value": {"k": (i % 5) / 4, f"x{i % 3}": i % 2}}}
            if i % 9 == 4:
                s["scores"]["acc"]["value"] = ["nan", "oops", "1e999", None, " 0.5 "][i % 5]
            if i % 23 == 5:
                s["error"] = {"message": f"boom {i}"}
            if i % 19 == 7:
                s["limit"], s["scores"] = {"type": f"lim{i}"}, None
            if i % 31 == 3:
                s["scores"] = None
            out.append(s)
    for i in list(ids)[::37]:  # re-run records: the last one wins
        again = copy.deepcopy(out[i - ids.start])
        again["scores"] = {"acc": {"value": "I"}, "late": {"value": 0.25}}
        out.append(again)
    return out


def test_codes_past_int8_print_the_same_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    header, _ = _base()
    log = _write(tmp_path / "coded.json", header, _coded_samples(range(600), 2, "s"))
    for argv in (["summarize", "--json", str(log)], ["summarize", "--json", str(log), "--cluster", "grp"],
                 ["summarize", "--markdown", str(log), "--metric", "acc", "--cluster", "grp"],
                 ["summarize", "--json", str(log), "--metric", "m139/k"]):
        took, out = _same(argv, monkeypatch)
        assert took, argv
    results = json.loads(_same(["summarize", "--json", str(log), "--cluster", "grp"], monkeypatch)[1])["results"]
    assert len(results) > 280 and max(r["n_clusters"] or 0 for r in results) > 255
    assert any(r["dropped"].get("unscored sample") for r in results)
    # one run over two logs of disjoint ids (NAME=DIR): the logs' codes merged per group
    both = tmp_path / "both"
    both.mkdir()
    _write(both / "a.json", header, _coded_samples(range(0, 300), 1, "s"))
    _write(both / "b.json", header, _coded_samples(range(300, 700), 1, "s")[::-1])
    for argv in (["summarize", "--json", f"run={both}", "--cluster", "grp"], ["summarize", "--json", f"run={both}"]):
        assert _same(argv, monkeypatch)[0], argv


def test_grown_columns_widen_and_keep_values(monkeypatch: pytest.MonkeyPatch) -> None:
    from evaladdon.adapters import inspect_lean
    from evaladdon.adapters.inspect_lean import Columns, Grown, first_positions, narrow

    monkeypatch.setattr(inspect_lean, "CHUNK", 1000)  # batches across chunks, widened in a partly filled one
    grown = Grown()
    want: dict[str, list[Any]] = {name: [] for name in Columns._fields}
    rng = np.random.default_rng(7)
    for size, top in ((3000, 100), (5000, 30_000), (2000, 70_000), (4000, 5)):
        ints = rng.integers(-1, top, size)
        ids = [f"id{x}" * (1 + x % 3) for x in rng.integers(0, 10**6, size)]
        from evaladdon.adapters.inspect_rows import label_bytes

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
