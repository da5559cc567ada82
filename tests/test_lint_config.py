"""The [tool.creatorpack.lint] table: checked types, ranges and codes, with errors naming the file and key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from creatorpack.cli import app
from creatorpack.errors import CreatorpackError
from creatorpack.lint import LintConfig, LintConfigError, LintSettings, lint, load_config

from .conftest import EXAMPLES, example

runner = CliRunner()

SOURCE = "proj/pyproject.toml"


def test_a_good_table() -> None:
    settings = load_config(
        {"ignore": ["spoiler-title"], "strict": True, "max-states": 5, "max-seconds": 1}, source=SOURCE
    )
    assert settings == LintSettings(frozenset({"spoiler-title"}), strict=True, max_states=5, max_seconds=1.0)
    assert load_config({}, source=SOURCE) == LintSettings()


@pytest.mark.parametrize(
    ("table", "key", "problem"),
    [
        ({"max-seconds": "fast"}, "max-seconds", "must be a number of seconds, not a string ('fast')"),
        ({"max-seconds": -1}, "max-seconds", "0 or more, not -1"),
        ({"max-seconds": float("nan")}, "max-seconds", "finite"),
        ({"strict": "no"}, "strict", "must be true or false, not a string ('no')"),
        ({"strict": 1}, "strict", "must be true or false"),
        ({"max-states": -5}, "max-states", "must be at least 1, not -5"),
        ({"max-states": 2.5}, "max-states", "whole number"),
        ({"max-states": True}, "max-states", "whole number"),
        ({"ignore": "spoiler-title"}, "ignore", "must be an array of rule codes"),
        ({"ignore": [1]}, "ignore", 'item 1 is an integer (1), not a rule code (a string, like "spoiler-title")'),
        ({"ignore": ["spoiler-title", ["x"]]}, "ignore", "item 2 is an array, not a rule code"),
        ({"ignore": ["spoiler-titel"]}, "ignore", "did you mean 'spoiler-title'?"),
        ({"max_states": 5}, "max_states", "did you mean 'max-states'?"),
    ],
)
def test_bad_tables_name_the_file_and_key(table: dict[str, Any], key: str, problem: str) -> None:
    with pytest.raises(LintConfigError) as caught:
        load_config(table, source=SOURCE)
    error = caught.value
    assert isinstance(error, CreatorpackError)
    assert isinstance(error, ValueError)
    assert (error.source, error.key) == (SOURCE, key)
    assert problem in error.problem
    assert str(error).startswith(f"{SOURCE}: [tool.creatorpack.lint] {key}: ")


def test_flags_override_the_table() -> None:
    settings = load_config({"ignore": ["spoiler-title"], "max-states": 5, "max-seconds": 9}, source=SOURCE)
    config = settings.config(max_states=7, max_seconds=None, ignore=["unused-asset"])
    assert config == LintConfig(ignore=frozenset({"spoiler-title", "unused-asset"}), max_states=7, max_seconds=9.0)
    assert LintSettings().config() == LintConfig()


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ('[tool.creatorpack.lint]\nmax-seconds = "fast"', "max-seconds: must be a number of seconds"),
        ('[tool.creatorpack.lint]\nstrict = "no"', "strict: must be true or false"),
        ("[tool.creatorpack.lint]\nmax-states = -5", "max-states: must be at least 1"),
        ('tool = "x"', "pyproject.toml: tool: must be a table ([tool]), not a string ('x')"),
        ('[tool]\ncreatorpack = "x"', "tool.creatorpack: must be a table ([tool.creatorpack]), not a string ('x')"),
        ("[tool]\ncreatorpack = [1]", "tool.creatorpack: must be a table ([tool.creatorpack]), not an array"),
        (
            "[tool.creatorpack]\nlint = 3",
            "tool.creatorpack.lint: must be a table ([tool.creatorpack.lint]), not an integer (3)",
        ),
    ],
)
def test_cli_reports_a_bad_table_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toml: str, expected: str
) -> None:
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps(example("0.5", "minimal")))
    (tmp_path / "pyproject.toml").write_text(f"{toml}\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lint", str(pack)], env={"COLUMNS": "300"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2
    assert expected in " ".join(result.output.split())


def test_other_tool_tables_and_no_lint_table_are_fine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps(example("0.5", "minimal")))
    (tmp_path / "pyproject.toml").write_text('[tool.ruff]\nline-length = 120\n[tool.creatorpack]\nother = "x"\n')
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lint", str(pack)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("value", ["nan", "inf", "1e400", "-inf", "-1"])
def test_cli_max_seconds_must_be_finite_and_not_negative(value: str) -> None:
    # The same rule as the table's max-seconds: a time limit of nan or inf is none at all.
    result = CliRunner().invoke(
        app, ["lint", f"--max-seconds={value}", str(EXAMPLES / "0.5" / "minimal.json")], env={"COLUMNS": "300"}
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, result.output
    assert "--max-seconds" in result.output


@pytest.mark.parametrize("where", ["flag", "table"])
def test_a_time_limit_of_minus_0_shows_as_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps(example("0.5", "rich")))
    flags = ["--max-seconds=-0"] if where == "flag" else []
    if where == "table":
        (tmp_path / "pyproject.toml").write_text("[tool.creatorpack.lint]\nmax-seconds = -0.0\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lint", *flags, str(pack)], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "the safety-net time limit (0 s)" in result.output
    assert "-0 s" not in result.output.replace(str(tmp_path), "")  # tmp_path may hold "pytest-0"


def _spoiled_and_unrevealed() -> dict[str, Any]:
    """A pack with an artwork-not-revealed warning on achievement 1 and a spoiler-title on the tagline."""
    doc = example("0.5", "rich")
    art = next(a for a in doc["assets"] if a["id"] == "kindness_art")
    art["reveal_when"] = {"op": "gte", "path": "/trust", "value": 8}
    doc["publication"]["tagline"] = "Become the Keeper of the Light"
    return doc


@pytest.mark.parametrize("item", ["/progression/achievements/1", "salt_and_kindness"])
def test_per_item_ignores_silence_one_item_by_pointer_or_id(item: str) -> None:
    doc = _spoiled_and_unrevealed()
    every = {f.code for f in lint(json.dumps(doc)).findings}
    assert every == {"artwork-not-revealed", "spoiler-title"}
    config = LintConfig(per_item_ignores={item: {"artwork-not-revealed"}})
    assert {f.code for f in lint(json.dumps(doc), config).findings} == {"spoiler-title"}
    # Only that item, only that code.
    elsewhere = {"/progression/achievements/2": frozenset({"artwork-not-revealed"})}
    other = LintConfig(per_item_ignores={item: {"spoiler-title"}, **elsewhere})
    assert {f.code for f in lint(json.dumps(doc), other).findings} == every


def test_per_item_ignores_from_the_pyproject_table(tmp_path: Path) -> None:
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(_spoiled_and_unrevealed()), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        "[tool.creatorpack.lint.per-item-ignores]\n"
        '"/publication" = ["spoiler-title"]\n'
        'salt_and_kindness = ["artwork-not-revealed"]\n'
    )
    result = runner.invoke(app, ["lint", "--strict", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "Checked 1 file: 1 clean, 0 errors, 0 warnings."


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ('per-item-ignores = ["x"]', "per-item-ignores: must be a table of items to codes"),
        ('per-item-ignores = {"/assets/1" = "unused-asset"}', "per-item-ignores./assets/1: must be an array"),
        ('per-item-ignores = {"/assets/1" = ["unused-aset"]}', "did you mean 'unused-asset'?"),
    ],
)
def test_per_item_ignores_table_errors_name_the_key(tmp_path: Path, table: str, words: str) -> None:
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(example("0.5", "minimal")), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(f"[tool.creatorpack.lint]\n{table}\n")
    result = runner.invoke(app, ["lint", str(path)])
    assert result.exit_code == 2
    assert words in result.output
