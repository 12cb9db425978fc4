"""Per (run, task, metric) summaries of a canonical table: the glue from table to stats.

The per-group work (usable rows and the others counted by reason, ``estimate_mean`` on item
and cluster codes, notes, :class:`GroupSummary`) runs on numpy arrays
(:func:`summarize_groups`), so the table path (:func:`summarize_table`) and the pandas-free
summarize of Inspect logs (:mod:`evaladdon.routes.inspect_columns`) share it; pandas is imported
only by the functions that take a DataFrame.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

import numpy as np

from evaladdon.errors import EvalAddonError
from evaladdon.stats import MeanEstimate, estimate_mean
from evaladdon.stats._base.result import Result
from evaladdon.table.codes import group_positions, label_rows
from evaladdon.table.errored import apply_policy, count_errors
from evaladdon.table.usable import CORPUS_LEVEL_PREFIX, MISSING_FROM_LOG
from evaladdon.table.usable import (NONFINITE, count_nonfinite, count_reasons, unusable,  # noqa: F401 - old names
                                    unusable_reasons, usable_rows)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


@dataclass(frozen=True)
class GroupSummary(Result):
    """One run's estimate for one task and metric, with the rows left out and why."""

    run: str
    task: str
    model: str
    metric: str
    estimate: MeanEstimate
    n_dropped: int
    dropped: dict[str, int]
    label: str = ""
    n_nonfinite: int = 0
    errors: str = "exclude"
    """The policy for errored samples (:mod:`evaladdon.table.errored`): exclude, fail or bounds."""
    n_failed: int = 0
    """Errored rows scored 0 (``--errors fail``): among the usable rows, not in ``dropped``."""
    bounds: tuple[float, float, float, float] | None = None
    """``--errors bounds``: the mean with every errored row 0 and 1, and the lower end of the first's
    interval and the upper end of the second's (worst/best case)."""

    @property
    def n_errors(self) -> int:
        """Rows of errored samples (scored 0 or left out)."""
        return count_errors(self.dropped) + self.n_failed

    @property
    def error_rate(self) -> float:
        """Errored rows over the rows the run attempted (scored ones and errored ones)."""
        attempted = self.estimate.n_rows + count_errors(self.dropped)
        return self.n_errors / attempted if attempted else float("nan")

    def flat(self) -> dict[str, Any]:
        """The JSON record of ``evaladdon summarize --json``."""
        e = self.estimate
        return {
            "run": self.run,
            "label": self.label or self.run,
            "task": self.task,
            "model": self.model,
            "metric": self.metric,
            "mean": e.mean,
            "se": e.se,
            "ci_low": e.ci_low,
            "ci_high": e.ci_high,
            "level": e.level,
            "method": e.method,
            "df": e.df,
            "n_items": e.n_items,
            "n_rows": e.n_rows,
            "n_epochs": e.n_epochs_max,
            "n_epochs_min": e.n_epochs_min,
            "n_clusters": e.n_clusters,
            "se_naive": e.se_naive,
            "se_item": e.se_item,
            "se_cluster": e.se_cluster,
            "se_cluster_cr2": e.se_cluster_cr2,
            "df_cluster_cr2": e.df_cluster_cr2,
            "deff": e.deff,
            "icc": e.icc,
            "n_eff": e.n_eff,
            "icc_epochs": e.icc_epochs,
            "within_var": e.epoch_variance.within_var if e.epoch_variance else None,
            "between_var": e.epoch_variance.between_var if e.epoch_variance else None,
            "se_floor": e.epoch_variance.se_floor if e.epoch_variance else None,
            "binary": e.binary,
            "n_dropped": self.n_dropped,
            "dropped": dict(self.dropped),
            "finite_only": self.n_nonfinite > 0,
            "n_nonfinite": self.n_nonfinite,
            "notes": list(e.notes),
            "errors": self.errors,
            "n_errors": self.n_errors,
            "error_rate": self.error_rate,
            "bounds": None if self.bounds is None else {"worst": self.bounds[0], "best": self.bounds[1],
                                                        "ci_low": self.bounds[2], "ci_high": self.bounds[3]},
        }


@dataclass(frozen=True)
class GroupArrays:
    """One (run, task, metric) group's rows as arrays, in table order (what
    :func:`summarize_groups` needs; no frame)."""

    run: str
    task: str
    model: str
    metric: str
    values: np.ndarray  # float64
    has_error: np.ndarray  # bool: the row has an error reason
    error: Any  # object array of the reason (str) or None, or CodedTexts (codes into texts: the Inspect columns)
    items: np.ndarray  # integer item codes (equal codes = equal items)
    clusters: np.ndarray  # integer cluster codes, -1 where the row has no cluster


