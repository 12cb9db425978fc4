"""``evaladdon judge --labels FILE RUN...``: correct a judge's pass rate with human labels."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaladdon.cli.common import add_reporting, emit, load
from evaladdon.cli.options import add_output
from evaladdon.errors import EvalAddonError, InputError
from evaladdon.report.text import console, fmt, markdown_table, table

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

HUMAN_ALIASES = ("human", "human_label", "label", "gold")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("judge", help="correct an LLM judge's pass rate with human labels")
    p.add_argument("paths", nargs="+", metavar="RUN",
                   help="judge-scored runs (files or directories); NAME=PATH names a run")
    p.add_argument("--labels", required=True, help="table with item ids and human 0/1 labels")
    p.add_argument("--human-col", help=f"label column (default: first of {', '.join(HUMAN_ALIASES)})")
    p.add_argument("--metric", help="the judge's metric")
    p.add_argument("--method", choices=("rogan-gladen", "rogan-gladen-bootstrap", "ppi", "ppi++"),
                   default="rogan-gladen", help="correction (default rogan-gladen)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--seed", type=int, default=0, help="seed for the bootstrap")
    add_output(p)
    add_reporting(p)
    p.set_defaults(run=run)


def read_labels(path: str, human_col: str | None) -> "pd.Series":
    import numpy as np
    import pandas as pd

    from evaladdon.adapters.common.scores import coerce_scores
    from evaladdon.adapters.long_table import ALIASES, read_raw_table

    raw = read_raw_table(Path(path))
    item_col = next((c for c in ALIASES["item"] if c in raw.columns), None)
    col = human_col or next((c for c in HUMAN_ALIASES if c in raw.columns), None)
    if item_col is None or col is None or col not in raw.columns:
        raise InputError(f"the labels need an item column and a human label column (found {', '.join(raw.columns)})", path)
    values, errors = coerce_scores(raw[col])
    bad = errors.notna().to_numpy() | ~np.isin(values, [0.0, 1.0])
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(f"row {first + 1}: human label {raw[col].iloc[first]!r} is not 0/1 "
                         f"({int(bad.sum())} such row(s))", path)
    labels = pd.Series(values, index=raw[item_col].astype(str))
    if labels.index.duplicated().any():
        raise InputError(f"item {labels.index[labels.index.duplicated()][0]!r} is labelled twice", path)
    return labels


def run(args: argparse.Namespace) -> int:
    import numpy as np
    import pandas as pd

    from evaladdon.stats import judge_agreement, ppi_mean, rogan_gladen, rogan_gladen_bootstrap
    from evaladdon.table.usable import usable_rows
    from evaladdon.table import run_labels

    labels = read_labels(args.labels, args.human_col)
    loaded = load(args)
    df = loaded.table
    if args.metric is not None:
        df = df[df["metric"] == args.metric]
    results = []
    names = run_labels(df)
    for (run, task, metric), group in df.groupby(["run", "task", "metric"], sort=False):
        where = f"run {run!r}, task {task!r}, metric {metric!r}"
        good, dropped = usable_rows(group)
        if good["epoch"].max() > 1:
            raise EvalAddonError(f"{where}: judge correction needs one verdict per item; this run has epochs")
        verdicts = pd.Series(good["value"].to_numpy(), index=good["item"].to_numpy())
        if not np.all(np.isin(verdicts.to_numpy(), [0.0, 1.0])):
            raise EvalAddonError(f"{where}: judge verdicts must be 0/1")
        shared = verdicts.index.intersection(labels.index)
        if len(shared) < 2:
            raise EvalAddonError(f"{where}: only {len(shared)} labelled item(s) are in this run")
        try:
            agr = judge_agreement(verdicts.loc[shared].to_numpy(), labels.loc[shared].to_numpy(), args.level)
            q, n = float(verdicts.mean()), int(verdicts.size)
            if args.method == "rogan-gladen":
                corr = rogan_gladen(q, agr.sensitivity, agr.specificity, n_observed=n, n_pos=agr.n_pos,
                                    n_neg=agr.n_neg, level=args.level)
                est, se, lo, hi, notes = corr.estimate, corr.se, corr.ci_low, corr.ci_high, list(corr.notes)
            elif args.method == "rogan-gladen-bootstrap":
                corr = rogan_gladen_bootstrap(q, n, agr, level=args.level, seed=args.seed)
                est, se, lo, hi, notes = corr.estimate, corr.se, corr.ci_low, corr.ci_high, list(corr.notes)
            else:
                unlabelled = verdicts.drop(shared)
                ppi = ppi_mean(labels.loc[shared].to_numpy(), verdicts.loc[shared].to_numpy(),
                               unlabelled.to_numpy(), tuned=args.method == "ppi++", level=args.level)
                est, se, lo, hi, notes = ppi.estimate, ppi.se, ppi.ci_low, ppi.ci_high, [f"lambda = {ppi.lam:.3f}"]
        except ValueError as exc:
            raise EvalAddonError(f"{where}: {exc}") from None
        results.append({
            "run": run, "label": names[str(run)], "task": task, "metric": metric, "method": args.method,
            "n": n, "n_labelled": agr.n_labelled, "n_pos": agr.n_pos, "n_neg": agr.n_neg,
            "sensitivity": agr.sensitivity, "sensitivity_ci": [agr.sensitivity_low, agr.sensitivity_high],
            "specificity": agr.specificity, "specificity_ci": [agr.specificity_low, agr.specificity_high],
            "agreement": agr.agreement, "kappa": agr.kappa,
            "observed": q, "corrected": est, "se": se, "ci_low": lo, "ci_high": hi, "level": args.level,
            "n_dropped": int(sum(dropped.values())), "dropped": dropped, "notes": notes,
        })
    dropped_lines = [f"warning: {r['label']} / {r['task']} / {r['metric']}: {r['n_dropped']} row(s) left out ("
                     + ", ".join(f"{v} {k}" for k, v in r["dropped"].items()) + ")" for r in results if r["n_dropped"]]
    note_lines = [f"note: {r['label']} / {r['task']} / {r['metric']}: {n}" for r in results for n in r["notes"]]
    if args.json:
        emit(args, results, loaded, loaded.notes)
        return 0
    cols = ["run", "task/metric", "observed", "corrected", "CI", "Se", "Sp", "kappa", "labelled"]
    rows = [[r["label"], f"{r['task']}/{r['metric']}", fmt(r["observed"], 3), fmt(r["corrected"], 3),
             f"{fmt(r['ci_low'], 3)}-{fmt(r['ci_high'], 3)}", fmt(r["sensitivity"], 3), fmt(r["specificity"], 3),
             fmt(r["kappa"], 3), r["n_labelled"]] for r in results]
    con = console()
    if args.markdown:
        con.file.write(markdown_table(cols, rows))
    else:
        con.print(table(None, cols, rows, n_left=2, drop=("kappa", "Sp", "Se", "labelled"), wide=args.wide))
    emit(args, [], loaded, list(loaded.notes) + dropped_lines + note_lines)
    return 0
