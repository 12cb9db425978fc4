"""Per-subgroup results (``summarize --by FIELD``, ``compare --by FIELD``).

Each item belongs to the subgroup its ``FIELD`` names (a ``meta.*`` field, an lm-eval doc field or
a table column, as ``--cluster`` reads them); items without one form the subgroup
:data:`MISSING`, shown like the others (never dropped).  An item's subgroup is the first label its
rows carry (an item labelled differently in two runs is counted in a note).

- ``summarize --by``: every subgroup's estimate by the same kernel as the whole run
  (:func:`~evaladdon.analysis.summarize.summarize_table` on its rows: its own interval, clustered
  when the run is), and a Wald test that the subgroups' means are equal.
- ``compare --by``: every subgroup's paired comparison by the same pairing loop
  (:func:`~evaladdon.analysis.compare_table.compare_table` on its rows: its own interval and paired
  test), the p-values adjusted across the subgroups of each comparison (Holm, 1979, by default;
  Benjamini & Hochberg, 1995, with ``--adjust bh``), and the interaction test: a cluster-robust
  Wald test that the per-item paired differences have the same mean in every subgroup
  (:func:`~evaladdon.stats.paired.interaction.subgroup_wald`).

Subgroups of fewer than ``min_size`` items are flagged ``small`` (their intervals are wide and
their tests weak), not hidden.  The overall result stays beside them (the route's own).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from evaladdon.analysis.compare_table import align_runs, compare_table
from evaladdon.analysis.results import RunComparison
from evaladdon.analysis.summarize import GroupSummary, summarize_table
from evaladdon.errors import EvalAddonError
from evaladdon.stats.paired.interaction import SubgroupWald, subgroup_wald
from evaladdon.stats.paired.multiple import adjust_pvalues
from evaladdon.table import run_labels
from evaladdon.table.usable import usable_rows

__all__ = ["MAX_SUBGROUPS", "MIN_SIZE", "MISSING", "Interaction", "SubgroupComparison", "SubgroupSummary", "compare_by",
           "item_subgroups", "summarize_by"]

MISSING = "(none)"
"""The subgroup of items whose field is empty."""
MIN_SIZE = 30
"""Subgroups with fewer items are flagged small (the usual rule of thumb for a normal interval)."""
MAX_SUBGROUPS = 200
"""The most subgroups ``--by`` reports: each is a full result and a member of the adjusted family,
so a field with thousands of values (a passage id) gives an unreadable table, a family too large
to find anything in, and a cost of one comparison a value (5,000 passages took 3 minutes);
such a field is a cluster (``--cluster``), not a subgroup."""


@dataclass(frozen=True)
class SubgroupSummary:
    """One run's estimate on one subgroup."""

    by: str
    subgroup: str
    summary: GroupSummary
    small: bool

    def flat(self) -> dict[str, Any]:
        return dict(self.summary.flat(), record="subgroup", by=self.by, subgroup=self.subgroup, small=self.small)


@dataclass(frozen=True)
class SubgroupComparison:
    """One paired comparison on one subgroup (``comparison.p_adjusted``: across the subgroups)."""

    by: str
    subgroup: str
    comparison: RunComparison
    small: bool

    def flat(self) -> dict[str, Any]:
        return dict(self.comparison.flat(), record="subgroup", by=self.by, subgroup=self.subgroup, small=self.small)


@dataclass(frozen=True)
class Interaction:
    """Whether the subgroups differ: of one run's mean (``run_b`` None) or of a comparison's effect."""

    by: str
    task: str
    metric: str
    run_a: str
    label_a: str
    test: SubgroupWald
    run_b: str | None = None
    label_b: str | None = None

    def flat(self) -> dict[str, Any]:
        t = self.test
        return {"record": "interaction", "by": self.by, "task": self.task, "metric": self.metric,
                "run_a": self.run_a, "label_a": self.label_a, "run_b": self.run_b, "label_b": self.label_b,
                "test": "cluster-robust Wald" if t.clustered else "robust Wald (HC1)", "statistic": t.statistic,
                "wald": t.wald, "df_num": t.df_num, "df_denom": t.df_denom, "p_value": t.p_value, "n": t.n,
                "n_groups": t.n_groups, "n_clusters": t.n_clusters, "note": t.note}


