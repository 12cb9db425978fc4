"""The quick reader of an ordinary Inspect ``.eval`` log's summaries: :func:`quick_rows`.

:func:`~evaladdon.adapters.inspect.native.read_eval_table` reads an ordinary log (a header,
summaries naming every sample member) and, when no rule of ``build_part`` applies to it, hands
its summaries to :func:`quick_rows`, which puts them straight into row lists
(:class:`~evaladdon.adapters.inspect.parts.Pending`) that ``rows.frame`` converts for all such
logs of a read at once.  Anything a rule would act on raises :class:`_Unordinary` and the log
takes the records path (:func:`~evaladdon.adapters.inspect.native.read_eval_zip`), so every
result and message is that path's (``tests/adapters/test_inspect_quick.py`` compares the two
value by value).  Split from :mod:`.native` (the module size rule).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import orjson

from evaladdon.adapters.inspect.parts import Pending
from evaladdon.adapters.inspect.records import (SUMMARY_TEXT_LIMIT, item_digest, label_of, nested_scalars,
                                               score_code, thin_metadata, thin_text, truncate_text)
from evaladdon.adapters.inspect.rows import _CANONICAL
from evaladdon.adapters.inspect.stream import _limit_type
from evaladdon.table.names import dotted


class _Unordinary(Exception):
    """A log :func:`quick_rows` leaves to the records path."""


# long: the summaries.json fast path, one loop per sample with no call per score (benchmarks/bench_inspect.py)
def quick_rows(summaries: list[dict[str, Any]], cluster: str | None) -> Pending:  # noqa: C901 - the hot loop written out (# long)
    """The rows of an ordinary log's summaries (see :class:`~evaladdon.adapters.inspect.rows.Pending`)
    in one pass: what :func:`record` and ``Collector.flush`` do to each sample, without the
    records.  Anything a rule of ``build_part`` would act on (a sample without id, integer
    epoch or scores, a missing cluster field) raises :class:`_Unordinary`, and the caller takes
    the records path (as it does for an (id, epoch) twice, which it finds in its set of the
    samples' member names: ``samples/{id}_epoch_{epoch}.json`` names each (id, epoch) apart); a value that cannot be shown or converted raises
    what :func:`~evaladdon.adapters.inspect.rows.score_code` raises, and the caller reads the
    log again with :func:`read_eval_zip` (which words it).

    The common cases are written out in the loop rather than called (a call per sample and
    score was most of the loop's cost on small logs): a metadata value or answer that is a
    ``str`` is thinned once per distinct text (:func:`thin_text`; other metadata values as
    :func:`thin_metadata`, key by key), a text target's label is ``truncate_text`` of it
    (:func:`label_of` of a text), a text input and target hash as :func:`item_digest`'s
    common case, a ``str`` or ``float`` value's code as :func:`score_code` (a text's code once
    per distinct text); everything else goes to those functions.  The item hashes stay digests
    (32 bytes, ``None`` without an input): ``pending_columns`` writes them out as hex text for
    all logs at once (:func:`~evaladdon.adapters.inspect.parts.hex_strings`).  The row lists are
    tuples.  Oracle: the records path (``tests/adapters/test_inspect_quick.py``, table by table)."""
    n = len(summaries)
    if not n:
        raise _Unordinary("no samples")
    nan = np.nan
    limit_text = SUMMARY_TEXT_LIMIT
    sha256 = hashlib.sha256
    dumps = orjson.dumps
    per_sample: list[tuple[str, int, bool, bytes | None, str | None]] = []  # item, epoch, error, digest, label
    add_sample = per_sample.append
    clusters: list[str] | None = [] if cluster is not None else None
    metas: dict[str, list[Any]] = {}
    meta_col: dict[Any, list[Any]] = {}  # a metadata key -> its column in metas
    per_row: list[tuple[str, Any, Any, str | None, float, int]] = []  # metric, raw, code, answer, confidence, sample
    add_row = per_row.append
    metric_of: dict[tuple[str, Any], str] = {}
    memo: dict[str, str] = {}  # equal strings as one object
    share = memo.setdefault
    thinned: dict[str, str] = {}  # a text as read (an answer, a metadata value) -> its thinned, shared text
    thinned_get = thinned.get
    codes: dict[str, tuple[Any, str]] = {}  # a text value -> its score code and the shared text
    all_str = True
    all_number = True  # every value for the converter a float or an int (grades and yes/no mapped)
    any_answer = any_label = any_confidence = False
    plain_cluster = cluster is not None and "." not in cluster
    for j, s in enumerate(summaries):
        get = s.get
        sid, epoch, raw_scores = get("id"), get("epoch"), get("scores")
        if sid is None or type(epoch) is not int or type(raw_scores) is not dict or not raw_scores:
            raise _Unordinary("a sample without id, integer epoch or scores")
        item = sid if type(sid) is str else str(sid)
        error = True if get("error") else False  # (bool() without the call)
        limit = get("limit")
        if limit is not None:
            _limit_type(limit)  # evaluated as record() does (a value too deep to show fails there)
        md = get("metadata")
        c: Any = None  # the cluster field's (thinned) value
        if md and type(md) is dict:  # (parsed JSON: exact types, here and below)
            thin: dict[str, Any] | None = {} if cluster is not None and not plain_cluster else None
            for mk, mv in md.items():  # thin_metadata, key by key, and the meta.* columns
                tv = type(mv)
                if tv is str:  # (the common case, written out: a text's column, its cluster)
                    t = thinned_get(mv)
                    if t is None:
                        # thin_text's "already thin" test inline (most metadata texts are short and plain)
                        if len(mv) <= 1024 and mv.isprintable() and "  " not in mv and mv[:1] != " " and mv[-1:] != " ":
                            t = mv
                        else:
                            t = thin_text(mv)
                        t = thinned[mv] = share(t, t)
                    if thin is not None:
                        thin[mk] = t
                    elif mk == cluster:
                        c = t
                    col = meta_col.get(mk)
                    if col is None:
                        key = f"meta.{mk}"
                        col = metas.get(key)
                        if col is None:
                            col = metas[key] = [nan] * n
                        meta_col[mk] = col
                    col[j] = t  # (shared already)
                    continue
                if mv is not None and tv is not int and tv is not float and tv is not bool:
                    mv = thin_metadata({mk: mv})[mk]
                if thin is not None:
                    thin[mk] = mv
                elif mk == cluster:
                    c = mv
                if isinstance(mv, (str, int, float, bool)):
                    pairs: Any = ((mk, mv),)
                elif isinstance(mv, dict):  # nested metadata: its scalar leaves as meta.k.sub (as the walk)
                    pairs = nested_scalars(mk, mv)
                else:
                    continue
                for k, v in pairs:
                    col = meta_col.get(k)
                    if col is None:
                        key = f"meta.{k}"
                        col = metas.get(key)
                        if col is None:
                            col = metas[key] = [nan] * n
                        meta_col[k] = col
                    col[j] = share(v, v) if type(v) is str else v
            if thin is not None:
                c = dotted(thin, cluster)  # type: ignore[arg-type]
        elif cluster is not None and not plain_cluster:
            c = dotted({}, cluster)
        target = get("target")
        inp = get("input")
        if type(inp) is str and type(target) is str:  # item_digest's common case
            h: bytes | None = sha256(dumps({"input": inp[:limit_text], "target": target[:limit_text]})).digest()
        else:
            h = item_digest(inp, target)
        if type(target) is str:  # truncate_text (label_of of a text)
            label: str | None = target if len(target) <= limit_text else truncate_text(target)
        else:
            label = label_of(target)
        if label is not None:
            label = share(label, label)
            any_label = True
        add_sample((item, epoch, error, h, label))
        if clusters is not None:
            if type(c) is not str:
                if c is None or isinstance(c, (dict, list)):
                    raise _Unordinary("no cluster field")
                c = str(c)
            clusters.append(share(c, c))
        for name, sc in raw_scores.items():  # as record() and score_fields
            if type(sc) is not dict:
                raise _Unordinary("a score that is not an object")
            sget = sc.get
            answer, meta, value = sget("answer"), sget("metadata"), sget("value")
            conf = nan
            if meta and type(meta) is dict:
                for key in ("confidence", "probability"):
                    cf = meta.get(key)
                    if isinstance(cf, (int, float)) and not isinstance(cf, bool) and 0.0 <= cf <= 1.0:
                        conf = float(cf)
                        break
            if type(answer) is str:
                a = thinned_get(answer)
                if a is None:
                    a = thin_text(answer)
                    a = thinned[answer] = share(a, a)
                answer = a
            else:
                answer = None
            if type(value) is dict:  # a metric a key
                if not value:
                    continue  # no rows
                pairs = []
                for key, v in value.items():
                    metric = metric_of.get((name, key))
                    if metric is None:
                        metric = metric_of[(name, key)] = f"{name}/{key}"
                    pairs.append((metric, v))
            else:
                pairs = ((name, value),)
            if answer is not None:  # (the table's prediction and confidence columns: when a row has one)
                any_answer = True
            if conf is not nan:
                any_confidence = True
            for metric, v in pairs:
                tv = type(v)
                if tv is str:  # score_code of a text, once per distinct text (with the text shared)
                    got = codes.get(v)
                    if got is None:
                        got = codes[v] = (score_code(v), share(v, v))
                    code, v = got
                    if type(code) is not float and type(code) is not int:
                        all_number = False
                elif tv is float:
                    code = v
                    all_str = False
                else:
                    code = score_code(v)  # raises for a value the records path words (a caller's fallback)
                    if isinstance(v, str):
                        v = share(v, v)
                    else:
                        all_str = False
                    if type(code) is not float and type(code) is not int:
                        all_number = False
                add_row((metric, v, code, answer, conf, j))
    if not per_row:
        raise _Unordinary("no rows")
    # tuples, as zip gives them (no copy into lists; the collector untracks a tuple of texts and numbers)
    items, epochs, errors, hashes, labels = zip(*per_sample, strict=True)
    metrics, raws, convert, answers, confidences, row_sample = zip(*per_row, strict=True)
    one_row = row_sample == tuple(range(n))  # every sample exactly one row (its own, in order)
    columns = list(_CANONICAL)
    if any_answer:
        columns.append("prediction")
    if any_label:
        columns.append("label")
    if any_confidence:
        columns.append("confidence")
    columns.extend(metas)
    return Pending(cluster=cluster, n_samples=n, items=items, epochs=epochs, metrics=metrics, raws=raws,
                   convert=convert, all_str=all_str, all_number=all_number, errors=errors, answers=answers,
                   confidences=confidences, clusters=clusters, hashes=hashes, labels=labels,
                   row_sample=row_sample, metas=metas, columns=columns, one_row=one_row)
