"""The validator's report, paged: what is kept of a check so its findings can be read a page at a time.

A pack with many findings (a 30 MB pack can have thousands) is checked once, on ``POST /validate``;
what its pages show is then kept in the blob store, content-addressed (the key is the SHA-256 of what
is kept), so any server process answers ``GET /validate/report/{key}?page=N``: the summary, every
finding (line, column, code, message, pointer, the *did you mean* fix) and, of the source, only the
lines near a finding (each cut to a window around the finding's column), or the whole source when
it is short. Never the pack itself. A kept report is shown for :data:`KEPT_SECONDS`; it is an
unreferenced blob, so ``creatorpack gc`` deletes it like any orphan once its grace period is over.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

import orjson

__all__ = [
    "CONTEXT",
    "KEPT_SECONDS",
    "LINE_CHARS",
    "MAX_SOURCE_LINES",
    "PAGE_SIZE",
    "Blobs",
    "Excerpt",
    "Kept",
    "Line",
    "finding",
    "keep",
    "kept",
    "report_of",
]

PAGE_SIZE: Final = 100
"""Findings on one page of a report."""
MAX_SOURCE_LINES: Final = 600
"""A source of at most this many lines is shown whole; a longer one as the lines around a page's findings."""
CONTEXT: Final = 2
"""Lines shown before and after each finding's line."""
LINE_CHARS: Final = 240
"""Characters of a line shown at most (a window around the finding's column)."""
KEPT_SECONDS: Final = 3600
"""How long a kept report is shown (``creatorpack gc``'s default grace period deletes it after as long)."""
_DID_YOU_MEAN: Final = re.compile(r"did you mean '([^']{1,200})'")
_KEY: Final = re.compile(r"[0-9a-f]{64}")
_KIND: Final = "creatorpack.validator-report/1"  # a blob of any other kind (a pack, an asset) is no report


class Blobs(Protocol):
    """What a report is kept in: the service's blob store."""

    def put(self, data: bytes) -> str:
        """Store ``data``; its SHA-256 (hex)."""
        ...

    def get(self, sha256: str) -> bytes | None:
        """The bytes stored under ``sha256``, or None."""
        ...


@dataclass(frozen=True, slots=True)
class Line:
    """One shown line of source: its number, its (possibly cut) text, whether a finding points at it."""

    number: int
    text: str
    marked: bool
    gap_before: bool


@dataclass(frozen=True, slots=True)
class Excerpt:
    """What a page shows of the source: some lines, and how many there are in all."""

    lines: tuple[Line, ...]
    total: int
    whole: bool


