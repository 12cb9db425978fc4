"""The native Inspect reader: identical to Inspect's own reader, and safe on hostile logs."""

from __future__ import annotations

import contextlib
import io

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Callable

import pandas as pd
import pytest

from evaladdon.adapters import sniff
from evaladdon.adapters.common.guard import MAX_DEPTH, read_member
from evaladdon.adapters.inspect.log import is_inspect_json, read_inspect_log
from evaladdon.adapters.inspect.records import item_hash
from evaladdon.errors import InputError

from conftest import REPO

SAMPLE = REPO / "sample_logs" / "inspect"
BOM = b"\xef\xbb\xbf"


def _inspect_logs(root: Path) -> list[Path]:
    files = sorted(f for f in root.glob("inspect_*/**/*") if f.is_file()) + sorted(SAMPLE.glob("*.eval"))
    return [f for f in files if sniff(f)[0] is not None]


def _read(f: Path, reader: str) -> pd.DataFrame | str:
    try:
        return read_inspect_log(f, cluster=None, reader=reader)
    except InputError as exc:
        return str(exc)


def test_both_readers_give_the_identical_table_on_every_real_log(real_logs: Path) -> None:
    pytest.importorskip("inspect_ai")
    native = 0
    for f in _inspect_logs(real_logs):
        ours, theirs = _read(f, "native"), _read(f, "inspect")
        if isinstance(ours, str) and "the native reader does not read this log" in ours:
            # version 1 or newer than 3: auto falls back to Inspect's reader
            auto = _read(f, "auto")
            assert (auto == theirs) if isinstance(theirs, str) else isinstance(auto, pd.DataFrame), f
            continue
        assert type(ours) is type(theirs), (f, ours if isinstance(ours, str) else theirs)
        if isinstance(ours, str):
            assert ours == theirs
            continue
        pd.testing.assert_frame_equal(ours, theirs)
        assert ours.attrs["notes"] == theirs.attrs["notes"]
        native += 1
    assert native >= 30


def test_cluster_prediction_label_and_hash_on_sample_logs() -> None:
    pytest.importorskip("inspect_ai")
    base = read_inspect_log(SAMPLE / "baseline.eval", cluster="passage.id", reader="native")
    assert base.equals(read_inspect_log(SAMPLE / "baseline.eval", cluster="passage.id", reader="inspect"))
    assert base["cluster"].nunique() == 12
    assert {"prediction", "label"} <= set(base.columns) and "confidence" not in base.columns
    assert base["label"].notna().all() and base["item_hash"].str.len().eq(64).all()
    cand = read_inspect_log(SAMPLE / "candidate.eval", reader="native")
    # the same items in both runs hash the same; different items differ
    h = base.groupby("item")["item_hash"].first()
    assert h.equals(cand.groupby("item")["item_hash"].first())
    assert h.nunique() == len(h)


def test_item_hash_ignores_message_ids_and_summary_truncation() -> None:
    long = "x" * 6000
    full = [{"role": "user", "content": long, "id": "abc"}]
    summary = [{"role": "user", "content": "x" * 5120 + "...\n(content truncated)", "id": "zzz"}]
    assert item_hash(full, "A") == item_hash(summary, "A")
    assert item_hash(full, "A") != item_hash(full, "B")
    assert item_hash(None, "A") is None


