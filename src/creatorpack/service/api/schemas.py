"""Response shapes, for the OpenAPI document (handlers serialize with orjson, in these shapes)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

__all__ = [
    "INTEGRAL",
    "Asset",
    "CatalogEntryModel",
    "CatalogPageModel",
    "Event",
    "Events",
    "Finding",
    "Health",
    "LintReport",
    "MigrateRequest",
    "NarratorEntry",
    "NarratorSession",
    "NarratorTranscript",
    "NarratorTurn",
    "Pack",
    "PackDiff",
    "PackTakedown",
    "Problem",
    "PublishRequest",
    "Published",
    "ReaderAchievementModel",
    "ReaderBadgeModel",
    "ReaderCardModel",
    "ReaderCoverModel",
    "ReaderEntry",
    "ReaderEntryModel",
    "ReaderImageModel",
    "ReaderPackModel",
    "ReaderPublicationModel",
    "ReaderRelationshipModel",
    "ReaderRightsModel",
    "ReaderSession",
    "ReaderTranscript",
    "ReaderTurn",
    "Report",
    "Revision",
    "RevisionNumber",
    "StartRequest",
    "TurnNumber",
    "TurnRequest",
    "Violation",
]


class Violation(BaseModel):
    """One violation, as ``creatorpack validate --format json`` prints it."""

    pointer: str = Field(description="RFC 6901 JSON Pointer ('' is the whole pack)")
    code: str
    message: str
    line: int | None
    column: int | None


class Report(BaseModel):
    """The CLI's JSON report for one file, without its path."""

    valid: bool
    version: str | None
    errors: list[Violation]


class Finding(Violation):
    """One lint finding (``creatorpack lint --format json``)."""

    severity: Literal["error", "warning"]


class LintReport(BaseModel):
    """The CLI's JSON lint report for one file, without its path."""

    valid: bool
    version: str | None
    errors: list[Finding]


class Revision(BaseModel):
    """A stored revision."""

    pack_id: str
    revision: int
    sha256: str
    size: int
    version: str
    created: datetime
    published: bool


class PackTakedown(BaseModel):
    """Why and when the platform's admins hid the pack (it stays hidden until they restore it)."""

    reason: str
    at: datetime


class Pack(BaseModel):
    """A pack as its owner sees it: live revisions, the published one and the visibility."""

    pack_id: str
    created: datetime
    latest_revision: int = Field(description="The highest revision number ever stored (deleted ones included)")
    published_revision: int | None
    visibility: Literal["public", "unlisted", "private"]
    revisions: list[Revision]
    takedown: PackTakedown | None = Field(
        description="Set while a platform admin hides the pack from the catalog and its readers"
    )


class Health(BaseModel):
    """The service answers."""

    status: Literal["ok"]


class Problem(BaseModel):
    """RFC 9457 problem details; extension members depend on the type (see docs/service.md)."""

    model_config = ConfigDict(extra="allow")

    type: str
    title: str
    status: int
    detail: str
    instance: str | None = None
    code: str | None = None
    errors: list[dict[str, Any]] | None = None


# -- play sessions ------------------------------------------------------------------------------------

_MAX_REVISION = 9_007_199_254_740_991
_MAX_TURN = 2_147_483_647


def _integral(value: Any) -> Any:
    """A number with a zero fractional part as the integer it is (``1604.0``, ``1e3``); anything else as it is.

    JSON Schema's ``integer`` is any number whose fractional part is zero, and the OpenAPI document
    says ``integer``, so a client (or a JSON library) that writes ``1604.0`` means 1604. Booleans,
    strings and ``3.5`` stay what they are, and the strict integer after this refuses them (400).
    """
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


