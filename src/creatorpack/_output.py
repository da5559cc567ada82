"""Per-file results of a CLI run and their output formats: text, json, sarif and github."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

from creatorpack import __version__
from creatorpack.errors import DocumentError
from creatorpack.validation import Report, Validator, read_file

__all__ = ["FORMATS", "FileResult", "Finding", "check_file", "lint_file", "render"]

FORMATS: Final = ("text", "json", "sarif", "github")
STDIN: Final = "-"
_EXCERPT_WIDTH: Final = 160


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
    excerpts: dict[int, str] = field(default_factory=dict)
    linted: bool = False

    @property
    def exit_code(self) -> int:
        """0 valid (lint: no finding that counts), 1 invalid, 2 unreadable."""
        if not self.readable:
            return 2
        return 0 if self.valid else 1


def _excerpts(data: bytes | None, lines: set[int]) -> dict[int, str]:
    if data is None or not lines:
        return {}
    text = data.decode("utf-8", errors="replace")
    wanted: dict[int, str] = {}
    last = max(lines)
    for number, line in enumerate(text.splitlines(), start=1):
        if number in lines:
            wanted[number] = line[:_EXCERPT_WIDTH]
        if number >= last:
            break
    return wanted


def from_report(path: str, report: Report, data: bytes | None) -> FileResult:
    """A :class:`FileResult` for a pack that could be read."""
    findings = tuple(Finding(v.pointer, v.code, v.message, v.line, v.column) for v in report.violations)
    lines = {f.line for f in findings if f.line is not None}
    return FileResult(path, report.valid, report.version, findings, excerpts=_excerpts(data, lines))


def from_error(path: str, error: DocumentError, data: bytes | None = None) -> FileResult:
    """A :class:`FileResult` for an input that could not be read as a pack."""
    finding = Finding("", error.code, error.message, error.line, error.column)
    lines = {error.line} if error.line is not None else set()
    return FileResult(
        path, valid=False, version=None, findings=(finding,), readable=False, excerpts=_excerpts(data, lines)
    )


def check_file(path: str, max_bytes: int, stdin: bytes | None = None) -> FileResult:
    """Validate one file (or the bytes read from stdin); never raises for bad input."""
    data: bytes | None = None
    try:
        data = stdin if path == STDIN and stdin is not None else read_file(path, max_bytes)
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


def render(results: Sequence[FileResult], fmt: str, *, color: bool = False) -> str:
    """All results in one output format."""
    if fmt == "json":
        return _json(results)
    if fmt == "sarif":
        return _sarif(results)
    if fmt == "github":
        return _github(results)
    return _text(results, color=color)


def _json(results: Sequence[FileResult]) -> str:
    files = [
        {
            "path": r.path,
            "valid": r.valid,
            "version": r.version,
            "errors": [f.to_dict(severity=r.linted) for f in r.findings],
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
            where = f"{result.path}:{f.line or 1}:{f.column or 1}:"
            style = "red" if f.severity == "error" else "yellow"
            out.append(f"{_paint(where, 'bold', color=color)} {_paint(f.code, style, color=color)} {f.message}")
            if f.pointer:
                out.append(f"  {_paint('at ' + f.pointer, 'dim', color=color)}")
            excerpt = result.excerpts.get(f.line) if f.line is not None else None
            if excerpt is not None and f.line is not None:
                gutter = str(f.line)
                pad = " " * len(gutter)
                caret_at = max((f.column or 1) - 1, 0)
                shown = excerpt.expandtabs(1)
                out.append(f"  {pad} |")
                out.append(f"  {gutter} | {shown}")
                if caret_at <= len(shown):
                    out.append(f"  {pad} | {' ' * caret_at}{_paint('^', style, color=color)}")
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
        parts = [f"{valid} clean", f"{len(invalid)} with problems"]
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
    from creatorpack.linter import contract_findings, lint  # noqa: PLC0415 - lint loads the runtime

    data: bytes | None = None
    try:
        data = stdin if path == STDIN and stdin is not None else read_file(path, max_bytes)
        report = lint(data, config, validator=_validator(max_bytes))
    except DocumentError as exc:
        return from_error(path, exc, data)
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
            excerpts=_excerpts(data, {f.line for f in findings if f.line}),
            linted=True,
        )
    findings = tuple(Finding(f.pointer, f.code, f.message, f.line, f.column, f.severity) for f in report.findings)
    counts = [f for f in findings if f.severity == "error" or strict]
    lines = {f.line for f in findings if f.line is not None}
    return FileResult(path, not counts, report.contract.version, findings, excerpts=_excerpts(data, lines), linted=True)


def _sarif(results: Sequence[FileResult]) -> str:
    rules: dict[str, dict[str, Any]] = {}
    sarif_results: list[dict[str, Any]] = []
    for result in results:
        for f in result.findings:
            rules.setdefault(f.code, {"id": f.code, "shortDescription": {"text": f.code.replace("-", " ")}})
            region: dict[str, int] = {}
            if f.line is not None:
                region = {"startLine": f.line, "startColumn": f.column or 1}
            physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(result.path)}}
            if region:
                physical["region"] = region
            sarif_results.append(
                {
                    "ruleId": f.code,
                    "level": "error" if f.severity == "error" else "warning",
                    "message": {"text": f.message},
                    "locations": [
                        {
                            "physicalLocation": physical,
                            "logicalLocations": [{"fullyQualifiedName": f.pointer or "/", "kind": "member"}],
                        }
                    ],
                }
            )
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "creatorpack", "version": __version__, "rules": list(rules.values())}},
                "results": sarif_results,
            }
        ],
    }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"


def _uri(path: str) -> str:
    if path == STDIN:
        return "stdin"
    return Path(path).as_posix()


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _github(results: Sequence[FileResult]) -> str:
    out: list[str] = []
    for result in results:
        for f in result.findings:
            props = [f"file={_escape_property(result.path)}"]
            if f.line is not None:
                props += [f"line={f.line}", f"col={f.column or 1}"]
            props.append(f"title={_escape_property(f.code)}")
            level = "error" if f.severity == "error" else "warning"
            where = f" at {f.pointer}" if f.pointer else ""
            out.append(f"::{level} {','.join(props)}::{_escape_data(f.message + where)}")
    out.append(_summary(results))
    return "\n".join(out) + "\n"


def is_terminal(stream: Any = None) -> bool:
    """Whether a stream (stderr by default) is an interactive terminal."""
    target = stream if stream is not None else sys.stderr
    isatty = getattr(target, "isatty", None)
    return bool(isatty and isatty())
