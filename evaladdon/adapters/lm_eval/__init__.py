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

Reading: JSON lines are streamed (one line in memory at a time; a file under 4 MiB read whole after
its first line, :class:`~evaladdon.adapters.common.jsonlines.JsonLines`) and parsed with orjson; one light pass pulls the few fields a row
needs into column lists -- records shaped like the first regular one through one
``itemgetter``, the rest (and every error) through the general per-record code, with the
same result -- and everything after that is vectorised.  From the first regular record on,
the lines are decoded into typed records of only the fields the fast path reads (msgspec, the
rest skipped in C: :mod:`evaladdon.adapters.lm_eval.typed`), a line the type does not fit by
orjson.  Lines orjson refuses (``NaN`` literals) go to ``json`` after a depth check
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
length-normalised) log-likelihoods, and ``choice_lls`` = those log-likelihoods as a JSON
array (the K-choice temperature of ``metrics --recalibrate``).  ``label`` stays empty when the log does not determine
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

Modules: :mod:`.results` (results files: shape, pairing, reported values), :mod:`.samples` (the
one pass over sample records), :mod:`.typed` (the typed decoding of regular lines),
:mod:`.choices` (multiple-choice columns), :mod:`.frame` (columns
-> the canonical table, missing docs, :class:`SamplesPart`), :mod:`.write_out` (0.3 write-outs),
:mod:`.reader` (the samples and results readers); every name above is re-exported here.
"""

from __future__ import annotations

from evaladdon.adapters.lm_eval.frame import SamplesPart, frame_parts, rows_from_records
from evaladdon.adapters.lm_eval.reader import (
    read_results_file,
    read_samples,
    read_samples_part,
)
from evaladdon.adapters.lm_eval.results import (
    MAX_DOCS,
    MAX_REPEATS,
    check_results_shape,
    declared_docs,
    filters_of,
    harness_context,
    looks_like_results_json,
    metric_aggregations,
    model_name,
    pair_results,
    read_results,
    repeats_of,
    reported_values,
    target_delimiter,
)
from evaladdon.adapters.lm_eval.samples import (
    CORPUS_LEVEL,
    MC_COLUMNS,
    MC_METRICS,
    NOT_METRICS,
    looks_like_samples_jsonl,
)
from evaladdon.adapters.lm_eval.write_out import (
    looks_like_write_out,
    read_write_out,
    split_legacy_stem,
)
from evaladdon.table.usable import MISSING_FROM_LOG

__all__ = [
    "CORPUS_LEVEL", "MAX_DOCS", "MAX_REPEATS", "MC_COLUMNS", "MC_METRICS", "MISSING_FROM_LOG", "NOT_METRICS",
    "SamplesPart", "check_results_shape", "declared_docs", "filters_of", "frame_parts", "harness_context",
    "looks_like_results_json", "looks_like_samples_jsonl", "looks_like_write_out", "metric_aggregations",
    "model_name", "pair_results", "read_results", "read_results_file", "read_samples", "read_samples_part",
    "read_write_out", "repeats_of", "reported_values", "rows_from_records", "split_legacy_stem",
    "target_delimiter",
]
