"""The one place that picks a route: :func:`plan_summarize` and :func:`plan_compare` list the
routes that may serve a command's options, fastest first; :func:`run` takes the first that does
not decline.

Decision table (``docs/dev/redesign-map.md`` §4 has the measurements behind each row):

``summarize``  (``--errors fail|bounds``, ``--flaky``: the table route alone)
  1. ``inspect_columns`` -- PATHs on the local engine, no ``--store``/``--where``/``--scheduler``:
     Inspect logs read to a few numbers per sample, without pandas (one large ``.json`` log
     spilled to partitions on disk); declines on any input it cannot be sure to read as the
     table route does.
  2. ``store_groups`` -- ``--store`` on the local engine: a group of stored logs at a time;
     declines when the selection is read at once.
  3. ``dask_store`` -- ``--engine dask`` on ``--store`` (no ``--cluster``) or on PATHs (no
     ``--scheduler``): each worker summarizes a group of stored logs, or reads and summarizes
     its share of the PATHs itself (no store written), and sends back only the summaries;
     declines on a store whose runs may clash, a log the manifest does not describe, ``--by``;
     PATHs that must be read together are read on the driver by the local engine.
  4. ``table`` -- always.

``compare``  (``--errors fail|bounds``, ``--max-flaky``: the table route alone; refused with a metric family)
  1. ``store_arrays`` -- ``--store`` on the local engine, no ``--cluster``, not a metric family:
     DuckDB's arrays, without pandas; declines on a large selection or rows that are not a
     canonical store's.
  2. ``store_groups`` -- ``--store --baseline`` on the local engine, not a metric family: a
     group of stored logs at a time; declines when the selection is read at once or the
     manifest disagrees with the rows.
  3. ``dask_compare`` -- ``--engine dask``, not a metric family: on ``--store`` (no ``--cluster``)
     each worker reduces a group of stored logs to per-item statistics of each (run, task,
     metric) and sends back only those; on PATHs (:mod:`~evaladdon.routes.dask_compare_paths`)
     each worker reads its share of the files with the local engine's reader, one file at a
     time, and sends back the same sides; the driver pairs them.  Declines as ``store_arrays``
     does, and on PATHs that must be read together (one run's (task, metric) in two files,
     ``NAME=PATH``, a named file that cannot be read alone).  ~1.0x local CPU on a store; on
     PATHs 1.0-1.14x local CPU at 0.42-0.65x its peak memory (``bench_dask.py --table``), where
     the table route took 2.0-2.4x and 2.3-3.1x.
  4. ``inspect_arrays`` -- PATHs on the local engine, not a metric family: Inspect logs read by
     the lean reader of ``inspect_columns`` (with content hashes) into the arrays ``store_arrays``
     pairs, without pandas; declines on any input it cannot be sure to read as the table route
     does, and on any error (the table route gives it).
  5. ``metric_family`` -- ``--metric`` names a metric family (f1_macro, roc_auc, ece, pass@k).
  6. ``table`` -- otherwise.

``metrics``, ``rank``, ``judge``, ``report``, ``export`` (the canonical table itself)
  1. ``table`` -- the one route today (read at once; with ``--engine dask`` each file, stored or
     a PATH read on a worker without a store, reduced on the cluster to per-item statistics and
     the rows rebuilt on the driver: :mod:`evaladdon.routes.dask_reduce`, also ``compare``'s
     reading when ``dask_compare`` declines): :func:`plan_table`, and :func:`load_table` to run it.

A route declines by raising :class:`Decline`; the last route never declines.  The caller may
force one route (``RoutePolicy.only``), exclude some, set :class:`~evaladdon.analysis.options.RouteLimits`
and observe the :class:`Outcome`: tests and benchmarks use that instead of module switches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evaladdon.analysis.options import RouteLimits
from evaladdon.errors import EvalAddonError
from evaladdon.routes.results import (Comparisons, Decline, MetricComparisons, Outcome, Route,  # noqa: F401 - the
                                      Summaries)  # records are the plan's words

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import CompareOptions, InputOptions, RoutePolicy, SummarizeOptions
    from evaladdon.table.loaded import Loaded

__all__ = ["Comparisons", "Decline", "MetricComparisons", "Outcome", "Route", "Summaries", "load_table",
           "plan_compare", "plan_summarize", "plan_table", "run"]


def _choose(routes: list[Route], policy: RoutePolicy) -> list[Route]:
    names = [r.name for r in routes]
    if policy.only is not None:
        if policy.only not in names:
            raise EvalAddonError(f"route {policy.only!r} cannot serve these options (possible: {', '.join(names)})")
        return [r for r in routes if r.name == policy.only]
    kept = [r for r in routes if r.name not in policy.exclude]
    if not kept:
        raise EvalAddonError(f"every route that can serve these options is excluded ({', '.join(names)})")
    return kept


def plan_summarize(opts: SummarizeOptions) -> list[Route]:
    """The routes that may serve ``summarize`` with ``opts``, in the order to try them."""
    from evaladdon.routes import table

    opts.inputs.check()  # inputs that cannot be read together: before any route
    i, policy = opts.inputs, opts.inputs.routes
    limits = policy.limits or RouteLimits()
    routes = []
    # --errors fail/bounds re-score rows the fast routes never code (their items: usable rows only)
    fast = opts.errors == "exclude" and not opts.flaky  # --flaky reads the table's rows
    if i.paths and i.engine == "local" and not i.store and not i.where and not i.scheduler and fast:

        def columns() -> Any:
            from evaladdon.routes.inspect_columns import summarize

            _by_items(opts.by)
            return summarize(opts, limits)

        routes.append(Route("inspect_columns", columns))
    if i.store and i.engine == "local" and fast:

        def store_groups() -> Any:
            from evaladdon.routes.store_groups import summarize

            _by_items(opts.by)
            return summarize(opts, limits)

        routes.append(Route("store_groups", store_groups))
    if i.engine == "dask" and (i.cluster is None if i.store else not i.scheduler) and fast:

        def dask_store() -> Any:
            from evaladdon.routes import dask_paths, dask_store as store

            _by_items(opts.by)
            return store.summarize(opts, limits) if i.store else dask_paths.summarize(opts)

        routes.append(Route("dask_store", dask_store))
    routes.append(Route("table", lambda: table.summarize(opts)))
    return _choose(routes, policy)


def plan_compare(opts: CompareOptions) -> list[Route]:
    """The routes that may serve ``compare`` with ``opts``, in the order to try them."""
    from evaladdon.routes import table
    from evaladdon.stats.families.names import family_of

    opts.inputs.check()  # inputs that cannot be read together: before any route
    i, policy = opts.inputs, opts.inputs.routes
    limits = policy.limits or RouteLimits()
    family = bool(i.metric and family_of(i.metric))
    # --errors fail re-scores rows, --max-flaky reads every repeat: the table route alone
    fast = opts.errors == "exclude" and opts.max_flaky is None
    routes = []
    if i.store and i.engine == "local" and i.cluster is None and not family and fast:

        def store_arrays() -> Any:
            from evaladdon.routes.store_arrays import compare

            _per_item_rows(opts)
            return compare(opts, limits)

        routes.append(Route("store_arrays", store_arrays))
    if i.store and i.engine == "local" and opts.baseline is not None and not family and fast:

        def store_groups() -> Any:
            from evaladdon.routes.store_groups import compare

            _per_item_rows(opts)
            return compare(opts, limits)

        routes.append(Route("store_groups", store_groups))
    routes += _dask_compare(opts, limits, offered=not family and fast)
    routes += _inspect_arrays(opts, limits, offered=not family and fast)
    if family and opts.by is not None:
        raise EvalAddonError(f"--by splits per-item scores into subgroups; --metric {i.metric} is a metric of the "
                             "whole run (compare a subgroup with --where on a store instead)")
    if family and opts.flips is not None:
        raise EvalAddonError(f"--flips lists items whose score changed; --metric {i.metric} is a metric of the "
                             "whole run, with no per-item score to flip")
    if family and opts.max_flaky is not None:
        raise EvalAddonError(f"--max-flaky reads the items of a mean of item scores, not --metric {i.metric}")
    if family and opts.errors != "exclude":
        raise EvalAddonError(f"--errors {opts.errors} applies to means of item scores, not to --metric {i.metric} "
                             "(its errored samples are left out and counted)")
    if family:
        routes.append(Route("metric_family", lambda: table.compare_metric_family(opts)))
    else:
        routes.append(Route("table", lambda: table.compare(opts)))
    return _choose(routes, policy)


def _dask_compare(opts: CompareOptions, limits: RouteLimits, offered: bool) -> list[Route]:
    """The ``dask_compare`` route when it may serve ``opts``: ``--store --engine dask`` without
    ``--cluster`` (clusters are set when ingesting), or PATHs under ``--engine dask``."""
    i = opts.inputs
    if not (offered and i.engine == "dask" and (i.cluster is None or not i.store)):
        return []

    def dask_compare() -> Any:
        from evaladdon.routes import dask_compare, dask_compare_paths

        _per_item_rows(opts)
        return (dask_compare if i.store else dask_compare_paths).compare(opts, limits)

    return [Route("dask_compare", dask_compare)]


def _inspect_arrays(opts: CompareOptions, limits: RouteLimits, offered: bool) -> list[Route]:
    """The ``inspect_arrays`` route when it may serve ``opts``: PATHs on the local engine."""
    i = opts.inputs
    if not (offered and i.paths and i.engine == "local" and not i.store and not i.where and not i.scheduler):
        return []

    def inspect_arrays() -> Any:
        from evaladdon.routes.inspect_arrays import compare

        _per_item_rows(opts)
        return compare(opts, limits)

    return [Route("inspect_arrays", inspect_arrays)]


def _per_item_rows(opts: CompareOptions) -> None:
    """Decline a route that pairs numbers without the per-item rows ``--flips`` lists."""
    if opts.flips is not None:
        raise Decline("--flips needs each item's rows (answers, inputs); only the table route keeps them")
    _by_items(opts.by)


def _by_items(by: str | None) -> None:
    """Decline a route that cannot give each item's subgroup (``--by``)."""
    if by is not None:
        raise Decline("--by needs each item's subgroup field; only the table route reads it")


