"""Validate a pack against the contract version it declares and report every violation.

The fast path parses with orjson and asks jsonschema-rs whether the pack is valid. Only an
invalid pack pays for the details: every error is turned into a :class:`Violation` with its
RFC 6901 pointer, a stable code and a plain message, and, for text input, its line and column.

Violations are ordered by their place in the document (line, then column), or by pointer when
the input had no text; that is the relevance order: the first one is the first to fix.

:meth:`Validator.check` also hands back the bytes it read, so that later steps (lint) place
their findings in the same text instead of reading the source again.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import jsonschema_rs

from creatorpack._json import a_python_type, json_type, pointer, show
from creatorpack.contract import _fastschema, _messages, _parse, suggest
from creatorpack.contract._schemaindex import SchemaIndex
from creatorpack.contract._source import Source, read, read_file
from creatorpack.contract.findings import RawFinding, Target, locate_and_sort
from creatorpack.contract.schema import SUPPORTED_VERSIONS, Version, as_version, bundle, document
from creatorpack.errors import InvalidPackError, NotAnObjectError

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "Checked",
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

    version: Version | None
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


@dataclass(frozen=True, slots=True)
class Checked:
    """A report together with what validation read, so later steps need not read it again.

    ``text`` is the source as UTF-8 bytes (``None`` when a mapping was given); findings of later
    steps (lint) are located in it. ``document`` is the parsed pack.
    """

    report: Report
    text: bytes | None = field(default=None, repr=False)

    @property
    def document(self) -> Mapping[str, Any] | None:
        """The parsed pack (as in :attr:`Report.document`)."""
        return self.report.document


class Validator:
    """Validates packs; compiles each version's schema once, on first use, and is thread-safe.

    ``max_bytes`` bounds the size of a document read from bytes, text or a file.
    """

    def __init__(self, *, max_bytes: int = MAX_BYTES) -> None:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int):
            raise TypeError(f"max_bytes must be an int, not {a_python_type(max_bytes)}")
        if not 1 <= max_bytes <= sys.maxsize - 1:
            raise ValueError(f"max_bytes must be from 1 to {sys.maxsize - 1:,}, not {max_bytes:,}")
        self.max_bytes = max_bytes
        self._compiled: dict[tuple[str, bool], Any] = {}
        self._lock = threading.Lock()

    @functools.cached_property
    def _index(self) -> SchemaIndex:
        names = ["common.json", *(f"pack-{v}.json" for v in SUPPORTED_VERSIONS)]
        return SchemaIndex({name: document(name) for name in names})

    def _schema_validator(self, version: Version) -> Any:
        """The compiled shipped schema of ``version``: its errors are the ones reported."""
        return self._compile(version, shipped=True)

    def _quick_validator(self, version: Version) -> Any:
        """A validator with the shipped schema's verdicts that answers a valid pack sooner (:mod:`._fastschema`)."""
        return self._compile(version, shipped=False)

    def _compile(self, version: Version, *, shipped: bool) -> Any:
        key = (version, shipped)
        compiled = self._compiled.get(key)
        if compiled is None:
            with self._lock:
                compiled = self._compiled.get(key)
                if compiled is None:
                    # Each is compiled on first use: a run that meets only valid packs compiles one.
                    document = bundle(version) if shipped else _fastschema.for_is_valid(bundle(version))
                    # The regex crate: linear time (no ReDoS), and the patterns need no lookaround.
                    compiled = jsonschema_rs.validator_for(document, pattern_options=jsonschema_rs.RegexOptions())
                    self._compiled[key] = compiled
        return compiled

    def validate(self, source: Source) -> Report:
        """Validate ``source``; raise :class:`~creatorpack.errors.DocumentError` if it cannot be read.

        ``str`` is JSON text; pass a :class:`pathlib.Path` (or any ``os.PathLike``) for a file.
        A mapping must hold only JSON data, else :class:`~creatorpack.errors.NotJSONDataError`;
        any other type raises :class:`~creatorpack.errors.SourceTypeError`.
        """
        return self.check(source).report

    def check(self, source: Source) -> Checked:
        """Validate ``source`` as :meth:`validate` does, and hand back the bytes it read too."""
        text, parsed = read(source, self.max_bytes)
        data = text.encode("utf-8", errors="surrogatepass") if isinstance(text, str) else text
        version, raw = self._check(parsed)
        if raw and data is not None and not parsed.exact and _parse.may_have_long_integers(data):
            # Messages should quote big integers exactly, not as the doubles orjson made of them.
            parsed = _parse.parse_exact(data)
            version, raw = self._check(parsed)
        violations = _finish(raw, data) if raw else ()
        return Checked(Report(version, violations, parsed.value), data)

    def _check(self, parsed: _parse.Parsed) -> tuple[Version | None, list[RawFinding]]:
        pack = parsed.value
        if not isinstance(pack, Mapping):
            raise NotAnObjectError(f"a pack must be a JSON object, not {json_type(pack)}", line=1, column=1)
        raw: list[RawFinding] = [
            RawFinding(
                (*path, key),
                "duplicate-key",
                f"{_messages.field_name(path)}: member {key!r} appears more than once; keep one "
                "(which value counts would be ambiguous)",
                Target.KEY,
                occurrence=1,
            )
            for path, key in parsed.duplicates
        ]
        declared = pack.get("protocol_version")
        version = as_version(declared)
        if version is None:
            supported = ", ".join(repr(v) for v in SUPPORTED_VERSIONS)
            if "protocol_version" not in pack:
                near = next((k for k in pack if isinstance(k, str) and suggest.nearest(k, ["protocol_version"])), None)
                hint = f" ({show(near)} looks like a misspelling of it)" if near is not None else ""
                raw.append(
                    RawFinding(
                        (),
                        "unsupported-version",
                        f"pack: missing protocol_version{hint}; declare one of the supported versions {supported}",
                    )
                )
            elif type(declared) in (int, float) and str(declared) in SUPPORTED_VERSIONS:
                raw.append(
                    RawFinding(
                        ("protocol_version",),
                        "unsupported-version",
                        f"protocol_version: {show(declared)} is a number; write the version as a string, "
                        f"{show(str(declared))}",
                    )
                )
            else:
                raw.append(
                    RawFinding(
                        ("protocol_version",),
                        "unsupported-version",
                        f"protocol_version: {show(declared)} is not a supported version; use one of {supported}",
                    )
                )
        elif not self._quick_validator(version).is_valid(pack):
            validator = self._schema_validator(version)
            try:
                raw.extend(_messages.convert(validator.iter_errors(pack), self._index, version))
            except ValueError:  # jsonschema-rs reports errors only up to MAX_DEPTH levels
                raise _parse.too_deep() from None
        return version, raw


def _finish(raw: Iterable[RawFinding], data: bytes | None) -> tuple[Violation, ...]:
    located = locate_and_sort(raw, data)
    return tuple(Violation(item.pointer, item.raw.code, item.raw.message, item.line, item.column) for item in located)


@functools.cache
def _default() -> Validator:
    return Validator()


def validate(source: Source) -> Report:
    """Validate a pack against the contract version it declares; see :meth:`Validator.validate`."""
    return _default().validate(source)
