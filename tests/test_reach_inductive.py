"""The inductive box phase of ``lint/reach``: what it proves, what it says, and that its bounds on z3 stay sound.

Its soundness over random packs is checked in ``tests/test_reach_turns.py`` (proofs against an
exhaustive exploration) and ``tests/test_cone_encoding.py`` (the box holds every reachable state).
"""

from __future__ import annotations

import time

from creatorpack.contract.conditions import Goal
from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.reach._abstract import IntRange, analyse
from creatorpack.lint.reach._encode import Encoder
from creatorpack.lint.reach._inductive import _opened, inductive_box, point
from creatorpack.play.engine import Engine
from tests.reach_packs import R3, climb, fog


def test_the_inductive_box_proves_what_the_analysis_alone_cannot() -> None:
    """Rule r3 of the fog pack: not by the analysis's one box, but by the start and a box no turn leads out of."""
    alone = _reach.decide(fog(), 100, 1e9, time.monotonic, exhaustive=False, turn_rules=0, inductive=False)
    assert R3 not in alone.proofs
    outcome = _reach.decide(fog(), 100, 1e9, time.monotonic, exhaustive=False, turn_rules=0)
    reason = outcome.proofs[R3]
    assert reason.startswith(
        "from entry 'e0', its `when` holds in no state a turn is taken from: each lies at the start or in a box "
        "that no turn leads out of (an inductive invariant, checked with z3) ("
    )
    # The bounds that rule it out are named, as at the start and after any turn.
    assert "`/i0` is 5 at the start, 0..1 after any turn" in reason
    assert "from entry 'e1'" in reason
    assert Goal("rule", "r9") not in outcome.proofs  # truly unreachable, but no box shows it


def test_an_answer_z3_does_not_give_within_its_resource_limit_leaves_the_bound_at_the_analysis() -> None:
    engine = Engine(fog())
    analysis = analyse(engine.program, engine.entries[1], engine.entry_ids()[1])
    decided = inductive_box(analysis, [])
    unknown = inductive_box(analysis, [], rlimit=1)  # every query stops at once: "it may leave the box"
    assert decided is not None
    assert unknown is not None
    assert decided.box[1] == IntRange(2, 4)
    assert unknown.box[1] == analysis.after[1] == IntRange(0, 4)


def test_an_entry_that_needs_more_queries_than_it_may_gets_no_box() -> None:
    engine = Engine(fog())
    analysis = analyse(engine.program, engine.entries[0], engine.entry_ids()[0])
    found = inductive_box(analysis, [])
    assert found is not None
    assert found.queries > 0
    assert inductive_box(analysis, [], queries=found.queries) is not None
    assert inductive_box(analysis, [], queries=found.queries - 1) is None


def test_an_undecided_goal_names_the_invariant_the_inductive_box_lacks_and_no_turn_count() -> None:
    """Without the boxes turn by turn (a big pack) the finding has no "no play of fewer than k turns"."""
    outcome = _reach.decide(climb(), 5, 1e9, time.monotonic, turn_rules=0)
    messages = {f.message.split(" was ")[0]: f.message for f in outcome.findings if f.code == "reachability-bound"}
    far = messages["achievement 'far'"]
    assert (
        "would need the invariant that no reachable state has `/n` at least 20, which the inductive box does not "
        "give (it allows `/n` 1..30)"
    ) in far
    assert "no play of fewer than" not in far


def test_a_variable_changed_in_a_way_the_encoding_does_not_follow_gets_no_slot() -> None:
    """An increment by 1.5 of `/i1` (a pack validation refuses; the encoder still must not follow it as an integer)."""
    doc = fog()
    for rule in doc["runtime"]["rules"]:
        for effect in rule.get("effects", []):
            if effect.get("op") == "increment" and effect["path"] == "/i1":
                effect["by"] = 1.5
    engine = Engine(doc)
    analysis = analyse(engine.program, engine.entries[0], engine.entry_ids()[0])
    encoder = Encoder(analysis)
    assert encoder.opaque == {1}
    assert (0, None) in encoder.slots
    assert all(i != 1 for i, _ in encoder.slots)
    assert _opened(encoder, point(analysis, analysis.initial))[1] == analysis.after[1]
