"""The pre-commit hooks (``.pre-commit-hooks.yaml``), run by ``pre-commit try-repo`` on a scratch repository.

pre-commit installs this repository into a virtualenv with pip (a build with hatchling), so this
test takes about half a minute; pip reads the same package index as the rest of the tooling.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from .conftest import EXAMPLES, ROOT, example


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _snapshot(dest: Path) -> str:
    """This checkout's files (tracked and new, as they are now) committed in ``dest``; the commit."""
    listed = _git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    _git(dest, "init", "-q")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "snapshot")
    return _git(dest, "rev-parse", "HEAD").strip()


def _try_repo(project: Path, repo: Path, rev: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(repo), "--ref", rev, "--all-files"]
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, check=False, timeout=600)


def test_manifest_declares_both_hooks() -> None:
    # pre-commit's own loader checks the manifest's schema (it ships no type information).
    hooks = importlib.import_module("pre_commit.clientlib").load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    by_id = {hook["id"]: hook for hook in hooks}
    assert set(by_id) == {"creatorpack-validate", "creatorpack-lint"}
    for hook in hooks:
        assert hook["language"] == "python"
        assert hook["types"] == ["json"]
        assert hook["entry"].startswith("creatorpack hook ")


def test_try_repo_checks_packs_and_skips_other_json(tmp_path: Path) -> None:
    repo = tmp_path / "creatorpack"
    repo.mkdir()
    rev = _snapshot(repo)
    project = tmp_path / "story"
    project.mkdir()
    _git(project, "init", "-q")
    shutil.copy(EXAMPLES / "0.5" / "rich.json", project / "pack.json")
    (project / "package.json").write_text('{"name": "site", "private": true}\n', encoding="utf-8")
    (project / "data.json").write_text("[1, 2, 3]\n", encoding="utf-8")
    (project / "notes.txt").write_text('{"protocol_version": "9"}\n', encoding="utf-8")
    _git(project, "add", "-A")

    passed = _try_repo(project, repo, rev, tmp_path / "home")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "creatorpack validate" in passed.stdout
    assert "creatorpack lint" in passed.stdout
    assert "Failed" not in passed.stdout

    bad = example("0.5", "minimal")
    bad["manifest"]["language"] = "fr"
    (project / "chapters").mkdir()
    (project / "chapters" / "bad.json").write_text(json.dumps(bad, indent=2), encoding="utf-8")
    _git(project, "add", "-A")
    failed = _try_repo(project, repo, rev, tmp_path / "home")  # the same environment, installed once
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert failed.stdout.count("Failed") == 2
    assert "chapters/bad.json" in failed.stdout
    assert "/manifest/language" in failed.stdout
    assert "package.json" not in failed.stdout
