"""Reachability decided: proofs with reasons, witnesses that replay, the same findings on every machine."""

from __future__ import annotations

import copy
import itertools
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from creatorpack.cli import app
from creatorpack.contract.conditions import Goal
from creatorpack.lint import REVEAL_GOALS, LintConfig, LintReport, Witness, lint
from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.reach import _witness
from creatorpack.lint.reach._abstract import IntRange, analyse
from creatorpack.play.engine import Engine
from creatorpack.testing import play

from .planting import plant_achievement, plant_member

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RICH = {version: EXAMPLES / version / "rich.json" for version in ("0.3", "0.4", "0.5")}
runner = CliRunner()
Doc = dict[str, Any]


def rich05() -> Doc:
    doc: Doc = json.loads(RICH["0.5"].read_text())
    return doc


def constant_flag() -> Doc:
    """A boolean that no effect changes, and an achievement that needs it true."""
    doc = rich05()
    plant_member(doc, "bell_rung", {"type": "boolean"}, initial=False)
    plant_achievement(doc, "bell_ringer", {"op": "eq", "path": "/bell_rung", "value": True})
    return doc


def clamped_counter() -> Doc:
    """A counter whose only increment stops at 8, and achievements at 8 (reachable) and 9 (not)."""
    doc = rich05()
    plant_member(doc, "lanterns", {"type": "integer", "minimum": 0, "maximum": 20}, initial=0)
    doc["runtime"]["rules"].append(
        {
            "kind": "effect",
            "id": "light_lantern",
            "when": {"op": "observed", "id": "met_mara", "value": True},
            "effects": [{"op": "increment", "path": "/lanterns", "by": 1, "limit": 8, "overflow": "clamp"}],
        }
    )
    plant_achievement(doc, "eight_lanterns", {"op": "gte", "path": "/lanterns", "value": 8})
    plant_achievement(doc, "nine_lanterns", {"op": "gte", "path": "/lanterns", "value": 9})
    return doc


def ending_first() -> Doc:
    """A value that an ending always stops the session before: the alarm ends it at 3, a goal needs 4."""
    doc = rich05()
    plant_member(doc, "alarm", {"type": "integer", "minimum": 0, "maximum": 10}, initial=0)
    doc["runtime"]["rules"].append(
        {
            "kind": "effect",
            "id": "raise_alarm",
            "when": {"op": "observed", "id": "found_key", "value": True},
            "effects": [{"op": "increment", "path": "/alarm", "by": 1}],
        }
    )
    doc["progression"]["endings"].append(
        {
            "id": "alarm_raised",
            "title": "The Alarm",
            "when": {"op": "gte", "path": "/alarm", "value": 3},
            "priority": 0,
            "closing_text": "Bells everywhere.",
            # Art revealed from the start: dark_ending_art waits for a storm, which the alarm ending
            # does not (lint's artwork-not-revealed would say so, besides the planted goal).
            "artwork_asset_id": "storm_art",
            "guidance": {
                "summary": "S.",
                "next_step": "N.",
                "requirements": [{"id": "all", "hint": "H.", "condition_ref": ""}],
            },
        }
    )
    plant_achievement(doc, "loud_night", {"op": "gte", "path": "/alarm", "value": 4})
    return doc


def unaffordable() -> Doc:
    """A purchase that is always refused: the sword costs 5, the purse holds 3 and nothing fills it.

    The rule's increment rejects, which undoes its `add` too, so `/pack` never holds the sword;
    the rope, which another rule adds, is within reach.
    """
    doc = rich05()
    plant_member(doc, "coins", {"type": "integer", "minimum": 0, "maximum": 20}, initial=3)
    plant_member(doc, "pack", {"type": "array", "items": {"enum": ["sword", "rope"]}, "uniqueItems": True}, initial=[])
    doc["runtime"]["rules"] += [
        {
            "kind": "effect",
            "id": "buy_sword",
            "when": {"op": "observed", "id": "met_mara", "value": True},
            "effects": [
                {"op": "increment", "path": "/coins", "by": -5, "overflow": "reject"},
                {"op": "add", "path": "/pack", "value": "sword"},
            ],
        },
        {
            "kind": "effect",
            "id": "take_rope",
            "when": {"op": "observed", "id": "found_key", "value": True},
            "effects": [{"op": "add", "path": "/pack", "value": "rope"}],
        },
    ]
    plant_achievement(doc, "roped", {"op": "contains", "path": "/pack", "value": "rope"})
    plant_achievement(doc, "armed", {"op": "contains", "path": "/pack", "value": "sword"})
    return doc


