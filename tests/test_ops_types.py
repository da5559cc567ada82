"""Condition and effect ops are closed types, defined once in play and shared by lint and the contract."""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest

from creatorpack.contract.schema import document
from creatorpack.errors import ConditionError, EffectError
from creatorpack.lint import LintConfig, lint
from creatorpack.lint import conditions as lint_conditions
from creatorpack.play import conditions, state
from creatorpack.play.conditions import (
    COMPARISON_OPS,
    CONDITION_OPS,
    ORDER_OPS,
    ComparisonOp,
    ConditionOp,
    OrderOp,
    compile_condition,
)
from creatorpack.play.state import EFFECT_OPS, CompiledEffect, EffectOp

from .conftest import example

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "trust": {"type": "integer", "minimum": 0, "maximum": 10},
        "items": {"type": "array", "items": {"enum": ["key", "map"]}},
    },
}


def _enums(node: Any) -> list[set[Any]]:
    """Every ``op`` enum or const in a schema node, outermost first."""
    found: list[set[Any]] = []
    if isinstance(node, dict):
        op = node.get("properties", {}).get("op") if isinstance(node.get("properties"), dict) else None
        if isinstance(op, dict):
            found.append(set(op["enum"]) if "enum" in op else {op["const"]})
        for key in ("if", "then", "else"):
            found.extend(_enums(node.get(key)))
        for sub in node.get("allOf", ()):
            found.extend(_enums(sub))
    return found


def test_the_types_are_the_sets() -> None:
    assert set(get_args(ConditionOp)) == CONDITION_OPS
    assert get_args(ComparisonOp) == COMPARISON_OPS
    assert get_args(OrderOp) == ORDER_OPS
    assert get_args(EffectOp) == EFFECT_OPS == ("increment", "add", "remove")
    assert set(ORDER_OPS) <= set(COMPARISON_OPS)
    assert set(COMPARISON_OPS) <= CONDITION_OPS


def test_the_condition_ops_are_the_contracts() -> None:
    common = document("common.json")["$defs"]
    enums = _enums(common["Condition"])
    assert enums[0] == set(COMPARISON_OPS)
    assert enums[-1] == CONDITION_OPS


def test_the_effect_ops_are_the_contracts() -> None:
    common = document("common.json")["$defs"]
    assert set().union(*_enums(common["Effect"])) == set(EFFECT_OPS)


def test_lint_derives_its_sets_from_play() -> None:
    assert lint_conditions.EFFECT_OPS is state.EFFECT_OPS
    doc = example("0.5", "rich")
    doc["runtime"]["rules"][3]["effects"][0]["op"] = "increase"
    (finding,) = lint(json.dumps(doc), LintConfig(reachability=False)).findings
    assert finding.code == "unknown-effect-op"
    assert f"({', '.join(EFFECT_OPS)})" in finding.message


def test_the_dispatch_tables_are_keyed_by_the_op_types() -> None:
    assert tuple(conditions._SYMBOLS) == ORDER_OPS
    assert tuple(conditions._ORDER_TESTS) == ORDER_OPS


@pytest.mark.parametrize("op", ORDER_OPS)
@pytest.mark.parametrize("value", [2, 3, 4])
def test_order_ops_agree_between_generated_code_and_closures(op: OrderOp, value: int) -> None:
    condition = {"op": op, "path": "/trust", "value": value}
    generated = compile_condition(condition)
    closures = compile_condition(condition, generate=False)
    for trust in (2, 3, 4):
        assert generated({"trust": trust}, {}) == closures({"trust": trust}, {})


@pytest.mark.parametrize(
    "condition",
    [
        {"op": "increase", "path": "/trust", "value": 1},
        {"op": "all", "conditions": [{"op": "literal", "value": True}, {"op": "lte_", "path": "/trust", "value": 1}]},
        {"op": "not", "condition": {"path": "/trust", "value": 1}},
    ],
)
def test_an_op_outside_the_type_is_no_condition(condition: dict[str, Any]) -> None:
    with pytest.raises(ConditionError, match="unknown condition op"):
        compile_condition(condition)


@pytest.mark.parametrize("op", EFFECT_OPS)
def test_a_compiled_effect_carries_its_op(op: EffectOp) -> None:
    effect = (
        {"op": op, "path": "/trust", "by": 1} if op == "increment" else {"op": op, "path": "/items", "value": "key"}
    )
    compiled = CompiledEffect(SCHEMA, effect)
    assert (compiled.op, compiled.error) == (op, None)


def test_an_unknown_effect_op_is_none_and_always_rejected() -> None:
    compiled = CompiledEffect(SCHEMA, {"op": "increase", "path": "/trust", "by": 1})
    assert compiled.op is None
    assert compiled.error == "effect op 'increase' is not one this runtime knows (increment, add, remove)"
    with pytest.raises(EffectError):
        compiled.apply({"trust": 1, "items": []})
