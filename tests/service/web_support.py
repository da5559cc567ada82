"""What the web page tests share: the CSRF token of a page, signing in through the form."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fastapi.testclient import TestClient
from httpx import Response

__all__ = ["csrf", "form_post", "sign_in", "text_of"]

_CSRF = re.compile(r'name="csrf" value="([^"]+)"')
_TAGS = re.compile(r"<[^>]+>")


def csrf(client: TestClient, path: str = "/validate") -> str:
    """The CSRF token a page's forms carry (the page sets the nonce cookie it signs on first visit)."""
    page = client.get(path)
    found = _CSRF.search(page.text)
    assert found is not None, (path, page.status_code, page.text[:500])
    return found.group(1)


def form_post(client: TestClient, path: str, data: Mapping[str, str] | None = None, **options: Any) -> Response:
    """POST a form with the page's CSRF token, not following the redirect."""
    body = {"csrf": csrf(client), **(data or {})}
    answer: Response = client.post(path, data=body, follow_redirects=False, **options)
    return answer


def sign_in(client: TestClient, authorization: dict[str, str]) -> None:
    """Sign in through ``POST /signin`` with the token of an ``Authorization`` header."""
    token = authorization["Authorization"].removeprefix("Bearer ")
    answer = form_post(client, "/signin", {"token": token})
    assert answer.status_code == 303, answer.text


def text_of(response: Response) -> str:
    """A page's text without its tags, whitespace runs made one space."""
    return " ".join(_TAGS.sub(" ", response.text).split())
