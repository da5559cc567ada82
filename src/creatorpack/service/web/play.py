"""``/play/{pack_id}``: start a session; ``/play/session/{id}``: play it turn by turn, undo, restart.

A signed-in token plays, with the rules of the API's session routes (``Sessions``): the owner (and
host or admin tokens) get the narrator's view, with the narrator panel (instructions, guidance,
content, the state with this turn's changes) and the turn form (the observations' questions and
the illustration rules to tick); everybody else gets the reader view and nothing more, so a
reader's turn form has no question (a reader is never shown an observation).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import quote

import orjson
from fastapi import APIRouter, Request
from starlette.responses import Response

from creatorpack.play import Turn
from creatorpack.service.api.narration import MAX_INPUT, narration_stream
from creatorpack.service.api.packs import ID_PATTERN
from creatorpack.service.errors import NotFoundError
from creatorpack.service.narration import NarrationJob
from creatorpack.service.ports import TokenRecord
from creatorpack.service.sessions import NarratorSession, Prompts, SessionView
from creatorpack.service.web.pages import Form, PageError, call, guarded, read_form, redirect, render, services_of

__all__ = [
    "changed_members",
    "narrate",
    "restart",
    "router",
    "session_page",
    "start",
    "start_form",
    "turn",
    "turn_from",
    "undo",
]

router = APIRouter(include_in_schema=False)

_ID: Final = re.compile(ID_PATTERN)
_SESSION: Final = re.compile(r"[0-9a-f]{32}")
_FORM_BYTES: Final = 64 * 1024


async def _player(request: Request) -> TokenRecord | None:
    from creatorpack.service.web.pages import signed_in  # noqa: PLC0415

    me: TokenRecord | None = await call(signed_in, request)
    return me


def _pack_id(pack_id: str) -> str:
    if _ID.fullmatch(pack_id) is None:
        raise NotFoundError(f"no pack {pack_id!r}")
    return pack_id


def _session_id(session_id: str) -> str:
    if _SESSION.fullmatch(session_id) is None:
        raise NotFoundError(f"no session {session_id!r}")
    return session_id


@router.get("/play/{pack_id}")
@guarded
async def start_form(request: Request, pack_id: str) -> Response:
    """Choose where to begin (and, for the owner, which revision); sign in first."""
    me = await _player(request)
    if me is None:
        return render(request, "play_signin.html", pack_id=_pack_id(pack_id))
    domain = services_of(request)
    view: dict[str, Any] | None = None
    try:
        view = orjson.loads((await call(domain.packs.reader, me.account, _pack_id(pack_id))).data)
    except NotFoundError:
        view = None  # the owner may playtest a pack not published yet
    revisions: list[int] = []
    record = await call(domain.packs.record, pack_id)
    if record is not None and record.owner == me.account:
        revisions = [r.revision for r in reversed(record.revisions) if r.deleted is None]
    if view is None and not revisions:
        raise NotFoundError(f"no published pack {pack_id!r}")
    entry = request.query_params.get("entry", "")
    return render(request, "play_start.html", me=me, pack_id=pack_id, view=view, revisions=revisions, entry=entry)


@router.post("/play/{pack_id}")
@guarded
async def start(request: Request, pack_id: str) -> Response:
    """Start a session and go to it."""
    me = await _player(request)
    form = await read_form(request, _FORM_BYTES)
    if me is None:
        raise PageError(401, "sign in to play")
    entry = form.get("entry") or None
    revision_text = form.get("revision")
    revision = int(revision_text) if revision_text.isdigit() and len(revision_text) < 16 else None
    sessions = services_of(request).sessions
    begun = await call(lambda: sessions.start(me, _pack_id(pack_id), entry=entry, revision=revision))
    return redirect(f"/play/session/{begun.session_id}")


def changed_members(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> frozenset[str]:
    """The state's top-level members whose value this turn changed (all of them at the start)."""
    if before is None:
        return frozenset()
    return frozenset(k for k in after if before.get(k) != after.get(k)) | frozenset(k for k in before if k not in after)


def _names(view: Mapping[str, Any] | None) -> dict[str, dict[str, str]]:
    """Display names of the reader view's ids that the publication's reader view holds."""
    if view is None:
        return {"cards": {}, "achievements": {}, "badges": {}}
    return {
        "cards": {c["id"]: c["display_name"] for c in view.get("reader_cards", [])},
        "achievements": {a["id"]: a["title"] for a in view.get("achievements", [])},
        "badges": {b["id"]: b["title"] for b in view.get("badges", [])},
    }


