"""The web playtest's narration: a text box, the narration streamed (or the whole turn), never a spoiler."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient

from creatorpack.narrate.fake import FakeModelServer
from creatorpack.service.app import create_app
from creatorpack.service.settings import Settings
from tests.service.conftest import issue
from tests.service.sessions_support import publish, rich_bytes, upload
from tests.service.web_support import form_post, sign_in, text_of

HIDDEN = "The stranger on the quay is her brother Tobias."


@pytest.fixture
def site(settings: Settings) -> Iterator[tuple[TestClient, FakeModelServer]]:
    """The service with a fake narrator, the rich 0.5 example published, and a reader signed in."""
    with (
        FakeModelServer([f"Mara says nothing. {HIDDEN}", "The fog thickens.", "Gulls cry."]) as model,
        TestClient(create_app(replace(settings, model_url=model.url))) as client,
    ):
        owner = issue(client, "alice")
        upload(client, rich_bytes(), owner)
        publish(client, "harbour-light", 3, owner)
        sign_in(client, issue(client, "reader1", "reader"))
        yield client, model


def _session(client: TestClient) -> str:
    started = form_post(client, "/play/harbour-light", {"entry": ""})
    assert started.status_code == 303, started.text
    return started.headers["location"].rsplit("/", 1)[-1]


def test_a_reader_types_an_action_and_reads_the_guarded_narration(site: tuple[TestClient, FakeModelServer]) -> None:
    client, model = site
    session = _session(client)
    page = client.get(f"/play/session/{session}")
    assert 'name="input"' in page.text
    assert "What do you do?" in page.text
    done = form_post(client, f"/play/session/{session}/narrate", {"turn": "1", "input": "I ask Mara"})
    assert (done.status_code, done.headers["location"]) == (303, f"/play/session/{session}")
    after = client.get(f"/play/session/{session}")
    assert "The fog thickens." in text_of(after)  # the rewritten narration, in the story so far
    assert "her brother" not in after.text
    assert "Turn 1" in text_of(after)
    assert len(model.requests) == 3  # narration, the rewrite the guard asked for, the answers


def test_with_the_pages_script_the_narration_streams_as_server_sent_events(
    site: tuple[TestClient, FakeModelServer],
) -> None:
    client, _ = site
    session = _session(client)
    response = form_post(
        client,
        f"/play/session/{session}/narrate",
        {"turn": "1", "input": "I wait"},
        headers={"Accept": "text/event-stream"},
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [block.split("\n") for block in response.text.strip().split("\n\n")]
    assert events[-1][0] == "event: turn"
    final = json.loads(events[-1][1].removeprefix("data: "))
    assert final["narration"] == "The fog thickens."
    assert "her brother" not in response.text
    assert "state" not in final["turn"]  # a reader's view


def test_the_narrate_form_needs_its_csrf_token(site: tuple[TestClient, FakeModelServer]) -> None:
    client, model = site
    session = _session(client)
    refused = client.post(f"/play/session/{session}/narrate", data={"turn": "1", "input": "x"}, follow_redirects=False)
    assert refused.status_code == 403
    assert model.requests == []


def test_without_a_model_the_page_offers_no_narration(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        owner = issue(client, "alice")
        upload(client, rich_bytes(), owner)
        publish(client, "harbour-light", 3, owner)
        sign_in(client, owner)
        session = _session(client)
        assert 'name="input"' not in client.get(f"/play/session/{session}").text