def plan_table(inputs: InputOptions, *, check_names: bool = True) -> list[Route]:
    """The routes that may give the canonical table of ``inputs`` to the commands that need the
    table itself.  ``check_names``: a wrong ``--cluster`` answered with the fields that exist and a
    ``--metric`` no row has refused (:func:`evaladdon.routes.table.load`); else the table as read
    (:func:`evaladdon.routes.table.load_runs`)."""
    from evaladdon.routes import table

    read = table.load if check_names else table.load_runs
    return _choose([Route("table", lambda: read(inputs))], inputs.routes)


def load_table(inputs: InputOptions, *, check_names: bool = True) -> Loaded:
    """:func:`run` of :func:`plan_table`: the canonical table of ``inputs`` with its notes."""
    loaded: Loaded = run(plan_table(inputs, check_names=check_names), inputs.routes).value
    return loaded


def subgroup_labels(loaded: Loaded, inputs: InputOptions, by: str) -> Any:
    """Each row's ``--by`` label (:func:`evaladdon.routes.table.subgroup_labels`), for a command
    that holds the table already (``report --by``)."""
    from evaladdon.routes import table

    return table.subgroup_labels(loaded, inputs, by)


def run(routes: list[Route], policy: RoutePolicy | None = None) -> Outcome:
    """The answer of the first route that does not decline (a forced route must not decline)."""
    observe = policy.observe if policy is not None else None
    declined: list[tuple[str, str]] = []
    for k, route in enumerate(routes):
        try:
            value = route.go()
        except Decline as exc:
            declined.append((route.name, str(exc)))
            if k == len(routes) - 1:
                raise EvalAddonError(f"route {route.name!r} declined: {exc}") from None
            continue
        except Exception as exc:  # the user's error (one line, exit 2): observed, then raised as it is
            if observe is not None:
                observe(Outcome(route.name, None, declined, error=f"{type(exc).__name__}: {exc}"))
            raise
        outcome = Outcome(route.name, value, declined, getattr(value, "route_detail", None))
        if observe is not None:
            observe(outcome)
        return outcome
    raise EvalAddonError("no route can serve these options")  # pragma: no cover - the last never declines
