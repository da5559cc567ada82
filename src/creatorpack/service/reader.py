"""What readers may see of a published pack: the reader view, a type of its own, and its catalog entry.

:func:`reader_view` builds a :class:`ReaderPack` from a valid pack and the runtime's own
:class:`~creatorpack.play.ReaderView` of the start of the default entry (the first runtime entry):
manifest title and language, the publication's public metadata, the entries' titles, the visible
achievements, the titles of the badges those achievements award and the reader cards (with their
parts) revealed at that start. Nothing else of the pack is copied, so instructions, the runtime,
guidance, conditions, hidden achievements, endings, badges only they award, content, castings,
unrevealed cards, ``reward_only`` assets, provenance and source documents have no field to travel
in. Reader-facing routes serialize only these types (:meth:`ReaderPack.serialize`,
:meth:`CatalogEntry.serialize`).

Each type is a response shape (:mod:`creatorpack.service.shapes`): its fields are the members of
its JSON form, so the bytes (``orjson.dumps``) and the OpenAPI schema both come from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Final

import orjson
from pydantic import Field

from creatorpack.contract.schema import as_declared
from creatorpack.play import relationship_ids
from creatorpack.service.ports import AGE_RATINGS, VISIBILITIES, AgeRating, Visibility
from creatorpack.service.shapes import Timestamp

if TYPE_CHECKING:
    from creatorpack.play import ReaderView

__all__ = [
    "CatalogEntry",
    "ReaderAchievement",
    "ReaderBadge",
    "ReaderCard",
    "ReaderCover",
    "ReaderEntry",
    "ReaderImage",
    "ReaderPack",
    "ReaderPublication",
    "ReaderRelationship",
    "ReaderRights",
    "publication_visibility",
    "reader_view",
]

_COVER_ROLES: Final = ("cover_asset_id", "cover_motion_asset_id")


def _asset_url(pack_id: str, asset_id: str | None) -> str | None:
    return f"/v1/packs/{pack_id}/assets/{asset_id}" if asset_id else None


@dataclass(frozen=True)
class ReaderRights:
    """Publication rights."""

    basis: str
    statement: str


@dataclass(frozen=True)
class ReaderCover:
    """Cover still and motion, with the URLs to fetch them (anyone who may read the pack may fetch them).

    Never a ``reward_only`` asset: :func:`reader_view` leaves such a cover out (None).
    """

    asset_id: str | None
    url: str | None
    motion_asset_id: str | None
    motion_url: str | None

    @classmethod
    def of(cls, pack_id: str, asset_id: str | None, motion_asset_id: str | None) -> ReaderCover:
        """The cover of ``pack_id`` with these assets (None: no such cover), with their URLs."""
        return cls(asset_id, _asset_url(pack_id, asset_id), motion_asset_id, _asset_url(pack_id, motion_asset_id))


@dataclass(frozen=True)
class ReaderPublication:
    """The publication's public metadata (never its visibility switch or comment settings)."""

    tagline: str
    description: str
    creator_credit: str
    rights: ReaderRights
    age_rating: AgeRating
    content_warnings: tuple[str, ...]
    genres: tuple[str, ...]
    tags: tuple[str, ...]
    target_audience: tuple[str, ...]
    cover: ReaderCover


@dataclass(frozen=True)
class ReaderEntry:
    """An entry (opening) a reader may start from: its id (if it has one) and title."""

    id: str | None
    title: str


@dataclass(frozen=True)
class ReaderAchievement:
    """A visible achievement: id, title and description (never its condition, artwork or guidance)."""

    id: str
    title: str
    description: str


@dataclass(frozen=True)
class ReaderBadge:
    """A badge a visible achievement awards: id and title (never its description or collectible)."""

    id: str
    title: str


@dataclass(frozen=True)
class ReaderRelationship:
    """A revealed relationship of a reader card."""

    actor_id: str
    label: str


