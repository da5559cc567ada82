"""The duplicate-key check of JSON request bodies (the contract's, which packs use): quick, then exact."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from creatorpack.contract import may_repeat_keys as may_repeat
from creatorpack.service.api.duplicates import duplicate_key, first_duplicate

KEYS = st.text(alphabet=st.sampled_from('ab:"\\\u00e9'), max_size=4)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=12,
)


@given(st.dictionaries(KEYS, VALUES, max_size=4))
def test_a_body_without_repeated_keys_passes_the_quick_check(value: dict[str, Any]) -> None:
    for body in (orjson.dumps(value), json.dumps(value, indent=1).encode(), json.dumps(value).encode()):
        assert first_duplicate(body) is None
        assert not may_repeat(body) or b"\\u003" in body


@given(st.dictionaries(KEYS, VALUES, min_size=1, max_size=4), st.data())
def test_a_repeated_key_is_always_found(value: dict[str, Any], data: st.DataObject) -> None:
    key = data.draw(st.sampled_from(sorted(value)))
    body = orjson.dumps(value)
    repeated = body[:-1] + b"," + orjson.dumps(key) + b":" + orjson.dumps(value[key]) + b"}"
    assert may_repeat(repeated)
    assert first_duplicate(repeated) == ((), key)


@pytest.mark.parametrize(
    ("body", "found"),
    [
        (b'{"a": [{"x": 1}, {"y": 1, "y": 2}]}', (("a", 1), "y")),
        (b'{"a": {"b": 1, "b": {"c": 1, "c": 2}}}', (("a",), "b")),
        (b'{"a\\u003a": 1, "a:": 2}', ((), "a:")),
        (b'{"a": 1e400, "a": 1}', ((), "a")),
        (b'{"a:b": "c:d", "e": "\\\\u003a"}', None),
        (b"[1, 2]", None),
    ],
)
def test_the_first_repeated_key_and_where(body: bytes, found: tuple[tuple[str | int, ...], str] | None) -> None:
    assert first_duplicate(body) == found


def test_the_message_names_the_key_and_the_object_cut_short() -> None:
    assert duplicate_key(("observations",), "helped") == "duplicate key 'helped' in /observations"
    assert duplicate_key((), "turn") == "duplicate key 'turn' in the top-level object"
    message = duplicate_key(("a" * 1000, 3), "k" * 1000)
    assert message == f"duplicate key '{'k' * 59}…' in /{'a' * 59}…"
