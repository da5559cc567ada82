"""The SQL implementation of :class:`~creatorpack.service.ports.ModerationStore`.

A takedown, a restore and an account's disabling each change the pack or account row, the catalog
listings and both journals (the pack's, which its owner reads, and the platform's) in one transaction;
each ends or begins catalog listings through :func:`~creatorpack.service.store.catalog.relist`, which
ticks the catalog's clock, so every server process drops what it cached of those packs.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, insert, select, update

from creatorpack.service.ports import (
    Actor,
    AdminEvent,
    AdminEventKind,
    Listing,
    NewReport,
    PackEventKind,
    PackSummary,
    ReportRecord,
    ReportStatus,
)
from creatorpack.service.store.catalog import relist
from creatorpack.service.store.database import Database
from creatorpack.service.store.sql import journal, takedown_of, utc
from creatorpack.service.store.tables import accounts, admin_events, packs, publications, reports

__all__ = ["SqlModerationStore"]


def _admin_event(conn: Connection, kind: AdminEventKind, actor: Actor, when: datetime, **target: str | None) -> None:
    conn.execute(
        insert(admin_events).values(kind=str(kind), account=actor.account, token_id=actor.token_id, at=when, **target)
    )


def _shown_public(conn: Connection, pack_id: str) -> bool:
    """Whether the pack is published as public and neither taken down nor its owner disabled."""
    row = conn.execute(
        select(publications.c.visibility, packs.c.takedown_at, accounts.c.disabled)
        .select_from(packs)
        .join(accounts, accounts.c.id == packs.c.account_id)
        .outerjoin(publications, publications.c.pack_id == packs.c.pack_id)
        .where(packs.c.pack_id == pack_id)
    ).one_or_none()
    return row is not None and row.visibility == "public" and row.takedown_at is None and row.disabled is None


def _report(row: Any) -> ReportRecord:
    created = utc(row.created)
    assert created is not None
    return ReportRecord(
        int(row.id),
        row.pack_id,
        row.reason,
        row.details,
        row.reporter,
        created,
        utc(row.resolved),
        row.resolved_by,
        row.resolution,
    )


class SqlModerationStore:
    """Takedowns, disabled accounts, reports and the platform's journal in SQL."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def takedown(self, pack_id: str, reason: str, actor: Actor, when: datetime) -> bool:
        """See :meth:`~creatorpack.service.ports.ModerationStore.takedown`."""
        with self._db.write() as conn:
            done = conn.execute(
                update(packs)
                .where(packs.c.pack_id == pack_id)
                .values(takedown_reason=reason, takedown_at=when, takedown_by=actor.account)
            )
            if not done.rowcount:
                return False
            relist(conn, pack_id, None)
            journal(conn, PackEventKind.TAKEDOWN, pack_id, actor, when, None)
            _admin_event(conn, AdminEventKind.TAKEDOWN, actor, when, pack_id=pack_id, detail=reason)
            return True

    def restore(self, pack_id: str, listing: Listing | None, actor: Actor, when: datetime) -> bool:
        """See :meth:`~creatorpack.service.ports.ModerationStore.restore`."""
        with self._db.write() as conn:
            done = conn.execute(
                update(packs)
                .where(packs.c.pack_id == pack_id, packs.c.takedown_at.is_not(None))
                .values(takedown_reason=None, takedown_at=None, takedown_by=None)
            )
            if not done.rowcount:
                return False
            relist(conn, pack_id, listing if _shown_public(conn, pack_id) else None)
            journal(conn, PackEventKind.RESTORE, pack_id, actor, when, None)
            _admin_event(conn, AdminEventKind.RESTORE, actor, when, pack_id=pack_id)
            return True

    def set_disabled(
        self, account: str, reason: str | None, actor: Actor, when: datetime, listings: Mapping[str, Listing]
    ) -> bool:
        """See :meth:`~creatorpack.service.ports.ModerationStore.set_disabled`."""
        with self._db.write() as conn:
            account_id = conn.execute(
                select(accounts.c.id).where(accounts.c.name == account).with_for_update()
            ).scalar()
            if account_id is None:
                return False
            conn.execute(
                update(accounts)
                .where(accounts.c.id == account_id)
                .values(disabled=when if reason is not None else None, disabled_reason=reason)
            )
            owned = conn.execute(
                select(packs.c.pack_id).where(packs.c.account_id == account_id).order_by(packs.c.pack_id)
            ).scalars()
            for pack_id in list(owned):
                relist(conn, pack_id, listings.get(pack_id) if _shown_public(conn, pack_id) else None)
            kind = AdminEventKind.DISABLE if reason is not None else AdminEventKind.ENABLE
            _admin_event(conn, kind, actor, when, target_account=account, detail=reason)
            return True

    def packs(self, *, after: str = "", limit: int = 100, owner: str | None = None) -> list[PackSummary]:
        """See :meth:`~creatorpack.service.ports.ModerationStore.packs`."""
        query = (
            select(packs, accounts.c.name, accounts.c.disabled)
            .join(accounts, accounts.c.id == packs.c.account_id)
            .where(packs.c.pack_id > after)
        )
        if owner is not None:
            query = query.where(accounts.c.name == owner)
        with self._db.read() as conn:
            rows = conn.execute(query.order_by(packs.c.pack_id).limit(limit)).all()
        found = []
        for row in rows:
            created = utc(row.created)
            assert created is not None
            found.append(
                PackSummary(
                    row.pack_id,
                    row.name,
                    created,
                    int(row.latest_revision),
                    row.published_revision,
                    row.visibility,
                    takedown_of(row),
                    row.disabled is not None,
                )
            )
        return found

    def add_report(self, report: NewReport) -> ReportRecord:
        """See :meth:`~creatorpack.service.ports.ModerationStore.add_report`."""
        with self._db.write() as conn:
            report_id = conn.execute(
                insert(reports)
                .values(
                    pack_id=report.pack_id,
                    reason=report.reason,
                    details=report.details,
                    reporter=report.reporter,
                    created=report.created,
                )
                .returning(reports.c.id)
            ).scalar_one()
        return ReportRecord(
            int(report_id), report.pack_id, report.reason, report.details, report.reporter, report.created
        )

    def reports(self, status: ReportStatus = "open", *, after: int = 0, limit: int = 100) -> list[ReportRecord]:
        """See :meth:`~creatorpack.service.ports.ModerationStore.reports`."""
        query = select(reports).where(reports.c.id > after)
        if status == "open":
            query = query.where(reports.c.resolved.is_(None))
        elif status == "resolved":
            query = query.where(reports.c.resolved.is_not(None))
        with self._db.read() as conn:
            rows = conn.execute(query.order_by(reports.c.id).limit(limit)).all()
        return [_report(row) for row in rows]

    def resolve_report(self, report_id: int, note: str, actor: Actor, when: datetime) -> bool:
        """See :meth:`~creatorpack.service.ports.ModerationStore.resolve_report`."""
        with self._db.write() as conn:
            pack_id = conn.execute(
                update(reports)
                .where(reports.c.id == report_id, reports.c.resolved.is_(None))
                .values(resolved=when, resolved_by=actor.account, resolution=note)
                .returning(reports.c.pack_id)
            ).scalar()
            if pack_id is None:
                return False
            detail = f"#{report_id}: {note}"
            _admin_event(conn, AdminEventKind.REPORT_RESOLVE, actor, when, pack_id=pack_id, detail=detail)
            return True

    def journal(self, kind: AdminEventKind, actor: Actor, when: datetime, **target: str | None) -> None:
        """See :meth:`~creatorpack.service.ports.ModerationStore.journal`."""
        with self._db.write() as conn:
            _admin_event(conn, kind, actor, when, **target)

    def admin_events(self, *, after: int = 0, limit: int = 100) -> list[AdminEvent]:
        """See :meth:`~creatorpack.service.ports.ModerationStore.admin_events`."""
        with self._db.read() as conn:
            rows = conn.execute(
                select(admin_events).where(admin_events.c.id > after).order_by(admin_events.c.id).limit(limit)
            ).all()
        found = []
        for row in rows:
            at = utc(row.at)
            assert at is not None
            found.append(
                AdminEvent(
                    int(row.id),
                    AdminEventKind(row.kind),
                    row.account,
                    row.token_id,
                    at,
                    row.target_account,
                    row.pack_id,
                    row.detail,
                )
            )
        return found
