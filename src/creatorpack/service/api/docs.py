"""``GET /docs``: the interactive API reference (Swagger UI over ``/openapi.json``), from vendored files.

Nothing is loaded from a CDN: the page, Swagger UI (``service/static/swagger-ui``, see its README) and
the page's start-up script (``service/static/swagger-init.js``) are served from here, under the
policy of :mod:`creatorpack.service.api.security` (no inline script, no ``eval``). Asset URLs carry a
digest of the files, ``/docs/static/{digest}/{name}``, so they are cached for a year and a release
with other files is fetched at once. None of these routes is in the OpenAPI document.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from importlib.resources import files
from typing import Final

from fastapi import APIRouter
from starlette.responses import Response

from creatorpack.service.api.security import PAGE_HEADERS
from creatorpack.service.errors import NotFoundError

__all__ = [
    "ASSETS",
    "docs",
    "router",
    "static",
]

ASSETS: Final = {
    "swagger-ui-bundle.js": ("swagger-ui/swagger-ui-bundle.js", "text/javascript; charset=utf-8"),
    "swagger-ui.css": ("swagger-ui/swagger-ui.css", "text/css; charset=utf-8"),
    "favicon-32x32.png": ("swagger-ui/favicon-32x32.png", "image/png"),
    "swagger-init.js": ("swagger-init.js", "text/javascript; charset=utf-8"),
}
"""Each served asset: its file under ``service/static`` and its media type."""

_IMMUTABLE: Final = "public, max-age=31536000, immutable"
_PAGE: Final = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>creatorpack service: API reference</title>
<link rel="stylesheet" href="{static}/swagger-ui.css">
<link rel="icon" type="image/png" sizes="32x32" href="{static}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{static}/swagger-ui-bundle.js"></script>
<script src="{static}/swagger-init.js"></script>
</body>
</html>
"""

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True, slots=True)
class _Assets:
    digest: str
    contents: dict[str, bytes]

    @property
    def prefix(self) -> str:
        return f"/docs/static/{self.digest}"


@functools.cache
def _assets() -> _Assets:
    """The asset files, read once per process (about 1.9 MB), and the digest that versions their URLs."""
    static = files("creatorpack.service").joinpath("static")
    contents = {name: static.joinpath(path).read_bytes() for name, (path, _) in ASSETS.items()}
    digest = hashlib.sha256()
    for name in sorted(contents):
        digest.update(name.encode() + b"\0" + hashlib.sha256(contents[name]).digest())
    return _Assets(digest.hexdigest()[:16], contents)


@router.get("/docs")
async def docs() -> Response:
    """The Swagger UI page (no inline script: its start-up is ``swagger-init.js``)."""
    page = _PAGE.format(static=_assets().prefix)
    headers = {**PAGE_HEADERS, "Cache-Control": "no-cache"}
    return Response(page, headers=headers, media_type="text/html; charset=utf-8")


@router.get("/docs/static/{digest}/{name}")
async def static(digest: str, name: str) -> Response:
    """One asset of the page, at the digest of this release's files (any other is 404)."""
    assets = _assets()
    if digest != assets.digest or name not in ASSETS:
        raise NotFoundError("no such file")
    headers = {**PAGE_HEADERS, "Cache-Control": _IMMUTABLE}
    return Response(assets.contents[name], headers=headers, media_type=ASSETS[name][1])
