"""Nothing a story hides reaches its readers: the leak test of issue 10, on SQLite and PostgreSQL.

For each rich example pack: collect every string (values and keys) that only its private parts hold,
that is every string of the pack that the reader view does not hold (nor contain as part of a longer
string), leaving out what the service says anyway before the pack exists (its OpenAPI document, its
error texts). Publish the pack as public, with real files for all its assets, then request every route a
reader token, another creator or an anonymous caller can reach: every GET, every error, the catalog
with searches for every word of those strings, cursors and Link headers, the OpenAPI document. None
of those strings may appear in any body or header, except where the request itself sent it (a path
echoed in a problem's ``instance``, say).

Part 3 (play sessions): a reader plays the example's playthrough and starts sessions at every entry,
probing at every turn every session route (the session, its transcript, every asset with and without
a range, turns that conflict, misfit or are malformed, migration, the diff); another creator and
anonymous callers probe the same sessions; a revision the played session no longer fits is published
and the reader migrates; and the limits' errors (413, 429, 431) are provoked. There the reader sees the
runtime's reader view of that session so far: its ids (and the sha256 and type of each file it lets the
reader fetch) are public for those responses, and nothing else may show.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from creatorpack import Engine
from creatorpack.diff import migration_plan
from creatorpack.play import ReaderView, Session, parse_script
from creatorpack.service.app import create_app
from creatorpack.service.reader import reader_view
from creatorpack.service.settings import RateLimit, Settings
from creatorpack.service.shapes import plain
from tests.conftest import EXAMPLES, example
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


_MAGIC = {
    "image/png": b"\x89PNG\r\n\x1a\n",
    "image/apng": b"\x89PNG\r\n\x1a\nacTL",
    "image/jpeg": b"\xff\xd8\xff\xe0",
    "image/webp": b"RIFF\x00\x00\x00\x00WEBP",
    "audio/wav": b"RIFF\x00\x00\x00\x00WAVE",
    "audio/mpeg": b"ID3\x04",
    "video/mp4": b"\x00\x00\x00\x18ftypmp42",
}
"""The first bytes of a file of each of the contract's types, as the upload sniffs them."""


def _file(pack: dict[str, Any], asset: dict[str, Any]) -> bytes:
    covers = {pack["publication"]["cover_asset_id"]: JPEG, pack["publication"]["cover_motion_asset_id"]: MP4}
    return covers.get(asset["id"]) or _MAGIC[asset["mime_type"]] + f"the file of {asset['id']}. ".encode() * 20


def _pack(version: str) -> dict[str, Any]:
    """The rich example, public, every asset pointing at a file of its type that this test uploads."""
    pack = example(version, "rich")
    pack["publication"]["visibility"] = "public"
    renamed: dict[str, str] = {}
    for asset in pack["assets"]:
        data = _file(pack, asset)
        renamed.setdefault(asset["sha256"], hashlib.sha256(data).hexdigest())
        asset["byte_size"] = len(data)
    text = json.dumps(pack)
    for old, new in renamed.items():  # the assets and the generation records that name them
        text = text.replace(old, new)
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _upload_files(client: TestClient, pack: dict[str, Any], headers: dict[str, str]) -> None:
    """Upload every asset's file (``PUT /v1/assets/{sha256}``)."""
    for asset in pack["assets"]:
        data = _file(pack, asset)
        assert hashlib.sha256(data).hexdigest() == asset["sha256"], asset["id"]
        response = client.put(f"/v1/assets/{asset['sha256']}", content=data, headers=headers)
        assert response.status_code in (200, 201), response.text


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
    assets are revealed; the reader view's field names are public too. Badges are public only when a
    visible achievement awards them.
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
    awarded: set[str | None] = set()
    for achievement in progression.get("achievements", []):
        if achievement.get("visibility") != "hidden":  # a guided achievement has none: it is visible
            public |= {achievement["id"], achievement["title"], achievement["description"]}
            awarded.add(achievement.get("badge_id"))
    # only the badges a visible achievement awards: not those only a hidden one or an ending awards
    public |= {b[k] for b in progression.get("badges", []) if b["id"] in awarded for k in ("id", "title")}
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
    view = plain(reader_view(pack, seen, "2026-01-01T00:00:00+00:00"))
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
    if version != "0.3":  # an ending's title that a badge only that ending awards bears too
        assert {"Keeper of the Light", "badge_keeper"} <= secrets
    alice = issue(client, "alice")
    body = json.dumps(pack).encode()
    assert client.post("/v1/packs", content=body, headers={**alice, **JSON}).status_code == 201
    _upload_files(client, pack, alice)
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


