"""SWE-bench per-instance outcomes -> 0/1 rows clustered by repository (evaladdon.adapters.swe_bench).

No SWE-bench/experiments snapshot could be fetched here, so the files are built to the formats the
harness writes (``swebench.harness.reporting.make_run_report``, schema_version 2; the per-instance
``report.json`` of ``run_evaluation``) and the experiments repository's
``evaluation/<split>/<date_system>/results/{results.json, resolved_by_repo.json}``
(``{"no_generation": [...], "no_logs": [...], "resolved": [...]}``, unresolved instances not listed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

REPOS = {"django/django": 12, "sympy/sympy": 8, "astropy/astropy": 6, "pytest-dev/pytest": 4}


def split_ids() -> list[str]:
    return [f"{r.replace('/', '__')}-{1000 + k}" for r, n in REPOS.items() for k in range(n)]


def build_experiments(root: Path, skills: tuple[float, ...] = (0.2, 0.45, 0.7), seed: int = 0,
                      unnamed: int = 3) -> dict[str, set[str]]:
    """One folder per system, as SWE-bench/experiments keeps them; the last ``unnamed`` instances
    are resolved by no system and listed by none."""
    rng = np.random.default_rng(seed)
    ids = split_ids()
    listed = ids[:-unnamed] if unnamed else ids
    out = {}
    for s, skill in enumerate(skills):
        u = rng.random(len(listed))
        res = [i for i, x in zip(listed, u, strict=True) if x < skill]
        nogen = [i for i, x in zip(listed, u, strict=True) if x > 0.97]
        d = root / "verified" / f"2025010{s}_system{s}" / "results"
        d.mkdir(parents=True)
        (d / "results.json").write_text(json.dumps({"no_generation": nogen, "no_logs": [], "resolved": res}))
        by_repo = {r: {"resolved": sum(i.startswith(r.replace("/", "__") + "-") for i in res), "total": n}
                   for r, n in REPOS.items()}
        (d / "resolved_by_repo.json").write_text(json.dumps(by_repo))
        out[f"2025010{s}_system{s}"] = set(res)
    return out


def _json(cli: Any, *args: object) -> dict[str, Any]:
    code, out, err = cli(*args, "--json")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def test_repository_of_an_instance_id() -> None:
    from evaladdon.adapters.swe_bench import repository

    got = repository(["scikit-learn__scikit-learn-10297", "pytest-dev__pytest-5103", "django__django-11099",
                      "sympy/sympy#unnamed-2", "odd-id"])
    assert list(got) == ["scikit-learn/scikit-learn", "pytest-dev/pytest", "django/django", "sympy/sympy", "odd-id"]


def test_experiments_leaderboard_reproduces_percent_resolved(cli: Any, tmp_path: Path) -> None:
    resolved = build_experiments(tmp_path)
    got = _json(cli, "summarize", tmp_path)
    total = sum(REPOS.values())
    recs = {r["run"]: r for r in got["results"]}
    assert set(recs) == set(resolved)
    for run, res in resolved.items():
        assert recs[run]["mean"] == pytest.approx(len(res) / total, abs=1e-12)
        assert recs[run]["n_items"] == total and recs[run]["n_clusters"] == len(REPOS)
        assert recs[run]["task"] == "verified" and recs[run]["metric"] == "resolved"
    notes = "\n".join(got["notes"])
    assert notes.count("the rows reproduce its % resolved") == 3 and "DOES NOT" not in notes
    assert "resolved_by_repo.json" not in notes.replace("(resolved_by_repo.json totals)", "")  # read through results.json


def test_rows_pair_across_systems_and_unnamed_are_zero(tmp_path: Path) -> None:
    from evaladdon.adapters import load

    resolved = build_experiments(tmp_path)
    t = load([tmp_path])
    per_run = t.groupby("run")["item"].apply(frozenset)
    assert len(set(per_run)) == 1  # every system has the same instances
    un = t[t["item"].str.contains("#unnamed-")]
    assert len(un) == 3 * 3 and (un["value"] == 0).all() and set(un["cluster"]) == {"pytest-dev/pytest"}
    for run, res in resolved.items():
        rows = t[t["run"] == run]
        assert set(rows.loc[rows["value"] == 1, "item"]) == res
    assert set(t["meta.status"]) >= {"resolved", "not resolved", "not named by any submission"}


def test_rank_gives_rank_intervals_and_tiers(cli: Any, tmp_path: Path) -> None:
    build_experiments(tmp_path, skills=(0.05, 0.5, 0.95), seed=1)
    code, out, err = cli("rank", tmp_path)
    assert code == 0, err
    assert "tier" in out and "rank range" in out and "4 units" in out


def _run_report(path: Path, resolved: list[str], unresolved: list[str], empty: list[str], error: list[str],
                incomplete: list[str]) -> Path:
    """``make_run_report``'s file (schema_version 2)."""
    completed = sorted(resolved + unresolved)
    doc = {"total_instances": len(completed + empty + error + incomplete),
           "submitted_instances": len(completed + empty + error), "completed_instances": len(completed),
           "resolved_instances": len(resolved), "unresolved_instances": len(unresolved),
           "empty_patch_instances": len(empty), "error_instances": len(error), "completed_ids": completed,
           "incomplete_ids": incomplete, "empty_patch_ids": empty, "submitted_ids": sorted(completed + empty + error),
           "resolved_ids": resolved, "unresolved_ids": unresolved, "error_ids": error, "schema_version": 2}
    path.write_text(json.dumps(doc, indent=4))
    return path


