"""Paired comparisons of runs in a canonical table: alignment on items, then statistics.

Two runs are paired on (task, metric, item) after averaging epochs within each item.  Items
only in one run are counted and left out; items whose content hash differs are paired with
a warning (or refused with ``strict``); nothing different is paired silently.
"""

from __future__ import annotations

import contextlib
import difflib
import itertools
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from evaladdon.errors import EvalAddonError
from evaladdon.stats import (
    GateDecision,
    PairedComparison,
    adjust_pvalues,
    compare_paired,
    regression_gate,
)
from evaladdon.stats._result import Result
from evaladdon.summary import group_positions, usable_rows
from evaladdon.table import GROUP, run_labels


@dataclass(frozen=True)
class Alignment(Result):
    """What pairing did: shared items, items on one side only, hash mismatches, drops."""

    n_shared: int
    only_a: int
    only_b: int
    hash_mismatch: int
    hash_mismatch_examples: tuple[str, ...]
    dropped_a: dict[str, int]
    dropped_b: dict[str, int]
    one_epoch: bool


@dataclass(frozen=True)
class RunComparison(Result):
    run_a: str
    run_b: str
    model_a: str
    model_b: str
    task: str
    metric: str
    alignment: Alignment
    comparison: PairedComparison
    p_adjusted: float | None = None
    adjust_method: str | None = None
    mde: float | None = None
    mde_note: str | None = None
    gate: GateDecision | None = None
    label_a: str = ""
    label_b: str = ""

    def flat(self) -> dict[str, Any]:
        c, al = self.comparison, self.alignment
        disc = c.discordance
        return {
            "run_a": self.run_a,
            "run_b": self.run_b,
            "label_a": self.label_a or self.run_a,
            "label_b": self.label_b or self.run_b,
            "model_a": self.model_a,
            "model_b": self.model_b,
            "task": self.task,
            "metric": self.metric,
            "n": c.n,
            "mean_a": c.mean_a,
            "mean_b": c.mean_b,
            "delta": c.delta,
            "se": c.se,
            "df": c.df,
            "se_paired": c.se_paired,
            "se_unpaired": c.se_unpaired,
            "correlation": c.correlation,
            "variance_removed": c.variance_removed,
            "ci_low": c.ci_low,
            "ci_high": c.ci_high,
            "ci_method": c.ci_method,
            "level": c.level,
            "test": c.test,
            "p_value": c.p_value,
            "p_adjusted": self.p_adjusted,
            "adjust_method": self.adjust_method,
            "t_p_value": c.t_p_value,
            "n11": disc.n11 if disc else None,
            "n10": disc.n10 if disc else None,
            "n01": disc.n01 if disc else None,
            "n00": disc.n00 if disc else None,
            "mcnemar_exact_p": c.mcnemar.exact_p if c.mcnemar else None,
            "mcnemar_mid_p": c.mcnemar.mid_p if c.mcnemar else None,
            "binary_intervals": {k: list(v) for k, v in c.binary_intervals.items()} if c.binary_intervals else None,
            "n_clusters": c.n_clusters,
            "se_cluster": c.se_cluster,
            "se_cluster_cr2": c.se_cluster_cr2,
            "df_cluster_cr2": c.df_cluster_cr2,
            "permutation_p": c.permutation_p,
            "mde": self.mde,
            "mde_note": self.mde_note,
            "decision": self.gate.decision if self.gate else None,
            "margin": self.gate.margin if self.gate else None,
            "only_a": al.only_a,
            "only_b": al.only_b,
            "hash_mismatch": al.hash_mismatch,
            "dropped_a": al.dropped_a,
            "dropped_b": al.dropped_b,
            "notes": list(c.notes),
        }


