"""``GET /``: the catalog page; ``GET /packs/{pack_id}``: a pack's page; its files for the page.

Both render the reader-view types only: the catalog's entries (:class:`~creatorpack.service.reader.CatalogEntry`
as the catalog stored them) and the publication's stored reader view (what
``GET /v1/packs/{pack_id}/reader`` answers), read through the same domain calls as those routes.
"""

from __future__ import annotations

import re
from typing import Any, Final
from urllib.parse import urlencode

import orjson
from fastapi import APIRouter, Request
from starlette.responses import Response

from creatorpack.service.api.assets import file_response, is_head
from creatorpack.service.api.packs import ID_PATTERN
from creatorpack.service.api.security import PAGE_HEADERS
from creatorpack.service.catalog import MAX_VALUES, CatalogRequest
from creatorpack.service.errors import NotFoundError
from creatorpack.service.packs import ReaderDocument
from creatorpack.service.ports import AGE_RATINGS, REPORT_REASONS, AgeRating
from creatorpack.service.web.files import files_of
from creatorpack.service.web.pages import PageError, call, guarded, read_form, render, services_of, signed_in

__all__ = ["LANGUAGES", "PAGE_SIZE", "catalog", "pack", "pack_context", "pack_file", "report", "router"]

router = APIRouter(include_in_schema=False)

LANGUAGES: Final = ("en", "zh", "zh-CN")
"""The languages the catalog filters by (as ``GET /v1/catalog``'s ``language``)."""
PAGE_SIZE: Final = 12
_ID: Final = re.compile(ID_PATTERN)
_OWNER_SCOPES: Final = ("creator", "admin")
_MAX_QUERY: Final = 200


def _one(request: Request, name: str) -> str:
    return request.query_params.get(name, "").strip()[:_MAX_QUERY]


@router.get("/")
@guarded
async def catalog(request: Request) -> Response:
    """Search and filter the public packs, a page at a time (a plain GET form: works without JavaScript)."""
    q = _one(request, "q")
    language = _one(request, "language")
    genre = _one(request, "genre")
    tag = _one(request, "tag")
    rating = _one(request, "age_rating")
    cursor = request.query_params.get("cursor") or None
    if language not in ("", *LANGUAGES):
        raise PageError(400, f"choose a language among {', '.join(LANGUAGES)}")
    ratings: tuple[AgeRating, ...] = ()
    if rating == "all":
        ratings = AGE_RATINGS
    elif rating:
        ratings = tuple(r for r in AGE_RATINGS if r == rating)
        if not ratings:
            raise PageError(400, "choose the age rating general, adult or all")
    found = CatalogRequest(
        q or None,
        language or None,
        tuple(g.strip() for g in genre.split(",") if g.strip())[:MAX_VALUES],
        tuple(t.strip() for t in tag.split(",") if t.strip())[:MAX_VALUES],
        age_rating=ratings,
        limit=PAGE_SIZE,
        cursor=cursor if cursor is None or len(cursor) <= 2048 else "x",
    )
    result = await call(services_of(request).catalog.search, found)
    entries = [orjson.loads(entry) for entry in result.entries]
    following = None
    kept = [(k, v) for k, v in request.query_params.multi_items() if k != "cursor"]
    if result.next is not None:
        following = "/?" + urlencode([*kept, ("cursor", result.next)])
    filters = {"q": q, "language": language, "genre": genre, "tag": tag, "age_rating": rating}
    return render(
        request,
        "catalog.html",
        entries=entries,
        following=following,
        restart="/?" + urlencode(kept) if cursor is not None else None,
        filters=filters,
        languages=LANGUAGES,
    )


def _crop_data(image: dict[str, Any] | None) -> str:
    """An avatar's crop as the page's script reads it (``x y width height``, fractions); empty for none."""
    crop = (image or {}).get("crop") or {}
    try:
        parts = [float(crop[k]) for k in ("x", "y", "width", "height")]
    except (KeyError, TypeError, ValueError):
        return ""
    return " ".join(f"{p:.4f}" for p in parts)


