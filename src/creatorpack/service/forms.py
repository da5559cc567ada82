"""The JSON forms the library's other layers make, as the service sends them: typed, for its shapes and its API.

The service answers with some JSON that is not its own: the contract's and lint's reports
(``creatorpack validate``/``lint --format json``), a turn of ``creatorpack play --format json``
and the reader's view of it, and ``creatorpack diff --format json``. Each layer serializes its own
(``to_json``, ``validate_json``, ``lint_json``); these ``TypedDict`` s are the one description of
those forms on the service's side, so the response shapes that carry them
(:mod:`creatorpack.service.sessions`, :class:`~creatorpack.service.packs.Published`) and the
OpenAPI document (pydantic reads a ``TypedDict`` as a JSON object schema) say the same thing.
``tests/service/test_responses.py`` checks that what the layers send fits them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict  # pydantic reads typing.TypedDict only on Python 3.12+

__all__ = [
    "Finding",
    "LintReport",
    "NarratorTurn",
    "PackDiff",
    "ReaderTurn",
    "Report",
    "Violation",
]


class Violation(TypedDict):
    """One violation, as ``creatorpack validate --format json`` prints it."""

    pointer: Annotated[str, Field(description="RFC 6901 JSON Pointer ('' is the whole pack)")]
    code: str
    message: str
    line: int | None
    column: int | None


class Report(TypedDict):
    """The CLI's JSON report for one file, without its path."""

    valid: bool
    version: str | None
    errors: list[Violation]


class Finding(Violation):
    """One lint finding (``creatorpack lint --format json``)."""

    severity: Literal["error", "warning"]


class LintReport(TypedDict):
    """The CLI's JSON lint report for one file, without its path."""

    valid: bool
    version: str | None
    errors: list[Finding]
    note: NotRequired[str]
    """Why the reachability search did not run (``creatorpack.lint.unsearched_note``), when it did not."""


class ReaderTurn(TypedDict):
    """What a reader sees after a turn (``ReaderView.to_json()``): ids only, nothing meant for the narrator."""

    turn: int
    revealed: dict[str, list[str]]
    new_revealed: dict[str, list[str]]
    achievements: list[str]
    new_achievements: list[str]
    locked_achievements: list[str]
    badges: list[str]
    new_badges: list[str]
    ending: str | None
    illustration: str | None
    assets: list[str]


class NarratorTurn(TypedDict):
    """One turn of ``creatorpack play --format json`` (``TurnResult.to_json()``), for hosts and owners."""

    turn: int
    state: dict[str, Any]
    active_rules: list[str]
    completed_rules: list[str]
    rejected_effects: list[dict[str, Any]]
    unlocked_achievements: list[str]
    badges: list[str]
    ending: str | None
    illustration: str | None
    revealed: dict[str, list[str]]
    reachable_assets: list[str]
    new: dict[str, Any]
    narrator: dict[str, Any]


class PackDiff(TypedDict):
    """``creatorpack diff --format json``: the changes by id and the save compatibility verdict."""

    pack_id: str | None
    old_revision: int | None
    new_revision: int | None
    changes: list[dict[str, Any]]
    compatibility: dict[str, Any]
