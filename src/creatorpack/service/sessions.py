"""Play sessions over the service: start, turn, read, transcript, migrate, assets; and revision diffs.

A session belongs to the account that started it (any other account gets 404) and stays on its
revision until it is migrated. What a request sees depends on its token: a ``reader`` token gets
the reader's view only (:class:`ReaderTurn`, :class:`ReaderSession`, :class:`ReaderTranscriptEntry`: built
from the library's :class:`~creatorpack.play.ReaderView`, so no state, narrator block, observation
or rule can reach it); ``host`` and ``admin`` tokens, and the pack's owner, get the narrator's view
(:class:`NarratorTurn`: one turn of ``creatorpack play --format json``).

A turn is computed from the stored session and stored with a compare-and-set on the session's
event number (:meth:`~creatorpack.service.ports.SessionStore.append`): one transaction per turn,
and of two concurrent turns exactly one lands; the other is then answered as if it came second
(the same turn with the same body is a retry and gets the stored answer, anything else is a 409).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Annotated, Any, Final, Literal, TypeAlias, cast

import orjson
from pydantic import Field

from creatorpack.contract import suggest
from creatorpack.diff import MigrationError, diff
from creatorpack.errors import NotPlayableError, SessionLoadError, TurnError
from creatorpack.play import READER_KINDS, Engine, ReaderView, SessionState, Turn, TurnResult
from creatorpack.service import forms
from creatorpack.service.engines import Engines
from creatorpack.service.errors import (
    ConflictError,
    InvalidTurnError,
    MigrationConflictError,
    NotFoundError,
    SessionEndedError,
    TurnConflictError,
    UnplayableError,
)
from creatorpack.service.lru import Lru
from creatorpack.service.ports import (
    BlobStore,
    Clock,
    EventKind,
    PackRecord,
    PackStore,
    RevisionRecord,
    SessionEvent,
    SessionRecord,
    SessionStore,
    TokenRecord,
)
from creatorpack.service.shapes import plain

__all__ = [
    "Asset",
    "Audience",
    "Narrated",
    "NarrationReplay",
    "NarrationStart",
    "NarratorSession",
    "NarratorTranscript",
    "NarratorTranscriptEntry",
    "NarratorTurn",
    "Prompts",
    "ReaderSession",
    "ReaderTranscript",
    "ReaderTranscriptEntry",
    "ReaderTurn",
    "SessionView",
    "Sessions",
    "TranscriptView",
    "TurnView",
    "audience",
]

Audience: TypeAlias = Literal["narrator", "reader"]
_ATTEMPTS: Final = 8  # a lost compare-and-set is re-read and answered again (a retry or a 409)
_MAX_STATES: Final = 4096
_READER_BAD_TURN: Final = "the turn's observations or illustration matches do not fit this pack"


def audience(token: TokenRecord, owner: str) -> Audience:
    """Who the caller is to a session of a pack owned by ``owner``: the narrator's side or the reader's.

    A ``reader`` token is a reader, even the owner's; a ``creator`` token is the narrator's side only
    for the pack's owner (a creator of other packs sees what a reader sees).
    """
    if token.scope == "reader" or (token.scope == "creator" and token.account != owner):
        return "reader"
    return "narrator"


# -- what each audience gets -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReaderTurn:
    """A turn (or the start) as a reader sees it: the library's reader view, nothing else."""

    view: ReaderView

    def to_json(self) -> forms.ReaderTurn:
        """The reader view's own serialization (its form: :class:`~creatorpack.service.forms.ReaderTurn`)."""
        return cast("forms.ReaderTurn", self.view.to_json())


@dataclass(frozen=True, slots=True)
class NarratorTurn:
    """A turn (or the start) as the host and the owner see it: one turn of ``creatorpack play --format json``."""

    turn: Mapping[str, Any]

    def to_json(self) -> forms.NarratorTurn:
        """``TurnResult.to_json()`` of the turn (its form: :class:`~creatorpack.service.forms.NarratorTurn`)."""
        return cast("forms.NarratorTurn", dict(self.turn))


TurnView: TypeAlias = ReaderTurn | NarratorTurn

