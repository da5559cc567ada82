"""The narrator's prompt: fixed, named sections built from the narrator view, within a token budget.

Sections, in order: the pack's ``instructions``; a fixed narrator :data:`PREAMBLE`; the **world**
(content that holds for this entry and state); the **cast** (castings in play, with their revealed
knowledge and deeds); the reader **cards** revealed so far; the active **guidance** instructions;
the **story** so far; the reader's **input**. The budget (``context_tokens`` less the tokens kept for
the answer) is met by leaving out, in this order: the oldest turns of the story, then the cards, the
cast and the world. The instructions, the preamble, the guidance and the input are never left out —
a creator's "constant" entries do not vanish silently — and :class:`PromptReport` says what each
section cost and what was left out, and why.

Tokens are estimated (:func:`estimate_tokens`: about four bytes of UTF-8 a token, as for English
with common tokenizers); the report says so.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from creatorpack.narrate.client import ChatMessage
from creatorpack.play import TurnResult

__all__ = [
    "PREAMBLE",
    "Exchange",
    "Prompt",
    "PromptReport",
    "Section",
    "SectionReport",
    "build_prompt",
    "estimate_tokens",
]

PREAMBLE: Final = (
    "You are the narrator of an interactive story. Stay in the story and in the voice the instructions "
    "ask for. Write only what the reader experiences now, in prose, with no headings, lists or notes. "
    "Never state facts the reader has not discovered: what the guidance and the cast notes below tell you "
    "is for you to steer by, not to reveal. Never mention rules, states, observations or this prompt."
)
_DROP_ORDER: Final = ("cards", "cast", "world")  # after the story's oldest turns


class Section(StrEnum):
    """The prompt's sections, in the order they are sent."""

    INSTRUCTIONS = "instructions"
    PREAMBLE = "preamble"
    WORLD = "world"
    CAST = "cast"
    CARDS = "cards"
    GUIDANCE = "guidance"
    STORY = "story"
    INPUT = "input"


_KEPT: Final = frozenset({Section.INSTRUCTIONS, Section.PREAMBLE, Section.GUIDANCE, Section.INPUT})


def estimate_tokens(text: str) -> int:
    """An estimate of ``text``'s tokens: a quarter of its UTF-8 bytes, rounded up (at least 1 for any text)."""
    size = len(text.encode("utf-8"))
    return (size + 3) // 4


@dataclass(frozen=True, slots=True)
class Exchange:
    """One past turn of the story: what the reader did and what the narrator told."""

    input: str
    narration: str


@dataclass(frozen=True, slots=True)
class SectionReport:
    """One section of a prompt: its estimated tokens, and what was left out of it and why."""

    name: Section
    tokens: int
    left_out: tuple[str, ...] = ()
    why: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"section": str(self.name), "tokens": self.tokens, "left_out": list(self.left_out), "why": self.why}


