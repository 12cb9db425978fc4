"""The verdicts of a gate policy (:mod:`evaladdon.analysis.policy`) on paired comparisons already
made by ``compare``'s routes: one verdict per benchmark (and candidate), and one overall verdict
with its exit code.

Per benchmark, with ``m`` its allowed drop on the comparison's scale (``max_drop``; with
``max_relative_drop`` too, the smaller of it and that share of the baseline's score):

- ``mode: non-inferiority`` (default) reads the interval of the difference as the regression
  gate does (mirrored for a metric where lower is better -- declared by the log, else the
  benchmark's ``lower_is_better``, else the built-in names: :mod:`evaladdon.table.direction` --
  where a drop is a rise above ``+m``) (:func:`evaladdon.stats.paired.family.tested_gate`): **NO-GO** when a drop larger
  than ``m`` is shown (the whole interval below ``-m`` and the test rejects), **GO** when the
  interval excludes any drop larger than ``m`` (lower bound >= ``-m``: non-inferiority at
  ``alpha/2`` one-sided), else undecided;
- ``mode: equivalence``: **GO** when Schuirmann's TOST shows ``|delta| < m``
  (:func:`evaladdon.stats.paired.equivalence.equivalence_of`: the ``1 - 2 alpha`` interval inside
  ``(-m, m)``), **NO-GO** when a change larger than ``m`` either way is shown, else undecided;
- undecided: **INSUFFICIENT-EVIDENCE** when the set cannot detect ``m`` at the policy's power
  (the minimum detectable effect of :func:`evaladdon.analysis.power.mde_and_note` -- McNemar's
  exact test for 0/1 items, the normal approximation on the comparison's SE otherwise -- is
  above ``m``), with the items needed (:func:`evaladdon.stats.plan` at ``delta = m``), else
  **INCONCLUSIVE**;
- **MISSING** when the runs have no comparison of the benchmark (not in both runs, or not
  comparable: the reason is given).

All comparisons judged form one family (the policy's ``adjust``, Holm by default): p-values
adjusted, intervals at the family's level, gates on both (:func:`evaladdon.analysis.compare.family`).

Overall (exit code): **NO-GO** (1) when any critical benchmark is NO-GO or more supporting ones
than ``max_supporting_no_go`` (default 0) are; else **MISSING** (2, or 1 with ``missing: fail``)
when a critical benchmark is missing; else **INCONCLUSIVE** (0, or 1 with ``inconclusive: fail``)
when a critical benchmark is INCONCLUSIVE or INSUFFICIENT-EVIDENCE; else **GO** (0).  Advisory
benchmarks are shown and never change the exit code; a supporting one that is MISSING or
undecided is shown only.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, Sequence

from evaladdon.analysis.compare import family
from evaladdon.analysis.equivalence import decide_margin
from evaladdon.analysis.policy import Benchmark, Policy
from evaladdon.analysis.power import mde_and_note
from evaladdon.analysis.results import RunComparison, Skipped
from evaladdon.errors import EvalAddonError
from evaladdon.stats import plan, regression_gate
from evaladdon.stats._base.result import Result
from evaladdon.stats.paired.equivalence import Equivalence
from evaladdon.stats.paired.gate import NO_REGRESSION, REGRESSION

__all__ = ["GO", "INCONCLUSIVE", "INSUFFICIENT", "MISSING", "NO_GO", "BenchmarkVerdict", "GateVerdict", "judge",
           "rule_text"]

GO, NO_GO, INCONCLUSIVE, MISSING, INSUFFICIENT = "GO", "NO-GO", "INCONCLUSIVE", "MISSING", "INSUFFICIENT-EVIDENCE"
UNDECIDED = (INCONCLUSIVE, INSUFFICIENT)


@dataclass(frozen=True)
class BenchmarkVerdict(Result):
    """One benchmark's verdict for one candidate against the baseline: ``comparison`` (None when
    MISSING), the allowed drop ``margin`` on its scale, the TOST when ``mode`` is equivalence, the
    MDE and the items needed when undecided, and ``why`` in words."""

    benchmark: Benchmark
    label_a: str
    label_b: str
    task: str
    metric: str | None
    verdict: str
    why: str
    comparison: RunComparison | None = None
    margin: float | None = None
    equivalence: Equivalence | None = None
    mde: float | None = None
    n_needed: int | None = None

    def flat(self) -> dict[str, Any]:
        b, r = self.benchmark, self.comparison
        out: dict[str, Any] = {
            "benchmark": b.name, "tier": b.tier, "mode": b.mode, "test": b.test, "baseline": self.label_a,
            "candidate": self.label_b, "task": self.task, "metric": self.metric, "verdict": self.verdict,
            "why": self.why, "max_drop": b.max_drop.text if b.max_drop else None,
            "max_relative_drop": b.max_relative_drop, "margin": self.margin, "mde": self.mde,
            "n_needed": self.n_needed, "comparison": r.flat() if r is not None else None,
            "equivalence": None,
        }
        if self.equivalence is not None:
            e = self.equivalence
            out["equivalence"] = {"p_value": e.p_value, "p_lower": e.p_lower, "p_upper": e.p_upper, "alpha": e.alpha,
                                  "ci_low": e.ci_low, "ci_high": e.ci_high, "verdict": e.verdict, "note": e.note}
        return out


@dataclass(frozen=True)
class GateVerdict(Result):
    """The overall verdict, its exit code, the benchmarks that decided it and every benchmark's."""

    verdict: str
    exit_code: int
    deciding: tuple[str, ...]
    benchmarks: tuple[BenchmarkVerdict, ...]
    policy: Policy

    def flat(self) -> dict[str, Any]:
        p = self.policy
        return {"policy": p.source, "verdict": self.verdict, "exit_code": self.exit_code,
                "deciding": list(self.deciding), "rule": rule_text(p), "level": p.level, "power": p.power,
                "adjust": p.adjust, "benchmarks": [v.flat() for v in self.benchmarks]}


