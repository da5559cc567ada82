"""Lint messages that fix: "did you mean", counted "known:" lists, nested state paths, never-holds reasons."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from creatorpack.lint import LintConfig, MemoryAssets, lint
from creatorpack.lint._suggest import Suggester, known_list, nearest
from creatorpack.scaffold import files

from .conftest import EXAMPLES, example, put

Doc = dict[str, Any]
QUICK = LintConfig(reachability=False)


def findings(doc: Doc, config: LintConfig = QUICK) -> dict[tuple[str, str], str]:
    report = lint(json.dumps(doc, indent=2), config)
    assert report.contract.valid, report.contract.violations
    return {(f.code, f.pointer): f.message for f in report.findings}


def rich() -> Doc:
    return example("0.5", "rich")


def test_nearest_and_known_list() -> None:
    assert nearest("mara_portait", ["mara_portrait", "mara_sheet"]) == "mara_portrait"
    assert nearest("zzz", ["mara_portrait"]) is None
    assert nearest("Guidance", ["guidance"]) == "guidance"
    assert known_list([]) == "none"
    names = [f"a{i:02}" for i in range(14)]
    assert known_list(names[::-1]) == ", ".join(names[:12]) + " and 2 more"


def test_unknown_asset_id_suggests_the_nearest_and_counts_the_rest() -> None:
    doc = rich()
    doc["reader_cards"][0]["avatar"]["asset_id"] = "mara_portait"
    message = findings(doc)[("unknown-reference", "/reader_cards/0/avatar/asset_id")]
    assert "did you mean 'mara_portrait'?" in message
    assert f"and {len(doc['assets']) - 12} more" in message


@pytest.mark.parametrize(
    ("where", "value", "code", "pointer", "expected"),
    [
        ("/content/0/entry_ids", ["openin"], "unknown-reference", "/content/0/entry_ids/0", "'opening'"),
        (
            "/character_castings/0/actor_id",
            "maar",
            "unknown-actor",
            "/character_castings/0/actor_id",
            "'mara'",
        ),
    ],
)
def test_unknown_ids_suggest(where: str, value: Any, code: str, pointer: str, expected: str) -> None:
    doc = rich()
    *parents, last = where.split("/")[1:]
    node: Any = doc
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    node[last] = value
    assert f"did you mean {expected}?" in findings(doc)[(code, pointer)]


def test_unknown_observation_and_choice_suggest() -> None:
    doc = rich()
    doc["runtime"]["rules"][0]["when"] = {"op": "observed", "id": "helped_strangr", "value": True}
    doc["runtime"]["rules"][1]["when"] = {"op": "observed", "id": "lamp_choice", "value": "relitt"}
    found = findings(doc)
    assert "did you mean 'helped_stranger'?" in found[("unknown-reference", "/runtime/rules/0/when/id")]
    assert "did you mean 'relit'?" in found[("observed-value-mismatch", "/runtime/rules/1/when/value")]


def test_unknown_state_path_suggests_and_lists_nested_paths() -> None:
    doc = rich()
    doc["runtime"]["rules"][0]["when"] = {"op": "eq", "path": "/harbour/storm_levl", "value": 1}
    message = findings(doc)[("unknown-state-path", "/runtime/rules/0/when/path")]
    assert "did you mean '/harbour/storm_level'?" in message
    assert "/harbour/storm_level" in message.split("known:")[1]
    assert set(findings(doc)) == {("unknown-state-path", "/runtime/rules/0/when/path")}  # not never-holds too


@pytest.mark.parametrize(
    ("written", "fix"),
    [
        ("harbour.storm_level", "; write it as '/harbour/storm_level'"),
        ("#/harbour/storm_level", "; write it as '/harbour/storm_level'"),
        ("$.harbour.storm_level", "; write it as '/harbour/storm_level'"),
        ("$['harbour']['storm_level']", "; write it as '/harbour/storm_level'"),
        ("trust", "; write it as '/trust'"),
        ("harbour.storm_levl", "; did you mean '/harbour/storm_level'?"),  # the member it is nearest to
        ("$.state.trust", "; write it as '/trust'"),  # every path starts in the state
        ("state.harbour.storm_level", "; write it as '/harbour/storm_level'"),
    ],
)
def test_a_path_written_another_way_is_told_the_pointer_of_the_member_it_names(written: str, fix: str) -> None:
    doc = rich()
    doc["runtime"]["rules"][0]["when"] = {"op": "eq", "path": written, "value": 1}
    message = findings(doc)[("path-not-pointer", "/runtime/rules/0/when/path")]
    assert message == f"path {written!r} is not a JSON Pointer{fix}"


def test_an_enum_value_in_the_wrong_case_is_told_the_value_it_means() -> None:
    doc = rich()
    doc["runtime"]["state"]["schema"]["properties"]["mood"] = {"enum": ["calm", "stormy"]}
    doc["runtime"]["rules"][0]["when"] = {"op": "eq", "path": "/mood", "value": "Stormy"}
    message = findings(doc)[("value-out-of-range", "/runtime/rules/0/when/value")]
    assert message == "'Stormy' is not one of /mood's values ['calm', 'stormy']; did you mean 'stormy'?"


def test_a_pack_that_starts_in_an_ending_names_the_ending_and_the_entry() -> None:
    """Every rule is unreachable then; each finding says which ending holds where, so the fix can be found."""
    doc = json.loads(files("0.5")["pack.json"])
    doc["runtime"]["entries"][0]["initial_state"]["doors_found"] = 1  # the ending's `when` is doors_found >= 1
    report = lint(json.dumps(doc))
    rules = [f for f in report.findings if f.code == "unreachable" and f.pointer.startswith("/runtime/rules/")]
    assert rules
    for finding in rules:
        assert finding.message.endswith(
            "is unreachable: ending 'through_the_door' holds at the start of entry 'opening' (on its initial_state), "
            "so the session takes no turn"
        )


def test_a_value_that_never_changes_is_said_to_be_it() -> None:
    doc = json.loads(files("0.5")["pack.json"])
    doc["runtime"]["rules"][0]["effects"][0]["by"] = 0  # the only effect on /doors_found changes nothing
    report = lint(json.dumps(doc))
    [finding] = [f for f in report.findings if f.code == "unreachable"]
    assert finding.message == (
        "ending 'through_the_door' is unreachable: its `when` never holds: `/doors_found` is 0 in every reachable "
        "state (effects of rule `find_the_door`), so `/doors_found` ≥ 1 never holds"
    )


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ({"op": "eq", "path": "/trust", "value": 11}, "11 is outside /trust's range 0..10, so eq 11 never holds"),
        (
            {"op": "contains", "path": "/inventory", "value": "oil_cna"},
            (
                "'oil_cna' is not one of the set's values ['oil_can', 'logbook_page', 'brass_key'], so it never "
                "holds; did you mean 'oil_can'?"
            ),
        ),
    ],
)
def test_a_value_outside_its_member_is_one_finding_not_two(condition: Doc, message: str) -> None:
    """The value is the mistake; a never-holds of the condition would only repeat it."""
    doc = rich()
    doc["runtime"]["rules"][0]["when"] = condition
    assert findings(doc) == {("value-out-of-range", "/runtime/rules/0/when/value"): message}


def test_ignoring_the_value_s_finding_keeps_the_condition_s_error() -> None:
    """An impossible condition is never left without an error: with value-out-of-range ignored, never-holds stays."""
    doc = rich()
    doc["runtime"]["rules"][0]["when"] = {"op": "eq", "path": "/trust", "value": 11}
    report = lint(json.dumps(doc), LintConfig(reachability=False, ignore=frozenset({"value-out-of-range"})))
    assert [(f.code, f.pointer) for f in report.findings] == [("never-holds", "/runtime/rules/0/when")]
    for code in ("comparison-type-mismatch", "observed-value-mismatch"):
        doc["runtime"]["rules"][0]["when"] = (
            {"op": "gt", "path": "/lamp_lit", "value": 1}
            if code == "comparison-type-mismatch"
            else {"op": "observed", "id": "helped_stranger", "value": "yes"}
        )
        found = lint(json.dumps(doc), LintConfig(reachability=False, ignore=frozenset({code})))
        assert [f.code for f in found.findings] == ["never-holds"], code


def test_rule_kind_and_effect_op_suggest() -> None:
    doc = rich()
    doc["runtime"]["rules"][0]["kind"] = "guidence"
    doc["runtime"]["rules"][3]["effects"][0] = {"op": "increase", "path": "/trust", "by": 1}
    found = findings(doc)
    kind = found[("unknown-rule-kind", "/runtime/rules/0/kind")]
    assert "did you mean 'guidance'?" in kind
    assert "instruction is never given" in kind
    assert "did you mean 'increment'?" in found[("unknown-effect-op", "/runtime/rules/3/effects/0/op")]
    # Exactly what play would do: the guidance rule gives no instruction, the effect is rejected.
    assert ("ignored-member", "/runtime/rules/0/instruction") not in found


def test_ignored_members_say_why() -> None:
    doc = example("0.3", "rich")
    doc["character_castings"] = []
    doc["runtime"]["rules"][3]["instruction"] = "Say hello."
    found = findings(doc)
    assert "exists from 0.4" in found[("ignored-member", "/character_castings")]
    assert "only by guidance rules" in found[("ignored-member", "/runtime/rules/3/instruction")]
    doc = rich()
    doc["runtime"]["rules"][3]["effect"] = []
    assert "did you mean 'effects'?" in findings(doc)[("ignored-member", "/runtime/rules/3/effect")]


@pytest.mark.parametrize(
    ("condition", "pointer", "reason"),
    [
        ({"op": "gt", "path": "/trust", "value": 10}, "/runtime/rules/0/when", "`/trust` is at most 10"),
        ({"op": "lt", "path": "/trust", "value": 0}, "/runtime/rules/0/when", "`/trust` is at least 0"),
        (
            {
                "op": "all",
                "conditions": [{"op": "literal", "value": True}, {"op": "gt", "path": "/trust", "value": 10}],
            },
            "/runtime/rules/0/when/conditions/1",
            "`/trust` is at most 10",
        ),
        (
            {
                "op": "all",
                "conditions": [{"op": "gt", "path": "/trust", "value": 5}, {"op": "lt", "path": "/trust", "value": 3}],
            },
            "/runtime/rules/0/when",
            "`/trust` cannot be both at least 6 and at most 2",
        ),
        (
            {
                "op": "all",
                "conditions": [
                    {"op": "eq", "path": "/lamp_lit", "value": True},
                    {"op": "not", "condition": {"op": "eq", "path": "/lamp_lit", "value": True}},
                ],
            },
            "/runtime/rules/0/when",
            "`/lamp_lit` cannot be both true and false",
        ),
        (
            {"op": "not", "condition": {"op": "literal", "value": True}},
            "/runtime/rules/0/when",
            "its condition always holds",
        ),
        (
            {
                "op": "all",
                "conditions": [
                    {"op": "observed", "id": "lamp_choice", "value": "relit"},
                    {"op": "observed", "id": "lamp_choice", "value": "left_dark"},
                ],
            },
            "/runtime/rules/0/when",
            "observation 'lamp_choice' cannot be answered 'left_dark' and something else at once",
        ),
    ],
)
def test_never_holds_points_at_the_part_and_says_why(condition: Doc, pointer: str, reason: str) -> None:
    doc = rich()
    doc["runtime"]["rules"][0]["when"] = condition
    message = findings(doc)[("never-holds", pointer)]
    assert reason in message


def test_a_pathlike_that_is_not_a_path_gets_lines(tmp_path: Path) -> None:
    doc = rich()
    doc["reader_cards"][0]["avatar"]["asset_id"] = "nope"
    target = tmp_path / "pack.json"
    target.write_text(json.dumps(doc, indent=2))

    class Where(os.PathLike[str]):
        def __fspath__(self) -> str:
            return str(target)

    (finding,) = lint(Where(), QUICK).findings
    assert finding.line is not None
    assert finding.code == "unknown-reference"


HEADS = {
    "image/png": b"\x89PNG\r\n\x1a\n",
    "image/apng": b"\x89PNG\r\n\x1a\nacTL",
    "image/jpeg": b"\xff\xd8\xff",
    "image/webp": b"RIFF\x00\x00\x00\x00WEBP",
    "audio/wav": b"RIFF\x00\x00\x00\x00WAVE",
    "audio/mpeg": b"ID3",
    "video/mp4": b"\x00\x00\x00\x18ftypmp42",
}


def test_memory_assets_need_no_directory() -> None:
    doc = rich()
    files = {}
    for asset in doc["assets"]:
        data = HEADS[asset["mime_type"]] + asset["id"].encode()
        asset.update(sha256=hashlib.sha256(data).hexdigest(), byte_size=len(data))
        if isinstance(asset.get("generation_record"), dict):
            asset["generation_record"].update(output_sha256=asset["sha256"], input_assets=[])
        files[f"sub/{asset['sha256']}.bin"] = data
    config = LintConfig(reachability=False, assets=MemoryAssets(files), ignore=frozenset({"unused-asset"}))
    assert findings(doc, config) == {}
    files["stray.png"] = b"?"
    files.pop(f"sub/{doc['assets'][0]['sha256']}.bin")
    found = findings(doc, LintConfig(reachability=False, assets=MemoryAssets(files, "upload")))
    assert found[("unlisted-file", "")] == "upload/stray.png is not named by any asset's sha256 or uri"
    assert "in upload" in found[("asset-file-missing", "/assets/0")]


def test_rich_examples_have_no_blind_spot_warnings() -> None:
    for version in ("0.3", "0.4", "0.5"):
        assert lint(EXAMPLES / version / "rich.json", QUICK).findings == ()


def test_suggestions_have_a_budget() -> None:
    suggester = Suggester(budget=3)
    assert suggester.suggest("increase", ["increment", "add", "remove"], loose=True) == "; did you mean 'increment'?"
    assert suggester.suggest("increase", ["increment", "add", "remove"], loose=True) == ""  # spent: no hint


@pytest.mark.parametrize(
    ("missing", "other"),
    [("tobias_portrait", "mara_portrait"), ("storm_ending_art", "dark_ending_art"), ("mara_angry", "mara_speaking")],
)
def test_a_missing_id_is_not_offered_an_unrelated_one(missing: str, other: str) -> None:
    assert nearest(missing, [other, "cover_still"], loose=True) == other  # what the loose match would offer
    doc = rich()
    card = next(c for c in doc["reader_cards"] if isinstance(c.get("avatar"), dict))
    card["avatar"]["asset_id"] = missing
    (message,) = [m for (code, _), m in findings(doc).items() if code == "unknown-reference"]
    assert "did you mean" not in message
    assert Suggester().suggest(missing, [other]) == ""


@pytest.mark.parametrize(
    ("where", "value", "pointer", "message"),
    [
        (
            "/content/0/entry_ids",
            ["opning"],
            "/content/0/entry_ids/0",
            "entry_ids: no entry has the id 'opning' (known: opening, return_visit); did you mean 'opening'?",
        ),
        (
            "/progression/achievements/0/badge_id",
            "kepeer",
            "/progression/achievements/0/badge_id",
            "badge_id: no badge has the id 'kepeer' (known: ",
        ),
    ],
)
def test_unknown_references_name_one_item_of_the_collection(where: str, value: Any, pointer: str, message: str) -> None:
    doc = put(rich(), where, value)
    assert findings(doc)[("unknown-reference", pointer)].startswith(message)


def test_unknown_visual_anchor_is_named_in_the_singular() -> None:
    doc = example("0.2", "rich")
    doc["actors"][0]["visual_anchor_ids"] = ["anchor_mra"]
    message = findings(doc)[("unknown-reference", "/actors/0/visual_anchor_ids/0")]
    assert message == (
        "visual_anchor_ids: no visual anchor has the id 'anchor_mra' (known: anchor_lighthouse, anchor_mara); "
        "did you mean 'anchor_mara'?"
    )


@pytest.mark.parametrize(
    ("where", "value", "code", "pointer", "message"),
    [
        (
            "/runtime/rules/3/effects/0/path",
            "/trst",
            "unknown-state-path",
            "/runtime/rules/3/effects/0/path",
            (
                "the state schema has no /trst (known: /harbour, /harbour/ferry_running, /harbour/storm_level, "
                "/inventory, /lamp_lit, /trust); the effect is always rejected; did you mean '/trust'?"
            ),
        ),
        (
            "/runtime/rules/0/when",
            {"op": "eq", "path": "/trst", "value": 1},
            "unknown-state-path",
            "/runtime/rules/0/when/path",
            (
                "the state schema has no /trst (known: /harbour, /harbour/ferry_running, /harbour/storm_level, "
                "/inventory, /lamp_lit, /trust); did you mean '/trust'?"
            ),
        ),
        (
            "/runtime/rules/6/when/value",
            "left_drak",
            "observed-value-mismatch",
            "/runtime/rules/6/when/value",
            (
                "'left_drak' is not a choice of 'lamp_choice'; use one of 'relit', 'left_dark', 'asked_mara'; "
                "did you mean 'left_dark'?"
            ),
        ),
        (
            "/runtime/rules/3/effects/1/value",
            "oil_cna",
            "effect-type-mismatch",
            "/runtime/rules/3/effects/1/value",
            (
                "'oil_cna' is not one of /inventory's values ['oil_can', 'logbook_page', 'brass_key']: "
                "always rejected; did you mean 'oil_can'?"
            ),
        ),
    ],
)
def test_a_suggestion_ends_its_message(where: str, value: Any, code: str, pointer: str, message: str) -> None:
    doc = put(rich(), where, value)
    assert findings(doc)[(code, pointer)] == message


def test_no_suggestion_is_spliced_mid_sentence() -> None:
    doc = rich()
    doc["reader_cards"][0]["avatar"]["asset_id"] = "mara_portait"
    doc["runtime"]["rules"][0]["kind"] = "guidence"
    doc["runtime"]["rules"][1]["when"] = {"op": "observed", "id": "helped_strangr", "value": True}
    doc["runtime"]["rules"][2]["when"] = {"op": "gte", "path": "/harbour/storm_levl", "value": 2}
    doc["runtime"]["rules"][3]["effects"][0] = {"op": "increase", "path": "/trust", "by": 1}
    doc["runtime"]["rules"][3]["effects"][1]["path"] = "/inventroy"
    doc["runtime"]["rules"][6]["when"]["value"] = "left_drak"
    doc["runtime"]["rules"][4]["effect"] = []
    messages = list(findings(doc).values())
    hinted = [m for m in messages if "did you mean" in m]
    assert len(hinted) == 8, messages
    for message in hinted:
        assert message.endswith("?"), message
        assert message.count("?") == 1, message


def test_a_misspelt_observation_is_an_unknown_reference_only() -> None:
    doc = rich()
    doc["runtime"]["rules"][3]["when"] = {"op": "observed", "id": "helped_strangr", "value": True}
    doc["runtime"]["rules"][4]["when"]["conditions"][0] = {"op": "observed", "id": "lamp_choise", "value": "relit"}
    doc["runtime"]["rules"][2]["when"] = {"op": "not", "condition": {"op": "observed", "id": "met_mra", "value": True}}
    found = findings(doc)
    assert set(found) == {
        ("unknown-reference", "/runtime/rules/3/when/id"),
        ("unknown-reference", "/runtime/rules/4/when/conditions/0/id"),
        ("unknown-reference", "/runtime/rules/2/when/condition/id"),
    }
    assert found[("unknown-reference", "/runtime/rules/3/when/id")].endswith("did you mean 'helped_stranger'?")
    assert found[("unknown-reference", "/runtime/rules/4/when/conditions/0/id")].endswith("did you mean 'lamp_choice'?")


def test_a_choice_the_observation_does_not_have_is_one_finding_at_the_value() -> None:
    doc = rich()
    doc["runtime"]["rules"][3]["when"] = {"op": "observed", "id": "lamp_choice", "value": "smashed_it"}
    found = findings(doc)
    assert list(found) == [("observed-value-mismatch", "/runtime/rules/3/when/value")]
    assert found[("observed-value-mismatch", "/runtime/rules/3/when/value")].startswith(
        "'smashed_it' is not a choice of 'lamp_choice'; use one of"
    )


@pytest.mark.parametrize(
    ("effect", "message"),
    [
        (
            {"op": "increment", "path": "/trust", "by": 2, "limit": -1},
            (
                "limit -1 is below /trust's minimum 0, and the schema wins: this increment by +2 sets /trust to 0 "
                "whenever it applies"
            ),
        ),
        (
            {"op": "increment", "path": "/harbour/storm_level", "by": -1, "limit": 4, "overflow": "reject"},
            (
                "limit 4 is above /harbour/storm_level's maximum 3, and the schema wins: this increment by -1 is "
                "always rejected"
            ),
        ),
    ],
)
def test_a_limit_beyond_the_range_says_what_the_increment_does(effect: Doc, message: str) -> None:
    doc = put(rich(), "/runtime/rules/3/effects/0", effect)
    assert findings(doc)[("limit-out-of-range", "/runtime/rules/3/effects/0/limit")] == message


def test_a_limit_beyond_the_range_on_the_near_side_is_no_finding() -> None:
    """An upper limit above the maximum (or a lower one below the minimum) only repeats the schema's bound."""
    near = {"op": "increment", "path": "/trust", "by": 2, "limit": 50}
    low = {"op": "increment", "path": "/trust", "by": -2, "limit": -50}
    assert "limit-out-of-range" not in {code for code, _ in findings(put(rich(), "/runtime/rules/3/effects/0", near))}
    assert "limit-out-of-range" not in {code for code, _ in findings(put(rich(), "/runtime/rules/3/effects/0", low))}


