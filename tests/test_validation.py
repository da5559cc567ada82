"""The library API: sources, report shape, version handling, pointers, line and column."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import creatorpack
from creatorpack import errors
from creatorpack.contract import suggest
from creatorpack.contract.validation import pointer
from creatorpack.play.conditions import ConditionError
from creatorpack.play.state import EffectError

from .conftest import example, put
from .test_bounds import ASSET


def test_every_source_kind_gives_the_same_verdict(tmp_path: Path) -> None:
    pack = example("0.5", "rich")
    text = json.dumps(pack, indent=2)
    path = tmp_path / "pack.json"
    path.write_text(text, encoding="utf-8")
    reports = [
        creatorpack.validate(pack),
        creatorpack.validate(text),
        creatorpack.validate(text.encode()),
        creatorpack.validate(bytearray(text.encode())),
        creatorpack.validate(memoryview(text.encode())),
        creatorpack.validate(path),
    ]
    assert all(r.valid and r.version == "0.5" for r in reports)


def test_report_lists_every_violation_with_place() -> None:
    pack = example("0.5", "minimal")
    put(pack, "/manifest/language", "fr")
    put(pack, "/manifest/revision", 0)
    text = json.dumps(pack, indent=2)
    report = creatorpack.validate(text)
    assert not report.valid
    assert report.version == "0.5"
    by_pointer = {v.pointer: v for v in report.violations}
    assert set(by_pointer) == {"/manifest/language", "/manifest/revision"}
    language = by_pointer["/manifest/language"]
    assert language.code == "enum"
    assert language.message == "language: 'fr' is not one of 'zh', 'zh-CN', 'en'"
    lines = text.splitlines()
    assert language.line is not None
    assert language.column is not None
    assert lines[language.line - 1][language.column - 1 :].startswith('"fr"')
    # Ordered by place in the document.
    places = [(v.line, v.column) for v in report.violations]
    assert places == sorted(places, key=lambda p: (p[0] or 0, p[1] or 0))


def test_parsed_input_has_no_line_or_column() -> None:
    pack = put(example("0.4", "minimal"), "/manifest/language", "fr")
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.line, violation.column) == (None, None)
    assert violation.pointer == "/manifest/language"


@pytest.mark.parametrize("declared", ["0.1", "0.6", "1", 0.5, None, ["0.5"]])
def test_unsupported_version_is_one_error(declared: object) -> None:
    pack = put(example("0.5", "rich"), "/protocol_version", declared)
    report = creatorpack.validate(pack)
    assert report.version is None
    (violation,) = report.violations
    assert violation.code == "unsupported-version"
    assert violation.pointer == "/protocol_version"
    if declared == 0.5:  # a supported version written as a number: asked for as a string
        assert violation.message.endswith("write the version as a string, '0.5'")
    else:
        assert "'0.2', '0.3', '0.4', '0.5'" in violation.message


def test_missing_version_is_one_error() -> None:
    pack = example("0.5", "rich")
    del pack["protocol_version"]
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.code, violation.pointer) == ("unsupported-version", "")
    assert "missing protocol_version" in violation.message


def test_pack_is_validated_against_the_version_it_declares() -> None:
    pack = put(example("0.5", "minimal"), "/protocol_version", "0.3")
    report = creatorpack.validate(pack)
    assert report.version == "0.3"
    assert report.valid  # 0.3 does not know progression/presentation, and its root accepts them


def test_pointer_escaping() -> None:
    assert pointer(("a/b", "c~d", 3)) == "/a~1b/c~0d/3"
    assert pointer(()) == ""
    pack = example("0.5", "minimal")
    pack["manifest"]["a/b~"] = 1
    (violation,) = creatorpack.validate(json.dumps(pack)).violations
    assert violation.pointer == "/manifest/a~1b~0"
    assert violation.code == "additional-property"
    assert violation.line == 1


def test_raise_for_errors() -> None:
    creatorpack.validate(example("0.3", "minimal")).raise_for_errors()
    report = creatorpack.validate(put(example("0.3", "minimal"), "/manifest/revision", 0))
    with pytest.raises(creatorpack.InvalidPackError, match="1 violation") as caught:
        report.raise_for_errors()
    assert caught.value.report is report


def test_report_to_dict_shape() -> None:
    report = creatorpack.validate(json.dumps(put(example("0.3", "minimal"), "/manifest/revision", 0)))
    assert report.to_dict() == {
        "valid": False,
        "version": "0.3",
        "errors": [
            {
                "pointer": "/manifest/revision",
                "code": "minimum",
                "message": "revision: 0 is less than the minimum of 1",
                "line": 1,
                "column": report.violations[0].column,
            }
        ],
    }


def test_validator_is_reusable_and_independent() -> None:
    first = creatorpack.Validator()
    second = creatorpack.Validator(max_bytes=10)
    assert first.validate(example("0.2", "rich")).valid
    with pytest.raises(creatorpack.LimitError):
        second.validate(json.dumps(example("0.2", "rich")))


class _Opaque:
    pass


@pytest.mark.parametrize(
    ("where", "value", "python_type"),
    [
        ("/manifest/title", {"a", "b"}, "set"),
        ("/instructions", _Opaque(), "_Opaque"),
        ("/manifest/revision", Decimal("1.5"), "Decimal"),
        ("/manifest/revision", Decimal(1), "Decimal"),
        ("/instructions/x", float("nan"), "float"),
        ("/instructions/x", float("-inf"), "float"),
        ("/entries/0", b"bytes", "bytes"),
    ],
)
def test_mapping_holding_what_json_cannot_say_names_pointer_and_type(
    where: str, value: object, python_type: str
) -> None:
    pack = example("0.5", "minimal")
    pack["entries"] = [{}]
    pack["instructions"] = {}
    put(pack, where, value)
    with pytest.raises(creatorpack.NotJSONDataError) as caught:
        creatorpack.validate(pack)
    error = caught.value
    assert isinstance(error, TypeError)
    assert isinstance(error, creatorpack.CreatorpackError)
    assert (error.pointer, error.python_type, error.code) == (where, python_type, "not-json-data")
    assert str(error).startswith(f"{where}: ")
    assert f" is a {python_type}, not a JSON value" in str(error) or f" is an {python_type}," in str(error)
    assert "deeper" not in str(error)


def test_mapping_with_an_int_key_names_the_object() -> None:
    pack = example("0.5", "minimal")
    pack["manifest"][1] = "x"
    with pytest.raises(creatorpack.NotJSONDataError) as caught:
        creatorpack.validate(pack)
    assert (caught.value.pointer, caught.value.python_type) == ("/manifest", "int")
    assert str(caught.value) == "/manifest: the key 1 is an int; JSON member names are strings"


def test_mapping_with_json_data_of_subclasses_tuples_and_big_integers_is_checked() -> None:
    class Name(str):
        pass

    pack = example("0.5", "minimal")
    pack["instructions"] = {"t": (1, 2.5, True, None), "big": 2**70, Name("k"): Name("v")}
    assert creatorpack.validate(pack).valid
    pack["manifest"]["revision"] = 2**70
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.pointer, violation.code) == ("/manifest/revision", "maximum")


def test_subclass_keys_are_read_in_an_invalid_pack_and_at_the_root() -> None:
    """The schema validator takes no str subclass as a key: the document is read as plain types first."""

    class Key(str):
        pass

    root = creatorpack.validate({Key("protocol_version"): "0.5"})
    assert "missing required properties: 'manifest'" in root.violations[0].message
    pack = example("0.5", "minimal")
    pack["manifest"] = {Key("title"): Key("x")}
    codes = {(v.pointer, v.code) for v in creatorpack.validate(pack).violations}
    assert ("/manifest", "required") in codes


@pytest.mark.parametrize("where", ["value", "key"])
def test_a_lone_surrogate_is_not_json_data(where: str) -> None:
    """Such text has no UTF-8 form: refused as the same text in bytes is (it was 'nested deeper than 254')."""
    pack = example("0.5", "minimal")
    if where == "value":
        pack["manifest"]["title"] = "\ud800"
    else:
        pack["instructions"] = {"\ud800": "x"}
    with pytest.raises(creatorpack.NotJSONDataError, match="lone surrogate") as caught:
        creatorpack.validate(pack)
    assert caught.value.pointer == ("/manifest/title" if where == "value" else "/instructions")
    assert "deeper" not in str(caught.value)


def test_deep_mapping_is_a_limit_error_not_a_type_error() -> None:
    pack = example("0.5", "minimal")
    deep: list[object] = []
    pack["instructions"] = deep
    for _ in range(300):
        deep.append([])
        deep = deep[0]  # type: ignore[assignment]
    with pytest.raises(creatorpack.LimitError, match="deeper than 254"):
        creatorpack.validate(pack)


def test_check_hands_back_the_bytes_it_read(tmp_path: Path) -> None:
    path = tmp_path / "pack.json"
    text = json.dumps(put(example("0.4", "minimal"), "/manifest/language", "fr"), indent=2)
    path.write_text(text, encoding="utf-8")
    checked = creatorpack.Validator().check(path)
    assert checked.text == text.encode()
    assert checked.document == json.loads(text)
    assert checked.report == creatorpack.validate(path)
    assert creatorpack.Validator().check(text).text == text.encode()
    assert creatorpack.Validator().check(json.loads(text)).text is None


def test_every_exception_is_a_creatorpack_error_with_a_fitting_builtin() -> None:
    assert ConditionError is errors.ConditionError
    assert EffectError is errors.EffectError
    assert creatorpack.UnknownVersionError is errors.UnknownVersionError
    for name in errors.__all__:
        error = getattr(errors, name)
        assert issubclass(error, errors.CreatorpackError)
        if error is not errors.CreatorpackError:
            assert issubclass(error, ValueError | TypeError), name
        assert name in (errors.__doc__ or ""), f"{name} is missing from the tree in errors.py"
    assert issubclass(errors.NotJSONDataError, TypeError)


# -- diagnostics: one finding per mistake, with the fix -------------------------------------------


def test_misspelt_required_property_is_one_finding_at_the_key() -> None:
    pack = example("0.5", "minimal")
    pack["manifest"]["titel"] = pack["manifest"].pop("title")
    text = json.dumps(pack, indent=2)
    (violation,) = creatorpack.validate(text).violations
    assert (violation.pointer, violation.code) == ("/manifest/titel", "additional-property")
    assert violation.message == "manifest: unknown property 'titel'; did you mean 'title', which is missing?"
    assert violation.line is not None
    assert violation.column is not None
    assert text.splitlines()[violation.line - 1][violation.column - 1 :].startswith('"titel"')


def test_misspelling_of_a_present_property_suggests_it_and_others_are_still_missing() -> None:
    pack = example("0.5", "minimal")
    del pack["manifest"]["title"], pack["manifest"]["language"]
    pack["manifest"]["source_document"] = []
    got = {(v.pointer, v.code): v.message for v in creatorpack.validate(pack).violations}
    assert got == {
        ("/manifest/source_document", "additional-property"): (
            "manifest: unknown property 'source_document'; did you mean 'source_documents'?"
        ),
        ("/manifest", "required"): "manifest: missing required properties: 'title', 'language'",
    }


def test_unknown_property_far_from_every_name_lists_them_and_says_how_many_more() -> None:
    pack = example("0.5", "rich")
    pack["publication"]["zzz"] = 1
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.pointer, violation.code) == ("/publication/zzz", "additional-property")
    assert violation.message.startswith("publication: unknown property 'zzz'; remove it or use one of: tagline, ")
    assert violation.message.endswith(" and 1 more")


def test_pack_with_only_a_version_gets_one_missing_properties_finding() -> None:
    (violation,) = creatorpack.validate(b'{"protocol_version":"0.5"}').violations
    assert (violation.pointer, violation.code, violation.line, violation.column) == ("", "required", 1, 1)
    assert violation.message == (
        "pack: missing required properties: 'manifest', 'runtime', 'instructions', 'entries', "
        "'provenance', 'progression', 'presentation'"
    )


def test_missing_properties_are_one_finding_per_object() -> None:
    pack = example("0.4", "minimal")
    pack["manifest"] = {"pack_id": "p"}
    pack["provenance"] = [{}, {"path": "p"}]
    got = sorted((v.pointer, v.code, v.message) for v in creatorpack.validate(pack).violations)
    assert got == [
        ("/manifest", "required", "manifest: missing required properties: 'revision', 'title', 'language'"),
        ("/provenance/0", "required", "provenance[0]: missing required properties: 'path', 'basis', 'review'"),
        ("/provenance/1", "required", "provenance[1]: missing required properties: 'basis', 'review'"),
    ]


def test_single_missing_property_keeps_its_message() -> None:
    pack = example("0.4", "minimal")
    del pack["manifest"]["title"]
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.pointer, violation.code) == ("/manifest", "required")
    assert violation.message == "manifest: missing required property 'title'"


@pytest.mark.parametrize("version", ["0.3", "0.4"])
def test_field_of_a_later_version_says_so(version: str) -> None:
    pack = example(version, "minimal")
    pack["assets"] = [copy.deepcopy(ASSET)]
    assert creatorpack.validate(pack).valid
    pack["assets"][0]["access"] = "standard"
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.pointer, violation.code) == ("/assets/0/access", "additional-property")
    assert violation.message == (
        f"assets[0]: unknown property 'access'; 'access' exists from 0.5, and this pack declares {version}"
    )


@pytest.mark.parametrize("version", ["0.3", "0.4", "0.5"])
def test_a_member_of_another_kind_is_not_called_a_member_of_another_version(version: str) -> None:
    pack = example(version, "rich")
    index, observation = next((i, o) for i, o in enumerate(pack["runtime"]["observations"]) if o["type"] == "choice")
    observation["type"] = "boolean"
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.pointer, violation.code) == (f"/runtime/observations/{index}/choices", "additional-property")
    assert violation.message == (
        f"observations[{index}]: unknown property 'choices'; 'choices' belongs to another kind of object here, "
        "not to one whose type is 'boolean'"
    )


def test_a_condition_member_of_another_op_names_the_op() -> None:
    pack = example("0.5", "rich")
    pack["reader_cards"][0]["reveal_when"] = {"op": "literal", "value": True, "path": "/trust"}
    (violation,) = creatorpack.validate(pack).violations
    assert violation.pointer == "/reader_cards/0/reveal_when/path"
    assert violation.message.endswith("'path' belongs to another kind of object here, not to one whose op is 'literal'")
    assert "exists" not in violation.message


@pytest.mark.parametrize(
    ("where", "value", "code", "hint"),
    [
        ("/manifest/language", "EN", "enum", "did you mean 'en'?"),
        ("/manifest/language", "zh-cn", "enum", "did you mean 'zh-CN'?"),
        ("/provenance/0/basis", "orignal", "enum", "did you mean 'original'?"),
        ("/runtime/observations/0/type", "bolean", "unknown-observation-type", "did you mean 'boolean'?"),
        ("/content/0/when/op", "containz", "unknown-op", "did you mean 'contains'?"),
        # What an op is often written as, where the nearest spelling would mislead ('and' is nearer 'any').
        ("/content/0/when/op", "and", "unknown-op", "did you mean 'all'?"),
        ("/content/0/when/op", "OR", "unknown-op", "did you mean 'any'?"),
        ("/content/0/when/op", "neq", "unknown-op", "did you mean 'ne'?"),
        ("/content/0/when/op", "==", "unknown-op", "did you mean 'eq'?"),
        ("/content/0/when/op", ">=", "unknown-op", "did you mean 'gte'?"),
        ("/content/0/when/op", "greater_than", "unknown-op", "did you mean 'gt'?"),
        ("/content/0/when/op", "in", "unknown-op", "did you mean 'contains'?"),
    ],
)
def test_enum_value_close_to_an_allowed_one_gets_a_suggestion(where: str, value: str, code: str, hint: str) -> None:
    pack = example("0.5", "minimal")
    pack["provenance"] = [{"path": "p", "basis": "original", "review": "accepted"}]
    pack["runtime"]["observations"] = [{"type": "boolean", "id": "q", "question": "Q?"}]
    pack["content"] = [{"id": "c", "text": "t", "selection": "always", "when": {"op": "literal", "value": True}}]
    assert creatorpack.validate(pack).valid
    put(pack, where, value)
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.pointer, violation.code) == (where, code)
    assert violation.message.endswith(f"; {hint}")


def test_a_suggestion_follows_the_conditional_rules_reason() -> None:
    pack = example("0.5", "rich")
    index = next(i for i, a in enumerate(pack["assets"]) if a.get("kind") == "image" and a.get("generation_record"))
    where = f"/assets/{index}/generation_record/config/task"
    put(pack, where, "text_to_imag")
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.pointer, violation.code) == (where, "asset-image-task-rule")
    assert violation.message == (
        "task: 'text_to_imag' is not one of 'text_to_image', 'image_to_image' (because kind is 'image'); "
        "did you mean 'text_to_image'?"
    )


def test_enum_value_far_from_every_allowed_one_gets_none() -> None:
    pack = put(example("0.5", "minimal"), "/manifest/language", "de")
    (violation,) = creatorpack.validate(pack).violations
    assert "did you mean" not in violation.message


class _PathLike:
    """An os.PathLike that is not a pathlib.Path."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def __fspath__(self) -> str:
        return str(self._path)


