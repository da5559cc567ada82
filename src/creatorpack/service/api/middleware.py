"""ASGI middleware: header bounds (431; two Authorization: 400), rate limits (429), one-valued queries, fast paths.

The gate sends only pack paths through the raw-ASGI fast paths.

Rate-limit headers follow draft-ietf-httpapi-ratelimit-headers: ``RateLimit-Policy`` names each
policy (``q`` requests per ``w`` seconds), ``RateLimit`` the nearest one's remaining requests
(``r``) and seconds to reset (``t``); a 429 adds ``Retry-After``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import UnionType
from typing import Any, Final, Union, get_args, get_origin
from urllib.parse import parse_qsl, unquote_to_bytes

from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from creatorpack.service.api.errors import problem_response
from creatorpack.service.auth import bearer_token, hash_token
from creatorpack.service.metrics import RATE_LIMITED
from creatorpack.service.ratelimit import Decision, Limiter
from creatorpack.service.settings import RateLimit

__all__ = [
    "HEAD_SCOPE_KEY",
    "FastPath",
    "FastPathGate",
    "HeadMiddleware",
    "HeaderLimitMiddleware",
    "RateLimitMiddleware",
    "SingleValuedQueryMiddleware",
]


class HeaderLimitMiddleware:
    """Answers 431 when the request's headers together exceed ``max_bytes``, 400 for more than one ``Authorization``.

    A request carries one identity: with two tokens, the rate limit, the routes and the fast paths
    could each pick another one, so such a request is refused before any of them sees it.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse oversized headers or a repeated Authorization, else pass the request on."""
        if scope["type"] == "http":
            size = 0
            authorizations = 0
            for name, value in scope["headers"]:
                size += len(name) + len(value) + 4
                if name.lower() == b"authorization":
                    authorizations += 1
            if size > self.max_bytes:
                response = problem_response(
                    "headers-too-large",
                    f"the request headers exceed {self.max_bytes:,} bytes",
                    instance=scope["path"],
                    limit=self.max_bytes,
                )
                await response(scope, receive, send)
                return
            if authorizations > 1:
                errors = [{"location": "header.authorization", "message": f"takes one value, not {authorizations}"}]
                detail = f"send one Authorization header, not {authorizations}"
                response = problem_response("invalid-request", detail, instance=scope["path"], errors=errors)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


HEAD_SCOPE_KEY: Final = "creatorpack.head"
"""Set (to ``True``) in the scope of a HEAD passed on as a GET: a route that streams a file can skip reading it."""


class HeadMiddleware:
    """Answers ``HEAD`` as ``GET`` would, without the body (RFC 9110), on every route and fast path.

    The request goes on as a GET, so status and headers (``Content-Length`` and ``ETag`` included) are
    the GET's; only the body is dropped.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass a HEAD request on as a GET and drop its body; any other request as it is."""
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET", HEAD_SCOPE_KEY: True}, receive, without_body)


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
            token = bearer_token(authorization.decode("latin-1"))
            key = hash_token(token)[:32] if token is not None else hashlib.sha256(authorization).hexdigest()[:32]
            decisions.append(("token", await self.limiter.hit(f"token:{key}", self.per_token)))
        if not decisions:  # only a per-token limit, and no token
            await self.app(scope, receive, send)
            return
        policy = ", ".join(_policy(name, d.limit) for name, d in decisions)
        denied = [(name, d) for name, d in decisions if not d.allowed]
        if denied:
            name, decision = max(denied, key=lambda pair: pair[1].reset)
            RATE_LIMITED.labels(name).inc()
            headers = {
                "Retry-After": str(decision.reset),
                "RateLimit-Policy": policy,
                "RateLimit": f'"{name}";r=0;t={decision.reset}',
            }
            response = problem_response(
                "rate-limited",
                f"the {name} limit of {decision.limit.requests} requests per {decision.limit.seconds} s is used up; "
                f"retry in {decision.reset} s",
                instance=scope["path"],
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


class SingleValuedQueryMiddleware:
    """Answers 400 when a query parameter that takes one value is sent more than once, or is not UTF-8.

    FastAPI would silently keep the last value; a client that sends two ``q`` or two ``limit`` meant
    something this service cannot know. Only a query string with a repeated name costs anything
    here: the route is then matched to learn which of its parameters take one value.

    Starlette decodes a query's percent-escapes as UTF-8 with replacement characters, so ``q=%FF%FE``
    would be a search for two U+FFFD (which match nothing, and the whole catalog came back): a name
    or value whose bytes are not UTF-8 once percent-decoded is refused on every route, naming it.
    """

    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.routes = routes
        self._scalars: dict[int, tuple[str, ...]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a repeated single-valued parameter, else pass the request on."""
        query = scope.get("query_string") if scope["type"] == "http" else None
        if query and (query.find(b"%") >= 0 or not query.isascii()) and (bad := _not_utf8(query)) is not None:
            errors = [{"location": f"query.{bad}", "message": "is not UTF-8 once percent-decoded"}]
            detail = f"{errors[0]['location']}: {errors[0]['message']}"
            response = problem_response("invalid-request", detail, instance=scope["path"], errors=errors)
            await response(scope, receive, send)
            return
        if query:
            names = [name for name, _ in parse_qsl(query.decode("latin-1"), keep_blank_values=True)]
            if len(set(names)) < len(names):
                repeated = [n for n in self._scalar_names(scope) if names.count(n) > 1]
                if repeated:
                    errors = [
                        {"location": f"query.{n}", "message": f"takes one value, not {names.count(n)}"}
                        for n in repeated
                    ]
                    detail = f"{errors[0]['location']}: {errors[0]['message']}"
                    response = problem_response("invalid-request", detail, instance=scope["path"], errors=errors)
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)

    def _scalar_names(self, scope: Scope) -> tuple[str, ...]:
        for route in self.routes:
            match, _ = route.matches(scope)
            if match is Match.FULL:
                names = self._scalars.get(id(route))
                if names is None:
                    names = self._scalars[id(route)] = _scalar_query_names(route)
                return names
        return ()


def _not_utf8(query: bytes) -> str | None:
    """The name of the first query parameter whose name or value is not UTF-8 once percent-decoded, or None.

    Read from the raw bytes, as the client sent them (``+`` is a space); a name that is itself not
    UTF-8 is shown with replacement characters.
    """
    for part in query.split(b"&"):
        name, _, value = part.partition(b"=")
        raw_name = unquote_to_bytes(name.replace(b"+", b" "))
        try:
            raw_name.decode("utf-8")
            unquote_to_bytes(value.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            return raw_name.decode("utf-8", "replace")
    return None


def _scalar_query_names(route: Any) -> tuple[str, ...]:
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return ()
    names = []
    for param in _query_params(dependant):
        annotation = param.field_info.annotation
        kinds = [annotation, *get_args(annotation)] if get_origin(annotation) in (Union, UnionType) else [annotation]
        if not any(get_origin(kind) in (list, tuple, set, frozenset) or kind in (list, tuple, set) for kind in kinds):
            names.append(param.alias)
    return tuple(names)


def _query_params(dependant: Any) -> list[Any]:
    found = list(dependant.query_params)
    for sub in dependant.dependencies:
        found += _query_params(sub)
    return found


_PACKS: Final = "/v1/packs/"
_ADMIN: Final = "/v1/admin/"

FastPath = tuple[Callable[..., ASGIApp], dict[str, Any]]
"""A raw-ASGI layer (called as ``cls(app, **options)``) and its options."""


class FastPathGate:
    """Sends requests under ``/v1/packs/`` (and ``/v1/admin/``) through ``fast_paths``, ``exact`` paths through theirs.

    ``fast_paths`` are ASGI middleware classes, the first outermost; ``exact`` maps a path to the one
    layer that serves it. They serve only those paths, so no other route pays for their checks.
    """

    def __init__(
        self, app: ASGIApp, fast_paths: Iterable[FastPath], exact: Mapping[str, FastPath] | None = None
    ) -> None:
        self.app = app
        chain = app
        for layer, options in reversed(list(fast_paths)):
            chain = layer(chain, **options)
        self.fast = chain
        self.exact = {path: layer(app, **options) for path, (layer, options) in (exact or {}).items()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Route pack paths through the fast paths, an exact path through its own."""
        if scope["type"] == "http":
            path = scope["path"]
            if path.startswith((_PACKS, _ADMIN)):  # moderation changes what readers are served
                await self.fast(scope, receive, send)
                return
            layer = self.exact.get(path)
            if layer is not None:
                await layer(scope, receive, send)
                return
        await self.app(scope, receive, send)
