"""lm-evaluation-harness outputs of every generation -> canonical rows.

Generations (all found in published outputs):

- 0.4.3+ ``samples_<task>_<timestamp>.jsonl``: JSON lines with ``doc_hash``/``prompt_hash``/
  ``target_hash``, from 0.4.7 ``filter`` and ``metrics`` fields; one line per (doc, filter);
- 0.4.0-0.4.2 samples written as one JSON array inside a ``.jsonl`` file, with no ``filter``
  field: a doc appears once per filter, in the order of the filters in the results;
- 0.3 ``<task>_write_out_info.json`` arrays whose values are all strings (``"True"``);
- samples embedded in a results JSON (``simple_evaluate``'s return value saved whole);
- results files (``results_<timestamp>.json``, 0.3 ``acc``/``acc_stderr`` keys, ``"N/A"``
  stderrs, ``NaN``/``Infinity`` literals): used to name the run and the filters, and to
  check that the samples are complete (``n-samples``).

Reading: JSON lines are streamed (one line in memory at a time) and parsed with orjson; one light pass pulls the few fields a row
needs into column lists -- records shaped like the first regular one through one
``itemgetter``, the rest (and every error) through the general per-record code, with the
same result -- and everything after that is vectorised.  Lines orjson refuses (``NaN`` literals) go to ``json`` after a depth check
(:mod:`evaladdon.adapters.common.jsonlines`).  ``read_runs`` reads samples files as
:class:`SamplesPart` and makes one DataFrame of consecutive ones (:func:`frame_parts`).

Rows per (doc_id, filter, metric), the metric named as in the results (``acc,none``).
Per-sample values that are lists (the inputs of corpus-level metrics such as f1 or bleu)
get the error ``corpus-level metric`` and keep their input as JSON text in ``raw``
(:mod:`evaladdon.analysis.corpus` recomputes the metric from them).  ``doc_hash`` is kept as
``item_hash``.  ``--cluster`` reads a doc field (dotted paths allowed).  Repeats: a
``scores_per_repeat`` mapping (metric -> list of per-repeat scores) becomes epochs;
otherwise one epoch, and a note says when the task ran with ``repeats > 1`` because the
harness's default filter keeps only the first repeat.

Multiple-choice samples (``filtered_resps`` = one ``[loglikelihood, is_greedy]`` per choice)
fill the optional columns of :data:`evaladdon.table.OPTIONAL_COLUMNS` on their ``acc`` and
``acc_norm`` rows: ``prediction`` = the argmax choice index (of the raw log-likelihoods for
``acc``; of log-likelihood / len(choice text) for ``acc_norm``, as lm-eval does), ``label`` =
the gold index (the logged ``target`` as an index, or its position among the choices), and
``confidence`` = the softmax probability of the predicted choice over the same (raw or
length-normalised) log-likelihoods.  ``label`` stays empty when the log does not determine
it (choices not logged, a multi-target gold, an ambiguous target); a note says how many.

Completeness: when the results file declares ``n-samples`` (``effective``) for a task and the
samples hold fewer docs, each missing doc (``doc_id`` 0..n-1, the harness's own numbering)
gets rows with the error ``missing from log`` and a note marks the run incomplete.

Results-only files (no samples): the harness's own values and stderrs are returned, not as
rows, but in ``table.attrs["reported"]``: a list of dicts with the keys ``run``, ``source``,
``task``, ``model``, ``metric`` (``acc,none`` or 0.3 ``acc``), ``value`` (float, may be
NaN/inf as logged), ``stderr`` (float or None when ``"N/A"``/absent), ``n`` (int or None: the
effective sample count when logged).  They are harness-reported: unclustered, unpaired, never
mixed with per-item rows; :func:`evaladdon.analysis.reported.reported_summaries` renders them.

Wrong-shaped results (``results``/``configs``/``config``/``group_subtasks``/``n-samples`` of the
wrong type, a non-finite or absurd ``repeats``/``n-samples``) are refused in one line.

The reader never executes code found in a log (configs carry source code as strings).
"""

from __future__ import annotations

import ast
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, repeat
from operator import itemgetter
from pathlib import Path
from typing import Any, Iterable

import numpy as np
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

try:
    import orjson
except ImportError:  # pragma: no cover
    orjson = None  # type: ignore[assignment]

from evaladdon._util.gc import no_cyclic_gc
from evaladdon.adapters.common.guard import MAX_DEPTH
from evaladdon.adapters.common.jsonlines import check_depth, iter_json_lines, read_json_array, slow_loads
from evaladdon.adapters.common.scores import NON_FINITE, coerce_scores, raw_strings
from evaladdon.adapters.tuning import DEFAULT, ReadTuning
from evaladdon.errors import InputError
from evaladdon.table import finalize
from evaladdon.table.names import dotted_parts

CORPUS_LEVEL = "corpus-level metric (per-item inputs, not a score)"
MISSING_FROM_LOG = "missing from log"
NOT_METRICS = {
    "doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics", "doc_hash",
    "prompt_hash", "target_hash", "task", "task_name", "scores_per_repeat", "truth", "index",
}
MC_METRICS = ("acc", "acc_norm")
MC_COLUMNS = ("prediction", "label", "confidence")  # of evaladdon.table.OPTIONAL_COLUMNS, in this order
MAX_REPEATS = 1_000_000
MAX_DOCS = 10**10
_TS = re.compile(r"_(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)$")
_WRITE_OUT = re.compile(r"^(prompt|logit)_\d+$")
_BASE_COLUMNS = ("item", "epoch", "metric", "value", "raw", "error", "item_hash", "cluster", "run", "task", "model",
                 "source", "harness")


# ---------------------------------------------------------------- sniffing


def looks_like_samples_jsonl(head: bytes) -> bool:
    """lm-eval samples: a JSON array, or JSON lines, of objects with ``doc_id`` and ``doc``/``resps``."""
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff").lstrip()
    if text.startswith("["):
        return '"doc_id"' in text[:2000]
    first = text.split("\n", 1)[0]
    return first.startswith("{") and '"doc_id"' in first[:300] and any(
        key in first for key in ('"doc"', '"resps"', '"arguments"', '"filtered_resps"'))


def looks_like_results_json(head: bytes) -> bool:
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff").lstrip()
    return text.startswith("{") and re.match(r'^\{\s*"results"\s*:', text) is not None


def looks_like_write_out(path: Path, head: bytes) -> bool:
    return path.name.endswith("_write_out_info.json") and head.lstrip()[:1] == b"["


# ---------------------------------------------------------------- results files


def _load_json(path: Path) -> Any:
    """A whole JSON file (results, write-out): depth-checked, NaN/Infinity literals allowed."""
    raw = path.read_bytes()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", str(path)) from None
    # scanned so nothing downstream recurses deep; a text with fewer brackets than the limit
    # cannot nest deeper than it (two C-level counts instead of the scan: most of a small
    # results file's cost)
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH:
        check_depth(raw, str(path))
    if orjson is not None:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return slow_loads(raw, str(path))


def _count(value: Any, what: str, where: str, low: int = 0, high: int = MAX_DOCS) -> int:
    """A logged count (int, integral float or numeric string) within [low, high], else one line."""
    v = value
    if isinstance(v, str):
        try:
            v = float(v.strip())
        except ValueError:
            raise InputError(f"{what} is {value!r}, not a number", where) from None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise InputError(f"{what} is a {type(value).__name__}, expected a number", where)
    if not math.isfinite(v) or v != int(v) or not low <= v <= high:
        raise InputError(f"{what} is {value!r}; expected a whole number from {low} to {high:g}", where)
    return int(v)