# -- part 3: play sessions ---------------------------------------------------------------------------------
#
# A reader's session shows the runtime's reader view: the ids it holds (revealed cards and their parts,
# reachable assets, visual anchors, unlocked achievements, badges, the ending once reached) are public
# *for that session's responses*, from the turn they first appear (the transcript repeats them). Nothing
# else may show: instructions, content, rules, observations, state, hidden achievements, endings before
# they are reached, ``reward_only`` assets before their reward, cards not yet revealed.

_TIGHT_BODY = 1024


def _view_strings(views: list[ReaderView], pack: dict[str, Any]) -> set[str]:
    """What the reader views hold, and of each asset they let the reader fetch its file's sha256 and type."""
    shown = {s for view in views for s in _strings(view.to_json())}
    reached = {a for view in views for a in view.assets}
    return shown | {a[k] for a in pack["assets"] if a["id"] in reached for k in ("sha256", "mime_type")}


def _session_secrets(secrets: set[str], views: list[ReaderView], pack: dict[str, Any]) -> set[str]:
    """The pack's secrets less what the runtime's reader views of this session so far show."""
    shown = _view_strings(views, pack)
    return {s for s in secrets if s not in shown and not any(s in v for v in shown)}


def _check(response: httpx.Response, secrets: set[str], sent: str, what: str) -> int:
    leaks = _leaks(response, secrets, sent)
    assert leaks == [], (what, response.request.method, response.request.url.path, response.status_code, leaks[:5])
    return response.status_code


@dataclass
class _Probe:
    """One caller's requests against a session, checked against the secrets of what the session has shown."""

    client: TestClient
    headers: dict[str, str]
    name: str
    statuses: set[int] = field(default_factory=set)

    def send(self, method: str, path: str, secrets: set[str], **options: Any) -> httpx.Response:
        asked = options.pop("headers", {})
        response: httpx.Response = self.client.request(method, path, headers={**asked, **self.headers}, **options)
        # The path, query and headers count as sent, not the body: its observation ids must not come back.
        sent = _sent(method, path, options) + "\n" + "\n".join(asked.values())
        self.statuses.add(_check(response, secrets, sent, self.name))
        return response

    def session_routes(self, sid: str, pack: dict[str, Any], secrets: set[str]) -> None:
        """Every GET of a session, its assets (ranges too), and the migrate and diff routes."""
        pack_id, revision = pack["manifest"]["pack_id"], pack["manifest"]["revision"]
        self.send("GET", f"/v1/sessions/{sid}", secrets)
        self.send("GET", f"/v1/sessions/{sid}/transcript", secrets)
        for asset in [*pack["assets"], {"id": "no_such_asset"}]:
            self.send("GET", f"/v1/sessions/{sid}/assets/{asset['id']}", secrets)
            self.send("GET", f"/v1/sessions/{sid}/assets/{asset['id']}", secrets, headers={"Range": "bytes=0-9"})
        self.send("GET", f"/v1/sessions/{sid}/assets/cover_motion", secrets, headers={"Range": "bytes=999999999-"})
        for target in (revision, 1, 999):
            self.send("POST", f"/v1/sessions/{sid}/migrate", secrets, json={"revision": target})
        self.send("POST", f"/v1/sessions/{sid}/migrate", secrets, json={"revision": "x"})
        self.send("GET", f"/v1/packs/{pack_id}/diff", secrets, params={"from": 1, "to": revision})


def _turn_errors(probe: _Probe, sid: str, number: int, pack: dict[str, Any], secrets: set[str]) -> None:
    """Every way a turn can fail: not the next one, bad observations, malformed or mistyped bodies."""
    observation = pack["runtime"]["observations"][0]["id"]
    path = f"/v1/sessions/{sid}/turns"
    probe.send("POST", path, secrets, json={"turn": number + 5})  # 409: not the next turn
    probe.send("POST", path, secrets, json={"turn": number, "observations": {observation: "not an answer"}})  # 422
    probe.send("POST", path, secrets, json={"turn": number, "observations": {"no_such_observation": True}})
    probe.send("POST", path, secrets, json={"turn": number, "illustration_matches": ["no_such_rule"]})
    probe.send("POST", path, secrets, json={"turn": "x", "observations": []})  # 400
    probe.send("POST", path, secrets, content=b"{not json", headers=JSON)
    probe.send("POST", path, secrets, content=b"{}", headers={"Content-Type": "text/plain"})  # 415


