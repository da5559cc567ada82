"""docs/editors.md: the bundles of ``creatorpack schema`` work in a JSON Schema tool that is not creatorpack."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from creatorpack.cli import app

from .conftest import EXAMPLES, example

runner = CliRunner()


def _schema(tmp_path: Path, version: str) -> Path:
    result = runner.invoke(app, ["schema", version])
    assert result.exit_code == 0
    path = tmp_path / f"pack-{version}.json"
    path.write_text(result.stdout, encoding="utf-8")
    return path


def _check(schema: Path, *packs: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "check_jsonschema", "--schemafile", str(schema), *map(str, packs)]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)


@pytest.mark.parametrize("version", ["0.3", "0.4", "0.5", "all"])
def test_check_jsonschema_accepts_the_examples_and_rejects_a_broken_pack(tmp_path: Path, version: str) -> None:
    schema = _schema(tmp_path, version)
    versions = ["0.3", "0.4", "0.5"] if version == "all" else [version]
    packs = [EXAMPLES / v / f"{kind}.json" for v in versions for kind in ("minimal", "rich")]
    ok = _check(schema, *packs)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    broken = example(versions[-1], "minimal")
    broken["manifest"]["language"] = "fr"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(broken), encoding="utf-8")
    failed = _check(schema, bad)
    assert failed.returncode == 1
    assert "language" in failed.stdout
