"""The spoiler guard: find, in a narration, what the reader has not been shown.

Before narration reaches a reader, :class:`SpoilerGuard` looks for verbatim mentions, compared after
NFKC, case folding and whitespace folding and on word boundaries, of: display names of reader cards
not yet revealed; knowledge texts not yet revealed; the instructions of every rule and the texts of
guidance (summaries, next steps, hints); titles of hidden achievements not unlocked; titles and
closing texts of endings not reached. The narrator regenerates once with a correction naming them;
what is left is redacted (:meth:`SpoilerGuard.redact`) and the host's view reports it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from creatorpack.play import TurnResult

__all__ = ["REDACTED", "Hidden", "SpoilerGuard"]

REDACTED: Final = "[…]"
_MIN_CHARS: Final = 3  # shorter strings ("Al") match too much ordinary prose to be told apart


@dataclass(frozen=True, slots=True)
class Hidden:
    """A string the reader has not been shown: what it is (``kind`` and ``id``) and its text."""

    kind: str
    id: str
    text: str


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _items(pack: Mapping[str, Any], *path: str) -> list[Mapping[str, Any]]:
    node: Any = pack
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    return [i for i in node if isinstance(i, Mapping)] if isinstance(node, list) else []


class SpoilerGuard:
    """The hidden strings of one moment of a session, and a search for them in text."""

    def __init__(self, hidden: Iterable[Hidden]) -> None:
        self.hidden = tuple(h for h in hidden if len(_fold(h.text)) >= _MIN_CHARS)
        self._patterns = [
            (h, re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, _fold(h.text).split(" "))) + r"(?!\w)"))
            for h in self.hidden
        ]

    @classmethod
    def for_turn(cls, pack: Mapping[str, Any], result: TurnResult) -> SpoilerGuard:
        """What a reader of the session at ``result`` has not been shown (``pack`` as its version reads it)."""
        return cls(_hidden(pack, result))

    def find(self, text: str) -> list[Hidden]:
        """The hidden strings ``text`` mentions, each once."""
        folded = _fold(text)
        return [h for h, pattern in self._patterns if pattern.search(folded)]

    def redact(self, text: str) -> str:
        """``text`` with each mention of a hidden string replaced by :data:`REDACTED`.

        Matching runs on the text case-folded per character (so offsets stay those of ``text``);
        a mention whose folding changes its length is still found by :meth:`find` and is then
        redacted on the whole NFKC-folded text instead.
        """
        result = text
        for hidden, _ in self._patterns:
            words = hidden.text.split()
            pattern = re.compile(
                r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)", re.IGNORECASE | re.UNICODE
            )
            result = pattern.sub(REDACTED, result)
        if self.find(result):  # a mention that only NFKC folding reveals (full-width letters, ligatures)
            folded = _fold(result)
            for _, folded_pattern in self._patterns:
                folded = folded_pattern.sub(REDACTED, folded)
            return folded
        return result


def _hidden(pack: Mapping[str, Any], result: TurnResult) -> Iterator[Hidden]:
    cards = set(result.revealed.get("reader_cards", ()))
    for card in _items(pack, "reader_cards"):
        if card.get("id") not in cards and isinstance(card.get("display_name"), str):
            yield Hidden("reader_card", str(card["id"]), card["display_name"])
    knowledge = set(result.revealed.get("knowledge", ()))
    for casting in _items(pack, "character_castings"):
        for item in _items(casting, "knowledge"):
            key = f"{casting.get('id')}/{item.get('id')}"
            if key not in knowledge and isinstance(item.get("text"), str):
                yield Hidden("knowledge", key, item["text"])
    for rule in _items(pack, "runtime", "rules"):
        if isinstance(rule.get("instruction"), str):
            yield Hidden("instruction", str(rule.get("id")), rule["instruction"])
    for goal in (*_items(pack, "progression", "achievements"), *_items(pack, "progression", "endings")):
        guidance = goal.get("guidance")
        if not isinstance(guidance, Mapping):
            continue
        for key in ("summary", "next_step"):
            if isinstance(guidance.get(key), str):
                yield Hidden(f"guidance.{key}", str(goal.get("id")), guidance[key])
        for requirement in _items(guidance, "requirements"):
            if isinstance(requirement.get("hint"), str):
                yield Hidden("guidance.hint", str(goal.get("id")), requirement["hint"])
    unlocked = set(result.achievements)
    for achievement in _items(pack, "progression", "achievements"):
        locked = achievement.get("id") not in unlocked
        if achievement.get("visibility") == "hidden" and locked and isinstance(achievement.get("title"), str):
            yield Hidden("achievement", str(achievement["id"]), achievement["title"])
    for ending in _items(pack, "progression", "endings"):
        if ending.get("id") == result.ending:
            continue
        for key in ("title", "closing_text"):
            if isinstance(ending.get(key), str):
                yield Hidden(f"ending.{key}", str(ending.get("id")), ending[key])
