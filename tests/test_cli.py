"""The ``creatorpack`` command: formats, exit codes, directories, stdin, parallel runs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from creatorpack.cli import app
from creatorpack.contract import schema

from .conftest import EXAMPLES, ROOT, example, put

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
    assert "no pack (*.json with a protocol_version) found" in result.output


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
    assert printed == schema.export(None if version == "all" else version)


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


def test_sarif_declares_code_point_columns_and_documents_each_rule(files: dict[str, Path], tmp_path: Path) -> None:
    sarif = json.loads(runner.invoke(app, ["validate", "--format", "sarif", str(files["bad"])]).output)
    (run,) = sarif["runs"]
    assert run["columnKind"] == "unicodeCodePoints"
    (rule,) = run["tool"]["driver"]["rules"]
    assert rule["help"]["text"].startswith("a value that is not one of the allowed values")
    assert rule["helpUri"].startswith("https://")
    assert rule["helpUri"].endswith("validation.md#codes")
    warned = example("0.5", "rich")
    warned["publication"]["tagline"] = "Become the Keeper of the Light"
    path = write(tmp_path / "warned.json", warned)
    result = runner.invoke(app, ["lint", "--format", "sarif", "--max-seconds", "60", str(path)])
    (run,) = json.loads(result.output)["runs"]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    spoiler = rules["spoiler-title"]
    assert "hidden achievement's or an ending's title" in spoiler["help"]["text"]
    assert spoiler["helpUri"].endswith("docs/lint.md#spoiler-title")
    assert run["results"][0]["ruleIndex"] == list(rules).index(run["results"][0]["ruleId"])
    # Every lint rule's link lands on a heading of docs/lint.md (GitHub's anchor of "### `code`" is "code").
    from creatorpack.lint.linter import RULES

    headings = {
        line.strip("# `\n") for line in (ROOT / "docs" / "lint.md").read_text().splitlines() if line.startswith("### ")
    }
    assert set(RULES) <= headings


def test_errors_in_a_minified_file_show_a_window_with_a_caret(tmp_path: Path) -> None:
    doc = put(example("0.5", "rich"), "/manifest/language", "fr")
    doc["instructions"] = "x" * 1_000_000
    path = tmp_path / "min.json"
    path.write_text(json.dumps(doc, separators=(",", ":")))
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    source = next(line for line in lines if line.startswith("  1 | "))
    caret = lines[lines.index(source) + 1]
    assert len(source) < 120
    assert source.startswith("  1 | …") or '"fr"' in source
    assert source[caret.index("^") :].startswith('"fr"')


@pytest.mark.parametrize(
    ("line", "under"),
    [
        ('{"题名": "猫😀", "x": 1}', '"x"'),  # wide characters before the column take two cells each
        ('{"emoji": "🐈🐈", "bad": 1}', '"bad"'),
        ('{"e\u0301": 1, "bad": 1}', '"bad"'),  # a combining accent takes no cell
        ('{\t"bad": 1}', '"bad"'),  # a tab shows as one space
        ('"' + "字" * 120 + '", "bad"', '"bad"'),  # and in a window of a wide line
    ],
)
def test_carets_align_under_wide_characters(line: str, under: str) -> None:
    from creatorpack.cli._output import display_width, excerpt

    column = line.index(under) + 1
    shown = excerpt(line, column)
    # The text before the caret takes exactly as many cells as the caret's indent.
    cells = 0
    for index in range(len(shown.text) + 1):
        if cells == shown.caret:
            assert shown.text[index:].startswith(under)
            break
        cells += display_width(shown.text[index])
    else:
        pytest.fail(f"caret {shown.caret} falls inside a character of {shown.text!r}")


def test_a_wide_line_is_cut_around_the_column() -> None:
    from creatorpack.cli._output import EXCERPT_WIDTH, display_width, excerpt

    line = '"' + "猫" * 300 + '" bad ' + "y" * 300
    shown = excerpt(line, 303)
    assert shown.text.startswith("…")
    assert shown.text.endswith("…")
    assert display_width(shown.text) <= EXCERPT_WIDTH + 2
    assert EXCERPT_WIDTH // 3 < shown.caret < EXCERPT_WIDTH
    assert excerpt("short", 3) == type(shown)("short", 2)


def test_lint_summary_does_not_call_a_file_with_warnings_clean(tmp_path: Path) -> None:
    warned = example("0.5", "rich")
    warned["publication"]["tagline"] = "Become the Keeper of the Light"
    path = write(tmp_path / "warned.json", warned)
    result = runner.invoke(app, ["lint", "--max-seconds", "60", str(path)])
    assert result.exit_code == 0, result.output
    summary = result.output.splitlines()[-1]
    assert "clean" not in summary
    assert summary.startswith("Checked 1 file: 1 with warnings only, 0 errors, ")
    clean = runner.invoke(app, ["lint", "--max-seconds", "60", str(EXAMPLES / "0.5" / "minimal.json")])
    assert clean.output.splitlines()[-1] == "Checked 1 file: 1 clean, 0 errors, 0 warnings."


def test_output_format_is_a_str_enum() -> None:
    from creatorpack.cli._output import FORMATS, OutputFormat

    assert OutputFormat("sarif") is OutputFormat.SARIF
    assert str(OutputFormat.GITHUB) == "github"
    assert tuple(OutputFormat) == FORMATS
    result = runner.invoke(app, ["validate", "--format", "JSON", str(EXAMPLES / "0.5" / "minimal.json")])
    assert result.exit_code == 0
    assert json.loads(result.output)["files"][0]["valid"] is True


def test_a_missing_file_has_no_location_and_an_empty_file_says_so(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    result = runner.invoke(app, ["validate", str(missing)])
    assert result.exit_code == 2
    assert result.output.startswith(f"{missing}: unreadable-file")
    assert ":1:1" not in result.output
    github = runner.invoke(app, ["validate", "--format", "github", str(missing)]).output
    assert "line=" not in github
    for content in ("", "  \n"):
        empty = tmp_path / "empty.json"
        empty.write_text(content)
        for command in ("validate", "lint"):
            result = runner.invoke(app, [command, str(empty)])
            assert result.exit_code == 2
            assert "empty file" in result.output
    result = runner.invoke(app, ["validate", "-"], input=b"")
    assert "standard input is empty" in result.output


def _warned_pack(folder: Path) -> Path:
    warned = example("0.5", "rich")
    warned["publication"]["tagline"] = "Become the Keeper of the Light"  # a spoiler-title warning
    folder.mkdir(parents=True, exist_ok=True)
    return write(folder / "warned.json", warned)


def test_lint_table_is_found_from_the_pack_and_flags_override_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    path = _warned_pack(project / "packs" / "deep")
    (project / "pyproject.toml").write_text("[tool.creatorpack.lint]\nstrict = true\nmax-seconds = 60\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "pyproject.toml").write_text("[tool.creatorpack.lint]\nstrict = false\n")
    monkeypatch.chdir(elsewhere)  # the working directory's table is not the pack's
    assert runner.invoke(app, ["lint", str(path)]).exit_code == 1
    assert runner.invoke(app, ["lint", str(project / "packs")]).exit_code == 1
    assert runner.invoke(app, ["lint", "--no-strict", str(path)]).exit_code == 0  # the flag wins
    (project / "pyproject.toml").write_text("[tool.creatorpack.lint]\nmax-states = 1\n")
    bounded = runner.invoke(app, ["lint", "--format", "json", str(path)])
    codes = {e["code"] for e in json.loads(bounded.output)["files"][0]["errors"]}
    assert "reachability-bound" in codes
    unbounded = runner.invoke(
        app, ["lint", "--format", "json", "--max-states", "100000", "--max-seconds", "60", str(path)]
    )
    codes = {e["code"] for e in json.loads(unbounded.output)["files"][0]["errors"]}
    assert codes == {"spoiler-title"}


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ('max-seconds = "fast"', "max-seconds: must be a number of seconds"),
        ('strict = "no"', "strict: must be true or false"),
        ("max-states = -5", "max-states: must be at least 1"),
        ("max-states = 1.5", "max-states: must be"),
        ("max-seconds = nan", "max-seconds: must be"),
        ('ignore = ["spoiler-titel"]', "ignore: unknown rule code"),
        ('ignore = "spoiler-title"', "ignore: must be an array of rule codes"),
        ("colour = 1", "colour: unknown key"),
        ("strict = ", "cannot read"),
    ],
)
def test_lint_table_errors_name_the_file_and_the_key(tmp_path: Path, table: str, words: str) -> None:
    path = write(tmp_path / "pack.json", example("0.5", "minimal"))
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(f"[tool.creatorpack.lint]\n{table}\n")
    result = runner.invoke(app, ["lint", str(path)])
    assert result.exit_code == 2
    assert str(pyproject) in result.output
    assert words in result.output
    assert "Traceback" not in result.output


def _tree(root: Path) -> dict[str, Path]:
    pack = example("0.5", "minimal")
    paths = {
        "kept": root / "packs" / "a.json",
        "hidden": root / ".cache" / "b.json",
        "modules": root / "node_modules" / "x" / "c.json",
        "ignored": root / "build" / "d.json",
        "excluded": root / "drafts" / "e.json",
        "excluded_name": root / "packs" / "e.draft.json",
    }
    for path in paths.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path, pack)
    write(root / "packs" / "package.json", {"name": "not-a-pack"})
    write(root / "packs" / "tsconfig.json", {"compilerOptions": {}})
    (root / ".gitignore").write_text("build/\n")
    return paths


def test_directory_walks_skip_hidden_ignored_excluded_and_non_pack_files(tmp_path: Path) -> None:
    paths = _tree(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    args = ["validate", "-f", "json", "--exclude", "drafts", "--exclude", "*.draft.json", str(tmp_path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    checked = [f["path"] for f in json.loads(result.stdout)["files"]]
    assert checked == [str(paths["kept"])]
    assert "skipped 2 JSON files without protocol_version" in result.stderr
    # Outside a git work tree, .gitignore means nothing; named files are always checked.
    (tmp_path / ".git").rename(tmp_path / "git-was-here")
    result = runner.invoke(app, ["validate", "-f", "json", str(tmp_path)])
    checked = [f["path"] for f in json.loads(result.stdout)["files"]]
    assert str(paths["ignored"]) in checked
    assert str(paths["hidden"]) not in checked
    assert str(paths["modules"]) not in checked
    named = runner.invoke(app, ["validate", str(tmp_path / "packs" / "package.json")])
    assert named.exit_code == 1
    assert "unsupported-version" in named.output


def test_readme_python_examples_run_on_the_bundled_pack(monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    assert len(blocks) >= 2
    monkeypatch.chdir(ROOT)
    namespace: dict[str, Any] = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["report"].valid
    assert namespace["result"].illustration == "ill_quay"  # the README's ids exist in the example pack
    assert namespace["saved"]["turn"] == 1


def test_dev_says_what_it_installs_on_first_run() -> None:
    script = (ROOT / "dev").read_text(encoding="utf-8")
    setup = script[script.index("setup() {") : script.index("\n}\n")]
    install = setup[setup.index('if [ ! -f "$stamp" ]; then') :]
    first = install.splitlines()[1].strip()
    assert first.startswith('echo "dev: installing requirements/dev.lock')
    assert first.endswith(">&2")


def test_unknown_ignore_code_suggests_the_nearest() -> None:
    result = runner.invoke(
        app, ["lint", "--ignore", "spoiler-titel", str(EXAMPLES / "0.5" / "minimal.json")], env={"COLUMNS": "250"}
    )
    assert result.exit_code == 2
    assert "'spoiler-titel' (did you mean 'spoiler-title'?)" in result.output


def test_without_git_nothing_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from creatorpack.cli._walk import git_ignored

    paths = _tree(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert git_ignored(tmp_path, [paths["ignored"], paths["kept"]]) == {paths["ignored"]}
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    assert git_ignored(tmp_path, [paths["ignored"], paths["kept"]]) == set()


def test_sarif_rule_help_carries_the_rationale_in_text_and_markdown() -> None:
    from creatorpack.cli._sarif import RuleText, rule_descriptor

    rationale = "Two items with one id make every reference to it ambiguous."
    rules = {"duplicate-id": RuleText("two items of one collection share an id", rationale)}
    descriptor = rule_descriptor("duplicate-id", rules)
    assert descriptor["shortDescription"] == {"text": "two items of one collection share an id"}
    assert descriptor["help"]["text"] == (
        f"two items of one collection share an id.\n\n{rationale}\n\nSee {descriptor['helpUri']}"
    )
    assert descriptor["help"]["markdown"] == (
        f"**two items of one collection share an id.**\n\n{rationale}\n\n[Documentation]({descriptor['helpUri']})"
    )
    # A contract code (and a lint rule without a rationale) has the summary and the link only.
    bare = rule_descriptor("enum", {})
    assert bare["help"]["text"] == f"a value that is not one of the allowed values.\n\nSee {bare['helpUri']}"


def test_every_lint_rule_carries_its_rationale_from_docs_lint_md() -> None:
    from creatorpack.cli._sarif import _lint_rules, rule_descriptor
    from creatorpack.lint import RULES

    parts = re.split(r"^### `([a-z0-9-]+)`\n", (ROOT / "docs" / "lint.md").read_text(encoding="utf-8"), flags=re.M)
    sections = dict(zip(parts[1::2], parts[2::2], strict=True))
    assert set(sections) == set(RULES)
    sarif_rules = _lint_rules()
    for code, rule in RULES.items():
        paragraphs = sections[code].strip().split("\n\n")
        assert paragraphs[0] == f"**{rule.severity}**: {rule.summary}.", code
        assert rule.rationale == paragraphs[1], code  # the paragraph after the summary, word for word
        assert f"\n\n{rule.rationale}\n\n" in rule_descriptor(code, sarif_rules)["help"]["text"], code


def test_every_cli_function_is_under_80_lines() -> None:
    import ast

    long = []
    for path in sorted((ROOT / "src" / "creatorpack" / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                if node.end_lineno is not None and node.end_lineno - first + 1 >= 80:
                    long.append(f"{path.name}:{node.name}")
    assert long == []


@pytest.mark.parametrize(
    "command",
    [
        ["play", "{pack}"],
        ["upgrade", "{pack}", "--to", "0.5"],
        ["diff", "{good}", "{pack}"],
        ["lint", "{pack}", "--explain", "first_light"],
    ],
    ids=["play", "upgrade", "diff", "explain"],
)
def test_every_command_places_a_json_syntax_error_as_validate_does(tmp_path: Path, command: list[str]) -> None:
    """A missing comma on line 3 is named at its line and column, with the fix, whichever command reads it."""
    good = tmp_path / "good.json"
    good.write_text(json.dumps(example("0.5", "rich"), indent=2), encoding="utf-8")
    lines = good.read_text(encoding="utf-8").splitlines()
    assert lines[1].endswith(",")
    lines[1] = lines[1].rstrip(",")  # '"protocol_version": "0.5"' without its comma
    pack = tmp_path / "broken.json"
    pack.write_text("\n".join(lines), encoding="utf-8")
    args = [part.format(pack=pack, good=good) for part in command]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert f"{pack}:3:3: invalid-json: invalid JSON: unexpected character, expected ',' or '}}'" in result.stderr
    assert "a comma is missing before this" in result.stderr
    validated = runner.invoke(app, ["validate", str(pack)])
    assert f"{pack}:3:3: invalid-json" in validated.stdout


def test_sarif_uris_are_uri_references_that_name_the_file(tmp_path: Path) -> None:
    """A file named with '#', '?', '%', ':', a space or a non-ASCII letter is percent-encoded (RFC 3986)."""
    from urllib.parse import unquote, urlsplit

    names = ["a#b.json", "q?x=1.json", "pct%41.json", "c:d.json", "sub dir/s p.json", "ünï.json"]
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(json.dumps({"protocol_version": "0.5"}), encoding="utf-8")
    result = runner.invoke(app, ["validate", "--format", "sarif", *(str(tmp_path / n) for n in names)])
    (run,) = json.loads(result.stdout)["runs"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert {unquote(urlsplit(uri).path) for uri in uris} == {(tmp_path / n).as_posix() for n in names}
    for uri in uris:
        parts = urlsplit(uri)
        assert (parts.scheme, parts.netloc, parts.query, parts.fragment) == ("file", "", "", ""), uri  # absolute
        assert " " not in uri, uri
        assert uri.isascii(), uri


def test_sarif_relative_uris_name_their_base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Code scanning resolves a relative URI against %SRCROOT%, the repository's root where CI runs."""
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "a b.json").write_text(json.dumps({"protocol_version": "0.5"}), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["validate", "--format", "sarif", "packs/a b.json"])
    (found,) = json.loads(result.stdout)["runs"][0]["results"]
    artifact = found["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "packs/a%20b.json", "uriBaseId": "%SRCROOT%"}


def test_a_directory_walk_skips_json_that_only_mentions_protocol_version(tmp_path: Path) -> None:
    """A pack's JSON Schema (README: `creatorpack schema 0.5 > pack-0.5.schema.json`) is no pack to check."""
    (tmp_path / "pack.json").write_text(json.dumps(example("0.5", "minimal")), encoding="utf-8")
    (tmp_path / "pack-0.5.schema.json").write_text(json.dumps(schema.bundle("0.5")), encoding="utf-8")
    (tmp_path / "broken.json").write_text('{"protocol_version": "0.5",', encoding="utf-8")  # a broken pack
    result = runner.invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 2, result.output  # the broken pack is reported, not skipped
    assert "broken.json:1:" in result.stdout
    assert "schema.json" not in result.stdout
    assert "skipped 1 JSON file without protocol_version" in result.stderr


def test_help_text_flows_as_paragraphs() -> None:
    """A docstring's line breaks are not kept: its lines make one paragraph, wrapped to the terminal."""
    shown = runner.invoke(app, ["hook", "--help"], env={"COLUMNS": "200"}).output
    assert (
        "Files that are not packs (JSON that declares no protocol_version at its root, such as package.json)" in shown
    )


def test_lint_text_says_the_severity_in_words(tmp_path: Path) -> None:
    """Regression: without colour (piped), an error and a warning looked the same."""
    pack = example("0.5", "rich")
    pack["publication"]["tagline"] = "Become the Keeper of the Light"  # spoiler-title: a warning
    pack["presentation"]["bindings"][0]["asset_id"] = "no_such_asset"  # unknown-reference: an error
    result = runner.invoke(app, ["lint", str(write(tmp_path / "pack.json", pack))])
    assert result.exit_code == 1, result.output
    firsts = [line for line in result.output.splitlines() if line.startswith(str(tmp_path))]
    assert any(": error[unknown-reference]: " in line for line in firsts), result.output
    assert any(": warning[spoiler-title]: " in line for line in firsts), result.output
    assert "\x1b[" not in result.output


def test_lint_says_once_when_its_errors_kept_the_reachability_search_from_running(tmp_path: Path) -> None:
    """Regression: a pack with lint errors got no unreachable findings, and plain lint did not say why."""
    pack = example("0.5", "rich")
    pack["presentation"]["bindings"][0]["asset_id"] = "no_such_asset"
    pack["presentation"]["bindings"][1]["asset_id"] = "nor_this_one"
    path = write(tmp_path / "pack.json", pack)
    result = runner.invoke(app, ["lint", str(path)])
    notes = [line for line in result.output.splitlines() if " note: " in line]
    expected = (
        f"{path}: note: the reachability search (unreachable, never-revealed, reachability-bound) did not run: "
        "it runs only on a pack without lint errors; fix the 2 lint errors above, then lint again"
    )
    assert notes == [expected], result.output
    ignored = runner.invoke(app, ["lint", "--ignore", "unknown-reference", str(path)])
    assert "errors of ignored rules" in ignored.output
    clean = runner.invoke(app, ["lint", "--max-seconds", "60", str(EXAMPLES / "0.5" / "rich.json")])
    assert " note: " not in clean.output


def test_lint_shortens_the_thread_switch_interval_for_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The command sets it (lint's box phase runs beside the search in a thread); `validate` leaves it alone.
    from creatorpack.cli.app import _SWITCH_INTERVAL

    seen: list[float] = []
    monkeypatch.setattr(sys, "setswitchinterval", seen.append)  # record it; this test process keeps its own
    path = write(tmp_path / "rich.json", example("0.5", "rich"))
    assert runner.invoke(app, ["validate", str(path)]).exit_code == 0
    assert seen == []
    assert runner.invoke(app, ["lint", str(path)]).exit_code == 0
    assert seen == [_SWITCH_INTERVAL]
    assert _SWITCH_INTERVAL < 0.005  # shorter than Python's default, or it would change nothing
