"""Shared fixtures: the bundled example packs and small document helpers."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# CI runs the property tests with a fixed seed, so a landing never depends on luck; local runs
# explore new examples every time (and keep failures in .hypothesis/ to replay them).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
VERSIONS = ("0.2", "0.3", "0.4", "0.5")


def example(version: str, kind: str) -> dict[str, Any]:
    """A fresh copy of a bundled example pack (``kind``: ``minimal`` or ``rich``)."""
    loaded: dict[str, Any] = json.loads((EXAMPLES / version / f"{kind}.json").read_text(encoding="utf-8"))
    return copy.deepcopy(loaded)


def tokens(pointer: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]] if pointer else []


def put(doc: Any, pointer: str, value: Any) -> Any:
    """Set (or, for an array, replace) the value at ``pointer``; return ``doc``."""
    *parents, last = tokens(pointer)
    node = doc
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    if isinstance(node, list) and int(last) == len(node):
        node.append(value)
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return doc


def drop(doc: Any, pointer: str) -> Any:
    """Remove the member at ``pointer``; return ``doc``."""
    *parents, last = tokens(pointer)
    node = doc
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    del node[last]
    return doc


def get(doc: Any, pointer: str) -> Any:
    node = doc
    for token in tokens(pointer):
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


@pytest.fixture(params=VERSIONS)
def version(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


@pytest.fixture
def terminal() -> Iterator[type[Any]]:
    """``Terminal`` (tests/test_play_tty.py): ``creatorpack ARGS`` on a pseudo-terminal, closed after the test."""
    from tests.test_play_tty import Terminal

    opened: list[Terminal] = []

    class Opened(Terminal):
        def __init__(self, *args: str) -> None:
            super().__init__(*args)
            opened.append(self)

    yield Opened
    for term in opened:
        term.close()
