"""``creatorpack play``, ``creatorpack.testing``, and a playthrough of every rich example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from creatorpack import Session, SessionOverError, TurnError
from creatorpack.cli import app
from creatorpack.scaffold import files
from creatorpack.testing import parse_script, play

from .conftest import EXAMPLES, example

runner = CliRunner()
RICH = {v: EXAMPLES / v / "rich.json" for v in ("0.3", "0.4", "0.5")}
SCRIPTS = {v: EXAMPLES / v / "playthrough.jsonl" for v in ("0.3", "0.4", "0.5")}


@pytest.mark.parametrize("version", ["0.4", "0.5"])
def test_rich_examples_play_to_an_ending(version: str) -> None:
    run = play(RICH[version], parse_script(SCRIPTS[version]))
    assert run.ending is not None
    assert run.turns[-1].over
    assert run.achievements
    assert run.badges


def test_rich_03_example_plays_and_reveals() -> None:
    run = play(RICH["0.3"], parse_script(SCRIPTS["0.3"]))
    revealed_at_start = sum(len(ids) for ids in run.start.revealed.values())
    assert sum(len(ids) for ids in run.last.revealed.values()) > revealed_at_start
    assert run.last.completed_rules


def test_script_parsing_names_the_line(tmp_path: Path) -> None:
    assert parse_script('{"observations": {"a": true}}\n\n{"illustration_matches": ["r"]}\n')[
        1
    ].illustration_matches == ("r",)
    with pytest.raises(TurnError, match=r"^script line 2, column 18: not JSON: unexpected end of data$"):
        parse_script('{}\n{"observations": \n')
    with pytest.raises(TurnError, match=r"^script line 3, column 24: not JSON: invalid literal, expected 'true'$"):
        parse_script('# a comment\n\n{"observations": {"a": tru}}\n')
    with pytest.raises(TurnError, match="script line 1: unknown turn member"):
        parse_script('{"observation": {}}')
    with pytest.raises(TurnError, match="script line 1: 'observations' must be an object"):
        parse_script('{"observations": [1]}')
    with pytest.raises(TurnError, match="script line 1: a turn must be a JSON object"):
        parse_script("[1]")
    with pytest.raises(TurnError, match="cannot read the script"):
        parse_script(tmp_path / "missing.jsonl")


def test_play_names_the_turn_that_failed() -> None:
    turns = parse_script(SCRIPTS["0.5"])
    with pytest.raises(SessionOverError, match="turn 3"):
        play(RICH["0.5"], [*turns, turns[-1]])
    with pytest.raises(TurnError, match="turn 1: unknown observation"):
        play(RICH["0.5"], [{"observations": {"nope": True}}])


def test_a_turn_the_pack_refuses_is_named_by_its_script_line() -> None:
    """Comment and blank lines come before turns in a script: the message names the line to fix as well."""
    script = parse_script('# my playthrough\n\n{"observations": {}}\n# then\n{"observations": {"nope": true}}\n')
    assert script.lines == (3, 5)
    with pytest.raises(TurnError, match=r"^script line 5 \(turn 2\): unknown observation 'nope'"):
        play(RICH["0.5"], script)
    with pytest.raises(TurnError, match=r"^turn 1: unknown observation 'nope'"):  # turns not read from a script
        play(RICH["0.5"], [{"observations": {"nope": True}}])


def test_cli_script_json_transcript() -> None:
    result = runner.invoke(app, ["play", str(RICH["0.5"]), "--script", str(SCRIPTS["0.5"]), "--format", "json"])
    assert result.exit_code == 0, result.output
    transcript = json.loads(result.output)
    turns = transcript["turns"]
    assert len(turns) == len(parse_script(SCRIPTS["0.5"]))
    keys = {
        "state",
        "active_rules",
        "completed_rules",
        "rejected_effects",
        "unlocked_achievements",
        "badges",
        "ending",
        "illustration",
        "revealed",
        "new",
    }
    assert keys <= set(turns[0])
    assert turns[-1]["ending"] is not None
    # Cumulative lists, with what is new marked.
    assert set(turns[0]["unlocked_achievements"]) <= set(turns[-1]["unlocked_achievements"])
    assert set(turns[-1]["new"]["unlocked_achievements"]) <= set(turns[-1]["unlocked_achievements"])
    assert transcript["start"]["turn"] == 0


def test_cli_script_text() -> None:
    result = runner.invoke(app, ["play", str(RICH["0.4"]), "--script", str(SCRIPTS["0.4"])])
    assert result.exit_code == 0, result.output
    assert "turn 0:" in result.output
    assert "ENDING:" in result.output


def test_cli_turn_after_the_ending_exits_2(tmp_path: Path) -> None:
    script = tmp_path / "long.jsonl"
    lines = SCRIPTS["0.5"].read_text().splitlines()
    script.write_text("\n".join([*lines, lines[-1]]) + "\n")
    result = runner.invoke(app, ["play", str(RICH["0.5"]), "--script", str(script), "-f", "json"])
    assert result.exit_code == 2
    assert "no more turns" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ('{"observations": {"helped_stranger": "yes"}}\n', "answer true or false"),
        ("not json\n", "bad.jsonl:1:1: turn 1: not JSON"),
        ('{"observations": {"ghost": true}}\n', "unknown observation 'ghost'"),
    ],
)
def test_cli_bad_scripts_exit_2(tmp_path: Path, content: str, words: str) -> None:
    script = tmp_path / "bad.jsonl"
    script.write_text(content)
    result = runner.invoke(app, ["play", str(RICH["0.5"]), "--script", str(script)])
    assert result.exit_code == 2
    assert words in result.output


def test_cli_invalid_and_unplayable_packs(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    doc = json.loads(RICH["0.5"].read_text())
    doc["manifest"]["language"] = "fr"
    bad.write_text(json.dumps(doc))
    result = runner.invoke(app, ["play", str(bad), "--script", str(SCRIPTS["0.5"])])
    assert result.exit_code == 1
    assert "'fr' is not one of" in result.output
    result = runner.invoke(app, ["play", str(EXAMPLES / "0.2" / "rich.json"), "--script", str(SCRIPTS["0.5"])])
    assert result.exit_code == 2
    assert "only 0.3, 0.4 and 0.5 packs can be played" in result.output
    result = runner.invoke(app, ["play", str(RICH["0.5"]), "--entry", "nowhere", "--script", str(SCRIPTS["0.5"])])
    assert result.exit_code == 2
    assert "no runtime entry 'nowhere'" in result.output
    result = runner.invoke(app, ["play", str(tmp_path / "missing.json")])
    assert result.exit_code == 2
    assert "unreadable-file" in result.output
    (tmp_path / "empty.json").write_text("")
    result = runner.invoke(app, ["play", str(tmp_path / "empty.json")])
    assert result.exit_code == 2
    assert "empty file" in result.output
    result = runner.invoke(app, ["lint", str(tmp_path / "empty.json"), "--explain", "x"])
    assert result.exit_code == 2
    assert "empty file" in result.output


def test_cli_interactive_session() -> None:
    # Piped answers: each observation in order, then the illustration matches, then q.
    answers = ["y", "n", "left_dark", "", "", "1", "q"]
    result = runner.invoke(app, ["play", str(RICH["0.5"])], input="\n".join(answers) + "\n")
    assert result.exit_code == 0, result.output
    assert "turn 1" in result.output
    assert "/trust: 0 → 2" in result.output
    assert "illustration: ill_quay" in result.output
    assert "turn 2" not in result.output
    assert "Traceback" not in result.output


def test_cli_interactive_bad_answers_reprompt_and_enter_keeps_the_shown_answer() -> None:
    answers = ["maybe", "y", "", "9", "asked_mra", "asked_mara", "", "", "7", "rule_key", "", "", "", "", "", ""]
    result = runner.invoke(app, ["play", str(RICH["0.5"])], input="\n".join(answers) + "\n", env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "'maybe' is not an answer" in result.output
    assert "'9' is not one of the choices" in result.output
    assert "'asked_mra' is not one of the choices: did you mean asked_mara?" in result.output
    assert "not an illustration rule: 7" in result.output
    assert "[y/n] (Enter: no new answer, yes stays in force)" in result.output
    assert "(Enter: no new answer, asked_mara stays in force)" in result.output
    assert "end of input" in result.output


def test_cli_interactive_pack_with_nothing_to_ask_stops_at_end_of_input() -> None:
    result = runner.invoke(app, ["play", str(EXAMPLES / "0.5" / "minimal.json")], input="\n\n")
    assert result.exit_code == 0, result.output
    assert "Nothing to ask" in result.output
    assert "Answer each question" not in result.output  # there is no question: only what applies is said
    assert "no new answer" not in result.output
    assert "turn 2" in result.output
    assert "turn 3" not in result.output
    assert "end of input" in result.output


def test_cli_interactive_pack_with_only_illustration_rules_says_what_to_enter(tmp_path: Path) -> None:
    doc = json.loads(RICH["0.5"].read_text())
    doc["runtime"]["observations"] = []
    pack = tmp_path / "pictures.json"
    pack.write_text(json.dumps(doc))
    result = runner.invoke(app, ["play", str(pack)], input="1\n", env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "Name the illustration rules the narrator judged true; Enter: none." in result.output
    assert "Answer each question" not in result.output
    assert "illustration: ill_quay" in result.output


def test_cli_interactive_shows_the_ending() -> None:
    result = runner.invoke(app, ["play", str(RICH["0.5"])], input="y\n\nrelit\n\n\n\n" * 2, env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "ENDING: Keeper of the Light (keeper_of_the_light)" in result.output
    assert "two Quells sit together in the lamp room" in result.output  # the closing text
    assert "end of input" not in result.output


def test_explain_round_trips_through_play(tmp_path: Path) -> None:
    result = runner.invoke(app, ["lint", str(RICH["0.5"]), "--explain", "keeper_of_the_light"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("# ")
    script = tmp_path / "w.jsonl"
    script.write_text(result.output)
    played = runner.invoke(app, ["play", str(RICH["0.5"]), "--script", str(script), "-f", "json"])
    assert played.exit_code == 0, played.output
    assert json.loads(played.output)["turns"][-1]["ending"] == "keeper_of_the_light"


def test_explain_of_a_goal_from_another_entry_replays_as_it_is(tmp_path: Path) -> None:
    result = runner.invoke(app, ["lint", str(RICH["0.5"]), "--explain", "calm_storm"])
    assert result.exit_code == 0, result.output
    assert "# entry: return_visit" in result.output.splitlines()
    script = tmp_path / "w.jsonl"
    script.write_text(result.output)
    played = runner.invoke(app, ["play", str(RICH["0.5"]), "--script", str(script), "-f", "json"])
    assert played.exit_code == 0, played.output
    transcript = json.loads(played.output)
    assert "calm_storm" in transcript["turns"][-1]["active_rules"]
    # The entry line is what makes it replay: from the first entry the same turns do not reach it.
    plain = tmp_path / "plain.jsonl"
    plain.write_text("".join(line + "\n" for line in result.output.splitlines() if "entry:" not in line))
    played = runner.invoke(app, ["play", str(RICH["0.5"]), "--script", str(plain), "-f", "json"])
    assert played.exit_code == 0, played.output
    assert "calm_storm" not in json.loads(played.output)["turns"][-1]["active_rules"]
    # The same entry given again is fine; another one is a usage error.
    agreed = runner.invoke(app, ["play", str(RICH["0.5"]), "-e", "return_visit", "--script", str(script), "-f", "json"])
    assert agreed.exit_code == 0, agreed.output
    assert json.loads(agreed.output) == transcript
    clash = runner.invoke(app, ["play", str(RICH["0.5"]), "--entry", "opening", "--script", str(script)])
    assert clash.exit_code == 2
    assert "Invalid value for --entry" in clash.output
    assert "the script starts at entry 'return_visit'" in " ".join(clash.output.replace("│", " ").split())
    # The library reads it the same way.
    run = play(RICH["0.5"], parse_script(script))
    assert run.session.state.entry == "return_visit"
    assert "calm_storm" in run.last.active_rules
    with pytest.raises(TurnError, match=r"the script starts at entry 'return_visit'.*not 'opening'"):
        play(RICH["0.5"], parse_script(script), entry="opening")


def test_a_loaded_session_takes_a_script_only_at_its_own_entry(tmp_path: Path) -> None:
    save = tmp_path / "save.json"
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    saved = runner.invoke(app, ["play", str(RICH["0.5"]), "--script", str(empty), "--save-to", str(save)])
    assert saved.exit_code == 0, saved.output
    script = tmp_path / "w.jsonl"
    script.write_text('# entry: return_visit\n{"observations": {"lamp_choice": "relit"}}\n')
    result = runner.invoke(app, ["play", str(RICH["0.5"]), "--load", str(save), "--script", str(script)])
    assert result.exit_code == 2
    assert "the script starts at entry 'return_visit'" in result.output
    assert "the loaded session is at entry 'opening'" in result.output
    script.write_text('# entry: opening\n{"observations": {"lamp_choice": "relit"}}\n')
    result = runner.invoke(app, ["play", str(RICH["0.5"]), "--load", str(save), "--script", str(script)])
    assert result.exit_code == 0, result.output


def test_script_entry_lines() -> None:
    script = parse_script('# a comment\n#entry:  return_visit \n# entry: return_visit\n{"observations": {}}\n')
    assert script.entry == "return_visit"
    assert len(script) == 1
    assert parse_script('# entrance: hall\n{"observations": {}}\n').entry is None
    assert parse_script("").entry is None
    with pytest.raises(TurnError, match="script line 2: the entry line must come before the first turn"):
        parse_script('{"observations": {}}\n# entry: late\n')
    with pytest.raises(TurnError, match="script line 2: the script already starts at entry 'a', not 'b'"):
        parse_script("# entry: a\n# entry: b\n")
    with pytest.raises(TurnError, match="script line 1: '# entry: ' takes one entry id, not ''"):
        parse_script("# entry:\n")
    with pytest.raises(TurnError, match="takes one entry id, not 'the hall'"):
        parse_script("# entry: the hall\n")


def test_script_comment_lines_are_skipped() -> None:
    turns = parse_script('# header\n  # indented comment\n{"observations": {"a": true}}\n')
    assert [dict(t.observations) for t in turns] == [{"a": True}]


def test_explain_of_an_unknown_id_says_so_at_once() -> None:
    result = runner.invoke(app, ["lint", str(RICH["0.5"]), "--explain", "keeper_of_the_lite"])
    assert result.exit_code == 2
    assert "'keeper_of_the_lite' is no achievement, ending, rule or reveal" in result.output
    assert "did you mean 'keeper_of_the_light'?" in result.output
    assert "dark_harbour" in result.output  # the ids it could have been


def test_play_reads_the_pack_or_the_script_from_stdin() -> None:
    pack = RICH["0.5"].read_bytes()
    result = runner.invoke(app, ["play", "-", "--script", str(SCRIPTS["0.5"])], input=pack)
    assert result.exit_code == 0, result.output
    assert "ENDING: keeper_of_the_light" in result.output
    result = runner.invoke(app, ["play", str(RICH["0.5"]), "--script", "-"], input=SCRIPTS["0.5"].read_bytes())
    assert result.exit_code == 0, result.output
    assert "ENDING: keeper_of_the_light" in result.output
    for args in (["play", "-"], ["play", "-", "--script", "-"]):
        result = runner.invoke(app, args, input=pack)
        assert result.exit_code == 2
        assert "cannot read both the pack and" in result.output
    result = runner.invoke(app, ["play", "-", "--script", str(SCRIPTS["0.5"])], input=b"")
    assert result.exit_code == 2
    assert "standard input is empty" in result.output


@pytest.mark.parametrize("version", ["0.3", "0.4", "0.5"])
def test_minimal_examples_start_and_take_a_turn(version: str) -> None:
    run = play(EXAMPLES / version / "minimal.json", [{}])
    assert run.turns[0].turn == 1
    assert run.ending is None


def test_the_reader_panel_holds_only_what_the_reader_sees() -> None:
    from creatorpack.cli._play import reader_panel

    run = play(RICH["0.5"], parse_script(SCRIPTS["0.5"]))
    panel = reader_panel(run.turns[0])
    assert set(panel) == {
        "revealed",
        "achievements",
        "locked_achievements",
        "badges",
        "illustration",
        "ending",
        "assets",
    }
    shown = json.dumps(panel)
    for narrator_only in (*run.turns[0].instructions, *run.turns[0].active_rules):
        assert narrator_only not in shown
    assert reader_panel(run.last)["ending"] == "keeper_of_the_light"


def test_cli_interactive_pack_that_starts_in_an_ending_shows_the_reader_once(tmp_path: Path) -> None:
    doc = json.loads(files("0.5")["pack.json"])
    doc["runtime"]["entries"][0]["initial_state"]["doors_found"] = 1  # its one ending holds at the start
    pack = tmp_path / "ended.json"
    pack.write_text(json.dumps(doc), encoding="utf-8")
    result = runner.invoke(app, ["play", str(pack)], input="", env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert result.output.count("the reader sees") == 1
    assert result.output.count("ENDING: ") == 1


def test_play_takes_any_iterable_of_turns_and_a_script_counts_only_line_feeds() -> None:
    turns = parse_script(SCRIPTS["0.5"])
    assert play(RICH["0.5"], (turn for turn in turns)).ending == play(RICH["0.5"], turns).ending
    text = '{"observations": {}}\n# a form feed \f and a U+2028 \u2028 here\n{"observations": {"nope": true}}\n'
    script = parse_script(text)
    assert script.lines == (1, 3)  # the form feed and U+2028 do not end a line, as an editor shows it
    with pytest.raises(TurnError, match=r"^script line 3 \(turn 2\)"):
        play(RICH["0.5"], script)


def test_a_choice_typo_is_told_the_choice_lint_would_name() -> None:
    """``open`` for ``relit``-style choices: a closed vocabulary, read as lint reads it (``opened``)."""
    pack = example("0.5", "rich")
    observation = next(o for o in pack["runtime"]["observations"] if o["type"] == "choice")
    observation["choices"] = {"opened": "Opened", "waited": "Waited"}
    session = Session.start(pack)
    with pytest.raises(TurnError, match="did you mean 'opened'"):
        session.turn({observation["id"]: "open"})


def test_cli_a_bad_script_line_is_named_file_line_with_the_turns_before_it(tmp_path: Path) -> None:
    """Regression: 'script line 4 (turn 2): ...' named no file and showed nothing of the turns before."""
    script = tmp_path / "w.jsonl"
    script.write_text(
        '{"observations": {"helped_stranger": true}}\n# then the lamp\n{"observations": {"lamp_choice": "relight"}}\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["play", str(RICH["0.5"]), "--script", str(script)])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"creatorpack: {script}:3: turn 2: observation 'lamp_choice' takes one of the choices")
    assert lines[1] == "  the turns before it:"
    assert lines[2].startswith(f'  {script}:1: {{"observations": {{"helped_stranger": true}}}}  -> state {{"trust":2,')
    first = tmp_path / "first.jsonl"
    first.write_text("not json\n", encoding="utf-8")
    result = runner.invoke(app, ["play", str(RICH["0.5"]), "--script", str(first)])
    assert result.stderr.splitlines()[1:] == ["  it is the script's first turn"]


def test_cli_interactive_opening_counts_reveals_and_the_panel_lists_assets_once_and_wraps_in_its_column() -> None:
    """Regression: turn 0 listed every reveal, the reader panel listed the assets twice, and wrapped lines
    went back to the panel's edge."""
    result = runner.invoke(app, ["play", str(RICH["0.5"])], input="q\n", env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    opening = result.output
    assert "revealed assets:" not in opening
    assert "revealed at the start: 4 reader cards, 1 image, 1 relationship, 15 assets," in opening
    panel = opening[opening.index("the reader sees") : opening.index("╰")]
    assert panel.count("badge_foil_mask") == 1
    rows = [row.strip("│ ").rstrip() for row in panel.splitlines()[1:]]
    start = next(i for i, row in enumerate(rows) if row.startswith("assets:"))
    column = panel.splitlines()[1 + start].index("badge_foil_mask")
    continued = panel.splitlines()[2 + start]
    assert continued[:column].strip("│ ") == ""  # the wrapped line starts under the first asset
    assert continued[column] != " "


def test_cli_interactive_q_saves_and_says_where(tmp_path: Path) -> None:
    """Regression: q (and Ctrl-C, tests/test_play_tty.py) with --save-to wrote or lost the save without a word."""
    save = tmp_path / "save.json"
    answers = "y\nn\n2\n\n\n\nq\n"  # one turn, then q at the next prompt
    result = runner.invoke(
        app, ["play", str(RICH["0.5"]), "--save-to", str(save)], input=answers, env={"COLUMNS": "300"}
    )
    assert result.exit_code == 0, result.output
    assert f"saved the session (turn 1) to {save}" in result.output
    assert json.loads(save.read_text())["turn"] == 1
    blocked = tmp_path / "no-such-dir" / "save.json"
    result = runner.invoke(
        app, ["play", str(RICH["0.5"]), "--save-to", str(blocked)], input="q\n", env={"COLUMNS": "300"}
    )
    assert "the session was NOT saved: cannot write the save" in result.output


def test_cli_interactive_enter_is_explicit_about_what_the_runtime_keeps() -> None:
    """Regression: 'Enter keeps' sat beside '... this turn?' questions without saying the kept answer fires again."""
    result = runner.invoke(app, ["play", str(RICH["0.5"])], input="y\nn\n2\n\n\n\nq\n", env={"COLUMNS": "250"})
    assert "the latest one stays in force (shown) and the rules that read it fire again" in result.output
    assert "this turn? [y/n] (Enter: no new answer, yes stays in force)" in result.output


def test_cli_interactive_commands_help_state_why_undo_restart() -> None:
    commands = "help\n?why first_light\n?why salt_and_kindnes\nstate\n"
    script = commands + "y\nn\n2\n\n\n\nundo\nundo\ny\nn\n1\n\n\n\nrestart\nq\n"
    result = runner.invoke(app, ["play", str(RICH["0.5"])], input=script, env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    out = result.output
    assert "?why GOAL  why an achievement, ending or rule (by id) has not fired" in out
    assert "achievement 'first_light' has not fired: its `when` does not hold now" in out
    assert '`/inventory` contains "logbook_page": `/inventory` is []' in out
    assert "did you mean 'salt_and_kindness'?" in out
    assert "turn 0 of entry opening" in out  # state
    assert "undone: back at turn 0" in out
    assert "nothing to undo: no turn has been played" in out
    assert "restarted: back at turn 0" in out
    assert out.count("─ turn 1 ─") >= 2 or out.count(" turn 1 ") >= 2  # played again after the undo


def test_why_explains_parts_answers_and_rules() -> None:
    from creatorpack.cli._why import why
    from creatorpack.play import Engine, Session

    engine = Engine.from_source(RICH["0.5"])
    session = Session.start(engine)
    lines = why(engine, session.state, "salt_and_kindness")
    assert lines[0] == "achievement 'salt_and_kindness' has not fired: its `when` does not hold now"
    assert "  all of 2 parts must hold; these do not:" in lines
    assert "    `/trust` > 4: `/trust` is 0" in lines
    session.turn({"helped_stranger": True})
    assert why(engine, session.state, "help_stranger")[0].startswith("rule 'help_stranger': its `when` holds now")
