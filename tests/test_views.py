"""The reader's view carries no narrator material: by its fields, and by playing packs full of planted secrets."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from creatorpack import Engine, Session
from creatorpack.play import NarratorView, ReaderView
from creatorpack.play.views import READER_KINDS

from .conftest import example

TRUE = {"op": "literal", "value": True}

# Every field of the reader's view, and what it may hold. A new field must be added here on purpose.
READER_FIELDS = {
    "turn",
    "revealed",
    "new_revealed",
    "achievements",
    "new_achievements",
    "locked_achievements",
    "badges",
    "new_badges",
    "ending",
    "illustration",
    "assets",
}


def test_reader_view_fields_are_an_allow_list() -> None:
    fields = {f.name: f.type for f in dataclasses.fields(ReaderView)}
    assert set(fields) == READER_FIELDS
    # Only ids and counters: nothing typed Any could smuggle text or state in.
    assert all("Any" not in str(kind) for kind in fields.values()), fields
    assert {str(kind) for kind in READER_KINDS} == {
        "reader_cards",
        "avatars",
        "images",
        "relationships",
        "assets",
        "visual_anchors",
    }


def test_narrator_view_holds_the_reader_view_and_the_rest() -> None:
    session = Session.start(example("0.5", "rich"))
    result = session.turn({"helped_stranger": True})
    narrator = result.narrator_view()
    assert isinstance(narrator, NarratorView)
    assert narrator.reader == result.reader_view()
    assert narrator.state == result.state
    assert narrator.instructions == result.instructions
    assert json.dumps(narrator.to_json())  # plain JSON


def _reward_only_pack() -> dict[str, Any]:
    """The issue's case: ending artwork and hidden-achievement artwork, reward_only, revealed from the start."""
    pack = example("0.5", "rich")
    for asset in pack["assets"]:
        if asset["id"] in {"keeper_ending_art", "kindness_art"}:
            asset["access"] = "reward_only"
            asset["reveal_when"] = TRUE
    return pack


def test_reward_only_asset_waits_for_its_reward() -> None:
    session = Session.start(_reward_only_pack())
    secrets = {"keeper_ending_art", "kindness_art"}
    seen: list[str] = []
    result = session.last
    assert result is not None
    for turn in range(12):
        view = result.reader_view()
        text = json.dumps(view.to_json())
        rewarded = {"kindness_art"} if "salt_and_kindness" in result.achievements else set()
        rewarded |= {"keeper_ending_art"} if result.ending == "keeper_of_the_light" else set()
        for asset in secrets:
            shown = asset in result.revealed["assets"] or asset in result.reachable_assets or asset in text
            assert shown == (asset in rewarded), (turn, asset)
        seen.extend(view.new_revealed.get("assets", ()))
        if result.over:
            break
        result = session.turn({"helped_stranger": True, "met_mara": True, "lamp_choice": "relit"})
    assert result.ending == "keeper_of_the_light"
    assert {"keeper_ending_art", "kindness_art"} <= set(seen)  # each announced once, when rewarded


def test_card_parts_wait_for_their_card() -> None:
    """A card's image, avatar or relationship whose own reveal_when holds early shows only with its card."""
    pack = example("0.5", "rich")
    cards = {card["id"]: card for card in pack["reader_cards"]}
    cards["brass_key"]["image"]["reveal_when"] = TRUE
    mara = next(card for card in pack["reader_cards"] if card.get("relationships"))
    mara["reveal_when"] = {"op": "gte", "path": "/trust", "value": 6}
    for relation in mara["relationships"]:
        relation["reveal_when"] = TRUE
    session = Session.start(pack)
    result = session.last
    assert result is not None
    for turn in range(12):
        view = result.reader_view()
        cards_shown = set(view.revealed.get("reader_cards", ()))
        assert ("brass_key" in view.revealed.get("images", ())) == ("brass_key" in cards_shown), turn
        for ident in view.revealed.get("relationships", ()):
            assert ident.partition("/")[0] in cards_shown, (turn, ident)
        if mara["id"] not in cards_shown:
            assert mara["id"] + "/" not in json.dumps(view.to_json()), turn
        if result.over:
            break
        result = session.turn({"helped_stranger": True, "met_mara": True, "lamp_choice": "relit"})
    assert "brass_key" in result.reader_view().revealed.get("images", ())  # shown once the card is


