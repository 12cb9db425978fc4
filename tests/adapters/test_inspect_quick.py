"""Small Inspect logs read quickly: an ordinary ``.eval``'s summaries go straight into row
lists (``inspect_native.quick_rows``), and ``frame`` converts the lists of every such log of a
read at once.  The reference is the records path (``ReadTuning(quick=False)``) with one table per
log (``combine_inspect=False``): the identical table (dtypes included), notes, skips and
one-line errors, on every Inspect log in ../shared and sample_logs/ and on crafted sets."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import pytest

import evaladdon.adapters as adapters
import evaladdon.adapters.read as read_mod
from evaladdon.adapters import ReadTuning, sniff
from evaladdon.adapters.inspect import native as inspect_native
from evaladdon.adapters.common.guard import read_member
from evaladdon.adapters.inspect.log import read_inspect_log
from evaladdon.errors import InputError

from conftest import REPO

SAMPLE = REPO / "sample_logs" / "inspect"


def _not_used(name: str) -> Callable[..., Any]:
    def fail(*args: Any) -> Any:
        pytest.fail(f"{name} used by the reference path")
    return fail


def _load(monkeypatch: pytest.MonkeyPatch, paths: list, quick: bool, cluster: str | None = None,
          pending_rows: int = ReadTuning().pending_rows) -> Any:
    tuning = ReadTuning(quick=quick, combine_inspect=quick, pending_rows=pending_rows)
    with monkeypatch.context() as m:
        if not quick:  # the reference: neither the quick rows nor one frame of many logs ran
            m.setattr(inspect_native, "quick_rows", _not_used("quick_rows"))
            m.setattr(read_mod, "frame", _not_used("frame"))
        try:
            return adapters.read_runs(paths, cluster=cluster, tuning=tuning)
        except InputError as exc:
            return str(exc)


def _assert_same(ours: Any, reference: Any) -> None:
    assert type(ours) is type(reference), (ours, reference)
    if isinstance(ours, str):
        assert ours == reference
        return
    pd.testing.assert_frame_equal(ours.table, reference.table, check_exact=True)
    for field in ("notes", "skipped", "names", "incomplete", "reported"):
        assert getattr(ours, field) == getattr(reference, field), field


def _both(monkeypatch: pytest.MonkeyPatch, paths: list, cluster: str | None = None,
          pending_rows: int = ReadTuning().pending_rows) -> Any:
    ours = _load(monkeypatch, paths, True, cluster, pending_rows)
    _assert_same(ours, _load(monkeypatch, paths, False, cluster, pending_rows))
    return ours


@pytest.fixture
def quick_count(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many logs the quick path read (not left to the records path)."""
    done = [0]
    real = inspect_native.quick_rows

    def counting(summaries: list, cluster: str | None) -> Any:
        rows = real(summaries, cluster)
        done[0] += 1
        return rows

    monkeypatch.setattr(inspect_native, "quick_rows", counting)
    return done


def test_every_real_and_sample_log_alone_and_all_together(real_logs: Path, monkeypatch: pytest.MonkeyPatch,
                                                          quick_count: list[int]) -> None:
    folders = sorted(d for d in real_logs.glob("inspect_*") if d.is_dir()) + [SAMPLE]
    logs = [f for d in folders for f in sorted(d.glob("**/*")) if f.is_file() and sniff(f)[0] is not None
            and sniff(f)[1] == "inspect log"]
    assert len(logs) >= 30
    for f in logs:  # alone (errors and refusals: the same one line), and as one table per log
        _both(monkeypatch, [f])
        for quick in (True, False):
            with monkeypatch.context() as m:
                if not quick:
                    m.setattr(inspect_native, "quick_rows", _not_used("quick_rows"))
                try:
                    got: Any = read_inspect_log(f, reader="native", tuning=ReadTuning(quick=quick))
                    got = (got, got.attrs)
                except InputError as exc:
                    got = str(exc)
            if quick:
                first = got
        if isinstance(got, str):
            assert first == got, f
        else:
            pd.testing.assert_frame_equal(first[0], got[0], check_exact=True)
            assert first[1] == got[1], f
    assert quick_count[0] >= 20
    _both(monkeypatch, folders)  # together: one DataFrame, copies of a run renamed per file
    _both(monkeypatch, [SAMPLE], cluster="passage.id")
    _both(monkeypatch, [SAMPLE / "baseline.eval"], cluster="passage")  # a dict: refused in one line


