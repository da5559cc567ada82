"""CORS (``CREATORPACK_CORS_ORIGINS``): off by default; for listed origins on every answer, errors and 429 included."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from creatorpack.cli import app as cli_app
from creatorpack.service.api.cors import ALLOW_HEADERS, ALLOW_METHODS, EXPOSE_HEADERS
from creatorpack.service.app import create_app, openapi_json
from creatorpack.service.settings import RateLimit, Settings, SettingsError
from tests.service.conftest import JSON, issue, published_bytes

READER = "https://reader.example"
OTHER = "https://evil.example"


@pytest.fixture
def cors_client(settings: Settings) -> Iterator[TestClient]:
    """A client of an app that lets ``READER`` (and a local dev server) call it, rate limits off."""
    cors = settings.with_changes(cors_origins=(READER, "http://localhost:5173"))
    with TestClient(create_app(cors)) as test_client:
        yield test_client


@pytest.fixture
def limited_cors_client(settings: Settings) -> Iterator[TestClient]:
    """As ``cors_client``, with a per-IP limit of 2 requests a minute."""
    cors = settings.with_changes(cors_origins=(READER,), rate_per_ip=RateLimit(2, 3600))
    with TestClient(create_app(cors)) as test_client:
        yield test_client


def _preflight(
    client: TestClient, origin: str, method: str = "POST", headers: str = "authorization,content-type"
) -> httpx.Response:
    requested = {"Origin": origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": headers}
    response: httpx.Response = client.options("/v1/packs", headers=requested)
    return response


def _listed(value: str | None) -> set[str]:
    return {item.strip().lower() for item in (value or "").split(",") if item.strip()}


def test_a_preflight_from_an_allowed_origin_names_methods_headers_and_max_age(cors_client: TestClient) -> None:
    response = _preflight(cors_client, READER, headers="authorization,content-type,if-none-match,range,x-request-id")
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == READER
    assert _listed(response.headers["access-control-allow-methods"]) == {m.lower() for m in ALLOW_METHODS}
    assert {h.lower() for h in ALLOW_HEADERS} <= _listed(response.headers["access-control-allow-headers"])
    assert response.headers["access-control-max-age"] == "3600"
    assert "access-control-allow-credentials" not in response.headers
    assert "origin" in _listed(response.headers["vary"])


def test_a_preflight_from_another_origin_is_refused(cors_client: TestClient) -> None:
    for origin in (OTHER, "https://reader.example.evil.example", "http://reader.example"):
        response = _preflight(cors_client, origin)
        assert response.status_code == 400, origin
        assert "access-control-allow-origin" not in response.headers, origin


def test_a_preflight_for_a_header_or_method_the_api_does_not_take_is_refused(cors_client: TestClient) -> None:
    assert _preflight(cors_client, READER, headers="authorization,x-custom").status_code == 400
    assert _preflight(cors_client, READER, method="PATCH").status_code == 400


def test_a_simple_get_of_the_catalog_from_an_allowed_origin(cors_client: TestClient) -> None:
    creator = issue(cors_client)
    assert cors_client.post("/v1/packs", content=published_bytes(), headers={**creator, **JSON}).status_code == 201
    assert cors_client.post("/v1/packs/moon.garden/publish", json={"revision": 1}, headers=creator).status_code == 200
    response = cors_client.get("/v1/catalog", headers={"Origin": READER})
    assert response.status_code == 200
    assert response.json()["items"][0]["pack_id"] == "moon.garden"
    assert response.headers["access-control-allow-origin"] == READER
    assert _listed(response.headers["access-control-expose-headers"]) == {h.lower() for h in EXPOSE_HEADERS}
    assert "origin" in _listed(response.headers["vary"])
    assert "access-control-allow-credentials" not in response.headers
    other = cors_client.get("/v1/catalog", headers={"Origin": OTHER})
    assert other.status_code == 200
    assert "access-control-allow-origin" not in other.headers
    assert "origin" in _listed(other.headers["vary"])  # a shared cache keeps the answers per origin
    head = cors_client.head("/v1/catalog", headers={"Origin": READER})
    assert (head.status_code, head.headers["access-control-allow-origin"]) == (200, READER)


def test_problem_responses_carry_the_cors_headers(cors_client: TestClient) -> None:
    """A page must be able to read a 401, 404 or 405 (problem+json) to tell its user what went wrong."""
    origin = {"Origin": READER}
    for method, path in (
        ("GET", "/v1/packs/moon.garden"),  # 401: no token
        ("GET", "/v1/packs/moon.garden/revisions/1"),  # 401 through the revision fast path
        ("GET", "/v1/packs/moon.garden/reader"),  # 404 through the reader fast path
        ("GET", "/v1/nowhere"),  # 404: no route
        ("PUT", "/v1/validate"),  # 405
    ):
        response = cors_client.request(method, path, headers=origin)
        assert response.status_code >= 400, path
        assert response.headers["content-type"] == "application/problem+json", path
        assert response.headers["access-control-allow-origin"] == READER, path


def test_a_429_carries_the_cors_headers_and_preflights_are_not_counted(limited_cors_client: TestClient) -> None:
    origin = {"Origin": READER}
    for _ in range(2):
        assert limited_cors_client.get("/v1/health", headers=origin).status_code == 200
    for _ in range(3):  # answered before the limiter: never 429, never counted
        preflight = _preflight(limited_cors_client, READER)
        assert preflight.status_code == 200
        assert "ratelimit" not in preflight.headers
    limited = limited_cors_client.get("/v1/health", headers=origin)
    assert limited.status_code == 429
    assert limited.headers["access-control-allow-origin"] == READER
    assert {"retry-after", "ratelimit"} <= _listed(limited.headers["access-control-expose-headers"])


def test_headers_too_large_is_refused_before_cors(cors_client: TestClient) -> None:
    """The header bound comes first: an oversized request is read no further (a browser sees a network error)."""
    response = cors_client.get("/v1/health", headers={"Origin": READER, "X-Filler": "a" * 20_000})
    assert response.status_code == 431
    assert "access-control-allow-origin" not in response.headers


def test_any_origin_with_a_star(settings: Settings) -> None:
    with TestClient(create_app(settings.with_changes(cors_origins=("*",)))) as client:
        assert client.get("/v1/health", headers={"Origin": OTHER}).headers["access-control-allow-origin"] == "*"
        preflight = _preflight(client, OTHER)
        assert (preflight.status_code, preflight.headers["access-control-allow-origin"]) == (200, "*")
        assert "access-control-allow-credentials" not in preflight.headers


def test_without_the_setting_no_cors_header_appears(client: TestClient) -> None:
    response = client.get("/v1/catalog", headers={"Origin": READER})
    assert response.status_code == 200
    assert not [name for name in response.headers if name.startswith("access-control-")]
    assert "origin" not in _listed(response.headers.get("vary"))
    preflight = _preflight(client, READER)
    assert preflight.status_code == 405  # no CORS: an OPTIONS is a method the API does not have
    assert not [name for name in preflight.headers if name.startswith("access-control-")]


def test_the_openapi_document_has_no_options_operation() -> None:
    paths = json.loads(openapi_json())["paths"]
    assert [(p, m) for p, ops in paths.items() for m in ops if m in ("options", "head")] == []


# The setting


def test_origins_are_read_as_a_browser_sends_them() -> None:
    settings = Settings.from_env(
        {"CREATORPACK_CORS_ORIGINS": "https://Reader.Example:443, http://localhost:5173,http://[::1]:8080"}
    )
    assert settings.cors_origins == ("https://reader.example", "http://localhost:5173", "http://[::1]:8080")
    assert Settings.from_env({"CREATORPACK_CORS_ORIGINS": " * "}).cors_origins == ("*",)
    assert Settings.from_env({}).cors_origins == ()


@pytest.mark.parametrize(
    "value",
    [
        "https://reader.example/",
        "https://reader.example/app",
        "reader.example",
        "ftp://reader.example",
        "https://reader.example:0",
        "https://reader.example:65536",
        "https://user@reader.example",
        "https://reader.example?x=1",
        "https://réader.example",
        "*, https://reader.example",
        "https://reader.example,",
        "null",
    ],
)
def test_a_bad_origin_is_a_settings_error_and_serve_exit_2(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        pytest.fail(f"the server started: {args} {kwargs}")

    monkeypatch.setattr("uvicorn.run", never)
    with pytest.raises(SettingsError, match="CREATORPACK_CORS_ORIGINS"):
        Settings.from_env({"CREATORPACK_CORS_ORIGINS": value})
    env = {"CREATORPACK_CORS_ORIGINS": value, "CREATORPACK_DATABASE_URL": "", "CREATORPACK_REDIS_URL": ""}
    result = CliRunner().invoke(cli_app, ["serve", "--data-dir", str(tmp_path / "data")], env=env)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("creatorpack: CREATORPACK_CORS_ORIGINS "), result.stderr
