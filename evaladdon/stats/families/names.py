"""The names of the metric families that are not means (no numpy, no pandas: the CLI asks
whether ``--metric`` names one before it reads anything)."""

from __future__ import annotations

import re

__all__ = ["CALIBRATION_NAMES", "PASSK", "ROC_NAMES", "SUMMARY_NAMES", "beta_of", "fbeta_prefix", "family_of"]

SUMMARY_NAMES: tuple[str, ...] = (
    "accuracy",
    "balanced_accuracy",
    "precision_macro",
    "recall_macro",
    "f1_macro",
    "precision_micro",
    "recall_micro",
    "f1_micro",
    "precision_weighted",
    "recall_weighted",
    "f1_weighted",
    "mcc",
    "kappa",
)
"""Classification metrics of :func:`evaladdon.stats.classification.classification_metrics`."""

CALIBRATION_NAMES: tuple[str, ...] = (
    "ece",
    "ece_equal_mass",
    "ece_sq_debiased",
    "brier",
    "brier_reliability",
    "brier_resolution",
    "brier_uncertainty",
    "brier_within_bin",
    "nll",
)
"""Calibration metrics of :func:`evaladdon.stats.calibration.calibration_metrics`."""

ROC_NAMES: tuple[str, ...] = ("roc_auc", "average_precision")
PASSK = re.compile(r"^pass([@^])(\d+)$")
FBETA = re.compile(r"^f(\d+(?:\.\d+)?)(?:_(?:macro|micro|weighted)|\[.+\])$")
"""F-beta names (``--beta 2``): ``f2_macro``, ``f2_micro``, ``f2_weighted``, ``f2[c]``; ``f1_*`` is F1."""


def fbeta_prefix(beta: float) -> str:
    """The name prefix of F-beta (``f2``, ``f0.5``): ``beta`` written without trailing zeros."""
    return f"f{beta:g}"


def beta_of(name: str) -> float | None:
    """The beta of an F-beta name other than F1 (``f2_macro`` -> 2.0), else None."""
    m = FBETA.match(name)
    if m is None or float(m.group(1)) == 1.0:
        return None
    return float(m.group(1))


def family_of(name: str) -> str | None:
    """The family a metric name belongs to (``classification``, ``roc``, ``calibration``,
    ``passk``), or None when it is not one of ours."""
    if name in SUMMARY_NAMES or re.match(r"^(precision|recall|f1)\[.+\]$", name) or beta_of(name) is not None:
        return "classification"
    if name in ROC_NAMES:
        return "roc"
    if name in CALIBRATION_NAMES:
        return "calibration"
    if PASSK.match(name):
        return "passk"
    return None
