"""The [tool.creatorpack.lint] table: checked types, ranges and codes, with errors naming the file and key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from creatorpack.cli import app
from creatorpack.errors import CreatorpackError
from creatorpack.lint import LintConfig, LintConfigError, LintSettings, load_config

from .conftest import example

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
        ('max-seconds = "fast"', "max-seconds: must be a number of seconds"),
        ('strict = "no"', "strict: must be true or false"),
        ("max-states = -5", "max-states: must be at least 1"),
    ],
)
def test_cli_reports_a_bad_table_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toml: str, expected: str
) -> None:
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps(example("0.5", "minimal")))
    (tmp_path / "pyproject.toml").write_text(f"[tool.creatorpack.lint]\n{toml}\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lint", str(pack)], env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert expected in " ".join(result.output.split())
