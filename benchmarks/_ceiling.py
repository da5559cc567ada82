"""A bare ASGI app answering a constant: the ceiling of what the server itself can do."""

from __future__ import annotations

from typing import Any

BODY = b'{"status":"ok"}'


async def app(scope: dict[str, Any], _receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": BODY})
