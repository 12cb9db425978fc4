"""``metrics --recalibrate temperature`` on real lm-eval multiple-choice logs: the exact K-choice
temperature, against scipy's ``minimize_scalar`` on the K-choice NLL of the log's own
``filtered_resps``; the same from the log files, from their export and from a store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np
import pytest
from scipy import optimize, special

NEGO = "lmeh_pr3936_negotiationtom_repeats/Qwen__Qwen3-8B"
STAMP = "2026-07-08T16-04-34.219874"


def _oracle_t(path: Path) -> float:
    """The temperature minimising the mean NLL of the gold choice over the log's records (one
    row per record: the reader keeps a doc's repeats as rows of their own)."""
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    z = np.array([[float(x[0]) for x in r["filtered_resps"]] for r in recs])
    gold = np.array([int(r["target"]) for r in recs])

    def nll(log_t: float) -> float:
        s = z / np.exp(log_t)
        return float(np.mean(special.logsumexp(s, axis=1) - s[np.arange(len(gold)), gold]))

    return float(np.exp(optimize.minimize_scalar(nll, bounds=(-7, 7), method="bounded",
                                                 options={"xatol": 1e-10}).x))


def test_real_logs_fit_the_exact_k_choice_temperature(real_logs: Path, tmp_path: Path,
                                                      cli: Callable[..., tuple[int, str, str]]) -> None:
    d = real_logs / NEGO
    files = [d / f"samples_negotiationtom_{t}_{STAMP}.jsonl" for t in ("belief", "desire")]
    want = _oracle_t(files[0])  # the validation task's records only
    args = ("--recalibrate", "temperature", "--validation", "task=negotiationtom_belief", "--n-boot", "200", "--json")
    code, out, err = cli("metrics", *map(str, files), *args)
    assert code == 0, err
    (rec,) = json.loads(out)["recalibration"]
    assert rec["task"] == "negotiationtom_desire" and rec["params"]["n_fit"] == 20
    assert rec["params"]["params"][0] == pytest.approx(want, rel=1e-4) and want > 1
    assert rec["params"]["fitted_on"].startswith("choice log-likelihoods")
    assert any("softmax over all 4 choices" in n for n in rec["notes"])
    assert rec["after"]["nll"]["estimate"] < rec["before"]["nll"]["estimate"]
    # the same numbers from the exported table and from a store
    table = tmp_path / "mc.parquet" if _has("pyarrow") else tmp_path / "mc.csv"
    assert cli("export", *map(str, files), "-o", str(table))[0] == 0
    code, out2, err = cli("metrics", str(table), *args)
    assert code == 0, err
    (rec2,) = json.loads(out2)["recalibration"]
    assert rec2["params"]["params"][0] == pytest.approx(rec["params"]["params"][0], rel=1e-12)
    assert rec2["after"]["ece"]["estimate"] == pytest.approx(rec["after"]["ece"]["estimate"], rel=1e-12)
    store = tmp_path / "store"
    assert cli("ingest", *map(str, files), "--store", str(store), "--quiet")[0] == 0
    code, out3, err = cli("metrics", "--store", str(store), *args)
    assert code == 0, err
    (rec3,) = json.loads(out3)["recalibration"]
    assert rec3["params"]["params"][0] == pytest.approx(rec["params"]["params"][0], rel=1e-12)


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True
