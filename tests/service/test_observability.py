"""Logs (one JSON line per record, an access line per request), ``/metrics`` and the optional traces."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from creatorpack.service.app import create_app
from creatorpack.service.logs import configure_logging
from creatorpack.service.settings import Settings, SettingsError
from tests.service.conftest import JSON, OFF, issue, pack_bytes


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """Whatever a test configures, the next one starts with the logging it had."""
    from creatorpack.service import logs

    root = logging.getLogger()
    handlers, level, access = list(root.handlers), root.level, logs._access
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    logs._access = access
    logging.getLogger("uvicorn.access").disabled = False


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    """Every log record as JSON lines in a buffer, as ``serve`` logs them; the root logger restored afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    buffer = io.StringIO()
    configure_logging("json", "info", stream=buffer)
    yield buffer
    root.handlers[:] = handlers
    root.setLevel(level)
    logging.getLogger("uvicorn.access").disabled = False


def records(buffer: io.StringIO) -> list[dict[str, Any]]:
    """The records written so far, each line parsed (so each is one JSON object on one line)."""
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


def access(buffer: io.StringIO) -> list[dict[str, Any]]:
    """The access lines."""
    return [r for r in records(buffer) if r.get("logger") == "creatorpack.access"]


def app_settings(tmp_path: Path, **changes: Any) -> Settings:
    return Settings(data_dir=tmp_path / "data", rate_per_ip=OFF, rate_per_token=OFF, **changes)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(app_settings(tmp_path))) as test_client:
        yield test_client


def test_an_access_line_names_the_route_template_and_account_never_the_token_or_query(
    client: TestClient, captured: io.StringIO
) -> None:
    headers = issue(client)
    token = headers["Authorization"].removeprefix("Bearer ")
    assert client.post("/v1/packs", content=pack_bytes("moon.garden"), headers={**headers, **JSON}).status_code == 201
    answer = client.get("/v1/packs/moon.garden?secret=hunter2", headers={**headers, "X-Request-ID": "req-42"})
    assert answer.status_code == 200
    assert answer.headers["x-request-id"] == "req-42"
    upload, read = access(captured)[-2:]
    assert upload["route"] == "/v1/packs"
    assert upload["status"] == 201
    assert upload["method"] == "POST"
    assert read["route"] == "/v1/packs/{pack_id}"
    assert read["request_id"] == "req-42"
    assert read["status"] == 200
    assert read["account"] == "alice"
    assert read["level"] == "info"
    assert isinstance(read["duration_ms"], float)
    assert read["duration_ms"] >= 0
    text = captured.getvalue()
    assert token not in text
    assert "hunter2" not in text
    assert "moon.garden" not in text  # a path's id is not logged, only the template


def test_a_request_id_is_made_when_absent_or_malformed(client: TestClient, captured: io.StringIO) -> None:
    made = client.get("/v1/health").headers["x-request-id"]
    assert len(made) == 32
    assert int(made, 16) >= 0
    replaced = client.get("/v1/health", headers={"X-Request-ID": "bad id\twith spaces"}).headers["x-request-id"]
    assert replaced != "bad id\twith spaces"
    assert len(replaced) == 32
    long = client.get("/v1/health", headers={"X-Request-ID": "a" * 200}).headers["x-request-id"]
    assert len(long) == 32
    assert [r["request_id"] for r in access(captured)] == [made, replaced, long]


def test_an_unknown_path_is_logged_as_unmatched(client: TestClient, captured: io.StringIO) -> None:
    assert client.get("/no/such/place/secret-token").status_code == 404
    (line,) = access(captured)
    assert line["route"] == "unmatched"
    assert line["status"] == 404
    assert "secret-token" not in captured.getvalue()


