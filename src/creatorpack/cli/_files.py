"""Writing a file the command line produces (an upgraded pack, a save) whole or not at all."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

__all__ = ["write_atomically"]


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it, renamed over it once complete.

    A full disk, a file size limit or a killed process leaves ``path`` as it was, never half
    written. A symbolic link is followed (the file it names is replaced) and an existing file's
    permissions are kept. Raises :class:`OSError` as writing does.
    """
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