@router.get("/play/session/{session_id}")
@guarded
async def session_page(request: Request, session_id: str) -> Response:
    """The session as the caller may see it, with what the last turn changed and the next turn's form."""
    me = await _player(request)
    if me is None:
        return redirect(f"/signin?next={quote('/play/session/' + _session_id(session_id))}")
    sessions = services_of(request).sessions
    found: SessionView = await call(sessions.read, me, _session_id(session_id))
    prompts: Prompts | None = await call(sessions.prompts, me, session_id)
    current = found.to_json()
    entries = (await call(sessions.transcript, me, session_id)).to_json()["entries"]
    before = None
    if isinstance(found, NarratorSession) and len(entries) >= 2:
        before = entries[-2].get("result", {}).get("state")
    try:
        publication = orjson.loads((await call(services_of(request).packs.reader, me.account, found.pack_id)).data)
    except NotFoundError:
        publication = None
    narrator = isinstance(found, NarratorSession)
    story = [told for entry in entries if (told := _told(entry)) is not None]
    shown = current["current"]
    state = shown.get("state", {}) if narrator else {}
    return render(
        request,
        "play_session.html",
        me=me,
        session=current,
        shown=shown,
        narrator=narrator,
        prompts=prompts,
        state=state,
        changed=changed_members(before, state) if narrator else frozenset(),
        state_json={k: orjson.dumps(v).decode() for k, v in state.items()},
        names=_names(publication),
        title=publication["title"] if publication else found.pack_id,
        story=story,
        can_narrate=services_of(request).narration.available,
    )


def _told(entry: Mapping[str, Any]) -> dict[str, str] | None:
    """A narrated turn of the transcript as the page tells it: the reader's line (hosts' view) and the narration."""
    request = entry.get("request") or {}
    narration = entry.get("narration", request.get("narration"))
    if not isinstance(narration, str):
        return None
    said = request.get("input")
    return {"input": said if isinstance(said, str) else "", "narration": narration}


def turn_from(form: Form, prompts: Prompts | None) -> Turn:
    """The turn the form asks for: the answered observations and ticked illustration rules (narrator only)."""
    if prompts is None:
        return Turn()
    observations: dict[str, bool | str] = {}
    for observation in prompts.observations:
        ident = str(observation.get("id", ""))
        value = form.get(f"obs.{ident}")
        if not value:
            continue
        if observation.get("type") == "boolean":
            observations[ident] = value == "true"
        else:
            observations[ident] = value
    known = {rule["id"] for rule in prompts.illustration_rules}
    return Turn(observations, tuple(r for r in form.all("ill") if r in known))


@router.post("/play/session/{session_id}/turn")
@guarded
async def turn(request: Request, session_id: str) -> Response:
    """Play the next turn and show the session again."""
    me = await _player(request)
    form = await read_form(request, _FORM_BYTES)
    if me is None:
        raise PageError(401, "sign in to play")
    sessions = services_of(request).sessions
    prompts = await call(sessions.prompts, me, _session_id(session_id))
    number = form.get("turn")
    if not number.isdigit() or len(number) > 12:
        raise PageError(400, "the form names no turn")
    await call(sessions.turn, me, session_id, int(number), turn_from(form, prompts))
    return redirect(f"/play/session/{session_id}")


@router.post("/play/session/{session_id}/narrate")
@guarded
async def narrate(request: Request, session_id: str) -> Response:
    """Narrate the next turn with the operator's model from what the reader typed, then show the session.

    With ``Accept: text/event-stream`` (the page's script) the narration streams in as the API's
    narrate route sends it; without, the page waits for the whole turn and shows the session again.
    """
    me = await _player(request)
    form = await read_form(request, _FORM_BYTES)
    if me is None:
        raise PageError(401, "sign in to play")
    number, text = form.get("turn"), form.get("input").strip()
    if not number.isdigit() or len(number) > 12:
        raise PageError(400, "the form names no turn")
    if not text or len(text) > MAX_INPUT or "\x00" in text:
        raise PageError(400, f"say what you do in 1 to {MAX_INPUT:,} characters")
    narration = services_of(request).narration
    found = await call(narration.begin, me, _session_id(session_id), int(number), text)
    if "text/event-stream" in request.headers.get("accept", ""):
        return await narration_stream(request, found)
    if isinstance(found, NarrationJob):
        await call(found.run)
    return redirect(f"/play/session/{session_id}")


@router.post("/play/session/{session_id}/undo")
@guarded
async def undo(request: Request, session_id: str) -> Response:
    """Back one turn: a new session with every turn but the last played again."""
    return await _restart(request, session_id, back=1)


@router.post("/play/session/{session_id}/restart")
@guarded
async def restart(request: Request, session_id: str) -> Response:
    """Start over at the same entry."""
    return await _restart(request, session_id, back=None)


async def _restart(request: Request, session_id: str, *, back: int | None) -> Response:
    me = await _player(request)
    await read_form(request, _FORM_BYTES)
    if me is None:
        raise PageError(401, "sign in to play")
    sessions = services_of(request).sessions
    now = await call(sessions.read, me, _session_id(session_id))
    keep = 0 if back is None else max(0, now.turn - back)
    fresh = await call(lambda: sessions.restart(me, session_id, keep=keep))
    return redirect(f"/play/session/{fresh.session_id}")