def check_results_shape(data: Any, where: str) -> dict[str, Any]:
    """Refuse results whose known keys have the wrong type (one line each); return ``data``."""
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise InputError("not an lm-eval results file (no 'results' object)", where)
    for task, entry in data["results"].items():
        if not isinstance(entry, dict):
            raise InputError(f"results.{task} is a {type(entry).__name__}, expected an object", where)
    for key in ("configs", "config", "group_subtasks", "n-samples", "groups"):
        if key in data and data[key] is not None and not isinstance(data[key], dict):
            raise InputError(f"'{key}' is a {type(data[key]).__name__}, expected an object", where)
    for task, cfg in (data.get("configs") or {}).items():
        if not isinstance(cfg, dict):
            raise InputError(f"configs.{task} is a {type(cfg).__name__}, expected an object", where)
        if cfg.get("repeats") is not None:
            _count(cfg["repeats"], f"configs.{task}.repeats", where, 1, MAX_REPEATS)
    for group, subs in (data.get("group_subtasks") or {}).items():
        if not isinstance(subs, list) or not all(isinstance(s, str) for s in subs):
            raise InputError(f"group_subtasks.{group} is not a list of task names", where)
    for task, ns in (data.get("n-samples") or {}).items():
        if not isinstance(ns, dict):
            raise InputError(f"n-samples.{task} is a {type(ns).__name__}, expected an object", where)
        for k in ("effective", "original"):
            if ns.get(k) is not None:
                _count(ns[k], f"n-samples.{task}.{k}", where)
    return data


@lru_cache(maxsize=64)
def _results_cached(path: str, mtime: float, size: int) -> dict[str, Any]:
    return check_results_shape(_load_json(Path(path)), path)


def read_results(path: Path) -> dict[str, Any]:
    st = path.stat()
    return _results_cached(str(path), st.st_mtime, st.st_size)


def model_name(results: dict[str, Any] | None, fallback: str) -> str:
    if results:
        if isinstance(results.get("model_name"), str) and results["model_name"]:
            return str(results["model_name"])
        config = results.get("config") or {}
        args = config.get("model_args")
        if isinstance(args, dict) and isinstance(args.get("pretrained"), str):
            return str(args["pretrained"])
        if isinstance(args, str):
            m = re.search(r"(?:pretrained|model|engine)=([^,]+)", args)
            if m:
                return m.group(1)
        if isinstance(config.get("model"), str) and config.get("model"):
            return str(config["model"]) + (f"({args})" if isinstance(args, str) and args else "")
    return fallback


def filters_of(results: dict[str, Any] | None, task: str) -> list[str]:
    """Filter names of a task in the order the results list them (``metric,filter`` keys)."""
    if not results:
        return []
    entry = results.get("results", {}).get(task, {})
    out: list[str] = []
    for key in entry:
        if "," in key and "_stderr" not in key.split(",")[0]:
            f = key.split(",", 1)[1]
            if f not in out:
                out.append(f)
    return out


def repeats_of(results: dict[str, Any] | None, task: str) -> int:
    """``configs.<task>.repeats`` (checked by :func:`check_results_shape`), 1 when absent."""
    if not results:
        return 1
    cfg = (results.get("configs") or {}).get(task) or {}
    if cfg.get("repeats") is None:
        return 1
    return _count(cfg["repeats"], f"configs.{task}.repeats", "results", 1, MAX_REPEATS)


def declared_docs(results: dict[str, Any] | None, task: str) -> int | None:
    """How many docs the harness says it evaluated (``n-samples.<task>.effective``)."""
    if not results:
        return None
    ns = (results.get("n-samples") or {}).get(task)
    if isinstance(ns, dict) and ns.get("effective") is not None:
        return _count(ns["effective"], f"n-samples.{task}.effective", "results")
    return None


def target_delimiter(results: dict[str, Any] | None, task: str) -> str:
    cfg = ((results or {}).get("configs") or {}).get(task) or {}
    d = cfg.get("target_delimiter", " ")
    return d if isinstance(d, str) else " "


def metric_aggregations(results: dict[str, Any] | None, task: str) -> dict[str, str]:
    """Metric name -> aggregation as the config names it: a registry name (``f1``, ``bleu``)
    or ``code:<function name>`` for an aggregation written as code in the task (never run).

    ``metric_list`` is a list, or (newer logs) its Python repr, read with
    :func:`ast.literal_eval` (literals only: nothing is executed).
    """
    cfg = ((results or {}).get("configs") or {}).get(task) or {}
    ml = cfg.get("metric_list")
    if isinstance(ml, str) and len(ml) < 200_000:
        try:
            check_depth(ml.encode(), "metric_list")
            ml = ast.literal_eval(ml)
        except (ValueError, SyntaxError, MemoryError, RecursionError, InputError):
            ml = None
    out: dict[str, str] = {}
    if isinstance(ml, list):
        for entry in ml:
            if not isinstance(entry, dict) or not isinstance(entry.get("metric"), str):
                continue
            agg = entry.get("aggregation")
            if isinstance(agg, str):
                m = re.match(r"\s*def\s+(\w+)", agg)
                out[entry["metric"]] = f"code:{m.group(1)}" if m else (
                    "code:?" if ("\n" in agg or "<function" in agg) else agg)
    return out


def _sanitize(s: str) -> str:
    return re.sub(r"[^0-9A-Za-z]+", "", s).lower()


def pair_results(samples_path: Path) -> tuple[Path | None, str | None]:
    """The results file of a samples file, and its task name (when the pairing is certain).

    0.4.3+: ``samples_<task>_<ts>.jsonl`` with ``results_<ts>.json`` in the same folder.
    0.4.0-0.4.2: ``<model_args>_<task>.jsonl`` with the one results JSON in the folder
    that lists ``<task>`` (several: the one whose model_args match the prefix).
    """
    stem = samples_path.stem
    folder = samples_path.parent
    m = _TS.search(stem)
    if stem.startswith("samples_") and m:
        task = stem[len("samples_"): m.start()]
        cand = folder / f"results_{m.group(1)}.json"
        return (cand if cand.exists() else None), task
    candidates: list[tuple[Path, str]] = []
    for f in sorted(folder.glob("*.json")):
        try:
            with f.open("rb") as fh:
                if not looks_like_results_json(fh.read(512)):
                    continue
            res = read_results(f)
        except (InputError, OSError):
            continue
        for task in res["results"]:
            if stem == task or stem.endswith("_" + task):
                candidates.append((f, task))
    if not candidates:
        return None, None
    longest = max(len(t) for _, t in candidates)
    candidates = [(f, t) for f, t in candidates if len(t) == longest]
    prefix = _sanitize(stem[: -len(candidates[0][1])])
    matching = []
    for f, t in candidates:
        args = (read_results(f).get("config") or {}).get("model_args")
        # the file name starts with the sanitised model_args: a results file of another
        # model that happens to list the same task must not be paired
        if not isinstance(args, str) or _sanitize(args) == prefix:
            matching.append((f, t))
    if len(matching) == 1:
        return matching[0]
    return None, candidates[0][1]


# ---------------------------------------------------------------- samples: one light pass


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


_FIRST = itemgetter(0)
_SCALARS = frozenset((str, int, float, bool))
"""Types of a usable cluster value among those JSON parsers give (not None, dict or list)."""


