"""Hostile input: every one of these gets a 4xx problem, never a 5xx or a traceback."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from creatorpack import CreatorpackError
from creatorpack.service.errors import ServiceError, UnsupportedMediaTypeError
from tests.service.conftest import JSON, issue, pack_bytes

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
        _assert_problem(client.get("/v1/health", headers=headers), 431)
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
