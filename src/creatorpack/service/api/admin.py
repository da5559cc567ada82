"""Moderation routes: the platform admins' ``/v1/admin/...`` and readers' ``POST /v1/packs/{pack_id}/reports``.

The admin routes need an ``admin`` token of an account whose role is ``admin`` (403 otherwise, for a
creator's own ``admin`` token too); the domain (:mod:`creatorpack.service.moderation`) checks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from creatorpack.service.api.deps import (
    ANONYMOUS,
    DIGITS,
    PROBLEM_RESPONSES,
    authenticated,
    json_response,
    optional_token,
    read_request,
    request_body,
    services,
)
from creatorpack.service.api.errors import problem_response
from creatorpack.service.api.packs import ID_PATTERN, PackId
from creatorpack.service.api.tokens import MAX_EXPIRES_IN, NewTokenModel
from creatorpack.service.auth import MAX_TOKEN_NAME
from creatorpack.service.moderation import MAX_DETAILS, MAX_REASON
from creatorpack.service.ports import (
    AccountRecord,
    AdminEvent,
    AdminEventKind,
    PackSummary,
    ReportReason,
    ReportRecord,
    Role,
    TokenRecord,
    Visibility,
)

__all__ = [
    "AccountModel",
    "Accounts",
    "AdminEventModel",
    "AdminEvents",
    "AdminTokenRequest",
    "PackSummaries",
    "PackSummaryModel",
    "Reason",
    "ReportModel",
    "ReportRequest",
    "Reports",
    "Resolution",
    "TakedownModel",
    "account_token",
    "accounts",
    "admin_router",
    "disable",
    "enable",
    "events",
    "packs",
    "report",
    "reports",
    "reports_router",
    "resolve",
    "restore",
    "takedown",
]

admin_router = APIRouter(prefix="/v1/admin", tags=["admin"])
reports_router = APIRouter(prefix="/v1/packs", tags=["catalog"])

_MAX_ID: Final = 2**31 - 1  # report and journal ids are SQL integers
Admin = Annotated[TokenRecord, Depends(authenticated)]
Caller = Annotated[TokenRecord | None, Depends(optional_token)]
AccountName = Annotated[
    str, Path(min_length=1, max_length=80, pattern=r"^[^/\x00-\x1f\x7f]+$", description="An account's name")
]
After = Annotated[int, Query(ge=0, le=_MAX_ID, description="The `next` of the previous page"), DIGITS]
Limit = Annotated[int, Query(ge=1, le=1000), DIGITS]
_ERRORS: Final[dict[int | str, dict[str, Any]]] = {k: PROBLEM_RESPONSES[k] for k in (400, 401, 403)}
_BODY: Final[dict[int | str, dict[str, Any]]] = {k: PROBLEM_RESPONSES[k] for k in (413, 415)}
_NOT_FOUND: Final[dict[int | str, dict[str, Any]]] = {404: PROBLEM_RESPONSES[404]}
_NO_NUL: Final = r"^[^\x00]*$"  # PostgreSQL text holds no NUL
_PLAIN: Final = r"^[^\x00-\x1f\x7f]*$"  # a name: no control character
ReasonText = Annotated[str, Field(min_length=1, max_length=MAX_REASON, pattern=_NO_NUL)]
Name = Annotated[str, Query(max_length=80, pattern=_PLAIN, description="The `next` of the previous page")]


# -- shapes ------------------------------------------------------------------------------------------


class Reason(BaseModel):
    """Why (shown to the pack's owner for a takedown; kept in the platform's journal)."""

    model_config = ConfigDict(extra="forbid")

    reason: ReasonText


class Resolution(BaseModel):
    """How a report was resolved."""

    model_config = ConfigDict(extra="forbid")

    note: ReasonText


class AdminTokenRequest(BaseModel):
    """A token for an account (created on first use, its name following the account grammar)."""

    model_config = ConfigDict(extra="forbid")

    scope: Literal["creator", "reader", "host", "admin"]
    expires_in: int | None = Field(None, ge=1, le=MAX_EXPIRES_IN, strict=True, description="Seconds; none: no expiry")
    packs: list[Annotated[str, Field(pattern=ID_PATTERN, max_length=80)]] | None = Field(
        None, min_length=1, max_length=100
    )
    name: str | None = Field(None, min_length=1, max_length=MAX_TOKEN_NAME, pattern=_PLAIN)


class ReportRequest(BaseModel):
    """A reader's report of a pack."""

    model_config = ConfigDict(extra="forbid")

    reason: Literal["spam", "rights", "harmful", "sexual", "unmarked-adult", "spoilers", "other"]
    details: str = Field("", max_length=MAX_DETAILS, pattern=_NO_NUL)


@dataclass(frozen=True)
class TakedownModel:
    """A takedown: its reason, when, and which admin."""

    reason: str
    at: datetime
    by: str


