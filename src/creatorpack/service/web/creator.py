"""Sign in and out, and ``/creator``: a creator's packs, revisions, uploads, publishing, journal, diffs, assets.

Sign-in takes a token once (a form POST, counted per client IP by the app's limiter) and sets the
signed session cookie of :mod:`~creatorpack.service.web.cookies`; the token itself is not kept.
Every action is a CSRF-checked form that calls the same domain method as its API route, with the
same rules: a ``creator`` (or ``admin``) token, a token limited to packs acts on those only.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any, Final
from urllib.parse import quote

import orjson
from fastapi import APIRouter, Request
from starlette.responses import Response

from creatorpack import InvalidPackError
from creatorpack.service.api.deps import cpu_bound
from creatorpack.service.auth import Auth
from creatorpack.service.errors import ForbiddenError, LintFailedError, NotFoundError
from creatorpack.service.ports import Actor, TokenRecord
from creatorpack.service.settings import RateLimit
from creatorpack.service.shelf import Shelf
from creatorpack.service.web.cookies import SESSION_COOKIE, SESSION_SECONDS, SignedIn
from creatorpack.service.web.pages import (
    PageError,
    call,
    cookies,
    guarded,
    read_form,
    redirect,
    render,
    secure,
    services_of,
    signed_in,
)

__all__ = [
    "SIGN_IN_LIMIT",
    "dashboard",
    "diff",
    "pack",
    "publish",
    "router",
    "sign_in",
    "sign_in_form",
    "sign_out",
    "unpublish",
    "upload",
    "upload_asset",
]

router = APIRouter(include_in_schema=False)

SIGN_IN_LIMIT: Final = RateLimit(10, 60)
"""Sign-in attempts per client IP: 10 a minute (a guessed token is 256 bits; this stops floods)."""
LINTED_REVISIONS: Final = 10
"""Live revisions whose lint status the pack's page shows (the newest ones)."""
_FORM_BYTES: Final = 16 * 1024


def _shelf(request: Request) -> Shelf:
    found: Shelf = request.app.state.shelf
    return found


def _creator(request: Request) -> TokenRecord:
    """The signed-in token, which must hold the creator scope; :class:`PageError` 401 when nobody is signed in."""
    me = signed_in(request)
    if me is None:
        raise PageError(401, "sign in with a creator token first")
    return Auth.require(me, "creator")


def _may_act(me: TokenRecord, pack_id: str) -> None:
    if not me.may_act_on(pack_id):
        raise ForbiddenError(f"this token may not act on pack {pack_id!r}: it is limited to other packs")


def _local(target: str) -> str:
    """Where to go after signing in: a path of this site only (never another origin)."""
    return target if target.startswith("/") and not target.startswith(("//", "/\\")) else "/creator"


@router.get("/signin")
@guarded
async def sign_in_form(request: Request) -> Response:
    """The sign-in form."""
    return render(request, "signin.html", next=_local(request.query_params.get("next", "/creator")), message=None)


@router.post("/signin")
@guarded
async def sign_in(request: Request) -> Response:
    """Check a token (rate-limited per IP) and sign its holder in with a signed, HttpOnly session cookie."""
    client = request.client
    decision = await request.app.state.limiter.hit(f"signin:ip:{client.host if client else 'unknown'}", SIGN_IN_LIMIT)
    if not decision.allowed:
        response = render(
            request, "error.html", 429, status=429, message=f"too many sign-in attempts; retry in {decision.reset} s"
        )
        response.headers["Retry-After"] = str(decision.reset)
        return response
    form = await read_form(request, _FORM_BYTES)
    target = _local(form.get("next", "/creator"))
    token = form.get("token").strip()
    auth = services_of(request).auth
    try:
        record = await call(auth.authenticate, f"Bearer {token}")
    except Exception as exc:  # noqa: BLE001 - every refusal reads the same to the person signing in
        message = str(exc) if str(exc) else "unknown or revoked token"
        return render(request, "signin.html", 401, next=target, message=message)
    value = cookies(request).seal(SignedIn(record.id, record.account, int(time.time())))
    response = redirect(target)
    response.set_cookie(
        SESSION_COOKIE,
        value,
        max_age=SESSION_SECONDS,
        httponly=True,
        secure=secure(request),
        samesite="lax",
        path="/",
    )
    return response


@router.post("/signout")
@guarded
async def sign_out(request: Request) -> Response:
    """Forget the session cookie."""
    await read_form(request, _FORM_BYTES)
    response = redirect("/")
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, secure=secure(request), samesite="lax")
    return response


@router.get("/creator")
@guarded
async def dashboard(request: Request) -> Response:
    """My packs, and the forms to upload a revision or an asset file."""
    me = await call(signed_in, request)
    if me is None:
        return redirect("/signin?next=/creator")
    me = Auth.require(me, "creator")
    packs = await call(_shelf(request).packs_of, me.account)
    shown = [p for p in packs if me.may_act_on(p.pack_id)]
    return render(request, "creator.html", me=me, packs=shown)


