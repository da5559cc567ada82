"""Saved sessions: plain JSON (:meth:`SessionState.to_json`) loaded back into a compiled pack.

A save names its pack and revision. Loading it into another revision of the same pack checks the
saved state against that revision's state schema and reports, with pointers, what no longer fits
(``creatorpack.diff`` plans a migration for what does not).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from creatorpack._json import copy_json, json_type, show
from creatorpack.errors import SessionLoadError
from creatorpack.play.model import REVEAL_KINDS, SAVE_FORMAT, SessionState
from creatorpack.play.program import Program
from creatorpack.play.state import check_state, whole_numbers

__all__ = ["check_shape", "load"]

_SHAPES: Final[Mapping[str, type]] = {
    "pack_id": str,
    "revision": int,
    "entry": str,
    "turn": int,
    "state": Mapping,
    "answers": Mapping,
    "completed_rules": list,
    "revealed": Mapping,
    "unlocked_achievements": list,
    "badges": list,
}
_NAMES: Final[Mapping[type, str]] = {str: "a string", int: "an integer", Mapping: "an object", list: "an array"}
_MAX_TURN: Final = 2**53 - 1
_ID_LISTS: Final = ("completed_rules", "unlocked_achievements", "badges")


def check_shape(saved: Any) -> None:
    """Raise :class:`SessionLoadError` unless ``saved`` has a save's shape, down to the type of each id.

    A save is read from a file or a request, so anything may be in it: what the runtime would trip
    over (an id that is a number, an array where an id list belongs) is refused here, by name.
    """
    if not isinstance(saved, Mapping) or saved.get("format") != SAVE_FORMAT:
        raise SessionLoadError(f"not a saved session (expected 'format': {SAVE_FORMAT!r})")
    for key, kind in _SHAPES.items():
        if key not in saved:
            raise _malformed(f"{key!r} is missing")
        if not isinstance(saved[key], kind) or isinstance(saved[key], bool):
            raise _malformed(f"{key!r} must be {_NAMES[kind]}, not {_what(saved[key])}")
    for key in _ID_LISTS:
        if not all(isinstance(ident, str) for ident in saved[key]):
            raise _malformed(f"{key!r} must be an array of ids (strings)")
    if not all(isinstance(ids, list) for ids in saved["revealed"].values()):
        raise _malformed("'revealed' must map kinds to arrays")
    if not all(isinstance(ident, str) for ids in saved["revealed"].values() for ident in ids):
        raise _malformed("'revealed' must map kinds to arrays of ids (strings)")
    if "ending" not in saved:
        raise _malformed("'ending' is missing (null while the session goes on)")
    if saved["ending"] is not None and not isinstance(saved["ending"], str):
        raise _malformed("'ending' must be a string or null")
    if not 0 <= saved["turn"] <= _MAX_TURN:
        raise _malformed(f"'turn' must be from 0 to {_MAX_TURN:,} (2^53 - 1, JSON's largest exact integer)")


def _what(value: Any) -> str:
    """A wrong value as JSON names it: ``null``, ``an array``, ``number 1.5``, ``string 'x'``."""
    if value is None:
        return "null"
    if isinstance(value, Mapping | list):
        return "an object" if isinstance(value, Mapping) else "an array"
    return f"{json_type(value)} {show(value, 20)}"


def _malformed(what: str) -> SessionLoadError:
    return SessionLoadError(f"the saved session is incomplete or malformed: {what}")


def load(program: Program, saved: Mapping[str, Any]) -> SessionState:
    """Restore a session saved with :meth:`SessionState.to_json`; raise :class:`SessionLoadError` if it cannot.

    What this revision cannot hold is refused (a state that does not fit, an entry or an ending it
    does not have) or, where the session can go on without it, dropped as a migration drops it:
    answers a turn could not give, achievements and badges it does not have, reveals of items
    scoped to other entries.
    """
    check_shape(saved)
    if saved.get("pack_id") != program.pack_id:
        raise SessionLoadError(f"the session was saved from pack {saved.get('pack_id')!r}, not {program.pack_id!r}")
    try:
        state = whole_numbers(program.schema, copy_json(saved["state"]))  # the caller's save stays the caller's
        entry = saved["entry"]
        problems = tuple((p.pointer, p.message) for p in check_state(program.schema, state))
        if problems:
            raise SessionLoadError(
                f"the saved state (revision {saved.get('revision')}) no longer fits revision {program.revision}",
                problems,
            )
        if entry not in program.entry_ids():
            raise SessionLoadError(f"the saved entry {entry!r} is not in revision {program.revision}")
        ending = saved["ending"]
        if ending is not None and ending not in {goal.id for goal in program.endings}:
            raise SessionLoadError(f"the saved ending {ending!r} is not an ending of revision {program.revision}")
        answers = {k: v for k, v in saved["answers"].items() if _answers(program.observations.get(k), v)}
        achievements = {goal.id for goal in program.achievements}
        values = program.values(state, answers)
        revealed = _revealed(program, saved["revealed"], entry, values)
        return SessionState(
            program.pack_id,
            program.revision,
            entry,
            int(saved["turn"]),
            state,
            answers,
            frozenset(saved["completed_rules"]),
            revealed,
            tuple(dict.fromkeys(a for a in saved["unlocked_achievements"] if a in achievements)),
            tuple(dict.fromkeys(b for b in saved["badges"] if b in program.badges)),
            ending,
            values,
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise SessionLoadError(f"the saved session is incomplete or malformed: {exc}") from None


def _answers(observation: Mapping[str, Any] | None, answer: Any) -> bool:
    """Whether a saved ``answer`` is one a turn can give ``observation`` (``None``: not in this revision).

    Others are dropped as a migration drops them: the observation is then unanswered.
    """
    if observation is None:
        return False
    if observation.get("type") == "boolean":
        return isinstance(answer, bool)
    if observation.get("type") == "choice":
        return isinstance(answer, str) and answer in observation.get("choices", {})
    return True


def _revealed(
    program: Program, saved: Mapping[str, Any], entry: str, values: tuple[bool, ...]
) -> dict[str, frozenset[str]]:
    """The saved reveals this revision shows in a session of ``entry``.

    What an item's ``entry_ids`` scope to other entries is dropped (a save of another revision, or
    one written before scopes were read, may hold it). A card's relationships to an actor it has two
    relationships with are read again from their conditions: saves before ``card/actor#2`` held one
    id for both.
    """
    revealed = {
        kind: {ident for ident in saved.get(kind, ()) if program.in_scope(program.scoped.get((kind, ident)), entry)}
        for kind in REVEAL_KINDS
    }
    if program.shared:
        relationships = revealed["relationships"]
        relationships -= {r.ident for r in program.shared}
        relationships |= {r.ident for r in program.shared if values[r.when] and program.in_scope(r.entries, entry)}
    return {kind: frozenset(ids) for kind, ids in revealed.items()}
