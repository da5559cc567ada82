"""The layers hold at run time: the core loads no CLI, web or database framework."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("typer", "rich", "click", "fastapi", "starlette", "sqlalchemy", "alembic", "uvicorn", "redis", "boto3")


@pytest.mark.parametrize(
    "code",
    [
        'import creatorpack; creatorpack.validate(b\'{"protocol_version": "0.5"}\')',
        'import creatorpack; creatorpack.lint(b\'{"protocol_version": "0.2"}\')',
        "import creatorpack; creatorpack.Session",
    ],
)
def test_core_loads_no_framework(code: str) -> None:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []


def test_the_cli_is_not_loaded_by_the_core() -> None:
    probe = "import creatorpack, sys; creatorpack.lint; print('creatorpack.cli' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"