def rule_text(p: Policy) -> str:
    """The exit rule in one sentence, with the policy's choices."""
    return (f"exit 1 (NO-GO) on any critical NO-GO or more than {p.max_supporting_no_go} supporting NO-GO; "
            f"else exit {2 if p.missing == 'error' else 1} (MISSING) when a critical benchmark is missing; "
            f"else exit {1 if p.inconclusive == 'fail' else 0} (INCONCLUSIVE) when a critical one is INCONCLUSIVE "
            "or INSUFFICIENT-EVIDENCE; else exit 0 (GO); advisory benchmarks never change the exit code")


def _margin(b: Benchmark, r: RunComparison, source: str) -> float:
    """The allowed drop on ``r``'s scale: ``max_drop`` resolved, and/or the share of the baseline's
    score (the smaller wins)."""
    found = []
    if b.max_drop is not None:
        try:
            found.append(b.max_drop.resolve(r.points, "max_drop"))
        except EvalAddonError as exc:
            raise EvalAddonError(f"{b.key}.max_drop ({r.task}/{r.metric}): {exc.message}", where=source) from None
    if b.max_relative_drop is not None:
        found.append(b.max_relative_drop * abs(r.comparison.mean_a))
    m = float(min(found))
    if b.mode == "equivalence" and not m > 0:
        raise EvalAddonError(f"{b.key}: the allowed change on {r.task}/{r.metric} is 0 (a share of a baseline score "
                             "of 0?); equivalence needs a margin > 0: give max_drop", where=source)
    return m


def _directed(b: Benchmark, r: RunComparison, source: str) -> RunComparison:
    """``r`` with the benchmark's ``lower_is_better`` where the logs declare nothing
    (:func:`evaladdon.table.direction.lower_is_better`; a contradiction is refused, naming the key)."""
    if b.lower_is_better is None or b.lower_is_better == r.lower_is_better:
        return r
    if r.direction_declared:
        said = "lower" if r.lower_is_better else "higher"
        raise EvalAddonError(f"{b.key}.lower_is_better: {str(b.lower_is_better).lower()} contradicts the log, which "
                             f"declares {said} is better for {r.task}/{r.metric}", where=source)
    return dataclasses.replace(r, lower_is_better=b.lower_is_better)


def _matches(b: Benchmark, task: str | None, metric: str | None) -> bool:
    return (task is not None and fnmatchcase(task, b.task)
            and (b.metric is None or metric is None or fnmatchcase(metric, b.metric)))


def _missing(b: Benchmark, pair: tuple[str, str], labels: tuple[str, str], skipped: Sequence[Skipped],
             failed: str | None = None) -> list[BenchmarkVerdict]:
    """MISSING: why the runs have no comparison of ``b`` (a comparison skipped, its test compared
    nothing, or no such task/metric in both runs)."""
    reasons = [s for s in skipped if (s.run_a, s.run_b) == pair and _matches(b, s.task, s.metric)]
    if failed is not None and not reasons:
        return [BenchmarkVerdict(b, labels[0], labels[1], b.task, b.metric, MISSING,
                                 f"not compared with test {b.test}: {failed}")]
    if reasons:
        return [BenchmarkVerdict(b, labels[0], labels[1], str(s.task), s.metric, MISSING, f"not compared: {s.reason}")
                for s in reasons]
    what = f"task {b.task!r}" + (f", metric {b.metric!r}" if b.metric else "")
    return [BenchmarkVerdict(b, labels[0], labels[1], b.task, b.metric, MISSING,
                             f"no comparison of {what}: not scored in both runs")]


