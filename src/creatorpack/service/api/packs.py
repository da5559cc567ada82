"""Packs and revisions: upload, list, read and delete (owner only; others get 404)."""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Header, Path, Request
from starlette.responses import Response

from creatorpack.service.api.checks import PACK_BODY
from creatorpack.service.api.deps import (
    DIGITS,
    PROBLEM_RESPONSES,
    cpu_bound,
    json_response,
    read_json_body,
    require,
    services,
)
from creatorpack.service.api.schemas import Pack, Revision
from creatorpack.service.ports import PackRecord, RevisionRecord, TokenRecord

__all__ = ["delete", "pack", "revision", "router", "upload"]

router = APIRouter(prefix="/v1/packs", tags=["packs"])

ID_PATTERN: Final = r"^[A-Za-z][A-Za-z0-9_.-]{0,79}$"
MAX_REVISION: Final = 9_007_199_254_740_991
PackId = Annotated[str, Path(pattern=ID_PATTERN, max_length=80, description="manifest.pack_id")]
RevisionNumber = Annotated[int, Path(ge=1, le=MAX_REVISION, description="manifest.revision"), DIGITS]
Creator = Annotated[TokenRecord, Depends(require("creator"))]
_AUTH_ERRORS: Final[dict[int | str, dict[str, Any]]] = {k: PROBLEM_RESPONSES[k] for k in (401, 403, 404)}


def _location(record: RevisionRecord) -> str:
    return f"/v1/packs/{record.pack_id}/revisions/{record.revision}"


@router.post(
    "",
    status_code=201,
    response_model=Revision,
    responses={
        200: {"model": Revision, "description": "The same bytes were already stored"},
        **{k: v for k, v in PROBLEM_RESPONSES.items() if k != 404},  # a pack of another account is 409 pack-id-taken
    },
    openapi_extra=PACK_BODY,
)
async def upload(request: Request, token: Creator) -> Response:
    """Store the pack as revision ``manifest.revision`` of ``manifest.pack_id`` (same bytes again: 200)."""
    body = await read_json_body(request)
    packs = services(request).packs

    def store() -> tuple[RevisionRecord, PackRecord | None, bool]:
        done = packs.submit(token.account, body, token_id=token.id, allowed=token.may_act_on)
        # A retry of a stored revision says whether it is the published one, as the pack's own read does.
        record = None if done.created else packs.pack(token.account, done.revision.pack_id)
        return done.revision, record, done.created

    revision, record, created = await cpu_bound(request, store, size=len(body), lane="uploads")
    headers = {"Location": _location(revision), "ETag": f'"{revision.sha256}"'}
    return json_response(Revision.of(revision, record), 201 if created else 200, headers)


@router.get("/{pack_id}", response_model=Pack, responses={400: PROBLEM_RESPONSES[400], **_AUTH_ERRORS})
def pack(request: Request, pack_id: PackId, token: Creator) -> Response:
    """The pack's live revisions, its published revision and its visibility."""
    return json_response(Pack.of(services(request).packs.pack(token.account, pack_id)))


@router.get(
    "/{pack_id}/revisions/{revision}",
    responses={
        200: {"description": "The stored bytes", "content": {"application/json": {"schema": {"type": "object"}}}},
        304: {"description": "Not modified (If-None-Match matched the ETag)"},
        400: PROBLEM_RESPONSES[400],
        **_AUTH_ERRORS,
    },
)
def revision(
    request: Request,
    pack_id: PackId,
    revision: RevisionNumber,
    token: Creator,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    """The revision's bytes exactly as uploaded; ``If-None-Match`` with its ETag gives 304."""
    record, data = services(request).packs.revision(token.account, pack_id, revision)
    headers = {"ETag": f'"{record.sha256}"', "Cache-Control": "private, immutable"}
    if if_none_match is not None and _matches(if_none_match, record.sha256):
        return Response(status_code=304, headers=headers)
    return Response(data, 200, headers=headers, media_type="application/json")


@router.delete(
    "/{pack_id}/revisions/{revision}",
    status_code=204,
    responses={400: PROBLEM_RESPONSES[400], 409: PROBLEM_RESPONSES[409], **_AUTH_ERRORS},
)
def delete(request: Request, pack_id: PackId, revision: RevisionNumber, token: Creator) -> Response:
    """Delete an unpublished revision; its number is never reused."""
    services(request).packs.delete(token.account, pack_id, revision, token_id=token.id)
    return Response(status_code=204)


def _matches(header: str, sha256: str) -> bool:
    tags = [t.strip().removeprefix("W/").strip('"') for t in header.split(",")]
    return "*" in tags or sha256 in tags
