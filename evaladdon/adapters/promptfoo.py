"""promptfoo outputs (``promptfoo eval -o FILE``) of every generation -> canonical rows.

Generations (see ``SEED_SYSTEMS.md``): the 2023-04 bare list of ``{prompt, output, <var>}``
(no outcome: refused, it holds no scores); unversioned ``{results[], stats, table}``;
``version: 1``; ``version: 2`` wrapped as ``{results: {version: 2, ...}, config}`` and
unwrapped (node ``evaluate()``); ``version: 3`` ``{evalId, results: {version: 3, prompts[],
results[], stats}, config}``; JSON lines of result rows; and the CSV table export (``[PASS] (1.00) output`` cells; the
2023-05 CSV with plain outputs holds no scores and is refused).

- one run per (prompt, provider) arm: the provider (label, else id) and, when the file has
  several prompts, the prompt's label -- the run id is readable; ``meta.provider`` and
  ``meta.prompt`` keep the arm's two factors;
- item = ``testIdx`` when logged, else a stable hash of the test's ``vars`` (also kept as
  ``item_hash`` so two files are checked to hold the same tests); a test repeated within an
  arm (``--repeat``) becomes epochs;
- metrics: ``pass`` (from ``success``), ``score`` (v2+), and each ``namedScores`` entry (rows
  only where the metric was logged); a ``success`` that is not a boolean (``"yes"``, null) is
  bad input, refused in one line: promptfoo always writes one, and the file's own counts and
  the pass rate would read such a value differently;
- CSV scores that are not finite (``(NaN)``, ``(Infinity)``, ``(nan)``, ``(inf)``) are kept as
  logged and counted as non-finite values, not lost;
- provider errors (``failureReason`` 2, an ``error`` with no grading result, a response
  error) are errors, not failures: every metric of the row has no value and says why;
- an assertion that threw (promptfoo reports ``pass: false``, ``score: 0`` with a reason such
  as ``Custom function threw error:``) is an error of the grader, not a failure of the model,
  when it is all that failed; a row where another assertion failed for real is a failure (as
  promptfoo counts it); an arm in which every row is such an error is reported in a note;
- the file's own ``stats`` (successes, failures, errors) are checked against the rows, and
  any disagreement is reported.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
else:
    from evaladdon._util.lazy import lazy_module

    pd = lazy_module("pandas")  # imported on first use (the lean summarize of Inspect logs needs none)

from evaladdon.adapters.common.jsondoc import load_json, stable_hash, type_name
from evaladdon.adapters.common.jsonlines import read_json_records
from evaladdon.adapters.common.scores import coerce_scores, raw_strings
from evaladdon.adapters.common.messages import one_line
from evaladdon.errors import InputError
from evaladdon.table import finalize

PROVIDER_ERROR = "provider error"
GRADER_ERROR = "assertion error (the grader threw)"
# promptfoo's sentinels for an assertion that failed because it threw, not because the
# output was wrong (javascript/python assertions, regex and scoring functions)
_THREW = re.compile(
    r"^\s*(Custom function threw error|Python code execution failed|Invalid regex pattern|Scoring function error|"
    r"Error running assertion|Error loading|Could not load|(?:Type|Reference|Syntax|Range)Error\b)", re.IGNORECASE)
# the score in parentheses: a number, or a non-finite one as JavaScript or Python prints it
# (NaN, Infinity, nan, inf): kept as logged, so it is counted as non-finite, not lost
_CELL = re.compile(r"^\s*\[(PASS|FAIL|ERROR)\]\s*(?:\(\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
                   r"|[-+]?(?i:nan|inf(?:inity)?))\s*\))?")
_HEADER = re.compile(r"^\[([^\]]+)\]\s*(.*)$", re.DOTALL)


# ---------------------------------------------------------------- sniffing


def looks_like_promptfoo_json(head: bytes) -> bool:
    """A promptfoo output by its first bytes: ``evalId``, a versioned results summary, a
    results array of prompt/vars records, or the 2023 bare list of prompt/output records."""
    text = head.decode("utf-8", errors="replace").lstrip()
    if re.match(r'^\{\s*"evalId"\s*:', text):
        return True
    if re.match(r'^\[\s*\{\s*"prompt"\s*:', text):
        return '"output"' in text or '"success"' in text
    if not text.startswith("{"):
        return False
    if re.search(r'"results"\s*:\s*\{\s*"version"\s*:\s*\d', text):
        return True
    m = re.search(r'"results"\s*:\s*\[\s*\{', text)
    return m is not None and any(k in text[m.end():] for k in ('"prompt"', '"vars"', '"provider"')) and \
        any(k in text for k in ('"success"', '"response"', '"promptIdx"'))


def looks_like_promptfoo_jsonl(head: bytes) -> bool:
    """JSON lines of promptfoo result rows (``-o results.jsonl`` in later versions)."""
    first = head.decode("utf-8", errors="replace").lstrip().split("\n", 1)[0]
    return first.startswith("{") and '"success"' in first and any(
        k in first for k in ('"testIdx"', '"promptIdx"', '"gradingResult"', '"testCase"'))


def looks_like_promptfoo_csv(head: bytes) -> bool:
    """A promptfoo CSV export: ``[provider] prompt`` or ``{"raw": ...}`` column headers, or
    ``[PASS]``/``[FAIL]`` cells in the first rows."""
    text = head.decode("utf-8", errors="replace")
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error:
        return False
    if not rows:
        return False
    if any(_HEADER.match(h) or h.startswith('{"raw":') for h in rows[0]):
        return True
    return any(_CELL.match(c) for r in rows[1:3] for c in r)


# ---------------------------------------------------------------- helpers


def _first_line(text: Any, limit: int = 160) -> str:
    return one_line(text, limit)


def _short(label: str, limit: int = 48) -> str:
    return _first_line(label, limit)


def _provider(row: dict[str, Any], default: str | None) -> tuple[str, str]:
    """(key, readable name) of the row's provider."""
    prov = row.get("provider")
    if isinstance(prov, dict):
        pid = str(prov.get("id") or "")
        label = str(prov.get("label") or "")
        return f"{pid}|{label}", label or pid or "provider?"
    if isinstance(prov, str) and prov:
        return prov, prov
    return default or "", default or ""