PLANTED: dict[str, tuple[Callable[[], Doc], str, str]] = {
    "constant-flag": (
        constant_flag,
        "/progression/achievements/4/when",  # the condition that cannot hold, not the item
        "`/bell_rung` is always false: no effect changes it, so `/bell_rung` = true never holds",
    ),
    "clamped-counter": (
        clamped_counter,
        "/progression/achievements/5/when",  # the condition that cannot hold, not the item
        "`/lanterns` stays within 0..8 in every reachable state (effects of rule `light_lantern`)",
    ),
    "ending-first": (
        ending_first,
        "/progression/achievements/4/when",  # the condition that cannot hold, not the item
        (
            "`/alarm` stays within 0..3 in every reachable state (effects of rule `raise_alarm`; "
            "an ending stops the session first)"
        ),
    ),
    "unaffordable": (
        unaffordable,
        "/progression/achievements/5/when",  # the condition that cannot hold, not the item
        "rule `buy_sword` never changes the state: its increment of `/coins` by -5 is always rejected",
    ),
}


def packs() -> Iterator[tuple[str, Doc]]:
    for version, path in RICH.items():
        yield f"rich-{version}", json.loads(path.read_text())
    for name, (make, _, _) in PLANTED.items():
        yield name, make()


ALL = list(packs())


def _report(doc: Doc, config: LintConfig | None = None) -> LintReport:
    return lint(json.dumps(doc), config)


@pytest.mark.parametrize("name", list(PLANTED))
def test_planted_unreachable_goal_is_proved_with_its_reason(name: str) -> None:
    make, pointer, reason = PLANTED[name]
    report = _report(make())
    goals = [f for f in report.findings if f.code != "rejected-rule"]  # unaffordable's rule: tested below
    assert [(f.code, f.pointer) for f in goals] == [("unreachable", pointer)]
    (finding,) = goals
    assert reason in finding.message
    assert finding.message.startswith("achievement ")


@pytest.mark.parametrize(("name", "doc"), ALL, ids=[n for n, _ in ALL])
def test_every_goal_is_decided_by_a_default_lint(name: str, doc: Doc) -> None:
    report = _report(doc)
    assert not [f for f in report.findings if f.code == "reachability-bound"], name
    engine = Engine(doc)
    for target in _reach.targets(engine):
        key = str(target.goal)  # the report's keys are text, as users name goals
        assert (key in report.witnesses) != (key in report.proofs), key


def test_the_outcome_keys_goals_by_their_goal_and_the_report_by_its_text() -> None:
    """Reach keys what it decides by each target's :class:`Goal` (made once); the report by its ``kind:id`` text."""
    doc = next(iter(PLANTED.values()))[0]()
    outcome = _reach.decide(doc, 2_000, 1e9, time.monotonic)
    goals = {t.goal: t for t in outcome.targets}
    assert all(t.goal is t.goal and t.goal == Goal(t.kind, t.ident) for t in outcome.targets)
    assert outcome.witnesses
    assert outcome.proofs
    assert set(outcome.witnesses) | set(outcome.proofs) <= set(goals)
    report = _report(doc)
    for goal, reached in outcome.witnesses.items():
        assert report.witnesses[str(goal)].turns == tuple(reached.turns), goal
    for goal, reason in outcome.proofs.items():
        assert report.proofs[str(goal)] == reason, goal


