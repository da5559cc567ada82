"""Upgrade 0.3 → 0.4 → 0.5: every value kept at its pointer, the layout kept, the same play."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import creatorpack
from creatorpack.cli import app
from creatorpack.contract import validate
from creatorpack.errors import NotJSONError, SourceTypeError, UnknownVersionError
from creatorpack.play import Engine, Turn, parse_script
from creatorpack.testing import play
from creatorpack.upgrade import STEPS, Change, UpgradeError, UpgradeResult, upgrade

from .conftest import EXAMPLES, example
from .test_bounds import base

PROGRESSION = {"protocol": "service.progression/1", "achievements": []}
PRESENTATION: dict[str, list[Any]] = {"bindings": [], "illustration_rules": []}
ADDED = {"0.4": {"/progression"}, "0.5": {"/progression", "/presentation"}}

runner = CliRunner()


def leaves(value: Any, at: str = "") -> Iterator[tuple[str, Any]]:
    """Every scalar and empty container of a document, with its JSON pointer."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from leaves(item, f"{at}/{key.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from leaves(item, f"{at}/{index}")
    else:
        yield at, value


def assert_kept(before: dict[str, Any], after: dict[str, Any], source: str, target: str) -> None:
    """Every leaf of ``before`` is in ``after`` at the same pointer with the same value (and type)."""
    old = dict(leaves(before))
    new = dict(leaves(after))
    for at, value in old.items():
        if at == "/protocol_version":
            continue
        assert at in new, f"{at} was lost"
        assert type(new[at]) is type(value), at
        assert new[at] == value, at
    assert new["/protocol_version"] == target
    added = set(new.keys() - old.keys())
    allowed = {a for version, items in ADDED.items() if version > source and version <= target for a in items}
    assert all(any(at == a or at.startswith(a + "/") for a in allowed) for at in added), added - set(old)
    assert list(after)[: len(before)] == list(before), "root key order changed"


def removed_lines(old: str, new: str) -> list[str]:
    return [line[2:] for line in difflib.ndiff(old.splitlines(), new.splitlines()) if line.startswith("- ")]


def added_lines(old: str, new: str) -> list[str]:
    return [line[2:] for line in difflib.ndiff(old.splitlines(), new.splitlines()) if line.startswith("+ ")]


def transcripts(source: Any, script: list[Turn]) -> list[dict[str, Any]]:
    """The transcript of ``script`` from every entry, each turn keeping the observations the pack asks."""
    engine = Engine.from_source(source)
    pack = json.loads(source)
    asked = {item["id"] for item in pack["runtime"].get("observations", [])}
    turns = [{"observations": {k: v for k, v in turn.observations.items() if k in asked}} for turn in script]
    entries: list[str | None] = [*engine.entry_ids()] or [None]
    return [play(engine, turns, entry=entry).transcript() for entry in entries]


def packs() -> Iterator[Any]:
    """Every valid 0.3 and 0.4 pack of the examples and the tests, with each later target."""
    for version in ("0.3", "0.4"):
        sources = {kind: (EXAMPLES / version / f"{kind}.json").read_bytes() for kind in ("minimal", "rich")}
        sources["test_bounds"] = json.dumps(base(version), indent=2).encode()
        for kind, source in sources.items():
            for target in ("0.4", "0.5"):
                if target > version:
                    yield pytest.param(version, source, target, id=f"{version}-{kind}-to-{target}")


@pytest.mark.parametrize(("version", "source", "target"), list(packs()))
def test_valid_packs_upgrade_keeping_every_value_and_playing_the_same(version: str, source: bytes, target: str) -> None:
    assert validate(source).valid
    result = upgrade(source, to=target)
    assert result.valid, result.report.violations
    assert result.attention == ()
    assert (result.source_version, result.target_version) == (version, target)
    assert validate(result.data).valid
    before, after = json.loads(source), json.loads(result.text)
    assert_kept(before, after, version, target)
    if version == "0.3":
        assert after["progression"] == PROGRESSION
    if target == "0.5":
        assert after["presentation"] == PRESENTATION
    script = parse_script((EXAMPLES / version / "playthrough.jsonl").read_text(encoding="utf-8"))
    assert transcripts(source, script) == transcripts(result.data, script)


def test_the_diff_shows_only_the_upgrade() -> None:
    source = (EXAMPLES / "0.3" / "rich.json").read_text(encoding="utf-8")
    result = upgrade(source)
    assert removed_lines(source, result.text) == ['  "protocol_version": "0.3",', "  ]"]
    assert added_lines(source, result.text) == [
        '  "protocol_version": "0.5",',
        "  ],",
        '  "progression": {',
        '    "protocol": "service.progression/1",',
        '    "achievements": []',
        "  },",
        '  "presentation": {',
        '    "bindings": [],',
        '    "illustration_rules": []',
        "  }",
    ]


def _layouts() -> Iterator[Any]:
    pack = base("0.3")
    pack["x-editor"] = {"folded": ["/runtime"], "é": "\u00e9"}
    yield pytest.param(json.dumps(pack, indent=2) + "\n", "  ", id="2-spaces")
    yield pytest.param(json.dumps(pack, indent=4), "    ", id="4-spaces")
    yield pytest.param(json.dumps(pack, indent="\t") + "\n", "\t", id="tab")
    yield pytest.param((json.dumps(pack, indent=2) + "\n").replace("\n", "\r\n"), "  ", id="crlf")
    yield pytest.param(json.dumps(pack, separators=(",", ":")), (",", ":"), id="minified")
    yield pytest.param(json.dumps(pack), (", ", ": "), id="one-line")
    yield pytest.param(json.dumps(pack, indent=2, ensure_ascii=True), "  ", id="ascii-escapes")


@pytest.mark.parametrize(("text", "indent"), list(_layouts()))
def test_layout_is_kept(text: str, indent: str | tuple[str, str]) -> None:
    result = upgrade(text)
    assert result.valid
    data = json.loads(text)
    expected = {**data, "protocol_version": "0.5", "progression": PROGRESSION, "presentation": PRESENTATION}
    if isinstance(indent, tuple):
        assert result.text == json.dumps(expected, separators=indent)
    else:
        newline = "\r\n" if "\r\n" in text else "\n"
        ascii_only = "\\u00e9" in text
        rendered = json.dumps(expected, indent=indent, ensure_ascii=ascii_only).replace("\n", newline)
        assert result.text == rendered + (newline if text.endswith(newline) else "")


def test_a_first_member_on_the_brace_line_keeps_the_indented_layout() -> None:
    pack = base("0.3")
    text = json.dumps(pack, indent=2).replace("{\n  ", "{ ", 1)  # `{ "protocol_version": "0.3",` then indented
    assert text.startswith('{ "protocol_version"')
    result = upgrade(text)
    expected = {**pack, "protocol_version": "0.5", "progression": PROGRESSION, "presentation": PRESENTATION}
    assert result.text == json.dumps(expected, indent=2).replace("{\n  ", "{ ", 1)


def test_values_are_kept_byte_for_byte() -> None:
    # Number spellings, escapes and odd spacing are kept: the text is edited, not re-serialized.
    pack = base("0.4")
    text = json.dumps(pack, indent=2)
    text = text.replace('"minimum": 0,', '"minimum": 0e0,', 1).replace('"Opening"', '"Op\\u0065ning"')
    text = text.replace('"protocol_version": "0.4"', '"protocol_version"  :   "0.4"')
    result = upgrade(text)
    assert "0e0" in result.text
    assert "Op\\u0065ning" in result.text
    assert '"protocol_version"  :   "0.5"' in result.text
    assert result.text.startswith(text[: text.index('"0.4"')])


def test_already_at_target_is_a_no_op_byte_for_byte() -> None:
    for path in sorted((EXAMPLES / "0.5").glob("*.json")):
        source = path.read_bytes()
        result = upgrade(source, to="0.5")
        assert result.data == source
        assert result.changes == ()
        assert not result.changed
        assert result.valid
    odd = b'{"protocol_version":"0.4" ,"manifest":{}}'
    assert upgrade(odd, to="0.4").data == odd


def test_steps_table() -> None:
    assert {version: step.target for version, step in STEPS.items()} == {"0.3": "0.4", "0.4": "0.5"}
    assert dict(STEPS["0.3"].adds) == {"progression": PROGRESSION}
    assert dict(STEPS["0.4"].adds) == {"presentation": PRESENTATION}


def test_changes_name_each_pointer() -> None:
    result = upgrade(example("0.3", "minimal"), to="0.5", bump_revision=True)
    assert [c.pointer for c in result.changes] == [
        "/protocol_version",
        "/progression",
        "/presentation",
        "/manifest/revision",
    ]
    assert result.document["manifest"]["revision"] == 2
    assert result.changes[0].what == "0.3 → 0.5"
    assert result.to_dict()["changes"][1]["pointer"] == "/progression"


@pytest.mark.parametrize("target", ["0.4", "0.5"])
def test_castings_a_03_pack_ignored_are_named_as_now_played(target: str) -> None:
    pack = example("0.3", "minimal")
    pack["character_castings"] = [
        {
            "id": "c1",
            "actor_id": "mara",
            "character_id": "12345678-1234-1234-1234-123456789abc",
            "character_revision": 1,
            "when": {"op": "literal", "value": True},
        }
    ]
    assert validate(pack).valid
    result = upgrade(pack, to=target)
    [casting] = [c for c in result.changes if c.pointer == "/character_castings"]
    assert casting.what.startswith("now played: 0.3 ignored these 1 casting(s)")
    assert result.document["character_castings"] == pack["character_castings"]  # the text is not edited
    assert all(c.pointer != "/character_castings" for c in upgrade(example("0.3", "minimal"), to=target).changes)


def test_bump_revision_in_text() -> None:
    source = (EXAMPLES / "0.4" / "rich.json").read_text(encoding="utf-8")
    result = upgrade(source, bump_revision=True)
    assert json.loads(result.text)["manifest"]["revision"] == json.loads(source)["manifest"]["revision"] + 1
    assert result.valid
    assert removed_lines(source, result.text) == ['  "protocol_version": "0.4",', '    "revision": 3,']
    assert added_lines(source, result.text) == [
        '  "protocol_version": "0.5",',
        '    "revision": 4,',
        "  },",
        '  "presentation": {',
        '    "bindings": [],',
        '    "illustration_rules": []',
    ]


@pytest.mark.parametrize("spelling", ["1.0", "1e0", "1", "10E-1"])
def test_bump_revision_of_a_whole_number_spelt_as_a_float(spelling: str) -> None:
    # JSON Schema's integer accepts 1.0 and 1e0, so a valid pack may spell its revision so.
    source = json.dumps(example("0.3", "minimal"), indent=2).replace('"revision": 1', f'"revision": {spelling}')
    assert validate(source).valid
    result = upgrade(source, bump_revision=True)
    assert result.valid
    # The change shows the revision as the file spells it, the one the diff removes.
    assert result.changes[-1] == Change("/manifest/revision", f"{spelling} → 2")
    assert f'    "revision": {spelling},' in removed_lines(source, result.text)
    assert '    "revision": 2,' in added_lines(source, result.text)


@pytest.mark.parametrize(
    ("spelling", "found"),
    [
        ("9007199254740991", "manifest.revision is already 9007199254740991, the largest a pack may have"),
        ("9007199254740991.0", "manifest.revision is already 9007199254740991, the largest a pack may have"),
        ("9007199254740992", "manifest.revision is 9007199254740992, more than 9007199254740991, the largest"),
    ],
)
def test_bump_revision_refuses_a_revision_already_at_the_maximum(spelling: str, found: str) -> None:
    # Adding 1 would write a revision the contract refuses, then blame the creator for it.
    source = json.dumps(example("0.3", "minimal"), indent=2).replace('"revision": 1', f'"revision": {spelling}')
    with pytest.raises(UpgradeError, match=f"cannot bump the revision: {re.escape(found)}") as caught:
        upgrade(source, bump_revision=True)
    assert caught.value.exit_code == 2
    assert "leave out --bump-revision" in str(caught.value)
    assert upgrade(source).changes  # without the bump, the upgrade goes on


def test_bump_revision_at_the_maximum_exits_2_writing_nothing(tmp_path: Path) -> None:
    pack = tmp_path / "pack.json"
    text = json.dumps(example("0.3", "minimal"), indent=2).replace('"revision": 1', '"revision": 9007199254740991')
    pack.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["upgrade", str(pack), "--in-place", "--bump-revision"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"creatorpack: {pack}: cannot bump the revision: manifest.revision is already 9007199254740991, "
        "the largest a pack may have; leave out --bump-revision\n"
    )
    assert pack.read_text(encoding="utf-8") == text


@pytest.mark.parametrize(
    ("revision", "found"),
    [(1.5, "manifest.revision is 1.5"), ("1", "manifest.revision is '1'"), (None, "the pack has no manifest.revision")],
)
def test_bump_revision_refuses_a_revision_it_cannot_add_1_to(revision: Any, found: str) -> None:
    pack = example("0.3", "minimal")
    if revision is None:
        del pack["manifest"]["revision"]
    else:
        pack["manifest"]["revision"] = revision
    with pytest.raises(UpgradeError, match=f"cannot bump the revision: {re.escape(found)}, not a whole number"):
        upgrade(pack, bump_revision=True)
    assert upgrade(pack).changes  # without the bump, the upgrade goes on


def test_existing_member_is_kept_and_checked() -> None:
    pack = example("0.3", "minimal")
    pack["presentation"] = {"bindings": [], "illustration_rules": [], "theme": "dark"}
    result = upgrade(pack)
    assert result.document["presentation"] == pack["presentation"]
    assert not result.valid
    assert [a.pointer for a in result.attention] == ["/presentation/theme"]
    assert "presentation" in result.attention[0].fix
    assert not result.attention[0].existing
    kept = [c.what for c in result.changes if c.pointer == "/presentation"]
    assert kept == ["kept the existing member, which 0.3 ignored: 0.5 now checks and plays it"]  # it goes live


def test_shapes_the_target_restricts_need_attention() -> None:
    pack = example("0.4", "rich")
    pack["entries"][0]["opening_illustrations"] = [{"after_paragraph_index": 0, "image": "quay.png"}]
    pack["entries"][0]["opening_stages"][0]["mood"] = "grim"
    pack["progression"]["protocol"] = "studio.progression/9"
    assert validate(pack).valid
    result = upgrade(json.dumps(pack, indent=2))
    assert not result.valid
    pointers = [a.pointer for a in result.attention]
    assert "/entries/0/opening_illustrations/0" in pointers
    assert "/entries/0/opening_stages/0/mood" in pointers
    assert "/progression/protocol" in pointers
    for item in result.attention:
        assert item.fix
        assert item.line is not None
        assert not item.existing
    fixes = {a.pointer: a.fix for a in result.attention}
    assert "paragraph_digest" in fixes["/entries/0/opening_illustrations/0"]
    assert "service.progression/1" in fixes["/progression/protocol"]
    assert "service.progression/2" in fixes["/progression/protocol"]  # 0.5 has the guided container
    # Carried over unchanged all the same.
    assert result.document["entries"][0]["opening_stages"][0]["mood"] == "grim"


def test_a_guided_progression_upgraded_to_0_4_is_told_the_0_4_shape() -> None:
    # A 0.3 pack may carry a 0.5-style guided progression (0.3 ignores it); 0.4 has no guided shapes.
    pack = example("0.3", "rich")
    pack["progression"] = example("0.5", "rich")["progression"]
    assert pack["progression"]["protocol"] == "service.progression/2"
    assert validate(pack).valid
    result = upgrade(pack, to="0.4")
    assert {a.pointer for a in result.attention} == {
        "/progression/achievements/3",
        "/progression/achievements/3/guidance",
    }
    for item in result.attention:
        assert "guided shapes" in item.fix
        assert "takes only protocol, achievements, endings and badges in their guided shapes" not in item.fix
        assert item.fix.startswith("0.4 progression is one container")
        assert "visibility" in item.fix  # what the 0.4 achievement needs and the guided one lacks
        assert "come only with 0.5" in item.fix
    assert upgrade(pack, to="0.5").valid


def test_the_progression_protocol_fix_names_what_the_target_takes() -> None:
    pack = example("0.3", "minimal")
    pack["progression"] = {"protocol": 7, "achievements": []}  # 0.4: any string; 0.5: /1 or /2
    fixes = {target: [(a.pointer, a.fix) for a in upgrade(pack, to=target).attention] for target in ("0.4", "0.5")}
    assert fixes == {
        "0.4": [
            (
                "/progression/protocol",
                "set protocol to 'service.progression/1', the 0.4 container (guided progression is 0.5's)",
            )
        ],
        "0.5": [
            (
                "/progression/protocol",
                (
                    "set protocol to 'service.progression/1' (the 0.4 container) or, for guided achievements and "
                    "endings, 'service.progression/2'"
                ),
            )
        ],
    }


def test_0_3_castings_are_checked_from_0_4() -> None:
    pack = example("0.3", "minimal")
    pack["character_castings"] = [{"id": "c1"}]
    result = upgrade(pack, to="0.4")
    assert [a.pointer for a in result.attention] == ["/character_castings/0"]
    assert "casting" in result.attention[0].fix


def test_an_invalid_source_says_which_problems_were_already_there() -> None:
    pack = example("0.3", "minimal")
    pack["manifest"]["language"] = "fr"
    result = upgrade(pack)
    assert [(a.pointer, a.existing) for a in result.attention] == [("/manifest/language", True)]


def test_0_2_is_refused_with_the_reason() -> None:
    with pytest.raises(UpgradeError, match=r"0\.2 → 0\.3") as caught:
        upgrade(example("0.2", "minimal"))
    assert caught.value.exit_code == 2


@pytest.mark.parametrize(
    ("source", "to", "error", "match"),
    [
        (b'{"protocol_version": "0.5"}', "0.4", UpgradeError, "downgrade"),
        (b'{"protocol_version": "0.3"}', "0.6", UpgradeError, "0.4 and 0.5"),
        (b'{"protocol_version": "0.3"}', "0.3.1", UpgradeError, "0.4 and 0.5"),
        (b'{"protocol_version": "9"}', "0.5", UnknownVersionError, "'9'"),
        (b"{nope", "0.5", NotJSONError, "invalid JSON"),
        # A target must be one an upgrade goes to, even the version the pack already declares.
        (json.dumps(example("0.2", "minimal")).encode(), "0.2", UpgradeError, "0.4 and 0.5"),
        (json.dumps(example("0.3", "minimal")).encode(), "0.3", UpgradeError, "0.4 and 0.5"),
    ],
)
def test_refusals(source: bytes, to: str, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        upgrade(source, to=to)


@pytest.mark.parametrize(
    ("source", "said"),
    [
        (b"{}", "missing protocol_version; declare one of the supported versions '0.2', '0.3', '0.4', '0.5'"),
        (b'{"protocol_version": 0.3}', "0.3 is a number; write the version as a string, '0.3'"),
        (b'{"protocol_version": "9"}', "'9' is not a supported version; use one of"),
    ],
)
def test_an_unsupported_version_is_refused_in_the_words_of_validation(source: bytes, said: str) -> None:
    with pytest.raises(UnknownVersionError) as caught:
        upgrade(source)
    [violation] = validate(source).violations
    assert str(caught.value) == violation.message
    assert said in str(caught.value)
    assert "unknown contract version" not in str(caught.value)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{}\n", "missing protocol_version; declare one of"),
        ('{"protocol_version": 0.3}\n', "0.3 is a number; write the version as a string, '0.3'"),
    ],
)
def test_the_cli_refuses_an_unsupported_version_in_one_line(tmp_path: Path, text: str, said: str) -> None:
    pack = tmp_path / "pack.json"
    pack.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["upgrade", str(pack)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"creatorpack: {pack}: ")
    assert said in result.stderr
    assert result.stderr.count("\n") == 1
    assert "unknown contract version" not in result.stderr


