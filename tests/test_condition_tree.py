"""The condition tree (creatorpack.contract.conditions): parsed once, rendered back, described in words."""

from __future__ import annotations

import itertools
import os
import pickle
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from creatorpack.contract.conditions import (
    AllOf,
    AnyOf,
    Compare,
    Goal,
    LiteralCond,
    Not,
    Observed,
    describe,
    leaves,
    outline,
    parse,
    to_json,
)
from creatorpack.errors import ConditionError

_values = st.none() | st.booleans() | st.integers(-5, 25) | st.floats(allow_nan=False) | st.sampled_from(["a", "b"])
_leaf = st.one_of(
    st.builds(
        lambda op, path, value: {"op": op, "path": path, "value": value},
        st.sampled_from(["eq", "ne", "gt", "gte", "lt", "lte", "contains"]),
        st.sampled_from(["", "/trust", "/flags/met", "/a~1b", "no pointer"]),
        _values | st.lists(st.sampled_from(["a", "b"]), max_size=2),
    ),
    st.builds(
        lambda ident, value: {"op": "observed", "id": ident, "value": value},
        st.sampled_from(["helped", "way"]),
        st.booleans() | st.sampled_from(["north", "south"]),
    ),
    st.builds(lambda value: {"op": "literal", "value": value}, st.booleans()),
)
conditions = st.recursive(
    _leaf,
    lambda inner: (
        st.builds(
            lambda op, children: {"op": op, "conditions": children},
            st.sampled_from(["all", "any"]),
            st.lists(inner, min_size=1, max_size=3),
        )
        | st.builds(lambda child: {"op": "not", "condition": child}, inner)
    ),
    max_leaves=10,
)


def _at(raw: Any, at: tuple[str | int, ...]) -> Any:
    for step in at:
        raw = raw[step]
    return raw


@given(conditions)
def test_parsing_and_rendering_give_the_json_back(raw: dict[str, Any]) -> None:
    tree = parse(raw)
    assert to_json(tree) == raw
    assert parse(to_json(tree)) == tree


@given(conditions)
def test_every_node_knows_where_it_stands(raw: dict[str, Any]) -> None:
    pack = {"runtime": {"rules": [{"when": raw}]}}
    tree = parse(raw, ("runtime", "rules", 0, "when"))
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        assert to_json(node) == _at(pack, node.at)
        if isinstance(node, AllOf | AnyOf):
            stack.extend(node.conditions)
        elif isinstance(node, Not):
            stack.append(node.condition)


@given(conditions)
def test_the_words_name_every_leaf(raw: dict[str, Any]) -> None:
    tree = parse(raw)
    words = str(tree)
    assert words == describe(tree)
    for leaf in leaves(tree):
        if isinstance(leaf, Compare) and leaf.path:
            assert leaf.path in words
        elif isinstance(leaf, Observed):
            assert leaf.id in words
    assert words.count("(") == words.count(")")


def test_a_parsed_condition_has_typed_nodes() -> None:
    tree = parse(
        {
            "op": "all",
            "conditions": [
                {"op": "gte", "path": "/trust", "value": 3},
                {"op": "not", "condition": {"op": "observed", "id": "helped", "value": False}},
                {
                    "op": "any",
                    "conditions": [
                        {"op": "contains", "path": "/clues", "value": "key"},
                        {"op": "literal", "value": True},
                    ],
                },
            ],
        }
    )
    assert tree == AllOf(
        (
            Compare("gte", "/trust", 3),
            Not(Observed("helped", False)),
            AnyOf((Compare("contains", "/clues", "key"), LiteralCond(True))),
        )
    )
    assert tree.conditions[0].tokens == ("trust",)  # type: ignore[union-attr]
    assert str(tree) == '/trust is at least 3 and not (helped was answered false) and (/clues contains "key" or always)'