def test_card_parts_wait_for_their_asset() -> None:
    """A card's image shows only once the reader can reach its asset, as the service's reader view serves it.

    ``tobias``'s image is the hidden achievement's ``reward_only`` artwork, and ``lighthouse``'s is
    an asset revealed only with the logbook page; both cards and parts are revealed from the start.
    """
    pack = _reward_only_pack()
    cards = {card["id"]: card for card in pack["reader_cards"]}
    cards["tobias"]["image"] = {"asset_id": "kindness_art", "reveal_when": TRUE}
    cards["lighthouse"]["image"]["reveal_when"] = TRUE
    session = Session.start(pack)
    result = session.last
    assert result is not None
    announced: list[str] = []
    for turn in range(12):
        view = result.reader_view()
        images = set(view.revealed.get("images", ()))
        assert ("tobias" in images) == ("kindness_art" in view.assets), turn
        assert ("lighthouse" in images) == ("lamp_room" in view.assets), turn
        announced.extend(view.new_revealed.get("images", ()))
        if result.over:
            break
        result = session.turn({"helped_stranger": True, "met_mara": True, "lamp_choice": "relit"})
    assert "salt_and_kindness" in result.achievements
    assert {"tobias", "lighthouse"} <= set(announced)  # announced once the reader can fetch them


# -- planted secrets ------------------------------------------------------------------------------

MARK = "zqx"  # no bundled pack uses it


def _plant(pack: dict[str, Any]) -> dict[str, Any]:
    """Put a marker into every narrator-only text of ``pack`` (and into hidden ids, to check them by name)."""
    pack = json.loads(json.dumps(pack))
    for i, rule in enumerate(pack["runtime"].get("rules", [])):
        if isinstance(rule.get("instruction"), str):
            rule["instruction"] = f"{MARK}instruction{i} {rule['instruction']}"
    if isinstance(pack.get("instructions"), str):
        pack["instructions"] = f"{MARK}root {pack['instructions']}"
    for i, item in enumerate(pack.get("content", [])):
        item["text"] = f"{MARK}content{i} {item['text']}"
    for card in pack.get("reader_cards", []):
        card["introduction"] = f"{MARK}intro {card['introduction']}"
        card["display_name"] = f"{MARK}name"
    progression = pack.get("progression") or {}
    for goal in [*progression.get("achievements", []), *progression.get("endings", [])]:
        guidance = goal.get("guidance")
        if isinstance(guidance, dict):
            for key in ("summary", "next_step"):
                if isinstance(guidance.get(key), str):
                    guidance[key] = f"{MARK}{key} {guidance[key]}"
            for req in guidance.get("requirements", []):
                req["hint"] = f"{MARK}hint {req.get('hint', '')}"
    return pack


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, Mapping):
        for key, value in node.items():
            yield str(key)
            yield from _strings(value)
    elif isinstance(node, list | tuple):
        for value in node:
            yield from _strings(value)


def _answers(engine: Engine) -> st.SearchStrategy[dict[str, Any]]:
    parts: dict[str, st.SearchStrategy[Any]] = {}
    for ident, observation in engine.observations.items():
        if observation.get("type") == "choice":
            parts[ident] = st.sampled_from(sorted(observation.get("choices", {})))
        else:
            parts[ident] = st.booleans()
    return st.fixed_dictionaries({}, optional=parts)


ENGINES = {version: Engine.from_source(_plant(example(version, "rich"))) for version in ("0.4", "0.5")}


@pytest.mark.parametrize("version", sorted(ENGINES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_no_narrator_material_reaches_the_reader(version: str, data: st.DataObject) -> None:
    engine = ENGINES[version]
    hidden = {g.id for g in engine._achievements if g.hidden}
    endings = {g.id for g in engine._endings}
    reward_only = {a for a, asset in engine._assets.items() if asset.get("access") == "reward_only"}
    cards = {c["id"] for c in engine.pack.get("reader_cards", [])}
    session = Session.start(engine)
    result = session.last
    assert result is not None
    for _ in range(data.draw(st.integers(0, 6))):
        view = result.reader_view().to_json()
        words = set(_strings(view))
        text = json.dumps(view)
        assert MARK not in text  # no instruction, rule text, guidance, content, card text or root instructions
        assert not any(isinstance(v, int | float) and not isinstance(v, bool) for v in _numbers(view))
        for goal in hidden & words:
            assert goal in result.achievements, goal  # a hidden achievement only once unlocked
        for ending in endings & words:
            assert ending == result.ending, ending
        for asset in reward_only & words:
            assert asset in result.reachable_assets
        for card in cards & set(view["revealed"]["reader_cards"]):
            assert card in session.state.revealed["reader_cards"]
        if result.over:
            break
        result = session.turn(data.draw(_answers(engine)))


def _numbers(view: Mapping[str, Any]) -> Iterator[Any]:
    """Every number in the view except the turn counter (state values would show up here)."""
    for key, value in view.items():
        if key == "turn":
            continue
        if isinstance(value, Mapping):
            yield from _numbers(value)
        elif isinstance(value, list):
            yield from (v for v in value if not isinstance(v, str))
        elif value is not None and not isinstance(value, str):
            yield value
