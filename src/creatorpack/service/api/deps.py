"""What routes share: the wired services, the token check, the body reader and JSON responses."""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeVar

import orjson
from anyio import CapacityLimiter, to_thread
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, BeforeValidator, ValidationError
from pydantic_core import PydanticCustomError
from starlette.responses import Response

from creatorpack.contract import may_repeat_keys
from creatorpack.service.api.duplicates import duplicate_key, first_duplicate
from creatorpack.service.api.errors import PROBLEM_MEDIA_TYPE
from creatorpack.service.assets import Assets
from creatorpack.service.auth import Auth
from creatorpack.service.catalog import Catalog
from creatorpack.service.errors import ForbiddenError, PayloadTooLargeError, UnsupportedMediaTypeError
from creatorpack.service.moderation import Moderation
from creatorpack.service.narration import Narration
from creatorpack.service.packs import Packs
from creatorpack.service.ports import Scope, TokenRecord
from creatorpack.service.sessions import Sessions
from creatorpack.service.settings import Settings

__all__ = [
    "ANONYMOUS",
    "ASSET_RESPONSES",
    "CATALOG_RESPONSES",
    "DIGITS",
    "INLINE_BYTES",
    "PROBLEM_RESPONSES",
    "PUBLISH_RESPONSES",
    "RANGE_RESPONSES",
    "SMALL_BODY_BYTES",
    "Lane",
    "Services",
    "authenticated",
    "cpu_bound",
    "is_json_media",
    "json_response",
    "optional_token",
    "read_body",
    "read_json_body",
    "read_request",
    "request_body",
    "require",
    "services",
]

