"""lm-eval reader: hostile input (12.1, 12.2, 12.8), results-only values (11.7), non-finite item
values (10.7) and multiple-choice predictions (14.1), on real logs from ../shared and mutations."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy.special import softmax

from evaladdon.adapters import sniff
from evaladdon.adapters.common.jsonlines import MAX_DEPTH, json_depth, read_json_records
from evaladdon.adapters.lm_eval import MISSING_FROM_LOG, read_results_file, read_samples
from evaladdon.adapters.common.scores import NON_FINITE
from evaladdon.errors import InputError
from evaladdon.analysis.summarize import summarize_table

NEGO = "lmeh_pr3936_negotiationtom_repeats/Qwen__Qwen3-8B"
TS = "2026-07-08T16-04-34.219874"


def _copy_run(real_logs: Path, tmp: Path, tasks: tuple[str, ...] = ("belief",)) -> Path:
    src = real_logs / NEGO
    shutil.copy(src / f"results_{TS}.json", tmp / f"results_{TS}.json")
    for t in tasks:
        shutil.copy(src / f"samples_negotiationtom_{t}_{TS}.jsonl", tmp / f"samples_negotiationtom_{t}_{TS}.jsonl")
    return tmp


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from evaladdon.cli.main import main

    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- 12.1 nesting


def test_json_depth_ignores_brackets_in_strings() -> None:
    assert json_depth(b'{"a": [1, {"b": "[[[{{{"}], "c": "\\"]]"}') == 3
    assert json_depth(b'"\\\\"[[1]]') == 2  # an escaped backslash does not escape the quote
    assert json_depth(json.dumps({"x": [[["\\[" * 5]]]}).encode()) == 4
    assert json_depth(b"") == 0


@pytest.mark.parametrize("kind", ["samples_line", "samples_nan_line", "samples_1100", "results", "array", "array_nan",
                                  "table"])
def test_deeply_nested_json_is_one_line_exit_2(tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    levels = 1100 if kind == "samples_1100" else 1000
    deep = "[" * levels + "]" * levels
    nan = "NaN" if kind.endswith("nan_line") or kind.endswith("_nan") else "1"
    if kind.startswith("samples"):
        p = tmp_path / "samples_t_2026-01-01T00-00-00.jsonl"
        p.write_text('{"doc_id": 0, "doc": {}, "resps": [], "acc": 1}\n'
                     f'{{"doc_id": 1, "doc": {{}}, "resps": [], "acc": {nan}, "x": {deep}}}\n')
    elif kind == "results":
        p = tmp_path / "results_2026-01-01T00-00-00.json"
        p.write_text(f'{{"results": {{"t": {{"acc,none": 0.5}}}}, "config": {deep}}}')
    elif kind.startswith("array"):
        p = tmp_path / "pretrained=x_t.jsonl"
        p.write_text(f'[{{"doc_id": 0, "doc": {{}}, "resps": [], "acc": {nan}, "x": {deep}}}]')
    else:
        p = tmp_path / "t.jsonl"
        p.write_text('{"run": "a", "task": "t", "metric": "m", "item": "1", "value": 1}\n'
                     f'{{"run": "a", "task": "t", "metric": "m", "item": "2", "value": NaN, "x": {deep}}}\n')
        with pytest.raises(InputError, match="nested 1001 levels deep"):
            read_json_records(p)
    code, out, err = _cli(["summarize", str(p)], capsys)
    if kind == "table":  # the table reader parses with pyarrow first (store helper's), which copes
        # exit 0 prints the rows left out on stderr (warnings never go into the table); exit 2 is one line
        assert code in (0, 2) and "Traceback" not in err and (code == 0 or err.count("\n") <= 1), err
        return
    if kind in ("samples_line", "array"):
        # orjson accepts up to 1,024 levels and the reader never recurses into values: it reads
        assert code == 0, err
        return
    assert code == 2 and err.count("\n") == 1 and str(p.name) in err and "Traceback" not in err
    assert f"more than {MAX_DEPTH}" in err and f"nested {levels + 1 + kind.startswith('array')} levels" in err


# ---------------------------------------------------------------- 12.8 wrong shapes


MUTATIONS = {
    "configs": lambda d: d.__setitem__("configs", ["x"]),
    "config": lambda d: d.__setitem__("config", "hf"),
    "results.task": lambda d: d["results"].__setitem__("negotiationtom_belief", [0.5]),
    "group_subtasks": lambda d: d["group_subtasks"].__setitem__("negotiationtom", "negotiationtom_belief"),
    "repeats_inf": lambda d: d["configs"]["negotiationtom_belief"].__setitem__("repeats", float("inf")),
    "repeats_1e20": lambda d: d["configs"]["negotiationtom_belief"].__setitem__("repeats", 1e20),
    "n_samples": lambda d: d["n-samples"]["negotiationtom_belief"].__setitem__("effective", -3),
    "n_samples_nan": lambda d: d["n-samples"]["negotiationtom_belief"].__setitem__("effective", float("nan")),
}


@pytest.mark.parametrize("what", sorted(MUTATIONS))
def test_wrong_shape_results_are_one_line_exit_2(real_logs: Path, tmp_path: Path, what: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _copy_run(real_logs, tmp_path)
    rp = tmp_path / f"results_{TS}.json"
    data = json.loads(rp.read_text())
    MUTATIONS[what](data)
    rp.write_text(json.dumps(data, allow_nan=True))
    for target in (tmp_path / f"samples_negotiationtom_belief_{TS}.jsonl", rp):
        code, out, err = _cli(["summarize", str(target)], capsys)
        assert code == 2, (what, err)
        assert err.count("\n") == 1 and "Traceback" not in err and rp.name in err, err
        assert "-9223372036854775808" not in err


# ---------------------------------------------------------------- 12.2 cut-short samples


def test_cut_short_samples_are_counted_missing_and_marked_incomplete(real_logs: Path, tmp_path: Path) -> None:
    _copy_run(real_logs, tmp_path)
    sp = tmp_path / f"samples_negotiationtom_belief_{TS}.jsonl"
    lines = sp.read_text().splitlines(keepends=True)
    assert len(lines) == 20
    full = read_samples(sp)
    sp.write_text("".join(lines[:8]))
    df = read_samples(sp)
    missing = df[df["error"] == MISSING_FROM_LOG]
    assert len(missing) == 12 and sorted(missing["item"].astype(int)) == list(range(8, 20))
    assert any("incomplete" in n and "declare 20 docs" in n and "holds 8" not in n for n in df.attrs["notes"])
    (s,) = summarize_table(df)
    assert s.n_dropped == 12 and s.dropped == {MISSING_FROM_LOG: 12}
    assert s.estimate.n_items == 8
    # complete samples: nothing added
    assert not (full["error"] == MISSING_FROM_LOG).any()


# ---------------------------------------------------------------- 11.7 results only


def test_results_only_files_give_harness_reported_values(real_logs: Path) -> None:
    checked = 0
    for f in sorted((real_logs / "pythia_evals_v0_v1").rglob("*.json")) + sorted(
            (real_logs / "lmeh_results_only_04x").rglob("results_*.json")):
        df = read_results_file(f)
        assert df.empty
        reported = df.attrs["reported"]
        raw = json.loads(f.read_text())["results"]
        assert reported, f
        for r in reported:
            assert r["value"] == raw[r["task"]][r["metric"]]
            name, sep, filt = r["metric"].partition(",")
            logged_se = raw[r["task"]].get(f"{name}_stderr{sep}{filt}")
            assert r["stderr"] == (logged_se if isinstance(logged_se, (int, float)) else None)
            assert r["source"] == str(f) and "@" in r["run"]
            checked += 1
    assert checked > 1000


# ---------------------------------------------------------------- 10.7 non-finite values


def test_infinite_item_value_is_flagged_and_the_harness_inf_is_said(real_logs: Path, tmp_path: Path) -> None:
    """A real-shaped run whose results report mae = inf because one item is infinite."""
    _copy_run(real_logs, tmp_path)
    sp = tmp_path / f"samples_negotiationtom_belief_{TS}.jsonl"
    recs = [json.loads(line) for line in sp.read_text().splitlines()]
    for i, r in enumerate(recs):
        r["metrics"] = ["acc", "mae"]
        r["mae"] = float("inf") if i == 3 else float(i % 3)
    sp.write_text("".join(json.dumps(r, allow_nan=True) + "\n" for r in recs))
    rp = tmp_path / f"results_{TS}.json"
    data = json.loads(rp.read_text())
    data["results"]["negotiationtom_belief"]["mae,none"] = float("inf")
    rp.write_text(json.dumps(data, allow_nan=True))
    assert "Infinity" in rp.read_text() and "Infinity" in sp.read_text()
    df = read_samples(sp)
    mae = df[df["metric"] == "mae,none"]
    assert mae.loc[mae["item"] == "3", "error"].tolist() == [NON_FINITE]
    assert mae["error"].isna().sum() == 19
    (note,) = [n for n in df.attrs["notes"] if "non-finite" in n]
    assert "mae,none" in note and "inf" in note and "finite values only" in note
    s = next(s for s in summarize_table(df) if s.metric == "mae,none")
    assert s.dropped == {NON_FINITE: 1} and np.isfinite(s.estimate.mean)
    assert s.estimate.mean == pytest.approx(np.mean([i % 3 for i in range(20) if i != 3]))


# ---------------------------------------------------------------- 14.1 multiple choice


def _mc_logs(real_logs: Path) -> list[Path]:
    from conftest import REPO

    return sorted((real_logs / NEGO).glob("samples_negotiationtom_[bd]*.jsonl")) + sorted(
        (REPO / "sample_logs" / "lm_eval").rglob("samples_evaladdon_clustered_*.jsonl"))


def test_multiple_choice_prediction_reproduces_acc_on_every_real_log(real_logs: Path) -> None:
    rows = 0
    for f in _mc_logs(real_logs):
        df = read_samples(f)
        acc = df[df["metric"].str.startswith("acc,") & df["value"].notna()]
        labelled = acc[acc["label"].notna()]
        assert len(labelled) == len(acc) > 0, f
        assert ((labelled["prediction"] == labelled["label"]).astype(float) == labelled["value"]).all(), f
        # confidence = softmax of the logged log-likelihoods at the prediction (scipy as the oracle)
        recs = {str(json.loads(line)["doc_id"]): json.loads(line) for line in f.read_text().splitlines()}
        for _, row in labelled.head(5).iterrows():
            ll = np.array([float(x[0]) for x in recs[row["item"]]["filtered_resps"]])
            assert row["prediction"] == str(int(np.argmax(ll)))
            assert row["confidence"] == pytest.approx(softmax(ll).max(), rel=1e-12)
        rows += len(labelled)
    assert rows >= 160


def test_acc_norm_uses_length_normalised_loglikelihoods(tmp_path: Path) -> None:
    """lm-eval: pred_norm = argmax(ll / len(choice)), choice = continuation minus the delimiter."""
    lls = [[-4.0, False], [-6.0, False]]  # raw argmax 0; per char: -4/1 = -4 vs -6/10 = -0.6 -> 1
    rec = {"doc_id": 0, "doc": {}, "target": 1, "filter": "none", "metrics": ["acc", "acc_norm"],
           "arguments": {"gen_args_0": {"arg_0": "Q:", "arg_1": " a"}, "gen_args_1": {"arg_0": "Q:", "arg_1": " bbbbbbbbbb"}},
           "resps": [[x] for x in lls], "filtered_resps": lls, "acc": 0.0, "acc_norm": 1.0}
    p = tmp_path / "samples_t_2026-01-01T00-00-00.jsonl"
    p.write_text(json.dumps(rec) + "\n")
    df = read_samples(p).set_index("metric")
    assert df.loc["acc,none", "prediction"] == "0" and df.loc["acc_norm,none", "prediction"] == "1"
    assert df.loc["acc,none", "label"] == df.loc["acc_norm,none", "label"] == "1"
    assert df.loc["acc,none", "confidence"] == pytest.approx(softmax([-4.0, -6.0])[0])
    assert df.loc["acc_norm,none", "confidence"] == pytest.approx(softmax([-4.0, -0.6])[1])


def test_every_real_lm_eval_output_reads_or_refuses(real_logs: Path) -> None:
    for f in sorted(x for pat in ("lmeh_*/**/*", "pythia_*/**/*") for x in real_logs.glob(pat) if x.is_file()):
        reader, what = sniff(f)
        if reader is None:
            continue
        df = reader(f, None)
        if what == "lm-eval results":
            assert df.empty and df.attrs["reported"]


def test_reported_summaries_of_results_only_runs(real_logs: Path) -> None:
    from scipy.stats import norm

    from evaladdon.adapters import read_runs
    from evaladdon.analysis.reported import MARK, reported_summaries

    with pytest.raises(InputError, match="no per-item rows to analyse"):
        read_runs([real_logs / "pythia_evals_v0_v1"])
    loaded = read_runs([real_logs / "pythia_evals_v0_v1", real_logs / "lmeh_results_only_04x"], results_only=True)
    assert loaded.table.empty and len(loaded.reported) > 1000
    rows = reported_summaries(loaded.reported, level=0.9)
    assert len(rows) == len(loaded.reported)
    z = norm.ppf(0.95)
    with_se = [r for r in rows if r.stderr is not None]
    assert with_se and all(r.ci_low == pytest.approx(r.value - z * r.stderr) and
                           r.ci_high == pytest.approx(r.value + z * r.stderr) for r in with_se)
    na = [r for r in rows if r.stderr is None]
    assert na and all(r.ci_low is None and "no usable stderr" in r.notes[0] for r in na)  # "N/A" perplexities
    rec = with_se[0].flat()
    assert rec["method"] == MARK and rec["harness_reported"] and not rec["clustered"] and not rec["paired"]
    one = reported_summaries(loaded.reported, metric="acc")
    assert one and {r.metric for r in one} == {"acc"}


def test_reported_rows_give_way_to_per_item_rows(real_logs: Path) -> None:
    from evaladdon.analysis.reported import reported_summaries

    folder = real_logs / NEGO
    results = read_results_file(folder / f"results_{TS}.json")
    samples = read_samples(folder / f"samples_negotiationtom_belief_{TS}.jsonl")
    left = reported_summaries(results.attrs["reported"], table=samples)
    assert {(r.task, r.metric) for r in left} & {("negotiationtom_belief", "acc,none")} == set()
    assert len(left) == len(results.attrs["reported"]) - 1


def test_lm_eval_stderr_never_overwrites_its_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import REPO

    for f in (REPO / "sample_logs" / "lm_eval" / "dummy-seed1").iterdir():
        shutil.copy(f, tmp_path / f.name)
    results = next(tmp_path.glob("results_*.json"))
    samples = next(tmp_path.glob("samples_evaladdon_clustered_*.jsonl"))
    before = samples.read_bytes()
    (tmp_path / "hard.json").hardlink_to(results)
    for dest in (samples, tmp_path / "hard.json"):
        code, _, err = _cli(["lm-eval-stderr", str(results), "-o", str(dest)], capsys)
        assert code == 2 and "refusing to overwrite an input" in err
    assert samples.read_bytes() == before
    code, _, err = _cli(["lm-eval-stderr", str(results)], capsys)
    assert code == 0 and results.with_name(results.stem + ".evaladdon.json").exists()


def test_summarize_shows_results_only_runs_as_harness_reported(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 11.7: results files without samples appear in a summary, marked as harness-reported."""
    from conftest import NO_REAL_LOGS, SHARED
    from evaladdon.cli.main import main

    folder = SHARED / "real_logs" / "lmeh_results_only_04x"
    if not folder.exists():
        pytest.skip(NO_REAL_LOGS)
    assert main(["summarize", str(folder), "--json"]) == 0
    records = json.loads(capsys.readouterr().out)["results"]
    assert records and all(r["harness_reported"] and not r["clustered"] and not r["paired"] for r in records)
    assert all(r["ci_low"] <= r["mean"] <= r["ci_high"] for r in records if r["se"] is not None)
    assert main(["summarize", str(folder)]) == 0
    captured = capsys.readouterr()
    assert "[reported" in captured.out and "not clustered, not paired" in captured.err


