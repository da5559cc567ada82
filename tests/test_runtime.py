"""The runtime's semantics, turn by turn, on a small pack built for the purpose."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import creatorpack
from creatorpack import NotPlayableError, SessionLoadError, SessionOverError, TurnError
from creatorpack.play.engine import Engine, Session, Turn
from creatorpack.play.state import EffectError, apply_effect, check_state

SHA = "a" * 64
TRUE = {"op": "literal", "value": True}


def gte(path: str, value: int) -> dict[str, Any]:
    return {"op": "gte", "path": path, "value": value}


def observed(ident: str, value: bool | str) -> dict[str, Any]:
    return {"op": "observed", "id": ident, "value": value}


def asset(ident: str, when: dict[str, Any], access: str = "standard") -> dict[str, Any]:
    return {
        "id": ident,
        "kind": "image",
        "mime_type": "image/png",
        "sha256": SHA,
        "byte_size": 10,
        "description": ident,
        "reveal_when": when,
        "access": access,
    }


GUIDANCE = {"summary": "S", "next_step": "N", "requirements": [{"id": "all", "hint": "H", "condition_ref": ""}]}

PACK: dict[str, Any] = {
    "protocol_version": "0.5",
    "manifest": {"pack_id": "harbour", "revision": 1, "title": "Harbour", "language": "en"},
    "runtime": {
        "runtime_id": "r",
        "state": {
            "schema": {
                "type": "object",
                "properties": {
                    "trust": {"type": "integer", "minimum": 0, "maximum": 10},
                    "lit": {"type": "boolean"},
                    "items": {"type": "array", "items": {"enum": ["key", "map", "rope"]}, "uniqueItems": True},
                    "harbour": {
                        "type": "object",
                        "properties": {
                            "storm": {"type": "integer", "minimum": 0, "maximum": 3},
                            "open": {"type": "boolean"},
                        },
                        "required": ["storm"],
                        "additionalProperties": False,
                    },
                },
                "required": ["trust", "lit", "items", "harbour"],
                "additionalProperties": False,
            }
        },
        "entries": [
            {"id": "opening", "initial_state": {"trust": 0, "lit": False, "items": ["map"], "harbour": {"storm": 0}}},
            {"id": "late", "initial_state": {"trust": 5, "lit": True, "items": [], "harbour": {"storm": 1}}},
        ],
        "observations": [
            {"type": "boolean", "id": "helped", "question": "Did the reader help?"},
            {"type": "choice", "id": "way", "question": "Which way?", "choices": {"north": "N", "south": "S"}},
        ],
        "rules": [
            {
                "kind": "guidance",
                "id": "thank",
                "when": observed("helped", True),
                "instruction": "Thank them.",
                "completion": gte("/trust", 4),
            },
            {
                "kind": "effect",
                "id": "warm",
                "when": observed("helped", True),
                "effects": [{"op": "increment", "path": "/trust", "by": 2, "limit": 6}],
            },
            {
                "kind": "effect",
                "id": "storm",
                "when": observed("way", "north"),
                "effects": [
                    {"op": "add", "path": "/items", "value": "key"},
                    {"op": "increment", "path": "/harbour/storm", "by": 5, "overflow": "reject"},
                ],
            },
            {
                "kind": "effect",
                "id": "south",
                "when": observed("way", "south"),
                "effects": [
                    {"op": "add", "path": "/items", "value": "rope"},
                    {"op": "remove", "path": "/items", "value": "map"},
                ],
            },
            {
                "kind": "effect",
                "id": "cold",
                "when": observed("helped", False),
                "effects": [{"op": "increment", "path": "/trust", "by": -3, "limit": 1}],
            },
            {
                "kind": "effect",
                "id": "bad-set",
                "when": {"op": "eq", "path": "/trust", "value": 5},
                "effects": [{"op": "add", "path": "/items", "value": "sword"}],
            },
        ],
    },
    "instructions": {},
    "entries": [{"title": "Opening"}],
    "provenance": [],
    "content": [
        {"id": "welcome", "text": "W", "selection": "always", "when": gte("/trust", 2)},
        {"id": "rumour", "text": "R", "selection": "jev"},
    ],
    "reader_cards": [
        {
            "id": "mara",
            "display_name": "Mara",
            "introduction": "I",
            "reveal_when": gte("/trust", 2),
            "avatar": {
                "asset_id": "face",
                "crop": {"x": 0, "y": 0, "width": 1, "height": 1},
                "reveal_when": gte("/trust", 4),
            },
            "relationships": [
                {
                    "actor_id": "tobias",
                    "label": "brother",
                    "reveal_when": {"op": "contains", "path": "/items", "value": "key"},
                }
            ],
        },
    ],
    "assets": [asset("face", TRUE), asset("art", TRUE, "reward_only"), asset("view", gte("/trust", 6))],
    "illustrations": [{"id": f"ill{i}", "asset_id": "face", "alt": "A"} for i in (1, 2, 3)],
    "character_castings": [
        {
            "id": "cast",
            "actor_id": "mara",
            "character_id": "12345678-1234-1234-1234-123456789abc",
            "character_revision": 1,
            "when": TRUE,
            "deeds": [{"id": "rescue", "when": observed("helped", True)}],
        },
    ],
    "progression": {
        "protocol": "service.progression/2",
        "achievements": [
            {
                "id": "friend",
                "visibility": "visible",
                "title": "Friend",
                "description": "D",
                "when": gte("/trust", 4),
                "artwork_asset_id": "art",
                "badge_id": "pin",
            },
            {
                "id": "secret",
                "visibility": "hidden",
                "title": "Secret",
                "description": "D",
                "when": {"op": "contains", "path": "/items", "value": "rope"},
                "artwork_asset_id": "face",
            },
            {
                "id": "guided",
                "title": "Guided",
                "description": "D",
                "artwork_asset_id": "face",
                "when": {"op": "all", "conditions": [gte("/trust", 2), observed("way", "north")]},
                "guidance": {
                    "summary": "S",
                    "next_step": "N",
                    "requirements": [
                        {"id": "trust", "hint": "H", "condition_ref": "/conditions/0"},
                        {"id": "north", "hint": "H", "condition_ref": "/conditions/1"},
                    ],
                },
            },
        ],
        "endings": [
            {
                "id": "good",
                "title": "Good",
                "when": gte("/trust", 6),
                "artwork_asset_id": "face",
                "guidance": GUIDANCE,
                "priority": 1,
                "closing_text": "C",
            },
            {
                "id": "also",
                "title": "Also",
                "when": gte("/trust", 6),
                "artwork_asset_id": "face",
                "guidance": GUIDANCE,
                "priority": 1,
                "closing_text": "C",
            },
            {
                "id": "low",
                "title": "Low",
                "when": gte("/trust", 6),
                "artwork_asset_id": "face",
                "guidance": GUIDANCE,
                "priority": 0,
                "closing_text": "C",
            },
        ],
        "badges": [
            {
                "id": "pin",
                "title": "Pin",
                "description": "D",
                "collectible": {
                    "protocol": "service.pin-badge/1",
                    "model": "round-pin/1",
                    "front_asset_id": "art",
                    "crop": {"x": 0, "y": 0, "width": 1, "height": 1},
                    "finish": "matte/1",
                },
            },
        ],
    },
    "presentation": {
        "illustration_rules": [
            {"id": "r1", "illustration_id": "ill1", "match": "M", "when": TRUE, "priority": 1},
            {"id": "r2", "illustration_id": "ill2", "match": "M", "when": TRUE, "priority": 1},
            {"id": "r3", "illustration_id": "ill1", "match": "M", "when": TRUE, "priority": 0},
            {"id": "r4", "illustration_id": "ill3", "match": "M", "when": gte("/trust", 2), "priority": 5},
            {"id": "r5", "illustration_id": "ill1", "match": "M", "when": TRUE},
        ]
    },
}


def pack(**changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(PACK)
    doc.update(changes)
    return doc


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.from_source(PACK)


def test_the_pack_is_valid() -> None:
    assert creatorpack.validate(PACK).violations == ()


def test_start(engine: Engine) -> None:
    session = Session.start(engine)
    start = session.last
    assert start is not None
    assert start.turn == 0
    assert start.state == {"trust": 0, "lit": False, "items": ["map"], "harbour": {"storm": 0}}
    # art is reward_only and not yet rewarded: the reader is not told it exists.
    assert start.revealed["assets"] == start.reachable_assets == ("face",)
    assert start.revealed["castings"] == ("cast",)
    assert start.content_candidates == ("rumour",)
    assert start.content == ()


def test_a_turn_activates_rules_and_reveals(engine: Engine) -> None:
    session = Session.start(engine)
    result = session.turn({"helped": True})
    assert result.turn == 1
    assert result.active_rules == ("thank", "warm")
    assert result.instructions == ("Thank them.",)
    assert result.state["trust"] == 2
    assert result.new_revealed["reader_cards"] == ("mara",)
    assert result.new_revealed["deeds"] == ("cast/rescue",)
    assert result.content == ("welcome",)
    assert result.new_completed_rules == ()


def test_completion_is_for_good_and_unlocks_are_sticky(engine: Engine) -> None:
    session = Session.start(engine)
    session.turn({"helped": True})
    second = session.turn({"helped": True})
    assert second.state["trust"] == 4
    assert second.new_completed_rules == ("thank",)
    assert second.new_achievements == ("friend",)
    assert second.new_badges == ("pin",)
    assert second.new_revealed["avatars"] == ("mara",)
    assert "art" in second.reachable_assets  # the unlocked reward references it
    assert second.new_revealed["assets"] == ("art",)  # and only now does the reader learn of it
    third = session.turn({"helped": False})
    assert "thank" not in third.active_rules
    assert third.state["trust"] == 1  # 4 - 3, not below the limit of 1
    assert third.achievements == ("friend",)  # stays unlocked though trust fell
    assert "mara" in third.revealed["avatars"]  # stays revealed
    assert third.completed_rules == ("thank",)


def test_a_rejected_effect_rejects_all_of_its_rule(engine: Engine) -> None:
    session = Session.start(engine)
    result = session.turn({"way": "north"})
    assert "storm" in result.active_rules
    (rejected,) = result.rejected_effects
    assert rejected["rule"] == "storm"
    assert rejected["effect"] == 1
    assert result.state["items"] == ["map"]  # the add before the rejected increment did not stay
    assert result.state["harbour"] == {"storm": 0}


def test_clamp_at_the_limit(engine: Engine) -> None:
    state, _ = engine.start()
    for _ in range(4):
        state, result = engine.step(state, Turn({"helped": True}))
        if result.over:
            break
    assert result.state["trust"] == 6  # 0, 2, 4, 6: the limit


COUNTER = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 10}}}


@pytest.mark.parametrize(
    ("start", "by", "limit", "expected"),
    [
        (0, 1, -1, 0),  # an upper limit below the schema's minimum: the minimum, never -1
        (4, 2, -5, 0),
        (10, -1, 99, 10),  # a lower limit above the schema's maximum: the maximum, never 99
        (3, -2, 12, 10),
        (3, 1, 0, 0),  # at the schema's bound: the limit itself, as before
        (7, -1, 10, 10),
    ],
)
def test_a_limit_outside_the_schema_never_takes_the_state_out_of_it(
    start: int, by: int, limit: int, expected: int
) -> None:
    """The schema's minimum and maximum always bound an increment, a limit beyond them included."""
    effect = {"op": "increment", "path": "/n", "by": by, "limit": limit}
    after = apply_effect(COUNTER, {"n": start}, effect)
    assert after == {"n": expected}
    assert not list(check_state(COUNTER, after))
    with pytest.raises(EffectError, match=r"leaves (0\.\.0|10\.\.10) at /n"):
        apply_effect(COUNTER, {"n": start}, {**effect, "overflow": "reject"})


