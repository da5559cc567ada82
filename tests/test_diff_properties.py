"""Hypothesis: random valid edits of a rich pack; the diff's verdict agrees with actually loading saves.

Saves come from the scripted playthroughs (``examples/*/playthrough.jsonl``) and random turns,
from every entry, at every turn. For each save, the plan's verdict must agree with the new
revision's engine (and a plan without the old pack must agree with it, given the save's record of
its state schema's members): ``as_is`` loads unchanged, ``by_plan`` loads once migrated (and plays on),
``cannot`` does not load and names each misfit; every step and misfit is covered by the static
verdict, and a static ``fits`` means every save loads as it is.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from creatorpack.contract import validate
from creatorpack.diff import Compatibility, MigrationError, compatibility, diff, migration_plan
from creatorpack.errors import SessionLoadError
from creatorpack.play import Engine, Session, Turn, parse_script
from creatorpack.play.model import STATE_MEMBERS, state_members
from creatorpack.play.state import check_state

from .conftest import EXAMPLES, example

Edit = Callable[[dict[str, Any]], None]
MEMBERS = ("trust", "lamp_lit", "inventory", "harbour")
NESTED = ("storm_level", "ferry_running")
CHANGED = {"by_plan", "may_not_fit"}
STRUCTURAL = ("is not in the state schema", "missing required member")


def _schema(pack: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = pack["runtime"]["state"]["schema"]
    return schema


def _parent(pack: dict[str, Any], nested: bool) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The schema object holding a top-level (or a /harbour) member, and the initial states at that level."""
    schema = _schema(pack)
    initials = [e["initial_state"] for e in pack["runtime"]["entries"]]
    if not nested:
        return schema, initials
    harbour = schema["properties"].get("harbour")
    if not (isinstance(harbour, dict) and harbour.get("type") == "object"):
        return None, []
    return harbour, [i["harbour"] for i in initials if isinstance(i.get("harbour"), dict)]


@st.composite
def rebound(draw: st.DrawFn) -> Edit:
    nested = draw(st.booleans())
    low = draw(st.integers(-2, 6))
    high = draw(st.integers(low, 12))

    def edit(pack: dict[str, Any]) -> None:
        parent, _ = _parent(pack, nested)
        node = parent["properties"].get("storm_level" if nested else "trust") if parent else None
        if node is not None and node.get("type") == "integer":
            node["minimum"], node["maximum"] = low, high

    return edit


@st.composite
def add_member(draw: st.DrawFn) -> Edit:
    nested = draw(st.booleans())
    name = draw(st.sampled_from(["courage", "weather", "ledger"]))
    nodes: list[dict[str, Any]] = [
        {"type": "integer", "minimum": 0, "maximum": 5},
        {"type": "boolean"},
        {"type": "array", "items": {"enum": ["rope", "lantern"]}, "uniqueItems": True},
    ]
    node = draw(st.sampled_from(nodes))
    value: Any = {"integer": 2, "boolean": True, "array": ["rope"]}[node["type"]]
    required = draw(st.booleans())
    give = draw(st.lists(st.booleans(), min_size=2, max_size=2))  # whether each entry's initial_state has it

    def edit(pack: dict[str, Any]) -> None:
        parent, initials = _parent(pack, nested)
        if parent is None or name in parent["properties"]:
            return
        parent["properties"][name] = copy.deepcopy(node)
        if required:
            parent.setdefault("required", []).append(name)
        for initial, gives in zip(initials, give, strict=False):
            if gives:
                initial[name] = copy.deepcopy(value)

    return edit


@st.composite
def remove_member(draw: st.DrawFn) -> Edit:
    nested = draw(st.booleans())
    name = draw(st.sampled_from(NESTED if nested else MEMBERS))

    def edit(pack: dict[str, Any]) -> None:
        parent, initials = _parent(pack, nested)
        if parent is None or name not in parent["properties"] or len(parent["properties"]) == 1:
            return
        del parent["properties"][name]
        parent["required"] = [r for r in parent.get("required", []) if r != name]
        for initial in initials:
            initial.pop(name, None)

    return edit


@st.composite
def change_enum(draw: st.DrawFn) -> Edit:
    keep = draw(st.lists(st.sampled_from(["oil_can", "logbook_page", "brass_key"]), min_size=1, unique=True))
    extra = draw(st.booleans())

    def edit(pack: dict[str, Any]) -> None:
        node = _schema(pack)["properties"].get("inventory")
        if node is None or node.get("type") != "array":
            return
        node["items"]["enum"] = [v for v in node["items"]["enum"] if v in keep] or list(keep)
        if extra:
            node["items"]["enum"].append("lantern")

    return edit


