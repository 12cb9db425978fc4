"""compare, power, judge and export from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar


from conftest import REPO, run_cli

SAMPLE = REPO / "sample_logs" / "table" / "checkpoints.csv"


def binary_runs(tmp_path: Path, hashes_differ: bool = False) -> tuple[Path, Path]:
    rng = np.random.default_rng(0)
    p = rng.uniform(0.1, 0.9, 120)
    a = (rng.random(120) < p).astype(int)
    b = (rng.random(120) < np.clip(p + 0.1, 0, 1)).astype(int)
    ids = [f"i{i}" for i in range(120)]
    pa, pb = tmp_path / "a.csv", tmp_path / "b.csv"
    ha = [f"h{i}" for i in range(120)]
    hb = [f"h{i}" if not (hashes_differ and i < 3) else f"x{i}" for i in range(120)]
    pd.DataFrame({"id": ids, "score": a, "doc_hash": ha, "model": "base"}).to_csv(pa, index=False)
    pd.DataFrame({"id": ids[5:] + ["extra"], "score": list(b[5:]) + [1], "doc_hash": hb[5:] + ["hx"],
                  "model": "cand"}).to_csv(pb, index=False)
    return pa, pb


def test_compare_two_files_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pa, pb = binary_runs(tmp_path)
    code, out, _ = run_cli(capsys, "compare", str(pa), str(pb), "--json")
    assert code == 0
    (r,) = json.loads(out)["results"]
    for key in ("task", "metric", "n", "mean_a", "mean_b", "delta", "se_paired", "se_unpaired", "ci_low", "ci_high",
                "n10", "n01", "p_value", "test", "mcnemar_exact_p"):
        assert key in r
    assert r["n"] == 115 and r["only_a"] == 5 and r["only_b"] == 1
    a = pd.read_csv(pa).set_index("id").loc[[f"i{i}" for i in range(5, 120)], "score"].to_numpy()
    b = pd.read_csv(pb).set_index("id").loc[[f"i{i}" for i in range(5, 120)], "score"].to_numpy()
    n10, n01 = int(np.sum((a == 1) & (b == 0))), int(np.sum((a == 0) & (b == 1)))
    assert (r["n10"], r["n01"]) == (n10, n01)
    assert r["mcnemar_exact_p"] == pytest.approx(sm_mcnemar([[0, n10], [n01, 0]], exact=True).pvalue)
    assert r["test"] == "mcnemar" and r["p_value"] == r["mcnemar_exact_p"]
    assert r["mde"] is not None and r["mde"] > 0


def test_compare_hash_mismatch_warns_or_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pa, pb = binary_runs(tmp_path, hashes_differ=True)
    # the first 3 items differ, but the first 5 are not in b: make b share them
    df_b = pd.read_csv(pb)
    df_b.loc[len(df_b)] = ["i3", 1, "zzz", "cand"]
    df_b.to_csv(pb, index=False)
    code, out, err = run_cli(capsys, "compare", str(pa), str(pb))
    assert code == 0 and "different content hashes" in err
    code, _, err = run_cli(capsys, "compare", str(pa), str(pb), "--strict")
    assert code == 2 and "--strict" in err and err.count("\n") == 1


def test_compare_cluster_and_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "compare", str(SAMPLE), "--cluster", "passage_id", "--json")
    (r,) = json.loads(out)["results"]
    assert code == 0 and r["n_clusters"] == 60 and r["se_cluster"] == r["se"]
    # reversed roles: ckpt-1000 is worse than ckpt-2000, so with it as candidate the gate fires
    code, out, err = run_cli(capsys, "compare", str(SAMPLE), "--baseline", "ckpt-2000", "--fail-on-regression")
    assert code == 1 and "regression shown" in out and "regression shown" in err
    code, out, _ = run_cli(capsys, "compare", str(SAMPLE), "--baseline", "ckpt-2000", "--fail-on-regression",
                           "--margin", "0.5")
    assert code == 0 and "no regression shown within m" in out


def test_compare_many_runs_adjusts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(1)
    rows = []
    for model, shift in (("m0", 0), ("m1", 0.05), ("m2", 0.1)):
        for task in ("t1", "t2"):
            for i in range(80):
                rows.append({"model": model, "task": task, "id": f"{task}-{i}", "score": int(rng.random() < 0.5 + shift)})
    p = tmp_path / "many.csv"
    pd.DataFrame(rows).to_csv(p, index=False)
    code, out, _ = run_cli(capsys, "compare", str(p), "--baseline", "m0", "--json")
    res = json.loads(out)["results"]
    assert code == 0 and len(res) == 4
    from statsmodels.stats.multitest import multipletests

    assert [r["p_adjusted"] for r in res] == pytest.approx(multipletests([r["p_value"] for r in res], method="holm")[1])
    code, _, err = run_cli(capsys, "compare", str(p))
    assert code == 2 and "found 3 runs" in err


def test_compare_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "compare", str(SAMPLE), "--markdown")
    assert code == 0 and "| task/metric |" in out and "this set can detect" in out


def test_power_cli_values(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "power", "--n", "198", "--p-a", "0.5", "--p-b", "0.5", "--json")
    r = json.loads(out)
    assert code == 0 and r["mde"] == pytest.approx(0.140785, abs=5e-7) and r["variance"] == 0.5
    code, out, _ = run_cli(capsys, "power", "--delta", "0.05", "--paired", "--sd", "0.4", "--json")
    r = json.loads(out)
    assert isinstance(r["n"], int) and r["n"] == int(np.ceil((1.959964 + 0.841621) ** 2 * 0.16 / 0.0025))
    code, out, _ = run_cli(capsys, "power", "--n", "500", "--sd", "0.5", "--epochs", "4", "--icc", "0.3", "--json")
    r = json.loads(out)
    assert r["variance"] == pytest.approx(2 * 0.25 * (0.3 + 0.7 / 4))
    code, out, _ = run_cli(capsys, "power", "--pilot", str(SAMPLE), "--delta", "0.03", "--json")
    r = json.loads(out)
    assert code == 0 and r["pilot"]["n"] == 300 and r["n"] > 300


@pytest.mark.parametrize(
    "args,message",
    [
        (["power", "--n", "100"], "exactly one design"),
        (["power", "--sd", "0.5"], "give --n"),
        (["power", "--n", "100", "--discordance", "0.2"], "add --paired"),
        (["power", "--delta", "0.3", "--paired", "--discordance", "0.2"], "below the discordance"),
        (["power", "--n", "100", "--sd", "0.5", "--epochs", "3"], "--epochs needs --icc"),
    ],
)
def test_power_errors(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, _, err = run_cli(capsys, *args)
    assert code == 2 and message in err and err.count("\n") == 1


def test_judge_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(3)
    n = 600
    truth = (rng.random(n) < 0.6).astype(int)
    judge = np.where(truth == 1, rng.random(n) < 0.9, rng.random(n) < 0.25).astype(int)
    run = tmp_path / "run.csv"
    pd.DataFrame({"id": [f"q{i}" for i in range(n)], "score": judge, "model": "m"}).to_csv(run, index=False)
    labels = tmp_path / "labels.csv"
    pd.DataFrame({"id": [f"q{i}" for i in range(150)], "human": truth[:150]}).to_csv(labels, index=False)
    code, out, _ = run_cli(capsys, "judge", "--labels", str(labels), str(run), "--json")
    (r,) = json.loads(out)["results"]
    assert code == 0
    for key in ("sensitivity", "specificity", "kappa", "n_labelled", "observed", "corrected", "se", "ci_low",
                "ci_high", "method"):
        assert key in r
    expected = (judge.mean() + r["specificity"] - 1) / (r["sensitivity"] + r["specificity"] - 1)
    assert r["corrected"] == pytest.approx(expected)
    code, out, _ = run_cli(capsys, "judge", "--labels", str(labels), str(run), "--method", "ppi++", "--json")
    assert code == 0 and json.loads(out)["results"][0]["method"] == "ppi++"
    bad = tmp_path / "bad.csv"
    bad.write_text("id,human\nq1,maybe\n")
    code, _, err = run_cli(capsys, "judge", "--labels", str(bad), str(run))
    assert code == 2 and "bad.csv: row 1: human label 'maybe' is not 0/1" in err


def test_export_roundtrip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.jsonl"
    code, _, err = run_cli(capsys, "export", str(SAMPLE), "-o", str(out))
    assert code == 0 and "wrote 1800 rows" in err
    df = pd.read_json(out, lines=True)
    assert len(df) == 1800 and {"run", "item", "epoch", "value"} <= set(df.columns)
    code, _, err = run_cli(capsys, "export", str(SAMPLE), "-o", str(tmp_path / "t.xlsx"))
    assert code == 2 and "unsupported output type" in err
