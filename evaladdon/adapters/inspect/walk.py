"""ONE walk over Inspect sample records: every per-sample rule applied once, into a sink.

A :class:`~evaladdon.adapters.inspect.rows.Collector` gathers a log's records; every ``batch_size`` of them :func:`walk`
applies the per-sample rules and hands what it made (:class:`Walked`) to the collector's
sink, which keeps it in its own form:

- the rows sink (:data:`evaladdon.adapters.inspect.rows.ROWS`, the default): column batches of
  the canonical table's rows (texts, metadata, raw values), finished by
  :func:`~evaladdon.adapters.inspect.rows.build_part` and made a DataFrame by ``frame``;
- the columns sink (:data:`evaladdon.adapters.inspect.columns.COLUMNS`, ``Collector(cluster,
  lean=COLUMNS)``): numbers and codes only, for the pandas-free summarize routes.

The rules of a sample, here and nowhere else (the row builders of both sinks take them as
made; the quick reader of ordinary ``.eval`` summaries, :func:`~.quick.quick_rows`, hands
every log one of them would act on to this walk):

- a sample without id, or whose epoch is not an ``int`` (a ``bool`` is not), marks the
  collector bad (``col.bad``: reported by ``build_part``; nothing after it matters);
- its item is ``str(id)``;
- its reason: ``"sample error"`` when it has an error, else ``"limit reached (<type>)"`` when
  it hit a limit and has no scores, else none (a code in ``col.texts``);
- its cluster: the metadata field ``cluster`` (a dotted path) as text when it is a scalar, a
  code in ``col.cluster_texts``; -1 where missing or not a scalar;
- its scores: each score name a code in ``col.names`` (order of first appearance); a
  dict-valued score is one metric per key, ``name/key``, any other one metric ``name`` (a
  code in ``col.metric_texts``); each value through
  :func:`~evaladdon.adapters.inspect.records.score_code`, whose failure is kept for the sample
  (``col.failed``) and raised only when the sample is kept;
- a sample without scores makes no rows here: ``build_part`` gives it a row per metric of the
  log (:func:`known_metrics`) with its reason, ``"unscored sample"`` when it has none.

Why one loop with the rows sink's extra fields behind ``rich`` rather than a call per record
into the sink: the loop is the readers' hot path (``benchmarks/bench_inspect.py``), and a call
per sample or score costs more than the whole of a small sample's work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from evaladdon.adapters.inspect.records import nested_scalars, score_code
from evaladdon.table.names import dotted

if TYPE_CHECKING:  # pragma: no cover
    from evaladdon.adapters.inspect.records import SampleRecord

SAMPLE_ERROR = "sample error"
UNSCORED = "unscored sample"


class Texts:
    """Distinct texts of a log (metric names, error reasons, cluster labels) and their codes
    0, 1, ... in order of first appearance; -1 stands for none."""

    def __init__(self) -> None:
        self.code: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        c = self.code.get(text)
        if c is None:
            c = self.code[text] = len(self.code)
        return c

    def names(self) -> tuple[str, ...]:
        return tuple(self.code)

    def objects(self, codes: np.ndarray) -> np.ndarray:
        """The texts of ``codes`` as an object array, ``None`` where a code is -1."""
        table = np.empty(len(self.code) + 1, dtype=object)
        table[1:] = self.names()
        return table[np.asarray(codes, dtype=np.int64) + 1]

    def of_objects(self, texts: np.ndarray) -> np.ndarray:
        """Codes (int64, -1 for ``None``) of an object array of ``str``/``None`` with few distinct values."""
        out = np.full(len(texts), -1, dtype=np.int64)
        has = np.asarray(texts != None, dtype=bool)  # noqa: E711 - elementwise
        if has.any():
            uniq, inverse = np.unique(texts[has], return_inverse=True)
            out[has] = np.array([self(str(u)) for u in uniq], dtype=np.int64)[inverse.reshape(-1)]
        return out


class Walked(NamedTuple):
    """What :func:`walk` made of a batch of records (lists where a sink converts them its way)."""

    # per sample
    items: list[str]  # str(id)
    epochs: list[int]
    scored: np.ndarray  # bool: has a non-empty scores dict
    nrows: np.ndarray  # int64: rows of a scored sample
    nscores: np.ndarray  # int64: scores of the sample
    reasons: np.ndarray  # int64: code in col.texts, -1 none
    errors: np.ndarray  # bool
    clusters: np.ndarray | None  # int64: code in col.cluster_texts, -1 missing or not a scalar
    # per score
    score_name: list[int]  # code in col.names
    # per row (scored samples only)
    metrics: list[int]  # code in col.metric_texts
    convert: list[Any]  # the value for the converter (score_code), None where it failed
    row_sample: list[int]  # sample of the batch
    # the rows sink's fields (``rich``; empty otherwise)
    hashes: list[str | None]  # per sample (also the columns sink's when it asks: ``Collector(hashes=True)``)
    labels: list[str | None]  # per sample
    meta_keys: np.ndarray  # per sample: code of its tuple of meta.* keys (col.key_sets)
    metas: dict[str, list[Any]]  # per sample, NaN where the sample lacks the key
    raws: list[Any]  # per row: the value as read (None where it failed)
    all_str: bool  # every raw value a str
    answers: list[str | None]  # per row
    confidences: list[float]  # per row, NaN for none


# long: the per-record loop of both sinks, kept inline: no call per record (benchmarks/bench_inspect.py)
def walk(col: Any, recs: list[SampleRecord], rich: bool) -> Walked | None:
    """The rules of the module docstring over ``recs`` (one pass, then arrays) for the
    :class:`~evaladdon.adapters.inspect.rows.Collector` ``col`` (its codes of names, metrics,
    reasons, clusters and meta key sets grow here); ``rich``: also
    the texts, metadata and raw values of the rows sink.  ``None``: a sample without id or
    integer epoch (``col.bad`` set)."""
    m = len(recs)
    base = col.n
    cluster = col.cluster
    names = col.names
    metric_code = col.metric_codes
    metric_of = col.metric_texts
    reason_of = col.texts
    cluster_of = col.cluster_texts
    key_sets = col.key_sets
    memo: dict[str, str] = {}  # equal strings of the batch as one object
    share = memo.setdefault
    items: list[str] = []
    epochs: list[int] = []
    scored = np.zeros(m, dtype=bool)
    nrows = np.zeros(m, dtype=np.int64)
    nscores = np.zeros(m, dtype=np.int64)
    reasons = np.full(m, -1, dtype=np.int64)
    errors = np.zeros(m, dtype=bool)
    clusters = np.full(m, -1, dtype=np.int64) if cluster is not None else None
    hashes: list[str | None] = []
    labels: list[str | None] = []
    meta_keys = np.zeros(m if rich else 0, dtype=np.int64)
    metas: dict[str, list[Any]] = {}
    score_name: list[int] = []
    metrics: list[int] = []
    convert: list[Any] = []
    row_sample: list[int] = []
    raws: list[Any] = []
    answers: list[str | None] = []
    confidences: list[float] = []
    all_str = True  # every raw value a str: raw_strings would give them back as they are
    nan = np.nan
    answer: str | None = None
    conf = nan
    v: Any
    c: Any
    for j, r in enumerate(recs):
        epoch = r.epoch
        if isinstance(epoch, bool) or not isinstance(epoch, int) or r.id is None:
            col.bad = (r.id,)  # reported by build_part; nothing after it matters
            return None
        items.append(str(r.id))
        epochs.append(epoch)
        sc = r.scores
        if r.error:
            errors[j] = True
            reasons[j] = reason_of(SAMPLE_ERROR)
        elif r.limit is not None and not sc:
            reasons[j] = reason_of(f"limit reached ({r.limit})")
        md = r.metadata
        if clusters is not None:
            cv = dotted(md, cluster)  # type: ignore[arg-type]
            if cv is not None and not isinstance(cv, (dict, list)):
                clusters[j] = cluster_of(str(cv))
        if rich:
            hashes.append(r.item_hash)
            label = r.label
            labels.append(label if label is None else share(label, label))
            keys: list[str] = []
            for k, v in md.items():
                if isinstance(v, dict):  # nested metadata: its scalar leaves as meta.k.sub
                    pairs = nested_scalars(k, v)
                elif isinstance(v, (str, int, float, bool)):
                    pairs = [(k, v)]
                else:
                    continue
                for k2, v2 in pairs:
                    column = f"meta.{k2}"
                    keys.append(column)
                    mcol = metas.get(column)
                    if mcol is None:
                        mcol = metas[column] = [nan] * m
                    mcol[j] = share(v2, v2) if type(v2) is str else v2
            kt = tuple(keys)
            code = key_sets.get(kt)
            if code is None:
                code = key_sets[kt] = len(key_sets)
            meta_keys[j] = code
        if not sc:
            continue
        scored[j] = True
        nscores[j] = len(sc)
        k0 = len(metrics)
        for name, s in sc.items():
            code = names.get(name)
            if code is None:
                code = names[name] = len(names)
            score_name.append(code)
            if rich:
                answer = s.answer
                if answer is not None:
                    answer = share(answer, answer)
                conf = nan if s.confidence is None else s.confidence
            value = s.value
            pairs = value.items() if isinstance(value, dict) else ((None, value),)
            for key, v in pairs:
                mc = metric_code.get((name, key))
                if mc is None:
                    mc = metric_code[(name, key)] = metric_of(name if key is None else f"{name}/{key}")
                try:
                    c = score_code(v)
                except Exception as exc:  # noqa: BLE001 - raised later if the sample is kept
                    col.failed.setdefault(base + j, exc)
                    v = c = None
                metrics.append(mc)
                convert.append(c)
                row_sample.append(j)
                if rich:
                    raws.append(v)
                    if type(v) is not str:
                        all_str = False
                    answers.append(answer)
                    confidences.append(conf)
        nrows[j] = len(metrics) - k0
    if not rich and col.hashes:  # the columns sink asked for content hashes (after the loop: no cost when not)
        hashes = [r.item_hash for r in recs]
    return Walked(items, epochs, scored, nrows, nscores, reasons, errors, clusters, score_name, metrics, convert,
                  row_sample, hashes, labels, meta_keys, metas, raws, all_str, answers, confidences)


def result_scores(header: dict[str, Any]) -> list[tuple[str, str | None]]:
    """(name, scorer) of each entry of the log's ``results.scores`` (Inspect names a dict-valued
    scorer's keyed metrics ``name=key, scorer=scorer``; any other entry ``name == scorer``)."""
    results = header.get("results")
    scores = results.get("scores") if isinstance(results, dict) else None
    return [(str(s.get("name")), None if s.get("scorer") is None else str(s.get("scorer")))
            for s in scores or [] if isinstance(s, dict)]


