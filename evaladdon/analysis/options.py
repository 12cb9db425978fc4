"""Options records: what a command asks, built once from the command line (``cli/options.py``)
and read below it; nothing under ``cli/`` sees an argparse object.

Frozen, so a route cannot change what the next route is asked.  ``InputOptions`` says what to
read and how (files, or a store with a filter; the local or the Dask engine); each command adds
its own record (``SummarizeOptions``, ``CompareOptions``) holding it.  ``RoutePolicy`` is how a
caller (a test, a benchmark) forces or excludes a route and sets the routes' limits; the command
line always takes the default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from evaladdon.errors import EvalAddonError
from evaladdon.table.direction import BETTER
from evaladdon.table.errored import check_policy
from evaladdon.table.names import COMPARE_NEEDS, pairs_needed

__all__ = ["CompareOptions", "Effect", "GateOptions", "InputOptions", "Margin", "RouteLimits", "RoutePolicy",
           "SummarizeOptions"]

Margin = float | Callable[[bool], "float | None"] | None
"""A gate's margin: a number on the metric's scale, a function of the comparison's scale giving
it (``True``: the metric is shown in points), or None (no gate)."""


@dataclass(frozen=True)
class Effect:
    """An effect size as typed: ``value`` in points when ``points`` else as a bare number."""

    text: str
    value: float
    points: bool

    def resolve(self, bounded: bool = True, flag: str = "--margin") -> float:
        """The effect on the metric's own scale (a fraction for a metric bounded in [0, 1]).

        A bare number >= 1 on a bounded metric is an error with a hint.  Points on an
        unbounded metric are refused (a point is a hundredth of a proportion).
        """
        if self.points:
            if not bounded:
                raise EvalAddonError(f"{flag} {self.text}: points apply to metrics in [0, 1]; "
                                     "give the difference in the metric's own units")
            return self.value / 100.0
        if bounded and abs(self.value) >= 1:
            hint = f"{self.value:g}pt"
            raise EvalAddonError(f"{flag} {self.text} would be {100 * self.value:g} points on a metric in [0, 1]; "
                                 f"did you mean {hint}? (bare numbers are fractions: 0.02 = 2pt)")
        return self.value


DASK_COMMANDS = ("summarize", "compare", "report", "ingest")


@dataclass(frozen=True)
class RouteLimits:
    """The thresholds routes decide by (bytes, records, rows, files).  Each default is what was
    measured (the numbers below); tests and benchmarks pass other values to force a route or a
    partitioning instead of patching module globals."""

    spill_bytes: int = 24 * 2**20
    """A lone ``.json`` Inspect log larger than this is summarized spilled to partitions.
    Measured (peak RSS of ``summarize --json`` in memory, VmHWM) on 24 MiB logs of the tiniest
    scored records (``{"id":1,"epoch":1,"scores":{"m":{"value":1}}}``, 45-101 bytes: integer,
    short and UUID ids, 1 and 5 epochs, with and without a cluster field): 81-87 MB; at 32 MiB
    85-94 MB."""

    max_records: int = 150_000
    """A lone ``.json`` log read in memory that turns out to hold more records than this is read
    again spilled: the bound for logs below ``spill_bytes`` of records tinier still (an unscored
    ``{"id":1,"epoch":1}``, 18 bytes, costs ~150 bytes in memory: 1M of them in 24 MiB took
    195 MB, 157,000 85 MB, 197,000 90 MB)."""

    part_bytes: int = 2**20
    """Bytes of JSON per partition: K = the power of two at or above size / part_bytes (at least
    2).  Small, so that a partition of the tiniest records (18 bytes: ~58,000 of them) stays
    small; the batches (``batch_records``) make up for the number of partitions."""

    parts: int | None = None
    """This many partitions (a power of two) whatever the size (tests)."""

    batch_records: int = 50_000
    """Records of consecutive partitions built together as one part (a partition with more is
    built alone): the fewer parts, the less per-part work; a log within one batch gives one part,
    the in-memory path's numbers exactly.  Measured peak RSS spilled, 1M tiny UUID-id samples
    with ``--cluster``: 75 / 81 / 92 MB at 50,000 / 100,000 / 200,000 (CPU the same); 1.3M
    integer-id samples of 5 epochs: 70 MB at 50,000."""

    merge_files: int = 512
    """Partition files open at once in a batch's merge, at most (a batch of more is split), and
    at most half the process's soft limit of open files."""

    few_clusters: int = 50_000
    """With ``--cluster``: a log of at most this many distinct cluster labels is built as
    without (batches of id partitions, global cluster codes); a log of more is re-routed by
    cluster."""

    lopsided_records: int = 100_000
    """With ``--cluster`` re-routed by cluster: a partition of more records than this (twice
    ``batch_records``) that also holds a quarter of the log's is lopsided: the log is read in
    memory after all."""

    store_group_rows: int = 2_000_000
    """A store selection of more rows is summarized (or compared against a baseline) a group of
    logs of about this many rows at a time."""

    store_array_rows: int = 1_000_000
    """A store selection of at most this many rows (by the manifest's counts) is compared from
    DuckDB's numpy arrays, without pandas; above it the table route's grouping on integer codes
    is faster, and pandas' import no longer matters."""