def _metric_of(name: Any, filt: str, metric_key: dict[str, dict[str, str]]) -> str:
    """``name,filter`` (or the name alone for an empty filter), cached per (filter, name) as in
    the general loop of :func:`_extract`."""
    keys = metric_key.get(filt)
    if keys is None:
        keys = metric_key[filt] = {}
    metric = keys.get(name) if type(name) is str else None
    if metric is None:
        metric = f"{name},{filt}" if filt else str(name)
        if type(name) is str:
            keys[name] = metric
    return metric


def _fast_schema(r: Any, with_doc: bool = False) -> tuple[Any, list[str], bool] | None:
    """The fields of a regular record (lm-eval 0.4.7+: a ``metrics`` list of names, a string
    ``filter``, ``doc_hash``): an ``itemgetter`` of doc_id, filter, doc_hash, metrics (and
    target, filtered_resps when ``acc`` is among the metrics), then the metric values; the
    metric names; whether ``acc`` is.  ``with_doc``: ``doc`` too, after those and before the
    metric values.  None when ``r`` is not such a record, or logs ``acc_norm`` (its choice
    lengths are read by the general loop)."""
    if type(r) is not dict or type(r.get("filter")) is not str or "doc_id" not in r or "doc_hash" not in r:
        return None
    names = r.get("metrics")
    if type(names) is not list or not names or set(map(type, names)) != {str} or "acc_norm" in names:
        return None
    mc = "acc" in names
    fields = ("doc_id", "filter", "doc_hash", "metrics") + (("target", "filtered_resps") if mc else ()) + \
        (("doc",) if with_doc else ()) + tuple(names)
    return itemgetter(*fields), list(names), mc


def _lls_or_none(frs: list[list[Any]]) -> np.ndarray | None:
    """Log-likelihoods (R, k) of multiple-choice records with k choices each, when every
    entry is a ``[float, x]`` pair -- the values :func:`_block_lls` gives them by either of
    its paths, whatever other records share their block (both read a pair's log-likelihood
    alone when it is a float; ``x``, is_greedy, is never used) -- else None."""
    n, k = len(frs), len(frs[0])
    if list(map(len, frs)).count(k) != n:  # C-level passes; counting is cheaper than a set
        return None
    entries = list(chain.from_iterable(frs))
    m = n * k
    if list(map(type, entries)).count(list) != m or list(map(len, entries)).count(2) != m:
        return None
    x0 = list(map(_FIRST, entries))
    if list(map(type, x0)).count(float) != m:
        return None
    return np.array(x0, dtype=np.float64).reshape(n, k)


