"""A bare ASGI app answering a constant: the ceiling of what the server itself can do.

``GET /`` answers a 15-byte constant; ``GET /bytes/N`` a constant of N bytes (the ceiling for
responses of that size).
"""

from __future__ import annotations

from typing import Any

BODY = b'{"status":"ok"}'


async def app(scope: dict[str, Any], _receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    body = BODY
    if scope["path"].startswith("/bytes/"):
        body = _sized(int(scope["path"].removeprefix("/bytes/")))
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


_SIZED: dict[int, bytes] = {}


def _sized(size: int) -> bytes:
    if size not in _SIZED:
        _SIZED[size] = b'"' + b"x" * max(0, size - 2) + b'"'
    return _SIZED[size]