@dataclass(frozen=True)
class RoutePolicy:
    """Which routes ``routes.plan`` may take and with what limits (default: all, today's limits).

    ``only`` names the one route to take (it must not decline); ``exclude`` names routes to
    skip; ``limits`` (a :class:`RouteLimits`, None: the defaults)
    holds every threshold a route decides by; ``observe`` is called with the
    :class:`~evaladdon.routes.plan.Outcome` of each command (which route ran, which declined)."""

    only: str | None = None
    exclude: frozenset[str] = frozenset()
    limits: RouteLimits | None = None
    observe: Callable[[Any], None] | None = None


@dataclass(frozen=True)
class InputOptions:
    """What a command reads: ``paths`` (files and directories, ``NAME=PATH`` allowed) or a
    ``store`` with a ``where`` filter; ``engine`` local or dask (with a ``scheduler``);
    ``cluster`` the field to cluster on; ``metric`` the one metric to use; ``progress`` a
    progress bar on stderr; ``split`` and ``all_metrics`` what a HELM run shows (None: its
    ``test`` split; bookkeeping stats only with ``all_metrics``); ``command`` the command reading (dask serves only some; summarize
    also shows results-only lm-eval files)."""

    paths: tuple[str, ...] = ()
    store: str | None = None
    where: str | None = None
    engine: str = "local"
    scheduler: str | None = None
    cluster: str | None = None
    metric: str | None = None
    progress: bool = False
    split: str | None = None
    all_metrics: bool = False
    command: str | None = None
    routes: RoutePolicy = field(default_factory=RoutePolicy)
    answers: bool = False  # lm-eval generation answers and targets too (ReadOptions.answers): for rescore
    judged: bool = False  # promptfoo/DeepEval model-graded answers and graders too (ReadOptions.judged): judge bias

    def check(self) -> None:
        """The errors of inputs that cannot be read together (one line each, exit 2)."""
        if self.store and self.paths:
            raise EvalAddonError("give PATHs or --store DIR, not both (ingest the paths into the store first)")
        if self.where and not self.store:
            raise EvalAddonError("--where filters a store: add --store DIR")
        if not self.store and not self.paths:
            raise EvalAddonError("nothing to read: the following arguments are required: PATH (or --store DIR)")
        if self.scheduler and self.engine != "dask":
            raise EvalAddonError("--scheduler needs --engine dask")
        if (self.split is not None or self.all_metrics) and (self.store or self.engine == "dask"):
            raise EvalAddonError("--split and --all-metrics choose what HELM runs show when read from files; "
                                 "not with --store or --engine dask")
        if self.engine == "dask" and self.command not in DASK_COMMANDS:
            raise EvalAddonError(f"--engine dask works with {', '.join(DASK_COMMANDS)}, not {self.command}")

    @property
    def local(self) -> bool:
        return self.engine == "local"


@dataclass(frozen=True)
class SummarizeOptions:
    """``summarize``: one estimate per (run, task, metric) at ``level`` by ``method``."""

    inputs: InputOptions
    level: float = 0.95
    method: str = "auto"
    cluster_method: str = "cr2"
    by: str | None = None
    """``--by FIELD``: also one estimate per subgroup of this field (None: none)."""
    min_size: int = 30
    """``--min-size``: subgroups of fewer items are flagged small."""
    errors: str = "exclude"
    """Errored samples: exclude, fail or bounds (:mod:`evaladdon.table.errored`)."""
    flaky: bool = False
    """Also the flaky items of runs with repeats (:mod:`evaladdon.analysis.flaky`): from the table."""

    def __post_init__(self) -> None:
        check_policy(self.errors)


