"""Items with ``entry_ids`` belong to those entries only; two relationships with one actor reveal apart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from creatorpack import Engine, NotPlayableError, Session, Turn, TurnError, validate
from creatorpack.cli import app as cli
from creatorpack.diff import diff
from creatorpack.lint import lint
from creatorpack.play import relationship_ids
from creatorpack.service.reader import reader_view
from creatorpack.service.shapes import plain
from creatorpack.testing import parse_script, play

from .conftest import example


def _started(pack: dict[str, Any], entry: str) -> Any:
    return Engine(pack).start(entry)[1]


def test_content_cards_and_castings_of_another_entry_are_not_shown() -> None:
    pack = example("0.5", "rich")
    opening, returning = _started(pack, "opening"), _started(pack, "return_visit")
    assert "opening_text" in opening.content  # entry_ids ["opening"]
    assert "opening_text" not in returning.content
    assert "tobias" in opening.revealed["reader_cards"]  # reveal_when true, entry_ids ["opening"]
    assert "tobias" not in returning.revealed["reader_cards"]
    assert "tobias" not in returning.reader_view().to_json()["revealed"]["reader_cards"]
    assert "cast_tobias" in opening.revealed["castings"]
    assert "cast_tobias" not in returning.revealed["castings"]
    for result in (opening, returning):  # no entry_ids: every entry
        assert "wren" in result.revealed["reader_cards"]
        assert "mara" in result.revealed["reader_cards"]


def test_an_entry_named_by_its_pack_entry_id_is_in_scope() -> None:
    pack = example("0.5", "rich")
    runtime_ids = [e["id"] for e in pack["runtime"]["entries"]]
    for index, entry in enumerate(pack["entries"]):
        entry["id"] = f"pack_{runtime_ids[index]}"
    next(c for c in pack["content"] if c["id"] == "opening_text")["entry_ids"] = ["pack_opening"]
    assert "opening_text" in _started(pack, "opening").content
    assert "opening_text" not in _started(pack, "return_visit").content


def test_an_illustration_of_another_entry_is_not_chosen() -> None:
    pack = example("0.5", "rich")
    rule = next(r for r in pack["presentation"]["illustration_rules"] if r["id"] == "rule_quay")
    illustration = next(i for i in pack["illustrations"] if i["id"] == rule["illustration_id"])
    rule["when"] = {"op": "literal", "value": True}
    illustration["entry_ids"] = ["opening"]
    chosen = {}
    for entry in ("opening", "return_visit"):
        session = Session.start(pack, entry=entry)
        chosen[entry] = session.turn(Turn(illustration_matches=("rule_quay",))).illustration
    assert chosen == {"opening": illustration["id"], "return_visit": None}


def test_two_relationships_with_one_actor_are_revealed_apart() -> None:
    pack = example("0.5", "rich")
    card = next(c for c in pack["reader_cards"] if c.get("relationships"))
    first = card["relationships"][0]
    first["reveal_when"] = {"op": "literal", "value": True}
    hidden = {"actor_id": first["actor_id"], "label": "SECRET_LABEL", "reveal_when": {"op": "literal", "value": False}}
    card["relationships"].append(hidden)
    ids = relationship_ids(card)
    assert ids[0] == f"{card['id']}/{first['actor_id']}"  # the id saves already hold
    assert ids[-1] == f"{card['id']}/{first['actor_id']}#2"
    started = Engine(pack).start(card.get("entry_ids", ["opening"])[0])[1]
    assert ids[0] in started.revealed["relationships"]
    assert ids[-1] not in started.revealed["relationships"]
    assert "SECRET_LABEL" not in str(started.reader_view().to_json())


def test_the_published_reader_view_leaves_out_cards_of_other_entries() -> None:
    pack = example("0.5", "rich")
    card = next(c for c in pack["reader_cards"] if c["id"] == "wren")
    card["entry_ids"] = ["return_visit"]  # not the default entry, which the published view starts
    _, start = Engine(pack).start()
    cards = plain(reader_view(pack, start.reader_view(), "2026-11-25T00:00:00+00:00"))["reader_cards"]
    assert "wren" not in {c["id"] for c in cards}
    assert "mara" in {c["id"] for c in cards}


def _unscoped(pack: dict[str, Any]) -> dict[str, Any]:
    copy: dict[str, Any] = json.loads(json.dumps(pack))
    copy["manifest"]["revision"] += 1
    for key in ("reader_cards", "character_castings", "content", "illustrations"):
        for item in copy.get(key, []):
            item.pop("entry_ids", None)
    return copy


def test_a_save_that_holds_items_of_another_entry_loads_without_them() -> None:
    """A save of a revision without scopes (or of an earlier release) is read by this revision's scopes."""
    pack = example("0.5", "rich")
    session = Session.start(_unscoped(pack), entry="return_visit")
    session.turn({"helped_stranger": True})
    saved = session.save()
    assert "tobias" in saved["revealed"]["reader_cards"]
    assert "cast_tobias" in saved["revealed"]["castings"]
    loaded = Session.load(pack, {**saved, "revision": pack["manifest"]["revision"]})
    assert "tobias" not in loaded.state.revealed["reader_cards"]
    assert "cast_tobias" not in loaded.state.revealed["castings"]
    after = loaded.turn({"helped_stranger": True})
    assert "tobias" not in after.revealed["reader_cards"]
    assert not any(ident.startswith("cast_tobias") for ident in after.revealed["knowledge"])