def test_a_path_is_not_read() -> None:
    with pytest.raises(SourceTypeError, match="not a path"):
        upgrade(EXAMPLES / "0.3" / "minimal.json")  # type: ignore[arg-type]


def test_top_level_export() -> None:
    assert "upgrade" in creatorpack.__all__
    assert "UpgradeResult" in creatorpack.__all__
    result = creatorpack.upgrade(example("0.4", "minimal"))
    assert isinstance(result, creatorpack.UpgradeResult)
    assert creatorpack.UpgradeResult is UpgradeResult
    # Still callable once the module has been imported (it then shadows the lazy name).
    assert creatorpack.upgrade(example("0.4", "minimal")).valid


# Hypothesis: random valid 0.3 packs, in random layouts.

ID = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
TRUE = {"op": "literal", "value": True}


@st.composite
def conditions(draw: st.DrawFn, ints: list[str], flags: list[str], observations: list[str], depth: int = 2) -> Any:
    leaves_: list[st.SearchStrategy[Any]] = [
        st.just(TRUE),
        st.builds(lambda v: {"op": "literal", "value": v}, st.booleans()),
    ]
    if ints:
        leaves_.append(
            st.builds(
                lambda op, name, v: {"op": op, "path": f"/{name}", "value": v},
                st.sampled_from(["eq", "ne", "gt", "gte", "lt", "lte"]),
                st.sampled_from(ints),
                st.integers(0, 5),
            )
        )
    if flags:
        leaves_.append(
            st.builds(lambda n, v: {"op": "eq", "path": f"/{n}", "value": v}, st.sampled_from(flags), st.booleans())
        )
    if observations:
        leaves_.append(st.builds(lambda n: {"op": "observed", "id": n, "value": True}, st.sampled_from(observations)))
    leaf = st.one_of(*leaves_)
    if depth == 0 or draw(st.booleans()):
        return draw(leaf)
    kind = draw(st.sampled_from(["all", "any", "not"]))
    if kind == "not":
        return {"op": "not", "condition": draw(conditions(ints, flags, observations, depth - 1))}
    return {
        "op": kind,
        "conditions": draw(st.lists(conditions(ints, flags, observations, depth - 1), min_size=1, max_size=3)),
    }


