"""``evaladdon watch`` on logs still being written, and ``compare --sequential`` on finished ones.

Growing logs are made the way the harnesses write them: an Inspect ``.eval`` zip holding
``_journal/start.json`` and the samples finished so far (members copied from a real log, in the
order Inspect wrote them), and an lm-eval samples ``.jsonl`` cut after k lines.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from evaladdon.stats.sequential.decide import first_decision, paired_sequence

Cli = Callable[..., tuple[int, str, str]]
SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"


def _partial_eval(src: Path, dst: Path, k: int) -> Path:
    """The first ``k`` samples of ``src`` as Inspect holds them while the run is going (deflate members)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        samples = [n for n in zin.namelist() if n.startswith("samples/")][:k]
        for name in ["_journal/start.json", *samples]:
            zout.writestr(name, zin.read(name))
    return dst


def test_watch_rereads_a_growing_eval_log(cli: Cli, real_logs: Path, tmp_path: Path) -> None:
    src = sorted((real_logs / "inspect_ai_logsets" / "set").glob("*.eval"))[0]
    log = tmp_path / "running.eval"
    seen = []
    for k in (10, 40, 100):
        _partial_eval(src, log, k)
        code, out, err = cli("watch", log, "--once", "--json")
        assert code == 0, err
        (res,) = json.loads(out)["results"]
        seen.append(res["n"])
        assert res["ci_low"] <= res["estimate"] <= res["ci_high"]
    assert seen == [10, 40, 100]


def _lm_rows(n: int, p: float, seed: int) -> list[dict[str, object]]:
    rng = np.random.default_rng(seed)
    return [{"doc_id": i, "doc": {"q": f"q{i}"}, "target": "1", "arguments": [], "resps": [], "filtered_resps": [],
             "filter": "none", "metrics": ["acc"], "acc": float(rng.random() < p), "doc_hash": f"h{i}"}
            for i in range(n)]


def _write_lm(folder: Path, rows: list[dict[str, object]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "samples_toy_2026-01-01T00-00-00.000000.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_watch_with_baseline_decides_a_regression_on_a_growing_lm_eval_file(cli: Cli, tmp_path: Path) -> None:
    base_rows = _lm_rows(600, 0.9, 1)
    cand_rows = [dict(r, acc=0.0 if i % 2 else r["acc"]) for i, r in enumerate(base_rows)]  # half the passes lost
    base = _write_lm(tmp_path / "base", base_rows)
    cand = _write_lm(tmp_path / "cand", cand_rows[:30])
    code, out, err = cli("watch", cand, "--baseline", base, "--margin", "2pt", "--once", "--json")
    first = json.loads(out)["results"][0]
    assert code == 0 and first["decision"] == "undecided" and first["n"] == 30
    _write_lm(tmp_path / "cand", cand_rows[:400])
    code, out, err = cli("watch", cand, "--baseline", base, "--margin", "2pt", "--once")
    assert code == 1 and "regression decided" in err and "regression" in out
    a = np.array([r["acc"] for r in base_rows[:400]])
    b = np.array([r["acc"] for r in cand_rows[:400]])
    ref = first_decision(paired_sequence(a, b), margin=0.02)
    assert f"holds from item {ref.t} of 400" in out and f"saves {ref.saved} items" in out


def test_watch_polls_until_nothing_new_arrives(cli: Cli, tmp_path: Path) -> None:
    log = _write_lm(tmp_path / "run", _lm_rows(50, 0.5, 3))
    code, out, err = cli("watch", log, "--interval", "0.01", "--max-polls", "5")
    assert code == 0 and out.count("anytime-valid") == 2  # the second read found nothing new
    code, out, err = cli("watch", log, "--interval", "0")
    assert code == 2 and "--interval" in err and "Traceback" not in err


def test_compare_sequential_on_a_finished_pair(cli: Cli, tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    n = 300
    a = (rng.random(n) < 0.8).astype(float)
    b = np.where(rng.random(n) < 0.3, 0.0, a)
    rows = [{"run": r, "task": "t", "metric": "acc", "item": f"i{i}", "value": v[i]}
            for r, v in (("old", a), ("new", b)) for i in range(n)]
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    ref = first_decision(paired_sequence(a, b), margin=0.0)
    code, out, err = cli("compare", path, "--sequential", "--baseline", "old", "--json")
    (res,) = json.loads(out)["results"]
    assert code == 0 and (res["decision"], res["decided_at"], res["saved"]) == (ref.decision, ref.t, ref.saved)
    code, out, err = cli("compare", path, "--sequential", "--baseline", "old", "--fail-on-regression", "--markdown")
    assert code == 1 and out.startswith("**anytime-valid") and "| new | old |" in out
    code, out, err = cli("compare", path, "--sequential", "--cluster", "x")
    assert code == 2 and err.count("\n") == 1


def test_watch_copies_of_shipped_logs(cli: Cli, tmp_path: Path) -> None:
    shutil.copy(SAMPLES / "inspect" / "candidate.eval", tmp_path / "c.eval")
    code, out, err = cli("watch", tmp_path / "c.eval", "--baseline", SAMPLES / "inspect" / "baseline.eval", "--once")
    assert code == 0 and "undecided" in out
    code, out, err = cli("watch", tmp_path / "missing.eval", "--once")
    assert code == 2 and "Traceback" not in err


def test_power_sequential_beside_the_fixed_plan(cli: Cli) -> None:
    code, out, err = cli("power", "--paired", "--sd", "1", "--delta", "0.2", "--sequential", "--reps", "100", "--json")
    res = json.loads(out)
    seq = res["sequential"]
    assert code == 0 and seq["fixed_n"] == res["n"] and seq["under_effect"]["horizon"] == 3 * res["n"]
    assert seq["under_effect"]["mean_n"] < seq["under_zero"]["mean_n"] and seq["under_zero"]["wrong"] <= 0.1
    code, out, err = cli("power", "--paired", "--discordance", "0.3", "--delta", "10pt", "--sequential", "--reps", "20",
                         "--sequence", "bernstein")
    assert code == 0 and "sequential plan (empirical Bernstein" in out and "fixed-n plan" in out
    code, out, err = cli("power", "--paired", "--sd", "1", "--n", "100", "--sequential")
    assert code == 2 and "--delta" in err and err.count("\n") == 1