def test_a_save_from_before_two_relationships_were_told_apart_reads_them_again() -> None:
    pack = example("0.5", "rich")
    card = next(c for c in pack["reader_cards"] if c.get("relationships"))
    first = card["relationships"][0]
    first["reveal_when"] = {"op": "literal", "value": False}
    card["relationships"].append(
        {"actor_id": first["actor_id"], "label": "Always known", "reveal_when": {"op": "literal", "value": True}}
    )
    entry = card.get("entry_ids", ["opening"])[0]
    saved = Session.start(pack, entry=entry).save()
    plain, second = relationship_ids(card)[0], relationship_ids(card)[-1]
    assert saved["revealed"]["relationships"].count(second) == 1
    old = json.loads(json.dumps(saved))  # as the release before wrote it: one id for both
    old["revealed"]["relationships"] = [plain if r == second else r for r in old["revealed"]["relationships"]]
    loaded = Session.load(pack, old).state.revealed["relationships"]
    assert second in loaded
    assert plain not in loaded  # its own condition never held


def test_a_session_starts_at_the_pack_entry_id_readers_see() -> None:
    """The reader view lists pack entries; a reader client starts a session by the id it was shown."""
    pack = example("0.5", "rich")
    for item in pack["entries"]:
        item["id"] = f"e_{item['id']}"
    assert Engine(pack).start("e_return_visit")[0].entry == "return_visit"
    assert Engine(pack).start("return_visit")[0].entry == "return_visit"
    pack["entries"][1]["id"] = "e_opening"  # two pack entries of one id: which runtime entry is not known
    with pytest.raises(NotPlayableError, match="no runtime entry 'e_opening'"):
        Engine(pack).start("e_opening")


def test_interactive_play_titles_and_tells_an_entry_named_by_its_pack_entry_id(tmp_path: Path) -> None:
    pack = example("0.5", "rich")
    pack["runtime"]["rules"] = [r for r in pack["runtime"]["rules"] if r.get("kind") == "guidance"]
    for item in pack["entries"]:
        item["id"] = f"e_{item['id']}"
    for item in pack["content"]:
        item["entry_ids"] = [f"e_{e}" for e in item.get("entry_ids", [])] or None
        if item["entry_ids"] is None:
            del item["entry_ids"]
    next(c for c in pack["content"] if c["id"] == "return_text").pop("when", None)
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(pack), encoding="utf-8")
    shown = CliRunner().invoke(cli, ["play", str(path), "--entry", "return_visit"], input="q\n")
    assert "A Week After the Storm" in shown.output  # the pack entry at the runtime entry's position
    assert "A week after the storm you climb" in shown.output  # its content, scoped by the pack entry's id
    assert "The last ferry has gone" not in shown.output