def item_subgroups(df: pd.DataFrame, labels: pd.Series, notes: list[str] | None = None) -> np.ndarray:
    """Each row's subgroup: its (task, item)'s first non-empty label (``labels`` aligned with the
    rows), :data:`MISSING` where none; an item labelled two ways is counted in ``notes``."""
    has = labels.notna().to_numpy()
    text = np.full(len(labels), None, dtype=object)
    text[has] = labels[has].astype(str).to_numpy(dtype=object)
    frame = pd.DataFrame({"task": df["task"].to_numpy(dtype=object), "item": df["item"].to_numpy(dtype=object),
                          "label": text})
    keyed = frame.groupby(["task", "item"], sort=False)["label"]
    first = keyed.transform("first")
    if notes is not None:
        clash = int((keyed.nunique() > 1).sum())
        if clash:
            notes.append(f"--by: {clash} item(s) carry different subgroup labels in different rows; "
                         "each is counted in the subgroup of its first label")
    return first.where(first.notna(), MISSING).to_numpy(dtype=object)


def _split(groups: np.ndarray, by: str) -> list[tuple[str, np.ndarray]]:
    """(subgroup, its row positions), in order of first appearance, :data:`MISSING` last; one
    pass over the rows.  More than :data:`MAX_SUBGROUPS` subgroups is refused (one line)."""
    positions = pd.Series(groups, dtype=object).groupby(groups, sort=False).indices
    if len(positions) > MAX_SUBGROUPS:
        raise EvalAddonError(f"--by {by} has {len(positions):,} values; per-subgroup results are for at most "
                             f"{MAX_SUBGROUPS} subgroups (a field with a value per few items is a cluster: "
                             f"--cluster {by})")
    seen = [g for g in positions if g != MISSING] + ([MISSING] if MISSING in positions else [])
    return [(g, positions[g]) for g in seen]


def summarize_by(df: pd.DataFrame, groups: np.ndarray, by: str, *, metric: str | None = None, level: float = 0.95,
                 method: str = "auto", cluster_method: str = "cr2", min_size: int = MIN_SIZE,
                 notes: list[str] | None = None) -> tuple[list[SubgroupSummary], list[Interaction]]:
    """Each subgroup's summaries (``groups``: :func:`item_subgroups` of ``df``'s rows) and, per
    (run, task, metric), the Wald test that the subgroups' means are equal."""
    if metric is not None:
        keep = (df["metric"] == metric).to_numpy()
        df, groups = df[keep], groups[keep]
    out: list[SubgroupSummary] = []
    for g, pos in _split(groups, by):
        sub_notes: list[str] = []
        found = summarize_table(df.iloc[pos], level=level, method=method, cluster_method=cluster_method,
                                notes=sub_notes)
        out += [SubgroupSummary(by, str(g), s, s.estimate.n_items < min_size) for s in found]
        if notes is not None:
            notes += [f"subgroup {by}={g}: {n}" for n in sub_notes]
    return out, _mean_interactions(df, groups, by)


def _item_means(rows: pd.DataFrame, groups: np.ndarray) -> pd.DataFrame:
    good, _ = usable_rows(rows.assign(_group=groups))
    return good.groupby("item", sort=False).agg(value=("value", "mean"), group=("_group", "first"),
                                                cluster=("cluster", "first"))


def _mean_interactions(df: pd.DataFrame, groups: np.ndarray, by: str) -> list[Interaction]:
    labels = run_labels(df)
    out = []
    keys = df.groupby(["run", "task", "metric"], sort=False).indices
    for (run, task, met), pos in keys.items():
        items = _item_means(df.iloc[pos], groups[pos])
        if items.empty:
            continue
        clusters = items["cluster"].to_numpy(dtype=object) if items["cluster"].notna().all() else None
        test = subgroup_wald(items["value"].to_numpy(), items["group"].to_numpy(dtype=object), clusters)
        out.append(Interaction(by, str(task), str(met), str(run), labels.get(run, str(run)), test))
    return out


