"""Everything the CLI reads whole is bounded: scripts, saves and standard input end in limit-exceeded (exit 2).

A file one byte over the limit is made sparse (no disk is used); standard input is an endless
stream, like ``/dev/zero``, that fails the test instead of hanging when it is read to its end.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import typer.testing
from typer.testing import CliRunner

from creatorpack.cli import app
from creatorpack.contract.validation import MAX_BYTES

from .conftest import EXAMPLES

runner = CliRunner()
RICH = str(EXAMPLES / "0.5" / "rich.json")
SCRIPT = str(EXAMPLES / "0.5" / "playthrough.jsonl")
TOO_LARGE = f"limit-exceeded: larger than the limit of {MAX_BYTES:,} bytes"


class Endless(io.RawIOBase):
    """Standard input that never ends, as ``/dev/zero``: reading all of it is the bug under test."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size = len(buffer)
        buffer[:size] = bytes(size)
        return size

    def readall(self) -> bytes:
        raise AssertionError("the command read an endless standard input to its end")


@pytest.fixture
def endless(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the runner's standard input :class:`Endless` (typer's runner takes only bytes or text)."""
    monkeypatch.setattr(typer.testing, "make_input_stream", lambda _input, _charset: io.BufferedReader(Endless()))


@pytest.fixture
def huge(tmp_path: Path) -> str:
    """A file of NUL bytes, one byte larger than the limit (sparse, so it costs no disk)."""
    path = tmp_path / "huge"
    with path.open("wb") as handle:
        handle.truncate(MAX_BYTES + 1)
    return str(path)


def _refused(result: Any, message: str) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_a_script_over_the_limit(huge: str) -> None:
    _refused(runner.invoke(app, ["play", RICH, "--script", huge]), f"cannot read the script {huge}: {TOO_LARGE}")


@pytest.mark.usefixtures("endless")
def test_a_script_on_endless_standard_input() -> None:
    result = runner.invoke(app, ["play", RICH, "--script", "-"])
    _refused(result, f"cannot read the script standard input: {TOO_LARGE}")


def test_a_script_on_standard_input_still_plays() -> None:
    result = runner.invoke(app, ["play", RICH, "--script", "-"], input=Path(SCRIPT).read_bytes())
    assert result.exit_code == 0, result.output
    assert "ending" in result.stdout


def test_a_save_over_the_limit(huge: str) -> None:
    result = runner.invoke(app, ["play", RICH, "--load", huge, "--script", SCRIPT])
    _refused(result, f"cannot read the save {huge}: {TOO_LARGE}")


def test_a_diff_save_over_the_limit(huge: str) -> None:
    _refused(runner.invoke(app, ["diff", RICH, RICH, "--save", huge]), f"{huge}: cannot read the save: {TOO_LARGE}")


@pytest.mark.usefixtures("endless")
def test_upgrade_on_endless_standard_input() -> None:
    result = runner.invoke(app, ["upgrade", "-"])
    _refused(result, f"-: limit-exceeded: standard input is larger than the limit of {MAX_BYTES:,} bytes")


@pytest.mark.parametrize("command", ["validate", "lint"])
def test_standard_input_over_max_bytes_is_not_given_an_invented_size(command: str) -> None:
    # Only max_bytes + 1 bytes are read: the report cannot know the size, only that it is larger.
    pack = (EXAMPLES / "0.5" / "minimal.json").read_bytes()
    assert len(pack) > 501
    result = runner.invoke(app, [command, "-", "--max-bytes", "500"], input=pack)
    assert result.exit_code == 2, result.output
    code = "error[limit-exceeded]:" if command == "lint" else "limit-exceeded"  # lint names the severity
    assert f"-: {code} standard input is larger than the limit of 500 bytes" in result.stdout
    assert "501" not in result.stdout


@pytest.mark.usefixtures("endless")
def test_play_on_endless_standard_input() -> None:
    result = runner.invoke(app, ["play", "-", "--script", SCRIPT])
    _refused(result, f"-: limit-exceeded: standard input is larger than the limit of {MAX_BYTES:,} bytes")
