"""Fixed-window rate limiters: in-process (the default) and Redis (shared across server processes).

Redis failing open: when Redis does not answer (down, unreachable, timing out), :class:`RedisLimiter`
logs a warning and counts in-process instead (each process then enforces the limits on its own
share of the traffic), and tries Redis again after ``retry_seconds``. Rate limits protect the
service; an outage of the store that shares them should not take the service down with it.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from creatorpack.service.settings import RateLimit, SettingsError

__all__ = ["Decision", "Limiter", "MemoryLimiter", "RedisLimiter"]

_log = logging.getLogger("creatorpack.service")


@dataclass(frozen=True, slots=True)
class Decision:
    """One hit's outcome: allowed or not, what is left in the window and when it resets (seconds)."""

    allowed: bool
    limit: RateLimit
    remaining: int
    reset: int


def _window(limit: RateLimit, now: float) -> tuple[int, int]:
    index = int(now // limit.seconds)
    reset = max(1, math.ceil((index + 1) * limit.seconds - now))
    return index, reset


def _decide(limit: RateLimit, count: int, reset: int) -> Decision:
    return Decision(count <= limit.requests, limit, max(0, limit.requests - count), reset)


class Limiter(Protocol):
    """Counts hits per key in fixed windows."""

    async def hit(self, key: str, limit: RateLimit) -> Decision:
        """Count one request for ``key`` and say whether it is within ``limit``."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


class MemoryLimiter:
    """Counters in a dict (one server process); stale windows are dropped as it grows."""

    def __init__(self, clock: Callable[[], float] = time.time, max_keys: int = 100_000) -> None:
        self._clock = clock
        self._counts: dict[tuple[str, int, int], int] = {}
        self._max_keys = max_keys

    async def hit(self, key: str, limit: RateLimit) -> Decision:
        """See :meth:`Limiter.hit`."""
        index, reset = _window(limit, self._clock())
        slot = (key, limit.seconds, index)
        count = self._counts.get(slot, 0) + 1
        self._counts[slot] = count
        if len(self._counts) > self._max_keys:
            now = self._clock()
            self._counts = {s: c for s, c in self._counts.items() if s[2] >= int(now // s[1])}
        return _decide(limit, count, reset)

    async def close(self) -> None:
        """Nothing to release."""


class RedisLimiter:
    """Counters in Redis (``INCR`` + ``EXPIRE NX`` in one transaction), shared by every server process.

    Fails open to in-process counters while Redis does not answer (see the module's docstring).
    """

    def __init__(
        self,
        url: str,
        prefix: str = "creatorpack:rl",
        clock: Callable[[], float] = time.time,
        *,
        timeout_seconds: float = 0.5,
        retry_seconds: float = 5.0,
    ) -> None:
        import redis.asyncio  # noqa: PLC0415 - only loaded when Redis is configured

        self._redis: Any = redis.asyncio.Redis.from_url(
            url, socket_timeout=timeout_seconds, socket_connect_timeout=timeout_seconds
        )
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        self._prefix = prefix
        self._clock = clock
        self._fallback = MemoryLimiter(clock)
        self._retry_seconds = retry_seconds
        self._down_until = 0.0  # time.monotonic() before which Redis is not asked again

    @property
    def failing_open(self) -> bool:
        """Whether the last attempt found Redis down (counting in-process meanwhile)."""
        return self._down_until > time.monotonic()

    async def hit(self, key: str, limit: RateLimit) -> Decision:
        """See :meth:`Limiter.hit`."""
        if self.failing_open:
            return await self._fallback.hit(key, limit)
        index, reset = _window(limit, self._clock())
        name = f"{self._prefix}:{key}:{limit.seconds}:{index}"
        try:
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.incr(name)
                pipe.expire(name, limit.seconds + 1, nx=True)
                count, _ = await pipe.execute()
        except self._errors as exc:
            if self._down_until > time.monotonic():  # a request in flight when another found Redis gone
                return await self._fallback.hit(key, limit)
            self._down_until = time.monotonic() + self._retry_seconds
            _log.warning(
                "rate limits: Redis does not answer (%s: %s); counting in this process for %.0f s",
                type(exc).__name__,
                exc,
                self._retry_seconds,
            )
            return await self._fallback.hit(key, limit)
        return _decide(limit, int(count), reset)

    async def check(self) -> None:
        """Ask Redis once, at start: a refusal that no retry mends is a setting that cannot work.

        Raises :class:`SettingsError` if Redis answers but refuses the URL (a wrong password, a
        database it does not have); an outage only logs a warning (fail open, as while serving).
        """
        import redis  # noqa: PLC0415

        try:
            await self._redis.ping()
        except (redis.AuthenticationError, redis.ResponseError) as exc:
            if isinstance(exc, redis.AuthenticationError) or "DB index" in str(exc):
                raise SettingsError(f"CREATORPACK_REDIS_URL: Redis refuses it: {type(exc).__name__}: {exc}") from None
            _log.warning("rate limits: Redis answers PING with %s: %s; going on", type(exc).__name__, exc)
        except self._errors as exc:
            _log.warning("rate limits: Redis does not answer yet (%s: %s); failing open", type(exc).__name__, exc)

    async def close(self) -> None:
        """Close the connection pool."""
        await self._redis.aclose()
