"""How the guided search spares turns that find nothing: the walk's patience, the hunt's smaller share.

On a pack whose one open goal no play reaches (two counters moved together, one high and one low
asked for), the walk gives up once ``PATIENCE`` turns in a row witnessed nothing new, not after
its own stalls; the sweep resumed after it plays its budget when it tries every move (it may still
prove), and none of it when it tries one answer a turn (it cannot prove, and found nothing for as
long). Such a sweep also first gets an eighth of the budget, not a quarter.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from creatorpack.contract.conditions import Goal
from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.reach import _witness
from creatorpack.lint.reach._abstract import analyse
from creatorpack.play.engine import Engine
from tests.reach_packs import holding_each_other_up

Doc = dict[str, Any]
LOPSIDED = Goal("achievement", "lopsided")
"""No play reaches it: the two counters it reads stay equal."""


def _search(doc: Doc) -> _witness.Search:
    engine = Engine(doc)
    analyses = [
        analyse(engine.program, entry, name) for entry, name in zip(engine.entries, engine.entry_ids(), strict=True)
    ]
    goals = [t for t in _reach.targets(engine) if t.goal == LOPSIDED]
    return _witness.Search(engine, goals, 1_000, time.monotonic() + 1e9, time.monotonic, analyses)


def _wide(doc: Doc) -> Doc:
    """The same pack with two more yes/no questions, so that a turn has too many answers to try them all."""
    extra = [{"type": "boolean", "id": f"extra{k}", "question": "And?"} for k in range(2)]
    doc["runtime"]["observations"] = [*doc["runtime"]["observations"], *extra]
    return doc


def _walked(patience: int, doc: Doc, monkeypatch: pytest.MonkeyPatch) -> _witness.Search:
    monkeypatch.setattr(_witness, "PATIENCE", patience)
    search = _search(doc)
    search.walk(search.starts())
    return search


def test_the_walk_stops_after_patience_turns_that_witness_nothing_new(monkeypatch: pytest.MonkeyPatch) -> None:
    patient = _walked(100, holding_each_other_up(), monkeypatch)
    assert patient.spent > 2  # unhurried, the walk plays on after two turns that found nothing
    assert LOPSIDED not in patient.found
    assert _walked(2, holding_each_other_up(), monkeypatch).spent == 2


def test_a_sweep_that_tries_every_move_plays_its_budget_after_the_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    search = _walked(2, holding_each_other_up(), monkeypatch)
    search.sweep(search.starts(), 50)
    assert search.spent == 2 + 50  # it may still prove (every move tried): patience does not stop it


def test_a_sweep_of_one_answer_a_turn_keeps_the_walk_s_patience(monkeypatch: pytest.MonkeyPatch) -> None:
    search = _walked(2, _wide(holding_each_other_up()), monkeypatch)
    assert search.spent == 2
    search.sweep(search.starts(), 50)
    assert search.spent == 2  # nothing new for as long as the patience, and no proof possible: no more turns
    assert search.patience == 2


@pytest.mark.parametrize(("wide", "share"), [(False, _reach.SWEEP_SHARE), (True, _reach.HUNT_SHARE)])
def test_a_sweep_of_one_answer_a_turn_first_gets_the_smaller_share(
    wide: bool, share: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list[int] = []
    sweep = _witness.Search.sweep

    def spied(self: _witness.Search, starts: Any, budget: int) -> None:
        given.append(budget)
        sweep(self, starts, budget)

    monkeypatch.setattr(_witness.Search, "sweep", spied)
    doc = _wide(holding_each_other_up()) if wide else holding_each_other_up()
    _reach.decide(doc, 2_000, 1e9, time.monotonic, exhaustive=False)
    assert given[0] == 2_000 // share
    assert _reach.HUNT_SHARE > _reach.SWEEP_SHARE
