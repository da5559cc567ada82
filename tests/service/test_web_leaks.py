"""Nothing a story hides reaches readers through the web pages: the leak crawl of issue 27.

As ``test_leaks.py`` does for the API: publish each rich example (0.3, 0.4, 0.5: their pack ids
differ) with real files for its assets, then crawl every page an anonymous visitor, a signed-in
reader and a signed-in creator of other packs can reach: the catalog (with searches for every word
of the secrets), the pack page and its files, the play pages (a reader's session played, undone and
restarted), the dashboard's pages of the pack, the report form, error pages. No private string (the
instructions, guidance, knowledge, unrevealed cards, state member names, ...) may appear in a page or
its headers, raw or once HTML entities are decoded, except where the request itself sent it.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

from creatorpack import Engine
from creatorpack.play import ReaderView, Session
from creatorpack.play.model import Turn
from tests.service.conftest import JSON, issue
from tests.service.test_leaks import RICH, _baseline, _found, _pack, _secrets, _session_secrets, _upload_files
from tests.service.web_support import form_post, sign_in

_WORD = re.compile(r"[^\W_]+")
_MAX_WORDS = 150  # catalog searches per caller and pack (the words of the secrets, spread over the alphabet)


def _web_baseline(client: TestClient) -> str:
    """What the pages say before any pack exists: the empty pages, the schema downloads, error pages."""
    with TestClient(client.app) as visitor:
        texts = [visitor.get(p).text for p in ("/", "/validate", "/signin", "/play/x", "/packs/x", "/creator")]
        texts += [visitor.get(f"/validate/schema/{v}.json").text for v in ("0.2", "0.3", "0.4", "0.5")]
    return "\n".join(texts)


def _leaks(response: httpx.Response, secrets: set[str], sent: str) -> list[str]:
    head = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
    text = response.text + "\n" + html.unescape(response.text) + "\n" + head
    return sorted(s for s in secrets if _found(s, text) and s not in sent)


class _Crawler:
    """One caller's browser: requests pages and checks each against the secrets."""

    def __init__(self, client: TestClient, name: str) -> None:
        self.client = client
        self.name = name
        self.statuses: set[int] = set()

    def check(self, response: httpx.Response, secrets: set[str], sent: str = "") -> httpx.Response:
        leaks = _leaks(response, secrets, str(response.request.url) + "\n" + sent)
        assert leaks == [], (self.name, response.request.method, str(response.request.url), leaks[:5])
        self.statuses.add(response.status_code)
        return response

    def get(self, path: str, secrets: set[str], **params: str) -> httpx.Response:
        return self.check(self.client.get(path, params=params or None, follow_redirects=False), secrets)

    def post(self, path: str, secrets: set[str], data: dict[str, str] | None = None) -> httpx.Response:
        answer = form_post(self.client, path, data)
        return self.check(answer, secrets, json.dumps(data or {}))


def _pages(pack: dict[str, object], secrets: set[str]) -> Iterator[tuple[str, dict[str, str]]]:
    manifest = pack["manifest"]
    assert isinstance(manifest, dict)
    pack_id, revision = manifest["pack_id"], manifest["revision"]
    yield "/", {}
    yield "/", {"age_rating": "all"}
    yield "/", {"q": "lighthouse"}
    yield "/", {"cursor": "forged"}
    words = sorted({w for s in secrets for w in _WORD.findall(s)})
    step = max(1, len(words) // _MAX_WORDS)
    for word in words[::step]:
        yield "/", {"q": word}
    for path in (f"/packs/{pack_id}", f"/play/{pack_id}", "/creator", f"/creator/packs/{pack_id}", "/validate"):
        yield path, {}
    yield f"/creator/packs/{pack_id}/diff", {"old": "1", "new": str(revision)}
    yield f"/play/{pack_id}", {"entry": "opening"}
    assets = pack["assets"]
    assert isinstance(assets, list)
    for asset in [*assets, {"id": "no_such_asset"}]:
        yield f"/packs/{pack_id}/files/{asset['id']}", {}


def _reader_views(pack: dict[str, object], turns: int) -> list[ReaderView]:
    """What the runtime shows a reader who plays ``turns`` turns with no observation from the first entry."""
    reference = Session.start(Engine(pack), None)
    assert reference.last is not None
    views = [reference.last.reader_view()]
    views += [reference.turn(Turn().observations).reader_view() for _ in range(turns)]
    return views


@pytest.mark.parametrize("version", RICH)
def test_no_private_string_reaches_readers_through_the_pages(client: TestClient, version: str) -> None:
    pack = _pack(version)
    secrets = _secrets(pack, _baseline(client) + "\n" + _web_baseline(client))
    assert len(secrets) > 100
    state_members = set(pack["runtime"]["state"]["schema"]["properties"])
    assert len(state_members & secrets) >= 2  # state member names are among them (others are public words too)
    pack_id, revision = pack["manifest"]["pack_id"], pack["manifest"]["revision"]
    alice = issue(client, "alice")
    assert client.post("/v1/packs", content=json.dumps(pack).encode(), headers={**alice, **JSON}).status_code == 201
    _upload_files(client, pack, alice)
    published = client.post(f"/v1/packs/{pack_id}/publish", json={"revision": revision}, headers=alice)
    assert published.status_code == 200, published.text
    crawlers: list[_Crawler] = []
    for name, scope_account in {
        "anonymous": None,
        "reader": ("rita", "reader"),
        "other creator": ("bob", "creator"),
    }.items():
        browser = TestClient(client.app)
        if scope_account is not None:
            sign_in(browser, issue(client, *scope_account))
        crawlers.append(_Crawler(browser, name))
    for crawler in crawlers:
        for path, params in _pages(pack, secrets):
            crawler.get(path, secrets, **params)
        crawler.post(f"/packs/{pack_id}/report", secrets, {"reason": "spoilers", "details": "a spoiler"})
        crawler.post("/validate", secrets, {"pack": "{}"})
    reader = crawlers[1]
    started = reader.post(f"/play/{pack_id}", secrets, {"entry": ""})
    assert started.status_code == 303, started.text
    session = started.headers["location"]
    played = 0
    for _ in range(3):
        now = _session_secrets(secrets, _reader_views(pack, played), pack)
        page = reader.get(session, now)
        assert page.status_code == 200
        assert "Narrator panel" not in page.text
        if "Play turn" not in page.text:
            break
        reader.post(f"{session}/turn", now, {"turn": str(played + 1)})
        played += 1
    now = _session_secrets(secrets, _reader_views(pack, played), pack)
    reader.get(session, now)
    undone = reader.post(f"{session}/undo", now)
    reader.get(undone.headers["location"], now)
    restarted = reader.post(f"{session}/restart", now)
    reader.get(restarted.headers["location"], now)
    for stranger in (crawlers[0], crawlers[2]):  # the reader's session does not exist for them
        assert stranger.get(session, secrets).status_code in (303, 404)
        stranger.post(f"{session}/turn", secrets, {"turn": "1"})
        stranger.post(f"{session}/undo", secrets)
    for crawler in crawlers:
        crawler.client.close()
    statuses = set().union(*(c.statuses for c in crawlers))
    assert {200, 303, 400, 404} <= statuses