@dataclass(frozen=True, slots=True)
class Kept:
    """A checked pack's report as its pages show it: summary, every finding (sorted), the source lines kept."""

    name: str
    valid: bool
    version: str | None
    findings: tuple[Mapping[str, Any], ...]
    lines: Mapping[int, str]  # the lines near a finding (all of them when whole), each cut
    total: int  # lines in the source
    created: float  # Unix seconds

    @property
    def errors(self) -> int:
        """Findings of severity ``error``."""
        return sum(1 for f in self.findings if f["severity"] == "error")

    @property
    def pages(self) -> int:
        """Pages of findings (at least one)."""
        return max(1, -(-len(self.findings) // PAGE_SIZE))

    @property
    def whole(self) -> bool:
        """Whether the whole source is kept (and shown on every page)."""
        return self.total <= MAX_SOURCE_LINES

    def page(self, number: int) -> tuple[Mapping[str, Any], ...]:
        """The findings of page ``number`` (1-based): at most :data:`PAGE_SIZE`."""
        return self.findings[(number - 1) * PAGE_SIZE : number * PAGE_SIZE]

    def excerpt(self, shown: Sequence[Mapping[str, Any]]) -> Excerpt:
        """The source lines of a page showing ``shown``: the whole source, or the lines around those findings."""
        marked = {f["line"] for f in self.findings if isinstance(f["line"], int)}
        if self.whole:
            wanted = sorted(self.lines)
        else:
            chosen: set[int] = set()
            for f in shown:
                if isinstance(f["line"], int):
                    chosen.update(n for n in range(f["line"] - CONTEXT, f["line"] + CONTEXT + 1) if n in self.lines)
            wanted = sorted(chosen)[:MAX_SOURCE_LINES]
        lines, previous = [], 0
        for number in wanted:
            lines.append(Line(number, self.lines[number], number in marked, number != previous + 1))
            previous = number
        return Excerpt(tuple(lines), self.total, self.whole)


def finding(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A finding of the linter's JSON report as a page shows it (with the *did you mean* name apart)."""
    message = str(raw.get("message", ""))
    guess = _DID_YOU_MEAN.search(message)
    line, column = raw.get("line"), raw.get("column")
    return {
        "line": line if isinstance(line, int) and line > 0 else None,
        "column": column if isinstance(column, int) and column > 0 else None,
        "code": str(raw.get("code", "")),
        "message": message,
        "pointer": str(raw.get("pointer", "")),
        "severity": str(raw.get("severity", "error")),
        "fix": guess.group(1) if guess else None,
    }


def _cut(text: str, column: int | None) -> str:
    if len(text) <= LINE_CHARS:
        return text
    start = max(0, (column or 1) - 1 - LINE_CHARS // 2)
    start = min(start, len(text) - LINE_CHARS)
    shown = text[start : start + LINE_CHARS]
    return ("…" if start > 0 else "") + shown + ("…" if start + LINE_CHARS < len(text) else "")


_PICTURES: Final = {code: 0x2400 + code for code in range(32) if code != 9} | {127: 0x2421}
"""Control characters as their Control Pictures (NUL as ␀): shown, one character for one, so columns hold."""


def report_of(report: Mapping[str, Any], source: bytes, name: str) -> Kept:
    """What to keep of the linter's JSON ``report`` of ``source``: its findings sorted, the lines near them."""
    findings = sorted((finding(f) for f in report["errors"]), key=lambda f: (f["line"] or 0, f["column"] or 0))
    text = source.decode("utf-8", errors="replace").split("\n")
    total = len(text)
    columns: dict[int, int | None] = {}
    for f in findings:
        if f["line"] is not None and f["line"] <= total:
            columns.setdefault(f["line"], f["column"])
    if total <= MAX_SOURCE_LINES:
        wanted: Sequence[int] = range(1, total + 1)
    else:
        near: set[int] = set()
        for line in columns:
            near.update(range(max(1, line - CONTEXT), min(total, line + CONTEXT) + 1))
        wanted = sorted(near)
    lines = {n: _cut(text[n - 1].rstrip("\r").translate(_PICTURES), columns.get(n)) for n in wanted}
    version = report.get("version")
    return Kept(
        name, bool(report["valid"]), str(version) if version else None, tuple(findings), lines, total, time.time()
    )


def keep(blobs: Blobs, report: Kept) -> str:
    """Keep ``report`` in ``blobs`` (blocking); the key its pages are addressed by."""
    data = {
        "kind": _KIND,
        "name": report.name,
        "valid": report.valid,
        "version": report.version,
        "findings": report.findings,
        "lines": {str(n): text for n, text in report.lines.items()},
        "total": report.total,
        "created": report.created,
    }
    return blobs.put(orjson.dumps(data))


def kept(blobs: Blobs, key: str, now: float) -> Kept | None:
    """The report kept under ``key`` (blocking), or None: no such key, or shown for long enough already."""
    if _KEY.fullmatch(key) is None:
        return None
    data = blobs.get(key)
    if data is None:
        return None
    try:
        found = orjson.loads(data)
        if found["kind"] != _KIND:
            return None
        report = Kept(
            str(found["name"]),
            bool(found["valid"]),
            found["version"],
            tuple(found["findings"]),
            {int(n): str(text) for n, text in found["lines"].items()},
            int(found["total"]),
            float(found["created"]),
        )
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
        return None  # some other blob (a pack, an asset): not a report
    if not report.created <= now < report.created + KEPT_SECONDS:
        return None
    return report
