"""The domain (packs, tokens) against the in-memory fakes of every port: no database, no HTTP."""

from __future__ import annotations

import hashlib
import json
import time
from datetime import timedelta

import pytest

from creatorpack import InvalidPackError
from creatorpack.service.auth import Auth, hash_token
from creatorpack.service.errors import (
    ConflictError,
    ForbiddenError,
    MissingPackIdError,
    NotFoundError,
    PackIdTakenError,
    UnauthorizedError,
    UnreadablePackError,
)
from creatorpack.service.memory import FixedClock, MemoryBlobStore, MemoryPackStore, MemoryTokenStore
from creatorpack.service.packs import Packs
from creatorpack.service.ports import AddOutcome, NewRevision
from tests.conftest import example
from tests.service.conftest import pack_bytes


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def blobs(clock: FixedClock) -> MemoryBlobStore:
    return MemoryBlobStore(clock)


@pytest.fixture
def store() -> MemoryPackStore:
    return MemoryPackStore()


@pytest.fixture
def packs(store: MemoryPackStore, blobs: MemoryBlobStore, clock: FixedClock) -> Packs:
    return Packs(store, blobs, clock)


def test_submit_stores_bytes_and_row(packs: Packs, blobs: MemoryBlobStore) -> None:
    body = pack_bytes()
    done = packs.submit("alice", body)
    assert done.created
    assert done.revision.sha256 == hashlib.sha256(body).hexdigest()
    assert blobs.get(done.revision.sha256) == body
    assert packs.revision("alice", "moon.garden", 1) == (done.revision, body)


def test_resubmitting_the_same_bytes_is_not_a_new_revision(packs: Packs) -> None:
    first = packs.submit("alice", pack_bytes())
    again = packs.submit("alice", pack_bytes())
    assert not again.created
    assert again.revision == first.revision


def test_other_bytes_for_a_revision_conflict(packs: Packs) -> None:
    packs.submit("alice", pack_bytes())
    with pytest.raises(ConflictError) as caught:
        packs.submit("alice", pack_bytes(title="Changed"))
    assert caught.value.reason == "different"


def test_not_above_latest_conflicts(packs: Packs) -> None:
    packs.submit("alice", pack_bytes(revision=5))
    with pytest.raises(ConflictError) as caught:
        packs.submit("alice", pack_bytes(revision=4))
    assert caught.value.reason == "not-above-latest"
    assert caught.value.details == {"latest_revision": 5}


def test_another_account_cannot_see_or_touch_a_pack(packs: Packs) -> None:
    packs.submit("alice", pack_bytes())
    with pytest.raises(PackIdTakenError):
        packs.submit("bob", pack_bytes(revision=2))
    with pytest.raises(NotFoundError):
        packs.pack("bob", "moon.garden")
    with pytest.raises(NotFoundError):
        packs.revision("bob", "moon.garden", 1)
    with pytest.raises(NotFoundError):
        packs.delete("bob", "moon.garden", 1)


