"""Play a pack turn by turn: the :class:`Engine` and :class:`Session` facades over the play layer.

:class:`Engine` compiles a valid 0.3, 0.4 or 0.5 pack once (:mod:`~creatorpack.play.program`); its
:meth:`Engine.start` and :meth:`Engine.step` are pure: a :class:`SessionState` goes in, a new one
and a :class:`TurnResult` come out (:mod:`~creatorpack.play.step`). :class:`Session` wraps them for
hosts that prefer an object; saves load through :mod:`~creatorpack.play.saves`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from creatorpack._json import a_python_type, copy_json
from creatorpack.contract import suggest
from creatorpack.contract.validation import Source, validate
from creatorpack.errors import InvalidPackError, NotPlayableError
from creatorpack.play import saves
from creatorpack.play.model import REVEAL_KINDS, SAVE_FORMAT, Requirement, SessionState, Turn, TurnResult
from creatorpack.play.program import Goal, Program, compile_program
from creatorpack.play.state import check_state, whole_numbers
from creatorpack.play.step import Applied, describe, locked_achievements, reachable_assets, settle, step

__all__ = [
    "REVEAL_KINDS",
    "SAVE_FORMAT",
    "Engine",
    "Requirement",
    "Session",
    "SessionState",
    "Turn",
    "TurnResult",
]


class Engine:
    """A compiled pack, ready to play; one engine serves any number of sessions and threads.

    Nothing it does changes it. Its attributes (``pack``, ``schema``, ``entries``, ``observations``,
    ``program``) are the compiled pack's own, not copies: read them, never change them.
    """

    def __init__(self, pack: Mapping[str, Any]) -> None:
        """Compile a pack that is already known to be valid (see :meth:`from_source`).

        The engine keeps ``pack`` as it is: do not change it afterwards (:meth:`from_source` copies
        a mapping it is given, so that the caller's dict stays the caller's).
        """
        self.program: Program = compile_program(pack)
        self.pack = self.program.pack  # as its version reads it: without the root members it does not define
        self.version: str = self.program.version
        self.schema: Mapping[str, Any] = self.program.schema
        self.pack_id: str = self.program.pack_id
        self.revision: int = self.program.revision
        self.entries: tuple[Mapping[str, Any], ...] = self.program.entries
        self.observations: Mapping[str, Mapping[str, Any]] = self.program.observations

    @classmethod
    def from_source(cls, source: Source) -> Engine:
        """Validate ``source`` and compile it; raise if it is invalid or cannot be played."""
        report = validate(source)
        report.raise_for_errors()
        if report.document is None:  # pragma: no cover - validate always returns the document
            raise InvalidPackError(report)
        if isinstance(source, Mapping):  # a parsed source is the engine's alone; a caller's dict is not
            return cls(copy_json(report.document))
        return cls(report.document)

    # Compiled parts, for tests and benchmarks that look inside.
    @property
    def _conditions(self) -> tuple[Any, ...]:
        return self.program.conditions

    @property
    def _achievements(self) -> tuple[Goal, ...]:
        return self.program.achievements

    @property
    def _endings(self) -> tuple[Goal, ...]:
        return self.program.endings

    @property
    def _assets(self) -> Mapping[str, Mapping[str, Any]]:
        return self.program.assets

    def entry_ids(self) -> list[str]:
        """The runtime entries' ids (``id`` or ``entry_id``; ``#<index>`` when they have none)."""
        return self.program.entry_ids()

    def entry_named(self, name: object) -> str | None:
        """The runtime entry ``name`` names, or ``None`` if no entry (or more than one) has that name.

        A runtime entry is named by its own id, or by the id of the pack entry paired with it (the
        one with the same id, else the one at the same position), which readers see.
        """
        if not isinstance(name, str):
            return None
        ids = self.entry_ids()
        if name in ids:
            return name
        paired = [own for own in ids if name in self.program.scopes.get(own, ())]
        return paired[0] if len(paired) == 1 else None

    def start(self, entry: str | None = None) -> tuple[SessionState, TurnResult]:
        """Begin a session at ``entry`` (default: the first runtime entry).

        ``entry`` is a runtime entry's id, or the id of the pack entry paired with it (the one with
        the same id, else the one at the same position), which readers see.

        The initial state must fit the state schema. What holds at the start is revealed or
        unlocked at once; the result describes turn 0.
        """
        ids = self.entry_ids()
        if entry is not None and not isinstance(entry, str):
            raise NotPlayableError(f"an entry is named by its id, a string, not {a_python_type(entry)} ({entry!r})")
        if entry is None:
            index = 0
        elif (named := self.entry_named(entry)) is not None:
            index = ids.index(named)
        else:
            names = [name for own in ids for name in sorted(self.program.scopes.get(own, {own}))]
            guess = suggest.nearest(entry, names)
            hint = f" (did you mean {guess!r}?)" if guess else ""
            raise NotPlayableError(f"no runtime entry {entry!r}{hint}; the entries are {', '.join(ids)}")
        initial = copy_json(self.entries[index].get("initial_state", {}))  # the pack's stays untouched
        initial = whole_numbers(self.schema, initial)
        problems = tuple((p.pointer, p.message) for p in check_state(self.schema, initial))
        if problems:
            raise NotPlayableError(
                f"the initial state of entry {ids[index]!r} does not fit the state schema "
                f"(at /runtime/entries/{index}/initial_state)",
                problems,
            )
        program = self.program.fitted(initial)  # typed condition code when the state holds the members it reads
        values = program.values(initial, {}, make=False)
        blank = SessionState(
            self.pack_id, self.revision, ids[index], 0, initial, {}, frozenset(), {}, (), (), None, values
        )
        after, new_completed = settle(program, blank, 0, initial, {}, values)
        nothing = Applied(initial, (), (), (), frozenset())
        return after, describe(self.program, blank, after, nothing, new_completed, None)

    def step(self, session: SessionState, turn: Turn | Mapping[str, Any]) -> tuple[SessionState, TurnResult]:
        """Play one turn (a :class:`Turn` or its JSON form); :class:`TurnError` (changing nothing) for bad input.

        Any session is played exactly: one whose state holds the members every entry starts with,
        each of its schema type, with condition code that relies on that, any other (built by hand,
        loaded from an old save, its state changed) with code that tests each value it reads
        (:meth:`~creatorpack.play.program.Program.fitted`, checked on each call, a few microseconds).
        """
        session, turn = _session(session), _turn(turn)
        program = self.program.fitted(session.state)
        after, applied, new_completed, illustration = step(program, session, turn)
        return after, describe(self.program, session, after, applied, new_completed, illustration)

    def advance(self, session: SessionState, turn: Turn) -> tuple[SessionState, tuple[str, ...]]:
        """Play one turn without describing it: the new state and the rules that were active.

        The same semantics as :meth:`step`, for searches that play many turns (``creatorpack lint``),
        and the same program: typed condition code for a state that fits it, so a search's turns
        generate and call the functions a session's do (the generic ones, generated again for the
        same conditions, made the runtime benchmark pack's lint about 13% slower).
        """
        after, applied, _, _ = step(self.program.fitted(session.state), session, turn)
        return after, applied.active

    def describe(self, session: SessionState) -> TurnResult:
        """What ``session`` shows now, as a turn that did nothing (no rule active, nothing new).

        For a session just loaded or moved to another revision, whose last turn was played elsewhere.
        """
        session = _session(session)
        nothing = Applied(session.state, (), (), (), frozenset())
        return describe(self.program, session, session, nothing, (), None)

    def reachable_assets(self, session: SessionState) -> tuple[str, ...]:
        """The assets the reader of ``session`` may reach: revealed ones, a ``reward_only`` one after its reward."""
        return reachable_assets(self.program, session)

    def locked_achievements(self, session: SessionState) -> tuple[str, ...]:
        """Achievements the reader may see as still locked: visible ones only, never hidden ones."""
        return locked_achievements(self.program, session)

    def load(self, saved: Mapping[str, Any]) -> SessionState:
        """Restore a session saved with :meth:`SessionState.to_json`.

        Into another revision of the same pack, the saved state is checked against this
        revision's state schema; what no longer fits is reported in the error.
        """
        return saves.load(self.program, saved)


