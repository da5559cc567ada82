"""The outermost ASGI layer: a request id, one access line and the request metrics for every request.

The access line names the route's template (``/v1/packs/{pack_id}``), never the path or its query
(a query may carry a secret, a path a pack id the caller may not even see), and the account of the
request's token once it was checked, never the token. A request that ends in an exception gets its
500 here, and one error record: the access fields and the traceback together (nothing below logs it).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any, Final

from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from creatorpack.service import metrics
from creatorpack.service.api.errors import problem_response
from creatorpack.service.logs import RequestInfo, current_request, log_access, request_id

__all__ = ["REQUEST_ID_HEADER", "ObserveMiddleware", "RouteTemplates"]

REQUEST_ID_HEADER: Final = "X-Request-ID"
_HEADER: Final = REQUEST_ID_HEADER.lower().encode()
_CLIENT_GONE: Final = 499  # the status logged for a request whose client left before any answer
_GROUP: Final = re.compile(r"\(\?P<\w+>")
_SEEN: Final = 10_000


class RouteTemplates:
    """Which route template a path falls under: the routes' path patterns as one regular expression.

    A request the router served names its route in the scope; one a fast path answered does not, and
    testing each route in turn costs ~30 µs, so the patterns (their named groups made plain) are tried
    as one alternation, in route order: the first route whose path matches gives the template,
    whatever the method (a 405 is logged under the route that refused the method). Paths seen
    recently are remembered (bounded).
    """

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        self._templates: list[str] = []
        patterns: list[str] = []
        for route in routes:
            regex = getattr(route, "path_regex", None)
            path = getattr(route, "path", None)
            if regex is None or not isinstance(path, str):
                continue
            body = _GROUP.sub("(?:", regex.pattern.removeprefix("^").removesuffix("$"))
            patterns.append(f"({body})")
            self._templates.append(path)
        self._regex = re.compile("|".join(patterns)) if patterns else None
        self._seen: dict[str, str] = {}

    def __call__(self, scope: Scope) -> str:
        """The template of the route that served ``scope``, else of the first whose path matches, else ``unmatched``."""
        route = scope.get("route")
        path = getattr(route, "path", None)
        if isinstance(path, str):
            return path
        requested: str = scope["path"]
        found = self._seen.get(requested)
        if found is None:
            match = self._regex.fullmatch(requested) if self._regex is not None else None
            found = self._templates[match.lastindex - 1] if match is not None and match.lastindex else metrics.UNMATCHED
            if len(self._seen) >= _SEEN:
                self._seen.clear()
            self._seen[requested] = found
        return found


class ObserveMiddleware:
    """Give each request an id (``X-Request-ID``, the client's if sane), then log and count it once it is answered."""

    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.template = RouteTemplates(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request with its id in the context and the response; then one access line and the metrics."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        sent = None
        for name, value in scope["headers"]:
            if name == _HEADER:
                sent = value.decode("latin-1")
                break
        info = RequestInfo(request_id(sent))
        echo = (_HEADER, info.request_id.encode("latin-1"))
        status = 0

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [*message.get("headers", []), echo]}
            await send(message)

        failure: BaseException | None = None
        begun = False  # whether the answer had begun when the exception came
        reset = current_request().set(info)
        try:
            await self.app(scope, receive, send_with_id)
        except Exception as exc:  # noqa: BLE001 - logged below with its traceback, answered 500 here
            failure = exc
            begun = status != 0
            if not begun:
                answer = problem_response(
                    "internal-error", "the server failed; the error was logged", instance=scope["path"]
                )
                await answer(scope, receive, send_with_id)
        finally:
            current_request().reset(reset)
        seconds = time.perf_counter() - started
        route = self.template(scope)
        # No answer and no failure: the client went away first (499, as nginx logs it), not a server error.
        answered = status or (500 if failure is not None else _CLIENT_GONE)
        metrics.observe_request(scope["method"], route, answered, seconds)
        fields: dict[str, Any] = {
            "request_id": info.request_id,
            "method": scope["method"],
            "route": route,
            "status": answered,
            "duration_ms": round(seconds * 1000, 2),
        }
        if info.account is not None:
            fields["account"] = info.account
        client = scope.get("client")
        if client:
            fields["client"] = client[0]
        log_access(fields, failure)
        if failure is not None and begun:  # too late for a 500: the server closes the connection
            raise failure