def test_set_effects_keep_enum_order_and_reject_outsiders(engine: Engine) -> None:
    session = Session.start(engine, "late")
    result = session.turn({"way": "south"})
    assert result.state["items"] == ["rope"]
    assert result.new_achievements == ("secret",)
    # trust is 5 in this entry: bad-set tries to add an Id outside the enum.
    assert [r["rule"] for r in result.rejected_effects] == ["bad-set"]


def test_hidden_achievements_are_not_listed_until_unlocked(engine: Engine) -> None:
    session = Session.start(engine)
    assert engine.locked_achievements(session.state) == ("friend", "guided")
    result = session.turn({"way": "south"})
    assert "secret" in result.achievements


def test_guidance_reports_requirements(engine: Engine) -> None:
    session = Session.start(engine)
    result = session.turn({"helped": True})
    guided = next(g for g in result.guidance["achievements"] if g["id"] == "guided")
    assert [(r["id"], r["holds"]) for r in guided["requirements"]] == [("trust", True), ("north", False)]
    assert {g["id"] for g in result.guidance["endings"]} == {"good", "also", "low"}


def test_highest_priority_ending_wins_and_ends_the_session(engine: Engine) -> None:
    session = Session.start(engine, "late")
    result = session.turn({"helped": True})  # trust 5 -> 6 (limit 6): good, also (tie, first wins) and low
    assert result.ending == "good"
    assert session.over
    with pytest.raises(SessionOverError, match="'good'"):
        session.turn({"helped": True})