def test_a_500_is_one_record_with_its_traceback(client: TestClient, captured: io.StringIO) -> None:
    def boom() -> None:
        raise RuntimeError("kaboom")

    client.app.router.add_api_route("/v1/boom", boom)  # type: ignore[attr-defined]
    answer = client.get("/v1/boom", headers={"X-Request-ID": "r-500"})
    assert answer.status_code == 500
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.headers["x-request-id"] == "r-500"
    mentioning = [r for r in records(captured) if "kaboom" in json.dumps(r)]
    assert len(mentioning) == 1
    (failed,) = mentioning
    assert failed["level"] == "error"
    assert failed["status"] == 500
    assert failed["route"] == "/v1/boom"
    assert failed["request_id"] == "r-500"
    assert "Traceback" in failed["exception"]
    assert "RuntimeError: kaboom" in failed["exception"]


def test_service_warnings_go_through_the_same_formatting(captured: io.StringIO) -> None:
    logging.getLogger("creatorpack.service").warning("not ready: %s", "the database does not answer")
    logging.getLogger("uvicorn.error").error("uvicorn says %d", 3)
    first, second = records(captured)
    assert first == {**first, "event": "not ready: the database does not answer", "level": "warning"}
    assert first["logger"] == "creatorpack.service"
    assert "timestamp" in first
    assert second["event"] == "uvicorn says 3"
    assert second["logger"] == "uvicorn.error"


def test_text_format_is_plain_lines(client: TestClient) -> None:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    buffer = io.StringIO()
    try:
        configure_logging("text", "info", stream=buffer)
        client.get("/v1/health")
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    (line,) = [x for x in buffer.getvalue().splitlines() if "creatorpack.access" in x]
    assert "route=/v1/health" in line
    assert "status=200" in line
    assert not line.startswith("{")


def test_a_stream_that_is_not_a_terminal_gets_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CREATORPACK_LOG_FORMAT", raising=False)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    buffer = io.StringIO()
    try:
        configure_logging(stream=buffer)
        logging.getLogger("creatorpack.service").warning("hello")
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    assert json.loads(buffer.getvalue())["event"] == "hello"