def _session(session: object) -> SessionState:
    """``session`` if it is a :class:`SessionState`; else a ``TypeError`` that names what was given."""
    if isinstance(session, SessionState):
        return session
    hint = ": Engine.start returns (state, result), pass the state" if isinstance(session, tuple) else ""
    raise TypeError(f"expected a SessionState, not {a_python_type(session)}{hint}")


def _turn(turn: object) -> Turn:
    """``turn`` as a :class:`Turn`: one, or its JSON form (a mapping), as :meth:`Session.turn` takes it."""
    if isinstance(turn, Turn):
        return turn
    if isinstance(turn, Mapping):
        return Turn.from_json(turn)
    raise TypeError(f"expected a Turn or its JSON form (a mapping), not {a_python_type(turn)}")


class Session:
    """A playable session: an :class:`Engine` plus the current :class:`SessionState`."""

    def __init__(self, engine: Engine, state: SessionState, last: TurnResult | None = None) -> None:
        self.engine = engine
        self.state = state
        self.last = last
        self._lock = threading.Lock()

    @classmethod
    def start(cls, pack: Engine | Source, entry: str | None = None) -> Session:
        """Start a session on a pack (validated first unless an :class:`Engine` is given)."""
        engine = pack if isinstance(pack, Engine) else Engine.from_source(pack)
        state, result = engine.start(entry)
        return cls(engine, state, result)

    def turn(
        self,
        observations: Mapping[str, bool | str] | Turn | None = None,
        illustration_matches: Sequence[str] | None = (),
    ) -> TurnResult:
        """Play one turn (the answers and matched illustration rules, or a :class:`Turn`) and return what it did.

        Input that does not fit the pack raises :class:`~creatorpack.errors.TurnError` and changes
        nothing. Turns on one session are played one at a time, whichever thread calls.
        """
        if isinstance(observations, Turn):
            if illustration_matches:
                raise TypeError("a Turn carries its own illustration_matches: give them in the Turn, not beside it")
            turn = observations
        else:
            answers: Any = {} if observations is None else observations
            matches: Any = () if illustration_matches is None else illustration_matches
            turn = Turn(
                dict(answers) if isinstance(answers, Mapping) else answers,
                tuple(matches) if isinstance(matches, list | tuple) else matches,
            )
        with self._lock:
            self.state, self.last = self.engine.step(self.state, turn)
            return self.last

    @property
    def over(self) -> bool:
        """Whether the session reached an ending."""
        return self.state.ending is not None

    def save(self) -> dict[str, Any]:
        """The session as plain JSON."""
        return self.state.to_json(self.engine.schema)

    @classmethod
    def load(cls, pack: Engine | Source, saved: Mapping[str, Any]) -> Session:
        """Restore a saved session on ``pack`` (possibly a newer revision)."""
        engine = pack if isinstance(pack, Engine) else Engine.from_source(pack)
        return cls(engine, engine.load(saved))