_JSON_TYPES: Final = ("application/json",)
_DECIMAL: Final = re.compile(r"0|[1-9][0-9]{0,19}")
T = TypeVar("T")
Model = TypeVar("Model", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Services:
    """The domain objects a request may use, wired by :func:`creatorpack.service.app.create_app`."""

    settings: Settings
    packs: Packs
    auth: Auth
    sessions: Sessions
    catalog: Catalog
    assets: Assets
    moderation: Moderation
    narration: Narration


def _decimal_digits(value: Any) -> Any:
    """A path or query integer as plain decimal digits: ``3``, never ``3.0``, ``+3``, ``03`` or `` 3``.

    Pydantic's lax mode reads all of those as 3, so ``/revisions/3.0`` would name revision 3; the
    documents say anything but the number is 400. Defaults (not strings) pass as they are.
    """
    if isinstance(value, str) and _DECIMAL.fullmatch(value) is None:
        raise PydanticCustomError(
            "int_digits", "write an integer in decimal digits (no sign, point, space or leading zero)"
        )
    return value


DIGITS: Final = BeforeValidator(_decimal_digits)
"""Metadata of an ``Annotated[int, Path(...) | Query(...), DIGITS]`` parameter: digits only, else 400."""


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
        return _may_act(request, auth.require(record, scope))

    return dependency


async def authenticated(request: Request) -> TokenRecord:
    """A dependency: the request's live token, of any scope (401 otherwise); the domain decides what it may do."""
    auth = services(request).auth
    header = request.headers.get("authorization")
    record = auth.cached(header)
    if record is None:  # not checked in the last moment: ask the store, off the event loop
        record = await to_thread.run_sync(auth.authenticate, header)
    return _may_act(request, record)


async def optional_token(request: Request) -> TokenRecord | None:
    """A dependency: None for an anonymous request; a token sent must be live (401 otherwise), of any scope."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    auth = services(request).auth
    record = auth.cached(header)
    if record is None:
        record = await to_thread.run_sync(auth.authenticate, header)
    return _may_act(request, record)


def _may_act(request: Request, record: TokenRecord) -> TokenRecord:
    """``record`` if it may act on the pack the path names (a token limited to named packs); 403 otherwise."""
    pack_id = request.path_params.get("pack_id")
    if isinstance(pack_id, str) and not record.may_act_on(pack_id):
        raise ForbiddenError(f"this token may not act on pack {pack_id!r}: it is limited to other packs")
    return record


INLINE_BYTES: Final = 256 * 1024

Lane = Literal["checks", "uploads"]
"""Which bounded pool big work queues in: checks (validate, lint, publish) or uploads (storing packs)."""


async def cpu_bound(
    request: Request, function: Callable[..., T], *args: Any, size: int | None = None, lane: Lane = "checks"
) -> T:
    """Run ``function(*args)`` (validating, linting, storing) so that it never holds up cheap requests.

    Work on an input of unknown size or larger than :data:`INLINE_BYTES` runs in a worker thread of
    its lane's own pool (one thread per CPU, at least two): slow checks of big packs queue among
    themselves, big uploads among themselves, and neither takes the threads that cheap requests
    (token checks, reads, small uploads) use. Below that size a check (pure computation, a few
    milliseconds) runs on the event loop, where a thread hand-off would cost a good part of the work,
    and an upload (it also writes the blob and the rows) runs in the shared pool beside the reads.
    """
    small = size is not None and size <= INLINE_BYTES
    if small and lane == "checks":
        return function(*args)
    if small:
        return await to_thread.run_sync(function, *args)
    limiters: dict[str, CapacityLimiter] | None = getattr(request.app.state, "lanes", None)
    if limiters is None:
        limiters = request.app.state.lanes = {}
    limiter = limiters.get(lane)
    if limiter is None:
        limiter = limiters[lane] = CapacityLimiter(max(2, os.cpu_count() or 1))
    return await to_thread.run_sync(function, *args, limiter=limiter)


SMALL_BODY_BYTES: Final = 1024 * 1024
"""The largest body of a request that is not a pack (publish, session start, turn, migrate): 413 beyond."""


async def read_json_body(request: Request, limit: int | None = None) -> bytes:
    """The body, read up to ``limit`` (default, and at most, the configured limit; 413 beyond it).

    415 unless it is declared JSON.
    """
    declared = request.headers.get("content-type")
    if declared is not None and not is_json_media(declared):
        raise UnsupportedMediaTypeError(f"send the body as application/json, not {_shown_type(declared)}")
    most = services(request).settings.max_body_bytes
    return await read_body(request, most if limit is None else min(limit, most))


_SHOWN_TYPE_CHARS: Final = 60


def _shown_type(declared: str) -> str:
    """A ``Content-Type`` as a 415 quotes it: its media type (else all of it), escaped, at most 60 characters.

    ``;;;===`` has no media type, and saying it was empty would not be true; the header is the
    client's own text, so it is quoted by ``repr`` (no control character reaches the answer or a log)
    and cut short.
    """
    media = declared.split(";", 1)[0].strip().lower()
    shown = media or declared.strip()
    if not shown:
        return "an empty Content-Type"
    if len(shown) > _SHOWN_TYPE_CHARS:
        shown = shown[:_SHOWN_TYPE_CHARS] + "…"
    return repr(shown)


async def read_request(request: Request, model: type[Model], *, empty_ok: bool = False) -> Model:
    """A small JSON body (at most :data:`SMALL_BODY_BYTES`) as ``model``; anything malformed is 400 invalid-request.

    Routes call it after their token check (a dependency), so an anonymous caller's body is never read,
    and a big one is refused with 413 as soon as it passes the limit, not after it was buffered whole.
    A key repeated in an object is refused too, since the body would mean two things; the rare body that
    may repeat one is searched in the checks' threads (:func:`cpu_bound`), never on the event loop.
    ``empty_ok``: an empty body is ``{}``.
    """
    body = await read_json_body(request, SMALL_BODY_BYTES)
    if empty_ok and not body.strip():
        body = b"{}"
    try:
        asked = model.model_validate_json(body)
    except ValidationError as exc:
        errors = [{**e, "loc": ("body", *e.get("loc", ()))} for e in exc.errors(include_url=False)]
        raise RequestValidationError(errors) from None
    repeated = await cpu_bound(request, first_duplicate, body) if may_repeat_keys(body) else None
    if repeated is not None:
        raise RequestValidationError([{"type": "duplicate_key", "loc": ("body",), "msg": duplicate_key(*repeated)}])
    return asked


def is_json_media(declared: str | None) -> bool:
    """Whether a ``Content-Type`` declares JSON (``application/json`` or ``…+json``); none declared is taken as JSON."""
    if declared is None:
        return True
    media = declared.split(";", 1)[0].strip().lower()
    return media in _JSON_TYPES or media.endswith("+json")


async def read_body(request: Request, limit: int) -> bytes:
    """The body, of any type, read up to ``limit`` bytes (413 beyond it)."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise PayloadTooLargeError(limit)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise PayloadTooLargeError(limit)
    return bytes(body)


def request_body(model: type[BaseModel], *, required: bool = True) -> dict[str, Any]:
    """``openapi_extra`` naming ``model`` as the JSON body of a route that reads it with :func:`read_request`."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    return {"requestBody": {"required": required, "content": {"application/json": {"schema": schema}}}}


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
ANONYMOUS: Final[dict[str, Any]] = {"security": [{"bearer": []}, {}]}
"""``openapi_extra`` of routes anonymous callers may use too (a token sent must be live)."""
PUBLISH_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    422: _problem("The revision has lint errors (lint-failed): the findings are in errors"),
}
ASSET_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    413: _problem("The file is larger than 32,000,000 bytes"),
    422: _problem("The bytes have another sha256 (asset-mismatch) or are none of the contract's types (asset-type)"),
}
RANGE_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    416: _problem("The range names no byte of the file (range-not-satisfiable)"),
}
"""What a route that serves a file in byte ranges adds (an upload never answers 416)."""
CATALOG_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    400: _problem("Malformed parameters (invalid-request) or a cursor this service did not issue (invalid-cursor)"),
}
