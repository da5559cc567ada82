"""``GET /static/{digest}/{name}``: the pages' static files (:mod:`~creatorpack.service.web.files`).

As for ``/docs``, the URL carries a digest of the files, so they are cached for a year and a new
release's files are fetched at once; any other digest or name is 404.
"""

from __future__ import annotations

from typing import Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from creatorpack.service.api.security import PAGE_HEADERS
from creatorpack.service.errors import NotFoundError
from creatorpack.service.web.files import FILES, files_of
from creatorpack.service.web.pages import guarded

__all__ = ["router", "static"]

_IMMUTABLE: Final = "public, max-age=31536000, immutable"

router = APIRouter(include_in_schema=False)


@router.get("/static/{digest}/{name}")
@guarded
async def static(request: Request, digest: str, name: str) -> Response:  # noqa: ARG001 - guarded renders errors with it
    """One file, at the digest of this release's files."""
    found = files_of()
    if digest != found.digest or name not in FILES:
        raise NotFoundError("no such file")
    headers = {**PAGE_HEADERS, "Cache-Control": _IMMUTABLE}
    return Response(found.contents[name], headers=headers, media_type=FILES[name])
