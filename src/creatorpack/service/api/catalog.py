"""What readers reach: ``GET /v1/catalog`` and ``GET /v1/packs/{pack_id}/reader`` (anonymous callers included).

Both answer with bytes serialized from reader-view types only (:mod:`creatorpack.service.reader`).
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Header, Query, Request
from starlette.responses import Response

from creatorpack.service.api.deps import (
    ANONYMOUS,
    CATALOG_RESPONSES,
    DIGITS,
    PROBLEM_RESPONSES,
    optional_token,
    services,
)
from creatorpack.service.api.packs import PackId
from creatorpack.service.catalog import MAX_LIMIT, CatalogPage, CatalogRequest
from creatorpack.service.ports import CatalogSort, TokenRecord
from creatorpack.service.reader import ReaderPack

__all__ = ["catalog", "reader", "router"]

router = APIRouter(prefix="/v1", tags=["catalog"])

Caller = Annotated[TokenRecord | None, Depends(optional_token)]
Words = Annotated[list[str], Query(description="Repeatable; the first 20 count")]
_READER_ERRORS: Final[dict[int | str, dict[str, Any]]] = {k: PROBLEM_RESPONSES[k] for k in (400, 401, 404)}


@router.get(
    "/catalog",
    response_model=CatalogPage,
    responses={**CATALOG_RESPONSES, 401: PROBLEM_RESPONSES[401]},
    openapi_extra=ANONYMOUS,
)
def catalog(
    request: Request,
    _caller: Caller,
    q: Annotated[str | None, Query(max_length=200, description="Words of the title, tagline or description")] = None,
    language: Annotated[Literal["zh", "zh-CN", "en"] | None, Query()] = None,
    genre: Words = [],  # noqa: B006 - FastAPI copies defaults
    tag: Words = [],  # noqa: B006
    exclude_tag: Words = [],  # noqa: B006
    age_rating: Annotated[list[Literal["general", "adult"]], Query(description="Default: general only")] = [],  # noqa: B006
    sort: Annotated[CatalogSort | None, Query(description="Default: relevance with q, else newest")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT), DIGITS] = 20,
    cursor: Annotated[str | None, Query(max_length=2048, description="The `next` of the previous page")] = None,
) -> Response:
    """Public published packs: filtered, searched, sorted, paged with an opaque cursor (``next``, ``Link``)."""
    found = services(request).catalog.search(
        CatalogRequest(
            q, language, tuple(genre), tuple(tag), tuple(exclude_tag), tuple(age_rating), sort, limit, cursor
        )
    )
    headers = {}
    if found.next is not None:
        query = [(k, v) for k, v in request.query_params.multi_items() if k != "cursor"] + [("cursor", found.next)]
        headers["Link"] = f'</v1/catalog?{urlencode(query)}>; rel="next"'
    return Response(found.serialize(), headers=headers, media_type="application/json")


@router.get(
    "/packs/{pack_id}/reader",
    response_model=ReaderPack,
    responses={304: {"description": "Not modified (If-None-Match matched the ETag)"}, **_READER_ERRORS},
    openapi_extra=ANONYMOUS,
)
def reader(
    request: Request,
    pack_id: PackId,
    caller: Caller,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    """The reader view of the published revision: public and unlisted packs for anyone, private ones for the owner."""
    document = services(request).packs.reader(caller.account if caller else None, pack_id)
    headers = {"ETag": document.etag, "Cache-Control": "public, no-cache" if document.public else "private, no-cache"}
    if if_none_match is not None and _tags(if_none_match) & {document.etag.strip('"'), "*"}:
        return Response(status_code=304, headers=headers)
    return Response(document.data, headers=headers, media_type="application/json")


def _tags(header: str) -> set[str]:
    return {t.strip().removeprefix("W/").strip('"') for t in header.split(",")}
