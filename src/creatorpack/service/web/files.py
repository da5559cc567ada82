"""The pages' static files (stylesheet, script, icon): first-party files of this package, and their digest.

Their URLs carry the digest (``/static/{digest}/{name}``, :mod:`~creatorpack.service.web.static`).
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from importlib import resources
from typing import Final

__all__ = ["FILES", "Files", "files_of", "prefix"]

FILES: Final = {
    "web.css": "text/css; charset=utf-8",
    "web.js": "text/javascript; charset=utf-8",
    "favicon.svg": "image/svg+xml",
    "placeholder.svg": "image/svg+xml",
}
"""Each served file under ``service/web/static`` and its media type."""


@dataclass(frozen=True, slots=True)
class Files:
    """The files' contents by name, read once per process, and the digest that versions their URLs."""

    digest: str
    contents: dict[str, bytes]


@functools.cache
def files_of() -> Files:
    """The files, read once per process."""
    folder = resources.files("creatorpack.service.web").joinpath("static")
    contents = {name: folder.joinpath(name).read_bytes() for name in FILES}
    digest = hashlib.sha256()
    for name in sorted(contents):
        digest.update(name.encode() + b"\0" + hashlib.sha256(contents[name]).digest())
    return Files(digest.hexdigest()[:16], contents)


def prefix() -> str:
    """Where the files of this release are served: ``/static/{digest}``."""
    return f"/static/{files_of().digest}"
