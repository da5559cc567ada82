"""Nothing a story hides reaches its readers: the leak test of issue 10, on SQLite and PostgreSQL.

For each rich example pack: collect every string (values and keys) that only its private parts hold,
that is every string of the pack that the reader view does not hold (nor contain as part of a longer
string), leaving out what the service says anyway before the pack exists (its OpenAPI document, its
error texts). Publish the pack as public, with real files for its covers, then request every route a
reader token, another creator or an anonymous caller can reach: every GET, every error, the catalog
with searches for every word of those strings, cursors and Link headers, the OpenAPI document. None
of those strings may appear in any body or header, except where the request itself sent it (a path
echoed in a problem's ``instance``, say).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from creatorpack import Engine
from creatorpack.service.reader import reader_view
from tests.conftest import example
from tests.service.conftest import JSON, issue

RICH = ("0.3", "0.4", "0.5")
JPEG = b"\xff\xd8\xff\xe0" + b"cover still" * 50
MP4 = b"\x00\x00\x00\x18ftypmp42" + b"cover motion" * 200
_WORD = re.compile(r"[^\W_]+")


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from _strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)


def _pack(version: str) -> dict[str, Any]:
    """The rich example, public, its covers pointing at files this test uploads."""
    pack = example(version, "rich")
    pack["publication"]["visibility"] = "public"
    files = {pack["publication"]["cover_asset_id"]: JPEG, pack["publication"]["cover_motion_asset_id"]: MP4}
    renamed = {}
    for asset in pack["assets"]:
        if asset["id"] in files:
            renamed[asset["sha256"]] = hashlib.sha256(files[asset["id"]]).hexdigest()
            asset["byte_size"] = len(files[asset["id"]])
    text = json.dumps(pack)
    for old, new in renamed.items():  # the assets and the generation records that name them
        text = text.replace(old, new)
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _keys(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from _keys(value)
    elif isinstance(node, list):
        for item in node:
            yield from _keys(item)


def _public(pack: dict[str, Any]) -> set[str]:
    """The strings issue 10 lets readers see, taken from the pack itself (not from the service's reader view).

    The runtime's own reader view at the start of the default entry says which cards, card parts and
    assets are revealed; the reader view's field names are public too.
    """
    _, start = Engine(pack).start()
    seen = start.reader_view()
    manifest, publication = pack["manifest"], pack["publication"]
    public = {manifest["pack_id"], manifest["title"], manifest["language"]}
    for name in ("tagline", "description", "creator_credit", "age_rating", "cover_asset_id", "cover_motion_asset_id"):
        public.add(publication.get(name) or "")
    public |= set(_strings(publication["rights"]))
    for name in ("content_warnings", "genres", "tags", "target_audience"):
        public |= set(publication.get(name, []))
    public |= {e.get(k) for e in pack["entries"] for k in ("id", "title") if e.get(k)}
    progression = pack.get("progression", {})
    for achievement in progression.get("achievements", []):
        if achievement.get("visibility") != "hidden":
            public |= {achievement["id"], achievement["title"], achievement["description"]}
    public |= {b[k] for b in progression.get("badges", []) for k in ("id", "title")}
    reachable = set(seen.assets)
    for card in pack.get("reader_cards", []):
        if card["id"] not in seen.revealed["reader_cards"]:
            continue
        public |= {card["id"], card.get("kind", "actor"), card["display_name"], card["introduction"]}
        for part, kind in (("avatar", "avatars"), ("image", "images")):
            found = card.get(part)
            if found and card["id"] in seen.revealed[kind] and found["asset_id"] in reachable:
                public.add(found["asset_id"])
        for relation in card.get("relationships", []):
            if f"{card['id']}/{relation['actor_id']}" in seen.revealed["relationships"]:
                public |= {relation["actor_id"], relation["label"]}
    view = reader_view(pack, seen, "2026-01-01T00:00:00+00:00").to_json()
    public |= set(_keys(view))
    # A cover is public: its sha256 (its ETag, derivable from its bytes) and MIME type (its Content-Type) too.
    covers = [
        a for a in pack["assets"] if a["id"] in (publication["cover_asset_id"], publication["cover_motion_asset_id"])
    ]
    return public | {a["sha256"] for a in covers} | {a["mime_type"] for a in covers}


def _baseline(client: TestClient) -> str:
    """What the service says before the pack exists: its documents and error texts."""
    texts = [client.get("/openapi.json").text, client.get("/v1/health").text]
    paths = ("/v1/catalog", "/v1/catalog?limit=0", "/v1/packs/x/reader", "/v1/packs/x", "/v1/nope")
    texts += [client.get(p).text for p in paths]
    texts.append(client.put("/v1/packs/x/reader").text)
    texts.append(client.post("/v1/packs/x/publish", json={"revision": 1}).text)
    return "\n".join(texts)


def _secrets(pack: dict[str, Any], baseline: str) -> set[str]:
    public = _public(pack)
    private = {s for s in _strings(pack) if s.strip()} - public
    return {s for s in private if not any(s in p for p in public) and s not in baseline}


def _requests(pack: dict[str, Any], secrets: set[str]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    pack_id, revision = pack["manifest"]["pack_id"], pack["manifest"]["revision"]
    base = f"/v1/packs/{pack_id}"
    yield "GET", "/openapi.json", {}
    yield "GET", "/v1/health", {}
    yield "GET", f"{base}/reader", {}
    yield "GET", f"{base}/reader", {"headers": {"If-None-Match": '"x"'}}
    for path in (base, f"{base}/revisions/{revision}", f"{base}/revisions/1", f"{base}/events", f"{base}/publish"):
        yield "GET", path, {}
    yield "POST", f"{base}/publish", {"json": {"revision": revision}}
    yield "DELETE", f"{base}/publish", {}
    yield "DELETE", f"{base}/revisions/{revision}", {}
    yield "PUT", f"{base}/reader", {}
    yield "POST", "/v1/packs", {"content": json.dumps(pack).encode(), "headers": JSON}
    yield "PUT", "/v1/assets/" + "0" * 64, {"content": JPEG}
    yield "GET", "/v1/no/such/route", {}
    for asset in [*pack["assets"], {"id": "no_such_asset"}]:
        yield "GET", f"{base}/assets/{asset['id']}", {}
        yield "GET", f"{base}/assets/{asset['id']}", {"params": {"revision": revision}}
        yield "GET", f"{base}/assets/{asset['id']}", {"headers": {"Range": "bytes=0-9"}}
    yield "GET", f"{base}/assets/cover_motion", {"headers": {"Range": "bytes=999999999-"}}
    cover = next(a for a in pack["assets"] if a["id"] == "cover_still")
    yield "GET", f"{base}/assets/cover_still", {"headers": {"If-None-Match": f'"{cover["sha256"]}"'}}
    publication = pack["publication"]
    catalog: list[dict[str, Any]] = [
        {},
        {"limit": 1},
        {"sort": "title"},
        {"sort": "relevance", "q": "lighthouse"},
        {"language": pack["manifest"]["language"]},
        {"age_rating": ["general", "adult"]},
        {"cursor": "forged.cursor"},
        {"limit": 0},
        *({"tag": t} for t in publication.get("tags", [])),
        *({"genre": g} for g in publication.get("genres", [])),
        *({"exclude_tag": t} for t in publication.get("tags", [])),
    ]
    words = sorted({w for s in secrets for w in _WORD.findall(s)})
    catalog += [{"q": word, "limit": 1} for word in words]
    catalog += [{"tag": s} for s in sorted(secrets) if len(s) < 200][:200]
    for params in catalog:
        yield "GET", "/v1/catalog", {"params": params}


def _sent(method: str, path: str, options: dict[str, Any]) -> str:
    request = httpx.Request(method, "http://testserver" + path, params=options.get("params"))
    return str(request.url) + "\n" + json.dumps(options.get("params") or {}) + "\n" + path


def _leaks(response: httpx.Response, secrets: set[str], sent: str) -> list[str]:
    text = response.text + "\n" + "\n".join(f"{k}: {v}" for k, v in response.headers.items())
    return sorted(s for s in secrets if _found(s, text) and s not in sent)


def _found(secret: str, text: str) -> bool:
    """Whether ``secret`` is in ``text``; a short one (``0.4``) only as a token of its own, so that a
    timestamp such as ``10:06:50.412`` does not count as leaking the pack's ``protocol_version``."""
    if len(secret) >= _SHORT:
        return secret in text
    return re.search(rf"(?<![\w.:+-]){re.escape(secret)}(?![\w.:+-])", text) is not None


_SHORT = 6


@pytest.mark.parametrize("version", RICH)
def test_no_private_string_reaches_readers_other_creators_or_anonymous_callers(
    client: TestClient, version: str
) -> None:
    pack = _pack(version)
    secrets = _secrets(pack, _baseline(client))
    assert len(secrets) > 100  # the instructions, runtime, endings, castings, ... of a rich pack
    for probe in ("instructions", "runtime", "provenance"):  # the private parts' own texts are among them
        assert any(s in secrets for s in _strings(pack.get(probe))), probe
    alice = issue(client, "alice")
    body = json.dumps(pack).encode()
    assert client.post("/v1/packs", content=body, headers={**alice, **JSON}).status_code == 201
    for data in (JPEG, MP4):
        digest = hashlib.sha256(data).hexdigest()
        assert client.put(f"/v1/assets/{digest}", content=data, headers=alice).status_code == 201
    published = client.post(
        f"/v1/packs/{pack['manifest']['pack_id']}/publish",
        json={"revision": pack["manifest"]["revision"]},
        headers=alice,
    )
    assert published.status_code == 200, published.text
    callers = {"anonymous": {}, "reader": issue(client, "rita", "reader"), "other creator": issue(client, "bob")}
    statuses: set[int] = set()
    for name, headers in callers.items():
        for method, path, options in _requests(pack, secrets):
            sent_headers = {**options.get("headers", {}), **headers}
            response = client.request(method, path, **{**options, "headers": sent_headers})
            statuses.add(response.status_code)
            leaks = _leaks(response, secrets, _sent(method, path, options))
            assert leaks == [], (name, method, path, options.get("params"), response.status_code, leaks[:5])
    # the probes reached the happy paths and the errors alike
    assert {200, 206, 304, 400, 401, 403, 404, 405, 416} <= statuses


def test_the_catalog_finds_the_pack_by_its_public_words_only(client: TestClient) -> None:
    pack = _pack("0.5")
    alice = issue(client, "alice")
    client.post("/v1/packs", content=json.dumps(pack).encode(), headers={**alice, **JSON})
    client.post("/v1/packs/harbour-light/publish", json={"revision": 3}, headers=alice)
    assert [i["pack_id"] for i in client.get("/v1/catalog", params={"q": "lighthouse"}).json()["items"]] == [
        "harbour-light"
    ]
    # words only the instructions and endings hold find nothing
    for word in ("narrate", "estranged", "moorings"):
        assert word not in " ".join(_public(pack)).casefold()
        assert client.get("/v1/catalog", params={"q": word}).json()["items"] == []
