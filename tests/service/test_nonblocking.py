"""Validating a 60 MB pack runs in a worker thread: the event loop keeps answering other requests."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import httpx

from creatorpack.service.app import create_app
from creatorpack.service.settings import Settings
from tests.conftest import example
from tests.service.conftest import JSON, OFF


def big_pack(target: int = 60_000_000) -> bytes:
    """A valid 0.5 pack of about ``target`` bytes: the minimal pack with many content items."""
    pack = example("0.5", "minimal")
    item = json.dumps(example("0.5", "rich")["content"][0]).encode()
    pack["content"] = []
    head = json.dumps(pack).encode()
    assert head.endswith(b"[]}")
    return head[: -len(b"[]}")] + b"[" + b",".join([item] * (target // len(item))) + b"]}"


async def _race(settings: Settings, body: bytes) -> tuple[float, list[float], int]:
    app = create_app(settings)
    token, _ = app.state.services.auth.issue("alice", "creator")
    owner = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t", timeout=120) as client:
        start = time.perf_counter()
        big = asyncio.create_task(client.post("/v1/validate", content=body, headers=JSON))
        answered: list[float] = []
        await asyncio.sleep(0.05)
        while not big.done():
            response = await client.get("/v1/health")
            assert response.status_code == 200
            lookup = await client.get("/v1/packs/some.pack", headers=owner)  # a database read in a thread
            assert lookup.status_code == 404
            answered.append(time.perf_counter() - start)
            await asyncio.sleep(0.01)
        result = await big
        finished = time.perf_counter() - start
    app.state.database.dispose()
    return finished, answered, result.status_code


def test_cheap_requests_are_answered_while_a_60_mb_pack_validates(tmp_path: Path) -> None:
    body = big_pack()
    assert len(body) > 59_000_000
    settings = Settings(data_dir=tmp_path, rate_per_ip=OFF, rate_per_token=OFF)
    finished, answered, status = asyncio.run(_race(settings, body))
    assert status == 200
    during = [t for t in answered if t < finished]
    assert len(during) >= 3, (finished, answered)
