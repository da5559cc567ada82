"""What a pack says about itself: public metadata that gives secrets away, and provenance hashes."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from creatorpack._json import JsonPath
from creatorpack.contract.findings import RawFinding
from creatorpack.lint.index import PackIndex
from creatorpack.lint.rules import Raw
from creatorpack.play.program import relationship_ids

__all__ = ["check_hashes", "check_spoilers"]


def check_hashes(index: PackIndex) -> Iterator[Raw]:
    """generation_record hashes agree with the assets they describe."""
    assets = index.items("assets")
    by_id = {a.get("id"): a for _, a in assets}
    for position, asset in assets:
        record = asset.get("generation_record")
        if not isinstance(record, Mapping):
            continue
        output = record.get("output_sha256")
        if isinstance(output, str) and output != asset.get("sha256"):
            recorded, shipped = _two_hashes(output, str(asset.get("sha256")))
            yield RawFinding(
                ("assets", position, "generation_record", "output_sha256"),
                "output-sha256-mismatch",
                f"output_sha256 {recorded} is not this asset's sha256 {shipped}; record the file you ship",
            )
        inputs = record.get("input_assets")
        for number, item in enumerate(inputs if isinstance(inputs, list) else []):
            source = by_id.get(item.get("asset_id")) if isinstance(item, Mapping) else None
            if source is not None and item.get("sha256") != source.get("sha256"):
                actual, given = _two_hashes(str(source.get("sha256")), str(item.get("sha256")))
                yield RawFinding(
                    ("assets", position, "generation_record", "input_assets", number, "sha256"),
                    "input-sha256-mismatch",
                    f"input {item.get('asset_id')!r} has sha256 {actual}, not {given}",
                )


def _two_hashes(first: str, second: str, shown: int = 12) -> tuple[str, str]:
    """Two different hashes as a message shows them: their first ``shown`` digits, or whole when those agree."""
    if first[:shown] != second[:shown]:
        return f"{first[:shown]}…", f"{second[:shown]}…"
    return first, second


_TEXTS: Final = ("tagline", "description", "creator_credit")
_LISTS: Final = ("tags",)
"""Lists of free words; genres, content warnings and audiences are a shared vocabulary ("Mystery", "Family"),
which a title may share without telling anything."""
_COVERS: Final = ("cover_asset_id", "cover_motion_asset_id")
_BADGE_ART: Final = (("front_asset_id", "front"), ("effect_mask_asset_id", "effect mask"))
_SPACED: Final = re.compile(r"[^\W_\u2e80-\U0010ffff]")
"""A letter or digit of a script written with spaces between words (CJK, from U+2E80 on, is not)."""
_WORD: Final = re.compile(r"[^\W_\u2e80-\U0010ffff]+|[^\W_]")
"""A word of a spaced script, or one letter or digit of the others."""


@dataclass(frozen=True, slots=True)
class _Progression:
    """What readers may know of before playing (``listed_badges``), and what they should discover.

    ``hidden_badges`` maps each badge that only hidden achievements or endings award to what awards it.
    """

    listed_badges: frozenset[str]
    hidden_badges: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class _Start:
    """The start of the default entry: its id, the assets revealed, and what the reader view shows there."""

    entry: str
    assets: frozenset[str]
    shown: Mapping[str, frozenset[str]]


def _listed(achievement: Mapping[str, Any]) -> bool:
    """Whether the reader view lists the achievement: a visible one, or a guided one (it has no visibility)."""
    return achievement.get("visibility") != "hidden"


def _progression(index: PackIndex) -> _Progression:
    listed: set[str] = set()
    hidden: dict[str, list[str]] = {}
    for _, item in index.items("progression", "achievements"):
        if isinstance(badge := item.get("badge_id"), str):
            if _listed(item):
                listed.add(badge)
            else:
                hidden.setdefault(badge, []).append(f"the hidden achievement {item.get('id')!r}")
    for _, item in index.items("progression", "endings"):
        if isinstance(badge := item.get("badge_id"), str):
            hidden.setdefault(badge, []).append(f"the ending {item.get('id')!r}")
    return _Progression(
        frozenset(listed), {badge: " and ".join(by) for badge, by in hidden.items() if badge not in listed}
    )


def _start(index: PackIndex) -> _Start | None:
    """What the runtime reveals at the start of the default entry, or ``None`` when it cannot start there."""
    engine = index.engine
    if engine is None:
        return None
    try:
        state, result = engine.start()
    except Exception:  # noqa: BLE001 - an unplayable pack is reported by the other checks
        return None
    view = result.reader_view()
    shown = {kind: frozenset(view.revealed.get(kind, ())) for kind in ("reader_cards", "relationships")}
    return _Start(state.entry, frozenset(state.revealed.get("assets", ())), shown)


def _secrets(index: PackIndex, progression: _Progression) -> dict[str, tuple[str, list[str]]]:
    """The titles readers should discover (casefolded) with their spelling and the items that bear them."""
    items = [
        (item.get("title"), f"the hidden achievement {item.get('id')!r}")
        for _, item in index.items("progression", "achievements")
        if not _listed(item)
    ]
    items += [
        (item.get("title"), f"the ending {item.get('id')!r}") for _, item in index.items("progression", "endings")
    ]
    items += [
        (item.get("title"), f"the badge {item.get('id')!r} (awarded only by {progression.hidden_badges[item['id']]})")
        for _, item in index.items("progression", "badges")
        if item.get("id") in progression.hidden_badges
    ]
    secrets: dict[str, tuple[str, list[str]]] = {}
    for title, what in items:
        if isinstance(title, str) and (key := _fold(title).strip(_EDGES) or _fold(title)):
            secrets.setdefault(key, (title.strip(), []))[1].append(what)
    return secrets


_QUOTES: Final = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
_EDGES: Final = " .,;:!?'\"()[]{}-\u2013\u2014\u2026\u00bf\u00a1"
"""What a title may end or start with that a sentence naming it may not keep ("Home at Last!")."""


_SEPARATORS: Final = str.maketrans(
    dict.fromkeys("-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u200b", " ")
    | dict.fromkeys("\u00ad\u200c\u200d\u2060\ufeff", None)
)
"""Hyphens and dashes (``Moonlit-Betrayal``) and a zero-width space separate words; a soft hyphen and
the zero-width joiners are not there for readers at all."""


def _fold(text: str) -> str:
    """``text`` as titles are matched, so that a title is found however a text spells it.

    NFKC (fullwidth, composed accents), straight quotes, hyphens as spaces, one space, casefolded.
    Accents are kept: a letter with a mark is often another letter (``ñ``, ``й``, ``ü``), and
    ``pêcheur`` is another word than ``pécheur``.
    """
    if text.isascii():  # most texts: NFKC and the quotes change nothing
        return " ".join(text.replace("-", " ").split()).lower()
    folded = unicodedata.normalize("NFKC", text.translate(_SEPARATORS))  # a soft hyphen parts no accent from its letter
    return " ".join(folded.translate(_QUOTES).translate(_SEPARATORS).split()).casefold()


def _short(title: str) -> bool:
    """A title of one word (or of one or two characters of a script written without spaces): too common to seek."""
    words = _WORD.findall(title)
    return len(words) < 2 or (len(words) < 3 and all(_SPACED.fullmatch(w[0]) is None for w in words))


_Text: TypeAlias = tuple[JsonPath, Any, tuple[str, str] | None]
"""A text readers may see, its path, and the reveal (kind, id) it shows with (``None``: always shown)."""


def _shown_texts(index: PackIndex, progression: _Progression) -> Iterator[_Text]:
    """Every text the reader view and the catalog show before anyone plays, with its path."""
    pack = index.pack
    manifest = pack.get("manifest")
    yield ("manifest", "title"), manifest.get("title") if isinstance(manifest, Mapping) else None, None
    publication = pack.get("publication")
    if isinstance(publication, Mapping):
        yield from ((("publication", name), publication.get(name), None) for name in _TEXTS)
        rights = publication.get("rights")
        statement = rights.get("statement") if isinstance(rights, Mapping) else None
        yield ("publication", "rights", "statement"), statement, None
        for name in _LISTS:
            listed = publication.get(name)
            for i, text in enumerate(listed if isinstance(listed, list) else []):
                yield ("publication", name, i), text, None
    yield from ((("entries", i, "title"), entry.get("title"), None) for i, entry in index.items("entries"))
    for i, item in index.items("progression", "achievements"):
        if _listed(item):
            for name in ("title", "description"):
                yield ("progression", "achievements", i, name), item.get(name), None
    for i, item in index.items("progression", "badges"):
        if item.get("id") in progression.listed_badges:
            yield ("progression", "badges", i, "title"), item.get("title"), None
    for i, card in index.items("reader_cards"):
        revealed = ("reader_cards", str(card.get("id")))
        yield from ((("reader_cards", i, name), card.get(name), revealed) for name in ("display_name", "introduction"))
        relationships = card.get("relationships")
        if isinstance(relationships, list):
            for j, (ident, relation) in enumerate(zip(relationship_ids(card), relationships, strict=True)):
                label = relation.get("label") if isinstance(relation, Mapping) else None
                yield ("reader_cards", i, "relationships", j, "label"), label, ("relationships", ident)


@dataclass(frozen=True, slots=True)
class _Titles:
    """The titles readers should discover (casefolded), each filed under its rarest word, to find them fast."""

    by_word: Mapping[str, tuple[str, ...]]
    wordless: tuple[str, ...]

    @classmethod
    def of(cls, titles: Sequence[str]) -> _Titles:
        """File each of ``titles``: every word a title holds is a word of any text that names it."""
        words = {title: set(_WORD.findall(title)) for title in titles}
        counts = Counter(word for found in words.values() for word in found)
        filed: dict[str, list[str]] = {}
        for title, found in words.items():
            if found:
                filed.setdefault(min(found, key=lambda w: (counts[w], w)), []).append(title)
        return cls({w: tuple(t) for w, t in filed.items()}, tuple(t for t, found in words.items() if not found))

    def named(self, folded: str) -> set[str]:
        """The titles that the folded text ``folded`` names as whole words.

        A short title (one word: "Home", "Mystery", "光") is named only by a text that is that title
        and nothing more (a tag, a title); in running text such a word tells nothing.
        """
        candidates = [*self.wordless, *(t for w in set(_WORD.findall(folded)) for t in self.by_word.get(w, ()))]
        stripped = folded.strip(_EDGES)
        return {t for t in candidates if (stripped == t if _short(t) else _names(folded, t))}


def _names(text: str, title: str) -> bool:
    """Whether ``text`` holds ``title`` as whole words: ``clue 1`` is not in ``clue 10``."""
    at = text.find(title)
    while at >= 0:
        end = at + len(title)
        if not (at and _one_word(text[at - 1], title[0])) and not (end < len(text) and _one_word(title[-1], text[end])):
            return True
        at = text.find(title, at + 1)
    return False


def _one_word(left: str, right: str) -> bool:
    """Whether two neighbouring characters belong to one word (never in scripts written without spaces)."""
    return _SPACED.fullmatch(left) is not None and _SPACED.fullmatch(right) is not None


def _hidden_art(index: PackIndex, progression: _Progression) -> dict[str, list[str]]:
    """The assets only hidden items picture, each with what it is of them.

    Art a listed achievement or badge also wears shows nothing that only hidden items hold.
    """
    hidden: list[tuple[Any, str]] = []
    public: set[Any] = set()
    for _, item in index.items("progression", "achievements"):
        if _listed(item):
            public.add(item.get("artwork_asset_id"))
        else:
            hidden.append((item.get("artwork_asset_id"), f"the artwork of the hidden achievement {item.get('id')!r}"))
    for _, item in index.items("progression", "endings"):
        hidden.append((item.get("artwork_asset_id"), f"the artwork of the ending {item.get('id')!r}"))
    for _, badge in index.items("progression", "badges"):
        collectible = badge.get("collectible")
        parts = [(collectible.get(key), name) for key, name in _BADGE_ART] if isinstance(collectible, Mapping) else []
        awarded = progression.hidden_badges.get(str(badge.get("id")))
        if badge.get("id") in progression.listed_badges:
            public.update(asset for asset, _ in parts)
        elif awarded is not None:
            hidden += [
                (a, f"the {name} of the badge {badge.get('id')!r} (awarded only by {awarded})") for a, name in parts
            ]
    found: dict[str, list[str]] = {}
    for asset, what in hidden:
        if isinstance(asset, str) and asset not in public:
            found.setdefault(asset, []).append(what)
    return found


def _and(parts: Sequence[str]) -> str:
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


def _field(path: JsonPath) -> str:
    """``path`` as a reader of the pack writes it: ``publication.genres[1]``."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def _wrong_cover(key: str, asset: Mapping[str, Any]) -> str:
    """Why ``asset`` cannot be the cover ``key`` names (a still cover that is no image, ...), or ``""``."""
    kind, mime, name = asset.get("kind"), asset.get("mime_type"), asset.get("id")
    if key == "cover_asset_id" and kind in ("audio", "video"):
        return f"the cover {name!r} is {kind}, not an image: the catalog shows a cover as a picture"
    if key == "cover_motion_asset_id" and (kind == "audio" or (kind == "image" and mime != "image/apng")):
        what = "audio" if kind == "audio" else f"a still image ({mime})"
        return f"the motion cover {name!r} is {what}: use a video (or an animated PNG), or set it as cover_asset_id"
    return ""


