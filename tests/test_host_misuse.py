"""A host's mistakes: what the library hands out is the host's alone, and misuse raises our errors by name.

Each case was found by using the Python API the way a narration backend would; before the fixes
these edits changed every later session of a shared engine, and these calls raised a bare
``AttributeError``/``TypeError`` from inside the library.
"""

from __future__ import annotations

import copy
import json
import threading
from typing import Any

import pytest

import creatorpack
from creatorpack import LintConfig
from creatorpack.diff import compatibility, diff, migration_plan
from creatorpack.errors import NotPlayableError, SessionLoadError, SourceTypeError, TurnError
from creatorpack.play import Engine, Session, Turn
from creatorpack.testing import parse_script, play

from .conftest import EXAMPLES

RICH = EXAMPLES / "0.5" / "rich.json"


def _pack() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(RICH.read_text())
    return loaded


def _initial(engine: Engine) -> Any:
    return copy.deepcopy(engine.entries[0]["initial_state"])


# What a turn, a view, a save hands out shares nothing with the session or the engine.


def test_changing_a_turns_state_changes_neither_the_session_nor_the_engine() -> None:
    engine = Engine.from_source(RICH)
    pristine = _initial(engine)
    session = Session.start(engine)
    result = session.turn({"helped_stranger": True})
    before = copy.deepcopy(session.state.state)
    state: Any = result.state  # typed read-only, and a host may change it all the same
    state["harbour"]["storm_level"] = 3
    state["trust"] = 99
    assert session.state.state == before
    assert engine.entries[0]["initial_state"] == pristine
    assert Session.start(engine).state.state == pristine


@pytest.mark.parametrize(
    "edit",
    [
        lambda s: s.last.to_json()["state"]["inventory"].append("stolen"),
        lambda s: s.last.narrator_view().to_json()["state"]["harbour"].update(ferry_running=True),
        lambda s: s.last.narrator_view().state["harbour"].update(ferry_running=True),
        lambda s: s.save()["state"].update(trust=10),
        lambda s: s.save()["state"]["harbour"].update(storm_level=3),
    ],
    ids=["turn-json", "narrator-json", "narrator-view", "save", "save-nested"],
)
def test_what_a_host_gets_is_its_own(edit: Any) -> None:
    engine = Engine.from_source(RICH)
    pristine = _initial(engine)
    session = Session.start(engine)
    session.turn({})
    before = copy.deepcopy(session.state.state)
    edit(session)
    assert session.state.state == before
    assert Session.start(engine).state.state == pristine
    assert engine.entries[0]["initial_state"] == pristine


def test_every_to_json_is_a_fresh_structure() -> None:
    result = Session.start(RICH).turn({})
    first = result.to_json()
    first["state"]["trust"] = 77
    first["narrator"]["guidance"].clear()
    again = result.to_json()
    assert result.state["trust"] != 77
    assert again["state"]["trust"] != 77
    assert again["narrator"]["guidance"] == result.guidance


def test_a_loaded_session_does_not_follow_later_edits_of_its_save() -> None:
    saved = Session.start(RICH).save()
    session = Session.load(RICH, saved)
    saved["state"]["trust"] = 42
    saved["state"]["harbour"]["storm_level"] = 3
    assert session.state.state["trust"] == 0
    assert session.state.state["harbour"]["storm_level"] == 0


def test_an_engine_built_from_a_dict_does_not_follow_later_edits_of_it() -> None:
    pack = _pack()
    session = Session.start(pack)
    for asset in pack["assets"]:
        asset["access"] = "standard"
    lamp = next(o for o in pack["runtime"]["observations"] if o["id"] == "lamp_choice")
    lamp["choices"]["hacked"] = "x"
    pack["runtime"]["entries"][0]["initial_state"]["trust"] = 9
    assert session.engine.pack is not pack
    with pytest.raises(TurnError, match="'hacked'"):
        session.turn({"lamp_choice": "hacked"})
    assert Session.start(session.engine).state.state["trust"] == 0
    reward_only = {a["id"] for a in _pack()["assets"] if a.get("access") == "reward_only"}
    assert reward_only, "the rich example keeps reward_only assets"
    assert not reward_only & set(session.turn({}).reader_view().assets)