def _located(doc: Doc) -> list[tuple[str, int | None, int | None, str]]:
    text = json.dumps(doc, indent=2)
    report = lint(text, QUICK)
    return [(f.pointer, f.line, f.column, f.message) for f in report.findings if f.code == "initial-state-mismatch"]


def _line_col(text: str, needle: str, occurrence: int = 1) -> tuple[int, int]:
    at = -1
    for _ in range(occurrence):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def test_a_wrong_member_of_an_initial_set_is_located_and_gets_a_suggestion() -> None:
    doc = rich()
    doc["runtime"]["entries"][0]["initial_state"]["inventory"] = ["sword", "logbook_pag"]
    text = json.dumps(doc, indent=2)
    (sword, typo) = _located(doc)
    assert sword == (
        "/runtime/entries/0/initial_state/inventory/0",
        *_line_col(text, '"sword"'),
        "'sword' is not one of ['oil_can', 'logbook_page', 'brass_key']",
    )
    assert typo[:3] == ("/runtime/entries/0/initial_state/inventory/1", *_line_col(text, '"logbook_pag"'))
    assert typo[3].endswith("(did you mean 'logbook_page'?)")


def test_a_misspelt_initial_state_member_is_one_finding_at_its_name() -> None:
    doc = rich()
    harbour = doc["runtime"]["entries"][0]["initial_state"]["harbour"]
    harbour["storm_lvl"] = harbour.pop("storm_level")
    text = json.dumps(doc, indent=2)
    assert _located(doc) == [
        (
            "/runtime/entries/0/initial_state/harbour/storm_lvl",
            *_line_col(text, '"storm_lvl"'),
            "'storm_lvl' is not in the state schema; did you mean 'storm_level'?",
        )
    ]


