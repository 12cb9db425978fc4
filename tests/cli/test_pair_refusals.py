"""The refusal when the runs are not two names only the asking command's own options: ``gate``,
``watch``, ``compare --sequential``, ``judge drift`` and ``export --flips`` have ``--baseline`` but
no ``--all-pairs`` (:func:`evaladdon.table.names.pairs_needed`); ``compare`` offers both."""

from __future__ import annotations

import argparse
import csv
import json
import re
from pathlib import Path
from typing import Callable

import pytest

from evaladdon.cli.main import build_parser

Cli = Callable[..., tuple[int, str, str]]


def _three(path: Path) -> Path:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "task", "metric", "item", "value"])
        w.writerows([m, "t", "acc", i, int((i * 7 + k) % 5 < 3)] for k, m in enumerate("abc") for i in range(40))
    return path


def _options(command: str) -> set[str]:
    """Every option string of the subcommand ``command``."""
    action = next(a for a in build_parser([command])._actions if isinstance(a, argparse._SubParsersAction))
    return {s for a in action.choices[command]._actions for s in a.option_strings}


@pytest.mark.parametrize(("argv", "says"), [
    (["gate", "{policy}"], "gate needs exactly two, or --baseline RUN"),
    (["watch", "--once"], "watch reads one run or two, or --baseline RUN"),
    (["compare", "--sequential"], "compare --sequential needs exactly two, or --baseline RUN"),
    (["judge", "drift"], "judge drift needs exactly two, or --baseline RUN"),
    (["export", "--flips", "-o", "{out}"], "export --flips needs exactly two, or --baseline RUN"),
    (["compare"], "compare needs exactly two, or --baseline RUN, or --all-pairs"),
])
def test_each_command_names_its_own_options(tmp_path: Path, cli: Cli, argv: list[str], says: str) -> None:
    data = _three(tmp_path / "three.csv")
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps({"benchmarks": [{"task": "t", "tier": "critical", "max_drop": "2pt"}]}))
    args = [a.format(policy=policy, out=tmp_path / "f.csv") for a in argv]
    at = 2 if argv[0] in ("gate", "judge") else 1
    code, out, err = cli(*args[:at], data, *args[at:])
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err == f"evaladdon: error: {data}: found 3 runs (a, b, c); {says}\n"
    named = set(re.findall(r"--[a-z][a-z-]*", says))
    assert named <= _options(argv[0]), named