def item_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per-item mean over epochs, epoch count, cluster and content hash (one groupby)."""
    g = rows.groupby("item", sort=False)
    out = pd.DataFrame({"value": g["value"].mean(), "n_epochs": g["value"].size()})
    out["cluster"] = g["cluster"].first()
    out["item_hash"] = g["item_hash"].first()
    return out


def align_runs(
    df: pd.DataFrame, run_a: str, run_b: str, task: str, metric: str, strict: bool = False
) -> tuple[pd.DataFrame, Alignment]:
    """Shared items of two runs for one (task, metric): columns a, b, cluster."""
    sel = (df["task"] == task) & (df["metric"] == metric)
    return align_rows(df[sel & (df["run"] == run_a)], df[sel & (df["run"] == run_b)], run_a, run_b, task, metric,
                      strict)


@dataclass(frozen=True)
class Side:
    """One run's rows of a (task, metric), ready to pair: its per-item table (:func:`item_table`
    of the usable rows) and the rows left out, by reason."""

    items: pd.DataFrame
    dropped: dict[str, int]


def side_of(rows: pd.DataFrame) -> Side:
    good, dropped = usable_rows(rows)
    return Side(item_table(good), dropped)


def align_rows(
    rows_a: pd.DataFrame, rows_b: pd.DataFrame, run_a: str, run_b: str, task: str, metric: str, strict: bool = False
) -> tuple[pd.DataFrame, Alignment]:
    """:func:`align_runs` given each run's rows of the (task, metric) (in table order)."""
    return align_sides(side_of(rows_a), side_of(rows_b), run_a, run_b, task, metric, strict)


def align_sides(
    side_a: Side, side_b: Side, run_a: str, run_b: str, task: str, metric: str, strict: bool = False
) -> tuple[pd.DataFrame, Alignment]:
    """:func:`align_runs` given each run's :class:`Side`."""
    where = f"task {task!r}, metric {metric!r}, runs {run_a!r} vs {run_b!r}"
    ia, ib = side_a.items, side_b.items
    dropped_a, dropped_b = side_a.dropped, side_b.dropped
    shared = ia.index.intersection(ib.index)
    if len(shared) == 0:
        raise EvalAddonError(f"{where}: no items in common; nothing to pair")
    ia, ib = ia.loc[shared], ib.loc[shared]
    both_hashed = ia["item_hash"].notna() & ib["item_hash"].notna()
    mismatch = both_hashed & (ia["item_hash"] != ib["item_hash"])
    examples = tuple(str(i) for i in shared[mismatch.to_numpy()][:5])
    if mismatch.any() and strict:
        raise EvalAddonError(
            f"{where}: {int(mismatch.sum())} shared item(s) have different content hashes (e.g. {', '.join(examples)}); "
            "refusing to pair them (--strict)"
        )
    cluster = ia["cluster"].where(ia["cluster"].notna(), ib["cluster"])
    clash = ia["cluster"].notna() & ib["cluster"].notna() & (ia["cluster"] != ib["cluster"])
    if clash.any():
        raise EvalAddonError(f"{where}: item {shared[clash.to_numpy()][0]!r} has different clusters in the two runs")
    if cluster.notna().any() and not cluster.notna().all():
        raise EvalAddonError(f"{where}: {int(cluster.isna().sum())} shared item(s) have no cluster id")
    one_epoch = bool(ia["n_epochs"].max() == 1 and ib["n_epochs"].max() == 1)
    aligned = pd.DataFrame({"a": ia["value"].to_numpy(), "b": ib["value"].to_numpy(), "cluster": cluster.to_numpy()},
                           index=shared)
    alignment = Alignment(
        n_shared=len(shared),
        only_a=int(len(side_a.items) - len(shared)),  # the item table has one row per distinct item
        only_b=int(len(side_b.items) - len(shared)),
        hash_mismatch=int(mismatch.sum()),
        hash_mismatch_examples=examples,
        dropped_a=dropped_a,
        dropped_b=dropped_b,
        one_epoch=one_epoch,
    )
    return aligned, alignment


def run_order(df: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(df["run"].tolist()))


def _names_line(df: pd.DataFrame, labels: dict[str, str], limit: int = 12) -> str:
    shown = [labels[r] if labels[r] == r else f"{labels[r]} ({r})" for r in run_order(df)]
    more = f", ... ({len(shown) - limit} more)" if len(shown) > limit else ""
    return ", ".join(shown[:limit]) + more


