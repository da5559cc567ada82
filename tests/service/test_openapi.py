"""The OpenAPI document: served at /openapi.json, checked in as docs/openapi.json, every error documented."""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

from fastapi.testclient import TestClient

from creatorpack.service.api.errors import PROBLEMS
from creatorpack.service.app import openapi_json
from tests.conftest import ROOT

CHECKED_IN = ROOT / "docs" / "openapi.json"
REGENERATE = (
    ".venv/bin/python -c \"from creatorpack.service.app import openapi_json; print(openapi_json(), end='')\" "
    "> docs/openapi.json"
)


def test_checked_in_document_has_not_drifted() -> None:
    assert CHECKED_IN.read_text(encoding="utf-8") == openapi_json(), f"regenerate it: {REGENERATE}"


def test_served_document_is_the_checked_in_one(stateless_client: TestClient) -> None:
    response = stateless_client.get("/openapi.json")
    assert response.status_code == 200
    assert response.json() == json.loads(CHECKED_IN.read_text(encoding="utf-8"))
    assert response.json()["openapi"].startswith("3.1")


def test_every_error_is_a_documented_problem() -> None:
    document = json.loads(CHECKED_IN.read_text(encoding="utf-8"))
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    assert "application/problem+json" in response["content"], (method, path, status)
    assert "HTTPValidationError" not in document["components"]["schemas"]


def _curl_commands(text: str) -> list[str]:
    """Every curl command in the text: in code blocks (with ``\\`` continuations) and in table cells."""
    joined = re.sub(r"\\\n\s*", " ", text)
    return [m.group(0) for m in re.finditer(r"\bcurl\s[^`\n]*", joined)]


def _method(command: str) -> str:
    explicit = re.search(r"(?:-X|--request)\s+([A-Z]+)", command)
    if explicit:
        return explicit.group(1)
    return "POST" if re.search(r"\s(?:-d|--data(?:-binary|-raw)?|-F|--form)\s", command) else "GET"


def _paths(command: str) -> list[str]:
    return [urlsplit(url).path for url in re.findall(r"https?://[^\s'\"]+", command)]


def _template(path: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"\\{[^}]+\\}", r"[^/]+", re.escape(path)) + r"/?")


def test_every_problem_type_is_in_docs_service_md() -> None:
    text = (ROOT / "docs" / "service.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip().strip("`"): line for line in text.splitlines() if line.startswith("| `urn:")}
    for problem in PROBLEMS.values():
        assert problem.uri in rows, problem.uri
        assert "curl " in rows[problem.uri], f"{problem.uri}: no curl example in its row"


def test_every_route_has_a_curl_example_in_docs_service_md() -> None:
    text = (ROOT / "docs" / "service.md").read_text(encoding="utf-8")
    examples = [(_method(c), path) for c in _curl_commands(text) for path in _paths(c)]
    document = json.loads(CHECKED_IN.read_text(encoding="utf-8"))
    missing = []
    for path, operations in document["paths"].items():
        pattern = _template(path)
        for method in operations:
            assert f"{method.upper()} {path}" in text, f"{method.upper()} {path}"
            if not any(m == method.upper() and pattern.fullmatch(p) for m, p in examples):
                missing.append(f"{method.upper()} {path}")
    assert missing == [], f"no curl example for {missing}"


def _example_path(path: str) -> str:
    """The path with each parameter filled in with a value of its form (pack id, revision, sha256, session id)."""
    values = {"revision": "1", "sha256": "0" * 64, "session_id": "0" * 32}
    return re.sub(r"\{([^}]+)\}", lambda m: values.get(m[1], "moon.garden"), path)


def test_two_authorization_headers_are_400_everywhere_and_listed(stateless_client: TestClient) -> None:
    """More than one Authorization header is 400 on every route, so every operation lists 400."""
    document = stateless_client.get("/openapi.json").json()
    twice = [("Authorization", "Bearer cpt_a"), ("Authorization", "Bearer cpt_b")]
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            response = stateless_client.request(method.upper(), _example_path(path), headers=twice)
            assert response.status_code == 400, (method, path, response.status_code)
            assert "400" in operation["responses"], (method, path)


def test_only_routes_that_serve_byte_ranges_list_416(stateless_client: TestClient) -> None:
    """416 answers a Range past the end of a file; an upload, which serves no file, never answers it."""
    document = stateless_client.get("/openapi.json").json()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            assert ("416" in responses) == ("206" in responses), (method, path)


def test_a_served_file_is_declared_of_any_media_type_not_json() -> None:
    """The asset routes answer with the file's sniffed type (image/png, video/mp4, ...), never JSON."""
    paths = json.loads(openapi_json())["paths"]
    for path in ("/v1/packs/{pack_id}/assets/{asset_id}", "/v1/sessions/{session_id}/assets/{asset_id}"):
        for status in ("200", "206"):
            assert list(paths[path]["get"]["responses"][status]["content"]) == ["*/*"], (path, status)
