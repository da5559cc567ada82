"""``creatorpack init`` in a real terminal: it asks for the version, language and title, as a person answers."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from creatorpack.cli import app

from .test_play_tty import Terminal

runner = CliRunner()


def test_interactive_init_writes_the_pack_it_was_told(terminal: type[Terminal], tmp_path: Path) -> None:
    target = tmp_path / "story"
    term = terminal("init", str(target))
    term.expect("Contract version (0.3, 0.4, 0.5) [0.5]: ")
    term.type("0.2\n")  # not a version init can start: asked again
    assert "'0.2' is not one of 0.3, 0.4, 0.5" in term.expect("Contract version (0.3, 0.4, 0.5) [0.5]: ")
    term.type("0.4\n")
    term.expect("Language (en, zh, zh-CN) [en]: ")
    term.type("zh-CN\n")
    term.expect("Title [雾中之门]: ")  # the default follows the language
    term.type("The Lamp at the End of the Pier\n")
    shown = term.expect("]: ")  # the pack id, derived from the title, with a random suffix
    assert "Pack id (unique: the service keys packs by it) [the-lamp-at-the-end-of-the-pier-" in shown
    term.type("\n")
    assert f"created {target / 'pack.json'}" in term.expect("next: creatorpack lint")
    assert term.finish() == 0
    assert "Traceback" not in term.screen
    pack = target / "pack.json"
    document = json.loads(pack.read_text(encoding="utf-8"))
    assert document["protocol_version"] == "0.4"
    assert document["manifest"]["language"] == "zh-CN"
    assert document["manifest"]["title"] == "The Lamp at the End of the Pier"
    assert re.fullmatch(r"the-lamp-at-the-end-of-the-pier-[0-9a-f]{6}", document["manifest"]["pack_id"])
    validated = runner.invoke(app, ["validate", str(pack)])
    assert validated.exit_code == 0, validated.output
    linted = runner.invoke(app, ["lint", "--strict", str(pack)])
    assert linted.exit_code == 0, linted.output
    assert "1 clean, 0 errors, 0 warnings" in linted.output
    played = runner.invoke(app, ["play", str(pack), "--script", str(target / "playthrough.jsonl"), "-f", "json"])
    assert played.exit_code == 0, played.output
    assert json.loads(played.output)["turns"][-1]["ending"] == "through_the_door"


def test_interactive_init_takes_the_defaults_on_enter(terminal: type[Terminal], tmp_path: Path) -> None:
    term = terminal("init", str(tmp_path))
    for prompt in ("[0.5]: ", "[en]: ", "[A Door in the Fog]: ", "]: "):
        term.expect(prompt)
        term.type("\n")
    assert term.finish() == 0
    document = json.loads((tmp_path / "pack.json").read_text(encoding="utf-8"))
    assert (document["protocol_version"], document["manifest"]["language"]) == ("0.5", "en")
    assert document["manifest"]["title"] == "A Door in the Fog"
    assert runner.invoke(app, ["lint", "--strict", str(tmp_path / "pack.json")]).exit_code == 0


def test_interactive_init_refuses_before_asking(terminal: type[Terminal], tmp_path: Path) -> None:
    (tmp_path / "playthrough.jsonl").write_text("mine\n", encoding="utf-8")
    term = terminal("init", str(tmp_path))
    assert term.finish() == 2
    assert "refusing to overwrite" in term.screen
    assert "Contract version" not in term.screen
    assert (tmp_path / "playthrough.jsonl").read_text(encoding="utf-8") == "mine\n"
    assert not (tmp_path / "pack.json").exists()