def _reached(doc: Doc, goal: Goal, witness: Witness) -> bool:
    run = play(json.dumps(doc), [{"observations": dict(t)} for t in witness.turns], entry=witness.entry)
    kind, ident = goal.kind, goal.id
    last = run.last
    if kind == "achievement":
        return ident in last.new_achievements or (not witness.turns and ident in last.achievements)
    if kind == "ending":
        return last.ending == ident
    if kind == "rule":
        return ident in last.active_rules
    if kind in REVEAL_GOALS:
        return _revealed_on_the_last_turn(doc, kind, ident, witness)
    return ident in last.new_completed_rules


def _revealed_on_the_last_turn(doc: Doc, kind: str, ident: str, witness: Witness) -> bool:
    """Whether the reader is first shown the item after the witness's last turn (at the start, for no turns).

    Shown as play shows it (its ``revealed``): a ``reward_only`` asset once its reward unlocks, a
    card's part once the card is revealed.
    """
    run = play(json.dumps(doc), [{"observations": dict(t)} for t in witness.turns], entry=witness.entry)
    reveal = next(k for k, goal in _witness.REVEALS.items() if goal == kind)
    if not witness.turns:
        return ident in run.start.revealed.get(reveal, ())
    return ident in run.last.new_revealed.get(reveal, ())


@pytest.mark.parametrize(("name", "doc"), ALL, ids=[n for n, _ in ALL])
def test_every_witness_replays_to_its_goal_on_its_last_turn(name: str, doc: Doc) -> None:
    report = _report(doc)
    qualified = {k: w for k, w in report.witnesses.items() if ":" in k}
    assert qualified, name
    for key, witness in qualified.items():
        assert _reached(doc, Goal.parse(key), witness), (name, key, witness)


@pytest.mark.parametrize(("name", "doc"), ALL, ids=[n for n, _ in ALL])
def test_proofs_are_sound_a_wider_search_never_reaches_a_proved_goal(name: str, doc: Doc) -> None:
    report = _report(doc)
    engine = Engine(doc)
    search = _witness.Search(engine, _reach.targets(engine), 3_000, time.monotonic() + 600, time.monotonic)
    starts = search.starts()
    search.sweep(starts, 1_500)
    search.walk(starts)
    proved = {k for k in report.proofs if ":" in k}
    assert proved == set() or name in PLANTED
    assert not proved & set(search.found), name


def test_the_same_pack_gives_the_same_findings_however_slow_the_machine() -> None:
    doc = clamped_counter()
    ticks = itertools.count()
    slow = _reach.decide(doc, 2_000, 1e12, lambda: float(next(ticks)) * 5.0)  # 5 s pass per clock read
    fast = _reach.decide(doc, 2_000, 1e12, time.monotonic)
    assert slow.findings == fast.findings
    assert slow.witnesses == fast.witnesses
    assert slow.turns_played == fast.turns_played
    assert not slow.timed_out


def test_the_safety_net_says_it_is_one() -> None:
    doc = rich05()
    ticks = itertools.count()
    outcome = _reach.decide(doc, 2_000, 10.0, lambda: float(next(ticks)))
    assert outcome.timed_out
    bound = [f for f in outcome.findings if f.code == "reachability-bound"]
    assert bound
    assert all("safety-net time limit (10 s)" in f.message and "depends on the machine" in f.message for f in bound)


def test_witness_lengths_are_short() -> None:
    report = _report(clamped_counter())
    assert len(report.witnesses["achievement:eight_lanterns"].turns) == 8  # one lantern a turn, from 0
    assert all(len(w.turns) <= 2 * _witness.MAX_WALK for w in report.witnesses.values())


def test_analysis_tracks_only_what_effects_write() -> None:
    doc = clamped_counter()
    engine = Engine(doc)
    analysis = analyse(engine.program, engine.entries[0], "opening")
    ranges = dict(zip(analysis.variables, analysis.after, strict=True))
    assert ranges[("lanterns",)] == IntRange(0, 8)
    assert ("lamp_lit",) not in ranges  # no effect writes it: a constant


