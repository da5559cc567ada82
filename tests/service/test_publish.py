"""Publishing, visibility and the audit journal end to end, on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from httpx import Response

from creatorpack.service.packs import Packs
from creatorpack.service.ports import Actor, PackRecord
from tests.conftest import example
from tests.service.conftest import JSON, issue, pack_bytes, published_bytes

PROBLEM = "application/problem+json"


def _upload(client: TestClient, body: bytes, headers: dict[str, str]) -> None:
    response = client.post("/v1/packs", content=body, headers={**headers, **JSON})
    assert response.status_code == 201, response.text


def _publish(client: TestClient, headers: dict[str, str], revision: int = 1, pack_id: str = "moon.garden") -> Response:
    response: Response = client.post(f"/v1/packs/{pack_id}/publish", json={"revision": revision}, headers=headers)
    return response


def test_publish_takes_the_visibility_from_the_publication(client: TestClient) -> None:
    alice = issue(client)
    _upload(client, published_bytes(visibility="unlisted"), alice)
    response = client.post("/v1/packs/moon.garden/publish", json={"revision": 1}, headers=alice)
    assert response.status_code == 200
    body = response.json()
    assert (body["pack_id"], body["revision"], body["visibility"], body["warnings"]) == (
        "moon.garden",
        1,
        "unlisted",
        [],
    )
    pack = client.get("/v1/packs/moon.garden", headers=alice).json()
    assert (pack["published_revision"], pack["visibility"]) == (1, "unlisted")
    assert [r["published"] for r in pack["revisions"]] == [True]


def test_a_pack_without_publication_is_private(client: TestClient) -> None:
    alice, bob = issue(client, "alice"), issue(client, "bob")
    reader = issue(client, "rita", "reader")
    _upload(client, pack_bytes(), alice)
    assert _publish(client, alice).json()["visibility"] == "private"
    assert client.get("/v1/packs/moon.garden/reader", headers=alice).status_code == 200
    for headers in ({}, bob, reader):
        response = client.get("/v1/packs/moon.garden/reader", headers=headers)
        assert response.status_code == 404
        assert response.json()["detail"] == "no published pack 'moon.garden'"
    assert client.get("/v1/catalog").json() == {"items": [], "next": None}


def test_public_unlisted_and_private_readers(client: TestClient) -> None:
    alice = issue(client)
    reader = issue(client, "rita", "reader")
    for pack_id, visibility in (("pub", "public"), ("unl", "unlisted"), ("pri", "private")):
        _upload(client, published_bytes(pack_id, visibility=visibility, title=f"Title {pack_id}"), alice)
        assert _publish(client, alice, pack_id=pack_id).status_code == 200
    for headers in ({}, reader):
        assert client.get("/v1/packs/pub/reader", headers=headers).json()["title"] == "Title pub"
        assert client.get("/v1/packs/unl/reader", headers=headers).json()["title"] == "Title unl"
        assert client.get("/v1/packs/pri/reader", headers=headers).status_code == 404
    assert client.get("/v1/packs/pri/reader", headers=alice).json()["title"] == "Title pri"
    listed = client.get("/v1/catalog").json()["items"]
    assert [item["pack_id"] for item in listed] == ["pub"]
    assert client.get("/v1/catalog", params={"q": "Title"}).json()["items"][0]["pack_id"] == "pub"
    assert len(client.get("/v1/catalog", params={"q": "unl"}).json()["items"]) == 0
    public = client.get("/v1/packs/pub/reader")
    assert public.headers["cache-control"] == "public, no-cache"
    assert client.get("/v1/packs/unl/reader").headers["cache-control"] == "private, no-cache"
    again = client.get("/v1/packs/pub/reader", headers={"If-None-Match": public.headers["etag"]})
    assert again.status_code == 304


def test_a_sent_token_must_be_live_even_where_none_is_needed(client: TestClient) -> None:
    alice = issue(client)
    _upload(client, published_bytes(), alice)
    _publish(client, alice)
    for path in ("/v1/packs/moon.garden/reader", "/v1/catalog"):
        assert client.get(path, headers={"Authorization": "Bearer cpt_unknown"}).status_code == 401
        assert client.get(path).status_code == 200


def test_lint_errors_refuse_publication_with_the_findings(client: TestClient) -> None:
    alice = issue(client)
    _upload(client, published_bytes(cover_asset_id="nope"), alice)
    response = _publish(client, alice)
    assert response.status_code == 422
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["type"] == "urn:creatorpack:problem:lint-failed"
    assert [(e["pointer"], e["code"], e["severity"]) for e in body["errors"]] == [
        ("/publication/cover_asset_id", "unknown-reference", "error")
    ]
    assert "nope" in body["errors"][0]["message"]
    assert body["warnings"] == []
    pack = client.get("/v1/packs/moon.garden", headers=alice).json()
    assert (pack["published_revision"], pack["visibility"]) == (None, "private")
    kinds = [e["kind"] for e in client.get("/v1/packs/moon.garden/events", headers=alice).json()["events"]]
    assert kinds == ["upload"]


def test_missing_asset_files_are_warnings(client: TestClient) -> None:
    alice = issue(client)
    _upload(client, json.dumps(example("0.5", "rich")).encode(), alice)
    response = _publish(client, alice, 3, "harbour-light")
    assert response.status_code == 200
    warnings = response.json()["warnings"]
    missing = [w for w in warnings if w["code"] == "asset-file-missing"]
    assert len(missing) == len(example("0.5", "rich")["assets"])
    assert missing[0]["pointer"] == "/assets/0"
    assert missing[0]["severity"] == "warning"
    assert "PUT /v1/assets/" in missing[0]["message"]


def test_publishing_another_revision_moves_it_and_unpublish_withdraws(client: TestClient) -> None:
    alice = issue(client)
    _upload(client, published_bytes(title="First"), alice)
    _upload(client, published_bytes(revision=2, title="Second"), alice)
    assert _publish(client, alice, 1).status_code == 200
    assert client.get("/v1/packs/moon.garden/reader").json()["title"] == "First"
    assert _publish(client, alice, 2).status_code == 200
    assert client.get("/v1/packs/moon.garden/reader").json()["revision"] == 2
    assert [i["title"] for i in client.get("/v1/catalog").json()["items"]] == ["Second"]
    refused = client.delete("/v1/packs/moon.garden/revisions/2", headers=alice)
    assert refused.status_code == 409
    assert (refused.json()["reason"], refused.json()["latest_revision"]) == ("revision-published", 2)
    assert client.delete("/v1/packs/moon.garden/revisions/1", headers=alice).status_code == 204
    assert client.delete("/v1/packs/moon.garden/publish", headers=alice).status_code == 204
    assert client.get("/v1/packs/moon.garden/reader").status_code == 404
    assert client.get("/v1/packs/moon.garden/reader", headers=alice).status_code == 404
    assert client.get("/v1/catalog").json()["items"] == []
    again = client.delete("/v1/packs/moon.garden/publish", headers=alice)
    assert again.status_code == 404
    assert again.json()["detail"] == "pack 'moon.garden' has no published revision"
    pack = client.get("/v1/packs/moon.garden", headers=alice).json()
    assert (pack["published_revision"], pack["visibility"]) == (None, "private")


def test_a_deleted_or_unknown_revision_cannot_be_published(client: TestClient) -> None:
    alice = issue(client)
    _upload(client, published_bytes(), alice)
    client.delete("/v1/packs/moon.garden/revisions/1", headers=alice)
    for revision in (1, 7):
        response = _publish(client, alice, revision)
        assert response.status_code == 404
        assert response.json()["detail"] == f"pack 'moon.garden' has no revision {revision}"


def test_a_revision_published_while_it_is_being_deleted_is_409_not_404(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = issue(client)
    _upload(client, published_bytes(), alice)
    packs: Packs = client.app.state.services.packs  # type: ignore[attr-defined]
    read_pack = packs.pack

    def publish_meanwhile(account: str, pack_id: str) -> PackRecord:
        found = read_pack(account, pack_id)  # the delete's owner check: nothing is published yet
        packs.publish(Actor(account), pack_id, 1)  # a concurrent publish lands before the delete
        return found

    monkeypatch.setattr(packs, "pack", publish_meanwhile)
    response = client.delete("/v1/packs/moon.garden/revisions/1", headers=alice)
    assert response.status_code == 409, response.text
    body = response.json()
    assert (body["type"], body["reason"], body["latest_revision"]) == (
        "urn:creatorpack:problem:revision-conflict",
        "revision-published",
        1,
    )
    monkeypatch.undo()
    pack = client.get("/v1/packs/moon.garden", headers=alice).json()
    assert (pack["published_revision"], [r["revision"] for r in pack["revisions"]]) == (1, [1])


def test_other_accounts_get_404_and_readers_403(client: TestClient) -> None:
    alice, bob = issue(client, "alice"), issue(client, "bob")
    reader = issue(client, "rita", "reader")
    _upload(client, published_bytes(), alice)
    for response in (
        _publish(client, bob),
        client.delete("/v1/packs/moon.garden/publish", headers=bob),
        client.get("/v1/packs/moon.garden/events", headers=bob),
    ):
        assert response.status_code == 404
        assert response.json()["detail"] == "no pack 'moon.garden' for this account"
    assert _publish(client, reader).status_code == 403
    assert client.get("/v1/packs/moon.garden/events").status_code == 401
    assert client.get("/v1/packs/moon.garden", headers=alice).json()["published_revision"] is None


def test_malformed_publish_requests_are_400(client: TestClient) -> None:
    alice = issue(client)
    _upload(client, published_bytes(), alice)
    for payload in ({}, {"revision": 0}, {"revision": "one"}, {"revision": 1, "extra": True}, [1]):
        response = client.post("/v1/packs/moon.garden/publish", json=payload, headers=alice)
        assert response.status_code == 400, payload
        assert response.json()["type"] == "urn:creatorpack:problem:invalid-request"
    response = client.post("/v1/packs/moon.garden/publish", content=b"{", headers={**alice, **JSON})
    assert response.status_code == 400


def test_the_publish_revision_is_a_json_integer_not_a_boolean_string_or_fraction(client: TestClient) -> None:
    alice = issue(client)
    _upload(client, published_bytes(), alice)
    for payload in (b'{"revision": true}', b'{"revision": "1"}', b'{"revision": 1.5}', b'{"revision": 1e400}'):
        response = client.post("/v1/packs/moon.garden/publish", content=payload, headers={**alice, **JSON})
        assert response.status_code == 400, (payload, response.text)
        assert response.json()["type"] == "urn:creatorpack:problem:invalid-request"
        assert response.json()["errors"][0]["location"] == "body.revision"
    assert client.get("/v1/packs/moon.garden", headers=alice).json()["published_revision"] is None


@pytest.mark.parametrize("payload", [b'{"revision": 1.0}', b'{"revision": 1e0}', b'{"revision": 0.1e1}'])
def test_an_integral_json_number_is_the_integer_it_is(client: TestClient, payload: bytes) -> None:
    """JSON Schema's ``integer``, which the OpenAPI document says, is any number with a zero fraction."""
    alice = issue(client)
    _upload(client, published_bytes(), alice)
    response = client.post("/v1/packs/moon.garden/publish", content=payload, headers={**alice, **JSON})
    assert response.status_code == 200, response.text
    assert response.json()["revision"] == 1
    assert client.get("/v1/packs/moon.garden", headers=alice).json()["published_revision"] == 1