_LastTurn = Annotated[int, Field(description="The number of the last turn played (0: just started)")]


@dataclass(frozen=True)
class ReaderSession:
    """A session as its reader sees it."""

    session_id: str
    pack_id: str
    revision: int
    entry: str
    turn: _LastTurn
    over: bool
    view: Literal["reader"]
    current: forms.ReaderTurn

    def to_json(self) -> Any:
        """Its JSON form as plain values (what the route sends)."""
        return plain(self)


@dataclass(frozen=True)
class NarratorSession:
    """A session as the host and the owner see it, with its save (``creatorpack.session/1``)."""

    session_id: str
    pack_id: str
    revision: int
    entry: str
    turn: _LastTurn
    over: bool
    view: Literal["narrator"]
    current: forms.NarratorTurn
    save: dict[str, Any]

    def to_json(self) -> Any:
        """Its JSON form as plain values (what the route sends)."""
        return plain(self)


SessionView: TypeAlias = ReaderSession | NarratorSession


@dataclass(frozen=True)
class ReaderTranscriptEntry:
    """One transcript entry for a reader: what happened (start, turn, migration) and the reader view after it."""

    seq: int
    kind: EventKind
    turn: int
    revision: int
    at: datetime
    view: forms.ReaderTurn
    narration: Annotated[str | None, Field(description="A narrated turn's narration (as the spoiler guard passed it)")]


@dataclass(frozen=True)
class NarratorTranscriptEntry:
    """One transcript entry for the host and the owner: what was asked, the full turn, the migration report."""

    seq: int
    kind: EventKind
    turn: int
    revision: int
    at: datetime
    request: dict[str, Any] | None
    result: forms.NarratorTurn
    migration: Annotated[
        dict[str, Any] | None, Field(description="A migration's report: from and to revision, level, steps")
    ]


@dataclass(frozen=True)
class ReaderTranscript:
    """A session's transcript for its reader."""

    session_id: str
    pack_id: str
    view: Literal["reader"]
    entries: tuple[ReaderTranscriptEntry, ...]

    def to_json(self) -> Any:
        """Its JSON form as plain values (what the route sends)."""
        return plain(self)


@dataclass(frozen=True)
class NarratorTranscript:
    """A session's transcript for the host and the owner."""

    session_id: str
    pack_id: str
    view: Literal["narrator"]
    entries: tuple[NarratorTranscriptEntry, ...]

    def to_json(self) -> Any:
        """Its JSON form as plain values (what the route sends)."""
        return plain(self)


TranscriptView: TypeAlias = ReaderTranscript | NarratorTranscript


@dataclass(frozen=True, slots=True)
class Asset:
    """An asset in a session's reach: its id and the sha256 its file is uploaded under (its type is the file's)."""

    asset_id: str
    sha256: str


@dataclass(frozen=True, slots=True)
class Narrated:
    """What a narrated turn adds to its request: the reader's input, the narration (guarded) and the host's reports."""

    input: str
    narration: str
    host: Mapping[str, Any]  # the guard's and the prompt's reports: never shown to a reader

    def to_json(self) -> dict[str, Any]:
        """The members a narrated turn's stored request carries."""
        return {"input": self.input, "narration": self.narration, "narrator_report": dict(self.host)}


@dataclass(frozen=True, slots=True)
class NarrationStart:
    """What a narrated turn starts from: the engine, the state, the story so far and who is asking."""

    engine: Engine
    state: SessionState
    story: tuple[tuple[str, str], ...]  # (input, narration) of the narrated turns so far, oldest first
    who: Audience


@dataclass(frozen=True, slots=True)
class NarrationReplay:
    """A narrated turn asked again with the same input: its stored narration and view, the model not asked."""

    narration: str
    view: TurnView
    host: Mapping[str, Any]


# -- stored results ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prompts:
    """What the narrator's side answers each turn: the observations (questions, choices) and the illustration rules.

    Narrator-only: the runtime's ``observations``, the presentation's ``illustration_rules`` (``id``
    and ``match``), the content's texts and the endings' titles and closing texts, for a page that
    lets the owner or a host play a turn by hand.
    """

    observations: tuple[Mapping[str, Any], ...]
    illustration_rules: tuple[Mapping[str, str], ...]
    content: Mapping[str, str]
    """Each content item's text by id (the narrator block names content by id)."""
    endings: Mapping[str, Mapping[str, str]]
    """Each ending's ``title`` and ``closing_text`` by id."""


