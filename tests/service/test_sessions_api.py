"""Play sessions over HTTP end to end, on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from creatorpack.cli import app as cli
from creatorpack.play import Engine, Session
from creatorpack.service.app import create_app
from creatorpack.service.ports import BlobStore
from creatorpack.service.settings import Settings
from tests.conftest import EXAMPLES, example
from tests.service.sessions_support import (
    ASSETS,
    JSON,
    harbour,
    harbour_bytes,
    issue,
    narrowed,
    publish,
    put_assets,
    rich_bytes,
    start,
    unpublish,
    upload,
)
from tests.test_views import READER_FIELDS  # the one allow-list of the reader view

PROBLEM = "application/problem+json"
SESSION_FIELDS = {"session_id", "pack_id", "revision", "entry", "turn", "over", "view", "current"}


def turn(client: TestClient, sid: str, headers: dict[str, str], number: int, **body: Any) -> Any:
    return client.post(f"/v1/sessions/{sid}/turns", json={"turn": number, **body}, headers=headers)


def problem(response: Any, status: int, name: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body: dict[str, Any] = response.json()
    assert body["type"] == f"urn:creatorpack:problem:{name}"
    return body


def test_the_owner_plays_with_the_full_turn(client: TestClient) -> None:
    alice = issue(client)
    upload(client, harbour_bytes(), alice)
    started = start(client, "harbour", alice)
    reference = Session.start(Engine.from_source(harbour()))
    assert reference.last is not None
    assert set(started) == {*SESSION_FIELDS, "save"}
    assert (started["view"], started["revision"], started["turn"], started["entry"]) == ("narrator", 1, 0, "opening")
    assert started["current"] == reference.last.to_json()
    sid = started["session_id"]
    played = turn(client, sid, alice, 1, observations={"helped": True}, illustration_matches=["r1"])
    assert played.status_code == 200
    assert played.json() == reference.turn({"helped": True}, ["r1"]).to_json()
    read = client.get(f"/v1/sessions/{sid}", headers=alice).json()
    assert (read["turn"], read["over"]) == (1, False)
    assert read["current"] == played.json()
    assert read["save"] == reference.state.to_json(reference.engine.schema)
    transcript = client.get(f"/v1/sessions/{sid}/transcript", headers=alice).json()
    assert transcript["view"] == "narrator"
    assert [(e["seq"], e["kind"], e["turn"]) for e in transcript["entries"]] == [(0, "start", 0), (1, "turn", 1)]
    assert transcript["entries"][1]["request"] == {
        "turn": 1,
        "observations": {"helped": True},
        "illustration_matches": ["r1"],
    }
    assert transcript["entries"][1]["result"] == played.json()


def _narrator_strings(pack: dict[str, Any]) -> set[str]:
    """Strings only the narrator may see: observation, rule and state member ids, instructions, questions."""
    runtime = pack["runtime"]
    found = {o["id"] for o in runtime["observations"]} | {o["question"] for o in runtime["observations"]}
    found |= {r["id"] for r in runtime["rules"]} | {r["instruction"] for r in runtime["rules"] if "instruction" in r}
    found |= set(runtime["state"]["schema"]["properties"])
    found |= {c["id"] for c in pack.get("content", [])} | {c["text"] for c in pack.get("content", [])}
    return found


@pytest.mark.parametrize("version", ["0.3", "0.4", "0.5"])
def test_a_reader_sees_the_reader_view_and_nothing_else(client: TestClient, version: str) -> None:
    alice, rita = issue(client), issue(client, "rita", "reader")
    pack = example(version, "rich")
    upload(client, rich_bytes(version), alice)
    pack_id, revision = pack["manifest"]["pack_id"], pack["manifest"]["revision"]
    publish(client, pack_id, revision, alice)
    started = start(client, pack_id, rita)
    assert set(started) == SESSION_FIELDS
    assert started["view"] == "reader"
    assert set(started["current"]) == READER_FIELDS
    sid = started["session_id"]
    bodies = [client.post(f"/v1/packs/{pack_id}/sessions", json={}, headers=rita).text]
    script = (EXAMPLES / version / "playthrough.jsonl").read_text().splitlines()
    reference = Session.start(Engine(pack))
    for number, line in enumerate((line for line in script if line.strip() and not line.startswith("#")), 1):
        asked = json.loads(line)
        response = turn(client, sid, rita, number, **asked)
        assert set(response.json()) == READER_FIELDS
        expected = reference.turn(asked.get("observations", {}), asked.get("illustration_matches", []))
        assert response.json() == expected.reader_view().to_json()
        bodies.append(response.text)
        if expected.over:
            break
    bodies.append(turn(client, sid, rita, 99).text)
    bodies.append(turn(client, sid, rita, 1, observations={"no_such_thing": True}).text)
    bodies += [client.get(f"/v1/sessions/{sid}{path}", headers=rita).text for path in ("", "/transcript", "/assets/x")]
    transcript = client.get(f"/v1/sessions/{sid}/transcript", headers=rita).json()
    entry_fields = {"seq", "kind", "turn", "revision", "at", "view", "narration"}
    assert {key for e in transcript["entries"] for key in e} == entry_fields
    secrets = {s for s in _narrator_strings(pack) if len(s) > 3}
    ids = {i for body in bodies for i in _strings(json.loads(body))}
    leaked = secrets & ids
    assert not leaked, leaked
    assert all(f'"{s}"' not in body for body in bodies for s in secrets)


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value).union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def test_who_may_start_where(client: TestClient) -> None:
    alice, bob = issue(client), issue(client, "bob", "creator")
    host, rita, root = issue(client, "hal", "host"), issue(client, "rita", "reader"), issue(client, "root", "admin")
    upload(client, harbour_bytes(1, "private"), alice)
    upload(client, harbour_bytes(2), alice)
    upload(client, harbour_bytes(3), alice)
    for who in (bob, host, rita, root):
        body = problem(client.post("/v1/packs/harbour/sessions", headers=who), 404, "not-found")
        assert body["detail"] == "no pack 'harbour' for this account"
    publish(client, "harbour", 1, alice)  # private
    problem(client.post("/v1/packs/harbour/sessions", headers=rita), 404, "not-found")
    publish(client, "harbour", 2, alice)  # public
    assert start(client, "harbour", rita)["revision"] == 2
    assert start(client, "harbour", host)["view"] == "narrator"
    assert start(client, "harbour", root)["view"] == "narrator"
    problem(client.post("/v1/packs/harbour/sessions", headers=bob), 404, "not-found")
    refused = client.post("/v1/packs/harbour/sessions", json={"revision": 3}, headers=host)
    assert problem(refused, 404, "not-found")["detail"].startswith("pack 'harbour' has no published revision 3")
    assert start(client, "harbour", alice, revision=3)["revision"] == 3
    assert start(client, "harbour", alice)["revision"] == 2  # the owner's default: the published revision
    unpublish(client, "harbour", alice)
    problem(client.post("/v1/packs/harbour/sessions", headers=rita), 404, "not-found")
    assert start(client, "harbour", alice)["revision"] == 3  # unpublished: the latest live revision
    publish(client, "harbour", 2, alice)
    assert start(client, "harbour", alice, entry="late")["save"]["state"]["trust"] == 5
    for who in (alice, host, rita):
        missing = problem(
            client.post("/v1/packs/harbour/sessions", json={"entry": "nowhere"}, headers=who), 422, "not-playable"
        )
        # The runtime's entry ids are the narrator's; this pack's entries name none a reader could be told.
        told = "no entry 'nowhere'" if who is rita else "no runtime entry 'nowhere'; the entries are opening, late"
        assert missing["detail"] == told
        assert missing["problems"] == []
    assert client.post("/v1/packs/harbour/sessions").status_code == 401


def test_a_creator_of_other_packs_starts_nothing_and_sees_its_accounts_sessions_as_a_reader(
    client: TestClient,
) -> None:
    """The docs' row "creator of other packs": 404 to start or migrate; the reader view of the account's sessions."""
    alice, bob, bob_host = issue(client), issue(client, "bob", "creator"), issue(client, "bob", "host")
    upload(client, harbour_bytes(1), alice)
    publish(client, "harbour", 1, alice)
    problem(client.post("/v1/packs/harbour/sessions", headers=bob), 404, "not-found")
    started = start(client, "harbour", bob_host)  # the account's session, started with its host token
    assert started["view"] == "narrator"
    sid = started["session_id"]
    seen = client.get(f"/v1/sessions/{sid}", headers=bob).json()
    assert seen["view"] == "reader"
    assert "save" not in seen
    played = turn(client, sid, bob, 1, observations={"helped": True})
    assert played.status_code == 200, played.text
    assert "narrator" not in played.json()
    assert "state" not in played.json()
    assert {
        e.get("view") is not None for e in client.get(f"/v1/sessions/{sid}/transcript", headers=bob).json()["entries"]
    } == {True}
    migrated = client.post(f"/v1/sessions/{sid}/migrate", json={"revision": 1}, headers=bob)
    problem(migrated, 404, "not-found")


def test_turn_numbers_retries_and_the_ending(client: TestClient) -> None:
    alice = issue(client)
    upload(client, harbour_bytes(), alice)
    sid = start(client, "harbour", alice, entry="late")["session_id"]
    assert problem(turn(client, sid, alice, 2), 409, "turn-conflict")["current_turn"] == 0
    first = turn(client, sid, alice, 1, observations={"way": "south"})
    assert first.status_code == 200
    again = turn(client, sid, alice, 1, observations={"way": "south"}, illustration_matches=[])
    assert again.status_code == 200
    assert again.content == first.content
    other = problem(turn(client, sid, alice, 1, observations={"way": "north"}), 409, "turn-conflict")
    assert other["current_turn"] == 1
    assert other["detail"] == "turn 1 was already played with another body; the next turn is 2"
    assert len(client.get(f"/v1/sessions/{sid}/transcript", headers=alice).json()["entries"]) == 2
    ended = turn(client, sid, alice, 2, observations={"helped": True})
    assert ended.json()["ending"] == "good"
    over = problem(turn(client, sid, alice, 3, observations={"helped": True}), 409, "session-over")
    assert over["current_turn"] == 2
    assert over["detail"] == "the session reached the ending 'good' at turn 2; it takes no more turns"
    assert turn(client, sid, alice, 2, observations={"helped": True}).content == ended.content
    assert client.get(f"/v1/sessions/{sid}", headers=alice).json()["over"] is True


@pytest.mark.parametrize(
    ("number", "observations"),
    [(7, {"helped": True}), (3, {"helped": True}), (2, {"way": "north"}), (1, {"way": "south"})],
    ids=["later", "next", "last-with-another-body", "earlier"],
)
def test_an_ended_session_refuses_every_turn_but_the_retry_as_over(
    client: TestClient, number: int, observations: dict[str, Any]
) -> None:
    alice = issue(client)
    upload(client, harbour_bytes(), alice)
    sid = start(client, "harbour", alice, entry="late")["session_id"]
    assert turn(client, sid, alice, 1, observations={"way": "south"}).status_code == 200
    ended = turn(client, sid, alice, 2, observations={"helped": True})
    assert ended.json()["ending"] == "good"
    over = problem(turn(client, sid, alice, number, observations=observations), 409, "session-over")
    assert over["detail"] == "the session reached the ending 'good' at turn 2; it takes no more turns"
    assert over["current_turn"] == 2
    assert turn(client, sid, alice, 2, observations={"helped": True}).content == ended.content


def test_a_turn_on_a_deleted_revision_is_a_documented_revision_conflict(client: TestClient) -> None:
    alice = issue(client)
    upload(client, harbour_bytes(1), alice)
    upload(client, harbour_bytes(2), alice)
    publish(client, "harbour", 1, alice)
    sid = start(client, "harbour", alice, revision=2)["session_id"]
    assert client.delete("/v1/packs/harbour/revisions/2", headers=alice).status_code == 204
    conflict = problem(turn(client, sid, alice, 1, observations={"helped": True}), 409, "revision-conflict")
    assert (conflict["reason"], conflict["latest_revision"]) == ("deleted", 2)
    operation = client.get("/openapi.json").json()["paths"]["/v1/sessions/{session_id}/turns"]["post"]
    assert "(revision-conflict)" in operation["responses"]["409"]["description"]


def test_many_unknown_illustration_rules_get_a_short_answer(client: TestClient) -> None:
    alice = issue(client)
    upload(client, harbour_bytes(), alice)
    sid = start(client, "harbour", alice)["session_id"]
    matches = [f"no_such_rule_{i}" for i in range(50_000)]
    refused = problem(turn(client, sid, alice, 1, illustration_matches=matches), 422, "invalid-turn")
    assert refused["detail"].startswith(
        "unknown illustration rule(s) ['no_such_rule_0', 'no_such_rule_1', 'no_such_rule_2'] and 49997 more; "
    )
    assert len(refused["detail"]) < 200
    long = problem(turn(client, sid, alice, 1, observations={"x" * 100_000: True}), 422, "invalid-turn")
    assert long["detail"].startswith(f"unknown observation '{'x' * 60}…'; ")


def test_bad_observations_are_422_with_plays_message_and_change_nothing(client: TestClient) -> None:
    alice, rita = issue(client), issue(client, "rita", "reader")
    upload(client, harbour_bytes(), alice)
    publish(client, "harbour", 1, alice)
    sid = start(client, "harbour", alice)["session_id"]
    before = client.get(f"/v1/sessions/{sid}", headers=alice).json()
    bad = problem(turn(client, sid, alice, 1, observations={"helped": "yes"}), 422, "invalid-turn")
    assert bad["detail"] == "observation 'helped' is a yes/no question: answer true or false, not 'yes'"
    bad = problem(turn(client, sid, alice, 1, observations={"helped": 1}), 422, "invalid-turn")
    assert bad["detail"] == "observation 'helped' is a yes/no question: answer true or false, not 1"
    huge = -(2**63) - 1  # past what orjson encodes (found by schemathesis): a 422 like any wrong answer, not a 500
    bad = problem(turn(client, sid, alice, 1, observations={"helped": huge}), 422, "invalid-turn")
    assert bad["detail"] == f"observation 'helped' is a yes/no question: answer true or false, not {huge}"
    assert client.get(f"/v1/sessions/{sid}", headers=alice).json() == before
    assert len(client.get(f"/v1/sessions/{sid}/transcript", headers=alice).json()["entries"]) == 1
    assert turn(client, sid, alice, 1, observations={"helped": True}).status_code == 200
    reader = start(client, "harbour", rita)["session_id"]
    hidden = problem(turn(client, reader, rita, 1, observations={"nope": True}), 422, "invalid-turn")
    assert hidden["detail"] == "the turn's observations or illustration matches do not fit this pack"


def test_integral_numbers_are_integers_in_every_session_body(client: TestClient) -> None:
    """``turn`` and ``revision`` are JSON Schema integers: ``1.0`` and ``1e0`` are 1 (the OpenAPI document's word)."""
    alice = issue(client)
    upload(client, harbour_bytes(), alice)
    upload(client, harbour_bytes(2), alice)
    response = client.post("/v1/packs/harbour/sessions", content=b'{"revision": 1.0}', headers={**alice, **JSON})
    assert response.status_code == 201, response.text
    sid = response.json()["session_id"]
    assert response.json()["revision"] == 1
    body = b'{"turn": 1e0, "observations": {"helped": true}}'
    response = client.post(f"/v1/sessions/{sid}/turns", content=body, headers={**alice, **JSON})
    assert response.status_code == 200, response.text
    assert response.json()["turn"] == 1
    response = client.post(f"/v1/sessions/{sid}/migrate", content=b'{"revision": 2.0}', headers={**alice, **JSON})
    assert response.status_code == 200, response.text
    assert response.json()["revision"] == 2


@pytest.mark.parametrize(
    ("body", "location"),
    [
        (b'{"turn": "1"}', "body.turn"),
        (b'{"turn": true}', "body.turn"),
        (b'{"turn": 1.5}', "body.turn"),
        (b'{"turn": 0.0}', "body.turn"),
        (b'{"turn": 2147483648.0}', "body.turn"),
        (b'{"turn": 0}', "body.turn"),
        (b"{}", "body.turn"),
        (b'{"turn": 1, "observation": {}}', "body.observation"),
        (b'{"turn": 1, "observations": []}', "body.observations"),
        (b'{"turn": 1, "illustration_matches": [1]}', "body.illustration_matches.0"),
        (b"{", "body"),
        (b"[1]", "body"),
    ],
)
def test_malformed_turns_are_400(client: TestClient, body: bytes, location: str) -> None:
    alice = issue(client)
    upload(client, harbour_bytes(), alice)
    sid = start(client, "harbour", alice)["session_id"]
    response = client.post(f"/v1/sessions/{sid}/turns", content=body, headers={**alice, **JSON})
    found = problem(response, 400, "invalid-request")
    assert found["errors"][0]["location"] == location


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (
            b'{"turn": 1, "observations": {"helped": true, "helped": false}}',
            "body: duplicate key 'helped' in /observations",
        ),
        (
            b'{"turn": 1, "turn": 2, "observations": {"helped": true}}',
            "body: duplicate key 'turn' in the top-level object",
        ),
        (
            b'{"turn": 1, "illustration_matches": ["r1"], "observations": {}, "illustration_matches": []}',
            "body: duplicate key 'illustration_matches' in the top-level object",
        ),
        (  # an escaped colon (the key 'helped:') makes the quick check unsure: the exact one still finds it
            b'{"turn": 1, "observations": {"helped": true, "helped\\u003a": 1, "helped": true}}',
            "body: duplicate key 'helped' in /observations",
        ),
        (b'{"turn": 1, "observations": {"way": NaN, "way": "south"}}', "body: duplicate key 'way' in /observations"),
    ],
    ids=["observation", "turn", "illustration_matches", "escaped-colon", "nan"],
)
def test_a_turn_that_repeats_a_key_is_400_and_changes_nothing(client: TestClient, body: bytes, detail: str) -> None:
    alice = issue(client)
    upload(client, harbour_bytes(), alice)
    sid = start(client, "harbour", alice)["session_id"]
    refused = problem(
        client.post(f"/v1/sessions/{sid}/turns", content=body, headers={**alice, **JSON}), 400, "invalid-request"
    )
    assert refused["detail"] == detail
    assert refused["errors"] == [{"location": "body", "message": refused["detail"].removeprefix("body: ")}]
    assert client.get(f"/v1/sessions/{sid}", headers=alice).json()["turn"] == 0