def items_needed(r: RunComparison, margin: float, power: float, alpha: float) -> int | None:
    """Items needed to detect a difference of ``margin`` at ``power`` (two-sided ``alpha``), from
    this comparison's variance (McNemar's exact plan from its discordance for unclustered 0/1 items
    when ``margin`` is within it, else the normal plan on its SE, clustering included)."""
    c = r.comparison
    psi = c.discordance.n_discordant / c.n if c.discordance is not None and c.n_clusters is None else None
    try:
        if c.binary and psi and margin < psi:
            return plan(delta=margin, discordance=psi, power=power, alpha=alpha).n
        if c.se > 0 and math.isfinite(c.se):
            return plan(delta=margin, variance=c.se * c.se * c.n, power=power, alpha=alpha).n
    except ValueError:
        return None
    return None


def _undecided(base: BenchmarkVerdict, r: RunComparison, m: float, power: float) -> BenchmarkVerdict:
    """INCONCLUSIVE when this set can detect ``m`` at ``power``, else INSUFFICIENT-EVIDENCE."""
    pts = r.points
    alpha = 1.0 - r.comparison.level
    mde, why_not = mde_and_note(r, power, alpha)
    if m > 0 and mde is not None and mde <= m:
        return dataclasses.replace(base, verdict=INCONCLUSIVE, mde=mde, why=(
            f"{base.why}; this set can detect {_size(mde, pts)} at {power:.0%} power"))
    need = items_needed(r, m, power, alpha) if m > 0 else None
    detect = (f"this set can detect only {_size(mde, pts)} at {power:.0%} power" if mde is not None
              else (why_not or "no detectable effect"))
    more = (f"; about {need} items would detect {_size(m, pts)}" if need is not None
            else "; no number of items detects a drop of 0" if m == 0 else "")
    return dataclasses.replace(base, verdict=INSUFFICIENT, mde=mde, n_needed=need, why=f"{base.why}; {detect}{more}")


def _size(value: float, points: bool) -> str:
    return f"{100 * value:.1f} points" if points else f"{value:.3g}"


def _judge_one(b: Benchmark, r: RunComparison, m: float, power: float) -> BenchmarkVerdict:
    c, gate, pts = r.comparison, r.gate, r.points
    assert gate is not None
    base = BenchmarkVerdict(b, r.label_a or r.run_a, r.label_b or r.run_b, r.task, r.metric, INCONCLUSIVE, "",
                            comparison=r, margin=m)
    ci = f"{100 * c.level:.3g}% CI {_signed(c.ci_low, pts)} to {_signed(c.ci_high, pts)}"
    lower = r.lower_is_better
    if lower:
        ci += ", lower is better"
    worse = "a rise" if lower else "a drop"  # the change for the worse (mirrored when lower is better)
    if b.mode == "equivalence":
        e = decide_margin(r, m, "equivalence")
        base = dataclasses.replace(base, equivalence=e)
        p = c.p_value if r.p_adjusted is None else r.p_adjusted
        if e.shown:
            return dataclasses.replace(base, verdict=GO, why=f"equivalent within ±{_size(m, pts)} (TOST)")
        if gate.decision == REGRESSION:
            return dataclasses.replace(base, verdict=NO_GO, why=f"{worse} beyond {_size(m, pts)} is shown ({ci})")
        if (c.ci_high < -m if lower else c.ci_low > m) and p < 1.0 - c.level:
            return dataclasses.replace(base, verdict=NO_GO, why=f"a gain beyond {_size(m, pts)} is shown ({ci}): "
                                                                "not equivalent")
        return _undecided(dataclasses.replace(base, why=f"not shown equivalent within ±{_size(m, pts)} ({ci})"),
                          r, m, power)
    if gate.decision == REGRESSION:
        return dataclasses.replace(base, verdict=NO_GO, why=f"{worse} beyond {_size(m, pts)} is shown ({ci})")
    if gate.decision == NO_REGRESSION:
        return dataclasses.replace(base, verdict=GO, why=f"no {worse[2:]} beyond {_size(m, pts)} ({ci})")
    reach = f"above +{_size(m, pts)}" if lower else f"below -{_size(m, pts)}"
    return _undecided(dataclasses.replace(base, why=f"the interval reaches {reach} ({ci})"), r, m, power)


def _signed(value: float, points: bool) -> str:
    return f"{100 * value:+.1f}" if points else f"{value:+.3g}"


