"""The model seam: chat messages in, text (streamed or whole) out.

:class:`ModelClient` is what the narrator needs of a language model. :class:`OpenAIClient` speaks the
OpenAI-compatible Chat Completions API (``{base}/chat/completions``: OpenAI, llama.cpp's server, vLLM,
Ollama's ``/v1``) over httpx; :class:`~creatorpack.narrate.fake.ScriptedModel` is the in-process fake.
Failed calls are retried on 429 and 5xx (and on connection errors) with exponential backoff; what
is left is :class:`~creatorpack.narrate.errors.ModelUnavailableError`, naming the server.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from creatorpack.narrate.errors import ModelUnavailableError

__all__ = ["ChatMessage", "ModelClient", "ModelSettings", "OpenAIClient", "Role"]

Role = Literal["system", "user", "assistant"]
_RETRY_STATUSES: Final = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message of a chat: who says it and what."""

    role: Role
    content: str

    def to_json(self) -> dict[str, str]:
        """The Chat Completions form."""
        return {"role": self.role, "content": self.content}


class ModelClient(Protocol):
    """A chat model: one answer whole, or streamed as text deltas."""

    def complete(self, messages: Sequence[ChatMessage], *, response_format: Mapping[str, Any] | None = None) -> str:
        """The model's whole answer (constrained by ``response_format`` when given)."""
        ...

    def stream(self, messages: Sequence[ChatMessage]) -> Iterator[str]:
        """The model's answer as it comes, in text deltas."""
        ...


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """Where the model is and how long to wait for it (``CREATORPACK_MODEL_URL``, ``_MODEL``, ``_MODEL_KEY``)."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout_seconds: float = 120.0
    retries: int = 2
    backoff_seconds: float = 0.5
    temperature: float = 0.7
    max_tokens: int = 600

    @classmethod
    def from_env(cls, env: Mapping[str, str], **overrides: Any) -> ModelSettings | None:
        """The settings in ``env`` (with ``overrides`` winning), or None when no model URL is set."""
        url = overrides.pop("base_url", None) or env.get("CREATORPACK_MODEL_URL")
        if not url:
            return None
        model = overrides.pop("model", None) or env.get("CREATORPACK_MODEL") or "default"
        key = overrides.pop("api_key", None) or env.get("CREATORPACK_MODEL_KEY") or None
        return cls(str(url).rstrip("/"), str(model), key, **overrides)


class OpenAIClient:
    """An OpenAI-compatible Chat Completions client (httpx, synchronous)."""

    def __init__(self, settings: ModelSettings, *, sleep: Callable[[float], None] = time.sleep) -> None:
        import httpx  # noqa: PLC0415 - loaded only by whoever narrates

        self.settings = settings
        self._sleep = sleep
        headers = {"Content-Type": "application/json"}
        if settings.api_key:
            headers["Authorization"] = f"Bearer {settings.api_key}"
        self._http = httpx.Client(base_url=settings.base_url, headers=headers, timeout=settings.timeout_seconds)
        self._httpx = httpx
        self._json_object = False  # the server refused OpenAI's json_schema form once: ask for json_object

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def _body(self, messages: Sequence[ChatMessage], **extra: Any) -> dict[str, Any]:
        return {
            "model": self.settings.model,
            "messages": [m.to_json() for m in messages],
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_tokens,
            **extra,
        }

    def complete(self, messages: Sequence[ChatMessage], *, response_format: Mapping[str, Any] | None = None) -> str:
        """See :meth:`ModelClient.complete`.

        A ``json_schema`` response format that the server refuses (400 or 422, or a 500 that names
        ``response_format``: llama-cpp-python's server takes only ``{"type": "json_object", "schema":
        ...}`` and answers a 500 otherwise) is asked again in that form, which this client then keeps.
        """
        extra: dict[str, Any] = {"stream": False}
        if response_format is not None:
            extra["response_format"] = self._dialect(response_format)
        try:
            data = self._with_retries(lambda: self._post(self._body(messages, **extra)))
        except _RefusedError as refused:
            if response_format is None or self._json_object or refused.status not in (400, 422, 500):
                raise ModelUnavailableError(str(refused)) from None
            self._json_object = True
            extra["response_format"] = self._dialect(response_format)
            try:
                data = self._with_retries(lambda: self._post(self._body(messages, **extra)))
            except _RefusedError as again:
                raise ModelUnavailableError(str(again)) from None
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise ModelUnavailableError(f"{self._where()} answered without choices[0].message.content") from None
        return content if isinstance(content, str) else ""

    def stream(self, messages: Sequence[ChatMessage]) -> Iterator[str]:
        """See :meth:`ModelClient.stream`: server-sent events, ``data: {...}`` lines until ``data: [DONE]``.

        Retries happen only before the first delta: once text has reached the caller, a broken
        stream is :class:`ModelUnavailableError`.
        """
        body = self._body(messages, stream=True)
        try:
            response = self._with_retries(lambda: self._open_stream(body))
        except _RefusedError as refused:
            raise ModelUnavailableError(str(refused)) from None
        try:
            for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue
                payload = line[5:].strip()
                if payload == "[DONE]":
                    break
                try:
                    delta = json.loads(payload)["choices"][0].get("delta", {}).get("content")
                except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                    continue
                if isinstance(delta, str) and delta:
                    yield delta
        except self._httpx.HTTPError as exc:
            raise ModelUnavailableError(f"{self._where()} broke off the narration: {exc}") from None
        finally:
            response.close()

    def _post(self, body: Mapping[str, Any]) -> Any:
        response = self._http.post("/chat/completions", json=body)
        if "response_format" in body and response.status_code >= 500 and "response_format" in response.text:
            # A server that cannot take the format says so, llama-cpp-python's with a 500: not worth retrying.
            text = " ".join(response.text.split())[:200]
            raise _RefusedError(response.status_code, f"{self._where()} refused the response format: {text}")
        self._check(response)
        try:
            return response.json()
        except ValueError:
            raise ModelUnavailableError(f"{self._where()} answered with something that is not JSON") from None

    def _open_stream(self, body: Mapping[str, Any]) -> Any:
        request = self._http.build_request("POST", "/chat/completions", json=body)
        response = self._http.send(request, stream=True)
        if response.status_code >= 400:
            response.read()
            response.close()
        self._check(response)
        return response

    def _check(self, response: Any) -> None:
        if response.status_code in _RETRY_STATUSES:
            raise _Retry(f"{self._where()} answered {response.status_code}")
        if response.status_code >= 400:
            text = " ".join(response.text.split())[:200]
            raise _RefusedError(
                response.status_code, f"{self._where()} refused the request ({response.status_code}): {text}"
            )

    def _dialect(self, response_format: Mapping[str, Any]) -> dict[str, Any]:
        """``response_format`` as this server takes it: OpenAI's ``json_schema``, or ``json_object`` with a schema."""
        if self._json_object and response_format.get("type") == "json_schema":
            schema = response_format.get("json_schema", {}).get("schema", {})
            return {"type": "json_object", "schema": schema}
        return dict(response_format)

    def _with_retries(self, call: Callable[[], Any]) -> Any:
        attempts = self.settings.retries + 1
        problem = ""
        for attempt in range(attempts):
            try:
                return call()
            except _Retry as exc:
                problem = str(exc)
            except self._httpx.TimeoutException:
                problem = f"{self._where()} did not answer within {self.settings.timeout_seconds:g} s"
            except self._httpx.TransportError as exc:
                problem = f"{self._where()} cannot be reached ({type(exc).__name__}: {exc})"
            if attempt + 1 < attempts:
                self._sleep(self.settings.backoff_seconds * 2**attempt)
        raise ModelUnavailableError(f"{problem}; tried {attempts} time{'s' if attempts != 1 else ''}")

    def _where(self) -> str:
        return f"the model server at {self.settings.base_url}"


class _Retry(Exception):  # noqa: N818 - a signal inside the client, never raised out of it
    """A response worth asking again for (429, 5xx)."""


class _RefusedError(Exception):
    """A response not worth asking again for as it was (4xx): the caller may ask otherwise, or give up."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