# Wrong input types raise TurnError / NotPlayableError, naming what is wrong; the session stays put.


@pytest.mark.parametrize(
    ("observations", "matches", "message"),
    [
        ({1: True}, (), "an observation id must be a string, not an int"),
        ("helped_stranger", (), "observations must map observation ids to answers, not be a str"),
        (5, (), "not be an int"),
        ({}, [1], "an illustration rule id must be a string, not an int"),
        ({}, [{}], "an illustration rule id must be a string, not a dict"),
        ({}, "rule_quay", "not the string 'rule_quay'"),
        ({}, 5, "must be a list of illustration rule ids, not an int"),
    ],
)
def test_a_turn_of_the_wrong_types_is_a_turn_error(observations: Any, matches: Any, message: str) -> None:
    session = Session.start(RICH)
    before = session.state
    with pytest.raises(TurnError, match=message):
        session.turn(observations, matches)
    assert session.state is before


def test_a_turn_object_and_no_matches_are_accepted() -> None:
    session = Session.start(RICH)
    by_object = session.turn(Turn({"helped_stranger": True}, ()))
    by_args = Session.start(RICH).turn({"helped_stranger": True}, None)
    assert by_object.to_json() == by_args.to_json()


def test_a_turn_from_json_with_a_number_for_an_id_is_a_turn_error() -> None:
    engine = Engine.from_source(RICH)
    state, _ = engine.start()
    with pytest.raises(TurnError, match="must be a string, not an int"):
        engine.step(state, Turn.from_json({"observations": {1: True}}))


@pytest.mark.parametrize("entry", [0, 3.5, ["opening"]])
def test_an_entry_that_is_not_a_string_is_not_playable(entry: Any) -> None:
    with pytest.raises(NotPlayableError, match="an entry is named by its id, a string"):
        Session.start(RICH, entry)
    with pytest.raises(NotPlayableError, match="an entry is named by its id"):
        play(RICH, [], entry=entry)


def test_turns_from_many_threads_on_one_session_all_count() -> None:
    session = Session.start(RICH)
    per_thread, threads = 150, 4

    def run() -> None:
        for _ in range(per_thread):
            session.turn({})

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert session.state.turn == per_thread * threads


def test_a_save_whose_turn_is_beyond_json_integers_does_not_load() -> None:
    saved = Session.start(RICH).save()
    saved["turn"] = 2**70
    with pytest.raises(SessionLoadError, match=r"'turn' must be from 0 to 9,007,199,254,740,991"):
        Session.load(RICH, saved)
    saved["turn"] = 2**53 - 1
    assert Session.load(RICH, saved).state.turn == 2**53 - 1


# testing helpers


def test_a_malformed_turn_in_a_playthrough_names_its_turn() -> None:
    with pytest.raises(TurnError, match=r"^turn 2: unknown turn member\(s\) \['observation'\]"):
        play(RICH, [{}, {"observation": {}}])


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (5, "a script is text, a Path or lines of text, not an int"),
        ([1], "script line 1: a line of text, not an int"),
        (b"\xff", "the script is not UTF-8 text"),
    ],
)
def test_parse_script_of_the_wrong_type_is_a_turn_error(script: Any, message: str) -> None:
    with pytest.raises(TurnError, match=message):
        parse_script(script)


def test_parse_script_reads_bytes_as_text() -> None:
    script = parse_script(b'# entry: opening\n{"observations": {"helped_stranger": true}}\n')
    assert script.entry == "opening"
    assert [dict(t.observations) for t in script] == [{"helped_stranger": True}]


# lint, diff and validate from Python


