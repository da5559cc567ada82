"""Asset files: ``PUT /v1/assets/{sha256}`` (creator) and ``GET /v1/packs/{pack_id}/assets/{asset_id}``."""

from __future__ import annotations

from typing import Annotated, Any, Final

from fastapi import APIRouter, Header, Path, Query, Request
from starlette.responses import Response

from creatorpack.service.api.catalog import Caller
from creatorpack.service.api.deps import (
    ANONYMOUS,
    ASSET_RESPONSES,
    PROBLEM_RESPONSES,
    cpu_bound,
    json_response,
    read_body,
    services,
)
from creatorpack.service.api.packs import ID_PATTERN, MAX_REVISION, Creator, PackId
from creatorpack.service.api.schemas import Asset
from creatorpack.service.assets import MAX_ASSET_BYTES, byte_range

__all__ = ["fetch", "router", "upload"]

router = APIRouter(prefix="/v1", tags=["assets"])

Sha256 = Annotated[str, Path(pattern=r"^[0-9a-f]{64}$", description="The file's sha256, lowercase hex")]
AssetId = Annotated[str, Path(pattern=ID_PATTERN, max_length=80, description="The asset's id in the pack")]
_OWNER_SCOPES: Final = ("creator", "admin")
_FILE: Final[dict[str, Any]] = {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}


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
    body = await read_body(request, MAX_ASSET_BYTES)
    done = await cpu_bound(request, services(request).assets.upload, sha256, body)
    asset = done.asset
    content = {"sha256": asset.sha256, "size": asset.size, "mime_type": asset.mime_type}
    return json_response({**content, "created": asset.created.isoformat()}, 201 if done.created else 200)


@router.get(
    "/packs/{pack_id}/assets/{asset_id}",
    responses={
        200: {"description": "The file", "content": _FILE},
        206: {"description": "A byte range of an audio or video file", "content": _FILE},
        304: {"description": "Not modified (If-None-Match matched the ETag)"},
        **{k: PROBLEM_RESPONSES[k] for k in (400, 401, 404)},
        416: ASSET_RESPONSES[416],
    },
    openapi_extra=ANONYMOUS,
)
def fetch(
    request: Request,
    pack_id: PackId,
    asset_id: AssetId,
    caller: Caller,
    revision: Annotated[
        int | None, Query(ge=1, le=MAX_REVISION, description="Owner: the revision (default latest)")
    ] = None,
    range_: Annotated[str | None, Header(alias="range")] = None,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    """An asset file: the owner any of their packs'; others the published cover and cover motion only."""
    account = caller.account if caller is not None and caller.scope in _OWNER_SCOPES else None
    assets = services(request).assets
    found = assets.locate(account, pack_id, asset_id, revision)
    asset = found.asset
    headers = {
        "ETag": f'"{asset.sha256}"',
        "Cache-Control": "public, max-age=300, immutable" if found.public else "private, no-cache",
    }
    if found.ranged:
        headers["Accept-Ranges"] = "bytes"
    if if_none_match is not None and asset.sha256 in {
        t.strip().removeprefix("W/").strip('"') for t in if_none_match.split(",")
    }:
        return Response(status_code=304, headers=headers)
    span = byte_range(range_, asset.size) if found.ranged else None
    if span is None:
        return Response(assets.read(asset), headers=headers, media_type=asset.mime_type)
    start, stop = span
    headers["Content-Range"] = f"bytes {start}-{stop - 1}/{asset.size}"
    return Response(assets.read(asset, start, stop), 206, headers=headers, media_type=asset.mime_type)
