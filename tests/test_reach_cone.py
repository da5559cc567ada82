"""Proofs in a goal's cone of influence (``creatorpack.lint.reach._cone``): exact where the whole pack is too big."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from creatorpack.contract.conditions import Goal
from creatorpack.lint import lint
from creatorpack.lint.reach import _cone
from creatorpack.lint.reach._abstract import analyse
from creatorpack.lint.reach._decide import decide, targets
from creatorpack.lint.reach._exhaust import explore
from creatorpack.play.engine import Engine, Turn
from tests import random_packs
from tests.planting import Doc, plant_member, plant_rule
from tests.reach_packs import SHAPES

_FAR = 1_000_000


def _far_away(doc: Doc) -> Doc:
    """``doc`` with a walk of a million steps on an answer beside it: too many states to explore the whole pack."""
    plant_member(doc, "distance", {"type": "integer", "minimum": 0, "maximum": _FAR}, initial=0)
    plant_rule(doc, "stride", {"op": "observed", "id": "met_mara", "value": True}, _inc("/distance", 1))
    return doc


def _inc(path: str, by: int) -> Doc:
    return {"op": "increment", "path": path, "by": by}


def _replays(engine: Engine, goal: Goal, entry: str, turns: list[dict[str, Any]]) -> bool:
    session, _ = engine.start(entry)
    for move in turns:
        before = session
        session, active = engine.advance(session, Turn(move))
        if goal.kind == "achievement" and goal.id in session.achievements[len(before.achievements) :]:
            return True
        if goal.kind == "rule" and goal.id in active:
            return True
    return False


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_relation_inside_a_pack_too_big_to_explore_is_proved_in_the_goal_s_cone(name: str) -> None:
    make, unreachable, reachable = SHAPES[name]
    doc = _far_away(make())
    report = lint(json.dumps(doc))
    (finding,) = [f for f in report.findings if f.message.startswith(f"achievement {unreachable!r}")]
    assert finding.code == "unreachable"
    assert "reachable states of the part of the pack it depends on (state members /" in finding.message
    assert "/distance" not in finding.message
    outcome = decide(doc, 200_000, 60.0, time.monotonic)
    witness = outcome.witnesses[Goal("achievement", reachable)]
    assert _replays(Engine(doc), Goal("achievement", reachable), witness.entry, witness.turns)


@pytest.mark.parametrize("name", list(SHAPES))
def test_without_the_cones_the_same_goal_is_left_undecided(name: str) -> None:
    make, unreachable, _ = SHAPES[name]
    doc = _far_away(make())
    outcome = decide(doc, 200_000, 60.0, time.monotonic, cones=False)
    goal = Goal("achievement", unreachable)
    assert goal not in outcome.proofs
    assert goal not in outcome.witnesses


def test_a_pack_the_exhaustive_search_explores_whole_keeps_its_own_proofs() -> None:
    make, unreachable, _ = SHAPES["holding-each-other-up"]
    outcome = decide(make(), 200_000, 60.0, time.monotonic)
    assert outcome.proofs[Goal("achievement", unreachable)].endswith(" reachable states were explored")
    assert "part of the pack" not in outcome.proofs[Goal("achievement", unreachable)]


def _cone_of(doc: Doc, kind: str, ident: str) -> _cone.Cone | None:
    engine = Engine(doc)
    (target,) = [t for t in targets(engine) if t.kind == kind and t.ident == ident]
    return _cone.cone_of(engine.program, target)


def test_a_cone_holds_what_the_writers_read_and_what_they_write_beside_it() -> None:
    make, _, _ = SHAPES["holding-each-other-up"]
    doc = _far_away(make())
    plant_member(doc, "weight", {"type": "integer", "minimum": 0, "maximum": 9}, initial=0)
    plant_member(doc, "tide", {"type": "integer", "minimum": 0, "maximum": 9}, initial=0)
    # `tide` is written beside `anchor`; `weight` is what a writer of `anchor` reads.
    plant_rule(doc, "swell", {"op": "gte", "path": "/weight", "value": 2}, _inc("/anchor", 1), _inc("/tide", 1))
    cone = _cone_of(doc, "achievement", "lopsided")
    assert cone is not None
    assert {"rope", "anchor", "weight", "tide"} <= cone.members
    assert "distance" not in cone.members
    rules = doc["runtime"]["rules"]
    assert {rules[p]["id"] for p in cone.rules} == {"haul", "lower", "swell"}


def test_a_rule_s_completion_is_in_its_cone() -> None:
    make, _, _ = SHAPES["holding-each-other-up"]
    doc = _far_away(make())
    doc["runtime"]["rules"].append(
        {
            "kind": "guidance",
            "id": "watch",
            "when": {"op": "gte", "path": "/rope", "value": 1},
            "completion": {"op": "gte", "path": "/distance", "value": 3},
            "instruction": "Watch.",
        }
    )
    cone = _cone_of(doc, "rule", "watch")
    assert cone is not None
    assert {"rope", "anchor", "distance"} <= cone.members
    assert "stride" in {doc["runtime"]["rules"][p]["id"] for p in cone.rules}


def test_what_a_writer_s_completion_reads_is_in_the_cone() -> None:
    make, _, _ = SHAPES["holding-each-other-up"]
    doc = _far_away(make())
    plant_member(doc, "calm", {"type": "integer", "minimum": 0, "maximum": 9}, initial=0)
    plant_rule(doc, "swell", {"op": "observed", "id": "met_mara", "value": True}, _inc("/anchor", 1))
    doc["runtime"]["rules"][-1]["completion"] = {"op": "gte", "path": "/calm", "value": 1}  # then it stops
    cone = _cone_of(doc, "achievement", "lopsided")
    assert cone is not None
    assert "calm" in cone.members


def test_a_comparison_of_the_whole_state_has_no_cone() -> None:
    make, _, _ = SHAPES["holding-each-other-up"]
    doc = _far_away(make())
    doc["progression"]["achievements"][-1]["when"] = {"op": "ne", "path": "", "value": {}}
    assert _cone_of(doc, "achievement", "lopsided") is None


def _ground_truth(engine: Engine) -> tuple[set[Goal], set[Goal]] | None:
    """The goals the exhaustive search over the whole pack reaches and proves, when it explores it whole."""
    goals = [t for t in targets(engine) if t.kind in ("achievement", "ending", "rule", "completion")]
    done = explore(engine, goals, 200_000, time.monotonic() + 60, time.monotonic)
    if not done.complete:
        return None
    return set(done.found), {t.goal for t in goals} - set(done.found)


@pytest.mark.parametrize("profile", ["REACH", "DIFFERENTIAL"])
def test_no_proof_in_a_cone_is_unsound_on_random_packs(profile: str) -> None:
    """Every goal a cone proves is one the whole pack's exhaustive search never reaches; every witness replays."""
    checked = proved = witnessed = 0
    for seed in range(60):
        doc = random_packs.random_pack(seed, getattr(random_packs, profile))
        engine = Engine(doc)
        truth = _ground_truth(engine)
        if truth is None:
            continue
        reached, never = truth
        analyses = [analyse(engine.program, e, n) for e, n in zip(engine.entries, engine.entry_ids(), strict=False)]
        goals = targets(engine)
        decided = _cone.prove_in_cones(engine, analyses, goals, 200_000, time.monotonic() + 60, time.monotonic, targets)
        assert not set(decided.proofs) & reached, f"seed {seed}: an unsound proof"
        assert not set(decided.witnesses) & never, f"seed {seed}: a witness of a goal no play reaches"
        for goal, play in decided.witnesses.items():
            assert _replays(engine, goal, play.entry, play.turns) or goal.kind in ("ending", "completion"), seed
        checked += 1
        proved += len(decided.proofs)
        witnessed += len(decided.witnesses)
    assert checked >= 40
    assert proved > 0
    assert witnessed > 0


