"""Entry point: ``evaladdon SUBCOMMAND ...``.

Exit codes: 0 ok, 1 regression shown (the ``compare`` gate), 2 usage or input error.
Errors print one line on stderr (``evaladdon: error: <where>: <what>``); ``--debug``
shows the traceback instead.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn, Sequence

from evaladdon import __version__
from evaladdon.cli import (
    ci_cmd,
    compare_cmd,
    export_cmd,
    judge_cmd,
    lm_eval_cmd,
    power_cmd,
    report_cmd,
    summarize_cmd,
)
from evaladdon.errors import EvalAddonError

EXIT_OK, EXIT_REGRESSION, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2 (argparse prints usage too)
        sys.stderr.write(f"evaladdon: error: {message}\n")
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="evaladdon", description="Honest statistics for Inspect AI and lm-eval logs.")
    parser.add_argument("--version", action="version", version=f"evaladdon {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    ci_cmd.add_parser(sub)
    summarize_cmd.add_parser(sub)
    compare_cmd.add_parser(sub)
    power_cmd.add_parser(sub)
    judge_cmd.add_parser(sub)
    export_cmd.add_parser(sub)
    lm_eval_cmd.add_parser(sub)
    report_cmd.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.run(args))
    except (EvalAddonError, ValueError, OSError) as exc:
        if args.debug:
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        sys.stderr.write(f"evaladdon: error: {message}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