def summarize_groups(
    groups: Iterable[GroupArrays],
    labels: Mapping[str, str],
    level: float = 0.95,
    method: str = "auto",
    cluster_method: str = "cr2",
    notes: list[str] | None = None,
    errors: str = "exclude",
) -> list[GroupSummary]:
    """One :class:`GroupSummary` per group (see :func:`summarize_table`, which documents the
    rules); ``labels`` maps each run to its short name (:func:`evaladdon.table.run_labels`);
    ``errors`` the policy for errored samples (:mod:`evaladdon.table.errored`)."""
    out: list[GroupSummary] = []
    for g in groups:
        kw = {"level": level, "method": method, "cluster_method": cluster_method}
        n_failed = 0
        if errors == "fail":
            values, error, has_error, n_errors = apply_policy(g.values, g.error, g.has_error, "fail")
            n_failed = n_errors if has_error is not g.has_error else 0
            g = dataclasses.replace(g, values=values, error=error, has_error=has_error)
        got = _summarize_one(g, labels, notes, kw)
        if got is None:
            continue
        if errors != "exclude":
            got = dataclasses.replace(got, errors=errors, n_failed=n_failed)
        if errors == "bounds" and got.n_errors:
            got = dataclasses.replace(got, bounds=_bounds(g, labels, kw))
        out.append(got)
    return finish_summaries(out, notes)


def _bounds(g: GroupArrays, labels: Mapping[str, str], kw: dict[str, Any]) -> tuple[float, float, float, float] | None:
    """The worst and best case of ``--errors bounds``: the group summarized with every errored row
    scored 0 and 1 (the mean of each, the lower end of the first's interval and the upper end of the
    second's); None when the metric is not in [0, 1] (no worst or best value)."""
    ends = []
    for fill in (0.0, 1.0):
        values, error, has_error, _ = apply_policy(g.values, g.error, g.has_error, "fail", fill=fill)
        if has_error is g.has_error:  # unchanged: not a metric in [0, 1]
            return None
        got = _summarize_one(dataclasses.replace(g, values=values, error=error, has_error=has_error), labels, [], kw)
        if got is None:  # pragma: no cover - errored rows are scored now
            return None
        ends.append(got.estimate)
    return ends[0].mean, ends[1].mean, ends[0].ci_low, ends[1].ci_high


def _summarize_one(g: GroupArrays, labels: Mapping[str, str], notes: list[str] | None,
                   kw: dict[str, Any]) -> GroupSummary | None:
    """One group's :class:`GroupSummary` (None: no scored row, with a note)."""
    bad, dropped = unusable(g.values, g.error, g.has_error)
    good = ~bad
    n_good = int(good.sum())
    if n_good == len(good):
        values, items, group_clusters = g.values, g.items, g.clusters
    else:
        values, items, group_clusters = g.values[good], g.items[good], g.clusters[good]
    n_clustered = int((group_clusters >= 0).sum())

    def estimate(clustered: bool, values: np.ndarray = values, items: np.ndarray = items,
                 group_clusters: np.ndarray = group_clusters) -> MeanEstimate:
        # no epochs=: the (item, epoch) uniqueness is checked once, by table.validate
        return estimate_mean(values, items=items, clusters=group_clusters if clustered else None, **kw)

    return summarize_group(g.run, g.task, g.model, g.metric, dropped, n_good, n_clustered, estimate, labels, notes)


def finish_summaries(out: list[GroupSummary], notes: list[str] | None) -> list[GroupSummary]:
    """The summaries of all groups, or the error when no group had a scored row."""
    if not out:
        raise EvalAddonError("no scored rows to summarize" + (f": {'; '.join(notes)}" if notes else ""))
    return out


def summarize_group(run: Any, task: Any, model: Any, metric_name: Any, dropped: dict[str, int], n_good: int,
                    n_clustered: int, estimate: Callable[[bool], MeanEstimate], labels: Mapping[str, str],
                    notes: list[str] | None) -> GroupSummary | None:
    """One group's :class:`GroupSummary` from what :func:`summarize_groups` knows of it: the
    rows left out by reason (``dropped``, as :func:`count_reasons` orders them), the usable
    rows and how many of them have a cluster, and ``estimate(clustered)`` giving the
    :class:`MeanEstimate` of the usable rows.  ``None``: no scored row (a note, or an error
    when ``notes`` is None).  Shared by the in-memory and the spilled (:mod:`evaladdon.routes.inspect_spill`)
    summarize."""
    where = f"run {run!r}, task {task!r}, metric {metric_name!r}"
    if n_good == 0:
        message = f"{where}: no scored rows (left out: {dropped})"
        if notes is None:
            raise EvalAddonError(message)
        if dropped and all(str(k).startswith(CORPUS_LEVEL_PREFIX) for k in dropped):  # not a mean of item scores
            notes.append(f"note: {where}: a corpus-level metric ({sum(dropped.values())} per-item inputs, not "
                         "scores): `evaladdon metrics` estimates it")
        else:
            notes.append(f"skipped {message}")
        return None
    if 0 < n_clustered < n_good:
        raise EvalAddonError(f"{where}: {n_good - n_clustered} row(s) have no cluster id")
    try:
        est = estimate(n_clustered > 0)
    except ValueError as exc:
        raise EvalAddonError(f"{where}: {exc}") from None
    n_nonfinite = count_nonfinite(dropped)
    if n_nonfinite:
        est = dataclasses.replace(est, notes=(
            f"mean over finite values only: {n_nonfinite} non-finite value(s) left out", *est.notes))
    return GroupSummary(
        run=str(run),
        task=str(task),
        model=str(model),
        metric=str(metric_name),
        estimate=est,
        n_dropped=int(sum(dropped.values())),
        dropped=dropped,
        label=labels[str(run)],
        n_nonfinite=n_nonfinite,
    )


