"""Rows whose bytes are gone: a logged, counted 500 ``storage-inconsistent`` on every path, and ``db check``."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from creatorpack.service.settings import Settings
from creatorpack.service.storage import STORAGE_FAULTS, StorageProblem
from tests.service.conftest import JSON, issue, pack_bytes
from tests.service.test_assets import JPEG, MP4, PNG, _put, pack_with_assets, sha

PROBLEM = "urn:creatorpack:problem:storage-inconsistent"


def _blob(settings: Settings, digest: str) -> Path:
    """Where the local blob store keeps ``digest``."""
    return settings.data_dir / "blobs" / digest[:2] / digest[2:4] / digest


def _upload(client: TestClient, body: bytes, headers: dict[str, str]) -> str:
    response = client.post("/v1/packs", content=body, headers={**headers, **JSON})
    assert response.status_code == 201, response.text
    return str(response.json()["sha256"])


def _lost(response: object, caplog: pytest.LogCaptureFixture, before: int) -> None:
    """A 500 storage-inconsistent, logged once with the count, which went up by one."""
    assert response.status_code == 500, response.text  # type: ignore[attr-defined]
    assert response.headers["content-type"] == "application/problem+json"  # type: ignore[attr-defined]
    if response.request.method != "HEAD":  # type: ignore[attr-defined]
        assert response.json()["type"] == PROBLEM  # type: ignore[attr-defined]
    assert STORAGE_FAULTS.count == before + 1
    lines = [r.getMessage() for r in caplog.records if "storage inconsistent" in r.getMessage()]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"storage inconsistent ({before + 1} in this process)")
    assert all(r.levelno == logging.ERROR for r in caplog.records if "storage inconsistent" in r.getMessage())
    caplog.clear()


def test_a_live_revision_without_its_bytes_is_a_logged_500_everywhere(
    client: TestClient, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    alice = issue(client)
    digest = _upload(client, pack_with_assets(), alice)
    _blob(settings, digest).unlink()
    assert client.get("/v1/packs/moon.garden", headers=alice).json()["revisions"][0]["revision"] == 1  # still listed
    assert client.app.state.services.packs.storage_faults is STORAGE_FAULTS  # type: ignore[attr-defined]
    caplog.set_level(logging.ERROR, logger="creatorpack.service")
    requests: list[Callable[[], Any]] = [
        lambda: client.get("/v1/packs/moon.garden/revisions/1", headers=alice),  # the route (token not cached yet)
        lambda: client.get("/v1/packs/moon.garden/revisions/1", headers=alice),  # the fast path, counted once
        lambda: client.head("/v1/packs/moon.garden/revisions/1", headers=alice),
        lambda: client.post("/v1/packs/moon.garden/publish", json={"revision": 1}, headers=alice),
        lambda: client.post("/v1/packs/moon.garden/sessions", json={}, headers=alice),  # the engines
        lambda: client.get("/v1/packs/moon.garden/assets/cover", headers=alice),  # the owner's asset lookup
    ]
    for request in requests:
        before = STORAGE_FAULTS.count
        _lost(request(), caplog, before)


def test_a_deleted_revision_without_its_bytes_stays_404(client: TestClient, settings: Settings) -> None:
    alice = issue(client)
    _upload(client, pack_bytes(revision=1), alice)
    digest = _upload(client, pack_bytes(revision=2), alice)
    assert client.delete("/v1/packs/moon.garden/revisions/2", headers=alice).status_code == 204
    _blob(settings, digest).unlink()  # as gc would
    before = STORAGE_FAULTS.count
    assert client.get("/v1/packs/moon.garden/revisions/2", headers=alice).status_code == 404
    assert client.get("/v1/packs/moon.garden/revisions/2", headers=alice).status_code == 404
    assert STORAGE_FAULTS.count == before


def test_an_uploaded_asset_without_its_bytes_is_a_logged_500(
    client: TestClient, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    alice = issue(client)
    for data in (JPEG, MP4, PNG):
        assert _put(client, data, alice).status_code == 201
    _upload(client, pack_with_assets(), alice)
    assert client.post("/v1/packs/moon.garden/publish", json={"revision": 1}, headers=alice).status_code == 200
    _blob(settings, sha(JPEG)).unlink()
    _blob(settings, sha(MP4)).unlink()
    caplog.set_level(logging.ERROR, logger="creatorpack.service")
    requests: list[Callable[[], Any]] = [
        lambda: client.get("/v1/packs/moon.garden/assets/cover"),  # anyone's cover
        lambda: client.head("/v1/packs/moon.garden/assets/cover"),  # the status a GET would have
        lambda: client.get("/v1/packs/moon.garden/assets/reel", headers={"Range": "bytes=0-9"}),  # a range
    ]
    for request in requests:
        before = STORAGE_FAULTS.count
        _lost(request(), caplog, before)
    assert client.get("/v1/packs/moon.garden/assets/portrait", headers=alice).status_code == 200  # the others serve


def test_check_storage_finds_missing_and_corrupt_bytes(client: TestClient, settings: Settings) -> None:
    alice = issue(client)
    packs = client.app.state.services.packs  # type: ignore[attr-defined]
    for data in (JPEG, MP4, PNG):
        _put(client, data, alice)
    good = _upload(client, pack_bytes("a.pack"), alice)
    assert packs.check_storage().problems == ()
    lost = _upload(client, pack_bytes("b.pack"), alice)
    edited = _upload(client, pack_bytes("c.pack"), alice)
    _upload(client, pack_bytes("d.pack", 1), alice)
    gone = _upload(client, pack_bytes("d.pack", 2), alice)
    client.delete("/v1/packs/d.pack/revisions/2", headers=alice)
    _blob(settings, gone).unlink()  # a deleted revision's bytes: gc's to take, no problem
    _blob(settings, lost).unlink()
    flipped = bytearray(_blob(settings, edited).read_bytes())
    flipped[1] ^= 1  # one bit of other bytes, of the same size
    _blob(settings, edited).write_bytes(bytes(flipped))
    _blob(settings, sha(PNG)).write_bytes(PNG[:10])
    _blob(settings, sha(MP4)).unlink()
    found = packs.check_storage()
    assert (found.revisions, found.assets, found.ok) == (4, 3, False)
    other = next(p for p in found.problems if p.pack_id == "c.pack")
    assert other.detail == f"the bytes hash to {sha(bytes(flipped))}"
    assert set(found.problems) == {
        StorageProblem("missing", lost, "b.pack", 1),
        StorageProblem("corrupt", edited, "c.pack", 1, other.detail),
        StorageProblem("corrupt", sha(PNG), detail=f"10 bytes, not the {len(PNG)} recorded"),
        StorageProblem("missing", sha(MP4)),
    }
    assert good not in {p.sha256 for p in found.problems}
