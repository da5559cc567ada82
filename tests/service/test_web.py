"""The web pages (service/web) with the TestClient, on SQLite and PostgreSQL: content, escaping, visibility,
the validator's bounded report, sign-in cookies, CSRF, the sign-in rate limit, the dashboard and play."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from creatorpack.service.api.security import CONTENT_SECURITY_POLICY
from creatorpack.service.store import SqlTokenStore
from creatorpack.service.web import catalog as catalog_pages
from creatorpack.service.web.cookies import CSRF_COOKIE, SESSION_COOKIE
from tests.conftest import EXAMPLES, example
from tests.service.conftest import issue, published_bytes
from tests.service.sessions_support import publish, rich_bytes, upload
from tests.service.web_support import csrf, form_post, sign_in, text_of

HOSTILE = "<img src=x onerror=alert(1)>"


def _publish(client: TestClient, headers: dict[str, str], pack_id: str, **fields: object) -> None:
    upload(client, published_bytes(pack_id, **fields), headers)  # type: ignore[arg-type]
    publish(client, pack_id, 1, headers)


def _assert_page(response: object, status: int = 200) -> None:
    assert response.status_code == status, response.text[:400]  # type: ignore[attr-defined]
    headers = response.headers  # type: ignore[attr-defined]
    assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "unsafe-eval" not in CONTENT_SECURITY_POLICY
    assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"


def test_every_page_carries_the_security_headers(client: TestClient) -> None:
    alice = issue(client)
    _publish(client, alice, "moon.garden")
    for path in ("/", "/validate", "/signin", "/packs/moon.garden", "/play/moon.garden"):
        page = client.get(path)
        _assert_page(page)
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        assert "<script>" not in page.text
        assert " style=" not in page.text
        for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text):
            _assert_page(client.get(asset))
    _assert_page(client.get("/packs/no.such.pack"), 404)
    _assert_page(client.get("/static/0000/web.css"), 404)
    sign_in(client, alice)
    for path in ("/creator", "/creator/packs/moon.garden"):
        _assert_page(client.get(path))


def test_the_catalog_searches_filters_and_pages_without_javascript(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = issue(client)
    _publish(client, alice, "moon.garden", title="Moon Garden", genres=["mystery"], tags=["cosy"])
    _publish(client, alice, "sun.yard", title="Sun Yard", language="zh", tagline="A bright yard.")
    _publish(client, alice, "dark.cellar", title="Dark Cellar", age_rating="adult")
    _publish(client, alice, "hidden.door", title="Hidden Door", visibility="unlisted")
    _publish(client, alice, "own.room", title="Own Room", visibility="private")
    page = text_of(client.get("/"))
    assert "Moon Garden" in page
    assert "Sun Yard" in page
    assert "Dark Cellar" not in page
    assert "Hidden Door" not in page
    assert "Own Room" not in page
    assert "Dark Cellar" in text_of(client.get("/", params={"age_rating": "adult"}))
    assert "Sun Yard" not in text_of(client.get("/", params={"q": "moon"}))
    assert "Moon Garden" not in text_of(client.get("/", params={"language": "zh"}))
    assert "Sun Yard" not in text_of(client.get("/", params={"genre": "mystery"}))
    assert "Moon Garden" in text_of(client.get("/", params={"tag": "cosy"}))
    assert "No pack matches" in text_of(client.get("/", params={"q": "nothing-like-this"}))
    _assert_page(client.get("/", params={"language": "fr"}), 400)
    _assert_page(client.get("/", params={"cursor": "forged"}), 400)
    monkeypatch.setattr(catalog_pages, "PAGE_SIZE", 1)
    seen: list[str] = []
    path: str | None = "/?q="
    while path is not None:
        page_html = client.get(path).text
        seen += re.findall(r'<a href="/packs/([^"/]+)" class="cover-link"', page_html)
        found = re.search(r'<a href="([^"]+)" rel="next"', page_html)
        path = found.group(1).replace("&amp;", "&") if found else None
    assert sorted(seen) == ["moon.garden", "sun.yard"]


def test_a_hostile_title_renders_as_text_on_every_page(client: TestClient) -> None:
    alice = issue(client)
    upload(client, published_bytes("moon.garden", title=HOSTILE, tagline=HOSTILE, description=HOSTILE), alice)
    publish(client, "moon.garden", 1, alice)
    sign_in(client, alice)
    started = form_post(client, "/play/moon.garden", {"entry": ""})
    for path in ("/", "/packs/moon.garden", "/creator", started.headers["location"], "/play/moon.garden"):
        html = client.get(path).text
        assert HOSTILE not in html, path
        assert "&lt;img src=x onerror=alert(1)&gt;" in html or path.startswith("/creator"), path


def test_pages_obey_the_readers_visibility_rules(client: TestClient) -> None:
    alice = issue(client)
    _publish(client, alice, "own.room", title="Own Room", visibility="private")
    _publish(client, alice, "hidden.door", title="Hidden Door", visibility="unlisted")
    _publish(client, alice, "taken.down", title="Taken Down")
    assert client.get("/packs/own.room").status_code == 404
    assert "Hidden Door" in text_of(client.get("/packs/hidden.door"))
    root = SqlTokenStore(client.app.state.database)  # type: ignore[attr-defined]
    admin = issue(client, "root", "admin")
    root.set_role("root", "admin")
    services = client.app.state.services  # type: ignore[attr-defined]
    services.moderation.takedown(services.auth.authenticate(admin["Authorization"]), "taken.down", "rights")
    assert client.get("/packs/taken.down").status_code == 404
    assert "Taken Down" not in text_of(client.get("/"))
    sign_in(client, alice)
    assert "Own Room" in text_of(client.get("/packs/own.room"))  # the owner reads it
    with TestClient(client.app) as other:
        sign_in(other, issue(client, "bob"))
        assert other.get("/packs/own.room").status_code == 404
        assert other.get("/creator/packs/own.room").status_code == 404


def test_the_pack_page_shows_the_reader_view(client: TestClient) -> None:
    alice = issue(client)
    upload(client, rich_bytes("0.5"), alice)
    publish(client, "harbour-light", 3, alice)
    page = text_of(client.get("/packs/harbour-light"))
    pack = example("0.5", "rich")
    for text in (pack["manifest"]["title"], pack["publication"]["tagline"], pack["publication"]["creator_credit"]):
        assert text in page
    assert "Mara" in page
    assert "Play" in page
    assert "Report this pack" in page
    assert "Keeper of the Light" not in page  # an ending's title is the narrator's


def test_the_validator_marks_lines_suggests_fixes_and_links_the_schema(client: TestClient) -> None:
    broken = json.dumps(example("0.5", "minimal"), indent=2).replace('"title"', '"titel"', 1)
    page = form_post(client, "/validate", {"pack": broken})
    _assert_page(page)
    line = next(n for n, text in enumerate(broken.split("\n"), 1) if '"titel"' in text)
    assert f'<a href="#L{line}">{line}:' in page.text
    assert re.search(rf'<li id="L{line}" value="{line}" class="marked">', page.text)
    assert "additional-property" in page.text
    assert "Did you mean <code>title</code>" in page.text
    assert 'href="/validate/schema/0.5.json"' in page.text
    schema = client.get("/validate/schema/0.5.json")
    assert schema.status_code == 200
    assert schema.json()["$id"].endswith("pack-0.5.json")
    assert "attachment" in schema.headers["content-disposition"]
    assert client.get("/validate/schema/9.9.json").status_code == 404
    valid = form_post(client, "/validate", files={"file": ("pack.json", json.dumps(example("0.5", "minimal")))})
    assert "Valid (contract 0.5)" in text_of(valid)
    unreadable = form_post(client, "/validate", {"pack": "{not json"})
    assert unreadable.status_code == 200
    assert "Not valid" in text_of(unreadable)


def test_the_validator_bounds_what_it_renders_of_a_big_pack(client: TestClient) -> None:
    doc = example("0.5", "minimal")
    doc["manifest"]["padding"] = ["x" * 10] * 60_000  # a long pack: one line per item once indented
    text = json.dumps(doc, indent=1)
    page = form_post(client, "/validate", files={"file": ("big.json", text)})
    assert page.status_code == 200
    assert len(page.text) < 200_000 < len(text)
    assert "lines around the findings" in page.text


def test_a_cross_site_post_is_refused(client: TestClient) -> None:
    alice = issue(client)
    assert client.post("/validate", data={"pack": "{}"}).status_code == 403  # no token
    token = csrf(client)
    assert client.post("/validate", data={"pack": "{}", "csrf": token + "x"}).status_code == 403
    evil = {"Origin": "https://evil.example"}
    assert client.post("/validate", data={"pack": "{}", "csrf": token}, headers=evil).status_code == 403
    with TestClient(client.app) as stranger:  # another browser: its own nonce cookie, so the token is not its
        assert stranger.post("/validate", data={"pack": "{}", "csrf": token}).status_code == 403
    sign_in(client, alice)
    assert client.post("/signout", data={}, follow_redirects=False).status_code == 403
    assert client.post("/creator/packs/x/publish", data={"revision": "1"}).status_code == 403
    assert "My packs" in client.get("/creator").text  # still signed in


def test_sign_in_sets_a_signed_httponly_lax_cookie_without_the_token(client: TestClient) -> None:
    alice = issue(client)
    token = alice["Authorization"].removeprefix("Bearer ")
    answer = form_post(client, "/signin", {"token": token})
    assert answer.status_code == 303
    assert answer.headers["location"] == "/creator"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=")
    assert "HttpOnly" in cookie
    assert "SameSite=lax" in cookie
    assert "Secure" not in cookie  # plain http
    assert token not in cookie
    assert token.removeprefix("cpt_") not in cookie
    assert "alice" in client.get("/creator").text
    wrong = form_post(client, "/signin", {"token": "cpt_nope"})
    assert wrong.status_code == 401
    assert "unknown or revoked token" in wrong.text
    client.cookies.set(SESSION_COOKIE, client.cookies[SESSION_COOKIE].split(".")[0] + ".AAAA")  # forged: signed out
    assert client.get("/creator", follow_redirects=False).headers["location"].startswith("/signin")
    with TestClient(client.app, base_url="https://testserver") as secure:
        nonce = secure.get("/validate").headers["set-cookie"]
        assert nonce.startswith(f"{CSRF_COOKIE}=")
        assert "Secure" in nonce
        assert "HttpOnly" in nonce
        answer = form_post(secure, "/signin", {"token": token})
        assert "Secure" in answer.headers["set-cookie"]


def test_a_revoked_token_ends_the_web_session(client: TestClient) -> None:
    alice = issue(client)
    sign_in(client, alice)
    services = client.app.state.services  # type: ignore[attr-defined]
    record = services.auth.authenticate(alice["Authorization"])
    services.auth.revoke(record.id)
    assert client.get("/creator", follow_redirects=False).status_code == 303


def test_sign_in_attempts_are_rate_limited(client: TestClient) -> None:
    for _ in range(10):
        assert form_post(client, "/signin", {"token": "cpt_guess"}).status_code == 401
    refused = form_post(client, "/signin", {"token": "cpt_guess"})
    assert refused.status_code == 429
    assert int(refused.headers["retry-after"]) > 0


def test_the_dashboard_uploads_publishes_unpublishes_diffs_and_journals(client: TestClient) -> None:
    sign_in(client, issue(client))
    assert "No pack yet" in text_of(client.get("/creator"))
    first = form_post(client, "/creator/upload", files={"file": ("p.json", published_bytes("moon.garden"))})
    assert first.status_code == 303
    assert first.headers["location"] == "/creator/packs/moon.garden?uploaded=1"
    second = form_post(client, "/creator/upload", files={"file": ("p.json", published_bytes("moon.garden", 2))})
    assert second.status_code == 303
    refused = form_post(client, "/creator/upload", files={"file": ("p.json", b'{"protocol_version": "0.5"}')})
    assert refused.status_code == 422
    assert "required" in refused.text
    page = text_of(client.get("/creator/packs/moon.garden"))
    assert "no error" in page
    assert "upload revision 2" in page
    published = form_post(client, "/creator/packs/moon.garden/publish", {"revision": "2"})
    assert published.status_code == 200
    assert "is published" in published.text
    assert "moon.garden" in client.get("/").text
    diff = client.get("/creator/packs/moon.garden/diff", params={"old": "1", "new": "2"})
    assert diff.status_code == 200
    assert "revision 1 → 2" in text_of(diff)
    journal = text_of(client.get("/creator/packs/moon.garden"))
    assert "publish revision 2" in journal
    assert form_post(client, "/creator/packs/moon.garden/unpublish").status_code == 303
    assert "moon.garden" not in client.get("/").text
    lint_failing = published_bytes("moon.garden", 3, cover_asset_id="nope")
    form_post(client, "/creator/upload", files={"file": ("p.json", lint_failing)})
    assert "1 error(s)" in text_of(client.get("/creator/packs/moon.garden"))
    gate = form_post(client, "/creator/packs/moon.garden/publish", {"revision": "3"})
    assert gate.status_code == 422
    assert "lint found errors" in gate.text
    assert "unknown-reference" in gate.text
    asset = form_post(client, "/creator/assets", files={"file": ("a.png", b"\x89PNG\r\n\x1a\n" + b"pixels" * 10)})
    assert asset.status_code == 200
    assert "image/png" in asset.text


def test_a_reader_token_cannot_use_the_dashboard(client: TestClient) -> None:
    sign_in(client, issue(client, "rita", "reader"))
    assert client.get("/creator").status_code == 403


def _answers(line: dict[str, Any]) -> dict[str, str]:
    """A playthrough line's observations as the turn form sends them."""
    return {
        f"obs.{k}": ("true" if v else "false") if isinstance(v, bool) else str(v)
        for k, v in line["observations"].items()
    }


