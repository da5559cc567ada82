"""``GET /v1/health`` (liveness: the process answers) and ``GET /v1/ready`` (readiness: its stores answer).

``create_app`` puts the readiness check in ``app.state.not_ready``: what keeps the service from serving, or None.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from creatorpack.service.api.deps import json_response
from creatorpack.service.api.errors import PROBLEM_MEDIA_TYPE, ProblemType, problem_of
from creatorpack.service.api.schemas import Health, Ready

__all__ = ["NOT_READY", "READY_SECONDS", "Ready", "health", "ready", "router"]

NOT_READY: Final = ProblemType("not-ready", 503, "The service cannot serve requests now")
READY_SECONDS: Final = 2.0
"""How long ``/v1/ready`` waits for the database before it answers 503."""

router = APIRouter(prefix="/v1", tags=["meta"])


_NOT_READY_RESPONSE: Final[dict[int | str, dict[str, Any]]] = {
    503: {
        "description": "The database (or the blob directory) does not answer (not-ready)",
        "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }
}


@router.get("/health", response_model=Health)
async def health() -> Response:
    """The service is up (liveness: it touches neither the database nor the blob store)."""
    return json_response(Health("ok"))


@router.get("/ready", response_model=Ready, responses=_NOT_READY_RESPONSE)
async def ready(request: Request) -> Response:
    """The service can serve requests: the database answers a query and the blob directory is there (readiness)."""
    state = request.app.state
    probe = getattr(state, "ready_probe", None)
    if probe is None:
        probe = state.ready_probe = _Probe()
    try:
        problem = await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(probe.run(state.not_ready))), READY_SECONDS)
    except TimeoutError:
        problem = f"the database did not answer within {READY_SECONDS:g} s"
    if problem is None:
        return json_response(Ready("ready"))
    return problem_of(NOT_READY, problem, instance=request.url.path)


class _Probe:
    """One readiness check at a time, in a thread of its own; probes that come meanwhile share its answer.

    A database that hangs then holds one thread, however often the load balancer asks.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: Future[str | None] | None = None

    def run(self, check: Callable[[], str | None]) -> Future[str | None]:
        """The check in flight, or a new one."""
        with self._lock:
            if self._running is None or self._running.done():
                future: Future[str | None] = Future()
                future.set_running_or_notify_cancel()
                self._running = future
                threading.Thread(target=_settle, args=(future, check), name="creatorpack-ready", daemon=True).start()
            return self._running


def _settle(future: Future[str | None], check: Callable[[], str | None]) -> None:
    try:
        problem = check()
    except Exception as exc:  # noqa: BLE001 - the waiting request re-raises it (an internal error)
        future.set_exception(exc)
    else:
        future.set_result(problem)
