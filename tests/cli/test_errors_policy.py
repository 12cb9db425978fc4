"""``--errors exclude|fail|bounds`` end to end (issue 27 item 1): the numbers each policy gives on
Inspect logs with errored samples (counted from the log itself), the error rate in every output
mode, the compare's exact McNemar on errored-vs-not, and the gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest
from scipy.stats import binomtest

from route_cases import errored_log

Cli = Callable[..., tuple[int, str, str]]


def _counts(path: Path) -> tuple[int, int, int]:
    """(correct, scored, errored) of a one-epoch log, read from the file."""
    samples = json.loads(path.read_text())["samples"]
    scored = [s for s in samples if s.get("scores")]
    correct = sum(s["scores"]["match"]["value"] == "C" for s in scored)
    return correct, len(scored), len(samples) - len(scored)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("errors")
    return (errored_log(root / "base.json", "errbase", 1, 0.03, 0.6, n_items=120),
            errored_log(root / "cand.json", "errcand", 2, 0.25, 0.7, n_items=120))


def _record(cli: Cli, *args: Any) -> list[dict[str, Any]]:
    rc, out, err = cli(*args, "--json")
    assert rc == 0, err
    return json.loads(out)["results"]


def test_summarize_each_policy_gives_the_counted_mean(cli: Cli, logs: tuple[Path, Path]) -> None:
    cand = logs[1]
    correct, scored, errored = _counts(cand)
    assert errored > 20  # about a quarter errored or hit a limit
    total = scored + errored
    (exclude,) = _record(cli, "summarize", cand)
    (fail,) = _record(cli, "summarize", cand, "--errors", "fail")
    (bounds,) = _record(cli, "summarize", cand, "--errors", "bounds")
    assert exclude["errors"] == "exclude" and exclude["mean"] == pytest.approx(correct / scored)
    assert exclude["n_items"] == scored and exclude["n_errors"] == errored
    assert exclude["error_rate"] == pytest.approx(errored / total) and exclude["bounds"] is None
    assert fail["errors"] == "fail" and fail["mean"] == pytest.approx(correct / total)  # score_on_error: 0
    assert fail["n_items"] == total and fail["n_errors"] == errored and fail["dropped"] == {}
    assert fail["error_rate"] == pytest.approx(errored / total)
    assert bounds["mean"] == exclude["mean"] and bounds["ci_low"] == exclude["ci_low"]
    b = bounds["bounds"]
    assert b["worst"] == pytest.approx(correct / total) and b["best"] == pytest.approx((correct + errored) / total)
    assert b["ci_low"] == pytest.approx(fail["ci_low"]) and b["ci_low"] < b["worst"] < b["best"] < b["ci_high"]


def test_the_error_rate_is_shown_in_text_and_markdown(cli: Cli, logs: tuple[Path, Path]) -> None:
    correct, scored, errored = _counts(logs[1])
    total = scored + errored
    rc, out, err = cli("summarize", logs[1])
    assert rc == 0
    assert f"{errored} of {total} sample(s) errored ({errored / total:.1%}); --errors exclude: left out of the mean" in err
    assert "note: errored samples: --errors exclude" in err
    rc, out, _ = cli("summarize", logs[1], "--markdown", "--errors", "bounds")
    assert rc == 0 and "--errors bounds" in out and "with every errored sample failed" in out
    rc, out, err = cli("summarize", logs[1], "--errors", "fail")
    assert f"{correct / total:.3f}" in out and "--errors fail: scored 0 (failed)" in err


def _shared_errors(logs: tuple[Path, Path]) -> tuple[int, int, int]:
    """(items both attempted, errored only in A, errored only in B), from the files."""
    err = []
    for path in logs:
        samples = json.loads(path.read_text())["samples"]
        err.append({s["id"] for s in samples if not s.get("scores")})
    n = len(json.loads(logs[0].read_text())["samples"])
    return n, len(err[0] - err[1]), len(err[1] - err[0])


def test_compare_tests_the_error_rates_and_the_gate_fails(cli: Cli, logs: tuple[Path, Path]) -> None:
    n, only_a, only_b = _shared_errors(logs)
    (r,) = _record(cli, "compare", *logs)
    t = r["error_test"]
    assert (t["n"], t["only_a"], t["only_b"]) == (n, only_a, only_b)
    assert t["p_value"] == pytest.approx(binomtest(only_b, only_a + only_b, 0.5).pvalue)
    assert r["errors"] == "exclude" and r["error_rate_b"] == pytest.approx(t["errors_b"] / n)
    assert r["n_errors_b"] == t["errors_b"]  # one epoch: errored rows = errored items
    assert t["p_value"] < 0.05 and only_b > only_a
    rc, out, err = cli("compare", *logs, "--fail-on-regression")
    assert rc == 1 and "the candidate errors significantly more" in err
    assert "exact McNemar on errored-vs-not" in err
    # --errors fail: the errors are scored in the difference; the error rates alone gate nothing
    rc, out, err = cli("compare", *logs, "--fail-on-regression", "--errors", "fail")
    assert rc == 0, err
    # baseline and candidate swapped: the candidate errors less, nothing to fail
    rc, _, err = cli("compare", logs[1], logs[0], "--fail-on-regression")
    assert rc == 0, err


def test_compare_fail_scores_errored_items_zero(cli: Cli, logs: tuple[Path, Path]) -> None:
    (r,) = _record(cli, "compare", *logs, "--errors", "fail")
    correct_a, scored_a, errored_a = _counts(logs[0])
    correct_b, scored_b, errored_b = _counts(logs[1])
    assert r["n"] == scored_a + errored_a == scored_b + errored_b
    assert r["mean_a"] == pytest.approx(correct_a / r["n"]) and r["mean_b"] == pytest.approx(correct_b / r["n"])
    assert r["dropped_a"] == {} and r["errors"] == "fail" and r["n_errors_b"] == errored_b


def test_html_report_shows_the_error_rates(cli: Cli, logs: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    rc, _, err = cli("report", *logs, "-o", out)
    assert rc == 0, err
    page = out.read_text()
    assert "sample(s) errored" in page and "exact McNemar on errored-vs-not" in page


def test_a_metric_family_refuses_fail(cli: Cli, logs: tuple[Path, Path]) -> None:
    rc, _, err = cli("compare", *logs, "--metric", "f1_macro", "--errors", "fail")
    assert rc == 2 and "--errors fail applies to means of item scores" in err


def test_real_logs_without_errors_are_the_same_under_every_policy(cli: Cli, real_logs: Path) -> None:
    """The corpus holds no Inspect log with an errored sample (checked: none of its samples has
    ``error``); on a 5-epoch log every policy gives the default's numbers and 0 errors."""
    logs = sorted((real_logs / "inspect_ai_logsets").rglob("*.eval"))
    if not logs:
        pytest.skip("no Inspect log sets in the real-log corpus")
    records = {e: _record(cli, "summarize", logs[0], "--errors", e) for e in ("exclude", "fail", "bounds")}
    for e, recs in records.items():
        for got, want in zip(recs, records["exclude"], strict=True):
            assert got["n_errors"] == 0 and got["error_rate"] == 0 and got["errors"] == e
            assert got["mean"] == want["mean"] and got["ci_low"] == want["ci_low"] and got["bounds"] is None


def test_metrics_pass_at_k_counts_errored_attempts_as_failed(cli: Cli, tmp_path: Path) -> None:
    """``metrics --errors fail``: an errored epoch is a failed attempt for pass@k (counted from the log)."""
    path = errored_log(tmp_path / "e.json", "ep", 3, 0.2, 0.6, n_items=30, epochs=3)
    samples = json.loads(path.read_text())["samples"]
    by_item: dict[str, list[int]] = {}
    for s in samples:
        ok = bool(s.get("scores")) and s["scores"]["match"]["value"] == "C"
        by_item.setdefault(s["id"], []).append(int(ok))
    want_pass1 = sum(sum(v) / len(v) for v in by_item.values()) / len(by_item)
    rc, out, err = cli("metrics", path, "--errors", "fail", "--json")
    assert rc == 0, err
    doc = json.loads(out)
    (group,) = doc["groups"]
    assert group["metrics"]["pass@1"]["estimate"] == pytest.approx(want_pass1) and group["dropped"] == {}
    assert any("--errors fail" in n for n in doc["notes"])
    rc, out, _ = cli("metrics", path, "--json")
    (group,) = json.loads(out)["groups"]
    assert sum(group["dropped"].values()) == sum(1 for s in samples if not s.get("scores"))
