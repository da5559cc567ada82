"""The routes' own response shapes, the request bodies and the problem document, for the handlers and OpenAPI.

A response shape is a frozen dataclass (see :mod:`creatorpack.service.shapes`): a handler sends
``orjson.dumps`` of it and the route names the same class as its ``response_model``, so the OpenAPI
document is derived from what is sent. Shapes built elsewhere live with what builds them: the reader
view and catalog (:mod:`creatorpack.service.reader`, :mod:`creatorpack.service.catalog`), sessions
(:mod:`creatorpack.service.sessions`), publishing (:class:`creatorpack.service.packs.Published`) and
the other layers' JSON forms (:mod:`creatorpack.service.forms`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from creatorpack.service.ports import PackEventKind

if TYPE_CHECKING:
    from creatorpack.service.ports import AssetRecord, PackEvent, PackRecord, RevisionRecord, Takedown

__all__ = [
    "INTEGRAL",
    "Asset",
    "Event",
    "Events",
    "Health",
    "MigrateRequest",
    "Pack",
    "PackTakedown",
    "Problem",
    "PublishRequest",
    "Ready",
    "Revision",
    "RevisionNumber",
    "StartRequest",
    "TurnNumber",
    "TurnRequest",
]


@dataclass(frozen=True)
class Revision:
    """A stored revision."""

    pack_id: str
    revision: int
    sha256: str
    size: int
    version: str
    created: datetime
    published: bool

    @classmethod
    def of(cls, record: RevisionRecord, pack: PackRecord | None = None) -> Revision:
        """The revision; ``published`` if ``pack`` (its pack, when known) publishes it."""
        published = pack is not None and pack.published_revision == record.revision
        return cls(
            record.pack_id, record.revision, record.sha256, record.size, record.version, record.created, published
        )


@dataclass(frozen=True)
class PackTakedown:
    """Why and when the platform's admins hid the pack (it stays hidden until they restore it)."""

    reason: str
    at: datetime

    @classmethod
    def of(cls, takedown: Takedown | None) -> PackTakedown | None:
        """A takedown as its pack's owner reads it: the reason and when (not which admin)."""
        return None if takedown is None else cls(takedown.reason, takedown.at)


@dataclass(frozen=True)
class Pack:
    """A pack as its owner sees it: live revisions, the published one and the visibility."""

    pack_id: str
    created: datetime
    latest_revision: Annotated[
        int, Field(description="The highest revision number ever stored (deleted ones included)")
    ]
    published_revision: int | None
    visibility: Literal["public", "unlisted", "private"]
    revisions: tuple[Revision, ...]
    takedown: Annotated[
        PackTakedown | None,
        Field(description="Set while a platform admin hides the pack from the catalog and its readers"),
    ]

    @classmethod
    def of(cls, record: PackRecord) -> Pack:
        """The pack with its live revisions."""
        live = tuple(Revision.of(r, record) for r in record.revisions if r.deleted is None)
        return cls(
            record.pack_id,
            record.created,
            record.latest_revision,
            record.published_revision,
            record.visibility,
            live,
            PackTakedown.of(record.takedown),
        )


@dataclass(frozen=True)
class Health:
    """The service answers."""

    status: Literal["ok"]


@dataclass(frozen=True)
class Ready:
    """The service's stores answer: it can serve requests."""

    status: Literal["ready"]


@dataclass(frozen=True)
class Event:
    """One audit journal entry."""

    id: int
    kind: PackEventKind
    account: str
    token_id: Annotated[str | None, Field(description="The id of the token used (None: the command line)")]
    at: datetime
    revision: int | None

    @classmethod
    def of(cls, event: PackEvent) -> Event:
        """The journal entry."""
        return cls(event.id, event.kind, event.account, event.token_id, event.at, event.revision)


@dataclass(frozen=True)
class Events:
    """A page of the audit journal, oldest first; ``next`` is the ``after`` of the following page."""

    events: tuple[Event, ...]
    next: int | None


@dataclass(frozen=True)
class Asset:
    """An uploaded asset file."""

    sha256: str
    size: int
    mime_type: str
    created: datetime

    @classmethod
    def of(cls, record: AssetRecord) -> Asset:
        """The asset file."""
        return cls(record.sha256, record.size, record.mime_type, record.created)


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


class PublishRequest(BaseModel):
    """Which revision to publish."""

    model_config = ConfigDict(extra="forbid")

    revision: RevisionNumber = Field(description="A live revision of the pack")
