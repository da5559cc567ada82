"""Accounts and bearer tokens: random (256 bits), stored only as their sha256, each with one scope.

``admin`` holds every scope of its account; ``host`` is the narration backend's scope (play sessions).
A token may expire, may be limited to named packs, and remembers when it was last used (to the
minute). The platform's own admins are accounts whose *role* is ``admin``: their ``admin`` tokens
moderate (:mod:`~creatorpack.service.moderation`); a creator's all-scopes token moderates nothing.
A disabled account's tokens stop working: at once in the process that disabled it, within
``cache_seconds`` in the others (as a revoked token).
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Final

from creatorpack.service.errors import BadRequestError, ForbiddenError, NotFoundError, UnauthorizedError
from creatorpack.service.logs import note_account
from creatorpack.service.names import account_problem, normalize_pack_id
from creatorpack.service.ports import SCOPES, Clock, Scope, TokenRecord, TokenStore

__all__ = ["PREFIX", "Auth", "bearer_token", "hash_token"]

PREFIX: Final = "cpt_"
_SECRET_BYTES: Final = 32  # 256 bits
_MAX_TOKEN_CHARS: Final = 256
_CACHE_SIZE: Final = 10_000
_TOUCH_EVERY: Final = timedelta(seconds=60)  # last_used is kept to the minute: one write a minute per token
MAX_TOKEN_NAME: Final = 100


def hash_token(token: str) -> str:
    """The sha256 (hex) under which a token is stored."""
    return hashlib.sha256(token.encode("utf-8", errors="surrogatepass")).hexdigest()


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; None for a missing header or another scheme.

    The scheme is case-insensitive and spaces around the token do not count (RFC 9110). This is the
    one reading of the header: the token check, its cache, the fast paths and the per-token rate
    limit all use it, so that every spelling of one token is one identity with one limit.
    """
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return None
    return token


