"""Structured answers: the schema the model fills in after narrating, and reading its answer into a turn.

One required property per observation (a boolean, or a string enum of the choice keys) and one boolean
per illustration rule eligible this turn (its ``match`` text as the description), under
``additionalProperties: false``: the ``response_format`` is
``{"type": "json_schema", "json_schema": {"name": ..., "strict": true, "schema": ...}}``, which
llama.cpp's server, vLLM and OpenAI constrain decoding to. The answer is checked here all the same.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from creatorpack.play import Engine, SessionState, Turn
from creatorpack.play.step import eligible_illustrations

__all__ = ["AnswerSchema", "answer_schema"]

_MATCH_PREFIX: Final = "illustration:"


@dataclass(frozen=True, slots=True)
class AnswerSchema:
    """The JSON Schema of one turn's answers, and which of its properties are illustration rules."""

    schema: Mapping[str, Any]
    observations: tuple[str, ...]
    illustration_rules: tuple[str, ...]

    @property
    def response_format(self) -> dict[str, Any]:
        """The Chat Completions ``response_format`` that asks for exactly this schema."""
        return {"type": "json_schema", "json_schema": {"name": "turn_answers", "strict": True, "schema": self.schema}}

    def read(self, text: str) -> Turn:
        """The turn the model's answer says; ``ValueError`` naming what does not fit."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"the answer is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError("the answer must be a JSON object")  # noqa: TRY004 - a bad answer, not a bad call
        properties: Mapping[str, Mapping[str, Any]] = self.schema["properties"]
        unknown = sorted(set(data) - set(properties))
        if unknown:
            raise ValueError(f"unknown properties {unknown}; answer exactly {sorted(properties)}")
        missing = sorted(set(properties) - set(data))
        if missing:
            raise ValueError(f"missing properties {missing}")
        answers: dict[str, bool | str] = {}
        for name in self.observations:
            value, spec = data[name], properties[name]
            if spec.get("type") == "boolean":
                if not isinstance(value, bool):
                    raise ValueError(f"{name!r} must be true or false, not {json.dumps(value)}")
            elif not isinstance(value, str) or value not in spec["enum"]:
                raise ValueError(f"{name!r} must be one of {spec['enum']}, not {json.dumps(value)}")
            answers[name] = value
        matches = []
        for rule in self.illustration_rules:
            value = data[_MATCH_PREFIX + rule]
            if not isinstance(value, bool):
                raise ValueError(f"{_MATCH_PREFIX + rule!r} must be true or false, not {json.dumps(value)}")  # noqa: TRY004
            if value:
                matches.append(rule)
        return Turn(answers, tuple(matches))


def answer_schema(engine: Engine, session: SessionState) -> AnswerSchema:
    """The answers the model owes after narrating the turn that follows ``session``."""
    properties: dict[str, Any] = {}
    for obs_id, obs in engine.observations.items():
        question = str(obs.get("question", ""))
        if obs.get("type") == "choice" and isinstance(obs.get("choices"), Mapping):
            choices = obs["choices"]
            described = "; ".join(f"{key}: {label}" for key, label in choices.items())
            properties[obs_id] = {"type": "string", "enum": list(choices), "description": f"{question} ({described})"}
        else:
            properties[obs_id] = {"type": "boolean", "description": question}
    eligible = eligible_illustrations(engine.program, session.values)
    rules = tuple(rule.id for rule in engine.program.illustration_rules if rule.id in eligible)
    matches = _matches(engine.pack)
    for rule in rules:
        properties[_MATCH_PREFIX + rule] = {
            "type": "boolean",
            "description": f"Does this describe the scene you just narrated? {matches.get(rule, '')}".strip(),
        }
    schema = {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
    return AnswerSchema(schema, tuple(engine.observations), rules)


def _matches(pack: Mapping[str, Any]) -> dict[str, str]:
    presentation = pack.get("presentation")
    rules = presentation.get("illustration_rules") if isinstance(presentation, Mapping) else None
    if not isinstance(rules, list):
        return {}
    return {str(r["id"]): str(r.get("match", "")) for r in rules if isinstance(r, Mapping) and "id" in r}
