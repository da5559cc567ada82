"""Scripted play: run turns from a script (JSON lines) and check what happened.

Example (pytest)::

    from creatorpack.testing import play

    def test_trust_leads_to_the_good_ending():
        run = play("pack.json", [{"observations": {"helped": True}}] * 3)
        assert run.ending == "keeper_of_the_light"
        assert "first_friend" in run.achievements
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from creatorpack.contract.validation import Source
from creatorpack.errors import TurnError
from creatorpack.play.engine import Engine, Session, Turn, TurnResult

__all__ = ["Playthrough", "parse_script", "play"]


@dataclass(frozen=True, slots=True)
class Playthrough:
    """A finished scripted run: the start (turn 0), every turn's result, and the session."""

    start: TurnResult
    turns: tuple[TurnResult, ...]
    session: Session

    @property
    def last(self) -> TurnResult:
        """The result of the last turn played (the start if none was)."""
        return self.turns[-1] if self.turns else self.start

    @property
    def ending(self) -> str | None:
        """The ending reached, if any."""
        return self.last.ending

    @property
    def achievements(self) -> tuple[str, ...]:
        """Every achievement unlocked, in unlock order."""
        return self.last.achievements

    @property
    def badges(self) -> tuple[str, ...]:
        """Every badge awarded, in award order."""
        return self.last.badges

    def transcript(self) -> dict[str, Any]:
        """The JSON transcript that ``creatorpack play --script … --format json`` prints."""
        return {"start": self.start.to_json(), "turns": [turn.to_json() for turn in self.turns]}


def parse_script(lines: Iterable[str] | str | Path) -> list[Turn]:
    """Read a JSON Lines script: one turn per line; blank lines and ``#`` comment lines are skipped.

    ``creatorpack lint --explain ID`` prints such a script (with a ``#`` header line).

    Raises :class:`~creatorpack.errors.TurnError` naming the line of the first bad turn.
    """
    if isinstance(lines, Path):
        try:
            lines = lines.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise TurnError(f"cannot read the script {lines}: {exc}") from None
    elif isinstance(lines, str):
        lines = lines.splitlines()
    turns: list[Turn] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise TurnError(f"script line {number}: not JSON ({exc})") from None
        try:
            turns.append(Turn.from_json(data))
        except TurnError as exc:
            raise TurnError(f"script line {number}: {exc.message}") from None
    return turns


def play(
    pack: Engine | Source,
    turns: Sequence[Turn | Mapping[str, Any]],
    *,
    entry: str | None = None,
) -> Playthrough:
    """Start a session and play ``turns`` (``Turn`` objects or their JSON form) in order.

    Raises :class:`~creatorpack.errors.TurnError` for a malformed turn and
    :class:`~creatorpack.errors.SessionOverError` for a turn after an ending, naming the turn.
    """
    session = Session.start(pack, entry)
    start = session.last
    if start is None:  # pragma: no cover - Session.start always records the start
        raise TurnError("the session did not start")
    results: list[TurnResult] = []
    for number, raw in enumerate(turns, start=1):
        turn = raw if isinstance(raw, Turn) else Turn.from_json(raw)
        try:
            results.append(session.turn(turn.observations, turn.illustration_matches))
        except TurnError as exc:
            raise type(exc)(f"turn {number}: {exc.message}", exc.problems) from None
    return Playthrough(start, tuple(results), session)
