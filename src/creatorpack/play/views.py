"""What one turn shows to each audience: the reader's view and the narrator's view, as types.

A reader-facing surface (the CLI's reader panel, the HTTP service's reader responses) serializes
:class:`ReaderView` and nothing else, through :meth:`ReaderView.to_json`. It is built from ids the
reader has been shown already, so narrator material (instructions, rules, guidance, content, state
values, hidden achievements before they unlock, endings before they are reached, ``reward_only``
assets before their reward, cards and their parts before they are revealed, castings) cannot reach
it: there is no field to carry it. :class:`NarratorView` is for hosts and owners only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from creatorpack._json import copy_json

__all__ = ["READER_KINDS", "NarratorView", "ReaderView", "RevealKind"]


class RevealKind(StrEnum):
    """The kinds of sticky reveals, as keys of ``TurnResult.revealed``."""

    READER_CARDS = "reader_cards"
    AVATARS = "avatars"
    IMAGES = "images"
    RELATIONSHIPS = "relationships"
    ASSETS = "assets"
    VISUAL_ANCHORS = "visual_anchors"
    CASTINGS = "castings"
    DEEDS = "deeds"
    KNOWLEDGE = "knowledge"


READER_KINDS: tuple[RevealKind, ...] = (
    RevealKind.READER_CARDS,
    RevealKind.AVATARS,
    RevealKind.IMAGES,
    RevealKind.RELATIONSHIPS,
    RevealKind.ASSETS,
    RevealKind.VISUAL_ANCHORS,
)
"""The reveals a reader sees. Castings, their deeds and knowledge tell the narrator how to play a
character; they stay in the narrator's view."""


@dataclass(frozen=True, slots=True)
class ReaderView:
    """What the reader may see after a turn: ids of what was revealed, unlocked or reached, nothing else.

    ``revealed`` and ``new_revealed`` map each of :data:`READER_KINDS` to ids (an asset only once
    the reader can reach it); ``achievements`` are the unlocked ones (a hidden one only once
    unlocked), ``locked_achievements`` the visible ones still to earn; ``ending`` is set only once
    reached.
    """

    turn: int
    revealed: Mapping[str, tuple[str, ...]]
    new_revealed: Mapping[str, tuple[str, ...]]
    achievements: tuple[str, ...]
    new_achievements: tuple[str, ...]
    locked_achievements: tuple[str, ...]
    badges: tuple[str, ...]
    new_badges: tuple[str, ...]
    ending: str | None
    illustration: str | None
    assets: tuple[str, ...]

    @property
    def over(self) -> bool:
        """Whether the story reached an ending."""
        return self.ending is not None

    def to_json(self) -> dict[str, Any]:
        """The one serialization reader-facing code may send."""
        return {
            "turn": self.turn,
            "revealed": {str(kind): list(ids) for kind, ids in self.revealed.items()},
            "new_revealed": {str(kind): list(ids) for kind, ids in self.new_revealed.items() if ids},
            "achievements": list(self.achievements),
            "new_achievements": list(self.new_achievements),
            "locked_achievements": list(self.locked_achievements),
            "badges": list(self.badges),
            "new_badges": list(self.new_badges),
            "ending": self.ending,
            "illustration": self.illustration,
            "assets": list(self.assets),
        }


@dataclass(frozen=True, slots=True)
class NarratorView:
    """What the narrator (the host) gets after a turn: the reader's view plus everything it must not show."""

    reader: ReaderView
    state: Mapping[str, Any]
    active_rules: tuple[str, ...]
    instructions: tuple[str, ...]
    content: tuple[str, ...]
    content_candidates: tuple[str, ...]
    guidance: Mapping[str, Any]
    completed_rules: tuple[str, ...]
    new_completed_rules: tuple[str, ...]
    rejected_effects: tuple[Mapping[str, Any], ...]
    castings: Mapping[str, tuple[str, ...]]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON for hosts and owners."""
        return {
            "reader": self.reader.to_json(),
            "state": copy_json(self.state),
            "active_rules": list(self.active_rules),
            "instructions": list(self.instructions),
            "content": list(self.content),
            "content_candidates": list(self.content_candidates),
            "guidance": copy_json(self.guidance),
            "completed_rules": list(self.completed_rules),
            "new_completed_rules": list(self.new_completed_rules),
            "rejected_effects": [dict(r) for r in self.rejected_effects],
            "castings": {str(kind): list(ids) for kind, ids in self.castings.items()},
        }
