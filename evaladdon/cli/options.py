"""Flags shared by several subcommands, so they mean the same everywhere, and the options records
built from them (``*_options(args)``: the only place below which no argparse object travels)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.options import CompareOptions, InputOptions, SequentialOptions, SummarizeOptions
    from evaladdon.table.loaded import Loaded

ENGINES = ("local", "dask")


def add_output(p: argparse.ArgumentParser, markdown: bool = True) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="print JSON for machines")
    if markdown:
        g.add_argument("--markdown", action="store_true", help="print a markdown table (PR comments)")
    p.add_argument("--quiet", action="store_true", help="print only the table and the counts of what was left out (no other warnings or notes)")


def add_store(p: argparse.ArgumentParser, engine: bool = False) -> None:
    """``--store DIR --where SQL`` (and ``--engine``/``--scheduler`` when ``engine``).

    The command's ``paths`` positional becomes optional: with ``--store`` the runs come from
    the store.  (argparse reads ``nargs`` when it parses, so changing it here is enough.)
    """
    for action in p._actions:  # noqa: SLF001 - argparse has no public way to relax nargs
        if action.dest == "paths" and action.nargs == "+":
            action.nargs = "*"
    g = p.add_argument_group("store of runs")
    g.add_argument("--store", metavar="DIR", help="read runs from this store (see `evaladdon ingest`)")
    g.add_argument("--where", metavar="SQL",
                   help="with --store: which rows, a DuckDB expression, e.g. \"model LIKE 'ckpt-%%' AND task = 'gsm8k'\"")
    if engine:
        g.add_argument("--engine", choices=ENGINES, default="local",
                       help="local (default) or dask: parse and reduce on a Dask cluster")
        g.add_argument("--scheduler", metavar="ADDRESS",
                       help="with --engine dask: the scheduler (default: start a local cluster); its workers "
                            "read the PATHs or the --store themselves, so they must see them at the same path")


def level_type(text: str) -> float:
    """``--level``: a confidence level strictly between 0 and 1, refused at the flag (one line naming
    it) rather than deep in an estimator as "alpha must be in (0, 1), got -0.5" or under a file's name."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"--level must be a confidence level strictly between 0 and 1 "
                                         f"(0.95 = 95 %), got {text!r}")
    return value


def add_inputs(p: argparse.ArgumentParser, engine: bool = True) -> None:
    """``--metric --cluster --level``, HELM's ``--split --all-metrics`` and the store; ``--engine``
    and ``--scheduler`` only where the command runs on a Dask cluster (``engine``: the commands of
    :data:`evaladdon.analysis.options.DASK_COMMANDS`), so no help offers a flag the command refuses."""
    p.add_argument("--metric", help="only this metric")
    p.add_argument("--cluster", metavar="FIELD", help="column (tables) or metadata field (logs) to cluster on")
    p.add_argument("--level", type=level_type, default=0.95, help="confidence level (default 0.95)")
    g = p.add_argument_group("HELM runs")
    g.add_argument("--split", metavar="NAME",
                   help="the split to read (default: test, the split HELM's leaderboard reports)")
    g.add_argument("--all-metrics", action="store_true",
                   help="also show HELM's bookkeeping stats (token counts, finish reasons, runtimes ...)")
    add_store(p, engine=engine)


def add_better(p: argparse.ArgumentParser) -> None:
    """``--better higher|lower``: which way is better for the metrics compared or ranked where the
    logs declare nothing (evaladdon.table.direction; a contradiction of a declaration is refused)."""
    p.add_argument("--better", choices=("higher", "lower"), default=None,
                   help="which way is better for the metrics where the logs declare nothing (CSV/long tables, "
                        "Inspect scorers): lower for perplexity, error rates, costs (default: the log's "
                        "declaration, else lower for well-known names such as perplexity, ece, brier, else higher)")


def add_errors(p: argparse.ArgumentParser) -> None:
    """``--errors exclude|fail|bounds``: how errored samples count (evaladdon.table.errored)."""
    p.add_argument("--errors", choices=("exclude", "fail", "bounds"), default="exclude",
                   help="errored samples (sample errors, limits, unscored samples, provider errors): exclude "
                        "(default; Inspect's default), fail (score 0: Inspect's score_on_error) or bounds "
                        "(also the worst and best case)")


def show_progress(args: argparse.Namespace) -> bool:
    """A progress bar only for people: not with --quiet/--json, nor when stderr is no terminal."""
    import sys

    return not getattr(args, "quiet", False) and not getattr(args, "json", False) and sys.stderr.isatty()


def input_paths(args: argparse.Namespace) -> list[str]:
    """Every file a command reads (for the never-overwrite-an-input check of writers)."""
    paths = [str(p) for p in (getattr(args, "paths", None) or [])]
    store = getattr(args, "store", None)
    if store:
        paths.append(str(store))
    return paths


