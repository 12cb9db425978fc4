"""lm-eval multiple choice: the choices' logits in the optional column ``choice_lls``.

Oracle: the log's own ``filtered_resps`` read with ``json`` here (acc rows: the log-likelihoods;
acc_norm rows: divided by the choice's length, lm-eval's ``acc_norm``), scipy's softmax of them
at the prediction equal to ``confidence``; the fast and the general reading paths give the same
column; ``export`` (csv, jsonl, parquet) and the long-table reader keep it exactly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
import pytest
from scipy.special import softmax

from evaladdon.adapters import read_runs
from evaladdon.adapters.tuning import ReadTuning

NEGO = "lmeh_pr3936_negotiationtom_repeats/Qwen__Qwen3-8B"


def _mc_file(tmp_path: Path, n: int = 40, seed: int = 0, norm: bool = False, widths: tuple[int, ...] = (4,)) -> Path:
    """lm-eval 0.4.7+ samples of ``n`` docs with random log-likelihoods (``widths``: choices per doc,
    cycled), an ``acc`` (and with ``norm`` an ``acc_norm``) metric, and a generation-like metric."""
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        k = widths[i % len(widths)]
        lls = (-rng.gamma(2.0, 3.0, k)).tolist()
        conts = [" " + "x" * int(rng.integers(1, 9)) for _ in range(k)]
        rec: dict[str, Any] = {"doc_id": i, "doc": {"q": i}, "target": int(rng.integers(0, k)), "filter": "none",
                               "metrics": ["acc", "acc_norm"] if norm else ["acc"], "doc_hash": f"h{i}",
                               "arguments": {f"gen_args_{j}": {"arg_0": "Q:", "arg_1": c} for j, c in enumerate(conts)},
                               "resps": [[[x, False]] for x in lls], "filtered_resps": [[x, False] for x in lls]}
        rec["acc"] = float(int(np.argmax(lls)) == rec["target"])
        if norm:
            rec["acc_norm"] = float(int(np.argmax(np.array(lls) / [len(c) - 1 for c in conts])) == rec["target"])
        lines.append(json.dumps(rec))
    path = tmp_path / f"samples_mc{seed}_2026-01-01T00-00-00.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _oracle(path: Path) -> dict[tuple[str, str], np.ndarray]:
    """(doc id, metric) -> the logits lm-eval's acc / acc_norm argmax, from the log itself."""
    out = {}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        ll = np.array([float(x[0]) for x in r["filtered_resps"]])
        out[(str(r["doc_id"]), "acc,none")] = ll
        args = r.get("arguments")
        if isinstance(args, dict) and "acc_norm" in r:
            lens = np.array([len(a["arg_1"]) - 1 for a in args.values()], dtype=float)  # minus the " " delimiter
            out[(str(r["doc_id"]), "acc_norm,none")] = ll / lens
    return out


def _check(df: pd.DataFrame, oracle: dict[tuple[str, str], np.ndarray]) -> int:
    mc = df[df["choice_lls"].notna()]
    for item, metric, text, conf, pred in zip(mc["item"], mc["metric"], mc["choice_lls"], mc["confidence"],
                                              mc["prediction"], strict=True):
        z = np.array(json.loads(text))
        assert np.array_equal(z, oracle[(item, metric)]), (item, metric)  # exactly: a round-trip float text
        assert pred == str(int(np.argmax(z))) and float(conf) == pytest.approx(softmax(z).max(), rel=1e-12)
    return len(mc)


@pytest.mark.parametrize("fast", [True, False])
def test_acc_and_acc_norm_rows_carry_their_logits(tmp_path: Path, fast: bool) -> None:
    path = _mc_file(tmp_path, norm=True, widths=(4, 3, 5))
    df = read_runs([path], tuning=ReadTuning(fast_records=fast)).table
    assert _check(df, _oracle(path)) == 80  # 40 acc + 40 acc_norm rows, 3 to 5 choices each


def test_fast_and_general_paths_give_the_same_column(tmp_path: Path) -> None:
    path = _mc_file(tmp_path, n=3000, seed=3)
    a = read_runs([path]).table["choice_lls"]
    b = read_runs([path], tuning=ReadTuning(fast_records=False, lm_flush=7)).table["choice_lls"]
    assert a.notna().all() and a.astype(str).tolist() == b.astype(str).tolist()


def test_rows_without_logits_have_none_and_other_harnesses_no_column(tmp_path: Path) -> None:
    path = _mc_file(tmp_path, n=6)
    lines = path.read_text().splitlines()
    bad = json.loads(lines[1])
    bad["filtered_resps"][0][0] = "not a number"  # this doc's logits unusable: no prediction either
    lines[1] = json.dumps(bad)
    path.write_text("\n".join(lines) + "\n")
    df = read_runs([path]).table
    assert df["choice_lls"].isna().tolist() == df["prediction"].isna().tolist() == [False, True] + [False] * 4
    table = tmp_path / "t.csv"
    pd.DataFrame({"run": "r", "task": "t", "model": "m", "metric": "acc", "item": ["1", "2"], "epoch": 1,
                  "value": [1.0, 0.0]}).to_csv(table, index=False)
    assert "choice_lls" not in read_runs([table]).table


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_export_and_read_back_keep_the_column(tmp_path: Path, suffix: str,
                                             cli: Callable[..., tuple[int, str, str]]) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow", reason="parquet export needs pyarrow")
    path = _mc_file(tmp_path, n=30, norm=True, widths=(2, 4))
    out = tmp_path / f"table{suffix}"
    code, _, err = cli("export", str(path), "-o", str(out))
    assert code == 0, err
    back = read_runs([out]).table
    assert "meta.choice_lls" not in back and _check(back, _oracle(path)) == 60


def test_real_logs_carry_the_logged_loglikelihoods(real_logs: Path) -> None:
    files = sorted((real_logs / NEGO).glob("samples_negotiationtom_[bd]*.jsonl"))
    assert files, "the negotiationtom samples"
    n = 0
    for f in files:
        df = read_runs([f]).table
        oracle = {}
        for line in f.read_text().splitlines():  # repeats of a doc: one record per repeat, same logits
            r = json.loads(line)
            oracle[(str(r["doc_id"]), "acc,none")] = np.array([float(x[0]) for x in r["filtered_resps"]])
        n += _check(df[df["metric"] == "acc,none"], oracle)
    assert n >= 160