def _extract(pairs: Iterable[tuple[int, Any]], *, filters: list[str], cluster: str | None,
             delim: str, source: str, metric_names: list[str] | None = None,
             place_word: str = "line", tuning: ReadTuning = DEFAULT) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The one pass over sample records (dicts) -> canonical columns (arrays) without
    run/task/model/source/harness.

    ``pairs`` yields ``(number, record)`` (line or sample number).  A record shaped like the
    first regular one (:func:`_fast_schema`) is read through one ``itemgetter`` and its
    multiple-choice log-likelihoods converted ~1,000 records at a time (:func:`_lls_or_none`);
    any other record goes through the general loop, which also raises the one-line errors.
    Both give the same rows (``tests/test_lm_eval_fast.py``); memory holds the columns, not
    the records.  ``tuning``: :attr:`~ReadTuning.fast_records`, ``lm_batch``, ``lm_flush``,
    ``lm_run``, ``lm_factorize_from``.
    """
    fast_records, try_every, min_run = tuning.fast_records, tuning.lm_batch, tuning.lm_run
    doc_ids: list[Any] = []
    hashes: list[Any] = []
    clusters: list[Any] = []
    # multiple-choice records of the general loop: index, filtered_resps, choice lengths (or None), gold (-1: unknown)
    mc: tuple[list[int], list[list[Any]], list[list[int] | None], list[int]] = ([], [], [], [])
    mc_rec_append, mc_fr_append, mc_len_append, mc_gold_append = (x.append for x in mc)
    blocks: list[tuple[np.ndarray, np.ndarray, list[Any] | None, np.ndarray]] = []  # fast batches' (see _fill_...)
    seen: dict[Any, int] = {}
    info: dict[str, Any] = {"extra_filters": False, "has_repeats": False, "mc": 0, "mc_no_label": 0,
                            "int_ids": True, "metric_keys": set()}
    cluster_parts = cluster.split(".") if cluster is not None else []
    one_part = len(cluster_parts) == 1
    metric_key: dict[str, dict[str, str]] = {}  # filter -> name -> "name,filter", built once
    recs: list[int] = []  # per row: record index, metric, epoch, value as logged
    metrics_l: list[str] = []
    epochs: list[int] = []
    raw: list[Any] = []
    rec_append, metric_append, epoch_append, raw_append = recs.append, metrics_l.append, epochs.append, raw.append
    ids_append, hashes_append, clusters_append = doc_ids.append, hashes.append, clusters.append
    schema = None  # the fast path's (getter, names, acc) once a regular record was seen (_fast_schema)
    plain = 0  # fast records with an int doc id, a str hash, a float value (and a str cluster value)
    pending: tuple[list[int], list[Any], list[int]] = ([], [], [])  # its multiple-choice records
    by_filter: dict[str, list[str]] = {}  # filter -> the rows' metric names
    # consecutive fast records of one metric and filter make one row each: kept as runs
    # (first record, count, metric, position in the per-row lists), not as three list entries
    # a row (no int object per row, fewer lists growing in memory)
    runs: list[tuple[int, int, str, int]] = []
    run_start, run_filt, run_metric = -1, None, ""

    def close_run(end: int) -> None:
        nonlocal run_start, run_filt
        n = end - run_start
        if n >= min_run:
            runs.append((run_start, n, run_metric, len(recs)))
        elif n > 0:  # short runs (alternating filters) as plain rows: a bounded number of runs
            recs.extend(range(run_start, end))
            metrics_l.extend(repeat(run_metric, n))
            epochs.extend(repeat(1, n))
        run_start, run_filt = -1, None

    def flush() -> None:  # the fast path's multiple-choice records as one block, or to the general lists
        idx, frs, targets = pending  # targets: ints, gold where within the choices (else -1)
        ll = _lls_or_none(frs)
        if ll is not None:
            k = ll.shape[1]
            try:
                gold = np.asarray(targets, dtype=np.int64)
                gold[(gold < 0) | (gold >= k)] = -1
            except OverflowError:  # beyond int64: out of range anyway
                gold = np.asarray([g if 0 <= g < k else -1 for g in targets], dtype=np.int64)
            blocks.append((np.asarray(idx, dtype=np.int64), ll, None, gold))
        else:
            mc[0].extend(idx)
            mc[1].extend(frs)
            mc[2].extend(repeat(None, len(idx)))
            mc[3].extend(g if 0 <= g < len(f) else -1 for g, f in zip(targets, frs))
        for x in pending:
            x.clear()

    for place, r in pairs:
        if schema is None and fast_records and len(doc_ids) % try_every == 0:  # the first record, then now and then
            schema = _fast_schema(r, cluster is not None)
            if schema is not None:
                getter, f_names, acc = schema
                n_names = len(f_names)
                at_doc = 6 if acc else 4
                one_name = n_names == 1
                pend_i, pend_fr, pend_gold = (x.append for x in pending)
                pend_idx, flush_at = pending[0], tuning.lm_flush
        if schema is not None:
            # the fast path: a record shaped like the first regular one, read through one
            # itemgetter; anything else (and every error) goes to the general loop below
            try:
                t = getter(r)
            except (KeyError, TypeError):
                t = None
            if t is not None and t[3] == f_names and type(t[1]) is str and "scores_per_repeat" not in r:
                if cluster is not None:
                    doc = t[at_doc]
                    cv = (doc.get(cluster) if type(doc) is dict else None) if one_part else \
                        dotted_parts(doc, cluster_parts)
                    ok = type(cv) in _SCALARS  # not None, a dict or a list (JSON's other types)
                else:
                    ok, cv = True, ""  # (a str: no cluster is a plain one below)
                fr = t[5] if acc else None
                is_mc = acc and type(fr) is list and len(fr) >= 2 and type(fr[0]) is list and \
                    len(fr[0]) == 2 and type(fr[0][0]) is not bool
                if ok and (not is_mc or type(t[4]) is int):
                    i = len(doc_ids)
                    filt = t[1]
                    if one_name:
                        if filt != run_filt:  # a new run of rows (see close_run)
                            if run_start >= 0:
                                close_run(i)
                            row_metrics = by_filter.get(filt)
                            if row_metrics is None:
                                row_metrics = by_filter[filt] = [_metric_of(nm, filt, metric_key) for nm in f_names]
                            run_start, run_filt, run_metric = i, filt, row_metrics[0]
                        raw_append(t[-1])
                    else:
                        if run_start >= 0:
                            close_run(i)
                        row_metrics = by_filter.get(filt)
                        if row_metrics is None:
                            row_metrics = by_filter[filt] = [_metric_of(nm, filt, metric_key) for nm in f_names]
                        base = len(t) - n_names
                        for j, metric in enumerate(row_metrics):
                            rec_append(i)
                            metric_append(metric)
                            epoch_append(1)
                            raw_append(t[base + j])
                    ids_append(t[0])
                    hashes_append(t[2])
                    if cluster is not None:
                        clusters_append(cv)
                    if type(t[0]) is int and type(t[2]) is str and type(t[-1]) is float and type(cv) is str:
                        plain += 1  # its doc id, hash, value and cluster as most are: see below
                    if is_mc:
                        pend_i(i)
                        pend_fr(fr)
                        pend_gold(t[4])
                        if len(pend_idx) >= flush_at:
                            flush()
                    continue
        if run_start >= 0:
            close_run(len(doc_ids))
        if type(r) is not dict:
            raise InputError(f"{place_word} {place} is not an object", source)
        if "doc_id" not in r:
            raise InputError(f"{place_word} {place} has no doc_id", source)
        get = r.get
        i = len(doc_ids)
        doc_id = r["doc_id"]
        ids_append(doc_id)
        hashes_append(get("doc_hash"))
        filt = get("filter")
        if filt is None:
            key = doc_id if isinstance(doc_id, (str, int, float)) else repr(doc_id)
            k = seen.get(key, 0)
            seen[key] = k + 1
            if k < len(filters):
                filt = filters[k]
            elif k == 0:
                filt = "none"
            else:
                filt, info["extra_filters"] = f"filter{k}", True
        elif type(filt) is not str:
            filt = str(filt)
        if cluster is not None:
            doc = get("doc")
            cv = (doc.get(cluster) if type(doc) is dict else None) if one_part else dotted_parts(doc, cluster_parts)
            if cv is None or isinstance(cv, (dict, list)):
                raise InputError(f"doc {doc_id!r} has no scalar doc field {cluster!r} to cluster on", source)
            clusters_append(cv)
        names = get("metrics")
        if type(names) is not list:
            names = metric_names or [k for k in r if k not in NOT_METRICS and not _WRITE_OUT.match(k)]
        spr = get("scores_per_repeat")
        fr = get("filtered_resps")
        if type(fr) is list and len(fr) >= 2 and ("acc" in names or "acc_norm" in names):
            first = fr[0]  # one [loglikelihood, is_greedy] per choice (see _mc_extra)
            if type(first) is list and len(first) == 2 and type(first[0]) is not bool:
                target = get("target")
                if type(target) is int and "acc_norm" not in names:  # the common case, inline
                    lens, gold = None, (target if 0 <= target < len(fr) else -1)
                else:
                    lens, gold = _mc_extra(r, len(fr), target, delim, "acc_norm" in names)
                mc_rec_append(i)
                mc_fr_append(fr)
                mc_len_append(lens)
                mc_gold_append(gold)
        keys = metric_key.get(filt)
        if keys is None:
            keys = metric_key[filt] = {}
        for name in names:
            metric = keys.get(name) if type(name) is str else None
            if metric is None:
                metric = f"{name},{filt}" if filt else str(name)
                if type(name) is str:
                    keys[name] = metric
            values = spr.get(name) if type(spr) is dict else None
            if type(values) is list:
                info["has_repeats"] = True
                for e, v in enumerate(values, start=1):
                    rec_append(i)
                    metric_append(metric)
                    epoch_append(e)
                    raw_append(v)
            else:
                rec_append(i)
                metric_append(metric)
                epoch_append(1)
                raw_append(get(name))
    if pending[0]:
        flush()
    if run_start >= 0:
        close_run(len(doc_ids))
    rec, metric, epoch = _row_arrays(recs, metrics_l, epochs, runs)
    n_rows = len(rec)
    # one row per record, in order (one metric, the fast path throughout): no take by record
    identity = not recs and len(runs) == 1 and runs[0][:2] == (0, len(doc_ids))
    # every row a plain record's: the types the passes below would find are known already (the
    # values were checked while in the CPU caches; a later pass over 50,000 scattered objects
    # costs ~5-10 ms each)
    all_plain = identity and plain == len(doc_ids)
    if all_plain:
        has_corpus = False
    else:
        kinds = set(map(type, raw))  # one C-level pass; the per-value test only when some value is a container
        has_corpus = list in kinds or dict in kinds
    if has_corpus:
        corpus_l = [type(v) is list or type(v) is dict for v in raw]
        dumps = orjson.dumps if orjson is not None else None
        for j in np.flatnonzero(corpus_l):  # corpus inputs only: kept as JSON text
            try:
                raw[j] = dumps(raw[j]).decode() if dumps else str(raw[j])
            except (TypeError, ValueError):  # orjson: nested deeper than 255, odd keys
                raw[j] = "<unserialisable>"
    info["int_ids"] = all_plain or (pd.api.types.infer_dtype(doc_ids, skipna=False) == "integer" if doc_ids else True)
    info["str_hashes"] = all_plain and n_rows > 0
    ids = _id_strings(doc_ids, info["int_ids"])
    info["metric_keys"] = set(metrics_l).union(run[2] for run in runs)
    if has_corpus:
        corpus = np.asarray(corpus_l, dtype=bool)
        raw_series = pd.Series(raw, dtype=object)
        values, errors = coerce_scores(raw_series.where(~corpus, None))
        error = np.where(corpus, CORPUS_LEVEL, errors.to_numpy())
        values = np.where(corpus, np.nan, values)
        raw_text = raw_strings(raw_series).to_numpy(dtype=object)
    else:
        values, error, raw_text = _values_and_text(raw, "floating" if all_plain else None)
    out: dict[str, np.ndarray] = {
        "metric": metric,
        "item": ids if identity else ids[rec],
        "epoch": epoch,
        "value": np.asarray(values, dtype=np.float64),
        "raw": raw_text,
        "cluster": (np.asarray(clusters, dtype=object) if all_plain else _by_record(
            _id_strings(clusters, pd.api.types.infer_dtype(clusters, skipna=False) == "integer"), rec, identity))
        if cluster is not None else np.full(n_rows, None, dtype=object),
        "item_hash": _by_record(np.asarray(hashes, dtype=object), rec, identity) if n_rows
        else np.array([], dtype=object),
        "error": error,
    }
    if mc[0] or blocks:
        info["mc"], info["mc_no_label"] = _fill_multiple_choice(out, rec, len(doc_ids), mc, blocks,
                                                                      tuning.lm_factorize_from)
    info["doc_ids"] = ids
    return out, info


def _row_arrays(recs: list[int], metrics_l: list[str], epochs: list[int], runs: list[tuple[int, int, str, int]]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Record index, metric and epoch of every row: the rows listed one by one (``recs``,
    ``metrics_l``, ``epochs``) with the runs of :func:`_extract` put back at their places
    (a run ``(first record, count, metric, position)``: records first..first+count-1, one row
    each, of ``metric``, epoch 1, before the listed row at ``position``)."""
    if not runs:
        metric = np.asarray(metrics_l, dtype=object) if metrics_l else np.array([], dtype=object)
        return np.asarray(recs, dtype=np.int64), metric, np.asarray(epochs, dtype=np.int64)
    if len(runs) == 1 and not recs:  # the common case: one run, nothing else
        start, n, m, _ = runs[0]
        return np.arange(start, start + n, dtype=np.int64), np.full(n, m, dtype=object), np.ones(n, dtype=np.int64)
    r_parts, m_parts, e_parts = [], [], []
    pos = 0
    for start, n, m, at in runs + [(0, 0, "", len(recs))]:
        if at > pos:
            r_parts.append(np.asarray(recs[pos:at], dtype=np.int64))
            m_parts.append(np.asarray(metrics_l[pos:at], dtype=object))
            e_parts.append(np.asarray(epochs[pos:at], dtype=np.int64))
        if n:
            r_parts.append(np.arange(start, start + n, dtype=np.int64))
            m_parts.append(np.full(n, m, dtype=object))
            e_parts.append(np.ones(n, dtype=np.int64))
        pos = at
    return np.concatenate(r_parts), np.concatenate(m_parts), np.concatenate(e_parts)


