"""Pairwise-preference files in, a battle table out (not the canonical item table).

Three formats, sniffed by content (the keys of the first record), not by file name; a
first record longer than the first 4 KB (AlpacaEval's hold the instruction and both outputs
before the generators) is parsed whole, up to :data:`FIRST_RECORD_BYTES`, after the depth guard:

- **Arena battles** (Chatbot Arena ``clean_battle*.json``, Arena-Hard ``arena_hard_battles.jsonl``):
  records ``{question_id, model_a, model_b, winner}`` with ``winner`` in ``model_a``, ``model_b``,
  ``tie``, ``tie (bothbad)``.  One battle per record; ``cluster`` = ``question_id``.
- **FastChat MT-bench pair judgments** (``gpt-4_pair.jsonl``): ``{question_id, model_1, model_2,
  g1_winner, g2_winner, judge, turn}``; g1 and g2 are the same pair judged with the positions
  swapped (``g2_winner`` already mapped back to model_1/model_2).  FastChat's rule
  (``fastchat/llm_judge/show_result.py``): a win only when both games agree, otherwise a tie
  (inconsistent); a record with an ``error`` in either game is dropped.  Both games are kept in
  :attr:`Preferences.games` for the position-bias check.
- **AlpacaEval annotations** (``annotations.json``): a JSON list of ``{instruction, dataset,
  generator_1, generator_2, preference}``; ``preference`` in [1, 2] (1 = ``output_1``, the
  baseline ``generator_1``, preferred; 2 = ``output_2``; 1.5 = tie; fractional values of the
  weighted annotators are the win weight).  ``item`` = instruction, ``cluster`` = dataset.
  A preference of 0 is a draw, as AlpacaEval counts it (``metrics/helpers.py``: "0 or 1.5 for
  draw", replaced by 1.5 before the win rate); other values outside [1, 2] are left out, as
  AlpacaEval drops them.

The battle table has one row per battle: ``source, model_a, model_b, outcome`` (1 = a wins,
0 = b wins, 0.5 = tie, fractional = weighted preference), ``tie`` (bool: the judge declared a
tie, as opposed to a split), ``item`` (question/prompt id), ``cluster`` (the resampling unit),
``game``, ``turn``, ``judge``.  Every record left out is counted with its reason.  Adapters
compute nothing: aggregation and models live in :mod:`evaladdon.stats.bradley_terry`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import json
import re

import numpy as np
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

from evaladdon.adapters.common.guard import strip_bom
from evaladdon.adapters.common.jsonlines import check_depth
from evaladdon.errors import InputError

BATTLE_COLUMNS: tuple[str, ...] = ("source", "model_a", "model_b", "outcome", "tie", "item", "cluster", "game",
                                   "turn", "judge")
GAME_COLUMNS: tuple[str, ...] = ("source", "model_a", "model_b", "item", "cluster", "turn", "judge", "g1", "g2")

ARENA_KEYS = (b'"model_a"', b'"model_b"', b'"winner"')
MTBENCH_KEYS = (b'"model_1"', b'"model_2"', b'"g1_winner"', b'"g2_winner"')
ALPACA_KEYS = (b'"generator_1"', b'"generator_2"', b'"preference"')
PREFERENCE_SUFFIXES = (".json", ".jsonl", ".ndjson")
HEAD_BYTES = 4096
FIRST_RECORD_BYTES = 8 * 2**20
"""Most bytes read to parse a file's first record when its keys are not all in the first
:data:`HEAD_BYTES` (a record longer than this is not sniffed as a preference)."""
# keys that only a preference record is likely to hold: worth parsing its first record for
_HINTS = (b'"instruction"', b'"question_id"', b'"conversation_a"', b'"generator_1"', b'"generator_2"', b'"output_1"', b'"output_2"', b'"model_a"', b'"model_1"',
          b'"g1_winner"', b'"preference"', b'"winner"')
# any of _HINTS in one scan (12 substring scans of a 4 KB head were most of sniffing a .jsonl log)
_HINT = re.compile(b"|".join(re.escape(h) for h in _HINTS))
_KINDS = (("mtbench", frozenset({"model_1", "model_2", "g1_winner", "g2_winner"})),
          ("arena", frozenset({"model_a", "model_b", "winner"})),
          ("alpaca_eval", frozenset({"generator_1", "generator_2", "preference"})))
_SPACE = re.compile(r"\s*")


@dataclass
class Preferences:
    """The battles read, the position-swapped games (MT-bench), and what was left out and why."""

    battles: pd.DataFrame
    games: pd.DataFrame
    dropped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)

    @property
    def n_dropped(self) -> int:
        return sum(self.dropped.values())


def sniff_preferences(head: bytes) -> str | None:
    """``arena``, ``mtbench`` or ``alpaca_eval`` when the first bytes hold such a record, else None."""
    head = strip_bom(head)
    start = head.lstrip()[:1]
    if start not in (b"{", b"["):
        return None
    if all(k in head for k in MTBENCH_KEYS):
        return "mtbench"
    if all(k in head for k in ARENA_KEYS):
        return "arena"
    if start == b"[" and all(k in head for k in ALPACA_KEYS):
        return "alpaca_eval"
    return None


def _head(path: Path, n: int = HEAD_BYTES) -> bytes:
    with path.open("rb") as fh:
        return fh.read(n)


def first_record(path: Path, limit: int = FIRST_RECORD_BYTES) -> tuple[object, bool] | None:
    """The first record of ``path`` (the first element of a JSON array, else its first line),
    and whether it is in an array; None when it is not parsed within ``limit`` bytes or nests
    deeper than the depth guard allows."""
    with path.open("rb") as fh:
        data = strip_bom(fh.read(limit)).lstrip()
    array = data[:1] == b"["
    if not array:
        data = data.split(b"\n", 1)[0]
    try:
        check_depth(data, str(path))  # before the recursive parser
    except InputError:
        return None
    text = data.decode("utf-8", errors="replace")
    try:  # the stdlib's raw_decode parses one value and stops: the rest of the file is not parsed
        record, _ = json.JSONDecoder().raw_decode(text, _SPACE.match(text, int(array)).end())  # type: ignore[union-attr]
    except (ValueError, RecursionError):
        return None
    return record, array


def _kind_of(record: object, array: bool) -> str | None:
    if not isinstance(record, dict):
        return None
    keys = record.keys()
    return next((kind for kind, need in _KINDS if need <= keys and (array or kind != "alpaca_eval")), None)


def looks_like_preferences(path: Path, head: bytes | None = None) -> str | None:
    """The preference format of ``path`` (by content: ``head``, its first bytes, when the keys
    are there; else its first record, parsed whole when the first bytes hint at one), or None."""
    if path.suffix.lower() not in PREFERENCE_SUFFIXES or not path.is_file():
        return None
    head = _head(path) if head is None else head
    if _HINT.search(head) is None:  # every format's keys hold a hint: none of them, and no first record to parse
        return None
    kind = sniff_preferences(head)
    if kind is not None or len(head) < HEAD_BYTES:
        return kind
    found = first_record(path)
    return _kind_of(*found) if found is not None else None


def refuse_preferences(path: Path, cluster: str | None = None) -> pd.DataFrame:
    """The canonical-table reader for a preference file: refuses (battles are not per-item scores)."""
    raise InputError("pairwise preferences: use evaladdon rank", str(path))


def _records(path: Path) -> pd.DataFrame:
    from evaladdon.adapters.common.jsonlines import read_json_records

    records = read_json_records(path)
    bad = [i for i, r in enumerate(records[:1000]) if not isinstance(r, dict)]
    if bad or not all(isinstance(r, dict) for r in records):
        raise InputError("expected JSON objects (one battle or judgment each)", str(path))
    if not records:
        raise InputError("no battles in this file", str(path))
    return pd.DataFrame.from_records(records)


def _column(df: pd.DataFrame, name: str) -> pd.Series:
    return df[name] if name in df else pd.Series([None] * len(df), index=df.index, dtype=object)


def _as_str(s: pd.Series) -> pd.Series:
    """Values as str, missing ones as None (vectorised; no Python call per row)."""
    return s.astype(str).astype(object).where(s.notna().to_numpy(), None)


def _outcomes(s: pd.Series, table: dict[str, float]) -> np.ndarray:
    """Winner labels mapped through ``table`` (NaN for anything else).  Values are stringified
    first so lists or objects in a log cannot break the lookup; only a JSON string can print as
    one of the labels."""
    return s.astype(str).map(pd.Series(table)).astype(float).to_numpy() if len(s) else np.zeros(0)


def _non_string(s: pd.Series) -> np.ndarray:
    """Present values that are not strings (a name given as a number, list or object)."""
    if pd.api.types.infer_dtype(s, skipna=True) in ("string", "empty"):
        return np.zeros(len(s), bool)
    # mixed column: the type check runs per value, only for such (malformed) files
    return (s.notna() & ~s.map(lambda v: isinstance(v, str), na_action="ignore").fillna(True).astype(bool)).to_numpy()


def _count(dropped: dict[str, int], reason: str, mask: np.ndarray) -> None:
    n = int(np.count_nonzero(mask))
    if n:
        dropped[reason] = dropped.get(reason, 0) + n


def _common_drops(df: pd.DataFrame, a: pd.Series, b: pd.Series, dropped: dict[str, int],
                  raw_a: pd.Series | None = None, raw_b: pd.Series | None = None) -> np.ndarray:
    """Rows without both model names, or with the same model on both sides (counted, left out)."""
    missing = (a.isna() | b.isna()).to_numpy()
    _count(dropped, "missing model name", missing)
    if raw_a is not None and raw_b is not None:
        odd = ~missing & (_non_string(raw_a) | _non_string(raw_b))
        _count(dropped, "model name not a string", odd)
        missing = missing | odd
    same = (~missing) & (a.astype(str) == b.astype(str)).to_numpy()
    _count(dropped, "same model on both sides", same)
    return ~(missing | same)


ARENA_OUTCOME = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}


def _read_arena(df: pd.DataFrame, source: str, dropped: dict[str, int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    a, b = _as_str(_column(df, "model_a")), _as_str(_column(df, "model_b"))
    keep = _common_drops(df, a, b, dropped, _column(df, "model_a"), _column(df, "model_b"))
    winner = _column(df, "winner").astype(object)
    outcome = _outcomes(winner, ARENA_OUTCOME)
    # a null winner (no verdict): counted apart, since value_counts leaves missing values out
    no_winner = keep & winner.isna().to_numpy()
    _count(dropped, "no winner (null or missing)", no_winner)
    unknown = keep & np.isnan(outcome) & ~no_winner
    counts = pd.Series(winner[unknown].astype(str)).value_counts()
    for value, n in counts.head(5).items():  # the commonest unknown values by name, the rest together
        reason = f"winner {value[:40]!r} not model_a/model_b/tie"
        dropped[reason] = dropped.get(reason, 0) + int(n)
    rest = int(counts.iloc[5:].sum())
    if rest:
        dropped["other winner values not model_a/model_b/tie"] = rest
    keep &= ~np.isnan(outcome)
    qid = _column(df, "question_id")
    qid = qid if qid.notna().any() else _column(df, "prompt_id")
    item = _as_str(qid)
    judge = _as_str(_column(df, "judge"))
    turn = _column(df, "turn")
    battles = pd.DataFrame({
        "source": source, "model_a": a, "model_b": b, "outcome": outcome,
        "tie": winner.astype(str).str.startswith("tie").to_numpy(), "item": item, "cluster": item,
        "game": None, "turn": _as_str(turn), "judge": judge,
    })[keep]
    return battles, pd.DataFrame(columns=list(GAME_COLUMNS))


MT_OUTCOME = {"model_1": 1.0, "model_2": 0.0, "tie": 0.5}


def _read_mtbench(df: pd.DataFrame, source: str, dropped: dict[str, int],
                  notes: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    a, b = _as_str(_column(df, "model_1")), _as_str(_column(df, "model_2"))
    keep = _common_drops(df, a, b, dropped, _column(df, "model_1"), _column(df, "model_2"))
    g1 = _outcomes(_column(df, "g1_winner"), MT_OUTCOME)
    g2 = _outcomes(_column(df, "g2_winner"), MT_OUTCOME)
    raw1, raw2 = _column(df, "g1_winner").astype(str), _column(df, "g2_winner").astype(str)
    err = keep & ((raw1 == "error") | (raw2 == "error")).to_numpy()
    _count(dropped, "judge error in g1 or g2 (FastChat drops the pair)", err)
    keep &= ~err
    other = keep & (np.isnan(g1) | np.isnan(g2))
    _count(dropped, "winner not model_1/model_2/tie", other)
    keep &= ~other
    # FastChat's rule: a win only when both position orders agree, otherwise a tie (inconsistent)
    agree = g1 == g2
    outcome = np.where(agree, g1, 0.5)
    inconsistent = keep & ~agree
    if inconsistent.any():
        notes.append(f"{source}: {int(inconsistent.sum())} pair(s) where the two position orders disagree "
                     "count as ties (FastChat's rule)")
    judge_raw = _column(df, "judge")
    # FastChat logs the judge as [model, prompt name]; joined without a Python call per row
    joined = judge_raw.str.join("/") if judge_raw.notna().any() else judge_raw
    judge = joined.where(joined.notna(), judge_raw)
    item = _as_str(_column(df, "question_id"))
    turn = _as_str(_column(df, "turn"))
    # FastChat's rule: the judge must agree with itself; a stated tie only when both games say tie
    tie = agree & (g1 == 0.5)
    battles = pd.DataFrame({
        "source": source, "model_a": a, "model_b": b, "outcome": outcome, "tie": tie, "item": item,
        "cluster": item, "game": "g1+g2", "turn": turn, "judge": _as_str(judge),
    })[keep]
    games = pd.DataFrame({
        "source": source, "model_a": a, "model_b": b, "item": item, "cluster": item, "turn": turn,
        "judge": _as_str(judge), "g1": g1, "g2": g2,
    })[keep]
    return battles, games


def _read_alpaca(df: pd.DataFrame, source: str, dropped: dict[str, int],
                 notes: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    a, b = _as_str(_column(df, "generator_1")), _as_str(_column(df, "generator_2"))
    keep = _common_drops(df, a, b, dropped, _column(df, "generator_1"), _column(df, "generator_2"))
    pref = pd.to_numeric(_column(df, "preference"), errors="coerce").to_numpy(dtype=float)
    missing = keep & np.isnan(pref)
    _count(dropped, "no preference (null or not a number)", missing)
    keep &= ~missing
    # AlpacaEval encodes a draw as 0 or 1.5 and replaces 0 by 1.5 before its win rate
    zero = keep & (pref == 0)
    if zero.any():
        notes.append(f"{source}: {int(zero.sum())} preference(s) of 0 counted as draws (AlpacaEval's older "
                     "encoding of a draw, as 1.5)")
        pref = np.where(zero, 1.5, pref)
    outside = keep & ((pref < 1) | (pref > 2))
    _count(dropped, "preference outside [1, 2]", outside)
    keep &= ~outside
    # preference 1 = output_1 (generator_1 = model_a) preferred: outcome for a = 2 - preference
    outcome = 2.0 - pref
    fractional = keep & ~np.isin(pref, (1.0, 1.5, 2.0))
    if fractional.any():
        notes.append(f"{source}: {int(fractional.sum())} weighted preference(s) in (1, 2) used as fractional wins")
    item = _as_str(_column(df, "instruction"))
    dataset = _column(df, "dataset")
    cluster = _as_str(dataset) if dataset.notna().any() else item
    battles = pd.DataFrame({
        "source": source, "model_a": a, "model_b": b, "outcome": outcome, "tie": pref == 1.5, "item": item,
        "cluster": cluster, "game": None, "turn": None, "judge": _as_str(_column(df, "annotator")),
    })[keep]
    return battles, pd.DataFrame(columns=list(GAME_COLUMNS))


def read_preference_file(path: Path, style: bool = False) -> Preferences:
    """One preference file (format sniffed by content) as a :class:`Preferences`; with ``style``,
    the battles carry the answers' style columns where the file logs them
    (:func:`evaladdon.adapters.preference_style.style_columns`)."""
    kind = looks_like_preferences(path)
    if kind is None:
        raise InputError("not a pairwise-preference file (Arena battles, MT-bench pair judgments or "
                         "AlpacaEval annotations)", str(path))
    df = _records(path)
    dropped: dict[str, int] = {}
    notes: list[str] = []
    source = str(path)
    if kind == "arena":
        battles, games = _read_arena(df, source, dropped)
    elif kind == "mtbench":
        battles, games = _read_mtbench(df, source, dropped, notes)
    else:
        battles, games = _read_alpaca(df, source, dropped, notes)
    if style:  # the readers keep the records' index: the style columns join on it
        from evaladdon.adapters.preference_style import style_columns

        battles = battles.join(style_columns(df, kind)).assign(kind=kind)
    return Preferences(battles.reset_index(drop=True), games.reset_index(drop=True), dropped, notes, [kind])


def read_preferences(paths: Iterable[str | Path], style: bool = False) -> Preferences:
    """Every preference file among ``paths`` (files or directories) in one :class:`Preferences`."""
    files: list[Path] = []
    skipped: list[str] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise InputError("no such file or directory", str(p))
        if p.is_dir():
            every = [f for f in sorted(p.rglob("*")) if f.is_file()]
            found = [f for f in every if looks_like_preferences(f)]
            if not found:
                raise InputError("no pairwise-preference files in this directory", str(p))
            files.extend(found)
            other = [f for f in every if f not in found and f.suffix.lower() in
                     (".json", ".jsonl", ".ndjson", ".eval", ".csv", ".tsv", ".parquet")]
            if other:
                skipped.append(f"{p}: {len(other)} file(s) that are not pairwise preferences not read "
                               f"(e.g. {other[0].name}); rank them separately")
        else:
            files.append(p)
    parts = [read_preference_file(f, style) for f in files]
    battles = pd.concat([p.battles for p in parts if len(p.battles)] or [parts[0].battles], ignore_index=True)
    games = pd.concat([p.games for p in parts if len(p.games)] or [parts[0].games], ignore_index=True)
    dropped: dict[str, int] = {}
    for p in parts:
        for k, v in p.dropped.items():
            dropped[k] = dropped.get(k, 0) + v
    out = Preferences(battles, games, dropped, skipped + [n for p in parts for n in p.notes],
                      [k for p in parts for k in p.kinds])
    if out.battles.empty:
        where = str(files[0]) if len(files) == 1 else None
        raise InputError(f"no usable battles ({out.n_dropped} left out)", where)
    return out


def any_preferences(paths: Iterable[str | Path]) -> bool:
    """Whether any of ``paths`` (or any file inside a directory among them) is a preference file."""
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            if any(looks_like_preferences(f) for f in p.rglob("*") if f.is_file()):
                return True
        elif p.exists() and looks_like_preferences(p):
            return True
    return False