@st.composite
def retype(draw: st.DrawFn) -> Edit:
    name = draw(st.sampled_from(["lamp_lit", "trust"]))

    def edit(pack: dict[str, Any]) -> None:
        properties = _schema(pack)["properties"]
        if name in properties:
            properties[name] = (
                {"type": "integer", "minimum": 0, "maximum": 1} if name == "lamp_lit" else {"type": "boolean"}
            )

    return edit


@st.composite
def remove_item(draw: st.DrawFn) -> Edit:
    where = draw(st.sampled_from(["observation", "choice", "entry", "ending", "achievement", "card", "optional"]))
    index = draw(st.integers(0, 4))

    def edit(pack: dict[str, Any]) -> None:
        runtime = pack["runtime"]
        if where == "observation" and runtime["observations"]:
            runtime["observations"].pop(index % len(runtime["observations"]))
        elif where == "choice":
            for observation in runtime["observations"]:
                if observation["type"] == "choice" and len(observation["choices"]) > 2:
                    del observation["choices"][sorted(observation["choices"])[index % len(observation["choices"])]]
        elif where == "entry" and len(runtime["entries"]) > 1:
            runtime["entries"].pop(index % len(runtime["entries"]))
        elif where in ("ending", "achievement") and pack.get("progression", {}).get(f"{where}s"):
            items = pack["progression"][f"{where}s"]
            items.pop(index % len(items))
        elif where == "card" and pack.get("reader_cards"):
            pack["reader_cards"].pop(index % len(pack["reader_cards"]))
        elif where == "optional":
            _schema(pack)["required"] = _schema(pack)["required"][1:]

    return edit


@st.composite
def touch(draw: st.DrawFn) -> Edit:
    where = draw(st.sampled_from(["tagline", "visibility", "asset", "instruction", "reorder", "new_rule"]))

    def edit(pack: dict[str, Any]) -> None:
        if where == "tagline" and "publication" in pack:
            pack["publication"]["tagline"] = "A revised tagline"
        elif where == "visibility" and "publication" in pack:
            pack["publication"].pop("visibility", None)
        elif where == "asset" and pack.get("assets"):
            pack["assets"][-1]["description"] = "A revised description"
        elif where == "instruction":
            rule = next(r for r in pack["runtime"]["rules"] if r["kind"] == "guidance")
            rule["instruction"] = "Revised guidance."
        elif where == "reorder":
            pack["runtime"]["observations"].reverse()
        elif where == "new_rule":
            pack["runtime"]["rules"].append(
                {
                    "kind": "guidance",
                    "id": "fresh_rule",
                    "when": {"op": "literal", "value": True},
                    "instruction": "New.",
                }
            )

    return edit


EDITS = st.lists(
    st.one_of(rebound(), add_member(), remove_member(), change_enum(), retype(), remove_item(), touch()),
    min_size=1,
    max_size=4,
)


