"""Per-file results of a CLI run and their output formats: text, json, sarif and github."""

from __future__ import annotations

import dataclasses
import sys
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

import orjson

from creatorpack._text import one_line, unicode_text
from creatorpack.contract.validation import MAX_BYTES, Report, Validator, read_file
from creatorpack.errors import DocumentError, LimitError, NotJSONError, PlayError

__all__ = [
    "FORMATS",
    "NOTE_TITLE",
    "Excerpt",
    "FileResult",
    "Finding",
    "OutputFormat",
    "TranscriptFormat",
    "check_file",
    "complain",
    "display_width",
    "excerpt",
    "lint_file",
    "one_line",
    "read_input",
    "read_limited",
    "render",
    "unicode_text",
]


class OutputFormat(StrEnum):
    """The output formats of ``validate`` and ``lint``."""

    TEXT = "text"
    JSON = "json"
    SARIF = "sarif"
    GITHUB = "github"


class TranscriptFormat(StrEnum):
    """The output formats of ``play --script``: a readable summary or the JSON transcript."""

    TEXT = "text"
    JSON = "json"


FORMATS: Final = tuple(OutputFormat)
STDIN: Final = "-"
EXCERPT_WIDTH: Final = 100
"""Source lines wider than this (in terminal cells) are shown as a window around the column."""
NOTE_TITLE: Final = "reachability-not-searched"
"""The title of a file's note where a format wants one (a GitHub ``::notice``, a SARIF notification's id)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem in one file, in the shape every output format needs."""

    pointer: str
    code: str
    message: str
    line: int | None
    column: int | None
    severity: str = "error"

    def to_dict(self, *, severity: bool = False) -> dict[str, Any]:
        """The JSON form; lint output adds the severity."""
        data: dict[str, Any] = {
            "pointer": self.pointer,
            "code": self.code,
            "message": self.message,
            "line": self.line,
            "column": self.column,
        }
        if severity:
            data["severity"] = self.severity
        return data


@dataclass(frozen=True, slots=True)
class FileResult:
    """What happened to one input: checked (valid or not), or unreadable (``readable`` false)."""

    path: str
    valid: bool
    version: str | None
    findings: tuple[Finding, ...] = ()
    readable: bool = True
    excerpts: dict[tuple[int, int], Excerpt] = field(default_factory=dict)
    linted: bool = False
    note: str = ""
    """Said once about the file (lint: why the reachability search did not run): under its findings in text,
    as its ``note`` in json, a SARIF tool execution notification, a GitHub ``::notice``."""

    @property
    def exit_code(self) -> int:
        """0 valid (lint: no finding that counts), 1 invalid, 2 unreadable."""
        if not self.readable:
            return 2
        return 0 if self.valid else 1


@dataclass(frozen=True, slots=True)
class Excerpt:
    """A source line as shown under a finding: at most :data:`EXCERPT_WIDTH` cells, and where the caret goes."""

    text: str
    caret: int  # terminal cells before the caret


def _cells(char: str) -> int:
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    """How many terminal cells ``text`` takes: East Asian wide and full-width characters take two."""
    return sum(_cells(char) for char in text)


def excerpt(line: str, column: int, width: int = EXCERPT_WIDTH) -> Excerpt:
    """The source line under a finding at ``column`` (1-based, in code points).

    A line wider than ``width`` cells is cut to a window around the column, marked with ``…``;
    tabs and control characters show as one space; the caret counts cells, so it sits under
    wide characters.
    """
    at = min(max(column - 1, 0), len(line))
    lo, hi = max(0, at - 2 * width), min(len(line), at + 2 * width)  # never look at all of a 1 MB line
    shown = "".join(" " if unicodedata.category(c) == "Cc" else c for c in line[lo:hi])
    at -= lo
    if lo == 0 and hi == len(line) and display_width(shown) <= width:
        return Excerpt(shown, display_width(shown[:at]))
    start, end = at, min(at, len(shown) - 1)
    cells = _cells(shown[end]) if shown else 0
    # Up to half the width before the column, then fill after it, then fill before it.
    while start > 0 and cells + _cells(shown[start - 1]) <= width // 2:
        start -= 1
        cells += _cells(shown[start])
    while end + 1 < len(shown) and cells + _cells(shown[end + 1]) <= width:
        end += 1
        cells += _cells(shown[end])
    while start > 0 and cells + _cells(shown[start - 1]) <= width:
        start -= 1
        cells += _cells(shown[start])
    head = "…" if lo + start > 0 else ""
    tail = "…" if lo + end + 1 < len(line) else ""
    return Excerpt(head + shown[start : end + 1] + tail, len(head) + display_width(shown[start:at]))