def test_refused_and_repeated_uploads_put_no_blob(
    packs: Packs, blobs: MemoryBlobStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ownership and the revision number are checked before the bytes go to the blob store."""
    packs.submit("alice", pack_bytes(revision=1))
    packs.submit("alice", pack_bytes(revision=2))
    packs.submit("alice", pack_bytes(revision=5))
    packs.delete("alice", "moon.garden", 2)
    puts: list[bytes] = []

    def counting_put(data: bytes) -> str:
        puts.append(data)
        return hashlib.sha256(data).hexdigest()

    monkeypatch.setattr(blobs, "put", counting_put)
    for body, reason in (
        (pack_bytes(revision=1, title="Other"), "different"),
        (pack_bytes(revision=2), "deleted"),
        (pack_bytes(revision=3), "not-above-latest"),
    ):
        with pytest.raises(ConflictError) as caught:
            packs.submit("alice", body)
        assert (caught.value.reason, caught.value.details) == (reason, {"latest_revision": 5})
    with pytest.raises(PackIdTakenError):
        packs.submit("bob", pack_bytes(revision=6))
    again = packs.submit("alice", pack_bytes(revision=1))
    assert (again.created, again.revision.revision) == (False, 1)
    assert puts == []
    assert packs.submit("alice", pack_bytes(revision=6)).created
    assert len(puts) == 1


def test_invalid_unreadable_and_0_2_packs_are_refused(packs: Packs, blobs: MemoryBlobStore) -> None:
    doc = json.loads(pack_bytes())
    doc["manifest"]["revision"] = 0
    with pytest.raises(InvalidPackError):
        packs.submit("alice", json.dumps(doc).encode())
    with pytest.raises(UnreadablePackError) as caught:
        packs.submit("alice", b'{"a": 1, "a": 1}')
    assert caught.value.code == "duplicate-key"
    with pytest.raises(MissingPackIdError):
        packs.submit("alice", json.dumps(example("0.2", "minimal")).encode())
    assert list(blobs.list()) == []  # nothing reaches the blob store before the pack is checked


def test_delete_keeps_the_number_and_gc_sweeps_the_bytes(
    packs: Packs, blobs: MemoryBlobStore, clock: FixedClock
) -> None:
    done = packs.submit("alice", pack_bytes())
    packs.delete("alice", "moon.garden", 1)
    with pytest.raises(NotFoundError):
        packs.revision("alice", "moon.garden", 1)
    with pytest.raises(ConflictError):
        packs.submit("alice", pack_bytes())
    assert packs.collect_garbage(timedelta(hours=1)) == []  # too young: it may be an upload in flight
    clock.advance(7200)
    assert packs.collect_garbage(timedelta(hours=1)) == [done.revision.sha256]
    assert blobs.get(done.revision.sha256) is None


def test_a_crash_between_blob_and_rows_leaves_only_an_orphan(
    store: MemoryPackStore, blobs: MemoryBlobStore, clock: FixedClock
) -> None:
    class Crashing(MemoryPackStore):
        def add_revision(self, account: str, new: NewRevision) -> AddOutcome:
            del account, new
            raise KeyboardInterrupt  # the process dies between the blob write and the transaction

    crashing = Packs(Crashing(), blobs, clock)
    with pytest.raises(KeyboardInterrupt):
        crashing.submit("alice", pack_bytes())
    assert len(list(blobs.list())) == 1
    recovered = Packs(store, blobs, clock)
    with pytest.raises(NotFoundError):
        recovered.pack("alice", "moon.garden")
    clock.advance(7200)
    assert len(recovered.collect_garbage()) == 1
    assert list(blobs.list()) == []


def test_validate_and_lint_reports(packs: Packs) -> None:
    assert packs.validate(pack_bytes()) == {"valid": True, "version": "0.5", "errors": []}
    linted = packs.lint(pack_bytes())
    assert linted["version"] == "0.5"
    assert all(e["severity"] in ("error", "warning") for e in linted["errors"])
    with pytest.raises(UnreadablePackError) as caught:
        packs.lint(b"[]")
    assert caught.value.code == "not-an-object"


def test_tokens_are_random_hashed_and_scoped(clock: FixedClock) -> None:
    store = MemoryTokenStore()
    auth = Auth(store, clock)
    token, record = auth.issue("alice", "creator")
    other, _ = auth.issue("alice", "creator")
    assert token != other
    assert len(token) >= 4 + 43  # 32 random bytes, URL-safe base64
    assert store.token_by_hash(hash_token(token)) == record
    assert token not in repr(store.__dict__)
    assert auth.authenticate(f"Bearer {token}") == record
    assert Auth.require(record, "creator") == record
    with pytest.raises(ForbiddenError):
        Auth.require(record, "host")
    admin_token, admin = auth.issue("root", "admin")
    assert Auth.require(admin, "host") == admin
    assert auth.revoke(record.id)
    assert not auth.revoke(record.id)
    for header in (None, "", f"Bearer {token}", "Bearer", "Basic x", "Bearer cpt_unknown", "Bearer " + "x" * 10_000):
        with pytest.raises(UnauthorizedError):
            auth.authenticate(header)
    assert auth.authenticate(f"bearer {admin_token}") == admin


@pytest.mark.parametrize(("account", "scope"), [("", "creator"), ("a" * 81, "creator"), ("alice", "owner")])
def test_bad_accounts_and_scopes_are_refused(clock: FixedClock, account: str, scope: str) -> None:
    with pytest.raises(ValueError, match=r"scope|account"):
        Auth(MemoryTokenStore(), clock).issue(account, scope)


def test_a_server_process_trusts_a_checked_token_for_cache_seconds(clock: FixedClock) -> None:
    store = MemoryTokenStore()
    here, elsewhere = Auth(store, clock, cache_seconds=0.2), Auth(store, clock)
    token, record = here.issue("alice", "creator")
    header = f"Bearer {token}"
    assert here.cached(header) is None
    assert here.authenticate(header) == record
    assert here.cached(header) == record
    assert elsewhere.revoke(record.id)  # another process revokes it
    assert here.cached(header) == record  # this one trusts its check a little longer
    time.sleep(0.25)
    assert here.cached(header) is None
    with pytest.raises(UnauthorizedError):
        here.authenticate(header)


def test_revoking_in_this_process_forgets_the_token_at_once(clock: FixedClock) -> None:
    auth = Auth(MemoryTokenStore(), clock, cache_seconds=60)
    token, record = auth.issue("alice", "creator")
    auth.authenticate(f"Bearer {token}")
    auth.revoke(record.id)
    assert auth.cached(f"Bearer {token}") is None