def check_spoilers(index: PackIndex) -> Iterator[Raw]:
    """What readers see before playing must not give away hidden achievements, endings or rewards.

    Every text the reader view and the catalog show is checked for the titles of hidden achievements,
    endings and badges only those award (``spoiler-title``); each cover for being ``reward_only``,
    such an item's art, or revealed only after the start of the default entry (``spoiler-asset``).
    The runtime is started only when a cover or a reader card's text needs it.
    """
    progression = _progression(index)
    start = functools.cache(functools.partial(_start, index))
    secrets = _secrets(index, progression)
    titles = _Titles.of(list(secrets))
    for where, text, reveal in _shown_texts(index, progression):
        named = titles.named(_fold(text)) if isinstance(text, str) else set()
        if not named:
            continue
        if reveal is not None and ((started := start()) is None or reveal[1] not in started.shown[reveal[0]]):
            continue  # shown only once revealed: not before anyone plays
        for title, whats in (secrets[key] for key in secrets if key in named):
            yield RawFinding(
                where,
                "spoiler-title",
                f"{_field(where)} names {title!r}, the title of {' and of '.join(whats)}; readers should discover it",
            )
    publication = index.pack.get("publication")
    covers = publication if isinstance(publication, Mapping) else {}
    assets = {a.get("id"): a for _, a in index.items("assets")}
    art = _hidden_art(index, progression)
    for key in _COVERS:
        asset = assets.get(covers.get(key))
        if asset is None:
            continue
        if wrong := _wrong_cover(key, asset):
            yield RawFinding(("publication", key), "cover-kind", wrong)
        ident = asset.get("id")
        reasons = ["is reward_only"] if asset.get("access") == "reward_only" else []
        started = start()
        later = started is not None and ident not in started.assets
        if later or started is None:  # art revealed at the start is the readers' already: it tells nothing
            reasons += [f"is {what}" for what in art.get(str(ident), ())]
        if later and started is not None:
            reasons.append(
                f"is revealed only later (its reveal_when does not hold at the start of entry {started.entry!r})"
            )
        if reasons:
            yield RawFinding(
                ("publication", key),
                "spoiler-asset",
                f"publication.{key} {ident!r} {_and(reasons)}: the cover shows it to every reader before they play",
            )
