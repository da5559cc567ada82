"""Publishing and the audit journal (owner only; other accounts get 404)."""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from creatorpack.service.api.deps import (
    DIGITS,
    PROBLEM_RESPONSES,
    PUBLISH_RESPONSES,
    cpu_bound,
    json_response,
    read_request,
    request_body,
    services,
)
from creatorpack.service.api.packs import Creator, PackId
from creatorpack.service.api.schemas import Event, Events, PublishRequest
from creatorpack.service.packs import Published
from creatorpack.service.ports import Actor

__all__ = ["events", "publish", "router", "unpublish"]

router = APIRouter(prefix="/v1/packs", tags=["publishing"])

_ERRORS: Final[dict[int | str, dict[str, Any]]] = {k: PROBLEM_RESPONSES[k] for k in (400, 401, 403, 404)}
_BODY_ERRORS: Final[dict[int | str, dict[str, Any]]] = {k: PROBLEM_RESPONSES[k] for k in (413, 415)}


@router.post(
    "/{pack_id}/publish",
    response_model=Published,
    responses={**_ERRORS, **_BODY_ERRORS, **PUBLISH_RESPONSES},
    openapi_extra=request_body(PublishRequest),
)
async def publish(request: Request, pack_id: PackId, token: Creator) -> Response:
    """Lint the revision and, with no error, make it the published one (warnings are returned)."""
    body = await read_request(request, PublishRequest)
    actor = Actor(token.account, token.id)
    try:
        done = await cpu_bound(request, services(request).packs.publish, actor, pack_id, body.revision)
    finally:
        services(request).sessions.forget(pack_id)  # committed (or not changed): made private stops them here now
    return json_response(done)


@router.delete("/{pack_id}/publish", status_code=204, responses=_ERRORS)
def unpublish(request: Request, pack_id: PackId, token: Creator) -> Response:
    """Withdraw the published revision: the pack leaves the catalog and its reader view is gone."""
    try:
        services(request).packs.unpublish(Actor(token.account, token.id), pack_id)
    finally:
        services(request).sessions.forget(pack_id)  # its readers' sessions stop in this process at once
    return Response(status_code=204)


@router.get("/{pack_id}/events", response_model=Events, responses=_ERRORS)
def events(
    request: Request,
    pack_id: PackId,
    token: Creator,
    after: Annotated[int, Query(ge=0, le=2**62, description="Entries after this id"), DIGITS] = 0,
    limit: Annotated[int, Query(ge=1, le=1000), DIGITS] = 100,
) -> Response:
    """The audit journal: every upload, delete, publish and unpublish, with account, token id, time and revision."""
    found = services(request).packs.events(token.account, pack_id, after=after, limit=limit)
    following = found[-1].id if len(found) == limit else None
    return json_response(Events(tuple(Event.of(e) for e in found), following))
