"""One writer at a time: the store's lock file, and the sweep of what killed writers left.

Two ``ingest`` commands into one store used to load the same manifest, each write their own
and delete the data files the other had written (24 logs "stored", 17-23 of them without
data).  Every writer now holds an exclusive lock on ``DIR/.lock`` from reading the manifest
to removing the files it no longer names, so writers queue and each sees the last one's
manifest.  A writer waits for the lock up to a time limit, then stops with one line saying
the store is busy.

The lock is the operating system's (``fcntl.flock`` on POSIX, ``msvcrt.locking`` on
Windows): it goes with the process, so a writer killed with ``kill -9`` leaves no stale lock
behind.  Written here rather than taken from ``filelock`` (not a dependency of the package):
the standard library has the call, and the lock file is opened without following a symbolic
link planted in its place.  The lock file itself is never deleted (deleting it would let two
writers lock two different files).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Callable, Iterator

from evaladdon.errors import EvalAddonError

LOCK = ".lock"
POLL = 0.05  # seconds between tries while another writer holds the lock
DEFAULT_WAIT = 600.0  # seconds a writer waits for another one before giving up


def _try_lock(fd: int) -> bool:
    """Take the exclusive lock on ``fd`` without blocking; whether it was taken."""
    if sys.platform == "win32":  # pragma: no cover - CI runs on Linux
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _locked(fd: int, root: Path) -> bool:
    """:func:`_try_lock`; a file system that cannot lock (``ENOLCK``) is an error naming the lock file."""
    try:
        return _try_lock(fd)
    except OSError as exc:
        raise EvalAddonError(f"cannot lock the store: {exc.strerror or exc}", str(root / LOCK)) from None


def _open_lock_file(root: Path) -> int:
    path = root / LOCK
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(path, flags, 0o666)
    except OSError as exc:
        raise EvalAddonError(f"cannot lock the store: {exc.strerror or exc}", str(path)) from None


@contextlib.contextmanager
def writer_lock(root: str | os.PathLike[str], wait: float = DEFAULT_WAIT,
                on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the store's writer lock for the block (``root`` must exist).

    ``wait``: seconds to wait while another writer holds it (then an error naming the store);
    ``on_wait``: called once when the lock is not free at the first try (to tell the user).
    """
    r = Path(root)
    fd = _open_lock_file(r)
    try:
        deadline = time.monotonic() + max(0.0, wait)
        told = False
        while not _locked(fd, r):
            if time.monotonic() >= deadline:
                raise EvalAddonError(f"the store is busy: another ingest is writing it (waited {wait:g} s; "
                                     "--wait SECONDS waits longer)", str(r))
            if not told and on_wait is not None:
                on_wait()
            told = True
            time.sleep(POLL)
        yield
    finally:
        os.close(fd)  # closing the file releases the lock


def sweep(root: str | os.PathLike[str], data: str, live: set[str]) -> None:
    """Remove what no manifest names: data files of ``root/data`` not in ``live`` and the
    temporary files (``.NAME.XXXX.tmp`` of :func:`evaladdon._util.safe_write.atomic_path`)
    that a killed or failed writer left in the store.  Only under the writer lock."""
    r = Path(root)
    leftovers = [*r.glob(".*.tmp"), *(r / data).glob(".*.tmp"),
                 *(f for f in (r / data).glob("*.parquet") if f.name not in live)]
    for f in leftovers:
        with contextlib.suppress(OSError):  # a folder of that name, or gone meanwhile: left alone
            f.unlink()
