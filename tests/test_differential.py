"""The fast path (orjson + jsonschema-rs) agrees with python-jsonschema, the reference implementation.

Both run the same shipped schemas: creatorpack selects the version's schema itself; the reference
runs the bundled ``pack.json``, which selects it with ``if``/``then`` on ``protocol_version``.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import creatorpack
from creatorpack.contract import schema

from .conftest import VERSIONS, example


@functools.cache
def reference() -> Any:
    bundled = schema.bundle()
    jsonschema.Draft202012Validator.check_schema(bundled)
    return jsonschema.Draft202012Validator(bundled)


def agree(doc: Any) -> None:
    fast = creatorpack.validate(doc).valid
    slow = reference().is_valid(doc)
    assert fast == slow, [e.message for e in reference().iter_errors(doc)][:5]


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += paths(value, (*prefix, index))
    return found


def parent_of(doc: Any, path: tuple[Any, ...]) -> Any:
    node = doc
    for token in path[:-1]:
        node = node[token]
    return node


# Strings never end in "\n": python-jsonschema runs patterns with Python's re, where "$" also
# matches before a final newline, so it would accept the Id "a\n"; ECMA-262 (the JSON Schema
# dialect), jsonschema-rs and the contract do not. test_id_with_trailing_newline covers that case.
_text = st.text(alphabet=st.characters(blacklist_characters="\n", blacklist_categories=["Cs"]), max_size=6)
_boundary_strings = st.sampled_from(
    [
        "",
        " ",
        "\u3000",
        "a",
        "a" * 80,
        "a" * 81,
        "x" * 200,
        "x" * 201,
        "x" * 600,
        "x" * 601,
        "0" * 64,
        "A" * 64,
        "zh",
        "en",
        "fr",
        "image",
        "audio",
        "video",
        "reward_only",
        "guidance",
        "literal",
        "eq",
        "not",
        "service.progression/1",
        "service.progression/2",
        "background",
        "/conditions/0",
        "/conditions/01",
        "12345678-1234-1234-1234-123456789abc",
    ]
)
_boundary_numbers = st.sampled_from(
    [
        -1001,
        -1000,
        -1,
        0,
        1,
        2,
        4,
        5,
        8,
        9,
        31,
        32,
        255,
        256,
        1000,
        1001,
        10000,
        10001,
        100000,
        100001,
        32000000,
        32000001,
        1073741824,
        1073741825,
        9007199254740991,
        9007199254740992,
        -9007199254740992,
        0.5,
        1.0,
        1.5,
        0.0,
        -0.1,
    ]
)
_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**62), 2**62),
    st.floats(allow_nan=False, allow_infinity=False),
    _text,
    _boundary_strings,
    _boundary_numbers,
)
_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_text, inner, max_size=3)),
    max_leaves=6,
)


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    doc = example(draw(st.sampled_from(VERSIONS)), draw(st.sampled_from(["minimal", "rich"])))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths(doc)))
        action = draw(st.sampled_from(["replace", "replace", "replace", "delete", "add", "duplicate"]))
        if not path:
            continue
        parent = parent_of(doc, path)
        key = path[-1]
        if action == "replace":
            parent[key] = draw(_value)
        elif action == "delete" and isinstance(parent, dict):
            del parent[key]
        elif action == "add" and isinstance(parent[key], dict):
            parent[key][draw(_text)] = draw(_value)
        elif action == "duplicate" and isinstance(parent[key], list) and parent[key]:
            parent[key].append(copy.deepcopy(parent[key][0]))
    return doc


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_fast_path_agrees_with_reference_on_mutations(doc: Any) -> None:
    agree(doc)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", ["minimal", "rich"])
def test_examples_agree(version: str, kind: str) -> None:
    doc = example(version, kind)
    agree(doc)
    assert reference().is_valid(doc)


def test_bound_documents_agree() -> None:
    from .test_bounds import CASES, apply

    for case in CASES:
        for doc in apply(case):
            agree(doc)


def test_id_with_trailing_newline() -> None:
    doc = example("0.3", "minimal")
    doc["manifest"]["pack_id"] = "abc\n"
    (violation,) = creatorpack.validate(json.loads(json.dumps(doc))).violations
    assert (violation.pointer, violation.code) == ("/manifest/pack_id", "invalid-id")