def test_lint_places_findings_for_any_pathlike_without_reading_twice(tmp_path: Path) -> None:
    pack = example("0.5", "rich")
    pack["publication"]["tagline"] = pack["progression"]["endings"][0]["title"]
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(pack, indent=2), encoding="utf-8")
    report = creatorpack.lint(_PathLike(path))
    spoilers = [f for f in report.findings if f.code == "spoiler-title"]
    assert spoilers
    assert all(f.line is not None and f.column is not None for f in spoilers)


@pytest.mark.parametrize(
    ("word", "candidates", "expected"),
    [
        ("titel", ["title", "language"], "title"),
        ("mara_portait", ["mara_portrait", "mara"], "mara_portrait"),
        ("EN", ["zh", "en"], "en"),
        ("fr", ["zh", "zh-CN", "en"], None),
        ("colour", ["pack_id", "title"], None),
        ("guidence", ["guidance"], "guidance"),
        ("title", ["title"], None),
    ],
)
def test_nearest_candidate(word: str, candidates: list[str], expected: str | None) -> None:
    assert suggest.nearest(word, candidates) == expected


def test_distance_counts_a_transposition_as_one_edit() -> None:
    assert suggest.distance("titel", "title") == 1
    assert suggest.distance("abc", "abc") == 0
    assert suggest.distance("kitten", "sitting") == 3
    assert suggest.distance("kitten", "sitting", limit=1) == 2