def _turn_form(html: str) -> dict[str, str]:
    """The turn form's hidden turn number."""
    found = re.search(r'name="turn" value="(\d+)"', html)
    assert found is not None
    return {"turn": found.group(1)}


def test_the_owner_plays_to_an_ending_with_an_undo(client: TestClient) -> None:
    alice = issue(client)
    upload(client, rich_bytes("0.5"), alice)
    publish(client, "harbour-light", 3, alice)
    sign_in(client, alice)
    started = form_post(client, "/play/harbour-light", {"entry": "opening"})
    assert started.status_code == 303
    session = started.headers["location"]
    page = client.get(session).text
    assert "Narrator panel" in page
    assert "Did the reader help the shivering stranger" in page
    lines = [json.loads(x) for x in (EXAMPLES / "0.5" / "playthrough.jsonl").read_text().splitlines()]
    played = form_post(client, f"{session}/turn", {**_turn_form(page), **_answers(lines[0])})
    assert played.status_code == 303
    page = client.get(session).text
    assert 'class="changed"' in page
    assert "Turn 1" in page
    undone = form_post(client, f"{session}/undo")
    session = undone.headers["location"]
    back = client.get(session).text
    assert "Turn 0 ·" in back
    assert "/undo" not in back
    for line in lines:
        turn = {**_turn_form(client.get(session).text), **_answers(line)}
        assert form_post(client, f"{session}/turn", turn).status_code == 303
    end = text_of(client.get(session))
    assert "The end: Keeper of the Light" in end
    assert "two Quells sit together" in end
    restarted = form_post(client, f"{session}/restart")
    assert "Turn 0" in text_of(client.get(restarted.headers["location"]))