def _result(result: TurnResult) -> dict[str, Any]:
    """What an event keeps of a turn: both audiences' forms, so a retry gets the very same answer."""
    return {"narrator": result.to_json(), "reader": result.reader_view().to_json()}


def _ids(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _reader_view(stored: Mapping[str, Any]) -> ReaderView:
    """The reader view kept in an event, rebuilt as the type (only its own fields are read)."""
    data = stored["reader"]
    revealed = data.get("revealed", {})
    new_revealed = data.get("new_revealed", {})
    ending, illustration = data.get("ending"), data.get("illustration")
    return ReaderView(
        turn=int(data["turn"]),
        revealed={str(kind): _ids(revealed.get(kind)) for kind in READER_KINDS},
        new_revealed={str(kind): _ids(new_revealed.get(kind)) for kind in READER_KINDS},
        achievements=_ids(data.get("achievements")),
        new_achievements=_ids(data.get("new_achievements")),
        locked_achievements=_ids(data.get("locked_achievements")),
        badges=_ids(data.get("badges")),
        new_badges=_ids(data.get("new_badges")),
        ending=str(ending) if ending is not None else None,
        illustration=str(illustration) if illustration is not None else None,
        assets=_ids(data.get("assets")),
    )


def _narration(event: SessionEvent) -> str | None:
    """The narration a narrated turn's event keeps (reader-safe: it passed the spoiler guard), else None."""
    request = event.request or {}
    narration = request.get("narration")
    return narration if isinstance(narration, str) else None


def _turn_view(event: SessionEvent, who: Audience) -> TurnView:
    if who == "reader":
        return ReaderTurn(_reader_view(event.result))
    return NarratorTurn(event.result["narrator"])


def _narrated_digest(number: int, reader_input: str) -> str:
    """A narrated turn is the same turn again when its number and the reader's input are."""
    return hashlib.sha256(
        orjson.dumps({"turn": number, "input": reader_input}, option=orjson.OPT_SORT_KEYS)
    ).hexdigest()


def _digest(number: int, turn: Turn) -> str:
    body = {"turn": number, "observations": dict(turn.observations), "matches": list(turn.illustration_matches)}
    try:
        encoded = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # an answer orjson cannot encode (an integer past 64 bits): no pack accepts it anyway
        encoded = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(encoded).hexdigest()


def _new_id() -> str:
    return secrets.token_hex(16)


def _no_pack(pack_id: str) -> NotFoundError:
    return NotFoundError(f"no pack {pack_id!r} for this account")


def _no_session(session_id: str) -> NotFoundError:
    return NotFoundError(f"no session {session_id!r} for this account")


class Sessions:
    """The session domain over a session store, the pack store, the blob store and the shared engines."""

    def __init__(
        self,
        store: SessionStore,
        packs: PackStore,
        blobs: BlobStore,
        engines: Engines,
        clock: Clock,
        *,
        max_states: int = _MAX_STATES,
        revision_seconds: float = 0.0,
        new_id: Callable[[], str] = _new_id,
    ) -> None:
        self._store = store
        self._packs = packs
        self._blobs = blobs
        self.engines = engines
        self._clock = clock
        self._new_id = new_id
        # The live state of the sessions this process played last, so a turn need not rebuild it from the save.
        self._states: Lru[str, tuple[int, SessionState]] = Lru(max_states)
        # A session's pack owner and revision row, trusted for ``revision_seconds`` (the owner never
        # changes; a deletion is seen within that time), so that a turn reads the store twice, not three times.
        self._revisions: dict[tuple[str, int], tuple[float, str, RevisionRecord]] = {}
        self._open: dict[str, tuple[float, bool]] = {}  # pack id -> (until, published and not private)
        self._forgotten = 0  # advanced by forget(): a read of openness that overlapped one keeps nothing
        self._revision_seconds = revision_seconds
        self._lock = threading.Lock()

    # -- starting ------------------------------------------------------------------------------------

    def start(
        self, token: TokenRecord, pack_id: str, *, entry: str | None = None, revision: int | None = None
    ) -> SessionView:
        """Start a session at ``entry`` of the revision the caller may play (see :meth:`_playable`)."""
        pack = self._packs.pack(pack_id)
        if pack is None:
            raise _no_pack(pack_id)
        record = self._playable(token, pack, revision)
        who = audience(token, pack.owner)
        engine = self.engines.engine(record)
        try:
            state, result = engine.start(entry)
        except NotPlayableError as exc:
            raise _unplayable(exc, engine, entry, who) from None
        now = self._clock.now()
        session_id = self._new_id()
        session = SessionRecord(
            session_id, token.account, pack_id, record.revision, 0, 0, state.to_json(engine.schema), now, now
        )
        asked = {"entry": entry, "revision": revision}
        event = SessionEvent(session_id, 0, "start", 0, record.revision, asked, None, _result(result), now)
        self._store.create(session, event)
        self._remember(session_id, 0, state)
        return _session_view(session, event, who)

    def _playable(self, token: TokenRecord, pack: PackRecord, revision: int | None) -> RevisionRecord:
        """The revision ``token`` may start (or migrate to): the owner any live one, others the published one.

        The owner's default is the published revision, else the latest live one. Others need a pack
        that is published and not private, and a reader, host or admin token; otherwise 404.
        """
        if pack.owner == token.account:
            live = [r for r in pack.revisions if r.deleted is None]
            number = revision if revision is not None else pack.published_revision
            if number is None and live:
                number = live[-1].revision
        else:
            if token.scope == "creator" or not pack.open_to_others:
                raise _no_pack(pack.pack_id)
            if revision is not None and revision != pack.published_revision:
                raise NotFoundError(
                    f"pack {pack.pack_id!r} has no published revision {revision}; "
                    f"its published revision is {pack.published_revision}"
                )
            number = pack.published_revision
        found = next((r for r in pack.revisions if r.revision == number and r.deleted is None), None)
        if found is None:
            raise NotFoundError(f"pack {pack.pack_id!r} has no revision {number}")
        return found

    # -- playing ------------------------------------------------------------------------------------

    def turn(
        self, token: TokenRecord, session_id: str, number: int, turn: Turn, *, narrated: Narrated | None = None
    ) -> TurnView:
        """Play turn ``number`` (the next one); the same turn again with the same body is answered as before.

        ``narrated``: the turn's answers came from the narrator, which is kept with it (a retry is then the
        same number and input, see :meth:`narration_start`).
        """
        digest = _narrated_digest(number, narrated.input) if narrated is not None else _digest(number, turn)
        for _ in range(_ATTEMPTS):
            session = self._session(token, session_id)
            owner, revision = self._revision(session)
            self._still_open(session, owner, token)
            who = audience(token, owner)
            if number == session.turn and number > 0:
                return self._replay(session, number, digest, who)
            if _is_over(session):
                raise _session_over(session)
            if number != session.turn + 1:
                raise _turn_conflict(session, number)
            engine = self._engine(revision, owns=owner == token.account)
            try:
                after, result = engine.step(self._state(session, engine), turn)
            except TurnError as exc:
                raise InvalidTurnError(str(exc) if who == "narrator" else _READER_BAD_TURN) from None
            now = self._clock.now()
            request = {
                "turn": number,
                "observations": dict(turn.observations),
                "illustration_matches": list(turn.illustration_matches),
                **(narrated.to_json() if narrated is not None else {}),
            }
            seq = session.seq + 1
            shown = _result(result)
            event = SessionEvent(session.id, seq, "turn", after.turn, session.revision, request, digest, shown, now)
            moved = replace(session, turn=after.turn, seq=seq, saved=after.to_json(engine.schema), updated=now)
            if self._store.append(moved, event):
                self._remember(session.id, seq, after)
                return _turn_view(event, who)
        raise _turn_conflict(self._session(token, session_id), number)  # pragma: no cover - eight lost races in a row

    def narration_start(
        self, token: TokenRecord, session_id: str, number: int, reader_input: str
    ) -> NarrationStart | NarrationReplay:
        """Where narrated turn ``number`` starts from; or, for the last turn asked again with its input, its replay.

        The same checks as :meth:`turn` (409 for another number, after the end, or another input).
        """
        session = self._session(token, session_id)
        owner, revision = self._revision(session)
        self._still_open(session, owner, token)
        who = audience(token, owner)
        if number == session.turn and number > 0:
            event = self._store.turn_event(session.id, number)
            if event is not None and event.request_hash == _narrated_digest(number, reader_input):
                request = event.request or {}
                host = request.get("narrator_report", {})
                return NarrationReplay(str(request.get("narration", "")), _turn_view(event, who), host)
            self._replay(session, number, _narrated_digest(number, reader_input), who)  # raises the conflict
        if _is_over(session):
            raise _session_over(session)
        if number != session.turn + 1:
            raise _turn_conflict(session, number)
        engine = self._engine(revision, owns=owner == token.account)
        story = tuple(
            (str(e.request["input"]), str(e.request.get("narration", "")))
            for e in self._store.events(session.id)
            if e.kind == "turn" and e.request is not None and "input" in e.request
        )
        return NarrationStart(engine, self._state(session, engine), story, who)

    def _replay(self, session: SessionRecord, number: int, digest: str, who: Audience) -> TurnView:
        event = self._store.turn_event(session.id, number)
        if event is None or event.request_hash != digest:
            if _is_over(session):
                raise _session_over(session)
            raise TurnConflictError(
                f"turn {number} was already played with another body; the next turn is {session.turn + 1}",
                current_turn=session.turn,
            )
        return _turn_view(event, who)

    # -- reading ------------------------------------------------------------------------------------

    def read(self, token: TokenRecord, session_id: str) -> SessionView:
        """The session where it is now, with its last turn as the caller may see it."""
        session = self._session(token, session_id)
        owner, _ = self._revision(session)
        event = self._store.event(session.id, session.seq)
        if event is None:  # pragma: no cover - a session is stored with its events in one transaction
            raise _no_session(session_id)
        return _session_view(session, event, audience(token, owner))

    def transcript(self, token: TokenRecord, session_id: str) -> TranscriptView:
        """Every event of the session (start, turns, migrations) as the caller may see it."""
        session = self._session(token, session_id)
        owner, _ = self._revision(session)
        events = self._store.events(session.id)
        if audience(token, owner) == "reader":
            readers = tuple(
                ReaderTranscriptEntry(
                    e.seq, e.kind, e.turn, e.revision, e.created, _reader_form(_reader_view(e.result)), _narration(e)
                )
                for e in events
            )
            return ReaderTranscript(session.id, session.pack_id, "reader", readers)
        narrators = tuple(
            NarratorTranscriptEntry(
                e.seq,
                e.kind,
                e.turn,
                e.revision,
                e.created,
                dict(e.request) if e.request is not None else None,
                cast("forms.NarratorTurn", dict(e.result["narrator"])),
                e.result.get("migration"),
            )
            for e in events
        )
        return NarratorTranscript(session.id, session.pack_id, "narrator", narrators)

    # -- migrating ----------------------------------------------------------------------------------

    def migrate(self, token: TokenRecord, session_id: str, revision: int) -> SessionView:
        """Move the session to ``revision`` by the diff's migration plan, or 409 naming what no longer fits.

        The target is one the caller could start a session on (the owner: any live revision; others:
        the published one). Moving to the session's own revision changes nothing.
        """
        for _ in range(_ATTEMPTS):
            session = self._session(token, session_id)
            pack = self._packs.pack(session.pack_id)
            if pack is None:  # pragma: no cover - packs are never removed
                raise _no_session(session_id)
            who = audience(token, pack.owner)
            self._still_open(session, pack.owner, token)
            target = self._playable(token, pack, revision)
            if target.revision == session.revision:
                return self.read(token, session_id)
            current = next((r for r in pack.revisions if r.revision == session.revision), None)
            plan = self.engines.plan(current, target)
            engine = self.engines.engine(target)
            try:
                moved, report = plan.apply(session.saved)
                state = engine.load(moved)
            except MigrationError as exc:
                raise _misfits(exc, session, target.revision, who) from None
            except SessionLoadError as exc:  # pragma: no cover - the plan foresees what the engine refuses
                raise _misfits(exc, session, target.revision, who) from None
            now = self._clock.now()
            seq = session.seq + 1
            result = {**_result(engine.describe(state)), "migration": report.to_json()}
            event = SessionEvent(
                session.id, seq, "migrate", session.turn, target.revision, {"revision": revision}, None, result, now
            )
            updated = replace(
                session, revision=target.revision, seq=seq, saved=state.to_json(engine.schema), updated=now
            )
            if self._store.append(updated, event):
                self._remember(session.id, seq, state)
                return _session_view(updated, event, who)
        raise TurnConflictError(  # pragma: no cover - eight lost races in a row
            "the session kept changing while it was being migrated; try again", current_turn=session.turn
        )

    # -- media --------------------------------------------------------------------------------------

    def asset(self, token: TokenRecord, session_id: str, asset_id: str) -> Asset:
        """An asset the session may reach (a ``reward_only`` one after its reward), else 404.

        The file itself (:meth:`~creatorpack.service.assets.Assets.session_file`) is the one uploaded
        under the sha256 the revision gives the asset.
        """
        session = self._session(token, session_id)
        owner, revision = self._revision(session)
        self._still_open(session, owner, token)
        engine = self.engines.engine(revision)
        if asset_id not in engine.reachable_assets(self._state(session, engine)):
            raise NotFoundError(f"no asset {asset_id!r} in this session's reach")
        return Asset(asset_id, str(engine.program.assets[asset_id].get("sha256", "")))

    def restart(self, token: TokenRecord, session_id: str, *, keep: int = 0) -> SessionView:
        """A new session at the same entry and revision, with the first ``keep`` turns of this one played again.

        ``keep`` = the session's turn - 1 is an undo of its last turn; 0 starts it over. The turns are
        replayed from what was stored (their bodies), so the caller needs to see none of them; a
        session that was migrated is not replayed (its turns were played on other revisions): 409.
        The old session stays as it is. Replaying is deterministic, so the new session is where the
        old one was after turn ``keep``.
        """
        session = self._session(token, session_id)
        owner, _ = self._revision(session)
        events = self._store.events(session.id)
        if any(e.kind == "migrate" for e in events):
            raise ConflictError("a migrated session cannot be replayed; start a new one", reason="migrated")
        entry = self.read(token, session_id).entry
        revision = session.revision if owner == token.account else None
        fresh = self.start(token, session.pack_id, entry=entry, revision=revision)
        for event in events:
            if event.kind != "turn" or event.turn > keep or event.request is None:
                continue
            asked = {k: v for k, v in event.request.items() if k != "turn"}
            self.turn(token, fresh.session_id, event.turn, Turn.from_json(asked))
        return self.read(token, fresh.session_id)

    def prompts(self, token: TokenRecord, session_id: str) -> Prompts | None:
        """What the narrator's side of the session answers each turn; None for a caller who sees the reader view."""
        session = self._session(token, session_id)
        owner, revision = self._revision(session)
        if audience(token, owner) != "narrator":
            return None
        engine = self.engines.engine(revision)
        presentation = engine.pack.get("presentation")  # the pack as its version reads it
        rules = presentation.get("illustration_rules", []) if isinstance(presentation, Mapping) else []
        shown = tuple(
            {"id": str(rule.get("id", "")), "match": str(rule.get("match", ""))}
            for rule in rules
            if isinstance(rule, Mapping)
        )
        pack = engine.pack
        content = {
            str(item.get("id")): str(item.get("text", ""))
            for item in pack.get("content", [])
            if isinstance(item, Mapping)
        }
        progression = pack.get("progression")
        endings = {
            str(end.get("id")): {"title": str(end.get("title", "")), "closing_text": str(end.get("closing_text", ""))}
            for end in (progression.get("endings", []) if isinstance(progression, Mapping) else [])
            if isinstance(end, Mapping)
        }
        return Prompts(tuple(engine.program.observations.values()), shown, content, endings)

    # -- revisions ----------------------------------------------------------------------------------

    def diff(self, account: str, pack_id: str, old: int, new: int) -> dict[str, Any]:
        """The semantic diff of two live revisions of a pack ``account`` owns (``creatorpack diff --format json``)."""
        pack = self._packs.pack(pack_id)
        if pack is None or pack.owner != account:
            raise _no_pack(pack_id)
        before, after = (self.engines.engine(_live(pack, number)).pack for number in (old, new))
        return diff(before, after).to_json()

    # -- helpers ------------------------------------------------------------------------------------

    def _session(self, token: TokenRecord, session_id: str) -> SessionRecord:
        session = self._store.session(session_id)
        if session is None or session.account != token.account or not token.may_act_on(session.pack_id):
            raise _no_session(session_id)
        return session

    def _revision(self, session: SessionRecord) -> tuple[str, RevisionRecord]:
        key = (session.pack_id, session.revision)
        hit = self._revisions.get(key)
        if hit is not None and hit[0] > time.monotonic():
            return hit[1], hit[2]
        found = self._packs.owned_revision(session.pack_id, session.revision)
        if found is None:  # pragma: no cover - revision rows are never removed, only marked deleted
            raise _no_session(session.id)
        if self._revision_seconds > 0:
            with self._lock:
                if len(self._revisions) > _MAX_STATES:
                    self._revisions.clear()
                self._revisions[key] = (time.monotonic() + self._revision_seconds, *found)
        return found

    def forget(self, pack_id: str) -> None:
        """Forget what this process knows of the pack's publication: it was just published or withdrawn here.

        The publish and unpublish routes call it once the change has committed, so this process stops
        a withdrawn pack's sessions at once; other processes within ``revision_seconds``. A read of
        the pack that overlapped the change keeps nothing it read.
        """
        with self._lock:
            self._forgotten += 1
            self._open.pop(pack_id, None)

    def forget_all(self) -> None:
        """Forget what this process knows of every pack's publication (an account's packs were hidden or shown)."""
        with self._lock:
            self._forgotten += 1
            self._open.clear()

    def _still_open(self, session: SessionRecord, owner: str, token: TokenRecord) -> None:
        """404 for anyone but the owner once the pack is withdrawn (unpublished or made private).

        Its readers' sessions then take no more turns and reach no more assets; what they were shown
        stays theirs to read. Known at once in the process that withdrew it (:meth:`forget`), in the
        others within the cache time of the revisions (as a revoked token is).
        """
        if owner == token.account:
            return
        hit = self._open.get(session.pack_id)
        if hit is not None and hit[0] > time.monotonic():
            is_open = hit[1]
        else:
            forgotten = self._forgotten
            pack = self._packs.pack(session.pack_id)
            is_open = pack is not None and pack.open_to_others
            if self._revision_seconds > 0:
                with self._lock:
                    if len(self._open) > _MAX_STATES:
                        self._open.clear()
                    if forgotten == self._forgotten:  # no publication changed here while it was read
                        self._open[session.pack_id] = (time.monotonic() + self._revision_seconds, is_open)
        if not is_open:
            raise NotFoundError(f"pack {session.pack_id!r} is no longer published: the session cannot go on")

    def _engine(self, revision: RevisionRecord, *, owns: bool) -> Engine:
        """The revision's engine; 409 ``deleted`` once it was deleted.

        The conflict's ``latest_revision`` is the pack's latest for its owner; anyone else learns only
        the published revision (None when nothing is published), the one they may migrate to.
        """
        if revision.deleted is not None:
            pack = self._packs.pack(revision.pack_id)
            latest = None if pack is None else pack.latest_revision if owns else pack.published_revision
            raise ConflictError(
                f"revision {revision.revision} of {revision.pack_id!r} was deleted; "
                "migrate the session to another revision to play on",
                reason="deleted",
                latest_revision=latest,
            )
        return self.engines.engine(revision)

    def _state(self, session: SessionRecord, engine: Engine) -> SessionState:
        with self._lock:
            hit = self._states.peek(session.id)  # a state is made recent when it is stored, not when read
        if hit is not None and hit[0] == session.seq:
            return hit[1]
        state = engine.load(session.saved)
        self._remember(session.id, session.seq, state)
        return state

    def _remember(self, session_id: str, seq: int, state: SessionState) -> None:
        with self._lock:
            self._states.put(session_id, (seq, state))


def _live(pack: PackRecord, number: int) -> RevisionRecord:
    found = next((r for r in pack.revisions if r.revision == number and r.deleted is None), None)
    if found is None:
        raise NotFoundError(f"pack {pack.pack_id!r} has no revision {number}")
    return found


def _session_view(session: SessionRecord, event: SessionEvent, who: Audience) -> SessionView:
    entry = str(session.saved.get("entry", ""))
    if who == "reader":
        view = _reader_view(event.result)
        current = _reader_form(view)
        return ReaderSession(
            session.id, session.pack_id, session.revision, entry, session.turn, view.over, "reader", current
        )
    narrator = cast("forms.NarratorTurn", dict(event.result["narrator"]))
    over = narrator.get("ending") is not None
    return NarratorSession(
        session.id,
        session.pack_id,
        session.revision,
        entry,
        session.turn,
        over,
        "narrator",
        narrator,
        dict(session.saved),
    )


def _reader_form(view: ReaderView) -> forms.ReaderTurn:
    return cast("forms.ReaderTurn", view.to_json())


def _is_over(session: SessionRecord) -> bool:
    """Whether the session reached an ending: it then takes no turn but a retry of its last one."""
    return session.saved.get("ending") is not None


def _session_over(session: SessionRecord) -> SessionEndedError:
    """The refusal of any turn of an ended session but a retry of its last one: no other turn will do."""
    return SessionEndedError(
        f"the session reached the ending {session.saved['ending']!r} at turn {session.turn}; it takes no more turns",
        current_turn=session.turn,
    )


def _turn_conflict(session: SessionRecord, number: int) -> TurnConflictError:
    return TurnConflictError(
        f"turn {number} is not the next turn: the session is at turn {session.turn}; post turn {session.turn + 1}",
        current_turn=session.turn,
    )


def _unplayable(exc: NotPlayableError, engine: Engine, entry: str | None, who: Audience) -> UnplayableError:
    """Why the session cannot start, as ``who`` may see it.

    An unknown entry is named with the pack's entries to anyone (entry ids are public, as in the reader
    view); the ``problems`` of an initial state that does not fit name state members: the narrator's side only.
    """
    if entry is not None and engine.entry_named(entry) is None:
        if who == "reader":  # never the runtime's ids: they may name starts the reader view does not offer
            return UnplayableError(_no_entry_for_readers(engine, entry) or f"no entry {entry!r}", problems=[])
        return UnplayableError(str(exc), problems=[])
    if who == "narrator":
        return UnplayableError(str(exc), problems=[{"pointer": p, "message": m} for p, m in exc.problems])
    return UnplayableError("this revision of the pack cannot be played")


def _no_entry_for_readers(engine: Engine, entry: str) -> str | None:
    """An unknown entry, named with the ids of the pack entries the reader view lists (``None``: it lists none).

    A runtime entry's id is the narrator's: it may name a start the reader view does not offer.
    """
    listed = [
        e["id"] for e in engine.pack.get("entries", []) if isinstance(e, Mapping) and isinstance(e.get("id"), str)
    ]
    guess = suggest.nearest(entry, listed)
    hint = f" (did you mean {guess!r}?)" if guess else ""
    return f"no entry {entry!r}{hint}; the entries are {', '.join(listed)}" if listed else None


def _misfits(exc: SessionLoadError, session: SessionRecord, target: int, who: Audience) -> MigrationConflictError:
    """The refused migration: each value that no longer fits for the narrator's side, their number for a reader."""
    misfits: Sequence[Any] = getattr(exc, "misfits", ())
    listed = [m.to_json() for m in misfits] or [{"pointer": p, "message": m} for p, m in exc.problems]
    if who == "reader":
        count = len(listed)
        values = "1 saved value no longer fits" if count == 1 else f"{count} saved values no longer fit"
        message = f"the session cannot move to revision {target}: {values}"
        return MigrationConflictError(message, revision=session.revision)
    return MigrationConflictError(str(exc), revision=session.revision, misfits=listed)