def _play_as(probe: _Probe, pack: dict[str, Any], version: str, secrets: set[str]) -> tuple[str, list[ReaderView]]:
    """Start sessions at every entry and play the example's playthrough, probing every route at every turn.

    The played session's id and the runtime's reader views of it, turn by turn.
    """
    pack_id, revision = pack["manifest"]["pack_id"], pack["manifest"]["revision"]
    engine = Engine(pack)
    starts: list[dict[str, Any]] = [{}, {"revision": revision}, *({"entry": e} for e in engine.entry_ids())]
    played_id, played_views = "", []
    for body in starts:
        reference = Session.start(engine, body.get("entry"))
        assert reference.last is not None
        views = [reference.last.reader_view()]
        started = probe.send("POST", f"/v1/packs/{pack_id}/sessions", _session_secrets(secrets, views, pack), json=body)
        assert started.status_code == 201, started.text
        assert started.json()["current"] == views[0].to_json()
        sid = started.json()["session_id"]
        probe.session_routes(sid, pack, _session_secrets(secrets, views, pack))
        if body:
            continue
        played_id, played_views = sid, views
        for number, turn in enumerate(parse_script(EXAMPLES / version / "playthrough.jsonl"), start=1):
            _turn_errors(probe, sid, number, pack, _session_secrets(secrets, views, pack))
            views.append(reference.turn(turn.observations).reader_view())
            now = _session_secrets(secrets, views, pack)
            asked = {"turn": number, "observations": dict(turn.observations)}
            played = probe.send("POST", f"/v1/sessions/{sid}/turns", now, json=asked)
            assert played.json() == views[-1].to_json()
            probe.send("POST", f"/v1/sessions/{sid}/turns", now, json=asked)  # a retry: the same answer
            probe.send("POST", f"/v1/sessions/{sid}/turns", now, json={**asked, "observations": {}})  # 409
            probe.session_routes(sid, pack, now)
            if reference.over:
                probe.send("POST", f"/v1/sessions/{sid}/turns", now, json={"turn": number + 1})  # 409: over
                break
    for body in ({"entry": "no_such_entry"}, {"revision": 1}, {"revision": "x"}):  # 422, 404, 400
        probe.send("POST", f"/v1/packs/{pack_id}/sessions", secrets, json=body)
    probe.send("POST", f"/v1/packs/{pack_id}/sessions", secrets, content=b"{}", headers={"Content-Type": "text/xml"})
    return played_id, played_views