def _rewrite(src: Path, dest: Path, fn: Callable[[str, bytes], bytes | None],
             extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = fn(info.filename, read_member(zin, info, str(src)))
            if data is not None:
                zout.writestr(info.filename, data)
        for name, data in (extra or {}).items():
            zout.writestr(name, data)
    return dest


def _both(path: Path, **kw: str) -> pd.DataFrame:
    ours = read_inspect_log(path, reader="native", **kw)
    if pytest.importorskip("inspect_ai"):
        theirs = read_inspect_log(path, reader="inspect", **kw)
        pd.testing.assert_frame_equal(ours, theirs)
    return ours


def test_bom_and_zstd(tmp_path: Path) -> None:
    """Inspect writes zstd members (the sample logs); BOM-prefixed members and files are read."""
    with zipfile.ZipFile(SAMPLE / "baseline.eval") as zf:
        assert {i.compress_type for i in zf.infolist()} == {93}
    plain = _both(SAMPLE / "baseline.eval")
    bommed = _both(_rewrite(SAMPLE / "baseline.eval", tmp_path / "bom.eval",
                            lambda n, d: BOM + d if n.endswith(".json") else d))
    pd.testing.assert_frame_equal(plain.drop(columns="source"), bommed.drop(columns="source"))
    REAL_JSON = REPO.parent / "shared" / "real_logs" / "inspect_ai_fixtures" / "log" / "test_eval_log"
    if not REAL_JSON.is_dir():
        from conftest import NO_REAL_LOGS

        pytest.skip(NO_REAL_LOGS)
    j = REAL_JSON / "log_read_sample.json"
    bj = tmp_path / "bom.json"
    bj.write_bytes(BOM + j.read_bytes())
    assert is_inspect_json(bj.read_bytes()[:4096])  # (the sniffer in adapters/__init__ strips the BOM on the cli branch)
    pd.testing.assert_frame_equal(_both(j).drop(columns="source"), _both(bj).drop(columns="source"))


def test_members_no_summary_lists_are_read_and_cut_short_logs_say_so(tmp_path: Path) -> None:
    """12.12: an .eval without summaries was said to hold no samples while 180 were inside;
    12.2: samples declared but absent are reported as missing."""
    src = SAMPLE / "baseline.eval"
    no_summaries = _rewrite(src, tmp_path / "nosum.eval",
                            lambda n, d: None if n == "summaries.json" or n.startswith("_journal/summaries") else d)
    full = _both(src)
    got = _both(no_summaries)
    assert len(got) == len(full) == 180
    assert any("180 sample(s) missing from the journal summaries were read from their sample files" in n
               for n in got.attrs["notes"])
    key = ["metric", "item", "epoch"]
    pd.testing.assert_frame_equal(got.drop(columns="source").sort_values(key, ignore_index=True),
                                  full.drop(columns="source").sort_values(key, ignore_index=True))

    def cut(name: str, data: bytes) -> bytes | None:
        if name == "summaries.json":
            return json.dumps(json.loads(data)[:150]).encode()
        if name.startswith("samples/") or name.startswith("_journal/summaries"):
            keep = {f"samples/{s['id']}_epoch_{s['epoch']}.json" for s in kept}
            return data if name in keep else None
        return data

    with zipfile.ZipFile(src) as zf:
        kept = json.loads(read_member(zf, zf.getinfo("summaries.json"), "x"))[:150]
    short = _both(_rewrite(src, tmp_path / "short.eval", cut))
    assert len(short) == 150
    assert short.attrs["incomplete"] == {"declared": 180, "read": 150, "missing": 30, "basis": "results.total_samples"}
    assert any("incomplete: the log declares 180 sample(s)" in n and "30 missing" in n for n in short.attrs["notes"])
    # the summary itself is marked incomplete, in JSON and in the table
    from evaladdon.cli.main import main

    buf_out, buf_err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(buf_out), contextlib.redirect_stderr(buf_err):
        assert main(["summarize", str(tmp_path / "short.eval"), "--json"]) == 0
    (rec,) = json.loads(buf_out.getvalue())["results"]
    assert rec["incomplete"]["missing"] == 30 and rec["incomplete"]["declared"] == 180
    assert any("incomplete" in n for n in json.loads(buf_out.getvalue())["notes"])
    buf_out = io.StringIO()
    with contextlib.redirect_stdout(buf_out), contextlib.redirect_stderr(buf_err):
        assert main(["summarize", str(tmp_path / "short.eval")]) == 0
    assert "[incomplete]" in buf_out.getvalue()


def test_duplicate_samples_keep_the_last_and_say_so(tmp_path: Path) -> None:
    src = SAMPLE / "baseline.eval"

    def dup(name: str, data: bytes) -> bytes:
        if name != "summaries.json":
            return data
        rows = json.loads(data)
        again = json.loads(json.dumps(rows[0]))
        again["scores"]["match"]["value"] = "C" if rows[0]["scores"]["match"]["value"] != "C" else "I"
        return json.dumps(rows + [again]).encode()

    path = _rewrite(src, tmp_path / "dup.eval", dup)
    df = read_inspect_log(path, reader="native")
    assert len(df) == 180
    assert any("1 duplicate (id, epoch) sample record(s); kept the last" in n for n in df.attrs["notes"])
    with zipfile.ZipFile(src) as zf:
        first = json.loads(read_member(zf, zf.getinfo("summaries.json"), "x"))[0]
    row = df[(df["item"] == str(first["id"])) & (df["epoch"] == first["epoch"])].iloc[0]
    assert row["raw"] != first["scores"]["match"]["value"]  # the later record won
    if pytest.importorskip("inspect_ai"):  # Inspect's reader keeps the last one too
        pd.testing.assert_frame_equal(df, read_inspect_log(path, reader="inspect"))


def test_deep_nesting_is_refused_before_parsing(tmp_path: Path) -> None:
    depth = 100_000
    deep = b"[" * depth + b"]" * depth
    j = tmp_path / "deep.json"
    head = b'{"version": 2, "status": "success", "eval": {"task": "t", "model": "m", "x": '
    j.write_bytes(head + deep + b'}, "samples": []}')
    for reader in ("native", "inspect", "auto"):
        with pytest.raises(InputError, match=f"nested more than {MAX_DEPTH} levels deep"):
            read_inspect_log(j, reader=reader)
    ok = tmp_path / "ok.json"
    ok.write_bytes(head + b"[" * 20 + b'"]]]]\\"[[["' + b"]" * 20 + b'}, "samples": []}')
    assert read_inspect_log(ok, reader="native").empty  # brackets inside strings do not count
    path = _rewrite(SAMPLE / "baseline.eval", tmp_path / "deep.eval",
                    lambda n, d: d[:-1] + b',"x":' + deep + b"}" if n == "header.json" else d)
    for reader in ("native", "inspect"):
        with pytest.raises(InputError, match="header.json is nested more than"):
            read_inspect_log(path, reader=reader)


def test_decompression_bomb_is_refused(tmp_path: Path) -> None:
    bomb = b"[" + b" " * (80 * 2**20) + b"]"  # 80 MiB of blanks deflate ~1000x
    path = _rewrite(SAMPLE / "baseline.eval", tmp_path / "bomb.eval",
                    lambda n, d: bomb if n == "summaries.json" else d)
    for reader in ("native", "inspect"):
        with pytest.raises(InputError, match=r"zip member 'summaries.json' decompresses more than 200x"):
            read_inspect_log(path, reader=reader)


def _unscored(tmp_path: Path, fmt: str) -> Path:
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(SAMPLE / "baseline.eval"))
    for s in log.samples or []:
        s.scores = {}
    log.results = None
    path = tmp_path / f"unscored.{fmt}"
    write_eval_log(log, str(path))
    return path