def _pairs(results: Sequence[RunComparison], skipped: Sequence[Skipped]) -> dict[tuple[str, str], tuple[str, str]]:
    pairs: dict[tuple[str, str], tuple[str, str]] = {}
    for r in results:
        pairs.setdefault((r.run_a, r.run_b), (r.label_a or r.run_a, r.label_b or r.run_b))
    for s in skipped:
        pairs.setdefault((s.run_a, s.run_b), (s.label_a or s.run_a, s.label_b or s.run_b))
    return pairs


def judge(policy: Policy, results: dict[str, list[RunComparison]],
          skipped: dict[str, list[Skipped]] | None = None, failed: dict[str, str] | None = None) -> GateVerdict:
    """The verdicts of ``policy`` on the comparisons ``results`` and those not made, ``skipped``
    (each by paired test; made without a multiplicity adjustment: the benchmarks judged are the
    family); ``failed``: the paired tests that compared nothing, with why (their benchmarks are
    MISSING)."""
    skipped, failed = skipped or {}, failed or {}
    pairs = _pairs([r for rs in results.values() for r in rs], [s for ss in skipped.values() for s in ss])
    if not pairs:
        raise EvalAddonError("nothing to judge: the runs gave no comparison", where=policy.source)
    judged: list[tuple[int, Benchmark, RunComparison, float]] = []
    verdicts: dict[int, list[BenchmarkVerdict]] = {}
    slot = 0
    for pair, labels in pairs.items():
        claimed: dict[tuple[str | None, str | None], Benchmark] = {}
        for b in policy.benchmarks:
            found = [r for r in results.get(b.test, []) if (r.run_a, r.run_b) == pair and _matches(b, r.task, r.metric)]
            if not found:
                verdicts[slot] = _missing(b, pair, labels, skipped.get(b.test, []), failed.get(b.test))
            for r in found:
                _claim(claimed, b, r, policy.source)
                m = _margin(b, r, policy.source)
                r = _directed(b, r, policy.source)
                judged.append((slot, b, dataclasses.replace(r, gate=regression_gate(
                    r.comparison.ci_low, r.comparison.ci_high, m, r.lower_is_better)), m))
            slot += 1
    fam = family([r for _, _, r, _ in judged], policy.adjust)
    for (k, b, _, m), r in zip(judged, fam, strict=True):
        verdicts.setdefault(k, []).append(_judge_one(b, r, m, policy.power))
    every = tuple(v for k in sorted(verdicts) for v in verdicts[k])
    return _overall(policy, every)


def _claim(claimed: dict[tuple[str | None, str | None], Benchmark], b: Benchmark, r: RunComparison,
           source: str) -> None:
    """One benchmark per comparison: a (task, metric) two benchmarks' patterns both match
    (``mmlu_*`` and ``mmlu_abstract``) would be judged twice, in one family, possibly in two
    tiers; refused in one line naming both (the policy's exact duplicates are refused on loading)."""
    first = claimed.setdefault((r.task, r.metric), b)
    if first is not b:
        def pattern(x: Benchmark) -> str:
            return f"{x.key} ({x.task}{'' if x.metric is None else ' / ' + x.metric})"

        raise EvalAddonError(f"task {r.task!r}, metric {r.metric!r} is matched by {pattern(first)} and {pattern(b)}: "
                             "each comparison is judged by one benchmark; narrow the patterns", where=source)


def _overall(policy: Policy, every: tuple[BenchmarkVerdict, ...]) -> GateVerdict:
    def named(vs: list[BenchmarkVerdict]) -> tuple[str, ...]:
        return tuple(f"{v.benchmark.tier} {v.benchmark.name} ({v.label_b}): {v.verdict}" for v in vs)

    critical = [v for v in every if v.benchmark.tier == "critical"]
    supporting_no_go = [v for v in every if v.benchmark.tier == "supporting" and v.verdict == NO_GO]
    fails = [v for v in critical if v.verdict == NO_GO]
    if len(supporting_no_go) > policy.max_supporting_no_go:
        fails += supporting_no_go
    if fails:
        return GateVerdict(NO_GO, 1, named(fails), every, policy)
    missing = [v for v in critical if v.verdict == MISSING]
    if missing:
        return GateVerdict(MISSING, 2 if policy.missing == "error" else 1, named(missing), every, policy)
    undecided = [v for v in critical if v.verdict in UNDECIDED]
    if undecided:
        return GateVerdict(INCONCLUSIVE, 1 if policy.inconclusive == "fail" else 0, named(undecided), every, policy)
    return GateVerdict(GO, 0, (), every, policy)
