"""Accounts and bearer tokens: random (256 bits), stored only as their sha256, each with one scope.

``admin`` holds every scope; ``host`` is the narration backend's scope (play sessions).
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Final

from creatorpack.service.errors import ForbiddenError, UnauthorizedError
from creatorpack.service.ports import SCOPES, Clock, Scope, TokenRecord, TokenStore

__all__ = ["PREFIX", "Auth", "bearer_token", "hash_token"]

PREFIX: Final = "cpt_"
_SECRET_BYTES: Final = 32  # 256 bits
_MAX_TOKEN_CHARS: Final = 256
_ACCOUNT_CHARS: Final = 80
_CACHE_SIZE: Final = 10_000


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

    def issue(self, account: str, scope: str) -> tuple[str, TokenRecord]:
        """A new token for ``account`` (created on first use): the secret (shown once) and its record."""
        if scope not in SCOPES:
            raise ValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
        if not account or len(account) > _ACCOUNT_CHARS or not account.isprintable():
            raise ValueError(f"an account name is 1 to {_ACCOUNT_CHARS} printable characters")
        token = PREFIX + secrets.token_urlsafe(_SECRET_BYTES)
        record = TokenRecord(secrets.token_hex(8), account, _scope(scope), self._clock.now())
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
        if self._cache_seconds > 0:
            if len(self._cache) > _CACHE_SIZE:
                self._cache.clear()
            self._cache[digest] = (record, time.monotonic() + self._cache_seconds)
        return record

    def cached(self, authorization: str | None) -> TokenRecord | None:
        """The live token of a header if it was checked less than ``cache_seconds`` ago (no store access)."""
        if not self._cache:
            return None
        token = bearer_token(authorization)
        if token is None or len(token) > _MAX_TOKEN_CHARS:
            return None
        hit = self._cache.get(hash_token(token))
        if hit is None or hit[1] < time.monotonic():
            return None
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

    def revoke(self, token_id: str) -> bool:
        """Revoke a token by its public id; False if there was no live token with that id.

        This process forgets it at once; other server processes within their ``cache_seconds``.
        """
        self._cache = {k: v for k, v in self._cache.items() if v[0].id != token_id}
        return self._store.revoke(token_id, self._clock.now())


def _scope(value: str) -> Scope:
    for scope in SCOPES:
        if scope == value:
            return scope
    raise ValueError(value)