def test_a_rule_completed_at_the_start_is_never_active() -> None:
    doc = rich05()
    doc["runtime"]["rules"].append(
        {
            "kind": "guidance",
            "id": "already_done",
            "when": {"op": "literal", "value": True},
            "instruction": "Never said.",
            "completion": {"op": "gte", "path": "/trust", "value": 0},
        }
    )
    report = _report(doc)
    (finding,) = report.findings
    assert (finding.code, finding.pointer) == ("unreachable", f"/runtime/rules/{len(doc['runtime']['rules']) - 1}")
    assert "completed before any turn and never active" in finding.message
    assert "completion:already_done" in report.witnesses  # the completion itself happens at turn 0


def test_an_ending_that_always_loses_to_a_higher_one_is_unreachable() -> None:
    doc = rich05()
    doc["progression"]["endings"].append(
        {
            "id": "shadow",
            "title": "Shadow",
            "when": {
                "op": "all",
                "conditions": [
                    {"op": "gte", "path": "/harbour/storm_level", "value": 3},
                    {"op": "lte", "path": "/trust", "value": 1},
                ],
            },
            "priority": 0,
            "closing_text": "Never.",
            "artwork_asset_id": "dark_ending_art",
            "guidance": {
                "summary": "S.",
                "next_step": "N.",
                "requirements": [{"id": "all", "hint": "H.", "condition_ref": ""}],
            },
        }
    )
    report = _report(doc)
    (finding,) = report.findings
    assert finding.code == "unreachable"
    assert "ending 'dark_harbour' holds too and wins" in finding.message


@pytest.mark.parametrize(
    "target",
    [
        "first_light",
        "achievement:first_light",
        "dark_harbour",
        "ending:dark_harbour",
        "help_stranger",
        "rule:help_stranger",
        "completion:relight_lamp",
    ],
)
def test_cli_explain_replays_for_every_goal_kind(target: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["lint", str(RICH["0.5"]), "--explain", target])
    assert result.exit_code == 0, result.output
    header = result.output.splitlines()[0]
    assert header.startswith("# ")
    assert "turn(s) reach" in header
    script = tmp_path / "w.jsonl"
    script.write_text(result.output)
    # The script names its entry itself (a "# entry:" line) when the witness starts elsewhere.
    played = runner.invoke(app, ["play", str(RICH["0.5"]), "--script", str(script), "-f", "json"])
    assert played.exit_code == 0, played.output
    turns = json.loads(played.output)["turns"]
    last = turns[-1] if turns else json.loads(played.output)["start"]
    kind, _, ident = target.rpartition(":")
    if kind in ("", "achievement") and ident == "first_light":
        assert ident in last["new"]["unlocked_achievements"]
    elif ident == "dark_harbour":
        assert last["ending"] == "dark_harbour"
    elif kind == "completion":
        assert ident in last["new"]["completed_rules"]
    else:
        assert ident in last["active_rules"]


def test_cli_explain_of_an_unreachable_goal_says_why(tmp_path: Path) -> None:
    pack = tmp_path / "planted.json"
    pack.write_text(json.dumps(clamped_counter()))
    result = runner.invoke(app, ["lint", str(pack), "--explain", "nine_lanterns"])
    assert result.exit_code == 1
    assert "'nine_lanterns' is unreachable" in result.output
    assert "`/lanterns` stays within 0..8" in result.output


def test_cli_explain_rejects_an_unknown_completion(tmp_path: Path) -> None:
    result = runner.invoke(app, ["lint", str(RICH["0.5"]), "--explain", "completion:help_stranger"])
    assert result.exit_code == 2  # help_stranger has no completion
    del tmp_path


def test_planted_variants_do_not_change_the_originals() -> None:
    before = rich05()
    for make, _, _ in PLANTED.values():
        make()
    assert rich05() == before
    assert copy.deepcopy(before) == before