# ---------------------------------------------------------------- 15: the fast value path


def test_numeric_fast_path_equals_the_shared_converter() -> None:
    """All-float / all-int metric values skip the object round trip; values, errors and raw
    text equal coerce_scores + raw_strings on the same values (signed zeros, NaN, inf, huge ints)."""
    import random

    import pandas as pd

    from evaladdon.adapters.lm_eval.samples import _values_and_text
    from evaladdon.adapters.common.scores import coerce_scores, raw_strings

    rng = random.Random(15)
    floats = [0.0, -0.0, 1.0, float("nan"), float("inf"), -float("inf"), 1e16, 1e-7, 0.1, 2.5e-300,
              1.7976931348623157e308, 5e-324, 123456789.123, -3.0]
    ints = [0, 1, -5, 2**62, 2**63 - 1, -2**63, 10**20]
    mixed = [1, 0.5, True, None, "0.5", "x", float("nan"), "", " 1 ", [1], {"a": 1}]
    for _ in range(300):
        pool = rng.choice([floats, ints, mixed])
        raw = [rng.choice(pool + [rng.uniform(-1e6, 1e6) if pool is floats else rng.randint(-10**9, 10**9)])
               for _ in range(rng.choice([1, 2, 5, 50]))]
        values, errors, text = _values_and_text(raw)
        series = pd.Series(raw, dtype=object)
        want_values, want_errors = coerce_scores(series)
        np.testing.assert_array_equal(values, want_values)
        assert np.array_equal(np.signbit(values), np.signbit(want_values))
        assert errors.tolist() == want_errors.tolist()
        assert text.tolist() == raw_strings(series).tolist()


