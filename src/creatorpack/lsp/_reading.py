"""A condition read aloud: the plain-language reading that hover shows for the condition under the cursor.

No layer below the server renders a condition for people (the playtest's ``?why`` explains one
against a state, and lives in the CLI), so this is a small renderer of its own. It reads the JSON
as written and never fails: a part it does not know is shown as its JSON, so a half-typed condition
still reads. The wording follows the table of ``docs/runtime.md`` (``observed``: the narrator's
latest answer; unanswered reads as false).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson

__all__ = ["CONDITION_OPS", "EFFECT_OPS", "reading"]

CONDITION_OPS: Final = ("all", "any", "not", "observed", "literal", "eq", "ne", "gt", "gte", "lt", "lte", "contains")
"""The ``op`` values of a condition, as the contract's ``Condition`` lists them."""
EFFECT_OPS: Final = ("increment", "add", "remove")
"""The ``op`` values of an effect."""

_COMPARISONS: Final = {
    "eq": "is",
    "ne": "is not",
    "gt": "is more than",
    "gte": "is at least",
    "lt": "is less than",
    "lte": "is at most",
    "contains": "contains",
}
_NEGATED: Final = {"eq": "ne", "ne": "eq", "gt": "lte", "gte": "lt", "lt": "gte", "lte": "gt"}


def reading(condition: Any, observations: Mapping[str, Mapping[str, Any]], depth: int = 0) -> list[str]:
    """Markdown lines that say when ``condition`` holds (nested groups as nested bullets)."""
    indent = "  " * depth
    if not isinstance(condition, Mapping):
        return [f"{indent}- {_json(condition)}"]
    op = condition.get("op")
    if op in ("all", "any"):
        parts = condition.get("conditions")
        parts = parts if isinstance(parts, list) else []
        if not parts:
            return [f"{indent}- {'always (all of nothing)' if op == 'all' else 'never (any of nothing)'}"]
        head = f"{indent}- {'all' if op == 'all' else 'any'} of these {'hold' if op == 'all' else 'holds'}:"
        return [head, *(line for part in parts for line in reading(part, observations, depth + 1))]
    if op == "not":
        inner = condition.get("condition")
        if isinstance(inner, Mapping) and inner.get("op") in _NEGATED:
            return reading({**inner, "op": _NEGATED[inner["op"]]}, observations, depth)
        if isinstance(inner, Mapping) and inner.get("op") in ("contains", "observed", "literal"):
            return [f"{indent}- {_sentence(inner, observations, negated=True)}"]
        return [f"{indent}- this does not hold:", *reading(inner, observations, depth + 1)]
    return [f"{indent}- {_sentence(condition, observations)}"]


def _sentence(
    condition: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]], *, negated: bool = False
) -> str:
    op, value = condition.get("op"), condition.get("value")
    if op == "literal":
        return "never" if bool(value) == negated else "always"
    if op == "observed":
        ident = condition.get("id")
        observation = observations.get(ident) if isinstance(ident, str) else None
        answer = _answer(value, observation)
        question = (
            f" ({observation['question']})" if observation and isinstance(observation.get("question"), str) else ""
        )
        verb = "is not" if negated else "is"
        return f"the narrator's latest answer to `{ident}`{question} {verb} {answer}"
    if op in _COMPARISONS:
        path = condition.get("path")
        verb = "does not contain" if negated and op == "contains" else _COMPARISONS[op]
        return f"the state's `{path}` {verb} {_json(value)}"
    return _json(condition)


def _answer(value: Any, observation: Mapping[str, Any] | None) -> str:
    if value is True:
        return "yes"
    if value is False:
        return "no"
    choices = observation.get("choices") if observation else None
    if isinstance(choices, Mapping) and isinstance(value, str) and isinstance(choices.get(value), str):
        return f"{_json(value)} ({choices[value]})"
    return _json(value)


def _json(value: Any) -> str:
    try:
        return f"`{orjson.dumps(value).decode()}`"
    except TypeError:
        return repr(value)