@router.get("/packs/{pack_id}")
@guarded
async def pack(request: Request, pack_id: str) -> Response:
    """A published pack's reader view: the owner also reaches a private one, nobody a hidden one."""
    if _ID.fullmatch(pack_id) is None:
        raise NotFoundError(f"no published pack {pack_id!r}")
    me = signed_in(request)  # read by guarded, off the event loop
    document = await call(services_of(request).packs.reader, me.account if me is not None else None, pack_id)
    return render(request, "pack.html", me=me, **pack_context(document))


def pack_context(document: ReaderDocument) -> dict[str, Any]:
    """What ``pack.html`` renders of a stored reader view (and nothing else): the route's and its fast path's."""
    view = orjson.loads(document.data)
    cards = [
        {
            **card,
            "crop": _crop_data(card.get("avatar")),
            "show_avatar": document.owned and card.get("avatar") is not None,
        }
        for card in view["reader_cards"]
    ]
    return {"view": view, "cards": cards, "owner": document.owned, "reasons": REPORT_REASONS}


@router.get("/packs/{pack_id}/files/{asset_id}")
@guarded
async def pack_file(request: Request, pack_id: str, asset_id: str) -> Response:
    """A file of the pack for its page: anyone the published cover, the signed-in owner any of the pack's assets."""
    me = await call(signed_in, request)
    account = me.account if me is not None and me.scope in _OWNER_SCOPES else None
    if _ID.fullmatch(pack_id) is None or _ID.fullmatch(asset_id) is None:
        raise NotFoundError(f"no asset {asset_id!r} of pack {pack_id!r} for this caller")
    assets = services_of(request).assets
    try:
        found = await call(assets.locate, account, pack_id, asset_id)
    except NotFoundError:
        if not await call(_not_uploaded_cover, request, pack_id, asset_id):
            raise
        headers = {**PAGE_HEADERS, "Cache-Control": "no-cache"}
        return Response(files_of().contents["placeholder.svg"], headers=headers, media_type="image/svg+xml")
    cache = "public, max-age=300, immutable" if found.public else "private, no-cache"

    def respond() -> Response:
        return file_response(assets, found, cache, request.headers.get("range"), None, head=is_head(request))

    answer: Response = await call(respond)  # it reads the first chunk of the file
    return answer


def _not_uploaded_cover(request: Request, pack_id: str, asset_id: str) -> bool:
    """Whether the asset is a cover of a publication anyone may read whose file is not uploaded (yet).

    Its page then shows a neutral placeholder rather than a broken image; the cover's id is public.
    """
    publication = services_of(request).packs.publication(pack_id)
    return publication is not None and publication.open_to_others and asset_id in publication.covers


@router.post("/packs/{pack_id}/report")
@guarded
async def report(request: Request, pack_id: str) -> Response:
    """Report the pack (signed in or not), through the moderation domain and its rate limit, as the API does."""
    form = await read_form(request, 16 * 1024)
    reason = next((r for r in REPORT_REASONS if r == form.get("reason")), None)
    if reason is None:
        raise PageError(400, f"choose a reason among {', '.join(REPORT_REASONS)}")
    me = await call(signed_in, request)
    settings = services_of(request).settings
    if settings.rate_reports.enabled:
        client = request.client
        who = f"report:account:{me.account}" if me else f"report:ip:{client.host if client else 'unknown'}"
        decision = await request.app.state.limiter.hit(who, settings.rate_reports)
        if not decision.allowed:
            raise PageError(429, f"too many reports; try again in {decision.reset} s")
    if _ID.fullmatch(pack_id) is None:
        raise NotFoundError(f"no published pack {pack_id!r}")
    await call(services_of(request).moderation.report, me, pack_id, reason, form.get("details"))
    return render(request, "reported.html", pack_id=pack_id)
