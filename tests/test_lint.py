"""Every lint code: a pack that triggers it, and the corrected pack that does not."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from creatorpack.cli import app
from creatorpack.lint import linter as lint_module
from creatorpack.lint.assets import DescribedAssetSource, DirectoryAssets, sniff
from creatorpack.lint.linter import RULES, LintConfig, lint
from creatorpack.testing import play

from .conftest import EXAMPLES, VERSIONS, example

runner = CliRunner()
Doc = dict[str, Any]


def rich() -> Doc:
    return example("0.5", "rich")


def codes(doc: Doc, config: LintConfig | None = None) -> set[tuple[str, str]]:
    report = lint(json.dumps(doc, indent=2), config)
    assert report.contract.valid, report.contract.violations
    return {(f.code, f.pointer) for f in report.findings}


def _scoped_to_an_unplayed_entry(doc: Doc) -> None:
    doc["entries"].append({"id": "epilogue", "title": "Epilogue"})  # a pack entry that no runtime entry starts
    doc["reader_cards"][1]["entry_ids"] = ["epilogue"]


def setter(*steps: tuple[str, Any]) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        for pointer, value in steps:
            *parents, last = pointer.split("/")[1:]
            node: Any = doc
            for token in parents:
                node = node[int(token)] if isinstance(node, list) else node[token]
            if isinstance(node, list):
                node[int(last)] = value
            else:
                node[last] = value

    return change


SLOW_MACHINE = 120.0  # the search's time bound, high enough that a loaded CI machine decides the same
GT_TRUST = {"op": "gt", "path": "/trust", "value": 10}
CASES: list[tuple[str, str, Callable[[Doc], None]]] = [
    ("unknown-reference", "/reader_cards/0/avatar/asset_id", setter(("/reader_cards/0/avatar/asset_id", "nope"))),
    (
        "unknown-reference",
        "/presentation/illustration_rules/0/illustration_id",
        setter(("/presentation/illustration_rules/0/illustration_id", "ill_nope")),
    ),
    (
        "unknown-reference",
        "/progression/achievements/0/badge_id",
        setter(("/progression/achievements/0/badge_id", "pin_nope")),
    ),
    ("unknown-reference", "/content/0/entry_ids/0", setter(("/content/0/entry_ids", ["nowhere"]))),
    ("unknown-reference", "/publication/cover_asset_id", setter(("/publication/cover_asset_id", "cover_nope"))),
    (
        "unknown-reference",
        "/runtime/rules/0/when/id",
        setter(("/runtime/rules/0/when", {"op": "observed", "id": "ghost", "value": True})),
    ),
    ("unknown-actor", "/character_castings/0/actor_id", setter(("/character_castings/0/actor_id", "stranger"))),
    ("duplicate-id", "/assets/1/id", setter(("/assets/1/id", "mara_sheet"))),
    (
        "output-sha256-mismatch",
        "/assets/1/generation_record/output_sha256",
        setter(("/assets/1/generation_record/output_sha256", "f" * 64)),
    ),
    (
        "path-not-pointer",
        "/runtime/rules/0/when/path",
        setter(("/runtime/rules/0/when", {"op": "eq", "path": "trust", "value": 1})),
    ),
    (
        "unknown-state-path",
        "/runtime/rules/0/when/path",
        setter(("/runtime/rules/0/when", {"op": "eq", "path": "/mood", "value": 1})),
    ),
    (
        "comparison-type-mismatch",
        "/runtime/rules/0/when/op",
        setter(("/runtime/rules/0/when", {"op": "gt", "path": "/lamp_lit", "value": 1})),
    ),
    (
        "comparison-type-mismatch",
        "/runtime/rules/0/when/op",
        setter(("/runtime/rules/0/when", {"op": "contains", "path": "/trust", "value": 1})),
    ),
    (
        "value-out-of-range",
        "/runtime/rules/0/when/value",
        setter(("/runtime/rules/0/when", {"op": "eq", "path": "/trust", "value": 11})),
    ),
    (
        "value-out-of-range",
        "/runtime/rules/0/when/value",
        setter(("/runtime/rules/0/when", {"op": "contains", "path": "/inventory", "value": "sword"})),
    ),
    (
        "observed-value-mismatch",
        "/runtime/rules/0/when/value",
        setter(("/runtime/rules/0/when", {"op": "observed", "id": "lamp_choice", "value": "smashed"})),
    ),
    (
        "observed-value-mismatch",
        "/runtime/rules/0/when/value",
        setter(("/runtime/rules/0/when", {"op": "observed", "id": "helped_stranger", "value": "yes"})),
    ),
    (
        "effect-type-mismatch",
        "/runtime/rules/3/effects/0/op",
        setter(("/runtime/rules/3/effects/0", {"op": "increment", "path": "/lamp_lit", "by": 1})),
    ),
    (
        "effect-type-mismatch",
        "/runtime/rules/3/effects/0/value",
        setter(("/runtime/rules/3/effects/0", {"op": "add", "path": "/inventory", "value": "sword"})),
    ),
    ("cover-kind", "/publication/cover_asset_id", setter(("/publication/cover_asset_id", "harbour_bell"))),
    ("binding-role", "/presentation/bindings/0/role", setter(("/presentation/bindings/0/role", "backgorund"))),
    (
        "unplayed-scope",
        "/reader_cards/1/entry_ids",
        _scoped_to_an_unplayed_entry,
    ),
    (
        "increment-by-zero",
        "/runtime/rules/3/effects/0/by",
        setter(("/runtime/rules/3/effects/0/by", 0)),
    ),
    (
        "limit-out-of-range",
        "/runtime/rules/3/effects/0/limit",
        setter(("/runtime/rules/3/effects/0/limit", -1)),  # /trust is 0..10 and the increment is +2
    ),
    (
        "initial-state-mismatch",
        "/runtime/entries/0/initial_state/trust",
        setter(("/runtime/entries/0/initial_state/trust", 99)),
    ),
    (
        "unresolved-condition-ref",
        "/progression/endings/0/guidance/requirements/0/condition_ref",
        setter(("/progression/endings/0/guidance/requirements/0/condition_ref", "/conditions/9")),
    ),
    ("never-holds", "/runtime/rules/0/when", setter(("/runtime/rules/0/when", GT_TRUST))),
    (
        "never-holds",
        "/runtime/rules/0/when",
        setter(
            (
                "/runtime/rules/0/when",
                {
                    "op": "all",
                    "conditions": [
                        {"op": "eq", "path": "/lamp_lit", "value": True},
                        {"op": "not", "condition": {"op": "eq", "path": "/lamp_lit", "value": True}},
                    ],
                },
            )
        ),
    ),
    (
        "spoiler-title",
        "/publication/tagline",
        setter(("/publication/tagline", "Will you become the Keeper of the Light?")),
    ),
    ("spoiler-asset", "/publication/cover_asset_id", setter(("/publication/cover_asset_id", "keeper_ending_art"))),
    ("unknown-rule-kind", "/runtime/rules/0/kind", setter(("/runtime/rules/0/kind", "guidence"))),
    (
        "unknown-effect-op",
        "/runtime/rules/3/effects/0/op",
        setter(("/runtime/rules/3/effects/0", {"op": "increase", "path": "/trust", "by": 1})),
    ),
    ("ignored-member", "/runtime/rules/3/effect", setter(("/runtime/rules/3/effect", []))),
    ("ignored-member", "/publicaton", setter(("/publicaton", {}))),
    (
        "unknown-state-type",
        "/runtime/state/schema/properties/harbour/properties/storm_level/type",
        setter(("/runtime/state/schema/properties/harbour/properties/storm_level/type", "integr")),
    ),
    (
        "unused-observation",
        "/runtime/observations/5/id",
        lambda doc: doc["runtime"]["observations"].append({"type": "boolean", "id": "lit_lamp", "question": "Lit?"}),
    ),
    ("rule-without-when", "/runtime/rules/3", lambda doc: doc["runtime"]["rules"][3].pop("when")),
    (
        "rule-without-when",
        "/runtime/rules/3/whn",  # misspelt: pointed at the member that was meant
        lambda doc: doc["runtime"]["rules"][3].update(whn=doc["runtime"]["rules"][3].pop("when")),
    ),
    ("unrewarded-asset", "/assets/4/access", setter(("/assets/4/access", "reward_only"))),
    ("unawarded-badge", "/progression/badges/2/id", setter(("/progression/achievements/2/badge_id", None))),
]


def test_every_rule_is_documented_and_tested() -> None:
    docs = (Path(__file__).resolve().parent.parent / "docs" / "lint.md").read_text()
    tested = {code for code, _, _ in CASES} | {"unreachable", "reachability-bound", "input-sha256-mismatch"}
    tested |= {"unknown-progression-protocol"}  # 0.4 only: tests/test_lint_messages.py
    tested |= {"unplayable-ending"}  # 0.4 only: tests/test_lint_blind_spots.py
    tested |= {"rejected-rule"}  # a reachability result: tests/test_reachability.py
    tested |= {"never-revealed"}  # a reachability result: tests/test_reach_reveals.py
    tested |= {"artwork-not-revealed"}  # a replayed witness: below
    tested |= {
        "asset-file-missing",
        "asset-sha256-mismatch",
        "asset-size-mismatch",
        "asset-mime-mismatch",
        "unlisted-file",
        "unused-asset",
    }
    assert tested == set(RULES)
    for code in RULES:
        assert f"### `{code}`" in docs, code


@pytest.mark.parametrize("version", VERSIONS)
def test_rich_examples_lint_clean(version: str) -> None:
    report = lint(EXAMPLES / version / "rich.json", LintConfig(max_seconds=SLOW_MACHINE))
    assert report.contract.valid
    assert report.findings == ()


@pytest.mark.parametrize(("code", "where", "change"), CASES, ids=[f"{c}:{w}" for c, w, _ in CASES])
def test_code_is_found_and_the_corrected_pack_is_clean(code: str, where: str, change: Callable[[Doc], None]) -> None:
    corrected = rich()
    broken = rich()
    change(broken)
    found = codes(broken, LintConfig(reachability=False))
    assert (code, where) in found, found
    assert codes(corrected, LintConfig(reachability=False)) == set()


def test_a_rule_without_when_says_it_fires_on_every_turn_and_literal_true_is_left_alone() -> None:
    doc = rich()
    doc["runtime"]["rules"][3]["whn"] = doc["runtime"]["rules"][3].pop("when")
    report = lint(json.dumps(doc), LintConfig(reachability=False))
    [finding] = [f for f in report.findings if f.code == "rule-without-when"]
    assert finding.message == (
        "rule 'help_stranger' has no `when` (its 'whn' is not read), so the runtime fires it on every turn; "
        'give it a `when`, or `{"op": "literal", "value": true}` to say that it fires on every turn'
    )
    del doc["runtime"]["rules"][3]["whn"]
    doc["runtime"]["rules"][3]["when"] = {"op": "literal", "value": True}
    assert codes(doc, LintConfig(reachability=False)) == set()


def test_a_member_the_runtime_never_reads_is_placed_at_its_name() -> None:
    """The name is the mistake (a typo, or a member of another version): the caret goes under it, not its value."""
    doc = rich()
    doc["runtime"]["rules"][3]["whn"] = doc["runtime"]["rules"][3].pop("when")
    doc["x-extension"] = True
    text = json.dumps(doc, indent=2)
    report = lint(text, LintConfig(reachability=False))
    lines = text.splitlines()
    placed = {
        (f.code, f.pointer): lines[f.line - 1][f.column - 1 :]
        for f in report.findings
        if f.line is not None and f.column is not None
    }
    assert placed[("ignored-member", "/runtime/rules/3/whn")].startswith('"whn": {')
    assert placed[("rule-without-when", "/runtime/rules/3/whn")].startswith('"whn": {')
    assert placed[("ignored-member", "/x-extension")].startswith('"x-extension": true')


def test_top_level_api() -> None:
    import creatorpack

    report = creatorpack.lint(EXAMPLES / "0.3" / "rich.json", creatorpack.LintConfig(reachability=False))
    assert isinstance(report, creatorpack.LintReport)
    assert report.findings == ()


def test_findings_carry_severity_line_and_column() -> None:
    doc = rich()
    doc["reader_cards"][0]["avatar"]["asset_id"] = "nope"
    text = json.dumps(doc, indent=2)
    (finding,) = lint(text, LintConfig(reachability=False)).findings
    assert finding.severity == "error"
    assert finding.line is not None
    assert finding.column is not None
    assert text.splitlines()[finding.line - 1][finding.column - 1 :].startswith('"nope"')


def test_input_sha256_mismatch() -> None:
    doc = rich()
    record = doc["assets"][1]["generation_record"]
    record["input_assets"] = [{"asset_id": "mara_sheet", "sha256": "e" * 64}]
    assert ("input-sha256-mismatch", "/assets/1/generation_record/input_assets/0/sha256") in codes(
        doc, LintConfig(reachability=False)
    )
    record["input_assets"] = [{"asset_id": "mara_sheet", "sha256": doc["assets"][0]["sha256"]}]
    assert codes(doc, LintConfig(reachability=False)) == set()


def test_invalid_packs_report_contract_errors_only() -> None:
    doc = rich()
    doc["manifest"]["language"] = "fr"
    report = lint(doc)
    assert not report.contract.valid
    # No lint rule ran: the findings are the contract's violations, each an error.
    assert [(f.pointer, f.code, f.severity) for f in report.findings] == [
        (v.pointer, v.code, "error") for v in report.contract.violations
    ]


def small_pack() -> Doc:
    doc = example("0.5", "minimal")
    doc["runtime"]["state"] = {
        "schema": {
            "type": "object",
            "properties": {"trust": {"type": "integer", "minimum": 0, "maximum": 10}},
            "additionalProperties": False,
        }
    }
    doc["runtime"]["entries"] = [{"id": "opening", "initial_state": {"trust": 0}}]
    doc["runtime"]["observations"] = [{"type": "boolean", "id": "helped", "question": "Helped?"}]
    doc["runtime"]["rules"] = [
        {
            "kind": "effect",
            "id": "warm",
            "when": {"op": "observed", "id": "helped", "value": True},
            "effects": [{"op": "increment", "path": "/trust", "by": 1, "limit": 3}],
        }
    ]
    doc["assets"] = [
        {
            "id": "art",
            "kind": "image",
            "mime_type": "image/png",
            "sha256": "a" * 64,
            "byte_size": 1,
            "description": "Art",
            "reveal_when": {"op": "literal", "value": True},
        }
    ]

    def achievement(ident: str, at_least: int) -> Doc:
        return {
            "id": ident,
            "visibility": "visible",
            "title": ident,
            "description": "D",
            "artwork_asset_id": "art",
            "when": {"op": "gte", "path": "/trust", "value": at_least},
        }

    doc["progression"]["achievements"] = [achievement("friend", 3), achievement("hero", 5)]
    return doc


def test_unreachable_goals_with_a_complete_search() -> None:
    doc = small_pack()
    # trust can reach 5 (its maximum is 10), but the only effect stops at its limit of 3.
    assert codes(doc) == {("unreachable", "/progression/achievements/1/when")}
    report = lint(json.dumps(doc))
    assert [len(report.witnesses[k].turns) for k in ("warm", "friend")] == [1, 3]
    doc["runtime"]["rules"][0]["effects"][0]["limit"] = 5
    assert codes(doc) == set()


def test_reachability_bound_is_reported_not_guessed() -> None:
    found = codes(rich(), LintConfig(max_states=2))
    assert any(code == "reachability-bound" for code, _ in found)
    assert not any(code == "unreachable" for code, _ in found)
    report = lint(json.dumps(rich()), LintConfig(max_states=2))
    assert report.findings
    said = "was neither reached nor proven unreachable: the guided search played 2 turns, and the exhaustive search"
    assert all(said in f.message for f in report.findings)


def test_witness_reaches_the_goal() -> None:
    from creatorpack.testing import play

    report = lint(EXAMPLES / "0.5" / "rich.json")
    witness = report.witnesses["keeper_of_the_light"]
    run = play(EXAMPLES / "0.5" / "rich.json", [{"observations": dict(t)} for t in witness.turns])
    assert run.ending == "keeper_of_the_light"


def _asset_dir(tmp_path: Path, doc: Doc) -> Path:
    folder = tmp_path / "assets"
    folder.mkdir()
    for asset in doc["assets"]:
        data = {
            "image/png": b"\x89PNG\r\n\x1a\n" + asset["id"].encode(),
            "image/apng": b"\x89PNG\r\n\x1a\nacTL" + asset["id"].encode(),
            "image/jpeg": b"\xff\xd8\xff" + asset["id"].encode(),
            "image/webp": b"RIFF\x00\x00\x00\x00WEBP" + asset["id"].encode(),
            "audio/wav": b"RIFF\x00\x00\x00\x00WAVE" + asset["id"].encode(),
            "audio/mpeg": b"ID3" + asset["id"].encode(),
            "video/mp4": b"\x00\x00\x00\x18ftypmp42" + asset["id"].encode(),
        }[asset["mime_type"]]
        asset["sha256"] = hashlib.sha256(data).hexdigest()
        asset["byte_size"] = len(data)
        if isinstance(asset.get("generation_record"), dict):
            asset["generation_record"]["output_sha256"] = asset["sha256"]
            asset["generation_record"]["input_assets"] = []
        (folder / asset["sha256"]).write_bytes(data)
    return folder


def test_asset_files(tmp_path: Path) -> None:
    doc = rich()
    folder = _asset_dir(tmp_path, doc)
    config = LintConfig(assets=folder, reachability=False, ignore=frozenset({"unused-asset"}))
    assert codes(doc, config) == set()
    first, second, third = doc["assets"][0], doc["assets"][1], doc["assets"][2]
    (folder / first["sha256"]).unlink()
    (folder / second["sha256"]).write_bytes(b"\xff\xd8\xff changed")
    third["byte_size"] += 1
    (folder / "stray.bin").write_bytes(b"?")
    found = codes(doc, config)
    assert ("asset-file-missing", "/assets/0") in found
    assert ("asset-sha256-mismatch", "/assets/1/sha256") in found
    # The new content is a JPEG: a content-type finding only if the asset does not say image/jpeg.
    assert (("asset-mime-mismatch", "/assets/1/mime_type") in found) == (second["mime_type"] != "image/jpeg")
    assert ("asset-size-mismatch", "/assets/2/byte_size") in found
    assert ("unlisted-file", "") in found


def test_an_asset_file_named_by_the_asset_id_is_told_how_to_name_it(tmp_path: Path) -> None:
    doc = rich()
    folder = _asset_dir(tmp_path, doc)
    first = doc["assets"][0]
    (folder / first["sha256"]).rename(folder / f"{first['id']}.png")
    report = lint(doc, LintConfig(assets=folder, reachability=False, ignore=frozenset({"unused-asset"})))
    missing = next(f for f in report.findings if f.code == "asset-file-missing")
    assert missing.message == (
        f"no file named {first['sha256']} (or by its uri) in {folder}; {first['id']}.png is there, named by the "
        f"asset's id: rename it to {first['sha256']} (keeping its extension) or set the asset's `uri` to its name"
    )
    first["uri"] = f"{first['id']}.png"  # the second fix it names
    assert codes(doc, LintConfig(assets=folder, reachability=False, ignore=frozenset({"unused-asset"}))) == set()


@pytest.mark.parametrize("escape", ["absolute", "dotdot", "dotdot-inside"])
def test_an_asset_uri_never_reads_a_file_outside_the_assets_dir(tmp_path: Path, escape: str) -> None:
    doc = rich()
    folder = _asset_dir(tmp_path, doc)
    first = doc["assets"][0]
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"not an asset")
    (folder / first["sha256"]).unlink()
    (folder / "sub").mkdir()
    first["uri"] = {
        "absolute": str(secret),
        "dotdot": "../secret.txt",
        "dotdot-inside": "sub/../../secret.txt",
    }[escape]
    report = lint(doc, LintConfig(assets=folder, reachability=False, ignore=frozenset({"unused-asset"})))
    assert [(f.code, f.pointer) for f in report.findings] == [("asset-file-missing", "/assets/0")]
    assert "secret" not in report.findings[0].message or "sha256" not in report.findings[0].message
    # Inside the folder, a uri (with folders) still finds its file.
    first["uri"] = "sub/first.png"
    (folder / "sub" / "first.png").write_bytes(b"\x89PNG\r\n\x1a\n" + first["id"].encode())
    assert codes(doc, LintConfig(assets=folder, reachability=False, ignore=frozenset({"unused-asset"}))) == set()


def test_asset_mime_sniffing(tmp_path: Path) -> None:
    doc = rich()
    folder = _asset_dir(tmp_path, doc)
    doc["assets"][0]["mime_type"] = "image/jpeg"
    found = codes(doc, LintConfig(assets=folder, reachability=False, ignore=frozenset({"unused-asset"})))
    assert found == {("asset-mime-mismatch", "/assets/0/mime_type")}
    assert lint_module.sniff(b"\x89PNG\r\n\x1a\n") == "image/png"
    assert lint_module.sniff(b"GIF89a") is None


def test_unused_assets_are_reported_with_assets_dir(tmp_path: Path) -> None:
    doc = rich()
    folder = _asset_dir(tmp_path, doc)
    found = codes(doc, LintConfig(assets=folder, reachability=False))
    assert ("unused-asset", "/assets/7/id") in found  # harbour_ambience: nothing refers to it
    assert all(code == "unused-asset" for code, _ in found)


def test_cli_lint_exit_codes_and_strict(tmp_path: Path) -> None:
    clean = EXAMPLES / "0.5" / "rich.json"
    assert runner.invoke(app, ["lint", str(clean)]).exit_code == 0
    warned = rich()
    warned["publication"]["tagline"] = "Become the Keeper of the Light"
    path = tmp_path / "warned.json"
    path.write_text(json.dumps(warned, indent=2))
    slow = ["--max-seconds", str(SLOW_MACHINE)]
    result = runner.invoke(app, ["lint", *slow, str(path)])
    assert result.exit_code == 0, result.output
    assert "spoiler-title" in result.output
    assert runner.invoke(app, ["lint", *slow, "--strict", str(path)]).exit_code == 1
    assert runner.invoke(app, ["lint", *slow, "--strict", "--ignore", "spoiler-title", str(path)]).exit_code == 0
    assert runner.invoke(app, ["lint", "--ignore", "no-such-rule", str(path)]).exit_code == 2
    broken = rich()
    broken["reader_cards"][0]["avatar"]["asset_id"] = "nope"
    path.write_text(json.dumps(broken))
    result = runner.invoke(app, ["lint", "--format", "json", str(path)])
    assert result.exit_code == 1
    (error,) = json.loads(result.output)["files"][0]["errors"]
    assert error["code"] == "unknown-reference"
    assert error["severity"] == "error"
    invalid = tmp_path / "invalid.json"
    invalid.write_text('{"protocol_version": "0.5"}')
    assert runner.invoke(app, ["lint", str(invalid)]).exit_code == 1
    invalid.write_text("{")
    assert runner.invoke(app, ["lint", str(invalid)]).exit_code == 2


def test_cli_lint_reads_pyproject(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    warned = rich()
    warned["publication"]["tagline"] = "Become the Keeper of the Light"
    path = tmp_path / "warned.json"
    path.write_text(json.dumps(warned))
    (tmp_path / "pyproject.toml").write_text("[tool.creatorpack.lint]\nstrict = true\n")
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(app, ["lint", str(path)]).exit_code == 1
    table = f'[tool.creatorpack.lint]\nstrict = true\nignore = ["spoiler-title"]\nmax-seconds = {SLOW_MACHINE}\n'
    (tmp_path / "pyproject.toml").write_text(table)
    assert runner.invoke(app, ["lint", str(path)]).exit_code == 0


def test_cli_assets_must_be_a_directory(tmp_path: Path) -> None:
    args = ["lint", str(EXAMPLES / "0.5" / "rich.json"), "--assets", str(tmp_path / "none")]
    result = runner.invoke(app, args, env={"COLUMNS": "250"})
    assert result.exit_code == 2
    assert "is not a directory" in result.output


def test_cli_explain() -> None:
    result = runner.invoke(app, ["lint", str(EXAMPLES / "0.5" / "rich.json"), "--explain", "keeper_of_the_light"])
    assert result.exit_code == 0
    turns = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert turns
    result = runner.invoke(app, ["lint", str(EXAMPLES / "0.5" / "rich.json"), "--explain", "nothing"])
    assert result.exit_code == 2  # no such id: a usage error, at once


def test_02_cross_links() -> None:
    doc = example("0.2", "rich")
    assert codes(doc) == set()
    doc["default_entry_id"] = "nowhere"
    doc["entries"][0]["actor_setup"] = [
        {"actor_id": "ghost", "goal": "G", "known_fact_ids": [], "beliefs": [], "relationship_notes": []}
    ]
    found = codes(doc)
    assert ("unknown-reference", "/default_entry_id") in found
    assert ("unknown-reference", "/entries/0/actor_setup/0/actor_id") in found


def test_directory_assets_describe_a_file_as_reading_it_whole_would(tmp_path: Path) -> None:
    data = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 9000  # over two chunks of 1 MiB
    (tmp_path / "big.png").write_bytes(data)
    source = DirectoryAssets(tmp_path)
    assert isinstance(source, DescribedAssetSource)  # so lint hashes files in chunks
    facts = source.describe("big.png")
    assert (facts.sha256, facts.size, facts.mime_type) == (hashlib.sha256(data).hexdigest(), len(data), sniff(data))


def test_an_unreachable_goal_points_at_the_part_of_its_condition_that_cannot_hold() -> None:
    """Regression: the finding pointed at the achievement's '{', not at the sub-condition to fix."""
    doc = small_pack()
    doc["progression"]["achievements"][1]["when"] = {
        "op": "all",
        "conditions": [
            {"op": "gte", "path": "/trust", "value": 1},
            {"op": "not", "condition": {"op": "lt", "path": "/trust", "value": 5}},
        ],
    }
    text = json.dumps(doc, indent=2)
    [finding] = [f for f in lint(text).findings if f.code == "unreachable"]
    assert finding.pointer == "/progression/achievements/1/when/conditions/1/condition"
    assert finding.line is not None
    assert finding.column is not None
    line = text.splitlines()[finding.line - 1]
    assert line[finding.column - 1] == "{"
    assert '"op": "lt"' in text.splitlines()[finding.line]  # the `lt` that is always true


def test_an_achievement_that_unlocks_before_its_artwork_is_revealed_is_found() -> None:
    """Regression: lint was silent, and play showed the achievement with no art."""
    doc = example("0.5", "rich")
    art = next(a for a in doc["assets"] if a["id"] == "kindness_art")
    art["reveal_when"] = {"op": "gte", "path": "/trust", "value": 8}  # the achievement needs trust > 4
    report = lint(json.dumps(doc))
    found = [f for f in report.findings if f.code == "artwork-not-revealed"]
    assert [(f.pointer, f.severity) for f in found] == [("/progression/achievements/1/artwork_asset_id", "warning")]
    said = "achievement 'salt_and_kindness' can unlock before its artwork 'kindness_art' is revealed"
    assert said in found[0].message
    # The play it names shows just that: the achievement unlocked, its art not served.
    run = play(json.dumps(doc), [{"observations": dict(t)} for t in report.witnesses["salt_and_kindness"].turns])
    assert "salt_and_kindness" in run.last.achievements
    served = run.last.reader_view().to_json()["assets"]
    assert "kindness_art" not in json.dumps(served)
    assert not [f for f in lint(json.dumps(example("0.5", "rich"))).findings if f.code == "artwork-not-revealed"]
