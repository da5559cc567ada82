"""Every response the OpenAPI document lists is sent, by real requests, and fits its documented schema.

One scenario per backend drives every route through its happy paths and its documented errors on
the rich example packs (sessions, narration, the reader view and the catalog) and the harbour pack
(whose assets have files), plus three apps for the errors any route answers: a small body limit
(413), a rate limit of one request (429), no narrator (503). Every response goes through
:class:`~tests.service.openapi_support.Conformance`: its status must be documented for its route,
its media type documented for that status, its JSON body valid against that schema, closed (a
member the schema does not name fails). At the end every documented (route, status) must have been
seen, but for :data:`NOT_EXERCISED`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, Final

import httpx
import pytest
from fastapi.testclient import TestClient

from creatorpack.narrate.fake import FakeModelServer
from creatorpack.play import ReaderView
from creatorpack.service.app import create_app
from creatorpack.service.settings import RateLimit, Settings
from tests.conftest import EXAMPLES, ROOT
from tests.service.conftest import JSON, issue
from tests.service.openapi_support import Conformance, Documented
from tests.service.sessions_support import ASSETS, harbour_bytes, narrowed, runtime_pack_bytes
from tests.service.test_assets import JPEG, MP4, PNG, pack_with_assets

DOCUMENT: Final = json.loads((ROOT / "docs" / "openapi.json").read_text(encoding="utf-8"))
"""The checked-in document (``test_openapi.py`` checks it is the served one)."""

NOT_EXERCISED: Final[frozenset[Documented]] = frozenset()
"""Documented answers no request here provokes, each with a comment saying why (none today; keep it short).

A documented answer that no request can provoke is better taken out of the document: that is how
``GET /v1/tokens`` and ``POST /v1/packs/{pack_id}/reports`` lost a 403, and ``POST /v1/packs`` a 404.
"""

RICH: Final = "harbour-light"
MOTION: Final = "moon.garden"
_BIG_HEADER: Final = {"X-Padding": "x" * (17 * 1024)}
_VALUES: Final = {
    "pack_id": "nope",
    "revision": "1",
    "sha256": "0" * 64,
    "session_id": "0" * 32,
    "asset_id": "face",
    "token_id": "0" * 16,
    "account": "nobody",
    "report_id": "999999",
}
_BODIES: Final[dict[str, Any]] = {
    "/v1/validate": {},
    "/v1/lint": {},
    "/v1/packs": {},
    "/v1/packs/{pack_id}/publish": {"revision": 1},
    "/v1/packs/{pack_id}/sessions": {},
    "/v1/sessions/{session_id}/turns": {"turn": 1},
    "/v1/sessions/{session_id}/migrate": {"revision": 1},
    "/v1/sessions/{session_id}/narrate": {"turn": 1, "input": "hello"},
    "/v1/tokens": {"scope": "reader"},
    "/v1/packs/{pack_id}/reports": {"reason": "spam"},
    "/v1/admin/packs/{pack_id}/takedown": {"reason": "a reason"},
    "/v1/admin/accounts/{account}/disable": {"reason": "a reason"},
    "/v1/admin/accounts/{account}/tokens": {"scope": "reader"},
    "/v1/admin/reports/{report_id}/resolve": {"note": "a note"},
}
"""A small body each route that reads one accepts the form of."""


class Driver:
    """Sends requests to one app, checks each response's conformance, and asserts the status a step expects."""

    def __init__(self, client: TestClient, conformance: Conformance) -> None:
        self.client = client
        self.conformance = conformance

    def __call__(self, method: str, path: str, status: int, **kwargs: Any) -> httpx.Response:
        """The checked response of the request, which must have ``status``."""
        response = self.conformance.check(self.client.request(method, path, **kwargs))
        assert response.status_code == status, f"{method} {path}: {response.status_code} {response.text[:500]}"
        return response

    def each(self, status: str, **kwargs: Any) -> None:
        """Every operation that documents ``status``, sent with example values (see :func:`_example`)."""
        for method, template, listed in sorted(self.conformance.documented()):
            if listed == status:
                path, body = _example(template)
                self.conformance.check(self.client.request(method, path, **_with_body(method, body, kwargs)))


def _example(template: str) -> tuple[str, Any]:
    path = template
    for name, value in _VALUES.items():
        path = path.replace("{" + name + "}", value)
    return path, _BODIES.get(template)