def test_linting_an_invalid_pack_reports_its_violations_as_errors() -> None:
    report = creatorpack.lint({"protocol_version": "0.5"})
    assert not report.contract.valid
    assert report.errors
    assert [f.code for f in report.errors] == [v.code for v in report.contract.violations]


def test_lint_refuses_a_config_that_is_not_a_lint_config() -> None:
    with pytest.raises(TypeError, match="config must be a LintConfig, not a dict"):
        creatorpack.lint(RICH, {"ignore": []})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        ({"max_states": "5"}, TypeError, "max_states must be an int, not a str"),
        ({"max_states": True}, TypeError, "max_states must be an int, not a bool"),
        ({"max_states": 0}, ValueError, "max_states must be 1 or more, not 0"),
        ({"max_seconds": "1"}, TypeError, "max_seconds must be a number, not a str"),
        ({"max_seconds": -1}, ValueError, "max_seconds must be a finite number, 0 or more"),
        ({"max_seconds": float("nan")}, ValueError, "max_seconds must be a finite number"),
        ({"ignore": "spoiler-title"}, TypeError, "ignore must be a set of codes, not a str"),
        ({"ignore": [3]}, TypeError, "ignore must hold codes"),
        (
            {"ignore": ["spoiler-titel"]},
            ValueError,
            "unknown rule code\\(s\\) 'spoiler-titel'; did you mean 'spoiler-title'",
        ),
    ],
)
def test_a_lint_config_refuses_wrong_fields_at_once(fields: dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        LintConfig(**fields)


def test_a_lint_config_takes_any_collection_of_codes_as_a_frozenset() -> None:
    assert LintConfig(ignore=["spoiler-title"]).ignore == frozenset({"spoiler-title"})  # type: ignore[arg-type]
    assert LintConfig(max_seconds=0).max_seconds == 0


@pytest.mark.parametrize("call", [diff, compatibility, migration_plan])
def test_the_diff_takes_parsed_packs_and_says_so(call: Any) -> None:
    with pytest.raises(SourceTypeError, match="must be a parsed pack \\(a mapping\\), not a PosixPath"):
        call(RICH, RICH)


def test_validate_reads_a_str_subclass_as_json_text() -> None:
    class Text(str):
        __slots__ = ()

    assert creatorpack.validate(Text(RICH.read_text())).valid


# Messages speak JSON: true, null, an integer; never True, None, "a int" or "Mapping".


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        ({"lamp_choice": True}, r"takes one of the choices \[.*\], not true$"),
        ({"helped_stranger": None}, "answer true or false, not null$"),
        ({"helped_stranger": "yes"}, "answer true or false, not 'yes'$"),
    ],
)
def test_a_wrong_answer_is_shown_as_json(answers: dict[str, Any], message: str) -> None:
    with pytest.raises(TurnError, match=message):
        Session.start(RICH).turn(answers)


@pytest.mark.parametrize(
    ("member", "value", "message"),
    [
        ("turn", 1.5, "'turn' must be an integer, not number 1.5"),
        ("turn", True, "'turn' must be an integer, not boolean true"),
        ("answers", [], "'answers' must be an object, not an array"),
        ("pack_id", None, "'pack_id' must be a string, not null"),
        ("completed_rules", {}, "'completed_rules' must be an array, not an object"),
    ],
)
def test_a_save_member_of_the_wrong_type_is_named_in_json_terms(member: str, value: Any, message: str) -> None:
    saved = Session.start(RICH).save()
    saved[member] = value
    with pytest.raises(SessionLoadError, match=f"malformed: {message}$"):
        Session.load(RICH, saved)


def test_a_missing_save_member_is_named() -> None:
    saved = Session.start(RICH).save()
    del saved["badges"]
    with pytest.raises(SessionLoadError, match=r"malformed: 'badges' is missing$"):
        Session.load(RICH, saved)


# The contract's integers include 3.0 (docs/contract-gaps.md): the runtime and the diff read it as 3.