def compare_by(df: pd.DataFrame, groups: np.ndarray, by: str, pairs: Sequence[tuple[str, str]], *,
               metric: str | None = None, pairing: dict[str, Any], min_size: int = MIN_SIZE,
               notes: list[str] | None = None) -> tuple[list[SubgroupComparison], list[Interaction]]:
    """Each subgroup's paired comparisons, adjusted across subgroups by ``pairing["adjust"]``,
    and each comparison's interaction test (``groups``: :func:`item_subgroups` of ``df``'s rows)."""
    if metric is not None:
        keep = (df["metric"] == metric).to_numpy()
        df, groups = df[keep], groups[keep]
    method = pairing.get("adjust", "holm")
    kw = dict(pairing, adjust="none", margin=None)  # the gate reads the overall comparison only
    found: list[SubgroupComparison] = []
    for g, pos in _split(groups, by):
        skipped: list[Any] = []
        try:
            results = compare_table(df.iloc[pos], pairs, **kw, skipped=skipped)
        except EvalAddonError as exc:  # a subgroup with nothing to pair is a note, not the end
            results = []
            skipped.append(exc)
        found += [SubgroupComparison(by, str(g), r, r.comparison.n < min_size) for r in results]
        if notes is not None:
            notes += [f"subgroup {by}={g}: {getattr(s, 'reason', s)}" for s in skipped]
    return _adjusted(found, method), _effect_interactions(df, groups, by, pairs, bool(pairing.get("strict")))


def _adjusted(found: list[SubgroupComparison], method: str) -> list[SubgroupComparison]:
    """``found`` with each comparison's p-values adjusted over its subgroups."""
    family = pd.Series([(s.comparison.run_a, s.comparison.run_b, s.comparison.task, s.comparison.metric)
                        for s in found], dtype=object)
    p = np.array([s.comparison.comparison.p_value for s in found], dtype=float)
    adj = np.full(len(found), np.nan)
    for idx in family.groupby(family).indices.values():
        adj[idx] = adjust_pvalues(p[idx], method, nan_policy="omit")
    return [dataclasses.replace(s, comparison=dataclasses.replace(
        s.comparison, p_adjusted=None if np.isnan(a) else float(a), adjust_method=f"{method} over subgroups"))
        for s, a in zip(found, adj, strict=True)]


def _effect_interactions(df: pd.DataFrame, groups: np.ndarray, by: str, pairs: Sequence[tuple[str, str]],
                         strict: bool) -> list[Interaction]:
    labels = run_labels(df)
    item_group = pd.Series(groups, index=pd.MultiIndex.from_arrays([df["task"].to_numpy(dtype=object),
                                                                    df["item"].to_numpy(dtype=object)]))
    item_group = item_group[~item_group.index.duplicated()]
    keys = df[["run", "task", "metric"]].drop_duplicates()
    out = []
    for run_a, run_b in pairs:
        both = keys[keys["run"] == run_a].merge(keys[keys["run"] == run_b], on=["task", "metric"])
        for task, met in zip(both["task"], both["metric"], strict=True):
            try:
                aligned, _ = align_runs(df, run_a, run_b, task, met, strict)
            except EvalAddonError:  # not paired: the overall comparison says why
                continue
            d = aligned["b"].to_numpy() - aligned["a"].to_numpy()
            g = item_group.reindex(pd.MultiIndex.from_arrays([[task] * len(aligned), aligned.index])).to_numpy()
            clusters = aligned["cluster"].to_numpy(dtype=object) if aligned["cluster"].notna().all() else None
            out.append(Interaction(by, str(task), str(met), str(run_a), labels.get(run_a, str(run_a)),
                                   subgroup_wald(d, g, clusters), str(run_b), labels.get(run_b, str(run_b))))
    return out