def _three_side_stories() -> tuple[Engine, list[Any], list[Any]]:
    """The three shapes in one pack, far walk beside: three separate cones."""
    make, _, _ = SHAPES["ending-stops-it-first"]
    doc = _far_away(make())
    for name in ("guarded-by-an-answer", "holding-each-other-up"):
        other = SHAPES[name][0]()
        mine = {r["id"] for r in doc["runtime"]["rules"]}
        doc["runtime"]["state"]["schema"]["properties"].update(other["runtime"]["state"]["schema"]["properties"])
        doc["runtime"]["state"]["schema"]["required"] = sorted(
            set(doc["runtime"]["state"]["schema"]["required"]) | set(other["runtime"]["state"]["schema"]["required"])
        )
        for entry, theirs in zip(doc["runtime"]["entries"], other["runtime"]["entries"], strict=True):
            entry["initial_state"] = {**theirs["initial_state"], **entry["initial_state"]}
        doc["runtime"]["rules"] += [r for r in other["runtime"]["rules"] if r["id"] not in mine]
        have = {a["id"] for a in doc["progression"]["achievements"]}
        doc["progression"]["achievements"] += [a for a in other["progression"]["achievements"] if a["id"] not in have]
    engine = Engine(doc)
    analyses = [analyse(engine.program, e, n) for e, n in zip(engine.entries, engine.entry_ids(), strict=False)]
    return engine, analyses, targets(engine)


def test_the_slices_stop_at_their_count(monkeypatch: pytest.MonkeyPatch) -> None:
    engine, analyses, goals = _three_side_stories()
    everything = _cone.prove_in_cones(engine, analyses, goals, 200_000, time.monotonic() + 60, time.monotonic, targets)
    unreachable = {Goal("achievement", name) for name in ("despair", "careful_but_heard", "lopsided")}
    assert unreachable <= set(everything.proofs)
    assert len(set(everything.proofs.values())) >= 3  # one reason per slice: it names the slice's members
    monkeypatch.setattr(_cone, "CONE_SLICES", 1)
    one = _cone.prove_in_cones(engine, analyses, goals, 200_000, time.monotonic() + 60, time.monotonic, targets)
    assert len(set(one.proofs.values())) <= 1
    assert len(one.proofs) + len(one.witnesses) < len(everything.proofs) + len(everything.witnesses)