def _by_record(per_record: np.ndarray, rec: np.ndarray, identity: bool) -> np.ndarray:
    """A per-record column as a per-row one (``identity``: one row per record, in order)."""
    return per_record if identity else per_record[rec]


def _values_and_text(raw: list[Any], kind: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Values, errors and ``raw`` text of logged metric values, by the shared converter
    (:func:`evaladdon.adapters.common.scores.coerce_scores`, :func:`~evaladdon.adapters.common.scores.raw_strings`).

    The common case -- every value a JSON float (or every one an integer) -- goes to the
    converter as a numeric column (the same values and errors as the object path gives
    them), and its text is made once per distinct value (``str``, as ``raw_strings``; a NaN
    is ``""``): the object column's round trip through pandas strings is most of the
    per-file cost of a small log.  Distinct floats are told apart by their bits, so
    ``-0.0`` keeps its sign.
    """
    if kind is None or not raw:  # ``kind``: the caller knows every value is a float
        kind = pd.api.types.infer_dtype(raw, skipna=False) if raw else "empty"
    arr: np.ndarray | None = None
    if kind == "floating":
        arr = np.asarray(raw, dtype=np.float64)
        keys = arr.view(np.int64)
    elif kind == "integer":
        try:
            arr = keys = np.asarray(raw, dtype=np.int64)
        except OverflowError:  # beyond int64: the object path
            arr = None
    if arr is None:
        series = pd.Series(raw, dtype=object)
        values, errors = coerce_scores(series)
        return values, errors.to_numpy(), raw_strings(series).to_numpy(dtype=object)
    values, errors = _numeric_scores(arr)
    if len(arr) <= 4096:  # a small file: str of each value beats the sort's fixed cost (the same text)
        return values, errors, np.array(["" if v != v else str(v) for v in arr.tolist()], dtype=object)
    uniq, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    text = np.array(["" if v != v else str(v) for v in arr[first].tolist()], dtype=object)
    return values, errors, text[inv.reshape(-1)]


def _numeric_scores(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~evaladdon.adapters.common.scores.coerce_scores` of a float64 or int64 array (its
    numeric path: nothing missing, NaN and infinities ``non-finite``), without the pandas
    Series it builds -- a fixed cost that was a fifth of reading a 100-doc file.  Held equal
    to ``coerce_scores`` in ``tests/test_lm_eval_combined.py``."""
    values = arr.astype(np.float64, copy=False)
    finite = np.isfinite(values)
    error = np.full(len(values), None, dtype=object)
    if not finite.all():
        error[~finite] = NON_FINITE
        values = np.where(finite, values, np.nan)
    return values, error


def _id_strings(doc_ids: list[Any], int_ids: bool) -> np.ndarray:
    """Doc ids (or cluster values) as ``str`` in an object array: strings as they are,
    integers by ``str`` in one C-level map, anything else by pandas' ``astype(str)`` (the
    same text every way: ``str`` of the value)."""
    if int_ids and doc_ids:
        return np.array(list(map(str, doc_ids)), dtype=object)  # int -> decimal text, in C
    if doc_ids and pd.api.types.infer_dtype(doc_ids, skipna=False) == "string":
        return np.asarray(doc_ids, dtype=object)
    return pd.Series(doc_ids, dtype=object).astype(str).to_numpy(dtype=object)


def _mc_extra(r: dict[str, Any], n: int, target: Any, delim: str, need_lengths: bool) -> tuple[list[int] | None, int]:
    """(choice lengths or None, gold index or -1) of a multiple-choice sample whose
    ``filtered_resps`` hold ``n`` ``[loglikelihood, is_greedy]`` pairs (newer logs write both
    as strings, ``["-10.0", "False"]``; the log-likelihoods are converted per block later,
    see :func:`_block_lls`).  The common case (an int gold, no ``acc_norm``) is inlined in
    :func:`_extract`, with the same result as here.

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
                          factorize_from: int = DEFAULT.lm_factorize_from) -> tuple[int, int]:
    """prediction/label/confidence on the acc and acc_norm rows, vectorised per choice count.

    ``mc``: parallel lists (record index, filtered_resps, choice lengths or None, gold or -1)
    of records whose log-likelihoods are converted here (:func:`_block_lls`, one block per
    number of choices); ``blocks``: (record indices, log-likelihoods (R, k), choice lengths
    or None, gold) already converted by :func:`_lls_or_none`.  Every step is row by row, so
    the grouping into blocks changes no value.  Metric names are coded with ``pd.factorize``
    from ``factorize_from`` rows.  Returns (multiple-choice docs, those without a gold index)."""
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
        pred[idx[sel]], conf[idx[sel]] = p, c
        if lens.count(None) == len(lens):
            continue
        has_len = np.array([lens[j] is not None for j in sel.tolist()], dtype=bool)
        if has_len.any():
            lengths = np.array([lens[j] for j in sel[has_len].tolist()], dtype=float)
            good = (lengths > 0).all(axis=1)
            rows = idx[sel[has_len][good]]
            pn, cn = _softmax_pick(ll[has_len][good] / lengths[good])
            pred_n[rows], conf_n[rows] = pn, cn
    if len(out["metric"]) > factorize_from:  # a few metric names: hashed, not sorted
        codes, names = pd.factorize(out["metric"])
    else:  # a small file: less fixed cost
        metric = out["metric"].tolist()
        code_of = {m: j for j, m in enumerate(dict.fromkeys(metric))}
        codes, names = np.fromiter(map(code_of.__getitem__, metric), dtype=np.int64, count=len(metric)), list(code_of)
    base = np.array([str(u).split(",", 1)[0] for u in names], dtype=object)
    is_acc, is_norm = (base == "acc")[codes], (base == "acc_norm")[codes]
    p_row = np.where(is_acc, pred[rec], np.where(is_norm, pred_n[rec], -1))
    c_row = np.where(is_acc, conf[rec], np.where(is_norm, conf_n[rec], np.nan))
    l_row = np.where(p_row >= 0, label[rec], -1)
    out["prediction"] = _as_str_or_none(p_row)
    out["label"] = _as_str_or_none(l_row)
    out["confidence"] = np.asarray(c_row, dtype=np.float64)
    return n_mc, no_label


def _as_str_or_none(codes: np.ndarray) -> np.ndarray:
    """Non-negative integer codes as strings, -1 as None (choice indices: a small table)."""
    top = int(codes.max()) if len(codes) else -1
    table = np.array([str(i) for i in range(top + 1)] + [None], dtype=object)  # table[-1] is None
    return table[codes]


def _records_of(path: Path) -> tuple[Any, str]:
    """(number, record) pairs of a samples file -- JSON lines streamed, or a legacy JSON
    array -- and what the number counts (``line`` or ``sample``)."""
    fh = path.open("rb")  # opened once: its head decides, then its lines are read
    try:
        head = fh.read(4096)
        if head.lstrip()[:1] == b"[" or head.startswith(b"\xef\xbb\xbf") and head[3:].lstrip()[:1] == b"[":
            fh.close()  # as starts_with_array
            return enumerate(read_json_array(path), start=1), "sample"
        fh.seek(0)
    except BaseException:
        fh.close()
        raise
    return iter_json_lines(path, fh=fh), "line"


def rows_from_records(
    records: Any,
    *,
    task: str,
    run: str,
    model: str,
    source: str,
    filters: list[str],
    cluster: str | None,
    metric_names: list[str] | None = None,
    delim: str = " ",
    results: dict[str, Any] | None = None,
    tuning: ReadTuning | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """Canonical rows for one task's sample records (a list of dicts or ``(place, dict)`` pairs)."""
    known: dict[str, bool] = {}
    cols, notes = _cols_from_records(records, task=task, source=source, filters=filters, cluster=cluster,
                                     metric_names=metric_names, delim=delim, results=results, known=known,
                                     tuning=tuning)
    return _frame(cols, run=run, task=task, model=model, source=source, str_hashes=known["str_hashes"]), notes


def _cols_from_records(records: Any, *, task: str, source: str, filters: list[str], cluster: str | None,
                       metric_names: list[str] | None = None, delim: str = " ",
                       results: dict[str, Any] | None = None, known: dict[str, bool] | None = None,
                       tuning: ReadTuning | None = None) -> tuple[dict[str, np.ndarray], list[str]]:
    """The columns (without the constant ones) and notes of :func:`rows_from_records`.
    ``known``, when given, gets ``str_hashes``: whether every row's ``item_hash`` is known to
    be a string (or missing), so that no pass over the column need check it."""
    place_word = "line"
    if isinstance(records, list):
        records, place_word = enumerate(records, start=1), "sample"
    elif isinstance(records, tuple):
        records, place_word = records
    with no_cyclic_gc():  # many small containers, no cycles: the collector would rescan the growing lists
        cols, info = _extract(records, filters=filters, cluster=cluster, delim=delim, source=source,
                              metric_names=metric_names, place_word=place_word, tuning=tuning or DEFAULT)
    notes: list[str] = []
    if info["extra_filters"]:
        notes.append(f"{source}: docs repeat more often than the results list filters; extra copies named filterN")
    if info["mc"] and info["mc_no_label"]:
        notes.append(f"{source}: {info['mc_no_label']} of {info['mc']} multiple-choice docs have no gold index in "
                     "the log (choices not logged, several golds, or an ambiguous target); label left empty")
    more = _mark_missing(cols, info, results, task, source, cluster)  # its rows' item_hash: None
    notes += more
    if known is not None:
        known["str_hashes"] = info["str_hashes"]
    notes += _nonfinite_notes(cols, results, task, source)
    return cols, notes


def _frame(cols: dict[str, np.ndarray], *, run: Any, task: Any, model: Any, source: Any,
           str_hashes: bool = False) -> pd.DataFrame:
    """The canonical table of one task's columns, built once and conforming by construction
    (the order and dtypes :func:`evaladdon.table.finalize` gives), so reading a small file
    costs one DataFrame construction, not a construction, column insertions and a finalize.

    Only ``item_hash`` holds logged values of unchecked type: when one is not a string the
    frame goes through ``finalize`` (which converts it exactly as for any reader).
    ``str_hashes``: the reader knows every ``item_hash`` is a string or None (no check)."""
    n = len(cols["metric"])
    conforming = n > 0 and (str_hashes or pd.api.types.infer_dtype(cols["item_hash"], skipna=True) in ("string", "empty"))
    data: dict[str, Any] = {
        c: _constant(v, n) if isinstance(v, str) else v  # an array: several files' parts (frame_parts)
        for c, v in (("run", run), ("source", source), ("harness", "lm_eval"), ("task", task), ("model", model))}
    for col in ("metric", "item", "epoch", "value", "raw", "cluster", "item_hash", "error"):
        data[col] = cols[col]
    for col in ("cluster", "item_hash", "error"):  # nullable: None where missing, object dtype then
        arr = data[col]
        miss = pd.isna(arr)
        if miss.any():
            if not (arr[miss] == None).all():  # noqa: E711 - elementwise: a NaN/NA stands for None
                arr = arr.copy()
                arr[miss] = None
            data[col] = pd.Series(arr, dtype=object, copy=False)
    for col in MC_COLUMNS:
        if col in cols:
            data[col] = cols[col]
    if not conforming:  # no rows, or a non-string doc_hash: converted like any logged value
        return finalize(pd.DataFrame(data))
    _arrow_strings(data, n)
    return pd.DataFrame(data)


def _arrow_strings(data: dict[str, Any], n: int) -> None:
    """The object-array string columns of ``data`` converted to pandas' pyarrow-backed ``str``
    by pyarrow itself -- the same dtype and values as pandas gives them, at under half its
    cost (pandas checks and copies each column before the same pyarrow call: ~125 ms for the
    columns of 50,000 rows against ~55 ms).  A small table: all columns in ONE pyarrow call
    (then sliced, zero copy), as the per-column overhead dominates a small file; from a few
    thousand rows one call per column (the joined copy costs more than it saves).  Columns
    with no string (all missing) stay object, as pandas leaves them; anything else (another
    pandas, a value that is not a string) is left to pandas."""
    dtype = _inferred_str_dtype()
    if not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
        return
    names = [c for c, v in data.items() if isinstance(v, np.ndarray) and v.dtype == object]
    if not names:
        return
    try:
        import pyarrow as pa
        from pandas.arrays import ArrowStringArray
    except ImportError:  # pragma: no cover - pandas' pyarrow strings need pyarrow
        return
    if n < 5000:
        try:
            joined = pa.array(np.concatenate([data[c] for c in names]), pa.large_string(), from_pandas=True)
        except (TypeError, ValueError):  # a non-string value (ArrowTypeError is a TypeError)
            return
        arrays = [joined.slice(j * n, n) for j in range(len(names))]
    else:
        arrays = []
        for c in names:
            try:
                arrays.append(pa.array(data[c], pa.large_string(), from_pandas=True))
            except (TypeError, ValueError):  # this column holds a value that is not a string: pandas converts it
                arrays.append(None)
    for c, a in zip(names, arrays):
        if a is not None and a.null_count < n:  # all missing: left as object, as pandas leaves it
            data[c] = ArrowStringArray(a, dtype=dtype)


@lru_cache(maxsize=1)
def _inferred_str_dtype() -> Any:
    """The dtype pandas gives a column of ``str`` (pandas 3: ``str``, pyarrow-backed)."""
    return pd.DataFrame({"s": np.array(["x"], dtype=object)})["s"].dtype


def _constant(value: str, n: int) -> Any:
    """A column repeating one string, in the dtype pandas would infer for it.

    pandas converts an object array of ``n`` equal strings to pyarrow one string at a time
    (15 ms per column at 50,000 rows); when pandas stores strings in pyarrow the column is
    built from its buffers: the string's bytes ``n`` times and their offsets (under 1 ms).  Small columns: the object array
    (as fast, and the same dtype)."""
    dtype = _inferred_str_dtype()
    if n >= 1000 and isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
        try:
            import pyarrow as pa
            from pandas.arrays import ArrowStringArray

            data = value.encode("utf-8")  # the bytes n times and their offsets: no per-row work at all
            offsets = np.arange(n + 1, dtype=np.int64) * len(data)
            taken = pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data * n))
            return ArrowStringArray(taken, dtype=dtype)
        except (ImportError, TypeError, ValueError):  # another pandas/pyarrow: the plain way
            pass
    return np.full(n, value, dtype=object)