def test_loglikelihood_blocks_equal_numpy_conversion() -> None:
    """The fromiter path of _block_lls gives what np.array(block, float) gives (numbers, bools,
    numeric strings, None -> NaN), and odd shapes fall back to per-sample conversion."""
    from evaladdon.adapters.lm_eval.choices import _block_lls

    def reference(block: list, k: int) -> np.ndarray:
        try:
            arr = np.array(block, dtype=float)
            if arr.shape == (len(block), k, 2):
                return arr[:, :, 0]
        except (ValueError, TypeError):
            pass
        out = np.full((len(block), k), np.nan)
        for j, fr in enumerate(block):
            try:
                if all(type(x) is list and len(x) == 2 and type(x[0]) is not bool for x in fr):
                    out[j] = [float(x[0]) for x in fr]
            except (TypeError, ValueError):
                pass
        return out

    good = [[-1.5, False], [-0.25, True], [-3.0, False]]
    cases = [
        [good, good],
        [good, [["-1.5", "False"], ["-2", "True"], ["0", "False"]]],  # strings: per sample
        [good, [["-1.5", False], ["-2", True], ["1e400", 0]]],  # numeric strings with bools
        [good, [[None, False], [-1.0, True], [-2.0, False]]],  # None -> NaN
        [good, [[-1.0, False, 3], [-1.0], [-2.0, False]]],  # lengths that add up to 6 anyway
        [good, [[-1.0, False], "ab", [-2.0, False]]],  # a 2-character string entry
        [good, [[-1.0, False], [[1], 0], [-2.0, False]]],  # nested deeper
        [good, [{"a": 1, "b": 2}, [-1.0, True], [-2.0, False]]],
    ]
    for block in cases:
        np.testing.assert_array_equal(_block_lls(block, 3), reference(block, 3))


def test_non_string_doc_hashes_are_text_like_any_logged_value(tmp_path: Path) -> None:
    """The reader builds its frame conforming by construction; a doc_hash that is not a
    string sends it through table.finalize, which writes it as text (None stays None)."""
    from evaladdon.table import finalize, validate

    rows = [{"doc_id": i, "doc": {}, "filter": "none", "metrics": ["acc"], "acc": i % 2, "doc_hash": h}
            for i, h in enumerate([5, None, "abc"])]
    p = tmp_path / "samples_t_2026-01-01T00-00-00.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    df = read_samples(p)
    assert df["item_hash"].tolist() == ["5", None, "abc"]
    validate(df)
    import pandas as pd

    pd.testing.assert_frame_equal(finalize(df), df)  # already canonical: finalize changes nothing
