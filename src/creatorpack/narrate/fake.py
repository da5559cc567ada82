"""Fakes of the model seam for tests and demos: in process (:class:`ScriptedModel`) and over HTTP.

Both answer from a script: narrations (streamed calls) in order from ``narrations``,
structured answers (calls with a ``response_format``) from ``answers`` in order, or, when that
runs out, the first allowed value of every property (``false``, the first choice key) of the schema
the call asked for. Every request is recorded.

:class:`FakeModelServer` speaks the OpenAI-compatible Chat Completions API on 127.0.0.1 (plain and
server-sent-event streaming), so the CLI and the service can be tested end to end over real HTTP::

    with FakeModelServer(narrations=["The fog lifts."]) as server:
        client = OpenAIClient(ModelSettings(server.url, "fake"))
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from creatorpack.narrate.client import ChatMessage

__all__ = ["FakeModelServer", "ScriptedModel", "default_answer"]


def default_answer(response_format: Mapping[str, Any]) -> str:
    """An answer that fits the schema of ``response_format``: ``false``, or the first choice, for each property."""
    schema = response_format.get("json_schema", {}).get("schema", {})
    answer = {}
    for name, spec in schema.get("properties", {}).items():
        answer[name] = spec["enum"][0] if "enum" in spec else False
    return json.dumps(answer)


class _Script:
    def __init__(self, narrations: Sequence[str], answers: Sequence[str]) -> None:
        self.narrations = list(narrations)
        self.answers = list(answers)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def record(self, body: Mapping[str, Any]) -> None:
        with self.lock:
            self.requests.append(dict(body))

    def reply(self, body: Mapping[str, Any]) -> str:
        with self.lock:
            response_format = body.get("response_format")
            if isinstance(response_format, Mapping):
                return self.answers.pop(0) if self.answers else default_answer(response_format)
            return self.narrations.pop(0) if self.narrations else "The story goes on."


class ScriptedModel:
    """A :class:`~creatorpack.narrate.client.ModelClient` that answers from a script, in process."""

    def __init__(self, narrations: Sequence[str] = (), answers: Sequence[str] = ()) -> None:
        self._script = _Script(narrations, answers)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request, as the Chat Completions body it would have been."""
        return self._script.requests

    def complete(self, messages: Sequence[ChatMessage], *, response_format: Mapping[str, Any] | None = None) -> str:
        """The next scripted answer (or one that fits ``response_format``)."""
        body: dict[str, Any] = {"messages": [m.to_json() for m in messages], "stream": False}
        if response_format is not None:
            body["response_format"] = dict(response_format)
        self._script.record(body)
        return self._script.reply(body)

    def stream(self, messages: Sequence[ChatMessage]) -> Iterator[str]:
        """The next scripted narration, a word at a time."""
        body = {"messages": [m.to_json() for m in messages], "stream": True}
        self._script.record(body)
        text = self._script.reply(body)
        yield from _words(text)


def _words(text: str) -> list[str]:
    parts = text.split(" ")
    return [p + (" " if i < len(parts) - 1 else "") for i, p in enumerate(parts)]


class FakeModelServer:
    """An OpenAI-compatible server on 127.0.0.1 that answers from a script (a context manager)."""

    def __init__(
        self,
        narrations: Sequence[str] = (),
        answers: Sequence[str] = (),
        *,
        fail_first: int = 0,
        status: int = 503,
        json_object_only: bool = False,
    ) -> None:
        """A server with its script; the first ``fail_first`` requests answer ``status``.

        ``json_object_only``: refuse OpenAI's ``json_schema`` response format (with the 500 naming
        ``response_format`` that llama-cpp-python's server answers) and take ``{"type": "json_object",
        "schema": ...}`` instead.
        """
        self._script = _Script(narrations, answers)
        self._failures = fail_first
        self._status = status
        script = self._script
        server_self = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                script.record(body)
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "no such route"}})
                    return
                if server_self._take_failure():
                    self._send(server_self._status, {"error": {"message": "scripted failure"}})
                    return
                asked = body.get("response_format")
                if json_object_only and isinstance(asked, dict) and asked.get("type") == "json_schema":
                    # as llama-cpp-python's server answers it: a 500 naming the field
                    message = "('body', 'response_format', 'type'): Input should be 'text' or 'json_object'"
                    self._send(500, {"error": {"message": message}})
                    return
                if isinstance(asked, dict) and asked.get("type") == "json_object" and "schema" in asked:
                    body = {**body, "response_format": {"json_schema": {"schema": asked["schema"]}}}
                text = script.reply(body)
                if body.get("stream"):
                    self._stream(text)
                else:
                    self._send(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]})

            def _send(self, status: int, payload: Mapping[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, text: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for word in _words(text):
                    chunk = {"choices": [{"index": 0, "delta": {"content": word}}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
                del format, args

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _take_failure(self) -> bool:
        with self._script.lock:
            if self._failures > 0:
                self._failures -= 1
                return True
            return False

    @property
    def url(self) -> str:
        """The base URL to give a client (``http://127.0.0.1:PORT/v1``)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request body received, in order."""
        return self._script.requests

    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