def _mark_missing(cols: dict[str, np.ndarray], info: dict[str, Any], results: dict[str, Any] | None, task: str,
                  source: str, cluster: str | None) -> list[str]:
    """Rows ``missing from log`` (appended to ``cols``) for docs the results declare but the
    samples lack (issue 12.2); returns the notes."""
    declared = declared_docs(results, task)
    if declared is None:
        return []
    seen_ids = set(info["doc_ids"])
    n_seen = len(seen_ids)
    if n_seen >= declared:
        return []
    note = (f"{source}: incomplete: the results declare {declared} docs for task {task!r} "
            f"(n-samples effective) but the samples hold {n_seen}")
    if not info["int_ids"] or cluster is not None:
        why = "doc ids are not the harness's numbering" if not info["int_ids"] else \
            "their cluster field is unknown"
        return [note + f"; the {declared - n_seen} missing docs are not listed as rows ({why})"]
    ids = np.arange(declared).astype(str)
    missing = ids[~np.isin(ids, np.fromiter(seen_ids, dtype=object, count=n_seen).astype(str))]
    metrics = sorted(info["metric_keys"])
    if not metrics or missing.size == 0:
        return [note]
    k = missing.size * len(metrics)
    add: dict[str, np.ndarray] = {
        "item": np.repeat(missing.astype(object), len(metrics)),
        "epoch": np.ones(k, dtype=np.int64),
        "metric": np.tile(np.array(metrics, dtype=object), missing.size),
        "value": np.full(k, np.nan), "raw": np.full(k, "", dtype=object),
        "error": np.full(k, MISSING_FROM_LOG, dtype=object), "item_hash": np.full(k, None, dtype=object),
        "cluster": np.full(k, None, dtype=object),
    }
    if "confidence" in cols:
        add.update(prediction=np.full(k, None, dtype=object), label=np.full(k, None, dtype=object),
                   confidence=np.full(k, np.nan))
    for col, extra in add.items():
        cols[col] = np.concatenate([cols[col], extra])
    return [note + f"; {missing.size} missing docs counted as '{MISSING_FROM_LOG}'"]


