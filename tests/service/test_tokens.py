"""Tokens a creator manages over the API and the command line: expiry, last use, pack limits, revocation."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from creatorpack.cli import app as cli_app
from creatorpack.service.app import create_app
from creatorpack.service.memory import FixedClock
from creatorpack.service.settings import Settings
from tests.service.conftest import JSON, issue, pack_bytes
from tests.service.test_cli import _env

START = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.fixture
def clocked(settings: Settings) -> Iterator[tuple[TestClient, FixedClock]]:
    """A client whose service tells the time by a clock the test moves."""
    clock = FixedClock(START)
    with TestClient(create_app(settings, clock=clock)) as client:
        yield client, clock


def _bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def test_a_creator_makes_lists_and_revokes_its_own_tokens(client: TestClient) -> None:
    alice, bob = issue(client, "alice"), issue(client, "bob")
    made = client.post(
        "/v1/tokens", json={"scope": "creator", "name": "CI uploads", "packs": ["Moon_Garden"]}, headers=alice
    )
    assert made.status_code == 201
    assert made.headers["cache-control"] == "no-store"
    body = made.json()
    assert (body["account"], body["scope"], body["name"], body["packs"]) == (
        "alice",
        "creator",
        "CI uploads",
        ["moon-garden"],
    )
    assert body["token"].startswith("cpt_")
    new = _bearer(body["token"])
    assert client.post("/v1/packs", content=pack_bytes("moon.garden"), headers={**new, **JSON}).status_code == 201
    listed = client.get("/v1/tokens", headers=alice).json()["tokens"]
    assert [t["name"] for t in listed] == [None, "CI uploads"]
    assert all("token" not in t for t in listed)  # never a secret again
    assert all(t["account"] == "alice" for t in listed)
    assert [t["account"] for t in client.get("/v1/tokens", headers=bob).json()["tokens"]] == ["bob"]
    # Another account's token is not found; the pack-limited token sees and revokes only itself.
    assert client.delete(f"/v1/tokens/{listed[0]['id']}", headers=bob).status_code == 404
    assert [t["id"] for t in client.get("/v1/tokens", headers=new).json()["tokens"]] == [body["id"]]
    assert client.delete(f"/v1/tokens/{listed[0]['id']}", headers=new).status_code == 403
    assert client.delete(f"/v1/tokens/{body['id']}", headers=alice).status_code == 204
    refused = client.get("/v1/packs/moon.garden", headers=new)
    assert refused.status_code == 401
    assert client.delete(f"/v1/tokens/{body['id']}", headers=alice).status_code == 404  # revoked already


@pytest.mark.parametrize(
    ("caller_scope", "asked", "status"),
    [
        ("creator", "creator", 201),
        ("creator", "reader", 403),
        ("creator", "admin", 403),
        ("host", "host", 201),
        ("reader", "creator", 403),
        ("admin", "reader", 201),
        ("admin", "admin", 201),
    ],
)
def test_a_token_makes_none_more_powerful_than_itself(
    client: TestClient, caller_scope: str, asked: str, status: int
) -> None:
    caller = issue(client, "alice", caller_scope)
    assert client.post("/v1/tokens", json={"scope": asked}, headers=caller).status_code == status


def test_a_pack_limited_token_makes_no_tokens(client: TestClient) -> None:
    issue(client, "alice")
    secret, _ = client.app.state.services.auth.issue("alice", "admin", packs=["moon.garden"])  # type: ignore[attr-defined]
    refused = client.post("/v1/tokens", json={"scope": "reader"}, headers=_bearer(secret))
    assert (refused.status_code, refused.json()["type"]) == (403, "urn:creatorpack:problem:forbidden")


@pytest.mark.parametrize(
    "body",
    [
        {"scope": "creator", "expires_in": 0},
        {"scope": "creator", "expires_in": -5},
        {"scope": "creator", "expires_in": "3600"},
        {"scope": "creator", "expires_in": 10**12},
        {"scope": "creator", "packs": []},
        {"scope": "creator", "packs": ["not an id"]},
        {"scope": "creator", "name": ""},
        {"scope": "root"},
        {"scope": "creator", "extra": 1},
        {},
    ],
)
def test_bad_token_requests_are_400(client: TestClient, body: dict[str, object]) -> None:
    response = client.post("/v1/tokens", json=body, headers=issue(client))
    assert (response.status_code, response.json()["type"]) == (400, "urn:creatorpack:problem:invalid-request")


def test_tokens_expire_and_their_children_expire_no_later(clocked: tuple[TestClient, FixedClock]) -> None:
    client, clock = clocked
    alice = issue(client, "alice")
    made = client.post("/v1/tokens", json={"scope": "creator", "expires_in": 3600}, headers=alice).json()
    assert made["expires"] == (START + timedelta(hours=1)).isoformat()
    short = _bearer(made["token"])
    assert client.get("/v1/tokens", headers=short).status_code == 200
    unbounded = client.post("/v1/tokens", json={"scope": "creator"}, headers=short)
    assert unbounded.status_code == 400
    assert "expire no later" in unbounded.json()["detail"]
    assert client.post("/v1/tokens", json={"scope": "creator", "expires_in": 7200}, headers=short).status_code == 400
    assert client.post("/v1/tokens", json={"scope": "creator", "expires_in": 60}, headers=short).status_code == 201
    clock.advance(3600)
    expired = client.get("/v1/tokens", headers=short)
    assert (expired.status_code, expired.json()["detail"]) == (401, "the token has expired")
    assert client.get("/v1/tokens", headers=alice).status_code == 200  # no expiry


def test_last_used_is_kept_to_the_minute(clocked: tuple[TestClient, FixedClock]) -> None:
    client, clock = clocked
    alice = issue(client, "alice")
    services = client.app.state.services  # type: ignore[attr-defined]
    assert services.auth.tokens("alice")[0].last_used is None
    client.get("/v1/tokens", headers=alice)
    assert services.auth.tokens("alice")[0].last_used == START
    clock.advance(30)
    services.auth.authenticate(alice["Authorization"])
    assert services.auth.tokens("alice")[0].last_used == START  # not written again within the minute
    clock.advance(31)
    services.auth.authenticate(alice["Authorization"])
    assert services.auth.tokens("alice")[0].last_used == START + timedelta(seconds=61)


def _run(settings: Settings, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli_app, list(args), env=_env(settings))
    return result.exit_code, result.stdout, result.stderr


def test_token_create_takes_expiry_packs_and_a_name(settings: Settings) -> None:
    assert _run(settings, "db", "upgrade")[0] == 0
    code, _, err = _run(
        settings, "token", "create", "--account", "alice", "--scope", "creator",
        "--expires", "30d", "--pack", "Moon_Garden", "--pack", "other", "--name", "ci",
    )  # fmt: skip
    assert code == 0, err
    code, _, _ = _run(settings, "token", "create", "--account", "alice", "--scope", "reader", "--expires", "2099-01-31")
    assert code == 0
    rows = [line.split("\t") for line in _run(settings, "token", "list")[1].splitlines()]
    first, second = rows
    assert first[5] != "-"
    assert datetime.fromisoformat(first[5]) > datetime.now(UTC) + timedelta(days=29)
    assert (first[7], first[8]) == ("moon-garden,other", "ci")
    assert second[5] == "2099-01-31T00:00:00+00:00"
    assert (second[7], second[8]) == ("-", "-")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--expires", "soon"], "write a duration"),
        (["--expires", "0d"], "above 0"),
        (["--expires", "2001-01-01"], "in the future"),
        (["--account", "x y/../é"], "an account name is"),
        (["--account", "Alice"], "an account name is"),
    ],
)
def test_token_create_refuses_what_cannot_work(settings: Settings, args: list[str], message: str) -> None:
    assert _run(settings, "db", "upgrade")[0] == 0
    base = {"--account": "alice", "--scope": "creator", **dict(zip(args[::2], args[1::2], strict=True))}
    code, out, err = _run(settings, "token", "create", *[part for pair in base.items() for part in pair])
    assert (code, out) == (2, "")
    assert message in err


def test_account_commands(settings: Settings) -> None:
    assert _run(settings, "db", "upgrade")[0] == 0
    _run(settings, "token", "create", "--account", "root", "--scope", "admin")
    assert _run(settings, "account", "set-role", "root", "admin")[0] == 0
    assert _run(settings, "account", "set-role", "root", "king")[0] == 2
    assert _run(settings, "account", "set-role", "nobody", "admin")[0] == 1
    assert _run(settings, "account", "disable", "root", "--reason", "  ")[0] == 2
    assert _run(settings, "account", "disable", "root", "--reason", "left the team")[0] == 0
    code, out, _ = _run(settings, "account", "list")
    assert code == 0
    name, role, _created, disabled, reason = out.splitlines()[0].split("\t")
    assert (name, role, reason) == ("root", "admin", "left the team")
    assert disabled != "-"
    assert _run(settings, "account", "enable", "root")[0] == 0
    assert _run(settings, "account", "list")[1].splitlines()[0].split("\t")[3] == "-"
    assert _run(settings, "account", "enable", "nobody")[0] == 1
