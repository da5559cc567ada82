"""Narrated turns: the operator's model narrates a session's next turn, and its answers play it.

:meth:`Narration.begin` checks the turn as a turn is checked (its number, the session's end, who may
play it) and either replays a turn already narrated with the same input, without asking the model
again, or returns a :class:`NarrationJob`. The job runs the narrator (:class:`creatorpack.narrate.Narrator`:
prompt, stream, spoiler guard, structured answers) and then plays the turn through
:meth:`~creatorpack.service.sessions.Sessions.turn`, which stores the narration with it. The session
does not change when the model fails.

What a reader may see of it is the narration the guard passed and the reader view; the host and the
owner also get the answers, the guard's report and the prompt's report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from creatorpack.narrate import Exchange, ModelClient, NarrationError, Narrator
from creatorpack.play import Session
from creatorpack.service.errors import NarratorUnavailableError
from creatorpack.service.ports import TokenRecord
from creatorpack.service.sessions import (
    Narrated,
    NarrationReplay,
    NarrationStart,
    NarratorTurn,
    Sessions,
    TurnView,
)

__all__ = ["Narration", "NarrationJob", "NarrationOutcome"]


@dataclass(frozen=True, slots=True)
class NarrationOutcome:
    """A narrated turn as the caller may see it: the narration, the turn's view, and (host only) the reports."""

    narration: str
    view: TurnView
    host: Mapping[str, Any] | None  # None for a reader

    def to_json(self) -> dict[str, Any]:
        """The ``turn`` event's data."""
        found: dict[str, Any] = {"narration": self.narration, "turn": self.view.to_json()}
        if self.host is not None:
            found["narrator_report"] = dict(self.host)
        return found


class NarrationJob:
    """One narrated turn about to be played: run it (it calls the model) to get its outcome."""

    def __init__(
        self,
        sessions: Sessions,
        token: TokenRecord,
        session_id: str,
        number: int,
        reader_input: str,
        start: NarrationStart,
        model: ModelClient,
        context_tokens: int,
    ) -> None:
        self._sessions = sessions
        self._token = token
        self._session_id = session_id
        self._number = number
        self._input = reader_input
        self._start = start
        self._model = model
        self._context_tokens = context_tokens

    def run(self, on_text: Callable[[str], None] | None = None) -> NarrationOutcome:
        """Narrate (``on_text`` gets the guarded stream) and play the turn; the session changes only at the end."""
        start = self._start
        session = Session(start.engine, start.state, start.engine.describe(start.state))
        story = [Exchange(text, narration) for text, narration in start.story]
        narrator = Narrator(session, self._model, context_tokens=self._context_tokens, story=story)
        try:
            done = narrator.narrate(self._input, on_text=on_text)
        except NarrationError as exc:
            raise NarratorUnavailableError(str(exc)) from None
        host = {
            "answers": done.to_json()["answers"],
            "guard": done.guard.to_json(),
            "prompt": done.prompt.to_json(),
        }
        narrated = Narrated(self._input, done.narration, host)
        view = self._sessions.turn(self._token, self._session_id, self._number, done.turn, narrated=narrated)
        return NarrationOutcome(done.narration, view, host if start.who == "narrator" else None)


class Narration:
    """Narrated turns over the session domain and the operator's model (None: not configured, 503)."""

    def __init__(self, sessions: Sessions, model: ModelClient | None, *, context_tokens: int = 4096) -> None:
        self._sessions = sessions
        self._model = model
        self._context_tokens = context_tokens

    def close(self) -> None:
        """Release the model client's connections."""
        close = getattr(self._model, "close", None)
        if callable(close):
            close()

    @property
    def available(self) -> bool:
        """Whether a model is configured."""
        return self._model is not None

    def begin(
        self, token: TokenRecord, session_id: str, number: int, reader_input: str
    ) -> NarrationOutcome | NarrationJob:
        """The stored outcome of a turn narrated with this input already, or the job that narrates it."""
        start = self._sessions.narration_start(token, session_id, number, reader_input)
        if isinstance(start, NarrationReplay):
            host = start.host if isinstance(start.view, NarratorTurn) else None
            return NarrationOutcome(start.narration, start.view, host)
        if self._model is None:
            raise NarratorUnavailableError("no narrator is configured on this service (CREATORPACK_MODEL_URL)")
        return NarrationJob(
            self._sessions, token, session_id, number, reader_input, start, self._model, self._context_tokens
        )
