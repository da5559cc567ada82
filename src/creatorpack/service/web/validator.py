"""``/validate``: check a pasted or uploaded pack, no account needed; ``/validate/schema/{version}.json``.

The report is the linter's (``POST /v1/lint``'s, through :meth:`~creatorpack.service.packs.Packs.lint`):
contract violations for an invalid pack, lint findings for a valid one. The page is bounded
whatever the pack's size: at most :data:`MAX_FINDINGS` findings, and of the source only the lines
around them (each cut to a window around its column), or the whole source when it is short.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson
from fastapi import APIRouter, Request
from starlette.responses import Response

from creatorpack.contract import schema
from creatorpack.service.api.deps import cpu_bound
from creatorpack.service.api.security import PAGE_HEADERS
from creatorpack.service.errors import NotFoundError, UnreadablePackError
from creatorpack.service.web.pages import PageError, guarded, read_form, render, services_of

__all__ = [
    "MAX_FINDINGS",
    "MAX_SOURCE_LINES",
    "Excerpt",
    "Line",
    "excerpt",
    "router",
    "schema_file",
    "validate",
    "validator",
]

router = APIRouter(include_in_schema=False)

MAX_FINDINGS: Final = 200
"""Findings shown on the page (the others are counted)."""
MAX_SOURCE_LINES: Final = 600
"""Lines of source shown at most: the whole source when it is no longer, else the lines around findings."""
CONTEXT: Final = 2
"""Lines shown before and after each finding's line."""
LINE_CHARS: Final = 240
"""Characters of a line shown at most (a window around the finding's column)."""
_DID_YOU_MEAN: Final = re.compile(r"did you mean '([^']{1,200})'")


@dataclass(frozen=True, slots=True)
class Line:
    """One shown line of source: its number, its (possibly cut) text, whether a finding points at it."""

    number: int
    text: str
    marked: bool
    gap_before: bool


@dataclass(frozen=True, slots=True)
class Excerpt:
    """What the page shows of the source: some lines, and how many there are in all."""

    lines: tuple[Line, ...]
    total: int
    whole: bool


def _cut(text: str, column: int | None) -> str:
    if len(text) <= LINE_CHARS:
        return text
    start = max(0, (column or 1) - 1 - LINE_CHARS // 2)
    start = min(start, len(text) - LINE_CHARS)
    shown = text[start : start + LINE_CHARS]
    return ("…" if start > 0 else "") + shown + ("…" if start + LINE_CHARS < len(text) else "")


def excerpt(source: str, findings: Sequence[Mapping[str, Any]]) -> Excerpt:
    """The lines of ``source`` to show for ``findings`` (1-based ``line`` and ``column``), bounded."""
    lines = source.split("\n")
    total = len(lines)
    columns: dict[int, int | None] = {}
    for finding in findings:
        line = finding.get("line")
        if isinstance(line, int) and 1 <= line <= total:
            columns.setdefault(line, finding.get("column") if isinstance(finding.get("column"), int) else None)
    if total <= MAX_SOURCE_LINES:
        wanted = list(range(1, total + 1))
    else:
        chosen: set[int] = set()
        for line in sorted(columns):
            chosen.update(range(max(1, line - CONTEXT), min(total, line + CONTEXT) + 1))
            if len(chosen) >= MAX_SOURCE_LINES:
                break
        wanted = sorted(chosen)[:MAX_SOURCE_LINES]
    shown = []
    previous = 0
    for number in wanted:
        text = lines[number - 1].rstrip("\r")
        shown.append(Line(number, _cut(text, columns.get(number)), number in columns, number != previous + 1))
        previous = number
    return Excerpt(tuple(shown), total, total <= MAX_SOURCE_LINES)


def _finding(raw: Mapping[str, Any]) -> dict[str, Any]:
    message = str(raw.get("message", ""))
    guess = _DID_YOU_MEAN.search(message)
    return {
        "line": raw.get("line"),
        "column": raw.get("column"),
        "code": str(raw.get("code", "")),
        "message": message,
        "pointer": str(raw.get("pointer", "")),
        "severity": str(raw.get("severity", "error")),
        "fix": guess.group(1) if guess else None,
    }


@router.get("/validate")
@guarded
async def validator(request: Request) -> Response:
    """The empty form."""
    return render(request, "validate.html", report=None, versions=schema.SUPPORTED_VERSIONS)


@router.post("/validate")
@guarded
async def validate(request: Request) -> Response:
    """Check the uploaded file, else the pasted text; the report with the source's marked lines."""
    form = await read_form(request)
    uploaded = form.files.get("file")
    body = uploaded[1] if uploaded is not None and uploaded[1] else form.get("pack").encode("utf-8")
    if not body.strip():
        raise PageError(400, "paste a pack or choose a file")
    packs = services_of(request).packs
    try:
        report = await cpu_bound(request, packs.lint, body, size=len(body))
    except UnreadablePackError as exc:
        report = {"valid": False, "version": None, "errors": exc.errors}
    findings = [_finding(f) for f in report["errors"]]
    findings.sort(key=lambda f: (f["line"] or 0, f["column"] or 0))
    source = body.decode("utf-8", errors="replace")
    shown = excerpt(source, findings[:MAX_FINDINGS])
    errors = sum(1 for f in findings if f["severity"] == "error")
    return render(
        request,
        "validate.html",
        report={"valid": report["valid"], "version": report["version"], "errors": errors},
        findings=findings[:MAX_FINDINGS],
        hidden=max(0, len(findings) - MAX_FINDINGS),
        source=shown,
        name=uploaded[0] if uploaded is not None else "",
        pasted=form.get("pack") if len(body) <= 256 * 1024 and uploaded is None else "",
        versions=schema.SUPPORTED_VERSIONS,
    )


@router.get("/validate/schema/{version}.json")
@guarded
async def schema_file(request: Request, version: str) -> Response:  # noqa: ARG001 - guarded renders errors with it
    """The self-contained JSON Schema of a contract version (``creatorpack schema VERSION``), as a download."""
    if schema.as_version(version) is None:
        raise NotFoundError(f"no contract version {version!r}")
    data = orjson.dumps(schema.bundle(version), option=orjson.OPT_INDENT_2)
    headers = {
        **PAGE_HEADERS,
        "Content-Disposition": f'attachment; filename="creatorpack-{version}.schema.json"',
        "Cache-Control": "public, max-age=3600",
    }
    return Response(data, headers=headers, media_type="application/schema+json")