def known_metrics(results: list[tuple[str, str | None]], metrics: list[tuple[str, str, bool]],
                  names: list[str]) -> list[str]:
    """The metrics of a log, each a row of an unscored sample (issue 25, item 6: an errored
    sample is a dropped row of every real metric, not of its scorer's or keys' bare names).

    ``results``: :func:`result_scores`; ``metrics``: (metric, its score name, whether the score
    was a plain value) in order of first appearance in the kept samples; ``names``: the score
    names in that order.  The results' metrics first (a keyed entry as ``scorer/name``, the
    metric the samples make of it, unless the samples score ``name`` plainly), then the
    samples' metrics, then a score name none of whose kept values made a metric (an empty
    dict) as itself.  Both sinks' rule, and the spilled route's (over the whole log)."""
    plain = {n for _, n, p in metrics if p}
    known = [f"{scorer}/{name}" if scorer and scorer != name and name not in plain else name for name, scorer in results]
    known += [m for m, _, _ in metrics]
    covered = {n for _, n, _ in metrics}
    known += [n for n in names if n not in covered]
    return list(dict.fromkeys(known))


def collected_metrics(col: Any, first: list[int]) -> list[tuple[str, str, bool]]:
    """(metric, score name, plain) of the metric codes ``first`` of a collector (for :func:`known_metrics`)."""
    key_of = {code: nk for nk, code in col.metric_codes.items()}
    texts = col.metric_texts.names()
    return [(texts[c], key_of[c][0], key_of[c][1] is None) for c in first]


