"""A metric's direction, decided once on the table: whether a LOWER score is better.

The one rule, :func:`lower_is_better` (as :mod:`evaladdon.table.scale` is the one rule of units):

1. what the log declared, keyed by (task, metric) -- lm-eval's results ``higher_is_better`` and its
   task config's ``metric_list[].higher_is_better``, HELM's schema ``lower_is_better``, Every Eval
   Ever's ``metric_config.lower_is_better``; adapters record it in ``table.attrs["lower_is_better"]``
   as ``{task: {metric: bool}}`` (:data:`ATTR`), the store in its manifest, and every route hands
   it to the pairing loop; a metric declared for its base name (lm-eval's ``acc`` for the table's
   ``acc,none``) counts for every filter of it;
2. else the user's word (``--better lower|higher``, a gate policy's ``lower_is_better``): refused in
   one line when the log declared the other way;
3. else one built-in list of well-known lower-is-better names (:data:`LOWER_IS_BETTER`:
   perplexities, bits per byte, TER, word/character error rates, Brier scores, ECE, NLL), read on
   the metric's base name (before lm-eval's ``,filter``, after an Inspect ``scorer/`` prefix);
4. else higher is better.

Never guessed from the values.  Every output mode says "lower is better" for such a metric, the
gate mirrors its test (a regression is ``B - A > m``), ``rank`` orders by it and the Every Eval
Ever export writes it; the difference ``B - A`` itself is never negated.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from evaladdon.errors import EvalAddonError, OptionError

__all__ = ["ATTR", "BETTER", "EXPORTED_DIRECTIONS", "LOWER_IS_BETTER", "Declared", "declared_of", "direction_word", "lower_is_better",
           "merge_declared", "named_lower"]

ATTR = "lower_is_better"
"""The key of the declared directions in ``table.attrs`` (and in a store manifest's entries)."""

EXPORTED_DIRECTIONS = "directions"
"""The ``eval_library.additional_details`` key an evaladdon Every Eval Ever export sets once its
``lower_is_better`` values are the metrics' directions (earlier exports wrote ``false`` for every
per-item metric; the reader then trusts only their ``true``)."""

BETTER = ("higher", "lower")
"""The values of ``--better``."""

Declared = Mapping[str, Mapping[str, bool]]
"""Declared directions: ``{task: {metric: lower_is_better}}``."""

LOWER_IS_BETTER = frozenset({
    "perplexity", "word_perplexity", "byte_perplexity", "token_perplexity", "bits_per_byte",
    "ter", "wer", "cer",
    "brier", "brier_score", "brier_reliability",
    "ece", "ece_equal_mass", "ece_sq_debiased",
    "nll",
})
"""Well-known metrics where a lower score is better (names as lm-eval, HELM and this package's
metric families write them; any name starting ``ece`` counts too)."""


def base_name(metric: str) -> str:
    """The metric's own name: before lm-eval's ``,filter``, after an Inspect ``scorer/`` prefix."""
    return str(metric).split(",", 1)[0].rsplit("/", 1)[-1]


def named_lower(metric: str) -> bool:
    """Whether ``metric`` is on the built-in list of lower-is-better names (:data:`LOWER_IS_BETTER`)."""
    name = base_name(metric).lower()
    return name in LOWER_IS_BETTER or name.startswith("ece")


def declared_of(declared: Declared | None, task: str, metric: str) -> bool | None:
    """What the logs declared for (``task``, ``metric``) (the full name first, then its base name
    before ``,filter``), or None."""
    if not declared:
        return None
    of_task = declared.get(str(task))
    if not of_task:
        return None
    for name in (str(metric), str(metric).split(",", 1)[0]):
        if name in of_task:
            return bool(of_task[name])
    return None


def lower_is_better(task: str, metric: str, declared: Declared | None = None, better: str | None = None) -> bool:
    """The one rule (module doc): the log's declaration, else ``better`` (``"lower"`` or
    ``"higher"``, the user's word; refused when it contradicts a declaration), else the built-in
    list of names, else False (higher is better)."""
    found = declared_of(declared, task, metric)
    if better is not None and better not in BETTER:
        raise EvalAddonError(f"--better {better}: give higher or lower")
    if found is not None:
        if better is not None and (better == "lower") != found:
            said = "lower" if found else "higher"
            raise OptionError(f"--better {better} contradicts the log, which declares {said} is better for "
                                 f"{task}/{metric}")
        return found
    if better is not None:
        return better == "lower"
    return named_lower(metric)


def direction_word(lower: bool) -> str:
    """How every output mode says the direction."""
    return "lower is better" if lower else "higher is better"


def merge_declared(parts: Iterable[Declared | None], notes: list[str] | None = None) -> dict[str, dict[str, bool]]:
    """The declarations of many logs as one; a (task, metric) declared both ways keeps the first,
    with a note (when ``notes`` is given)."""
    out: dict[str, dict[str, bool]] = {}
    for part in parts:
        for task, metrics in (part or {}).items():
            mine = out.setdefault(str(task), {})
            for metric, lower in metrics.items():
                had = mine.setdefault(str(metric), bool(lower))
                if had != bool(lower) and notes is not None:
                    notes.append(f"{task}/{metric}: the logs declare both directions; "
                                 f"{direction_word(had)} (the first) is used")
    return {t: m for t, m in out.items() if m}


def declared_in(table: Any) -> dict[str, dict[str, bool]]:
    """The directions declared on ``table`` (its ``attrs``; ``{}`` when none or no table)."""
    attrs = getattr(table, "attrs", None) or {}
    return dict(attrs.get(ATTR) or {})
