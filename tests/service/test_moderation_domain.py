"""Moderation over the in-memory fakes: the same rules as over SQL, without a database."""

from __future__ import annotations

from dataclasses import replace

import pytest

from creatorpack.service.auth import Auth
from creatorpack.service.errors import ForbiddenError, NotFoundError, UnauthorizedError
from creatorpack.service.memory import (
    FixedClock,
    MemoryBlobStore,
    MemoryModerationStore,
    MemoryPackStore,
    MemoryTokenStore,
)
from creatorpack.service.moderation import Moderation
from creatorpack.service.packs import Packs
from creatorpack.service.ports import Actor, CatalogQuery, TokenRecord
from tests.service.conftest import published_bytes


@pytest.fixture
def world() -> tuple[Moderation, Packs, MemoryPackStore, Auth]:
    """The moderation domain over in-memory stores, with alice's pack published and root an admin."""
    clock = FixedClock()
    store, tokens = MemoryPackStore(), MemoryTokenStore()
    packs = Packs(store, MemoryBlobStore(clock), clock)
    auth = Auth(tokens, clock)
    moderation = Moderation(MemoryModerationStore(store, tokens), tokens, auth, packs, clock)
    auth.issue("alice", "creator")
    packs.submit("alice", published_bytes())
    packs.publish(Actor("alice"), "moon.garden", 1)
    return moderation, packs, store, auth


def _root(moderation: Moderation, auth: Auth) -> TokenRecord:
    _, record = auth.issue("root", "admin")
    moderation.set_role("root", "admin")
    return replace(record, role="admin")  # as the store reads it from now on


def _listed(store: MemoryPackStore) -> list[bytes]:
    return [hit.entry for hit in store.search(CatalogQuery()).hits]


def test_a_takedown_and_a_restore_over_the_fakes(world: tuple[Moderation, Packs, MemoryPackStore, Auth]) -> None:
    moderation, packs, store, auth = world
    root = _root(moderation, auth)
    assert len(_listed(store)) == 1
    summary = moderation.takedown(root, "moon.garden", "rights")
    assert summary.takedown is not None
    assert _listed(store) == []
    with pytest.raises(NotFoundError):
        packs.reader(None, "moon.garden")
    assert packs.reader("alice", "moon.garden").data  # the owner still reads it
    moderation.restore(root, "moon.garden")
    assert len(_listed(store)) == 1
    assert [e.kind for e in moderation.events(root)][-2:] == ["takedown", "restore"]


def test_disabling_an_account_over_the_fakes(world: tuple[Moderation, Packs, MemoryPackStore, Auth]) -> None:
    moderation, _, store, auth = world
    root = _root(moderation, auth)
    token, _ = auth.issue("alice", "creator")
    moderation.disable(root, "alice", "spam")
    with pytest.raises(UnauthorizedError, match="disabled"):
        auth.authenticate(f"Bearer {token}")
    assert _listed(store) == []
    moderation.enable(root, "alice")
    assert auth.authenticate(f"Bearer {token}").account == "alice"
    assert len(_listed(store)) == 1


def test_only_a_platform_admin_moderates_over_the_fakes(world: tuple[Moderation, Packs, MemoryPackStore, Auth]) -> None:
    moderation, _, _, auth = world
    _, own = auth.issue("alice", "admin")
    with pytest.raises(ForbiddenError):
        moderation.takedown(own, "moon.garden", "mine")