def _with_body(method: str, body: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    if method not in ("POST", "PUT") or "content" in kwargs:
        return kwargs
    given = kwargs.get("headers", {})
    headers = [*JSON.items(), *(given.items() if isinstance(given, dict) else given)]
    return {**kwargs, "content": json.dumps(body if body is not None else {}).encode(), "headers": headers}


def _rich(version: str) -> bytes:
    return (EXAMPLES / version / "rich.json").read_bytes()


@pytest.fixture
def model() -> Iterator[FakeModelServer]:
    """A fake narrator model."""
    with FakeModelServer(["The lamp flickers.", "Fog rolls in.", "The tide turns."]) as server:
        yield server


def test_every_documented_response_is_sent_and_fits_its_schema(settings: Settings, model: FakeModelServer) -> None:
    conformance = Conformance(DOCUMENT)
    with TestClient(create_app(replace(settings, model_url=model.url))) as client:
        sid, host = _scenario(Driver(client, conformance))
    with TestClient(create_app(settings)) as client:  # the same stores, no narrator configured
        narrate = {"turn": 2, "input": "I wave again"}
        Driver(client, conformance)("POST", f"/v1/sessions/{sid}/narrate", 503, json=narrate, headers=host)
    _errors_any_route_answers(settings, conformance)
    missing = conformance.documented() - conformance.seen - NOT_EXERCISED
    assert sorted(missing) == [], f"documented but never answered: {sorted(missing)}"
    assert not NOT_EXERCISED & conformance.seen, "answered after all: take it off NOT_EXERCISED"


def _scenario(call: Driver) -> tuple[str, dict[str, str]]:
    """Every route's happy paths and specific errors; a session a host narrated, and the host's headers."""
    client = call.client
    alice, rita, hana = issue(client, "alice"), issue(client, "rita", "reader"), issue(client, "hana", "host")
    root = issue(client, "root", "admin")
    client.app.state.services.moderation.set_role("root", "admin")  # type: ignore[attr-defined]

    # meta, checks
    call("GET", "/v1/health", 200)
    call("GET", "/v1/ready", 200)
    ready = client.app.state.not_ready  # type: ignore[attr-defined]
    client.app.state.not_ready = lambda: "the database does not answer"  # type: ignore[attr-defined]
    call("GET", "/v1/ready", 503)
    client.app.state.not_ready = ready  # type: ignore[attr-defined]
    for route in ("/v1/validate", "/v1/lint"):
        call("POST", route, 200, content=_rich("0.5"), headers=JSON)
        call("POST", route, 200, content=b'{"manifest": {}}', headers=JSON)  # invalid: a report, not an error
        call("POST", route, 400, content=b"{", headers=JSON)

    # packs and revisions: the rich examples, the harbour pack (lint errors at revision 1, clean at 2)
    for version in ("0.3", "0.4", "0.5"):
        call("POST", "/v1/packs", 201, content=_rich(version), headers={**alice, **JSON})
    call("POST", "/v1/packs", 200, content=_rich("0.5"), headers={**alice, **JSON})
    changed = json.loads(_rich("0.5"))
    changed["manifest"]["title"] = "Another title"
    call("POST", "/v1/packs", 409, content=json.dumps(changed).encode(), headers={**alice, **JSON})
    call("POST", "/v1/packs", 422, content=b'{"manifest": {"pack_id": "x.y"}}', headers={**alice, **JSON})
    call("POST", "/v1/packs", 403, content=_rich("0.5"), headers={**rita, **JSON})
    call("POST", "/v1/packs", 201, content=runtime_pack_bytes(1), headers={**alice, **JSON})
    call("POST", "/v1/packs", 201, content=harbour_bytes(2), headers={**alice, **JSON})
    call("GET", f"/v1/packs/{RICH}", 200, headers=alice)
    stored = call("GET", f"/v1/packs/{RICH}/revisions/3", 200, headers=alice)
    call("GET", f"/v1/packs/{RICH}/revisions/3", 304, headers={**alice, "If-None-Match": stored.headers["etag"]})

    # publishing, the journal, the reader view, the catalog
    call("POST", "/v1/packs/harbour/publish", 422, json={"revision": 1}, headers=alice)  # lint errors
    call("DELETE", "/v1/packs/harbour/revisions/1", 204, headers=alice)
    for pack_id, revision in ((RICH, 3), ("harbour-light-0-4", 3), ("harbour-light-0-3", 3), ("harbour", 2)):
        call("POST", f"/v1/packs/{pack_id}/publish", 200, json={"revision": revision}, headers=alice)
    call("DELETE", f"/v1/packs/{RICH}/revisions/3", 409, headers=alice)  # published
    call("GET", f"/v1/packs/{RICH}/events", 200, headers=alice)
    for pack_id in (RICH, "harbour-light-0-4", "harbour-light-0-3"):
        view = call("GET", f"/v1/packs/{pack_id}/reader", 200)
        call("GET", f"/v1/packs/{pack_id}/reader", 304, headers={"If-None-Match": view.headers["etag"]})
    page = call("GET", "/v1/catalog?limit=1", 200).json()
    call("GET", f"/v1/catalog?limit=1&cursor={page['next']}", 200)
    call("GET", "/v1/catalog?q=harbour&cursor=forged", 400)
    call("DELETE", "/v1/packs/harbour-light-0-3/publish", 204, headers=alice)
    call("DELETE", "/v1/packs/harbour-light-0-3/publish", 404, headers=alice)

    # assets: the harbour pack's pictures; a pack with a cover motion (video: served in byte ranges too)
    for data in (*ASSETS.values(), JPEG, MP4, PNG):
        digest = hashlib.sha256(data).hexdigest()
        call("PUT", f"/v1/assets/{digest}", 201, content=data, headers=alice)
        call("PUT", f"/v1/assets/{digest}", 200, content=data, headers=alice)
    call("PUT", f"/v1/assets/{'0' * 64}", 422, content=ASSETS["face"], headers=alice)
    call("POST", "/v1/packs", 201, content=pack_with_assets(MOTION), headers={**alice, **JSON})
    call("POST", f"/v1/packs/{MOTION}/publish", 200, json={"revision": 1}, headers=alice)
    _files(call, f"/v1/packs/{MOTION}/assets/reel", rita)

    narrated = _sessions(call, alice, rita, hana)
    _tokens_and_moderation(call, alice, rita, root)
    return narrated, hana


def _files(call: Driver, path: str, headers: dict[str, str]) -> None:
    """A served video file: whole (200), a byte range (206), not modified (304), a range past its end (416)."""
    whole = call("GET", path, 200, headers=headers)
    call("GET", path, 206, headers={**headers, "Range": "bytes=0-3"})
    call("GET", path, 304, headers={**headers, "If-None-Match": whole.headers["etag"]})
    call("GET", path, 416, headers={**headers, "Range": "bytes=99999-"})


def _sessions(call: Driver, alice: dict[str, str], rita: dict[str, str], hana: dict[str, str]) -> str:
    """Sessions of the three audiences, turns, narration, transcripts, files, migrations; the narrated one's id."""
    sessions: dict[str, str] = {}
    for who, headers in (("reader", rita), ("owner", alice), ("host", hana)):
        sessions[who] = call("POST", f"/v1/packs/{RICH}/sessions", 201, json={}, headers=headers).json()["session_id"]
    call("POST", f"/v1/packs/{RICH}/sessions", 422, json={"entry": "nowhere"}, headers=rita)
    for who, headers in (("reader", rita), ("owner", alice)):
        sid = sessions[who]
        call("POST", f"/v1/sessions/{sid}/turns", 200, json={"turn": 1, "observations": {}}, headers=headers)
        call("POST", f"/v1/sessions/{sid}/turns", 409, json={"turn": 5}, headers=headers)
        bad = {"turn": 2, "observations": {"no_such_observation": True}}
        call("POST", f"/v1/sessions/{sid}/turns", 422, json=bad, headers=headers)
        call("GET", f"/v1/sessions/{sid}", 200, headers=headers)
    sid = sessions["host"]
    narrated = call("POST", f"/v1/sessions/{sid}/narrate", 200, json={"turn": 1, "input": "I wave"}, headers=hana)
    assert "event: turn" in narrated.text
    call("POST", f"/v1/sessions/{sid}/narrate", 409, json={"turn": 1, "input": "else"}, headers=hana)
    for who, headers in (("reader", rita), ("owner", alice), ("host", hana)):
        call("GET", f"/v1/sessions/{sessions[who]}/transcript", 200, headers=headers)
    call("GET", f"/v1/packs/{RICH}/diff?from=3&to=3", 200, headers=alice)
    call("GET", f"/v1/packs/{RICH}/diff?from=3&to=9", 404, headers=alice)

    sid = call("POST", f"/v1/packs/{MOTION}/sessions", 201, json={}, headers=rita).json()["session_id"]
    _files(call, f"/v1/sessions/{sid}/assets/reel", rita)

    # the harbour pack: a migration by plan and one refused
    call("POST", "/v1/packs", 201, content=json.dumps(narrowed(3)).encode(), headers={**alice, **JSON})
    sid = call("POST", "/v1/packs/harbour/sessions", 201, json={"entry": "late"}, headers=alice).json()["session_id"]
    call("POST", f"/v1/sessions/{sid}/turns", 200, json={"turn": 1, "observations": {"way": "south"}}, headers=alice)
    call("POST", f"/v1/sessions/{sid}/migrate", 409, json={"revision": 3}, headers=alice)
    call("POST", f"/v1/sessions/{sid}/migrate", 200, json={"revision": 2}, headers=alice)
    call("GET", f"/v1/sessions/{sid}/transcript", 200, headers=alice)
    return sessions["host"]


def _tokens_and_moderation(call: Driver, alice: dict[str, str], rita: dict[str, str], root: dict[str, str]) -> None:
    made = call("POST", "/v1/tokens", 201, json={"scope": "creator", "name": "phone"}, headers=alice).json()
    limited = call(
        "POST", "/v1/tokens", 201, json={"scope": "creator", "packs": [RICH], "expires_in": 60}, headers=alice
    )
    only_rich = {"Authorization": f"Bearer {limited.json()['token']}"}
    call("DELETE", f"/v1/tokens/{made['id']}", 403, headers=only_rich)  # a limited token revokes only itself
    call("POST", "/v1/tokens", 403, json={"scope": "admin"}, headers=rita)
    call("GET", "/v1/tokens", 200, headers=alice)
    call("DELETE", f"/v1/tokens/{made['id']}", 204, headers=alice)
    call("DELETE", f"/v1/tokens/{'0' * 16}", 404, headers=alice)

    report = call("POST", f"/v1/packs/{RICH}/reports", 201, json={"reason": "spoilers", "details": "x"}, headers=rita)
    call("POST", "/v1/packs/nope/reports", 404, json={"reason": "spam"}, headers=rita)
    call("GET", "/v1/admin/packs", 200, headers=root)
    call("GET", "/v1/admin/packs?limit=1", 200, headers=root)
    call("POST", f"/v1/admin/packs/{RICH}/takedown", 200, json={"reason": "checking"}, headers=root)
    call("GET", f"/v1/packs/{RICH}", 200, headers=alice)  # the owner sees the takedown
    call("DELETE", f"/v1/admin/packs/{RICH}/takedown", 200, headers=root)
    call("GET", "/v1/admin/accounts", 200, headers=root)
    call("POST", "/v1/admin/accounts/rita/disable", 200, json={"reason": "spam"}, headers=root)
    call("POST", "/v1/admin/accounts/rita/enable", 200, headers=root)
    call("POST", "/v1/admin/accounts/newcomer/tokens", 201, json={"scope": "creator"}, headers=root)
    call("GET", "/v1/admin/reports", 200, headers=root)
    call("POST", f"/v1/admin/reports/{report.json()['id']}/resolve", 204, json={"note": "fine"}, headers=root)
    call("GET", "/v1/admin/events", 200, headers=root)


def _errors_any_route_answers(settings: Settings, conformance: Conformance) -> None:
    """400, 401, 403, 404, 413, 415, 431 on every route that lists them; 429 and a narrator's 503 apart."""
    small = replace(settings, data_dir=settings.data_dir / "small", max_body_bytes=300, database_schema=None)
    small = replace(small, database_url=None)
    with TestClient(create_app(small)) as client:
        call = Driver(client, conformance)
        creator, reader = issue(client, "carol"), issue(client, "rita", "reader")
        root = issue(client, "root", "admin")
        client.app.state.services.moderation.set_role("root", "admin")  # type: ignore[attr-defined]
        call.each("400", headers=[("Authorization", "Bearer cpt_a"), ("Authorization", "Bearer cpt_b")])
        call.each("431", headers=_BIG_HEADER)
        call.each("401", headers={"Authorization": "Bearer cpt_unknown"})
        call.each("404", headers=root)
        call.each("415", content=b"x", headers={**root, "Content-Type": "text/plain"})
        call.each("413", content=b"[" + b"0," * 400 + b"0]", headers={**root, **JSON})
        for token in (reader, creator):  # a reader on a creator's route, a creator on an admin's
            call.each("403", headers=token)
    limited = replace(small, data_dir=settings.data_dir / "limited", rate_per_ip=RateLimit(1, 3600))
    with TestClient(create_app(limited)) as client:
        call = Driver(client, conformance)
        call("GET", "/v1/health", 200)
        call.each("429")


def test_a_member_no_shape_names_fails_the_check(stateless_client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Drift is caught: a body with a member its documented schema does not name does not pass.

    The service's own shapes cannot drift (the bytes and the schema come from one dataclass); the
    JSON other layers make (here the reader's view of a turn, ``ReaderView.to_json``) could, and
    the closed schema catches it.
    """
    conformance = Conformance(DOCUMENT)
    client = stateless_client
    alice, rita = issue(client, "alice"), issue(client, "rita", "reader")
    Driver(client, conformance)("POST", "/v1/packs", 201, content=_rich("0.5"), headers={**alice, **JSON})
    Driver(client, conformance)("POST", f"/v1/packs/{RICH}/publish", 200, json={"revision": 3}, headers=alice)
    shown = ReaderView.to_json
    monkeypatch.setattr(ReaderView, "to_json", lambda view: {**shown(view), "mood": "wistful"})
    started = client.post(f"/v1/packs/{RICH}/sessions", json={}, headers=rita)
    assert started.status_code == 201
    with pytest.raises(AssertionError, match="mood"):
        conformance.check(started)
    health = client.get("/v1/health")
    conformance.check(health)
    with pytest.raises(AssertionError, match="uptime"):
        conformance.validate("GET", "/v1/health", "200", {**health.json(), "uptime": 3})
