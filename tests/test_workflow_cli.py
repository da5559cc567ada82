"""``creatorpack upgrade``, ``init`` and ``hook``: exit codes, what is written and what is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from creatorpack.cli import _workflow, app
from creatorpack.contract import validate
from creatorpack.lint import lint
from creatorpack.testing import parse_script, play

from .conftest import EXAMPLES, example

runner = CliRunner()


def test_upgrade_to_stdout_report_to_stderr() -> None:
    result = runner.invoke(app, ["upgrade", str(EXAMPLES / "0.3" / "rich.json"), "--to", "0.4"])
    assert result.exit_code == 0, result.output
    upgraded = json.loads(result.stdout)
    assert upgraded["protocol_version"] == "0.4"
    assert validate(result.stdout).valid
    assert "/progression: added" in result.stderr


def test_upgrade_in_place_and_output(tmp_path: Path) -> None:
    source = tmp_path / "pack.json"
    source.write_bytes((EXAMPLES / "0.4" / "rich.json").read_bytes())
    out = tmp_path / "out.json"
    result = runner.invoke(app, ["upgrade", str(source), "-o", str(out), "--bump-revision"])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["manifest"]["revision"] == 4
    assert source.read_bytes() == (EXAMPLES / "0.4" / "rich.json").read_bytes()
    assert f"written to {out}" in result.stdout
    result = runner.invoke(app, ["upgrade", str(source), "--in-place"])
    assert result.exit_code == 0, result.output
    assert json.loads(source.read_text())["protocol_version"] == "0.5"
    before = source.read_bytes()
    result = runner.invoke(app, ["upgrade", str(source), "--in-place", "--bump-revision"])
    assert result.exit_code == 0
    assert "already 0.5: nothing to change" in result.stdout
    assert source.read_bytes() == before  # a no-op leaves the file alone, revision included


def test_upgrade_json_report(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = runner.invoke(app, ["upgrade", str(EXAMPLES / "0.3" / "minimal.json"), "-o", str(out), "-f", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["from"] == "0.3"
    assert report["to"] == "0.5"
    assert report["valid"] is True
    assert report["written"] == str(out)
    assert [c["pointer"] for c in report["changes"]] == ["/protocol_version", "/progression", "/presentation"]
    assert report["attention"] == []


def _needs_attention(tmp_path: Path) -> Path:
    pack = example("0.4", "rich")
    pack["entries"][0]["opening_illustrations"] = [{"after_paragraph_index": 0, "image": "quay.png"}]
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(pack, indent=2), encoding="utf-8")
    return path


def test_attention_exits_1_and_writes_nothing(tmp_path: Path) -> None:
    path = _needs_attention(tmp_path)
    before = path.read_bytes()
    out = tmp_path / "out.json"
    result = runner.invoke(app, ["upgrade", str(path), "-o", str(out)])
    assert result.exit_code == 1
    assert not out.exists()
    assert "/entries/0/opening_illustrations/0" in result.stdout
    assert "fix: 0.5 gives each opening illustration" in result.stdout
    assert "nothing written" in result.stdout
    result = runner.invoke(app, ["upgrade", str(path), "--in-place"])
    assert result.exit_code == 1
    assert path.read_bytes() == before
    result = runner.invoke(app, ["upgrade", str(path)])
    assert result.exit_code == 1
    assert result.stdout == ""  # not even to standard output
    report = json.loads(runner.invoke(app, ["upgrade", str(path), "-o", str(out), "-f", "json"]).stdout)
    assert report["written"] is None
    assert {a["pointer"] for a in report["attention"]} >= {"/entries/0/opening_illustrations/0"}
    assert all(a["fix"] for a in report["attention"])


def test_force_writes_and_still_exits_1(tmp_path: Path) -> None:
    path = _needs_attention(tmp_path)
    out = tmp_path / "out.json"
    result = runner.invoke(app, ["upgrade", str(path), "-o", str(out), "--force"])
    assert result.exit_code == 1
    assert json.loads(out.read_text())["protocol_version"] == "0.5"
    assert not validate(out.read_bytes()).valid


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--to", "0.3"], "--to"),
        (["--to", "0.6"], "--to"),
        (["-o", "x.json", "--in-place"], "not both"),
        (["-f", "sarif"], "--format"),
    ],
)
def test_upgrade_usage_errors_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["upgrade", str(EXAMPLES / "0.3" / "minimal.json"), *args])
    assert result.exit_code == 2
    assert message in result.output


def test_upgrade_unreadable_and_refused_inputs_exit_2(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["upgrade", str(tmp_path / "nope.json")])
    assert missing.exit_code == 2
    assert "no such file" in missing.stderr
    assert missing.stderr.count("nope.json") == 1  # named once, not before its own message too
    old = runner.invoke(app, ["upgrade", str(EXAMPLES / "0.2" / "minimal.json")])
    assert old.exit_code == 2
    assert "0.2 → 0.3" in old.stderr
    down = runner.invoke(app, ["upgrade", str(EXAMPLES / "0.5" / "minimal.json"), "--to", "0.4"])
    assert down.exit_code == 2
    assert "downgrade" in down.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    result = runner.invoke(app, ["upgrade", str(bad)])
    assert result.exit_code == 2
    assert "invalid-json" in result.stderr


def test_bump_revision_of_a_revision_spelt_1_0(tmp_path: Path) -> None:
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps(example("0.3", "minimal"), indent=2).replace('"revision": 1', '"revision": 1.0'))
    result = runner.invoke(app, ["upgrade", str(pack), "--in-place", "--bump-revision", "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {"pointer": "/manifest/revision", "what": "1.0 → 2"} in report["changes"]
    assert '"revision": 2,' in pack.read_text()
    assert json.loads(pack.read_text())["manifest"]["revision"] == 2


def test_bump_revision_of_a_revision_that_is_no_whole_number_exits_2(tmp_path: Path) -> None:
    pack = tmp_path / "pack.json"
    text = json.dumps(example("0.3", "minimal"), indent=2).replace('"revision": 1', '"revision": 1.5')
    pack.write_text(text)
    result = runner.invoke(app, ["upgrade", str(pack), "--in-place", "--bump-revision"])
    assert result.exit_code == 2
    assert "cannot bump the revision: manifest.revision is 1.5, not a whole number" in result.stderr
    assert pack.read_text() == text


def test_upgrade_from_stdin() -> None:
    source = (EXAMPLES / "0.3" / "minimal.json").read_bytes()
    result = runner.invoke(app, ["upgrade", "-"], input=source)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["presentation"] == {"bindings": [], "illustration_rules": []}
    assert runner.invoke(app, ["upgrade", "-", "--in-place"], input=source).exit_code == 2


@pytest.mark.parametrize(("version", "language"), [("0.3", "en"), ("0.4", "zh"), ("0.5", "zh-CN"), (None, None)])
def test_init_writes_a_valid_lint_clean_pack_whose_script_reaches_the_ending(
    tmp_path: Path, version: str | None, language: str | None
) -> None:
    target = tmp_path / "new" / "pack"
    args = ["init", str(target), "--title", "The Salt Road"]
    args += ["--version", version] if version else []
    args += ["--language", language] if language else []
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    pack = target / "pack.json"
    document = json.loads(pack.read_text(encoding="utf-8"))
    assert document["protocol_version"] == (version or "0.5")
    assert document["manifest"]["title"] == "The Salt Road"
    assert document["manifest"]["language"] == (language or "en")
    assert validate(pack).valid
    assert lint(pack).findings == ()
    run = play(pack, parse_script(target / "playthrough.jsonl"))
    assert run.ending == (None if version == "0.3" else "through_the_door")
    assert runner.invoke(app, ["validate", str(pack)]).exit_code == 0
    assert runner.invoke(app, ["lint", "--strict", str(pack)]).exit_code == 0
    script = ["play", str(pack), "--script", str(target / "playthrough.jsonl"), "-f", "json"]
    played = runner.invoke(app, script)
    assert played.exit_code == 0, played.output


def test_init_refuses_to_overwrite(tmp_path: Path) -> None:
    (tmp_path / "playthrough.jsonl").write_text("mine\n", encoding="utf-8")
    result = runner.invoke(app, ["init", str(tmp_path)])
    assert result.exit_code == 2
    assert "refusing to overwrite" in result.stderr
    assert (tmp_path / "playthrough.jsonl").read_text(encoding="utf-8") == "mine\n"
    assert not (tmp_path / "pack.json").exists()


@pytest.mark.parametrize(
    ("args", "message"), [(["--version", "0.2"], "0.3, 0.4, 0.5"), (["--language", "fr"], "zh-CN")]
)
def test_init_bad_options_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["init", str(tmp_path), *args])
    assert result.exit_code == 2
    assert message in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_init_prompts_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_workflow, "_interactive", lambda: True)
    result = runner.invoke(app, ["init", str(tmp_path)], input="0.4\nzh-CN\n雾港\n\n")
    assert result.exit_code == 0, result.output
    assert "Contract version" in result.stdout
    document = json.loads((tmp_path / "pack.json").read_text(encoding="utf-8"))
    assert (document["protocol_version"], document["manifest"]["language"]) == ("0.4", "zh-CN")
    assert document["manifest"]["title"] == "雾港"
    # Options given on the command line are not asked for.
    other = tmp_path / "other"
    result = runner.invoke(app, ["init", str(other), "--version", "0.5", "--language", "en"], input="\nmy-salt-road\n")
    assert result.exit_code == 0, result.output
    assert "Contract version" not in result.stdout
    assert json.loads((other / "pack.json").read_text())["manifest"]["title"] == "A Door in the Fog"
    assert json.loads((other / "pack.json").read_text())["manifest"]["pack_id"] == "my-salt-road"
    assert "pack id my-salt-road" in result.stdout


def test_init_gives_each_pack_its_own_id(tmp_path: Path) -> None:
    """Regression: every pack of the sample title was 'a-door-in-the-fog', every non-ASCII title 'my-pack'."""
    ids = set()
    for number, title in enumerate(["A Door in the Fog", "A Door in the Fog", "雾中之门", "雾中之门"]):
        result = runner.invoke(app, ["init", str(tmp_path / str(number)), "--title", title])
        assert result.exit_code == 0, result.output
        ids.add(json.loads((tmp_path / str(number) / "pack.json").read_text("utf-8"))["manifest"]["pack_id"])
    assert len(ids) == 4
    given = runner.invoke(app, ["init", str(tmp_path / "given"), "--pack-id", "salt-road"])
    assert json.loads((tmp_path / "given" / "pack.json").read_text("utf-8"))["manifest"]["pack_id"] == "salt-road"
    assert "(pack id salt-road)" in given.stdout
    bad = runner.invoke(app, ["init", str(tmp_path / "bad"), "--pack-id", "9 lives"])
    assert bad.exit_code == 2
    assert "no valid pack id" in bad.stderr


def test_init_on_a_terminal_refuses_before_asking_anything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_workflow, "_interactive", lambda: True)
    (tmp_path / "pack.json").write_text("{}", encoding="utf-8")
    result = runner.invoke(app, ["init", str(tmp_path)], input="0.5\nen\nA Title\n")
    assert result.exit_code == 2
    assert "refusing to overwrite" in result.stderr
    assert "Contract version" not in result.stdout  # no question was asked for files it will not write
    assert (tmp_path / "pack.json").read_text(encoding="utf-8") == "{}"
    assert not (tmp_path / "playthrough.jsonl").exists()


def test_init_asks_again_for_a_version_or_language_it_does_not_know(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_workflow, "_interactive", lambda: True)
    result = runner.invoke(app, ["init", str(tmp_path)], input="0.2\n0.4\nfr\nen\n\n\n")
    assert result.exit_code == 0, result.output
    assert result.stdout.count("Contract version") == 2
    assert result.stdout.count("Language") == 2
    document = json.loads((tmp_path / "pack.json").read_text(encoding="utf-8"))
    assert (document["protocol_version"], document["manifest"]["language"]) == ("0.4", "en")


def test_no_prompts_without_a_terminal(tmp_path: Path) -> None:
    result = runner.invoke(app, ["init", str(tmp_path)], input="")
    assert result.exit_code == 0, result.output
    assert "Title" not in result.stdout


def test_hook_checks_only_packs(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"name": "site", "version": "1.0.0"}', encoding="utf-8")
    (tmp_path / "list.json").write_text("[1, 2]", encoding="utf-8")
    (tmp_path / "nested.json").write_text('{"config": {"protocol_version": "0.5"}}', encoding="utf-8")
    (tmp_path / "broken.json").write_text('{"name": ', encoding="utf-8")
    others = [str(tmp_path / n) for n in ("package.json", "list.json", "nested.json", "broken.json")]
    # What plain validate says of non-pack JSON: a missing protocol_version (1) or not an object (2).
    assert runner.invoke(app, ["validate", others[0]]).exit_code == 1
    assert runner.invoke(app, ["validate", others[1]]).exit_code == 2
    for command in ("validate", "lint"):
        result = runner.invoke(app, ["hook", command, *others])
        assert result.exit_code == 0, result.output
    good = tmp_path / "good.json"
    good.write_bytes((EXAMPLES / "0.5" / "rich.json").read_bytes())
    result = runner.invoke(app, ["hook", "validate", *others, str(good)])
    assert result.exit_code == 0, result.output
    assert "1 file" in result.stdout
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**example("0.5", "minimal"), "manifest": {}}), encoding="utf-8")
    broken_pack = tmp_path / "broken_pack.json"
    broken_pack.write_text('{"protocol_version": "0.5", ', encoding="utf-8")
    result = runner.invoke(app, ["hook", "validate", str(good), str(bad)])
    assert result.exit_code == 1
    assert "bad.json" in result.stdout
    assert runner.invoke(app, ["hook", "validate", str(broken_pack)]).exit_code == 2
    # Options before the files are passed on (a generous search bound: the machine may be busy).
    result = runner.invoke(app, ["hook", "lint", "--strict", "--max-seconds", "120", "--format", "json", str(good)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)


def test_hook_unknown_command_exits_2() -> None:
    result = runner.invoke(app, ["hook", "play", str(EXAMPLES / "0.5" / "minimal.json")])
    assert result.exit_code == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"protocol_version": "0.5"}', True),
        ('{"name": "x"}', False),
        ('{"a": {"protocol_version": "0.5"}}', False),
        ('["protocol_version"]', False),
        ('{"protocol_version": ', True),
        ("{nope", False),
    ],
)
def test_is_pack_file(tmp_path: Path, text: str, expected: bool) -> None:
    path = tmp_path / "f.json"
    path.write_text(text, encoding="utf-8")
    assert _workflow.is_pack_file(str(path)) is expected


def test_in_place_keeps_crlf_and_tabs(tmp_path: Path) -> None:
    source = json.dumps(example("0.4", "rich"), indent="\t", ensure_ascii=False).replace("\n", "\r\n") + "\r\n"
    path = tmp_path / "pack.json"
    path.write_bytes(source.encode("utf-8"))
    result = runner.invoke(app, ["upgrade", str(path), "--in-place"])
    assert result.exit_code == 0, result.output
    upgraded = path.read_bytes().decode("utf-8")
    assert upgraded.startswith('{\r\n\t"protocol_version": "0.5",\r\n')
    assert upgraded.endswith(
        '\t"presentation": {\r\n\t\t"bindings": [],\r\n\t\t"illustration_rules": []\r\n\t}\r\n}\r\n'
    )
    assert "\n" not in upgraded.replace("\r\n", "")


def test_json_report_goes_to_stderr_when_the_pack_goes_to_stdout() -> None:
    result = runner.invoke(app, ["upgrade", str(EXAMPLES / "0.4" / "minimal.json"), "-f", "json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["protocol_version"] == "0.5"
    report = json.loads(result.stderr)
    assert report["written"] == "-"
    assert report["valid"] is True


def test_a_failed_in_place_upgrade_leaves_the_pack_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pack = tmp_path / "pack.json"
    original = (EXAMPLES / "0.3" / "rich.json").read_bytes()
    pack.write_bytes(original)

    def full_disk(_: int) -> None:
        raise OSError(27, "File too large")

    monkeypatch.setattr("os.fsync", full_disk)  # the write fails after part of the file went out
    result = runner.invoke(app, ["upgrade", str(pack), "--in-place"])
    assert result.exit_code == 2
    assert "cannot write" in result.stderr
    assert pack.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pack.json"]  # no temporary file left behind


def test_an_in_place_upgrade_keeps_the_link_and_the_mode(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_bytes((EXAMPLES / "0.3" / "rich.json").read_bytes())
    real.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert runner.invoke(app, ["upgrade", str(link), "--in-place"]).exit_code == 0
    assert link.is_symlink()
    assert json.loads(real.read_text())["protocol_version"] == "0.5"
    assert real.stat().st_mode & 0o777 == 0o640