def test_harness_run_report(cli: Any, tmp_path: Path) -> None:
    ids = split_ids()
    p = _run_report(tmp_path / "org__model.run1.json", ids[:9], ids[9:25], ids[25:27], ids[27:28], ids[28:])
    got = _json(cli, "summarize", p)
    (rec,) = got["results"]
    assert rec["mean"] == pytest.approx(9 / 30) and rec["n_items"] == 30 and rec["n_clusters"] == 4
    notes = "\n".join(got["notes"])
    assert "reproduce its % resolved (9/30" in notes
    assert "2 empty patch, 1 error, 2 incomplete" in notes


def test_per_instance_reports_in_a_run_folder(cli: Any, tmp_path: Path) -> None:
    ids = split_ids()[:10]
    for k, i in enumerate(ids):
        d = tmp_path / "logs" / "run_evaluation" / "run1" / "org__model" / i
        d.mkdir(parents=True)
        (d / "report.json").write_text(json.dumps({i: {"patch_is_None": False, "patch_exists": True,
                                                       "patch_successfully_applied": True, "resolved": k % 3 == 0,
                                                       "tests_status": {}}}))
    got = _json(cli, "summarize", tmp_path / "logs")
    (rec,) = got["results"]
    assert rec["run"] == "org__model@run1" and rec["n_items"] == 10 and rec["mean"] == pytest.approx(4 / 10)


def test_bad_files_are_one_line(cli: Any, tmp_path: Path) -> None:
    d = tmp_path / "verified" / "x" / "results"
    d.mkdir(parents=True)
    (d / "results.json").write_text('{"resolved": [1, 2]}')
    code, _, err = cli("summarize", d / "results.json")
    assert code == 2 and "Traceback" not in err and "instance ids" in err


def _coverage(clustered: bool, sd: float = 0.5, mu: float = -0.3, reps: int = 400, seed: int = 7) -> float:
    """Coverage of the population % resolved by summarize's default interval over ``reps`` simulated
    leaderboards of 12 repositories of unequal size (40 ... 3 instances) with a normal(0, sd)
    repository effect on the logit (all replicates are runs of one table: one summarize call)."""
    from scipy import integrate, stats

    from evaladdon.analysis.summarize import summarize_table
    from evaladdon.adapters.swe_bench import repository
    from evaladdon.table import finalize

    truth = integrate.quad(lambda z: stats.norm.pdf(z, 0, sd) / (1 + np.exp(-(mu + z))), -12, 12)[0]
    rng = np.random.default_rng(seed)
    sizes = np.array([40, 30, 25, 20, 15, 12, 10, 8, 6, 5, 4, 3])
    repos = np.repeat([f"own{k}__repo{k}" for k in range(len(sizes))], sizes)
    ids = np.array([f"{r}-{j}" for j, r in enumerate(repos)], dtype=object)
    n = len(ids)
    eta = mu + np.repeat(rng.normal(0, sd, (reps, len(sizes))), sizes, axis=1)
    y = (rng.random((reps, n)) < 1 / (1 + np.exp(-eta))).astype(float)
    df = finalize(pd.DataFrame({
        "run": np.repeat([f"r{k}" for k in range(reps)], n), "source": "s", "harness": "swe_bench", "task": "t",
        "model": "m", "metric": "resolved", "item": np.tile(ids, reps), "epoch": 1, "value": y.ravel(), "raw": "x",
        "cluster": np.tile(repository(ids), reps) if clustered else None, "item_hash": None, "error": None}))
    sums = summarize_table(df)
    lo = np.array([s.estimate.ci_low for s in sums])
    hi = np.array([s.estimate.ci_high for s in sums])
    return float(np.mean((lo <= truth) & (truth <= hi)))


def test_default_repository_clusters_cover() -> None:
    """Seeded Monte-Carlo of the reader's default (clusters = repositories; summarize's CR2 t interval):
    coverage >= 93 %; the same rows without clusters (instances as independent) cover far less."""
    clustered, naive = _coverage(True), _coverage(False)
    assert clustered >= 0.93, clustered
    assert naive < 0.85, naive