def test_a_rule_that_an_effect_always_rejects_is_not_a_rule_that_must_fire() -> None:
    # `raise_bar` always holds, but its second effect (on a boolean) is always rejected, which undoes the
    # first: the counter never rises, and `lower_bar` can take it to 0.
    doc = rich05()
    plant_member(doc, "bar", {"type": "integer", "minimum": 0, "maximum": 10}, initial=5)
    doc["runtime"]["rules"] += [
        {
            "kind": "effect",
            "id": "raise_bar",
            "when": {"op": "literal", "value": True},
            "effects": [
                {"op": "increment", "path": "/bar", "by": 1},
                {"op": "increment", "path": "/lamp_lit", "by": 1},
            ],
        },
        {
            "kind": "effect",
            "id": "lower_bar",
            "when": {"op": "observed", "id": "met_mara", "value": True},
            "effects": [{"op": "increment", "path": "/bar", "by": -1}],
        },
    ]
    engine = Engine(doc)
    analysis = analyse(engine.program, engine.entries[0], "opening")
    ranges = dict(zip(analysis.variables, analysis.after, strict=True))
    bar = ranges[("bar",)]
    assert isinstance(bar, IntRange)
    assert bar.low == 0
    run = play(json.dumps(doc), [{"observations": {"met_mara": True}}] * 5)
    assert run.last.state["bar"] == 0


@pytest.mark.parametrize(
    ("coins", "earn"),
    [(5, False), (3, True)],
    ids=["the-purse-holds-just-enough", "the-purse-fills-up"],
)
def test_a_purchase_within_reach_is_not_refused(coins: int, earn: bool) -> None:
    # The boundary of the planted `unaffordable` pack: 5 coins pay for the sword exactly (5 - 5 = 0 is
    # within 0..20), and a rule that earns a coin a turn makes it affordable after two turns.
    doc = unaffordable()
    for entry in doc["runtime"]["entries"]:
        entry["initial_state"]["coins"] = coins
    if earn:
        doc["runtime"]["rules"].append(
            {
                "kind": "effect",
                "id": "earn",
                "when": {"op": "literal", "value": True},
                "effects": [{"op": "increment", "path": "/coins", "by": 1}],
            }
        )
    engine = Engine(doc)
    assert not analyse(engine.program, engine.entries[0], "opening").refused
    report = _report(doc)
    assert not [f for f in report.findings if f.pointer == "/progression/achievements/5" or f.code == "rejected-rule"]
    witness = report.witnesses["achievement:armed"]
    assert _reached(doc, Goal("achievement", "armed"), witness)


def test_a_refused_rule_is_named_with_why_in_the_analysis() -> None:
    doc = unaffordable()
    engine = Engine(doc)
    analysis = analyse(engine.program, engine.entries[0], "opening")
    assert list(analysis.refused) == ["buy_sword"]
    assert analysis.refused["buy_sword"].effect == 0
    assert "`/coins` is 3 when it applies, and must stay within 0..20" in analysis.refused["buy_sword"].reason
    ranges = dict(zip(analysis.variables, analysis.after, strict=True))
    assert ranges[("coins",)] == IntRange(3, 3)


def test_a_rule_that_never_changes_the_state_is_a_warning_at_its_increment() -> None:
    report = _report(unaffordable())
    (finding,) = [f for f in report.findings if f.code == "rejected-rule"]
    assert finding.severity == "warning"
    assert finding.pointer == "/runtime/rules/10/effects/0"
    assert finding.message == (
        "rule 'buy_sword' never changes the state: its increment of `/coins` by -5 is always rejected "
        "(`/coins` is 3 when it applies, and must stay within 0..20)"
    )
    # The rule is still active (its `when` holds); only its effects never apply.
    assert "rule:buy_sword" in report.witnesses


