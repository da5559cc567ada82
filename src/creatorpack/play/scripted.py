"""Scripted play: run turns from a script (JSON lines) and check what happened.

Example (pytest)::

    from pathlib import Path

    from creatorpack.testing import play

    def test_trust_leads_to_the_good_ending():
        run = play(Path("pack.json"), [{"observations": {"helped": True}}] * 3)
        assert run.ending == "keeper_of_the_light"
        assert "first_friend" in run.achievements
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from creatorpack._json import a_python_type
from creatorpack.contract.validation import Source
from creatorpack.errors import TurnError
from creatorpack.play.engine import Engine, Session, Turn, TurnResult

__all__ = ["ENTRY_DIRECTIVE", "Playthrough", "Script", "parse_script", "play", "script_entry"]

ENTRY_DIRECTIVE: Final = "# entry: "
"""How a script names the runtime entry its turns start from: a ``# entry: ID`` line before its first turn."""

_ENTRY_LINE: Final = re.compile(r"^\s*#\s*entry:(?P<entry>.*)$")


class Script(list[Turn]):
    """A parsed script: the list of its turns (as :func:`parse_script` always returned) and its ``entry``.

    ``entry`` comes from a ``# entry: ID`` line before the first turn (what ``creatorpack lint
    --explain`` writes for a witness that starts at another entry than the first), so the script
    replays without ``--entry``; ``None`` when the script names none. ``lines`` are the script
    lines of the turns (empty for a script not read from text), which messages name. A list, so
    code written for a list of turns keeps working; list equality compares the turns only.
    """

    __slots__ = ("entry", "lines")

    def __init__(self, turns: Iterable[Turn] = (), entry: str | None = None, lines: Sequence[int] = ()) -> None:
        super().__init__(turns)
        self.entry = entry
        self.lines = tuple(lines)

    def where(self, number: int) -> str:
        """How a message names turn ``number`` (1-based): ``script line 4 (turn 1)``, or ``turn 1``."""
        if 0 < number <= len(self.lines):
            return f"script line {self.lines[number - 1]} (turn {number})"
        return f"turn {number}"

    def __repr__(self) -> str:
        return f"Script({list(self)!r}, entry={self.entry!r})"


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


def parse_script(lines: Iterable[str] | str | bytes | Path) -> Script:
    """Read a JSON Lines script: one turn per line; blank lines and ``#`` comment lines are skipped.

    A ``# entry: ID`` line before the first turn names the runtime entry the turns start from
    (``creatorpack lint --explain ID`` writes one when its witness does not start at the first entry).

    Raises :class:`~creatorpack.errors.TurnError` naming the line of the first bad turn, of an
    entry line after a turn, or of a second entry line that names another entry.
    """
    if isinstance(lines, Path):
        try:
            lines = _lines(lines.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise TurnError(f"cannot read the script {lines}: {exc}") from None
    elif isinstance(lines, bytes | bytearray):
        try:
            lines = _lines(bytes(lines).decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise TurnError(f"the script is not UTF-8 text: {exc}") from None
    elif isinstance(lines, str):
        lines = _lines(lines)
    elif not isinstance(lines, Iterable):
        raise TurnError(f"a script is text, a Path or lines of text, not {a_python_type(lines)}")
    turns: list[Turn] = []
    at: list[int] = []
    entry: str | None = None
    for number, line in enumerate(lines, start=1):
        if not isinstance(line, str):
            raise TurnError(f"script line {number}: a line of text, not {a_python_type(line)}")
        directive = _ENTRY_LINE.match(line)
        if directive is not None:
            entry = _entry_line(directive["entry"].strip(), entry, number, started=bool(turns))
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise TurnError(f"script line {number}, column {exc.colno}: not JSON: {exc.msg}") from None
        try:
            turns.append(Turn.from_json(data))
        except TurnError as exc:
            raise TurnError(f"script line {number}: {exc.message}") from None
        at.append(number)
    return Script(turns, entry, at)


def _lines(text: str) -> list[str]:
    """The lines of a JSON Lines text: only a line feed ends one (a form feed or U+2028 stays inside its line)."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def _entry_line(named: str, entry: str | None, number: int, *, started: bool) -> str:
    """The entry an ``# entry:`` line names, checked against where it stands and any earlier one."""
    if not named or len(named.split()) > 1:
        raise TurnError(f"script line {number}: '{ENTRY_DIRECTIVE}' takes one entry id, not {named!r}")
    if started:
        raise TurnError(f"script line {number}: the entry line must come before the first turn")
    if entry is not None and entry != named:
        raise TurnError(f"script line {number}: the script already starts at entry {entry!r}, not {named!r}")
    return named


def script_entry(
    turns: Sequence[Turn | Mapping[str, Any]], entry: str | None, *, engine: Engine | None = None
) -> str | None:
    """The entry to start from: ``entry`` if given, else the one a :class:`Script` names (``None``: the first).

    Raises :class:`~creatorpack.errors.TurnError` when both are given and disagree. With ``engine``,
    two names of one entry (a runtime entry's id and its pack entry's) agree.
    """
    named = turns.entry if isinstance(turns, Script) else None
    if entry is not None and named is not None and entry != named and not _same_entry(engine, entry, named):
        raise TurnError(f"the script starts at entry {named!r} (its '{ENTRY_DIRECTIVE}{named}' line), not {entry!r}")
    return entry if entry is not None else named


def _same_entry(engine: Engine | None, one: str, other: str) -> bool:
    return (
        engine is not None
        and engine.entry_named(one) is not None
        and engine.entry_named(one) == engine.entry_named(other)
    )


def play(
    pack: Engine | Source,
    turns: Iterable[Turn | Mapping[str, Any]],
    *,
    entry: str | None = None,
) -> Playthrough:
    """Start a session and play ``turns`` (``Turn`` objects or their JSON form) in order.

    The session starts at ``entry``, else at the entry a :class:`Script` names, else at the first.
    Raises :class:`~creatorpack.errors.TurnError` for a malformed turn or an ``entry`` that is not
    the script's, and :class:`~creatorpack.errors.SessionOverError` for a turn after an ending,
    naming the turn.
    """
    given: object = turns  # a caller may pass anything: refuse what is no list of turns by name
    if isinstance(given, str | bytes) or not isinstance(given, Iterable):
        hint = ": read a script with parse_script first" if isinstance(given, str | bytes) else ""
        raise TypeError(f"turns must be a list of Turns (or their JSON form), not {a_python_type(given)}{hint}")
    if not isinstance(turns, Sequence):  # a generator or another iterable of turns: read once, in order
        turns = list(turns)
    engine = pack if isinstance(pack, Engine) else Engine.from_source(pack)
    session = Session.start(engine, script_entry(turns, entry, engine=engine))
    start = session.last
    if start is None:  # pragma: no cover - Session.start always records the start
        raise TurnError("the session did not start")
    results: list[TurnResult] = []
    for number, raw in enumerate(turns, start=1):
        try:
            results.append(session.turn(raw if isinstance(raw, Turn) else Turn.from_json(raw)))
        except TurnError as exc:
            raise type(exc)(f"{_where(turns, number)}: {exc.message}", exc.problems) from None
    return Playthrough(start, tuple(results), session)


def _where(turns: Sequence[Any], number: int) -> str:
    """Turn ``number`` as messages name it: by its script line when ``turns`` was read from a script."""
    return turns.where(number) if isinstance(turns, Script) else f"turn {number}"