def _prompt(row: dict[str, Any]) -> tuple[str, str]:
    """(key, readable label) of the row's prompt."""
    pr = row.get("prompt")
    if isinstance(pr, dict):
        label = pr.get("label") or pr.get("display") or pr.get("raw") or ""
        key = row.get("promptId") or pr.get("id") or label
        return str(key), str(label)
    if isinstance(pr, str):
        return pr, pr
    return "", ""


def _config_provider(config: Any) -> str | None:
    """The only provider of a config, when it names exactly one."""
    provs = config.get("providers") if isinstance(config, dict) else None
    if isinstance(provs, str):
        return provs
    if isinstance(provs, list) and len(provs) == 1:
        p = provs[0]
        if isinstance(p, str):
            return p
        if isinstance(p, dict):
            return str(p.get("label") or p.get("id") or "") or None
    return None


def _threw(grading: Any) -> str | None:
    """The reason when the grading result says the row failed only because assertions threw:
    with components, every failed component threw (one that failed for real makes the row a
    failure, as promptfoo counts it); without, its own reason or ``graderError`` says so."""
    if not isinstance(grading, dict):
        return None
    comps = grading.get("componentResults")
    failed = [c for c in comps if isinstance(c, dict) and c.get("pass") is False] if isinstance(comps, list) else []
    if failed:
        reasons = [_threw(c) for c in failed]
        return reasons[0] if all(r is not None for r in reasons) else None
    meta = grading.get("metadata")
    if isinstance(meta, dict) and meta.get("graderError"):
        return _first_line(meta.get("graderError"))
    reason = grading.get("reason")
    if isinstance(reason, str) and _THREW.match(reason):
        return _first_line(reason)
    return None