def _excerpts(data: bytes | None, places: Iterable[tuple[int | None, int | None]]) -> dict[tuple[int, int], Excerpt]:
    wanted: dict[int, set[int]] = {}
    for line, column in places:
        if line is not None:
            wanted.setdefault(line, set()).add(column or 1)
    if data is None or not wanted:
        return {}
    found: dict[tuple[int, int], Excerpt] = {}
    last = max(wanted)
    start = 0
    for number in range(1, last + 1):
        end = data.find(b"\n", start)
        stop = len(data) if end < 0 else end
        if number in wanted:
            text = data[start:stop].decode("utf-8", errors="replace").rstrip("\r")
            for column in wanted[number]:
                found[number, column] = excerpt(text, column)
        if end < 0:
            break
        start = end + 1
    return found


def _places(findings: Iterable[Finding]) -> list[tuple[int | None, int | None]]:
    return [(f.line, f.column) for f in findings]


def from_report(path: str, report: Report, data: bytes | None) -> FileResult:
    """A :class:`FileResult` for a pack that could be read."""
    findings = tuple(Finding(v.pointer, v.code, v.message, v.line, v.column) for v in report.violations)
    return FileResult(path, report.valid, report.version, findings, excerpts=_excerpts(data, _places(findings)))


def located(path: str, error: DocumentError) -> str:
    """``path:line:column`` where the error has a place (as ``validate`` prints it), else ``path``."""
    if error.line is None:
        return path
    return f"{path}:{error.line}:{error.column}" if error.column is not None else f"{path}:{error.line}"


def from_error(path: str, error: DocumentError, data: bytes | None = None) -> FileResult:
    """A :class:`FileResult` for an input that could not be read as a pack."""
    finding = Finding("", error.code, error.message, error.line, error.column)
    return FileResult(
        path,
        valid=False,
        version=None,
        findings=(finding,),
        readable=False,
        excerpts=_excerpts(data, _places([finding])),
    )


def read_input(path: str, max_bytes: int, stdin: bytes | None = None) -> bytes:
    """The bytes of a file (or of stdin for ``-``); an empty input is :class:`NotJSONError` 'empty file'.

    ``stdin`` is what was read of standard input, at most ``max_bytes + 1`` bytes: more than the
    limit says only that standard input is larger, not how large (it was not read to its end).
    """
    data = stdin if path == STDIN and stdin is not None else read_file(path, max_bytes)
    if path == STDIN and len(data) > max_bytes:
        raise LimitError(f"standard input is larger than the limit of {max_bytes:,} bytes")
    if not data.strip():
        what = "standard input is empty" if path == STDIN else "empty file"
        raise NotJSONError(f"{what}: a pack is a JSON object")
    return data


def read_limited(path: str, limit: int = MAX_BYTES) -> bytes:
    """All the bytes of a file (of standard input for ``-``) that the CLI reads whole, such as a script or a save.

    Reads at most ``limit + 1`` bytes, so ``/dev/zero`` or a runaway file ends in a
    :class:`LimitError` rather than filling the memory. Raises :class:`OSError` as ``open`` does.
    """
    if path == STDIN:
        data = sys.stdin.buffer.read(limit + 1)
    else:
        with Path(path).open("rb") as handle:
            data = handle.read(limit + 1)
    if len(data) > limit:
        raise LimitError(f"larger than the limit of {limit:,} bytes")
    return data


