"""``POST /v1/validate`` and ``POST /v1/lint``: a pack in, the CLI's JSON report out, nothing stored."""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from creatorpack.service.api.deps import PROBLEM_RESPONSES, cpu_bound, json_response, read_json_body, services
from creatorpack.service.forms import LintReport, Report

__all__ = ["PACK_BODY", "lint", "router", "validate"]

router = APIRouter(prefix="/v1", tags=["checks"])

PACK_BODY: Final[dict[str, Any]] = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"type": "object", "description": "A creator pack (any version)"}}},
    }
}
_ERRORS: Final[dict[int | str, dict[str, Any]]] = {k: PROBLEM_RESPONSES[k] for k in (400, 413, 415)}


@router.post("/validate", response_model=Report, responses=_ERRORS, openapi_extra=PACK_BODY)
async def validate(request: Request) -> Response:
    """Validate a pack against the contract version it declares (``creatorpack validate --format json``)."""
    body = await read_json_body(request)
    return json_response(await cpu_bound(request, services(request).packs.validate, body, size=len(body)))


@router.post("/lint", response_model=LintReport, responses=_ERRORS, openapi_extra=PACK_BODY)
async def lint(
    request: Request, *, strict: Annotated[bool, Query(description="Warnings count too")] = False
) -> Response:
    """Lint a pack (``creatorpack lint --format json``); ``valid`` is false when an error (or, strict, any) is found."""
    body = await read_json_body(request)
    report = await cpu_bound(request, lambda: services(request).packs.lint(body, strict=strict))
    return json_response(report)
