"""``GET /v1/health``: a cheap answer for load balancers."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from creatorpack.service.api.deps import json_response
from creatorpack.service.api.schemas import Health

__all__ = ["health", "router"]

router = APIRouter(prefix="/v1", tags=["meta"])


@router.get("/health", response_model=Health)
async def health() -> Response:
    """The service is up."""
    return json_response({"status": "ok"})
