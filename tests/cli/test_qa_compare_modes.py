"""QA: options a command does not read are refused in one line (exit 2), never silently ignored:
``compare --rules`` / ``--sequential`` meet the paired table's options, ``--min-size`` without
``--by``, ``--sequence`` without ``--sequential``, a negative ``summarize --flaky``; and a
``--flaky`` / ``--max-flaky`` over runs without repeats says it had nothing to judge."""

from __future__ import annotations

import json
from typing import Callable

import pytest

from conftest import REPO

S = REPO / "sample_logs" / "inspect"
A, B = S / "baseline.eval", S / "candidate.eval"
Cli = Callable[..., tuple[int, str, str]]


def _refused(got: tuple[int, str, str], *words: str) -> None:
    code, out, err = got
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert all(w in err for w in words), err


@pytest.mark.parametrize("extra", [["--flips"], ["--by", "passage.id"], ["--equivalence", "2pt"], ["--errors", "fail"],
                                   ["--max-flaky", "0.2"], ["--all-pairs"], ["--test", "t"], ["--adjust", "bh"]])
def test_sequential_refuses_what_it_does_not_read(cli: Cli, extra: list[str]) -> None:
    _refused(cli("compare", A, B, "--sequential", *extra), "--sequential does not take", extra[0])


@pytest.mark.parametrize("extra", [["--flips"], ["--by", "passage.id"], ["--sequential"], ["--fail-on-regression"],
                                   ["--margin", "2pt"], ["--equivalence", "2pt"], ["--errors", "bounds"]])
def test_rules_refuses_what_it_does_not_read(cli: Cli, extra: list[str]) -> None:
    _refused(cli("compare", A, B, "--rules", "exact", *extra), "--rules does not take", extra[0])


def test_each_mode_still_takes_its_own_options(cli: Cli) -> None:
    code, out, _ = cli("compare", A, B, "--rules", "exact,normalized", "--cluster", "passage.id", "--json")
    assert code == 0 and json.loads(out)["results"][0]["rules"][0]["n_clusters"] == 12
    code, out, _ = cli("compare", A, B, "--sequential", "--sequence", "bernstein", "--margin", "2pt",
                       "--fail-on-regression", "--json")
    assert code in (0, 1) and json.loads(out)["results"]


def test_unread_companions_refused(cli: Cli) -> None:
    _refused(cli("compare", A, B, "--rules", " , "), "--rules", "one or more scoring rules")
    _refused(cli("compare", A, B, "--min-size", "5"), "--min-size 5", "--by")
    _refused(cli("summarize", A, "--min-size", "5"), "--min-size 5", "--by")
    _refused(cli("compare", A, B, "--sequence", "mixture"), "--sequence", "--sequential")
    _refused(cli("summarize", A, "--flaky", "-2"), "--flaky -2")


def test_flaky_without_repeats_says_so(cli: Cli, tmp_path: object) -> None:
    from built_logs import inspect_base, write_inspect_json

    header, samples = inspect_base()
    one = [s for s in samples if s.get("epoch", 1) == 1]
    path = write_inspect_json(tmp_path / "one.json", header, one)  # type: ignore[operator]
    code, out, err = cli("summarize", path, "--flaky")
    assert code == 0 and "every item has one attempt" in err
    code, out, _ = cli("summarize", path, "--flaky", "--json")
    assert any("every item has one attempt" in n for n in json.loads(out)["notes"])