def _narrowed(pack: dict[str, Any]) -> dict[str, Any]:
    """The next revision, lint-clean, with trust at most 6: the playthrough's session (trust 7 or more) misfits."""
    narrowed = copy.deepcopy(pack)
    narrowed["manifest"]["revision"] += 1
    narrowed["runtime"]["state"]["schema"]["properties"]["trust"]["maximum"] = 6

    def clamp(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("value", "limit"):
                if node.get("path") == "/trust" and isinstance(node.get(key), int) and node[key] > 5:
                    node[key] = 5
            for value in node.values():
                clamp(value)
        elif isinstance(node, list):
            for value in node:
                clamp(value)

    clamp(narrowed)
    return narrowed


def _strangers(probes: list[_Probe], sid: str, pack: dict[str, Any], secrets: set[str], observation: str) -> None:
    """Another creator and anonymous callers: the owner's and the reader's sessions are not theirs."""
    pack_id = pack["manifest"]["pack_id"]
    for probe in probes:
        probe.send("POST", f"/v1/packs/{pack_id}/sessions", secrets, json={})
        probe.send("POST", f"/v1/packs/{pack_id}/sessions", secrets, json={"entry": "opening"})
        probe.send("POST", f"/v1/sessions/{sid}/turns", secrets, json={"turn": 1, "observations": {observation: True}})
        probe.session_routes(sid, pack, secrets)


@pytest.mark.parametrize("version", RICH)
def test_no_private_string_reaches_readers_through_play_sessions(
    client: TestClient, settings: Settings, version: str
) -> None:
    pack = _pack(version)
    secrets = _secrets(pack, _baseline(client))
    engine = Engine(pack)
    _, start = engine.start()
    at_start = _session_secrets(secrets, [start.reader_view()], pack)
    runtime = pack["runtime"]
    # what the runtime holds for the narrator only is among the secrets of a reader's session
    for kind, ids in {
        "observations": [o["id"] for o in runtime["observations"]],
        "rules": [r["id"] for r in runtime["rules"]],
        "state members": list(runtime["state"]["schema"]["properties"]),
        "endings": [e.id for e in engine._endings],
        "hidden achievements": [a.id for a in engine._achievements if a.hidden],
        "unrevealed cards": [
            c["id"] for c in pack.get("reader_cards", []) if c["id"] not in start.revealed["reader_cards"]
        ],
        "reward_only assets": [a for a in engine._assets if a not in start.reachable_assets],
    }.items():
        assert not ids or set(ids) & at_start, kind
    assert any(s in at_start for s in _strings(pack["instructions"]))
    alice = issue(client, "alice")
    body = json.dumps(pack).encode()
    assert client.post("/v1/packs", content=body, headers={**alice, **JSON}).status_code == 201
    _upload_files(client, pack, alice)
    pack_id = pack["manifest"]["pack_id"]
    published = client.post(
        f"/v1/packs/{pack_id}/publish", json={"revision": pack["manifest"]["revision"]}, headers=alice
    )
    assert published.status_code == 200, published.text
    reader = _Probe(client, issue(client, "rita", "reader"), "reader")
    played, views = _play_as(reader, pack, version, secrets)
    owners = client.post(f"/v1/packs/{pack_id}/sessions", json={}, headers=alice).json()["session_id"]
    readers = client.post(f"/v1/packs/{pack_id}/sessions", json={}, headers=reader.headers).json()["session_id"]
    strangers = [_Probe(client, issue(client, "bob"), "other creator"), _Probe(client, {}, "anonymous")]
    observation = runtime["observations"][0]["id"]
    for sid in (owners, readers):
        _strangers(strangers, sid, pack, secrets, observation)
    # A new revision is published: the played session cannot move to it (409, the count of misfits only),
    # the fresh one moves by the plan (its view on the new revision, as the runtime describes it).
    narrowed = _narrowed(pack)
    target = narrowed["manifest"]["revision"]
    assert client.post("/v1/packs", content=json.dumps(narrowed).encode(), headers={**alice, **JSON}).status_code == 201
    assert client.post(f"/v1/packs/{pack_id}/publish", json={"revision": target}, headers=alice).status_code == 200
    refused = reader.send(
        "POST", f"/v1/sessions/{played}/migrate", _session_secrets(secrets, views, pack), json={"revision": target}
    )
    assert refused.status_code == 409, refused.text
    reader.session_routes(played, narrowed, _session_secrets(secrets, views, pack))
    new_engine = Engine(narrowed)
    moved_save, _ = migration_plan(pack, narrowed).apply(engine.start()[0].to_json(engine.schema))
    moved_view = new_engine.describe(new_engine.load(moved_save)).reader_view()
    now = _session_secrets(secrets, [start.reader_view(), moved_view], pack)
    moved = reader.send("POST", f"/v1/sessions/{readers}/migrate", now, json={"revision": target})
    assert moved.json()["current"] == moved_view.to_json()
    reader.session_routes(readers, narrowed, now)
    statuses = reader.statuses | strangers[0].statuses | strangers[1].statuses
    assert {200, 201, 206, 400, 401, 403, 404, 409, 415, 416, 422} <= statuses, statuses
    # the limits' errors: a body too large (413), too many requests (429), headers too large (431)
    tight = replace(settings, max_body_bytes=_TIGHT_BODY, rate_per_ip=RateLimit(40, 3600), max_header_bytes=4096)
    with TestClient(create_app(tight)) as limited:
        probes = [_Probe(limited, reader.headers, "reader"), *(_Probe(limited, p.headers, p.name) for p in strangers)]
        huge = {"turn": 1, "observations": {observation: "x" * _TIGHT_BODY}}
        for probe in probes:
            for sid in (owners, readers):
                probe.send("POST", f"/v1/sessions/{sid}/turns", at_start, json=huge)
                probe.send("POST", f"/v1/sessions/{sid}/migrate", at_start, json={"revision": 1, "pad": "x" * 2000})
                probe.send("GET", f"/v1/sessions/{sid}", at_start, headers={"X-Pad": "x" * 5000})
            probe.send("POST", f"/v1/packs/{pack_id}/sessions", at_start, json={"entry": "x" * 2000})
        for _ in range(40):  # the per-IP limit runs out
            probes[0].send("GET", f"/v1/sessions/{readers}", at_start)
        for probe in probes:
            probe.send("POST", f"/v1/sessions/{readers}/turns", at_start, json={"turn": 1})
            probe.send("GET", f"/v1/sessions/{readers}/transcript", at_start)
        assert {413, 429, 431} <= {s for p in probes for s in p.statuses}
