"""spoiler-title and spoiler-asset: every text readers see before playing, and every cover, on the rich 0.5 pack.

The reader view and the catalog show the manifest's title, the publication's texts and lists, the entries'
titles, the listed achievements and badges, and the reader cards revealed at the start of the default entry:
none of them may name a hidden achievement's, an ending's or a hidden badge's title. A cover may not be
``reward_only``, revealed only later, or art that only hidden items wear.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from creatorpack import LintConfig, lint
from creatorpack.lint import Finding
from tests.conftest import EXAMPLES, example, put

FAST = LintConfig(reachability=False)
ENDING = "The Dark Harbour"  # the ending dark_harbour's title


def _findings(pack: dict[str, Any], code: str) -> list[Finding]:
    report = lint(json.dumps(pack), FAST)
    assert report.contract.valid, report.contract.violations
    return [f for f in report.findings if f.code == code]


def _spoiled(pointer: str, value: str) -> list[Finding]:
    pack = example("0.5", "rich")
    put(pack, pointer, value)
    return _findings(pack, "spoiler-title")


@pytest.mark.parametrize(
    ("pointer", "field"),
    [
        ("/manifest/title", "manifest.title"),
        ("/publication/tagline", "publication.tagline"),
        ("/publication/description", "publication.description"),
        ("/publication/creator_credit", "publication.creator_credit"),
        ("/publication/rights/statement", "publication.rights.statement"),
        ("/publication/tags/2", "publication.tags[2]"),
        ("/entries/1/title", "entries[1].title"),
        ("/progression/achievements/0/title", "progression.achievements[0].title"),  # visible
        ("/progression/achievements/3/description", "progression.achievements[3].description"),  # guided
        ("/progression/badges/0/title", "progression.badges[0].title"),  # awarded by a visible achievement
        ("/reader_cards/0/introduction", "reader_cards[0].introduction"),  # revealed at the start
        ("/reader_cards/0/relationships/1/label", "reader_cards[0].relationships[1].label"),  # revealed too
    ],
)
def test_every_text_readers_see_before_playing_is_checked(pointer: str, field: str) -> None:
    (finding,) = _spoiled(pointer, f"Nights of {ENDING.lower()}")
    assert (finding.pointer, finding.severity) == (pointer, "warning")
    assert finding.message.startswith(f"{field} names 'The Dark Harbour', the title of the ending 'dark_harbour'")


@pytest.mark.parametrize(
    "pointer",
    [
        "/reader_cards/4/introduction",  # brass_key: revealed once the key is held
        "/reader_cards/0/relationships/0/label",  # revealed once trust is 4
        "/progression/achievements/1/description",  # the hidden achievement's own
        "/progression/badges/1/description",  # a badge's description is never shown
        "/progression/endings/1/closing_text",
        "/instructions",
    ],
)
def test_texts_readers_do_not_see_before_playing_are_not(pointer: str) -> None:
    assert _spoiled(pointer, f"Nights of {ENDING}") == []


def test_a_hidden_achievement_s_and_a_hidden_badge_s_titles_are_secrets() -> None:
    (finding,) = _spoiled("/publication/tags/1", "Salt and Kindness")
    assert finding.message.startswith("publication.tags[1] names 'Salt and Kindness', the title of the hidden")
    pack = example("0.5", "rich")
    put(pack, "/progression/badges/1/title", "Lamp Warden")  # badge_keeper: only the ending awards it
    put(pack, "/publication/description", "The lamp warden's grief")
    (finding,) = _findings(pack, "spoiler-title")
    assert finding.pointer == "/publication/description"
    assert "the badge 'badge_keeper' (awarded only by the ending 'keeper_of_the_light')" in finding.message
    # a visible achievement's badge is listed in the reader view: its title is no secret
    assert _spoiled("/publication/tagline", "Become a Lamplighter") == []


def test_a_title_two_items_bear_is_named_once_with_both() -> None:
    (finding,) = _spoiled("/publication/tagline", "Become the Keeper of the Light")
    assert finding.message == (
        "publication.tagline names 'Keeper of the Light', the title of the ending 'keeper_of_the_light' and of "
        "the badge 'badge_keeper' (awarded only by the ending 'keeper_of_the_light'); readers should discover it"
    )


def test_titles_are_found_as_whole_words_in_any_script() -> None:
    pack = example("0.5", "rich")
    put(pack, "/progression/achievements/1/title", "Chapter 1")  # hidden
    put(pack, "/progression/achievements/0/title", "Chapter 10")  # visible
    assert _findings(pack, "spoiler-title") == []
    put(pack, "/publication/tagline", "Chapter 1, and the storm")
    assert [f.pointer for f in _findings(pack, "spoiler-title")] == ["/publication/tagline"]
    put(pack, "/progression/endings/0/title", "灯塔守护者")
    put(pack, "/progression/badges/1/title", "守灯人")
    put(pack, "/publication/description", "成为灯塔守护者吧")
    assert [f.pointer for f in _findings(pack, "spoiler-title")] == ["/publication/tagline", "/publication/description"]


def _covered(asset_id: str, *changes: tuple[str, Any], key: str = "cover_asset_id") -> list[Finding]:
    pack = example("0.5", "rich")
    put(pack, f"/publication/{key}", asset_id)
    for pointer, value in changes:
        put(pack, pointer, value)
    return _findings(pack, "spoiler-asset")


LITERAL = {"op": "literal", "value": True}


@pytest.mark.parametrize(
    ("asset_id", "changes", "reasons"),
    [
        (
            "keeper_ending_art",
            [],
            [
                "is reward_only",
                "is the artwork of the ending 'keeper_of_the_light'",
                "is revealed only later (its reveal_when does not hold at the start of entry 'opening')",
            ],
        ),
        ("lamp_room", [], ["is revealed only later (its reveal_when does not hold at the start of entry 'opening')"]),
    ],
)
def test_a_cover_readers_should_earn_or_discover_is_named_with_every_reason(
    asset_id: str, changes: list[tuple[str, Any]], reasons: list[str]
) -> None:
    (finding,) = _covered(asset_id, *changes)
    assert (finding.pointer, finding.severity) == ("/publication/cover_asset_id", "warning")
    said = ", ".join(reasons[:-1]) + (" and " if len(reasons) > 1 else "") + reasons[-1]
    assert finding.message == (
        f"publication.cover_asset_id {asset_id!r} {said}: the cover shows it to every reader before they play"
    )


def test_the_motion_cover_is_checked_too() -> None:
    later = {"op": "gte", "path": "/trust", "value": 1}
    (finding,) = _covered("cover_motion", ("/assets/2/reveal_when", later), key="cover_motion_asset_id")
    assert finding.pointer == "/publication/cover_motion_asset_id"
    assert "'cover_motion' is revealed only later" in finding.message


@pytest.mark.parametrize(
    ("asset_id", "changes"),
    [
        ("storm_art", []),  # a visible achievement's artwork and its listed badge's front
        ("badge_foil_mask", []),  # the listed badge_lamplighter wears it too
        ("mara_portrait", []),  # a guided achievement's artwork: listed
        # hidden items' art that is revealed at the start: the readers' already, it tells nothing
        ("kindness_art", [("/assets/10/reveal_when", LITERAL)]),
        ("badge_keeper_front", [("/assets/15/access", "standard")]),
        ("badge_foil_mask", [("/progression/badges/0/collectible/effect_mask_asset_id", None)]),
        ("cover_still", [("/assets/1/reveal_when", {"op": "gte", "path": "/trust", "value": 0})]),  # holds at 0
    ],
)
def test_a_cover_readers_may_see_is_not(asset_id: str, changes: list[tuple[str, Any]]) -> None:
    assert _covered(asset_id, *changes) == []


def test_a_cover_is_not_called_later_when_the_runtime_cannot_start() -> None:
    assert _covered("lamp_room", ("/runtime/entries/0/initial_state/trust", "none")) == []


@pytest.mark.parametrize("version", ["0.3", "0.4", "0.5"])
def test_the_rich_examples_spoil_nothing(version: str) -> None:
    report = lint(EXAMPLES / version / "rich.json", FAST)
    assert [f for f in report.findings if f.code.startswith("spoiler-")] == []


@pytest.mark.parametrize(
    ("pointer", "field"),
    [
        ("/publication/content_warnings/1", "publication.content_warnings"),
        ("/publication/genres/0", "publication.genres"),
        ("/publication/target_audience/0", "publication.target_audience"),
    ],
)
def test_the_shared_vocabulary_fields_are_not_read_for_titles(pointer: str, field: str) -> None:
    """A genre, a content warning or an audience may share a title's words ('Mystery', 'Family') and tell nothing."""
    assert _spoiled(pointer, ENDING) == [], field