INTEGRAL: Final = BeforeValidator(_integral)
"""Metadata of a JSON body's integer field: an integral number is that integer (see :func:`_integral`)."""
RevisionNumber = Annotated[int, Field(ge=1, le=_MAX_REVISION, strict=True), INTEGRAL]
"""A revision number in a JSON body: 1 to 2^53 - 1, an integral number (``3.0`` is 3; ``true``, ``"3"`` are not)."""
TurnNumber = Annotated[int, Field(ge=1, le=_MAX_TURN, strict=True), INTEGRAL]
"""A turn number in a JSON body: 1 to 2^31 - 1, an integral JSON number."""


class StartRequest(BaseModel):
    """``POST /v1/packs/{pack_id}/sessions``: where to start (all optional)."""

    model_config = ConfigDict(extra="forbid")

    entry: str | None = Field(None, max_length=200, description="A runtime entry id (default: the first entry)")
    revision: RevisionNumber | None = Field(None, description="The owner only: a revision to playtest")


class TurnRequest(BaseModel):
    """``POST /v1/sessions/{id}/turns``: turn N's observations, as a line of a ``creatorpack play`` script."""

    model_config = ConfigDict(extra="forbid")

    turn: TurnNumber = Field(description="The next turn number (the last one to retry)")
    observations: dict[str, Any] = Field(default_factory=dict, description="Observation id to answer")
    illustration_matches: list[str] = Field(default_factory=list, description="Illustration rule ids matched")


class MigrateRequest(BaseModel):
    """``POST /v1/sessions/{id}/migrate``: the revision to move the session to."""

    model_config = ConfigDict(extra="forbid")

    revision: RevisionNumber


class ReaderTurn(BaseModel):
    """What a reader sees after a turn (``ReaderView.to_json()``): ids only, nothing meant for the narrator."""

    turn: int
    revealed: dict[str, list[str]]
    new_revealed: dict[str, list[str]]
    achievements: list[str]
    new_achievements: list[str]
    locked_achievements: list[str]
    badges: list[str]
    new_badges: list[str]
    ending: str | None
    illustration: str | None
    assets: list[str]


class NarratorTurn(BaseModel):
    """One turn of ``creatorpack play --format json`` (``TurnResult.to_json()``), for hosts and owners."""

    turn: int
    state: dict[str, Any]
    active_rules: list[str]
    completed_rules: list[str]
    rejected_effects: list[dict[str, Any]]
    unlocked_achievements: list[str]
    badges: list[str]
    ending: str | None
    illustration: str | None
    revealed: dict[str, list[str]]
    reachable_assets: list[str]
    new: dict[str, Any]
    narrator: dict[str, Any]


class _SessionBase(BaseModel):
    session_id: str
    pack_id: str
    revision: int
    entry: str
    turn: int = Field(description="The number of the last turn played (0: just started)")
    over: bool


class ReaderSession(_SessionBase):
    """A session as its reader sees it."""

    view: Literal["reader"]
    current: ReaderTurn


class NarratorSession(_SessionBase):
    """A session as the host and the owner see it, with its save (``creatorpack.session/1``)."""

    view: Literal["narrator"]
    current: NarratorTurn
    save: dict[str, Any]


class _EntryBase(BaseModel):
    seq: int
    kind: Literal["start", "turn", "migrate"]
    turn: int
    revision: int
    at: datetime


class ReaderEntry(_EntryBase):
    """One transcript entry for a reader."""

    view: ReaderTurn


class NarratorEntry(_EntryBase):
    """One transcript entry for the host and the owner."""

    request: dict[str, Any] | None
    result: NarratorTurn
    migration: dict[str, Any] | None = Field(description="A migration's report: from and to revision, level, steps")


class ReaderTranscript(BaseModel):
    """A session's transcript for its reader."""

    session_id: str
    pack_id: str
    view: Literal["reader"]
    entries: list[ReaderEntry]


class NarratorTranscript(BaseModel):
    """A session's transcript for the host and the owner."""

    session_id: str
    pack_id: str
    view: Literal["narrator"]
    entries: list[NarratorEntry]


