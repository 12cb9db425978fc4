"""How the readers read: the switches and thresholds of their fast paths, in one frozen record.

None of these changes what is read -- the table, its dtypes, the notes and every message are
the same under any values -- only how fast and in how much memory.  The defaults are the
readers' own; the tests set the others to show that (each path against its reference).
:func:`evaladdon.adapters.read_runs` takes a ``tuning=`` and hands it to the readers.
This module imports nothing (the lean routes import it without pandas).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReadTuning:
    """Switches and thresholds of the readers' fast paths (defaults: the readers' own)."""

    combine_inspect: bool = True
    """Read Inspect logs as :class:`~evaladdon.adapters.inspect.rows.Part` and make one DataFrame of
    consecutive ones (False: one table per log, the reference the tests compare with)."""

    combine_lm_eval: bool = True
    """Read lm-eval samples files as :class:`~evaladdon.adapters.lm_eval.SamplesPart` and make one
    DataFrame of consecutive ones, as for Inspect logs (False: one table per file, the reference
    the tests compare with)."""

    pending_rows: int = 200_000
    """Rows of small Inspect logs kept as Python lists (:class:`~evaladdon.adapters.inspect.rows.Pending`)
    before they are converted together, so a read of thousands of logs holds at most this many
    rows as Python objects (~0.8 KB a row) besides the columns."""

    quick: bool = True
    """Read ordinary ``.eval`` summaries straight into row lists
    (:func:`~evaladdon.adapters.inspect.quick.quick_rows`; False: as records through the
    :class:`~evaladdon.adapters.inspect.rows.Collector`, the reference the tests compare with)."""

    stream_bytes: int = 8 * 2**20
    """A ``summaries.json`` larger than this (decompressed) is streamed with ijson when the records
    go straight into a :class:`~evaladdon.adapters.inspect.rows.Collector`
    (``read_eval_zip(records=...)``): a 20,000-sample one is ~50 MB of JSON, ~3-4x that as parsed
    objects."""

    batch_size: int = 1024
    """Samples a :class:`~evaladdon.adapters.inspect.rows.Collector` holds as records before it
    turns them into columns (peak RSS of a 60,000-sample JSON log: 188 MB at 512, 192 MB at 2,048,
    208 MB at 16,384)."""

    fast_records: bool = True
    """Read regular lm-eval records through one ``itemgetter`` (the fast path of
    :func:`~evaladdon.adapters.lm_eval.samples._extract`; False: every record through the general
    loop, the reference ``tests/adapters/test_lm_eval_fast.py`` compares with)."""

    lm_flush: int = 256
    """Multiple-choice records of the lm-eval fast path whose log-likelihoods are converted
    together.  Small enough that the records' ``filtered_resps`` held until then stay in the CPU
    caches: 1,024 cost ~40% more last-level cache misses in the whole read (cachegrind, 5,000 docs)."""

    typed_lines: bool = True
    """Decode the lines of lm-eval samples files that fit the fast path's schema into typed
    records of only its fields (msgspec, :mod:`evaladdon.adapters.lm_eval.typed`; False: every
    line parsed whole by orjson, the reference ``tests/adapters/test_lm_eval_typed.py`` compares with)."""

    lm_columns: bool = True
    """Read the records of a small lm-eval samples file typed in one call
    (:meth:`~evaladdon.adapters.common.jsonlines.JsonLines.whole_rest`) as whole columns when every
    one of them is one the fast loop reads the plain way (:mod:`evaladdon.adapters.lm_eval.columns`;
    False: record by record in the fast loop, the reference ``tests/adapters/test_lm_eval_columns.py``
    compares with)."""

    lm_batch: int = 1024
    """lm-eval records between two tries of the fast path's schema while no regular record was seen."""

    lm_run: int = 32
    """Shortest run of lm-eval fast rows kept as a run (one metric and filter, consecutive records)."""

    lm_factorize_from: int = 2000
    """Rows from which the lm-eval multiple-choice columns code metric names with ``pd.factorize``."""


DEFAULT = ReadTuning()
"""The readers' own values (what ``tuning=None`` means everywhere)."""


@dataclass(frozen=True)
class ReadOptions:
    """What every reader is given besides the path: the field to cluster on and the tuning;
    ``split`` and ``all_metrics`` choose what a HELM run shows (None: HELM's ``test`` split;
    its bookkeeping stats only with ``all_metrics``; ``answers``: see below)."""

    cluster: str | None = None
    tuning: ReadTuning = DEFAULT
    split: str | None = None
    all_metrics: bool = False
    answers: bool = False
    """lm-eval ``generate_until`` samples also give ``prediction`` and ``label`` (the first filtered
    response and the target: :mod:`evaladdon.adapters.lm_eval.answers`), for ``rescore``; a second
    pass over those files, so only the commands that re-score ask for it."""
    judged: bool = False
    """promptfoo model-graded assertions and DeepEval LLM metrics also give the answer judged
    (``prediction``) and the grader (``judge``), and promptfoo's their verdicts as rows, for
    ``judge bias`` (:mod:`evaladdon.adapters.promptfoo_judged`); only that command asks."""
