"""What the benchmark scripts share of their command lines (kept to the standard library: a
benchmark's options are a few flags, not worth argparse's help machinery)."""

from __future__ import annotations


def take(argv: list[str], flag: str) -> str | None:
    """The value after ``flag`` in ``argv``, both removed; None when ``flag`` is absent."""
    if flag not in argv:
        return None
    i = argv.index(flag)
    value = argv[i + 1]
    del argv[i:i + 2]
    return value
