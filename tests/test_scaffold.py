"""``creatorpack init``'s starter files: valid, lint-clean, and the script reaches the ending."""

from __future__ import annotations

import json

import pytest

from creatorpack.contract import validate
from creatorpack.lint import lint
from creatorpack.scaffold import LANGUAGES, PACK_FILE, SCRIPT_FILE, VERSIONS, ScaffoldError, files, pack_id_for
from creatorpack.testing import parse_script, play
from creatorpack.upgrade import upgrade


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("version", VERSIONS)
def test_starter_pack_is_valid_lint_clean_and_its_script_reaches_the_ending(version: str, language: str) -> None:
    made = files(version, language=language)
    assert set(made) == {PACK_FILE, SCRIPT_FILE}
    pack = made[PACK_FILE]
    report = validate(pack)
    assert report.valid, report.violations
    assert lint(pack).findings == ()
    document = json.loads(pack)
    assert document["protocol_version"] == version
    assert document["manifest"]["language"] == language
    assert len(document["entries"]) == 1
    assert len(document["runtime"]["observations"]) == 1
    assert len(document["runtime"]["rules"]) == 1
    run = play(pack, parse_script(made[SCRIPT_FILE]))
    assert run.last.state == {"doors_found": 1}
    if version == "0.3":
        assert "progression" not in document  # 0.3 has no endings
        assert run.start.state == {"doors_found": 0}
    else:
        assert [e["id"] for e in document["progression"]["endings"]] == ["through_the_door"]
        assert run.ending == "through_the_door"
        assert run.start.ending is None


@pytest.mark.parametrize("version", ["0.3", "0.4"])
def test_older_starter_packs_upgrade_cleanly(version: str) -> None:
    result = upgrade(files(version)[PACK_FILE])
    assert result.valid
    assert result.attention == ()


def test_title_sets_the_manifest_and_the_pack_id() -> None:
    pack = json.loads(files(title="The Salt Road: Part 2")[PACK_FILE])
    assert pack["manifest"]["title"] == "The Salt Road: Part 2"
    assert pack["manifest"]["pack_id"] == "the-salt-road-part-2"
    assert pack["runtime"]["runtime_id"] == "the-salt-road-part-2"
    zh = json.loads(files(title="雾中之门", language="zh")[PACK_FILE])
    assert zh["manifest"]["title"] == "雾中之门"
    assert zh["manifest"]["pack_id"] == "my-pack"
    assert "雾" in files(language="zh-CN")[PACK_FILE]  # written as UTF-8, not \u escapes


@pytest.mark.parametrize(
    ("title", "expected"),
    [("Hello World", "hello-world"), ("123 go", "my-pack"), ("", "my-pack"), ("A" * 100, "a" * 80), ("é", "my-pack")],
)
def test_pack_id_for(title: str, expected: str) -> None:
    assert pack_id_for(title) == expected


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"version": "0.2"}, "0.3, 0.4, 0.5"),
        ({"version": "1.0"}, "0.3, 0.4, 0.5"),
        ({"language": "fr"}, "en, zh, zh-CN"),
        ({"title": "  "}, "non-whitespace"),
    ],
)
def test_refusals(kwargs: dict[str, str], match: str) -> None:
    with pytest.raises(ScaffoldError, match=match) as caught:
        files(**kwargs)
    assert caught.value.exit_code == 2
