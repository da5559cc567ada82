"""A refused turn's message stays short and cheap, however many or long the ids it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from creatorpack import TurnError
from creatorpack.contract import suggest
from creatorpack.play.engine import Engine, Session
from tests.test_runtime import PACK

RULES = "this pack's rules: ['r1', 'r2', 'r3', 'r4', 'r5']"


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.from_source(PACK)


def refusal(engine: Engine, observations: dict[str, Any], matches: list[str]) -> str:
    with pytest.raises(TurnError) as caught:
        Session.start(engine).turn(observations, matches)
    return caught.value.message


def test_many_unknown_rule_ids_name_three_and_count_the_rest(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    nearest = suggest.nearest

    def counted(word: str, candidates: Any) -> str | None:
        calls.append(word)
        return nearest(word, candidates)

    monkeypatch.setattr(suggest, "nearest", counted)
    matches = ["R1", *(f"unknown{i}" for i in range(50_000)), "r2"]
    message = refusal(engine, {}, matches)
    assert message == (
        "unknown illustration rule(s) ['R1', 'unknown0', 'unknown1'] and 49998 more "
        f"(did you mean 'r1' for 'R1'?); {RULES}"
    )
    assert len(calls) == 3


def test_an_unknown_rule_id_repeated_is_named_once(engine: Engine) -> None:
    assert refusal(engine, {}, ["zz"] * 1000) == f"unknown illustration rule(s) ['zz']; {RULES}"


def test_a_long_unknown_rule_id_is_shown_by_its_start(engine: Engine) -> None:
    long = "q" * 1_000_000
    message = refusal(engine, {}, [long, "R2"])
    assert message == (f"unknown illustration rule(s) ['{'q' * 60}…', 'R2'] (did you mean 'r2' for 'R2'?); {RULES}")


def test_a_long_unknown_observation_is_shown_by_its_start(engine: Engine) -> None:
    message = refusal(engine, {"h" * 1_000_000: True}, [])
    assert message == f"unknown observation '{'h' * 60}…'; this pack's observations: helped, way"


def test_an_unknown_id_of_at_most_80_characters_is_shown_whole(engine: Engine) -> None:
    ident = "x" * 80
    assert refusal(engine, {ident: True}, []) == f"unknown observation {ident!r}; this pack's observations: helped, way"
    assert refusal(engine, {}, [ident]) == f"unknown illustration rule(s) [{ident!r}]; {RULES}"


def test_a_pack_without_illustration_rules_says_so() -> None:
    from .conftest import example

    pack = example("0.5", "minimal")
    assert not pack.get("presentation", {}).get("illustration_rules")
    message = refusal(Engine.from_source(pack), {}, ["x"])
    assert message == "unknown illustration rule(s) ['x']; this pack has no illustration rules"