def test_hashes_that_differ_late_are_shown_whole() -> None:
    doc = rich()
    record = next(a for a in doc["assets"] if isinstance(a.get("generation_record"), dict))["generation_record"]
    position = next(i for i, a in enumerate(doc["assets"]) if a.get("generation_record") is record)
    shipped = doc["assets"][position]["sha256"]
    late = shipped[:-1] + ("0" if shipped[-1] != "0" else "1")
    record["output_sha256"] = late
    message = findings(doc)[("output-sha256-mismatch", f"/assets/{position}/generation_record/output_sha256")]
    assert message == f"output_sha256 {late} is not this asset's sha256 {shipped}; record the file you ship"
    early = ("0" if shipped[0] != "0" else "1") + shipped[1:]
    record["output_sha256"] = early
    message = findings(doc)[("output-sha256-mismatch", f"/assets/{position}/generation_record/output_sha256")]
    assert message.startswith(f"output_sha256 {early[:12]}… is not this asset's sha256 {shipped[:12]}…;")


@pytest.mark.parametrize(
    ("leaf", "code"),
    [
        ({"op": "lt", "path": "/trust", "value": "2"}, "comparison-type-mismatch"),
        ({"op": "eq", "path": "/lamp_lit", "value": 0}, "comparison-type-mismatch"),
        ({"op": "observed", "id": "helped_stranger", "value": "yes"}, "observed-value-mismatch"),
    ],
)
def test_a_comparison_of_the_wrong_type_is_one_finding(leaf: Doc, code: str) -> None:
    doc = rich()
    doc["runtime"]["rules"][0]["when"] = {"op": "all", "conditions": [leaf, {"op": "literal", "value": True}]}
    found = findings(doc)
    assert [c for c, _ in found] == [code]


