"""Validate a pack against the contract version it declares and report every violation.

The fast path parses with orjson and asks jsonschema-rs whether the pack is valid. Only an
invalid pack pays for the details: every error is turned into a :class:`Violation` with its
RFC 6901 pointer, a stable code and a plain message, and, for text input, its line and column.

Violations are ordered by their place in the document (line, then column), or by pointer when
the input had no text; that is the relevance order: the first one is the first to fix.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TypeAlias

import jsonschema_rs

from creatorpack import _locate, _messages, _parse
from creatorpack.errors import InvalidPackError, LimitError, NotAnObjectError, UnreadableError
from creatorpack.schema import SUPPORTED_VERSIONS, bundle, document

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "Report",
    "Source",
    "Validator",
    "Violation",
    "pointer",
    "read_file",
    "validate",
]

MAX_BYTES: Final = _parse.MAX_BYTES
MAX_DEPTH: Final = _parse.MAX_DEPTH

Source: TypeAlias = bytes | bytearray | memoryview | str | os.PathLike[str] | Mapping[str, Any]
"""What :func:`validate` accepts: JSON bytes or text, a file path, or an already-parsed object."""


def pointer(path: tuple[str | int, ...] | list[str | int]) -> str:
    """The RFC 6901 JSON Pointer for a path of member names and array indexes."""
    return "".join("/" + str(token).replace("~", "~0").replace("/", "~1") for token in path)


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: where (``pointer``, ``line``, ``column``), which rule (``code``) and why."""

    pointer: str
    code: str
    message: str
    line: int | None = None
    column: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used by ``--format json``."""
        return {
            "pointer": self.pointer,
            "code": self.code,
            "message": self.message,
            "line": self.line,
            "column": self.column,
        }


@dataclass(frozen=True, slots=True)
class Report:
    """The outcome of validating one pack.

    ``version`` is the declared ``protocol_version`` when it is a supported one, else ``None``.
    ``document`` is the parsed pack (not compared, not shown in ``repr``).
    """

    version: str | None
    violations: tuple[Violation, ...] = ()
    document: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)

    @property
    def valid(self) -> bool:
        """True when the pack breaks no rule of its contract version."""
        return not self.violations

    def raise_for_errors(self) -> None:
        """Raise :class:`~creatorpack.errors.InvalidPackError` unless the pack is valid."""
        if self.violations:
            raise InvalidPackError(self)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used by ``--format json`` (without the path)."""
        return {
            "valid": self.valid,
            "version": self.version,
            "errors": [violation.to_dict() for violation in self.violations],
        }


