"""What the session tests share: a pack whose assets have real files, publishing through the API, tokens.

A pack is published as readers see it published: ``POST /v1/packs/{pack_id}/publish`` (lint first),
its visibility the one its revision's ``publication`` gives.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from fastapi.testclient import TestClient

from creatorpack.service.ports import Visibility
from tests.conftest import EXAMPLES
from tests.service.conftest import JSON, issue, publication
from tests.test_runtime import PACK

__all__ = [
    "ASSETS",
    "JSON",
    "harbour",
    "harbour_bytes",
    "issue",
    "narrowed",
    "publish",
    "put_assets",
    "rich_bytes",
    "runtime_pack",
    "runtime_pack_bytes",
    "start",
    "unpublish",
    "upload",
]

_PNG = b"\x89PNG\r\n\x1a\n"
ASSETS = {"face": _PNG + b"face bytes", "art": _PNG + b"reward art", "view": _PNG + b"the view at trust 6"}
"""The files of the harbour pack's assets (``art`` is ``reward_only``, the reward of ``friend`` and ``pin``)."""


def runtime_pack(revision: int = 1) -> dict[str, Any]:
    """The runtime tests' pack (``tests/test_runtime.py``) as it is, with assets whose sha256 are of :data:`ASSETS`."""
    doc = copy.deepcopy(PACK)
    doc["manifest"]["revision"] = revision
    for item in doc["assets"]:
        data = ASSETS[item["id"]]
        item["sha256"] = hashlib.sha256(data).hexdigest()
        item["byte_size"] = len(data)
    return doc


def runtime_pack_bytes(revision: int = 1) -> bytes:
    """:func:`runtime_pack` as JSON bytes."""
    return json.dumps(runtime_pack(revision)).encode()


def harbour(revision: int = 1, visibility: Visibility | None = "public") -> dict[str, Any]:
    """:func:`runtime_pack`, publishable: a ``publication`` of ``visibility`` (None: none), lint-clean.

    Lint-clean: without what the runtime tests keep on purpose (and :func:`runtime_pack` too), the rule
    ``bad-set`` whose effect is always rejected and the endings ``also`` and ``low`` that ``good`` always
    beats (lint errors ``effect-type-mismatch``, ``unreachable``). Neither changes what a session plays.
    """
    doc = runtime_pack(revision)
    doc["runtime"]["rules"] = [r for r in doc["runtime"]["rules"] if r["id"] != "bad-set"]
    endings = doc["progression"]["endings"]
    doc["progression"]["endings"] = [e for e in endings if e["id"] not in ("also", "low")]
    if visibility is not None:
        doc["publication"] = publication(visibility)
    return doc


def harbour_bytes(revision: int = 1, visibility: Visibility | None = "public") -> bytes:
    """:func:`harbour` as JSON bytes."""
    return json.dumps(harbour(revision, visibility)).encode()


def narrowed(revision: int, maximum: int = 3, *, publishable: bool = False) -> dict[str, Any]:
    """:func:`harbour` with trust at most ``maximum`` (a save of trust 5 no longer fits; the endings ask for it).

    ``publishable``: lint-clean too: the entries start at most at ``maximum`` and no condition asks for more.
    """
    doc = harbour(revision)
    doc["runtime"]["state"]["schema"]["properties"]["trust"]["maximum"] = maximum
    for rule in doc["runtime"]["rules"]:
        for effect in rule.get("effects", []):
            if effect.get("limit", 0) > maximum:
                effect["limit"] = maximum
    for goal in doc["progression"]["endings"]:
        goal["when"] = {"op": "gte", "path": "/trust", "value": maximum}
    if publishable:
        for entry in doc["runtime"]["entries"]:
            entry["initial_state"]["trust"] = min(entry["initial_state"]["trust"], maximum)
        _at_most(doc, maximum)
    return doc


def _at_most(node: Any, maximum: int) -> None:
    if isinstance(node, dict):
        if node.get("path") == "/trust" and isinstance(node.get("value"), int) and node["value"] > maximum:
            node["value"] = maximum
        for value in node.values():
            _at_most(value, maximum)
    elif isinstance(node, list):
        for value in node:
            _at_most(value, maximum)


def rich_bytes(version: str = "0.5", visibility: Visibility | None = "public") -> bytes:
    """A rich example pack's bytes, its ``publication.visibility`` set (None: as on disk)."""
    raw = (EXAMPLES / version / "rich.json").read_bytes()
    if visibility is None:
        return raw
    doc = json.loads(raw)
    doc["publication"]["visibility"] = visibility
    return json.dumps(doc).encode()


def upload(client: TestClient, body: bytes, headers: dict[str, str]) -> dict[str, Any]:
    """Upload a pack (it must be new); its revision's JSON."""
    response = client.post("/v1/packs", content=body, headers={**headers, **JSON})
    assert response.status_code == 201, response.text
    found: dict[str, Any] = response.json()
    return found


def publish(client: TestClient, pack_id: str, revision: int, headers: dict[str, str]) -> dict[str, Any]:
    """Publish a revision (``POST /v1/packs/{pack_id}/publish``; it must publish); the 200's JSON."""
    response = client.post(f"/v1/packs/{pack_id}/publish", json={"revision": revision}, headers=headers)
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def unpublish(client: TestClient, pack_id: str, headers: dict[str, str]) -> None:
    """Withdraw the published revision (``DELETE /v1/packs/{pack_id}/publish``)."""
    response = client.delete(f"/v1/packs/{pack_id}/publish", headers=headers)
    assert response.status_code == 204, response.text


def put_assets(client: TestClient, headers: dict[str, str]) -> None:
    """Upload :data:`ASSETS` (``PUT /v1/assets/{sha256}``)."""
    for data in ASSETS.values():
        response = client.put(f"/v1/assets/{hashlib.sha256(data).hexdigest()}", content=data, headers=headers)
        assert response.status_code in (200, 201), response.text


def start(client: TestClient, pack_id: str, headers: dict[str, str], **body: Any) -> dict[str, Any]:
    """Start a session (it must start); the 201's JSON."""
    response = client.post(f"/v1/packs/{pack_id}/sessions", json=body, headers=headers)
    assert response.status_code == 201, response.text
    assert response.headers["location"] == f"/v1/sessions/{response.json()['session_id']}"
    found: dict[str, Any] = response.json()
    return found
