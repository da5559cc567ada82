"""The whole reachability budget is played, an exhausted search is a recorded proof, and findings say what they mean."""

from __future__ import annotations

import itertools
import json
import time
from collections import deque
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from creatorpack.cli import app
from creatorpack.contract.conditions import Goal
from creatorpack.lint import LintConfig, lint
from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.reach import _witness
from creatorpack.play.engine import Engine, Turn
from tests.reach_packs import R3, climb, compare, every, fog, increment

Doc = dict[str, Any]


def _active_ever(doc: Doc) -> set[str]:
    """Every rule some sequence of turns makes active: all answer combinations, every reachable state."""
    engine = Engine(doc)
    per = [
        [None, *((ident, v) for v in ([True, False] if o["type"] == "boolean" else list(o["choices"])))]
        for ident, o in engine.observations.items()
    ]
    moves = [{k: v for pair in combo if pair for k, v in [pair]} for combo in itertools.product(*per)]
    active: set[str] = set()
    for entry in engine.entry_ids():
        start, _ = engine.start(entry)
        seen = {json.dumps([start.state, start.answers], sort_keys=True)}
        queue = deque([start])
        while queue:
            session = queue.popleft()
            for move in moves:
                after, rules = engine.advance(session, Turn(move))
                active.update(rules)
                key = json.dumps([after.state, after.answers], sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    queue.append(after)
    return active


def test_the_fog_pack_rules_are_truly_unreachable() -> None:
    active = _active_ever(fog())
    assert not {"r3", "r9"} & active
    assert {"r0", "r1", "r8"} <= active


def test_the_boxes_turn_by_turn_prove_what_one_box_for_all_turns_cannot() -> None:
    # Too few turns to explore every state: r3's proof is the boxes' (r9's would need the sweep).
    outcome = _reach.decide(fog(), 100, 1e9, time.monotonic, exhaustive=False)
    assert outcome.proofs[R3].startswith("from entry 'e0', its `when` holds in no state reachable turn by turn")
    assert "`/i0` is 5 at the start, 0 after turn 1, 0..1 after turns 2-4" in outcome.proofs[R3]
    assert Goal("rule", "r9") not in outcome.proofs
    no_boxes = _reach.decide(fog(), 100, 1e9, time.monotonic, work=0, exhaustive=False, inductive=False)
    assert R3 not in no_boxes.proofs  # no boxes, no proof
    whole = _reach.decide(fog(), 2_000, 1e9, time.monotonic)  # an exhausted sweep decides first
    assert whole.proofs[R3].startswith("no sequence of turns reaches it (every reachable state explored")


def test_the_budget_the_walk_leaves_is_played_and_an_exhausted_sweep_is_a_proof() -> None:
    outcome = _reach.decide(fog(), 2_000, 1e9, time.monotonic, exhaustive=False)
    assert not [f for f in outcome.findings if f.code == "reachability-bound"]
    assert outcome.turns_played > 2_000 // _reach.SWEEP_SHARE  # the sweep resumed after the walk
    assert outcome.turns_played < 2_000  # and stopped when nothing was left to explore
    reason = outcome.proofs[Goal("rule", "r9")]
    assert reason == (
        f"no sequence of turns reaches it (every reachable state explored, {outcome.turns_played:,} turns played)"
    )
    (finding,) = [f for f in outcome.findings if f.code == "unreachable" and "'r9'" in f.message]
    assert finding.message == f"rule 'r9' is unreachable: {reason}"


def test_a_budget_too_small_to_explore_is_spent_whole_and_the_message_counts_turns_played() -> None:
    full = _reach.decide(fog(), 2_000, 1e9, time.monotonic, exhaustive=False).turns_played
    budget = full - 50
    outcome = _reach.decide(fog(), budget, 1e9, time.monotonic, exhaustive=False)
    assert outcome.turns_played == budget
    (finding,) = [f for f in outcome.findings if f.code == "reachability-bound"]
    assert f"the guided search played {budget:,} turns" in finding.message
    assert finding.message.endswith(f"; raise --max-states (now {budget:,}) to search further")
    assert Goal("rule", "r9") not in outcome.proofs


def test_a_search_that_stops_early_says_how_many_turns_it_played() -> None:
    doc = fog()
    outcome = _reach.decide(doc, 10, 1e9, time.monotonic)
    bound = [f for f in outcome.findings if f.code == "reachability-bound"]
    assert bound
    said = "the guided search played 10 turns, and the exhaustive search did not start (the analysis allows 360 states"
    assert all(said in f.message for f in bound)
    assert all(f.message.endswith("; raise --max-states (now 10) to search further") for f in bound)


def test_lint_reports_the_exhaustive_proof_for_explain() -> None:
    report = lint(json.dumps(fog()))
    assert report.proofs["rule:r9"].startswith("no sequence of turns reaches it (every reachable state explored")
    assert report.proofs["r9"] == report.proofs["rule:r9"]
    assert "achievement:a1" in report.witnesses


def test_a_completion_proof_names_the_completion_not_the_when() -> None:
    doc = fog()
    doc["runtime"]["state"]["schema"]["properties"]["k"] = {"type": "integer", "minimum": 0, "maximum": 9}
    doc["runtime"]["state"]["schema"]["required"].append("k")
    for entry in doc["runtime"]["entries"]:
        entry["initial_state"]["k"] = 0
    doc["runtime"]["rules"] += [
        {
            "kind": "effect",
            "id": "count",
            "when": {"op": "observed", "id": "o1", "value": True},
            "effects": [increment("/k", 1, limit=3)],
        },
        {
            "kind": "guidance",
            "id": "never_done",
            "when": {"op": "literal", "value": True},
            "instruction": "Go on.",
            "completion": compare("gte", "/k", 5),
        },
    ]
    report = lint(json.dumps(doc))
    reason = report.proofs["completion:never_done"]
    assert reason.startswith("its `completion` never holds: ")
    assert "`/k` stays within 0..3" in reason
    assert "rule:never_done" in report.witnesses


def ending(ident: str, when: Doc, priority: int) -> Doc:
    return {
        "id": ident,
        "title": ident,
        "when": when,
        "priority": priority,
        "closing_text": "End.",
        "artwork_asset_id": "ending_art",
        "guidance": {
            "summary": "S.",
            "next_step": "N.",
            "requirements": [{"id": "x", "hint": "H.", "condition_ref": ""}],
        },
    }


def test_an_ending_beaten_by_several_endings_names_every_one() -> None:
    doc = fog()
    doc["runtime"]["entries"] = doc["runtime"]["entries"][:1]  # /i1 starts at 0: no ending holds at the start
    doc["entries"] = doc["entries"][:1]
    doc["progression"]["endings"] = [
        ending("low", every(compare("gte", "/i1", 1), compare("lte", "/i1", 2)), 1),
        ending("high", compare("gte", "/i1", 3), 1),
        ending("loser", compare("gte", "/i1", 1), 0),  # whenever it holds, one of the others does and wins
    ]
    report = lint(json.dumps(doc), LintConfig())
    reason = report.proofs["ending:loser"]
    assert "one of the endings 'low', 'high' holds too and wins" in reason
    assert "ending:high" in report.witnesses


def test_a_turn_already_played_from_a_state_is_not_played_or_counted_again() -> None:
    engine = Engine(fog())
    search = _witness.Search(engine, _reach.targets(engine), 10, time.monotonic() + 600, time.monotonic)
    start = search.starts()[0]
    first, _ = search.play(start, {"o1": True}, _witness.Reached(start.entry, []))
    again, steps = search.play(start, {"o1": True}, _witness.Reached(start.entry, []))
    assert search.spent == 1
    assert again == first
    assert steps.turns == [{"o1": True}]
    search.play(start, {"o1": False}, _witness.Reached(start.entry, []))
    assert search.spent == 2


def test_explain_prints_the_exhaustive_proof(tmp_path: Path) -> None:
    pack = tmp_path / "fog.json"
    pack.write_text(json.dumps(fog()))
    result = CliRunner().invoke(app, ["lint", str(pack), "--explain", "r9"])
    assert result.exit_code == 1
    assert "'r9' is unreachable: no sequence of turns reaches it (every reachable state explored" in result.output


def test_an_undecided_goal_says_how_many_turns_a_play_that_reaches_it_takes_at_least() -> None:
    """The boxes turn by turn hold `/n` at exactly t after turn t, for 8 turns: no play shorter reaches 20."""
    outcome = _reach.decide(climb(), 5, 1e9, time.monotonic)
    messages = {f.message.split(" was ")[0]: f.message for f in outcome.findings if f.code == "reachability-bound"}
    assert "no play of fewer than 8 turns reaches it (by the boxes turn by turn)" in messages["achievement 'far'"]
    assert "no play of fewer than 9 turns reaches it (by the boxes turn by turn)" in messages["rule 'late'"]
    engine = Engine(climb())  # and it is true: 20 turns are what it takes
    session, _ = engine.start()
    for turn in range(1, 21):
        session, result = engine.step(session, Turn({}))
        assert ("far" in result.new_achievements) == (turn == 20)
        assert ("late" in result.active_rules) == (turn == 21)