def _unwrap(data: Any, where: str) -> tuple[list[Any], dict[str, Any], Any, Any, list[Any]]:
    """(results, stats, version, config, prompts summary) of any generation."""
    if isinstance(data, list):
        if data and all(isinstance(r, dict) and "success" not in r for r in data):
            raise InputError("promptfoo 2023 output (a bare list of prompt/output records) holds no scores "
                             "(no pass/fail per test); nothing to analyse", where)
        return data, {}, None, None, []
    if not isinstance(data, dict):
        raise InputError(f"not a promptfoo output: expected a JSON object, found {type_name(data)}", where)
    config = data.get("config")
    summary = data
    if isinstance(data.get("results"), dict):
        summary = data["results"]
    results = summary.get("results")
    if not isinstance(results, list):
        raise InputError(f"not a promptfoo output: 'results' is {type_name(results)}, expected an array of rows",
                         where)
    stats = summary.get("stats") if isinstance(summary.get("stats"), dict) else {}
    prompts = summary.get("prompts") if isinstance(summary.get("prompts"), list) else []
    return results, stats, summary.get("version", data.get("version")), config, prompts


# ---------------------------------------------------------------- JSON


def read_promptfoo(path: str | Path, cluster: str | None = None, judged: bool = False) -> pd.DataFrame:
    """Read one promptfoo output (JSON of any generation, or a CSV export) into canonical rows;
    ``judged``: with its model-graded assertions' verdicts too (:mod:`.promptfoo_judged`)."""
    p = Path(path)
    if p.suffix.lower() in (".csv", ".tsv"):
        return read_promptfoo_csv(p, cluster)
    where = str(p)
    if p.suffix.lower() in (".jsonl", ".ndjson"):  # one result row per line; no summary, no stats
        results, stats, config, prompt_summaries = read_json_records(p), {}, None, []
    else:
        results, stats, _, config, prompt_summaries = _unwrap(load_json(p), where)
    if not results:
        raise InputError("promptfoo output has no result rows", where)
    default_provider = _config_provider(config)
    notes: list[str] = []
    task = str(config.get("description")) if isinstance(config, dict) and config.get("description") else "promptfoo"

    # one pass: per-record extraction
    rows = _Rows()
    for i, row in enumerate(results):
        _add_row(rows, i, row, default_provider, cluster, where)
    names, arm_of = _arm_names(rows, where, notes)
    run = np.asarray(names, dtype=object)[arm_of]
    model = np.asarray([pn or "(provider not logged)" for pn in rows.prov_name], dtype=object)
    item, epoch = _items(rows, run, where, notes)

    kinds = pd.Series(rows.kind, dtype=object)
    why_s = pd.Series(rows.reason, dtype=object)
    row_error = kinds.where(kinds.isna(), kinds + ": " + why_s.fillna(""))
    _outcome_notes(rows, names, arm_of, kinds, why_s, where, notes)
    _check_stats(stats, pd.Series(rows.success, dtype=object), kinds, where, notes)
    _check_prompt_metrics(prompt_summaries, rows.prov_ids, rows.prompt_ids, pd.Series(rows.success, dtype=object),
                          kinds, where, notes)

    base = pd.DataFrame({"run": run, "model": model, "item": item, "epoch": epoch,
                         "item_hash": pd.Series(rows.var_hash, dtype=object), "row_error": row_error,
                         # the arm's two factors, so runs can be grouped by prompt or by provider
                         "meta.provider": model, "meta.prompt": pd.Series(rows.prompt_label, dtype=object)})
    if cluster is not None:
        base["cluster"] = raw_strings(pd.Series(rows.clusters, dtype=object))
    parts = _metric_parts(base, rows)
    if judged:
        from evaladdon.adapters.promptfoo_judged import judged_part

        parts += judged_part(results, config, base, _metric_rows)
    out = pd.concat(parts, ignore_index=True)
    out["source"] = where
    out["harness"] = "promptfoo"
    out["task"] = task
    if "cluster" not in out:
        out["cluster"] = None
    out = finalize(out.drop(columns=["row_error"]))
    out.attrs["notes"] = notes
    return out


@dataclass
class _Rows:
    """The result rows of a promptfoo output, extracted field by field (one entry per row, in file order)."""

    arm_key: list[tuple[str, str]] = field(default_factory=list)
    prov_ids: list[str | None] = field(default_factory=list)
    prompt_ids: list[str | None] = field(default_factory=list)
    prov_name: list[str] = field(default_factory=list)
    prompt_label: list[str] = field(default_factory=list)
    test_idx: list[Any] = field(default_factory=list)
    var_hash: list[str | None] = field(default_factory=list)
    clusters: list[Any] = field(default_factory=list)
    success: list[Any] = field(default_factory=list)
    score: list[Any] = field(default_factory=list)
    kind: list[str | None] = field(default_factory=list)  # None, PROVIDER_ERROR, GRADER_ERROR
    reason: list[str | None] = field(default_factory=list)
    fail_reason: list[str | None] = field(default_factory=list)  # why a row failed (when it did, without an error)
    named: list[tuple[int, str, Any]] = field(default_factory=list)
    has_score: bool = False


