"""Issue 28 item 6: re-scoring from logged answers and targets (``evaladdon rescore``) and a
comparison under each scoring rule (``compare --rules``).

Oracles: Inspect's own ``match_str`` (the ``exact`` rule is its ``location="exact",
ignore_case=False, ignore_punctuation=False``), SQuAD's ``normalize_answer`` (the reference code,
written out below), a per-row float comparison for ``numeric``, Python's ``re`` per row for
``regex``; on real Inspect logs the ``exact`` rule reproduces the logged ``match`` score of every run."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import pytest

from evaladdon.analysis.rescore import parse_rule, rescore_table, rule_scores
from evaladdon.errors import EvalAddonError

Cli = Callable[..., tuple[int, str, str]]
ANSWERS = ["The cat.", "  1,000 $", "x", None, "abc", "Paris", "the answer is 42", "3.14159", "B) red", "Yes"]
TARGETS = ["cat", "1000", '["y", "x"]', "a", "ABC", "Paris", "42", "3.14", "red", " Yes"]


def squad_normalize(s: str) -> str:  # SQuAD v1.1 evaluate script, normalize_answer
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def _targets(t: str) -> list[str]:
    return json.loads(t) if t.startswith("[") else [t]


def _oracle(rule: str) -> list[float]:
    out = []
    for a, t in zip(ANSWERS, TARGETS, strict=True):
        if a is None:
            out.append(np.nan)
            continue
        hit = False
        for target in _targets(t):
            if rule == "exact":
                inspect_common = pytest.importorskip("inspect_ai.scorer._common")
                hit |= inspect_common.match_str(a, target, location="exact", ignore_case=False,
                                                ignore_punctuation=False)[1]
            elif rule == "normalized":
                hit |= squad_normalize(a) == squad_normalize(target)
            elif rule.startswith("numeric"):
                tol = float(rule.partition(":")[2] or 0)
                na = re.findall(r"-?\d+(?:\.\d+)?", re.sub(r"[$€£,*_]", "", a))
                nt = re.findall(r"-?\d+(?:\.\d+)?", re.sub(r"[$€£,*_]", "", target))
                hit |= bool(na and nt and abs(float(na[-1]) - float(nt[0])) <= max(tol, 1e-9 * abs(float(nt[0]))))
            else:
                m = re.search(rule.partition(":")[2], a)
                got = (m.group(1) if m and m.re.groups else m.group(0) if m else None)
                hit |= got is not None and got.strip() == target.strip()
        out.append(float(hit))
    return out


@pytest.mark.parametrize("rule", ["exact", "normalized", "numeric", "numeric:0.01", r"regex:\b(red|blue)\b",
                                  r"regex:\d+"])
def test_rules_equal_their_oracles(rule: str) -> None:
    got = rule_scores(pd.Series(ANSWERS), pd.Series(TARGETS), parse_rule(rule))
    np.testing.assert_array_equal(got, _oracle(rule))


@pytest.mark.parametrize("bad", ["exactly", "numeric:x", "numeric:-1", "regex:(", "regex:", "normalized:1"])
def test_a_bad_rule_is_refused_in_one_line(bad: str) -> None:
    with pytest.raises(EvalAddonError, match="rule"):
        parse_rule(bad)


def test_exact_reproduces_the_logged_match_scores(real_logs: Path) -> None:
    from evaladdon.adapters.read import read_runs

    got = read_runs([real_logs / "inspect_ai_logsets" / "set2"])
    table = getattr(got, "table", got)
    out = rescore_table(table, [parse_rule("exact")])
    means = out.groupby(["run", "metric"])["value"].mean().unstack()
    assert list(means.columns) == ["match", "match [exact]"]
    np.testing.assert_allclose(means["match [exact]"], means["match"], atol=1e-12)


def _reversing_table(path: Path, n: int = 40) -> Path:
    """A answers 'Yes' right on half the items; B answers 'yes' (lower case) on 90 %: B is worse
    under ``exact`` and better under ``normalized``."""
    rng = np.random.default_rng(3)
    a = np.where(rng.random(n) < 0.5, "Yes", "No")
    b = np.where(np.arange(n) < int(0.9 * n), "yes", "No")
    b[: n // 10] = "Yes"
    rows = [{"run": run, "task": "t", "item": f"q{i}", "prediction": p, "label": "Yes", "value": float(p == "Yes")}
            for run, preds in (("A", a), ("B", b)) for i, p in enumerate(preds)]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_compare_rules_flags_a_reversed_ranking(tmp_path: Path, cli: Cli) -> None:
    path = _reversing_table(tmp_path / "runs.csv")
    code, out, err = cli("compare", path, "--rules", "exact,normalized")
    assert code == 0, err
    assert "RANKING REVERSES: B is better under normalized and worse under logged, exact" in out + err
    assert "rule normalized: lower case" in out
    code, out, _ = cli("compare", path, "--rules", "exact,normalized", "--json")
    (rc,) = json.loads(out)["results"]
    by_rule = {r["rule"]: r for r in rc["rules"]}
    assert by_rule["exact"]["delta"] == pytest.approx(0.1 - np.mean(_reversing_a()), abs=1e-12)
    assert by_rule["normalized"]["delta"] > 0 > by_rule["exact"]["delta"]
    assert by_rule["exact"]["test"] == "mcnemar-exact" or by_rule["exact"]["mcnemar_exact_p"] is not None


def _reversing_a(n: int = 40) -> np.ndarray:
    rng = np.random.default_rng(3)
    return (rng.random(n) < 0.5).astype(float)


def test_rescore_command_and_its_errors(tmp_path: Path, cli: Cli) -> None:
    path = _reversing_table(tmp_path / "runs.csv")
    code, out, _ = cli("rescore", path, "--rule", "normalized", "--json")
    assert code == 0
    got = {(r["run"], r["rule"]): r["mean"] for r in json.loads(out)["results"]}
    assert got[("B", "normalized")] == pytest.approx(0.9) and got[("B", "logged")] == pytest.approx(0.1)
    code, _, err = cli("rescore", path, "--rule", "regex:(")
    assert code == 2 and err.startswith("evaladdon: error: --rule: rule 'regex:(': not a regular expression")
    assert len(err.strip().splitlines()) == 1
    no_answers = tmp_path / "plain.csv"
    pd.DataFrame({"run": ["A"], "item": ["1"], "value": [1.0]}).to_csv(no_answers, index=False)
    code, _, err = cli("rescore", no_answers, "--rule", "exact")
    assert code == 2 and "no answers and targets to re-score" in err
