"""A raw-ASGI fast path for the readers' hottest read: ``GET /v1/packs/{pack_id}/reader``.

The reader view of a published revision is stored serialized when it is published, so this process
keeps the bytes it has served in memory and answers repeated reads without the framework. An entry
stays valid until any pack is published or unpublished: the process reads the catalog's clock (one
small query) at most every ``ttl_seconds`` and forgets everything when it moved. A publish or
unpublish through this process forgets its pack once it has committed, before its answer leaves, so
the client that made it is never served the old view; other processes within ``ttl_seconds`` (the
delay a revoked token has; see ``token_cache_seconds``).

Forgetting when the request arrives is not enough: a concurrent read could load the old view during
the publication's lint or transaction and keep it. Every forgetting therefore also advances a
generation, and a load keeps what it read only if no forgetting happened while it read.

Only the happy path is served here: an anonymous caller or a token this process checked a moment
ago, asking for a public or unlisted pack (or a private one it owns). Everything else, errors
included, goes on to the FastAPI route, which stays the one description of the route.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Final

from anyio import to_thread
from starlette.types import ASGIApp, Receive, Scope, Send

from creatorpack.service.api._forget import pass_on_then_forget
from creatorpack.service.auth import Auth
from creatorpack.service.lru import SizedCache
from creatorpack.service.packs import Packs, ReaderDocument

__all__ = ["ReaderFastPath"]

_ID: Final = r"([A-Za-z][A-Za-z0-9_.-]{0,79})"
_READER: Final = re.compile(rf"/v1/packs/{_ID}/reader")
_PUBLISH: Final = re.compile(rf"/v1/packs/{_ID}/publish")
_TAKEDOWN: Final = re.compile(rf"/v1/admin/packs/{_ID}/takedown")
_ACCOUNT_STATE: Final = re.compile(r"/v1/admin/accounts/[^/]+/(?:disable|enable)")


@dataclass(frozen=True, slots=True)
class _Entry:
    owner: str
    listed: bool  # public or unlisted: anyone may read it
    public: bool
    etag: bytes
    data: bytes


class ReaderFastPath:
    """Serves repeated reader-view reads from memory; passes every other request on."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        auth: Auth,
        packs: Packs,
        ttl_seconds: float = 1.0,
        max_bytes: int = 64 * 1024 * 1024,
    ) -> None:
        self.app = app
        self.auth = auth
        self.packs = packs
        self.ttl = ttl_seconds
        self.max_bytes = max_bytes
        self._entries: SizedCache[str, _Entry] = SizedCache(max_bytes)
        self._version: int | None = None
        self._checked = 0.0
        self._generation = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a cached reader view, else hand the request to the application."""
        if scope["type"] != "http" or self.ttl <= 0:
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        if method in ("POST", "DELETE"):
            changed = _PUBLISH.fullmatch(path) or _TAKEDOWN.fullmatch(path)
            if changed is not None:
                await self._publication_change(changed[1], scope, receive, send)
                return
            if _ACCOUNT_STATE.fullmatch(path) is not None:  # every pack of the account: forget them all
                await pass_on_then_forget(self.app, scope, receive, send, self._forget_all)
                return
        elif method == "GET":
            match = _READER.fullmatch(path)
            if match is not None and await self._serve(match[1], scope, send):
                return
        await self.app(scope, receive, send)

    async def _publication_change(self, pack_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass a publish or unpublish on; forget the pack when its answer starts (it has committed by then)."""
        await pass_on_then_forget(self.app, scope, receive, send, lambda: self._forget(pack_id))

    async def _serve(self, pack_id: str, scope: Scope, send: Send) -> bool:
        authorization = None
        if_none_match = None
        for name, value in scope["headers"]:
            if name == b"authorization":
                authorization = value.decode("latin-1")
            elif name == b"if-none-match":
                if_none_match = value
        account = None
        if authorization is not None:
            token = self.auth.cached(authorization)
            if token is None or not token.may_act_on(pack_id):
                return False
            account = token.account
        await self._check_version()
        entry = self._entries.get(pack_id)
        if entry is None:
            entry = await self._load(pack_id)
            if entry is None:
                return False
        if not entry.listed and entry.owner != account:
            return False
        cache = b"public, no-cache" if entry.public else b"private, no-cache"
        headers = [(b"etag", entry.etag), (b"cache-control", cache)]
        if if_none_match is not None and _tags(if_none_match) & {entry.etag.strip(b'"'), b"*"}:
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return True
        headers += [(b"content-length", str(len(entry.data)).encode()), (b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": entry.data})
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
            self._entries.clear()
            self._generation += 1
        self._version = version

    async def _load(self, pack_id: str) -> _Entry | None:
        """Read the pack's publication; keep it only if nothing was forgotten meanwhile (it may predate that)."""
        generation = self._generation
        try:
            found = await to_thread.run_sync(self.packs.publication, pack_id)
        except Exception:  # noqa: BLE001 - the route answers every failure its own way
            return None
        if found is None or self._version is None:
            return None
        document = ReaderDocument(found.reader, public=found.listed)
        listed = found.open_to_others
        entry = _Entry(found.owner, listed, document.public, document.etag.encode(), document.data)
        if generation != self._generation:
            return entry
        self._entries.put(pack_id, entry, len(entry.data))
        return entry

    def _forget(self, pack_id: str) -> None:
        """Drop the pack and make every load in flight discard what it read."""
        self._generation += 1
        self._entries.pop(pack_id)

    def _forget_all(self) -> None:
        """Drop every pack and make every load in flight discard what it read."""
        self._generation += 1
        self._entries.clear()


def _tags(header: bytes) -> set[bytes]:
    return {part.strip().removeprefix(b"W/").strip(b'"') for part in header.split(b",")}
