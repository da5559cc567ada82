"""The service's metrics, in Prometheus' text format (``GET /metrics``), with prometheus-client.

One server process counts into the client's default registry. With ``serve --workers N`` each
process writes its counts to files in ``PROMETHEUS_MULTIPROC_DIR`` (which ``serve`` makes, and
removes when it ends), and a scrape, whichever process answers it, adds up every process's files:
the numbers are the deployment's, not one process's. The variable must be set before
prometheus-client is first imported, which ``serve`` sees to.

Labels are bounded: a route is its template (``/v1/packs/{pack_id}``, or ``unmatched``), never a
path, so ids cannot grow the number of series.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Final

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = [
    "CONTENT_TYPE",
    "DB_CHECKED_OUT",
    "LINT_REFUSALS",
    "MULTIPROC_ENV",
    "PUBLISHES",
    "RATE_LIMITED",
    "REQUESTS",
    "REQUEST_SECONDS",
    "SESSION_TURNS",
    "STORAGE_INCONSISTENCIES",
    "UNMATCHED",
    "UPLOADS",
    "exposition",
    "observe_request",
    "watch_pool",
]

MULTIPROC_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE: Final = CONTENT_TYPE_LATEST
UNMATCHED: Final = "unmatched"
"""The route label of a request no route matched (a 404 for an unknown path)."""

REQUESTS: Final = Counter(
    "creatorpack_http_requests",
    "HTTP requests answered, by method, route template and status",
    ["method", "route", "status"],
)
REQUEST_SECONDS: Final = Histogram(
    "creatorpack_http_request_duration_seconds",
    "Time from the request's arrival to its last response byte, by method, route template and status",
    ["method", "route", "status"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
UPLOADS: Final = Counter(
    "creatorpack_uploads",
    "Uploads (kind pack: POST /v1/packs; kind asset: PUT /v1/assets) by status",
    ["kind", "status"],
)
PUBLISHES: Final = Counter(
    "creatorpack_publishes", "Publish requests (POST /v1/packs/{pack_id}/publish) by status", ["status"]
)
SESSION_TURNS: Final = Counter(
    "creatorpack_session_turns", "Session turns (POST /v1/sessions/{session_id}/turns) by status", ["status"]
)
LINT_REFUSALS: Final = Counter("creatorpack_lint_refusals", "Publications refused by the lint gate (422 lint-failed)")
STORAGE_INCONSISTENCIES: Final = Counter(
    "creatorpack_storage_inconsistencies", "Rows found without their bytes in the blob store (500 storage-inconsistent)"
)
RATE_LIMITED: Final = Counter(
    "creatorpack_rate_limited", "Requests refused with 429, by the limit that refused them", ["limit"]
)
DB_CHECKED_OUT: Final = Gauge(
    "creatorpack_db_connections_checked_out",
    "Database connections in use (checked out of the SQLAlchemy pool)",
    multiprocess_mode="livesum",
)

_BY_ROUTE: Final[dict[tuple[str, str], Any]] = {
    ("POST", "/v1/packs"): lambda status: UPLOADS.labels("pack", status),
    ("PUT", "/v1/assets/{sha256}"): lambda status: UPLOADS.labels("asset", status),
    ("POST", "/v1/packs/{pack_id}/publish"): PUBLISHES.labels,
    ("POST", "/v1/sessions/{session_id}/turns"): SESSION_TURNS.labels,
}


_CHILDREN: Final[dict[tuple[str, str, int], tuple[Any, Any, Any]]] = {}
"""The labelled series of each (method, route, status) seen: ``labels()`` takes a lock and builds a key each call."""


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    """Count one answered request (and, for uploads, publishes and turns, that counter too)."""
    key = (method, route, status)
    children = _CHILDREN.get(key)
    if children is None:
        code = str(status)
        specific = _BY_ROUTE.get((method, route))
        children = (
            REQUESTS.labels(method, route, code),
            REQUEST_SECONDS.labels(method, route, code),
            specific(code) if specific is not None else None,
        )
        _CHILDREN[key] = children  # bounded: routes x methods x statuses
    count, latency, specific_count = children
    count.inc()
    latency.observe(seconds)
    if specific_count is not None:
        specific_count.inc()


def watch_pool(engine: Engine) -> None:
    """Keep :data:`DB_CHECKED_OUT` up to date from the engine's pool (checkout and checkin events)."""
    from sqlalchemy import event  # noqa: PLC0415

    def checkout(*_args: Any) -> None:
        DB_CHECKED_OUT.inc()

    def checkin(*_args: Any) -> None:
        DB_CHECKED_OUT.dec()

    event.listen(engine, "checkout", checkout)
    event.listen(engine, "checkin", checkin)


def exposition() -> bytes:
    """Every metric in the text format: this process's, or (``PROMETHEUS_MULTIPROC_DIR``) all processes' added up."""
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess  # noqa: PLC0415

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry)
    return generate_latest()
