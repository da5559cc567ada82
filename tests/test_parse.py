"""Bad input never crashes or hangs: each kind gets a clear error with its code and place."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

import creatorpack
from creatorpack import DocumentError, LimitError, NotAnObjectError, NotJSONError, SourceTypeError, UnreadableError
from creatorpack._json import json_type, parse_pointer, pointer, show

VALID_03: dict[str, Any] = {
    "protocol_version": "0.3",
    "manifest": {"pack_id": "p", "revision": 1, "title": "T", "language": "en"},
    "runtime": {
        "runtime_id": "r",
        "state": {
            "schema": {
                "type": "object",
                "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 3}},
                "additionalProperties": False,
            }
        },
        "entries": [{"initial_state": {"n": 0}}],
    },
    "instructions": {},
    "entries": [],
    "provenance": [],
}


@pytest.mark.parametrize(
    ("data", "error", "code", "line", "column", "words"),
    [
        (b"\xef\xbb\xbf{}", NotJSONError, "invalid-json", 1, 1, "byte order mark"),
        (b'{"a": "\xff"}', NotJSONError, "invalid-json", 1, 8, "UTF-8"),
        (b'{\n  "a": 1\n} trailing', NotJSONError, "invalid-json", 3, 3, "after the JSON document"),
        (b'{"a": NaN}', NotJSONError, "invalid-json", 1, 7, "NaN"),
        (b'{"a": [Infinity]}', NotJSONError, "invalid-json", 1, 8, "NaN and Infinity"),
        (b'{"a": -Infinity}', NotJSONError, "invalid-json", 1, 7, "NaN and Infinity are not JSON values"),
        (b'{"a":\n [-NaN]}', NotJSONError, "invalid-json", 2, 3, "NaN and Infinity are not JSON values"),
        (b'{"a": -x}', NotJSONError, "invalid-json", 1, 8, "invalid JSON: no digit after sign"),
        (b'{"a": 1e400}', NotJSONError, "invalid-json", 1, 7, "overflows a double"),
        (b'{"a": 1,}', NotJSONError, "invalid-json", 1, 8, "invalid JSON"),
        (b"", NotJSONError, "invalid-json", 1, 1, "invalid JSON"),
        # Hand-written mistakes get the fix as well as the place.
        (b'{"a": 1, // note\n}', NotJSONError, "invalid-json", 1, 10, "; JSON has no comments: remove it"),
        (b'/* a */ {"a": 1}', NotJSONError, "invalid-json", 1, 1, "; JSON has no comments: remove it"),
        (b"{'a': 1}", NotJSONError, "invalid-json", 1, 2, "take double quotes"),
        (b"{\"a\": ['x']}", NotJSONError, "invalid-json", 1, 8, "take double quotes"),
        (b"{a: 1}", NotJSONError, "invalid-json", 1, 2, 'a key is a string in double quotes, e.g. "key": value'),
        (b'{"a": 1\n "b": 2}', NotJSONError, "invalid-json", 2, 2, "',' or '}'; a comma is missing before this"),
        (b'{"a": [1\n {}]}', NotJSONError, "invalid-json", 2, 2, "',' or ']'; a comma is missing before this"),
        (b'{"a": "x\ny"}', NotJSONError, "invalid-json", 1, 9, "a line break or tab inside a string is written \\n"),
        (b'{"a": tru}', NotJSONError, "invalid-json", 1, 7, "invalid literal, expected 'true'"),
        (b"[1, 2]", NotAnObjectError, "not-an-object", 1, 1, "array"),
        (b'"pack"', NotAnObjectError, "not-an-object", 1, 1, "string"),
        (b"null", NotAnObjectError, "not-an-object", 1, 1, "null"),
    ],
)
def test_unreadable_documents(
    data: bytes, error: type[DocumentError], code: str, line: int, column: int, words: str
) -> None:
    with pytest.raises(error) as caught:
        creatorpack.validate(data)
    assert caught.value.code == code
    assert (caught.value.line, caught.value.column) == (line, column)
    assert words in str(caught.value)
    assert caught.value.exit_code == 2


@pytest.mark.parametrize(
    ("codec", "name"),
    [
        ("utf-16", "UTF-16LE"),  # Python writes a byte order mark, little-endian here
        ("utf-16-le", "UTF-16LE"),
        ("utf-16-be", "UTF-16BE"),
        ("utf-32", "UTF-32LE"),
        ("utf-32-le", "UTF-32LE"),
        ("utf-32-be", "UTF-32BE"),
    ],
)
def test_utf_16_and_utf_32_are_named(codec: str, name: str) -> None:
    with pytest.raises(NotJSONError) as caught:
        creatorpack.validate('{\n  "protocol_version": "0.5"\n}'.encode(codec))
    assert str(caught.value) == f"saved as {name}, not UTF-8; save the file as UTF-8"
    assert (caught.value.line, caught.value.column) == (1, 1)


def test_binary_junk_is_not_json() -> None:
    junk = bytes(range(256)) * 64
    with pytest.raises(NotJSONError):
        creatorpack.validate(junk)


@pytest.mark.parametrize("depth", [255, 1025, 10_000])
def test_nesting_past_the_limit_is_a_limit_error_not_a_crash(depth: int) -> None:
    data = b"[" * (depth - 1) + b"]" * (depth - 1)
    with pytest.raises(LimitError, match="deeper than 254 levels"):
        creatorpack.validate(b'{"x": ' + data + b"}")


def test_nesting_at_the_limit_is_read() -> None:
    data = b"[" * 253 + b"]" * 253  # 254 levels with the root object
    report = creatorpack.validate(b'{"protocol_version": "0.3", "x": ' + data + b"}")
    assert report.version == "0.3"
    assert {v.code for v in report.violations} == {"required"}  # read, checked and reported


def test_deep_parsed_input_is_a_limit_error() -> None:
    deep: list[object] = []
    for _ in range(300):
        deep = [deep]
    with pytest.raises(LimitError):
        creatorpack.validate({"protocol_version": "0.3", "x": deep})


def test_size_limit(tmp_path: Path) -> None:
    validator = creatorpack.Validator(max_bytes=1000)
    at_limit = json.dumps(VALID_03).encode()
    at_limit += b" " * (1000 - len(at_limit))
    assert validator.validate(at_limit).valid
    with pytest.raises(LimitError, match="1,001 bytes"):
        validator.validate(at_limit + b" ")
    big = tmp_path / "big.json"
    big.write_bytes(at_limit + b" " * 10)
    with pytest.raises(LimitError, match="larger than the limit"):
        validator.validate(big)


def test_two_hundred_megabytes_are_refused_quickly(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:
        handle.write(b'{"protocol_version": "0.3", "pad": "')
        handle.truncate(200 * 1024 * 1024)
    started = time.monotonic()
    with pytest.raises(LimitError):
        creatorpack.validate(huge)
    # Refused after reading at most the limit, not the whole file (a generous bound, not a benchmark).
    assert time.monotonic() - started < 30


def test_integers_beyond_64_bits_are_exact_in_messages() -> None:
    doc = dict(VALID_03, manifest=dict(VALID_03["manifest"], revision=2**70))
    report = creatorpack.validate(json.dumps(doc))
    (violation,) = report.violations
    assert violation.pointer == "/manifest/revision"
    assert violation.code == "maximum"
    assert str(2**70) in violation.message


def test_big_integers_where_any_value_is_allowed_are_valid() -> None:
    doc = dict(VALID_03, instructions={"seed": 2**80, "negative": -(2**70)})
    assert creatorpack.validate(json.dumps(doc)).valid


def test_duplicate_keys_are_reported_at_the_repeated_name() -> None:
    text = '{\n "protocol_version": "0.3",\n "instructions": {"a": 1,\n  "a": 2}\n}'
    report = creatorpack.validate(text)
    dup = [v for v in report.violations if v.code == "duplicate-key"]
    assert len(dup) == 1
    assert dup[0].pointer == "/instructions/a"
    assert (dup[0].line, dup[0].column) == (4, 3)


def test_duplicate_keys_hidden_behind_escaped_colons_are_found() -> None:
    text = '{"protocol_version": "0.3", "x": {"k": 1, "k": 2}, "y": "\\u003a"}'
    codes = [v.code for v in creatorpack.validate(text).violations]
    assert "duplicate-key" in codes


def test_duplicate_protocol_version_is_reported() -> None:
    text = json.dumps(VALID_03)[:-1] + ', "protocol_version": "0.3"}'
    report = creatorpack.validate(text)
    assert [v.code for v in report.violations] == ["duplicate-key"]
    assert report.violations[0].pointer == "/protocol_version"


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(UnreadableError, match="no such file"):
        creatorpack.validate(tmp_path / "nope.json")
    with pytest.raises(UnreadableError, match="directory"):
        creatorpack.validate(tmp_path)


@pytest.mark.parametrize(
    ("source", "shown"),
    [(42, "cannot validate an int: "), (None, "cannot validate None: "), ([1], "cannot validate a list: ")],
)
def test_str_is_json_text_and_wrong_types_are_type_errors(source: object, shown: str) -> None:
    assert creatorpack.validate(json.dumps(VALID_03)).valid
    with pytest.raises(SourceTypeError) as caught:
        creatorpack.validate(source)  # type: ignore[arg-type]
    assert isinstance(caught.value, TypeError)
    assert isinstance(caught.value, creatorpack.CreatorpackError)
    assert str(caught.value).startswith(shown)
    assert "pathlib.Path" in str(caught.value)


@pytest.mark.parametrize("text", ["pack.json", "examples/0.5/minimal.JSON ", "./nested/dir/p.json"])
def test_str_that_looks_like_a_path_hints_at_path(text: str) -> None:
    with pytest.raises(NotJSONError, match=r"a str is JSON text: to validate the file, pass Path\("):
        creatorpack.validate(text)


def test_str_naming_an_existing_file_hints_at_path(tmp_path: Path) -> None:
    path = tmp_path / "pack"
    path.write_text(json.dumps(VALID_03), encoding="utf-8")
    with pytest.raises(NotJSONError, match="pass Path"):
        creatorpack.validate(str(path))


@pytest.mark.parametrize("text", ["{pack.json", "nope", '"a.json" x', "1.json\n"])
def test_str_that_is_no_path_gets_no_hint(text: str) -> None:
    with pytest.raises(NotJSONError) as caught:
        creatorpack.validate(text)
    assert "Path(" not in str(caught.value)


@given(st.lists(st.one_of(st.text(max_size=8), st.integers(min_value=0, max_value=99)), max_size=6))
def test_pointer_round_trips(path: list[str | int]) -> None:
    text = pointer(path)
    assert parse_pointer(text) == tuple(str(token) for token in path)


def test_pointer_helpers() -> None:
    assert pointer(("a/b", "c~d", 3)) == "/a~1b/c~0d/3"
    assert parse_pointer("/a~1b/c~0d/3") == ("a/b", "c~d", "3")
    assert parse_pointer("a") is None
    assert parse_pointer("") == ()
    assert json_type(True) == "boolean"
    assert json_type(1.5) == "number"
    assert json_type({}) == "object"
    assert json_type(set()) == "set"
    assert show(None) == "null"
    assert show("x" * 100) == repr("x" * 59 + "…")


@pytest.mark.parametrize("text", [b"", b" \n\t", ""])
def test_empty_document_says_so(text: bytes | str) -> None:
    with pytest.raises(NotJSONError) as caught:
        creatorpack.validate(text)
    assert (str(caught.value), caught.value.line, caught.value.column) == (
        "invalid JSON: empty document",
        1,
        1,
    )


def test_empty_file_says_so(tmp_path: Path) -> None:
    path = tmp_path / "pack.json"
    path.write_bytes(b"\n")
    with pytest.raises(NotJSONError, match=r"^invalid JSON: empty file$"):
        creatorpack.validate(path)


class _Members(list[tuple[str, Any]]):
    """An object's members in order, repeats allowed (a dict would drop them)."""


