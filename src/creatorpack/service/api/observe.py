"""The outermost ASGI layer: a request id, one access line and the request metrics for every request.

The access line names the route's template (``/v1/packs/{pack_id}``), never the path or its query
(a query may carry a secret, a path a pack id the caller may not even see), and the account of the
request's token once it was checked, never the token. A request that ends in an exception gets its
500 here, and one error record: the access fields and the traceback together (nothing below logs it).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any, Final

from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from creatorpack.service import metrics
from creatorpack.service.api.errors import problem_response
from creatorpack.service.logs import ACCESS_LOGGER, RequestInfo, current_request, request_id

__all__ = ["REQUEST_ID_HEADER", "ObserveMiddleware", "route_template"]

REQUEST_ID_HEADER: Final = "X-Request-ID"
_HEADER: Final = REQUEST_ID_HEADER.lower().encode()
_access: Final = logging.getLogger(ACCESS_LOGGER)


def route_template(scope: Scope, routes: Sequence[BaseRoute]) -> str:
    """The template of the route that served ``scope`` (the router notes it), else of the first that matches it."""
    route = scope.get("route")
    if route is None:
        partial = None
        for candidate in routes:
            match, _ = candidate.matches(scope)
            if match is Match.FULL:
                route = candidate
                break
            if match is Match.PARTIAL and partial is None:
                partial = candidate
        route = route or partial
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else metrics.UNMATCHED


class ObserveMiddleware:
    """Give each request an id (``X-Request-ID``, the client's if sane), then log and count it once it is answered."""

    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute]) -> None:
        self.app = app
        self.routes = routes

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
        route = route_template(scope, self.routes)
        metrics.observe_request(scope["method"], route, status or 500, seconds)
        fields: dict[str, Any] = {
            "request_id": info.request_id,
            "method": scope["method"],
            "route": route,
            "status": status or 500,
            "duration_ms": round(seconds * 1000, 2),
        }
        if info.account is not None:
            fields["account"] = info.account
        client = scope.get("client")
        if client:
            fields["client"] = client[0]
        if failure is not None:
            _access.error("request failed", exc_info=failure, extra={"creatorpack": fields})
            if begun:  # too late for a 500: the server closes the connection
                raise failure
        elif status >= 500:
            _access.error("request", extra={"creatorpack": fields})
        else:
            _access.info("request", extra={"creatorpack": fields})
