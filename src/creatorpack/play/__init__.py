"""The play layer: conditions, typed state, effects, the turn engine and scripted play.

Built on `creatorpack.contract` only; the linter (`creatorpack.lint`) builds on it.
"""

from __future__ import annotations

from creatorpack.play.engine import Engine, Requirement, Session, SessionState, Turn, TurnResult
from creatorpack.play.program import relationship_ids
from creatorpack.play.scripted import Playthrough, parse_script, play
from creatorpack.play.views import READER_KINDS, NarratorView, ReaderView, RevealKind

__all__ = [
    "READER_KINDS",
    "Engine",
    "NarratorView",
    "Playthrough",
    "ReaderView",
    "Requirement",
    "RevealKind",
    "Session",
    "SessionState",
    "Turn",
    "TurnResult",
    "parse_script",
    "play",
    "relationship_ids",
]