@dataclass(frozen=True)
class GateOptions:
    """The regression gate: ``margin`` (a drop that does not matter), ``fail_on_regression``
    (exit 1 on one), ``allow_skipped`` (pass although an input or comparison was skipped)."""

    margin: Effect | None = None
    fail_on_regression: bool = False
    allow_skipped: bool = False

    def __post_init__(self) -> None:
        if self.margin is not None and self.margin.value < 0:  # negative on every scale: refused up front
            raise EvalAddonError(f"--margin {self.margin.text}: the margin is a drop that does not matter; give it >= 0")

    def margin_for(self, bounded: bool) -> float | None:
        """The margin on the comparison's scale (``bounded``: its values lie in [0, 1], shown in
        points); None without a gate.  The pairing loop calls it for each comparison, so the
        margin is read in the units that comparison is shown in."""
        if self.margin is None and not self.fail_on_regression:
            return None
        return self.margin.resolve(bounded, "--margin") if self.margin is not None else 0.0


@dataclass(frozen=True)
class CompareOptions:
    """``compare``: paired comparisons of runs (against ``baseline``, all pairs, or the two)."""

    inputs: InputOptions
    baseline: str | None = None
    all_pairs: bool = False
    level: float = 0.95
    test: str = "auto"
    interval: str = "auto"
    cluster_method: str = "cr2"
    adjust: str = "holm"
    strict: bool = False
    gate: GateOptions = field(default_factory=GateOptions)
    power: float = 0.8
    seed: int | None = 0
    n_boot: int = 2000
    flips: int | None = None
    """``--flips [N]``: list the items that flipped, N per comparison (0: all; None: none)."""
    by: str | None = None
    """``--by FIELD``: also one comparison per subgroup of this field (None: none)."""
    min_size: int = 30
    """``--min-size``: subgroups of fewer items are flagged small."""
    errors: str = "exclude"
    """Errored samples: exclude, fail or bounds (:mod:`evaladdon.table.errored`); the gate also fails
    when the candidate errors significantly more than the baseline, except under ``fail``."""
    max_flaky: float | None = None
    """The gate fails when a candidate has more than this share of its repeated items unstable."""

    equivalence: Effect | None = None
    """``--equivalence M``: also test each comparison for equivalence within +/- M (TOST;
    :mod:`evaladdon.analysis.equivalence`)."""
    needs: str = COMPARE_NEEDS
    """What the refusal says when the runs are not two (:func:`~evaladdon.table.names.pairs_needed`):
    the asking command's name and options (``gate`` has no ``--all-pairs``)."""
    better: str | None = None
    """``--better higher|lower``: which way is better for the metrics compared where the logs
    declare nothing (:func:`evaladdon.table.direction.lower_is_better`; None: the built-in names)."""

    def __post_init__(self) -> None:
        check_policy(self.errors)
        if self.better is not None and self.better not in BETTER:
            raise EvalAddonError(f"--better {self.better}: give higher or lower")
        if self.max_flaky is not None and not 0.0 <= self.max_flaky < 1.0:
            raise EvalAddonError(f"--max-flaky {self.max_flaky:g}: give a share in [0, 1) (0.1 = 10 % of items)")

    def pairing(self) -> dict[str, Any]:
        """The keywords every compare route hands the pairing loop (one list, so that no route
        can leave one out): level, test, interval, cluster method, strict, adjustment, the
        margin as a function of each comparison's scale (:meth:`GateOptions.margin_for`, so it
        is read in the units the comparison is shown in), the seed and which way is better
        (``--better``; the logs' declarations come with the rows, by route)."""
        return {"level": self.level, "test": self.test, "interval": self.interval,
                "cluster_method": self.cluster_method, "strict": self.strict, "adjust": self.adjust,
                "margin": self.gate.margin_for, "seed": self.seed, "better": self.better}


@dataclass(frozen=True)
class SequentialOptions:
    """``compare --sequential`` and ``watch``: anytime-valid intervals read in the logged order.

    ``baseline``: the run every other run is paired with (None: the only two runs, or for
    ``watch`` without a baseline the single run's own score); ``margin``: the gate's margin
    (read on each metric's scale); ``method``: ``betting``, ``bernstein`` or ``mixture``
    (unbounded scores always use the mixture); ``live``: the log may still be written, so an
    item counts only once all its epochs are in (:mod:`evaladdon.analysis.sequential`)."""

    inputs: InputOptions
    baseline: str | None = None
    level: float = 0.95
    margin: Effect | None = None
    method: str = "betting"
    live: bool = False
    needs: str = pairs_needed("compare --sequential", ("--baseline RUN",))
    """What the refusal says when the runs are not two (``watch`` says its own name)."""
    better: str | None = None
    """``--better higher|lower`` where the logs declare nothing (:func:`evaladdon.table.direction.lower_is_better`)."""
