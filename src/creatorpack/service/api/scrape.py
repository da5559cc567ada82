"""``GET /metrics``: the Prometheus text exposition, for the scraper; not part of the API (nor its document).

With ``CREATORPACK_METRICS_TOKEN`` set, a scrape must send ``Authorization: Bearer <that value>``
(compared in constant time): the numbers say how busy the service is and which routes fail.
"""

from __future__ import annotations

import hmac

from fastapi import APIRouter, Request
from fastapi.responses import Response

from creatorpack.service import metrics
from creatorpack.service.api.errors import problem_response
from creatorpack.service.auth import bearer_token

__all__ = ["PATH", "router"]

PATH = "/metrics"


def router(token: str | None) -> APIRouter:
    """The route, open to anyone (``token`` None) or only to ``Authorization: Bearer <token>``."""
    routes = APIRouter(include_in_schema=False)
    expected = token.encode() if token else None

    @routes.get(PATH)
    def scrape(request: Request) -> Response:
        """Every metric of the deployment, in Prometheus' text format."""
        if expected is not None:
            sent = bearer_token(request.headers.get("authorization") or "")
            if sent is None or not hmac.compare_digest(sent.encode(), expected):
                return problem_response(
                    "unauthorized",
                    "this route needs the metrics token (Authorization: Bearer $CREATORPACK_METRICS_TOKEN)",
                    instance=PATH,
                    headers={"WWW-Authenticate": "Bearer"},
                )
        return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)

    return routes