def summarize_table(
    df: pd.DataFrame,
    metric: str | None = None,
    level: float = 0.95,
    method: str = "auto",
    cluster_method: str = "cr2",
    notes: list[str] | None = None,
    errors: str = "exclude",
) -> list[GroupSummary]:
    """One :class:`GroupSummary` per (run, task, metric) of a canonical table (errored samples
    under the policy ``errors``: :mod:`evaladdon.table.errored`).

    ``df`` is a validated canonical table (:func:`evaladdon.table.validate` checks that each
    (run, task, metric, item, epoch) occurs once, so it is not checked again here).
    ``metric`` keeps only that metric (an error if no row has it).  Rows with an error or
    no value are left out and counted by reason; when some were non-finite (inf/NaN as
    logged) the record says ``finite_only`` and a note "mean over finite values only".
    Clustered SEs are CR2 with the Bell-McCaffrey df by default.  Clusters are used when the group's
    ``cluster`` column is filled.  A group with no scored row at all is left out with a
    message appended to ``notes`` (an error when ``notes`` is None or no group is left).
    """
    import pandas as pd

    from evaladdon.table import GROUP, label_codes, object_values, run_labels

    if metric is not None:
        from evaladdon.table.checks import rows_of_metric

        df = rows_of_metric(df, metric)
    if df.empty:
        raise EvalAddonError("no rows to summarize")
    labels = run_labels(label_rows(df) if len(df) > 1000 else df)
    # item and cluster labels factorized once, as integer codes, before any statistic (a
    # pyarrow-backed item column reuses the codes table.validate computed); no per-group frame
    item_codes, _ = label_codes(df["item"])
    cluster = df["cluster"]
    # pd.factorize's codes; a pyarrow-backed column through label_codes (arrow's hash kernel)
    cluster_codes = label_codes(cluster)[0] if getattr(cluster.dtype, "storage", None) == "pyarrow" or \
        isinstance(cluster.dtype, pd.CategoricalDtype) else \
        pd.factorize(cluster, use_na_sentinel=True)[0]
    values = df["value"].to_numpy(dtype=float)
    error = object_values(df["error"])  # to_numpy(dtype=object), without a copy of a column with no error
    has_error = ~pd.isna(error)

    def groups() -> Iterable[GroupArrays]:
        for rows in group_positions(df)[1]:
            first = rows.start if isinstance(rows, slice) else int(rows[0])
            run, task, metric_name = (df[c].iat[first] for c in GROUP)
            yield GroupArrays(run, task, df["model"].iat[first], metric_name, values[rows], has_error[rows],
                              error[rows], item_codes[rows], cluster_codes[rows])

    return summarize_groups(groups(), labels, level=level, method=method, cluster_method=cluster_method,
                            notes=notes, errors=errors)


def incomplete_marks(summaries: list[Any], loaded: Any) -> dict[tuple[str, str, str], dict[str, Any]]:
    """(run, task, metric) -> why the summary is incomplete: its log declares more samples than it
    holds (Inspect: ``Loaded.incomplete`` by source; lm-eval: rows ``missing from log``)."""
    table = loaded.table

    def sources(s: Any) -> Any:
        sel = (table["run"] == s.run) & (table["task"] == s.task) & (table["metric"] == s.metric)
        return table.loc[sel, "source"].unique()

    return marks_from(summaries, getattr(loaded, "incomplete", {}) or {}, sources)


def marks_from(summaries: list[Any], by_source: dict[str, dict[str, Any]],
               sources: Callable[[Any], Iterable[Any]]) -> dict[tuple[str, str, str], dict[str, Any]]:
    """:func:`incomplete_marks` given ``sources(summary)``: the sources of the summary's rows, in table order."""
    marks: dict[tuple[str, str, str], dict[str, Any]] = {}
    for s in summaries:
        key = (s.run, s.task, s.metric)
        if s.dropped.get(MISSING_FROM_LOG):
            marks[key] = {"missing": int(s.dropped[MISSING_FROM_LOG]), "basis": "results n-samples"}
        if by_source:
            for src in sources(s):
                if str(src) in by_source:
                    marks[key] = dict(by_source[str(src)], source=str(src))
    return marks