class Validator:
    """Validates packs; compiles each version's schema once, on first use, and is thread-safe.

    ``max_bytes`` bounds the size of a document read from bytes, text or a file.
    """

    def __init__(self, *, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._compiled: dict[str, Any] = {}
        self._lock = threading.Lock()

    @functools.cached_property
    def _index(self) -> _messages.SchemaIndex:
        names = ["common.json", *(f"pack-{v}.json" for v in SUPPORTED_VERSIONS)]
        return _messages.SchemaIndex({name: document(name) for name in names})

    def _schema_validator(self, version: str) -> Any:
        compiled = self._compiled.get(version)
        if compiled is None:
            with self._lock:
                compiled = self._compiled.get(version)
                if compiled is None:
                    # The regex crate: linear time (no ReDoS), and the patterns need no lookaround.
                    compiled = jsonschema_rs.validator_for(
                        bundle(version), pattern_options=jsonschema_rs.RegexOptions()
                    )
                    self._compiled[version] = compiled
        return compiled

    def validate(self, source: Source) -> Report:
        """Validate ``source``; raise :class:`~creatorpack.errors.DocumentError` if it cannot be read.

        ``str`` is JSON text; pass a :class:`pathlib.Path` (or any ``os.PathLike``) for a file.
        """
        text: bytes | str | None
        if isinstance(source, Mapping):
            text, parsed = None, _parse.Parsed(source)
        elif isinstance(source, os.PathLike):
            text = read_file(source, self.max_bytes)
            parsed = _parse.parse(text, max_bytes=self.max_bytes)
        elif isinstance(source, bytes | bytearray | memoryview):
            text = bytes(source)
            parsed = _parse.parse(text, max_bytes=self.max_bytes)
        elif isinstance(source, str):
            text = source
            parsed = _parse.parse(text, max_bytes=self.max_bytes)
        else:
            raise TypeError(f"cannot validate a {type(source).__name__}: pass bytes, str, a path or a mapping")
        version, raw = self._check(parsed)
        if raw and text is not None and not parsed.exact and _parse.may_have_long_integers(text):
            # Messages should quote big integers exactly, not as the doubles orjson made of them.
            parsed = _parse.parse_exact(text)
            version, raw = self._check(parsed)
        if not raw:
            return Report(version, (), parsed.value)
        return Report(version, _finish(raw, text), parsed.value)

    def _check(self, parsed: _parse.Parsed) -> tuple[str | None, list[_messages.RawViolation]]:
        pack = parsed.value
        if not isinstance(pack, Mapping):
            raise NotAnObjectError(f"a pack must be a JSON object, not {_messages.json_type(pack)}", line=1, column=1)
        raw: list[_messages.RawViolation] = [
            _messages.RawViolation(
                (*path, key),
                _locate.KEY,
                "duplicate-key",
                f"{_messages.field_name(path)}: member {key!r} appears more than once; keep one "
                "(which value counts would be ambiguous)",
            )
            for path, key in parsed.duplicates
        ]
        declared = pack.get("protocol_version")
        version = declared if isinstance(declared, str) and declared in SUPPORTED_VERSIONS else None
        if version is None:
            supported = ", ".join(repr(v) for v in SUPPORTED_VERSIONS)
            if "protocol_version" not in pack:
                raw.append(
                    _messages.RawViolation(
                        (),
                        _locate.VALUE,
                        "unsupported-version",
                        f"pack: missing protocol_version; declare one of the supported versions {supported}",
                    )
                )
            else:
                raw.append(
                    _messages.RawViolation(
                        ("protocol_version",),
                        _locate.VALUE,
                        "unsupported-version",
                        f"protocol_version: {_messages.show(declared)} is not a supported version; "
                        f"use one of {supported}",
                    )
                )
        else:
            validator = self._schema_validator(version)
            if not validator.is_valid(pack):
                try:
                    for error in validator.iter_errors(pack):
                        raw.extend(_messages.convert(error, self._index))
                except ValueError:  # jsonschema-rs reports errors only up to MAX_DEPTH levels
                    raise _parse.too_deep() from None
        return version, raw


def _finish(raw: list[_messages.RawViolation], text: bytes | str | None) -> tuple[Violation, ...]:
    if text is None:
        ordered = sorted(raw, key=lambda v: (_sort_key(v.path), v.code))
        return tuple(Violation(pointer(v.path), v.code, v.message) for v in ordered)
    data = text if isinstance(text, bytes) else text.encode("utf-8", errors="surrogatepass")
    positions = _locate.locate(data, ((v.path, v.target) for v in raw))
    offsets: list[int | None] = []
    duplicate_seen: dict[tuple[str | int, ...], int] = {}
    for item in raw:
        offset: int | None
        if item.target == _locate.KEY:
            occurrences = positions.keys.get(item.path, [])
            if item.code == "duplicate-key":
                nth = duplicate_seen.get(item.path, 0) + 1
                duplicate_seen[item.path] = nth
                offset = occurrences[nth] if nth < len(occurrences) else None
            else:
                offset = occurrences[-1] if occurrences else None
        else:
            offset = positions.values.get(item.path)
        offsets.append(offset)
    places = positions.line_columns(o for o in offsets if o is not None)
    located: list[tuple[tuple[int, int], Violation]] = []
    for item, offset in zip(raw, offsets, strict=True):
        line, column = places[offset] if offset is not None else (None, None)
        sort = (line or 0, column or 0)
        located.append((sort, Violation(pointer(item.path), item.code, item.message, line, column)))
    located.sort(key=lambda pair: (pair[0], pair[1].pointer, pair[1].code))
    return tuple(violation for _, violation in located)


def _sort_key(path: tuple[str | int, ...]) -> list[tuple[int, str | int]]:
    return [(0, token) if isinstance(token, int) else (1, token) for token in path]


def read_file(path: os.PathLike[str] | str, max_bytes: int = MAX_BYTES) -> bytes:
    """Read a file's bytes, refusing (without reading it all) one larger than ``max_bytes``."""
    target = Path(path)
    try:
        with target.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except IsADirectoryError:
        raise UnreadableError(f"{target} is a directory, not a pack file") from None
    except FileNotFoundError:
        raise UnreadableError(f"{target}: no such file") from None
    except OSError as exc:
        raise UnreadableError(f"{target}: cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise LimitError(f"{target} is larger than the limit of {max_bytes:,} bytes")
    return data


@functools.cache
def _default() -> Validator:
    return Validator()


def validate(source: Source) -> Report:
    """Validate a pack against the contract version it declares; see :meth:`Validator.validate`."""
    return _default().validate(source)