def _nonfinite_notes(cols: dict[str, np.ndarray], results: dict[str, Any] | None, task: str,
                     source: str) -> list[str]:
    """Say where item values are non-finite and what the harness reported (issue 10.7)."""
    bad = cols["error"] == NON_FINITE
    if not bad.any():
        return []
    notes = []
    reported = ((results or {}).get("results") or {}).get(task) or {}
    for metric, k in sorted(Counter(cols["metric"][bad].tolist()).items()):
        harness = reported.get(metric)
        said = f"; the harness reported {harness!r}" if harness is not None else ""
        notes.append(f"{source}: {metric}: {k} item value(s) are non-finite (NaN/Infinity){said}; "
                     "evaladdon's mean is over the finite values only")
    return notes


# ---------------------------------------------------------------- readers


def split_legacy_stem(stem: str) -> tuple[str, str | None]:
    """Task and model from a 0.4.0-0.4.2 samples name ``<model_args>_<task>`` (best effort).

    ``_mathqa`` -> (``mathqa``, None); ``pretrained=EleutherAI__pythia-2.8b_trivia_qa`` ->
    (``trivia_qa``, ``EleutherAI/pythia-2.8b``): the task starts at the first single ``_``
    after the last ``=`` (``__`` stands for ``/`` in sanitised model names).
    """
    if stem.startswith("samples_"):
        return stem[len("samples_"):], None
    if stem.startswith("_"):
        return stem[1:], None
    if "=" in stem:
        head, _, tail = stem.rpartition("=")
        m = re.search(r"(?<!_)_(?!_)", tail)
        if m:
            return tail[m.end():], tail[: m.start()].replace("__", "/")
    return stem, None


def _run_id(model: str, samples_path: Path, results_path: Path | None) -> str:
    m = _TS.search(samples_path.stem) or (_TS.search(results_path.stem) if results_path else None)
    return f"{model}@{m.group(1)}" if m else model


def _empty() -> pd.DataFrame:
    return finalize(pd.DataFrame({c: [] for c in _BASE_COLUMNS}))


@dataclass
class SamplesPart:
    """One samples file's columns before the DataFrame, so that consecutive files of a
    :func:`evaladdon.adapters.read_runs` make one DataFrame (:func:`frame_parts`): a pandas
    DataFrame of ~20 columns costs about a millisecond to build, most of a small file's read.
    ``run`` may be renamed by ``read_runs`` (``NAME=PATH``, clashing run ids) before the frame."""

    cols: dict[str, np.ndarray]
    run: str
    task: str
    model: str
    source: str
    notes: list[str]
    str_hashes: bool = False  # every item_hash known to be a string or None (see _cols_from_records)

    @property
    def n(self) -> int:
        return len(self.cols["metric"])

    @property
    def metrics(self) -> list[str]:
        return list(dict.fromkeys(self.cols["metric"].tolist()))

    def combinable(self) -> bool:
        """Rows, and every ``item_hash`` a string (else :func:`_frame` finalizes this file alone)."""
        return self.n > 0 and (self.str_hashes or
                               pd.api.types.infer_dtype(self.cols["item_hash"], skipna=True) in ("string", "empty"))