def test_a_comparison_out_of_range_still_never_holds() -> None:
    doc = rich()
    doc["runtime"]["rules"][0]["when"] = {
        "op": "all",
        "conditions": [{"op": "gte", "path": "/trust", "value": 11}, {"op": "literal", "value": True}],
    }
    assert list(findings(doc)) == [("never-holds", "/runtime/rules/0/when/conditions/0")]


@pytest.mark.parametrize(
    ("written", "meant"), [("set", "array"), ("int", "integer"), ("bool", "boolean"), ("obj", "object")]
)
def test_a_state_type_from_another_language_is_named_and_its_uses_do_not_contradict_it(
    written: str, meant: str
) -> None:
    doc = rich()
    properties = doc["runtime"]["state"]["schema"]["properties"]
    name = next(n for n, node in properties.items() if node.get("type") == meant)
    properties[name]["type"] = written
    found = findings(doc)
    (message,) = [m for (code, _), m in found.items() if code == "unknown-state-type"]
    assert message.endswith(f"did you mean {meant!r}?")
    uses = [text for (code, _), text in found.items() if code != "unknown-state-type"]
    assert uses or written == "bool", "the rich example orders, counts or changes these members"  # eq: any type
    for text in uses:
        assert f"/{name} is of type {written!r}, which the runtime does not know" in text, text