def resolve_run(df: pd.DataFrame, name: str, flag: str = "--baseline") -> str:
    """The run that ``name`` designates: its label as shown, run (eval) id, model, source
    file path or stem, or a unique prefix of a label or id.  An error lists the names."""
    runs = run_order(df)
    labels = run_labels(df)
    per_run = df.groupby("run", sort=False).agg(model=("model", "first"), source=("source", "unique"))

    def files(run: str) -> list[str]:
        out = []
        for s in per_run.loc[run, "source"]:
            p = Path(str(s))
            out += [str(s), p.name, p.stem]
            with contextlib.suppress(OSError):
                out.append(str(p.resolve()))
        return out

    given = str(Path(name).resolve()) if Path(name).exists() else name
    tests = (
        lambda r: r == name,
        lambda r: labels[r] == name,
        lambda r: str(per_run.loc[r, "model"]) == name,
        lambda r: name in files(r) or given in files(r),
        lambda r: r.startswith(name) or labels[r].startswith(name),
    )
    for test in tests:
        hits = [r for r in runs if test(r)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise EvalAddonError(f"{flag} {name!r} matches {len(hits)} runs ({', '.join(labels[r] for r in hits[:6])}); "
                                 "give the label or id of one")
    close = difflib.get_close_matches(name, [labels[r] for r in runs] + runs, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise EvalAddonError(f"{flag} {name!r} names no run{hint} (runs: {_names_line(df, labels)})")


def choose_pairs(df: pd.DataFrame, baseline: str | None = None, all_pairs: bool = False) -> list[tuple[str, str]]:
    """(baseline, candidate) pairs: each run against ``baseline``, all pairs, or the only two.

    ``baseline`` is anything :func:`resolve_run` accepts (label, id, model, file, prefix).
    """
    runs = run_order(df)
    if baseline is not None:
        base = resolve_run(df, baseline)
        others = [r for r in runs if r != base]
        if not others:
            raise EvalAddonError("only the baseline run was found; nothing to compare")
        return [(base, r) for r in others]
    if all_pairs:
        if len(runs) < 2:
            raise EvalAddonError(f"need at least two runs to compare, found {len(runs)}")
        return list(itertools.combinations(runs, 2))
    if len(runs) != 2:
        labels = run_labels(df)
        raise EvalAddonError(
            f"found {len(runs)} runs ({_names_line(df, labels, 6)}); "
            "compare needs exactly two, or --baseline RUN, or --all-pairs"
        )
    return [(runs[0], runs[1])]


@dataclass(frozen=True)
class Skipped(Result):
    """A comparison that could not be made, and why."""

    run_a: str
    run_b: str
    label_a: str
    label_b: str
    task: str | None
    metric: str | None
    reason: str
    blocking: bool = True  # False when neither run has a scored row of this metric (nothing was hidden)

    def line(self) -> str:
        what = f" on {self.task}/{self.metric}" if self.task is not None else ""
        return f"not compared: {self.label_b} vs {self.label_a}{what}: {self.reason}"


def _why_unpaired(rows_a: pd.DataFrame, rows_b: pd.DataFrame, exc: EvalAddonError) -> str:
    """The reason a (task, metric) could not be paired, in the user's terms (``rows_a``,
    ``rows_b``: each run's rows of it)."""
    if "no items in common" not in exc.message:
        return exc.message.split(": ", 1)[-1] if exc.message.startswith("task ") else exc.message
    empty = []
    for side, rows in (("A", rows_a), ("B", rows_b)):
        good, dropped = usable_rows(rows)
        if good.empty:
            empty.append((side, ", ".join(f"{v} {k}" for k, v in dropped.items()) or "no rows"))
    if len(empty) == 2:
        reasons = empty[0][1] if empty[0][1] == empty[1][1] else f"A: {empty[0][1]}; B: {empty[1][1]}"
        return f"no scored items in either run ({reasons})"
    if empty:
        return f"no scored items in {empty[0][0]} ({empty[0][1]})"
    return "no items in common"


ALIGN_COLUMNS = ("item", "value", "error", "cluster", "item_hash")
"""The columns :func:`align_rows` reads (taking the others for each pair costs time)."""


class GroupRows:
    """Row positions of each (run, task, metric) of a table, found once on integer codes (in
    order of first appearance; each group's rows in table order), so that each pair of a
    compare takes its own rows instead of masking the whole table: with masks, one baseline
    against 100 runs of 20,000 items (2M rows) cost ~1 s a pair, growing with the table."""

    def __init__(self, df: pd.DataFrame) -> None:
        self.df = df
        self._narrow = df[list(ALIGN_COLUMNS)]
        self._sides: OrderedDict[tuple[Any, Any, Any], Side] = OrderedDict()
        self._rows: dict[tuple[Any, Any, Any], np.ndarray | slice] = {}
        self._keys: dict[Any, list[tuple[Any, Any]]] = {}
        self._first: dict[Any, int] = {}
        if df.empty:
            return
        positions = group_positions(df)[1]  # slices or row positions, as the summary groups
        first = np.array([p.start if isinstance(p, slice) else int(p[0]) for p in positions])
        keys = zip(*(df[c].array.take(first).tolist() for c in GROUP))
        for (run, task, metric), pos, at in zip(keys, positions, first):
            self._rows[(run, task, metric)] = pos
            self._keys.setdefault(run, []).append((task, metric))
            self._first.setdefault(run, int(at))  # groups come in order of first appearance

    def keys_of(self, run: Any) -> list[tuple[Any, Any]]:
        """The (task, metric) combinations ``run`` has."""
        return self._keys.get(run, [])

    def rows(self, run: Any, task: Any, metric: Any) -> pd.DataFrame:
        """``run``'s rows of (task, metric), in table order, with the columns pairing reads."""
        return self._narrow.iloc[self._rows[(run, task, metric)]]

    def side(self, run: Any, task: Any, metric: Any) -> Side:
        """:func:`side_of` ``run``'s rows of (task, metric); the last few are kept, so a
        baseline paired with every other run is tabulated once."""
        key = (run, task, metric)
        if key in self._sides:
            self._sides.move_to_end(key)
            return self._sides[key]
        out = self._sides[key] = side_of(self.rows(run, task, metric))
        if len(self._sides) > 8:
            self._sides.popitem(last=False)
        return out

    def model_of(self, run: Any) -> Any:
        """The model of ``run``'s first row."""
        return self.df["model"].iat[self._first[run]]


class JoinedGroups:
    """:class:`GroupRows` of several tables read apart (a store read a group of logs at a time,
    the baseline's rows on their own), answering for each run from the table that holds it."""

    def __init__(self, parts: Sequence[GroupRows]) -> None:
        self._of: dict[Any, GroupRows] = {}
        for part in parts:
            for run in part._keys:  # noqa: SLF001 - the runs a part holds
                self._of.setdefault(run, part)

    def keys_of(self, run: Any) -> list[tuple[Any, Any]]:
        part = self._of.get(run)
        return part.keys_of(run) if part is not None else []

    def rows(self, run: Any, task: Any, metric: Any) -> pd.DataFrame:
        return self._of[run].rows(run, task, metric)

    def side(self, run: Any, task: Any, metric: Any) -> Side:
        return self._of[run].side(run, task, metric)

    def model_of(self, run: Any) -> Any:
        return self._of[run].model_of(run)


def compare_table(
    df: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    metric: str | None = None,
    *,
    level: float = 0.95,
    test: str = "auto",
    interval: str = "auto",
    cluster_method: str = "cr2",
    strict: bool = False,
    adjust: str = "holm",
    margin: float | None = None,
    n_permutations: int = 10_000,
    seed: int | None = 0,
    skipped: list[Skipped] | None = None,
) -> list[RunComparison]:
    """Every pair on every (task, metric) both runs have, with adjusted p-values.

    Clustered differences use CR2 with the Bell-McCaffrey df by default (``cluster_method``);
    the ``df`` of each record is the one actually used.

    What cannot be compared (a pair sharing no task and metric, a metric with no shared
    scored items, an impossible test) is appended to ``skipped`` as :class:`Skipped` and the
    rest is compared; with ``skipped=None`` the first such problem is raised instead.  When
    nothing at all can be compared an :class:`EvalAddonError` summarises why.
    """
    labels = run_labels(df)
    if metric is not None:
        df = df[df["metric"] == metric]
        if df.empty:
            raise EvalAddonError(f"no rows with metric {metric!r}")
    results, missed = compare_groups(GroupRows(df), pairs, labels, level=level, test=test, interval=interval,
                                     cluster_method=cluster_method, strict=strict, margin=margin,
                                     n_permutations=n_permutations, seed=seed, raise_first=skipped is None)
    return finish_comparisons(results, missed, skipped, adjust)


def compare_groups(
    groups: GroupRows | JoinedGroups,
    pairs: Sequence[tuple[str, str]],
    labels: dict[str, str],
    *,
    level: float = 0.95,
    test: str = "auto",
    interval: str = "auto",
    cluster_method: str = "cr2",
    strict: bool = False,
    margin: float | None = None,
    n_permutations: int = 10_000,
    seed: int | None = 0,
    raise_first: bool = False,
) -> tuple[list[RunComparison], list[Skipped]]:
    """The comparisons of :func:`compare_table` (not yet adjusted) and those not made; with
    ``raise_first`` the first comparison not made is raised instead."""
    results: list[RunComparison] = []
    missed: list[Skipped] = []

    def skip(run_a: str, run_b: str, task: str | None, metric_name: str | None, reason: str) -> None:
        item = Skipped(run_a, run_b, labels[run_a], labels[run_b], task, metric_name, reason,
                       blocking=not reason.startswith("no scored items in either run"))
        if raise_first:
            what = f"task {task!r}, metric {metric_name!r}, " if task is not None else ""
            raise EvalAddonError(f"{what}runs {run_a!r} vs {run_b!r}: {reason}")
        missed.append(item)

    for run_a, run_b in pairs:
        keys_a = set(groups.keys_of(run_a))
        keys_b = set(groups.keys_of(run_b))
        common = sorted(keys_a & keys_b)
        if not common:
            tasks_a = sorted({t for t, _ in keys_a})
            tasks_b = sorted({t for t, _ in keys_b})
            skip(run_a, run_b, None, None, "share no (task, metric)"
                 + (f" (tasks {', '.join(tasks_a[:4])} vs {', '.join(tasks_b[:4])})" if tasks_a != tasks_b else ""))
            continue
        for task, metric_name in common:
            try:
                aligned, alignment = align_sides(groups.side(run_a, task, metric_name),
                                                 groups.side(run_b, task, metric_name), run_a, run_b, task,
                                                 metric_name, strict)
            except EvalAddonError as exc:
                skip(run_a, run_b, task, metric_name, _why_unpaired(groups.rows(run_a, task, metric_name),
                                                                    groups.rows(run_b, task, metric_name), exc))
                continue
            has_cluster = aligned["cluster"].notna().all()
            try:
                comp = compare_paired(
                    aligned["a"].to_numpy(),
                    aligned["b"].to_numpy(),
                    aligned["cluster"].to_numpy() if has_cluster else None,
                    one_epoch=alignment.one_epoch,
                    level=level,
                    test=test,
                    interval=interval,
                    cluster_method=cluster_method,
                    n_permutations=n_permutations,
                    seed=seed,
                )
            except ValueError as exc:
                skip(run_a, run_b, task, metric_name, str(exc))
                continue
            results.append(
                RunComparison(
                    run_a=run_a,
                    run_b=run_b,
                    model_a=str(groups.model_of(run_a)),
                    model_b=str(groups.model_of(run_b)),
                    task=str(task),
                    metric=str(metric_name),
                    alignment=alignment,
                    comparison=comp,
                    gate=regression_gate(comp.ci_low, comp.ci_high, margin) if margin is not None else None,
                    label_a=labels[run_a],
                    label_b=labels[run_b],
                )
            )
    return results, missed


def finish_comparisons(results: list[RunComparison], missed: list[Skipped], skipped: list[Skipped] | None,
                       adjust: str) -> list[RunComparison]:
    """``missed`` added to ``skipped``; an error when nothing was compared; p-values adjusted
    over all ``results`` (``adjust``)."""
    if skipped is not None:
        skipped.extend(missed)
    if not results and missed:
        first = missed[0]
        more = f" and {len(missed) - 1} more (--verbose lists them)" if len(missed) > 1 else ""
        raise EvalAddonError(f"nothing could be compared: {first.line()[len('not compared: '):]}{more}")
    if len(results) > 1 and adjust != "none":
        adjusted = adjust_pvalues(np.array([r.comparison.p_value for r in results]), adjust)
        results = [replace(r, p_adjusted=float(p), adjust_method=adjust) for r, p in zip(results, adjusted)]
    return results