def frame_parts(parts: list[SamplesPart]) -> pd.DataFrame:
    """The canonical table of several samples files: their columns joined and ONE DataFrame
    built, equal (after :func:`evaladdon.table.finalize`) to concatenating each file's own
    table.  Parts that are not :meth:`~SamplesPart.combinable`, or whose optional columns
    differ from the first's, are framed alone and concatenated."""
    from evaladdon.table import concat

    if len(parts) == 1:
        p = parts[0]
        df = _frame(p.cols, run=p.run, task=p.task, model=p.model, source=p.source, str_hashes=p.str_hashes)
        df.attrs["notes"] = p.notes
        return df
    together = [p for p in parts if p.combinable() and p.cols.keys() == parts[0].cols.keys()]
    if len(together) < 2:
        return concat([frame_parts([p]) for p in parts])
    if len(together) < len(parts):  # file order kept: runs of combinable parts, the rest alone
        out, stretch = [], []
        for p in parts + [None]:  # type: ignore[list-item]
            if p is not None and p.combinable() and p.cols.keys() == parts[0].cols.keys():
                stretch.append(p)
                continue
            if stretch:
                out.append(frame_parts(stretch))
                stretch = []
            if p is not None:
                out.append(frame_parts([p]))
        return concat(out)
    sizes = [p.n for p in parts]
    cols = {c: np.concatenate([p.cols[c] for p in parts]) for c in parts[0].cols}

    def constant(attr: str) -> np.ndarray:
        return np.repeat(np.array([getattr(p, attr) for p in parts], dtype=object), sizes)

    df = _frame(cols, run=constant("run"), task=constant("task"), model=constant("model"), source=constant("source"),
                str_hashes=all(p.str_hashes for p in parts))
    if all(p.notes == parts[0].notes for p in parts):  # as pandas' concat keeps attrs all frames share
        df.attrs["notes"] = parts[0].notes
    return df


def read_samples(path: str | Path, cluster: str | None = None, *, tuning: ReadTuning | None = None) -> pd.DataFrame:
    """A samples file (JSON lines, or a JSON array in a .jsonl) of one task."""
    return frame_parts([read_samples_part(path, cluster, tuning=tuning)])  # conforming by construction (see _frame)


def read_samples_part(path: str | Path, cluster: str | None = None, *, tuning: ReadTuning | None = None
                      ) -> SamplesPart:
    """:func:`read_samples` before its DataFrame is built (see :class:`SamplesPart`)."""
    p = Path(path)
    results_path, task = pair_results(p)
    results = read_results(results_path) if results_path else None
    guessed_task, guessed_model = split_legacy_stem(p.stem)
    task = task or guessed_task
    model = model_name(results, guessed_model or p.parent.name)
    notes: list[str] = []
    if results is None:
        notes.append(f"{p}: no results file pairs with these samples; model named after the folder ({model})")
    known: dict[str, bool] = {}
    try:
        cols, more = _cols_from_records(_records_of(p), task=task, source=str(p), filters=filters_of(results, task),
                                        cluster=cluster, delim=target_delimiter(results, task), results=results,
                                        known=known, tuning=tuning)
    except InputError as exc:
        if exc.where == "results" and results_path is not None:  # a count checked lazily
            raise InputError(exc.message, str(results_path)) from None
        raise
    notes += more
    repeats = repeats_of(results, task)
    if repeats > 1 and not (cols["epoch"] > 1).any():
        notes.append(f"{p}: task {task!r} ran with repeats={repeats} but the harness logged "
                     "only the first repeat's score per doc; epochs are not available")
    return SamplesPart(cols, _run_id(model, p, results_path), task, model, str(p), notes, known["str_hashes"])


def read_write_out(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """A 0.3 ``<task>_write_out_info.json`` array (all values are strings)."""
    p = Path(path)
    data = _load_json(p)
    if not isinstance(data, list) or not all(isinstance(r, dict) and "doc_id" in r for r in data):
        raise InputError("expected a JSON array of objects with doc_id (lm-eval 0.3 write_out_info)", str(p))
    task = p.name[: -len("_write_out_info.json")]
    model = p.parent.name
    if cluster is not None:
        raise InputError("0.3 write_out_info files carry no doc fields to cluster on", str(p))
    df, notes = rows_from_records(data, task=task, run=model, model=model, source=str(p), filters=[""],
                                  cluster=None)
    out = finalize(df)
    out.attrs["notes"] = notes + [f"{p}: lm-eval 0.3 write-out: model named after the folder ({model})"]
    return out


def _float_or_none(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        if isinstance(v, str):
            try:
                return float(v)
            except ValueError:
                return None
        return None
    return float(v)


def reported_values(results: dict[str, Any], *, run: str, source: str, model: str) -> list[dict[str, Any]]:
    """The harness's own value/stderr per (task, metric) of a results file (see module docstring)."""
    out: list[dict[str, Any]] = []
    n_samples = results.get("n-samples") or {}
    for task, entry in results["results"].items():
        ns = n_samples.get(task) if isinstance(n_samples, dict) else None
        n = ns.get("effective") if isinstance(ns, dict) else None
        if n is None and isinstance(entry.get("sample_len"), int) and not isinstance(entry.get("sample_len"), bool):
            n = entry["sample_len"]
        for key, value in entry.items():
            name, sep, filt = key.partition(",")
            if name.endswith("_stderr") or key in ("alias", "name", "sample_len", "sample_count", "samples"):
                continue
            v = _float_or_none(value)
            if v is None or isinstance(value, str):
                continue  # "N/A" values, aliases and other strings are not results
            se = _float_or_none(entry.get(f"{name}_stderr{sep}{filt}"))
            out.append({"run": run, "source": source, "task": str(task), "model": model, "metric": key,
                        "value": v, "stderr": se, "n": int(n) if n is not None else None})
    return out


def read_results_file(path: str | Path, cluster: str | None = None) -> pd.DataFrame:
    """A results JSON: rows from embedded ``samples`` if any; otherwise no rows and the
    harness-reported values in ``attrs["reported"]`` (see the module docstring)."""
    p = Path(path)
    results = read_results(p)
    model = model_name(results, p.parent.name)
    embedded = results.get("samples")
    frames: list[pd.DataFrame] = []
    notes: list[str] = []
    m = _TS.search(p.stem)
    run = f"{model}@{m.group(1)}" if m else f"{model}@{p.stem}"
    if isinstance(embedded, dict) and embedded:
        for task, records in embedded.items():
            if not isinstance(records, list):
                continue
            df, more = rows_from_records(records, task=str(task), run=run, model=model, source=str(p),
                                         filters=filters_of(results, str(task)), cluster=cluster,
                                         delim=target_delimiter(results, str(task)), results=results)
            frames.append(df)
            notes += more
    reported: list[dict[str, Any]] = []
    if not frames:
        out = _empty()
        reported = reported_values(results, run=run, source=str(p), model=model)
        notes.append(f"{p}: results only, no per-item samples (run lm_eval with --log_samples): "
                     f"{len(reported)} harness-reported value(s), unclustered and unpaired")
    else:
        out = finalize(pd.concat(frames, ignore_index=True))
    out.attrs["notes"] = notes
    out.attrs["reported"] = reported
    return out


def harness_context(source: str, task: str) -> dict[str, Any]:
    """For a samples (or results) file: the paired results' aggregations and values of ``task``.

    Returns ``{"aggregations": {metric: aggregation}, "reported": {"metric,filter": value},
    "results_path": str | None}`` (empty when no results file pairs); for
    :mod:`evaladdon.analysis.corpus`.
    """
    p = Path(source)
    results_path: Path | None
    try:
        with p.open("rb") as fh:
            is_results = looks_like_results_json(fh.read(512))
    except OSError:
        return {"aggregations": {}, "reported": {}, "results_path": None}
    results_path = p if is_results else pair_results(p)[0]
    results = read_results(results_path) if results_path else None
    return {"aggregations": metric_aggregations(results, task),
            "reported": dict(((results or {}).get("results") or {}).get(task) or {}),
            "results_path": str(results_path) if results_path else None}
