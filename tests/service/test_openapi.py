"""The OpenAPI document: served at /openapi.json, checked in as docs/openapi.json, every error documented."""

from __future__ import annotations

import json

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


def test_every_problem_type_is_in_docs_service_md() -> None:
    text = (ROOT / "docs" / "service.md").read_text(encoding="utf-8")
    for problem in PROBLEMS.values():
        assert problem.uri in text, problem.uri
    document = json.loads(CHECKED_IN.read_text(encoding="utf-8"))
    for path, operations in document["paths"].items():
        for method in operations:
            assert f"{method.upper()} {path}" in text, f"{method.upper()} {path}"
