"""Hostile input: every one of these gets a 4xx problem, never a 5xx or a traceback."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from creatorpack import CreatorpackError
from creatorpack.service.api.deps import SMALL_BODY_BYTES
from creatorpack.service.errors import ServiceError, UnsupportedMediaTypeError
from tests.service.conftest import JSON, issue, pack_bytes, published_bytes

PROBLEM = "application/problem+json"
BODY_ROUTES = ("/v1/validate", "/v1/lint", "/v1/packs")


def _assert_problem(response: object, status: int | None = None) -> None:
    assert hasattr(response, "status_code")
    code = response.status_code
    assert 400 <= code < 500, (code, response.text)  # type: ignore[attr-defined]
    if status is not None:
        assert code == status, response.text  # type: ignore[attr-defined]
    assert response.headers["content-type"] == PROBLEM  # type: ignore[attr-defined]
    body = response.json()  # type: ignore[attr-defined]
    assert body["type"].startswith("urn:creatorpack:problem:")
    assert body["status"] == code


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"{",
        b"nope",
        b'{"a": NaN}',
        b'{"a": 1e400}',
        b"\xef\xbb\xbf{}",
        b"\xff",
        b"[" * 100_000,
        b'"text"',
        b"null",
    ],
)
@pytest.mark.parametrize("route", BODY_ROUTES)
def test_malformed_json_is_400(client: TestClient, route: str, body: bytes) -> None:
    response = client.post(route, content=body, headers={**issue(client), **JSON})
    _assert_problem(response, 400)
    assert response.json()["code"] in ("invalid-json", "not-an-object", "limit-exceeded")


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", ""],
)
@pytest.mark.parametrize("route", BODY_ROUTES)
def test_wrong_content_types_are_415(client: TestClient, route: str, content_type: str) -> None:
    response = client.post(route, content=pack_bytes(), headers={**issue(client), "Content-Type": content_type})
    _assert_problem(response, 415)


def test_a_wrong_content_type_is_a_service_error() -> None:
    assert issubclass(UnsupportedMediaTypeError, ServiceError)
    assert issubclass(UnsupportedMediaTypeError, CreatorpackError)


def test_json_variants_are_accepted(client: TestClient) -> None:
    for content_type in ("application/json", "application/json; charset=utf-8", "application/vnd.creatorpack+json"):
        response = client.post("/v1/validate", content=pack_bytes(), headers={"Content-Type": content_type})
        assert response.status_code == 200


def test_60_kb_headers_are_431(client: TestClient) -> None:
    for headers in ({"X-Filler": "a" * 60_000}, {"Authorization": "Bearer " + "a" * 60_000}):
        response = client.get("/v1/health", headers=headers)
        _assert_problem(response, 431)
        assert response.json()["instance"] == "/v1/health"
        _assert_problem(client.post("/v1/validate", content=b"{}", headers={**headers, **JSON}), 431)


@pytest.mark.parametrize(
    "pack_id",
    [
        "..",
        "%2e%2e",
        "%2E%2E",
        "..%2F..%2Fetc",
        "a%00b",
        "%00",
        "caf%C3%A9",
        "%E2%80%AE",
        "a" * 81,
        "1abc",
        "a b",
        "-x",
    ],
)
def test_hostile_ids_are_4xx(client: TestClient, pack_id: str) -> None:
    alice = issue(client)
    for method, path in (
        ("GET", f"/v1/packs/{pack_id}"),
        ("GET", f"/v1/packs/{pack_id}/revisions/1"),
        ("DELETE", f"/v1/packs/{pack_id}/revisions/1"),
    ):
        response = client.request(method, path, headers=alice)
        assert 400 <= response.status_code < 500, (path, response.status_code)
        assert response.headers["content-type"] == PROBLEM


@pytest.mark.parametrize(
    "revision", ["9007199254740992", "99999999999999999999999999", "0", "-1", "1.5", "1e3", "abc", "%00"]
)
def test_revision_numbers_out_of_range_are_400(client: TestClient, revision: str) -> None:
    alice = issue(client)
    for method in ("GET", "DELETE"):
        response = client.request(method, f"/v1/packs/moon.garden/revisions/{revision}", headers=alice)
        _assert_problem(response, 400)
        assert response.json()["type"] == "urn:creatorpack:problem:invalid-request"


@pytest.mark.parametrize("spelling", ["1.0", "+1", "01", "%201", "1%20", "1_0", "٣"])
def test_integers_are_plain_digits_or_400(client: TestClient, spelling: str) -> None:
    """Another spelling of a number is not that number: 400, also on the fast paths (the revision is cached)."""
    alice = issue(client)
    client.post("/v1/packs", content=pack_bytes(), headers={**alice, **JSON})
    client.post("/v1/packs", content=pack_bytes(revision=2), headers={**alice, **JSON})
    assert client.get("/v1/packs/moon.garden/revisions/1", headers=alice).status_code == 200
    requests = [
        ("GET", f"/v1/packs/moon.garden/revisions/{spelling}"),
        ("HEAD", f"/v1/packs/moon.garden/revisions/{spelling}"),
        ("DELETE", f"/v1/packs/moon.garden/revisions/{spelling}"),
        ("GET", f"/v1/catalog?limit={spelling}"),
        ("GET", f"/v1/packs/moon.garden/events?limit={spelling}"),
        ("GET", f"/v1/packs/moon.garden/events?after={spelling}"),
        ("GET", f"/v1/packs/moon.garden/diff?from={spelling}&to=2"),
        ("GET", f"/v1/packs/moon.garden/diff?from=2&to={spelling}"),
        ("GET", f"/v1/packs/moon.garden/assets/x?revision={spelling}"),
    ]
    for method, path in requests:
        response = client.request(method, path, headers=alice)
        assert response.status_code == 400, (method, path, response.status_code)
        if method != "HEAD":
            assert response.json()["type"] == "urn:creatorpack:problem:invalid-request", path
    assert client.get("/v1/packs/moon.garden/revisions/1", headers=alice).status_code == 200  # not deleted


def test_manifest_revision_past_2_53_is_422(client: TestClient) -> None:
    body = pack_bytes().replace(b'"revision": 1', b'"revision": 9007199254740992')
    assert b"9007199254740992" in body
    response = client.post("/v1/packs", content=body, headers={**issue(client), **JSON})
    _assert_problem(response, 422)
    assert response.json()["errors"][0]["pointer"] == "/manifest/revision"


def test_hostile_pack_ids_in_the_body_are_422(client: TestClient) -> None:
    alice = issue(client)
    for pack_id in ("../../etc", "a\u0000b", "café", "a/b"):
        body = json.dumps(json.loads(pack_bytes()) | {}).replace("moon.garden", pack_id.replace("\u0000", "\\u0000"))
        _assert_problem(client.post("/v1/packs", content=body.encode(), headers={**alice, **JSON}), 422)


def test_unknown_routes_and_methods(client: TestClient) -> None:
    _assert_problem(client.get("/v1/nothing"), 404)
    _assert_problem(client.put("/v1/validate", content=b"{}", headers=JSON), 405)
    _assert_problem(client.get("/v1/packs", headers=issue(client)), 405)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", f"/v1/sessions/{'0' * 32}/"),
        ("POST", f"/v1/sessions/{'0' * 32}/turns/"),
        ("GET", "/v1/health/"),
        ("POST", "/v1/validate/"),
        ("GET", "/v1/packs/moon.garden/revisions/1/"),
        ("GET", "/v1/packs/moon.garden/reader/"),
    ],
)
@pytest.mark.parametrize("token", [True, False], ids=["token", "anonymous"])
def test_a_trailing_slash_is_an_unknown_route_never_a_redirect(
    client: TestClient, method: str, path: str, *, token: bool
) -> None:
    headers = {"Host": "attacker.example", **JSON, **(issue(client) if token else {})}
    response = client.request(method, path, content=b"{}", headers=headers, follow_redirects=False)
    _assert_problem(response, 404)
    assert "location" not in response.headers
    assert response.json()["detail"] == "no such route"


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/v1/validate", "POST"),
        ("GET", "/v1/packs", "POST"),
        ("PATCH", "/v1/packs/moon.garden/publish", "DELETE, POST"),
        ("POST", "/v1/packs/moon.garden/revisions/1", "DELETE, GET, HEAD"),
        ("POST", "/v1/catalog", "GET, HEAD"),
        ("DELETE", f"/v1/sessions/{'0' * 32}", "GET, HEAD"),
        ("HEAD", "/v1/lint", "POST"),
    ],
)
def test_405_lists_the_allowed_methods(client: TestClient, method: str, path: str, allow: str) -> None:
    response = client.request(method, path, headers=issue(client))
    assert response.status_code == 405, response.text
    assert response.headers["allow"] == allow
    if method != "HEAD":
        _assert_problem(response, 405)
        assert response.json()["instance"] == path


def test_head_is_answered_as_get_without_the_body(client: TestClient) -> None:
    alice = issue(client)
    client.post("/v1/packs", content=published_bytes(), headers={**alice, **JSON})
    client.post("/v1/packs/moon.garden/publish", json={"revision": 1}, headers=alice)
    for path, headers in (
        ("/v1/health", {}),
        ("/v1/catalog", {}),
        ("/v1/packs/moon.garden", alice),
        ("/v1/packs/moon.garden/revisions/1", alice),  # the route, then the fast path
        ("/v1/packs/moon.garden/revisions/1", alice),
        ("/v1/packs/moon.garden/reader", {}),
        ("/v1/packs/moon.garden/reader", {}),
        ("/v1/packs/nothing", alice),
    ):
        got, head = client.get(path, headers=headers), client.head(path, headers=headers)
        assert head.status_code == got.status_code, path
        assert head.content == b""
        for name in ("content-type", "content-length", "etag", "cache-control"):
            assert head.headers.get(name) == got.headers.get(name), (path, name)


def test_query_garbage_is_400(client: TestClient) -> None:
    response = client.post("/v1/lint?strict=maybe", content=pack_bytes(), headers=JSON)
    _assert_problem(response, 400)


@pytest.mark.parametrize(
    "query",
    ["q=lamp&q=storm", "limit=2&limit=3", "sort=title&sort=newest", "language=en&language=zh", "cursor=a&cursor=b"],
)
def test_a_single_valued_query_parameter_sent_twice_is_400(client: TestClient, query: str) -> None:
    response = client.get(f"/v1/catalog?{query}")
    _assert_problem(response, 400)
    name = query.split("=", 1)[0]
    assert response.json()["detail"] == f"query.{name}: takes one value, not 2"


def test_repeatable_query_parameters_stay_repeatable(client: TestClient) -> None:
    response = client.get("/v1/catalog?tag=harbour&tag=storm&genre=Mystery&genre=Drama&age_rating=general")
    assert response.status_code == 200, response.text


SMALL_BODY_ROUTES = (
    "/v1/packs/moon.garden/publish",
    "/v1/packs/moon.garden/sessions",
    f"/v1/sessions/{'0' * 32}/turns",
    f"/v1/sessions/{'0' * 32}/migrate",
)


class _Body:
    """A chunked request body of ``chunks`` MiB that counts how many chunks the server pulled."""

    def __init__(self, chunks: int) -> None:
        self.chunks = chunks
        self.pulled = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b'{"revision": 1, "filler": "'
        for _ in range(self.chunks):
            self.pulled += 1
            yield b"a" * (1024 * 1024)
        yield b'"}'


def _post_streamed(app: Any, route: str, body: _Body, headers: dict[str, str]) -> httpx.Response:
    async def post() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
            return await http.post(route, content=body, headers=headers)

    return asyncio.run(post())


@pytest.mark.parametrize("route", SMALL_BODY_ROUTES)
def test_a_big_body_on_a_small_json_route_is_413_as_soon_as_it_passes_the_limit(client: TestClient, route: str) -> None:
    body = _Body(8)
    response = _post_streamed(client.app, route, body, {**issue(client, scope="admin"), **JSON})
    _assert_problem(response, 413)
    assert response.json()["limit"] == SMALL_BODY_BYTES == 1024 * 1024
    assert body.pulled <= 2  # refused while streaming, not after buffering all 8 MiB


@pytest.mark.parametrize("route", SMALL_BODY_ROUTES)
def test_an_anonymous_body_is_refused_before_it_is_read(client: TestClient, route: str) -> None:
    body = _Body(8)
    response = _post_streamed(client.app, route, body, JSON)
    _assert_problem(response, 401)
    assert body.pulled == 0


def test_a_declared_length_past_the_limit_is_413_on_every_body_route(client: TestClient) -> None:
    admin = {**issue(client, scope="admin"), **JSON, "Content-Length": str(64 * 1024 * 1024 + 1)}
    for route in (*BODY_ROUTES, *SMALL_BODY_ROUTES):
        response = client.post(route, content=b"{}", headers=admin)
        _assert_problem(response, 413)
    response = client.put(f"/v1/assets/{'0' * 64}", content=b"x", headers=admin)
    _assert_problem(response, 413)


def test_two_authorization_headers_are_400_on_every_path(client: TestClient) -> None:
    alice, bob = issue(client, "alice"), issue(client, "bob")
    client.post("/v1/packs", content=published_bytes(visibility="private"), headers={**alice, **JSON})
    assert client.post("/v1/packs/moon.garden/publish", json={"revision": 1}, headers=alice).status_code == 200
    # The fast paths keep what alice read a moment ago: a second header must not reach it.
    assert client.get("/v1/packs/moon.garden/revisions/1", headers=alice).status_code == 200
    assert client.get("/v1/packs/moon.garden/reader", headers=alice).status_code == 200
    for first in (bob["Authorization"], "Bearer cpt_bogus", alice["Authorization"]):
        both = [("Authorization", first), ("Authorization", alice["Authorization"])]
        for path in (
            "/v1/packs/moon.garden/revisions/1",
            "/v1/packs/moon.garden/reader",
            "/v1/packs/moon.garden",
            "/v1/catalog",
            "/v1/health",
        ):
            response = client.get(path, headers=both)
            _assert_problem(response, 400)
            refused = {"location": "header.authorization", "message": "takes one value, not 2"}
            assert response.json()["errors"] == [refused]
            assert response.json()["instance"] == path


DISCONNECT_ROUTES = (
    ("POST", "/v1/validate"),
    ("POST", "/v1/lint"),
    ("POST", "/v1/packs"),
    ("POST", "/v1/packs/moon.garden/publish"),
    ("POST", "/v1/packs/moon.garden/sessions"),
    ("POST", f"/v1/sessions/{'0' * 32}/turns"),
    ("POST", f"/v1/sessions/{'0' * 32}/migrate"),
    ("PUT", f"/v1/assets/{'0' * 64}"),
)


@pytest.mark.parametrize(("method", "route"), DISCONNECT_ROUTES)
def test_a_client_gone_mid_body_is_no_error_and_stores_nothing(
    client: TestClient, caplog: pytest.LogCaptureFixture, method: str, route: str
) -> None:
    """Content-Length 1000, two bytes, then the connection closes: no traceback, no 5xx, nothing stored."""
    admin = issue(client, scope="admin")
    client.post("/v1/packs", content=pack_bytes(), headers={**admin, **JSON})
    packs = client.app.state.services.packs  # type: ignore[attr-defined]
    before = packs.pack("alice", "moon.garden")
    blobs = client.app.state.services.assets._blobs  # type: ignore[attr-defined]
    stored = [digest for digest, _ in blobs.list()]
    headers = [
        (b"authorization", admin["Authorization"].encode()),
        (b"content-type", b"application/json"),
        (b"content-length", b"1000"),
    ]
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": route,
        "raw_path": route.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    messages: list[dict[str, Any]] = [{"type": "http.request", "body": b'{"', "more_body": True}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(client.app(scope, receive, send))  # type: ignore[arg-type]
    starts = [m["status"] for m in sent if m["type"] == "http.response.start"]
    assert all(status < 500 for status in starts), starts
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]
    assert packs.pack("alice", "moon.garden") == before  # no revision, publication or change
    assert [digest for digest, _ in blobs.list()] == stored  # no blob either


@pytest.mark.parametrize(
    ("content_type", "shown"),
    [
        (";;;===", "not ';;;==='"),
        ("text/plain; charset=utf-8", "not 'text/plain'"),
        ("  ; charset=utf-8", "not '; charset=utf-8'"),
        ("x\x7fy", "not 'x\\x7fy'"),
        ("a" * 500, "not '" + "a" * 60 + "…'"),
    ],
)
def test_a_415_quotes_the_content_type_that_was_sent(
    stateless_client: TestClient, content_type: str, shown: str
) -> None:
    """What was sent, escaped and cut short: never "an empty type" for a header that is not empty."""
    response = stateless_client.post("/v1/validate", content=b"{}", headers={"Content-Type": content_type})
    _assert_problem(response, 415)
    assert response.json()["detail"] == f"send the body as application/json, {shown}"