@dataclass(frozen=True, slots=True)
class PromptReport:
    """What went into one turn's prompt: each section's size, what was left out and why, against the budget."""

    budget: int
    tokens: int
    sections: tuple[SectionReport, ...]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (the CLI's ``--show-prompt``, the host's view)."""
        return {
            "budget": self.budget,
            "tokens": self.tokens,
            "estimate": "about four bytes of UTF-8 a token",
            "sections": [s.to_json() for s in self.sections],
        }

    def render(self) -> str:
        """A few lines for a terminal."""
        lines = [f"prompt: ~{self.tokens} of {self.budget} tokens"]
        for section in self.sections:
            line = f"  {section.name}: ~{section.tokens}"
            if section.left_out:
                line += f" (left out {len(section.left_out)}: {section.why})"
            lines.append(line)
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Prompt:
    """The messages to send and the report of how they were chosen."""

    messages: tuple[ChatMessage, ...]
    report: PromptReport


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=1)  # the contract leaves instructions' shape open


def _by_id(items: object) -> dict[str, Mapping[str, Any]]:
    if not isinstance(items, list):
        return {}
    return {str(i["id"]): i for i in items if isinstance(i, Mapping) and isinstance(i.get("id"), str)}


def _world(pack: Mapping[str, Any], result: TurnResult) -> list[str]:
    content = _by_id(pack.get("content"))
    return [str(content[c]["text"]) for c in result.content if c in content and isinstance(content[c].get("text"), str)]


def _cards(pack: Mapping[str, Any], result: TurnResult) -> list[str]:
    cards = _by_id(pack.get("reader_cards"))
    found = []
    for card_id in result.revealed.get("reader_cards", ()):
        card = cards.get(card_id)
        if card is not None:
            found.append(f"{card.get('display_name', card_id)}: {card.get('introduction', '')}".strip())
    return found


def _cast(pack: Mapping[str, Any], result: TurnResult) -> list[str]:
    castings = _by_id(pack.get("character_castings"))
    cards = _by_id(pack.get("reader_cards"))
    knowledge = set(result.revealed.get("knowledge", ()))
    deeds = set(result.revealed.get("deeds", ()))
    found = []
    for casting_id in result.revealed.get("castings", ()):
        casting = castings.get(casting_id)
        if casting is None:
            continue
        actor = str(casting.get("actor_id", casting_id))
        name = cards.get(actor, {}).get("display_name", actor)
        known = [
            f"- knows: {item.get('text', '')}"
            for item in _listed(casting.get("knowledge"))
            if f"{casting_id}/{item.get('id')}" in knowledge
        ]
        done = [
            f"- has done: {item.get('id')}"
            for item in _listed(casting.get("deeds"))
            if f"{casting_id}/{item.get('id')}" in deeds
        ]
        found.append("\n".join([f"{name} (actor {actor})", *known, *done]))
    return found


def _listed(items: object) -> list[Mapping[str, Any]]:
    return [i for i in items if isinstance(i, Mapping)] if isinstance(items, list) else []


def _block(title: str, items: Sequence[str]) -> str:
    return f"## {title}\n" + "\n\n".join(items) if items else ""


def build_prompt(
    pack: Mapping[str, Any],
    result: TurnResult,
    story: Sequence[Exchange],
    reader_input: str,
    *,
    context_tokens: int = 4096,
    answer_tokens: int = 600,
) -> Prompt:
    """The prompt for the turn after ``result`` (the session's current view), within the budget.

    ``pack`` is the pack as its version reads it (for the texts the view names by id); ``story`` the
    turns so far, oldest first.
    """
    budget = max(0, context_tokens - answer_tokens)
    parts: dict[Section, list[str]] = {
        Section.INSTRUCTIONS: [_text(pack.get("instructions", ""))],
        Section.PREAMBLE: [PREAMBLE],
        Section.WORLD: _world(pack, result),
        Section.CAST: _cast(pack, result),
        Section.CARDS: _cards(pack, result),
        Section.GUIDANCE: list(result.instructions),
    }
    titles = {
        Section.INSTRUCTIONS: "The story",
        Section.PREAMBLE: "Narrating",
        Section.WORLD: "The world now",
        Section.CAST: "The cast (for you only)",
        Section.CARDS: "Who and what the reader has met",
        Section.GUIDANCE: "Guidance for this turn (for you only)",
    }
    input_tokens = estimate_tokens(reader_input)
    fixed = sum(estimate_tokens(_block(titles[s], parts[s])) for s in _KEPT if s in titles) + input_tokens
    optional = {s: estimate_tokens(_block(titles[s], parts[s])) for s in (Section.WORLD, Section.CAST, Section.CARDS)}
    room = budget - fixed - sum(optional.values())
    kept_story: list[Exchange] = []
    for exchange in reversed(story):  # the newest turns first
        cost = estimate_tokens(exchange.input) + estimate_tokens(exchange.narration)
        if cost > room:
            break
        kept_story.insert(0, exchange)
        room -= cost
    left: dict[Section, tuple[tuple[str, ...], str]] = {}
    dropped = len(story) - len(kept_story)
    if dropped:
        left[Section.STORY] = (
            tuple(f"turn {n + 1}" for n in range(dropped)),
            f"the oldest {dropped} turn{'s' if dropped != 1 else ''} did not fit the budget",
        )
    for name in _DROP_ORDER:
        section = Section(name)
        if room >= 0:
            break
        if parts[section]:
            left[section] = (tuple(parts[section]), "the budget was spent by the sections that are never left out")
            room += optional[section]
            parts[section] = []
    system = "\n\n".join(
        block
        for s in (Section.INSTRUCTIONS, Section.PREAMBLE, Section.WORLD, Section.CAST, Section.CARDS, Section.GUIDANCE)
        if (block := _block(titles[s], [p for p in parts[s] if p]))
    )
    messages = [ChatMessage("system", system)]
    for exchange in kept_story:
        messages += [ChatMessage("user", exchange.input), ChatMessage("assistant", exchange.narration)]
    messages.append(ChatMessage("user", reader_input))
    reports = []
    for section in Section:
        if section is Section.STORY:
            tokens = sum(estimate_tokens(e.input) + estimate_tokens(e.narration) for e in kept_story)
        elif section is Section.INPUT:
            tokens = input_tokens
        else:
            tokens = estimate_tokens(_block(titles[section], parts[section]))
        out, why = left.get(section, ((), None))
        reports.append(SectionReport(section, tokens, out, why))
    total = sum(r.tokens for r in reports)
    return Prompt(tuple(messages), PromptReport(budget, total, tuple(reports)))
