"""Saved sessions: plain JSON (:meth:`SessionState.to_json`) loaded back into a compiled pack.

A save names its pack and revision. Loading it into another revision of the same pack checks the
saved state against that revision's state schema and reports, with pointers, what no longer fits
(``creatorpack.diff`` plans a migration for what does not).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from creatorpack.errors import SessionLoadError
from creatorpack.play.model import REVEAL_KINDS, SAVE_FORMAT, SessionState
from creatorpack.play.program import Program
from creatorpack.play.state import check_state

__all__ = ["load"]


def load(program: Program, saved: Mapping[str, Any]) -> SessionState:
    """Restore a session saved with :meth:`SessionState.to_json`; raise :class:`SessionLoadError` if it cannot."""
    if not isinstance(saved, Mapping) or saved.get("format") != SAVE_FORMAT:
        raise SessionLoadError(f"not a saved session (expected 'format': {SAVE_FORMAT!r})")
    if saved.get("pack_id") != program.pack_id:
        raise SessionLoadError(f"the session was saved from pack {saved.get('pack_id')!r}, not {program.pack_id!r}")
    try:
        state = saved["state"]
        entry = saved["entry"]
        problems = tuple((p.pointer, p.message) for p in check_state(program.schema, state))
        if problems:
            raise SessionLoadError(
                f"the saved state (revision {saved.get('revision')}) no longer fits revision {program.revision}",
                problems,
            )
        if entry not in program.entry_ids():
            raise SessionLoadError(f"the saved entry {entry!r} is not in revision {program.revision}")
        answers = {k: v for k, v in saved["answers"].items() if k in program.observations}
        values = tuple(c(state, answers) for c in program.conditions)
        revealed = {kind: frozenset(saved["revealed"].get(kind, ())) for kind in REVEAL_KINDS}
        return SessionState(
            program.pack_id,
            program.revision,
            entry,
            int(saved["turn"]),
            state,
            answers,
            frozenset(saved["completed_rules"]),
            revealed,
            tuple(saved["unlocked_achievements"]),
            tuple(saved["badges"]),
            saved.get("ending"),
            values,
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise SessionLoadError(f"the saved session is incomplete or malformed: {exc}") from None
