"""The raw-ASGI fast path of ``POST /v1/validate`` answers exactly as the FastAPI route does."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from creatorpack.service.api.checkpath import ValidateFastPath
from creatorpack.service.api.deps import INLINE_BYTES
from tests.conftest import example

VALID = json.dumps(example("0.5", "rich")).encode()
BROKEN = json.dumps({**example("0.5", "minimal"), "protocol_version": "0.5", "manifest": {"title": 5}}).encode()
BODIES = {
    "valid": VALID,
    "contract-invalid": BROKEN,
    "not JSON": b"{not json",
    "duplicate key": b'{"protocol_version": "0.5", "protocol_version": "0.4"}',
    "not an object": b"[1, 2]",
    "empty": b"",
}


def _chunked(body: bytes) -> Iterator[bytes]:
    yield body  # no Content-Length: the fast path leaves the request to the route


@pytest.mark.parametrize("name", list(BODIES))
def test_the_fast_path_answers_as_the_route_does(stateless_client: TestClient, name: str) -> None:
    body = BODIES[name]
    fast = stateless_client.post("/v1/validate", content=body, headers={"content-type": "application/json"})
    routed = stateless_client.post("/v1/validate", content=_chunked(body), headers={"content-type": "application/json"})
    assert "content-length" not in routed.request.headers
    assert (fast.status_code, fast.headers["content-type"], fast.content) == (
        routed.status_code,
        routed.headers["content-type"],
        routed.content,
    )


class _Recorder:
    """The application behind the fast path: records what reaches it and answers 299."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:  # noqa: ARG002 - ASGI's signature
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        self.bodies.append(body)
        await send({"type": "http.response.start", "status": 299, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def _call(
    layer: ValidateFastPath, body: bytes, headers: list[tuple[bytes, bytes]], *, chunk: int = 1 << 16
) -> list[Message]:
    chunks = [body[i : i + chunk] for i in range(0, len(body), chunk)] or [b""]
    scope: dict[str, Any] = {
        "type": "http",
        "method": "POST",
        "path": "/v1/validate",
        "query_string": b"",
        "headers": headers,
    }
    sent: list[Message] = []

    async def receive() -> Message:
        chunk = chunks.pop(0)
        return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(layer(scope, receive, send))
    return sent


def _length(body: bytes) -> tuple[bytes, bytes]:
    return (b"content-length", str(len(body)).encode())


def test_the_fast_path_serves_small_readable_packs_itself(stateless_client: TestClient) -> None:
    recorder = _Recorder()
    layer = ValidateFastPath(recorder, packs=stateless_client.app.state.services.packs, max_body_bytes=1 << 20)  # type: ignore[attr-defined]
    sent = _call(layer, VALID, [_length(VALID), (b"content-type", b"application/json")], chunk=4096)
    assert recorder.bodies == []
    assert sent[0]["status"] == 200
    assert json.loads(sent[1]["body"])["valid"] is True


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        pytest.param(b"{not json", None, id="unreadable: the route answers, the body replayed"),
        pytest.param(VALID, [(b"content-type", b"application/json")], id="no content-length"),
        pytest.param(VALID, [(b"content-type", b"text/plain")], id="not declared JSON"),
        pytest.param(b" " * (INLINE_BYTES + 1), None, id="larger than the inline bound"),
    ],
)
def test_everything_else_reaches_the_route_whole(
    stateless_client: TestClient, body: bytes, headers: list[tuple[bytes, bytes]] | None
) -> None:
    recorder = _Recorder()
    layer = ValidateFastPath(recorder, packs=stateless_client.app.state.services.packs, max_body_bytes=64 << 20)  # type: ignore[attr-defined]
    sent = _call(layer, body, headers if headers is not None else [_length(body)])
    assert recorder.bodies == [body]
    assert sent[0]["status"] == 299