@dataclass(frozen=True)
class PackSummaryModel:
    """A pack as the admins' list shows it."""

    pack_id: str
    owner: str
    created: datetime
    latest_revision: int
    published_revision: int | None
    visibility: Visibility
    takedown: TakedownModel | None
    owner_disabled: bool

    @classmethod
    def of(cls, pack: PackSummary) -> PackSummaryModel:
        """The pack's summary."""
        t = pack.takedown
        takedown = None if t is None else TakedownModel(t.reason, t.at, t.by)
        return cls(
            pack.pack_id,
            pack.owner,
            pack.created,
            pack.latest_revision,
            pack.published_revision,
            pack.visibility,
            takedown,
            pack.owner_disabled,
        )


@dataclass(frozen=True)
class PackSummaries:
    """A page of packs, by id; ``next`` is the ``after`` of the next page."""

    packs: tuple[PackSummaryModel, ...]
    next: str | None


@dataclass(frozen=True)
class AccountModel:
    """An account: its platform role and whether it is disabled."""

    name: str
    created: datetime
    role: Role
    disabled: datetime | None
    disabled_reason: str | None

    @classmethod
    def of(cls, account: AccountRecord) -> AccountModel:
        """The account."""
        a = account
        return cls(a.name, a.created, a.role, a.disabled, a.disabled_reason)


@dataclass(frozen=True)
class Accounts:
    """A page of accounts, by name; ``next`` is the ``after`` of the next page."""

    accounts: tuple[AccountModel, ...]
    next: str | None


@dataclass(frozen=True)
class ReportModel:
    """A report of a pack, open until resolved."""

    id: int
    pack_id: str
    reason: ReportReason
    details: str
    reporter: str | None
    created: datetime
    resolved: datetime | None
    resolved_by: str | None
    resolution: str | None

    @classmethod
    def of(cls, report: ReportRecord) -> ReportModel:
        """The report."""
        r = report
        return cls(r.id, r.pack_id, r.reason, r.details, r.reporter, r.created, r.resolved, r.resolved_by, r.resolution)


@dataclass(frozen=True)
class Reports:
    """A page of reports, oldest first; ``next`` is the ``after`` of the next page."""

    reports: tuple[ReportModel, ...]
    next: int | None


@dataclass(frozen=True)
class AdminEventModel:
    """An entry of the platform's journal."""

    id: int
    kind: AdminEventKind
    account: str
    token_id: str | None
    at: datetime
    target_account: str | None
    pack_id: str | None
    detail: str | None

    @classmethod
    def of(cls, event: AdminEvent) -> AdminEventModel:
        """The journal entry."""
        e = event
        return cls(e.id, e.kind, e.account, e.token_id, e.at, e.target_account, e.pack_id, e.detail)


@dataclass(frozen=True)
class AdminEvents:
    """A page of the platform's journal, oldest first; ``next`` is the ``after`` of the next page."""

    events: tuple[AdminEventModel, ...]
    next: int | None


# -- packs -------------------------------------------------------------------------------------------


@admin_router.get("/packs", response_model=PackSummaries, responses=_ERRORS)
def packs(
    request: Request,
    admin: Admin,
    after: Name = "",
    limit: Limit = 100,
    owner: Annotated[str | None, Query(max_length=80, pattern=_PLAIN, description="Only this account's packs")] = None,
) -> Response:
    """Every pack, by id: owner, revisions, publication, takedown and whether its owner is disabled."""
    found = services(request).moderation.packs(admin, after=after, limit=limit, owner=owner)
    following = found[-1].pack_id if len(found) == limit else None
    return json_response(PackSummaries(tuple(PackSummaryModel.of(p) for p in found), following))


@admin_router.post(
    "/packs/{pack_id}/takedown",
    response_model=PackSummaryModel,
    responses={**_ERRORS, **_BODY, **_NOT_FOUND},
    openapi_extra=request_body(Reason),
)
async def takedown(request: Request, pack_id: PackId, admin: Admin) -> Response:
    """Hide a pack from the catalog and from everyone but its owner (who reads the reason in its journal)."""
    body = await read_request(request, Reason)
    try:
        done = services(request).moderation.takedown(admin, pack_id, body.reason)
    finally:
        services(request).sessions.forget(pack_id)  # other accounts' sessions stop in this process at once
    return json_response(PackSummaryModel.of(done))


@admin_router.delete("/packs/{pack_id}/takedown", response_model=PackSummaryModel, responses={**_ERRORS, **_NOT_FOUND})
def restore(request: Request, pack_id: PackId, admin: Admin) -> Response:
    """Show a taken-down pack again, as it is published now."""
    try:
        done = services(request).moderation.restore(admin, pack_id)
    finally:
        services(request).sessions.forget(pack_id)
    return json_response(PackSummaryModel.of(done))


# -- accounts ----------------------------------------------------------------------------------------


@admin_router.get("/accounts", response_model=Accounts, responses=_ERRORS)
def accounts(
    request: Request,
    admin: Admin,
    after: Name = "",
    limit: Limit = 100,
) -> Response:
    """Every account, by name: role, and whether (since when, why) it is disabled."""
    found = services(request).moderation.accounts(admin, after=after, limit=limit)
    following = found[-1].name if len(found) == limit else None
    return json_response(Accounts(tuple(AccountModel.of(a) for a in found), following))


