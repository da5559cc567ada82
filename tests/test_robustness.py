"""Lint and play never crash on a contract-valid pack, however odd (Hypothesis-mutated examples)."""

from __future__ import annotations

import copy
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import creatorpack
from creatorpack import PlayError, Session
from creatorpack.diff import MigrationError, compatibility, diff, load_migrating
from creatorpack.lint.linter import LintConfig, lint
from creatorpack.play.engine import Engine, Turn

from .conftest import VERSIONS, example
from .test_differential import _value, parent_of, paths


@st.composite
def valid_mutations(draw: st.DrawFn) -> Any:
    doc = example(draw(st.sampled_from(VERSIONS)), "rich")
    for _ in range(draw(st.integers(1, 4))):
        snapshot = copy.deepcopy(doc)
        spots = [p for p in paths(doc) if p and p[0] != "protocol_version"]
        path = draw(st.sampled_from(spots))
        parent = parent_of(doc, path)
        action = draw(st.sampled_from(["replace", "delete", "duplicate"]))
        if action == "replace":
            parent[path[-1]] = draw(_value)
        elif action == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        elif action == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[path[-1]]))
        if not creatorpack.validate(doc).valid:  # keep only contract-valid changes
            doc = snapshot
    return doc


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    valid_mutations(),
    st.lists(st.dictionaries(st.sampled_from(["helped_stranger", "met_mara", "found_key"]), st.booleans()), max_size=3),
)
def test_lint_and_play_do_not_crash(doc: Any, answers: list[dict[str, bool]]) -> None:
    assert creatorpack.validate(doc).valid
    report = lint(doc, LintConfig(max_states=50, max_seconds=1.0))
    assert report.contract.valid
    if doc["protocol_version"] == "0.2":
        return
    try:
        engine = Engine(doc)
        state, _ = engine.start()
        for turn in answers:
            if state.ending is not None:
                break
            known = {
                k: v
                for k, v in turn.items()
                if k in engine.observations and engine.observations[k].get("type") == "boolean"
            }
            state, result = engine.step(state, Turn(known))
            for shown in (result.to_json(), result.reader_view().to_json(), result.narrator_view().to_json()):
                orjson.dumps(shown)  # plain JSON, as hosts serialize it
        orjson.dumps(Session(engine, state).save())
    except PlayError:
        pass  # a documented refusal (e.g. an initial state outside its schema), not a crash


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(valid_mutations(), st.lists(st.booleans(), max_size=3))
def test_a_save_moves_to_a_mutated_revision_whenever_the_static_verdict_says_it_may(
    new: Any, answers: list[bool]
) -> None:
    """diff and the static verdict never crash; a save of the original moves unless the verdict is may_not_fit."""
    version = new["protocol_version"]
    if version == "0.2":
        return
    old = example(version, "rich")
    new["manifest"]["revision"] = old["manifest"]["revision"] + 1
    diff(old, new)
    verdict = compatibility(old, new)
    session = Session.start(Engine(old))
    for answer in answers:
        if session.over:
            break
        session.turn({"helped_stranger": answer, "met_mara": not answer})
    try:
        moved, _ = load_migrating(new, session.save(), old)
    except (MigrationError, PlayError):
        assert verdict.level == "may_not_fit", verdict.to_json()
    else:
        orjson.dumps(moved.save())


def test_a_0_4_ending_may_hold_any_value_where_its_shape_is_not_shown() -> None:
    """0.4 does not show an ending's shape: a list `badge_id` or an object `artwork_asset_id` is valid.

    Lint and play must take them (as awarding no badge and showing no artwork), not crash on them.
    """
    doc = example("0.4", "rich")
    ending = doc["progression"]["endings"][0]
    ending["badge_id"] = [{"op": "literal", "value": True}]
    ending["artwork_asset_id"] = {"op": "contains", "path": "/inventory", "value": "logbook_page"}
    ending["priority"] = True
    assert creatorpack.validate(doc).valid
    report = lint(doc, LintConfig(max_states=50))
    assert report.contract.valid
    engine = Engine(doc)
    goal = next(g for g in engine.program.endings if g.id == ending["id"])
    assert (goal.badge, goal.artwork, goal.priority) == (None, None, 0)
    state, _ = engine.start()
    state, result = engine.step(state, Turn({}))
    orjson.dumps(result.reader_view().to_json())