def test_an_increment_by_zero_is_named() -> None:
    doc = put(rich(), "/runtime/rules/3/effects/0/by", 0)
    path = doc["runtime"]["rules"][3]["effects"][0]["path"]
    assert findings(doc)[("increment-by-zero", "/runtime/rules/3/effects/0/by")] == (
        f"an increment by 0 never changes {path}: give it a 'by' other than 0"
    )
    assert "increment-by-zero" not in {code for code, _ in findings(rich())}


@pytest.mark.parametrize(
    ("protocol", "message"),
    [
        (
            "service.progresion/1",
            (
                "progression protocol 'service.progresion/1' is not one this runtime knows: the 0.4 progression is "
                "'service.progression/1'; did you mean 'service.progression/1'?"
            ),
        ),
        (
            "service.progression/2",
            (
                "progression protocol 'service.progression/2' is not one this runtime knows: "
                "'service.progression/2' (guided progression) exists from 0.5"
            ),
        ),
        (
            "house.rules/9",
            (
                "progression protocol 'house.rules/9' is not one this runtime knows: the 0.4 progression is "
                "'service.progression/1'"
            ),
        ),
    ],
)
def test_an_unknown_04_progression_protocol_is_a_warning(protocol: str, message: str) -> None:
    for name in ("minimal", "rich"):
        assert "unknown-progression-protocol" not in {code for code, _ in findings(example("0.4", name))}
    doc = put(example("0.4", "minimal"), "/progression/protocol", protocol)
    assert findings(doc)[("unknown-progression-protocol", "/progression/protocol")] == message


