"""Moderation: what the platform's admins do, and readers' reports; knows the domain and the ports only.

A platform admin is an account whose role is ``admin`` (given on the command line:
``creatorpack account set-role NAME admin``), acting with a token of scope ``admin``
(:attr:`~creatorpack.service.ports.TokenRecord.platform_admin`). Every other token, a creator's own
all-scopes ``admin`` token included, gets 403 here.

- A **takedown** hides a pack from the catalog and from everyone but its owner (reader view, covers,
  new sessions, other accounts' sessions) with a reason the owner reads in the pack's journal; a
  **restore** shows it again as it is published. The owner may still upload and publish meanwhile;
  what they publish stays hidden until it is restored.
- **Disabling** an account stops its tokens and hides all its packs the same way; enabling it undoes both.
- **Reports**: any reader of a pack (anonymous too) may report it; admins list and resolve them.

Every admin action is in the platform's journal (:meth:`Moderation.events`); takedowns and restores
also in the pack's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from creatorpack.service.auth import Auth
from creatorpack.service.errors import BadRequestError, ForbiddenError, NotFoundError
from creatorpack.service.packs import Packs
from creatorpack.service.ports import (
    AccountRecord,
    Actor,
    AdminEvent,
    AdminEventKind,
    Clock,
    Listing,
    ModerationStore,
    NewReport,
    PackSummary,
    ReportReason,
    ReportRecord,
    ReportStatus,
    Role,
    TokenRecord,
    TokenStore,
)

__all__ = ["MAX_DETAILS", "MAX_REASON", "Moderation", "NewToken"]

MAX_REASON: Final = 2000
MAX_DETAILS: Final = 2000
_COMMAND_LINE: Final = Actor("-")


@dataclass(frozen=True, slots=True)
class NewToken:
    """A token just made: its secret (shown once, never stored) and its record."""

    secret: str
    record: TokenRecord


def _text(value: str, what: str, most: int, *, empty_ok: bool = False) -> str:
    text = value.strip()
    if (not text and not empty_ok) or len(text) > most or "\x00" in text:
        raise BadRequestError(f"{what} is {0 if empty_ok else 1} to {most:,} characters (not only spaces, no NUL)")
    return text


class Moderation:
    """Takedowns, disabled accounts, reports and the platform's journal."""

    def __init__(self, store: ModerationStore, tokens: TokenStore, auth: Auth, packs: Packs, clock: Clock) -> None:
        self._store = store
        self._tokens = tokens
        self._auth = auth
        self._packs = packs
        self._clock = clock

    @staticmethod
    def _admin(token: TokenRecord) -> Actor:
        if not token.platform_admin:
            raise ForbiddenError(
                "this route is for the platform's admins: an 'admin' token of an account whose role is admin"
            )
        return Actor(token.account, token.id)

    # -- packs --------------------------------------------------------------------------------------

    def takedown(self, token: TokenRecord, pack_id: str, reason: str) -> PackSummary:
        """Hide a pack from the catalog and from everyone but its owner, with a reason its owner reads."""
        actor = self._admin(token)
        if not self._store.takedown(pack_id, _text(reason, "a takedown's reason", MAX_REASON), actor, self._now()):
            raise NotFoundError(f"no pack {pack_id!r}")
        return self._summary(pack_id)

    def restore(self, token: TokenRecord, pack_id: str) -> PackSummary:
        """Show a taken-down pack again, as it is published now; 404 unless it is taken down."""
        actor = self._admin(token)
        if not self._store.restore(pack_id, self._packs.listing(pack_id), actor, self._now()):
            raise NotFoundError(f"pack {pack_id!r} is not taken down")
        return self._summary(pack_id)

    def packs(
        self, token: TokenRecord, *, after: str = "", limit: int = 100, owner: str | None = None
    ) -> list[PackSummary]:
        """Every pack (of one owner), by id: owner, revisions, publication and moderation state."""
        self._admin(token)
        return self._store.packs(after=after, limit=limit, owner=owner)

    def _summary(self, pack_id: str) -> PackSummary:
        pack = self._packs.record(pack_id)
        if pack is None:  # pragma: no cover - packs are never removed
            raise NotFoundError(f"no pack {pack_id!r}")
        return PackSummary.of(pack)

    # -- accounts -----------------------------------------------------------------------------------

    def accounts(self, token: TokenRecord, *, after: str = "", limit: int = 100) -> list[AccountRecord]:
        """Every account, by name."""
        self._admin(token)
        return self._tokens.accounts(after=after, limit=limit)

    def all_accounts(self) -> list[AccountRecord]:
        """Every account, by name (the command line's list)."""
        found: list[AccountRecord] = []
        while page := self._tokens.accounts(after=found[-1].name if found else "", limit=1000):
            found += page
        return found

    def disable(self, token: TokenRecord, account: str, reason: str) -> AccountRecord:
        """Disable an account: its tokens stop working and its packs are hidden."""
        actor = self._admin(token)
        if account == token.account:
            raise ForbiddenError("an admin cannot disable their own account")
        return self._set_disabled(actor, account, _text(reason, "a reason", MAX_REASON))

    def enable(self, token: TokenRecord, account: str) -> AccountRecord:
        """Enable a disabled account again: its tokens work and its packs are shown as they are published."""
        return self._set_disabled(self._admin(token), account, None)

    def set_disabled(self, account: str, reason: str | None) -> AccountRecord:
        """Disable (``reason``) or enable (None) an account from the command line."""
        return self._set_disabled(_COMMAND_LINE, account, reason)

    def _set_disabled(self, actor: Actor, account: str, reason: str | None) -> AccountRecord:
        listings: dict[str, Listing] = {}
        if reason is None:
            for pack in self._store.packs(owner=account, limit=1_000_000):
                if pack.published_revision is not None and (listing := self._packs.listing(pack.pack_id)):
                    listings[pack.pack_id] = listing
        if not self._store.set_disabled(account, reason, actor, self._now(), listings):
            raise NotFoundError(f"no account {account!r}")
        self._auth.forget_account(account)
        found = self._tokens.account(account)
        assert found is not None
        return found

    def set_role(self, account: str, role: Role) -> AccountRecord:
        """Give an account its platform role (command line only: no route makes an admin)."""
        if not self._tokens.set_role(account, role):
            raise NotFoundError(f"no account {account!r}")
        self._store.journal(AdminEventKind.ROLE, _COMMAND_LINE, self._now(), target_account=account, detail=role)
        self._auth.forget_account(account)
        found = self._tokens.account(account)
        assert found is not None
        return found

    def issue_token(
        self,
        token: TokenRecord,
        account: str,
        scope: str,
        *,
        expires_in: timedelta | None = None,
        packs: list[str] | None = None,
        name: str | None = None,
    ) -> NewToken:
        """A token for any account (created on first use), made by an admin without the command line."""
        actor = self._admin(token)
        expires = self._now() + expires_in if expires_in is not None else None
        secret, record = self._auth.issue(account, scope, expires=expires, packs=packs, name=name)
        detail = f"{record.id} ({record.scope})"
        self._store.journal(AdminEventKind.TOKEN_CREATE, actor, self._now(), target_account=account, detail=detail)
        return NewToken(secret, record)

    # -- reports ------------------------------------------------------------------------------------

    def report(self, reporter: TokenRecord | None, pack_id: str, reason: ReportReason, details: str) -> ReportRecord:
        """A reader's report of a pack the reader may read (404 otherwise, as for the reader view)."""
        account = reporter.account if reporter is not None else None
        publication = self._packs.publication(pack_id)
        if publication is None or not publication.readable_by(account):
            raise NotFoundError(f"no published pack {pack_id!r}")
        text = _text(details, "a report's details", MAX_DETAILS, empty_ok=True)
        return self._store.add_report(NewReport(pack_id, reason, text, account, self._now()))

    def reports(
        self, token: TokenRecord, status: ReportStatus = "open", *, after: int = 0, limit: int = 100
    ) -> list[ReportRecord]:
        """Reports, oldest first (open ones by default)."""
        self._admin(token)
        return self._store.reports(status, after=after, limit=limit)

    def resolve(self, token: TokenRecord, report_id: int, note: str) -> None:
        """Resolve an open report with a note; 404 unless it is open."""
        actor = self._admin(token)
        if not self._store.resolve_report(report_id, _text(note, "a resolution note", MAX_REASON), actor, self._now()):
            raise NotFoundError(f"no open report {report_id}")

    def events(self, token: TokenRecord, *, after: int = 0, limit: int = 100) -> list[AdminEvent]:
        """The platform's journal, oldest first."""
        self._admin(token)
        return self._store.admin_events(after=after, limit=limit)

    def _now(self) -> datetime:
        return self._clock.now()
