"""Inspect logs: the real logs in ../shared, and odd cases made with Inspect's own writer."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.log import read_eval_log  # noqa: E402

from evaladdon.adapters import read_runs, sniff  # noqa: E402
from evaladdon.adapters.inspect.log import read_inspect_log  # noqa: E402
from evaladdon.errors import InputError  # noqa: E402
from evaladdon.analysis.summarize import summarize_table  # noqa: E402

from conftest import REPO  # noqa: E402

SAMPLE = REPO / "sample_logs" / "inspect"


def inspect_files(root: Path) -> list[Path]:
    return sorted(f for f in root.glob("inspect_*/**/*") if f.is_file())


def test_every_real_log_parses_or_is_refused_clearly(real_logs: Path) -> None:
    read = refused = skipped = 0
    for f in inspect_files(real_logs):
        reader, what = sniff(f)
        if reader is None:
            assert f.name in ("eval-set.json", "logs.json"), f  # eval-set bookkeeping, not logs
            skipped += 1
            continue
        try:
            df = reader(f, None)
        except InputError as exc:
            assert ("log format version 4 is newer than the installed inspect-ai" in str(exc)
                    or "no scores in this log" in str(exc)), exc  # an unscored fixture made for `inspect score`
            assert str(exc).count("\n") == 0
            refused += 1
            continue
        read += 1
        assert df.empty or set(df["harness"]) == {"inspect"}
        if df.empty:
            assert any("no samples" in n for n in df.attrs["notes"])
    assert read >= 35 and refused == 2 and skipped == 4


def test_item_means_reproduce_the_logs_own_accuracy(real_logs: Path) -> None:
    """For every scored log: mean of item means == the log's accuracy/mean (mean reducer)."""
    checked = 0
    for f in inspect_files(real_logs):
        reader, _ = sniff(f)
        if reader is None:
            continue
        try:
            df = reader(f, None)
        except InputError:
            continue
        if df.empty or df["error"].notna().all():
            continue
        ours = {s.metric: s.estimate.mean for s in summarize_table(df, notes=[])}
        header = read_eval_log(str(f), header_only=True) if f.suffix in (".eval", ".json") else read_eval_log(
            f.open("rb"))
        for score in header.results.scores if header.results else []:
            for name in ("accuracy", "mean"):
                if name in score.metrics and score.reducer in (None, "mean") and score.name in ours:
                    reported = score.metrics[name].value
                    if isinstance(reported, float) and math.isnan(reported):
                        continue
                    assert ours[score.name] == pytest.approx(reported, abs=1e-12), (f, score.name)
                    checked += 1
    assert checked >= 30


def test_epochs_and_cluster_from_real_eval_set(real_logs: Path) -> None:
    files = sorted((real_logs / "inspect_ai_logsets" / "set2").glob("*.eval"))
    df = read_inspect_log(files[0])
    assert df["epoch"].max() == 5 and df["item"].nunique() == 10
    s = summarize_table(df)[0]
    assert s.estimate.n_epochs_max == 5 and s.estimate.icc_epochs is not None
    with pytest.raises(InputError, match="no scalar metadata field 'nope'"):
        read_inspect_log(files[0], cluster="nope")
    clustered = read_inspect_log(files[0], cluster="label_confidence")
    assert clustered["cluster"].notna().all()


def test_unfinished_run_rebuilt_from_journal(tmp_path: Path, real_logs: Path) -> None:
    src = real_logs / "inspect_ai_logsets" / "set2" / "2025-09-15T15-04-34-04-00_popularity_CuCFPdqnwXupUkxp69nJ2a.eval"
    dest = tmp_path / "unfinished.eval"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for name in zin.namelist():
            if name not in ("header.json", "summaries.json", "reductions.json"):
                zout.writestr(name, zin.read(name))
    full, partial = read_inspect_log(src), read_inspect_log(dest)
    assert len(partial) == len(full) == 50
    assert partial["value"].mean() == pytest.approx(full["value"].mean())
    assert any("status is 'started'" in n for n in partial.attrs["notes"])
    theirs = read_inspect_log(dest, reader="inspect")  # Inspect's reader rebuilds the same table
    import pandas as pd

    pd.testing.assert_frame_equal(partial, theirs)
    assert partial.attrs["notes"] == theirs.attrs["notes"]


def test_truncated_and_corrupt_files(tmp_path: Path) -> None:
    good = SAMPLE / "baseline.eval"
    cut = tmp_path / "cut.eval"
    cut.write_bytes(good.read_bytes()[:5000])
    with pytest.raises(InputError, match=r"cut.eval: cannot read as an Inspect log"):
        read_inspect_log(cut)
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"version": 2, "status": "success", "eval": {')
    with pytest.raises(InputError, match="bad.json: cannot read as an Inspect log"):
        read_inspect_log(bad_json)


def test_odd_score_values_are_kept_with_reasons(tmp_path: Path) -> None:
    """Dict scores split per key; lists, NaN and unknown strings are never scored 0."""
    log = read_eval_log(str(SAMPLE / "baseline.eval"))
    assert log.samples is not None
    values = [{"a": 1, "b": 0.5}, [1, 2], float("nan"), "maybe", "P", True]
    for sample, value in zip(log.samples, values, strict=False):  # (the first six samples)
        sample.scores["match"].value = value  # type: ignore[index]
    from inspect_ai.log import write_eval_log

    path = tmp_path / "odd.json"
    write_eval_log(log, str(path))
    df = read_inspect_log(path)
    first_ids = [str(s.id) for s in log.samples[:6]]
    by = {(r.item, r.metric, r.epoch): r for r in df.itertuples()}
    e = log.samples[0].epoch
    assert by[(first_ids[0], "match/a", e)].value == 1.0 and by[(first_ids[0], "match/b", e)].value == 0.5
    assert by[(first_ids[1], "match", log.samples[1].epoch)].error == "non-numeric value"
    assert by[(first_ids[2], "match", log.samples[2].epoch)].error.startswith("non-finite")
    assert by[(first_ids[3], "match", log.samples[3].epoch)].error == "non-numeric value"
    assert by[(first_ids[4], "match", log.samples[4].epoch)].value == 0.5
    assert by[(first_ids[5], "match", log.samples[5].epoch)].value == 1.0
    loaded = read_runs([path])
    summary = summarize_table(loaded.table, metric="match")[0]
    assert summary.n_dropped == 3 and summary.dropped["non-numeric value"] == 2


def test_sample_logs_cli_roundtrip(capsys: pytest.CaptureFixture[str]) -> None:
    from evaladdon.cli.main import main

    assert main(["summarize", str(SAMPLE / "baseline.eval"), "--cluster", "passage.id", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["results"]
    header = read_eval_log(str(SAMPLE / "baseline.eval"), header_only=True)
    metrics = {k: m.value for s in header.results.scores for k, m in s.metrics.items()}
    assert row["mean"] == pytest.approx(metrics["accuracy"])
    assert row["se_item"] == pytest.approx(metrics["stderr"])  # Inspect's stderr on reduced scores
    assert row["se_cluster"] == pytest.approx(metrics["se_cr1"])
    assert row["se_cluster_cr2"] == pytest.approx(metrics["se_cr2"])
    assert row["n_clusters"] == 12 and row["n_epochs"] == 3
    assert row["icc_epochs"] == pytest.approx(metrics["icc"])
    assert np.isfinite(row["deff"])
