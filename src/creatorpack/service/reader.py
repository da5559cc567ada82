"""What readers may see of a published pack: the reader view, a type of its own, and its catalog entry.

:func:`reader_view` builds a :class:`ReaderPack` from a valid pack and the runtime's own
:class:`~creatorpack.play.ReaderView` of the start of the default entry (the first runtime entry):
manifest title and language, the publication's public metadata, the entries' titles, the visible
achievements, the titles of the badges those achievements award and the reader cards (with their
parts) revealed at that start. Nothing else of the pack is copied, so instructions, the runtime,
guidance, conditions, hidden achievements, endings, badges only they award, content, castings,
unrevealed cards, ``reward_only`` assets, provenance and source documents have no field to travel
in. Reader-facing routes serialize only these types (:meth:`ReaderPack.to_json`,
:meth:`CatalogEntry.to_json`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import orjson

from creatorpack.contract.schema import as_declared
from creatorpack.play import relationship_ids
from creatorpack.service.ports import AGE_RATINGS, VISIBILITIES, AgeRating, Visibility

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


def _asset_url(pack_id: str, asset_id: str) -> str:
    return f"/v1/packs/{pack_id}/assets/{asset_id}"


@dataclass(frozen=True, slots=True)
class ReaderRights:
    """The publication's rights: basis and statement."""

    basis: str
    statement: str

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"basis": self.basis, "statement": self.statement}


@dataclass(frozen=True, slots=True)
class ReaderCover:
    """The cover still and cover motion (asset ids and the URLs anyone who may read the pack can fetch).

    Never a ``reward_only`` asset: :func:`reader_view` leaves such a cover out (None).
    """

    pack_id: str
    asset_id: str | None
    motion_asset_id: str | None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {
            "asset_id": self.asset_id,
            "url": _asset_url(self.pack_id, self.asset_id) if self.asset_id else None,
            "motion_asset_id": self.motion_asset_id,
            "motion_url": _asset_url(self.pack_id, self.motion_asset_id) if self.motion_asset_id else None,
        }


@dataclass(frozen=True, slots=True)
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

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {
            "tagline": self.tagline,
            "description": self.description,
            "creator_credit": self.creator_credit,
            "rights": self.rights.to_json(),
            "age_rating": self.age_rating,
            "content_warnings": list(self.content_warnings),
            "genres": list(self.genres),
            "tags": list(self.tags),
            "target_audience": list(self.target_audience),
            "cover": self.cover.to_json(),
        }


@dataclass(frozen=True, slots=True)
class ReaderEntry:
    """An entry (opening) a reader may start from: its id (if it has one) and title."""

    id: str | None
    title: str

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"id": self.id, "title": self.title}


@dataclass(frozen=True, slots=True)
class ReaderAchievement:
    """A visible achievement: id, title and description (never its condition, artwork or guidance)."""

    id: str
    title: str
    description: str

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"id": self.id, "title": self.title, "description": self.description}


@dataclass(frozen=True, slots=True)
class ReaderBadge:
    """A badge a visible achievement awards: id and title (never its description or collectible)."""

    id: str
    title: str

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"id": self.id, "title": self.title}


@dataclass(frozen=True, slots=True)
class ReaderRelationship:
    """A revealed relationship of a reader card."""

    actor_id: str
    label: str

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"actor_id": self.actor_id, "label": self.label}


@dataclass(frozen=True, slots=True)
class ReaderImage:
    """A revealed avatar or image of a reader card whose asset the reader can reach (crop for avatars)."""

    asset_id: str
    crop: Mapping[str, float] | None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"asset_id": self.asset_id, "crop": dict(self.crop) if self.crop is not None else None}


@dataclass(frozen=True, slots=True)
class ReaderCard:
    """A reader card revealed at the start, with only its revealed parts."""

    id: str
    kind: str
    display_name: str
    introduction: str
    avatar: ReaderImage | None
    image: ReaderImage | None
    relationships: tuple[ReaderRelationship, ...]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {
            "id": self.id,
            "kind": self.kind,
            "display_name": self.display_name,
            "introduction": self.introduction,
            "avatar": self.avatar.to_json() if self.avatar else None,
            "image": self.image.to_json() if self.image else None,
            "relationships": [r.to_json() for r in self.relationships],
        }


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """A public pack as the catalog lists it: a subset of its :class:`ReaderPack`."""

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
    published: str

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {
            "pack_id": self.pack_id,
            "revision": self.revision,
            "title": self.title,
            "language": self.language,
            "tagline": self.tagline,
            "creator_credit": self.creator_credit,
            "age_rating": self.age_rating,
            "content_warnings": list(self.content_warnings),
            "genres": list(self.genres),
            "tags": list(self.tags),
            "cover": self.cover.to_json(),
            "published": self.published,
            "reader": f"/v1/packs/{self.pack_id}/reader",
        }

    def serialize(self) -> bytes:
        """The JSON bytes the catalog answers with."""
        return orjson.dumps(self.to_json())


@dataclass(frozen=True, slots=True)
class ReaderPack:
    """The reader view of a published revision: everything any reader may see before playing."""

    pack_id: str
    revision: int
    published: str
    title: str
    language: str
    publication: ReaderPublication
    entries: tuple[ReaderEntry, ...]
    achievements: tuple[ReaderAchievement, ...]
    badges: tuple[ReaderBadge, ...]
    reader_cards: tuple[ReaderCard, ...]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON: the body of ``GET /v1/packs/{pack_id}/reader``."""
        return {
            "pack_id": self.pack_id,
            "revision": self.revision,
            "published": self.published,
            "title": self.title,
            "language": self.language,
            "publication": self.publication.to_json(),
            "entries": [e.to_json() for e in self.entries],
            "achievements": [a.to_json() for a in self.achievements],
            "badges": [b.to_json() for b in self.badges],
            "reader_cards": [c.to_json() for c in self.reader_cards],
        }

    def serialize(self) -> bytes:
        """The JSON bytes stored at publication and served as they are."""
        return orjson.dumps(self.to_json())

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
        cover=ReaderCover(pack_id, *(c if isinstance(c, str) and c not in hidden else None for c in covers)),
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
