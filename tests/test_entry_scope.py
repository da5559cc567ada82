"""Items with ``entry_ids`` belong to those entries only; two relationships with one actor reveal apart."""

from __future__ import annotations

from typing import Any

from creatorpack import Engine, Session, Turn
from creatorpack.play import relationship_ids
from creatorpack.service.reader import reader_view

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
    cards = reader_view(pack, start.reader_view(), "2026-11-25T00:00:00+00:00").to_json()["reader_cards"]
    assert "wren" not in {c["id"] for c in cards}
    assert "mara" in {c["id"] for c in cards}
