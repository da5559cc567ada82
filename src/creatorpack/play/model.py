"""The values a session is made of: a turn's input, the session state between turns, a turn's result.

All are frozen; :class:`SessionState` is what a save holds, :class:`TurnResult` is what a turn
did, with :meth:`TurnResult.reader_view` and :meth:`TurnResult.narrator_view` splitting it by audience.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from creatorpack._json import copy_json
from creatorpack.errors import TurnError
from creatorpack.play.views import READER_KINDS, NarratorView, ReaderView, RevealKind

__all__ = [
    "REVEAL_KINDS",
    "SAVE_FORMAT",
    "STATE_MEMBERS",
    "Requirement",
    "SessionState",
    "Turn",
    "TurnResult",
    "state_members",
]

REVEAL_KINDS: Final = tuple(kind.value for kind in RevealKind)
"""The kinds of sticky reveals, as keys of :attr:`TurnResult.revealed`."""

SAVE_FORMAT: Final = "creatorpack.session/1"
STATE_MEMBERS: Final = "state_members"
"""The save's key for the members of the state schema it was saved under (see :func:`state_members`)."""


def state_members(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The members of a state schema by name: an object member's own members, nested; any other its type.

    A save records them (:data:`STATE_MEMBERS`) so that a migration planned from the save alone knows
    which members of a new revision are new (``creatorpack play --load``; see ``docs/diff.md``).
    """
    properties = schema.get("properties") if schema.get("type") == "object" else None
    members: dict[str, Any] = {}
    for name, node in (properties if isinstance(properties, Mapping) else {}).items():
        if not isinstance(node, Mapping):
            members[name] = "other"
        elif node.get("type") == "object":
            members[name] = state_members(node)
        else:
            kind = node.get("type")
            members[name] = kind if isinstance(kind, str) else "enum" if "enum" in node else "other"
    return members


@dataclass(frozen=True, slots=True)
class Turn:
    """What the narrator reports for one turn."""

    observations: Mapping[str, bool | str] = field(default_factory=dict)
    illustration_matches: Sequence[str] = ()

    @classmethod
    def from_json(cls, data: Any) -> Turn:
        """A turn from its JSON form ``{"observations": {...}, "illustration_matches": [...]}``."""
        if not isinstance(data, Mapping):
            raise TurnError("a turn must be a JSON object with 'observations' and 'illustration_matches'")
        unknown = set(data) - {"observations", "illustration_matches"}
        if unknown:
            raise TurnError(f"unknown turn member(s) {sorted(unknown)}; use 'observations' and 'illustration_matches'")
        observations = data.get("observations", {})
        matches = data.get("illustration_matches", [])
        if not isinstance(observations, Mapping):
            raise TurnError("'observations' must be an object of observation id to answer")
        if not isinstance(matches, list) or not all(isinstance(m, str) for m in matches):
            raise TurnError("'illustration_matches' must be an array of illustration rule ids")
        return cls(dict(observations), tuple(matches))


@dataclass(frozen=True, slots=True)
class Requirement:
    """One requirement of a guided achievement or ending, and whether it holds now."""

    id: str
    hint: str
    condition_ref: str
    holds: bool


@dataclass(frozen=True, slots=True)
class SessionState:
    """Everything a session is, as plain values: what :meth:`Engine.step` takes and returns."""

    pack_id: str
    revision: int
    entry: str
    turn: int
    state: Mapping[str, Any]
    answers: Mapping[str, Any]
    completed: frozenset[str]
    revealed: Mapping[str, frozenset[str]]
    achievements: tuple[str, ...]
    badges: tuple[str, ...]
    ending: str | None
    values: tuple[bool, ...] = field(repr=False, compare=False)
    open_rules: Any = field(default=None, repr=False, compare=False)
    """The rules not completed (:class:`~creatorpack.play._open.OpenRules`), when given; a turn carries :attr:`held`."""
    held: Any = field(default=None, repr=False, compare=False)
    """Which rules are active on ``values`` (:class:`~creatorpack.play._open.Held`), carried from turn to turn."""
    settled: bool = field(default=False, repr=False, compare=False)
    """Whether a turn's settling made it (nothing whose condition holds is left unrevealed, uncompleted or locked).

    Then the next turn need look only at the conditions that flip; a session loaded or built by
    hand is settled in full on its next turn.
    """

    unlocked: tuple[tuple[str, ...], frozenset[str]] | None = field(default=None, repr=False, compare=False)
    """:attr:`achievements` and :attr:`achievements_set`, when the turn that made this session had the set at hand.

    Used only while ``achievements`` is that very tuple (so a session changed with ``dataclasses.replace``
    makes its set afresh); else the set is made on each call (a thousand ids on a big pack).
    """

    @property
    def achievements_set(self) -> frozenset[str]:
        """The unlocked achievements, as a set."""
        unlocked = self.unlocked
        if unlocked is not None and unlocked[0] is self.achievements:
            return unlocked[1]
        return frozenset(self.achievements)

    def to_json(self, schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The saved form (plain JSON); load it with :meth:`Engine.load`.

        With the state ``schema`` of the session's revision, the save records its members
        (:func:`state_members`), so that a migration planned from the save alone is the one
        planned with the old pack at hand.
        """
        saved = {
            "format": SAVE_FORMAT,
            "pack_id": self.pack_id,
            "revision": self.revision,
            "entry": self.entry,
            "turn": self.turn,
            "state": copy_json(self.state),
            "answers": dict(self.answers),
            "completed_rules": sorted(self.completed),
            "revealed": {str(kind): sorted(self.revealed.get(kind, ())) for kind in REVEAL_KINDS},
            "unlocked_achievements": list(self.achievements),
            "badges": list(self.badges),
            "ending": self.ending,
        }
        if schema is not None:
            saved[STATE_MEMBERS] = state_members(schema)
        return saved


@dataclass(frozen=True, slots=True)
class TurnResult:
    """What one turn did, split by audience.

    For the narrator (never shown to the reader): ``active_rules``, ``instructions``,
    ``content`` and ``content_candidates`` (``jev`` content the host may choose from), and
    ``guidance`` (guided achievements and endings not yet reached, with their requirements).
    For the reader: ``revealed``, ``achievements``, ``badges``, ``ending``, ``illustration``,
    ``reachable_assets``; the ``new_*`` fields say what this turn added.
    """

    turn: int
    state: Mapping[str, Any]
    active_rules: tuple[str, ...]
    instructions: tuple[str, ...]
    content: tuple[str, ...]
    content_candidates: tuple[str, ...]
    guidance: Mapping[str, Any]
    completed_rules: tuple[str, ...]
    new_completed_rules: tuple[str, ...]
    rejected_effects: tuple[Mapping[str, Any], ...]
    revealed: Mapping[str, tuple[str, ...]]
    new_revealed: Mapping[str, tuple[str, ...]]
    achievements: tuple[str, ...]
    new_achievements: tuple[str, ...]
    badges: tuple[str, ...]
    new_badges: tuple[str, ...]
    ending: str | None
    illustration: str | None
    reachable_assets: tuple[str, ...]
    locked_achievements: tuple[str, ...] = ()

    @property
    def over(self) -> bool:
        """Whether the session reached an ending."""
        return self.ending is not None

    def reader_view(self) -> ReaderView:
        """What the reader may see of this turn; the only thing reader-facing code serializes."""
        return ReaderView(
            turn=self.turn,
            revealed={kind: self.revealed.get(kind, ()) for kind in READER_KINDS},
            new_revealed={kind: self.new_revealed.get(kind, ()) for kind in READER_KINDS},
            achievements=self.achievements,
            new_achievements=self.new_achievements,
            locked_achievements=self.locked_achievements,
            badges=self.badges,
            new_badges=self.new_badges,
            ending=self.ending,
            illustration=self.illustration,
            assets=self.reachable_assets,
        )

    def narrator_view(self) -> NarratorView:
        """Everything this turn did, for the narrator (the host) and the pack's owner."""
        castings = (RevealKind.CASTINGS, RevealKind.DEEDS, RevealKind.KNOWLEDGE)
        return NarratorView(
            reader=self.reader_view(),
            state=self.state,
            active_rules=self.active_rules,
            instructions=self.instructions,
            content=self.content,
            content_candidates=self.content_candidates,
            guidance=self.guidance,
            completed_rules=self.completed_rules,
            new_completed_rules=self.new_completed_rules,
            rejected_effects=self.rejected_effects,
            castings={kind: self.revealed.get(kind, ()) for kind in castings},
        )

    def to_json(self) -> dict[str, Any]:
        """The transcript form used by ``creatorpack play --format json``."""
        return {
            "turn": self.turn,
            "state": copy_json(self.state),
            "active_rules": list(self.active_rules),
            "completed_rules": list(self.completed_rules),
            "rejected_effects": [dict(r) for r in self.rejected_effects],
            "unlocked_achievements": list(self.achievements),
            "badges": list(self.badges),
            "ending": self.ending,
            "illustration": self.illustration,
            "revealed": {str(k): list(v) for k, v in self.revealed.items()},
            "reachable_assets": list(self.reachable_assets),
            "new": {
                "completed_rules": list(self.new_completed_rules),
                "unlocked_achievements": list(self.new_achievements),
                "badges": list(self.new_badges),
                "revealed": {str(k): list(v) for k, v in self.new_revealed.items() if v},
            },
            "narrator": {
                "instructions": list(self.instructions),
                "content": list(self.content),
                "content_candidates": list(self.content_candidates),
                "guidance": copy_json(self.guidance),
            },
        }