def test_keys_that_only_look_repeated_are_not(client: TestClient) -> None:
    alice = issue(client)
    upload(client, harbour_bytes(), alice)
    sid = start(client, "harbour", alice)["session_id"]
    for body, unknown in (
        (b'{"turn": 1, "observations": {"helped": true, "helped\\u003a": true}}', "helped:"),
        (b'{"turn": 1, "observations": {"helped": true, "turn": true}}', "turn"),
    ):
        refused = client.post(f"/v1/sessions/{sid}/turns", content=body, headers={**alice, **JSON})
        assert problem(refused, 422, "invalid-turn")["detail"].startswith(f"unknown observation {unknown!r}")


def test_session_and_publish_bodies_refuse_repeated_keys_too(client: TestClient) -> None:
    alice = issue(client)
    upload(client, harbour_bytes(), alice)
    headers = {**alice, **JSON}
    body = b'{"entry": "late", "entry": "opening"}'
    refused = problem(client.post("/v1/packs/harbour/sessions", content=body, headers=headers), 400, "invalid-request")
    assert refused["detail"] == "body: duplicate key 'entry' in the top-level object"
    sid = start(client, "harbour", alice)["session_id"]
    body = b'{"revision": 1, "revision": 1}'
    migrate = client.post(f"/v1/sessions/{sid}/migrate", content=body, headers=headers)
    assert (
        problem(migrate, 400, "invalid-request")["detail"] == "body: duplicate key 'revision' in the top-level object"
    )
    published = client.post("/v1/packs/harbour/publish", content=body, headers=headers)
    assert (
        problem(published, 400, "invalid-request")["detail"] == "body: duplicate key 'revision' in the top-level object"
    )