def test_a_purchase_refused_after_an_earlier_rule_of_the_turn_writes_the_purse_is_found() -> None:
    """The toll fires only when 2 coins are left; the rules before it may spend 5 or earn 1 the same turn: 0..3.

    A rule's `when` reads the state before the turn, and the rules before it in the list may move the
    purse before its increment applies; both are followed, so the refusal is seen (it was judged on
    every value the purse takes in the turn, 0..6, which 5 coins fit).
    """
    doc = unaffordable()
    earn: Doc = {"kind": "effect", "id": "earn", "when": {"op": "observed", "id": "found_key", "value": True}}
    earn["effects"] = [{"op": "increment", "path": "/coins", "by": 1, "limit": 6}]
    toll: Doc = {"kind": "effect", "id": "toll", "when": {"op": "eq", "path": "/coins", "value": 2}}
    toll["effects"] = [
        {"op": "increment", "path": "/coins", "by": -5, "overflow": "reject"},
        {"op": "add", "path": "/pack", "value": "rope"},
    ]
    doc["runtime"]["rules"] += [earn, toll]
    report = _report(doc)
    [refused] = [f for f in report.findings if f.code == "rejected-rule" and "toll" in f.message]
    assert refused.message == (
        "rule 'toll' never changes the state: its increment of `/coins` by -5 is always rejected (`/coins` is 0..3 "
        "when it applies, and must stay within 0..20)"
    )


def test_a_goal_each_entry_blocks_for_a_reason_of_its_own_gets_each_reason() -> None:
    """The first entry's reason is not said to hold for the others: each entry is named with its own."""
    doc = rich05()
    doc["progression"]["achievements"][0]["when"] = {
        "op": "all",
        "conditions": [
            {"op": "eq", "path": "/harbour/ferry_running", "value": True},  # false from 'opening' on
            {"op": "eq", "path": "/lamp_lit", "value": False},  # true from 'return_visit' on
        ],
    }
    [finding] = [f for f in _report(doc).findings if f.code == "unreachable"]
    assert finding.message == (
        "achievement 'first_light' is unreachable: from entry 'opening', its `when` never holds: "
        "`/harbour/ferry_running` is always false: no effect changes it, so `/harbour/ferry_running` = true never "
        "holds; from entry 'return_visit', its `when` never holds: `/lamp_lit` is always true: no effect changes "
        "it, so `/lamp_lit` = false never holds"
    )


def test_a_clamp_that_pulls_a_counter_back_to_its_limit_is_no_small_move() -> None:
    """`+1` with `limit: 3` takes 6 down to 3: a later rule may then apply where the counter was 5..6.

    A gust clamps the lanterns to 3 whatever they were; a gift of 2 (rejected past 6) fires only at
    5 or more, read before the turn: after the gust it is 3 + 2 = 5, accepted. No `rejected-rule`.
    """
    doc = unaffordable()
    plant_member(doc, "lanterns", {"type": "integer", "minimum": 0, "maximum": 6}, initial=6)
    gust: Doc = {"kind": "effect", "id": "gust", "when": {"op": "observed", "id": "met_mara", "value": True}}
    gust["effects"] = [{"op": "increment", "path": "/lanterns", "by": 1, "limit": 3}]
    gift: Doc = {"kind": "effect", "id": "gift", "when": {"op": "gte", "path": "/lanterns", "value": 5}}
    gift["effects"] = [{"op": "increment", "path": "/lanterns", "by": 2, "overflow": "reject"}]
    doc["runtime"]["rules"] += [gust, gift]
    assert not [f for f in _report(doc).findings if f.code == "rejected-rule" and "gift" in f.message]
    run = play(json.dumps(doc), [{"observations": {"met_mara": True}}])
    assert run.last.state["lanterns"] == 5  # the gust took 6 to 3, and the gift 3 to 5
    assert "gift" in run.last.active_rules


def test_entries_that_share_a_reason_are_named_together() -> None:
    doc = rich05()
    third = copy.deepcopy(doc["runtime"]["entries"][1])  # 'return_visit' twice: the same reason
    third["id"] = "second_visit"
    doc["runtime"]["entries"].append(third)
    doc["entries"].append({**doc["entries"][1], "id": "second_visit"})
    doc["progression"]["achievements"][0]["when"] = {
        "op": "all",
        "conditions": [
            {"op": "eq", "path": "/harbour/ferry_running", "value": True},
            {"op": "eq", "path": "/lamp_lit", "value": False},
        ],
    }
    [finding] = [f for f in _report(doc).findings if f.code == "unreachable"]
    assert "; from entries 'return_visit', 'second_visit', its `when` never holds: `/lamp_lit`" in finding.message
