"""The exact K-choice temperature of ``metrics --recalibrate temperature`` for lm-eval multiple choice.

lm-eval multiple-choice rows carry their choices' logits in ``choice_lls`` (a JSON array per
row: the log-likelihoods on ``acc`` rows, divided by the choices' lengths on ``acc_norm`` rows;
:data:`evaladdon.table.OPTIONAL_COLUMNS`).  Temperature scaling (Guo, Pleiss, Sun & Weinberger
2017, "On calibration of modern neural networks", section 4.2) then needs no approximation:
``T`` minimises the mean negative log-likelihood of the gold choice under ``softmax(z / T)``
over the validation rows (:func:`evaladdon.stats.families.recalibrate.fit_temperature` with the
(n, K) logit matrix), and each test row's recalibrated forecast is the softmax probability of
its predicted choice (the argmax, which no ``T > 0`` changes), judged against its correctness as
before.  Rows of a task with several numbers of choices are padded with a logit of ``-1e300``,
whose softmax weight is exactly 0 at every ``T`` the fit tries (``exp(7)`` at most).

Used only when every validation row has its logits and a gold choice index, and every test row
its logits; otherwise the caller keeps the top-label fit (a note says why).  The oracle of the
tests is scipy's ``minimize_scalar`` on the K-choice NLL written out there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from evaladdon.stats.families.recalibrate import Recalibration, fit_temperature

__all__ = ["ChoiceFit", "choice_temperature"]

_PAD = -1e300
"""Logit of a choice a row does not have (softmax weight exactly 0 at every ``T >= exp(-7)``)."""


@dataclass(frozen=True)
class ChoiceFit:
    """The K-choice temperature (``fit``), the test rows' recalibrated forecasts (``after``), the
    K-choice NLL of the test rows with a gold index before and after (``nll``), and a note."""

    fit: Recalibration
    after: np.ndarray
    nll: dict[str, Any]
    note: str


def choice_logits(rows: pd.DataFrame) -> np.ndarray | None:
    """The rows' ``choice_lls`` as an (n, K) matrix (padded with :data:`_PAD` where a row has fewer
    choices), or None when a row has none or one is not a JSON array of finite numbers."""
    if "choice_lls" not in rows or not len(rows) or rows["choice_lls"].isna().any():
        return None
    text = "[" + ",".join(rows["choice_lls"].astype(str).tolist()) + "]"  # one parse for all rows
    try:
        parsed = json.loads(text)
        widths = np.fromiter(map(len, parsed), dtype=np.int64, count=len(parsed))
        flat = np.fromiter(chain.from_iterable(parsed), dtype=float, count=int(widths.sum()))
    except (ValueError, TypeError):
        return None
    if len(parsed) != len(rows) or widths.min() < 2 or not np.isfinite(flat).all():
        return None
    z = np.full((len(rows), int(widths.max())), _PAD)
    z[np.arange(z.shape[1]) < widths[:, None]] = flat  # row-major, as flat is
    return z


def gold_index(rows: pd.DataFrame, k: np.ndarray) -> np.ndarray:
    """Each row's gold choice index (``label``), -1 where missing or not an index below its ``k``."""
    if "label" not in rows:
        return np.full(len(rows), -1, dtype=np.int64)
    lab = pd.to_numeric(rows["label"], errors="coerce").to_numpy(dtype=float)
    ok = np.isfinite(lab) & (lab == np.floor(lab)) & (lab >= 0) & (lab < k)
    return np.where(ok, np.nan_to_num(lab), -1).astype(np.int64)


def _k_nll(z: np.ndarray, gold: np.ndarray, t: float) -> float:
    s = z / t
    return float(np.mean(special.logsumexp(s, axis=1) - s[np.arange(len(gold)), gold]))


def choice_temperature(test: pd.DataFrame, validation: pd.DataFrame) -> ChoiceFit | str | None:
    """The K-choice fit on ``validation``, applied to ``test`` (module doc); a reason (str) when
    the rows carry choice logits but not enough for it; None when they carry none."""
    if "choice_lls" not in test or not test["choice_lls"].notna().any():
        return None
    zt, zv = choice_logits(test), choice_logits(validation)
    if zt is None or zv is None:
        return "not every test and validation row has its choices' log-likelihoods"
    gv = gold_index(validation, (zv > _PAD).sum(axis=1))
    if (gv < 0).any():
        return f"{int((gv < 0).sum())} of {len(gv)} validation rows have no gold choice index"
    t = fit_temperature(zv, gv)
    st = zt / t
    after = np.exp(st.max(axis=1) - special.logsumexp(st, axis=1))  # softmax of the argmax choice
    gt = gold_index(test, (zt > _PAD).sum(axis=1))
    has = gt >= 0
    nll: dict[str, Any] = {"n": int(has.sum())}
    if has.any():
        nll.update(before=_k_nll(zt[has], gt[has], 1.0), after=_k_nll(zt[has], gt[has], t))
    note = ("lm-eval multiple choice: temperature fitted to the choices' log-likelihoods (softmax over all "
            f"{'/'.join(map(str, np.unique((zv > _PAD).sum(axis=1))))} choices, Guo et al.); forecasts are the "
            "recalibrated softmax probability of the predicted choice")
    return ChoiceFit(Recalibration("temperature", (t,), n_fit=len(gv)), after, nll, note)
