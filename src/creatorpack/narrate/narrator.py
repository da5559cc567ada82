"""The host loop: narrate a turn with a model, guard it, judge the observations, then play the turn.

For each turn :class:`Narrator` builds the prompt from the session's current narrator view
(:mod:`~creatorpack.narrate.prompt`), streams the model's narration, runs the spoiler guard on it
(one regeneration with a correction, then redaction), asks the model for the structured answers
(:mod:`~creatorpack.narrate.answers`; one retry with the validation error), and only then plays the
turn. Any failure before that leaves the session as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from creatorpack.errors import TurnError
from creatorpack.narrate.answers import answer_schema
from creatorpack.narrate.client import ChatMessage, ModelClient
from creatorpack.narrate.errors import ModelAnswerError
from creatorpack.narrate.guard import Hidden, SpoilerGuard
from creatorpack.narrate.prompt import Exchange, PromptReport, build_prompt
from creatorpack.play import ReaderView, Session, Turn, TurnResult

__all__ = ["GuardReport", "NarratedTurn", "Narrator"]

_JUDGE = (
    "You narrated the passage below. Answer each question about what happened in it, exactly as the schema "
    "asks: true or false, or one of the listed keys. Answer from the passage alone."
)


@dataclass(frozen=True, slots=True)
class GuardReport:
    """What the spoiler guard found: in the first narration, and what was redacted after the regeneration."""

    found: tuple[Hidden, ...] = ()
    regenerated: bool = False
    redacted: tuple[Hidden, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Plain JSON, for hosts and owners only (it names what the reader must not see)."""
        return {
            "found": [{"kind": h.kind, "id": h.id} for h in self.found],
            "regenerated": self.regenerated,
            "redacted": [{"kind": h.kind, "id": h.id} for h in self.redacted],
        }


@dataclass(frozen=True, slots=True)
class NarratedTurn:
    """One narrated turn: what the reader typed and reads, the answers applied, and the turn's result."""

    number: int
    input: str
    narration: str
    turn: Turn
    result: TurnResult
    prompt: PromptReport
    guard: GuardReport = field(default_factory=GuardReport)
    streamed: str = ""  # what was handed on while it streamed (a prefix of the first narration)

    def reader_view(self) -> ReaderView:
        """What the reader may see of the turn's effects."""
        return self.result.reader_view()

    def to_json(self) -> dict[str, Any]:
        """The CLI's ``--format json`` line: exactly ``turn``, ``input``, ``narration``, ``answers``, ``reader``."""
        return {
            "turn": self.number,
            "input": self.input,
            "narration": self.narration,
            "answers": {
                "observations": dict(self.turn.observations),
                "illustration_matches": list(self.turn.illustration_matches),
            },
            "reader": self.reader_view().to_json(),
        }