@given(conditions)
def test_the_outline_nests_the_groups_and_says_the_rest_as_describe_does(raw: dict[str, Any]) -> None:
    tree = parse(raw)
    lines = outline(tree)
    assert lines[0][0] == 0
    heads = {"all of these hold:", "any of these holds:", "this does not hold:"}
    for (depth, words), (below, _) in itertools.pairwise(lines):
        assert below <= depth + 1
        assert (below == depth + 1) == (words in heads)  # only a head opens a list, and it always does
    assert lines[-1][1] not in heads
    told = " ".join(words for _, words in lines)
    for leaf in leaves(tree):
        assert describe(leaf) in told


def test_an_outline_and_the_words_quote_the_packs_questions_and_answers() -> None:
    observations: dict[str, dict[str, Any]] = {
        "lamp": {"type": "choice", "question": "What about the lamp?", "choices": {"relit": "Relit it"}},
        "helped": {"type": "boolean", "question": "Did they help?"},
    }
    tree = parse(
        {
            "op": "any",
            "conditions": [
                {"op": "observed", "id": "lamp", "value": "relit"},
                {"op": "not", "condition": {"op": "gte", "path": "/trust", "value": 3}},
                {
                    "op": "not",
                    "condition": {
                        "op": "all",
                        "conditions": [{"op": "literal", "value": False}, {"op": "eq", "path": "", "value": {}}],
                    },
                },
                {"op": "all", "conditions": [{"op": "observed", "id": "helped", "value": True}]},
                {"op": "observed", "id": "unknown", "value": "x"},
            ],
        }
    )
    assert outline(tree, observations) == [
        (0, "any of these holds:"),
        (1, 'lamp (What about the lamp?) was answered "relit" (Relit it)'),
        (1, "not (/trust is at least 3)"),
        (1, "this does not hold:"),
        (2, "all of these hold:"),
        (3, "never"),
        (3, "the whole state is {}"),
        (1, "helped (Did they help?) was answered true"),
        (1, 'unknown was answered "x"'),
    ]
    assert describe(tree, observations) == (
        'lamp (What about the lamp?) was answered "relit" (Relit it) or not (/trust is at least 3)'
        " or not (never and the whole state is {}) or helped (Did they help?) was answered true"
        ' or unknown was answered "x"'
    )
    assert str(tree) == describe(tree) != describe(tree, observations)  # without them: the ids alone


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("literal", "must be an object"),
        ({"op": "increase", "path": "/trust", "value": 1}, "unknown condition op 'increase'"),
        ({"op": "all", "conditions": {"op": "literal", "value": True}}, "must be a list"),
        ({"op": "not", "condition": [1]}, "must be an object"),
    ],
)
def test_what_is_no_condition_is_refused_by_name(raw: Any, message: str) -> None:
    with pytest.raises(ConditionError, match=message):
        parse(raw)


@given(st.text(alphabet=st.characters(blacklist_characters=":"), min_size=1), st.text())
def test_goals_round_trip_through_their_names(kind: str, ident: str) -> None:
    goal = Goal(kind, ident)
    assert Goal.parse(str(goal)) == goal


@pytest.mark.parametrize("text", ["a1", ":a1", ""])
def test_a_goal_needs_a_kind(text: str) -> None:
    with pytest.raises(ValueError, match="kind:id"):
        Goal.parse(text)


def test_a_goal_id_may_hold_a_colon() -> None:
    assert Goal.parse("rule:a:b") == Goal("rule", "a:b")


def test_a_goal_unpickled_in_another_process_is_found_by_its_own_hash() -> None:
    """A goal keeps its hash; one pickled where strings hash otherwise (``-j`` workers) is made again, not copied."""
    script = (
        "import pickle, sys\n"
        "from creatorpack.contract.conditions import Goal\n"
        "sys.stdout.buffer.write(pickle.dumps([Goal('rule', 'r3'), Goal('achievement', 'a1')]))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    made = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True, env=env).stdout
    goals = pickle.loads(made)  # bytes this test made
    assert {Goal("rule", "r3"): 1, Goal("achievement", "a1"): 2}.get(goals[0]) == 1
    assert goals[1] in {Goal("achievement", "a1")}
    assert [hash(g) for g in goals] == [hash(("rule", "r3")), hash(("achievement", "a1"))]
