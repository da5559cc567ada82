"""``POST /v1/sessions/{session_id}/narrate``: the operator's model narrates the next turn, as server-sent events.

Events: ``narration`` (``{"delta": "…"}``, the narration as it comes, only text the spoiler guard
passed), then one ``turn`` (``{"narration", "turn", "narrator_report"?}``: the whole narration as
the guard left it and the turn as the caller may see it) — or one ``error`` (a problem object) if
the narration fails once streaming began. Failures before the first event are ordinary problem
responses: 503 ``narrator-unavailable`` (no model configured, or its server failed), 409, 404, 429.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Annotated, Any, Final, Literal

import orjson
from anyio import to_thread
from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.responses import Response, StreamingResponse

from creatorpack.service.api.deps import PROBLEM_RESPONSES, authenticated, read_request, request_body, services
from creatorpack.service.api.errors import PROBLEMS, problem_response
from creatorpack.service.api.sessions import SessionId
from creatorpack.service.errors import ProblemError
from creatorpack.service.narration import NarrationJob, NarrationOutcome
from creatorpack.service.ports import TokenRecord

__all__ = ["MAX_INPUT", "NarrateRequest", "narrate", "narration_stream", "router"]

router = APIRouter(prefix="/v1", tags=["sessions"])
_log: Final = logging.getLogger("creatorpack.service")
MAX_INPUT: Final = 4000
Player = Annotated[TokenRecord, Depends(authenticated)]
_Kind = Literal["delta", "done", "error"]


class NarrateRequest(BaseModel):
    """The turn to narrate (the next one, as for turns) and what the reader does."""

    model_config = ConfigDict(extra="forbid")

    turn: int = Field(ge=1, le=1_000_000_000, strict=True)
    input: str = Field(min_length=1, max_length=MAX_INPUT, description="What the reader says or does")

    @field_validator("input")
    @classmethod
    def _text(cls, value: str) -> str:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("the input must be text (no lone surrogates)") from None
        if not value.strip() or "\x00" in value:
            raise ValueError("the input must have some text and no NUL")
        return value


def _event(name: str, data: Any) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


def _problem(exc: BaseException, path: str) -> dict[str, Any]:
    name = exc.problem if isinstance(exc, ProblemError) else "internal-error"
    kind = PROBLEMS[name]
    detail = exc.message if isinstance(exc, ProblemError) else "the narration failed; the server log says more"
    return {"type": kind.uri, "title": kind.title, "status": kind.status, "detail": detail, "instance": path}


@router.post(
    "/sessions/{session_id}/narrate",
    response_class=StreamingResponse,
    responses={
        200: {"description": "narration events, then the turn", "content": {"text/event-stream": {}}},
        **{code: PROBLEM_RESPONSES[code] for code in (400, 401, 404, 409, 413, 415)},
        503: {
            "description": "No narrator configured, or its model server failed (narrator-unavailable)",
            "content": PROBLEM_RESPONSES[404]["content"],
        },
    },
    openapi_extra=request_body(NarrateRequest),
)
async def narrate(request: Request, session_id: SessionId, token: Player) -> Response:
    """Narrate the next turn with the operator's model and play it with the model's answers (retry-safe)."""
    body = await read_request(request, NarrateRequest)
    wired = services(request)
    limit = wired.settings.rate_narrate
    if limit.enabled:
        decision = await request.app.state.limiter.hit(f"narrate:{token.account}", limit)
        if not decision.allowed:
            return problem_response(
                "rate-limited",
                f"at most {limit.requests} narrated turns per {limit.seconds} s; retry in {decision.reset} s",
                instance=request.url.path,
                headers={"Retry-After": str(decision.reset)},
            )
    found = await to_thread.run_sync(wired.narration.begin, token, session_id, body.turn, body.input)
    return await narration_stream(request, found)


async def narration_stream(request: Request, found: NarrationOutcome | NarrationJob) -> StreamingResponse:
    """The events of a narrated turn: a stored one at once, or a job run in a thread as it streams.

    A job's failure before its first event is raised here (the caller's handlers answer it as a problem).
    The web playtest streams its narrations through this too.
    """
    if isinstance(found, NarrationOutcome):
        return _stream(request, _once(found))
    return _stream(request, await _started(request, found))


async def _once(outcome: NarrationOutcome) -> AsyncIterator[bytes]:
    yield _event("turn", outcome.to_json())


async def _started(request: Request, job: NarrationJob) -> AsyncIterator[bytes]:
    """Run the job in a thread; wait for its first event, so that a failure before any text is a plain problem."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[_Kind, Any]] = asyncio.Queue()

    def put(kind: _Kind, value: Any) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, (kind, value))

    def work() -> None:
        try:
            put("done", job.run(lambda delta: put("delta", delta)))
        except Exception as exc:  # noqa: BLE001 - every failure reaches the caller, as a problem or an event
            put("error", exc)

    worker = asyncio.ensure_future(to_thread.run_sync(work))
    first = await queue.get()
    if first[0] == "error":
        await worker
        raise first[1]  # nothing sent yet: the app's handlers answer it (a ServiceError's problem, else a logged 500)

    async def events() -> AsyncIterator[bytes]:
        item = first
        while True:
            kind, value = item
            if kind == "delta":
                yield _event("narration", {"delta": value})
            elif kind == "done":
                yield _event("turn", value.to_json())
                break
            else:
                if not isinstance(value, ProblemError):
                    _log.error("narration failed after it began streaming", exc_info=value)
                yield _event("error", _problem(value, request.url.path))
                break
            item = await queue.get()
        await worker

    return events()


def _stream(request: Request, events: AsyncIterator[bytes]) -> StreamingResponse:
    del request
    return StreamingResponse(events, media_type="text/event-stream", headers={"Cache-Control": "no-store"})
