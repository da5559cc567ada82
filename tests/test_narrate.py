"""The narrator over a scripted model and over a fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import creatorpack
from creatorpack.narrate import (
    REDACTED,
    ChatMessage,
    Exchange,
    ModelAnswerError,
    ModelSettings,
    ModelUnavailableError,
    Narrator,
    OpenAIClient,
    Section,
    SpoilerGuard,
    answer_schema,
    build_prompt,
)
from creatorpack.narrate.fake import FakeModelServer, ScriptedModel
from creatorpack.play import Session

ROOT = Path(__file__).resolve().parents[1]
RICH = ROOT / "examples" / "0.5" / "rich.json"
OBSERVED = {"helped_stranger": True, "met_mara": False, "lamp_choice": "relit", "found_key": False, "gave_key": False}
ANSWER = {**OBSERVED, "illustration:rule_quay": True}  # the one illustration rule eligible at the start
HIDDEN_KNOWLEDGE = "The stranger on the quay is her brother Tobias."
FULL_WIDTH_BRASS = "\uff22\uff32\uff21\uff33\uff33"  # BRASS in full-width letters: NFKC folds them


def _session() -> Session:
    return Session.start(RICH)


def test_a_narrated_turn_plays_the_answers_the_model_gives() -> None:
    model = ScriptedModel(["You wrap your coat around the stranger."], [json.dumps(ANSWER)])
    narrator = Narrator(_session(), model)
    done = narrator.narrate("I give the stranger my coat")
    assert done.narration == "You wrap your coat around the stranger."
    assert dict(done.turn.observations) == OBSERVED
    assert tuple(done.turn.illustration_matches) == ("rule_quay",)
    assert narrator.session.state.answers["helped_stranger"] is True
    assert set(done.to_json()) == {"turn", "input", "narration", "answers", "reader"}
    assert narrator.story == [Exchange("I give the stranger my coat", done.narration)]
    asked = model.requests[1]["response_format"]
    assert asked["type"] == "json_schema"
    assert asked["json_schema"]["strict"] is True
    schema = asked["json_schema"]["schema"]
    assert schema["additionalProperties"] is False
    assert schema["required"] == list(schema["properties"])
    assert schema["properties"]["lamp_choice"]["enum"] == ["relit", "left_dark", "asked_mara"]


def test_an_invalid_answer_gets_one_retry_with_the_error_then_fails_cleanly() -> None:
    model = ScriptedModel(["A quiet night."], ['{"helped_stranger": "yes"}', json.dumps(ANSWER)])
    narrator = Narrator(_session(), model)
    narrator.narrate("wait")
    retry = model.requests[2]["messages"]
    assert "That answer is invalid" in retry[-1]["content"]
    bad = ScriptedModel(["A quiet night."], ["not json", "{}"])
    failing = Narrator(_session(), bad)
    before = failing.session.save()
    with pytest.raises(ModelAnswerError, match="twice"):
        failing.narrate("wait")
    assert failing.session.save() == before  # the session never changes on a failed turn
    assert failing.story == []


def test_an_empty_narration_is_asked_for_once_more_then_fails_cleanly() -> None:
    model = ScriptedModel(["  \n", "The fog lifts."], [json.dumps(ANSWER)])
    assert Narrator(_session(), model).narrate("wait").narration == "The fog lifts."
    assert "what happens next" in model.requests[1]["messages"][-1]["content"]
    silent = Narrator(_session(), ScriptedModel(["", ""]))
    before = silent.session.save()
    with pytest.raises(ModelAnswerError, match="narrated nothing"):
        silent.narrate("wait")
    assert silent.session.save() == before


def test_illustration_rules_eligible_this_turn_are_asked_with_their_match_text() -> None:
    session = _session()
    schema = answer_schema(session.engine, session.state)
    assert schema.illustration_rules == ("rule_quay",)  # trust < 2 at the start
    described = schema.schema["properties"]["illustration:rule_quay"]["description"]
    assert "on the quay with the stranger" in described
    turn = schema.read(json.dumps(ANSWER))
    assert tuple(turn.illustration_matches) == ("rule_quay",)
    with pytest.raises(ValueError, match="unknown properties"):
        schema.read(json.dumps({**ANSWER, "extra": 1}))


def test_the_guard_never_lets_a_reader_see_what_is_hidden() -> None:
    leaky = "Brass key in hand, you learn the truth: " + HIDDEN_KNOWLEDGE.upper()
    model = ScriptedModel(
        [leaky, "Mara looks at the stranger, then away. The Brass  Key glints."], [json.dumps(ANSWER)]
    )
    streamed: list[str] = []
    done = Narrator(_session(), model).narrate("ask Mara", on_text=streamed.append)
    assert done.guard.regenerated
    assert {h.id for h in done.guard.found} == {"brass_key", "cast_mara/knows_stranger_is_tobias"}
    assert [h.id for h in done.guard.redacted] == ["brass_key"]
    assert "brass" not in done.narration.casefold()
    assert REDACTED in done.narration
    assert "tobias" not in "".join(streamed).casefold()
    assert "brass" not in "".join(streamed).casefold()  # held back: not even the start of a mention


def test_the_guard_compares_after_folding_and_on_word_boundaries() -> None:
    session = _session()
    guard = SpoilerGuard.for_turn(session.engine.pack, session.last or session.engine.describe(session.state))
    assert [h.id for h in guard.find(f"the {FULL_WIDTH_BRASS}\n key")] == ["brass_key"]
    assert guard.find("brassy keyholes") == []
    assert FULL_WIDTH_BRASS not in guard.redact(f"the {FULL_WIDTH_BRASS} key")


def test_the_prompt_keeps_guidance_and_leaves_out_the_oldest_story_first() -> None:
    session = _session()
    for answers in ({"helped_stranger": True},) * 3:
        session.turn(answers)
    result = session.last
    assert result is not None
    assert result.instructions  # some guidance holds now
    story = [Exchange(f"turn {n}", "word " * 200) for n in range(30)]
    prompt = build_prompt(session.engine.pack, result, story, "look around", context_tokens=2500, answer_tokens=500)
    sections = {s.name: s for s in prompt.report.sections}
    assert sections[Section.STORY].left_out
    assert "oldest" in (sections[Section.STORY].why or "")
    assert sections[Section.GUIDANCE].tokens > 0
    system = prompt.messages[0].content
    assert all(text in system for text in result.instructions)
    assert prompt.messages[-1] == ChatMessage("user", "look around")
    kept = [m.content for m in prompt.messages if m.role == "user"][:-1]
    assert kept == [f"turn {n}" for n in range(30 - len(kept), 30)]  # the newest turns stay
    tiny = build_prompt(session.engine.pack, result, story, "x", context_tokens=600, answer_tokens=100)
    left = {s.name for s in tiny.report.sections if s.left_out}
    assert {Section.STORY, Section.CARDS} <= left
    assert all(text in tiny.messages[0].content for text in result.instructions)  # never left out


def test_the_client_retries_5xx_then_names_the_server() -> None:
    pauses: list[float] = []
    with FakeModelServer(["Fog."], fail_first=2) as server:
        client = OpenAIClient(ModelSettings(server.url, "fake", retries=2), sleep=pauses.append)
        assert "".join(client.stream([ChatMessage("user", "hi")])) == "Fog."
        assert pauses == [0.5, 1.0]
    with FakeModelServer(fail_first=10, status=429) as server:
        client = OpenAIClient(ModelSettings(server.url, "fake", retries=1), sleep=pauses.append)
        with pytest.raises(ModelUnavailableError, match=r"127\.0\.0\.1.*429.*tried 2 times"):
            client.complete([ChatMessage("user", "hi")])
    with FakeModelServer(fail_first=1, status=400) as server:  # not worth retrying
        client = OpenAIClient(ModelSettings(server.url, "fake"), sleep=pauses.append)
        with pytest.raises(ModelUnavailableError, match="refused the request"):
            client.complete([ChatMessage("user", "hi")])


def test_a_server_that_takes_only_json_object_gets_the_schema_in_that_form() -> None:
    with FakeModelServer(["Fog."], [json.dumps(ANSWER)], json_object_only=True) as server:
        client = OpenAIClient(ModelSettings(server.url, "fake"))
        done = Narrator(_session(), client).narrate("wait")
        assert dict(done.turn.observations) == OBSERVED
        formats = [r.get("response_format", {}).get("type") for r in server.requests]
        assert formats == [None, "json_schema", "json_object"]  # refused once, then kept in that form
        Narrator(_session(), client).narrate("wait again")
        assert [r.get("response_format", {}).get("type") for r in server.requests][3:] == [None, "json_object"]
        assert server.requests[2]["response_format"]["schema"]["additionalProperties"] is False


def test_a_model_that_is_down_leaves_the_session_as_it_was() -> None:
    client = OpenAIClient(ModelSettings("http://127.0.0.1:9/v1", "fake", retries=0, timeout_seconds=2))
    narrator = Narrator(_session(), client)
    before = narrator.session.save()
    with pytest.raises(ModelUnavailableError, match="cannot be reached"):
        narrator.narrate("hello")
    assert narrator.session.save() == before


def _narrate(*args: str, stdin: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "creatorpack", "narrate", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


def test_cli_narrates_over_http_as_json_lines_and_never_prints_what_is_hidden() -> None:
    narrations = ["You meet Mara. " + HIDDEN_KNOWLEDGE, "Still no names here.", "The storm breaks."]
    with FakeModelServer(narrations, [json.dumps(ANSWER)]) as server:
        done = _narrate(str(RICH), "--model-url", server.url, "--format", "json", "--show-narrator", stdin="a\n\nb\n")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["turn"] for line in lines] == [1, 2]
    assert [line["input"] for line in lines] == ["a", "b"]
    assert all(set(line) == {"turn", "input", "narration", "answers", "reader"} for line in lines)
    assert all("her brother" not in line["narration"] for line in lines)
    assert "her brother" not in done.stdout  # nor anywhere else a reader reads
    assert "knows_stranger_is_tobias" in done.stderr  # the host's view reports what the guard found


def test_cli_text_streams_the_narration_and_shows_the_opening() -> None:
    with FakeModelServer(["You offer your coat."]) as server:
        done = _narrate(str(RICH), "--model-url", server.url, "--show-prompt", stdin="offer my coat\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("The Dark Lamp\n")
    assert "You offer your coat." in done.stdout
    assert "prompt: ~" in done.stderr


def test_cli_without_a_model_is_a_usage_error() -> None:
    done = _narrate(str(RICH), stdin="", env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 2
    assert "--model-url" in done.stderr


def test_cli_with_a_model_that_is_down_is_exit_2_naming_it() -> None:
    done = _narrate(str(RICH), "--model-url", "http://127.0.0.1:9/v1", stdin="hello\n")
    assert done.returncode == 2
    assert "the model server at http://127.0.0.1:9/v1 cannot be reached" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_public_names_load() -> None:
    assert creatorpack.narrate.Narrator is Narrator
