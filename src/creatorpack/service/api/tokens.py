"""A caller's own tokens: make one, list them, revoke one (as PyPI's and npm's API tokens).

Any live token may call these routes for its own account; what it may make is bounded by what it is
(:meth:`~creatorpack.service.auth.Auth.issue_own`). The secret of a new token is in the answer to
the request that made it, and nowhere else ever after.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Depends, Path, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from creatorpack.service.api.deps import PROBLEM_RESPONSES, authenticated, json_response, read_request, request_body
from creatorpack.service.api.deps import services as _services
from creatorpack.service.api.packs import ID_PATTERN
from creatorpack.service.auth import MAX_TOKEN_NAME
from creatorpack.service.ports import Scope, TokenRecord

__all__ = [
    "MAX_EXPIRES_IN",
    "NewTokenModel",
    "NewTokenRequest",
    "TokenList",
    "TokenModel",
    "create",
    "listing",
    "revoke",
    "router",
]

router = APIRouter(prefix="/v1/tokens", tags=["tokens"])

Caller = Annotated[TokenRecord, Depends(authenticated)]
TokenId = Annotated[str, Path(pattern=r"^[0-9a-f]{16}$", description="A token's public id (never its secret)")]
MAX_EXPIRES_IN: Final = 10 * 366 * 24 * 3600  # ten years, in seconds
_ERRORS: Final[dict[int | str, dict[str, Any]]] = {k: PROBLEM_RESPONSES[k] for k in (400, 401, 403)}


@dataclass(frozen=True)
class TokenModel:
    """A token as its account sees it: never the secret, which only its creation answers with."""

    id: str
    account: str
    scope: Scope
    name: str | None
    created: datetime
    expires: datetime | None
    last_used: Annotated[datetime | None, Field(description="To the minute")]
    revoked: datetime | None
    packs: Annotated[
        tuple[str, ...] | None, Field(description="The pack ids (normalized) it may act on; null: every pack")
    ]

    @classmethod
    def of(cls, record: TokenRecord) -> TokenModel:
        """The token as its account sees it."""
        r = record
        return cls(r.id, r.account, r.scope, r.name, r.created, r.expires, r.last_used, r.revoked, r.packs)


@dataclass(frozen=True)
class NewTokenModel(TokenModel):
    """A token just made, with its secret: keep it, it is shown this once."""

    token: str

    @classmethod
    def made(cls, record: TokenRecord, secret: str) -> NewTokenModel:
        """The token just made, with its secret."""
        r = record
        return cls(r.id, r.account, r.scope, r.name, r.created, r.expires, r.last_used, r.revoked, r.packs, secret)


@dataclass(frozen=True)
class TokenList:
    """The account's tokens, oldest first."""

    tokens: tuple[TokenModel, ...]


class NewTokenRequest(BaseModel):
    """What the new token may do: its scope, how long it lives, the packs it is limited to, a label."""

    model_config = ConfigDict(extra="forbid")

    scope: Literal["creator", "reader", "host", "admin"]
    expires_in: int | None = Field(None, ge=1, le=MAX_EXPIRES_IN, strict=True, description="Seconds; none: no expiry")
    packs: list[Annotated[str, Field(pattern=ID_PATTERN, max_length=80)]] | None = Field(
        None, min_length=1, max_length=100, description="Pack ids it may act on (any spelling); none: every pack"
    )
    name: str | None = Field(None, min_length=1, max_length=MAX_TOKEN_NAME, pattern=r"^[^\x00-\x1f\x7f]*$")


@router.post(
    "",
    status_code=201,
    response_model=NewTokenModel,
    responses={**_ERRORS, 413: PROBLEM_RESPONSES[413], 415: PROBLEM_RESPONSES[415]},
    openapi_extra=request_body(NewTokenRequest),
)
async def create(request: Request, caller: Caller) -> Response:
    """Make a token for the caller's account, no more powerful than the caller (the secret is in this answer only)."""
    body = await read_request(request, NewTokenRequest)
    expires_in = timedelta(seconds=body.expires_in) if body.expires_in is not None else None
    auth = _services(request).auth
    secret, record = auth.issue_own(caller, body.scope, expires_in=expires_in, packs=body.packs, name=body.name)
    return json_response(NewTokenModel.made(record, secret), 201, {"Cache-Control": "no-store"})


@router.get("", response_model=TokenList, responses={k: PROBLEM_RESPONSES[k] for k in (400, 401)})
def listing(request: Request, caller: Caller) -> Response:
    """The caller's account's tokens (a token limited to packs: itself), revoked ones included."""
    found = _services(request).auth.own_tokens(caller)
    return json_response(TokenList(tuple(TokenModel.of(t) for t in found)))


@router.delete("/{token_id}", status_code=204, responses={**_ERRORS, 404: PROBLEM_RESPONSES[404]})
def revoke(request: Request, token_id: TokenId, caller: Caller) -> Response:
    """Revoke a live token of the caller's account: 401 from then on (this server at once, others within 1 s)."""
    _services(request).auth.revoke_own(caller, token_id)
    return Response(status_code=204)
