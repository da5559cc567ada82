"""``/validate``: check a pasted or uploaded pack, no account needed; ``/validate/schema/{version}.json``.

The report is the linter's (``POST /v1/lint``'s, through :meth:`~creatorpack.service.packs.Packs.lint`):
contract violations for an invalid pack, lint findings for a valid one. The page is bounded
whatever the pack's size: :data:`~creatorpack.service.web.findings.PAGE_SIZE` findings a page and,
of the source, only the lines around them (each cut to a window around its column), or the whole
source when it is short. A report of more than one page is kept (:mod:`~creatorpack.service.web.findings`)
and read a page at a time at ``GET /validate/report/{key}?page=N``: plain links, no script needed.
"""

from __future__ import annotations

import time
from typing import Any, Final

import orjson
from fastapi import APIRouter, Request
from starlette.responses import Response

from creatorpack.contract import schema
from creatorpack.service.api.deps import cpu_bound
from creatorpack.service.api.security import PAGE_HEADERS
from creatorpack.service.errors import NotFoundError, UnreadablePackError
from creatorpack.service.web.findings import PAGE_SIZE, Kept, keep, kept, report_of
from creatorpack.service.web.pages import PageError, call, guarded, read_form, render, services_of

__all__ = ["report_page", "router", "schema_file", "validate", "validator"]

router = APIRouter(include_in_schema=False)

_MAX_PAGE: Final = 1_000_000


@router.get("/validate")
@guarded
async def validator(request: Request) -> Response:
    """The empty form."""
    return render(request, "validate.html", report=None, versions=schema.SUPPORTED_VERSIONS, page_size=PAGE_SIZE)


@router.post("/validate")
@guarded
async def validate(request: Request) -> Response:
    """Check the uploaded file, else the pasted text; the report's first page, the rest kept to page through."""
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
    name = uploaded[0] if uploaded is not None else ""
    found = await call(report_of, report, body, name)
    key = await call(keep, request.app.state.blobs, found) if found.pages > 1 else None
    pasted = form.get("pack") if len(body) <= 256 * 1024 and uploaded is None else ""
    return _report(request, found, key, 1, pasted)


@router.get("/validate/report/{key}")
@guarded
async def report_page(request: Request, key: str) -> Response:
    """A page of a kept report (``?page=N``): its findings and the source lines around them."""
    try:
        number = int(request.query_params.get("page", "1"))
    except ValueError:
        raise PageError(400, "page is a page number: 1, 2, ...") from None
    found = await call(kept, request.app.state.blobs, key, time.time())
    if found is None:
        raise PageError(404, "this report is not kept (any more): validate the pack again")
    if not 1 <= number <= min(found.pages, _MAX_PAGE):
        raise PageError(404, f"this report has pages 1 to {found.pages}")
    return _report(request, found, key, number, "")


def _report(request: Request, found: Kept, key: str | None, number: int, pasted: str) -> Response:
    shown = found.page(number)
    first = (number - 1) * PAGE_SIZE + 1

    def link(to: int) -> str | None:
        return f"/validate/report/{key}?page={to}" if key is not None and 1 <= to <= found.pages else None

    paging: dict[str, Any] = {
        "number": number,
        "pages": found.pages,
        "first": first,
        "last": first + len(shown) - 1,
        "count": len(found.findings),
        "previous": link(number - 1),
        "next": link(number + 1),
        "first_page": link(1) if number > 1 else None,
        "last_page": link(found.pages) if number < found.pages else None,
    }
    return render(
        request,
        "validate.html",
        report={"valid": found.valid, "version": found.version, "errors": found.errors},
        findings=shown,
        paging=paging,
        source=found.excerpt(shown),
        name=found.name,
        pasted=pasted,
        versions=schema.SUPPORTED_VERSIONS,
        page_size=PAGE_SIZE,
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