def test_known_lists_say_how_many_more() -> None:
    assert suggest.known(["a", "b"]) == "a, b"
    assert suggest.known([str(i) for i in range(15)], shown=3) == "0, 1, 2 and 12 more"


def test_any_mapping_is_a_source() -> None:
    pack = example("0.5", "minimal")
    report = creatorpack.validate(MappingProxyType(pack))
    assert report.valid
    assert report.document == pack
    nested = {**pack, "manifest": MappingProxyType(pack["manifest"])}
    with pytest.raises(
        creatorpack.NotJSONDataError, match=r"^/manifest: .* is a mappingproxy, not a JSON value; use a dict$"
    ):
        creatorpack.validate(nested)


@pytest.mark.parametrize(
    ("version", "parent", "member", "typo", "pointer", "label"),
    [
        ("0.5", (), "runtime", "runtme", "", "pack"),
        ("0.5", ("entries", 0), "title", "tilte", "/entries/0", "entries[0]"),
        ("0.4", ("runtime", "entries", 0), "initial_state", "initial_sate", "/runtime/entries/0", "entries[0]"),
        ("0.3", ("runtime", "state"), "schema", "shema", "/runtime/state", "state"),
    ],
)
def test_a_misspelt_required_member_of_an_open_object_is_named(
    version: str, parent: tuple[str | int, ...], member: str, typo: str, pointer: str, label: str
) -> None:
    pack = example(version, "rich")
    node: Any = pack
    for token in parent:
        node = node[token]
    node[typo] = node.pop(member)
    report = creatorpack.validate(json.dumps(pack, indent=2))
    found = [v for v in report.violations if v.code == "required" and v.pointer.startswith(pointer)]
    expected = (
        f"{label}: missing required property '{member}'; '{typo}' looks like a misspelling of it: "
        f"did you mean '{member}'?"
    )
    assert [v.message for v in found] == [expected]
    # Regression: it pointed at the object's '{' (1:1 for the root), not at the misspelt key.
    [violation] = found
    assert violation.pointer == f"{pointer}/{typo}"
    assert violation.line is not None
    assert violation.column is not None
    line = json.dumps(pack, indent=2).splitlines()[violation.line - 1]
    assert line[violation.column - 1 :].startswith(f'"{typo}"')


