"""``creatorpack diff``: text and JSON output, ``--save``, and the exit codes 0, 1 and 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from creatorpack.cli import app
from creatorpack.play import Engine, Session

from .conftest import EXAMPLES, example

runner = CliRunner()
RICH = str(EXAMPLES / "0.5" / "rich.json")


def _write(tmp_path: Path, name: str, pack: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(pack), encoding="utf-8")
    return str(path)


def _revised(tmp_path: Path) -> str:
    new = example("0.5", "rich")
    new["manifest"]["revision"] = 4
    new["runtime"]["state"]["schema"]["properties"]["trust"]["maximum"] = 4
    new["runtime"]["observations"] = [o for o in new["runtime"]["observations"] if o["id"] != "met_mara"]
    new["publication"]["tagline"] = "Revised"
    return _write(tmp_path, "new.json", new)


def test_no_differences_exits_0() -> None:
    result = runner.invoke(app, ["diff", RICH, RICH])
    assert result.exit_code == 0, result.output
    assert "no semantic differences" in result.stdout
    assert "save compatibility: fits" in result.stdout


def test_differences_in_text_exit_1(tmp_path: Path) -> None:
    result = runner.invoke(app, ["diff", RICH, _revised(tmp_path)])
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("harbour-light: revision 3 -> 4")
    assert "  rebounded /trust  /runtime/state/schema/properties/trust  integer 0..10 -> integer 0..4" in lines
    assert "  removed   met_mara  /runtime/observations/1" in lines
    assert any(line.startswith("  changed   tagline  /publication/tagline") for line in lines)
    assert "save compatibility: may not fit" in lines
    assert any(line.startswith("  may not fit /trust: bounds 0..10 -> 0..4") for line in lines)
    assert "  by plan     answers met_mara: observation removed: answers are dropped" in lines


def test_json_output(tmp_path: Path) -> None:
    result = runner.invoke(app, ["diff", RICH, _revised(tmp_path), "--format", "json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert (data["pack_id"], data["old_revision"], data["new_revision"]) == ("harbour-light", 3, 4)
    kinds = {(c["section"], c["kind"], c["key"]) for c in data["changes"]}
    assert ("state", "rebounded", "/trust") in kinds
    assert ("observations", "removed", "met_mara") in kinds
    assert data["compatibility"]["level"] == "may_not_fit"
    assert "save" not in data


def _save_file(tmp_path: Path, *turns: dict[str, Any]) -> str:
    session = Session.start(Engine(example("0.5", "rich")))
    for observations in turns:
        session.turn(observations)
    return _write(tmp_path, "save.json", session.save())


def test_save_verdicts(tmp_path: Path) -> None:
    new = _revised(tmp_path)
    fitting = _save_file(tmp_path, {"met_mara": True})
    result = runner.invoke(app, ["diff", RICH, new, "--save", fitting, "--format", "json"])
    assert json.loads(result.stdout)["save"]["level"] == "by_plan"
    result = runner.invoke(app, ["diff", RICH, new, "--save", fitting])
    assert "this save: by plan" in result.stdout
    assert "  drop /answers/met_mara: the observation is not in the new revision" in result.stdout
    trusting = {"helped_stranger": True, "lamp_choice": "relit"}
    misfit = _save_file(tmp_path, trusting, trusting)
    result = runner.invoke(app, ["diff", RICH, new, "--save", misfit])
    assert result.exit_code == 1
    assert "this save: cannot" in result.stdout
    assert "  does not fit /state/trust: " in result.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "unreadable-file"),
        ("{not json", "invalid-json"),
        ("[]", "not-an-object"),
        ('{"protocol_version": "0.5"}', "not a valid pack"),
        (json.dumps(example("0.2", "rich")), "a 0.2 pack has no runtime"),
    ],
)
def test_bad_input_exits_2(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    for args in (["diff", RICH, str(path)], ["diff", str(path), RICH]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert message in result.stderr
        assert "Traceback" not in result.output


def test_bad_save_and_format_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["diff", RICH, RICH, "--save", str(tmp_path / "missing.json")])
    assert result.exit_code == 2
    assert "cannot read the save" in result.stderr
    not_a_save = _write(tmp_path, "save.json", {"format": "other"})
    result = runner.invoke(app, ["diff", RICH, RICH, "--save", not_a_save])
    assert result.exit_code == 2
    assert "not a saved session" in result.stderr
    result = runner.invoke(app, ["diff", RICH, RICH, "--format", "sarif"])
    assert result.exit_code == 2


def test_a_save_verdict_shows_the_value_an_added_member_gets(tmp_path: Path) -> None:
    new = example("0.5", "rich")
    new["manifest"]["revision"] = 4
    schema = new["runtime"]["state"]["schema"]
    schema["properties"]["courage"] = {"type": "integer", "minimum": 0, "maximum": 5}
    schema["required"].append("courage")
    for entry in new["runtime"]["entries"]:
        entry["initial_state"]["courage"] = 3
    path = _write(tmp_path, "new.json", new)
    save = _save_file(tmp_path, {"met_mara": True})
    result = runner.invoke(app, ["diff", RICH, path, "--save", save])
    assert "  add /state/courage: a new member: the entry's initial_state value (3)" in result.stdout


def test_text_shows_old_and_new_values_and_a_pointer_once(tmp_path: Path) -> None:
    """Regression: 'changed /protocol_version /protocol_version' and 'fields: title' showed no values."""
    old = example("0.4", "rich")
    new = example("0.5", "rich")
    new["runtime"] = old["runtime"]
    new["entries"] = json.loads(json.dumps(old["entries"]))
    new["entries"][0]["title"] = "A new title"
    result = runner.invoke(app, ["diff", _write(tmp_path, "old.json", old), _write(tmp_path, "new.json", new)])
    lines = result.output.splitlines()
    assert "  changed   /protocol_version  '0.4' -> '0.5'" in lines, result.output
    [entry] = [line for line in lines if "A new title" in line]
    assert entry.endswith(f"fields: title {old['entries'][0]['title']!r} -> 'A new title'")
