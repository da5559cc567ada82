"""Checks a response against the OpenAPI document: its status is listed, its body fits that status's schema.

:class:`Conformance` finds the operation of a request (method and path template), checks the
response's status is one the operation documents, its media type one documented for that status (no
body where none is documented), and validates a JSON body with jsonschema-rs (formats included)
against the documented schema, *closed*: an object schema that names its properties and says
nothing of others is checked as if it said ``additionalProperties: false``. The published document
stays open (clients may meet new members in later versions), but a member the service sends
without its shape saying so fails here. Each checked (method, path, status) is remembered, so a test
can tell which documented answers were never exercised.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any, Final

import httpx
import jsonschema_rs
import orjson

__all__ = ["Conformance", "Documented", "closed"]

Documented = tuple[str, str, str]
"""(method, path template, status), as the OpenAPI document lists them: ``("GET", "/v1/health", "200")``."""

_PARAMETER: Final = re.compile(r"\\\{[^}]+\\\}")


def closed(schema: Any) -> Any:
    """A copy of ``schema``: each object schema with ``properties`` and no ``additionalProperties`` closed."""
    found = copy.deepcopy(schema)

    def close(node: Any) -> None:
        if isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node:
                node["additionalProperties"] = False
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(found)
    return found


@dataclass
class Conformance:
    """The OpenAPI document's operations, the checks of responses against them, and what was checked."""

    document: dict[str, Any]
    seen: set[Documented] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._components = closed(self.document["components"])
        self._operations = [
            (method.upper(), template, re.compile(_PARAMETER.sub("[^/]+", re.escape(template))), operation)
            for template, operations in self.document["paths"].items()
            for method, operation in operations.items()
        ]
        self._validators: dict[int, jsonschema_rs.Draft202012Validator] = {}

    def documented(self) -> set[Documented]:
        """Every (method, path template, status) the document lists."""
        return {(m, t, status) for m, t, _, operation in self._operations for status in operation["responses"]}

    def operation(self, method: str, path: str) -> tuple[str, dict[str, Any]]:
        """The path template and operation of a request."""
        found = [(t, op) for m, t, pattern, op in self._operations if m == method and pattern.fullmatch(path)]
        assert found, f"{method} {path}: no such operation in the OpenAPI document"
        return min(found, key=lambda f: f[0].count("{"))  # a literal segment wins over a parameter

    def check(self, response: httpx.Response) -> httpx.Response:
        """Check ``response`` against its operation's documented answers (see the module); return it."""
        method, path = response.request.method, response.request.url.path
        template, operation = self.operation(method, path)
        status = str(response.status_code)
        where = f"{method} {template} {status}"
        assert status in operation["responses"], f"{where}: status not documented ({response.text[:300]})"
        content: dict[str, Any] = operation["responses"][status].get("content", {})
        media = response.headers.get("content-type", "").split(";")[0].strip()
        if not content:
            assert response.content == b"", f"{where}: a body where the document lists none"
        elif media in content:
            schema = content[media].get("schema")
            if schema is not None and (media == "application/json" or media.endswith("+json")):
                self._validate(where, schema, orjson.loads(response.content))
        else:
            assert "*/*" in content, f"{where}: media type {media!r}, documented: {sorted(content)}"
        self.seen.add((method, template, status))
        return response

    def validate(self, method: str, template: str, status: str, body: Any) -> None:
        """Validate a JSON ``body`` against what the document says ``(method, template)`` answers with ``status``."""
        operation = next(op for m, t, _, op in self._operations if (m, t) == (method, template))
        content = operation["responses"][status]["content"]
        media = next(m for m in content if m.endswith("json"))
        self._validate(f"{method} {template} {status}", content[media]["schema"], body)

    def _validate(self, where: str, schema: dict[str, Any], body: Any) -> None:
        validator = self._validators.get(id(schema))
        if validator is None:
            rooted = {**closed(schema), "components": self._components}
            validator = self._validators[id(schema)] = jsonschema_rs.Draft202012Validator(rooted, validate_formats=True)
        errors = [f"{e.instance_path}: {e.message}" for e in validator.iter_errors(body)]
        assert not errors, f"{where}: the body does not fit its documented schema: {errors[:5]}"
