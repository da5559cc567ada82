"""Names and texts that could break an output format: non-UTF-8 file names, control characters in a pack."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from creatorpack._text import one_line
from creatorpack.cli import app

from .conftest import example, put

runner = CliRunner()


def _named(tmp_path: Path, raw: bytes, pack: dict[str, Any]) -> Path:
    """A pack under a file name of raw bytes (not UTF-8), as a Linux directory may hold one."""
    path = tmp_path / os.fsdecode(raw)
    try:
        path.write_text(json.dumps(pack), encoding="utf-8")
    except (OSError, UnicodeEncodeError) as exc:  # a file system that refuses such names
        pytest.skip(f"this file system refuses a file name that is not UTF-8: {exc}")
    return path


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "text"])
def test_a_file_name_that_is_not_utf8_is_reported_not_a_crash(tmp_path: Path, fmt: str) -> None:
    _named(tmp_path, b"ok\xfe.json", example("0.5", "minimal"))
    bad = example("0.5", "minimal")
    put(bad, "/manifest/revision", -1)
    _named(tmp_path, b"bad\xff.json", bad)
    result = runner.invoke(app, ["validate", str(tmp_path), "--format", fmt])
    assert result.exit_code == 1, result.output  # one valid, one invalid: not a crash's 1 with nothing printed
    assert "Traceback" not in result.output
    if fmt == "json":
        files = {Path(f["path"]).name: f["valid"] for f in json.loads(result.stdout)["files"]}
        assert files == {"ok\\xfe.json": True, "bad\\xff.json": False}
    elif fmt == "sarif":
        uris = [
            location["physicalLocation"]["artifactLocation"]["uri"]
            for found in json.loads(result.stdout)["runs"][0]["results"]
            for location in found["locations"]
        ]
        assert uris
        assert all(uri.endswith("/bad%FF.json") for uri in uris)  # the name's own byte
    else:
        assert "bad\\xff.json" in result.stdout


def _with_path(path: str) -> dict[str, Any]:
    pack = example("0.5", "rich")
    put(pack, "/runtime/rules/0/when", {"op": "eq", "path": path, "value": 1})
    return pack


@pytest.mark.parametrize("fmt", ["text", "github"])
@pytest.mark.parametrize("command", ["lint", "validate"])
def test_control_characters_of_a_pack_are_escaped_in_line_outputs(tmp_path: Path, fmt: str, command: str) -> None:
    """A newline or an ANSI escape in a path or a member name neither splits a finding nor reaches the terminal."""
    if command == "lint":  # a valid pack whose condition reads a path the state does not have
        pack, shown = _with_path("/tr\nust\x1b[31m\u2028"), "tr\\nust\\x1b[31m\\u2028"
    else:  # a member the manifest does not have: its pointer holds the characters
        pack, shown = example("0.5", "minimal"), "co\\nlour\\x1b[31m"
        pack["manifest"]["co\nlour\x1b[31m"] = "x"
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(pack), encoding="utf-8")
    output = runner.invoke(app, [command, str(path), "--format", fmt]).stdout
    assert "\x1b" not in output
    assert "\u2028" not in output
    assert shown in output, output
    assert not [line for line in output.splitlines() if line.startswith(("ust", "lour"))], output  # nothing split off


def test_lint_json_gives_every_finding_a_severity(tmp_path: Path) -> None:
    """An editor reads ``severity`` of every lint finding, an unreadable file's included."""
    broken = tmp_path / "broken.json"
    broken.write_text('{"protocol_version": "0.5", oops}', encoding="utf-8")
    result = runner.invoke(app, ["lint", str(tmp_path / "missing.json"), str(broken), "--format", "json"])
    assert result.exit_code == 2
    found = [f for file in json.loads(result.stdout)["files"] for f in file["errors"]]
    assert [f["severity"] for f in found] == ["error", "error"]


def test_errors_and_notices_name_a_hostile_file_on_one_line(tmp_path: Path) -> None:
    """A file name with a newline and an ANSI escape, in an error and in upgrade's 'written to'."""
    hostile = tmp_path / "new\nline\x1b[31m.json"
    missing = runner.invoke(app, ["diff", str(hostile), str(hostile)])
    assert missing.exit_code == 2
    assert missing.stderr.count("\n") == 1, missing.stderr
    assert "\x1b" not in missing.stderr
    source = tmp_path / "old.json"
    source.write_text(json.dumps(example("0.4", "minimal")), encoding="utf-8")
    written = runner.invoke(app, ["upgrade", str(source), "-o", str(hostile)])
    assert written.exit_code == 0, written.output
    assert hostile.exists()
    (line,) = [line for line in written.stdout.splitlines() if line.startswith("written to")]
    assert line.endswith("new\\nline\\x1b[31m.json")


def test_the_problems_of_an_error_stay_one_per_line(tmp_path: Path) -> None:
    """A save that no longer fits: the error's line, then each value that does not fit on a line of its own."""
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps(example("0.5", "rich")), encoding="utf-8")
    script = tmp_path / "one.jsonl"
    script.write_text('{"observations": {}}\n', encoding="utf-8")
    save = tmp_path / "save.json"
    made = runner.invoke(app, ["play", str(pack), "--script", str(script), "--save-to", str(save)])
    assert made.exit_code == 0, made.output
    saved = json.loads(save.read_text(encoding="utf-8"))
    saved["state"]["trust"] = 99
    saved["state"]["inventory"] = ["zz\nz"]
    save.write_text(json.dumps(saved), encoding="utf-8")
    loaded = runner.invoke(app, ["play", str(pack), "--script", str(script), "--load", str(save)])
    assert loaded.exit_code == 2
    first, *problems = loaded.stderr.splitlines()
    assert first.startswith("creatorpack: ")
    assert first.endswith("2 values no longer fit"), first
    assert problems[0] == "  /state/trust: 99 is outside 0..10"
    assert problems[1].startswith("  /state/inventory/0: 'zz\\nz'")
    assert len(problems) == 2


def test_play_format_without_a_script_is_a_usage_error(tmp_path: Path) -> None:
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps(example("0.5", "rich")), encoding="utf-8")
    result = runner.invoke(app, ["play", str(pack), "--format", "json"], input="q\n")
    assert result.exit_code == 2
    assert "give --script too" in result.output


def test_init_on_a_file_says_it_is_not_a_directory(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("", encoding="utf-8")
    result = runner.invoke(app, ["init", str(afile)])
    assert result.exit_code == 2
    assert result.stderr == f"creatorpack: {afile} is not a directory: name a directory to create the pack in\n"


def test_bidirectional_controls_are_escaped_too() -> None:
    """A name holding U+202E would print the rest of the line reversed ("Trojan Source")."""
    assert one_line("pack\u202enosj.json") == "pack\\u202enosj.json"
    assert one_line("\u2066a\u2069") == "\\u2066a\\u2069"
