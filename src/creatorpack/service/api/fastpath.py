"""A raw-ASGI fast path for the hottest read: ``GET /v1/packs/{pack_id}/revisions/{revision}``.

A stored revision never changes (its bytes are addressed by sha256), so once an owner has read it the
answer can be kept in memory and served without the framework's routing, validation and thread
hand-off. Only the happy path is served here: a token this process checked a moment ago holding the
``creator`` (or ``admin``) scope, asking for a revision it owns. Everything else, errors included, goes
on to the FastAPI route, which stays the single description of the route (and its OpenAPI entry), but
for a live revision whose bytes are gone: that was logged and counted as the revision was read here,
and is answered here (500 ``storage-inconsistent``) rather than read, logged and counted again.

A ``DELETE`` of a revision through this process forgets it once the delete has committed, before its
answer leaves, so the client that deleted it is never served its bytes again; other server
processes forget it within ``ttl_seconds`` (the same delay as a revoked token, see
``token_cache_seconds``). A read that loaded the revision while the delete ran keeps nothing: every
forgetting advances a generation, and a load keeps what it read only if none happened meanwhile.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Final

from anyio import to_thread
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from creatorpack.service.api._forget import pass_on_then_forget
from creatorpack.service.api.errors import problem_response
from creatorpack.service.auth import Auth
from creatorpack.service.errors import StorageInconsistentError
from creatorpack.service.lru import SizedCache
from creatorpack.service.packs import Packs

__all__ = ["RevisionFastPath"]

_PATH: Final = re.compile(r"/v1/packs/([A-Za-z][A-Za-z0-9_.-]{0,79})/revisions/([1-9][0-9]{0,15})")
_MAX_REVISION: Final = 9_007_199_254_740_991
_SCOPES: Final = frozenset({"creator", "admin"})


@dataclass(frozen=True, slots=True)
class _Entry:
    account: str
    etag: bytes
    data: bytes
    expires: float


class RevisionFastPath:
    """Serves owners' repeated revision reads from memory; passes every other request on."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        auth: Auth,
        packs: Packs,
        ttl_seconds: float = 1.0,
        max_bytes: int = 64 * 1024 * 1024,
        max_entry_bytes: int = 1024 * 1024,
    ) -> None:
        self.app = app
        self.auth = auth
        self.packs = packs
        self.ttl = ttl_seconds
        self.max_bytes = max_bytes
        self.max_entry_bytes = max_entry_bytes
        self._entries: SizedCache[tuple[str, int], _Entry] = SizedCache(max_bytes)
        self._generation = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a cached owner's read, else hand the request to the application."""
        if scope["type"] != "http" or self.ttl <= 0:
            await self.app(scope, receive, send)
            return
        match = _PATH.fullmatch(scope["path"])
        if match is None or int(match[2]) > _MAX_REVISION:
            await self.app(scope, receive, send)
            return
        key = (match[1], int(match[2]))
        method = scope["method"]
        if method == "DELETE":
            await self._delete(key, scope, receive, send)
            return
        if method == "GET" and await self._serve(key, scope, send):
            return
        await self.app(scope, receive, send)

    async def _delete(self, key: tuple[str, int], scope: Scope, receive: Receive, send: Send) -> None:
        """Pass a delete on; forget the revision when its answer starts (it has committed by then)."""
        await pass_on_then_forget(self.app, scope, receive, send, lambda: self._forget(key))

    async def _serve(self, key: tuple[str, int], scope: Scope, send: Send) -> bool:
        authorization = None
        if_none_match = None
        for name, value in scope["headers"]:
            if name == b"authorization":
                authorization = value.decode("latin-1")
            elif name == b"if-none-match":
                if_none_match = value
        token = self.auth.cached(authorization)
        if token is None or token.scope not in _SCOPES or not token.may_act_on(key[0]):
            return False
        entry = self._entries.get(key)
        if entry is None or entry.expires < time.monotonic():
            try:
                entry = await self._load(key, token.account)
            except StorageInconsistentError as exc:  # logged and counted once: the route would read (and count) again
                await problem_response("storage-inconsistent", str(exc), instance=scope["path"])(scope, _nothing, send)
                return True
            if entry is None:
                return False
        if entry.account != token.account:
            return False
        headers = [(b"etag", entry.etag), (b"cache-control", b"private, immutable")]
        if if_none_match is not None and _matches(if_none_match, entry.etag):
            await send({"type": "http.response.start", "status": 304, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return True
        headers += [(b"content-length", str(len(entry.data)).encode()), (b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": entry.data})
        return True

    async def _load(self, key: tuple[str, int], account: str) -> _Entry | None:
        """Read the revision; keep it only if nothing was forgotten meanwhile (a delete may have committed)."""
        generation = self._generation
        try:
            record, data = await to_thread.run_sync(self.packs.revision, account, *key)
        except StorageInconsistentError:
            raise
        except Exception:  # noqa: BLE001 - the route answers every other failure (not found, a store down) its own way
            return None
        if len(data) > self.max_entry_bytes:
            return None
        entry = _Entry(account, f'"{record.sha256}"'.encode(), data, time.monotonic() + self.ttl)
        if generation != self._generation:
            return entry
        self._entries.put(key, entry, len(data))
        return entry

    def _forget(self, key: tuple[str, int]) -> None:
        """Drop the revision and make every load in flight discard what it read."""
        self._generation += 1
        self._entries.pop(key)


async def _nothing() -> Message:
    """A ``receive`` for an answer that reads no body (a ``GET``)."""
    return {"type": "http.request", "body": b"", "more_body": False}


def _matches(header: bytes, etag: bytes) -> bool:
    tag = etag.strip(b'"')
    for part in header.split(b","):
        candidate = part.strip().removeprefix(b"W/").strip(b'"')
        if candidate in (tag, b"*"):
            return True
    return False
