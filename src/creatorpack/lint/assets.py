"""Asset files: each asset's file exists and its sha256, size and content type agree with the pack.

Files come from an :class:`AssetSource`: a directory (:class:`DirectoryAssets`, what ``--assets``
gives) or anything else that can list and read them, such as the files a service was handed
(:class:`MemoryAssets`) or has stored. A source that already knows a file's sha256, size and type
(a store that checked them on upload) may also offer :meth:`DescribedAssetSource.describe`, so that
the check does not read the bytes again.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final, Protocol, runtime_checkable

from creatorpack.contract.findings import RawFinding
from creatorpack.lint.index import PackIndex
from creatorpack.lint.rules import Raw

__all__ = [
    "AssetFacts",
    "AssetSource",
    "DescribedAssetSource",
    "DirectoryAssets",
    "MemoryAssets",
    "check_asset_files",
    "check_unused_assets",
    "sniff",
    "used_assets",
]


@runtime_checkable
class AssetSource(Protocol):
    """Where asset files come from: their names, a lookup by ``uri``, and their bytes."""

    @property
    def label(self) -> str:
        """What to call the source in messages (a directory's path)."""
        ...

    def names(self) -> frozenset[str]:
        """The file names (without folders) the source holds."""
        ...

    def find(self, uri: str) -> str | None:
        """The name under which the file at ``uri`` (relative to the source) is read, if it exists."""
        ...

    def read(self, name: str) -> bytes:
        """The content of the file ``name`` (one of :meth:`names` or found by :meth:`find`)."""
        ...


@dataclass(frozen=True, slots=True)
class AssetFacts:
    """What the asset checks compare of a file: its sha256, size and sniffed MIME type (None: unknown)."""

    sha256: str
    size: int
    mime_type: str | None


@runtime_checkable
class DescribedAssetSource(AssetSource, Protocol):
    """An :class:`AssetSource` that knows its files' facts without reading them (a store that checked them)."""

    def describe(self, name: str) -> AssetFacts:
        """The facts of the file ``name`` (one of :meth:`names`)."""
        ...


_CHUNK: Final = 1 << 20
_SNIFFED: Final = 4096  # the first bytes the content type is told from


class DirectoryAssets:
    """The files below a directory, by file name (any depth)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.label = str(directory)
        files = directory.rglob("*") if directory.is_dir() else ()
        self._files = {p.name: p for p in files if p.is_file()}

    def names(self) -> frozenset[str]:
        """The file names below the directory."""
        return frozenset(self._files)

    def find(self, uri: str) -> str | None:
        """``uri`` itself when it names a file relative to the directory, inside it.

        An absolute ``uri``, or one that climbs out with ``..``, is not looked up: a pack must not
        make lint read (and print the hash, size and type of) a file elsewhere on the machine.
        """
        relative = PurePosixPath(uri.replace("\\", "/"))
        if relative.is_absolute() or ".." in relative.parts or Path(uri).is_absolute() or Path(uri).drive:
            return None
        target = self.directory / uri
        if not target.is_file():
            return None
        self._files.setdefault(str(Path(uri)), target)
        return str(Path(uri))

    def read(self, name: str) -> bytes:
        """The file's bytes."""
        return self._files[name].read_bytes()

    def describe(self, name: str) -> AssetFacts:
        """The file's sha256, size and sniffed type, read in chunks: a 1 GiB video is never held whole."""
        digest, size, head = hashlib.sha256(), 0, b""
        with self._files[name].open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                if len(head) < _SNIFFED:
                    head += chunk[: _SNIFFED - len(head)]
                digest.update(chunk)
                size += len(chunk)
        return AssetFacts(digest.hexdigest(), size, sniff(head))


class MemoryAssets:
    """Asset files held in memory, by name (a name may hold folders: it is then also found by uri)."""

    def __init__(self, files: Mapping[str, bytes], label: str = "the uploaded files") -> None:
        self._files = dict(files)
        self.label = label

    def names(self) -> frozenset[str]:
        """The file names, without folders."""
        return frozenset(PurePosixPath(name).name for name in self._files)

    def find(self, uri: str) -> str | None:
        """``uri`` when a file has that name."""
        return uri if uri in self._files else None

    def read(self, name: str) -> bytes:
        """The file's bytes, by its full name or its name without folders."""
        if name in self._files:
            return self._files[name]
        return next(data for full, data in self._files.items() if PurePosixPath(full).name == name)


_MIME_SNIFF: Final[tuple[tuple[str, Callable[[bytes], bool]], ...]] = (
    ("image/png", lambda b: b.startswith(b"\x89PNG\r\n\x1a\n") and b"acTL" not in b[:4096]),
    ("image/apng", lambda b: b.startswith(b"\x89PNG\r\n\x1a\n") and b"acTL" in b[:4096]),
    ("image/jpeg", lambda b: b.startswith(b"\xff\xd8\xff")),
    ("image/webp", lambda b: b[:4] == b"RIFF" and b[8:12] == b"WEBP"),
    ("audio/wav", lambda b: b[:4] == b"RIFF" and b[8:12] == b"WAVE"),
    ("audio/mpeg", lambda b: b.startswith(b"ID3") or (len(b) > 1 and b[0] == 0xFF and b[1] & 0xE0 == 0xE0)),
    ("video/mp4", lambda b: b[4:8] == b"ftyp"),
)


def sniff(head: bytes) -> str | None:
    """The MIME type the contract knows that these first bytes show, or ``None``."""
    for mime, test in _MIME_SNIFF:
        if test(head):
            return str(mime)
    return None


def check_asset_files(index: PackIndex, source: AssetSource) -> Iterator[Raw]:
    """Each asset's file exists, and its sha256, size and content type agree."""
    assets = [asset for _, asset in index.items("assets")]
    files = source.names()
    named: set[str] = set()
    for position, asset in enumerate(assets):
        sha = asset.get("sha256")
        candidates = sorted(name for name in files if isinstance(sha, str) and name.split(".")[0] == sha)
        uri = asset.get("uri")
        found = source.find(uri) if not candidates and isinstance(uri, str) else None
        if found is not None:
            candidates = [found]
        if not candidates:
            ident = asset.get("id")
            by_id = sorted(name for name in files if isinstance(ident, str) and PurePosixPath(name).stem == ident)
            hint = (
                f"; {by_id[0]} is there, named by the asset's id: rename it to {sha} (keeping its extension) "
                "or set the asset's `uri` to its name"
                if by_id and isinstance(sha, str)
                else ""
            )
            message = f"no file named {sha} (or by its uri) in {source.label}{hint}"
            yield RawFinding(("assets", position), "asset-file-missing", message)
            continue
        name = candidates[0]
        named.add(PurePosixPath(name).name)
        yield from _check_file(position, asset, name, _facts(source, name))
    uris = {PurePosixPath(str(a["uri"])).name for a in assets if isinstance(a.get("uri"), str) and a["uri"]}
    for name in sorted(files - named - uris):
        yield RawFinding((), "unlisted-file", f"{source.label}/{name} is not named by any asset's sha256 or uri")


def _facts(source: AssetSource, name: str) -> AssetFacts:
    if isinstance(source, DescribedAssetSource):
        return source.describe(name)
    data = source.read(name)
    return AssetFacts(hashlib.sha256(data).hexdigest(), len(data), sniff(data[:_SNIFFED]))


def _check_file(position: int, asset: Mapping[str, object], name: str, facts: AssetFacts) -> Iterator[Raw]:
    digest = facts.sha256
    if digest != asset.get("sha256"):
        yield RawFinding(
            ("assets", position, "sha256"),
            "asset-sha256-mismatch",
            f"the file {name} has sha256 {digest}; update the pack or the file",
        )
    if facts.size != asset.get("byte_size"):
        yield RawFinding(
            ("assets", position, "byte_size"),
            "asset-size-mismatch",
            f"the file {name} is {facts.size} bytes, not {asset.get('byte_size')}",
        )
    found = facts.mime_type
    if found != asset.get("mime_type"):
        yield RawFinding(
            ("assets", position, "mime_type"),
            "asset-mime-mismatch",
            f"the file {name} looks like {found or 'an unknown type'}, not {asset.get('mime_type')}",
        )


_ASSET_KEY: Final = re.compile(r"^(?:.*_)?asset_ids?$")


def used_assets(index: PackIndex) -> set[str]:
    """The ids of the assets something references (generation inputs included)."""
    used: set[str] = set()
    for path, node in index.nodes:
        if path[0] != "assets" and _ASSET_KEY.match(str(path[-1])):
            used.update(v for v in (node if isinstance(node, list) else [node]) if isinstance(v, str))
    for _, asset in index.items("assets"):
        record = asset.get("generation_record")
        inputs = record.get("input_assets", []) if isinstance(record, Mapping) else []
        used.update(str(i.get("asset_id")) for i in inputs if isinstance(i, Mapping))
    return used


def check_unused_assets(index: PackIndex) -> Iterator[Raw]:
    """Assets that nothing references (checked with asset files, as a shipping concern)."""
    used = used_assets(index)
    for position, asset in index.items("assets"):
        if asset.get("id") not in used:
            yield RawFinding(
                ("assets", position, "id"),
                "unused-asset",
                f"asset {asset.get('id')!r} is referenced by nothing; use it or drop it",
            )
