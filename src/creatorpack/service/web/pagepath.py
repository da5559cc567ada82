"""A raw-ASGI fast path for the readers' pack page: ``GET /packs/{pack_id}`` of an anonymous caller.

The page renders nothing but the publication's stored reader view (the route's own
:func:`~creatorpack.service.web.catalog.pack_context`), so this process keeps, per pack, the page as
the route renders it for an anonymous caller, cut where the CSRF token of its report form goes, and
answers repeated reads without the framework: the caller's token (the HMAC of its ``cp_csrf`` nonce,
or of a fresh nonce then set as the route sets it) is spliced in; the headers are the route's own
(:func:`~creatorpack.service.web.pages.page_response`).
HEAD is answered as GET without the body by :class:`~creatorpack.service.api.middleware.HeadMiddleware`
(the route's way); the page has no validator (``no-store``), so a conditional request gets the page.

It learns of changes as :class:`~creatorpack.service.api.readerpath.ReaderFastPath` does: a publish,
unpublish (API or the dashboard's forms) or takedown (or restore) of a pack through this process forgets
that pack once it has committed, before its answer leaves; disabling or enabling an account forgets
every pack; other processes' changes are seen within ``ttl_seconds`` through the catalog's clock.
Every forgetting advances a generation, and a load keeps what it read only if none happened meanwhile.

Only the happy path is served here: a browser without a ``cp_session`` cookie (signed-in callers,
whose header and owner's view differ, go to the route) asking for a public or unlisted pack.
Everything else, errors included, goes on to the FastAPI route, the one description of the page.
"""

from __future__ import annotations

import functools
import re
import secrets
import time
from dataclasses import dataclass
from typing import Final

from anyio import to_thread
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Receive, Scope, Send

from creatorpack.service.api._forget import pass_on_then_forget
from creatorpack.service.lru import SizedCache
from creatorpack.service.packs import Packs
from creatorpack.service.web.catalog import pack_context
from creatorpack.service.web.cookies import CSRF_COOKIE, SESSION_COOKIE, Cookies
from creatorpack.service.web.pages import MAX_NONCE, page_html, page_response

__all__ = ["PackPageFastPath"]

_ID: Final = r"([A-Za-z][A-Za-z0-9_.-]{0,79})"
_PAGE: Final = re.compile(rf"/packs/{_ID}")
_CHANGES: Final = (
    re.compile(rf"/v1/packs/{_ID}/publish"),
    re.compile(rf"/v1/admin/packs/{_ID}/takedown"),
    re.compile(rf"/creator/packs/{_ID}/(?:un)?publish"),
)
_ACCOUNT_STATE: Final = re.compile(r"/v1/admin/accounts/[^/]+/(?:disable|enable)")
_PREFIXES: Final = ("/packs/", "/v1/packs/", "/v1/admin/", "/creator/packs/")


@dataclass(frozen=True, slots=True)
class _Entry:
    parts: tuple[bytes, ...]  # the page, cut where each copy of the caller's CSRF token goes
    size: int


@dataclass(frozen=True, slots=True)
class _Headers:
    """The route's headers of a page, with the places of its length and its nonce cookie."""

    before: tuple[tuple[bytes, bytes], ...]  # up to the content-length
    after: tuple[tuple[bytes, bytes], ...]  # after it (content-type), without the cookie
    cookie: bytes  # the set-cookie header's name
    cookie_parts: tuple[bytes, ...]  # its value, cut where the nonce goes