def _spelt_as_floats() -> dict[str, Any]:
    pack = _pack()
    pack["manifest"]["revision"] = 3.0
    pack["runtime"]["entries"][1]["initial_state"]["trust"] = 3.0
    return pack


def test_integers_spelt_as_floats_play_save_and_load_as_integers() -> None:
    pack = _spelt_as_floats()
    assert creatorpack.validate(pack).valid
    entry = pack["runtime"]["entries"][1]["id"]
    session = Session.start(pack, entry)
    trust = session.state.state["trust"]
    assert (trust, type(trust)) == (3, int)
    saved = session.save()
    assert (saved["revision"], type(saved["revision"])) == (3, int)
    assert Session.load(pack, saved).state.state == session.state.state
    json_save = copy.deepcopy(saved)
    json_save["state"]["trust"] = 4.0  # a save edited by hand, or written by another tool
    assert type(Session.load(pack, json_save).state.state["trust"]) is int
    linted = creatorpack.lint(pack, LintConfig(reachability=False))
    assert "initial-state-mismatch" not in {f.code for f in linted.findings}


def test_the_diff_reads_a_revision_spelt_as_a_float() -> None:
    old, new = _spelt_as_floats(), _spelt_as_floats()
    new["manifest"]["revision"] = 4.0
    result = diff(old, new)
    assert (result.old_revision, result.new_revision) == (3, 4)
    plan = migration_plan(old, new)
    assert (plan.old_revision, plan.new_revision) == (3, 4)


def test_a_bound_missing_on_one_side_is_a_verdict_not_a_type_error() -> None:
    old, new = _pack(), _pack()
    del new["runtime"]["state"]["schema"]["properties"]["trust"]["minimum"]  # not valid: the diff still answers
    [trust] = [m for m in diff(old, new).compatibility.members if m.key == "/trust"]
    assert (trust.level, trust.reason) == ("may_not_fit", "schema changed")


def test_engine_calls_of_the_wrong_type_are_refused_by_name() -> None:
    engine = Engine(json.loads(RICH.read_text()))
    started = engine.start()
    with pytest.raises(
        TypeError, match=r"expected a SessionState, not a tuple: Engine.start returns \(state, result\)"
    ):
        engine.step(started, Turn({}))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected a SessionState, not None"):
        engine.describe(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"expected a Turn or its JSON form \(a mapping\), not a list"):
        engine.step(started[0], [])  # type: ignore[arg-type]
    # The JSON form of a turn is read as Session.turn reads it.
    _, result = engine.step(started[0], {"observations": {"helped_stranger": True}})
    assert result.turn == 1
    with pytest.raises(TypeError, match="turns must be a list of Turns"):
        play(engine, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="read a script with parse_script first"):
        play(engine, '{"observations": {}}')  # type: ignore[arg-type]


def test_a_turn_object_and_matches_beside_it_are_refused_not_dropped() -> None:
    session = Session.start(json.loads(RICH.read_text()))
    with pytest.raises(TypeError, match="a Turn carries its own illustration_matches"):
        session.turn(Turn({}), ["ill_quay"])
    assert session.state.turn == 0


@pytest.mark.parametrize(
    ("max_bytes", "error"), [(None, TypeError), (True, TypeError), (0, ValueError), (10**100, ValueError)]
)
def test_a_validator_refuses_a_bad_limit_when_made_not_when_used(max_bytes: Any, error: type) -> None:
    with pytest.raises(error, match="max_bytes must be"):
        creatorpack.Validator(max_bytes=max_bytes)


def test_nan_and_infinity_are_shown_as_given_not_as_null() -> None:
    from creatorpack._json import show

    assert (show(float("nan")), show(float("inf")), show(float("-inf"))) == ("nan", "inf", "-inf")
    session = Session.start(json.loads(RICH.read_text()))
    with pytest.raises(TurnError, match="not nan"):
        session.turn({"lamp_choice": float("nan")})  # type: ignore[dict-item]