def _first_in_kept(codes: np.ndarray, counts: np.ndarray, kept: np.ndarray, n: int) -> list[int]:
    """The distinct ``codes`` (``counts[j]`` of them for sample ``j``, in sample order) in the
    order they first appear in the kept samples (table order: a kept sample at its place in ``kept``)."""
    position = np.full(n, -1, dtype=np.int64)
    position[kept] = np.arange(len(kept))
    pos = position[np.repeat(np.arange(n), np.asarray(counts, dtype=np.int64))]
    keep = pos >= 0
    seq = np.asarray(codes)[keep][np.argsort(pos[keep], kind="stable")]
    uniq, at = np.unique(seq, return_index=True)
    return [int(c) for c in uniq[np.argsort(at)]]


def log_metrics(col: Any, log_known: list[str] | None, results: list[tuple[str, str | None]], codes: np.ndarray,
                nrows: np.ndarray, score_name: np.ndarray, nscores: np.ndarray, kept: np.ndarray | None,
                n: int) -> list[str]:
    """The metrics of a log whose ``n`` walked samples a collector ``col`` holds (``codes`` the
    metric of each walked row, ``nrows`` per sample; ``score_name`` each score's name, ``nscores``
    per sample; ``kept`` the kept samples, None: all): :func:`known_metrics`, or ``log_known``
    when the caller knows them (the spilled route: a part sees only some of the log)."""
    if log_known is not None:
        return log_known
    names = list(col.names)
    return known_metrics(results, collected_metrics(col, first_seen_metrics(codes, nrows, kept, n)),
                         [names[c] for c in first_seen_names(score_name, nscores, kept, n, len(names))])


