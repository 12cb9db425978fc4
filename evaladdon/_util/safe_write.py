"""Atomic writes that refuse to touch an input.

Every command that writes a file goes through :func:`atomic_write`: the destination must not
be one of the inputs (compared by device and inode, so a hard link or another spelling of the
same path is caught), must not be a symbolic link (it is never followed), and the bytes go to
a temporary file in the same folder that is renamed over the destination only when complete
(so ``kill -9`` or a full disk leaves the old file, or nothing, never a partial file).
Written here rather than taken from a library: the standard library has the pieces
(``os.replace``, ``tempfile.mkstemp``) but no package combines them with the input check.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Callable, Iterable, Iterator

from evaladdon.errors import EvalAddonError


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def input_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Every file named by ``paths`` (directories walked), for :func:`check_destination`."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            out.extend(f for f in p.rglob("*") if f.is_file())
        elif p.exists():
            out.append(p)
    return out


def _umask() -> int:
    """The process's umask: read from ``/proc/self/status`` where Linux shows it (no change to
    the process), else set and put back (the standard library has no getter; the moment in
    between is the one where another thread could create a file under ``0o022``)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_file_mode(dest: Path) -> int:
    """The permission bits a plain ``open(dest, "w")`` would leave: an existing file keeps its
    own; a new one gets ``0o666`` less the umask (``mkstemp`` alone would leave ``0o600``)."""
    try:
        st = os.stat(dest)
    except OSError:
        return 0o666 & ~_umask()
    return stat.S_IMODE(st.st_mode)


def check_destination(dest: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]] = ()) -> Path:
    """``dest`` as a Path, or an error naming it when writing there would harm an input.

    Refused: a symbolic link at ``dest`` (never followed), the same file as any input (by
    device and inode: hard links and other spellings included), a directory.
    """
    d = Path(dest)
    if d.is_symlink():
        raise EvalAddonError("refusing to write through a symbolic link", str(d))
    if d.is_dir():
        raise EvalAddonError("is a directory; give a file name", str(d))
    if d.exists() and not d.is_file():  # a device node, a FIFO, a socket: never replaced
        raise EvalAddonError("is not a regular file; give a file name", str(d))
    ident = _identity(d)
    if ident is not None:
        for f in input_files(inputs):
            if _identity(f) == ident:
                raise EvalAddonError(f"refusing to overwrite an input ({f})", str(d))
    if not d.parent.exists():
        raise EvalAddonError("folder does not exist", str(d))
    return d


@contextlib.contextmanager
def atomic_path(dest: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]] = ()) -> Iterator[Path]:
    """A temporary path beside ``dest``; renamed onto ``dest`` when the block ends cleanly.

    On any error the temporary file is removed and ``dest`` is left as it was.  Write errors
    (a full disk, no permission) are re-raised as one line naming ``dest``.
    """
    d = check_destination(dest, inputs)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{d.name}.", suffix=".tmp", dir=d.parent)
    except OSError as exc:
        raise EvalAddonError(f"cannot write: {exc.strerror or exc}", str(d)) from None
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as fh:  # make the bytes durable before the rename
            os.fsync(fh.fileno())
        os.chmod(tmp_path, new_file_mode(d))
        if d.is_symlink():  # planted while we wrote
            raise EvalAddonError("refusing to write through a symbolic link", str(d))
        if d.exists() and not d.is_file():  # a FIFO or device node made while we wrote: never replaced
            raise EvalAddonError("is not a regular file; give a file name", str(d))
        os.replace(tmp_path, d)
    except OSError as exc:
        tmp_path.unlink(missing_ok=True)
        raise EvalAddonError(f"cannot write: {exc.strerror or exc}", str(d)) from None
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def atomic_write(
    dest: str | os.PathLike[str],
    write: Callable[[Path], None],
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> Path:
    """Call ``write(tmp_path)`` and move the result onto ``dest`` atomically; return ``dest``."""
    with atomic_path(dest, inputs) as tmp:
        write(tmp)
    return Path(dest)


def atomic_write_text(dest: str | os.PathLike[str], text: str, inputs: Iterable[str | os.PathLike[str]] = ()) -> Path:
    """:func:`atomic_write` for a text (UTF-8)."""
    return atomic_write(dest, lambda p: p.write_text(text, encoding="utf-8"), inputs)
