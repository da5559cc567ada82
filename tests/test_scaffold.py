"""``creatorpack init``'s starter files: valid, lint-clean, and the script reaches the ending."""

from __future__ import annotations

import json
import re

import pytest

from creatorpack.contract import validate
from creatorpack.lint import lint
from creatorpack.scaffold import (
    LANGUAGES,
    PACK_FILE,
    SCRIPT_FILE,
    VERSIONS,
    ScaffoldError,
    files,
    new_pack_id,
    pack_id_for,
)
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
    assert re.fullmatch(r"the-salt-road-part-2-[0-9a-f]{6}", pack["manifest"]["pack_id"])
    assert pack["runtime"]["runtime_id"] == pack["manifest"]["pack_id"]
    zh = json.loads(files(title="雾中之门", language="zh")[PACK_FILE])
    assert zh["manifest"]["title"] == "雾中之门"
    assert re.fullmatch(r"pack-[0-9a-f]{6}", zh["manifest"]["pack_id"])
    assert "雾" in files(language="zh-CN")[PACK_FILE]  # written as UTF-8, not \u escapes
    given = json.loads(files(pack_id="salt-road")[PACK_FILE])
    assert (given["manifest"]["pack_id"], given["runtime"]["runtime_id"]) == ("salt-road", "salt-road")


def test_two_new_packs_never_share_an_id() -> None:
    """Regression: every pack that kept the sample title was 'a-door-in-the-fog', every Chinese one 'my-pack'."""
    for title, language in (("A Door in the Fog", "en"), ("雾中之门", "zh")):
        ids = {json.loads(files(title=title, language=language)[PACK_FILE])["manifest"]["pack_id"] for _ in range(20)}
        assert len(ids) == 20
        assert all(validate(files(title=title, language=language)[PACK_FILE]).valid for _ in range(3))
    assert len({new_pack_id("雾中之门") for _ in range(20)}) == 20


@pytest.mark.parametrize(
    ("title", "suffix", "expected"),
    [
        ("Hello World", "", "hello-world"),
        ("123 go", "", "my-pack"),
        ("", "", "my-pack"),
        ("A" * 100, "", "a" * 80),
        ("é", "", "e"),
        ("Café au lait", "", "cafe-au-lait"),
        ("Hello World", "1a2b3c", "hello-world-1a2b3c"),
        ("雾中之门", "1a2b3c", "pack-1a2b3c"),
        ("A" * 100, "1a2b3c", "a" * 73 + "-1a2b3c"),
    ],
)
def test_pack_id_for(title: str, suffix: str, expected: str) -> None:
    assert pack_id_for(title, suffix) == expected


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"version": "0.2"}, "0.3, 0.4, 0.5"),
        ({"version": "1.0"}, "0.3, 0.4, 0.5"),
        ({"language": "fr"}, "en, zh, zh-CN"),
        ({"title": "  "}, "non-whitespace"),
        ({"pack_id": "1-not-an-id"}, "no valid pack id"),
    ],
)
def test_refusals(kwargs: dict[str, str], match: str) -> None:
    with pytest.raises(ScaffoldError, match=match) as caught:
        files(**kwargs)
    assert caught.value.exit_code == 2