class Auth:
    """Issues, checks and revokes tokens over a :class:`~creatorpack.service.ports.TokenStore`."""

    def __init__(self, store: TokenStore, clock: Clock, *, cache_seconds: float = 0.0) -> None:
        self._store = store
        self._clock = clock
        self._cache_seconds = cache_seconds
        self._cache: dict[str, tuple[TokenRecord, float]] = {}

    def issue(
        self,
        account: str,
        scope: str,
        *,
        expires: datetime | None = None,
        packs: Iterable[str] | None = None,
        name: str | None = None,
    ) -> tuple[str, TokenRecord]:
        """A new token for ``account`` (created on first use): the secret (shown once) and its record.

        A new account's name must follow :data:`~creatorpack.service.names.ACCOUNT_GRAMMAR` (accounts
        named before it existed keep their names). ``expires``: when it stops working; ``packs``: the
        pack ids it is limited to (any spelling: they are kept normalized); ``name``: a label.
        :class:`~creatorpack.service.errors.BadRequestError` (a ``ValueError``) says what is wrong with any of them.
        """
        if scope not in SCOPES:
            raise BadRequestError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
        if (problem := account_problem(account)) is not None and self._store.account(account) is None:
            raise BadRequestError(f"{problem}, not {account!r}")
        now = self._clock.now()
        if expires is not None and expires <= now:
            raise BadRequestError("the expiry must be in the future")
        limited = None if packs is None else tuple(sorted({normalize_pack_id(p) for p in packs}))
        if limited == ():
            raise BadRequestError("a token limited to packs names at least one")
        if name is not None and not (0 < len(name) <= MAX_TOKEN_NAME and name.isprintable()):
            raise BadRequestError(f"a token's name is 1 to {MAX_TOKEN_NAME} printable characters")
        token = PREFIX + secrets.token_urlsafe(_SECRET_BYTES)
        record = TokenRecord(
            secrets.token_hex(8), account, _scope(scope), now, expires=expires, packs=limited, name=name
        )
        self._store.add_token(record, hash_token(token))
        return token, record

    def authenticate(self, authorization: str | None) -> TokenRecord:
        """The live token named by an ``Authorization: Bearer ...`` header; 401 otherwise."""
        if not authorization:
            raise UnauthorizedError("this route needs a bearer token (Authorization: Bearer ...)")
        token = bearer_token(authorization)
        if token is None:
            raise UnauthorizedError("use the Bearer scheme: Authorization: Bearer <token>")
        if len(token) > _MAX_TOKEN_CHARS or not token.startswith(PREFIX):
            raise UnauthorizedError("unknown or revoked token")
        digest = hash_token(token)
        record = self._store.token_by_hash(digest)
        if record is None or record.revoked is not None:
            raise UnauthorizedError("unknown or revoked token")
        now = self._clock.now()
        if record.expired(now):
            raise UnauthorizedError("the token has expired")
        if record.account_disabled is not None:
            raise UnauthorizedError("the token's account is disabled")
        if record.last_used is None or now - record.last_used >= _TOUCH_EVERY:
            self._store.touch(record.id, now)
        if self._cache_seconds > 0:
            if len(self._cache) > _CACHE_SIZE:
                self._cache.clear()
            seconds = self._cache_seconds
            if record.expires is not None:  # never trusted from memory past its expiry
                seconds = min(seconds, (record.expires - now).total_seconds())
            self._cache[digest] = (record, time.monotonic() + seconds)
        note_account(record.account)  # the access line names the account, never the token
        return record

    def cached(self, authorization: str | None) -> TokenRecord | None:
        """The live token of a header if it was checked less than ``cache_seconds`` ago (no store access)."""
        if not self._cache:
            return None
        token = bearer_token(authorization)
        if token is None or len(token) > _MAX_TOKEN_CHARS:
            return None
        hit = self._cache.get(hash_token(token))
        if hit is None or hit[1] < time.monotonic() or hit[0].expired(self._clock.now()):
            return None
        note_account(hit[0].account)
        return hit[0]

    @staticmethod
    def require(record: TokenRecord, scope: Scope) -> TokenRecord:
        """``record`` if its scope is ``scope`` (or admin); 403 otherwise."""
        if record.scope not in (scope, "admin"):
            raise ForbiddenError(f"this route needs a token with scope {scope!r} (this one has {record.scope!r})")
        return record

    def tokens(self, account: str | None = None) -> list[TokenRecord]:
        """Every token (of one account)."""
        return self._store.tokens(account)

    def revoke(self, token_id: str, *, account: str | None = None) -> bool:
        """Revoke a token by its public id (of ``account`` only, when given); False if there was no such live token.

        This process forgets it at once; other server processes within their ``cache_seconds``.
        """
        if account is not None and not any(t.id == token_id for t in self._store.tokens(account)):
            return False
        self._cache = {k: v for k, v in self._cache.items() if v[0].id != token_id}
        return self._store.revoke(token_id, self._clock.now())

    def issue_own(
        self,
        caller: TokenRecord,
        scope: str,
        *,
        expires_in: timedelta | None = None,
        packs: Iterable[str] | None = None,
        name: str | None = None,
    ) -> tuple[str, TokenRecord]:
        """A new token for the caller's own account, no more powerful than the caller's token.

        Its scope is the caller's (an ``admin`` token makes any scope); it expires no later than the
        caller (one that expires makes only tokens that expire); a token limited to packs makes none.
        """
        if caller.packs is not None:
            raise ForbiddenError("a token limited to named packs cannot make tokens")
        if caller.scope not in ("admin", scope):
            raise ForbiddenError(f"a {caller.scope!r} token makes only {caller.scope!r} tokens (an 'admin' token any)")
        if expires_in is not None and expires_in <= timedelta(0):
            raise BadRequestError("expires_in is a number of seconds above 0")
        now = self._clock.now()
        expires = now + expires_in if expires_in is not None else None
        if caller.expires is not None and (expires is None or expires > caller.expires):
            raise BadRequestError(
                f"this token expires at {caller.expires.isoformat()}: the tokens it makes must expire no later"
            )
        return self.issue(caller.account, scope, expires=expires, packs=packs, name=name)

    def own_tokens(self, caller: TokenRecord) -> list[TokenRecord]:
        """The tokens of the caller's account (a token limited to packs sees only itself)."""
        found = self._store.tokens(caller.account)
        return [t for t in found if t.id == caller.id] if caller.packs is not None else found

    def revoke_own(self, caller: TokenRecord, token_id: str) -> None:
        """Revoke a token of the caller's account (a token limited to packs: only itself); 404 otherwise."""
        if caller.packs is not None and token_id != caller.id:
            raise ForbiddenError("a token limited to named packs can revoke only itself")
        if not self.revoke(token_id, account=caller.account):
            raise NotFoundError(f"no live token {token_id!r} of this account")

    def forget_account(self, account: str) -> None:
        """Drop what this process remembers of the account's tokens (it was disabled or changed role)."""
        self._cache = {k: v for k, v in self._cache.items() if v[0].account != account}


def _scope(value: str) -> Scope:
    for scope in SCOPES:
        if scope == value:
            return scope
    raise ValueError(value)