@pytest.mark.parametrize(
    ("matches", "expected"),
    [
        ((), None),
        (("r1",), "ill1"),
        (("r1", "r2"), None),  # a tie across different illustrations keeps ordinary staging
        (("r1", "r3", "r5"), "ill1"),  # the same illustration is shown once
        (("r2", "r3"), "ill2"),
        (("r4",), None),  # not eligible: trust is below 2 before the turn
    ],
)
def test_illustrations(engine: Engine, matches: tuple[str, ...], expected: str | None) -> None:
    session = Session.start(engine)
    assert session.turn({"helped": True}, matches).illustration == expected


def test_illustration_eligibility_is_tested_before_the_turn(engine: Engine) -> None:
    session = Session.start(engine)
    session.turn({"helped": True})  # trust 2 now
    assert session.turn({}, ["r4", "r1"]).illustration == "ill3"


@pytest.mark.parametrize(
    ("observations", "matches", "words"),
    [
        ({"nope": True}, (), "unknown observation 'nope'"),
        ({"helped": "yes"}, (), "answer true or false"),
        ({"helped": 1}, (), "answer true or false"),
        ({"way": "west"}, (), "one of the choices ['north', 'south']"),
        ({"way": True}, (), "one of the choices"),
        ({}, ("r9",), "unknown illustration rule"),
    ],
)
def test_bad_turns_change_nothing(
    engine: Engine, observations: dict[str, Any], matches: tuple[str, ...], words: str
) -> None:
    session = Session.start(engine)
    before = session.state
    with pytest.raises(TurnError, match=words.replace("[", r"\[").replace("]", r"\]")):
        session.turn(observations, matches)
    assert session.state is before


