"""The lint note "the reachability search did not run" in every output format, not only text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from creatorpack.cli import app

from .conftest import EXAMPLES, example

runner = CliRunner()


def write(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize("output_format", ["json", "sarif", "github"])
def test_the_search_did_not_run_note_is_in_every_format(tmp_path: Path, output_format: str) -> None:
    """Regression: only the text output said that lint errors kept the reachability search from running."""
    pack = example("0.5", "rich")
    pack["presentation"]["bindings"][0]["asset_id"] = "no_such_asset"
    path = write(tmp_path / "pack.json", pack)
    result = runner.invoke(app, ["lint", "--format", output_format, str(path)])
    assert result.exit_code == 1, result.output
    said = "the reachability search (unreachable, never-revealed, reachability-bound) did not run"
    clean = runner.invoke(
        app, ["lint", "--format", output_format, "--max-seconds", "60", str(EXAMPLES / "0.5" / "rich.json")]
    )
    assert said not in clean.output
    if output_format == "json":
        [file] = json.loads(result.output)["files"]
        assert file["note"].startswith(said)
        assert file["note"].endswith("fix the 1 lint error above, then lint again")
        assert [f["code"] for f in file["errors"]] == ["unknown-reference"]
        assert "note" not in json.loads(clean.output)["files"][0]
    elif output_format == "sarif":
        (run,) = json.loads(result.output)["runs"]
        [invocation] = run["invocations"]
        assert invocation["executionSuccessful"] is True
        [note] = invocation["toolExecutionNotifications"]
        assert note["level"] == "note"
        assert note["descriptor"] == {"id": "reachability-not-searched"}
        assert note["message"]["text"].startswith(said)
        assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("pack.json")
        assert [r["ruleId"] for r in run["results"]] == ["unknown-reference"]  # a note is no result
        assert "invocations" not in json.loads(clean.output)["runs"][0]
    else:
        notices = [line for line in result.output.splitlines() if line.startswith("::notice ")]
        rest = ": it runs only on a pack without lint errors; fix the 1 lint error above, then lint again"
        assert notices == [f"::notice file={path},title=reachability-not-searched::{said}{rest}"]
