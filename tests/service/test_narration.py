"""``POST /v1/sessions/{id}/narrate`` over a fake OpenAI-compatible server on 127.0.0.1, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from creatorpack.narrate.fake import FakeModelServer
from creatorpack.service.app import create_app
from creatorpack.service.settings import RateLimit, Settings
from tests.service.conftest import issue
from tests.service.sessions_support import publish, rich_bytes, upload

HIDDEN = "The stranger on the quay is her brother Tobias."
PACK = "harbour-light"


def _events(text: str) -> list[tuple[str, Any]]:
    found = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        found.append((lines["event"], json.loads(lines["data"])))
    return found


@pytest.fixture
def model() -> Iterator[FakeModelServer]:
    """A fake model whose first narration names what a reader has not discovered."""
    with FakeModelServer([f"Mara turns away. {HIDDEN}", "Fog rolls in.", "The tide turns."]) as server:
        yield server


@pytest.fixture
def narrated(settings: Settings, model: FakeModelServer) -> Iterator[TestClient]:
    """A client of a service whose narrator is the fake model, with the rich 0.5 example published."""
    with TestClient(create_app(replace(settings, model_url=model.url))) as client:
        owner = issue(client, "alice")
        upload(client, rich_bytes(), owner)
        publish(client, PACK, 3, owner)
        yield client


def _start(client: TestClient, headers: dict[str, str]) -> str:
    response = client.post(f"/v1/packs/{PACK}/sessions", json={}, headers=headers)
    assert response.status_code == 201, response.text
    session_id: str = response.json()["session_id"]
    return session_id


def test_a_reader_gets_the_guarded_narration_streamed_then_the_reader_view(
    narrated: TestClient, model: FakeModelServer
) -> None:
    reader = issue(narrated, "reader1", "reader")
    session = _start(narrated, reader)
    response = narrated.post(f"/v1/sessions/{session}/narrate", json={"turn": 1, "input": "ask Mara"}, headers=reader)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = _events(response.text)
    kinds = [kind for kind, _ in events]
    assert kinds[-1] == "turn"
    assert set(kinds[:-1]) <= {"narration"}
    final = events[-1][1]
    assert "her brother" not in response.text  # never: not in a delta, the narration or the view
    assert final["narration"] == "Fog rolls in."  # the regeneration, which the guard passed
    assert "narrator_report" not in final
    assert set(final["turn"]) >= {"turn", "revealed", "achievements"}  # the reader view only
    assert "state" not in final["turn"]
    transcript = narrated.get(f"/v1/sessions/{session}/transcript", headers=reader).json()
    assert transcript["entries"][-1]["narration"] == "Fog rolls in."
    assert len(model.requests) == 3  # narration, regeneration, answers


def test_a_retry_with_the_same_input_is_answered_without_asking_the_model_again(
    narrated: TestClient, model: FakeModelServer
) -> None:
    host = issue(narrated, "narrator", "host")
    session = _start(narrated, host)
    body = {"turn": 1, "input": "look at the lamp"}
    first = _events(narrated.post(f"/v1/sessions/{session}/narrate", json=body, headers=host).text)[-1][1]
    asked = len(model.requests)
    again = _events(narrated.post(f"/v1/sessions/{session}/narrate", json=body, headers=host).text)
    assert again == [("turn", first)]
    assert len(model.requests) == asked
    assert first["narrator_report"]["guard"]["regenerated"] is True  # the host sees what the guard did
    assert {"answers", "prompt"} <= set(first["narrator_report"])
    other = narrated.post(f"/v1/sessions/{session}/narrate", json={"turn": 1, "input": "else"}, headers=host)
    assert (other.status_code, other.json()["type"]) == (409, "urn:creatorpack:problem:turn-conflict")
    skipped = narrated.post(f"/v1/sessions/{session}/narrate", json={"turn": 5, "input": "x"}, headers=host)
    assert skipped.status_code == 409
    second = narrated.post(f"/v1/sessions/{session}/narrate", json={"turn": 2, "input": "wait"}, headers=host)
    assert _events(second.text)[-1][1]["turn"]["turn"] == 2


def test_no_model_configured_is_503_and_the_session_is_unchanged(client: TestClient) -> None:
    owner = issue(client, "alice")
    upload(client, rich_bytes(), owner)
    session = _start(client, owner)
    response = client.post(f"/v1/sessions/{session}/narrate", json={"turn": 1, "input": "hello"}, headers=owner)
    assert (response.status_code, response.json()["type"]) == (503, "urn:creatorpack:problem:narrator-unavailable")
    assert client.get(f"/v1/sessions/{session}", headers=owner).json()["turn"] == 0


def test_a_model_that_is_down_is_503_naming_it_and_nothing_changes(settings: Settings) -> None:
    with TestClient(create_app(replace(settings, model_url="http://127.0.0.1:9/v1"))) as client:
        owner = issue(client, "alice")
        upload(client, rich_bytes(), owner)
        session = _start(client, owner)
        response = client.post(f"/v1/sessions/{session}/narrate", json={"turn": 1, "input": "hi"}, headers=owner)
        assert response.status_code == 503
        assert "127.0.0.1:9" in response.json()["detail"]
        assert client.get(f"/v1/sessions/{session}", headers=owner).json()["turn"] == 0


@pytest.mark.parametrize(
    "body",
    [
        {"turn": 1},
        {"turn": 1, "input": ""},
        {"turn": 1, "input": "   "},
        {"turn": 0, "input": "x"},
        {"turn": "1", "input": "x"},
        {"turn": 1, "input": "x" * 4001},
        {"turn": 1, "input": "a\u0000b"},
        {"turn": 1, "input": "x", "extra": True},
    ],
)
def test_bad_bodies_are_400(narrated: TestClient, body: dict[str, Any]) -> None:
    owner = issue(narrated, "alice")
    session = _start(narrated, owner)
    response = narrated.post(f"/v1/sessions/{session}/narrate", json=body, headers=owner)
    assert (response.status_code, response.json()["type"]) == (400, "urn:creatorpack:problem:invalid-request")


def test_a_lone_surrogate_in_the_input_is_400(narrated: TestClient) -> None:
    owner = issue(narrated, "alice")
    session = _start(narrated, owner)
    raw = b'{"turn": 1, "input": "\\ud800"}'
    response = narrated.post(
        f"/v1/sessions/{session}/narrate", content=raw, headers={**owner, "Content-Type": "application/json"}
    )
    assert response.status_code == 400


def test_narration_is_rate_limited_per_account(settings: Settings, model: FakeModelServer) -> None:
    limited = replace(settings, model_url=model.url, rate_narrate=RateLimit(1, 3600))
    with TestClient(create_app(limited)) as client:
        owner = issue(client, "alice")
        upload(client, rich_bytes(), owner)
        session = _start(client, owner)
        assert (
            client.post(f"/v1/sessions/{session}/narrate", json={"turn": 1, "input": "a"}, headers=owner).status_code
            == 200
        )
        refused = client.post(f"/v1/sessions/{session}/narrate", json={"turn": 2, "input": "b"}, headers=owner)
        assert (refused.status_code, refused.json()["type"]) == (429, "urn:creatorpack:problem:rate-limited")


def test_another_accounts_session_is_not_found(narrated: TestClient) -> None:
    session = _start(narrated, issue(narrated, "reader1", "reader"))
    other = issue(narrated, "reader2", "reader")
    response = narrated.post(f"/v1/sessions/{session}/narrate", json={"turn": 1, "input": "x"}, headers=other)
    assert response.status_code == 404


def test_over_real_http_a_running_serve_streams_a_narrated_turn(tmp_path: Path) -> None:
    """``creatorpack serve`` on 127.0.0.1 with the fake model server: the events arrive over a real connection."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    data = tmp_path / "data"
    with FakeModelServer([f"Mara turns away. {HIDDEN}", "Fog rolls in."]) as model:
        env = {**os.environ, "CREATORPACK_MODEL_URL": model.url, "CREATORPACK_DATA_DIR": str(data)}
        env.pop("CREATORPACK_DATABASE_URL", None)
        command = [sys.executable, "-m", "creatorpack", "serve", "--port", str(port)]
        server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{base}/v1/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    assert time.monotonic() < deadline, "serve did not start"
                    time.sleep(0.2)
            made = subprocess.run(
                [sys.executable, "-m", "creatorpack", "token", "create", "--account", "reader1", "--scope", "reader"],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            owner_token = subprocess.run(
                [sys.executable, "-m", "creatorpack", "token", "create", "--account", "alice", "--scope", "creator"],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            owner = {"Authorization": f"Bearer {owner_token}", "Content-Type": "application/json"}
            reader = {"Authorization": f"Bearer {made.stdout.strip()}"}
            assert httpx.post(f"{base}/v1/packs", content=rich_bytes(), headers=owner).status_code == 201
            published = httpx.post(f"{base}/v1/packs/{PACK}/publish", json={"revision": 3}, headers=owner, timeout=60)
            assert published.status_code == 200, published.text
            started = httpx.post(f"{base}/v1/packs/{PACK}/sessions", json={}, headers=reader).json()
            url = f"{base}/v1/sessions/{started['session_id']}/narrate"
            with httpx.stream("POST", url, json={"turn": 1, "input": "ask Mara"}, headers=reader, timeout=60) as got:
                assert got.status_code == 200
                assert got.headers["content-type"].startswith("text/event-stream")
                text = "".join(got.iter_text())
            events = _events(text)
            assert events[-1][0] == "turn"
            assert events[-1][1]["narration"] == "Fog rolls in."
            assert "her brother" not in text
        finally:
            server.terminate()
            server.wait(timeout=30)
