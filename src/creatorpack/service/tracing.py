"""OpenTelemetry traces: a span per request, sent over OTLP/HTTP, only when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set.

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


def instrument(app: FastAPI, provider: Any = None) -> None:
    """Wrap ``app`` (outermost) so that each request is a server span of ``provider`` (default: OTLP)."""
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware  # noqa: PLC0415

    app.add_middleware(
        OpenTelemetryMiddleware,
        tracer_provider=provider if provider is not None else otlp_provider(),
        exclude_spans=["receive", "send"],  # one span per request, not one per body chunk
    )
