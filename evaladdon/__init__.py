"""evaladdon: honest statistics for Inspect AI and lm-evaluation-harness logs.

The package is layered (see ``docs/`` and the design card):

- :mod:`evaladdon.stats` -- pure numpy/scipy estimators, arrays in, frozen results out;
- :mod:`evaladdon.table` -- the canonical per-item table and its validator;
- :mod:`evaladdon.adapters` -- files in, canonical table out (with an account of dropped rows);
- :mod:`evaladdon.cli` -- the ``evaladdon`` command.
"""

__version__ = "0.1.0"
