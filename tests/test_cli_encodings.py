"""A pack saved as UTF-16 or UTF-32 is reported as not UTF-8 (exit 2), never skipped as some other JSON file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from creatorpack.cli import _workflow, app

from .conftest import example

runner = CliRunner()
CODECS = ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-be"]


def _wide(path: Path, codec: str) -> Path:
    path.write_bytes(json.dumps(example("0.5", "minimal"), indent=2).encode(codec))
    return path


@pytest.mark.parametrize("codec", CODECS)
def test_a_walked_directory_reports_it(tmp_path: Path, codec: str) -> None:
    _wide(tmp_path / "pack.json", codec)
    (tmp_path / "package.json").write_text('{"name": "not a pack"}')
    result = runner.invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert "pack.json:1:1: invalid-json saved as UTF-" in result.stdout
    assert "not UTF-8; save the file as UTF-8" in result.stdout
    assert "skipped 1 JSON file without protocol_version" in result.stderr  # package.json only


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("command", ["validate", "lint"])
def test_the_hook_reports_it(tmp_path: Path, codec: str, command: str) -> None:
    pack = _wide(tmp_path / "pack.json", codec)
    assert _workflow.is_pack_file(str(pack))
    result = runner.invoke(app, ["hook", command, str(pack)])
    assert result.exit_code == 2, result.output
    code = "error[invalid-json]:" if command == "lint" else "invalid-json"  # lint names the severity
    assert f"{code} saved as UTF-" in result.stdout


def test_other_json_in_utf_16_is_still_skipped(tmp_path: Path) -> None:
    other = tmp_path / "package.json"
    other.write_bytes('{"name": "not a pack"}'.encode("utf-16"))
    assert not _workflow.is_pack_file(str(other))
    assert runner.invoke(app, ["hook", "validate", str(other)]).exit_code == 0
