"""``validate --watch`` and ``lint --watch``: a subprocess watches a pack, the test saves it, then Ctrl-C."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from creatorpack.cli import app

from .conftest import example

PATIENCE = 60.0  # a guard against a hung watch, not a performance expectation


class _Watcher:
    """``creatorpack COMMAND --watch PATH`` in a subprocess, its output read line by line."""

    def __init__(self, *args: str) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}
        # Ctrl-C as a terminal delivers it: a test run started as a background job ignores SIGINT,
        # and a child inherits an ignored signal (a handled one is reset to the default at exec).
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "creatorpack", *args],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                env=env,
            )
        finally:
            signal.signal(signal.SIGINT, previous)
        self.lines: queue.Queue[str] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        with self.process.stdout:
            for line in self.process.stdout:
                self.lines.put(line.rstrip("\n"))

    def until(self, words: str) -> list[str]:
        """The lines up to and including the next one that holds ``words``."""
        got: list[str] = []
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                continue
            got.append(line)
            if words in line:
                return got
        pytest.fail(f"{words!r} never appeared; the watch printed:\n" + "\n".join(got))

    def stop(self) -> int:
        self.process.send_signal(signal.SIGINT)  # Ctrl-C
        code = self.process.wait(timeout=PATIENCE)
        self.reader.join(timeout=PATIENCE)  # to the end of the output, and the pipe closed
        return code


@pytest.mark.parametrize("command", ["validate", "lint"])
def test_watch_checks_again_on_save_and_ends_on_ctrl_c(tmp_path: Path, command: str) -> None:
    path = tmp_path / "pack.json"
    pack = example("0.5", "minimal")
    path.write_text(json.dumps(pack, indent=2), encoding="utf-8")
    watcher = _Watcher(command, "--watch", str(path))
    try:
        first = watcher.until("watching")
        assert first[-2].startswith("Checked 1 file: ")
        assert first[-1].endswith(f"watching {path} for changes; Ctrl-C stops")
        time.sleep(0.5)  # the watcher is set up right after it prints
        pack["manifest"]["title"] = ""
        path.write_text(json.dumps(pack, indent=2), encoding="utf-8")
        second = watcher.until("watching")
        assert any("title: must not be empty" in line for line in second), second
        assert "1 error" in second[-2]
        assert "\x1b[" not in "".join(second)  # no screen clearing when the output is no terminal
    finally:
        code = watcher.stop()
    assert code == 130
    assert watcher.until("stopped watching")


def test_watch_refuses_standard_input_and_explain() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["validate", "--watch", "-"], input="{}")
    assert result.exit_code == 2
    assert "standard input ('-') cannot change" in result.output
    result = runner.invoke(app, ["lint", "--watch", "--explain", "x", "pack.json"])
    assert result.exit_code == 2
    assert "does not watch" in result.output