def check_file(path: str, max_bytes: int, stdin: bytes | None = None) -> FileResult:
    """Validate one file (or the bytes read from stdin); never raises for bad input."""
    data: bytes | None = None
    try:
        data = read_input(path, max_bytes, stdin)
        report = _validator(max_bytes).validate(data)
    except DocumentError as exc:
        return from_error(path, exc, data)
    return from_report(path, report, data)


_VALIDATORS: dict[int, Validator] = {}


def _validator(max_bytes: int) -> Validator:
    # One compiled validator per process and limit: worker processes reuse it across files.
    if max_bytes not in _VALIDATORS:
        _VALIDATORS[max_bytes] = Validator(max_bytes=max_bytes)
    return _VALIDATORS[max_bytes]


def render(results: Sequence[FileResult], fmt: OutputFormat | str, *, color: bool = False) -> str:
    """All results in one output format."""
    match OutputFormat(fmt):
        case OutputFormat.JSON:
            return _json(results)
        case OutputFormat.SARIF:
            from creatorpack.cli import _sarif  # noqa: PLC0415 - only SARIF needs the rule table

            return _sarif.render(results)
        case OutputFormat.GITHUB:
            return _github(results)
        case OutputFormat.TEXT:
            return _text(results, color=color)


def complain(message: str | BaseException) -> None:
    """Print an error of the command line on standard error: one line, ``creatorpack: `` first.

    A file name or a pack's value in the message may hold a newline or an ANSI escape: escaped. A
    :class:`~creatorpack.errors.PlayError`'s problems follow, one indented line each.
    """
    problems = message.problems if isinstance(message, PlayError) else ()
    text = message.message if isinstance(message, PlayError) else str(message)
    lines = [f"creatorpack: {one_line(text)}"]
    lines += [f"  {one_line(pointer or '/')}: {one_line(problem)}" for pointer, problem in problems]
    sys.stderr.write("\n".join(lines) + "\n")


def _json(results: Sequence[FileResult]) -> str:
    files = [
        {
            "path": unicode_text(r.path),
            "valid": r.valid,
            "version": r.version,
            "errors": [
                {**f.to_dict(severity=r.linted), "message": unicode_text(f.message), "pointer": unicode_text(f.pointer)}
                for f in r.findings
            ],
            **({"note": unicode_text(r.note)} if r.note else {}),
        }
        for r in results
    ]
    return orjson.dumps({"files": files}, option=orjson.OPT_INDENT_2).decode() + "\n"


def _paint(text: str, style: str, *, color: bool) -> str:
    codes = {"bold": "1", "red": "31", "yellow": "33", "cyan": "36", "dim": "2", "green": "32"}
    return f"\x1b[{codes[style]}m{text}\x1b[0m" if color else text


def _text(results: Sequence[FileResult], *, color: bool) -> str:
    out: list[str] = []
    for result in results:
        for f in result.findings:
            path = one_line(result.path)
            where = f"{path}:{f.line}:{f.column or 1}:" if f.line is not None else f"{path}:"
            style = "red" if f.severity == "error" else "yellow"
            message = one_line(f.message)
            # Lint's findings say their severity in words as well (as rustc's and ruff's do), so that
            # output without colour (piped, in a log) still tells an error from a warning.
            label = f"{f.severity}[{f.code}]:" if result.linted else f.code
            out.append(f"{_paint(where, 'bold', color=color)} {_paint(label, style, color=color)} {message}")
            if f.pointer:
                out.append(f"  {_paint('at ' + one_line(f.pointer), 'dim', color=color)}")
            shown = result.excerpts.get((f.line, f.column or 1)) if f.line is not None else None
            if shown is not None:
                gutter = str(f.line)
                pad = " " * len(gutter)
                out.append(f"  {pad} |")
                out.append(f"  {gutter} | {shown.text}")
                out.append(f"  {pad} | {' ' * shown.caret}{_paint('^', style, color=color)}")
        if result.note:
            out.append(f"{_paint(one_line(result.path) + ':', 'bold', color=color)} note: {one_line(result.note)}")
    out.append(_summary(results))
    return "\n".join(out) + "\n"


