"""What page routes share: rendering a template, the signed-in token, reading a form, error pages.

Rendering sets the security headers of :mod:`creatorpack.service.api.security` on every page, and
the CSRF nonce cookie when the browser has none. A form is read bounded (the service's body limit),
as ``application/x-www-form-urlencoded`` or ``multipart/form-data``, and refused with 403 unless it
carries the CSRF token of the nonce cookie and, when the browser names one, comes from this origin.
"""

from __future__ import annotations

import functools
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar
from urllib.parse import parse_qs, urlsplit

import orjson
from anyio import to_thread
from fastapi import Request
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.responses import Response

from creatorpack import InvalidPackError
from creatorpack.service.api.deps import Services, read_body, services
from creatorpack.service.api.security import PAGE_HEADERS
from creatorpack.service.errors import ServiceError
from creatorpack.service.ports import TokenRecord
from creatorpack.service.web.cookies import CSRF_COOKIE, SESSION_COOKIE, Cookies, SignedIn
from creatorpack.service.web.files import prefix

__all__ = [
    "MAX_NONCE",
    "Form",
    "PageError",
    "call",
    "cookies",
    "failure",
    "guarded",
    "page_html",
    "page_response",
    "read_form",
    "redirect",
    "render",
    "secure",
    "services_of",
    "signed_in",
]

