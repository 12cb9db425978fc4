"""lm-eval multiple-choice samples: prediction, label and confidence of their acc and acc_norm rows.

Multiple-choice samples (``filtered_resps`` = one ``[loglikelihood, is_greedy]`` per choice)
fill the optional columns of :data:`evaladdon.table.OPTIONAL_COLUMNS` on their ``acc`` and
``acc_norm`` rows (the rules are in :mod:`evaladdon.adapters.lm_eval`).  The pass over the
records (:mod:`.samples`) keeps each one's ``filtered_resps``, gold index and, for
``acc_norm``, choice lengths (:func:`_mc_extra`); the arithmetic is vectorised here, per number
of choices (:func:`_fill_multiple_choice`).  ``choice_lls`` holds each row's choice logits as a
JSON array (the log-likelihoods on ``acc`` rows, divided by the choices' lengths on ``acc_norm``
rows: the numbers whose softmax is ``confidence``), for the K-choice temperature of
:mod:`evaladdon.analysis.choice_temperature`; JSON text because CSV, JSON lines, Parquet and the
store all keep a string exactly (:func:`_json_rows`).
"""

from __future__ import annotations

import json
from itertools import chain, repeat
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use

try:
    import orjson
except ImportError:  # pragma: no cover
    orjson = None  # type: ignore[assignment]

from evaladdon.adapters.tuning import DEFAULT


def _choice_lengths(args: Any, n: int, delim: str) -> tuple[list[int], list[str]] | None:
    """Lengths and texts of the choices from a sample's ``arguments`` (one request per
    choice; the continuation is ``delimiter + choice``), or None when not logged."""
    if type(args) is dict:
        if len(args) != n:
            return None
        try:
            conts = [a["arg_1"] for a in args.values()]  # gen_args_0..n-1, in the order written
        except (KeyError, TypeError):
            return None
    elif type(args) is list and len(args) == n:
        try:
            conts = [a[1] for a in args if type(a) is list]
        except IndexError:
            return None
    else:
        return None
    if len(conts) != n or not all(type(c) is str for c in conts):
        return None
    if delim:
        k = len(delim)
        conts = [c[k:] if c.startswith(delim) else c for c in conts]
    return [len(c) for c in conts], conts


def _gold_index(target: Any, choices: list[str] | None, n: int) -> int | None:
    """lm-eval's gold: an int index, or a string's position among the choices; None if unclear."""
    if type(target) is int:  # the common case first
        return target if 0 <= target < n else None
    if isinstance(target, bool):
        return None
    by_index = target if isinstance(target, int) else (
        int(target) if isinstance(target, str) and target.strip().isdigit() else None)
    by_text = choices.index(target) if isinstance(target, str) and choices and target in choices else None
    if isinstance(target, int):
        return target if 0 <= target < n else None
    if by_text is not None and by_index is not None and by_text != by_index:
        return None  # a digit that is also a choice text: ambiguous
    if by_text is not None:
        return by_text
    return by_index if by_index is not None and 0 <= by_index < n else None


def _mc_extra(r: dict[str, Any], n: int, target: Any, delim: str, need_lengths: bool) -> tuple[list[int] | None, int]:
    """(choice lengths or None, gold index or -1) of a multiple-choice sample whose
    ``filtered_resps`` hold ``n`` ``[loglikelihood, is_greedy]`` pairs (newer logs write both
    as strings, ``["-10.0", "False"]``; the log-likelihoods are converted per block later,
    see :func:`_block_lls`).  The common case (an int gold, no ``acc_norm``) is inlined in
    :func:`~evaladdon.adapters.lm_eval.samples._general_reader`, with the same result as here.

    Only plain Python here (it runs once per record); the arithmetic is vectorised later.
    """
    # choice texts only where needed: lengths for acc_norm, texts for a gold given as text
    text_gold = type(target) is str and not target.strip().isdigit()
    found = _choice_lengths(r.get("arguments"), n, delim) if (need_lengths or text_gold) else None
    label = None if type(target) is list else _gold_index(target, found[1] if found else None, n)
    return (found[0] if found and need_lengths else None), (-1 if label is None else label)


