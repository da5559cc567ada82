"""Play sessions: start, turn, read, transcript, migrate, assets; and the semantic diff of two revisions.

Any valid token may call these routes; the domain (:mod:`creatorpack.service.sessions`) decides what
it may do and what it sees (a reader token: the reader view only). Other accounts' sessions are 404.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from anyio import to_thread
from fastapi import APIRouter, Depends, Header, Path, Query, Request
from starlette.responses import Response

from creatorpack.play import Turn
from creatorpack.service.api.assets import file_response, file_responses, is_head
from creatorpack.service.api.deps import (
    DIGITS,
    PROBLEM_RESPONSES,
    authenticated,
    json_response,
    read_request,
    request_body,
    require,
    services,
)
from creatorpack.service.api.packs import ID_PATTERN, MAX_REVISION, PackId
from creatorpack.service.api.schemas import MigrateRequest, StartRequest, TurnRequest
from creatorpack.service.forms import NarratorTurn, PackDiff, ReaderTurn
from creatorpack.service.ports import TokenRecord
from creatorpack.service.sessions import (
    NarratorSession,
    NarratorTranscript,
    ReaderSession,
    ReaderTranscript,
)

__all__ = ["asset", "migrate", "pack_diff", "read", "router", "start", "transcript", "turn"]

router = APIRouter(prefix="/v1", tags=["sessions"])

SessionId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$", description="The id a session was started with")]
AssetId = Annotated[str, Path(pattern=ID_PATTERN, max_length=80, description="An asset id of the session's pack")]
Player = Annotated[TokenRecord, Depends(authenticated)]
Creator = Annotated[TokenRecord, Depends(require("creator"))]


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: PROBLEM_RESPONSES[code] for code in codes}


_SESSION_ERRORS: Final = _errors(400, 401, 404)
_PLAY_ERRORS: Final = {
    **_errors(400, 401, 404, 413, 415),
    409: {
        **PROBLEM_RESPONSES[409],
        "description": (
            "Not the next turn (turn-conflict); after the end (session-over); "
            "the session's revision was deleted (revision-conflict)"
        ),
    },
    422: {**PROBLEM_RESPONSES[422], "description": "The observations do not fit the pack (invalid-turn)"},
}


@router.post(
    "/packs/{pack_id}/sessions",
    status_code=201,
    response_model=NarratorSession | ReaderSession,
    response_description="The session at its start, as the caller may see it",
    responses={
        **_errors(400, 401, 404, 413, 415),
        422: {**PROBLEM_RESPONSES[422], "description": "No such entry, or it cannot start (not-playable)"},
    },
    openapi_extra=request_body(StartRequest, required=False),
)
async def start(request: Request, pack_id: PackId, token: Player) -> Response:
    """Start a session (reader, host or the owner; the owner may pick any revision): 201 with its start."""
    asked = await read_request(request, StartRequest, empty_ok=True)
    sessions = services(request).sessions
    view = await to_thread.run_sync(lambda: sessions.start(token, pack_id, entry=asked.entry, revision=asked.revision))
    return json_response(view, 201, {"Location": f"/v1/sessions/{view.session_id}"})


@router.post(
    "/sessions/{session_id}/turns",
    response_model=NarratorTurn | ReaderTurn,
    response_description="The turn as the caller may see it",
    responses=_PLAY_ERRORS,
    openapi_extra=request_body(TurnRequest),
)
async def turn(request: Request, session_id: SessionId, token: Player) -> Response:
    """Play turn N (the next one; the last one again with the same body is answered as before)."""
    asked = await read_request(request, TurnRequest)
    played = Turn(asked.observations, tuple(asked.illustration_matches))
    sessions = services(request).sessions
    view = await to_thread.run_sync(sessions.turn, token, session_id, asked.turn, played)
    return json_response(view.to_json())


@router.get(
    "/sessions/{session_id}",
    response_model=NarratorSession | ReaderSession,
    response_description="The session as the caller may see it",
    responses=_SESSION_ERRORS,
)
def read(request: Request, session_id: SessionId, token: Player) -> Response:
    """The session where it is now, with its last turn as the caller may see it."""
    return json_response(services(request).sessions.read(token, session_id))


@router.get(
    "/sessions/{session_id}/transcript",
    response_model=NarratorTranscript | ReaderTranscript,
    response_description="Every start, turn and migration, as the caller may see it",
    responses=_SESSION_ERRORS,
)
def transcript(request: Request, session_id: SessionId, token: Player) -> Response:
    """Every event of the session (its start, turns and migrations) as the caller may see it."""
    return json_response(services(request).sessions.transcript(token, session_id))


@router.post(
    "/sessions/{session_id}/migrate",
    response_model=NarratorSession | ReaderSession,
    response_description="The session on the new revision",
    responses={
        **_errors(400, 401, 404, 413, 415),
        409: {**PROBLEM_RESPONSES[409], "description": "A saved value no longer fits (migration-conflict)"},
    },
    openapi_extra=request_body(MigrateRequest),
)
async def migrate(request: Request, session_id: SessionId, token: Player) -> Response:
    """Move the session to another revision by the diff's plan, or 409 naming what no longer fits."""
    asked = await read_request(request, MigrateRequest)
    sessions = services(request).sessions
    view = await to_thread.run_sync(sessions.migrate, token, session_id, asked.revision)
    return json_response(view)


@router.get(
    "/sessions/{session_id}/assets/{asset_id}",
    responses=file_responses(_SESSION_ERRORS),
    response_class=Response,  # not JSON: the file, of its own media type
)
def asset(
    request: Request,
    session_id: SessionId,
    asset_id: AssetId,
    token: Player,
    range_: Annotated[str | None, Header(alias="range")] = None,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    """An asset's file, only once it is in the session's reachable set (a ``reward_only`` one after its reward).

    Its type is the uploaded file's (sniffed); audio and video come in byte ranges (206) when asked.
    """
    reached = services(request).sessions.asset(token, session_id, asset_id)
    assets = services(request).assets
    found = assets.session_file(reached.asset_id, reached.sha256)
    return file_response(assets, found, "private, immutable", range_, if_none_match, head=is_head(request))


@router.get("/packs/{pack_id}/diff", response_model=PackDiff, responses=_errors(400, 401, 403, 404))
def pack_diff(
    request: Request,
    pack_id: PackId,
    token: Creator,
    old: Annotated[int, Query(alias="from", ge=1, le=MAX_REVISION, description="The old revision"), DIGITS],
    new: Annotated[int, Query(alias="to", ge=1, le=MAX_REVISION, description="The new revision"), DIGITS],
) -> Response:
    """The semantic diff of two revisions and their save compatibility (``creatorpack diff --format json``)."""
    return json_response(services(request).sessions.diff(token.account, pack_id, old, new))