class PackPageFastPath:
    """Serves anonymous readers' repeated pack-page reads from memory; passes every other request on."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        packs: Packs,
        cookies: Cookies,
        ttl_seconds: float = 1.0,
        max_bytes: int = 64 * 1024 * 1024,
    ) -> None:
        self.app = app
        self.packs = packs
        self.cookies = cookies
        self.ttl = ttl_seconds
        self.max_bytes = max_bytes
        self._marker = "csrf" + secrets.token_hex(16)  # no pack can contain it: it is never sent
        self._entries: SizedCache[str, _Entry] = SizedCache(max_bytes)
        self._version: int | None = None
        self._checked = 0.0
        self._generation = 0
        self._headers = {secure: _route_headers(secure=secure) for secure in (False, True)}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a cached pack page, else hand the request to the application."""
        if scope["type"] != "http" or self.ttl <= 0 or not scope["path"].startswith(_PREFIXES):
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        if method in ("POST", "DELETE"):
            for pattern in _CHANGES:
                changed = pattern.fullmatch(path)
                if changed is not None:
                    forget = functools.partial(self._forget, changed[1])
                    await pass_on_then_forget(self.app, scope, receive, send, forget)
                    return
            if _ACCOUNT_STATE.fullmatch(path) is not None:  # every pack of the account: forget them all
                await pass_on_then_forget(self.app, scope, receive, send, self._forget_all)
                return
        elif method == "GET" and not scope.get("root_path"):
            match = _PAGE.fullmatch(path)
            if match is not None and await self._serve(match[1], scope, send):
                return
        await self.app(scope, receive, send)

    async def _serve(self, pack_id: str, scope: Scope, send: Send) -> bool:
        cookie = next((value for name, value in scope["headers"] if name == b"cookie"), None)
        jar = cookie_parser(cookie.decode("latin-1")) if cookie is not None else {}
        if SESSION_COOKIE in jar:  # maybe signed in: the route looks the session up
            return False
        await self._check_version()
        entry = self._entries.get(pack_id)
        if entry is None:
            entry = await self._load(pack_id, scope["path"])
            if entry is None:
                return False
        nonce = jar.get(CSRF_COOKIE)
        fresh = nonce is None or len(nonce) > MAX_NONCE
        if fresh:
            nonce = self.cookies.new_nonce()
        assert nonce is not None
        body = self.cookies.csrf_token(nonce).encode("ascii").join(entry.parts)
        layout = self._headers[scope.get("scheme") == "https"]
        headers = [*layout.before, (b"content-length", str(len(body)).encode()), *layout.after]
        if fresh:
            headers.append((layout.cookie, nonce.encode("latin-1").join(layout.cookie_parts)))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return True

    async def _check_version(self) -> None:
        now = time.monotonic()
        if now - self._checked < self.ttl:
            return
        self._checked = now
        try:
            version = await to_thread.run_sync(self.packs.publications_version)
        except Exception:  # noqa: BLE001 - the store is unwell: serve nothing from memory
            version = None
        if version is None or version != self._version:
            self._forget_all()
        self._version = version

    async def _load(self, pack_id: str, path: str) -> _Entry | None:
        """Read and render the pack's page; keep it only if nothing was forgotten meanwhile (it may predate that)."""
        generation = self._generation
        try:
            html = await to_thread.run_sync(self._render, pack_id, path)
        except Exception:  # noqa: BLE001 - the route answers every failure its own way
            return None
        if self._version is None:
            return None
        parts = tuple(html.encode("utf-8").split(self._marker.encode("ascii")))
        entry = _Entry(parts, sum(map(len, parts)))
        if generation != self._generation:
            return entry
        self._entries.put(pack_id, entry, entry.size)
        return entry

    def _render(self, pack_id: str, path: str) -> str:
        """The anonymous caller's page as the route renders it, the CSRF token a marker (blocking: a worker thread)."""
        document = self.packs.reader(None, pack_id)  # refuses what an anonymous caller may not read
        return page_html("pack.html", csrf=self._marker, me=None, path=path, **pack_context(document))

    def _forget(self, pack_id: str) -> None:
        """Drop the pack and make every load in flight discard what it read."""
        self._generation += 1
        self._entries.pop(pack_id)

    def _forget_all(self) -> None:
        """Drop every pack and make every load in flight discard what it read."""
        self._generation += 1
        self._entries.clear()


def _route_headers(*, secure: bool) -> _Headers:
    """The headers :func:`page_response` gives a page with a fresh nonce, cut at its length and the nonce."""
    marker = "nonce" + secrets.token_hex(16)
    raw = page_response(b"", 200, marker, secure=secure).raw_headers
    at = next(i for i, (name, _) in enumerate(raw) if name == b"content-length")
    cookie = next(i for i, (name, _) in enumerate(raw) if name == b"set-cookie")
    after = tuple(h for i, h in enumerate(raw) if i > at and i != cookie)
    name, value = raw[cookie]
    return _Headers(tuple(raw[:at]), after, name, tuple(value.split(marker.encode("ascii"))))
