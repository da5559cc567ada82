"""Rate limits per token and per IP: in-process, and shared across processes through Redis."""

from __future__ import annotations

import asyncio
import logging
import secrets
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from creatorpack.service.app import create_app, preflight
from creatorpack.service.ratelimit import MemoryLimiter, RedisLimiter
from creatorpack.service.settings import RateLimit, Settings, SettingsError
from tests.service.conftest import OFF, REDIS_URL, issue


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    """A key prefix of this test's own in the test Redis, removed afterwards."""
    if not REDIS_URL:
        pytest.skip("CREATORPACK_TEST_REDIS_URL is not set (CI sets it; see .ci/run)")
    import redis

    prefix = f"creatorpack-test:{secrets.token_hex(6)}"
    yield prefix
    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)
    client.close()


def _settings(tmp_path: Path, **changes: object) -> Settings:
    base = Settings(data_dir=tmp_path, rate_per_ip=OFF, rate_per_token=OFF)
    return base.with_changes(**changes)


def test_rate_limit_parsing() -> None:
    assert RateLimit.parse("300/10") == RateLimit(300, 10)
    assert RateLimit.parse("20") == RateLimit(20, 1)
    assert not RateLimit.parse("0").enabled
    for bad in ("x", "1/0", "-1/5", "3/y"):
        with pytest.raises(SettingsError):
            RateLimit.parse(bad)


def test_defaults_let_a_host_drive_20_requests_per_second() -> None:
    defaults = Settings()
    assert defaults.rate_per_token.requests / defaults.rate_per_token.seconds >= 20
    assert defaults.rate_per_ip.requests / defaults.rate_per_ip.seconds >= 20


def test_memory_limiter_counts_in_fixed_windows() -> None:
    now = [100.0]
    limiter = MemoryLimiter(clock=lambda: now[0])
    limit = RateLimit(2, 10)

    async def hits() -> list[bool]:
        return [(await limiter.hit("k", limit)).allowed for _ in range(3)]

    assert asyncio.run(hits()) == [True, True, False]
    now[0] = 110.0
    assert asyncio.run(hits()) == [True, True, False]


def test_per_token_limit_answers_429_with_headers(tmp_path: Path) -> None:
    with TestClient(create_app(_settings(tmp_path, rate_per_token=RateLimit(3, 60)))) as client:
        alice, bob = issue(client, "alice"), issue(client, "bob")
        answers = [client.get("/v1/packs/x", headers=alice) for _ in range(4)]
        assert [r.status_code for r in answers] == [404, 404, 404, 429]
        assert answers[0].headers["ratelimit-policy"] == '"token";q=3;w=60'
        assert answers[0].headers["ratelimit"].startswith('"token";r=2;t=')
        limited = answers[-1]
        assert limited.headers["content-type"] == "application/problem+json"
        assert limited.json()["type"] == "urn:creatorpack:problem:rate-limited"
        assert limited.json()["instance"] == "/v1/packs/x"
        assert 1 <= int(limited.headers["retry-after"]) <= 60
        assert limited.headers["ratelimit"].startswith('"token";r=0;t=')
        assert client.get("/v1/packs/x", headers=bob).status_code == 404  # one token's limit is its own


def test_per_ip_limit(tmp_path: Path) -> None:
    with TestClient(create_app(_settings(tmp_path, rate_per_ip=RateLimit(2, 60)))) as client:
        statuses = [client.get("/v1/health").status_code for _ in range(3)]
        assert statuses == [200, 200, 429]


def test_redis_limit_is_shared_by_server_processes(tmp_path: Path, redis_prefix: str) -> None:
    assert REDIS_URL is not None
    settings = _settings(
        tmp_path, rate_per_ip=RateLimit(5, 60), redis_url=REDIS_URL, redis_prefix=redis_prefix, migrate=True
    )
    with TestClient(create_app(settings)) as first, TestClient(create_app(settings)) as second:
        answers = [(first if n % 2 else second).get("/v1/health") for n in range(7)]
        assert [r.status_code for r in answers] == [200] * 5 + [429] * 2
        assert answers[0].headers["ratelimit-policy"] == '"ip";q=5;w=60'
        assert answers[0].headers["ratelimit"].startswith('"ip";r=4;t=')
        assert answers[4].headers["ratelimit"].startswith('"ip";r=0;t=')
        _assert_limited(answers[-1], "ip", 60)


def test_redis_per_token_limit_is_shared_by_server_processes(tmp_path: Path, redis_prefix: str) -> None:
    assert REDIS_URL is not None
    settings = _settings(
        tmp_path, rate_per_token=RateLimit(3, 60), redis_url=REDIS_URL, redis_prefix=redis_prefix, migrate=True
    )
    with TestClient(create_app(settings)) as first, TestClient(create_app(settings)) as second:
        alice, bob = issue(first, "alice"), issue(first, "bob")
        answers = [(first if n % 2 else second).get("/v1/packs/x", headers=alice) for n in range(4)]
        assert [r.status_code for r in answers] == [404, 404, 404, 429]
        assert answers[0].headers["ratelimit-policy"] == '"token";q=3;w=60'
        assert answers[0].headers["ratelimit"].startswith('"token";r=2;t=')
        _assert_limited(answers[-1], "token", 60)
        assert second.get("/v1/packs/x", headers=bob).status_code == 404  # one token's limit is its own
        assert first.get("/v1/health").status_code == 200  # no token: no per-token limit