@dataclass(frozen=True)
class ReaderImage:
    """A revealed avatar (with its crop) or image of a reader card, whose asset the reader can reach."""

    asset_id: str
    crop: dict[str, float] | None


@dataclass(frozen=True)
class ReaderCard:
    """A reader card revealed at the start of the default entry, with only its revealed parts."""

    id: str
    kind: str
    display_name: str
    introduction: str
    avatar: ReaderImage | None
    image: ReaderImage | None
    relationships: tuple[ReaderRelationship, ...]


@dataclass(frozen=True)
class CatalogEntry:
    """A public pack in the catalog: a subset of its :class:`ReaderPack`."""

    pack_id: str
    revision: int
    title: str
    language: str
    tagline: str
    creator_credit: str
    age_rating: AgeRating
    content_warnings: tuple[str, ...]
    genres: tuple[str, ...]
    tags: tuple[str, ...]
    cover: ReaderCover
    published: Timestamp
    reader: Annotated[str, Field(description="The reader view's path")]

    def serialize(self) -> bytes:
        """The JSON bytes the catalog answers with (kept with the publication)."""
        return orjson.dumps(self)


@dataclass(frozen=True)
class ReaderPack:
    """The reader view of the published revision (see docs/service.md: what it never holds)."""

    pack_id: str
    revision: int
    published: Timestamp
    title: str
    language: str
    publication: ReaderPublication
    entries: tuple[ReaderEntry, ...]
    achievements: tuple[ReaderAchievement, ...]
    badges: tuple[ReaderBadge, ...]
    reader_cards: tuple[ReaderCard, ...]

    def serialize(self) -> bytes:
        """The body of ``GET /v1/packs/{pack_id}/reader``: stored at publication and served as it is."""
        return orjson.dumps(self)

    def catalog_entry(self) -> CatalogEntry:
        """What the catalog lists of this pack."""
        publication = self.publication
        return CatalogEntry(
            self.pack_id,
            self.revision,
            self.title,
            self.language,
            publication.tagline,
            publication.creator_credit,
            publication.age_rating,
            publication.content_warnings,
            publication.genres,
            publication.tags,
            publication.cover,
            self.published,
            f"/v1/packs/{self.pack_id}/reader",
        )

    @property
    def cover_asset_ids(self) -> tuple[str, ...]:
        """The cover and cover-motion asset ids (what other accounts may fetch)."""
        cover = self.publication.cover
        return tuple(a for a in (cover.asset_id, cover.motion_asset_id) if a)


def publication_visibility(pack: Mapping[str, Any]) -> Visibility:
    """The pack's ``publication.visibility`` (``private`` when absent: the contract's default)."""
    publication = pack.get("publication")
    value = publication.get("visibility") if isinstance(publication, Mapping) else None
    return next((v for v in VISIBILITIES if v == value), "private")


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _reward_only(pack: Mapping[str, Any]) -> frozenset[str]:
    """The ids of the pack's ``reward_only`` assets."""
    assets = pack.get("assets")
    return frozenset(
        str(a["id"])
        for a in (assets if isinstance(assets, list) else [])
        if isinstance(a, Mapping) and a.get("access") == "reward_only" and isinstance(a.get("id"), str)
    )


def _publication(pack_id: str, raw: Any, hidden: frozenset[str]) -> ReaderPublication:
    """The public metadata; a cover among ``hidden`` (a ``reward_only`` asset) is left out, as if none was named.

    Lint warns of such a cover (``spoiler-asset``) but does not block the publication, so this is
    where it is kept from readers: a cover the reader view does not name is no cover the asset route
    serves to anyone but the owner.
    """
    publication: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    rights = publication.get("rights") if isinstance(publication.get("rights"), Mapping) else {}
    assert isinstance(rights, Mapping)
    rating: AgeRating = next((r for r in AGE_RATINGS if r == publication.get("age_rating")), "general")
    covers = [publication.get(role) for role in _COVER_ROLES]
    return ReaderPublication(
        tagline=_text(publication.get("tagline")),
        description=_text(publication.get("description")),
        creator_credit=_text(publication.get("creator_credit")),
        rights=ReaderRights(_text(rights.get("basis")), _text(rights.get("statement"))),
        age_rating=rating,
        content_warnings=_strings(publication.get("content_warnings")),
        genres=_strings(publication.get("genres")),
        tags=_strings(publication.get("tags")),
        target_audience=_strings(publication.get("target_audience")),
        cover=ReaderCover.of(pack_id, *(c if isinstance(c, str) and c not in hidden else None for c in covers)),
    )