class Narrator:
    """Plays a :class:`~creatorpack.play.Session` with a model as its narrator."""

    def __init__(
        self,
        session: Session,
        model: ModelClient,
        *,
        context_tokens: int = 4096,
        answer_tokens: int = 600,
        story: list[Exchange] | None = None,
    ) -> None:
        self.session = session
        self.model = model
        self.context_tokens = context_tokens
        self.answer_tokens = answer_tokens
        self.story: list[Exchange] = list(story or [])

    @property
    def pack(self) -> Mapping[str, Any]:
        """The pack as its version reads it."""
        return self.session.engine.pack

    def current(self) -> TurnResult:
        """The session's current view (its last turn, or its start)."""
        last = self.session.last
        return last if last is not None else self.session.engine.describe(self.session.state)

    def opening(self) -> str:
        """The entry's title and the content that holds at the start, as plain text for the reader."""
        result = self.current()
        content = {c.get("id"): c.get("text") for c in self.pack.get("content", []) if isinstance(c, Mapping)}
        texts = [str(content[c]) for c in result.content if isinstance(content.get(c), str)]
        entry = next(
            (
                e
                for e in self.pack.get("entries", [])
                if isinstance(e, Mapping) and e.get("id") == self.session.state.entry
            ),
            None,
        )
        title = entry.get("title") if isinstance(entry, Mapping) else None
        return "\n\n".join([*([str(title)] if isinstance(title, str) else []), *texts])

    def narrate(self, reader_input: str, *, on_text: Callable[[str], None] | None = None) -> NarratedTurn:
        """Narrate and play one turn; the session changes only if every step succeeded.

        An empty narration is asked for once more (then :class:`ModelAnswerError`).

        ``on_text`` receives the narration as it streams, but only text the spoiler guard has
        passed: the stream is held back by the length of the longest hidden string, so no part of a
        mention is ever handed on. When the guard finds one, streaming stops there; the regenerated
        (or redacted) narration is :attr:`NarratedTurn.narration`, and :attr:`NarratedTurn.streamed`
        is what ``on_text`` had received.
        """
        before = self.current()
        prompt = build_prompt(
            self.pack,
            before,
            self.story,
            reader_input,
            context_tokens=self.context_tokens,
            answer_tokens=self.answer_tokens,
        )
        guard = SpoilerGuard.for_turn(self.pack, before)
        narration, streamed = self._guarded_stream(list(prompt.messages), guard, on_text)
        if not narration.strip():  # a small model may stop at once: ask once more, then give up cleanly
            nudge = [*prompt.messages, ChatMessage("user", "Tell what happens next, in a few sentences of prose.")]
            narration, streamed = self._guarded_stream(nudge, guard, on_text)
            if not narration.strip():
                raise ModelAnswerError("the model narrated nothing, twice")
        found = tuple(guard.find(narration))
        report = GuardReport()
        if found:
            correction = ChatMessage(
                "user",
                "Rewrite your last passage without naming or quoting these, which the reader has not discovered: "
                + "; ".join(repr(h.text) for h in found),
            )
            retry = [*prompt.messages, ChatMessage("assistant", narration), correction]
            narration = "".join(self.model.stream(retry))
            still = tuple(guard.find(narration))
            narration = guard.redact(narration) if still else narration
            report = GuardReport(found, regenerated=True, redacted=still)
        turn = self._answers(narration)
        try:
            result = self.session.turn(turn)
        except TurnError as exc:  # pragma: no cover - the schema names only what the pack has
            raise ModelAnswerError(f"the model's answers do not fit the pack: {exc}") from None
        self.story.append(Exchange(reader_input, narration))
        return NarratedTurn(result.turn, reader_input, narration, turn, result, prompt.report, report, streamed)

    def _guarded_stream(
        self, messages: list[ChatMessage], guard: SpoilerGuard, on_text: Callable[[str], None] | None
    ) -> tuple[str, str]:
        """The whole narration, and the part of it handed to ``on_text`` (none of a hidden string)."""
        hold = max((len(h.text) for h in guard.hidden), default=0) + 8
        text, sent, stopped = "", 0, on_text is None
        for delta in self.model.stream(messages):
            text += delta
            if stopped:
                continue
            if guard.find(text):
                stopped = True
                continue
            safe = max(sent, len(text) - hold)
            if safe > sent and on_text is not None:
                on_text(text[sent:safe])
                sent = safe
        if not stopped and on_text is not None and not guard.find(text) and len(text) > sent:
            on_text(text[sent:])
            sent = len(text)
        return text, text[:sent]

    def _answers(self, narration: str) -> Turn:
        schema = answer_schema(self.session.engine, self.session.state)
        messages = [ChatMessage("system", _JUDGE), ChatMessage("user", narration)]
        text = self.model.complete(messages, response_format=schema.response_format)
        try:
            return schema.read(text)
        except ValueError as first:
            retry = [
                *messages,
                ChatMessage("assistant", text),
                ChatMessage("user", f"That answer is invalid: {first}."),
            ]
            again = self.model.complete(retry, response_format=schema.response_format)
            try:
                return schema.read(again)
            except ValueError as second:
                raise ModelAnswerError(f"the model's answers did not fit, twice: {second}") from None
