"""``compare --errors bounds`` (issue 27 item 1): beside the difference, the worst case for the
candidate (its errored samples failed, the baseline's passed) and the best case (the reverse),
each with its paired interval.  Oracles: the cases counted by hand from the built Inspect logs,
scipy's t interval of the filled-in differences (``--interval t``), and a seeded Monte-Carlo
check that the bounds cover the difference whatever the errored samples would have scored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from scipy import stats as sps

from route_cases import errored_log

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("bounds")
    return (errored_log(root / "base.json", "bbase", 11, 0.08, 0.6, n_items=80),
            errored_log(root / "cand.json", "bcand", 12, 0.2, 0.7, n_items=80))


def _filled(path: Path, fill: float) -> dict[str, float]:
    """Each item's score read from the file (C = 1, I = 0), errored samples scored ``fill``."""
    out = {}
    for s in json.loads(path.read_text())["samples"]:
        out[s["id"]] = fill if not s.get("scores") else float(s["scores"]["match"]["value"] == "C")
    return out


def _hand(logs: tuple[Path, Path], fill_a: float, fill_b: float) -> np.ndarray:
    """The per-item differences B - A with the errored samples filled in (every id is in both logs)."""
    a, b = _filled(logs[0], fill_a), _filled(logs[1], fill_b)
    assert a.keys() == b.keys()
    return np.array([b[k] - a[k] for k in a])


def _record(cli: Cli, *args: Any) -> dict[str, Any]:
    rc, out, err = cli("compare", *args, "--json")
    assert rc == 0, err
    (r,) = json.loads(out)["results"]
    return r


def test_bounds_are_the_hand_counted_worst_and_best_case(cli: Cli, logs: tuple[Path, Path]) -> None:
    exclude = _record(cli, *logs)
    r = _record(cli, *logs, "--errors", "bounds")
    assert exclude["bounds"] is None and r["errors"] == "bounds"
    for key in ("delta", "ci_low", "ci_high", "n", "p_value"):  # the estimate is exclude's
        assert r[key] == exclude[key]
    worst, best = _hand(logs, 1.0, 0.0), _hand(logs, 0.0, 1.0)
    b = r["bounds"]
    assert b["worst"]["n"] == b["best"]["n"] == len(worst) == 80 > r["n"]
    assert b["worst"]["delta"] == pytest.approx(worst.mean()) and b["best"]["delta"] == pytest.approx(best.mean())
    assert b["ci_low"] == b["worst"]["ci_low"] and b["ci_high"] == b["best"]["ci_high"]
    assert b["worst"]["ci_low"] < b["worst"]["delta"] < b["worst"]["ci_high"]
    assert b["ci_low"] < worst.mean() <= r["delta"] <= best.mean() < b["ci_high"]
    # the default interval of 0/1 scores (Tango's) on the filled-in items, called directly
    from evaladdon.stats import compare_paired

    a1, b1 = _filled(logs[0], 1.0), _filled(logs[1], 0.0)
    direct = compare_paired(np.array(list(a1.values())), np.array([b1[k] for k in a1]))
    assert (b["worst"]["ci_low"], b["worst"]["ci_high"]) == pytest.approx((direct.ci_low, direct.ci_high))


def test_bounds_with_the_t_interval_match_scipy(cli: Cli, logs: tuple[Path, Path]) -> None:
    r = _record(cli, *logs, "--errors", "bounds", "--interval", "t", "--test", "t")
    for case, (fa, fb) in (("worst", (1.0, 0.0)), ("best", (0.0, 1.0))):
        d = _hand(logs, fa, fb)
        low, high = sps.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=sps.sem(d))
        got = r["bounds"][case]
        assert (got["ci_low"], got["ci_high"]) == pytest.approx((low, high), rel=1e-9)


def test_bounds_are_shown_in_text_markdown_and_html(cli: Cli, logs: tuple[Path, Path], tmp_path: Path) -> None:
    worst, best = 100 * _hand(logs, 1.0, 0.0).mean(), 100 * _hand(logs, 0.0, 1.0).mean()
    rc, _, err = cli("compare", *logs, "--errors", "bounds")
    assert rc == 0
    assert f"worst case (B's errored samples failed, A's passed) {worst:+.1f} points, 95% CI" in err
    assert f"best case (B's passed, A's failed) {best:+.1f} points" in err and "worst/best case below" in err
    rc, out, _ = cli("compare", *logs, "--errors", "bounds", "--markdown")
    assert rc == 0 and "worst case \\(B's errored samples failed, A's passed\\)" in out
    page = tmp_path / "r.html"
    rc, _, err = cli("report", *logs, "--errors", "bounds", "-o", page)
    assert rc == 0, err
    html = page.read_text()
    assert "worst case (B&#x27;s errored samples failed, A&#x27;s passed)" in html and f"{best:+.1f} points" in html
    rc, _, err = cli("compare", *logs)
    assert "worst case" not in err  # exclude: no bounds


def test_bounds_cover_the_difference_whatever_the_errored_samples_scored() -> None:
    """Monte Carlo (seeded): errors that fall on the items the candidate would have failed (not at
    random); the bounds [worst low, best high] still cover the difference on all items (>= 95 %),
    where the estimate on the samples that ran misses it badly."""
    from evaladdon.stats import compare_paired

    rng = np.random.default_rng(27)
    n, reps = 120, 300
    a = (rng.uniform(size=(reps, n)) < 0.6).astype(float)
    b = (rng.uniform(size=(reps, n)) < 0.6).astype(float)
    truth = b.mean(axis=1) - a.mean(axis=1)  # the difference had every sample run
    err_b = (b == 0) & (rng.uniform(size=(reps, n)) < 0.4)  # B errors where it would have failed
    err_a = rng.uniform(size=(reps, n)) < 0.05
    covered = missed_by_exclude = 0
    for k in range(reps):
        lo = compare_paired(np.where(err_a[k], 1.0, a[k]), np.where(err_b[k], 0.0, b[k])).ci_low
        hi = compare_paired(np.where(err_a[k], 0.0, a[k]), np.where(err_b[k], 1.0, b[k])).ci_high
        covered += lo <= truth[k] <= hi
        ran = ~(err_a[k] | err_b[k])
        ex = compare_paired(a[k][ran], b[k][ran])
        missed_by_exclude += not ex.ci_low <= truth[k] <= ex.ci_high
    assert covered / reps >= 0.95
    assert missed_by_exclude / reps > 0.2  # the bias the bounds guard against
