"""The exhaustive search decides what needs a relation between state members and answers.

The shapes come from a creator's report (issue 32): a rich pack where an ending always stops the
session before a counter can pass it, and its siblings. No interval box proves them (the proof
relates an answer to a counter, or two counters to each other); the exhaustive search does, by
exploring every reachable state, and says so.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Final

import pytest

from creatorpack.contract.conditions import Goal, parse
from creatorpack.lint import Witness, lint
from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.reach import _exhaust
from creatorpack.lint.reach._abstract import IntRange, Members, analyse
from creatorpack.lint.reach._missing import Played, missing_invariant, played
from creatorpack.play.engine import Engine, Turn
from creatorpack.play.step import shown
from creatorpack.scaffold import files
from tests.reach_packs import (
    SHAPES,
    compare,
    ending_stops_it_first,
    guarded_by_an_answer,
    holding_each_other_up,
    increment,
    observed,
)

from .planting import plant_achievement, plant_rule

Doc = dict[str, Any]


def _replays(doc: Doc, goal: Goal, witness: Witness) -> bool:
    engine = Engine(doc)
    session, _ = engine.start(witness.entry)
    for move in witness.turns:
        session, _ = engine.step(session, Turn(move))
    return goal.id in session.achievements if goal.kind == "achievement" else True


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_default_lint_proves_what_only_a_relation_rules_out(name: str) -> None:
    make, unreachable, reachable = SHAPES[name]
    report = lint(json.dumps(make()))
    assert not [f for f in report.findings if f.code == "reachability-bound"]
    (finding,) = [f for f in report.findings if f.code == "unreachable"]
    assert finding.message.startswith(f"achievement {unreachable!r} is unreachable: no play reaches it: all ")
    assert finding.message.endswith(" reachable states were explored")
    assert f"achievement:{unreachable}" in report.proofs
    witness = report.witnesses[f"achievement:{reachable}"]
    assert _replays(make(), Goal("achievement", reachable), witness)


def test_the_hunt_for_near_witnesses_reaches_the_survival_packs_despair() -> None:
    """Its boxes allow 2.6 million states; four turns of storms reach `despair`, found within 969 states."""
    pack = json.loads((Path(__file__).resolve().parent / "packs" / "survival.json").read_text())
    outcome = _reach.decide(pack, 100_000, 1e9, time.monotonic)
    assert len(outcome.witnesses[Goal("rule", "despair")].turns) == 4
    assert not outcome.exhausted


ENDURED: Final = Goal("ending", "endured")
ART: Final = Goal("asset", "endured_art")


def test_the_beam_reaches_the_end_of_thirty_days_survived() -> None:
    """Breadth first, 1,970,528 states find it; a beam of 50 states a turn, chosen by a hash, within 1,383."""
    pack = json.loads((Path(__file__).resolve().parent / "packs" / "survival.json").read_text())
    outcome = _reach.decide(pack, 100_000, 1e9, time.monotonic)
    witness = outcome.witnesses[ENDURED]
    assert len(witness.turns) == 30
    engine = Engine(pack)
    session, _ = engine.start(witness.entry)
    for move in witness.turns:
        session, _ = engine.step(session, Turn(move))
    assert session.ending == "endured"


def test_the_art_the_thirty_days_ending_reveals_is_witnessed_by_the_beam_s_play() -> None:
    """The hunt follows no reveal; replaying the plays it found shows `endured_art` once `endured` is reached."""
    pack = json.loads((Path(__file__).resolve().parent / "packs" / "survival.json").read_text())
    outcome = _reach.decide(pack, 100_000, 1e9, time.monotonic)
    witness = outcome.witnesses[ART]
    assert witness.turns == outcome.witnesses[ENDURED].turns  # the ending's play, cut where the art shows
    engine = Engine(pack)
    session, _ = engine.start(witness.entry)
    for turn, move in enumerate(witness.turns, 1):
        assert "endured_art" not in shown(engine.program, session)["assets"], turn
        session, _ = engine.step(session, Turn(move))
    assert "endured_art" in shown(engine.program, session)["assets"]
    assert not [f for f in outcome.findings if f.code == "reachability-bound"]
    again = _reach.decide(pack, 100_000, 1e9, time.monotonic)
    assert again.witnesses[ART] == witness  # the same on every run
    # The replays are bounded by a count of turns: a play longer than what is left is not replayed.
    (art,) = [t for t in outcome.targets if t.goal == ART]
    ending = outcome.witnesses[ENDURED]
    assert _exhaust.revealed_along(engine, [ending], [art], 30) == {ART: witness}
    assert _exhaust.revealed_along(engine, [ending], [art], 29) == {}


def test_a_search_that_stops_at_its_bound_says_how_many_states_and_turns_it_took() -> None:
    # The boxes hold 6,032 states (answers and completions aside); with answers, 14,937 are reachable.
    outcome = _reach.decide(ending_stops_it_first(), 8_000, 1e9, time.monotonic)
    found = {f.message.partition(" was ")[0]: f.message for f in outcome.findings if f.code == "reachability-bound"}
    assert list(found) == ["achievement 'despair'"]
    said = "the guided search played 2,000 turns, and the exhaustive search stopped at its bound after 8,000 states"
    assert said in found["achievement 'despair'"]
    assert found["achievement 'despair'"].endswith("; raise --max-states (now 8,000) to search further")
    assert not outcome.exhausted
    assert outcome.states == 8_000


def test_a_pack_whose_boxes_hold_more_states_than_the_bound_is_only_searched_for_near_witnesses() -> None:
    # The cones, which go first on such a pack, would decide its goals before the search starts (see
    # tests/test_reach_cone.py): left out here, so that the search's own hunt is what is tested.
    outcome = _reach.decide(ending_stops_it_first(), 6_000, 1e9, time.monotonic, cones=False)
    # Breadth first within a tenth of the bound, then a beam within another tenth.
    assert outcome.states == 2 * 6_000 // _exhaust.HUNT_SHARE
    assert not outcome.exhausted
    bound = [f for f in outcome.findings if f.code == "reachability-bound"]
    said = (
        "the exhaustive search only looked for witnesses, within 1,200 states (the analysis allows 6,032 states, "
        "more than its bound of 6,000)"
    )
    assert "achievement 'despair' was neither reached" in bound[0].message
    assert all(said in f.message for f in bound)


def test_a_turn_with_more_answers_than_the_bound_allows_is_not_searched_exhaustively() -> None:
    doc = ending_stops_it_first()
    doc["runtime"]["observations"] += [{"type": "boolean", "id": f"o{k}", "question": "q?"} for k in range(7)]
    for k in range(7):  # each read by a condition: a yes and the rest (a no, or no answer) are told apart
        plant_achievement(doc, f"yes{k}", observed(f"o{k}", True))
    outcome = _reach.decide(doc, 8_000, 1e9, time.monotonic)
    assert outcome.states == 0
    bound = [f for f in outcome.findings if f.code == "reachability-bound"]
    said = "the exhaustive search did not start (one turn has 8,192 combinations of answers, more than its bound"
    assert "achievement 'despair' was neither reached" in bound[0].message
    assert all(said in f.message for f in bound)


def late_card() -> Doc:
    """An avatar whose `reveal_when` holds only at the start's state, after a yes; its card only two steps up.

    The turn that reveals the avatar leads back to the start's state (the answer is no part of a
    state), so a search that merged the two would never show the avatar: it is shown only on a play
    that first reveals it, then climbs to the card.
    """
    doc: Doc = json.loads(files("0.5")["pack.json"])
    doc["runtime"]["state"]["schema"] = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 3}},
        "required": ["n"],
        "additionalProperties": False,
    }
    doc["runtime"]["entries"] = [{"id": "e0", "initial_state": {"n": 0}}]
    doc["entries"] = [{"id": "e0", "title": "T"}]
    doc["runtime"]["observations"] = [
        {"type": "boolean", "id": "up", "question": "q?"},
        {"type": "boolean", "id": "wave", "question": "q?"},
    ]
    doc["runtime"]["rules"] = [
        {"kind": "effect", "id": "climb", "when": observed("up", True), "effects": [increment("/n", 1)]}
    ]
    doc["assets"][0]["reveal_when"] = {"op": "literal", "value": True}
    doc["progression"]["endings"] = []
    doc["progression"]["achievements"] = []
    crop = {"x": 0.0, "y": 0.0, "width": 1.0, "height": 1.0}
    waved = {"op": "all", "conditions": [compare("eq", "/n", 0), observed("wave", True)]}
    doc["reader_cards"] = [
        {
            "id": "c0",
            "kind": "actor",
            "display_name": "C",
            "introduction": "I.",
            "reveal_when": compare("gte", "/n", 2),
        },
    ]
    doc["reader_cards"][0]["avatar"] = {"asset_id": "ending_art", "crop": crop, "reveal_when": waved}
    return doc


def test_a_card_part_revealed_on_a_turn_that_leads_back_is_shown_once_its_card_is() -> None:
    engine = Engine(late_card())
    goals = _reach.targets(engine)
    exhaustion = _exhaust.explore(engine, goals, 1_000, 1e18, time.monotonic)
    witness = exhaustion.found[Goal("avatar", "c0")]
    session, _ = engine.start()
    for move in witness.turns:
        session, result = engine.step(session, Turn(move))
    assert result.new_revealed["avatars"] == ("c0",)
    first = witness.turns[0]  # the avatar first, at the start's state, then the climb
    assert first["wave"] is True
    assert first.get("up") is not True


# --- what an undecided goal's finding says a proof lacked ------------------------------------------


def _undecided(doc: Doc, max_states: int = 300) -> dict[str, str]:
    # Without the cones, which decide these shapes' goals within 300 states (tests/test_reach_cone.py).
    outcome = _reach.decide(doc, max_states, 1e9, time.monotonic, cones=False)
    found = (f for f in outcome.findings if f.code == "reachability-bound")
    return {f.message.partition(" was ")[0]: f.message for f in found}


def test_an_undecided_goal_names_the_invariant_a_proof_lacked() -> None:
    messages = _undecided(ending_stops_it_first())
    said = (
        "a proof that it is unreachable would need the invariant that in sessions of entry 'opening', no reachable "
        "state has "
        "`/mood` at most -4, which the boxes turn by turn do not give (they allow `/mood` -10..2)"
    )
    assert said in messages["achievement 'despair'"]
    assert messages["achievement 'despair'"].endswith("; raise --max-states (now 300) to search further")


def test_the_invariant_names_every_member_the_goal_needs_and_the_answers_it_reads() -> None:
    messages = _undecided(holding_each_other_up())
    assert "has `/anchor` = 0 and `/rope` at least 2 at once, which" in messages["achievement 'lopsided'"]
    assert "has `/anchor` = 4 and `/rope` = 4 at once, which" in messages["achievement 'taut'"]
    messages = _undecided(guarded_by_an_answer())
    said = "has `/noise` at least 1 together with the answers it reads (`lamp_choice`), which"
    assert said in messages["achievement 'careful_but_heard'"]


def test_the_named_states_are_where_a_play_that_reaches_the_goal_ends() -> None:
    """`taut` is within reach: the play that reaches it ends where the message said it must."""
    doc = holding_each_other_up()
    assert "`/anchor` = 4 and `/rope` = 4" in _undecided(doc)["achievement 'taut'"]
    report = lint(json.dumps(doc))
    engine = Engine(doc)
    session, _ = engine.start(report.witnesses["achievement:taut"].entry)
    for answers in report.witnesses["achievement:taut"].turns:
        session, _ = engine.step(session, Turn(answers))
    assert (session.state["anchor"], session.state["rope"]) == (4, 4)


def test_a_rules_invariant_is_about_the_states_a_turn_is_taken_from() -> None:
    doc = ending_stops_it_first()
    plant_rule(doc, "gloom", compare("lte", "/mood", -4), increment("/mood", 1))
    said = "the invariant that in sessions of entry 'opening', no state a turn is taken from has `/mood` at most -4"
    assert said in _undecided(doc)["rule 'gloom'"]


def test_a_goal_no_bound_on_the_state_rules_out_is_said_to_wait_on_answers() -> None:
    engine = Engine(ending_stops_it_first())
    analysis = analyse(engine.program, engine.entries[0], engine.entry_ids()[0])
    said = missing_invariant(
        parse(observed("lamp_choice", "relit")), [analysis], [[analysis.after]], scoped=False, before=False
    )
    assert said.startswith("no bound on the state's members rules it out: the states the boxes turn by turn allow")
    narrowed = missing_invariant(
        parse(compare("gte", "/mood", 1)), [analysis], [[analysis.after]], scoped=False, before=False
    )
    assert "no reachable state has `/mood` at least 1, which" in narrowed
    holding = {"op": "contains", "path": "/inventory", "value": "brass_key"}
    assert "has `/inventory` holding 'brass_key', which" in missing_invariant(
        parse(holding), [analysis], [[analysis.after]], scoped=False, before=False
    )
    lacking = {"op": "not", "condition": holding}
    assert "has `/inventory` without 'brass_key', which" in missing_invariant(
        parse(lacking), [analysis], [[analysis.after]], scoped=False, before=False
    )


def test_a_member_that_only_differs_between_turns_is_not_named() -> None:
    """`/inventory` is empty at the start and holds the key from the first turn on: `lopsided` does not need it."""
    doc = holding_each_other_up()
    plant_rule(
        doc, "pocket", {"op": "literal", "value": True}, {"op": "add", "path": "/inventory", "value": "brass_key"}
    )
    message = _undecided(doc)["achievement 'lopsided'"]
    assert "has `/anchor` = 0 and `/rope` at least 2 at once, which" in message
    assert "/inventory" not in message


def test_the_finding_says_where_the_search_s_plays_kept_a_member_the_goal_needs_elsewhere() -> None:
    """Evidence, not proof: `despair` is unreachable, `taut` is reached by a play longer than the search's."""
    messages = _undecided(ending_stops_it_first())
    said = "turns the guided search played left `/mood` in -3..2: either every play does (an invariant no box here "
    assert said in messages["achievement 'despair'"]
    taut = _undecided(holding_each_other_up())["achievement 'taut'"]
    assert "played left `/anchor` in 0..3 and `/rope` in 0..3: either every play does" in taut
    assert "or the plays that do not are beyond this search; raise --max-states" in taut
    # `lopsided` needs `/anchor` = 0 and `/rope` >= 2: the plays took each member there, if not both at once.
    assert "the guided search played left" not in _undecided(holding_each_other_up())["achievement 'lopsided'"]