def test_bodies_must_be_json_and_ids_well_formed(client: TestClient) -> None:
    alice = issue(client)
    upload(client, harbour_bytes(), alice)
    sid = start(client, "harbour", alice)["session_id"]
    text = {**alice, "Content-Type": "text/plain"}
    problem(
        client.post(f"/v1/sessions/{sid}/turns", content=b'{"turn": 1}', headers=text), 415, "unsupported-media-type"
    )
    problem(client.get("/v1/sessions/not-an-id", headers=alice), 400, "invalid-request")
    problem(client.get("/v1/sessions/" + "0" * 32, headers=alice), 404, "not-found")
    problem(client.post(f"/v1/sessions/{sid}/migrate", json={"revision": 0}, headers=alice), 400, "invalid-request")
    problem(client.post("/v1/packs/harbour/sessions", json={"revision": "2"}, headers=alice), 400, "invalid-request")
    problem(client.get(f"/v1/sessions/{sid}/assets/9bad", headers=alice), 400, "invalid-request")


def test_other_accounts_get_404_everywhere(client: TestClient) -> None:
    alice, bob, root = issue(client), issue(client, "bob", "host"), issue(client, "root", "admin")
    upload(client, harbour_bytes(), alice)
    sid = start(client, "harbour", alice)["session_id"]
    for who in (bob, root):
        for response in (
            client.get(f"/v1/sessions/{sid}", headers=who),
            client.get(f"/v1/sessions/{sid}/transcript", headers=who),
            turn(client, sid, who, 1),
            client.post(f"/v1/sessions/{sid}/migrate", json={"revision": 1}, headers=who),
            client.get(f"/v1/sessions/{sid}/assets/face", headers=who),
        ):
            assert problem(response, 404, "not-found")["detail"] == f"no session '{sid}' for this account"
    assert client.get(f"/v1/sessions/{sid}").status_code == 401


