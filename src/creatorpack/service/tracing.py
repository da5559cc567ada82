"""OpenTelemetry traces: a span per request and per SQL statement, sent over OTLP/HTTP, only when asked for.

Asked for means ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set. A statement's span (``db SELECT``, and so on)
is a child of its request's, and names the database system, never the statement's text or values.

Off (the default), nothing of OpenTelemetry is imported. On, the packages of the ``otel`` extra
(``pip install 'creatorpack[service,otel]'``) must be installed; the exporter reads the standard
``OTEL_*`` variables (endpoint, headers, ``OTEL_SERVICE_NAME``, default ``creatorpack``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from fastapi import FastAPI
    from sqlalchemy import Engine

__all__ = ["ENDPOINT_ENV", "enabled", "instrument", "otlp_provider"]

ENDPOINT_ENV: Final = "OTEL_EXPORTER_OTLP_ENDPOINT"
_SERVICE_NAME: Final = "creatorpack"


def enabled(environ: Mapping[str, str] | None = None) -> bool:
    """Whether traces are asked for (an OTLP endpoint is configured)."""
    return bool((os.environ if environ is None else environ).get(ENDPOINT_ENV))


def otlp_provider() -> Any:
    """A tracer provider that batches spans to the OTLP/HTTP endpoint of the environment."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: PLC0415
    from opentelemetry.sdk.resources import Resource  # noqa: PLC0415
    from opentelemetry.sdk.trace import TracerProvider  # noqa: PLC0415
    from opentelemetry.sdk.trace.export import BatchSpanProcessor  # noqa: PLC0415

    name = os.environ.get("OTEL_SERVICE_NAME") or _SERVICE_NAME
    provider = TracerProvider(resource=Resource.create({"service.name": name}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return provider


def instrument(app: FastAPI, engine: Engine | None = None, provider: Any = None) -> None:
    """Wrap ``app`` (outermost) so that each request is a server span of ``provider`` (default: OTLP).

    With ``engine``, each SQL statement it runs is a client span too.
    """
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware  # noqa: PLC0415

    provider = provider if provider is not None else otlp_provider()
    app.add_middleware(
        OpenTelemetryMiddleware,
        tracer_provider=provider,
        exclude_spans=["receive", "send"],  # one span per request, not one per body chunk
    )
    if engine is not None:
        _trace_statements(engine, provider)


def _trace_statements(engine: Engine, provider: Any) -> None:
    from opentelemetry.trace import SpanKind, Status, StatusCode  # noqa: PLC0415
    from sqlalchemy import event  # noqa: PLC0415

    tracer = provider.get_tracer("creatorpack.service.store")
    system = engine.dialect.name

    def before(_conn: Any, _cursor: Any, statement: str, _params: Any, context: Any, *_: Any) -> None:
        verb = statement.lstrip().split(None, 1)[0].upper() if statement.strip() else "SQL"
        context._creatorpack_span = tracer.start_span(
            f"db {verb}", kind=SpanKind.CLIENT, attributes={"db.system": system}
        )

    def after(_conn: Any, _cursor: Any, _statement: str, _params: Any, context: Any, *_: Any) -> None:
        span = getattr(context, "_creatorpack_span", None)
        if span is not None:
            span.end()

    def failed(exception_context: Any) -> None:
        span = getattr(exception_context.execution_context, "_creatorpack_span", None)
        if span is not None:
            span.set_status(Status(StatusCode.ERROR, type(exception_context.original_exception).__name__))
            span.end()

    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    event.listen(engine, "handle_error", failed)
