"""``creatorpack play --load SAVE`` (migrating a save of another revision) and ``--save-to FILE``."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from creatorpack.cli import app
from creatorpack.diff import migration_plan
from creatorpack.errors import SessionLoadError
from creatorpack.play import Engine, Turn
from creatorpack.play.model import STATE_MEMBERS, state_members
from creatorpack.testing import parse_script, play

from .conftest import EXAMPLES, example

runner = CliRunner()
RICH = EXAMPLES / "0.5" / "rich.json"
SCRIPT = EXAMPLES / "0.5" / "playthrough.jsonl"


def _lines() -> list[str]:
    return [line for line in SCRIPT.read_text().splitlines() if line.strip() and not line.startswith("#")]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def _invoke(*args: str, stdin: str | None = None) -> Any:
    return runner.invoke(app, ["play", *args], input=stdin)


def test_a_save_goes_on_exactly_where_it_stopped(tmp_path: Path) -> None:
    lines = _lines()
    first = _write(tmp_path / "first.jsonl", lines[:1])
    rest = _write(tmp_path / "rest.jsonl", lines[1:])
    saved = tmp_path / "save.json"
    assert _invoke(str(RICH), "--script", str(first), "--save-to", str(saved)).exit_code == 0
    whole = play(RICH, parse_script(SCRIPT))
    assert json.loads(saved.read_text()) == play(RICH, parse_script(first)).session.save()
    result = _invoke(str(RICH), "--load", str(saved), "--script", str(rest), "--format", "json")
    assert result.exit_code == 0, result.output
    transcript = json.loads(result.stdout)
    assert "migration" not in transcript  # the same revision: nothing to migrate
    assert transcript["start"]["turn"] == 1
    assert transcript["start"]["state"] == whole.turns[0].state
    assert transcript["turns"] == [t.to_json() for t in whole.turns[1:]]


def _grown(tmp_path: Path) -> Path:
    new = example("0.5", "rich")
    new["manifest"]["revision"] += 1
    schema = new["runtime"]["state"]["schema"]
    schema["properties"]["courage"] = {"type": "integer", "minimum": 0, "maximum": 5}
    schema["required"].append("courage")
    for entry in new["runtime"]["entries"]:
        entry["initial_state"]["courage"] = 3
    path = tmp_path / "new.json"
    path.write_text(json.dumps(new))
    return path


def test_a_save_of_another_revision_is_migrated_by_the_diffs_plan(tmp_path: Path) -> None:
    saved = tmp_path / "save.json"
    first = _write(tmp_path / "first.jsonl", _lines()[:1])
    assert _invoke(str(RICH), "--script", str(first), "--save-to", str(saved)).exit_code == 0
    new = _grown(tmp_path)
    empty = _write(tmp_path / "empty.jsonl", ['{"observations": {}}'])
    moved = tmp_path / "moved.json"
    result = _invoke(str(new), "--load", str(saved), "--script", str(empty), "-f", "json", "--save-to", str(moved))
    assert result.exit_code == 0, result.output
    transcript = json.loads(result.stdout)
    expected, report = migration_plan(None, json.loads(new.read_text())).apply(json.loads(saved.read_text()))
    assert transcript["migration"] == report.to_json()
    assert transcript["migration"]["steps"][0]["pointer"] == "/state/courage"
    assert transcript["start"]["state"] == expected["state"]
    assert transcript["start"]["state"]["courage"] == 3
    assert transcript["turns"][0]["turn"] == 2
    assert json.loads(moved.read_text())["revision"] == expected["revision"]
    text = _invoke(str(new), "--load", str(saved), "--script", str(empty))
    assert text.exit_code == 0
    assert text.stdout.startswith(
        f"migrated the save from revision 3 to 4\n  add /state/courage: {report.steps[0].detail} (3)\nturn 1: state"
    )


def test_play_load_plans_from_the_saves_record_of_its_members_as_the_service_does_with_the_old_pack(
    tmp_path: Path,
) -> None:
    old = example("0.5", "rich")
    new = copy.deepcopy(old)
    new["manifest"]["revision"] += 1
    new["runtime"]["state"]["schema"]["properties"]["courage"] = {"type": "integer", "minimum": 0, "maximum": 5}
    for entry in new["runtime"]["entries"]:  # an optional member, which every entry starts at 2
        entry["initial_state"]["courage"] = 2
    (tmp_path / "new.json").write_text(json.dumps(new))
    engine = Engine(old)
    state, _ = engine.start("opening")
    recorded = state.to_json(engine.schema)  # as the service keeps a save (GET /v1/sessions/{id} gives it)
    assert recorded[STATE_MEMBERS] == state_members(engine.schema)
    assert "courage" not in recorded[STATE_MEMBERS]
    legacy = state.to_json()  # a save from before saves recorded their members
    empty = _write(tmp_path / "empty.jsonl", [])
    moved: dict[str, Any] = {}
    for name, saved in (("recorded", recorded), ("legacy", legacy)):
        (tmp_path / f"{name}.json").write_text(json.dumps(saved))
        args = ("--load", str(tmp_path / f"{name}.json"), "--script", str(empty), "-f", "json")
        result = _invoke(str(tmp_path / "new.json"), *args)
        assert result.exit_code == 0, result.output
        moved[name] = json.loads(result.stdout)
    expected, report = migration_plan(old, new).apply(recorded)  # the service's plan: the old pack at hand
    assert moved["recorded"]["migration"] == report.to_json()
    assert moved["recorded"]["start"]["state"] == expected["state"]
    assert moved["recorded"]["start"]["state"]["courage"] == 2
    # Without the record, as before: only a member the new revision requires counts as new.
    assert "courage" not in moved["legacy"]["start"]["state"]
    assert moved["legacy"]["migration"]["steps"] == []


def test_a_malformed_record_of_members_is_a_bad_save(tmp_path: Path) -> None:
    engine = Engine(example("0.5", "rich"))
    state, _ = engine.start()
    script = _write(tmp_path / "empty.jsonl", [])
    for members in ([1, 2], {"trust": 3}, {"harbour": {"storm_level": None}}):
        (tmp_path / "save.json").write_text(json.dumps({**state.to_json(), STATE_MEMBERS: members}))
        result = _invoke(str(RICH), "--load", str(tmp_path / "save.json"), "--script", str(script))
        assert result.exit_code == 2, members
        assert "'state_members' must map member names to their type" in result.stderr


@pytest.mark.parametrize(
    ("member", "value", "message"),
    [
        ("completed_rules", [{"x": 1}], "'completed_rules' must be an array of ids (strings)"),
        ("unlocked_achievements", [["a"]], "'unlocked_achievements' must be an array of ids (strings)"),
        ("badges", [7], "'badges' must be an array of ids (strings)"),
        ("revealed", {"assets": [1, "a"]}, "'revealed' must map kinds to arrays of ids (strings)"),
        ("revealed", {"relationships": [True]}, "'revealed' must map kinds to arrays of ids (strings)"),
        ("turn", -1, "'turn' must be from 0 to 9,007,199,254,740,991"),
    ],
)
def test_a_save_with_ids_of_the_wrong_type_is_a_bad_save_not_a_traceback(
    tmp_path: Path, member: str, value: Any, message: str
) -> None:
    """A save is read from a file: what the runtime would trip over is refused by name (exit 2)."""
    engine = Engine(example("0.5", "rich"))
    state, _ = engine.start()
    broken = {**state.to_json(), member: value}
    (tmp_path / "save.json").write_text(json.dumps(broken))
    script = _write(tmp_path / "one.jsonl", [json.dumps({"observations": {}})])
    result = _invoke(str(RICH), "--load", str(tmp_path / "save.json"), "--script", str(script))
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "Traceback" not in result.output
    with pytest.raises(SessionLoadError, match=re.escape(message)):
        engine.load(broken)


def test_a_save_that_no_longer_fits_is_refused_naming_each_value(tmp_path: Path) -> None:
    saved = tmp_path / "save.json"
    first = _write(tmp_path / "first.jsonl", _lines()[:1])
    assert _invoke(str(RICH), "--script", str(first), "--save-to", str(saved)).exit_code == 0
    narrowed = example("0.5", "rich")
    narrowed["manifest"]["revision"] += 1
    narrowed["runtime"]["state"]["schema"]["properties"]["trust"]["maximum"] = 1
    path = tmp_path / "narrowed.json"
    path.write_text(json.dumps(narrowed))
    result = _invoke(str(path), "--load", str(saved), "--script", str(first))
    assert result.exit_code == 2
    assert "cannot move to revision 4: 1 value no longer fits" in result.stderr
    assert "/state/trust: 2 is outside 0..1" in result.stderr
    assert "Traceback" not in result.output


def test_bad_saves_and_options_exit_2(tmp_path: Path) -> None:
    script = _write(tmp_path / "one.jsonl", _lines()[:1])
    (tmp_path / "not.json").write_text("{")
    (tmp_path / "other.json").write_text('{"format": "something else"}')
    cases = {
        str(tmp_path / "missing.json"): "cannot read the save",
        str(tmp_path / "not.json"): "is not JSON",
        str(tmp_path / "other.json"): "not a saved session",
    }
    for save, words in cases.items():
        result = _invoke(str(RICH), "--load", save, "--script", str(script))
        assert result.exit_code == 2, save
        assert words in result.stderr
    mixed = _invoke(str(RICH), "--load", str(tmp_path / "other.json"), "--entry", "opening", "--script", str(script))
    assert mixed.exit_code == 2
    assert "a loaded session goes on at its own entry" in mixed.output


def test_interactive_play_loads_and_saves(tmp_path: Path) -> None:
    saved = tmp_path / "save.json"
    first = _write(tmp_path / "first.jsonl", _lines()[:1])
    assert _invoke(str(RICH), "--script", str(first), "--save-to", str(saved)).exit_code == 0
    after = tmp_path / "after.json"
    result = _invoke(str(_grown(tmp_path)), "--load", str(saved), "--save-to", str(after), stdin="q\n")
    assert result.exit_code == 0, result.output
    assert "migrated the save from revision 3 to 4" in result.stdout
    assert json.loads(after.read_text())["state"]["courage"] == 3
    assert json.loads(after.read_text())["turn"] == 1


def _saved_after_one_turn() -> tuple[Engine, dict[str, Any]]:
    engine = Engine(example("0.5", "rich"))
    state, _ = engine.start()
    state, _ = engine.advance(state, Turn({"helped_stranger": True}))
    return engine, state.to_json()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda s: s.pop("ending"), "'ending' is missing"),
        (lambda s: s.update(ending="no_such_ending"), "the saved ending 'no_such_ending' is not an ending of revision"),
    ],
    ids=["no-ending-member", "unknown-ending"],
)
def test_a_save_without_its_ending_or_with_an_unknown_one_is_refused(edit: Any, message: str) -> None:
    engine, saved = _saved_after_one_turn()
    edit(saved)
    with pytest.raises(SessionLoadError, match=re.escape(message)):
        engine.load(saved)


def test_what_a_save_holds_that_no_turn_could_give_is_dropped_as_a_migration_drops_it() -> None:
    """Answers outside their observation's domain and unknown achievements or badges: the session goes on without."""
    engine, saved = _saved_after_one_turn()
    clean = engine.load(copy.deepcopy(saved))
    saved["answers"] = {"helped_stranger": "yes", "lamp_choice": "burnt"}
    saved["unlocked_achievements"] = [*saved["unlocked_achievements"], "no_such_achievement"]
    saved["badges"] = [*saved["badges"], "no_such_badge"]
    loaded = engine.load(saved)
    assert dict(loaded.answers) == {}
    assert "no_such_achievement" not in loaded.achievements
    assert "no_such_badge" not in loaded.badges
    assert loaded.achievements == clean.achievements
    # The next turn is the one a session without those answers takes.
    unanswered = engine.load({**clean.to_json(), "answers": {}})
    assert engine.advance(loaded, Turn({}))[0].state == engine.advance(unanswered, Turn({}))[0].state


def test_a_save_of_a_pack_edited_under_the_same_revision_number_says_what_moved(tmp_path: Path) -> None:
    """A draft edited without a new revision number: the save still moves by the plan, and play says so."""
    saved = tmp_path / "save.json"
    first = _write(tmp_path / "first.jsonl", _lines()[:1])
    assert _invoke(str(RICH), "--script", str(first), "--save-to", str(saved)).exit_code == 0
    draft = json.loads(_grown(tmp_path).read_text())
    draft["manifest"]["revision"] -= 1  # the same number as the save's
    path = tmp_path / "draft.json"
    path.write_text(json.dumps(draft))
    empty = _write(tmp_path / "empty.jsonl", ['{"observations": {}}'])
    result = _invoke(str(path), "--load", str(saved), "--script", str(empty), "-f", "json")
    assert result.exit_code == 0, result.output
    steps = json.loads(result.stdout)["migration"]["steps"]
    assert [(s["action"], s["pointer"]) for s in steps] == [("add", "/state/courage")]
    text = _invoke(str(path), "--load", str(saved), "--script", str(empty))
    assert text.stdout.startswith(
        "migrated the save within revision 3 (the pack changed under the same revision number)\n  add /state/courage"
    )
