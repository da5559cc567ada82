"""How many goals a default lint decides on every bundled pack and every test pack (counts, not timings).

A goal is decided when it is proved unreachable or reached by a witness; what is left gets a
``reachability-bound`` finding. The bounds are counts, so these figures are the same on every
machine (the wall-clock safety net is set out of reach here). Their times are measured in
``benchmarks/lint.py --quick`` (docs/performance.md), not here.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.report import LintConfig
from tests.reach_packs import SHAPES

ROOT = Path(__file__).resolve().parent.parent


def _file(path: str) -> Callable[[], Any]:
    return lambda: json.loads((ROOT / path).read_text())


PACKS: dict[str, tuple[Callable[[], Any], int, int, tuple[str, ...]]] = {
    "examples/0.3/rich.json": (_file("examples/0.3/rich.json"), 37, 37, ()),
    "examples/0.4/rich.json": (_file("examples/0.4/rich.json"), 58, 58, ()),
    "examples/0.5/rich.json": (_file("examples/0.5/rich.json"), 64, 64, ()),
    # A 30-day survival: its boxes allow 2.6 million states, the search hunts for witnesses in 20,000 (breadth
    # first, then a beam); the asset the ending reveals is witnessed by replaying the plays the hunt found.
    "tests/packs/survival.json": (_file("tests/packs/survival.json"), 27, 27, ()),
    "rich 0.5 + ending-stops-it-first": (SHAPES["ending-stops-it-first"][0], 69, 69, ()),
    "rich 0.5 + guarded-by-an-answer": (SHAPES["guarded-by-an-answer"][0], 68, 68, ()),
    "rich 0.5 + holding-each-other-up": (SHAPES["holding-each-other-up"][0], 68, 68, ()),
}
"""Each pack: how to make it, the goals a default lint decides, its goals, and those it leaves undecided."""


@pytest.mark.parametrize("name", list(PACKS))
def test_a_default_lint_decides_these_many_goals(name: str) -> None:
    make, decided, goals, left = PACKS[name]
    outcome = _reach.decide(make(), LintConfig().max_states, 1e9, time.monotonic)
    undecided = [
        str(t.goal) for t in outcome.targets if t.goal not in outcome.proofs and t.goal not in outcome.witnesses
    ]
    assert (len(outcome.targets) - len(undecided), len(outcome.targets)) == (decided, goals)
    assert tuple(undecided) == left
    assert not outcome.timed_out


def test_the_minimal_examples_have_no_goals() -> None:
    for version in ("0.2", "0.3", "0.4", "0.5"):
        assert _reach.decide(_file(f"examples/{version}/minimal.json")(), 100_000, 1e9, time.monotonic).targets == ()
