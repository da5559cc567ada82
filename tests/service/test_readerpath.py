"""The in-memory fast path for reader views answers exactly as the route does, and forgets unpublished packs."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from creatorpack.service.app import create_app
from creatorpack.service.settings import Settings
from tests.service.conftest import JSON, hold_first_call, issue, published_bytes

PATH = "/v1/packs/moon.garden/reader"


def _publish(client: TestClient, headers: dict[str, str], revision: int = 1, **fields: Any) -> None:
    body = published_bytes(revision=revision, **fields)
    assert client.post("/v1/packs", content=body, headers={**headers, **JSON}).status_code == 201
    done = client.post("/v1/packs/moon.garden/publish", json={"revision": revision}, headers=headers)
    assert done.status_code == 200


def _count_loads(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    packs = client.app.state.services.packs  # type: ignore[attr-defined]
    calls: list[str] = []
    original = packs.publication

    def counting(pack_id: str) -> Any:
        calls.append(pack_id)
        return original(pack_id)

    monkeypatch.setattr(packs, "publication", counting)
    return calls


def test_repeated_reads_answer_like_the_route_without_the_store(
    settings: Settings, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = issue(client)
    _publish(client, alice)
    loads = _count_loads(client, monkeypatch)
    first, again = client.get(PATH), client.get(PATH)
    assert len(loads) == 1  # the second read came from memory
    with TestClient(create_app(settings.with_changes(token_cache_seconds=0))) as plain:  # the route alone
        routed = plain.get(PATH)
    for response in (first, again):
        assert response.status_code == 200
        assert response.content == routed.content
        for header in ("etag", "cache-control", "content-type", "content-length"):
            assert response.headers[header] == routed.headers[header], header
    etag = first.headers["etag"]
    for validator in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        not_modified = client.get(PATH, headers={"If-None-Match": validator})
        assert (not_modified.status_code, not_modified.content) == (304, b"")
        assert not_modified.headers["etag"] == etag
    assert client.get(PATH, headers={"If-None-Match": '"other"'}).status_code == 200
    assert len(loads) == 1


def test_publishing_here_is_seen_at_once(client: TestClient) -> None:
    alice = issue(client)
    _publish(client, alice, title="First")
    assert client.get(PATH).json()["title"] == "First"
    _publish(client, alice, revision=2, title="Second")
    assert client.get(PATH).json()["title"] == "Second"
    assert client.delete("/v1/packs/moon.garden/publish", headers=alice).status_code == 204
    assert client.get(PATH).status_code == 404


@pytest.mark.parametrize("change", ["unpublish", "republish"])
def test_a_read_racing_a_publication_here_keeps_nothing_stale(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """A read that loaded the old view while a publish or unpublish ran must not keep it past the change's answer.

    The reader's load is held after it read the store, the change commits and answers, then the load
    returns its (old) view: the next read must see the change, not that view.
    """
    with TestClient(create_app(settings.with_changes(token_cache_seconds=60))) as client:  # no clock check helps
        alice = issue(client)
        _publish(client, alice, title="First")
        if change == "republish":
            body = published_bytes(revision=2, title="Second")
            assert client.post("/v1/packs", content=body, headers={**alice, **JSON}).status_code == 201
        held = hold_first_call(client.app.state.services.packs, "publication", monkeypatch)  # type: ignore[attr-defined]
        racing: list[Any] = []
        reader = threading.Thread(target=lambda: racing.append(client.get(PATH)))
        reader.start()
        held.wait_started()
        if change == "unpublish":
            assert client.delete("/v1/packs/moon.garden/publish", headers=alice).status_code == 204
        else:
            assert client.post("/v1/packs/moon.garden/publish", json={"revision": 2}, headers=alice).status_code == 200
        held.release()
        reader.join()
        assert racing[0].json()["title"] == "First"  # it began before the change answered: either view is fair
        after = client.get(PATH)
        if change == "unpublish":
            assert after.status_code == 404
        else:
            assert after.json()["title"] == "Second"


def test_another_process_is_seen_within_the_ttl(settings: Settings) -> None:
    ttl = 0.3
    with (
        TestClient(create_app(settings.with_changes(token_cache_seconds=ttl))) as here,
        TestClient(create_app(settings.with_changes(token_cache_seconds=ttl))) as there,
    ):
        alice = issue(here)
        _publish(here, alice)
        assert here.get(PATH).status_code == 200
        assert there.delete("/v1/packs/moon.garden/publish", headers=alice).status_code == 204
        time.sleep(ttl + 0.1)
        assert here.get(PATH).status_code == 404


def test_private_packs_and_unchecked_tokens_go_to_the_route(client: TestClient) -> None:
    alice, bob = issue(client, "alice"), issue(client, "bob")
    _publish(client, alice, visibility="private")
    for _ in range(2):
        assert client.get(PATH).status_code == 404
        assert client.get(PATH, headers=bob).status_code == 404
        assert client.get(PATH, headers=alice).status_code == 200
    assert client.get(PATH, headers={"Authorization": "Bearer cpt_unknown"}).status_code == 401
    assert client.get("/v1/packs/no.such.pack/reader").status_code == 404
