"""Scoring-rule sensitivity: re-score a stored run from its logged answers and targets, without
calling any model, and see whether a comparison depends on the rule.

A scoring rule (answer normalisation) is an analysis choice with the same standing as the model
under test: a trivial change of normalisation can reverse which of two systems is better.  The
rules, each stated in every output (:meth:`Rule.describe`):

``exact``
    the answer equals a target after stripping surrounding whitespace, case-sensitive (Inspect's
    ``match(location="exact", ignore_case=False)``; lm-eval's ``exact_match`` with its defaults).
``normalized``
    SQuAD's ``normalize_answer`` (Rajpurkar et al. 2016; the normalisation of Inspect's ``f1`` and
    ``exact`` scorers): lower case, punctuation removed, the articles *a*, *an*, *the* removed,
    whitespace collapsed; then equality.
``numeric[:TOL]``
    the last number in the answer and the target's number (currency symbols ``$ € £``, thousands
    separators and ``*``/``_`` markers stripped, as Inspect's ``match(numeric=True)``) differ by at
    most ``TOL`` (default 0, with a relative 1e-9 for floating-point noise); in a target with
    ``#### `` (GSM8K's worked answers, as lm-eval logs them) the number after the last ``####``.
``regex:PATTERN``
    the first match of ``PATTERN`` in the answer (its first group when it has one) equals a target,
    both stripped, case-sensitive.

Inputs are the canonical table's optional ``prediction`` (the logged answer: Inspect's score
``answer``) and ``label`` (the target; several targets as a JSON array, any one matching) columns.
A row with no logged answer keeps no value and is counted under ``no logged answer``.

The comparison under each rule is the ordinary paired comparison
(:func:`evaladdon.analysis.compare_table.compare_table`: exact McNemar on 0/1 items, the
discordance table), so the numbers side by side are the ones ``compare`` would give under that rule.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from evaladdon.errors import EvalAddonError

__all__ = ["NO_ANSWER", "Rule", "RuleComparison", "compare_rules", "parse_rule", "rescore_table", "rule_scores"]

NO_ANSWER = "no logged answer"
_KINDS = ("exact", "normalized", "numeric", "regex")
_PUNCT = r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]"  # string.punctuation, as SQuAD's normalize_answer
_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_NUMERIC_MARKS = r"[$€£,*_]"


@dataclass(frozen=True)
class Rule:
    """One scoring rule, as the user wrote it (``text``) and parsed."""

    text: str
    kind: str
    tol: float = 0.0
    pattern: str | None = None

    def describe(self) -> str:
        """The normalisation, in the words every output shows."""
        if self.kind == "exact":
            return "exact: answer == target after stripping whitespace (case-sensitive)"
        if self.kind == "normalized":
            return ("normalized: lower case, punctuation and the articles a/an/the removed, whitespace "
                    "collapsed (SQuAD's normalize_answer), then equal")
        if self.kind == "numeric":
            return (f"numeric: the answer's last number within {self.tol:g} of the target's "
                    "(after its last ####, if any; $ € £ , * _ stripped)")
        return f"regex: the first match of {self.pattern!r} in the answer (group 1 if any) == target, stripped"


def parse_rule(text: str) -> Rule:
    """``exact``, ``normalized``, ``numeric[:TOL]`` or ``regex:PATTERN``; a bad one is refused in a line."""
    kind, sep, arg = text.partition(":")
    kind = kind.strip().lower()
    if kind in ("exact", "normalized") and not sep:
        return Rule(text, kind)
    if kind == "numeric":
        try:
            tol = float(arg) if sep else 0.0
        except ValueError:
            tol = -1.0
        if not (tol >= 0 and np.isfinite(tol)):
            raise EvalAddonError(f"rule {text!r}: the tolerance must be a number >= 0 (numeric:0.01)")
        return Rule(text, kind, tol=tol)
    if kind == "regex" and arg:
        try:
            re.compile(arg)
        except re.error as exc:
            raise EvalAddonError(f"rule {text!r}: not a regular expression ({exc})") from None
        return Rule(text, kind, pattern=arg)
    raise EvalAddonError(f"unknown scoring rule {text!r} (use {', '.join(('exact', 'normalized', 'numeric[:TOL]', 'regex:PATTERN'))})")


def _normalized(s: pd.Series) -> pd.Series:
    s = s.str.lower().str.replace(_PUNCT, "", regex=True)
    s = s.str.replace(r"\b(a|an|the)\b", " ", regex=True)
    return s.str.replace(r"\s+", " ", regex=True).str.strip()


def _numbers(s: pd.Series, last: bool) -> pd.Series:
    found = s.str.replace(_NUMERIC_MARKS, "", regex=True).str.findall(_NUMBER)
    picked = found.str[-1] if last else found.str[0]
    return pd.to_numeric(picked, errors="coerce").astype(float)


def _targets(label: pd.Series) -> pd.Series:
    """One row per (answer row, target): several targets are a JSON array in ``label``.

    Decoding a JSON array is a Python call per row; it runs only on rows whose label is one.
    """
    is_list = label.str.startswith("[").fillna(False).to_numpy(dtype=bool)
    if not is_list.any():
        return label

    def decoded(text: str) -> Any:
        try:
            got = json.loads(text)
        except ValueError:
            return text
        return [str(t) for t in got] if isinstance(got, list) and got else text

    out = label.astype(object).copy()
    out[is_list] = label[is_list].map(decoded)
    return out.explode()


def _match(answer: pd.Series, target: pd.Series, rule: Rule) -> np.ndarray:
    if rule.kind == "exact":
        return (answer.str.strip() == target.str.strip()).to_numpy(dtype=bool, na_value=False)
    if rule.kind == "normalized":
        return (_normalized(answer) == _normalized(target)).to_numpy(dtype=bool, na_value=False)
    if rule.kind == "numeric":
        # a GSM8K target (lm-eval logs the whole worked answer) ends in "#### N": N is its number
        final = target.str.rsplit("####", n=1).str[-1]
        a, t = _numbers(answer, last=True).to_numpy(), _numbers(final, last=False).to_numpy()
        with np.errstate(invalid="ignore"):
            return np.abs(a - t) <= np.maximum(rule.tol, 1e-9 * np.maximum(np.abs(a), np.abs(t)))
    assert rule.pattern is not None
    pattern = rule.pattern if re.compile(rule.pattern).groups else f"({rule.pattern})"
    got = answer.str.extract(pattern, expand=True).iloc[:, 0]
    return (got.str.strip() == target.str.strip()).to_numpy(dtype=bool, na_value=False)


def rule_scores(prediction: pd.Series, label: pd.Series, rule: Rule) -> np.ndarray:
    """1.0 where the answer matches a target under ``rule``, 0.0 where not, NaN with no answer."""
    answer = prediction.astype("string").reset_index(drop=True)
    target = _targets(label.astype("string").reset_index(drop=True))
    hit = _match(answer.reindex(target.index).astype("string"), target.astype("string"), rule)
    any_hit = pd.Series(hit, index=target.index).groupby(level=0).any().reindex(answer.index, fill_value=False)
    out = any_hit.to_numpy(dtype=float)
    out[answer.isna().to_numpy()] = np.nan
    return out


def _answered_metrics(df: pd.DataFrame, metric: str | None) -> list[str]:
    if "prediction" not in df.columns or "label" not in df.columns:
        raise EvalAddonError("these logs keep no answers and targets to re-score (the table has no prediction "
                             "and label columns: Inspect scores' answers and sample targets)")
    has = df["prediction"].notna() & df["label"].notna()
    names = [str(m) for m in pd.unique(df.loc[has, "metric"])]
    if metric is not None:
        if metric not in names:
            raise EvalAddonError(f"metric {metric!r} has no logged answers and targets (those that do: "
                                 f"{', '.join(names) or 'none'})")
        return [metric]
    if not names:
        raise EvalAddonError("no row has both a logged answer and a target to re-score")
    return names


def rescored_name(metric: str, rule: Rule) -> str:
    return f"{metric} [{rule.text}]"


def rescore_table(df: pd.DataFrame, rules: Sequence[Rule], metric: str | None = None,
                  keep_logged: bool = True) -> pd.DataFrame:
    """The rows of each answered metric (or ``metric``) re-scored under each rule, as new metrics
    named ``<metric> [<rule>]`` (the logged rows kept beside them unless ``keep_logged`` is False)."""
    names = _answered_metrics(df, metric)
    base = df[df["metric"].isin(names)]
    parts = [base] if keep_logged else []
    for rule in rules:
        scores = rule_scores(base["prediction"], base["label"], rule)
        part = base.copy()
        part["metric"] = (base["metric"].astype(str) + f" [{rule.text}]").to_numpy()
        part["raw"] = base["prediction"].fillna("").astype(str).to_numpy()
        # a row the log left out keeps its own reason (a sample error stays one, and stays out):
        # the rule re-scores the logged scorer's rows, so both are computed on the same items
        error = (base["error"].to_numpy(dtype=object, copy=True) if "error" in base
                 else np.full(len(part), None, dtype=object))
        kept = np.asarray(pd.isna(error), dtype=bool)
        error[kept & np.isnan(scores)] = NO_ANSWER
        part["value"] = np.where(kept, scores, np.nan)
        part["error"] = error
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


@dataclass(frozen=True)
class RuleComparison:
    """One pair of runs on one (task, metric) under each rule (``"logged"``: the scorer's own values)."""

    run_a: str
    run_b: str
    task: str
    metric: str
    rows: list[tuple[str, Any]]  # (rule text, RunComparison or the reason it could not be compared)
    flags: list[str] = field(default_factory=list)

    def flat(self) -> dict[str, Any]:
        return {"run_a": self.run_a, "run_b": self.run_b, "task": self.task, "metric": self.metric,
                "rules": [{"rule": r, **(c.flat() if not isinstance(c, str) else {"skipped": c})}
                          for r, c in self.rows], "flags": list(self.flags)}


def _flags(rows: list[tuple[str, Any]], alpha: float) -> list[str]:
    got = [(r, c) for r, c in rows if not isinstance(c, str) and np.isfinite(c.comparison.delta)]
    out = []
    signs = {r: np.sign(c.comparison.delta) for r, c in got}
    if len({s for s in signs.values() if s != 0}) > 1:
        up = [r for r, s in signs.items() if s > 0]
        down = [r for r, s in signs.items() if s < 0]
        out.append(f"RANKING REVERSES: B is better under {', '.join(up)} and worse under {', '.join(down)}")
    sig = {r: bool(c.comparison.p_value < alpha) for r, c in got}
    if len(set(sig.values())) > 1:
        yes = [r for r, s in sig.items() if s]
        out.append(f"significance depends on the rule: p < {alpha:g} under {', '.join(yes)} only")
    return out


def compare_rules(df: pd.DataFrame, pairs: Sequence[tuple[str, str]], rules: Sequence[Rule],
                  metric: str | None = None, *, level: float = 0.95, seed: int | None = 0) -> list[RuleComparison]:
    """Each pair's paired comparison under the logged scorer and under each rule, side by side."""
    from evaladdon.analysis.compare_table import compare_table

    table = rescore_table(df, rules, metric)
    out = []
    for m in _answered_metrics(df, metric):
        names = [("logged", m)] + [(r.text, rescored_name(m, r)) for r in rules]
        by_rule: dict[str, list[Any]] = {}
        for rule_text, name in names:
            skipped: list[Any] = []
            try:
                found = compare_table(table, pairs, name, level=level, seed=seed, adjust="none", skipped=skipped)
            except EvalAddonError as exc:
                found, skipped = [], [str(exc)]
            by_rule[rule_text] = found or [str(s.reason if hasattr(s, "reason") else s) for s in skipped[:1]]
        keys = {(c.run_a, c.run_b, c.task) for cs in by_rule.values() for c in cs if not isinstance(c, str)}
        for run_a, run_b, task in sorted(keys):
            rows = []
            for rule_text, _ in names:
                match = [c for c in by_rule[rule_text] if not isinstance(c, str)
                         and (c.run_a, c.run_b, c.task) == (run_a, run_b, task)]
                rows.append((rule_text, match[0] if match else "not compared under this rule"))
            out.append(RuleComparison(run_a, run_b, task, m, rows, _flags(rows, 1 - level)))
    return out
