"""The inductive box phase beside the guided search, in a worker thread: the same findings, always joined.

On a big pack (more than ``OVERLAP_RULES`` rules) ``decide`` runs the phase in one worker thread,
started once the guided search's ``solve`` phase is over and seeded with the states played by
then, in either path; ``overlap_rules`` moves the threshold, so small packs take either path here.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.reach import _inductive
from creatorpack.lint.reach._abstract import analyse
from creatorpack.lint.reach._beside import Beside, Stopped
from creatorpack.lint.reach._inductive import inductive_box
from creatorpack.play.engine import Engine
from tests.reach_packs import fog
from tests.test_reach_turns import SHORT, random_pack

Doc = dict[str, Any]


class _Spy(Beside[Any]):
    """A :class:`Beside` that records the threads its work ran in, and whether its result was asked for."""

    made: list[_Spy] = []  # noqa: RUF012 - reset by the fixture for each test

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[threading.Thread] = []
        self.asked = False
        _Spy.made.append(self)

    def start(self, work: Callable[[Callable[[], bool]], Any]) -> None:
        def traced(stop: Callable[[], bool]) -> Any:
            self.threads.append(threading.current_thread())
            return work(stop)

        super().start(traced)

    def result(self) -> Any:
        self.asked = True
        return super().result()


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> list[_Spy]:
    _Spy.made = []
    monkeypatch.setattr(_reach, "Beside", _Spy)
    return _Spy.made


def _workers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("creatorpack-beside")]


# Packs on which the box proves a goal, or names its bounds in an undecided finding; on r35
# the box seeded with the start alone, or with the sweep's states alone, is another box.
PACKS = {"fog": fog(), "r35": random_pack(35), "r39": random_pack(39), "r41": random_pack(41)}


@pytest.mark.parametrize("name", sorted(PACKS))
def test_the_box_beside_the_search_gives_the_findings_it_gives_after_it(name: str, spy: list[_Spy]) -> None:
    doc = PACKS[name]
    after = _reach.decide(doc, SHORT, 1e9, time.monotonic, turn_rules=0, overlap_rules=None)
    assert not spy[-1].threads  # nothing ran in a thread
    beside = _reach.decide(doc, SHORT, 1e9, time.monotonic, turn_rules=0, overlap_rules=0)
    assert len(spy[-1].threads) == 1
    assert spy[-1].threads[0] is not threading.main_thread()
    assert spy[-1].asked  # the box was used, not dropped
    assert beside == after
    assert repr(beside.findings) == repr(after.findings)
    by_box = [r for r in after.proofs.values() if "inductive invariant" in r]
    named = [f for f in after.findings if "inductive box" in f.message]
    assert by_box or named  # the box matters to what is said


def test_the_worker_thread_is_joined_before_decide_returns(spy: list[_Spy]) -> None:
    _reach.decide(fog(), SHORT, 1e9, time.monotonic, turn_rules=0, overlap_rules=0)
    assert spy[-1].threads
    assert not spy[-1].threads[0].is_alive()
    assert not _workers()


def test_a_box_no_longer_wanted_is_dropped_and_its_thread_joined(spy: list[_Spy]) -> None:
    """With a bigger budget the exhaustive search decides all of fog: the box started beside is not used."""
    beside = _reach.decide(fog(), 2_000, 1e9, time.monotonic, turn_rules=0, overlap_rules=0)
    assert spy[-1].threads
    assert not spy[-1].asked
    assert not _workers()
    assert beside == _reach.decide(fog(), 2_000, 1e9, time.monotonic, turn_rules=0, overlap_rules=None)


def test_an_exception_in_the_box_phase_propagates(spy: list[_Spy], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("the box phase broke")

    monkeypatch.setattr(_reach, "_inductive_boxes", broken)
    with pytest.raises(RuntimeError, match="the box phase broke"):
        _reach.decide(fog(), SHORT, 1e9, time.monotonic, turn_rules=0, overlap_rules=0)
    assert spy[-1].threads  # it was raised in the worker
    assert not _workers()


@pytest.mark.parametrize("turn_rules", [0, _reach.TURN_RULES])
def test_a_small_pack_takes_the_sequential_path(turn_rules: int, spy: list[_Spy]) -> None:
    """By default a pack of at most ``OVERLAP_RULES`` rules starts no thread, whatever ``turn_rules``."""
    outcome = _reach.decide(fog(), SHORT, 1e9, time.monotonic, turn_rules=turn_rules)
    assert spy
    assert not any(s.threads for s in spy)
    assert any("inductive" in r or "turn by turn" in r for r in outcome.proofs.values())  # a box phase ran


def test_the_box_phase_stops_when_told_to() -> None:
    engine = Engine(fog())
    analysis = analyse(engine.program, engine.entries[0], engine.entry_ids()[0])
    full = inductive_box(analysis, [])
    assert full is not None
    assert full.queries > 1
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 1  # after one query

    with pytest.raises(Stopped):
        inductive_box(analysis, [], stop=stop)
    assert len(asked) == 2


def test_leaving_the_block_stops_the_work_and_joins_its_thread() -> None:
    seen: list[bool] = []

    def work(stop: Callable[[], bool]) -> int:
        for _ in range(5_000):  # bounded, so that a stop never given fails the test rather than hangs it
            if stop():
                seen.append(True)
                raise Stopped
            time.sleep(0.001)
        return 0

    def caller() -> None:
        with Beside[int]() as beside:
            beside.start(work)
            raise ValueError("the caller broke")

    with pytest.raises(ValueError, match="the caller broke"):
        caller()
    assert seen == [True]  # it saw the stop, and the block waited for it (its Stopped is dropped)
    assert not _workers()


def test_work_is_started_once() -> None:
    with Beside[int]() as beside:
        beside.start(lambda _: 1)
        with pytest.raises(RuntimeError, match="started already"):
            beside.start(lambda _: 2)
        assert beside.result() == 1


def test_the_turn_is_encoded_for_z3_before_the_worker_starts(spy: list[_Spy], monkeypatch: pytest.MonkeyPatch) -> None:
    """Beside the search, each of the encoding's calls into z3 would wait for the GIL: it is made in the caller."""
    threads: list[threading.Thread] = []
    made = _inductive.Encoded.__init__

    def encoding(self: _inductive.Encoded, *args: Any, **kwargs: Any) -> None:
        threads.append(threading.current_thread())
        made(self, *args, **kwargs)

    monkeypatch.setattr(_inductive.Encoded, "__init__", encoding)
    _reach.decide(fog(), SHORT, 1e9, time.monotonic, turn_rules=0, overlap_rules=0)
    assert spy[-1].threads  # the box ran beside
    assert threads
    assert all(thread is threading.main_thread() for thread in threads)


def test_an_encoding_gives_one_box() -> None:
    """Its queries are counted against one box: a second would start with what the first left."""
    engine = Engine(fog())
    encoded = _inductive.Encoded(analyse(engine.program, engine.entries[0], engine.entry_ids()[0]))
    assert encoded.box([]) is not None
    with pytest.raises(RuntimeError, match="one box"):
        encoded.box([])