def _add_row(rows: _Rows, i: int, row: Any, default_provider: str | None, cluster: str | None, where: str) -> None:
    """One result row's fields appended to ``rows``."""
    if not isinstance(row, dict):
        raise InputError(f"result {i}: expected an object, found {type_name(row)}", where)
    pk, pname = _provider(row, default_provider)
    qk, qlabel = _prompt(row)
    rows.arm_key.append((pk, qk))
    prov = row.get("provider")
    rows.prov_ids.append(str(prov.get("id")) if isinstance(prov, dict) else prov if isinstance(prov, str) else None)
    rows.prompt_ids.append(row.get("promptId") if isinstance(row.get("promptId"), str) else None)
    rows.prov_name.append(pname)
    rows.prompt_label.append(qlabel)
    tidx = row.get("testIdx")
    rows.test_idx.append(tidx if isinstance(tidx, int) and not isinstance(tidx, bool) else None)
    vars_ = row.get("vars")
    if vars_ is None and isinstance(row.get("testCase"), dict):
        vars_ = row["testCase"].get("vars")
    rows.var_hash.append(stable_hash(vars_) if vars_ is not None else None)
    if cluster is not None:
        if not isinstance(vars_, dict) or cluster not in vars_:
            raise InputError(f"result {i}: no var {cluster!r} to cluster on", where)
        rows.clusters.append(vars_[cluster])
    if "success" not in row:
        raise InputError(f"result {i}: no 'success' field (pass/fail)", where)
    if not isinstance(row["success"], bool):  # promptfoo writes a boolean; "yes" would be a pass and a failure
        raise InputError(f"result {i}: 'success' is {type_name(row['success'])} ({_first_line(repr(row['success']), 40)}),"
                         " expected true or false", where)
    rows.success.append(row["success"])
    if "score" in row:
        rows.has_score = True
    rows.score.append(row.get("score"))
    k, why, failed_why = _outcome(row)
    rows.kind.append(k)
    rows.reason.append(why)
    rows.fail_reason.append(failed_why)
    ns = row.get("namedScores")
    if isinstance(ns, dict):
        rows.named.extend((i, str(name), v) for name, v in ns.items())