_KEYS = st.sampled_from(["a", "b", "c", ":", "a:b", "\\u003a", 'q"'])
_SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["", "x", ":", '":', "é"])
_TREES = st.recursive(
    _SCALARS,
    lambda children: st.lists(children, max_size=3) | st.lists(st.tuples(_KEYS, children), max_size=4).map(_Members),
    max_leaves=12,
)


def _indented(node: object, depth: int = 1) -> str:
    """JSON text in orjson's two-space indented form (how the CLI writes packs), repeated members kept."""
    pad, end = "\n" + "  " * depth, "\n" + "  " * (depth - 1)
    if isinstance(node, _Members):
        if not node:
            return "{}"
        members = [f"{json.dumps(key, ensure_ascii=False)}: {_indented(value, depth + 1)}" for key, value in node]
        return "{" + pad + ("," + pad).join(members) + end + "}"
    if isinstance(node, list):
        return "[" + pad + ("," + pad).join(_indented(item, depth + 1) for item in node) + end + "]" if node else "[]"
    return json.dumps(node, ensure_ascii=False)


@given(members=st.lists(st.tuples(_KEYS, _TREES), max_size=4).map(_Members), newline=st.booleans())
def test_the_canonical_form_shortcut_finds_every_duplicate_the_exact_reader_finds(
    members: _Members, newline: bool
) -> None:
    from creatorpack.contract import _parse

    text = (_indented(members) + ("\n" if newline else "")).encode()
    exact = _parse.duplicate_keys(text)
    assert _parse.parse(text).duplicates == exact
    assert _parse.may_repeat_keys(text) or not exact
    if not exact:  # duplicate-free text in this form takes the one-comparison path
        option = orjson.OPT_INDENT_2 | (orjson.OPT_APPEND_NEWLINE if newline else 0)
        assert text == orjson.dumps(orjson.loads(text), option=option)