def test_the_plays_evidence_names_only_the_members_they_never_took_where_the_goal_needs_them() -> None:
    engine = Engine(ending_stops_it_first())
    analysis = analyse(engine.program, engine.entries[0], engine.entry_ids()[0])
    session, _ = engine.start()
    states = [session.state]
    for answers in ({"lamp_choice": "relit"}, {}):
        session, _ = engine.step(session, Turn(answers))
        states.append(session.state)
    kept = played(analysis, states)
    assert kept is not None
    assert kept.turns == 3
    mood, inventory = analysis.variables.index(("mood",)), analysis.variables.index(("inventory",))
    moods = [s["mood"] for s in states]
    assert kept.box[mood] == IntRange(min(moods), max(moods))
    assert kept.box[inventory] == Members(frozenset(), frozenset())  # no key picked up in those turns
    below = parse(compare("lte", "/mood", min(moods) - 1))
    within = parse(compare("lte", "/mood", min(moods)))
    box = [[analysis.after]]
    said = missing_invariant(below, [analysis], box, scoped=False, before=False, plays=[kept])
    assert f"; all 3 turns the guided search played left `/mood` = {min(moods)}: either every play does" in said
    assert "guided search" not in missing_invariant(within, [analysis], box, scoped=False, before=False, plays=[kept])
    assert "guided search" not in missing_invariant(below, [analysis], box, scoped=False, before=False)
    one = missing_invariant(below, [analysis], box, scoped=False, before=False, plays=[Played(kept.box, 1)])
    assert "; the one turn the guided search played left" in one
    holding = parse({"op": "contains", "path": "/inventory", "value": "brass_key"})
    said = missing_invariant(holding, [analysis], box, scoped=False, before=False, plays=[kept])
    assert "played left `/inventory` without 'brass_key': either" in said


def test_the_exhaustive_search_calls_the_typed_code_only_when_every_entry_s_start_fits() -> None:
    """The typed twin's functions read members with no test: an entry whose start lacks one gets the generic code."""
    engine = Engine(ending_stops_it_first())
    assert engine.program.shape is not None
    assert _exhaust._playing(engine) is engine.program.fitted(engine.entries[0]["initial_state"])
    assert _exhaust._playing(engine) is not engine.program
    doc = ending_stops_it_first()
    entries = doc["runtime"]["entries"]
    second = json.loads(json.dumps(entries[0]))  # the first entry fits; a second one, as written, does not
    second["id"] = "second"
    second["initial_state"]["mood"] = True  # another type than the schema's: the shape keeps the member
    entries.append(second)
    uneven = Engine(doc)
    assert uneven.program.shape is not None
    assert uneven.program.shape.fits(entries[0]["initial_state"])
    assert not uneven.program.shape.fits(second["initial_state"])
    assert _exhaust._playing(uneven) is uneven.program
