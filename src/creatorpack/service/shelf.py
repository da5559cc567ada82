"""The packs an account owns, for its creator dashboard: one read of the store's list of packs.

The JSON API has no such list (a creator names the pack id it uploaded); the dashboard needs one,
and the moderation store already answers it for the admins' list (``owner=``). Only the caller's
own account is ever asked for.
"""

from __future__ import annotations

from typing import Final

from creatorpack.service.ports import ModerationStore, PackSummary

__all__ = ["MAX_SHELF", "Shelf"]

MAX_SHELF: Final = 500
"""Packs listed at most."""


class Shelf:
    """Lists an account's packs over a :class:`~creatorpack.service.ports.ModerationStore`."""

    def __init__(self, store: ModerationStore) -> None:
        self._store = store

    def packs_of(self, account: str, *, limit: int = MAX_SHELF) -> list[PackSummary]:
        """The packs ``account`` owns, by id (at most ``limit``)."""
        return self._store.packs(limit=limit, owner=account)
