"""``evaladdon gate POLICY RUNS``: per-benchmark verdicts, the overall verdict and its exit code,
in text, --json and --markdown, on long tables built so that each verdict is known in advance."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
import pytest

Cli = Callable[..., tuple[int, str, str]]


def _task(rng: np.random.Generator, task: str, n: int, shift: float, noise: float) -> pd.DataFrame:
    a = rng.uniform(0.3, 0.7, n)
    e = rng.normal(0, noise, n)
    b = a + shift + (e - e.mean())  # the observed difference is exactly ``shift``
    ids = [f"{task}-{i}" for i in range(n)]
    return pd.concat([pd.DataFrame({"model": m, "task": task, "id": ids, "score": v}) for m, v in (("base", a), ("cand", b))])


def runs(path: Path) -> Path:
    """Tasks whose verdict at max_drop 2pt is known: ``go`` (no change, SE 0.1pt), ``nogo`` (-20
    points), ``edge`` (exactly -2 points, SE 0.1pt: the CI straddles -2), ``small`` (10 items, SE
    6pt: cannot detect 2 points), ``same`` (identical scores)."""
    rng = np.random.default_rng(1)
    parts = [_task(rng, "go", 400, 0.0, 0.02), _task(rng, "nogo", 400, -0.2, 0.02),
             _task(rng, "edge", 400, -0.02, 0.02), _task(rng, "small", 10, 0.0, 0.2), _task(rng, "same", 50, 0.0, 0.0)]
    pd.concat(parts).to_csv(path, index=False)
    return path


def policy(path: Path, benchmarks: list[dict[str, Any]], **top: Any) -> Path:
    path.write_text(json.dumps({**top, "benchmarks": benchmarks}))
    return path


def verdicts(out: str) -> dict[str, str]:
    (gate,) = json.loads(out)["results"]
    return {b["benchmark"]: b["verdict"] for b in gate["benchmarks"]}


def test_each_verdict(tmp_path: Path, cli: Cli) -> None:
    data = runs(tmp_path / "runs.csv")
    pol = policy(tmp_path / "p.json", [{"task": t, "tier": "advisory", "max_drop": "2pt"}
                                       for t in ("go", "nogo", "edge", "small", "absent")], adjust="none")
    code, out, err = cli("gate", pol, data, "--baseline", "base", "--json")
    assert code == 0, err  # advisory: never the exit code
    assert verdicts(out) == {"go": "GO", "nogo": "NO-GO", "edge": "INCONCLUSIVE", "small": "INSUFFICIENT-EVIDENCE",
                             "absent": "MISSING"}
    (gate,) = json.loads(out)["results"]
    small = next(b for b in gate["benchmarks"] if b["benchmark"] == "small")
    c = small["comparison"]
    # n needed: the normal plan on the observed per-item variance, (z_.975 + z_.8)^2 Var(d) / m^2
    from scipy.stats import norm

    var = c["se"] ** 2 * c["n"]
    assert small["n_needed"] == pytest.approx((norm.ppf(0.975) + norm.ppf(0.8)) ** 2 * var / 0.02**2, rel=0.02)
    assert "items would detect 2.0 points" in small["why"] and small["mde"] > 0.02
    assert gate["verdict"] == "GO" and gate["exit_code"] == 0


@pytest.mark.parametrize("tiers, extra, code, overall", [
    ({"nogo": "critical", "go": "critical"}, {}, 1, "NO-GO"),
    ({"nogo": "supporting", "go": "critical"}, {}, 1, "NO-GO"),
    ({"nogo": "supporting", "go": "critical"}, {"max_supporting_no_go": 1}, 0, "GO"),
    ({"nogo": "advisory", "go": "critical"}, {}, 0, "GO"),
    ({"absent": "critical", "go": "critical"}, {}, 2, "MISSING"),
    ({"absent": "critical", "go": "critical"}, {"missing": "fail"}, 1, "MISSING"),
    ({"absent": "supporting", "go": "critical"}, {}, 0, "GO"),
    ({"absent": "critical", "nogo": "critical"}, {}, 1, "NO-GO"),
    ({"small": "critical", "go": "critical"}, {}, 0, "INCONCLUSIVE"),
    ({"edge": "critical", "go": "critical"}, {"inconclusive": "fail"}, 1, "INCONCLUSIVE"),
])
def test_the_exit_rule(tmp_path: Path, cli: Cli, tiers: dict[str, str], extra: dict[str, Any], code: int,
                       overall: str) -> None:
    data = runs(tmp_path / "runs.csv")
    pol = policy(tmp_path / "p.json", [{"task": t, "tier": tier, "max_drop": "2pt"} for t, tier in tiers.items()],
                 **extra)
    got, out, err = cli("gate", pol, data, "--baseline", "base", "--json")
    assert got == code, err
    assert json.loads(out)["results"][0]["verdict"] == overall
    got, out, _ = cli("gate", pol, data, "--baseline", "base")
    assert got == code and out.startswith(f"gate: {overall} (exit {code})")


def test_equivalence_mode_agrees_with_ttost_paired(tmp_path: Path, cli: Cli) -> None:
    weightstats = pytest.importorskip("statsmodels.stats.weightstats", reason="statsmodels is not installed")
    data = runs(tmp_path / "runs.csv")
    pol = policy(tmp_path / "p.json", [{"task": t, "tier": "critical", "max_drop": "2pt", "mode": "equivalence"}
                                       for t in ("go", "nogo", "small")], adjust="none")
    code, out, err = cli("gate", pol, data, "--baseline", "base", "--json")
    assert code == 1, err
    (gate,) = json.loads(out)["results"]
    df = pd.read_csv(data)
    for b in gate["benchmarks"]:
        rows = df[df.task == b["task"]]
        a, c = rows[rows.model == "base"].score.to_numpy(), rows[rows.model == "cand"].score.to_numpy()
        p, _, _ = weightstats.ttost_paired(c, a, -0.02, 0.02)
        assert b["equivalence"]["p_value"] == pytest.approx(p, rel=1e-6, abs=1e-300)
    assert verdicts(out) == {"go": "GO", "nogo": "NO-GO", "small": "INSUFFICIENT-EVIDENCE"}


def test_relative_drop_and_units(tmp_path: Path, cli: Cli) -> None:
    data = runs(tmp_path / "runs.csv")
    # edge: a drop of exactly 2 points (SE 0.1 point); with max_drop 10pt and max_relative_drop 2% the allowed
    # drop is the smaller, 2 % of the baseline's ~0.5 = 1 point -> NO-GO
    pol = policy(tmp_path / "p.json", [{"task": "edge", "tier": "critical", "max_drop": "10pt",
                                        "max_relative_drop": "2%"}])
    code, out, _ = cli("gate", pol, data, "--baseline", "base", "--json")
    (b,) = json.loads(out)["results"][0]["benchmarks"]
    assert b["margin"] == pytest.approx(0.02 * b["comparison"]["mean_a"]) and b["verdict"] == "NO-GO" and code == 1
    bad = policy(tmp_path / "q.json", [{"task": "edge", "tier": "critical", "max_drop": 2}])
    code, _, err = cli("gate", bad, data, "--baseline", "base")
    assert code == 2 and err.startswith(f"evaladdon: error: {bad}: benchmarks[0].max_drop (edge/score): ")
    assert "2pt" in err and err.count("\n") == 1


def test_markdown_is_escaped_and_a_policy_error_is_one_line(tmp_path: Path, cli: Cli) -> None:
    data = runs(tmp_path / "runs.csv")
    pol = policy(tmp_path / "p.json", [{"task": "nogo", "name": "<img src=x>|@team", "tier": "critical",
                                        "max_drop": "2pt"}])
    code, md, _ = cli("gate", pol, data, "--baseline", "base", "--markdown")
    assert code == 1 and md.startswith("### evaladdon gate: NO-GO (exit 1)")
    assert re.search(r"(?<!\\)<img", md) is None and "\\<img src=x\\>\\|@&#8203;team" in md and "| verdict | why |" in md
    broken = tmp_path / "broken.yaml"
    broken.write_text("benchmarks:\n  - task: a\n    tier: blocker\n    max_drop: 2pt\n")
    code, out, err = cli("gate", broken, data)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"evaladdon: error: {broken}: benchmarks[0].tier: 'blocker' is not one of")  # not the run's


def test_the_real_sample_logs(cli: Cli, tmp_path: Path) -> None:
    from conftest import REPO

    pol = policy(tmp_path / "p.json", [{"task": "reading", "tier": "critical", "max_drop": "5pt"}])
    base, cand = REPO / "sample_logs" / "inspect" / "baseline.eval", REPO / "sample_logs" / "inspect" / "candidate.eval"
    code, out, err = cli("gate", pol, base, cand, "--json")
    assert code == 0, err
    (b,) = json.loads(out)["results"][0]["benchmarks"]
    assert b["verdict"] in ("GO", "INCONCLUSIVE", "INSUFFICIENT-EVIDENCE") and b["comparison"]["n"] == 60


def test_real_inspect_logs_of_three_models(real_logs: Path, cli: Cli, tmp_path: Path) -> None:
    """Three models on the same 10 items (epochs): each candidate judged against the baseline;
    10 items cannot detect a 5-point drop, so the gate says how many would."""
    pol = policy(tmp_path / "p.json", [{"task": "popularity", "tier": "critical", "max_drop": "5pt"}],
                 inconclusive="fail")
    code, out, err = cli("gate", pol, real_logs / "inspect_ai_logsets" / "set2", "--baseline", "openai/gpt-5", "--json")
    (gate,) = json.loads(out)["results"]
    assert code == 1 and gate["verdict"] == "INCONCLUSIVE", err
    assert len(gate["benchmarks"]) == 2 and {b["candidate"] for b in gate["benchmarks"]} == {
        "google/gemini-2.5-pro", "anthropic/claude-sonnet-4-20250514"}
    for b in gate["benchmarks"]:
        assert b["verdict"] == "INSUFFICIENT-EVIDENCE" and b["n_needed"] > b["comparison"]["n"] == 10
        assert b["comparison"]["adjust_method"] == "holm"


def test_a_test_that_does_not_apply_is_missing_with_its_reason(tmp_path: Path, cli: Cli) -> None:
    data = runs(tmp_path / "runs.csv")
    pol = policy(tmp_path / "p.json", [{"task": "go", "tier": "critical", "max_drop": "2pt"},
                                       {"task": "nogo", "tier": "supporting", "max_drop": "2pt", "test": "mcnemar"}])
    code, out, err = cli("gate", pol, data, "--baseline", "base", "--json")
    assert code == 0, err  # a supporting benchmark MISSING is shown, not blocking
    (gate,) = json.loads(out)["results"]
    nogo = next(b for b in gate["benchmarks"] if b["task"] == "nogo")
    assert nogo["verdict"] == "MISSING" and nogo["why"].startswith("not compared with test mcnemar: ")
    assert "mcnemar needs 0/1 scores" in nogo["why"]


def test_a_benchmark_listed_twice_is_one_line_exit_2(tmp_path: Path, cli: Cli) -> None:
    data = runs(tmp_path / "runs.csv")
    pol = policy(tmp_path / "twice.json", [{"task": "go", "tier": "critical", "max_drop": "2pt"},
                                           {"task": "nogo", "tier": "critical", "max_drop": "2pt"},
                                           {"task": "go", "tier": "advisory", "max_drop": "1pt"}])
    code, out, err = cli("gate", pol, data, "--baseline", "base")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err == f"evaladdon: error: {pol}: benchmarks[2]: task 'go' is listed twice (also benchmarks[0]): keep one line per benchmark\n"


def test_two_patterns_matching_one_comparison_are_one_line_exit_2(tmp_path: Path, cli: Cli) -> None:
    """``n*`` and ``nogo`` both match task nogo: it would be judged twice (in two tiers); refused,
    naming both benchmarks.  Patterns that do not overlap are judged as before."""
    data = runs(tmp_path / "runs.csv")
    pol = policy(tmp_path / "overlap.json", [{"task": "go", "tier": "critical", "max_drop": "2pt"},
                                             {"task": "n*", "tier": "critical", "max_drop": "2pt"},
                                             {"task": "nogo", "tier": "advisory", "max_drop": "1pt"}])
    code, out, err = cli("gate", pol, data, "--baseline", "base")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"evaladdon: error: {pol}: task 'nogo', metric ") and "benchmarks[1] (n*)" in err
    assert "benchmarks[2] (nogo)" in err and "judged by one benchmark" in err
    apart = policy(tmp_path / "apart.json", [{"task": "g*", "tier": "critical", "max_drop": "2pt"},
                                             {"task": "nogo", "tier": "advisory", "max_drop": "1pt"}])
    assert cli("gate", apart, data, "--baseline", "base")[0] in (0, 1)