def _assert_limited(response: Any, name: str, window: int) -> None:
    assert response.status_code == 429
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["type"] == "urn:creatorpack:problem:rate-limited"
    assert 1 <= int(response.headers["retry-after"]) <= window
    assert response.headers["ratelimit"] == f'"{name}";r=0;t={response.headers["retry-after"]}'
    assert f'"{name}";q=' in response.headers["ratelimit-policy"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when the socket is: nothing listens there


def test_redis_down_fails_open_to_in_process_limits(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings = _settings(tmp_path, rate_per_ip=RateLimit(3, 60), redis_url=f"redis://127.0.0.1:{_closed_port()}/0")
    with caplog.at_level(logging.WARNING, logger="creatorpack.service"), TestClient(create_app(settings)) as client:
        answers = [client.get("/v1/health") for _ in range(4)]
    assert [r.status_code for r in answers] == [200, 200, 200, 429]  # never a 500; still limited, in-process
    assert answers[0].headers["ratelimit"].startswith('"ip";r=2;t=')
    _assert_limited(answers[-1], "ip", 60)
    warnings = [r.getMessage() for r in caplog.records if "Redis does not answer" in r.getMessage()]
    assert len(warnings) == 1, warnings  # once per retry interval, not once per request


def test_an_outage_is_logged_once_by_the_requests_in_flight(caplog: pytest.LogCaptureFixture) -> None:
    """Requests that were waiting on Redis when it went away fall back without a warning each."""

    async def run() -> list[bool]:
        limiter = RedisLimiter(f"redis://127.0.0.1:{_closed_port()}/0")
        try:
            decisions = await asyncio.gather(*(limiter.hit(f"k{i}", RateLimit(5, 10)) for i in range(20)))
        finally:
            await limiter.close()
        return [d.allowed for d in decisions]

    with caplog.at_level(logging.WARNING, logger="creatorpack.service"):
        assert asyncio.run(run()) == [True] * 20
    warnings = [r.getMessage() for r in caplog.records if "Redis does not answer" in r.getMessage()]
    assert len(warnings) == 1, warnings


def _refused(url: str) -> str:
    async def run() -> None:
        limiter = RedisLimiter(url)
        try:
            await limiter.check()
        finally:
            await limiter.close()

    with pytest.raises(SettingsError) as raised:
        asyncio.run(run())
    return str(raised.value)


def test_a_redis_that_refuses_the_url_stops_the_server(redis_prefix: str, tmp_path: Path) -> None:
    """A wrong password or a database Redis does not have never mends: exit 2, not a warning every 5 s."""
    assert REDIS_URL is not None
    parts = urlsplit(REDIS_URL)
    host = f"{parts.hostname}:{parts.port or 6379}"
    assert "DB index is out of range" in _refused(f"redis://{host}/999999")
    message = _refused(f"redis://someone:{redis_prefix}@{host}/0")
    assert message.startswith("CREATORPACK_REDIS_URL: Redis refuses it: "), message
    assert redis_prefix not in message  # the password is not repeated
    with pytest.raises(SettingsError, match="DB index is out of range"):
        preflight(Settings(data_dir=tmp_path, redis_url=f"redis://{host}/999999"))


def test_a_redis_that_is_down_at_start_only_warns(caplog: pytest.LogCaptureFixture) -> None:
    async def run() -> None:
        limiter = RedisLimiter(f"redis://127.0.0.1:{_closed_port()}/0")
        try:
            await limiter.check()  # an outage: fail open, as while serving
        finally:
            await limiter.close()

    with caplog.at_level(logging.WARNING, logger="creatorpack.service"):
        asyncio.run(run())
    assert any("Redis does not answer yet" in r.getMessage() for r in caplog.records)


def test_redis_limiter_tries_redis_again_after_the_retry_interval() -> None:
    async def run() -> tuple[bool, bool, bool]:
        limiter = RedisLimiter(f"redis://127.0.0.1:{_closed_port()}/0", retry_seconds=0.2)
        try:
            first = await limiter.hit("k", RateLimit(5, 10))
            during = limiter.failing_open
            await asyncio.sleep(0.3)
            after = limiter.failing_open
            return first.allowed, during, after
        finally:
            await limiter.close()

    assert asyncio.run(run()) == (True, True, False)


def test_redis_limiter_counts_in_fixed_windows(redis_prefix: str) -> None:
    assert REDIS_URL is not None

    async def hits() -> list[bool]:
        limiter = RedisLimiter(REDIS_URL, redis_prefix, clock=lambda: 1000.0)
        try:
            return [(await limiter.hit("k", RateLimit(2, 10))).allowed for _ in range(3)]
        finally:
            await limiter.close()

    assert asyncio.run(hits()) == [True, True, False]


def test_a_token_limit_alone_lets_anonymous_requests_through(tmp_path: Path) -> None:
    with TestClient(create_app(_settings(tmp_path, rate_per_token=RateLimit(1, 60)))) as client:
        assert [client.get("/v1/health").status_code for _ in range(3)] == [200, 200, 200]


def test_every_spelling_of_one_token_counts_against_one_limit(tmp_path: Path) -> None:
    with TestClient(create_app(_settings(tmp_path, rate_per_token=RateLimit(3, 60)))) as client:
        token = issue(client, "alice")["Authorization"].removeprefix("Bearer ")
        spellings = (f"Bearer {token}", f"bearer {token}", f"Bearer   {token}  ", f"BEARER {token}")
        answers = [client.get("/v1/packs/x", headers={"Authorization": s}) for s in spellings]
        assert [r.status_code for r in answers] == [404, 404, 404, 429]