def _block_lls(block: list[list[Any]], k: int) -> np.ndarray:
    """Log-likelihoods of ``len(block)`` samples with ``k`` choices each, shape (R, k); NaN rows
    where a sample's entries are not ``[number, bool]`` pairs (numeric strings accepted)."""
    entries = list(chain.from_iterable(block))
    if set(map(type, entries)) == {list} and set(map(len, entries)) == {2}:  # C-level shape check
        try:  # numbers and bools (numeric strings too): one C-level pass, converted as np.array does
            flat = np.fromiter(chain.from_iterable(entries), dtype=float, count=2 * len(entries))
            return flat.reshape(len(block), k, 2)[:, :, 0]
        except (ValueError, TypeError):
            pass
    out = np.full((len(block), k), np.nan)
    for j, fr in enumerate(block):  # strings ("-10.0", "False") or odd shapes: per sample
        try:
            if all(type(x) is list and len(x) == 2 and type(x[0]) is not bool for x in fr):
                out[j] = [float(x[0]) for x in fr]
        except (TypeError, ValueError):
            pass
    return out


def _softmax_pick(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise argmax and its softmax probability (rows of a 2-D array; NaN-free rows)."""
    pred = np.argmax(z, axis=1)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return pred, e[np.arange(len(z)), pred] / e.sum(axis=1)


def _fill_multiple_choice(out: dict[str, np.ndarray], rec: np.ndarray, n_records: int,
                          mc: tuple[list[int], list[list[Any]], list[list[int] | None], list[int]],
                          blocks: list[tuple[np.ndarray, np.ndarray, list[Any] | None, np.ndarray]],
                          factorize_from: int = DEFAULT.lm_factorize_from, identity: bool = False) -> tuple[int, int]:
    """prediction/label/confidence on the acc and acc_norm rows, vectorised per choice count.

    ``mc``: parallel lists (record index, filtered_resps, choice lengths or None, gold or -1)
    of records whose log-likelihoods are converted here (:func:`_block_lls`, one block per
    number of choices); ``blocks``: (record indices, log-likelihoods (R, k), choice lengths
    or None, gold) already converted by :func:`~evaladdon.adapters.lm_eval.samples._lls_or_none`.  Every step is row by row, so
    the grouping into blocks changes no value.  Metric names are coded with ``pd.factorize``
    from ``factorize_from`` rows.  Returns (multiple-choice docs, those without a gold index).
    ``identity``: row i is record i (then :func:`_one_block` may do it all)."""
    if identity and (done := _one_block(out, mc, blocks, n_records, factorize_from)) is not None:
        return done
    mc_rec, mc_fr, mc_len, mc_gold = mc
    blocks = list(blocks)
    if mc_rec:
        idx = np.asarray(mc_rec, dtype=np.int64)
        gold = np.asarray(mc_gold, dtype=np.int64)
        width = np.fromiter(map(len, mc_fr), dtype=np.int64, count=len(mc_fr))
        widths = np.unique(width)
        for k in widths:  # one block per number of choices
            if len(widths) == 1:
                blocks.append((idx, _block_lls(mc_fr, int(k)), mc_len, gold))
                continue
            sel = np.flatnonzero(width == k)
            picked = sel.tolist()
            blocks.append((idx[sel], _block_lls([mc_fr[j] for j in picked], int(k)), [mc_len[j] for j in picked],
                           gold[sel]))
    pred = np.full(n_records, -1, dtype=np.int64)
    pred_n = np.full(n_records, -1, dtype=np.int64)
    conf = np.full(n_records, np.nan)
    conf_n = np.full(n_records, np.nan)
    label = np.full(n_records, -1, dtype=np.int64)
    lls, lls_n = np.full(n_records, None, dtype=object), np.full(n_records, None, dtype=object)
    by_width: dict[int, list[tuple[np.ndarray, np.ndarray, list[Any] | None, np.ndarray]]] = {}
    n_mc = no_label = 0
    for b in blocks:
        label[b[0]] = b[3]
        n_mc += len(b[0])
        by_width.setdefault(b[1].shape[1], []).append(b)
    if blocks:  # one count over all blocks' golds (a few hundred blocks in a large file)
        no_label = int(np.count_nonzero(np.concatenate([b[3] for b in blocks]) < 0))
    for group in by_width.values():
        if len(group) == 1:
            idx, ll, lens_or_none, _ = group[0]
            lens = lens_or_none if lens_or_none is not None else [None] * len(idx)
        else:
            idx = np.concatenate([b[0] for b in group])
            ll = np.concatenate([b[1] for b in group])
            lens = list(chain.from_iterable(b[2] if b[2] is not None else repeat(None, len(b[0])) for b in group))
        sel = np.arange(len(idx))
        ok = np.isfinite(ll).all(axis=1)
        if not ok.all():
            sel, ll = sel[ok], ll[ok]
        if not len(sel):
            continue
        p, c = _softmax_pick(ll)
        pred[idx[sel]], conf[idx[sel]], lls[idx[sel]] = p, c, _json_rows(ll)
        if lens.count(None) == len(lens):
            continue
        has_len = np.array([lens[j] is not None for j in sel.tolist()], dtype=bool)
        if has_len.any():
            lengths = np.array([lens[j] for j in sel[has_len].tolist()], dtype=float)
            good = (lengths > 0).all(axis=1)
            rows = idx[sel[has_len][good]]
            z = ll[has_len][good] / lengths[good]
            pn, cn = _softmax_pick(z)
            pred_n[rows], conf_n[rows], lls_n[rows] = pn, cn, _json_rows(z)
    is_acc, is_norm = _acc_rows(out["metric"], factorize_from)
    p_row = np.where(is_acc, pred[rec], np.where(is_norm, pred_n[rec], -1))
    c_row = np.where(is_acc, conf[rec], np.where(is_norm, conf_n[rec], np.nan))
    l_row = np.where(p_row >= 0, label[rec], -1)
    out["prediction"] = _as_str_or_none(p_row)
    out["label"] = _as_str_or_none(l_row)
    out["confidence"] = np.asarray(c_row, dtype=np.float64)
    out["choice_lls"] = np.where(is_acc, lls[rec], np.where(is_norm, lls_n[rec], None))
    return n_mc, no_label


def _one_block(out: dict[str, np.ndarray], mc: tuple[list[int], list[list[Any]], list[list[int] | None], list[int]],
               blocks: list[tuple[np.ndarray, np.ndarray, list[Any] | None, np.ndarray]], n_records: int,
               factorize_from: int) -> tuple[int, int] | None:
    """The multiple-choice columns of a file whose rows are its records in order, all ``acc``
    rows, every record in one block of finite log-likelihoods (a regular multiple-choice file):
    what :func:`_fill_multiple_choice`'s general steps give it (every row predicted, so its label
    is its gold), without the per-record arrays and scatters.  None when the file is not such."""
    if mc[0] or len(blocks) != 1 or blocks[0][2] is not None or len(blocks[0][0]) != n_records:
        return None  # (a block's record indices increase: n_records of them are 0..n_records-1)
    _, ll, _, gold = blocks[0]
    if not np.isfinite(ll).all():
        return None
    is_acc, _ = _acc_rows(out["metric"], factorize_from)
    if not is_acc.all():
        return None
    pred, conf = _softmax_pick(ll)
    out["prediction"] = _as_str_or_none(pred)
    out["label"] = _as_str_or_none(gold)
    out["confidence"] = np.asarray(conf, dtype=np.float64)
    out["choice_lls"] = _json_rows(ll)
    return len(gold), int(np.count_nonzero(gold < 0))


def _acc_rows(metric: np.ndarray, factorize_from: int) -> tuple[np.ndarray, np.ndarray]:
    """Which rows are ``acc`` and which ``acc_norm`` rows (any filter), from their metric names,
    coded with ``pd.factorize`` from ``factorize_from`` rows."""
    if len(metric) > factorize_from:  # a few metric names: hashed, not sorted
        codes, names = pd.factorize(metric)
    else:  # a small file: less fixed cost
        listed = metric.tolist()
        code_of = {m: j for j, m in enumerate(dict.fromkeys(listed))}
        codes, names = np.fromiter(map(code_of.__getitem__, listed), dtype=np.int64, count=len(listed)), list(code_of)
    base = np.array([str(u).split(",", 1)[0] for u in names], dtype=object)
    return (base == "acc")[codes], (base == "acc_norm")[codes]


def _json_rows(z: np.ndarray) -> np.ndarray:
    """Each row of a finite 2-D float array as JSON array text (``"[-1.5,-0.25]"``), in one
    serialisation of the whole array split at the row boundaries (no Python call per row):
    orjson's shortest round-trip floats, else ``json``'s ``repr`` (either reads back exactly)."""
    if not len(z):
        return np.array([], dtype=object)
    if orjson is not None:
        text = orjson.dumps(np.ascontiguousarray(z, dtype=np.float64), option=orjson.OPT_SERIALIZE_NUMPY).decode()
    else:  # pragma: no cover - orjson is a dependency; json gives the same numbers
        text = json.dumps(z.tolist(), separators=(",", ":"))
    return np.array(text[1:-1].replace("],[", "]\x00[").split("\x00"), dtype=object)


def _as_str_or_none(codes: np.ndarray) -> np.ndarray:
    """Non-negative integer codes as strings, -1 as None (choice indices: a small table)."""
    top = int(codes.max()) if len(codes) else -1
    table = np.array([str(i) for i in range(top + 1)] + [None], dtype=object)  # table[-1] is None
    return table[codes]
