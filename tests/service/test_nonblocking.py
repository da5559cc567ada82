"""CPU-bound checks run off the event loop: cheap requests keep being answered while a big pack is checked.

Each test times the check itself (the domain call, wrapped) and probes the service while it runs:
``GET /v1/health`` (answered on the event loop) and an owner's ``GET /v1/packs/{id}`` (a database
read in a worker thread). Were the check run on the event loop, no probe could be answered inside
its window. The checks hold the GIL in long C calls (``orjson.loads`` of a 60 MB document takes
about half a second), so a probe may wait for one of them: the bounds are on probes answered inside
the window and, for the lint (mostly Python), on their median latency, never on how many fit in it.
A small upload does not queue behind big lints: they have a pool of threads of their own.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from creatorpack.service.app import create_app
from creatorpack.service.packs import Packs
from creatorpack.service.settings import Settings
from tests.conftest import example
from tests.service.conftest import JSON, OFF, pack_bytes


def big_pack(target: int = 60_000_000) -> bytes:
    """A valid 0.5 pack of about ``target`` bytes: the minimal pack with many content items."""
    pack = example("0.5", "minimal")
    item = json.dumps(example("0.5", "rich")["content"][0]).encode()
    pack["content"] = []
    head = json.dumps(pack).encode()
    assert head.endswith(b"[]}")
    return head[: -len(b"[]}")] + b"[" + b",".join([item] * (target // len(item))) + b"]}"


@dataclass(frozen=True)
class Probe:
    """One cheap request: when it was sent and answered (``time.perf_counter``)."""

    kind: str
    sent: float
    answered: float

    @property
    def latency(self) -> float:
        return self.answered - self.sent


def _timed(spans: list[float], function: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        spans.append(time.perf_counter())
        try:
            return function(*args, **kwargs)
        finally:
            spans.append(time.perf_counter())

    return wrapper


async def _probe_while(settings: Settings, route: str, body: bytes) -> tuple[int, tuple[float, float], list[Probe]]:
    app = create_app(settings)
    packs = app.state.services.packs
    spans: list[float] = []
    name = route.rsplit("/", 1)[1]  # the domain method the route calls: validate or lint
    setattr(packs, name, _timed(spans, getattr(packs, name)))
    token, _ = app.state.services.auth.issue("alice", "creator")
    owner = {"Authorization": f"Bearer {token}"}
    probes: list[Probe] = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t", timeout=120) as client:
        assert (await client.get("/v1/packs/some.pack", headers=owner)).status_code == 404
        big = asyncio.create_task(client.post(route, content=body, headers=JSON))
        while not big.done():
            sent = time.perf_counter()
            assert (await client.get("/v1/health")).status_code == 200
            probes.append(Probe("loop", sent, time.perf_counter()))
            sent = time.perf_counter()
            assert (await client.get("/v1/packs/some.pack", headers=owner)).status_code == 404
            probes.append(Probe("thread", sent, time.perf_counter()))
            await asyncio.sleep(0)
        status = (await big).status_code
    app.state.database.dispose()
    start, end = spans
    return status, (start, end), probes


def _summary(window: tuple[float, float], probes: list[Probe]) -> tuple[float, list[tuple[str, float, float]]]:
    start, end = window
    return round(end - start, 3), [(p.kind, round(p.sent - start, 3), round(p.latency, 3)) for p in probes]


def test_a_60_mb_validation_leaves_the_event_loop_running(tmp_path: Path) -> None:
    """Probes are answered while it runs, each as soon as the check's current C call returns.

    Parsing the 60 MB document (one ``orjson.loads``) holds the GIL for most of the check, so no
    latency bound well under the check's duration can hold here; the lint below has one.
    """
    body = big_pack(60_000_000)
    assert len(body) > 59_000_000
    settings = Settings(data_dir=tmp_path, rate_per_ip=OFF, rate_per_token=OFF)
    status, (start, end), probes = asyncio.run(_probe_while(settings, "/v1/validate", body))
    assert status == 200
    answered_during = [p for p in probes if start < p.answered < end]
    assert answered_during, _summary((start, end), probes)


def test_cheap_requests_are_answered_promptly_while_a_big_pack_is_linted(tmp_path: Path) -> None:
    body = big_pack(3_000_000)  # ~1 s of linting (a 60 MB lint takes ~20 s)
    settings = Settings(data_dir=tmp_path, rate_per_ip=OFF, rate_per_token=OFF)
    status, (start, end), probes = asyncio.run(_probe_while(settings, "/v1/lint", body))
    assert status == 200
    summary = _summary((start, end), probes)
    inside = [p for p in probes if start <= p.sent and p.answered <= end]
    assert len([p for p in inside if p.kind == "loop"]) >= 3, summary
    assert any(p.kind == "thread" for p in inside), summary
    started = [p.latency for p in probes if start <= p.sent <= end and p.kind == "loop"]
    assert statistics.median(started) < (end - start) / 10, summary


async def _upload_beside_held_lints(
    settings: Settings, entered: list[None], release: threading.Event
) -> tuple[int, int, list[int]]:
    """Two lints fill the checks' pool and are held there; an upload is sent meanwhile.

    Returns the upload's status, how many lints had finished when it was answered, and the lints' statuses.
    """
    app = create_app(settings)
    token, _ = app.state.services.auth.issue("alice", "creator")
    owner = {"Authorization": f"Bearer {token}", **JSON}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t", timeout=120) as client:
        finished: list[int] = []

        async def lint() -> None:
            finished.append((await client.post("/v1/lint", content=pack_bytes(), headers=JSON)).status_code)

        lints = [asyncio.create_task(lint()) for _ in range(2)]  # the checks' pool (two threads here) is full
        while len(entered) < 2:
            await asyncio.sleep(0.01)
        try:
            upload = await asyncio.wait_for(client.post("/v1/packs", content=pack_bytes(), headers=owner), 30)
            done_then = len(finished)
        finally:
            release.set()
        await asyncio.gather(*lints)
    app.state.database.dispose()
    return upload.status_code, done_then, finished


def test_a_small_upload_does_not_queue_behind_big_lints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Held lints (the checks' pool full for as long as the test likes) do not hold up an upload.

    No clock is read: were the upload queued behind the lints, it could not be answered before they
    are released, and ``wait_for`` would time out.
    """
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    entered: list[None] = []
    release = threading.Event()
    real = Packs.lint

    def held(self: Packs, body: bytes, *, strict: bool = False) -> dict[str, Any]:
        entered.append(None)
        release.wait(60)
        return real(self, body, strict=strict)

    monkeypatch.setattr(Packs, "lint", held)
    settings = Settings(data_dir=tmp_path, rate_per_ip=OFF, rate_per_token=OFF)
    uploaded, lints_done, lints = asyncio.run(_upload_beside_held_lints(settings, entered, release))
    assert (uploaded, lints_done, lints) == (201, 0, [200, 200])
