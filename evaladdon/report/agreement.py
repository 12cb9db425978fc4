"""``judge agree`` output: one row per coefficient (estimate, interval, raters, items), then the
rows left out per rater and the notes (names from logs escaped by ``cell``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evaladdon.report.units import interval

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.analysis.agreement import AgreementReport

__all__ = ["agreement_rows", "agreement_warnings", "write_agreement"]

LABELS = {"cohen_kappa": "Cohen's kappa", "weighted_kappa": "quadratic-weighted kappa",
          "fleiss_kappa": "Fleiss' kappa", "gwet_ac1": "Gwet's AC1", "alpha_nominal": "Krippendorff's alpha (nominal)",
          "alpha_ordinal": "Krippendorff's alpha (ordinal)", "alpha_interval": "Krippendorff's alpha (interval)"}


def agreement_rows(rep: "AgreementReport", cell: Any) -> tuple[list[str], list[list[str]]]:
    from evaladdon.report.text import fmt

    level = rep.coefficients[0].level if rep.coefficients else 0.95
    cols = ["coefficient", "raters", "estimate", f"{level:.0%} CI", "items", "clusters"]
    rows = []
    for c in rep.coefficients:
        who = " vs ".join(cell(r) for r in c.raters) if len(c.raters) == 2 else f"all {len(c.raters)}"
        rows.append([LABELS.get(c.name, c.name), who, fmt(c.estimate, 3), interval(c.ci_low, c.ci_high),
                     str(c.n_items), str(c.n_clusters)])
    return cols, rows


def agreement_warnings(rep: "AgreementReport", cell: Any) -> list[str]:
    """The method line, rows left out per rater (by reason), and notes."""
    values = ", ".join(f"{v:g}" for v in rep.categories[:12]) + (" ..." if len(rep.categories) > 12 else "")
    unit = "clusters" if rep.clustered else "items"
    lines = [f"note: {len(rep.raters)} raters ({', '.join(cell(r) for r in rep.raters)}) on {rep.n_items} items; "
             f"categories {values}; intervals: BCa bootstrap over {unit}; weighted kappa uses the categories' "
             "ranks, alpha (interval) their values"]
    for who, reasons in rep.dropped.items():
        lines.append(f"warning: {cell(who)}: {sum(reasons.values())} row(s) left out ("
                     + ", ".join(f"{v} {cell(k)}" for k, v in reasons.items()) + ")")
    lines.extend(f"note: {cell(n)}" for n in rep.notes)
    return lines


def write_agreement(rep: "AgreementReport", *, markdown: bool = False, wide: bool = False) -> None:
    """The table on stdout (markdown, or a terminal table)."""
    from evaladdon.report.escape import clean, markdown_cell
    from evaladdon.report.text import console, markdown_table, table

    cols, rows = agreement_rows(rep, markdown_cell if markdown else clean)
    con = console()
    if markdown:
        con.file.write(markdown_table(cols, rows))
    else:
        con.print(table(None, cols, rows, n_left=2, drop=("clusters",), wide=wide))