def _rewrite(src: Path, dest: Path, edit: Callable[[list[dict]], list[dict]] | None = None,
             drop: Callable[[str], bool] = lambda name: False, zstd_kept: bool = False) -> Path:
    """``src`` with its summaries (and journal summaries) edited and some members dropped;
    deflate, or the source's zstd members as they are (``zstd_kept``, no edit)."""
    if zstd_kept:
        dest.write_bytes(src.read_bytes())
        return dest
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if drop(info.filename):
                continue
            data = read_member(zin, info, str(src))
            if edit is not None and (info.filename == "summaries.json" or info.filename.startswith("_journal/summaries/")):
                data = json.dumps(edit(json.loads(data))).encode()
            zout.writestr(info.filename, data)
    return dest


def _each(fn: Callable[[int, dict], None]) -> Callable[[list[dict]], list[dict]]:
    def edit(rows: list[dict]) -> list[dict]:
        for i, r in enumerate(rows):
            fn(i, r)
        return rows
    return edit


def test_crafted_sets_of_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quick_count: list[int]) -> None:
    src = SAMPLE / "baseline.eval"
    logs = tmp_path / "logs"
    logs.mkdir()

    def renamed(i: int, r: dict) -> None:  # other score names, a dict value, numbers, confidence, errors
        sc = r["scores"].pop("match")
        if i % 4 == 0:
            sc["value"] = {"acc": 1 if sc["value"] == "C" else 0, "note": "x" if i % 8 else None}
        elif i % 4 == 1:
            sc["value"] = [0.5, float(i)] if i % 3 else (True if i % 2 else 0.25)
        sc["metadata"] = {"confidence": (i % 10) / 10} if i % 5 == 0 else None
        r["scores"]["judge"] = sc
        if i % 7 == 0:
            r["error"] = {"message": "boom"}
        if i % 6 == 0:
            r["metadata"] = {**r["metadata"], "extra": i, "flag": i % 12 == 0}
        if i % 9 == 0:
            r.pop("target", None)
            sc.pop("answer", None)

    def bare(i: int, r: dict) -> None:  # no answers; one sample's extra score has no rows but an answer
        r["scores"]["match"].pop("answer", None)
        if i == 8:
            r["scores"]["empty"] = {"value": {}, "answer": "zzz", "metadata": {"confidence": 0.3}}

    def duplicated(rows: list[dict]) -> list[dict]:
        again = json.loads(json.dumps(rows[3]))
        again["scores"]["match"]["value"] = "C"
        return rows + [again]

    def unscored(i: int, r: dict) -> None:
        if i == 5:
            r["scores"] = {}
            r["limit"] = {"type": "token"}

    def uncluster(i: int, r: dict) -> None:
        if i == 7:
            del r["metadata"]["passage"]

    _rewrite(src, logs / "a_zstd.eval", zstd_kept=True)
    _rewrite(src, logs / "b_copy.eval")  # the same run id and items as a_zstd: runs renamed per file
    _rewrite(src, logs / "c_renamed.eval", _each(renamed))
    _rewrite(src, logs / "d_unfinished.eval", drop=lambda n: n in ("header.json", "summaries.json", "reductions.json"))
    _rewrite(src, logs / "e_duplicate.eval", duplicated)
    _rewrite(src, logs / "f_unscored.eval", _each(unscored))
    _rewrite(SAMPLE / "candidate.eval", logs / "g_other.eval", _each(lambda i, r: r.update(epoch=1 + i % 2)))
    _rewrite(src, logs / "h_uncluster.eval", _each(uncluster))
    _rewrite(src, logs / "k_bare.eval", _each(bare))
    (logs / "i_table.csv").write_text("run,task,metric,item,epoch,value\nr,t,m,a,1,1\nr,t,m,b,1,0\n")
    _rewrite(SAMPLE / "judge.eval", logs / "j_judge.eval")
    every = sorted(p for p in logs.iterdir() if p.suffix == ".eval")

    got = _both(monkeypatch, [logs])
    assert got.table["run"].nunique() > 5 and any("duplicate (id, epoch)" in n for n in got.notes)
    assert {"judge", "judge/acc", "judge/note", "match"} <= set(got.table["metric"])
    assert (got.table["error"] == "sample error").any() and got.table["confidence"].notna().any()
    assert any("log status is 'started'" in n for n in got.notes)
    _both(monkeypatch, [logs], cluster="passage.id")  # the log without the field: skipped, noted
    _both(monkeypatch, every, cluster="passage.id")  # named: that log's one-line error
    _both(monkeypatch, [f"mine={logs / 'c_renamed.eval'}", str(logs / "a_zstd.eval"), str(logs / "i_table.csv"),
                        f"mine={logs / 'g_other.eval'}", str(logs / "b_copy.eval")])
    for one in every:
        _both(monkeypatch, [one], cluster="passage.id")
    converted: list[int] = []
    real = read_mod._convert_pending
    monkeypatch.setattr(read_mod, "_convert_pending", lambda tables: converted.append(len(tables)) or real(tables))
    _both(monkeypatch, [logs], pending_rows=150)  # converted a few logs at a time as they are read
    _both(monkeypatch, [logs], cluster="passage.id", pending_rows=150)
    assert converted  # (the default converts once, at the end, in frame)
    quick = quick_count[0]
    assert quick >= 14  # a, b, c, d, g, j, k (several reads); e, f, h took the records path


