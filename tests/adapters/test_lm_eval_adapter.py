"""lm-eval outputs of every generation: the real logs in ../shared and crafted bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from evaladdon.adapters import read_runs, sniff
from evaladdon.adapters.lm_eval import (
    CORPUS_LEVEL,
    pair_results,
    read_results,
    read_results_file,
    read_samples,
    read_write_out,
    split_legacy_stem,
)
from evaladdon.errors import InputError
from evaladdon.analysis.summarize import summarize_table


def lm_files(root: Path) -> list[Path]:
    return sorted(f for pattern in ("lmeh_*/**/*", "pythia_*/**/*") for f in root.glob(pattern) if f.is_file())


def test_every_real_output_is_read_or_refused(real_logs: Path) -> None:
    kinds: dict[str, int] = {}
    for f in lm_files(real_logs):
        reader, what = sniff(f)
        if reader is None:
            assert f.suffix == ".md", f  # a markdown summary, not an output
            continue
        df = reader(f, None)
        kinds[what] = kinds.get(what, 0) + 1
        if what == "lm-eval results":
            assert df.empty and any("results only" in n for n in df.attrs["notes"])
        else:
            assert not df.empty and set(df["harness"]) == {"lm_eval"}
    assert kinds == {"lm-eval samples": 22, "lm-eval 0.3 write-out": 10, "lm-eval results": 33}


def test_item_means_reproduce_the_results_files(real_logs: Path) -> None:
    """For every task with results and samples: mean of item values == the 'metric,filter' value."""
    checked = 0
    for f in lm_files(real_logs):
        reader, _ = sniff(f)
        if reader is not read_samples:
            continue
        results_path, task = pair_results(f)
        if results_path is None:
            continue
        reported = read_results(results_path)["results"][task]
        ours = {s.metric: s.estimate.mean for s in summarize_table(read_samples(f), notes=[])}
        for key, value in reported.items():
            if "," not in key or "_stderr" in key or not isinstance(value, (int, float)):
                continue
            if key.split(",")[0] in ("micro_f1", "macro_f1", "f1", "bleu"):
                assert key not in ours  # corpus-level: flagged, never averaged
                continue
            assert ours[key] == pytest.approx(value, abs=1e-12), (f, key)
            checked += 1
    assert checked == 17


def test_legacy_pairing_refuses_another_models_results(real_logs: Path) -> None:
    folder = real_logs / "lmeh_bigrefactor_2023_output"
    assert pair_results(folder / "_winogrande.jsonl")[0] == folder / "w.json"
    assert pair_results(folder / "pretrained=EleutherAI__pythia-2.8b_winogrande.jsonl")[0] is None
    assert pair_results(real_logs / "lmeh_pr1668_wmdp_jsonarray" / "model__gpt-3.5-turbo-0125_wmdp_bio.jsonl") == (
        real_logs / "lmeh_pr1668_wmdp_jsonarray" / "results.json", "wmdp_bio")
    assert split_legacy_stem("pretrained=EleutherAI__pythia-2.8b_trivia_qa") == ("trivia_qa", "EleutherAI/pythia-2.8b")


def test_corpus_level_and_string_values(real_logs: Path) -> None:
    f = next((real_logs / "lmeh_pr3936_negotiationtom_repeats").rglob("samples_negotiationtom_intention_*.jsonl"))
    df = read_samples(f)
    f1 = df[df["metric"] == "micro_f1,none"]
    assert len(f1) == 20 and (f1["error"] == CORPUS_LEVEL).all() and f1["value"].isna().all()
    assert df.loc[df["metric"] == "exact_match,none", "error"].isna().all()
    assert set(df["item_hash"].str.len()) == {64}
    w = read_write_out(real_logs / "lmeh_pr1567_slurmevals_writeout" / "llama" / "truthfulqa_gen_write_out_info.json")
    assert w["error"].isna().all() and w["run"].iloc[0] == "llama"
    assert set(w["metric"]) >= {"bleu_acc", "rouge1_max"} and w["value"].notna().all()


def test_four_timestamped_runs_are_four_runs(real_logs: Path) -> None:
    loaded = read_runs([real_logs / "lmeh_pr3936_negotiationtom_repeats"])
    runs = loaded.table["run"].unique()
    assert len(runs) == 4 and all(r.startswith("Qwen/Qwen3-8B@2026-07-08T") for r in runs)


def test_results_with_nan_na_and_embedded_samples(tmp_path: Path) -> None:
    results = {
        "results": {"t": {"acc,none": float("nan"), "acc_stderr,none": "N/A", "x,none": float("inf")}},
        "config": {"model": "hf", "model_args": "pretrained=org/m"},
        "samples": {"t": [{"doc_id": i, "doc": {"g": i % 2}, "filter": "none", "metrics": ["acc"], "acc": v}
                          for i, v in enumerate([1, 0, True, "0.5", None])]},
    }
    p = tmp_path / "results_2026-01-01T00-00-00.json"
    p.write_text(json.dumps(results, allow_nan=True))
    assert "NaN" in p.read_text()
    df = read_results_file(p, cluster="g")
    assert df["model"].iloc[0] == "org/m" and df["run"].iloc[0] == "org/m@2026-01-01T00-00-00"
    assert df["value"].tolist()[:4] == [1.0, 0.0, 1.0, 0.5]
    assert df["error"].tolist()[4] == "missing value"
    assert df["cluster"].tolist() == ["0", "1", "0", "1", "0"]


def test_legacy_array_infers_filters_in_order(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text(json.dumps({
        "results": {"gsm": {"exact_match,strict-match": 0.5, "exact_match_stderr,strict-match": 0.1,
                            "exact_match,flexible-extract": 1.0}},
        "config": {"model": "hf", "model_args": "pretrained=a/b"}}))
    records = [{"doc_id": d, "doc": {}, "resps": [], "exact_match": v} for d, v in
               [(0, 1.0), (1, 0.0), (0, 1.0), (1, 1.0)]]  # doc order per filter, filters in results order
    (tmp_path / "pretrained=a__b_gsm.jsonl").write_text(json.dumps(records))
    df = read_samples(tmp_path / "pretrained=a__b_gsm.jsonl")
    means = df.groupby("metric")["value"].mean().to_dict()
    assert means == {"exact_match,strict-match": 0.5, "exact_match,flexible-extract": 1.0}


def test_bad_lm_eval_input(tmp_path: Path) -> None:
    cut = tmp_path / "samples_t_2026-01-01T00-00-00.jsonl"
    cut.write_text('{"doc_id": 0, "doc": {}, "resps": [], "acc": 1}\n{"doc_id": 1, "doc": {"a"')
    with pytest.raises(InputError, match=r"samples_t_2026-01-01T00-00-00.jsonl: line 2: not valid JSON"):
        read_samples(cut)
    nodoc = tmp_path / "samples_u_2026-01-01T00-00-00.jsonl"
    nodoc.write_text('{"doc_id": 0, "doc": {"x": 1}, "resps": [], "acc": 1}\n')
    with pytest.raises(InputError, match="has no scalar doc field 'passage'"):
        read_samples(nodoc, cluster="passage")
    broken = tmp_path / "results_2026-01-01T00-00-00.json"
    broken.write_text('{"results": {"t": {"acc,none": 0.5}')
    with pytest.raises(InputError, match="not valid JSON at line 1"):
        read_results_file(broken)


def test_sample_logs_match_the_harness(capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import REPO
    from evaladdon.cli.main import main

    folder = REPO / "sample_logs" / "lm_eval" / "dummy-seed1"
    results = json.loads(next(folder.glob("results_*.json")).read_text())["results"]["evaladdon_clustered_example"]
    assert main(["summarize", str(folder), "--metric", "acc,none", "--cluster", "passage_id", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["results"]
    assert row["mean"] == pytest.approx(results["acc,none"])
    assert row["se_item"] == pytest.approx(results["acc_stderr,none"])
    assert row["se_cluster"] == pytest.approx(results["acc_clustered_se,none"])
    assert math.isclose(row["mean"], results["acc_clustered,none"])


def test_samples_with_nan_literals_and_json_arrays(tmp_path: Path) -> None:
    p = tmp_path / "samples_t_2026-01-01T00-00-00.jsonl"
    p.write_text('{"doc_id": 0, "doc": {"c": {"id": 1}}, "resps": [], "filter": "none", "metrics": ["acc"], "acc": NaN}\n'
                 '{"doc_id": 1, "doc": {"c": {"id": 2}}, "resps": [], "filter": "none", "metrics": ["acc"], "acc": 1}\n')
    df = read_samples(p, cluster="c.id")
    assert df["error"].tolist() == ["non-finite value (NaN or Infinity)", None]
    assert df["cluster"].tolist() == ["1", "2"]
    arr = tmp_path / "pretrained=x_t.jsonl"
    arr.write_text(json.dumps([{"doc_id": 0, "doc": {}, "resps": [], "acc": 1.0, "bleu": ["a", "b"]}]))
    df = read_samples(arr)
    assert set(df["metric"]) == {"acc,none", "bleu,none"}
    assert df.set_index("metric").loc["bleu,none", "error"] == CORPUS_LEVEL
