"""ASGI middleware: a bound on header size (431) and per-IP / per-token rate limits (429).

Rate-limit headers follow draft-ietf-httpapi-ratelimit-headers: ``RateLimit-Policy`` names each
policy (``q`` requests per ``w`` seconds), ``RateLimit`` the nearest one's remaining requests
(``r``) and seconds to reset (``t``); a 429 adds ``Retry-After``.
"""

from __future__ import annotations

import hashlib

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from creatorpack.service.api.errors import problem_response
from creatorpack.service.ratelimit import Decision, Limiter
from creatorpack.service.settings import RateLimit

__all__ = ["HeaderLimitMiddleware", "RateLimitMiddleware"]


class HeaderLimitMiddleware:
    """Answers 431 when the request's headers together exceed ``max_bytes``."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse oversized headers, else pass the request on."""
        if scope["type"] == "http":
            size = sum(len(name) + len(value) + 4 for name, value in scope["headers"])
            if size > self.max_bytes:
                response = problem_response(
                    "headers-too-large", f"the request headers exceed {self.max_bytes:,} bytes", limit=self.max_bytes
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _policy(name: str, limit: RateLimit) -> str:
    return f'"{name}";q={limit.requests};w={limit.seconds}'


class RateLimitMiddleware:
    """Counts every request per client IP and per bearer token; 429 once either is over its limit."""

    def __init__(self, app: ASGIApp, limiter: Limiter, *, per_token: RateLimit, per_ip: RateLimit) -> None:
        self.app = app
        self.limiter = limiter
        self.per_token = per_token
        self.per_ip = per_ip

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Count the request; answer 429 or pass it on with the rate-limit headers."""
        if scope["type"] != "http" or not (self.per_ip.enabled or self.per_token.enabled):
            await self.app(scope, receive, send)
            return
        decisions: list[tuple[str, Decision]] = []
        if self.per_ip.enabled:
            client = scope.get("client")
            host = client[0] if client else "unknown"
            decisions.append(("ip", await self.limiter.hit(f"ip:{host}", self.per_ip)))
        authorization = _header(scope, b"authorization")
        if authorization and self.per_token.enabled:
            key = hashlib.sha256(authorization).hexdigest()[:32]
            decisions.append(("token", await self.limiter.hit(f"token:{key}", self.per_token)))
        if not decisions:  # only a per-token limit, and no token
            await self.app(scope, receive, send)
            return
        policy = ", ".join(_policy(name, d.limit) for name, d in decisions)
        denied = [(name, d) for name, d in decisions if not d.allowed]
        if denied:
            name, decision = max(denied, key=lambda pair: pair[1].reset)
            headers = {
                "Retry-After": str(decision.reset),
                "RateLimit-Policy": policy,
                "RateLimit": f'"{name}";r=0;t={decision.reset}',
            }
            response = problem_response(
                "rate-limited",
                f"the {name} limit of {decision.limit.requests} requests per {decision.limit.seconds} s is used up; "
                f"retry in {decision.reset} s",
                headers=headers,
            )
            await response(scope, receive, send)
            return
        name, nearest = min(decisions, key=lambda pair: pair[1].remaining)
        extra = [
            (b"ratelimit-policy", policy.encode()),
            (b"ratelimit", f'"{name}";r={nearest.remaining};t={nearest.reset}'.encode()),
        ]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key.lower() == name:
            return bytes(value)
    return None