@pytest.mark.parametrize(
    ("key", "asset", "message"),
    [
        (
            "cover_asset_id",
            "harbour_bell",
            "the cover 'harbour_bell' is audio, not an image: the catalog shows a cover as a picture",
        ),
        (
            "cover_asset_id",
            "cover_motion",
            "the cover 'cover_motion' is video, not an image: the catalog shows a cover as a picture",
        ),
        (
            "cover_motion_asset_id",
            "cover_still",
            (
                "the motion cover 'cover_still' is a still image (image/jpeg): use a video (or an animated PNG), "
                "or set it as cover_asset_id"
            ),
        ),
    ],
)
def test_a_cover_of_the_wrong_kind_is_a_warning(key: str, asset: str, message: str) -> None:
    for version in ("0.3", "0.4", "0.5"):
        assert "cover-kind" not in {code for code, _ in findings(example(version, "rich"))}
    assert findings(put(rich(), f"/publication/{key}", asset))[("cover-kind", f"/publication/{key}")] == message


def _uses_of(node: Any, path: str, *, in_effects: bool = False) -> Iterator[bool]:
    """One item per object naming state ``path``: whether it sits in an ``effects`` list."""
    if isinstance(node, dict):
        if node.get("path") == path and "op" in node:
            yield in_effects
        for key, child in node.items():
            yield from _uses_of(child, path, in_effects=in_effects or key == "effects")
    elif isinstance(node, list):
        for child in node:
            yield from _uses_of(child, path, in_effects=in_effects)


