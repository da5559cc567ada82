"""editors/vscode: the extension loads with its locked npm packages, starts ``creatorpack lsp``, and packages.

VS Code is not here, so ``editors/vscode/test/check.js`` loads ``extension.js`` and the locked
``vscode-languageclient`` against a stub of the ``vscode`` module, activates the extension and
catches the spawn it asks for. The ``.vsix`` is built with the locked ``@vscode/vsce``, offline.
``./dev test`` runs ``npm ci`` in editors/vscode when its packages are missing or the lock changed;
without node the tests are skipped locally and fail under CI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from .conftest import ROOT

EXTENSION = ROOT / "editors" / "vscode"


def _node() -> str:
    node = shutil.which("node")
    ready = node is not None and (EXTENSION / "node_modules" / "vscode-languageclient" / "package.json").is_file()
    if not ready:
        why = (
            "node is not installed"
            if node is None
            else "the extension's packages are not: npm ci --prefix editors/vscode"
        )
        if os.environ.get("CI"):
            pytest.fail(f"{why}; CI must check the VS Code extension")
        pytest.skip(why)
    assert node is not None
    return node


def _check(*args: str) -> dict[str, object]:
    command = [_node(), str(EXTENSION / "test" / "check.js"), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False, cwd=EXTENSION)
    assert done.returncode == 0, done.stdout + done.stderr
    seen: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return seen


def test_the_extension_spawns_creatorpack_lsp_from_its_setting() -> None:
    seen = _check("${workspaceFolder}/.venv/bin/creatorpack")
    assert seen["spawned"] == [
        {"command": "/home/creator/packs/.venv/bin/creatorpack", "args": ["lsp"], "shell": False}
    ]
    assert seen["shown"] == []
    assert seen["selector"] == ["file:json", "file:jsonc", "untitled:json"]
    assert seen["subscriptions"] == 1  # it listens for a change of creatorpack.path
    assert _check("")["spawned"] == [{"command": "creatorpack", "args": ["lsp"], "shell": False}]


def test_the_manifest_declares_the_setting_the_activation_and_locked_packages() -> None:
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    assert manifest["main"] == "./extension.js"
    assert {"onLanguage:json", "onLanguage:jsonc"} <= set(manifest["activationEvents"])
    setting = manifest["contributes"]["configuration"]["properties"]["creatorpack.path"]
    assert setting["default"] == "creatorpack"
    lock = json.loads((EXTENSION / "package-lock.json").read_text(encoding="utf-8"))
    for name, version in {**manifest["dependencies"], **manifest["devDependencies"]}.items():
        assert lock["packages"][f"node_modules/{name}"]["version"] == version, name


def test_the_extension_packages_into_a_vsix(tmp_path: Path) -> None:
    node = _node()
    vsce = EXTENSION / "node_modules" / "@vscode" / "vsce" / "vsce"
    out = tmp_path / "creatorpack.vsix"
    command = [node, str(vsce), "package", "--skip-license", "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, cwd=EXTENSION)
    assert done.returncode == 0, done.stdout + done.stderr
    with zipfile.ZipFile(out) as vsix:
        names = set(vsix.namelist())
    assert {"extension/extension.js", "extension/package.json"} <= names
    assert "extension/node_modules/vscode-languageclient/node.js" in names
    assert not any(name.startswith("extension/test/") for name in names)