def test_directory_read_in_bulk_equals_entry_by_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """zipdir.scan's bulk pass over a small directory gives what the entry-by-entry loop and
    zipfile give; a signature inside a name, an extra field or a non-ASCII name go entry by entry."""
    import numpy as np

    from evaladdon.adapters.common import zipdir

    def scan(path: Path, bulk: bool, strict: bool) -> Any:
        with monkeypatch.context() as m:
            if not bulk:
                m.setattr(zipdir, "_plain_directory", lambda *a: None)
            with path.open("rb") as fh:
                try:
                    infos, names = zipdir.scan(fh, strict=strict)
                except zipdir.Unusual as exc:
                    return f"unusual: {exc}"
        return ({k: (i.compress_type, i.CRC, i.compress_size, i.file_size, i.header_offset, i.flag_bits)
                 for k, i in infos.items()}, names.tolist(), names.dtype)

    plain = tmp_path / "plain.zip"
    with zipfile.ZipFile(plain, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", b"{}")
        for i in range(30):
            zf.writestr(f"samples/{i}_epoch_1.json", b"{}")
        zf.writestr("samples/notes.txt", b"x")
    odd = [tmp_path / "sig.zip", tmp_path / "extra.zip", tmp_path / "utf8.zip"]
    for path, name, extra in ((odd[0], "samples/PK\x01\x02_epoch_1.json", b""),
                              (odd[1], "samples/a_epoch_1.json", b"\x99\x99\x02\x00ab"),
                              (odd[2], "samples/é_epoch_1.json", b"")):
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("header.json", b"{}")
            info = zipfile.ZipInfo(name)
            info.extra = extra
            zf.writestr(info, b"{}")
    for path in [plain, *odd, SAMPLE / "baseline.eval"]:
        for strict in (False, True):
            bulk, loop = scan(path, True, strict), scan(path, False, strict)
            assert bulk == loop, (path, strict)
            if not isinstance(bulk, str):
                with zipfile.ZipFile(path) as zf:
                    want = {i.filename for i in zf.infolist()
                            if not (i.filename.startswith("samples/") and i.filename.endswith(".json"))}
                    assert set(bulk[0]) == want
                    assert sorted(bulk[1]) == sorted(n.encode() for n in zf.namelist() if n not in want)
    assert isinstance(scan(odd[1], True, True), str) and not isinstance(scan(odd[1], True, False), str)
    assert np.dtype(scan(plain, True, True)[2]).kind == "S"


def test_score_code_maps_each_kind_of_value_as_written_out() -> None:
    """``score_code``, the one value rule of the three row builders, against the mapping
    written out value by value (Inspect's grades exactly, yes/no in any case, containers as
    a non-numeric text, the rest as it is) and the two failures it must raise."""
    from evaladdon.adapters.inspect.records import score_code

    want = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0, "c": "c", "Yes": 1.0, "NO": 0.0, "yes ": "yes ", "x": "x",
            "": ""}
    for v, c in want.items():
        got = score_code(v)
        assert got == c and type(got) is type(c), v
    for v in ([1], (1, 2), {"a": 1}, []):
        assert score_code(v) == "<list value>"
    for v in (3, 2.5, True, None, float("nan"), 2**1023 + 7, -(2**1023) - 7):
        got = score_code(v)
        assert got is v or (got != got and v != v)
    for v in (2**1024, -(2**1024) - 1):
        with pytest.raises(OverflowError):
            score_code(v)
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(RecursionError):
        score_code(deep)