@st.composite
def packs_03(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(ID, min_size=1, max_size=4, unique=True))
    kinds = {name: draw(st.sampled_from(["integer", "boolean"])) for name in names}
    ints = [n for n, k in kinds.items() if k == "integer"]
    flags = [n for n, k in kinds.items() if k == "boolean"]
    schema = {
        "type": "object",
        "properties": {
            n: {"type": "integer", "minimum": 0, "maximum": 5} if k == "integer" else {"type": "boolean"}
            for n, k in kinds.items()
        },
        "required": names,
        "additionalProperties": False,
    }
    entries = [
        {
            "id": f"entry{i}",
            "initial_state": {
                n: (draw(st.integers(0, 5)) if k == "integer" else draw(st.booleans())) for n, k in kinds.items()
            },
        }
        for i in range(draw(st.integers(1, 2)))
    ]
    observations = draw(st.lists(st.sampled_from(["helped", "met", "asked"]), max_size=3, unique=True))
    cond = conditions(ints, flags, observations)
    rules: list[dict[str, Any]] = []
    for i in range(draw(st.integers(0, 4))):
        rule: dict[str, Any] = {"kind": "guidance", "id": f"rule{i}", "when": draw(cond), "instruction": "Do it."}
        if draw(st.booleans()):
            rule["completion"] = draw(st.one_of(st.none(), cond))
        rules.append(rule)
    for i, name in enumerate(ints[:2]):
        rules.append(
            {
                "kind": "effect",
                "id": f"effect{i}",
                "when": draw(cond),
                "effects": [
                    {
                        "op": "increment",
                        "path": f"/{name}",
                        "by": draw(st.integers(-2, 2)),
                        "limit": 5,
                        "overflow": "clamp",
                    }
                ],
            }
        )
    pack: dict[str, Any] = {
        "protocol_version": "0.3",
        "manifest": {
            "pack_id": draw(ID),
            "revision": draw(st.integers(1, 2**53 - 1)),
            "title": "T",
            "language": draw(st.sampled_from(["en", "zh", "zh-CN"])),
        },
        "runtime": {
            "runtime_id": "rt",
            "state": {"schema": schema},
            "entries": entries,
            "observations": [{"type": "boolean", "id": o, "question": f"{o}?"} for o in observations],
            "rules": draw(st.permutations(rules)),
        },
        "instructions": draw(st.one_of(st.text(min_size=1, max_size=20), st.just({"narrator": "Quietly."}))),
        "entries": [{"id": e["id"], "title": 'Chapter \u00e9 "one"\n'} for e in entries],
        "provenance": [{"path": "/", "basis": "original", "review": draw(st.sampled_from(["accepted", "pending"]))}],
    }
    if draw(st.booleans()):
        pack["content"] = [{"id": "c1", "text": "Some text.", "selection": "always", "when": draw(cond)}]
    if draw(st.booleans()):
        pack["reader_cards"] = [
            {"id": "mara", "display_name": "Mara", "introduction": "The keeper.", "reveal_when": draw(cond)}
        ]
    if draw(st.booleans()):
        pack["x-extension"] = draw(
            st.recursive(
                st.none()
                | st.booleans()
                | st.integers()
                | st.floats(allow_nan=False, allow_infinity=False)
                | st.text(max_size=5),
                lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                max_leaves=8,
            )
        )
    order = draw(st.permutations(list(pack)))
    return {key: pack[key] for key in order}