def test_a_restart_loses_nothing(settings: Settings) -> None:
    with TestClient(create_app(settings)) as first:
        alice = issue(first)
        upload(first, harbour_bytes(), alice)
        sid = start(first, "harbour", alice)["session_id"]
        played = turn(first, sid, alice, 1, observations={"helped": True})
    with TestClient(create_app(settings)) as second:
        assert turn(second, sid, alice, 1, observations={"helped": True}).content == played.content
        after = turn(second, sid, alice, 2, observations={"helped": True})
        assert after.json()["state"]["trust"] == 4
        assert second.get(f"/v1/sessions/{sid}", headers=alice).json()["turn"] == 2


def test_concurrent_turns_on_one_session_exactly_one_wins(client: TestClient) -> None:
    alice = issue(client)
    upload(client, harbour_bytes(), alice)
    sid = start(client, "harbour", alice)["session_id"]
    barrier = threading.Barrier(8)
    statuses: list[int] = []

    def play(index: int) -> None:
        barrier.wait()
        statuses.append(
            turn(client, sid, alice, 1, observations={"helped": True}, illustration_matches=[f"r{index}"]).status_code
        )

    threads = [threading.Thread(target=play, args=(i % 5 + 1,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    entries = client.get(f"/v1/sessions/{sid}/transcript", headers=alice).json()["entries"]
    assert [e["kind"] for e in entries] == ["start", "turn"]
    winner = entries[1]["request"]["illustration_matches"][0]
    same = sum(1 for i in range(8) if f"r{i % 5 + 1}" == winner)  # the winner and its identical retries
    assert sorted(statuses) == [200] * same + [409] * (8 - same)
    assert client.get(f"/v1/sessions/{sid}", headers=alice).json()["save"]["state"]["trust"] == 2


def test_engines_are_compiled_once_per_revision(client: TestClient) -> None:
    alice, rita = issue(client), issue(client, "rita", "reader")
    upload(client, harbour_bytes(), alice)
    publish(client, "harbour", 1, alice)
    for who in (alice, rita, alice):
        sid = start(client, "harbour", who)["session_id"]
        turn(client, sid, who, 1, observations={"helped": True})
        client.get(f"/v1/sessions/{sid}", headers=who)
    assert client.app.state.services.sessions.engines.compiled == 1  # type: ignore[attr-defined]


def test_assets_stream_only_once_reachable(client: TestClient) -> None:
    alice, rita = issue(client), issue(client, "rita", "reader")
    put_assets(client, alice)
    upload(client, harbour_bytes(), alice)
    publish(client, "harbour", 1, alice)
    sid = start(client, "harbour", rita)["session_id"]
    face = client.get(f"/v1/sessions/{sid}/assets/face", headers=rita)
    assert face.status_code == 200
    assert face.content == ASSETS["face"]
    assert face.headers["content-type"] == "image/png"
    etag = f'"{hashlib.sha256(ASSETS["face"]).hexdigest()}"'
    assert face.headers["etag"] == etag
    assert face.headers["x-content-type-options"] == "nosniff"
    assert client.get(f"/v1/sessions/{sid}/assets/face", headers={**rita, "If-None-Match": etag}).status_code == 304
    for hidden in ("art", "view", "nope"):
        found = problem(client.get(f"/v1/sessions/{sid}/assets/{hidden}", headers=rita), 404, "not-found")
        assert found["detail"] == f"no asset '{hidden}' in this session's reach"
    turn(client, sid, rita, 1, observations={"helped": True})
    assert client.get(f"/v1/sessions/{sid}/assets/art", headers=rita).status_code == 404
    unlocked = turn(client, sid, rita, 2, observations={"helped": True}).json()
    assert "art" in unlocked["new_revealed"]["assets"]
    art = client.get(f"/v1/sessions/{sid}/assets/art", headers=rita)
    assert (art.status_code, art.content) == (200, ASSETS["art"])


MP4 = b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 40
"""A video file (sniffed ``video/mp4``) that the harbour pack declares as its image ``face``."""


def test_session_assets_are_the_uploaded_files_in_byte_ranges(client: TestClient) -> None:
    alice, rita = issue(client), issue(client, "rita", "reader")
    doc = harbour(1)
    face = next(a for a in doc["assets"] if a["id"] == "face")
    face |= {"sha256": hashlib.sha256(MP4).hexdigest(), "byte_size": len(MP4)}  # declared image/png
    upload(client, json.dumps(doc).encode(), alice)
    publish(client, "harbour", 1, alice)  # the file is not uploaded yet: a warning (once it is, lint would object)
    assert client.put(f"/v1/assets/{face['sha256']}", content=MP4, headers=alice).status_code == 201
    sid = start(client, "harbour", rita)["session_id"]
    path = f"/v1/sessions/{sid}/assets/face"
    whole = client.get(path, headers=rita)
    assert (whole.status_code, whole.content) == (200, MP4)
    assert whole.headers["content-type"] == "video/mp4"  # the uploaded file's sniffed type, not the declaration
    assert whole.headers["accept-ranges"] == "bytes"
    assert whole.headers["content-length"] == str(len(MP4))
    assert whole.headers["cache-control"] == "private, immutable"
    part = client.get(path, headers={**rita, "Range": "bytes=100-1099"})
    assert (part.status_code, part.content) == (206, MP4[100:1100])
    assert part.headers["content-range"] == f"bytes 100-1099/{len(MP4)}"
    assert part.headers["content-length"] == "1000"
    tail = client.get(path, headers={**rita, "Range": "bytes=-16"})
    assert (tail.status_code, tail.content) == (206, MP4[-16:])
    assert client.get(path, headers={**rita, "Range": "bytes=5-"}).content == MP4[5:]
    beyond = problem(client.get(path, headers={**rita, "Range": f"bytes={len(MP4)}-"}), 416, "range-not-satisfiable")
    assert beyond["detail"] == f"the range names no byte of the {len(MP4):,}-byte asset"
    assert client.get(path, headers={**rita, "Range": "bytes=0-9, 20-29"}).content == MP4  # several: all of it
    long = "9" * 5000  # more digits than int() converts: past the end all the same
    problem(client.get(path, headers={**rita, "Range": f"bytes={long}-"}), 416, "range-not-satisfiable")
    assert client.get(path, headers={**rita, "Range": f"bytes=-{long}"}).content == MP4  # a suffix: all of it
    assert client.get(path, headers={**rita, "Range": f"bytes=10-{long}"}).content == MP4[10:]
    etag = whole.headers["etag"]
    assert client.get(path, headers={**rita, "If-None-Match": etag, "Range": "bytes=0-9"}).status_code == 304
    # an image is never ranged
    put_assets(client, alice)
    art = client.get("/v1/packs/harbour/assets/view", headers={**alice, "Range": "bytes=0-3"})
    assert (art.status_code, "accept-ranges" in art.headers) == (200, False)


def test_session_assets_stream_in_chunks(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file is read from the blob store a chunk at a time (a range read each), never whole."""
    from creatorpack.service import assets as service_assets

    monkeypatch.setattr(service_assets, "CHUNK_BYTES", 1000)
    alice = issue(client)
    doc = harbour(1)
    face = next(a for a in doc["assets"] if a["id"] == "face")
    face |= {"sha256": hashlib.sha256(MP4).hexdigest(), "byte_size": len(MP4)}
    upload(client, json.dumps(doc).encode(), alice)
    client.put(f"/v1/assets/{face['sha256']}", content=MP4, headers=alice)
    blobs: BlobStore = client.app.state.services.assets._blobs  # type: ignore[attr-defined]
    reads: list[tuple[int, int]] = []
    original = blobs.read_range

    def read_range(sha256: str, begin: int, end: int) -> bytes | None:
        reads.append((begin, end))
        return original(sha256, begin, end)

    whole = blobs.get

    def get(sha256: str) -> bytes | None:
        assert sha256 != face["sha256"], "the whole file was read"
        return whole(sha256)

    monkeypatch.setattr(blobs, "read_range", read_range)
    monkeypatch.setattr(blobs, "get", get)
    sid = start(client, "harbour", alice)["session_id"]
    assert client.get(f"/v1/sessions/{sid}/assets/face", headers=alice).content == MP4
    assert reads == [(i, min(i + 1000, len(MP4))) for i in range(0, len(MP4), 1000)]
    reads.clear()
    part = client.get(f"/v1/sessions/{sid}/assets/face", headers={**alice, "Range": "bytes=1500-2600"})
    assert part.content == MP4[1500:2601]
    assert reads == [(1500, 2500), (2500, 2601)]


def _narrowed(revision: int, *, publishable: bool = False) -> bytes:
    return json.dumps(narrowed(revision, publishable=publishable)).encode()


def _grown(revision: int) -> bytes:
    doc = harbour(revision)
    schema = doc["runtime"]["state"]["schema"]
    schema["properties"]["courage"] = {"type": "integer", "minimum": 0, "maximum": 5}
    schema["required"].append("courage")
    for entry in doc["runtime"]["entries"]:
        entry["initial_state"]["courage"] = 2
    return json.dumps(doc).encode()


def test_migrate_by_plan_or_409_naming_each_value(client: TestClient) -> None:
    alice, rita = issue(client), issue(client, "rita", "reader")
    upload(client, harbour_bytes(1), alice)
    upload(client, _narrowed(2), alice)
    upload(client, _grown(3), alice)
    publish(client, "harbour", 1, alice)
    sid = start(client, "harbour", alice, entry="late")["session_id"]
    turn(client, sid, alice, 1, observations={"way": "south"})
    refused = problem(
        client.post(f"/v1/sessions/{sid}/migrate", json={"revision": 2}, headers=alice), 409, "migration-conflict"
    )
    assert refused["misfits"] == [{"pointer": "/state/trust", "message": "5 is outside 0..3"}]
    assert refused["revision"] == 1
    assert client.get(f"/v1/sessions/{sid}", headers=alice).json()["revision"] == 1
    moved = client.post(f"/v1/sessions/{sid}/migrate", json={"revision": 3}, headers=alice)
    assert moved.status_code == 200
    assert (moved.json()["revision"], moved.json()["turn"]) == (3, 1)
    assert moved.json()["save"]["state"]["courage"] == 2
    assert moved.json()["save"]["revision"] == 3
    entries = client.get(f"/v1/sessions/{sid}/transcript", headers=alice).json()["entries"]
    assert [(e["kind"], e["revision"]) for e in entries] == [("start", 1), ("turn", 1), ("migrate", 3)]
    assert entries[-1]["migration"] == {
        "pack_id": "harbour",
        "from_revision": 1,
        "to_revision": 3,
        "level": "by_plan",
        "steps": [
            {
                "action": "add",
                "pointer": "/state/courage",
                "detail": "a new member: the entry's initial_state value",
                "value": 2,
            }
        ],
    }
    assert turn(client, sid, alice, 2, observations={"helped": True}).json()["state"]["courage"] == 2
    # A reader moves only to the published revision, and is not told which values misfit.
    reader = start(client, "harbour", rita, entry="late")["session_id"]
    problem(client.post(f"/v1/sessions/{reader}/migrate", json={"revision": 3}, headers=rita), 404, "not-found")
    upload(client, _narrowed(4, publishable=True), alice)
    publish(client, "harbour", 4, alice)
    hidden = problem(
        client.post(f"/v1/sessions/{reader}/migrate", json={"revision": 4}, headers=rita), 409, "migration-conflict"
    )
    assert "misfits" not in hidden
    assert hidden["detail"] == "the session cannot move to revision 4: 1 saved value no longer fits"
    reader_entries = client.get(f"/v1/sessions/{reader}/transcript", headers=rita).json()["entries"]
    assert all("migration" not in e for e in reader_entries)


def test_diff_is_the_clis_json(client: TestClient, tmp_path: Any) -> None:
    alice, bob, rita = issue(client), issue(client, "bob", "creator"), issue(client, "rita", "reader")
    upload(client, harbour_bytes(1), alice)
    upload(client, _narrowed(2), alice)
    response = client.get("/v1/packs/harbour/diff?from=1&to=2", headers=alice)
    assert response.status_code == 200
    (tmp_path / "a.json").write_bytes(harbour_bytes(1))
    (tmp_path / "b.json").write_bytes(_narrowed(2))
    result = CliRunner().invoke(cli, ["diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--format", "json"])
    assert result.exit_code == 1
    assert response.json() == json.loads(result.stdout)
    assert response.json()["compatibility"]["level"] == "may_not_fit"
    problem(client.get("/v1/packs/harbour/diff?from=1&to=2", headers=bob), 404, "not-found")
    problem(client.get("/v1/packs/harbour/diff?from=1&to=2", headers=rita), 403, "forbidden")
    problem(client.get("/v1/packs/harbour/diff?from=1&to=7", headers=alice), 404, "not-found")
    problem(client.get("/v1/packs/harbour/diff?from=1", headers=alice), 400, "invalid-request")
    problem(client.get("/v1/packs/harbour/diff?from=0&to=1", headers=alice), 400, "invalid-request")


def test_a_withdrawn_pack_takes_no_more_turns_from_its_readers(settings: Settings) -> None:
    """Unpublished or made private: its readers' sessions stop (404) and reach no more assets; the owner plays on."""
    with TestClient(create_app(settings.with_changes(token_cache_seconds=0))) as client:
        alice, rita = issue(client), issue(client, "rita", "reader")
        put_assets(client, alice)
        upload(client, harbour_bytes(), alice)
        publish(client, "harbour", 1, alice)
        reader = start(client, "harbour", rita)["session_id"]
        owner = start(client, "harbour", alice)["session_id"]
        assert turn(client, reader, rita, 1, observations={"helped": True}).status_code == 200
        assert client.get(f"/v1/sessions/{reader}/assets/face", headers=rita).status_code == 200
        unpublish(client, "harbour", alice)
        stopped = problem(turn(client, reader, rita, 2, observations={"helped": True}), 404, "not-found")
        assert stopped["detail"] == "pack 'harbour' is no longer published: the session cannot go on"
        problem(client.get(f"/v1/sessions/{reader}/assets/face", headers=rita), 404, "not-found")
        moved = client.post(f"/v1/sessions/{reader}/migrate", json={"revision": 1}, headers=rita)
        assert problem(moved, 404, "not-found")["detail"] == stopped["detail"]
        assert client.get(f"/v1/sessions/{reader}", headers=rita).json()["turn"] == 1  # what was shown stays
        assert client.get(f"/v1/sessions/{reader}/transcript", headers=rita).status_code == 200
        assert turn(client, owner, alice, 1, observations={"helped": True}).status_code == 200
        publish(client, "harbour", 1, alice)  # published again: the reader plays on
        assert turn(client, reader, rita, 2, observations={"helped": True}).status_code == 200


def test_a_pack_withdrawn_through_this_process_stops_its_readers_at_once(client: TestClient) -> None:
    """With the cache time at its default (1 s): the process that withdrew the pack knows it at once."""
    assert client.app.state.services.settings.token_cache_seconds == 1  # type: ignore[attr-defined]
    alice, rita = issue(client), issue(client, "rita", "reader")
    upload(client, harbour_bytes(), alice)
    publish(client, "harbour", 1, alice)
    reader = start(client, "harbour", rita)["session_id"]
    assert turn(client, reader, rita, 1, observations={"helped": True}).status_code == 200  # open, remembered
    unpublish(client, "harbour", alice)
    problem(turn(client, reader, rita, 2, observations={"helped": True}), 404, "not-found")
    publish(client, "harbour", 1, alice)  # published again: at once too
    assert turn(client, reader, rita, 2, observations={"helped": True}).status_code == 200
    upload(client, harbour_bytes(2, "private"), alice)
    publish(client, "harbour", 2, alice)  # republished as private
    problem(turn(client, reader, rita, 3, observations={"helped": True}), 404, "not-found")
