"""From a canonical table (or group arrays) to results: one module per question.

Options records in, results out; no argparse and no printing here (``report`` renders, ``cli``
parses).  Modules: :mod:`~evaladdon.analysis.summarize` (one estimate per run, task and metric),
:mod:`~evaladdon.analysis.compare` (the pairing loop over a :class:`PairSource`),
:mod:`~evaladdon.analysis.compare_table` (the table's pair source and ``compare_table``),
:mod:`~evaladdon.analysis.results` (comparison records), :mod:`~evaladdon.analysis.metrics`
(metric families), :mod:`~evaladdon.analysis.corpus` (corpus-level metrics),
:mod:`~evaladdon.analysis.power` (pilot-based planning), :mod:`~evaladdon.analysis.reported`
(harness-reported values).  Importing this package imports none of them.
"""