def _answers(pack: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    members: dict[str, st.SearchStrategy[Any]] = {
        o["id"]: st.booleans() if o["type"] == "boolean" else st.sampled_from(sorted(o["choices"]))
        for o in pack["runtime"]["observations"]
    }
    return st.fixed_dictionaries({}, optional=members)


def _saves(pack: dict[str, Any], version: str, entry: str, extra: list[dict[str, Any]]) -> list[dict[str, Any]]:
    engine = Engine(pack)
    script = parse_script(EXAMPLES / version / "playthrough.jsonl")
    session = Session.start(engine, entry)
    saves = [session.save()]
    for turn in [*script, *(Turn(answers) for answers in extra)]:
        if session.over:
            break
        session.turn(turn.observations)
        saves.append(session.save())
    return saves


def _covered(static: Compatibility, subject: str, key: str, levels: set[str]) -> bool:
    for member in static.members:
        if member.subject != subject or member.level not in levels:
            continue
        if member.key == key or (subject == "state" and key.startswith(member.key + "/")):
            return True
        if subject == "ids" and key.startswith(member.key):
            return True
    return False


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["0.3", "0.4", "0.5"]), EDITS, st.data())
def test_the_verdict_agrees_with_loading_the_saves(version: str, edits: list[Edit], data: st.DataObject) -> None:
    old = example(version, "rich")
    new = copy.deepcopy(old)
    new["manifest"]["revision"] += 1
    for edit in edits:
        edit(new)
    assert validate(new).valid, validate(new).violations[:3]
    entry = data.draw(st.sampled_from([e["id"] for e in old["runtime"]["entries"]]))
    extra = data.draw(st.lists(_answers(old), max_size=6))
    saves = _saves(old, version, entry, extra)

    static = compatibility(old, new)
    assert diff(old, new).compatibility == static
    plan = migration_plan(old, new)
    alone = migration_plan(None, new)  # what creatorpack play --load plans with: the save and the new pack
    members = state_members(Engine(old).schema)
    engine = Engine(new)
    for saved in saves:
        verdict = plan.check(saved)
        event(f"save {verdict.level}, static {static.level}")
        # A save that records its state schema's members is planned alike without the old pack.
        recorded = {**saved, STATE_MEMBERS: members}
        assert alone.check(recorded) == plan.check(recorded) == verdict
        if verdict.level != "cannot":
            assert alone.apply(recorded) == plan.apply(recorded)
        if static.level == "fits":
            assert verdict.level == "as_is"
        # Every step and misfit is foreseen by the static verdict (a member that may not fit in
        # general, such as a new member some entry has no initial value for, may fit by plan here).
        for step in verdict.steps:
            section, _, rest = step.pointer[1:].partition("/")
            if section == "state":
                assert _covered(static, "state", "/" + rest, CHANGED), step
            elif section == "answers":
                assert _covered(static, "answers", rest, CHANGED), step
            else:
                assert _covered(static, "ids", step.pointer[1:], CHANGED), step
        for misfit in verdict.misfits:
            if misfit.pointer.startswith("/state/"):
                assert _covered(static, "state", misfit.pointer[len("/state") :], {"may_not_fit"}), misfit
            elif misfit.pointer == "/entry":
                assert _covered(static, "entry", saved["entry"], {"may_not_fit"})
            else:
                assert misfit.pointer == "/ending"
                assert _covered(static, "ending", saved["ending"], {"may_not_fit"})
        # An independent oracle: the new schema's own check of the saved state.
        problems = list(check_state(engine.schema, saved["state"]))
        values = {
            f"/state{p.pointer}" for p in problems if not p.message.endswith(STRUCTURAL) and "missing" not in p.message
        }
        assert values <= {m.pointer for m in verdict.misfits}
        # And the new revision's engine agrees.
        if verdict.level == "as_is":
            loaded = engine.load(saved)
            assert loaded.state == saved["state"]
        if verdict.level in ("as_is", "by_plan"):
            moved, report = plan.apply(saved)
            assert report.level == verdict.level
            assert moved["revision"] == new["manifest"]["revision"]
            assert list(check_state(engine.schema, moved["state"])) == []
            loaded = engine.load(moved)
            assert loaded.state == moved["state"]
            assert set(loaded.answers) == set(moved["answers"])
            if loaded.ending is None:
                engine.step(loaded, Turn(dict(loaded.answers)))  # the migrated session plays on
        else:
            if any(m.pointer != "/ending" for m in verdict.misfits):
                try:
                    engine.load(saved)
                except SessionLoadError:
                    pass
                else:
                    raise AssertionError(f"a save judged 'cannot' loaded: {verdict.misfits}")
            with pytest.raises(MigrationError) as caught:
                plan.apply(saved)
            assert caught.value.misfits == verdict.misfits


MIRROR = {"added": "removed", "removed": "added"}


def _by_id(pack: dict[str, Any]) -> dict[str, Any]:
    """The pack with its observations in id order (the only reordering the edits make)."""
    ordered = copy.deepcopy(pack)
    ordered["runtime"]["observations"].sort(key=lambda o: o["id"])
    return ordered


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["0.3", "0.4", "0.5"]), EDITS)
def test_the_diff_sees_every_edit_but_order_and_mirrors_when_reversed(version: str, edits: list[Edit]) -> None:
    old = example(version, "rich")
    new = copy.deepcopy(old)
    for edit in edits:
        edit(new)
    forward, backward = diff(old, new), diff(new, old)
    assert forward.empty == (_by_id(old) == _by_id(new))  # order alone is no difference
    assert diff(new, copy.deepcopy(new)).empty
    mirrored = {(c.section, MIRROR.get(c.kind, c.kind), c.key, c.new, c.old) for c in backward.changes}
    assert {(c.section, c.kind, c.key, c.old, c.new) for c in forward.changes} == mirrored
