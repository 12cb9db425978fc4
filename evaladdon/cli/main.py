"""Entry point: ``evaladdon SUBCOMMAND ...``.

Exit codes: 0 ok, 1 regression shown (the ``compare`` gate), 2 usage or input error; 130 on
Ctrl-C and 143 on SIGTERM, after the command's ``finally`` blocks and context managers have run
(temporary folders removed, a store left as it was).
Errors print one line on stderr (``evaladdon: error: <where>: <what>``); ``--debug``
(before or after the subcommand) shows the traceback instead.

Start-up is kept short: only the module of the subcommand that runs is imported (each
subcommand module is listed in :data:`COMMANDS` with its one-line help), so ``--help`` and
``ci`` never import pandas or a harness.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from typing import Any, Iterator, NoReturn, Sequence

from evaladdon import __version__

EXIT_OK, EXIT_REGRESSION, EXIT_USAGE = 0, 1, 2
EXIT_TERMINATED = 128 + 15  # the shell's status of a process ended by SIGTERM

# name -> (module under evaladdon.cli, one-line help). Add a subcommand with one line here;
# its module provides ``add_parser(sub)`` (registering under the same name) and ``run(args)``.
COMMANDS: dict[str, tuple[str, str]] = {
    "summarize": ("summarize_cmd", "score, SE and interval per run, task and metric"),
    "compare": ("compare_cmd", "paired comparison of two or more runs on shared items"),
    "gate": ("gate_cmd", "judge runs against a gate policy (tiers, max drops, equivalence); exit 0/1/2"),
    "power": ("power_cmd", "minimum detectable effect, sample size or power of a design"),
    "judge": ("judge_cmd", "correct LLM-judge pass rates with human labels"),
    "ci": ("ci_cmd", "confidence interval for k successes out of n"),
    "report": ("report_cmd", "one self-contained HTML report with tables and plots"),
    "export": ("export_cmd", "write the canonical per-item table (csv, jsonl, parquet)"),
    "rank": ("rank_cmd", "leaderboard with rating and rank intervals (Bradley–Terry or per-item scores)"),
    "metrics": ("metrics_cmd", "classification, ROC/PR, calibration and pass@k metrics with intervals"),
    "ingest": ("ingest_cmd", "store the canonical tables of logs in a Parquet dataset (DuckDB queries)"),
    "rescore": ("rescore_cmd", "re-score runs from their logged answers under another scoring rule (no model called)"),
    "runs": ("runs_cmd", "list the runs kept in a store"),
    "watch": ("watch_cmd", "anytime-valid interval and decision of a run still being written"),
    "lm-eval-stderr": ("lm_eval_cmd", "write clustered / group-level SEs next to lm-eval results files"),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2 (argparse prints usage too)
        from evaladdon.report.escape import clean

        sys.stderr.write(f"evaladdon: error: {clean(' '.join(message.split()))}\n")
        raise SystemExit(EXIT_USAGE)


class Terminated(BaseException):
    """SIGTERM, raised where the command is, so that it unwinds like Ctrl-C does."""


@contextlib.contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """While the block runs, SIGTERM raises :class:`Terminated` in this process (the default
    would end it at once: a spill folder of 12 MB and temporary files left behind).  A second
    SIGTERM ends it as by default; a process forked meanwhile (a pool worker) that inherits the
    handler ends as by default too.  Only the main thread can set a handler."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pid = os.getpid()

    def handler(signum: int, frame: Any) -> None:
        signal.signal(signum, signal.SIG_DFL)
        if os.getpid() != pid:
            os.kill(os.getpid(), signum)
            return
        raise Terminated

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def _command_in(argv: Sequence[str]) -> str | None:
    """The first argument that names a subcommand (flags before it are global ones)."""
    for a in argv:
        if a in COMMANDS:
            return a
        if not a.startswith("-"):
            return None
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; only the subcommand named in ``argv`` is imported (all when ``argv`` is None)."""
    parser = _Parser(prog="evaladdon", description="Honest statistics for Inspect AI and lm-eval logs.")
    parser.add_argument("--version", action="version", version=f"evaladdon {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    wanted = _command_in(argv) if argv is not None else None
    for name, (module, help_text) in COMMANDS.items():
        if argv is None or name == wanted:
            importlib.import_module(f"evaladdon.cli.{module}").add_parser(sub)
        else:  # listed in --help without importing its module
            sub.add_parser(name, help=help_text)
    return parser


def main(argv: Sequence[str] | None = None, *, routes: Any = None) -> int:
    """Run the command ``argv`` (default: the command line); its exit status.

    ``routes`` (an :class:`evaladdon.analysis.options.RoutePolicy`) is for callers such as tests
    and benchmarks: it forces or excludes routes, sets their limits and observes which ran."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    if debug:  # accepted before or after the subcommand
        argv = [a for a in argv if a != "--debug"]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if getattr(args, "json", False) and getattr(args, "markdown", False):
        parser.error("--json and --markdown are mutually exclusive")
    args.debug = debug
    args.route_policy = routes
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    import warnings

    from evaladdon.errors import EvalAddonError
    from evaladdon.report.escape import clean

    try:
        with warnings.catch_warnings(), _sigterm_unwinds():
            if not debug:  # Python warnings never leak onto the user's terminal (--debug shows them)
                warnings.simplefilter("ignore")
            return int(args.run(args))
    except KeyboardInterrupt:
        return 130
    except Terminated:
        return EXIT_TERMINATED
    except BrokenPipeError:  # `evaladdon ... | head`: the reader left; say nothing, as Unix tools do
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        except OSError:
            pass
        return 141  # 128 + SIGPIPE, the shell's status for a tool stopped by a closed pipe
    except (EvalAddonError, ValueError, OSError) as exc:
        if debug:
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        paths = [str(p) for p in getattr(args, "paths", None) or []]
        if (len(paths) == 1 and getattr(exc, "where", None) is None and paths[0] not in message
                and not message.startswith("-")):  # an error about a flag names the flag instead
            message = f"{paths[0]}: {message}"  # the one input is named in every error about it
        sys.stderr.write(f"evaladdon: error: {clean(message)}\n")
        return EXIT_USAGE
    except (MemoryError, RecursionError) as exc:
        if debug:
            raise
        what = "out of memory" if isinstance(exc, MemoryError) else "input nested too deeply"
        sys.stderr.write(f"evaladdon: error: {what} (--debug shows where)\n")
        return EXIT_USAGE
    except Exception as exc:  # never a traceback and never exit 1 (which means "regression shown")
        if debug:
            raise
        message = " ".join(str(exc).split())[:300]
        sys.stderr.write(f"evaladdon: error: internal error: {type(exc).__name__}: {clean(message)} "
                         "(please report it; --debug shows the traceback)\n")
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
