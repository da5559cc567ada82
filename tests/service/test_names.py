"""Pack ids normalized for ownership (PEP 503), account names, and migration 0004 on a database that collides."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert, select

from creatorpack.service.app import create_app
from creatorpack.service.names import account_problem, normalize_pack_id
from creatorpack.service.settings import Settings
from creatorpack.service.store import connect
from creatorpack.service.store.tables import accounts, packs
from tests.service.conftest import JSON, issue, pack_bytes


@pytest.mark.parametrize(
    ("pack_id", "normalized"),
    [
        ("harbour-light", "harbour-light"),
        ("Harbour-light", "harbour-light"),
        ("harbour_light", "harbour-light"),
        ("HARBOUR.LIGHT", "harbour-light"),
        ("harbour-_.-light", "harbour-light"),
        ("a", "a"),
        ("A1.b2", "a1-b2"),
    ],
)
def test_pack_ids_normalize_as_pypi_names(pack_id: str, normalized: str) -> None:
    assert normalize_pack_id(pack_id) == normalized


@pytest.mark.parametrize("name", ["alice", "a", "a1", "bob.smith", "x_y-z", "0day", "a" * 40])
def test_account_names_that_fit(name: str) -> None:
    assert account_problem(name) is None


@pytest.mark.parametrize(
    "name", ["", "Alice", "x y/../é", "-x", "x-", "x.", "a" * 41, "é", "a\n", "a\x00", "a/b", "a b"]
)
def test_account_names_that_do_not(name: str) -> None:
    assert account_problem(name) is not None


@pytest.mark.parametrize("spelling", ["Harbour-light", "harbour_light", "HARBOUR.LIGHT", "harbour--light"])
def test_another_spelling_of_a_held_id_is_taken_for_everyone(client: TestClient, spelling: str) -> None:
    alice, mallory = issue(client, "alice"), issue(client, "mallory")
    assert client.post("/v1/packs", content=pack_bytes("harbour-light"), headers={**alice, **JSON}).status_code == 201
    for who in (mallory, alice):  # the holder too: one name, one pack
        response = client.post("/v1/packs", content=pack_bytes(spelling), headers={**who, **JSON})
        assert response.status_code == 409
        body = response.json()
        assert body["type"] == "urn:creatorpack:problem:pack-id-taken"
        assert "harbour-light" in body["detail"]
        assert "alice" not in body["detail"]
    # The holder keeps uploading under the id as written; the catalog keeps it as written.
    again = client.post("/v1/packs", content=pack_bytes("harbour-light", revision=2), headers={**alice, **JSON})
    assert again.status_code == 201


def test_a_pack_limited_token_may_act_on_any_spelling_of_its_packs(client: TestClient) -> None:
    alice = issue(client, "alice")
    token, _ = client.app.state.services.auth.issue("alice", "creator", packs=["Moon_Garden"])  # type: ignore[attr-defined]
    limited = {"Authorization": f"Bearer {token}"}
    assert client.post("/v1/packs", content=pack_bytes("moon.garden"), headers={**limited, **JSON}).status_code == 201
    other = client.post("/v1/packs", content=pack_bytes("other.pack"), headers={**limited, **JSON})
    assert (other.status_code, other.json()["type"]) == (403, "urn:creatorpack:problem:forbidden")
    assert client.post("/v1/packs", content=pack_bytes("other.pack"), headers={**alice, **JSON}).status_code == 201
    assert client.get("/v1/packs/moon.garden", headers=limited).status_code == 200
    assert client.get("/v1/packs/other.pack", headers=limited).status_code == 403
    assert client.get("/v1/packs/other.pack/revisions/1", headers=alice).status_code == 200  # cached for alice
    assert client.get("/v1/packs/other.pack/revisions/1", headers=limited).status_code == 403  # not by the fast path


def test_migration_0004_reports_ids_that_collide_and_keeps_every_pack(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    database = connect(settings.url, schema=settings.database_schema)
    try:
        database.upgrade("0003")
        when = datetime(2026, 1, 1, tzinfo=UTC)
        with database.write() as conn:
            for name in ("alice", "mallory"):
                conn.execute(insert(accounts).values(name=name, created=when))
            ids = {row.name: row.id for row in conn.execute(select(accounts.c.name, accounts.c.id))}
            rows = [
                ("harbour-light", ids["alice"], 1),
                ("Harbour_Light", ids["mallory"], 2),  # later: it collides with alice's
                ("moon.garden", ids["alice"], 3),
            ]
            for pack_id, owner, day in rows:
                conn.execute(
                    insert(packs).values(
                        pack_id=pack_id,
                        account_id=owner,
                        created=when.replace(day=day),
                        latest_revision=0,
                        published_revision=None,
                        visibility="private",
                    )
                )
        with caplog.at_level(logging.WARNING, logger="creatorpack.service"):
            database.upgrade()
        collisions = [r.getMessage() for r in caplog.records if "collide" in r.getMessage()]
        assert len(collisions) == 1
        assert "'harbour-light'" in collisions[0]
        assert "'Harbour_Light'" in collisions[0]
        with database.read() as conn:
            kept = {
                row.pack_id: row.normalized_id for row in conn.execute(select(packs.c.pack_id, packs.c.normalized_id))
            }
        assert kept == {"harbour-light": "harbour-light", "Harbour_Light": None, "moon.garden": "moon-garden"}
    finally:
        database.dispose()
    with TestClient(create_app(settings)) as client:
        mallory, eve = issue(client, "mallory"), issue(client, "eve")
        # The pack that lost the name still takes its owner's revisions; nobody else gets either spelling.
        own = client.post("/v1/packs", content=pack_bytes("Harbour_Light"), headers={**mallory, **JSON})
        assert own.status_code == 201
        for spelling in ("harbour-light", "Harbour_Light", "HARBOUR-LIGHT"):
            taken = client.post("/v1/packs", content=pack_bytes(spelling, revision=5), headers={**eve, **JSON})
            assert taken.status_code == 409, spelling
