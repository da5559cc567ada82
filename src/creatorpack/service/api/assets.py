"""Asset files: ``PUT /v1/assets/{sha256}`` (creator) and ``GET /v1/packs/{pack_id}/assets/{asset_id}``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final

from fastapi import APIRouter, Header, Path, Query, Request
from starlette.responses import Response, StreamingResponse

from creatorpack.service.api.catalog import Caller
from creatorpack.service.api.deps import (
    ANONYMOUS,
    ASSET_RESPONSES,
    DIGITS,
    PROBLEM_RESPONSES,
    RANGE_RESPONSES,
    cpu_bound,
    json_response,
    read_body,
    services,
)
from creatorpack.service.api.middleware import HEAD_SCOPE_KEY
from creatorpack.service.api.packs import ID_PATTERN, MAX_REVISION, Creator, PackId, _matches
from creatorpack.service.api.schemas import Asset
from creatorpack.service.assets import MAX_ASSET_BYTES, AssetFile, Assets, byte_range

__all__ = ["FILE_RESPONSES", "fetch", "file_response", "file_responses", "is_head", "router", "upload"]

router = APIRouter(prefix="/v1", tags=["assets"])

Sha256 = Annotated[str, Path(pattern=r"^[0-9a-f]{64}$", description="The file's sha256, lowercase hex")]
AssetId = Annotated[str, Path(pattern=ID_PATTERN, max_length=80, description="The asset's id in the pack")]
_OWNER_SCOPES: Final = ("creator", "admin")
_FILE: Final[dict[str, Any]] = {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}
_SERVED: Final[dict[str, Any]] = {"*/*": {"schema": {"type": "string", "format": "binary"}}}
"""A served file is of the media type its bytes were sniffed as (image/png, audio/mpeg, ...)."""
FILE_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    200: {"description": "The file, of the media type its bytes were sniffed as", "content": _SERVED},
    206: {"description": "A byte range of an audio or video file", "content": _SERVED},
    304: {"description": "Not modified (If-None-Match matched the ETag)"},
    **RANGE_RESPONSES,
}
"""The answers of a route that serves an asset file (:func:`file_response`)."""


def is_head(request: Request) -> bool:
    """Whether the request is a ``HEAD`` that :class:`~creatorpack.service.api.middleware.HeadMiddleware` passed on."""
    return bool(request.scope.get(HEAD_SCOPE_KEY, False))


def file_responses(errors: Mapping[int | str, dict[str, Any]]) -> dict[int | str, dict[str, Any]]:
    """:data:`FILE_RESPONSES` and a route's ``errors``, in the order of their status codes."""
    merged = {int(k): v for k, v in (*FILE_RESPONSES.items(), *errors.items())}
    return {k: merged[k] for k in sorted(merged)}


def file_response(
    assets: Assets,
    found: AssetFile,
    cache_control: str,
    range_: str | None,
    if_none_match: str | None,
    *,
    head: bool = False,
) -> Response:
    """An asset file: 304 if the ETag (its sha256) matches; a byte range (206, 416) of audio and video.

    The bytes are streamed from the blob store a chunk at a time, never held whole; for a ``HEAD``
    (``head``) they are not read at all, and the headers are the GET's.
    """
    asset = found.asset
    headers = {"ETag": f'"{asset.sha256}"', "Cache-Control": cache_control, "X-Content-Type-Options": "nosniff"}
    if found.ranged:
        headers["Accept-Ranges"] = "bytes"
    if if_none_match is not None and _matches(if_none_match, asset.sha256):
        return Response(status_code=304, headers=headers)
    span = byte_range(range_, asset.size) if found.ranged else None
    start, stop = span if span is not None else (0, asset.size)
    headers["Content-Length"] = str(stop - start)
    if span is not None:
        headers["Content-Range"] = f"bytes {start}-{stop - 1}/{asset.size}"
    status = 206 if span is not None else 200
    if head:
        assets.check_present(asset, found.asset_id)  # the status a GET would have: 500 for lost bytes
        return Response(status_code=status, headers=headers, media_type=asset.mime_type)
    body = assets.stream(asset, start, stop, asset_id=found.asset_id)  # reads the first chunk now
    return StreamingResponse(body, 206 if span is not None else 200, headers=headers, media_type=asset.mime_type)


@router.put(
    "/assets/{sha256}",
    status_code=201,
    response_model=Asset,
    responses={
        200: {"model": Asset, "description": "Already uploaded: nothing changed"},
        **{k: PROBLEM_RESPONSES[k] for k in (400, 401, 403)},
        **ASSET_RESPONSES,
    },
    openapi_extra={"requestBody": {"required": True, "content": _FILE}},
)
async def upload(request: Request, sha256: Sha256, _token: Creator) -> Response:
    """Store an asset file under its sha256 (checked; type sniffed); the same file again changes nothing."""
    body = await read_body(request, min(MAX_ASSET_BYTES, services(request).settings.max_body_bytes))
    done = await cpu_bound(request, services(request).assets.upload, sha256, body)
    return json_response(Asset.of(done.asset), 201 if done.created else 200)


@router.get(
    "/packs/{pack_id}/assets/{asset_id}",
    responses=file_responses({k: PROBLEM_RESPONSES[k] for k in (400, 401, 404)}),
    response_class=Response,  # not JSON: the file, of its own media type
    openapi_extra=ANONYMOUS,
)
def fetch(
    request: Request,
    pack_id: PackId,
    asset_id: AssetId,
    caller: Caller,
    revision: Annotated[
        int | None, Query(ge=1, le=MAX_REVISION, description="Owner: the revision (default latest)"), DIGITS
    ] = None,
    range_: Annotated[str | None, Header(alias="range")] = None,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    """An asset file: the owner any of their packs'; others the published cover and cover motion only."""
    account = caller.account if caller is not None and caller.scope in _OWNER_SCOPES else None
    assets = services(request).assets
    found = assets.locate(account, pack_id, asset_id, revision)
    cache = "public, max-age=300, immutable" if found.public else "private, no-cache"
    return file_response(assets, found, cache, range_, if_none_match, head=is_head(request))
