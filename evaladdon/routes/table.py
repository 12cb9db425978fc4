"""The ``table`` route, the reference: read the inputs into the canonical table (files, a store,
or reduced on a Dask cluster), then ``analysis``.  It never declines: its errors are the user's.

:func:`load_runs` is how every command reads its inputs, so input options mean the same
everywhere; :func:`load` adds the checks of ``--cluster`` and ``--metric`` against the table.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from evaladdon.errors import EvalAddonError

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import CompareOptions, InputOptions, SummarizeOptions
    from evaladdon.routes.results import Comparisons, MetricComparisons, Summaries
    from evaladdon.table.loaded import Loaded

__all__ = ["compare", "compare_metric_family", "load", "load_runs", "summarize"]


def load_runs(inputs: InputOptions) -> Loaded:
    """The canonical table of ``inputs``, with notes on what was skipped: ``paths`` (files and
    directories), or ``store`` with an optional ``where`` filter (DuckDB), and ``engine="dask"``
    for commands reduced on a Dask cluster.  Running out of memory is one line, exit 2."""
    inputs.check()
    try:
        if inputs.engine == "dask":
            from evaladdon.routes.dask_reduce import load_reduced

            return load_reduced(paths=list(inputs.paths), store=inputs.store, where=inputs.where,
                                cluster=inputs.cluster, scheduler=inputs.scheduler)
        if inputs.store:
            from evaladdon.store.query import load_store

            return load_store(inputs.store, where=inputs.where, cluster=inputs.cluster)
        from evaladdon.adapters import read_runs

        # summarize also shows results-only lm-eval files, as harness-reported values
        return read_runs(list(inputs.paths), cluster=inputs.cluster, progress=inputs.progress,
                         results_only=inputs.command == "summarize", split=inputs.split,
                         all_metrics=inputs.all_metrics, answers=inputs.answers,
                         judged=inputs.judged)
    except MemoryError:
        raise EvalAddonError("not enough memory to read these inputs; filter them (--store with --where) "
                             "or use --engine dask") from None


def load(inputs: InputOptions) -> Loaded:
    """:func:`load_runs`, with a wrong ``--cluster`` answered helpfully (the fields that exist,
    the closest first) and a ``--metric`` no row has refused."""
    from evaladdon.table.checks import check_metric, closest, cluster_fields

    cluster = inputs.cluster
    try:
        loaded = load_runs(inputs)
    except EvalAddonError as exc:
        if cluster is None or f"{cluster!r}" not in str(exc) or "did you mean" in str(exc):
            raise
        try:  # read again without clustering to list the fields that exist
            fields = cluster_fields(load_runs(dataclasses.replace(inputs, cluster=None)).table)
        except EvalAddonError:
            raise exc from None
        if not fields:
            raise
        raise EvalAddonError(f"{exc}{closest(cluster, fields)}") from None
    check_metric(loaded.table, inputs.metric)
    return loaded


def summarize(opts: SummarizeOptions) -> Summaries:
    """Summaries of the table, the harness-reported values of results-only lm-eval files, and
    the marks of incomplete logs."""
    from evaladdon.analysis.reported import reported_summaries
    from evaladdon.analysis.summarize import incomplete_marks, summarize_table
    from evaladdon.routes.results import Summaries

    loaded = load(opts.inputs)
    notes = list(loaded.notes)
    # results-only lm-eval files: the harness's own value and stderr, marked as such (not clustered, not paired)
    reported = reported_summaries(loaded.reported, level=opts.level, table=loaded.table, metric=opts.inputs.metric)
    summaries: list[Any] = []
    if not loaded.table.empty or not reported:
        summaries = summarize_table(loaded.table, metric=opts.inputs.metric, level=opts.level, method=opts.method,
                                    cluster_method=opts.cluster_method, notes=notes, errors=opts.errors)
    subgroups = None
    if opts.by is not None and not loaded.table.empty:
        from evaladdon.analysis.subgroups import item_subgroups, summarize_by

        groups = item_subgroups(loaded.table, subgroup_labels(loaded, opts.inputs, opts.by), notes)
        subgroups = summarize_by(loaded.table, groups, opts.by, metric=opts.inputs.metric, level=opts.level,
                                 method=opts.method, cluster_method=opts.cluster_method, min_size=opts.min_size,
                                 notes=notes)
    return Summaries(summaries, loaded, notes, incomplete_marks(summaries, loaded), reported, subgroups=subgroups)


def subgroup_labels(loaded: Loaded, inputs: InputOptions, by: str) -> Any:
    """Each row's ``--by`` label: the column ``by`` or ``meta.<by>`` of the table, else the inputs
    read again with ``by`` as the cluster field (how ``--cluster`` finds an Inspect metadata field,
    an lm-eval doc field or a table column), matched on the row key."""
    from evaladdon.table import KEY

    df = loaded.table
    for name in (by, f"meta.{by}"):
        if name in df.columns and name not in KEY:
            return df[name]
    if inputs.cluster == by:
        return df["cluster"]
    try:
        again = load(dataclasses.replace(inputs, cluster=by)).table
    except EvalAddonError as exc:
        raise EvalAddonError(f"--by {by}: {exc}".replace("--cluster", "--by").replace("to cluster on", "to group by")) \
            from None
    key = list(KEY)
    return df[key].merge(again[key + ["cluster"]], on=key, how="left")["cluster"]


def _loaded_and_bounded(opts: CompareOptions) -> tuple[Loaded, bool]:
    from evaladdon.table.scale import bounded_metric

    loaded = load(opts.inputs)
    df = loaded.table
    metric = opts.inputs.metric
    return loaded, bounded_metric(df if metric is None else df[df["metric"] == metric])


def compare(opts: CompareOptions) -> Comparisons:
    """Paired comparisons of the table's runs (:func:`~evaladdon.analysis.compare_table.compare_table`)."""
    from evaladdon.analysis.compare_table import compare_table
    from evaladdon.routes.results import Comparisons
    from evaladdon.table.names import choose_pairs_in

    loaded = load(opts.inputs)
    skipped: list[Any] = []
    try:
        pairs = choose_pairs_in(loaded.table, baseline=opts.baseline, all_pairs=opts.all_pairs, needs=opts.needs)
        results = compare_table(loaded.table, pairs, opts.inputs.metric, **opts.pairing(), skipped=skipped,
                                errors=opts.errors)
    except EvalAddonError as exc:
        if not loaded.skipped:
            raise
        first = loaded.skipped[0]
        raise EvalAddonError(f"{exc} ({len(loaded.skipped)} input(s) not read; first: {first['path']}: "
                             f"{first['reason']})") from None
    subgroups = None
    if opts.by is not None:
        subgroups = _compare_subgroups(opts, loaded, pairs)
    flips = None
    if opts.flips is not None:  # the items behind the comparisons (needs the per-item rows: this route)
        from evaladdon.adapters.inspect.inputs import full_answers, input_lines
        from evaladdon.analysis.flips import find_flips

        flips = find_flips(loaded.table, pairs, opts.inputs.metric, input_lines, full_answers, better=opts.better)
    return Comparisons(results, loaded, all(r.points for r in results), skipped, flips, subgroups)


