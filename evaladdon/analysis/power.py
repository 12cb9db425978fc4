"""Planning inputs measured on stored runs (a pilot): psi, Var(d), deff, epoch ICC."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from evaladdon.analysis.compare_table import align_runs
from evaladdon.table.names import choose_pairs_in
from evaladdon.errors import EvalAddonError
from evaladdon.stats import compare_paired
from evaladdon.stats._result import Result
from evaladdon.analysis.summarize import summarize_table
from evaladdon.table.usable import usable_rows


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
    if metric is not None:
        df = df[df["metric"] == metric]
        if df.empty:
            raise EvalAddonError(f"no rows with metric {metric!r}")
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
    (run_a, run_b), = choose_pairs_in(df)
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