def test_values_near_and_past_float_range(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          quick_count: list[int]) -> None:
    """Ints of 2**1023 and more: read quickly while they have a float (the table equals the
    records path's), an int past float range refused in the same one line both ways."""
    src = SAMPLE / "baseline.eval"
    big = [2**1023 + 7, -(2**1023) - 7, 2**1023, 5, "yes", "No", "P", [1, 2]]

    def near(i: int, r: dict) -> None:
        r["scores"]["match"]["value"] = big[i % len(big)]

    def past(i: int, r: dict) -> None:
        r["scores"]["match"]["value"] = 2**1024 if i == 3 else 1

    a = _rewrite(src, tmp_path / "near.eval", _each(near))
    b = _rewrite(src, tmp_path / "past.eval", _each(past))
    got = _both(monkeypatch, [a])
    assert quick_count[0] == 1
    assert got.table["value"].max() > 8e307 and got.table["value"].min() < -8e307
    refused = _both(monkeypatch, [b])
    assert isinstance(refused, str) and "OverflowError: int too large to convert to float" in refused
    assert quick_count[0] == 1  # the log past float range: left to the records path


def test_constant_columns_are_what_pandas_makes_of_the_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """``frame`` builds a log's constant texts (run, source, harness, task, model) as an arrow
    take; the oracle is pandas' own column of the same texts repeated as ``str`` objects (what
    ``frame`` handed it before), dtype included, for one log and for several."""
    import numpy as np

    from evaladdon.adapters.inspect import rows as inspect_rows
    from evaladdon.adapters.inspect.log import read_inspect_part

    logs = sorted(SAMPLE.glob("*.eval"))
    for chosen in ([logs[0]], logs):
        parts = [read_inspect_part(p) for p in chosen]
        got = inspect_rows.frame(parts)
        counts = [p.n for p in parts]
        for col in ("run", "source", "harness", "task", "model"):
            texts = ["inspect" if col == "harness" else getattr(p, col) for p in parts]
            want = pd.DataFrame({col: np.repeat(np.array(texts, dtype=object), counts)})[col]
            assert got[col].dtype == want.dtype, col
            pd.testing.assert_series_equal(got[col], want, check_exact=True)


