"""Move a saved session to another revision of its pack, by the plan of :mod:`creatorpack.diff.compat`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from creatorpack.contract.validation import Source
from creatorpack.diff.compat import MigrationReport, migration_plan
from creatorpack.play.engine import Engine, Session

__all__ = ["load_migrating", "migrate"]


def _document(pack: Engine | Mapping[str, Any]) -> Mapping[str, Any]:
    return pack.pack if isinstance(pack, Engine) else pack


def migrate(
    saved: Mapping[str, Any], old_pack: Engine | Mapping[str, Any] | None, new_pack: Engine | Mapping[str, Any]
) -> dict[str, Any]:
    """The save of ``old_pack`` moved to ``new_pack``'s revision (``revision`` set to the new one).

    Raise :class:`~creatorpack.diff.MigrationError` naming each saved value that no longer fits,
    or :class:`~creatorpack.errors.SessionLoadError` for a save that is not one of ``old_pack``'s.
    ``old_pack`` may be ``None`` when only the save is known (see :func:`migration_plan`).
    """
    old = _document(old_pack) if old_pack is not None else None
    moved, _ = migration_plan(old, _document(new_pack)).apply(saved)
    return moved


def load_migrating(
    pack: Engine | Source, saved: Mapping[str, Any], old_pack: Engine | Mapping[str, Any] | None = None
) -> tuple[Session, MigrationReport]:
    """Load ``saved`` into ``pack`` (validated unless an :class:`Engine`), migrating it first if needed.

    A save of the same revision that fits loads as it is (the report's level is ``as_is``).
    """
    engine = pack if isinstance(pack, Engine) else Engine.from_source(pack)
    old = _document(old_pack) if old_pack is not None else None
    moved, report = migration_plan(old, engine.pack).apply(saved)
    return Session.load(engine, moved), report
