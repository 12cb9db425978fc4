"""Rankings: a Bradley–Terry fit of pairwise preferences (with position bias), and rankings
of runs from their per-item scores on shared items (:mod:`evaladdon.stats.ranking`).

Results in, nothing printed: :mod:`evaladdon.cli.rank_cmd` renders them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from evaladdon.analysis.style_control import StyleControl
    from evaladdon.stats.ranking.bradley_terry import BradleyTerryResult, PositionBias
    from evaladdon.stats.ranking.ranking import RankingResult

__all__ = ["PreferenceRanking", "ScoreRanking", "preference_ranking", "score_rankings"]


@dataclass
class PreferenceRanking:
    """A Bradley–Terry fit with what was read and left out."""

    result: "BradleyTerryResult"
    position: "PositionBias | None"
    dropped: dict[str, int]
    notes: list[str]
    sources: list[str]
    kinds: list[str]
    style: "StyleControl | None" = None


@dataclass
class ScoreRanking:
    task: str
    metric: str
    result: "RankingResult"
    dropped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def preference_ranking(paths: list[str], ties: str = "half", anchor: str | None = None, n_boot: int = 1000,
                       seed: int | None = 0, level: float = 0.95, sandwich: bool = False,
                       unit: str = "cluster", controls: tuple[str, ...] = ()) -> PreferenceRanking:
    """Read preference files and fit Bradley–Terry (clusters are kept apart per source file);
    with ``controls`` (style features, :func:`evaladdon.analysis.style_control.parse_controls`),
    also the style-controlled fit (:func:`evaladdon.analysis.style_control.style_control`)."""
    from pathlib import Path

    from evaladdon.adapters.common.guard import check_regular
    from evaladdon.adapters.preferences import read_preferences
    from evaladdon.stats.ranking.bradley_terry import bradley_terry, position_bias

    for given in paths:  # a FIFO or a device would be read forever: refused before it is opened
        check_regular(Path(given))
    prefs = read_preferences(paths, style=bool(controls))
    bt = prefs.battles
    key = bt["item"] if unit == "item" else bt["cluster"]
    cluster = bt["source"].astype(str) + "\x1f" + key.fillna("").astype(str)
    single = key.isna().all()
    res = bradley_terry(bt["model_a"].to_numpy(), bt["model_b"].to_numpy(), bt["outcome"].to_numpy(),
                        None if single else cluster.to_numpy(), bt["tie"].to_numpy(dtype=bool),
                        ties=ties, anchor=anchor, interval="sandwich" if sandwich else "bootstrap",  # type: ignore[arg-type]
                        n_boot=n_boot, seed=seed, level=level)
    notes = list(prefs.notes)
    if unit == "cluster" and res.n_clusters < 20 and bt["item"].nunique() > res.n_clusters:
        notes.append(f"{res.n_clusters} clusters hold {bt['item'].nunique()} prompts: --unit item resamples prompts "
                     "instead (valid when prompts of a cluster are independent)")
    if single:
        notes.append("no prompt ids: each battle is its own resampling unit")
    pos = None
    if len(prefs.games):
        pos = position_bias(prefs.games["g1"].to_numpy(), prefs.games["g2"].to_numpy(), level=level)
    style = None
    if controls:
        from evaladdon.analysis.style_control import style_control

        style = style_control(bt, controls, None if single else cluster.to_numpy(), anchor, n_boot, seed, level)
        if ties != "half":
            style.notes.append("both fits of the style-control block split ties half/half (Arena's convention); "
                               f"--ties {ties} applies to the leaderboard above")
    return PreferenceRanking(res, pos, dict(prefs.dropped), notes, sorted(bt["source"].unique().tolist()),
                             prefs.kinds, style)


def _item_matrix(rows: "pd.DataFrame") -> tuple["pd.DataFrame", "pd.Series", int]:
    """Per (item, run) means over epochs on the items every run scored; clusters; items left out."""
    means = rows.groupby(["item", "run"], sort=False)["value"].mean().unstack("run")
    full = means.dropna()
    cluster = rows.groupby("item", sort=False)["cluster"].first().reindex(full.index)
    return full, cluster, int(len(means) - len(full))


def score_rankings(table: "pd.DataFrame", metric: str | None = None, level: float = 0.95, n_boot: int = 1000,
                   seed: int | None = 0, notes: list[str] | None = None,
                   better: str | None = None) -> list[ScoreRanking]:
    """One ranking per (task, metric) with at least two runs, from the canonical table; lowest
    first where a lower score is better (:func:`evaladdon.table.direction.lower_is_better` of the
    table's declarations and ``better``)."""
    from evaladdon.table.direction import declared_in, lower_is_better

    from evaladdon.errors import EvalAddonError
    from evaladdon.stats.ranking.ranking import rank_models
    from evaladdon.table.usable import usable_rows
    from evaladdon.table import run_labels

    labels = run_labels(table)
    declared = declared_in(table)
    df = table if metric is None else table[table["metric"] == metric]
    if df.empty:
        raise EvalAddonError(f"no rows for metric {metric!r}")
    out: list[ScoreRanking] = []
    for (task, met), rows in df.groupby(["task", "metric"], sort=False):
        good, dropped = usable_rows(rows)
        n_runs = good["run"].nunique()
        if n_runs < 2:
            if notes is not None:
                notes.append(f"{task}/{met}: only {n_runs} run(s) scored; nothing to rank")
            continue
        mat, cluster, not_shared = _item_matrix(good)
        if not_shared:
            dropped = {**dropped, "item(s) not scored by every run": not_shared}
        if len(mat) < 2:
            if notes is not None:
                notes.append(f"{task}/{met}: fewer than two items scored by every run; nothing to rank")
            continue
        cl = None
        local: list[str] = []
        hashes = good.loc[good["item"].isin(mat.index)].groupby("item")["item_hash"].nunique()
        if (hashes > 1).any():
            local.append(f"{int((hashes > 1).sum())} shared item(s) have different content hashes across runs "
                         f"(e.g. {hashes[hashes > 1].index[0]}); they are ranked as the same item")
        if cluster.notna().any():
            if cluster.isna().any():
                raise EvalAddonError(f"{task}/{met}: {int(cluster.isna().sum())} item(s) have no cluster id")
            cl = cluster.astype(str).to_numpy()
        names = [labels.get(str(r), str(r)) for r in mat.columns]
        res = rank_models(mat.to_numpy(), names, cl, level=level, n_boot=n_boot, seed=seed,
                          lower_is_better=lower_is_better(str(task), str(met), declared, better))
        out.append(ScoreRanking(str(task), str(met), res, dropped, local))
    if not out:
        raise EvalAddonError("nothing to rank: every task/metric needs at least two runs on shared items")
    return out