@admin_router.post(
    "/accounts/{account}/disable",
    response_model=AccountModel,
    responses={**_ERRORS, **_BODY, **_NOT_FOUND},
    openapi_extra=request_body(Reason),
)
async def disable(request: Request, account: AccountName, admin: Admin) -> Response:
    """Disable an account: its tokens stop working and its packs are hidden from everyone."""
    body = await read_request(request, Reason)
    try:
        done = services(request).moderation.disable(admin, account, body.reason)
    finally:
        services(request).sessions.forget_all()  # its packs' sessions of other accounts stop here at once
    return json_response(AccountModel.of(done))


@admin_router.post("/accounts/{account}/enable", response_model=AccountModel, responses={**_ERRORS, **_NOT_FOUND})
def enable(request: Request, account: AccountName, admin: Admin) -> Response:
    """Enable a disabled account: its tokens work again and its packs are shown as they are published."""
    try:
        done = services(request).moderation.enable(admin, account)
    finally:
        services(request).sessions.forget_all()
    return json_response(AccountModel.of(done))


@admin_router.post(
    "/accounts/{account}/tokens",
    status_code=201,
    response_model=NewTokenModel,
    responses={**_ERRORS, **_BODY},
    openapi_extra=request_body(AdminTokenRequest),
)
async def account_token(request: Request, account: AccountName, admin: Admin) -> Response:
    """Make a token for any account (created on first use, its name then following the account grammar).

    The secret is in this answer only.
    """
    body = await read_request(request, AdminTokenRequest)
    expires_in = timedelta(seconds=body.expires_in) if body.expires_in is not None else None
    made = services(request).moderation.issue_token(
        admin, account, body.scope, expires_in=expires_in, packs=body.packs, name=body.name
    )
    return json_response(NewTokenModel.made(made.record, made.secret), 201, {"Cache-Control": "no-store"})


# -- reports and the journal -------------------------------------------------------------------------


@reports_router.post(
    "/{pack_id}/reports",
    status_code=201,
    response_model=ReportModel,
    responses={
        **{k: PROBLEM_RESPONSES[k] for k in (400, 401)},  # any live token may report: no 403
        **_BODY,
        **_NOT_FOUND,
        429: {"description": "Too many reports (rate-limited)"},
    },
    openapi_extra={**request_body(ReportRequest), **ANONYMOUS},
)
async def report(request: Request, pack_id: PackId, caller: Caller) -> Response:
    """Report a pack you may read (anonymous readers too), at most a few times an hour per account or IP."""
    body = await read_request(request, ReportRequest)
    settings = services(request).settings
    if settings.rate_reports.enabled:
        decision = await request.app.state.limiter.hit(_reporter_key(request, caller), settings.rate_reports)
        if not decision.allowed:
            limit = settings.rate_reports
            return problem_response(
                "rate-limited",
                f"at most {limit.requests} reports per {limit.seconds} s; retry in {decision.reset} s",
                instance=request.url.path,
                headers={"Retry-After": str(decision.reset)},
            )
    found = services(request).moderation.report(caller, pack_id, body.reason, body.details)
    return json_response(ReportModel.of(found), 201)


def _reporter_key(request: Request, caller: TokenRecord | None) -> str:
    """Who the report limit counts: the account for a token, else the client's IP."""
    if caller is not None:
        return f"report:account:{caller.account}"
    client = request.client
    return f"report:ip:{client.host if client else 'unknown'}"


@admin_router.get("/reports", response_model=Reports, responses=_ERRORS)
def reports(
    request: Request,
    admin: Admin,
    status: Literal["open", "resolved", "all"] = "open",
    after: After = 0,
    limit: Limit = 100,
) -> Response:
    """Readers' reports, oldest first (open ones by default)."""
    found = services(request).moderation.reports(admin, status, after=after, limit=limit)
    following = found[-1].id if len(found) == limit else None
    return json_response(Reports(tuple(ReportModel.of(r) for r in found), following))


@admin_router.post(
    "/reports/{report_id}/resolve",
    status_code=204,
    responses={**_ERRORS, **_BODY, **_NOT_FOUND},
    openapi_extra=request_body(Resolution),
)
async def resolve(
    request: Request, report_id: Annotated[int, Path(ge=1, le=_MAX_ID), DIGITS], admin: Admin
) -> Response:
    """Resolve an open report with a note (journaled)."""
    body = await read_request(request, Resolution)
    services(request).moderation.resolve(admin, report_id, body.note)
    return Response(status_code=204)


@admin_router.get("/events", response_model=AdminEvents, responses=_ERRORS)
def events(request: Request, admin: Admin, after: After = 0, limit: Limit = 100) -> Response:
    """The platform's journal, oldest first: every admin action (takedowns, accounts, tokens, reports, roles)."""
    found = services(request).moderation.events(admin, after=after, limit=limit)
    following = found[-1].id if len(found) == limit else None
    return json_response(AdminEvents(tuple(AdminEventModel.of(e) for e in found), following))
