"""Writing a file the command line produces (an upgraded pack, a save) whole or not at all.

A regular file (or a new one) is replaced through a temporary file; a target that exists and is
not a regular file (a device such as ``/dev/null``, a named pipe) is written to as it is, since
replacing it would swap the device or pipe for a regular file.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

__all__ = ["write_atomically"]

# Opening a terminal device must not make it the process's controlling terminal (POSIX only).
_NO_CONTROLLING_TERMINAL: int = getattr(os, "O_NOCTTY", 0)


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all, keeping what ``path`` is.

    A regular file or a new one is written through a temporary file beside it, renamed over it
    once complete: a full disk, a file size limit or a killed process leaves ``path`` as it was,
    never half written. A symbolic link is followed (the file it names is replaced) and an existing
    file's permissions are kept. A ``path`` that exists and is not a regular file once links are
    followed (``/dev/null``, a FIFO) is opened and written directly instead, so that it stays a
    device or a pipe: ``/dev/null`` discards the bytes and a FIFO's reader receives them. Raises
    :class:`OSError` as writing does (a socket or a directory cannot be written).
    """
    if _is_special(path) and _write_special(path, data):
        return
    _replace(path, data)


def _is_special(path: Path) -> bool:
    """True when ``path`` exists and, links followed, is not a regular file (a device, a FIFO, a socket, ...)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return False
    return not stat.S_ISREG(mode)


def _write_special(path: Path, data: bytes) -> bool:
    """Write ``data`` into the non-regular file at ``path`` as it is (no temporary file, no rename).

    Returns False, having written nothing, if ``path`` was a regular file by the time it was
    opened (replaced meanwhile): opening neither created nor emptied it, and the caller replaces
    it as a regular file.
    """
    # No O_CREAT and no O_TRUNC: opening neither makes a file nor empties one that appeared meanwhile.
    with os.fdopen(os.open(path, os.O_WRONLY | _NO_CONTROLLING_TERMINAL), "wb") as stream:
        if stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            return False
        stream.write(data)
    return True


def _replace(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` (the file a link names) and rename it over ``path``."""
    target = path.resolve() if path.is_symlink() else path
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    temporary = Path(name)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if mode is not None:
            temporary.chmod(mode)
        else:  # a new file gets the permissions the umask gives, as open() would
            umask = os.umask(0)
            os.umask(umask)
            temporary.chmod(0o666 & ~umask)
        temporary.replace(target)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
