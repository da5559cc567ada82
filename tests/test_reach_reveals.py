"""Reveals are goals too: an item no sequence of turns reveals is ``never-revealed``, one that is has turns.

The soundness of these proofs against exhaustive exploration is in tests/test_reach_turns.py (its
random packs carry reader cards and an asset with random conditions, some scoped to an entry).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from creatorpack.cli import app
from creatorpack.lint import REVEAL_GOALS, RULES, Severity, goals, lint
from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.reach import _witness
from creatorpack.testing import play

from .conftest import example

runner = CliRunner()
FERRY_RUNS: Any = {"op": "eq", "path": "/harbour/ferry_running", "value": True}  # no effect changes it


def _wren(doc: dict[str, Any]) -> dict[str, Any]:
    card: dict[str, Any] = doc["reader_cards"][2]
    assert card["id"] == "wren"
    return card


def test_a_card_whose_reveal_when_no_turn_makes_hold_is_never_revealed() -> None:
    doc = example("0.5", "rich")
    _wren(doc)["reveal_when"] = {"op": "eq", "path": "/harbour/ferry_running", "value": False}
    # The ferry runs from the start of 'return_visit' and never stops; 'opening' has it stopped.
    _wren(doc)["entry_ids"] = ["return_visit"]
    report = lint(json.dumps(doc))
    [finding] = [f for f in report.findings if f.code == "never-revealed"]
    assert (finding.pointer, finding.severity) == ("/reader_cards/2/reveal_when", Severity.WARNING)
    assert RULES["never-revealed"].severity is Severity.WARNING
    assert finding.message == (
        "reader card 'wren' is never revealed: in sessions of entry 'return_visit', the only one it belongs to "
        "(its `entry_ids`), its `reveal_when` never holds: `/harbour/ferry_running` is always true: no effect "
        "changes it, so `/harbour/ferry_running` = false never holds"
    )
    assert report.proofs["reader_card:wren"] in finding.message
    assert not report.errors  # a warning: the pack is fine, the card is shipped for nothing
    # Without the scope, the opening reveals it at its start: turns (none) and no finding.
    del _wren(doc)["entry_ids"]
    report = lint(json.dumps(doc))
    assert not [f for f in report.findings if f.code == "never-revealed"]
    witness = report.witnesses["reader_card:wren"]
    assert (witness.turns, witness.entry) == ((), None)


def test_a_reveal_that_holds_only_in_another_entry_is_never_revealed_in_its_own() -> None:
    doc = example("0.5", "rich")
    _wren(doc)["reveal_when"] = FERRY_RUNS
    _wren(doc)["entry_ids"] = ["opening"]  # the ferry runs only in 'return_visit'
    report = lint(json.dumps(doc))
    [finding] = [f for f in report.findings if f.code == "never-revealed"]
    assert "in sessions of entry 'opening', the only one it belongs to (its `entry_ids`)" in finding.message
    assert "`/harbour/ferry_running` is always false" in finding.message
    _wren(doc)["entry_ids"] = ["opening", "return_visit"]
    report = lint(json.dumps(doc))
    assert "reader_card:wren" not in report.proofs
    assert report.witnesses["reader_card:wren"].entry == "return_visit"


def test_every_reveal_of_the_rich_packs_is_decided_and_its_turns_show_it() -> None:
    """Each witness's last turn first shows the item to the reader, as `creatorpack play` shows it."""
    for version in ("0.3", "0.4", "0.5"):
        doc = example(version, "rich")
        reveals = [goal for goal in goals(doc) if goal.kind in REVEAL_GOALS]
        assert len(reveals) > 10, version
        report = lint(json.dumps(doc))
        for key in reveals:
            witness = report.witnesses[str(key)]  # every one is shown by some play
            ident = key.id
            reveal = next(k for k, goal in _witness.REVEALS.items() if goal == key.kind)
            run = play(json.dumps(doc), [{"observations": dict(t)} for t in witness.turns], entry=witness.entry)
            if witness.turns:
                assert ident in run.last.new_revealed.get(reveal, ()), (version, key)
            else:
                assert ident in run.start.revealed.get(reveal, ()), (version, key)


def test_a_reward_only_asset_is_explained_by_the_turns_that_earn_it() -> None:
    """Its `reveal_when` holds at the start, but the reader sees it only once its reward unlocks."""
    doc = example("0.5", "rich")
    asset = next(a for a in doc["assets"] if a["id"] == "badge_keeper_front")
    assert asset.get("access") == "reward_only"
    report = lint(json.dumps(doc))
    witness = report.witnesses["asset:badge_keeper_front"]
    assert witness.turns  # not at the start, where its reveal_when already holds
    run = play(json.dumps(doc), [{"observations": dict(t)} for t in witness.turns], entry=witness.entry)
    assert "badge_keeper_front" in run.last.new_revealed["assets"]


