"""The narrator: play a pack with a language model as its narrator, never showing a reader what is hidden.

Above :mod:`creatorpack.play` (import-linter keeps it so); the CLI's ``creatorpack narrate``, the
service's narration route and the web playtest use it alike. The model sits behind
:class:`ModelClient` (an OpenAI-compatible client, and a scripted fake in :mod:`creatorpack.narrate.fake`).
"""

from __future__ import annotations

from creatorpack.narrate.answers import AnswerSchema, answer_schema
from creatorpack.narrate.client import ChatMessage, ModelClient, ModelSettings, OpenAIClient
from creatorpack.narrate.errors import ModelAnswerError, ModelUnavailableError, NarrationError
from creatorpack.narrate.guard import REDACTED, Hidden, SpoilerGuard
from creatorpack.narrate.narrator import GuardReport, NarratedTurn, Narrator
from creatorpack.narrate.prompt import PREAMBLE, Exchange, Prompt, PromptReport, Section, build_prompt

__all__ = [
    "PREAMBLE",
    "REDACTED",
    "AnswerSchema",
    "ChatMessage",
    "Exchange",
    "GuardReport",
    "Hidden",
    "ModelAnswerError",
    "ModelClient",
    "ModelSettings",
    "ModelUnavailableError",
    "NarratedTurn",
    "NarrationError",
    "Narrator",
    "OpenAIClient",
    "Prompt",
    "PromptReport",
    "Section",
    "SpoilerGuard",
    "answer_schema",
    "build_prompt",
]
