"""The readers' pause of the cyclic garbage collector (:mod:`evaladdon._gc`)."""

from evaladdon._gc import no_cyclic_gc  # noqa: F401