ILLUSTRATION_RULES = "this pack's rules: ['r1', 'r2', 'r3', 'r4', 'r5']"


@pytest.mark.parametrize(
    ("observations", "matches", "message"),
    [
        (
            {"helpd": True},
            (),
            "unknown observation 'helpd' (did you mean 'helped'?); this pack's observations: helped, way",
        ),
        (
            {"way": "nrth"},
            (),
            "observation 'way' takes one of the choices ['north', 'south'], not 'nrth' (did you mean 'north'?)",
        ),
        (
            {},
            ("R1",),
            "unknown illustration rule(s) ['R1'] (did you mean 'r1'?); " + ILLUSTRATION_RULES,
        ),
        (
            {},
            ("R2", "zz"),
            "unknown illustration rule(s) ['R2', 'zz'] (did you mean 'r2' for 'R2'?); " + ILLUSTRATION_RULES,
        ),
        # Nothing near: the message is as it always was (the HTTP service returns it too).
        ({"nope": True}, (), "unknown observation 'nope'; this pack's observations: helped, way"),
    ],
)
def test_a_misspelt_id_in_a_turn_names_the_nearest(
    engine: Engine, observations: dict[str, Any], matches: tuple[str, ...], message: str
) -> None:
    with pytest.raises(TurnError) as caught:
        Session.start(engine).turn(observations, matches)
    assert caught.value.message == message


