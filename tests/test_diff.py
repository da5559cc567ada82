"""The semantic diff, the static save verdict and the migration plan, on hand-made pairs of packs."""

from __future__ import annotations

import copy
import subprocess
import sys
from typing import Any

import pytest

from creatorpack.diff import (
    MigrationError,
    compatibility,
    diff,
    load_migrating,
    migrate,
    migration_plan,
)
from creatorpack.errors import CreatorpackError, SessionLoadError
from creatorpack.play import Engine, Session
from creatorpack.play.model import STATE_MEMBERS, state_members

from .conftest import example

STATE = "/runtime/state/schema/properties"


def _pair(version: str = "0.5") -> tuple[dict[str, Any], dict[str, Any]]:
    old = example(version, "rich")
    new = copy.deepcopy(old)
    new["manifest"]["revision"] += 1
    return old, new


def _schema(pack: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = pack["runtime"]["state"]["schema"]
    return schema


def _add_member(pack: dict[str, Any], name: str, node: dict[str, Any], initial: list[Any]) -> None:
    _schema(pack)["properties"][name] = node
    _schema(pack)["required"].append(name)
    for entry, value in zip(pack["runtime"]["entries"], initial, strict=True):
        entry["initial_state"][name] = value


def _remove_member(pack: dict[str, Any], name: str) -> None:
    del _schema(pack)["properties"][name]
    _schema(pack)["required"].remove(name)
    for entry in pack["runtime"]["entries"]:
        del entry["initial_state"][name]


def _save(pack: dict[str, Any], *turns: dict[str, Any], entry: str | None = None) -> dict[str, Any]:
    session = Session.start(Engine(pack), entry)
    for observations in turns:
        session.turn(observations)
    return session.save()


# -- the semantic diff -------------------------------------------------------------------------


def test_identical_packs_have_no_differences() -> None:
    old = example("0.5", "rich")
    result = diff(old, copy.deepcopy(old))
    assert result.empty
    assert result.changes == ()
    assert result.compatibility.level == "fits"
    assert {m.level for m in result.compatibility.members} == {"fits"}


def test_items_are_matched_by_id_not_position() -> None:
    old, new = _pair()
    new["runtime"]["observations"].reverse()
    new["progression"]["achievements"].reverse()
    changes = diff(old, new).changes
    assert [(c.section, c.key) for c in changes] == [("manifest", "revision")]


@pytest.mark.parametrize(
    ("section", "path", "why"),
    [
        ("rules", ("runtime", "rules"), "effect rules apply in document order, and instructions come in it"),
        ("endings", ("progression", "endings"), "document order breaks a tie of priorities"),
        ("content", ("content",), "the narrator gets content in document order"),
    ],
)
def test_a_new_order_where_order_plays_is_one_reordered_change(section: str, path: tuple[str, ...], why: str) -> None:
    old, new = _pair()
    items: Any = new
    for token in path:
        items = items[token]
    assert len(items) > 1
    ids = [item["id"] for item in items]
    items.append(items.pop(0))  # the first item moves to the end: it moved, the others did not
    [change] = diff(old, new).section(section)
    assert (change.kind, change.old, change.new) == ("reordered", "/" + "/".join(path), "/" + "/".join(path))
    if len(ids) > 2:  # (of two swapped items, either one moved)
        assert change.key == ids[0]
        assert change.detail == f"{ids[0]!r} moved from place 1 to {len(ids)} of the items both revisions have ({why})"
    if len(ids) > 2:
        items.reverse()  # back in first place, the first item stays; every other moved: the first of them is named
        [change] = diff(old, new).section(section)
        assert (items[0]["id"], change.key) == (ids[0], items[1]["id"])


def test_another_default_entry_is_reordered_and_other_entry_moves_are_not() -> None:
    old, new = _pair()
    entries = new["runtime"]["entries"]
    entries.reverse()
    [change] = diff(old, new).section("entries")
    assert (change.kind, change.key) == ("reordered", entries[0]["id"])
    assert change.detail == f"the default (first) entry is now {entries[0]['id']!r}, was {entries[1]['id']!r}"
    same_first = _pair()[1]
    same_first["runtime"]["entries"].append(copy.deepcopy(same_first["runtime"]["entries"][1]))
    same_first["runtime"]["entries"][-1]["id"] = "third"
    moved = copy.deepcopy(same_first)
    tail = moved["runtime"]["entries"]
    tail[1], tail[2] = tail[2], tail[1]
    assert diff(same_first, moved).section("entries") == ()


def test_a_moved_and_changed_item_reports_both_pointers() -> None:
    old, new = _pair()
    observations = new["runtime"]["observations"]
    observations.insert(0, observations.pop(2))  # lamp_choice moves from 2 to 0
    observations[0]["question"] = "What about the lamp?"
    [change] = diff(old, new).section("observations")
    assert (change.kind, change.key) == ("changed", "lamp_choice")
    assert (change.old, change.new) == ("/runtime/observations/2", "/runtime/observations/0")
    old_question = "'What did the reader do about the dark lamp this turn?'"
    assert change.detail == f"fields: question {old_question} -> 'What about the lamp?'"


def test_state_members_added_removed_retyped_and_rebounded() -> None:
    old, new = _pair()
    _remove_member(new, "lamp_lit")
    _add_member(new, "courage", {"type": "integer", "minimum": 0, "maximum": 5}, [1, 2])
    _schema(new)["properties"]["trust"]["maximum"] = 20
    _schema(new)["properties"]["harbour"]["properties"]["ferry_running"] = {
        "type": "integer",
        "minimum": 0,
        "maximum": 1,
    }
    _schema(new)["properties"]["inventory"]["items"]["enum"].remove("oil_can")
    changes = {(c.kind, c.key): c for c in diff(old, new).section("state")}
    assert set(changes) == {
        ("removed", "/lamp_lit"),
        ("added", "/courage"),
        ("rebounded", "/trust"),
        ("retyped", "/harbour/ferry_running"),
        ("rebounded", "/inventory"),
    }
    assert changes["removed", "/lamp_lit"].old == f"{STATE}/lamp_lit"
    assert changes["removed", "/lamp_lit"].new is None
    assert changes["added", "/courage"].new == f"{STATE}/courage"
    assert changes["added", "/courage"].detail == "integer 0..5 (required)"
    assert changes["rebounded", "/trust"].detail == "integer 0..10 -> integer 0..20"
    nested = changes["retyped", "/harbour/ferry_running"]
    assert nested.old == nested.new == f"{STATE}/harbour/properties/ferry_running"
    assert nested.detail == "boolean -> integer 0..1"
    assert changes["rebounded", "/inventory"].detail == (
        "set of {oil_can, logbook_page, brass_key} -> set of {logbook_page, brass_key}"
    )


def test_required_status_changes_are_reported() -> None:
    old, new = _pair()
    _schema(new)["required"].remove("trust")
    [change] = diff(old, new).section("state")
    assert (change.kind, change.key, change.detail) == ("changed", "/trust", "no longer required")


def test_a_member_required_but_not_declared_is_reported_and_no_save_fits() -> None:
    """A typo in `required` (a name the schema does not declare) leaves no state that fits: said, not "fits"."""
    old, new = _pair()
    _schema(new)["required"].append("trsut")
    [change] = diff(old, new).section("state")
    assert (change.kind, change.key, change.new) == ("changed", "/trsut", "/runtime/state/schema/required")
    assert change.detail == "now required, but the schema does not declare it: no state can have it"
    verdict = compatibility(old, new)
    assert verdict.level == "may_not_fit"
    assert [(m.key, m.level) for m in verdict.members if m.level != "fits"] == [("/trsut", "may_not_fit")]
    with pytest.raises(MigrationError) as caught:
        migrate(_save(old, HELP), old, new)
    assert [m.pointer for m in caught.value.misfits] == ["/state/trsut"]


@pytest.mark.parametrize(
    ("section", "path"),
    [
        ("rules", ("runtime", "rules")),
        ("achievements", ("progression", "achievements")),
        ("endings", ("progression", "endings")),
        ("badges", ("progression", "badges")),
        ("reader_cards", ("reader_cards",)),
        ("assets", ("assets",)),
        ("content", ("content",)),
        ("illustration_rules", ("presentation", "illustration_rules")),
    ],
)
def test_each_id_keyed_section_reports_added_removed_and_changed(section: str, path: tuple[str, ...]) -> None:
    old, new = _pair()
    node: Any = new
    for token in path:
        node = node[token]
    removed = node.pop(0)
    added = copy.deepcopy(node[0])
    added["id"] = "brand_new"
    node.append(added)
    first = node[0]
    key = next(k for k in first if k != "id")
    first[key] = copy.deepcopy(removed[key]) if not isinstance(first[key], str) else first[key] + " (revised)"
    if first[key] == old_value(old, path, first["id"], key):
        first[key] = {"op": "literal", "value": False}
    changes = {c.kind: c for c in diff(old, new).section(section)}
    prefix = "/" + "/".join(path)
    assert changes["removed"].key == removed["id"]
    assert (changes["removed"].old, changes["removed"].new) == (f"{prefix}/0", None)
    assert changes["added"].key == "brand_new"
    assert (changes["added"].old, changes["added"].new) == (None, f"{prefix}/{len(node) - 1}")
    assert changes["changed"].key == first["id"]
    assert (changes["changed"].old, changes["changed"].new) == (f"{prefix}/1", f"{prefix}/0")
    assert changes["changed"].detail.startswith(f"fields: {key} ")
    assert " -> " in changes["changed"].detail


def old_value(pack: dict[str, Any], path: tuple[str, ...], ident: str, key: str) -> Any:
    node: Any = pack
    for token in path:
        node = node[token]
    return next(item for item in node if item["id"] == ident)[key]


def test_publication_and_manifest_fields() -> None:
    old, new = _pair()
    new["publication"]["tagline"] = "A new tagline"
    del new["publication"]["genres"]
    del old["publication"]["cover_motion_asset_id"]
    new["manifest"]["title"] = "The Harbour Light (revised)"
    changes = {(c.section, c.kind, c.key): c for c in diff(old, new).changes}
    assert set(changes) == {
        ("publication", "changed", "tagline"),
        ("publication", "removed", "genres"),
        ("publication", "added", "cover_motion_asset_id"),
        ("manifest", "changed", "title"),
        ("manifest", "changed", "revision"),
    }
    tagline = changes["publication", "changed", "tagline"]
    assert tagline.old == tagline.new == "/publication/tagline"
    assert changes["publication", "removed", "genres"].old == "/publication/genres"
    assert changes["manifest", "changed", "revision"].detail == "3 -> 4"


def test_a_whole_publication_added_and_other_top_level_fields() -> None:
    old, new = _pair()
    del old["publication"]
    new["instructions"] = {"changed": True}
    changes = {(c.section, c.kind, c.key) for c in diff(old, new).changes}
    assert ("publication", "added", "publication") in changes
    assert ("other", "changed", "/instructions") in changes


def test_to_json_is_plain_data() -> None:
    old, new = _pair()
    data = diff(old, new).to_json()
    assert data["pack_id"] == "harbour-light"
    assert (data["old_revision"], data["new_revision"]) == (3, 4)
    assert data["changes"] == [
        {
            "section": "manifest",
            "kind": "changed",
            "key": "revision",
            "old": "/manifest/revision",
            "new": "/manifest/revision",
            "detail": "3 -> 4",
        }
    ]
    assert data["compatibility"]["level"] == "fits"


@pytest.mark.parametrize("version", ["0.3", "0.4"])
def test_older_versions_diff_too(version: str) -> None:
    old, new = _pair(version)
    new["runtime"]["observations"].pop()
    result = diff(old, new)
    assert [c.kind for c in result.section("observations")] == ["removed"]
    assert result.compatibility.level == "by_plan"


# -- the static verdict ------------------------------------------------------------------------


def _verdicts(old: dict[str, Any], new: dict[str, Any]) -> dict[tuple[str, str], tuple[str, str]]:
    return {(m.subject, m.key): (m.level, m.reason) for m in compatibility(old, new).members}


def test_widened_bounds_always_fit_narrowed_ones_may_not() -> None:
    old, new = _pair()
    _schema(new)["properties"]["trust"]["maximum"] = 99
    _schema(new)["properties"]["harbour"]["properties"]["storm_level"]["maximum"] = 2
    verdicts = _verdicts(old, new)
    assert verdicts["state", "/trust"] == ("fits", "bounds widened from 0..10 to 0..99")
    level, reason = verdicts["state", "/harbour/storm_level"]
    assert level == "may_not_fit"
    assert "0..3 -> 0..2" in reason
    assert compatibility(old, new).level == "may_not_fit"


def test_added_and_removed_members_fit_by_plan() -> None:
    old, new = _pair()
    _remove_member(new, "lamp_lit")
    _add_member(new, "courage", {"type": "integer", "minimum": 0, "maximum": 5}, [1, 2])
    verdicts = _verdicts(old, new)
    assert verdicts["state", "/lamp_lit"] == ("by_plan", "removed: dropped from saves")
    assert verdicts["state", "/courage"] == (
        "by_plan",
        "added: takes the initial_state value of the save's entry (opening: 1, return_visit: 2)",
    )
    assert compatibility(old, new).level == "by_plan"


def test_a_required_member_no_entry_gives_may_not_fit() -> None:
    old, new = _pair()
    _schema(new)["properties"]["courage"] = {"type": "boolean"}
    _schema(new)["required"].append("courage")
    new["runtime"]["entries"][0]["initial_state"]["courage"] = True
    level, reason = _verdicts(old, new)["state", "/courage"]
    assert level == "may_not_fit"
    assert "return_visit" in reason


def test_sets_enums_observations_entries_endings_and_ids() -> None:
    old, new = _pair()
    _schema(new)["properties"]["inventory"]["items"]["enum"].remove("brass_key")
    _schema(new)["properties"]["lamp_lit"] = {"type": "integer", "minimum": 0, "maximum": 1}
    lamp = next(o for o in new["runtime"]["observations"] if o["id"] == "lamp_choice")
    del lamp["choices"]["asked_mara"]
    new["runtime"]["observations"] = [o for o in new["runtime"]["observations"] if o["id"] != "met_mara"]
    new["runtime"]["entries"].pop(1)
    new["progression"]["endings"].pop(1)
    new["progression"]["badges"].pop()
    verdicts = _verdicts(old, new)
    assert verdicts["state", "/inventory"] == (
        "may_not_fit",
        "a set holding brass_key does not fit {oil_can, logbook_page}",
    )
    assert verdicts["state", "/lamp_lit"][0] == "may_not_fit"
    assert verdicts["answers", "lamp_choice"] == ("by_plan", "choices removed: answers asked_mara are dropped")
    assert verdicts["answers", "met_mara"] == ("by_plan", "observation removed: answers are dropped")
    assert verdicts["answers", "helped_stranger"] == ("fits", "unchanged")
    assert verdicts["entry", "return_visit"][0] == "may_not_fit"
    assert verdicts["ending", "dark_harbour"][0] == "may_not_fit"
    assert verdicts["ids", "badges"] == ("by_plan", "dropped from saves: badge_storm")


def test_another_pack_never_fits() -> None:
    old, new = _pair()
    new["manifest"]["pack_id"] = "another-pack"
    assert _verdicts(old, new)["pack", ""][0] == "may_not_fit"


# -- concrete saves and migration ---------------------------------------------------------------

HELP = {"helped_stranger": True, "met_mara": True, "lamp_choice": "relit"}


def test_a_save_of_an_unchanged_schema_loads_as_is() -> None:
    old, new = _pair()
    saved = _save(old, HELP)
    verdict = migration_plan(old, new).check(saved)
    assert (verdict.level, verdict.steps, verdict.misfits) == ("as_is", (), ())
    moved = migrate(saved, old, new)
    assert moved["revision"] == 4
    assert moved["state"] == saved["state"]
    assert Engine(new).load(moved).revision == 4


def test_a_save_loads_by_plan() -> None:
    old, new = _pair()
    _remove_member(new, "lamp_lit")
    _add_member(new, "courage", {"type": "integer", "minimum": 0, "maximum": 5}, [1, 2])
    new["runtime"]["observations"] = [o for o in new["runtime"]["observations"] if o["id"] != "met_mara"]
    saved = _save(old, HELP, entry="return_visit")
    verdict = migration_plan(old, new).check(saved)
    assert verdict.level == "by_plan"
    assert [(s.action, s.pointer, s.value) for s in verdict.steps] == [
        ("drop", "/state/lamp_lit", None),
        ("add", "/state/courage", 2),
        ("drop", "/answers/met_mara", None),
    ]
    with pytest.raises(SessionLoadError):
        Engine(new).load(saved)
    moved, report = migration_plan(old, new).apply(saved)
    assert (report.from_revision, report.to_revision, report.level) == (3, 4, "by_plan")
    assert report.steps == verdict.steps
    assert moved["state"]["courage"] == 2
    assert "lamp_lit" not in moved["state"]
    assert "met_mara" not in moved["answers"]
    session = Session.load(Engine(new), moved)
    assert session.state.revision == 4
    assert session.turn({"helped_stranger": True}).turn == saved["turn"] + 1


def test_a_value_outside_a_new_bound_cannot_load_and_is_named() -> None:
    old, new = _pair()
    _schema(new)["properties"]["trust"]["maximum"] = 4
    _schema(new)["properties"]["inventory"]["items"]["enum"].remove("logbook_page")
    for entry in new["runtime"]["entries"]:
        entry["initial_state"]["trust"] = min(entry["initial_state"]["trust"], 4)
        entry["initial_state"]["inventory"] = []
    saved = _save(old, HELP, HELP)
    assert saved["state"]["trust"] > 4
    assert saved["state"]["inventory"] == ["logbook_page"]
    verdict = migration_plan(old, new).check(saved)
    assert verdict.level == "cannot"
    assert [m.pointer for m in verdict.misfits] == ["/state/trust", "/state/inventory/0"]
    with pytest.raises(MigrationError) as caught:
        migrate(saved, old, new)
    error = caught.value
    assert isinstance(error, SessionLoadError)
    assert isinstance(error, CreatorpackError)
    assert isinstance(error, ValueError)
    assert error.exit_code == 2
    assert [m.pointer for m in error.misfits] == ["/state/trust", "/state/inventory/0"]
    assert "/state/trust: " in str(error)
    assert "cannot move to revision 4: 2 values no longer fit" in str(error)


def test_a_removed_entry_or_reached_ending_cannot_load() -> None:
    old, new = _pair()
    new["runtime"]["entries"].pop(1)
    saved = _save(old, entry="return_visit")
    assert [m.pointer for m in migration_plan(old, new).check(saved).misfits] == ["/entry"]
    old, new = _pair()
    saved = _save(old, {"lamp_choice": "left_dark"}, {"lamp_choice": "left_dark"}, {"lamp_choice": "left_dark"})
    assert saved["ending"] == "dark_harbour"
    new["progression"]["endings"] = [e for e in new["progression"]["endings"] if e["id"] != "dark_harbour"]
    assert [m.pointer for m in migration_plan(old, new).check(saved).misfits] == ["/ending"]


def test_ids_the_new_revision_lacks_are_dropped() -> None:
    old, new = _pair()
    saved = _save(old, HELP, HELP)
    achievement = saved["unlocked_achievements"][0]
    card = saved["revealed"]["reader_cards"][0]
    new["progression"]["achievements"] = [a for a in new["progression"]["achievements"] if a["id"] != achievement]
    new["reader_cards"] = [c for c in new["reader_cards"] if c["id"] != card]
    verdict = migration_plan(old, new).check(saved)
    assert verdict.level == "by_plan"
    assert {s.pointer for s in verdict.steps} == {"/unlocked_achievements/0", "/revealed/reader_cards/0"}
    moved = migrate(saved, old, new)
    assert achievement not in moved["unlocked_achievements"]
    assert card not in moved["revealed"]["reader_cards"]


def test_a_save_of_another_revision_or_pack_is_refused() -> None:
    old, new = _pair()
    saved = _save(old)
    with pytest.raises(SessionLoadError, match="saved at revision 3, not the old revision 4"):
        migrate(saved, new, new)
    other = copy.deepcopy(new)
    other["manifest"]["pack_id"] = "another-pack"
    with pytest.raises(SessionLoadError, match="saved from pack 'harbour-light'"):
        migrate(saved, old, other)


@pytest.mark.parametrize(
    "breakage",
    [
        lambda s: s.update(format="x"),
        lambda s: s.pop("state"),
        lambda s: s.update(answers=[]),
        lambda s: s.update(revision=True),
        lambda s: s.update(revealed={"assets": "x"}),
        lambda s: s.update(ending=3),
    ],
)
def test_a_malformed_save_is_a_load_error(breakage: Any) -> None:
    old, new = _pair()
    saved = _save(old)
    breakage(saved)
    with pytest.raises(SessionLoadError):
        migrate(saved, old, new)


def test_load_migrating_without_the_old_pack() -> None:
    old, new = _pair()
    _add_member(new, "courage", {"type": "integer", "minimum": 0, "maximum": 5}, [1, 2])
    _remove_member(new, "lamp_lit")
    saved = _save(old, HELP)
    session, report = load_migrating(Engine(new), saved)
    assert session.state.state["courage"] == 1
    assert "lamp_lit" not in session.state.state
    assert (report.level, report.from_revision, report.to_revision) == ("by_plan", 3, 4)
    assert report.to_json()["steps"][0] == {
        "action": "drop",
        "pointer": "/state/lamp_lit",
        "detail": "'lamp_lit' is not in the state schema",
    }
    same, report = load_migrating(new, session.save())
    assert report.level == "as_is"
    assert same.state.state == session.state.state


def test_an_optional_member_new_to_the_revision_takes_the_initial_value_without_the_old_pack_too() -> None:
    old, new = _pair()
    _schema(new)["properties"]["courage"] = {"type": "boolean"}
    new["runtime"]["entries"][0]["initial_state"]["courage"] = True
    saved = {**_save(old), STATE_MEMBERS: state_members(_schema(old))}  # the save records its schema's members
    assert migrate(saved, old, new)["state"]["courage"] is True
    assert migrate(saved, None, new)["state"]["courage"] is True  # creatorpack play --load: the save alone
    assert migration_plan(None, new).check(saved) == migration_plan(old, new).check(saved)
    # A save without the record (written before saves had it): as before, only a required member is new.
    legacy = {key: value for key, value in saved.items() if key != STATE_MEMBERS}
    assert migrate(legacy, old, new)["state"]["courage"] is True
    assert "courage" not in migrate(legacy, None, new)["state"]


def test_a_save_records_its_state_schemas_members_and_the_moved_save_the_new_ones() -> None:
    old, new = _pair()
    _schema(new)["properties"]["courage"] = {"type": "integer", "minimum": 0, "maximum": 3}
    del _schema(new)["properties"]["lamp_lit"]
    _schema(new)["required"].remove("lamp_lit")
    for entry in new["runtime"]["entries"]:
        del entry["initial_state"]["lamp_lit"]
    engine = Engine(old)
    state, _ = engine.start()
    assert state.to_json(engine.schema)[STATE_MEMBERS] == {
        "trust": "integer",
        "lamp_lit": "boolean",
        "inventory": "array",
        "harbour": {"storm_level": "integer", "ferry_running": "boolean"},
    }
    assert STATE_MEMBERS not in state.to_json()
    moved = migrate(state.to_json(engine.schema), None, new)
    assert moved[STATE_MEMBERS] == state_members(_schema(new))
    assert "lamp_lit" not in moved["state"]
    assert Engine(new).load(moved).state == moved["state"]
    # a nested member new to the revision is found by the record too
    _schema(new)["properties"]["harbour"]["properties"]["fog"] = {"type": "boolean"}
    for entry in new["runtime"]["entries"]:
        entry["initial_state"]["harbour"]["fog"] = False
    recorded = state.to_json(engine.schema)
    assert migrate(recorded, None, new)["state"]["harbour"]["fog"] is False
    assert migrate(recorded, None, new) == migrate(recorded, old, new)


@pytest.mark.parametrize("members", [[], {"trust": 1}, {"harbour": {"storm_level": None}}, "trust"])
def test_a_malformed_record_of_members_is_a_malformed_save(members: Any) -> None:
    old, new = _pair()
    with pytest.raises(SessionLoadError, match="'state_members' must map member names"):
        migration_plan(None, new).check({**_save(old), STATE_MEMBERS: members})


def test_packs_of_different_versions_compare() -> None:
    old, new = example("0.4", "rich"), example("0.5", "rich")
    old["manifest"]["pack_id"] = new["manifest"]["pack_id"]  # the bundled examples have ids of their own
    result = diff(old, new)
    assert ("other", "changed", "/protocol_version") in {(c.section, c.kind, c.key) for c in result.changes}
    saved = _save(old, HELP)
    assert migration_plan(old, new).check(saved).level in ("as_is", "by_plan")


def test_the_moved_save_shares_nothing_with_the_original() -> None:
    old, new = _pair()
    saved = _save(old, HELP)
    moved = migrate(saved, old, new)
    moved["state"]["inventory"].append("brass_key")
    moved["revealed"]["assets"].clear()
    assert "brass_key" not in saved["state"]["inventory"]
    assert saved["revealed"]["assets"]


def test_the_diff_package_loads_no_framework() -> None:
    heavy = {"typer", "rich", "click", "fastapi", "sqlalchemy"}
    probe = f"import creatorpack.diff, sys; print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r}))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_the_plan_reads_the_engines_save_format() -> None:
    from creatorpack.diff.compat import SAVE_FORMAT

    assert _save(example("0.5", "minimal"))["format"] == SAVE_FORMAT


def test_a_sets_values_in_another_order_are_no_widening() -> None:
    old, new = _pair()
    new["runtime"]["state"]["schema"]["properties"]["inventory"]["items"]["enum"].reverse()
    result = diff(old, new)
    [change] = result.section("state")
    assert (change.kind, change.key) == ("changed", "/inventory")
    assert change.detail.startswith("a set's members are kept in its values' order")
    [verdict] = [m for m in result.compatibility.members if m.key == "/inventory"]
    assert (verdict.level, verdict.reason.startswith("the same values in another order")) == ("fits", True)
    assert "widened" not in verdict.reason


def test_a_save_of_a_pack_the_new_revision_renamed_cannot_move() -> None:
    old, new = _pair()
    new["manifest"]["pack_id"] = "harbour-light-2"
    saved = Session.start(Engine.from_source(old)).save()
    verdict = migration_plan(old, new).check(saved)
    assert verdict.level == "cannot"
    assert [(m.pointer, m.message) for m in verdict.misfits] == [
        ("/pack_id", "saved from pack 'harbour-light'; the new revision is pack 'harbour-light-2'")
    ]
    with pytest.raises(MigrationError, match="1 value no longer fits"):
        migration_plan(old, new).apply(saved)


def test_a_reveal_scoped_away_from_a_saves_entry_is_dropped_by_the_plan_as_load_drops_it() -> None:
    """Narrowing `entry_ids` takes a revealed card out of saves of the other entries: by plan, one drop step each."""
    old = example("0.5", "rich")
    session = Session.start(old)  # entry 'opening', where every card is revealed at the start
    session.turn({"helped_stranger": True})
    saved = session.save()
    assert "wren" in saved["revealed"]["reader_cards"]
    new = copy.deepcopy(old)
    new["manifest"]["revision"] += 1
    wren = next(card for card in new["reader_cards"] if card["id"] == "wren")
    wren["entry_ids"] = ["return_visit"]
    verdict = migration_plan(old, new).check(saved)
    assert verdict.level == "by_plan"
    [step] = [s for s in verdict.steps if "wren" in s.detail]
    assert (step.action, step.pointer) == (
        "drop",
        f"/revealed/reader_cards/{saved['revealed']['reader_cards'].index('wren')}",
    )
    assert step.detail == "'wren' belongs to other entries than 'opening' in revision 4 (entry_ids)"
    moved, _ = migration_plan(old, new).apply(saved)
    assert Session.load(new, moved).save()["revealed"] == moved["revealed"]  # the plan drops what load drops
    [member] = [m for m in compatibility(old, new).members if m.key == "revealed/reader_cards"]
    assert (member.level, member.reason) == (
        "by_plan",
        "dropped from saves of the entries it no longer belongs to: wren (no longer in opening)",
    )


def test_a_card_part_taken_away_is_said_so_not_the_card() -> None:
    old = example("0.5", "rich")
    saved = Session.start(old).save()
    assert "mara" in saved["revealed"].get("images", [])
    new = copy.deepcopy(old)
    new["manifest"]["revision"] += 1
    del next(card for card in new["reader_cards"] if card["id"] == "mara")["image"]
    [step] = [s for s in migration_plan(old, new).check(saved).steps if s.pointer.startswith("/revealed/images")]
    assert step.detail == "reader card 'mara' has no image with a reveal_when in revision 4"


def test_a_bound_written_as_a_whole_float_is_the_same_bound() -> None:
    """`"maximum": 10.0` is the integer bound 10, as the runtime reads it: no difference."""
    old = example("0.5", "rich")
    new = copy.deepcopy(old)
    new["runtime"]["state"]["schema"]["properties"]["trust"]["maximum"] = 10.0
    assert diff(old, new).changes == ()
    new["runtime"]["state"]["schema"]["properties"]["trust"]["maximum"] = 9.0
    [change] = diff(old, new).changes
    assert (change.kind, change.detail) == ("rebounded", "integer 0..10 -> integer 0..9")


def test_pack_entries_and_visual_anchors_are_matched_by_id() -> None:
    """A new title of a pack entry is that entry's change; visual anchors in another order are no change."""
    old = example("0.5", "rich")
    new = copy.deepcopy(old)
    new["entries"][0]["title"] = "A new title"
    new["visual_anchors"].reverse()
    [change] = diff(old, new).changes
    assert (change.section, change.kind, change.key, change.detail) == (
        "pack_entries",
        "changed",
        "opening",
        "fields: title 'The Dark Lamp' -> 'A new title'",
    )