def first_seen_metrics(codes: np.ndarray, nrows: np.ndarray, kept: np.ndarray | None, n: int) -> list[int]:
    """Metric codes (per walked row; ``nrows`` per sample) in the order they first appear in the kept samples' rows."""
    if kept is None:  # every row in order: codes are numbered as they first appear
        return [int(c) for c in np.unique(codes)]
    return _first_in_kept(codes, nrows, kept, n)


def first_seen_names(score_name: np.ndarray, nscores: np.ndarray, kept: np.ndarray | None, n: int,
                     n_names: int) -> Any:
    """Score name codes (per score; ``nscores`` per sample) in the order they first appear in the kept samples."""
    if kept is None:
        return range(n_names)
    return _first_in_kept(score_name, nscores, kept, n)


class RowPlan(NamedTuple):
    """Where each row of a log's table comes from (:func:`row_plan`)."""

    total: int  # rows
    row_sample: np.ndarray  # row -> kept sample
    fill: Any  # None: every row a scored sample's own, in order; else (src, other, within, sample reasons)


def row_plan(kept: np.ndarray | None, scored_all: np.ndarray, nrows_all: np.ndarray, n_known: int,
             reasons_all: np.ndarray) -> RowPlan:
    """The rows of the kept samples: a scored sample's own rows, an unscored one a row per known
    metric.  ``fill`` (when some row is not a scored sample's own row in order): ``src`` the
    walked row of each row (0 where none), ``other`` the rows of unscored samples, ``within``
    each row's place in its sample, and the reason codes of the ``other`` rows (``UNSCORED``
    still -1: the sink codes it)."""
    n_kept = len(scored_all) if kept is None else len(kept)
    scored = scored_all if kept is None else scored_all[kept]
    nrows = nrows_all.astype(np.int64, copy=False)
    counts = np.where(scored, nrows if kept is None else nrows[kept], n_known)
    total = int(counts.sum())
    row_sample = np.repeat(np.arange(n_kept), counts)
    if kept is None and bool(scored.all()):
        return RowPlan(total, row_sample, None)
    sample = row_sample if kept is None else kept[row_sample]
    ends = np.cumsum(counts)
    within = np.arange(total) - np.repeat(ends - counts, counts)
    del ends, counts
    own = scored_all[sample]
    src = np.where(own, (np.cumsum(nrows) - nrows)[sample] + within, 0)
    other = ~own
    del own
    reasons = reasons_all[sample[other]].astype(np.int64)
    del sample  # (the temporaries of every row let go as soon as they are used: the spilled route's bound)
    return RowPlan(total, row_sample, (src, other, within, reasons))