def test_no_slice_is_cut_after_the_safety_net_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    engine, analyses, goals = _three_side_stories()
    cut: list[object] = []
    explore_slice = _cone._explore_slice

    def counted(*args: Any) -> Any:
        cut.append(args)
        return explore_slice(*args)

    monkeypatch.setattr(_cone, "_explore_slice", counted)
    _cone.prove_in_cones(engine, analyses, goals, 200_000, time.monotonic() + 60, time.monotonic, targets)
    assert len(cut) >= 3
    cut.clear()
    late = _cone.prove_in_cones(engine, analyses, goals, 200_000, 0.0, time.monotonic, targets)
    assert not cut
    assert not late.proofs
    assert not late.witnesses


def _separate_parts(parts: int) -> Doc:
    """``parts`` counters beside the far walk, each raised by its own rule on one answer: parts no rule shares."""
    make, _, _ = SHAPES["holding-each-other-up"]
    doc = _far_away(make())
    for k in range(parts):
        plant_member(doc, f"m{k}", {"type": "integer", "minimum": 0, "maximum": 9}, initial=0)
        plant_rule(doc, f"r{k}", {"op": "observed", "id": "gave_key", "value": True}, _inc(f"/m{k}", 1))
    return doc


def _slices_cut(monkeypatch: pytest.MonkeyPatch) -> list[Doc]:
    """The packs of the slices cut from here on, in order (the engine ``_cone`` compiles each with, spied on)."""
    sliced: list[Doc] = []

    class Spy(Engine):
        def __init__(self, pack: Any) -> None:
            sliced.append(pack)
            super().__init__(pack)

    monkeypatch.setattr(_cone, "Engine", Spy)
    return sliced


def test_a_goal_s_own_rule_outside_its_cone_is_sliced_without_its_effects(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = _separate_parts(3)
    engine = Engine(doc)
    analyses = [analyse(engine.program, e, n) for e, n in zip(engine.entries, engine.entry_ids(), strict=False)]
    wanted = [t for t in targets(engine) if t.kind == "rule" and t.ident in ("r0", "r1", "r2")]
    sliced = _slices_cut(monkeypatch)
    decided = _cone.prove_in_cones(engine, analyses, wanted, 200_000, time.monotonic() + 60, time.monotonic, targets)
    (part,) = sliced  # the three rules read no member: one cone, one slice
    kept = {r["id"]: r for r in part["runtime"]["rules"]}
    assert {"r0", "r1", "r2"} <= set(kept)
    assert all(kept[f"r{k}"]["effects"] == [] for k in range(3))
    for k in range(3):
        play = decided.witnesses[Goal("rule", f"r{k}")]
        assert _replays(engine, Goal("rule", f"r{k}"), play.entry, play.turns)


def test_the_replays_play_each_turn_of_the_whole_pack_once(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = _separate_parts(6)
    engine = Engine(doc)
    analyses = [analyse(engine.program, e, n) for e, n in zip(engine.entries, engine.entry_ids(), strict=False)]
    wanted = [t for t in targets(engine) if t.kind == "rule" and t.ident.startswith("r")]
    played: list[str] = []
    advance = engine.advance

    def counted(session: Any, turn: Turn) -> Any:
        played.append(json.dumps([session.state, turn.observations], sort_keys=True))
        return advance(session, turn)

    monkeypatch.setattr(engine, "advance", counted)
    decided = _cone.prove_in_cones(engine, analyses, wanted, 200_000, time.monotonic() + 60, time.monotonic, targets)
    assert {Goal("rule", f"r{k}") for k in range(6)} <= set(decided.witnesses)
    assert played
    assert len(played) == len(set(played))  # no turn of the whole pack played twice


def test_a_slice_s_state_holds_only_its_cone(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = _separate_parts(4)
    engine = Engine(doc)
    analyses = [analyse(engine.program, e, n) for e, n in zip(engine.entries, engine.entry_ids(), strict=False)]
    (lopsided,) = [t for t in targets(engine) if t.ident == "lopsided"]
    sliced = _slices_cut(monkeypatch)
    decided = _cone.prove_in_cones(
        engine, analyses, [lopsided], 200_000, time.monotonic() + 60, time.monotonic, targets
    )
    assert Goal("achievement", "lopsided") in decided.proofs
    (part,) = sliced
    assert set(part["runtime"]["state"]["schema"]["properties"]) == {"rope", "anchor"}
    assert set(part["runtime"]["state"]["schema"]["required"]) == {"rope", "anchor"}
    assert all(set(e["initial_state"]) == {"rope", "anchor"} for e in part["runtime"]["entries"])
    assert "m0" in doc["runtime"]["state"]["schema"]["properties"]  # the pack itself is left as it was
