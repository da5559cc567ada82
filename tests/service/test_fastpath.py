"""The in-memory fast path for revision reads answers exactly as the route does, and forgets deletes."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient

from creatorpack.service.app import create_app
from creatorpack.service.settings import Settings
from tests.service.conftest import JSON, hold_first_call, issue, pack_bytes

PATH = "/v1/packs/moon.garden/revisions/1"


def _count_store_reads(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    packs = client.app.state.services.packs  # type: ignore[attr-defined]
    calls: list[Any] = []
    original = packs.revision

    def counting(*args: Any) -> Any:
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(packs, "revision", counting)
    return calls


def test_repeated_reads_answer_like_the_route_without_the_store(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = issue(client)
    body = pack_bytes()
    assert client.post("/v1/packs", content=body, headers={**alice, **JSON}).status_code == 201
    reads = _count_store_reads(client, monkeypatch)
    first = client.get(PATH, headers=alice)
    again = client.get(PATH, headers=alice)
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.content == first.content == body
    for header in ("etag", "cache-control", "content-type", "content-length"):
        assert again.headers[header] == first.headers[header]
    assert len(reads) <= 1  # the second read came from memory
    etag = first.headers["etag"]
    for validator in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        not_modified = client.get(PATH, headers={**alice, "If-None-Match": validator})
        assert not_modified.status_code == 304
        assert not_modified.headers["etag"] == etag
        assert not_modified.content == b""
    assert client.get(PATH, headers={**alice, "If-None-Match": '"other"'}).status_code == 200


def test_other_accounts_and_scopes_still_get_the_routes_answers(client: TestClient) -> None:
    alice, bob, reader = issue(client), issue(client, "bob"), issue(client, "carol", "reader")
    client.post("/v1/packs", content=pack_bytes(), headers={**alice, **JSON})
    assert client.get(PATH, headers=alice).status_code == 200
    assert client.get(PATH, headers=alice).status_code == 200
    for headers, status in ((bob, 404), (reader, 403), ({}, 401)):
        client.get("/v1/health", headers=headers)  # the token is now checked and cached
        response = client.get(PATH, headers=headers)
        assert response.status_code == status
        assert response.headers["content-type"] == "application/problem+json"
        assert b"initial_state" not in response.content


def test_a_deleted_revision_is_gone_at_once(client: TestClient) -> None:
    alice = issue(client)
    client.post("/v1/packs", content=pack_bytes(), headers={**alice, **JSON})
    client.post("/v1/packs", content=pack_bytes(revision=2), headers={**alice, **JSON})
    assert client.get(PATH, headers=alice).status_code == 200
    assert client.get(PATH, headers=alice).status_code == 200
    assert client.delete(PATH, headers=alice).status_code == 204
    assert client.get(PATH, headers=alice).status_code == 404


def test_a_read_racing_a_delete_here_keeps_nothing(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read that loaded the revision while its delete ran must not keep the bytes past the delete's 204.

    The owner's load is held after it read the store, the delete commits and answers, then the load
    returns the (deleted) bytes: the next read must be 404.
    """
    with TestClient(create_app(settings.with_changes(token_cache_seconds=60))) as client:  # entries outlive the test
        alice = issue(client)
        client.post("/v1/packs", content=pack_bytes(), headers={**alice, **JSON})
        client.post("/v1/packs", content=pack_bytes(revision=2), headers={**alice, **JSON})
        held = hold_first_call(client.app.state.services.packs, "revision", monkeypatch)  # type: ignore[attr-defined]
        racing: list[Any] = []
        reader = threading.Thread(target=lambda: racing.append(client.get(PATH, headers=alice)))
        reader.start()
        held.wait_started()
        assert client.delete(PATH, headers=alice).status_code == 204
        held.release()
        reader.join()
        assert racing[0].status_code == 200  # it began before the delete answered
        assert client.get(PATH, headers=alice).status_code == 404


def test_a_revoked_token_is_refused_at_once(client: TestClient) -> None:
    alice = issue(client)
    client.post("/v1/packs", content=pack_bytes(), headers={**alice, **JSON})
    assert client.get(PATH, headers=alice).status_code == 200
    auth = client.app.state.services.auth  # type: ignore[attr-defined]
    (record,) = auth.tokens("alice")
    assert auth.revoke(record.id)
    assert client.get(PATH, headers=alice).status_code == 401
