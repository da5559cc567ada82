"""``creatorpack lint --explain``: what it says when it has no turns to print."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from creatorpack.cli import app
from creatorpack.contract.conditions import Goal
from creatorpack.lint import LintConfig, explain, goals, lint

from .conftest import example, put
from .test_reachability import constant_flag

runner = CliRunner()


def write(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def test_a_pack_with_lint_errors_is_not_searched_and_explain_says_so(tmp_path: Path) -> None:
    broken = put(example("0.5", "rich"), "/progression/achievements/1/artwork_asset_id", "kindnes_art")
    pack = write(tmp_path / "broken.json", broken)
    result = runner.invoke(app, ["lint", str(pack), "--explain", "first_light"])
    assert result.exit_code == 1
    message = " ".join(result.output.split())
    assert "'first_light' was not searched for: reachability runs only on a pack without lint errors" in message
    assert "has 1 (unknown-reference at /progression/achievements/1/artwork_asset_id)" in message
    assert "--max-states" not in message  # no bound was hit: raising it would change nothing
    # Ignoring the error hides it from the findings, not from the search, which still does not run.
    ignored = runner.invoke(app, ["lint", str(pack), "--explain", "first_light", "--ignore", "unknown-reference"])
    assert ignored.exit_code == 1
    assert "was not searched for" in ignored.output
    # The same goal on the unbroken pack has its turns.
    fixed = write(tmp_path / "fixed.json", example("0.5", "rich"))
    assert runner.invoke(app, ["lint", str(fixed), "--explain", "first_light"]).exit_code == 0


def test_a_goal_beyond_the_bound_says_to_raise_it(tmp_path: Path) -> None:
    pack = write(tmp_path / "rich.json", example("0.5", "rich"))
    result = runner.invoke(app, ["lint", str(pack), "--explain", "keeper_of_the_light", "--max-states", "1"])
    assert result.exit_code == 1, result.output
    message = " ".join(result.output.split())
    assert (
        "'keeper_of_the_light' was neither reached nor proven unreachable: the guided search played 1 turns" in message
    )
    assert "raise --max-states (now 1)" in message


def test_a_goal_proved_unreachable_does_not_stop_explain_of_another_one(tmp_path: Path) -> None:
    """The search's own `unreachable` errors are no reason to say the pack was not searched."""
    doc = constant_flag()  # the search proves `bell_ringer` unreachable: an error, found by the search itself
    report = lint(json.dumps(doc), LintConfig(max_states=1))
    assert report.searched
    assert [f.code for f in report.errors] == ["unreachable"]
    pack = write(tmp_path / "flag.json", doc)
    result = runner.invoke(app, ["lint", str(pack), "--explain", "keeper_of_the_light", "--max-states", "1"])
    assert result.exit_code == 1, result.output
    message = " ".join(result.output.split())
    assert "was not searched for" not in message
    assert "'keeper_of_the_light' was neither reached nor proven unreachable: the guided search" in message
    # A pack whose other checks find an error is not searched: the report says so.
    broken = put(doc, "/progression/achievements/1/artwork_asset_id", "kindnes_art")
    assert not lint(json.dumps(broken)).searched


def test_explain_reads_the_pack_from_standard_input(tmp_path: Path) -> None:
    """`cat pack.json | creatorpack lint - --explain ID` gives the same turns as the file (read once)."""
    text = json.dumps(example("0.5", "rich"))
    piped = runner.invoke(app, ["lint", "-", "--explain", "first_light"], input=text)
    assert piped.exit_code == 0, piped.output
    from_file = runner.invoke(
        app, ["lint", str(write(tmp_path / "rich.json", json.loads(text))), "--explain", "first_light"]
    )
    assert piped.stdout == from_file.stdout
    assert piped.stdout.startswith("# ")
    unknown = runner.invoke(app, ["lint", "-", "--explain", "first_lite"], input=text)
    assert unknown.exit_code == 2
    assert "is no achievement, ending, rule or reveal of standard input" in unknown.output
    assert "did you mean 'first_light'?" in unknown.output
    empty = runner.invoke(app, ["lint", "-", "--explain", "first_light"], input="")
    assert empty.exit_code == 2
    assert "standard input is empty" in empty.output
    two = runner.invoke(app, ["lint", "-", str(tmp_path / "rich.json"), "--explain", "first_light"], input=text)
    assert two.exit_code == 2
    assert "exactly one pack" in two.output