# ---------------------------------------------------------------- options records (the only readers of args)


def input_options(args: argparse.Namespace) -> InputOptions:
    """What the command reads, from its flags (``route_policy``: set by ``main(routes=...)``)."""
    from evaladdon.analysis.options import InputOptions, RoutePolicy

    return InputOptions(
        paths=tuple(str(p) for p in (getattr(args, "paths", None) or [])),
        store=getattr(args, "store", None),
        where=getattr(args, "where", None),
        engine=getattr(args, "engine", "local") or "local",
        scheduler=getattr(args, "scheduler", None),
        cluster=getattr(args, "cluster", None),
        metric=getattr(args, "metric", None),
        progress=show_progress(args),
        split=getattr(args, "split", None),
        all_metrics=bool(getattr(args, "all_metrics", False)),
        command=getattr(args, "command", None),
        routes=getattr(args, "route_policy", None) or RoutePolicy(),
        answers=getattr(args, "command", None) == "rescore" or bool(getattr(args, "rules", None)),
        judged=bool(getattr(args, "judged", False)),
    )


def summarize_options(args: argparse.Namespace) -> SummarizeOptions:
    from evaladdon.analysis.options import SummarizeOptions

    return SummarizeOptions(input_options(args), level=args.level, method=args.method,
                            cluster_method=args.cluster_method, by=getattr(args, "by", None),
                            min_size=_min_size(args), errors=getattr(args, "errors", "exclude"),
                            flaky=getattr(args, "flaky", None) is not None)


def compare_options(args: argparse.Namespace) -> CompareOptions:
    from evaladdon.analysis.options import CompareOptions, GateOptions

    gate = GateOptions(margin=args.margin, fail_on_regression=args.fail_on_regression,
                       allow_skipped=getattr(args, "allow_skipped", False))
    return CompareOptions(input_options(args), baseline=args.baseline, all_pairs=args.all_pairs, level=args.level,
                          test=args.test, interval=args.interval, cluster_method=args.cluster_method,
                          adjust=args.adjust, strict=args.strict, gate=gate, power=args.power, seed=args.seed,
                          n_boot=getattr(args, "n_boot", 2000), flips=_flips(args), by=getattr(args, "by", None),
                          min_size=_min_size(args), errors=getattr(args, "errors", "exclude"),
                          max_flaky=getattr(args, "max_flaky", None), equivalence=getattr(args, "equivalence", None),
                          better=getattr(args, "better", None))


def add_by(p: argparse.ArgumentParser) -> None:
    """``--by FIELD`` and ``--min-size N`` (summarize, compare)."""
    p.add_argument("--by", metavar="FIELD",
                   help="also one result per subgroup of this metadata field, doc field or column, with a test "
                        "of whether the subgroups differ")
    p.add_argument("--min-size", type=int, default=30, metavar="N",
                   help="with --by: flag subgroups of fewer than N items as small (default 30)")


def _min_size(args: argparse.Namespace) -> int:
    from evaladdon.errors import EvalAddonError

    n = getattr(args, "min_size", 30)
    if n < 1:
        raise EvalAddonError(f"--min-size {n}: give the smallest subgroup size that is not flagged (>= 1)")
    if n != 30 and getattr(args, "by", None) is None:  # not silently ignored
        raise EvalAddonError(f"--min-size {n} is read only with --by FIELD (the subgroups it flags)")
    return int(n)


def _flips(args: argparse.Namespace) -> int | None:
    """``--flips [N]``: N flips per comparison (0: all), None when not asked; a negative N refused."""
    from evaladdon.errors import EvalAddonError

    n = getattr(args, "flips", None)
    if n is not None and n < 0:
        raise EvalAddonError(f"--flips {n}: give how many flips to list per comparison (0: all)")
    return n


def load_runs(args: argparse.Namespace) -> Loaded:
    """The canonical table of the command's inputs as read, through
    :func:`evaladdon.routes.plan.load_table` (every command that reads runs goes through it, so
    input options mean the same everywhere)."""
    from evaladdon.routes.plan import load_table

    return load_table(input_options(args), check_names=False)


def sequential_options(args: argparse.Namespace, live: bool) -> SequentialOptions:
    """``compare --sequential`` and ``watch``: :class:`~evaladdon.analysis.options.SequentialOptions`."""
    from evaladdon.analysis.options import SequentialOptions
    from evaladdon.table.names import pairs_needed

    needs = ("watch reads one run or two, or --baseline RUN" if getattr(args, "command", None) == "watch"
             else pairs_needed("compare --sequential", ("--baseline RUN",)))
    return SequentialOptions(input_options(args), baseline=getattr(args, "baseline", None), level=args.level,
                             margin=args.margin, method=args.sequence, live=live, needs=needs,
                             better=getattr(args, "better", None))