def _outcome(row: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """A row's error kind (None, PROVIDER_ERROR, GRADER_ERROR) and why; and why it failed, when it
    did without an error."""
    grading = row.get("gradingResult")
    fr = row.get("failureReason")
    err = row.get("error")
    resp = row.get("response")
    resp_err = resp.get("error") if isinstance(resp, dict) else None
    k: str | None = None
    why: str | None = None
    if row.get("success") is not True:
        if fr == 2 or (fr is None and "gradingResult" in row and grading is None and (err or resp_err)) \
                or (fr is None and resp_err and not isinstance(grading, dict)):
            k, why = PROVIDER_ERROR, _first_line(err or resp_err or "failureReason 2")
        elif (t := _threw(grading)) is not None:
            k, why = GRADER_ERROR, t
    if row.get("success") is not True and k is None:
        grade_reason = grading.get("reason") if isinstance(grading, dict) else err
        return k, why, _first_line(grade_reason) if grade_reason else None
    return k, why, None


def _arm_names(rows: _Rows, where: str, notes: list[str]) -> tuple[list[str], Any]:
    """Runs: one per (provider, prompt) arm, named after its first row; and each row's arm."""
    arms = list(dict.fromkeys(rows.arm_key))
    n_prompts = len({a[1] for a in arms})
    arm_index = {a: j for j, a in enumerate(arms)}
    arm_of = np.fromiter((arm_index[a] for a in rows.arm_key), dtype=np.int64, count=len(rows.arm_key))
    first_row = {arm_index[a]: i for i, a in reversed(list(enumerate(rows.arm_key)))}
    prov_name, prompt_label = rows.prov_name, rows.prompt_label
    names = []
    for j, _arm in enumerate(arms):
        i = first_row[j]
        if not prov_name[i]:
            label = _short(prompt_label[i]) or "promptfoo"
        else:
            label = prov_name[i] + (f" | {_short(prompt_label[i])}" if n_prompts > 1 else "")
        names.append(label)
    if not all(prov_name):
        notes.append(f"{where}: promptfoo output names no provider (files before mid-2023); runs are named by "
                     "their prompt")
    seen: dict[str, int] = {}
    for j, label in enumerate(names):
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            names[j] = f"{label} #{seen[label]}"
    return names, arm_of


def _items(rows: _Rows, run: Any, where: str, notes: list[str]) -> tuple[pd.Series, Any]:
    """Items: testIdx, else the vars hash (else the row's position); epochs number repeats within an arm."""
    test_idx, var_hash = rows.test_idx, rows.var_hash
    item = pd.Series(
        [str(t) if t is not None else (f"vars:{h}" if h is not None else f"row{i}")
         for i, (t, h) in enumerate(zip(test_idx, var_hash, strict=True))], dtype=object)
    if any(t is None for t in test_idx) and any(h is None for h in var_hash):
        notes.append(f"{where}: some promptfoo rows have neither testIdx nor vars; their position names the item")
    epoch = pd.DataFrame({"run": run, "item": item}).groupby(["run", "item"], sort=False).cumcount().to_numpy() + 1
    if (epoch > 1).any():
        notes.append(f"{where}: {int((epoch > 1).sum())} promptfoo row(s) repeat a test within one arm; kept as "
                     "epochs (repeats)")
    return item, epoch


def _outcome_notes(rows: _Rows, names: list[str], arm_of: Any, kinds: pd.Series, why_s: pd.Series, where: str,
                   notes: list[str]) -> None:
    """Notes on arms whose every row failed alike (a broken assertion?) and on rows with no usable outcome."""
    for j, label in enumerate(names):
        in_arm = arm_of == j
        threw = (kinds == GRADER_ERROR).to_numpy() & in_arm
        if threw.any() and threw.sum() == in_arm.sum():
            notes.append(f"{where}: promptfoo arm {label!r}: every row failed because an assertion threw "
                         f"({why_s[threw].iloc[0]}); its pass rate is unknown, not 0")
        reasons = {rows.fail_reason[i] for i in np.flatnonzero(in_arm)}
        if in_arm.sum() >= 2 and len(reasons) == 1 and None not in reasons:
            notes.append(f"{where}: promptfoo arm {label!r}: every row failed with the same reason "
                         f"({next(iter(reasons))}); if the assertion itself is broken, 0 is not this arm's pass rate")
    n_prov = int((kinds == PROVIDER_ERROR).sum())
    n_threw = int((kinds == GRADER_ERROR).sum())
    if n_prov or n_threw:
        notes.append(f"{where}: promptfoo rows without a usable outcome: {n_prov} provider error(s), "
                     f"{n_threw} assertion error(s); counted as errors, not failures")


def _metric_parts(base: pd.DataFrame, rows: _Rows) -> list[pd.DataFrame]:
    """The rows of each metric: ``pass``, ``score`` (when logged) and the named scores."""
    parts = [_metric_rows(base, "pass", pd.Series(rows.success, dtype=object))]
    if rows.has_score:
        parts.append(_metric_rows(base, "score", pd.Series(rows.score, dtype=object)))
    named = rows.named
    if named:
        idx = np.fromiter((r for r, _, _ in named), dtype=np.int64, count=len(named))
        nb = base.iloc[idx].reset_index(drop=True)
        parts.append(_metric_rows(nb, pd.Series([m for _, m, _ in named], dtype=object),
                                  pd.Series([v for _, _, v in named], dtype=object)))
    return parts


def _metric_rows(base: pd.DataFrame, metric: Any, values: pd.Series) -> pd.DataFrame:
    """Rows of one metric (or of named metrics, one name per row): value, raw and error."""
    v, err = coerce_scores(values)
    out = base.copy()
    out["metric"] = metric if isinstance(metric, str) else metric.to_numpy()
    row_err = base["row_error"].to_numpy()
    has_row_err = pd.notna(row_err)
    out["value"] = np.where(has_row_err, np.nan, v)
    out["raw"] = raw_strings(values).to_numpy()
    out["error"] = np.where(has_row_err, row_err, err.to_numpy())
    return out


def _check_stats(stats: dict[str, Any], success: pd.Series, kinds: pd.Series, where: str, notes: list[str]) -> None:
    """The file's own counts against the rows' (promptfoo counts an assertion that threw as a
    failure; before ``errors`` existed, provider errors were failures too)."""
    if not stats or "successes" not in stats:
        return
    ok = success.map(lambda s: s is True).to_numpy()
    prov = (kinds == PROVIDER_ERROR).to_numpy()
    mine = {"successes": int(ok.sum())}
    if "errors" in stats:
        mine["failures"] = int((~ok & ~prov).sum())
        mine["errors"] = int(prov.sum())
    else:
        mine["failures"] = int((~ok).sum())
    theirs = {k: stats.get(k) for k in mine}
    if theirs != mine:
        notes.append(f"{where}: the file's stats {theirs} disagree with its rows {mine}")


def _check_prompt_metrics(summaries: list[Any], prov_ids: list[str | None], prompt_ids: list[str | None],
                          success: pd.Series, kinds: pd.Series, where: str, notes: list[str]) -> None:
    """v3's per-arm counts (``prompts[].metrics``: testPassCount, testFailCount, testErrorCount)
    against the arm's rows."""
    ok = success.map(lambda s: s is True).to_numpy()
    prov_err = (kinds == PROVIDER_ERROR).to_numpy()
    provs = np.asarray(prov_ids, dtype=object)
    pids = np.asarray(prompt_ids, dtype=object)
    for entry in summaries:
        metrics = entry.get("metrics") if isinstance(entry, dict) else None
        if not isinstance(metrics, dict) or "testPassCount" not in metrics:
            continue
        arm = (provs == entry.get("provider")) & (pids == entry.get("id"))
        if not arm.any():
            continue
        mine = {"testPassCount": int((ok & arm).sum()), "testFailCount": int((~ok & ~prov_err & arm).sum()),
                "testErrorCount": int((prov_err & arm).sum())}
        theirs = {k: metrics.get(k, 0 if k == "testErrorCount" else None) for k in mine}
        if "testErrorCount" not in metrics:  # before errors were counted apart, they were failures
            mine["testFailCount"] += mine["testErrorCount"]
            mine["testErrorCount"] = 0
        if theirs != mine:
            notes.append(f"{where}: the file's counts for prompt {_short(str(entry.get('label') or entry.get('id')))!r} "
                         f"on {entry.get('provider')!r} {theirs} disagree with its rows {mine}")


# ---------------------------------------------------------------- CSV


def _csv_column(header: str) -> tuple[str, str] | None:
    """(provider, prompt label) of an output column's header, or None for a var column."""
    h = header.strip()
    if h.startswith("{"):
        import orjson

        try:
            d = orjson.loads(h)
        except orjson.JSONDecodeError:
            return None
        if isinstance(d, dict):
            label = str(d.get("display") or d.get("label") or d.get("raw") or "")
            m = _HEADER.match(label)
            return (m.group(1), m.group(2)) if m else ("", label)
        return None
    m = _HEADER.match(h)
    return (m.group(1), m.group(2)) if m else None


def read_promptfoo_csv(path: Path, cluster: str | None = None) -> pd.DataFrame:
    """A promptfoo CSV export: one row per test, one column per (prompt, provider) arm."""
    where = str(path)
    table = _csv_table(path, where)
    outputs = _csv_outputs(table, where)
    var_cols = [c for c in table.columns if c not in outputs]
    if cluster is not None and cluster not in var_cols:
        raise InputError(f"no var column {cluster!r} to cluster on; vars are {', '.join(map(str, var_cols)) or 'none'}",
                         where)
    if var_cols:
        hashes = pd.Series([stable_hash(dict(zip(var_cols, vals, strict=True))) for vals in
                            table[var_cols].itertuples(index=False, name=None)], dtype=object)
        item = "vars:" + hashes
    else:
        hashes = pd.Series([None] * len(table), dtype=object)
        item = pd.Series([f"row{i + 1}" for i in range(len(table))], dtype=object)
    epoch = pd.Series(item).groupby(item, sort=False).cumcount().to_numpy() + 1
    n_prompts = len({v[1] for v in outputs.values()})
    names: list[str] = []
    for prov, label in outputs.values():
        name = f"{prov} | {_short(label)}" if prov and n_prompts > 1 else (prov or _short(label) or "promptfoo")
        names.append(name if name not in names else f"{name} #{names.count(name) + 1}")
    parts = []
    notes: list[str] = []
    for (col, (prov, label)), name in zip(outputs.items(), names, strict=True):
        parts.extend(_csv_arm_rows(table, col, (name, prov, label), (item, epoch, hashes), cluster, where, notes))
    out = pd.concat(parts, ignore_index=True)
    out["source"] = where
    out["harness"] = "promptfoo"
    out["task"] = "promptfoo"
    if "cluster" not in out:
        out["cluster"] = None
    out = finalize(out.drop(columns=["row_error"]))
    out.attrs["notes"] = notes
    return out


def _csv_table(path: Path, where: str) -> pd.DataFrame:
    """The export's cells as strings (tab-separated for ``.tsv``); refused when it has no test rows."""
    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False, sep="\t" if path.suffix.lower() == ".tsv" else ",")
    except pd.errors.EmptyDataError:
        raise InputError("the file is empty", where) from None
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read as CSV: {_first_line(exc)}", where) from None
    if table.empty:
        raise InputError("promptfoo CSV export has no test rows", where)
    return table


