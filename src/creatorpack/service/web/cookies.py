"""The pages' two cookies: the signed-in session and the CSRF nonce, both signed with one server key.

``cp_session`` holds the signed-in token's public id, its account and when the sign-in happened,
HMAC-SHA256-signed under a key the service keeps in its store (so every server process reads it):
never the token itself. Each request looks the token up by id, so revoking it, its expiry or a
disabled account end the web session as they end the token. ``cp_csrf`` is a random nonce; every
form carries the HMAC of it (a signed double submit): a cross-site page can neither read the cookie
nor compute the HMAC, so its POST is refused.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Final

import orjson

from creatorpack.service.ports import KeyStore

__all__ = ["CSRF_COOKIE", "SESSION_COOKIE", "SESSION_SECONDS", "Cookies", "SignedIn"]

SESSION_COOKIE: Final = "cp_session"
CSRF_COOKIE: Final = "cp_csrf"
SESSION_SECONDS: Final = 12 * 3600
"""How long a sign-in lasts (the token's own expiry, revocation or a disabled account end it sooner)."""
_KEY_NAME: Final = "web-cookie"
_MAX_COOKIE: Final = 1024


@dataclass(frozen=True, slots=True)
class SignedIn:
    """Who a session cookie names: a token by its public id, its account, and when it was signed in (Unix s)."""

    token_id: str
    account: str
    issued: int


class Cookies:
    """Seals and opens session cookies, makes and checks CSRF tokens, under the key of ``keys``."""

    def __init__(self, keys: KeyStore) -> None:
        self._keys = keys
        self._key: bytes | None = None

    def _signing_key(self) -> bytes:
        if self._key is None:
            fresh = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode("ascii")
            self._key = base64.urlsafe_b64decode(self._keys.secret(_KEY_NAME, fresh))
        return self._key

    def _mac(self, purpose: bytes, data: bytes) -> bytes:
        return hmac.new(self._signing_key(), purpose + b"\0" + data, hashlib.sha256).digest()

    def seal(self, signed: SignedIn) -> str:
        """The cookie value naming ``signed``."""
        payload = orjson.dumps([signed.token_id, signed.account, signed.issued])
        return _b64(payload) + "." + _b64(self._mac(b"session", payload))

    def open(self, value: str | None, now: float) -> SignedIn | None:
        """Who a cookie value names, if this service signed it less than :data:`SESSION_SECONDS` ago; else None."""
        if not value or len(value) > _MAX_COOKIE:
            return None
        body, _, signature = value.partition(".")
        try:
            payload = _unb64(body)
            if not hmac.compare_digest(self._mac(b"session", payload), _unb64(signature)):
                return None
            token_id, account, issued = orjson.loads(payload)
        except (ValueError, TypeError, binascii.Error, orjson.JSONDecodeError):
            return None
        if not (isinstance(token_id, str) and isinstance(account, str) and isinstance(issued, int)):
            return None
        if not issued <= now < issued + SESSION_SECONDS:
            return None
        return SignedIn(token_id, account, issued)

    @staticmethod
    def new_nonce() -> str:
        """A fresh CSRF nonce (the ``cp_csrf`` cookie's value)."""
        return secrets.token_urlsafe(24)

    def csrf_token(self, nonce: str) -> str:
        """What a form sends beside the nonce cookie: its HMAC."""
        return _b64(self._mac(b"csrf", nonce.encode()))

    def csrf_ok(self, nonce: str | None, sent: str | None) -> bool:
        """Whether a form's token is the HMAC of the request's nonce cookie."""
        if not nonce or not sent or len(nonce) > _MAX_COOKIE:
            return False
        return hmac.compare_digest(self.csrf_token(nonce), sent)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
