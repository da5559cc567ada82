"""The ``creatorpack`` command: formats, exit codes, directories, stdin, parallel runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from creatorpack import schema
from creatorpack.cli import app

from .conftest import EXAMPLES, example, put

runner = CliRunner()


def write(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    bad = put(example("0.5", "minimal"), "/manifest/language", "fr")
    (tmp_path / "sub").mkdir()
    return {
        "good": write(tmp_path / "good.json", example("0.4", "minimal")),
        "bad": write(tmp_path / "sub" / "bad.json", bad),
    }


def test_valid_file_exits_0(files: dict[str, Path]) -> None:
    result = runner.invoke(app, ["validate", str(files["good"])])
    assert result.exit_code == 0, result.output
    assert "Checked 1 file: 1 valid." in result.output


def test_invalid_file_exits_1_with_location_and_excerpt(files: dict[str, Path]) -> None:
    result = runner.invoke(app, ["validate", str(files["bad"])])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    head = next(line for line in lines if " enum " in line)
    path, line, column, rest = head.split(":", 3)
    assert path == str(files["bad"])
    assert rest.strip() == "enum language: 'fr' is not one of 'zh', 'zh-CN', 'en'"
    source = files["bad"].read_text().splitlines()[int(line) - 1]
    assert source[int(column) - 1 :].startswith('"fr"')
    assert any(line.rstrip().endswith("^") for line in lines)
    assert "at /manifest/language" in result.output
    assert "1 invalid (1 error)" in lines[-1]


def test_unreadable_inputs_exit_2_and_others_are_still_reported(files: dict[str, Path], tmp_path: Path) -> None:
    junk = tmp_path / "junk.json"
    junk.write_bytes(b"\x00\x01binary")
    result = runner.invoke(app, ["validate", str(files["good"]), str(junk), str(tmp_path / "missing.json")])
    assert result.exit_code == 2
    assert "invalid-json" in result.output
    assert "unreadable-file" in result.output
    assert "Checked 3 files: 1 valid, 2 unreadable." in result.output


def test_directory_is_searched_recursively(files: dict[str, Path], tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(tmp_path), "--format", "json"])
    assert result.exit_code == 1
    paths = [f["path"] for f in json.loads(result.output)["files"]]
    assert paths == sorted([str(files["good"]), str(files["bad"])])


def test_json_format_shape(files: dict[str, Path]) -> None:
    result = runner.invoke(app, ["validate", "-f", "json", str(files["good"]), str(files["bad"])])
    out = json.loads(result.output)
    good, bad = out["files"]
    assert good == {"path": str(files["good"]), "valid": True, "version": "0.4", "errors": []}
    assert bad["valid"] is False
    assert bad["version"] == "0.5"
    (error,) = bad["errors"]
    assert set(error) == {"pointer", "code", "message", "line", "column"}
    assert error["pointer"] == "/manifest/language"
    assert error["code"] == "enum"


def test_sarif_format(files: dict[str, Path]) -> None:
    result = runner.invoke(app, ["validate", "--format", "sarif", str(files["bad"])])
    sarif = json.loads(result.output)
    assert sarif["version"] == "2.1.0"
    (run,) = sarif["runs"]
    assert run["tool"]["driver"]["name"] == "creatorpack"
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["enum"]
    (res,) = run["results"]
    assert res["ruleId"] == "enum"
    assert res["level"] == "error"
    region = res["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] > 1
    assert res["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "/manifest/language"


def test_github_format(files: dict[str, Path]) -> None:
    result = runner.invoke(app, ["validate", "--format", "github", str(files["bad"])])
    first = result.output.splitlines()[0]
    assert first.startswith(f"::error file={files['bad']},line=")
    assert ",title=enum::" in first
    assert first.endswith("at /manifest/language")


def test_stdin(files: dict[str, Path]) -> None:
    result = runner.invoke(app, ["validate", "-"], input=files["bad"].read_bytes())
    assert result.exit_code == 1
    assert result.output.startswith("-:")


def test_bad_format_and_no_files_are_usage_errors(tmp_path: Path) -> None:
    assert runner.invoke(app, ["validate", "--format", "xml", str(tmp_path)]).exit_code == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["validate", str(empty)])
    assert result.exit_code == 2
    assert "no *.json files" in result.output


def test_parallel_jobs_give_the_same_results(tmp_path: Path) -> None:
    for i in range(12):
        doc = example("0.5", "rich") if i % 3 else put(example("0.5", "rich"), "/manifest/revision", 0)
        write(tmp_path / f"p{i:02}.json", doc)
    serial = runner.invoke(app, ["validate", "-f", "json", str(tmp_path)])
    parallel = runner.invoke(app, ["validate", "-f", "json", "--jobs", "3", str(tmp_path)])
    assert serial.exit_code == parallel.exit_code == 1
    assert json.loads(serial.output) == json.loads(parallel.output)


@pytest.mark.parametrize("version", ["0.2", "0.3", "0.4", "0.5", "all"])
def test_schema_command_prints_the_bundled_schema(version: str) -> None:
    result = runner.invoke(app, ["schema", version])
    assert result.exit_code == 0
    printed = json.loads(result.output)
    assert printed == schema.bundle(None if version == "all" else version)


def test_schema_command_unknown_version() -> None:
    result = runner.invoke(app, ["schema", "0.9"])
    assert result.exit_code == 2
    assert "supported versions: 0.2, 0.3, 0.4, 0.5" in result.output


def test_console_script_runs_as_a_process() -> None:
    exe = Path(sys.executable).parent / "creatorpack"
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "creatorpack"]
    done = subprocess.run(
        [*command, "validate", str(EXAMPLES)], capture_output=True, text=True, check=False, env=os.environ.copy()
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("Checked 8 files: 8 valid")