def test_a_state_type_typo_is_one_finding_per_kind_of_use_at_the_first_use() -> None:
    doc = rich()
    uses = list(_uses_of(doc, "/trust"))
    comparisons, effects = uses.count(False), uses.count(True)
    assert comparisons > 2  # the rich example compares and changes /trust often
    assert effects > 2
    doc["runtime"]["state"]["schema"]["properties"]["trust"]["type"] = "integr"
    report = lint(json.dumps(doc, indent=2), QUICK)
    # the runtime compares the value itself (any value passes such a member): no comparison is flagged
    assert not [f for f in report.findings if f.code in ("comparison-type-mismatch", "never-holds")]
    (effect,) = [f for f in report.findings if f.code == "effect-type-mismatch"]  # every effect is rejected
    tail = "fail the same way until its state type is one the runtime knows"
    assert effect.message.endswith(f"; {effects - 1} more effects on /trust {tail}")
    text = json.dumps(doc, indent=2).splitlines()
    first = next(n for n, line in enumerate(text, 1) if '"increment"' in line)
    assert effect.line is not None
    assert effect.line <= first + 1  # the first use in the document is the one shown


@pytest.mark.parametrize(
    ("binding", "message"),
    [
        (
            {"asset_id": "quay_dusk", "role": "backgorund"},
            (
                "binding role 'backgorund' is not 'background', so hosts do not show 'quay_dusk' as a background; "
                "did you mean 'background'?"
            ),
        ),
        (
            {"asset_id": "quay_dusk", "role": "backdrop", "time_of_day": "dusk"},
            (
                "binding role 'backdrop' is not 'background', so hosts do not show 'quay_dusk' as a background, yet it "
                'has a time_of_day, which only a background binding has; write "role": "background"'
            ),
        ),
        (
            {"asset_id": "quay_dusk", "time_of_day": "dusk"},
            (
                "this binding has no role, so hosts do not show 'quay_dusk' as a background, yet it has a time_of_day, "
                'which only a background binding has; write "role": "background"'
            ),
        ),
    ],
)
def test_a_binding_meant_as_the_background_is_named(binding: Doc, message: str) -> None:
    doc = put(rich(), "/presentation/bindings/0", binding)
    where = "/presentation/bindings/0/role" if "role" in binding else "/presentation/bindings/0"
    assert findings(doc)[("binding-role", where)] == message


@pytest.mark.parametrize(
    "binding",
    [
        {"asset_id": "quay_dusk", "role": "foreground"},  # another variant, which the contract does not show
        {"asset_id": "quay_dusk", "role": "character", "time_of_day": "dusk", "performance": {}},
        {"asset_id": "quay_dusk", "role": "character", "time_of_day": "dusk"},
        {"asset_id": "quay_dusk", "role": "cameo", "actor_id": "tobias", "time_of_day": "dusk"},
        {"asset_id": "quay_dusk", "role": "background", "time_of_day": "dusk"},
    ],
)
def test_other_bindings_are_not_taken_for_a_background(binding: Doc) -> None:
    doc = put(rich(), "/presentation/bindings/0", binding)
    assert "binding-role" not in {code for code, _ in findings(doc)}


