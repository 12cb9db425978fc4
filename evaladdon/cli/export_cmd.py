"""``evaladdon export PATH... -o FILE``: the canonical item table as csv, jsonl or parquet."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


from evaladdon.cli.options import load_runs, show_progress
from evaladdon.errors import EvalAddonError


def add_parser(sub: Any) -> None:
    p = sub.add_parser("export", help="write the canonical per-item table (csv, jsonl, parquet)")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("-o", "--output", required=True, help="output file: .csv, .jsonl or .parquet")
    p.add_argument("--cluster", metavar="FIELD", help="column or metadata field to cluster on")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    loaded = load_runs(args)
    df = loaded.table
    out = Path(args.output)
    suffix = out.suffix.lower()
    if suffix == ".csv":
        df.to_csv(out, index=False)
    elif suffix == ".jsonl":
        df.to_json(out, orient="records", lines=True)
    elif suffix == ".parquet":
        try:
            df.to_parquet(out, index=False)
        except ImportError:
            raise EvalAddonError("writing parquet needs pyarrow: pip install 'evaladdon[parquet]'") from None
    else:
        raise EvalAddonError(f"unsupported output type {suffix or '(none)'!r}; use .csv, .jsonl or .parquet", str(out))
    if not args.quiet:
        unusable = int(df["error"].notna().sum())
        for note in loaded.notes:
            sys.stderr.write(f"warning: {note}\n")
        sys.stderr.write(f"wrote {len(df)} rows ({unusable} with an error reason) to {out}\n")
    return 0