def test_pack_entries_in_another_order_are_paired_by_id_not_position() -> None:
    pack = example("0.5", "rich")
    pack["entries"].reverse()  # the same ids, the other order
    returning = _started(pack, "return_visit")
    assert "opening_text" not in returning.content
    assert "tobias" not in returning.revealed["reader_cards"]
    assert "cast_tobias" not in returning.revealed["castings"]


def test_a_pack_entry_id_that_is_not_a_string_names_nothing() -> None:
    """A pack entry's shape is open (its ``id`` may be any JSON): such an id pairs with no runtime entry."""
    pack = example("0.5", "rich")
    pack["entries"][0]["id"] = ["opening"]
    assert validate(pack).valid
    assert Engine(pack).start()[0].entry == "opening"
    assert "unplayed-scope" not in {f.code for f in lint(pack).findings}
    _, start = Engine(pack).start()
    assert plain(reader_view(pack, start.reader_view(), "2026-11-26T00:00:00+00:00"))["entries"]
    assert diff(pack, example("0.5", "rich")).changes


def _renamed(tmp_path: Path) -> Path:
    """The rich example whose pack entries are named apart from their runtime entries (paired by position)."""
    pack = example("0.5", "rich")
    for item, name in zip(pack["entries"], ("dark_lamp", "after_storm"), strict=True):
        item["id"] = name
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(pack), encoding="utf-8")
    return path


def test_a_script_and_entry_may_name_one_entry_by_either_of_its_names(tmp_path: Path) -> None:
    pack = _renamed(tmp_path)
    by_runtime, by_pack = tmp_path / "rt.jsonl", tmp_path / "pk.jsonl"
    by_runtime.write_text('# entry: return_visit\n{"observations": {}}\n', encoding="utf-8")
    by_pack.write_text('# entry: after_storm\n{"observations": {}}\n', encoding="utf-8")
    for entry, script in (("after_storm", by_runtime), ("return_visit", by_pack)):
        played = CliRunner().invoke(cli, ["play", str(pack), "--entry", entry, "--script", str(script)])
        assert played.exit_code == 0, played.output
    save = tmp_path / "save.json"
    first = CliRunner().invoke(cli, ["play", str(pack), "--script", str(by_pack), "--save-to", str(save)])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(cli, ["play", str(pack), "--script", str(by_pack), "--load", str(save)])
    assert again.exit_code == 0, again.output  # the script goes on from the save it made
    other = CliRunner().invoke(cli, ["play", str(pack), "--entry", "dark_lamp", "--script", str(by_pack)])
    assert other.exit_code == 2  # the other entry is still another entry


def test_a_mistyped_entry_is_told_the_name_readers_see() -> None:
    pack = example("0.5", "rich")
    pack["entries"][1]["id"] = "after_storm"
    with pytest.raises(NotPlayableError, match="did you mean 'after_storm'"):
        Engine(pack).start("after_strom")


def test_a_pack_entry_named_for_one_runtime_entry_is_not_another_s_by_position() -> None:
    """Pack entries ['other', 'opening']: 'opening' is the first runtime entry's, not also the second's."""
    pack = example("0.5", "rich")
    pack["entries"][0]["id"], pack["entries"][1]["id"] = "other", "opening"
    returning = _started(pack, "return_visit")
    assert "opening_text" not in returning.content  # scoped to 'opening'
    assert "tobias" not in returning.revealed["reader_cards"]
    assert "opening_text" in _started(pack, "opening").content


def test_an_entry_name_that_is_no_string_names_no_entry() -> None:
    engine = Engine(example("0.5", "rich"))
    assert engine.entry_named(["opening"]) is None
    with pytest.raises(TurnError, match="the script starts at entry 'return_visit'"):
        play(engine, parse_script('# entry: return_visit\n{"observations": {}}\n'), entry=["x"])  # type: ignore[arg-type]