@pytest.mark.parametrize("title", ["Home", "Mystery", "光"])
def test_a_short_title_is_named_only_by_a_text_that_is_that_title(title: str) -> None:
    pack = example("0.5", "rich")
    put(pack, "/progression/endings/0/title", title)
    put(pack, "/publication/tagline", f"A quiet {title.lower()} story on the way {title} at last")
    put(pack, "/publication/description", f"{title} {title}光明")
    assert _findings(pack, "spoiler-title") == []
    put(pack, "/publication/tags/0", f"{title}!")
    assert [f.pointer for f in _findings(pack, "spoiler-title")] == ["/publication/tags/0"]


@pytest.mark.parametrize(
    ("title", "text"),
    [
        ("The Keeper's Choice", "Will you make the Keeper\u2019s Choice?"),  # a curly apostrophe
        ("Home at Last!", "Bring Tobias home at last."),  # the title's own punctuation
        ("Goodbye, Saltmere!", "Say goodbye, Saltmere, and sail"),
        ("The  Dark\u00a0Harbour", "Nights of the dark harbour"),  # spaces of another kind or count
        ("Caf\u00e9 Noir", "Meet at the Cafe\u0301 Noir"),  # composed and decomposed accents
        ("Lamp Unlit", "The \uff2c\uff41\uff4d\uff50 Unlit"),  # fullwidth letters
        ("Moonlit Betrayal", "A Moonlit-Betrayal awaits"),  # a hyphen for the space
        ("Moonlit Betrayal", "A Moonlit\u2011Betrayal awaits"),  # a non-breaking hyphen
        ("Moonlit Betrayal", "A Moonlit\u200bBetrayal awaits"),  # a zero-width space
        ("Moonlit Betrayal", "A Moon\u00adlit Betrayal awaits"),  # a soft hyphen inside a word
        ("Le P\u00e9cheur", "Le Pe\u00ad\u0301cheur avoue"),  # ... even between a letter and its accent
    ],
)
def test_titles_are_matched_however_the_text_spells_them(title: str, text: str) -> None:
    pack = example("0.5", "rich")
    put(pack, "/progression/endings/0/title", title)
    put(pack, "/publication/tagline", text)
    assert [f.pointer for f in _findings(pack, "spoiler-title")] == ["/publication/tagline"]


@pytest.mark.parametrize(
    ("title", "text"),
    [
        ("Le P\u00e9cheur", "Le p\u00eacheur du village"),  # a sinner is not a fisherman
        ("El A\u00f1o Nuevo", "Bajo el ano nuevo"),  # n with a tilde is a letter of its own
        ("\u041c\u043e\u0439 \u0431\u043e\u0439", "\u043c\u043e\u0438 \u0431\u043e\u0438"),  # so is the short i
        ("Sch\u00f6n Warm", "Es ist schon warm"),
    ],
)
def test_a_letter_with_another_mark_is_another_letter(title: str, text: str) -> None:
    pack = example("0.5", "rich")
    put(pack, "/progression/endings/0/title", title)
    put(pack, "/publication/tagline", text)
    assert _findings(pack, "spoiler-title") == []
