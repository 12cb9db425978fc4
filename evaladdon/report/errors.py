"""Errored samples in ``compare``'s output: each comparison's error rates on the items both runs
attempted and the exact McNemar test of their difference (:mod:`evaladdon.stats.paired.error_rate`),
the policy used (``--errors``), and whether the error rates fail the gate.  One line per
comparison with errored samples, the same in text, markdown and HTML (escaped where shown)."""

from __future__ import annotations

from typing import Any, Sequence

from evaladdon.report.units import amount, interval, level_text

__all__ = ["comparison_bounds_line", "comparison_error_lines", "error_policy_line", "error_regressions"]

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
    return [f"note: {label}: errored samples A {t.errors_a} of {t.n} ({t.rate_a:.1%}), B {t.errors_b} of {t.n} "
            f"({t.rate_b:.1%}); difference {100 * t.difference:+.1f} points, exact McNemar on errored-vs-not "
            f"{t.only_b}/{t.only_a} ({p}); --errors {r.errors}: {how}"
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
    return [f"note: errored samples: --errors {results[0].errors} ({n} errored item(s) among the shared items)"]


def error_regressions(results: Sequence[Any], policy: str, alpha: float) -> list[Any]:
    """The comparisons whose candidate (B) errors significantly more than the baseline (A), on the
    family-adjusted exact McNemar p at ``alpha``.  Under ``--errors fail`` the errors are already
    scored as failures in the difference, so the error rates gate nothing on their own."""
    if policy == "fail":
        return []
    return [r for r in results if r.error_test is not None and r.error_test.worse(alpha)]