def test_an_integral_number_past_the_bounds_is_still_400(client: TestClient) -> None:
    alice = issue(client)
    _upload(client, published_bytes(), alice)
    for payload in (b'{"revision": 0.0}', b'{"revision": -1.0}', b'{"revision": 9007199254740992.0}'):
        response = client.post("/v1/packs/moon.garden/publish", content=payload, headers={**alice, **JSON})
        assert response.status_code == 400, (payload, response.text)
        assert response.json()["errors"][0]["location"] == "body.revision"


def test_a_publish_body_not_declared_json_is_415(client: TestClient) -> None:
    alice = issue(client)
    _upload(client, published_bytes(), alice)
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        response = client.post(
            "/v1/packs/moon.garden/publish", content=b'{"revision": 1}', headers={**alice, "Content-Type": content_type}
        )
        assert response.status_code == 415, (content_type, response.text)
        assert response.json()["type"] == "urn:creatorpack:problem:unsupported-media-type"
    assert client.get("/v1/packs/moon.garden", headers=alice).json()["published_revision"] is None
    response = client.post("/v1/packs/moon.garden/publish", content=b'{"revision": 1}', headers=alice)
    assert response.status_code == 200, response.text  # no content type is taken as JSON, as on every JSON route


def test_the_journal_records_every_change_with_account_token_time_and_revision(client: TestClient) -> None:
    alice = issue(client)
    auth = client.app.state.services.auth  # type: ignore[attr-defined]
    (token,) = auth.tokens("alice")
    _upload(client, published_bytes(), alice)
    _upload(client, published_bytes(revision=2), alice)
    client.post("/v1/packs", content=published_bytes(revision=2), headers={**alice, **JSON})  # a no-op repeat
    _publish(client, alice, 2)
    client.delete("/v1/packs/moon.garden/revisions/1", headers=alice)
    client.delete("/v1/packs/moon.garden/publish", headers=alice)
    body = client.get("/v1/packs/moon.garden/events", headers=alice).json()
    assert [(e["kind"], e["revision"]) for e in body["events"]] == [
        ("upload", 1),
        ("upload", 2),
        ("publish", 2),
        ("delete", 1),
        ("unpublish", 2),
    ]
    assert {(e["account"], e["token_id"]) for e in body["events"]} == {("alice", token.id)}
    assert all(e["at"].endswith("+00:00") for e in body["events"])
    assert body["next"] is None
    ids = [e["id"] for e in body["events"]]
    assert ids == sorted(ids)
    first = client.get("/v1/packs/moon.garden/events", params={"limit": 2}, headers=alice).json()
    assert [e["id"] for e in first["events"]] == ids[:2]
    assert first["next"] == ids[1]
    rest = client.get("/v1/packs/moon.garden/events", params={"after": first["next"]}, headers=alice).json()
    assert [e["id"] for e in rest["events"]] == ids[2:]
    assert client.get("/v1/packs/moon.garden/events", params={"limit": 0}, headers=alice).status_code == 400


def test_the_retry_of_a_published_revision_says_it_is_published(client: TestClient) -> None:
    """Same bytes again: 200 and nothing changes, and the answer describes the revision as it is."""
    alice = issue(client)
    body = pack_bytes()
    _upload(client, body, alice)
    _publish(client, alice)
    again = client.post("/v1/packs", content=body, headers={**alice, **JSON})
    assert again.status_code == 200
    assert again.json()["published"] is True
    assert again.json() == client.get("/v1/packs/moon.garden", headers=alice).json()["revisions"][0]
