"""``POST /v1/validate`` and ``/v1/lint`` answer exactly the CLI's JSON report for the same file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from creatorpack.cli import app as cli_app
from tests.conftest import EXAMPLES, VERSIONS, example
from tests.service.conftest import JSON


def _cli(command: str, path: Path) -> dict[str, Any]:
    result = CliRunner().invoke(cli_app, [command, "--format", "json", str(path)])
    (entry,) = json.loads(result.stdout)["files"]
    entry.pop("path")
    return _timeless(entry)


def _timeless(report: dict[str, Any]) -> dict[str, Any]:
    # The reachability search stops at a time bound: on a busy machine either side may report
    # 'reachability-bound' warnings the other did not. Everything else must be equal.
    return {**report, "errors": [e for e in report["errors"] if e["code"] != "reachability-bound"]}


def _broken() -> dict[str, bytes]:
    pack = example("0.5", "rich")
    pack["manifest"]["language"] = "xx"
    del pack["entries"]
    lint_error = example("0.4", "rich")
    lint_error["reader_cards"] = [*lint_error.get("reader_cards", []), *lint_error.get("reader_cards", [])[:1]]
    return {
        "invalid.json": json.dumps(pack, indent=2).encode(),
        "duplicate.json": b'{\n  "protocol_version": "0.5",\n  "protocol_version": "0.5"\n}\n',
        "lint-error.json": json.dumps(lint_error, indent=2).encode(),
        "unknown-version.json": b'{"protocol_version": "9.9"}',
    }


CASES = {f"{v}-{k}.json": (EXAMPLES / v / f"{k}.json").read_bytes() for v in VERSIONS for k in ("minimal", "rich")}
CASES.update(_broken())


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("command", ["validate", "lint"])
def test_same_report_as_the_cli(stateless_client: TestClient, tmp_path: Path, command: str, name: str) -> None:
    body = CASES[name]
    path = tmp_path / name
    path.write_bytes(body)
    response = stateless_client.post(f"/v1/{command}", content=body, headers=JSON)
    assert response.status_code == 200
    assert _timeless(response.json()) == _cli(command, path)


def test_unreadable_input_carries_the_cli_entry(stateless_client: TestClient, tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(b'{"a": [1, 2,]}')
    for command in ("validate", "lint"):
        response = stateless_client.post(f"/v1/{command}", content=path.read_bytes(), headers=JSON)
        assert response.status_code == 400
        assert response.json()["errors"] == _cli(command, path)["errors"]