def _samples(text: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                found[tuple(sorted(sample.labels.items()))] = sample.value
    return found


def _count(client: TestClient, name: str, **labels: str) -> float:
    text = client.get("/metrics").text
    return sum(v for k, v in _samples(text, name).items() if labels.items() <= dict(k).items())


def test_metrics_count_requests_by_route_template(client: TestClient) -> None:
    headers = issue(client)
    before = _count(client, "creatorpack_http_requests_total", route="/v1/packs/{pack_id}", status="404")
    uploads = _count(client, "creatorpack_uploads_total", kind="pack", status="201")
    for pack_id in ("a.one", "b.two", "c.three"):
        assert client.get(f"/v1/packs/{pack_id}", headers=headers).status_code == 404
    client.post("/v1/packs", content=pack_bytes("d.four"), headers={**headers, **JSON})
    after = _count(client, "creatorpack_http_requests_total", route="/v1/packs/{pack_id}", status="404")
    assert after - before == 3
    assert _count(client, "creatorpack_uploads_total", kind="pack", status="201") - uploads == 1
    text = client.get("/metrics").text
    assert _samples(text, "creatorpack_http_request_duration_seconds_count")
    assert "creatorpack_db_connections_checked_out" in text
    assert "a.one" not in text


def test_rate_limit_hits_are_counted(tmp_path: Path) -> None:
    from creatorpack.service.settings import RateLimit

    settings = app_settings(tmp_path).with_changes(rate_per_ip=RateLimit(2, 3600))
    with TestClient(create_app(settings)) as client:
        before = _samples(_exposition(), "creatorpack_rate_limited_total").get((("limit", "ip"),), 0.0)
        statuses = [client.get("/v1/health").status_code for _ in range(3)]
        assert 429 in statuses
        after = _samples(_exposition(), "creatorpack_rate_limited_total").get((("limit", "ip"),), 0.0)
    assert after > before


def _exposition() -> str:
    """This process's metrics, read without a request (which the limit would refuse)."""
    from creatorpack.service.metrics import exposition

    return exposition().decode()


def test_metrics_token_and_off_switch(tmp_path: Path) -> None:
    with TestClient(create_app(app_settings(tmp_path, metrics_token="s3cret"))) as client:
        refused = client.get("/metrics")
        assert refused.status_code == 401
        assert refused.headers["content-type"] == "application/problem+json"
        assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
        allowed = client.get("/metrics", headers={"Authorization": "Bearer s3cret"})
        assert allowed.status_code == 200
        assert allowed.headers["content-type"].startswith("text/plain")
        assert "/metrics" not in client.get("/openapi.json").json()["paths"]
    with TestClient(create_app(app_settings(tmp_path, metrics=False))) as client:
        assert client.get("/metrics").status_code == 404


def test_metrics_settings_from_the_environment() -> None:
    settings = Settings.from_env({"CREATORPACK_METRICS": "off", "CREATORPACK_METRICS_TOKEN": "t"})
    assert settings.metrics is False
    assert settings.metrics_token == "t"
    assert Settings.from_env({}).metrics is True
    with pytest.raises(SettingsError, match="on or off"):
        Settings.from_env({"CREATORPACK_METRICS": "maybe"})


def test_traces_are_off_without_an_endpoint_and_spans_come_with_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from creatorpack.service import tracing

    monkeypatch.delenv(tracing.ENDPOINT_ENV, raising=False)
    assert not tracing.enabled()
    pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setenv(tracing.ENDPOINT_ENV, "http://127.0.0.1:9/")
    monkeypatch.setattr(tracing, "otlp_provider", lambda: provider)
    with TestClient(create_app(app_settings(tmp_path))) as client:
        assert client.get("/v1/health").status_code == 200
        (span,) = exporter.get_finished_spans()
        assert span.attributes is not None
        assert span.attributes.get("http.route", span.attributes.get("http.target")) is not None
        assert "GET" in span.name
        headers = issue(client)  # its statements run outside any request
        exporter.clear()
        assert client.get("/v1/packs/moon.garden", headers=headers).status_code == 404
    spans = exporter.get_finished_spans()
    (request,) = [s for s in spans if s.kind.name == "SERVER"]
    statements = [s for s in spans if s.name.startswith("db ")]
    assert statements
    assert all(s.parent is not None and s.parent.span_id == request.context.span_id for s in statements)
    assert all(s.attributes is not None and s.attributes["db.system"] == "sqlite" for s in statements)


def test_serve_checks_its_log_options() -> None:
    import typer

    from creatorpack.service.cli import _log_options

    assert _log_options("JSON", "Warning") == ("json", "warning")
    assert _log_options(None, "info")[0] == "json"  # pytest's stderr is no terminal
    for bad in (("yaml", "info"), ("json", "loud")):
        with pytest.raises(typer.Exit) as raised:
            _log_options(*bad)
        assert raised.value.exit_code == 2


def test_serve_makes_and_removes_a_metrics_directory_for_many_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import subprocess
    import sys
    import tempfile

    from creatorpack.service.cli import _metrics_directory

    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    stale = Path(tempfile.mkdtemp(prefix=f"creatorpack-metrics-{int(gone.stdout)}-"))  # a serve killed outright
    alive = Path(tempfile.mkdtemp(prefix=f"creatorpack-metrics-{os.getpid()}-"))
    with _metrics_directory(1):
        assert "PROMETHEUS_MULTIPROC_DIR" not in os.environ
    with _metrics_directory(2):
        made = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
        assert made.is_dir()
    assert not made.exists()
    assert "PROMETHEUS_MULTIPROC_DIR" not in os.environ
    assert not stale.exists()
    assert alive.is_dir()
    alive.rmdir()


def test_route_templates_agree_with_the_router(client: TestClient) -> None:
    import re

    from starlette.routing import Match

    from creatorpack.service.api.observe import RouteTemplates

    routes = client.app.state.routes  # type: ignore[attr-defined]
    templates = RouteTemplates(routes)
    checked = 0
    for route in routes:
        for method in sorted(getattr(route, "methods", None) or {"GET"}):
            path = re.sub(r"\{[^}]+\}", "x1", route.path)
            scope = {"type": "http", "method": method, "path": path, "root_path": "", "headers": []}
            matches = [(r.matches(scope)[0], r) for r in routes]
            full = [r for m, r in matches if m is Match.FULL]
            expected = (full or [r for m, r in matches if m is Match.PARTIAL])[0].path
            assert templates(scope) == expected, (method, path)
            checked += 1
    assert checked > 30
    assert templates({"type": "http", "path": "/v1/nothing/here"}) == "unmatched"


def test_a_stream_that_went_away_never_fails_a_request(client: TestClient) -> None:
    closed = io.StringIO()
    configure_logging("json", "info", stream=closed)
    closed.close()
    assert client.get("/v1/health").status_code == 200


def test_the_default_stream_is_stderr_when_the_line_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    from creatorpack.service.logs import log_access

    first, second = io.StringIO(), io.StringIO()
    monkeypatch.setattr("sys.stderr", first)
    configure_logging("json", "info")
    monkeypatch.setattr("sys.stderr", second)  # as a test runner swaps it, then closes the first
    first.close()
    log_access({"request_id": "r", "method": "GET", "route": "/v1/health", "status": 200, "duration_ms": 1.0})
    logging.getLogger("creatorpack.service").warning("after the swap")
    written = [json.loads(line) for line in second.getvalue().splitlines()]
    assert [r["event"] for r in written] == ["request", "after the swap"]


def test_a_serve_that_stops_early_leaves_logging_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    from typer.testing import CliRunner

    from creatorpack.cli import app as cli_app
    from creatorpack.service import logs

    for name in ("CREATORPACK_LOG_FORMAT", "CREATORPACK_LOG_LEVEL", "CREATORPACK_SERVE_PID", "CREATORPACK_DATA_DIR"):
        monkeypatch.setenv(name, "")  # serve sets them in os.environ: restored afterwards all the same
        monkeypatch.delenv(name)
    root = logging.getLogger()
    before, access = list(root.handlers), logs._access
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        data = str(tmp_path / "data")
        result = CliRunner().invoke(cli_app, ["serve", "--port", port, "--data-dir", data, "--log-format", "json"])
    assert result.exit_code == 2
    assert "could not listen" in result.output
    assert root.handlers == before
    assert logs._access is access


def test_lint_refusals_publishes_and_storage_faults_are_counted(client: TestClient) -> None:
    from creatorpack.service.storage import StorageFaults
    from tests.service.conftest import published_bytes

    headers = issue(client)
    names = ("creatorpack_lint_refusals_total", "creatorpack_storage_inconsistencies_total")
    before = [_count(client, name) for name in names]
    publishes = _count(client, "creatorpack_publishes_total", status="422")
    body = published_bytes("lint.fail", cover_asset_id="nope")
    assert client.post("/v1/packs", content=body, headers={**headers, **JSON}).status_code == 201
    assert client.post("/v1/packs/lint.fail/publish", json={"revision": 1}, headers=headers).status_code == 422
    StorageFaults().missing("revision 1 of 'lint.fail'", "0" * 64)
    assert [_count(client, name) - was for name, was in zip(names, before, strict=True)] == [1, 1]
    assert _count(client, "creatorpack_publishes_total", status="422") - publishes == 1


def test_without_an_endpoint_no_tracing_package_is_imported(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    probe = (
        "import sys, pathlib; from creatorpack.service.app import create_app; "
        "from creatorpack.service.settings import Settings; "
        f"create_app(Settings(data_dir=pathlib.Path({str(tmp_path)!r}))); "
        "print(sorted(m for m in sys.modules if m.startswith(('opentelemetry.sdk', 'opentelemetry.exporter', "
        "'opentelemetry.instrumentation'))))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"