def _card(card: Mapping[str, Any], view: ReaderView, reachable: frozenset[str]) -> ReaderCard:
    card_id = str(card["id"])

    def part(name: str, revealed: Sequence[str]) -> ReaderImage | None:
        found = card.get(name)
        if not isinstance(found, Mapping) or card_id not in revealed or found.get("asset_id") not in reachable:
            return None
        crop = found.get("crop")
        return ReaderImage(str(found["asset_id"]), dict(crop) if isinstance(crop, Mapping) else None)

    shown = set(view.revealed.get("relationships", ()))
    relationships = tuple(
        ReaderRelationship(str(r["actor_id"]), str(r["label"]))
        for ident, r in zip(relationship_ids(card), card.get("relationships", []), strict=True)
        if isinstance(r, Mapping) and ident in shown
    )
    return ReaderCard(
        card_id,
        _text(card.get("kind")) or "actor",
        _text(card.get("display_name")),
        _text(card.get("introduction")),
        part("avatar", view.revealed.get("avatars", ())),
        part("image", view.revealed.get("images", ())),
        relationships,
    )


def reader_view(pack: Mapping[str, Any], view: ReaderView, published: str) -> ReaderPack:
    """The reader view of a valid 0.3-0.5 ``pack`` whose runtime showed ``view`` at the start of its default entry.

    ``published`` is the publication time (ISO 8601). A badge is listed only when an achievement listed
    here (a visible or guided one) awards it: one that only a hidden achievement or an ending awards,
    or nothing, would name what readers should discover by playing.
    """
    pack = as_declared(pack)  # a 0.3 pack's hand-written progression lists nothing
    manifest = pack["manifest"]
    pack_id = str(manifest["pack_id"])
    progression = pack.get("progression") if isinstance(pack.get("progression"), Mapping) else {}
    assert isinstance(progression, Mapping)
    visible = {*view.locked_achievements, *view.achievements}
    listed = [
        a
        for a in progression.get("achievements", [])
        if isinstance(a, Mapping) and a.get("id") in visible and a.get("visibility") != "hidden"
    ]
    achievements = tuple(
        ReaderAchievement(str(a["id"]), _text(a.get("title")), _text(a.get("description"))) for a in listed
    )
    awarded = {a.get("badge_id") for a in listed}
    badges = tuple(
        ReaderBadge(str(b["id"]), _text(b.get("title")))
        for b in progression.get("badges", [])
        if isinstance(b, Mapping) and isinstance(b.get("id"), str) and b["id"] in awarded
    )
    revealed = set(view.revealed.get("reader_cards", ()))
    hidden = _reward_only(pack)
    reachable = frozenset(view.assets) - hidden  # a reward's art, even one unlocked at the start, is a session's
    cards = tuple(
        _card(c, view, reachable)
        for c in pack.get("reader_cards", [])
        if isinstance(c, Mapping) and c.get("id") in revealed
    )
    entries = tuple(
        ReaderEntry(e["id"] if isinstance(e.get("id"), str) else None, _text(e.get("title")))
        for e in pack.get("entries", [])
        if isinstance(e, Mapping)
    )
    return ReaderPack(
        pack_id=pack_id,
        revision=int(manifest["revision"]),
        published=published,
        title=_text(manifest.get("title")),
        language=_text(manifest.get("language")),
        publication=_publication(pack_id, pack.get("publication"), hidden),
        entries=entries,
        achievements=achievements,
        badges=badges,
        reader_cards=cards,
    )
