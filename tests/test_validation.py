"""The library API: sources, report shape, version handling, pointers, line and column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import creatorpack
from creatorpack.validation import pointer

from .conftest import example, put


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
