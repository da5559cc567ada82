"""``creatorpack rule CODE``: each lint rule's documentation, shipped in the package and kept equal to docs/lint.md."""

from __future__ import annotations

import os
from pathlib import Path

from typer.testing import CliRunner

from creatorpack.cli import app
from creatorpack.lint.linter import RULES
from creatorpack.lint.ruledocs import rule_doc, rule_docs

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "src" / "creatorpack" / "lint" / "rules.md"
runner = CliRunner()


def test_the_shipped_rule_docs_are_the_rules_section_of_docs_lint_md() -> None:
    docs = (ROOT / "docs" / "lint.md").read_text(encoding="utf-8")
    section = docs[docs.index("## Rules\n") :]
    shipped = SHIPPED.read_text(encoding="utf-8")
    header = shipped[: shipped.index("## Rules\n")]
    if os.environ.get("CREATORPACK_REGENERATE") and shipped != header + section:
        SHIPPED.write_text(header + section, encoding="utf-8")
        shipped = header + section
    assert shipped == header + section, "run CREATORPACK_REGENERATE=1 pytest tests/test_rule_docs.py"


def test_every_rule_has_its_documentation_with_a_bad_and_a_good_example() -> None:
    assert sorted(rule_docs()) == sorted(RULES)
    for code, rule in RULES.items():
        doc = rule_doc(code)
        assert doc is not None
        assert doc.text.startswith(f"### `{code}`\n\n**{rule.severity}**: {rule.summary}.")
        assert rule.rationale in doc.text
        assert doc.bad.strip(), code
        assert doc.good.strip() or code == "unknown-actor", code
    assert rule_doc("no-such-rule") is None


def test_rule_command_prints_a_rules_documentation_from_the_package() -> None:
    result = runner.invoke(app, ["rule", "unknown-effect-op"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("### `unknown-effect-op`\n\n**error**: an effect op the runtime does not know")
    assert 'Bad:\n\n```\n{"op": "increase", "path": "/trust", "by": 1}' in result.output
    listed = runner.invoke(app, ["rule"])
    assert listed.exit_code == 0
    assert len(listed.output.splitlines()) == len(RULES) + 1
    assert "unreachable" in listed.output


def test_rule_command_refuses_an_unknown_code_with_a_suggestion() -> None:
    result = runner.invoke(app, ["rule", "unreachabel"])
    assert result.exit_code == 2
    assert "did you mean 'unreachable'?" in result.stderr


def test_messages_about_rule_codes_point_at_the_command_not_a_repository_file(tmp_path: Path) -> None:
    """Regression: '--ignore' and the pyproject table said 'see docs/lint.md', a file an installed package lacks."""
    pack = ROOT / "examples" / "0.5" / "minimal.json"
    result = runner.invoke(app, ["lint", "--ignore", "spoiler-titel", str(pack)])
    assert result.exit_code == 2
    assert "creatorpack rule lists them" in result.output
    assert "docs/lint.md" not in result.output
    (tmp_path / "pyproject.toml").write_text('[tool.creatorpack.lint]\nignore = ["spoiler-titel"]\n')
    copied = tmp_path / "pack.json"
    copied.write_bytes(pack.read_bytes())
    result = runner.invoke(app, ["lint", str(copied)])
    assert result.exit_code == 2
    assert "creatorpack rule lists them" in result.output
    assert "docs/lint.md" not in result.output
