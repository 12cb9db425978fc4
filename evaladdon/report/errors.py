"""Errored samples in every output: the one wording of the error rate and of the ``--errors`` policy
note, used by ``summarize``, ``compare``, ``metrics`` and the HTML report alike (text, markdown and
HTML; escaped where shown; JSON holds the same counts as fields), and which lines ``--quiet`` keeps.

- the error rate, one line per run (or comparison) with errored samples:
  ``note: LABEL: N of M sample(s) errored (R%); --errors POLICY: HOW`` (:func:`rate_text`,
  :func:`rate_line`); a comparison gives both runs' rates on the items both attempted and the exact
  McNemar test of their difference (:mod:`evaladdon.stats.paired.error_rate`);
- the policy, one line always (the default excludes errored samples silently otherwise):
  ``note: errored samples: --errors POLICY (N errored WHAT)`` (:func:`policy_note`);
- ``--quiet`` keeps the lines that count what was left out (:func:`must_stay`): rows left out by
  reason, the error rates and the policy note.

Also whether the error rates fail the gate (:func:`error_regressions`)."""

from __future__ import annotations

from typing import Any, Sequence

from evaladdon.report.units import amount, interval, level_text

__all__ = ["comparison_bounds_line", "comparison_error_lines", "error_policy_line", "error_regressions", "must_stay",
           "policy_note", "rate_line", "rate_text"]

POLICY_NOTE = "note: errored samples: --errors"
"""How the policy note begins (:func:`policy_note`)."""


def rate_text(n_errors: int, attempted: int, unit: str = "sample(s)") -> str:
    """``N of M sample(s) errored (R%)``: the one wording of an error rate."""
    rate = n_errors / attempted if attempted else float("nan")
    return f"{n_errors} of {attempted} {unit} errored ({rate:.1%})"


def rate_line(label: str, n_errors: int, attempted: int, policy: str, how: str) -> str:
    """One run's error rate and what its policy did with the errored samples (a summary, a metrics group)."""
    return f"note: {label}: {rate_text(n_errors, attempted)}; --errors {policy}: {how}"


def policy_note(policy: str, n: int, what: str = "errored row(s) in all") -> str:
    """The policy, said once: ``note: errored samples: --errors exclude (3 errored row(s) in all)``."""
    return f"{POLICY_NOTE} {policy} ({n} {what})"


_KEEP = (" left out (", " left out:", " (left out)", " row(s) of A left out", " row(s) of B left out", " errored (",
         ": worst case (B's errored samples failed", ": with every errored sample failed")
"""What the lines ``--quiet`` keeps contain; the last two: the bounds ``--errors bounds`` asked for."""


def must_stay(line: str) -> bool:
    """Whether ``--quiet`` keeps ``line``: it counts rows left out (by reason), errored samples (an
    error rate), says the policy for errored samples there were, or gives the bounds ``--errors
    bounds`` asked for; every other warning and note goes."""
    if line.startswith(POLICY_NOTE):
        return "(0 errored" not in line
    return any(k in line for k in _KEEP)

_HOW = {"exclude": "left out of both means", "fail": "scored 0 (failed) in both runs",
        "bounds": "left out of both means"}


def comparison_error_lines(r: Any) -> list[str]:
    """The error rates of ``r`` (a :class:`~evaladdon.analysis.results.RunComparison`) and their
    test, when either run has an errored sample among the shared items; else nothing."""
    t = r.error_test
    if t is None or not (t.errors_a or t.errors_b):
        return []
    label = f"{r.label_b or r.run_b} vs {r.label_a or r.run_a} / {r.task} / {r.metric}"
    p = f"p = {t.p_value:.3g}" + (f", adjusted {t.p_adjusted:.3g}" if t.p_adjusted is not None else "")
    how = _HOW.get(r.errors, r.errors) + ("; worst/best case below" if getattr(r, "bounds", None) is not None else "")
    return [f"note: {label}: A {rate_text(t.errors_a, t.n, 'item(s)')}, B {rate_text(t.errors_b, t.n, 'item(s)')}; "
            f"difference {100 * t.difference:+.1f} points, exact McNemar on errored-vs-not {t.only_b}/{t.only_a} "
            f"({p}); --errors {r.errors}: {how}"
            ] + comparison_bounds_line(r, label)


def comparison_bounds_line(r: Any, label: str) -> list[str]:
    """``--errors bounds``: the difference in the worst case for the candidate (its errored samples
    failed, the baseline's passed) and the best (the reverse), each with its paired interval, and
    the bounds (the worst case's lower end to the best case's upper end); nothing without bounds
    (:mod:`evaladdon.analysis.compare_bounds`)."""
    b = getattr(r, "bounds", None)
    if b is None:
        return []
    pts, level = r.points, level_text(r.comparison.level)
    w, x = b.worst, b.best
    return [f"note: {label}: worst case (B's errored samples failed, A's passed) {amount(w.delta, pts)}, {level} CI "
            f"{interval(w.ci_low, w.ci_high, pts)}; best case (B's passed, A's failed) {amount(x.delta, pts)}, "
            f"{level} CI {interval(x.ci_low, x.ci_high, pts)} (bounds {interval(b.ci_low, b.ci_high, pts)})"]


def error_policy_line(results: Sequence[Any]) -> list[str]:
    """The policy for errored samples, said once (always: the default excludes them)."""
    if not results:
        return []
    n = sum(r.error_test.errors_a + r.error_test.errors_b for r in results if r.error_test is not None)
    return [policy_note(results[0].errors, n, "errored item(s) among the shared items")]


def error_regressions(results: Sequence[Any], policy: str, alpha: float) -> list[Any]:
    """The comparisons whose candidate (B) errors significantly more than the baseline (A), on the
    family-adjusted exact McNemar p at ``alpha``.  Under ``--errors fail`` the errors are already
    scored as failures in the difference, so the error rates gate nothing on their own."""
    if policy == "fail":
        return []
    return [r for r in results if r.error_test is not None and r.error_test.worse(alpha)]
