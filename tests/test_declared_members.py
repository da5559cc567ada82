"""A root member the declared version does not define is an extension field: nothing plays, lints or shows it.

A 0.3 pack may carry a hand-written ``progression`` or ``character_castings`` (from 0.4) and a 0.4
pack a ``presentation`` (from 0.5): the contract does not close the root object, so they are
valid there, and ``lint`` says they are ignored (``ignored-member``). Play, the rest of lint, the
reader view and ``diff`` read the pack the same way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from creatorpack import Engine, Session, validate
from creatorpack.cli import app
from creatorpack.contract.schema import as_declared, root_members
from creatorpack.diff import diff
from creatorpack.lint import goals, lint
from creatorpack.service.reader import reader_view
from creatorpack.service.shapes import plain

from .conftest import example

ANSWERS: dict[str, bool | str] = {"helped_stranger": True, "met_mara": True, "lamp_choice": "relit"}


def _extended_03() -> dict[str, Any]:
    """The 0.3 example with the 0.4 example's progression and castings, and the 0.5 example's presentation."""
    pack = example("0.3", "rich")
    later, latest = example("0.4", "rich"), example("0.5", "rich")
    pack["progression"] = later["progression"]
    pack["character_castings"] = later["character_castings"]
    pack["presentation"] = latest["presentation"]
    assert validate(pack).valid
    return pack


def test_the_extension_members_are_dropped_and_nothing_else() -> None:
    pack = _extended_03()
    seen = as_declared(pack)
    assert set(pack) - set(seen) == {"progression", "character_castings", "presentation"}
    assert set(seen) <= root_members("0.3")
    plain = example("0.5", "rich")
    assert as_declared(plain) is plain  # nothing to drop: the pack itself


def test_play_unlocks_and_reveals_nothing_of_them() -> None:
    pack = _extended_03()
    program = Engine(pack).program
    assert (program.achievements, program.endings, program.illustration_rules) == ((), (), ())
    assert not [r for r in program.reveals if r.kind == "castings"]
    session = Session.start(pack)
    for _ in range(6):
        result = session.turn(ANSWERS)
        assert (result.achievements, result.ending, result.illustration) == ((), None, None)
        assert not result.revealed.get("castings")
    upgraded = {**pack, "protocol_version": "0.4"}  # the same members, now part of the version
    assert Engine(upgraded).program.achievements


def test_a_0_4_pack_plays_no_presentation() -> None:
    pack = example("0.4", "rich")
    pack["presentation"] = example("0.5", "rich")["presentation"]
    assert Engine(pack).program.illustration_rules == ()
    assert Engine({**pack, "protocol_version": "0.5"}).program.illustration_rules


def test_lint_says_they_are_ignored_and_reads_nothing_inside_them() -> None:
    pack = _extended_03()
    report = lint(pack)
    ignored = sorted(f.pointer for f in report.findings if f.code == "ignored-member")
    assert ignored == ["/character_castings", "/presentation", "/progression"]
    inside = [f for f in report.findings if f.pointer.startswith(("/progression/", "/character_castings/"))]
    assert inside == []
    assert not [g for g in goals(pack) if g.kind in ("achievement", "ending", "casting")]


def test_the_reader_view_lists_none_of_their_achievements() -> None:
    pack = _extended_03()
    _, start = Engine(pack).start()
    shown = plain(reader_view(pack, start.reader_view(), "2026-11-26T00:00:00+00:00"))
    assert shown["achievements"] == []
    assert shown["badges"] == []


def test_diff_says_what_an_upgrade_brings_into_play() -> None:
    """Castings and achievements a 0.3 pack carried come into play when it declares 0.4."""
    old = _extended_03()
    new = {**old, "protocol_version": "0.4"}
    del new["presentation"]
    added = {(c.section, c.key) for c in diff(old, new).changes if c.kind == "added"}
    assert ("character_castings", "cast_mara") in added
    assert ("achievements", "first_light") in added


def test_explain_knows_no_goal_in_them(tmp_path: Path) -> None:
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(_extended_03()), encoding="utf-8")
    result = CliRunner().invoke(app, ["lint", str(path), "--explain", "first_light"])
    assert result.exit_code == 2, result.output
    assert "raise --max-states" not in result.output
    assert "keeper_of_the_light" not in result.output  # an ending of the ignored progression is not offered
