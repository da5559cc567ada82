"""The pack page's fast path (service/web/pagepath.py) answers as the route does, and forgets what changed.

On SQLite and PostgreSQL. "The route alone" is a second app on the same store with the fast paths off
(``token_cache_seconds=0``); both sign CSRF tokens with the one key the store keeps, so for the same
``cp_csrf`` nonce their pages are byte-equal.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx import Response

from creatorpack.service.app import create_app
from creatorpack.service.settings import Settings
from creatorpack.service.web.cookies import CSRF_COOKIE, SESSION_COOKIE
from tests.service.conftest import hold_first_call, issue, published_bytes
from tests.service.sessions_support import publish, upload
from tests.service.web_support import form_post, sign_in

PAGE = "/packs/moon.garden"
NONCE = "n" * 32
_PER_REQUEST = frozenset({"x-request-id", "ratelimit", "ratelimit-policy"})


def _headers(response: Any) -> list[tuple[str, str]]:
    """The answer's headers in order, but those every answer has its own of (its request id)."""
    return [(k, v) for k, v in response.headers.multi_items() if k not in _PER_REQUEST]


def _loads(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Count the reads of reader views (the route's and the fast path's)."""
    packs = client.app.state.services.packs  # type: ignore[attr-defined]
    calls: list[str] = []
    original = packs.reader

    def counting(account: str | None, pack_id: str) -> Any:
        calls.append(pack_id)
        return original(account, pack_id)

    monkeypatch.setattr(packs, "reader", counting)
    return calls


def _admin(client: TestClient) -> dict[str, str]:
    headers = issue(client, "root", "admin")
    client.app.state.services.moderation.set_role("root", "admin")  # type: ignore[attr-defined]
    return headers


def _title(client: TestClient) -> str | int:
    """The page's <h1>, or its status when it is not 200."""
    client.cookies.clear()
    page: Response = client.get(PAGE)
    if page.status_code != 200:
        return page.status_code
    return page.text.split("<h1>", 1)[1].split("</h1>", 1)[0]


def test_repeated_reads_answer_like_the_route_without_the_store(
    settings: Settings, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = issue(client)
    upload(client, published_bytes(title="Moon <Garden> & co"), alice)
    publish(client, "moon.garden", 1, alice)
    loads = _loads(client, monkeypatch)
    client.cookies.set(CSRF_COOKIE, NONCE)
    first, again = client.get(PAGE), client.get(PAGE)
    assert len(loads) == 1  # the second read came from memory
    with TestClient(create_app(settings.with_changes(token_cache_seconds=0))) as plain:  # the route alone
        plain.cookies.set(CSRF_COOKIE, NONCE)
        routed = plain.get(PAGE)
        plain.cookies.clear()
        routed_fresh = plain.get(PAGE)
    assert "Moon &lt;Garden&gt; &amp; co" in routed.text
    for response in (first, again):
        assert response.status_code == 200
        assert response.content == routed.content  # the same nonce, the same token: byte-equal
        assert _headers(response) == _headers(routed)  # names, values, order
    assert "set-cookie" not in first.headers  # the browser's nonce is kept, as the route keeps it
    # Without a nonce cookie, a fresh one is set exactly as the route sets it, and the form carries its token.
    client.cookies.clear()
    fresh = client.get(PAGE)
    assert len(loads) == 1
    nonce = fresh.cookies[CSRF_COOKIE]
    assert nonce != routed_fresh.cookies[CSRF_COOKIE]
    cookie_attributes = [h.split(";", 1)[1] for h in (fresh.headers["set-cookie"], routed_fresh.headers["set-cookie"])]
    assert cookie_attributes[0] == cookie_attributes[1]
    token = client.app.state.cookies.csrf_token(nonce)  # type: ignore[attr-defined]
    assert fresh.text.count(token) == 1
    assert fresh.text.replace(token, "TOKEN") == routed_fresh.text.replace(
        plain.app.state.cookies.csrf_token(routed_fresh.cookies[CSRF_COOKIE]),  # type: ignore[attr-defined]
        "TOKEN",
    )
    assert _headers(fresh)[:-1] == _headers(routed_fresh)[:-1]
    reported = client.post(f"{PAGE}/report", data={"csrf": token, "reason": "spam"}, follow_redirects=False)
    assert reported.status_code == 200, reported.text  # the spliced token is a working one
    # HEAD is the GET without its body; a conditional request gets the page, as from the route (no validator).
    client.cookies.set(CSRF_COOKIE, NONCE)
    head = client.head(PAGE)
    assert (head.status_code, head.content) == (200, b"")
    assert _headers(head) == _headers(routed)
    conditional = client.get(PAGE, headers={"If-None-Match": "*", "If-Modified-Since": "Fri, 27 Nov 2099 00:00:00 GMT"})
    assert conditional.status_code == 200
    assert len(loads) == 1


def test_publish_unpublish_takedown_and_disable_are_seen_at_once(client: TestClient) -> None:
    alice, root = issue(client), _admin(client)
    upload(client, published_bytes(title="First"), alice)
    publish(client, "moon.garden", 1, alice)
    assert _title(client) == "First"
    upload(client, published_bytes(revision=2, title="Second"), alice)
    publish(client, "moon.garden", 2, alice)
    assert _title(client) == "Second"
    assert client.post("/v1/admin/packs/moon.garden/takedown", json={"reason": "x"}, headers=root).status_code == 200
    assert _title(client) == 404
    assert client.delete("/v1/admin/packs/moon.garden/takedown", headers=root).status_code == 200
    assert _title(client) == "Second"
    assert client.post("/v1/admin/accounts/alice/disable", json={"reason": "x"}, headers=root).status_code == 200
    assert _title(client) == 404
    assert client.post("/v1/admin/accounts/alice/enable", headers=root).status_code == 200
    assert _title(client) == "Second"
    assert client.delete("/v1/packs/moon.garden/publish", headers=alice).status_code == 204
    assert _title(client) == 404


def test_the_dashboards_publish_and_unpublish_are_seen_at_once(client: TestClient) -> None:
    alice = issue(client)
    upload(client, published_bytes(title="First"), alice)
    publish(client, "moon.garden", 1, alice)
    upload(client, published_bytes(revision=2, title="Second"), alice)
    assert _title(client) == "First"
    creator = TestClient(client.app)
    sign_in(creator, alice)
    assert form_post(creator, "/creator/packs/moon.garden/publish", {"revision": "2"}).status_code == 200
    assert _title(client) == "Second"
    assert form_post(creator, "/creator/packs/moon.garden/unpublish").status_code in (200, 303)
    assert _title(client) == 404


@pytest.mark.parametrize("change", ["unpublish", "republish"])
def test_a_read_racing_a_publication_here_keeps_nothing_stale(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """A page load that read the old view while a publish or unpublish ran must not keep it past the change."""
    with TestClient(create_app(settings.with_changes(token_cache_seconds=60))) as client:  # no clock check helps
        alice = issue(client)
        upload(client, published_bytes(title="First"), alice)
        publish(client, "moon.garden", 1, alice)
        if change == "republish":
            upload(client, published_bytes(revision=2, title="Second"), alice)
        held = hold_first_call(client.app.state.services.packs, "reader", monkeypatch)  # type: ignore[attr-defined]
        racing: list[Any] = []
        reader = threading.Thread(target=lambda: racing.append(TestClient(client.app).get(PAGE)))
        reader.start()
        held.wait_started()
        if change == "unpublish":
            assert client.delete("/v1/packs/moon.garden/publish", headers=alice).status_code == 204
        else:
            publish(client, "moon.garden", 2, alice)
        held.release()
        reader.join()
        assert racing[0].status_code == 200  # it began before the change answered: either view is fair
        assert _title(client) == (404 if change == "unpublish" else "Second")


def test_another_process_is_seen_within_the_ttl(settings: Settings) -> None:
    ttl = 0.3
    with (
        TestClient(create_app(settings.with_changes(token_cache_seconds=ttl))) as here,
        TestClient(create_app(settings.with_changes(token_cache_seconds=ttl))) as there,
    ):
        alice = issue(here)
        upload(here, published_bytes(title="First"), alice)
        publish(here, "moon.garden", 1, alice)
        assert _title(here) == "First"
        upload(there, published_bytes(revision=2, title="Second"), alice)
        publish(there, "moon.garden", 2, alice)
        time.sleep(ttl + 0.1)
        assert _title(here) == "Second"
        root = _admin(there)
        assert there.post("/v1/admin/packs/moon.garden/takedown", json={"reason": "x"}, headers=root).status_code == 200
        time.sleep(ttl + 0.1)
        assert _title(here) == 404


def test_signed_in_callers_and_private_packs_go_to_the_route(client: TestClient) -> None:
    alice = issue(client)
    upload(client, published_bytes(title="Mine", visibility="private"), alice)
    publish(client, "moon.garden", 1, alice)
    for _ in range(2):
        assert _title(client) == 404
    owner = TestClient(client.app)
    sign_in(owner, alice)
    assert SESSION_COOKIE in owner.cookies
    for _ in range(2):
        page = owner.get(PAGE)
        assert page.status_code == 200
        assert "Sign out alice" in page.text  # the session-aware header: rendered by the route
    assert client.get("/packs/no.such.pack").status_code == 404
