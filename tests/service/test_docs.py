"""``GET /docs``: Swagger UI from vendored files under a strict Content-Security-Policy, not in the OpenAPI document."""

from __future__ import annotations

import json
from collections.abc import Mapping
from html.parser import HTMLParser
from importlib.resources import files
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from creatorpack.service.api.docs import ASSETS
from creatorpack.service.api.security import CONTENT_SECURITY_POLICY
from creatorpack.service.app import create_app, openapi_json
from creatorpack.service.settings import RateLimit, Settings

POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".png": "image/png"}


class _Page(HTMLParser):
    """The page's scripts, links, inline script bodies and event-handler attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str | None] = []
        self.links: list[str] = []
        self.handlers: list[tuple[str, str]] = []
        self.inline: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.handlers += [(tag, name) for name, _ in attrs if name.lower().startswith("on")]
        if tag == "script":
            self.scripts.append(values.get("src"))
            self._in_script = True
        elif tag == "link" and values.get("href"):
            self.links.append(str(values["href"]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.inline.append(data)


def _page(client: TestClient) -> _Page:
    response = client.get("/docs")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    page = _Page()
    page.feed(response.text)
    return page


def _assert_browser_headers(headers: Mapping[str, str]) -> None:
    assert headers["content-security-policy"] == POLICY
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["x-frame-options"] == "DENY"


def test_the_policy_allows_no_inline_script_and_no_eval() -> None:
    assert CONTENT_SECURITY_POLICY == POLICY
    directives = dict(d.split(" ", 1) for d in CONTENT_SECURITY_POLICY.split("; "))
    assert directives["script-src"] == "'self'"
    assert "unsafe-eval" not in CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY


def test_the_page_runs_only_same_origin_scripts_with_the_security_headers(stateless_client: TestClient) -> None:
    response = stateless_client.get("/docs")
    _assert_browser_headers(response.headers)
    assert response.headers["cache-control"] == "no-cache"
    page = _page(stateless_client)
    assert page.inline == []
    assert page.handlers == []
    assert None not in page.scripts
    assert [src.rsplit("/", 1)[1] for src in page.scripts if src] == ["swagger-ui-bundle.js", "swagger-init.js"]
    for url in [*page.scripts, *page.links]:
        assert url is not None
        assert url.startswith("/docs/static/"), url  # this origin: no CDN, no //host
        assert "//" not in url, url
    assert '<div id="swagger-ui"></div>' in response.text


def test_the_assets_are_the_vendored_files_cached_for_a_year(stateless_client: TestClient) -> None:
    page = _page(stateless_client)
    urls = [src for src in page.scripts if src] + page.links
    assert sorted(url.rsplit("/", 1)[1] for url in urls) == sorted(ASSETS)
    static = files("creatorpack.service").joinpath("static")
    for url in urls:
        name = url.rsplit("/", 1)[1]
        response = stateless_client.get(url)
        assert response.status_code == 200, url
        assert response.headers["content-type"] == TYPES["." + name.rsplit(".", 1)[1]], url
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
        _assert_browser_headers(response.headers)
        assert response.content == static.joinpath(ASSETS[name][0]).read_bytes()
    init = stateless_client.get(next(url for url in urls if url.endswith("/swagger-init.js"))).text
    assert 'url: "/openapi.json"' in init
    assert 'dom_id: "#swagger-ui"' in init
    assert "validatorUrl: null" in init  # nothing asked of validator.swagger.io


def test_an_asset_of_another_digest_or_name_is_404(stateless_client: TestClient) -> None:
    bundle = next(src for src in _page(stateless_client).scripts if src and src.endswith("swagger-ui-bundle.js"))
    digest = bundle.split("/")[3]
    for url in (
        "/docs/static/0000000000000000/swagger-ui-bundle.js",
        f"/docs/static/{digest}/swagger-ui-bundle.js.map",
        f"/docs/static/{digest}/README.md",
        f"/docs/static/{digest}/..%2Fswagger-ui%2FLICENSE",
        "/docs/",
    ):
        response = stateless_client.get(url)
        assert response.status_code == 404, url
        assert response.headers["content-type"] == "application/problem+json", url


def test_head_answers_as_get(stateless_client: TestClient) -> None:
    bundle = next(src for src in _page(stateless_client).scripts if src and src.endswith("swagger-ui-bundle.js"))
    for url in ("/docs", bundle):
        get, head = stateless_client.get(url), stateless_client.head(url)
        assert (head.status_code, head.content) == (200, b"")
        assert head.headers["content-length"] == get.headers["content-length"] == str(len(get.content))
        assert head.headers["content-security-policy"] == POLICY


def test_the_docs_routes_are_not_in_the_openapi_document() -> None:
    paths = json.loads(openapi_json())["paths"]
    assert [path for path in paths if path.startswith("/docs")] == []


@pytest.mark.parametrize("path", ["/docs", "/openapi.json"])
def test_the_page_is_counted_by_the_per_ip_limit_as_any_route(path: str, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", rate_per_ip=RateLimit(1, 3600), rate_per_token=RateLimit(0, 1))
    with TestClient(create_app(settings)) as client:
        first = client.get(path)
        assert first.status_code == 200
        assert first.headers["ratelimit"].startswith('"ip";r=0;')
        # Fixed windows: if the window turned between the two requests, the third is over the limit.
        assert 429 in (client.get(path).status_code, client.get(path).status_code)
