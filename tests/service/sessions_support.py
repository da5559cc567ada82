"""What the session tests share: a pack whose assets have real bytes, publishing through the store, tokens.

Publishing lands with part 2 (branch ``pub``); until then the tests set a pack's published revision
and visibility through the store's ``set_published``.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from fastapi.testclient import TestClient

from creatorpack.service.blobs import blob_store_from_url
from creatorpack.service.ports import Visibility
from creatorpack.service.settings import Settings
from creatorpack.service.store import SqlPackStore
from tests.conftest import EXAMPLES
from tests.service.conftest import JSON, issue
from tests.test_runtime import PACK

__all__ = [
    "ASSETS",
    "JSON",
    "harbour",
    "harbour_bytes",
    "issue",
    "publish",
    "put_assets",
    "rich_bytes",
    "start",
    "upload",
]

ASSETS = {"face": b"\x89PNG face bytes", "art": b"\x89PNG reward art", "view": b"\x89PNG the view at trust 6"}
"""The bytes of the harbour pack's assets (``art`` is ``reward_only``, the reward of ``friend`` and ``pin``)."""


def harbour(revision: int = 1) -> dict[str, Any]:
    """The runtime tests' pack (``tests/test_runtime.py``) with assets whose sha256 are of :data:`ASSETS`."""
    doc = copy.deepcopy(PACK)
    doc["manifest"]["revision"] = revision
    for item in doc["assets"]:
        data = ASSETS[item["id"]]
        item["sha256"] = hashlib.sha256(data).hexdigest()
        item["byte_size"] = len(data)
    return doc


def harbour_bytes(revision: int = 1) -> bytes:
    """:func:`harbour` as JSON bytes."""
    return json.dumps(harbour(revision)).encode()


def rich_bytes(version: str = "0.5") -> bytes:
    """A rich example pack's bytes, as on disk."""
    return (EXAMPLES / version / "rich.json").read_bytes()


def upload(client: TestClient, body: bytes, headers: dict[str, str]) -> dict[str, Any]:
    """Upload a pack (it must be new); its revision's JSON."""
    response = client.post("/v1/packs", content=body, headers={**headers, **JSON})
    assert response.status_code == 201, response.text
    found: dict[str, Any] = response.json()
    return found


def publish(client: TestClient, pack_id: str, revision: int | None, visibility: Visibility = "public") -> None:
    """Set the published revision and visibility in the store (what publishing will do)."""
    SqlPackStore(client.app.state.database).set_published(pack_id, revision, visibility)  # type: ignore[attr-defined]


def put_assets(settings: Settings) -> None:
    """Put :data:`ASSETS` in the app's blob store."""
    blobs = blob_store_from_url(settings.blob_url, settings.data_dir / "blobs")
    for data in ASSETS.values():
        blobs.put(data)


def start(client: TestClient, pack_id: str, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    """Start a session (it must start); the 201's JSON."""
    response = client.post(f"/v1/packs/{pack_id}/sessions", json=body, headers=headers)
    assert response.status_code == 201, response.text
    assert response.headers["location"] == f"/v1/sessions/{response.json()['session_id']}"
    found: dict[str, Any] = response.json()
    return found