def _csv_outputs(table: pd.DataFrame, where: str) -> dict[str, tuple[str, str]]:
    """The output columns (a ``[provider] prompt`` header, or every non-empty cell graded) ->
    (provider, prompt label); refused when there are none, or none holds a verdict."""
    outputs: dict[str, tuple[str, str]] = {}
    for col in table.columns:
        parsed = _csv_column(str(col))
        cells = table[col].str.strip()
        graded = cells.str.match(_CELL)
        if parsed is not None or (graded.any() and graded[cells != ""].all()):
            outputs[col] = parsed or ("", str(col))
    if not outputs:
        raise InputError("not a promptfoo CSV export (no [provider] prompt or [PASS]/[FAIL] columns)", where)
    graded_any = any(table[c].str.match(_CELL).any() for c in outputs)
    if not graded_any:
        raise InputError("promptfoo CSV export with plain outputs (no [PASS]/[FAIL] cells): it holds no scores", where)
    return outputs


def _csv_arm_rows(table: pd.DataFrame, col: str, arm: tuple[str, str, str], keys: tuple[pd.Series, Any, pd.Series],
                  cluster: str | None, where: str, notes: list[str]) -> list[pd.DataFrame]:
    """One output column's rows (``arm``: run name, provider, prompt label; ``keys``: item, epoch
    and item hash of each test row): ``pass`` (and ``score`` when its cells show one); an
    ``[ERROR]`` cell is a provider error, a cell without a verdict an error too (counted in a note)."""
    name, prov, label = arm
    item, epoch, hashes = keys
    cells = table[col]
    m = cells.str.extract(_CELL)
    verdict = m[0]
    is_error = (verdict == "ERROR").to_numpy()
    passed = verdict.map({"PASS": True, "FAIL": False}).astype(object)
    base = pd.DataFrame({"run": name, "model": prov or name, "item": item.to_numpy(), "epoch": epoch,
                         "item_hash": hashes.to_numpy(),
                         "row_error": np.where(is_error, PROVIDER_ERROR + ": [ERROR] cell", None),
                         "meta.provider": prov or None, "meta.prompt": label})
    if cluster is not None:
        base["cluster"] = table[cluster].to_numpy()
    ungraded = verdict.isna().to_numpy() & ~is_error
    base.loc[ungraded, "row_error"] = "cell has no [PASS]/[FAIL] verdict"
    parts = [_metric_rows(base, "pass", passed.where(passed.notna(), None))]
    if m[1].notna().any():
        score = m[1].astype(object)
        parts.append(_metric_rows(base, "score", score.where(score.notna(), None)))
    if ungraded.any():
        notes.append(f"{where}: column {_short(str(col))!r}: {int(ungraded.sum())} cell(s) without a verdict")
    return parts
