"""The artwork check replays witnesses once per shared turn: each play must end where a replay of it alone does."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from creatorpack.contract.conditions import Goal
from creatorpack.errors import SessionOverError
from creatorpack.lint.artwork import _served_from_start, final_states
from creatorpack.lint.linter import LintConfig, lint
from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.reach._witness import Reached
from creatorpack.play.engine import Engine, Session

from .conftest import example
from .random_packs import REACH, random_pack


def _alone(engine: Engine, play: Reached) -> object:
    session = Session.start(engine, play.entry)
    for move in play.turns:
        session.turn(move)
    return session.state


def _plays(found: dict[Goal, Reached]) -> list[Reached]:
    """The witnesses, every prefix of each (shared first turns), and each twice, in no particular order."""
    plays = list(found.values())
    plays += [Reached(p.entry, p.turns[:cut]) for p in found.values() for cut in range(len(p.turns))]
    return list(reversed(plays)) + plays


def test_each_play_ends_where_it_ends_replayed_alone_on_the_rich_example() -> None:
    doc = example("0.5", "rich")
    outcome = _reach.decide(doc, 2_000, 1e9, time.monotonic)
    plays = _plays(dict(outcome.witnesses))
    assert len({json.dumps(p.turns[:1]) for p in plays}) < len(plays)  # first turns are shared
    engine = Engine(doc)
    assert final_states(engine, plays) == [_alone(engine, p) for p in plays]


def test_plays_from_other_entries_start_there() -> None:
    """The same turns from each entry: a play's shared turns are only those from its own entry."""
    doc = example("0.5", "rich")
    outcome = _reach.decide(doc, 2_000, 1e9, time.monotonic)
    engine = Engine(doc)
    assert len(engine.entry_ids()) > 1
    plays, ends = [], []
    for witness in outcome.witnesses.values():
        for entry in engine.entry_ids():
            play = Reached(entry, witness.turns)
            try:
                ends.append(_alone(engine, play))
            except SessionOverError:  # an ending comes sooner from this entry: not a play
                continue
            plays.append(play)
    assert len({p.entry for p in plays}) > 1
    assert final_states(engine, plays) == ends


def test_each_play_ends_where_it_ends_replayed_alone_on_random_packs() -> None:
    for seed in range(8):
        doc = random_pack(seed, REACH)
        outcome = _reach.decide(doc, 300, 1e9, time.monotonic)
        plays = _plays(dict(outcome.witnesses))
        engine = Engine(doc)
        assert final_states(engine, plays) == [_alone(engine, p) for p in plays], seed


def test_only_art_revealed_at_the_start_and_given_by_no_reward_skips_the_replay() -> None:
    engine = Engine(example("0.5", "rich"))
    start, _ = engine.start()
    shown = sorted(start.revealed.get("assets", ()))
    assert shown
    assert _served_from_start({}, shown[0], start)
    assert not _served_from_start({"access": "reward_only"}, shown[0], start)  # served only once a reward gives it
    hidden = next(a for a in engine.program.assets if a not in shown)
    assert not _served_from_start({}, hidden, start)


def test_lint_compiles_the_pack_once_for_the_search_and_the_artwork_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """One engine for both: compiling the runtime benchmark pack and making its functions cost seconds a time."""
    built: list[int] = []
    made = Engine.__init__

    def counted(self: Engine, *args: Any, **kwargs: Any) -> None:
        built.append(1)
        made(self, *args, **kwargs)

    monkeypatch.setattr(Engine, "__init__", counted)
    report = lint(example("0.5", "rich"), LintConfig())
    assert report.witnesses  # the search ran and the artwork check read its plays
    assert len(built) == 1