def _compare_subgroups(opts: CompareOptions, loaded: Loaded, pairs: Any) -> Any:
    """``compare --by``: :func:`~evaladdon.analysis.subgroups.compare_by` (its notes join the table's)."""
    from evaladdon.analysis.subgroups import compare_by, item_subgroups

    assert opts.by is not None
    notes = loaded.notes
    groups = item_subgroups(loaded.table, subgroup_labels(loaded, opts.inputs, opts.by), notes)
    return compare_by(loaded.table, groups, opts.by, pairs, metric=opts.inputs.metric, pairing=opts.pairing(),
                      min_size=opts.min_size, notes=notes)


def compare_metric_family(opts: CompareOptions) -> MetricComparisons:
    """``compare --metric NAME`` of a metric family (f1_macro, roc_auc, ece, pass@k ...): the
    paired comparisons of :func:`~evaladdon.analysis.metrics.compare_metric` and their gates."""
    from evaladdon.analysis.metrics import compare_metric, metric_gates
    from evaladdon.routes.results import MetricComparisons
    from evaladdon.table import run_labels
    from evaladdon.table.names import choose_pairs_in

    metric = opts.inputs.metric
    assert metric is not None
    loaded, bounded = _loaded_and_bounded(opts)
    opts.gate.margin_for(bounded)  # a margin the metric's scale refuses is an error here too
    df = loaded.table
    pairs = choose_pairs_in(df, baseline=opts.baseline, all_pairs=opts.all_pairs, needs=opts.needs)
    found = compare_metric(df, pairs, metric, level=opts.level, n_boot=opts.n_boot, seed=opts.seed)
    gates = metric_gates(found, metric, opts.gate.margin, opts.gate.fail_on_regression)
    regression = opts.gate.fail_on_regression and any(g.is_regression for g in gates)
    return MetricComparisons(found, gates, run_labels(df), loaded, regression)
