"""A server process of ``creatorpack serve --workers N`` ends when the serve process does (see test_cli for kill -9)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from creatorpack.service import worker


def test_the_serve_process_itself_arranges_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(worker.PARENT_ENV, raising=False)
    assert worker.die_with_parent() is None
    assert worker.die_with_parent(os.getpid()) is None  # one server process: uvicorn runs in serve itself


def test_a_parent_that_died_before_the_request_ends_the_worker_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The death signal only comes for a parent alive when it was asked for: the parent's pid is checked."""
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(worker, "_death_signal", lambda: True)
    monkeypatch.setattr(os, "kill", lambda pid, sig: sent.append((pid, sig)))
    assert worker.die_with_parent(os.getppid()) == "prctl"
    assert sent == []  # the parent is there
    assert worker.die_with_parent(os.getppid() + 100_000) == "prctl"  # not our parent (any more)
    assert sent == [(os.getpid(), signal.SIGTERM)]


def test_without_prctl_a_watchdog_polls_the_parent(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(worker, "_death_signal", lambda: False)
    monkeypatch.setattr(os, "kill", lambda pid, sig: sent.append((pid, sig)))
    monkeypatch.setattr(worker, "_POLL_SECONDS", 0.01)
    parents = iter([7, 7, 1])
    monkeypatch.setattr(os, "getppid", lambda: next(parents, 1))
    worker._watch(7)
    assert sent == [(os.getpid(), signal.SIGTERM)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_prctl_is_available_on_linux() -> None:
    probe = "from creatorpack.service import worker; print(worker._death_signal())"  # in a process of its own
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout == "True\n"
