"""The error rate and the ``--errors`` policy note (issue 27 item 3): one wording
(:mod:`evaladdon.report.errors`) in every output mode of summarize, compare, metrics and the HTML
report, counted again from the log; and ``--quiet`` keeps the lines that count what was left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

from evaladdon.report.errors import must_stay, policy_note, rate_line, rate_text
from route_cases import errored_log

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("wording")
    return (errored_log(root / "base.json", "wbase", 21, 0.05, 0.6, n_items=100),
            errored_log(root / "cand.json", "wcand", 22, 0.2, 0.7, n_items=100))


def _errored(path: Path) -> tuple[int, int]:
    samples = json.loads(path.read_text())["samples"]
    return sum(not s.get("scores") for s in samples), len(samples)


def _plain(text: str) -> str:
    """Markdown's escapes undone (``sample\\(s\\)`` -> ``sample(s)``)."""
    return text.replace("\\", "")


def test_the_one_wording() -> None:
    assert rate_text(3, 120) == "3 of 120 sample(s) errored (2.5%)"
    assert rate_text(3, 120, "item(s)") == "3 of 120 item(s) errored (2.5%)"
    assert rate_line("r / t / m", 3, 120, "exclude", "left out of the mean") == \
        "note: r / t / m: 3 of 120 sample(s) errored (2.5%); --errors exclude: left out of the mean"
    assert policy_note("fail", 4) == "note: errored samples: --errors fail (4 errored row(s) in all)"
    assert must_stay("warning: r / t / m: 3 row(s) left out (3 sample error)")
    assert must_stay("note: r / t / m: 3 of 120 sample(s) errored (2.5%); --errors exclude: left out of the mean")
    assert must_stay("warning: b vs a / t / m: 1 item(s) only in A, 0 only in B (left out)")
    assert must_stay(policy_note("exclude", 2)) and not must_stay(policy_note("exclude", 0))
    assert not must_stay("note: r / t / m: the interval falls back to Wilson")
    assert must_stay("note: b vs a / t / m: worst case (B's errored samples failed, A's passed) -1.0 points, ...")


def test_every_mode_states_the_rate_and_the_policy(cli: Cli, logs: tuple[Path, Path], tmp_path: Path) -> None:
    n_err, n = _errored(logs[1])
    rate = rate_text(n_err, n)
    outputs = {}
    for cmd in ("summarize", "metrics"):
        rc, out, err = cli(cmd, logs[1])
        assert rc == 0
        outputs[f"{cmd} text"] = out + err  # metrics writes its notes under its table, on stdout
        rc, out, _ = cli(cmd, logs[1], "--markdown")
        outputs[f"{cmd} markdown"] = _plain(out)
    page = tmp_path / "r.html"
    assert cli("report", *logs, "-o", page)[0] == 0
    import html

    outputs["report"] = html.unescape(page.read_text())
    for mode, text in outputs.items():
        assert rate in text, mode
        assert "errored samples: --errors exclude (" in text, mode
    # compare: both runs' rates on the items both attempted (one epoch: items = samples)
    a_err, _ = _errored(logs[0])
    rc, _, err = cli("compare", *logs)
    rc, md, _ = cli("compare", *logs, "--markdown")
    both = f"A {rate_text(a_err, n, 'item(s)')}, B {rate_text(n_err, n, 'item(s)')}"
    for mode, text in (("compare text", err), ("compare markdown", _plain(md)), ("report", outputs["report"])):
        assert both in text and "errored samples: --errors exclude (" in text, mode
    rc, out, _ = cli("metrics", logs[1], "--json")
    assert any(rate in note for note in json.loads(out)["notes"])
    rc, out, _ = cli("summarize", logs[1], "--json")
    (rec,) = json.loads(out)["results"]
    assert (rec["n_errors"], rec["error_rate"]) == (n_err, pytest.approx(n_err / n))


def test_quiet_keeps_the_left_out_counts(cli: Cli, logs: tuple[Path, Path], tmp_path: Path) -> None:
    n_err, n = _errored(logs[1])
    rate = rate_text(n_err, n)
    rc, _, err = cli("summarize", logs[1], "--quiet")
    lines = err.splitlines()
    assert rc == 0 and any(rate in x for x in lines) and any("row(s) left out (" in x for x in lines)
    assert any(x.startswith("note: errored samples: --errors exclude") for x in lines)
    assert all(must_stay(x) for x in lines)  # the incomplete-log warning and other notes are gone
    rc, _, full = cli("summarize", logs[1])
    assert len(full.splitlines()) > len(lines)
    rc, _, err = cli("compare", *logs, "--quiet")
    assert "row(s) of B left out (" in err and "item(s) errored" in err and all(map(must_stay, err.splitlines()))
    rc, _, err = cli("compare", *logs, "--quiet", "--errors", "bounds")
    assert "worst case (B's errored samples failed" in err  # asked for: kept
    rc, out, err = cli("metrics", logs[1], "--quiet")
    assert rate in out + err
    clean = errored_log(tmp_path / "clean.json", "wclean", 23, 0.0, 0.6, n_items=40)
    samples = json.loads(clean.read_text())["samples"]
    for s in samples:  # no errors and no limits at all
        s.pop("limit", None)
        s["scores"] = {"match": {"value": "C"}}
    doc = json.loads(clean.read_text())
    doc["samples"] = samples
    clean.write_text(json.dumps(doc))
    rc, _, err = cli("summarize", clean, "--quiet")
    assert rc == 0 and "errored" not in err and "left out" not in err