@pytest.mark.parametrize(
    ("typo", "meant"),
    [("closing", "closing_text"), ("closing_txt", "closing_text"), ("guide", "guidance"), ("prio", "priority")],
)
def test_a_misspelt_member_of_a_closed_object_is_one_error_with_a_suggestion(typo: str, meant: str) -> None:
    """Regression: 'closing' for 'closing_text' gave two errors (unknown, missing) and no suggestion."""
    pack = example("0.5", "rich")
    ending = pack["progression"]["endings"][0]
    ending[typo] = ending.pop(meant)
    violations = creatorpack.validate(pack).violations
    assert [v.message for v in violations] == [
        f"endings[0]: unknown property '{typo}'; did you mean '{meant}', which is missing?"
    ]


@pytest.mark.parametrize(("typo", "meant"), [("al", "all"), ("an", "any"), ("no", "not"), ("contain", "contains")])
def test_a_short_op_typo_is_suggested(typo: str, meant: str) -> None:
    """Regression: 'al', 'an' and 'no' got no suggestion (two letters allowed no edit)."""
    pack = example("0.5", "rich")
    rule = pack["runtime"]["rules"][0]
    rule["when"] = {"op": typo, "conditions": [rule["when"]]}
    if meant == "not":
        rule["when"] = {"op": typo, "condition": rule["when"]["conditions"][0]}
    if meant == "contains":
        rule["when"] = {"op": typo, "path": "/inventory", "value": "key"}
    messages = [v.message for v in creatorpack.validate(pack).violations if v.code == "unknown-op"]
    assert len(messages) == 1
    assert messages[0].endswith(f"; did you mean '{meant}'?")


