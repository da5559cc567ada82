"""The pack routes end to end, on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from typing import Any

from fastapi.testclient import TestClient

from creatorpack.service.app import create_app
from creatorpack.service.settings import Settings
from tests.conftest import EXAMPLES, example
from tests.service.conftest import JSON, issue, pack_bytes

PROBLEM = "application/problem+json"


def upload(client: TestClient, body: bytes, headers: dict[str, str]) -> Any:
    return client.post("/v1/packs", content=body, headers={**headers, **JSON})


def test_upload_creates_a_revision(client: TestClient) -> None:
    alice = issue(client)
    body = pack_bytes()
    response = client.post("/v1/packs", content=body, headers={**alice, **JSON})
    assert response.status_code == 201
    assert response.headers["location"] == "/v1/packs/moon.garden/revisions/1"
    assert response.headers["etag"] == f'"{hashlib.sha256(body).hexdigest()}"'
    assert response.json()["revision"] == 1
    assert response.json()["size"] == len(body)


def test_same_bytes_again_is_200_and_changes_nothing(client: TestClient) -> None:
    alice = issue(client)
    body = pack_bytes()
    first = client.post("/v1/packs", content=body, headers={**alice, **JSON})
    again = client.post("/v1/packs", content=body, headers={**alice, **JSON})
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert len(client.get("/v1/packs/moon.garden", headers=alice).json()["revisions"]) == 1


def test_different_bytes_for_a_stored_revision_is_409(client: TestClient) -> None:
    alice = issue(client)
    client.post("/v1/packs", content=pack_bytes(), headers={**alice, **JSON})
    response = client.post("/v1/packs", content=pack_bytes(title="Other"), headers={**alice, **JSON})
    assert response.status_code == 409
    assert response.headers["content-type"] == PROBLEM
    assert response.json()["type"] == "urn:creatorpack:problem:revision-conflict"
    assert response.json()["reason"] == "different"


def test_a_revision_not_above_the_latest_is_409(client: TestClient) -> None:
    alice = issue(client)
    assert client.post("/v1/packs", content=pack_bytes(revision=3), headers={**alice, **JSON}).status_code == 201
    response = client.post("/v1/packs", content=pack_bytes(revision=2), headers={**alice, **JSON})
    assert response.status_code == 409
    assert response.json()["reason"] == "not-above-latest"
    assert response.json()["latest_revision"] == 3


def test_deleted_revision_numbers_are_never_reused(client: TestClient) -> None:
    alice = issue(client)
    client.post("/v1/packs", content=pack_bytes(revision=1), headers={**alice, **JSON})
    assert client.delete("/v1/packs/moon.garden/revisions/1", headers=alice).status_code == 204
    assert client.get("/v1/packs/moon.garden/revisions/1", headers=alice).status_code == 404
    again = client.post("/v1/packs", content=pack_bytes(revision=1, title="New"), headers={**alice, **JSON})
    assert again.status_code == 409
    assert again.json()["reason"] == "deleted"
    same = client.post("/v1/packs", content=pack_bytes(revision=1), headers={**alice, **JSON})
    assert same.status_code == 409
    assert client.delete("/v1/packs/moon.garden/revisions/1", headers=alice).status_code == 404
    assert client.post("/v1/packs", content=pack_bytes(revision=2), headers={**alice, **JSON}).status_code == 201


def _blobs(client: TestClient) -> dict[str, datetime]:
    """The blob store's sha256 and write times (the local store's mtimes)."""
    return dict(client.app.state.services.packs._blobs.list())  # type: ignore[attr-defined]


def test_refused_uploads_store_no_bytes(client: TestClient) -> None:
    """A refused upload (409) leaves no blob (nothing for gc to sweep), and a retry of stored bytes writes none."""
    alice, bob = issue(client, "alice"), issue(client, "bob")
    for number in (1, 2, 5):
        assert upload(client, pack_bytes(revision=number), alice).status_code == 201
    assert client.delete("/v1/packs/moon.garden/revisions/2", headers=alice).status_code == 204
    before = _blobs(client)
    assert len(before) == 3
    refused = {
        "different": pack_bytes(revision=1, title="Other"),
        "deleted": pack_bytes(revision=2, title="Other"),
        "not-above-latest": pack_bytes(revision=4),
    }
    for reason, body in refused.items():
        response = upload(client, body, alice)
        assert (response.status_code, response.json()["reason"]) == (409, reason)
        assert response.json()["latest_revision"] == 5
    assert upload(client, pack_bytes(revision=6), bob).status_code == 409  # pack-id-taken
    again = upload(client, pack_bytes(revision=1), alice)
    assert again.status_code == 200
    assert _blobs(client) == before  # not one more blob, and not one rewritten


def test_contract_invalid_is_422_with_the_errors(client: TestClient) -> None:
    alice = issue(client)
    doc = json.loads(pack_bytes())
    doc["manifest"]["language"] = "xx"
    response = client.post("/v1/packs", content=json.dumps(doc), headers={**alice, **JSON})
    assert response.status_code == 422
    body = response.json()
    assert body["type"] == "urn:creatorpack:problem:invalid-pack"
    assert body["version"] == "0.5"
    assert [e["pointer"] for e in body["errors"]] == ["/manifest/language"]
    assert {"pointer", "code", "message", "line", "column"} <= set(body["errors"][0])


def test_unreadable_bodies_are_400_with_the_cli_code(client: TestClient) -> None:
    alice = issue(client)
    cases = {
        b"{": "invalid-json",
        b"[1, 2]": "not-an-object",
        b'{"a": 1, "a": 2}': "duplicate-key",
        b"[" * 300 + b"]" * 300: "limit-exceeded",
        b"\xff\xfe": "invalid-json",
    }
    for body, code in cases.items():
        response = client.post("/v1/packs", content=body, headers={**alice, **JSON})
        assert response.status_code == 400, body
        assert response.headers["content-type"] == PROBLEM
        assert response.json()["code"] == code
        assert response.json()["type"] == "urn:creatorpack:problem:unreadable-pack"


def test_a_0_2_pack_cannot_be_stored(client: TestClient) -> None:
    alice = issue(client)
    body = json.dumps(example("0.2", "minimal")).encode()
    response = client.post("/v1/packs", content=body, headers={**alice, **JSON})
    assert response.status_code == 422
    assert response.json()["type"] == "urn:creatorpack:problem:pack-id-missing"
    assert "pack_id" in response.json()["detail"]
    assert client.post("/v1/validate", content=body, headers=JSON).json()["valid"] is True
    assert client.post("/v1/lint", content=body, headers=JSON).status_code == 200


def test_another_accounts_pack_is_not_found(client: TestClient) -> None:
    alice, bob = issue(client, "alice"), issue(client, "bob")
    client.post("/v1/packs", content=pack_bytes(), headers={**alice, **JSON})
    taken = client.post("/v1/packs", content=pack_bytes(revision=2), headers={**bob, **JSON})
    assert (taken.status_code, taken.json()["type"]) == (409, "urn:creatorpack:problem:pack-id-taken")
    assert "alice" not in taken.text  # the owner is not named
    for response in (
        client.get("/v1/packs/moon.garden", headers=bob),
        client.get("/v1/packs/moon.garden/revisions/1", headers=bob),
        client.delete("/v1/packs/moon.garden/revisions/1", headers=bob),
    ):
        assert response.status_code == 404
        assert response.json()["detail"] == "no pack 'moon.garden' for this account"
    missing = client.get("/v1/packs/no.such.pack", headers=bob)
    assert missing.json()["detail"] == "no pack 'no.such.pack' for this account"


def test_get_pack_lists_revisions(client: TestClient) -> None:
    alice = issue(client)
    for number in (1, 2):
        client.post("/v1/packs", content=pack_bytes(revision=number), headers={**alice, **JSON})
    body = client.get("/v1/packs/moon.garden", headers=alice).json()
    assert body["latest_revision"] == 2
    assert body["published_revision"] is None
    assert body["visibility"] == "private"
    assert [r["revision"] for r in body["revisions"]] == [1, 2]
    assert set(body["revisions"][0]) == {"pack_id", "revision", "sha256", "size", "version", "created", "published"}


def test_get_revision_returns_the_bytes_with_etag_and_304(client: TestClient) -> None:
    alice = issue(client)
    body = pack_bytes().replace(b'"title"', b'  "title"')  # odd spacing survives byte for byte
    client.post("/v1/packs", content=body, headers={**alice, **JSON})
    response = client.get("/v1/packs/moon.garden/revisions/1", headers=alice)
    assert response.status_code == 200
    assert response.content == body
    etag = response.headers["etag"]
    assert etag == f'"{hashlib.sha256(body).hexdigest()}"'
    assert response.headers["cache-control"] == "private, immutable"
    cached = client.get("/v1/packs/moon.garden/revisions/1", headers={**alice, "If-None-Match": etag})
    assert cached.status_code == 304
    assert cached.content == b""
    other = client.get("/v1/packs/moon.garden/revisions/1", headers={**alice, "If-None-Match": '"abc"'})
    assert other.status_code == 200


def test_tokens_401_and_403(client: TestClient) -> None:
    reader = issue(client, "rita", "reader")
    admin = issue(client, "root", "admin")
    assert client.get("/v1/packs/moon.garden").status_code == 401
    assert client.get("/v1/packs/moon.garden", headers={"Authorization": "Bearer cpt_nope"}).status_code == 401
    assert client.get("/v1/packs/moon.garden", headers={"Authorization": "Basic abc"}).status_code == 401
    assert client.get("/v1/packs/moon.garden", headers=reader).status_code == 403
    assert client.get("/v1/packs/moon.garden", headers=admin).status_code == 404
    unauthorized = client.get("/v1/packs/moon.garden")
    assert unauthorized.headers["www-authenticate"].startswith("Bearer")
    assert unauthorized.json()["type"] == "urn:creatorpack:problem:unauthorized"


def test_revoked_token_is_401(client: TestClient) -> None:
    alice = issue(client)
    assert client.get("/v1/packs/x", headers=alice).status_code == 404
    auth = client.app.state.services.auth  # type: ignore[attr-defined]
    (record,) = auth.tokens("alice")
    assert auth.revoke(record.id)
    assert client.get("/v1/packs/x", headers=alice).status_code == 401


def test_body_limit_is_413(settings: Settings) -> None:
    with TestClient(create_app(settings.with_changes(max_body_bytes=1000))) as small:
        alice = issue(small)
        big = b'{"x": "' + b"a" * 2000 + b'"}'
        for path in ("/v1/packs", "/v1/validate", "/v1/lint"):
            response = small.post(path, content=big, headers={**alice, **JSON})
            assert response.status_code == 413
            assert response.json()["type"] == "urn:creatorpack:problem:payload-too-large"


def test_data_survives_a_restart(settings: Settings) -> None:
    body = pack_bytes()
    with TestClient(create_app(settings)) as first:
        alice = issue(first)
        assert first.post("/v1/packs", content=body, headers={**alice, **JSON}).status_code == 201
    with TestClient(create_app(settings)) as second:
        response = second.get("/v1/packs/moon.garden/revisions/1", headers=alice)
        assert response.status_code == 200
        assert response.content == body


def test_every_bundled_example_uploads_after_the_others_with_one_token(client: TestClient) -> None:
    """A new user who uploads the examples one after another gets 201 for each: their pack ids differ.

    They differ as names once pack ids are compared PyPI-style too (case, and runs of ``-``, ``_``, ``.``).
    """
    alice = issue(client)
    paths = sorted(p for v in ("0.3", "0.4", "0.5") for p in (EXAMPLES / v).glob("*.json"))
    assert [p.name for p in paths] == ["minimal.json", "rich.json"] * 3
    ids = [json.loads(p.read_bytes())["manifest"]["pack_id"] for p in paths]
    assert len({re.sub(r"[-_.]+", "-", i).lower() for i in ids}) == len(paths), ids
    for path in paths:
        response = upload(client, path.read_bytes(), alice)
        assert response.status_code == 201, (str(path), response.text)