@router.post("/creator/upload")
@guarded
async def upload(request: Request) -> Response:
    """Store the uploaded file as a new revision (the API's ``POST /v1/packs``)."""
    me = await call(_creator, request)
    form = await read_form(request)
    uploaded = form.files.get("file")
    if uploaded is None or not uploaded[1]:
        raise PageError(400, "choose a pack file to upload")
    body = uploaded[1]
    packs = services_of(request).packs
    try:
        done = await cpu_bound(
            request,
            lambda: packs.submit(me.account, body, token_id=me.id, allowed=me.may_act_on),
            size=len(body),
            lane="uploads",
        )
    except InvalidPackError as exc:
        findings = [v.to_dict() for v in exc.report.violations]
        return render(
            request,
            "refused.html",
            422,
            title="Upload refused: the pack is not valid",
            findings=findings,
            warnings=[],
            back="/creator",
        )
    revision = done.revision
    return redirect(f"/creator/packs/{quote(revision.pack_id)}?uploaded={revision.revision}")


@router.post("/creator/assets")
@guarded
async def upload_asset(request: Request) -> Response:
    """Store an asset file under its sha256 (the API's ``PUT /v1/assets/{sha256}``)."""
    await call(_creator, request)
    form = await read_form(request)
    uploaded = form.files.get("file")
    if uploaded is None or not uploaded[1]:
        raise PageError(400, "choose a file to upload")
    data = uploaded[1]
    sha256 = hashlib.sha256(data).hexdigest()
    done = await cpu_bound(request, services_of(request).assets.upload, sha256, data)
    return render(request, "asset.html", asset=done.asset, created=done.created, name=uploaded[0])


def _lint_status(report: dict[str, Any]) -> dict[str, int]:
    findings = report.get("errors", [])
    return {
        "errors": sum(1 for f in findings if f.get("severity", "error") == "error"),
        "warnings": sum(1 for f in findings if f.get("severity") == "warning"),
        "others": sum(1 for f in findings if f.get("severity") not in ("error", "warning")),
    }


@router.get("/creator/packs/{pack_id}")
@guarded
async def pack(request: Request, pack_id: str) -> Response:
    """A pack of mine: revisions (with lint status), publishing, the journal, a diff form."""
    me = await call(_creator, request)
    _may_act(me, pack_id)
    packs = services_of(request).packs
    record = await call(packs.pack, me.account, pack_id)
    live = [r for r in record.revisions if r.deleted is None]
    statuses: dict[int, dict[str, int]] = {}
    for revision in live[-LINTED_REVISIONS:]:
        _, data = await call(packs.revision, me.account, pack_id, revision.revision)
        statuses[revision.revision] = _lint_status(await cpu_bound(request, packs.lint, data, size=len(data)))
    events = await call(lambda: packs.events(me.account, pack_id, limit=200))
    return render(
        request,
        "creator_pack.html",
        me=me,
        record=record,
        live=list(reversed(live)),
        statuses=statuses,
        events=list(reversed(events)),
        uploaded=request.query_params.get("uploaded"),
    )


def _revision_number(text: str) -> int:
    if not text.isdigit() or len(text) > 16:
        raise PageError(400, "name a revision by its number")
    return int(text)


@router.post("/creator/packs/{pack_id}/publish")
@guarded
async def publish(request: Request, pack_id: str) -> Response:
    """Lint and publish a revision; the lint gate's findings when it refuses, the warnings when it does not."""
    me = await call(_creator, request)
    _may_act(me, pack_id)
    form = await read_form(request, _FORM_BYTES)
    number = _revision_number(form.get("revision"))
    domain = services_of(request)
    try:
        done = await cpu_bound(request, domain.packs.publish, Actor(me.account, me.id), pack_id, number)
    except LintFailedError as exc:
        return render(
            request,
            "refused.html",
            422,
            title=f"Revision {number} cannot be published: lint found errors",
            findings=exc.errors,
            warnings=exc.warnings,
            back=f"/creator/packs/{quote(pack_id)}",
        )
    finally:
        domain.sessions.forget(pack_id)
    return render(request, "published.html", done=done, warnings=list(done.warnings))


@router.post("/creator/packs/{pack_id}/unpublish")
@guarded
async def unpublish(request: Request, pack_id: str) -> Response:
    """Withdraw the published revision."""
    me = await call(_creator, request)
    _may_act(me, pack_id)
    await read_form(request, _FORM_BYTES)
    domain = services_of(request)
    try:
        await call(domain.packs.unpublish, Actor(me.account, me.id), pack_id)
    finally:
        domain.sessions.forget(pack_id)
    return redirect(f"/creator/packs/{quote(pack_id)}")


@router.get("/creator/packs/{pack_id}/diff")
@guarded
async def diff(request: Request, pack_id: str) -> Response:
    """The semantic diff of two revisions (``creatorpack diff``)."""
    me = await call(_creator, request)
    _may_act(me, pack_id)
    old = _revision_number(request.query_params.get("old", ""))
    new = _revision_number(request.query_params.get("new", ""))
    sessions = services_of(request).sessions
    try:
        found = await cpu_bound(request, sessions.diff, me.account, pack_id, old, new)
    except (KeyError, ValueError) as exc:
        raise NotFoundError(f"no such revisions to compare: {exc}") from None
    text = orjson.dumps(found, option=orjson.OPT_INDENT_2).decode()
    return render(request, "diff.html", pack_id=pack_id, old=old, new=new, diff=found, text=text)
