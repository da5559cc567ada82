"""Each blind-spot warning matches what play does: what lint warns about, the runtime really ignores."""

from __future__ import annotations

import json
from typing import Any

from creatorpack.lint import LintConfig, lint
from creatorpack.testing import play

from .conftest import example

Doc = dict[str, Any]
QUICK = LintConfig(reachability=False)


def warnings(doc: Doc) -> dict[tuple[str, str], str]:
    report = lint(json.dumps(doc), QUICK)
    assert report.contract.valid, report.contract.violations
    assert not report.errors, report.errors
    return {(f.code, f.pointer): f.message for f in report.warnings}


def turns_to(doc: Doc, target: str) -> list[Doc]:
    witness = lint(json.dumps(doc), LintConfig(max_seconds=120)).witnesses[target]
    return [{"observations": dict(turn)} for turn in witness.turns]


def test_a_misspelt_guidance_kind_gives_no_instruction_in_play() -> None:
    doc = example("0.5", "rich")
    rule = doc["runtime"]["rules"][0]
    turns = turns_to(doc, rule["id"])
    run = play(doc, turns)
    assert rule["instruction"] in (run.turns[-1] if run.turns else run.start).instructions
    rule["kind"] = "guidence"
    found = warnings(doc)
    assert set(found) == {("unknown-rule-kind", "/runtime/rules/0/kind")}
    run = play(doc, turns)
    assert all(rule["instruction"] not in result.instructions for result in (run.start, *run.turns))


def test_an_unknown_effect_op_is_rejected_in_play() -> None:
    doc = example("0.5", "rich")
    rule = doc["runtime"]["rules"][3]
    turns = turns_to(doc, rule["id"])
    rule["effects"][0] = {"op": "increase", "path": "/trust", "by": 2}
    report = lint(json.dumps(doc), QUICK)
    # An error, not a warning: the op is the cause of what it leaves unreachable.
    assert {(f.code, f.pointer, f.severity) for f in report.findings} == {
        ("unknown-effect-op", "/runtime/rules/3/effects/0/op", "error")
    }
    run = play(doc, turns)
    rejected = [r for result in (run.start, *run.turns) for r in result.rejected_effects]
    assert rejected
    assert rejected[0]["rule"] == rule["id"]


def test_an_unknown_state_type_accepts_any_value() -> None:
    doc = example("0.5", "minimal")
    doc["runtime"]["state"]["schema"]["properties"]["mood"] = {"type": "integr", "minimum": 0, "maximum": 3}
    for entry in doc["runtime"]["entries"]:
        entry["initial_state"]["mood"] = "anything at all"
    found = warnings(doc)
    message = found[("unknown-state-type", "/runtime/state/schema/properties/mood/type")]
    assert "did you mean 'integer'?" in message
    assert play(doc, []).start.state["mood"] == "anything at all"


def test_root_members_of_a_later_version_are_ignored() -> None:
    doc = example("0.3", "rich")
    doc["progression"] = {"achievements": []}
    doc["publicaton"] = {}
    found = warnings(doc)
    assert "exists from 0.4" in found[("ignored-member", "/progression")]
    assert "did you mean 'publication'?" in found[("ignored-member", "/publicaton")]


def test_unused_observations_unrewarded_assets_and_unawarded_badges() -> None:
    doc = example("0.5", "rich")
    doc["runtime"]["observations"].append({"type": "boolean", "id": "lit_lamp", "question": "Lit?"})
    doc["assets"][4]["access"] = "reward_only"
    doc["progression"]["achievements"][2]["badge_id"] = None
    assert set(warnings(doc)) == {
        ("unused-observation", "/runtime/observations/5/id"),
        ("unrewarded-asset", "/assets/4/access"),
        ("unawarded-badge", "/progression/badges/2/id"),
    }


def test_an_ending_without_when_is_never_reached() -> None:
    doc = example("0.4", "rich")
    ending = doc["progression"]["endings"][0]
    ending["wen"] = ending.pop("when")
    found = warnings(doc)
    message = found[("unplayable-ending", "/progression/endings/0")]
    assert "has no when" in message
    assert "is 'wen' meant to be 'when'?" in message
    witness = lint(json.dumps(doc), LintConfig(max_seconds=120)).witnesses
    assert ending["id"] not in witness
