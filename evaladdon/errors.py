"""Errors that carry where they happened, for one-line messages in the CLI."""

from __future__ import annotations


class EvalAddonError(Exception):
    """A user-facing error: bad input, unreadable file, impossible request.

    ``str(err)`` is one line naming the place (file, row, column) and the problem.
    """

    def __init__(self, message: str, where: str | None = None) -> None:
        self.where = where
        self.message = " ".join(message.split())  # keep it on one line
        super().__init__(f"{where}: {self.message}" if where else self.message)


class TableError(EvalAddonError):
    """The canonical item table breaks its contract."""


class InputError(EvalAddonError):
    """A log or table file cannot be read as what it claims to be."""


class OptionError(EvalAddonError):
    """A command-line option the data refuses (``--better`` contradicting a log's declaration):
    always the user's error, never turned into a note by a command that goes on without a part."""