class PackDiff(BaseModel):
    """``creatorpack diff --format json``: the changes by id and the save compatibility verdict."""

    pack_id: str | None
    old_revision: int | None
    new_revision: int | None
    changes: list[dict[str, Any]]
    compatibility: dict[str, Any]


# -- publishing, the journal, the reader view, the catalog, assets ------------------------------------


class PublishRequest(BaseModel):
    """Which revision to publish."""

    model_config = ConfigDict(extra="forbid")

    revision: RevisionNumber = Field(description="A live revision of the pack")


class Published(BaseModel):
    """The published revision, its visibility (from publication.visibility) and the lint warnings."""

    pack_id: str
    revision: int
    visibility: Literal["public", "unlisted", "private"]
    published: datetime
    warnings: list[Finding]


class Event(BaseModel):
    """One audit journal entry."""

    id: int
    kind: Literal["upload", "delete", "publish", "unpublish"]
    account: str
    token_id: str | None = Field(description="The id of the token used (None: the command line)")
    at: datetime
    revision: int | None


class Events(BaseModel):
    """A page of the audit journal, oldest first; ``next`` is the ``after`` of the following page."""

    events: list[Event]
    next: int | None


class ReaderRightsModel(BaseModel):
    """Publication rights."""

    basis: str
    statement: str


class ReaderCoverModel(BaseModel):
    """Cover still and motion, with the URLs to fetch them."""

    asset_id: str | None
    url: str | None
    motion_asset_id: str | None
    motion_url: str | None


class ReaderPublicationModel(BaseModel):
    """The publication's public metadata."""

    tagline: str
    description: str
    creator_credit: str
    rights: ReaderRightsModel
    age_rating: Literal["general", "adult"]
    content_warnings: list[str]
    genres: list[str]
    tags: list[str]
    target_audience: list[str]
    cover: ReaderCoverModel


class ReaderEntryModel(BaseModel):
    """An entry a reader may start from."""

    id: str | None
    title: str


class ReaderAchievementModel(BaseModel):
    """A visible achievement."""

    id: str
    title: str
    description: str


class ReaderBadgeModel(BaseModel):
    """A badge."""

    id: str
    title: str


class ReaderImageModel(BaseModel):
    """A revealed avatar (with its crop) or image of a reader card."""

    asset_id: str
    crop: dict[str, float] | None


class ReaderRelationshipModel(BaseModel):
    """A revealed relationship."""

    actor_id: str
    label: str


class ReaderCardModel(BaseModel):
    """A reader card revealed at the start of the default entry."""

    id: str
    kind: str
    display_name: str
    introduction: str
    avatar: ReaderImageModel | None
    image: ReaderImageModel | None
    relationships: list[ReaderRelationshipModel]


class ReaderPackModel(BaseModel):
    """The reader view of the published revision (see docs/service.md: what it never holds)."""

    pack_id: str
    revision: int
    published: datetime
    title: str
    language: str
    publication: ReaderPublicationModel
    entries: list[ReaderEntryModel]
    achievements: list[ReaderAchievementModel]
    badges: list[ReaderBadgeModel]
    reader_cards: list[ReaderCardModel]


class CatalogEntryModel(BaseModel):
    """A public pack in the catalog."""

    pack_id: str
    revision: int
    title: str
    language: str
    tagline: str
    creator_credit: str
    age_rating: Literal["general", "adult"]
    content_warnings: list[str]
    genres: list[str]
    tags: list[str]
    cover: ReaderCoverModel
    published: datetime
    reader: str = Field(description="The reader view's path")


class CatalogPageModel(BaseModel):
    """A page of the catalog; ``next`` is the cursor of the following page (also in the Link header)."""

    items: list[CatalogEntryModel]
    next: str | None


class Asset(BaseModel):
    """An uploaded asset file."""

    sha256: str
    size: int
    mime_type: str
    created: datetime