LAYOUTS = st.sampled_from([{"indent": 2}, {"indent": 4}, {"indent": "\t"}, {"separators": (",", ":")}, {}])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    packs_03(),
    LAYOUTS,
    st.sampled_from(["0.4", "0.5"]),
    st.lists(st.dictionaries(st.sampled_from(["helped", "met", "asked"]), st.booleans()), max_size=4),
)
def test_generated_0_3_packs_upgrade_the_same_way(
    pack: dict[str, Any], layout: dict[str, Any], target: str, answers: list[dict[str, bool]]
) -> None:
    text = json.dumps(pack, ensure_ascii=False, **layout)
    assert validate(text).valid, validate(text).violations
    result = upgrade(text, to=target)
    assert result.valid, result.report.violations
    assert_kept(json.loads(text), json.loads(result.text), "0.3", target)
    script = [Turn.from_json({"observations": turn}) for turn in answers]
    assert transcripts(text, script) == transcripts(result.data, script)
    again = upgrade(result.text, to=target)
    assert again.text == result.text


@pytest.mark.parametrize(
    "tail",
    ['"x-note": "ends with } and \\" and \\\\"', '"x-list": [{"a": "]}"}, "\\\\\\""]', '"x-n": -1.5E+3', '"x-t": true'],
)
def test_tricky_last_members(tail: str) -> None:
    pack = json.dumps(example("0.3", "minimal"), indent=2)
    text = pack[: pack.rindex("}")].rstrip() + ",\n  " + tail + "\n}\n"
    result = upgrade(text, to="0.4")
    assert result.valid
    head = text[: text.rindex("\n}")].replace('"protocol_version": "0.3"', '"protocol_version": "0.4"', 1)
    added = ',\n  "progression": {\n    "protocol": "service.progression/1",\n    "achievements": []\n  }\n}\n'
    assert result.text == head + added
    assert_kept(json.loads(text), json.loads(result.text), "0.3", "0.4")