_env: Final = Environment(
    loader=PackageLoader("creatorpack.service.web", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_MAX_FIELDS: Final = 64
MAX_NONCE: Final = 64
"""The longest CSRF nonce cookie a page accepts; a longer one is replaced by a fresh nonce."""


class PageError(Exception):
    """A request a page refuses (bad form, CSRF): rendered as an error page with ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class Form:
    """A submitted form: its fields (each name's values in order) and its files' bytes (with their names)."""

    fields: Mapping[str, tuple[str, ...]]
    files: Mapping[str, tuple[str, bytes]] = field(default_factory=dict)

    def get(self, name: str, default: str = "") -> str:
        """The first value of ``name``, or ``default``."""
        values = self.fields.get(name)
        return values[0] if values else default

    def all(self, name: str) -> tuple[str, ...]:
        """Every value of ``name``."""
        return self.fields.get(name, ())


def cookies(request: Request) -> Cookies:
    """The app's cookie signer."""
    found: Cookies = request.app.state.cookies
    return found


def secure(request: Request) -> bool:
    """Whether the browser reached us over https (then cookies are ``Secure``)."""
    return request.url.scheme == "https"


def _live(record: TokenRecord, signed: SignedIn) -> bool:
    from datetime import UTC, datetime  # noqa: PLC0415

    now = datetime.now(UTC)
    return (
        record.id == signed.token_id
        and record.revoked is None
        and not record.expired(now)
        and record.account_disabled is None
    )


def signed_in(request: Request) -> TokenRecord | None:
    """The live token the session cookie names, or None (no cookie, a forged or old one, a dead token).

    Blocking (one read of the account's tokens): call it from a sync route or a worker thread.
    """
    cached = request.scope.get("creatorpack.web.token", False)
    if cached is not False:
        return cached  # type: ignore[no-any-return]
    record = None
    signed = cookies(request).open(request.cookies.get(SESSION_COOKIE), time.time())
    if signed is not None:
        tokens = services(request).auth.tokens(signed.account)
        record = next((t for t in tokens if t.id == signed.token_id and _live(t, signed)), None)
    request.scope["creatorpack.web.token"] = record
    return record


def render(request: Request, template: str, code: int = 200, **context: Any) -> Response:
    """The page ``template`` rendered with ``context``, the signed-in token (``me``) and the CSRF token."""
    jar = cookies(request)
    nonce = request.cookies.get(CSRF_COOKIE)
    fresh = nonce is None or len(nonce) > MAX_NONCE
    if fresh:
        nonce = jar.new_nonce()
    assert nonce is not None
    me = context.pop("me", None)
    if me is None and SESSION_COOKIE in request.cookies:
        me = signed_in(request)
    html = page_html(template, csrf=jar.csrf_token(nonce), me=me, path=request.url.path, **context)
    return page_response(html, code, nonce if fresh else None, secure=secure(request))


def page_html(template: str, *, csrf: str, me: TokenRecord | None, path: str, **context: Any) -> str:
    """The HTML of ``template`` for a caller: its CSRF token, its signed-in token (or None), the page's path."""
    return _env.get_template(template).render(static=prefix(), csrf=csrf, me=me, path=path, **context)


def page_response(html: str | bytes, code: int, new_nonce: str | None, *, secure: bool) -> Response:
    """A page's response: the security headers, ``no-store``, and the CSRF nonce cookie when it is ``new_nonce``.

    Every rendered page is answered through here, the pack page's fast path included
    (:mod:`~creatorpack.service.web.pagepath`), so their headers are one description.
    """
    headers = {**PAGE_HEADERS, "Cache-Control": "no-store"}
    response = Response(html, code, headers=headers, media_type="text/html; charset=utf-8")
    if new_nonce is not None:
        response.set_cookie(CSRF_COOKIE, new_nonce, httponly=True, secure=secure, samesite="lax", path="/")
    return response


def redirect(location: str) -> Response:
    """303 See Other to ``location`` (after a POST), with the page headers."""
    return Response(status_code=303, headers={**PAGE_HEADERS, "Location": location, "Cache-Control": "no-store"})


async def read_form(request: Request, limit: int | None = None) -> Form:
    """The request's form, CSRF-checked; :class:`PageError` 403 for a cross-site post, 400/413/415 otherwise."""
    origin = request.headers.get("origin")
    if origin is not None and origin != "null" and urlsplit(origin).netloc != request.headers.get("host"):
        raise PageError(403, "this form was sent from another site")
    declared = (request.headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    most = services(request).settings.max_body_bytes
    body = await read_body(request, most if limit is None else min(limit, most))
    if declared == "application/x-www-form-urlencoded":
        try:
            text = body.decode("utf-8")
            parsed = parse_qs(text, keep_blank_values=True, max_num_fields=_MAX_FIELDS, strict_parsing=False)
        except (UnicodeDecodeError, ValueError):
            raise PageError(400, "the form is not UTF-8 form data") from None
        form = Form({k: tuple(v) for k, v in parsed.items()})
    elif declared == "multipart/form-data":
        form = await _multipart(request, body, most)
    else:  # no form at all: no token either (a cross-site text/plain post, say)
        raise PageError(403, "this is not a form of this site: its security token is missing")
    if not cookies(request).csrf_ok(request.cookies.get(CSRF_COOKIE), form.get("csrf") or None):
        raise PageError(403, "the form's security token is missing or stale: reload the page and send it again")
    return form


async def _multipart(request: Request, body: bytes, most: int) -> Form:
    async def chunks() -> AsyncGenerator[bytes, None]:
        yield body

    parser = MultiPartParser(request.headers, chunks(), max_files=4, max_fields=_MAX_FIELDS, max_part_size=most)
    try:
        parsed = await parser.parse()
    except MultiPartException as exc:
        raise PageError(400, f"the form cannot be read: {exc.message}") from None
    fields: dict[str, list[str]] = {}
    files: dict[str, tuple[str, bytes]] = {}
    for name, value in parsed.multi_items():
        if isinstance(value, UploadFile):
            data = await value.read()
            await value.close()
            if data or value.filename:
                files[name] = (value.filename or "", data)
        else:
            fields.setdefault(name, []).append(value)
    return Form({k: tuple(v) for k, v in fields.items()}, files)


async def failure(request: Request, exc: Exception) -> Response:
    """The error page of ``exc``: a :class:`PageError` as it says, a service error as the API's status and detail."""
    if isinstance(exc, PageError):
        return render(request, "error.html", exc.status, status=exc.status, message=exc.message)
    handlers = request.app.exception_handlers
    handler = next((handlers[k] for k in type(exc).__mro__ if k in handlers and k is not Exception), None)
    if handler is None:
        raise exc  # not a refusal the API knows: the server's own failure, logged as such
    answer = await handler(request, exc)
    message = str(orjson.loads(answer.body).get("detail", "the request was refused"))
    return render(request, "error.html", answer.status_code, status=answer.status_code, message=message)


async def call(function: Any, *args: Any) -> Any:
    """``function(*args)`` in a worker thread (domain calls block on the store)."""
    return await to_thread.run_sync(function, *args)


def services_of(request: Request) -> Services:
    """The app's services (re-exported for the page modules)."""
    return services(request)


Route = TypeVar("Route", bound=Callable[..., Awaitable[Response]])


def guarded(route: Route) -> Route:
    """A page route whose refusals (:class:`PageError`, the domain's errors) are rendered as error pages."""

    @functools.wraps(route)
    async def page(request: Request, *args: Any, **kwargs: Any) -> Response:
        try:
            if SESSION_COOKIE in request.cookies:
                await call(signed_in, request)  # read once, off the event loop; the page reads it from the scope
            return await route(request, *args, **kwargs)
        except (PageError, ServiceError, InvalidPackError) as exc:
            return await failure(request, exc)

    return page  # type: ignore[return-value]