def test_explain_of_a_completion_a_rule_does_not_have_says_so(tmp_path: Path) -> None:
    doc = example("0.5", "rich")
    rule = next(r for r in doc["runtime"]["rules"] if r.get("completion") is None)
    path = write(tmp_path / "rich.json", doc)
    result = runner.invoke(app, ["lint", str(path), "--explain", f"completion:{rule['id']}"])
    assert result.exit_code == 2
    assert f"rule {rule['id']!r} of {path} has no completion condition" in result.stderr
    assert "is no achievement, ending, rule or reveal" not in result.stderr
    assert f"explain {rule['id']!r} for its activation" in result.stderr


def test_explain_of_an_id_under_the_wrong_kind_names_its_kind(tmp_path: Path) -> None:
    pack = write(tmp_path / "rich.json", example("0.5", "rich"))
    wrong = runner.invoke(app, ["lint", str(pack), "--explain", "ending:first_light"])
    assert wrong.exit_code == 2
    assert wrong.stderr == (
        f"creatorpack: 'ending:first_light': 'first_light' of {pack} is no ending but an achievement; "
        "explain 'achievement:first_light'\n"
    )
    misspelt = runner.invoke(app, ["lint", str(pack), "--explain", "achievment:first_light"])
    assert misspelt.exit_code == 2
    assert misspelt.stderr == (
        "creatorpack: 'achievment:first_light': no goal is of kind 'achievment'; "
        "did you mean 'achievement:first_light'?\n"
    )
    far = runner.invoke(app, ["lint", str(pack), "--explain", "reader_card:nobody"])
    assert far.exit_code == 2
    assert "did you mean" not in far.stderr  # 'reader_card:' alone makes no id near


def test_explain_of_a_reveal_without_its_kind_or_owner_names_the_key_it_means(tmp_path: Path) -> None:
    pack = write(tmp_path / "rich.json", example("0.5", "rich"))
    expected = {
        "mara": "did you mean 'reader_card:mara'?",  # a card's id, without its kind
        "deed:relit_the_lamp": "did you mean 'deed:cast_mara/relit_the_lamp'?",  # a deed without its casting
        "cards:mara": "no goal is of kind 'cards'; did you mean 'reader_card:mara'?",
    }
    for target, told in expected.items():
        result = runner.invoke(app, ["lint", str(pack), "--explain", target])
        assert result.exit_code == 2, target
        assert result.stderr.rstrip("\n").endswith(told), result.stderr


def test_explain_of_a_kind_with_no_name_before_its_colon_says_how_a_goal_is_named(tmp_path: Path) -> None:
    pack = write(tmp_path / "rich.json", example("0.5", "rich"))
    result = runner.invoke(app, ["lint", str(pack), "--explain", ":first_light"])
    assert result.exit_code == 2
    assert result.stderr == (
        "creatorpack: --explain: a goal is named kind:id (say achievement:a1), not ':first_light'\n"
    )


def test_explain_takes_a_goal_its_text_or_a_bare_id_alike() -> None:
    text = json.dumps(example("0.5", "rich"))
    every = goals(json.loads(text))
    goal = next(g for g in every if g.kind == "achievement")
    assert goal == Goal("achievement", goal.id)
    witness = explain(text, goal)
    assert witness is not None
    assert explain(text, str(goal)) == witness == explain(text, goal.id)
    with pytest.raises(ValueError, match="a goal is named kind:id"):
        explain(text, ":" + goal.id)