def test_comparisons_of_members_the_runtime_does_not_type_are_read_on_their_values() -> None:
    """An enum member is ordered when it has numbers; a member inside one of unknown type is read as it is."""
    doc = rich()
    properties = doc["runtime"]["state"]["schema"]["properties"]
    properties["chapter"] = {"enum": [1, 2, 3]}
    properties["mood"] = {"enum": ["calm", "tense"]}
    properties["harbour"]["type"] = "objet"
    for entry in doc["runtime"]["entries"]:
        entry["initial_state"].update({"chapter": 1, "mood": "calm"})
    rules = doc["runtime"]["rules"]
    rules[0]["when"] = {"op": "gte", "path": "/chapter", "value": 2}
    rules[1]["when"] = {"op": "gte", "path": "/mood", "value": 2}
    found = findings(doc)
    assert not [k for k in found if k[1].startswith("/runtime/rules/0/")]
    assert found[("comparison-type-mismatch", "/runtime/rules/1/when/op")].endswith("it never holds")
    assert not [k for k in found if k[0] == "unknown-state-path" and "/when" in k[1]]  # read inside 'objet'
    assert any(k[0] == "unknown-state-path" and "/effects/" in k[1] for k in found)  # effects are rejected


def test_an_item_scoped_to_an_entry_no_session_starts_is_named() -> None:
    doc = rich()
    doc["entries"].append({"id": "epilogue", "title": "Epilogue"})  # a pack entry, no runtime entry
    doc["reader_cards"][1]["entry_ids"] = ["epilogue"]
    assert findings(doc)[("unplayed-scope", "/reader_cards/1/entry_ids")] == (
        "this reader card belongs only to 'epilogue', which no runtime entry starts (runtime entries: "
        "opening, return_visit): no session shows it"
    )
    doc["reader_cards"][1]["entry_ids"] = ["epilogue", "opening"]  # played in opening
    assert "unplayed-scope" not in {code for code, _ in findings(doc)}
    doc["runtime"]["entries"].append({"id": "epilogue", "initial_state": doc["runtime"]["entries"][0]["initial_state"]})
    doc["reader_cards"][1]["entry_ids"] = ["epilogue"]
    assert "unplayed-scope" not in {code for code, _ in findings(doc)}


def test_a_member_whose_type_is_a_list_of_types_is_compared_as_the_runtime_does() -> None:
    """`"type": ["integer", "null"]` is a type the runtime does not know: its comparisons are not judged."""
    doc = rich()
    doc["runtime"]["state"]["schema"]["properties"]["mood"] = {"type": ["integer", "null"]}
    doc["runtime"]["rules"][0]["when"] = {"op": "eq", "path": "/mood", "value": 3}
    found = findings(doc)
    assert not [key for key in found if key[1].startswith("/runtime/rules/0/")], found


def test_what_a_set_can_hold_is_said_plainly() -> None:
    """Not "always holds nothing and can hold only oil_can", which reads as "always empty"."""
    doc = example("0.5", "rich")
    for rule in doc["runtime"]["rules"]:
        if "effects" in rule:
            rule["effects"] = [e for e in rule["effects"] if e.get("value") != "brass_key"]
    messages = [f.message for f in lint(json.dumps(doc)).findings if f.code == "unreachable"]
    assert any("`/inventory` can hold only logbook_page, oil_can (effects of" in m for m in messages), messages
    assert not any("holds nothing" in m for m in messages)
    effect_rules = [rule for rule in doc["runtime"]["rules"] if "effects" in rule]
    for rule in effect_rules:
        rule["effects"] = []
    effect_rules[0]["effects"] = [{"op": "remove", "path": "/inventory", "value": "oil_can"}]  # it only takes away
    messages = [f.message for f in lint(json.dumps(doc)).findings if f.code == "unreachable"]
    assert any("`/inventory` is always empty (effects of" in m for m in messages), messages


def test_a_misspelt_effect_op_is_the_error_not_the_goal_it_leaves_unreachable() -> None:
    """Regression: 'incremnt' was a warning, and the ending it kept out of reach an error ("no effect changes it")."""
    doc = example("0.5", "rich")
    rule = next(r for r in doc["runtime"]["rules"] if r["id"] == "leave_lamp_dark")
    rule["effects"][0]["op"] = "incremnt"
    report = lint(json.dumps(doc))
    assert [(f.code, f.severity) for f in report.errors] == [("unknown-effect-op", "error")]
    assert "did you mean 'increment'?" in report.errors[0].message
    assert not any(f.code == "unreachable" for f in report.findings)
    assert not report.searched