def test_a_misspelt_entry_names_the_nearest() -> None:
    engine = Engine.from_source(PACK)
    with pytest.raises(NotPlayableError) as caught:
        engine.start("opning")
    assert caught.value.message == "no runtime entry 'opning' (did you mean 'opening'?); the entries are opening, late"
    with pytest.raises(NotPlayableError) as caught:
        engine.start("nowhere")
    assert caught.value.message == "no runtime entry 'nowhere'; the entries are opening, late"


def test_initial_state_must_fit_the_schema() -> None:
    doc = pack()
    doc["runtime"]["entries"][0]["initial_state"] = {
        "trust": 11,
        "lit": 1,
        "items": ["key", "key", "axe"],
        "harbour": {"open": True},
        "extra": 0,
    }
    engine = Engine.from_source(doc)
    with pytest.raises(NotPlayableError) as caught:
        engine.start()
    pointers = {pointer for pointer, _ in caught.value.problems}
    assert pointers == {"/trust", "/lit", "/items/2", "/items", "/harbour", "/extra"}
    assert engine.start("late")[1].state["trust"] == 5  # the other entry is fine


def test_entries_and_versions() -> None:
    engine = Engine.from_source(PACK)
    assert engine.entry_ids() == ["opening", "late"]
    with pytest.raises(NotPlayableError, match="no runtime entry 'nowhere'"):
        engine.start("nowhere")
    with pytest.raises(creatorpack.InvalidPackError):
        Engine.from_source(pack(manifest={"pack_id": "x"}))
    with pytest.raises(NotPlayableError, match=r"0\.3, 0\.4 and 0\.5"):
        Engine({"protocol_version": "0.2"})


def test_save_and_load_give_the_same_next_turn(engine: Engine) -> None:
    session = Session.start(engine)
    session.turn({"helped": True, "way": "south"})
    saved = json.loads(json.dumps(session.save()))
    restored = Session.load(engine, saved)
    assert restored.turn({"helped": True}) == session.turn({"helped": True})


def test_loading_into_a_new_revision_says_what_no_longer_fits(engine: Engine) -> None:
    session = Session.start(engine, "late")
    session.turn({})
    saved = session.save()
    newer = pack(manifest={**PACK["manifest"], "revision": 2})
    newer["runtime"]["state"]["schema"]["properties"]["trust"]["maximum"] = 4
    del newer["runtime"]["state"]["schema"]["properties"]["lit"]
    with pytest.raises(SessionLoadError) as caught:
        Session.load(newer, saved)
    assert {p for p, _ in caught.value.problems} == {"/trust", "/lit"}
    with pytest.raises(SessionLoadError, match="pack 'harbour', not 'other'"):
        Session.load(pack(manifest={**PACK["manifest"], "pack_id": "other"}), saved)
    with pytest.raises(SessionLoadError, match="not a saved session"):
        Session.load(engine, {"state": {}})


_answers = st.fixed_dictionaries(
    {},
    optional={"helped": st.booleans(), "way": st.sampled_from(["north", "south"])},
)
_turns = st.lists(
    st.tuples(_answers, st.lists(st.sampled_from(["r1", "r2", "r3", "r4", "r5"]), max_size=3)), max_size=8
)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["opening", "late"]), _turns)
def test_properties(entry: str, turns: list[tuple[dict[str, Any], list[str]]]) -> None:
    engine = Engine.from_source(PACK)
    state, previous = engine.start(entry)
    for answers, matches in turns:
        if state.ending is not None:
            break
        saved = json.loads(json.dumps(state.to_json()))
        new_state, result = engine.step(state, Turn(answers, tuple(matches)))
        # The state never leaves its schema.
        assert list(check_state(engine.schema, result.state)) == []
        # Reveals, unlocks, badges and completions only grow.
        for kind, ids in previous.revealed.items():
            assert set(ids) <= set(result.revealed[kind])
        assert set(previous.achievements) <= set(result.achievements)
        assert set(previous.badges) <= set(result.badges)
        assert set(previous.completed_rules) <= set(result.completed_rules)
        # Saving and loading gives the same next turn.
        assert engine.step(engine.load(saved), Turn(answers, tuple(matches)))[1] == result
        state, previous = new_state, result