def test_a_misspelt_protocol_version_is_named() -> None:
    pack = example("0.4", "minimal")
    pack["protocol_verison"] = pack.pop("protocol_version")
    (violation,) = creatorpack.validate(pack).violations
    assert violation.message.startswith(
        "pack: missing protocol_version ('protocol_verison' looks like a misspelling of it); declare one of"
    )


def test_a_version_written_as_a_number_is_asked_for_as_a_string() -> None:
    pack = example("0.4", "minimal")
    pack["protocol_version"] = 0.4
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.pointer, violation.code) == ("/protocol_version", "unsupported-version")
    assert violation.message == "protocol_version: 0.4 is a number; write the version as a string, '0.4'"


def test_a_value_of_another_version_says_which() -> None:
    pack = example("0.3", "rich")
    index = next(i for i, a in enumerate(pack["assets"]) if a["mime_type"] == "image/png")
    pack["assets"][index]["mime_type"] = "image/apng"
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.pointer, violation.code) == (f"/assets/{index}/mime_type", "enum")
    assert violation.message.endswith("; 'image/apng' exists from 0.5, and this pack declares 0.3")
    pack["assets"][index]["mime_type"] = "image/pnj"  # in no version: the nearest allowed value
    (violation,) = creatorpack.validate(pack).violations
    assert violation.message.endswith("; did you mean 'image/png'?")