def test_no_scores_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """11.7: samples scored {} and no results.scores."""
    pytest.importorskip("inspect_ai")
    from evaladdon.cli.main import main

    for fmt in ("eval", "json"):
        path = _unscored(tmp_path, fmt)
        for reader in ("native", "inspect"):
            with pytest.raises(InputError, match=r"no scores in this log \(180 sample\(s\), none scored\)"):
                read_inspect_log(path, reader=reader)
        assert main(["summarize", str(path)]) == 2
        err = capsys.readouterr().err.strip()
        assert "no scores in this log" in err and "\n" not in err and "Traceback" not in err


def test_native_reader_needs_no_inspect_ai(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['inspect_ai'] = None\n"  # any import of inspect_ai fails
        "from evaladdon.adapters.inspect.log import read_inspect_log\n"
        f"df = read_inspect_log({str(SAMPLE / 'baseline.eval')!r}, cluster='passage.id')\n"
        "print(len(df), 'inspect_ai.log' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["180", "False"]


def test_unknown_reader_and_native_refusal(real_logs: Path) -> None:
    v1 = real_logs / "inspect_ai_fixtures" / "log" / "test_eval_log" / "log_with_nan.txt"
    with pytest.raises(InputError, match="native reader does not read this log"):
        read_inspect_log(v1, reader="native")
    with pytest.raises(InputError, match="unknown Inspect reader"):
        read_inspect_log(v1, reader="fast")


def test_changed_dataset_under_the_same_ids_is_flagged(tmp_path: Path) -> None:
    """item_hash: a target edited under the same sample id shows up as a hash mismatch."""
    from evaladdon.adapters import read_runs
    from evaladdon.analysis.compare_table import align_runs

    def edit(name: str, data: bytes) -> bytes:
        if name != "summaries.json":
            return data
        rows = json.loads(data)
        for r in rows:
            if r["id"] == "q000":
                r["target"] = r["target"] + "0"
        return json.dumps(rows).encode()

    changed = _rewrite(SAMPLE / "candidate.eval", tmp_path / "changed.eval", edit)
    df = read_runs([SAMPLE / "baseline.eval", changed]).table
    run_a, run_b = df["run"].unique()
    _, al = align_runs(df, run_a, run_b, "reading", "match")
    assert al.hash_mismatch == 1 and al.hash_mismatch_examples == ("q000",)
    with pytest.raises(Exception, match="different content hashes"):
        align_runs(df, run_a, run_b, "reading", "match", strict=True)


def _naive_depth(text: str) -> int:
    """Oracle: a character-by-character JSON depth scan."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def test_depth_scanner_matches_a_naive_scan_across_chunk_boundaries() -> None:
    import random

    from evaladdon.adapters.common.guard import DepthScanner

    rng = random.Random(7)
    leaves = ['a"[[{\\', "\\\\", '\\"[', 1, None, "[[[", 'x\\\\"{', '\\\\\\\\\\"]]']

    def doc(level: int) -> object:
        if level > 6 or rng.random() < 0.3:
            return rng.choice(leaves)
        if rng.random() < 0.5:
            return [doc(level + 1) for _ in range(rng.randint(0, 3))]
        return {rng.choice(["k", "[", '\\"']): doc(level + 1) for _ in range(rng.randint(0, 3))}

    for _ in range(150):
        data = json.dumps(doc(0)).encode()
        for size in (1, 3, 1000):
            scanner = DepthScanner()
            for i in range(0, len(data), size):
                scanner.feed(data[i:i + size])
            assert scanner.max_depth == _naive_depth(data.decode())


def test_eval_and_json_of_the_same_run_give_the_same_table(tmp_path: Path) -> None:
    """Texts are taken in Inspect's summary form whichever container holds the run, so the
    .eval (summaries) and the .json (full samples) agree, item_hash and label included."""
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log, write_eval_log

    path = tmp_path / "baseline.json"
    write_eval_log(read_eval_log(str(SAMPLE / "judge.eval")), str(path))
    a = read_inspect_log(SAMPLE / "judge.eval", cluster="passage.id")
    b = _both(path, cluster="passage.id")
    pd.testing.assert_frame_equal(a.drop(columns="source"), b.drop(columns="source"))


DEEP = "__deep_value__"


def _with_deep_values(sample: dict) -> dict:
    """A sample with a placeholder (see :func:`_deepen`) in its metadata, score value and
    metadata, input and target."""
    s = json.loads(json.dumps(sample))
    s["metadata"] = {**(s.get("metadata") or {}), "deep": DEEP}
    name = next(iter(s["scores"]))
    s["scores"][name]["value"] = DEEP
    s["scores"][name]["metadata"] = {"deep": DEEP}
    s["input"] = [{"role": "user", "content": [{"type": "text", "text": DEEP}]}]
    s["target"] = [DEEP]
    return s


def _deepen(doc: object, depth: int) -> bytes:
    """JSON of ``doc`` with each placeholder replaced by a list nested ``depth`` deep (written
    as text: the encoders themselves refuse such depths)."""
    return json.dumps(doc).encode().replace(json.dumps(DEEP).encode(),
                                            b"[" * (depth - 1) + b'"leaf"' + b"]" * (depth - 1))


@pytest.mark.parametrize("depth", [600, 1000])
def test_values_nested_513_to_1024_deep_end_in_one_line_or_a_table(tmp_path: Path, depth: int) -> None:
    """orjson accepts up to 1,024 levels without the depth scan; nothing downstream may then
    recurse into such a value and crash: the CLI exits 0, or 2 with one line, never a traceback."""
    from evaladdon.cli.main import main

    def deepen(name: str, data: bytes) -> bytes:
        if name == "summaries.json":
            rows = json.loads(data)
            return _deepen([_with_deep_values(rows[0])] + rows[1:], depth)
        return data

    deep_eval = _rewrite(SAMPLE / "baseline.eval", tmp_path / "deep.eval", deepen)
    with zipfile.ZipFile(SAMPLE / "baseline.eval") as zf:
        header = json.loads(read_member(zf, zf.getinfo("header.json"), "x"))
        samples = [json.loads(read_member(zf, i, "x")) for i in zf.infolist() if i.filename.startswith("samples/")]
    deep_json = tmp_path / "deep.json"
    deep_json.write_bytes(_deepen({**header, "samples": [_with_deep_values(samples[0])] + samples[1:]}, depth))
    for path in (deep_eval, deep_json):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["summarize", str(path)])
        text = err.getvalue()
        assert "Traceback" not in text, text
        if code == 2:
            assert text.count("\n") == 1 and str(path) in text, text
        else:
            assert code == 0, text


def test_thin_text_equals_inspects_on_odd_whitespace() -> None:
    """The fast path (text already thin) and the split/join path agree with Inspect's own
    thin_text (textwrap.shorten) on every kind of white space."""
    pytest.importorskip("inspect_ai")
    import random

    from inspect_ai.log._util import thin_text as inspects

    from evaladdon.adapters.inspect.records import thin_text

    rng = random.Random(3)
    pieces = ["a", "word", "ü", "日本", " ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\xa0",
              "\u2003", "\u2028", "\u3000", "x" * 300, "[", "\\"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        assert thin_text(text) == inspects(text), repr(text)
    for text in ("", " ", "a" * 1024, "a" * 1025, "ab " * 400, " lead", "trail "):
        assert thin_text(text) == inspects(text), repr(text)


def _loaded_both_ways(monkeypatch: pytest.MonkeyPatch, paths: list) -> tuple:
    import evaladdon.adapters as adapters
    import evaladdon.adapters.read as read_mod

    def read(combine: bool) -> object:
        with monkeypatch.context() as m:
            if not combine:  # the reference: one table per log, never one frame of several
                m.setattr(read_mod, "frame", lambda parts: pytest.fail("logs combined"))
            try:
                return adapters.read_runs(paths, tuning=adapters.ReadTuning(combine_inspect=combine))
            except InputError as exc:
                return str(exc)

    return read(True), read(False)


def _assert_same_loaded(ours: object, reference: object) -> None:
    assert type(ours) is type(reference), (ours, reference)
    if isinstance(ours, str):
        assert ours == reference
        return
    pd.testing.assert_frame_equal(ours.table, reference.table)
    for field in ("notes", "skipped", "names", "incomplete", "reported"):
        assert getattr(ours, field) == getattr(reference, field), field


def test_many_logs_in_one_frame_equal_one_table_per_log(tmp_path: Path, real_logs: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """read_runs makes one DataFrame of consecutive Inspect logs: the same table, notes,
    skips, names and incomplete counts as one table per log concatenated."""
    for folder in sorted(d for d in real_logs.glob("inspect_*") if d.is_dir()) + [SAMPLE]:
        _assert_same_loaded(*_loaded_both_ways(monkeypatch, [folder]))
    # logs whose tables differ in columns and dtypes: metadata int / str / bool / missing,
    # answers and targets absent in one, a copy of a log (same run id: renamed per file),
    # a named run, and an lm-eval table between them
    src = SAMPLE / "baseline.eval"

    def variant(meta: object, drop_answers: bool = False) -> Callable[[str, bytes], bytes]:
        def edit(name: str, data: bytes) -> bytes:
            if name != "summaries.json":
                return data
            rows = json.loads(data)
            for i, r in enumerate(rows):
                if meta is not None and i % 3:
                    r["metadata"] = {**(r.get("metadata") or {}), "k": meta}
                if drop_answers:
                    for sc in r["scores"].values():
                        sc.pop("answer", None)
                    r.pop("target", None)
            return json.dumps(rows).encode()
        return edit

    logs = tmp_path / "logs"
    logs.mkdir()
    for i, (meta, drop) in enumerate([(1, False), ("x", True), (None, False), (True, False), (2.5, True)]):
        _rewrite(src, logs / f"v{i}.eval", variant(meta, drop))
    shutil_copy = logs / "v5.eval"
    shutil_copy.write_bytes((logs / "v0.eval").read_bytes())
    (logs / "w").mkdir()
    (logs / "w" / "table.csv").write_text("run,task,metric,item,epoch,value\nr,t,m,a,1,1\nr,t,m,b,1,0\n")
    (logs / "x").mkdir()
    (logs / "x" / "v6.eval").write_bytes((SAMPLE / "candidate.eval").read_bytes())
    _assert_same_loaded(*_loaded_both_ways(monkeypatch, [logs]))
    _assert_same_loaded(*_loaded_both_ways(monkeypatch, [f"mine={logs / 'v1.eval'}", str(logs / "v3.eval"),
                                                          f"mine={logs / 'x' / 'v6.eval'}", str(logs / "v4.eval")]))


def test_numeric_scores_take_the_numeric_path_with_the_same_result() -> None:
    """frame() hands an all-number score list to coerce_scores as float64: the same values
    and reasons as the object path it replaces."""
    import numpy as np

    from evaladdon.adapters.common.scores import coerce_scores

    vals = [1, 0, 0.5, -0.0, float("nan"), float("inf"), -float("inf"), 2**60 + 1, 10**300, 1e-300, 3]
    a_values, a_error = coerce_scores(pd.Series(vals, dtype=object))
    b_values, b_error = coerce_scores(pd.Series(np.array(vals, dtype=float)))
    np.testing.assert_array_equal(a_values, b_values)
    pd.testing.assert_series_equal(a_error, b_error)
