"""The web pages' domain calls: Sessions.restart and prompts, Shelf, ReaderDocument.owned."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from creatorpack.play import Turn
from creatorpack.service.errors import ConflictError
from creatorpack.service.ports import TokenRecord
from creatorpack.service.shelf import Shelf
from creatorpack.service.store import SqlModerationStore
from tests.conftest import EXAMPLES
from tests.service.sessions_support import issue, publish, rich_bytes, upload

TURNS = [
    {"observations": {"helped_stranger": True}},
    {"observations": {"met_mara": True}, "illustration_matches": ["rule_quay"]},
    json.loads((EXAMPLES / "0.5" / "playthrough.jsonl").read_text().splitlines()[0]),
]


def _token(client: TestClient, account: str, scope: str) -> TokenRecord:
    header = issue(client, account, scope)
    record: TokenRecord = client.app.state.services.auth.authenticate(header["Authorization"])  # type: ignore[attr-defined]
    return record


def test_restart_replays_all_but_the_last_turn_for_a_reader(client: TestClient) -> None:
    owner = issue(client, "alice")
    upload(client, rich_bytes("0.5"), owner)
    publish(client, "harbour-light", 3, owner)
    sessions = client.app.state.services.sessions  # type: ignore[attr-defined]
    reader = _token(client, "bob", "reader")
    begun = sessions.start(reader, "harbour-light")
    for number, line in enumerate(TURNS, 1):
        sessions.turn(reader, begun.session_id, number, Turn.from_json(line))
    full = sessions.read(reader, begun.session_id)
    undone = sessions.restart(reader, begun.session_id, keep=2)
    assert undone.session_id != begun.session_id
    assert undone.turn == 2
    sessions.turn(reader, undone.session_id, 3, Turn.from_json(TURNS[2]))
    assert sessions.read(reader, undone.session_id).to_json()["current"] == full.to_json()["current"]
    over = sessions.restart(reader, begun.session_id)
    assert over.turn == 0
    assert sessions.read(reader, begun.session_id).turn == 3  # the old session is left as it was
    assert sessions.prompts(reader, begun.session_id) is None  # a reader is shown no observation


def test_prompts_for_the_narrator_and_migrated_sessions_are_not_replayed(client: TestClient) -> None:
    owner = issue(client, "alice")
    upload(client, rich_bytes("0.5"), owner)
    publish(client, "harbour-light", 3, owner)
    sessions = client.app.state.services.sessions  # type: ignore[attr-defined]
    host = _token(client, "hank", "host")
    begun = sessions.start(host, "harbour-light")
    prompts = sessions.prompts(host, begun.session_id)
    assert prompts is not None
    assert {o["id"] for o in prompts.observations} >= {"helped_stranger", "lamp_choice"}
    assert {r["id"] for r in prompts.illustration_rules} >= {"rule_quay"}
    assert prompts.endings["keeper_of_the_light"]["title"] == "Keeper of the Light"
    assert prompts.content["opening_text"].startswith("The last ferry")
    newer = json.loads(rich_bytes("0.5"))
    newer["manifest"]["revision"] = 4
    upload(client, json.dumps(newer).encode(), owner)
    publish(client, "harbour-light", 4, owner)
    sessions.migrate(host, begun.session_id, 4)
    with pytest.raises(ConflictError):
        sessions.restart(host, begun.session_id)


def test_shelf_lists_only_the_accounts_own_packs(client: TestClient) -> None:
    upload(client, rich_bytes("0.5"), issue(client, "alice"))
    upload(client, rich_bytes("0.4"), issue(client, "bob"))
    shelf = Shelf(SqlModerationStore(client.app.state.database))  # type: ignore[attr-defined]
    assert [p.pack_id for p in shelf.packs_of("alice")] == ["harbour-light"]
    assert all(p.owner == "bob" for p in shelf.packs_of("bob"))
    assert shelf.packs_of("carol") == []


def test_a_reader_document_says_whether_the_caller_owns_the_pack(client: TestClient) -> None:
    upload(client, rich_bytes("0.5"), issue(client, "alice"))
    publish(client, "harbour-light", 3, issue(client, "alice"))
    packs = client.app.state.services.packs  # type: ignore[attr-defined]
    assert packs.reader("alice", "harbour-light").owned
    assert not packs.reader("bob", "harbour-light").owned
    assert not packs.reader(None, "harbour-light").owned