def test_a_reader_sees_the_reader_view_only(client: TestClient) -> None:
    alice = issue(client)
    upload(client, rich_bytes("0.5"), alice)
    publish(client, "harbour-light", 3, alice)
    assert "Sign in to play" in client.get("/play/harbour-light").text
    sign_in(client, issue(client, "rita", "reader"))
    session = form_post(client, "/play/harbour-light", {"entry": "opening"}).headers["location"]
    page = client.get(session).text
    assert "reader view" in page
    assert "Narrator panel" not in page
    assert "Did the reader" not in page
    assert "trust" not in text_of(client.get(session)).casefold().replace("trusts", "")
    assert form_post(client, f"{session}/turn", _turn_form(page)).status_code == 303
    assert "Turn 1" in client.get(session).text
    with TestClient(client.app) as other:
        sign_in(other, issue(client, "bob"))
        assert other.get(session).status_code == 404  # another account's session does not exist for it


def test_reporting_a_pack(client: TestClient) -> None:
    alice = issue(client)
    _publish(client, alice, "moon.garden")
    sent = form_post(client, "/packs/moon.garden/report", {"reason": "spam", "details": "buy now"})
    assert sent.status_code == 200
    assert "Thank you" in sent.text
    assert form_post(client, "/packs/moon.garden/report", {"reason": "nope"}).status_code == 400
    assert form_post(client, "/packs/no.such/report", {"reason": "spam"}).status_code == 404
