"""Moderation over HTTP, on SQLite and PostgreSQL: takedowns, disabled accounts, reports, the platform's journal."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from creatorpack.service.settings import RateLimit, Settings
from tests.service.conftest import JSON, issue, published_bytes
from tests.service.sessions_support import harbour_bytes, publish, upload


def _admin(client: TestClient, account: str = "root") -> dict[str, str]:
    """Headers of an admin token of a platform admin account."""
    headers = issue(client, account, "admin")
    client.app.state.services.moderation.set_role(account, "admin")  # type: ignore[attr-defined]
    return headers


def _published(client: TestClient, owner: dict[str, str], pack_id: str = "moon.garden") -> None:
    upload(client, published_bytes(pack_id=pack_id), owner)
    publish(client, pack_id, 1, owner)


def _catalog_ids(client: TestClient) -> list[str]:
    return [item["pack_id"] for item in client.get("/v1/catalog").json()["items"]]


def _status(response: Any) -> tuple[int, str]:
    body = response.json() if response.content else {}
    return response.status_code, str(body.get("type", "")).rsplit(":", 1)[-1]


def test_only_a_platform_admin_moderates(client: TestClient) -> None:
    alice = issue(client, "alice")
    _published(client, alice)
    owners_all_scopes = issue(client, "alice", "admin")  # a creator's own admin token is no platform admin
    not_yet = issue(client, "root", "admin")
    for headers in (alice, owners_all_scopes, not_yet):
        response = client.post("/v1/admin/packs/moon.garden/takedown", json={"reason": "x"}, headers=headers)
        assert _status(response) == (403, "forbidden")
        assert client.get("/v1/admin/reports", headers=headers).status_code == 403
    assert client.get("/v1/admin/accounts").status_code == 401
    root = _admin(client)
    assert client.get("/v1/admin/accounts", headers=root).status_code == 200
    # A platform admin's creator token does not moderate either: the admin scope is needed.
    root_creator = issue(client, "root", "creator")
    assert client.get("/v1/admin/accounts", headers=root_creator).status_code == 403


def test_a_takedown_hides_a_pack_from_everyone_but_its_owner_until_restored(client: TestClient) -> None:
    alice, reader, root = issue(client, "alice"), issue(client, "reader1", "reader"), _admin(client)
    _published(client, alice)
    assert _catalog_ids(client) == ["moon.garden"]
    down = client.post("/v1/admin/packs/moon.garden/takedown", json={"reason": "rights complaint #12"}, headers=root)
    assert down.status_code == 200
    assert down.json()["takedown"]["reason"] == "rights complaint #12"
    assert down.json()["takedown"]["by"] == "root"
    assert _catalog_ids(client) == []
    for headers in ({}, reader):
        assert client.get("/v1/packs/moon.garden/reader", headers=headers).status_code == 404
        started = client.post("/v1/packs/moon.garden/sessions", json={}, headers=headers or reader)
        assert started.status_code == 404
    # The owner still reads it, sees why, and may publish again: it stays hidden.
    assert client.get("/v1/packs/moon.garden/reader", headers=alice).status_code == 200
    pack = client.get("/v1/packs/moon.garden", headers=alice).json()
    assert pack["takedown"]["reason"] == "rights complaint #12"
    assert "by" not in pack["takedown"]
    kinds = [e["kind"] for e in client.get("/v1/packs/moon.garden/events", headers=alice).json()["events"]]
    assert kinds[-1] == "takedown"
    upload(client, published_bytes(revision=2), alice)
    publish(client, "moon.garden", 2, alice)
    assert _catalog_ids(client) == []
    assert client.get("/v1/packs/moon.garden/reader").status_code == 404
    back = client.delete("/v1/admin/packs/moon.garden/takedown", headers=root)
    assert (back.status_code, back.json()["takedown"]) == (200, None)
    assert _catalog_ids(client) == ["moon.garden"]
    assert client.get("/v1/packs/moon.garden/reader").json()["revision"] == 2
    assert client.delete("/v1/admin/packs/moon.garden/takedown", headers=root).status_code == 404  # not taken down
    journal = client.get("/v1/admin/events", headers=root).json()["events"]
    assert [(e["kind"], e["pack_id"]) for e in journal] == [
        ("role", None),  # root made an admin (from the command line)
        ("takedown", "moon.garden"),
        ("restore", "moon.garden"),
    ]
    assert (journal[0]["account"], journal[0]["target_account"], journal[0]["detail"]) == ("-", "root", "admin")


def test_a_takedown_stops_other_accounts_sessions_at_once(client: TestClient) -> None:
    alice, host, root = issue(client, "alice"), issue(client, "narrator", "host"), _admin(client)
    upload(client, harbour_bytes(), alice)
    publish(client, "harbour", 1, alice)
    session = client.post("/v1/packs/harbour/sessions", json={}, headers=host).json()["session_id"]
    assert client.post(f"/v1/sessions/{session}/turns", json={"turn": 1}, headers=host).status_code == 200
    client.post("/v1/admin/packs/harbour/takedown", json={"reason": "review"}, headers=root)
    turn = client.post(f"/v1/sessions/{session}/turns", json={"turn": 2}, headers=host)
    assert turn.status_code == 404
    assert client.get(f"/v1/sessions/{session}/transcript", headers=host).status_code == 200  # what they were shown
    client.delete("/v1/admin/packs/harbour/takedown", headers=root)
    assert client.post(f"/v1/sessions/{session}/turns", json={"turn": 2}, headers=host).status_code == 200


def test_a_disabled_account_loses_its_tokens_and_its_packs_until_enabled(client: TestClient) -> None:
    alice, root = issue(client, "alice"), _admin(client)
    _published(client, alice)
    _published(client, alice, "second.pack")
    assert sorted(_catalog_ids(client)) == ["moon.garden", "second.pack"]
    assert client.get("/v1/packs/moon.garden", headers=alice).status_code == 200  # the token is checked and cached
    done = client.post("/v1/admin/accounts/alice/disable", json={"reason": "spam wave"}, headers=root)
    assert (done.status_code, done.json()["disabled_reason"]) == (200, "spam wave")
    refused = client.get("/v1/packs/moon.garden", headers=alice)
    assert (refused.status_code, refused.json()["detail"]) == (401, "the token's account is disabled")
    assert client.get("/v1/packs/moon.garden/revisions/1", headers=alice).status_code == 401  # the fast path too
    assert _catalog_ids(client) == []
    assert client.get("/v1/packs/second.pack/reader").status_code == 404
    listed = {a["name"]: a for a in client.get("/v1/admin/accounts", headers=root).json()["accounts"]}
    assert listed["alice"]["disabled"] is not None
    packs = client.get("/v1/admin/packs", params={"owner": "alice"}, headers=root).json()["packs"]
    assert [(p["pack_id"], p["owner_disabled"]) for p in packs] == [("moon.garden", True), ("second.pack", True)]
    assert client.post("/v1/admin/accounts/alice/enable", headers=root).status_code == 200
    assert client.get("/v1/packs/moon.garden", headers=alice).status_code == 200
    assert sorted(_catalog_ids(client)) == ["moon.garden", "second.pack"]
    kinds = [e["kind"] for e in client.get("/v1/admin/events", headers=root).json()["events"]]
    assert kinds == ["role", "disable", "enable"]
    assert client.post("/v1/admin/accounts/nobody/enable", headers=root).status_code == 404
    own = client.post("/v1/admin/accounts/root/disable", json={"reason": "oops"}, headers=root)
    assert own.status_code == 403


def test_readers_report_packs_and_admins_resolve_them(client: TestClient) -> None:
    alice, root = issue(client, "alice"), _admin(client)
    _published(client, alice)
    reader = issue(client, "reader1", "reader")
    first = client.post("/v1/packs/moon.garden/reports", json={"reason": "spam", "details": "ads"}, headers=reader)
    assert first.status_code == 201
    assert (first.json()["reporter"], first.json()["reason"]) == ("reader1", "spam")
    anonymous = client.post("/v1/packs/moon.garden/reports", json={"reason": "rights"})
    assert (anonymous.status_code, anonymous.json()["reporter"]) == (201, None)
    assert _status(client.post("/v1/packs/moon.garden/reports", json={"reason": "boring"})) == (
        400,
        "invalid-request",
    )
    assert client.post("/v1/packs/no.such.pack/reports", json={"reason": "spam"}).status_code == 404
    upload(client, published_bytes(pack_id="private.one", visibility="private"), alice)
    publish(client, "private.one", 1, alice)
    assert client.post("/v1/packs/private.one/reports", json={"reason": "spam"}).status_code == 404
    open_reports = client.get("/v1/admin/reports", headers=root).json()["reports"]
    assert [r["id"] for r in open_reports] == [first.json()["id"], anonymous.json()["id"]]
    report_id = first.json()["id"]
    resolved = client.post(f"/v1/admin/reports/{report_id}/resolve", json={"note": "not spam"}, headers=root)
    assert resolved.status_code == 204
    assert client.post(f"/v1/admin/reports/{report_id}/resolve", json={"note": "x"}, headers=root).status_code == 404
    assert [r["id"] for r in client.get("/v1/admin/reports", headers=root).json()["reports"]] == [
        anonymous.json()["id"]
    ]
    done = client.get("/v1/admin/reports", params={"status": "resolved"}, headers=root).json()["reports"]
    assert (done[0]["resolution"], done[0]["resolved_by"]) == ("not spam", "root")
    journal = client.get("/v1/admin/events", headers=root).json()["events"]
    assert journal[-1]["kind"] == "report-resolve"


@pytest.fixture
def limited_reports(settings: Settings) -> Settings:
    """The settings with at most two reports an hour per reporter."""
    from dataclasses import replace

    return replace(settings, rate_reports=RateLimit(2, 3600))


def test_reports_are_rate_limited_per_reporter(limited_reports: Settings) -> None:
    from creatorpack.service.app import create_app

    with TestClient(create_app(limited_reports)) as client:
        alice = issue(client, "alice")
        _published(client, alice)
        statuses = [client.post("/v1/packs/moon.garden/reports", json={"reason": "spam"}).status_code for _ in range(3)]
        assert statuses == [201, 201, 429]
        refused = client.post("/v1/packs/moon.garden/reports", json={"reason": "spam"})
        assert refused.json()["type"] == "urn:creatorpack:problem:rate-limited"
        assert int(refused.headers["retry-after"]) > 0
        # Another reporter (an account) has a limit of its own.
        reader = issue(client, "reader1", "reader")
        assert client.post("/v1/packs/moon.garden/reports", json={"reason": "spam"}, headers=reader).status_code == 201


def test_an_admin_makes_tokens_without_the_command_line(client: TestClient) -> None:
    root = _admin(client)
    made = client.post(
        "/v1/admin/accounts/newcomer/tokens", json={"scope": "creator", "expires_in": 3600}, headers=root
    )
    assert made.status_code == 201
    body = made.json()
    assert body["account"] == "newcomer"
    assert body["expires"] is not None
    token = {"Authorization": f"Bearer {body['token']}"}
    assert client.post("/v1/packs", content=published_bytes(), headers={**token, **JSON}).status_code == 201
    bad = client.post("/v1/admin/accounts/Not A Name/tokens", json={"scope": "creator"}, headers=root)
    assert _status(bad) == (400, "invalid-request")
    journal = client.get("/v1/admin/events", headers=root).json()["events"]
    assert (journal[-1]["kind"], journal[-1]["target_account"]) == ("token-create", "newcomer")


def test_admin_lists_page(client: TestClient) -> None:
    root = _admin(client)
    for name in ("a1", "a2", "a3"):
        issue(client, name)
    first = client.get("/v1/admin/accounts", params={"limit": 2}, headers=root).json()
    assert [a["name"] for a in first["accounts"]] == ["a1", "a2"]
    rest = client.get("/v1/admin/accounts", params={"after": first["next"]}, headers=root).json()
    assert [a["name"] for a in rest["accounts"]] == ["a3", "root"]
    assert rest["next"] is None
