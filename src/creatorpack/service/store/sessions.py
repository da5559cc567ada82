"""The SQL implementation of :class:`~creatorpack.service.ports.SessionStore`.

A session row holds the save; each event (start, turn, migration) is a row of ``session_events``
keyed by ``(session_id, seq)``. :meth:`SqlSessionStore.append` is a compare-and-set on ``seq`` in
one transaction: the ``UPDATE ... WHERE seq = :expected`` lets exactly one of two concurrent turns
through (PostgreSQL re-checks the condition after the first commits; SQLite serializes writers).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson
from sqlalchemy import bindparam, insert, select, update

from creatorpack.service.ports import SessionEvent, SessionRecord
from creatorpack.service.store.database import Database
from creatorpack.service.store.sql import _account_id as account_id
from creatorpack.service.store.sql import utc
from creatorpack.service.store.tables import accounts, session_events, sessions

__all__ = ["SqlSessionStore"]

# The hot statements, built once (SQLAlchemy caches their compiled form).
_SESSION: Final = (
    select(sessions, accounts.c.name)
    .join(accounts, accounts.c.id == sessions.c.account_id)
    .where(sessions.c.id == bindparam("id"))
)
_ADVANCE: Final = (
    update(sessions)
    .where(sessions.c.id == bindparam("session_id"), sessions.c.seq == bindparam("expected"))
    .values(
        revision=bindparam("new_revision"),
        turn=bindparam("new_turn"),
        seq=bindparam("new_seq"),
        saved=bindparam("new_saved"),
        updated=bindparam("new_updated"),
    )
)
_EVENT: Final = select(session_events).where(
    session_events.c.session_id == bindparam("id"), session_events.c.seq == bindparam("seq")
)
_TURN_EVENT: Final = (
    select(session_events)
    .where(
        session_events.c.session_id == bindparam("id"),
        session_events.c.kind == "turn",
        session_events.c.turn == bindparam("turn"),
    )
    .order_by(session_events.c.seq.desc())
    .limit(1)
)


def _dump(value: Mapping[str, Any] | None) -> str | None:
    # OPT_NON_STR_KEYS: a result built from the views' fields (not their to_json) keys reveals by
    # RevealKind, a str enum; the views' own to_json gives plain str keys.
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode() if value is not None else None


def _record(row: Any) -> SessionRecord:
    created, updated = utc(row.created), utc(row.updated)
    assert created is not None
    assert updated is not None
    return SessionRecord(
        row.id, row.name, row.pack_id, int(row.revision), row.turn, row.seq, orjson.loads(row.saved), created, updated
    )


def _event(row: Any) -> SessionEvent:
    created = utc(row.created)
    assert created is not None
    return SessionEvent(
        row.session_id,
        row.seq,
        row.kind,
        row.turn,
        int(row.revision),
        orjson.loads(row.request) if row.request is not None else None,
        row.request_hash,
        orjson.loads(row.result),
        created,
    )


def _event_values(event: SessionEvent) -> dict[str, Any]:
    return {
        "session_id": event.session_id,
        "seq": event.seq,
        "kind": event.kind,
        "turn": event.turn,
        "revision": event.revision,
        "request": _dump(event.request),
        "request_hash": event.request_hash,
        "result": _dump(event.result),
        "created": event.created,
    }


class SqlSessionStore:
    """Sessions and their events in SQL; every method is one transaction."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def create(self, session: SessionRecord, start: SessionEvent) -> None:
        """See :meth:`~creatorpack.service.ports.SessionStore.create`."""
        with self._db.write() as conn:
            owner = account_id(conn, session.account, session.created)
            conn.execute(
                insert(sessions).values(
                    id=session.id,
                    account_id=owner,
                    pack_id=session.pack_id,
                    revision=session.revision,
                    turn=session.turn,
                    seq=session.seq,
                    saved=_dump(session.saved),
                    created=session.created,
                    updated=session.updated,
                )
            )
            conn.execute(insert(session_events).values(**_event_values(start)))

    def session(self, session_id: str) -> SessionRecord | None:
        """See :meth:`~creatorpack.service.ports.SessionStore.session`."""
        with self._db.read() as conn:
            row = conn.execute(_SESSION, {"id": session_id}).one_or_none()
        return _record(row) if row is not None else None

    def event(self, session_id: str, seq: int) -> SessionEvent | None:
        """See :meth:`~creatorpack.service.ports.SessionStore.event`."""
        with self._db.read() as conn:
            row = conn.execute(_EVENT, {"id": session_id, "seq": seq}).one_or_none()
        return _event(row) if row is not None else None

    def turn_event(self, session_id: str, turn: int) -> SessionEvent | None:
        """See :meth:`~creatorpack.service.ports.SessionStore.turn_event`."""
        with self._db.read() as conn:
            row = conn.execute(_TURN_EVENT, {"id": session_id, "turn": turn}).one_or_none()
        return _event(row) if row is not None else None

    def events(self, session_id: str) -> list[SessionEvent]:
        """See :meth:`~creatorpack.service.ports.SessionStore.events`."""
        query = select(session_events).where(session_events.c.session_id == session_id).order_by(session_events.c.seq)
        with self._db.read() as conn:
            return [_event(row) for row in conn.execute(query)]

    def append(self, session: SessionRecord, event: SessionEvent) -> bool:
        """See :meth:`~creatorpack.service.ports.SessionStore.append`."""
        if session.seq != event.seq:
            return False
        with self._db.write() as conn:
            done = conn.execute(
                _ADVANCE,
                {
                    "session_id": session.id,
                    "expected": event.seq - 1,
                    "new_revision": session.revision,
                    "new_turn": session.turn,
                    "new_seq": session.seq,
                    "new_saved": _dump(session.saved),
                    "new_updated": session.updated,
                },
            )
            if done.rowcount != 1:
                return False
            conn.execute(insert(session_events).values(**_event_values(event)))
            return True