def test_a_card_part_is_explained_by_the_turns_that_reveal_its_card() -> None:
    doc = example("0.5", "rich")
    card = next(c for c in doc["reader_cards"] if c["id"] == "mara")
    card["reveal_when"] = {"op": "gte", "path": "/trust", "value": 1}  # its image shows from the start otherwise
    card["image"]["reveal_when"] = {"op": "literal", "value": True}
    report = lint(json.dumps(doc))
    image, shown_card = report.witnesses["image:mara"], report.witnesses["reader_card:mara"]
    assert image.turns
    assert len(image.turns) == len(shown_card.turns)  # it shows with its card, not before


def test_the_reveal_goals_are_the_search_s_reveal_kinds() -> None:
    assert frozenset(_reach.REVEAL_KINDS) == REVEAL_GOALS


def test_explain_prints_turns_that_reveal_an_item_and_play_replays_them(tmp_path: Path) -> None:
    pack = tmp_path / "rich.json"
    pack.write_text(json.dumps(example("0.5", "rich")), encoding="utf-8")
    result = runner.invoke(app, ["lint", str(pack), "--explain", "relationship:mara/tobias"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("# 2 turn(s) reach 'relationship:mara/tobias'")
    script = tmp_path / "w.jsonl"
    script.write_text(result.stdout, encoding="utf-8")
    played = runner.invoke(app, ["play", str(pack), "--script", str(script), "--format", "json"])
    assert played.exit_code == 0, played.output
    last = json.loads(played.stdout)["turns"][-1]
    assert "mara/tobias" in last["new"]["revealed"]["relationships"]


def test_explain_of_a_misspelt_reveal_lists_that_kind_and_guesses(tmp_path: Path) -> None:
    pack = tmp_path / "rich.json"
    pack.write_text(json.dumps(example("0.5", "rich")), encoding="utf-8")
    result = runner.invoke(app, ["lint", str(pack), "--explain", "reader_card:tobiass"])
    assert result.exit_code == 2
    assert "'reader_card:tobiass' is no achievement, ending, rule or reveal of" in result.stderr
    assert "reader_card:lighthouse" in result.stderr  # the reader cards it could have been
    assert "did you mean 'reader_card:tobias'?" in result.stderr


def test_explain_of_a_card_never_revealed_says_why(tmp_path: Path) -> None:
    doc = example("0.5", "rich")
    _wren(doc)["reveal_when"] = FERRY_RUNS
    _wren(doc)["entry_ids"] = ["opening"]
    pack = tmp_path / "rich.json"
    pack.write_text(json.dumps(doc), encoding="utf-8")
    result = runner.invoke(app, ["lint", str(pack), "--explain", "reader_card:wren"])
    assert result.exit_code == 1
    assert "'reader_card:wren' is never revealed: in sessions of entry 'opening'" in " ".join(result.stderr.split())


def test_in_an_entry_that_starts_in_an_ending_only_what_holds_at_its_start_is_revealed() -> None:
    """No turn is played there, so no answer is ever given: a reveal that waits for one is never revealed."""
    doc = example("0.5", "rich")
    doc["runtime"]["entries"][1]["initial_state"]["trust"] = 10  # an ending holds at the start of 'return_visit'
    _wren(doc)["reveal_when"] = {"op": "observed", "id": "helped_stranger", "value": True}
    _wren(doc)["entry_ids"] = ["return_visit"]
    report = lint(json.dumps(doc))
    [finding] = [f for f in report.findings if f.code == "never-revealed"]
    assert "so the session takes no turn, and its `reveal_when` does not hold there" in finding.message


def test_a_picture_whose_asset_readers_never_reach_is_never_revealed() -> None:
    """A card's image is shown only while readers can reach its asset (a reward_only one: once a reward gives it)."""
    doc = example("0.5", "rich")
    secret = {**next(a for a in doc["assets"] if a["id"] == "storm_art"), "id": "secret_art", "access": "reward_only"}
    doc["assets"].append(secret)
    tobias = next(card for card in doc["reader_cards"] if card["id"] == "tobias")
    tobias["image"] = {"asset_id": "secret_art", "reveal_when": {"op": "literal", "value": True}}
    report = lint(json.dumps(doc))
    [finding] = [f for f in report.findings if f.code == "never-revealed" and "tobias" in f.message]
    assert finding.message == (
        "the image of reader card 'tobias' is never revealed: its asset 'secret_art' is reward_only, and no "
        "achievement or ending artwork and no badge gives it, so readers never reach it"
    )
    assert "image:tobias" in report.proofs