def test_a_misspelt_member_of_another_kind_is_suggested() -> None:
    pack = example("0.5", "rich")
    index, guided = next((i, a) for i, a in enumerate(pack["progression"]["achievements"]) if "guidance" in a)
    guided["guidence"] = guided.pop("guidance")
    (unknown,) = creatorpack.validate(pack).violations  # not also "missing 'visibility'", which a guided one has not
    assert (unknown.pointer, unknown.code) == (f"/progression/achievements/{index}/guidence", "additional-property")
    assert unknown.message.endswith(
        "did you mean 'guidance' (which makes it another kind of object, one without 'visibility')?"
    )
    del guided["title"]  # both kinds require a title: still missing
    found = sorted((v.pointer, v.code) for v in creatorpack.validate(pack).violations)
    assert found == [
        (f"/progression/achievements/{index}", "required"),
        (f"/progression/achievements/{index}/guidence", "additional-property"),
    ]
    (required,) = (v for v in creatorpack.validate(pack).violations if v.code == "required")
    assert required.message.endswith("missing required property 'title'")


def test_a_null_where_a_string_belongs_is_named_once() -> None:
    pack = example("0.5", "rich")
    pack["progression"]["achievements"][0]["artwork_asset_id"] = None
    (violation,) = creatorpack.validate(pack).violations
    assert violation.message.endswith("expected string, got null")


def test_a_guided_achievement_without_its_guidance_is_told_of_it() -> None:
    pack = example("0.5", "rich")
    index, guided = next((i, a) for i, a in enumerate(pack["progression"]["achievements"]) if "guidance" in a)
    del guided["guidance"]
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.pointer, violation.code) == (f"/progression/achievements/{index}", "required")
    assert violation.message.endswith(
        "missing required property 'visibility'; or add 'guidance', which makes it another kind of object, "
        "one without 'visibility'"
    )


def test_a_member_of_a_kind_the_object_cannot_be_is_not_suggested() -> None:
    pack = example("0.5", "rich")
    index, guided = next((i, a) for i, a in enumerate(pack["progression"]["achievements"]) if "guidance" in a)
    guided["visiblity"] = "visible"  # a guided achievement has no visibility: adding it would not help
    (violation,) = creatorpack.validate(pack).violations
    assert violation.pointer == f"/progression/achievements/{index}/visiblity"
    assert "did you mean" not in violation.message
    assert "; remove it or use one of: id, title, description, when, artwork_asset_id, guidance" in violation.message
