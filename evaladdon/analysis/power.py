"""Power from runs: planning inputs measured on stored runs (a pilot: psi, Var(d), deff, epoch
ICC), and the minimum detectable effect of a comparison already made.

The formulas are :func:`evaladdon.stats.plan`'s (its tests hold the oracles); pandas and the
table's pairing are imported by :func:`measure_pilot` only, so ``compare`` pays for neither."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evaladdon.analysis.results import RunComparison
from evaladdon.errors import EvalAddonError
from evaladdon.stats import compare_paired, plan
from evaladdon.stats._base.result import Result

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Pilot", "mde_and_note", "mde_note", "measure_pilot", "minimum_detectable"]


@dataclass(frozen=True)
class Pilot(Result):
    """Per-item variance of a difference measured on stored runs.

    ``variance`` is the per-item variance of the difference *including* clustering
    (``se^2 * n``), so a plan multiplies nothing further; ``deff`` is shown for reference.
    ``discordance`` (psi) is set for 0/1 single-epoch paired pilots without clusters.
    """

    kind: str
    runs: tuple[str, ...]
    task: str
    metric: str
    n: int
    variance: float
    deff: float
    discordance: float | None
    icc_epochs: float | None
    observed_delta: float | None
    bounded: bool = True


def measure_pilot(df: pd.DataFrame, metric: str | None = None, cluster_method: str = "cr2") -> Pilot:
    """One run: unpaired variance ``2 Var(item mean)`` (x deff); two runs: paired ``Var(d)``.

    Clustered pilots use the same clustered SE as ``summarize``/``compare`` (CR2 with the
    Bell-McCaffrey df by default).  ``bounded`` says every usable value lies in [0, 1].
    """
    from evaladdon.analysis.compare_table import align_runs
    from evaladdon.analysis.summarize import summarize_table
    from evaladdon.table.names import choose_pairs_in
    from evaladdon.table.usable import usable_rows

    if metric is not None:
        from evaladdon.table.checks import rows_of_metric

        df = rows_of_metric(df, metric)
    keys = df[["task", "metric"]].drop_duplicates()
    if len(keys) != 1:
        raise EvalAddonError(
            f"the pilot has {len(keys)} (task, metric) pairs; name one with --metric (and pass one task's runs)"
        )
    task, metric_name = (str(v) for v in keys.iloc[0])
    good, _ = usable_rows(df)
    bounded = bool(((good["value"] >= 0) & (good["value"] <= 1)).all())
    runs = list(dict.fromkeys(df["run"].tolist()))
    if len(runs) == 1:
        s = summarize_table(df, cluster_method=cluster_method)[0].estimate
        deff = s.deff if s.deff is not None and math.isfinite(s.deff) else 1.0
        if not s.se > 0:
            raise EvalAddonError("the pilot run's SE is 0 (every item or cluster scores the same): "
                                 "it cannot measure a variance to plan with")
        return Pilot("unpaired (one run, two equal arms)", (runs[0],), task, metric_name, s.n_items,
                     2.0 * s.se**2 * s.n_items, deff, None, s.icc_epochs, None, bounded)
    (run_a, run_b), = choose_pairs_in(df, needs="a pilot is one run or two")
    aligned, alignment = align_runs(df, run_a, run_b, task, metric_name)
    has_cluster = bool(aligned["cluster"].notna().all())
    c = compare_paired(aligned["a"].to_numpy(), aligned["b"].to_numpy(),
                       aligned["cluster"].to_numpy() if has_cluster else None, one_epoch=alignment.one_epoch,
                       cluster_method=cluster_method)
    deff = (c.se / c.se_paired) ** 2 if c.se_paired > 0 else 1.0
    psi = c.discordance.n_discordant / c.n if c.discordance is not None and not has_cluster else None
    if not psi and not c.se > 0:
        raise EvalAddonError("the pilot runs agree on every item (paired SE 0): they cannot measure a variance "
                             "to plan with; give --discordance or --sd instead")
    return Pilot("paired (two runs)", (run_a, run_b), task, metric_name, c.n, c.se**2 * c.n, deff,
                 psi if psi else None, None, c.delta, bounded)


def mde_and_note(r: RunComparison, power: float, alpha: float) -> tuple[float | None, str | None]:
    """Paired MDE at this n and, when there is none, why (never omitted silently).

    0/1 single-epoch data without clusters: the exact-McNemar MDE from the observed
    discordance psi (the test compare runs); otherwise the normal-approximation MDE from the
    SE used.  For 0/1 single-epoch data an MDE above psi is impossible (|delta| <= psi) and
    is reported as "no effect of this design is detectable".
    """
    c = r.comparison
    psi = c.discordance.n_discordant / c.n if c.discordance is not None else None
    if psi == 0:
        return None, "no MDE: the runs agree on every item (no discordant pairs to estimate the variance from)"
    try:
        if c.binary and c.n_clusters is None and psi is not None:
            p = plan(n=c.n, discordance=psi, power=power, alpha=alpha)
        elif c.se > 0 and math.isfinite(c.se) and not any("zero-SE" in n for n in c.notes):
            p = plan(n=c.n, variance=c.se * c.se * c.n, power=power, alpha=alpha)
        else:
            return None, "no MDE: the SE of the difference is 0 or undefined"
    except ValueError as exc:
        return None, f"no MDE: {exc}"
    if p.mde is None or (psi is not None and p.mde > psi):
        return None, (f"no effect of this design is detectable at {power:.0%} power: only {psi:.1%} of items "
                      "disagree" if psi is not None else p.notes[0] if p.notes else "no MDE")
    return p.mde, None


def minimum_detectable(r: RunComparison, power: float, alpha: float) -> float | None:
    """Paired MDE at this n (None when nothing is detectable; :func:`mde_note` says why)."""
    return mde_and_note(r, power, alpha)[0]


def mde_note(r: RunComparison, power: float, alpha: float) -> str | None:
    """Why :func:`minimum_detectable` gives no number (None when it gives one)."""
    return mde_and_note(r, power, alpha)[1]
