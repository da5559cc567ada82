"""The reader view lists only the badges readers may know of before playing: those a visible achievement awards.

A badge that only a hidden achievement or an ending awards (or nothing) is left out with its title, so that
the published view (``GET /v1/packs/{id}/reader``) and the catalog never name what readers should discover.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

import creatorpack
from creatorpack import Engine
from creatorpack.service.reader import ReaderPack, reader_view
from creatorpack.service.shapes import plain
from tests.conftest import example
from tests.service.conftest import JSON, issue

PUBLISHED = "2026-01-01T00:00:00+00:00"


def _view(pack: dict[str, Any]) -> ReaderPack:
    _, start = Engine(pack).start()
    return reader_view(pack, start.reader_view(), PUBLISHED)


def _badge(ident: str, title: str, pack: dict[str, Any]) -> dict[str, Any]:
    badge: dict[str, Any] = copy.deepcopy(pack["progression"]["badges"][0])
    badge.update({"id": ident, "title": title, "description": f"The pin of {title}."})
    return badge


def _every_awarder() -> dict[str, Any]:
    """The rich 0.5 pack with a badge awarded by each kind of item: visible, guided, hidden, ending, nothing."""
    pack = example("0.5", "rich")
    progression = pack["progression"]
    by_id = {item["id"]: item for item in (*progression["achievements"], *progression["endings"])}
    awards = {
        "first_light": "badge_lamplighter",  # a visible achievement
        "storm_watcher": "badge_storm",  # a visible achievement
        "keepers_confidence": "badge_confidence",  # a guided achievement (no visibility: visible)
        "salt_and_kindness": "badge_kindness",  # a hidden achievement
        "keeper_of_the_light": "badge_keeper",  # an ending
        "dark_harbour": "badge_dark",  # an ending
    }
    for item, badge in awards.items():
        by_id[item]["badge_id"] = badge
    progression["badges"] += [
        _badge("badge_confidence", "Confidant", pack),
        _badge("badge_kindness", "Quiet Kindness", pack),
        _badge("badge_dark", "Lights Out", pack),
        _badge("badge_orphan", "Nobody's Pin", pack),  # awarded by nothing
    ]
    assert creatorpack.validate(pack).valid
    return pack


def test_the_rich_0_5_view_leaves_out_the_ending_s_badge() -> None:
    pack = example("0.5", "rich")
    view = _view(pack)
    assert [(b.id, b.title) for b in view.badges] == [
        ("badge_lamplighter", "Lamplighter"),
        ("badge_storm", "Storm Watcher"),
    ]
    for text in (view.serialize().decode(), view.catalog_entry().serialize().decode()):
        assert "badge_keeper" not in text
        assert "Keeper of the Light" not in text  # the ending's title, which its badge bears too


def test_only_badges_a_listed_achievement_awards_are_listed() -> None:
    pack = _every_awarder()
    view = _view(pack)
    listed = {a.id for a in view.achievements}
    assert listed == {"first_light", "storm_watcher", "keepers_confidence"}
    assert [b.id for b in view.badges] == ["badge_lamplighter", "badge_storm", "badge_confidence"]
    text = view.serialize().decode() + view.catalog_entry().serialize().decode()
    for ident, title in [
        ("badge_kindness", "Quiet Kindness"),
        ("badge_keeper", "Keeper of the Light"),
        ("badge_dark", "Lights Out"),
        ("badge_orphan", "Nobody's Pin"),
    ]:
        assert ident not in text
        assert title not in text


def test_a_badge_a_visible_achievement_also_awards_is_listed() -> None:
    pack = _every_awarder()
    for item in pack["progression"]["endings"]:
        if item["id"] == "keeper_of_the_light":
            item["badge_id"] = "badge_lamplighter"  # the ending awards first_light's badge too
    assert [b.id for b in _view(pack).badges] == ["badge_lamplighter", "badge_storm", "badge_confidence"]


def test_a_badge_a_hidden_achievement_awards_stays_out_once_unlocked_at_the_start() -> None:
    pack = _every_awarder()
    hidden = next(a for a in pack["progression"]["achievements"] if a["id"] == "salt_and_kindness")
    hidden["when"] = {"op": "literal", "value": True}
    _, start = Engine(pack).start()
    assert "badge_kindness" in start.reader_view().badges  # the runtime awards it at the start
    assert "badge_kindness" not in [b.id for b in reader_view(pack, start.reader_view(), PUBLISHED).badges]


@pytest.mark.parametrize("pack", [example("0.5", "rich"), _every_awarder()], ids=["rich", "every-awarder"])
def test_the_published_reader_view_and_catalog_name_no_hidden_badge(client: TestClient, pack: dict[str, Any]) -> None:
    pack = copy.deepcopy(pack)
    pack["publication"]["visibility"] = "public"
    alice = issue(client, "alice")
    assert client.post("/v1/packs", content=json.dumps(pack).encode(), headers={**alice, **JSON}).status_code == 201
    published = client.post("/v1/packs/harbour-light/publish", json={"revision": 3}, headers=alice)
    assert published.status_code == 200, published.text
    reader = client.get("/v1/packs/harbour-light/reader")
    listed = {a.get("badge_id") for a in pack["progression"]["achievements"] if a.get("visibility") != "hidden"}
    assert [b["id"] for b in reader.json()["badges"]] == [
        b["id"] for b in pack["progression"]["badges"] if b["id"] in listed
    ]
    catalog = client.get("/v1/catalog").text
    for badge in pack["progression"]["badges"]:
        if badge["id"] not in listed:
            assert badge["id"] not in reader.text
            assert badge["title"] not in reader.text
            assert badge["title"] not in catalog


def test_a_reward_s_art_unlocked_at_the_start_is_no_card_picture_of_the_published_view() -> None:
    """The view leaves out a hidden achievement unlocked at the start, so it shows its art on no card either."""
    pack = example("0.5", "rich")
    art = next(a for a in pack["assets"] if a["id"] == "kindness_art")
    art["access"], art["reveal_when"] = "reward_only", {"op": "literal", "value": True}
    hidden = next(a for a in pack["progression"]["achievements"] if a["id"] == "salt_and_kindness")
    hidden["when"] = {"op": "literal", "value": True}
    tobias = next(card for card in pack["reader_cards"] if card["id"] == "tobias")
    tobias["image"] = {"asset_id": "kindness_art", "reveal_when": {"op": "literal", "value": True}}
    _, start = Engine(pack).start()
    assert "kindness_art" in start.reader_view().assets  # the session's reader has earned it
    shown = plain(reader_view(pack, start.reader_view(), PUBLISHED))
    assert "salt_and_kindness" not in json.dumps(shown)
    assert next(c for c in shown["reader_cards"] if c["id"] == "tobias")["image"] is None
