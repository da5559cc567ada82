"""What routes share: the wired services, the token check, the body reader and JSON responses."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import orjson
from anyio import CapacityLimiter, to_thread
from fastapi import Request
from starlette.responses import Response

from creatorpack.service.api.errors import PROBLEM_MEDIA_TYPE, UnsupportedMediaTypeError
from creatorpack.service.auth import Auth
from creatorpack.service.errors import PayloadTooLargeError
from creatorpack.service.packs import Packs
from creatorpack.service.ports import Scope, TokenRecord
from creatorpack.service.settings import Settings

__all__ = [
    "INLINE_BYTES",
    "PROBLEM_RESPONSES",
    "Services",
    "cpu_bound",
    "json_response",
    "read_json_body",
    "require",
    "services",
]

_JSON_TYPES: Final = ("application/json",)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Services:
    """The domain objects a request may use, wired by :func:`creatorpack.service.app.create_app`."""

    settings: Settings
    packs: Packs
    auth: Auth


def services(request: Request) -> Services:
    """The app's services."""
    found: Services = request.app.state.services
    return found


def require(scope: Scope) -> Callable[[Request], Awaitable[TokenRecord]]:
    """A dependency: the request's live token, which must hold ``scope`` (401 / 403 otherwise)."""

    async def dependency(request: Request) -> TokenRecord:
        auth = services(request).auth
        header = request.headers.get("authorization")
        record = auth.cached(header)
        if record is None:  # not checked in the last moment: ask the store, off the event loop
            record = await to_thread.run_sync(auth.authenticate, header)
        return auth.require(record, scope)

    return dependency


INLINE_BYTES: Final = 256 * 1024


async def cpu_bound(request: Request, function: Callable[..., T], *args: Any, size: int | None = None) -> T:
    """Run ``function(*args)`` (validating, linting) in a worker thread of its own bounded pool.

    The pool has one thread per CPU, so that slow checks of big packs queue among themselves and never
    take the threads that cheap requests (token checks, reads) use. Work on an input of ``size`` at
    most :data:`INLINE_BYTES` (a few milliseconds) runs on the event loop: handing it to a thread
    would cost a good part of what the work itself does.
    """
    if size is not None and size <= INLINE_BYTES:
        return function(*args)
    limiter = getattr(request.app.state, "cpu_limiter", None)
    if limiter is None:
        limiter = request.app.state.cpu_limiter = CapacityLimiter(max(2, os.cpu_count() or 1))
    return await to_thread.run_sync(function, *args, limiter=limiter)


async def read_json_body(request: Request) -> bytes:
    """The body, read up to the configured limit (413 beyond it); 415 unless it is declared JSON."""
    declared = request.headers.get("content-type")
    if declared is not None:
        media = declared.split(";", 1)[0].strip().lower()
        if media not in _JSON_TYPES and not media.endswith("+json"):
            raise UnsupportedMediaTypeError(f"send the pack as application/json, not {media or 'an empty type'!r}")
    limit = services(request).settings.max_body_bytes
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise PayloadTooLargeError(limit)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise PayloadTooLargeError(limit)
    return bytes(body)


def json_response(content: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response serialized by orjson."""
    return Response(orjson.dumps(content), status, headers=headers, media_type="application/json")


def _problem(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }


PROBLEM_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    400: _problem("Malformed request or unreadable pack (problem types invalid-request, unreadable-pack)"),
    401: _problem("Missing, unknown or revoked token"),
    403: _problem("The token lacks the scope"),
    404: _problem("No such pack or revision for this account"),
    409: _problem("The revision conflicts with what is stored"),
    413: _problem("The body is larger than the limit"),
    415: _problem("The body is not declared as JSON"),
    422: _problem("The pack breaks its contract (invalid-pack) or has no pack_id (pack-id-missing)"),
}