def test_written_out_cases_equal_the_general_functions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        quick_count: list[int]) -> None:
    """quick_rows writes the common cases out (text metadata thinned once per distinct text, a
    text or float score's code, item_hash and the label of text inputs and targets): random
    samples mixing those cases with every other kind of value read as the records path reads them."""
    import random

    rng = random.Random(31)
    texts = ["p1", "p1", " lead", "trail ", "two  spaces", "tab\there", "x" * 1100, "ok text", "é", ""]

    def meta_value(i: int) -> Any:
        return rng.choice([rng.choice(texts), i, i / 3, True, None, [1, 2], ["y" * 600, "z" * 600],
                           {"a": rng.choice(texts), "b": {"c": 1}}, {"big": "w" * 2000}])

    def edit(i: int, r: dict) -> None:
        r["metadata"] = {"passage": rng.choice(texts), "k1": meta_value(i), "k2": meta_value(i)}
        if i % 5 == 0:
            r["metadata"]["passage"] = meta_value(i)
        r["target"] = rng.choice(["0", "t" * 5200, ["a", "b"], ["only"], None, 3])
        r["input"] = rng.choice([r.get("input"), "i" * 5300, [{"role": "user", "content": "hi"}], None, 7])
        sc = r["scores"]["match"]
        sc["value"] = rng.choice(["C", "I", "P", "N", "yes", "No", "maybe", 0.5, 1, True, [1], {"acc": 1.0, "f": "C"},
                                  float("inf")])
        sc["answer"] = rng.choice(["A", "A", "  spaced  out ", "q" * 1500, None, 4])
        sc["metadata"] = rng.choice([None, {"confidence": 0.25}, {"probability": 2}, {"confidence": True}])
        if i % 7 == 0:
            r["scores"]["other"] = {"value": rng.choice(["C", 0.25, "text"]), "answer": "A"}

    logs = tmp_path / "logs"
    logs.mkdir()
    every = [_rewrite(SAMPLE / "baseline.eval", logs / f"r{k}.eval", _each(edit)) for k in range(4)]
    _both(monkeypatch, every)
    _both(monkeypatch, every[:1])
    _both(monkeypatch, [logs], cluster="passage")  # a log whose cluster field is missing or a dict: noted
    _both(monkeypatch, [logs], cluster="k1.a")
    assert quick_count[0] >= 4


def test_hex_strings_equal_the_texts_converted_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """``parts.hex_strings`` (one hex text of all digests cut at fixed offsets) gives the column
    ``_strings`` makes of each digest's ``hex()``: the same arrow type and values, or the same
    object array when a digest is missing or pandas keeps no texts in arrow."""
    import hashlib

    import numpy as np

    from evaladdon.adapters.inspect import parts

    digests = [hashlib.sha256(str(i).encode()).digest() for i in range(300)]
    cases = [digests, digests[:1], (digests[0],) * 5, digests[:7] + [None] + digests[7:9], [None], [None, None], []]
    for arrow in (True, False):
        with monkeypatch.context() as m:
            if not arrow:
                m.setattr(parts, "_str_column", lambda: None)
            for case in cases:
                got = parts.hex_strings(case)
                want = parts._strings([None if d is None else d.hex() for d in case])
                assert type(got) is type(want), case[:2]
                if isinstance(want, np.ndarray):
                    assert got.dtype == want.dtype and got.tolist() == want.tolist()
                else:
                    assert got.type == want.type and got.equals(want) and got.null_count == 0
                    assert got.to_pylist() == [d.hex() for d in case]  # type: ignore[union-attr]
                    got.validate(full=True)


def test_meta_columns_of_texts_equal_pandas_conversion() -> None:
    """``rows._meta_column`` (values that are all ``str``: one arrow array, taken per row) gives
    the column the pandas conversion gave: ``_records_column``, the take, then
    ``_object_texts_as_arrow``, as a DataFrame column (dtype and values), for texts, texts with
    a missing value, numbers, mixes and texts that are not UTF-8."""
    import random

    import numpy as np

    from evaladdon.adapters.inspect import parts, rows

    rng = random.Random(4)
    pool = ["p1", "", "é", " two  spaces ", "x" * 3000, "p1"]
    kinds = [lambda: rng.choice(pool), lambda: rng.choice(pool + [np.nan]), lambda: rng.choice([1, 2.5, True]),
             lambda: rng.choice(pool + [3, None]), lambda: rng.choice(pool + ["bad \ud800"]), lambda: np.nan]
    for case in range(60):
        kind = kinds[case % len(kinds)]
        n = rng.randint(1, 40)
        values = parts._objects([kind() for _ in range(n)])
        take = np.array(sorted(rng.choices(range(n), k=rng.randint(0, 3 * n))), dtype=np.int64)
        try:
            want = {"k": parts._records_column(values)[take]}
        except UnicodeEncodeError:  # (pandas refuses such a text: the same error either way)
            with pytest.raises(UnicodeEncodeError):
                rows._meta_column(values, take)
            continue
        got = {"k": rows._meta_column(values, take)}
        parts._object_texts_as_arrow(want)
        got_df = pd.DataFrame(got, index=pd.RangeIndex(len(take)))
        want_df = pd.DataFrame(want, index=pd.RangeIndex(len(take)))
        pd.testing.assert_frame_equal(got_df, want_df, check_exact=True)


