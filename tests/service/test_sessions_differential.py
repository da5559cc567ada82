"""Differential: every scenario of the runtime's tests, played over HTTP, gives the CLI's turns, turn by turn.

The scenarios are the turn sequences of ``tests/test_runtime.py`` (on its pack as it is, including
its property test's random turns; those of its parametrized tests are taken from their parameters,
the others are written out here as that file plays them), of ``tests/test_play.py`` and every
``examples/*/playthrough.jsonl`` from every entry of its rich pack. Each is played by ``creatorpack
play PACK --script S --format json`` and over HTTP by the pack's owner (the narrator view): the start
and every turn must be the same JSON. Where the CLI stops (a bad turn, a turn after the ending), the
turns before are the same and HTTP refuses that turn too, with the CLI's message (422) or as over (409).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from creatorpack.cli import app as cli
from tests import test_runtime
from tests.conftest import EXAMPLES
from tests.service.sessions_support import JSON, issue, runtime_pack_bytes
from tests.test_runtime import _turns

Turns = list[dict[str, Any]]


def _parameters(test: Any) -> list[Any]:
    """The parameter sets of a test of ``tests/test_runtime.py`` (its ``parametrize`` mark)."""
    (mark,) = (m for m in test.pytestmark if m.name == "parametrize")
    return list(mark.args[1])


BAD: Turns = [
    {"observations": observations, "illustration_matches": list(matches)}
    for test in (
        test_runtime.test_bad_turns_change_nothing,
        test_runtime.test_a_misspelt_id_in_a_turn_names_the_nearest,
    )
    for observations, matches, _ in _parameters(test)
]
"""The bad turns of the runtime tests: the CLI refuses each (exit 2), HTTP with the same message (422)."""

RUNTIME: list[tuple[str | None, Turns]] = [
    # test_start, test_entries_and_versions
    ("opening", []),
    ("late", []),
    # test_a_turn_activates_rules_and_reveals, test_guidance_reports_requirements
    ("opening", [{"observations": {"helped": True}}]),
    # test_completion_is_for_good_and_unlocks_are_sticky
    (
        "opening",
        [
            {"observations": {"helped": True}},
            {"observations": {"helped": True}},
            {"observations": {"helped": False}},
        ],
    ),
    # test_a_rejected_effect_rejects_all_of_its_rule
    ("opening", [{"observations": {"way": "north"}}]),
    # test_clamp_at_the_limit
    (None, [{"observations": {"helped": True}}] * 3),
    # test_set_effects_keep_enum_order_and_reject_outsiders, test_hidden_achievements_are_not_listed_until_unlocked
    ("late", [{"observations": {"way": "south"}}]),
    ("opening", [{"observations": {"way": "south"}}]),
    # test_highest_priority_ending_wins_and_ends_the_session (the second turn is after the ending)
    ("late", [{"observations": {"helped": True}}, {"observations": {"helped": True}}]),
    # test_illustrations (its parameters)
    *[
        ("opening", [{"observations": {"helped": True}, "illustration_matches": list(matches)}])
        for matches, _ in _parameters(test_runtime.test_illustrations)
    ],
    # test_illustration_eligibility_is_tested_before_the_turn
    ("opening", [{"observations": {"helped": True}}, {"illustration_matches": ["r4", "r1"]}]),
    # test_bad_turns_change_nothing, test_a_misspelt_id_in_a_turn_names_the_nearest (their parameters)
    *[("opening", [bad]) for bad in BAD],
    # test_save_and_load_give_the_same_next_turn
    ("opening", [{"observations": {"helped": True, "way": "south"}}, {"observations": {"helped": True}}]),
]


def _script(version: str) -> Turns:
    lines = (EXAMPLES / version / "playthrough.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip() and not line.lstrip().startswith("#")]


class Differential:
    """Plays one scenario through the CLI and over HTTP and compares them."""

    def __init__(self, client: TestClient, tmp_path: Path, pack: bytes) -> None:
        self.client = client
        self.tmp = tmp_path
        self.owner = issue(client)
        self.pack_path = tmp_path / "pack.json"
        self.pack_path.write_bytes(pack)
        uploaded = client.post("/v1/packs", content=pack, headers={**self.owner, **JSON})
        assert uploaded.status_code in (200, 201), uploaded.text
        self.pack_id = uploaded.json()["pack_id"]

    def cli(self, entry: str | None, turns: Turns) -> tuple[int, dict[str, Any] | None, str]:
        script = self.tmp / "script.jsonl"
        script.write_text("".join(json.dumps(t) + "\n" for t in turns))
        args = ["play", str(self.pack_path), "--script", str(script), "--format", "json"]
        result = CliRunner().invoke(cli, [*args, *(["--entry", entry] if entry else [])])
        transcript = json.loads(result.stdout) if result.exit_code == 0 else None
        return result.exit_code, transcript, result.stderr

    def compare(self, entry: str | None, turns: Turns) -> int:
        """Play ``turns`` both ways; the number of turns both played alike."""
        code, transcript, stderr = self.cli(entry, turns)
        failing = None
        if code != 0:
            assert code == 2, stderr
            found = re.search(r"\.jsonl:\d+: turn (\d+): (.*)", stderr)  # FILE:LINE: turn N: message
            assert found is not None, stderr
            failing = int(found[1])
            code, transcript, _ = self.cli(entry, turns[: failing - 1])
            assert code == 0
        assert transcript is not None
        started = self.client.post(
            f"/v1/packs/{self.pack_id}/sessions", json={"entry": entry} if entry else {}, headers=self.owner
        )
        assert started.status_code == 201, started.text
        assert started.json()["current"] == transcript["start"]
        sid = started.json()["session_id"]
        for number, (turn, expected) in enumerate(zip(turns, transcript["turns"], strict=False), start=1):
            response = self.client.post(f"/v1/sessions/{sid}/turns", json={"turn": number, **turn}, headers=self.owner)
            assert response.status_code == 200, response.text
            assert response.json() == expected, f"turn {number}"
        if failing is not None:
            refused = self.client.post(
                f"/v1/sessions/{sid}/turns", json={"turn": failing, **turns[failing - 1]}, headers=self.owner
            )
            body = refused.json()
            if refused.status_code == 422:
                assert body["type"] == "urn:creatorpack:problem:invalid-turn"
                assert f"turn {failing}: {body['detail']}" in stderr
            else:
                assert (refused.status_code, body["type"]) == (409, "urn:creatorpack:problem:session-over")
                assert "no more turns" in stderr
                assert "no more turns" in body["detail"]
        return len(transcript["turns"])


def test_the_runtime_tests_scenarios(client: TestClient, tmp_path: Path) -> None:
    differential = Differential(client, tmp_path, runtime_pack_bytes())
    played = [differential.compare(entry, turns) for entry, turns in RUNTIME]
    assert sum(played) == sum(len(turns) for _, turns in RUNTIME) - len(BAD) - 1  # the bad turns, one after the end


@pytest.mark.parametrize("version", ["0.3", "0.4", "0.5"])
def test_the_example_playthroughs_from_every_entry(client: TestClient, tmp_path: Path, version: str) -> None:
    rich = (EXAMPLES / version / "rich.json").read_bytes()
    differential = Differential(client, tmp_path, rich)
    script = _script(version)
    for entry in [e["id"] for e in json.loads(rich)["runtime"]["entries"]]:
        assert differential.compare(entry, script) >= 1
    # test_play: one turn more; the 0.4 and 0.5 playthroughs reach an ending, so HTTP refuses it as the CLI does.
    after = differential.compare(None, [*script, script[-1]])
    assert after == (len(script) + 1 if version == "0.3" else len(script))
    assert differential.compare(None, [{"observations": {"ghost": True}}]) == 0  # test_play: a bad script


@pytest.mark.parametrize("version", ["0.3", "0.4", "0.5"])
def test_the_minimal_examples(client: TestClient, tmp_path: Path, version: str) -> None:
    differential = Differential(client, tmp_path, (EXAMPLES / version / "minimal.json").read_bytes())
    assert differential.compare(None, [{}, {}]) == 2


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entry=st.sampled_from(["opening", "late"]), turns=_turns)
def test_the_runtime_property_tests_random_turns(
    client: TestClient, tmp_path: Path, entry: str, turns: list[tuple[dict[str, Any], list[str]]]
) -> None:
    differential = Differential(client, tmp_path, runtime_pack_bytes())  # the same bytes again: 200, the same pack
    scenario = [{"observations": answers, "illustration_matches": matches} for answers, matches in turns]
    differential.compare(entry, scenario)