def _summary(results: Sequence[FileResult]) -> str:
    linted = any(r.linted for r in results)
    valid = sum(r.exit_code == 0 for r in results)
    invalid = [r for r in results if r.exit_code == 1]
    unreadable = sum(r.exit_code == 2 for r in results)
    errors = sum(1 for r in results if r.readable for f in r.findings if f.severity == "error")
    warnings = sum(1 for r in results for f in r.findings if f.severity == "warning")
    noun = "file" if len(results) == 1 else "files"
    if linted:
        # A file with only warnings passes (exit 0) but is not clean.
        clean = sum(r.exit_code == 0 and not r.findings for r in results)
        warned = valid - clean
        parts = [f"{clean} clean"] if clean or not (warned or invalid or unreadable) else []
        if warned:
            parts.append(f"{warned} with warnings only")
        if invalid:
            parts.append(f"{len(invalid)} with problems")
        parts += [f"{errors} error{'s' if errors != 1 else ''}", f"{warnings} warning{'s' if warnings != 1 else ''}"]
    else:
        parts = [f"{valid} valid"]
        if invalid:
            parts.append(f"{len(invalid)} invalid ({errors} error{'s' if errors != 1 else ''})")
    if unreadable:
        parts.append(f"{unreadable} unreadable")
    return f"Checked {len(results)} {noun}: " + ", ".join(parts) + "."


def lint_file(path: str, max_bytes: int, config: Any, *, strict: bool, stdin: bytes | None = None) -> FileResult:
    """Lint one file (or stdin bytes); never raises for bad input."""
    from creatorpack.lint.linter import contract_findings, lint  # noqa: PLC0415 - lint loads the runtime

    data: bytes | None = None
    try:
        data = read_input(path, max_bytes, stdin)
        report = lint(data, config, validator=_validator(max_bytes))
    except DocumentError as exc:
        return dataclasses.replace(from_error(path, exc, data), linted=True)  # lint's output: with severities
    if not report.contract.valid:
        findings = tuple(
            Finding(f.pointer, f.code, f.message, f.line, f.column) for f in contract_findings(report.contract)
        )
        version = report.contract.version
        return FileResult(
            path,
            valid=False,
            version=version,
            findings=findings,
            excerpts=_excerpts(data, _places(findings)),
            linted=True,
        )
    findings = tuple(Finding(f.pointer, f.code, f.message, f.line, f.column, f.severity) for f in report.findings)
    counts = [f for f in findings if f.severity == "error" or strict]
    excerpts = _excerpts(data, _places(findings))
    note = _unsearched(report, config)
    return FileResult(path, not counts, report.contract.version, findings, excerpts=excerpts, linted=True, note=note)


def _unsearched(report: Any, config: Any) -> str:
    """Why the reachability search did not run (:func:`creatorpack.lint.unsearched_note`), else nothing."""
    from creatorpack.lint import unsearched_note  # noqa: PLC0415

    return unsearched_note(report, config)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _github(results: Sequence[FileResult]) -> str:
    out: list[str] = []
    for result in results:
        for f in result.findings:
            props = [f"file={_escape_property(one_line(result.path))}"]
            if f.line is not None:
                props += [f"line={f.line}", f"col={f.column or 1}"]
            props.append(f"title={_escape_property(f.code)}")
            level = "error" if f.severity == "error" else "warning"
            where = f" at {f.pointer}" if f.pointer else ""
            out.append(f"::{level} {','.join(props)}::{_escape_data(one_line(f.message + where))}")
        if result.note:
            props = [f"file={_escape_property(one_line(result.path))}", f"title={_escape_property(NOTE_TITLE)}"]
            out.append(f"::notice {','.join(props)}::{_escape_data(one_line(result.note))}")
    out.append(_summary(results))
    return "\n".join(out) + "\n"


def is_terminal(stream: Any = None) -> bool:
    """Whether a stream (stderr by default) is an interactive terminal."""
    target = stream if stream is not None else sys.stderr
    isatty = getattr(target, "isatty", None)
    return bool(isatty and isatty())