def test_text_columns_in_chunks_equal_one_conversion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``parts._chunked_strings`` (many logs' texts converted a chunk of rows at a time) gives
    ``_strings`` of them all: the same values and type, or the same ``object`` array when one
    is not a text; and read_runs of the crafted logs with chunks of 7 rows equals the records path."""
    import random

    import numpy as np

    from evaladdon.adapters.inspect import parts

    rng = random.Random(7)
    for case in range(40):
        pool = ["a", "", "é", "long " * 200, None if case % 5 == 0 else "b", 3 if case % 7 == 0 else "c"]
        values = [rng.choice(pool) for _ in range(rng.randint(0, 50))]
        for rows_per_chunk in (1, 3, 7, 64):
            got = parts._chunked_strings(values, rows_per_chunk)
            want = parts._strings(values)
            if isinstance(want, np.ndarray):
                assert isinstance(got, np.ndarray) and got.dtype == want.dtype and got.tolist() == want.tolist()
            else:
                assert got.type == want.type and got.to_pylist() == want.to_pylist()
    logs = tmp_path / "logs"
    logs.mkdir()
    _rewrite(SAMPLE / "baseline.eval", logs / "a.eval")
    _rewrite(SAMPLE / "candidate.eval", logs / "b.eval", _each(lambda i, r: r.update(epoch=1 + i % 2)))
    _rewrite(SAMPLE / "baseline.eval", logs / "c.eval", _each(lambda i, r: r["scores"]["match"].pop("answer", None)))
    monkeypatch.setattr(parts, "STRING_CHUNK_ROWS", 7)
    _both(monkeypatch, [logs])
    _both(monkeypatch, [logs], cluster="passage.id")


def test_member_names_checked_as_bytes_equal_the_texts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       quick_count: list[int]) -> None:
    """The sample members' names checked against the summaries as one joined, encoded and
    split text (``native._listed_bytes``) decide as the names built one by one do: an id with
    a line break, an (id, epoch) twice, a member no summary lists, a
    listed member missing, several epochs -- each read as the records path reads it."""
    import zipfile as zf_mod

    src = SAMPLE / "baseline.eval"

    def renamed(i: int, r: dict) -> None:
        if i == 2:
            r["id"] = "two\nlines"

    def twice(rows: list[dict]) -> list[dict]:
        again = json.loads(json.dumps(rows[4]))
        return rows + [again]

    logs = tmp_path / "logs"
    logs.mkdir()
    a = _rewrite(src, logs / "a_newline.eval", _each(renamed))
    b = _rewrite(src, logs / "b_twice.eval", twice)
    c = _rewrite(src, logs / "c_extra.eval")
    with zf_mod.ZipFile(c, "a") as zf:  # a member no summary lists
        zf.writestr("samples/zzz_epoch_1.json", json.dumps(json.loads(read_member(zipfile.ZipFile(src),
                    zipfile.ZipFile(src).getinfo("summaries.json"), str(src)))[0] | {"id": "zzz"}))
    d = _rewrite(src, logs / "d_missing.eval", drop=lambda n: n.startswith("samples/") and n.endswith("_epoch_1.json")
                 and n < "samples/q005")
    e = _rewrite(src, logs / "e_epochs.eval", _each(lambda i, r: r.update(epoch=2)))
    for one in (a, b, c, d, e):
        _both(monkeypatch, [one])
    _both(monkeypatch, [logs])
    _both(monkeypatch, [logs], cluster="passage.id")
    assert quick_count[0] >= 5
